//! The longest-prefix number reader of C's `strtod` (C locale), which
//! `pmParseUnitsStr` uses for multipliers such as `10`, `.5`, `1e3`,
//! `0x10` or `-inf`, and libpcp's time and interval parsers for their
//! numbers; and `strtol`'s base 10 reader beside it.

/// A number read from the front of a byte string.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prefix {
    /// The value (correctly rounded, as glibc's).
    pub value: f64,
    /// How many bytes it used.
    pub len: usize,
    /// `strtod` would set `errno` to `ERANGE` (overflow, or an inexact
    /// result in the subnormal range or flushed to zero).
    pub range_error: bool,
}

fn count_while(s: &[u8], f: impl Fn(u8) -> bool) -> usize {
    s.iter().take_while(|&&b| f(b)).count()
}

/// An optional leading `-` or `+`: (is it negative, bytes used).
fn take_sign(s: &[u8]) -> (bool, usize) {
    match s.first() {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    }
}

fn starts_with_ci(s: &[u8], word: &[u8]) -> bool {
    s.len() >= word.len() && s[..word.len()].eq_ignore_ascii_case(word)
}

/// Read a number from the front of `s` as `strtod` would; `None` if no
/// number starts there (strtod's `endptr == nptr`). Leading white space is
/// not skipped (the units parser has already done that).
#[doc(alias = "strtod")]
pub fn parse_prefix(s: &[u8]) -> Option<Prefix> {
    let (negative, pos) = take_sign(s);
    let rest = &s[pos..];
    let sign = |v: f64| if negative { -v } else { v };

    if starts_with_ci(rest, b"inf") {
        let len = if starts_with_ci(rest, b"infinity") { 8 } else { 3 };
        return Some(Prefix { value: sign(f64::INFINITY), len: pos + len, range_error: false });
    }
    if starts_with_ci(rest, b"nan") {
        let mut len = 3;
        // optional "(n-char-sequence)"
        if rest.get(3) == Some(&b'(') {
            let inner = count_while(&rest[4..], |b| b.is_ascii_alphanumeric() || b == b'_');
            if rest.get(4 + inner) == Some(&b')') {
                len = 4 + inner + 1;
            }
        }
        return Some(Prefix { value: sign(f64::NAN), len: pos + len, range_error: false });
    }
    if rest.len() >= 2 && rest[0] == b'0' && (rest[1] | 0x20) == b'x' {
        if let Some((value, len, range_error)) = hex_float(&rest[2..]) {
            return Some(Prefix { value: sign(value), len: pos + 2 + len, range_error });
        }
        // "0x" with no hex digit after it: just the "0"
        return Some(Prefix { value: sign(0.0), len: pos + 1, range_error: false });
    }

    // decimal: digits [. digits] [e [sign] digits], at least one digit
    let int_digits = count_while(rest, |b| b.is_ascii_digit());
    let mut len = int_digits;
    let mut frac_digits = 0;
    if rest.get(len) == Some(&b'.') {
        frac_digits = count_while(&rest[len + 1..], |b| b.is_ascii_digit());
        len += 1 + frac_digits;
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    let mant_end = len;
    if matches!(rest.get(len), Some(b'e' | b'E')) {
        let mut e = len + 1;
        if matches!(rest.get(e), Some(b'+' | b'-')) {
            e += 1;
        }
        let exp_digits = count_while(&rest[e..], |b| b.is_ascii_digit());
        if exp_digits > 0 {
            len = e + exp_digits;
        }
    }
    let text = std::str::from_utf8(&rest[..len]).ok()?;
    let magnitude: f64 = text.parse().ok()?;
    // digits of the mantissa (before any exponent): is any of them nonzero?
    let nonzero = rest[..mant_end].iter().any(|b| (b'1'..=b'9').contains(b));
    let range_error = magnitude.is_infinite() || (nonzero && (magnitude == 0.0 || magnitude < f64::MIN_POSITIVE));
    Some(Prefix { value: sign(magnitude), len: pos + len, range_error })
}

/// A hexadecimal float after its `0x`: hex digits with an optional point,
/// then an optional `p` binary exponent. Returns (value, length, ERANGE).
fn hex_float(s: &[u8]) -> Option<(f64, usize, bool)> {
    let int_digits = count_while(s, |b| b.is_ascii_hexdigit());
    let mut len = int_digits;
    let mut frac_digits = 0;
    if s.get(len) == Some(&b'.') {
        frac_digits = count_while(&s[len + 1..], |b| b.is_ascii_hexdigit());
        len += 1 + frac_digits;
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    let mut exp: i64 = 0;
    if matches!(s.get(len), Some(b'p' | b'P')) {
        let (neg, sign_len) = take_sign(&s[len + 1..]);
        let e = len + 1 + sign_len;
        let exp_digits = count_while(&s[e..], |b| b.is_ascii_digit());
        if exp_digits > 0 {
            for &b in &s[e..e + exp_digits] {
                exp = (exp * 10 + (b - b'0') as i64).min(1 << 40);
            }
            if neg {
                exp = -exp;
            }
            len = e + exp_digits;
        }
    }
    // Collect up to 30 significant hex digits (120 bits) exactly; any
    // further nonzero digit only makes the value "sticky" (inexact).
    let mut mant: u128 = 0;
    let mut sticky = false;
    let mut bin_exp = exp;
    let mut taken = 0;
    let digits = s[..int_digits]
        .iter()
        .map(|&b| (b, false))
        .chain(s[int_digits..len].iter().skip(1).take(frac_digits).map(|&b| (b, true)));
    for (b, is_frac) in digits {
        let v = (b as char).to_digit(16).unwrap_or(0) as u128;
        if mant == 0 && v == 0 {
            if is_frac {
                bin_exp -= 4;
            }
            continue;
        }
        if taken < 30 {
            mant = (mant << 4) | v;
            taken += 1;
            if is_frac {
                bin_exp -= 4;
            }
        } else {
            sticky |= v != 0;
            if !is_frac {
                bin_exp += 4;
            }
        }
    }
    if mant == 0 {
        return Some((0.0, len, false));
    }
    let (value, inexact) = round_binary(mant, sticky, bin_exp);
    let range_error = value.is_infinite() || (inexact && value < f64::MIN_POSITIVE);
    Some((value, len, range_error))
}

/// `mant * 2^exp` (plus a sticky bit below `mant`) rounded to the nearest
/// double, ties to even; returns the value and whether it was inexact.
fn round_binary(mant: u128, sticky: bool, exp: i64) -> (f64, bool) {
    let bits = 128 - mant.leading_zeros() as i64; // position of the top bit
    let top_exp = exp + bits - 1; // value is in [2^top_exp, 2^(top_exp+1))
    if top_exp > 1023 {
        return (f64::INFINITY, true);
    }
    // number of mantissa bits we may keep: 53, fewer in the subnormal range
    let keep = if top_exp >= -1022 { 53 } else { 53 - (-1022 - top_exp) };
    if keep <= 0 {
        // below half the smallest subnormal (or exactly half: ties to even, 0)
        let half_min = keep == 0 && (mant.count_ones() > 1 || sticky);
        return (if half_min { f64::from_bits(1) } else { 0.0 }, true);
    }
    let drop = bits - keep;
    let (mut kept, inexact) = if drop > 0 {
        let drop = drop as u32;
        let kept = mant >> drop;
        let rem = mant & ((1u128 << drop) - 1);
        let half = 1u128 << (drop - 1);
        let round_up = rem > half || (rem == half && (sticky || kept & 1 == 1));
        (kept + u128::from(round_up), rem != 0 || sticky)
    } else {
        (mant << (-drop) as u32, sticky)
    };
    let mut e = exp + drop;
    if kept >> keep != 0 {
        // rounding carried into a new top bit
        kept >>= 1;
        e += 1;
    }
    // kept < 2^53: exact in f64; scale by 2^e in two steps to avoid overflow
    let v = kept as f64 * 2f64.powi((e / 2) as i32) * 2f64.powi((e - e / 2) as i32);
    (v, inexact || v.is_infinite())
}

/// C's white space (`isspace` in the C locale).
pub fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// `strtol(s, &end, 10)`: skip white space, read an optional sign and
/// decimal digits. The value clamps to the range of a 64-bit `long` (as
/// glibc's does, with `ERANGE`); the count is the bytes used, 0 when no
/// digit follows (`end == s`, value 0). `atoi` and `sscanf`'s `%d` are
/// this value cut to an `int`.
#[doc(alias = "strtol")]
#[doc(alias = "atoi")]
pub fn strtol_prefix(s: &[u8]) -> (i64, usize) {
    let (negative, m, used) = strtoint_parts(s, 10);
    let m = m.min(1 << 63) as i128;
    let v = if negative { -m } else { m.min(i128::from(i64::MAX)) };
    (v as i64, used)
}

/// `strtoull(s, &end, base)` as an unsigned conversion stores it: a
/// magnitude beyond 64 bits saturates to `u64::MAX` (`ERANGE`), a negative
/// number wraps around. The count is the bytes used, 0 when no digit
/// follows (value 0). `sscanf`'s `%llu` and `%x` read numbers this way.
#[doc(alias = "strtoull")]
pub fn strtoull_prefix(s: &[u8], base: u32) -> (u64, usize) {
    let (negative, m, used) = strtoint_parts(s, base);
    let v = match u64::try_from(m) {
        Err(_) => u64::MAX,
        Ok(v) if negative => v.wrapping_neg(),
        Ok(v) => v,
    };
    (v, used)
}

/// The parts of an integer as C's `strtol` family reads it in `base`
/// (0: a `0x` prefix means 16, a leading 0 means 8, else 10; 16 also
/// takes a `0x` prefix): white space, an optional sign, digits. Returns
/// whether it was negative, the digits' magnitude (saturating) and the
/// bytes used, 0 when no digit follows (`end == s`). Each caller applies
/// its own type's range and sign rules.
#[doc(alias = "strtoul")]
pub fn strtoint_parts(s: &[u8], base: u32) -> (bool, u128, usize) {
    let ws = count_while(s, is_c_space);
    let (negative, sign) = take_sign(&s[ws..]);
    let at = ws + sign;
    let rest = &s[at..];
    let hex_prefix = matches!(rest, [b'0', b'x' | b'X', d, ..] if d.is_ascii_hexdigit());
    let (radix, start) = match base {
        0 | 16 if hex_prefix => (16, at + 2),
        0 if rest.first() == Some(&b'0') => (8, at),
        0 => (10, at),
        b => (b, at),
    };
    let digits = count_while(&s[start..], |b| char::from(b).is_digit(radix));
    if digits == 0 {
        return (false, 0, 0);
    }
    let digit = |c: u8| char::from(c).to_digit(radix).unwrap_or(0);
    // in 64 bits while the number fits (as nearly all do), then in 128
    let text = &s[start..start + digits];
    let mut m: u64 = 0;
    for (i, &c) in text.iter().enumerate() {
        match m.checked_mul(u64::from(radix)).and_then(|v| v.checked_add(u64::from(digit(c)))) {
            Some(v) => m = v,
            None => {
                let m = text[i..].iter().fold(u128::from(m), |m, &c| {
                    m.saturating_mul(u128::from(radix)).saturating_add(u128::from(digit(c)))
                });
                return (negative, m, start + digits);
            }
        }
    }
    (negative, u128::from(m), start + digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_parts_in_any_base() {
        assert_eq!(strtoint_parts(b" -0x1f,", 0), (true, 31, 6));
        assert_eq!(strtoint_parts(b"017", 0), (false, 15, 3));
        assert_eq!(strtoint_parts(b"017", 10), (false, 17, 3));
        assert_eq!(strtoint_parts(b"0x", 16), (false, 0, 1));
        assert_eq!(strtoint_parts(b"ff", 16), (false, 255, 2));
        assert_eq!(strtoint_parts(b"+", 10), (false, 0, 0));
        assert_eq!(strtoint_parts(b"18446744073709551616", 10), (false, 1 << 64, 20));
        assert_eq!(strtoint_parts(b"99999999999999999999999999999999999999999999", 10).1, u128::MAX);
    }

    #[test]
    fn strtol_reads_like_glibc() {
        assert_eq!(strtol_prefix(b" -12x"), (-12, 4));
        assert_eq!(strtol_prefix(b"+7"), (7, 2));
        assert_eq!(strtol_prefix(b"- 1"), (0, 0));
        assert_eq!(strtol_prefix(b""), (0, 0));
        assert_eq!(strtol_prefix(b"99999999999999999999"), (i64::MAX, 20));
        assert_eq!(strtol_prefix(b"-9223372036854775808"), (i64::MIN, 20));
        assert_eq!(strtol_prefix(b"-99999999999999999999"), (i64::MIN, 21));
    }

    #[test]
    fn strtoull_wraps_and_saturates_like_glibc() {
        assert_eq!(strtoull_prefix(b"  42 x", 10), (42, 4));
        assert_eq!(strtoull_prefix(b"-1", 10), (u64::MAX, 2));
        assert_eq!(strtoull_prefix(b"18446744073709551616", 10), (u64::MAX, 20));
        assert_eq!(strtoull_prefix(b"-18446744073709551616", 10), (u64::MAX, 21));
        assert_eq!(strtoull_prefix(b"0x1003", 16), (0x1003, 6));
        assert_eq!(strtoull_prefix(b"0xg", 16), (0, 1));
        assert_eq!(strtoull_prefix(b"+", 10), (0, 0));
    }

    fn p(s: &str) -> Option<(f64, usize, bool)> {
        parse_prefix(s.as_bytes()).map(|n| (n.value, n.len, n.range_error))
    }

    #[test]
    fn decimal_forms() {
        assert_eq!(p("10 byte"), Some((10.0, 2, false)));
        assert_eq!(p(".5x"), Some((0.5, 2, false)));
        assert_eq!(p("5."), Some((5.0, 2, false)));
        assert_eq!(p("1e3"), Some((1000.0, 3, false)));
        assert_eq!(p("1e"), Some((1.0, 1, false)));
        assert_eq!(p("-.25e2"), Some((-25.0, 6, false)));
        assert_eq!(p("-"), None);
        assert_eq!(p("."), None);
        assert_eq!(p("1e999"), Some((f64::INFINITY, 5, true)));
        assert_eq!(p("1e-400"), Some((0.0, 6, true)));
        assert_eq!(p("0e-400"), Some((0.0, 6, false)));
    }

    #[test]
    fn hex_and_special_forms() {
        assert_eq!(p("0x10"), Some((16.0, 4, false)));
        assert_eq!(p("-0x1p4"), Some((-16.0, 6, false)));
        assert_eq!(p("0x.8"), Some((0.5, 4, false)));
        assert_eq!(p("0x"), Some((0.0, 1, false)));
        assert_eq!(p("0x1p-1074"), Some((f64::from_bits(1), 9, false)));
        assert_eq!(p("0x1p-1075"), Some((0.0, 9, true)));
        assert_eq!(p("0x3p-1075"), Some((f64::from_bits(2), 9, true)));
        assert_eq!(p("0x1p1024"), Some((f64::INFINITY, 8, true)));
        assert_eq!(p("0x1.fffffffffffff8p0").map(|x| x.0), Some(2.0));
        assert_eq!(p("-inf"), Some((f64::NEG_INFINITY, 4, false)));
        assert_eq!(p("-infinity"), Some((f64::NEG_INFINITY, 9, false)));
        let (v, len, _) = p("-nan(abc)").unwrap();
        assert!(v.is_nan() && v.is_sign_negative() && len == 9);
    }
}
