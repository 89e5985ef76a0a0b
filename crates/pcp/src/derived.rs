//! Derived metrics in contexts: libpcp's two anonymous metrics that carry
//! the flags and missed-record counts of unpacked event records, which
//! every context has, and the registered ones (`pmRegisterDerived`,
//! `pmLoadDerivedConfig`, `$PCP_DERIVED_CONFIG`).
//!
//! No global state: libpcp keeps the registered metrics in a process-wide
//! table; here that table is a [`Registry`] value owned by whoever makes
//! contexts (a tool makes one with [`startup_registry`], as libpcp does at
//! its first context, and adds its `-c` files to it). Shared as a
//! [`SharedRegistry`] and handed to each context
//! ([`crate::context::Context::use_registry`]), its metrics are in every
//! such context, those registered later included, as pmRegisterDerived(3)
//! says; [`crate::context::Context::bind_derived`] takes the metrics a
//! registry has at the time. Binding checks each metric against the
//! context's names and descriptors, adds its name to the context's name
//! space and keeps its evaluator in the context.

use pcp_core::{Desc, FetchResult, InDom, MetricType, PmError, PmId, Semantics, Units};
pub use pcp_derived::check::is_derived;
use pcp_derived::{ConfigFiles, Environment, Evaluator, PathKind};
pub use pcp_derived::{CounterDecrease, Registry};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// An anonymous derived metric (`__pmRegisterAnon`).
#[derive(Clone, Copy, Debug)]
pub struct AnonMetric {
    /// Its name.
    pub name: &'static str,
    /// Its descriptor.
    pub desc: Desc,
    /// One-line help.
    pub oneline: &'static str,
    /// Full help.
    pub help: &'static str,
}

const fn anon(item: u32, name: &'static str, oneline: &'static str, help: &'static str) -> AnonMetric {
    AnonMetric {
        name,
        desc: Desc {
            pmid: PmId((511 << 22) | item),
            ty: MetricType::U32,
            indom: InDom::NULL,
            sem: Semantics::DISCRETE,
            units: Units::NONE,
        },
        oneline,
        help,
    }
}

/// `event.flags` (511.0.1) and `event.missed` (511.0.2).
pub const ANON: [AnonMetric; 2] = [
    anon(
        1,
        "event.flags",
        "Flags for event records",
        "An anonymous derived metric that is used to encode the event flags\n\
         associated with event records.   See pmUnpackEventRecords(3).\n",
    ),
    anon(
        2,
        "event.missed",
        "Count of missed event records",
        "An anonymous derived metric that is used to encode the number of\n\
         event records missed because either the PMDA could not keep up\n\
         or the PMAPI client did not collect the event records fast\n\
         enough.  See pmUnpackEventRecords(3).\n",
    ),
];

/// The anonymous metric with this PMID.
pub fn anon_by_pmid(pmid: PmId) -> Option<&'static AnonMetric> {
    ANON.iter().find(|a| a.desc.pmid == pmid)
}

/// The files of configuration paths, read from the file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct OsConfigFiles;

fn os_path(path: &[u8]) -> std::path::PathBuf {
    std::path::PathBuf::from(String::from_utf8_lossy(path).into_owned())
}

fn io_error(e: &std::io::Error) -> PmError {
    PmError::from_errno(e.raw_os_error().unwrap_or(2))
}

impl ConfigFiles for OsConfigFiles {
    fn kind(&mut self, path: &[u8]) -> Result<PathKind, PmError> {
        let meta = std::fs::metadata(os_path(path)).map_err(|e| io_error(&e))?;
        Ok(if meta.is_file() {
            PathKind::File
        } else if meta.is_dir() {
            PathKind::Directory
        } else {
            PathKind::Other
        })
    }

    fn list(&mut self, dir: &[u8]) -> Result<Vec<Vec<u8>>, PmError> {
        let entries = std::fs::read_dir(os_path(dir)).map_err(|e| io_error(&e))?;
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| io_error(&e))?;
            names.push(entry.file_name().into_encoded_bytes());
        }
        Ok(names)
    }

    fn read(&mut self, path: &[u8]) -> Result<Vec<u8>, PmError> {
        std::fs::read(os_path(path)).map_err(|e| io_error(&e))
    }

    fn var_dir(&mut self, trace: &pcp_core::debug::Trace) -> Option<Vec<u8>> {
        Some(crate::config::lookup("PCP_VAR_DIR", trace))
    }
}

/// Where this process's derived metrics come from: `$PCP_DERIVED_CONFIG`
/// and `$PCP_VAR_DIR`, with `progname` for warnings.
pub fn environment(progname: &str) -> Environment {
    Environment {
        derived_config: std::env::var_os("PCP_DERIVED_CONFIG").map(|v| v.into_encoded_bytes()),
        var_dir: crate::config::var_dir().into_os_string().into_encoded_bytes(),
        progname: progname.to_string(),
    }
}

/// The registry a process starts with, as libpcp sets it up before its
/// first context: the anonymous metrics, then `$PCP_DERIVED_CONFIG`
/// (unset: every file of `$PCP_VAR_DIR/config/derived`; empty: nothing;
/// else its `:`-separated files and directories). Returns the report of
/// problems libpcp writes to stderr.
pub fn startup_registry(progname: &str) -> (Registry, Vec<u8>) {
    startup_registry_traced(progname, &pcp_core::debug::Trace::off())
}

/// [`startup_registry`], traced into `trace` as libpcp's `-Dderive` does
/// (the trace of loading is in the report, in order with its messages;
/// see [`Registry::set_trace`]). The registry keeps tracing there.
pub fn startup_registry_traced(progname: &str, trace: &pcp_core::debug::Trace) -> (Registry, Vec<u8>) {
    let mut registry = Registry::new();
    registry.set_trace(trace.clone());
    let report = registry.init(&environment(progname), &mut OsConfigFiles);
    (registry, report)
}

/// `pmLoadDerivedConfig` with files from the file system: the number of
/// metrics defined or the first error, and the report of problems.
#[doc(alias = "pmLoadDerivedConfig")]
pub fn load_config(registry: &mut Registry, path: &[u8], progname: &str) -> (Result<usize, PmError>, Vec<u8>) {
    registry.load_config(path, &environment(progname), &mut OsConfigFiles)
}

/// A [`Registry`] shared by the contexts given it
/// ([`crate::context::Context::use_registry`]): each has its metrics,
/// those registered after the context was made included (a context takes
/// them in when it next looks a name, PMID or value up). Clones share
/// the table; it is locked for each registration.
#[derive(Clone, Debug, Default)]
pub struct SharedRegistry(Arc<std::sync::RwLock<Registry>>);

impl SharedRegistry {
    /// Share `registry`.
    pub fn new(registry: Registry) -> SharedRegistry {
        SharedRegistry(Arc::new(std::sync::RwLock::new(registry)))
    }

    /// The table, to read (registrations wait meanwhile).
    pub fn read(&self) -> std::sync::RwLockReadGuard<'_, Registry> {
        self.0.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// The table, to change (registrations and contexts wait meanwhile).
    pub fn write(&self) -> std::sync::RwLockWriteGuard<'_, Registry> {
        self.0.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// `pmRegisterDerived` into the shared table (see [`Registry::register`]).
    #[doc(alias = "pmRegisterDerived")]
    pub fn register(&self, name: &str, expr: &str) -> Result<PmId, pcp_derived::registry::RegisterError> {
        self.write().register(name, expr)
    }

    /// `pmLoadDerivedConfig` into the shared table (see [`load_config`]).
    #[doc(alias = "pmLoadDerivedConfig")]
    pub fn load_config(&self, path: &[u8], progname: &str) -> (Result<usize, PmError>, Vec<u8>) {
        load_config(&mut self.write(), path, progname)
    }
}

impl From<Registry> for SharedRegistry {
    fn from(registry: Registry) -> SharedRegistry {
        SharedRegistry::new(registry)
    }
}

/// Lets one thread at a time bind a context's derived metrics: binding
/// one looks its operands up, which may bind others (in the same thread,
/// which passes again), and a metric being checked is failed to the
/// thread checking it, so another thread waits for the answer rather
/// than take that for it.
#[derive(Debug, Default)]
pub(crate) struct BindGate {
    /// The thread binding, and how many times it has passed.
    owner: Mutex<Option<(std::thread::ThreadId, usize)>>,
    free: std::sync::Condvar,
}

impl BindGate {
    /// Wait for the gate (unless this thread holds it) and hold it until
    /// the pass is dropped.
    pub(crate) fn pass(&self) -> BindPass<'_> {
        let me = std::thread::current().id();
        let mut owner = lock(&self.owner);
        loop {
            match &mut *owner {
                None => {
                    *owner = Some((me, 1));
                    break;
                }
                Some((t, depth)) if *t == me => {
                    *depth += 1;
                    break;
                }
                Some(_) => owner = self.free.wait(owner).unwrap_or_else(PoisonError::into_inner),
            }
        }
        BindPass(self)
    }
}

/// A thread's pass through a [`BindGate`].
pub(crate) struct BindPass<'a>(&'a BindGate);

impl Drop for BindPass<'_> {
    fn drop(&mut self) {
        let mut owner = lock(&self.0.owner);
        if let Some((_, depth)) = &mut *owner {
            *depth -= 1;
            if *depth == 0 {
                *owner = None;
                self.0.free.notify_all();
            }
        }
    }
}

/// Lock a mutex, whether or not a thread panicked holding it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// How far a derived metric is bound in a context.
#[derive(Debug)]
pub(crate) enum Binding {
    /// Not yet used: libpcp binds a metric the first time its
    /// descriptor is asked for or it is fetched.
    Unbound,
    /// The check failed, with libpcp's report if it makes one: the name
    /// stays, the descriptor is `PM_ERR_BADDERIVE`, there are no values.
    Failed(Option<Vec<u8>>),
    /// Being checked (by the thread through the context's [`BindGate`]):
    /// failed to a metric that names it.
    Checking,
    /// Checked, ready to evaluate.
    Bound(Box<Evaluator>),
    /// Bound, its evaluator lent out during a fetch.
    Lent,
}

/// A registered derived metric as one context sees it.
#[derive(Debug)]
pub(crate) struct BoundMetric {
    pub(crate) pmid: PmId,
    pub(crate) name: String,
    pub(crate) expr: pcp_derived::LazyExpr,
    pub(crate) oneline: Option<Vec<u8>>,
    pub(crate) helptext: Option<Vec<u8>>,
    pub(crate) binding: Mutex<Binding>,
    /// Whether libpcp would have bound it by now (its descriptor asked
    /// for, or fetched): a failure is reported then, and from then on the
    /// name is left out of listings. (pcp-rs may bind earlier, to read an
    /// archive ahead.)
    pub(crate) announced: AtomicBool,
    /// Added to this context alone (`pmAddDerived`).
    pub(crate) local: bool,
    /// A global metric masked by a per-context one of the same name.
    pub(crate) masked: AtomicBool,
    /// From the configuration loaded at start-up: failures 6.0.3 does not
    /// report stay unreported ([`pcp_derived::Definition::startup`]).
    pub(crate) startup: bool,
}

impl BoundMetric {
    /// A metric of a registry's definition, not bound yet.
    pub(crate) fn global(d: &pcp_derived::Definition, masked: bool) -> BoundMetric {
        BoundMetric {
            pmid: d.pmid,
            name: d.name.clone(),
            expr: d.expr.clone(),
            oneline: d.oneline.clone(),
            helptext: d.helptext.clone(),
            binding: Mutex::new(Binding::Unbound),
            announced: AtomicBool::new(false),
            local: false,
            masked: AtomicBool::new(masked),
            startup: d.startup,
        }
    }

    /// Its place in libpcp's list of the context's metrics, which starts
    /// with the global ones in registration order (anonymous ones
    /// included): what libpcp's trace calls `metric[N]`.
    pub(crate) fn index(&self) -> usize {
        let (cluster, item) = (self.pmid.cluster() as usize, self.pmid.item() as usize);
        if self.local {
            // (after the global ones: counted down from the last PMID)
            2047 * 1023 + 1023 - cluster * 1023 - item
        } else {
            cluster * 1023 + item - 1
        }
    }

    /// Whether a per-context metric of the same name masks it.
    pub(crate) fn is_masked(&self) -> bool {
        self.masked.load(Ordering::Relaxed)
    }
}

/// The derived metrics of one context, in libpcp's order (which decides
/// what a name means when several share it). Clones share the metrics
/// (and their bindings): a context's [`crate::context::View`] is copied
/// when metrics are added.
#[derive(Clone, Debug, Default)]
pub(crate) struct Metrics {
    pub(crate) list: Vec<Arc<BoundMetric>>,
    /// Each metric's position in `list`, by PMID.
    index: foldhash::HashMap<PmId, usize>,
}

impl Metrics {
    /// A copy for a duplicated context (`pmDupContext`): the same metrics,
    /// per-context ones and masks included, each to be bound afresh when
    /// first used, as in a new context.
    pub(crate) fn dup(&self) -> Metrics {
        let mut copy = Metrics::default();
        for m in &self.list {
            copy.push(BoundMetric {
                pmid: m.pmid,
                name: m.name.clone(),
                expr: m.expr.clone(),
                oneline: m.oneline.clone(),
                helptext: m.helptext.clone(),
                binding: Mutex::new(Binding::Unbound),
                announced: AtomicBool::new(false),
                local: m.local,
                masked: AtomicBool::new(m.is_masked()),
                startup: m.startup,
            });
        }
        copy
    }

    /// Append a metric.
    pub(crate) fn push(&mut self, m: BoundMetric) {
        self.index.insert(m.pmid, self.list.len());
        self.list.push(Arc::new(m));
    }

    /// The derived metric with this PMID, masked ones left out.
    pub(crate) fn get(&self, pmid: PmId) -> Option<&BoundMetric> {
        let m = self.list.get(*self.index.get(&pmid)?)?;
        (!m.is_masked()).then_some(m)
    }

    /// The derived metric of this name, masked ones left out.
    pub(crate) fn by_name(&self, name: &str) -> Option<&BoundMetric> {
        self.list.iter().map(|m| &**m).find(|m| m.name == name && !m.is_masked())
    }

    /// The metrics, masked ones included.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &BoundMetric> {
        self.list.iter().map(|m| &**m)
    }

    /// Whether `pmid` is a derived metric that failed to bind, as libpcp
    /// knows by now.
    pub(crate) fn failed(&self, pmid: PmId) -> bool {
        self.get(pmid)
            .is_some_and(|m| m.announced.load(Ordering::Relaxed) && matches!(*lock(&m.binding), Binding::Failed(_)))
    }

    /// Whether the derived metric `pmid` is bound, its evaluator in place,
    /// and announced (so that binding it again would do nothing).
    pub(crate) fn bound_and_announced(&self, pmid: PmId) -> bool {
        self.get(pmid)
            .is_some_and(|m| m.announced.load(Ordering::Relaxed) && matches!(*lock(&m.binding), Binding::Bound(_)))
    }

    /// Whether `m` is bound (its evaluator there or lent out).
    pub(crate) fn is_bound(&self, m: &BoundMetric) -> bool {
        matches!(*lock(&m.binding), Binding::Bound(_) | Binding::Lent)
    }

    /// The evaluators of the metrics among `pmids` that are bound, lent
    /// out (each once, however often it is asked for).
    // (boxed as the bindings hold them: lent and put back without copying)
    #[allow(clippy::vec_box)]
    pub(crate) fn take_evaluators(&self, pmids: &[PmId]) -> Vec<Box<Evaluator>> {
        let mut out = Vec::with_capacity(pmids.len());
        self.take_evaluators_into(pmids, &mut out);
        out
    }

    /// [`Metrics::take_evaluators`] into `out` (emptied first).
    #[allow(clippy::vec_box)]
    pub(crate) fn take_evaluators_into(&self, pmids: &[PmId], out: &mut Vec<Box<Evaluator>>) {
        out.clear();
        for pmid in pmids {
            let Some(m) = self.index.get(pmid).and_then(|&i| self.list.get(i)) else { continue };
            let mut b = lock(&m.binding);
            if matches!(*b, Binding::Bound(_)) {
                if let Binding::Bound(ev) = std::mem::replace(&mut *b, Binding::Lent) {
                    out.push(ev);
                }
            }
        }
    }

    /// Put evaluators lent out back in their place.
    #[allow(clippy::vec_box)]
    pub(crate) fn restore(&self, evaluators: Vec<Box<Evaluator>>) {
        let mut evaluators = evaluators;
        self.restore_from(&mut evaluators);
    }

    /// [`Metrics::restore`], leaving `evaluators` empty (its room kept).
    #[allow(clippy::vec_box)]
    pub(crate) fn restore_from(&self, evaluators: &mut Vec<Box<Evaluator>>) {
        for ev in evaluators.drain(..) {
            if let Some(m) = self.index.get(&ev.pmid()).and_then(|&i| self.list.get(i)) {
                *lock(&m.binding) = Binding::Bound(ev);
            }
        }
    }
}

/// What a context keeps for its derived metrics besides the metrics
/// themselves (which are in its [`crate::context::View`]).
#[derive(Debug, Default)]
pub(crate) struct Bound {
    /// Where what libpcp writes to standard error goes: what it
    /// `pmprintf`s and flushes at once (semantic errors) and its debug
    /// trace, not yet taken by [`crate::context::Context::take_messages`].
    pub(crate) messages: pcp_core::debug::Trace,
    /// The limit on per-context metrics (the registry's limit when the
    /// context took its metrics, as libpcp copies it).
    pub(crate) limit: Option<usize>,
    /// What `rate()` of a counter that went down gives here (the
    /// registry's rule when the context took its metrics).
    pub(crate) counter_decrease: pcp_derived::CounterDecrease,
    /// The parser state per-context additions carry from one to the next.
    pub(crate) parse: pcp_derived::ParseState,
    /// The `matchinst()` patterns compiled for the evaluators made so far.
    pub(crate) patterns: Mutex<pcp_derived::Patterns>,
    /// One thread at a time binds metrics here.
    pub(crate) gate: BindGate,
    /// Room kept from one fetch to the next: the list of evaluators lent
    /// out, and the list of metrics asked of the source.
    #[allow(clippy::vec_box)]
    pub(crate) lent: Vec<Box<Evaluator>>,
    pub(crate) asked: Vec<PmId>,
    /// The source's result of the last derived fetch, its room reused.
    pub(crate) fetched: FetchResult,
    /// The anonymous metrics bound so far (by PMID item bit), for the
    /// trace.
    pub(crate) anon_bound: std::sync::atomic::AtomicU8,
    /// Where the stand-in node addresses of trace dumps come from (the
    /// registry's, once the context has its metrics).
    pub(crate) addresses: pcp_derived::trace::Addresses,
    /// What libpcp's start-up of derived metrics (`__dminit`) writes,
    /// held back until the context's first service that starts them up
    /// ([`crate::context::Context::defer_derived_startup`]).
    pub(crate) startup: Mutex<Vec<u8>>,
}

impl Bound {
    /// A copy for a duplicated context (`pmDupContext`): the same limit,
    /// rule and parser state, nothing bound.
    pub(crate) fn dup(&self) -> Bound {
        Bound {
            limit: self.limit,
            counter_decrease: self.counter_decrease,
            parse: self.parse.clone(),
            messages: self.messages.clone(),
            addresses: self.addresses.clone(),
            ..Default::default()
        }
    }

    /// An evaluator for a metric's `tree`, checked as `checked`, its
    /// patterns compiled once in this context.
    pub(crate) fn evaluator(
        &self,
        tree: std::sync::Arc<pcp_derived::Expr>,
        checked: pcp_derived::check::Checked,
    ) -> pcp_derived::Evaluator {
        let mut ev = pcp_derived::Evaluator::with_patterns(tree, checked, &mut lock(&self.patterns));
        ev.set_counter_decrease(self.counter_decrease);
        ev.set_trace(self.messages.clone(), &self.addresses);
        ev
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anonymous_pmids_are_in_the_derived_domain() {
        assert_eq!(ANON[0].desc.pmid, PmId::new(511, 0, 1));
        assert_eq!(anon_by_pmid(PmId::new(511, 0, 2)).map(|a| a.name), Some("event.missed"));
    }
}
