//! The syntax tree of a derived-metric expression.

pub use crate::grammar::{BinOp, Func};
use pcp_core::{MetricType, Semantics, Units};
use std::fmt;

/// An expression, as parsed (nothing looked up yet).
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// An unsigned 32-bit constant, its text as written (`007` stays
    /// `007`), or a `mkconst(INTEGER, ...)`.
    Integer(Constant),
    /// A double constant, its text as written (`.5`, `1.`, even `.`),
    /// or a `mkconst(DOUBLE, ...)`.
    Double(Constant),
    /// A metric name.
    Name(String),
    /// `-expr`
    Neg(Box<Expr>),
    /// `!expr`
    Not(Box<Expr>),
    /// `left op right`
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `guard ? then : otherwise`; at most one of the branches is
    /// [`Expr::NoValue`].
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `novalue(...)`, only ever a branch of a ternary.
    NoValue(Metadata),
    /// A function of one operand. `avg`, `count`, `max`, `min`, `sum` and
    /// `defined` always have an [`Expr::Name`] operand.
    Func(Func, Box<Expr>),
    /// `anon(PM_TYPE_...)`: libpcp's anonymous metrics (the event record
    /// fields); the word as written, checked later.
    Anon(String),
    /// `rescale(expr, "units")`
    Rescale(Box<Expr>, Units),
    /// Instance selection: `name[inst]`, `(expr)[inst]` or
    /// `matchinst([!]/regex/, expr)`.
    Filter(Filter, Box<Expr>),
}

/// A numeric constant.
#[derive(Clone, Debug, PartialEq)]
pub struct Constant {
    /// The number as written.
    pub text: String,
    /// The metadata of a `mkconst()`; `None` for a bare number.
    pub meta: Option<Metadata>,
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

/// Writes `s` as a quoted string with `"` and `\` escaped.
fn quoted(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    f.write_str("\"")?;
    for c in s.chars() {
        if c == '"' || c == '\\' {
            f.write_str("\\")?;
        }
        write!(f, "{c}")?;
    }
    f.write_str("\"")
}

/// The expression fully parenthesised, re-parseable text (for messages,
/// tests and debugging): `((a + b) * -(c))`.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let meta_args = |f: &mut fmt::Formatter<'_>, m: &Metadata, mut first: bool| -> fmt::Result {
            let mut sep = |f: &mut fmt::Formatter<'_>| {
                let s = if first { "" } else { ", " };
                first = false;
                f.write_str(s)
            };
            if let Some(t) = m.ty {
                sep(f)?;
                write!(f, "type={}", t.name())?;
            }
            if let Some(s) = m.sem {
                sep(f)?;
                let word = match s {
                    Semantics::COUNTER => "counter",
                    Semantics::INSTANT => "instant",
                    _ => "discrete",
                };
                write!(f, "semantics={word}")?;
            }
            if let Some(u) = m.units {
                sep(f)?;
                f.write_str("units=")?;
                quoted(f, &u.to_string())?;
            }
            if let Some(name) = &m.meta {
                sep(f)?;
                write!(f, "meta={name}")?;
            }
            Ok(())
        };
        match self {
            Expr::Integer(c) | Expr::Double(c) => match &c.meta {
                None => f.write_str(&c.text),
                Some(m) => {
                    write!(f, "mkconst({}, ", c.text)?;
                    meta_args(f, m, true)?;
                    f.write_str(")")
                }
            },
            Expr::Name(n) => f.write_str(n),
            Expr::Neg(e) => write!(f, "-({e})"),
            Expr::Not(e) => write!(f, "!({e})"),
            Expr::Binary(op, l, r) => write!(f, "({l} {} {r})", op.symbol()),
            Expr::Ternary(g, t, e) => write!(f, "({g} ? {t} : {e})"),
            Expr::NoValue(m) => {
                f.write_str("novalue(")?;
                meta_args(f, m, true)?;
                f.write_str(")")
            }
            Expr::Func(func, e) => write!(f, "{}({e})", func.name()),
            Expr::Anon(t) => write!(f, "anon({t})"),
            Expr::Rescale(e, u) => {
                write!(f, "rescale({e}, ")?;
                quoted(f, &u.to_string())?;
                f.write_str(")")
            }
            Expr::Filter(Filter::Instance(i), e) => {
                write!(f, "({e})[")?;
                for c in String::from_utf8_lossy(i).chars() {
                    if c == ']' || c == '\\' {
                        f.write_str("\\")?;
                    }
                    write!(f, "{c}")?;
                }
                f.write_str("]")
            }
            Expr::Filter(Filter::Regex { pattern, invert }, e) => {
                write!(f, "matchinst({}/", if *invert { "!" } else { "" })?;
                for c in String::from_utf8_lossy(pattern).chars() {
                    if c == '/' || c == '\\' {
                        f.write_str("\\")?;
                    }
                    write!(f, "{c}")?;
                }
                write!(f, "/, {e})")
            }
        }
    }
}
