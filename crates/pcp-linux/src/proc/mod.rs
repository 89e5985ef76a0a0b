//! The proc PMDA (domain 3) for local contexts: per-process metrics
//! (`proc.psinfo.*`, `proc.memory.*`, `proc.io.*`, `proc.id.*`,
//! `proc.schedstat.*`, `proc.fd.*`, `proc.namespaces.*`, `proc.smaps.*`,
//! `proc.autogroup.*`), the run queue counts (`proc.runq.*`) and
//! `proc.nprocs`, computed as PCP 6.0.3's proc PMDA computes them, with
//! its instance names and error codes, and the `cgroup.*` metrics (see
//! the `cgroup` module for the PMDA's ways with them).
//!
//! Each fetch lists the processes once and reads, for the processes the
//! profile asks for, only the files its metrics need, each at most once.
//!
//! Access: in a local context the PMDA runs as the client, with its user
//! and group, and checks nothing more itself; a file the client may not
//! read (`EACCES`, `EINVAL`) is no value, a process gone between listing
//! and reading (`ENOENT`) is `PM_ERR_APPVERSION` ("Metric not supported
//! by this version of monitored application"), an empty file
//! `PM_ERR_VALUE`.
//!
//! ```
//! use pcp_core::Timestamp;
//! use pcp_linux::proc::{metric_by_name, ProcOptions, ProcSource, PROC_INDOM};
//! use pcp_linux::RootFiles;
//!
//! let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshot/procpid");
//! let opts = ProcOptions { hz: 100, page_size: 4096, threads: false };
//! let mut source = ProcSource::with_files(RootFiles::snapshot(root), opts);
//! let names: Vec<String> =
//!     source.instances(PROC_INDOM).unwrap().into_iter().map(|(_, n)| String::from_utf8(n).unwrap()).collect();
//! assert_eq!(names, ["4000000 sleep30", "000345 /bin/prometheus", "000002 (kthreadd)", "000001 /sbin/init"]);
//! let cmd = metric_by_name("proc.psinfo.cmd").unwrap();
//! let result = source.fetch(&[cmd.pmid], Timestamp::new(5, 0), &|_, inst| inst == 1);
//! assert_eq!(result.sets[0].values.as_ref().unwrap().len(), 1);
//! ```

mod cgroup;
mod control;
mod hotproc;
mod parse;
mod pids;
mod table;

pub use parse::{cgroups, instance_name, process_name};

use crate::files::{Files, RootFiles};
use crate::source::num;
use crate::MetricDef;
use parse::stat_field as sf;
use pcp_core::{AtomValue, FetchResult, InDom, InstValue, MetricType, PmError, PmId, PmResult, Timestamp, Value};
use pcp_core::{ValueSet, PM_IN_NULL};
use pids::PidOrder;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

/// The proc PMDA's domain number.
pub const DOMAIN: u32 = crate::PROC_DOMAIN;
/// `PROC_INDOM` (3.9): all current processes, `"%06d command"`.
pub const PROC_INDOM: InDom = InDom::new(DOMAIN, 9);
/// `HOTPROC_INDOM` (3.39): the "hot" processes, named as in `PROC_INDOM`.
pub const HOTPROC_INDOM: InDom = InDom::new(DOMAIN, 39);
/// `ACCT_INDOM` (3.40): the processes process accounting saw exit.
pub const ACCT_INDOM: InDom = InDom::new(DOMAIN, 40);

/// Every metric of the proc PMDA's `proc`, `cgroup`, `hotproc` and
/// `acct` trees, in the
/// name space's order, with the descriptors and help texts the PMDA
/// serves.
pub fn metrics() -> &'static [MetricDef] {
    table::METRICS
}

/// The metric with this PMID.
pub fn metric_by_pmid(pmid: PmId) -> Option<&'static MetricDef> {
    static BY_PMID: LazyLock<Vec<&MetricDef>> = LazyLock::new(|| crate::by_pmid(table::METRICS));
    crate::find_pmid(&BY_PMID, pmid)
}

/// The metric with this name.
pub fn metric_by_name(name: &str) -> Option<&'static MetricDef> {
    table::METRICS.iter().find(|m| m.name == name)
}

/// The help text of an instance domain (`pmLookupInDomText`).
#[doc(alias = "pmLookupInDomText")]
pub fn indom_text(indom: InDom, full: bool) -> Option<&'static str> {
    if indom.domain() != DOMAIN {
        return None;
    }
    let (_, one, help) = table::INDOM_TEXTS.iter().find(|(s, _, _)| *s == indom.serial())?;
    Some(if full { help } else { one })
}

/// The labels of an instance of `indom` (`pmGetInstancesLabels`), as JSON:
/// a process's pid.
pub fn instance_label(indom: InDom, inst: i32) -> Option<String> {
    (indom == PROC_INDOM || indom == HOTPROC_INDOM).then(|| format!("{{\"pid\":{}}}", inst as u32))
}

/// The labels of an instance domain (`pmGetInDomLabels`), as JSON: the
/// device type of the cgroup domains.
pub fn indom_label(indom: InDom) -> Option<&'static str> {
    (indom.domain() == DOMAIN).then(|| cgroup::indom_label(indom.serial())).flatten()
}

/// Settings the PMDA takes from the machine (or, for tests, from
/// `$PROC_HERTZ`, `$PROC_PAGESIZE`, `$PROC_THREADS`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcOptions {
    /// Clock ticks per second of the CPU times.
    pub hz: u32,
    /// The memory page size.
    pub page_size: u32,
    /// Are threads instances too (`proc.control.all.threads`)?
    pub threads: bool,
}

impl ProcOptions {
    /// This machine's settings, processes without their threads.
    pub fn from_system() -> ProcOptions {
        ProcOptions {
            hz: u32::try_from(rustix::param::clock_ticks_per_second()).unwrap_or(100),
            page_size: u32::try_from(rustix::param::page_size()).unwrap_or(4096),
            threads: false,
        }
    }
}

// the PMDA's clusters
const C_STAT: u32 = 8;
const C_STATM: u32 = 9;
use control::{C_ACCT, C_CONTROL, C_HOTPROC_GLOBAL};
const C_CGROUP: u32 = 11;
const C_LABEL: u32 = 12;
const C_RUNQ: u32 = 13;
const C_STATUS: u32 = 24;
const C_SCHEDSTAT: u32 = 31;
const C_IO: u32 = 32;
const C_SMAPS: u32 = 33;
const C_FD: u32 = 51;
const C_OOM: u32 = 62;
const C_EXE: u32 = 69;
const C_CWD: u32 = 72;
const C_AUTOGROUP: u32 = 74;
// (the hotproc clusters of those with singular metrics)
const C_HOTPROC_STAT: u32 = 52;
const C_HOTPROC_AUTOGROUP: u32 = 75;

/// Does a fetch of this cluster list the processes?
fn lists_processes(cluster: u32) -> bool {
    matches!(
        cluster,
        C_STAT
            | C_STATM
            | C_STATUS
            | C_IO
            | C_LABEL
            | C_CGROUP
            | C_SCHEDSTAT
            | C_OOM
            | C_AUTOGROUP
            | C_CWD
            | C_EXE
            | C_FD
            | C_RUNQ
    )
}

/// One file of a process as one fetch read it: its value, no value
/// (`Ok(None)`), or the error the PMDA answers.
type Got<T> = Result<Option<T>, PmError>;

/// What one fetch read of a process (each file read at most once).
#[derive(Clone, Debug, Default)]
struct Read {
    // (shared: each of their metrics' values takes them from here)
    stat: Option<Got<Arc<parse::Stat>>>,
    statm: Option<Got<[u64; 7]>>,
    status: Option<Got<Arc<parse::Status>>>,
    io: Option<Got<[u64; 7]>>,
    schedstat: Option<Got<[u64; 3]>>,
    smaps: Option<Got<[u64; 20]>>,
    fd: Option<Got<u32>>,
    cgroup: Option<Got<(Vec<u8>, Vec<u8>)>>,
    label: Option<Got<Vec<u8>>>,
    oom: Option<Got<u32>>,
    cwd: Option<Vec<u8>>,
    exe: Option<Vec<u8>>,
    wchan: Option<Got<Vec<u8>>>,
    environ: Option<Vec<u8>>,
    maps: Option<Got<Vec<u8>>>,
    autogroup: Option<Got<(u32, i32)>>,
}

/// A process the PMDA knows: its name (made when first seen) and what
/// this fetch read of it.
#[derive(Clone, Debug)]
struct Entry {
    name: Vec<u8>,
    inst_name: Vec<u8>,
    read: Read,
}

/// A terminal driver: major number, first and last minor, device path.
type TtyDriver = (u32, u32, u32, Vec<u8>);

/// The run queue counts (`proc.runq.*`, by item).
#[derive(Clone, Copy, Debug, Default)]
struct Runq {
    counts: [u32; 8],
}

/// The PMDA's answer for a file that cannot be read.
fn map_err(e: &std::io::Error) -> Got<std::convert::Infallible> {
    match e.raw_os_error() {
        Some(13) | Some(22) => Ok(None),
        Some(2) => Err(PmError::PM_ERR_APPVERSION),
        Some(61) => Err(PmError::PM_ERR_VALUE),
        Some(n) => Err(PmError::from_errno(n)),
        None => Err(PmError::PM_ERR_APPVERSION),
    }
}

/// The proc PMDA's metrics of one system: the processes (numbered by
/// pid, named as the PMDA names them, in its order), and fetches.
#[derive(Clone, Debug)]
pub struct ProcSource<F: Files = RootFiles> {
    files: F,
    opts: ProcOptions,
    // (by pid, looked up for every value: hashed by foldhash)
    entries: foldhash::HashMap<i32, Entry>,
    order: PidOrder,
    /// The PMDA's string dictionary: a string's index is the order it was
    /// first seen (`proc.psinfo.ngid` serves the index).
    strings: HashMap<Vec<u8>, u32>,
    users: Option<HashMap<u32, Vec<u8>>>,
    groups: Option<HashMap<u32, Vec<u8>>>,
    ttys: Option<Vec<TtyDriver>>,
    runq: Runq,
    autogroup: Option<bool>,
    scratch: Vec<u8>,
    cgroups: cgroup::Cgroups,
    controls: control::Controls,
    /// The client's user: only root may store the hotproc and acct
    /// settings.
    uid: u32,
}

impl<F: Files> ProcSource<F> {
    /// A source reading `files` (their root is the PMDA's
    /// `$PROC_STATSPATH`).
    pub fn with_files(files: F, opts: ProcOptions) -> ProcSource<F> {
        ProcSource {
            files,
            opts,
            entries: foldhash::HashMap::default(),
            order: PidOrder::default(),
            strings: HashMap::new(),
            users: None,
            groups: None,
            ttys: None,
            runq: Runq::default(),
            autogroup: None,
            scratch: Vec::new(),
            cgroups: cgroup::Cgroups::default(),
            controls: control::Controls::default(),
            uid: crate::user_and_group().0,
        }
    }

    /// The same source for a client of user `uid` (the PMDA lets only
    /// root store its hotproc and acct settings).
    pub fn for_user(mut self, uid: u32) -> ProcSource<F> {
        self.uid = uid;
        self
    }

    /// Are threads instances for this client (`proc.control.perclient.threads`
    /// once stored, else `proc.control.all.threads`)?
    fn threads(&self) -> bool {
        self.controls.perclient_threads.unwrap_or(self.opts.threads)
    }

    /// `pmStore` of one value into a metric, as the PMDA answers a local
    /// context's client: `proc.control.*` (threads and the per-client
    /// settings), and for root `hotproc.control.*` and `acct.control.*`;
    /// any other metric is `PM_ERR_PERMISSION`.
    #[doc(alias = "pmStore")]
    pub fn store(&mut self, pmid: PmId, value: &Value) -> PmResult<()> {
        if pmid.domain() != DOMAIN {
            return Err(PmError::PM_ERR_PERMISSION);
        }
        self.controls.store(pmid.cluster(), pmid.item(), value, self.uid, &mut self.opts.threads)
    }

    /// `pmGetInDom`: the processes now (the PMDA's order), or a cgroup
    /// domain's instances (refreshed first, as the PMDA does for all but
    /// the v2 domains, whose instances are those the last fetch found).
    #[doc(alias = "pmGetInDom")]
    pub fn instances(&mut self, indom: InDom) -> PmResult<Vec<(i32, Vec<u8>)>> {
        if indom.domain() != DOMAIN || indom_text(indom, false).is_none() {
            return Err(PmError::PM_ERR_INDOM);
        }
        if indom == HOTPROC_INDOM || indom == ACCT_INDOM {
            // (no predicate, no accounting: neither has instances)
            return Ok(Vec::new());
        }
        if indom != PROC_INDOM {
            let need = cgroup::Need::for_indom(indom.serial());
            self.cgroups.refresh(&self.files, need, &mut self.strings);
            return Ok(self.cgroups.instances(indom.serial()));
        }
        self.refresh_pids(false);
        Ok(self.order.iter().filter_map(|p| Some((p, self.entries.get(&p)?.inst_name.clone()))).collect())
    }

    /// The instances of `indom` with their labels' JSON
    /// (`pmGetInstancesLabels`): the processes now, or a cgroup domain's
    /// instances as the last refresh left them.
    #[doc(alias = "pmGetInstancesLabels")]
    pub fn instance_labels(&mut self, indom: InDom) -> PmResult<Vec<(i32, Option<String>)>> {
        if indom == PROC_INDOM {
            let insts = self.instances(indom)?;
            return Ok(insts.into_iter().map(|(i, _)| (i, instance_label(indom, i))).collect());
        }
        if indom.domain() != DOMAIN || indom_text(indom, false).is_none() {
            return Err(PmError::PM_ERR_INDOM);
        }
        if indom == HOTPROC_INDOM || indom == ACCT_INDOM {
            return Ok(Vec::new());
        }
        Ok(self.cgroups.labelled(indom.serial()))
    }

    /// The instance a name picks (`pmLookupInDom`): a name of digits
    /// alone is a pid, matched as `%06d`.
    #[doc(alias = "pmLookupInDom")]
    pub fn normalise_name(indom: InDom, name: &[u8]) -> Vec<u8> {
        if indom == PROC_INDOM && !name.is_empty() && name.iter().all(u8::is_ascii_digit) {
            let (v, _) = parse::strtol(name, 0);
            return format!("{:06}", v as i32).into_bytes();
        }
        name.to_vec()
    }

    /// `pmFetch`: the values of `pmids`, stamped `now`, for the instances
    /// `wanted` accepts.
    #[doc(alias = "pmFetch")]
    pub fn fetch(&mut self, pmids: &[PmId], now: Timestamp, wanted: &dyn Fn(InDom, i32) -> bool) -> FetchResult {
        let list = pmids.iter().any(|p| p.domain() == DOMAIN && lists_processes(p.cluster()));
        let runq = pmids.iter().any(|p| p.domain() == DOMAIN && p.cluster() == C_RUNQ);
        self.autogroup = None;
        let mut need = cgroup::Need::default();
        for p in pmids.iter().filter(|p| p.domain() == DOMAIN) {
            need.add(p.cluster());
        }
        self.cgroups.refresh(&self.files, need, &mut self.strings);
        if list {
            self.refresh_pids(runq);
        }
        let mut sets = Vec::with_capacity(pmids.len());
        for &pmid in pmids {
            let values = match metric_by_pmid(pmid) {
                None => Err(PmError::PM_ERR_PMID),
                Some(def) => self.metric_values(def, wanted),
            };
            sets.push(ValueSet { pmid, values });
        }
        FetchResult { timestamp: now, sets }
    }

    fn metric_values(
        &mut self,
        def: &MetricDef,
        wanted: &dyn Fn(InDom, i32) -> bool,
    ) -> Result<Vec<InstValue>, PmError> {
        let Some(serial) = def.indom else {
            return Ok(match self.singular(def) {
                Some(atom) => vec![InstValue { inst: PM_IN_NULL, value: Value::from_atom(&atom) }],
                None => Vec::new(),
            });
        };
        if serial == HOTPROC_INDOM.serial() || serial == ACCT_INDOM.serial() {
            // (no hot processes, no accounting records)
            return Ok(Vec::new());
        }
        if serial != PROC_INDOM.serial() {
            let indom = InDom::new(DOMAIN, serial);
            return Ok(self.cgroups.values(def, self.opts.hz, &|inst| wanted(indom, inst)));
        }
        let pids: Vec<i32> = self.order.iter().filter(|&p| wanted(PROC_INDOM, p)).collect();
        let mut out = Vec::with_capacity(pids.len());
        let mut last = Ok(());
        for pid in pids {
            match self.process_value(def, pid) {
                Ok(Some(atom)) => {
                    out.push(InstValue { inst: pid, value: Value::from_atom(&atom) });
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

    fn singular(&mut self, def: &MetricDef) -> Option<AtomValue> {
        let (cluster, item) = (def.pmid.cluster(), def.pmid.item());
        match (cluster, item) {
            (C_STAT, 99) => Some(AtomValue::U32(self.entries.len() as u32)),
            (C_HOTPROC_STAT, 99) => Some(AtomValue::U32(0)),
            (C_RUNQ, i) => self.runq.counts.get(i as usize).map(|&n| AtomValue::I32(n as i32)),
            (C_CONTROL, 1) => Some(AtomValue::U32(u32::from(self.opts.threads))),
            (C_CONTROL, 2) => Some(AtomValue::U32(u32::from(self.threads()))),
            (C_CONTROL, 3) => Some(AtomValue::String(self.controls.perclient_cgroups.clone().unwrap_or_default())),
            (C_AUTOGROUP | C_HOTPROC_AUTOGROUP, 0) => Some(AtomValue::U32(u32::from(self.autogroup_enabled()))),
            (C_HOTPROC_GLOBAL | C_ACCT, _) => self.controls.value(cluster, item),
            _ => self.cgroups.singular(cluster, item),
        }
    }

    fn autogroup_enabled(&mut self) -> bool {
        if let Some(a) = self.autogroup {
            return a;
        }
        let on = self
            .files
            .read("/proc/sys/kernel/sched_autogroup_enabled")
            .map(|t| parse::strtoul(&t, 0).0 == 1)
            .unwrap_or(false);
        self.autogroup = Some(on);
        on
    }

    // ---------------------------------------------------------------
    // the processes

    /// List the processes (and their threads when asked; only the
    /// cgroup's once the client stored `proc.control.perclient.cgroups`),
    /// name those new since the last listing, forget those gone, and start
    /// a new fetch's reading; with `runq`, count the run queue states.
    fn refresh_pids(&mut self, runq: bool) {
        let pids = match self.controls.perclient_cgroups.clone() {
            Some(cgroup) => self.cgroup_pids(&cgroup),
            None => self.all_pids(),
        };
        self.track_pids(&pids, runq);
    }

    /// Every process in /proc (and with threads their tasks), by pid.
    fn all_pids(&mut self) -> Vec<i32> {
        let mut pids: Vec<i32> = Vec::new();
        if let Ok(names) = self.files.list("/proc") {
            for n in names.iter().filter(|n| n.as_bytes().first().is_some_and(u8::is_ascii_digit)) {
                pids.push(parse::strtol(n.as_bytes(), 0).0 as i32);
                if self.threads() {
                    if let Ok(tasks) = self.files.list(&format!("/proc/{n}/task")) {
                        for t in tasks.iter().filter(|t| t.as_bytes().first().is_some_and(u8::is_ascii_digit)) {
                            if t != n {
                                pids.push(parse::strtol(t.as_bytes(), 0).0 as i32);
                            }
                        }
                    }
                }
            }
        }
        pids.sort_unstable();
        pids
    }

    /// The processes of the client's cgroup filter, in its file's order:
    /// as the PMDA reads them, the stored text is a path from the root
    /// (not from a cgroup mount), with `container/cgroup.procs` after it,
    /// or for threads `tasks` (a v1 system) or `container/cgroup.threads`
    /// (v2 alone). A file that is not there lists no processes.
    fn cgroup_pids(&mut self, cgroup: &[u8]) -> Vec<i32> {
        // (a relative path is relative to the statistics root's name
        // itself in the PMDA, a sibling of it: taken as not there)
        if cgroup.first() != Some(&b'/') {
            return Vec::new();
        }
        let cgroup = String::from_utf8_lossy(cgroup);
        let file = match (self.threads(), self.cgroups.version(&self.files)) {
            (true, 1) => "tasks",
            (true, v) if v > 1 => "container/cgroup.threads",
            _ => "container/cgroup.procs",
        };
        let Ok(text) = self.files.read(&format!("{cgroup}/{file}")) else { return Vec::new() };
        parse::scan_ints(&text)
    }

    /// Name the processes of `pids` new since the last listing, forget
    /// those gone, and with `runq` count the run queue states.
    fn track_pids(&mut self, pids: &[i32], runq: bool) {
        let mut present: HashMap<i32, ()> = HashMap::with_capacity(pids.len());
        for &pid in pids {
            present.insert(pid, ());
            if let Some(e) = self.entries.get_mut(&pid) {
                e.read = Read::default();
                continue;
            }
            let cmdline = self.files.read(&format!("/proc/{pid}/cmdline")).ok();
            let name =
                parse::process_name(pid, cmdline.as_deref(), || self.files.read(&format!("/proc/{pid}/status")).ok());
            let inst_name = parse::instance_name(&name).to_vec();
            self.entries.insert(pid, Entry { name, inst_name, read: Read::default() });
            self.order.add(pid);
        }
        if self.entries.len() != present.len() {
            self.entries.retain(|p, _| present.contains_key(p));
            self.order.retain(|p| present.contains_key(&p));
        }
        self.runq = Runq::default();
        if runq {
            let order: Vec<i32> = self.order.iter().collect();
            for pid in order {
                let stat = self.stat(pid);
                let k = match stat {
                    Ok(Some(s)) if s.state == b'Z' => 5,
                    Ok(Some(s)) if s.fields[sf::VSIZE] == 0 => 4,
                    Ok(Some(s)) => match s.state {
                        b'R' => 0,
                        b'S' => 2,
                        b't' | b'T' => 3,
                        b'P' | b'D' => 1,
                        _ => 6,
                    },
                    _ => 6,
                };
                self.runq.counts[k] += 1;
            }
        }
    }

    /// Read a file of process `pid` into the scratch buffer: in thread
    /// mode the task's own directory first.
    fn read_file(&mut self, pid: i32, base: &str) -> Result<(), std::io::Error> {
        let mut buf = std::mem::take(&mut self.scratch);
        let mut r = Err(std::io::Error::from_raw_os_error(2));
        if self.threads() {
            r = self.files.read_into(&format!("/proc/{pid}/task/{pid}/{base}"), &mut buf);
        }
        if r.is_err() {
            r = self.files.read_into(&format!("/proc/{pid}/{base}"), &mut buf);
        }
        self.scratch = buf;
        r
    }

    /// A file parsed by `f`, with the PMDA's errors (an empty file is
    /// `PM_ERR_VALUE`).
    fn parsed<T>(&mut self, pid: i32, base: &str, f: impl FnOnce(&[u8]) -> Option<T>) -> Got<T> {
        match self.read_file(pid, base) {
            Err(e) => map_err(&e).map(|_| None),
            Ok(()) if self.scratch.is_empty() => Err(PmError::PM_ERR_VALUE),
            Ok(()) => Ok(f(&self.scratch)),
        }
    }

    fn stat(&mut self, pid: i32) -> Got<Arc<parse::Stat>> {
        if let Some(r) = self.entries.get(&pid).and_then(|e| e.read.stat.clone()) {
            return r;
        }
        let r = self.parsed(pid, "stat", |b: &[u8]| parse::stat(b).map(Arc::new));
        if let Some(e) = self.entries.get_mut(&pid) {
            e.read.stat = Some(r.clone());
        }
        r
    }

    fn string_index(&mut self, s: &[u8]) -> u32 {
        let next = self.strings.len() as u32;
        *self.strings.entry(s.to_vec()).or_insert(next)
    }

    /// The value of a per-process metric for one process.
    fn process_value(&mut self, def: &MetricDef, pid: i32) -> Got<AtomValue> {
        let (cluster, item, ty) = (def.pmid.cluster(), def.pmid.item(), def.ty);
        let Some(entry) = self.entries.get(&pid) else { return Ok(None) };
        let args = if cluster == C_STAT && item == 41 { psargs(&entry.name).to_vec() } else { Vec::new() };
        macro_rules! cached {
            ($field:ident, $base:expr, $parse:expr) => {{
                match self.entries.get(&pid).and_then(|e| e.read.$field.clone()) {
                    Some(r) => r,
                    None => {
                        let r = self.parsed(pid, $base, $parse);
                        if let Some(e) = self.entries.get_mut(&pid) {
                            e.read.$field = Some(r.clone());
                        }
                        r
                    }
                }
            }};
        }
        let kb = |pages: u64, page: u32| pages.wrapping_mul(u64::from(page)) / 1024;
        let hz = u64::from(self.opts.hz.max(1));
        let page = self.opts.page_size;
        Ok(Some(match cluster {
            C_STAT => match item {
                0 => AtomValue::U32(pid as u32),
                41 => AtomValue::String(args),
                40 => {
                    // (a wchan file that cannot be opened is no value)
                    let r = match cached!(wchan, "wchan", |b: &[u8]| Some(b.to_vec())) {
                        Err(PmError::PM_ERR_VALUE) => Err(PmError::PM_ERR_VALUE),
                        Err(_) => Ok(None),
                        ok => ok,
                    };
                    match r {
                        Ok(Some(w)) => AtomValue::String(cstr(&w).to_vec()),
                        Ok(None) => return Ok(None),
                        Err(e) => return Err(e),
                    }
                }
                47 => {
                    let env = match self.entries.get(&pid).and_then(|e| e.read.environ.clone()) {
                        Some(v) => v,
                        None => {
                            let v = match self.read_file(pid, "environ") {
                                Ok(()) => parse::chop(&self.scratch, true),
                                Err(_) => Vec::new(),
                            };
                            if let Some(e) = self.entries.get_mut(&pid) {
                                e.read.environ = Some(v.clone());
                            }
                            v
                        }
                    };
                    AtomValue::String(env)
                }
                _ => {
                    let Some(s) = self.stat(pid)? else { return Ok(None) };
                    let f = |k: usize| s.fields[k];
                    let ticks = |k: usize| f(k).wrapping_mul(1000) / hz;
                    match item {
                        1 => AtomValue::String(cstr(&s.cmd).to_vec()),
                        2 => AtomValue::String(vec![s.state]),
                        3 => num(ty, f(sf::PPID)),
                        4 => num(ty, f(sf::PGRP)),
                        5 => num(ty, f(sf::SESSION)),
                        6 => num(ty, f(sf::TTY)),
                        7 if (f(sf::TTY_PGRP) as i64) < 0 => return Ok(None),
                        7 => num(ty, f(sf::TTY_PGRP)),
                        8 => num(ty, f(sf::FLAGS)),
                        9 => num(ty, f(sf::MINFLT)),
                        10 => num(ty, f(sf::CMINFLT)),
                        11 => num(ty, f(sf::MAJFLT)),
                        12 => num(ty, f(sf::CMAJFLT)),
                        13 => num(ty, ticks(sf::UTIME)),
                        14 => num(ty, ticks(sf::STIME)),
                        15 => num(ty, ticks(sf::CUTIME)),
                        16 => num(ty, ticks(sf::CSTIME)),
                        17 => num(ty, f(sf::PRIORITY)),
                        18 => num(ty, f(sf::NICE)),
                        20 => num(ty, f(sf::IT_REAL_VALUE)),
                        21 => num(ty, ticks(sf::START_TIME)),
                        22 => num(ty, f(sf::VSIZE) / 1024),
                        23 => num(ty, kb(f(sf::RSS), page)),
                        24 => num(ty, f(sf::RSS_RLIM) / 1024),
                        25 => num(ty, f(sf::START_CODE)),
                        26 => num(ty, f(sf::END_CODE)),
                        27 => num(ty, f(sf::START_STACK)),
                        28 => num(ty, f(sf::ESP)),
                        29 => num(ty, f(sf::EIP)),
                        30 => num(ty, f(sf::SIGNAL)),
                        31 => num(ty, f(sf::BLOCKED)),
                        32 => num(ty, f(sf::SIGIGNORE)),
                        33 => num(ty, f(sf::SIGCATCH)),
                        34 => num(ty, f(sf::WCHAN)),
                        35 => num(ty, f(sf::NSWAP)),
                        36 => num(ty, f(sf::CNSWAP)),
                        37 => num(ty, f(sf::EXIT_SIGNAL)),
                        38 => num(ty, f(sf::PROCESSOR)),
                        39 => AtomValue::String(self.tty_name(f(sf::TTY))),
                        42 => num(ty, f(sf::RT_PRIORITY)),
                        43 => num(ty, f(sf::POLICY)),
                        44 => num(ty, ticks(sf::DELAYACCT)),
                        45 => num(ty, ticks(sf::GUEST)),
                        46 => num(ty, ticks(sf::CGUEST)),
                        48 => AtomValue::String(policy_name(f(sf::POLICY) as i32).as_bytes().to_vec()),
                        _ => return Err(PmError::PM_ERR_PMID),
                    }
                }
            },
            C_STATM if item == 7 => {
                let r = cached!(maps, "maps", |b: &[u8]| Some(parse::chop(b, false)));
                match r {
                    Ok(v) => AtomValue::String(v.unwrap_or_default()),
                    Err(PmError::PM_ERR_VALUE) => AtomValue::String(Vec::new()),
                    Err(e) => return Err(e),
                }
            }
            C_STATM => {
                let Some(m) = cached!(statm, "statm", |b: &[u8]| Some(parse::statm(b)))? else { return Ok(None) };
                match m.get(item as usize) {
                    Some(&v) => num(ty, kb(v, page)),
                    None => return Err(PmError::PM_ERR_PMID),
                }
            }
            C_STATUS => {
                let Some(s) = cached!(status, "status", |b: &[u8]| Some(Arc::new(parse::status(b))))? else {
                    return Ok(None);
                };
                return self.status_value(&s, ty, item);
            }
            C_SCHEDSTAT => {
                let Some(v) = cached!(schedstat, "schedstat", |b: &[u8]| Some(parse::schedstat(b)))? else {
                    return Ok(None);
                };
                match v.get(item as usize) {
                    Some(&x) => num(ty, x),
                    None => return Err(PmError::PM_ERR_PMID),
                }
            }
            C_IO => {
                let Some(v) = cached!(io, "io", |b: &[u8]| Some(parse::io(b)))? else { return Ok(None) };
                match v.get(item as usize) {
                    Some(&x) => num(ty, x),
                    None => return Err(PmError::PM_ERR_PMID),
                }
            }
            C_SMAPS => {
                // (any failure to read it is "not supported here")
                let v = match cached!(smaps, "smaps_rollup", |b: &[u8]| Some(parse::smaps(b))) {
                    Ok(Some(v)) => v,
                    Ok(None) => return Ok(None),
                    Err(_) => return Err(PmError::PM_ERR_APPVERSION),
                };
                match v.get(item as usize) {
                    Some(&x) => num(ty, x),
                    None => return Err(PmError::PM_ERR_PMID),
                }
            }
            C_FD => {
                let r = match self.entries.get(&pid).and_then(|e| e.read.fd) {
                    Some(r) => r,
                    None => {
                        let r = self.fd_count(pid);
                        if let Some(e) = self.entries.get_mut(&pid) {
                            e.read.fd = Some(r);
                        }
                        r
                    }
                };
                let Some(n) = r? else { return Ok(None) };
                match item {
                    0 => AtomValue::U32(n),
                    _ => return Err(PmError::PM_ERR_PMID),
                }
            }
            C_CGROUP => {
                let Some((groups, cid)) = cached!(cgroup, "cgroup", |b: &[u8]| Some(parse::cgroups(b)))? else {
                    return Ok(None);
                };
                self.string_index(&cid);
                self.string_index(&groups);
                match item {
                    0 => AtomValue::String(groups),
                    1 => AtomValue::String(cid),
                    _ => return Err(PmError::PM_ERR_PMID),
                }
            }
            C_LABEL => {
                let Some(l) = cached!(label, "attr/current", |b: &[u8]| Some(parse::chop(b, false)))? else {
                    return Ok(None);
                };
                match item {
                    0 => AtomValue::String(l),
                    _ => return Err(PmError::PM_ERR_PMID),
                }
            }
            C_OOM => {
                let Some(v) = cached!(oom, "oom_score", |b: &[u8]| Some(parse::strtoul(b, 0).0 as u32))? else {
                    return Ok(None);
                };
                match item {
                    0 => AtomValue::U32(v),
                    _ => return Err(PmError::PM_ERR_PMID),
                }
            }
            C_CWD | C_EXE => {
                if item != 0 {
                    return Err(PmError::PM_ERR_PMID);
                }
                let link = self
                    .entries
                    .get(&pid)
                    .and_then(|e| if cluster == C_CWD { &e.read.cwd } else { &e.read.exe }.clone());
                let v = match link {
                    Some(v) => v,
                    None => {
                        let base = if cluster == C_CWD { "cwd" } else { "exe" };
                        let v = self
                            .files
                            .read_link(&format!("/proc/{pid}/{base}"))
                            .map(String::into_bytes)
                            .unwrap_or_default();
                        self.string_index(&v);
                        if let Some(e) = self.entries.get_mut(&pid) {
                            if cluster == C_CWD {
                                e.read.cwd = Some(v.clone());
                            } else {
                                e.read.exe = Some(v.clone());
                            }
                        }
                        v
                    }
                };
                AtomValue::String(v)
            }
            C_AUTOGROUP => {
                if !self.autogroup_enabled() {
                    return Ok(None);
                }
                let r = cached!(autogroup, "autogroup", |b: &[u8]| Some(parse::autogroup(b)));
                let (id, nice) = match r {
                    Ok(Some(v)) => v,
                    Ok(None) => return Ok(None),
                    Err(PmError::PM_ERR_VALUE) => (0, 0),
                    Err(e) => return Err(e),
                };
                match item {
                    1 => AtomValue::U32(id),
                    2 => AtomValue::I32(nice),
                    _ => return Err(PmError::PM_ERR_PMID),
                }
            }
            _ => return Err(PmError::PM_ERR_PMID),
        }))
    }

    fn status_value(&mut self, s: &parse::Status, ty: MetricType, item: u32) -> Got<AtomValue> {
        let text = |v: &Option<Vec<u8>>| v.clone().map(AtomValue::String).ok_or(PmError::PM_ERR_APPVERSION);
        Ok(Some(match item {
            0..=3 => num(ty, s.uid[item as usize]),
            // (the PMDA serves the real user id as proc.id.gid)
            4 => num(ty, s.uid[0]),
            5..=7 => num(ty, s.gid[item as usize - 4]),
            8..=11 => AtomValue::String(self.user_name(s.uid[item as usize - 8] as u32)),
            12..=15 => AtomValue::String(self.group_name(s.gid[item as usize - 12] as u32)),
            16..=19 => AtomValue::String(s.sig[item as usize - 16].clone()),
            20 => num(ty, s.vm[1]),
            21 => num(ty, s.vm[2]),
            22 => num(ty, s.vm[5]),
            23 => num(ty, s.vm[6]),
            24 => num(ty, s.vm[7]),
            25 => num(ty, s.vm[8]),
            26 => num(ty, s.vm[9]),
            27 => num(ty, s.vm[11]),
            28 => num(ty, s.threads),
            29 => num(ty, s.ctxsw[0]),
            30 => num(ty, s.ctxsw[1]),
            31 => text(&s.cpus_allowed)?,
            // (the PMDA serves the index of the text in its dictionary)
            32 => match &s.ngid {
                Some(t) => AtomValue::U32(self.string_index(t)),
                None => return Err(PmError::PM_ERR_APPVERSION),
            },
            33 => num(ty, s.vm[0]),
            34 => num(ty, s.vm[3]),
            35 => num(ty, s.vm[4]),
            36 => num(ty, s.vm[10]),
            37..=40 => text(&s.ns[item as usize - 37])?,
            41 => num(ty, s.tgid.ok_or(PmError::PM_ERR_APPVERSION)?),
            42 => num(ty, s.envid.ok_or(PmError::PM_ERR_APPVERSION)?),
            43 => num(ty, (s.vm[5] as u32 as u64) + (s.vm[11] as u32 as u64)),
            44 => {
                let real = (s.vm[5] as u32 as u64) + (s.vm[11] as u32 as u64);
                num(ty, real.saturating_sub(s.vm[9] as u32 as u64))
            }
            _ => return Err(PmError::PM_ERR_PMID),
        }))
    }

    fn fd_count(&mut self, pid: i32) -> Got<u32> {
        let mut r = Err(std::io::Error::from_raw_os_error(2));
        if self.threads() {
            r = self.files.count(&format!("/proc/{pid}/task/{pid}/fd"), &|_| true);
        }
        if r.is_err() {
            r = self.files.count(&format!("/proc/{pid}/fd"), &|_| true);
        }
        match r {
            Ok(n) => Ok(Some(n as u32)),
            Err(e) => map_err(&e).map(|_| None),
        }
    }

    fn user_name(&mut self, uid: u32) -> Vec<u8> {
        let users = self.users.get_or_insert_with(|| id_names("/etc/passwd"));
        users.get(&uid).cloned().unwrap_or_default()
    }

    fn group_name(&mut self, gid: u32) -> Vec<u8> {
        let groups = self.groups.get_or_insert_with(|| id_names("/etc/group"));
        groups.get(&gid).cloned().unwrap_or_default()
    }

    /// The terminal of a `tty_nr`, as the PMDA names it: from the drivers
    /// /proc/tty/drivers lists, else the device found in /dev/pts or
    /// /dev, else `?`.
    fn tty_name(&mut self, dev: u64) -> Vec<u8> {
        if dev == 0 {
            return b"?".to_vec();
        }
        let files = &self.files;
        let ttys = self.ttys.get_or_insert_with(|| tty_drivers(&files.read("/proc/tty/drivers").unwrap_or_default()));
        let dev = dev as u32;
        let (maj, min) = ((dev >> 8) & 0xfff, (dev & 0xff) | ((dev >> 12) & 0xfff00));
        if let Some((lo, hi, path)) = ttys.iter().find(|t| t.0 == maj).map(|t| (t.1, t.2, &t.3)) {
            if min == lo && min == hi {
                return path.clone();
            }
            if (lo..=hi).contains(&min) {
                let mut p = path.clone();
                p.extend_from_slice(format!("/{min}").as_bytes());
                return p;
            }
        }
        for dir in ["/dev/pts", "/dev"] {
            if let Some(n) = char_device(dir, u64::from(dev)) {
                return n;
            }
        }
        b"?".to_vec()
    }
}

/// The text before a string's first NUL.
fn cstr(s: &[u8]) -> &[u8] {
    &s[..memchr::memchr(0, s).unwrap_or(s.len())]
}

/// `proc.psinfo.psargs`: the name after its first space.
fn psargs(name: &[u8]) -> &[u8] {
    memchr::memchr(b' ', name).map_or(&[][..], |i| &name[i + 1..])
}

/// A scheduling policy's name as the PMDA spells it.
fn policy_name(policy: i32) -> &'static str {
    match policy {
        0 => "NORMAL",
        1 => "FIFO",
        2 => "RR",
        3 => "BATCH",
        5 => "IDLE",
        6 => "DEADLN",
        _ => "?",
    }
}

/// The names of /etc/passwd or /etc/group by identifier (the first line
/// of an identifier wins, as `getpwuid` finds it).
pub(crate) fn id_names(path: &str) -> HashMap<u32, Vec<u8>> {
    let mut out = HashMap::new();
    let text = std::fs::read(path).unwrap_or_default();
    for line in text.split(|&c| c == b'\n') {
        let mut f = line.split(|&c| c == b':');
        let (Some(name), Some(_), Some(id)) = (f.next(), f.next(), f.next()) else { continue };
        if let Some(id) = std::str::from_utf8(id).ok().and_then(|s| s.parse::<u32>().ok()) {
            out.entry(id).or_insert_with(|| name.to_vec());
        }
    }
    out
}

/// /proc/tty/drivers: (major, first minor, last minor, device path
/// without `/dev/`), stopping at the first line that does not parse.
fn tty_drivers(text: &[u8]) -> Vec<TtyDriver> {
    let mut out = Vec::new();
    for line in text.split(|&c| c == b'\n').filter(|l| !l.is_empty()) {
        let w: Vec<&[u8]> = line.split(|c| c.is_ascii_whitespace()).filter(|w| !w.is_empty()).collect();
        let [_, device, major, range, _, ..] = w[..] else { break };
        let Some(major) = std::str::from_utf8(major).ok().and_then(|m| m.parse().ok()) else { break };
        let (lo, end) = parse::strtoul(range, 0);
        let hi = if range.get(end) == Some(&b'-') { parse::strtoul(range, end + 1).0 } else { lo };
        let path = device.strip_prefix(b"/dev/").unwrap_or(device).to_vec();
        out.push((major, lo as u32, hi as u32, path));
    }
    out
}

/// The first character device in `dir` (of this machine) that is `dev`,
/// named without `/dev/`.
fn char_device(dir: &str, dev: u64) -> Option<Vec<u8>> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let name = e.file_name();
        if name.as_encoded_bytes().first() == Some(&b'.') {
            continue;
        }
        let path = e.path();
        let Ok(m) = std::fs::metadata(&path) else { continue };
        if m.file_type().is_char_device() && m.rdev() == dev {
            return Some(path.as_os_str().as_encoded_bytes().get(5..)?.to_vec());
        }
    }
    None
}

#[cfg(test)]
mod tests;
