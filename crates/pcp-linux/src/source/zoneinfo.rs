//! /proc/zoneinfo (`mem.zoneinfo.*`): each NUMA node's memory zones, the
//! nodes' own counts, and the zones' protection against allocations from
//! other zones.

use super::area::{saved_cache, Area, Reader};
use super::Options;
use crate::cache::InstCache;
use crate::scan::{lines, Scan};
use crate::MetricDef;
use pcp_core::{AtomValue, PmError};
use std::collections::{HashMap, HashSet};

/// `CLUSTER_ZONEINFO` and `CLUSTER_ZONEINFO_PROTECTION`.
const ZONEINFO: u32 = 68;
const PROTECTION: u32 = 70;
/// The clusters served here.
pub(super) const CLUSTERS: [u32; 2] = [ZONEINFO, PROTECTION];
/// Zones per node (`ZONEINFO_INDOM`) and their protection levels.
const ZONE_INDOM: u32 = 32;
const PROTECTION_INDOM: u32 = 33;
/// The instance domains kept here.
pub(super) const INDOMS: [u32; 2] = [ZONE_INDOM, PROTECTION_INDOM];
/// How many counts a zone has (items 0 to 67).
const COUNTS: usize = 68;

/// The lines the PMDA reads, by their label (the words before the
/// number), with the item each feeds.
#[rustfmt::skip]
const ZONE_FIELDS: &[(&str, u32)] = &[
    ("pages free", 0), ("min", 1), ("low", 2), ("high", 3), ("scanned", 4), ("node_scanned", 4),
    ("spanned", 5), ("present", 6), ("managed", 7), ("cma", 46), ("nr_alloc_batch", 9),
    ("nr_inactive_anon", 10), ("nr_active_anon", 11), ("nr_inactive_file", 12), ("nr_active_file", 13),
    ("nr_unevictable", 14), ("nr_mlock", 15), ("nr_anon_pages", 16), ("nr_mapped", 17), ("nr_file_pages", 18),
    ("nr_dirty", 19), ("nr_writeback", 20), ("nr_slab_reclaimable", 21), ("nr_slab_unreclaimable", 22),
    ("nr_page_table_pages", 23), ("nr_kernel_stack", 24), ("nr_unstable", 25), ("nr_bounce", 26),
    ("nr_vmscan_write", 27), ("nr_vmscan_immediate_reclaim", 28), ("nr_writeback_temp", 29),
    ("nr_isolated_anon", 30), ("nr_isolated_file", 31), ("nr_shmem", 32), ("nr_shmem_hugepages", 48),
    ("nr_shmem_pmdmapped", 49), ("nr_file_hugepages", 50), ("nr_file_pmdmapped", 51), ("nr_dirtied", 33),
    ("nr_written", 34), ("nr_kernel_misc_reclaimable", 52), ("nr_foll_pin_acquired", 53),
    ("nr_foll_pin_released", 54), ("numa_hit", 35), ("numa_miss", 36), ("numa_foreign", 37),
    ("numa_interleave", 38), ("numa_local", 39), ("numa_other", 40), ("workingset_refault_anon", 55),
    ("workingset_refault_file", 56), ("workingset_refault", 41), ("workingset_activate_anon", 57),
    ("workingset_activate_file", 58), ("workingset_activate", 42), ("workingset_restore_anon", 59),
    ("workingset_restore_file", 60), ("workingset_nodereclaim", 43), ("nr_anon_transparent_hugepages", 44),
    ("nr_zspages", 61), ("nr_free_cma", 45), ("nr_swapcached", 47), ("nr_zone_inactive_file", 62),
    ("nr_zone_active_file", 63), ("nr_zone_inactive_anon", 64), ("nr_zone_active_anon", 65),
    ("nr_zone_unevictable", 66), ("nr_zone_write_pending", 67),
];

/// A zone's (or a node's) counts, and which of them the file gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Counts {
    values: [u64; COUNTS],
    given: [bool; COUNTS],
}

impl Default for Counts {
    fn default() -> Counts {
        Counts { values: [0; COUNTS], given: [false; COUNTS] }
    }
}

/// The item a zoneinfo line feeds, and its number.
pub(super) fn field(line: &[u8]) -> Option<(u32, u64)> {
    let mut words = line.split(|b| b.is_ascii_whitespace()).filter(|w| !w.is_empty());
    let first = words.next()?;
    let (second, third) = (words.next(), words.next());
    // (a label is one word or two: the number is the word after it)
    ZONE_FIELDS.iter().find_map(|&(label, item)| {
        let number = match label.as_bytes().strip_prefix(first)? {
            [] => second?,
            [b' ', rest @ ..] if Some(rest) == second => third?,
            _ => return None,
        };
        Scan::new(number).u64().map(|v| (item, v))
    })
}

/// What /proc/zoneinfo says, in the order the PMDA meets its instances:
/// each `(name, counts, hidden)` (a zone with nothing present is hidden),
/// and each protection level `(name, pages)`.
pub(super) type Zoneinfo = (Vec<(String, Counts, bool)>, Vec<(String, u64)>);

/// Read /proc/zoneinfo as the PMDA does.
pub(super) fn zoneinfo(text: &[u8]) -> Zoneinfo {
    let (mut zones, mut protection) = (Vec::new(), Vec::new());
    let mut ls = lines(text).peekable();
    while let Some(line) = ls.next() {
        if !line.starts_with(b"Node") {
            continue;
        }
        // "Node %d, zone %s"
        let mut s = Scan::new(&line[4..]);
        let Some(node) = s.i32() else { continue };
        let rest = s.rest();
        let Some(rest) = rest.strip_prefix(b",") else { continue };
        let mut s = Scan::new(rest);
        if s.word() != Some(&b"zone"[..]) {
            continue;
        }
        let Some(zone) = s.word() else { continue };
        let zone = String::from_utf8_lossy(zone).into_owned();
        let zone_name = format!("{zone}::node{}", node as u32);
        let (mut perzone, mut pernode) = (Counts::default(), None::<Counts>);
        let mut in_node = false;
        while let Some(line) = ls.next_if(|l| !l.starts_with(b"Node")) {
            if line.starts_with(b"  per-node stats") {
                pernode = Some(Counts::default());
                in_node = true;
            } else if line.starts_with(b"  pages ") {
                in_node = false;
            }
            if let Some((item, v)) = field(line) {
                let c = match (in_node, pernode.as_mut()) {
                    (true, Some(n)) => n,
                    _ => &mut perzone,
                };
                c.values[item as usize] = v;
                c.given[item as usize] = true;
            } else if let Some(list) = line.strip_prefix(b"        protection: (") {
                let mut s = list;
                for lowmem in 0u32.. {
                    let (v, n) = pcp_core::support::strtod::strtoull_prefix(s, 10);
                    protection.push((format!("{zone_name}::lowmem_reserved{lowmem}"), v));
                    match s.get(n) {
                        Some(b',') => s = s.get(n + 2..).unwrap_or_default(),
                        _ => break,
                    }
                }
            }
        }
        if let Some(n) = pernode {
            zones.push((format!("node{}", node as u32), n, false));
        }
        let hidden = perzone.values[6] == 0;
        zones.push((zone_name, perzone, hidden));
    }
    (zones, protection)
}

#[derive(Clone, Debug, Default)]
struct Zones {
    page_shift: u32,
    zones: InstCache,
    hidden: HashSet<i32>,
    counts: HashMap<i32, Counts>,
    protection: InstCache,
    protected: HashMap<i32, u64>,
}

/// The area, new, with the zones' numbering the PMDA saved.
pub(super) fn new(opts: &Options) -> Box<dyn Area> {
    Box::new(Zones {
        page_shift: opts.page_size.max(1).trailing_zeros(),
        zones: saved_cache(opts, ZONE_INDOM),
        ..Zones::default()
    })
}

impl Area for Zones {
    fn refresh(&mut self, rd: &mut Reader, _clusters: &[u32]) {
        self.zones.deactivate_all();
        self.hidden.clear();
        let Some((zones, protection)) = rd.with("/proc/zoneinfo", zoneinfo) else { return };
        for (name, counts, hidden) in zones {
            // (a zone keeps what it had for counts the file no longer gives)
            let Some(inst) = self.zones.add(&name) else { continue };
            let kept = self.counts.entry(inst).or_default();
            kept.given = counts.given;
            for (k, v) in counts.values.iter().enumerate() {
                if counts.given[k] {
                    kept.values[k] = *v;
                }
            }
            if hidden {
                self.hidden.insert(inst);
            }
        }
        for (name, pages) in protection {
            if let Some(inst) = self.protection.add(&name) {
                self.protected.insert(inst, pages);
            }
        }
    }

    fn value(&self, def: &MetricDef, inst: i32) -> Result<Option<AtomValue>, PmError> {
        let kb = |pages: u64| AtomValue::U64(pages.wrapping_shl(self.page_shift) / 1024);
        let item = def.pmid.item() as usize;
        if def.pmid.cluster() == PROTECTION {
            self.protection.name(inst).ok_or(PmError::PM_ERR_INST)?;
            return Ok(self.protected.get(&inst).map(|p| kb(*p)));
        }
        self.zones.name(inst).ok_or(PmError::PM_ERR_INST)?;
        let c = self.counts.get(&inst).ok_or(PmError::PM_ERR_INST)?;
        if item >= COUNTS {
            return Err(PmError::PM_ERR_PMID);
        }
        Ok(c.given[item].then(|| kb(c.values[item])))
    }

    fn instances(&self, serial: u32) -> Vec<(i32, &str)> {
        match serial {
            ZONE_INDOM => self.zones.active().filter(|(i, _)| !self.hidden.contains(i)).collect(),
            PROTECTION_INDOM => self.protection.active().collect(),
            _ => Vec::new(),
        }
    }

    fn instance_label(&self, serial: u32, inst: i32, name: &str) -> Option<String> {
        let mut parts = name.split("::");
        match serial {
            ZONE_INDOM => {
                let (a, b) = (parts.next()?, parts.next());
                match b {
                    Some(node) => Some(format!(r#"{{"numa_node":{},"zone":"{a}"}}"#, node.strip_prefix("node")?)),
                    None => Some(format!(r#"{{"numa_node":{}}}"#, a.strip_prefix("node")?)),
                }
            }
            PROTECTION_INDOM => {
                let (zone, node, low) = (parts.next()?, parts.next()?, parts.next()?);
                let _ = inst;
                Some(format!(
                    r#"{{"numa_node":{},"zone":"{zone}","lowmem_reserved":{}}}"#,
                    node.strip_prefix("node")?,
                    low.strip_prefix("lowmem_reserved")?
                ))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_nodes_and_protection_as_the_pmda_reads_them() {
        let text = b"Node 0, zone      DMA\n  per-node stats\n      nr_inactive_anon 5\n      numa_hit 7\n\
                     \x20 pages free     3840\n        min      1\n        present  3998\n\
                     \x20       protection: (0, 3019, 20809)\nNode 0, zone  Movable\n  pages free 0\n\
                     \x20       present  0\n        protection: (0, 0)\n";
        let (zones, prot) = zoneinfo(text);
        let names: Vec<&str> = zones.iter().map(|z| z.0.as_str()).collect();
        assert_eq!(names, ["node0", "DMA::node0", "Movable::node0"]);
        assert_eq!((zones[0].1.values[10], zones[0].1.given[0]), (5, false));
        assert_eq!((zones[1].1.values[0], zones[1].1.values[6], zones[1].2), (3840, 3998, false));
        assert!(zones[2].2);
        assert_eq!(prot[2], ("DMA::node0::lowmem_reserved2".to_string(), 20809));
        assert_eq!(prot.len(), 5);
        assert_eq!(field(b"      numa_hit x"), None);
        assert_eq!(field(b"  pages free     3840"), Some((0, 3840)));
        assert_eq!(field(b"  pages free"), None);
        assert_eq!(field(b"  pages 12"), None);
        assert_eq!(field(b"        nr_zone_write_pending 7 8"), Some((67, 7)));
        assert_eq!(zoneinfo(b"Node x\nNode 1, zone\n\xff\n"), (Vec::new(), Vec::new()));
    }
}
