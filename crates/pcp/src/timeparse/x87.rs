//! The few C conversions libpcp's time parsers make whose results depend
//! on x86-64 hardware: `double` to integer casts (`cvttsd2si`, which gives
//! the "integer indefinite" value for NaN and out-of-range inputs) and
//! `long double` (x87, 64-bit significand) products of a fraction and a
//! power of ten.

/// `(long)x` for a `double`: truncation; NaN and out of range give
/// `i64::MIN`.
pub(crate) fn f64_to_i64(x: f64) -> i64 {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
    if x.is_nan() || !(-LIMIT..LIMIT).contains(&x) {
        i64::MIN
    } else {
        x as i64
    }
}

/// `(int)x` for a `double`: truncation; NaN and out of range give
/// `i32::MIN`.
pub(crate) fn f64_to_i32(x: f64) -> i32 {
    if x.is_nan() || x <= -2_147_483_649.0 || x >= 2_147_483_648.0 {
        i32::MIN
    } else {
        x as i32
    }
}

/// `m * 2^e` rounded to a 64-bit significand (ties to even): the
/// significand (below 2^64) and its exponent.
fn round64(m: u128, e: i32) -> (u128, i32) {
    let bits = 128 - m.leading_zeros() as i32;
    if bits <= 64 {
        return (m, e);
    }
    let drop = (bits - 64) as u32;
    let kept = m >> drop;
    let rem = m & ((1u128 << drop) - 1);
    let half = 1u128 << (drop - 1);
    let kept = kept + u128::from(rem > half || (rem == half && kept & 1 == 1));
    if kept >> 64 != 0 {
        (kept >> 1, e + drop as i32 + 1)
    } else {
        (kept, e + drop as i32)
    }
}

/// The integer part of `m * 2^e` (non-negative).
fn trunc(m: u128, e: i32) -> u128 {
    if e >= 0 {
        m.checked_shl(e as u32).unwrap_or(u128::MAX)
    } else if -e >= 128 {
        0
    } else {
        m >> (-e) as u32
    }
}

/// `(long)((long double)frac * scale [+ 0.5L])` for a `frac` in [0, 1)
/// (`-0.0` included) and a `scale` below 2^32; `None` outside that domain
/// (the caller knows what C gives there).
pub(crate) fn scaled_fraction(frac: f64, scale: u64, add_half: bool) -> Option<u64> {
    if !(0.0..1.0).contains(&frac) {
        return None;
    }
    if frac == 0.0 {
        return Some(0);
    }
    let bits = frac.to_bits();
    let exp_field = ((bits >> 52) & 0x7ff) as i32;
    let frac_field = bits & ((1u64 << 52) - 1);
    let (m, e) = if exp_field == 0 { (frac_field, -1074) } else { (frac_field | (1u64 << 52), exp_field - 1075) };
    // the product, rounded as the x87 unit rounds it
    let (p, pe) = round64(u128::from(m) * u128::from(scale), e);
    if !add_half {
        return u64::try_from(trunc(p, pe)).ok();
    }
    if pe >= -1 {
        // p * 2^pe is a multiple of 1/2 below 2^32: adding 1/2 is exact
        let twice = (p << (pe + 1) as u32) + 1;
        return u64::try_from(twice >> 1).ok();
    }
    let k = -pe; // >= 2
    if k - 1 > 126 {
        // 1/2 plus something below 2^-63: rounds to less than 1
        return Some(0);
    }
    let (s, se) = round64(p + (1u128 << (k - 1) as u32), pe);
    u64::try_from(trunc(s, se)).ok()
}

/// `pmtimespecFromReal` / `pmtimevalFromReal`: whole seconds by `(long)`
/// truncation, and the rest scaled by `scale` (10^9 or 10^6) and rounded
/// in `long double` arithmetic. The sub-second part may come out equal to
/// `scale` (no carry), or `i64::MIN` when C's conversion overflows.
#[doc(alias = "pmtimespecFromReal")]
#[doc(alias = "pmtimevalFromReal")]
pub(crate) fn from_real(secs: f64, scale: u64) -> (i64, i64) {
    let whole = f64_to_i64(secs);
    let frac = secs - whole as f64;
    let part = match scaled_fraction(frac, scale, true) {
        Some(v) => v as i64,
        // NaN, or a huge fraction (secs beyond time_t): indefinite
        None => i64::MIN,
    };
    (whole, part)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn casts_saturate_to_indefinite() {
        assert_eq!(f64_to_i64(f64::NAN), i64::MIN);
        assert_eq!(f64_to_i64(9.3e18), i64::MIN);
        assert_eq!(f64_to_i64(-2.5), -2);
        assert_eq!(f64_to_i32(2_147_483_647.9), i32::MAX);
        assert_eq!(f64_to_i32(-2_147_483_648.9), i32::MIN);
        assert_eq!(f64_to_i32(2_147_483_648.0), i32::MIN);
    }

    #[test]
    fn fractions_round_in_extended_precision() {
        assert_eq!(from_real(1.5, 1_000_000_000), (1, 500_000_000));
        assert_eq!(from_real(0.1, 1_000_000), (0, 100_000));
        // the largest double below 1 rounds up to a whole second's worth
        assert_eq!(from_real(1.0 - f64::EPSILON / 2.0, 1_000_000_000), (0, 1_000_000_000));
        assert_eq!(from_real(1e-300, 1_000_000_000), (0, 0));
        assert_eq!(from_real(f64::NAN, 1_000_000_000), (i64::MIN, i64::MIN));
        assert_eq!(from_real(-0.0, 1_000_000_000), (0, 0));
        // truncation without the half: 0.123456789 is a little below its decimal
        assert_eq!(scaled_fraction(0.123456789, 1_000_000_000, false), Some(123_456_788));
        assert_eq!(from_real(0.123456789, 1_000_000), (0, 123_457));
    }
}
