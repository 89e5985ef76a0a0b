//! Metric values: atoms (`pmAtomValue`), value blocks (`pmValueBlock`),
//! per-instance values (`pmValue`), value sets (`pmValueSet`), fetch
//! results (`pmResult` / `pmHighResResult`), and `pmExtractValue`.
//!
//! Numeric payloads of a [`ValueBlock`] are kept in little-endian order
//! whatever the host: the wire and archive codecs convert from and to their
//! big-endian forms, so values compare and print the same on every platform.

use crate::error::{PmError, PmResult};
use crate::ids::PmId;
use crate::time::Timestamp;
use crate::types::MetricType;
use std::fmt;

/// `PM_VAL_HDR_SIZE`: bytes of the vtype/vlen header of a value block.
pub const PM_VAL_HDR_SIZE: usize = 4;
/// `PM_VAL_VLEN_MAX`: the largest `vlen` a value block can declare.
pub const PM_VAL_VLEN_MAX: usize = 0x00ff_ffff;

/// A value with its type: the Rust form of the C union `pmAtomValue`.
#[doc(alias = "pmAtomValue")]
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum AtomValue {
    /// `PM_TYPE_32` (`l`).
    I32(i32),
    /// `PM_TYPE_U32` (`ul`).
    U32(u32),
    /// `PM_TYPE_64` (`ll`).
    I64(i64),
    /// `PM_TYPE_U64` (`ull`).
    U64(u64),
    /// `PM_TYPE_FLOAT` (`f`).
    Float(f32),
    /// `PM_TYPE_DOUBLE` (`d`).
    Double(f64),
    /// `PM_TYPE_STRING` (`cp`): the bytes of a C string, without its NUL.
    String(Vec<u8>),
    /// `PM_TYPE_AGGREGATE` and `PM_TYPE_AGGREGATE_STATIC` (`vbp`).
    Aggregate(ValueBlock),
    /// `PM_TYPE_EVENT` and `PM_TYPE_HIGHRES_EVENT`: the packed event array
    /// (`vbp`), its record count first.
    Event(ValueBlock),
}

impl AtomValue {
    /// The metric type this atom holds.
    pub fn metric_type(&self) -> MetricType {
        match self {
            AtomValue::I32(_) => MetricType::I32,
            AtomValue::U32(_) => MetricType::U32,
            AtomValue::I64(_) => MetricType::I64,
            AtomValue::U64(_) => MetricType::U64,
            AtomValue::Float(_) => MetricType::FLOAT,
            AtomValue::Double(_) => MetricType::DOUBLE,
            AtomValue::String(_) => MetricType::STRING,
            AtomValue::Aggregate(_) => MetricType::AGGREGATE,
            AtomValue::Event(b) => MetricType(b.vtype as i32),
        }
    }

    /// The numeric part of the C union as 8 little-endian bytes (zero for
    /// non-numeric atoms), as a reinterpreting C reader would see it.
    pub fn union_bits(&self) -> u64 {
        match *self {
            AtomValue::I32(v) => v as u32 as u64,
            AtomValue::U32(v) => v as u64,
            AtomValue::I64(v) => v as u64,
            AtomValue::U64(v) => v,
            AtomValue::Float(v) => v.to_bits() as u64,
            AtomValue::Double(v) => v.to_bits(),
            _ => 0,
        }
    }

    /// The value as a double, for numeric atoms.
    pub fn as_f64(&self) -> Option<f64> {
        Some(match *self {
            AtomValue::I32(v) => v as f64,
            AtomValue::U32(v) => v as f64,
            AtomValue::I64(v) => v as f64,
            AtomValue::U64(v) => v as f64,
            AtomValue::Float(v) => v as f64,
            AtomValue::Double(v) => v,
            _ => return None,
        })
    }
}

/// `pmAtomStr` of the atom with its own type.
///
/// ```
/// use pcp_core::AtomValue;
///
/// assert_eq!(AtomValue::I32(-42).to_string(), "-42");
/// // doubles as C's "%e" prints them
/// assert_eq!(AtomValue::Double(1.5).to_string(), "1.500000e+00");
/// // strings quoted
/// assert_eq!(AtomValue::String(b"sda".to_vec()).to_string(), "\"sda\"");
/// ```
impl fmt::Display for AtomValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bytes = crate::format::atom_str(Some(self), self.metric_type());
        f.write_str(&String::from_utf8_lossy(&bytes))
    }
}

/// A value too big (or of a type unsuitable) to travel in place: the bytes
/// after the 4-byte header of a C `pmValueBlock`, with its type byte.
/// `vlen` is `PM_VAL_HDR_SIZE + data.len()`.
///
/// The bytes of numbers (up to 16) are held in the block itself: fetches
/// return thousands of 64-bit values, and a heap allocation each was a
/// good part of what a fetch cost.
#[doc(alias = "pmValueBlock")]
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ValueBlock {
    /// The type byte (`vtype`): a `PM_TYPE_*` value, or 0 when unset.
    pub vtype: u8,
    /// The value's bytes (`vbuf`).
    pub data: BlockData,
}

/// The bytes of a [`ValueBlock`]: a vector of bytes that holds up to 16
/// in place.
pub type BlockData = smallvec::SmallVec<[u8; 16]>;

impl ValueBlock {
    /// A block holding `data` with type byte `vtype`.
    pub fn new(vtype: u8, data: impl Into<BlockData>) -> ValueBlock {
        ValueBlock { vtype, data: data.into() }
    }

    /// A block holding a copy of `data`.
    pub fn from_slice(vtype: u8, data: &[u8]) -> ValueBlock {
        ValueBlock { vtype, data: BlockData::from_slice(data) }
    }

    /// The C `vlen` field: header plus data.
    pub fn vlen(&self) -> usize {
        PM_VAL_HDR_SIZE + self.data.len()
    }

    /// A block from the value bytes as they travel in a PDU (numbers and
    /// event arrays big-endian), as libpcp's `__ntohpmValueBlock` turns
    /// them: the first 8 bytes of a 64-bit or double value and the first
    /// 4 of a float are reversed (a shorter block is left alone, where
    /// libpcp would read past it), and event arrays are walked with
    /// [`crate::event::to_host_order`]. Other types are bytes already.
    #[doc(alias = "__ntohpmValueBlock")]
    pub fn from_network(vtype: u8, bytes: &[u8]) -> ValueBlock {
        let mut data = BlockData::from_slice(bytes);
        swap_numeric(vtype, &mut data, true);
        ValueBlock { vtype, data }
    }

    /// The value bytes as they travel in a PDU (the inverse of
    /// [`ValueBlock::from_network`], libpcp's `__htonpmValueBlock`),
    /// appended to `out`.
    #[doc(alias = "__htonpmValueBlock")]
    pub fn write_network(&self, out: &mut Vec<u8>) {
        let at = out.len();
        out.extend_from_slice(&self.data);
        swap_numeric(self.vtype, &mut out[at..], false);
    }
}

/// Reverse the numeric part of a block's data for its type, or walk its
/// event array, between network and host order.
fn swap_numeric(vtype: u8, data: &mut [u8], to_host: bool) {
    let n = match MetricType(vtype as i32) {
        MetricType::I64 | MetricType::U64 | MetricType::DOUBLE => 8,
        MetricType::FLOAT => 4,
        MetricType::EVENT | MetricType::HIGHRES_EVENT => {
            let highres = MetricType(vtype as i32) == MetricType::HIGHRES_EVENT;
            if to_host {
                crate::event::to_host_order(data, highres)
            } else {
                crate::event::to_network_order(data, highres)
            }
            return;
        }
        _ => return,
    };
    if let Some(head) = data.get_mut(..n) {
        head.reverse();
    }
}

/// `PM_VAL_INSITU`, `PM_VAL_DPTR`, `PM_VAL_SPTR`: how a value set's values
/// are held.
#[doc(alias = "valfmt")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ValueFormat {
    /// `PM_VAL_INSITU` (0): 32 bits held in place.
    Insitu = 0,
    /// `PM_VAL_DPTR` (1): in a value block.
    Dptr = 1,
    /// `PM_VAL_SPTR` (2): in a statically held value block.
    Sptr = 2,
}

/// One value as it arrives in a result: 32 bits in place, or a value block.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Value {
    /// `PM_VAL_INSITU`: the 32-bit `lval`.
    Insitu(i32),
    /// `PM_VAL_DPTR`/`PM_VAL_SPTR`: the `pval` block.
    Block(ValueBlock),
}

impl Value {
    /// The value format this value needs.
    pub fn format(&self) -> ValueFormat {
        match self {
            Value::Insitu(_) => ValueFormat::Insitu,
            Value::Block(_) => ValueFormat::Dptr,
        }
    }

    /// Pack an atom the way a PMDA would: 32-bit integers in place, all
    /// else in a block of the atom's type.
    ///
    /// ```
    /// use pcp_core::{AtomValue, MetricType, Value, ValueFormat};
    ///
    /// assert_eq!(Value::from_atom(&AtomValue::U32(7)), Value::Insitu(7));
    ///
    /// // strings keep their NUL in the block, as C's do
    /// let Value::Block(b) = Value::from_atom(&AtomValue::String(b"sda".to_vec())) else { panic!() };
    /// assert_eq!((b.vtype, &b.data[..], b.vlen()), (MetricType::STRING.0 as u8, &b"sda\0"[..], 8));
    ///
    /// // numbers held in blocks, little-endian whatever the host
    /// let v = Value::from_atom(&AtomValue::Double(0.5));
    /// assert_eq!(v.format(), ValueFormat::Dptr);
    /// let Value::Block(b) = v else { panic!() };
    /// assert_eq!(&b.data[..], &0.5f64.to_le_bytes()[..]);
    /// ```
    pub fn from_atom(atom: &AtomValue) -> Value {
        match atom {
            AtomValue::I32(v) => Value::Insitu(*v),
            AtomValue::U32(v) => Value::Insitu(*v as i32),
            AtomValue::I64(_) | AtomValue::U64(_) | AtomValue::Float(_) | AtomValue::Double(_) => {
                let mut v = Value::Insitu(0);
                v.set_atom(atom);
                v
            }
            AtomValue::String(s) => {
                let mut data = BlockData::with_capacity(s.len() + 1);
                data.extend_from_slice(s);
                data.push(0);
                Value::Block(ValueBlock::new(MetricType::STRING.0 as u8, data))
            }
            AtomValue::Aggregate(b) | AtomValue::Event(b) => Value::Block(b.clone()),
        }
    }

    /// [`Value::from_atom`] over this value: a block held here takes a
    /// number that goes in a block in place, its room kept.
    #[inline]
    pub fn set_atom(&mut self, atom: &AtomValue) {
        let Some((t, bytes, n)) = number_block(atom) else { return *self = Value::from_atom(atom) };
        match self {
            Value::Block(block) => {
                block.vtype = t.0 as u8;
                // (most often the block held a number of the same size:
                // overwritten where it is)
                match block.data.as_mut_slice() {
                    held @ [_, _, _, _, _, _, _, _] if n == 8 => held.copy_from_slice(&bytes),
                    _ => {
                        block.data.clear();
                        block.data.extend_from_slice(&bytes[..n]);
                    }
                }
            }
            Value::Insitu(_) => *self = Value::Block(ValueBlock::from_slice(t.0 as u8, &bytes[..n])),
        }
    }
}

/// The type and bytes (`n` of them) of a number packed in a block: 64-bit
/// integers, floats and doubles.
#[inline]
fn number_block(atom: &AtomValue) -> Option<(MetricType, [u8; 8], usize)> {
    let mut b = [0u8; 8];
    Some(match atom {
        AtomValue::I64(v) => (MetricType::I64, v.to_le_bytes(), 8),
        AtomValue::U64(v) => (MetricType::U64, v.to_le_bytes(), 8),
        AtomValue::Double(v) => (MetricType::DOUBLE, v.to_le_bytes(), 8),
        AtomValue::Float(v) => {
            b[..4].copy_from_slice(&v.to_le_bytes());
            (MetricType::FLOAT, b, 4)
        }
        _ => return None,
    })
}

/// One instance's value (`pmValue`).
#[doc(alias = "pmValue")]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct InstValue {
    /// The instance identifier (`PM_IN_NULL` for a singular metric).
    pub inst: i32,
    /// The value.
    pub value: Value,
}

/// The values of one metric in a result (`pmValueSet`).
///
/// `values` is the per-metric status: an error here is what C carries as a
/// negative `numval`.
#[doc(alias = "pmValueSet")]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ValueSet {
    /// The metric.
    pub pmid: PmId,
    /// Its values, or the reason it has none.
    pub values: Result<Vec<InstValue>, PmError>,
}

impl ValueSet {
    /// The C `numval`: the number of values, or a negative error code.
    pub fn numval(&self) -> i32 {
        match &self.values {
            Ok(v) => i32::try_from(v.len()).unwrap_or(i32::MAX),
            Err(e) => e.code(),
        }
    }

    /// The C `valfmt`: `Insitu` when every value is held in place.
    pub fn valfmt(&self) -> ValueFormat {
        match &self.values {
            Ok(v) if v.iter().any(|iv| matches!(iv.value, Value::Block(_))) => ValueFormat::Dptr,
            _ => ValueFormat::Insitu,
        }
    }
}

/// The result of a fetch (`pmResult`, `pmHighResResult`): a timestamp and
/// one value set per requested metric, in request order.
#[doc(alias = "pmResult")]
#[doc(alias = "pmHighResResult")]
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FetchResult {
    /// When the values were collected.
    pub timestamp: Timestamp,
    /// One value set per metric.
    pub sets: Vec<ValueSet>,
}

impl FetchResult {
    /// `pmSortInstances`: each value set's values in ascending order of
    /// instance identifier (sets holding an error are left as they are).
    /// libpcp compares by subtracting identifiers, which misorders
    /// identifiers more than `i32::MAX` apart; here they compare as
    /// numbers.
    #[doc(alias = "pmSortInstances")]
    #[doc(alias = "pmSortHighResInstances")]
    pub fn sort_instances(&mut self) {
        for set in &mut self.sets {
            if let Ok(values) = &mut set.values {
                values.sort_by_key(|v| v.inst);
            }
        }
    }
}

/// x86-64 conversions of floating point to integers: C's casts are
/// undefined out of range, and the instructions libpcp is compiled to
/// return the "integer indefinite" pattern for NaN; Rust's casts saturate
/// and return 0 for NaN. These reproduce what libpcp does on x86-64.
mod cvt {
    pub fn f64_to_i32(v: f64) -> i32 {
        if v.is_nan() {
            i32::MIN
        } else {
            v as i32
        }
    }
    pub fn f64_to_i64(v: f64) -> i64 {
        if v.is_nan() {
            i64::MIN
        } else {
            v as i64
        }
    }
    pub fn f64_to_u32(v: f64) -> u32 {
        // compiled as a 64-bit signed conversion, then truncated
        f64_to_i64(v) as u32
    }
    pub fn f64_to_u64(v: f64) -> u64 {
        if v.is_nan() {
            1 << 63
        } else {
            v as u64
        }
    }
}

/// Convert a value held as a double (from a DOUBLE or FLOAT source) with
/// libpcp's range checks; `limit32` etc. are the C comparisons' constants in
/// the source's precision.
struct FloatLimits {
    i32_abs: f64,
    u32_max: f64,
    i64_max: f64,
    u64_max: f64,
}

const DOUBLE_LIMITS: FloatLimits = FloatLimits {
    i32_abs: 2147483647.0,
    u32_max: 4294967295.0,
    i64_max: 9223372036854775807.0,
    u64_max: 18446744073709551615.0,
};

// the same constants rounded to float, as the C compares them
const FLOAT_LIMITS: FloatLimits = FloatLimits {
    i32_abs: 2147483647.0f32 as f64,
    u32_max: 4294967295.0f32 as f64,
    i64_max: 9223372036854775807.0f32 as f64,
    u64_max: 18446744073709551615.0f32 as f64,
};

/// `float_src` is the original value when the source is a FLOAT: a float
/// copied to a float keeps its exact bits (a signalling NaN stays one).
fn from_float(v: f64, lim: &FloatLimits, otype: MetricType, float_src: Option<f32>) -> PmResult<AtomValue> {
    Ok(match otype {
        MetricType::I32 if v.abs() >= lim.i32_abs => return Err(PmError::PM_ERR_TRUNC),
        MetricType::I32 => AtomValue::I32(cvt::f64_to_i32(v)),
        MetricType::U32 if v >= lim.u32_max => return Err(PmError::PM_ERR_TRUNC),
        MetricType::U32 if v < 0.0 => return Err(PmError::PM_ERR_SIGN),
        MetricType::U32 => AtomValue::U32(cvt::f64_to_u32(v)),
        MetricType::I64 if v >= lim.i64_max => return Err(PmError::PM_ERR_TRUNC),
        MetricType::I64 => AtomValue::I64(cvt::f64_to_i64(v)),
        MetricType::U64 if v >= lim.u64_max => return Err(PmError::PM_ERR_TRUNC),
        MetricType::U64 if v < 0.0 => return Err(PmError::PM_ERR_SIGN),
        MetricType::U64 => AtomValue::U64(cvt::f64_to_u64(v)),
        MetricType::FLOAT => AtomValue::Float(float_src.unwrap_or(v as f32)),
        MetricType::DOUBLE => AtomValue::Double(v),
        _ => return Err(PmError::PM_ERR_CONV),
    })
}

fn from_i64(v: i64, otype: MetricType) -> PmResult<AtomValue> {
    Ok(match otype {
        // no lower bound check here, as in libpcp: large negatives wrap
        MetricType::I32 if v > 0x7fff_ffff => return Err(PmError::PM_ERR_TRUNC),
        MetricType::I32 => AtomValue::I32(v as i32),
        MetricType::U32 if v > 0xffff_ffff => return Err(PmError::PM_ERR_TRUNC),
        MetricType::U32 if v < 0 => return Err(PmError::PM_ERR_SIGN),
        MetricType::U32 => AtomValue::U32(v as u32),
        MetricType::I64 => AtomValue::I64(v),
        MetricType::U64 if v < 0 => return Err(PmError::PM_ERR_SIGN),
        MetricType::U64 => AtomValue::U64(v as u64),
        MetricType::FLOAT => AtomValue::Float(v as f32),
        MetricType::DOUBLE => AtomValue::Double(v as f64),
        _ => return Err(PmError::PM_ERR_CONV),
    })
}

fn from_u64(v: u64, otype: MetricType) -> PmResult<AtomValue> {
    Ok(match otype {
        MetricType::I32 if v > 0x7fff_ffff => return Err(PmError::PM_ERR_TRUNC),
        MetricType::I32 => AtomValue::I32(v as i32),
        MetricType::U32 if v > 0xffff_ffff => return Err(PmError::PM_ERR_TRUNC),
        MetricType::U32 => AtomValue::U32(v as u32),
        MetricType::I64 if v > i64::MAX as u64 => return Err(PmError::PM_ERR_TRUNC),
        MetricType::I64 => AtomValue::I64(v as i64),
        MetricType::U64 => AtomValue::U64(v),
        MetricType::FLOAT => AtomValue::Float(v as f32),
        MetricType::DOUBLE => AtomValue::Double(v as f64),
        _ => return Err(PmError::PM_ERR_CONV),
    })
}

fn fixed<const N: usize>(b: &ValueBlock, itype: MetricType) -> PmResult<[u8; N]> {
    if b.vtype != itype.0 as u8 && b.vtype != 0 {
        return Err(PmError::PM_ERR_CONV);
    }
    b.data.as_slice().try_into().map_err(|_| PmError::PM_ERR_CONV)
}

/// `pmExtractValue`: read `value`, whose metric has type `itype`, as type
/// `otype`.
///
/// Follows the PMAPI conversion table exactly: `PM_ERR_CONV` where no
/// conversion exists (strings and aggregates only to themselves, a value
/// block of the wrong size or type byte), `PM_ERR_TRUNC` where the value
/// does not fit, `PM_ERR_SIGN` for a negative value into an unsigned type.
/// Conversions to floating point may lose precision silently.
///
/// ```
/// use pcp_core::{extract_value, AtomValue, MetricType, PmError, Value};
///
/// // a U64 counter travels in a value block
/// let v = Value::from_atom(&AtomValue::U64(5_000_000_000));
/// assert_eq!(extract_value(&v, MetricType::U64, MetricType::DOUBLE), Ok(AtomValue::Double(5e9)));
/// assert_eq!(extract_value(&v, MetricType::U64, MetricType::U32), Err(PmError::PM_ERR_TRUNC));
///
/// // a 32-bit value is held in place
/// let v = Value::Insitu(-1);
/// assert_eq!(extract_value(&v, MetricType::I32, MetricType::I64), Ok(AtomValue::I64(-1)));
/// assert_eq!(extract_value(&v, MetricType::I32, MetricType::U64), Err(PmError::PM_ERR_SIGN));
/// assert_eq!(extract_value(&v, MetricType::I32, MetricType::STRING), Err(PmError::PM_ERR_CONV));
/// ```
#[doc(alias = "pmExtractValue")]
pub fn extract_value(value: &Value, itype: MetricType, otype: MetricType) -> PmResult<AtomValue> {
    match value {
        Value::Insitu(l) => match itype {
            // an i32 or u32 converts exactly as the same value held in an i64
            MetricType::I32 | MetricType::UNKNOWN => from_i64(*l as i64, otype),
            MetricType::U32 => from_i64(*l as u32 as i64, otype),
            MetricType::FLOAT => {
                let f = f32::from_bits(*l as u32);
                from_float(f as f64, &FLOAT_LIMITS, otype, Some(f))
            }
            _ => Err(PmError::PM_ERR_CONV),
        },
        Value::Block(b) => match itype {
            MetricType::I64 => from_i64(i64::from_le_bytes(fixed(b, itype)?), otype),
            MetricType::U64 => from_u64(u64::from_le_bytes(fixed(b, itype)?), otype),
            MetricType::DOUBLE => from_float(f64::from_le_bytes(fixed(b, itype)?), &DOUBLE_LIMITS, otype, None),
            MetricType::FLOAT => {
                let f = f32::from_le_bytes(fixed(b, itype)?);
                from_float(f as f64, &FLOAT_LIMITS, otype, Some(f))
            }
            MetricType::STRING | MetricType::AGGREGATE => {
                if b.vtype != itype.0 as u8 && b.vtype != 0 {
                    return Err(PmError::PM_ERR_CONV);
                }
                if otype != itype {
                    return Err(PmError::PM_ERR_CONV);
                }
                Ok(if itype == MetricType::STRING {
                    // a C string ends at its first NUL
                    let end = b.data.iter().position(|&c| c == 0).unwrap_or(b.data.len());
                    AtomValue::String(b.data[..end].to_vec())
                } else {
                    AtomValue::Aggregate(b.clone())
                })
            }
            _ => Err(PmError::PM_ERR_CONV),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_instances_orders_each_set_by_instance() {
        let set = |pmid: u32, insts: &[i32]| ValueSet {
            pmid: PmId(pmid),
            values: Ok(insts.iter().map(|&inst| InstValue { inst, value: Value::Insitu(inst) }).collect()),
        };
        let failed = ValueSet { pmid: PmId(3), values: Err(PmError::PM_ERR_PMID) };
        let mut r = FetchResult {
            timestamp: Timestamp::default(),
            sets: vec![set(1, &[5, -1, i32::MAX, 0, i32::MIN]), failed.clone(), set(2, &[2, 1])],
        };
        r.sort_instances();
        assert_eq!(r.sets, [set(1, &[i32::MIN, -1, 0, 5, i32::MAX]), failed, set(2, &[1, 2])]);
    }

    /// Setting an atom over any value gives what packing it afresh gives,
    /// and a block of a number keeps its room.
    #[test]
    fn set_atom_is_from_atom() {
        let atoms = [
            AtomValue::I32(-7),
            AtomValue::U32(u32::MAX),
            AtomValue::I64(i64::MIN),
            AtomValue::U64(1 << 40),
            AtomValue::Float(-1.5),
            AtomValue::Double(f64::MAX),
            AtomValue::String(b"abc".to_vec()),
            AtomValue::Aggregate(ValueBlock::from_slice(MetricType::AGGREGATE.0 as u8, &[1, 2, 3, 4, 5])),
        ];
        let held = |i: usize| match i {
            0 => Value::Insitu(9),
            1 => Value::Block(ValueBlock::from_slice(MetricType::STRING.0 as u8, b"a longer string than any number\0")),
            _ => Value::from_atom(&atoms[i % atoms.len()]),
        };
        for atom in &atoms {
            for i in 0..atoms.len() + 2 {
                let mut v = held(i);
                v.set_atom(atom);
                assert_eq!(v, Value::from_atom(atom), "{atom:?} over {:?}", held(i));
            }
        }
        let mut v = held(1);
        let room = match &v {
            Value::Block(b) => b.data.capacity(),
            Value::Insitu(_) => 0,
        };
        v.set_atom(&AtomValue::Double(2.5));
        assert!(matches!(&v, Value::Block(b) if b.data.capacity() == room));
    }

    #[test]
    fn conversion_table_examples() {
        let neg = Value::Insitu(-5);
        assert_eq!(extract_value(&neg, MetricType::I32, MetricType::U32), Err(PmError::PM_ERR_SIGN));
        assert_eq!(extract_value(&neg, MetricType::I32, MetricType::I64), Ok(AtomValue::I64(-5)));
        let big = Value::Insitu(-1);
        assert_eq!(extract_value(&big, MetricType::U32, MetricType::I32), Err(PmError::PM_ERR_TRUNC));
        let s = Value::Block(ValueBlock::new(6, b"abc\0".to_vec()));
        assert_eq!(extract_value(&s, MetricType::STRING, MetricType::STRING), Ok(AtomValue::String(b"abc".to_vec())));
        assert_eq!(extract_value(&s, MetricType::STRING, MetricType::I32), Err(PmError::PM_ERR_CONV));
        let d = Value::Block(ValueBlock::new(5, 1e10f64.to_le_bytes().to_vec()));
        assert_eq!(extract_value(&d, MetricType::DOUBLE, MetricType::I32), Err(PmError::PM_ERR_TRUNC));
        assert_eq!(extract_value(&d, MetricType::DOUBLE, MetricType::U64), Ok(AtomValue::U64(10_000_000_000)));
        // a block of the wrong length is no value of its type
        let short = Value::Block(ValueBlock::new(2, vec![1, 2, 3, 4]));
        assert_eq!(extract_value(&short, MetricType::I64, MetricType::I64), Err(PmError::PM_ERR_CONV));
    }

    fn atoms() -> impl proptest::strategy::Strategy<Value = AtomValue> {
        use proptest::prelude::*;
        prop_oneof![
            any::<i32>().prop_map(AtomValue::I32),
            any::<u32>().prop_map(AtomValue::U32),
            any::<i64>().prop_map(AtomValue::I64),
            any::<u64>().prop_map(AtomValue::U64),
            any::<u32>().prop_map(|b| AtomValue::Float(f32::from_bits(b))),
            any::<u64>().prop_map(|b| AtomValue::Double(f64::from_bits(b))),
            proptest::collection::vec(1u8..=255, 0..64).prop_map(AtomValue::String),
            // an aggregate's block has type AGGREGATE or the unset 0
            (prop_oneof![Just(0u8), Just(7u8)], proptest::collection::vec(any::<u8>(), 0..64))
                .prop_map(|(t, d)| AtomValue::Aggregate(ValueBlock::new(t, d))),
        ]
    }

    proptest::proptest! {
        /// Packing an atom into a value and extracting it as its own type
        /// gives back the same atom, bit for bit (NaNs included).
        #[test]
        fn pack_then_extract_round_trips(atom in atoms()) {
            let ty = atom.metric_type();
            let value = Value::from_atom(&atom);
            let back = extract_value(&value, ty, ty);
            match (&atom, back) {
                (AtomValue::Aggregate(_), Ok(b)) => proptest::prop_assert_eq!(b, atom.clone()),
                (_, Ok(b)) => {
                    proptest::prop_assert_eq!(b.union_bits(), atom.union_bits());
                    proptest::prop_assert_eq!(b.metric_type(), ty);
                    if let (AtomValue::String(x), AtomValue::String(y)) = (&b, &atom) {
                        proptest::prop_assert_eq!(x, y);
                    }
                }
                (_, Err(e)) => proptest::prop_assert!(false, "{atom:?}: {e}"),
            }
        }
    }

    #[test]
    fn float_to_float_keeps_a_signalling_nan() {
        // libpcp copies the float; a trip through double would quiet it
        let snan = f32::from_bits(0x7f80_0001);
        let v = Value::Block(ValueBlock::new(4, snan.to_le_bytes().to_vec()));
        let got = extract_value(&v, MetricType::FLOAT, MetricType::FLOAT).unwrap();
        assert_eq!(got.union_bits(), 0x7f80_0001);
        let v = Value::Insitu(0x7f80_0001);
        assert_eq!(extract_value(&v, MetricType::FLOAT, MetricType::FLOAT).unwrap().union_bits(), 0x7f80_0001);
        // widening to double quiets it, in libpcp as here
        let d = extract_value(&v, MetricType::FLOAT, MetricType::DOUBLE).unwrap();
        assert_eq!(d.union_bits(), 0x7ff8_0000_2000_0000);
    }

    #[test]
    fn network_blocks_turn_numbers_around() {
        let b = ValueBlock::from_network(MetricType::U64.0 as u8, &258u64.to_be_bytes());
        assert_eq!(&b.data[..], 258u64.to_le_bytes());
        let f = ValueBlock::from_network(MetricType::FLOAT.0 as u8, &1.5f32.to_be_bytes());
        assert_eq!(&f.data[..], 1.5f32.to_le_bytes());
        let s = ValueBlock::from_network(MetricType::STRING.0 as u8, b"abc\0");
        assert_eq!(&s.data[..], b"abc\0");
        for (b, wire) in
            [(b, 258u64.to_be_bytes().to_vec()), (f, 1.5f32.to_be_bytes().to_vec()), (s, b"abc\0".to_vec())]
        {
            let mut out = vec![9];
            b.write_network(&mut out);
            assert_eq!(out[1..], wire[..]);
        }
        // a short 64-bit block is left as it is
        assert_eq!(ValueBlock::from_network(MetricType::I64.0 as u8, &[1, 2]).data[..], [1, 2]);
    }

    #[test]
    fn numval_carries_the_status() {
        let vs = ValueSet { pmid: PmId::new(1, 2, 3), values: Err(PmError::PM_ERR_VALUE) };
        assert_eq!(vs.numval(), PmError::PM_ERR_VALUE.code());
        let ok =
            ValueSet { pmid: PmId::new(1, 2, 3), values: Ok(vec![InstValue { inst: 0, value: Value::Insitu(1) }]) };
        assert_eq!((ok.numval(), ok.valfmt()), (1, ValueFormat::Insitu));
    }
}
