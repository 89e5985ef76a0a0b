//! (pmdumplog's own record reader; [`crate::replay`] reads the same way
//! for archive contexts. Merging the two is open work.)
//!
//! Reading an archive's results in time order as libpcp does for
//! `pmFetchArchive`: the data volumes one after another, forwards or
//! backwards, with libpcp's handling of missing, empty and damaged
//! volumes and records, its positioning through the temporal index, and
//! its search for the end of the archive.
//!
//! One record is read at a time into one reusable buffer, so memory stays
//! small whatever the archive's size. Compressed volumes are decompressed
//! as they are read; one that must be read backwards (or whose size is
//! needed) is first decompressed into a temporary file, as libpcp does
//! for gzip and bzip2 volumes.

use crate::files::{find_file, VolFile};
use crate::raw::{paranoid_check, IndexEntry, Label, ResultView, Version};
use pcp_core::{FetchResult, PmError, PmResult, Timestamp};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Which way results are read (`PM_MODE_FORW`, `PM_MODE_BACK`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Oldest first.
    Forward,
    /// Newest first.
    Backward,
}

/// Reads the results of one archive as libpcp's archive context does.
pub struct LogReader {
    base: PathBuf,
    version: Version,
    label_size: u64,
    minvol: i32,
    maxvol: i32,
    index: Vec<IndexEntry>,
    /// The volume open now (`ac_curvol`), if any.
    curvol: Option<i32>,
    /// The file open now (`ac_mfp`): after a failed volume change it can
    /// be a volume other than `curvol`, as in libpcp.
    file: Option<VolFile>,
    /// Volumes whose label has been checked (libpcp's `seen`).
    seen: HashSet<i32>,
    /// Where the next fetch starts (`ac_vol`, `ac_offset`).
    vol: i32,
    offset: u64,
    /// Has the position been found for the current origin (`ac_serial`)?
    serial: bool,
    origin: Timestamp,
    direction: Direction,
    /// The last record's bytes: the first `len` of `buf`.
    buf: Vec<u8>,
    len: usize,
}

fn errno(e: std::io::Error) -> PmError {
    PmError::from_errno(e.raw_os_error().unwrap_or(5))
}

/// Read `n` bytes at the file's position onto the end of `buf`, growing
/// it only as bytes arrive; how many came.
fn read_n(f: &mut VolFile, n: u64, buf: &mut Vec<u8>) -> PmResult<u64> {
    let mut got = 0u64;
    while got < n {
        let chunk = (n - got).min(1 << 20) as usize;
        let at = buf.len();
        buf.resize(at + chunk, 0);
        let k = f.read(&mut buf[at..]).map_err(errno)?;
        buf.truncate(at + k);
        got += k as u64;
        if k < chunk {
            break;
        }
    }
    Ok(got)
}

/// Read `n` bytes at the file's position into the start of `buf`, which
/// is grown (never shrunk, so it is not cleared again for every record)
/// only as bytes arrive; how many came.
fn read_into(f: &mut VolFile, n: u64, buf: &mut Vec<u8>) -> PmResult<u64> {
    let mut got = 0u64;
    while got < n {
        let chunk = (n - got).min(1 << 20) as usize;
        let at = got as usize;
        if buf.len() < at + chunk {
            buf.resize(at + chunk, 0);
        }
        let k = f.read(&mut buf[at..at + chunk]).map_err(errno)?;
        got += k as u64;
        if k < chunk {
            break;
        }
    }
    Ok(got)
}

fn read_word(f: &mut VolFile) -> PmResult<Option<i32>> {
    let mut w = [0u8; 4];
    let n = f.read(&mut w).map_err(errno)?;
    Ok((n == 4).then(|| i32::from_be_bytes(w)))
}

/// Check an archive file's label as `__pmLogChkLabel` does: the label
/// record, then its volume number. Leaves the file after the label.
/// `Ok(false)` for a volume holding nothing but its label (libpcp's
/// `PM_ERR_NODATA`, which still counts the label as checked). A file too
/// short for the label's first two words is `PM_ERR_NODATA` (the end of
/// the file is met first).
fn check_label(f: &mut VolFile, vol: i32) -> PmResult<bool> {
    f.seek(0).map_err(errno)?;
    let mut rec = Vec::new();
    if read_n(f, 8, &mut rec)? < 8 {
        return Err(PmError::PM_ERR_NODATA);
    }
    let len = u32::from_be_bytes([rec[0], rec[1], rec[2], rec[3]]) as u64;
    let expect = match rec[7] {
        2 => 132,
        3 => 808,
        _ => return Err(PmError::PM_ERR_LABEL),
    };
    if len != expect || read_n(f, len - 8, &mut rec)? < len - 8 {
        return Err(PmError::PM_ERR_LABEL);
    }
    let (label, _) = Label::decode(&rec)?;
    if label.vol != vol {
        return Err(PmError::PM_ERR_LABEL);
    }
    f.more().map_err(errno)
}

impl LogReader {
    /// Start reading the archive `base` (its base name), whose label says
    /// `version`, with its temporal index `index`, positioned as libpcp is
    /// after `pmNewContext`: at the start of the first volume, with the
    /// origin at `start` (the label's start), reading forwards.
    pub fn open(base: &Path, version: Version, index: Vec<IndexEntry>, start: Timestamp) -> PmResult<LogReader> {
        let vols = crate::files::volumes(base).map_err(errno)?;
        let (Some(&minvol), Some(&maxvol)) = (vols.first(), vols.last()) else {
            return Err(PmError::PM_ERR_LOGFILE);
        };
        let label_size = match version {
            Version::V2 => 132,
            Version::V3 => 808,
        };
        let mut r = LogReader {
            base: base.to_path_buf(),
            version,
            label_size,
            minvol: minvol as i32,
            maxvol: maxvol as i32,
            index,
            curvol: None,
            file: None,
            seen: HashSet::new(),
            vol: minvol as i32,
            offset: label_size,
            serial: false,
            origin: start,
            direction: Direction::Forward,
            buf: Vec::new(),
            len: 0,
        };
        r.change_vol(minvol as i32)?;
        Ok(r)
    }

    /// `pmSetMode(PM_MODE_FORW or PM_MODE_BACK, when)`: the next fetch
    /// finds its place afresh from `when`.
    #[doc(alias = "pmSetMode")]
    pub fn set_mode(&mut self, direction: Direction, when: Timestamp) {
        self.direction = direction;
        self.origin = when;
        self.serial = false;
    }

    /// The current time (`c_origin`): the last result fetched.
    pub fn origin(&self) -> Timestamp {
        self.origin
    }

    fn vol_path(&self, vol: i32) -> Option<PathBuf> {
        find_file(&self.base, &format!(".{vol}"))
    }

    /// `__pmLogChangeVol`.
    fn change_vol(&mut self, vol: i32) -> PmResult<()> {
        if self.curvol == Some(vol) {
            return Ok(());
        }
        self.file = None;
        let path = self.vol_path(vol).ok_or(PmError::from_errno(2))?;
        let f = self.file.insert(VolFile::open(&path).map_err(errno)?);
        if self.seen.contains(&vol) {
            f.seek(self.label_size).map_err(errno)?;
        } else {
            let has_data = check_label(f, vol)?;
            self.seen.insert(vol);
            if !has_data {
                return Err(PmError::PM_ERR_NODATA);
            }
        }
        self.curvol = Some(vol);
        Ok(())
    }

    fn tell(&self) -> u64 {
        self.file.as_ref().map_or(0, VolFile::tell)
    }

    fn seek(&mut self, pos: u64) -> PmResult<()> {
        match self.file.as_mut() {
            Some(f) => f.seek(pos).map_err(errno),
            None => Ok(()),
        }
    }

    /// `__pmLogRead`: the next record in `direction` from the current
    /// position, moving to the next (or previous) volume at the end (or
    /// start) of one. `PM_ERR_EOL` past the last (or first) volume,
    /// `PM_ERR_LOGREC` for a damaged record.
    #[doc(alias = "__pmLogRead")]
    fn read(&mut self, direction: Direction) -> PmResult<Timestamp> {
        let mut offset = self.tell();
        if direction == Direction::Backward {
            loop {
                if offset > self.label_size {
                    self.seek(offset - 4)?;
                    break;
                }
                // before the start: the end of an earlier volume
                let mut vol = self.curvol.unwrap_or(self.minvol) - 1;
                let mut found = false;
                while vol >= self.minvol {
                    if self.change_vol(vol).is_ok() {
                        if let Some(f) = self.file.as_mut() {
                            let end = f.size().map_err(errno)?;
                            f.seek(end).map_err(errno)?;
                            offset = end;
                        }
                        found = true;
                        break;
                    }
                    vol -= 1;
                }
                if !found {
                    return Err(PmError::PM_ERR_EOL);
                }
            }
        }
        let head = loop {
            let Some(f) = self.file.as_mut() else { return Err(PmError::PM_ERR_EOL) };
            if let Some(head) = read_word(f)? {
                break head;
            }
            // the end of this volume: on to the next one that opens
            f.seek(offset).map_err(errno)?;
            let mut vol = self.curvol.unwrap_or(self.maxvol) + 1;
            let mut found = false;
            while vol <= self.maxvol {
                if self.change_vol(vol).is_ok() {
                    found = true;
                    break;
                }
                vol += 1;
            }
            if !found {
                return Err(PmError::PM_ERR_EOL);
            }
        };
        self.finish_read(direction, offset, head, false)
    }

    /// The rest of a read once the record's first length word is in:
    /// its payload and trailer, checked and decoded.
    fn finish_read(&mut self, direction: Direction, offset: u64, head: i32, paranoid: bool) -> PmResult<Timestamp> {
        let version = self.version;
        let Some(f) = self.file.as_mut() else { return Err(PmError::PM_ERR_EOL) };
        let (buf, result) = read_record(f, direction, offset, head, version, paranoid, std::mem::take(&mut self.buf));
        self.buf = buf;
        if result.is_ok() {
            self.len = (head - 8) as usize;
        }
        result
    }

    /// `__pmLogSetTime`: find the place for the origin through the
    /// temporal index (or the start or end of the volumes without one).
    #[doc(alias = "__pmLogSetTime")]
    fn set_time(&mut self) -> PmResult<()> {
        let dir = self.direction;
        if self.index.is_empty() {
            if dir == Direction::Forward {
                let vol = (self.minvol..=self.maxvol).find(|&v| self.change_vol(v).is_ok());
                if vol.is_none() {
                    self.curvol = None;
                    self.file = None;
                    return Err(PmError::PM_ERR_LOGFILE);
                }
                self.seek(self.label_size)?;
            } else {
                let vol = (self.minvol..=self.maxvol).rev().find(|&v| self.change_vol(v).is_ok());
                if vol.is_none() {
                    self.curvol = None;
                    self.file = None;
                    return Err(PmError::PM_ERR_LOGFILE);
                }
                if let Some(f) = self.file.as_mut() {
                    let end = f.size().map_err(errno)?;
                    f.seek(end).map_err(errno)?;
                }
            }
        } else {
            let origin = self.origin;
            let numti = self.index.len();
            let mut j = None;
            let (mut toobig, mut exact) = (false, false);
            let mut last_size: Option<u64> = None;
            for i in 0..numti {
                let ti = self.index[i];
                if ti.vol < self.minvol {
                    continue;
                }
                if ti.vol == self.maxvol {
                    // the last volume may be shorter than the index says
                    let size = match last_size {
                        Some(s) => s,
                        None => {
                            let s = self.last_vol_size();
                            last_size = Some(s);
                            s
                        }
                    };
                    if ti.data_offset as i64 > size as i64 {
                        j = Some(i);
                        toobig = true;
                        break;
                    }
                }
                if ti.when > origin {
                    j = Some(i);
                    break;
                }
                if ti.when == origin {
                    j = Some(i);
                    exact = true;
                    break;
                }
            }
            let j = j.unwrap_or(numti);
            self.serial = true;
            let place = |this: &mut LogReader, d: Direction, k: usize| -> PmResult<()> {
                let k = this.vol_skip(d, k).ok_or(PmError::PM_ERR_LOGFILE)?;
                let off = this.index[k].data_offset;
                this.seek(off)
            };
            if exact {
                place(self, dir, j)?;
                if dir == Direction::Backward {
                    self.serial = false;
                }
            } else if j < 1 {
                place(self, Direction::Forward, 0)?;
            } else if j == numti {
                place(self, Direction::Backward, numti - 1)?;
                if dir == Direction::Backward {
                    self.serial = false;
                }
            } else {
                let t_hi = sub(self.index[j].when, origin);
                let t_lo = sub(origin, self.index[j - 1].when);
                if t_hi <= t_lo && !toobig {
                    place(self, dir, j)?;
                    if dir == Direction::Forward {
                        self.serial = false;
                    }
                } else {
                    place(self, dir, j - 1)?;
                    if dir == Direction::Backward {
                        self.serial = false;
                    }
                }
                if self.serial && dir == Direction::Forward {
                    // the index points after a record: back up over it
                    let _ = self.read(Direction::Backward);
                }
            }
        }
        self.offset = self.tell();
        self.vol = self.curvol.unwrap_or(-1);
        Ok(())
    }

    /// libpcp's `VolSkip`: from index entry `j`, the first entry (going
    /// `d`) whose volume opens, now the current volume.
    fn vol_skip(&mut self, d: Direction, mut j: usize) -> Option<usize> {
        let mut vol = self.index[j].vol;
        while self.minvol <= vol && vol <= self.maxvol {
            if self.change_vol(vol).is_ok() {
                return Some(j);
            }
            match d {
                Direction::Forward => {
                    j = (j + 1..self.index.len()).find(|&k| self.index[k].vol != vol)?;
                }
                Direction::Backward => {
                    j = (0..j).rev().find(|&k| self.index[k].vol != vol)?;
                }
            }
            vol = self.index[j].vol;
        }
        None
    }

    /// The size libpcp takes for the last volume when it checks index
    /// entries against it: once that volume's label has been checked,
    /// the size of whatever file is open now (libpcp stats its current
    /// file then, which for an archive of several volumes is not always
    /// the last); else the last volume's own (0 if it cannot be opened).
    fn last_vol_size(&mut self) -> u64 {
        if self.seen.contains(&self.maxvol) {
            return self.file.as_mut().map_or(0, |f| f.size().unwrap_or(0));
        }
        match self.peek(self.maxvol) {
            Some(mut f) => f.size().unwrap_or(0),
            None => 0,
        }
    }

    /// libpcp's `_logpeek`: a volume opened apart from the current one,
    /// its label checked (which counts as checked even when the volume
    /// is empty).
    fn peek(&mut self, vol: i32) -> Option<VolFile> {
        let path = self.vol_path(vol)?;
        let mut f = VolFile::open(&path).ok()?;
        let has_data = check_label(&mut f, vol).ok()?;
        self.seen.insert(vol);
        has_data.then_some(f)
    }

    /// `pmFetchArchive` (libpcp's `__pmLogFetch` with no metrics): the next
    /// record in the current direction, mark records included. Records
    /// out of time order (before the last one fetched, going forwards;
    /// after it, going backwards) are passed over, as libpcp does.
    /// `PM_ERR_EOL` at the end; `PM_ERR_LOGREC` for a damaged record.
    #[doc(alias = "pmFetchArchive")]
    #[doc(alias = "__pmLogFetch")]
    pub fn fetch(&mut self) -> PmResult<FetchResult> {
        self.fetch_view()?.to_result()
    }

    /// [`LogReader::fetch`] without copying: the record, read in place
    /// (valid until the next call).
    pub fn fetch_view(&mut self) -> PmResult<ResultView<'_>> {
        self.fetch_record()?;
        ResultView::new(&self.buf[..self.len], self.version)
    }

    /// Find the next record to return; it is left in `buf`.
    fn fetch_record(&mut self) -> PmResult<()> {
        // back to where the last fetch stopped
        self.change_vol(self.vol)?;
        self.seek(self.offset)?;
        let dir = self.direction;
        let back = match dir {
            Direction::Forward => Direction::Backward,
            Direction::Backward => Direction::Forward,
        };
        let result = loop {
            if !self.serial {
                let placed = match self.set_time() {
                    Ok(()) => true,
                    // the index led to no volume there is (the first ones
                    // missing): libpcp's pmSetMode ignores that failure,
                    // and reading goes on from where it was
                    Err(PmError::PM_ERR_LOGFILE) if self.serial && !self.index.is_empty() => false,
                    Err(e) => return Err(e),
                };
                // fine tuning: back up (against the direction) to the
                // first record not beyond the origin
                while let Some(Ok(t)) = placed.then(|| self.read(back)) {
                    let beyond = match dir {
                        Direction::Forward => t < self.origin,
                        Direction::Backward => t > self.origin,
                    };
                    if beyond || t == self.origin {
                        break;
                    }
                    self.offset = self.tell();
                    self.vol = self.curvol.unwrap_or(-1);
                }
                self.serial = true;
            }
            let t = self.read(dir)?;
            let skip = match dir {
                Direction::Forward => t < self.origin,
                Direction::Backward => t > self.origin,
            };
            if !skip {
                break t;
            }
        };
        self.origin = result;
        self.offset = self.tell();
        self.vol = self.curvol.unwrap_or(-1);
        Ok(())
    }

    /// `pmGetArchiveEnd`: the time of the last record, found as libpcp
    /// finds it: reading backwards from the end of the last volume that
    /// has records, or, when that record is damaged, forwards from the
    /// last index entry for that volume until a record fails.
    #[doc(alias = "pmGetArchiveEnd")]
    #[doc(alias = "__pmGetArchiveEnd")]
    pub fn end(&mut self) -> PmResult<Timestamp> {
        let saved = self.tell();
        let mut found = None;
        let mut vol = self.maxvol;
        while vol >= self.minvol {
            let mut peek = None;
            if !(self.curvol == Some(vol) && self.file.is_some()) {
                peek = self.peek(vol);
                if peek.is_none() {
                    vol -= 1;
                    continue;
                }
            }
            let Some(f) = peek.as_mut().or(self.file.as_mut()) else { break };
            match end_of_volume(f, vol, &self.index, self.label_size, self.version, &mut self.buf) {
                VolEnd::Found(t) => {
                    found = Some(t);
                    break;
                }
                VolEnd::Damaged => break,
                VolEnd::Nothing => vol -= 1,
            }
        }
        if let Some(f) = self.file.as_mut() {
            let _ = f.seek(saved);
        }
        found.ok_or(PmError::PM_ERR_LOGREC)
    }
}

enum VolEnd {
    Found(Timestamp),
    /// Stop looking: libpcp gives up on the whole archive.
    Damaged,
    /// No records here: try the volume before.
    Nothing,
}

/// The search for the last record of one volume (the body of libpcp's
/// loop in `__pmGetArchiveEnd`).
fn end_of_volume(
    f: &mut VolFile,
    vol: i32,
    index: &[IndexEntry],
    label_size: u64,
    version: Version,
    buf: &mut Vec<u8>,
) -> VolEnd {
    let Ok(physend) = f.size() else { return VolEnd::Nothing };
    if physend <= label_size {
        return VolEnd::Nothing;
    }
    let paranoid_read = |f: &mut VolFile, d: Direction, buf: &mut Vec<u8>| -> PmResult<Timestamp> {
        let offset = f.tell();
        if d == Direction::Backward {
            if offset <= label_size {
                return Err(PmError::PM_ERR_EOL);
            }
            f.seek(offset - 4).map_err(errno)?;
        }
        let Some(head) = read_word(f)? else {
            let _ = f.seek(offset);
            return Err(PmError::PM_ERR_EOL);
        };
        let (b, r) = read_record(f, d, offset, head, version, true, std::mem::take(buf));
        *buf = b;
        r
    };
    if f.seek(physend).is_err() {
        return VolEnd::Nothing;
    }
    if let Ok(t) = paranoid_read(f, Direction::Backward, buf) {
        return VolEnd::Found(t);
    }
    // a damaged last record: chase forwards from the last index entry
    // for this volume inside the file
    let Some(ti) = index.iter().rev().find(|t| t.vol == vol && t.data_offset as i64 <= physend as i64) else {
        return VolEnd::Nothing;
    };
    let logend = ti.data_offset;
    if f.seek(logend).is_err() {
        return VolEnd::Nothing;
    }
    let mut last = None;
    if logend > label_size {
        match paranoid_read(f, Direction::Backward, buf) {
            Ok(t) => last = Some(t),
            Err(_) => return VolEnd::Damaged,
        }
    }
    let mut found = false;
    loop {
        let offset = f.tell();
        let Ok(Some(head)) = read_word(f) else { break };
        if offset as i64 + head as i64 > physend as i64 {
            break;
        }
        if f.seek(offset).is_err() {
            break;
        }
        match paranoid_read(f, Direction::Forward, buf) {
            Ok(t) => {
                found = true;
                last = Some(t);
            }
            Err(_) => break,
        }
    }
    match (found, last) {
        (true, Some(t)) => VolEnd::Found(t),
        _ => VolEnd::Nothing,
    }
}

/// Read the rest of a record whose first length word `head` has just
/// been read (forwards) or whose last length word has (backwards, the
/// record ending at `offset`), leaving the file where libpcp leaves it.
/// Returns the buffer (holding the record) and the record's time once it
/// has been checked as libpcp decodes it.
fn read_record(
    f: &mut VolFile,
    direction: Direction,
    offset: u64,
    head: i32,
    version: Version,
    paranoid: bool,
    mut buf: Vec<u8>,
) -> (Vec<u8>, PmResult<Timestamp>) {
    let logrec = Err(PmError::PM_ERR_LOGREC);
    let rlen = head as i64 - 8;
    if rlen < 0 || (direction == Direction::Backward && rlen as u64 > offset) {
        return (buf, logrec);
    }
    let rlen = rlen as u64;
    let seek = |f: &mut VolFile, p: u64| f.seek(p).map_err(errno);
    if direction == Direction::Backward {
        let Some(p) = f.tell().checked_sub(4 + rlen) else { return (buf, logrec) };
        if let Err(e) = seek(f, p) {
            return (buf, Err(e));
        }
    }
    match read_into(f, rlen, &mut buf) {
        Ok(n) if n == rlen => {}
        Ok(_) => {
            let _ = f.seek(offset);
            return (buf, logrec);
        }
        Err(e) => return (buf, Err(e)),
    }
    if direction == Direction::Backward {
        let Some(p) = f.tell().checked_sub(rlen + 4) else { return (buf, logrec) };
        if let Err(e) = seek(f, p) {
            return (buf, Err(e));
        }
    }
    let trail = match read_word(f) {
        Ok(Some(t)) => t,
        Ok(None) => {
            let _ = f.seek(offset);
            return (buf, logrec);
        }
        Err(e) => return (buf, Err(e)),
    };
    if trail != head {
        return (buf, logrec);
    }
    let payload = &buf[..rlen as usize];
    if paranoid && !paranoid_check(payload, version) {
        return (buf, logrec);
    }
    if direction == Direction::Backward {
        let p = f.tell().saturating_sub(4);
        if let Err(e) = seek(f, p) {
            return (buf, Err(e));
        }
    }
    let r = ResultView::new(payload, version).map(|v| v.timestamp());
    (buf, r)
}

/// `__pmTimestampSub`: `a - b` in seconds.
fn sub(a: Timestamp, b: Timestamp) -> f64 {
    (a.sec - b.sec) as f64 + (a.nsec as f64 - b.nsec as f64) / 1e9
}
