//! Core types of the Performance Co-Pilot PMAPI, with libpcp's exact
//! encodings and text forms: metric identifiers, instance domains, types,
//! semantics, units, values and error codes. No I/O happens here.
//!
//! Every public item names its C counterpart as a doc alias, so searching
//! the documentation for `pmUnitsStr` or `pmExtractValue` finds it.
//!
//! Every other crate of pcp-rs builds on these types: the name space
//! (`pcp-pmns`), the pmcd wire codec (`pcp-pdu`), derived metrics
//! (`pcp-derived`), archives (`pcp-archive`), the Linux metrics of local
//! contexts (`pcp-linux`) and the `pcp` facade, which re-exports them.
//!
//! ```
//! use pcp_core::{extract_value, InDom, MetricType, PmError, PmId, Units, Value};
//!
//! // kernel.all.load: PMID 60.2.0, instance domain 60.2, no units
//! let pmid = PmId::new(60, 2, 0);
//! assert_eq!(pmid.to_string(), "60.2.0");
//! assert_eq!(InDom::new(60, 2).to_string(), "60.2");
//!
//! // units read and written as pmParseUnitsStr and pmUnitsStr do
//! let rate: Units = "Kbyte / sec".parse().unwrap();
//! assert_eq!((rate.dim_space(), rate.dim_time()), (1, -1));
//! assert_eq!(rate.to_string(), "Kbyte / sec");
//!
//! // a 32-bit value held in place, read as pmExtractValue reads it
//! let v = Value::Insitu(-3);
//! assert_eq!(extract_value(&v, MetricType::I32, MetricType::DOUBLE).unwrap().as_f64(), Some(-3.0));
//! let err = extract_value(&v, MetricType::I32, MetricType::U32).unwrap_err();
//! assert_eq!(err, PmError::PM_ERR_SIGN);
//! assert_eq!(err.to_string(), "Negative value in conversion to unsigned");
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod debug;
pub mod desc;
pub mod error;
mod errtext;
pub mod event;
pub mod format;
pub mod ids;
pub mod labels;
pub mod time;
pub mod types;
pub mod units;
pub mod value;

/// Tool support, not the PMAPI: the C library behaviours the command-line
/// tools need to print exactly what PCP's print (glibc's `printf` of
/// doubles, `strtod` and `strtol`, the x87's long double arithmetic libpcp
/// does time in) and the hasher the crates' tables use. These follow the
/// tools' needs and may change in any release.
pub mod support {
    pub mod cfmt;
    pub mod hash;
    pub mod strtod;
    pub mod x87;
}

pub use desc::Desc;
pub use error::{err_str, Error, PmError, PmResult};
pub use ids::{InDom, PmId, PM_IN_NULL};
pub use time::{LocalTime, Timestamp, Utc};
pub use types::{MetricType, Semantics};
pub use units::{conv_scale, parse_units, Units};
pub use value::{
    extract_value, AtomValue, BlockData, FetchResult, InstValue, Value, ValueBlock, ValueFormat, ValueSet,
};
