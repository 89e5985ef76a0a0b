//! C `printf` formatting of doubles (`%e %E %f %F %g %G` with flags, width
//! and precision), byte-identical to glibc's.
//!
//! Built on Rust's float formatting, which is exact and rounds ties to even
//! on the exact binary value, as glibc does in the default rounding mode;
//! this module adds C's exponent form, `%g`'s style choice and trailing-zero
//! removal, signs, flags and padding.

/// One parsed conversion specification, e.g. `%-+#012.4e`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloatSpec {
    /// The conversion: `b'e'`, `b'E'`, `b'f'`, `b'F'`, `b'g'` or `b'G'`.
    pub conv: u8,
    /// `-`: left-justify.
    pub left: bool,
    /// `+`: always a sign.
    pub plus: bool,
    /// space: a space where a plus sign would go.
    pub space: bool,
    /// `#`: always a decimal point; `%g` keeps trailing zeros.
    pub alt: bool,
    /// `0`: pad with zeros after the sign.
    pub zero: bool,
    /// Minimum field width.
    pub width: usize,
    /// Precision; `None` when omitted (6).
    pub precision: Option<usize>,
}

/// Precision beyond this is clamped: it bounds memory for hostile formats,
/// and is past the point where a double has any more digits to show.
const MAX_PRECISION: usize = 1100;

impl FloatSpec {
    /// Parse exactly one conversion such as `%*.8g` or `%6.2f`; each `*`
    /// takes the next value of `star` (a negative width left-justifies, a
    /// negative precision counts as omitted), as in C.
    #[doc(alias = "printf")]
    pub fn parse(fmt: &str, star: &[i32]) -> Option<FloatSpec> {
        let (spec, rest) = parse_spec(fmt.as_bytes(), &mut star.iter().copied())?;
        rest.is_empty().then_some(spec)
    }
}

fn parse_spec<'a>(s: &'a [u8], star: &mut impl Iterator<Item = i32>) -> Option<(FloatSpec, &'a [u8])> {
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
    if s.first() != Some(&b'%') {
        return None;
    }
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
    let number = |i: &mut usize| {
        let mut n: usize = 0;
        while let Some(d) = s.get(*i).filter(|d| d.is_ascii_digit()) {
            n = n.saturating_mul(10).saturating_add((d - b'0') as usize);
            *i += 1;
        }
        n
    };
    if s.get(i) == Some(&b'*') {
        i += 1;
        let w = star.next()?;
        if w < 0 {
            spec.left = true;
        }
        spec.width = w.unsigned_abs() as usize;
    } else {
        spec.width = number(&mut i);
    }
    if s.get(i) == Some(&b'.') {
        i += 1;
        if s.get(i) == Some(&b'*') {
            i += 1;
            let p = star.next()?;
            spec.precision = (p >= 0).then_some(p as usize);
        } else {
            spec.precision = Some(number(&mut i));
        }
    }
    spec.conv = *s.get(i).filter(|c| b"eEfFgG".contains(c))?;
    Some((spec, &s[i + 1..]))
}

/// Rust's `{:.p$e}` as C's `d.ddde+XX` pieces: (mantissa, exponent).
fn sci(v: f64, p: usize) -> (String, i32) {
    let s = format!("{:.*e}", p, v);
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    (m.to_string(), e.parse().unwrap_or(0))
}

fn exp_text(m: String, e: i32, upper: bool) -> String {
    let sign = if e < 0 { '-' } else { '+' };
    format!("{m}{}{sign}{:02}", if upper { 'E' } else { 'e' }, e.unsigned_abs())
}

fn strip_zeros(s: &mut String) {
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
}

/// Format `v` as C's printf does with `spec`.
#[doc(alias = "printf")]
#[doc(alias = "snprintf")]
pub fn format_f64(spec: &FloatSpec, v: f64) -> String {
    let upper = spec.conv.is_ascii_uppercase();
    let neg = v.is_sign_negative();
    let sign = if neg {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    };
    let a = v.abs();
    let p = spec.precision.unwrap_or(6).min(MAX_PRECISION);
    let mut zero_ok = spec.zero && !spec.left;
    let body = if !a.is_finite() {
        zero_ok = false;
        let t = if a.is_nan() { "nan" } else { "inf" };
        if upper {
            t.to_uppercase()
        } else {
            t.to_string()
        }
    } else {
        match spec.conv.to_ascii_lowercase() {
            b'f' => {
                let mut s = format!("{:.*}", p, a);
                if spec.alt && p == 0 {
                    s.push('.');
                }
                s
            }
            b'e' => {
                let (mut m, e) = sci(a, p);
                if spec.alt && p == 0 {
                    m.push('.');
                }
                exp_text(m, e, upper)
            }
            _ => {
                let p = p.max(1);
                let (_, x) = sci(a, p - 1);
                let mut s = if (x as i64) < p as i64 && x >= -4 {
                    format!("{:.*}", (p as i64 - 1 - x as i64) as usize, a)
                } else {
                    let (m, e) = sci(a, p - 1);
                    let mut m = m;
                    if !spec.alt {
                        strip_zeros(&mut m);
                    }
                    exp_text(m, e, upper)
                };
                if spec.alt {
                    if !s.contains('.') {
                        // "%#.3g" of 100 is "100.", of 1e+10 "1.e+10"
                        match s.find(['e', 'E']) {
                            Some(i) => s.insert(i, '.'),
                            None => s.push('.'),
                        }
                    }
                } else if !s.contains(['e', 'E']) {
                    strip_zeros(&mut s);
                }
                s
            }
        }
    };
    let len = sign.len() + body.len();
    let fill = spec.width.saturating_sub(len);
    if spec.left {
        format!("{sign}{body}{}", " ".repeat(fill))
    } else if zero_ok {
        format!("{sign}{}{body}", "0".repeat(fill))
    } else {
        format!("{}{sign}{body}", " ".repeat(fill))
    }
}

/// `sprintf(buf, fmt, ...star, v)` for a format that is exactly one float
/// conversion; `None` for anything else.
#[doc(alias = "sprintf")]
pub fn sprintf_f64(fmt: &str, star: &[i32], v: f64) -> Option<String> {
    FloatSpec::parse(fmt, star).map(|spec| format_f64(&spec, v))
}

/// Like [`sprintf_f64`] for a format with literal text around its one float
/// conversion (and `%%`), such as `"%*.0f.0   "` or `"%6.2fK"`.
pub fn sprintf_f64_text(fmt: &str, star: &[i32], v: f64) -> Option<String> {
    let s = fmt.as_bytes();
    let mut out = String::new();
    let mut star = star.iter().copied();
    let mut done = false;
    let mut i = 0;
    while i < s.len() {
        if s[i] != b'%' {
            let next = s[i..].iter().position(|&c| c == b'%').map_or(s.len(), |n| i + n);
            out.push_str(&fmt[i..next]);
            i = next;
        } else if s.get(i + 1) == Some(&b'%') {
            out.push('%');
            i += 2;
        } else if done {
            return None;
        } else {
            let (spec, rest) = parse_spec(&s[i..], &mut star)?;
            out.push_str(&format_f64(&spec, v));
            i = s.len() - rest.len();
            done = true;
        }
    }
    done.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: &str, v: f64) -> String {
        sprintf_f64(fmt, &[], v).unwrap()
    }

    #[test]
    fn well_known() {
        assert_eq!(f("%e", 0.0), "0.000000e+00");
        assert_eq!(f("%e", -14686.0), "-1.468600e+04");
        assert_eq!(f("%.8g", 3.4028234663852886e38), "3.4028235e+38");
        assert_eq!(f("%.16g", 0.1), "0.1");
        assert_eq!(f("%g", 100000.0), "100000");
        assert_eq!(f("%g", 1000000.0), "1e+06");
        assert_eq!(f("%g", 0.0001), "0.0001");
        assert_eq!(f("%g", 0.00001), "1e-05");
        assert_eq!(f("%#g", 1.0), "1.00000");
        assert_eq!(f("%6.2f", 1.23456), "  1.23");
        assert_eq!(f("%-8.3E", 1234.5), "1.234E+03");
        assert_eq!(f("%+08.2f", 3.5), "+0003.50");
        assert_eq!(f("%08f", f64::NEG_INFINITY), "    -inf");
        assert_eq!(f("%f", -f64::NAN), "-nan");
        assert_eq!(f("%.0f", 2.5), "2");
        assert_eq!(f("%#.0e", 3.0), "3.e+00");
        assert_eq!(sprintf_f64("%*.8g", &[10], 1.5).unwrap(), "       1.5");
        assert_eq!(sprintf_f64_text("%*.0f.0   ", &[3], 0.0).unwrap(), "  0.0   ");
        assert_eq!(sprintf_f64_text("%6.2fK", &[], 1.234).unwrap(), "  1.23K");
        assert_eq!(sprintf_f64("%d", &[], 1.0), None);
    }
}
