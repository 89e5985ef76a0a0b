//! The registry of /proc and /sys areas: each area is a module of its own
//! that reads its files once per fetch and computes its metrics' values,
//! registered here by the PMIDs' clusters it serves and the instance
//! domains it keeps. One table ([`AREAS`]) says which area a cluster or
//! an instance domain belongs to; an area is added by writing its module
//! and adding its row.
//!
//! (The first areas served, /proc/stat, /proc/meminfo, the disks, the
//! network interfaces, the file systems, /proc/net/snmp and /proc/vmstat,
//! share the source's own state and are dispatched by `source/mod.rs`
//! itself; their clusters are listed in [`LEGACY_CLUSTERS`].)

use super::Options;
use crate::cache::InstCache;
use crate::files::Files;
use crate::MetricDef;
use pcp_core::{AtomValue, InDom, PmError};
use std::fmt::Debug;

/// What an area reads its files with in a refresh: the files, a buffer
/// kept between fetches, and the number of configured CPUs (the PMDA's
/// `_pm_ncpus`).
pub(super) struct Reader<'a> {
    pub(super) files: &'a dyn Files,
    pub(super) buf: &'a mut Vec<u8>,
    pub(super) ncpus: u32,
    /// Every CPU in node 0 ([`super::Options::single_node`]).
    pub(super) single_node: bool,
    /// The CPUs online as /proc/stat last listed them: (instance of the
    /// CPU instance domain, CPU number).
    pub(super) cpus: &'a [(i32, u32)],
    /// The metrics of the fetch, for an area whose refresh depends on
    /// them beyond their clusters; empty when listing instances (then
    /// everything is read).
    pub(super) pmids: &'a [pcp_core::PmId],
}

impl Reader<'_> {
    /// A file's contents in a buffer of its own; `None` when it cannot be
    /// read.
    pub(super) fn read_file(&self, path: &str) -> Option<Vec<u8>> {
        self.files.read(path).ok()
    }

    /// `f` of a file's contents; `None` when it cannot be read.
    pub(super) fn with<T>(&mut self, path: &str, f: impl FnOnce(&[u8]) -> T) -> Option<T> {
        self.files.read_into(path, self.buf).ok().map(|()| f(self.buf))
    }
}

/// One area of /proc or /sys.
pub(super) trait Area: Debug + Send + CloneArea {
    /// Read the area's files for a fetch of metrics of `clusters` (some
    /// of the area's), or, with all of its clusters, to list the
    /// instances of its instance domains.
    fn refresh(&mut self, rd: &mut Reader, clusters: &[u32]);

    /// The value of `def` for instance `inst` (`PM_IN_NULL` for a
    /// singular metric) from what the last refresh read: `Ok(None)` for
    /// no value, `Err` for the PMDA's error.
    fn value(&self, def: &MetricDef, inst: i32) -> Result<Option<AtomValue>, PmError>;

    /// The instances of one of the area's instance domains (by serial)
    /// as of the last refresh, in the PMDA's order.
    fn instances(&self, _serial: u32) -> Vec<(i32, &str)> {
        Vec::new()
    }

    /// The JSON label set of one instance of one of the area's instance
    /// domains, where the PMDA gives it one.
    fn instance_label(&self, _serial: u32, _inst: i32, _name: &str) -> Option<String> {
        None
    }

    /// Each CPU's NUMA node, by CPU number, where the area knows them.
    fn cpu_nodes(&self) -> Option<&[Option<u32>]> {
        None
    }
}

/// A copy of an area behind a box (a duplicated context keeps each
/// area's state): every area that is `Clone` has it.
pub(super) trait CloneArea {
    fn clone_box(&self) -> Box<dyn Area>;
}

impl<T: Area + Clone + 'static> CloneArea for T {
    fn clone_box(&self) -> Box<dyn Area> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn Area> {
    fn clone(&self) -> Box<dyn Area> {
        self.clone_box()
    }
}

/// A row of the registry.
pub(super) struct AreaDef {
    /// The clusters of the PMIDs the area serves.
    pub(super) clusters: &'static [u32],
    /// The serials of the instance domains it keeps.
    pub(super) indoms: &'static [u32],
    /// A new area, with nothing read yet (`Options` says where the PMDA
    /// saved its instance numbering).
    pub(super) new: fn(&Options) -> Box<dyn Area>,
}

/// The clusters served by `source/mod.rs` itself.
pub(super) const LEGACY_CLUSTERS: &[u32] = &[0, 1, 2, 3, 5, 10, 12, 14, 26, 28, 34, 54, 59, 60, 86, 87, 88, 89, 90, 92];

/// The metrics of [`LEGACY_CLUSTERS`] whose values are not computed yet:
/// (cluster, first item, last item).
const LEGACY_UNSERVED: &[(u32, u32, u32)] = &[];

/// Metrics of [`LEGACY_CLUSTERS`] an area computes: (cluster, item, the
/// cluster whose area computes it). `hinv.nnode` counts the NUMA nodes.
const LEGACY_ROUTED: &[(u32, u32, u32)] = &[(0, 19, 55)];

/// Metrics of [`LEGACY_CLUSTERS`] that need an area refreshed (for what
/// it knows) though `source/mod.rs` computes them: (cluster, first item,
/// last item, the cluster of the area). The per-node CPU times need the
/// NUMA nodes.
pub(super) const LEGACY_NEEDS: &[(u32, u32, u32, u32)] = &[(0, 62, 71, 55), (0, 77, 77, 55), (0, 85, 86, 55)];

/// Does this crate compute the values of `pmid` (a metric of the table)?
/// The others have none yet.
pub(crate) fn computes(pmid: pcp_core::PmId) -> bool {
    if pmid.domain() != crate::LINUX_DOMAIN {
        return pmid.domain() == crate::PROC_DOMAIN;
    }
    let (c, i) = (pmid.cluster(), pmid.item());
    if LEGACY_CLUSTERS.contains(&c) {
        return !LEGACY_UNSERVED.iter().any(|&(lc, a, b)| lc == c && (a..=b).contains(&i));
    }
    AREAS.iter().any(|d| d.clusters.contains(&c))
}

/// The row of an area module: its `CLUSTERS`, `INDOMS` and `new`.
macro_rules! area {
    ($m:ident) => {
        AreaDef { clusters: &super::$m::CLUSTERS, indoms: &super::$m::INDOMS, new: super::$m::new }
    };
}

/// Every area, by the clusters and instance domains it serves.
pub(super) static AREAS: &[AreaDef] = &[
    area!(netstat),
    area!(kernel_misc),
    area!(interrupts),
    area!(sockets),
    area!(conns),
    area!(cpuinfo),
    area!(ksm),
    area!(sysfs_stats),
    area!(tty),
    area!(nfs),
    area!(zoneinfo),
    area!(buddyinfo),
    area!(slabinfo),
    area!(swaps),
    area!(ipc),
    area!(sysvipc),
    area!(netaddr),
    area!(scsi),
];

/// The clusters whose refresh needs the CPUs /proc/stat lists online
/// first (the PMDA refreshes /proc/stat along with them).
pub(super) const NEED_CPUS: [u32; 6] = [4, 18, 55, 57, 63, 82];

/// Which area serves each cluster and each instance domain.
#[derive(Clone, Debug, Default)]
pub(super) struct AreaIndex {
    by_cluster: Vec<Option<u8>>,
    by_indom: Vec<Option<u8>>,
}

impl AreaIndex {
    pub(super) fn new() -> AreaIndex {
        let mut idx = AreaIndex::default();
        let put = |v: &mut Vec<Option<u8>>, at: u32, area: usize| {
            let at = at as usize;
            if v.len() <= at {
                v.resize(at + 1, None);
            }
            assert!(v[at].is_none(), "two areas serve {at}");
            v[at] = Some(area as u8);
        };
        for (a, def) in AREAS.iter().enumerate() {
            for &c in def.clusters {
                assert!(!LEGACY_CLUSTERS.contains(&c), "cluster {c} served twice");
                put(&mut idx.by_cluster, c, a);
            }
            for &i in def.indoms {
                put(&mut idx.by_indom, i, a);
            }
        }
        idx
    }

    /// The area serving `cluster`.
    pub(super) fn cluster(&self, cluster: u32) -> Option<usize> {
        self.by_cluster.get(cluster as usize).copied().flatten().map(usize::from)
    }

    /// The area serving `pmid` (of domain 60): its cluster's, or for the
    /// metrics of the first clusters an area computes, that area's
    /// ([`LEGACY_ROUTED`]).
    pub(super) fn pmid(&self, pmid: pcp_core::PmId) -> Option<usize> {
        let (c, i) = (pmid.cluster(), pmid.item());
        match LEGACY_ROUTED.iter().find(|r| r.0 == c && r.1 == i) {
            Some(r) => self.cluster(r.2),
            None => self.cluster(c),
        }
    }

    /// The area keeping the instance domain of serial `serial`.
    pub(super) fn indom(&self, serial: u32) -> Option<usize> {
        self.by_indom.get(serial as usize).copied().flatten().map(usize::from)
    }
}

/// A new instance of every area, in the registry's order.
pub(super) fn new_areas(opts: &Options) -> Vec<Box<dyn Area>> {
    AREAS.iter().map(|d| (d.new)(opts)).collect()
}

/// An instance domain's numbering as the PMDA saved it, when it did.
pub(super) fn saved_cache(opts: &Options, serial: u32) -> InstCache {
    let mut cache = InstCache::new();
    let Some(dir) = &opts.pmda_cache_dir else { return cache };
    if let Ok(text) = std::fs::read(dir.join(InDom::new(crate::LINUX_DOMAIN, serial).to_string())) {
        if let Some(entries) = crate::parse::pmda_cache(&text) {
            cache.load(entries.into_iter().map(|e| (e.inst, e.name)));
        }
    }
    cache
}

/// The PMDA's `linux_table_scan`: each line's value goes to the first of
/// `fields` (in order) the line contains, as the first number after it;
/// `found[k]` is set for each field a line gave.
pub(super) fn table_scan(text: &[u8], fields: &[&str], values: &mut [u64], found: &mut [bool]) {
    for line in crate::scan::lines(text) {
        for (k, f) in fields.iter().enumerate() {
            let Some(at) = memchr::memmem::find(line, f.as_bytes()) else { continue };
            let after = &line[at + f.len()..];
            if let Some(d) = after.iter().position(u8::is_ascii_digit) {
                values[k] = pcp_core::support::strtod::strtoull_prefix(&after[d..], 10).0;
                found[k] = true;
            }
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_scan_takes_the_first_field_a_line_contains() {
        let fields = ["Active:", "Inactive:", "Active(anon):"];
        let (mut v, mut seen) = ([0u64; 3], [false; 3]);
        table_scan(
            b"Node 0 Active:  12 kB\nNode 0 Active(anon): 7 kB\nNode 0 Inactive: x\n",
            &fields,
            &mut v,
            &mut seen,
        );
        assert_eq!((v, seen), ([12, 0, 7], [true, false, true]));
        table_scan(b"\xff\n", &fields, &mut v, &mut seen);
        assert_eq!(v, [12, 0, 7]);
    }
}
