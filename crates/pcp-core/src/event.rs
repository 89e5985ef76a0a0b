//! Packed event record arrays: the values of `PM_TYPE_EVENT` and
//! `PM_TYPE_HIGHRES_EVENT` metrics (`pmEventArray`, `pmHighResEventArray`).
//!
//! An event array travels as one value block. After the block's
//! type/length word come the record count and the records, each a
//! timestamp, flags, a parameter count and the parameters; a parameter is
//! a PMID, a type/length word and its value padded to 4 bytes. On the wire
//! and in archives every field is big-endian; a [`ValueBlock`] holds the
//! array as libpcp does once decoded, every field little-endian (see
//! [`to_host_order`], which the archive and PDU codecs use).
//!
//! Everything here reads a block's bytes with checked offsets. Where
//! libpcp walks an array without bounds checks (`pmPrintValue`'s summary,
//! the byte-order walk), bytes past the end of the block read as zero.

use crate::error::{PmError, PmResult};
use crate::ids::{PmId, PM_IN_NULL};
use crate::time::LocalTime;
use crate::types::MetricType;
use crate::value::{BlockData, InstValue, Value, ValueBlock, ValueSet};
use std::io::Write;

/// `PM_EVENT_FLAG_POINT`: an event at a point in time.
pub const FLAG_POINT: u32 = 1;
/// `PM_EVENT_FLAG_START`: the start of a set of related events.
pub const FLAG_START: u32 = 2;
/// `PM_EVENT_FLAG_END`: the end of a set of related events.
pub const FLAG_END: u32 = 4;
/// `PM_EVENT_FLAG_ID`: the first parameter identifies the set.
pub const FLAG_ID: u32 = 8;
/// `PM_EVENT_FLAG_PARENT`: the second parameter is the parent's id.
pub const FLAG_PARENT: u32 = 16;
/// `PM_EVENT_FLAG_MISSED`: not a record, a count of records missed.
pub const FLAG_MISSED: u32 = 0x8000_0000;

/// The PMID of the anonymous metric `event.flags` (511.0.1), which
/// carries a record's non-zero flags when records are unpacked.
pub const EVENT_FLAGS_PMID: PmId = PmId::new(511, 0, 1);
/// The PMID of the anonymous metric `event.missed` (511.0.2), which
/// carries the count of a "missed" record.
pub const EVENT_MISSED_PMID: PmId = PmId::new(511, 0, 2);

/// Bytes of a record's header: timestamp, flags and parameter count.
fn header_size(highres: bool) -> usize {
    if highres {
        24
    } else {
        16
    }
}

/// `PM_PDU_SIZE_BYTES`: rounded up to a whole 4-byte word.
fn padded(len: usize) -> usize {
    (len + 3) & !3
}

/// Little-endian reads at an offset of the block's data; bytes past the
/// end read as zero.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn get<const N: usize>(&self, at: usize) -> [u8; N] {
        let mut w = [0u8; N];
        for (i, b) in w.iter_mut().enumerate() {
            *b = at.checked_add(i).and_then(|j| self.0.get(j)).copied().unwrap_or(0);
        }
        w
    }
    fn u32(&self, at: usize) -> u32 {
        u32::from_le_bytes(self.get(at))
    }
    fn i32(&self, at: usize) -> i32 {
        i32::from_le_bytes(self.get(at))
    }
    fn i64(&self, at: usize) -> i64 {
        i64::from_le_bytes(self.get(at))
    }
}

/// One record's header as libpcp reads it.
#[derive(Clone, Copy, Debug)]
struct Head {
    sec: i64,
    frac: i64,
    flags: u32,
    nparams: i32,
}

fn head(b: &Bytes, at: usize, highres: bool) -> Head {
    if highres {
        Head { sec: b.i64(at), frac: b.i64(at + 8), flags: b.u32(at + 16), nparams: b.i32(at + 20) }
    } else {
        Head { sec: b.i32(at) as i64, frac: b.i32(at + 4) as i64, flags: b.u32(at + 8), nparams: b.i32(at + 12) }
    }
}

/// A parameter's PMID, type byte and length (which counts its 4-byte
/// type/length word).
fn param(b: &Bytes, at: usize) -> (PmId, u8, usize) {
    let word = b.u32(at + 4);
    (PmId(b.u32(at)), (word >> 24) as u8, (word & 0x00ff_ffff) as usize)
}

/// Convert an event array from its big-endian wire form to the
/// little-endian form a [`ValueBlock`] holds (libpcp's `ntohEventArray`):
/// the record count, each record's timestamp, flags and parameter count,
/// each parameter's PMID and type/length word, and numeric parameter
/// values. The walk stops where the array's counts run past `data`.
#[doc(alias = "__ntohpmValueBlock")]
pub fn to_host_order(data: &mut [u8], highres: bool) {
    swap_walk(data, highres, true);
}

/// [`to_host_order`], telling whether the walk ended inside `data` with
/// no bytes turned twice (`false` where libpcp would have turned bytes
/// beyond the array, or where [`to_network_order`] would not undo it).
pub fn to_host_order_checked(data: &mut [u8], highres: bool) -> bool {
    swap_walk(data, highres, true)
}

/// [`to_network_order`], telling whether the walk ended inside `data`
/// with no bytes turned twice.
pub fn to_network_order_checked(data: &mut [u8], highres: bool) -> bool {
    swap_walk(data, highres, false)
}

/// Convert an event array from the little-endian form a [`ValueBlock`]
/// holds to its big-endian wire form (libpcp's `htonEventArray`), the
/// inverse of [`to_host_order`]: counts, flags and lengths are read before
/// their bytes are turned. The walk stops where the array's counts run
/// past `data`.
#[doc(alias = "__htonpmValueBlock")]
pub fn to_network_order(data: &mut [u8], highres: bool) {
    swap_walk(data, highres, false);
}

/// The byte-order walk both ways: each field is reversed in place, and
/// the counts that steer the walk are read in host (little-endian) order,
/// after the swap when converting to host order and before it otherwise.
/// `false` if the walk stopped at a field running past the end, ended
/// past it, or turned a parameter's bytes twice (a parameter shorter
/// than its type/length word and value): then converting back does not
/// give the bytes the walk started from.
fn swap_walk(data: &mut [u8], highres: bool, to_host: bool) -> bool {
    fn swap(data: &mut [u8], at: usize, n: usize) -> bool {
        match at.checked_add(n).and_then(|end| data.get_mut(at..end)) {
            Some(s) => {
                s.reverse();
                true
            }
            None => false,
        }
    }
    // swap the fields of `sizes` starting at `at` one after the other,
    // stopping at the first that runs past the end; the host form is read
    // after the swaps going to host order and before them going to network
    fn fields<T>(data: &mut [u8], at: usize, sizes: &[usize], to_host: bool, read: impl Fn(&Bytes) -> T) -> Option<T> {
        let before = (!to_host).then(|| read(&Bytes(data)));
        let mut off = at;
        for &n in sizes {
            if !swap(data, off, n) {
                return None;
            }
            off += n;
        }
        Some(before.unwrap_or_else(|| read(&Bytes(data))))
    }
    let Some(nrecords) = fields(data, 0, &[4], to_host, |b| b.i32(0)) else {
        return false;
    };
    let header: &[usize] = if highres { &[8, 8, 4, 4] } else { &[4, 4, 4, 4] };
    let mut base = 4usize;
    let mut whole = true;
    for _ in 0..nrecords.max(0) {
        let Some(h) = fields(data, base, header, to_host, |b| head(b, base, highres)) else {
            return false;
        };
        base += header_size(highres);
        let nparams = if h.flags & FLAG_MISSED != 0 { 0 } else { h.nparams };
        for _ in 0..nparams.max(0) {
            let Some((_, ty, len)) = fields(data, base, &[4, 4], to_host, |b| param(b, base)) else {
                return false;
            };
            let value_len = match MetricType(ty as i32) {
                MetricType::I32 | MetricType::U32 | MetricType::FLOAT => 4,
                MetricType::I64 | MetricType::U64 | MetricType::DOUBLE => 8,
                _ => 0,
            };
            if value_len > 0 && !swap(data, base + 8, value_len) {
                return false;
            }
            // a parameter shorter than what was turned leaves the next one
            // overlapping it, and the walk is not its own inverse
            whole &= padded(len) >= 4 + value_len;
            base += 4 + padded(len);
        }
    }
    whole && base <= data.len()
}

/// `__pmCheckEventRecords` / `__pmCheckHighResEventRecords`: is the array
/// in `block` whole? `PM_ERR_TYPE` for a block of another type,
/// `PM_ERR_TOOSMALL` for no room for the count or a negative count,
/// `PM_ERR_TOOBIG` when a record or parameter runs past the block, and
/// `PM_ERR_CONV` for a "missed" record with other flags set.
#[doc(alias = "__pmCheckEventRecords")]
pub fn check(block: &ValueBlock, highres: bool) -> PmResult<()> {
    let want = if highres { MetricType::HIGHRES_EVENT } else { MetricType::EVENT };
    if block.vtype as i32 != want.0 {
        return Err(PmError::PM_ERR_TYPE);
    }
    let data = &block.data;
    if data.len() < 4 {
        return Err(PmError::PM_ERR_TOOSMALL);
    }
    let b = Bytes(data);
    let nrecords = b.i32(0);
    if nrecords < 0 {
        return Err(PmError::PM_ERR_TOOSMALL);
    }
    let end = data.len();
    let mut base = 4usize;
    for _ in 0..nrecords {
        if base + header_size(highres) > end {
            return Err(PmError::PM_ERR_TOOBIG);
        }
        let h = head(&b, base, highres);
        base += header_size(highres);
        let nparams = if h.flags & FLAG_MISSED == 0 {
            h.nparams
        } else if h.flags == FLAG_MISSED {
            0
        } else {
            return Err(PmError::PM_ERR_CONV);
        };
        for _ in 0..nparams.max(0) {
            if base + 8 > end {
                return Err(PmError::PM_ERR_TOOBIG);
            }
            let (_, _, len) = param(&b, base);
            let size = 4 + padded(len);
            if base + size > end {
                return Err(PmError::PM_ERR_TOOBIG);
            }
            base += size;
        }
    }
    Ok(())
}

/// One unpacked event record: its timestamp as stored and the value sets
/// `pmUnpackEventRecords` makes of its flags and parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct EventRecord {
    /// Seconds since the epoch.
    pub sec: i64,
    /// Microseconds (`PM_TYPE_EVENT`) or nanoseconds
    /// (`PM_TYPE_HIGHRES_EVENT`), as stored (not range checked).
    pub frac: i64,
    /// libpcp's `numpmid` for the record: the parameter count, one more
    /// for non-zero flags, 2 for a "missed" record. It may be negative
    /// for a negative parameter count.
    pub numpmid: i32,
    /// One value set a parameter (or for `event.flags` and
    /// `event.missed`), each with one value; `numpmid` of them when that
    /// is positive.
    pub sets: Vec<ValueSet>,
}

/// `pmUnpackEventRecords` / `pmUnpackHighResEventRecords`: the records of
/// the array in `block`, after [`check`]. A record's non-zero flags
/// become a first value set of `event.flags`; a "missed" record's count a
/// second one of `event.missed`. A parameter of an event type or an
/// unknown type is `PM_ERR_TYPE`.
#[doc(alias = "pmUnpackEventRecords")]
#[doc(alias = "pmUnpackHighResEventRecords")]
pub fn unpack(block: &ValueBlock, highres: bool) -> PmResult<Vec<EventRecord>> {
    check(block, highres)?;
    let b = Bytes(&block.data);
    let nrecords = b.i32(0);
    let mut records = Vec::new();
    let mut base = 4usize;
    for _ in 0..nrecords {
        let h = head(&b, base, highres);
        let numpmid = if h.flags == 0 {
            h.nparams
        } else if h.flags & FLAG_MISSED != 0 {
            2
        } else {
            h.nparams.wrapping_add(1)
        };
        base += header_size(highres);
        let one = |pmid: PmId, value: Value| ValueSet { pmid, values: Ok(vec![InstValue { inst: PM_IN_NULL, value }]) };
        let mut sets = Vec::new();
        for p in 0..numpmid.max(0) {
            if p == 0 && h.flags != 0 {
                sets.push(one(EVENT_FLAGS_PMID, Value::Insitu(h.flags as i32)));
                continue;
            }
            if p == 1 && h.flags & FLAG_MISSED != 0 {
                sets.push(one(EVENT_MISSED_PMID, Value::Insitu(h.nparams)));
                continue;
            }
            let (pmid, ty, len) = param(&b, base);
            let vbuf = base + 8;
            let value = match MetricType(ty as i32) {
                MetricType::I32 | MetricType::U32 => Value::Insitu(b.i32(vbuf)),
                MetricType::I64 | MetricType::U64 | MetricType::DOUBLE => {
                    Value::Block(ValueBlock::from_slice(ty, &b.get::<8>(vbuf)))
                }
                MetricType::FLOAT => Value::Block(ValueBlock::from_slice(ty, &b.get::<4>(vbuf))),
                MetricType::STRING | MetricType::AGGREGATE | MetricType::AGGREGATE_STATIC => {
                    let n = len.saturating_sub(4);
                    let data: BlockData = (0..n).map(|i| b.get::<1>(vbuf + i)[0]).collect();
                    Value::Block(ValueBlock::new(ty, data))
                }
                _ => return Err(PmError::PM_ERR_TYPE),
            };
            sets.push(ValueSet { pmid, values: Ok(vec![InstValue { inst: PM_IN_NULL, value }]) });
            base += 4 + padded(len);
        }
        records.push(EventRecord { sec: h.sec, frac: h.frac, numpmid, sets });
    }
    Ok(records)
}

/// `HH:MM:SS` of `sec` in the zone, or `??:??:??`.
fn hms(clock: &dyn LocalTime, sec: i64) -> String {
    match clock.hms(sec) {
        Some((h, m, s)) => format!("{h:02}:{m:02}:{s:02}"),
        None => "??:??:??".to_string(),
    }
}

/// `pmPrintStamp` (`HH:MM:SS.mmm`) or `pmPrintHighResStamp`
/// (`HH:MM:SS.nnnnnnnnn`) of a record's timestamp.
fn stamp(out: &mut Vec<u8>, clock: &dyn LocalTime, sec: i64, frac: i64, highres: bool) {
    if highres {
        let _ = write!(out, "{}.{:09}", hms(clock, sec), frac as i32);
    } else {
        let _ = write!(out, "{}.{:03}", hms(clock, sec), (frac / 1000) as i32);
    }
}

/// What `pmPrintValue` prints for an event array: the record count, the
/// number of missed records, and the first and last timestamps, e.g.
/// `[2 event records timestamps 19:36:48.411...19:36:48.411]`.
///
/// Like libpcp this trusts the array (it is not checked first), and once
/// it meets a "missed" record among all but the last it stops moving
/// through the array: that record's count is added once for each
/// remaining record, and the last timestamp shown is that record's.
#[doc(alias = "print_event_summary")]
pub fn summary(out: &mut Vec<u8>, data: &[u8], highres: bool, clock: &dyn LocalTime) {
    let b = Bytes(data);
    let nrecords = b.i32(0);
    let first = head(&b, 4, highres);
    let mut base = 4usize;
    let mut nmissed: i32 = 0;
    let mut r: i64 = 0;
    while r < nrecords as i64 - 1 {
        let h = head(&b, base, highres);
        if h.flags & FLAG_MISSED != 0 {
            // libpcp does not move on: every remaining pass sees this record
            let remaining = (nrecords as i64 - 1 - r) as i32;
            nmissed = nmissed.wrapping_add(h.nparams.wrapping_mul(remaining));
            break;
        }
        if base >= data.len() {
            // all zeros from here on: nothing more changes
            break;
        }
        base += header_size(highres);
        for _ in 0..h.nparams.max(0) {
            if base >= data.len() {
                break;
            }
            let (_, _, len) = param(&b, base);
            base += 4 + padded(len);
        }
        r += 1;
    }
    let _ = write!(out, "[{nrecords} event record");
    if nrecords != 1 {
        out.push(b's');
    }
    if nmissed > 0 {
        let _ = write!(out, " ({nmissed} missed)");
    }
    if nrecords > 0 {
        out.extend_from_slice(b" timestamp");
        if nrecords > 1 {
            out.push(b's');
        }
        out.push(b' ');
        stamp(out, clock, first.sec, first.frac, highres);
        if nrecords > 1 {
            out.extend_from_slice(b"...");
            let last = head(&b, base, highres);
            stamp(out, clock, last.sec, last.frac, highres);
        }
    }
    out.push(b']');
}

/// `pmEventFlagsStr`: the flag names, comma separated, or `missed`.
#[doc(alias = "pmEventFlagsStr")]
pub fn flags_str(flags: u32) -> String {
    if flags & FLAG_MISSED != 0 {
        return "missed".to_string();
    }
    let names =
        [(FLAG_POINT, "point"), (FLAG_START, "start"), (FLAG_END, "end"), (FLAG_ID, "id"), (FLAG_PARENT, "parent")];
    names.iter().filter(|(f, _)| flags & f != 0).map(|(_, n)| *n).collect::<Vec<_>>().join(",")
}

/// The value set an event array came from, as the diagnostic dump shows
/// it.
#[derive(Clone, Copy, Debug)]
pub struct DumpSource<'a> {
    /// The metric.
    pub pmid: PmId,
    /// The set's `numval`.
    pub numval: i32,
    /// The set's `valfmt` (`PM_VAL_INSITU` 0, `PM_VAL_DPTR` 1, `PM_VAL_SPTR` 2).
    pub valfmt: i32,
    /// The value's instance.
    pub inst: i32,
    /// The value's block, when it has one.
    pub block: Option<&'a ValueBlock>,
}

/// `__pmDumpEventRecords` / `__pmDumpHighResEventRecords`: the
/// diagnostic dump libpcp writes to standard error when an array fails
/// [`check`]. `names` gives a parameter PMID's names (`pmNameAll`).
#[doc(alias = "__pmDumpEventRecords")]
pub fn dump(out: &mut Vec<u8>, src: &DumpSource, highres: bool, names: &dyn Fn(PmId) -> Option<Vec<String>>) {
    let _ = write!(out, "Event Records Dump ...\nPMID: {} numval: {}", src.pmid, src.numval);
    if src.numval <= 0 {
        out.extend_from_slice(b"\nError: bad numval\n");
        return;
    }
    let _ = write!(out, " valfmt: {}", src.valfmt);
    let Some(block) = src.block.filter(|_| src.valfmt == 1 || src.valfmt == 2) else {
        out.extend_from_slice(b"\nError: bad valfmt\n");
        return;
    };
    if src.inst != PM_IN_NULL {
        let _ = write!(out, " inst: {}", src.inst);
    }
    let vlen = block.vlen();
    let _ = writeln!(out, " vtype: {} vlen: {}", MetricType(block.vtype as i32).name(), vlen);
    let want = if highres { MetricType::HIGHRES_EVENT } else { MetricType::EVENT };
    if block.vtype as i32 != want.0 {
        out.extend_from_slice(if highres { b"Error: bad highres vtype\n" } else { b"Error: bad vtype\n" });
        return;
    }
    let b = Bytes(&block.data);
    let end = block.data.len();
    let nrecords = b.i32(0);
    if vlen < 8 {
        out.extend_from_slice(b"Error: bad len (smaller than minimum size 8)\n");
    } else {
        let _ = writeln!(out, "nrecords: {nrecords}");
        if nrecords < 0 {
            out.extend_from_slice(b"Error: bad nrecords\n");
        } else if nrecords == 0 {
            out.extend_from_slice(b"Warning: no event records\n");
        }
    }
    let mut base = 4usize;
    for r in 0..nrecords.max(0) {
        let _ = write!(out, "Event Record [{r}]");
        if base + header_size(highres) > end {
            out.extend_from_slice(b" Error: buffer overflow\n");
            return;
        }
        let h = head(&b, base, highres);
        base += header_size(highres);
        if h.flags != 0 {
            let _ = write!(out, " flags={:x}", h.flags);
        }
        if h.flags & FLAG_MISSED != 0 {
            let _ = write!(out, "\n    ==> {} missed records", h.nparams);
            if h.flags != FLAG_MISSED {
                let _ = write!(out, " (Warning: extra flags {:x} ignored)", h.flags & !FLAG_MISSED);
            }
            out.push(b'\n');
            continue;
        }
        let _ = writeln!(out, " with {} parameters", h.nparams);
        for p in 0..h.nparams.max(0) {
            let _ = write!(out, "    Parameter [{p}]:");
            if base + 8 > end {
                out.extend_from_slice(b" Error: buffer overflow\n");
                return;
            }
            let (pmid, ty, len) = param(&b, base);
            let size = 4 + padded(len);
            if base + size > end {
                out.extend_from_slice(b" Error: buffer overflow\n");
                return;
            }
            match names(pmid) {
                Some(n) if !n.is_empty() => {
                    let _ = write!(out, " {}", n.join(" or "));
                }
                _ => {
                    let _ = write!(out, " {pmid}");
                }
            }
            let vbuf = base + 8;
            match MetricType(ty as i32) {
                MetricType::I32 => {
                    let _ = write!(out, " = {}", b.i32(vbuf));
                }
                MetricType::U32 => {
                    let _ = write!(out, " = {}", b.u32(vbuf));
                }
                MetricType::I64 => {
                    let _ = write!(out, " = {}", b.i64(vbuf));
                }
                MetricType::U64 => {
                    let _ = write!(out, " = {}", b.i64(vbuf) as u64);
                }
                MetricType::FLOAT => {
                    let f = f32::from_bits(b.u32(vbuf)) as f64;
                    let _ = write!(
                        out,
                        " = {}",
                        crate::support::cfmt::sprintf_f64_text("%.8g", &[], f).unwrap_or_default()
                    );
                }
                MetricType::DOUBLE => {
                    let d = f64::from_bits(b.i64(vbuf) as u64);
                    let _ = write!(
                        out,
                        " = {}",
                        crate::support::cfmt::sprintf_f64_text("%.16g", &[], d).unwrap_or_default()
                    );
                }
                MetricType::STRING => {
                    let n = len.saturating_sub(4);
                    let s: Vec<u8> = (0..n).map(|i| b.get::<1>(vbuf + i)[0]).collect();
                    // "%*.*s": up to a NUL, padded to the length
                    let text = &s[..s.iter().position(|&c| c == 0).unwrap_or(s.len())];
                    out.extend_from_slice(b" = \"");
                    out.resize(out.len() + n - text.len(), b' ');
                    out.extend_from_slice(text);
                    out.push(b'"');
                }
                MetricType::AGGREGATE | MetricType::AGGREGATE_STATIC => {
                    let _ = write!(out, " = [{:08x}...]", b.u32(vbuf));
                }
                MetricType::UNKNOWN => out.extend_from_slice(b" : unknown type"),
                _ => {
                    let _ = write!(out, " : bad type {ty}");
                }
            }
            out.push(b'\n');
            base += size;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Utc;

    /// A big-endian event array: records of (sec, usec, flags, params),
    /// each parameter (pmid, type, value bytes).
    /// A parameter: PMID, type and value bytes.
    type Param = (u32, u8, Vec<u8>);

    fn wire(records: &[(i32, i32, u32, Vec<Param>)], nparams_override: Option<i32>) -> Vec<u8> {
        let mut d = (records.len() as i32).to_be_bytes().to_vec();
        for (sec, usec, flags, params) in records {
            d.extend_from_slice(&sec.to_be_bytes());
            d.extend_from_slice(&usec.to_be_bytes());
            d.extend_from_slice(&flags.to_be_bytes());
            d.extend_from_slice(&nparams_override.unwrap_or(params.len() as i32).to_be_bytes());
            for (pmid, ty, v) in params {
                d.extend_from_slice(&pmid.to_be_bytes());
                d.extend_from_slice(&(((*ty as u32) << 24) | (v.len() as u32 + 4)).to_be_bytes());
                d.extend_from_slice(v);
                d.resize(padded(d.len()), 0);
            }
        }
        d
    }

    fn block(mut data: Vec<u8>) -> ValueBlock {
        to_host_order(&mut data, false);
        ValueBlock::new(MetricType::EVENT.0 as u8, data)
    }

    proptest::proptest! {
        #[test]
        fn checked_walks_undo_each_other(
            n in 0u8..4,
            rest in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..160),
            highres in proptest::prelude::any::<bool>(),
        ) {
            // small record counts and parameter counts, so walks get far
            let mut wire = vec![0, 0, 0, n];
            wire.extend(rest.iter().map(|b| if b % 3 == 0 { b % 4 } else { *b }));
            let mut host = wire.clone();
            if to_host_order_checked(&mut host, highres) {
                let mut back = host.clone();
                proptest::prop_assert!(to_network_order_checked(&mut back, highres));
                proptest::prop_assert_eq!(back, wire);
            }
        }
    }

    #[test]
    fn overlapping_parameters_are_reported() {
        // a 64-bit parameter whose length covers only its type/length word
        let mut d = wire(&[(1, 0, 0, vec![(9, 3u8, vec![])])], None);
        d.extend_from_slice(&[0; 8]);
        assert!(!to_host_order_checked(&mut d.clone(), false));
        let mut ok = wire(&[(1, 0, 0, vec![(9, 3u8, 7u64.to_be_bytes().to_vec())])], None);
        assert!(to_host_order_checked(&mut ok, false));
    }

    #[test]
    fn network_order_undoes_host_order() {
        let recs = vec![
            (10, 5000, FLAG_POINT, vec![(PmId::new(29, 0, 127).0, 0u8, 7i32.to_be_bytes().to_vec())]),
            (11, 0, FLAG_MISSED, vec![]),
            (12, 0, 0, vec![(9, 5u8, 2.5f64.to_be_bytes().to_vec()), (9, 6, b"abc\0".to_vec())]),
        ];
        let wire = wire(&recs, None);
        let mut host = wire.clone();
        to_host_order(&mut host, false);
        assert_ne!(host, wire);
        let mut back = host.clone();
        to_network_order(&mut back, false);
        assert_eq!(back, wire);
        // cut anywhere, both walks stop at the same field
        for cut in 0..wire.len() {
            let mut h = wire[..cut].to_vec();
            to_host_order(&mut h, false);
            to_network_order(&mut h, false);
            assert_eq!(h, wire[..cut], "cut at {cut}");
        }
    }

    #[test]
    fn unpacks_flags_parameters_and_missed_counts() {
        let recs = vec![
            (10, 5000, FLAG_POINT, vec![(PmId::new(29, 0, 127).0, 0u8, 7i32.to_be_bytes().to_vec())]),
            (11, 0, FLAG_MISSED, vec![]),
            (12, 0, 0, vec![(PmId::new(29, 0, 134).0, 6u8, b"hi\0".to_vec()), (9, 3, 5u64.to_be_bytes().to_vec())]),
        ];
        let mut d = wire(&recs, None);
        // the missed record's count lives in its parameter count
        d[4 + 28 + 12..4 + 28 + 16].copy_from_slice(&3i32.to_be_bytes());
        let b = block(d);
        assert_eq!(check(&b, false), Ok(()));
        let r = unpack(&b, false).unwrap();
        assert_eq!(r.len(), 3);
        assert_eq!((r[0].sec, r[0].frac, r[0].numpmid), (10, 5000, 2));
        assert_eq!(r[0].sets[0].pmid, EVENT_FLAGS_PMID);
        assert_eq!(r[0].sets[1].values.as_ref().unwrap()[0].value, Value::Insitu(7));
        assert_eq!(r[1].sets[1].pmid, EVENT_MISSED_PMID);
        assert_eq!(r[1].sets[1].values.as_ref().unwrap()[0].value, Value::Insitu(3));
        assert_eq!(r[2].numpmid, 2);
        let u64v = &r[2].sets[1].values.as_ref().unwrap()[0].value;
        assert_eq!(u64v, &Value::Block(ValueBlock::new(3, 5u64.to_le_bytes().to_vec())));
        let mut s = Vec::new();
        summary(&mut s, &b.data, false, &Utc);
        assert_eq!(
            String::from_utf8(s).unwrap(),
            "[3 event records (3 missed) timestamps 00:00:10.005...00:00:11.000]"
        );
    }

    #[test]
    fn damaged_arrays_are_refused() {
        let recs = vec![(1, 0, 0, vec![(5, 0u8, vec![0, 0, 0, 1])])];
        let d = wire(&recs, None);
        let mut short = d.clone();
        short.truncate(d.len() - 2);
        assert_eq!(check(&block(short), false), Err(PmError::PM_ERR_TOOBIG));
        assert_eq!(check(&block(vec![0, 0]), false), Err(PmError::PM_ERR_TOOSMALL));
        assert_eq!(check(&ValueBlock::new(7, d.clone()), false), Err(PmError::PM_ERR_TYPE));
        let bad = wire(&[(1, 0, FLAG_MISSED | FLAG_POINT, vec![])], None);
        assert_eq!(check(&block(bad), false), Err(PmError::PM_ERR_CONV));
        let nested = wire(&[(1, 0, 0, vec![(5, 9u8, vec![0; 8])])], None);
        assert_eq!(unpack(&block(nested), false), Err(PmError::PM_ERR_TYPE));
        let mut out = Vec::new();
        let b = block(wire(&recs, Some(4)));
        let src = DumpSource { pmid: PmId::new(1, 2, 3), numval: 1, valfmt: 1, inst: PM_IN_NULL, block: Some(&b) };
        dump(&mut out, &src, false, &|_| None);
        let text = String::from_utf8(out).unwrap();
        assert!(text.ends_with("Parameter [0]: 0.0.5 = 1\n    Parameter [1]: Error: buffer overflow\n"), "{text}");
    }

    #[test]
    fn flag_names() {
        assert_eq!(flags_str(FLAG_START | FLAG_ID | FLAG_PARENT), "start,id,parent");
        assert_eq!(flags_str(FLAG_MISSED | FLAG_POINT), "missed");
        assert_eq!(flags_str(0), "");
    }

    proptest::proptest! {
        #[test]
        fn never_panics(data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200), hr: bool) {
            let mut d = data.clone();
            to_host_order(&mut d, hr);
            let ty = if hr { 10 } else { 9 };
            let b = ValueBlock::new(ty, d);
            let _ = unpack(&b, hr);
            let mut out = Vec::new();
            summary(&mut out, &b.data, hr, &Utc);
            let src = DumpSource { pmid: PmId(1), numval: 1, valfmt: 1, inst: 0, block: Some(&b) };
            dump(&mut out, &src, hr, &|_| Some(vec!["a".into()]));
        }
    }
}
