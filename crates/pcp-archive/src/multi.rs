//! Replaying several archives as one context, as libpcp 6.0.3 does for
//! `pmNewContext(PM_CONTEXT_ARCHIVE, "a,b,...")`.
//!
//! One archive is current at a time; its volumes are read as for a single
//! archive ([`crate::logread`]). Reading past the end of the last volume
//! (or before the start of the first, going backwards) moves on to the
//! next (previous) archive in time order, in two steps:
//!
//! - first a mark record is returned for the gap between the archives,
//!   timed one millisecond after the end of the archive (going forwards)
//!   or one millisecond before its start (going backwards);
//! - the next read opens the next archive afresh (its volume labels are
//!   checked again, its end is found again) and reads on there. When the
//!   two archives overlap in time, that read fails with
//!   `PM_ERR_LOGOVERLAP`, positioned in the new archive, so that reading
//!   on continues there.
//!
//! Reading a record header anywhere clears the "mark returned" state, so
//! a change of direction at a boundary returns the mark again.
//!
//! Positioning (`pmSetMode`) first picks the archive to start in: going
//! forwards, the last one starting before the time (the first when none
//! does); going backwards, the first starting at or after the time (the
//! last when none does). `pmGetArchiveEnd` is the end of the last archive;
//! asking for it reopens the current archive afterwards, as libpcp does.
//!
//! The metadata of all the archives is one (see
//! [`crate::archive::ArchiveSet`]); times in interpolation are relative to
//! the start of the first archive.

use crate::archive::Archive;
use crate::logread::{Dir, Log, Record, Ts, Which};
use crate::replay::{Mode, Replay};
use pcp_core::debug::Trace;
use pcp_core::{PmError, Timestamp};

/// Open an archive's volumes for reading as `__pmLogOpen` does: the index
/// loaded, the first volume open just past its label. Returns the reader
/// and the first volume's start time. The opening is not traced (the
/// archive's opening, [`crate::opentrace`], says what libpcp says of it).
pub(crate) fn open_log(archive: &Archive, check_features: bool, trace: &Trace) -> Result<(Log, Ts), PmError> {
    let mut log = Log::new(archive.base(), archive.label().version, archive.volumes());
    if let Some((vol, first)) = archive.take_first_volume() {
        log.keep(vol, first);
    }
    log.check_features = check_features;
    log.load_index()?;
    let start = log.change_vol(log.minvol)?.unwrap_or_else(|| Ts::from_timestamp(archive.label().start));
    log.trace = trace.clone();
    Ok((log, start))
}

impl Replay {
    /// `__pmLogChangeArchive`: make archive `i` (in time order) the
    /// current one, opening it afresh unless it is current already. As in
    /// libpcp, opening it also resets the context: the current time to the
    /// archive's start, the mode to `Forw` (callers that mean to keep them
    /// put them back).
    pub(crate) fn change_archive(&mut self, i: usize) -> Result<(), PmError> {
        if i == self.cur {
            return Ok(());
        }
        let archive = self.archives.members().get(i).ok_or(PmError::PM_ERR_LOGFILE)?;
        if let Some(name) = self.archives.names().get(i) {
            crate::opentrace::trace_log_open(name, self.log.check_features, &self.log.trace);
        }
        let (mut log, start) = open_log(archive, self.log.check_features, &self.log.trace)?;
        // libpcp reuses one control block: the last end found stays
        log.endtime = self.log.endtime;
        self.log = log;
        self.cur = i;
        self.origin = start;
        self.mode = Mode::Forw;
        Ok(())
    }

    /// [`Replay::change_archive`], keeping the current time and mode.
    fn change_archive_keeping(&mut self, i: usize) -> Result<(), PmError> {
        let (origin, mode) = (self.origin, self.mode);
        let r = self.change_archive(i);
        (self.origin, self.mode) = (origin, mode);
        r
    }

    /// The archive coarse positioning starts in, for the current time and
    /// direction (the first step of `__pmLogSetTime`).
    pub(crate) fn choose_archive(&mut self, dir: Dir) {
        let n = self.archives.len();
        let origin = self.origin;
        let mut i = self
            .archives
            .members()
            .iter()
            .position(|a| Ts::from_timestamp(a.label().start).sub(origin) >= 0.0)
            .unwrap_or(n);
        match dir {
            Dir::Forw => i = i.saturating_sub(1),
            Dir::Back => i = i.min(n - 1),
        }
        // as in libpcp, a failure here shows up at the next read
        let _ = self.change_archive_keeping(i);
    }

    /// `__pmLogRead` on the current volume: the next record in direction
    /// `dir`, moving on to the next volume and then to the next archive
    /// (with a mark record first) as the end of each is reached.
    pub(crate) fn read_rec(&mut self, dir: Dir) -> Result<Record, PmError> {
        loop {
            match self.log.read(dir, Which::Mfp, false) {
                Err(PmError::PM_ERR_EOL) => {}
                r => return r,
            }
            let more = match dir {
                Dir::Forw => self.cur + 1 < self.archives.len(),
                Dir::Back => self.cur > 0,
            };
            if !more {
                return Err(PmError::PM_ERR_EOL);
            }
            if !self.log.mark_done {
                let mark = self.boundary_mark(dir);
                self.log.mark_done = true;
                return mark;
            }
            match dir {
                Dir::Forw => self.next_archive()?,
                Dir::Back => self.previous_archive()?,
            }
            // libpcp reads on within the same __pmLogRead
            self.log.continued = true;
        }
    }

    /// `__pmLogGenerateMark`: the mark record for the gap after (before)
    /// the current archive.
    fn boundary_mark(&mut self, dir: Dir) -> Result<Record, PmError> {
        let ts = match dir {
            Dir::Forw => {
                self.log.archive_end()?;
                // the cached end, as libpcp takes it
                let mut t = self.log.endtime;
                t.nsec += 1_000_000;
                if t.nsec > 1_000_000_000 {
                    t.nsec -= 1_000_000_000;
                    t.sec += 1;
                }
                t
            }
            Dir::Back => {
                let mut t = self.log.label_start;
                if t.nsec >= 1_000_000 {
                    t.nsec -= 1_000_000;
                } else {
                    t.nsec += 1_000_000_000 - 1_000_000;
                    t.sec -= 1;
                }
                t
            }
        };
        Ok(Record::mark(ts))
    }

    /// `LogChangeToNextArchive`: on to the start of the next archive;
    /// `PM_ERR_LOGOVERLAP` (once there) when the current one ends after
    /// the next one starts.
    fn next_archive(&mut self) -> Result<(), PmError> {
        let prev_end = self.log.endtime;
        self.change_archive_keeping(self.cur + 1)?;
        self.ac_offset = self.log.label_size;
        self.ac_vol = self.log.curvol;
        if prev_end.sub(self.log.label_start) > 0.0 {
            return Err(PmError::PM_ERR_LOGOVERLAP);
        }
        Ok(())
    }

    /// `LogChangeToPreviousArchive`: back to the end of the previous
    /// archive; `PM_ERR_LOGOVERLAP` (once there) when it ends after the
    /// current one starts.
    fn previous_archive(&mut self) -> Result<(), PmError> {
        let prev_start = self.log.label_start;
        self.change_archive_keeping(self.cur - 1)?;
        self.log.archive_end()?;
        let mut vol = self.log.maxvol;
        while vol >= self.log.minvol {
            if self.log.change_vol(vol).is_ok() {
                break;
            }
            vol -= 1;
        }
        if vol < self.log.minvol {
            self.log.curvol = -1;
            self.log.mfp = None;
            return Err(PmError::PM_ERR_LOGFILE);
        }
        self.log.seek_end();
        self.ac_offset = self.log.tell();
        self.ac_vol = self.log.curvol;
        if self.log.endtime.sub(prev_start) > 0.0 {
            return Err(PmError::PM_ERR_LOGOVERLAP);
        }
        Ok(())
    }

    /// The time libpcp's context is at while [`Replay::end`] reads the
    /// last record: the last archive's start when the end is looked for
    /// from another archive (opening the last one sets the context's
    /// origin, which names the instances of the record's `-Dpdu` dump),
    /// `None` when the current archive is the last.
    pub fn end_read_origin(&self) -> Option<Timestamp> {
        let last = self.archives.len().checked_sub(1)?;
        if self.cur == last {
            return None;
        }
        self.archives.members().get(last).map(|a| a.label().start)
    }

    /// `pmGetArchiveEnd`: the end of the last archive. Asking moves to the
    /// last archive and back, reopening the current one, as libpcp does
    /// (which leaves the current time at that archive's start and the mode
    /// `Forw`); on failure the last archive stays current.
    pub(crate) fn end_of_last(&mut self) -> Result<Timestamp, PmError> {
        let last = self.archives.len() - 1;
        if self.cur == last {
            return self.log.archive_end().map(Ts::to_timestamp);
        }
        let (save_cur, save_vol, save_offset) = (self.cur, self.ac_vol, self.ac_offset);
        self.change_archive(last)?;
        let end = self.log.archive_end()?;
        self.change_archive(save_cur)?;
        self.log.change_vol(save_vol)?;
        self.log.seek(save_offset);
        Ok(end.to_timestamp())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::ArchiveSet;
    use pcp_core::FetchResult;

    fn open(names: &[&str]) -> Replay {
        let dir = format!("{}/tests/fixtures/multi", env!("CARGO_MANIFEST_DIR"));
        let list: Vec<String> = names.iter().map(|n| format!("{dir}/{n}")).collect();
        Replay::with_archives(ArchiveSet::open(&list.join(","), true).unwrap(), true).unwrap()
    }

    fn start(r: &Replay, i: usize) -> Timestamp {
        r.archives().members()[i].label().start
    }

    /// pmFetchArchive until the first mark record.
    fn first_mark(r: &mut Replay) -> FetchResult {
        loop {
            let res = r.fetch_archive().unwrap();
            if res.sets.is_empty() {
                return res;
            }
        }
    }

    #[test]
    fn boundary_marks_are_a_millisecond_outside_the_archive() {
        let mut r = open(&["s2a", "s2b"]);
        let s2a_end = Replay::new(r.archives().members()[0].clone()).unwrap().end().unwrap();
        let mark = first_mark(&mut r);
        assert_eq!(mark.timestamp, Timestamp::new(s2a_end.sec, s2a_end.nsec + 1_000_000));
        // then the second archive's first record
        assert!(r.fetch_archive().unwrap().timestamp >= start(&r, 1));
        let end = r.end().unwrap();
        r.set_mode(crate::Mode::Back, end, 0).unwrap();
        let mark = first_mark(&mut r);
        let s2b = start(&r, 1);
        assert_eq!(mark.timestamp, Timestamp::new(s2b.sec, s2b.nsec - 1_000_000));
        assert_eq!(r.fetch_archive().unwrap().timestamp, s2a_end);
    }

    #[test]
    fn crossing_into_an_overlapping_archive_fails_once() {
        let mut r = open(&["ov1", "ov2"]);
        first_mark(&mut r);
        assert_eq!(r.fetch_archive(), Err(PmError::PM_ERR_LOGOVERLAP));
        // reading goes on at the start of the next archive
        assert!(r.fetch_archive().unwrap().timestamp >= start(&r, 1));
    }

    #[test]
    fn the_end_is_the_last_archives_and_asking_resets_the_mode() {
        let mut r = open(&["s2c", "s2a"]);
        let last_end = Replay::new(r.archives().members()[1].clone()).unwrap().end().unwrap();
        r.set_mode(crate::Mode::Interp, start(&r, 0), 1_000_000_000).unwrap();
        assert_eq!(r.end().unwrap(), last_end);
        // libpcp reopens the first archive, which resets mode and time
        assert_eq!((r.mode(), r.position()), (crate::Mode::Forw, start(&r, 0)));
    }
}
