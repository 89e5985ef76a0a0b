//! The Performance Metrics Name Space (PMNS): the `pmcpp` preprocessor that
//! ASCII PMNS files pass through, the loader of the ASCII format, and the
//! name tree with the PMAPI's name services.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod ascii;
pub mod cpp;
pub mod tree;

pub use ascii::{load, LoadOptions, Loaded};
pub use tree::Pmns;
