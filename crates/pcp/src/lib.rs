//! The Performance Metrics API (PMAPI) of Performance Co-Pilot, in Rust.
//!
//! A [`Context`] is a value, not a global: it is `Send`, and any number of
//! them may be used from any number of threads.
//!
//! A context is a name space and a metrics source: none (a name space
//! loaded from a file), an archive, the local machine (its /proc and /sys
//! read in-process, see [`local`]), or pmcd on a host (see [`host`]).
//! Derived metrics ([`derived`], pmRegisterDerived(3)) work over every
//! source, and [`fetchgroup`] does what pmFetchGroup does.
//!
//! # Replaying an archive, counters as rates
//!
//! Ten samples a second apart, of every instance of two metrics with
//! their names, the counter as a rate:
//!
//! ```
//! use pcp::{fetchgroup::FetchGroup, Context, Mode};
//! use std::time::Duration;
//! # let archive = concat!(env!("CARGO_MANIFEST_DIR"), "/../pcp-archive/tests/fixtures/dyn");
//! let mut ctx = Context::archive(archive).open()?;
//! ctx.replay(Mode::Interp, ctx.archive_start()?, Duration::from_secs(1))?;
//! let mut group = FetchGroup::new(ctx);
//! let levels = group.add("sample.dynamic.instant")?;
//! let rates = group.add("sample.dynamic.counter")?; // a counter: a rate
//! for _ in 0..10 {
//!     group.fetch()?;
//!     for v in group.values(levels).iter().chain(group.values(rates)) {
//!         println!("{} {:?}", v.name().unwrap_or("-"), v.value);
//!     }
//! }
//! # Ok::<(), pcp::PmError>(())
//! ```
//!
//! # A host
//!
//! pmcd on a host (this needs one running, so it is not run here):
//!
//! ```no_run
//! let mut ctx = pcp::Context::host("localhost").open()?;
//! let load = ctx.lookup("kernel.all.load")?;
//! let result = ctx.fetch(&[load])?;
//! println!("{} values at {}", result.sets[0].values.as_ref().map_or(0, Vec::len), result.timestamp);
//! # Ok::<(), pcp::PmError>(())
//! ```
//!
//! # The local machine, without pmcd
//!
//! ```
//! use pcp::{AtomValue, Context, MetricType};
//! # let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../pcp-linux/tests/snapshot/vm1");
//! // Context::local().open() reads this machine; here, a copy of another's
//! let mut ctx = Context::local().root(root).open()?;
//! let ncpu = ctx.lookup("hinv.ncpu")?;
//! let result = ctx.fetch(&[ncpu])?;
//! let value = &result.sets[0].values.as_ref().map_err(|e| *e)?[0].value;
//! let n = pcp::extract_value(value, MetricType::U32, MetricType::U32)?;
//! assert!(matches!(n, AtomValue::U32(n) if n > 0));
//! # Ok::<(), pcp::PmError>(())
//! ```
//!
//! # Derived metrics
//!
//! Global ones (pmRegisterDerived(3)), in every context given the
//! registry, registered before or after it opened; and a context's own
//! (`pmAddDerived`):
//!
//! ```
//! use pcp::{derived::SharedRegistry, Context, Semantics};
//! # let archive = concat!(env!("CARGO_MANIFEST_DIR"), "/../pcp-archive/tests/fixtures/v3");
//! let registry = SharedRegistry::default();
//! let mut ctx = Context::archive(archive).derived(&registry).open()?;
//! let global = registry.register("my.hundreds", "sample.double.hundred / 100").expect("a good expression");
//! assert_eq!(ctx.lookup("my.hundreds")?, global);
//! let own = ctx.add_derived("my.ten_hundreds", "sample.double.hundred * 10").expect("a good expression");
//! assert_eq!(ctx.lookup_desc(own)?.sem, Semantics::INSTANT);
//! # Ok::<(), pcp::PmError>(())
//! ```
//!
//! # Many contexts, many threads
//!
//! Contexts share nothing, so each thread can have its own:
//!
//! ```
//! # let archive = concat!(env!("CARGO_MANIFEST_DIR"), "/../pcp-archive/tests/fixtures/v3");
//! let counts: Vec<usize> = std::thread::scope(|s| {
//!     let workers: Vec<_> = (0..4)
//!         .map(|_| {
//!             s.spawn(|| -> Result<usize, pcp::PmError> {
//!                 let mut ctx = pcp::Context::archive(archive).open()?;
//!                 let bin = ctx.lookup("sample.bin")?;
//!                 let mut n = 0;
//!                 while let Ok(result) = ctx.fetch(&[bin]) {
//!                     n += result.sets[0].values.as_ref().map_or(0, Vec::len);
//!                 }
//!                 Ok(n)
//!             })
//!         })
//!         .collect();
//!     workers.into_iter().map(|w| w.join().unwrap().unwrap()).collect()
//! });
//! assert!(counts.iter().all(|&n| n > 0 && n == counts[0]));
//! ```
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
// connections to pmcd, for the host source and its tests (a fake pmcd):
// not part of the API
#[doc(hidden)]
pub mod transport;

pub use context::{
    ArchiveOptions, Context, Diagnostic, HostOptions, Instance, LocalOptions, Mode, PmnsLocation, TextLevel, TimeZone,
};
pub use fetchgroup::FetchGroup;
pub use pcp_core::{
    conv_scale, err_str, extract_value, parse_units, AtomValue, BlockData, Desc, Error, FetchResult, InDom, InstValue,
    LocalTime, MetricType, PmError, PmId, PmResult, Semantics, Timestamp, Units, Utc, Value, ValueBlock, ValueFormat,
    ValueSet, PM_IN_NULL,
};
/// Errors (`Subject`: what failed), event records
/// (`pmUnpackEventRecords`) and value printing (`pmPrintValue`,
/// `pmAtomStr`) and debug options (`pmSetDebug`), from pcp-core.
pub use pcp_core::{debug, error, event, format};
pub use source::{MetricSource, RemoteNames};
