//! Character classes (C locale), the number readers (`strtol`, `strtod`)
//! and the caret error messages the time parsers share.

use super::SpecError;

/// Messages libpcp attaches under its caret.
pub(crate) const WHAT_MSG: &str = "unexpected value";
pub(crate) const MORE_MSG: &str = "more information expected";
pub(crate) const ALIGN_MSG: &str = "alignment specified by -A switch could not be applied";
pub(crate) const EMPTY_MSG: &str = "Null or empty specification";

/// The bytes C sees: up to the first NUL.
pub(crate) fn c_str(s: &[u8]) -> &[u8] {
    s.iter().position(|&b| b == 0).map_or(s, |n| &s[..n])
}

/// `isspace` in the C locale.
pub(crate) use pcp_core::support::strtod::is_c_space as is_space;

/// `isalpha` in the C locale.
pub(crate) fn is_alpha(b: u8) -> bool {
    b.is_ascii_alphabetic()
}

/// The position of the first byte at or after `pos` that is not white
/// space.
pub(crate) fn skip_space(s: &[u8], pos: usize) -> usize {
    pos + s.get(pos..).unwrap_or_default().iter().take_while(|&&b| is_space(b)).count()
}

/// Skip white space, then take `c` if it is next. `*pos` ends after the
/// white space, and after `c` if it was there.
pub(crate) fn parse_char(s: &[u8], pos: &mut usize, c: u8) -> bool {
    *pos = skip_space(s, *pos);
    if s.get(*pos) == Some(&c) {
        *pos += 1;
        true
    } else {
        false
    }
}

/// `strtol(s, &end, 10)`: the value (clamped to the `long` range, as
/// `strtol` does on overflow) and the length read; `None` if no digits.
pub(crate) fn strtol(s: &[u8]) -> Option<(i64, usize)> {
    let (v, n) = pcp_core::support::strtod::strtol_prefix(s);
    (n > 0).then_some((v, n))
}

/// libpcp's integer reader: white space, then a `strtol` number in
/// `min..=max`. On success `*pos` moves past it; otherwise it ends after
/// the white space.
pub(crate) fn parse_int(s: &[u8], pos: &mut usize, min: i64, max: i64) -> Option<i32> {
    *pos = skip_space(s, *pos);
    let (v, len) = strtol(&s[*pos..])?;
    if v < min || v > max {
        return None;
    }
    *pos += len;
    Some(v as i32)
}

/// libpcp's real number reader: white space, then a `strtod` number not
/// below `min` nor above `max` (so NaN passes). On success `*pos` moves
/// past it; otherwise it ends after the white space.
pub(crate) fn parse_double(s: &[u8], pos: &mut usize, min: f64, max: f64) -> Option<f64> {
    *pos = skip_space(s, *pos);
    let n = pcp_core::support::strtod::parse_prefix(&s[*pos..])?;
    if n.value < min || n.value > max {
        return None;
    }
    *pos += n.len;
    Some(n.value)
}

/// libpcp's two-line syntax error: the text, then a line that keeps the
/// text's white space and control bytes but blanks its printable
/// characters up to `point`, then `^ -- msg`.
pub(crate) fn caret(spec: &[u8], point: usize, msg: &str) -> SpecError {
    let mut m = Vec::with_capacity(2 * spec.len() + msg.len() + 8);
    m.extend_from_slice(spec);
    m.push(b'\n');
    m.extend(spec[..point.min(spec.len())].iter().map(|&b| if (0x21..0x7f).contains(&b) { b' ' } else { b }));
    m.extend_from_slice(b"^ -- ");
    m.extend_from_slice(msg.as_bytes());
    m.push(b'\n');
    SpecError { message: m }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtol_clamps_and_signs() {
        assert_eq!(strtol(b" -12x"), Some((-12, 4)));
        assert_eq!(strtol(b"+"), None);
        assert_eq!(strtol(b"99999999999999999999"), Some((i64::MAX, 20)));
        assert_eq!(strtol(b"-99999999999999999999"), Some((i64::MIN, 21)));
    }

    #[test]
    fn caret_keeps_tabs_and_blanks_the_rest() {
        assert_eq!(caret(b"a\tbc", 3, "m").message, b"a\tbc\n \t ^ -- m\n");
        assert_eq!(caret(b"", 0, EMPTY_MSG).message, b"\n^ -- Null or empty specification\n");
    }
}
