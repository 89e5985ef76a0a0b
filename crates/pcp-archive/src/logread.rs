//! Reading an archive's data volumes record by record, forwards and
//! backwards, as libpcp's `__pmLogRead` does: one current volume with a file
//! position, volume switching at either end, the checks a record must pass,
//! and the file positions left behind on every error (replay depends on
//! them, so damaged archives behave as they do under libpcp).
//!
//! Plain volumes are read on demand through windows; compressed volumes
//! are decompressed into memory a piece at a time, on a thread of their
//! own a few pieces ahead of reading (libpcp decompresses a whole `.xz`
//! block, and `gzip`/`bzip2` volumes into a temporary file), keeping only
//! the pieces reading is likely to come back to. Reading forwards through
//! `.xz` volumes, the next one is decompressed alongside the current one
//! (see [`AHEAD`]), and the first volume of a lone archive starts as the
//! archive opens ([`Early`]). A record is checked as it is read but its
//! values stay in the bytes read until asked for ([`Record`]), so reading
//! through an archive for a few metrics costs little more than the
//! reading.

use crate::files::{compression_of, find_file, Compression};
use crate::raw::{paranoid_check, Version};
use pcp_core::{InstValue, PmError, Value, ValueBlock};
use std::collections::HashSet;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

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
/// The least a plain volume is read in at a time.
const WINDOW: usize = 1 << 17;
/// The least of a plain volume mapped at a time ([`crate::mapped`]).
const MAP_WINDOW: usize = 1 << 20;
/// How many windows a cursor keeps for reuse (records still held by the
/// interpolation cache keep theirs busy).
const SPARE_WINDOWS: usize = 4;
/// Compressed volumes are decompressed into memory in pieces of this size.
const CHUNK: usize = 1 << 20;
/// How many pieces before the one being read are kept (reading goes back
/// a few records now and then); more are kept once reading has gone back
/// further than that twice.
const BEHIND: usize = 3;
/// How many pieces a volume's decompression (on a thread of its own) may
/// run ahead of reading. Reading forwards, the next `.xz` volume starts
/// decompressing once reading has caught up with the current one, so at
/// most about this many pieces wait at once: over `20180416.10.00` (100 MB
/// volumes), 32 makes pmval 1.3x faster for about 60 MB more memory (both
/// decompressors' dictionaries and the pieces waiting); 48 was no faster
/// by median, and 12 clearly slower.
const AHEAD: usize = 32;
/// A compressed volume up to this size is kept whole once decompressed.
const KEEP_WHOLE: u64 = 8 << 20;
/// How many compressed volumes to keep (in part, see [`Inflate::trim`]; the
/// decompressor only of the one used last): interpolation moves back and
/// forth across volume boundaries, and the last volume is visited for the
/// archive's end.
const KEEP_DECOMPRESSED: usize = 4;

fn be32(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4).map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
}

fn io_err(e: &io::Error) -> PmError {
    PmError::from_errno(e.raw_os_error().unwrap_or(5))
}

/// A window of a volume: bytes read into memory (or decompressed), or
/// mapped from a plain file ([`crate::mapped`]).
#[derive(Clone, Debug)]
enum Buf {
    Heap(Arc<Vec<u8>>),
    Mapped(Arc<crate::mapped::Mapped>),
}

impl Buf {
    fn empty() -> Buf {
        Buf::Heap(Arc::new(Vec::new()))
    }

    fn as_slice(&self) -> &[u8] {
        match self {
            Buf::Heap(v) => v,
            Buf::Mapped(m) => m.as_slice(),
        }
    }

    /// The same window (not merely the same bytes)?
    fn same(&self, other: &Buf) -> bool {
        match (self, other) {
            (Buf::Heap(a), Buf::Heap(b)) => Arc::ptr_eq(a, b),
            (Buf::Mapped(a), Buf::Mapped(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// Bytes shared with the buffer they were read into: a record refers to
/// the window (or decompressed piece) it was read from instead of copying.
#[derive(Clone, Debug)]
pub(crate) struct Bytes {
    buf: Buf,
    start: usize,
    len: usize,
}

impl Bytes {
    fn heap(v: Vec<u8>, start: usize) -> Bytes {
        let len = v.len().saturating_sub(start);
        Bytes { buf: Buf::Heap(Arc::new(v)), start, len }
    }

    pub fn as_slice(&self) -> &[u8] {
        self.buf.as_slice().get(self.start..self.start + self.len).unwrap_or_default()
    }

    pub fn len(&self) -> usize {
        self.len
    }
}

/// A compressed volume, decompressed as reading reaches it, one piece at a
/// time. Only the first piece and those just before the one last asked
/// for are kept, so reading through a volume takes little memory; a piece
/// wanted again after it was dropped is decompressed again, from the start
/// (and from the second time on, every piece is kept, as libpcp keeps a
/// whole `.xz` block).
struct Inflate {
    path: PathBuf,
    /// The decompressor, and how far it has got.
    input: Option<crate::files::Chunks>,
    done: u64,
    /// The whole file has been decompressed.
    ended: bool,
    pieces: Vec<Option<Arc<Vec<u8>>>>,
    /// How many times pieces had to be decompressed again.
    again: u32,
    /// No bigger than [`KEEP_WHOLE`]: every piece is kept.
    small: bool,
    /// Dropped pieces to decompress into again.
    spare: Vec<Vec<u8>>,
    /// Where the last cursor on it stopped.
    last_pos: i64,
}

impl std::fmt::Debug for Inflate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inflate").field("path", &self.path).field("done", &self.done).finish_non_exhaustive()
    }
}

impl Inflate {
    fn new(path: PathBuf) -> Inflate {
        Inflate {
            path,
            input: None,
            done: 0,
            ended: false,
            pieces: Vec::new(),
            again: 0,
            small: false,
            spare: Vec::new(),
            last_pos: 0,
        }
    }

    /// Start decompressing (on a thread of its own), if not already
    /// started or finished.
    fn start(&mut self) -> Result<(), PmError> {
        if self.input.is_none() && !self.ended {
            let file = crate::files::open(&self.path).map_err(|e| io_err(&e))?;
            self.input = Some(crate::files::Chunks::spawn(file, CHUNK, AHEAD).map_err(|e| io_err(&e))?);
            self.done = 0;
        }
        Ok(())
    }

    /// Decompress the next piece; `false` at the end of the file.
    fn step(&mut self) -> Result<bool, PmError> {
        if self.ended {
            return Ok(false);
        }
        self.start()?;
        let Some(input) = self.input.as_ref() else { return Ok(false) };
        for old in self.spare.drain(..) {
            input.recycle(old);
        }
        let piece = match input.next() {
            Some(Ok(piece)) if piece.len() < CHUNK => match input.next() {
                // a read that fails gives what it had read before the error
                Some(Err(_)) => return Err(LOGREC),
                _ => piece,
            },
            Some(Ok(piece)) => piece,
            // a stream that does not decompress is what libpcp reports
            // for a volume its decompressor rejects
            Some(Err(_)) => return Err(LOGREC),
            None => Vec::new(),
        };
        let i = (self.done / CHUNK as u64) as usize;
        self.done += piece.len() as u64;
        if piece.len() < CHUNK {
            self.ended = true;
            self.input = None;
        }
        if piece.is_empty() {
            return Ok(false);
        }
        if self.pieces.len() <= i {
            self.pieces.resize(i + 1, None);
        }
        if self.pieces[i].is_none() {
            self.pieces[i] = Some(Arc::new(piece));
        }
        Ok(true)
    }

    /// Drop the pieces between the first and those just before `i`.
    fn forget_before(&mut self, i: usize) {
        if self.again < 2 && !self.small {
            let end = i.saturating_sub(BEHIND).min(self.pieces.len());
            for p in self.pieces.iter_mut().take(end).skip(1) {
                if let Some(Ok(v)) = p.take().map(Arc::try_unwrap) {
                    if self.spare.len() < 2 {
                        self.spare.push(v);
                    }
                }
            }
        }
    }

    /// Piece `i` (`None` past the end).
    fn piece(&mut self, i: usize) -> Result<Option<Arc<Vec<u8>>>, PmError> {
        if let Some(Some(p)) = self.pieces.get(i) {
            return Ok(Some(Arc::clone(p)));
        }
        if (i as u64) < self.done / CHUNK as u64 {
            // dropped: decompress again from the start
            self.again += 1;
            self.input = None;
            self.ended = false;
            self.done = 0;
        }
        while (self.done / CHUNK as u64) <= i as u64 {
            if !self.step()? {
                break;
            }
            self.forget_before(i);
        }
        Ok(self.pieces.get(i).cloned().flatten())
    }

    /// Decompress the whole file (keeping what [`Inflate::piece`] would)
    /// for its size.
    fn size(&mut self) -> Result<u64, PmError> {
        // everything is kept while the file may turn out small
        self.small = true;
        while self.step()? {
            self.small = self.done <= KEEP_WHOLE;
            let at = (self.done / CHUNK as u64) as usize;
            self.forget_before(at);
        }
        Ok(self.done)
    }

    /// Keep only the first and last pieces and those around where reading
    /// stopped (all of a small volume); with `decompressor`, keep that too.
    fn trim(&mut self, decompressor: bool) {
        if !decompressor {
            // (decompressing again starts from the beginning)
            self.input = None;
        }
        if self.small {
            return;
        }
        let n = self.pieces.len();
        let at = (self.last_pos.max(0) as u64 / CHUNK as u64) as usize;
        for (i, p) in self.pieces.iter_mut().enumerate() {
            if i != 0 && i + 1 != n && (i + 1 < at || i > at + 1) {
                *p = None;
            }
        }
    }
}

#[derive(Debug)]
enum Store {
    Plain(File),
    Inflated(Mutex<Inflate>),
}

/// A volume's bytes: a plain file, or a compressed one decompressed.
#[derive(Debug)]
struct VolData {
    store: Store,
    /// A plain file's windows are mapped where the system allows (not in
    /// tests of reading them).
    map: bool,
    size: u64,
    /// A plain file mapped whole ahead of reading ([`Premap`]), which
    /// every window is then taken from.
    whole: OnceLock<Whole>,
    /// Whether a thread has taken on mapping it whole.
    mapping: AtomicBool,
}

/// A volume mapped whole, and the checks of its records.
#[derive(Debug)]
struct Whole {
    map: Arc<crate::mapped::Mapped>,
    checks: Arc<VolumeChecks>,
}

/// The records of a volume mapped whole (its label first), and what
/// checking each with [`plain_layout`] found: checked by the reader as it
/// comes to them, or ahead of it, from the last back, by a thread with
/// nothing else to do ([`BackCheck`]). Only the verdict is kept: a record
/// found plain has its value lists found again by a walk that checks
/// nothing ([`plain_walk`]), which is a small part of the work.
#[derive(Debug)]
struct VolumeChecks {
    /// Where each record's length word is, in order, and where the last
    /// record ends.
    at: Vec<u32>,
    /// Each record's state: one of the four below.
    state: Vec<AtomicU8>,
    /// The record the reader came to last.
    reader_at: AtomicUsize,
    /// The format the volume's label gives (a reader expecting another
    /// takes no verdict from here).
    version: Option<Version>,
}

/// Not checked, nor being checked.
const UNCLAIMED: u8 = 0;
/// Being checked, by the reader or ahead of it.
const CLAIMED: u8 = 1;
/// Laid out plainly ([`plain_layout`]).
const PLAIN: u8 = 2;
/// Not laid out plainly: the reader looks at it more closely.
const NOT_PLAIN: u8 = 3;

impl VolumeChecks {
    fn new(volume: &[u8]) -> VolumeChecks {
        let at = crate::ahead::record_starts(volume);
        let state = (1..at.len()).map(|_| AtomicU8::new(UNCLAIMED)).collect();
        // (the label's second word: its magic number and the version)
        let version = match be32(volume, 4) {
            Some(w) if w & 0xffff_ff00 == PM_LOG_MAGIC && w & 0xff == 2 => Some(Version::V2),
            Some(w) if w & 0xffff_ff00 == PM_LOG_MAGIC && w & 0xff == 3 => Some(Version::V3),
            _ => None,
        };
        VolumeChecks { at, state, reader_at: AtomicUsize::new(0), version }
    }

    /// Checking these records from the last back ([`BackCheck`]), unless
    /// the label gives no format.
    fn back_check(self: &Arc<Self>, map: &Arc<crate::mapped::Mapped>) -> Option<BackCheck> {
        let (map, checks) = (Arc::clone(map), Arc::clone(self));
        let (next, version) = (checks.state.len(), self.version?);
        Some(BackCheck { next, map, checks, version, scratch: Vec::new(), reader_seen: 0 })
    }

    /// What [`plain_index`] finds of the record whose body is `body`, at
    /// `start` in the volume (`None` where no record has that body).
    fn layout(&self, start: usize, body: &[u8], version: Version) -> Option<Option<Vec<(u32, u32)>>> {
        let i = self.at.binary_search(&u32::try_from(start.checked_sub(4)?).ok()?).ok()?;
        let end = *self.at.get(i + 1)? as usize;
        if end - 4 != start + body.len() {
            return None;
        }
        if self.version != Some(version) {
            return Some(plain_index(body, version));
        }
        self.reader_at.store(i, Ordering::Relaxed);
        let state = &self.state[i];
        match state.load(Ordering::Acquire) {
            PLAIN => return Some(plain_walk(body, version)),
            NOT_PLAIN => return Some(None),
            // (being checked ahead: checked here too, with the same verdict)
            _ => {}
        }
        let _ = state.compare_exchange(UNCLAIMED, CLAIMED, Ordering::AcqRel, Ordering::Acquire);
        let found = plain_index(body, version);
        state.store(if found.is_some() { PLAIN } else { NOT_PLAIN }, Ordering::Release);
        Some(found)
    }
}

/// The value lists of a record [`plain_layout`] found plain (which this
/// does not check again): where each is, with its PMID.
fn plain_walk(body: &[u8], version: Version) -> Option<Vec<(u32, u32)>> {
    let (_, first, numpmid) = record_head(body, version).ok()?;
    let mut index = Vec::with_capacity(numpmid.min(body.len() / 8));
    let mut vlp = first - 12;
    for _ in 0..numpmid {
        let head = body.get(vlp..vlp + 8)?;
        index.push((be32(head, 0)?, vlp as u32));
        let numval = be32(head, 4)? as i32;
        vlp += if numval <= 0 { 8 } else { 12 + 8 * numval as usize };
    }
    Some(index)
}

/// The checks of the records in a cursor's window, when there are any.
#[derive(Clone, Debug)]
enum WinChecks {
    /// A window read ahead.
    Window(Arc<crate::ahead::Checks>),
    /// A volume mapped whole.
    Volume(Arc<VolumeChecks>),
}

/// The most of a plain volume mapped whole ahead of reading ([`Premap`]):
/// less than the least the read-ahead thread takes on
/// ([`Cursor::fill_ahead`]), so that the two never serve one volume.
const PREMAP_MOST: u64 = 8 * crate::ahead::WINDOW as u64 - 1;

/// The first data volume of an archive, plain and small enough, to be
/// mapped whole, its pages brought in, by a thread that has nothing else to
/// do before a replay starts reading it (a pcp-rs addition): pmval's
/// thread that opens the archive, once it has handed it over (while the
/// definitions are bound), or a thread of its own. The replay then maps no
/// window of its own once the volume is mapped, and windows it took before
/// stay as they are. Replaying the QA archive `20180102` (a 7 MB volume)
/// at `-t 10`, the thread that fetches ahead spent about 0.6 ms of its
/// 2.8 ms mapping windows and unmapping them again (BENCHMARKS.md). The
/// cost is memory: the volume's pages count in the process's resident
/// set for as long as the replay lasts.
#[derive(Debug)]
pub struct Premap(Arc<VolData>);

impl Premap {
    /// Checking the records of the volume from the last back
    /// ([`BackCheck`]), once it is mapped.
    pub fn back_check(&self) -> Option<BackCheck> {
        let whole = self.0.whole.get()?;
        whole.checks.back_check(&whole.map)
    }

    /// Map the volume, unless it has been already, another thread is at
    /// it, or it cannot be (windows are mapped or read as before, until it
    /// is).
    pub fn run(&self) {
        if let Store::Plain(file) = &self.0.store {
            // (once, by the first thread to come: a second goes on)
            if !self.0.mapping.swap(true, Ordering::AcqRel) {
                if let Some(m) = crate::mapped::map(file, 0, self.0.size as usize) {
                    m.touch_pages();
                    let checks = Arc::new(VolumeChecks::new(m.as_slice()));
                    let _ = self.0.whole.set(Whole { map: Arc::new(m), checks });
                }
            }
        }
    }
}

/// Checking the records of a first volume mapped whole ([`Premap`]) from
/// the last one back, ahead of a reader going forwards, until the two
/// meet: for a thread that would otherwise wait on the reader (a pcp-rs
/// addition). Each record is checked once, by whichever comes to it first
/// ([`VolumeChecks`]), and the reader takes the verdict found here.
#[derive(Debug)]
pub struct BackCheck {
    map: Arc<crate::mapped::Mapped>,
    checks: Arc<VolumeChecks>,
    /// The record checked last (the label is record 0).
    next: usize,
    version: Version,
    /// [`plain_layout`]'s index, kept for the next record.
    scratch: Vec<(u32, u32)>,
    /// The record the reader had come to when last asked.
    reader_seen: usize,
}

impl BackCheck {
    /// Has the reader come to another record since the last time this was
    /// asked? (A reader that does not while records are checked here is
    /// most likely waiting for the CPU this runs on.)
    pub fn reader_moved(&mut self) -> bool {
        let at = self.checks.reader_at.load(Ordering::Relaxed);
        std::mem::replace(&mut self.reader_seen, at) != at
    }

    /// Check the last record before the one checked last that no one has
    /// come to (records read out of order, as the last ones are for the
    /// archive's end, are passed over): `false` once there is none.
    pub fn step(&mut self) -> bool {
        let checks = &self.checks;
        let i = loop {
            if self.next <= 1 {
                return false;
            }
            self.next -= 1;
            let state = &checks.state[self.next];
            if state.compare_exchange(UNCLAIMED, CLAIMED, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                break self.next;
            }
        };
        let volume = self.map.as_slice();
        let body = volume.get(checks.at[i] as usize + 4..checks.at[i + 1] as usize - 4).unwrap_or_default();
        let plain = record_head(body, self.version)
            .is_ok_and(|(_, first, numpmid)| plain_layout(body, first, numpmid, &mut self.scratch));
        checks.state[i].store(if plain { PLAIN } else { NOT_PLAIN }, Ordering::Release);
        true
    }
}

impl VolData {
    /// Let go of the pages of the volume mapped whole, if it is
    /// ([`crate::mapped::Mapped::release_pages`]).
    fn release_pages(&self) {
        if let Some(whole) = self.whole.get() {
            whole.map.release_pages();
        }
    }

    /// An open plain volume of `size` bytes.
    fn plain(file: File, size: u64) -> VolData {
        VolData { store: Store::Plain(file), map: true, size, whole: OnceLock::new(), mapping: AtomicBool::new(false) }
    }

    /// Open the plain volume at `path`.
    fn open_plain(path: &Path) -> io::Result<VolData> {
        let file = File::open(path)?;
        let size = file.metadata()?.len();
        Ok(VolData::plain(file, size))
    }

    /// Open a compressed volume: its size is read from an `.xz` file's
    /// index, otherwise it is decompressed once to count.
    fn inflated(path: PathBuf) -> Result<VolData, PmError> {
        match crate::files::indexed_size(&path) {
            Some(n) => Ok(VolData::sized(path, n)),
            None => {
                let mut inflate = Inflate::new(path);
                let size = inflate.size()?;
                Ok(VolData {
                    store: Store::Inflated(Mutex::new(inflate)),
                    map: false,
                    size,
                    whole: OnceLock::new(),
                    mapping: AtomicBool::new(false),
                })
            }
        }
    }

    /// A compressed volume whose size is known: `None` unless it is an
    /// `.xz` file, whose index gives it without decompressing.
    fn indexed(path: PathBuf) -> Option<VolData> {
        let n = crate::files::indexed_size(&path)?;
        Some(VolData::sized(path, n))
    }

    fn sized(path: PathBuf, size: u64) -> VolData {
        let mut inflate = Inflate::new(path);
        inflate.small = size <= KEEP_WHOLE;
        VolData {
            store: Store::Inflated(Mutex::new(inflate)),
            map: false,
            size,
            whole: OnceLock::new(),
            mapping: AtomicBool::new(false),
        }
    }

    fn piece(&self, i: usize) -> Result<Option<Arc<Vec<u8>>>, PmError> {
        let Store::Inflated(m) = &self.store else { return Ok(None) };
        m.lock().map_err(|_| PmError::from_errno(5))?.piece(i)
    }

    /// How far decompression running ahead has got (0 if not running).
    fn made(&self) -> u64 {
        let Store::Inflated(m) = &self.store else { return 0 };
        m.lock().ok().and_then(|m| m.input.as_ref().map(crate::files::Chunks::made)).unwrap_or(0)
    }

    /// Start decompressing a compressed volume ahead of reading.
    fn start(&self) {
        if let Store::Inflated(m) = &self.store {
            if let Ok(mut m) = m.lock() {
                // (an error shows again where reading reaches it)
                let _ = m.start();
            }
        }
    }

    fn trim(&self, decompressor: bool) {
        if let Store::Inflated(m) = &self.store {
            if let Ok(mut m) = m.lock() {
                m.trim(decompressor);
            }
        }
    }
}

/// The first data volume, opened with the archive for a reader that will
/// replay it ([`crate::Archive::open_early`]): an `.xz` file decompressing
/// since, or a plain file small enough to be mapped whole ([`Premap`]).
#[derive(Debug)]
pub(crate) struct Early {
    vol: i32,
    data: Arc<VolData>,
}

impl Early {
    /// Open volume `vol` of `base` early, if it is an `.xz` file (whose
    /// size its index gives without decompressing it: it starts
    /// decompressing now) or a plain file of at most [`PREMAP_MOST`]
    /// bytes.
    pub fn start(base: &Path, vol: u32) -> Option<Early> {
        let vol = i32::try_from(vol).ok()?;
        let path = find_file(base, &format!(".{vol}"))?;
        if compression_of(&path.to_string_lossy()) == Compression::None {
            let data = VolData::open_plain(&path).ok()?;
            return (data.size <= PREMAP_MOST).then(|| Early { vol, data: Arc::new(data) });
        }
        let data = VolData::indexed(path)?;
        data.start();
        Some(Early { vol, data: Arc::new(data) })
    }

    /// The volume to map whole, if it is a plain one.
    pub fn premap(&self) -> Option<Premap> {
        matches!(self.data.store, Store::Plain(_)).then(|| Premap(Arc::clone(&self.data)))
    }
}

/// An open volume with a stdio-like position (`__pmFILE`).
#[derive(Debug)]
pub(crate) struct Cursor {
    data: Arc<VolData>,
    /// The archive's format, which the records read ahead are checked for.
    version: Version,
    pos: i64,
    /// The bytes at `win_off..win_off + win_len` of the volume: a window
    /// mapped or read from a plain file, or a piece of a decompressed one.
    win: Buf,
    win_off: u64,
    win_len: usize,
    /// Windows to read a plain file into again (reused once no record
    /// refers to them).
    spare: Vec<Arc<Vec<u8>>>,
    /// A plain file read ahead, once reading goes on forwards through it.
    ahead: Option<crate::ahead::Ahead>,
    /// The checks of the records in the window, when it was read ahead.
    win_checks: Option<WinChecks>,
    /// How many windows running on from the one before were filled.
    onwards: u32,
    /// Where a record starts, reading forwards ([`Cursor::record_here`]).
    record_at: Option<u64>,
}

/// A second cursor on the same volume at the same place, with the window
/// read; nothing is read ahead for it (see [`Cursor::carry_ahead`]).
impl Clone for Cursor {
    fn clone(&self) -> Cursor {
        Cursor {
            data: Arc::clone(&self.data),
            version: self.version,
            pos: self.pos,
            win: self.win.clone(),
            win_off: self.win_off,
            win_len: self.win_len,
            spare: Vec::new(),
            ahead: None,
            win_checks: self.win_checks.clone(),
            onwards: self.onwards,
            record_at: self.record_at,
        }
    }
}

impl Drop for Cursor {
    fn drop(&mut self) {
        if let Store::Inflated(m) = &self.data.store {
            if let Ok(mut m) = m.lock() {
                m.last_pos = self.pos;
            }
        }
    }
}

impl Cursor {
    fn new(data: Arc<VolData>, version: Version) -> Cursor {
        Cursor {
            data,
            version,
            pos: 0,
            win: Buf::empty(),
            win_off: 0,
            win_len: 0,
            spare: Vec::new(),
            ahead: None,
            win_checks: None,
            onwards: 0,
            record_at: None,
        }
    }

    /// Move the reading ahead, and the room for windows, to `to` (a clone
    /// of this cursor that reads on while this one waits).
    fn carry_ahead(&mut self, to: &mut Cursor) {
        to.spare = std::mem::take(&mut self.spare);
        to.ahead = self.ahead.take();
    }

    /// Is this volume being read ahead ([`Cursor::fill_ahead`])?
    pub fn reading_ahead(&self) -> bool {
        self.ahead.is_some()
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

    /// Make `len` bytes at `off` (all within the volume) part of the
    /// window; going `backwards`, a new window ends with them.
    fn fill(&mut self, off: u64, len: usize, backwards: bool) -> Result<(), PmError> {
        if let Some(whole) = self.data.whole.get().filter(|w| off + len as u64 <= w.map.as_slice().len() as u64) {
            // mapped whole ahead of reading ([`Premap`])
            self.win_checks = Some(WinChecks::Volume(Arc::clone(&whole.checks)));
            let whole = Buf::Mapped(Arc::clone(&whole.map));
            self.win_len = whole.as_slice().len();
            self.replace_window(whole);
            self.spare.truncate(SPARE_WINDOWS);
            self.win_off = 0;
            return Ok(());
        }
        if !backwards && self.fill_ahead(off, len) {
            return Ok(());
        }
        self.win_checks = None;
        // (a handle of its own, for the window to change while the file is
        // borrowed)
        let data = Arc::clone(&self.data);
        match &data.store {
            Store::Plain(file) => {
                // mapped, where the system will map it (going backwards,
                // as for the archive's end, a few records are read)
                let span = if backwards { WINDOW } else { MAP_WINDOW };
                let start = if backwards && len <= span { (off + len as u64).saturating_sub(span as u64) } else { off };
                let want = (data.size - start).min(span.max(len + 8) as u64) as usize;
                let mapped = if data.map { crate::mapped::map(file, start, want) } else { None };
                if let Some(m) = mapped {
                    self.replace_window(Buf::Mapped(Arc::new(m)));
                    self.spare.truncate(SPARE_WINDOWS);
                    self.win_off = start;
                    self.win_len = want;
                    return Ok(());
                }
                let start =
                    if backwards && len <= WINDOW { (off + len as u64).saturating_sub(WINDOW as u64) } else { off };
                // going forwards, a record is read on its own, with the
                // length of the next one: it keeps its window to itself
                let span = if !backwards && len > WINDOW / 4 { len + 8 } else { WINDOW.max(len) };
                let want = (data.size - start).min(span as u64) as usize;
                // going on forwards, the old window may hold the start of
                // the new one (a record it cut short)
                let old_end = self.win_off + self.win_len as u64;
                let kept = if self.replace_window(Buf::empty()) && start >= self.win_off && start < old_end {
                    (start - self.win_off) as usize..self.win_len.min((start - self.win_off) as usize + want)
                } else {
                    0..0
                };
                // a window no record refers to any more (the old one
                // first), or a new one
                let reuse = self.spare.iter().position(|w| Arc::strong_count(w) == 1);
                let mut buf = match reuse {
                    Some(i) => self.spare.remove(i),
                    None => Arc::new(Vec::new()),
                };
                let Some(b) = Arc::get_mut(&mut buf) else { return Err(PmError::from_errno(5)) };
                if b.len() < want {
                    b.resize(want, 0);
                }
                let mut got = kept.len();
                if got > 0 {
                    if reuse == Some(0) {
                        b.copy_within(kept, 0);
                    } else if let Some(old) = self.spare.first().and_then(|o| o.get(kept)) {
                        b[..got].copy_from_slice(old);
                    } else {
                        got = 0;
                    }
                }
                self.spare.truncate(SPARE_WINDOWS);
                let mut f = file;
                f.seek(SeekFrom::Start(start + got as u64)).map_err(|e| io_err(&e))?;
                while got < want {
                    match f.read(&mut b[got..want]) {
                        Ok(0) => break,
                        Ok(n) => got += n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(io_err(&e)),
                    }
                }
                self.win = Buf::Heap(buf);
                self.win_off = start;
                self.win_len = got;
            }
            Store::Inflated(_) => {
                let i = (off / CHUNK as u64) as usize;
                let piece = data.piece(i)?.ok_or(PmError::from_errno(5))?;
                let piece_off = i as u64 * CHUNK as u64;
                if off + len as u64 <= piece_off + piece.len() as u64 {
                    self.win_len = piece.len();
                    self.win = Buf::Heap(piece);
                    self.win_off = piece_off;
                } else {
                    // across pieces: a copy of just these bytes
                    let mut out = Vec::with_capacity(len);
                    let mut at = off;
                    let mut piece = piece;
                    let mut piece_off = piece_off;
                    while out.len() < len {
                        let from = (at - piece_off) as usize;
                        let take = (len - out.len()).min(piece.len().saturating_sub(from));
                        if take == 0 {
                            return Err(PmError::from_errno(5));
                        }
                        out.extend_from_slice(&piece[from..from + take]);
                        at += take as u64;
                        if out.len() < len {
                            let i = (at / CHUNK as u64) as usize;
                            piece = data.piece(i)?.ok_or(PmError::from_errno(5))?;
                            piece_off = i as u64 * CHUNK as u64;
                        }
                    }
                    self.win_len = out.len();
                    self.win = Buf::Heap(Arc::new(out));
                    self.win_off = off;
                }
            }
        }
        Ok(())
    }

    /// Make `new` the window: the old one, if it was read into memory,
    /// goes first among the spares (to be read into again once no record
    /// refers to it). Whether it was.
    fn replace_window(&mut self, new: Buf) -> bool {
        match std::mem::replace(&mut self.win, new) {
            Buf::Heap(old) => {
                self.spare.insert(0, old);
                true
            }
            Buf::Mapped(_) => false,
        }
    }

    /// Reading forwards, a record starts at the position (its length
    /// word is read next): where reading ahead may start.
    pub fn record_here(&mut self) {
        self.record_at = Some(self.pos as u64);
    }

    /// [`Cursor::fill`] from a plain file read ahead: started at a record
    /// once two windows in a row ran on from the one before (and much of
    /// the file is left), and again where reading jumped ahead of it.
    /// `false` where reading went back before it, the window it read does
    /// not hold the bytes whole (or the file is not plain).
    fn fill_ahead(&mut self, off: u64, len: usize) -> bool {
        use crate::ahead::{Ahead, WINDOW};
        let data = Arc::clone(&self.data);
        let Store::Plain(file) = &data.store else { return false };
        let runs_on = self.win_len > 0 && off >= self.win_off && off <= self.win_off + self.win_len as u64;
        self.onwards = if runs_on { self.onwards.saturating_add(1) } else { 0 };
        let record = self.record_at.take().filter(|&r| r <= off && off <= r + 4);
        if self.ahead.as_ref().is_none_or(|a| off > a.from() + 2 * WINDOW as u64) {
            self.ahead = None;
            let Some(from) = record else { return false };
            if self.onwards < 2 || data.size - from < 8 * WINDOW as u64 {
                return false;
            }
            // (no thread to be had: read as before)
            let version = self.version;
            self.ahead = Ahead::start(file, from, data.size, Box::new(move |body| plain_index(body, version))).ok();
        }
        let Some((at, window, checks)) = self.ahead.as_mut().and_then(|a| a.get(off, len)) else { return false };
        self.win_len = window.as_slice().len();
        self.replace_window(Buf::Mapped(window));
        self.win_off = at;
        self.win_checks = Some(WinChecks::Window(checks));
        true
    }

    /// A record body read by [`Cursor::view`] from a window read ahead:
    /// where its value lists are, as [`plain_index`] finds them (on the
    /// thread reading ahead, most often). `None` where the body did not
    /// come from such a window, or the record is not laid out plainly.
    fn plain_layout_of(&self, body: &Bytes) -> Option<Vec<(u32, u32)>> {
        let checks = self.win_checks.as_ref().filter(|_| body.buf.same(&self.win))?;
        let version = self.version;
        match checks {
            WinChecks::Window(c) => c.layout(body.start, body.as_slice(), |b| plain_index(b, version))?,
            WinChecks::Volume(c) => c.layout(body.start, body.as_slice(), version)?,
        }
    }

    /// `fread` without the copy: up to `n` bytes from the position (fewer
    /// at the end of the file), and whether the end was hit.
    pub fn view(&mut self, n: usize) -> Result<(Bytes, bool), PmError> {
        let size = self.data.size as i64;
        if self.pos >= size {
            return Ok((Bytes { buf: self.win.clone(), start: 0, len: 0 }, n > 0));
        }
        let take = ((size - self.pos) as u64).min(n as u64) as usize;
        let off = self.pos as u64;
        let in_window = off >= self.win_off && off + take as u64 <= self.win_off + self.win_len as u64;
        if !in_window {
            let backwards = off < self.win_off;
            self.fill(off, take, backwards)?;
        }
        let start = (off - self.win_off) as usize;
        if start + take > self.win_len.min(self.win.as_slice().len()) {
            return Err(PmError::from_errno(5));
        }
        self.pos += take as i64;
        Ok((Bytes { buf: self.win.clone(), start, len: take }, take < n))
    }

    /// `fread`: up to `n` bytes from the position (fewer at the end of the
    /// file), and whether the end was hit.
    pub fn read(&mut self, n: usize) -> Result<(Vec<u8>, bool), PmError> {
        let (b, eof) = self.view(n)?;
        Ok((b.as_slice().to_vec(), eof))
    }

    /// A 4-byte word at the position, big-endian, or how many bytes there
    /// were and whether the end was hit.
    fn read_word(&mut self) -> Result<Result<u32, bool>, PmError> {
        let (b, eof) = self.view(4)?;
        Ok(be32(b.as_slice(), 0).ok_or(eof))
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
    /// Where in the current volume, read forwards, to start decompressing
    /// the next one ([`Log::open_ahead`]).
    ahead_at: Option<i64>,
    /// Decompressed volumes kept for reuse (at most [`KEEP_DECOMPRESSED`],
    /// most recently used first), and a first plain volume opened with the
    /// archive ([`Early`]).
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
    /// Checking the records of the open volume from the last back, when it
    /// is mapped whole ([`BackCheck`]).
    pub fn back_check(&self) -> Option<BackCheck> {
        let whole = self.mfp.as_ref()?.data.whole.get()?;
        whole.checks.back_check(&whole.map)
    }

    /// Let go of the pages of the volumes mapped whole ([`Premap`]) that
    /// this log holds: reading them again reads the file again.
    pub fn release_mapped_pages(&self) {
        for (_, data) in &self.decompressed {
            data.release_pages();
        }
        if let Some(cursor) = &self.mfp {
            cursor.data.release_pages();
        }
    }

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
            ahead_at: None,
            decompressed: Vec::new(),
            physend: -1,
            endtime: Ts::default(),
            label_start: Ts::default(),
            mark_done: false,
            check_features: true,
        }
    }

    /// Move what reads ahead to `to`, a clone of this log (whose cursors
    /// read nothing ahead).
    pub fn carry_ahead(&mut self, to: &mut Log) {
        if let (Some(from), Some(to)) = (self.mfp.as_mut(), to.mfp.as_mut()) {
            from.carry_ahead(to);
        }
        if let (Some(from), Some(to)) = (self.peek.as_mut(), to.peek.as_mut()) {
            from.carry_ahead(to);
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
        if let Some(data) = self.kept(vol) {
            return Ok(data);
        }
        let path = find_file(&self.base, &format!(".{vol}")).ok_or(PmError::from_errno(2))?;
        if compression_of(&path.to_string_lossy()) == Compression::None {
            return Ok(Arc::new(VolData::open_plain(&path).map_err(|e| io_err(&e))?));
        }
        Ok(self.keep(vol, Arc::new(VolData::inflated(path)?)))
    }

    /// A decompressed volume kept, made the most recently used.
    fn kept(&mut self, vol: i32) -> Option<Arc<VolData>> {
        let i = self.decompressed.iter().position(|(v, _)| *v == vol)?;
        let entry = self.decompressed.remove(i);
        let data = Arc::clone(&entry.1);
        self.decompressed.insert(0, entry);
        Some(data)
    }

    /// Keep a newly opened compressed volume, first in line.
    fn keep(&mut self, vol: i32, data: Arc<VolData>) -> Arc<VolData> {
        // closed volumes give up what they can (the decompressor of the one
        // used last stays)
        for (i, (_, d)) in self.decompressed.iter().enumerate() {
            if Arc::strong_count(d) == 1 {
                d.trim(i == 0);
            }
        }
        self.decompressed.insert(0, (vol, Arc::clone(&data)));
        self.decompressed.truncate(KEEP_DECOMPRESSED);
        data
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
        let forwards = vol > self.curvol;
        self.mfp = None;
        let data = self.open_data(vol)?;
        let made = data.made();
        self.mfp = Some(Cursor::new(data, self.version));
        let start = self.chk_label(Which::Mfp, vol)?;
        self.curvol = vol;
        if let Some(t) = start {
            self.label_start = t;
        }
        // going forwards, the next volume is decompressed ahead once
        // reading has taken what was decompressed of this one ahead (so
        // that no more than that is waiting at once)
        self.ahead_at = None;
        if forwards && vol < self.maxvol {
            self.ahead_at = Some(made as i64);
            self.read_on();
        }
        Ok(start)
    }

    /// Take a volume started early as the volume it is.
    pub fn adopt(&mut self, early: Early) {
        if self.kept(early.vol).is_none() {
            self.keep(early.vol, early.data);
        }
    }

    /// Reading forwards in the current volume: start decompressing the
    /// next one once reading has got to [`Log::ahead_at`].
    fn read_on(&mut self) {
        if let Some(at) = self.ahead_at {
            if self.tell() >= at {
                self.ahead_at = None;
                self.open_ahead(self.curvol + 1);
            }
        }
    }

    /// Reading moved forwards to the volume before `vol`: if `vol` is an
    /// `.xz` file (whose size its index gives without decompressing it),
    /// start decompressing it now, on a thread of its own, so that it is
    /// (partly) ready when reading gets there.
    fn open_ahead(&mut self, vol: i32) {
        let data = match self.kept(vol) {
            Some(data) => data,
            None => {
                let Some(data) = find_file(&self.base, &format!(".{vol}")).and_then(VolData::indexed) else { return };
                self.keep(vol, Arc::new(data))
            }
        };
        data.start();
    }

    /// `_logpeek`: open volume `vol` on the side, label checked.
    pub fn open_peek(&mut self, vol: i32) -> bool {
        self.peek = None;
        let Ok(data) = self.open_data(vol) else { return false };
        self.peek = Some(Cursor::new(data, self.version));
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
            if dir == Dir::Forw {
                f.record_here();
            }
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
        let (body, _) = f.view(rlen)?;
        if body.len() != rlen {
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
        if paranoid && !paranoid_check(body.as_slice(), version) {
            return Err(LOGREC);
        }
        if dir == Dir::Back {
            f.seek_cur(-4);
        }
        if let Some(index) = f.plain_layout_of(&body) {
            // checked while read ahead
            return record_head(body.as_slice(), version)
                .map(|(ts, first, numpmid)| Record { ts, body, first, numpmid, index, swapped: false })
                .map_err(|_| LOGREC);
        }
        decode_record(body, version).map_err(|_| LOGREC)
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
/// `ntohEventArray` does; never past `end`. Whether the walk went to its
/// own end (`false`: `end` stopped it, or made it pass a field over).
fn swap_event_array(buf: &mut [u8], at: usize, end: usize, highres: bool) -> bool {
    let whole = std::cell::Cell::new(true);
    let swap4 = |b: &mut [u8], i: usize| -> Option<u32> {
        let Some(w) = b.get_mut(i..i + 4).filter(|_| i + 4 <= end) else {
            whole.set(false);
            return None;
        };
        w.reverse();
        Some(u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
    };
    let swap8 = |b: &mut [u8], i: usize| match b.get_mut(i..i + 8).filter(|_| i + 8 <= end) {
        Some(w) => w.reverse(),
        None => whole.set(false),
    };
    let Some(nrecords) = swap4(buf, at + 4) else { return false };
    let mut base = at + 8;
    for _ in 0..nrecords as i32 {
        if base >= end {
            return false;
        }
        let (flags, nparams) = if highres {
            swap8(buf, base);
            swap8(buf, base + 8);
            let Some(flags) = swap4(buf, base + 16) else { return false };
            let Some(np) = swap4(buf, base + 20) else { return false };
            base += 24;
            (flags, np as i32)
        } else {
            swap4(buf, base);
            swap4(buf, base + 4);
            let Some(flags) = swap4(buf, base + 8) else { return false };
            let Some(np) = swap4(buf, base + 12) else { return false };
            base += 16;
            (flags, np as i32)
        };
        let nparams = if flags & 0x8000_0000 != 0 { 0 } else { nparams };
        for _ in 0..nparams {
            if base >= end {
                return false;
            }
            swap4(buf, base);
            let Some(tl) = swap4(buf, base + 4) else { return false };
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
    whole.get()
}

/// One metric's value set in a [`Record`]: where its value list is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SetRef {
    pub pmid: u32,
    /// Number of values, or a (negative) error code.
    pub numval: i32,
    /// 0 when there are no values.
    pub valfmt: i32,
    /// The value list's offset in the record (libpcp's buffer less its
    /// 12-byte header).
    at: usize,
}

/// What a value block's bytes, as read, still need to be as libpcp leaves
/// them.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Swap {
    /// Nothing.
    None,
    /// Reverse this many bytes at the start (a numeric payload).
    First(usize),
    /// Swap an event array's fields (high resolution ones or not).
    Events(bool),
}

/// A value in a [`Record`], not yet copied out.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ValRef<'a> {
    Insitu(i32),
    /// A value block's type and its bytes after the header.
    Block {
        vtype: u8,
        data: &'a [u8],
        swap: Swap,
    },
}

/// Bring a value block's bytes to host order.
fn swap_block(data: &mut pcp_core::BlockData, swap: Swap) {
    match swap {
        Swap::None => {}
        Swap::First(n) => {
            if let Some(head) = data.get_mut(..n) {
                head.reverse();
            }
        }
        Swap::Events(highres) => {
            // the walk counts from the block's header
            data.insert_many(0, [0; 4]);
            let end = data.len();
            swap_event_array(data, 0, end, highres);
            data.drain(..4);
        }
    }
}

impl ValRef<'_> {
    pub fn to_value(self) -> Value {
        match self {
            ValRef::Insitu(l) => Value::Insitu(l),
            ValRef::Block { vtype, data, swap } => {
                let mut v = pcp_core::BlockData::from_slice(data);
                swap_block(&mut v, swap);
                Value::Block(ValueBlock::new(vtype, v))
            }
        }
    }

    /// `*slot = Some(self.to_value())`, reusing the block `slot` holds.
    pub fn store(self, slot: &mut Option<Value>) {
        match (slot.as_mut(), self) {
            (Some(Value::Block(b)), ValRef::Block { vtype, data, swap }) => {
                b.vtype = vtype;
                b.data.clear();
                b.data.extend_from_slice(data);
                swap_block(&mut b.data, swap);
            }
            _ => *slot = Some(self.to_value()),
        }
    }
}

/// A data volume record that has passed libpcp's layout checks, its values
/// read from its bytes on demand (a mark when it has no value sets).
#[derive(Clone, Debug)]
pub(crate) struct Record {
    pub ts: Ts,
    /// The record after its length word: libpcp's buffer from offset 12.
    body: Bytes,
    /// The offset of the first value list in libpcp's buffer.
    first: usize,
    numpmid: usize,
    /// Where each value list is in `body`, and its PMID.
    index: Vec<(u32, u32)>,
    /// Value block headers and numeric payloads are in host order already
    /// (as libpcp leaves them), not as in the file.
    swapped: bool,
}

impl Record {
    /// A mark record at `ts` made up by the reader (`__pmLogGenerateMark`,
    /// between the archives of a multi-archive context).
    pub fn mark(ts: Ts) -> Record {
        let body = Bytes::heap(Vec::new(), 0);
        Record { ts, body, first: 0, numpmid: 0, index: Vec::new(), swapped: false }
    }

    pub fn is_mark(&self) -> bool {
        self.numpmid == 0
    }

    /// The value sets, in record order, found by walking the record.
    fn walk(&self) -> impl Iterator<Item = SetRef> + '_ {
        let body = self.body.as_slice();
        let mut at = self.first - 12;
        let mut left = self.numpmid;
        std::iter::from_fn(move || {
            if left == 0 {
                return None;
            }
            left -= 1;
            let pmid = be32(body, at)?;
            let numval = be32(body, at + 4)? as i32;
            let valfmt = if numval > 0 { be32(body, at + 8)? as i32 } else { 0 };
            let set = SetRef { pmid, numval, valfmt, at };
            at += if numval > 0 { 12 + 8 * numval as usize } else { 8 };
            Some(set)
        })
    }

    /// The set whose value list is at `at`.
    fn set_at(&self, pmid: u32, at: usize) -> SetRef {
        let body = self.body.as_slice();
        let numval = be32(body, at + 4).unwrap_or(0) as i32;
        let valfmt = if numval > 0 { be32(body, at + 8).unwrap_or(0) as i32 } else { 0 };
        SetRef { pmid, numval, valfmt, at }
    }

    /// The value sets, in record order.
    pub fn sets(&self) -> impl Iterator<Item = SetRef> + '_ {
        self.index.iter().map(|&(pmid, at)| self.set_at(pmid, at as usize))
    }

    /// The value sets whose PMID `want` accepts, in record order.
    pub fn sets_where(&self, mut want: impl FnMut(u32) -> bool) -> Vec<SetRef> {
        self.index.iter().filter(|(pmid, _)| want(*pmid)).map(|&(pmid, at)| self.set_at(pmid, at as usize)).collect()
    }

    /// The value set of `pmid`, if the record has one.
    pub fn set(&self, pmid: u32) -> Option<SetRef> {
        self.sets().find(|s| s.pmid == pmid)
    }

    /// A set's instances and values.
    pub fn values(&self, set: SetRef) -> impl Iterator<Item = (i32, ValRef<'_>)> + '_ {
        let body = self.body.as_slice();
        let end = body.len() + 12;
        (0..set.numval.max(0) as usize).map_while(move |j| {
            let at = set.at + 12 + 8 * j;
            let inst = be32(body, at)? as i32;
            let lval = be32(body, at + 4)? as i32;
            if set.valfmt == 0 {
                return Some((inst, ValRef::Insitu(lval)));
            }
            let b = lval as u32 as usize * 4;
            let h = body.get(b.checked_sub(12)?..b - 8)?;
            let hdr = if self.swapped { u32::from_le_bytes([h[0], h[1], h[2], h[3]]) } else { be32(h, 0)? };
            let (vtype, vlen) = ((hdr >> 24) as u8, (hdr & 0x00ff_ffff) as usize);
            let data_end = (b + vlen.max(4)).min(end);
            let data = body.get(b - 8..data_end - 12)?;
            let swap = match vtype {
                _ if self.swapped => Swap::None,
                2 | 3 | 5 if b + 12 <= end => Swap::First(8),
                4 if b + 8 <= end => Swap::First(4),
                9 | 10 => Swap::Events(vtype == 10),
                _ => Swap::None,
            };
            Some((inst, ValRef::Block { vtype, data, swap }))
        })
    }

    /// A set copied out.
    pub fn to_set(&self, set: SetRef) -> LogSet {
        let vals = self.values(set).map(|(inst, v)| InstValue { inst, value: v.to_value() }).collect();
        LogSet { pmid: set.pmid, numval: set.numval, valfmt: set.valfmt, vals }
    }

    /// The whole record copied out.
    pub fn to_result(&self) -> LogResult {
        LogResult { ts: self.ts, sets: self.sets().map(|s| self.to_set(s)).collect() }
    }
}

/// Decode a data volume record as libpcp's `__pmDecodeResult` does, with
/// all of its layout checks: value blocks must follow the value lists
/// exactly and fill the rest of the record. Any failure is an error
/// (`__pmLogRead` reports `PM_ERR_LOGREC`).
#[cfg(test)]
pub(crate) fn decode(payload: Vec<u8>, version: Version) -> Result<LogResult, PmError> {
    decode_record(Bytes::heap(payload, 0), version).map(|r| r.to_result())
}

/// The record's time, the offset of its first value list in libpcp's
/// buffer and its number of value sets, as `__pmDecodeResult` checks them.
fn record_head(body: &[u8], version: Version) -> Result<(Ts, usize, usize), PmError> {
    const IPC: PmError = PmError::PM_ERR_IPC;
    let pdulen = body.len() + 12;
    let word = |x: usize| be32(body, x - 12).map(|v| v as i32).ok_or(IPC);
    let (bytes, ts) = match version {
        Version::V2 => {
            if pdulen < 24 {
                return Err(IPC);
            }
            (24, Ts { sec: word(12)? as i64, nsec: word(16)?.wrapping_mul(1000) })
        }
        Version::V3 => {
            if pdulen < 28 {
                return Err(IPC);
            }
            let (low, high) = (word(12)? as u32 as u64, word(16)? as u32 as u64);
            (28, Ts { sec: (high << 32 | low) as i64, nsec: word(20)? })
        }
    };
    let numpmid = word(bytes - 4)?;
    if numpmid < 0 || numpmid as i64 > pdulen as i64 || numpmid >= 268_435_451 {
        return Err(IPC);
    }
    Ok((ts, bytes, numpmid as usize))
}

/// Where the value lists of a record body are, and their PMIDs, when the
/// record is laid out plainly ([`plain_layout`]); as [`decode_record`]
/// finds them then.
fn plain_index(body: &[u8], version: Version) -> Option<Vec<(u32, u32)>> {
    let (_, first, numpmid) = record_head(body, version).ok()?;
    let mut index = Vec::with_capacity(numpmid.min(body.len() / 8));
    plain_layout(body, first, numpmid, &mut index).then_some(index)
}

/// Decode a record (the bytes after its length word): [`decode`].
fn decode_record(body: Bytes, version: Version) -> Result<Record, PmError> {
    decode_as(body, version, true)
}

/// [`decode_record`], using the record as it is in the file when
/// `as_read` and [`plain_layout`] allow.
fn decode_as(body: Bytes, version: Version, as_read: bool) -> Result<Record, PmError> {
    let (ts, first, numpmid) = record_head(body.as_slice(), version)?;
    let mut index = Vec::with_capacity(numpmid.min(body.len() / 8));
    if as_read && plain_layout(body.as_slice(), first, numpmid, &mut index) {
        return Ok(Record { ts, body, first, numpmid, index, swapped: false });
    }
    let mut pdu = Vec::with_capacity(12 + body.len());
    pdu.extend_from_slice(&[0; 12]);
    pdu.extend_from_slice(body.as_slice());
    swap_and_check(&mut pdu, first, numpmid)?;
    let body = Bytes::heap(pdu, 12);
    let mut record = Record { ts, body, first, numpmid, index: Vec::new(), swapped: true };
    record.index = record.walk().map(|s| (s.pmid, s.at as u32)).collect();
    if record.sets().any(|s| s.numval > 0 && !(0..=2).contains(&s.valfmt)) {
        return Err(PmError::PM_ERR_IPC);
    }
    Ok(record)
}

/// Does a record pass `__pmDecodeResult`'s checks, laid out the ordinary
/// way: value blocks one after another in value order, each long enough
/// for the bytes libpcp swaps in it (an event array's walk ends inside its
/// block), every value format known? libpcp's in-place swaps then change
/// each block on its own, so the record is used as it is in the file and
/// each value swapped as it is copied out. `false` does not mean the record
/// is bad: [`swap_and_check`] decides then.
fn plain_layout(body: &[u8], first: usize, numpmid: usize, index: &mut Vec<(u32, u32)>) -> bool {
    /// The least `vlen` for each value type: libpcp swaps 8 bytes of the
    /// payload of 64-bit types and 4 of a float.
    const LEAST: [u8; 256] = {
        let mut t = [4u8; 256];
        t[2] = 12;
        t[3] = 12;
        t[5] = 12;
        t[4] = 8;
        t
    };
    let word = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    let pdulen = body.len() + 12;
    // offsets into `body` (libpcp's buffer less its 12-byte header)
    let mut vlp = first - 12;
    // in libpcp's buffer: where the next value block must start (none yet),
    // and where the first one did
    const NONE: usize = usize::MAX;
    let mut next = NONE;
    let mut blocks_at = pdulen;
    let mut scratch = Vec::new();
    index.clear();
    for _ in 0..numpmid {
        let Some(head) = body.get(vlp..vlp + 8) else { return false };
        index.push((word(head), vlp as u32));
        let numval = word(&head[4..]) as i32;
        if numval as i64 > pdulen as i64 {
            return false;
        }
        if numval <= 0 {
            vlp += 8;
            continue;
        }
        let Some(valfmt) = body.get(vlp + 8..vlp + 12) else { return false };
        if numval >= 268_435_453 {
            return false;
        }
        let vals = vlp + 12;
        vlp = vals + 8 * numval as usize;
        match word(valfmt) {
            0 => continue,
            1 | 2 => {}
            _ => return false,
        }
        let Some(list) = body.get(vals..vlp) else { return false };
        // (each block must end inside the record; as the blocks follow
        // one another and the last must end where the record does, that
        // is checked once, at the end)
        let mut j = 0;
        while let Some(value) = list.get(j..j + 8) {
            j += 8;
            let vindex = word(&value[4..]);
            let boff = vindex as usize * 4;
            if boff != next {
                if next != NONE || (vindex as i32) < 0 || vindex as usize > pdulen {
                    return false;
                }
                blocks_at = boff;
            }
            let b = boff.wrapping_sub(12);
            let Some(hdr) = body.get(b..b.wrapping_add(4)) else { return false };
            let hdr = word(hdr);
            let vlen = (hdr & 0x00ff_ffff) as usize;
            if vlen < LEAST[(hdr >> 24) as usize] as usize {
                return false;
            }
            if matches!(hdr >> 24, 9 | 10) {
                let Some(array) = body.get(b..b + vlen) else { return false };
                scratch.clear();
                scratch.extend_from_slice(array);
                if !swap_event_array(&mut scratch, 0, vlen, hdr >> 24 == 10) {
                    return false;
                }
            }
            next = boff + ((vlen + 3) & !3);
            // the values after this one whose blocks follow on from its
            // block with the same header (type and length; in most sets
            // all of them) pass as it did: found by comparing words
            if !matches!(hdr >> 24, 9 | 10) {
                let stride = next - boff;
                let head = hdr.to_be_bytes();
                for value in list[j..].chunks_exact(8) {
                    if word(&value[4..]) as usize * 4 != next {
                        break;
                    }
                    match body.get(next - 12..next - 8) {
                        Some(h) if *h == head => {}
                        _ => break,
                    }
                    next += stride;
                    j += 8;
                }
            }
        }
    }
    let offset = vlp + 12;
    let vsize = offset - first;
    let vbsize = if next == NONE { 0 } else { next - blocks_at };
    vsize <= i32::MAX as usize / 4
        && vbsize <= i32::MAX as usize / 8
        && offset == blocks_at
        && offset + vbsize == pdulen
}

/// `__pmDecodeResult`'s checks on libpcp's buffer (12 bytes of PDU header,
/// then the record), swapping value block headers and numeric payloads to
/// host order in place as it does (a block two values share is swapped
/// twice, one that is too short has the next one's bytes swapped).
fn swap_and_check(buf: &mut [u8], first: usize, numpmid: usize) -> Result<(), PmError> {
    const IPC: PmError = PmError::PM_ERR_IPC;
    let pdulen = buf.len() as i64;
    let bytes = first as i64;
    let word =
        |b: &[u8], at: i64| -> Option<i32> { usize::try_from(at).ok().and_then(|a| be32(b, a)).map(|v| v as i32) };
    let (mut vsize, mut vbsize, mut vsplit) = (0i64, 0i64, pdulen);
    for _ in 0..numpmid {
        let vlp = bytes + vsize;
        let rem = pdulen - vlp;
        if rem < 8 {
            return Err(IPC);
        }
        vsize += 8;
        let numval = word(buf, vlp + 4).ok_or(IPC)?;
        if numval as i64 > pdulen {
            return Err(IPC);
        }
        if numval <= 0 {
            continue;
        }
        if rem < 12 || numval >= 268_435_453 {
            return Err(IPC);
        }
        let valfmt = word(buf, vlp + 8).ok_or(IPC)?;
        vsize += 4 + numval as i64 * 8;
        if valfmt == 0 {
            continue;
        }
        for j in 0..numval as i64 {
            let pduvp = vlp + 12 + 8 * j;
            if pdulen - pduvp < 8 {
                return Err(IPC);
            }
            let vindex = word(buf, pduvp + 4).ok_or(IPC)?;
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
                9 | 10 => {
                    swap_event_array(buf, b, end, vtype == 10);
                }
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
    Ok(())
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

    /// A small deterministic generator for the randomised tests.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> u32 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 33) as u32
        }
        fn below(&mut self, n: u32) -> u32 {
            self.next() % n
        }
    }

    /// A version 2 record laid out as pmlogger writes them: value lists,
    /// then each value block in value order. Types: insitu, 64-bit, float,
    /// string, and event arrays (plain and high resolution).
    fn ordinary_record(g: &mut Lcg) -> (Vec<u8>, bool) {
        let numpmid = g.below(6) as usize;
        let mut lists: Vec<Vec<u32>> = Vec::new();
        let mut blocks: Vec<Vec<u32>> = Vec::new();
        let mut patches = Vec::new();
        let mut events = false;
        for p in 0..numpmid {
            let numval = g.below(6) as i32 - 1;
            let kind = g.below(6);
            let mut list = vec![0x1000 + p as u32, numval as u32];
            if numval > 0 {
                list.push(u32::from(kind != 0));
            }
            events |= numval > 0 && kind >= 4;
            for _ in 0..numval.max(0) {
                list.push(g.below(5));
                let block = match kind {
                    0 => {
                        list.push(g.next());
                        continue;
                    }
                    1 => vec![0x0300_000c, g.next(), g.next()],
                    2 => vec![0x0400_0008, g.next()],
                    3 => vec![0x0600_0009, g.next(), g.next() & 0xff00_0000],
                    4 => {
                        // one event record with one 32-bit parameter
                        vec![0x0900_0028, 0, 1, g.next(), g.next(), 0, 1, 0x42, 0x0000_000c, g.next()]
                    }
                    _ => {
                        // high resolution: a 64-bit parameter
                        vec![0x0a00_0034, 0, 1, 0, g.next(), 0, g.next(), 0, 1, 0x43, 0x0300_0010, g.next(), g.next()]
                    }
                };
                // the index is filled in once the value lists' size is known
                patches.push((lists.len(), list.len(), blocks.len()));
                list.push(0);
                blocks.push(block);
            }
            lists.push(list);
        }
        // 12 bytes of PDU header, timestamp, numpmid: value lists start at
        // word 6 of libpcp's buffer
        let mut at = 6 + lists.iter().map(Vec::len).sum::<usize>() as u32;
        let mut starts = Vec::new();
        for b in &blocks {
            starts.push(at);
            at += b.len() as u32;
        }
        for (l, at, b) in patches {
            lists[l][at] = starts[b];
        }
        let mut words = vec![g.below(1000), g.below(1_000_000), numpmid as u32];
        for list in lists {
            words.extend(list);
        }
        for b in blocks {
            words.extend(b);
        }
        (rec_v2(&words), events)
    }

    /// Reading a record as it is in the file gives what libpcp's in-place
    /// swapping gives, for ordinary records and for damaged ones.
    #[test]
    fn records_read_as_they_are_match_swapped_ones() {
        let mut g = Lcg(7);
        let (mut plain, mut plain_events, mut damaged_ok) = (0, 0, 0);
        for round in 0..20_000 {
            let (mut r, events) = ordinary_record(&mut g);
            if round % 2 == 1 && !r.is_empty() {
                // damage: change a byte or two, or cut the end off
                for _ in 0..1 + g.below(2) {
                    let at = g.below(r.len() as u32) as usize;
                    r[at] = match g.below(3) {
                        0 => g.next() as u8,
                        1 => r[at] ^ 1,
                        _ => 0,
                    };
                }
                if g.below(8) == 0 {
                    r.truncate(g.below(r.len() as u32) as usize);
                }
            }
            let body = Bytes::heap(r, 0);
            let mut index = Vec::new();
            if let Ok((_, first, numpmid)) = record_head(body.as_slice(), Version::V2) {
                if plain_layout(body.as_slice(), first, numpmid, &mut index) {
                    plain += 1;
                    plain_events += usize::from(events);
                }
            }
            let read = decode_as(body.clone(), Version::V2, true).map(|r| r.to_result());
            let swapped = decode_as(body, Version::V2, false).map(|r| r.to_result());
            assert_eq!(read, swapped, "round {round}");
            if round % 2 == 1 && read.is_ok() {
                damaged_ok += 1;
            }
        }
        // all kinds of record were seen
        assert!(plain > 5_000 && plain_events > 1_000 && damaged_ok > 1_000, "{plain} {plain_events} {damaged_ok}");
    }

    /// Reads anywhere in a plain and in an `.xz` volume, mostly forwards,
    /// sometimes back a little or far, give the file's bytes; bytes handed
    /// out earlier stay as they were while windows are reused.
    #[test]
    fn cursors_read_what_the_file_holds() {
        use std::io::Write;
        let mut g = Lcg(3);
        let size = 5 * CHUNK + 123_457;
        let data: Vec<u8> = (0..size).map(|i| if i % 7 == 0 { g.next() as u8 } else { (i / 13) as u8 }).collect();
        let dir = std::env::temp_dir().join(format!("pcp-rs-logread-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("v.0"), &data).unwrap();
        let mut xz = liblzma::write::XzEncoder::new(File::create(dir.join("v.1.xz")).unwrap(), 1);
        xz.write_all(&data).unwrap();
        xz.finish().unwrap();
        let plain = |map| VolData { map, ..VolData::plain(File::open(dir.join("v.0")).unwrap(), size as u64) };
        let inflated = VolData::inflated(dir.join("v.1.xz")).unwrap();
        assert_eq!(inflated.size, size as u64);
        // (the last two mapped whole: from the start, and halfway through)
        let premap = [None, None, None, Some(0), Some(1_000)];
        for (vol, premap) in [plain(true), plain(false), inflated, plain(true), plain(true)].into_iter().zip(premap) {
            let vol = Arc::new(vol);
            let mut c = Cursor::new(Arc::clone(&vol), Version::V3);
            let mut held: Vec<(usize, Bytes)> = Vec::new();
            let mut pos = 0usize;
            for i in 0..2_000 {
                if premap == Some(i) {
                    Premap(Arc::clone(&vol)).run();
                    assert!(vol.whole.get().is_some());
                }
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
    /// before, mapped or not; past the cut, reading fails as a read that
    /// comes up short does (nothing is mapped there, so no `SIGBUS`).
    #[test]
    fn a_volume_cut_short_fails_to_read_past_the_cut() {
        let size = 3 * MAP_WINDOW + 1000;
        let data: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
        let dir = std::env::temp_dir().join(format!("pcp-rs-logread-cut-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("v.0");
        std::fs::write(&path, &data).unwrap();
        let cut = MAP_WINDOW + 500;
        for map in [true, false] {
            let vol = VolData { map, ..VolData::plain(File::open(&path).unwrap(), size as u64) };
            let mut c = Cursor::new(Arc::new(vol), Version::V2);
            std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(cut as u64).unwrap();
            assert!(c.seek_set(100));
            assert_eq!(c.view(1000).unwrap().0.as_slice(), &data[100..1100]);
            assert!(c.seek_set(cut as i64 - 200));
            assert!(c.view(1000).is_err(), "map {map}");
            assert!(c.seek_set(2 * MAP_WINDOW as i64));
            assert!(c.view(10).is_err(), "map {map}");
            // (no window stays mapped while the file is written again)
            drop(c);
            std::fs::write(&path, &data).unwrap();
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
