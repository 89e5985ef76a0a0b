//! The syntax tree of a derived-metric expression.
//!
//! The nodes live in one vector, children before their parents (the order
//! the parser makes them in, which is also the order libpcp visits them
//! in), the root last. Nothing here recurses, so the deepest expression
//! libpcp accepts (some ten thousand levels) and the longest (a sum of any
//! number of terms nests as deep as it is long) are as safe to copy,
//! compare, print and drop as a small one.

pub use crate::grammar::{BinOp, Func};
use pcp_core::{MetricType, Semantics, Units};
use std::fmt;

/// A node's index in its expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// As an index into [`Expr::nodes`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// An expression, as parsed (nothing looked up yet).
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    nodes: Vec<Node>,
    /// Each node's subtree is `first[i]..=i` in `nodes`.
    first: Vec<u32>,
}

/// One node of an expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// An unsigned 32-bit constant, its text as written (`007` stays
    /// `007`), or a `mkconst(INTEGER, ...)`.
    Integer(Constant),
    /// A double constant, its text as written (`.5`, `1.`, even `.`),
    /// or a `mkconst(DOUBLE, ...)`.
    Double(Constant),
    /// A metric name.
    Name(String),
    /// `-x`
    Neg(NodeId),
    /// `!x`
    Not(NodeId),
    /// `left op right`
    Binary(BinOp, NodeId, NodeId),
    /// `guard ? then : otherwise`; at most one of the branches is
    /// [`Node::NoValue`].
    Ternary(NodeId, NodeId, NodeId),
    /// `novalue(...)`, only ever a branch of a ternary.
    NoValue(Box<Metadata>),
    /// A function of one operand. `avg`, `count`, `max`, `min`, `sum` and
    /// `defined` always have a [`Node::Name`] operand.
    Func(Func, NodeId),
    /// `anon(PM_TYPE_...)`: libpcp's anonymous metrics (the event record
    /// fields); the word as written, checked later.
    Anon(String),
    /// `rescale(x, "units")`
    Rescale(NodeId, Units),
    /// Instance selection: `name[inst]`, `(x)[inst]` or
    /// `matchinst([!]/regex/, x)`.
    Filter(Filter, NodeId),
}

/// A numeric constant.
#[derive(Clone, Debug, PartialEq)]
pub struct Constant {
    /// The number as written.
    pub text: String,
    /// The metadata of a `mkconst()`; `None` for a bare number.
    pub meta: Option<Box<Metadata>>,
}

/// Metadata given as `tag=value` parameters of `mkconst()` or `novalue()`;
/// what is not given takes the constructor's default.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metadata {
    /// `type=`
    pub ty: Option<MetricType>,
    /// `semantics=`
    pub sem: Option<Semantics>,
    /// `units=`
    pub units: Option<Units>,
    /// `meta=`: a metric whose descriptor is the base for the others.
    pub meta: Option<String>,
}

/// How instances are selected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Filter {
    /// `[name]`: the one instance with this external name (bytes, as
    /// instance names are).
    Instance(Vec<u8>),
    /// `matchinst(/regex/, ...)`: instances whose names match (or, when
    /// `invert`, do not match) a POSIX extended regular expression.
    Regex {
        /// The expression (bytes), with `\/` unescaped.
        pattern: Vec<u8>,
        /// `!` given.
        invert: bool,
    },
}

impl Node {
    /// The node's operands, in order.
    pub fn children(&self) -> impl Iterator<Item = NodeId> {
        let (a, b, c) = match *self {
            Node::Neg(x) | Node::Not(x) | Node::Func(_, x) | Node::Rescale(x, _) | Node::Filter(_, x) => {
                (Some(x), None, None)
            }
            Node::Binary(_, l, r) => (Some(l), Some(r), None),
            Node::Ternary(g, t, e) => (Some(g), Some(t), Some(e)),
            _ => (None, None, None),
        };
        a.into_iter().chain(b).chain(c)
    }
}

/// Builds an expression bottom-up (children first).
#[derive(Clone, Debug, Default)]
pub struct Builder {
    nodes: Vec<Node>,
    first: Vec<u32>,
}

impl Builder {
    /// Adds a node whose operands were added before it.
    pub fn push(&mut self, node: Node) -> NodeId {
        let id = self.nodes.len() as u32;
        let first = node.children().next().map_or(id, |c| self.first.get(c.index()).copied().unwrap_or(id));
        self.nodes.push(node);
        self.first.push(first);
        NodeId(id)
    }

    /// The expression whose root is the last node added, in lists of its
    /// size. The builder is left empty, its room kept for the next.
    pub fn finish(&mut self) -> Expr {
        let first = self.first.as_slice().to_vec();
        self.first.clear();
        Expr { nodes: self.nodes.drain(..).collect(), first }
    }

    /// Empty, its room kept.
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.first.clear();
    }
}

impl std::ops::Index<NodeId> for Expr {
    type Output = Node;
    fn index(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }
}

impl Expr {
    /// The root node.
    pub fn root(&self) -> NodeId {
        NodeId(self.nodes.len().saturating_sub(1) as u32)
    }

    /// The nodes, children before their parents, the root last.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The nodes of `id`'s subtree: `subtree(id).start..=id.index()`.
    pub fn subtree(&self, id: NodeId) -> std::ops::RangeInclusive<usize> {
        self.first.get(id.index()).map_or(0, |&f| f as usize)..=id.index()
    }
}

impl BinOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Lt => "<",
            BinOp::Leq => "<=",
            BinOp::Eq => "==",
            BinOp::Geq => ">=",
            BinOp::Gt => ">",
            BinOp::Neq => "!=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }

    /// libpcp's name for the operator's node (`PLUS`, `LEQ`, ...).
    pub fn node_name(self) -> &'static str {
        match self {
            BinOp::Add => "PLUS",
            BinOp::Sub => "MINUS",
            BinOp::Mul => "STAR",
            BinOp::Div => "SLASH",
            BinOp::Lt => "LT",
            BinOp::Leq => "LEQ",
            BinOp::Eq => "EQ",
            BinOp::Geq => "GEQ",
            BinOp::Gt => "GT",
            BinOp::Neq => "NEQ",
            BinOp::And => "AND",
            BinOp::Or => "OR",
        }
    }
}

impl Func {
    /// The function's name as written.
    pub fn name(self) -> &'static str {
        match self {
            Func::Avg => "avg",
            Func::Count => "count",
            Func::Delta => "delta",
            Func::Max => "max",
            Func::Min => "min",
            Func::Sum => "sum",
            Func::Rate => "rate",
            Func::Instant => "instant",
            Func::Defined => "defined",
            Func::Scalar => "scalar",
        }
    }

    /// libpcp's name for the function's node (`AVG`, `DELTA`, ...).
    pub fn node_name(self) -> &'static str {
        match self {
            Func::Avg => "AVG",
            Func::Count => "COUNT",
            Func::Delta => "DELTA",
            Func::Max => "MAX",
            Func::Min => "MIN",
            Func::Sum => "SUM",
            Func::Rate => "RATE",
            Func::Instant => "INSTANT",
            Func::Defined => "DEFINED",
            Func::Scalar => "SCALAR",
        }
    }
}

/// Text with the characters in `special` preceded by `\`.
fn escaped(out: &mut String, text: &[u8], special: &[char]) {
    for c in String::from_utf8_lossy(text).chars() {
        if special.contains(&c) {
            out.push('\\');
        }
        out.push(c);
    }
}

fn metadata_args(out: &mut String, m: &Metadata) {
    let mut args = Vec::new();
    if let Some(t) = m.ty {
        args.push(format!("type={}", t.name()));
    }
    if let Some(s) = m.sem {
        args.push(format!("semantics={}", s.name()));
    }
    if let Some(u) = m.units {
        args.push(format!("units=\"{u}\""));
    }
    if let Some(name) = &m.meta {
        args.push(format!("meta={name}"));
    }
    out.push_str(&args.join(", "));
}

/// The expression fully parenthesised, as text that parses back to the
/// same tree (for messages, tests and debugging): `((a + b) * (-(c)))`.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.nodes.is_empty() {
            return Ok(());
        }
        // what is left to write, last first
        enum Part {
            Node(NodeId),
            Text(String),
        }
        let mut todo = vec![Part::Node(self.root())];
        let mut out = String::new();
        while let Some(part) = todo.pop() {
            let id = match part {
                Part::Text(t) => {
                    out.push_str(&t);
                    continue;
                }
                Part::Node(id) => id,
            };
            let t = |s: &str| Part::Text(s.to_string());
            let n = Part::Node;
            // the pieces of this node, in order
            let pieces: Vec<Part> = match &self[id] {
                Node::Integer(c) | Node::Double(c) => match &c.meta {
                    None => vec![t(&c.text)],
                    Some(m) => {
                        let mut s = format!("mkconst({}, ", c.text);
                        metadata_args(&mut s, m);
                        s.push(')');
                        vec![Part::Text(s)]
                    }
                },
                Node::Name(name) => vec![t(name)],
                // (whole: `!` binds more loosely than `-`, unary `-` than `*`)
                Node::Neg(x) => vec![t("(-("), n(*x), t("))")],
                Node::Not(x) => vec![t("(!("), n(*x), t("))")],
                Node::Binary(op, l, r) => vec![t("("), n(*l), Part::Text(format!(" {} ", op.symbol())), n(*r), t(")")],
                Node::Ternary(g, th, e) => vec![t("("), n(*g), t(" ? "), n(*th), t(" : "), n(*e), t(")")],
                Node::NoValue(m) => {
                    let mut s = String::from("novalue(");
                    metadata_args(&mut s, m);
                    s.push(')');
                    vec![Part::Text(s)]
                }
                Node::Func(func, x) => vec![Part::Text(format!("{}(", func.name())), n(*x), t(")")],
                Node::Anon(word) => vec![Part::Text(format!("anon({word})"))],
                Node::Rescale(x, u) => {
                    vec![t("rescale("), n(*x), Part::Text(format!(", \"{u}\")"))]
                }
                Node::Filter(Filter::Instance(i), x) => {
                    let mut s = String::from(")[");
                    escaped(&mut s, i, &[']', '\\']);
                    s.push(']');
                    vec![t("("), n(*x), Part::Text(s)]
                }
                Node::Filter(Filter::Regex { pattern, invert }, x) => {
                    let mut s = String::from(if *invert { "matchinst(!/" } else { "matchinst(/" });
                    escaped(&mut s, pattern, &['/', '\\']);
                    s.push_str("/, ");
                    vec![Part::Text(s), n(*x), t(")")]
                }
            };
            todo.extend(pieces.into_iter().rev());
        }
        f.write_str(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_stay_small() {
        // a configuration of 1,000 metrics holds some thousands of nodes;
        // the rare metadata of mkconst() and novalue() lives in a box
        let size = std::mem::size_of::<Node>();
        assert!(size <= 40, "a Node takes {size} bytes");
    }
}
