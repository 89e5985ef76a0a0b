//! PCP archives, versions 2 and 3 (LOGARCHIVE(5)).
//!
//! This crate decodes the on-disk records without doing I/O: a caller
//! hands it bytes (a whole file, or a record read from one) and gets typed
//! records back. Every read is bounds-checked; malformed input is
//! `PM_ERR_LOGREC` (or `PM_ERR_LABEL` for a bad label), never a panic.
//! Above the decoders, [`archive::Archive`] opens an archive's files by
//! name and [`Replay`] replays it as a PMAPI archive context does.
//!
//! It sits on `pcp-core` (PMIDs, descriptors, values, timestamps); the
//! `pcp` facade's archive contexts replay through it, and pcp-tools'
//! `pmdumplog` reads its records.
//!
//! ```
//! use pcp_archive::archive::Archive;
//! use pcp_archive::Replay;
//! use pcp_core::{PmId, Value};
//!
//! // four samples a second apart, logged by pmlogger from the sample PMDA
//! let archive = Archive::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/v3")).unwrap();
//! assert_eq!(archive.label().hostname, b"vm");
//! assert_eq!(archive.label().start.to_string(), "2026-11-21T18:25:14.786674603Z");
//!
//! // fetch sample.long.one and sample.colour (three instances) record by record
//! let mut replay = Replay::new(archive).unwrap();
//! let (one, colour) = (PmId::new(29, 0, 10), PmId::new(29, 0, 5));
//! let result = replay.fetch(&[one, colour], &|_indom, _inst| true).unwrap();
//! assert_eq!(result.timestamp.to_string(), "2026-11-21T18:25:14.806581997Z");
//! assert_eq!(result.sets[0].values.as_ref().unwrap()[0].value, Value::Insitu(1));
//! let colours: Vec<(i32, Value)> =
//!     result.sets[1].values.as_ref().unwrap().iter().map(|v| (v.inst, v.value.clone())).collect();
//! assert_eq!(colours, [(0, Value::Insitu(113)), (1, Value::Insitu(214)), (2, Value::Insitu(315))]);
//! assert_eq!(replay.end().unwrap().to_string(), "2026-11-21T18:25:17.806933831Z");
//! ```
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
mod metatrace;
mod multi;
pub mod opentrace;
mod pdutrace;
pub mod raw;
mod record;
pub mod replay;
mod volume;

pub use pcp_core::support::x87::timestamp_sub;
pub use replay::{IgnoreMarks, Mode, Replay};
