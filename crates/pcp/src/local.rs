//! The local side of a context (`PM_CONTEXT_LOCAL`): metrics read from
//! this machine's /proc and /sys by the process itself, with no pmcd.
//!
//! PCP runs the DSO PMDAs named in pmcd's configuration inside the client
//! for a local context. pcp-rs has its own agents instead, built in (each
//! a [`LocalAgent`], consulted by a metric's domain):
//!
//! - `linux` (domain 60): every metric of the Linux PMDA, from
//!   `pcp_linux`, under the PMDA's names, PMIDs, instance domains, help
//!   texts and labels;
//! - `proc` (domain 3): the proc PMDA's per-process and control group
//!   metrics, from `pcp_linux::proc`, with its instance names and labels.
//!
//! Metrics of any other domain are `PM_ERR_NOAGENT` ("No PMCD agent for
//! domain of request"), as they are in PCP for a PMDA that is not loaded,
//! and so are those of an agent taken out of the table with
//! `pmSpecLocalPMDA` (see [`Agents`]).
//!
//! The names of a local context are libpcp's default name space
//! (`$PMNS_DEFAULT`, else `$PCP_VAR_DIR/pmns/root`) when that file can be
//! read, as in PCP; on a machine without PCP there is none, and the
//! context names exactly the metrics it serves (see [`LocalNames`]).

use crate::context::{Instances, TextLevel};
use crate::profile::Profile;
use crate::source::MetricSource;
use pcp_core::debug::{DebugFlag, Trace};
use pcp_core::labels::{add_labels, flags, parse_label_set, LabelSet};
use pcp_core::{Desc, FetchResult, InDom, PmError, PmId, PmResult, Timestamp, Value, ValueSet};
use pcp_linux::proc::{ProcOptions, ProcSource};
use pcp_linux::{Files, LinuxSource, RootFiles, LINUX_DOMAIN, PROC_DOMAIN};
use pcp_pmns::Pmns;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// The agents pcp-rs has built in, by domain, with the name their domain
/// labels give them (libpcp's `{"agent":NAME}`).
const BUILT_IN: [(u32, &str); 2] = [(LINUX_DOMAIN, "linux"), (PROC_DOMAIN, "proc")];

/// `MAXMACHINEIDLEN`: the longest machine identifier libpcp reads.
const MAXMACHINEIDLEN: usize = 64;

/// One entry of the local agent table: a domain (or none, once deleted)
/// with the DSO path and initialisation routine a spec named.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Agent {
    domain: Option<u32>,
    path: Option<String>,
    init: Option<String>,
    /// One of the table's first entries, always there to be "loaded".
    builtin: bool,
}

/// An agent of the table that `__pmConnectLocal` "loaded": its domain and
/// DSO path, as its end-of-context notice names them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Loaded {
    domain: u32,
    path: String,
}

/// The table of agents of a local context, as `pmSpecLocalPMDA` edits it
/// (`pminfo -K`). It starts with the built-in agents. pcp-rs loads no PMDA
/// code: an entry added for a built-in agent's domain brings that agent
/// back when its DSO file is there (PCP would load it; it is missing, the
/// context warns as PCP does), and an entry for any other domain serves
/// nothing.
///
/// Under `-Dcontext` its changes are traced as libpcp's `__pmLocalPMDA`
/// traces them. libpcp fills its table from pmcd's configuration file
/// at the first change (or connection); pcp-rs's built-in agents are
/// traced as added then, without the lines about that file.
#[doc(alias = "pmSpecLocalPMDA")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Agents {
    table: Vec<Agent>,
    /// Whether the built-in agents have been "added" (libpcp's table is
    /// built): at the first change or connection.
    built: bool,
}

impl Default for Agents {
    /// The built-in agents, each under the DSO path and routine PCP would
    /// load it from (`$PCP_PMDAS_DIR/NAME/pmda_NAME.so`, `NAME_init`).
    fn default() -> Agents {
        let dir = pmdas_dir();
        let agent = |&(d, name): &(u32, &str)| Agent {
            domain: Some(d),
            path: Some(format!("{dir}/{name}/pmda_{name}.so")),
            init: Some(format!("{name}_init")),
            builtin: true,
        };
        Agents { table: BUILT_IN.iter().map(agent).collect(), built: false }
    }
}

/// A stand-in for the address of the agent table's first entry (libpcp
/// prints each entry's; QA's filters take any).
const TABLE_ADDRESS: u64 = 0x5600_000d_5350;
/// The size of a table entry (libpcp's `__pmDSO`).
const ENTRY_SIZE: u64 = 0x98;

/// `PM_LOCAL_ADD`, `PM_LOCAL_DEL`, `PM_LOCAL_CLEAR`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Add,
    Del,
    Clear,
}

/// A parsed `-K` spec: the operation, domain, DSO path and routine.
type Spec = (Op, Option<u32>, Option<String>, Option<String>);

impl Agents {
    /// Connect the agents as libpcp's `__pmConnectLocal` does: the domains
    /// served, and the warnings about DSO files that are not there.
    #[cfg(test)]
    fn connect(&self, pmdas_dir: &str) -> (Vec<u32>, Vec<u8>) {
        let (loaded, warnings) = self.connect_traced(pmdas_dir, &Trace::off());
        (served_domains(&loaded), warnings)
    }

    /// Connect the agents as libpcp's `__pmConnectLocal` does: the agents
    /// "loaded", and the warnings about DSO files that are not there
    /// (written to `trace` in turn with what it traces under
    /// `-Dcontext`: the table filled first, then for each agent loaded
    /// the socket its initialisation opens, descriptors from 3 up).
    fn connect_traced(&self, pmdas_dir: &str, trace: &Trace) -> (Vec<Loaded>, Vec<u8>) {
        let traced = trace.on(DebugFlag::Context);
        // (-Dconfig: libpcp stops looking things up without this one)
        let configured =
            !trace.on(DebugFlag::Config) || crate::config::lookup_optional("PCP_PMDAS_DIR", trace).is_some();
        if !self.built {
            self.clone().build_configured(trace, configured);
        }
        let (mut loaded, mut warnings) = (Vec::new(), Vec::new());
        for a in &self.table {
            let Some(domain) = a.domain else { continue };
            let name = a.path.as_deref().unwrap_or("(null)");
            if !a.builtin {
                let exists = |p: &str| Path::new(p).exists();
                let found = exists(name)
                    || exists(&format!("{pmdas_dir}/{name}"))
                    || exists(&format!("{pmdas_dir}/{name}.so"))
                    || exists(&format!("{name}.so"));
                if !found {
                    let w = format!("__pmConnectLocal: Warning: cannot find DSO at \"{name}.so\" or \"{name}\"\n");
                    if traced {
                        trace.write_bytes(w.as_bytes());
                    } else {
                        warnings.extend_from_slice(w.as_bytes());
                    }
                    continue;
                }
            }
            if BUILT_IN.iter().any(|&(d, _)| d == domain) {
                if configured {
                    trace_init_lookups(domain, trace);
                }
                if traced {
                    let fd = 3 + loaded.len() as i32;
                    trace.write(format_args!("__pmSetSocketIPC: fd={fd}\n"));
                    trace.write_bytes(trace.ipc_set(fd, false, true).as_bytes());
                    trace.write_bytes(b"pmWhichContext() -> 0, cur=0\n");
                }
                loaded.push(Loaded { domain, path: name.to_string() });
            }
        }
        (loaded, warnings)
    }

    /// Fill the table as libpcp does before its first change (the
    /// built-in agents added one by one), tracing each addition.
    fn build(&mut self, trace: &Trace) {
        self.build_configured(trace, true);
    }

    /// [`Agents::build`], making the configuration look-ups libpcp makes
    /// for it (`-Dconfig`) only if `configured` (none after a failed
    /// look-up before it).
    fn build_configured(&mut self, trace: &Trace, configured: bool) {
        self.built = true;
        if configured && trace.on(DebugFlag::Config) {
            // where the DSOs are and the pmcd.conf naming them (our agents
            // are built in: the file is not read)
            if crate::config::lookup_optional("PCP_PMDAS_DIR", trace).is_some() {
                let _ = crate::config::lookup_optional("PCP_PMCDCONF_PATH", trace);
            }
        }
        if trace.on(DebugFlag::Context) {
            let mut text = Vec::new();
            for (i, a) in self.table.iter().enumerate() {
                trace_op(&mut text, Op::Add, a.domain, a.path.as_deref(), a.init.as_deref());
                dump(&self.table[..=i], &mut text);
            }
            trace.write_bytes(&text);
        }
    }

    /// `pmSpecLocalPMDA`: apply one `-K` spec, `add,DOMAIN,PATH,INIT`,
    /// `del,DOMAIN[,PATH]` (or `del,,PATH`) or `clear`; `Err` carries the
    /// message libpcp returns.
    #[doc(alias = "pmSpecLocalPMDA")]
    pub fn apply_spec(&mut self, spec: &str) -> Result<(), String> {
        self.apply_spec_traced(spec, &Trace::off())
    }

    /// [`Agents::apply_spec`], tracing the change into `trace` as libpcp's
    /// `__pmLocalPMDA` does under `-Dcontext` (the operation, then the
    /// table; the built-in agents added first at the first change).
    #[doc(alias = "__pmLocalPMDA")]
    pub fn apply_spec_traced(&mut self, spec: &str, trace: &Trace) -> Result<(), String> {
        let (op, domain, path, init) = parse_spec(spec)?;
        let traced = trace.on(DebugFlag::Context);
        let mut text = Vec::new();
        if traced {
            trace_op(&mut text, op, domain, path.as_deref(), init.as_deref());
            trace.write_bytes(&std::mem::take(&mut text));
        }
        if op != Op::Clear && !self.built {
            self.build(trace);
        }
        let done = match op {
            Op::Clear => {
                self.table.clear();
                self.built = true;
                Ok(())
            }
            Op::Add => {
                self.table.push(Agent { domain, path, init, builtin: false });
                Ok(())
            }
            Op::Del => {
                let mut found = false;
                for a in &mut self.table {
                    if (domain.is_some() && a.domain == domain) || (path.is_some() && a.path == path) {
                        a.domain = None;
                        found = true;
                    }
                }
                if found {
                    Ok(())
                } else {
                    Err(PmError::PM_ERR_INDOM)
                }
            }
        };
        if traced {
            if let Err(e) = done {
                let _ = writeln!(text, "__pmLocalPMDA -> {e}");
            }
            dump(&self.table, &mut text);
            trace.write_bytes(&text);
        }
        done.map_err(|e| format!("__pmLocalPMDA: {e}"))
    }
}

/// The configuration look-ups (`-Dconfig`) the PMDA of built-in agent
/// `domain` makes as libpcp initialises its DSO: the Linux PMDA's help
/// text directory and instance caches; the proc PMDA's help text and
/// hotproc configuration directories, and its process accounting files.
fn trace_init_lookups(domain: u32, trace: &Trace) {
    use crate::config::{lookup, lookup_optional};
    if !trace.on(DebugFlag::Config) {
        return;
    }
    if domain == LINUX_DOMAIN {
        let _ = lookup("PCP_PMDAS_DIR", trace);
        let _ = lookup_optional("PCP_VAR_DIR", trace);
    } else if domain == PROC_DOMAIN {
        let _ = lookup("PCP_PMDAS_DIR", trace);
        let _ = lookup("PCP_PMDAS_DIR", trace);
        let _ = lookup_optional("PCP_PACCT_SYSTEM_PATH", trace);
        let _ = lookup_optional("PCP_VAR_DIR", trace);
        let _ = lookup_optional("PCP_VAR_DIR", trace);
    }
}

/// libpcp's dump of the table `entries` (`Local Context PMDA Table`).
fn dump(entries: &[Agent], out: &mut Vec<u8>) {
    out.extend_from_slice(b"Local Context PMDA Table");
    if entries.is_empty() {
        out.extend_from_slice(b" ... empty");
    }
    out.push(b'\n');
    for (i, a) in entries.iter().enumerate() {
        let _ = writeln!(
            out,
            "{:#x} [{i}] domain={} name={} init={} handle=(nil)",
            TABLE_ADDRESS + i as u64 * ENTRY_SIZE,
            a.domain.map_or(-1, |d| d as i64),
            a.path.as_deref().unwrap_or("(null)"),
            a.init.as_deref().unwrap_or("(null)"),
        );
    }
}

/// libpcp's line for a change to the agent table (`__pmLocalPMDA`'s
/// arguments: a domain of -1 and null names for none).
fn trace_op(out: &mut Vec<u8>, op: Op, domain: Option<u32>, path: Option<&str>, init: Option<&str>) {
    let op = match op {
        Op::Add => "ADD",
        Op::Del => "DEL",
        Op::Clear => "CLEAR",
    };
    let _ = writeln!(
        out,
        "__pmLocalPMDA(op={op}, domain={}, name={}, init={})",
        domain.map_or(-1, i64::from),
        path.unwrap_or("(null)"),
        init.unwrap_or("(null)")
    );
}

/// The domains the `loaded` agents serve, each once.
fn served_domains(loaded: &[Loaded]) -> Vec<u32> {
    let mut served = Vec::new();
    for l in loaded {
        if !served.contains(&l.domain) {
            served.push(l.domain);
        }
    }
    served
}

/// `pmSpecLocalPMDA`'s parsing of a spec; `Err` carries its message.
fn parse_spec(spec: &str) -> Result<Spec, String> {
    let (op, rest) = if let Some(r) = spec.strip_prefix("add") {
        (Op::Add, r)
    } else if let Some(r) = spec.strip_prefix("del") {
        (Op::Del, r)
    } else if let Some(r) = spec.strip_prefix("clear") {
        if !r.is_empty() {
            return Err("unexpected text after clear op in spec".into());
        }
        return Ok((Op::Clear, None, None, None));
    } else {
        return Err("bad op in spec".into());
    };
    let Some(rest) = rest.strip_prefix(',') else { return Err("expected , after op in spec".into()) };
    if rest.is_empty() {
        return Err("missing domain in spec".into());
    }
    let mut domain = None;
    let after_domain = if let Some(r) = rest.strip_prefix(',') {
        if op != Op::Del {
            return Err("missing domain in spec".into());
        }
        r
    } else {
        let (d, r) = strtol(rest);
        if !(r.is_empty() || r.starts_with(',')) || !(0..=510).contains(&d) {
            return Err("bad domain in spec".into());
        }
        domain = Some(d as u32);
        r.strip_prefix(',').unwrap_or(r)
    };
    let (mut path, mut init) = (None, None);
    if let Some(r) = after_domain.strip_prefix(',') {
        // no path: an init routine alone
        if !r.is_empty() {
            init = Some(r.to_string());
        }
    } else if !after_domain.is_empty() {
        match after_domain.split_once(',') {
            Some((p, i)) => {
                path = Some(p.to_string());
                if !i.is_empty() {
                    init = Some(i.to_string());
                } else if op != Op::Del {
                    return Err("missing init-routine in spec".into());
                }
            }
            None if op != Op::Del => return Err("missing init-routine in spec".into()),
            None => path = Some(after_domain.to_string()),
        }
    } else if op != Op::Del {
        return Err("missing dso-path in spec".into());
    }
    if domain.is_none() && path.is_none() {
        return Err("missing domain and dso-path in spec".into());
    }
    Ok((op, domain, path, init))
}

/// `$PCP_PMDAS_DIR`.
fn pmdas_dir() -> String {
    crate::config::get("PCP_PMDAS_DIR").unwrap_or_else(|| "/var/lib/pcp/pmdas".into())
}

/// C `(int)strtol(s, &end, 10)`: the value (saturated to a 64-bit long,
/// then cut to an `int`) and the text after it.
fn strtol(s: &str) -> (i64, &str) {
    let (v, used) = pcp_core::support::strtod::strtol_prefix(s.as_bytes());
    // (`used` ends after ASCII digits: a character boundary)
    (i64::from(v as i32), s.get(used..).unwrap_or_default())
}

/// Where a local context's names come from.
#[derive(Debug, Default)]
pub enum LocalNames {
    /// libpcp's default name space file when it can be read, else the
    /// metrics served ([`LocalNames::BuiltIn`]).
    #[default]
    Default,
    /// Exactly the metrics served, in their agents' name-space order.
    BuiltIn,
    /// A name space the application loaded itself
    /// (`pmLoadASCIINameSpace` before the context, `pminfo -n`).
    Given(Pmns),
}

/// How to open a local context: where its files are, the machine's
/// parameters, its agents and names.
#[derive(Debug)]
pub struct LocalSpec {
    /// The files the metrics are read from (`/` for this machine).
    pub files: RootFiles,
    /// The machine's parameters and the PMDA instance caches' directory.
    pub linux: pcp_linux::Options,
    /// The agent table.
    pub agents: Agents,
    /// The names.
    pub names: LocalNames,
    /// `$PCP_SYSCONF_DIR`: the context labels' `labels` directory is
    /// found here (`None`: no such labels).
    pub sysconf_dir: Option<PathBuf>,
    /// `$PCP_PMDAS_DIR`, where agents added by a spec are looked for.
    pub pmdas_dir: String,
    /// The files the proc agent reads processes from (its
    /// `$PROC_STATSPATH`), apart from the Linux agent's.
    pub proc_files: RootFiles,
    /// The proc agent's settings.
    pub proc: ProcOptions,
}

impl LocalSpec {
    /// This machine, as PCP's local context sees it: files under `/`, the
    /// machine's parameters, the instance numbering PCP's PMDAs saved
    /// under `$PCP_VAR_DIR/config/pmda`, libpcp's default names and
    /// `$PCP_SYSCONF_DIR` (from the environment or `/etc/pcp.conf`).
    pub fn system() -> LocalSpec {
        let mut linux = pcp_linux::Options::from_system();
        linux.pmda_cache_dir = Some(crate::config::var_dir().join("config").join("pmda"));
        LocalSpec {
            files: RootFiles::new("/"),
            linux,
            agents: Agents::default(),
            names: LocalNames::Default,
            sysconf_dir: Some(crate::config::get("PCP_SYSCONF_DIR").unwrap_or_else(|| "/etc/pcp".into()).into()),
            pmdas_dir: pmdas_dir(),
            proc_files: RootFiles::new("/"),
            proc: ProcOptions::from_system(),
        }
    }

    /// A snapshot of a machine's files under `root` (see
    /// [`RootFiles::snapshot`]): this machine's parameters, no saved
    /// instance numbering, the built-in names and no configured labels,
    /// so nothing outside `root` is read but the process's user and
    /// group.
    pub fn snapshot(root: impl Into<PathBuf>) -> LocalSpec {
        let root = root.into();
        let mut linux = pcp_linux::Options::from_system();
        linux.pmda_cache_dir = None;
        LocalSpec {
            proc_files: RootFiles::snapshot(&root),
            proc: ProcOptions::from_system(),
            files: RootFiles::snapshot(root),
            linux,
            agents: Agents::default(),
            names: LocalNames::BuiltIn,
            sysconf_dir: None,
            pmdas_dir: pmdas_dir(),
        }
    }
}

/// One agent pcp-rs has built in: the metrics of the PMDA domains it
/// serves, as that PMDA serves them. The local context consults the agent
/// of a metric's (or instance domain's) domain; an agent is added by
/// implementing this and giving it a row in [`LocalSource::open`]'s table
/// of agents (`agents_over`).
pub trait LocalAgent: Send + std::fmt::Debug {
    /// The domains it serves.
    fn domains(&self) -> &'static [u32];
    /// `pmLookupDesc`.
    fn desc(&self, pmid: PmId) -> PmResult<Desc>;
    /// `pmLookupText` of a metric.
    fn text(&self, pmid: PmId, level: TextLevel) -> PmResult<Vec<u8>>;
    /// `pmLookupInDomText`.
    fn indom_text(&self, indom: InDom, level: TextLevel) -> PmResult<Vec<u8>>;
    /// `pmGetInDom`: the instances now, in the agent's order.
    fn instances(&mut self, indom: InDom) -> PmResult<Vec<(i32, Vec<u8>)>>;
    /// The instances as of the last refresh with each one's label set
    /// (JSON), for `pmGetInstancesLabels`.
    fn instance_labels(&mut self, indom: InDom) -> PmResult<Vec<(i32, Option<String>)>>;
    /// An instance domain's label set (JSON), if it has one.
    fn indom_labels(&self, indom: InDom) -> Option<String>;
    /// A metric's label set (JSON), if it has one.
    fn item_labels(&self, pmid: PmId) -> Option<String>;
    /// `pmFetch` of metrics of its domains at time `now`.
    fn fetch(&mut self, pmids: &[PmId], now: Timestamp, wanted: &dyn Fn(InDom, i32) -> bool) -> FetchResult;
    /// `pmStore` of one value into a metric of its domains (the PMDAs
    /// built in take none but the proc PMDA's settings).
    fn store(&mut self, _pmid: PmId, _value: &Value) -> PmResult<()> {
        Err(PmError::PM_ERR_PERMISSION)
    }
    /// A copy with the same state (instance numbering included).
    fn dup(&self) -> Box<dyn LocalAgent>;
}

/// The Linux PMDA's metrics (domain 60).
impl LocalAgent for LinuxSource<RootFiles> {
    fn domains(&self) -> &'static [u32] {
        &[LINUX_DOMAIN]
    }

    fn desc(&self, pmid: PmId) -> PmResult<Desc> {
        Ok(pcp_linux::metric_by_pmid(pmid).ok_or(PmError::PM_ERR_PMID)?.desc())
    }

    fn text(&self, pmid: PmId, level: TextLevel) -> PmResult<Vec<u8>> {
        let m = pcp_linux::metric_by_pmid(pmid).ok_or(PmError::PM_ERR_PMID)?;
        Ok(m.text(level == TextLevel::Help).as_bytes().to_vec())
    }

    fn indom_text(&self, indom: InDom, level: TextLevel) -> PmResult<Vec<u8>> {
        let text = match level {
            TextLevel::Help => pcp_linux::indom_help(indom),
            _ => pcp_linux::indom_text(indom),
        };
        text.map(|t| t.as_bytes().to_vec()).ok_or(PmError::PM_ERR_TEXT)
    }

    fn instances(&mut self, indom: InDom) -> PmResult<Vec<(i32, Vec<u8>)>> {
        Ok(LinuxSource::instances(self, indom)?.into_iter().map(|(i, n)| (i, n.into_bytes())).collect())
    }

    fn instance_labels(&mut self, indom: InDom) -> PmResult<Vec<(i32, Option<String>)>> {
        LinuxSource::instance_labels(self, indom)
    }

    fn indom_labels(&self, indom: InDom) -> Option<String> {
        pcp_linux::labels::indom(indom).map(str::to_owned)
    }

    fn item_labels(&self, pmid: PmId) -> Option<String> {
        pcp_linux::labels::item(pmid).map(str::to_owned)
    }

    fn fetch(&mut self, pmids: &[PmId], now: Timestamp, wanted: &dyn Fn(InDom, i32) -> bool) -> FetchResult {
        LinuxSource::fetch(self, pmids, now, wanted)
    }

    fn dup(&self) -> Box<dyn LocalAgent> {
        Box::new(self.clone())
    }
}

/// The built-in agents over `spec`'s files, each with the domains it
/// serves. (The proc agent, when it has its own, is a row here.)
fn agents_over(spec: &LocalSpec) -> Vec<Box<dyn LocalAgent>> {
    vec![
        Box::new(LinuxSource::with_files(spec.files.clone(), spec.linux.clone())),
        Box::new(ProcSource::with_files(spec.proc_files.clone(), spec.proc.clone())),
    ]
}

/// The proc PMDA's metrics (domain 3): processes and control groups.
impl LocalAgent for ProcSource<RootFiles> {
    fn domains(&self) -> &'static [u32] {
        &[PROC_DOMAIN]
    }

    fn desc(&self, pmid: PmId) -> PmResult<Desc> {
        Ok(pcp_linux::proc::metric_by_pmid(pmid).ok_or(PmError::PM_ERR_PMID)?.desc())
    }

    fn text(&self, pmid: PmId, level: TextLevel) -> PmResult<Vec<u8>> {
        let m = pcp_linux::proc::metric_by_pmid(pmid).ok_or(PmError::PM_ERR_PMID)?;
        Ok(m.text(level == TextLevel::Help).as_bytes().to_vec())
    }

    fn indom_text(&self, indom: InDom, level: TextLevel) -> PmResult<Vec<u8>> {
        let text = pcp_linux::proc::indom_text(indom, level == TextLevel::Help);
        text.map(|t| t.as_bytes().to_vec()).ok_or(PmError::PM_ERR_TEXT)
    }

    fn instances(&mut self, indom: InDom) -> PmResult<Vec<(i32, Vec<u8>)>> {
        ProcSource::instances(self, indom)
    }

    fn instance_labels(&mut self, indom: InDom) -> PmResult<Vec<(i32, Option<String>)>> {
        ProcSource::instance_labels(self, indom)
    }

    fn indom_labels(&self, indom: InDom) -> Option<String> {
        pcp_linux::proc::indom_label(indom).map(str::to_owned)
    }

    fn item_labels(&self, _: PmId) -> Option<String> {
        None
    }

    fn fetch(&mut self, pmids: &[PmId], now: Timestamp, wanted: &dyn Fn(InDom, i32) -> bool) -> FetchResult {
        ProcSource::fetch(self, pmids, now, wanted)
    }

    fn store(&mut self, pmid: PmId, value: &Value) -> PmResult<()> {
        ProcSource::store(self, pmid, value)
    }

    fn dup(&self) -> Box<dyn LocalAgent> {
        Box::new(self.clone())
    }
}

/// The metrics source of a local context.
#[derive(Debug)]
pub struct LocalSource {
    /// The built-in agents, each behind a lock: reading instance domains
    /// updates an agent's instance caches, from behind the context's
    /// shared references.
    agents: Vec<Mutex<Box<dyn LocalAgent>>>,
    /// The domains with an agent.
    served: Vec<u32>,
    /// The table's agents "loaded", in its order.
    loaded: Vec<Loaded>,
    hostname: String,
    context_labels: Option<LabelSet>,
}

/// The current time, as a local fetch stamps its result.
pub fn now() -> Timestamp {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    Timestamp { sec: d.as_secs() as i64, nsec: d.subsec_nanos() }
}

/// The names of every metric served, for the built-in name space.
pub fn builtin_names() -> impl Iterator<Item = (&'static str, PmId)> {
    let linux = pcp_linux::metrics().iter().filter(|m| m.pmid.domain() != PROC_DOMAIN);
    linux.chain(pcp_linux::proc::metrics()).map(|m| (m.name, m.pmid))
}

/// Put the proc agent's names in place of the dynamic subtrees the name
/// space has for them (`proc.psinfo 3:*:*`, `hotproc.psinfo 3:*:*` ...),
/// as its agent expands them in PCP: every name under `proc` and
/// `hotproc`, in the agent's order.
pub fn graft_proc_names(pmns: &mut Pmns, src: &LocalSource) {
    if !src.serves(PROC_DOMAIN) {
        return;
    }
    let roots: Vec<&str> = [("proc", "proc.nprocs"), ("hotproc", "hotproc.nprocs")]
        .into_iter()
        .filter(|(_, leaf)| pmns.lookup(leaf).is_ok())
        .map(|(root, _)| root)
        .collect();
    if roots.is_empty() {
        return;
    }
    // (both subtrees at once: the name space is indexed after each change)
    let below: Vec<String> = roots.iter().flat_map(|root| pmns.traverse(root).unwrap_or_default()).collect();
    pmns.remove_names(below.iter().map(String::as_str));
    let under = |m: &&pcp_linux::MetricDef, root: &str| m.name.strip_prefix(root).is_some_and(|n| n.starts_with('.'));
    let names = roots.iter().flat_map(|root| pcp_linux::proc::metrics().iter().filter(move |m| under(m, root)));
    pmns.add_names(names.map(|m| (m.name, m.pmid)));
}

/// An agent's lock: a panic elsewhere cannot leave its caches half
/// updated in a way that matters more than losing them, so carry on.
fn lock(agent: &Mutex<Box<dyn LocalAgent>>) -> MutexGuard<'_, Box<dyn LocalAgent>> {
    agent.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A file's first line, without its line end.
fn first_line(files: &RootFiles, path: &str) -> Option<String> {
    let text = files.read(path).ok()?;
    let line = text.split(|&b| b == b'\n').next().unwrap_or_default();
    Some(String::from_utf8_lossy(line).into_owned())
}

impl LocalSource {
    /// Set up the agents over `spec`'s files (its names are the
    /// context's business), with the warnings libpcp prints for agents
    /// it cannot find.
    pub fn open(spec: &LocalSpec) -> (LocalSource, Vec<u8>) {
        LocalSource::open_traced(spec, &Trace::off())
    }

    /// [`LocalSource::open`], tracing into `trace` what libpcp's
    /// `__pmConnectLocal` traces under `-Dcontext` (the agent table
    /// filled if no change filled it, each agent's initialisation); the
    /// warnings then go to `trace` too, in their place among its lines.
    pub fn open_traced(spec: &LocalSpec, trace: &Trace) -> (LocalSource, Vec<u8>) {
        let files = spec.files.clone();
        // gethostname(2) is the kernel's host name, which /proc shows
        let hostname = first_line(&files, "/proc/sys/kernel/hostname")
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "localhost".into());
        let context_labels = context_labels(&files, &hostname, spec.sysconf_dir.as_deref());
        let (loaded, warnings) = spec.agents.connect_traced(&spec.pmdas_dir, trace);
        let src = LocalSource {
            agents: agents_over(spec).into_iter().map(Mutex::new).collect(),
            served: served_domains(&loaded),
            loaded,
            hostname,
            context_labels,
        };
        (src, warnings)
    }

    /// The agent serving `domain` (whether the table has it served or
    /// not).
    fn agent_of(&self, domain: u32) -> Option<MutexGuard<'_, Box<dyn LocalAgent>>> {
        self.agents.iter().map(lock).find(|a| a.domains().contains(&domain))
    }

    /// The agent serving `domain` if the agent table has it served, else
    /// `PM_ERR_NOAGENT`.
    fn served_agent(&self, domain: u32) -> PmResult<MutexGuard<'_, Box<dyn LocalAgent>>> {
        self.agent(domain)?;
        self.agent_of(domain).ok_or(PmError::PM_ERR_NOAGENT)
    }

    /// The host name (`pmGetContextHostName`): the machine's, as
    /// `gethostname` gives it.
    #[doc(alias = "pmGetContextHostName")]
    pub fn hostname(&self) -> &str {
        &self.hostname
    }

    /// `pmDupContext`: the same agents with the same state (instance
    /// numbering included), as a second local context of the process
    /// shares libpcp's DSO agents.
    #[doc(alias = "pmDupContext")]
    pub fn dup(&self) -> LocalSource {
        LocalSource {
            agents: self.agents.iter().map(|a| Mutex::new(lock(a).dup())).collect(),
            served: self.served.clone(),
            loaded: self.loaded.clone(),
            hostname: self.hostname.clone(),
            context_labels: self.context_labels.clone(),
        }
    }

    /// What libpcp's handler at the process's exit traces under
    /// `-Dcontext` (`EndLocalContext`, there once an agent was loaded):
    /// `pmWhichContext`'s answer (`current`, a handle or -1 for none),
    /// then each agent loaded, notified of that context's end.
    pub(crate) fn trace_exit(&self, trace: &Trace, current: i32) {
        if self.loaded.is_empty() || !trace.on(DebugFlag::Context) {
            return;
        }
        let which = if current < 0 { PmError::PM_ERR_NOCONTEXT.code() } else { current };
        let mut text = format!("pmWhichContext() -> {which}, cur={current}\n");
        for l in &self.loaded {
            text.push_str(&format!(
                "NotifyEndLocalContext: DSO PMDA {} ({}) notified of context {which} close\n",
                l.path, l.domain
            ));
        }
        trace.write_bytes(text.as_bytes());
    }

    /// How many of the table's agents were "loaded".
    pub(crate) fn loaded_count(&self) -> usize {
        self.loaded.len()
    }

    /// Does an agent serve `domain`?
    pub fn serves(&self, domain: u32) -> bool {
        self.served.contains(&domain)
    }

    fn agent(&self, domain: u32) -> PmResult<()> {
        if self.serves(domain) {
            Ok(())
        } else {
            Err(PmError::PM_ERR_NOAGENT)
        }
    }

    /// `pmLookupDesc`.
    #[doc(alias = "pmLookupDesc")]
    pub fn desc(&self, pmid: PmId) -> PmResult<Desc> {
        self.served_agent(pmid.domain())?.desc(pmid)
    }

    /// `pmLookupText`.
    #[doc(alias = "pmLookupText")]
    pub fn text(&self, pmid: PmId, level: TextLevel) -> PmResult<Vec<u8>> {
        self.served_agent(pmid.domain())?.text(pmid, level)
    }

    /// `pmLookupInDomText`.
    #[doc(alias = "pmLookupInDomText")]
    pub fn indom_text(&self, indom: InDom, level: TextLevel) -> PmResult<Vec<u8>> {
        self.served_agent(indom.domain())?.indom_text(indom, level)
    }

    /// `pmGetInDom`: the instances of `indom` now, in the agent's order.
    #[doc(alias = "pmGetInDom")]
    pub fn instances(&self, indom: InDom) -> PmResult<Instances> {
        let insts = self.served_agent(indom.domain())?.instances(indom)?;
        Ok(insts.into_iter().unzip())
    }

    /// `pmFetch` at time `now`: each metric's values (the instances
    /// `wanted` accepts), or its error; metrics of a domain without an
    /// agent are `PM_ERR_NOAGENT`.
    #[doc(alias = "pmFetch")]
    pub fn fetch(&self, pmids: &[PmId], now: Timestamp, wanted: &dyn Fn(InDom, i32) -> bool) -> FetchResult {
        // each agent fetches its metrics at once; the sets go back in
        // the order asked
        let mut sets: Vec<Option<ValueSet>> = vec![None; pmids.len()];
        for agent in &self.agents {
            let mut agent = lock(agent);
            let (at, mine): (Vec<usize>, Vec<PmId>) = pmids
                .iter()
                .enumerate()
                .filter(|(_, p)| self.serves(p.domain()) && agent.domains().contains(&p.domain()))
                .map(|(k, p)| (k, *p))
                .unzip();
            if mine.is_empty() {
                continue;
            }
            for (k, set) in at.into_iter().zip(agent.fetch(&mine, now, wanted).sets) {
                sets[k] = Some(set);
            }
        }
        let sets = pmids
            .iter()
            .zip(sets)
            .map(|(&pmid, set)| set.unwrap_or(ValueSet { pmid, values: Err(PmError::PM_ERR_NOAGENT) }))
            .collect();
        FetchResult { timestamp: now, sets }
    }

    /// `pmStore` in a local context: libpcp hands each value set (its
    /// first value only) to the agent of its domain in turn and stops at
    /// the first failure; a domain without an agent is `PM_ERR_NOAGENT`.
    /// Of the agents built in only the proc agent takes stores (its
    /// settings); the others answer `PM_ERR_PERMISSION`, as their PMDAs
    /// do for these metrics.
    #[doc(alias = "pmStore")]
    pub fn store(&self, result: &FetchResult) -> PmResult<()> {
        for set in &result.sets {
            let mut agent = self.served_agent(set.pmid.domain())?;
            let first = set.values.as_ref().ok().and_then(|v| v.first());
            // (a set without a value: the agent gets nothing it can use)
            let Some(first) = first else { return Err(PmError::PM_ERR_PERMISSION) };
            agent.store(set.pmid, &first.value)?;
        }
        Ok(())
    }

    /// The label sets of `kind` (one of `pcp_core::labels::flags`'s level
    /// bits) for `ident`, as libpcp and the agents give them.
    #[doc(alias = "pmGetLabels")]
    pub fn labels(&self, kind: u8, ident: u32) -> PmResult<Vec<LabelSet>> {
        if kind & flags::CONTEXT != 0 {
            return Ok(self.context_labels.iter().cloned().collect());
        }
        let domain = if kind & flags::DOMAIN != 0 {
            ident
        } else if kind & (flags::INDOM | flags::INSTANCES) != 0 {
            InDom(ident).domain()
        } else {
            PmId(ident).domain()
        };
        let mut agent = self.served_agent(domain)?;
        let one = |json: Option<String>, level: u8| -> PmResult<Vec<LabelSet>> {
            let Some(json) = json else { return Ok(Vec::new()) };
            let mut set = None;
            add_labels(&mut set, json.as_bytes(), level)?;
            Ok(set.into_iter().collect())
        };
        if kind & flags::DOMAIN != 0 {
            let name = BUILT_IN.iter().find(|(d, _)| *d == domain).map_or("", |(_, n)| n);
            return Ok(vec![parse_label_set(format!(r#"{{"agent":"{name}"}}"#).as_bytes(), flags::DOMAIN)?]);
        }
        if kind & flags::INDOM != 0 {
            one(agent.indom_labels(InDom(ident)), flags::INDOM)
        } else if kind & flags::ITEM != 0 {
            one(agent.item_labels(PmId(ident)), flags::ITEM)
        } else if kind & flags::INSTANCES != 0 {
            // one set an instance, without labels where the agent has none
            // (or where a name does not make JSON)
            let Ok(insts) = agent.instance_labels(InDom(ident)) else { return Ok(Vec::new()) };
            let mut out = Vec::with_capacity(insts.len());
            for (inst, json) in insts {
                let mut set =
                    json.and_then(|j| parse_label_set(j.as_bytes(), flags::INSTANCES).ok()).unwrap_or_default();
                set.inst = inst;
                out.push(set);
            }
            Ok(out)
        } else {
            Ok(Vec::new())
        }
    }
}

/// The built-in agents' metrics, read from the machine's files now.
impl MetricSource for LocalSource {
    fn desc(&self, pmid: PmId) -> PmResult<Desc> {
        LocalSource::desc(self, pmid)
    }

    fn instances(&self, indom: InDom, _: Timestamp) -> PmResult<Instances> {
        LocalSource::instances(self, indom)
    }

    /// As the agents' `pmdaInstance` matches names (see
    /// [`pmda_instance_by_name`]).
    fn instance_id(&self, indom: InDom, name: &[u8], _: Timestamp) -> PmResult<i32> {
        let (ids, names) = LocalSource::instances(self, indom)?;
        let name = ProcSource::<RootFiles>::normalise_name(indom, name);
        pmda_instance_by_name(&names, &name).map(|k| ids[k]).ok_or(PmError::PM_ERR_INST)
    }

    fn text(&self, pmid: PmId, level: TextLevel) -> PmResult<Vec<u8>> {
        LocalSource::text(self, pmid, level)
    }

    fn indom_text(&self, indom: InDom, level: TextLevel) -> PmResult<Vec<u8>> {
        LocalSource::indom_text(self, indom, level)
    }

    fn labels(&self, kind: u8, ident: u32, _: Timestamp, _: &Profile) -> PmResult<Vec<LabelSet>> {
        LocalSource::labels(self, kind, ident)
    }

    fn fetch_into(
        &mut self,
        pmids: &[PmId],
        profile: &Profile,
        out: &mut FetchResult,
        _: &mut Timestamp,
    ) -> PmResult<()> {
        *out = self.fetch(pmids, now(), &|indom, inst| profile.wanted(indom, inst));
        Ok(())
    }

    fn store(&self, result: &FetchResult) -> PmResult<()> {
        LocalSource::store(self, result)
    }

    fn dup(&self) -> PmResult<Box<dyn MetricSource>> {
        Ok(Box::new(LocalSource::dup(self)))
    }

    fn host_name(&self, _: &Profile) -> PmResult<String> {
        Ok(self.hostname.clone())
    }

    /// pcp-rs's agents have no dynamic names.
    fn dynamic_names(&self, root: PmId) -> PmResult<()> {
        Err(if self.serves(root.cluster()) { PmError::PM_ERR_NAME } else { PmError::PM_ERR_NOAGENT })
    }

    fn as_local(&self) -> Option<&LocalSource> {
        Some(self)
    }
}

/// Which of an agent's instance `names` (in its order) a name given to
/// `pmLookupInDom` picks, as libpcp_pmda's `pmdaInstance` matches it: the
/// first one that is the name exactly, or, for a name without a space,
/// whose first word (up to its first space) is the name, so "1" finds
/// kernel.all.load's "1 minute".
pub fn pmda_instance_by_name(names: &[Vec<u8>], name: &[u8]) -> Option<usize> {
    if name.is_empty() {
        return None;
    }
    let spaced = name.contains(&b' ');
    names.iter().position(|n| {
        n.as_slice() == name || (!spaced && n.iter().position(|&c| c == b' ').is_some_and(|sp| &n[..sp] == name))
    })
}

/// libpcp's labels of a local context: the `labels` directory's files
/// (and its `optional` directory's, as optional labels), then the host,
/// domain and machine names, then the user and group (optional).
fn context_labels(files: &RootFiles, hostname: &str, sysconf: Option<&Path>) -> Option<LabelSet> {
    let mut set = None;
    if let Some(dir) = sysconf {
        let labels = dir.join("labels");
        add_label_files(&mut set, &labels, flags::COMPOUND | flags::CONTEXT);
        add_label_files(&mut set, &labels.join("optional"), flags::COMPOUND | flags::CONTEXT | flags::OPTIONAL);
    }
    let domain = first_line(files, "/proc/sys/kernel/domainname")
        .filter(|d| !d.is_empty() && d != "(none)")
        .unwrap_or_else(|| "localdomain".into());
    let machineid = files
        .read("/etc/machine-id")
        .ok()
        .and_then(|t| {
            let word: Vec<u8> = t.split(|b| b.is_ascii_whitespace()).find(|w| !w.is_empty())?.to_vec();
            Some(String::from_utf8_lossy(&word[..word.len().min(MAXMACHINEIDLEN)]).into_owned())
        })
        .unwrap_or_else(|| "localmachine".into());
    let host = format!(r#"{{"hostname":"{hostname}","domainname":"{domain}","machineid":"{machineid}"}}"#);
    if add_labels(&mut set, host.as_bytes(), flags::CONTEXT).ok()? <= 0 {
        return None;
    }
    let (uid, gid) = pcp_linux::user_and_group();
    let user = format!(r#"{{"groupid":{gid},"userid":{uid}}}"#);
    if add_labels(&mut set, user.as_bytes(), flags::CONTEXT | flags::OPTIONAL).ok()? <= 0 {
        return None;
    }
    set
}

/// Add the labels of each file in `dir` (names in byte order, dot files
/// skipped; a file whose labels do not parse is passed over).
fn add_label_files(set: &mut Option<LabelSet>, dir: &Path, labelflags: u8) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut names: Vec<_> = entries.flatten().map(|e| e.file_name()).collect();
    names.sort();
    for name in names {
        if name.as_encoded_bytes().first() == Some(&b'.') {
            continue;
        }
        // libpcp reads at most a label set's worth of each file
        use std::io::Read;
        let limit = (pcp_core::labels::PM_MAXLABELJSONLEN - 1) as u64;
        let mut text = Vec::new();
        if let Ok(f) = std::fs::File::open(dir.join(&name)) {
            let _ = f.take(limit).read_to_end(&mut text);
        }
        let _ = add_labels(set, &text, labelflags);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_instance_names_match_as_pmda_instance_matches_them() {
        let names: Vec<Vec<u8>> =
            ["1 minute", "5 minute", "15 minute", "1", "a b"].map(|n| n.as_bytes().to_vec()).into();
        assert_eq!(pmda_instance_by_name(&names, b"1"), Some(0));
        assert_eq!(pmda_instance_by_name(&names, b"15"), Some(2));
        assert_eq!(pmda_instance_by_name(&names, b"5 minute"), Some(1));
        assert_eq!(pmda_instance_by_name(&names, b"a b"), Some(4));
        assert_eq!(pmda_instance_by_name(&names, b"a"), Some(4));
        assert_eq!(pmda_instance_by_name(&names, b"5 min"), None);
        assert_eq!(pmda_instance_by_name(&names, b"minute"), None);
        assert_eq!(pmda_instance_by_name(&names, b""), None);
    }

    #[test]
    fn specs_parse_as_libpcp_parses_them() {
        let mut a = Agents::default();
        for (spec, want) in [
            ("bogus", "bad op in spec"),
            ("clearx", "unexpected text after clear op in spec"),
            ("add60", "expected , after op in spec"),
            ("add,", "missing domain in spec"),
            ("add,,x", "missing domain in spec"),
            ("add,511,x,y", "bad domain in spec"),
            ("add,6x,x,y", "bad domain in spec"),
            ("add,60", "missing dso-path in spec"),
            ("add,60,/p", "missing init-routine in spec"),
            ("add,60,/p,", "missing init-routine in spec"),
            ("del,,", "missing domain and dso-path in spec"),
            ("del,99", "__pmLocalPMDA: Unknown or illegal instance domain identifier"),
        ] {
            assert_eq!(a.apply_spec(spec), Err(want.to_string()), "{spec}");
        }
        let served = |a: &Agents| a.connect("/nonexistent").0;
        assert_eq!(served(&a), [60, 3]);
        a.apply_spec("del,60").unwrap();
        assert_eq!(served(&a), [3]);
        // an agent comes back when its DSO is there to load
        let dso = std::env::current_exe().unwrap().to_string_lossy().into_owned();
        a.apply_spec(&format!("add,60,{dso},linux_init")).unwrap();
        assert_eq!(a.connect("/nonexistent"), (vec![3, 60], Vec::new()));
        a.apply_spec("clear").unwrap();
        assert_eq!(served(&a), []);
        a.apply_spec("add,60,/nonexistent/x,linux_init").unwrap();
        let warning = b"__pmConnectLocal: Warning: cannot find DSO at \"/nonexistent/x.so\" or \"/nonexistent/x\"\n";
        assert_eq!(a.connect("/nonexistent"), (Vec::new(), warning.to_vec()));
        // an agent pcp-rs does not have serves nothing
        a.apply_spec(&format!("add,29,{dso},sample_init")).unwrap();
        assert_eq!(a.connect("/nonexistent").0, []);
        a.apply_spec(&format!("del,,{dso}")).unwrap();
    }

    #[test]
    fn changes_to_the_table_are_traced_as_libpcp_traces_them() {
        let trace = Trace::new(pcp_core::debug::DebugOptions::parse(b"context").unwrap());
        let dir = pmdas_dir();
        let entry = |i: u64, d: i32, name: &str| {
            format!(
                "{:#x} [{i}] domain={d} name={dir}/{name}/pmda_{name}.so init={name}_init handle=(nil)\n",
                0x5600_000d_5350 + i * 0x98
            )
        };
        // the first change adds the built-in agents first
        let mut a = Agents::default();
        a.apply_spec_traced("del,3", &trace).unwrap();
        let expected = [
            "__pmLocalPMDA(op=DEL, domain=3, name=(null), init=(null))\n".to_string(),
            format!("__pmLocalPMDA(op=ADD, domain=60, name={dir}/linux/pmda_linux.so, init=linux_init)\n"),
            "Local Context PMDA Table\n".into(),
            entry(0, 60, "linux"),
            format!("__pmLocalPMDA(op=ADD, domain=3, name={dir}/proc/pmda_proc.so, init=proc_init)\n"),
            "Local Context PMDA Table\n".into(),
            entry(0, 60, "linux"),
            entry(1, 3, "proc"),
            "Local Context PMDA Table\n".into(),
            entry(0, 60, "linux"),
            entry(1, -1, "proc"),
        ];
        assert_eq!(String::from_utf8_lossy(&trace.take()), expected.concat());
        // a failure is traced before the table
        assert!(a.apply_spec_traced("del,99", &trace).is_err());
        let failed = String::from_utf8_lossy(&trace.take()).into_owned();
        assert!(failed.starts_with(
            "__pmLocalPMDA(op=DEL, domain=99, name=(null), init=(null))\n\
             __pmLocalPMDA -> Unknown or illegal instance domain identifier\nLocal Context PMDA Table\n"
        ));
        // a clear first adds nothing
        let mut b = Agents::default();
        b.apply_spec_traced("clear", &trace).unwrap();
        b.apply_spec_traced("add,60,/p,i", &trace).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&trace.take()),
            "__pmLocalPMDA(op=CLEAR, domain=-1, name=(null), init=(null))\nLocal Context PMDA Table ... empty\n\
             __pmLocalPMDA(op=ADD, domain=60, name=/p, init=i)\nLocal Context PMDA Table\n\
             0x5600000d5350 [0] domain=60 name=/p init=i handle=(nil)\n"
        );
        // untraced, nothing
        Agents::default().apply_spec("del,3").unwrap();
        assert!(trace.take().is_empty());
    }

    #[test]
    fn strtol_reads_like_c() {
        assert_eq!(strtol("60,x"), (60, ",x"));
        assert_eq!(strtol(" -1"), (-1, ""));
        assert_eq!(strtol("x"), (0, "x"));
        assert_eq!(strtol("4294967356"), (60, ""));
        assert_eq!(strtol("99999999999999999999"), (-1, ""));
        assert_eq!(strtol("-99999999999999999999"), (0, ""));
    }
}
