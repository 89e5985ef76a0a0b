//! Reading an archive's data volumes record by record, forwards and
//! backwards, as libpcp's `__pmLogRead` does: one current volume with a file
//! position, volume switching at either end, the checks a record must pass,
//! and the file positions left behind on every error (replay depends on
//! them, so damaged archives behave as they do under libpcp).
//!
//! Volumes are read on demand through a small window; compressed volumes
//! are decompressed once into an unlinked temporary file (libpcp reads
//! `.xz` volumes block by block in memory and runs `gzip`/`bzip2`/`xz` into
//! an unlinked temporary file for the other formats), so random access costs
//! disk, not memory.

use crate::files::{compression_of, find_file, Compression};
use crate::raw::{paranoid_check, Version};
use pcp_core::{InstValue, PmError, Value, ValueBlock};
use std::collections::HashSet;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A timestamp as libpcp holds it (`__pmTimestamp`): nanoseconds are not
/// normalised, and a version 2 record's microseconds times 1000 may wrap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Ts {
    pub sec: i64,
    pub nsec: i32,
}

impl Ts {
    pub fn sub(self, other: Ts) -> f64 {
        crate::ldouble::timestamp_sub((self.sec, self.nsec), (other.sec, other.nsec))
    }

    pub fn to_timestamp(self) -> pcp_core::Timestamp {
        pcp_core::Timestamp { sec: self.sec, nsec: self.nsec as u32 }
    }

    pub fn from_timestamp(t: pcp_core::Timestamp) -> Ts {
        Ts { sec: t.sec, nsec: t.nsec as i32 }
    }

    /// `__pmTimestampCmp`.
    pub fn cmp(self, other: Ts) -> std::cmp::Ordering {
        (self.sec, self.nsec).cmp(&(other.sec, other.nsec))
    }
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

/// A decoded data volume record (a mark when `sets` is empty).
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
const WINDOW: usize = 1 << 16;
/// How many decompressed volumes to keep (as unlinked temporary files):
/// interpolation moves back and forth across volume boundaries, and the
/// last volume is visited for the archive's end.
const KEEP_DECOMPRESSED: usize = 4;

fn be32(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4).map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
}

fn io_err(e: &io::Error) -> PmError {
    PmError::from_errno(e.raw_os_error().unwrap_or(5))
}

/// A volume's bytes: a plain file, or a decompressed copy.
#[derive(Debug)]
struct VolData {
    file: File,
    size: u64,
}

/// An open volume with a stdio-like position (`__pmFILE`).
#[derive(Debug)]
pub(crate) struct Cursor {
    data: Arc<VolData>,
    pos: i64,
    win: Vec<u8>,
    win_off: u64,
}

impl Cursor {
    fn new(data: Arc<VolData>) -> Cursor {
        Cursor { data, pos: 0, win: Vec::new(), win_off: 0 }
    }

    pub fn tell(&self) -> i64 {
        self.pos
    }

    pub fn size(&self) -> i64 {
        self.data.size as i64
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

    fn fill(&mut self, off: u64, len: usize, backwards: bool) -> io::Result<()> {
        let start = if backwards && len <= WINDOW { (off + len as u64).saturating_sub(WINDOW as u64) } else { off };
        let want = (self.data.size - start).min(WINDOW.max(len) as u64) as usize;
        self.win.clear();
        self.win.resize(want, 0);
        let mut f = &self.data.file;
        f.seek(SeekFrom::Start(start))?;
        let mut got = 0;
        while got < want {
            match f.read(&mut self.win[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.win.truncate(got);
        self.win_off = start;
        Ok(())
    }

    /// `fread`: up to `n` bytes from the position (fewer at the end of the
    /// file), and whether the end was hit.
    pub fn read(&mut self, n: usize) -> Result<(Vec<u8>, bool), PmError> {
        let mut out = Vec::new();
        let eof = self.read_append(n, &mut out)?;
        Ok((out, eof))
    }

    /// `fread` onto the end of `out`; whether the end of the file was hit.
    pub fn read_append(&mut self, n: usize, out: &mut Vec<u8>) -> Result<bool, PmError> {
        let size = self.data.size as i64;
        if self.pos >= size {
            return Ok(n > 0);
        }
        let take = ((size - self.pos) as u64).min(n as u64) as usize;
        let off = self.pos as u64;
        let in_window = off >= self.win_off && off + take as u64 <= self.win_off + self.win.len() as u64;
        if !in_window {
            let backwards = off < self.win_off;
            self.fill(off, take, backwards).map_err(|e| io_err(&e))?;
        }
        let at = (off - self.win_off) as usize;
        let Some(bytes) = self.win.get(at..at + take) else { return Err(PmError::from_errno(5)) };
        out.extend_from_slice(bytes);
        self.pos += take as i64;
        Ok(take < n)
    }

    /// A 4-byte word at the position, big-endian, or how many bytes there
    /// were and whether the end was hit.
    fn read_word(&mut self) -> Result<Result<u32, bool>, PmError> {
        let mut w = Vec::with_capacity(4);
        let eof = self.read_append(4, &mut w)?;
        Ok(be32(&w, 0).ok_or(eof))
    }
}

/// Copy a compressed file's contents into an unlinked temporary file.
fn decompress(path: &Path) -> Result<File, PmError> {
    let mut input = crate::files::open(path).map_err(|e| io_err(&e))?;
    let dir = std::env::temp_dir();
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let mut attempt = 0u32;
    let mut out = loop {
        let name = dir.join(format!("pcp-rs-{}-{nanos}-{attempt}", std::process::id()));
        match std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&name) {
            Ok(f) => {
                // unlinked at once: the space goes when the file is closed
                let _ = std::fs::remove_file(&name);
                break f;
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 1000 => attempt += 1,
            Err(e) => return Err(io_err(&e)),
        }
    };
    // a stream that does not decompress is what libpcp reports for a
    // volume its decompressor rejects
    io::copy(&mut input, &mut out).map_err(|_| LOGREC)?;
    Ok(out)
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
#[derive(Debug)]
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
    /// Decompressed volumes kept for reuse (at most [`KEEP_DECOMPRESSED`]).
    decompressed: Vec<(i32, Arc<VolData>)>,
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
            decompressed: Vec::new(),
            physend: -1,
            endtime: Ts::default(),
            label_start: Ts::default(),
            mark_done: false,
            check_features: true,
        }
    }

    /// Load the temporal index (`__pmLogLoadIndex`): every whole entry.
    pub fn load_index(&mut self) -> Result<(), PmError> {
        let Some(path) = find_file(&self.base, ".index") else { return Ok(()) };
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

    fn open_data(&mut self, vol: i32) -> Result<Arc<VolData>, PmError> {
        if let Some(i) = self.decompressed.iter().position(|(v, _)| *v == vol) {
            let entry = self.decompressed.remove(i);
            let data = Arc::clone(&entry.1);
            self.decompressed.insert(0, entry);
            return Ok(data);
        }
        let path = find_file(&self.base, &format!(".{vol}")).ok_or(PmError::from_errno(2))?;
        if compression_of(&path.to_string_lossy()) == Compression::None {
            let file = File::open(&path).map_err(|e| io_err(&e))?;
            let size = file.metadata().map_err(|e| io_err(&e))?.len();
            return Ok(Arc::new(VolData { file, size }));
        }
        let file = decompress(&path)?;
        let size = file.metadata().map_err(|e| io_err(&e))?.len();
        let data = Arc::new(VolData { file, size });
        self.decompressed.insert(0, (vol, Arc::clone(&data)));
        self.decompressed.truncate(KEEP_DECOMPRESSED);
        Ok(data)
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
        let (peek, eof) = f.read(8)?;
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
        let (rest, _) = f.read(want as usize - 12)?;
        if rest.len() != want as usize - 12 {
            return Err(PmError::PM_ERR_LABEL);
        }
        let (trail, _) = f.read(4)?;
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

    /// `__pmLogChangeVol`. On failure the old volume is closed all the
    /// same, and `curvol` still names it, as in libpcp.
    pub fn change_vol(&mut self, vol: i32) -> Result<Option<Ts>, PmError> {
        if self.curvol == vol {
            return Ok(None);
        }
        self.mfp = None;
        let data = self.open_data(vol)?;
        self.mfp = Some(Cursor::new(data));
        let start = self.chk_label(Which::Mfp, vol)?;
        self.curvol = vol;
        if let Some(t) = start {
            self.label_start = t;
        }
        Ok(start)
    }

    /// `_logpeek`: open volume `vol` on the side, label checked.
    pub fn open_peek(&mut self, vol: i32) -> bool {
        self.peek = None;
        let Ok(data) = self.open_data(vol) else { return false };
        self.peek = Some(Cursor::new(data));
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
    pub fn read(&mut self, dir: Dir, w: Which, paranoid: bool) -> Result<LogResult, PmError> {
        let label_size = self.label_size;
        let version = self.version;
        let Some(f) = self.cursor(w) else { return Err(PmError::from_errno(9)) };
        let mut offset = f.tell();
        if dir == Dir::Back {
            loop {
                if offset > label_size {
                    if let Some(f) = self.cursor(w) {
                        f.seek_cur(-4);
                    }
                    break;
                }
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
            let eof = match f.read_word()? {
                Ok(word) => break word as i32,
                Err(eof) => eof,
            };
            if !eof {
                return Err(LOGREC);
            }
            // end of this volume: on to the next one, if any
            f.seek_set(offset);
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
        let Some(f) = self.cursor(w) else { return Err(PmError::from_errno(9)) };
        let rlen = head.wrapping_sub(8);
        if rlen < 0 || (dir == Dir::Back && rlen as i64 > offset) {
            return Err(LOGREC);
        }
        let rlen = rlen as usize;
        if dir == Dir::Back {
            f.seek_cur(-(4 + rlen as i64));
        }
        // libpcp's buffer: a 3-word PDU header, then the record
        let mut pdu = vec![0u8; 12];
        f.read_append(rlen, &mut pdu)?;
        if pdu.len() != 12 + rlen {
            f.seek_set(offset);
            return Err(LOGREC);
        }
        if dir == Dir::Back {
            f.seek_cur(-(rlen as i64 + 4));
        }
        let Ok(trail) = f.read_word()? else {
            f.seek_set(offset);
            return Err(LOGREC);
        };
        if trail != head as u32 {
            return Err(LOGREC);
        }
        if paranoid && !paranoid_check(&pdu[12..], version) {
            return Err(LOGREC);
        }
        if dir == Dir::Back {
            f.seek_cur(-4);
        }
        decode_pdu(pdu, version).map_err(|_| LOGREC)
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

/// Swap an event array's fields to host order in place, as libpcp's
/// `ntohEventArray` does; never past `end`.
fn swap_event_array(buf: &mut [u8], at: usize, end: usize, highres: bool) {
    let swap4 = |b: &mut [u8], i: usize| -> Option<u32> {
        let w = b.get_mut(i..i + 4).filter(|_| i + 4 <= end)?;
        w.reverse();
        Some(u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
    };
    let swap8 = |b: &mut [u8], i: usize| {
        if i + 8 <= end {
            if let Some(w) = b.get_mut(i..i + 8) {
                w.reverse();
            }
        }
    };
    let Some(nrecords) = swap4(buf, at + 4) else { return };
    let mut base = at + 8;
    for _ in 0..nrecords as i32 {
        if base >= end {
            return;
        }
        let (flags, nparams) = if highres {
            swap8(buf, base);
            swap8(buf, base + 8);
            let Some(flags) = swap4(buf, base + 16) else { return };
            let Some(np) = swap4(buf, base + 20) else { return };
            base += 24;
            (flags, np as i32)
        } else {
            swap4(buf, base);
            swap4(buf, base + 4);
            let Some(flags) = swap4(buf, base + 8) else { return };
            let Some(np) = swap4(buf, base + 12) else { return };
            base += 16;
            (flags, np as i32)
        };
        let nparams = if flags & 0x8000_0000 != 0 { 0 } else { nparams };
        for _ in 0..nparams {
            if base >= end {
                return;
            }
            swap4(buf, base);
            let Some(tl) = swap4(buf, base + 4) else { return };
            let (ty, len) = (tl >> 24, (tl & 0x00ff_ffff) as usize);
            match ty {
                0 | 1 | 4 => {
                    swap4(buf, base + 8);
                }
                2 | 3 | 5 => swap8(buf, base + 8),
                _ => {}
            }
            base += 4 + ((len + 3) & !3);
        }
    }
}

/// Decode a data volume record as libpcp's `__pmDecodeResult` does, with
/// all of its layout checks: value blocks must follow the value lists
/// exactly and fill the rest of the record. Any failure is an error
/// (`__pmLogRead` reports `PM_ERR_LOGREC`).
#[cfg(test)]
pub(crate) fn decode(payload: Vec<u8>, version: Version) -> Result<LogResult, PmError> {
    let mut pdu = vec![0u8; 12];
    pdu.extend_from_slice(&payload);
    decode_pdu(pdu, version)
}

/// [`decode`] on libpcp's buffer: 12 bytes of PDU header, then the record.
fn decode_pdu(mut buf: Vec<u8>, version: Version) -> Result<LogResult, PmError> {
    const IPC: PmError = PmError::PM_ERR_IPC;
    let pdulen = buf.len() as i64;
    let word =
        |b: &[u8], at: i64| -> Option<i32> { usize::try_from(at).ok().and_then(|a| be32(b, a)).map(|v| v as i32) };
    let (bytes, ts) = match version {
        Version::V2 => {
            if pdulen < 24 {
                return Err(IPC);
            }
            let sec = word(&buf, 12).ok_or(IPC)? as i64;
            let usec = word(&buf, 16).ok_or(IPC)?;
            (24i64, Ts { sec, nsec: usec.wrapping_mul(1000) })
        }
        Version::V3 => {
            if pdulen < 28 {
                return Err(IPC);
            }
            let low = word(&buf, 12).ok_or(IPC)? as u32 as u64;
            let high = word(&buf, 16).ok_or(IPC)? as u32 as u64;
            (28, Ts { sec: (high << 32 | low) as i64, nsec: word(&buf, 20).ok_or(IPC)? })
        }
    };
    let numpmid = word(&buf, bytes - 4).ok_or(IPC)?;
    if numpmid < 0 || numpmid as i64 > pdulen || numpmid >= 268_435_451 {
        return Err(IPC);
    }
    // first pass: check the layout, swapping value block headers (and
    // numeric payloads) to host order as libpcp does, in place
    let (mut vsize, mut vbsize, mut vsplit) = (0i64, 0i64, pdulen);
    for _ in 0..numpmid {
        let vlp = bytes + vsize;
        let rem = pdulen - vlp;
        if rem < 8 {
            return Err(IPC);
        }
        vsize += 8;
        let numval = word(&buf, vlp + 4).ok_or(IPC)?;
        if numval as i64 > pdulen {
            return Err(IPC);
        }
        if numval <= 0 {
            continue;
        }
        if rem < 12 || numval >= 268_435_453 {
            return Err(IPC);
        }
        let valfmt = word(&buf, vlp + 8).ok_or(IPC)?;
        vsize += 4 + numval as i64 * 8;
        if valfmt == 0 {
            continue;
        }
        for j in 0..numval as i64 {
            let pduvp = vlp + 12 + 8 * j;
            if pdulen - pduvp < 8 {
                return Err(IPC);
            }
            let vindex = word(&buf, pduvp + 4).ok_or(IPC)?;
            if vindex < 0 || vindex as i64 > pdulen {
                return Err(IPC);
            }
            let boff = vindex as i64 * 4;
            vsplit = vsplit.min(boff);
            if pdulen - boff < 4 {
                return Err(IPC);
            }
            let b = boff as usize;
            buf[b..b + 4].reverse();
            let hdr = u32::from_le_bytes([buf[b], buf[b + 1], buf[b + 2], buf[b + 3]]);
            let (vtype, vlen) = (hdr >> 24, (hdr & 0x00ff_ffff) as i64);
            let end = buf.len();
            match vtype {
                2 | 3 | 5 if b + 12 <= end => buf[b + 4..b + 12].reverse(),
                4 if b + 8 <= end => buf[b + 4..b + 8].reverse(),
                9 | 10 => swap_event_array(&mut buf, b, end, vtype == 10),
                _ => {}
            }
            if vlen < 4 || vlen > pdulen || vlen > pdulen - boff {
                return Err(IPC);
            }
            vbsize += (vlen + 3) & !3;
        }
    }
    let offset = bytes + vsize;
    if vsize > i32::MAX as i64 / 4 || vbsize > i32::MAX as i64 / 8 || offset != vsplit || offset + vbsize != pdulen {
        return Err(IPC);
    }
    // second pass: build the value sets
    let mut sets = Vec::with_capacity(numpmid as usize);
    let mut vsize = 0i64;
    for _ in 0..numpmid {
        let vlp = bytes + vsize;
        let pmid = word(&buf, vlp).ok_or(IPC)? as u32;
        let numval = word(&buf, vlp + 4).ok_or(IPC)?;
        vsize += 8;
        if numval <= 0 {
            sets.push(LogSet { pmid, numval, valfmt: 0, vals: Vec::new() });
            continue;
        }
        let valfmt = word(&buf, vlp + 8).ok_or(IPC)?;
        vsize += 4 + numval as i64 * 8;
        let mut vals = Vec::with_capacity(numval as usize);
        for j in 0..numval as i64 {
            let at = vlp + 12 + 8 * j;
            let inst = word(&buf, at).ok_or(IPC)?;
            let lval = word(&buf, at + 4).ok_or(IPC)?;
            let value = match valfmt {
                0 => Value::Insitu(lval),
                1 | 2 => {
                    let b = lval as usize * 4;
                    let h = buf.get(b..b + 4).ok_or(IPC)?;
                    let hdr = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
                    let vlen = (hdr & 0x00ff_ffff) as usize;
                    let data_end = (b + vlen.max(4)).min(buf.len());
                    Value::Block(ValueBlock::new((hdr >> 24) as u8, buf[b + 4..data_end].to_vec()))
                }
                _ => return Err(IPC),
            };
            vals.push(InstValue { inst, value });
        }
        sets.push(LogSet { pmid, numval, valfmt, vals });
    }
    Ok(LogResult { ts, sets })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec_v2(body: &[u32]) -> Vec<u8> {
        body.iter().flat_map(|w| w.to_be_bytes()).collect()
    }

    #[test]
    fn decodes_insitu_and_blocks() {
        // ts 5.000007, 2 pmids: one insitu value, one 64-bit block
        let r = rec_v2(&[5, 7, 2, 0x100, 1, 0, 3, 42, 0x200, 1, 1, 9, 16, 0x0200_000c, 0, 77]);
        let res = decode(r, Version::V2).unwrap();
        assert_eq!(res.ts, Ts { sec: 5, nsec: 7000 });
        assert_eq!(res.sets[0].vals[0], InstValue { inst: 3, value: Value::Insitu(42) });
        let Value::Block(b) = &res.sets[1].vals[0].value else { panic!() };
        assert_eq!((b.vtype, &b.data[..]), (2, &77u64.to_le_bytes()[..]));
    }

    #[test]
    fn refuses_loose_layouts() {
        // a value block that does not start right after the value lists
        let r = rec_v2(&[5, 7, 1, 0x200, 1, 1, 9, 12, 0, 0x0200_000c, 0, 77]);
        assert!(decode(r, Version::V2).is_err());
        // trailing bytes after the last value list
        let r = rec_v2(&[5, 7, 1, 0x100, 1, 0, 3, 42, 0]);
        assert!(decode(r, Version::V2).is_err());
        // a mark is exactly timestamp and a zero count
        assert!(decode(rec_v2(&[5, 7, 0]), Version::V2).is_ok());
        assert!(decode(rec_v2(&[5, 7, 0, 0]), Version::V2).is_err());
    }
}
