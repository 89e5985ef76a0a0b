//! Derived metrics in a context: binding the registered ones, adding
//! the context's own, and what the checker and the evaluator ask of the
//! context.

use super::Context;
use pcp_core::debug::DebugFlag;
use pcp_core::{Desc, InDom, PmError, PmId, Timestamp};

impl Context {
    /// Take the registered derived metrics of `registry` into this
    /// context, as libpcp does when it makes a context: a metric whose
    /// name is a real metric's here is ignored (the real one wins); the
    /// others' names join the context's name space (after the names it
    /// has, in registration order). Each is bound (checked against the
    /// context's metrics) the first time its descriptor is asked for or it
    /// is fetched; one that cannot be bound keeps its name, but its
    /// descriptor is `PM_ERR_BADDERIVE`, listings leave it out from then
    /// on, and its semantic error goes to `messages` (libpcp's `pmprintf`
    /// buffer, written out at exit).
    ///
    /// The context has the metrics `registry` has now; one shared with
    /// [`Context::use_registry`] brings those registered later too. Call
    /// one of them once, after the context's name space is settled
    /// ([`Context::use_namespace_of`] replaces the names it adds).
    #[doc(alias = "__dmopencontext")]
    pub fn bind_derived(&mut self, registry: &crate::derived::Registry) {
        if self.trace().on(DebugFlag::Derive) && self.trace().on(DebugFlag::Appl1) && self.is_libpcp_context() {
            // (a tool's one context is libpcp's context 0; names loaded
            // from a file alone are none)
            let n = registry.metrics().len();
            self.trace().write(format_args!("__dmopencontext(->ctx 0) called, {n} derived metrics\n"));
        }
        self.take_in_now(registry.metrics());
        self.derived.addresses = registry.addresses().clone();
        self.derived.limit = registry.limit();
        self.derived.counter_decrease = registry.counter_decrease();
    }

    /// Give this context the global derived metrics of `registry`, as
    /// [`Context::bind_derived`] does, and those registered in it later
    /// too: as pmRegisterDerived(3) says, they are available in every
    /// context, whenever registered. The context takes them in when it
    /// next looks a name, PMID, descriptor or value up; its duplicates
    /// ([`Context::dup`]) share the registry. The limit on per-context
    /// metrics and the `rate()` rule are the registry's now.
    #[doc(alias = "__dmopencontext")]
    pub fn use_registry(&mut self, registry: &crate::derived::SharedRegistry) {
        let (limit, rule) = {
            let r = registry.read();
            self.derived.addresses = r.addresses().clone();
            (r.limit(), r.counter_decrease())
        };
        self.derived.limit = limit;
        self.derived.counter_decrease = rule;
        self.shared = Some(registry.clone());
        self.take_in_shared(registry);
    }

    /// Take in the metrics `shared` has that the context has not seen
    /// (libpcp's refresh of a context's list from the global one).
    pub(super) fn take_in_shared(&self, shared: &crate::derived::SharedRegistry) {
        let current = self.current_view();
        let seen = current.globals_seen;
        let defs: Vec<pcp_derived::Definition> = {
            let r = shared.read();
            match r.metrics().get(seen..) {
                Some(new) if !new.is_empty() => new.to_vec(),
                _ => return,
            }
        };
        let mut next = (*current).clone();
        drop(current);
        self.take_in(&mut next, &defs);
        next.globals_seen = seen + defs.len();
        let mut held = self.view.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        // (another thread may have taken them in meanwhile)
        if held.globals_seen == seen {
            *held = std::sync::Arc::new(next);
        }
    }

    /// [`Context::take_in`] into the context's view now (taken out
    /// meanwhile, as taking in looks at the source alone).
    fn take_in_now(&mut self, defs: &[pcp_derived::Definition]) {
        let mut next = std::mem::replace(self.view_mut(), super::View::empty());
        self.take_in(&mut next, defs);
        self.set_view(next);
    }

    /// Add global definitions `defs` to `view`: the anonymous ones and
    /// those whose name is a real metric's are left out (a host context
    /// puts that check off to binding, when pmcd is asked, as libpcp's
    /// `__dmbind` does); the names of the others join the name space in
    /// order, but for one a per-context metric of the same name masks.
    fn take_in(&self, view: &mut super::View, defs: &[pcp_derived::Definition]) {
        let remote = self.remote_names().is_some();
        let mut shadowed = Vec::new();
        let taken: Vec<(&pcp_derived::Definition, bool)> = defs
            .iter()
            .filter(|d| {
                let real = !d.anon && !remote && self.real_name_in(&view.pmns, &d.name);
                if real {
                    shadowed.push(d.name.clone());
                }
                !d.anon && !real
            })
            .map(|d| (d, view.derived.iter().any(|m| m.local && m.name == d.name)))
            .collect();
        view.pmns.add_names(taken.iter().filter(|(_, masked)| !masked).map(|(d, _)| (d.name.as_str(), d.pmid)));
        for (d, masked) in taken {
            view.derived.push(crate::derived::BoundMetric::global(d, masked));
        }
        view.shadowed.extend(shadowed);
    }

    /// `pmAddDerived`: a derived metric of this context alone. Its PMID
    /// is the context's next from 511.2047.1023 downwards (with the
    /// PMID's top bit set, as libpcp marks them); it masks a global
    /// derived metric of the same name in this context, and it is bound
    /// at once. Errors are libpcp's, in its order: too many per-context
    /// metrics (the registry's limit when [`Context::bind_derived`] took
    /// it), a name already added to this context, a syntax error, no
    /// PMIDs left, then a semantic error. As in libpcp 6.0.3, a metric
    /// whose operands are not all known here, or whose name is a real
    /// metric's (the real one wins), is added without error but cannot be
    /// used: its descriptor is `PM_ERR_BADDERIVE` and listings leave it
    /// out. [`pcp_derived::add_message`] gives `pmAddDerivedMetric`'s
    /// message for an error.
    ///
    /// libpcp counts the PMIDs with one counter shared by all contexts,
    /// so that contexts adding metrics in turn may hand out a PMID twice
    /// in one context; here each context counts its own.
    #[doc(alias = "pmAddDerived")]
    #[doc(alias = "pmAddDerivedMetric")]
    pub fn add_derived(&mut self, name: &str, expr: &str) -> Result<PmId, pcp_derived::AddError> {
        use crate::derived::{lock, Binding, BoundMetric};
        use pcp_derived::AddError;
        let name = cstr(name);
        let text = cstr(expr);
        let table = |why: &str| Err(AddError::Table(why.as_bytes().to_vec()));
        let limit = self.derived.limit;
        let view = self.view_mut();
        let locals: Vec<PmId> = view.derived.iter().filter(|m| m.local).map(|m| m.pmid).collect();
        if limit.is_some_and(|limit| locals.len() >= limit) {
            return table("Too many per-context derived metrics");
        }
        if view.derived.iter().any(|m| m.local && m.name == name) {
            return table("Duplicate per-context derived metric name");
        }
        // a global metric of the name is masked, whatever happens next;
        // the per-context one's name comes after the context's others
        for m in view.derived.list.iter().filter(|m| m.name == name) {
            m.masked.store(true, std::sync::atomic::Ordering::Relaxed);
            if view.pmns.lookup(name) == Ok(m.pmid) {
                view.pmns.remove_name(name);
            }
        }
        let tree = pcp_derived::parse_bytes(text.as_bytes(), &mut self.derived.parse).map_err(AddError::Syntax)?;
        let pmid = match locals.last() {
            None => PmId(0x8000_0000 | PmId::new(pcp_derived::registry::DERIVED_DOMAIN, 2047, 1023).0),
            Some(last) if last.item() > 1 => PmId(last.0 - 1),
            Some(last) if last.cluster() > 0 => PmId((last.0 & !0x3f_ffff) | ((last.cluster() - 1) << 10) | 1023),
            Some(_) => return table("per-context PMID space exhausted"),
        };
        let shadowed = pcp_derived::check::shadowed(name, &mut ContextCatalog(self));
        let view = self.view_mut();
        if !shadowed {
            view.pmns.add_names([(name, pmid)]);
        }
        view.derived.push(BoundMetric {
            pmid,
            name: name.to_string(),
            expr: pcp_derived::LazyExpr::parsed(text.as_bytes(), tree),
            oneline: None,
            helptext: None,
            binding: std::sync::Mutex::new(if shadowed { Binding::Failed(None) } else { Binding::Unbound }),
            announced: std::sync::atomic::AtomicBool::new(true),
            local: true,
            masked: std::sync::atomic::AtomicBool::new(false),
            startup: false,
        });
        if shadowed {
            return Ok(pmid);
        }
        // bound at once, its error returned rather than reported
        let v = self.view();
        let Some(m) = v.derived.get(pmid) else { return Ok(pmid) };
        *lock(&m.binding) = Binding::Failed(None);
        // (parsed above)
        let Ok(tree) = m.expr.tree() else { return Ok(pmid) };
        let binding = match pcp_derived::check::check(&m.name, pmid, &tree, &mut ContextCatalog(self)) {
            Ok(checked) => Binding::Bound(Box::new(self.derived.evaluator(tree, checked))),
            Err(e) => {
                self.trace_check_detail(&e);
                *lock(&m.binding) = Binding::Failed(None);
                // an operand that cannot be looked up is no error to
                // libpcp here (it says nothing of it), only a broken rule
                return match (e.report, e.reason) {
                    (Some(_), Some(why)) => Err(AddError::Semantic(why.as_bytes().to_vec())),
                    _ => Ok(pmid),
                };
            }
        };
        *lock(&m.binding) = binding;
        Ok(pmid)
    }

    /// Have the derived metrics bound afresh when next used (libpcp's
    /// `__dmclosecontext` and `__dmopencontext` on reconnection): the
    /// global ones, their failures reported again, and the context's own
    /// that were bound (those refused when added stay refused).
    pub(crate) fn unbind_derived(&self) {
        use crate::derived::{lock, Binding};
        use std::sync::atomic::Ordering;
        for m in self.view().derived.iter() {
            let mut binding = lock(&m.binding);
            if !m.local {
                *binding = Binding::Unbound;
                m.announced.store(false, Ordering::Relaxed);
            } else if matches!(*binding, Binding::Bound(_)) {
                *binding = Binding::Unbound;
            }
        }
    }

    /// Whether `pmid` is one of this context's derived metrics.
    pub(crate) fn is_derived_here(&self, pmid: PmId) -> bool {
        self.view().derived.get(pmid).is_some()
    }

    /// What libpcp would have written to standard error (`pmprintf` then
    /// `pmflush`) since last asked: the semantic errors of derived metrics
    /// bound by descriptor lookups and fetches. A tool writes them out
    /// after each such call.
    #[doc(alias = "pmflush")]
    #[doc(hidden)] // tool support: the bytes, to write as they are
    pub fn take_messages(&self) -> Vec<u8> {
        self.derived.messages.take()
    }

    /// Trace what this context does from now on as `trace`'s debug
    /// options select (`-D`, `$PCP_DEBUG`: `derive`, `fetch`, `pdu`,
    /// `log`, `interp`, ... in libpcp's words), into `trace`'s buffer; the
    /// derived metrics' messages go there too, in order. A context's own
    /// trace is off, its buffer drained by [`Context::diagnostics`].
    ///
    /// ```
    /// # let name = concat!(env!("CARGO_MANIFEST_DIR"), "/../pcp-archive/tests/fixtures/v3");
    /// use pcp::debug::{DebugOptions, Trace};
    /// let trace = Trace::new(DebugOptions::parse(b"log")?);
    /// let mut ctx = pcp::Context::archive(name).open()?;
    /// ctx.set_trace(trace.clone());
    /// assert!(ctx.trace().shares_buffer(&trace));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[doc(alias = "pmSetDebug")]
    pub fn set_trace(&mut self, trace: pcp_core::debug::Trace) {
        if let Some(s) = self.source.as_mut() {
            s.set_trace(&trace);
        }
        self.derived.messages = trace;
    }

    /// Hold `report`, what starting the derived metrics up wrote, until
    /// this context's first service that libpcp's `__dminit` runs in
    /// (walking, listing children, a name not in the name space, a
    /// PMID's names): with no context, libpcp starts them up only then.
    #[doc(hidden)] // tool support: pminfo -n with no context
    pub fn defer_derived_startup(&self, report: Vec<u8>) {
        *self.derived.startup.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = report;
    }

    /// Write what [`Context::defer_derived_startup`] held back, once.
    pub(super) fn derived_startup(&self) {
        let report =
            std::mem::take(&mut *self.derived.startup.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        if !report.is_empty() {
            self.trace().write_bytes(&report);
        }
    }

    /// Where this context's trace and messages go ([`Context::set_trace`]).
    pub fn trace(&self) -> &pcp_core::debug::Trace {
        &self.derived.messages
    }

    /// What libpcp would have written to standard error since last asked
    /// (`pmprintf`, then `pmflush`): the semantic errors of derived
    /// metrics found when descriptor lookups and fetches bind them, one
    /// [`Diagnostic`](super::Diagnostic) a line.
    #[doc(alias = "pmflush")]
    pub fn diagnostics(&self) -> Vec<super::Diagnostic> {
        super::Diagnostic::lines(&self.take_messages())
    }

    /// libpcp's trace of a name the name space did not have, looked up
    /// among the derived metrics (`__dmgetpmid`): its PMID, or none.
    pub(super) fn trace_dmgetpmid(&self, name: &str, pmid: Option<PmId>) {
        if self.trace().on(DebugFlag::Appl2) && !self.is_libpcp_context() {
            // (with no context libpcp asks the global metrics)
            self.trace().write(format_args!("__dmgetpmid: using registered for metric \"{name}\"\n"));
        }
        match pmid {
            Some(p) => self.trace().write(format_args!("__dmgetpmid: metric \"{name}\" -> PMID {p}\n")),
            None => self.trace().write(format_args!("__dmgetpmid: metric \"{name}\" -> {}\n", PmError::PM_ERR_NAME)),
        }
    }

    /// What libpcp traces when the context is destroyed: under `-Dderive`
    /// (`__dmclosecontext`) its count of derived metrics (the address of
    /// its table of them is a stand-in), then under `-Dcontext`
    /// `pmDestroyContext`'s result.
    #[doc(alias = "__dmclosecontext")]
    #[doc(alias = "pmDestroyContext")]
    pub fn trace_destroy(&self) {
        // (the archive's interpolation state goes first)
        if let Some(a) = self.archive_source() {
            a.trace_destroy();
        }
        if self.trace().on(DebugFlag::Derive) {
            // (the anonymous metrics are libpcp's too)
            let n = self.view().derived.iter().count() + crate::derived::ANON.len();
            let addr = self.derived.addresses.reserve(1);
            self.trace().write(format_args!("__dmclosecontext(->ctx 0) called dm->{addr:#x} {n} metrics\n"));
        }
        // (a tool's first and only context: none is current after it)
        self.trace().changed(super::CURRENT_HANDLE, -1);
        if self.trace().on(DebugFlag::Context) {
            self.trace().write_bytes(b"pmDestroyContext(0) -> 0, curr_handle=-1\n");
        }
    }

    /// What libpcp's checker says of a failure under `-Dderive,appl1`
    /// before its report.
    fn trace_check_detail(&self, e: &pcp_derived::check::SemanticError) {
        if let Some(d) = &e.detail {
            if self.trace().on(DebugFlag::Derive) && self.trace().on(DebugFlag::Appl1) {
                self.trace().write_bytes(d.as_bytes());
            }
        }
    }

    /// Bind derived metric `pmid` if it is one not bound yet
    /// (`__dmbind`); `announce`: as libpcp binds it (its failure reported
    /// and its name hidden from then on), else only to read ahead.
    pub(super) fn bind(&self, pmid: PmId, announce: bool) {
        use crate::derived::{lock, Binding};
        let v = self.view();
        let Some(m) = v.derived.get(pmid) else { return };
        // (another thread binding it: its answer is awaited)
        let unsettled = |b: &Binding| matches!(b, Binding::Unbound | Binding::Checking);
        let waits = unsettled(&lock(&m.binding));
        let _pass = waits.then(|| self.derived.gate.pass());
        let mut dump = None;
        if matches!(*lock(&m.binding), Binding::Unbound) {
            // while it is checked, a metric that names it finds it failed
            *lock(&m.binding) = Binding::Checking;
            let t = self.trace();
            let seen = t.on(DebugFlag::Derive) || t.on(DebugFlag::Pmns) || t.on(DebugFlag::Context);
            if seen && self.remote_names().is_none() {
                // libpcp looks the metric's own name up first (traced)
                let _ = self.lookup_name(&m.name);
            }
            let binding = if self.remote_names().is_some()
                && pcp_derived::check::shadowed(&m.name, &mut ContextCatalog(self))
            {
                // a real metric of pmcd's has the name: it wins, silently
                Binding::Failed(None)
            } else {
                match m.expr.tree() {
                    // (no tree: registration parses what it cannot
                    // promise will parse, so this is not met)
                    Err(_) => Binding::Failed(None),
                    Ok(tree) => match pcp_derived::check::check(&m.name, m.pmid, &tree, &mut ContextCatalog(self)) {
                        Ok(checked) => {
                            let ev = self.derived.evaluator(tree, checked);
                            if self.trace().on(DebugFlag::Derive) && self.trace().on(DebugFlag::Appl1) {
                                let mut d = Vec::new();
                                pcp_derived::trace::write_bound_dump(&mut d, &ev);
                                dump = Some(d);
                            }
                            Binding::Bound(Box::new(ev))
                        }
                        // the stock configuration stays as quiet as 6.0.3
                        Err(e) if m.startup && e.beyond_6_0_3() => Binding::Failed(None),
                        Err(e) => {
                            self.trace_check_detail(&e);
                            Binding::Failed(e.report)
                        }
                    },
                }
            };
            *lock(&m.binding) = binding;
        }
        if announce && !m.announced.swap(true, std::sync::atomic::Ordering::Relaxed) {
            match &*lock(&m.binding) {
                Binding::Failed(Some(report)) => self.derived.messages.write_bytes(report),
                Binding::Bound(_) | Binding::Lent if self.trace().on(DebugFlag::Derive) => {
                    self.trace().write(format_args!("__dmbind: bind metric[{}] {}\n", m.index(), m.name));
                    if let Some(d) = dump {
                        self.trace().write_bytes(&d);
                    }
                }
                _ => {}
            }
        }
    }
}

/// A C string's text: up to the first NUL.
fn cstr(s: &str) -> &str {
    s.split('\0').next().unwrap_or(s)
}

/// A context as the derived-metric checker sees it.
struct ContextCatalog<'a>(&'a Context);

impl pcp_derived::check::Catalog for ContextCatalog<'_> {
    fn lookup_name(&mut self, name: &str) -> Result<PmId, PmError> {
        match self.0.lookup_name(name)? {
            PmId::NULL => Err(PmError::PM_ERR_NAME),
            p => Ok(p),
        }
    }

    fn lookup_desc(&mut self, pmid: PmId) -> Result<Desc, PmError> {
        // a derived operand is bound as pmLookupDesc binds it (one being
        // bound, as when a metric names itself, is PM_ERR_BADDERIVE)
        self.0.lookup_desc(pmid)
    }

    fn operand_failed(&mut self, metric: &str, name: &str, pmid: Option<PmId>, err: PmError) {
        let trace = self.0.trace();
        if trace.on(DebugFlag::Derive) {
            match pmid {
                None => {
                    trace.write(format_args!("bind_expr: error: derived metric {metric}: operand: {name}: {err}\n"))
                }
                Some(p) => trace
                    .write(format_args!("bind_expr: error: derived metric {metric}: operand ({name} [{p}]): {err}\n")),
            }
        }
    }
}

/// A context as derived-metric evaluation sees its instance domains: at
/// the time of the values being evaluated.
pub(super) struct ContextInstances<'a>(pub(super) &'a Context);

impl pcp_derived::Instances for ContextInstances<'_> {
    fn inst_name(&mut self, indom: InDom, inst: i32, at: Timestamp) -> Option<Vec<u8>> {
        self.0.indom_source(indom).ok()?.instance_name(indom, inst, at).ok()
    }

    fn inst_id(&mut self, indom: InDom, name: &[u8], at: Timestamp) -> Result<i32, PmError> {
        self.0.indom_source(indom)?.instance_id(indom, name, at)
    }

    fn instances(&mut self, indom: InDom, at: Timestamp) -> Result<Vec<i32>, PmError> {
        self.0.indom_source(indom)?.instances(indom, at).map(|(ids, _)| ids)
    }
}
