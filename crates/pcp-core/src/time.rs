//! Timestamps with nanosecond resolution.

/// A point in time as seconds and nanoseconds since the Unix epoch: the
/// `timespec` of `pmHighResResult`; `pmResult`'s `timeval` converts in.
#[doc(alias = "pmTimespec")]
#[doc(alias = "pmTimeval")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
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

    /// From a `timeval` (seconds and microseconds).
    pub fn from_timeval(sec: i64, usec: u32) -> Timestamp {
        Timestamp::new(sec, usec.saturating_mul(1000).min(999_999_999))
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
    fn utc_time_of_day() {
        assert_eq!(Utc.hms(0), Some((0, 0, 0)));
        assert_eq!(Utc.hms(86_399), Some((23, 59, 59)));
        assert_eq!(Utc.hms(-1), Some((23, 59, 59)));
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
