//! The PMAPI context: where metrics come from, and the services on it.

use crate::archive::ArchiveSource;
use crate::host::HostSource;
use crate::local::{LocalNames, LocalSource, LocalSpec};
use crate::profile::Profile;
use crate::source::{MetricSource, RemoteNames};
pub use pcp_archive::replay::Mode;
use pcp_core::debug::{DebugFlag, Trace};
use pcp_core::error::Subject;
use pcp_core::{Desc, Error, FetchResult, InDom, PmError, PmId, PmResult, Timestamp};
use pcp_pmns::{LoadOptions, Pmns};
use std::sync::{Arc, PoisonError, RwLock};

mod archive;
mod builder;
mod derived_metrics;
mod dump;
pub(crate) mod names;
#[cfg(test)]
mod tests;
mod typed;

#[doc(hidden)] // tool support
pub use dump::ResultLookups;
pub use typed::Instance;

use derived_metrics::ContextInstances;

/// The key under which a trace notes libpcp's current context handle
/// (process state) once it changes from a tool's first context, 0: -1
/// once that context is destroyed.
const CURRENT_HANDLE: &str = "current context";

/// The key under which a trace notes the last context handle libpcp
/// would have given (none noted: only a tool's first, 0).
const LAST_HANDLE: &str = "last context handle";

/// The next context handle of the process whose trace is `trace`.
fn next_handle(trace: &Trace) -> i32 {
    let next = trace.noted(LAST_HANDLE).unwrap_or(0) + 1;
    trace.changed(LAST_HANDLE, next);
    next as i32
}

/// Where a context's names come from (`pmGetPMNSLocation`).
#[doc(alias = "pmGetPMNSLocation")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PmnsLocation {
    /// `PMNS_LOCAL`: a name space loaded from a file.
    Local,
    /// `PMNS_REMOTE`: pmcd's name space (host contexts).
    Remote,
    /// `PMNS_ARCHIVE`: the names an archive's metadata holds.
    Archive,
}

/// A PMAPI context. Each is independent: no global "current context".
///
/// A context is a name space and a [`MetricSource`]: none (a name space
/// loaded from a file, what `pminfo -n` uses, whose per-source services
/// are `PM_ERR_NOCONTEXT`), an archive, the local machine, pmcd on a host
/// (whose name space is pmcd's, unless one was loaded from a file), or
/// any other source ([`Context::from_source`]). The context adds derived
/// metrics, the instance profile and the current time over its source.
#[derive(Debug)]
pub struct Context {
    /// The names and derived metrics, replaced whole when global metrics
    /// registered since are taken in (see [`View`]).
    view: RwLock<Arc<View>>,
    location: PmnsLocation,
    /// Whether the names were loaded from a file (`pmLoadASCIINameSpace`)
    /// rather than the source's own.
    loaded: bool,
    source: Option<Box<dyn MetricSource>>,
    profile: Profile,
    /// The current time (`c_origin`): where the next fetch starts and what
    /// time instance domains are taken at.
    origin: Timestamp,
    /// What the context keeps for its derived metrics besides the list.
    derived: crate::derived::Bound,
    /// The time zone chosen when the context was opened.
    zone: Option<crate::timezone::Zone>,
    /// The registry whose metrics, those registered later included, the
    /// context has ([`Context::use_registry`]).
    shared: Option<crate::derived::SharedRegistry>,
    /// The metrics fetched so far as recorded (libpcp keeps them for good
    /// from the first such fetch; see [`Context::trace_read_ahead`]).
    fetched_as_recorded: std::collections::HashSet<PmId>,
    /// libpcp's handle for it, in traces ([`Context::handle`]).
    handle: i32,
}

/// A context's names and derived metrics as they are at one time. The
/// context holds one behind a lock and replaces it (copied, then added
/// to) when it takes in the global metrics registered since it last
/// looked, so that services on `&self` see them; a service works on the
/// one it started with, and holds no lock while it does.
#[derive(Clone, Debug)]
pub(crate) struct View {
    /// The name space (with the derived metrics' names, but for pmcd's,
    /// which has them apart).
    pub(crate) pmns: Pmns,
    /// The derived metrics, in libpcp's order.
    pub(crate) derived: crate::derived::Metrics,
    /// How many of the shared registry's metrics have been taken in.
    pub(crate) globals_seen: usize,
    /// The global derived metrics left out as a real metric has their
    /// name (libpcp keeps them, unbound, among the derived names below a
    /// node, which its trace counts).
    pub(crate) shadowed: Vec<String>,
}

impl View {
    /// No names, no derived metrics.
    pub(crate) fn empty() -> View {
        View { pmns: Pmns::new(), derived: Default::default(), globals_seen: 0, shadowed: Vec::new() }
    }
}

pub use builder::{ArchiveOptions, Diagnostic, HostOptions, LocalOptions, TimeZone};

/// Instance identifiers and their names, index for index.
pub type Instances = (Vec<i32>, Vec<Vec<u8>>);

/// `PM_TEXT_ONELINE` / `PM_TEXT_HELP`: which help text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextLevel {
    /// `PM_TEXT_ONELINE`.
    OneLine,
    /// `PM_TEXT_HELP`.
    Help,
}

impl Context {
    /// A context whose name services use `pmns` (as after
    /// `pmLoadASCIINameSpace`), with libpcp's two anonymous derived metrics
    /// (`event.flags`, `event.missed`) that every context has.
    pub fn with_namespace(pmns: Pmns) -> Context {
        let mut ctx = Context::new(None, pmns, PmnsLocation::Local, Timestamp::default());
        ctx.loaded = true;
        ctx
    }

    /// A context over `source`, its names those of `pmns` (as after
    /// `pmLoadASCIINameSpace`), or with `None` the source's own (see
    /// [`MetricSource::remote_names`]; a source without any then has no
    /// names but the derived metrics'). Derived metrics
    /// ([`Context::use_registry`], [`Context::bind_derived`],
    /// [`Context::add_derived`]) and the
    /// instance profile work over any source; the current time starts at
    /// the epoch.
    #[doc(alias = "pmNewContext")]
    pub fn from_source(source: Box<dyn MetricSource>, pmns: Option<Pmns>) -> Context {
        let loaded = pmns.is_some();
        let (pmns, location) = match pmns {
            Some(p) => (p, PmnsLocation::Local),
            None if source.remote_names().is_some() => (Pmns::new(), PmnsLocation::Remote),
            None => (Pmns::new(), PmnsLocation::Local),
        };
        let mut ctx = Context::new(Some(source), pmns, location, Timestamp::default());
        ctx.loaded = loaded;
        ctx
    }

    /// A context of these parts, with libpcp's anonymous derived
    /// metrics' names in a name space it holds.
    fn new(
        source: Option<Box<dyn MetricSource>>,
        mut pmns: Pmns,
        location: PmnsLocation,
        origin: Timestamp,
    ) -> Context {
        let mut ctx = Context {
            view: RwLock::new(Arc::new(View::empty())),
            location,
            loaded: false,
            source,
            profile: Profile::default(),
            origin,
            derived: Default::default(),
            zone: None,
            shared: None,
            fetched_as_recorded: Default::default(),
            handle: 0,
        };
        ctx.derived_names_into(&mut pmns, &crate::derived::Metrics::default());
        ctx.view_mut().pmns = pmns;
        ctx
    }

    /// `pmNewContext(PM_CONTEXT_LOCAL)`: a context over this machine's
    /// metrics, with no pmcd (see [`crate::local`] for what it serves and
    /// its names). Diagnostics of a default name space file that does not
    /// parse are dropped; [`LocalOptions::open_with_diagnostics`] returns them.
    #[doc(alias = "pmNewContext")]
    #[doc(alias = "PM_CONTEXT_LOCAL")]
    pub fn open_local() -> Result<Context, Error> {
        Context::open_local_with(LocalSpec::system()).0
    }

    /// A local context over a snapshot of a machine's files under `root`
    /// (see [`LocalSpec::snapshot`]), with the built-in names.
    pub fn open_local_at(root: impl Into<std::path::PathBuf>) -> Result<Context, Error> {
        Context::open_local_with(LocalSpec::snapshot(root)).0
    }

    /// A local context as `spec` says, with the diagnostics of loading
    /// its name space (libpcp's, for a default name space file that does
    /// not parse: the context then fails with `PM_ERR_NOPMNS`, the error
    /// naming the file).
    #[doc(hidden)] // tool support: Context::local() gives them typed
    pub fn open_local_with(spec: LocalSpec) -> (Result<Context, Error>, Vec<u8>) {
        Context::open_local_traced(spec, &Trace::off())
    }

    /// [`Context::open_local_with`], tracing into `trace` as libpcp does
    /// under `-Dcontext` while `pmNewContext` connects the agents (see
    /// [`LocalSource::open_traced`]: what it warns of goes to `trace`
    /// then) and makes the context; the context traces there from then
    /// on ([`Context::set_trace`]).
    #[doc(hidden)] // tool support
    pub fn open_local_traced(spec: LocalSpec, trace: &Trace) -> (Result<Context, Error>, Vec<u8>) {
        let (src, mut diagnostics) = LocalSource::open_traced(&spec, trace);
        if trace.on(DebugFlag::Context) {
            trace.write_bytes(
                b"pmNewContext(3, NULL) -> 0\nDump Contexts: current -> contexts[0] handle 0\n\
                  contexts[0] handle 0: standalone: profile=NOT_SENT\n\
                  Dump Instance Profile state=INCLUDE, 0 profiles\n",
            );
        }
        let loaded = matches!(spec.names, LocalNames::Given(_));
        // the built-in names are already the agents' own, in their order
        let graft = matches!(spec.names, LocalNames::Default);
        let pmns = match spec.names {
            LocalNames::Given(p) => p,
            LocalNames::BuiltIn => builtin_pmns(),
            LocalNames::Default => match default_local_pmns(&mut diagnostics) {
                Ok(p) => p,
                Err(e) => return (Err(e), diagnostics),
            },
        };
        let mut pmns = pmns;
        if graft {
            crate::local::graft_proc_names(&mut pmns, &src);
        }
        let mut ctx = Context::new(Some(Box::new(src)), pmns, PmnsLocation::Local, Timestamp::default());
        ctx.loaded = loaded;
        ctx.set_trace(trace.clone());
        (Ok(ctx), diagnostics)
    }

    /// What libpcp traces under `-Dcontext` as the process exits after
    /// a local context loaded agents (its `EndLocalContext` handler):
    /// the current context (this one, a tool's first, unless
    /// [`Context::trace_destroy`] destroyed it), then each agent loaded,
    /// notified of that context's end. Nothing for other contexts.
    #[doc(hidden)] // tool support
    pub fn trace_exit(&self) {
        let Some(local) = self.source().and_then(MetricSource::as_local) else { return };
        let current = match self.trace().noted(CURRENT_HANDLE) {
            Some(h) => h as i32,
            None => 0,
        };
        local.trace_exit(self.trace(), current);
    }

    /// `pmNewContext(PM_CONTEXT_ARCHIVE, name)`: a context over the archive
    /// `name` (its base name or any of its files), its names from the
    /// archive's metadata, positioned at the archive's start. The error
    /// names the archive (of a list, the one that failed).
    #[doc(alias = "pmNewContext")]
    pub fn open_archive(name: &str) -> Result<Context, Error> {
        Context::open_archive_checking(name, true)
    }

    /// [`Context::open_archive`], checking the labels' feature bits or not
    /// (`PM_CTXFLAG_NO_FEATURE_CHECK`): archives with bits 6.0.3 does not
    /// know fail with `PM_ERR_FEATURE` when they are checked.
    #[doc(alias = "PM_CTXFLAG_NO_FEATURE_CHECK")]
    pub fn open_archive_checking(name: &str, check_features: bool) -> Result<Context, Error> {
        Context::open_archive_traced(name, check_features, &Trace::off())
    }

    /// [`Context::open_archive_checking`], tracing the opening into
    /// `trace` as libpcp does under `-Dlog` (the files looked at and
    /// opened, each label checked); the context traces there from then on
    /// ([`Context::set_trace`]).
    #[doc(alias = "pmNewContext")]
    pub fn open_archive_traced(name: &str, check_features: bool, trace: &Trace) -> Result<Context, Error> {
        let source = ArchiveSource::open_traced(name, check_features, trace).inspect_err(|e| {
            if trace.on(DebugFlag::Context) {
                let code = e.code().code();
                trace.write(format_args!("pmNewContext(2, {name}) -> {code}, curr_handle=-1\n"));
            }
        })?;
        let pmns = archive_pmns(&source);
        let origin = source.label().start;
        let mut ctx = Context::new(Some(Box::new(source)), pmns, PmnsLocation::Archive, origin);
        ctx.set_trace(trace.clone());
        // (the end of the archive was looked for: its last record read)
        ctx.fill_record_dumps(origin);
        if trace.on(DebugFlag::Context) {
            trace_new_archive_context(trace, name, origin);
        }
        Ok(ctx)
    }

    /// `pmDupContext`: a new context of the same kind over the same
    /// source, with a copy of this one's instance profile, current time,
    /// names (a name space loaded into it included) and derived metrics
    /// (bound afresh when first used, as in a new context). A host
    /// context connects to the same pmcd again; an archive context opens
    /// the same archives and goes on from where this one has got to (mode,
    /// step and reading position included); a local context gets the same
    /// agents in the same state. A context of names alone has no source
    /// to duplicate (`PM_ERR_NOCONTEXT`).
    ///
    /// Under `-Dcontext` it is traced as libpcp traces `pmDupContext`
    /// for a local context and an archive context of one archive (its
    /// handle the next of the process's, see [`Context::handle`]); the
    /// other kinds' traces are not written yet.
    #[doc(alias = "pmDupContext")]
    pub fn dup(&self) -> PmResult<Context> {
        let trace = self.trace();
        let traced = trace.on(DebugFlag::Context);
        if self.source.is_none() {
            // libpcp: no current context
            if traced {
                let e = PmError::PM_ERR_NOCONTEXT.code();
                trace.write(format_args!("pmWhichContext() -> {e}, cur=-1\npmDupContext() -> {e}\n"));
            }
            return Err(PmError::PM_ERR_NOCONTEXT);
        }
        let mut dup = self.dup_untraced()?;
        dup.handle = next_handle(trace);
        // (the new context is libpcp's current one)
        trace.changed(CURRENT_HANDLE, i64::from(dup.handle));
        if traced {
            if let Some(local) = dup.source().and_then(MetricSource::as_local) {
                let (h, n) = (self.handle, dup.handle);
                let mut s = format!("pmWhichContext() -> {h}, cur={h}\n");
                // (pmNewContext: the agents, already loaded, are told the context)
                s.push_str(&format!("pmWhichContext() -> {n}, cur={n}\n").repeat(local.loaded_count()));
                let head = format!("Dump Contexts: current -> contexts[{n}] handle {n}\n");
                let standalone = format!("contexts[{n}] handle {n}: standalone: profile=NOT_SENT\n");
                // (6.0.3 copies the instance lists but not their count: its
                // dump shows an empty profile either way)
                let profile = "Dump Instance Profile state=INCLUDE, 0 profiles\n";
                s.push_str(&format!("pmNewContext(3, NULL) -> {n}\n{head}{standalone}{profile}"));
                s.push_str(&format!("pmDupContext() -> {n}\n{head}{standalone}{profile}"));
                trace.write_bytes(s.as_bytes());
            } else if let Some(s) = self.archive_dup_trace(&dup) {
                trace.write_bytes(s.as_bytes());
            }
        }
        Ok(dup)
    }

    /// The handle libpcp would know this context by in its traces: 0 for
    /// a context opened (a tool's first), the process's next one for
    /// each [`Context::dup`] traced into the same buffer.
    pub fn handle(&self) -> i32 {
        self.handle
    }

    /// [`Context::dup`] with no trace of it (what the library does for
    /// itself).
    pub(crate) fn dup_untraced(&self) -> PmResult<Context> {
        let source = self.need_source()?.dup()?;
        let v = self.view();
        let view = View {
            pmns: v.pmns.clone(),
            derived: v.derived.dup(),
            globals_seen: v.globals_seen,
            shadowed: v.shadowed.clone(),
        };
        Ok(Context {
            view: RwLock::new(Arc::new(view)),
            location: self.location,
            loaded: self.loaded,
            source: Some(source),
            profile: self.profile.clone(),
            origin: self.origin,
            zone: self.zone.clone(),
            derived: self.derived.dup(),
            shared: self.shared.clone(),
            fetched_as_recorded: self.fetched_as_recorded.clone(),
            handle: self.handle,
        })
    }

    /// Where the context's metrics come from (`None` for a context of
    /// names alone).
    pub fn source(&self) -> Option<&dyn MetricSource> {
        self.source.as_deref()
    }

    /// The source, or `PM_ERR_NOCONTEXT` for a context of names alone.
    pub(crate) fn need_source(&self) -> PmResult<&dyn MetricSource> {
        self.source().ok_or(PmError::PM_ERR_NOCONTEXT)
    }

    /// The names and derived metrics as they are now: global metrics
    /// registered in the shared registry since the last look are taken
    /// in first.
    pub(crate) fn view(&self) -> Arc<View> {
        if let Some(shared) = &self.shared {
            self.take_in_shared(shared);
        }
        self.current_view()
    }

    /// The names and derived metrics as they were last taken in.
    pub(crate) fn current_view(&self) -> Arc<View> {
        Arc::clone(&self.view.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// The names and derived metrics to change (global metrics registered
    /// since taken in first): a copy if a service still holds them.
    pub(crate) fn view_mut(&mut self) -> &mut View {
        if let Some(shared) = self.shared.clone() {
            self.take_in_shared(&shared);
        }
        Arc::make_mut(self.view.get_mut().unwrap_or_else(PoisonError::into_inner))
    }

    /// Replace the names and derived metrics.
    pub(crate) fn set_view(&mut self, view: View) {
        *self.view.get_mut().unwrap_or_else(PoisonError::into_inner) = Arc::new(view);
    }

    /// The pmcd connection of a host context.
    pub fn host_source(&self) -> Option<&HostSource> {
        self.source()?.as_host()
    }

    /// The source's own name space, when the context's names are its.
    fn remote_names(&self) -> Option<&dyn RemoteNames> {
        self.source()?.remote_names().filter(|_| self.location == PmnsLocation::Remote)
    }

    /// The instance profile.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Take another context's profile (as `pmDupContext` copies it).
    pub(crate) fn copy_profile_from(&mut self, other: &Context) {
        self.profile = other.profile.clone();
    }

    /// The archive of an archive context.
    pub fn archive_source(&self) -> Option<&ArchiveSource> {
        self.source()?.as_archive()
    }

    /// The local source of a local context.
    pub fn local_source(&self) -> Option<&LocalSource> {
        self.source()?.as_local()
    }

    /// `pmGetContextHostName`: the host the metrics are of (an archive's
    /// from its label, this machine's for a local context, pmcd's
    /// `pmcd.hostname` for a host context: see [`HostSource::host_name`]).
    #[doc(alias = "pmGetContextHostName")]
    pub fn host_name(&self) -> PmResult<String> {
        let source = self.need_source()?;
        if let Some(h) = source.as_host().filter(|_| self.trace().any()) {
            // (libpcp fetches pmcd.hostname with pmFetch, traced as any)
            return Ok(h.host_name_with(&self.profile, &mut |r, _| self.trace_host_fetch(r)));
        }
        source.host_name(&self.profile)
    }

    /// `pmFetch`: the values of `pmids` (instances as the profile allows):
    /// from an archive, at its current time; from the local machine or
    /// pmcd, now (pmcd's state-change bits: [`Context::fetch_changes`]).
    #[doc(alias = "pmFetch")]
    #[doc(alias = "pmFetchHighRes")]
    pub fn fetch(&mut self, pmids: &[PmId]) -> PmResult<FetchResult> {
        let mut out = FetchResult::default();
        self.fetch_into(pmids, &mut out)?;
        Ok(out)
    }

    /// [`Context::fetch`] into `out`, whose room (the list of value sets
    /// and their value lists) is reused where the source allows: a tool
    /// fetching over and over hands back the result it is done with. On an
    /// error, what `out` holds is unspecified.
    #[doc(alias = "pmFetch")]
    pub fn fetch_into(&mut self, pmids: &[PmId], out: &mut FetchResult) -> PmResult<()> {
        self.trace_which(1);
        let r = self.fetch_derived_into(pmids, out);
        if self.trace().any() {
            self.trace_fetched(r.map(|()| &*out));
        }
        r
    }

    /// [`Context::fetch_into`] without its trace: the derived metrics'
    /// operands fetched with the rest, and the derived metrics evaluated.
    fn fetch_derived_into(&mut self, pmids: &[PmId], out: &mut FetchResult) -> PmResult<()> {
        if pmids.is_empty() {
            return Err(PmError::PM_ERR_TOOSMALL);
        }
        let v = self.view();
        let derived = pmids.iter().any(|p| v.derived.get(*p).is_some());
        if !derived {
            return self.fetch_source_into(pmids, out);
        }
        for &p in pmids {
            // (one bound and announced already needs no binding)
            if !v.derived.bound_and_announced(p) {
                self.bind(p, true);
            }
        }
        // (lent out for the fetch, and put back whatever it gives; both
        // lists' room is kept for the next fetch)
        let mut evaluators = std::mem::take(&mut self.derived.lent);
        v.derived.take_evaluators_into(pmids, &mut evaluators);
        let mut list = std::mem::take(&mut self.derived.asked);
        pcp_derived::prefetch_into(pmids, &evaluators, &mut list);
        let trace = self.trace();
        if list.len() > pmids.len() && trace.on(DebugFlag::Derive) && trace.on(DebugFlag::Appl2) {
            let added = &list[pmids.len()..];
            let mut t = format!("derived metrics prefetch added {} metrics:", added.len());
            for p in added {
                t.push_str(&format!(" {p}"));
            }
            t.push('\n');
            trace.write_bytes(t.as_bytes());
        }
        // (the source's result is filled in the one of the last fetch)
        let mut r = std::mem::take(&mut self.derived.fetched);
        let fetched = self.fetch_source_into(&list, &mut r);
        self.derived.asked = list;
        if fetched.is_ok() {
            pcp_derived::postfetch_into(&r, pmids.len(), &mut evaluators, &mut ContextInstances(self), out);
            // one that could not be bound (so not lent out) keeps what the
            // source said of it
            for (set, source) in out.sets.iter_mut().zip(&r.sets) {
                if v.derived.get(set.pmid).is_some() && !evaluators.iter().any(|e| e.pmid() == set.pmid) {
                    set.clone_from(source);
                }
            }
        }
        v.derived.restore_from(&mut evaluators);
        self.derived.lent = evaluators;
        self.derived.fetched = r;
        fetched
    }

    /// A fetch from the source into `out` (its room reused where the
    /// source allows; on an error, what it holds is unspecified), the
    /// anonymous derived metrics given no values.
    fn fetch_source_into(&mut self, pmids: &[PmId], out: &mut FetchResult) -> PmResult<()> {
        let source = self.source.as_deref_mut().ok_or(PmError::PM_ERR_NOCONTEXT)?;
        let before = self.origin;
        let fetched = source.fetch_into(pmids, &self.profile, out, &mut self.origin);
        if self.trace().any() {
            self.fill_record_dumps(before);
        }
        fetched?;
        if self.trace().any() {
            self.trace_received();
        }
        // derived metrics are evaluated over the result (__pmFinishResult);
        // the anonymous event metrics have no operands, so no values
        for set in &mut out.sets {
            if crate::derived::anon_by_pmid(set.pmid).is_some() {
                set.values = Ok(Vec::new());
            }
        }
        Ok(())
    }

    /// `pmStore`: change metrics' values in the source: pmcd's, or in a
    /// local context the agents' (see [`LocalSource::store`]); an archive
    /// stores nothing (`PM_ERR_NOTHOST`), nor does a context of names
    /// alone. No sets is `PM_ERR_TOOSMALL`, a set without values
    /// `PM_ERR_VALUE`.
    #[doc(alias = "pmStore")]
    pub fn store(&self, result: &FetchResult) -> PmResult<()> {
        storable(result)?;
        self.trace_which(1);
        if self.trace().on(pcp_core::debug::DebugFlag::Pdu) {
            self.trace_store(result);
        }
        self.source().map_or(Err(PmError::PM_ERR_NOTHOST), |s| s.store(result))
    }

    /// `pmAddProfile`: include instances of `indom` in fetches (all of
    /// them when `insts` is empty).
    #[doc(alias = "pmAddProfile")]
    pub fn add_profile(&mut self, indom: InDom, insts: &[i32]) -> PmResult<()> {
        self.trace_profile(indom, insts);
        self.profile.add(indom, insts)
    }

    /// `pmDelProfile`: exclude instances of `indom` from fetches (all of
    /// them when `insts` is empty).
    #[doc(alias = "pmDelProfile")]
    pub fn del_profile(&mut self, indom: InDom, insts: &[i32]) -> PmResult<()> {
        self.trace_profile(indom, insts);
        self.profile.delete(indom, insts)
    }

    /// `pmAddProfile`'s and `pmDelProfile`'s look at the current context
    /// (after their check of instances given with no instance domain).
    fn trace_profile(&self, indom: InDom, insts: &[i32]) {
        if !indom.is_null() || insts.is_empty() {
            self.trace_which(1);
        }
    }

    /// The context's current time (libpcp's `c_origin`).
    pub fn origin(&self) -> Timestamp {
        self.origin
    }

    /// Set the current time (as a fetch in an archive context moves it).
    pub fn set_origin(&mut self, t: Timestamp) {
        self.origin = t;
    }

    /// `pmLookupDesc`: the descriptor of `pmid`.
    #[doc(alias = "pmLookupDesc")]
    pub fn lookup_desc(&self, pmid: PmId) -> PmResult<Desc> {
        self.trace_which(1);
        self.lookup_desc_untraced(pmid)
    }

    /// [`Context::lookup_desc`] with no `-Dcontext` line (libpcp turns
    /// its tracing off while it dumps a result).
    pub(crate) fn lookup_desc_untraced(&self, pmid: PmId) -> PmResult<Desc> {
        let v = self.view();
        if let Some(m) = v.derived.get(pmid) {
            self.bind(pmid, true);
            return match &*crate::derived::lock(&m.binding) {
                crate::derived::Binding::Bound(ev) => Ok(ev.desc()),
                _ => Err(PmError::PM_ERR_BADDERIVE),
            };
        }
        // the source is asked first, the anonymous derived metrics after
        match self.need_source().and_then(|s| s.desc(pmid)) {
            Err(
                e @ (PmError::PM_ERR_PMID
                | PmError::PM_ERR_PMID_LOG
                | PmError::PM_ERR_NOAGENT
                | PmError::PM_ERR_NOCONTEXT),
            ) => {
                let a = crate::derived::anon_by_pmid(pmid).ok_or(e)?;
                self.trace_anon_bound(a);
                Ok(a.desc)
            }
            r => r,
        }
    }

    /// The trace of libpcp binding an anonymous derived metric, the first
    /// time its descriptor is asked for.
    fn trace_anon_bound(&self, a: &crate::derived::AnonMetric) {
        use pcp_core::debug::DebugFlag;
        if !self.trace().on(DebugFlag::Derive) {
            return;
        }
        let bit = 1u8 << (a.desc.pmid.item() & 7);
        if self.derived.anon_bound.fetch_or(bit, std::sync::atomic::Ordering::Relaxed) & bit == 0 {
            self.trace().write(format_args!("__dmbind: bind metric[{}] {}\n", a.desc.pmid.item() - 1, a.name));
        }
    }

    /// `pmGetInDom`: the instances of `indom` at the current time: an
    /// archive's ordered by instance identifier, the local machine's in
    /// its agent's order.
    #[doc(alias = "pmGetInDom")]
    pub fn get_indom(&self, indom: InDom) -> PmResult<Instances> {
        // (libpcp refuses PM_INDOM_NULL before it asks for the context)
        if !indom.is_null() {
            self.trace_which(1);
        }
        self.indom_source(indom)?.instances(indom, self.origin)
    }

    /// The source to ask about `indom`: not `PM_INDOM_NULL`
    /// (`PM_ERR_INDOM`).
    fn indom_source(&self, indom: InDom) -> PmResult<&dyn MetricSource> {
        if indom.is_null() {
            return Err(PmError::PM_ERR_INDOM);
        }
        self.need_source()
    }

    /// `pmNameInDom`: an instance's name at the current time.
    #[doc(alias = "pmNameInDom")]
    pub fn name_indom(&self, indom: InDom, inst: i32) -> PmResult<Vec<u8>> {
        // (libpcp refuses PM_INDOM_NULL before it asks for the context)
        if !indom.is_null() {
            self.trace_which(1);
        }
        self.name_indom_untraced(indom, inst)
    }

    /// [`Context::name_indom`] with no `-Dcontext` line.
    pub(crate) fn name_indom_untraced(&self, indom: InDom, inst: i32) -> PmResult<Vec<u8>> {
        self.indom_source(indom)?.instance_name(indom, inst, self.origin)
    }

    /// `pmLookupInDom`: an instance by name at the current time (in a
    /// local context, as the agents' `pmdaInstance` matches names: see
    /// [`crate::local::pmda_instance_by_name`]).
    #[doc(alias = "pmLookupInDom")]
    pub fn lookup_indom(&self, indom: InDom, name: &[u8]) -> PmResult<i32> {
        // (libpcp refuses PM_INDOM_NULL before it asks for the context)
        if !indom.is_null() {
            self.trace_which(1);
        }
        self.indom_source(indom)?.instance_id(indom, name, self.origin)
    }

    /// `pmLookupText`: a metric's help text.
    #[doc(alias = "pmLookupText")]
    pub fn lookup_text(&self, pmid: PmId, level: TextLevel) -> PmResult<Vec<u8>> {
        self.trace_which(1);
        // libpcp looks in the global table alone (masked metrics included)
        if let Some(m) = self.view().derived.iter().find(|m| m.pmid == pmid) {
            if m.local {
                return Err(PmError::PM_ERR_PMID);
            }
            let text = match level {
                TextLevel::OneLine => m.oneline.as_ref(),
                TextLevel::Help => m.helptext.as_ref().or(m.oneline.as_ref()),
            };
            return text.cloned().ok_or(PmError::PM_ERR_TEXT);
        }
        if let Some(a) = crate::derived::anon_by_pmid(pmid) {
            let text = if level == TextLevel::OneLine { a.oneline } else { a.help };
            return Ok(text.as_bytes().to_vec());
        }
        self.need_source()?.text(pmid, level)
    }

    /// `pmLookupInDomText`: an instance domain's help text.
    #[doc(alias = "pmLookupInDomText")]
    pub fn lookup_indom_text(&self, indom: InDom, level: TextLevel) -> PmResult<Vec<u8>> {
        self.trace_which(1);
        self.need_source()?.indom_text(indom, level)
    }
}

/// What `pmStore` checks first: at least one value set
/// (`PM_ERR_TOOSMALL`), and a value in each (`PM_ERR_VALUE`).
pub(crate) fn storable(result: &FetchResult) -> PmResult<()> {
    if result.sets.is_empty() {
        return Err(PmError::PM_ERR_TOOSMALL);
    }
    if result.sets.iter().any(|s| s.values.as_ref().map_or(true, Vec::is_empty)) {
        return Err(PmError::PM_ERR_VALUE);
    }
    Ok(())
}

/// libpcp's default name space of a local context: the default name
/// space file, read without pmcpp (its diagnostics added to
/// `diagnostics`), or the metrics served on a machine without the file;
/// `PM_ERR_NOPMNS` when the file does not parse.
fn default_local_pmns(diagnostics: &mut Vec<u8>) -> Result<Pmns, Error> {
    let file = crate::config::default_pmns();
    let path = file.clone().into_os_string().into_encoded_bytes();
    let var_dir = crate::config::var_dir().into_os_string().into_encoded_bytes();
    let opts = LoadOptions { dupok: true, use_cpp: false, var_dir, trace: false };
    let loaded = pcp_pmns::load(&path, &opts, &mut pcp_pmns::cpp::OsFiles);
    match loaded.pmns {
        Ok(p) => {
            diagnostics.extend_from_slice(&loaded.diagnostics);
            Ok(p)
        }
        // no file to read: a machine without PCP
        Err(e) if e.code().errno().is_some() => Ok(builtin_pmns()),
        Err(_) => {
            diagnostics.extend_from_slice(&loaded.diagnostics);
            Err(Error::new(PmError::PM_ERR_NOPMNS, Subject::Namespace(file)))
        }
    }
}

/// libpcp's `-Dcontext` trace of `pmNewContext` making an archive
/// context (a tool's first: handle 0) over `name`, and its dump of the
/// new context (`__pmDumpContext`): each archive of the list named, not
/// open yet, the current time at `origin`, an empty instance profile.
#[doc(hidden)] // tool support: pmdumplog reads the archive itself
pub fn trace_new_archive_context(trace: &Trace, name: &str, origin: Timestamp) {
    let mut s =
        format!("pmNewContext(2, {name}) -> 0\nDump Contexts: current -> contexts[0] handle 0\ncontexts[0] handle 0:");
    // the first archive is open, but libpcp knows it by its own name for
    // it (its base name, "./" before one with no directory): a name
    // given otherwise is "not open"
    for (i, log) in name.split(',').enumerate() {
        s.push_str(&format!(" log {log}:"));
        let own = pcp_archive::opentrace::lcp_name(&pcp_archive::files::archive_base(log));
        let open = if i == 0 && own == log { pcp_archive::opentrace::open_fds(log, true) } else { None };
        match open {
            Some((ti, md, m, offset)) => s.push_str(&format!(
                " mode=FORW profile=NOT_SENT tifd={ti} mdfd={md} mfd={m}\nrefcnt=1 vol=0 offset={offset} (vol=0) serial=0"
            )),
            None => s.push_str(" not open\n"),
        }
    }
    s.push_str(&format!(" origin={}.{:09} delta=0.000000000\n", origin.sec, origin.nsec));
    s.push_str("Dump Instance Profile state=INCLUDE, 0 profiles\n");
    trace.write_bytes(s.as_bytes());
}

/// libpcp's `-Dpmns` trace of loading the default name space (as
/// [`default_local_pmns`] does), written to `trace`: the file is read
/// again for it, only when traced.
fn trace_default_pmns_load(trace: &Trace) {
    let file = crate::config::default_pmns().into_os_string().into_encoded_bytes();
    let var_dir = crate::config::var_dir().into_os_string().into_encoded_bytes();
    let opts = LoadOptions { dupok: true, use_cpp: false, var_dir, trace: true };
    let loaded = pcp_pmns::load(&file, &opts, &mut pcp_pmns::cpp::OsFiles);
    // libpcp names no file (PM_NS_DEFAULT, a null pointer) in its first line
    let d = &loaded.diagnostics;
    let rest = d.iter().position(|&b| b == b'\n').map_or(&d[..0], |i| &d[i + 1..]);
    trace.write_bytes(b"load(name=(null), dupok=1, use_cpp=0) lic case=0 fname=");
    trace.write_bytes(&file);
    trace.write_bytes(b"\n");
    trace.write_bytes(rest);
}

/// An archive's names, as libpcp adds them: each in turn to the front of
/// its parent's children, archive by archive.
fn archive_pmns(source: &ArchiveSource) -> Pmns {
    let mut pmns = Pmns::new();
    pmns.add_archive_names(
        source
            .meta()
            .names_by_archive()
            .map(|names| names.iter().map(|(n, id)| (std::str::from_utf8(n).unwrap_or("\u{fffd}"), *id))),
    );
    pmns
}

/// The name space of the metrics served: the agents' names in their
/// order.
fn builtin_pmns() -> Pmns {
    let mut pmns = Pmns::new();
    pmns.add_names(crate::local::builtin_names());
    pmns
}
