//! Number and word readers with the observable behaviour of the C library
//! calls the Linux PMDA parses its files with (`sscanf` conversions,
//! `atoi`, `strtoul`): leading white space skipped, an optional sign, a
//! value out of range saturating as `strtoull` does, a negative number
//! wrapping as an unsigned conversion does, 32-bit conversions truncating
//! the 64-bit result. Nothing here allocates or panics.

/// A cursor over the bytes of one line or file.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scan<'a> {
    s: &'a [u8],
}

use pcp_core::support::strtod::{is_c_space as is_space, strtol_prefix, strtoull_prefix};

/// `strtoull(s, NULL, 10)` as an unsigned conversion stores it, and the
/// bytes used; `None` when there is no digit.
fn c_strtoull(s: &[u8]) -> Option<(u64, usize)> {
    let (v, n) = strtoull_prefix(s, 10);
    (n > 0).then_some((v, n))
}

/// `strtol(s, NULL, 10)` on a 64-bit `long`, and the bytes used; `None`
/// when there is no digit.
fn c_strtol(s: &[u8]) -> Option<(i64, usize)> {
    let (v, n) = strtol_prefix(s);
    (n > 0).then_some((v, n))
}

/// C's `atoi`: the leading decimal number of `s` as an `int`, 0 if none.
pub(crate) fn atoi(s: &[u8]) -> i32 {
    strtol_prefix(s).0 as i32
}

/// `strtoul(s, &end, 16)`: a hexadecimal number with an optional `0x`.
pub(crate) fn strtoul_hex(s: &[u8]) -> u64 {
    strtoull_prefix(s, 16).0
}

impl<'a> Scan<'a> {
    /// A cursor at the start of `s`.
    pub(crate) fn new(s: &'a [u8]) -> Scan<'a> {
        Scan { s }
    }

    /// What is left.
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.s
    }

    fn skip_ws(&mut self) {
        let n = self.s.iter().take_while(|&&b| is_space(b)).count();
        self.s = &self.s[n..];
    }

    /// `%llu` (and `%lu` on a 64-bit machine).
    pub(crate) fn u64(&mut self) -> Option<u64> {
        let (v, n) = c_strtoull(self.s)?;
        self.s = &self.s[n..];
        Some(v)
    }

    /// `%u`: the 64-bit conversion, truncated to 32 bits.
    pub(crate) fn u32(&mut self) -> Option<u32> {
        self.u64().map(|v| v as u32)
    }

    /// `%d`: `strtol`, truncated to 32 bits.
    pub(crate) fn i32(&mut self) -> Option<i32> {
        let (v, n) = c_strtol(self.s)?;
        self.s = &self.s[n..];
        Some(v as i32)
    }

    /// `%lf`: the longest prefix `strtod` reads.
    pub(crate) fn f64(&mut self) -> Option<f64> {
        self.skip_ws();
        let p = pcp_core::support::strtod::parse_prefix(self.s)?;
        if p.len == 0 {
            return None;
        }
        self.s = self.s.get(p.len..).unwrap_or_default();
        Some(p.value)
    }

    /// `%f`: as `strtof` reads it (rounded once, to single precision).
    pub(crate) fn f32(&mut self) -> Option<f32> {
        self.skip_ws();
        let p = pcp_core::support::strtod::parse_prefix(self.s)?;
        if p.len == 0 {
            return None;
        }
        let text = self.s.get(..p.len).unwrap_or_default();
        self.s = self.s.get(p.len..).unwrap_or_default();
        // a plain decimal is rounded straight to f32; other forms (hex,
        // inf, nan) lose nothing going through f64
        let direct = std::str::from_utf8(text).ok().and_then(|t| t.parse::<f32>().ok());
        Some(direct.unwrap_or(p.value as f32))
    }

    /// `%s`: the next run of non-space bytes.
    pub(crate) fn word(&mut self) -> Option<&'a [u8]> {
        self.skip_ws();
        let n = self.s.iter().take_while(|&&b| !is_space(b)).count();
        if n == 0 {
            return None;
        }
        let (w, rest) = self.s.split_at(n);
        self.s = rest;
        Some(w)
    }

    /// A literal byte in a format: white space in the input is not
    /// skipped first (as `sscanf` does for a non-space directive).
    pub(crate) fn lit(&mut self, b: u8) -> bool {
        match self.s.split_first() {
            Some((&c, rest)) if c == b => {
                self.s = rest;
                true
            }
            _ => false,
        }
    }
}

/// The lines of a file, without their newlines.
pub(crate) fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let text = text.strip_suffix(b"\n").unwrap_or(text);
    let mut rest = (!text.is_empty()).then_some(text);
    std::iter::from_fn(move || {
        let r = rest?;
        match memchr::memchr(b'\n', r) {
            Some(i) => {
                rest = Some(&r[i + 1..]);
                Some(&r[..i])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

/// Does `s` start with `prefix`?
pub(crate) fn starts(s: &[u8], prefix: &[u8]) -> bool {
    s.starts_with(prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsigned_conversions_wrap_and_saturate_like_glibc() {
        assert_eq!(Scan::new(b"  42 x").u64(), Some(42));
        assert_eq!(Scan::new(b"-1").u64(), Some(u64::MAX));
        assert_eq!(Scan::new(b"99999999999999999999999").u64(), Some(u64::MAX));
        assert_eq!(Scan::new(b"4294967296").u32(), Some(0));
        assert_eq!(Scan::new(b"-1").u32(), Some(u32::MAX));
        assert_eq!(Scan::new(b"x1").u64(), None);
        assert_eq!(Scan::new(b"").u64(), None);
        assert_eq!(Scan::new(b"+").u64(), None);
    }

    #[test]
    fn atoi_and_hex_read_leading_numbers() {
        assert_eq!(atoi(b"-1\n"), -1);
        assert_eq!(atoi(b"1500"), 1500);
        assert_eq!(atoi(b"4294967295"), -1);
        assert_eq!(atoi(b"junk"), 0);
        assert_eq!(strtoul_hex(b"0x1003"), 0x1003);
        assert_eq!(strtoul_hex(b"82"), 0x82);
        assert_eq!(strtoul_hex(b"0xg"), 0);
    }

    #[test]
    fn floats_and_words() {
        let mut s = Scan::new(b"6.07 7.30 1/2");
        assert_eq!(s.f32(), Some(6.07f32));
        assert_eq!(s.f32(), Some(7.30f32));
        assert_eq!(s.u32(), Some(1));
        assert!(s.lit(b'/'));
        assert_eq!(s.u32(), Some(2));
        assert_eq!(Scan::new(b" 21317.16 1").f64(), Some(21317.16));
        let mut w = Scan::new(b"  vda  0");
        assert_eq!(w.word(), Some(&b"vda"[..]));
        assert_eq!(w.word(), Some(&b"0"[..]));
        assert_eq!(w.word(), None);
    }

    #[test]
    fn lines_split_without_a_trailing_empty_line() {
        assert_eq!(lines(b"a\nb\n").collect::<Vec<_>>(), vec![&b"a"[..], b"b"]);
        assert_eq!(lines(b"").count(), 0);
        assert_eq!(lines(b"a").count(), 1);
        assert_eq!(lines(b"a\n\nb").collect::<Vec<_>>(), vec![&b"a"[..], b"", b"b"]);
    }
}
