//! libpcp's `-Dderive` trace of expressions: the lexer's tokens
//! (`derive_lex() -> ...`) and the expression tree dumps (`Derived metric
//! expr dump from ...`), in libpcp's node shapes.
//!
//! libpcp prints node addresses; here each node dumped gets a stable
//! stand-in address of its own, in the same format, so that QA filters
//! that number addresses in order of appearance see the same shapes.
//! A registry hands out the stand-ins ([`Addresses`]) to its trees and to
//! those the contexts it gives metrics to bind, so no two live trees share
//! one, as no two live heap nodes do.

use crate::ast::{Expr, Filter, Node, NodeId};
use crate::eval::Evaluator;
use crate::lex::Token;
use pcp_core::{AtomValue, Desc, MetricType, PmId};
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Where stand-in node addresses come from: clones share the source.
#[derive(Clone, Debug, Default)]
pub struct Addresses(Arc<AtomicU64>);

impl Addresses {
    /// The first of `n` fresh stand-in addresses, 0x40 apart: always 12
    /// hex digits, so that no address is a prefix of another (QA filters
    /// substitute them as text).
    pub fn reserve(&self, n: usize) -> u64 {
        0x55d0_0000_0000 + self.0.fetch_add(n as u64, Ordering::Relaxed) * 0x40
    }
}

/// How many nodes libpcp's tree of `expr` has (it adds a COLON node to
/// each ternary, a PATTERN to each instance filter, a SCALE to each
/// rescale() and the type's INTEGER to anon()).
pub fn node_count(expr: &Expr) -> usize {
    expr.nodes()
        .iter()
        .map(|n| match n {
            Node::Ternary(..) | Node::Filter(..) | Node::Rescale(..) | Node::Anon(_) => 2,
            _ => 1,
        })
        .sum()
}

/// `derive_lex() -> type=L_... "..."` for each token read.
pub fn write_tokens(out: &mut Vec<u8>, tokens: &[Token<'_>]) {
    for t in tokens {
        let _ = write!(out, "derive_lex() -> type=L_{} \"", t.tok.trace_name());
        out.extend_from_slice(&t.text);
        out.extend_from_slice(b"\"\n");
    }
}

/// One node of libpcp's tree, as the dump shows it.
struct CNode {
    addr: u64,
    /// The node of ours it stands for (none for those libpcp adds).
    src: Option<NodeId>,
    kind: Kind,
    left: Option<usize>,
    right: Option<usize>,
    save_last: bool,
}

enum Kind {
    /// An operator or function node: its type name.
    Op(&'static str),
    /// A NAME, INTEGER or DOUBLE node: its type name and value text.
    Leaf(&'static str, Vec<u8>),
    /// A SCALE node: its units.
    Scale(pcp_core::Units),
    /// A PATTERN node: its text, and for a regex whether inverted.
    Pattern(Vec<u8>, Option<bool>),
}

/// libpcp's tree of `expr`, nodes in dump order (each node before its
/// left subtree, then its right subtree).
fn c_tree(expr: &Expr, base: u64) -> Vec<CNode> {
    let mut out: Vec<CNode> = Vec::new();
    // (an explicit stack: the deepest expressions must not overflow ours)
    enum Job {
        Node(NodeId, Option<(usize, bool)>, bool),
        Synth(Kind, Option<(usize, bool)>),
        /// QUEST's right: COLON(then, else), with the ternary's node
        Colon(NodeId, NodeId, Option<(usize, bool)>, NodeId),
    }
    let mut todo = vec![Job::Node(expr.root(), None, false)];
    while let Some(job) = todo.pop() {
        let src = match &job {
            Job::Node(id, ..) | Job::Colon(.., id) => Some(*id),
            Job::Synth(..) => None,
        };
        let (kind, parent, save_last, kids): (Kind, _, bool, Vec<Job>) = match job {
            Job::Synth(kind, parent) => (kind, parent, false, Vec::new()),
            Job::Colon(t, e, parent, _) => {
                let me = out.len();
                (
                    Kind::Op("COLON"),
                    parent,
                    false,
                    vec![Job::Node(t, Some((me, true)), false), Job::Node(e, Some((me, false)), false)],
                )
            }
            Job::Node(id, parent, save_last) => {
                let me = out.len();
                let l = Some((me, true));
                let r = Some((me, false));
                match &expr[id] {
                    Node::Integer(c) => (Kind::Leaf("INTEGER", c.text.as_bytes().to_vec()), parent, save_last, vec![]),
                    Node::Double(c) => (Kind::Leaf("DOUBLE", c.text.as_bytes().to_vec()), parent, save_last, vec![]),
                    Node::Name(n) => (Kind::Leaf("NAME", n.as_bytes().to_vec()), parent, save_last, vec![]),
                    Node::Neg(x) => (Kind::Op("NEG"), parent, save_last, vec![Job::Node(*x, l, false)]),
                    Node::Not(x) => (Kind::Op("NOT"), parent, save_last, vec![Job::Node(*x, l, false)]),
                    Node::Binary(op, a, b) => (
                        Kind::Op(op.node_name()),
                        parent,
                        save_last,
                        vec![Job::Node(*a, l, false), Job::Node(*b, r, false)],
                    ),
                    Node::Ternary(g, t, e) => {
                        (Kind::Op("QUEST"), parent, save_last, vec![Job::Node(*g, l, false), Job::Colon(*t, *e, r, id)])
                    }
                    Node::NoValue(_) => (Kind::Op("NOVALUE"), parent, save_last, vec![]),
                    Node::Func(f, x) => {
                        use crate::ast::Func;
                        let keeps = matches!(f, Func::Delta | Func::Rate);
                        (Kind::Op(f.node_name()), parent, save_last, vec![Job::Node(*x, l, keeps)])
                    }
                    Node::Anon(word) => (
                        Kind::Op("ANON"),
                        parent,
                        save_last,
                        vec![Job::Synth(Kind::Leaf("INTEGER", word.as_bytes().to_vec()), l)],
                    ),
                    Node::Rescale(x, u) => (
                        Kind::Op("RESCALE"),
                        parent,
                        save_last,
                        vec![Job::Node(*x, l, false), Job::Synth(Kind::Scale(*u), r)],
                    ),
                    Node::Filter(f, x) => {
                        let pattern = match f {
                            Filter::Instance(i) => Kind::Pattern(i.clone(), None),
                            Filter::Regex { pattern, invert } => Kind::Pattern(pattern.clone(), Some(*invert)),
                        };
                        (
                            Kind::Op("FILTERINST"),
                            parent,
                            save_last,
                            vec![Job::Synth(pattern, l), Job::Node(*x, r, false)],
                        )
                    }
                }
            }
        };
        let me = out.len();
        if let Some((p, is_left)) = parent {
            if let Some(pn) = out.get_mut(p) {
                if is_left {
                    pn.left = Some(me);
                } else {
                    pn.right = Some(me);
                }
            }
        }
        out.push(CNode { addr: base + 0x40 * me as u64, src, kind, left: None, right: None, save_last });
        todo.extend(kids.into_iter().rev());
    }
    out
}

/// `__dmdumpexpr` of a tree as registered (nothing bound yet), its
/// nodes' stand-in addresses from `base` on ([`Addresses::reserve`] of
/// [`node_count`]).
pub fn write_dump(out: &mut Vec<u8>, expr: &Expr, base: u64) {
    dump(out, expr, base, None);
}

/// `__dmdumpexpr` of a tree bound in a context (`-Dderive,appl1` at
/// `__dmbind`): each node's metadata too.
pub fn write_bound_dump(out: &mut Vec<u8>, ev: &Evaluator) {
    dump(out, ev.expr(), ev.addr_base(), Some((ev, false)));
}

/// What `__dmpostvalueset` traces under `-Dderive,appl2` for the derived
/// metric in place `k` of a fetch once evaluated: its values, then its
/// tree with each node's values (those kept from the previous fetch
/// too).
/// (`numval`: what evaluation returned, the error that stopped it, which
/// the root node does not keep.)
pub fn write_values(out: &mut Vec<u8>, k: usize, numval: i32, ev: &Evaluator) {
    let (cur, _) = ev.node_values(ev.expr().root());
    let ty = ev.desc().ty;
    let _ = write!(out, "__dmpostvalueset: [{k}] root node {}: numval={numval}", ev.pmid());
    let cur = if numval > 0 { cur.as_deref().unwrap_or_default() } else { &[] };
    for (j, (inst, v)) in cur.iter().enumerate() {
        let _ = write!(out, " vset[{j}]: inst={inst}");
        match c_value(ty, v, "%f") {
            Some((member, text)) => {
                let _ = write!(out, " {member}=");
                out.extend_from_slice(&text);
                if let AtomValue::String(x) = v {
                    let _ = write!(out, " (len={})", x.len() + 1);
                }
            }
            None => {
                let _ = write!(out, " vbp={:#x} (len=0)", ev.addr_base() + 0x20);
            }
        }
    }
    out.push(b'\n');
    dump(out, ev.expr(), ev.addr_base(), Some((ev, true)));
}

/// A value of type `ty` as libpcp prints it from its `pmAtomValue`
/// union: the member's name and the text (floating point ones with
/// `float`, a printf format); `None` for the types it does not print.
fn c_value(ty: MetricType, v: &AtomValue, float: &str) -> Option<(&'static str, Vec<u8>)> {
    let f = |x: f64| pcp_core::support::cfmt::sprintf_f64(float, &[], x).unwrap_or_default().into_bytes();
    Some(match (ty, v) {
        (MetricType::I32, AtomValue::I32(x)) => ("l", x.to_string().into_bytes()),
        (MetricType::U32, AtomValue::U32(x)) => ("u", x.to_string().into_bytes()),
        (MetricType::I64, AtomValue::I64(x)) => ("ll", x.to_string().into_bytes()),
        (MetricType::U64, AtomValue::U64(x)) => ("ul", x.to_string().into_bytes()),
        (MetricType::FLOAT, AtomValue::Float(x)) => ("f", f(f64::from(*x))),
        (MetricType::DOUBLE, AtomValue::Double(x)) => ("d", f(*x)),
        (MetricType::STRING, AtomValue::String(x)) => ("cp", x.clone()),
        _ => return None,
    })
}

/// `dump_value`: a node's value as libpcp's dump shows it.
fn dump_value(out: &mut Vec<u8>, ty: MetricType, v: &AtomValue) {
    match c_value(ty, v, "%g") {
        Some((_, text)) => out.extend_from_slice(&text),
        None => out.extend_from_slice(b"[blob]"),
    }
}

fn ptr(out: &mut Vec<u8>, nodes: &[CNode], i: Option<usize>) {
    match i.and_then(|i| nodes.get(i)) {
        Some(n) => {
            let _ = write!(out, "{:#x}", n.addr);
        }
        None => out.extend_from_slice(b"(nil)"),
    }
}

/// The dump of `expr` (a bound one's evaluator, and whether after an
/// evaluation: then with no heading, as libpcp dumps from level 1).
fn dump(out: &mut Vec<u8>, expr: &Expr, base: u64, bound: Option<(&Evaluator, bool)>) {
    let mut nodes = c_tree(expr, base);
    let evaluated = bound.is_some_and(|b| b.1);
    let bound = bound.map(|b| b.0);
    // binding evaluates defined() at once and drops its operand
    let mut dropped = vec![false; nodes.len()];
    if bound.is_some() {
        for n in nodes.iter_mut().filter(|n| matches!(n.kind, Kind::Op("DEFINED"))) {
            if let Some(d) = n.left.take().and_then(|l| dropped.get_mut(l)) {
                *d = true;
            }
        }
    }
    // the PMID in each node's descriptor: an operand's own, the
    // metric's at the top, else that of the operand whose descriptor
    // libpcp copies up the tree: the right one for a ternary (its COLON)
    // and matchinst (the left is the pattern), and for a binary operator
    // whose left operand is a constant; the left one otherwise
    let mut desc_pmid = vec![PmId::NULL; nodes.len()];
    if let Some(ev) = bound {
        let checked = ev.checked();
        for i in (0..nodes.len()).rev() {
            let n = &nodes[i];
            let left_const = n
                .left
                .and_then(|l| nodes.get(l))
                .is_some_and(|l| matches!(l.kind, Kind::Leaf("INTEGER" | "DOUBLE", _)));
            desc_pmid[i] = match (&n.kind, n.src) {
                (Kind::Leaf("NAME", _), Some(id)) => checked[id].pmid,
                (Kind::Leaf(..), _) => PmId::NULL,
                (Kind::Op("QUEST" | "FILTERINST"), _) => n.right.map_or(PmId::NULL, |r| desc_pmid[r]),
                (Kind::Op(op), _) if left_const && n.right.is_some() && !matches!(*op, "COLON" | "RESCALE") => {
                    n.right.map_or(PmId::NULL, |r| desc_pmid[r])
                }
                _ => n.left.map_or(PmId::NULL, |l| desc_pmid[l]),
            };
        }
        if let Some(p) = desc_pmid.first_mut() {
            *p = ev.pmid();
        }
    }
    let Some(root) = nodes.first() else { return };
    if !evaluated {
        let _ = writeln!(out, "Derived metric expr dump from {:#x}...", root.addr);
    }
    for (i, n) in nodes.iter().enumerate() {
        if dropped[i] {
            continue;
        }
        let _ = write!(out, "expr node {:#x} type=", n.addr);
        match &n.kind {
            Kind::Pattern(text, kind) => {
                out.extend_from_slice(b"PATTERN pattern: ");
                out.extend_from_slice(text);
                out.extend_from_slice(b" type: ");
                // (the filter's state: the pattern's parent)
                let filter = nodes.iter().find(|p| p.left == Some(i)).and_then(|p| p.src);
                let live = bound.filter(|_| evaluated).zip(filter);
                match kind {
                    Some(invert) => {
                        let (used, seen) = live.map_or((0, None), |(ev, f)| ev.pattern_state(f));
                        let inverted = if *invert { "inverted " } else { "" };
                        let _ = write!(out, "{inverted}regex used={used}");
                        if let Some((all, hits)) = seen {
                            let _ = write!(out, " ({all} instances, {hits} matches)");
                        }
                    }
                    None => {
                        let inst = live.and_then(|(ev, f)| ev.filter_inst(f)).unwrap_or(-1);
                        let _ = write!(out, "exact match inst={inst}");
                    }
                }
                out.push(b'\n');
                continue;
            }
            Kind::Op(name) => out.extend_from_slice(name.as_bytes()),
            Kind::Leaf(name, _) => out.extend_from_slice(name.as_bytes()),
            Kind::Scale(_) => out.extend_from_slice(b"SCALE"),
        }
        out.extend_from_slice(b" left=");
        ptr(out, &nodes, n.left);
        out.extend_from_slice(b" right=");
        ptr(out, &nodes, n.right);
        let _ = write!(out, " save_last={}", u8::from(n.save_last));
        match &n.kind {
            Kind::Leaf(_, value) => {
                out.extend_from_slice(b" [");
                out.extend_from_slice(value);
                out.extend_from_slice(if bound.is_some() { b"] primary=0" } else { b"] primary=1" });
            }
            Kind::Scale(u) => {
                let _ = writeln!(out, " [{u}]");
                continue;
            }
            _ => {}
        }
        out.push(b'\n');
        let (Some(ev), Some(id)) = (bound, n.src) else { continue };
        let info = &ev.checked()[id];
        let own = if matches!(n.kind, Kind::Leaf("NAME", _)) { info.pmid } else { PmId::NULL };
        let shown = |p: PmId| if p.is_null() { "PM_ID_NULL".to_string() } else { p.to_string() };
        let defined = matches!(n.kind, Kind::Op("DEFINED"));
        // (the ternary's COLON node has no values of its own)
        let colon = matches!(n.kind, Kind::Op("COLON"));
        let empty: crate::eval::Vals = Ok(Vec::new());
        let (cur, last) = if evaluated && !colon { ev.node_values(id) } else { (&empty, &empty) };
        let numval = if evaluated { crate::eval::numval(cur) } else { i32::from(defined) };
        let _ = write!(out, "    PMID: {} ({} from pmDesc) numval: {numval}", shown(own), shown(desc_pmid[i]));
        if info.div != 1 {
            let _ = write!(out, " div_scale: {}", info.div);
        }
        if info.mul != 1 {
            let _ = write!(out, " mul_scale: {}", info.mul);
        }
        out.push(b'\n');
        let _ = write!(out, "{}", Desc { pmid: desc_pmid[i], ..info.desc });
        if !evaluated {
            if defined {
                let _ = writeln!(out, "[0] inst=-1, val={}", u8::from(info.defined));
            }
            continue;
        }
        let (cur, last) = (cur.as_deref().unwrap_or_default(), last.as_deref().unwrap_or_default());
        for j in 0..cur.len().max(last.len()) {
            let _ = write!(out, "[{j}]");
            if let Some((inst, v)) = cur.get(j) {
                let _ = write!(out, " inst={inst}, val=");
                dump_value(out, info.desc.ty, v);
            }
            if let Some((inst, v)) = last.get(j) {
                let _ = write!(out, " (last inst={inst}, val=");
                dump_value(out, info.desc.ty, v);
                out.push(b')');
            }
            out.push(b'\n');
        }
    }
}

/// The stand-in address of the node of libpcp's tree that stands for our
/// node `i` (the first, where it adds one: a ternary's QUEST).
fn address_of(ev: &Evaluator, i: usize) -> (Vec<CNode>, usize) {
    let nodes = c_tree(ev.expr(), ev.addr_base());
    let at = nodes.iter().position(|n| n.src.map(|s| s.index()) == Some(i)).unwrap_or(0);
    (nodes, at)
}

/// `eval_expr`'s trace of an `x[name]` node `filter` whose instance name
/// is not in the instance domain (`pmLookupInDom` failed).
pub(crate) fn write_lookup_failed(
    out: &mut Vec<u8>,
    ev: &Evaluator,
    filter: usize,
    indom: pcp_core::InDom,
    name: &[u8],
    err: pcp_core::PmError,
) {
    let (nodes, at) = address_of(ev, filter);
    let addr = nodes.get(at).map_or(ev.addr_base(), |n| n.addr);
    let _ = write!(out, "eval_expr: expr node {addr:#x} type=FILTERINST pmLookupInDom_ctx(...,{indom},");
    out.extend_from_slice(name);
    let _ = writeln!(out, ") failed: {err}");
}

/// `regex_inst_gc(...)`'s trace of a culling of the instances a
/// `matchinst()` node `filter` has seen.
pub(crate) fn write_inst_gc(out: &mut Vec<u8>, ev: &Evaluator, filter: usize, scanned: usize, culled: usize) {
    // (libpcp prints its pattern's address: here the PATTERN node's)
    let (nodes, at) = address_of(ev, filter);
    let at = at + 1;
    let addr = nodes.get(at).map_or(ev.addr_base(), |n| n.addr);
    let _ = writeln!(out, "regex_inst_gc({addr:#x}) {scanned} instances scanned, {culled} instances culled");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(text: &str) -> String {
        let e = crate::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let mut out = Vec::new();
        write_dump(&mut out, &e, 0x55d0_0000_0000);
        // number the addresses of the nodes in dump order, as the QA
        // filters do
        let s = String::from_utf8_lossy(&out).into_owned();
        let seen: Vec<String> =
            s.lines().filter_map(|l| l.strip_prefix("expr node ")?.split(' ').next().map(str::to_string)).collect();
        let mut s = s;
        for (i, a) in seen.iter().enumerate() {
            s = s.replace(a.as_str(), &format!("<{i}>"));
        }
        s
    }

    #[test]
    fn dumps_in_libpcps_node_shapes() {
        assert_eq!(
            shape("matchinst(!/bin-[1-5]00/, sample.bin)"),
            "Derived metric expr dump from <0>...\n\
             expr node <0> type=FILTERINST left=<1> right=<2> save_last=0\n\
             expr node <1> type=PATTERN pattern: bin-[1-5]00 type: inverted regex used=0\n\
             expr node <2> type=NAME left=(nil) right=(nil) save_last=0 [sample.bin] primary=1\n"
        );
        assert_eq!(
            shape("a > 1 ? rate(b) : 2"),
            "Derived metric expr dump from <0>...\n\
             expr node <0> type=QUEST left=<1> right=<4> save_last=0\n\
             expr node <1> type=GT left=<2> right=<3> save_last=0\n\
             expr node <2> type=NAME left=(nil) right=(nil) save_last=0 [a] primary=1\n\
             expr node <3> type=INTEGER left=(nil) right=(nil) save_last=0 [1] primary=1\n\
             expr node <4> type=COLON left=<5> right=<7> save_last=0\n\
             expr node <5> type=RATE left=<6> right=(nil) save_last=0\n\
             expr node <6> type=NAME left=(nil) right=(nil) save_last=1 [b] primary=1\n\
             expr node <7> type=INTEGER left=(nil) right=(nil) save_last=0 [2] primary=1\n"
        );
        assert_eq!(
            shape("anon(PM_TYPE_U32)"),
            "Derived metric expr dump from <0>...\n\
             expr node <0> type=ANON left=<1> right=(nil) save_last=0\n\
             expr node <1> type=INTEGER left=(nil) right=(nil) save_last=0 [PM_TYPE_U32] primary=1\n"
        );
    }
}
