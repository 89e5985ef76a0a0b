//! Metric descriptors (`pmDesc`).

use crate::ids::{InDom, PmId};
use crate::types::{MetricType, Semantics};
use crate::units::Units;
use std::fmt;

/// Everything needed to interpret a metric's values: its PMID, type,
/// instance domain, semantics and units.
#[doc(alias = "pmDesc")]
#[doc(alias = "pmPrintDesc")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Desc {
    /// The metric.
    pub pmid: PmId,
    /// The values' data type.
    pub ty: MetricType,
    /// The instance domain, or `InDom::NULL` for a singular metric.
    pub indom: InDom,
    /// The values' semantics.
    pub sem: Semantics,
    /// The values' dimension and scale.
    pub units: Units,
}

/// `pmPrintDesc`: the two indented lines `pminfo -d` prints (each ending in
/// a newline), or the single "Not Supported" line.
///
/// ```
/// use pcp_core::{Desc, InDom, MetricType, PmId, Semantics, Units};
///
/// let desc = Desc {
///     pmid: PmId::new(60, 0, 20),
///     ty: MetricType::U64,
///     indom: InDom::NULL,
///     sem: Semantics::COUNTER,
///     units: "millisec".parse().unwrap(),
/// };
/// assert_eq!(
///     desc.to_string(),
///     "    Data Type: 64-bit unsigned int  InDom: PM_INDOM_NULL 0xffffffff\n    \
///      Semantics: counter  Units: millisec\n"
/// );
/// assert_eq!((desc.ty.to_string(), desc.sem.to_string()), ("U64".to_string(), "counter".to_string()));
/// ```
impl fmt::Display for Desc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ty == MetricType::NOSUPPORT {
            return writeln!(f, "    Data Type: Not Supported");
        }
        match self.ty.description() {
            Some(t) => write!(f, "    Data Type: {t}")?,
            None => write!(f, "    Data Type: ??? ({})", self.ty.0)?,
        }
        writeln!(f, "  InDom: {} 0x{:x}", self.indom, self.indom.0)?;
        match self.sem.name() {
            "???" => write!(f, "    Semantics: ??? ({})", self.sem.0)?,
            s => write!(f, "    Semantics: {s}")?,
        }
        writeln!(f, "  Units: {}", self.units.describe())
    }
}
