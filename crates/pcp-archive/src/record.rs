//! Data volume records as libpcp's `__pmDecodeResult` takes them: the
//! checks a record must pass, its value sets found in the bytes read, and
//! libpcp's byte swapping where a record is not laid out plainly.

use crate::logread::{LogResult, LogSet, Ts};
use crate::raw::Version;
use pcp_core::{InstValue, PmError, Value, ValueBlock};
use std::sync::Arc;

fn be32(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4).map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
}

/// Bytes shared with the window they were read into: a record refers to
/// the window it was read from instead of copying.
#[derive(Clone, Debug)]
pub(crate) struct Bytes {
    pub(crate) buf: Arc<Vec<u8>>,
    pub(crate) start: usize,
    pub(crate) len: usize,
}

impl Bytes {
    pub(crate) fn heap(v: Vec<u8>, start: usize) -> Bytes {
        let len = v.len().saturating_sub(start);
        Bytes { buf: Arc::new(v), start, len }
    }

    pub fn as_slice(&self) -> &[u8] {
        self.buf.get(self.start..self.start + self.len).unwrap_or_default()
    }

    pub fn len(&self) -> usize {
        self.len
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
    /// The record as the file holds it (`body` itself, unless swapped);
    /// empty for a mark made up by the reader.
    raw: Bytes,
}

impl Record {
    /// A record [`decode_record`] found laid out plainly before, with the
    /// value lists it found then (`index`): its head is read again, its
    /// layout not checked again.
    pub(crate) fn checked(body: Bytes, version: Version, index: crate::volume::Layout) -> Result<Record, PmError> {
        let (ts, first, numpmid) = record_head(body.as_slice(), version)?;
        Ok(Record { ts, raw: body.clone(), body, first, numpmid, index: index.to_vec(), swapped: false })
    }

    /// Where the value lists are, when the record is used as the file
    /// holds it (laid out plainly).
    pub(crate) fn plain_index(&self) -> Option<&[(u32, u32)]> {
        (!self.swapped && self.numpmid > 0).then_some(&self.index[..])
    }

    /// A mark record at `ts` made up by the reader (`__pmLogGenerateMark`,
    /// between the archives of a multi-archive context).
    pub fn mark(ts: Ts) -> Record {
        let body = Bytes::heap(Vec::new(), 0);
        Record { ts, raw: body.clone(), body, first: 0, numpmid: 0, index: Vec::new(), swapped: false }
    }

    /// The record after its length word, as the file holds it; empty for
    /// a mark made up by the reader.
    pub fn raw(&self) -> &[u8] {
        self.raw.as_slice()
    }

    pub fn is_mark(&self) -> bool {
        self.numpmid == 0
    }

    /// How many metrics the record has values for (none in a mark).
    pub fn numpmid(&self) -> usize {
        self.numpmid
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

/// Decode a record (the bytes after its length word): [`decode`].
pub(crate) fn decode_record(body: Bytes, version: Version) -> Result<Record, PmError> {
    decode_as(body, version, true)
}

/// [`decode_record`], using the record as it is in the file when
/// `as_read` and [`plain_layout`] allow.
fn decode_as(body: Bytes, version: Version, as_read: bool) -> Result<Record, PmError> {
    let (ts, first, numpmid) = record_head(body.as_slice(), version)?;
    let mut index = Vec::with_capacity(numpmid.min(body.len() / 8));
    if as_read && plain_layout(body.as_slice(), first, numpmid, &mut index) {
        return Ok(Record { ts, raw: body.clone(), body, first, numpmid, index, swapped: false });
    }
    let mut pdu = Vec::with_capacity(12 + body.len());
    pdu.extend_from_slice(&[0; 12]);
    pdu.extend_from_slice(body.as_slice());
    swap_and_check(&mut pdu, first, numpmid)?;
    let raw = body;
    let body = Bytes::heap(pdu, 12);
    let mut record = Record { ts, body, raw, first, numpmid, index: Vec::new(), swapped: true };
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
pub(crate) mod tests {
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
    pub(crate) struct Lcg(pub(crate) u64);

    impl Lcg {
        pub(crate) fn next(&mut self) -> u32 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 33) as u32
        }
        pub(crate) fn below(&mut self, n: u32) -> u32 {
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
}
