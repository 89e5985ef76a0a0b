//! The Performance Metrics API (PMAPI) of Performance Co-Pilot, in Rust.
//!
//! A [`Context`] is a value, not a global: it is `Send`, and any number of
//! them may be used from any number of threads.
//!
//! A context is a name space and a metrics source: none (a name space
//! loaded from a file), an archive, the local machine (its /proc and /sys
//! read in-process, see [`local`]), or pmcd on a host (see [`host`]).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod archive;
pub mod config;
pub mod context;
pub mod derived;
pub mod fetchgroup;
pub mod host;
pub mod labels;
pub mod local;
pub mod profile;
pub mod source;
pub mod spec;
pub mod timeparse;
pub mod timezone;
pub mod transport;

pub use context::{
    ArchiveOptions, Context, Diagnostic, HostOptions, Instance, LocalOptions, Mode, PmnsLocation, TextLevel, TimeZone,
};
pub use fetchgroup::FetchGroup;
pub use pcp_core::*;
pub use source::{MetricSource, RemoteNames};
