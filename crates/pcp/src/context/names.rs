//! A context's names: the name space it holds, or its source's own
//! (pmcd's), with the derived metrics' names joined to either.

use super::{Context, PmnsLocation};
use pcp_core::debug::{DebugFlag, DebugOptions, Trace};
use pcp_core::error::Subject;
use pcp_core::{Error, PmError, PmId, PmResult};
use pcp_pdu::pmns::{PMNS_LEAF_STATUS, PMNS_NONLEAF_STATUS};
use pcp_pmns::cpp::Files;
use pcp_pmns::{LoadOptions, Loaded, Pmns};
use std::sync::Arc;

impl Context {
    /// Take the name space loaded into `loaded` (a context made by
    /// [`Context::load_namespace`]): as after `pmLoadASCIINameSpace`, this
    /// context's names then come from it, whatever the metrics' source.
    #[doc(alias = "pmLoadASCIINameSpace")]
    pub fn use_namespace_of(&mut self, loaded: Context) {
        self.view_mut().pmns = loaded.into_namespace();
        self.location = PmnsLocation::Local;
        self.loaded = true;
    }

    /// `pmUnloadNameSpace`: drop the name space loaded into this context
    /// (from a file: [`Context::use_namespace_of`], or given when it was
    /// made), so that its names are its source's again: pmcd's for a host
    /// context, the archive's for an archive context, the default name
    /// space for a local context (as [`Context::open_local`] reads it),
    /// and none for a context of names alone. The derived metrics' names
    /// join the new names, as they joined the old (but for one a real
    /// metric's name now shadows). With no name space loaded, nothing
    /// changes. A local context whose default name space file does not
    /// parse is left with no names and `PM_ERR_NOPMNS`, as libpcp's name
    /// services then fail.
    #[doc(alias = "pmUnloadNameSpace")]
    pub fn unload_namespace(&mut self) -> Result<(), pcp_core::Error> {
        if !self.loaded {
            return Ok(());
        }
        self.loaded = false;
        let mut result = Ok(());
        let (pmns, location) = match self.source() {
            Some(s) if s.remote_names().is_some() => (Pmns::new(), PmnsLocation::Remote),
            Some(s) => match s.as_archive() {
                Some(a) => (super::archive_pmns(a), PmnsLocation::Archive),
                None if s.as_local().is_some() => {
                    let pmns = super::default_local_pmns(&mut Vec::new());
                    result = pmns.as_ref().map(|_| ()).map_err(Clone::clone);
                    (pmns.unwrap_or_default(), PmnsLocation::Local)
                }
                None => (Pmns::new(), PmnsLocation::Local),
            },
            None => (Pmns::new(), PmnsLocation::Local),
        };
        let mut pmns = pmns;
        self.location = location;
        let v = self.view();
        self.derived_names_into(&mut pmns, &v.derived);
        drop(v);
        self.view_mut().pmns = pmns;
        result
    }

    /// Add the derived metrics' names (the anonymous ones', then those of
    /// `metrics`, in order) to a name space the context is taking; a
    /// remote name space has them apart. A metric whose name is a real
    /// metric's there is left out (the real one wins).
    pub(super) fn derived_names_into(&self, pmns: &mut Pmns, metrics: &crate::derived::Metrics) {
        if self.location == PmnsLocation::Remote {
            return;
        }
        pmns.add_names(crate::derived::ANON.iter().map(|a| (a.name, a.desc.pmid)));
        for m in metrics.iter().filter(|m| !m.is_masked()) {
            if !self.real_name_in(pmns, &m.name) {
                pmns.add_names([(m.name.as_str(), m.pmid)]);
            }
        }
    }

    /// Whether `name` is a real (not derived) metric's in `pmns`, as this
    /// context resolves names.
    /// A name the name space has only below the root of a dynamic subtree
    /// (not a node of its own) is not a real metric's here: a derived
    /// metric of that name is listed, as libpcp lists it (lookups of the
    /// name still give the subtree root's PMID, see [`Pmns::lookup`]).
    pub(super) fn real_name_in(&self, pmns: &Pmns, name: &str) -> bool {
        let Ok(pmid) = pmns.lookup(name) else { return false };
        if pmid.is_dynamic_root() && pmns.locate(name).is_none() {
            return false;
        }
        self.resolve(pmid).is_ok_and(|p| !p.is_null() && !pcp_derived::check::is_derived(p))
    }

    /// Load an ASCII name space file (through pmcpp, as libpcp does) and
    /// make a context of it; the diagnostics libpcp would print come back
    /// either way. The error names the file.
    #[doc(alias = "pmLoadASCIINameSpace")]
    pub fn load_namespace(path: &[u8], dupok: bool, files: &mut dyn Files) -> (Result<Context, Error>, Vec<u8>) {
        let (ctx, diagnostics, _) = Context::load_namespace_keeping(path, dupok, files, DebugOptions::NONE);
        (ctx, diagnostics)
    }

    /// [`Context::load_namespace`], also saying whether libpcp would keep
    /// the load as the process's name space (see [`Loaded::kept`]): once
    /// kept, even a failed one, libpcp refuses another load. With `debug`'s
    /// `pmns` option the diagnostics have libpcp's trace of the load.
    #[doc(hidden)] // tool support: pminfo -n's single-load rule
    pub fn load_namespace_keeping(
        path: &[u8],
        dupok: bool,
        files: &mut dyn Files,
        debug: DebugOptions,
    ) -> (Result<Context, Error>, Vec<u8>, bool) {
        let var_dir = crate::config::var_dir().into_os_string().into_encoded_bytes();
        let opts = LoadOptions { dupok, use_cpp: true, var_dir, trace: debug.contains(DebugFlag::Pmns) };
        let Loaded { pmns, mut diagnostics, kept } = pcp_pmns::load(path, &opts, files);
        if debug.contains(DebugFlag::Context) {
            // (libpcp asks for the current context first: there is none)
            let which = format!("pmWhichContext() -> {}, cur=-1\n", PmError::PM_ERR_NOCONTEXT.code());
            diagnostics.splice(0..0, which.into_bytes());
        }
        (pmns.map(Context::with_namespace), diagnostics, kept)
    }

    /// A context of an archive's names alone, read apart from a context
    /// over the archive (as pmdumplog reads the archive itself): as
    /// [`Context::with_namespace`], but its names are an archive's
    /// (`PMNS_ARCHIVE`), not loaded from a file.
    pub fn with_archive_namespace(pmns: Pmns) -> Context {
        let mut ctx = Context::with_namespace(pmns);
        ctx.location = PmnsLocation::Archive;
        ctx.loaded = false;
        ctx
    }

    /// Whether every metric name at or below `name` is a derived
    /// metric's (none is in a name space of libpcp's own), asked without
    /// a trace.
    #[doc(hidden)] // tool support: pmdumplog's lookups
    pub fn only_derived_below(&self, name: &str) -> bool {
        let v = self.view();
        let mut real = false;
        let _ = v.pmns.traverse_with(name, |leaf| {
            real |= !v.pmns.lookup(leaf).is_ok_and(pcp_derived::check::is_derived);
        });
        !real
    }

    /// The context's name space, taken out of it (to open another context
    /// over a name space loaded once, as `pminfo -n -L` does).
    pub fn into_namespace(self) -> Pmns {
        let view = self.view.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::try_unwrap(view).map_or_else(|v| v.pmns.clone(), |v| v.pmns)
    }

    /// `pmGetPMNSLocation`: where this context's names come from.
    #[doc(alias = "pmGetPMNSLocation")]
    pub fn pmns_location(&self) -> PmnsLocation {
        self.location
    }

    /// `pmLookupName`: PMIDs for names, one-to-one (see
    /// [`Pmns::lookup_names`]). In a local context a name in a dynamic
    /// subtree is its agent's to resolve: `PM_ERR_NOAGENT` with no agent,
    /// and pcp-rs's agents know no dynamic names (`PM_ERR_NAME`). A name
    /// not found is a null PMID in the list, unless it is the only one:
    /// then it is the error, which names it.
    #[doc(alias = "pmLookupName")]
    pub fn lookup_names(&self, names: &[&str]) -> Result<(Vec<PmId>, usize), Error> {
        self.lookup_ids(names).map_err(|code| match names {
            [name] => Error::new(code, Subject::Metric((*name).to_owned())),
            _ => code.into(),
        })
    }

    /// [`Context::lookup_names`], its error the bare code.
    fn lookup_ids(&self, names: &[&str]) -> PmResult<(Vec<PmId>, usize)> {
        let t = self.trace();
        let (pmns, context) = (t.on(DebugFlag::Pmns), t.on(DebugFlag::Context));
        let config = t.on(DebugFlag::Config);
        if !(pmns || context || config) {
            return self.lookup_ids_untraced(names);
        }
        self.trace_which(2);
        if pmns || config {
            self.trace_location();
        }
        self.trace_which(1);
        let r = self.lookup_ids_untraced(names);
        if pmns {
            let v = self.view();
            trace_lookup_end(self.trace(), names.len(), &r, |p| is_derived_in(&v, p));
        }
        r
    }

    /// libpcp's `-Dcontext` line of `pmWhichContext`, `n` times: this
    /// context's handle (a tool's first, 0), or `PM_ERR_NOCONTEXT` when
    /// libpcp would have no context (names loaded from a file alone).
    #[doc(alias = "pmWhichContext")]
    #[doc(hidden)] // tool support: the tools' own calls
    pub fn trace_which(&self, n: usize) {
        let t = self.trace();
        if !t.on(DebugFlag::Context) {
            return;
        }
        let (sts, cur) = if self.is_libpcp_context() { (0, 0) } else { (PmError::PM_ERR_NOCONTEXT.code(), -1) };
        t.write_bytes(format!("pmWhichContext() -> {sts}, cur={cur}\n").repeat(n).as_bytes());
    }

    /// Whether libpcp would have a context here: not for names loaded
    /// from a file alone.
    pub(super) fn is_libpcp_context(&self) -> bool {
        self.source().is_some() || self.location == PmnsLocation::Archive
    }

    /// [`Context::lookup_ids`] but for `-Dpmns`'s first and last lines.
    fn lookup_ids_untraced(&self, names: &[&str]) -> PmResult<(Vec<PmId>, usize)> {
        if let Some(h) = self.remote_names() {
            // names pmcd does not know may be derived metrics'
            let v = self.view();
            let traced = self.trace().on(DebugFlag::Derive);
            let derived = |n: &str| {
                let p = v.derived.by_name(n).map(|m| m.pmid);
                if traced {
                    self.trace_dmgetpmid(n, p);
                }
                p
            };
            return match h.lookup_names(names) {
                Ok((mut ids, mut count)) => {
                    for (id, n) in ids.iter_mut().zip(names) {
                        if !id.is_null() {
                            continue;
                        }
                        if let Some(p) = derived(n) {
                            *id = p;
                            count += 1;
                        }
                    }
                    Ok((ids, count.min(names.len())))
                }
                Err(PmError::PM_ERR_NAME) if names.len() == 1 => {
                    derived(names[0]).map(|p| (vec![p], 1)).ok_or(PmError::PM_ERR_NAME)
                }
                Err(e) => Err(e),
            };
        }
        let v = self.view();
        // a name below a dynamic subtree's root that has names added below
        // it (a derived metric's): libpcp gives the root's PMID in a name
        // space alone, and passes it to pmcd as it is in a host context
        // with a name space loaded; a local context's agents are asked
        let as_root = self.source().is_none() || self.host_source().is_some();
        let traced = self.trace().on(DebugFlag::Derive);
        // libpcp traces the derived metrics' lookups after its own name
        // space's
        let mut derive_trace = Vec::new();
        let r = v.pmns.lookup_names_with(names, |name, found| match v.pmns.dynamic_root_above(name) {
            Some(root) if as_root => Ok(root),
            _ => {
                if traced {
                    derive_trace.push((name.to_string(), found));
                }
                found.and_then(|pmid| self.resolve(pmid))
            }
        });
        // libpcp's name space has no node of the derived metrics' alone:
        // one such is no name at all
        let r = match r {
            Err(PmError::PM_ERR_NONLEAF) if !names[0].is_empty() && self.only_derived_below(names[0]) => {
                Err(PmError::PM_ERR_NAME)
            }
            r => r,
        };
        if self.trace().on(DebugFlag::Pmns) {
            self.trace_own_lookup(&v, names, &r);
        }
        // libpcp asks its derived metrics for the names its own name
        // space lacks
        if r.as_ref().map_or(true, |(ids, _)| ids.iter().any(|&p| p.is_null() || is_derived_in(&v, p))) {
            self.derived_startup();
        }
        for (name, found) in &derive_trace {
            self.trace_local_lookup(&v, name, found);
        }
        r
    }

    /// libpcp's `-Dpmns` list of what a name space of its own gave for
    /// `names` (the derived metrics' names are not in it): the count
    /// found (or the error of one name), and each PMID.
    fn trace_own_lookup(&self, v: &super::View, names: &[&str], r: &PmResult<(Vec<PmId>, usize)>) {
        let n = names.len();
        let ids: Vec<PmId> = match r {
            Ok((ids, _)) => ids.iter().map(|&p| if is_derived_in(v, p) { PmId::NULL } else { p }).collect(),
            Err(_) => vec![PmId::NULL; n],
        };
        let sts = match r {
            Err(e) if n == 1 && (*e == PmError::PM_ERR_NONLEAF || *e == PmError::PM_ERR_NOAGENT) => e.code(),
            _ => ids.iter().filter(|p| !p.is_null()).count() as i32,
        };
        let mut out = format!("pmLookupName({n}, ...) using local PMNS returns {sts} and ...\n");
        for (i, (name, id)) in names.iter().zip(&ids).enumerate() {
            out.push_str(&format!("  name[{i}]: \"{name}\""));
            if sts >= 0 {
                let raw = u32::from_be_bytes(id.to_be_bytes());
                out.push_str(&format!(" PMID: 0x{raw:x} {id}"));
            }
            out.push('\n');
        }
        self.trace().write_bytes(out.as_bytes());
    }

    /// libpcp's `-Dpmns` line of `pmGetPMNSLocation`, written when the
    /// location is not the one last written; before it, the first time,
    /// the load of the default name space that a local context's first
    /// name service makes.
    pub(super) fn trace_location(&self) {
        let t = self.trace();
        let local_default = self.location == PmnsLocation::Local
            && !self.loaded
            && self.source().is_some_and(|s| s.as_local().is_some());
        let pmns = t.on(DebugFlag::Pmns);
        if local_default && t.changed("default pmns loaded", 1) {
            if pmns {
                t.write_bytes(b"pmGetPMNSLocation: Loading local PMNS for local PMAPI context\n");
            }
            // (-Dconfig: the default file is found through $PCP_VAR_DIR)
            if std::env::var_os("PMNS_DEFAULT").is_none() {
                let _ = crate::config::lookup_optional("PCP_VAR_DIR", t);
            }
            if pmns {
                super::trace_default_pmns_load(t);
            }
        }
        if !pmns {
            return;
        }
        trace_location_line(t, self.location);
    }

    /// libpcp's trace of walking a name space of its own from `name`
    /// down (`pmGetChildren` of each node, depth first, until one fails):
    /// under `-Dpmns` each node's children (or that it is a leaf), under
    /// `-Dderive` the count of children the name space has apart from the
    /// derived metrics' and of those the derived metrics add; under
    /// `-Dcontext` the `pmWhichContext` calls of each.
    fn trace_children_walk(&self, v: &super::View, name: &str, pmns: bool, derive: bool) {
        let derived_leaf = |n: &str| v.pmns.lookup(n).is_ok_and(|p| is_derived_in(v, p));
        // (the root of a dynamic subtree is a leaf of libpcp's name space,
        // whatever derived metrics are named below it)
        let dynamic_root = |n: &str| v.pmns.locate(n).is_some_and(|id| v.pmns.pmid_of(id).is_dynamic_root());
        let regular_below = |n: &str| {
            let mut any = dynamic_root(n);
            let _ = v.pmns.traverse_with(n, |leaf| any |= !derived_leaf(leaf));
            any
        };
        let local = self.source().is_some_and(|s| s.as_local().is_some());
        let mut todo = vec![name.to_string()];
        while let Some(n) = todo.pop() {
            self.trace_which(2);
            if pmns {
                self.trace().write(format_args!("pmGetChildren(name=\"{n}\") [local]\n"));
            }
            let prefix = if n.is_empty() { String::new() } else { format!("{n}.") };
            let mut kids = self.children(&n);
            // the root of a dynamic subtree is its agent's to expand
            if let (true, Ok([])) = (local, kids.as_deref()) {
                if let Ok(pmid) = v.pmns.lookup(&n) {
                    if let Err(e) = self.dynamic_names(pmid) {
                        kids = Err(e);
                    }
                }
            }
            if derive {
                let mut line = format!("pmGetChildren(name=\"{n}\") ");
                if n.is_empty() || regular_below(&n) {
                    let regular = kids.as_deref().unwrap_or_default();
                    let regular = regular.iter().filter(|k| regular_below(&format!("{prefix}{}", k.name))).count();
                    line.push_str(&format!("{regular} regular children"));
                } else {
                    line.push_str(&format!("no regular children ({})", PmError::PM_ERR_NAME));
                }
                let derived = self.derived_children(v, &n);
                if self.trace().on(DebugFlag::Appl2) {
                    for (i, c) in derived.iter().flatten().enumerate() {
                        let status = if c.leaf { PMNS_LEAF_STATUS } else { PMNS_NONLEAF_STATUS };
                        self.trace().write(format_args!("__dmchildren: offspring[{i}] {} (status={status})\n", c.name));
                    }
                }
                match derived {
                    Err(e) => line.push_str(&format!(", no derived children ({e})\n")),
                    Ok(k) if k.is_empty() => line.push_str(", derived leaf\n"),
                    Ok(k) => line.push_str(&format!(", {} derived children\n", k.len())),
                }
                self.trace().write_bytes(line.as_bytes());
            }
            if pmns {
                let mut line = format!("pmGetChildren(name=\"{n}\") -> ");
                match &kids {
                    Ok(k) if k.is_empty() => line.push_str("leaf\n"),
                    Ok(k) => {
                        line.push_str(&format!("namelist dump: numnames = {}\n", k.len()));
                        for (i, c) in k.iter().enumerate() {
                            line.push_str(&format!("  name[{i}]: \"{}\"\n", c.name));
                        }
                    }
                    Err(e) => line.push_str(&format!("{e}\n")),
                }
                self.trace().write_bytes(line.as_bytes());
            }
            match kids {
                Ok(k) => todo.extend(k.into_iter().rev().map(|c| format!("{prefix}{}", c.name))),
                // libpcp's walk ends at the first failure
                Err(_) if pmns => return,
                Err(_) => {}
            }
        }
    }

    /// The names the derived metrics add below `name` (libpcp's
    /// `__dmchildren`): none when `name` is one, `PM_ERR_NAME` for none.
    fn derived_children(&self, v: &super::View, name: &str) -> PmResult<Vec<pcp_pmns::tree::Child>> {
        let anon = crate::derived::ANON.iter().map(|a| a.name);
        let usable = v.derived.iter().filter(|m| !m.is_masked() && !v.derived.failed(m.pmid)).map(|m| m.name.as_str());
        let usable = usable.chain(v.shadowed.iter().map(String::as_str));
        crate::host::derived_children(name, anon.chain(usable))
    }

    /// The trace of a name looked up in a name space that has the
    /// derived metrics' names: those libpcp finds among the derived
    /// metrics, after its name space failed it (`__dmgetpmid`).
    fn trace_local_lookup(&self, v: &super::View, name: &str, found: &PmResult<PmId>) {
        match found {
            Err(_) => self.trace_dmgetpmid(name, None),
            Ok(p) if v.derived.get(*p).is_some() || crate::derived::anon_by_pmid(*p).is_some() => {
                self.trace_dmgetpmid(name, Some(*p))
            }
            Ok(_) => {}
        }
    }

    /// [`Context::lookup_names`] of one name, without the list, as the
    /// derived metrics' binding makes it (libpcp's `pmLookupName_ctx`
    /// with the context in hand, traced under `-Dpmns` and `-Dcontext`).
    pub(super) fn lookup_name(&self, name: &str) -> PmResult<PmId> {
        let first = |(ids, _): (Vec<PmId>, usize)| ids.first().copied().unwrap_or(PmId::NULL);
        if self.remote_names().is_some() {
            return self.lookup_ids(&[name]).map(first);
        }
        let (pmns, context) = (self.trace().on(DebugFlag::Pmns), self.trace().on(DebugFlag::Context));
        if pmns || context {
            self.trace_which(3);
            if pmns {
                self.trace_location();
            }
            let r = self.lookup_ids_untraced(&[name]);
            if pmns {
                let v = self.view();
                trace_lookup_end(self.trace(), 1, &r, |p| is_derived_in(&v, p));
            }
            return r.map(first);
        }
        let v = self.view();
        let found = v.pmns.lookup(name);
        if found.as_ref().map_or(true, |&p| is_derived_in(&v, p)) {
            self.derived_startup();
        }
        if self.trace().on(DebugFlag::Derive) {
            self.trace_local_lookup(&v, name, &found);
        }
        found.and_then(|pmid| self.resolve(pmid))
    }

    /// A PMID the name space gives, as the source sees it: the root of a
    /// dynamic subtree is the source's to expand (see
    /// [`MetricSource::dynamic_names`]).
    fn resolve(&self, pmid: PmId) -> PmResult<PmId> {
        self.dynamic_names(pmid).map(|()| pmid)
    }

    /// [`MetricSource::dynamic_names`] of `pmid` when it is the root of a
    /// dynamic subtree; `Ok` for any other.
    fn dynamic_names(&self, pmid: PmId) -> PmResult<()> {
        match self.source() {
            Some(s) if pmid.is_dynamic_root() => s.dynamic_names(pmid),
            _ => Ok(()),
        }
    }

    /// The name of a per-context derived metric (whose name may be a
    /// masked global one's in the name space), or `PM_ERR_PMID` for a
    /// masked global one; `None` for other PMIDs.
    fn derived_name(&self, pmid: PmId) -> Option<PmResult<String>> {
        let v = self.view();
        let m = v.derived.iter().find(|m| m.pmid == pmid && (m.local || m.is_masked()))?;
        Some(if m.is_masked() { Err(PmError::PM_ERR_PMID) } else { Ok(m.name.clone()) })
    }

    /// `pmNameID`: a name of a PMID.
    #[doc(alias = "pmNameID")]
    pub fn name_of(&self, pmid: PmId) -> PmResult<String> {
        self.trace_which(3);
        if self.trace().on(DebugFlag::Pmns) || self.trace().on(DebugFlag::Config) {
            self.trace_location();
        }
        if let Some(h) = self.remote_names() {
            return match self.view().derived.get(pmid) {
                Some(m) => Ok(m.name.clone()),
                None => h.name_of(pmid),
            };
        }
        self.startup_unless_named(pmid);
        if let Some(r) = self.derived_name(pmid) {
            return r;
        }
        self.view().pmns.name_of(pmid)
    }

    /// `pmNameAll`: every name of a PMID.
    #[doc(alias = "pmNameAll")]
    pub fn names_of(&self, pmid: PmId) -> PmResult<Vec<String>> {
        self.trace_which(2);
        if self.trace().on(DebugFlag::Pmns) || self.trace().on(DebugFlag::Config) {
            self.trace_location();
        }
        self.trace_which(1);
        self.names_of_untraced(pmid)
    }

    /// [`Context::names_of`] with no `-Dpmns` or `-Dcontext` lines of its
    /// own (libpcp turns its tracing off while it dumps a result).
    pub(super) fn names_of_untraced(&self, pmid: PmId) -> PmResult<Vec<String>> {
        if let Some(h) = self.remote_names() {
            return match self.view().derived.get(pmid) {
                Some(m) => Ok(vec![m.name.clone()]),
                None => h.names_of(pmid),
            };
        }
        self.startup_unless_named(pmid);
        if let Some(r) = self.derived_name(pmid) {
            return r.map(|n| vec![n]);
        }
        self.view().pmns.names_of(pmid)
    }

    /// The derived metrics' start-up, when libpcp would ask them for a
    /// name of `pmid` (its own name space has none), and `-Dderive,appl2`'s
    /// note that with no context it asks the global ones.
    fn startup_unless_named(&self, pmid: PmId) {
        let v = self.view();
        if is_derived_in(&v, pmid) || v.pmns.name_of(pmid).is_err() {
            self.derived_startup();
            let t = self.trace();
            if t.on(DebugFlag::Derive) && t.on(DebugFlag::Appl2) && !self.is_libpcp_context() {
                t.write(format_args!("__dmgetname: using registered for pmID {pmid}\n"));
            }
        }
    }

    /// `pmGetChildrenStatus`: a node's children and their leaf status.
    #[doc(alias = "pmGetChildren")]
    #[doc(alias = "pmGetChildrenStatus")]
    ///
    /// Registered derived metrics are among them (after the source's,
    /// as libpcp adds them), except those that failed to bind (libpcp's
    /// `__dmchildren` leaves out a metric once binding it failed; it does
    /// not bind one itself).
    pub fn children(&self, name: &str) -> PmResult<Vec<pcp_pmns::tree::Child>> {
        let v = self.view();
        if let Some(h) = self.remote_names() {
            let usable = v.derived.iter().filter(|m| !m.is_masked() && !v.derived.failed(m.pmid));
            let derived = crate::host::derived_children(name, usable.map(|m| m.name.as_str()));
            return crate::host::stitch(h.children(name), derived);
        }
        let kids = v.pmns.children(name);
        // (libpcp asks its derived metrics next, whatever came of that)
        self.derived_startup();
        let kids = kids?;
        if !v.derived.iter().any(|m| v.derived.failed(m.pmid)) {
            return Ok(kids);
        }
        let failed = |n: &str| v.pmns.lookup(n).is_ok_and(|p| v.derived.failed(p));
        if kids.is_empty() {
            // a leaf
            return if failed(name) { Err(PmError::PM_ERR_NAME) } else { Ok(kids) };
        }
        // a child stays if some name at or below it is not a failed metric
        let prefix = if name.is_empty() { String::new() } else { format!("{name}.") };
        let kept: Vec<_> = kids
            .into_iter()
            .filter(|c| {
                let mut keep = false;
                let walked = v.pmns.traverse_with(&format!("{prefix}{}", c.name), |n| keep |= !failed(n));
                keep || walked.is_err()
            })
            .collect();
        if kept.is_empty() {
            return Err(PmError::PM_ERR_NAME);
        }
        Ok(kept)
    }

    /// `pmTraversePMNS`: every metric name at or below `name`, in order.
    /// In a local context the root of a dynamic subtree is its agent's to
    /// expand: with no agent the walk ends there with `PM_ERR_NOAGENT`
    /// (the names before it are still handed on, as libpcp does); pcp-rs's
    /// agents have no dynamic names, so with one the subtree is empty.
    #[doc(alias = "pmTraversePMNS")]
    pub fn traverse_with(&self, name: &str, mut f: impl FnMut(&str)) -> PmResult<()> {
        let traced_pmns = self.trace().on(DebugFlag::Pmns);
        let traced_context = self.trace().on(DebugFlag::Context);
        self.trace_which(2);
        if traced_pmns || self.trace().on(DebugFlag::Config) {
            self.trace_location();
        }
        let v = self.view();
        if let Some(h) = self.remote_names() {
            let mut any = false;
            let r = h.traverse(name, &mut |n| {
                any = true;
                f(n);
            });
            match r {
                // pmcd's empty answer ends the walk, derived metrics unseen
                Ok(()) if !any => return Ok(()),
                Ok(()) | Err(PmError::PM_ERR_NAME) => {}
                Err(e) => return Err(e),
            }
            // then the derived metrics under `name`, each bound as it is
            // met and left out if that fails (libpcp's __dmtraverse)
            let mut extra = false;
            for m in v.derived.iter().filter(|m| !m.is_masked()) {
                let under = name.is_empty()
                    || m.name.strip_prefix(name).is_some_and(|rest| rest.is_empty() || rest.starts_with('.'));
                if !under {
                    continue;
                }
                self.bind(m.pmid, true);
                let bound = v.derived.is_bound(m);
                if self.trace().on(DebugFlag::Derive) {
                    let t = self.trace();
                    match bound {
                        true => t.write(format_args!("__dmtraverse: name=\"{name}\" added \"{}\"\n", m.name)),
                        false => t.write(format_args!(
                            "__dmtraverse: name=\"{name}\", omitting invalid child \"{}\"\n",
                            m.name
                        )),
                    }
                }
                if bound {
                    extra = true;
                    f(&m.name);
                }
            }
            return if extra { Ok(()) } else { r };
        }
        let traced_derive = self.trace().on(DebugFlag::Derive);
        if traced_pmns || traced_derive || traced_context {
            self.trace_children_walk(&v, name, traced_pmns, traced_derive);
        }
        self.derived_startup();
        // derived metrics that failed to bind are left out (libpcp's
        // __dmchildren)
        let any_failed = v.derived.iter().any(|m| v.derived.failed(m.pmid));
        let mut f = |n: &str| {
            if !(any_failed && v.pmns.lookup(n).is_ok_and(|p| v.derived.failed(p))) {
                f(n);
            }
        };
        // the roots of dynamic subtrees are the source's to expand: with
        // no names there they are passed over, with no agent the walk ends
        let mut end = Ok(());
        let walked = v.pmns.traverse_with(name, |n| {
            if end.is_err() {
                return;
            }
            match v.pmns.lookup(n).map(|pmid| self.dynamic_names(pmid)) {
                Ok(Err(PmError::PM_ERR_NAME)) => {}
                Ok(Err(e)) => end = Err(e),
                _ => f(n),
            }
        });
        match walked {
            // a name below the root of a dynamic subtree: its agent's
            Err(PmError::PM_ERR_NAME) => match v.pmns.lookup(name) {
                Ok(pmid) => self.dynamic_names(pmid).and(Err(PmError::PM_ERR_NAME)),
                Err(_) => Err(PmError::PM_ERR_NAME),
            },
            Err(e) => Err(e),
            Ok(()) => end,
        }
    }
}

/// Whether `pmid` is a derived metric's (an anonymous one's or one of the
/// context's): a name libpcp's name space does not hold.
fn is_derived_in(v: &super::View, pmid: PmId) -> bool {
    crate::derived::anon_by_pmid(pmid).is_some() || v.derived.get(pmid).is_some()
}

/// libpcp's `-Dpmns` line of `pmGetPMNSLocation`: `location`, written
/// when it is not the one last written to `t`.
pub(crate) fn trace_location_line(t: &Trace, location: PmnsLocation) {
    let (code, text) = match location {
        PmnsLocation::Local => (1, "Local"),
        PmnsLocation::Remote => (2, "Remote"),
        PmnsLocation::Archive => (3, "Archive"),
    };
    if t.changed("pmns location", code) {
        t.write(format_args!("pmGetPMNSLocation() -> {text}\n"));
    }
}

/// libpcp's `-Dpmns` last line of `pmLookupName` of `n` names: its error,
/// or `n` when every name was found, else the count that the name space
/// (or pmcd) found before the derived metrics (`derived` says which
/// PMIDs are theirs) were tried.
pub(crate) fn trace_lookup_end(t: &Trace, n: usize, r: &PmResult<(Vec<PmId>, usize)>, derived: impl Fn(PmId) -> bool) {
    match r {
        Err(e) => t.write(format_args!("pmLookupName({n}, ...) -> {e}\n")),
        Ok((ids, _)) if ids.iter().all(|p| !p.is_null()) => t.write(format_args!("pmLookupName({n}, ...) -> {n}\n")),
        Ok((ids, _)) => {
            let own = ids.iter().filter(|&&p| !p.is_null() && !derived(p)).count();
            t.write(format_args!("pmLookupName({n}, ...) -> {own}\n"))
        }
    }
}
