//! Registration tables: the global derived metrics (`pmRegisterDerived`,
//! `pmRegisterDerivedMetric`, configuration files) and each context's own
//! (`pmAddDerived`), with libpcp's PMIDs, name rules and error texts.
//!
//! Global metrics get PMIDs 511.0.1, 511.0.2, ... in registration order
//! (item 1023 is followed by item 1 of the next cluster), the first two
//! going to the anonymous metrics every registry starts with
//! (`event.flags`, `event.missed`), so the caller's first is 511.0.3;
//! per-context ones 511.2047.1023 downwards, with the PMID's top bit set
//! as in libpcp. A
//! global name may be registered once; a per-context name once per
//! context, and it masks a global metric of the same name in that context.
//!
//! No global state: a [`Registry`] is the process-wide table libpcp keeps
//! in statics, and a [`ContextTable`] one context's list. libpcp's parser
//! also carries a little state from one expression to the next (see
//! [`ParseState`]); the registry holds it, and per-context additions use
//! the registry's, as they share libpcp's parser.

use crate::ast::Expr;
use crate::parse::{parse_bytes, recognises, ParseState, SyntaxError};
use pcp_core::{MetricType, PmError, PmId};
use std::sync::{Arc, OnceLock};

/// The PMID domain of derived metrics.
pub const DERIVED_DOMAIN: u32 = 511;

/// Why a registration failed: where libpcp points in the expression (0
/// for problems with the name or the table) and its `pmDerivedErrStr`.
pub type RegisterError = SyntaxError;

/// One registered derived metric.
#[derive(Clone, Debug, PartialEq)]
pub struct Definition {
    /// Its name (not checked: any text is accepted, as in libpcp).
    pub name: String,
    /// Its PMID.
    pub pmid: PmId,
    /// The expression (shared with the contexts that bind it).
    pub expr: LazyExpr,
    /// An anonymous metric (`__pmRegisterAnon`), such as `event.flags`.
    pub anon: bool,
    /// One-line help (`name(oneline) = ...` in a configuration file).
    pub oneline: Option<Vec<u8>>,
    /// Long help (`name(helptext) = ...`).
    pub helptext: Option<Vec<u8>>,
    /// Read from the configuration libpcp loads by itself at start-up
    /// ([`Registry::init`]): where pcp-rs reports more than 6.0.3 when
    /// such a metric cannot be bound, it stays as quiet as 6.0.3 (see
    /// [`crate::check::SemanticError::beyond_6_0_3`]).
    pub startup: bool,
}

impl Definition {
    /// The expression as given.
    pub fn text(&self) -> &[u8] {
        self.expr.text()
    }
}

/// An expression's text, and its tree: made at once, or when first asked
/// for where registration found the text sure to parse without making it
/// ([`recognises`]). Of the many definitions a configuration file brings,
/// a tool most often uses few. Clones share the text and the tree.
#[derive(Clone)]
pub struct LazyExpr(Arc<Lazy>);

struct Lazy {
    text: Box<[u8]>,
    tree: OnceLock<Result<Arc<Expr>, SyntaxError>>,
}

impl LazyExpr {
    /// `text`, parsed as `tree`.
    pub fn parsed(text: &[u8], tree: Expr) -> LazyExpr {
        LazyExpr(Arc::new(Lazy { text: text.into(), tree: OnceLock::from(Ok(Arc::new(tree))) }))
    }

    /// `text`, to be parsed from a fresh [`ParseState`] when first asked
    /// for: text that [`recognises`] accepted from a state not in a
    /// `matchinst(`.
    pub fn unparsed(text: &[u8]) -> LazyExpr {
        LazyExpr(Arc::new(Lazy { text: text.into(), tree: OnceLock::new() }))
    }

    /// The expression as given.
    pub fn text(&self) -> &[u8] {
        &self.0.text
    }

    /// The tree, made now if not yet. An error only where the text was
    /// given to [`LazyExpr::unparsed`] without [`recognises`]' say-so.
    pub fn tree(&self) -> Result<Arc<Expr>, SyntaxError> {
        self.0.tree.get_or_init(|| parse_bytes(&self.0.text, &mut ParseState::default()).map(Arc::new)).clone()
    }
}

impl PartialEq for LazyExpr {
    fn eq(&self, other: &LazyExpr) -> bool {
        self.text() == other.text() && self.tree() == other.tree()
    }
}

impl std::fmt::Debug for LazyExpr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyExpr")
            .field("text", &String::from_utf8_lossy(self.text()))
            .field("tree", &self.0.tree.get())
            .finish()
    }
}

fn pmid(cluster: u32, item: u32) -> PmId {
    PmId((DERIVED_DOMAIN << 22) | (cluster << 10) | item)
}

/// libpcp's anonymous metrics (`__pmRegisterAnon`, for unpacking event
/// records), in their order: name, one-line help, long help.
pub const ANON: [(&str, &str, &str); 2] = [
    (
        "event.flags",
        "Flags for event records",
        "An anonymous derived metric that is used to encode the event flags\n\
         associated with event records.   See pmUnpackEventRecords(3).",
    ),
    (
        "event.missed",
        "Count of missed event records",
        "An anonymous derived metric that is used to encode the number of\n\
         event records missed because either the PMDA could not keep up\n\
         or the PMAPI client did not collect the event records fast\n\
         enough.  See pmUnpackEventRecords(3).",
    ),
];

/// The process-wide table of global derived metrics, and the parser
/// state libpcp shares between all registrations.
#[derive(Clone, Debug)]
pub struct Registry {
    pub(crate) metrics: Vec<Definition>,
    /// Each metric's position in `metrics`, by name.
    by_name: foldhash::HashMap<String, usize>,
    anon: usize,
    limit: Option<usize>,
    /// Cluster and item of the last global PMID handed out.
    last_global: Option<(u32, u32)>,
    /// Cluster and item of the last per-context PMID handed out, by any
    /// context: libpcp keeps one counter for all of them.
    last_context: Option<(u32, u32)>,
    parse: ParseState,
    pub(crate) initialised: bool,
    /// What `rate()` of a counter that went down gives in the contexts
    /// that take these metrics.
    counter_decrease: crate::CounterDecrease,
    /// Where registrations are traced (`-Dderive`, with `appl0` the
    /// tokens and trees too); off unless [`Registry::set_trace`].
    pub(crate) trace: pcp_core::debug::Trace,
    /// The stand-in node addresses of its trees' dumps, and of those the
    /// contexts it gives metrics bind.
    addresses: crate::trace::Addresses,
}

/// Why setting an attribute failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AttributeError {
    /// No global derived metric has that name (yet).
    NoMetric,
    /// Not `oneline` or `helptext`.
    UnknownAttribute,
    /// The attribute already has a value.
    Duplicate,
}

/// libpcp's words for a configuration file's attribute line, without the
/// metric's and attribute's names (which the caller knows).
impl std::fmt::Display for AttributeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AttributeError::NoMetric => "cannot set attribute, derived metric not defined",
            AttributeError::UnknownAttribute => "attribute is unknown for metric",
            AttributeError::Duplicate => "duplicate value for attribute",
        })
    }
}

impl std::error::Error for AttributeError {}

/// Which help text to fetch, as `pmLookupText`'s level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HelpLevel {
    /// `PM_TEXT_ONELINE`
    OneLine,
    /// `PM_TEXT_HELP`; the one-line text stands in for a missing long
    /// one unless `direct` (`PM_TEXT_DIRECT`).
    Help {
        /// `PM_TEXT_DIRECT`
        direct: bool,
    },
}

impl Default for Registry {
    fn default() -> Registry {
        Registry::new()
    }
}

impl Registry {
    /// The table as libpcp's is once it has made its first context, before
    /// any configuration is read: the anonymous metrics [`ANON`]
    /// (`event.flags` 511.0.1, `event.missed` 511.0.2, the PMIDs every
    /// context gives them), so the first metric registered gets 511.0.3,
    /// as in every PCP 6.0.3 tool. (A libpcp program that registers a
    /// metric before its first context gives it 511.0.1 and the anonymous
    /// metrics the next PMIDs; here they keep theirs, so that no two
    /// metrics of a context share a PMID.)
    pub fn new() -> Registry {
        let mut r = Registry {
            metrics: Vec::new(),
            by_name: Default::default(),
            anon: 0,
            limit: None,
            last_global: None,
            last_context: None,
            parse: ParseState::default(),
            initialised: false,
            counter_decrease: crate::CounterDecrease::default(),
            trace: pcp_core::debug::Trace::off(),
            addresses: crate::trace::Addresses::default(),
        };
        for (name, oneline, help) in ANON {
            // (cannot fail: the names are new, the table has no limit yet
            // and the expression parses)
            if r.register_anon(name, MetricType::U32).is_ok() {
                let _ = r.set_attribute(name, "oneline", oneline.as_bytes().to_vec());
                let _ = r.set_attribute(name, "helptext", help.as_bytes().to_vec());
            }
        }
        r
    }

    /// Trace registrations and configuration loading into `trace`, as
    /// libpcp's `-Dderive` (and `appl0`) does: what configuration loading
    /// traces comes in its report, in order with its messages; the rest
    /// (a metric registered on its own) is left in `trace`'s buffer.
    #[doc(alias = "pmSetDebug")]
    pub fn set_trace(&mut self, trace: pcp_core::debug::Trace) {
        self.trace = trace;
    }

    /// Where the stand-in node addresses of tree dumps come from: the
    /// contexts given this registry's metrics share them.
    pub fn addresses(&self) -> &crate::trace::Addresses {
        &self.addresses
    }

    /// Where registrations are traced ([`Registry::set_trace`]).
    pub fn trace(&self) -> &pcp_core::debug::Trace {
        &self.trace
    }

    /// Move what has been traced into `report`, ahead of what comes next.
    pub(crate) fn sync_trace(&self, report: &mut Vec<u8>) {
        if self.trace.any() {
            report.extend_from_slice(&self.trace.take());
        }
    }

    /// The trace of a registration that succeeded: metric `index`, with
    /// the tree when `appl0` asks for it.
    fn trace_registered(&self, index: usize, name: &str, expr: &[u8], tree: Option<&Expr>) {
        let mut out = format!("pmRegisterDerived: global metric[{index}] {name} = ").into_bytes();
        out.extend_from_slice(expr);
        out.push(b'\n');
        if let Some(tree) = tree {
            let base = self.addresses.reserve(crate::trace::node_count(tree));
            crate::trace::write_dump(&mut out, tree, base);
        }
        self.trace.write_bytes(&out);
    }

    /// The trace libpcp makes registering the anonymous metrics at its
    /// start-up (here registered with the table, before any trace).
    pub(crate) fn trace_anon(&self) {
        use pcp_core::debug::DebugFlag;
        if !self.trace.on(DebugFlag::Derive) {
            return;
        }
        let appl0 = self.trace.on(DebugFlag::Appl0);
        for (i, m) in self.metrics.iter().enumerate().filter(|(_, m)| m.anon) {
            let mut tree = None;
            if appl0 {
                let mut out = format!("pmRegisterDerived: name=\"{}\" expr=\"", m.name).into_bytes();
                out.extend_from_slice(m.text());
                out.extend_from_slice(b"\"\n");
                let mut tokens = Vec::new();
                tree = crate::parse::parse_traced(m.text(), &mut ParseState::default(), &mut tokens).ok();
                crate::trace::write_tokens(&mut out, &tokens);
                self.trace.write_bytes(&out);
            }
            self.trace_registered(i, &m.name, m.text(), tree.as_ref());
        }
    }

    /// The registered metrics, in registration order.
    pub fn metrics(&self) -> &[Definition] {
        &self.metrics
    }

    /// The metric of this name.
    pub fn get(&self, name: &str) -> Option<&Definition> {
        self.by_name.get(name).and_then(|&i| self.metrics.get(i))
    }

    /// The metric with this PMID.
    pub fn by_pmid(&self, pmid: PmId) -> Option<&Definition> {
        self.metrics.iter().find(|m| m.pmid == pmid)
    }

    /// The parser state registrations leave behind.
    pub fn parse_state(&self) -> &ParseState {
        &self.parse
    }

    /// The limit on the number of global (non-anonymous) metrics, if any.
    #[doc(alias = "pmGetDerivedControl")]
    pub fn limit(&self) -> Option<usize> {
        self.limit
    }

    /// Sets the limit (`PCP_DERIVED_GLOBAL_LIMIT`; `None` is libpcp's -1,
    /// no limit).
    #[doc(alias = "pmSetDerivedControl")]
    pub fn set_limit(&mut self, limit: Option<usize>) {
        self.limit = limit;
    }

    /// What `rate()` of a counter whose value went down gives, in the
    /// contexts that take this table's metrics (and in their own).
    pub fn counter_decrease(&self) -> crate::CounterDecrease {
        self.counter_decrease
    }

    /// Sets what `rate()` of a counter whose value went down gives: by
    /// default no value, as pmRegisterDerived(3) says;
    /// [`crate::CounterDecrease::Subtract`] for libpcp 6.0.3's values (the
    /// tools, whose output is 6.0.3's).
    pub fn set_counter_decrease(&mut self, rule: crate::CounterDecrease) {
        self.counter_decrease = rule;
    }

    /// `pmRegisterDerived`: checks the name is new, parses the expression
    /// and gives the metric the next global PMID.
    #[doc(alias = "pmRegisterDerived")]
    pub fn register(&mut self, name: &str, expr: &str) -> Result<PmId, RegisterError> {
        self.register_bytes(name.as_bytes(), expr.as_bytes(), false)
    }

    /// [`Registry::register`] with the name and expression as bytes (each
    /// ending at a NUL, if any); `anon` marks an anonymous metric.
    pub fn register_bytes(&mut self, name: &[u8], expr: &[u8], anon: bool) -> Result<PmId, RegisterError> {
        use pcp_core::debug::DebugFlag;
        let name = String::from_utf8_lossy(cstr(name)).into_owned();
        let expr = cstr(expr);
        let refuse = |why: &str| Err(SyntaxError { offset: 0, message: Some(why.as_bytes().to_vec()) });
        let traced = self.trace.on(DebugFlag::Derive);
        let appl0 = traced && self.trace.on(DebugFlag::Appl0);
        if appl0 {
            let mut out = format!("pmRegisterDerived: name=\"{name}\" expr=\"").into_bytes();
            out.extend_from_slice(expr);
            out.extend_from_slice(b"\"\n");
            self.trace.write_bytes(&out);
        }
        if let Some(limit) = self.limit {
            if self.metrics.len() - self.anon >= limit {
                return refuse("Too many global derived metrics");
            }
        }
        if self.by_name.contains_key(&name) {
            return refuse("Duplicate global derived metric name");
        }
        // (most often the tree can wait: see LazyExpr)
        let lazy = if appl0 {
            let mut tokens = Vec::new();
            let r = crate::parse::parse_traced(expr, &mut self.parse, &mut tokens);
            let mut out = Vec::new();
            crate::trace::write_tokens(&mut out, &tokens);
            self.trace.write_bytes(&out);
            LazyExpr::parsed(expr, r?)
        } else if recognises(expr, &mut self.parse) {
            LazyExpr::unparsed(expr)
        } else {
            LazyExpr::parsed(expr, parse_bytes(expr, &mut self.parse)?)
        };
        let (cluster, item) = match self.last_global {
            None => (0, 1),
            Some((c, i)) if i < 1023 => (c, i + 1),
            Some((c, _)) if c < 2047 => (c + 1, 1),
            Some(_) => return refuse("global PMID space exhausted"),
        };
        self.last_global = Some((cluster, item));
        let id = pmid(cluster, item);
        self.by_name.insert(name.clone(), self.metrics.len());
        self.metrics.push(Definition {
            name,
            pmid: id,
            expr: lazy,
            anon,
            oneline: None,
            helptext: None,
            startup: false,
        });
        if anon {
            self.anon += 1;
        }
        if traced {
            if let Some(m) = self.metrics.last() {
                let tree = if appl0 { m.expr.tree().ok() } else { None };
                self.trace_registered(self.metrics.len() - 1, &m.name, expr, tree.as_deref());
            }
        }
        Ok(id)
    }

    /// `pmRegisterDerivedMetric`: as [`Registry::register`], failing with
    /// libpcp's formatted message (see [`register_message`]).
    #[doc(alias = "pmRegisterDerivedMetric")]
    pub fn register_metric(&mut self, name: &str, expr: &str) -> Result<PmId, Vec<u8>> {
        self.register(name, expr).map_err(|e| register_message(name.as_bytes(), expr.as_bytes(), &e))
    }

    /// `__pmRegisterAnon`: an anonymous metric of a numeric type, defined
    /// as `anon(PM_TYPE_...)`. On failure libpcp reports (and returns
    /// `PM_ERR_GENERIC`); the report's text is the error.
    #[doc(alias = "__pmRegisterAnon")]
    pub fn register_anon(&mut self, name: &str, ty: MetricType) -> Result<PmId, AnonError> {
        let word = match ty {
            MetricType::I32 => "PM_TYPE_32",
            MetricType::U32 => "PM_TYPE_U32",
            MetricType::I64 => "PM_TYPE_64",
            MetricType::U64 => "PM_TYPE_U64",
            MetricType::FLOAT => "PM_TYPE_FLOAT",
            MetricType::DOUBLE => "PM_TYPE_DOUBLE",
            _ => return Err(AnonError { code: PmError::PM_ERR_TYPE, report: Vec::new() }),
        };
        let expr = format!("anon({word})");
        self.register_bytes(name.as_bytes(), expr.as_bytes(), true).map_err(|e| {
            let mut report = format!("__pmRegisterAnon({name}, {}): @ \"", ty.0).into_bytes();
            // libpcp prints the expression from where the parse stopped
            let at = usize::try_from(e.offset).unwrap_or(0).min(expr.len());
            report.extend_from_slice(&expr.as_bytes()[at..]);
            report.extend_from_slice(b"\" Error: ");
            report.extend_from_slice(e.message.as_deref().unwrap_or(b"(null)"));
            report.push(b'\n');
            AnonError { code: PmError::PM_ERR_GENERIC, report }
        })
    }

    /// Sets a metric's `oneline` or `helptext` once.
    pub fn set_attribute(&mut self, name: &str, attr: &str, value: Vec<u8>) -> Result<(), AttributeError> {
        use pcp_core::debug::DebugFlag;
        if self.trace.on(DebugFlag::Derive) && self.trace.on(DebugFlag::Appl0) {
            let mut out = format!("setattr: name=\"{name}\" attr=\"{attr}\" value=\"").into_bytes();
            out.extend_from_slice(&value);
            out.extend_from_slice(b"\"\n");
            self.trace.write_bytes(&out);
        }
        let i = *self.by_name.get(name).ok_or(AttributeError::NoMetric)?;
        let m = self.metrics.get_mut(i).ok_or(AttributeError::NoMetric)?;
        let slot = match attr {
            "oneline" => &mut m.oneline,
            "helptext" => &mut m.helptext,
            _ => return Err(AttributeError::UnknownAttribute),
        };
        if slot.is_some() {
            return Err(AttributeError::Duplicate);
        }
        *slot = Some(value);
        Ok(())
    }

    /// Help text of a global metric (`pmLookupText` for derived metrics):
    /// `None` if no global metric has this PMID, else the text or
    /// `PM_ERR_TEXT`.
    pub fn help_text(&self, pmid: PmId, level: HelpLevel) -> Option<Result<&[u8], PmError>> {
        let m = self.by_pmid(pmid)?;
        let text = match level {
            HelpLevel::OneLine => m.oneline.as_deref(),
            HelpLevel::Help { direct } => m.helptext.as_deref().or(if direct { None } else { m.oneline.as_deref() }),
        };
        Some(text.ok_or(PmError::PM_ERR_TEXT))
    }

    /// The next per-context PMID (libpcp's counter is shared by all
    /// contexts; it restarts at 511.2047.1023 for a context that has none
    /// yet).
    fn next_context_pmid(&mut self, first_in_context: bool) -> Option<PmId> {
        let (cluster, item) = match self.last_context {
            Some((c, i)) if !first_in_context => {
                if i > 1 {
                    (c, i - 1)
                } else if c > 0 {
                    (c - 1, 1023)
                } else {
                    return None;
                }
            }
            _ => (2047, 1023),
        };
        self.last_context = Some((cluster, item));
        Some(PmId(0x8000_0000 | pmid(cluster, item).0))
    }
}

/// An anonymous metric could not be registered.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct AnonError {
    /// `PM_ERR_TYPE` (not a numeric type) or `PM_ERR_GENERIC`.
    pub code: PmError,
    /// What libpcp printed (empty for `PM_ERR_TYPE`).
    pub report: Vec<u8>,
}

/// What libpcp printed, or else the code's `pmErrStr` text.
impl std::fmt::Display for AnonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.report.is_empty() {
            write!(f, "{}", self.code)
        } else {
            f.write_str(String::from_utf8_lossy(&self.report).trim_end())
        }
    }
}

impl std::error::Error for AnonError {}

/// A C string's bytes: up to the first NUL.
pub(crate) fn cstr(s: &[u8]) -> &[u8] {
    &s[..memchr::memchr(0, s).unwrap_or(s.len())]
}

/// The caret line libpcp draws: `^` under byte `offset` of the expression
/// (at the start for offset 0, one column in for -1).
fn caret(out: &mut Vec<u8>, offset: isize) {
    let pad = if offset == 0 { 0 } else { offset.unsigned_abs().max(1) };
    out.resize(out.len() + pad, b' ');
    out.extend_from_slice(b"^\n");
}

/// The message `pmRegisterDerivedMetric` returns for a failed registration:
/// the call, the expression, a caret under the error, and the diagnostic.
#[doc(alias = "pmRegisterDerivedMetric")]
pub fn register_message(name: &[u8], expr: &[u8], err: &RegisterError) -> Vec<u8> {
    let mut m = b"Error: pmRegisterDerivedMetric(\"".to_vec();
    m.extend_from_slice(cstr(name));
    m.extend_from_slice(b"\", ...)\n");
    m.extend_from_slice(cstr(expr));
    m.push(b'\n');
    caret(&mut m, err.offset);
    if let Some(d) = &err.message {
        m.extend_from_slice(d);
        m.push(b'\n');
    }
    m
}

/// Why `pmAddDerived` failed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AddError {
    /// A problem with the name or the table (`PM_ERR_BADDERIVE` and a
    /// diagnostic): duplicate name, too many metrics, no PMIDs left.
    Table(Vec<u8>),
    /// The expression does not parse.
    Syntax(SyntaxError),
    /// The expression parses but breaks a semantic rule in the context
    /// (`pmDerivedErrStr`'s explanation).
    Semantic(Vec<u8>),
}

/// libpcp's diagnostic, without the name and expression
/// [`add_message`] quotes.
impl std::fmt::Display for AddError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AddError::Table(why) => f.write_str(&String::from_utf8_lossy(why)),
            AddError::Syntax(e) => write!(f, "{e}"),
            AddError::Semantic(why) => write!(f, "semantic error: {}", String::from_utf8_lossy(why)),
        }
    }
}

impl std::error::Error for AddError {}

/// The message `pmAddDerivedMetric` returns for a failure.
#[doc(alias = "pmAddDerivedMetric")]
pub fn add_message(name: &[u8], expr: &[u8], err: &AddError) -> Vec<u8> {
    match err {
        AddError::Table(why) => {
            let mut m = b"Error: pmAddDerivedMetric(\"".to_vec();
            m.extend_from_slice(cstr(name));
            m.extend_from_slice(format!("\", ...): returns {}\n", PmError::PM_ERR_BADDERIVE.code()).as_bytes());
            m.extend_from_slice(why);
            m.push(b'\n');
            m
        }
        AddError::Syntax(e) => add_form(b"Syntax", name, expr, e.offset, e.message.as_deref()),
        AddError::Semantic(why) => add_semantic_message(name, expr, why),
    }
}

/// The message `pmAddDerivedMetric` returns for a semantic error found
/// when binding the metric in its context.
pub fn add_semantic_message(name: &[u8], expr: &[u8], why: &[u8]) -> Vec<u8> {
    add_form(b"Semantic", name, expr, 0, Some(why))
}

fn add_form(kind: &[u8], name: &[u8], expr: &[u8], offset: isize, why: Option<&[u8]>) -> Vec<u8> {
    let mut m = kind.to_vec();
    m.extend_from_slice(b" Error: pmAddDerivedMetric(\"");
    m.extend_from_slice(cstr(name));
    m.extend_from_slice(b"\", ...)\n");
    m.extend_from_slice(cstr(expr));
    m.push(b'\n');
    caret(&mut m, offset);
    if let Some(d) = why {
        m.extend_from_slice(d);
        m.push(b'\n');
    }
    m
}

/// One entry of a context's list: a global metric (by position in the
/// registry) or one of the context's own.
#[derive(Clone, Debug)]
enum Entry {
    Global { index: usize, masked: bool },
    Local(Definition),
}

/// One context's derived metrics: its view of the global ones (copied
/// when the context was made, new ones appended as they are noticed) and
/// its own (`pmAddDerived`), in libpcp's order, which decides what a name
/// means when several metrics share it.
#[derive(Clone, Debug, Default)]
pub struct ContextTable {
    entries: Vec<Entry>,
    /// How many global metrics have been copied in.
    globals_seen: usize,
    limit: Option<usize>,
}

impl ContextTable {
    /// The table of a new context: all global metrics so far, and the
    /// registry's limit.
    pub fn open(registry: &Registry) -> ContextTable {
        let mut t = ContextTable { entries: Vec::new(), globals_seen: 0, limit: registry.limit };
        t.refresh(registry);
        t
    }

    /// Appends global metrics registered since the last look (libpcp does
    /// this before name and PMID lookups, not before additions).
    pub fn refresh(&mut self, registry: &Registry) {
        for index in self.globals_seen..registry.metrics.len() {
            self.entries.push(Entry::Global { index, masked: false });
        }
        self.globals_seen = registry.metrics.len();
    }

    /// The limit on this context's own metrics.
    pub fn limit(&self) -> Option<usize> {
        self.limit
    }

    /// Sets the limit (`PCP_DERIVED_CONTEXT_LIMIT`).
    pub fn set_limit(&mut self, limit: Option<usize>) {
        self.limit = limit;
    }

    fn locals(&self) -> usize {
        self.entries.iter().filter(|e| matches!(e, Entry::Local(_))).count()
    }

    /// `pmAddDerived`'s checks and parse: the name must be new among this
    /// context's own metrics (a global metric of the same name is masked),
    /// and the metric gets the next per-context PMID. Binding it (the
    /// semantic checks) is the caller's part.
    #[doc(alias = "pmAddDerived")]
    pub fn add(&mut self, registry: &mut Registry, name: &str, expr: &str) -> Result<PmId, AddError> {
        let name = String::from_utf8_lossy(cstr(name.as_bytes())).into_owned();
        let text = cstr(expr.as_bytes());
        let table = |why: &str| Err(AddError::Table(why.as_bytes().to_vec()));
        if let Some(limit) = self.limit {
            if self.locals() >= limit {
                return table("Too many per-context derived metrics");
            }
        }
        let mut clash = false;
        for e in &mut self.entries {
            match e {
                Entry::Local(d) if d.name == name => clash = true,
                Entry::Global { index, masked } => {
                    if registry.metrics.get(*index).is_some_and(|m| m.name == name) {
                        *masked = true;
                    }
                }
                Entry::Local(_) => {}
            }
            if clash {
                return table("Duplicate per-context derived metric name");
            }
        }
        let tree = parse_bytes(text, &mut registry.parse).map_err(AddError::Syntax)?;
        let Some(id) = registry.next_context_pmid(self.locals() == 0) else {
            return table("per-context PMID space exhausted");
        };
        self.entries.push(Entry::Local(Definition {
            name,
            pmid: id,
            expr: LazyExpr::parsed(text, tree),
            anon: false,
            oneline: None,
            helptext: None,
            startup: false,
        }));
        Ok(id)
    }

    /// The derived metric a name means in this context (masked global
    /// metrics skipped), after a refresh.
    pub fn lookup<'a>(&'a mut self, registry: &'a Registry, name: &str) -> Option<&'a Definition> {
        self.refresh(registry);
        self.visible(registry).find(|d| d.name == name)
    }

    /// The derived metric with this PMID in this context, after a refresh.
    pub fn by_pmid<'a>(&'a mut self, registry: &'a Registry, pmid: PmId) -> Option<&'a Definition> {
        self.refresh(registry);
        self.visible(registry).find(|d| d.pmid == pmid)
    }

    /// The metrics visible in this context, in libpcp's order.
    pub fn visible<'a>(&'a self, registry: &'a Registry) -> impl Iterator<Item = &'a Definition> + 'a {
        self.entries.iter().filter_map(move |e| match e {
            Entry::Global { index, masked: false } => registry.metrics.get(*index),
            Entry::Global { .. } => None,
            Entry::Local(d) => Some(d),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trees_wait_until_asked_for_where_the_text_is_sure_to_parse() {
        let mut r = Registry::new();
        r.register("a", "delta(x.y) / delta(x.z)").expect("register");
        r.register("b", "x.y[caf\u{e9}]").expect("register");
        let (a, b) = (r.get("a").expect("a"), r.get("b").expect("b"));
        assert!(a.expr.0.tree.get().is_none(), "a's tree waits");
        assert!(b.expr.0.tree.get().is_some(), "b's is made: its text is not all ASCII");
        let tree = a.expr.tree().expect("parses");
        assert_eq!(*tree, crate::parse("delta(x.y) / delta(x.z)").expect("parses"));
        assert!(Arc::ptr_eq(&tree, &a.expr.clone().tree().expect("parses")), "made once, shared by clones");
        assert_eq!(a.text(), b"delta(x.y) / delta(x.z)");
        // a failed matchinst( leaves the parser reading patterns: then the
        // next text is parsed at once, from that state
        assert!(r.register("c", "matchinst(/x").is_err());
        r.register("d", "a / b").expect_err("a pattern, unterminated");
    }

    #[test]
    fn a_new_registry_holds_the_anonymous_metrics_pmids() {
        // every context gives event.flags 511.0.1 and event.missed 511.0.2,
        // as libpcp registers them before its first context
        let mut r = Registry::new();
        let anon: Vec<_> = r.metrics().iter().map(|d| (d.name.as_str(), d.pmid, d.anon)).collect();
        assert_eq!(anon, [("event.flags", pmid(0, 1), true), ("event.missed", pmid(0, 2), true)]);
        assert_eq!(r.register("a", "1"), Ok(pmid(0, 3)));
        assert_eq!(Registry::default().metrics().len(), 2);
        let help = r.help_text(pmid(0, 1), HelpLevel::OneLine);
        assert_eq!(help, Some(Ok(&b"Flags for event records"[..])));
    }

    #[test]
    fn global_pmids_ascend_and_wrap_clusters() {
        let mut r = Registry::new();
        assert_eq!(r.register("a", "1"), Ok(PmId(0x7fc0_0003)));
        for i in 4..=1023 {
            r.register(&format!("m{i}"), "1").expect("register");
        }
        assert_eq!(r.register("next", "2"), Ok(PmId(0x7fc0_0401))); // 511.1.1
    }

    #[test]
    fn duplicate_names_and_limit() {
        let mut r = Registry::new();
        r.register("a", "1").expect("first");
        let e = r.register_metric("a", "2").unwrap_err();
        assert_eq!(e, b"Error: pmRegisterDerivedMetric(\"a\", ...)\n2\n^\nDuplicate global derived metric name\n");
        r.set_limit(Some(1));
        assert_eq!(r.register("b", "1").unwrap_err().message.as_deref(), Some(&b"Too many global derived metrics"[..]));
    }

    #[test]
    fn anon_metrics_do_not_count_against_the_limit() {
        let mut r = Registry::new();
        r.set_limit(Some(1));
        r.register_anon("other.anon", MetricType::U32).expect("anon");
        r.register("x", "1").expect("within limit");
        let e = r.register_anon("x", MetricType::U32).unwrap_err();
        assert_eq!(e.code, PmError::PM_ERR_GENERIC);
        assert_eq!(
            e.report,
            b"__pmRegisterAnon(x, 1): @ \"anon(PM_TYPE_U32)\" Error: Too many global derived metrics\n"
        );
    }

    #[test]
    fn context_pmids_descend_and_are_shared_by_contexts() {
        let mut r = Registry::new();
        r.register("g", "1").expect("global");
        let mut c1 = ContextTable::open(&r);
        let mut c2 = ContextTable::open(&r);
        assert_eq!(c1.add(&mut r, "c.one", "1"), Ok(PmId(0xffdf_ffff)));
        assert_eq!(c1.add(&mut r, "c.two", "2"), Ok(PmId(0xffdf_fffe)));
        assert_eq!(c2.add(&mut r, "c.three", "3"), Ok(PmId(0xffdf_ffff)));
        // libpcp's shared counter: context 1 gets 2047.1022 a second time
        assert_eq!(c1.add(&mut r, "c.four", "4"), Ok(PmId(0xffdf_fffe)));
        let e = c1.add(&mut r, "c.two", "2").unwrap_err();
        assert_eq!(
            add_message(b"c.two", b"2", &e),
            b"Error: pmAddDerivedMetric(\"c.two\", ...): returns -12409\nDuplicate per-context derived metric name\n"
        );
        let e = c1.add(&mut r, "c.bad", "2 +").unwrap_err();
        assert_eq!(
            add_message(b"c.bad", b"2 +", &e),
            b"Syntax Error: pmAddDerivedMetric(\"c.bad\", ...)\n2 +\n  ^\nArithmetic expression expected to follow PLUS\n"
        );
    }

    #[test]
    fn per_context_names_mask_global_ones() {
        let mut r = Registry::new();
        let g = r.register("x", "1").expect("global");
        let mut c = ContextTable::open(&r);
        let l = c.add(&mut r, "x", "2").expect("local");
        assert_eq!(c.lookup(&r, "x").map(|d| d.pmid), Some(l));
        assert!(c.by_pmid(&r, g).is_none());
        // a global registered later, after the context's own, comes after it
        r.register("y", "3").expect("global");
        assert!(c.lookup(&r, "y").is_some());
    }
}
