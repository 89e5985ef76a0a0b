//! Timestamps with nanosecond resolution.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A point in time as seconds and nanoseconds since the Unix epoch: the
/// `timespec` of `pmHighResResult`; `pmResult`'s `timeval` converts in.
///
/// ```
/// use pcp_core::Timestamp;
/// use std::time::Duration;
///
/// let t = Timestamp::from_timeval(1_514_851_200, 250_000);
/// assert_eq!((t.sec, t.nsec, t.usec()), (1_514_851_200, 250_000_000, 250_000));
/// assert_eq!(t.to_string(), "2018-01-02T00:00:00.250000000Z");
///
/// // nanoseconds past a second carry; arithmetic with Durations
/// let later = Timestamp::new(1_514_851_200, 1_750_000_000);
/// assert_eq!(later, t + Duration::from_millis(1500));
/// assert_eq!(later.duration_since(t), Some(Duration::from_millis(1500)));
/// assert_eq!(t.duration_since(later), None);
/// assert_eq!(later.as_secs_f64() - t.as_secs_f64(), 1.5);
/// ```
#[doc(alias = "pmTimespec")]
#[doc(alias = "pmTimeval")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Timestamp {
    /// Whole seconds since the epoch.
    pub sec: i64,
    /// Nanoseconds, 0..=999_999_999.
    pub nsec: u32,
}

impl Timestamp {
    /// From seconds and nanoseconds; nanoseconds beyond a second carry over.
    pub fn new(sec: i64, nsec: u32) -> Timestamp {
        Timestamp { sec: sec.saturating_add(i64::from(nsec / 1_000_000_000)), nsec: nsec % 1_000_000_000 }
    }

    /// From a `timeval` (seconds and microseconds) as libpcp loads a
    /// version 2 archive's: the microseconds times 1000 in 32-bit
    /// arithmetic, a signed count of nanoseconds added to the seconds
    /// (so 0xffffffff microseconds is 1 µs before the second).
    #[doc(alias = "__pmLoadTimeval")]
    pub fn from_timeval(sec: i64, usec: u32) -> Timestamp {
        Timestamp::from_signed_nsec(sec, usec.wrapping_mul(1000) as i32)
    }

    /// The instant `nsec` nanoseconds (negative: before) from `sec`, as
    /// libpcp's `__pmTimestamp` holds a record's time whose nanoseconds
    /// are out of range (saturating far outside `i64` seconds).
    pub fn from_signed_nsec(sec: i64, nsec: i32) -> Timestamp {
        let ns = i128::from(sec) * 1_000_000_000 + i128::from(nsec);
        Timestamp::from_nanos(ns).unwrap_or(if nsec < 0 {
            Timestamp { sec: i64::MIN, nsec: 0 }
        } else {
            Timestamp { sec: i64::MAX, nsec: 999_999_999 }
        })
    }

    /// The microseconds of a `timeval` for this instant (truncated).
    pub fn usec(self) -> u32 {
        self.nsec / 1000
    }

    /// Seconds since the epoch as a double (as PCP's tools compute deltas).
    pub fn as_secs_f64(self) -> f64 {
        self.sec as f64 + self.nsec as f64 / 1e9
    }
}

impl Timestamp {
    /// The time from `earlier` to this one, or `None` if `earlier` is later.
    pub fn duration_since(self, earlier: Timestamp) -> Option<Duration> {
        let ns = self.as_nanos() - earlier.as_nanos();
        u64::try_from(ns)
            .ok()
            .map(Duration::from_nanos)
            .or_else(|| (ns >= 0).then(|| Duration::new((ns / 1_000_000_000) as u64, (ns % 1_000_000_000) as u32)))
    }

    /// This time `d` later, or `None` past `i64::MAX` seconds.
    pub fn checked_add(self, d: Duration) -> Option<Timestamp> {
        let ns = self.as_nanos().checked_add(i128::try_from(d.as_nanos()).ok()?)?;
        Timestamp::from_nanos(ns)
    }

    /// This time `d` earlier, or `None` before `i64::MIN` seconds.
    pub fn checked_sub(self, d: Duration) -> Option<Timestamp> {
        let ns = self.as_nanos().checked_sub(i128::try_from(d.as_nanos()).ok()?)?;
        Timestamp::from_nanos(ns)
    }

    fn as_nanos(self) -> i128 {
        i128::from(self.sec) * 1_000_000_000 + i128::from(self.nsec)
    }

    fn from_nanos(ns: i128) -> Option<Timestamp> {
        let sec = i64::try_from(ns.div_euclid(1_000_000_000)).ok()?;
        Some(Timestamp { sec, nsec: ns.rem_euclid(1_000_000_000) as u32 })
    }

    /// As a [`SystemTime`], or `None` where that cannot hold it.
    pub fn to_system_time(self) -> Option<SystemTime> {
        let since = Duration::new(self.sec.unsigned_abs(), 0);
        let whole = if self.sec >= 0 { UNIX_EPOCH.checked_add(since) } else { UNIX_EPOCH.checked_sub(since) };
        whole?.checked_add(Duration::from_nanos(u64::from(self.nsec)))
    }
}

impl From<SystemTime> for Timestamp {
    /// The instant, to the nanosecond (saturating far outside
    /// `i64` seconds).
    fn from(t: SystemTime) -> Timestamp {
        match t.duration_since(UNIX_EPOCH) {
            Ok(d) => Timestamp { sec: i64::try_from(d.as_secs()).unwrap_or(i64::MAX), nsec: d.subsec_nanos() },
            Err(e) => {
                let ns = i128::try_from(e.duration().as_nanos()).unwrap_or(i128::MAX);
                Timestamp::from_nanos(-ns).unwrap_or(Timestamp { sec: i64::MIN, nsec: 0 })
            }
        }
    }
}

impl std::ops::Add<Duration> for Timestamp {
    type Output = Timestamp;
    /// # Panics
    /// Past `i64::MAX` seconds, as `SystemTime` does.
    fn add(self, d: Duration) -> Timestamp {
        self.checked_add(d).expect("overflow when adding a duration to a timestamp")
    }
}

impl std::ops::Sub<Duration> for Timestamp {
    type Output = Timestamp;
    /// # Panics
    /// Before `i64::MIN` seconds, as `SystemTime` does.
    fn sub(self, d: Duration) -> Timestamp {
        self.checked_sub(d).expect("overflow when subtracting a duration from a timestamp")
    }
}

/// The proleptic Gregorian date of a day counted from 1970-01-01: the
/// year, the month (1 to 12) and the day of the month (`None` where the
/// year overflows).
pub fn civil_date(days: i64) -> Option<(i64, i32, i32)> {
    let z = days.checked_add(719_468)?;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let mday = (doy - (153 * mp + 2) / 5 + 1) as i32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as i32;
    let year = yoe.checked_add(era.checked_mul(400)?)? + i64::from(month <= 2);
    Some((year, month, mday))
}

impl std::fmt::Display for Timestamp {
    /// RFC 3339 in UTC, to the nanosecond: `2026-11-21T18:25:11.758202000Z`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // (every i64 second's day has a year that fits)
        let (y, mo, d) = civil_date(self.sec.div_euclid(86_400)).unwrap_or((0, 0, 0));
        let (h, mi, s) = Utc.hms(self.sec).unwrap_or((0, 0, 0));
        write!(f, "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:09}Z", self.nsec)
    }
}

/// The time of day in some time zone, as `pmLocaltime` breaks a time
/// down: what value printers need to show timestamps inside values (event
/// records). `pcp::timezone::Zone` implements it for real zones.
#[doc(alias = "pmLocaltime")]
pub trait LocalTime {
    /// Hours, minutes and seconds of the day at `sec` seconds since the
    /// epoch, or `None` when the time cannot be broken down.
    fn hms(&self, sec: i64) -> Option<(u32, u32, u32)>;
}

/// Coordinated Universal Time.
#[derive(Clone, Copy, Debug, Default)]
pub struct Utc;

impl LocalTime for Utc {
    fn hms(&self, sec: i64) -> Option<(u32, u32, u32)> {
        let s = sec.rem_euclid(86_400) as u32;
        Some((s / 3600, s / 60 % 60, s % 60))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeval_microseconds_wrap_as_libpcp_multiplies_them() {
        // 0xffffffff * 1000 in 32 bits is -1000: 1 µs before the second
        assert_eq!(Timestamp::from_timeval(100, u32::MAX), Timestamp { sec: 99, nsec: 999_999_000 });
        // up to 2147483 µs the product stays positive and carries
        assert_eq!(Timestamp::from_timeval(100, 2_000_000), Timestamp { sec: 102, nsec: 0 });
        // 2147484 µs wraps past i32::MAX to about -2.147 s
        assert_eq!(Timestamp::from_timeval(100, 2_147_484), Timestamp { sec: 97, nsec: 852_516_704 });
        assert_eq!(Timestamp::from_timeval(100, 999_999), Timestamp { sec: 100, nsec: 999_999_000 });
        assert_eq!(Timestamp::from_signed_nsec(i64::MIN, -1), Timestamp { sec: i64::MIN, nsec: 0 });
    }

    #[test]
    fn utc_time_of_day() {
        assert_eq!(Utc.hms(0), Some((0, 0, 0)));
        assert_eq!(Utc.hms(86_399), Some((23, 59, 59)));
        assert_eq!(Utc.hms(-1), Some((23, 59, 59)));
    }

    #[test]
    fn arithmetic_and_display() {
        let t = Timestamp::new(1_763_749_511, 758_202_000);
        assert_eq!(t.to_string(), "2025-11-21T18:25:11.758202000Z");
        assert_eq!(Timestamp::new(-1, 0).to_string(), "1969-12-31T23:59:59.000000000Z");
        assert_eq!(Timestamp::new(951_782_400, 0).to_string(), "2000-02-29T00:00:00.000000000Z");
        let later = t + Duration::from_millis(1_500);
        assert_eq!(later, Timestamp::new(1_763_749_513, 258_202_000));
        assert_eq!(later.duration_since(t), Some(Duration::from_millis(1_500)));
        assert_eq!(t.duration_since(later), None);
        assert_eq!(later - Duration::from_millis(1_500), t);
        assert_eq!(Timestamp::new(i64::MAX, 0).checked_add(Duration::from_secs(1)), None);
        assert_eq!(Timestamp::from(t.to_system_time().unwrap()), t);
        assert_eq!(Timestamp::from(UNIX_EPOCH - Duration::from_nanos(1)), Timestamp::new(-1, 999_999_999));
    }

    #[test]
    fn carries_and_orders() {
        assert_eq!(Timestamp::new(1, 1_500_000_000), Timestamp { sec: 2, nsec: 500_000_000 });
        assert_eq!(Timestamp::from_timeval(3, 250_000).nsec, 250_000_000);
        assert!(Timestamp::new(1, 5) < Timestamp::new(1, 6));
        assert_eq!(Timestamp::new(0, 1234).usec(), 1);
    }

    proptest::proptest! {
        #[test]
        fn timeval_round_trips(sec in proptest::num::i64::ANY, usec in 0u32..1_000_000) {
            let t = Timestamp::from_timeval(sec, usec);
            proptest::prop_assert_eq!((t.sec, t.usec()), (sec, usec));
        }

        #[test]
        fn nanoseconds_normalise(sec in -1_000_000_000i64..1_000_000_000, nsec in proptest::num::u32::ANY) {
            let t = Timestamp::new(sec, nsec);
            proptest::prop_assert!(t.nsec < 1_000_000_000);
            proptest::prop_assert_eq!(t.sec as i128 * 1_000_000_000 + t.nsec as i128,
                                      sec as i128 * 1_000_000_000 + nsec as i128);
        }
    }
}
