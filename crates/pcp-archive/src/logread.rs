//! Reading an archive's data volumes record by record, forwards and
//! backwards, as libpcp's `__pmLogRead` does: one current volume with a file
//! position, volume switching at either end, the checks a record must pass,
//! and the file positions left behind on every error (replay depends on
//! them, so damaged archives behave as they do under libpcp).
//!
//! Volumes ([`Volume`]) are read through windows of them in memory;
//! compressed ones are decompressed on a thread of their own, and reading
//! forwards, the next compressed volume starts decompressing once the
//! current one has. A record is checked as it is read but its values stay
//! in the bytes read until asked for ([`Record`]), so reading through an
//! archive for a few metrics costs little more than the reading.

use crate::files::find_file;
use crate::raw::{paranoid_check, Version};
use crate::record::decode_record;
pub(crate) use crate::record::{Bytes, Record, SetRef};
use crate::volume::Volume;
use pcp_core::debug::{DebugFlag, Trace};
use pcp_core::{InstValue, PmError, PmId};
use std::collections::HashSet;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A timestamp as libpcp holds it (`__pmTimestamp`): nanoseconds are not
/// normalised, and a version 2 record's microseconds times 1000 may wrap.
pub(crate) use crate::raw::Stamp as Ts;

impl Ts {
    pub(crate) fn sub(self, other: Ts) -> f64 {
        pcp_core::support::x87::timestamp_sub((self.sec, self.nsec), (other.sec, other.nsec))
    }

    /// The fields as they are (nanoseconds not carried: see
    /// [`Ts::instant`] for the instant).
    pub(crate) fn to_timestamp(self) -> pcp_core::Timestamp {
        pcp_core::Timestamp { sec: self.sec, nsec: self.nsec as u32 }
    }

    pub(crate) fn from_timestamp(t: pcp_core::Timestamp) -> Ts {
        Ts::from(t)
    }
}

impl Ts {
    /// This time as a trace shows it ([`Shown`]).
    pub(crate) fn shown(self, trace: &Trace) -> Shown<'_> {
        Shown(trace, self)
    }
}

/// `__pmPrintTimestamp`'s form of a time in a trace: `HH:MM:SS.nnnnnnnnn`
/// in the trace's zone (libpcp's current zone).
pub(crate) struct Shown<'a>(&'a Trace, Ts);

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Shown(trace, ts) = self;
        let (h, m, s) = trace.hms(ts.sec).unwrap_or_else(|| {
            let day = ts.sec.rem_euclid(86_400) as u32;
            (day / 3600, day / 60 % 60, day % 60)
        });
        write!(f, "{h:02}:{m:02}:{s:02}.{:09}", ts.nsec)
    }
}

/// A time as libpcp's traces show it (`__pmPrintTimestamp`).
pub(crate) fn trace_time(trace: &Trace, ts: Ts) -> String {
    ts.shown(trace).to_string()
}

/// Reading direction (`PM_MODE_FORW`, `PM_MODE_BACK`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dir {
    Forw,
    Back,
}

/// One metric's values in a record, with the record's own `valfmt`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LogSet {
    pub pmid: u32,
    /// Number of values, or a (negative) error code.
    pub numval: i32,
    pub valfmt: i32,
    pub vals: Vec<InstValue>,
}

/// A fetch's result, or a record copied out (a mark when `sets` is empty).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LogResult {
    pub ts: Ts,
    pub sets: Vec<LogSet>,
}

/// A temporal index entry as libpcp loads it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ti {
    pub stamp: Ts,
    pub vol: i32,
    pub off_data: i64,
}

const LOGREC: PmError = PmError::PM_ERR_LOGREC;
const PM_LOG_MAGIC: u32 = 0x5005_2600;
/// The least of a volume read in at a time.
const WINDOW: usize = 1 << 17;
/// How many windows a cursor keeps for reuse (records still held by the
/// interpolation cache keep theirs busy).
const SPARE_WINDOWS: usize = 4;
/// How many compressed volumes to keep open (decompressed into temporary
/// files): interpolation moves back and forth across volume boundaries,
/// and the last volume is visited for the archive's end.
const KEEP_DECOMPRESSED: usize = 4;

fn be32(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4).map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
}

fn io_err(e: &io::Error) -> PmError {
    PmError::from_errno(e.raw_os_error().unwrap_or(5))
}

/// An open volume with a stdio-like position (`__pmFILE`), read through a
/// window of it in memory.
#[derive(Debug)]
pub(crate) struct Cursor {
    data: Arc<Volume>,
    /// The volume's size (decompressed).
    size: i64,
    pos: i64,
    /// The bytes at `win_off..win_off + win.len()` of the volume.
    win: Arc<Vec<u8>>,
    win_off: u64,
    /// Windows read before, most recently used first, with where each is
    /// in the volume: taken again when they hold what is wanted, read
    /// into again once no record refers to them.
    spare: Vec<(u64, Arc<Vec<u8>>)>,
}

/// A second cursor on the same volume at the same place, with the window
/// read.
impl Clone for Cursor {
    fn clone(&self) -> Cursor {
        Cursor {
            data: Arc::clone(&self.data),
            size: self.size,
            pos: self.pos,
            win: Arc::clone(&self.win),
            win_off: self.win_off,
            spare: Vec::new(),
        }
    }
}

impl Cursor {
    fn new(data: Arc<Volume>) -> Result<Cursor, PmError> {
        let size = i64::try_from(data.size()?).unwrap_or(i64::MAX);
        Ok(Cursor { data, size, pos: 0, win: Arc::new(Vec::new()), win_off: 0, spare: Vec::new() })
    }

    pub fn tell(&self) -> i64 {
        self.pos
    }

    pub fn size(&self) -> i64 {
        self.size
    }

    /// `fseek`: a position before the start fails and leaves it alone.
    pub fn seek_set(&mut self, off: i64) -> bool {
        if off < 0 {
            return false;
        }
        self.pos = off;
        true
    }

    pub fn seek_cur(&mut self, delta: i64) -> bool {
        self.seek_set(self.pos.saturating_add(delta))
    }

    pub fn seek_end(&mut self) {
        self.pos = self.size();
    }

    /// Read a new window holding the `len` bytes at `off` (all within the
    /// volume); going `backwards`, the window ends with them. A large
    /// record going forwards gets a window of its own, with a little more.
    fn fill(&mut self, off: u64, len: usize, backwards: bool) -> Result<(), PmError> {
        let old = std::mem::replace(&mut self.win, Arc::new(Vec::new()));
        self.spare.insert(0, (self.win_off, old));
        // a window read before that holds the bytes (reading goes back and
        // forth over a few records as it interpolates)
        let end = off + len as u64;
        if let Some(i) = self.spare.iter().position(|(at, w)| *at <= off && end <= at + w.len() as u64) {
            (self.win_off, self.win) = self.spare.remove(i);
            return Ok(());
        }
        let size = self.size as u64;
        let start = if backwards && len <= WINDOW { end.saturating_sub(WINDOW as u64) } else { off };
        // (a large record going forwards is read with a little more: the
        // records after it, or the next one's length word)
        let span = if !backwards && len > WINDOW / 4 { len + WINDOW / 4 } else { WINDOW.max(len) };
        let want = (size - start).min(span as u64) as usize;
        // the window used longest ago that no record refers to any more is
        // read into again
        let reuse = self.spare.iter().rposition(|(_, w)| Arc::strong_count(w) == 1);
        let mut buf = match reuse {
            Some(i) => self.spare.remove(i).1,
            None => Arc::new(Vec::new()),
        };
        self.spare.truncate(SPARE_WINDOWS);
        let Some(b) = Arc::get_mut(&mut buf) else { return Err(PmError::from_errno(5)) };
        b.resize(want, 0);
        let got = self.data.read_at(start, b)?;
        b.truncate(got);
        self.win = buf;
        self.win_off = start;
        Ok(())
    }

    /// `fread` without the copy: up to `n` bytes from the position (fewer
    /// at the end of the file), and whether the end was hit.
    pub fn view(&mut self, n: usize) -> Result<(Bytes, bool), PmError> {
        let size = self.size;
        if self.pos >= size {
            return Ok((Bytes { buf: Arc::clone(&self.win), start: 0, len: 0 }, n > 0));
        }
        let take = ((size - self.pos) as u64).min(n as u64) as usize;
        let off = self.pos as u64;
        let in_window = off >= self.win_off && off + take as u64 <= self.win_off + self.win.len() as u64;
        if !in_window {
            let backwards = off < self.win_off;
            self.fill(off, take, backwards)?;
        }
        let start = (off - self.win_off) as usize;
        // (a file cut short since it was opened reads short)
        let take = take.min(self.win.len().saturating_sub(start));
        self.pos += take as i64;
        Ok((Bytes { buf: Arc::clone(&self.win), start, len: take }, take < n))
    }

    /// `fread`: up to `n` bytes from the position (fewer at the end of the
    /// file), and whether the end was hit.
    pub fn read(&mut self, n: usize) -> Result<(Vec<u8>, bool), PmError> {
        let (b, eof) = self.view(n)?;
        Ok((b.as_slice().to_vec(), eof))
    }
}

/// Where a read happens: the current volume, or a volume opened to peek
/// at (no volume switching).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Which {
    Mfp,
    Peek,
}

/// The data volumes of one archive and the reading position in them:
/// libpcp's `__pmArchCtl`/`__pmLogCtl` as far as reading goes.
#[derive(Clone, Debug)]
pub(crate) struct Log {
    base: PathBuf,
    pub version: Version,
    pub label_size: i64,
    pub minvol: i32,
    pub maxvol: i32,
    pub ti: Vec<Ti>,
    seen: HashSet<i32>,
    /// The open volume (`ac_mfp`); `None` once closed by a failed switch.
    pub mfp: Option<Cursor>,
    pub peek: Option<Cursor>,
    /// The volume libpcp believes is open (`ac_curvol`).
    pub curvol: i32,
    /// The volume to start decompressing once the current one has
    /// ([`Log::read_on`]).
    ahead: Option<i32>,
    /// Compressed volumes kept open for reuse (at most
    /// [`KEEP_DECOMPRESSED`], most recently used first), and the first
    /// volume the archive's opening checked.
    decompressed: Vec<(i32, Arc<Volume>)>,
    /// `pmGetArchiveEnd`'s cache: the last volume's size, and its end.
    physend: i64,
    pub endtime: Ts,
    /// The start time in the last volume label read (libpcp's
    /// `lcp->label`, which a backward mark record at the archive's start
    /// is timed by).
    pub label_start: Ts,
    /// `ac_mark_done`: the mark record for the boundary with the next (or
    /// previous) archive of a multi-archive context has been returned;
    /// reading a record header clears it.
    pub mark_done: bool,
    /// Refuse labels with feature bits 6.0.3 does not know (libpcp's
    /// `ac_chkfeatures`, off with `PM_CTXFLAG_NO_FEATURE_CHECK`).
    pub check_features: bool,
    /// Where `-Dlog` traces go.
    pub trace: Trace,
    /// The next read goes on with a read begun in the archive before
    /// (its trace names the archive instead of starting a line).
    pub continued: bool,
    /// Whether the archive has a temporal index (libpcp holds it open,
    /// which moves the file descriptors of volumes opened to peek at).
    has_index: bool,
}

impl Log {
    pub fn new(base: &Path, version: Version, volumes: &[u32]) -> Log {
        let label_size = match version {
            Version::V2 => 132,
            Version::V3 => 808,
        };
        let minvol = volumes.first().map_or(-1, |&v| v as i32);
        let maxvol = volumes.last().map_or(-1, |&v| v as i32);
        Log {
            base: base.to_path_buf(),
            version,
            label_size,
            minvol,
            maxvol,
            ti: Vec::new(),
            seen: HashSet::new(),
            mfp: None,
            peek: None,
            curvol: -1,
            ahead: None,
            decompressed: Vec::new(),
            physend: -1,
            endtime: Ts::default(),
            label_start: Ts::default(),
            mark_done: false,
            check_features: true,
            trace: Trace::off(),
            continued: false,
            has_index: false,
        }
    }

    /// The archive's base name, as given.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// Whether `-Dlog` tracing is on.
    #[inline]
    pub fn tracing(&self) -> bool {
        self.trace.on(DebugFlag::Log)
    }

    /// With `-Dcontext`, the line of the `pmWhichContext` libpcp calls
    /// for the context number a `-Dlog` line shows.
    pub(crate) fn trace_which(&self) {
        if self.trace.on(DebugFlag::Context) {
            self.trace.write_bytes(b"pmWhichContext() -> 0, cur=0\n");
        }
    }

    /// Trace `args` (when tracing is on).
    #[inline]
    pub fn say(&self, args: std::fmt::Arguments<'_>) {
        if self.tracing() {
            self.trace.write(args);
        }
    }

    /// The file descriptor libpcp would have for the volume read through
    /// `w`: the current volume takes the lowest free one (the directory
    /// scan's, once closed), a volume opened to peek at the next after the
    /// index and metadata files.
    pub fn fd(&self, w: Which) -> i32 {
        match w {
            Which::Mfp => 3,
            Which::Peek => 5 + i32::from(self.has_index),
        }
    }

    /// Load the temporal index (`__pmLogLoadIndex`): every whole entry.
    pub fn load_index(&mut self) -> Result<(), PmError> {
        let Some(path) = find_file(&self.base, ".index") else { return Ok(()) };
        self.has_index = true;
        let mut data = Vec::new();
        crate::files::open(&path).and_then(|mut f| f.read_to_end(&mut data)).map_err(|e| io_err(&e))?;
        let size = match self.version {
            Version::V2 => 20,
            Version::V3 => 32,
        };
        let body = data.get(self.label_size as usize..).unwrap_or(&[]);
        for e in body.chunks_exact(size) {
            let w = |i: usize| be32(e, 4 * i).unwrap_or(0);
            self.ti.push(match self.version {
                Version::V2 => Ti {
                    stamp: Ts { sec: w(0) as i32 as i64, nsec: w(1).wrapping_mul(1000) as i32 },
                    vol: w(2) as i32,
                    off_data: w(4) as i64,
                },
                Version::V3 => Ti {
                    stamp: Ts { sec: ((w(1) as u64) << 32 | w(0) as u64) as i64, nsec: w(2) as i32 },
                    vol: w(3) as i32,
                    off_data: ((w(6) as u64) << 32 | w(7) as u64) as i64,
                },
            });
        }
        Ok(())
    }

    fn open_data(&mut self, vol: i32) -> Result<Arc<Volume>, PmError> {
        if let Some(data) = self.kept(vol) {
            return Ok(data);
        }
        let path = find_file(&self.base, &format!(".{vol}")).ok_or(PmError::from_errno(2))?;
        let data = Arc::new(Volume::open(&path)?);
        if data.is_compressed() {
            self.keep(vol, Arc::clone(&data));
        }
        Ok(data)
    }

    /// A volume kept, made the most recently used.
    fn kept(&mut self, vol: i32) -> Option<Arc<Volume>> {
        let i = self.decompressed.iter().position(|(v, _)| *v == vol)?;
        let entry = self.decompressed.remove(i);
        let data = Arc::clone(&entry.1);
        self.decompressed.insert(0, entry);
        Some(data)
    }

    /// Keep an open volume, first in line.
    pub fn keep(&mut self, vol: i32, data: Arc<Volume>) {
        self.decompressed.retain(|(v, _)| *v != vol);
        self.decompressed.insert(0, (vol, data));
        self.decompressed.truncate(KEEP_DECOMPRESSED);
    }

    pub fn cursor(&mut self, w: Which) -> Option<&mut Cursor> {
        match w {
            Which::Mfp => self.mfp.as_mut(),
            Which::Peek => self.peek.as_mut(),
        }
    }

    /// `__pmLogChkLabel`: check a volume's label (once per volume; later
    /// checks only seek past it). Returns the label's start time when read.
    fn chk_label(&mut self, w: Which, vol: i32) -> Result<Option<Ts>, PmError> {
        let label_size = self.label_size;
        let check_features = self.check_features;
        let seen = self.seen.contains(&vol);
        let Some(f) = self.cursor(w) else { return Err(PmError::from_errno(9)) };
        if seen {
            f.seek_set(label_size);
            return Ok(None);
        }
        f.seek_set(0);
        if self.tracing() || self.trace.on(DebugFlag::Context) {
            self.trace_chk_label(w, vol);
        }
        let Some(f) = self.cursor(w) else { return Err(PmError::from_errno(9)) };
        // (a compressed volume that fails to read, even its label, has no
        // label to libpcp's reader)
        let (peek, eof) = f.read(8).map_err(|_| PmError::PM_ERR_LABEL)?;
        if peek.len() != 8 {
            return Err(if eof { PmError::PM_ERR_NODATA } else { PmError::PM_ERR_LABEL });
        }
        let length = be32(&peek, 0).unwrap_or(0);
        let magic = be32(&peek, 4).unwrap_or(0);
        let want = match magic & 0xff {
            3 => 808,
            2 => 132,
            _ => return Err(PmError::PM_ERR_LABEL),
        };
        if length != want {
            return Err(PmError::PM_ERR_LABEL);
        }
        let (rest, _) = f.read(want as usize - 12).map_err(|_| PmError::PM_ERR_LABEL)?;
        if rest.len() != want as usize - 12 {
            return Err(PmError::PM_ERR_LABEL);
        }
        let (trail, _) = f.read(4).map_err(|_| PmError::PM_ERR_LABEL)?;
        if be32(&trail, 0) != Some(length) {
            return Err(PmError::PM_ERR_LABEL);
        }
        // `rest` starts at the label's pid
        let w = |i: usize| be32(&rest, 4 * i).unwrap_or(0);
        let (start, lvol, features) = if want == 808 {
            (Ts { sec: ((w(2) as u64) << 32 | w(1) as u64) as i64, nsec: w(3) as i32 }, w(4) as i32, w(5))
        } else {
            (Ts { sec: w(1) as i32 as i64, nsec: w(2).wrapping_mul(1000) as i32 }, w(3) as i32, 0)
        };
        if magic & 0xffff_ff00 != PM_LOG_MAGIC || lvol != vol {
            return Err(PmError::PM_ERR_LABEL);
        }
        if check_features && features & !0x8000_0000 != 0 {
            return Err(PmError::PM_ERR_FEATURE);
        }
        let empty = f.size() == label_size;
        // libpcp remembers the volume as checked even when it is empty
        self.seen.insert(vol);
        if empty {
            return Err(PmError::PM_ERR_NODATA);
        }
        Ok(Some(start))
    }

    /// `__pmLogChkLabel`'s trace of the label of the volume `w` (at its
    /// start; left there).
    fn trace_chk_label(&mut self, w: Which, vol: i32) {
        let (fd, check_features) = (self.fd(w), self.check_features);
        let Some(f) = self.cursor(w) else { return };
        let Ok((head, _)) = f.read(809) else { return };
        f.seek_set(0);
        let mut out = String::new();
        let _ = crate::opentrace::chk_label_trace(&head, fd, vol, check_features, &self.trace, &mut out);
        if !self.tracing() {
            out = crate::opentrace::unlogged_part(&out);
        }
        self.trace.write_bytes(out.as_bytes());
    }

    /// `__pmFopen`'s trace of opening volume `vol` (`-Dlog`, `-Dconfig`).
    fn trace_fopen(&self, vol: i32) {
        if self.tracing() || self.trace.on(DebugFlag::Config) {
            let name = crate::opentrace::lcp_name(&self.base);
            self.trace.write_bytes(crate::opentrace::fopen_trace(&format!("{name}.{vol}"), &self.trace).as_bytes());
        }
    }

    /// `__pmLogChangeVol`. On failure the old volume is closed all the
    /// same, and `curvol` still names it, as in libpcp.
    pub fn change_vol(&mut self, vol: i32) -> Result<Option<Ts>, PmError> {
        if self.curvol == vol {
            return Ok(None);
        }
        let forwards = vol > self.curvol;
        self.mfp = None;
        self.trace_fopen(vol);
        let data = self.open_data(vol)?;
        self.mfp = Some(Cursor::new(data)?);
        let start = self.chk_label(Which::Mfp, vol)?;
        self.curvol = vol;
        if let Some(t) = start {
            self.label_start = t;
        }
        self.say(format_args!("__pmLogChangeVol: change to volume {vol}\n"));
        // going forwards, the next volume starts decompressing once this
        // one has
        self.ahead = (forwards && vol < self.maxvol).then_some(vol + 1);
        Ok(start)
    }

    /// Reading forwards: start decompressing the next volume
    /// ([`Log::ahead`]) once the current one is decompressed.
    fn read_on(&mut self) {
        let Some(vol) = self.ahead else { return };
        if self.mfp.as_ref().is_some_and(|c| c.data.settled()) {
            self.ahead = None;
            // (an error shows again where reading reaches it)
            let _ = self.open_data(vol);
        }
    }

    /// `_logpeek`: open volume `vol` on the side, label checked.
    pub fn open_peek(&mut self, vol: i32) -> bool {
        self.peek = None;
        self.trace_fopen(vol);
        let Some(cursor) = self.open_data(vol).ok().and_then(|d| Cursor::new(d).ok()) else { return false };
        self.peek = Some(cursor);
        if self.chk_label(Which::Peek, vol).is_err() {
            self.peek = None;
            return false;
        }
        true
    }

    /// `__pmLogRead`: the next record in direction `dir`. Reading the
    /// current volume (`Which::Mfp`) moves to the next (previous) volume at
    /// its end (start); `paranoid` adds the extra record checks libpcp
    /// makes when looking for an archive's end.
    pub fn read(&mut self, dir: Dir, w: Which, paranoid: bool) -> Result<Record, PmError> {
        let label_size = self.label_size;
        let version = self.version;
        if dir == Dir::Forw && w == Which::Mfp {
            self.read_on();
        }
        let Some(f) = self.cursor(w) else { return Err(PmError::from_errno(9)) };
        let mut offset = f.tell();
        let tracing = self.tracing();
        if std::mem::take(&mut self.continued) && tracing {
            let name = crate::opentrace::lcp_name(&self.base);
            self.trace.write(format_args!("arch={name} vol={} posn={offset} ", self.curvol));
        } else if tracing {
            let peek = if paranoid || w == Which::Peek { " (peek)" } else { "" };
            let mode = if dir == Dir::Forw { "forw" } else { "back" };
            let (fd, vol) = (self.fd(w), self.curvol);
            self.trace.write(format_args!("__pmLogRead: fd={fd}{peek} mode={mode} vol={vol} posn={offset} "));
        }
        if dir == Dir::Back {
            loop {
                if offset > label_size {
                    if let Some(f) = self.cursor(w) {
                        f.seek_cur(-4);
                    }
                    break;
                }
                self.say(format_args!("BEFORE start\n"));
                if w == Which::Peek {
                    return Err(PmError::PM_ERR_EOL);
                }
                let mut vol = self.curvol - 1;
                while vol >= self.minvol {
                    if self.change_vol(vol).is_ok() {
                        if let Some(f) = self.mfp.as_mut() {
                            f.seek_end();
                            offset = f.tell();
                        }
                        self.say(format_args!("vol={} posn={offset} ", self.curvol));
                        break;
                    }
                    vol -= 1;
                }
                if vol < self.minvol {
                    return Err(PmError::PM_ERR_EOL);
                }
            }
        }
        let head = loop {
            let Some(f) = self.cursor(w) else { return Err(PmError::from_errno(9)) };
            let (word, eof) = f.view(4)?;
            if let Some(word) = be32(word.as_slice(), 0) {
                break word as i32;
            }
            if !eof {
                let n = word.len();
                self.say(format_args!("\nError: header fread got {n} expected 4\n"));
                return Err(LOGREC);
            }
            // end of this volume: on to the next one, if any
            f.seek_set(offset);
            self.say(format_args!("AFTER end\n"));
            if w == Which::Peek {
                return Err(PmError::PM_ERR_EOL);
            }
            let mut vol = self.curvol + 1;
            let mut switched = false;
            while vol <= self.maxvol {
                if self.change_vol(vol).is_ok() {
                    switched = true;
                    break;
                }
                vol += 1;
            }
            if !switched {
                return Err(PmError::PM_ERR_EOL);
            }
        };
        // not at an archive boundary (libpcp's clearMarkDone)
        self.mark_done = false;
        let rlen = head.wrapping_sub(8);
        if rlen < 0 || (dir == Dir::Back && rlen as i64 > offset) {
            self.say(format_args!("\nError: truncated log? rlen={rlen} (offset {})\n", offset as i32));
            return Err(LOGREC);
        }
        let Some(f) = self.cursor(w) else { return Err(PmError::from_errno(9)) };
        let rlen = rlen as usize;
        if dir == Dir::Back {
            f.seek_cur(-(4 + rlen as i64));
        }
        let at = f.tell();
        let data = Arc::clone(&f.data);
        let (body, _) = f.view(rlen)?;
        if body.len() != rlen {
            f.seek_set(offset);
            self.say(format_args!("\nError: data fread got {} expected {rlen}\n", body.len()));
            return Err(LOGREC);
        }
        if dir == Dir::Back {
            f.seek_cur(-(rlen as i64 + 4));
        }
        let (trail, _) = f.view(4)?;
        let Some(trail) = be32(trail.as_slice(), 0) else {
            f.seek_set(offset);
            self.say(format_args!("\nError: trailer fread got {} expected 4\n", trail.len()));
            return Err(LOGREC);
        };
        if trail != head as u32 {
            self.say(format_args!("\nError: record length mismatch: header ({head}) != trailer ({})\n", trail as i32));
            return Err(LOGREC);
        }
        if paranoid && !paranoid_check(body.as_slice(), version) {
            return Err(LOGREC);
        }
        if dir == Dir::Back {
            f.seek_cur(-4);
        }
        // a record of a compressed volume (whose decompressed bytes, in a
        // file of ours, do not change) is checked once: read again, as the
        // interpolation reads records again and again, it is taken as it is
        // (the trace says why the record could not be decoded; the
        // caller is told it is corrupt)
        let pdu = self.trace.on(DebugFlag::Pdu).then(|| body.as_slice().to_vec());
        let record = if let Some(index) = data.layout(at, rlen) {
            Record::checked(body, version, index)
        } else {
            let record = decode_record(body, version);
            if let Some(index) = record.as_ref().ok().and_then(Record::plain_index) {
                data.keep_layout(at, rlen, index);
            }
            record
        };
        if let (Some(_), Ok(r)) = (&pdu, &record) {
            // __pmDecodeResult's dump, by the layer that knows the names
            let result = r.to_result();
            let sptr = result.sets.iter().filter(|s| s.numval > 0 && s.valfmt == 2).map(|s| PmId(s.pmid)).collect();
            self.trace.defer_result(crate::replay::to_fetch_result(result), sptr);
        }
        if tracing {
            match &record {
                Ok(r) => self.trace.write(format_args!(
                    "@{} (t={:.6}) len=header+{rlen}+trailer\n",
                    r.ts.shown(&self.trace),
                    r.ts.sub(self.label_start)
                )),
                Err(e) => self.trace.write(format_args!(
                    "__pmLogRead: __pmDecodeResult failed: {e}\n@unknown time len=header+{rlen}+trailer\n"
                )),
            }
        }
        if let (Some(bytes), Ok(r)) = (pdu, &record) {
            let head = if tracing { rlen } else { rlen + 8 };
            crate::pdutrace::dump(&self.trace, r.ts, &bytes, version, head);
        }
        record.map_err(|_| LOGREC)
    }

    /// `__pmGetArchiveEnd`: the time of the last record that reads cleanly,
    /// searching back from the end of the last volume (and the index when
    /// the end is damaged); cached while the last volume does not grow.
    pub fn archive_end(&mut self) -> Result<Ts, PmError> {
        let label_size = self.label_size;
        let mut found: Option<(i32, i64, Ts)> = None;
        let mut cached = None;
        let mut save = 0;
        let mut last = None;
        let mut vol = self.maxvol;
        while vol >= self.minvol {
            let w = if self.curvol == vol {
                save = self.tell();
                Which::Mfp
            } else if self.open_peek(vol) {
                Which::Peek
            } else {
                last = None;
                vol -= 1;
                continue;
            };
            last = Some(w);
            let size = self.cursor(w).map_or(0, |f| f.size());
            if vol == self.maxvol && size == self.physend {
                cached = Some(self.endtime);
                break;
            }
            if size > label_size {
                let physend = size;
                if let Some(f) = self.cursor(w) {
                    f.seek_set(physend);
                }
                if let Ok(r) = self.read(Dir::Back, w, true) {
                    found = Some((vol, physend, r.ts));
                    break;
                }
                // a damaged end: from the last index entry in this volume,
                // read forwards while records are whole
                if let Some(t) = self.ti.iter().rev().find(|t| t.vol == vol && t.off_data <= physend) {
                    let logend = t.off_data;
                    if let Some(f) = self.cursor(w) {
                        f.seek_set(logend);
                    }
                    if logend > label_size && self.read(Dir::Back, w, true).is_err() {
                        break;
                    }
                    while let Some(f) = self.cursor(w) {
                        let offset = f.tell();
                        let Ok((b, _)) = f.read(4) else { break };
                        let Some(head) = be32(&b, 0) else { break };
                        if offset + head as i32 as i64 > physend {
                            break;
                        }
                        f.seek_set(offset);
                        match self.read(Dir::Forw, w, true) {
                            Ok(r) => found = Some((vol, physend, r.ts)),
                            Err(_) => break,
                        }
                    }
                    if found.is_some() {
                        break;
                    }
                }
            }
            if w == Which::Peek {
                self.peek = None;
                last = None;
            }
            vol -= 1;
        }
        if last == Some(Which::Mfp) {
            self.seek(save);
        }
        self.peek = None;
        if let Some(t) = cached {
            return Ok(t);
        }
        let (vol, physend, ts) = found.ok_or(LOGREC)?;
        if vol == self.maxvol {
            self.endtime = ts;
            self.physend = physend;
        }
        Ok(ts)
    }

    /// The volume the open file really is (it can differ from `curvol`
    /// after a failed switch).
    pub fn mfp_size(&self) -> Option<i64> {
        self.mfp.as_ref().map(Cursor::size)
    }

    pub fn seen(&self, vol: i32) -> bool {
        self.seen.contains(&vol)
    }

    pub fn tell(&self) -> i64 {
        self.mfp.as_ref().map_or(0, Cursor::tell)
    }

    pub fn seek(&mut self, off: i64) {
        if let Some(f) = self.mfp.as_mut() {
            f.seek_set(off);
        }
    }

    pub fn seek_end(&mut self) {
        if let Some(f) = self.mfp.as_mut() {
            f.seek_end();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::tests::Lcg;

    /// Reads anywhere in a plain and in an `.xz` volume, mostly forwards,
    /// sometimes back a little or far, give the file's bytes; bytes handed
    /// out earlier stay as they were while windows are reused.
    #[test]
    fn cursors_read_what_the_file_holds() {
        use std::io::Write;
        let mut g = Lcg(3);
        let size = 5 * (1 << 20) + 123_457;
        let data: Vec<u8> = (0..size).map(|i| if i % 7 == 0 { g.next() as u8 } else { (i / 13) as u8 }).collect();
        let dir = std::env::temp_dir().join(format!("pcp-rs-logread-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("v.0"), &data).unwrap();
        let mut xz = liblzma::write::XzEncoder::new(std::fs::File::create(dir.join("v.1.xz")).unwrap(), 1);
        xz.write_all(&data).unwrap();
        xz.finish().unwrap();
        for name in ["v.0", "v.1.xz"] {
            let vol = Arc::new(Volume::open(&dir.join(name)).unwrap());
            let mut c = Cursor::new(vol).unwrap();
            assert_eq!(c.size(), size as i64);
            let mut held: Vec<(usize, Bytes)> = Vec::new();
            let mut pos = 0usize;
            for _ in 0..2_000 {
                match g.below(12) {
                    0 => pos = g.below(size as u32) as usize,
                    1 | 2 => pos = pos.saturating_sub(g.below(300_000) as usize),
                    _ => {}
                }
                let most = if g.below(4) == 0 { 400_000 } else { 100_000 };
                let n = g.below(most) as usize;
                assert!(c.seek_set(pos as i64));
                let (b, eof) = c.view(n).unwrap();
                let end = (pos + n).min(size);
                assert_eq!(b.as_slice(), &data[pos.min(size)..end]);
                assert_eq!(eof, pos + n > size);
                assert_eq!(c.tell() as usize, end.max(pos));
                held.push((pos, b));
                if held.len() > 5 {
                    held.remove(0);
                }
                pos = end;
            }
            for (at, b) in &held {
                assert_eq!(b.as_slice(), &data[*at..*at + b.len()]);
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A plain volume cut short after it was opened: what is left reads as
    /// before; past the cut, a read comes up short (nothing is mapped, so
    /// there is no `SIGBUS`).
    #[test]
    fn a_volume_cut_short_reads_short_past_the_cut() {
        let size = 3 * WINDOW + 1000;
        let data: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
        let dir = std::env::temp_dir().join(format!("pcp-rs-logread-cut-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("v.0");
        std::fs::write(&path, &data).unwrap();
        let cut = WINDOW + 500;
        let mut c = Cursor::new(Arc::new(Volume::open(&path).unwrap())).unwrap();
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(cut as u64).unwrap();
        assert!(c.seek_set(100));
        assert_eq!(c.view(1000).unwrap().0.as_slice(), &data[100..1100]);
        assert!(c.seek_set(cut as i64 - 200));
        let (b, eof) = c.view(1000).unwrap();
        assert_eq!((b.as_slice(), eof), (&data[cut - 200..cut], true));
        assert!(c.seek_set(2 * WINDOW as i64));
        assert_eq!(c.view(10).unwrap().0.len(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
