//! C `printf` formatting of doubles: `%e %E %f %F %g %G` with the flags
//! `- + space # 0`, a width and a precision, byte-identical to glibc's
//! `snprintf` on x86_64 Linux (checked against it by `tests/printf_golden.rs`).
//!
//! # How the digits are made
//!
//! glibc converts the exact binary value of the double and rounds that exact
//! decimal expansion to the requested digit, ties to even (a tie needs the
//! expansion to end exactly on a 5 at the first dropped digit, as for
//! `%.2f` of 0.125 or `%.0f` of 2.5). Rust's own `{:.N}` and `{:.Ne}` do the
//! same (exact conversion, round half to even, in every Rust version from our
//! MSRV on), so this module takes the digits from them and adds what C does
//! differently: the `e+XX` exponent with at least two digits, `%g`'s choice
//! of style and trailing-zero removal, `inf`/`nan` spelling, signs, flags and
//! padding. The golden test pins the tie behaviour, so a change in the
//! standard library would not go unnoticed.
//!
//! # Where glibc goes its own way
//!
//! - `%#g` whose rounding carries into the next decade at exactly P digits
//!   (`%#.3g` of 999.5, `%#g` of 999999.5) prints `1.e+03` where the C
//!   standard asks for `1.00e+03`; we print what glibc prints.
//! - The sign bit of a NaN shows: `-nan`.
//! - `0` pads `inf` and `nan` with spaces, not zeros.
//!
//! # Limits
//!
//! Width and precision are clamped to [`MAX_FIELD`] (4096). Every double's
//! exact expansion has ended long before that (at most 767 significant and
//! 1074 fractional digits), so up to the clamp the output is exactly
//! glibc's; beyond it glibc would only add more zeros or padding, which we
//! leave off rather than let a hostile `*` argument allocate gigabytes.

use std::fmt::Write as _;

/// The largest width or precision honoured; larger ones are clamped to it.
pub const MAX_FIELD: usize = 4096;

/// One parsed conversion specification, such as `%-+#012.4e`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloatSpec {
    /// The conversion: `b'e'`, `b'E'`, `b'f'`, `b'F'`, `b'g'` or `b'G'`.
    pub conv: u8,
    /// `-`: left-justify within the width (overrides `0`).
    pub left: bool,
    /// `+`: always print a sign.
    pub plus: bool,
    /// space: a space where a plus sign would go (overridden by `+`).
    pub space: bool,
    /// `#`: always print a decimal point; `%g` keeps its trailing zeros.
    pub alt: bool,
    /// `0`: pad with zeros between the sign and the digits (finite values
    /// only; `inf` and `nan` are always padded with spaces).
    pub zero: bool,
    /// Minimum field width (clamped to [`MAX_FIELD`] when formatting).
    pub width: usize,
    /// Precision; `None` when omitted (6). Clamped to [`MAX_FIELD`].
    pub precision: Option<usize>,
}

impl FloatSpec {
    /// Parse one C conversion such as `"%*.8g"`, `"%6.2f"`, `"%.3E"` or
    /// `"%-+#012.4e"`: flags, then a width, then `.` and a precision (`.`
    /// alone means 0), an optional `l` (which C ignores for doubles), and the
    /// conversion letter. Each `*` takes the next value of `star`, width
    /// first: a negative width left-justifies with its absolute value and a
    /// negative precision counts as omitted, as in C.
    ///
    /// Returns `None` unless `fmt` is exactly one such conversion with
    /// enough `star` values (extra ones are ignored, as C ignores them).
    #[doc(alias = "printf")]
    pub fn parse(fmt: &str, star: &[i32]) -> Option<FloatSpec> {
        let (spec, used) = parse_spec(fmt.as_bytes(), &mut star.iter().copied())?;
        (used == fmt.len()).then_some(spec)
    }
}

/// Parse the conversion at the start of `s` (which must begin with `%`),
/// taking `*` values from `star`; returns it with the number of bytes used.
fn parse_spec(s: &[u8], star: &mut impl Iterator<Item = i32>) -> Option<(FloatSpec, usize)> {
    if s.first() != Some(&b'%') {
        return None;
    }
    let mut spec = FloatSpec {
        conv: 0,
        left: false,
        plus: false,
        space: false,
        alt: false,
        zero: false,
        width: 0,
        precision: None,
    };
    let mut i = 1;
    while let Some(&c) = s.get(i) {
        match c {
            b'-' => spec.left = true,
            b'+' => spec.plus = true,
            b' ' => spec.space = true,
            b'#' => spec.alt = true,
            b'0' => spec.zero = true,
            _ => break,
        }
        i += 1;
    }
    // a decimal number; saturates (the formatter clamps it anyway)
    let number = |i: &mut usize| {
        let mut n: usize = 0;
        while let Some(&d) = s.get(*i).filter(|d| d.is_ascii_digit()) {
            n = n.saturating_mul(10).saturating_add(usize::from(d - b'0'));
            *i += 1;
        }
        n
    };
    if s.get(i) == Some(&b'*') {
        i += 1;
        let w = star.next()?;
        spec.left |= w < 0;
        spec.width = usize::try_from(w.unsigned_abs()).unwrap_or(usize::MAX);
    } else {
        spec.width = number(&mut i);
    }
    if s.get(i) == Some(&b'.') {
        i += 1;
        if s.get(i) == Some(&b'*') {
            i += 1;
            spec.precision = usize::try_from(star.next()?).ok();
        } else {
            spec.precision = Some(number(&mut i));
        }
    }
    if s.get(i) == Some(&b'l') {
        i += 1;
    }
    spec.conv = *s.get(i).filter(|c| b"eEfFgG".contains(c))?;
    Some((spec, i + 1))
}

/// `|v|` (finite) rounded to `prec + 1` significant digits: the digits,
/// without a decimal point, and the decimal exponent of the first one.
/// Zero gives `prec + 1` zeros and exponent 0, as C's `%e` does.
fn sci_digits(a: f64, prec: usize) -> (String, i32) {
    let mut s = String::new();
    let exp = push_sci_mantissa(&mut s, a, prec);
    if s.len() > 1 {
        s.remove(1); // the '.'
    }
    (s, exp)
}

/// Append `|v|` (finite) rounded to `prec + 1` significant digits as
/// `d.ddd` (`d` alone for a precision of 0), and return the decimal
/// exponent of the first digit.
fn push_sci_mantissa(out: &mut String, a: f64, prec: usize) -> i32 {
    if let Some((n, exp)) = sci_quick(a, prec) {
        let n = crate::format::Decimal::unsigned(n);
        // ASCII digits, prec + 1 of them
        let (first, rest) = n.as_bytes().split_at(1);
        out.push(char::from(first[0]));
        if prec > 0 {
            out.push('.');
            push_ascii(out, rest);
        }
        return exp;
    }
    // Rust writes e.g. "1.2345e-7" or "5e0": C's digits, then its own
    // exponent, taken off here
    let start = out.len();
    let _ = write!(out, "{a:.prec$e}");
    let e = out[start..].rfind('e').map_or(out.len(), |e| start + e);
    let exp = out[e..].get(1..).and_then(|x| x.parse().ok()).unwrap_or(0);
    out.truncate(e);
    exp
}

/// `%.Ne`'s significant digits of `a` (finite, positive) as an integer of
/// N + 1 digits, and the decimal exponent of the first, by scaling `a`
/// with one exact power of ten, where that is sure to round as the exact
/// decimal expansion does; `None` elsewhere. With N at most 6 the scaled
/// value is below 10^7 and has an error under 2^-23 (one rounding of a
/// product or quotient by an exactly held power of ten), so a fraction
/// more than 10^-3 from one half rounds the same way in both. An exponent
/// guessed one off (near a power of ten) is put right by scaling again;
/// digits that round up to 10^(N+1) are 10^N of the next exponent. (pmval
/// formats every value of 10^4 or more so; Rust's exact formatting is
/// several times slower.)
fn sci_quick(a: f64, prec: usize) -> Option<(u64, i32)> {
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ];
    if prec > 6 || !(a > 0.0 && a.is_finite()) {
        return None;
    }
    let (lo, hi) = (POW10[prec], POW10[prec + 1]);
    // `a` scaled to N + 1 digits before the point for exponent `exp`
    let scaled = |exp: i32| -> Option<f64> {
        let k = prec as i32 - exp;
        Some(if k >= 0 { a * POW10.get(k as usize)? } else { a / POW10.get(k.unsigned_abs() as usize)? })
    };
    // floor(log10(a)), or one below it: from the binary exponent
    // (78913 / 2^18 is log10(2) to six places; subnormals are not taken)
    let e2 = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    if e2 < -1000 {
        return None;
    }
    let mut exp = (e2 * 78913) >> 18;
    let mut y = scaled(exp)?;
    if y >= hi {
        exp += 1;
        y = scaled(exp)?;
    } else if y < lo {
        exp -= 1;
        y = scaled(exp)?;
    }
    if !(lo..hi).contains(&y) {
        return None;
    }
    let whole = y.floor();
    let frac = y - whole;
    if (frac - 0.5).abs() < 1e-3 {
        return None;
    }
    // below 10^7: exact in a u64
    let n = whole as u64 + u64::from(frac > 0.5);
    Some(if n == hi as u64 { (lo as u64, exp + 1) } else { (n, exp) })
}

/// Append C's exponent: `e` or `E`, a sign, and at least two digits.
fn push_exponent(out: &mut String, exp: i32, upper: bool) {
    out.push(if upper { 'E' } else { 'e' });
    out.push(if exp < 0 { '-' } else { '+' });
    let e = exp.unsigned_abs();
    if e < 10 {
        out.push('0');
    }
    push_ascii(out, crate::format::Decimal::unsigned(u64::from(e)).as_bytes());
}

/// `%e`: `d.ddd` (precision digits after the point) and the exponent.
fn push_e_style(out: &mut String, digits: &str, exp: i32, alt: bool, upper: bool) {
    out.push_str(&digits[..1]);
    if digits.len() > 1 || alt {
        out.push('.');
    }
    out.push_str(&digits[1..]);
    push_exponent(out, exp, upper);
}

/// Whether `a`, which rounds to `10^p` at `p` significant digits, is below
/// `10^p` (so the rounding carried into a new decade). Such an `a` is at
/// least 9.5, and its integer part is exact, so counting the digits of that
/// decides. Only reached in that rare case.
fn carried_to_exponent(a: f64, p: usize) -> bool {
    format!("{:.0}", a.trunc()).len() == p
}

/// `%g`'s fixed style from significant digits whose first has exponent
/// `exp` (where `-4 <= exp < digits.len()`): the same digits, placed.
fn push_f_style(out: &mut String, digits: &str, exp: i32, alt: bool) {
    if exp < 0 {
        out.push_str("0.");
        for _ in 0..exp.unsigned_abs() - 1 {
            out.push('0');
        }
        out.push_str(digits);
    } else {
        let int_len = exp.unsigned_abs() as usize + 1;
        out.push_str(&digits[..int_len]);
        if digits.len() > int_len || alt {
            out.push('.');
        }
        out.push_str(&digits[int_len..]);
    }
}

/// Drop trailing zeros after the decimal point, and then the point itself,
/// from the number that starts at `start` in `out` (`%g` without `#`).
fn strip_fraction_zeros(out: &mut String, start: usize) {
    if out[start..].contains('.') {
        let keep = out.trim_end_matches('0').trim_end_matches('.').len();
        out.truncate(keep);
    }
}

/// `%.Nf` of `a` (finite, not negative) by scaling it to an integer, where
/// that is sure to round as the exact decimal expansion does; `false`
/// (nothing pushed) elsewhere. With N at most 6 and `a`·10^N below 2^40,
/// the product is computed with an error under 2^-13, so a fraction more
/// than 10^-3 from one half rounds the same way in both. (pmval formats
/// each value so; Rust's exact formatting is several times slower.)
fn push_fixed_quick(out: &mut String, a: f64, prec: usize) -> bool {
    const POW10: [f64; 7] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6];
    let Some(&scale) = POW10.get(prec) else { return false };
    let y = a * scale;
    if y.is_nan() || y >= (1u64 << 40) as f64 {
        return false;
    }
    let whole = y.floor();
    let frac = y - whole;
    if (frac - 0.5).abs() < 1e-3 {
        return false;
    }
    // below 2^40 + 1: exact in a u64
    let n = crate::format::Decimal::unsigned(whole as u64 + u64::from(frac > 0.5));
    let digits = n.as_bytes();
    if prec == 0 {
        push_ascii(out, digits);
    } else if digits.len() <= prec {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', prec - digits.len()));
        push_ascii(out, digits);
    } else {
        let (int, fraction) = digits.split_at(digits.len() - prec);
        push_ascii(out, int);
        out.push('.');
        push_ascii(out, fraction);
    }
    true
}

/// ASCII bytes (digits) appended to `out`.
fn push_ascii(out: &mut String, bytes: &[u8]) {
    out.extend(bytes.iter().map(|&b| char::from(b)));
}

/// The digits of finite, non-negative `a` for `spec` (no sign, no padding).
fn push_number(out: &mut String, spec: &FloatSpec, a: f64, prec: usize) {
    let upper = spec.conv.is_ascii_uppercase();
    match spec.conv.to_ascii_lowercase() {
        b'f' => {
            if !push_fixed_quick(out, a, prec) {
                let _ = write!(out, "{a:.prec$}");
            }
            if spec.alt && prec == 0 {
                out.push('.');
            }
        }
        b'e' => {
            let exp = push_sci_mantissa(out, a, prec);
            if prec == 0 && spec.alt {
                out.push('.');
            }
            push_exponent(out, exp, upper);
        }
        _ => {
            // %g: P significant digits (P = 1 for a precision of 0); the
            // exponent X they get decides the style, and the fixed style
            // with precision P - 1 - X shows exactly the same digits.
            let p = prec.max(1);
            let (mut digits, exp) = sci_digits(a, p - 1);
            // p <= MAX_FIELD, so it fits an i64 with room to spare
            let p_i64 = p as i64;
            if i64::from(exp) == p_i64 && carried_to_exponent(a, p) {
                // glibc quirk: it picks the style from the unrounded value
                // (exponent P - 1, so fixed with precision 0), and when
                // rounding then carries to 10^P it switches to the exponent
                // style but keeps that precision of 0: `%#.3g` of 999.5 is
                // "1.e+03", not C's "1.00e+03". Without `#` the zeros would
                // be stripped anyway, so the answer is the same either way.
                push_e_style(out, "1", exp, spec.alt, upper);
            } else if exp >= -4 && i64::from(exp) < p_i64 {
                let start = out.len();
                push_f_style(out, &digits, exp, spec.alt);
                if !spec.alt {
                    strip_fraction_zeros(out, start);
                }
            } else {
                if !spec.alt {
                    let keep = digits.trim_end_matches('0').len().max(1);
                    digits.truncate(keep);
                }
                push_e_style(out, &digits, exp, spec.alt, upper);
            }
        }
    }
}

/// Format `v` as C's `printf` does with `spec`: the digits, then the sign,
/// then padding to the width. Never panics; width and precision beyond
/// [`MAX_FIELD`] are clamped to it.
#[doc(alias = "printf")]
#[doc(alias = "snprintf")]
pub fn format_f64(spec: &FloatSpec, v: f64) -> String {
    let mut out = String::new();
    push_f64(&mut out, spec, v);
    out
}

/// [`format_f64`], appended to `out`.
pub fn push_f64(out: &mut String, spec: &FloatSpec, v: f64) {
    let sign = if v.is_sign_negative() {
        "-" // also for -0.0 and a NaN with its sign bit set ("-nan")
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    };
    let width = spec.width.min(MAX_FIELD);
    let prec = spec.precision.unwrap_or(6).min(MAX_FIELD);
    let start = out.len();
    out.push_str(sign);
    let body = out.len();
    if v.is_finite() {
        push_number(out, spec, v.abs(), prec);
    } else {
        out.push_str(match (v.is_nan(), spec.conv.is_ascii_uppercase()) {
            (true, false) => "nan",
            (true, true) => "NAN",
            (false, false) => "inf",
            (false, true) => "INF",
        });
    }
    let fill = width.saturating_sub(out.len() - start);
    if fill == 0 {
        return;
    }
    if spec.left {
        out.extend(std::iter::repeat_n(' ', fill));
    } else {
        // the padding goes before the sign, or with zeros after it
        const SPACES: &str = "                                ";
        const ZEROS: &str = "00000000000000000000000000000000";
        let (at, pad) = if spec.zero && v.is_finite() { (body, ZEROS) } else { (start, SPACES) };
        let mut fill = fill;
        while fill > 0 {
            let k = fill.min(pad.len());
            out.insert_str(at, &pad[..k]);
            fill -= k;
        }
    }
}

/// `snprintf(buf, fmt, star..., v)` for a format that is exactly one float
/// conversion, e.g. `sprintf_f64("%.8g", &[], v)`; `None` for any other
/// format (see [`FloatSpec::parse`]). Never panics.
#[doc(alias = "printf")]
#[doc(alias = "sprintf")]
pub fn sprintf_f64(fmt: &str, star: &[i32], v: f64) -> Option<String> {
    FloatSpec::parse(fmt, star).map(|spec| format_f64(&spec, v))
}

/// Like [`sprintf_f64`] for a format with literal text before and after its
/// one float conversion, and `%%` for a percent sign anywhere, as PCP's
/// tools use: `"%*.0f.0   "`, `"%6.2fK"`. `None` unless the format holds
/// exactly one float conversion. Never panics.
#[doc(alias = "printf")]
#[doc(alias = "sprintf")]
pub fn sprintf_f64_text(fmt: &str, star: &[i32], v: f64) -> Option<String> {
    let mut out = String::with_capacity(fmt.len() + 24);
    push_f64_text(&mut out, fmt, star, v).then_some(out)
}

/// [`sprintf_f64_text`], appended to `out`; `false` (and `out` as it was)
/// for a format it does not take.
pub fn push_f64_text(out: &mut String, fmt: &str, star: &[i32], v: f64) -> bool {
    let start = out.len();
    let done = push_f64_text_at(out, fmt, star, v).is_some();
    if !done {
        out.truncate(start);
    }
    done
}

fn push_f64_text_at(out: &mut String, fmt: &str, star: &[i32], v: f64) -> Option<()> {
    let mut star = star.iter().copied();
    let mut converted = false;
    let mut rest = fmt;
    while let Some(pct) = rest.find('%') {
        out.push_str(&rest[..pct]);
        rest = &rest[pct..];
        if let Some(after) = rest.strip_prefix("%%") {
            out.push('%');
            rest = after;
        } else if converted {
            return None;
        } else {
            let (spec, used) = parse_spec(rest.as_bytes(), &mut star)?;
            push_f64(out, &spec, v);
            // `used` ends just after an ASCII letter, so it is a char boundary
            rest = rest.get(used..)?;
            converted = true;
        }
    }
    out.push_str(rest);
    converted.then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: &str, v: f64) -> String {
        sprintf_f64_text(fmt, &[], v).unwrap()
    }

    proptest::proptest! {
        #[test]
        fn quick_scientific_is_the_exact_formatting(bits in proptest::prelude::any::<u64>(), scale in -30i32..30, prec in 0usize..8) {
            // values of every magnitude from 1e-30 to 1e30 (near powers of
            // ten and halfway cases among them), and any bits
            let m = 1.0 + (bits >> 12) as f64 / (1u64 << 52) as f64;
            let near = [10f64.powi(scale), 10f64.powi(scale) * (1.0 - f64::EPSILON), 9.9995 * 10f64.powi(scale)];
            for a in [m * 10f64.powi(scale), f64::from_bits(bits).abs(), near[0], near[1], near[2], (bits % 100_000_000) as f64] {
                let mut quick = String::new();
                if let Some((n, exp)) = sci_quick(a, prec) {
                    let mut c = String::new();
                    push_sci_mantissa(&mut c, a, prec);
                    let _ = write!(quick, "{c}e{exp}");
                    proptest::prop_assert_eq!(quick, format!("{a:.prec$e}"));
                    proptest::prop_assert_eq!(n.to_string().len(), prec + 1);
                }
            }
        }

        #[test]
        fn quick_fixed_is_the_exact_formatting(bits in proptest::prelude::any::<u64>(), scale in 0i32..14, prec in 0usize..8) {
            // values of every magnitude from 1e-6 to 1e7, and any bits
            let m = (bits >> 12) as f64 / (1u64 << 52) as f64;
            for a in [m * 10f64.powi(scale - 6), f64::from_bits(bits).abs()] {
                let mut quick = String::new();
                if a.is_finite() && push_fixed_quick(&mut quick, a, prec) {
                    proptest::prop_assert_eq!(quick, format!("{a:.prec$}"));
                }
            }
        }
    }

    #[test]
    fn pushing_appends_or_leaves_the_string_as_it_was() {
        let mut out = String::from("v=");
        assert!(push_f64_text(&mut out, "%*.3f |", &[9], 2.5));
        assert!(push_f64_text(&mut out, "%-6.1E|", &[], -0.125));
        assert!(push_f64_text(&mut out, "%+08.2f", &[], 12.3456));
        assert_eq!(out, "v=    2.500 |-1.2E-01|+0012.35");
        // a second conversion, a missing star argument, no conversion
        for (fmt, star) in [("%f %f", &[][..]), ("%*.*f", &[3][..]), ("100%%", &[][..])] {
            assert!(!push_f64_text(&mut out, fmt, star, 1.0), "{fmt}");
            assert_eq!(out, "v=    2.500 |-1.2E-01|+0012.35", "{fmt}");
        }
    }

    #[test]
    fn quick_fixed_leaves_near_halves_and_big_values_alone() {
        let mut s = String::new();
        for (a, prec) in [(0.125, 2), (2.5, 0), (1.0005, 3), (1e13, 0), (0.5e-6, 6), (1e12, 2)] {
            assert!(!push_fixed_quick(&mut s, a, prec), "{a} {prec}");
        }
        assert!(s.is_empty());
        for (a, prec, want) in [
            (0.0, 2, "0.00"),
            (0.004, 2, "0.00"),
            (0.006, 2, "0.01"),
            (123.456, 0, "123"),
            (9.9996, 3, "10.000"),
            (0.05, 6, "0.050000"),
        ] {
            let mut s = String::new();
            assert!(push_fixed_quick(&mut s, a, prec), "{a} {prec}");
            assert_eq!(s, want);
            assert_eq!(f(&format!("%.{prec}f"), a), want);
        }
    }

    #[test]
    fn e_style() {
        assert_eq!(f("%e", 0.0), "0.000000e+00");
        assert_eq!(f("%e", -0.0), "-0.000000e+00");
        assert_eq!(f("%e", -14686.0), "-1.468600e+04");
        assert_eq!(f("%E", 1e300), "1.000000E+300");
        assert_eq!(f("%.3e", 5e-324), "4.941e-324");
        assert_eq!(f("%.0e", 12345.0), "1e+04");
        assert_eq!(f("%#.0e", 3.0), "3.e+00");
        assert_eq!(f("%.1e", 125.0), "1.2e+02"); // exact tie: to even
        assert_eq!(f("%.1e", 135.0), "1.4e+02");
        assert_eq!(f("%.2e", 9.995), "9.99e+00"); // 9.995 is below the tie
        assert_eq!(f("%.1e", 9.96), "1.0e+01");
    }

    #[test]
    fn f_style() {
        assert_eq!(f("%f", 1e22), "10000000000000000000000.000000");
        assert_eq!(f("%.0f", 1e23), "99999999999999991611392");
        assert_eq!(f("%6.2f", 1.23456), "  1.23");
        assert_eq!(f("%.0f", 0.5), "0");
        assert_eq!(f("%.0f", 1.5), "2");
        assert_eq!(f("%.0f", 2.5), "2");
        assert_eq!(f("%.2f", 0.125), "0.12");
        assert_eq!(f("%.2f", 0.375), "0.38");
        assert_eq!(f("%.2f", -0.001), "-0.00");
        assert_eq!(f("%#.0f", 7.0), "7.");
        assert_eq!(f("%+08.2f", 3.5), "+0003.50");
        assert_eq!(f("% f", 1.0), " 1.000000");
        assert_eq!(f("%+ f", 1.0), "+1.000000");
        assert_eq!(f("%-8.1f|", 2.25), "2.2     |");
    }

    #[test]
    fn g_style() {
        assert_eq!(f("%.8g", 3.4028234663852886e38), "3.4028235e+38");
        assert_eq!(f("%.16g", 0.1), "0.1");
        assert_eq!(f("%.17g", 0.1), "0.10000000000000001");
        assert_eq!(f("%g", 0.0), "0");
        assert_eq!(f("%g", -0.0), "-0");
        assert_eq!(f("%g", 100.0), "100");
        assert_eq!(f("%g", 100000.0), "100000");
        assert_eq!(f("%g", 999999.5), "1e+06");
        assert_eq!(f("%g", 1000000.0), "1e+06");
        assert_eq!(f("%g", 0.0001), "0.0001");
        assert_eq!(f("%g", 0.00001), "1e-05");
        assert_eq!(f("%g", 1.5e-7), "1.5e-07");
        assert_eq!(f("%G", 1.5e-7), "1.5E-07");
        assert_eq!(f("%.0g", 25.0), "2e+01");
        assert_eq!(f("%#g", 1.0), "1.00000");
        assert_eq!(f("%#.0g", 1.0), "1.");
        assert_eq!(f("%#.3g", 100.0), "100.");
        assert_eq!(f("%#.1g", 1e10), "1.e+10");
        assert_eq!(f("%.3g", 0.0001234), "0.000123");
        // glibc keeps the fixed style's precision 0 when rounding carries
        assert_eq!(f("%#.3g", 999.5), "1.e+03");
        assert_eq!(f("%#g", 999999.5), "1.e+06");
        assert_eq!(f("%#.3g", 1000.0), "1.00e+03");
        assert_eq!(f("%#.2g", 999.96), "1.0e+03");
        assert_eq!(f("%#.4g", 9.9996e-5), "0.0001000");
    }

    #[test]
    fn special_values() {
        assert_eq!(f("%f", f64::INFINITY), "inf");
        assert_eq!(f("%+F", f64::INFINITY), "+INF");
        assert_eq!(f("%08f", f64::NEG_INFINITY), "    -inf");
        assert_eq!(f("%e", f64::NAN), "nan");
        assert_eq!(f("%f", -f64::NAN), "-nan");
        assert_eq!(f("%-6G|", f64::NAN), "NAN   |");
        assert_eq!(f("% g", f64::NAN), " nan");
    }

    #[test]
    fn parsing_and_text() {
        assert_eq!(sprintf_f64("%*.8g", &[10], 1.5).unwrap(), "       1.5");
        assert_eq!(sprintf_f64("%*.8g", &[-6], 1.5).unwrap(), "1.5   ");
        assert_eq!(sprintf_f64("%*.*f", &[8, -1], 1.5).unwrap(), "1.500000");
        assert_eq!(sprintf_f64("%.f", &[], 1.5).unwrap(), "2");
        assert_eq!(sprintf_f64("%lf", &[], 1.5).unwrap(), "1.500000");
        assert_eq!(sprintf_f64_text("%*.0f.0   ", &[3], 0.0).unwrap(), "  0.0   ");
        assert_eq!(sprintf_f64_text("%6.2fK", &[], 1.234).unwrap(), "  1.23K");
        assert_eq!(sprintf_f64_text("%.0f%%", &[], 99.5).unwrap(), "100%");
        assert_eq!(sprintf_f64_text("é %g é", &[], 2.0).unwrap(), "é 2 é");
        for bad in ["%d", "%f%f", "%", "%*f", "x", "%f ", "%Lf", "%5"] {
            assert_eq!(sprintf_f64(bad, &[], 1.0), None, "{bad}");
        }
        assert_eq!(sprintf_f64_text("no conversion", &[], 1.0), None);
        assert_eq!(sprintf_f64_text("%f and %g", &[], 1.0), None);
        let spec = FloatSpec::parse("%-+#012.4e", &[]).unwrap();
        assert!(spec.left && spec.plus && spec.alt && spec.zero && !spec.space);
        assert_eq!((spec.width, spec.precision, spec.conv), (12, Some(4), b'e'));
    }

    #[test]
    fn huge_fields_are_clamped() {
        let v = [5e-324, 1.7976931348623157e308, -0.0, f64::NAN, 0.1];
        for fmt in ["%.99999999999999999999999f", "%99999999999999999999e", "%.*g"] {
            for &x in &v {
                let s = sprintf_f64(fmt, &[i32::MAX], x).unwrap();
                assert!(s.len() <= 2 * MAX_FIELD + 400, "{fmt} {x}");
            }
        }
        assert_eq!(sprintf_f64("%*f", &[i32::MIN], 1.0).unwrap().len(), MAX_FIELD);
        // up to the clamp, every digit of the exact expansion is shown
        let s = f("%.1074f", 5e-324);
        assert!(s.ends_with("625") && s.len() == 1076);
    }
}
