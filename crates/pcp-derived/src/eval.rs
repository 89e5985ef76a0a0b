//! Evaluation: the values of checked derived metrics, computed from the
//! values of their operands as a fetch returned them (libpcp's
//! `__dmprefetch` and `__dmpostfetch`).
//!
//! Nothing here fetches: [`Evaluator::operands`] and [`prefetch`] say which
//! real metrics a fetch must also ask for, and [`Evaluator::evaluate`] (or
//! [`postfetch`] for a whole result) is handed what came back, with the
//! fetch's timestamp. Instance names, needed by `matchinst()` and `[name]`
//! selection, come through an [`Instances`] implementation.
//!
//! Each [`Evaluator`] keeps what `delta()` and `rate()` need between
//! fetches (the previous values and timestamp), and the instance matches
//! of `matchinst()`, so one evaluator belongs to one context.
//!
//! The arithmetic is libpcp 6.0.3's: values are computed in the type the
//! checker gave each node (32-bit and 64-bit integers wrap), operands are
//! promoted to it, and scale conversions multiply and divide doubles.
//! Where libpcp reads memory it never wrote, something defined is done
//! instead (see the notes on [`Evaluator::evaluate`]). Evaluation never
//! panics.
//!
//! This module walks an expression's nodes; its parts are `ops`
//! (operators and functions), `history` (`delta()` and `rate()`),
//! `matching` (instance selection and `matchinst()`), `values` (C's
//! arithmetic on values) and `fetch` (whole fetches).

mod fetch;
mod history;
mod matching;
mod ops;
#[cfg(test)]
mod tests;
mod values;

pub use fetch::{postfetch, postfetch_into, prefetch, prefetch_into};
use matching::Matches;
pub use matching::Patterns;
use values::*;

use crate::ast::{Expr, Filter, Func, Node};
use crate::check::{Checked, Choose};
use pcp_core::{
    conv_scale, AtomValue, Desc, FetchResult, InDom, InstValue, PmError, PmId, Timestamp, ValueSet, PM_IN_NULL,
};
use std::sync::Arc;

/// What evaluation asks of a context about instance domains.
pub trait Instances {
    /// The external name of instance `inst` of `indom` at time `at`
    /// (`pmNameInDom`), or `None`.
    #[doc(alias = "pmNameInDom")]
    fn inst_name(&mut self, indom: InDom, inst: i32, at: Timestamp) -> Option<Vec<u8>>;
    /// The instance of `indom` named `name` (`pmLookupInDom`), or why
    /// there is none.
    #[doc(alias = "pmLookupInDom")]
    fn inst_id(&mut self, indom: InDom, name: &[u8], at: Timestamp) -> Result<i32, PmError>;
    /// All instances of `indom` at time `at` (`pmGetInDom`), for a
    /// `mkconst(..., meta=m)` whose metric has an instance domain.
    #[doc(alias = "pmGetInDom")]
    fn instances(&mut self, indom: InDom, at: Timestamp) -> Result<Vec<i32>, PmError>;
}

/// A context that knows no instance domains.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoInstances;

impl Instances for NoInstances {
    fn inst_name(&mut self, _: InDom, _: i32, _: Timestamp) -> Option<Vec<u8>> {
        None
    }
    fn inst_id(&mut self, _: InDom, _: &[u8], _: Timestamp) -> Result<i32, PmError> {
        Err(PmError::PM_ERR_INDOM)
    }
    fn instances(&mut self, _: InDom, _: Timestamp) -> Result<Vec<i32>, PmError> {
        Err(PmError::PM_ERR_INDOM)
    }
}

/// One node's values: instance and value pairs, or the error that stands
/// for them (C's negative `numval`).
pub(crate) type Vals = Result<Vec<(i32, AtomValue)>, PmError>;

/// C's `numval` of a node's values.
pub(crate) fn numval(v: &Vals) -> i32 {
    match v {
        Ok(v) => i32::try_from(v.len()).unwrap_or(i32::MAX),
        Err(e) => e.code(),
    }
}

#[derive(Clone, Debug)]
struct State {
    /// This fetch's values.
    cur: Vals,
    /// The previous fetch's (kept for operands of `delta()`/`rate()`).
    last: Vals,
    stamp: Timestamp,
    last_stamp: Timestamp,
    /// `matchinst()`'s decisions (made on first use: other nodes have
    /// none).
    matches: Option<Box<Matches>>,
    /// `[name]`: the instance, once looked up.
    inst: Option<i32>,
    /// Room for the next fetch's values: the list they displace, emptied.
    spare: Vec<(i32, AtomValue)>,
}

impl Default for State {
    fn default() -> State {
        State {
            cur: Ok(Vec::new()),
            last: Ok(Vec::new()),
            stamp: Timestamp::new(0, 0),
            last_stamp: Timestamp::new(0, 0),
            matches: None,
            inst: None,
            spare: Vec::new(),
        }
    }
}

/// [`Evaluator::operands`] of `expr`: the names used, outside `defined()`.
fn operands_of(expr: &Expr, checked: &Checked) -> Box<[PmId]> {
    let nodes = expr.nodes();
    // the operands of defined() (few expressions have any)
    let defined: Vec<usize> = nodes
        .iter()
        .filter_map(|n| match n {
            Node::Func(Func::Defined, x) => Some(x.index()),
            _ => None,
        })
        .collect();
    let operand = |(i, node): (usize, &Node)| {
        let info = checked.info.get(i)?;
        let used = matches!(node, Node::Name(_)) && info.used && info.pmid != PmId::NULL;
        (used && !defined.contains(&i)).then_some(info.pmid)
    };
    let count = nodes.iter().enumerate().filter_map(operand).count();
    let mut out = Vec::with_capacity(count);
    out.extend(nodes.iter().enumerate().filter_map(operand));
    out.into_boxed_slice()
}

/// What `rate()` of an expression with counter semantics gives for an
/// instance whose value went down since the previous fetch (a counter
/// wrap or reset).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CounterDecrease {
    /// No value for the instance, as pmRegisterDerived(3) says (and as
    /// pmval, pmie and pmchart rate-convert counters).
    #[default]
    NoValue,
    /// The difference in the operand's type, divided by the interval, as
    /// libpcp 6.0.3 computes it (PCP issue 1921): a signed or 64-bit
    /// counter's decrease gives a huge value. The PCP tools' recorded
    /// outputs hold these values.
    Subtract,
}

/// The evaluation of one derived metric in one context, with the state
/// `delta()`, `rate()` and `matchinst()` keep between fetches.
///
/// ```
/// use pcp_core::{AtomValue, Desc, FetchResult, InDom, InstValue, MetricType, PmError, PmId};
/// use pcp_core::{Semantics, Timestamp, Units, Value, ValueSet};
/// use pcp_derived::check::{check, Catalog};
/// use pcp_derived::{parse, postfetch, prefetch, Evaluator, NoInstances};
///
/// // a context with one singular counter, kernel.all.sysfork
/// const FORKS: Desc = Desc {
///     pmid: PmId::new(60, 0, 14),
///     ty: MetricType::U64,
///     indom: InDom::NULL,
///     sem: Semantics::COUNTER,
///     units: Units::from_u32(0x0010_0000), // count
/// };
/// struct Kernel;
/// impl Catalog for Kernel {
///     fn lookup_name(&mut self, name: &str) -> Result<PmId, PmError> {
///         if name == "kernel.all.sysfork" { Ok(FORKS.pmid) } else { Err(PmError::PM_ERR_NAME) }
///     }
///     fn lookup_desc(&mut self, pmid: PmId) -> Result<Desc, PmError> {
///         if pmid == FORKS.pmid { Ok(FORKS) } else { Err(PmError::PM_ERR_PMID) }
///     }
/// }
///
/// let derived = PmId::new(511, 0, 1);
/// let expr = parse("delta(kernel.all.sysfork)").unwrap();
/// let checked = check("forks", derived, &expr, &mut Kernel).unwrap();
/// let mut evaluators = [Evaluator::new(expr, checked)];
/// let desc = evaluators[0].desc();
/// // (libpcp gives delta() of a U64 type DOUBLE)
/// assert_eq!((desc.ty, desc.sem), (MetricType::DOUBLE, Semantics::INSTANT));
///
/// // a fetch of the derived metric must also fetch its operand
/// let wanted = prefetch(&[derived], &evaluators);
/// assert_eq!(wanted, [derived, FORKS.pmid]);
///
/// // what the context's fetch returned: the derived metric's own set is
/// // a placeholder, the operand's holds the counter
/// let fetched = |sec, forks: u64| FetchResult {
///     timestamp: Timestamp::new(sec, 0),
///     sets: vec![
///         ValueSet { pmid: derived, values: Err(PmError::PM_ERR_PMID) },
///         ValueSet {
///             pmid: FORKS.pmid,
///             values: Ok(vec![InstValue { inst: -1, value: Value::from_atom(&AtomValue::U64(forks)) }]),
///         },
///     ],
/// };
/// // the first fetch has no previous value to subtract: no values yet
/// let first = postfetch(&fetched(10, 1000), 1, &mut evaluators, &mut NoInstances);
/// assert_eq!(first.sets[0].numval(), 0);
/// let second = postfetch(&fetched(20, 1042), 1, &mut evaluators, &mut NoInstances);
/// assert_eq!(second.sets.len(), 1);
/// let values = second.sets[0].values.as_ref().unwrap();
/// assert_eq!(values[0].value, Value::from_atom(&AtomValue::Double(42.0)));
/// ```
#[derive(Clone, Debug)]
pub struct Evaluator {
    /// (shared, so that evaluation can read it while updating the state)
    expr: Arc<Expr>,
    checked: Checked,
    state: Vec<State>,
    /// Nodes whose previous values are kept (operands of delta and rate).
    save_last: Box<[usize]>,
    /// Compiled `matchinst()` patterns, by node (`None`: not compilable).
    regex: Box<[(usize, Option<regex::bytes::Regex>)]>,
    /// What [`Evaluator::operands`] gives, found once.
    operands: Box<[PmId]>,
    /// The nodes in the order [`Evaluator::eval_tree`] evaluates them
    /// (found once: which operands are evaluated is settled at binding).
    order: Box<[Step]>,
    /// `rate()` of a counter that went down.
    pub(crate) counter_decrease: CounterDecrease,
    /// Where evaluation is traced (`-Dderive,appl2`): off unless
    /// [`Evaluator::set_trace`].
    pub(crate) trace: pcp_core::debug::Trace,
    /// The stand-in address of the first node of libpcp's tree, in dumps.
    addr_base: u64,
}

/// A node to evaluate, and where in the order its parent is (`NO_PARENT`
/// for the root).
#[derive(Clone, Copy, Debug)]
struct Step {
    node: u32,
    parent: u32,
}

const NO_PARENT: u32 = u32::MAX;

impl Evaluator {
    /// An evaluator for a metric's expression and what [`crate::check::check`]
    /// found for it.
    pub fn new(expr: impl Into<Arc<Expr>>, checked: Checked) -> Evaluator {
        Evaluator::with_patterns(expr, checked, &mut Patterns::default())
    }

    /// [`Evaluator::new`], its `matchinst()` patterns compiled once in
    /// `patterns` (shared by the evaluators made with it: configurations
    /// use the same few patterns over and over).
    pub fn with_patterns(expr: impl Into<Arc<Expr>>, checked: Checked, patterns: &mut Patterns) -> Evaluator {
        let expr: Arc<Expr> = expr.into();
        let n = expr.nodes().len();
        // (most expressions have neither: nothing is allocated for them)
        let mut save_last = Vec::new();
        let mut regex = Vec::new();
        for (i, node) in expr.nodes().iter().enumerate() {
            match node {
                Node::Func(Func::Delta | Func::Rate, x) => save_last.push(x.index()),
                Node::Filter(Filter::Regex { pattern, .. }, _) => regex.push((i, patterns.compiled(pattern))),
                _ => {}
            }
        }
        let operands = operands_of(&expr, &checked);
        let mut ev = Evaluator {
            expr,
            checked,
            state: vec![State::default(); n],
            save_last: save_last.into(),
            regex: regex.into(),
            operands,
            order: Box::default(),
            counter_decrease: CounterDecrease::default(),
            trace: pcp_core::debug::Trace::off(),
            addr_base: 0,
        };
        if n > 0 {
            ev.order = ev.order_below(n - 1);
        }
        ev
    }

    /// The nodes of the subtree at `root` that are evaluated, children
    /// before parents, left to right (as libpcp recurses), each with its
    /// parent's place in the order.
    fn order_below(&self, root: usize) -> Box<[Step]> {
        let mut order: Vec<Step> = Vec::new();
        // (node, next operand to visit, where its operands' places start
        // in `placed`)
        let mut stack = vec![(root, 0usize, 0usize)];
        // the places of nodes whose parent is not placed yet
        let mut placed: Vec<usize> = Vec::new();
        while let Some(&mut (i, ref mut next, from)) = stack.last_mut() {
            if let Some(c) = self.child_to_eval(i, *next) {
                *next += 1;
                stack.push((c, 0, placed.len()));
                continue;
            }
            stack.pop();
            let at = order.len();
            for &child in &placed[from..] {
                order[child].parent = at as u32;
            }
            placed.truncate(from);
            placed.push(at);
            order.push(Step { node: i as u32, parent: NO_PARENT });
        }
        order.into()
    }

    /// Sets what `rate()` of a counter that went down gives (by default
    /// [`CounterDecrease::NoValue`], the manual page's rule).
    pub fn set_counter_decrease(&mut self, rule: CounterDecrease) {
        self.counter_decrease = rule;
    }

    /// Trace evaluation into `trace` as libpcp's `-Dderive,appl2` does,
    /// the tree's nodes given stand-in addresses from `addresses`.
    pub fn set_trace(&mut self, trace: pcp_core::debug::Trace, addresses: &crate::trace::Addresses) {
        self.trace = trace;
        self.addr_base = addresses.reserve(crate::trace::node_count(&self.expr));
    }

    /// The stand-in address of the first node of the tree in dumps.
    pub(crate) fn addr_base(&self) -> u64 {
        self.addr_base
    }

    /// The expression.
    pub(crate) fn expr(&self) -> &Expr {
        &self.expr
    }

    /// What checking found.
    pub(crate) fn checked(&self) -> &Checked {
        &self.checked
    }

    /// Node `id`'s values from the last evaluation, and those it keeps
    /// from the one before (`delta()` and `rate()` operands).
    pub(crate) fn node_values(&self, id: crate::ast::NodeId) -> (&Vals, &Vals) {
        let st = &self.state[id.index()];
        (&st.cur, &st.last)
    }

    /// A `matchinst()` node's count of evaluations since culling, and the
    /// instances it has seen and matched (once it has seen one).
    pub(crate) fn pattern_state(&self, id: crate::ast::NodeId) -> (u32, Option<(usize, usize)>) {
        match self.state[id.index()].matches.as_deref() {
            None => (0, None),
            Some(m) => (m.used, m.seen_counts()),
        }
    }

    /// Whether instances an operator pairs up are traced when they do not
    /// line up (`-Dderive,appl2`, unless an operand is an instance filter,
    /// whose instances are expected not to).
    fn traces_matching(&self, operands: &[usize]) -> bool {
        use pcp_core::debug::DebugFlag;
        self.trace.on(DebugFlag::Derive)
            && self.trace.on(DebugFlag::Appl2)
            && !operands.iter().any(|&x| matches!(self.expr.nodes()[x], Node::Filter(..)))
    }

    /// An `x[name]` node's instance, once looked up.
    pub(crate) fn filter_inst(&self, id: crate::ast::NodeId) -> Option<i32> {
        self.state[id.index()].inst
    }

    /// The derived metric's PMID.
    pub fn pmid(&self) -> PmId {
        self.checked.desc().pmid
    }

    /// The derived metric's descriptor.
    pub fn desc(&self) -> Desc {
        self.checked.desc()
    }

    /// The real metrics whose values evaluation needs, in the order they
    /// appear, repeats included (libpcp's `get_pmids`).
    pub fn operands(&self) -> &[PmId] {
        &self.operands
    }

    fn desc_of(&self, i: usize) -> Desc {
        self.checked.info.get(i).map_or(ZERO_DESC, |info| info.desc)
    }

    /// The metric's values from this fetch's result (`result` holds the
    /// operands' value sets; `result.timestamp` is the fetch's time).
    ///
    /// Where libpcp 6.0.3 reads memory it never set, this does the
    /// following instead: `!x` gives 0 or 1 in the type of `x`; `max()`
    /// and `min()` of no values give the previous fetch's result (0 the
    /// first time); `scalar()` of no values gives no values; a ternary
    /// branch of `novalue()` drops the instance rather than leaving a hole.
    /// Where libpcp keeps no previous values for an operand of `delta()`
    /// or `rate()` (`x[name]`), so that they never have a value, this
    /// keeps them. Otherwise the functions of expressions (`delta(sum(x))`)
    /// behave as in PCP 6.3: a constant's previous value is itself.
    pub fn evaluate(&mut self, result: &FetchResult, names: &mut dyn Instances) -> ValueSet {
        self.evaluate_into(result, names, Vec::new())
    }

    /// [`Evaluator::evaluate`], the values made in `room` (emptied first).
    pub fn evaluate_into(
        &mut self,
        result: &FetchResult,
        names: &mut dyn Instances,
        mut room: Vec<InstValue>,
    ) -> ValueSet {
        let pmid = self.pmid();
        let n = self.expr.nodes().len();
        if n == 0 {
            return ValueSet { pmid, values: Err(PmError::PM_ERR_PMID) };
        }
        let root = n - 1;
        let ret = self.eval_tree(result, names);
        let values = match ret {
            Err(e) => Err(e),
            Ok(()) => {
                let ty = self.desc_of(root).ty;
                match &self.state[root].cur {
                    Err(e) => Err(*e),
                    Ok(v) => {
                        // (the values the list held are overwritten where
                        // they are: most often the last fetch's, of the
                        // same type)
                        room.truncate(v.len());
                        let held = room.len();
                        for (slot, (inst, a)) in room.iter_mut().zip(v) {
                            slot.inst = *inst;
                            pack_into(a, ty, &mut slot.value);
                        }
                        room.extend(v[held..].iter().map(|(inst, a)| InstValue { inst: *inst, value: pack(a, ty) }));
                        Ok(room)
                    }
                }
            }
        };
        ValueSet { pmid, values }
    }

    /// Evaluates the expression, children first (left to right), as
    /// libpcp's recursion does, without recursing: an error from a child
    /// ends its parent's evaluation (and so on up; its later operands are
    /// not evaluated) without touching the parent's state, but for
    /// `count()`, which counts it as no values.
    fn eval_tree(&mut self, result: &FetchResult, names: &mut dyn Instances) -> Result<(), PmError> {
        // (shared once for the whole tree: the nodes are read while the
        // state is updated)
        let expr = Arc::clone(&self.expr);
        let order = std::mem::take(&mut self.order);
        let mut ret = Ok(());
        let mut k = 0;
        while let Some(step) = order.get(k) {
            let mut at = k;
            k += 1;
            ret = self.eval_node(&expr, step.node as usize, result, names);
            while let Err(e) = ret {
                // on up to the parent, passing over the operands after this one
                let Some(parent) = order.get(order[at].parent as usize) else { break };
                at = order[at].parent as usize;
                k = at + 1;
                let p = parent.node as usize;
                ret = if matches!(expr.nodes()[p], Node::Func(Func::Count, _)) {
                    self.set(p, Ok(vec![(PM_IN_NULL, AtomValue::U32(0))]))
                } else {
                    Err(e)
                };
            }
            if ret.is_err() {
                break;
            }
        }
        self.order = order;
        ret
    }

    /// The `k`th of the operands evaluated before a node: all but a
    /// `defined()` operand (decided at binding) and a ternary branch not
    /// used. (Asked for once per operand and once more per evaluation, so
    /// found without collecting them.)
    fn child_to_eval(&self, i: usize, k: usize) -> Option<usize> {
        match &self.expr.nodes()[i] {
            Node::Func(Func::Defined, _) => None,
            Node::Ternary(g, t, e) => {
                let choose = self.checked.info.get(i).map_or(Choose::Both, |x| x.choose);
                let novalue = |x: usize| matches!(self.expr.nodes()[x], Node::NoValue(_));
                let then = (choose != Choose::Else && !novalue(t.index())).then_some(t.index());
                let other = (choose != Choose::Then && !novalue(e.index())).then_some(e.index());
                [Some(g.index()), then, other].into_iter().flatten().nth(k)
            }
            node => node.children().nth(k).map(|c| c.index()),
        }
    }

    /// Replaces a node's values, keeping the old ones if they are history
    /// for `delta()`/`rate()` (libpcp's free_ivlist).
    fn set(&mut self, i: usize, v: Vals) -> Result<(), PmError> {
        let st = &mut self.state[i];
        let old = std::mem::replace(&mut st.cur, v);
        let displaced = if self.save_last.contains(&i) { std::mem::replace(&mut st.last, old) } else { old };
        if let Ok(mut spare) = displaced {
            spare.clear();
            st.spare = spare;
        }
        match &st.cur {
            Err(e) => Err(*e),
            Ok(_) => Ok(()),
        }
    }

    /// An empty list for node `i`'s values, with room for `n`.
    fn out_buf(&mut self, i: usize, n: usize) -> Vec<(i32, AtomValue)> {
        let mut v = std::mem::take(&mut self.state[i].spare);
        v.reserve(n);
        v
    }

    fn vals(&self, i: usize) -> &[(i32, AtomValue)] {
        vals_or_none(&self.state[i].cur)
    }

    fn eval_node(
        &mut self,
        expr: &Expr,
        i: usize,
        result: &FetchResult,
        names: &mut dyn Instances,
    ) -> Result<(), PmError> {
        let desc = self.desc_of(i);
        let stamp = result.timestamp;
        match &expr.nodes()[i] {
            Node::Integer(c) | Node::Double(c) => {
                if desc.indom == InDom::NULL {
                    if self.state[i].cur.as_ref().is_ok_and(|v| v.is_empty()) {
                        self.state[i].cur = Ok(vec![(PM_IN_NULL, constant(&c.text, desc.ty))]);
                        // a constant never changes: its first value is its
                        // previous one too
                        if self.save_last.contains(&i) {
                            self.state[i].last = self.state[i].cur.clone();
                        }
                    }
                } else {
                    // a constant with an instance domain (meta=): one value
                    // per instance, refreshed each fetch
                    let value = constant(&c.text, desc.ty);
                    let v = names
                        .instances(desc.indom, stamp)
                        .map(|insts| insts.into_iter().map(|inst| (inst, value.clone())).collect());
                    return self.set(i, v);
                }
                match &self.state[i].cur {
                    Err(e) => Err(*e),
                    Ok(_) => Ok(()),
                }
            }
            Node::Name(_) => {
                let pmid = self.checked.info.get(i).map_or(PmId::NULL, |x| x.pmid);
                let Some(set) = result.sets.iter().find(|s| s.pmid == pmid) else {
                    return Err(PmError::PM_ERR_PMID);
                };
                let v = match &set.values {
                    Err(e) => Err(*e),
                    Ok(list) => {
                        let mut out = self.out_buf(i, list.len());
                        list.iter()
                            .try_for_each(|iv| decode(&iv.value, desc.ty).map(|a| out.push((iv.inst, a))))
                            .map(|()| out)
                    }
                };
                self.set(i, v)
            }
            Node::Func(Func::Defined, _) => {
                let defined = self.checked.info.get(i).is_some_and(|x| x.defined);
                let mut out = self.out_buf(i, 1);
                out.push((PM_IN_NULL, AtomValue::U32(u32::from(defined))));
                self.set(i, Ok(out))
            }
            Node::NoValue(_) | Node::Anon(_) => self.set(i, Ok(Vec::new())),
            Node::Not(x) => {
                let x = x.index();
                let xt = self.desc_of(x).ty;
                let v = self.map_vals(i, x, |a| not_value(as_f64(a, xt) == 0.0, desc.ty));
                self.set(i, v)
            }
            Node::Neg(x) => {
                let x = x.index();
                let xt = self.desc_of(x).ty;
                let v = self.map_vals(i, x, |a| negate(a, xt));
                self.set(i, v)
            }
            Node::Rescale(x, to) => {
                let x = x.index();
                let from = self.desc_of(x).units;
                let v = self.map_vals_opt(i, x, |a| conv_scale(&convert(a, desc.ty), from, *to).ok());
                self.set(i, v)
            }
            Node::Func(Func::Instant, x) => {
                self.state[i].last_stamp = self.state[i].stamp;
                self.state[i].stamp = stamp;
                let v = self.state[x.index()].cur.clone();
                self.set(i, v)
            }
            Node::Func(f @ (Func::Delta | Func::Rate), x) => self.delta(i, *f, x.index(), stamp),
            Node::Func(f, x) => self.aggregate(i, *f, x.index()),
            Node::Filter(Filter::Instance(name), x) => self.filter_by_name(i, name, x.index(), stamp, names),
            Node::Filter(Filter::Regex { invert, .. }, x) => {
                self.filter_by_pattern(i, *invert, x.index(), stamp, names)
            }
            Node::Ternary(g, t, e) => self.ternary(expr, i, g.index(), t.index(), e.index()),
            Node::Binary(op, l, r) => self.binary(i, *op, l.index(), r.index()),
        }
    }
}
