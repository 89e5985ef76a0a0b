//! The metric source: instance domains and fetches over a [`Files`] root,
//! computing each value as the PCP 6.0.3 Linux PMDA computes it.
//!
//! Here are what every fetch goes through (which files it needs, the
//! instance domains, the dispatch of a PMID to its values); each area of
//! /proc has a module of its own, reading its files and computing its
//! metrics' values. The areas added since the first ones are registered
//! in one table, by cluster and instance domain (see [`area`]); a metric
//! of the PMDA that no area serves yet has no values, as a metric of the
//! PMDA whose files this kernel lacks.

pub(crate) mod area;
mod buddyinfo;
mod conns;
mod cpuinfo;
mod disks;
mod filesys;
mod interrupts;
mod ipc;
mod kernel;
mod kernel_misc;
mod ksm;
mod memory;
mod netaddr;
mod netstat;
mod network;
mod nfs;
mod scsi;
mod slabinfo;
mod snmp;
mod sockets;
mod stat;
mod swaps;
mod sysfs_stats;
mod sysvipc;
#[cfg(test)]
mod testkit;
mod tty;
mod zoneinfo;

use crate::cache::InstCache;
use crate::files::{Files, FsStats, RootFiles};
use crate::parse::{self, CpuTimes, LoadAvg, Meminfo, Stat, Uptime, VmstatSwap};
use crate::{
    MetricDef, CPU_INDOM, DISK_INDOM, DM_INDOM, FILESYS_INDOM, ICMPMSG_INDOM, LOADAVG_INDOM, MD_INDOM, PARTITIONS_INDOM,
};
use crate::{NET_DEV_INDOM, WWID_INDOM};
use area::{Area, AreaIndex, Reader};
use disks::{is_disk_item, DiskEntry, PARTITIONS_CLUSTER};
use filesys::FsEntry;
use kernel::{loadavg_value, uptime_value, ProcsSeen, Uname};
use memory::{mem_value, vmstat_items, vmstat_value, VMSTAT_CLUSTER};
use network::Ioc;
use pcp_core::{AtomValue, FetchResult, InDom, InstValue, MetricType, PmError, PmId, PmResult, Timestamp, Value};
use pcp_core::{ValueSet, PM_IN_NULL};
use snmp::{snmp_reader, snmp_value, ICMPMSG_TYPES, SNMP_CLUSTER};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// Machine parameters the PMDA takes from the C library rather than from
/// files, and where the PMDA keeps its instance numbering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Clock ticks per second of /proc/stat's CPU times
    /// (`sysconf(_SC_CLK_TCK)`, `$LINUX_HERTZ` for the PMDA).
    pub hz: u32,
    /// The memory page size (`getpagesize()`).
    pub page_size: u32,
    /// The number of configured CPUs (`sysconf(_SC_NPROCESSORS_CONF)`);
    /// `None` counts the running system's in /sys/devices/system/cpu
    /// (the live one even when the files are a snapshot's, as the PMDA
    /// asks the C library).
    pub ncpus: Option<u32>,
    /// The directory the PMDAs save their instance numbering in
    /// (`$PCP_VAR_DIR/config/pmda`); when its files are there, disks and
    /// network interfaces keep the identifiers the PMDA gave them.
    pub pmda_cache_dir: Option<PathBuf>,
    /// Put every configured CPU in NUMA node 0, whatever
    /// /sys/devices/system/node says (the PMDA's QA mode for
    /// `$LINUX_NNODES`).
    pub single_node: bool,
    /// The program `disk.md.status` runs (`/sbin/mdadm`, `$LINUX_MDADM`
    /// for the PMDA).
    pub mdadm: PathBuf,
}

impl Options {
    /// This machine's parameters, and PCP's usual cache directory.
    pub fn from_system() -> Options {
        Options {
            hz: u32::try_from(rustix::param::clock_ticks_per_second()).unwrap_or(100),
            page_size: u32::try_from(rustix::param::page_size()).unwrap_or(4096),
            ncpus: None,
            pmda_cache_dir: Some(PathBuf::from("/var/lib/pcp/config/pmda")),
            single_node: false,
            mdadm: PathBuf::from(MDADM),
        }
    }
}

/// The PMDA's `mdadm` program.
pub const MDADM: &str = "/sbin/mdadm";

/// Which files a fetch needs read (the PMDA's `need_refresh`).
#[derive(Clone, Copy, Debug, Default)]
struct Need {
    stat: bool,
    vmstat: bool,
    diskstats: bool,
    partitions: bool,
    /// The disks' WWIDs (`disk.wwid.*`).
    wwid: bool,
    /// The zram devices' io_stat, mm_stat and bd_stat files.
    zram_stat: [bool; 3],
    meminfo: bool,
    loadavg: bool,
    uptime: bool,
    netdev: bool,
    net_mtu: bool,
    net_speed: bool,
    net_duplex: bool,
    net_linkup: bool,
    net_running: bool,
    net_wireless: bool,
    net_type: bool,
    net_virtual: bool,
    filesys: bool,
    tmpfs: bool,
    procs: bool,
    uname: bool,
    vmstat_all: bool,
    snmp: bool,
}

/// What one fetch read.
#[derive(Default)]
struct Snap {
    stat: Option<Stat>,
    vmstat: Option<VmstatSwap>,
    meminfo: Option<Meminfo>,
    loadavg: Option<LoadAvg>,
    uptime: Option<Uptime>,
    /// Per-CPU times by instance.
    cpu: BTreeMap<i32, CpuTimes>,
    /// Per block device, keyed by (indom serial, instance).
    disks: BTreeMap<(u32, i32), DiskEntry>,
    nets: BTreeMap<i32, ([Option<u64>; parse::NET_DEV_COUNTERS], Ioc)>,
    fs: BTreeMap<i32, FsEntry>,
    statfs: BTreeMap<i32, Option<FsStats>>,
    /// The memory file systems, and their statfs(2).
    tmpfs: BTreeMap<i32, FsEntry>,
    tmpfs_statfs: BTreeMap<i32, Option<FsStats>>,
    /// Per zram device instance: its io_stat, mm_stat and bd_stat
    /// numbers, where read and complete.
    zram_stats: BTreeMap<i32, [Option<Vec<u64>>; 3]>,
    nprocs: Option<u32>,
    /// `mem.vmstat.*` by item (`u64::MAX`: no value, as in the PMDA).
    vmstat_all: Option<Vec<u64>>,
    /// /proc/net/snmp (read or not, the PMDA's values start as none).
    snmp: Option<parse::Snmp>,
}

/// The Linux metrics of one system: its instance domains (numbered as
/// the PMDA numbers them, remembered across fetches) and fetches.
#[derive(Clone, Debug)]
pub struct LinuxSource<F: Files = RootFiles> {
    files: F,
    opts: Options,
    cpus: InstCache,
    cpus_ready: bool,
    /// Which CPUs (by number) a NUMA node lists.
    cpus_listed: Vec<bool>,
    prev_wait_all: u64,
    prev_wait: HashMap<i32, u64>,
    disks: InstCache,
    parts: InstCache,
    dm: InstCache,
    md: InstCache,
    wwid: InstCache,
    zram: InstCache,
    nets: InstCache,
    filesys: InstCache,
    tmpfs: InstCache,
    /// The file systems (block devices', then memory ones) as
    /// /proc/self/mounts last gave them (with their devices' real paths),
    /// while the mount table has not changed.
    mounted: Option<(BTreeMap<i32, FsEntry>, BTreeMap<i32, FsEntry>)>,
    /// Interfaces known to be wireless or not: (kernel index, name, is).
    wireless_known: Vec<(i32, String, bool)>,
    /// The last listing of /proc's processes and what the kernel's task
    /// counters said before it (`count_procs`).
    procs_seen: Option<ProcsSeen>,
    /// The metric table by PMID, for lookups in fetches.
    by_pmid: PmidIndex,
    /// The buffer each fetch reads the /proc files into, kept between
    /// fetches.
    scratch: Vec<u8>,
    /// `kernel.uname.*`, read when first asked for (the PMDA reads them
    /// when it starts).
    uname: Option<Uname>,
    /// The /proc/vmstat fields `mem.vmstat.*` serves, sorted, with their
    /// items.
    vmstat_items: Vec<(&'static [u8], u32)>,
    /// Each /proc/vmstat line's field and item as last read (the kernel
    /// writes them in the same order every time).
    vmstat_lines: Vec<(Box<[u8]>, Option<u32>)>,
    /// /proc/net/snmp's reader: its counters by item.
    snmp: parse::SnmpReader,
    /// Where /proc/vmstat's swap counters ended when last read alone.
    vmstat_swap_end: Option<usize>,
    /// The interfaces `network.all.*` leaves out, once known.
    virtual_interfaces: Option<regex::bytes::Regex>,
    /// The registered areas (see [`area::AREAS`]), and which serves what.
    areas: Vec<Box<dyn Area>>,
    area_index: AreaIndex,
}

/// The metric table by PMID: the Linux metrics by cluster and item, the
/// others (`proc.nprocs`) apart.
#[derive(Clone, Debug)]
struct PmidIndex {
    linux: Vec<Vec<Option<&'static MetricDef>>>,
    other: Vec<&'static MetricDef>,
}

impl PmidIndex {
    fn new() -> PmidIndex {
        let mut idx = PmidIndex { linux: Vec::new(), other: Vec::new() };
        for m in crate::metrics() {
            if m.pmid.domain() != crate::LINUX_DOMAIN {
                idx.other.push(m);
                continue;
            }
            let (c, i) = (m.pmid.cluster() as usize, m.pmid.item() as usize);
            if idx.linux.len() <= c {
                idx.linux.resize(c + 1, Vec::new());
            }
            if idx.linux[c].len() <= i {
                idx.linux[c].resize(i + 1, None);
            }
            idx.linux[c][i] = Some(m);
        }
        idx
    }

    fn get(&self, pmid: PmId) -> Option<&'static MetricDef> {
        if pmid.domain() != crate::LINUX_DOMAIN {
            return self.other.iter().copied().find(|m| m.pmid == pmid);
        }
        self.linux.get(pmid.cluster() as usize)?.get(pmid.item() as usize).copied().flatten()
    }
}

/// The instances of an instance domain that does not change: the load
/// averages' and the ICMP message types'.
fn fixed_instances(indom: InDom) -> Option<Vec<(i32, String)>> {
    match indom {
        LOADAVG_INDOM => Some(vec![(1, "1 minute".into()), (5, "5 minute".into()), (15, "15 minute".into())]),
        ICMPMSG_INDOM => Some((0..ICMPMSG_TYPES).map(|i| (i, format!("Type{i}"))).collect()),
        _ => None,
    }
}

impl LinuxSource<RootFiles> {
    /// The running system's metrics, files read under `root` (normally
    /// `/`), with this machine's [`Options::from_system`].
    pub fn new(root: impl Into<PathBuf>) -> LinuxSource<RootFiles> {
        LinuxSource::with_files(RootFiles::new(root), Options::from_system())
    }
}

impl<F: Files> LinuxSource<F> {
    /// A source reading `files`, with machine parameters `opts`.
    pub fn with_files(files: F, opts: Options) -> LinuxSource<F> {
        let mut s = LinuxSource {
            files,
            opts,
            cpus: InstCache::new(),
            cpus_ready: false,
            cpus_listed: Vec::new(),
            prev_wait_all: 0,
            prev_wait: HashMap::new(),
            disks: InstCache::new(),
            parts: InstCache::new(),
            dm: InstCache::new(),
            md: InstCache::new(),
            wwid: InstCache::new(),
            zram: InstCache::new(),
            nets: InstCache::new(),
            filesys: InstCache::new(),
            tmpfs: InstCache::new(),
            mounted: None,
            wireless_known: Vec::new(),
            procs_seen: None,
            vmstat_swap_end: None,
            by_pmid: PmidIndex::new(),
            scratch: Vec::new(),
            uname: None,
            vmstat_lines: Vec::new(),
            snmp: snmp_reader(),
            vmstat_items: vmstat_items(),
            areas: Vec::new(),
            virtual_interfaces: None,
            area_index: AreaIndex::new(),
        };
        s.load_saved_caches();
        s.areas = area::new_areas(&s.opts);
        s
    }

    /// The files this source reads.
    pub fn files(&self) -> &F {
        &self.files
    }

    fn load_saved_caches(&mut self) {
        let Some(dir) = self.opts.pmda_cache_dir.clone() else { return };
        for (indom, cache) in [
            (DISK_INDOM, &mut self.disks),
            (DM_INDOM, &mut self.dm),
            (MD_INDOM, &mut self.md),
            (WWID_INDOM, &mut self.wwid),
            (ZRAM_INDOM, &mut self.zram),
            (NET_DEV_INDOM, &mut self.nets),
        ] {
            let path = dir.join(indom.to_string());
            if let Ok(text) = std::fs::read(path) {
                if let Some(entries) = parse::pmda_cache(&text) {
                    cache.load(entries.into_iter().map(|e| (e.inst, e.name)));
                }
            }
        }
    }

    fn cache(&self, indom: InDom) -> Option<&InstCache> {
        Some(match indom {
            CPU_INDOM => &self.cpus,
            DISK_INDOM => &self.disks,
            DM_INDOM => &self.dm,
            MD_INDOM => &self.md,
            WWID_INDOM => &self.wwid,
            ZRAM_INDOM => &self.zram,
            PARTITIONS_INDOM => &self.parts,
            NET_DEV_INDOM => &self.nets,
            FILESYS_INDOM => &self.filesys,
            TMPFS_INDOM => &self.tmpfs,
            _ => return None,
        })
    }

    /// `pmGetInDom`: the instances of `indom` present now, in identifier
    /// order, after refreshing it as the PMDA does.
    #[doc(alias = "pmGetInDom")]
    pub fn instances(&mut self, indom: InDom) -> PmResult<Vec<(i32, String)>> {
        if let Some(fixed) = fixed_instances(indom) {
            return Ok(fixed);
        }
        if indom.domain() == crate::LINUX_DOMAIN {
            if let Some(a) = self.area_index.indom(indom.serial()) {
                self.refresh_area(a, area::AREAS[a].clusters, &[]);
                return Ok(self.areas[a]
                    .instances(indom.serial())
                    .into_iter()
                    .map(|(i, n)| (i, n.to_owned()))
                    .collect());
            }
        }
        let mut need = Need::default();
        match indom {
            CPU_INDOM => need.stat = true,
            DISK_INDOM | DM_INDOM | MD_INDOM | PARTITIONS_INDOM | ZRAM_INDOM => need.diskstats = true,
            NET_DEV_INDOM => need.netdev = true,
            FILESYS_INDOM => need.filesys = true,
            TMPFS_INDOM => need.tmpfs = true,
            WWID_INDOM => {
                need.diskstats = true;
                need.wwid = true;
            }
            // an instance domain of the PMDA that no area keeps yet
            _ if crate::indom_text(indom).is_some() => return Ok(Vec::new()),
            _ => return Err(PmError::PM_ERR_INDOM),
        }
        self.refresh(&need);
        let cache = self.cache(indom).ok_or(PmError::PM_ERR_INDOM)?;
        Ok(cache.active().map(|(i, n)| (i, n.to_owned())).collect())
    }

    /// The instances of `indom` as the PMDA's instance labels walk them
    /// (`pmGetInstancesLabels`): those present as of the last refresh, with
    /// no refresh of their own, each with its label set's JSON (`None` for
    /// an instance without labels), in the order the PMDA walks them.
    #[doc(alias = "pmGetInstancesLabels")]
    pub fn instance_labels(&self, indom: InDom) -> PmResult<Vec<(i32, Option<String>)>> {
        if let Some(a) = self.area_index.indom(indom.serial()).filter(|_| indom.domain() == crate::LINUX_DOMAIN) {
            let area = &self.areas[a];
            let insts = area.instances(indom.serial());
            return Ok(insts.into_iter().map(|(i, n)| (i, area.instance_label(indom.serial(), i, n))).collect());
        }
        let fixed = fixed_instances(indom);
        let insts: Vec<(i32, Option<&str>)> = if let Some(fixed) = &fixed {
            fixed.iter().map(|(i, n)| (*i, (indom != LOADAVG_INDOM).then_some(n.as_str()))).collect()
        } else {
            self.cache(indom).ok_or(PmError::PM_ERR_INDOM)?.active().map(|(i, n)| (i, Some(n))).collect()
        };
        Ok(insts.into_iter().map(|(i, n)| (i, crate::labels::instance(indom, i, n))).collect())
    }

    /// `pmFetch`: the values of `pmids`, stamped `now`, with the instances
    /// `wanted` accepts (the profile). Each metric's value set is as the
    /// PMDA's `pmdaFetch` builds it: the values it has, or when it has none
    /// the error (if any) its last instance gave.
    #[doc(alias = "pmFetch")]
    pub fn fetch(&mut self, pmids: &[PmId], now: Timestamp, wanted: &dyn Fn(InDom, i32) -> bool) -> FetchResult {
        let mut need = needs(pmids);
        // the CPUs /proc/stat lists online are the instances of the
        // areas' per-CPU metrics too
        need.stat |= pmids.iter().any(|&p| {
            p.domain() == crate::LINUX_DOMAIN
                && self.area_index.pmid(p).is_some()
                && (area::NEED_CPUS.contains(&p.cluster())
                    || self.by_pmid.get(p).is_some_and(|d| d.indom == Some(CPU_INDOM.serial())))
        });
        let snap = self.refresh(&need);
        self.refresh_areas(pmids);
        let mut sets = Vec::with_capacity(pmids.len());
        for &pmid in pmids {
            let def = self.by_pmid.get(pmid);
            let values = match def {
                None => Err(PmError::PM_ERR_PMID),
                Some(def) => self.metric_values(&snap, def, wanted),
            };
            sets.push(ValueSet { pmid, values });
        }
        FetchResult { timestamp: now, sets }
    }

    fn metric_values(
        &self,
        snap: &Snap,
        def: &MetricDef,
        wanted: &dyn Fn(InDom, i32) -> bool,
    ) -> Result<Vec<InstValue>, PmError> {
        let indom = def.indom.map_or(InDom::NULL, |s| InDom::new(crate::LINUX_DOMAIN, s));
        if def.pmid.domain() == crate::LINUX_DOMAIN {
            if let Some(a) = self.area_index.pmid(def.pmid) {
                return self.area_values(&*self.areas[a], def, indom, wanted);
            }
        }
        // (none for the singular, load average and ICMP type domains)
        let cache = self.cache(indom);
        // room for a value an instance at once
        let room = match (indom, cache) {
            (InDom::NULL, _) => 1,
            (LOADAVG_INDOM, _) => 3,
            (_, Some(c)) => c.len(),
            _ => 0,
        };
        let mut out = Vec::with_capacity(room);
        let mut last = Ok(());
        let mut one = |inst: i32| {
            if !indom.is_null() && !wanted(indom, inst) {
                return;
            }
            match self.value(snap, def, inst) {
                Ok(Some(atom)) => {
                    out.push(InstValue { inst, value: Value::from_atom(&atom) });
                    last = Ok(());
                }
                Ok(None) => last = Ok(()),
                Err(e) => last = Err(e),
            }
        };
        if indom.is_null() {
            one(PM_IN_NULL);
        } else if indom == LOADAVG_INDOM {
            [1, 5, 15].into_iter().for_each(&mut one);
        } else if indom == ICMPMSG_INDOM {
            (0..ICMPMSG_TYPES).for_each(&mut one);
        } else if let Some(a) = self.area_index.indom(indom.serial()) {
            self.areas[a].instances(indom.serial()).into_iter().for_each(|(i, _)| one(i));
        } else if let Some(c) = cache {
            c.active().for_each(|(i, _)| one(i));
        }
        match (out.is_empty(), last) {
            (true, Err(e)) => Err(e),
            _ => Ok(out),
        }
    }

    /// The values of a metric an area serves, over the instances of its
    /// instance domain (kept by an area, or by this module).
    fn area_values(
        &self,
        area: &dyn Area,
        def: &MetricDef,
        indom: InDom,
        wanted: &dyn Fn(InDom, i32) -> bool,
    ) -> Result<Vec<InstValue>, PmError> {
        let insts: Vec<i32> = if indom.is_null() {
            vec![PM_IN_NULL]
        } else if let Some(a) = self.area_index.indom(indom.serial()) {
            self.areas[a].instances(indom.serial()).into_iter().map(|(i, _)| i).collect()
        } else if let Some(c) = self.cache(indom) {
            c.active().map(|(i, _)| i).collect()
        } else {
            Vec::new()
        };
        let (mut out, mut last) = (Vec::with_capacity(insts.len()), Ok(()));
        for inst in insts {
            if !indom.is_null() && !wanted(indom, inst) {
                continue;
            }
            match area.value(def, inst) {
                Ok(Some(atom)) => {
                    out.push(InstValue { inst, value: Value::from_atom(&atom) });
                    last = Ok(());
                }
                Ok(None) => last = Ok(()),
                Err(e) => last = Err(e),
            }
        }
        match (out.is_empty(), last) {
            (true, Err(e)) => Err(e),
            _ => Ok(out),
        }
    }

    // ---------------------------------------------------------------
    // refresh: read what the fetch needs, update the instance domains

    /// Refresh the areas serving `pmids`, each once, for the clusters
    /// asked for.
    fn refresh_areas(&mut self, pmids: &[PmId]) {
        let mut wanted: Vec<Vec<u32>> = Vec::new();
        for p in pmids.iter().filter(|p| p.domain() == crate::LINUX_DOMAIN) {
            let (c, i) = (p.cluster(), p.item());
            let needs = area::LEGACY_NEEDS.iter().find(|n| n.0 == c && (n.1..=n.2).contains(&i));
            // (an area refreshed for what it knows only is asked for
            // cluster 0, none of its own)
            let routed = needs.and_then(|n| self.area_index.cluster(n.3)).map(|a| (a, 0));
            if let Some((a, c)) = routed.or_else(|| self.area_index.pmid(*p).map(|a| (a, c))) {
                if wanted.len() <= a {
                    wanted.resize(a + 1, Vec::new());
                }
                if !wanted[a].contains(&c) {
                    wanted[a].push(c);
                }
            }
        }
        for (a, clusters) in wanted.iter().enumerate() {
            if !clusters.is_empty() {
                self.refresh_area(a, clusters, pmids);
            }
        }
    }

    fn refresh_area(&mut self, a: usize, clusters: &[u32], pmids: &[PmId]) {
        let ncpus = if self.cpus_ready { count32(self.cpus.len()) } else { self.ncpus_conf() };
        let cpu_number = |n: &str| n.strip_prefix("cpu").and_then(|d| d.parse().ok()).unwrap_or(0);
        let cpus: Vec<(i32, u32)> = self.cpus.active().map(|(i, n)| (i, cpu_number(n))).collect();
        let single_node = self.opts.single_node;
        let mut rd = Reader { files: &self.files, buf: &mut self.scratch, ncpus, single_node, cpus: &cpus, pmids };
        self.areas[a].refresh(&mut rd, clusters);
    }

    fn read(&self, path: &str) -> Option<Vec<u8>> {
        self.files.read(path).ok()
    }

    /// `f` of a file's contents, read into the scratch buffer; `None`
    /// when the file cannot be read.
    fn with_file<T>(&mut self, path: &str, f: impl FnOnce(&mut Self, &[u8]) -> T) -> Option<T> {
        let mut buf = std::mem::take(&mut self.scratch);
        let r = match self.files.read_into(path, &mut buf) {
            Ok(()) => Some(f(self, &buf)),
            Err(_) => None,
        };
        self.scratch = buf;
        r
    }

    fn refresh(&mut self, need: &Need) -> Snap {
        let mut snap = Snap::default();
        // /proc/loadavg before /proc/stat: counting the processes relies on
        // that order (`count_procs`)
        let procs_live = need.procs && self.files.live();
        if need.loadavg || procs_live {
            snap.loadavg = self.with_file("/proc/loadavg", |_, t| parse::loadavg(t));
        }
        if need.diskstats || need.partitions {
            self.refresh_disks(need, &mut snap);
        }
        if need.stat || procs_live {
            self.refresh_stat(&mut snap);
        }
        if need.meminfo {
            snap.meminfo = self.with_file("/proc/meminfo", |s, t| s.meminfo_with_available(t));
        }
        if need.netdev {
            self.refresh_net(need, &mut snap);
            if self.virtual_interfaces.is_none() {
                self.virtual_interfaces = Some(network::virtual_interfaces());
            }
        }
        if need.filesys || need.tmpfs {
            self.refresh_filesys(&mut snap, need.filesys, need.tmpfs);
        }
        if need.uptime {
            snap.uptime = self.with_file("/proc/uptime", |_, t| parse::uptime(t));
        }
        self.refresh_vmstat(need, &mut snap);
        if need.snmp {
            let read = self.with_file("/proc/net/snmp", |s, t| s.snmp.read(t));
            snap.snmp = Some(read.unwrap_or_else(|| self.snmp.read(b"")));
        }
        if need.uname && self.uname.is_none() {
            self.uname = Some(self.read_uname());
        }
        if need.procs {
            snap.nprocs = self.count_procs(&snap);
        }
        snap
    }

    // ---------------------------------------------------------------
    // values

    fn value(&self, snap: &Snap, def: &MetricDef, inst: i32) -> Result<Option<AtomValue>, PmError> {
        let (cluster, item) = (def.pmid.cluster(), def.pmid.item());
        if !area::computes(def.pmid) {
            // a metric of the PMDA not computed yet: no values
            return Ok(None);
        }
        if def.pmid.domain() == crate::PROC_DOMAIN {
            return Ok(snap.nprocs.map(AtomValue::U32));
        }
        let ty = def.ty;
        match cluster {
            0 => self.stat_value(snap, ty, item, inst),
            1 => Ok(mem_value(snap.meminfo.as_ref(), ty, item, self.opts.page_size)),
            2 => loadavg_value(snap, item, inst),
            3 => self.net_value(snap, ty, item, inst),
            5 => self.fs_value(snap, item, inst),
            90 => self.net_all_value(snap, item),
            TMPFS_CLUSTER => self.tmpfs_value(snap, item, inst),
            26 => uptime_value(snap, item),
            54 | 59 => self.dmmd_value(snap, ty, cluster, item, inst),
            MDADM_CLUSTER => self.mdadm_value(item, inst),
            PARTITIONS_CLUSTER => self.partitions_value(snap, ty, item, inst),
            ZRAM_CLUSTER => self.zram_value(snap, ty, item, inst),
            87..=89 => self.zram_stat_value(snap, cluster, item, inst),
            92 => self.wwid_value(snap, ty, item, inst),
            SNMP_CLUSTER => snmp_value(snap, def, item, inst),
            VMSTAT_CLUSTER => vmstat_value(snap, item),
            12 => self.uname_value(item),
            // a metric of the PMDA no area serves yet: no values
            _ => Ok(None),
        }
    }
}

/// `zram.*` (`CLUSTER_ZRAM_DEVICES`; 87 to 89 are its sysfs stat files).
const ZRAM_CLUSTER: u32 = 86;
/// `ZRAM_INDOM` (60.38): compressed memory devices.
const ZRAM_INDOM: InDom = InDom::new(crate::LINUX_DOMAIN, 38);

/// `disk.md.status` (`CLUSTER_MDADM`).
const MDADM_CLUSTER: u32 = 60;

/// `tmpfs.*` (`CLUSTER_TMPFS`).
const TMPFS_CLUSTER: u32 = 34;
/// `TMPFS_INDOM` (60.18): memory file systems by mount point.
const TMPFS_INDOM: InDom = InDom::new(crate::LINUX_DOMAIN, 18);

/// A count as the 32-bit value the PMDA reports it in.
fn count32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// An unsigned quantity as a value of the metric's type.
pub(crate) fn num(ty: MetricType, v: u64) -> AtomValue {
    match ty {
        MetricType::U32 => AtomValue::U32(v as u32),
        MetricType::I32 => AtomValue::I32(v as i32),
        MetricType::I64 => AtomValue::I64(v as i64),
        MetricType::FLOAT => AtomValue::Float(v as f32),
        MetricType::DOUBLE => AtomValue::Double(v as f64),
        _ => AtomValue::U64(v),
    }
}

/// Which files a fetch of `pmids` reads (`linux_fetch`'s `need_refresh`).
fn needs(pmids: &[PmId]) -> Need {
    let mut n = Need::default();
    for &p in pmids {
        if p.domain() == crate::PROC_DOMAIN {
            n.procs = true;
            continue;
        }
        if p.domain() != crate::LINUX_DOMAIN {
            continue;
        }
        let (cluster, item) = (p.cluster(), p.item());
        match cluster {
            0 if is_disk_item(item) => {
                n.diskstats = true;
                n.partitions |= item == 87;
            }
            0 => {
                if item != 48 {
                    n.stat = true;
                }
                if (8..=11).contains(&item) {
                    n.vmstat = true;
                }
            }
            54 | 59 => {
                n.diskstats = true;
                n.partitions |= item == 17;
            }
            PARTITIONS_CLUSTER => {
                n.diskstats = true;
                n.partitions |= item == 16;
            }
            ZRAM_CLUSTER => n.diskstats = true,
            87..=89 => {
                n.diskstats = true;
                n.zram_stat[(cluster - 87) as usize] = true;
            }
            92 => {
                n.diskstats = true;
                n.wwid = true;
                n.partitions |= item == 87;
            }
            1 => n.meminfo = true,
            2 => n.loadavg = true,
            3 => {
                n.netdev = true;
                match item {
                    21 => n.net_mtu = true,
                    22 | 23 => n.net_speed = true,
                    24 => n.net_duplex = true,
                    25 => n.net_linkup = true,
                    26 => n.net_running = true,
                    28 => n.net_wireless = true,
                    29 => n.net_type = true,
                    30 => n.net_virtual = true,
                    _ => {}
                }
            }
            5 => n.filesys = true,
            90 => n.netdev = true,
            TMPFS_CLUSTER => n.tmpfs = true,
            12 => n.uname = true,
            SNMP_CLUSTER => n.snmp = true,
            VMSTAT_CLUSTER => n.vmstat_all = true,
            26 => n.uptime = true,
            _ => {}
        }
    }
    n
}
