//! The proc PMDA's `cgroup.*` metrics: the subsystems (/proc/cgroups),
//! the cgroup mounts (/proc/mounts), the v1 hierarchies (cpuset, cpuacct,
//! cpu, memory, net_cls, blkio) and the v2 one (pressure, cpu.stat,
//! io.stat), read as PCP 6.0.3's PMDA reads them.
//!
//! The PMDA keeps one instance cache per domain: an instance keeps its
//! number once seen, a refresh first makes every instance inactive and
//! then makes those it finds active again, reusing what the entry held.
//! That history shows in the values, and this module keeps it as the
//! PMDA does:
//! - a v1 refresh walks every cgroup mount that has the subsystem and
//!   also every v2 mount, inactivating the domain before each, so on a
//!   hybrid system the v2 tree's cgroups are the instances, their files
//!   missing (no value), and what an entry read from the v1 tree but
//!   could not read again stays (the `cpuacct.stat` times);
//! - `cgroup.netclass` wants a subsystem named `netcls`, which no kernel
//!   has, so only v2 mounts are walked for it;
//! - with only v2 mounts, the v1 metrics read files below
//!   `cgroup/cpuset.cpus/` and `cgroup/cpuacct.cpus/` (no value, empty
//!   strings, zero times), `cfs_quota` of a missing file is `-ENOENT`,
//!   and the pressure averages reach the client as a float whose bits are
//!   the truncated integer.

use super::MetricDef;
use crate::files::Files;
use crate::scan::{lines, Scan};
use crate::source::num;
use pcp_core::support::strtod::{is_c_space, strtoint_parts, strtoull_prefix};
use pcp_core::{AtomValue, InstValue};
use std::collections::HashMap;

// instance domain serials
const CGROUP2_INDOM: u32 = 16;
const PERDEV2_INDOM: u32 = 17;
const CPUSET_INDOM: u32 = 20;
const CPUACCT_INDOM: u32 = 21;
const PERCPUACCT_INDOM: u32 = 22;
const CPUSCHED_INDOM: u32 = 23;
const MEMORY_INDOM: u32 = 24;
const NETCLS_INDOM: u32 = 25;
const BLKIO_INDOM: u32 = 26;
const PERDEVBLKIO_INDOM: u32 = 27;
const SUBSYS_INDOM: u32 = 37;
const MOUNTS_INDOM: u32 = 38;

// clusters
const K_SUBSYS: u32 = 37;
const K_MOUNTS: u32 = 38;
const K_CPUSET: u32 = 39;
const K_CPUACCT: u32 = 41;
const K_CPUSCHED: u32 = 43;
const K_MEMORY: u32 = 45;
const K_NETCLS: u32 = 47;
const K_BLKIO: u32 = 49;
const K_CPU_PRESSURE: u32 = 64;
const K_IO_PRESSURE: u32 = 65;
const K_MEM_PRESSURE: u32 = 66;
const K_CPU_STAT: u32 = 67;
const K_IO_STAT: u32 = 68;
const K_IRQ_PRESSURE: u32 = 76;

const CLUSTERS: [u32; 14] = [
    K_SUBSYS,
    K_MOUNTS,
    K_CPUSET,
    K_CPUACCT,
    K_CPUSCHED,
    K_MEMORY,
    K_NETCLS,
    K_BLKIO,
    K_CPU_PRESSURE,
    K_IO_PRESSURE,
    K_MEM_PRESSURE,
    K_CPU_STAT,
    K_IO_STAT,
    K_IRQ_PRESSURE,
];

/// Is this one of the cgroup clusters?
pub(crate) fn is_cgroup_cluster(cluster: u32) -> bool {
    CLUSTERS.contains(&cluster)
}

/// The clusters one refresh is for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Need(u128);

impl Need {
    pub(crate) fn add(&mut self, cluster: u32) {
        if is_cgroup_cluster(cluster) {
            self.0 |= 1 << cluster;
        }
    }
    fn has(self, cluster: u32) -> bool {
        self.0 & (1 << cluster) != 0
    }
    pub(crate) fn any(self) -> bool {
        self.0 != 0
    }
    /// What the PMDA refreshes to list the instances of `serial`
    /// (`proc_instance`; nothing for the v2 domains).
    pub(crate) fn for_indom(serial: u32) -> Need {
        let mut n = Need::default();
        n.add(match serial {
            CPUSET_INDOM => K_CPUSET,
            CPUACCT_INDOM | PERCPUACCT_INDOM => K_CPUACCT,
            CPUSCHED_INDOM => K_CPUSCHED,
            MEMORY_INDOM => K_MEMORY,
            NETCLS_INDOM => K_NETCLS,
            BLKIO_INDOM | PERDEVBLKIO_INDOM => K_BLKIO,
            SUBSYS_INDOM => K_SUBSYS,
            MOUNTS_INDOM => K_MOUNTS,
            _ => 0,
        });
        n
    }
}

/// The indom help-level label of a cgroup domain (`proc_label_indom`).
pub(crate) fn indom_label(serial: u32) -> Option<&'static str> {
    Some(match serial {
        CPUSET_INDOM | CPUACCT_INDOM | CPUSCHED_INDOM | PERCPUACCT_INDOM => r#"{"device_type":"cpu"}"#,
        MEMORY_INDOM => r#"{"device_type":"memory"}"#,
        NETCLS_INDOM => r#"{"device_type":"interface"}"#,
        BLKIO_INDOM | PERDEV2_INDOM | PERDEVBLKIO_INDOM => r#"{"device_type":"block"}"#,
        _ => return None,
    })
}

/// The label of one instance, from its name (`proc_labelCallBack`).
fn instance_label(serial: u32, name: &[u8]) -> Option<String> {
    let name = String::from_utf8_lossy(name);
    match serial {
        PERDEVBLKIO_INDOM | PERDEV2_INDOM | PERCPUACCT_INDOM => {
            let colon = name.rfind(':')?;
            let group = name.get(..colon.checked_sub(1)?)?;
            if serial == PERCPUACCT_INDOM {
                Some(format!(r#"{{"cgroup":"{group}","cpu":"{}"}}"#, name.get(colon + 4..).unwrap_or("")))
            } else {
                Some(format!(r#"{{"cgroup":"{group}","device_name":"{}"}}"#, &name[colon + 1..]))
            }
        }
        CPUSET_INDOM | CPUACCT_INDOM | CPUSCHED_INDOM | MEMORY_INDOM | NETCLS_INDOM | BLKIO_INDOM | CGROUP2_INDOM => {
            Some(format!(r#"{{"cgroup":"{name}"}}"#))
        }
        _ => None,
    }
}

/// The PMDA's string dictionary (`proc_strings_insert`).
pub(crate) type Strings = HashMap<Vec<u8>, u32>;

fn intern(strings: &mut Strings, s: &[u8]) {
    let next = strings.len() as u32;
    strings.entry(s.to_vec()).or_insert(next);
}

/// A `pmdaCache`: instance numbers in order of first sight, each active
/// or not, with what it last held. Names match up to their first space.
#[derive(Clone, Debug)]
struct Cache<T> {
    names: Vec<Vec<u8>>,
    active: Vec<bool>,
    data: Vec<T>,
    index: HashMap<Vec<u8>, usize>,
}

impl<T> Default for Cache<T> {
    fn default() -> Self {
        Cache { names: Vec::new(), active: Vec::new(), data: Vec::new(), index: HashMap::new() }
    }
}

fn key(name: &[u8]) -> &[u8] {
    &name[..memchr::memchr(b' ', name).unwrap_or(name.len())]
}

/// Where a name stands in a cache.
enum Slot {
    Active(usize),
    Inactive(usize),
    New,
}

impl<T: Default> Cache<T> {
    fn inactivate(&mut self) {
        self.active.fill(false);
    }
    fn slot(&self, name: &[u8]) -> Slot {
        match self.index.get(key(name)) {
            Some(&i) if self.active[i] => Slot::Active(i),
            Some(&i) => Slot::Inactive(i),
            None => Slot::New,
        }
    }
    /// The entry of `name` to fill (a new one holds `T::default()`), or
    /// `None` when it is active already.
    fn refill(&mut self, name: &[u8]) -> Option<usize> {
        match self.slot(name) {
            Slot::Active(_) => None,
            Slot::Inactive(i) => Some(i),
            Slot::New => Some(self.push(name)),
        }
    }
    /// The entry of `name`, active as it is, else emptied.
    fn fresh(&mut self, name: &[u8]) -> usize {
        match self.slot(name) {
            Slot::Active(i) => i,
            Slot::Inactive(i) => {
                self.data[i] = T::default();
                i
            }
            Slot::New => self.push(name),
        }
    }
    fn push(&mut self, name: &[u8]) -> usize {
        let i = self.names.len();
        self.names.push(name.to_vec());
        self.active.push(false);
        self.data.push(T::default());
        self.index.entry(key(name).to_vec()).or_insert(i);
        i
    }
    fn activate(&mut self, i: usize) {
        self.active[i] = true;
    }
    fn active(&self) -> impl Iterator<Item = (i32, &[u8], &T)> {
        (0..self.names.len()).filter(|&i| self.active[i]).map(|i| (i as i32, &self.names[i][..], &self.data[i]))
    }
    fn count(&self) -> usize {
        self.active.iter().filter(|a| **a).count()
    }
}

#[derive(Clone, Debug, Default)]
struct Subsys {
    hierarchy: u32,
    num_cgroups: u32,
    enabled: u32,
}

#[derive(Clone, Debug, Default)]
struct Mount {
    path: String,
    options: Option<Vec<u8>>,
    version: u8,
}

#[derive(Clone, Debug, Default)]
struct Cpuset {
    cpus: Vec<u8>,
    mems: Vec<u8>,
    container: Vec<u8>,
}

#[derive(Clone, Debug, Default)]
struct Cpuacct {
    user: u64,
    system: u64,
    usage: u64,
    container: Vec<u8>,
}

#[derive(Clone, Debug, Default)]
struct Cpusched {
    shares: u64,
    /// usage, user, system, nr_periods, nr_throttled, throttled_time
    stat: [u64; 6],
    cfs_period: u64,
    cfs_quota: i64,
    container: Vec<u8>,
}

/// memory.stat's fields the PMDA keeps, with their metric items.
const MEMORY_KEYS: [(u32, &str); 58] = [
    (0, "cache"),
    (1, "rss"),
    (2, "rss_huge"),
    (3, "mapped_file"),
    (4, "writeback"),
    (5, "swap"),
    (6, "pgpgin"),
    (7, "pgpgout"),
    (8, "pgfault"),
    (9, "pgmajfault"),
    (10, "inactive_anon"),
    (11, "active_anon"),
    (12, "inactive_file"),
    (13, "active_file"),
    (14, "unevictable"),
    (17, "anon"),
    (18, "anon_thp"),
    (19, "file"),
    (20, "file_dirty"),
    (21, "file_mapped"),
    (22, "file_writeback"),
    (25, "kernel_stack"),
    (26, "pgactivate"),
    (27, "pgdeactivate"),
    (28, "pglazyfree"),
    (30, "total_cache"),
    (31, "total_rss"),
    (32, "total_rss_huge"),
    (33, "total_mapped_file"),
    (34, "total_writeback"),
    (35, "total_swap"),
    (36, "total_pgpgin"),
    (37, "total_pgpgout"),
    (38, "total_pgfault"),
    (39, "total_pgmajfault"),
    (40, "total_inactive_anon"),
    (41, "total_active_anon"),
    (42, "total_inactive_file"),
    (43, "total_active_file"),
    (44, "total_unevictable"),
    (50, "pglazyfreed"),
    (51, "pgrefill"),
    (52, "pgscan"),
    (53, "pgsteal"),
    (60, "recent_rotated_anon"),
    (61, "recent_rotated_file"),
    (62, "recent_scanned_anon"),
    (63, "recent_scanned_file"),
    (64, "shmem"),
    (65, "slab"),
    (66, "slab_reclaimable"),
    (67, "slab_unreclaimable"),
    (68, "sock"),
    (70, "thp_collapse_alloc"),
    (71, "thp_fault_alloc"),
    (72, "workingset_activate"),
    (73, "workingset_nodereclaim"),
    (74, "workingset_refault"),
];

#[derive(Clone, Debug)]
struct Memory {
    stat: [u64; MEMORY_KEYS.len()],
    current: u64,
    usage: u64,
    limit: u64,
    failcnt: u64,
    container: Vec<u8>,
}

impl Default for Memory {
    fn default() -> Self {
        Memory { stat: [0; MEMORY_KEYS.len()], current: 0, usage: 0, limit: 0, failcnt: 0, container: Vec::new() }
    }
}

#[derive(Clone, Debug, Default)]
struct Netcls {
    classid: u64,
    container: Vec<u8>,
}

/// The blkio statistics in the metrics' item order: six read, write,
/// sync, async, total groups (merged, queued, service bytes, serviced,
/// service time, wait time), sectors, time, and two throttle groups.
type BlkStats = [u64; 42];

#[derive(Clone, Debug)]
struct Blkio {
    stats: BlkStats,
    container: Vec<u8>,
}

impl Default for Blkio {
    fn default() -> Self {
        Blkio { stats: [0; 42], container: Vec::new() }
    }
}

#[derive(Clone, Debug)]
struct PerDev(BlkStats);

impl Default for PerDev {
    fn default() -> Self {
        PerDev([0; 42])
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Pressure {
    avg: [f32; 3],
    total: u64,
    updated: bool,
}

const P_CPU: usize = 0;
const P_IO: usize = 1;
const P_MEM: usize = 2;
const P_IRQ: usize = 3;

#[derive(Clone, Debug, Default)]
struct Cgroup2 {
    /// cpu, io, memory, irq: some and full
    pressure: [[Pressure; 2]; 4],
    /// user, system, usage
    cputime: [u64; 3],
    container: Vec<u8>,
}

/// rbytes, wbytes, rios, wios, dbytes, dios
#[derive(Clone, Debug, Default)]
struct IoStat([u64; 6]);

/// The PMDA's cgroup state.
#[derive(Clone, Debug, Default)]
pub(crate) struct Cgroups {
    /// 0 before the first look at the mounts, then 1 (v1 or hybrid) or
    /// 2 (v2 alone: the subsystems and mounts are not looked at again)
    version: u8,
    subsys: Cache<Subsys>,
    mounts: Cache<Mount>,
    devices: HashMap<(u32, u32), Vec<u8>>,
    cpuset: Cache<Cpuset>,
    cpuacct: Cache<Cpuacct>,
    percpu: Cache<u64>,
    cpusched: Cache<Cpusched>,
    memory: Cache<Memory>,
    netcls: Cache<Netcls>,
    blkio: Cache<Blkio>,
    perdev: Cache<PerDev>,
    cgroup2: Cache<Cgroup2>,
    iostat: Cache<IoStat>,
    /// what the last cpuacct.stat read held (the PMDA reads into a
    /// static and copies it whole)
    cpuacct_last: [u64; 2],
}

/// The first line of a file as `fgets` into `len` bytes gives it
/// (`Err` as `read_oneline`: `ENOENT` when it cannot be opened, `ENOMEM`
/// when empty).
fn first_line<F: Files>(files: &F, path: &str, len: usize) -> Result<Vec<u8>, i64> {
    let text = files.read(path).map_err(|_| -2)?;
    if text.is_empty() {
        return Err(-12);
    }
    let end = memchr::memchr(b'\n', &text).map_or(text.len(), |i| i + 1).min(len - 1);
    Ok(text[..end].to_vec())
}

fn read_ull<F: Files>(files: &F, path: &str) -> u64 {
    first_line(files, path, 4096).map_or(u64::MAX, |l| strtoull_prefix(&l, 0).0)
}

fn read_ll<F: Files>(files: &F, path: &str) -> i64 {
    match first_line(files, path, 4096) {
        Err(e) => e,
        Ok(l) => {
            let (neg, m, _) = strtoint_parts(&l, 0);
            match (neg, i64::try_from(m)) {
                (false, Ok(v)) => v,
                (false, Err(_)) => i64::MAX,
                (true, _) if m >= 1 << 63 => i64::MIN,
                (true, Ok(v)) => -v,
                (true, Err(_)) => i64::MIN,
            }
        }
    }
}

/// `read_oneline_string`: the first line without its newlines, put in
/// the dictionary; empty when it cannot be read.
fn read_string<F: Files>(files: &F, path: &str, strings: &mut Strings) -> Vec<u8> {
    let Ok(mut l) = first_line(files, path, 4096) else { return Vec::new() };
    while l.last() == Some(&b'\n') {
        l.pop();
    }
    intern(strings, &l);
    l
}

/// `cgroup_container`: the container identifier a cgroup's name holds,
/// put in the dictionary; empty for none.
fn container(name: &[u8], strings: &mut Strings) -> Vec<u8> {
    match super::parse::container_of(name) {
        Some(id) => {
            intern(strings, id);
            id.to_vec()
        }
        None => Vec::new(),
    }
}

/// systemd's `\xHH` escapes in a cgroup's name, decoded
/// (`unit_name_unescape`).
fn unescape(name: &[u8]) -> Vec<u8> {
    if memchr::memchr(b'\\', name).is_none() {
        return name.to_vec();
    }
    let hex = |c: Option<&u8>| c.and_then(|c| (*c as char).to_digit(16)).unwrap_or(0xff) as u8;
    let mut out = Vec::with_capacity(name.len());
    let mut i = 0;
    while i < name.len() {
        if name[i] == b'\\' && name.get(i + 1) == Some(&b'x') {
            out.push((hex(name.get(i + 2)) << 4) | (hex(name.get(i + 3)) & 0x0f));
            i += 4;
        } else {
            out.push(name[i]);
            i += 1;
        }
    }
    out
}

/// "%s %llu" lines: each name with its value.
fn keyed_lines(text: &[u8]) -> impl Iterator<Item = (&[u8], u64)> {
    lines(text).filter_map(|l| {
        let mut s = Scan::new(l);
        Some((s.word()?, s.u64()?))
    })
}

fn skip_space(s: &mut Scan<'_>) {
    let r = s.rest();
    *s = Scan::new(&r[r.iter().take_while(|c| is_c_space(**c)).count()..]);
}

/// Match the literal text of a format (its white space any amount).
fn literal(s: &mut Scan<'_>, text: &[u8]) -> bool {
    for &c in text {
        if is_c_space(c) {
            skip_space(s);
        } else if !s.lit(c) {
            return false;
        }
    }
    true
}

/// One `fscanf` of "KIND avg10=%f avg60=%f avg300=%f total=%llu\n".
fn scan_pressure(s: &mut Scan<'_>, kind: &[u8]) -> Pressure {
    let mut p = Pressure::default();
    let mut n = 0;
    'scan: {
        for (i, lit) in [&b" avg10="[..], b" avg60=", b" avg300="].iter().enumerate() {
            if !(if i == 0 { literal(s, kind) && literal(s, lit) } else { literal(s, lit) }) {
                break 'scan;
            }
            let Some(v) = s.f32() else { break 'scan };
            p.avg[i] = v;
            n += 1;
        }
        if !literal(s, b" total=") {
            break 'scan;
        }
        let Some(v) = s.u64() else { break 'scan };
        p.total = v;
        n += 1;
        skip_space(s);
    }
    p.updated = n == 4;
    p
}

/// `read_pressures`: some and/or full from one file.
fn read_pressures<F: Files>(files: &F, path: &str, p: &mut [Pressure; 2], some: bool, full: bool) {
    if some {
        p[0] = Pressure::default();
    }
    if full {
        p[1] = Pressure::default();
    }
    let Ok(text) = files.read(path) else { return };
    let mut s = Scan::new(&text);
    if some {
        p[0] = scan_pressure(&mut s, b"some");
    }
    if full {
        p[1] = scan_pressure(&mut s, b"full");
    }
}

/// The fields of a "%s %llu" file named in `keys`, others `u64::MAX`.
fn read_keyed<F: Files, const N: usize>(files: &F, path: &str, keys: [&str; N]) -> [u64; N] {
    let mut out = [u64::MAX; N];
    if let Ok(text) = files.read(path) {
        for (name, v) in keyed_lines(&text) {
            if let Some(i) = keys.iter().position(|k| k.as_bytes() == name) {
                out[i] = v;
            }
        }
    }
    out
}

/// A cgroup tree below a mount: each cgroup's directory and name
/// (`/`, `/a`, `/a/b`), parents before children, directories in the
/// order the file system lists them.
fn walk<F: Files>(files: &F, mnt: &str) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    if let Ok(top) = files.list_dirs(mnt) {
        out.push((mnt.to_string(), b"/".to_vec()));
        descend(files, mnt, "", top, &mut out);
    }
    out
}

/// The cgroups below `dir` (named `name`), whose subdirectories are
/// `list`: one not starting with a dot is one.
fn descend<F: Files>(files: &F, dir: &str, name: &str, list: Vec<String>, out: &mut Vec<(String, Vec<u8>)>) {
    for child in list {
        if child.starts_with('.') {
            continue;
        }
        let path = format!("{dir}/{child}");
        let Ok(sub) = files.list_dirs(&path) else { continue };
        let cname = format!("{name}/{child}");
        out.push((path.clone(), cname.clone().into_bytes()));
        descend(files, &path, &cname, sub, out);
    }
}

impl Cgroups {
    /// Bring the state up to date for the clusters of `need`
    /// (`proc_refresh`'s cgroup part).
    pub(crate) fn refresh<F: Files>(&mut self, files: &F, need: Need, strings: &mut Strings) {
        if !need.any() {
            return;
        }
        if self.version < 2 {
            self.refresh_subsys(files);
            self.refresh_mounts(files);
        }
        if self.version < 2 {
            self.refresh_v1(files, need, strings);
        } else {
            self.refresh_v2(files, need, strings);
        }
    }

    /// The cgroup interface (2 for a v2 hierarchy alone, 1 for v1 or
    /// hybrid), /proc/mounts read first if no refresh has yet found it;
    /// 0 if that cannot be read.
    pub(crate) fn version<F: Files>(&mut self, files: &F) -> u8 {
        if self.version == 0 {
            self.refresh_mounts(files);
        }
        self.version
    }

    fn refresh_subsys<F: Files>(&mut self, files: &F) {
        self.subsys.inactivate();
        let Ok(text) = files.read("/proc/cgroups") else { return };
        for line in lines(&text) {
            if line.first() == Some(&b'#') {
                continue;
            }
            let mut s = Scan::new(line);
            let (Some(name), Some(h), Some(n), Some(e)) = (s.word(), s.u32(), s.u32(), s.u32()) else { continue };
            let i = match self.subsys.slot(name) {
                Slot::Active(i) | Slot::Inactive(i) => i,
                Slot::New => self.subsys.push(name),
            };
            self.subsys.data[i] = Subsys { hierarchy: h, num_cgroups: n, enabled: e };
            self.subsys.activate(i);
        }
    }

    fn refresh_mounts<F: Files>(&mut self, files: &F) {
        self.mounts.inactivate();
        let Ok(text) = files.read("/proc/mounts") else { return };
        let (mut v1, mut v2) = (0, 0);
        for line in text.split_inclusive(|c| *c == b'\n') {
            let mut tok = line.split(|c| *c == b' ').filter(|t| !t.is_empty());
            let (Some(_), Some(path), Some(ty)) = (tok.next(), tok.next(), tok.next()) else { continue };
            let options = tok.next();
            let version = match ty {
                b"cgroup2" => {
                    v2 += 1;
                    2
                }
                b"cgroup" => {
                    v1 += 1;
                    1
                }
                _ => continue,
            };
            match self.mounts.slot(path) {
                Slot::Active(_) => continue,
                Slot::Inactive(i) => {
                    let m = &mut self.mounts.data[i];
                    m.path = String::from_utf8_lossy(path).into_owned();
                    if version == 1 && m.options.as_deref() != options {
                        m.options = options.map(<[u8]>::to_vec);
                    }
                    m.version = version;
                    self.mounts.activate(i);
                }
                Slot::New => {
                    let i = self.mounts.push(path);
                    let opts = if version == 1 { options.map(<[u8]>::to_vec) } else { None };
                    self.mounts.data[i] =
                        Mount { path: String::from_utf8_lossy(path).into_owned(), options: opts, version };
                    self.mounts.activate(i);
                }
            }
        }
        self.version = if v2 > 0 && v1 == 0 { 2 } else { 1 };
    }

    /// `/proc/diskstats`' devices by number, without loop and ram disks.
    fn refresh_devices<F: Files>(&mut self, files: &F) {
        self.devices.clear();
        let Ok(text) = files.read("/proc/diskstats") else { return };
        for line in lines(&text) {
            let mut s = Scan::new(line);
            let (Some(major), Some(minor), Some(name), Some(_)) = (s.u32(), s.u32(), s.word(), s.u32()) else {
                continue;
            };
            if name.starts_with(b"loop") || name.starts_with(b"ram") {
                continue;
            }
            self.devices.insert((major, minor), name.to_vec());
        }
    }

    /// The subsystems among a mount's options, or `?`.
    fn mount_subsys(&self, m: &Mount) -> Vec<u8> {
        let Some(opts) = &m.options else { return b"?".to_vec() };
        let opts = &opts[..opts.len().min(255)];
        let mut out: Vec<u8> = Vec::new();
        for o in opts.split(|c| *c == b',').filter(|o| !o.is_empty()) {
            if matches!(self.subsys.slot(o), Slot::Active(_)) {
                if !out.is_empty() {
                    out.push(b',');
                }
                out.extend_from_slice(o);
            }
        }
        if out.is_empty() {
            b"?".to_vec()
        } else {
            out
        }
    }

    /// The active mounts, in the cache's order.
    fn mount_list(&self) -> Vec<Mount> {
        self.mounts.active().map(|(_, _, m)| m.clone()).collect()
    }

    fn refresh_v1<F: Files>(&mut self, files: &F, need: Need, strings: &mut Strings) {
        if need.has(K_BLKIO) {
            self.refresh_devices(files);
        }
        let order: [(u32, &[u8]); 6] = [
            (K_CPUSET, b"cpuset"),
            (K_CPUACCT, b"cpuacct"),
            (K_CPUSCHED, b"cpu"),
            (K_MEMORY, b"memory"),
            (K_NETCLS, b"netcls"),
            (K_BLKIO, b"blkio"),
        ];
        for (cluster, subsys) in order {
            if !need.has(cluster) {
                continue;
            }
            for m in self.mount_list() {
                if m.version == 1 {
                    let opts = m.options.as_deref().unwrap_or_default();
                    let opts = &opts[..opts.len().min(255)];
                    if !opts.split(|c| *c == b',').any(|o| o == subsys) {
                        continue;
                    }
                }
                self.setup(cluster);
                for (dir, name) in walk(files, &m.path) {
                    match cluster {
                        K_CPUSET => self.refresh_cpuset(files, &dir, &name, strings),
                        K_CPUACCT => self.refresh_cpuacct(files, &dir, &name, strings),
                        K_CPUSCHED => self.refresh_cpusched(files, &dir, &name, strings),
                        K_MEMORY => self.refresh_memory(files, &dir, &name, strings),
                        K_NETCLS => self.refresh_netcls(files, &dir, &name, strings),
                        _ => self.refresh_blkio(files, &dir, &name, strings),
                    }
                }
            }
        }
    }

    fn setup(&mut self, cluster: u32) {
        match cluster {
            K_CPUSET => self.cpuset.inactivate(),
            K_CPUACCT => {
                self.cpuacct.inactivate();
                self.percpu.inactivate();
            }
            K_CPUSCHED => self.cpusched.inactivate(),
            K_MEMORY => self.memory.inactivate(),
            K_NETCLS => self.netcls.inactivate(),
            K_BLKIO => {
                self.blkio.inactivate();
                self.perdev.inactivate();
            }
            _ => {}
        }
    }

    fn refresh_v2<F: Files>(&mut self, files: &F, need: Need, strings: &mut Strings) {
        for m in self.mount_list() {
            if m.version == 1 {
                continue;
            }
            // setup_all, once a mount
            if need.has(K_IO_STAT) || need.has(K_BLKIO) {
                self.refresh_devices(files);
            }
            if [K_CPU_PRESSURE, K_CPU_STAT, K_IO_PRESSURE, K_IO_STAT, K_MEM_PRESSURE].iter().any(|k| need.has(*k)) {
                self.cgroup2.inactivate();
                if need.has(K_IO_STAT) {
                    self.iostat.inactivate();
                }
            }
            for k in [K_CPUSET, K_CPUACCT, K_CPUSCHED, K_MEMORY, K_NETCLS, K_BLKIO] {
                if need.has(k) {
                    self.setup(k);
                }
            }
            for (dir, name) in walk(files, &m.path) {
                self.refresh_all(files, &dir, &name, need, strings);
            }
        }
    }

    fn refresh_all<F: Files>(&mut self, files: &F, dir: &str, name: &[u8], need: Need, strings: &mut Strings) {
        let esc = unescape(name);
        if let Some(i) = self.cgroup2.refill(&esc) {
            let mut g = std::mem::take(&mut self.cgroup2.data[i]);
            if need.has(K_CPU_PRESSURE) {
                read_pressures(files, &format!("{dir}/cpu.pressure"), &mut g.pressure[P_CPU], true, false);
            }
            if need.has(K_CPU_STAT) {
                let [usage, user, system] =
                    read_keyed(files, &format!("{dir}/cpu.stat"), ["usage_usec", "user_usec", "system_usec"]);
                g.cputime = [user, system, usage];
            }
            if need.has(K_IO_PRESSURE) {
                read_pressures(files, &format!("{dir}/io.pressure"), &mut g.pressure[P_IO], true, true);
            }
            if need.has(K_IO_STAT) {
                self.read_io_stats(files, &format!("{dir}/io.stat"), name);
            }
            if need.has(K_MEM_PRESSURE) {
                read_pressures(files, &format!("{dir}/memory.pressure"), &mut g.pressure[P_MEM], true, true);
            }
            if need.has(K_IRQ_PRESSURE) {
                read_pressures(files, &format!("{dir}/irq.pressure"), &mut g.pressure[P_IRQ], false, true);
            }
            g.container = container(name, strings);
            self.cgroup2.data[i] = g;
            self.cgroup2.activate(i);
        }
        // the v1 subsystems, through the v2 tree
        if need.has(K_CPUSET) && files.exists(dir) {
            self.refresh_cpuset(files, &format!("{dir}/cpuset.cpus"), name, strings);
        }
        if need.has(K_CPUACCT) && files.exists(dir) {
            self.refresh_cpuacct(files, &format!("{dir}/cpuacct.cpus"), name, strings);
        }
        if need.has(K_CPUSCHED) && files.exists(&format!("{dir}/cpu.shares")) {
            self.refresh_cpusched(files, dir, name, strings);
        }
        if need.has(K_MEMORY) && files.exists(&format!("{dir}/memory.stat")) {
            self.refresh_memory(files, dir, name, strings);
        }
        if need.has(K_NETCLS) && files.exists(&format!("{dir}/net_cls.classid")) {
            self.refresh_netcls(files, dir, name, strings);
        }
        if need.has(K_BLKIO) && files.exists(&format!("{dir}/blkio.time")) {
            self.refresh_blkio(files, dir, name, strings);
        }
    }

    fn read_io_stats<F: Files>(&mut self, files: &F, path: &str, name: &[u8]) {
        let Ok(text) = files.read(path) else { return };
        for line in lines(&text) {
            let mut s = Scan::new(line);
            let (Some(major), true, Some(minor)) = (s.u32(), s.lit(b':'), s.u32()) else { continue };
            let mut v = [0u64; 6];
            let mut ok = true;
            for (k, key) in ["rbytes=", "wbytes=", "rios=", "wios=", "dbytes=", "dios="].iter().enumerate() {
                match (literal(&mut s, b" ") && literal(&mut s, key.as_bytes())).then(|| s.u64()).flatten() {
                    Some(x) => v[k] = x,
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            if !ok {
                continue;
            }
            let Some(dev) = self.devices.get(&(major, minor)) else { continue };
            let inst = [&unescape(name)[..], b"::", dev].concat();
            let i = self.iostat.fresh(&inst);
            self.iostat.data[i] = IoStat(v);
            self.iostat.activate(i);
        }
    }

    fn refresh_cpuset<F: Files>(&mut self, files: &F, dir: &str, name: &[u8], strings: &mut Strings) {
        let esc = unescape(name);
        let Some(i) = self.cpuset.refill(&esc) else { return };
        let cpus = read_string(files, &format!("{dir}/cpuset.cpus"), strings);
        let mems = read_string(files, &format!("{dir}/cpuset.mems"), strings);
        let container = container(name, strings);
        self.cpuset.data[i] = Cpuset { cpus, mems, container };
        self.cpuset.activate(i);
    }

    fn refresh_cpuacct<F: Files>(&mut self, files: &F, dir: &str, name: &[u8], strings: &mut Strings) {
        let esc = unescape(name);
        let Some(i) = self.cpuacct.refill(&esc) else { return };
        if let Ok(text) = files.read(&format!("{dir}/cpuacct.stat")) {
            for (k, v) in keyed_lines(&text) {
                match k {
                    b"user" => self.cpuacct_last[0] = v,
                    b"system" => self.cpuacct_last[1] = v,
                    _ => {}
                }
            }
            let e = &mut self.cpuacct.data[i];
            (e.user, e.system) = (self.cpuacct_last[0], self.cpuacct_last[1]);
        }
        self.cpuacct.data[i].usage = read_ull(files, &format!("{dir}/cpuacct.usage"));
        self.read_percpu(files, &format!("{dir}/cpuacct.usage_percpu"), &esc);
        self.cpuacct.data[i].container = container(name, strings);
        self.cpuacct.activate(i);
    }

    fn read_percpu<F: Files>(&mut self, files: &F, path: &str, esc: &[u8]) {
        let Ok(line) = first_line(files, path, 16 * 4096) else { return };
        let mut at = 0;
        for cpu in 0.. {
            let (v, n) = strtoull_prefix(&line[at..], 0);
            if n == 0 || at + n >= line.len() {
                break;
            }
            at += n;
            at += line[at..].iter().take_while(|c| is_c_space(**c)).count();
            let inst = [esc, format!("::cpu{cpu}").as_bytes()].concat();
            let Some(i) = self.percpu.refill(&inst) else { continue };
            self.percpu.data[i] = v;
            self.percpu.activate(i);
        }
    }

    fn refresh_cpusched<F: Files>(&mut self, files: &F, dir: &str, name: &[u8], strings: &mut Strings) {
        let esc = unescape(name);
        let Some(i) = self.cpusched.refill(&esc) else { return };
        let keys = ["usage_usec", "user_usec", "system_usec", "nr_periods", "nr_throttled", "throttled_time"];
        let stat = read_keyed(files, &format!("{dir}/cpu.stat"), keys);
        let shares = read_ull(files, &format!("{dir}/cpu.shares"));
        let cfs_period = read_ull(files, &format!("{dir}/cpu.cfs_period_us"));
        let cfs_quota = read_ll(files, &format!("{dir}/cpu.cfs_quota_us"));
        let container = container(name, strings);
        self.cpusched.data[i] = Cpusched { shares, stat, cfs_period, cfs_quota, container };
        self.cpusched.activate(i);
    }

    fn refresh_memory<F: Files>(&mut self, files: &F, dir: &str, name: &[u8], strings: &mut Strings) {
        let esc = unescape(name);
        let Some(i) = self.memory.refill(&esc) else { return };
        let stat = read_keyed(files, &format!("{dir}/memory.stat"), MEMORY_KEYS.map(|(_, k)| k));
        let current = read_ull(files, &format!("{dir}/memory.current"));
        let limit = read_ull(files, &format!("{dir}/memory.limit_in_bytes"));
        let usage = read_ull(files, &format!("{dir}/memory.usage_in_bytes"));
        let failcnt = read_ull(files, &format!("{dir}/memory.failcnt"));
        let container = container(name, strings);
        self.memory.data[i] = Memory { stat, current, usage, limit, failcnt, container };
        self.memory.activate(i);
    }

    fn refresh_netcls<F: Files>(&mut self, files: &F, dir: &str, name: &[u8], strings: &mut Strings) {
        let esc = unescape(name);
        let Some(i) = self.netcls.refill(&esc) else { return };
        let classid = read_ull(files, &format!("{dir}/net_cls.classid"));
        let container = container(name, strings);
        self.netcls.data[i] = Netcls { classid, container };
        self.netcls.activate(i);
    }

    fn refresh_blkio<F: Files>(&mut self, files: &F, dir: &str, name: &[u8], strings: &mut Strings) {
        let esc = unescape(name);
        let Some(i) = self.blkio.refill(&esc) else { return };
        let mut total = self.blkio.data[i].stats;
        // (file, first item of its group, one value a device?)
        let groups: [(&str, usize, bool); 10] = [
            ("blkio.io_merged", 0, false),
            ("blkio.io_queued", 5, false),
            ("blkio.io_service_bytes", 10, false),
            ("blkio.io_serviced", 15, false),
            ("blkio.io_service_time", 20, false),
            ("blkio.io_wait_time", 25, false),
            ("blkio.sectors", 30, true),
            ("blkio.time", 31, true),
            ("blkio.throttle.io_service_bytes", 32, false),
            ("blkio.throttle.io_serviced", 37, false),
        ];
        for (file, at, single) in groups {
            let path = format!("{dir}/{file}");
            if single {
                total[at] = 0;
                self.read_blkio_values(files, &path, &esc, at, &mut total[at]);
            } else {
                total[at..at + 5].fill(0);
                let mut t = [0u64; 5];
                self.read_blkio_ops(files, &path, &esc, at, &mut t);
                total[at..at + 5].copy_from_slice(&t);
            }
        }
        let container = container(name, strings);
        self.blkio.data[i] = Blkio { stats: total, container };
        self.blkio.activate(i);
    }

    /// A per-device "MAJ:MIN Op value" file: each device's group when
    /// its Total line comes, and the cgroup's sums.
    fn read_blkio_ops<F: Files>(&mut self, files: &F, path: &str, esc: &[u8], at: usize, total: &mut [u64; 5]) {
        let Ok(text) = files.read(path) else { return };
        let mut ops = [0u64; 5];
        let mut current: Option<Vec<u8>> = None;
        let mut value = 0u64;
        for line in lines(&text) {
            let mut s = Scan::new(line);
            let (Some(major), true, Some(minor), Some(op)) = (s.u32(), s.lit(b':'), s.u32(), s.word()) else {
                continue;
            };
            if let Some(v) = s.u64() {
                value = v;
            }
            let Some(dev) = self.devices.get(&(major, minor)).cloned() else { continue };
            if current.as_deref() != Some(&dev[..]) {
                ops = [0; 5];
            }
            let Some(k) = ["Read", "Write", "Sync", "Async", "Total"].iter().position(|o| o.as_bytes() == op) else {
                current = Some(dev);
                continue;
            };
            ops[k] = value;
            if k == 4 {
                let inst = [esc, b"::", &dev[..]].concat();
                let i = self.perdev.fresh(&inst);
                self.perdev.data[i].0[at..at + 5].copy_from_slice(&ops);
                self.perdev.activate(i);
                for (t, o) in total.iter_mut().zip(ops) {
                    *t = t.wrapping_add(o);
                }
            }
            current = Some(dev);
        }
    }

    /// A per-device "MAJ:MIN value" file (sectors, time).
    fn read_blkio_values<F: Files>(&mut self, files: &F, path: &str, esc: &[u8], at: usize, total: &mut u64) {
        let Ok(text) = files.read(path) else { return };
        for line in lines(&text) {
            let mut s = Scan::new(line);
            let (Some(major), true, Some(minor), Some(v)) = (s.u32(), s.lit(b':'), s.u32(), s.u64()) else {
                continue;
            };
            let Some(dev) = self.devices.get(&(major, minor)) else { continue };
            let inst = [esc, b"::", &dev[..]].concat();
            let i = self.perdev.fresh(&inst);
            self.perdev.data[i].0[at] = v;
            self.perdev.activate(i);
            *total = total.wrapping_add(v);
        }
    }

    // ---------------------------------------------------------------
    // answers

    /// The active instances of a cgroup domain now, in the PMDA's order.
    pub(crate) fn instances(&self, serial: u32) -> Vec<(i32, Vec<u8>)> {
        fn list<T: Default>(c: &Cache<T>) -> Vec<(i32, Vec<u8>)> {
            c.active().map(|(i, n, _)| (i, n.to_vec())).collect()
        }
        match serial {
            CGROUP2_INDOM => list(&self.cgroup2),
            PERDEV2_INDOM => list(&self.iostat),
            CPUSET_INDOM => list(&self.cpuset),
            CPUACCT_INDOM => list(&self.cpuacct),
            PERCPUACCT_INDOM => list(&self.percpu),
            CPUSCHED_INDOM => list(&self.cpusched),
            MEMORY_INDOM => list(&self.memory),
            NETCLS_INDOM => list(&self.netcls),
            BLKIO_INDOM => list(&self.blkio),
            PERDEVBLKIO_INDOM => list(&self.perdev),
            SUBSYS_INDOM => list(&self.subsys),
            MOUNTS_INDOM => list(&self.mounts),
            _ => Vec::new(),
        }
    }

    /// The instances of a cgroup domain now with their labels.
    pub(crate) fn labelled(&self, serial: u32) -> Vec<(i32, Option<String>)> {
        self.instances(serial).into_iter().map(|(i, n)| (i, instance_label(serial, &n))).collect()
    }

    /// `cgroup.subsys.count`, `cgroup.mounts.count`.
    pub(crate) fn singular(&self, cluster: u32, item: u32) -> Option<AtomValue> {
        match (cluster, item) {
            (K_SUBSYS, 1) => Some(AtomValue::U32(self.subsys.count() as u32)),
            (K_MOUNTS, 1) => Some(AtomValue::U32(self.mounts.count() as u32)),
            _ => None,
        }
    }

    /// The values of a cgroup metric for the instances `wanted` accepts.
    pub(crate) fn values(&self, def: &MetricDef, hz: u32, wanted: &dyn Fn(i32) -> bool) -> Vec<InstValue> {
        let (cluster, item, ty) = (def.pmid.cluster(), def.pmid.item(), def.ty);
        let hz = u64::from(hz.max(1));
        let text = |s: &[u8]| Some(AtomValue::String(s.to_vec()));
        let some = |v: u64| (v != u64::MAX).then(|| num(ty, v));
        let blk = |stats: &BlkStats, k: usize| {
            let v = stats.get(k).copied().unwrap_or(0);
            Some(num(
                ty,
                match k {
                    30 => v >> 1,
                    31 => v.wrapping_mul(1000) / hz,
                    _ => v,
                },
            ))
        };
        let pressure = |p: &[Pressure; 2], k: u32| {
            let p = p[(k / 4) as usize % 2];
            if !p.updated {
                return None;
            }
            Some(match k % 4 {
                // the PMDA stores the average through the integer member
                // of its value union, and the client reads the float's bits
                3 => AtomValue::U64(p.total),
                a => AtomValue::Float(f32::from_bits(p.avg[a as usize] as u64 as u32)),
            })
        };
        let mut out = Vec::new();
        let mut push = |inst: i32, v: Option<AtomValue>| {
            if let Some(v) = v {
                out.push(InstValue { inst, value: pcp_core::Value::from_atom(&v) });
            }
        };
        macro_rules! each {
            ($cache:expr, |$e:ident| $val:expr) => {
                for (inst, _, $e) in $cache.active() {
                    if wanted(inst) {
                        push(inst, $val);
                    }
                }
            };
        }
        match cluster {
            K_SUBSYS => each!(self.subsys, |e| match item {
                0 => Some(AtomValue::U32(e.hierarchy)),
                2 => Some(AtomValue::U32(e.num_cgroups)),
                3 => Some(AtomValue::U32(e.enabled)),
                _ => None,
            }),
            K_MOUNTS => each!(self.mounts, |e| (item == 0).then(|| AtomValue::String(self.mount_subsys(e)))),
            K_CPUSET => each!(self.cpuset, |e| match item {
                0 => text(&e.cpus),
                1 => text(&e.mems),
                2 => text(&e.container),
                _ => None,
            }),
            K_CPUACCT if item == 3 => each!(self.percpu, |e| some(*e)),
            K_CPUACCT => each!(self.cpuacct, |e| match item {
                0 => some(e.user),
                1 => some(e.system),
                2 => some(e.usage),
                4 => text(&e.container),
                _ => None,
            }),
            K_CPUSCHED => each!(self.cpusched, |e| match item {
                0 => some(e.shares),
                1..=3 => some(e.stat[item as usize + 2]),
                4 => some(e.cfs_period),
                5 => (e.cfs_quota != -1).then_some(AtomValue::I64(e.cfs_quota)),
                6 => text(&e.container),
                _ => None,
            }),
            K_MEMORY => each!(self.memory, |e| match item {
                29 => text(&e.container),
                80 => some(e.usage),
                81 => some(e.limit),
                82 => some(e.failcnt),
                90 => some(e.current),
                _ => MEMORY_KEYS.iter().position(|(k, _)| *k == item).and_then(|p| some(e.stat[p])),
            }),
            K_NETCLS => each!(self.netcls, |e| match item {
                0 => some(e.classid),
                1 => text(&e.container),
                _ => None,
            }),
            K_BLKIO if def.indom == Some(PERDEVBLKIO_INDOM) => {
                each!(self.perdev, |e| blk(&e.0, item as usize))
            }
            K_BLKIO => each!(self.blkio, |e| match item {
                42 => text(&e.container),
                60..=101 => blk(&e.stats, item as usize - 60),
                _ => None,
            }),
            K_CPU_STAT => each!(self.cgroup2, |e| e.cputime.get(item as usize).and_then(|v| some(*v))),
            K_CPU_PRESSURE => each!(self.cgroup2, |e| pressure(&e.pressure[P_CPU], item)),
            K_IO_PRESSURE => each!(self.cgroup2, |e| pressure(&e.pressure[P_IO], item)),
            K_MEM_PRESSURE => each!(self.cgroup2, |e| pressure(&e.pressure[P_MEM], item)),
            K_IRQ_PRESSURE => each!(self.cgroup2, |e| pressure(&e.pressure[P_IRQ], item + 4)),
            K_IO_STAT => each!(self.iostat, |e| e.0.get(item as usize).and_then(|v| some(*v))),
            _ => {}
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pressure_lines_scan_as_fscanf() {
        let text = b"some avg10=1.50 avg60=0.25 avg300=0.00 total=77\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=5\n";
        let mut s = Scan::new(text);
        let p = scan_pressure(&mut s, b"some");
        assert!(p.updated);
        assert_eq!((p.avg[0], p.total), (1.5, 77));
        let f = scan_pressure(&mut s, b"full");
        assert!(f.updated);
        assert_eq!(f.total, 5);
        // a file of only "full" lines: some fails at its first byte
        let at = text.iter().position(|c| *c == b'\n').unwrap() + 1;
        let mut s = Scan::new(&text[at..]);
        assert!(!scan_pressure(&mut s, b"some").updated);
        assert!(scan_pressure(&mut s, b"full").updated);
    }

    #[test]
    fn unescape_decodes_systemd_hex() {
        assert_eq!(unescape(b"/system.slice/a\\x2db.service"), b"/system.slice/a-b.service");
        assert_eq!(unescape(b"/plain"), b"/plain");
    }

    #[test]
    fn cache_numbers_names_in_order_of_first_sight() {
        let mut c: Cache<u64> = Cache::default();
        let a = c.refill(b"/a").unwrap();
        c.activate(a);
        let b = c.refill(b"/b").unwrap();
        c.activate(b);
        assert!(c.refill(b"/a").is_none());
        c.inactivate();
        let b2 = c.refill(b"/b").unwrap();
        c.activate(b2);
        assert_eq!(c.active().map(|(i, n, _)| (i, n.to_vec())).collect::<Vec<_>>(), [(1, b"/b".to_vec())]);
    }
}
