//! libpcp's `-Dderive` trace of expressions: the lexer's tokens
//! (`derive_lex() -> ...`) and the expression tree dumps (`Derived metric
//! expr dump from ...`), in libpcp's node shapes.
//!
//! libpcp prints node addresses; here each node dumped gets a stable
//! stand-in address of its own, in the same format, so that QA filters
//! that number addresses in order of appearance see the same shapes.

use crate::ast::{Expr, Filter, Node, NodeId};
use crate::lex::Token;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};

/// The next stand-in address. (Process-wide only so that no two dumps
/// share an address, as no two live heap nodes do; nothing else reads it.)
static NEXT_ADDR: AtomicU64 = AtomicU64::new(0);

/// A fresh stand-in for a heap address: always 12 hex digits, so that no
/// address is a prefix of another (QA filters substitute them as text).
pub fn fake_address() -> u64 {
    0x55d0_0000_0000 + NEXT_ADDR.fetch_add(1, Ordering::Relaxed) * 0x40
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
fn c_tree(expr: &Expr) -> Vec<CNode> {
    let mut out: Vec<CNode> = Vec::new();
    // (an explicit stack: the deepest expressions must not overflow ours)
    enum Job {
        Node(NodeId, Option<(usize, bool)>, bool),
        Synth(Kind, Option<(usize, bool)>),
        /// QUEST's right: COLON(then, else)
        Colon(NodeId, NodeId, Option<(usize, bool)>),
    }
    let mut todo = vec![Job::Node(expr.root(), None, false)];
    while let Some(job) = todo.pop() {
        let (kind, parent, save_last, kids): (Kind, _, bool, Vec<Job>) = match job {
            Job::Synth(kind, parent) => (kind, parent, false, Vec::new()),
            Job::Colon(t, e, parent) => {
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
                        (Kind::Op("QUEST"), parent, save_last, vec![Job::Node(*g, l, false), Job::Colon(*t, *e, r)])
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
        out.push(CNode { addr: fake_address(), kind, left: None, right: None, save_last });
        todo.extend(kids.into_iter().rev());
    }
    out
}

fn ptr(out: &mut Vec<u8>, nodes: &[CNode], i: Option<usize>) {
    match i.and_then(|i| nodes.get(i)) {
        Some(n) => {
            let _ = write!(out, "{:#x}", n.addr);
        }
        None => out.extend_from_slice(b"(nil)"),
    }
}

/// `__dmdumpexpr` of a tree as registered (nothing bound yet).
pub fn write_dump(out: &mut Vec<u8>, expr: &Expr) {
    let nodes = c_tree(expr);
    let Some(root) = nodes.first() else { return };
    let _ = writeln!(out, "Derived metric expr dump from {:#x}...", root.addr);
    for n in &nodes {
        let _ = write!(out, "expr node {:#x} type=", n.addr);
        match &n.kind {
            Kind::Pattern(text, kind) => {
                out.extend_from_slice(b"PATTERN pattern: ");
                out.extend_from_slice(text);
                out.extend_from_slice(b" type: ");
                match kind {
                    Some(true) => out.extend_from_slice(b"inverted regex used=0"),
                    Some(false) => out.extend_from_slice(b"regex used=0"),
                    None => out.extend_from_slice(b"exact match inst=-1"),
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
                out.extend_from_slice(b"] primary=1");
            }
            Kind::Scale(u) => {
                let _ = write!(out, " [{u}]");
            }
            _ => {}
        }
        out.push(b'\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(text: &str) -> String {
        let e = crate::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let mut out = Vec::new();
        write_dump(&mut out, &e);
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
