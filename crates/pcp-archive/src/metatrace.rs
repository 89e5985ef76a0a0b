//! libpcp's `-Dlogmeta` trace of loading an archive's metadata
//! (`__pmLogLoadMeta`): each record's header, each metric name, and what
//! `addindom`, `addlabel` and `addtext` are handed, with the complaints
//! of the readers of damaged records, in libpcp's order, stopping where
//! it stops.
//!
//! Our readers decode `.meta` once at open, their own way
//! ([`crate::files::RecordReader::next_meta_record`]); this module reads
//! the file again, only when the trace asks for it, and says what libpcp
//! would have said. It follows libpcp's reads byte for byte (a read of
//! fewer bytes than asked for shows how many came), so it needs no more of
//! the decoders than the wire layouts.

use crate::logread::Ts;
use pcp_core::debug::Trace;
use pcp_core::{InDom, PmId};
use std::collections::HashMap;
use std::fmt::Write;

/// `__pmLogMetaTypeStr`: a metadata record type's name.
pub(crate) fn meta_type_str(ty: i32) -> &'static str {
    const NAMES: [&str; 8] = ["???", "DESC", "INDOM_V2", "LABEL_V2", "TEXT", "INDOM", "INDOM_DELTA", "LABEL"];
    usize::try_from(ty).ok().and_then(|t| NAMES.get(t)).copied().unwrap_or("???")
}

/// A file read as libpcp's `__pmFread` reads it: a read gives what is
/// left when that is less than asked for, and then the file is at its
/// end.
struct File<'a> {
    data: &'a [u8],
    pos: usize,
    eof: bool,
}

impl<'a> File<'a> {
    fn read(&mut self, n: usize) -> &'a [u8] {
        let got = n.min(self.data.len().saturating_sub(self.pos));
        if got < n {
            self.eof = true;
        }
        let b = &self.data[self.pos..self.pos + got];
        self.pos += got;
        b
    }

    /// A word read into `word` (its first bytes only when fewer came, the
    /// rest left as they were, as a short `fread` into a variable leaves
    /// them), then taken from network order; how many bytes came.
    fn word(&mut self, word: &mut [u8; 4]) -> usize {
        let b = self.read(4);
        word[..b.len()].copy_from_slice(b);
        b.len()
    }
}

fn be32(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4).map_or(0, |w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
}

/// `__pmLoadTimestamp` of an on-disk version 3 time (seconds in two
/// words, the low one first as libpcp lays them out on this byte order,
/// then nanoseconds), `__pmLoadTimeval` of a version 2 one (seconds,
/// microseconds).
fn load_time(b: &[u8], v3: bool) -> Ts {
    if v3 {
        Ts { sec: (u64::from(be32(b, 4)) << 32 | u64::from(be32(b, 0))) as i64, nsec: be32(b, 8) as i32 }
    } else {
        Ts { sec: i64::from(be32(b, 0) as i32), nsec: (be32(b, 4) as i32).wrapping_mul(1000) }
    }
}

/// The trace of `__pmLogLoadMeta` over `data`, the whole (decompressed)
/// `.meta` file whose label is of format `version`, appended to `out`.
pub(crate) fn load_meta_trace(data: &[u8], version: u32, trace: &Trace, out: &mut String) {
    let label = if version == 3 { 808 } else { 132 };
    let mut f = File { data, pos: label, eof: false };
    let mut descs: HashMap<u32, [u32; 4]> = HashMap::new();
    let mut numpmid = 0;
    // (the trailer word, which a short read leaves partly as it was)
    let mut check = [0u8; 4];
    let time = |t: Ts| t.shown(trace).to_string();
    let ok = loop {
        let start = f.pos;
        let head = f.read(8);
        let (len, ty) = (be32(head, 0) as i32, be32(head, 4) as i32);
        if head.len() != 8 || len <= 0 {
            if f.eof {
                break true;
            }
            let _ = writeln!(out, "__pmLogLoadMeta: header read -> {}: expected: 8 or len={len}", head.len());
            break false;
        }
        let _ = writeln!(out, "__pmLogLoadMeta: record len={len}, type={} ({ty}) @ offset={start}", meta_type_str(ty));
        let rlen = len - 12;
        match ty {
            1 => {
                numpmid += 1;
                let d = f.read(20);
                if d.len() != 20 {
                    let _ = writeln!(out, "__pmLogLoadMeta: pmDesc read -> {}: expected: 20", d.len());
                    break false;
                }
                let pmid = be32(d, 0);
                let fields = [be32(d, 4), be32(d, 8), be32(d, 12), be32(d, 16) & 0xffff_ff00];
                // __pmLogAddDesc: a later descriptor must agree with the first
                if descs.entry(pmid).or_insert(fields) != &fields {
                    break false;
                }
                let mut word = [0u8; 4];
                let n = f.word(&mut word);
                if n != 4 {
                    let _ = writeln!(out, "__pmLogLoadMeta: numnames read -> {n}: expected: 4");
                    break false;
                }
                let numnames = i32::from_be_bytes(word);
                for i in 0..numnames.max(0) {
                    let n = f.word(&mut word);
                    if n != 4 {
                        let _ = writeln!(out, "__pmLogLoadMeta: len name[{i}] read -> {n}: expected: 4");
                        return;
                    }
                    let Ok(nlen) = usize::try_from(i32::from_be_bytes(word)) else {
                        // (a read of nearly 2^64 bytes: what it gives
                        // depends on the C library's buffering)
                        return;
                    };
                    let name = f.read(nlen);
                    if name.len() != nlen {
                        let _ = writeln!(out, "__pmLogLoadMeta: name[{i}] read -> {}: expected: {nlen}", name.len());
                        return;
                    }
                    let name = name.split(|&b| b == 0).next().unwrap_or_default();
                    let _ =
                        writeln!(out, "__pmLogLoadMeta: PMID: {} name: {}", PmId(pmid), String::from_utf8_lossy(name));
                }
            }
            2 | 5 | 6 => {
                let Ok(rlen) = usize::try_from(rlen) else { break false };
                let b = f.read(rlen);
                if b.len() != rlen {
                    let _ = writeln!(out, "__pmLogLoadInDom: indom read -> {}: expected: {rlen}", b.len());
                    break false;
                }
                if !load_indom(b, ty, trace, out) {
                    break false;
                }
            }
            3 | 7 => {
                let Ok(rlen) = usize::try_from(rlen) else { break false };
                let b = f.read(rlen);
                if b.len() != rlen {
                    let _ = writeln!(out, "__pmLogLoadMeta: label read -> {}: expected: {rlen}", b.len());
                    break false;
                }
                let (v3, at) = if ty == 7 { (true, 12) } else { (false, 8) };
                let (stamp, lty, ident, nsets) =
                    (load_time(b, v3), be32(b, at), be32(b, at + 4), be32(b, at + 8) as i32);
                if !label_sets_load(b, at + 12, nsets, out) {
                    break false;
                }
                let _ = writeln!(out, "addlabel( ..., {lty}, {ident}, {}, nsets={nsets})", time(stamp));
            }
            4 => {
                let Ok(rlen) = usize::try_from(rlen) else { break false };
                let b = f.read(rlen);
                if b.len() != rlen {
                    let _ = writeln!(out, "__pmLogLoadMeta: text read -> {}: expected: {rlen}", b.len());
                    break false;
                }
                let (kind, ident) = (be32(b, 0), be32(b, 4));
                if kind & 3 == 0 {
                    let _ = writeln!(out, "__pmLogLoadMeta: bad text type -> 0x{kind:x}");
                    continue;
                }
                let what = if kind & 8 != 0 {
                    format!("{} (indom)", InDom(ident))
                } else if kind & 4 != 0 {
                    PmId(ident).to_string()
                } else {
                    let _ = writeln!(out, "__pmLogLoadMeta: bad text ident -> 0x{kind:x}");
                    continue;
                };
                let level = match (kind & 1 != 0, kind & 2 != 0) {
                    (true, true) => "ONELINE|HELP",
                    (true, false) => "ONELINE",
                    _ => "HELP",
                };
                let _ = writeln!(out, "addtext( ..., {what}, {level})");
            }
            _ => {
                let _ = writeln!(out, "__pmLogLoadMeta: bad metadata record type ({ty}) @ offset={}", f.pos as i64 - 4);
                return;
            }
        }
        let n = f.word(&mut check);
        let c = i32::from_be_bytes(check);
        if n != 4 || c != len {
            let _ = writeln!(
                out,
                "__pmLogLoadMeta: trailer read -> {n} or len={c}: expected {len} @ offset={}",
                f.pos as i64 - 4
            );
            break false;
        }
        // (the C code swaps the word in place: a short read next time
        // leaves host-order bytes)
        check = c.to_ne_bytes();
    };
    if ok && numpmid == 0 {
        out.push_str("__pmLogLoadMeta: no metrics found?\n");
    }
}

/// `__pmLogLoadInDom` of a record's body `b` (after the header) of type
/// `ty`, then `addindom` when it has instances: whether it loaded.
fn load_indom(b: &[u8], ty: i32, trace: &Trace, out: &mut String) -> bool {
    let v3 = ty != 2;
    let (fixed, stamp) = if v3 { (12, load_time(b, true)) } else { (8, load_time(b, false)) };
    let indom = InDom(be32(b, fixed));
    let numinst = be32(b, fixed + 4) as i32;
    if numinst > 0 {
        let n = numinst as usize;
        let insts = fixed + 8;
        let stridx = insts + 4 * n;
        let max_idx = b.len() as i64 - 4 * (if v3 { 5 } else { 4 }) - 8 * n as i64;
        for i in 0..n {
            if stridx + 4 * i + 4 > b.len() {
                // (libpcp reads past the record here)
                return false;
            }
            let inst = be32(b, insts + 4 * i) as i32;
            if inst < 0 {
                let _ =
                    writeln!(out, "__pmLogLoadInDom: InDom: {indom}: instance[{i}]: bad instance identifier ({inst})");
                return false;
            }
            let idx = be32(b, stridx + 4 * i) as i32;
            if idx >= 0 {
                if i64::from(idx) > max_idx {
                    let _ = writeln!(
                        out,
                        "__pmLogLoadInDom: InDom: {indom} instance[{i}]: bad string index ({idx}) > max index based on record length ({max_idx})"
                    );
                    return false;
                }
            } else if !(ty == 6 && idx == -1) {
                let _ = writeln!(out, "__pmLogLoadInDom: InDom: {indom} instance[{i}]: bad string index ({idx})");
                return false;
            }
        }
        let _ = writeln!(
            out,
            "addindom( ..., {indom}, {}, type={}, numinst={numinst}, alloc=0x4)",
            stamp.shown(trace),
            meta_type_str(ty)
        );
    }
    true
}

/// `__pmLogLoadLabelSet`'s checks of the `nsets` label sets from `at` in
/// `b`: whether they load.
fn label_sets_load(b: &[u8], mut at: usize, nsets: i32, out: &mut String) -> bool {
    if nsets < 0 {
        let _ = writeln!(out, "__pmLogLoadLabelSet: illegal nsets ({nsets})");
        return false;
    }
    for _ in 0..nsets {
        if at + 8 > b.len() {
            return false;
        }
        let jsonlen = be32(b, at + 4) as i32;
        if !(0..=65535).contains(&jsonlen) {
            let _ = writeln!(out, "__pmLogLoadLabelSet: corrupted json in labelset. jsonlen={jsonlen}");
            return false;
        }
        at += 8 + jsonlen as usize;
        if at + 4 > b.len() {
            return false;
        }
        let nlabels = be32(b, at) as i32;
        at += 4;
        if nlabels > 0 {
            if nlabels > 255 || at + nlabels as usize * 8 > b.len() {
                let _ = writeln!(out, "__pmLogLoadLabelSet: corrupted labelset. nlabels={nlabels}");
                return false;
            }
            at += nlabels as usize * 8;
        }
    }
    true
}
