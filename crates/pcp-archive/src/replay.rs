//! Replaying an archive as a PMAPI archive context does: `pmSetMode`,
//! `pmFetch` in the `PM_MODE_FORW`, `PM_MODE_BACK` and `PM_MODE_INTERP`
//! modes, and `pmFetchArchive`, with libpcp 6.0.3's exact results.
//!
//! The behaviour follows libpcp's reading position model: a current volume
//! and offset, a temporal index used for coarse positioning after each
//! `pmSetMode`, then record-by-record reading (see the private `logread` module).
//! In brief:
//!
//! - `Forw` returns the first record at or after the current time, then
//!   each following record whose time is not earlier than the last one
//!   returned; `Back` the mirror image. The time moves to each result.
//! - Mark records (gaps in the recording) are skipped by [`Replay::fetch`]
//!   and returned (as results with no value sets) by
//!   [`Replay::fetch_archive`]. Records holding none of the requested
//!   metrics are skipped too.
//! - Requested metrics missing from a record get an empty value set;
//!   values are filtered through the instance profile (`wanted`), except
//!   in `fetch_archive`, which returns whole records.
//! - At either end of the archive a fetch fails with `PM_ERR_EOL`.
//! - Several archives replay as one, in time order (see the private `multi` module):
//!   each boundary between them reads as a mark record.
//! - `Interp` (see the private `interp` module) computes values at the current time
//!   from the records around it, then advances the time by the delta.

use crate::archive::{Archive, ArchiveSet};
use crate::interp::InterpState;
use crate::logread::{Dir, Log, LogResult, LogSet, Record, Ts};
use crate::meta::MetaIndex;
use pcp_core::debug::Trace;
use pcp_core::{Desc, FetchResult, InDom, PmError, PmId, Timestamp, ValueSet};
use std::sync::Arc;

/// An instance profile: is instance `inst` of `indom` wanted?
type Wanted<'a> = dyn Fn(InDom, i32) -> bool + 'a;

/// A replay mode, as `pmSetMode` takes it.
#[doc(alias = "pmSetMode")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `PM_MODE_FORW`: successive records, forwards in time.
    Forw,
    /// `PM_MODE_BACK`: successive records, backwards in time.
    Back,
    /// `PM_MODE_INTERP`: values interpolated at evenly spaced times.
    Interp,
}

impl Mode {
    /// The mode a `pmSetMode` mode word asks for (its low 16 bits; the
    /// high bits carry the delta's time base): `PM_ERR_MODE` for
    /// `PM_MODE_LIVE` and unknown modes, which archives refuse.
    pub fn from_raw(mode: i32) -> Result<Mode, PmError> {
        match mode & 0xffff {
            1 => Ok(Mode::Interp),
            2 => Ok(Mode::Forw),
            3 => Ok(Mode::Back),
            _ => Err(PmError::PM_ERR_MODE),
        }
    }
}

/// An archive being replayed: the state of one PMAPI archive context.
///
/// A clone is a copy in exactly the same state, interpolation caches and
/// all, reading the same files (unlike [`Replay::dup`], whose copy starts
/// with empty caches).
#[derive(Clone, Debug)]
pub struct Replay {
    /// The archives, in time order (see the private `multi` module).
    pub(crate) archives: ArchiveSet,
    /// `ac_cur_log`: which of them `log` reads.
    pub(crate) cur: usize,
    pub(crate) log: Log,
    /// The start of the first archive (its first volume's label).
    pub(crate) start: Ts,
    /// The metadata of the archives, indexed: descriptors and instance
    /// domain histories (shared with the context that opened them).
    pub(crate) meta: Arc<MetaIndex>,
    pub(crate) mode: Mode,
    /// `c_origin`: the current time.
    pub(crate) origin: Ts,
    /// `c_delta` and `c_direction`.
    pub(crate) delta: Ts,
    pub(crate) direction: i32,
    /// `ac_vol`, `ac_offset`: the remembered reading position.
    pub(crate) ac_vol: i32,
    pub(crate) ac_offset: i64,
    /// `ac_serial`: reading on from the remembered position is enough
    /// (no repositioning with the index needed).
    pub(crate) serial: bool,
    pub(crate) interp: InterpState,
    /// `PCP_COUNTER_WRAP`: interpolate decreasing counters as wraps.
    pub(crate) counter_wrap: bool,
    /// `PCP_IGNORE_MARK_RECORDS`: which marks interpolation passes over.
    pub(crate) ignore_marks: IgnoreMarks,
    /// A mark has been met (and a bad setting warned of).
    pub(crate) marks_checked: bool,
}

/// Which mark records (gaps in the recording) interpolation passes over
/// as if they were not there, as libpcp's `$PCP_IGNORE_MARK_RECORDS`
/// says.
#[doc(alias = "PCP_IGNORE_MARK_RECORDS")]
#[derive(Clone, Debug, PartialEq, Default)]
#[non_exhaustive]
pub enum IgnoreMarks {
    /// None: every mark is a gap (the variable unset).
    #[default]
    Keep,
    /// Every mark (the variable set and empty).
    All,
    /// A mark whose records either side are at most this many seconds
    /// apart (an interval; zero ignores every mark).
    Within(f64),
    /// A setting that is not an interval: marks are kept, and `warning`
    /// (the whole text, program name and parser's message included) is
    /// written to the trace buffer when the first mark is met.
    Bad {
        /// What to write.
        warning: Vec<u8>,
    },
}

impl Replay {
    /// Start replaying `archive`, positioned as a new archive context is:
    /// at the start of the archive, in `Forw` mode.
    #[doc(alias = "pmNewContext")]
    pub fn new(archive: Archive) -> Result<Replay, PmError> {
        Replay::with_feature_check(archive, true)
    }

    /// [`Replay::new`], checking labels' feature bits or not
    /// (`PM_CTXFLAG_NO_FEATURE_CHECK`).
    #[doc(alias = "PM_CTXFLAG_NO_FEATURE_CHECK")]
    pub fn with_feature_check(archive: Archive, check_features: bool) -> Result<Replay, PmError> {
        Replay::with_archives(ArchiveSet::single(archive), check_features)
    }

    /// Start replaying several archives as one context (see
    /// [`ArchiveSet`]), positioned at the start of the first, in `Forw`
    /// mode; checking labels' feature bits or not. Their metadata is
    /// indexed here, with [`MetaIndex::build_all`]'s errors (conflicting
    /// descriptors, an archive without any).
    #[doc(alias = "pmNewContext")]
    pub fn with_archives(archives: ArchiveSet, check_features: bool) -> Result<Replay, PmError> {
        let meta = Arc::new(MetaIndex::build_all(archives.meta_in_load_order())?);
        Replay::with_index(archives, check_features, meta)
    }

    /// [`Replay::with_archives`] over metadata already indexed: `meta` must
    /// be [`MetaIndex::build_all`] of `archives` in their load order.
    pub fn with_index(archives: ArchiveSet, check_features: bool, meta: Arc<MetaIndex>) -> Result<Replay, PmError> {
        Replay::with_index_traced(archives, check_features, meta, &Trace::off())
    }

    /// [`Replay::with_index`], tracing into `trace` from the start (the
    /// first volume's opening is traced).
    pub fn with_index_traced(
        archives: ArchiveSet,
        check_features: bool,
        meta: Arc<MetaIndex>,
        trace: &Trace,
    ) -> Result<Replay, PmError> {
        let (log, start) = crate::multi::open_log(archives.first(), check_features, trace)?;
        let ac_vol = log.curvol;
        let ac_offset = log.label_size;
        Ok(Replay {
            archives,
            cur: 0,
            log,
            start,
            meta,
            mode: Mode::Forw,
            origin: start,
            delta: Ts::default(),
            direction: 0,
            ac_vol,
            ac_offset,
            serial: false,
            interp: InterpState::default(),
            counter_wrap: false,
            ignore_marks: IgnoreMarks::Keep,
            marks_checked: false,
        })
    }

    /// Trace from now on into `trace`, as its options select (`-Dlog`:
    /// the reading of records and volumes and the positioning;
    /// `-Dinterp`: interpolation).
    #[doc(alias = "pmSetDebug")]
    pub fn set_trace(&mut self, trace: &Trace) {
        self.log.trace = trace.clone();
    }

    /// What libpcp traces of this replay when its context is destroyed
    /// (`__pmFreeInterpData`, under `-Dinterp,desperate` and
    /// `-Dlog,interp`).
    #[doc(alias = "pmDestroyContext")]
    pub fn trace_destroy(&self) {
        self.trace_free_interp();
    }

    /// Which mark records interpolation passes over (libpcp reads
    /// `$PCP_IGNORE_MARK_RECORDS` for it).
    #[doc(alias = "PCP_IGNORE_MARK_RECORDS")]
    pub fn set_ignore_marks(&mut self, ignore: IgnoreMarks) {
        self.ignore_marks = ignore;
        self.marks_checked = false;
    }

    /// `pmDupContext`: a second replay of the same archives in the same
    /// state (archive, volume and offset reached, mode, current time,
    /// step and direction), reading its own files from there on; the
    /// interpolation caches start empty, as libpcp's copy starts them.
    #[doc(alias = "pmDupContext")]
    pub fn dup(&self) -> Result<Replay, PmError> {
        // (libpcp traces none of the copy's opening under -Dcontext)
        let mut r = Replay::with_index_traced(
            self.archives.clone(),
            self.log.check_features,
            Arc::clone(&self.meta),
            &Trace::off(),
        )?;
        r.change_archive(self.cur)?;
        if self.ac_vol >= 0 && r.log.change_vol(self.ac_vol).is_ok() {
            r.log.seek(self.ac_offset);
        }
        r.set_trace(&self.log.trace);
        r.mode = self.mode;
        r.origin = self.origin;
        r.delta = self.delta;
        r.direction = self.direction;
        r.ac_vol = self.ac_vol;
        r.ac_offset = self.ac_offset;
        r.serial = self.serial;
        r.counter_wrap = self.counter_wrap;
        r.ignore_marks = self.ignore_marks.clone();
        Ok(r)
    }

    /// The archive being replayed (the first, of several).
    pub fn archive(&self) -> &Archive {
        self.archives.first()
    }

    /// The archives being replayed, in time order.
    pub fn archives(&self) -> &ArchiveSet {
        &self.archives
    }

    /// The current mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Interpolate counters that decrease as having wrapped (libpcp does
    /// so when `PCP_COUNTER_WRAP` is set in the environment).
    pub fn set_counter_wrap(&mut self, wrap: bool) {
        self.counter_wrap = wrap;
    }

    /// `pmSetMode` (with `pmSetModeHighRes`'s nanosecond delta): set the
    /// mode, the current time and, for `Interp`, the step between fetches
    /// (negative steps go backwards; a zero step counts as backwards).
    ///
    /// ```
    /// use pcp_archive::archive::Archive;
    /// use pcp_archive::{Mode, Replay};
    /// use pcp_core::{AtomValue, PmId, Timestamp, Value};
    /// use std::time::Duration;
    ///
    /// let archive = Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/v3")).unwrap();
    /// let start = archive.label().start;
    /// let mut replay = Replay::new(archive).unwrap();
    /// let hundred = [PmId::new(29, 0, 27)]; // sample.double.hundred
    ///
    /// // values at 1.5 s after the start, then every half second
    /// replay.set_mode(Mode::Interp, start + Duration::from_millis(1500), 500_000_000).unwrap();
    /// for step in 0..2 {
    ///     let result = replay.fetch(&hundred, &|_, _| true).unwrap();
    ///     assert_eq!(result.timestamp, start + Duration::from_millis(1500 + 500 * step));
    ///     let value = &result.sets[0].values.as_ref().unwrap()[0].value;
    ///     assert_eq!(*value, Value::from_atom(&AtomValue::Double(100.0)));
    /// }
    /// assert_eq!(replay.position(), start + Duration::from_millis(2500));
    ///
    /// // backwards from far in the future: the last record that has the metric
    /// replay.set_mode(Mode::Back, Timestamp::new(i64::MAX / 4, 0), 0).unwrap();
    /// let last = replay.fetch(&hundred, &|_, _| true).unwrap();
    /// assert_eq!(last.timestamp.to_string(), "2026-11-21T18:25:17.806789373Z");
    /// ```
    #[doc(alias = "pmSetMode")]
    #[doc(alias = "pmSetModeHighRes")]
    pub fn set_mode(&mut self, mode: Mode, when: Timestamp, delta_ns: i64) -> Result<(), PmError> {
        self.origin = Ts::from_timestamp(when);
        self.mode = mode;
        self.delta = Ts { sec: delta_ns / 1_000_000_000, nsec: (delta_ns % 1_000_000_000) as i32 };
        self.direction = delta_ns.signum() as i32;
        // a positioning failure shows up at the next fetch
        if let Err(e) = self.set_time() {
            self.log.say(format_args!("pmSetMode: __pmLogSetTime failed: {e}\n"));
        }
        crate::interp::reset(self);
        Ok(())
    }

    /// Does `pmSetMode(PM_MODE_FORW, when)` put this replay where it puts
    /// any other replay of the same archives, whatever each read before?
    /// Then fetches that each start with it read the same records, and one
    /// forward read can answer them all (pminfo's and pmprobe's fetches,
    /// one metric at a time from one origin). It does not when the
    /// positioning fails (say the temporal index's first entry names a
    /// volume that does not open), for each fetch then reads on from where
    /// the one before it stopped; nor where libpcp checks an index entry
    /// of the last volume against the size of whichever volume is open.
    pub fn forw_position_is_fixed(&self, when: Timestamp) -> bool {
        let mut probe = self.clone();
        probe.origin = Ts::from_timestamp(when);
        probe.mode = Mode::Forw;
        probe.direction = 0;
        probe.log.trace = Trace::off();
        if probe.set_time().is_err() {
            return false;
        }
        let log = &probe.log;
        if log.minvol == log.maxvol {
            return true;
        }
        // the entries set_time looked at, up to the one it stopped at
        for t in log.ti.iter().filter(|t| t.vol >= log.minvol) {
            if t.vol == log.maxvol {
                return false;
            }
            if t.stamp.sub(probe.origin) >= 0.0 {
                break;
            }
        }
        true
    }

    /// The current time: after a `Forw`/`Back` fetch, the result's time;
    /// in `Interp` mode, the time of the next fetch.
    pub fn position(&self) -> Timestamp {
        self.origin.to_timestamp()
    }

    /// The volume being read (`ac_curvol`; -1 for none).
    pub fn current_volume(&self) -> i32 {
        self.log.curvol
    }

    /// The reading position remembered between fetches: volume and
    /// offset (`ac_vol`, `ac_offset`).
    pub fn remembered_position(&self) -> (i32, i64) {
        (self.ac_vol, self.ac_offset)
    }

    /// Whether reading on from the remembered position is enough
    /// (`ac_serial`), rather than repositioning with the index.
    pub fn is_serial(&self) -> bool {
        self.serial
    }

    /// The step of `Mode::Interp` as libpcp keeps it: seconds and
    /// nanoseconds (both negative for a step backwards), and the
    /// direction (-1, 0 or 1; `c_delta`, `c_direction`).
    pub fn step(&self) -> (i64, i32, i32) {
        (self.delta.sec, self.delta.nsec, self.direction)
    }

    /// The descriptor the archive holds for `pmid`.
    pub fn desc(&self, pmid: PmId) -> Option<&Desc> {
        self.meta.desc(pmid).ok()
    }

    /// `pmGetArchiveEnd`: the time of the (last) archive's last record
    /// that reads cleanly.
    #[doc(alias = "pmGetArchiveEnd")]
    #[doc(alias = "pmGetHighResArchiveEnd")]
    pub fn end(&mut self) -> Result<Timestamp, PmError> {
        self.end_of_last()
    }

    /// `pmFetch` over the archive in the current mode. `wanted(indom,
    /// inst)` is the context's instance profile.
    ///
    /// ```
    /// use pcp_archive::archive::Archive;
    /// use pcp_archive::Replay;
    /// use pcp_core::{InstValue, PmError, PmId, Value};
    ///
    /// let archive = Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/v3")).unwrap();
    /// let mut replay = Replay::new(archive).unwrap();
    /// // sample.colour, instance "green" (1) only
    /// let colour = PmId::new(29, 0, 5);
    /// let result = replay.fetch(&[colour], &|_indom, inst| inst == 1).unwrap();
    /// assert_eq!(result.sets[0].values, Ok(vec![InstValue { inst: 1, value: Value::Insitu(214) }]));
    ///
    /// assert_eq!(replay.fetch(&[], &|_, _| true), Err(PmError::PM_ERR_TOOSMALL));
    /// ```
    #[doc(alias = "pmFetch")]
    #[doc(alias = "pmFetchHighRes")]
    pub fn fetch(&mut self, pmids: &[PmId], wanted: &dyn Fn(InDom, i32) -> bool) -> Result<FetchResult, PmError> {
        let mut out = FetchResult::default();
        self.fetch_into(pmids, wanted, &mut out)?;
        Ok(out)
    }

    /// [`Replay::fetch`] into `out`, whose room (its list of value sets,
    /// and their value lists) is reused where the mode allows. On an
    /// error, what `out` holds is unspecified.
    pub fn fetch_into(
        &mut self,
        pmids: &[PmId],
        wanted: &dyn Fn(InDom, i32) -> bool,
        out: &mut FetchResult,
    ) -> Result<(), PmError> {
        if pmids.is_empty() {
            return Err(PmError::PM_ERR_TOOSMALL);
        }
        match self.mode {
            Mode::Interp => crate::interp::fetch_into(self, pmids, wanted, out),
            _ => {
                *out = self.log_fetch(pmids, wanted).map(to_fetch_result)?;
                Ok(())
            }
        }
    }

    /// [`Replay::fetch_archive`] without decoding the values: the record
    /// as the archive holds it, after its length word (what
    /// [`crate::raw::ResultView`] reads), for a reader that prints records
    /// whole (pmdumplog).
    #[doc(alias = "pmFetchArchive")]
    pub fn fetch_archive_record(&mut self) -> Result<ArchiveRecord, PmError> {
        if self.mode == Mode::Interp {
            return Err(PmError::PM_ERR_MODE);
        }
        self.resume()?;
        let rec = self.next_record(self.dir())?;
        self.remember();
        Ok(ArchiveRecord::new(rec, self.log.version))
    }

    /// `pmFetchArchive`: the next (in `Back` mode, previous) record whole,
    /// marks included and no instance profile applied. `PM_ERR_MODE` in
    /// `Interp` mode.
    ///
    /// ```
    /// use pcp_archive::archive::Archive;
    /// use pcp_archive::Replay;
    /// use pcp_core::PmError;
    ///
    /// let archive = Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/v3")).unwrap();
    /// let mut replay = Replay::new(archive).unwrap();
    /// let mut metrics_per_record = Vec::new();
    /// let end = loop {
    ///     match replay.fetch_archive() {
    ///         Ok(record) => metrics_per_record.push(record.sets.len()),
    ///         Err(e) => break e,
    ///     }
    /// };
    /// // pmlogger's own metrics first and last, the sample PMDA's between
    /// assert_eq!(metrics_per_record, [5, 9, 9, 9, 9, 5]);
    /// assert_eq!(end, PmError::PM_ERR_EOL);
    /// ```
    #[doc(alias = "pmFetchArchive")]
    #[doc(alias = "pmFetchHighResArchive")]
    pub fn fetch_archive(&mut self) -> Result<FetchResult, PmError> {
        self.fetch_archive_record().map(|r| to_fetch_result(r.rec.to_result()))
    }

    fn dir(&self) -> Dir {
        match self.mode {
            Mode::Forw => Dir::Forw,
            Mode::Back => Dir::Back,
            Mode::Interp if self.direction > 0 => Dir::Forw,
            Mode::Interp => Dir::Back,
        }
    }

    pub(crate) fn remember(&mut self) {
        self.ac_offset = self.log.tell();
        self.ac_vol = self.log.curvol;
    }

    /// `VolSkip`: from index entry `j`, the first entry (going `dir`)
    /// whose volume opens.
    fn vol_skip(&mut self, dir: Dir, j: usize) -> Option<usize> {
        let numti = self.log.ti.len();
        let mut j = j;
        let mut vol = self.log.ti.get(j)?.vol;
        while self.log.minvol <= vol && vol <= self.log.maxvol {
            if self.log.change_vol(vol).is_ok() {
                return Some(j);
            }
            self.log.say(format_args!("VolSkip: Skip missing vol {vol}\n"));
            match dir {
                Dir::Forw => {
                    j += 1;
                    while j < numti && self.log.ti[j].vol == vol {
                        j += 1;
                    }
                    if j == numti {
                        return None;
                    }
                }
                Dir::Back => loop {
                    if j == 0 {
                        return None;
                    }
                    j -= 1;
                    if self.log.ti[j].vol != vol {
                        break;
                    }
                },
            }
            vol = self.log.ti[j].vol;
        }
        None
    }

    /// `__pmLogSetTime`: coarse positioning near the current time with the
    /// temporal index (or at the start or end of the archive without one).
    pub(crate) fn set_time(&mut self) -> Result<(), PmError> {
        let dir = self.dir();
        if self.log.tracing() {
            self.log.trace_which();
            let sign = if self.direction < 0 { "-" } else { "" };
            let (sec, nsec) = (self.delta.sec.abs(), self.delta.nsec.abs());
            self.log.trace.write(format_args!(
                "__pmLogSetTime(0) {} delta={sign}{sec}.{nsec:09}",
                self.origin.shown(&self.log.trace)
            ));
        }
        self.choose_archive(dir);
        let numti = self.log.ti.len();
        if numti > 0 {
            let (minvol, maxvol) = (self.log.minvol, self.log.maxvol);
            let mut size = -1i64;
            let (mut j, mut toobig, mut matched) = (numti, false, false);
            for i in 0..numti {
                let t = self.log.ti[i];
                if t.vol < minvol {
                    continue;
                }
                if t.vol == maxvol {
                    if size < 0 {
                        size = 0;
                        if maxvol >= 0 && self.log.seen(maxvol) {
                            // libpcp sizes the open volume here, whichever
                            // it is
                            size = self.log.mfp_size().unwrap_or(0);
                        } else if self.log.open_peek(maxvol) {
                            size = self.log.peek.as_ref().map_or(0, |c| c.size());
                            self.log.peek = None;
                        }
                    }
                    if t.off_data > size {
                        j = i;
                        toobig = true;
                        break;
                    }
                }
                let t_hi = t.stamp.sub(self.origin);
                if t_hi > 0.0 {
                    j = i;
                    break;
                } else if t_hi == 0.0 {
                    j = i;
                    matched = true;
                    break;
                }
            }
            self.serial = true;
            let between = !matched && j >= 1 && j < numti;
            // where the index entry is chosen, and libpcp's number for
            // the failure to open any volume from there
            let (found, serial_off, tried, how, mode) = if matched {
                (self.vol_skip(dir, j), dir == Dir::Back, j, "at ti[]", dir)
            } else if j < 1 {
                (self.vol_skip(Dir::Forw, 0), false, 0, "before start", Dir::Forw)
            } else if j == numti {
                (self.vol_skip(Dir::Back, numti - 1), dir == Dir::Back, numti - 1, "after end", Dir::Back)
            } else {
                let t_hi = self.log.ti[j].stamp.sub(self.origin);
                let t_lo = self.origin.sub(self.log.ti[j - 1].stamp);
                if t_hi <= t_lo && !toobig {
                    (self.vol_skip(dir, j), dir == Dir::Forw, j, "before ti[]", dir)
                } else {
                    (self.vol_skip(dir, j - 1), dir == Dir::Back, j - 1, "after ti[]", dir)
                }
            };
            let Some(j) = found else {
                if self.log.tracing() {
                    let n = match how {
                        "at ti[]" => 1,
                        "before start" => 2,
                        "after end" => 3,
                        "before ti[]" => 4,
                        _ => 5,
                    };
                    let mode = if mode == Dir::Forw { 2 } else { 3 };
                    self.log.trace.write(format_args!("__pmLogSetTime: VolSkip mode={mode} vol={tried} failed #{n}\n"));
                }
                return Err(PmError::PM_ERR_LOGFILE);
            };
            self.log.seek(self.log.ti[j].off_data);
            if serial_off {
                self.serial = false;
            }
            if self.log.tracing() {
                let stamp = self.log.ti[j].stamp;
                let at = match how {
                    "at ti[]" => format!(" at ti[{j}]@"),
                    "before ti[]" => format!(" before ti[{j}]@"),
                    "after ti[]" => format!(" after ti[{j}]@"),
                    "before start" => " before start ti@".to_owned(),
                    _ => " after end ti@".to_owned(),
                };
                self.log.trace.write(format_args!("{at}{}", stamp.shown(&self.log.trace)));
            }
            if between && self.serial && dir == Dir::Forw {
                // the index gives the end of a record: back up over it
                self.log.say(format_args!(" back up ...\n"));
                let _ = self.read_rec(Dir::Back);
                self.log.say(format_args!("..."));
            }
        } else {
            let vols: Vec<i32> = match dir {
                Dir::Forw => (self.log.minvol..=self.log.maxvol).collect(),
                Dir::Back => (self.log.minvol..=self.log.maxvol).rev().collect(),
            };
            if !vols.into_iter().any(|v| self.log.change_vol(v).is_ok()) {
                let (lo, hi) = match dir {
                    Dir::Forw => (self.log.minvol, self.log.maxvol),
                    Dir::Back => (self.log.maxvol, self.log.minvol),
                };
                self.log.say(format_args!(" index not useful, no volume between {lo}...{hi}\n"));
                self.log.curvol = -1;
                self.log.mfp = None;
                return Err(PmError::PM_ERR_LOGFILE);
            }
            match dir {
                Dir::Forw => self.log.seek(self.log.label_size),
                Dir::Back => self.log.seek_end(),
            }
            self.log.say(format_args!(" index not useful\n"));
        }
        if self.log.tracing() {
            let (vol, posn) = (self.log.curvol, self.log.tell());
            self.log.trace.write(format_args!(" vol={vol} posn={posn} serial={}\n", i32::from(self.serial)));
        }
        self.remember();
        Ok(())
    }

    /// Back to where the last fetch left off.
    fn resume(&mut self) -> Result<(), PmError> {
        self.log.change_vol(self.ac_vol)?;
        self.log.seek(self.ac_offset);
        Ok(())
    }

    /// The next record going `dir` from where the last fetch left off,
    /// passing over records out of time order, as `__pmLogFetch` finds it;
    /// the current time moves to it.
    fn next_record(&mut self, dir: Dir) -> Result<Record, PmError> {
        let back = if dir == Dir::Forw { Dir::Back } else { Dir::Forw };
        let mut nskip = 0;
        let rec = loop {
            if !self.serial {
                self.set_time()?;
                // fine-tune: back up (against the reading direction) to
                // the last record before the current time
                nskip = 0;
                let mut last = None;
                while let Ok(r) = self.read_rec(back) {
                    nskip += 1;
                    last = Some(r.ts);
                    let tdiff = r.ts.sub(self.origin);
                    if (dir == Dir::Forw && tdiff < 0.0) || (dir == Dir::Back && tdiff > 0.0) || tdiff == 0.0 {
                        break;
                    }
                    self.remember();
                    last = None;
                }
                self.serial = true;
                if nskip > 0 && self.log.tracing() {
                    self.log.trace_which();
                    let to = last.map_or_else(|| "unknown time".to_owned(), |t| t.shown(&self.log.trace).to_string());
                    self.log.trace.write(format_args!("__pmLogFetch: ctx=0 skip reverse {nskip} to {to}, found=0\n"));
                }
                nskip = 0;
            }
            match self.read_rec(dir) {
                Err(e) => {
                    self.remember();
                    return Err(e);
                }
                Ok(r) => {
                    let tdiff = r.ts.sub(self.origin);
                    if (tdiff < 0.0 && dir == Dir::Forw) || (tdiff > 0.0 && dir == Dir::Back) {
                        nskip += 1;
                        continue;
                    }
                    break r;
                }
            }
        };
        if nskip > 0 && self.log.tracing() {
            self.log.trace_which();
            self.log.say(format_args!("__pmLogFetch: ctx=0 skip {nskip} to {}\n", rec.ts.shown(&self.log.trace)));
        }
        self.origin = rec.ts;
        Ok(rec)
    }

    /// `__pmLogFetch` for `Forw`/`Back`: `pmids` (instances as `wanted`
    /// says) from the next record holding any of them.
    fn log_fetch(&mut self, pmids: &[PmId], wanted: &Wanted<'_>) -> Result<LogResult, PmError> {
        let dir = self.dir();
        let all_derived = pmids.iter().all(|p| p.is_derived());
        self.resume()?;
        loop {
            let rec = self.next_record(dir)?;
            if rec.is_mark() {
                // a mark: pmFetch goes on to the next record
                continue;
            }
            let mut found = 0;
            let mut sets = Vec::with_capacity(pmids.len());
            for p in pmids {
                match rec.set(p.0) {
                    Some(s) => {
                        found += 1;
                        sets.push(rec.to_set(s));
                    }
                    None => sets.push(LogSet { pmid: p.0, numval: 0, valfmt: 0, vals: Vec::new() }),
                }
            }
            if found == 0 && !all_derived {
                continue;
            }
            let mut status = Ok(());
            for set in sets.iter_mut() {
                if set.numval <= 0 {
                    continue;
                }
                let Ok(desc) = self.meta.desc(PmId(set.pmid)) else {
                    status = Err(PmError::PM_ERR_PMID_LOG);
                    break;
                };
                if desc.indom == InDom::NULL {
                    continue;
                }
                set.vals.retain(|v| wanted(desc.indom, v.inst));
                set.numval = set.vals.len() as i32;
            }
            self.remember();
            status?;
            return Ok(LogResult { ts: rec.ts, sets });
        }
    }
}

pub(crate) fn to_fetch_result(r: LogResult) -> FetchResult {
    FetchResult {
        timestamp: r.ts.to_timestamp(),
        sets: r
            .sets
            .into_iter()
            .map(|s| ValueSet {
                pmid: PmId(s.pmid),
                values: if s.numval < 0 { Err(PmError::from_code(s.numval)) } else { Ok(s.vals) },
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replay_can_move_between_threads() {
        fn is_send<T: Send>() {}
        is_send::<Replay>();
    }

    #[test]
    fn raw_modes_as_pmsetmode_takes_them() {
        assert_eq!(Mode::from_raw(2), Ok(Mode::Forw));
        assert_eq!(Mode::from_raw(3 | 0x10000), Ok(Mode::Back));
        assert_eq!(Mode::from_raw(1), Ok(Mode::Interp));
        assert_eq!(Mode::from_raw(0), Err(PmError::PM_ERR_MODE));
        assert_eq!(Mode::from_raw(4), Err(PmError::PM_ERR_MODE));
    }

    #[test]
    fn fetching_nothing_is_too_small() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v2");
        let mut r = Replay::new(Archive::open(&dir.to_string_lossy()).unwrap()).unwrap();
        assert_eq!(r.fetch(&[], &|_, _| true), Err(PmError::PM_ERR_TOOSMALL));
        r.set_mode(Mode::Interp, r.position(), 1_000_000_000).unwrap();
        assert_eq!(r.fetch_archive(), Err(PmError::PM_ERR_MODE));
    }
}

/// A record as `pmFetchArchive` returns it, in the bytes the archive holds
/// ([`Replay::fetch_archive_record`]).
#[derive(Debug)]
pub struct ArchiveRecord {
    rec: Record,
    /// The bytes of a mark record the reader made up (between the
    /// archives of several), as the file would hold them.
    made: Vec<u8>,
}

impl ArchiveRecord {
    fn new(rec: Record, version: crate::raw::Version) -> ArchiveRecord {
        let made = if rec.raw().is_empty() {
            let ts = rec.ts;
            let words: Vec<u32> = match version {
                crate::raw::Version::V2 => vec![ts.sec as u32, (ts.nsec / 1000) as u32, 0],
                crate::raw::Version::V3 => vec![ts.sec as u32, (ts.sec >> 32) as u32, ts.nsec as u32, 0],
            };
            words.iter().flat_map(|w| w.to_be_bytes()).collect()
        } else {
            Vec::new()
        };
        ArchiveRecord { rec, made }
    }

    /// The record after its leading length word, without its trailing one.
    pub fn payload(&self) -> &[u8] {
        if self.made.is_empty() {
            self.rec.raw()
        } else {
            &self.made
        }
    }

    /// The record's time.
    pub fn timestamp(&self) -> Timestamp {
        self.rec.ts.to_timestamp()
    }
}
