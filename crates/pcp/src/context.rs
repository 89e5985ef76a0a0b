//! The PMAPI context: where metrics come from, and the services on it.

use crate::archive::ArchiveSource;
use crate::profile::Profile;
pub use pcp_archive::replay::Mode;
use pcp_core::{Desc, FetchResult, InDom, PmError, PmId, PmResult, Timestamp};
use pcp_pmns::cpp::Files;
use pcp_pmns::{LoadOptions, Loaded, Pmns};
use std::collections::HashMap;

/// Where a context's names come from (`pmGetPMNSLocation`).
#[doc(alias = "pmGetPMNSLocation")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PmnsLocation {
    /// `PMNS_LOCAL`: a name space loaded from a file.
    Local,
    /// `PMNS_REMOTE`: pmcd's name space (host contexts).
    Remote,
    /// `PMNS_ARCHIVE`: the names an archive's metadata holds.
    Archive,
}

/// A PMAPI context. Each is independent: no global "current context".
///
/// Today a context holds a name space loaded from a file (what `pminfo -n`
/// uses); host, archive and local metric sources are added to this type as
/// they are implemented.
#[derive(Debug)]
pub struct Context {
    pmns: Pmns,
    location: PmnsLocation,
    archive: Option<Box<ArchiveSource>>,
    profile: Profile,
    /// The current time (`c_origin`): where the next fetch starts and what
    /// time instance domains are taken at.
    origin: Timestamp,
}

/// Instance identifiers and their names, index for index.
pub type Instances = (Vec<i32>, Vec<Vec<u8>>);

/// `PM_TEXT_ONELINE` / `PM_TEXT_HELP`: which help text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextLevel {
    /// `PM_TEXT_ONELINE`.
    OneLine,
    /// `PM_TEXT_HELP`.
    Help,
}

impl Context {
    /// A context whose name services use `pmns` (as after
    /// `pmLoadASCIINameSpace`), with libpcp's two anonymous derived metrics
    /// (`event.flags`, `event.missed`) that every context has.
    pub fn with_namespace(mut pmns: Pmns) -> Context {
        pmns.add_names(crate::derived::ANON.iter().map(|a| (a.name, a.desc.pmid)));
        Context {
            pmns,
            location: PmnsLocation::Local,
            archive: None,
            profile: Profile::default(),
            origin: Timestamp::default(),
        }
    }

    /// `pmNewContext(PM_CONTEXT_ARCHIVE, name)`: a context over the archive
    /// `name` (its base name or any of its files), its names from the
    /// archive's metadata, positioned at the archive's start.
    #[doc(alias = "pmNewContext")]
    pub fn open_archive(name: &str) -> PmResult<Context> {
        Context::open_archive_checking(name, true)
    }

    /// [`Context::open_archive`], checking the labels' feature bits or not
    /// (`PM_CTXFLAG_NO_FEATURE_CHECK`): archives with bits 6.0.3 does not
    /// know fail with `PM_ERR_FEATURE` when they are checked.
    #[doc(alias = "PM_CTXFLAG_NO_FEATURE_CHECK")]
    pub fn open_archive_checking(name: &str, check_features: bool) -> PmResult<Context> {
        let source = ArchiveSource::open_checking(name, check_features)?;
        let mut pmns = Pmns::new();
        // libpcp adds each name in turn to the front of its parent's children
        pmns.add_names_front(
            source.meta().names().iter().map(|(n, id)| (std::str::from_utf8(n).unwrap_or("\u{fffd}"), *id)),
        );
        pmns.add_names(crate::derived::ANON.iter().map(|a| (a.name, a.desc.pmid)));
        let origin = source.label().start;
        Ok(Context {
            pmns,
            location: PmnsLocation::Archive,
            archive: Some(Box::new(source)),
            profile: Profile::default(),
            origin,
        })
    }

    /// The archive of an archive context.
    pub fn archive(&self) -> Option<&ArchiveSource> {
        self.archive.as_deref()
    }

    fn need_archive(&self) -> PmResult<&ArchiveSource> {
        self.archive.as_deref().ok_or(PmError::PM_ERR_NOTARCHIVE)
    }

    fn need_archive_mut(&mut self) -> PmResult<&mut ArchiveSource> {
        self.archive.as_deref_mut().ok_or(PmError::PM_ERR_NOTARCHIVE)
    }

    /// `pmSetMode`: how fetches step through an archive, from `when`, by
    /// `delta_ns` nanoseconds a fetch in `Mode::Interp`.
    #[doc(alias = "pmSetMode")]
    #[doc(alias = "pmSetModeHighRes")]
    pub fn set_mode(&mut self, mode: Mode, when: Timestamp, delta_ns: i64) -> PmResult<()> {
        self.need_archive_mut()?.replay()?.set_mode(mode, when, delta_ns)?;
        self.origin = when;
        Ok(())
    }

    /// `pmFetch`: the values of `pmids` (instances as the profile allows).
    #[doc(alias = "pmFetch")]
    #[doc(alias = "pmFetchHighRes")]
    pub fn fetch(&mut self, pmids: &[PmId]) -> PmResult<FetchResult> {
        let profile = &self.profile;
        let src = self.archive.as_deref_mut().ok_or(PmError::PM_ERR_NOTARCHIVE)?;
        let replay = src.replay()?;
        let mut r = replay.fetch(pmids, &|indom, inst| profile.wanted(indom, inst));
        self.origin = replay.position();
        // derived metrics are evaluated over the result (__pmFinishResult);
        // the anonymous event metrics have no operands, so no values
        if let Ok(result) = &mut r {
            for set in &mut result.sets {
                if crate::derived::anon_by_pmid(set.pmid).is_some() {
                    set.values = Ok(Vec::new());
                }
            }
        }
        r
    }

    /// `pmFetchArchive`: the next whole record of an archive, marks
    /// included.
    #[doc(alias = "pmFetchArchive")]
    #[doc(alias = "pmFetchHighResArchive")]
    pub fn fetch_archive(&mut self) -> PmResult<FetchResult> {
        let src = self.need_archive_mut()?;
        let replay = src.replay()?;
        let r = replay.fetch_archive();
        let pos = replay.position();
        self.origin = pos;
        r
    }

    /// `pmGetArchiveEnd`: the time of the archive's last good record.
    #[doc(alias = "pmGetArchiveEnd")]
    #[doc(alias = "pmGetHighResArchiveEnd")]
    pub fn archive_end(&mut self) -> PmResult<Timestamp> {
        self.need_archive_mut()?.replay()?.end()
    }

    /// `pmAddProfile`: include instances of `indom` in fetches (all of
    /// them when `insts` is empty).
    #[doc(alias = "pmAddProfile")]
    pub fn add_profile(&mut self, indom: InDom, insts: &[i32]) -> PmResult<()> {
        self.profile.add(indom, insts)
    }

    /// `pmDelProfile`: exclude instances of `indom` from fetches (all of
    /// them when `insts` is empty).
    #[doc(alias = "pmDelProfile")]
    pub fn del_profile(&mut self, indom: InDom, insts: &[i32]) -> PmResult<()> {
        self.profile.delete(indom, insts)
    }

    /// `pmLookupInDomArchive`: an instance by name in any of the archive's
    /// instance sets, newest first.
    #[doc(alias = "pmLookupInDomArchive")]
    pub fn lookup_indom_archive(&self, indom: InDom, name: &[u8]) -> PmResult<i32> {
        self.need_archive()?.meta().lookup_inst_any(indom, name)
    }

    /// The context's current time (libpcp's `c_origin`).
    pub fn origin(&self) -> Timestamp {
        self.origin
    }

    /// Set the current time (as a fetch in an archive context moves it).
    pub fn set_origin(&mut self, t: Timestamp) {
        self.origin = t;
    }

    /// `pmLookupDesc`: the descriptor of `pmid`.
    #[doc(alias = "pmLookupDesc")]
    pub fn lookup_desc(&self, pmid: PmId) -> PmResult<Desc> {
        if let Some(a) = crate::derived::anon_by_pmid(pmid) {
            return Ok(a.desc);
        }
        self.need_archive()?.meta().desc(pmid).copied()
    }

    /// `pmGetInDom`: the instances of `indom` at the current time, ordered
    /// by instance identifier.
    #[doc(alias = "pmGetInDom")]
    pub fn get_indom(&self, indom: InDom) -> PmResult<Instances> {
        if indom.is_null() {
            return Err(PmError::PM_ERR_INDOM);
        }
        let set = self.need_archive()?.meta().indom_at(indom, Some(self.origin))?;
        Ok((set.ids.clone(), set.names.clone()))
    }

    /// `pmNameInDom`: an instance's name at the current time.
    #[doc(alias = "pmNameInDom")]
    pub fn name_indom(&self, indom: InDom, inst: i32) -> PmResult<Vec<u8>> {
        if indom.is_null() {
            return Err(PmError::PM_ERR_INDOM);
        }
        let set = self.need_archive()?.meta().indom_at(indom, Some(self.origin))?;
        set.name_of(inst).map(<[u8]>::to_vec).ok_or(PmError::PM_ERR_INST_LOG)
    }

    /// `pmLookupInDom`: an instance by name at the current time.
    #[doc(alias = "pmLookupInDom")]
    pub fn lookup_indom(&self, indom: InDom, name: &[u8]) -> PmResult<i32> {
        if indom.is_null() {
            return Err(PmError::PM_ERR_INDOM);
        }
        let set = self.need_archive()?.meta().indom_at(indom, Some(self.origin))?;
        set.lookup(name).ok_or(PmError::PM_ERR_INST_LOG)
    }

    /// `pmGetInDomArchive`: every instance `indom` had in the archive.
    #[doc(alias = "pmGetInDomArchive")]
    pub fn get_indom_archive(&self, indom: InDom) -> PmResult<Instances> {
        self.need_archive()?.meta().indom_union(indom)
    }

    /// `pmLookupText`: a metric's help text.
    #[doc(alias = "pmLookupText")]
    pub fn lookup_text(&self, pmid: PmId, level: TextLevel) -> PmResult<Vec<u8>> {
        if let Some(a) = crate::derived::anon_by_pmid(pmid) {
            let text = if level == TextLevel::OneLine { a.oneline } else { a.help };
            return Ok(text.as_bytes().to_vec());
        }
        self.text(pmid.0, pcp_archive::meta::text_kind::PMID, level)
    }

    /// `pmLookupInDomText`: an instance domain's help text.
    #[doc(alias = "pmLookupInDomText")]
    pub fn lookup_indom_text(&self, indom: InDom, level: TextLevel) -> PmResult<Vec<u8>> {
        self.text(indom.0, pcp_archive::meta::text_kind::INDOM, level)
    }

    fn text(&self, ident: u32, what: u32, level: TextLevel) -> PmResult<Vec<u8>> {
        use pcp_archive::meta::text_kind;
        let level = match level {
            TextLevel::OneLine => text_kind::ONELINE,
            TextLevel::Help => text_kind::HELP,
        };
        let meta = self.need_archive()?.meta();
        match meta.text(level | what, ident) {
            // full help that is missing or empty falls back to the one-line text
            Err(_) | Ok([]) if level == text_kind::HELP => meta.text(text_kind::ONELINE | what, ident),
            r => r,
        }
        .map(<[u8]>::to_vec)
    }

    /// Load an ASCII name space file (through pmcpp, as libpcp does) and
    /// make a context of it; the diagnostics libpcp would print come back
    /// either way.
    #[doc(alias = "pmLoadASCIINameSpace")]
    pub fn load_namespace(path: &[u8], dupok: bool, files: &mut dyn Files) -> (PmResult<Context>, Vec<u8>) {
        let var_dir = crate::config::var_dir().into_os_string().into_encoded_bytes();
        let opts = LoadOptions { dupok, use_cpp: true, var_dir };
        let Loaded { pmns, diagnostics } = pcp_pmns::load(path, &opts, files);
        (pmns.map(Context::with_namespace), diagnostics)
    }

    /// Take the name space `names` was loaded with (as libpcp does when
    /// `pmLoadASCIINameSpace` came before `pmNewContext`): from now on this
    /// context's names come from it ([`PmnsLocation::Local`]).
    #[doc(alias = "pmLoadASCIINameSpace")]
    pub fn adopt_namespace(&mut self, names: Context) {
        self.pmns = names.pmns;
        self.location = PmnsLocation::Local;
    }

    /// `pmTrimNameSpace`: in an archive context whose names were loaded
    /// from a file, keep only the names of metrics the archive describes
    /// (and of the anonymous derived metrics, which libpcp keeps apart from
    /// the loaded names). Other contexts are left as they are.
    #[doc(alias = "pmTrimNameSpace")]
    pub fn trim_namespace(&mut self) {
        let Some(src) = self.archive.as_deref() else { return };
        if self.location != PmnsLocation::Local {
            return;
        }
        let mut names = Vec::new();
        let _ = self.pmns.traverse_with("", |n| {
            if !n.is_empty() {
                names.push(n.to_string());
            }
        });
        let kept: Vec<(String, PmId)> = names
            .into_iter()
            .filter_map(|n| {
                let pmid = self.pmns.lookup(&n).ok()?;
                let known = src.meta().desc(pmid).is_ok() || crate::derived::anon_by_pmid(pmid).is_some();
                known.then_some((n, pmid))
            })
            .collect();
        // a traversal lists every node's children in order, so adding the
        // survivors in traversal order keeps the order of names
        let mut pmns = Pmns::new();
        pmns.add_names(kept.iter().map(|(n, id)| (n.as_str(), *id)));
        self.pmns = pmns;
    }

    /// For each of `pmids`, what `pmSetMode(PM_MODE_FORW, when)` and then
    /// `pmFetch` of that one metric answer in an archive context (the way
    /// pminfo and pmprobe fetch from a `-O` origin), found in one forward
    /// read from `when`: the first record holding the metric (marks and
    /// records without it passed over; for a derived metric, the first
    /// record that is not a mark), with just that metric's value set; or
    /// the error that ends the read (`PM_ERR_EOL` at the end). The
    /// positioning is libpcp's, so the first record read may lie a little
    /// before `when`. `Err` is `pmSetMode`'s failure.
    pub fn first_each_forw(
        &mut self,
        when: Timestamp,
        pmids: &[PmId],
    ) -> PmResult<HashMap<PmId, PmResult<FetchResult>>> {
        self.set_mode(Mode::Forw, when, 0)?;
        let mut search = crate::archive::FirstEach::new(pmids);
        while !search.done() {
            match self.fetch_archive() {
                Ok(result) => {
                    let _ = search.offer(result);
                }
                Err(e) => search.fail(e),
            }
        }
        Ok(search.found)
    }

    /// `pmGetPMNSLocation`: where this context's names come from.
    #[doc(alias = "pmGetPMNSLocation")]
    pub fn pmns_location(&self) -> PmnsLocation {
        self.location
    }

    /// `pmLookupName`: PMIDs for names, one-to-one (see
    /// [`Pmns::lookup_names`]).
    #[doc(alias = "pmLookupName")]
    pub fn lookup_names(&self, names: &[&str]) -> PmResult<(Vec<PmId>, usize)> {
        self.pmns.lookup_names(names)
    }

    /// `pmNameID`: a name of a PMID.
    #[doc(alias = "pmNameID")]
    pub fn name_of(&self, pmid: PmId) -> PmResult<String> {
        self.pmns.name_of(pmid)
    }

    /// `pmNameAll`: every name of a PMID.
    #[doc(alias = "pmNameAll")]
    pub fn names_of(&self, pmid: PmId) -> PmResult<Vec<String>> {
        self.pmns.names_of(pmid)
    }

    /// `pmGetChildrenStatus`: a node's children and their leaf status.
    #[doc(alias = "pmGetChildren")]
    #[doc(alias = "pmGetChildrenStatus")]
    pub fn children(&self, name: &str) -> PmResult<Vec<pcp_pmns::tree::Child>> {
        self.pmns.children(name)
    }

    /// `pmTraversePMNS`: every metric name at or below `name`, in order.
    #[doc(alias = "pmTraversePMNS")]
    pub fn traverse_with(&self, name: &str, f: impl FnMut(&str)) -> PmResult<()> {
        self.pmns.traverse_with(name, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contexts_are_send_and_sync() {
        fn both<T: Send + Sync>() {}
        both::<Context>();
    }
}
