//! Derived metrics in a context: binding the registered ones, adding
//! the context's own, and what the checker and the evaluator ask of the
//! context.

use super::Context;
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
    /// Call it once, after the context's name space is settled
    /// ([`Context::use_namespace_of`] replaces the names it adds).
    #[doc(alias = "__dmopencontext")]
    pub fn bind_derived(&mut self, registry: &crate::derived::Registry) {
        // pmcd's names are asked about a derived name only when it is bound
        // (libpcp's __dmbind), so a host context puts the check off to then
        let remote = self.remote_names().is_some();
        let defs: Vec<&pcp_derived::Definition> = registry
            .metrics()
            .iter()
            .filter(|d| !d.anon && (remote || !pcp_derived::check::shadowed(&d.name, &mut ContextCatalog(self))))
            .collect();
        self.pmns.add_names(defs.iter().map(|d| (d.name.as_str(), d.pmid)));
        let bound: Vec<crate::derived::BoundMetric> = defs
            .into_iter()
            .map(|d| crate::derived::BoundMetric {
                pmid: d.pmid,
                name: d.name.clone(),
                expr: d.expr.clone(),
                oneline: d.oneline.clone(),
                helptext: d.helptext.clone(),
                binding: std::sync::Mutex::new(crate::derived::Binding::Unbound),
                announced: std::sync::atomic::AtomicBool::new(false),
                local: false,
                masked: false,
            })
            .collect();
        self.derived.reserve(bound.len());
        for m in bound {
            self.derived.push(m);
        }
        self.derived.limit = registry.limit();
        self.derived.counter_decrease = registry.counter_decrease();
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
        let locals: Vec<PmId> = self.derived.metrics.iter().filter(|m| m.local).map(|m| m.pmid).collect();
        if self.derived.limit.is_some_and(|limit| locals.len() >= limit) {
            return table("Too many per-context derived metrics");
        }
        if self.derived.metrics.iter().any(|m| m.local && m.name == name) {
            return table("Duplicate per-context derived metric name");
        }
        // a global metric of the name is masked, whatever happens next;
        // the per-context one's name comes after the context's others
        for m in self.derived.metrics.iter_mut().filter(|m| m.name == name) {
            m.masked = true;
            if self.pmns.lookup(name) == Ok(m.pmid) {
                self.pmns.remove_name(name);
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
        if !shadowed {
            self.pmns.add_names([(name, pmid)]);
        }
        self.derived.push(BoundMetric {
            pmid,
            name: name.to_string(),
            expr: pcp_derived::LazyExpr::parsed(text.as_bytes(), tree),
            oneline: None,
            helptext: None,
            binding: std::sync::Mutex::new(if shadowed { Binding::Failed(None) } else { Binding::Unbound }),
            announced: std::sync::atomic::AtomicBool::new(true),
            local: true,
            masked: false,
        });
        if shadowed {
            return Ok(pmid);
        }
        // bound at once, its error returned rather than reported
        let Some(m) = self.derived.get(pmid) else { return Ok(pmid) };
        *lock(&m.binding) = Binding::Failed(None);
        // (parsed above)
        let Ok(tree) = m.expr.tree() else { return Ok(pmid) };
        let binding = match pcp_derived::check::check(&m.name, pmid, &tree, &mut ContextCatalog(self)) {
            Ok(checked) => Binding::Bound(Box::new(self.derived.evaluator(tree, checked))),
            Err(e) => {
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

    /// Whether a derived metric of this name is shadowed here: a real
    /// metric has the name, and wins.
    pub(super) fn shadowed(&self, name: &str) -> bool {
        pcp_derived::check::shadowed(name, &mut ContextCatalog(self))
    }

    /// Have the derived metrics bound afresh when next used (libpcp's
    /// `__dmclosecontext` and `__dmopencontext` on reconnection): the
    /// global ones, their failures reported again, and the context's own
    /// that were bound (those refused when added stay refused).
    pub(crate) fn unbind_derived(&self) {
        use crate::derived::{lock, Binding};
        use std::sync::atomic::Ordering;
        for m in &self.derived.metrics {
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
        self.derived.get(pmid).is_some()
    }

    /// What libpcp would have written to standard error (`pmprintf` then
    /// `pmflush`) since last asked: the semantic errors of derived metrics
    /// bound by descriptor lookups and fetches. A tool writes them out
    /// after each such call.
    #[doc(alias = "pmflush")]
    #[doc(hidden)] // tool support: the bytes, to write as they are
    pub fn take_messages(&self) -> Vec<u8> {
        std::mem::take(&mut *crate::derived::lock(&self.derived.messages))
    }

    /// What libpcp would have written to standard error since last asked
    /// (`pmprintf`, then `pmflush`): the semantic errors of derived
    /// metrics found when descriptor lookups and fetches bind them, one
    /// [`Diagnostic`](super::Diagnostic) a line.
    #[doc(alias = "pmflush")]
    pub fn diagnostics(&self) -> Vec<super::Diagnostic> {
        super::Diagnostic::lines(&self.take_messages())
    }

    /// Bind derived metric `pmid` if it is one not bound yet
    /// (`__dmbind`); `announce`: as libpcp binds it (its failure reported
    /// and its name hidden from then on), else only to read ahead.
    pub(super) fn bind(&self, pmid: PmId, announce: bool) {
        use crate::derived::{lock, Binding};
        let Some(m) = self.derived.get(pmid) else { return };
        // (another thread binding it: its answer is awaited)
        let unsettled = |b: &Binding| matches!(b, Binding::Unbound | Binding::Checking);
        let waits = unsettled(&lock(&m.binding));
        let _pass = waits.then(|| self.derived.gate.pass());
        if matches!(*lock(&m.binding), Binding::Unbound) {
            // while it is checked, a metric that names it finds it failed
            *lock(&m.binding) = Binding::Checking;
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
                        Ok(checked) => Binding::Bound(Box::new(self.derived.evaluator(tree, checked))),
                        Err(e) => Binding::Failed(e.report),
                    },
                }
            };
            *lock(&m.binding) = binding;
        }
        if announce && !m.announced.swap(true, std::sync::atomic::Ordering::Relaxed) {
            if let Binding::Failed(Some(report)) = &*lock(&m.binding) {
                lock(&self.derived.messages).extend_from_slice(report);
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
}

/// A context as derived-metric evaluation sees its instance domains: at
/// the time of the values being evaluated.
pub(super) struct ContextInstances<'a>(pub(super) &'a Context);

impl pcp_derived::Instances for ContextInstances<'_> {
    fn inst_name(&mut self, indom: InDom, inst: i32, at: Timestamp) -> Option<Vec<u8>> {
        self.0.indom_source(indom).ok()?.instance_name(indom, inst, at).ok()
    }

    fn inst_id(&mut self, indom: InDom, name: &[u8], at: Timestamp) -> Option<i32> {
        self.0.indom_source(indom).ok()?.instance_id(indom, name, at).ok()
    }

    fn instances(&mut self, indom: InDom, at: Timestamp) -> Result<Vec<i32>, PmError> {
        self.0.indom_source(indom)?.instances(indom, at).map(|(ids, _)| ids)
    }
}
