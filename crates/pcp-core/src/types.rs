//! Metric value types (`PM_TYPE_*`) and semantics (`PM_SEM_*`).
//!
//! Both are open sets on the wire and in archives (a descriptor may carry any
//! integer), so they are newtypes over the C integer with named constants,
//! not closed enums.

use std::fmt;

/// The data type of a metric's values (`pmDesc.type`).
#[doc(alias = "PM_TYPE")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MetricType(pub i32);

impl MetricType {
    /// `PM_TYPE_NOSUPPORT`: the metric is known but not supported here.
    #[doc(alias = "PM_TYPE_NOSUPPORT")]
    pub const NOSUPPORT: MetricType = MetricType(-1);
    /// `PM_TYPE_32`: 32-bit signed integer.
    #[doc(alias = "PM_TYPE_32")]
    pub const I32: MetricType = MetricType(0);
    /// `PM_TYPE_U32`: 32-bit unsigned integer.
    #[doc(alias = "PM_TYPE_U32")]
    pub const U32: MetricType = MetricType(1);
    /// `PM_TYPE_64`: 64-bit signed integer.
    #[doc(alias = "PM_TYPE_64")]
    pub const I64: MetricType = MetricType(2);
    /// `PM_TYPE_U64`: 64-bit unsigned integer.
    #[doc(alias = "PM_TYPE_U64")]
    pub const U64: MetricType = MetricType(3);
    /// `PM_TYPE_FLOAT`: 32-bit IEEE floating point.
    #[doc(alias = "PM_TYPE_FLOAT")]
    pub const FLOAT: MetricType = MetricType(4);
    /// `PM_TYPE_DOUBLE`: 64-bit IEEE floating point.
    #[doc(alias = "PM_TYPE_DOUBLE")]
    pub const DOUBLE: MetricType = MetricType(5);
    /// `PM_TYPE_STRING`: a NUL-terminated byte string.
    #[doc(alias = "PM_TYPE_STRING")]
    pub const STRING: MetricType = MetricType(6);
    /// `PM_TYPE_AGGREGATE`: opaque binary data.
    #[doc(alias = "PM_TYPE_AGGREGATE")]
    pub const AGGREGATE: MetricType = MetricType(7);
    /// `PM_TYPE_AGGREGATE_STATIC`: opaque binary data held statically.
    #[doc(alias = "PM_TYPE_AGGREGATE_STATIC")]
    pub const AGGREGATE_STATIC: MetricType = MetricType(8);
    /// `PM_TYPE_EVENT`: a packed array of event records.
    #[doc(alias = "PM_TYPE_EVENT")]
    pub const EVENT: MetricType = MetricType(9);
    /// `PM_TYPE_HIGHRES_EVENT`: a packed array of high-resolution event records.
    #[doc(alias = "PM_TYPE_HIGHRES_EVENT")]
    pub const HIGHRES_EVENT: MetricType = MetricType(10);
    /// `PM_TYPE_UNKNOWN`: type not known (used in value blocks, not descriptors).
    #[doc(alias = "PM_TYPE_UNKNOWN")]
    pub const UNKNOWN: MetricType = MetricType(255);

    /// `pmTypeStr`: the terse name, e.g. `32`, `U64`, `AGGREGATE`, or `???`.
    #[doc(alias = "pmTypeStr")]
    #[doc(alias = "pmTypeStr_r")]
    pub fn name(self) -> &'static str {
        const NAMES: [&str; 11] = [
            "32",
            "U32",
            "64",
            "U64",
            "FLOAT",
            "DOUBLE",
            "STRING",
            "AGGREGATE",
            "AGGREGATE_STATIC",
            "EVENT",
            "HIGHRES_EVENT",
        ];
        match self.0 {
            t @ 0..=10 => NAMES[t as usize],
            -1 => "NO_SUPPORT",
            255 => "UNKNOWN",
            _ => "???",
        }
    }

    /// The long description `pmPrintDesc` (and so `pminfo -d`) prints,
    /// e.g. `32-bit unsigned int`; `None` for an unknown type.
    pub fn description(self) -> Option<&'static str> {
        Some(match self {
            MetricType::I32 => "32-bit int",
            MetricType::U32 => "32-bit unsigned int",
            MetricType::I64 => "64-bit int",
            MetricType::U64 => "64-bit unsigned int",
            MetricType::FLOAT => "float",
            MetricType::DOUBLE => "double",
            MetricType::STRING => "string",
            MetricType::AGGREGATE => "aggregate",
            MetricType::AGGREGATE_STATIC => "static aggregate",
            MetricType::EVENT => "event record array",
            MetricType::HIGHRES_EVENT => "highres event record array",
            _ => return None,
        })
    }

    /// Is this one of the numeric types (32, U32, 64, U64, FLOAT, DOUBLE)?
    pub fn is_numeric(self) -> bool {
        (0..=5).contains(&self.0)
    }

    /// The size in bytes of a value of this type when it has a fixed size.
    pub fn fixed_size(self) -> Option<usize> {
        match self {
            MetricType::I32 | MetricType::U32 | MetricType::FLOAT => Some(4),
            MetricType::I64 | MetricType::U64 | MetricType::DOUBLE => Some(8),
            _ => None,
        }
    }
}

impl fmt::Display for MetricType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The semantics of a metric's values (`pmDesc.sem`).
#[doc(alias = "PM_SEM")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Semantics(pub i32);

impl Semantics {
    /// `PM_SEM_COUNTER`: a cumulative, monotonically increasing counter.
    #[doc(alias = "PM_SEM_COUNTER")]
    pub const COUNTER: Semantics = Semantics(1);
    /// `PM_SEM_INSTANT`: an instantaneous value in a continuous domain.
    #[doc(alias = "PM_SEM_INSTANT")]
    pub const INSTANT: Semantics = Semantics(3);
    /// `PM_SEM_DISCRETE`: an instantaneous value in a discrete domain.
    #[doc(alias = "PM_SEM_DISCRETE")]
    pub const DISCRETE: Semantics = Semantics(4);

    /// `pmSemStr`: `counter`, `instant`, `discrete`, or `???`.
    #[doc(alias = "pmSemStr")]
    #[doc(alias = "pmSemStr_r")]
    pub fn name(self) -> &'static str {
        match self {
            Semantics::COUNTER => "counter",
            Semantics::INSTANT => "instant",
            Semantics::DISCRETE => "discrete",
            _ => "???",
        }
    }
}

impl fmt::Display for Semantics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
