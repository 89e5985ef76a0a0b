//! The services of archive contexts alone: replay modes, whole records,
//! the archive's instance history, and reading each metric's first values
//! ahead.

use super::derived_metrics::ContextInstances;
use super::{Context, Instances, Mode, PmnsLocation};
use crate::archive::ArchiveSource;
use crate::source::MetricSource;
use pcp_core::debug::{DebugFlag, DebugOptions};
use pcp_core::{FetchResult, InDom, PmError, PmId, PmResult, Timestamp};
use pcp_pmns::Pmns;
use std::collections::HashMap;

impl Context {
    fn need_archive(&self) -> PmResult<&ArchiveSource> {
        self.archive_source().ok_or(PmError::PM_ERR_NOTARCHIVE)
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
        self.trace_which(1);
        self.set_mode_untraced(mode, when, delta_ns)
    }

    /// [`Context::set_mode`] with no `-Dcontext` line (for positioning
    /// libpcp does not do).
    fn set_mode_untraced(&mut self, mode: Mode, when: Timestamp, delta_ns: i64) -> PmResult<()> {
        if self.source().is_some_and(|s| s.as_archive().is_none()) {
            return Err(PmError::PM_ERR_MODE);
        }
        let set = self.need_archive_mut()?.replay()?.set_mode(mode, when, delta_ns);
        // (libpcp's context is at the new time while it positions)
        self.fill_record_dumps(when);
        set?;
        self.origin = when;
        Ok(())
    }

    /// Which mark records interpolation passes over in an archive context
    /// (see [`crate::archive::ignore_marks_setting`]); `PM_ERR_NOTARCHIVE`
    /// for other contexts.
    #[doc(alias = "PCP_IGNORE_MARK_RECORDS")]
    pub fn set_ignore_marks(&mut self, ignore: pcp_archive::IgnoreMarks) -> PmResult<()> {
        self.need_archive_mut()?.set_ignore_marks(ignore);
        Ok(())
    }

    /// `pmFetchArchive`: the next whole record of an archive, marks
    /// included.
    #[doc(alias = "pmFetchArchive")]
    #[doc(alias = "pmFetchHighResArchive")]
    pub fn fetch_archive(&mut self) -> PmResult<FetchResult> {
        self.trace_which(1);
        self.fetch_archive_untraced()
    }

    /// [`Context::fetch_archive`] with no `-Dcontext` line (for reading
    /// ahead).
    fn fetch_archive_untraced(&mut self) -> PmResult<FetchResult> {
        let src = self.need_archive_mut()?;
        let replay = src.replay()?;
        let r = replay.fetch_archive();
        let pos = replay.position();
        let before = std::mem::replace(&mut self.origin, pos);
        self.fill_record_dumps(before);
        r
    }

    /// `pmGetArchiveEnd`: the time of the (last) archive's last good
    /// record. Over several archives, asking can move the current time
    /// (to the start of the archive being read, as libpcp does).
    #[doc(alias = "pmGetArchiveEnd")]
    #[doc(alias = "pmGetHighResArchiveEnd")]
    pub fn archive_end(&mut self) -> PmResult<Timestamp> {
        self.trace_which(2);
        let replay = self.need_archive_mut()?.replay()?;
        let before = replay.position();
        let reading_at = replay.end_read_origin();
        let end = replay.end();
        let after = replay.position();
        self.fill_record_dumps(reading_at.unwrap_or(self.origin));
        if after != before {
            self.origin = after;
        }
        end
    }

    /// `pmLookupInDomArchive`: an instance by name in any of the archive's
    /// instance sets, newest first.
    #[doc(alias = "pmLookupInDomArchive")]
    pub fn lookup_indom_archive(&self, indom: InDom, name: &[u8]) -> PmResult<i32> {
        if !indom.is_null() {
            self.trace_which(1);
        }
        self.need_archive()?.meta().lookup_inst_any(indom, name)
    }

    /// `pmNameInDomArchive`: an instance's name at any time in the
    /// archive, from the newest instance set that has it: not
    /// `PM_INDOM_NULL` (`PM_ERR_INDOM`), an instance domain the archive
    /// describes (`PM_ERR_INDOM_LOG`) and an instance it ever had
    /// (`PM_ERR_INST_LOG`); only archive contexts have one
    /// (`PM_ERR_NOTARCHIVE`).
    #[doc(alias = "pmNameInDomArchive")]
    pub fn name_indom_archive(&self, indom: InDom, inst: i32) -> PmResult<Vec<u8>> {
        if indom.is_null() {
            return Err(PmError::PM_ERR_INDOM);
        }
        self.trace_which(1);
        self.need_archive()?.meta().name_inst_any(indom, inst).map(<[u8]>::to_vec)
    }

    /// `pmGetInDomArchive`: every instance `indom` had in the archive.
    #[doc(alias = "pmGetInDomArchive")]
    pub fn get_indom_archive(&self, indom: InDom) -> PmResult<Instances> {
        if !indom.is_null() {
            self.trace_which(1);
        }
        self.need_archive()?.meta().indom_union(indom)
    }

    /// `pmTrimNameSpace`: in an archive context whose names were loaded
    /// from a file, keep only the names of metrics the archive describes
    /// (and of the anonymous derived metrics, which libpcp keeps apart from
    /// the loaded names). Other contexts are left as they are.
    #[doc(alias = "pmTrimNameSpace")]
    pub fn trim_namespace(&mut self) {
        self.trace_which(2);
        if self.trace().on(pcp_core::debug::DebugFlag::Pmns) {
            self.trace_location();
        }
        let Some(src) = self.archive_source() else { return };
        if self.location != PmnsLocation::Local {
            return;
        }
        let mut names = Vec::new();
        let v = self.view();
        let _ = v.pmns.traverse_with("", |n| {
            if !n.is_empty() {
                names.push(n.to_string());
            }
        });
        let kept: Vec<(String, PmId)> = names
            .into_iter()
            .filter_map(|n| {
                let pmid = v.pmns.lookup(&n).ok()?;
                let known = src.meta().desc(pmid).is_ok() || crate::derived::anon_by_pmid(pmid).is_some();
                known.then_some((n, pmid))
            })
            .collect();
        // a traversal lists every node's children in order, so adding the
        // survivors in traversal order keeps the order of names
        let mut pmns = Pmns::new();
        pmns.add_names(kept.iter().map(|(n, id)| (n.as_str(), *id)));
        drop(v);
        self.view_mut().pmns = pmns;
    }

    /// For each of `pmids` in turn, what `pmSetMode(PM_MODE_FORW, when)`
    /// and then `pmFetch` of that one metric answer in an archive context
    /// (the way pminfo and pmprobe fetch from a `-O` origin), found in one
    /// forward read from `when` where the positioning allows (see
    /// [`pcp_archive::Replay::forw_position_is_fixed`]), else fetched one
    /// by one: the first record holding the metric (marks and records
    /// without it passed over; for a derived metric, the first record that
    /// is not a mark), with just that metric's value set; or the error that
    /// ends the read (`PM_ERR_EOL` at the end). The positioning is
    /// libpcp's, so the first record read may lie a little before `when`.
    /// `Err` is `pmSetMode`'s failure. `as_fetched`: as for
    /// [`Context::first_each`].
    #[doc(hidden)] // tool support: pminfo's and pmprobe's way of reading
    pub fn first_each_forw(
        &mut self,
        when: Timestamp,
        pmids: &[PmId],
        as_fetched: bool,
    ) -> PmResult<Vec<PmResult<FetchResult>>> {
        if !self.need_archive_mut()?.replay()?.forw_position_is_fixed(when) {
            return Ok(self.fetch_each_from(when, pmids));
        }
        self.set_mode_untraced(Mode::Forw, when, 0)?;
        let bound = |p: PmId| self.derived_operands(p, as_fetched);
        let mut search = crate::archive::FirstEach::new(pmids, &bound);
        while !search.done() {
            match self.fetch_archive_untraced() {
                Ok(result) => {
                    let _ = search.offer(result);
                }
                Err(e) => search.fail(e),
            }
        }
        let mut found = search.found;
        self.evaluate_found(&mut found);
        Ok(crate::archive::in_order(&found, pmids))
    }

    /// [`ArchiveSource::first_each`] in an archive context, its derived
    /// metrics evaluated: each is answered by the first record from `from`
    /// that is not a mark. Where one pass cannot answer them all (see
    /// [`Context::first_each_forw`]) the context fetches them one by one,
    /// and its time and position move as those fetches move them;
    /// otherwise they do not. Empty for other contexts.
    ///
    /// With `as_fetched`, derived metrics are bound as a `pmFetch` binds
    /// them (see [`Context::take_messages`]); without, only to read ahead
    /// (a tool that looks each descriptor up before its values).
    #[doc(hidden)] // tool support: pminfo's and pmprobe's way of reading
    pub fn first_each(&mut self, from: Timestamp, pmids: &[PmId], as_fetched: bool) -> Vec<PmResult<FetchResult>> {
        let Some(src) = self.archive_source() else { return Vec::new() };
        let bound = |p: PmId| self.derived_operands(p, as_fetched);
        let found = src.first_each_with(from, pmids, &bound);
        // (libpcp reads them after pmSetMode to `from`)
        self.fill_record_dumps(from);
        let Some(mut found) = found else {
            return self.fetch_each_from(from, pmids);
        };
        self.evaluate_found(&mut found);
        crate::archive::in_order(&found, pmids)
    }

    /// `pmSetMode(PM_MODE_FORW, from)` and `pmFetch` of each of `pmids` on
    /// its own, in turn. (Their `-Dfetch` trace is left to the tool, which
    /// traces each answer where it uses it, as for those read ahead.)
    fn fetch_each_from(&mut self, from: Timestamp, pmids: &[PmId]) -> Vec<PmResult<FetchResult>> {
        let trace = self.trace().clone();
        let quiet = trace
            .options()
            .iter()
            .filter(|&f| f != DebugFlag::Fetch && f != DebugFlag::Context)
            .fold(DebugOptions::default(), DebugOptions::with);
        self.set_trace(trace.with_options(quiet));
        let found = pmids
            .iter()
            .map(|&p| {
                self.set_mode(Mode::Forw, from, 0)?;
                self.fetch(&[p])
            })
            .collect();
        self.set_trace(trace);
        found
    }

    /// The operands of a derived metric (none for the anonymous ones and
    /// those not bound), `None` for other metrics.
    pub(super) fn derived_operands(&self, pmid: PmId, announce: bool) -> Option<Vec<PmId>> {
        if crate::derived::anon_by_pmid(pmid).is_some() {
            return Some(Vec::new());
        }
        let v = self.view();
        let m = v.derived.get(pmid)?;
        self.bind(pmid, announce);
        let operands = match &*crate::derived::lock(&m.binding) {
            // a derived operand is in no record (and gets no values)
            crate::derived::Binding::Bound(ev) => {
                ev.operands().iter().copied().filter(|p| !pcp_derived::check::is_derived(*p)).collect()
            }
            _ => Vec::new(),
        };
        Some(operands)
    }

    /// The derived metrics' answers of a [`crate::archive::FirstEach`]
    /// search (whole records) turned into their values.
    fn evaluate_found(&mut self, found: &mut HashMap<PmId, PmResult<FetchResult>>) {
        crate::archive::empty_anon_sets(found);
        let wanted: Vec<PmId> = found.keys().copied().collect();
        let v = self.view();
        let mut evaluators = v.derived.take_evaluators(&wanted);
        let position: HashMap<PmId, usize> = evaluators.iter().enumerate().map(|(i, e)| (e.pmid(), i)).collect();
        for (pmid, r) in found.iter_mut() {
            let Ok(record) = r else { continue };
            match v.derived.get(*pmid) {
                Some(m) if v.derived.is_bound(m) => {}
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
        v.derived.restore(evaluators);
    }
}

/// The key under which a trace notes how many duplicates of archive
/// contexts the process has made (each holds the archive open once more,
/// with a volume of its own open).
const ARCHIVE_DUPS: &str = "archive context dups";

impl Context {
    /// libpcp's `-Dcontext` lines for `pmDupContext` of this archive
    /// context into `dup`: `pmNewContext` of the archive (its index and
    /// metadata shared, the first volume opened on the next descriptor,
    /// from the start), then the copy, at this context's mode, time, step
    /// and reading position. `None` for several archives read as one
    /// (not traced yet). Duplicates destroyed since are not noticed: each
    /// counts as still holding the archive and its descriptor.
    pub(super) fn archive_dup_trace(&self, dup: &Context) -> Option<String> {
        let src = self.archive_source()?;
        if src.archives().len() != 1 {
            return None;
        }
        let own = pcp_archive::opentrace::lcp_name(src.archive().base());
        let (ti, md, m, label) = pcp_archive::opentrace::open_fds(&own, true)?;
        let trace = self.trace();
        let k = trace.noted(ARCHIVE_DUPS).unwrap_or(0) + 1;
        trace.changed(ARCHIVE_DUPS, k);
        let refcnt = k + 1;
        // the k-th lowest descriptor free after the first context's
        let fd = (3..).filter(|f| ![ti, md, m].contains(f)).nth(k as usize - 1)?;
        let minvol = src.archive().volumes().first().copied().unwrap_or(0);
        let (h, n) = (self.handle, dup.handle);
        let start = src.label().start;
        let head = format!("Dump Contexts: current -> contexts[{n}] handle {n}\ncontexts[{n}] handle {n}:");
        let profile = "Dump Instance Profile state=INCLUDE, 0 profiles\n";
        let mut s = format!("pmWhichContext() -> {h}, cur={h}\npmNewContext(2, {own}) -> {n}\n{head}");
        s.push_str(&format!(
            " log {own}: mode=FORW profile=NOT_SENT tifd={ti} mdfd={md} mfd={fd}\n\
             refcnt={refcnt} vol={minvol} offset={label} (vol={minvol}) serial=0 origin={}.{:09} delta=0.000000000\n{profile}",
            start.sec, start.nsec
        ));
        let replay = src.replay_made();
        let mode = match replay.map_or(Mode::Forw, |r| r.mode()) {
            Mode::Forw => "FORW",
            Mode::Back => "BACK",
            Mode::Interp => "INTERP",
        };
        let (curvol, (vol, offset), serial) = match replay {
            Some(r) => (r.current_volume(), r.remembered_position(), r.is_serial()),
            None => (minvol as i32, (minvol as i32, label as i64), false),
        };
        let origin = replay.map_or(self.origin, |r| r.position());
        let (dsec, dnsec, dir) = replay.map_or((0, 0, 0), |r| r.step());
        s.push_str(&format!("pmDupContext() -> {n}\n{head}"));
        // (the list of archives as this context was given it)
        for name in src.archives().names() {
            s.push_str(&format!(" log {name}:"));
            if *name != own {
                s.push_str(" not open\n");
                continue;
            }
            s.push_str(&format!(
                " mode={mode} profile=NOT_SENT tifd={ti} mdfd={md} mfd={fd}\n\
                 refcnt={refcnt} vol={curvol} offset={offset} (vol={vol}) serial={}",
                i32::from(serial)
            ));
        }
        let sign = if dir < 0 { "-" } else { "" };
        s.push_str(&format!(" origin={}.{:09} delta={sign}{dsec}.{dnsec:09}\n{profile}", origin.sec, origin.nsec));
        Some(s)
    }
}
