//! Time zones as PCP uses them: `pmNewZone(tz)` sets `$TZ` and the C
//! library's `localtime` does the rest. Archives carry the collector's `$TZ`
//! string (e.g. `AEDT-11`, `EST-11EST-10,89/2:00,299/2:00`, `PST8PDT`) and
//! sometimes a zoneinfo name (`:Australia/Melbourne`).
//!
//! [`Zone`] reproduces glibc's reading of such a string: a name starting
//! with `:` is a zoneinfo file; otherwise a zoneinfo file of that name is
//! tried first (so `PST8PDT` and `UTC` come from the database, as glibc
//! does), then the string is read as a POSIX TZ rule.

use pcp_core::time::civil_date;
use pcp_core::{PmError, PmResult};

/// A time zone, as a `$TZ` string selects it.
#[doc(alias = "pmNewZone")]
#[derive(Clone, Debug)]
pub struct Zone {
    tz: tz::TimeZone,
    /// Read from a zoneinfo file (else a POSIX TZ rule applies at all
    /// times).
    from_file: bool,
    /// The offset from UTC, for a zone whose offset never changes.
    fixed: Option<i32>,
}

/// A broken-down local time (`struct tm`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tm {
    /// Year, e.g. 2026.
    pub year: i32,
    /// Month, 1..=12.
    pub month: u8,
    /// Day of the month, 1..=31.
    pub mday: u8,
    /// Hour, 0..=23.
    pub hour: u8,
    /// Minute.
    pub min: u8,
    /// Second.
    pub sec: u8,
    /// Day of the week, 0 = Sunday.
    pub wday: u8,
    /// Day of the year, 0-based.
    pub yday: u16,
    /// Is daylight saving time in effect?
    pub isdst: bool,
    /// Seconds east of UTC.
    pub gmtoff: i32,
    /// The zone's abbreviation, e.g. `AEDT`.
    pub abbrev: String,
}

/// The integer fields of a C `struct tm`, as `mktime` reads them and
/// libpcp's time parsers fill them: any values, in or out of their usual
/// ranges (`mktime` normalises), with `-1` often meaning "not given".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CTm {
    /// Seconds.
    pub sec: i32,
    /// Minutes.
    pub min: i32,
    /// Hours.
    pub hour: i32,
    /// Day of the month.
    pub mday: i32,
    /// Month, 0-based.
    pub mon: i32,
    /// Years since 1900.
    pub year: i32,
    /// Day of the week, 0 = Sunday.
    pub wday: i32,
    /// Day of the year, 0-based.
    pub yday: i32,
    /// Daylight saving time: positive yes, 0 no, negative unknown.
    pub isdst: i32,
}

impl From<&Tm> for CTm {
    fn from(t: &Tm) -> CTm {
        CTm {
            sec: t.sec.into(),
            min: t.min.into(),
            hour: t.hour.into(),
            mday: t.mday.into(),
            mon: i32::from(t.month) - 1,
            year: t.year.wrapping_sub(1900),
            wday: t.wday.into(),
            yday: t.yday.into(),
            isdst: t.isdst.into(),
        }
    }
}

/// What glibc's `mktime` remembers between calls: the UTC offset it found
/// last time, its first guess for the next call. A process starts with 0;
/// which of two equal local times in a DST overlap `mktime` picks depends
/// on it, so callers that must agree with a C tool thread one through
/// their calls in the same order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MktimeGuess(i64);

/// Days before each month, normal and leap years.
const MON_YDAY: [[i64; 13]; 2] = [
    [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365],
    [0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366],
];

/// Is `year` (counted from 1900) a leap year?
fn leap_since_1900(year: i64) -> bool {
    let y = year.wrapping_add(1900);
    y.rem_euclid(4) == 0 && (y.rem_euclid(100) != 0 || y.rem_euclid(400) == 0)
}

/// Seconds from (year0, yday0 h0:m0:s0) to (year1, yday1 h1:m1:s1) with
/// no clock changes between them; years counted from 1900. The leap-day
/// count is kept in C `int`s, as glibc does.
#[allow(clippy::too_many_arguments)]
fn ydhms_diff(
    year1: i64,
    yday1: i64,
    h1: i32,
    m1: i32,
    s1: i32,
    year0: i64,
    yday0: i64,
    h0: i32,
    m0: i32,
    s0: i32,
) -> i64 {
    let quad = |y: i64| ((y >> 2).wrapping_add(475).wrapping_sub(i64::from(y & 3 == 0))) as i32;
    let cent = |q: i32| q.div_euclid(25);
    let (a4, b4) = (quad(year1), quad(year0));
    let (a100, b100) = (cent(a4), cent(b4));
    let (a400, b400) = (a100 >> 2, b100 >> 2);
    let leap_days = a4.wrapping_sub(b4).wrapping_sub(a100.wrapping_sub(b100)).wrapping_add(a400.wrapping_sub(b400));
    let days = year1
        .wrapping_sub(year0)
        .wrapping_mul(365)
        .wrapping_add(yday1)
        .wrapping_sub(yday0)
        .wrapping_add(i64::from(leap_days));
    let hours = days.wrapping_mul(24).wrapping_add(i64::from(h1)).wrapping_sub(i64::from(h0));
    let mins = hours.wrapping_mul(60).wrapping_add(i64::from(m1)).wrapping_sub(i64::from(m0));
    mins.wrapping_mul(60).wrapping_add(i64::from(s1)).wrapping_sub(i64::from(s0))
}

/// The day (counted from 1970-01-01) and the second of that day `t +
/// offset` seconds after the epoch; `None` where the day does not fit 64
/// bits.
fn day_and_second(t: i64, offset: i64) -> Option<(i64, i32)> {
    // (in 128 bits only where the sum overflows 64)
    match t.checked_add(offset) {
        Some(total) => Some((total.div_euclid(86_400), total.rem_euclid(86_400) as i32)),
        None => {
            let total = i128::from(t) + i128::from(offset);
            Some((i64::try_from(total.div_euclid(86_400)).ok()?, total.rem_euclid(86_400) as i32))
        }
    }
}

/// glibc's `__offtime`: the broken-down time `t + offset` seconds after
/// the epoch (no zone); `None` if the year does not fit a C `int` after
/// subtracting 1900.
fn offtime(t: i64, offset: i64) -> Option<CTm> {
    let (days, rem) = day_and_second(t, offset)?;
    let (year, month, mday) = civil_date(days)?;
    let tm_year = i32::try_from(year.checked_sub(1900)?).ok()?;
    let leap = leap_since_1900(i64::from(tm_year));
    let yday = MON_YDAY[usize::from(leap)][(month - 1) as usize] as i32 + mday - 1;
    Some(CTm {
        sec: rem % 60,
        min: rem / 60 % 60,
        hour: rem / 3600,
        mday,
        mon: month - 1,
        year: tm_year,
        wday: (4 + days).rem_euclid(7) as i32,
        yday,
        isdst: 0,
    })
}

/// glibc's moment of one POSIX TZ rule change in `year` (`compute_change`):
/// January 1st of the year (a day count kept in a C `int`), the rule's
/// day, then its time of day in the local time it ends.
fn glibc_change(day: &tz::timezone::RuleDay, secs: i32, offset: i32, year: i32) -> i64 {
    use tz::timezone::RuleDay;
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let mut t: i64 = if year > 1970 {
        let y1 = year - 1;
        let days = (year - 1970)
            .wrapping_mul(365)
            .wrapping_add(y1 / 4 - 1970 / 4)
            .wrapping_sub(y1 / 100 - 1970 / 100)
            .wrapping_add(y1 / 400 - 1970 / 400);
        i64::from(days) * 86_400
    } else {
        0
    };
    match day {
        RuleDay::Julian1WithoutLeap(j) => {
            let d = i64::from(j.get());
            t += (d - 1) * 86_400;
            if d >= 60 && leap {
                t += 86_400;
            }
        }
        RuleDay::Julian0WithLeap(j) => t += i64::from(j.get()) * 86_400,
        RuleDay::MonthWeekDay(mwd) => {
            let m = i32::from(mwd.month());
            let before = MON_YDAY[usize::from(leap)][(m - 1) as usize];
            let this_month = MON_YDAY[usize::from(leap)][m as usize] - before;
            t += before * 86_400;
            // Zeller's congruence: the weekday of the month's first day
            let m1 = (m + 9) % 12 + 1;
            let yy0 = if m <= 2 { year.wrapping_sub(1) } else { year };
            let (yy1, yy2) = (yy0 / 100, yy0 % 100);
            let mut dow = ((26 * m1 - 2) / 10 + 1 + yy2 + yy2 / 4 + yy1 / 4 - 2 * yy1) % 7;
            if dow < 0 {
                dow += 7;
            }
            let mut d = i32::from(mwd.week_day()) - dow;
            if d < 0 {
                d += 7;
            }
            for _ in 1..mwd.week() {
                if i64::from(d + 7) >= this_month {
                    break;
                }
                d += 7;
            }
            t += i64::from(d) * 86_400;
        }
    }
    t - i64::from(offset) + i64::from(secs)
}

/// Is `t` in summer time under `rule`, as glibc's `__tz_compute` decides:
/// with the year of `t` in UTC, start and end computed for that year.
fn glibc_rule_is_dst(rule: &tz::timezone::AlternateTime, t: i64) -> Option<bool> {
    let year = offtime(t, 0)?.year.checked_add(1900)?;
    let start = glibc_change(rule.dst_start(), rule.dst_start_time(), rule.std().ut_offset(), year);
    let end = glibc_change(rule.dst_end(), rule.dst_end_time(), rule.dst().ut_offset(), year);
    Some(if start > end { t < end || t >= start } else { t >= start && t < end })
}

const ZONEINFO: &str = "/usr/share/zoneinfo";

impl Zone {
    fn made(tz: tz::TimeZone, from_file: bool) -> Zone {
        // without transitions, whether from a file or a TZ string, the one
        // rule (or the one local time type) applies at all times
        let r = tz.as_ref();
        let fixed = match (r.transitions(), r.extra_rule()) {
            ([], Some(tz::timezone::TransitionRule::Fixed(ltt))) => Some(ltt.ut_offset()),
            ([], None) => r.local_time_types().first().map(|ltt| ltt.ut_offset()),
            _ => None,
        };
        Zone { tz, from_file, fixed }
    }

    /// The zone a `$TZ` string names (`pmNewZone`). `PM_ERR_GENERIC` if it
    /// names nothing usable.
    #[doc(alias = "pmNewZone")]
    pub fn new(tz_string: &str) -> PmResult<Zone> {
        // pmNewZone appends "+0" to three-letter names (a workaround for
        // old C libraries), so "EST" is zero hours from UTC, named EST
        if tz_string.len() == 3 {
            return Zone::from_tz_env(&format!("{tz_string}+0"));
        }
        Zone::from_tz_env(tz_string)
    }

    /// The zone the C library uses when `$TZ` is `tz_string` (no
    /// `pmNewZone` adjustment).
    pub fn from_tz_env(tz_string: &str) -> PmResult<Zone> {
        let file = |name: &str| -> Option<Zone> {
            let path = if name.starts_with('/') { name.to_string() } else { format!("{ZONEINFO}/{name}") };
            let bytes = std::fs::read(path).ok()?;
            tz::TimeZone::from_tz_data(&bytes).ok().map(|tz| Zone::made(tz, true))
        };
        let posix = |s: &str| tz::TimeZone::from_posix_tz(s).ok().map(|tz| Zone::made(tz, false));
        let zone = if let Some(name) = tz_string.strip_prefix(':') {
            file(name)
        } else {
            file(tz_string).or_else(|| posix(tz_string))
        };
        zone.ok_or(PmError::PM_ERR_GENERIC)
    }

    /// The local zone, as the C library finds it: `$TZ` if set (empty is
    /// UTC), else `/etc/localtime`, else UTC.
    pub fn local() -> Zone {
        match std::env::var("TZ") {
            Ok(tz) if tz.is_empty() => Zone::utc(),
            Ok(tz) => Zone::from_tz_env(&tz).unwrap_or_else(|_| Zone::utc()),
            Err(_) => std::fs::read("/etc/localtime")
                .ok()
                .and_then(|b| tz::TimeZone::from_tz_data(&b).ok())
                .map_or_else(Zone::utc, |tz| Zone::made(tz, true)),
        }
    }

    /// Coordinated Universal Time.
    pub fn utc() -> Zone {
        Zone::made(tz::TimeZone::utc(), false)
    }

    /// `localtime`: the local time `sec` seconds after the epoch.
    #[doc(alias = "pmLocaltime")]
    pub fn localtime(&self, sec: i64) -> PmResult<Tm> {
        let (c, ltt) = self.pm_breakdown(sec)?;
        let (gmtoff, abbrev) = (ltt.ut_offset(), ltt.time_zone_designation().to_string());
        Ok(Tm {
            year: c.year + 1900,
            month: (c.mon + 1) as u8,
            mday: c.mday as u8,
            hour: c.hour as u8,
            min: c.min as u8,
            sec: c.sec as u8,
            wday: c.wday as u8,
            yday: c.yday as u16,
            isdst: c.isdst > 0,
            gmtoff,
            abbrev,
        })
    }

    /// [`Zone::localtime`] as a C `struct tm`, without the zone's name (for
    /// callers that want only the date and time of day, often): fails
    /// where `localtime` does.
    #[doc(alias = "pmLocaltime")]
    pub fn local_clock(&self, sec: i64) -> PmResult<CTm> {
        self.pm_breakdown(sec).map(|(c, _)| c)
    }

    /// [`Zone::breakdown`], failing also where the full year does not fit
    /// [`Tm::year`].
    fn pm_breakdown(&self, sec: i64) -> PmResult<(CTm, tz::LocalTimeType)> {
        let (c, ltt) = self.breakdown(sec).ok_or(PmError::PM_ERR_GENERIC)?;
        c.year.checked_add(1900).ok_or(PmError::PM_ERR_GENERIC)?;
        Ok((c, ltt))
    }

    /// glibc's `localtime`: the broken-down local time, its UTC offset and
    /// the zone's abbreviation; `None` where the year does not fit a C
    /// `int`. Between a zoneinfo file's transitions the file decides;
    /// after the last one (and always, for a POSIX TZ string) the zone's
    /// rule is evaluated as glibc does it, quirks included.
    fn breakdown(&self, t: i64) -> Option<(CTm, tz::LocalTimeType)> {
        let tz = self.tz.as_ref();
        let rule = tz.extra_rule().as_ref().filter(|_| match tz.transitions().last() {
            Some(last) => t >= last.unix_leap_time(),
            None => !self.from_file,
        });
        let (ltt, isdst) = match rule {
            Some(tz::timezone::TransitionRule::Alternate(alt)) => {
                let isdst = glibc_rule_is_dst(alt, t)?;
                (if isdst { *alt.dst() } else { *alt.std() }, isdst)
            }
            Some(tz::timezone::TransitionRule::Fixed(ltt)) => (*ltt, ltt.is_dst()),
            None => {
                let ltt = *tz.find_local_time_type(t).ok()?;
                (ltt, ltt.is_dst())
            }
        };
        let mut c = offtime(t, ltt.ut_offset().into())?;
        c.isdst = i32::from(isdst);
        Some((c, ltt))
    }

    /// `localtime` as a C `struct tm`; `None` where glibc's would fail
    /// (the year does not fit).
    pub fn localtime_c(&self, sec: i64) -> Option<CTm> {
        self.breakdown(sec).map(|(c, _)| c)
    }

    /// glibc's `localtime_r` into a `struct tm` holding `buf`, what
    /// libpcp's `pmLocaltime` hands on whether or not it failed. Where the
    /// year does not fit, glibc has already written the time of day, the
    /// weekday and the year cut to an `int` (from the UTC time for a TZ
    /// rule; for a zoneinfo file, at the offset of the last transition's
    /// local time type, or before the first of its first standard one,
    /// whose DST flag it also writes); the other fields are `buf`'s.
    pub(crate) fn localtime_as_glibc_leaves(&self, sec: i64, buf: CTm) -> CTm {
        if let Some(c) = self.localtime_c(sec) {
            return c;
        }
        let mut c = buf;
        let mut offset = 0;
        if self.from_file {
            let r = self.tz.as_ref();
            let types = r.local_time_types();
            let ltt = match r.transitions() {
                [.., last] if sec >= last.unix_leap_time() => types.get(last.local_time_type_index()),
                _ => types.iter().find(|t| !t.is_dst()).or(types.first()),
            };
            if let Some(ltt) = ltt {
                offset = ltt.ut_offset();
                c.isdst = i32::from(ltt.is_dst());
            }
        }
        // (any i64 time and offset give a day and a year that fit 64 bits)
        let Some((days, rem)) = day_and_second(sec, i64::from(offset)) else { return c };
        (c.hour, c.min, c.sec) = (rem / 3600, rem / 60 % 60, rem % 60);
        c.wday = (4 + days).rem_euclid(7) as i32;
        // the year as glibc counts it in a long, then stored in an int
        if let Some((year, _, _)) = civil_date(days) {
            c.year = year.wrapping_sub(1900) as i32;
        }
        c
    }

    /// `mktime` as glibc 2.36 computes it: the instant whose local time in
    /// this zone is `tm` (normalising out-of-range fields), found by
    /// probing from the offset `guess` remembers and updating it. For a
    /// time that a DST change skips, the result is the requested time read
    /// with the offset on one side of the gap; for one that happens twice,
    /// the guess decides which. `None` is C's `-1` error.
    #[doc(alias = "__pmMktime")]
    pub fn mktime(&self, tm: &CTm, guess: &mut MktimeGuess) -> Option<i64> {
        let mon_rem = tm.mon % 12;
        let neg_rem = i32::from(mon_rem < 0);
        let mon_years = tm.mon / 12 - neg_rem;
        let year = i64::from(tm.year) + i64::from(mon_years);
        let month = (mon_rem + 12 * neg_rem) as usize;
        let yday = MON_YDAY[usize::from(leap_since_1900(year))][month] - 1 + i64::from(tm.mday);
        let sec_requested = tm.sec;
        let sec = tm.sec.clamp(0, 59);
        let neg_guess = 0i64.wrapping_sub(guess.0) as i32;
        let (hour, min) = (tm.hour, tm.min);
        let diff = |t: &CTm| ydhms_diff(year, yday, hour, min, sec, t.year.into(), t.yday.into(), t.hour, t.min, t.sec);

        let t0 = ydhms_diff(year, yday, hour, min, sec, 70, 0, 0, 0, neg_guess);
        let (mut t, mut t1, mut t2) = (t0, t0, t0);
        let mut dst2 = false;
        let mut probes = 6;
        let mut got;
        loop {
            got = self.ranged_localtime(&mut t)?;
            let dt = diff(&got);
            if dt == 0 {
                break;
            }
            // oscillating across a gap: settle for this side
            if t == t1 && t != t2 && (got.isdst < 0 || dst2 <= (got.isdst != 0)) {
                break;
            }
            probes -= 1;
            if probes == 0 {
                return None;
            }
            t1 = t2;
            t2 = t;
            t = t.wrapping_add(dt);
            dst2 = got.isdst != 0;
        }
        guess.0 = t.wrapping_sub(t0).wrapping_sub(neg_guess.into());
        if sec_requested != got.sec {
            let adjust = i64::from(sec == 0 && got.sec == 60) - i64::from(sec) + i64::from(sec_requested);
            t = t.checked_add(adjust)?;
            self.localtime_c(t)?;
        }
        Some(t)
    }

    /// glibc's `ranged_convert`: `localtime` of `*t`, or of the in-range
    /// instant nearest to it (found by bisection towards 0), updating `*t`.
    fn ranged_localtime(&self, t: &mut i64) -> Option<CTm> {
        if let Some(tm) = self.localtime_c(*t) {
            return Some(tm);
        }
        let avg = |a: i64, b: i64| (a >> 1) + (b >> 1) + ((a | b) & 1);
        let (mut ok, mut bad) = (0i64, *t);
        let mut ok_tm = None;
        loop {
            let mid = avg(ok, bad);
            if mid == ok || mid == bad {
                break;
            }
            match self.localtime_c(mid) {
                Some(tm) => {
                    ok = mid;
                    ok_tm = Some(tm);
                }
                None => bad = mid,
            }
        }
        let tm = ok_tm?;
        *t = ok;
        Some(tm)
    }

    /// `ctime` (`pmCtime`) without its newline: `Sun Nov 29 10:01:02 1970`.
    #[doc(alias = "pmCtime")]
    pub fn ctime(&self, sec: i64) -> PmResult<String> {
        const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
        const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
        let t = self.localtime(sec)?;
        Ok(format!(
            "{} {} {:2} {:02}:{:02}:{:02} {}",
            DAYS[t.wday as usize % 7],
            MONTHS[(t.month as usize + 11) % 12],
            t.mday,
            t.hour,
            t.min,
            t.sec,
            t.year
        ))
    }
}

/// The time of day in this zone (what [`Zone::localtime`] gives, for
/// callers that need only the clock).
impl pcp_core::LocalTime for Zone {
    fn hms(&self, sec: i64) -> Option<(u32, u32, u32)> {
        // (a fixed offset: the time of day at once, for any time whose
        // year fits, as these do)
        if let Some(offset) = self.fixed.filter(|_| sec.unsigned_abs() < 1 << 55) {
            let (_, s) = day_and_second(sec, i64::from(offset))?;
            let s = s as u32;
            return Some((s / 3600, s / 60 % 60, s % 60));
        }
        let (c, _) = self.pm_breakdown(sec).ok()?;
        Some((c.hour as u32, c.min as u32, c.sec as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcp_core::LocalTime;

    fn tm(year: i32, mon: i32, mday: i32, hour: i32, min: i32) -> CTm {
        CTm { year: year - 1900, mon: mon - 1, mday, hour, min, isdst: -1, ..CTm::default() }
    }

    // expected values from glibc 2.36's mktime, each sequence in a fresh
    // process with TZ=America/New_York

    #[test]
    fn mktime_overlap_follows_the_last_offset() {
        let ny = Zone::from_tz_env("America/New_York").unwrap_or_else(|_| Zone::utc());
        let mut fresh = MktimeGuess::default();
        assert_eq!(ny.mktime(&tm(2022, 11, 6, 1, 30), &mut fresh), Some(1_667_712_600));
        let mut guess = MktimeGuess::default();
        assert_eq!(ny.mktime(&tm(2022, 12, 1, 12, 0), &mut guess), Some(1_669_914_000));
        assert_eq!(ny.mktime(&tm(2022, 11, 6, 1, 30), &mut guess), Some(1_667_716_200));
    }

    #[test]
    fn mktime_gap_reads_the_earlier_offset() {
        let ny = Zone::from_tz_env("America/New_York").unwrap_or_else(|_| Zone::utc());
        assert_eq!(ny.mktime(&tm(2023, 3, 12, 2, 30), &mut MktimeGuess::default()), Some(1_678_606_200));
        let mut guess = MktimeGuess::default();
        assert_eq!(ny.mktime(&tm(2022, 7, 1, 12, 0), &mut guess), Some(1_656_691_200));
        assert_eq!(ny.mktime(&tm(2023, 3, 12, 2, 30), &mut guess), Some(1_678_606_200));
    }

    #[test]
    fn mktime_normalises_fields() {
        let utc = Zone::utc();
        // January 32nd, hour 25, minute -1
        let t = CTm { year: 123, mon: 0, mday: 32, hour: 25, min: -1, sec: 0, isdst: -1, ..CTm::default() };
        assert_eq!(utc.mktime(&t, &mut MktimeGuess::default()), Some(1_675_299_540));
    }

    #[test]
    fn three_letter_names_are_utc_plus_zero() {
        let est = Zone::new("EST").unwrap_or_else(|_| Zone::utc());
        let t = est.localtime(0).unwrap_or_else(|_| panic!("localtime"));
        assert_eq!((t.hour, t.gmtoff, t.abbrev.as_str()), (0, 0, "EST"));
        // unchanged for TZ itself
        let est = Zone::from_tz_env("EST5").unwrap_or_else(|_| Zone::utc());
        assert_eq!(est.localtime(0).map(|t| t.gmtoff), Ok(-5 * 3600));
    }

    #[test]
    fn far_future_dst_as_glibc_computes_it() {
        // glibc's rule arithmetic overflows a C int for years this far out:
        // it calls this May day summer time in Melbourne (see tzset.c)
        let mel = Zone::from_tz_env(":Australia/Melbourne").unwrap_or_else(|_| Zone::utc());
        let t = mel.localtime_c(638_351_551_611_000);
        assert_eq!(t.map(|t| (t.year + 1900, t.mon + 1, t.mday, t.hour, t.isdst)), Some((20_230_525, 5, 25, 2, 1)));
    }

    #[test]
    fn a_failed_localtime_leaves_what_glibc_leaves() {
        // from glibc 2.36: localtime_r of 628847748331930688 and its
        // negative into a struct filled with 0x55 bytes
        let buf = CTm { sec: 7, min: 7, hour: 7, mday: 7, mon: 7, year: 7, wday: 7, yday: 7, isdst: 7 };
        let got = |tz: &str, t: i64| {
            let z = Zone::from_tz_env(tz).unwrap_or_else(|_| Zone::utc());
            let c = z.localtime_as_glibc_leaves(t, buf);
            (c.sec, c.min, c.hour, c.mday, c.mon, c.year, c.wday, c.yday, c.isdst)
        };
        let t = 628_847_748_331_930_688;
        assert_eq!(got("AEDT-11", t), (8, 58, 10, 7, 7, -1_547_444_553, 4, 7, 7));
        assert_eq!(got("AEDT-11", -t), (52, 1, 13, 7, 7, 1_547_444_692, 3, 7, 7));
        assert_eq!(got(":Australia/Melbourne", t), (8, 58, 21, 7, 7, -1_547_444_553, 4, 7, 1));
        assert_eq!(got(":Australia/Melbourne", -t), (44, 41, 22, 7, 7, 1_547_444_692, 3, 7, 0));
        assert_eq!(got(":America/New_York", t), (8, 58, 5, 7, 7, -1_547_444_553, 4, 7, 0));
        assert_eq!(got(":America/New_York", -t), (50, 5, 8, 7, 7, 1_547_444_692, 3, 7, 0));
        // where it does not fail: the whole time
        let z = Zone::new("UTC").unwrap_or_else(|_| Zone::utc());
        assert_eq!(z.localtime_as_glibc_leaves(0, buf), z.localtime_c(0).unwrap_or_default());
    }

    #[test]
    fn offtime_either_side_of_midnight_and_out_of_range() {
        let ymdhms = |t: i64, off: i64| offtime(t, off).map(|c| (c.year, c.mon, c.mday, c.hour, c.min, c.sec, c.wday));
        assert_eq!(ymdhms(-1, 0), Some((69, 11, 31, 23, 59, 59, 3)));
        assert_eq!(ymdhms(86_399, 1), Some((70, 0, 2, 0, 0, 0, 5)));
        assert_eq!(ymdhms(0, -3600), Some((69, 11, 31, 23, 0, 0, 3)));
        // the sum overflows 64 bits, or the year a C int: no time
        assert_eq!(ymdhms(i64::MAX, 1), None);
        assert_eq!(ymdhms(i64::MIN, -1), None);
        assert_eq!(ymdhms(i64::MAX - 10, 0), None);
    }

    #[test]
    fn time_of_day_agrees_with_localtime() {
        for tz in
            ["UTC", "EST-11EST-10,89/2:00,299/2:00", "AEST-10AEDT-11,M10.5.0/3,M3.5.0/2", "PST8PDT", "AEDT-11", "EST5"]
        {
            let z = Zone::new(tz).unwrap();
            // across a year, in steps that cross both transitions
            for sec in (1_700_000_000i64..1_732_000_000).step_by(3_607) {
                let tm = z.localtime(sec).unwrap();
                assert_eq!(z.hms(sec), Some((tm.hour as u32, tm.min as u32, tm.sec as u32)), "{tz} {sec}");
            }
            // before 1970, and where the year no longer fits
            for sec in [-1, -86_401, -(1 << 54), 1 << 54, (1 << 55) + 7, 1 << 62, i64::MIN, i64::MAX] {
                let tm = z.localtime(sec).ok();
                assert_eq!(z.hms(sec), tm.map(|tm| (tm.hour as u32, tm.min as u32, tm.sec as u32)), "{tz} {sec}");
            }
        }
    }
}
