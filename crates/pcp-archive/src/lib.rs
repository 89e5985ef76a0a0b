//! PCP archives, versions 2 and 3 (LOGARCHIVE(5)).
//!
//! This crate decodes the on-disk records without doing I/O: a caller
//! hands it bytes (a whole file, or a record read from one) and gets typed
//! records back. Every read is bounds-checked; malformed input is
//! `PM_ERR_LOGREC` (or `PM_ERR_LABEL` for a bad label), never a panic.
// (`deny`, not `forbid`: one module, `mapped`, maps volumes into memory)
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod ahead;
pub mod archive;
pub mod dumpread;
pub mod files;
mod instances;
mod interp;
pub mod labels;
mod ldouble;
mod logread;
pub mod lzw;
mod mapped;
pub mod meta;
mod multi;
pub mod raw;
pub mod replay;
pub mod thread;

pub use ldouble::timestamp_sub;
pub use logread::{BackCheck, Premap};
pub use replay::{Mode, Replay};
