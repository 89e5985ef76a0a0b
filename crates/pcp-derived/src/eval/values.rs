//! Values in C's types as libpcp computes with them: conversions and
//! promotion, arithmetic and comparison, constants, and the decoding and
//! packing of fetched values.

use super::Vals;
use crate::ast::BinOp;
use pcp_core::{AtomValue, Desc, InDom, MetricType, PmError, PmId, Units, Value};

pub(super) const ZERO_DESC: Desc =
    Desc { pmid: PmId::NULL, ty: MetricType::I32, indom: InDom::NULL, sem: pcp_core::Semantics(0), units: Units::NONE };

/// The result type of comparing two arithmetic types (libpcp's promote
/// table: the wider, unsigned over signed, floating over integer).
pub(super) fn promote(l: MetricType, r: MetricType) -> MetricType {
    let rank = |t: MetricType| if (0..=5).contains(&t.0) { t.0 } else { 0 };
    MetricType(rank(l).max(rank(r)))
}

/// A value as the type `t` says it is held, converted as C's casts do.
pub(super) fn as_f64(v: &AtomValue, _t: MetricType) -> f64 {
    match v {
        AtomValue::I32(x) => f64::from(*x),
        AtomValue::U32(x) => f64::from(*x),
        AtomValue::I64(x) => *x as f64,
        AtomValue::U64(x) => *x as f64,
        AtomValue::Float(x) => f64::from(*x),
        AtomValue::Double(x) => *x,
        _ => 0.0,
    }
}

pub(super) fn as_f32(v: &AtomValue, _t: MetricType) -> f32 {
    match v {
        AtomValue::I32(x) => *x as f32,
        AtomValue::U32(x) => *x as f32,
        AtomValue::I64(x) => *x as f32,
        AtomValue::U64(x) => *x as f32,
        AtomValue::Float(x) => *x,
        AtomValue::Double(x) => *x as f32,
        _ => 0.0,
    }
}

pub(super) fn as_i64(v: &AtomValue, _t: MetricType) -> i64 {
    match v {
        AtomValue::I32(x) => i64::from(*x),
        AtomValue::U32(x) => i64::from(*x),
        AtomValue::I64(x) => *x,
        AtomValue::U64(x) => *x as i64,
        AtomValue::Float(x) => *x as i64,
        AtomValue::Double(x) => *x as i64,
        _ => 0,
    }
}

pub(super) fn as_u64(v: &AtomValue, t: MetricType) -> u64 {
    match v {
        AtomValue::U64(x) => *x,
        AtomValue::Float(x) => *x as u64,
        AtomValue::Double(x) => *x as u64,
        _ => as_i64(v, t) as u64,
    }
}

pub(super) fn as_i32(v: &AtomValue, t: MetricType) -> i32 {
    as_i64(v, t) as i32
}

pub(super) fn as_u32(v: &AtomValue, t: MetricType) -> u32 {
    as_i64(v, t) as u32
}

/// `v` converted to type `to` (the operand promotion of libpcp's bin_op).
#[inline]
pub(super) fn convert(v: &AtomValue, to: MetricType) -> AtomValue {
    let t = v.metric_type();
    match to {
        MetricType::I32 => AtomValue::I32(as_i32(v, t)),
        MetricType::U32 => AtomValue::U32(as_u32(v, t)),
        MetricType::I64 => AtomValue::I64(as_i64(v, t)),
        MetricType::U64 => AtomValue::U64(as_u64(v, t)),
        MetricType::FLOAT => AtomValue::Float(as_f32(v, t)),
        MetricType::DOUBLE => AtomValue::Double(as_f64(v, t)),
        _ => v.clone(),
    }
}

/// An operand promoted to `to`, and when that is a double, converted by
/// its scale factors (`v / div * mul`).
pub(super) fn scaled(v: &AtomValue, from: MetricType, to: MetricType, scale: (i32, i32)) -> AtomValue {
    if to == MetricType::DOUBLE {
        AtomValue::Double(scaled_f64(v, from, scale))
    } else {
        convert(v, to)
    }
}

/// [`scaled`] to a double.
pub(super) fn scaled_f64(v: &AtomValue, from: MetricType, (mul, div): (i32, i32)) -> f64 {
    as_f64(v, from) / f64::from(div) * f64::from(mul)
}

/// `a op b` for arithmetic operators, both already of type `ty`.
pub(super) fn arith(ty: MetricType, op: BinOp, a: &AtomValue, b: &AtomValue) -> AtomValue {
    macro_rules! int {
        ($get:ident, $ctor:ident) => {{
            let (x, y) = ($get(a, ty), $get(b, ty));
            AtomValue::$ctor(match op {
                BinOp::Add => x.wrapping_add(y),
                BinOp::Sub => x.wrapping_sub(y),
                BinOp::Mul => x.wrapping_mul(y),
                // (the checker makes every division a double's)
                _ => 0,
            })
        }};
    }
    match ty {
        MetricType::I32 => int!(as_i32, I32),
        MetricType::U32 => int!(as_u32, U32),
        MetricType::I64 => int!(as_i64, I64),
        MetricType::U64 => int!(as_u64, U64),
        MetricType::FLOAT => {
            let (x, y) = (as_f32(a, ty), as_f32(b, ty));
            AtomValue::Float(match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                _ => 0.0,
            })
        }
        _ => AtomValue::Double(arith_f64(op, as_f64(a, ty), as_f64(b, ty))),
    }
}

/// [`arith`] of doubles.
pub(super) fn arith_f64(op: BinOp, x: f64, y: f64) -> f64 {
    match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        // 0 divided by anything (0 included) is 0
        BinOp::Div if x == 0.0 => 0.0,
        BinOp::Div => x / y,
        _ => 0.0,
    }
}

/// `a op b` for relational and boolean operators, both of type `ty`.
pub(super) fn compare(ty: MetricType, op: BinOp, a: &AtomValue, b: &AtomValue) -> bool {
    macro_rules! cmp {
        ($x:expr, $y:expr, $zero:expr) => {{
            let (x, y) = ($x, $y);
            match op {
                BinOp::Lt => x < y,
                BinOp::Leq => x <= y,
                BinOp::Eq => x == y,
                BinOp::Geq => x >= y,
                BinOp::Gt => x > y,
                BinOp::Neq => x != y,
                BinOp::And => x != $zero && y != $zero,
                BinOp::Or => x != $zero || y != $zero,
                _ => false,
            }
        }};
    }
    match ty {
        MetricType::I32 => cmp!(as_i32(a, ty), as_i32(b, ty), 0),
        MetricType::U32 => cmp!(as_u32(a, ty), as_u32(b, ty), 0),
        MetricType::I64 => cmp!(as_i64(a, ty), as_i64(b, ty), 0),
        MetricType::U64 => cmp!(as_u64(a, ty), as_u64(b, ty), 0),
        MetricType::FLOAT => cmp!(as_f32(a, ty), as_f32(b, ty), 0.0),
        _ => cmp!(as_f64(a, ty), as_f64(b, ty), 0.0),
    }
}

/// `max()` (`most`) or `min()` of `vals` in type `ty`: the first value,
/// then each one that compares above (below) the one kept; `prev` (or 0)
/// where there are none.
pub(super) fn extreme(vals: &[(i32, AtomValue)], most: bool, ty: MetricType, prev: Option<AtomValue>) -> AtomValue {
    let mut acc = prev.unwrap_or_else(|| convert(&AtomValue::U32(0), ty));
    for (k, (_, v)) in vals.iter().enumerate() {
        let v = convert(v, ty);
        let better = if most { compare(ty, BinOp::Lt, &acc, &v) } else { compare(ty, BinOp::Gt, &acc, &v) };
        if k == 0 || better {
            acc = v;
        }
    }
    acc
}

/// [`extreme`] the quick way, for values all of the numeric type `ty` (as
/// a metric's are, in its own type): compared as that type, without
/// converting each one. `None` where there are none, or they are not all
/// of that type.
pub(super) fn extreme_alike(vals: &[(i32, AtomValue)], most: bool, ty: MetricType) -> Option<AtomValue> {
    macro_rules! fold {
        ($variant:ident) => {{
            let mut acc = match vals.first()? {
                (_, AtomValue::$variant(x)) => *x,
                _ => return None,
            };
            for (_, v) in &vals[1..] {
                let AtomValue::$variant(x) = v else { return None };
                if if most { acc < *x } else { acc > *x } {
                    acc = *x;
                }
            }
            Some(AtomValue::$variant(acc))
        }};
    }
    let first = &vals.first()?.1;
    if first.metric_type() != ty {
        return None;
    }
    match first {
        AtomValue::I32(_) => fold!(I32),
        AtomValue::U32(_) => fold!(U32),
        AtomValue::I64(_) => fold!(I64),
        AtomValue::U64(_) => fold!(U64),
        AtomValue::Float(_) => fold!(Float),
        AtomValue::Double(_) => fold!(Double),
        _ => None,
    }
}

/// `-x`: unsigned operands give signed results (wrapping).
pub(super) fn negate(v: &AtomValue, t: MetricType) -> AtomValue {
    match t {
        MetricType::I32 | MetricType::U32 => AtomValue::I32(as_i32(v, t).wrapping_neg()),
        MetricType::I64 | MetricType::U64 => AtomValue::I64(as_i64(v, t).wrapping_neg()),
        MetricType::FLOAT => AtomValue::Float(-as_f32(v, t)),
        _ => AtomValue::Double(-as_f64(v, t)),
    }
}

/// A constant's value from its text, read as C's atoi, strtoll, strtoull
/// or atof would for type `ty`.
pub(super) fn constant(text: &str, ty: MetricType) -> AtomValue {
    let s = text.as_bytes();
    let (l, _) = pcp_core::support::strtod::strtol_prefix(s);
    match ty {
        MetricType::I32 => AtomValue::I32(l as i32),
        MetricType::U32 => AtomValue::U32(l as i32 as u32),
        MetricType::I64 => AtomValue::I64(l),
        MetricType::U64 => AtomValue::U64(pcp_core::support::strtod::strtoull_prefix(s, 10).0),
        MetricType::FLOAT | MetricType::DOUBLE => {
            let ws = s.iter().take_while(|&&b| pcp_core::support::strtod::is_c_space(b)).count();
            let d = pcp_core::support::strtod::parse_prefix(&s[ws..]).map_or(0.0, |p| p.value);
            if ty == MetricType::FLOAT {
                AtomValue::Float(d as f32)
            } else {
                AtomValue::Double(d)
            }
        }
        _ => AtomValue::U32(0),
    }
}

/// An operand's value from a fetched value, read as type `ty` (libpcp
/// reads 32-bit values in place and the others from their blocks).
pub(super) fn decode(v: &Value, ty: MetricType) -> Result<AtomValue, PmError> {
    let bytes = |n: usize| -> Result<[u8; 8], PmError> {
        match v {
            Value::Block(b) => {
                let mut out = [0u8; 8];
                let n = n.min(b.data.len());
                out[..n].copy_from_slice(&b.data[..n]);
                Ok(out)
            }
            Value::Insitu(_) => Err(PmError::PM_ERR_LOGREC),
        }
    };
    Ok(match ty {
        MetricType::I32 | MetricType::U32 => {
            let l = match v {
                Value::Insitu(l) => *l,
                Value::Block(_) => return Err(PmError::PM_ERR_LOGREC),
            };
            if ty == MetricType::I32 {
                AtomValue::I32(l)
            } else {
                AtomValue::U32(l as u32)
            }
        }
        MetricType::I64 => AtomValue::I64(i64::from_le_bytes(bytes(8)?)),
        MetricType::U64 => AtomValue::U64(u64::from_le_bytes(bytes(8)?)),
        MetricType::DOUBLE => AtomValue::Double(f64::from_le_bytes(bytes(8)?)),
        MetricType::FLOAT => match v {
            Value::Insitu(l) => AtomValue::Float(f32::from_bits(*l as u32)),
            Value::Block(_) => {
                let b = bytes(4)?;
                AtomValue::Float(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }
        },
        MetricType::STRING => match v {
            Value::Block(b) => {
                let mut s = b.data.to_vec();
                if s.last() == Some(&0) {
                    s.pop();
                }
                AtomValue::String(s)
            }
            Value::Insitu(_) => return Err(PmError::PM_ERR_LOGREC),
        },
        MetricType::AGGREGATE | MetricType::AGGREGATE_STATIC => match v {
            Value::Block(b) => AtomValue::Aggregate(b.clone()),
            Value::Insitu(_) => return Err(PmError::PM_ERR_LOGREC),
        },
        MetricType::EVENT | MetricType::HIGHRES_EVENT => match v {
            Value::Block(b) => AtomValue::Event(b.clone()),
            Value::Insitu(_) => return Err(PmError::PM_ERR_LOGREC),
        },
        _ => return Err(PmError::PM_ERR_TYPE),
    })
}

/// A node's values, or none where it has an error.
pub(super) fn vals_or_none(v: &Vals) -> &[(i32, AtomValue)] {
    v.as_deref().unwrap_or_default()
}

/// A result value of the derived metric's type `ty`, packed as libpcp
/// does: 32-bit integers in place, everything else in a block.
pub(super) fn pack(a: &AtomValue, ty: MetricType) -> Value {
    let mut v = Value::Insitu(0);
    pack_into(a, ty, &mut v);
    v
}

/// [`pack`] over what `slot` held (see [`Value::set_atom`]): numbers are
/// converted to `ty`, anything else is packed as it is.
#[inline]
pub(super) fn pack_into(a: &AtomValue, ty: MetricType, slot: &mut Value) {
    match ty {
        MetricType::I32
        | MetricType::U32
        | MetricType::I64
        | MetricType::U64
        | MetricType::FLOAT
        | MetricType::DOUBLE => slot.set_atom(&convert(a, ty)),
        _ => *slot = Value::from_atom(a),
    }
}

/// The value of `!x` in `x`'s type. libpcp stores the 0 or 1 as a 32-bit
/// unsigned integer in the value's union, whatever the type, so a float
/// result is that bit pattern (1 reads as the smallest subnormal). For a
/// 64-bit type (double included) libpcp leaves the union's upper half as
/// the heap had it, which is not reproducible; here it is zero.
pub(super) fn not_value(is_zero: bool, ty: MetricType) -> AtomValue {
    let bits = u32::from(is_zero);
    match ty {
        MetricType::FLOAT => AtomValue::Float(f32::from_bits(bits)),
        MetricType::DOUBLE => AtomValue::Double(f64::from_bits(u64::from(bits))),
        _ => convert(&AtomValue::U32(bits), ty),
    }
}
