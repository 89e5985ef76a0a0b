//! The PMAPI context: where metrics come from, and the services on it.

use crate::archive::ArchiveSource;
use crate::host::HostSource;
use crate::local::{LocalNames, LocalSource, LocalSpec};
use crate::profile::Profile;
use crate::source::{MetricSource, RemoteNames};
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
/// A context is a name space and a [`MetricSource`]: none (a name space
/// loaded from a file, what `pminfo -n` uses, whose per-source services
/// are `PM_ERR_NOCONTEXT`), an archive, the local machine, pmcd on a host
/// (whose name space is pmcd's, unless one was loaded from a file), or
/// any other source ([`Context::from_source`]). The context adds derived
/// metrics, the instance profile and the current time over its source.
#[derive(Debug)]
pub struct Context {
    pmns: Pmns,
    location: PmnsLocation,
    source: Option<Box<dyn MetricSource>>,
    profile: Profile,
    /// The current time (`c_origin`): where the next fetch starts and what
    /// time instance domains are taken at.
    origin: Timestamp,
    /// The registered derived metrics bound in this context.
    derived: crate::derived::Bound,
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
    pub fn with_namespace(pmns: Pmns) -> Context {
        Context::new(None, pmns, PmnsLocation::Local, Timestamp::default())
    }

    /// A context over `source`, its names those of `pmns` (as after
    /// `pmLoadASCIINameSpace`), or with `None` the source's own (see
    /// [`MetricSource::remote_names`]; a source without any then has no
    /// names but the derived metrics'). Derived metrics
    /// ([`Context::bind_derived`], [`Context::add_derived`]) and the
    /// instance profile work over any source; the current time starts at
    /// the epoch.
    #[doc(alias = "pmNewContext")]
    pub fn from_source(source: Box<dyn MetricSource>, pmns: Option<Pmns>) -> Context {
        let (pmns, location) = match pmns {
            Some(p) => (p, PmnsLocation::Local),
            None if source.remote_names().is_some() => (Pmns::new(), PmnsLocation::Remote),
            None => (Pmns::new(), PmnsLocation::Local),
        };
        Context::new(Some(source), pmns, location, Timestamp::default())
    }

    /// A context of these parts, with libpcp's anonymous derived
    /// metrics' names in a name space it holds.
    fn new(
        source: Option<Box<dyn MetricSource>>,
        mut pmns: Pmns,
        location: PmnsLocation,
        origin: Timestamp,
    ) -> Context {
        if location != PmnsLocation::Remote {
            pmns.add_names(crate::derived::ANON.iter().map(|a| (a.name, a.desc.pmid)));
        }
        Context { pmns, location, source, profile: Profile::default(), origin, derived: Default::default() }
    }

    /// `pmNewContext(PM_CONTEXT_LOCAL)`: a context over this machine's
    /// metrics, with no pmcd (see [`crate::local`] for what it serves and
    /// its names). Diagnostics of a default name space file that does not
    /// parse are dropped; [`Context::open_local_with`] returns them.
    #[doc(alias = "pmNewContext")]
    #[doc(alias = "PM_CONTEXT_LOCAL")]
    pub fn open_local() -> PmResult<Context> {
        Context::open_local_with(LocalSpec::system()).0
    }

    /// A local context over a snapshot of a machine's files under `root`
    /// (see [`LocalSpec::snapshot`]), with the built-in names.
    pub fn open_local_at(root: impl Into<std::path::PathBuf>) -> PmResult<Context> {
        Context::open_local_with(LocalSpec::snapshot(root)).0
    }

    /// A local context as `spec` says, with the diagnostics of loading
    /// its name space (libpcp's, for a default name space file that does
    /// not parse: the context then fails with `PM_ERR_NOPMNS`).
    pub fn open_local_with(spec: LocalSpec) -> (PmResult<Context>, Vec<u8>) {
        let (src, mut diagnostics) = LocalSource::open(&spec);
        let pmns = match spec.names {
            LocalNames::Given(p) => p,
            LocalNames::BuiltIn => builtin_pmns(),
            LocalNames::Default => {
                let path = crate::config::default_pmns().into_os_string().into_encoded_bytes();
                let var_dir = crate::config::var_dir().into_os_string().into_encoded_bytes();
                // libpcp reads the default name space without pmcpp
                let opts = LoadOptions { dupok: true, use_cpp: false, var_dir };
                let loaded = pcp_pmns::load(&path, &opts, &mut pcp_pmns::cpp::OsFiles);
                match loaded.pmns {
                    Ok(p) => {
                        diagnostics.extend_from_slice(&loaded.diagnostics);
                        p
                    }
                    // no file to read: a machine without PCP
                    Err(e) if e.errno().is_some() => builtin_pmns(),
                    Err(_) => {
                        diagnostics.extend_from_slice(&loaded.diagnostics);
                        return (Err(PmError::PM_ERR_NOPMNS), diagnostics);
                    }
                }
            }
        };
        let ctx = Context::new(Some(Box::new(src)), pmns, PmnsLocation::Local, Timestamp::default());
        (Ok(ctx), diagnostics)
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
        // libpcp adds each name in turn to the front of its parent's
        // children, archive by archive
        pmns.add_archive_names(
            source
                .meta()
                .names_by_archive()
                .map(|names| names.iter().map(|(n, id)| (std::str::from_utf8(n).unwrap_or("\u{fffd}"), *id))),
        );
        let origin = source.label().start;
        Ok(Context::new(Some(Box::new(source)), pmns, PmnsLocation::Archive, origin))
    }

    /// Take the registered derived metrics of `registry` into this
    /// context, as libpcp does when it makes a context: a metric whose
    /// name is a real metric's here is ignored (the real one wins); the
    /// others' names join the context's name space (after the names it
    /// has, in registration order). Each is bound (checked against the
    /// context's metrics) the first time its descriptor is asked for or it
    /// is fetched; one that cannot be bound keeps its name, but its
    /// descriptor is `PM_ERR_BADDERIVE`, listings leave it out from then
    /// on, and its semantic error goes to `messages` (libpcp's `pmprintf`
    /// buffer, written out at exit).
    ///
    /// Call it once, after the context's name space is settled
    /// ([`Context::use_namespace_of`] replaces the names it adds).
    #[doc(alias = "__dmopencontext")]
    pub fn bind_derived(&mut self, registry: &crate::derived::Registry) {
        // pmcd's names are asked about a derived name only when it is bound
        // (libpcp's __dmbind), so a host context puts the check off to then
        let remote = self.remote_names().is_some();
        let defs: Vec<&pcp_derived::Definition> = registry
            .metrics()
            .iter()
            .filter(|d| !d.anon && (remote || !pcp_derived::check::shadowed(&d.name, &mut ContextCatalog(self))))
            .collect();
        self.pmns.add_names(defs.iter().map(|d| (d.name.as_str(), d.pmid)));
        let bound: Vec<crate::derived::BoundMetric> = defs
            .into_iter()
            .map(|d| crate::derived::BoundMetric {
                pmid: d.pmid,
                name: d.name.clone(),
                expr: d.expr.clone(),
                oneline: d.oneline.clone(),
                helptext: d.helptext.clone(),
                binding: std::sync::Mutex::new(crate::derived::Binding::Unbound),
                announced: std::sync::atomic::AtomicBool::new(false),
                local: false,
                masked: false,
            })
            .collect();
        self.derived.reserve(bound.len());
        for m in bound {
            self.derived.push(m);
        }
        self.derived.limit = registry.limit();
    }

    /// `pmAddDerived`: a derived metric of this context alone. Its PMID
    /// is the context's next from 511.2047.1023 downwards (with the
    /// PMID's top bit set, as libpcp marks them); it masks a global
    /// derived metric of the same name in this context, and it is bound
    /// at once. Errors are libpcp's, in its order: too many per-context
    /// metrics (the registry's limit when [`Context::bind_derived`] took
    /// it), a name already added to this context, a syntax error, no
    /// PMIDs left, then a semantic error. As in libpcp 6.0.3, a metric
    /// whose operands are not all known here, or whose name is a real
    /// metric's (the real one wins), is added without error but cannot be
    /// used: its descriptor is `PM_ERR_BADDERIVE` and listings leave it
    /// out. [`pcp_derived::add_message`] gives `pmAddDerivedMetric`'s
    /// message for an error.
    ///
    /// libpcp counts the PMIDs with one counter shared by all contexts,
    /// so that contexts adding metrics in turn may hand out a PMID twice
    /// in one context; here each context counts its own.
    #[doc(alias = "pmAddDerived")]
    #[doc(alias = "pmAddDerivedMetric")]
    pub fn add_derived(&mut self, name: &str, expr: &str) -> Result<PmId, pcp_derived::AddError> {
        use crate::derived::{lock, Binding, BoundMetric};
        use pcp_derived::AddError;
        let name = cstr(name);
        let text = cstr(expr);
        let table = |why: &str| Err(AddError::Table(why.as_bytes().to_vec()));
        let locals: Vec<PmId> = self.derived.metrics.iter().filter(|m| m.local).map(|m| m.pmid).collect();
        if self.derived.limit.is_some_and(|limit| locals.len() >= limit) {
            return table("Too many per-context derived metrics");
        }
        if self.derived.metrics.iter().any(|m| m.local && m.name == name) {
            return table("Duplicate per-context derived metric name");
        }
        // a global metric of the name is masked, whatever happens next;
        // the per-context one's name comes after the context's others
        for m in self.derived.metrics.iter_mut().filter(|m| m.name == name) {
            m.masked = true;
            if self.pmns.lookup(name) == Ok(m.pmid) {
                self.pmns.remove_name(name);
            }
        }
        let tree = pcp_derived::parse_bytes(text.as_bytes(), &mut self.derived.parse).map_err(AddError::Syntax)?;
        let pmid = match locals.last() {
            None => PmId(0x8000_0000 | PmId::new(pcp_derived::registry::DERIVED_DOMAIN, 2047, 1023).0),
            Some(last) if last.item() > 1 => PmId(last.0 - 1),
            Some(last) if last.cluster() > 0 => PmId((last.0 & !0x3f_ffff) | ((last.cluster() - 1) << 10) | 1023),
            Some(_) => return table("per-context PMID space exhausted"),
        };
        let shadowed = pcp_derived::check::shadowed(name, &mut ContextCatalog(self));
        if !shadowed {
            self.pmns.add_names([(name, pmid)]);
        }
        self.derived.push(BoundMetric {
            pmid,
            name: name.to_string(),
            expr: pcp_derived::LazyExpr::parsed(text.as_bytes(), tree),
            oneline: None,
            helptext: None,
            binding: std::sync::Mutex::new(if shadowed { Binding::Failed(None) } else { Binding::Unbound }),
            announced: std::sync::atomic::AtomicBool::new(true),
            local: true,
            masked: false,
        });
        if shadowed {
            return Ok(pmid);
        }
        // bound at once, its error returned rather than reported
        let Some(m) = self.derived.get(pmid) else { return Ok(pmid) };
        *lock(&m.binding) = Binding::Failed(None);
        // (parsed above)
        let Ok(tree) = m.expr.tree() else { return Ok(pmid) };
        let binding = match pcp_derived::check::check(&m.name, pmid, &tree, &mut ContextCatalog(self)) {
            Ok(checked) => Binding::Bound(Box::new(self.derived.evaluator(tree, checked))),
            Err(e) => {
                *lock(&m.binding) = Binding::Failed(None);
                // an operand that cannot be looked up is no error to
                // libpcp here (it says nothing of it), only a broken rule
                return match (e.report, e.reason) {
                    (Some(_), Some(why)) => Err(AddError::Semantic(why.as_bytes().to_vec())),
                    _ => Ok(pmid),
                };
            }
        };
        *lock(&m.binding) = binding;
        Ok(pmid)
    }

    /// Whether `pmid` is one of this context's derived metrics.
    pub(crate) fn is_derived_here(&self, pmid: PmId) -> bool {
        self.derived.get(pmid).is_some()
    }

    /// `pmDupContext`: a new context of the same kind over the same
    /// source, with a copy of this one's instance profile, current time,
    /// names (a name space loaded into it included) and derived metrics
    /// (bound afresh when first used, as in a new context). A host
    /// context connects to the same pmcd again; an archive context opens
    /// the same archives and goes on from where this one has got to (mode,
    /// step and reading position included); a local context gets the same
    /// agents in the same state. A context of names alone has no source
    /// to duplicate (`PM_ERR_NOCONTEXT`).
    #[doc(alias = "pmDupContext")]
    pub fn dup(&self) -> PmResult<Context> {
        let source = self.need_source()?.dup()?;
        let derived = self.derived.dup();
        Ok(Context {
            pmns: self.pmns.clone(),
            location: self.location,
            source: Some(source),
            profile: self.profile.clone(),
            origin: self.origin,
            derived,
        })
    }

    /// What libpcp would have written to standard error (`pmprintf` then
    /// `pmflush`) since last asked: the semantic errors of derived metrics
    /// bound by descriptor lookups and fetches. A tool writes them out
    /// after each such call.
    #[doc(alias = "pmflush")]
    pub fn take_messages(&self) -> Vec<u8> {
        std::mem::take(&mut *crate::derived::lock(&self.derived.messages))
    }

    /// Bind derived metric `pmid` if it is one not bound yet
    /// (`__dmbind`); `announce`: as libpcp binds it (its failure reported
    /// and its name hidden from then on), else only to read ahead.
    fn bind(&self, pmid: PmId, announce: bool) {
        use crate::derived::{lock, Binding};
        let Some(m) = self.derived.get(pmid) else { return };
        if matches!(*lock(&m.binding), Binding::Unbound) {
            // while it is checked, a metric that names it finds it failed
            *lock(&m.binding) = Binding::Failed(None);
            let binding = if self.remote_names().is_some()
                && pcp_derived::check::shadowed(&m.name, &mut ContextCatalog(self))
            {
                // a real metric of pmcd's has the name: it wins, silently
                Binding::Failed(None)
            } else {
                match m.expr.tree() {
                    // (no tree: registration parses what it cannot
                    // promise will parse, so this is not met)
                    Err(_) => Binding::Failed(None),
                    Ok(tree) => match pcp_derived::check::check(&m.name, m.pmid, &tree, &mut ContextCatalog(self)) {
                        Ok(checked) => Binding::Bound(Box::new(self.derived.evaluator(tree, checked))),
                        Err(e) => Binding::Failed(e.report),
                    },
                }
            };
            *lock(&m.binding) = binding;
        }
        if announce && !m.announced.swap(true, std::sync::atomic::Ordering::Relaxed) {
            if let Binding::Failed(Some(report)) = &*lock(&m.binding) {
                lock(&self.derived.messages).extend_from_slice(report);
            }
        }
    }

    /// Where the context's metrics come from (`None` for a context of
    /// names alone).
    pub fn source(&self) -> Option<&dyn MetricSource> {
        self.source.as_deref()
    }

    /// The source, or `PM_ERR_NOCONTEXT` for a context of names alone.
    pub(crate) fn need_source(&self) -> PmResult<&dyn MetricSource> {
        self.source().ok_or(PmError::PM_ERR_NOCONTEXT)
    }

    /// The pmcd connection of a host context.
    pub fn host(&self) -> Option<&HostSource> {
        self.source()?.as_host()
    }

    /// The source's own name space, when the context's names are its.
    fn remote_names(&self) -> Option<&dyn RemoteNames> {
        self.source()?.remote_names().filter(|_| self.location == PmnsLocation::Remote)
    }

    /// The instance profile.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Take another context's profile (as `pmDupContext` copies it).
    pub(crate) fn copy_profile_from(&mut self, other: &Context) {
        self.profile = other.profile.clone();
    }

    /// Take the name space loaded into `loaded` (a context made by
    /// [`Context::load_namespace`]): as after `pmLoadASCIINameSpace`, this
    /// context's names then come from it, whatever the metrics' source.
    #[doc(alias = "pmLoadASCIINameSpace")]
    pub fn use_namespace_of(&mut self, loaded: Context) {
        self.pmns = loaded.pmns;
        self.location = PmnsLocation::Local;
    }

    /// The archive of an archive context.
    pub fn archive(&self) -> Option<&ArchiveSource> {
        self.source()?.as_archive()
    }

    /// The local source of a local context.
    pub fn local(&self) -> Option<&LocalSource> {
        self.source()?.as_local()
    }

    /// `pmGetContextHostName`: the host the metrics are of (an archive's
    /// from its label, this machine's for a local context, pmcd's
    /// `pmcd.hostname` for a host context: see [`HostSource::host_name`]).
    #[doc(alias = "pmGetContextHostName")]
    pub fn host_name(&self) -> PmResult<String> {
        self.need_source()?.host_name(&self.profile)
    }

    fn need_archive(&self) -> PmResult<&ArchiveSource> {
        self.archive().ok_or(PmError::PM_ERR_NOTARCHIVE)
    }

    fn need_archive_mut(&mut self) -> PmResult<&mut ArchiveSource> {
        self.source.as_deref_mut().and_then(MetricSource::as_archive_mut).ok_or(PmError::PM_ERR_NOTARCHIVE)
    }

    /// `pmSetMode`: how fetches step through an archive, from `when`, by
    /// `delta_ns` nanoseconds a fetch in `Mode::Interp`. Local and host
    /// contexts have no replay modes (`PM_ERR_MODE`).
    #[doc(alias = "pmSetMode")]
    #[doc(alias = "pmSetModeHighRes")]
    pub fn set_mode(&mut self, mode: Mode, when: Timestamp, delta_ns: i64) -> PmResult<()> {
        if self.source().is_some_and(|s| s.as_archive().is_none()) {
            return Err(PmError::PM_ERR_MODE);
        }
        self.need_archive_mut()?.replay()?.set_mode(mode, when, delta_ns)?;
        self.origin = when;
        Ok(())
    }

    /// Let an archive context make interpolated fetches ahead, on a
    /// thread of its own, while the caller uses the ones before (see
    /// [`ArchiveSource::set_fetch_ahead`]; the results are the same).
    /// Other contexts have nothing to make ahead, and ignore it. A pcp-rs
    /// addition, off by default.
    pub fn set_fetch_ahead(&mut self, on: bool) {
        if let Ok(a) = self.need_archive_mut() {
            a.set_fetch_ahead(on);
        }
    }

    /// `pmFetch`: the values of `pmids` (instances as the profile allows):
    /// from an archive, at its current time; from the local machine or
    /// pmcd, now (pmcd's state-change bits: [`Context::fetch_changes`]).
    #[doc(alias = "pmFetch")]
    #[doc(alias = "pmFetchHighRes")]
    pub fn fetch(&mut self, pmids: &[PmId]) -> PmResult<FetchResult> {
        let mut out = FetchResult::default();
        self.fetch_into(pmids, &mut out)?;
        Ok(out)
    }

    /// [`Context::fetch`] into `out`, whose room (the list of value sets
    /// and their value lists) is reused where the source allows: a tool
    /// fetching over and over hands back the result it is done with. On an
    /// error, what `out` holds is unspecified.
    #[doc(alias = "pmFetch")]
    pub fn fetch_into(&mut self, pmids: &[PmId], out: &mut FetchResult) -> PmResult<()> {
        if pmids.is_empty() {
            return Err(PmError::PM_ERR_TOOSMALL);
        }
        let derived = pmids.iter().any(|p| self.derived.get(*p).is_some());
        if !derived {
            return self.fetch_source_into(pmids, out);
        }
        for &p in pmids {
            // (one bound and announced already is passed over without a lock)
            if !self.derived.bound_and_announced(p) {
                self.bind(p, true);
            }
        }
        // (lent out for the fetch, and put back whatever it gives; both
        // lists' room is kept for the next fetch)
        let mut evaluators = std::mem::take(&mut self.derived.lent);
        self.derived.take_evaluators_into(pmids, &mut evaluators);
        let mut list = std::mem::take(&mut self.derived.asked);
        pcp_derived::prefetch_into(pmids, &evaluators, &mut list);
        // (the source's result is filled in the one of the last fetch)
        let mut r = std::mem::take(&mut self.derived.fetched);
        let fetched = self.fetch_source_into(&list, &mut r);
        self.derived.asked = list;
        if fetched.is_ok() {
            pcp_derived::postfetch_into(&r, pmids.len(), &mut evaluators, &mut ContextInstances(self), out);
            // one that could not be bound (so not lent out) keeps what the
            // source said of it
            for (set, source) in out.sets.iter_mut().zip(&r.sets) {
                if self.derived.get(set.pmid).is_some() && !evaluators.iter().any(|e| e.pmid() == set.pmid) {
                    set.clone_from(source);
                }
            }
        }
        self.derived.restore_from(&mut evaluators);
        self.derived.lent = evaluators;
        self.derived.fetched = r;
        fetched
    }

    /// A fetch from the source into `out` (its room reused where the
    /// source allows; on an error, what it holds is unspecified), the
    /// anonymous derived metrics given no values.
    fn fetch_source_into(&mut self, pmids: &[PmId], out: &mut FetchResult) -> PmResult<()> {
        let source = self.source.as_deref_mut().ok_or(PmError::PM_ERR_NOCONTEXT)?;
        source.fetch_into(pmids, &self.profile, out, &mut self.origin)?;
        // derived metrics are evaluated over the result (__pmFinishResult);
        // the anonymous event metrics have no operands, so no values
        for set in &mut out.sets {
            if crate::derived::anon_by_pmid(set.pmid).is_some() {
                set.values = Ok(Vec::new());
            }
        }
        Ok(())
    }

    /// `pmStore`: change metrics' values in the source: pmcd's, or in a
    /// local context the agents' (see [`LocalSource::store`]); an archive
    /// stores nothing (`PM_ERR_NOTHOST`), nor does a context of names
    /// alone. No sets is `PM_ERR_TOOSMALL`, a set without values
    /// `PM_ERR_VALUE`.
    #[doc(alias = "pmStore")]
    pub fn store(&self, result: &FetchResult) -> PmResult<()> {
        storable(result)?;
        self.source().map_or(Err(PmError::PM_ERR_NOTHOST), |s| s.store(result))
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

    /// `pmGetArchiveEnd`: the time of the (last) archive's last good
    /// record. Over several archives, asking can move the current time
    /// (to the start of the archive being read, as libpcp does).
    #[doc(alias = "pmGetArchiveEnd")]
    #[doc(alias = "pmGetHighResArchiveEnd")]
    pub fn archive_end(&mut self) -> PmResult<Timestamp> {
        let replay = self.need_archive_mut()?.replay()?;
        let before = replay.position();
        let end = replay.end();
        let after = replay.position();
        if after != before {
            self.origin = after;
        }
        end
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
        if let Some(m) = self.derived.get(pmid) {
            self.bind(pmid, true);
            return match &*crate::derived::lock(&m.binding) {
                crate::derived::Binding::Bound(ev) => Ok(ev.desc()),
                _ => Err(PmError::PM_ERR_BADDERIVE),
            };
        }
        // the source is asked first, the anonymous derived metrics after
        match self.need_source().and_then(|s| s.desc(pmid)) {
            Err(
                e @ (PmError::PM_ERR_PMID
                | PmError::PM_ERR_PMID_LOG
                | PmError::PM_ERR_NOAGENT
                | PmError::PM_ERR_NOCONTEXT),
            ) => crate::derived::anon_by_pmid(pmid).map(|a| a.desc).ok_or(e),
            r => r,
        }
    }

    /// `pmGetInDom`: the instances of `indom` at the current time: an
    /// archive's ordered by instance identifier, the local machine's in
    /// its agent's order.
    #[doc(alias = "pmGetInDom")]
    pub fn get_indom(&self, indom: InDom) -> PmResult<Instances> {
        self.indom_source(indom)?.instances(indom, self.origin)
    }

    /// The source to ask about `indom`: not `PM_INDOM_NULL`
    /// (`PM_ERR_INDOM`).
    fn indom_source(&self, indom: InDom) -> PmResult<&dyn MetricSource> {
        if indom.is_null() {
            return Err(PmError::PM_ERR_INDOM);
        }
        self.need_source()
    }

    /// `pmNameInDom`: an instance's name at the current time.
    #[doc(alias = "pmNameInDom")]
    pub fn name_indom(&self, indom: InDom, inst: i32) -> PmResult<Vec<u8>> {
        self.indom_source(indom)?.instance_name(indom, inst, self.origin)
    }

    /// `pmLookupInDom`: an instance by name at the current time (in a
    /// local context, as the agents' `pmdaInstance` matches names: see
    /// [`pmda_instance_by_name`]).
    #[doc(alias = "pmLookupInDom")]
    pub fn lookup_indom(&self, indom: InDom, name: &[u8]) -> PmResult<i32> {
        self.indom_source(indom)?.instance_id(indom, name, self.origin)
    }

    /// `pmGetInDomArchive`: every instance `indom` had in the archive.
    #[doc(alias = "pmGetInDomArchive")]
    pub fn get_indom_archive(&self, indom: InDom) -> PmResult<Instances> {
        self.need_archive()?.meta().indom_union(indom)
    }

    /// `pmLookupText`: a metric's help text.
    #[doc(alias = "pmLookupText")]
    pub fn lookup_text(&self, pmid: PmId, level: TextLevel) -> PmResult<Vec<u8>> {
        // libpcp looks in the global table alone (masked metrics included)
        if let Some(m) = self.derived.metrics.iter().find(|m| m.pmid == pmid) {
            if m.local {
                return Err(PmError::PM_ERR_PMID);
            }
            let text = match level {
                TextLevel::OneLine => m.oneline.as_ref(),
                TextLevel::Help => m.helptext.as_ref().or(m.oneline.as_ref()),
            };
            return text.cloned().ok_or(PmError::PM_ERR_TEXT);
        }
        if let Some(a) = crate::derived::anon_by_pmid(pmid) {
            let text = if level == TextLevel::OneLine { a.oneline } else { a.help };
            return Ok(text.as_bytes().to_vec());
        }
        self.need_source()?.text(pmid, level)
    }

    /// `pmLookupInDomText`: an instance domain's help text.
    #[doc(alias = "pmLookupInDomText")]
    pub fn lookup_indom_text(&self, indom: InDom, level: TextLevel) -> PmResult<Vec<u8>> {
        self.need_source()?.indom_text(indom, level)
    }

    /// Load an ASCII name space file (through pmcpp, as libpcp does) and
    /// make a context of it; the diagnostics libpcp would print come back
    /// either way.
    #[doc(alias = "pmLoadASCIINameSpace")]
    pub fn load_namespace(path: &[u8], dupok: bool, files: &mut dyn Files) -> (PmResult<Context>, Vec<u8>) {
        let (ctx, diagnostics, _) = Context::load_namespace_keeping(path, dupok, files);
        (ctx, diagnostics)
    }

    /// [`Context::load_namespace`], also saying whether libpcp would keep
    /// the load as the process's name space (see [`Loaded::kept`]): once
    /// kept, even a failed one, libpcp refuses another load.
    pub fn load_namespace_keeping(
        path: &[u8],
        dupok: bool,
        files: &mut dyn Files,
    ) -> (PmResult<Context>, Vec<u8>, bool) {
        let var_dir = crate::config::var_dir().into_os_string().into_encoded_bytes();
        let opts = LoadOptions { dupok, use_cpp: true, var_dir };
        let Loaded { pmns, diagnostics, kept } = pcp_pmns::load(path, &opts, files);
        (pmns.map(Context::with_namespace), diagnostics, kept)
    }

    /// The context's name space, taken out of it (to open another context
    /// over a name space loaded once, as `pminfo -n -L` does).
    pub fn into_namespace(self) -> Pmns {
        self.pmns
    }

    /// `pmTrimNameSpace`: in an archive context whose names were loaded
    /// from a file, keep only the names of metrics the archive describes
    /// (and of the anonymous derived metrics, which libpcp keeps apart from
    /// the loaded names). Other contexts are left as they are.
    #[doc(alias = "pmTrimNameSpace")]
    pub fn trim_namespace(&mut self) {
        let Some(src) = self.archive() else { return };
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
    /// before `when`. `Err` is `pmSetMode`'s failure. `as_fetched`: as
    /// for [`Context::first_each`].
    pub fn first_each_forw(
        &mut self,
        when: Timestamp,
        pmids: &[PmId],
        as_fetched: bool,
    ) -> PmResult<HashMap<PmId, PmResult<FetchResult>>> {
        self.set_mode(Mode::Forw, when, 0)?;
        let bound = |p: PmId| self.derived_operands(p, as_fetched);
        let mut search = crate::archive::FirstEach::new(pmids, &bound);
        while !search.done() {
            match self.fetch_archive() {
                Ok(result) => {
                    let _ = search.offer(result);
                }
                Err(e) => search.fail(e),
            }
        }
        let mut found = search.found;
        self.evaluate_found(&mut found);
        Ok(found)
    }

    /// [`ArchiveSource::first_each`] in an archive context, its derived
    /// metrics evaluated: each is answered by the first record from `from`
    /// that is not a mark. The context's time does not move. Empty for
    /// other contexts.
    ///
    /// With `as_fetched`, derived metrics are bound as a `pmFetch` binds
    /// them (see [`Context::take_messages`]); without, only to read ahead
    /// (a tool that looks each descriptor up before its values).
    pub fn first_each(
        &mut self,
        from: Timestamp,
        pmids: &[PmId],
        as_fetched: bool,
    ) -> HashMap<PmId, PmResult<FetchResult>> {
        let Some(src) = self.archive() else { return HashMap::new() };
        let bound = |p: PmId| self.derived_operands(p, as_fetched);
        let mut found = src.first_each_with(from, pmids, &bound);
        self.evaluate_found(&mut found);
        found
    }

    /// The operands of a derived metric (none for the anonymous ones and
    /// those not bound), `None` for other metrics.
    fn derived_operands(&self, pmid: PmId, announce: bool) -> Option<Vec<PmId>> {
        if crate::derived::anon_by_pmid(pmid).is_some() {
            return Some(Vec::new());
        }
        let m = self.derived.get(pmid)?;
        self.bind(pmid, announce);
        match &*crate::derived::lock(&m.binding) {
            // a derived operand is in no record (and gets no values)
            crate::derived::Binding::Bound(ev) => {
                Some(ev.operands().iter().copied().filter(|p| !pcp_derived::check::is_derived(*p)).collect())
            }
            _ => Some(Vec::new()),
        }
    }

    /// The derived metrics' answers of a [`crate::archive::FirstEach`]
    /// search (whole records) turned into their values.
    fn evaluate_found(&mut self, found: &mut HashMap<PmId, PmResult<FetchResult>>) {
        crate::archive::empty_anon_sets(found);
        let wanted: Vec<PmId> = found.keys().copied().collect();
        let mut evaluators = self.derived.take_evaluators(&wanted);
        let position: HashMap<PmId, usize> = evaluators.iter().enumerate().map(|(i, e)| (e.pmid(), i)).collect();
        for (pmid, r) in found.iter_mut() {
            let Ok(record) = r else { continue };
            match self.derived.get(*pmid) {
                Some(m) if self.derived.is_bound(m) => {}
                // one that could not be bound has no values
                Some(_) => {
                    record.sets = vec![pcp_core::ValueSet { pmid: *pmid, values: Ok(Vec::new()) }];
                    continue;
                }
                None => continue,
            }
            let mut sets = vec![pcp_core::ValueSet { pmid: *pmid, values: Ok(Vec::new()) }];
            sets.append(&mut record.sets);
            // as a fetch of the operands answers: no values for those the
            // record does not hold
            let operands = position.get(pmid).and_then(|&i| evaluators.get(i)).map(|e| e.operands());
            for &op in operands.unwrap_or_default() {
                if !sets.iter().any(|s| s.pmid == op) {
                    sets.push(pcp_core::ValueSet { pmid: op, values: Ok(Vec::new()) });
                }
            }
            let whole = FetchResult { timestamp: record.timestamp, sets };
            let own = position.get(pmid).and_then(|&i| evaluators.get_mut(i..=i)).unwrap_or_default();
            *record = pcp_derived::postfetch(&whole, 1, own, &mut ContextInstances(self));
        }
        self.derived.restore(evaluators);
    }

    /// `pmGetPMNSLocation`: where this context's names come from.
    #[doc(alias = "pmGetPMNSLocation")]
    pub fn pmns_location(&self) -> PmnsLocation {
        self.location
    }

    /// `pmLookupName`: PMIDs for names, one-to-one (see
    /// [`Pmns::lookup_names`]). In a local context a name in a dynamic
    /// subtree is its agent's to resolve: `PM_ERR_NOAGENT` with no agent,
    /// and pcp-rs's agents know no dynamic names (`PM_ERR_NAME`).
    #[doc(alias = "pmLookupName")]
    pub fn lookup_names(&self, names: &[&str]) -> PmResult<(Vec<PmId>, usize)> {
        if let Some(h) = self.remote_names() {
            // names pmcd does not know may be derived metrics'
            let derived = |n: &str| self.derived.by_name(n).map(|m| m.pmid);
            return match h.lookup_names(names) {
                Ok((mut ids, mut count)) => {
                    for (id, n) in ids.iter_mut().zip(names) {
                        if let (true, Some(p)) = (id.is_null(), derived(n)) {
                            *id = p;
                            count += 1;
                        }
                    }
                    Ok((ids, count.min(names.len())))
                }
                Err(PmError::PM_ERR_NAME) if names.len() == 1 => {
                    derived(names[0]).map(|p| (vec![p], 1)).ok_or(PmError::PM_ERR_NAME)
                }
                Err(e) => Err(e),
            };
        }
        self.pmns.lookup_names_with(names, |pmid| self.resolve(pmid))
    }

    /// [`Context::lookup_names`] of one name, without the list.
    fn lookup_name(&self, name: &str) -> PmResult<PmId> {
        if self.remote_names().is_some() {
            return self.lookup_names(&[name]).map(|(ids, _)| ids.first().copied().unwrap_or(PmId::NULL));
        }
        self.pmns.lookup(name).and_then(|pmid| self.resolve(pmid))
    }

    /// A PMID the name space gives, as the source sees it: the root of a
    /// dynamic subtree is the source's to expand (see
    /// [`MetricSource::dynamic_names`]).
    fn resolve(&self, pmid: PmId) -> PmResult<PmId> {
        self.dynamic_names(pmid).map(|()| pmid)
    }

    /// [`MetricSource::dynamic_names`] of `pmid` when it is the root of a
    /// dynamic subtree; `Ok` for any other.
    fn dynamic_names(&self, pmid: PmId) -> PmResult<()> {
        match self.source() {
            Some(s) if pmid.is_dynamic_root() => s.dynamic_names(pmid),
            _ => Ok(()),
        }
    }

    /// The name of a per-context derived metric (whose name may be a
    /// masked global one's in the name space), or `PM_ERR_PMID` for a
    /// masked global one; `None` for other PMIDs.
    fn derived_name(&self, pmid: PmId) -> Option<PmResult<String>> {
        let m = self.derived.metrics.iter().find(|m| m.pmid == pmid && (m.local || m.masked))?;
        Some(if m.masked { Err(PmError::PM_ERR_PMID) } else { Ok(m.name.clone()) })
    }

    /// `pmNameID`: a name of a PMID.
    #[doc(alias = "pmNameID")]
    pub fn name_of(&self, pmid: PmId) -> PmResult<String> {
        if let Some(h) = self.remote_names() {
            return match self.derived.get(pmid) {
                Some(m) => Ok(m.name.clone()),
                None => h.name_of(pmid),
            };
        }
        if let Some(r) = self.derived_name(pmid) {
            return r;
        }
        self.pmns.name_of(pmid)
    }

    /// `pmNameAll`: every name of a PMID.
    #[doc(alias = "pmNameAll")]
    pub fn names_of(&self, pmid: PmId) -> PmResult<Vec<String>> {
        if let Some(h) = self.remote_names() {
            return match self.derived.get(pmid) {
                Some(m) => Ok(vec![m.name.clone()]),
                None => h.names_of(pmid),
            };
        }
        if let Some(r) = self.derived_name(pmid) {
            return r.map(|n| vec![n]);
        }
        self.pmns.names_of(pmid)
    }

    /// `pmGetChildrenStatus`: a node's children and their leaf status.
    #[doc(alias = "pmGetChildren")]
    #[doc(alias = "pmGetChildrenStatus")]
    ///
    /// Registered derived metrics are among them (after the source's,
    /// as libpcp adds them), except those that failed to bind (libpcp's
    /// `__dmchildren` leaves out a metric once binding it failed; it does
    /// not bind one itself).
    pub fn children(&self, name: &str) -> PmResult<Vec<pcp_pmns::tree::Child>> {
        if let Some(h) = self.remote_names() {
            let usable = self.derived.metrics.iter().filter(|m| !m.masked && !self.derived.failed(m.pmid));
            let derived = crate::host::derived_children(name, usable.map(|m| m.name.as_str()));
            return crate::host::stitch(h.children(name), derived);
        }
        let kids = self.pmns.children(name)?;
        if !self.derived.metrics.iter().any(|m| self.derived.failed(m.pmid)) {
            return Ok(kids);
        }
        let failed = |n: &str| self.pmns.lookup(n).is_ok_and(|p| self.derived.failed(p));
        if kids.is_empty() {
            // a leaf
            return if failed(name) { Err(PmError::PM_ERR_NAME) } else { Ok(kids) };
        }
        // a child stays if some name at or below it is not a failed metric
        let prefix = if name.is_empty() { String::new() } else { format!("{name}.") };
        let kept: Vec<_> = kids
            .into_iter()
            .filter(|c| {
                let mut keep = false;
                let walked = self.pmns.traverse_with(&format!("{prefix}{}", c.name), |n| keep |= !failed(n));
                keep || walked.is_err()
            })
            .collect();
        if kept.is_empty() {
            return Err(PmError::PM_ERR_NAME);
        }
        Ok(kept)
    }

    /// `pmTraversePMNS`: every metric name at or below `name`, in order.
    /// In a local context the root of a dynamic subtree is its agent's to
    /// expand: with no agent the walk ends there with `PM_ERR_NOAGENT`
    /// (the names before it are still handed on, as libpcp does); pcp-rs's
    /// agents have no dynamic names, so with one the subtree is empty.
    #[doc(alias = "pmTraversePMNS")]
    pub fn traverse_with(&self, name: &str, mut f: impl FnMut(&str)) -> PmResult<()> {
        if let Some(h) = self.remote_names() {
            let mut any = false;
            let r = h.traverse(name, &mut |n| {
                any = true;
                f(n);
            });
            match r {
                // pmcd's empty answer ends the walk, derived metrics unseen
                Ok(()) if !any => return Ok(()),
                Ok(()) | Err(PmError::PM_ERR_NAME) => {}
                Err(e) => return Err(e),
            }
            // then the derived metrics under `name`, each bound as it is
            // met and left out if that fails (libpcp's __dmtraverse)
            let mut extra = false;
            for m in self.derived.metrics.iter().filter(|m| !m.masked) {
                let under = name.is_empty()
                    || m.name.strip_prefix(name).is_some_and(|rest| rest.is_empty() || rest.starts_with('.'));
                if !under {
                    continue;
                }
                self.bind(m.pmid, true);
                if self.derived.is_bound(m) {
                    extra = true;
                    f(&m.name);
                }
            }
            return if extra { Ok(()) } else { r };
        }
        // derived metrics that failed to bind are left out (libpcp's
        // __dmchildren)
        let any_failed = self.derived.metrics.iter().any(|m| self.derived.failed(m.pmid));
        let mut f = |n: &str| {
            if !(any_failed && self.pmns.lookup(n).is_ok_and(|p| self.derived.failed(p))) {
                f(n);
            }
        };
        // the roots of dynamic subtrees are the source's to expand: with
        // no names there they are passed over, with no agent the walk ends
        let mut end = Ok(());
        let walked = self.pmns.traverse_with(name, |n| {
            if end.is_err() {
                return;
            }
            match self.pmns.lookup(n).map(|pmid| self.dynamic_names(pmid)) {
                Ok(Err(PmError::PM_ERR_NAME)) => {}
                Ok(Err(e)) => end = Err(e),
                _ => f(n),
            }
        });
        match walked {
            // a name below the root of a dynamic subtree: its agent's
            Err(PmError::PM_ERR_NAME) => match self.pmns.lookup(name) {
                Ok(pmid) => self.dynamic_names(pmid).and(Err(PmError::PM_ERR_NAME)),
                Err(_) => Err(PmError::PM_ERR_NAME),
            },
            Err(e) => Err(e),
            Ok(()) => end,
        }
    }
}

/// What `pmStore` checks first: at least one value set
/// (`PM_ERR_TOOSMALL`), and a value in each (`PM_ERR_VALUE`).
pub(crate) fn storable(result: &FetchResult) -> PmResult<()> {
    if result.sets.is_empty() {
        return Err(PmError::PM_ERR_TOOSMALL);
    }
    if result.sets.iter().any(|s| s.values.as_ref().map_or(true, Vec::is_empty)) {
        return Err(PmError::PM_ERR_VALUE);
    }
    Ok(())
}

/// A C string's text: up to the first NUL.
fn cstr(s: &str) -> &str {
    s.split('\0').next().unwrap_or(s)
}

/// A context as the derived-metric checker sees it.
struct ContextCatalog<'a>(&'a Context);

impl pcp_derived::check::Catalog for ContextCatalog<'_> {
    fn lookup_name(&mut self, name: &str) -> Result<PmId, PmError> {
        match self.0.lookup_name(name)? {
            PmId::NULL => Err(PmError::PM_ERR_NAME),
            p => Ok(p),
        }
    }

    fn lookup_desc(&mut self, pmid: PmId) -> Result<Desc, PmError> {
        // a derived operand is bound as pmLookupDesc binds it (one being
        // bound, as when a metric names itself, is PM_ERR_BADDERIVE)
        self.0.lookup_desc(pmid)
    }
}

/// A context as derived-metric evaluation sees its instance domains: at
/// the time of the values being evaluated.
struct ContextInstances<'a>(&'a Context);

impl pcp_derived::Instances for ContextInstances<'_> {
    fn inst_name(&mut self, indom: InDom, inst: i32, at: Timestamp) -> Option<Vec<u8>> {
        self.0.indom_source(indom).ok()?.instance_name(indom, inst, at).ok()
    }

    fn inst_id(&mut self, indom: InDom, name: &[u8], at: Timestamp) -> Option<i32> {
        self.0.indom_source(indom).ok()?.instance_id(indom, name, at).ok()
    }

    fn instances(&mut self, indom: InDom, at: Timestamp) -> Result<Vec<i32>, PmError> {
        self.0.indom_source(indom)?.instances(indom, at).map(|(ids, _)| ids)
    }
}

/// The name space of the metrics served: the agents' names in their
/// order.
fn builtin_pmns() -> Pmns {
    let mut pmns = Pmns::new();
    pmns.add_names(crate::local::builtin_names());
    pmns
}

/// Which of an agent's instance `names` (in its order) a name given to
/// `pmLookupInDom` picks, as libpcp_pmda's `pmdaInstance` matches it: the
/// first one that is the name exactly, or, for a name without a space,
/// whose first word (up to its first space) is the name, so "1" finds
/// kernel.all.load's "1 minute".
pub fn pmda_instance_by_name(names: &[Vec<u8>], name: &[u8]) -> Option<usize> {
    if name.is_empty() {
        return None;
    }
    let spaced = name.contains(&b' ');
    names.iter().position(|n| {
        n.as_slice() == name || (!spaced && n.iter().position(|&c| c == b' ').is_some_and(|sp| &n[..sp] == name))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcp_core::{MetricType, ValueSet};

    #[test]
    fn local_instance_names_match_as_pmda_instance_matches_them() {
        let names: Vec<Vec<u8>> =
            ["1 minute", "5 minute", "15 minute", "1", "a b"].map(|n| n.as_bytes().to_vec()).into();
        assert_eq!(pmda_instance_by_name(&names, b"1"), Some(0));
        assert_eq!(pmda_instance_by_name(&names, b"15"), Some(2));
        assert_eq!(pmda_instance_by_name(&names, b"5 minute"), Some(1));
        assert_eq!(pmda_instance_by_name(&names, b"a b"), Some(4));
        assert_eq!(pmda_instance_by_name(&names, b"a"), Some(4));
        assert_eq!(pmda_instance_by_name(&names, b"5 min"), None);
        assert_eq!(pmda_instance_by_name(&names, b"minute"), None);
        assert_eq!(pmda_instance_by_name(&names, b""), None);
    }

    fn fixture(name: &str) -> Context {
        let path = format!("{}/../pcp-archive/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
        Context::open_archive(&path).expect("fixture archive")
    }

    fn registry(defs: &[(&str, &str)]) -> crate::derived::Registry {
        let mut r = crate::derived::Registry::new();
        for (name, expr) in defs {
            r.register(name, expr).expect("registers");
        }
        r
    }

    #[test]
    fn derived_metrics_are_named_described_and_fetched() {
        let mut ctx = fixture("v2");
        ctx.bind_derived(&registry(&[("my.sum", "sample.bin + sample.bin"), ("sample.colour", "sample.bin")]));
        let (ids, _) = ctx.lookup_names(&["my.sum"]).expect("derived name");
        let desc = ctx.lookup_desc(ids[0]).expect("derived desc");
        let bin = ctx.lookup_names(&["sample.bin"]).expect("real name").0[0];
        assert_eq!(desc.indom, ctx.lookup_desc(bin).expect("real desc").indom);
        // a derived name that is a real metric's: the real one wins
        assert!(!pcp_derived::check::is_derived(ctx.lookup_names(&["sample.colour"]).expect("name").0[0]));
        let r = ctx.fetch(&[ids[0], bin]).expect("fetch");
        let (sum, real) = (r.sets[0].values.as_ref().expect("sum"), r.sets[1].values.as_ref().expect("bin"));
        assert_eq!(sum.len(), real.len());
        assert!(!sum.is_empty());
        assert_eq!(ctx.lookup_text(ids[0], TextLevel::OneLine), Err(PmError::PM_ERR_TEXT));
    }

    #[test]
    fn fetching_into_a_result_handed_back_is_fetching_afresh() {
        // instances coming and going, derived metrics with history, one
        // that cannot be bound, real metrics, interpolated at half the
        // logging interval
        let defs = registry(&[
            ("my.rate", "rate(sample.dynamic.counter)"),
            ("my.ratio", "sample.dynamic.instant / (sample.long.hundred + 1)"),
            ("my.bad", "sample.dynamic.counter + sample.dynamic.instant"),
        ]);
        let open = || {
            let mut ctx = fixture("dyn");
            ctx.bind_derived(&defs);
            let start = ctx.origin();
            ctx.set_mode(Mode::Interp, start, 500_000_000).expect("interp");
            ctx
        };
        let (mut fresh, mut reused) = (open(), open());
        let names = ["my.rate", "sample.dynamic.discrete", "my.ratio", "my.bad", "sample.long.hundred"];
        let (ids, _) = fresh.lookup_names(&names).expect("names");
        let mut rated = 0;
        for pmids in [&ids[..], &ids[1..2], &ids[..1], &ids[..]] {
            // a result of another shape to start from: more sets, an error
            let junk = ValueSet { pmid: PmId::NULL, values: Err(PmError::PM_ERR_PMID) };
            let mut out = FetchResult { timestamp: Timestamp::new(1, 2), sets: vec![junk.clone(), junk.clone(), junk] };
            for _ in 0..12 {
                let want = fresh.fetch(pmids);
                let got = reused.fetch_into(pmids, &mut out);
                assert_eq!(got.map(|()| out.clone()), want);
                rated +=
                    usize::from(out.sets[0].pmid == ids[0] && out.sets[0].values.as_ref().is_ok_and(|v| v.len() > 1));
            }
        }
        // (rates of several instances were made, from the second fetch on)
        assert!(rated >= 10, "{rated}");
    }

    #[test]
    fn a_derived_metric_that_fails_to_bind_is_reported_once_then_hidden() {
        let mut ctx = fixture("v2");
        ctx.bind_derived(&registry(&[("my.sem", "sample.bin + sample.colour"), ("my.ok", "sample.long.one * 2")]));
        let mut names = Vec::new();
        ctx.traverse_with("my", |n| names.push(n.to_string())).expect("walk");
        assert_eq!(names, ["my.sem", "my.ok"]);
        let pmid = ctx.lookup_names(&["my.sem"]).expect("name").0[0];
        assert_eq!(ctx.lookup_desc(pmid), Err(PmError::PM_ERR_BADDERIVE));
        let said = String::from_utf8(ctx.take_messages()).expect("text");
        assert!(said.starts_with("Semantic error: derived metric my.sem: "), "{said}");
        assert_eq!(ctx.lookup_desc(pmid), Err(PmError::PM_ERR_BADDERIVE));
        assert!(ctx.take_messages().is_empty());
        names.clear();
        ctx.traverse_with("my", |n| names.push(n.to_string())).expect("walk");
        assert_eq!(names, ["my.ok"]);
    }

    /// `pmAddDerivedMetric`'s message for a failed [`Context::add_derived`].
    fn add(ctx: &mut Context, name: &str, expr: &str) -> Result<PmId, String> {
        ctx.add_derived(name, expr).map_err(|e| {
            String::from_utf8(pcp_derived::add_message(name.as_bytes(), expr.as_bytes(), &e)).expect("text")
        })
    }

    fn walk(ctx: &Context, name: &str) -> Vec<String> {
        let mut names = Vec::new();
        ctx.traverse_with(name, |n| names.push(n.to_string())).expect("walk");
        names
    }

    fn kids(ctx: &Context, name: &str) -> PmResult<Vec<(String, bool)>> {
        ctx.children(name).map(|k| k.into_iter().map(|c| (c.name, c.leaf)).collect())
    }

    fn desc_type(ctx: &Context, name: &str) -> PmResult<MetricType> {
        let pmid = ctx.lookup_names(&[name])?.0[0];
        ctx.lookup_desc(pmid).map(|d| d.ty)
    }

    // The expected values are what libpcp 6.0.3 gives for the same calls
    // (pmAddDerivedMetric, pmLookupName, pmLookupDesc, pmNameID,
    // pmLookupText, pmTraversePMNS, pmGetChildrenStatus) on this archive,
    // but for a nested derived metric, refused as pmRegisterDerived(3)
    // says (6.0.3 has no such rule).
    #[test]
    fn per_context_derived_metrics_are_added_as_libpcp_adds_them() {
        let mut ctx = fixture("v2");
        ctx.bind_derived(&registry(&[]));
        let first = PmId(0x8000_0000 | PmId::new(511, 2047, 1023).0);
        assert_eq!(add(&mut ctx, "my.a", "sample.long.one * 2"), Ok(first));
        assert_eq!(desc_type(&ctx, "my.a"), Ok(MetricType::U32));
        assert_eq!(ctx.name_of(first).as_deref(), Ok("my.a"));
        assert_eq!(ctx.lookup_text(first, TextLevel::OneLine), Err(PmError::PM_ERR_PMID));
        assert_eq!(
            add(&mut ctx, "my.b", "sample.bin + sample.colour").unwrap_err(),
            "Semantic Error: pmAddDerivedMetric(\"my.b\", ...)\nsample.bin + sample.colour\n^\n\
             Operands should have the same instance domain\n"
        );
        // it keeps its name and PMID, and cannot be used
        assert_eq!(ctx.lookup_names(&["my.b"]).map(|r| r.0[0]), Ok(PmId(first.0 - 1)));
        assert_eq!(desc_type(&ctx, "my.b"), Err(PmError::PM_ERR_BADDERIVE));
        assert_eq!(
            add(&mut ctx, "my.c", "sample.long.one +").unwrap_err(),
            "Syntax Error: pmAddDerivedMetric(\"my.c\", ...)\nsample.long.one +\n                ^\n\
             Arithmetic expression expected to follow PLUS\n"
        );
        assert_eq!(ctx.lookup_names(&["my.c"]), Err(PmError::PM_ERR_NAME));
        assert_eq!(
            add(&mut ctx, "my.a", "3").unwrap_err(),
            "Error: pmAddDerivedMetric(\"my.a\", ...): returns -12409\nDuplicate per-context derived metric name\n"
        );
        // unknown operands: added, but unusable
        assert_eq!(add(&mut ctx, "my.d", "no.such.metric + 1"), Ok(PmId(first.0 - 2)));
        assert_eq!(desc_type(&ctx, "my.d"), Err(PmError::PM_ERR_BADDERIVE));
        // a real metric's name: added (a PMID used), the real one wins
        assert_eq!(add(&mut ctx, "sample.bin", "sample.long.one"), Ok(PmId(first.0 - 3)));
        assert_eq!(ctx.lookup_names(&["sample.bin"]).map(|r| r.0[0]), Ok(PmId::new(29, 0, 6)));
        assert_eq!(add(&mut ctx, "my.glob", "sample.float.ten"), Ok(PmId(first.0 - 4)));
        assert_eq!(desc_type(&ctx, "my.glob"), Ok(MetricType::FLOAT));
        assert_eq!(add(&mut ctx, "my.e", "rate(sample.long.one)"), Ok(PmId(first.0 - 5)));
        assert_eq!(desc_type(&ctx, "my.e"), Ok(MetricType::DOUBLE));
        // another derived metric as an operand: pmRegisterDerived(3), "A
        // derived metric (<opname>) cannot be nested (i.e. used) in the
        // definition of another derived metric" (libpcp 6.0.3 accepts it)
        assert_eq!(
            add(&mut ctx, "my.f", "my.a + 1").unwrap_err(),
            "Semantic Error: pmAddDerivedMetric(\"my.f\", ...)\nmy.a + 1\n^\nIllegal nested derived metric\n"
        );
        assert_eq!(ctx.lookup_names(&["my.f"]).map(|r| r.0[0]), Ok(PmId(first.0 - 6)));
        assert_eq!(desc_type(&ctx, "my.f"), Err(PmError::PM_ERR_BADDERIVE));
        assert_eq!(
            add(&mut ctx, "my.h", "sample.bin > 100 ? sample.bin : 0").unwrap_err(),
            "Semantic Error: pmAddDerivedMetric(\"my.h\", ...)\nsample.bin > 100 ? sample.bin : 0\n^\n\
             Different types for ternary operands\n"
        );
        assert_eq!(add(&mut ctx, "my.i", "").unwrap_err(), "Syntax Error: pmAddDerivedMetric(\"my.i\", ...)\n\n ^\n");
        assert_eq!(
            add(&mut ctx, "my.j", "rescale(sample.long.one, \"sec\")").unwrap_err(),
            "Semantic Error: pmAddDerivedMetric(\"my.j\", ...)\nrescale(sample.long.one, \"sec\")\n^\n\
             Incompatible dimensions\n"
        );
        assert_eq!(desc_type(&ctx, "my.j"), Err(PmError::PM_ERR_BADDERIVE));
        // a metric naming itself is nested too (libpcp 6.0.3 recurses until
        // it crashes)
        assert!(add(&mut ctx, "my.self", "my.self + 1").is_err_and(|e| e.ends_with("Illegal nested derived metric\n")));
        // the ones that failed to bind are in no listing; nothing is said
        assert_eq!(walk(&ctx, "my"), ["my.a", "my.glob", "my.e"]);
        let leaf = |n: &str| (n.to_string(), true);
        assert_eq!(kids(&ctx, "my"), Ok(vec![leaf("a"), leaf("glob"), leaf("e")]));
        let node = |n: &str| (n.to_string(), false);
        assert_eq!(kids(&ctx, ""), Ok(vec![node("sample"), node("pmcd"), node("event"), node("my")]));
        assert_eq!(kids(&ctx, "my.b"), Err(PmError::PM_ERR_NAME));
        assert_eq!(kids(&ctx, "my.a"), Ok(vec![]));
        assert!(ctx.take_messages().is_empty());
        // values
        let ids = ctx.lookup_names(&["my.a", "sample.long.one"]).expect("names").0;
        let r = ctx.fetch(&ids).expect("fetch");
        let one = |i: usize| r.sets[i].values.as_ref().ok().and_then(|v| v.first()).map(|v| v.value.clone());
        assert!(one(1).is_some());
        assert_ne!(one(0), one(1));
    }

    #[test]
    fn per_context_derived_metrics_mask_global_ones_in_that_context_alone() {
        let globals = registry(&[("my.glob", "sample.long.one + 1"), ("my.gbad", "sample.bin + sample.colour")]);
        let mut ctx = fixture("v2");
        ctx.bind_derived(&globals);
        let mut other = fixture("v2");
        other.bind_derived(&globals);
        let global = globals.get("my.glob").expect("registered").pmid;
        assert_eq!(add(&mut ctx, "my.a", "sample.long.one * 2").map(|p| p.item()), Ok(1023));
        let local = add(&mut ctx, "my.glob", "sample.float.ten").expect("added");
        assert_eq!(add(&mut ctx, "my.e", "rate(sample.long.one)").map(|p| p.item()), Ok(1021));
        assert_eq!(ctx.lookup_names(&["my.glob"]).map(|r| r.0[0]), Ok(local));
        assert_eq!(desc_type(&ctx, "my.glob"), Ok(MetricType::FLOAT));
        assert_eq!(ctx.name_of(global), Err(PmError::PM_ERR_PMID));
        // the masking metric comes after the context's others, as in libpcp
        assert_eq!(walk(&ctx, "my"), ["my.gbad", "my.a", "my.glob", "my.e"]);
        // the other context still has the global metric, and none of these
        assert_eq!(other.lookup_names(&["my.glob"]).map(|r| r.0[0]), Ok(global));
        assert_eq!(desc_type(&other, "my.glob"), Ok(MetricType::U32));
        assert_eq!(other.lookup_names(&["my.a"]), Err(PmError::PM_ERR_NAME));
        assert_eq!(add(&mut other, "my.x", "1").map(|p| p.item()), Ok(1023));
        // a failed addition masks the global metric all the same
        assert!(add(&mut other, "my.glob", "1 +").is_err());
        assert_eq!(other.lookup_names(&["my.glob"]), Err(PmError::PM_ERR_NAME));
        // once my.gbad is bound (and fails), it leaves the listings
        assert_eq!(desc_type(&ctx, "my.gbad"), Err(PmError::PM_ERR_BADDERIVE));
        assert!(!ctx.take_messages().is_empty());
        assert_eq!(walk(&ctx, "my"), ["my.a", "my.glob", "my.e"]);
        assert_eq!(kids(&ctx, "my").map(|k| k.len()), Ok(3));
    }

    #[test]
    fn the_limit_on_per_context_metrics_is_the_registrys() {
        let mut r = registry(&[]);
        r.set_limit(Some(1));
        let mut ctx = fixture("v2");
        ctx.bind_derived(&r);
        assert!(add(&mut ctx, "my.a", "1").is_ok());
        assert_eq!(
            add(&mut ctx, "my.b", "2").unwrap_err(),
            "Error: pmAddDerivedMetric(\"my.b\", ...): returns -12409\nToo many per-context derived metrics\n"
        );
    }

    /// Fetch `ids` `n` times from `a` and from `b`, which must agree.
    fn fetches_agree(a: &mut Context, b: &mut Context, ids: &[PmId], n: usize) {
        for i in 0..n {
            let (x, y) = (a.fetch(ids), b.fetch(ids));
            assert_eq!(x, y, "fetch {i}");
        }
    }

    #[test]
    fn a_duplicate_archive_context_goes_on_from_where_the_original_is() {
        for (archive, mode, step) in [("v2", Mode::Forw, 0), ("v2", Mode::Interp, 700_000_000), ("dyn", Mode::Forw, 0)]
        {
            let mut ctx = fixture(archive);
            ctx.bind_derived(&registry(&[("my.twice", "sample.long.one * 2")]));
            let name = if archive == "dyn" { "sample.dynamic.counter" } else { "sample.bin" };
            let (ids, _) = ctx.lookup_names(&[name, "my.twice"]).expect("names");
            let indom = ctx.lookup_desc(ids[0]).expect("desc").indom;
            let (insts, _) = ctx.get_indom_archive(indom).expect("instances");
            ctx.del_profile(indom, &[]).expect("profile");
            ctx.add_profile(indom, &insts[1..3]).expect("profile");
            let start = ctx.archive().expect("archive").label().start;
            ctx.set_mode(mode, start, step).expect("mode");
            let first = ctx.fetch(&ids).expect("first fetch");
            let mut dup = ctx.dup().expect("dup");
            assert_eq!(dup.origin(), ctx.origin());
            assert_eq!(dup.lookup_names(&["my.twice"]).expect("derived name").0[0], ids[1]);
            fetches_agree(&mut ctx, &mut dup, &ids, 12);
            // the help text came along (the copy's records have none left)
            assert!(dup.lookup_text(ids[0], TextLevel::OneLine).is_ok(), "{archive}");
            for level in [TextLevel::OneLine, TextLevel::Help] {
                assert_eq!(dup.lookup_text(ids[0], level), ctx.lookup_text(ids[0], level), "{archive}");
            }
            // the profile came along: only the two instances chosen
            if let Ok(values) = &first.sets[0].values {
                assert!(values.iter().all(|v| insts[1..3].contains(&v.inst)), "{archive}");
            }
        }
    }

    #[test]
    fn a_duplicate_local_context_serves_the_same_metrics() {
        let root = format!("{}/../pcp-linux/tests/snapshot/vm1", env!("CARGO_MANIFEST_DIR"));
        let mut ctx = Context::open_local_at(&root).expect("local context");
        let (ids, _) = ctx.lookup_names(&["hinv.ncpu", "kernel.all.load", "hinv.physmem"]).expect("names");
        let indom = ctx.lookup_desc(ids[1]).expect("desc").indom;
        let five = ctx.lookup_indom(indom, b"5").expect("5 minute");
        ctx.del_profile(indom, &[]).expect("profile");
        ctx.add_profile(indom, &[five]).expect("profile");
        let mut dup = ctx.dup().expect("dup");
        assert_eq!(dup.local().map(LocalSource::hostname), ctx.local().map(LocalSource::hostname));
        let (a, b) = (ctx.fetch(&ids).expect("fetch"), dup.fetch(&ids).expect("fetch"));
        assert_eq!(a.sets, b.sets);
        assert_eq!(b.sets[1].values.as_ref().map(Vec::len), Ok(1));
        assert_eq!(dup.store(&b), Err(PmError::PM_ERR_PERMISSION));
    }

    #[test]
    fn a_context_of_names_alone_has_nothing_to_duplicate() {
        let ctx = Context::with_namespace(Pmns::new());
        assert_eq!(ctx.dup().err(), Some(PmError::PM_ERR_NOCONTEXT));
    }

    #[test]
    fn contexts_are_send_and_sync() {
        fn both<T: Send + Sync>() {}
        both::<Context>();
    }
}
