//! The Performance Metrics API (PMAPI) of Performance Co-Pilot, in Rust.
//!
//! A [`Context`] is a value, not a global: it is `Send`, and any number of
//! them may be used from any number of threads.
//!
//! Today a context is a loaded name space; host (pmcd), archive and local
//! sources plug into the same facade as they arrive.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod archive;
pub mod config;
pub mod context;
pub mod derived;
pub mod host;
pub mod labels;
pub mod profile;
pub mod timeparse;
pub mod timezone;
pub mod transport;

pub use context::{Context, PmnsLocation};
pub use pcp_core::*;
