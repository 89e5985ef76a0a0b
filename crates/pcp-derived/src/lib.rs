//! Derived metrics: the client-side expression language of Performance
//! Co-Pilot (`pmRegisterDerived(3)`), its registration tables and its
//! configuration files, with libpcp 6.0.3's diagnostics byte for byte.
//!
//! It sits on `pcp-core` alone (descriptors, units, values); the `pcp`
//! facade is its user, binding it to contexts, which supply the metric
//! catalog and the fetched values.
//!
//! Text goes in, syntax trees and diagnostics come out, and values in,
//! values out; nothing here reads files, looks up metrics or fetches
//! values (configuration files come through a callback, descriptors and
//! instance names through traits). The pieces, in pipeline order:
//!
//! - [`lex`]: the scanner;
//! - [`parse`](mod@parse): the parser (an LALR(1) automaton with yacc's error
//!   recovery, which is what decides libpcp's error positions and
//!   messages) producing an [`Expr`];
//! - [`regex`]: the syntax of `matchinst()` patterns;
//! - [`registry`]: global and per-context registration (names, PMIDs);
//! - [`config`]: configuration files and `$PCP_DERIVED_CONFIG`;
//! - [`check`]: semantic checks against a context's metrics (a
//!   [`check::Catalog`]), giving every node its descriptor;
//! - [`eval`]: the values of checked metrics, computed from the values a
//!   fetch returned for their operands ([`prefetch`], [`postfetch`], an
//!   [`Evaluator`] per metric and context).
//!
//! ```
//! use pcp_derived::{parse, Node, Registry};
//!
//! // precedence and associativity as libpcp's: a-b>c+d is (a-b)>(c+d)
//! let e = parse("a-b>c+d").unwrap();
//! assert_eq!(e.to_string(), "((a - b) > (c + d))");
//!
//! // registration: PMIDs 511.0.3 upwards (after libpcp's anonymous
//! // event.flags and event.missed), libpcp's messages
//! let mut r = Registry::new();
//! let pmid = r.register("disk.dev.avgsz", "delta(disk.dev.total_bytes) / delta(disk.dev.total)").unwrap();
//! assert_eq!(pmid.0, 511 << 22 | 3);
//! let err = r.register_metric("my.disk.rates", "4rat(disk.dev.read)").unwrap_err();
//! assert_eq!(err, b"Error: pmRegisterDerivedMetric(\"my.disk.rates\", ...)\n4rat(disk.dev.read)\n ^\n");
//! let tree = r.get("disk.dev.avgsz").unwrap().expr.tree().unwrap();
//! assert!(matches!(tree[tree.root()], Node::Binary(..)));
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod ast;
pub mod check;
pub mod config;
pub mod eval;
mod grammar;
#[cfg(test)]
mod lalr;
pub mod lex;
pub mod parse;
pub mod regex;
pub mod registry;
pub mod trace;
#[rustfmt::skip]
mod tables;

pub use ast::{BinOp, Constant, Expr, Filter, Func, Metadata, Node, NodeId};
pub use config::{ConfigFiles, Environment, PathKind};
pub use eval::{
    postfetch, postfetch_into, prefetch, prefetch_into, CounterDecrease, Evaluator, Instances, NoInstances, Patterns,
};
pub use grammar::{Tok, Word};
pub use parse::{parse, parse_bytes, parse_traced, recognises, ParseState, SyntaxError};
pub use registry::{add_message, register_message, AddError, ContextTable, Definition, LazyExpr, Registry};
