//! The metric source: instance domains and fetches over a [`Files`] root,
//! computing each value as the PCP 6.0.3 Linux PMDA computes it.

use crate::cache::InstCache;
use crate::files::{Files, FsStats, RootFiles};
use crate::parse::{self, CpuTimes, DeviceClass, DiskCounters, LoadAvg, MemField, Meminfo, Stat, Uptime, VmstatSwap};
use crate::{
    MetricDef, CPU_INDOM, DISK_INDOM, DM_INDOM, FILESYS_INDOM, ICMPMSG_INDOM, LOADAVG_INDOM, MD_INDOM, PARTITIONS_INDOM,
};
use crate::{NET_DEV_INDOM, WWID_INDOM};
use pcp_core::{AtomValue, FetchResult, InDom, InstValue, MetricType, PmError, PmId, PmResult, Timestamp, Value};
use pcp_core::{ValueSet, PM_IN_NULL};
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
    /// `None` counts them in /sys/devices/system/cpu.
    pub ncpus: Option<u32>,
    /// The directory the PMDAs save their instance numbering in
    /// (`$PCP_VAR_DIR/config/pmda`); when its files are there, disks and
    /// network interfaces keep the identifiers the PMDA gave them.
    pub pmda_cache_dir: Option<PathBuf>,
}

impl Options {
    /// This machine's parameters, and PCP's usual cache directory.
    pub fn from_system() -> Options {
        Options {
            hz: u32::try_from(rustix::param::clock_ticks_per_second()).unwrap_or(100),
            page_size: u32::try_from(rustix::param::page_size()).unwrap_or(4096),
            ncpus: None,
            pmda_cache_dir: Some(PathBuf::from("/var/lib/pcp/config/pmda")),
        }
    }
}

/// The values the kernel's `ioctl`s and sysfs give for an interface
/// (`net_dev_t`): zero means "not known".
#[derive(Clone, Copy, Debug, Default)]
struct Ioc {
    mtu: u32,
    speed: u32,
    ty: u32,
    duplex: u32,
    linkup: bool,
    running: bool,
    wireless: bool,
    virtuali: bool,
}

#[derive(Clone, Debug, Default)]
struct DiskEntry {
    /// The name the PMDA keeps (`namebuf`: persistent for dm and md).
    name: String,
    /// The kernel name of a dm or md device (`dmname`/`mdname`).
    kname: Option<String>,
    counters: Option<DiskCounters>,
    nr_blocks: u64,
    wwid: Option<String>,
}

#[derive(Clone, Debug)]
struct FsEntry {
    path: String,
    options: String,
}

/// Which files a fetch needs read (the PMDA's `need_refresh`).
#[derive(Clone, Copy, Debug, Default)]
struct Need {
    stat: bool,
    vmstat: bool,
    diskstats: bool,
    partitions: bool,
    /// The disks' WWIDs (`disk.wwid.*`).
    wwid: bool,
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
    prev_wait_all: u64,
    prev_wait: HashMap<i32, u64>,
    disks: InstCache,
    parts: InstCache,
    dm: InstCache,
    md: InstCache,
    wwid: InstCache,
    nets: InstCache,
    filesys: InstCache,
    /// The file systems as /proc/self/mounts last gave them (with their
    /// devices' real paths), while the mount table has not changed.
    mounted: Option<BTreeMap<i32, FsEntry>>,
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
}

/// A listing of /proc's processes and the task counters read before it.
#[derive(Clone, Copy, Debug)]
struct ProcsSeen {
    /// /proc/stat's `processes`: tasks created since boot.
    forks: u64,
    /// /proc/loadavg's task count, read after `forks`.
    tasks: u32,
    /// The processes listed, after both.
    count: u32,
}

/// `kernel.uname.*` (cluster 12): uname(2)'s fields as /proc/sys/kernel
/// gives them, and the distribution's name.
#[derive(Clone, Debug, Default)]
struct Uname {
    release: Option<Vec<u8>>,
    version: Option<Vec<u8>>,
    sysname: Option<Vec<u8>>,
    machine: Option<Vec<u8>>,
    nodename: Option<Vec<u8>>,
    distro: Vec<u8>,
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

/// `mem.vmstat.*`.
const VMSTAT_CLUSTER: u32 = 28;
/// `disk.partitions.*`.
const PARTITIONS_CLUSTER: u32 = 10;
/// `network.{ip,icmp,icmpmsg,tcp,udp,udplite}.*` from /proc/net/snmp.
const SNMP_CLUSTER: u32 = 14;
/// How many ICMP message types `network.icmpmsg.*` counts.
const ICMPMSG_TYPES: i32 = 256;

/// The instances of an instance domain that does not change: the load
/// averages' and the ICMP message types'.
fn fixed_instances(indom: InDom) -> Option<Vec<(i32, String)>> {
    match indom {
        LOADAVG_INDOM => Some(vec![(1, "1 minute".into()), (5, "5 minute".into()), (15, "15 minute".into())]),
        ICMPMSG_INDOM => Some((0..ICMPMSG_TYPES).map(|i| (i, format!("Type{i}"))).collect()),
        _ => None,
    }
}

const IFF_UP: u64 = 0x1;
const IFF_RUNNING: u64 = 0x40;
/// How far /proc/stat's iowait may step back before it counts as a wrap.
const WAITIO_SLOP: u64 = 100;

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
            prev_wait_all: 0,
            prev_wait: HashMap::new(),
            disks: InstCache::new(),
            parts: InstCache::new(),
            dm: InstCache::new(),
            md: InstCache::new(),
            wwid: InstCache::new(),
            nets: InstCache::new(),
            filesys: InstCache::new(),
            mounted: None,
            wireless_known: Vec::new(),
            procs_seen: None,
            vmstat_swap_end: None,
            by_pmid: PmidIndex::new(),
            scratch: Vec::new(),
            uname: None,
            vmstat_lines: Vec::new(),
            snmp: parse::SnmpReader::new(
                crate::metrics()
                    .iter()
                    .filter(|m| m.pmid.cluster() == SNMP_CLUSTER && !m.name.starts_with("network.icmpmsg."))
                    .filter_map(|m| Some((m.name.strip_prefix("network.")?.to_string(), m.pmid.item() as usize))),
            ),
            vmstat_items: {
                let mut v: Vec<_> = crate::metrics()
                    .iter()
                    .filter(|m| m.pmid.cluster() == VMSTAT_CLUSTER)
                    .filter_map(|m| Some((m.name.strip_prefix("mem.vmstat.")?.as_bytes(), m.pmid.item())))
                    .collect();
                v.sort_unstable();
                v
            },
        };
        s.load_saved_caches();
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
            PARTITIONS_INDOM => &self.parts,
            NET_DEV_INDOM => &self.nets,
            FILESYS_INDOM => &self.filesys,
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
        let mut need = Need::default();
        match indom {
            CPU_INDOM => need.stat = true,
            DISK_INDOM | DM_INDOM | MD_INDOM | PARTITIONS_INDOM => need.diskstats = true,
            NET_DEV_INDOM => need.netdev = true,
            FILESYS_INDOM => need.filesys = true,
            WWID_INDOM => {
                need.diskstats = true;
                need.wwid = true;
            }
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
        let need = needs(pmids);
        let snap = self.refresh(&need);
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
        } else if let Some(c) = cache {
            c.active().for_each(|(i, _)| one(i));
        }
        match (out.is_empty(), last) {
            (true, Err(e)) => Err(e),
            _ => Ok(out),
        }
    }

    // ---------------------------------------------------------------
    // refresh: read what the fetch needs, update the instance domains

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
        }
        if need.filesys {
            self.refresh_filesys(&mut snap);
        }
        if need.uptime {
            snap.uptime = self.with_file("/proc/uptime", |_, t| parse::uptime(t));
        }
        if need.vmstat && !need.vmstat_all {
            // only the swap counters: /proc/vmstat read up to them (the
            // kernel then writes out no more of it), asked for as far as
            // they ended last time and a little more
            let mut buf = std::mem::take(&mut self.scratch);
            let first = self.vmstat_swap_end.map_or(4096, |e| e + 256);
            if self.files.read_start("/proc/vmstat", &mut buf, first, &|t| parse::vmstat_swap_end(t).is_some()).is_ok()
            {
                self.vmstat_swap_end = parse::vmstat_swap_end(&buf);
                snap.vmstat = Some(parse::vmstat_swap(&buf));
            }
            self.scratch = buf;
        } else if need.vmstat || need.vmstat_all {
            let (swap, all) = self
                .with_file("/proc/vmstat", |s, t| {
                    (need.vmstat.then(|| parse::vmstat_swap(t)), need.vmstat_all.then(|| s.vmstat_all(t)))
                })
                .unwrap_or_default();
            snap.vmstat = swap;
            snap.vmstat_all = all;
        }
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

    /// `proc.nprocs`: how many processes /proc lists. On the running
    /// system the listing, the dearest part of a fetch, is made again only
    /// when the set of tasks may have changed since it was last made.
    ///
    /// The kernel adds one to /proc/stat's `processes` for every task it
    /// creates, and takes one from the task count in /proc/loadavg
    /// (`nr_threads`) for every task it releases; the two change with a
    /// task's appearing in and leaving /proc. When the listing was made
    /// after reading `processes` as S and then the task count as T, a
    /// later fetch that reads the task count as T' and then `processes`
    /// as S' knows, when S' = S, that no task was created between the two
    /// readings of S, and then, when T' = T, that none was released
    /// between the two readings of T. The tasks are those the listing
    /// saw, and so is their number. A listing that tasks came to or left
    /// while it was made is never reused: its S or T differs by the next
    /// fetch.
    ///
    /// (With /proc mounted `hidepid=`, a process that changes its
    /// credentials can come into or go out of sight without either
    /// number changing; that is not looked for.)
    fn count_procs(&mut self, snap: &Snap) -> Option<u32> {
        let pid = |n: &[u8]| n.first().is_some_and(u8::is_ascii_digit);
        let live = self.files.live();
        let forks = snap.stat.as_ref().and_then(|s| s.processes);
        let tasks = snap.loadavg.as_ref().and_then(|l| l.nprocs);
        if let (true, Some(f), Some(t), Some(seen)) = (live, forks, tasks, self.procs_seen) {
            if seen.forks == f && seen.tasks == t {
                return Some(seen.count);
            }
        }
        self.procs_seen = None;
        // the task count again, now after `processes`
        let tasks = match (live, forks) {
            (true, Some(_)) => self.with_file("/proc/loadavg", |_, t| parse::loadavg(t).nprocs).flatten(),
            _ => None,
        };
        let count = self.files.count("/proc", &pid).ok().map(count32);
        if let (Some(forks), Some(tasks), Some(count)) = (forks, tasks, count) {
            self.procs_seen = Some(ProcsSeen { forks, tasks, count });
        }
        count
    }

    /// `mem.vmstat.*` from /proc/vmstat as `refresh_proc_vmstat` takes
    /// them: each field the PMDA knows, by item (`u64::MAX` where the kernel
    /// has none); the totals of the `pgsteal_*`, `pgscan_kswapd*` and
    /// `pgscan_direct*` fields read; `nr_slab` and `thp_split`, where the
    /// kernel has split them, the sums of their parts (missing parts
    /// counting as `u64::MAX`, as the PMDA's -1).
    fn vmstat_all(&mut self, text: &[u8]) -> Vec<u64> {
        let items = &self.vmstat_items;
        let item = |name: &[u8]| items.binary_search_by(|(f, _)| (*f).cmp(name)).ok().map(|i| items[i].1 as usize);
        let mut v = vec![u64::MAX; items.iter().map(|(_, i)| *i as usize + 1).max().unwrap_or(0)];
        let (mut steal, mut kswapd, mut direct) = (0u64, 0u64, 0u64);
        for (k, (name, value)) in parse::vmstat_lines(text).enumerate() {
            // the field at this line last time, or looked up afresh
            let known = match self.vmstat_lines.get(k) {
                Some((seen, i)) if **seen == *name => i.map(|i| i as usize),
                _ => {
                    let i = item(name);
                    let entry = (name.into(), i.map(|i| i as u32));
                    match self.vmstat_lines.get_mut(k) {
                        Some(e) => *e = entry,
                        None => self.vmstat_lines.push(entry),
                    }
                    i
                }
            };
            let (Some(i), Some(x)) = (known, value) else { continue };
            v[i] = x;
            if name.starts_with(b"pgsteal_") {
                steal = steal.wrapping_add(x);
            } else if name.starts_with(b"pgscan_kswapd") {
                kswapd = kswapd.wrapping_add(x);
            } else if name.starts_with(b"pgscan_direct") {
                direct = direct.wrapping_add(x);
            }
        }
        let mut set = |name: &[u8], x: u64| {
            if let Some(i) = item(name) {
                v[i] = x;
            }
        };
        set(b"pgsteal_total", steal);
        set(b"pgscan_kswapd_total", kswapd);
        set(b"pgscan_direct_total", direct);
        let get = |v: &[u64], name: &[u8]| item(name).map_or(u64::MAX, |i| v[i]);
        for (whole, a, b) in [
            (&b"nr_slab"[..], &b"nr_slab_reclaimable"[..], &b"nr_slab_unreclaimable"[..]),
            (b"thp_split", b"thp_split_page", b"thp_split_page_failed"),
        ] {
            if get(&v, whole) == u64::MAX {
                let sum = get(&v, a).wrapping_add(get(&v, b));
                if let Some(i) = item(whole) {
                    v[i] = sum;
                }
            }
        }
        v
    }

    /// uname(2)'s fields from /proc/sys/kernel (one line each), and the
    /// distribution as the PMDA guesses it: the first of its release files
    /// in /etc that opens, up to its first newline (`Debian ` before
    /// debian_version's, lsb-release's `DISTRIB_ID=` dropped), else `?`.
    fn read_uname(&self) -> Uname {
        let line = |t: Vec<u8>| t[..memchr::memchr(b'\n', &t).unwrap_or(t.len())].to_vec();
        let sysctl = |name: &str| self.read(&format!("/proc/sys/kernel/{name}")).map(line);
        const RELEASE_FILES: [&str; 7] = [
            "debian_version",
            "oracle-release",
            "fedora-release",
            "redhat-release",
            "slackware-version",
            "SuSE-release",
            "lsb-release",
        ];
        let distro = RELEASE_FILES
            .iter()
            .find_map(|f| Some((*f, self.read(&format!("/etc/{f}"))?)))
            .and_then(|(f, text)| {
                let mut d = match f {
                    "debian_version" => [b"Debian ".as_slice(), &text].concat(),
                    "lsb-release" => {
                        let t = text.strip_prefix(b"DISTRIB_ID = ").unwrap_or(&text);
                        t.strip_prefix(b"DISTRIB_ID=").unwrap_or(t).to_vec()
                    }
                    _ => text,
                };
                // (an empty file reads as nothing)
                if d.len() <= usize::from(f == "debian_version") * 7 {
                    return None;
                }
                d.truncate(memchr::memchr(b'\n', &d).unwrap_or(d.len()));
                Some(d)
            })
            .unwrap_or_else(|| b"?".to_vec());
        Uname {
            release: sysctl("osrelease"),
            version: sysctl("version"),
            sysname: sysctl("ostype"),
            machine: sysctl("arch"),
            nodename: sysctl("hostname"),
            distro,
        }
    }

    fn meminfo_with_available(&self, text: &[u8]) -> Meminfo {
        let mut m = parse::meminfo(text);
        if m.get(MemField::MemAvailable).is_none() {
            // kernels before 3.14: the PMDA's estimate
            let (Some(free), Some(af), Some(inf), Some(srec)) = (
                m.get(MemField::MemFree),
                m.get(MemField::ActiveFile),
                m.get(MemField::InactiveFile),
                m.get(MemField::SReclaimable),
            ) else {
                return m;
            };
            if m.get(MemField::MemTotal).is_none() {
                return m;
            }
            let shift = self.opts.page_size.max(1).trailing_zeros();
            let low = self.read("/proc/zoneinfo").map_or(0, |z| parse::zoneinfo_low_pages(&z)).wrapping_shl(shift);
            let (free, af, inf, srec) = (free as i64, af as i64, inf as i64, srec as i64);
            let mut avail = free.wrapping_sub(low);
            let pagecache = af.wrapping_add(inf);
            avail = avail.wrapping_add(pagecache.wrapping_sub((pagecache / 2).min(low)));
            avail = avail.wrapping_add(srec).wrapping_sub((srec / 2).min(low));
            m.set(MemField::MemAvailable, avail.max(0) as u64);
        }
        m
    }

    fn ncpus_conf(&self) -> u32 {
        if let Some(n) = self.opts.ncpus {
            return n.max(1);
        }
        let from_possible = self.read("/sys/devices/system/cpu/possible").and_then(|t| parse::cpu_list_count(&t));
        let n = from_possible.or_else(|| {
            let names = self.files.list("/sys/devices/system/cpu").ok()?;
            let n = names
                .iter()
                .filter(|n| {
                    n.strip_prefix("cpu").is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
                })
                .count();
            u32::try_from(n).ok().filter(|&n| n > 0)
        });
        n.unwrap_or(1).max(1)
    }

    fn refresh_stat(&mut self, snap: &mut Snap) {
        if !self.cpus_ready {
            self.cpus_ready = true;
            for i in 0..self.ncpus_conf() {
                self.cpus.add(&format!("cpu{i}"));
            }
        }
        let size = self.cpus.len();
        self.cpus.deactivate_all();
        let Some(mut st) = self.with_file("/proc/stat", |_, t| parse::stat(t)) else { return };
        if let Some(all) = st.all.as_mut() {
            if let Some(w) = all.wait {
                all.wait = Some(monotone_wait(&mut self.prev_wait_all, w));
            }
        }
        if size == 1 {
            // one CPU: its times are the aggregate line's
            if let Some(inst) = self.cpus.add("cpu0") {
                snap.cpu.insert(inst, st.all.unwrap_or_default());
            }
        } else {
            for (id, times) in &st.cpus {
                let name = format!("cpu{id}");
                // only CPUs the indom was set up with count
                if !self.cpus.contains(&name) {
                    continue;
                }
                let Some(inst) = self.cpus.add(&name) else { continue };
                let mut t = *times;
                if let Some(w) = t.wait {
                    let prev = self.prev_wait.entry(inst).or_insert(0);
                    t.wait = Some(monotone_wait(prev, w));
                }
                snap.cpu.insert(inst, t);
            }
        }
        snap.stat = Some(st);
    }

    fn refresh_disks(&mut self, need: &Need, snap: &mut Snap) {
        for c in [&mut self.disks, &mut self.parts, &mut self.dm, &mut self.md] {
            c.deactivate_all();
        }
        // a disk's WWID is a file or two of its own to look for, only
        // where the WWID domain's metrics are asked for (its instances
        // otherwise stay as found last)
        let wwid = need.wwid;
        if wwid {
            self.wwid.deactivate_all();
        }
        let mut need_partitions = need.partitions;
        if need.diskstats {
            let read = self.with_file("/proc/diskstats", |s, text| {
                for line in parse::diskstats(text) {
                    if let Some(key) = s.disk_instance(&line.name, wwid, snap) {
                        if let Some(e) = snap.disks.get_mut(&key) {
                            e.counters = line.counters;
                        }
                    }
                }
            });
            need_partitions |= read.is_none();
        }
        if need_partitions {
            self.with_file("/proc/partitions", |s, text| {
                for line in parse::partitions(text) {
                    if let Some(key) = s.disk_instance(&line.name, wwid, snap) {
                        if let Some(e) = snap.disks.get_mut(&key) {
                            e.nr_blocks = line.blocks;
                            if e.counters.is_none() {
                                e.counters = Some(DiskCounters::default());
                            }
                        }
                    }
                }
            });
        }
    }

    /// Place one kernel device name in its instance domain, as
    /// `refresh_disk_indom` does; the snapshot key of its entry.
    fn disk_instance(&mut self, kname: &str, wwid: bool, snap: &mut Snap) -> Option<(u32, i32)> {
        let class = parse::classify_device(kname)?;
        let (name, dmmd) = match class {
            DeviceClass::Dm => {
                // the persistent name from sysfs; without one the PMDA
                // skips the device
                let raw = self.read(&format!("/sys/block/{kname}/dm/name"))?;
                let first = raw.split(|&b| b == b'\n').next().unwrap_or_default();
                if first.is_empty() && raw.is_empty() {
                    return None;
                }
                (String::from_utf8_lossy(first).into_owned(), Some(kname.to_owned()))
            }
            DeviceClass::Md => {
                (self.md_persistent_name(kname).unwrap_or_else(|| kname.to_owned()), Some(kname.to_owned()))
            }
            _ => (kname.to_owned(), None),
        };
        let (serial, inst) = match class {
            DeviceClass::Dm => (DM_INDOM.serial(), self.dm.add(&name)?),
            DeviceClass::Md => (MD_INDOM.serial(), self.md.add(&name)?),
            DeviceClass::Disk => (DISK_INDOM.serial(), self.disks.add(&name)?),
            DeviceClass::Wwid => (WWID_INDOM.serial(), self.wwid.add(&name)?),
            DeviceClass::Partition => (PARTITIONS_INDOM.serial(), self.parts.add(&name)?),
            // zram devices are not served here
            DeviceClass::Zram => return None,
        };
        let key = (serial, inst);
        if let Some(e) = snap.disks.get_mut(&key) {
            // seen earlier in this fetch (in /proc/diskstats, now in
            // /proc/partitions): its names and WWID are known
            e.nr_blocks = 0;
            return Some(key);
        }
        let mut id = None;
        if wwid && class == DeviceClass::Disk {
            id = self.scsi_id(&name);
            if let Some(w) = &id {
                self.wwid.add(w);
            }
        }
        let e = snap.disks.entry(key).or_default();
        e.name = name;
        e.kname = dmmd;
        e.wwid = id;
        e.nr_blocks = 0;
        Some(key)
    }

    fn md_persistent_name(&self, kname: &str) -> Option<String> {
        let names = self.files.list("/dev/md").ok()?;
        names.into_iter().find(|n| {
            !n.starts_with('.')
                && !n.as_bytes().first().is_some_and(u8::is_ascii_digit)
                && self.files.read_link(&format!("/dev/md/{n}")).is_some_and(|t| t.rsplit('/').next() == Some(kname))
        })
    }

    fn scsi_id(&self, dev: &str) -> Option<String> {
        // the device's wwid file, else (where it does not exist) the block
        // device's: reading the first answers the PMDA's question whether
        // it exists (a failure to open it that is not its absence is
        // asked again)
        let first = format!("/sys/block/{dev}/device/wwid");
        let text = match self.files.read(&first) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound || !self.files.exists(&first) => {
                self.read(&format!("/sys/block/{dev}/wwid"))?
            }
            Err(_) => return None,
        };
        let id = parse::scsi_id(&text)?;
        (!id.starts_with("unknown")).then_some(id)
    }

    fn refresh_net(&mut self, need: &Need, snap: &mut Snap) {
        self.nets.deactivate_all();
        let read = self.with_file("/proc/net/dev", |s, text| {
            for line in parse::net_dev(text) {
                if line.name.is_empty() {
                    continue;
                }
                if let Some(inst) = s.nets.add(&line.name) {
                    snap.nets.insert(inst, (line.counters, Ioc::default()));
                }
            }
        });
        if read.is_none() {
            return;
        }
        let wants_sysfs = need.net_mtu
            || need.net_speed
            || need.net_duplex
            || need.net_linkup
            || need.net_running
            || need.net_wireless
            || need.net_type
            || need.net_virtual;
        if !wants_sysfs {
            return;
        }
        let active: Vec<(i32, String)> = self.nets.active().map(|(i, n)| (i, n.to_owned())).collect();
        let links = self.files.net_links();
        // the kernel's index of each interface, where netlink gives it
        let index = |name: &str| links.as_ref()?.links.iter().find(|l| l.name == name).map(|l| l.index);
        let indexes: Vec<Option<i32>> = active.iter().map(|(_, n)| index(n)).collect();
        // each attribute file is read once per fetch, whichever pass asks;
        // whether an interface is wireless is known from an earlier fetch
        // while it has the same name and index (the kernel decides it as
        // it registers the device)
        let mut memo: Vec<Memo<'_, F>> = active.iter().map(|(_, n)| Memo::new(&self.files, n)).collect();
        for ((m, (_, name)), ix) in memo.iter_mut().zip(&active).zip(&indexes) {
            m.wireless = ix.and_then(|ix| self.wireless_known.iter().find(|k| k.0 == ix && k.1 == *name)).map(|k| k.2);
        }
        // sysfs first, stopping at the first interface missing a value
        for ((inst, _), m) in active.iter().zip(&mut memo) {
            let Some((_, ioc)) = snap.nets.get_mut(inst) else { continue };
            if !sysfs_ioc(m, need, ioc) {
                break;
            }
        }
        // then what the PMDA's ioctl()s give, for every interface: its
        // sysfs walk always reports a failure, so this always runs; the
        // kernel's netlink answers are what the ioctl()s would give, and
        // without them the sysfs files that mirror them stand in
        for ((inst, _), m) in active.iter().zip(&mut memo) {
            let Some((_, ioc)) = snap.nets.get_mut(inst) else { continue };
            match &links {
                Some(nl) => netlink_ioc(nl, m, need, ioc),
                None => ioctl_ioc(m, need, ioc),
            }
        }
        let known = memo.iter().zip(&indexes).zip(&active);
        self.wireless_known =
            known.filter_map(|((m, ix), (_, n))| Some((ix.as_ref().copied()?, n.clone(), m.wireless?))).collect();
    }

    fn refresh_filesys(&mut self, snap: &mut Snap) {
        match &self.mounted {
            // the kernel says the mount table is as it was when read: the
            // file systems (and their instances) are the ones found then
            Some(fs) if self.files.mounts_unchanged() => snap.fs = fs.clone(),
            _ => {
                self.filesys.deactivate_all();
                let mut text = std::mem::take(&mut self.scratch);
                let read = self.files.read_into("/proc/self/mounts", &mut text).is_ok();
                if read {
                    self.filesys_mounts(&text, snap);
                }
                self.scratch = text;
                self.mounted = read.then(|| snap.fs.clone());
            }
        }
        for (inst, e) in &snap.fs {
            snap.statfs.insert(*inst, self.files.statfs(&e.path).ok());
        }
    }

    fn filesys_mounts(&mut self, text: &[u8], snap: &mut Snap) {
        // (compared as bytes: what is not UTF-8 matches none of these
        // names, as its lossy conversion would not)
        for [dev, path, fstype, options] in parse::mount_fields(text) {
            const SKIP: [&[u8]; 11] = [
                b"proc",
                b"nfs",
                b"devfs",
                b"devpts",
                b"devtmpfs",
                b"squashfs",
                b"selinuxfs",
                b"securityfs",
                b"configfs",
                b"cgroup",
                b"sysfs",
            ];
            if SKIP.contains(&fstype) || fstype.starts_with(b"auto") || fstype == b"tmpfs" {
                continue;
            }
            if !dev.starts_with(b"/dev") && path != b"/" {
                continue;
            }
            let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            let mut device = lossy(dev);
            if !device.starts_with("/dev/mapper") && !device.starts_with("/dev/md") {
                if let Some(real) = self.files.realpath(&device) {
                    device = real;
                }
            }
            if self.filesys.lookup(&device).is_some() {
                // a repeated mount of the same device: the first counts
                continue;
            }
            if let Some(inst) = self.filesys.add(&device) {
                snap.fs.insert(inst, FsEntry { path: lossy(path), options: lossy(options) });
            }
        }
    }

    // ---------------------------------------------------------------
    // values

    fn value(&self, snap: &Snap, def: &MetricDef, inst: i32) -> Result<Option<AtomValue>, PmError> {
        let (cluster, item) = (def.pmid.cluster(), def.pmid.item());
        if def.pmid.domain() == crate::PROC_DOMAIN {
            return Ok(snap.nprocs.map(AtomValue::U32));
        }
        let ty = def.ty;
        match cluster {
            0 => self.stat_value(snap, ty, item, inst),
            1 => Ok(mem_value(snap.meminfo.as_ref(), ty, item, self.opts.page_size)),
            2 => {
                let Some(la) = snap.loadavg else { return Ok(None) };
                Ok(match item {
                    0 => match inst {
                        1 => la.load[0],
                        5 => la.load[1],
                        15 => la.load[2],
                        _ => return Err(PmError::PM_ERR_INST),
                    }
                    .map(AtomValue::Float),
                    1 => la.lastpid.map(AtomValue::U32),
                    2 => la.runnable.map(AtomValue::U32),
                    3 => la.nprocs.map(AtomValue::U32),
                    _ => return Err(PmError::PM_ERR_PMID),
                })
            }
            3 => self.net_value(snap, ty, item, inst),
            5 => self.fs_value(snap, item, inst),
            26 => {
                let Some(up) = snap.uptime else { return Ok(None) };
                Ok(match item {
                    0 => up.uptime,
                    1 => up.idletime,
                    _ => return Err(PmError::PM_ERR_PMID),
                }
                .map(AtomValue::Double))
            }
            54 | 59 => self.dmmd_value(snap, ty, cluster, item, inst),
            // disk.partitions: disk.dm's items without its item 13
            PARTITIONS_CLUSTER => {
                let e = self.disk_entry(snap, PARTITIONS_INDOM.serial(), inst)?;
                self.block_value(e, ty, if item < 13 { item } else { item + 1 })
            }
            92 => self.wwid_value(snap, ty, item, inst),
            SNMP_CLUSTER => {
                let Some(snmp) = &snap.snmp else { return Ok(None) };
                let x = match def.name.strip_prefix("network.icmpmsg.") {
                    Some(dir) => {
                        let types = if dir == "intype" { &snmp.icmpmsg_in } else { &snmp.icmpmsg_out };
                        *types
                            .get(usize::try_from(inst).map_err(|_| PmError::PM_ERR_INST)?)
                            .ok_or(PmError::PM_ERR_INST)?
                    }
                    None => snmp.values.get(item as usize).copied().unwrap_or(u64::MAX),
                };
                // (tcp.maxconn is -1 on Linux: the PMDA shows it whatever)
                Ok((x != u64::MAX || item == 53).then_some(AtomValue::U64(x)))
            }
            VMSTAT_CLUSTER => {
                let Some(v) = &snap.vmstat_all else { return Ok(None) };
                let x = *v.get(item as usize).ok_or(PmError::PM_ERR_PMID)?;
                Ok((x != u64::MAX).then_some(AtomValue::U64(x)))
            }
            12 => {
                let Some(u) = &self.uname else { return Ok(None) };
                let field = match item {
                    0 => &u.release,
                    1 => &u.version,
                    2 => &u.sysname,
                    3 => &u.machine,
                    4 => &u.nodename,
                    7 => return Ok(Some(AtomValue::String(u.distro.clone()))),
                    _ => return Err(PmError::PM_ERR_PMID),
                };
                Ok(field.clone().map(AtomValue::String))
            }
            _ => Err(PmError::PM_ERR_PMID),
        }
    }

    fn stat_value(&self, snap: &Snap, ty: MetricType, item: u32, inst: i32) -> Result<Option<AtomValue>, PmError> {
        if is_disk_item(item) {
            return self.disk_value(snap, ty, item, inst);
        }
        let percpu = matches!(item, 0..=3 | 30 | 31 | 56..=58 | 61 | 76 | 83 | 84);
        let allcpu = matches!(item, 20..=23 | 34 | 35 | 53..=55 | 60 | 78 | 81 | 82);
        if percpu || allcpu {
            let t = if percpu {
                *snap.cpu.get(&inst).ok_or(PmError::PM_ERR_INST)?
            } else {
                match snap.stat.as_ref().and_then(|s| s.all) {
                    Some(t) => t,
                    None => return Ok(None),
                }
            };
            let hz = f64::from(self.opts.hz.max(1));
            let diff = |a: Option<u64>, b: Option<u64>| Some(a?.wrapping_sub(b?));
            let ticks = match item {
                0 | 20 => t.user,
                1 | 21 => t.nice,
                2 | 22 => t.sys,
                3 | 23 => t.idle,
                30 | 35 => t.wait,
                31 | 34 => {
                    // hard and soft interrupt time, added in double precision
                    let (Some(a), Some(b)) = (t.irq, t.sirq) else { return Ok(None) };
                    return Ok(Some(num(ty, (1000.0 * (a as f64 + b as f64) / hz) as u64)));
                }
                53 | 56 => t.sirq,
                54 | 57 => t.irq,
                55 | 58 => t.steal,
                60 | 61 => t.guest,
                76 | 78 => diff(t.user, t.guest),
                81 | 83 => t.guest_nice,
                82 | 84 => diff(t.nice, t.guest_nice),
                _ => return Err(PmError::PM_ERR_PMID),
            };
            return Ok(ticks.map(|v| num(ty, (1000.0 * v as f64 / hz) as u64)));
        }
        match item {
            8 | 9 => {
                // pages swapped, from /proc/vmstat (or /proc/stat before 2.6)
                let i = (item - 8) as usize;
                Ok(match &snap.vmstat {
                    Some(v) => [v.pswpin, v.pswpout][i].map(|x| AtomValue::U32(x as u32)),
                    None => snap.stat.as_ref().and_then(|s| s.swap[i]).map(AtomValue::U32),
                })
            }
            10 | 11 => {
                if snap.vmstat.is_some() {
                    return Err(PmError::PM_ERR_APPVERSION);
                }
                Ok(snap.stat.as_ref().and_then(|s| s.page[(item - 10) as usize]).map(AtomValue::U32))
            }
            12 => Ok(snap.stat.as_ref().and_then(|s| s.intr).map(|v| num(ty, v))),
            13 => Ok(snap.stat.as_ref().and_then(|s| s.ctxt).map(|v| num(ty, v))),
            14 => Ok(snap.stat.as_ref().and_then(|s| s.processes).map(|v| num(ty, v))),
            15 => Ok(snap.stat.as_ref().and_then(|s| s.procs_running).map(|v| num(ty, v))),
            16 => Ok(snap.stat.as_ref().and_then(|s| s.procs_blocked).map(|v| num(ty, v))),
            17 => Ok(snap.stat.as_ref().and_then(|s| s.btime).map(|v| AtomValue::I64(v as i64))),
            32 => Ok(Some(AtomValue::U32(count32(self.cpus.active_count())))),
            48 => Ok(Some(AtomValue::U32(self.opts.hz))),
            _ => Err(PmError::PM_ERR_PMID),
        }
    }

    fn disk_entry<'s>(&self, snap: &'s Snap, serial: u32, inst: i32) -> Result<&'s DiskEntry, PmError> {
        snap.disks.get(&(serial, inst)).ok_or(PmError::PM_ERR_INST)
    }

    fn disk_value(&self, snap: &Snap, ty: MetricType, item: u32, inst: i32) -> Result<Option<AtomValue>, PmError> {
        if item == 33 {
            return Ok(Some(AtomValue::U32(count32(self.disks.active_count()))));
        }
        if DISK_ALL.contains(&item) {
            return Ok(self.disk_all(snap, ty, item));
        }
        let e = self.disk_entry(snap, DISK_INDOM.serial(), inst)?;
        if item == 59 {
            let sched = self.read(&format!("/sys/block/{}/queue/scheduler", e.name));
            return Ok(Some(AtomValue::String(scheduler_name(&self.files, &e.name, sched.as_deref()))));
        }
        let Some(c) = e.counters else { return Ok(None) };
        if item == 87 {
            return Ok((e.nr_blocks != 0).then_some(AtomValue::U64(e.nr_blocks)));
        }
        Ok(dev_field(&c, item).map(|v| num(ty, v)))
    }

    fn disk_all(&self, snap: &Snap, ty: MetricType, item: u32) -> Option<AtomValue> {
        let mut sum: u64 = 0;
        for (inst, _) in self.disks.active() {
            let Some(c) = snap.disks.get(&(DISK_INDOM.serial(), inst)).and_then(|e| e.counters) else { continue };
            // the same per-device quantity as disk.dev's twin item
            let dev_item = match item {
                24 => 4,
                25 => 5,
                26 => 6,
                27 => 7,
                29 => 28,
                37 => 36,
                41 => 38,
                42 => 39,
                43 => 40,
                44 => 46,
                45 => 47,
                51 => 49,
                52 => 50,
                74 => 72,
                75 => 73,
                80 => 79,
                96 => 88,
                97 => 89,
                98 => 90,
                99 => 91,
                100 => 92,
                101 => 93,
                102 => 94,
                104 => 95,
                _ => return None,
            };
            sum = sum.wrapping_add(dev_field(&c, dev_item)?);
        }
        Some(num(ty, sum))
    }

    fn dmmd_value(
        &self,
        snap: &Snap,
        ty: MetricType,
        cluster: u32,
        item: u32,
        inst: i32,
    ) -> Result<Option<AtomValue>, PmError> {
        let serial = if cluster == 54 { DM_INDOM.serial() } else { MD_INDOM.serial() };
        let e = self.disk_entry(snap, serial, inst)?;
        if item == 13 {
            return Ok(e.kname.clone().map(|k| AtomValue::String(k.into_bytes())));
        }
        self.block_value(e, ty, item)
    }

    /// Item `item` of disk.dm (or disk.md, or disk.partitions renumbered)
    /// for one device: the capacity, or disk.dev's twin of the counter.
    fn block_value(&self, e: &DiskEntry, ty: MetricType, item: u32) -> Result<Option<AtomValue>, PmError> {
        if item == 17 {
            return Ok((e.nr_blocks != 0).then_some(AtomValue::U64(e.nr_blocks)));
        }
        let Some(c) = e.counters else { return Ok(None) };
        // disk.{dm,md} items in the order of disk.dev's twins
        let dev_item = match item {
            0 => 4,
            1 => 5,
            2 => 28,
            3 => 6,
            4 => 7,
            5 => 36,
            6 => 38,
            7 => 39,
            8 => 40,
            9 => 49,
            10 => 50,
            11 => 46,
            12 => 47,
            14 => 72,
            15 => 73,
            16 => 79,
            18 => 88,
            19 => 89,
            20 => 90,
            21 => 91,
            22 => 92,
            23 => 93,
            24 => 94,
            25 => 95,
            _ => return Err(PmError::PM_ERR_PMID),
        };
        Ok(dev_field(&c, dev_item).map(|v| num(ty, v)))
    }

    fn wwid_value(&self, snap: &Snap, ty: MetricType, item: u32, inst: i32) -> Result<Option<AtomValue>, PmError> {
        let Some(wwid) = self.wwid.name(inst) else { return Err(PmError::PM_ERR_INST) };
        let mut sum: u64 = 0;
        let mut text: Option<Vec<u8>> = None;
        for (dinst, _) in self.disks.active() {
            let Some(e) = snap.disks.get(&(DISK_INDOM.serial(), dinst)) else { continue };
            if e.wwid.as_deref() != Some(wwid) {
                continue;
            }
            match item {
                3 => {
                    let t = text.get_or_insert_with(Vec::new);
                    if !t.is_empty() {
                        t.push(b' ');
                    }
                    t.extend_from_slice(e.name.as_bytes());
                    t.truncate(1023);
                }
                59 => {
                    let sched = self.read(&format!("/sys/block/{}/queue/scheduler", e.name));
                    text = Some(scheduler_name(&self.files, &e.name, sched.as_deref()));
                }
                87 => {
                    if e.nr_blocks == 0 {
                        return Ok(None);
                    }
                    sum = sum.wrapping_add(e.nr_blocks);
                }
                _ => {
                    let Some(c) = e.counters else { continue };
                    let v = dev_field(&c, item).ok_or(PmError::PM_ERR_PMID)?;
                    // these the PMDA adds (or, for discard_bytes, sets) in
                    // the 32-bit half of its value
                    sum = match item {
                        90 => v as u32 as u64,
                        88 | 89 | 91 | 93 => (sum as u32).wrapping_add(v as u32) as u64,
                        _ => sum.wrapping_add(v),
                    };
                }
            }
        }
        Ok(Some(match item {
            3 | 59 => match text {
                Some(t) => AtomValue::String(t),
                // no path: the PMDA's value is a NULL string
                None => return Ok(None),
            },
            _ => num(ty, sum),
        }))
    }

    fn net_value(&self, snap: &Snap, ty: MetricType, item: u32, inst: i32) -> Result<Option<AtomValue>, PmError> {
        if item == 27 {
            return Ok(Some(AtomValue::U32(count32(self.nets.active_count()))));
        }
        let Some((c, ioc)) = snap.nets.get(&inst) else { return Err(PmError::PM_ERR_INST) };
        let pair = |a: usize, b: usize| Some(c[a]?.wrapping_add(c[b]?));
        Ok(match item {
            0..=15 => c[item as usize].map(|v| num(ty, v)),
            16 => pair(0, 8).map(AtomValue::U64),
            17 => pair(1, 9).map(AtomValue::U64),
            18 => pair(2, 10).map(AtomValue::U64),
            19 => pair(3, 11).map(AtomValue::U64),
            20 => c[7].map(AtomValue::U64),
            21 => (ioc.mtu != 0).then_some(AtomValue::U32(ioc.mtu)),
            22 => (ioc.speed != 0)
                .then(|| AtomValue::Float(((ioc.speed as f32) * 1_000_000f32) / 8f32 / 1024f32 / 1024f32)),
            23 => (ioc.speed != 0).then(|| AtomValue::U64(u64::from(ioc.speed) * 1_000_000 / 8)),
            24 => (ioc.duplex != 0).then_some(AtomValue::U32(ioc.duplex)),
            25 => Some(AtomValue::U32(u32::from(ioc.linkup))),
            26 => Some(AtomValue::U32(u32::from(ioc.running))),
            28 => Some(AtomValue::U32(u32::from(ioc.wireless))),
            29 => Some(AtomValue::U32(ioc.ty)),
            30 => Some(AtomValue::U32(u32::from(ioc.virtuali))),
            _ => return Err(PmError::PM_ERR_PMID),
        })
    }

    fn fs_value(&self, snap: &Snap, item: u32, inst: i32) -> Result<Option<AtomValue>, PmError> {
        if item == 0 {
            return Ok(Some(AtomValue::U32(count32(self.filesys.active_count()))));
        }
        let Some(e) = snap.fs.get(&inst) else { return Err(PmError::PM_ERR_INST) };
        let Some(Some(s)) = snap.statfs.get(&inst) else { return Err(PmError::PM_ERR_INST) };
        let kb = |blocks: u64| blocks.wrapping_mul(s.bsize) / 1024;
        let used = s.blocks.wrapping_sub(s.bfree);
        Ok(Some(match item {
            1 => AtomValue::U64(kb(s.blocks)),
            2 => AtomValue::U64(kb(used)),
            3 => AtomValue::U64(kb(s.bfree)),
            4 => AtomValue::U32(s.files as u32),
            5 => AtomValue::U32(s.files.wrapping_sub(s.ffree) as u32),
            6 => AtomValue::U32(s.ffree as u32),
            7 => AtomValue::String(e.path.clone().into_bytes()),
            8 => AtomValue::Double(100.0 * used as f64 / used.wrapping_add(s.bavail) as f64),
            9 => AtomValue::U32(s.bsize as u32),
            10 => AtomValue::U64(kb(s.bavail)),
            11 => {
                // the PMDA looks at the first 127 bytes of the options
                let opts = e.options.as_bytes();
                let opts = &opts[..opts.len().min(127)];
                AtomValue::U32(u32::from(opts.split(|&b| b == b',').any(|o| o == b"ro")))
            }
            _ => return Err(PmError::PM_ERR_PMID),
        }))
    }
}

/// disk.all items (cluster 0).
const DISK_ALL: [u32; 24] =
    [24, 25, 26, 27, 29, 37, 41, 42, 43, 44, 45, 51, 52, 74, 75, 80, 96, 97, 98, 99, 100, 101, 102, 104];

/// Is cluster-0 `item` one of the disk metrics (read from /proc/diskstats)?
fn is_disk_item(item: u32) -> bool {
    matches!(item, 4..=7 | 28 | 33 | 36 | 38..=40 | 46 | 47 | 49 | 50 | 59 | 72 | 73 | 79 | 87..=95)
        || DISK_ALL.contains(&item)
}

/// The per-device quantity behind a disk.dev item (sectors halved to
/// kilobytes, 32-bit times added in 32 bits, as the PMDA does).
fn dev_field(c: &DiskCounters, item: u32) -> Option<u64> {
    Some(match item {
        4 => c.rd_ios,
        5 => c.wr_ios,
        6 => c.rd_sectors,
        7 => c.wr_sectors,
        28 => c.rd_ios.wrapping_add(c.wr_ios),
        36 => c.rd_sectors.wrapping_add(c.wr_sectors),
        38 => c.rd_sectors / 2,
        39 => c.wr_sectors / 2,
        40 => c.rd_sectors.wrapping_add(c.wr_sectors) / 2,
        46 => u64::from(c.io_ticks),
        47 => u64::from(c.aveq),
        49 => c.rd_merges,
        50 => c.wr_merges,
        72 => u64::from(c.rd_ticks),
        73 => u64::from(c.wr_ticks),
        79 => u64::from(c.rd_ticks.wrapping_add(c.wr_ticks)),
        88 => c.ds_ios,
        89 => c.ds_sectors,
        90 => c.ds_sectors / 2,
        91 => c.ds_merges,
        92 => u64::from(c.ds_ticks),
        93 => c.fl_ios,
        94 => u64::from(c.fl_ticks),
        95 => u64::from(c.ios_in_flight),
        _ => return None,
    })
}

/// The I/O scheduler of a device: the bracketed name, or what the
/// directory layout of kernels without the scheduler file suggests.
fn scheduler_name(files: &dyn FilesDyn, dev: &str, sched: Option<&[u8]>) -> Vec<u8> {
    if let Some(text) = sched {
        return parse::io_scheduler(text).map_or_else(|| b"unknown".to_vec(), <[u8]>::to_vec);
    }
    let q = format!("/sys/block/{dev}/queue/iosched");
    for (file, name) in [("quantum", "cfq"), ("fifo_batch", "deadline"), ("antic_expire", "anticipatory")] {
        if files.exists_dyn(&format!("{q}/{file}")) {
            return name.as_bytes().to_vec();
        }
    }
    if files.exists_dyn(&q) {
        return b"noop".to_vec();
    }
    b"unknown".to_vec()
}

/// Object-safe access to [`Files::exists`] for the helpers above.
trait FilesDyn {
    fn exists_dyn(&self, path: &str) -> bool;
}

impl<F: Files> FilesDyn for F {
    fn exists_dyn(&self, path: &str) -> bool {
        self.exists(path)
    }
}

/// One interface's sysfs attributes, each read at most once.
struct Memo<'a, F: Files> {
    files: &'a F,
    name: &'a str,
    words: Vec<(&'static str, Option<Vec<u8>>)>,
    /// Does it have a `wireless` directory (once looked at, or known)?
    wireless: Option<bool>,
}

impl<'a, F: Files> Memo<'a, F> {
    fn new(files: &'a F, name: &'a str) -> Memo<'a, F> {
        Memo { files, name, words: Vec::new(), wireless: None }
    }

    /// Is it a wireless interface (`/sys/class/net/NAME/wireless`)?
    fn wireless(&mut self) -> bool {
        let name = self.name;
        *self.wireless.get_or_insert_with(|| self.files.exists(&format!("/sys/class/net/{name}/wireless")))
    }

    /// The first word of `/sys/class/net/NAME/ATTR`.
    fn word(&mut self, attr: &'static str) -> Option<Vec<u8>> {
        if let Some((_, w)) = self.words.iter().find(|(a, _)| *a == attr) {
            return w.clone();
        }
        let w = self
            .files
            .read(&format!("/sys/class/net/{}/{attr}", self.name))
            .ok()
            .and_then(|t| parse::sysfs_oneline(&t).map(<[u8]>::to_vec));
        self.words.push((attr, w.clone()));
        w
    }

    fn exists(&self, path: String) -> bool {
        self.files.exists(&path)
    }
}

/// The interface values from sysfs, as `refresh_net_dev_sysfs` reads
/// them; `false` when a needed attribute is missing (the PMDA stops its
/// sysfs walk there).
fn sysfs_ioc<F: Files>(m: &mut Memo<'_, F>, need: &Need, ioc: &mut Ioc) -> bool {
    if need.net_speed {
        let Some(v) = m.word("speed") else { return false };
        ioc.speed = crate::scan::atoi(&v) as u32;
    }
    if need.net_mtu {
        let Some(v) = m.word("mtu") else { return false };
        ioc.mtu = crate::scan::atoi(&v) as u32;
    }
    if need.net_linkup || need.net_running {
        let Some(v) = m.word("flags") else { return false };
        let flags = crate::scan::strtoul_hex(&v);
        ioc.linkup = flags & IFF_UP != 0;
        ioc.running = flags & IFF_RUNNING != 0;
    }
    if need.net_duplex {
        ioc.duplex = match m.word("duplex") {
            None if !m.exists(format!("/sys/class/net/{}", m.name)) => return false,
            v => duplex_code(v.as_deref()),
        };
    }
    if need.net_wireless {
        ioc.wireless = m.wireless();
    }
    if need.net_type {
        let Some(v) = m.word("type") else { return false };
        ioc.ty = crate::scan::atoi(&v) as u32;
    }
    if need.net_virtual {
        ioc.virtuali = m.exists(format!("/sys/devices/virtual/net/{}", m.name));
    }
    true
}

fn duplex_code(v: Option<&[u8]>) -> u32 {
    match v {
        Some(b"half") => 1,
        Some(b"full") => 2,
        _ => 0,
    }
}

/// What the PMDA's `ioctl()`s would set, derived from the sysfs files
/// that mirror them: `SIOCGIFMTU` is the `mtu` attribute, `SIOCGIFFLAGS`
/// the `flags` with `IFF_RUNNING` where the link is up and its operational
/// state "up" or "unknown", and `SIOCETHTOOL` succeeds where the driver
/// reports a speed (then type 1, not wireless); an interface with a
/// `wireless` directory answers as a wireless one (its bit rate is not
/// available here).
fn ioctl_ioc<F: Files>(m: &mut Memo<'_, F>, need: &Need, ioc: &mut Ioc) {
    if need.net_mtu {
        if let Some(v) = m.word("mtu") {
            ioc.mtu = crate::scan::atoi(&v) as u32;
        }
    }
    if need.net_linkup || need.net_running {
        if let Some(v) = m.word("flags") {
            let up = crate::scan::strtoul_hex(&v) & IFF_UP != 0;
            let oper = m.word("operstate");
            ioc.linkup = up;
            ioc.running = up && matches!(oper.as_deref(), Some(b"up" | b"unknown"));
        }
    }
    if need.net_type || need.net_speed || need.net_duplex || need.net_wireless {
        let ethtool =
            m.word("speed").map(|speed| (crate::scan::atoi(&speed) as u32, duplex_code(m.word("duplex").as_deref())));
        ethtool_ioc(m, ethtool, ioc);
    }
}

/// What the PMDA's `ioctl()`s set, from the kernel's netlink answers:
/// the link dump's MTU and flags are `SIOCGIFMTU`'s and `SIOCGIFFLAGS`'s
/// (both from the same device fields), the ethtool link modes' speed and
/// duplex `ETHTOOL_GSET`'s (the duplex as the PMDA keeps it, one more in
/// two bits); without an ethtool answer the sysfs files stand in.
fn netlink_ioc<F: Files>(nl: &parse::NetLinks, m: &mut Memo<'_, F>, need: &Need, ioc: &mut Ioc) {
    // an interface the kernel does not know fails every ioctl()
    let Some(link) = nl.links.iter().find(|l| l.name == m.name) else { return };
    if need.net_mtu {
        if let Some(mtu) = link.mtu {
            ioc.mtu = mtu;
        }
    }
    if need.net_linkup || need.net_running {
        ioc.linkup = u64::from(link.flags) & IFF_UP != 0;
        ioc.running = u64::from(link.flags) & IFF_RUNNING != 0;
    }
    if need.net_type || need.net_speed || need.net_duplex || need.net_wireless {
        let ethtool = if nl.ethtool_known {
            link.ethtool.map(|(speed, duplex)| (speed, (u32::from(duplex) + 1) & 3))
        } else {
            m.word("speed").map(|speed| (crate::scan::atoi(&speed) as u32, duplex_code(m.word("duplex").as_deref())))
        };
        ethtool_ioc(m, ethtool, ioc);
    }
}

/// `SIOCETHTOOL`'s answer `(speed, duplex)` or, where it fails, the
/// wireless interface's.
fn ethtool_ioc<F: Files>(m: &mut Memo<'_, F>, ethtool: Option<(u32, u32)>, ioc: &mut Ioc) {
    if let Some((speed, duplex)) = ethtool {
        ioc.ty = 1;
        ioc.speed = speed;
        ioc.duplex = duplex;
        ioc.wireless = false;
    } else if m.wireless() {
        ioc.ty = 0;
        ioc.duplex = 1;
        ioc.wireless = true;
    }
}

fn mem_value(m: Option<&Meminfo>, ty: MetricType, item: u32, page_size: u32) -> Option<AtomValue> {
    use MemField as F;
    if item == 11 {
        return Some(AtomValue::U32(page_size));
    }
    let m = m?;
    let g = |f: F| m.get(f);
    let v: u64 = match item {
        0 => g(F::MemTotal)?,
        1 => g(F::MemTotal)?.wrapping_sub(g(F::MemFree)?),
        2 | 10 => g(F::MemFree)?,
        3 => g(F::MemShared)?,
        4 => g(F::Buffers)?,
        5 => g(F::Cached)?,
        6 => g(F::SwapTotal)? << 10,
        7 => g(F::SwapTotal)?.wrapping_sub(g(F::SwapFree)?) << 10,
        8 => g(F::SwapFree)? << 10,
        9 => g(F::MemTotal)? >> 10,
        12 => {
            let other = (g(F::MemTotal)? as i64)
                .wrapping_sub(g(F::MemFree)? as i64)
                .wrapping_sub(g(F::Cached)? as i64)
                .wrapping_sub(g(F::Buffers)? as i64);
            other.max(0) as u64
        }
        13 => g(F::SwapCached)?,
        14 => g(F::Active)?,
        15 => g(F::Inactive)?,
        16 => g(F::HighTotal)?,
        17 => g(F::HighFree)?,
        18 => g(F::LowTotal)?,
        19 => g(F::LowFree)?,
        20 => g(F::SwapTotal)?,
        21 => g(F::SwapFree)?,
        22 => g(F::Dirty)?,
        23 => g(F::Writeback)?,
        24 => g(F::Mapped)?,
        25 => g(F::Slab)?,
        26 => g(F::CommittedAs)?,
        27 => g(F::PageTables)?,
        28 => g(F::ReverseMaps)?,
        29 => {
            let clean = (g(F::Cached)? as i64).wrapping_sub(g(F::Dirty)? as i64).wrapping_sub(g(F::Writeback)? as i64);
            clean.max(0) as u64
        }
        30 => g(F::AnonPages)?,
        31 => g(F::CommitLimit)?,
        32 => g(F::Bounce)?,
        33 => g(F::NfsUnstable)?,
        34 => g(F::SReclaimable)?,
        35 => g(F::SUnreclaim)?,
        36 => g(F::ActiveAnon)?,
        37 => g(F::InactiveAnon)?,
        38 => g(F::ActiveFile)?,
        39 => g(F::InactiveFile)?,
        40 => g(F::Unevictable)?,
        41 => g(F::Mlocked)?,
        42 => g(F::Shmem)?,
        43 => g(F::KernelStack)?,
        44 => g(F::HugePagesTotal)?,
        45 => g(F::HugePagesFree)?,
        46 => g(F::HugePagesRsvd)?,
        47 => g(F::HugePagesSurp)?,
        48 => g(F::DirectMap4k)?,
        49 => g(F::DirectMap2M)?,
        50 => g(F::VmallocTotal)?,
        51 => g(F::VmallocUsed)?,
        52 => g(F::VmallocChunk)?,
        53 => g(F::MmapCopy)?,
        54 => g(F::Quicklists)?,
        55 => g(F::HardwareCorrupted)?,
        56 => g(F::AnonHugePages)?,
        57 => g(F::DirectMap1G)?,
        58 => g(F::MemAvailable)?,
        59 => g(F::Hugepagesize)? << 10,
        60..=63 => {
            let pages =
                g([F::HugePagesTotal, F::HugePagesFree, F::HugePagesRsvd, F::HugePagesSurp][(item - 60) as usize])?;
            pages.wrapping_mul(g(F::Hugepagesize)? << 10)
        }
        _ => return None,
    };
    Some(num(ty, v))
}

/// A count as the 32-bit value the PMDA reports it in.
fn count32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// An unsigned quantity as a value of the metric's type.
fn num(ty: MetricType, v: u64) -> AtomValue {
    match ty {
        MetricType::U32 => AtomValue::U32(v as u32),
        MetricType::I32 => AtomValue::I32(v as i32),
        MetricType::I64 => AtomValue::I64(v as i64),
        MetricType::FLOAT => AtomValue::Float(v as f32),
        MetricType::DOUBLE => AtomValue::Double(v as f64),
        _ => AtomValue::U64(v),
    }
}

/// /proc/stat's iowait can step back a little; the PMDA holds the last
/// value until the kernel catches up, unless the drop is large (a wrap).
fn monotone_wait(prev: &mut u64, cur: u64) -> u64 {
    if *prev > 0 && cur < *prev && cur > prev.wrapping_sub(WAITIO_SLOP) {
        *prev
    } else {
        *prev = cur;
        cur
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
            12 => n.uname = true,
            SNMP_CLUSTER => n.snmp = true,
            VMSTAT_CLUSTER => n.vmstat_all = true,
            26 => n.uptime = true,
            _ => {}
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{NetLink, NetLinks};
    use std::io;

    /// Files in memory, and the kernel's netlink answers when given; what
    /// poll(2) would say of the mount table; /proc's entries, counting the
    /// listings made of them; whether this stands for the running system.
    #[derive(Default)]
    struct Mem {
        files: HashMap<String, Vec<u8>>,
        links: Option<NetLinks>,
        mounts_unchanged: bool,
        proc_entries: Vec<String>,
        proc_listings: std::cell::Cell<usize>,
        live: bool,
        /// Every path read, in order.
        reads: std::cell::RefCell<Vec<String>>,
    }

    impl Files for Mem {
        fn read(&self, path: &str) -> io::Result<Vec<u8>> {
            self.reads.borrow_mut().push(path.to_owned());
            self.files.get(path).cloned().ok_or_else(|| io::ErrorKind::NotFound.into())
        }
        fn list(&self, dir: &str) -> io::Result<Vec<String>> {
            if dir != "/proc" {
                return Err(io::ErrorKind::NotFound.into());
            }
            self.proc_listings.set(self.proc_listings.get() + 1);
            Ok(self.proc_entries.clone())
        }
        fn exists(&self, path: &str) -> bool {
            self.files.keys().any(|k| k == path || k.starts_with(&format!("{path}/")))
        }
        fn realpath(&self, _: &str) -> Option<String> {
            None
        }
        fn read_link(&self, _: &str) -> Option<String> {
            None
        }
        fn statfs(&self, _: &str) -> io::Result<FsStats> {
            Ok(FsStats { bsize: 4096, blocks: 100, bfree: 50, bavail: 40, files: 10, ffree: 5 })
        }
        fn net_links(&self) -> Option<NetLinks> {
            self.links.clone()
        }
        fn mounts_unchanged(&self) -> bool {
            self.mounts_unchanged
        }
        fn live(&self) -> bool {
            self.live
        }
    }

    const NET_DEV: &str = "Inter-|   Receive |  Transmit\n face |bytes packets|bytes packets\n\
        lo: 10 1 0 0 0 0 0 0 10 1 0 0 0 0 0 0\n  eth0: 20 2 0 0 0 0 0 0 30 3 0 0 0 0 0 0\n\
        eth1: 40 4 0 0 0 0 0 0 50 5 0 0 0 0 0 0\n";

    fn source(links: Option<NetLinks>) -> LinuxSource<Mem> {
        let mut files = HashMap::new();
        let mut put = |p: &str, v: &str| files.insert(p.to_owned(), v.as_bytes().to_vec());
        put("/proc/net/dev", NET_DEV);
        for (name, mtu, speed, duplex) in
            [("lo", "65536", None, None), ("eth0", "1500", Some("-1"), Some("unknown")), ("eth1", "9000", None, None)]
        {
            put(&format!("/sys/class/net/{name}/mtu"), &format!("{mtu}\n"));
            put(&format!("/sys/class/net/{name}/flags"), "0x1003\n");
            put(&format!("/sys/class/net/{name}/operstate"), "up\n");
            if let Some(s) = speed {
                put(&format!("/sys/class/net/{name}/speed"), &format!("{s}\n"));
            }
            if let Some(d) = duplex {
                put(&format!("/sys/class/net/{name}/duplex"), &format!("{d}\n"));
            }
        }
        let opts = Options { hz: 100, page_size: 4096, ncpus: Some(1), pmda_cache_dir: None };
        LinuxSource::with_files(Mem { files, links, ..Mem::default() }, opts)
    }

    fn values(src: &mut LinuxSource<Mem>, name: &str) -> Vec<(i32, Value)> {
        let pmid = crate::metric_by_name(name).map(|m| m.pmid).unwrap();
        let r = src.fetch(&[pmid], Timestamp::default(), &|_, _| true);
        r.sets[0].values.clone().unwrap().into_iter().map(|v| (v.inst, v.value)).collect()
    }

    fn u32s(v: &[(i32, u32)]) -> Vec<(i32, Value)> {
        v.iter().map(|&(i, x)| (i, Value::from_atom(&AtomValue::U32(x)))).collect()
    }

    #[test]
    fn interface_values_come_from_netlink_as_the_ioctls_give_them() {
        let link =
            |name: &str, mtu, flags, ethtool| NetLink { name: name.into(), index: 0, mtu: Some(mtu), flags, ethtool };
        // eth1 is not in the dump (gone between the reads): every ioctl()
        // fails for it, and it keeps what sysfs gave, as for the PMDA
        let links = NetLinks {
            links: vec![link("lo", 65536, 0x49, None), link("eth0", 1400, 0x1043, Some((u32::MAX, 0xff)))],
            ethtool_known: true,
        };
        let mut src = source(Some(links));
        assert_eq!(values(&mut src, "network.interface.mtu"), u32s(&[(0, 65536), (1, 1400), (2, 9000)]));
        // IFF_RUNNING from the flags the kernel computes (sysfs lacks it)
        assert_eq!(values(&mut src, "network.interface.running"), u32s(&[(0, 1), (1, 1), (2, 0)]));
        assert_eq!(values(&mut src, "network.interface.up"), u32s(&[(0, 1), (1, 1), (2, 1)]));
        // an unknown duplex (0xff) plus one is 0 in the PMDA's two bits:
        // no value; the unknown speed is all ones
        assert_eq!(values(&mut src, "network.interface.duplex"), vec![]);
        assert_eq!(values(&mut src, "network.interface.type"), u32s(&[(0, 0), (1, 1), (2, 0)]));
        let baud = values(&mut src, "network.interface.baudrate");
        assert_eq!(baud, vec![(1, Value::from_atom(&AtomValue::U64(u64::from(u32::MAX) * 1_000_000 / 8)))]);
        // full duplex: 1 + 1
        let full = NetLinks { links: vec![link("eth0", 1500, 0x1003, Some((1000, 1)))], ethtool_known: true };
        let mut src = source(Some(full));
        assert_eq!(values(&mut src, "network.interface.duplex"), u32s(&[(1, 2)]));
    }

    #[test]
    fn processes_are_listed_again_only_when_tasks_may_have_come_or_gone() {
        let mut src = source(None);
        let procs = |src: &mut LinuxSource<Mem>| values(src, "proc.nprocs");
        let set = |src: &mut LinuxSource<Mem>, forks: u64, tasks: u32, pids: &[&str]| {
            let stat = format!("cpu  1 2 3 4 5 6 7 8 9 10\ncpu0 1 2 3 4 5 6 7 8 9 10\nprocesses {forks}\n");
            let loadavg = format!("0.10 0.20 0.30 1/{tasks} 999\n");
            src.files.files.insert("/proc/stat".into(), stat.into_bytes());
            src.files.files.insert("/proc/loadavg".into(), loadavg.into_bytes());
            src.files.proc_entries = pids.iter().map(|p| p.to_string()).chain(["self".into(), "stat".into()]).collect();
        };
        let listings = |src: &LinuxSource<Mem>| src.files.proc_listings.get();
        src.files.live = true;
        set(&mut src, 100, 50, &["1", "2", "3"]);
        assert_eq!(procs(&mut src), u32s(&[(PM_IN_NULL, 3)]));
        assert_eq!(listings(&src), 1);
        // neither counter moved: the listing stands (a listing made now
        // would differ only if the kernel's counters lied)
        set(&mut src, 100, 50, &["1", "2", "3", "4"]);
        assert_eq!(procs(&mut src), u32s(&[(PM_IN_NULL, 3)]));
        assert_eq!(listings(&src), 1);
        // a task created (a thread, say): listed again
        set(&mut src, 101, 51, &["1", "2", "3", "4"]);
        assert_eq!(procs(&mut src), u32s(&[(PM_IN_NULL, 4)]));
        assert_eq!(listings(&src), 2);
        // one created and one released: the task count is as it was, the
        // creations are not
        set(&mut src, 102, 51, &["1", "2", "4", "5"]);
        assert_eq!(procs(&mut src), u32s(&[(PM_IN_NULL, 4)]));
        assert_eq!(listings(&src), 3);
        // one released
        set(&mut src, 102, 50, &["1", "2", "4"]);
        assert_eq!(procs(&mut src), u32s(&[(PM_IN_NULL, 3)]));
        assert_eq!(listings(&src), 4);
        // a counter missing: listed every time
        src.files.files.insert("/proc/loadavg".into(), b"garbage\n".to_vec());
        assert_eq!(procs(&mut src), u32s(&[(PM_IN_NULL, 3)]));
        assert_eq!(procs(&mut src), u32s(&[(PM_IN_NULL, 3)]));
        assert_eq!(listings(&src), 6);
        // not the running system (a snapshot): listed every time
        let mut snap = source(None);
        set(&mut snap, 100, 50, &["1", "2"]);
        assert_eq!(procs(&mut snap), u32s(&[(PM_IN_NULL, 2)]));
        set(&mut snap, 100, 50, &["1", "2", "3"]);
        assert_eq!(procs(&mut snap), u32s(&[(PM_IN_NULL, 3)]));
        assert_eq!(listings(&snap), 2);
    }

    #[test]
    fn disks_wwids_are_looked_for_only_where_their_domain_is_asked_for() {
        let mut src = source(None);
        let line = "   8       0 sda 10 0 80 5 20 0 160 7 0 12 12 0 0 0 0 0 0\n";
        src.files.files.insert("/proc/diskstats".into(), line.into());
        src.files.files.insert("/sys/block/sda/device/wwid".into(), b"naa.5000c500a1b2c3d4\n".to_vec());
        let wwid_reads =
            |src: &LinuxSource<Mem>| src.files.reads.borrow().iter().filter(|p| p.ends_with("wwid")).count();
        let ten = vec![(0, Value::from_atom(&AtomValue::U64(10)))];
        assert_eq!(values(&mut src, "disk.dev.read"), ten);
        assert_eq!(wwid_reads(&src), 0);
        assert_eq!(values(&mut src, "disk.wwid.read"), ten);
        assert_eq!(wwid_reads(&src), 1);
        assert_eq!(src.instances(WWID_INDOM).unwrap(), vec![(0, "35000c500a1b2c3d4".to_string())]);
        assert_eq!(wwid_reads(&src), 2);
        // the device's file gone: the block device's is read in its stead
        src.files.files.remove("/sys/block/sda/device/wwid");
        assert_eq!(src.instances(WWID_INDOM).unwrap(), vec![]);
        let reads = src.files.reads.borrow().clone();
        assert_eq!(reads[reads.len() - 2..], ["/sys/block/sda/device/wwid", "/sys/block/sda/wwid"]);
    }

    #[test]
    fn mount_table_is_read_again_only_when_it_may_have_changed() {
        let dirs = |src: &mut LinuxSource<Mem>| values(src, "filesys.mountdir");
        let at = |v: &[(i32, &str)]| -> Vec<(i32, Value)> {
            v.iter().map(|&(i, d)| (i, Value::from_atom(&AtomValue::String(d.as_bytes().to_vec())))).collect()
        };
        let mut src = source(None);
        let one = "/dev/vda / ext4 rw 0 0\nproc /proc proc rw 0 0\n";
        let two = "/dev/vda / ext4 rw 0 0\n/dev/vdb /data xfs rw 0 0\n";
        src.files.files.insert("/proc/self/mounts".into(), one.into());
        // a first read, whatever poll says
        src.files.mounts_unchanged = true;
        assert_eq!(dirs(&mut src), at(&[(0, "/")]));
        // unchanged: what was found stands, the file is not read
        src.files.files.insert("/proc/self/mounts".into(), two.into());
        assert_eq!(dirs(&mut src), at(&[(0, "/")]));
        // changed (or not known): read again
        src.files.mounts_unchanged = false;
        assert_eq!(dirs(&mut src), at(&[(0, "/"), (1, "/data")]));
        src.files.mounts_unchanged = true;
        src.files.files.insert("/proc/self/mounts".into(), one.into());
        assert_eq!(dirs(&mut src), at(&[(0, "/"), (1, "/data")]));
        // a mount table that cannot be read is not kept as known
        src.files.mounts_unchanged = false;
        src.files.files.remove("/proc/self/mounts");
        let pmid = crate::metric_by_name("filesys.mountdir").map(|m| m.pmid).unwrap();
        let r = src.fetch(&[pmid], Timestamp::default(), &|_, _| true);
        assert!(r.sets[0].values.as_ref().map_or(true, Vec::is_empty), "{:?}", r.sets[0]);
        src.files.mounts_unchanged = true;
        src.files.files.insert("/proc/self/mounts".into(), one.into());
        assert_eq!(dirs(&mut src), at(&[(0, "/")]));
    }

    #[test]
    fn an_interface_is_looked_at_for_wireless_once_while_its_index_stays() {
        let link = |name: &str, index| NetLink { name: name.into(), index, mtu: Some(1), flags: 1, ethtool: None };
        let wireless = |src: &mut LinuxSource<Mem>| values(src, "network.interface.wireless");
        let mut src = source(Some(NetLinks { links: vec![link("lo", 1), link("eth0", 2)], ethtool_known: true }));
        src.files.files.insert("/sys/class/net/eth0/wireless/x".into(), Vec::new());
        assert_eq!(wireless(&mut src), u32s(&[(0, 0), (1, 1), (2, 0)]));
        // the same interface (name and index): not looked at again
        src.files.files.remove("/sys/class/net/eth0/wireless/x");
        assert_eq!(wireless(&mut src), u32s(&[(0, 0), (1, 1), (2, 0)]));
        // another one by that name: looked at
        src.files.links = Some(NetLinks { links: vec![link("lo", 1), link("eth0", 3)], ethtool_known: true });
        assert_eq!(wireless(&mut src), u32s(&[(0, 0), (1, 0), (2, 0)]));
        // eth1, not in the dump, fails every ioctl(); added to it, it is
        // looked at
        src.files.files.insert("/sys/class/net/eth1/wireless/x".into(), Vec::new());
        src.files.links = Some(NetLinks { links: vec![link("eth0", 3), link("eth1", 4)], ethtool_known: true });
        assert_eq!(wireless(&mut src), u32s(&[(0, 0), (1, 0), (2, 1)]));
    }

    #[test]
    fn interface_values_without_netlink_come_from_sysfs() {
        let mut src = source(None);
        assert_eq!(values(&mut src, "network.interface.mtu"), u32s(&[(0, 65536), (1, 1500), (2, 9000)]));
        assert_eq!(values(&mut src, "network.interface.running"), u32s(&[(0, 1), (1, 1), (2, 1)]));
        assert_eq!(values(&mut src, "network.interface.type"), u32s(&[(0, 0), (1, 1), (2, 0)]));
        // without an ethtool answer, the sysfs speed stands in
        let links =
            ["lo", "eth0", "eth1"].map(|n| NetLink { name: n.into(), index: 0, mtu: Some(1), flags: 1, ethtool: None });
        let mut src = source(Some(NetLinks { links: links.to_vec(), ethtool_known: false }));
        assert_eq!(values(&mut src, "network.interface.type"), u32s(&[(0, 0), (1, 1), (2, 0)]));
        assert_eq!(values(&mut src, "network.interface.mtu"), u32s(&[(0, 1), (1, 1), (2, 1)]));
        // an interface missing from the dump: no ioctl() answers for it
        let mut src = source(Some(NetLinks { links: vec![], ethtool_known: true }));
        assert_eq!(values(&mut src, "network.interface.type"), u32s(&[(0, 0), (1, 0), (2, 0)]));
    }

    #[test]
    fn uname_comes_from_proc_sys_kernel_and_the_release_files() {
        let string = |s: &str| vec![(-1, Value::from_atom(&AtomValue::String(s.as_bytes().to_vec())))];
        let with = |extra: &[(&str, &str)]| {
            let mut src = source(None);
            for (p, v) in extra {
                src.files.files.insert(p.to_string(), v.as_bytes().to_vec());
            }
            src
        };
        let mut src = with(&[
            ("/proc/sys/kernel/osrelease", "6.1.0-9\n"),
            ("/proc/sys/kernel/ostype", "Linux\n"),
            ("/proc/sys/kernel/hostname", "box\n"),
            ("/etc/debian_version", "12.11\n"),
            ("/etc/lsb-release", "DISTRIB_ID=Ubuntu\n"),
        ]);
        assert_eq!(values(&mut src, "kernel.uname.release"), string("6.1.0-9"));
        assert_eq!(values(&mut src, "kernel.uname.sysname"), string("Linux"));
        assert_eq!(values(&mut src, "kernel.uname.nodename"), string("box"));
        // no /proc/sys/kernel/arch (before Linux 6.1): no value
        assert_eq!(values(&mut src, "kernel.uname.machine"), vec![]);
        // debian_version comes first, with a prefix
        assert_eq!(values(&mut src, "kernel.uname.distro"), string("Debian 12.11"));
        // read once, as the PMDA reads them when it starts
        src.files.files.insert("/proc/sys/kernel/hostname".into(), b"other\n".to_vec());
        assert_eq!(values(&mut src, "kernel.uname.nodename"), string("box"));
        let mut src = with(&[("/etc/lsb-release", "DISTRIB_ID=Ubuntu\nDISTRIB_RELEASE=24.04\n")]);
        assert_eq!(values(&mut src, "kernel.uname.distro"), string("Ubuntu"));
        // an empty release file, or none: "?"
        assert_eq!(values(&mut with(&[("/etc/debian_version", "")]), "kernel.uname.distro"), string("?"));
        assert_eq!(values(&mut with(&[]), "kernel.uname.distro"), string("?"));
    }

    #[test]
    fn vmstat_fields_totals_and_split_counters() {
        let u64s = |x: u64| vec![(-1, Value::from_atom(&AtomValue::U64(x)))];
        let mut src = source(None);
        src.files.files.insert(
            "/proc/vmstat".into(),
            b"nr_free_pages 12\npgsteal_kswapd 5\npgsteal_direct 7\npgscan_kswapd 100\npgscan_direct 1\n\
              pgscan_direct_throttle 2\nnr_slab_reclaimable 3\nnr_slab_unreclaimable 4\nthp_split_page 9\n\
              nosuch_field 1\nnr_dirty\nnr_mapped x-8y\n"
                .to_vec(),
        );
        assert_eq!(values(&mut src, "mem.vmstat.nr_free_pages"), u64s(12));
        assert_eq!(values(&mut src, "mem.vmstat.pgsteal_total"), u64s(12));
        assert_eq!(values(&mut src, "mem.vmstat.pgscan_kswapd_total"), u64s(100));
        assert_eq!(values(&mut src, "mem.vmstat.pgscan_direct_total"), u64s(3));
        // split in 2.6.18: the parts' sum
        assert_eq!(values(&mut src, "mem.vmstat.nr_slab"), u64s(7));
        // a part missing counts as the PMDA's -1
        assert_eq!(values(&mut src, "mem.vmstat.thp_split"), u64s(8));
        // no number on the line: no value; the first digits after the name
        assert_eq!(values(&mut src, "mem.vmstat.nr_dirty"), vec![]);
        assert_eq!(values(&mut src, "mem.vmstat.nr_mapped"), u64s(8));
        assert_eq!(values(&mut src, "mem.vmstat.compact_stall"), vec![]);
        // and the swap metrics still read the same file
        assert_eq!(values(&mut src, "swap.pagesin"), vec![]);
    }

    #[test]
    fn partitions_have_their_own_instance_domain() {
        let u = |v: &[(i32, u64)]| -> Vec<(i32, Value)> {
            v.iter().map(|&(i, x)| (i, Value::from_atom(&AtomValue::U64(x)))).collect()
        };
        let mut src = source(None);
        src.files.files.insert(
            "/proc/diskstats".into(),
            [
                " 253 0 vda 100 2 3000 40 200 5 6000 70 0 90 110 7 0 80 8 1 9\n",
                " 253 1 vda1 10 0 300 4 20 1 600 7 0 9 11 0 0 0 0 0 0\n",
                " 253 2 vda2 30 0 500 4 20 1 600 7 0 9 11 0 0 0 0 0 0\n",
            ]
            .concat()
            .into_bytes(),
        );
        src.files.files.insert("/proc/partitions".into(), b"major minor #blocks name\n\n 253 1 1024 vda1\n".to_vec());
        assert_eq!(src.instances(PARTITIONS_INDOM).unwrap(), [(0, "vda1".to_string()), (1, "vda2".to_string())]);
        assert_eq!(src.instances(DISK_INDOM).unwrap(), [(0, "vda".to_string())]);
        assert_eq!(values(&mut src, "disk.partitions.read"), u(&[(0, 10), (1, 30)]));
        assert_eq!(values(&mut src, "disk.partitions.blkread"), u(&[(0, 300), (1, 500)]));
        assert_eq!(values(&mut src, "disk.partitions.capacity"), u(&[(0, 1024)]));
        // partitions count in neither the disks nor their totals
        assert_eq!(values(&mut src, "disk.all.read"), u(&[(-1, 100)]));
        assert_eq!(values(&mut src, "disk.dev.read"), u(&[(0, 100)]));
    }
}
