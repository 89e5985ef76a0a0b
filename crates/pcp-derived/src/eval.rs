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

use crate::ast::{BinOp, Expr, Filter, Func, Node};
use crate::check::{Checked, Choose};
use pcp_core::{
    conv_scale, AtomValue, Desc, FetchResult, InDom, InstValue, MetricType, PmError, PmId, Timestamp, Units, Value,
    ValueSet, PM_IN_NULL,
};
use std::borrow::{Borrow, BorrowMut};
use std::collections::HashMap;
use std::sync::Arc;

/// What evaluation asks of a context about instance domains.
pub trait Instances {
    /// The external name of instance `inst` of `indom` at time `at`
    /// (`pmNameInDom`), or `None`.
    #[doc(alias = "pmNameInDom")]
    fn inst_name(&mut self, indom: InDom, inst: i32, at: Timestamp) -> Option<Vec<u8>>;
    /// The instance of `indom` named `name` (`pmLookupInDom`), or `None`.
    #[doc(alias = "pmLookupInDom")]
    fn inst_id(&mut self, indom: InDom, name: &[u8], at: Timestamp) -> Option<i32>;
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
    fn inst_id(&mut self, _: InDom, _: &[u8], _: Timestamp) -> Option<i32> {
        None
    }
    fn instances(&mut self, _: InDom, _: Timestamp) -> Result<Vec<i32>, PmError> {
        Err(PmError::PM_ERR_INDOM)
    }
}

/// One node's values: instance and value pairs, or the error that stands
/// for them (C's negative `numval`).
type Vals = Result<Vec<(i32, AtomValue)>, PmError>;

/// How many `matchinst()` evaluations between cullings of the instance
/// matches remembered (libpcp's `REGEX_INST_COMPACT`).
const REGEX_COMPACT: u32 = 100;

/// C's `numval` of a node's values.
fn numval(v: &Vals) -> i32 {
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

/// `matchinst()` patterns compiled (`None`: not compilable), by pattern.
#[derive(Clone, Debug, Default)]
pub struct Patterns(HashMap<Vec<u8>, Option<regex::bytes::Regex>>);

impl Patterns {
    /// `pattern` compiled, by [`compile_ere`] the first time it is asked for.
    fn compiled(&mut self, pattern: &[u8]) -> Option<regex::bytes::Regex> {
        if let Some(re) = self.0.get(pattern) {
            return re.clone();
        }
        let re = compile_ere(pattern);
        self.0.insert(pattern.to_vec(), re.clone());
        re
    }
}

/// What a `matchinst()` node has decided, instance by instance.
#[derive(Clone, Debug, Default)]
struct Matches {
    /// Instance -> (matches, times seen since culling).
    seen: HashMap<i32, (bool, u32)>,
    /// Evaluations since culling.
    used: u32,
}

/// The evaluation of one derived metric in one context, with the state
/// `delta()`, `rate()` and `matchinst()` keep between fetches.
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
            Node::Filter(Filter::Instance(name), x) => {
                let x = x.index();
                let indom = self.desc_of(x).indom;
                self.state[i].last_stamp = self.state[i].stamp;
                self.state[i].stamp = stamp;
                let mut out = self.out_buf(i, 1);
                if !self.vals(x).is_empty() {
                    if self.state[i].inst.is_none() {
                        self.state[i].inst = names.inst_id(indom, name, stamp);
                    }
                    if let Some(inst) = self.state[i].inst {
                        if let Some(v) = self.vals(x).iter().find(|(j, _)| *j == inst) {
                            out.push(v.clone());
                        }
                    }
                }
                // (libpcp keeps no history for this node, so that
                // delta(x[name]) never has a value; this does)
                self.set(i, Ok(out))
            }
            Node::Filter(Filter::Regex { invert, .. }, x) => {
                let x = x.index();
                let indom = self.desc_of(x).indom;
                self.state[i].last_stamp = self.state[i].stamp;
                self.state[i].stamp = stamp;
                let mut out = self.out_buf(i, 0);
                let mut matches = self.state[i].matches.take().unwrap_or_default();
                for k in 0..self.vals(x).len() {
                    let (inst, value) = self.vals(x)[k].clone();
                    let known = matches.seen.get(&inst).map(|m| m.0);
                    let matched = match known {
                        Some(m) => m,
                        None => {
                            let m = match names.inst_name(indom, inst, stamp) {
                                Some(full) => {
                                    let name = full.split(|&b| b == b' ').next().unwrap_or(&[]);
                                    let re = self.regex.iter().find(|r| r.0 == i).and_then(|r| r.1.as_ref());
                                    let hit = re.is_some_and(|re| re.is_match(name));
                                    hit != *invert
                                }
                                None => false,
                            };
                            matches.seen.insert(inst, (m, 0));
                            m
                        }
                    };
                    if let Some(e) = matches.seen.get_mut(&inst) {
                        e.1 += 1;
                    }
                    if matched {
                        out.push((inst, value));
                    }
                }
                matches.used += 1;
                if matches.used >= REGEX_COMPACT {
                    matches.seen.retain(|_, m| m.1 >= REGEX_COMPACT / 2);
                    matches.seen.values_mut().for_each(|m| m.1 = 0);
                    matches.used = 0;
                }
                self.state[i].matches = Some(matches);
                self.set(i, Ok(out))
            }
            Node::Ternary(g, t, e) => self.ternary(expr, i, g.index(), t.index(), e.index()),
            Node::Binary(op, l, r) => self.binary(i, *op, l.index(), r.index()),
        }
    }

    /// Node `i`'s values: `f` of each of node `x`'s.
    fn map_vals(&mut self, i: usize, x: usize, f: impl Fn(&AtomValue) -> AtomValue) -> Vals {
        self.map_vals_opt(i, x, |a| Some(f(a)))
    }

    /// Node `i`'s values: `f` of each of node `x`'s, where it gives one.
    fn map_vals_opt(&mut self, i: usize, x: usize, f: impl Fn(&AtomValue) -> Option<AtomValue>) -> Vals {
        let mut out = self.out_buf(i, self.vals(x).len());
        match &self.state[x].cur {
            Ok(v) => {
                out.extend(v.iter().filter_map(|(inst, a)| f(a).map(|b| (*inst, b))));
                Ok(out)
            }
            Err(e) => Err(*e),
        }
    }

    fn delta(&mut self, i: usize, f: Func, x: usize, stamp: Timestamp) -> Result<(), PmError> {
        {
            let st = &mut self.state[i];
            st.last_stamp = st.stamp;
            st.stamp = stamp;
        }
        let mut out = self.out_buf(i, 0);
        let (cur, last) = (&self.state[x].cur, &self.state[x].last);
        let n = numval(cur).min(numval(last));
        if n < 0 {
            return self.set(i, Err(PmError::from_code(n)));
        }
        if n == 0 {
            return self.set(i, Ok(out));
        }
        let (cur, last) = (vals_or_none(cur), vals_or_none(last));
        let xd = self.desc_of(x);
        let (now, then) = (self.state[i].stamp, self.state[i].last_stamp);
        let dt = (now.sec as f64 - then.sec as f64) + (f64::from(now.nsec) - f64::from(then.nsec)) / 1e9;
        // rate() of a time counter: a utilisation, scaled to seconds
        let time_scale = if f == Func::Rate && xd.units.dim_time() == 1 {
            let st = xd.units.scale_time() as i32;
            if st > 3 {
                (3..st).fold(1.0, |s, _| s * 60.0)
            } else {
                (st..3).fold(1.0, |s, _| s / 1000.0)
            }
        } else {
            1.0
        };
        out.reserve(cur.len());
        for (k, (inst, a)) in cur.iter().enumerate() {
            let mut j = if k < last.len() { k } else { 0 };
            if last.get(j).map(|v| v.0) != Some(*inst) {
                match last.iter().position(|v| v.0 == *inst) {
                    Some(p) => j = p,
                    None => continue,
                }
            }
            let Some((_, b)) = last.get(j) else { continue };
            let t = xd.ty;
            let v = if f == Func::Delta {
                match t {
                    MetricType::I32 => AtomValue::I32(as_i32(a, t).wrapping_sub(as_i32(b, t))),
                    MetricType::U32 => AtomValue::I64(i64::from(as_u32(a, t)) - i64::from(as_u32(b, t))),
                    MetricType::I64 => AtomValue::I64(as_i64(a, t).wrapping_sub(as_i64(b, t))),
                    MetricType::U64 => AtomValue::Double(as_u64(a, t) as f64 - as_u64(b, t) as f64),
                    MetricType::FLOAT => AtomValue::Float(as_f32(a, t) - as_f32(b, t)),
                    MetricType::DOUBLE => AtomValue::Double(as_f64(a, t) - as_f64(b, t)),
                    _ => return self.set(i, Err(PmError::PM_ERR_CONV)),
                }
            } else {
                // counters wrap in their own type before the division
                let d = match t {
                    MetricType::I32 => f64::from(as_i32(a, t).wrapping_sub(as_i32(b, t))),
                    MetricType::U32 => f64::from(as_u32(a, t).wrapping_sub(as_u32(b, t))),
                    MetricType::I64 => as_i64(a, t).wrapping_sub(as_i64(b, t)) as f64,
                    MetricType::U64 => as_u64(a, t).wrapping_sub(as_u64(b, t)) as f64,
                    MetricType::FLOAT => f64::from(as_f32(a, t) - as_f32(b, t)),
                    MetricType::DOUBLE => as_f64(a, t) - as_f64(b, t),
                    _ => return self.set(i, Err(PmError::PM_ERR_CONV)),
                };
                AtomValue::Double(d / dt * time_scale)
            };
            out.push((*inst, v));
        }
        self.set(i, Ok(out))
    }

    fn aggregate(&mut self, i: usize, f: Func, x: usize) -> Result<(), PmError> {
        let ty = self.desc_of(i).ty;
        let xt = self.desc_of(x).ty;
        let vals = self.vals(x);
        let n = vals.len();
        let one: Option<AtomValue> = match f {
            Func::Count => Some(AtomValue::U32(n as u32)),
            Func::Scalar => vals.first().map(|(_, v)| v.clone()),
            Func::Avg => {
                let nf = n as f32;
                Some(AtomValue::Float(vals.iter().fold(0f32, |s, (_, v)| s + as_f32(v, xt) / nf)))
            }
            Func::Sum => {
                let zero = convert(&AtomValue::U32(0), ty);
                Some(vals.iter().fold(zero, |s, (_, v)| arith(ty, BinOp::Add, &s, &convert(v, ty))))
            }
            Func::Max | Func::Min => Some(extreme_alike(vals, f == Func::Max, ty).unwrap_or_else(|| {
                let prev = match &self.state[i].cur {
                    Ok(v) => v.first().map(|p| p.1.clone()),
                    Err(_) => None,
                };
                extreme(vals, f == Func::Max, ty, prev)
            })),
            // (Delta, Rate, Instant, Defined are done elsewhere)
            _ => None,
        };
        // (in the list the values before last held)
        let mut out = self.out_buf(i, 1);
        out.extend(one.map(|v| (PM_IN_NULL, v)));
        self.set(i, Ok(out))
    }

    fn ternary(&mut self, expr: &Expr, i: usize, g: usize, t: usize, e: usize) -> Result<(), PmError> {
        let choose = self.checked.info.get(i).map_or(Choose::Both, |x| x.choose);
        let novalue = |x: usize| matches!(expr.nodes()[x], Node::NoValue(_));
        let gn = numval(&self.state[g].cur);
        if gn <= 0 {
            let v = if gn < 0 { Err(PmError::from_code(gn)) } else { Ok(Vec::new()) };
            return self.set(i, v);
        }
        for (x, bound) in [(t, choose != Choose::Else), (e, choose != Choose::Then)] {
            let n = numval(&self.state[x].cur);
            if bound && !novalue(x) && n <= 0 {
                let v = if n < 0 { Err(PmError::from_code(n)) } else { Ok(Vec::new()) };
                return self.set(i, v);
            }
        }
        let ty = self.desc_of(i).ty;
        let gt = self.desc_of(g).ty;
        let mut out = self.out_buf(i, 0);
        let (tv, ev, gv) = (self.vals(t), self.vals(e), self.vals(g));
        let (count, inst_from) = match choose {
            Choose::Then => (tv.len(), tv),
            Choose::Else => (ev.len(), ev),
            Choose::Both => {
                let from = if self.desc_of(t).indom == InDom::NULL && self.desc_of(e).indom != InDom::NULL || novalue(t)
                {
                    ev
                } else {
                    tv
                };
                (tv.len().max(ev.len()), from)
            }
        };
        out.reserve(count);
        let mut pick_then = choose != Choose::Else;
        for k in 0..count {
            if choose == Choose::Both {
                if let Some((_, gv)) = gv.get(k) {
                    pick_then = as_f64(gv, gt) != 0.0;
                }
            }
            let (pick, is_novalue) = if pick_then { (tv, novalue(t)) } else { (ev, novalue(e)) };
            if is_novalue {
                continue;
            }
            let Some((_, v)) = pick.get(k).or_else(|| pick.first()) else { continue };
            let inst = inst_from.get(k).or_else(|| inst_from.first()).map_or(PM_IN_NULL, |p| p.0);
            out.push((inst, convert(v, ty)));
        }
        self.set(i, Ok(out))
    }

    fn binary(&mut self, i: usize, op: BinOp, l: usize, r: usize) -> Result<(), PmError> {
        let (ld, rd) = (self.desc_of(l), self.desc_of(r));
        let ty = self.desc_of(i).ty;
        let mut out = self.out_buf(i, 0);
        let (lv, rv) = (self.vals(l), self.vals(r));
        if lv.is_empty() || rv.is_empty() {
            return self.set(i, Ok(out));
        }
        let (lind, rind) = (ld.indom != InDom::NULL, rd.indom != InDom::NULL);
        let n = if !lind {
            rv.len()
        } else if !rind {
            lv.len()
        } else {
            lv.len().min(rv.len())
        };
        let info = |x: usize| self.checked.info.get(x).map_or((1, 1), |f| (f.mul, f.div));
        let (lscale, rscale) = (info(l), info(r));
        let relational = !matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div);
        out.reserve(n);
        let (mut a, mut b) = (0usize, 0usize);
        while out.len() < n {
            let (Some(x), Some(y)) = (lv.get(a), rv.get(b)) else { break };
            let mut y = y;
            if lind && rind && x.0 != y.0 {
                match rv.iter().position(|v| v.0 == x.0) {
                    Some(p) => {
                        b = p;
                        y = &rv[p];
                    }
                    None => {
                        a += 1;
                        b = 0;
                        continue;
                    }
                }
            }
            let inst = if lind { x.0 } else { y.0 };
            if !relational && ty == MetricType::DOUBLE {
                // (the most common case, made in place: an AtomValue made
                // apart and then moved into the list costs more than the
                // arithmetic)
                let (p, q) = (scaled_f64(&x.1, ld.ty, lscale), scaled_f64(&y.1, rd.ty, rscale));
                out.push((inst, AtomValue::Double(arith_f64(op, p, q))));
            } else {
                let v = if relational {
                    let pt = promote(ld.ty, rd.ty);
                    let (p, q) = (scaled(&x.1, ld.ty, pt, lscale), scaled(&y.1, rd.ty, pt, rscale));
                    AtomValue::U32(u32::from(compare(pt, op, &p, &q)))
                } else {
                    let (p, q) = (scaled(&x.1, ld.ty, ty, lscale), scaled(&y.1, rd.ty, ty, rscale));
                    arith(ty, op, &p, &q)
                };
                out.push((inst, v));
            }
            if lind {
                a += 1;
                if rind {
                    b += 1;
                    if b >= rv.len() {
                        b = 0;
                    }
                }
            } else if rind {
                b += 1;
            }
        }
        self.set(i, Ok(out))
    }
}

/// The real metrics a fetch of `requested` must ask for: `requested`
/// itself, then each operand of a derived metric in it (one of
/// `evaluators`) not already in the list (libpcp's `__dmprefetch`). The
/// derived metrics' own PMIDs stay in the list.
#[doc(alias = "__dmprefetch")]
pub fn prefetch<E: Borrow<Evaluator>>(requested: &[PmId], evaluators: &[E]) -> Vec<PmId> {
    let mut list = Vec::new();
    prefetch_into(requested, evaluators, &mut list);
    list
}

/// [`prefetch`] into `list` (emptied first): for a caller that keeps the
/// list's room from one fetch to the next.
pub fn prefetch_into<E: Borrow<Evaluator>>(requested: &[PmId], evaluators: &[E], list: &mut Vec<PmId>) {
    let operands: usize = evaluators.iter().map(|e| e.borrow().operands().len()).sum();
    list.clear();
    list.reserve(requested.len() + operands);
    list.extend_from_slice(requested);
    // (what is listed, by PMID, when looking along the list would be slow)
    let mut listed: Option<std::collections::HashSet<PmId>> =
        (requested.len() > 16).then(|| requested.iter().copied().collect());
    let by_pmid = EvaluatorIndex::new(evaluators);
    for pmid in requested {
        if let Some(ev) = by_pmid.find(evaluators, *pmid).map(|i| evaluators[i].borrow()) {
            for &op in ev.operands() {
                let new = match &mut listed {
                    Some(set) => set.insert(op),
                    None => !list.contains(&op),
                };
                if new {
                    list.push(op);
                }
            }
        }
    }
}

/// Where each evaluator of a list is, by its metric's PMID (the first, if
/// there are several); `None` while the list is short enough to look
/// along.
struct EvaluatorIndex(Option<HashMap<PmId, usize>>);

impl EvaluatorIndex {
    fn new<E: Borrow<Evaluator>>(evaluators: &[E]) -> EvaluatorIndex {
        EvaluatorIndex((evaluators.len() > 16).then(|| {
            let mut m = HashMap::with_capacity(evaluators.len());
            for (i, e) in evaluators.iter().enumerate() {
                m.entry(e.borrow().pmid()).or_insert(i);
            }
            m
        }))
    }

    fn find<E: Borrow<Evaluator>>(&self, evaluators: &[E], pmid: PmId) -> Option<usize> {
        match &self.0 {
            Some(m) => m.get(&pmid).copied(),
            None => evaluators.iter().position(|e| e.borrow().pmid() == pmid),
        }
    }
}

/// The result a caller sees: the first `requested` value sets of `result`
/// (a fetch of [`prefetch`]'s list), each derived metric's replaced by its
/// evaluation (libpcp's `__dmpostfetch`). A derived metric with no
/// evaluator (it could not be bound) gets `PM_ERR_PMID`; one asked for
/// twice is evaluated twice, as libpcp does. The evaluators may be held
/// in boxes (or anything else that lends one).
#[doc(alias = "__dmpostfetch")]
pub fn postfetch<E: BorrowMut<Evaluator>>(
    result: &FetchResult,
    requested: usize,
    evaluators: &mut [E],
    names: &mut dyn Instances,
) -> FetchResult {
    let mut out =
        FetchResult { timestamp: result.timestamp, sets: Vec::with_capacity(requested.min(result.sets.len())) };
    postfetch_into(result, requested, evaluators, names, &mut out);
    out
}

/// [`postfetch`] into `out`, whose value lists are filled again.
pub fn postfetch_into<E: BorrowMut<Evaluator>>(
    result: &FetchResult,
    requested: usize,
    evaluators: &mut [E],
    names: &mut dyn Instances,
    out: &mut FetchResult,
) {
    let n = requested.min(result.sets.len());
    out.sets.truncate(n);
    out.timestamp = result.timestamp;
    let by_pmid = EvaluatorIndex::new(evaluators);
    for (k, set) in result.sets.iter().take(n).enumerate() {
        // the list the set in this place held
        let mut room = match out.sets.get_mut(k).map(|old| std::mem::replace(&mut old.values, Ok(Vec::new()))) {
            Some(Ok(v)) => v,
            _ => Vec::new(),
        };
        let made = if !crate::check::is_derived(set.pmid) {
            let values = set.values.as_ref().map_err(|e| *e).map(|v| {
                room.clone_from(v);
                room
            });
            ValueSet { pmid: set.pmid, values }
        } else {
            match by_pmid.find(evaluators, set.pmid).and_then(|i| evaluators.get_mut(i)) {
                Some(ev) => ev.borrow_mut().evaluate_into(result, names, room),
                None => ValueSet { pmid: set.pmid, values: Err(PmError::PM_ERR_PMID) },
            }
        };
        match out.sets.get_mut(k) {
            Some(old) => *old = made,
            None => out.sets.push(made),
        }
    }
}

const ZERO_DESC: Desc =
    Desc { pmid: PmId::NULL, ty: MetricType::I32, indom: InDom::NULL, sem: pcp_core::Semantics(0), units: Units::NONE };

/// The result type of comparing two arithmetic types (libpcp's promote
/// table: the wider, unsigned over signed, floating over integer).
fn promote(l: MetricType, r: MetricType) -> MetricType {
    let rank = |t: MetricType| if (0..=5).contains(&t.0) { t.0 } else { 0 };
    MetricType(rank(l).max(rank(r)))
}

/// A value as the type `t` says it is held, converted as C's casts do.
fn as_f64(v: &AtomValue, _t: MetricType) -> f64 {
    match v {
        AtomValue::I32(x) => f64::from(*x),
        AtomValue::U32(x) => f64::from(*x),
        AtomValue::I64(x) => *x as f64,
        AtomValue::U64(x) => *x as f64,
        AtomValue::Float(x) => f64::from(*x),
        AtomValue::Double(x) => *x,
        _ => 0.0,
    }
}

fn as_f32(v: &AtomValue, _t: MetricType) -> f32 {
    match v {
        AtomValue::I32(x) => *x as f32,
        AtomValue::U32(x) => *x as f32,
        AtomValue::I64(x) => *x as f32,
        AtomValue::U64(x) => *x as f32,
        AtomValue::Float(x) => *x,
        AtomValue::Double(x) => *x as f32,
        _ => 0.0,
    }
}

fn as_i64(v: &AtomValue, _t: MetricType) -> i64 {
    match v {
        AtomValue::I32(x) => i64::from(*x),
        AtomValue::U32(x) => i64::from(*x),
        AtomValue::I64(x) => *x,
        AtomValue::U64(x) => *x as i64,
        AtomValue::Float(x) => *x as i64,
        AtomValue::Double(x) => *x as i64,
        _ => 0,
    }
}

fn as_u64(v: &AtomValue, t: MetricType) -> u64 {
    match v {
        AtomValue::U64(x) => *x,
        AtomValue::Float(x) => *x as u64,
        AtomValue::Double(x) => *x as u64,
        _ => as_i64(v, t) as u64,
    }
}

fn as_i32(v: &AtomValue, t: MetricType) -> i32 {
    as_i64(v, t) as i32
}

fn as_u32(v: &AtomValue, t: MetricType) -> u32 {
    as_i64(v, t) as u32
}

/// `v` converted to type `to` (the operand promotion of libpcp's bin_op).
#[inline]
fn convert(v: &AtomValue, to: MetricType) -> AtomValue {
    let t = v.metric_type();
    match to {
        MetricType::I32 => AtomValue::I32(as_i32(v, t)),
        MetricType::U32 => AtomValue::U32(as_u32(v, t)),
        MetricType::I64 => AtomValue::I64(as_i64(v, t)),
        MetricType::U64 => AtomValue::U64(as_u64(v, t)),
        MetricType::FLOAT => AtomValue::Float(as_f32(v, t)),
        MetricType::DOUBLE => AtomValue::Double(as_f64(v, t)),
        _ => v.clone(),
    }
}

/// An operand promoted to `to`, and when that is a double, converted by
/// its scale factors (`v / div * mul`).
fn scaled(v: &AtomValue, from: MetricType, to: MetricType, scale: (i32, i32)) -> AtomValue {
    if to == MetricType::DOUBLE {
        AtomValue::Double(scaled_f64(v, from, scale))
    } else {
        convert(v, to)
    }
}

/// [`scaled`] to a double.
fn scaled_f64(v: &AtomValue, from: MetricType, (mul, div): (i32, i32)) -> f64 {
    as_f64(v, from) / f64::from(div) * f64::from(mul)
}

/// `a op b` for arithmetic operators, both already of type `ty`.
fn arith(ty: MetricType, op: BinOp, a: &AtomValue, b: &AtomValue) -> AtomValue {
    macro_rules! int {
        ($get:ident, $ctor:ident) => {{
            let (x, y) = ($get(a, ty), $get(b, ty));
            AtomValue::$ctor(match op {
                BinOp::Add => x.wrapping_add(y),
                BinOp::Sub => x.wrapping_sub(y),
                BinOp::Mul => x.wrapping_mul(y),
                // (the checker makes every division a double's)
                _ => 0,
            })
        }};
    }
    match ty {
        MetricType::I32 => int!(as_i32, I32),
        MetricType::U32 => int!(as_u32, U32),
        MetricType::I64 => int!(as_i64, I64),
        MetricType::U64 => int!(as_u64, U64),
        MetricType::FLOAT => {
            let (x, y) = (as_f32(a, ty), as_f32(b, ty));
            AtomValue::Float(match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                _ => 0.0,
            })
        }
        _ => AtomValue::Double(arith_f64(op, as_f64(a, ty), as_f64(b, ty))),
    }
}

/// [`arith`] of doubles.
fn arith_f64(op: BinOp, x: f64, y: f64) -> f64 {
    match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        // 0 divided by anything (0 included) is 0
        BinOp::Div if x == 0.0 => 0.0,
        BinOp::Div => x / y,
        _ => 0.0,
    }
}

/// `a op b` for relational and boolean operators, both of type `ty`.
fn compare(ty: MetricType, op: BinOp, a: &AtomValue, b: &AtomValue) -> bool {
    macro_rules! cmp {
        ($x:expr, $y:expr, $zero:expr) => {{
            let (x, y) = ($x, $y);
            match op {
                BinOp::Lt => x < y,
                BinOp::Leq => x <= y,
                BinOp::Eq => x == y,
                BinOp::Geq => x >= y,
                BinOp::Gt => x > y,
                BinOp::Neq => x != y,
                BinOp::And => x != $zero && y != $zero,
                BinOp::Or => x != $zero || y != $zero,
                _ => false,
            }
        }};
    }
    match ty {
        MetricType::I32 => cmp!(as_i32(a, ty), as_i32(b, ty), 0),
        MetricType::U32 => cmp!(as_u32(a, ty), as_u32(b, ty), 0),
        MetricType::I64 => cmp!(as_i64(a, ty), as_i64(b, ty), 0),
        MetricType::U64 => cmp!(as_u64(a, ty), as_u64(b, ty), 0),
        MetricType::FLOAT => cmp!(as_f32(a, ty), as_f32(b, ty), 0.0),
        _ => cmp!(as_f64(a, ty), as_f64(b, ty), 0.0),
    }
}

/// `max()` (`most`) or `min()` of `vals` in type `ty`: the first value,
/// then each one that compares above (below) the one kept; `prev` (or 0)
/// where there are none.
fn extreme(vals: &[(i32, AtomValue)], most: bool, ty: MetricType, prev: Option<AtomValue>) -> AtomValue {
    let mut acc = prev.unwrap_or_else(|| convert(&AtomValue::U32(0), ty));
    for (k, (_, v)) in vals.iter().enumerate() {
        let v = convert(v, ty);
        let better = if most { compare(ty, BinOp::Lt, &acc, &v) } else { compare(ty, BinOp::Gt, &acc, &v) };
        if k == 0 || better {
            acc = v;
        }
    }
    acc
}

/// [`extreme`] the quick way, for values all of the numeric type `ty` (as
/// a metric's are, in its own type): compared as that type, without
/// converting each one. `None` where there are none, or they are not all
/// of that type.
fn extreme_alike(vals: &[(i32, AtomValue)], most: bool, ty: MetricType) -> Option<AtomValue> {
    macro_rules! fold {
        ($variant:ident) => {{
            let mut acc = match vals.first()? {
                (_, AtomValue::$variant(x)) => *x,
                _ => return None,
            };
            for (_, v) in &vals[1..] {
                let AtomValue::$variant(x) = v else { return None };
                if if most { acc < *x } else { acc > *x } {
                    acc = *x;
                }
            }
            Some(AtomValue::$variant(acc))
        }};
    }
    let first = &vals.first()?.1;
    if first.metric_type() != ty {
        return None;
    }
    match first {
        AtomValue::I32(_) => fold!(I32),
        AtomValue::U32(_) => fold!(U32),
        AtomValue::I64(_) => fold!(I64),
        AtomValue::U64(_) => fold!(U64),
        AtomValue::Float(_) => fold!(Float),
        AtomValue::Double(_) => fold!(Double),
        _ => None,
    }
}

/// `-x`: unsigned operands give signed results (wrapping).
fn negate(v: &AtomValue, t: MetricType) -> AtomValue {
    match t {
        MetricType::I32 | MetricType::U32 => AtomValue::I32(as_i32(v, t).wrapping_neg()),
        MetricType::I64 | MetricType::U64 => AtomValue::I64(as_i64(v, t).wrapping_neg()),
        MetricType::FLOAT => AtomValue::Float(-as_f32(v, t)),
        _ => AtomValue::Double(-as_f64(v, t)),
    }
}

/// A constant's value from its text, read as C's atoi, strtoll, strtoull
/// or atof would for type `ty`.
fn constant(text: &str, ty: MetricType) -> AtomValue {
    let s = text.as_bytes();
    let (l, _) = pcp_core::strtod::strtol_prefix(s);
    match ty {
        MetricType::I32 => AtomValue::I32(l as i32),
        MetricType::U32 => AtomValue::U32(l as i32 as u32),
        MetricType::I64 => AtomValue::I64(l),
        MetricType::U64 => AtomValue::U64(pcp_core::strtod::strtoull_prefix(s, 10).0),
        MetricType::FLOAT | MetricType::DOUBLE => {
            let ws = s.iter().take_while(|&&b| pcp_core::strtod::is_c_space(b)).count();
            let d = pcp_core::strtod::parse_prefix(&s[ws..]).map_or(0.0, |p| p.value);
            if ty == MetricType::FLOAT {
                AtomValue::Float(d as f32)
            } else {
                AtomValue::Double(d)
            }
        }
        _ => AtomValue::U32(0),
    }
}

/// An operand's value from a fetched value, read as type `ty` (libpcp
/// reads 32-bit values in place and the others from their blocks).
fn decode(v: &Value, ty: MetricType) -> Result<AtomValue, PmError> {
    let bytes = |n: usize| -> Result<[u8; 8], PmError> {
        match v {
            Value::Block(b) => {
                let mut out = [0u8; 8];
                let n = n.min(b.data.len());
                out[..n].copy_from_slice(&b.data[..n]);
                Ok(out)
            }
            Value::Insitu(_) => Err(PmError::PM_ERR_LOGREC),
        }
    };
    Ok(match ty {
        MetricType::I32 | MetricType::U32 => {
            let l = match v {
                Value::Insitu(l) => *l,
                Value::Block(_) => return Err(PmError::PM_ERR_LOGREC),
            };
            if ty == MetricType::I32 {
                AtomValue::I32(l)
            } else {
                AtomValue::U32(l as u32)
            }
        }
        MetricType::I64 => AtomValue::I64(i64::from_le_bytes(bytes(8)?)),
        MetricType::U64 => AtomValue::U64(u64::from_le_bytes(bytes(8)?)),
        MetricType::DOUBLE => AtomValue::Double(f64::from_le_bytes(bytes(8)?)),
        MetricType::FLOAT => match v {
            Value::Insitu(l) => AtomValue::Float(f32::from_bits(*l as u32)),
            Value::Block(_) => {
                let b = bytes(4)?;
                AtomValue::Float(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }
        },
        MetricType::STRING => match v {
            Value::Block(b) => {
                let mut s = b.data.to_vec();
                if s.last() == Some(&0) {
                    s.pop();
                }
                AtomValue::String(s)
            }
            Value::Insitu(_) => return Err(PmError::PM_ERR_LOGREC),
        },
        MetricType::AGGREGATE | MetricType::AGGREGATE_STATIC => match v {
            Value::Block(b) => AtomValue::Aggregate(b.clone()),
            Value::Insitu(_) => return Err(PmError::PM_ERR_LOGREC),
        },
        MetricType::EVENT | MetricType::HIGHRES_EVENT => match v {
            Value::Block(b) => AtomValue::Event(b.clone()),
            Value::Insitu(_) => return Err(PmError::PM_ERR_LOGREC),
        },
        _ => return Err(PmError::PM_ERR_TYPE),
    })
}

/// A node's values, or none where it has an error.
fn vals_or_none(v: &Vals) -> &[(i32, AtomValue)] {
    v.as_deref().unwrap_or_default()
}

/// A result value of the derived metric's type `ty`, packed as libpcp
/// does: 32-bit integers in place, everything else in a block.
fn pack(a: &AtomValue, ty: MetricType) -> Value {
    let mut v = Value::Insitu(0);
    pack_into(a, ty, &mut v);
    v
}

/// [`pack`] over what `slot` held (see [`Value::set_atom`]): numbers are
/// converted to `ty`, anything else is packed as it is.
#[inline]
fn pack_into(a: &AtomValue, ty: MetricType, slot: &mut Value) {
    match ty {
        MetricType::I32
        | MetricType::U32
        | MetricType::I64
        | MetricType::U64
        | MetricType::FLOAT
        | MetricType::DOUBLE => slot.set_atom(&convert(a, ty)),
        _ => *slot = Value::from_atom(a),
    }
}

/// A POSIX extended regular expression (as glibc's `regcomp` with
/// `REG_EXTENDED` takes it, C locale), compiled by the `regex` crate;
/// `None` for what that cannot express (see [`crate::regex::translate`])
/// or a pattern `regcomp` fails.
fn compile_ere(pattern: &[u8]) -> Option<regex::bytes::Regex> {
    let translated = crate::regex::translate(pattern).ok()??;
    regex::bytes::Regex::new(&translated).ok()
}

/// The value of `!x` in `x`'s type. libpcp stores the 0 or 1 as a 32-bit
/// unsigned integer in the value's union, whatever the type, so a float
/// result is that bit pattern (1 reads as the smallest subnormal). For a
/// 64-bit type (double included) libpcp leaves the union's upper half as
/// the heap had it, which is not reproducible; here it is zero.
fn not_value(is_zero: bool, ty: MetricType) -> AtomValue {
    let bits = u32::from(is_zero);
    match ty {
        MetricType::FLOAT => AtomValue::Float(f32::from_bits(bits)),
        MetricType::DOUBLE => AtomValue::Double(f64::from_bits(u64::from(bits))),
        _ => convert(&AtomValue::U32(bits), ty),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{check, Catalog};
    use crate::parse;
    use pcp_core::{Semantics, ValueBlock};

    const IND: InDom = InDom(0x0040_0001);
    const fn d(item: u32, ty: MetricType, indom: InDom, sem: Semantics, units: u32) -> Desc {
        Desc { pmid: PmId(0x0040_0000 | item), ty, indom, sem, units: Units::from_u32(units) }
    }
    const BYTE: u32 = 0x1000_0000;
    const KBYTE: u32 = 0x1001_0000;
    const MSEC: u32 = 0x0100_2000;
    const METRICS: &[(&str, Desc)] = &[
        ("a", d(1, MetricType::U64, IND, Semantics::COUNTER, BYTE)),
        ("b", d(2, MetricType::U32, InDom::NULL, Semantics::INSTANT, 0)),
        ("c", d(3, MetricType::I32, IND, Semantics::INSTANT, 0)),
        ("dd", d(4, MetricType::DOUBLE, IND, Semantics::INSTANT, 0)),
        ("k", d(5, MetricType::U32, InDom::NULL, Semantics::INSTANT, KBYTE)),
        ("t", d(6, MetricType::U64, InDom::NULL, Semantics::COUNTER, MSEC)),
        ("s", d(7, MetricType::STRING, InDom::NULL, Semantics::INSTANT, 0)),
        ("w", d(8, MetricType::U32, IND, Semantics::COUNTER, 0)),
        ("f", d(9, MetricType::FLOAT, IND, Semantics::INSTANT, 0)),
    ];

    struct Fake;
    impl Catalog for Fake {
        fn lookup_name(&mut self, name: &str) -> Result<PmId, PmError> {
            METRICS.iter().find(|m| m.0 == name).map(|m| m.1.pmid).ok_or(PmError::PM_ERR_NAME)
        }
        fn lookup_desc(&mut self, pmid: PmId) -> Result<Desc, PmError> {
            METRICS.iter().find(|m| m.1.pmid == pmid).map(|m| m.1).ok_or(PmError::PM_ERR_PMID)
        }
    }
    impl Instances for Fake {
        fn inst_name(&mut self, indom: InDom, inst: i32, _: Timestamp) -> Option<Vec<u8>> {
            let names: [&[u8]; 3] = [b"zero", b"one two", b"two"];
            (indom == IND).then(|| names.get(inst as usize).map(|n| n.to_vec())).flatten()
        }
        fn inst_id(&mut self, indom: InDom, name: &[u8], at: Timestamp) -> Option<i32> {
            (0..3).find(|&i| {
                self.inst_name(indom, i, at).is_some_and(|n| n == name || n.starts_with(b"one ") && name == b"one")
            })
        }
        fn instances(&mut self, indom: InDom, _: Timestamp) -> Result<Vec<i32>, PmError> {
            if indom == IND {
                Ok(vec![0, 1, 2])
            } else {
                Err(PmError::PM_ERR_INDOM)
            }
        }
    }

    fn pmid(name: &str) -> PmId {
        METRICS.iter().find(|m| m.0 == name).map_or(PmId::NULL, |m| m.1.pmid)
    }

    /// A value set of metric `name` with (inst, atom) values.
    fn set(name: &str, vals: &[(i32, AtomValue)]) -> ValueSet {
        ValueSet {
            pmid: pmid(name),
            values: Ok(vals.iter().map(|(i, a)| InstValue { inst: *i, value: Value::from_atom(a) }).collect()),
        }
    }

    const DERIVED: PmId = PmId(511 << 22 | 1);

    fn evaluator(e: &str) -> Evaluator {
        let expr = parse(e).expect("parses");
        let checked = check("m", DERIVED, &expr, &mut Fake).expect("checks");
        Evaluator::new(expr, checked)
    }

    fn at(sec: i64) -> Timestamp {
        Timestamp::new(sec, 0)
    }

    /// The derived metric's values over fetches, as (inst, atom) pairs.
    fn run(e: &str, fetches: &[(Timestamp, Vec<ValueSet>)]) -> Vec<Result<Vec<(i32, AtomValue)>, PmError>> {
        let mut ev = evaluator(e);
        let ty = ev.desc().ty;
        fetches
            .iter()
            .map(|(ts, sets)| {
                let r = FetchResult { timestamp: *ts, sets: sets.clone() };
                let vs = ev.evaluate(&r, &mut Fake);
                assert_eq!(vs.pmid, DERIVED);
                vs.values.map(|v| v.iter().map(|iv| (iv.inst, decode(&iv.value, ty).expect("decodes"))).collect())
            })
            .collect()
    }

    fn once(e: &str, sets: Vec<ValueSet>) -> Result<Vec<(i32, AtomValue)>, PmError> {
        run(e, &[(at(10), sets)]).remove(0)
    }

    use AtomValue::{Double, Float, I32, I64, U32, U64};

    fn c3() -> ValueSet {
        set("c", &[(0, I32(1)), (1, I32(-2)), (2, I32(3))])
    }

    #[test]
    fn arithmetic_per_instance_with_promotion() {
        assert_eq!(evaluator("c + b").desc().ty, MetricType::U32);
        assert_eq!(
            once("c + b", vec![c3(), set("b", &[(-1, U32(10))])]),
            Ok(vec![(0, U32(11)), (1, U32(8)), (2, U32(13))])
        );
        assert_eq!(once("c * 2", vec![c3()]), Ok(vec![(0, U32(2)), (1, U32(u32::MAX - 3)), (2, U32(6))]));
        assert_eq!(once("-c", vec![c3()]), Ok(vec![(0, I32(-1)), (1, I32(2)), (2, I32(-3))]));
        // U32 negated is I32
        assert_eq!(once("-b", vec![set("b", &[(-1, U32(5))])]), Ok(vec![(-1, I32(-5))]));
        assert_eq!(
            once("c + dd", vec![c3(), set("dd", &[(0, Double(0.5)), (2, Double(0.25))])]),
            Ok(vec![(0, Double(1.5)), (2, Double(3.25))])
        );
    }

    #[test]
    fn instances_are_matched_by_identifier() {
        // the right operand in another order, with one missing
        let dd = set("dd", &[(2, Double(20.0)), (0, Double(10.0))]);
        assert_eq!(once("c * dd", vec![c3(), dd.clone()]), Ok(vec![(0, Double(10.0)), (2, Double(60.0))]));
        assert_eq!(once("dd - c", vec![c3(), dd]), Ok(vec![(2, Double(17.0)), (0, Double(9.0))]));
        // an operand with no values gives none
        assert_eq!(once("c + dd", vec![c3(), set("dd", &[])]), Ok(vec![]));
    }

    #[test]
    fn division_is_double_and_zero_over_anything_is_zero() {
        let b = |v| vec![set("b", &[(-1, U32(v))])];
        assert_eq!(once("b / 4", b(6)), Ok(vec![(-1, Double(1.5))]));
        assert_eq!(once("b / 0", b(6)), Ok(vec![(-1, Double(f64::INFINITY))]));
        assert_eq!(once("b / 0", b(0)), Ok(vec![(-1, Double(0.0))]));
    }

    #[test]
    fn scale_conversion_makes_a_double() {
        // Kbyte + byte: 3 Kbyte + 2048 byte = 5 Kbyte
        let ev = evaluator("k + mkconst(2048, units=byte)");
        assert_eq!(ev.desc().ty, MetricType::DOUBLE);
        assert_eq!(once("k + mkconst(2048, units=byte)", vec![set("k", &[(-1, U32(3))])]), Ok(vec![(-1, Double(5.0))]));
        assert_eq!(once("rescale(k, \"byte\")", vec![set("k", &[(-1, U32(3))])]), Ok(vec![(-1, U32(3072))]));
    }

    #[test]
    fn relational_boolean_and_ternary() {
        // an unsigned constant makes the comparison unsigned, as in libpcp
        assert_eq!(once("c >= 1", vec![c3()]), Ok(vec![(0, U32(1)), (1, U32(1)), (2, U32(1))]));
        assert_eq!(once("c >= mkconst(1, type=32)", vec![c3()]), Ok(vec![(0, U32(1)), (1, U32(0)), (2, U32(1))]));
        assert_eq!(once("c > 0 && c < 3", vec![c3()]), Ok(vec![(0, U32(1)), (1, U32(0)), (2, U32(0))]));
        assert_eq!(once("!c", vec![set("c", &[(0, I32(0)), (1, I32(7))])]), Ok(vec![(0, I32(1)), (1, I32(0))]));
        // a float or double operand gets libpcp's bit pattern of 32-bit 1
        let dd = |v| vec![set("dd", &[(0, Double(v))])];
        assert_eq!(once("!dd", dd(0.0)), Ok(vec![(0, Double(f64::from_bits(1)))]));
        assert_eq!(once("!dd", dd(2.5)), Ok(vec![(0, Double(0.0))]));
        assert_eq!(
            once("c > mkconst(0, type=32) ? c : -c", vec![c3()]),
            Ok(vec![(0, I32(1)), (1, I32(2)), (2, I32(3))])
        );
        // a singular guard picks for every instance
        let b = |v| set("b", &[(-1, U32(v))]);
        assert_eq!(once("b ? c : -c", vec![c3(), b(0)]), Ok(vec![(0, I32(-1)), (1, I32(2)), (2, I32(-3))]));
        // novalue() drops the instances it is picked for
        assert_eq!(once("c > mkconst(1, type=32) ? c : novalue()", vec![c3()]), Ok(vec![(2, I32(3))]));
        // defined() decides at binding
        assert_eq!(once("defined(nope) ? b * 2 : b", vec![b(4)]), Ok(vec![(-1, U32(4))]));
        assert_eq!(once("defined(b)", vec![]), Ok(vec![(-1, U32(1))]));
    }

    #[test]
    fn aggregates() {
        assert_eq!(once("sum(c)", vec![c3()]), Ok(vec![(-1, I32(2))]));
        assert_eq!(once("max(c)", vec![c3()]), Ok(vec![(-1, I32(3))]));
        assert_eq!(once("min(c)", vec![c3()]), Ok(vec![(-1, I32(-2))]));
        assert_eq!(once("count(c)", vec![c3()]), Ok(vec![(-1, U32(3))]));
        assert_eq!(once("avg(c)", vec![c3()]), Ok(vec![(-1, Float(1.0 / 3.0 + -2.0 / 3.0 + 1.0))]));
        // no values: a count of 0, a sum of 0
        assert_eq!(once("count(c)", vec![set("c", &[])]), Ok(vec![(-1, U32(0))]));
        assert_eq!(once("sum(c)", vec![set("c", &[])]), Ok(vec![(-1, I32(0))]));
        // count() turns an error into 0, the others pass it on
        let err = ValueSet { pmid: pmid("c"), values: Err(PmError::PM_ERR_AGAIN) };
        assert_eq!(once("count(c)", vec![err.clone()]), Ok(vec![(-1, U32(0))]));
        assert_eq!(once("sum(c)", vec![err]), Err(PmError::PM_ERR_AGAIN));
        assert_eq!(once("sum(c)", vec![]), Err(PmError::PM_ERR_PMID));
        assert_eq!(once("scalar(c)", vec![c3()]), Ok(vec![(-1, I32(1))]));
    }

    #[test]
    fn delta_and_rate_over_fetches() {
        let a = |v: [u64; 2]| vec![set("a", &[(0, U64(v[0])), (1, U64(v[1]))])];
        let r = run("delta(a)", &[(at(10), a([100, 5])), (at(12), a([150, 5])), (at(14), a([140, 9]))]);
        assert_eq!(r[0], Ok(vec![]));
        assert_eq!(r[1], Ok(vec![(0, Double(50.0)), (1, Double(0.0))]));
        assert_eq!(r[2], Ok(vec![(0, Double(-10.0)), (1, Double(4.0))]));
        let r = run("rate(a)", &[(at(10), a([100, 5])), (at(12), a([150, 5]))]);
        assert_eq!(r, vec![Ok(vec![]), Ok(vec![(0, Double(25.0)), (1, Double(0.0))])]);
        // a 32-bit counter that wraps: rate() wraps, delta() goes negative
        let w = |v: u32| vec![set("w", &[(1, U32(v))])];
        let r = run("rate(w)", &[(at(1), w(u32::MAX - 1)), (at(3), w(2))]);
        assert_eq!(r[1], Ok(vec![(1, Double(2.0))]));
        let r = run("delta(w)", &[(at(1), w(u32::MAX - 1)), (at(3), w(2))]);
        assert_eq!(r[1], Ok(vec![(1, I64(2 - i64::from(u32::MAX - 1)))]));
        // rate of a time counter in milliseconds: a utilisation
        let t = |v: u64| vec![set("t", &[(-1, U64(v))])];
        let r = run("rate(t)", &[(at(0), t(0)), (at(10), t(5000))]);
        assert_eq!(r[1], Ok(vec![(-1, Double(0.5))]));
        // instances that come and go
        let r = run(
            "delta(c)",
            &[
                (at(0), vec![set("c", &[(0, I32(1)), (1, I32(2))])]),
                (at(1), vec![set("c", &[(2, I32(5)), (1, I32(7))])]),
            ],
        );
        assert_eq!(r[1], Ok(vec![(1, I32(5))]));
        // an error in the previous fetch is passed on once
        let err = vec![ValueSet { pmid: pmid("c"), values: Err(PmError::PM_ERR_AGAIN) }];
        let r = run("delta(c)", &[(at(0), vec![c3()]), (at(1), err), (at(2), vec![c3()]), (at(3), vec![c3()])]);
        assert_eq!(r[1], Err(PmError::PM_ERR_AGAIN));
        assert_eq!(r[2], Err(PmError::PM_ERR_AGAIN));
        assert_eq!(r[3], Ok(vec![(0, I32(0)), (1, I32(0)), (2, I32(0))]));
        // the same timestamp twice: no panic, an infinite or NaN rate
        let r = run("rate(w)", &[(at(1), w(1)), (at(1), w(2))]);
        assert_eq!(r[1], Ok(vec![(1, Double(f64::INFINITY))]));
    }

    #[test]
    fn an_error_passes_over_the_operands_after_it() {
        // b fails in the second fetch: delta(c) is not evaluated then, so
        // its history is the first fetch's when the third comes
        let err = ValueSet { pmid: pmid("b"), values: Err(PmError::PM_ERR_AGAIN) };
        let b = set("b", &[(PM_IN_NULL, U32(1))]);
        let c = |v: i32| set("c", &[(0, I32(v))]);
        let f = [(at(0), vec![b.clone(), c(10)]), (at(1), vec![err.clone(), c(20)]), (at(2), vec![b.clone(), c(35)])];
        let r = run("b + delta(c)", &f);
        assert_eq!(r[1], Err(PmError::PM_ERR_AGAIN));
        assert_eq!(r[2], Ok(vec![(0, U32(26))]));
        // the same under count(), which counts the error as no values, and
        // under a ternary's guard
        let r = run("count(b) + delta(c)", &f);
        assert_eq!(r[1], Ok(vec![(0, U32(10))]));
        let r = run("(b ? delta(c) : -delta(c)) + 0", &f);
        assert_eq!(r[1], Err(PmError::PM_ERR_AGAIN));
        assert_eq!(r[2], Ok(vec![(0, U32(25))]));
    }

    #[test]
    fn delta_of_expressions_keeps_history_at_every_node() {
        let c = |v: i32| vec![set("c", &[(0, I32(v)), (2, I32(v * 10))])];
        let f = [(at(0), c(1)), (at(1), c(4))];
        assert_eq!(run("delta(sum(c))", &f), vec![Ok(vec![]), Ok(vec![(-1, I32(33))])]);
        assert_eq!(run("delta(c[two])", &f), vec![Ok(vec![]), Ok(vec![(2, I32(30))])]);
        assert_eq!(run("delta(matchinst(/^z/, c))", &f), vec![Ok(vec![]), Ok(vec![(0, I32(3))])]);
        assert_eq!(run("delta(instant(c) * 2)", &f)[1], Ok(vec![(0, I64(6)), (2, I64(60))]));
        // a constant's previous value is itself, from the first fetch
        assert_eq!(run("delta(mkconst(3, type=32))", &f), vec![Ok(vec![(-1, I32(0))]), Ok(vec![(-1, I32(0))])]);
        assert_eq!(
            run("delta(delta(c))", &[(at(0), c(1)), (at(1), c(4)), (at(2), c(9))])[2],
            Ok(vec![(0, I32(2)), (2, I32(20))])
        );
    }

    #[test]
    fn instant_passes_values_through() {
        let r = run("instant(a)", &[(at(0), vec![set("a", &[(0, U64(7))])])]);
        assert_eq!(r[0], Ok(vec![(0, U64(7))]));
        assert_eq!(evaluator("instant(a)").desc().sem, Semantics::INSTANT);
    }

    #[test]
    fn instance_selection_by_name_and_pattern() {
        assert_eq!(once("c[two]", vec![c3()]), Ok(vec![(2, I32(3))]));
        assert_eq!(once("c[nope]", vec![c3()]), Ok(vec![]));
        assert_eq!(once("matchinst(/^t/, c)", vec![c3()]), Ok(vec![(2, I32(3))]));
        assert_eq!(once("matchinst(!/^t/, c)", vec![c3()]), Ok(vec![(0, I32(1)), (1, I32(-2))]));
        // names are cut at the first space
        assert_eq!(once("matchinst(/^one$/, c)", vec![c3()]), Ok(vec![(1, I32(-2))]));
        assert_eq!(once("matchinst(/e[[:alpha:]]/, c)", vec![c3()]), Ok(vec![(0, I32(1))]));
        assert_eq!(once("scalar(matchinst(/o$/, c))", vec![c3()]), Ok(vec![(-1, I32(1))]));
    }

    #[test]
    fn constants_and_metadata() {
        assert_eq!(once("mkconst(7, type=64)", vec![]), Ok(vec![(-1, I64(7))]));
        assert_eq!(once("mkconst(4294967295, type=u64)", vec![]), Ok(vec![(-1, U64(4294967295))]));
        assert_eq!(once("mkconst(2.5, type=float)", vec![]), Ok(vec![(-1, Float(2.5))]));
        // meta= with an instance domain: one value per instance
        assert_eq!(once("mkconst(4, meta=c)", vec![]), Ok(vec![(0, I32(4)), (1, I32(4)), (2, I32(4))]));
        assert_eq!(
            once("s", vec![set("s", &[(-1, AtomValue::String(b"hi".to_vec()))])]),
            Ok(vec![(-1, AtomValue::String(b"hi".to_vec()))])
        );
    }

    #[test]
    fn posix_patterns_translate() {
        let m = |p: &str, s: &str| compile_ere(p.as_bytes()).map(|r| r.is_match(s.as_bytes()));
        assert_eq!(m("a{2}", "xaay"), Some(true));
        // (regcomp fails it, so the parser has refused it already)
        assert_eq!(m("a{", "a{"), None);
        assert_eq!(m("[]x]", "]"), Some(true));
        assert_eq!(m("[a\\]", "\\"), Some(true));
        assert_eq!(m("\\.", "x"), Some(false));
        assert_eq!(m("(a)\\1", "aa"), None);
    }

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len() / 2).filter_map(|i| u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()).collect()
    }

    #[test]
    fn patterns_match_as_glibc_regexec() {
        // recorded by oracle/gen-regex-match.sh: every valid pattern of
        // regex.tsv on a set of subjects
        let text = include_str!("../tests/eval/regex-match.tsv");
        let mut lines = text.lines();
        let subjects: Vec<Vec<u8>> =
            lines.next().and_then(|l| l.strip_prefix("S\t")).expect("subjects").split(',').map(unhex).collect();
        let (mut compared, mut unsupported, mut wrong) = (0, Vec::new(), Vec::new());
        for line in lines {
            let f: Vec<&str> = line.split('\t').collect();
            let (pattern, bits) = (unhex(f[1]), f[2].as_bytes());
            assert_eq!(bits.len(), subjects.len(), "{line}");
            let Some(re) = compile_ere(&pattern) else {
                unsupported.push(String::from_utf8_lossy(&pattern).into_owned());
                continue;
            };
            for (s, &bit) in subjects.iter().zip(bits) {
                if re.is_match(s) != (bit == b'1') {
                    wrong.push(format!(
                        "{:?} on {:?}: glibc {}",
                        String::from_utf8_lossy(&pattern),
                        String::from_utf8_lossy(s),
                        bit as char
                    ));
                }
                compared += 1;
            }
        }
        wrong.dedup_by(|a, b| a.split(" on ").next() == b.split(" on ").next());
        assert!(wrong.is_empty(), "{} differ, first: {:?}", wrong.len(), &wrong[..wrong.len().min(20)]);
        assert!(compared > 80_000, "{compared}");
        // what the translation cannot express: back references, [. .], [= =]
        assert!(unsupported.len() <= 6, "{} unsupported: {:?}", unsupported.len(), unsupported);
    }

    #[test]
    fn prefetch_and_postfetch() {
        let mut evs = vec![evaluator("c + dd * c")];
        assert_eq!(evs[0].operands(), vec![pmid("c"), pmid("dd"), pmid("c")]);
        let list = prefetch(&[pmid("dd"), DERIVED], &evs);
        assert_eq!(list, vec![pmid("dd"), DERIVED, pmid("c")]);
        // into a list kept from before: what was there goes
        let mut kept = vec![pmid("zz"); 9];
        prefetch_into(&[pmid("dd"), DERIVED], &evs, &mut kept);
        assert_eq!(kept, list);
        let other = PmId(511 << 22 | 2);
        let r = FetchResult {
            timestamp: at(0),
            sets: vec![
                set("dd", &[(0, Double(2.0))]),
                ValueSet { pmid: DERIVED, values: Err(PmError::PM_ERR_NOAGENT) },
                ValueSet { pmid: other, values: Err(PmError::PM_ERR_NOAGENT) },
                c3(),
            ],
        };
        let out = postfetch(&r, 3, &mut evs, &mut Fake);
        assert_eq!(out.sets.len(), 3);
        assert_eq!(out.timestamp, r.timestamp);
        assert_eq!(out.sets[0], r.sets[0]);
        assert_eq!(out.sets[1].values, Ok(vec![InstValue { inst: 0, value: Value::from_atom(&Double(3.0)) }]));
        assert_eq!(out.sets[2].values, Err(PmError::PM_ERR_PMID));
    }

    #[test]
    fn a_metric_asked_for_twice_is_evaluated_twice() {
        let mut evs = vec![evaluator("delta(b)")];
        let fetch = |v: u32| FetchResult {
            timestamp: at(0),
            sets: vec![
                ValueSet { pmid: DERIVED, values: Err(PmError::PM_ERR_NOAGENT) },
                ValueSet { pmid: DERIVED, values: Err(PmError::PM_ERR_NOAGENT) },
                set("b", &[(-1, U32(v))]),
            ],
        };
        assert_eq!(prefetch(&[DERIVED, DERIVED], &evs), vec![DERIVED, DERIVED, pmid("b")]);
        postfetch(&fetch(1), 2, &mut evs, &mut Fake);
        // the second evaluation sees the same values as its previous ones
        let out = postfetch(&fetch(5), 2, &mut evs, &mut Fake);
        let delta = |d: i64| Ok(vec![InstValue { inst: -1, value: Value::from_atom(&I64(d)) }]);
        assert_eq!((out.sets[0].values.clone(), out.sets[1].values.clone()), (delta(4), delta(0)));
    }

    #[test]
    fn evaluators_can_move_between_threads() {
        let mut ev = evaluator("matchinst(/^t/, c) + 1");
        let got =
            std::thread::spawn(move || ev.evaluate(&FetchResult { timestamp: at(0), sets: vec![c3()] }, &mut Fake))
                .join()
                .expect("joins");
        assert_eq!(got.values, Ok(vec![InstValue { inst: 2, value: Value::from_atom(&U32(4)) }]));
    }

    #[test]
    fn odd_fetched_values_are_errors_not_panics() {
        // a 64-bit value in place, a short block
        let bad = ValueSet { pmid: pmid("a"), values: Ok(vec![InstValue { inst: 0, value: Value::Insitu(1) }]) };
        assert_eq!(once("instant(a)", vec![bad]), Err(PmError::PM_ERR_LOGREC));
        let short = ValueSet {
            pmid: pmid("dd"),
            values: Ok(vec![InstValue { inst: 0, value: Value::Block(ValueBlock::new(5, vec![0, 0])) }]),
        };
        assert_eq!(once("dd", vec![short]), Ok(vec![(0, Double(0.0))]));
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        fn any_atom() -> impl Strategy<Value = AtomValue> {
            prop_oneof![
                any::<i32>().prop_map(AtomValue::I32),
                any::<u32>().prop_map(AtomValue::U32),
                any::<i64>().prop_map(AtomValue::I64),
                any::<u64>().prop_map(AtomValue::U64),
                any::<f32>().prop_map(AtomValue::Float),
                any::<f64>().prop_map(AtomValue::Double),
                prop_oneof![Just(f64::NAN), Just(-0.0), Just(0.0)].prop_map(AtomValue::Double),
            ]
        }

        proptest! {
            /// The quick max() and min() of values all of one type are
            /// what comparing them converted one by one gives (NaNs,
            /// signed zeros and ties included).
            #[test]
            fn extremes_of_alike_values_are_the_general_ones(
                first in any_atom(),
                more in prop::collection::vec(any_atom(), 0..6),
                same in any::<bool>(),
                most in any::<bool>(),
            ) {
                let ty = first.metric_type();
                // (most often all of the first one's type)
                let vals: Vec<(i32, AtomValue)> = std::iter::once(first)
                    .chain(more.into_iter().map(|v| if same { convert(&v, ty) } else { v }))
                    .enumerate()
                    .map(|(k, v)| (k as i32, v))
                    .collect();
                if let Some(quick) = extreme_alike(&vals, most, ty) {
                    let general = extreme(&vals, most, ty, None);
                    prop_assert_eq!(format!("{quick:?}"), format!("{general:?}"));
                }
            }
        }

        fn leaf() -> impl Strategy<Value = String> {
            prop_oneof![
                Just("a".to_string()),
                Just("b".to_string()),
                Just("c".to_string()),
                Just("dd".to_string()),
                Just("k".to_string()),
                Just("t".to_string()),
                Just("w".to_string()),
                Just("f".to_string()),
                Just("0".to_string()),
                Just("3".to_string()),
                Just("0.0".to_string()),
                Just("mkconst(4294967295, type=u32)".to_string()),
                Just("mkconst(2147483647, type=32)".to_string()),
                Just("mkconst(4294967295, type=64)".to_string()),
            ]
        }

        fn expression() -> impl Strategy<Value = String> {
            leaf().prop_recursive(5, 40, 3, |inner| {
                prop_oneof![
                    (
                        inner.clone(),
                        prop::sample::select(vec!["+", "-", "*", "/", "<", "==", "&&", "||", ">="]),
                        inner.clone()
                    )
                        .prop_map(|(l, o, r)| format!("({l}) {o} ({r})")),
                    inner.clone().prop_map(|x| format!("-({x})")),
                    inner.clone().prop_map(|x| format!("!({x})")),
                    (prop::sample::select(vec!["delta", "rate", "instant", "scalar"]), inner.clone())
                        .prop_map(|(f, x)| format!("{f}({x})")),
                    (
                        prop::sample::select(vec!["avg", "count", "max", "min", "sum"]),
                        prop::sample::select(vec!["a", "b", "c", "dd", "w", "f", "s"]),
                    )
                        .prop_map(|(f, x)| format!("{f}({x})")),
                    (inner.clone(), inner.clone(), inner.clone())
                        .prop_map(|(g, t, e)| format!("({g}) ? ({t}) : ({e})")),
                    inner.clone().prop_map(|x| format!("({x})[two]")),
                    // (a `/` after matchinst( reads as a pattern: a name only)
                    leaf().prop_map(|x| format!("matchinst(!/o/, {x})")),
                    inner.prop_map(|x| format!("rescale({x}, \"Mbyte\")")),
                ]
            })
        }

        fn atom(ty: MetricType) -> BoxedStrategy<AtomValue> {
            match ty {
                MetricType::I32 => any::<i32>().prop_map(I32).boxed(),
                MetricType::U32 => any::<u32>().prop_map(U32).boxed(),
                MetricType::U64 => any::<u64>().prop_map(U64).boxed(),
                MetricType::FLOAT => any::<f32>().prop_map(Float).boxed(),
                MetricType::DOUBLE => prop_oneof![any::<f64>(), Just(0.0), Just(f64::NAN)].prop_map(Double).boxed(),
                _ => Just(AtomValue::String(b"x".to_vec())).boxed(),
            }
        }

        /// One fetch: each metric missing, an error, or some instances.
        fn fetch() -> impl Strategy<Value = Vec<ValueSet>> {
            let sets: Vec<BoxedStrategy<Option<ValueSet>>> = METRICS
                .iter()
                .map(|(name, desc)| {
                    let pmid = desc.pmid;
                    let ty = desc.ty;
                    prop_oneof![
                        1 => Just(None),
                        1 => Just(Some(ValueSet { pmid, values: Err(PmError::PM_ERR_AGAIN) })),
                        6 => prop::collection::vec((-1i32..4, atom(ty)), 0..4).prop_map(move |v| Some(ValueSet {
                            pmid,
                            values: Ok(v.iter().map(|(i, a)| InstValue { inst: *i, value: Value::from_atom(a) }).collect()),
                        })),
                    ]
                    .prop_map(move |s| {
                        let _ = name;
                        s
                    })
                    .boxed()
                })
                .collect();
            sets.prop_map(|v| v.into_iter().flatten().collect())
        }

        proptest! {
            /// The double arithmetic made in place is the general path's:
            /// operands scaled by the checker's factors, then `arith`.
            #[test]
            fn double_arithmetic_in_place_is_the_general_one(
                op in prop::sample::select(vec!["+", "-", "*", "/"]),
                (l, r) in prop::sample::select(vec![
                    ("k", "mkconst(2048, units=byte)"),
                    ("mkconst(3, units=Mbyte)", "k"),
                    ("dd", "k"),
                    ("k", "dd"),
                    ("dd", "c"),
                    ("f", "dd"),
                    ("a", "a"),
                ]),
                kv in prop_oneof![any::<u32>(), Just(0u32)],
                dv in prop_oneof![any::<f64>(), Just(0.0), Just(-0.0)],
                av in any::<u64>(),
                cv in any::<i32>(),
                fv in any::<f32>(),
            ) {
                let tree = parse(&format!("{l} {op} {r}")).expect("parses");
                // (adding a dimensionless double to bytes is refused: passed over)
                let checked = check("m", DERIVED, &tree, &mut Fake);
                prop_assume!(checked.is_ok());
                let mut ev = Evaluator::new(tree, checked.expect("checks"));
                prop_assume!(ev.desc().ty == MetricType::DOUBLE);
                let sets = vec![
                    set("k", &[(-1, U32(kv))]),
                    set("dd", &[(0, Double(dv))]),
                    set("a", &[(0, U64(av))]),
                    set("c", &[(0, I32(cv))]),
                    set("f", &[(0, Float(fv))]),
                ];
                let got = ev.evaluate(&FetchResult { timestamp: at(1), sets }, &mut Fake).values.expect("values");
                // what the general path makes of the operands' values
                let root = ev.expr.nodes().len() - 1;
                let Node::Binary(bop, ln, rn) = ev.expr.nodes()[root].clone() else { panic!("a binary root") };
                let (ln, rn) = (ln.index(), rn.index());
                let scale = |x: usize| ev.checked.info.get(x).map_or((1, 1), |f| (f.mul, f.div));
                let (lt, rt) = (ev.desc_of(ln).ty, ev.desc_of(rn).ty);
                let want = arith(
                    MetricType::DOUBLE,
                    bop,
                    &scaled(&ev.vals(ln)[0].1, lt, MetricType::DOUBLE, scale(ln)),
                    &scaled(&ev.vals(rn)[0].1, rt, MetricType::DOUBLE, scale(rn)),
                );
                prop_assert_eq!(got.len(), 1);
                let bits = |a: AtomValue| match a {
                    Double(x) => x.to_bits(),
                    _ => 0,
                };
                prop_assert_eq!(bits(decode(&got[0].value, MetricType::DOUBLE).expect("decodes")), bits(want));
            }
        }

        proptest! {
            /// Packing over what a slot held gives what packing the converted
            /// value afresh gives.
            #[test]
            fn packing_in_place_is_packing_afresh(
                a in prop_oneof![
                    atom(MetricType::I32),
                    atom(MetricType::U32),
                    any::<i64>().prop_map(I64),
                    atom(MetricType::U64),
                    atom(MetricType::FLOAT),
                    atom(MetricType::DOUBLE),
                    prop::collection::vec(any::<u8>(), 0..40).prop_map(AtomValue::String),
                ],
                ty in (0i32..=6).prop_map(MetricType),
                held in prop_oneof![
                    any::<i32>().prop_map(Value::Insitu),
                    prop::collection::vec(any::<u8>(), 0..40)
                        .prop_map(|b| Value::Block(pcp_core::ValueBlock::from_slice(6, &b))),
                ],
            ) {
                let mut slot = held;
                pack_into(&a, ty, &mut slot);
                // (converting anything but a number leaves it as it is)
                prop_assert_eq!(slot, Value::from_atom(&convert(&a, ty)));
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(1000))]
            #[test]
            fn evaluation_never_panics(e in expression(), fetches in prop::collection::vec((0i64..3, fetch()), 1..4)) {
                let tree = parse(&e).expect("generated expressions parse");
                let Ok(checked) = check("m", DERIVED, &tree, &mut Fake) else { return Ok(()) };
                let mut ev = Evaluator::new(tree, checked);
                let ty = ev.desc().ty;
                for (t, sets) in fetches {
                    let r = FetchResult { timestamp: at(t), sets };
                    let vs = ev.evaluate(&r, &mut Fake);
                    prop_assert_eq!(vs.pmid, DERIVED);
                    if let Ok(v) = &vs.values {
                        for iv in v {
                            // every value is of the metric's type
                            if ty.is_numeric() {
                                prop_assert!(decode(&iv.value, ty).is_ok());
                            }
                        }
                    }
                }
            }
        }
    }
}
