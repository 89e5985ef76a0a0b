//! The archive side of a context: an opened archive (or several, read as
//! one), its metadata as libpcp holds it, and reading its results in time
//! order.

use crate::context::{Instances, TextLevel};
use crate::profile::Profile;
use crate::source::MetricSource;
use pcp_archive::archive::{Archive, ArchiveSet};
use pcp_archive::labels::LabelIndex;
use pcp_archive::meta::{text_kind, MetaIndex};
use pcp_archive::raw::Label;
use pcp_archive::replay::{IgnoreMarks, Mode, Replay};
use pcp_core::debug::Trace;
use pcp_core::error::Subject;
use pcp_core::labels::{add_labels, flags as label_flags, LabelSet};
use pcp_core::{Desc, Error, FetchResult, InDom, PmError, PmId, PmResult, Timestamp, ValueSet};
use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;
use std::sync::Arc;

/// An archive opened for a context (`pmNewContext(PM_CONTEXT_ARCHIVE)`):
/// one, or several named together (see [`ArchiveSet`]).
#[derive(Debug)]
pub struct ArchiveSource {
    archives: ArchiveSet,
    /// Made on first use: opening it reads (and may decompress) the first
    /// volume, which the one-pass readers here do not need.
    replay: Option<Replay>,
    check_features: bool,
    meta: Arc<MetaIndex>,
    labels: LabelIndex,
    /// Where the replays trace to ([`MetricSource::set_trace`]).
    trace: Trace,
    /// Which marks interpolation passes over.
    ignore_marks: IgnoreMarks,
}

impl ArchiveSource {
    /// Open and index the archive `name` (its base name or any of its
    /// files; or a comma-separated list of archives and directories of
    /// archives, read as one). The error names the archive (of a list, the
    /// one that failed).
    pub fn open(name: &str) -> Result<ArchiveSource, Error> {
        ArchiveSource::open_checking(name, true)
    }

    /// [`ArchiveSource::open`], checking labels' feature bits or not
    /// (`PM_CTXFLAG_NO_FEATURE_CHECK`).
    pub fn open_checking(name: &str, check_features: bool) -> Result<ArchiveSource, Error> {
        ArchiveSource::open_traced(name, check_features, &Trace::off())
    }

    /// [`ArchiveSource::open_checking`], tracing the opening into `trace`
    /// as libpcp does (`-Dlog`); the source traces there from then on.
    pub fn open_traced(name: &str, check_features: bool, trace: &Trace) -> Result<ArchiveSource, Error> {
        crate::config::attach(trace);
        // libpcp refuses labels with feature bits it does not know when the
        // context opens (the replay, set up later, checks each volume's)
        let mut archives = if name.contains(',') || std::fs::metadata(name).is_ok_and(|m| m.is_dir()) {
            ArchiveSet::open_traced(name, check_features, trace)?
        } else {
            pcp_archive::opentrace::trace_log_open(name, check_features, trace);
            ArchiveSet::single(Archive::open_checking(name, check_features)?)
        };
        let on_archive = |code| Error::new(code, Subject::Archive(name.to_owned()));
        let meta = Arc::new(MetaIndex::build_all(archives.meta_in_load_order()).map_err(on_archive)?);
        let labels = LabelIndex::build_all(archives.meta_in_load_order()).map_err(on_archive)?;
        // the indexes hold all the records have to say (the replay reads
        // the metadata index too): the records go
        archives.retain_meta(|_| false);
        Ok(ArchiveSource {
            archives,
            replay: None,
            check_features,
            meta,
            labels,
            trace: trace.clone(),
            ignore_marks: IgnoreMarks::Keep,
        })
    }

    /// `pmDupContext`: the same archives opened again, replayed from
    /// where this one has got to (see [`Replay::dup`]).
    #[doc(alias = "pmDupContext")]
    pub fn dup(&self) -> PmResult<ArchiveSource> {
        let meta = Arc::clone(&self.meta);
        let replay = self.replay.as_ref().map(Replay::dup).transpose()?;
        Ok(ArchiveSource {
            archives: self.archives.clone(),
            replay,
            check_features: self.check_features,
            meta,
            labels: self.labels.clone(),
            trace: self.trace.clone(),
            ignore_marks: self.ignore_marks.clone(),
        })
    }

    /// The replay, once a use of it has set it up.
    pub(crate) fn replay_made(&self) -> Option<&Replay> {
        self.replay.as_ref()
    }

    /// The archive on disk (the earliest, when there are several).
    pub fn archive(&self) -> &Archive {
        self.archives.first()
    }

    /// All the archives, in time order.
    pub fn archives(&self) -> &ArchiveSet {
        &self.archives
    }

    /// The replay state: mode, position, fetches (set up on first use).
    pub fn replay(&mut self) -> PmResult<&mut Replay> {
        if self.replay.is_none() {
            self.replay = Some(self.new_replay()?);
        }
        self.replay.as_mut().ok_or(PmError::PM_ERR_NOCONTEXT)
    }

    /// `pmFetch` through `profile`, into `out` (its room reused): the
    /// fetch's outcome, and the current time after it.
    #[doc(alias = "pmFetch")]
    pub fn fetch_into(
        &mut self,
        pmids: &[PmId],
        profile: &Profile,
        out: &mut FetchResult,
    ) -> PmResult<(PmResult<()>, Timestamp)> {
        let replay = self.replay()?;
        let wanted = |indom, inst| profile.wanted(indom, inst);
        let outcome = replay.fetch_into(pmids, &wanted, out);
        Ok((outcome, replay.position()))
    }

    /// What libpcp traces of the replay when the context is destroyed
    /// ([`Replay::trace_destroy`]).
    #[doc(alias = "pmDestroyContext")]
    pub fn trace_destroy(&self) {
        if let Some(r) = self.replay.as_ref() {
            r.trace_destroy();
        }
    }

    /// Which mark records interpolation passes over (libpcp reads
    /// `$PCP_IGNORE_MARK_RECORDS` for it: see [`ignore_marks_setting`]).
    #[doc(alias = "PCP_IGNORE_MARK_RECORDS")]
    pub fn set_ignore_marks(&mut self, ignore: IgnoreMarks) {
        if let Some(r) = self.replay.as_mut() {
            r.set_ignore_marks(ignore.clone());
        }
        self.ignore_marks = ignore;
    }

    /// A replay of the archives from their start, over this metadata (its
    /// opening traced).
    fn new_replay(&self) -> PmResult<Replay> {
        let mut r =
            Replay::with_index_traced(self.archives.clone(), self.check_features, Arc::clone(&self.meta), &self.trace)?;
        r.set_ignore_marks(self.ignore_marks.clone());
        Ok(r)
    }

    /// Its metadata.
    pub fn meta(&self) -> &MetaIndex {
        &self.meta
    }

    /// Its label sets.
    pub fn labels(&self) -> &LabelIndex {
        &self.labels
    }

    /// `pmGetArchiveLabel`: the (earliest) archive's label.
    #[doc(alias = "pmGetArchiveLabel")]
    pub fn label(&self) -> &Label {
        self.archive().label()
    }

    /// Read the results at or after `from`, oldest first, as
    /// `pmFetchArchive` reads them after `pmSetMode(PM_MODE_FORW, from)`,
    /// handing each to `f` until it breaks. Ends with `PM_ERR_EOL` after
    /// the last record, or the error of a record that cannot be read. Mark
    /// records (and those between archives) are handed on as results
    /// without value sets.
    pub fn scan_forward(&self, from: Timestamp, mut f: impl FnMut(FetchResult) -> ControlFlow<()>) -> PmResult<()> {
        // (a second reader: libpcp would use the context's, opened already)
        let mut replay = Replay::with_index(self.archives.clone(), self.check_features, Arc::clone(&self.meta))?;
        replay.set_trace(&self.trace);
        replay.set_mode(Mode::Forw, from, 0)?;
        loop {
            if f(replay.fetch_archive()?).is_break() {
                return Ok(());
            }
        }
    }

    /// For each of `pmids` in turn, what `pmSetMode(PM_MODE_FORW, from)`
    /// then `pmFetch` of that one metric answers in a new context over
    /// these archives (pminfo and pmprobe fetch archives this way, one
    /// metric at a time from the same origin): the first record at or
    /// after `from` holding the metric (mark records and records without
    /// it are passed over), with just that metric's value set; or the
    /// error that ends the search (`PM_ERR_EOL` at the end). Found in one
    /// pass over the archive where the positioning allows (see
    /// [`Replay::forw_position_is_fixed`]), else fetched one by one.
    pub fn first_each(&self, from: Timestamp, pmids: &[PmId]) -> Vec<PmResult<FetchResult>> {
        let anon = |p| crate::derived::anon_by_pmid(p).map(|_| Vec::new());
        if let Some(mut found) = self.first_each_with(from, pmids, &anon) {
            empty_anon_sets(&mut found);
            return in_order(&found, pmids);
        }
        let mut replay = match self.new_replay() {
            Ok(r) => r,
            Err(e) => return pmids.iter().map(|_| Err(e)).collect(),
        };
        pmids
            .iter()
            .map(|&p| {
                replay.set_mode(Mode::Forw, from, 0)?;
                let mut r = replay.fetch(&[p], &|_, _| true)?;
                if anon(p).is_some() {
                    r.sets = vec![ValueSet { pmid: p, values: Ok(Vec::new()) }];
                }
                Ok(r)
            })
            .collect()
    }

    /// [`ArchiveSource::first_each`]'s one pass, where `derived` gives the
    /// operands of the PMIDs that are derived metrics: each of those is
    /// answered by the first record that is not a mark and holds one of
    /// its operands (any such record when it has none), with all of that
    /// record's value sets. `None` where one pass would not find what
    /// fetches one by one find (the temporal index makes where each fetch
    /// starts depend on where the last one ended).
    pub(crate) fn first_each_with(
        &self,
        from: Timestamp,
        pmids: &[PmId],
        derived: &dyn Fn(PmId) -> Option<Vec<PmId>>,
    ) -> Option<HashMap<PmId, PmResult<FetchResult>>> {
        let mut search = FirstEach::new(pmids, derived);
        let end = match Replay::with_index(self.archives.clone(), self.check_features, Arc::clone(&self.meta)) {
            Ok(mut replay) => {
                if !replay.forw_position_is_fixed(from) {
                    return None;
                }
                replay.set_trace(&self.trace);
                replay.set_mode(Mode::Forw, from, 0).and_then(|()| loop {
                    if search.offer(replay.fetch_archive()?).is_break() {
                        return Ok(());
                    }
                })
            }
            Err(e) => Err(e),
        };
        if let Err(e) = end {
            search.fail(e);
        }
        Some(search.found)
    }
}

/// The answers `found` holds for `pmids`, in their order (`PM_ERR_EOL` for
/// any it lacks).
pub(crate) fn in_order(found: &HashMap<PmId, PmResult<FetchResult>>, pmids: &[PmId]) -> Vec<PmResult<FetchResult>> {
    pmids.iter().map(|p| found.get(p).cloned().unwrap_or(Err(PmError::PM_ERR_EOL))).collect()
}

/// What `$PCP_IGNORE_MARK_RECORDS` set to `value` (`None`: unset) asks
/// of interpolation, as libpcp reads it: empty, every mark ignored; an
/// interval (`pmParseInterval`'s form), marks in gaps at most that long;
/// anything else keeps the marks, with the warning `prog` writes when the
/// first mark is met.
#[doc(alias = "PCP_IGNORE_MARK_RECORDS")]
pub fn ignore_marks_setting(prog: &str, value: Option<&[u8]>) -> IgnoreMarks {
    match value {
        None => IgnoreMarks::Keep,
        Some([]) => IgnoreMarks::All,
        Some(spec) => match crate::timeparse::parse_interval(spec) {
            Ok(gap) => IgnoreMarks::Within(gap.sec as f64 + f64::from(gap.nsec) / 1e9),
            Err(e) => {
                let mut warning =
                    format!("{prog}: Warning: bad $PCP_IGNORE_MARK_RECORDS: not in pmParseInterval(3) format:\n")
                        .into_bytes();
                warning.extend_from_slice(e.as_bytes());
                warning.push(b'\n');
                IgnoreMarks::Bad { warning }
            }
        },
    }
}

/// The search behind [`ArchiveSource::first_each`] (and
/// `Context::first_each_forw`): results are offered in the order a forward
/// read meets them, and each metric keeps the first that answers it.
pub(crate) struct FirstEach {
    /// The answers so far.
    pub(crate) found: HashMap<PmId, PmResult<FetchResult>>,
    wanted: HashSet<PmId>,
    /// Derived metrics and their operands: a record that is not a mark
    /// and holds one of the operands (any, when there are none) answers
    /// them, with its value sets of those operands.
    derived: Vec<(PmId, Vec<PmId>)>,
}

/// The anonymous derived metrics' answers from [`FirstEach`]: no values.
pub(crate) fn empty_anon_sets(found: &mut HashMap<PmId, PmResult<FetchResult>>) {
    for (pmid, r) in found.iter_mut() {
        if let (Some(_), Ok(result)) = (crate::derived::anon_by_pmid(*pmid), r) {
            result.sets = vec![ValueSet { pmid: *pmid, values: Ok(Vec::new()) }];
        }
    }
}

impl FirstEach {
    pub(crate) fn new(pmids: &[PmId], operands: &dyn Fn(PmId) -> Option<Vec<PmId>>) -> FirstEach {
        let mut derived: Vec<(PmId, Vec<PmId>)> = Vec::new();
        let mut seen = HashSet::new();
        let mut wanted = HashSet::new();
        for &p in pmids {
            match operands(p) {
                None => {
                    wanted.insert(p);
                }
                Some(ops) => {
                    if seen.insert(p) {
                        derived.push((p, ops));
                    }
                }
            }
        }
        FirstEach { found: HashMap::with_capacity(pmids.len()), wanted, derived }
    }

    /// Is every metric answered?
    pub(crate) fn done(&self) -> bool {
        self.wanted.is_empty() && self.derived.is_empty()
    }

    /// Take the metrics `result` answers; break once all are answered.
    pub(crate) fn offer(&mut self, result: FetchResult) -> ControlFlow<()> {
        if !result.sets.is_empty() && !self.derived.is_empty() {
            let found = &mut self.found;
            // each set's PMID and place, by PMID: looked up once for each
            // operand, not compared with every set
            let mut by_pmid: Vec<(PmId, usize)> = result.sets.iter().enumerate().map(|(i, s)| (s.pmid, i)).collect();
            by_pmid.sort_unstable();
            let mut at = Vec::new();
            self.derived.retain(|(pmid, ops)| {
                // the record's sets of the operands, in record order
                at.clear();
                for op in ops {
                    let from = by_pmid.partition_point(|(p, _)| p < op);
                    at.extend(by_pmid[from..].iter().take_while(|(p, _)| p == op).map(|&(_, i)| i));
                }
                at.sort_unstable();
                at.dedup();
                let answers = ops.is_empty() || !at.is_empty();
                if answers {
                    let sets = at.iter().map(|&i| result.sets[i].clone()).collect();
                    found.insert(*pmid, Ok(FetchResult { timestamp: result.timestamp, sets }));
                }
                !answers
            });
        }
        for set in result.sets {
            if self.wanted.remove(&set.pmid) {
                self.found.insert(set.pmid, Ok(FetchResult { timestamp: result.timestamp, sets: vec![set] }));
            }
        }
        if self.done() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }

    /// The read ended with `e`: the metrics not yet answered get it.
    pub(crate) fn fail(&mut self, e: PmError) {
        for pmid in self.wanted.drain().chain(self.derived.drain(..).map(|(p, _)| p)) {
            self.found.insert(pmid, Err(e));
        }
    }
}

/// libpcp's copy of an archive's label sets (`__pmDupLabelSets`): text up
/// to a NUL, and none for a set without labels.
fn copy_label_set(set: &LabelSet) -> LabelSet {
    let mut s = set.clone();
    s.json = if s.nlabels <= 0 {
        Vec::new()
    } else {
        s.json[..s.json.iter().position(|&b| b == 0).unwrap_or(s.json.len())].to_vec()
    };
    s
}

impl ArchiveSource {
    /// The help text of `what` (`text_kind::PMID` or `INDOM`) `ident`:
    /// full help that is missing or empty falls back to the one-line text.
    fn meta_text(&self, ident: u32, what: u32, level: TextLevel) -> PmResult<Vec<u8>> {
        let level = match level {
            TextLevel::OneLine => text_kind::ONELINE,
            TextLevel::Help => text_kind::HELP,
        };
        match self.meta.text(level | what, ident) {
            Err(_) | Ok([]) if level == text_kind::HELP => self.meta.text(text_kind::ONELINE | what, ident),
            r => r,
        }
        .map(<[u8]>::to_vec)
    }
}

/// An archive's metrics as they were logged: instance domains, label sets
/// as of the time asked about, values as the replay reads them.
impl MetricSource for ArchiveSource {
    fn desc(&self, pmid: PmId) -> PmResult<Desc> {
        self.meta.desc(pmid).copied()
    }

    fn instances(&self, indom: InDom, at: Timestamp) -> PmResult<Instances> {
        self.meta.trace_search(indom, Some(at), &self.trace);
        let set = self.meta.indom_at(indom, Some(at))?;
        Ok((set.ids.clone(), set.names.iter().map(|n| n.to_vec()).collect()))
    }

    fn instance_name(&self, indom: InDom, inst: i32, at: Timestamp) -> PmResult<Vec<u8>> {
        self.meta.trace_search(indom, Some(at), &self.trace);
        let set = self.meta.indom_at(indom, Some(at))?;
        set.name_of(inst).map(<[u8]>::to_vec).ok_or(PmError::PM_ERR_INST_LOG)
    }

    /// An exact name, else one matching up to its first space.
    fn instance_id(&self, indom: InDom, name: &[u8], at: Timestamp) -> PmResult<i32> {
        self.meta.trace_search(indom, Some(at), &self.trace);
        let set = self.meta.indom_at(indom, Some(at))?;
        set.lookup(name).ok_or(PmError::PM_ERR_INST_LOG)
    }

    fn text(&self, pmid: PmId, level: TextLevel) -> PmResult<Vec<u8>> {
        self.meta_text(pmid.0, text_kind::PMID, level)
    }

    fn indom_text(&self, indom: InDom, level: TextLevel) -> PmResult<Vec<u8>> {
        self.meta_text(indom.0, text_kind::INDOM, level)
    }

    /// The sets of each kind logged last at or before `at`. An archive
    /// with no context labels at all (one written before pmlogger logged
    /// labels) answers with `{"hostname":HOST}` from its label; other
    /// kinds it lacks are simply none.
    fn labels(&self, kind: u8, ident: u32, at: Timestamp, _: &Profile) -> PmResult<Vec<LabelSet>> {
        match self.labels.lookup(kind.into(), ident, Some(at)) {
            Ok(sets) => Ok(sets.iter().map(copy_label_set).collect()),
            Err(_) if kind & label_flags::CONTEXT != 0 => {
                let mut text = br#"{"hostname":""#.to_vec();
                text.extend_from_slice(&self.label().hostname);
                text.extend_from_slice(br#""}"#);
                let mut set = None;
                add_labels(&mut set, &text, label_flags::CONTEXT)?;
                Ok(set.into_iter().collect())
            }
            Err(_) => Ok(Vec::new()),
        }
    }

    fn fetch_into(
        &mut self,
        pmids: &[PmId],
        profile: &Profile,
        out: &mut FetchResult,
        origin: &mut Timestamp,
    ) -> PmResult<()> {
        let (outcome, position) = ArchiveSource::fetch_into(self, pmids, profile, out)?;
        *origin = position;
        outcome
    }

    fn dup(&self) -> PmResult<Box<dyn MetricSource>> {
        Ok(Box::new(ArchiveSource::dup(self)?))
    }

    /// The host its label names.
    fn host_name(&self, _: &Profile) -> PmResult<String> {
        Ok(String::from_utf8_lossy(&self.label().hostname).into_owned())
    }

    fn as_archive(&self) -> Option<&ArchiveSource> {
        Some(self)
    }

    fn set_trace(&mut self, trace: &Trace) {
        crate::config::attach(trace);
        if let Some(r) = self.replay.as_mut() {
            r.set_trace(trace);
        }
        self.trace = trace.clone();
    }

    fn as_archive_mut(&mut self) -> Option<&mut ArchiveSource> {
        Some(self)
    }
}
