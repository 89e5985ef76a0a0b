//! Value text forms: `pmAtomStr`, `pmPrintValue` and `pmNumberStr`.
//!
//! These produce bytes, not `String`s: a metric's string value may hold any
//! bytes, and PCP's tools print them unchanged.

use crate::error::PmResult;
use crate::event::summary;
use crate::support::cfmt::sprintf_f64_text;
use crate::time::{LocalTime, Utc};
use crate::types::MetricType;
use crate::value::{extract_value, AtomValue, Value, ValueBlock};
use std::io::Write;

/// printf's `%*.Ng` (and the like) of a double; the formats used here are
/// fixed and valid, so the formatter always answers.
fn gfmt(fmt: &str, width: i32, v: f64) -> String {
    sprintf_f64_text(fmt, &[width], v).unwrap_or_default()
}

/// Right-justify (or, for negative `width`, left-justify) as printf's `%*s`.
fn pad(out: &mut Vec<u8>, text: &[u8], width: i32) {
    let wide = width.unsigned_abs() as usize;
    if width >= 0 {
        pad_left(out, wide, text);
    } else {
        out.extend_from_slice(text);
        out.resize(out.len() + wide.saturating_sub(text.len()), b' ');
    }
}

/// `text` appended to `out` after the spaces that make it `width` wide
/// (printf's `%*s`).
pub fn pad_left(out: &mut Vec<u8>, width: usize, text: &[u8]) {
    out.resize(out.len() + width.saturating_sub(text.len()), b' ');
    out.extend_from_slice(text);
}

/// An integer's decimal digits, made without allocating.
pub struct Decimal {
    buf: [u8; 20],
    start: usize,
}

impl Decimal {
    /// The digits of `v`, two at a time from a table (this runs for
    /// nearly every integer value the tools print).
    pub fn unsigned(mut v: u64) -> Decimal {
        const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
            2021222324252627282930313233343536373839\
            4041424344454647484950515253545556575859\
            6061626364656667686970717273747576777879\
            8081828384858687888990919293949596979899";
        let mut d = Decimal { buf: [0; 20], start: 20 };
        while v >= 100 {
            let r = (v % 100) as usize * 2;
            v /= 100;
            d.start -= 2;
            d.buf[d.start..d.start + 2].copy_from_slice(&PAIRS[r..r + 2]);
        }
        if v >= 10 {
            let r = v as usize * 2;
            d.start -= 2;
            d.buf[d.start..d.start + 2].copy_from_slice(&PAIRS[r..r + 2]);
        } else {
            d.start -= 1;
            d.buf[d.start] = b'0' + v as u8;
        }
        d
    }

    /// The digits of `v`, with a `-` if it is negative.
    pub fn signed(v: i64) -> Decimal {
        let mut d = Decimal::unsigned(v.unsigned_abs());
        if v < 0 {
            // 19 digits at most for |i64::MIN|: there is room for the sign
            d.start -= 1;
            d.buf[d.start] = b'-';
        }
        d
    }

    /// The text.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[self.start..]
    }
}

/// The bytes of a C string: up to its first NUL.
fn c_str(b: &[u8]) -> &[u8] {
    &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())]
}

fn block_summary(out: &mut Vec<u8>, b: &ValueBlock) {
    let vlen = b.data.len();
    let _ = write!(out, "[type={} len={}]", MetricType(b.vtype as i32).name(), vlen);
    for (i, byte) in b.data.iter().take(12).enumerate() {
        let sep = if i % 4 == 0 { " " } else { "" };
        let _ = write!(out, "{sep}{byte:02x}");
    }
    if vlen > 12 {
        out.extend_from_slice(b" ...");
    }
}

/// `pmAtomStr`: a short text for a value of type `ty`, for diagnostics.
///
/// Numbers print in full (`%e` for floating point), strings quoted (longer
/// than 37 bytes cut to 34 and `...`), aggregates as type, length and their
/// first 12 bytes, event arrays as a record count. `atom` is read as the C
/// union would be for type `ty`; `None` (or an atom with no such member)
/// stands for a null pointer and prints `<null>`.
#[doc(alias = "pmAtomStr")]
#[doc(alias = "pmAtomStr_r")]
pub fn atom_str(atom: Option<&AtomValue>, ty: MetricType) -> Vec<u8> {
    let mut out = Vec::new();
    let bits = atom.map_or(0, AtomValue::union_bits);
    match ty {
        MetricType::I32 => out.extend(format!("{}", bits as u32 as i32).bytes()),
        MetricType::U32 => out.extend(format!("{}", bits as u32).bytes()),
        MetricType::I64 => out.extend(format!("{}", bits as i64).bytes()),
        MetricType::U64 => out.extend(format!("{bits}").bytes()),
        MetricType::FLOAT => out.extend(gfmt("%e", 0, f32::from_bits(bits as u32) as f64).bytes()),
        MetricType::DOUBLE => out.extend(gfmt("%e", 0, f64::from_bits(bits)).bytes()),
        MetricType::STRING => match atom {
            Some(AtomValue::String(s)) => {
                let s = c_str(s);
                out.push(b'"');
                if s.len() < 38 {
                    out.extend_from_slice(s);
                } else {
                    out.extend_from_slice(&s[..34]);
                    out.extend_from_slice(b"...");
                }
                out.push(b'"');
            }
            _ => out.extend_from_slice(b"<null>"),
        },
        MetricType::AGGREGATE | MetricType::AGGREGATE_STATIC => match atom {
            Some(AtomValue::Aggregate(b) | AtomValue::Event(b)) => block_summary(&mut out, b),
            _ => out.extend_from_slice(b"<null>"),
        },
        MetricType::EVENT | MetricType::HIGHRES_EVENT => match atom {
            Some(AtomValue::Aggregate(b) | AtomValue::Event(b)) => {
                let n = b.data.get(..4).map_or(0, |w| i32::from_le_bytes([w[0], w[1], w[2], w[3]]));
                if n == 1 {
                    out.extend_from_slice(b"[1 event record]");
                } else {
                    out.extend(format!("[{n} event records]").bytes());
                }
            }
            _ => out.extend_from_slice(b"<null>"),
        },
        MetricType::NOSUPPORT => out.extend_from_slice(b"Error: unexpected type: Not Supported"),
        MetricType::UNKNOWN => out.extend_from_slice(b"Error: unexpected type: Unknown"),
        MetricType(t) => out.extend(format!("Error: unexpected type: Illegal type={t}").bytes()),
    }
    out
}

/// C `isprint` in the C locale.
fn is_c_print(b: u8) -> bool {
    (0x20..0x7f).contains(&b)
}

/// `pmPrintValue`: append the text PCP's tools print for one value of a
/// metric of type `ty`, at least `minwidth` wide (negative: left-justified).
///
/// Values that do not extract as `ty` (and values of unknown type) print as
/// every reading that fits their size: unsigned, float and hex for 32 bits
/// held in place; for a block, its 64-bit, double or float reading, a quoted
/// string when all bytes are printable, and the bytes in hex.
///
/// An event array held in a block prints as a summary of its records
/// ([`crate::event::summary`]), with its timestamps in UTC; use
/// [`print_value_in`] for another zone. A 32-bit value held in place for
/// an event type is pmlc's control word.
#[doc(alias = "pmPrintValue")]
pub fn print_value(out: &mut Vec<u8>, value: &Value, ty: MetricType, minwidth: i32) -> PmResult<()> {
    print_value_in(out, value, ty, minwidth, &Utc)
}

/// [`print_value`] with event record timestamps shown in `zone` (as
/// `pmPrintValue` shows them in the current `pmLocaltime` zone).
#[doc(alias = "pmPrintValue")]
pub fn print_value_in(
    out: &mut Vec<u8>,
    value: &Value,
    ty: MetricType,
    minwidth: i32,
    zone: &dyn LocalTime,
) -> PmResult<()> {
    let extracted = match ty {
        MetricType::UNKNOWN | MetricType::EVENT | MetricType::HIGHRES_EVENT => None,
        _ => extract_value(value, ty, ty).ok(),
    };
    match extracted {
        Some(AtomValue::I32(v)) => pad(out, Decimal::signed(v as i64).as_bytes(), minwidth),
        Some(AtomValue::U32(v)) => pad(out, Decimal::unsigned(v as u64).as_bytes(), minwidth),
        Some(AtomValue::I64(v)) => pad(out, Decimal::signed(v).as_bytes(), minwidth),
        Some(AtomValue::U64(v)) => pad(out, Decimal::unsigned(v).as_bytes(), minwidth),
        Some(AtomValue::Float(v)) => out.extend(gfmt("%*.8g", minwidth, v as f64).bytes()),
        Some(AtomValue::Double(v)) => out.extend(gfmt("%*.16g", minwidth, v).bytes()),
        Some(AtomValue::String(s)) => {
            let fill = (minwidth.max(0) as usize).saturating_sub(s.len() + 2);
            out.resize(out.len() + fill, b' ');
            out.push(b'"');
            out.extend_from_slice(&s);
            out.push(b'"');
        }
        Some(AtomValue::Aggregate(_) | AtomValue::Event(_)) | None => {
            if extracted.is_none() && matches!(ty, MetricType::EVENT | MetricType::HIGHRES_EVENT) {
                match value {
                    Value::Insitu(l) => print_pmlc_control(out, *l),
                    Value::Block(b) => summary(out, &b.data, ty == MetricType::HIGHRES_EVENT, zone),
                }
                return Ok(());
            }
            print_raw(out, value, minwidth);
        }
    }
    Ok(())
}

/// pmlc's control word, which pmlogger stores as an event metric's value.
fn print_pmlc_control(out: &mut Vec<u8>, l: i32) {
    let l = l as u32;
    let (on, mand, avail, inlog) = (l & 1, (l >> 1) & 1, (l >> 2) & 1, (l >> 3) & 1);
    let delta = (l >> 4) & 0x0fff_ffff;
    out.extend_from_slice(b"[pmlc control ");
    out.extend_from_slice(if mand != 0 { b"mand " } else { b"adv " });
    out.extend_from_slice(if on != 0 { b"on " } else { b"off " });
    if inlog != 0 {
        out.extend_from_slice(if avail != 0 { b" " } else { b"na " });
    } else {
        out.extend_from_slice(b"nl ");
    }
    let _ = write!(out, "{delta}]");
}

fn print_raw(out: &mut Vec<u8>, value: &Value, minwidth: i32) {
    match value {
        Value::Insitu(l) => {
            let u = *l as u32;
            pad(out, u.to_string().as_bytes(), minwidth);
            let f = f32::from_bits(u);
            if !f.is_nan() {
                out.push(b' ');
                out.extend(gfmt("%*.8g", minwidth, f as f64).bytes());
            }
            let w = if minwidth > 2 { minwidth - 2 } else { minwidth };
            out.extend_from_slice(b" 0x");
            pad(out, format!("{u:x}").as_bytes(), w);
        }
        Value::Block(b) => {
            let data = &b.data;
            let mut done = false;
            if let Ok(w) = <[u8; 8]>::try_from(data.as_slice()) {
                pad(out, u64::from_le_bytes(w).to_string().as_bytes(), minwidth);
                let d = f64::from_le_bytes(w);
                if !d.is_nan() {
                    out.push(b' ');
                    out.extend(gfmt("%*.16g", minwidth, d).bytes());
                }
                done = true;
            }
            if let Ok(w) = <[u8; 4]>::try_from(data.as_slice()) {
                let f = f32::from_le_bytes(w);
                if !f.is_nan() {
                    out.extend(gfmt("%*.8g", minwidth, f as f64).bytes());
                    done = true;
                }
            }
            if data.iter().all(|&c| is_c_print(c)) {
                if done {
                    out.push(b' ');
                }
                let fill = (minwidth.max(0) as usize).saturating_sub(data.len() + 2);
                out.resize(out.len() + fill, b' ');
                out.push(b'"');
                out.extend_from_slice(data);
                out.push(b'"');
                done = true;
            }
            let fill = (minwidth.max(0) as usize).saturating_sub(2 * data.len() + 2);
            out.resize(out.len() + fill, b' ');
            if done {
                out.push(b' ');
            }
            out.push(b'[');
            for byte in data {
                let _ = write!(out, "{byte:02x}");
            }
            out.push(b']');
        }
    }
}

/// `pmNumberStr`: a value in exactly 7 characters, scaled with a K, M, G or
/// T suffix (or a space), e.g. `  1.23K`; out of range reads ` inf?  `.
#[doc(alias = "pmNumberStr")]
#[doc(alias = "pmNumberStr_r")]
pub fn number_str(value: f64) -> String {
    // thresholds at which the rounded text would need another digit
    let scaled = |v: f64, suffix: char| format!("{}{suffix}", gfmt("%6.2f", 0, v));
    if value >= 0.0 {
        if value >= 999995000000000.0 {
            " inf?  ".to_string()
        } else if value >= 999995000000.0 {
            scaled(value / 1e12, 'T')
        } else if value >= 999995000.0 {
            scaled(value / 1e9, 'G')
        } else if value >= 999995.0 {
            scaled(value / 1e6, 'M')
        } else if value >= 999.995 {
            scaled(value / 1000.0, 'K')
        } else if value >= 0.005 {
            scaled(value, ' ')
        } else {
            scaled(0.0, ' ')
        }
    } else if value <= -99995000000000.0 {
        "-inf?  ".to_string()
    } else if value <= -99995000000.0 {
        scaled(value / 1e12, 'T')
    } else if value <= -99995000.0 {
        scaled(value / 1e9, 'G')
    } else if value <= -99995.0 {
        scaled(value / 1e6, 'M')
    } else if value <= -99.995 {
        scaled(value / 1000.0, 'K')
    } else if value <= -0.005 {
        scaled(value, ' ')
    } else {
        // also NaN, which compares false everywhere
        scaled(0.0, ' ')
    }
}

#[cfg(test)]
mod decimal_tests {
    use super::Decimal;

    #[test]
    fn digits_like_display() {
        for v in [0i64, 7, -7, 10, 99, -100, i64::MAX, i64::MIN] {
            assert_eq!(Decimal::signed(v).as_bytes(), v.to_string().as_bytes());
        }
        assert_eq!(Decimal::unsigned(u64::MAX).as_bytes(), u64::MAX.to_string().as_bytes());
        // every length, and both ends of each pair of digits
        let mut p = 1u64;
        for _ in 0..20 {
            for v in [p - 1, p, p + 1, p.saturating_mul(9), p.saturating_mul(10).saturating_sub(1)] {
                assert_eq!(Decimal::unsigned(v).as_bytes(), v.to_string().as_bytes());
            }
            p = p.saturating_mul(10);
        }
        for v in (0..100_000u64).chain((u64::MAX - 100_000)..=u64::MAX) {
            assert_eq!(Decimal::unsigned(v).as_bytes(), v.to_string().as_bytes());
        }
    }
}
