//! /proc/slabinfo (`mem.slabinfo.*`): the kernel's slab caches.

use super::area::{saved_cache, Area, Reader};
use super::Options;
use crate::cache::InstCache;
use crate::scan::{lines, Scan};
use crate::MetricDef;
use pcp_core::{AtomValue, PmError};
use std::collections::HashMap;

/// `CLUSTER_SLAB`.
const SLAB: u32 = 20;
/// The clusters served here.
pub(super) const CLUSTERS: [u32; 1] = [SLAB];
/// `SLAB_INDOM`: the caches by name.
const SLAB_INDOM: u32 = 12;
/// The instance domains kept here.
pub(super) const INDOMS: [u32; 1] = [SLAB_INDOM];

/// One cache's line: active and total objects, object size, active and
/// total slabs, pages and objects a slab, the active objects' bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Slab {
    active_objs: u64,
    total_objs: u64,
    object_size: u32,
    active_slabs: u32,
    total_slabs: u32,
    pages_per_slab: u32,
    objects_per_slab: u32,
    total_size: u64,
}

/// The version of the first line's `slabinfo - version: M.N`, (0, 0)
/// without one.
pub(super) fn version(first: &[u8]) -> (i32, i32) {
    if memchr::memmem::find(first, b"slabinfo - version:").is_none() {
        return (0, 0);
    }
    let Some(d) = first.iter().position(u8::is_ascii_digit) else { return (0, 0) };
    let mut s = Scan::new(&first[d..]);
    let major = s.i32().unwrap_or(0);
    let minor = if s.lit(b'.') { s.i32().unwrap_or(0) } else { 0 };
    (major, minor)
}

/// A cache's line in the file's version, with the name as the PMDA makes
/// it (white space inside it, before the numbers, as underscores);
/// `Err` for a line the version's format does not read (the PMDA stops
/// there, with PM_ERR_APPVERSION).
pub(super) fn slab_line(line: &[u8], (major, minor): (i32, i32), page_shift: u32) -> Result<(String, Slab), ()> {
    let mut line = line.to_vec();
    let mut space: Option<usize> = None;
    for p in 0..line.len() {
        let c = line[p];
        if c.is_ascii_whitespace() {
            space = Some(p);
        } else if c.is_ascii_digit() {
            break;
        } else if c.is_ascii_alphabetic() {
            if let Some(w) = space.take() {
                line[w..p].iter_mut().for_each(|b| *b = b'_');
            }
        }
    }
    let mut s = Scan::new(&line);
    let name = String::from_utf8_lossy(s.word().ok_or(())?).into_owned();
    let mut b = Slab { active_objs: s.u64().ok_or(())?, total_objs: s.u64().ok_or(())?, ..Slab::default() };
    match (major, minor) {
        (1, 0) => {}
        (1, 1) => {
            b.object_size = s.u32().ok_or(())?;
            b.active_slabs = s.u32().ok_or(())?;
            b.total_slabs = s.u32().ok_or(())?;
            b.pages_per_slab = s.u32().ok_or(())?;
            b.total_size = (u64::from(b.pages_per_slab) * u64::from(b.active_slabs)).wrapping_shl(page_shift);
        }
        (2, 0 | 1) => {
            b.object_size = s.u32().ok_or(())?;
            b.objects_per_slab = s.u32().ok_or(())?;
            b.pages_per_slab = s.u32().ok_or(())?;
            // ": tunables L B S : slabdata ACTIVE TOTAL"
            let mut w = s.rest().split(|c| c.is_ascii_whitespace()).filter(|w| !w.is_empty());
            if w.next() != Some(b":") || w.nth(3).is_none() || w.next() != Some(b":") || w.next().is_none() {
                return Err(());
            }
            b.active_slabs = w.next().and_then(|x| Scan::new(x).u32()).ok_or(())?;
            b.total_slabs = w.next().and_then(|x| Scan::new(x).u32()).ok_or(())?;
            let size = u64::from(b.pages_per_slab).wrapping_mul(b.active_objs).wrapping_shl(page_shift);
            b.total_size = size.checked_div(u64::from(b.objects_per_slab)).unwrap_or(0);
        }
        _ => return Err(()),
    }
    Ok((name, b))
}

#[derive(Clone, Debug, Default)]
struct Slabs {
    page_shift: u32,
    readable: bool,
    version: Option<(i32, i32)>,
    insts: InstCache,
    slabs: HashMap<i32, (Slab, i32)>,
}

/// The area, new, with the caches' numbering the PMDA saved.
pub(super) fn new(opts: &Options) -> Box<dyn Area> {
    Box::new(Slabs {
        page_shift: opts.page_size.max(1).trailing_zeros(),
        insts: saved_cache(opts, SLAB_INDOM),
        ..Slabs::default()
    })
}

impl Area for Slabs {
    fn refresh(&mut self, rd: &mut Reader, _clusters: &[u32]) {
        self.insts.deactivate_all();
        let Some(text) = rd.read_file("/proc/slabinfo") else {
            self.readable = false;
            return;
        };
        self.readable = true;
        let mut ls = lines(&text);
        let Some(first) = ls.next() else { return };
        let v = *self.version.get_or_insert_with(|| version(first));
        for line in ls.filter(|l| !l.starts_with(b"#")) {
            let Ok((name, slab)) = slab_line(line, v, self.page_shift) else { break };
            if let Some(inst) = self.insts.add(&name) {
                self.slabs.insert(inst, (slab, v.0 * 10 + v.1));
            }
        }
    }

    fn value(&self, def: &MetricDef, inst: i32) -> Result<Option<AtomValue>, PmError> {
        if !self.readable {
            return Ok(None);
        }
        self.insts.name(inst).ok_or(PmError::PM_ERR_INST)?;
        let &(s, seen) = self.slabs.get(&inst).ok_or(PmError::PM_ERR_INST)?;
        let u = |v: u32| Some(AtomValue::U32(v));
        Ok(match def.pmid.item() {
            0 => Some(AtomValue::U64(s.active_objs)),
            1 => Some(AtomValue::U64(s.total_objs)),
            2 if seen >= 11 => u(s.object_size),
            3 if seen >= 11 => u(s.active_slabs),
            4 if seen != 11 => u(s.total_slabs),
            5 if seen >= 11 => u(s.pages_per_slab),
            6 if seen == 20 || seen == 21 => u(s.objects_per_slab),
            7 if seen >= 11 => Some(AtomValue::U64(s.total_size)),
            2..=7 => None,
            _ => return Err(PmError::PM_ERR_PMID),
        })
    }

    fn instances(&self, serial: u32) -> Vec<(i32, &str)> {
        match serial {
            SLAB_INDOM => self.insts.active().collect(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slabinfo_lines_by_version() {
        assert_eq!(version(b"slabinfo - version: 2.1"), (2, 1));
        assert_eq!(version(b"bogus 2.1"), (0, 0));
        let (name, s) = slab_line(
            b"kmalloc-64          512    512     64   64    1 : tunables    0    0    0 : slabdata      8      8      0",
            (2, 1),
            12,
        )
        .unwrap();
        assert_eq!(name, "kmalloc-64");
        assert_eq!(
            (s.active_objs, s.object_size, s.objects_per_slab, s.active_slabs, s.total_slabs),
            (512, 64, 64, 8, 8)
        );
        assert_eq!(s.total_size, 512 * 4096 / 64);
        assert_eq!(slab_line(b"a b 1 2 3 4 5 : x", (2, 1), 12).map(|x| x.0), Err(()));
        assert_eq!(slab_line(b"odd name 1 2", (1, 0), 12).unwrap().0, "odd_name");
        assert_eq!(slab_line(b"\xff", (2, 1), 12), Err(()));
    }
}
