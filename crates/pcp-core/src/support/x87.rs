//! The C arithmetic on x86-64 `long double` (the x87 80-bit format, a
//! 64-bit significand) and the `double` to integer conversions whose
//! results libpcp's answers depend on, done on integers so that they come
//! out the same on any machine.
//!
//! libpcp computes a timestamp difference, `__pmTimestampSub`, as
//! `(double)(sec_a - sec_b + (long double)(nsec_a - nsec_b) / 1e9L)`: the
//! quotient and the sum are each rounded to a 64-bit significand before
//! the final rounding to `double`. Archive replay compares these
//! differences for equality (is a record exactly at the requested time?)
//! and feeds them to the interpolation formulas, so they must be the same
//! doubles libpcp gets. Its time parsers convert `double` seconds to
//! integers (`cvttsd2si`, which gives the "integer indefinite" value for
//! NaN and out-of-range inputs) and scale fractions of a second in
//! `long double`.

/// A signed binary number `mant * 2^exp` (`mant` unnormalised).
#[derive(Clone, Copy, Debug)]
struct Num {
    neg: bool,
    mant: u128,
    exp: i32,
}

fn bit_len(v: u128) -> u32 {
    128 - v.leading_zeros()
}

/// Round `v` to `bits` significant bits, ties to even; the result keeps
/// its scale (`exp`) adjusted.
fn round_to(n: Num, bits: u32) -> Num {
    let len = bit_len(n.mant);
    if len <= bits {
        return n;
    }
    let shift = len - bits;
    let mut mant = n.mant >> shift;
    let rem = n.mant & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    if rem > half || (rem == half && mant & 1 == 1) {
        mant += 1;
    }
    let mut exp = n.exp + shift as i32;
    if bit_len(mant) > bits {
        mant >>= 1;
        exp += 1;
    }
    Num { neg: n.neg, mant, exp }
}

/// `nd / 1e9` rounded to a 64-bit significand.
fn quotient(nd: i64) -> Num {
    const D: u128 = 1_000_000_000;
    let n = nd.unsigned_abs() as u128;
    if n == 0 {
        return Num { neg: false, mant: 0, exp: 0 };
    }
    // n * 2^k / D lands in [2^63, 2^64) for the right k; n < 2^33 keeps
    // n << k inside 128 bits
    let mut k: i32 = 63 + 30 - bit_len(n) as i32;
    loop {
        let q = if k >= 0 { (n << k) / D } else { (n >> -k) / D };
        if q >= 1 << 64 {
            k -= 1;
        } else if q < 1 << 63 {
            k += 1;
        } else {
            break;
        }
    }
    let num = n << k;
    let (mut q, rem) = (num / D, num % D);
    if 2 * rem > D || (2 * rem == D && q & 1 == 1) {
        q += 1;
    }
    let mut exp = -k;
    if q == 1 << 64 {
        q >>= 1;
        exp += 1;
    }
    Num { neg: nd < 0, mant: q, exp }
}

/// Shift right with a sticky bit, so later rounding stays exact.
fn shr_sticky(v: u128, s: u32) -> u128 {
    if s == 0 {
        v
    } else if s >= 128 {
        u128::from(v != 0)
    } else {
        (v >> s) | u128::from(v & ((1u128 << s) - 1) != 0)
    }
}

/// `(long double)sd + q`, rounded to a 64-bit significand.
fn add(sd: i64, q: Num) -> Num {
    let a = sd.unsigned_abs() as u128;
    if q.mant == 0 {
        return round_to(Num { neg: sd < 0, mant: a, exp: 0 }, 64);
    }
    // common scale 2^-k with k = -q.exp; keep a << k below 2^126
    let k = -q.exp;
    let (a_scaled, qm, scale) = if k <= 0 {
        // q is an integer already (|nd| >= 1e9 * 2^63 cannot happen, but
        // stay general)
        (a, q.mant << (-k) as u32, 0)
    } else {
        let room = 126 - bit_len(a).max(1) as i32;
        let kk = k.min(room);
        (a << kk as u32, shr_sticky(q.mant, (k - kk) as u32), kk)
    };
    let (neg, mant) = if (sd < 0) == q.neg {
        (q.neg, a_scaled + qm)
    } else if a_scaled >= qm {
        (sd < 0, a_scaled - qm)
    } else {
        (q.neg, qm - a_scaled)
    };
    round_to(Num { neg: neg && mant != 0, mant, exp: -scale }, 64)
}

fn to_f64(n: Num) -> f64 {
    let r = round_to(n, 53);
    // (exact: the significand fits a double's, and a power of two in the
    // normal range is built from its bits rather than by powi)
    let scale =
        if (-1022..=1023).contains(&r.exp) { f64::from_bits(((r.exp + 1023) as u64) << 52) } else { 2f64.powi(r.exp) };
    let v = (r.mant as u64 as f64) * scale;
    if r.neg {
        -v
    } else {
        v
    }
}

/// `__pmTimestampSub(a, b)`: `a - b` in seconds, as libpcp computes it on
/// x86-64 (see the module comment). Timestamps are `(sec, nsec)` as libpcp
/// holds them: `nsec` is not necessarily below 10^9.
#[doc(alias = "__pmTimestampSub")]
pub fn timestamp_sub(a: (i64, i32), b: (i64, i32)) -> f64 {
    let sd = a.0.wrapping_sub(b.0);
    let nd = a.1.wrapping_sub(b.1) as i64;
    if nd == 0 && sd.unsigned_abs() <= 1 << 53 {
        // whole seconds apart (as samples a whole number of seconds from
        // the start are): every step is exact
        return sd as f64;
    }
    to_f64(add(sd, quotient(nd)))
}

/// `(long)x` for a `double`: truncation; NaN and out of range give
/// `i64::MIN`.
pub fn f64_to_i64(x: f64) -> i64 {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
    if x.is_nan() || !(-LIMIT..LIMIT).contains(&x) {
        i64::MIN
    } else {
        x as i64
    }
}

/// `(int)x` for a `double`: truncation; NaN and out of range give
/// `i32::MIN`.
pub fn f64_to_i32(x: f64) -> i32 {
    if x.is_nan() || x <= -2_147_483_649.0 || x >= 2_147_483_648.0 {
        i32::MIN
    } else {
        x as i32
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
pub fn scaled_fraction(frac: f64, scale: u64, add_half: bool) -> Option<u64> {
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
    let Num { mant: p, exp: pe, .. } =
        round_to(Num { neg: false, mant: u128::from(m) * u128::from(scale), exp: e }, 64);
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
    let Num { mant: s, exp: se, .. } = round_to(Num { neg: false, mant: p + (1u128 << (k - 1) as u32), exp: pe }, 64);
    u64::try_from(trunc(s, se)).ok()
}

/// `pmtimespecFromReal` / `pmtimevalFromReal`: whole seconds by `(long)`
/// truncation, and the rest scaled by `scale` (10^9 or 10^6) and rounded
/// in `long double` arithmetic. The sub-second part may come out equal to
/// `scale` (no carry), or `i64::MIN` when C's conversion overflows.
#[doc(alias = "pmtimespecFromReal")]
#[doc(alias = "pmtimevalFromReal")]
pub fn from_real(secs: f64, scale: u64) -> (i64, i64) {
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
    fn simple_differences() {
        assert_eq!(timestamp_sub((10, 500_000_000), (9, 0)), 1.5);
        assert_eq!(timestamp_sub((9, 0), (10, 500_000_000)), -1.5);
        assert_eq!(timestamp_sub((5, 7), (5, 7)), 0.0);
        assert!(timestamp_sub((5, 7), (5, 7)).is_sign_positive());
        // the extended-precision quotient and sum do not give the double
        // nearest 1e-9; this is what gcc's long double code gives
        assert_eq!(timestamp_sub((1, 0), (0, 999_999_999)), 1.0000000000157452e-9);
    }

    /// The arithmetic without the shortcuts: whole seconds through the
    /// quotient and sum, and the final scaling by `powi`.
    fn unhurried(a: (i64, i32), b: (i64, i32)) -> f64 {
        let r = round_to(add(a.0.wrapping_sub(b.0), quotient(a.1.wrapping_sub(b.1) as i64)), 53);
        let v = (r.mant as f64) * 2f64.powi(r.exp);
        if r.neg {
            -v
        } else {
            v
        }
    }

    proptest::proptest! {
        #[test]
        fn shortcuts_change_nothing(
            sa in proptest::prop_oneof![proptest::prelude::any::<i64>(), -(1i64 << 54)..(1i64 << 54), -5000i64..5000],
            sb in proptest::prop_oneof![proptest::prelude::any::<i64>(), -(1i64 << 54)..(1i64 << 54), -5000i64..5000],
            na in proptest::prop_oneof![proptest::prelude::any::<i32>(), 0i32..1_000_000_000],
            nb in proptest::prelude::any::<i32>(),
            same_nsec in proptest::prelude::any::<bool>(),
        ) {
            let nb = if same_nsec { na } else { nb };
            let (got, want) = (timestamp_sub((sa, na), (sb, nb)), unhurried((sa, na), (sb, nb)));
            proptest::prop_assert_eq!(got.to_bits(), want.to_bits());
        }
    }

    #[test]
    fn close_to_plain_double_arithmetic() {
        for (sd, nd) in [(1i64, 100_000_000i32), (3, 300_000_001), (-7, 999_999_999), (123456, -1)] {
            let got = timestamp_sub((sd, nd), (0, 0));
            let plain = sd as f64 + nd as f64 / 1e9;
            assert!((got - plain).abs() <= plain.abs() * 4.0 * f64::EPSILON, "{sd} {nd}");
        }
    }

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
