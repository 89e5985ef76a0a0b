//! The number readers of C's `sscanf` (`%d`, `%x`) as glibc implements
//! them, for tools whose arguments PCP reads that way.

/// `sscanf(s, "%d", &int)`: skip white space, read an optional sign and
/// decimal digits; `None` when no digit follows. Out-of-range values clamp
/// to the 64-bit `long` range and are then truncated to 32 bits, as glibc's
/// store into an `int` does.
pub fn scan_decimal_int(s: &[u8]) -> Option<i32> {
    match pcp_core::support::strtod::strtol_prefix(s) {
        (_, 0) => None,
        (v, _) => Some(v as i32),
    }
}

/// `sscanf(s, "%x", &unsigned)` for a string of hex digits only: the value
/// modulo 2^32, or `0xffffffff` when it exceeds 64 bits (glibc's `strtoul`
/// clamps); `None` for an empty string.
pub fn scan_hex_digits(s: &[u8]) -> Option<u32> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    // (no "0x" can be there: `x` is not a hex digit)
    Some(pcp_core::support::strtod::strtoull_prefix(s, 16).0 as u32)
}

/// `sscanf(arg, "%u.%u.%u")`: up to three dot-separated unsigned numbers
/// from the front (each may be preceded by white space and a sign, and is
/// reduced modulo 2^32 as `%u` does).
pub fn scan_dotted_u32(b: &[u8]) -> Vec<u32> {
    let mut out = Vec::new();
    let mut i = 0;
    while out.len() < 3 {
        let (neg, m, used) = pcp_core::support::strtod::strtoint_parts(&b[i..], 10);
        if used == 0 {
            break;
        }
        let v = u32::try_from(m).unwrap_or(u32::MAX);
        out.push(if neg { v.wrapping_neg() } else { v });
        i += used;
        if out.len() < 3 {
            if b.get(i) != Some(&b'.') {
                break;
            }
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_like_glibc() {
        assert_eq!(scan_decimal_int(b" 12"), Some(12));
        assert_eq!(scan_decimal_int(b"+5x"), Some(5));
        assert_eq!(scan_decimal_int(b"-0"), Some(0));
        assert_eq!(scan_decimal_int(b"99999999999"), Some(1215752191));
        assert_eq!(scan_decimal_int(b"abc"), None);
        assert_eq!(scan_decimal_int(b"-"), None);
        assert_eq!(scan_decimal_int(b"99999999999999999999"), Some(-1));
        assert_eq!(scan_decimal_int(b"-99999999999999999999"), Some(0));
    }

    #[test]
    fn dotted_unsigned_like_glibc() {
        assert_eq!(scan_dotted_u32(b"60.0.4"), [60, 0, 4]);
        assert_eq!(scan_dotted_u32(b"60.1x"), [60, 1]);
        assert_eq!(scan_dotted_u32(b"-1.2"), [u32::MAX, 2]);
        assert_eq!(scan_dotted_u32(b"x"), Vec::<u32>::new());
    }

    #[test]
    fn hex_like_glibc() {
        assert_eq!(scan_hex_digits(b"ff"), Some(255));
        assert_eq!(scan_hex_digits(b"1234567890"), Some(0x34567890));
        assert_eq!(scan_hex_digits(b"ffffffffffffffffff"), Some(u32::MAX));
        assert_eq!(scan_hex_digits(b""), None);
    }
}
