//! PCP archives, versions 2 and 3 (LOGARCHIVE(5)).
//!
//! This crate decodes the on-disk records without doing I/O: a caller
//! hands it bytes (a whole file, or a record read from one) and gets typed
//! records back. Every read is bounds-checked; malformed input is
//! `PM_ERR_LOGREC` (or `PM_ERR_LABEL` for a bad label), never a panic.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod archive;
pub mod files;
mod instances;
mod interp;
pub mod labels;
mod logread;
pub mod lzw;
pub mod meta;
mod multi;
pub mod raw;
mod record;
pub mod replay;
mod volume;

pub use pcp_core::x87::timestamp_sub;
pub use replay::{Mode, Replay};
