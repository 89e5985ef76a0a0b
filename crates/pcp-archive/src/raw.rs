//! Raw archive records: framing, the label, metadata records, temporal
//! index entries and result (data volume) records, for versions 2 and 3.
//!
//! All multi-byte fields are big-endian. Volume and `.meta` records are
//! framed as `length, payload, length` (the length counts both length
//! words); the `.index` file is a label followed by fixed-size entries.

use pcp_core::{Desc, InDom, InstValue, MetricType, PmError, PmId, Semantics, Timestamp, Units, Value, ValueBlock};
use pcp_core::{FetchResult, ValueSet};

/// `PM_LOG_MAGIC`: the high 24 bits of a label's first word.
pub const PM_LOG_MAGIC: u32 = 0x5005_2600;

/// An archive format version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Version {
    /// Version 2: 32-bit seconds, microseconds.
    V2 = 2,
    /// Version 3: 64-bit seconds, nanoseconds, delta instance domains.
    V3 = 3,
}

/// Metadata record types (the first word of a `.meta` record's payload).
pub mod meta_type {
    /// `TYPE_DESC`: a metric descriptor and its names.
    pub const DESC: u32 = 1;
    /// `TYPE_INDOM_V2`: an instance domain, version 2 timestamps.
    pub const INDOM_V2: u32 = 2;
    /// `TYPE_LABEL_V2`: label sets, version 2 timestamps.
    pub const LABEL_V2: u32 = 3;
    /// `TYPE_TEXT`: help text.
    pub const TEXT: u32 = 4;
    /// `TYPE_INDOM`: a full instance domain (version 3).
    pub const INDOM: u32 = 5;
    /// `TYPE_INDOM_DELTA`: instances added and deleted (version 3).
    pub const INDOM_DELTA: u32 = 6;
    /// `TYPE_LABEL`: label sets (version 3).
    pub const LABEL: u32 = 7;
}

const LOGREC: PmError = PmError::PM_ERR_LOGREC;

/// `PM_MAXLABELS`: the most labels a label set may have.
const PM_MAXLABELS: i32 = 255;

/// `PM_MAXLABELJSONLEN`: the longest JSON a label set may have.
const PM_MAXLABELJSONLEN: usize = 65535;

/// A big-endian reader over a shrinking slice; every read is checked.
#[derive(Clone, Copy, Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// Read from the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf, pos: 0 }
    }

    /// Bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        &self.buf[self.pos..]
    }

    /// Current offset.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// `n` bytes, or `err`.
    pub fn bytes(&mut self, n: usize, err: PmError) -> Result<&'a [u8], PmError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len()).ok_or(err)?;
        let b = &self.buf[self.pos..end];
        self.pos = end;
        Ok(b)
    }

    fn array<const N: usize>(&mut self, err: PmError) -> Result<[u8; N], PmError> {
        let b = self.bytes(N, err)?;
        let mut a = [0u8; N];
        a.copy_from_slice(b);
        Ok(a)
    }

    /// A big-endian `u32`.
    pub fn u32(&mut self, err: PmError) -> Result<u32, PmError> {
        Ok(u32::from_be_bytes(self.array(err)?))
    }

    /// A big-endian `i32`.
    pub fn i32(&mut self, err: PmError) -> Result<i32, PmError> {
        Ok(i32::from_be_bytes(self.array(err)?))
    }

    /// A big-endian `i64`.
    pub fn i64(&mut self, err: PmError) -> Result<i64, PmError> {
        Ok(i64::from_be_bytes(self.array(err)?))
    }

    /// A big-endian `u16`.
    pub fn u16(&mut self, err: PmError) -> Result<u16, PmError> {
        Ok(u16::from_be_bytes(self.array(err)?))
    }

    /// One byte.
    pub fn u8(&mut self, err: PmError) -> Result<u8, PmError> {
        Ok(self.array::<1>(err)?[0])
    }

    /// A timestamp in the version's layout: the instant its [`Stamp`]
    /// stands for.
    pub fn timestamp(&mut self, v: Version, err: PmError) -> Result<Timestamp, PmError> {
        Ok(self.stamp(v, err)?.instant())
    }

    /// A timestamp in the version's layout, as libpcp loads it.
    pub fn stamp(&mut self, v: Version, err: PmError) -> Result<Stamp, PmError> {
        Ok(match v {
            Version::V2 => {
                let sec = self.i32(err)? as i64;
                // (__pmLoadTimeval: microseconds times 1000 in 32 bits)
                let usec = self.u32(err)?;
                Stamp { sec, nsec: usec.wrapping_mul(1000) as i32 }
            }
            Version::V3 => {
                // libpcp writes the 64-bit seconds as two big-endian words,
                // in the writing host's word order: little-endian hosts
                // (nearly every archive) put the low word first, and libpcp
                // on such a host reads them back that way, as we do
                let low = self.u32(err)? as u64;
                let high = self.u32(err)? as u64;
                let nsec = self.i32(err)?;
                Stamp { sec: ((high << 32) | low) as i64, nsec }
            }
        })
    }
}

/// A record's time as libpcp loads it into a `__pmTimestamp`: seconds,
/// and nanoseconds as a signed 32-bit count that a damaged record can put
/// outside 0..1e9 (a version 2 record's microseconds are multiplied by
/// 1000 in 32 bits, so 0xffffffff of them is -1000). Readers order and
/// look up by [`Stamp::instant`]; pmdumplog prints the fields as they are.
#[doc(alias = "__pmTimestamp")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Stamp {
    /// Whole seconds since the epoch.
    pub sec: i64,
    /// Nanoseconds from `sec` (negative: before it).
    pub nsec: i32,
}

impl Stamp {
    /// The instant: `nsec` nanoseconds from `sec`.
    pub fn instant(self) -> Timestamp {
        Timestamp::from_signed_nsec(self.sec, self.nsec)
    }

    /// `__pmTimestampCmp`: the sign of the difference of the seconds, or
    /// else of the nanoseconds, each cut to an `int` as libpcp computes
    /// it (so a time 2^31 seconds or more after `other` compares as before
    /// it, and one 2^31 or more before as after).
    #[doc(alias = "__pmTimestampCmp")]
    pub fn libpcp_cmp(self, other: Stamp) -> std::cmp::Ordering {
        match self.sec.wrapping_sub(other.sec) as i32 {
            0 => self.nsec.wrapping_sub(other.nsec).cmp(&0),
            d => d.cmp(&0),
        }
    }
}

impl From<Timestamp> for Stamp {
    fn from(t: Timestamp) -> Stamp {
        Stamp { sec: t.sec, nsec: t.nsec as i32 }
    }
}

/// Split the next framed record off `buf`: its payload and the bytes it
/// used. `Ok(None)` at the end of the data, which a length word cut short
/// is too (as libpcp reads one); a record whose length words disagree or
/// run past the data is `PM_ERR_LOGREC`.
pub fn next_record(buf: &[u8]) -> Result<Option<(&[u8], usize)>, PmError> {
    if buf.len() < 4 {
        return Ok(None);
    }
    let mut r = Reader::new(buf);
    let len = r.u32(LOGREC)? as usize;
    if len < 8 || len > buf.len() {
        return Err(LOGREC);
    }
    let payload = &buf[4..len - 4];
    let tail = u32::from_be_bytes([buf[len - 4], buf[len - 3], buf[len - 2], buf[len - 1]]) as usize;
    if tail != len {
        return Err(LOGREC);
    }
    Ok(Some((payload, len)))
}

/// The label at the start of every archive file.
#[doc(alias = "pmLogLabel")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// Format version.
    pub version: Version,
    /// The pmlogger process that wrote the archive.
    pub pid: i32,
    /// When the archive starts.
    pub start: Timestamp,
    /// Volume number; -1 for `.meta`, -2 for `.index`.
    pub vol: i32,
    /// Feature bits (version 3; zero for version 2).
    pub features: u32,
    /// The host the metrics came from.
    pub hostname: Vec<u8>,
    /// Its `$TZ`, e.g. `AEDT-11`.
    pub timezone: Vec<u8>,
    /// Its zoneinfo name, e.g. `:Australia/Melbourne` (version 3; may be
    /// empty).
    pub zoneinfo: Vec<u8>,
}

fn c_string(field: &[u8]) -> Vec<u8> {
    c_str(field).to_vec()
}

/// `field` up to its first NUL (all of it without one).
pub(crate) fn c_str(field: &[u8]) -> &[u8] {
    &field[..memchr::memchr(0, field).unwrap_or(field.len())]
}

impl Label {
    /// Decode a label from the start of a file: the label and the bytes it
    /// used (its whole framed record). `PM_ERR_LABEL` if it is not one.
    pub fn decode(buf: &[u8]) -> Result<(Label, usize), PmError> {
        let bad = PmError::PM_ERR_LABEL;
        let (payload, used) = next_record(buf).map_err(|_| bad)?.ok_or(bad)?;
        let mut r = Reader::new(payload);
        let magic = r.u32(bad)?;
        if magic & 0xffff_ff00 != PM_LOG_MAGIC {
            return Err(bad);
        }
        let version = match magic & 0xff {
            2 => Version::V2,
            3 => Version::V3,
            _ => return Err(bad),
        };
        let pid = r.i32(bad)?;
        let label = match version {
            Version::V2 => {
                let start = r.timestamp(version, bad)?;
                let vol = r.i32(bad)?;
                let hostname = c_string(r.bytes(64, bad)?);
                let timezone = c_string(r.bytes(40, bad)?);
                Label { version, pid, start, vol, features: 0, hostname, timezone, zoneinfo: Vec::new() }
            }
            Version::V3 => {
                let start = r.timestamp(version, bad)?;
                let vol = r.i32(bad)?;
                let features = r.u32(bad)?;
                let _reserved = r.u32(bad)?;
                let hostname = c_string(r.bytes(256, bad)?);
                let timezone = c_string(r.bytes(256, bad)?);
                let zoneinfo = c_string(r.bytes(256, bad)?);
                Label { version, pid, start, vol, features, hostname, timezone, zoneinfo }
            }
        };
        if !r.rest().is_empty() {
            return Err(bad);
        }
        Ok((label, used))
    }

    /// The checks [`check_label`] makes of a label once decoded: that it
    /// is the label of volume `vol` (`PM_ERR_LABEL` if not) and, with
    /// `check_features`, that it has no feature bits this reader does not
    /// know (`PM_ERR_FEATURE`).
    pub fn check(&self, vol: i32, check_features: bool) -> Result<(), PmError> {
        if self.vol != vol {
            return Err(PmError::PM_ERR_LABEL);
        }
        if check_features && self.features & !LOG_FEATURES != 0 {
            return Err(PmError::PM_ERR_FEATURE);
        }
        Ok(())
    }
}

/// The volume number the label of an `.index` file carries
/// (`PM_LOG_VOL_TI`).
pub const VOL_INDEX: i32 = -2;

/// The volume number the label of a `.meta` file carries
/// (`PM_LOG_VOL_META`).
pub const VOL_META: i32 = -1;

/// How many bytes of a file's start [`check_label`] wants: the largest
/// label (version 3, 808 bytes) and one byte more, to tell whether
/// anything follows it.
pub const LABEL_HEAD: usize = 809;

/// A label that checks: the label, and does anything follow it in the file?
pub type CheckedLabel = (Label, bool);

/// `__pmLogChkLabel`: check the label at the start of an archive file
/// whose first bytes are `head` (the first [`LABEL_HEAD`] of them, or the
/// whole file if it is shorter) for the file of volume `vol`
/// ([`VOL_META`], [`VOL_INDEX`] or a data volume's number); with
/// `check_features`, feature bits this reader does not know are refused.
///
/// A file too short to hold a label's first two words is
/// `PM_ERR_NODATA`, as in libpcp (it meets the end of the file first);
/// anything else wrong with the record is `PM_ERR_LABEL`, and a label
/// for another volume too. A label with nothing after it is no error
/// here: the caller decides (libpcp's `PM_ERR_NODATA` for an empty file).
#[doc(alias = "__pmLogChkLabel")]
#[doc(alias = "__pmLogLoadLabel")]
pub fn check_label(head: &[u8], vol: i32, check_features: bool) -> Result<CheckedLabel, PmError> {
    let bad = PmError::PM_ERR_LABEL;
    let (Some(length), Some(&kind)) = (head.first_chunk::<4>(), head.get(7)) else {
        return Err(PmError::PM_ERR_NODATA);
    };
    let want = match kind {
        2 => 132,
        3 => 808,
        _ => return Err(bad),
    };
    if u32::from_be_bytes(*length) as usize != want {
        return Err(bad);
    }
    let (label, used) = Label::decode(head.get(..want).ok_or(bad)?)?;
    label.check(vol, check_features)?;
    Ok((label, head.len() > used))
}

/// `PM_LOG_FEATURES`: the label feature bits this reader knows (the QA
/// bit).
pub const LOG_FEATURES: u32 = 0x8000_0000;

pub use crate::instances::{Deferred, InstName, Instances, Logged};

/// One label set of a label record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelSet {
    /// The instance (`PM_IN_NULL` for other than instance labels).
    pub inst: i32,
    /// The JSONB text of the set.
    pub json: Vec<u8>,
    /// Each label: name offset, name length, flags, value offset, value
    /// length (offsets into `json`).
    pub labels: Vec<(u16, u8, u8, u16, u16)>,
    /// The label count as recorded: `labels.len()`, or a negative error
    /// code (a set without labels, which merging passes over).
    pub nlabels: i32,
}

/// A `.meta` record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MetaRecord {
    /// A metric's descriptor and its names.
    Desc {
        /// The descriptor.
        desc: Desc,
        /// Its names, in order.
        names: Vec<Vec<u8>>,
    },
    /// An instance domain observed at a time (full, or a version 3 delta).
    InDom {
        /// When.
        when: Timestamp,
        /// When, as logged (`when` is its instant).
        stamp: Stamp,
        /// Which instance domain.
        indom: InDom,
        /// The instances (for a delta: added, or deleted with no name).
        instances: Logged,
        /// Is this a delta record?
        delta: bool,
        /// The instance count as logged: `instances.len()`, or a count
        /// below one (there are no instances then).
        count: i32,
    },
    /// Label sets of one kind, observed at a time.
    Labels {
        /// When.
        when: Timestamp,
        /// `PM_LABEL_*` kind.
        kind: u32,
        /// The identifier (domain, PMID, indom ...), or `PM_IN_NULL`.
        ident: u32,
        /// The sets.
        sets: Vec<LabelSet>,
    },
    /// Help text.
    Text {
        /// `PM_TEXT_*` kind bits.
        kind: u32,
        /// PMID or instance domain.
        ident: u32,
        /// The text (shared with the indexes built from the record).
        text: std::sync::Arc<[u8]>,
    },
}

/// Sanity limit on element counts read from a record: nothing may claim
/// more elements than the record has bytes for, so a hostile count cannot
/// make us allocate without bound.
fn count(n: i32, bytes_each: usize, r: &Reader) -> Result<usize, PmError> {
    let n = usize::try_from(n).map_err(|_| LOGREC)?;
    if n.saturating_mul(bytes_each) > r.rest().len() {
        return Err(LOGREC);
    }
    Ok(n)
}

impl MetaRecord {
    /// Decode a `.meta` record's payload. The instances of an
    /// instance-domain record are checked and kept as logged (see
    /// [`Instances`]).
    pub fn decode(payload: &[u8], version: Version) -> Result<MetaRecord, PmError> {
        MetaRecord::decode_in(payload, version, None)
    }

    /// [`MetaRecord::decode`] of the record whose leading length word is
    /// at `at` in the plain `.meta` file `file`: the instances of a large
    /// instance-domain record are checked but left in the file (see
    /// [`Deferred`]).
    pub fn decode_deferring(
        payload: &[u8],
        version: Version,
        file: &std::sync::Arc<std::fs::File>,
        at: u64,
    ) -> Result<MetaRecord, PmError> {
        MetaRecord::decode_in(payload, version, Some((file, at)))
    }

    /// (`_version` is not used: each record's type gives its layout, as
    /// libpcp reads them.)
    fn decode_in(
        payload: &[u8],
        _version: Version,
        file: Option<(&std::sync::Arc<std::fs::File>, u64)>,
    ) -> Result<MetaRecord, PmError> {
        // instances of fewer bytes than this are read at once: reading them
        // again later would cost more than keeping them
        const DEFER_FROM: usize = 4096;
        let mut r = Reader::new(payload);
        let kind = r.u32(LOGREC)?;
        match kind {
            meta_type::DESC => {
                let pmid = PmId(r.u32(LOGREC)?);
                let ty = MetricType(r.i32(LOGREC)?);
                let indom = InDom(r.u32(LOGREC)?);
                let sem = Semantics(r.i32(LOGREC)?);
                let units = Units::from_u32(r.u32(LOGREC)?);
                // (no names for a count below one)
                let nnames = r.i32(LOGREC)?.max(0);
                let n = count(nnames, 4, &r)?;
                let mut names = Vec::with_capacity(n);
                for _ in 0..n {
                    let len = r.u32(LOGREC)? as usize;
                    names.push(r.bytes(len, LOGREC)?.to_vec());
                }
                Ok(MetaRecord::Desc { desc: Desc { pmid, ty, indom, sem, units }, names })
            }
            meta_type::INDOM_V2 | meta_type::INDOM | meta_type::INDOM_DELTA => {
                // (the record's type gives its layout, whatever the
                // archive's version)
                let tv = if kind == meta_type::INDOM_V2 { Version::V2 } else { Version::V3 };
                let stamp = r.stamp(tv, LOGREC)?;
                let when = stamp.instant();
                let indom = InDom(r.u32(LOGREC)?);
                // no instances for a count below one (libpcp then keeps no
                // set)
                let logged_count = r.i32(LOGREC)?;
                let n = count(logged_count.max(0), 8, &r)?;
                let delta = kind == meta_type::INDOM_DELTA;
                let rest = r.rest();
                let instances = match file {
                    Some((file, at)) if rest.len() >= DEFER_FROM => {
                        let head = payload.len() - rest.len();
                        Logged::Deferred(Deferred::new(file, at, payload, head, n, delta)?)
                    }
                    _ => Logged::Read(Instances::parse(rest, n, delta)?),
                };
                Ok(MetaRecord::InDom { when, stamp, indom, instances, delta, count: logged_count })
            }
            meta_type::LABEL_V2 | meta_type::LABEL => {
                let tv = if kind == meta_type::LABEL_V2 { Version::V2 } else { Version::V3 };
                let when = r.timestamp(tv, LOGREC)?;
                let lkind = r.u32(LOGREC)?;
                let ident = r.u32(LOGREC)?;
                // each set: instance, JSON length, the JSON, label count,
                // then 8 bytes a label (LOGARCHIVE(5) differs; this is what
                // libpcp writes and reads)
                let nsets = count(r.i32(LOGREC)?, 12, &r)?;
                let mut sets = Vec::with_capacity(nsets);
                for _ in 0..nsets {
                    let inst = r.i32(LOGREC)?;
                    let jsonlen = usize::try_from(r.i32(LOGREC)?).map_err(|_| LOGREC)?;
                    if jsonlen > PM_MAXLABELJSONLEN {
                        return Err(LOGREC);
                    }
                    let json = r.bytes(jsonlen, LOGREC)?.to_vec();
                    let nlabels = r.i32(LOGREC)?;
                    let mut labels = Vec::new();
                    // a negative count is an error code: no labels
                    if nlabels > 0 {
                        if nlabels > PM_MAXLABELS {
                            return Err(LOGREC);
                        }
                        let n = count(nlabels, 8, &r)?;
                        labels.reserve(n);
                        for _ in 0..n {
                            labels.push((r.u16(LOGREC)?, r.u8(LOGREC)?, r.u8(LOGREC)?, r.u16(LOGREC)?, r.u16(LOGREC)?));
                        }
                    }
                    sets.push(LabelSet { inst, json, labels, nlabels });
                }
                Ok(MetaRecord::Labels { when, kind: lkind, ident, sets })
            }
            meta_type::TEXT => {
                let tkind = r.u32(LOGREC)?;
                let ident = r.u32(LOGREC)?;
                Ok(MetaRecord::Text { kind: tkind, ident, text: c_str(r.rest()).into() })
            }
            _ => Err(PmError::PM_ERR_RECTYPE),
        }
    }
}

/// A temporal index entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexEntry {
    /// No record before these offsets is later than this.
    pub when: Timestamp,
    /// Data volume number.
    pub vol: i32,
    /// Byte offset in `.meta`.
    pub meta_offset: u64,
    /// Byte offset in the data volume.
    pub data_offset: u64,
}

impl IndexEntry {
    /// Size of one entry on disk.
    pub fn size(version: Version) -> usize {
        match version {
            Version::V2 => 20,
            Version::V3 => 32,
        }
    }

    /// Decode the entries that follow the label of an `.index` file. A
    /// partial entry at the end (a truncated file) is left out.
    pub fn decode_all(buf: &[u8], version: Version) -> Result<Vec<IndexEntry>, PmError> {
        let size = IndexEntry::size(version);
        buf.chunks_exact(size)
            .map(|c| {
                let mut r = Reader::new(c);
                let when = r.timestamp(version, LOGREC)?;
                let vol = r.i32(LOGREC)?;
                let (meta_offset, data_offset) = match version {
                    Version::V2 => (r.u32(LOGREC)? as u64, r.u32(LOGREC)? as u64),
                    Version::V3 => (r.i64(LOGREC)? as u64, r.i64(LOGREC)? as u64),
                };
                Ok(IndexEntry { when, vol, meta_offset, data_offset })
            })
            .collect()
    }
}

/// Bytes of libpcp's PDU header, which its record buffer puts before a
/// record's payload: value block offsets count words from its start.
const PDU_HDR: usize = 12;

/// Bytes before the value sets in libpcp's record buffer: the PDU header,
/// the timestamp and `numpmid`.
fn preamble(version: Version) -> usize {
    match version {
        Version::V2 => PDU_HDR + 8 + 4,
        Version::V3 => PDU_HDR + 12 + 4,
    }
}

/// `PM_PDU_SIZE_BYTES`: rounded up to whole 4-byte words.
fn padded(len: usize) -> usize {
    (len + 3) & !3
}

/// The `i32` at offset `at` of libpcp's record buffer (the PDU header
/// followed by `payload`); `None` outside the payload.
fn word_at(payload: &[u8], at: usize) -> Option<i32> {
    let p = at.checked_sub(PDU_HDR)?;
    let b = payload.get(p..p.checked_add(4)?)?;
    Some(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// Decode a data volume record's payload (the bytes between its two
/// length words): a result. `numpmid == 0` is a mark record (an empty
/// result).
///
/// Accepts exactly what libpcp's `__pmDecodeResult` accepts from an
/// archive (see [`ResultView::new`]); anything else is `PM_ERR_LOGREC`.
#[doc(alias = "__pmLogRead")]
#[doc(alias = "__pmDecodeResult")]
pub fn decode_result(payload: &[u8], version: Version) -> Result<FetchResult, PmError> {
    ResultView::new(payload, version)?.to_result()
}

/// A record's result checked and read in place, without copying: what a
/// reader that goes through many records uses.
#[derive(Clone, Copy, Debug)]
pub struct ResultView<'a> {
    payload: &'a [u8],
    stamp: Stamp,
    numpmid: usize,
    /// Offset of the first value set in libpcp's buffer.
    sets_at: usize,
}

/// One value set of a [`ResultView`].
#[derive(Clone, Copy, Debug)]
pub struct SetView<'a> {
    payload: &'a [u8],
    /// The metric.
    pub pmid: PmId,
    /// The number of values, or (negative) the error for this metric.
    pub numval: i32,
    /// How the values are held as recorded (0 when there are none).
    pub valfmt: i32,
    /// Offset of the first value in libpcp's buffer.
    values_at: usize,
}

/// One value of a [`SetView`], as recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueView<'a> {
    /// Held in place.
    Insitu(i32),
    /// A value block: its type byte and its bytes as recorded (numbers
    /// big-endian).
    Block(u8, &'a [u8]),
}

impl<'a> ResultView<'a> {
    /// Check a record's payload as libpcp's `__pmDecodeResult` does:
    /// value sets back to back after the timestamp, a `numval` no larger
    /// than the record, `valfmt` 0, 1 or 2, and value blocks that start
    /// right after the last value set and fill the rest of the record
    /// exactly (each padded to 4 bytes). Anything else is
    /// `PM_ERR_LOGREC` (libpcp's archive reader turns the decoder's
    /// `PM_ERR_IPC` into that).
    pub fn new(payload: &'a [u8], version: Version) -> Result<ResultView<'a>, PmError> {
        let pdulen = PDU_HDR + payload.len();
        let bytes = preamble(version);
        if pdulen < bytes {
            return Err(LOGREC);
        }
        let mut r = Reader::new(payload);
        let stamp = r.stamp(version, LOGREC)?;
        let numpmid = r.i32(LOGREC)?;
        if numpmid < 0 || numpmid as usize > pdulen {
            return Err(LOGREC);
        }
        // libpcp's checks, finding where the value sets end and where the
        // value blocks lie
        let mut vsize = 0usize;
        let mut vbsize = 0usize;
        let mut vsplit = pdulen;
        for _ in 0..numpmid {
            let vlp = bytes + vsize;
            if vlp + 8 > pdulen {
                return Err(LOGREC);
            }
            vsize += 8;
            let numval = word_at(payload, vlp + 4).ok_or(LOGREC)?;
            if numval > 0 && numval as usize > pdulen {
                return Err(LOGREC);
            }
            if numval <= 0 {
                continue;
            }
            if vlp + 12 > pdulen {
                return Err(LOGREC);
            }
            let valfmt = word_at(payload, vlp + 8).ok_or(LOGREC)?;
            if !(0..=2).contains(&valfmt) {
                return Err(LOGREC);
            }
            vsize += 4 + numval as usize * 8;
            if valfmt == 0 {
                continue;
            }
            for j in 0..numval as usize {
                let pduvp = vlp + 12 + 8 * j;
                if pduvp + 8 > pdulen {
                    return Err(LOGREC);
                }
                let vindex = word_at(payload, pduvp + 4).ok_or(LOGREC)?;
                if vindex < 0 || vindex as usize > pdulen {
                    return Err(LOGREC);
                }
                let at = 4 * vindex as usize;
                vsplit = vsplit.min(at);
                let head = word_at(payload, at).ok_or(LOGREC)? as u32;
                let vlen = (head & 0x00ff_ffff) as usize;
                if vlen < 4 || vlen > pdulen || vlen > pdulen - at {
                    return Err(LOGREC);
                }
                vbsize += padded(vlen);
            }
        }
        let offset = bytes + vsize;
        if offset != vsplit || offset + vbsize != pdulen {
            return Err(LOGREC);
        }
        Ok(ResultView { payload, stamp, numpmid: numpmid as usize, sets_at: bytes })
    }

    /// When.
    pub fn timestamp(&self) -> Timestamp {
        self.stamp.instant()
    }

    /// When, as logged.
    pub fn stamp(&self) -> Stamp {
        self.stamp
    }

    /// The number of value sets (0 for a mark record).
    pub fn numpmid(&self) -> usize {
        self.numpmid
    }

    /// The value sets, in record order.
    pub fn sets(&self) -> impl Iterator<Item = SetView<'a>> + 'a {
        let payload = self.payload;
        let mut at = self.sets_at;
        (0..self.numpmid).map(move |_| {
            let pmid = PmId(word_at(payload, at).unwrap_or(-1) as u32);
            let numval = word_at(payload, at + 4).unwrap_or(0);
            at += 8;
            let mut valfmt = 0;
            let values_at = at + 4;
            if numval > 0 {
                valfmt = word_at(payload, at).unwrap_or(0);
                at += 4 + 8 * numval as usize;
            }
            SetView { payload, pmid, numval, valfmt, values_at }
        })
    }

    /// The owned form.
    pub fn to_result(&self) -> Result<FetchResult, PmError> {
        Ok(FetchResult { timestamp: self.timestamp(), sets: self.sets().map(|s| s.to_set()).collect() })
    }
}

impl<'a> SetView<'a> {
    /// The values with their instances (none for a set with an error).
    #[inline]
    pub fn values(&self) -> impl Iterator<Item = (i32, ValueView<'a>)> + 'a {
        let (payload, valfmt) = (self.payload, self.valfmt);
        let n = self.numval.max(0) as usize;
        let start = self.values_at.saturating_sub(PDU_HDR);
        // the (instance, value) pairs lie together; the record was checked
        let pairs = payload.get(start..start + 8 * n).unwrap_or_default();
        pairs.chunks_exact(8).map(
            #[inline(always)]
            move |p| value_at(payload, valfmt, p),
        )
    }

    /// The owned form.
    pub fn to_set(&self) -> ValueSet {
        let values = match self.numval {
            0 => Ok(Vec::new()),
            n if n < 0 => Err(PmError::from_code(n)),
            _ => Ok(self.values().map(|(inst, v)| InstValue { inst, value: v.to_value() }).collect()),
        };
        ValueSet { pmid: self.pmid, values }
    }
}

/// One (instance, value) pair of a value set.
#[inline(always)]
fn value_at<'a>(payload: &'a [u8], valfmt: i32, p: &[u8]) -> (i32, ValueView<'a>) {
    let word = |i: usize| p.get(i..i + 4).map_or(0, |b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    let (inst, value) = (word(0), word(4));
    if valfmt == 0 {
        return (inst, ValueView::Insitu(value));
    }
    let head_at = 4 * value.max(0) as usize;
    let head = word_at(payload, head_at).unwrap_or(0) as u32;
    let vlen = (head & 0x00ff_ffff) as usize;
    let start = (head_at + 4).saturating_sub(PDU_HDR);
    let data = payload.get(start..start + vlen.saturating_sub(4)).unwrap_or_default();
    (inst, ValueView::Block((head >> 24) as u8, data))
}

impl ValueView<'_> {
    /// The owned form: numbers and event arrays in the little-endian form
    /// [`ValueBlock`] keeps.
    pub fn to_value(&self) -> Value {
        match *self {
            ValueView::Insitu(l) => Value::Insitu(l),
            ValueView::Block(vtype, bytes) => Value::Block(host_block(vtype, bytes)),
        }
    }
}

/// A value block's bytes as recorded, turned into the little-endian
/// form [`ValueBlock`] keeps.
fn host_block(vtype: u8, bytes: &[u8]) -> ValueBlock {
    let mut data = pcp_core::BlockData::from_slice(bytes);
    match MetricType(vtype as i32) {
        // the numeric types travel big-endian; keep them little-endian
        MetricType::I64 | MetricType::U64 | MetricType::DOUBLE | MetricType::FLOAT if matches!(data.len(), 4 | 8) => {
            data.reverse()
        }
        MetricType::EVENT => pcp_core::event::to_host_order(&mut data, false),
        MetricType::HIGHRES_EVENT => pcp_core::event::to_host_order(&mut data, true),
        _ => {}
    }
    ValueBlock::new(vtype, data)
}

/// libpcp's `paranoidCheck`: the looser sanity check its archive reader
/// applies to a record (length words included in `len`) before decoding
/// it when it hunts for the end of an archive. `true` if it passes.
#[doc(alias = "paranoidCheck")]
pub fn paranoid_check(payload: &[u8], version: Version) -> bool {
    let len = payload.len() as i64 + 8;
    let (hdrsz, ts) = match version {
        Version::V3 => (24i64, 12usize),
        Version::V2 => (20i64, 8usize),
    };
    if len < hdrsz {
        return false;
    }
    let word = |p: usize| payload.get(p..p + 4).map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    let Some(numpmid) = word(ts) else { return false };
    if numpmid < 1 && len != hdrsz {
        return false;
    }
    // offsets below are into the payload; value block indexes count words
    // of libpcp's buffer, which has the 12-byte PDU header in front
    let data = ts + 4;
    let (mut vsize, mut vbsize) = (0i64, 0i64);
    for _ in 0..numpmid.max(0) {
        let vlp = data as i64 + vsize;
        vsize += 8;
        if len < hdrsz + vsize + vbsize {
            return false;
        }
        let Some(numval) = word(vlp as usize + 4) else { return false };
        if numval <= 0 {
            continue;
        }
        // a record too short to hold the valfmt word has libpcp read the
        // trailing length word there, which is never a valid valfmt
        let Some(valfmt) = word(vlp as usize + 8) else { return false };
        if !(0..=2).contains(&valfmt) {
            return false;
        }
        vsize += 4 + numval as i64 * 8;
        if valfmt == 0 {
            continue;
        }
        for j in 0..numval as i64 {
            let Some(index) = word((vlp + 12 + 8 * j + 4) as usize) else { return false };
            if index < 0 || index as i64 * 4 > len {
                return false;
            }
            let Some(head) = (index as usize * 4).checked_sub(PDU_HDR).and_then(word) else { return false };
            let vlen = (head as u32 & 0x00ff_ffff) as i64;
            if vlen < 4 {
                return false;
            }
            vbsize += (vlen + 3) & !3;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_compare_as_libpcp_cuts_the_difference_to_an_int() {
        let at = |sec, nsec| Stamp { sec, nsec };
        assert!(at(10, -1000).libpcp_cmp(at(10, 0)).is_lt());
        assert_eq!(at(10, -1000).instant(), Timestamp::new(9, 999_999_000));
        // 2106 against INT_MAX seconds: 2^31 apart, so "earlier"
        assert!(at(0xffff_ffff, 0).libpcp_cmp(at(i32::MAX.into(), 0)).is_lt());
        assert!(at(0xffff_ffff, 0).libpcp_cmp(at(1_700_000_000, 0)).is_lt());
        assert!(at(1_700_000_000, 0).libpcp_cmp(at(1_600_000_000, 5)).is_gt());
        // a version 2 record's microseconds wrap as libpcp multiplies them
        let v2 = [0, 0, 0, 100, 0xff, 0xff, 0xff, 0xff];
        assert_eq!(Reader::new(&v2).stamp(Version::V2, LOGREC).unwrap(), at(100, -1000));
    }

    fn framed(payload: &[u8]) -> Vec<u8> {
        let len = (payload.len() + 8) as u32;
        let mut v = len.to_be_bytes().to_vec();
        v.extend_from_slice(payload);
        v.extend_from_slice(&len.to_be_bytes());
        v
    }

    #[test]
    fn framing_checks_both_lengths() {
        let rec = framed(b"abcd");
        assert_eq!(next_record(&rec).unwrap(), Some((&b"abcd"[..], 12)));
        let mut bad = rec.clone();
        bad[11] ^= 1;
        assert_eq!(next_record(&bad), Err(PmError::PM_ERR_LOGREC));
        assert_eq!(next_record(&rec[..10]), Err(PmError::PM_ERR_LOGREC));
        assert_eq!(next_record(&[]), Ok(None));
    }

    #[test]
    fn v3_seconds_are_low_word_first() {
        // the start of tests/fixtures/v3.index's first entry (pmlogger on x86-64)
        let bytes = [0x6b, 0x01, 0xe2, 0x0a, 0, 0, 0, 0, 0x2e, 0xe3, 0xb3, 0xab];
        let t = Reader::new(&bytes).timestamp(Version::V3, LOGREC).unwrap();
        assert_eq!(t, Timestamp::new(0x6b01_e20a, 0x2ee3_b3ab));
    }

    #[test]
    fn a_mark_record_is_an_empty_result() {
        let mut p = Vec::new();
        p.extend_from_slice(&5i32.to_be_bytes());
        p.extend_from_slice(&7u32.to_be_bytes());
        p.extend_from_slice(&0i32.to_be_bytes());
        let res = decode_result(&p, Version::V2).unwrap();
        assert!(res.sets.is_empty());
        assert_eq!(res.timestamp, Timestamp::new(5, 7000));
    }

    #[test]
    fn hostile_counts_are_refused_without_allocating() {
        let mut p = vec![0u8; 12];
        p[8..12].copy_from_slice(&i32::MAX.to_be_bytes());
        assert_eq!(decode_result(&p, Version::V2), Err(PmError::PM_ERR_LOGREC));
        let mut d = meta_type::DESC.to_be_bytes().to_vec();
        d.extend_from_slice(&[0u8; 20]);
        d.extend_from_slice(&i32::MAX.to_be_bytes());
        assert_eq!(MetaRecord::decode(&d, Version::V2), Err(PmError::PM_ERR_LOGREC));
    }

    proptest::proptest! {
        #[test]
        fn decoders_never_panic(data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400)) {
            let _ = Label::decode(&data);
            let _ = next_record(&data);
            for v in [Version::V2, Version::V3] {
                if let Ok(MetaRecord::InDom { instances, .. }) = MetaRecord::decode(&data, v) {
                    // checked once: read in place without panicking
                    let instances = instances.get().expect("instances read with the record");
                    let _ = instances.iter().count() + instances.sorted().len();
                    let _ = (0..instances.len()).filter_map(|k| instances.shared_name(k)).count();
                }
                let _ = decode_result(&data, v);
                let _ = IndexEntry::decode_all(&data, v);
            }
        }
    }
}
