//! Derived metrics: the client-side expression language of Performance
//! Co-Pilot (`pmRegisterDerived(3)`), its registration tables and its
//! configuration files, with libpcp 6.0.3's diagnostics byte for byte.
//!
//! Text goes in, syntax trees and diagnostics come out; nothing here reads
//! files, looks up metrics or fetches values (configuration files come
//! through a callback). The pieces, in pipeline order:
//!
//! - [`lex`]: the scanner;
//! - [`parse`]: the parser (an LALR(1) automaton with yacc's error
//!   recovery, which is what decides libpcp's error positions and
//!   messages) producing an [`Expr`];
//! - [`regex`]: the syntax of `matchinst()` patterns;
//! - [`registry`]: global and per-context registration (names, PMIDs);
//! - [`config`]: configuration files and `$PCP_DERIVED_CONFIG`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod ast;
pub mod config;
pub mod grammar;
#[cfg(test)]
mod lalr;
pub mod lex;
pub mod parse;
pub mod regex;
pub mod registry;
#[rustfmt::skip]
mod tables;

pub use ast::{BinOp, Constant, Expr, Filter, Func, Metadata};
pub use config::{ConfigFiles, Environment, PathKind};
pub use parse::{parse, parse_bytes, parse_traced, ParseState, SyntaxError};
pub use registry::{register_message, ContextTable, Definition, Registry};
