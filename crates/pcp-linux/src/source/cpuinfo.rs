//! The processors: /proc/cpuinfo (`hinv.cpu.*` details, `hinv.map.cpu_*`,
//! `hinv.machine`), the NUMA topology of /sys/devices/system/node
//! (`hinv.nnode`, `hinv.node.online`) and each CPU's sysfs attributes
//! (`hinv.cpu.online`, thermal throttling, frequency scaling).

use super::area::{Area, Reader};
use super::Options;
use crate::cache::InstCache;
use crate::scan::{atoi, lines, Scan};
use crate::MetricDef;
use pcp_core::{AtomValue, PmError};

/// /proc/cpuinfo (`CLUSTER_CPUINFO`).
const CPUINFO: u32 = 18;
/// /sys/devices/system (`CLUSTER_SYSFS_DEVICES`).
const SYSFS_DEVICES: u32 = 55;
/// The nodes' meminfo and numastat (`CLUSTER_NUMA_MEMINFO`).
const NUMA: u32 = 36;
/// The clusters served here.
pub(super) const CLUSTERS: [u32; 3] = [CPUINFO, SYSFS_DEVICES, NUMA];

/// A node's meminfo fields, by item (`mem.numa.util.*`, 0 to 31).
const NUMA_MEMINFO: [&str; 32] = [
    "MemTotal:",
    "MemFree:",
    "MemUsed:",
    "Active:",
    "Inactive:",
    "Active(anon):",
    "Inactive(anon):",
    "Active(file):",
    "Inactive(file):",
    "HighTotal:",
    "HighFree:",
    "LowTotal:",
    "LowFree:",
    "Unevictable:",
    "Mlocked:",
    "Dirty:",
    "Writeback:",
    "FilePages:",
    "Mapped:",
    "AnonPages:",
    "Shmem:",
    "KernelStack:",
    "PageTables:",
    "NFS_Unstable:",
    "Bounce:",
    "WritebackTmp:",
    "Slab:",
    "SReclaimable:",
    "SUnreclaim:",
    "HugePages_Total:",
    "HugePages_Free:",
    "HugePages_Surp:",
];
/// A node's numastat counters, by item less 32 (`mem.numa.alloc.*`).
const NUMA_STAT: [&str; 6] = ["numa_hit", "numa_miss", "numa_foreign", "interleave_hit", "local_node", "other_node"];

/// One node's tables as last read: each field's value and whether a read
/// ever gave it (the PMDA never forgets a field once seen); numastat's
/// counters accumulated across wraps, with their last readings.
#[derive(Clone, Debug, Default)]
struct NodeMem {
    meminfo: [u64; 32],
    meminfo_seen: [bool; 32],
    stat: [u64; 6],
    stat_seen: [bool; 6],
    stat_prev: [u64; 6],
}
/// The NUMA nodes (`NODE_INDOM`).
const NODE_INDOM: u32 = 19;
/// The instance domains kept here.
pub(super) const INDOMS: [u32; 1] = [NODE_INDOM];

/// What /proc/cpuinfo says of one processor (the PMDA's `cpuinfo_t`).
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct CpuInfo {
    vendor: Option<String>,
    model: Option<String>,
    model_name: Option<String>,
    stepping: Option<String>,
    flags: Option<String>,
    sapic: Option<String>,
    cache: i32,
    cache_align: i32,
    bogomips: f32,
    clock: f32,
}

/// Does `line` start with `key`, ignoring case (`strncasecmp`)?
fn key(line: &[u8], key: &str) -> bool {
    line.len() >= key.len() && line[..key.len()].eq_ignore_ascii_case(key.as_bytes())
}

/// `atof`.
fn atof(s: &[u8]) -> f32 {
    Scan::new(s).f64().unwrap_or(0.0) as f32
}

/// /proc/cpuinfo, per processor line in order, for `ncpus` processors, as
/// the PMDA reads it: each field the first time it appears for a
/// processor but `cpu MHz`, which the last line sets; on machines that
/// list the fields once after all processor lines (aarch64), those
/// fields for every processor.
pub(super) fn cpuinfo(text: &[u8], ncpus: usize) -> Vec<CpuInfo> {
    let mut cpus = vec![CpuInfo::default(); ncpus];
    let mut saved = CpuInfo::default();
    let (mut cpunum, mut dups, mut previous_processor) = (-1i64, false, false);
    for line in lines(text) {
        let Some(colon) = line.iter().position(|&b| b == b':') else { continue };
        let val = line.get(colon + 2..).unwrap_or_default();
        if line.starts_with(b"processor") {
            cpunum += 1;
            if previous_processor {
                dups = true;
            }
            previous_processor = true;
            continue;
        }
        previous_processor = false;
        if cpunum >= ncpus as i64 {
            continue;
        }
        if dups || cpunum < 0 {
            dups = true;
        }
        let info = if dups { &mut saved } else { &mut cpus[cpunum as usize] };
        let text = || String::from_utf8_lossy(val).into_owned();
        if info.sapic.is_none() && key(line, "sapic") {
            info.sapic = Some(text());
        } else if info.model_name.is_none() && (key(line, "model name") || key(line, "hardware")) {
            info.model_name = Some(text());
        } else if info.model.is_none() && (key(line, "model") || key(line, "cpu model") || key(line, "cpu variant")) {
            info.model = Some(text());
        } else if info.vendor.is_none() && (key(line, "vendor") || key(line, "cpu implementer")) {
            info.vendor = Some(text());
        } else if info.stepping.is_none() && (key(line, "step") || key(line, "revision") || key(line, "cpu revision")) {
            info.stepping = Some(text());
        } else if info.flags.is_none() && key(line, "flags") {
            info.flags = Some(text());
        } else if info.flags.is_none() && key(line, "features") {
            info.flags = Some(String::from_utf8_lossy(val.trim_ascii()).into_owned());
        } else if info.cache == 0 && key(line, "cache size") {
            info.cache = atoi(val);
        } else if info.cache_align == 0 && key(line, "cache_align") {
            info.cache_align = atoi(val);
        } else if info.bogomips == 0.0 && key(line, "bogo") {
            info.bogomips = atof(val);
        } else if key(line, "cpu MHz") {
            info.clock = atof(val);
        } else if info.clock == 0.0 && key(line, "cycle frequency") {
            let v = val.split(|&b| b == b' ').next().unwrap_or_default();
            // (divided in double precision, then stored)
            info.clock = (Scan::new(v).f64().unwrap_or(0.0) / 1_000_000.0) as f32;
        }
    }
    if dups {
        cpus.iter_mut().for_each(|c| *c = saved.clone());
    }
    cpus
}

/// A CPU's frequency scaling as sysfs gives it: (count, time, max, min),
/// each where the kernel says.
type Freq = (Option<u64>, Option<u64>, Option<u32>, Option<u32>);

#[derive(Clone, Debug, Default)]
struct Cpus {
    /// The nodes, and each CPU's node (by CPU number), once found.
    nodes: Option<(InstCache, Vec<Option<u32>>)>,
    info: Vec<CpuInfo>,
    machine: Option<String>,
    /// The CPU number of each CPU instance online.
    numbers: Vec<(i32, u32)>,
    /// Per CPU instance: online, throttle counts and times, scaling.
    online: Vec<(i32, u32)>,
    throttle: Vec<(i32, [u64; 4])>,
    freq: Vec<(i32, Freq)>,
    node_online: Vec<(i32, u32)>,
    /// Per node instance, its memory.
    numa: std::collections::HashMap<i32, NodeMem>,
    /// /proc/meminfo's Hugepagesize (kB), read once.
    hugepagesize: Option<Option<u64>>,
}

/// The area, new.
pub(super) fn new(_: &Options) -> Box<dyn Area> {
    Box::<Cpus>::default()
}

/// The first number of a file, as `fscanf("%lu")` reads it.
fn first_u64(rd: &mut Reader, path: &str) -> Option<u64> {
    rd.with(path, |t| Scan::new(t).u64()).flatten()
}

impl Cpus {
    fn setup_nodes(&mut self, rd: &mut Reader) {
        if self.nodes.is_none() {
            let (nodes, cpus) = topology(rd.files, rd.ncpus, rd.single_node);
            self.nodes = Some((nodes, node_map(&cpus)));
        }
    }
}

/// The NUMA nodes of /sys/devices/system/node, in version order, and the
/// CPUs their directories list, as (CPU, node) in the order found (each
/// node's directory as the system lists it); where there are no nodes,
/// one node 0 of CPUs 0 to `ncpus`. (The PMDA counts a CPU no node
/// lists as never online, and numbers the CPUs beyond `ncpus` in the
/// order it finds them.)
pub(super) fn topology(files: &dyn crate::files::Files, ncpus: u32, single_node: bool) -> (InstCache, Vec<(u32, u32)>) {
    let mut nodes = InstCache::new();
    // (no node directory, or the QA mode: one node 0 of every CPU)
    let listed = files.list("/sys/devices/system/node").ok().filter(|_| !single_node);
    let Some(listed) = listed else {
        nodes.add("node0");
        return (nodes, (0..ncpus).map(|c| (c, 0)).collect());
    };
    let mut found: Vec<u32> =
        listed.iter().filter_map(|n| n.strip_prefix("node").and_then(|d| Scan::new(d.as_bytes()).u32())).collect();
    found.sort_unstable();
    let mut cpus = Vec::new();
    for node in found {
        nodes.add(&format!("node{node}"));
        for entry in files.list(&format!("/sys/devices/system/node/node{node}")).unwrap_or_default() {
            if let Some(cpu) = entry.strip_prefix("cpu").and_then(|d| Scan::new(d.as_bytes()).u32()) {
                cpus.push((cpu, node));
            }
        }
    }
    (nodes, cpus)
}

/// Each CPU's node, by CPU number.
fn node_map(cpus: &[(u32, u32)]) -> Vec<Option<u32>> {
    let len = cpus.iter().map(|c| c.0 as usize + 1).max().unwrap_or(0).min(1 << 16);
    let mut map = vec![None; len];
    for &(cpu, node) in cpus {
        if let Some(slot) = map.get_mut(cpu as usize) {
            *slot = Some(node);
        }
    }
    map
}

impl Area for Cpus {
    fn refresh(&mut self, rd: &mut Reader, clusters: &[u32]) {
        self.setup_nodes(rd);
        self.numbers = rd.cpus.to_vec();
        if clusters.contains(&CPUINFO) {
            let n = rd.ncpus as usize;
            self.info = rd.with("/proc/cpuinfo", |t| cpuinfo(t, n)).unwrap_or_default();
            if self.machine.is_none() {
                self.machine = rd
                    .with("/proc/sys/kernel/arch", |t| {
                        String::from_utf8_lossy(t.split(|&b| b == b'\n').next().unwrap_or_default()).into_owned()
                    })
                    .filter(|m| !m.is_empty());
            }
        }
        if clusters.contains(&NUMA) {
            if self.hugepagesize.is_none() {
                self.hugepagesize = Some(
                    rd.with("/proc/meminfo", |t| {
                        let mut v = [0u64];
                        let mut seen = [false];
                        super::area::table_scan(t, &["Hugepagesize:"], &mut v, &mut seen);
                        seen[0].then_some(v[0])
                    })
                    .flatten(),
                );
            }
            let nodes: Vec<(i32, String)> = self
                .nodes
                .as_ref()
                .map(|(n, _)| n.active().map(|(i, s)| (i, s.to_owned())).collect())
                .unwrap_or_default();
            for (inst, name) in nodes {
                let mem = self.numa.entry(inst).or_default();
                let base = format!("/sys/devices/system/node/{name}");
                rd.with(&format!("{base}/meminfo"), |t| {
                    super::area::table_scan(t, &NUMA_MEMINFO, &mut mem.meminfo, &mut mem.meminfo_seen);
                });
                let mut now = [0u64; 6];
                let mut seen = [false; 6];
                rd.with(&format!("{base}/numastat"), |t| super::area::table_scan(t, &NUMA_STAT, &mut now, &mut seen));
                for k in 0..6 {
                    if !seen[k] {
                        continue;
                    }
                    // a counter: what it grew by since the last reading,
                    // across a wrap of 64 bits
                    let grew = now[k].wrapping_sub(mem.stat_prev[k]);
                    let grew = if now[k] >= mem.stat_prev[k] { grew } else { grew.wrapping_sub(1) };
                    mem.stat[k] = mem.stat[k].wrapping_add(grew);
                    mem.stat_prev[k] = now[k];
                    mem.stat_seen[k] = true;
                }
            }
        }
        if clusters.contains(&SYSFS_DEVICES) {
            let base = "/sys/devices/system";
            let cpus = rd.cpus.to_vec();
            self.online = cpus
                .iter()
                .map(|&(i, c)| (i, first_u64(rd, &format!("{base}/cpu/cpu{c}/online")).map_or(1, |v| v as u32)))
                .collect();
            self.throttle = cpus
                .iter()
                .map(|&(i, c)| {
                    let mut v = [0u64; 4];
                    for (k, (what, stat)) in [
                        ("core", "count"),
                        ("core", "total_time_ms"),
                        ("package", "count"),
                        ("package", "total_time_ms"),
                    ]
                    .iter()
                    .enumerate()
                    {
                        let p = format!("{base}/cpu/cpu{c}/thermal_throttle/{what}_throttle_{stat}");
                        v[k] = first_u64(rd, &p).unwrap_or(0);
                    }
                    (i, v)
                })
                .collect();
            self.freq = cpus.iter().map(|&(i, c)| (i, freq(rd, c))).collect();
            let nodes: Vec<(i32, String)> = self
                .nodes
                .as_ref()
                .map(|(n, _)| n.active().map(|(i, s)| (i, s.to_owned())).collect())
                .unwrap_or_default();
            self.node_online = nodes
                .iter()
                .map(|(i, n)| (*i, first_u64(rd, &format!("{base}/node/{n}/online")).map_or(1, |v| v as u32)))
                .collect();
        }
    }

    fn value(&self, def: &MetricDef, inst: i32) -> Result<Option<AtomValue>, PmError> {
        let (cluster, item) = (def.pmid.cluster(), def.pmid.item());
        if cluster == 0 {
            // hinv.nnode
            return Ok(Some(AtomValue::U32(self.nodes.as_ref().map_or(0, |(n, _)| n.active_count()) as u32)));
        }
        fn find<T>(v: &[(i32, T)], inst: i32) -> Result<usize, PmError> {
            v.iter().position(|(i, _)| *i == inst).ok_or(PmError::PM_ERR_INST)
        }
        if cluster == NUMA {
            self.instances(NODE_INDOM).iter().find(|n| n.0 == inst).ok_or(PmError::PM_ERR_INST)?;
            let mem = self.numa.get(&inst).cloned().unwrap_or_default();
            let k = item as usize;
            return Ok(match item {
                0..=31 => mem.meminfo_seen[k].then_some(AtomValue::U64(mem.meminfo[k])),
                32..=37 => mem.stat_seen[k - 32].then_some(AtomValue::U64(mem.stat[k - 32])),
                // the memory bandwidth, from bandwidth.conf: not read
                38 => None,
                39..=41 => {
                    self.hugepagesize.flatten().map(|size| AtomValue::U64(mem.meminfo[k - 10].wrapping_mul(size << 10)))
                }
                _ => return Err(PmError::PM_ERR_PMID),
            });
        }
        if cluster == SYSFS_DEVICES {
            return Ok(Some(match item {
                0 => AtomValue::U32(self.online[find(&self.online, inst)?].1),
                1 => AtomValue::U32(self.node_online[find(&self.node_online, inst)?].1),
                2..=5 => AtomValue::U64(self.throttle[find(&self.throttle, inst)?].1[item as usize - 2]),
                6..=9 => {
                    let f = self.freq[find(&self.freq, inst)?].1;
                    let v = match item {
                        6 => f.0.map(AtomValue::U64),
                        7 => f.1.map(AtomValue::U64),
                        8 => f.2.map(AtomValue::U32),
                        _ => f.3.map(AtomValue::U32),
                    };
                    return Ok(v);
                }
                _ => return Err(PmError::PM_ERR_PMID),
            }));
        }
        if item == 7 {
            return Ok(self.machine.clone().map(|m| AtomValue::String(m.into_bytes())));
        }
        // (cpuinfo's Nth processor is instance N, as in the PMDA)
        let cpu = usize::try_from(inst).map_err(|_| PmError::PM_ERR_INST)?;
        let number = self.numbers.iter().find(|n| n.0 == inst).map_or(inst as u32, |n| n.1);
        let info = self.info.get(cpu).cloned().unwrap_or_default();
        let text = |s: Option<&String>| AtomValue::String(s.map_or(b"unknown".to_vec(), |s| s.clone().into_bytes()));
        Ok(match item {
            0 => (info.clock != 0.0).then_some(AtomValue::Float(info.clock)),
            1 => Some(text(info.vendor.as_ref())),
            2 => Some(text(info.model.as_ref().or(info.model_name.as_ref()))),
            3 => Some(text(info.stepping.as_ref())),
            4 => (info.cache != 0).then_some(AtomValue::U32(info.cache as u32)),
            5 => (info.bogomips != 0.0).then_some(AtomValue::Float(info.bogomips)),
            6 => Some(AtomValue::U32(number)),
            8 => Some(AtomValue::U32(
                self.nodes.as_ref().and_then(|(_, m)| m.get(number as usize).copied().flatten()).unwrap_or(0),
            )),
            9 => Some(text(info.model_name.as_ref().or(info.model.as_ref()))),
            10 => Some(text(info.flags.as_ref())),
            11 => (info.cache_align != 0).then_some(AtomValue::U32(info.cache_align as u32)),
            _ => return Err(PmError::PM_ERR_PMID),
        })
    }

    fn instances(&self, serial: u32) -> Vec<(i32, &str)> {
        match (serial, &self.nodes) {
            (NODE_INDOM, Some((n, _))) => n.active().collect(),
            _ => Vec::new(),
        }
    }

    fn instance_label(&self, serial: u32, inst: i32, _name: &str) -> Option<String> {
        (serial == NODE_INDOM).then(|| format!(r#"{{"numa_node":{}}}"#, inst as u32))
    }

    fn cpu_nodes(&self) -> Option<&[Option<u32>]> {
        self.nodes.as_ref().map(|(_, m)| m.as_slice())
    }
}

/// A CPU's frequency scaling: from cpufreq/stats/time_in_state (MHz
/// times counts, counts, the highest and lowest frequency), else from
/// cpuinfo_max_freq, cpuinfo_min_freq and scaling_cur_freq.
fn freq(rd: &mut Reader, cpu: u32) -> Freq {
    let dir = format!("/sys/devices/system/cpu/cpu{cpu}/cpufreq");
    if let Ok(text) = rd.files.read(&format!("{dir}/stats/time_in_state")) {
        let (mut total, mut hits, mut max, mut min) = (0u64, 0u64, 0u64, 0u64);
        let mut s = Scan::new(&text);
        while let (Some(f), Some(count)) = (s.u64(), s.u64()) {
            let f = f / 1000;
            total = total.wrapping_add(f.wrapping_mul(count));
            hits = hits.wrapping_add(count);
            max = max.max(f);
            if min == 0 || f < min {
                min = f;
            }
        }
        return (Some(total), Some(hits), Some(max as u32), Some(min as u32));
    }
    let max = first_u64(rd, &format!("{dir}/cpuinfo_max_freq")).map(|v| (v / 1000) as u32);
    let min = first_u64(rd, &format!("{dir}/cpuinfo_min_freq")).map(|v| (v / 1000) as u32);
    let cur = first_u64(rd, &format!("{dir}/scaling_cur_freq")).map(|v| v / 1000);
    (cur, None, max, min)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpus_are_those_the_nodes_list_unless_one_node_is_forced() {
        use super::super::testkit::Mem;
        let listing = |entries: &[&str]| entries.iter().map(|e| e.to_string()).collect::<Vec<_>>();
        let mut files = Mem::default();
        // no node directory: one node 0 of every configured CPU
        let (nodes, cpus) = topology(&files, 2, false);
        assert_eq!((nodes.len(), cpus), (1, vec![(0, 0), (1, 0)]));
        // a node listing no CPU (a QA tarball's): no CPU, as the PMDA
        // finds, unless $LINUX_NNODES puts them all in node 0
        files.dirs.insert("/sys/devices/system/node".into(), listing(&["node0", "possible"]));
        files.dirs.insert("/sys/devices/system/node/node0".into(), listing(&["meminfo", "numastat"]));
        assert_eq!(topology(&files, 2, false).1, vec![]);
        assert_eq!(topology(&files, 2, true).1, vec![(0, 0), (1, 0)]);
        files.dirs.insert("/sys/devices/system/node/node0".into(), listing(&["cpu1", "meminfo"]));
        assert_eq!(topology(&files, 2, false).1, vec![(1, 0)]);
    }

    #[test]
    fn cpuinfo_fields_as_the_pmda_takes_them() {
        let text = b"processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel\t\t: 17\nmodel name\t: AMD EPYC\n\
                     stepping\t: 1\ncpu MHz\t\t: 2596.128\ncache size\t: 1024 KB\nflags\t\t: fpu vme\n\
                     bogomips\t: 5192.25\ncache_alignment\t: 64\n\nprocessor\t: 1\nvendor_id\t: Other\n\
                     processor\t: 2\nvendor_id\t: Dropped\n";
        let c = cpuinfo(text, 2);
        assert_eq!(c[0].vendor.as_deref(), Some("AuthenticAMD"));
        assert_eq!((c[0].model.as_deref(), c[0].model_name.as_deref()), (Some("17"), Some("AMD EPYC")));
        assert_eq!((c[0].cache, c[0].cache_align, c[0].clock), (1024, 64, 2596.128));
        assert_eq!(c[0].flags.as_deref(), Some("fpu vme"));
        assert_eq!(c[1].vendor.as_deref(), Some("Other"));
        // aarch64: fields after the processor lines go to every processor
        let c = cpuinfo(b"processor : 0\nprocessor : 1\nFeatures : fp asimd \nCPU implementer : 0x41\n", 2);
        assert_eq!(c[1].flags.as_deref(), Some("fp asimd"));
        assert_eq!(c[0].vendor.as_deref(), Some("0x41"));
        assert_eq!(cpuinfo(b"\xff:\n:\nprocessor\n", 1), [CpuInfo::default()]);
    }
}
