//! Core types of the Performance Co-Pilot PMAPI, with libpcp's exact
//! encodings and text forms: metric identifiers, instance domains, types,
//! semantics, units, values and error codes. No I/O happens here.
//!
//! Every public item names its C counterpart as a doc alias, so searching
//! the documentation for `pmUnitsStr` or `pmExtractValue` finds it.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod cfmt;
pub mod desc;
pub mod error;
mod errtext;
pub mod event;
pub mod format;
pub mod hash;
pub mod ids;
pub mod labels;
pub mod strtod;
pub mod time;
pub mod types;
pub mod units;
pub mod value;
pub mod x87;

pub use desc::Desc;
pub use error::{err_str, PmError, PmResult};
pub use ids::{InDom, PmId, PM_IN_NULL};
pub use time::{LocalTime, Timestamp, Utc};
pub use types::{MetricType, Semantics};
pub use units::{conv_scale, parse_units, Units};
pub use value::{
    extract_value, AtomValue, BlockData, FetchResult, InstValue, Value, ValueBlock, ValueFormat, ValueSet,
};
