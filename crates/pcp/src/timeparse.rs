//! Times and intervals as PCP's tools read them on their command lines:
//! `pmParseInterval` (`-t 30sec`, `1h30m`, `2.5 days`), the `-S`/`-T`/`-O`
//! times of `__pmParseTime` (`+30sec`, `-1h` from the end, `@ Tue Jan 10
//! 10:00:00 2023`, or free-form dates such as `yesterday` or
//! `2023-01-10 10:00`) and `pmParseTimeWindow`, which puts `-S`, `-T`,
//! `-A` and `-O` together against the bounds of an archive (or of "now
//! onwards" for a live source).
//!
//! Results and error messages are libpcp 6.0.3's, including its C
//! arithmetic: seconds and nanoseconds come from `double`s the way x86-64
//! hardware converts them, offsets pass through C `int`s, and local times
//! go through glibc's `mktime` (see [`Zone::mktime`]). Nothing here reads
//! the clock: "now" is a parameter, as is the time zone.

mod ctime;
mod getdate;
pub(crate) mod lex;

pub use ctime::parse_ctime;

use crate::timezone::{CTm, MktimeGuess, Zone};
use lex::{c_str, caret, parse_char, parse_double, skip_space, ALIGN_MSG, EMPTY_MSG, WHAT_MSG};
use pcp_core::Timestamp;
use std::fmt;

/// `PM_MAX_TIME_T`: as the seconds of an end bound, "no end" (a live
/// source).
pub const PM_MAX_TIME_T: i64 = i64::MAX;

const NANOS: i64 = 1_000_000_000;

/// A time or interval libpcp would not accept: its message, which quotes
/// the text with a caret under the problem, e.g.
/// `"junk\n^ -- unexpected value\n"`. Bytes, as the text given.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SpecError {
    message: Vec<u8>,
}

impl SpecError {
    /// The message, byte for byte as libpcp composes it (it ends with a
    /// newline).
    pub fn as_bytes(&self) -> &[u8] {
        &self.message
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.message))
    }
}

impl std::error::Error for SpecError {}

/// A `struct timespec` as libpcp's arithmetic leaves it: the nanoseconds
/// are not always normalised (they may equal 10^9, or be negative after a
/// NaN). For tests that compare with libpcp field by field.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct RawTime {
    /// Seconds.
    pub sec: i64,
    /// Nanoseconds (or microseconds for the `timeval` variants).
    pub nsec: i64,
}

impl RawTime {
    fn from_ts(t: Timestamp) -> RawTime {
        RawTime { sec: t.sec, nsec: t.nsec.into() }
    }

    /// The instant, normalised; `sub` units make a second.
    fn to_timestamp(self, sub: i64) -> Timestamp {
        let scale = i128::from(NANOS / sub);
        let total = i128::from(self.sec) * i128::from(NANOS) + i128::from(self.nsec) * scale;
        let sec = total.div_euclid(i128::from(NANOS));
        let nsec = total.rem_euclid(i128::from(NANOS)) as u32;
        match i64::try_from(sec) {
            Ok(sec) => Timestamp { sec, nsec },
            Err(_) if sec < 0 => Timestamp { sec: i64::MIN, nsec: 0 },
            Err(_) => Timestamp { sec: i64::MAX, nsec: 999_999_999 },
        }
    }

    /// As one count of nanoseconds in a C `int64` (wrapping).
    fn total_nanos(self) -> i64 {
        self.nsec.wrapping_add(self.sec.wrapping_mul(NANOS))
    }

    /// A C `int64` count of nanoseconds back to seconds and nanoseconds,
    /// by C's truncating division.
    fn from_total_nanos(n: i64) -> RawTime {
        RawTime { sec: n / NANOS, nsec: n % NANOS }
    }
}

/// The scales `pmParseInterval` knows: a name (matched ignoring case, a
/// final `s` dropped first) and seconds per unit, negative for fractions.
const SCALES: [(&[u8], i64); 17] = [
    (b"nanosecond", -1_000_000_000),
    (b"microsecond", -1_000_000),
    (b"millisecond", -1000),
    (b"second", 1),
    (b"minute", 60),
    (b"hour", 3600),
    (b"day", 86400),
    (b"msec", -1000),
    (b"usec", -1_000_000),
    (b"nsec", -1_000_000_000),
    (b"sec", 1),
    (b"min", 60),
    (b"hr", 3600),
    (b"s", 1),
    (b"m", 60),
    (b"h", 3600),
    (b"d", 86400),
];

/// An interval in seconds: numbers each followed by an optional scale,
/// summed in order (a number with no scale is seconds).
fn interval_seconds(spec: &[u8]) -> Result<f64, SpecError> {
    let s = c_str(spec);
    if s.is_empty() {
        return Err(caret(b"", 0, EMPTY_MSG));
    }
    let mut pos = 0;
    let mut secs = 0.0;
    while pos < s.len() {
        let Some(d) = parse_double(s, &mut pos, 0.0, PM_MAX_TIME_T as f64) else { break };
        pos = skip_space(s, pos);
        if pos == s.len() {
            secs += d;
            break;
        }
        let word = s[pos..].iter().take_while(|b| b.is_ascii_alphabetic()).count();
        if word == 0 {
            secs += d;
        } else {
            let mut len = word;
            if len > 1 && matches!(s[pos + len - 1], b's' | b'S') {
                len -= 1;
            }
            let name = &s[pos..pos + len];
            let Some(&(_, scale)) = SCALES.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) else { break };
            if scale < 0 {
                secs += d / (-scale) as f64;
            } else {
                secs += d * scale as f64;
            }
        }
        pos += word;
    }
    if pos < s.len() {
        return Err(caret(s, pos, WHAT_MSG));
    }
    Ok(secs)
}

/// `pmParseHighResInterval` with libpcp's unnormalised result.
#[doc(hidden)]
pub fn parse_high_res_interval_raw(spec: &[u8]) -> Result<RawTime, SpecError> {
    let (sec, nsec) = pcp_core::support::x87::from_real(interval_seconds(spec)?, NANOS as u64);
    Ok(RawTime { sec, nsec })
}

/// `pmParseInterval` with libpcp's unnormalised result (microseconds in
/// `nsec`).
#[doc(hidden)]
pub fn parse_interval_raw(spec: &[u8]) -> Result<RawTime, SpecError> {
    let (sec, usec) = pcp_core::support::x87::from_real(interval_seconds(spec)?, 1_000_000);
    Ok(RawTime { sec, nsec: usec })
}

/// An interval such as `30`, `30sec`, `1.5 hours`, `1h30m`, `2 days` or
/// `250 msec`, to microsecond resolution (libpcp's `timeval` form).
#[doc(alias = "pmParseInterval")]
pub fn parse_interval(spec: &[u8]) -> Result<Timestamp, SpecError> {
    Ok(parse_interval_raw(spec)?.to_timestamp(1_000_000))
}

/// An interval such as `30`, `30sec`, `1.5 hours` or `10 nsec`, to
/// nanosecond resolution.
#[doc(alias = "pmParseHighResInterval")]
pub fn parse_high_res_interval(spec: &[u8]) -> Result<Timestamp, SpecError> {
    Ok(parse_high_res_interval_raw(spec)?.to_timestamp(NANOS))
}

/// `origin` plus an interval whose parts have been through C `int`s.
fn plus(origin: RawTime, iv: RawTime) -> RawTime {
    let (secs, nsecs) = (iv.sec as i32, iv.nsec as i32);
    let mut t = origin;
    t.nsec = t.nsec.wrapping_add(nsecs.into());
    if t.nsec > NANOS {
        t.nsec -= NANOS;
        t.sec = t.sec.wrapping_add(1);
    }
    t.sec = t.sec.wrapping_add(secs.into());
    t
}

/// `origin` minus an interval whose parts have been through C `int`s.
fn minus(origin: RawTime, iv: RawTime) -> RawTime {
    let (secs, nsecs) = (iv.sec as i32, iv.nsec as i32);
    let mut t = origin;
    if t.nsec < i64::from(nsecs) {
        t.nsec = t.nsec.wrapping_add(NANOS);
        t.sec = t.sec.wrapping_sub(1);
    }
    t.nsec = t.nsec.wrapping_sub(nsecs.into());
    t.sec = t.sec.wrapping_sub(secs.into());
    t
}

/// A parsed `ctime`-like time to an instant: fields left out come from
/// `origin`'s local time, moving to the next day (month, ...) if the time
/// given has already passed there.
fn absolute(tmin: &CTm, origin: RawTime, zone: &Zone, guess: &mut MktimeGuess) -> RawTime {
    let mut t = origin;
    let tm = if tmin.year != -1 {
        t.nsec = tmin.yday.into();
        *tmin
    } else {
        let Some(mut tm) = zone.localtime_c(origin.sec) else {
            return RawTime { sec: -1, nsec: t.nsec };
        };
        tm.isdst = -1;
        if tmin.mon != -1 {
            if tmin.mon < tm.mon {
                tm.year = tm.year.wrapping_add(1);
            }
            (tm.mon, tm.mday, tm.hour, tm.min, tm.sec) = (tmin.mon, tmin.mday, tmin.hour, tmin.min, tmin.sec);
            t.nsec = tmin.yday.into();
        } else if tmin.mday != -1 {
            if tmin.mday < tm.mday {
                tm.mon += 1;
            }
            (tm.mday, tm.hour, tm.min, tm.sec) = (tmin.mday, tmin.hour, tmin.min, tmin.sec);
            t.nsec = tmin.yday.into();
        } else if tmin.hour != -1 {
            if tmin.hour < tm.hour {
                tm.mday += 1;
            }
            (tm.hour, tm.min, tm.sec) = (tmin.hour, tmin.min, tmin.sec);
            t.nsec = tmin.yday.into();
        } else if tmin.min != -1 {
            if tmin.min < tm.min {
                tm.hour += 1;
            }
            (tm.min, tm.sec) = (tmin.min, tmin.sec);
            t.nsec = tmin.yday.into();
        } else if tmin.sec != -1 {
            if tmin.sec < tm.sec {
                tm.min += 1;
            }
            tm.sec = tmin.sec;
            t.nsec = tmin.yday.into();
        }
        tm
    };
    t.sec = zone.mktime(&tm, guess).unwrap_or(-1);
    t
}

/// How libpcp guesses whether a free-form date counts back from the end
/// (`2 days ago`, `last week`, `-3 hours`), forward from the start
/// (`3 hours`), or is absolute (no unit words).
enum Direction {
    Absolute,
    Forward,
    Back,
}

fn contains_ci(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w.eq_ignore_ascii_case(needle))
}

fn direction(s: &[u8]) -> Direction {
    const UNITS: [&[u8]; 10] =
        [b" YEAR", b" MONTH", b" FORTNIGHT", b" WEEK", b" DAY", b" HOUR", b" MINUTE", b" MIN", b" SECOND", b" SEC"];
    let s = &s[skip_space(s, 0)..];
    if !UNITS.iter().any(|u| contains_ci(s, u)) {
        Direction::Absolute
    } else if contains_ci(s, b"last") || contains_ci(s, b"ago") || s.first() == Some(&b'-') {
        Direction::Back
    } else {
        Direction::Forward
    }
}

/// Would libpcp 6.0.3 read memory it never set to parse `spec` against
/// `origin`? An absolute `ctime`-like time without a year takes its other
/// fields from `origin`'s local time, and where `localtime` refuses
/// `origin` (a year out of its range) libpcp goes on with the fields of a
/// `struct tm` it never filled, so its answer is whatever the stack held
/// (pcp-rs answers -1 seconds, as `mktime` would for nonsense). For the
/// differential tests, which leave such cases out.
#[doc(hidden)]
pub fn reads_unset_tm(spec: &[u8], origin: RawTime, zone: &Zone) -> bool {
    let s = c_str(spec);
    let mut pos = 0;
    parse_char(s, &mut pos, b'@')
        && parse_ctime(&s[pos..]).is_ok_and(|tm| tm.year == -1)
        && zone.localtime_c(origin.sec).is_none()
}

/// `__pmParseHighResTime` with libpcp's unnormalised values; `guess` is
/// the `mktime` state it leaves behind.
#[doc(hidden)]
pub fn parse_time_raw(
    spec: &[u8],
    log_start: RawTime,
    log_end: RawTime,
    zone: &Zone,
    now: i64,
    guess: &mut MktimeGuess,
) -> Result<RawTime, SpecError> {
    let s = c_str(spec);
    let start = log_start;
    let mut end = log_end;
    if end.sec == PM_MAX_TIME_T {
        end.nsec = 999_999_999;
    }
    let mut pos = 0;
    let first_error = if parse_char(s, &mut pos, b'@') {
        match parse_ctime(&s[pos..]) {
            Ok(tm) => return Ok(absolute(&tm, start, zone, guess)),
            Err(e) => e,
        }
    } else if end.sec < PM_MAX_TIME_T && parse_char(s, &mut pos, b'-') {
        match parse_high_res_interval_raw(&s[pos..]) {
            Ok(iv) => return Ok(minus(end, iv)),
            Err(e) => e,
        }
    } else {
        parse_char(s, &mut pos, b'+');
        match parse_high_res_interval_raw(&s[pos..]) {
            Ok(iv) => return Ok(plus(start, iv)),
            Err(e) => e,
        }
    };
    // neither: perhaps a free-form date; if not, the first complaint stands
    parse_char(s, &mut pos, b'@');
    let rest = &s[pos..];
    let base = match direction(rest) {
        Direction::Absolute => now,
        Direction::Back if end.sec < PM_MAX_TIME_T => end.sec,
        _ => start.sec,
    };
    match getdate::get_date(rest, base, zone) {
        Some(sec) => Ok(RawTime { sec, nsec: 0 }),
        None => Err(first_error),
    }
}

/// A `-S`, `-T` or `-O` time: `+INTERVAL` (or just an interval) after
/// `log_start`, `-INTERVAL` before `log_end` (unless that is
/// [`PM_MAX_TIME_T`]), `@` and a `ctime`-like time, or a free-form date
/// (`yesterday`, `2023-01-10 10:00`, `2 hours ago`); local times are read
/// in `zone`. `now` is the current time (for dates such as `10:00` that
/// mean "today").
#[doc(alias = "__pmParseHighResTime")]
#[doc(alias = "__pmParseTime")]
pub fn parse_time(
    spec: &[u8],
    log_start: Timestamp,
    log_end: Timestamp,
    zone: &Zone,
    now: Timestamp,
) -> Result<Timestamp, SpecError> {
    let raw = parse_time_raw(
        spec,
        RawTime::from_ts(log_start),
        RawTime::from_ts(log_end),
        zone,
        now.sec,
        &mut MktimeGuess::default(),
    )?;
    Ok(raw.to_timestamp(NANOS))
}

/// The `-S`, `-T`, `-A` and `-O` arguments of a tool (each optional).
#[derive(Clone, Copy, Debug, Default)]
pub struct WindowSpec<'a> {
    /// `-S`: start of the window.
    pub start: Option<&'a [u8]>,
    /// `-T`: end of the window.
    pub finish: Option<&'a [u8]>,
    /// `-A`: align times on multiples of this interval.
    pub align: Option<&'a [u8]>,
    /// `-O`: the initial position (origin) in the window.
    pub origin: Option<&'a [u8]>,
}

/// A time window: where reporting starts and ends, and its origin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// Start of the window.
    pub start: Timestamp,
    /// End of the window (seconds [`PM_MAX_TIME_T`] for no end).
    pub end: Timestamp,
    /// The origin (initial position): the start unless `-O` says otherwise.
    pub origin: Timestamp,
    /// Set when `-A` could not be applied (libpcp's status 0), with its
    /// message; the other fields are still valid.
    pub warning: Option<SpecError>,
}

/// [`Window`] with libpcp's unnormalised values.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawWindow {
    /// Start.
    pub start: RawTime,
    /// End.
    pub end: RawTime,
    /// Origin.
    pub origin: RawTime,
    /// libpcp's status: 1, or 0 when `-A` could not be applied.
    pub status: i32,
    /// The message libpcp leaves behind: the alignment warning, unless a
    /// later `-T` or `-O` parse dropped it.
    pub message: Option<SpecError>,
}

impl RawWindow {
    /// The window, normalised (`sub` units a second), with the alignment
    /// warning libpcp's status 0 stands for.
    fn to_window(&self, spec: &WindowSpec<'_>, sub: i64) -> Window {
        let warning = (self.status == 0)
            .then(|| self.message.clone().or_else(|| spec.align.map(|a| caret(c_str(a), 0, ALIGN_MSG))))
            .flatten();
        Window {
            start: self.start.to_timestamp(sub),
            end: self.end.to_timestamp(sub),
            origin: self.origin.to_timestamp(sub),
            warning,
        }
    }
}

/// Align `t` (nanoseconds) up to a multiple of `delta`, with C's
/// arithmetic; `None` where C would trap (division by zero or overflow).
fn align_up(t: i64, delta: i64) -> Option<i64> {
    let mut b = t.checked_div(delta)?.wrapping_mul(delta);
    if b < t {
        b = b.wrapping_add(delta);
    }
    Some(b)
}

/// `pmParseHighResTimeWindow` with libpcp's unnormalised values.
#[doc(hidden)]
pub fn parse_time_window_raw(
    spec: &WindowSpec<'_>,
    log_start: RawTime,
    log_end: RawTime,
    zone: &Zone,
    now: i64,
) -> Result<RawWindow, SpecError> {
    let mut guess = MktimeGuess::default();
    let mut start = log_start;
    let mut end = log_end;
    if end.sec == PM_MAX_TIME_T {
        end.nsec = 999_999_999;
    }
    if let Some(s) = spec.start {
        start = parse_time_raw(s, start, end, zone, now, &mut guess)?;
    }
    if start < log_start {
        start = log_start;
    }

    let mut warning = None;
    let mut status = 1;
    let mut delta = 0;
    if let Some(a) = spec.align {
        let a = c_str(a);
        let iv = parse_high_res_interval_raw(a)?;
        let unusable = || caret(a, 0, ALIGN_MSG);
        if iv.sec == 0 && iv.nsec == 0 {
            return Err(unusable());
        }
        delta = iv.total_nanos();
        // libpcp divides by zero here (and dies) when delta wraps to 0
        let aligned = RawTime::from_total_nanos(align_up(start.total_nanos(), delta).ok_or_else(unusable)?);
        if aligned >= log_start && aligned <= log_end {
            start = aligned;
        } else {
            warning = Some(unusable());
            status = 0;
        }
    }

    // each later parse starts by dropping libpcp's message, so the
    // warning survives only if nothing is parsed after it
    if let Some(t) = spec.finish {
        warning = None;
        end = parse_time_raw(t, start, end, zone, now, &mut guess)?;
    }
    if end > log_end {
        end = log_end;
    }

    let mut origin = start;
    if let Some(o) = spec.origin {
        warning = None;
        origin = parse_time_raw(o, start, end, zone, now, &mut guess)?;
        if origin < start {
            origin = start;
        } else if origin > end {
            origin = end;
        }
        if let Some(a) = spec.align {
            let a = c_str(a);
            let unusable = || caret(a, 0, ALIGN_MSG);
            let mut b = align_up(origin.total_nanos(), delta).ok_or_else(unusable)?;
            if b > end.total_nanos() {
                b = b.wrapping_sub(delta);
            }
            let aligned = RawTime::from_total_nanos(b);
            if aligned >= start && aligned <= end {
                origin = aligned;
            } else {
                warning = Some(unusable());
                status = 0;
            }
        }
    }
    Ok(RawWindow { start, end, origin, status, message: warning })
}

/// The time window a tool's `-S`, `-T`, `-A` and `-O` select within
/// `log_start`..`log_end`: an archive's bounds, or now and
/// [`PM_MAX_TIME_T`] seconds for a live source. The window is clipped to
/// the bounds; `-A` aligns the start (and origin) on multiples of its
/// interval. Local times are read in `zone`; `now` is the current time.
#[doc(alias = "pmParseHighResTimeWindow")]
pub fn parse_high_res_time_window(
    spec: &WindowSpec<'_>,
    log_start: Timestamp,
    log_end: Timestamp,
    zone: &Zone,
    now: Timestamp,
) -> Result<Window, SpecError> {
    let w = parse_time_window_raw(spec, RawTime::from_ts(log_start), RawTime::from_ts(log_end), zone, now.sec)?;
    Ok(w.to_window(spec, NANOS))
}

/// `pmParseTimeWindow`: [`parse_high_res_time_window`] in microseconds
/// (the bounds are truncated to microseconds first, and so are the
/// results), as tools built on the older `timeval` API see it.
#[doc(alias = "pmParseTimeWindow")]
pub fn parse_time_window(
    spec: &WindowSpec<'_>,
    log_start: Timestamp,
    log_end: Timestamp,
    zone: &Zone,
    now: Timestamp,
) -> Result<Window, SpecError> {
    let w = parse_time_window_usec_raw(spec, RawTime::from_ts(log_start), RawTime::from_ts(log_end), zone, now.sec)?;
    Ok(w.to_window(spec, 1_000_000))
}

/// `pmParseTimeWindow` with libpcp's unnormalised values: bounds in
/// nanoseconds are cut to microseconds, results are in microseconds.
#[doc(hidden)]
pub fn parse_time_window_usec_raw(
    spec: &WindowSpec<'_>,
    log_start: RawTime,
    log_end: RawTime,
    zone: &Zone,
    now: i64,
) -> Result<RawWindow, SpecError> {
    let to_usec_ns = |t: RawTime| RawTime { sec: t.sec, nsec: t.nsec / 1000 * 1000 };
    let w = parse_time_window_raw(spec, to_usec_ns(log_start), to_usec_ns(log_end), zone, now)?;
    let usec = |t: RawTime| RawTime { sec: t.sec, nsec: t.nsec / 1000 };
    Ok(RawWindow { start: usec(w.start), end: usec(w.end), origin: usec(w.origin), ..w })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(s: &str) -> Result<(i64, u32), String> {
        parse_high_res_interval(s.as_bytes())
            .map(|t| (t.sec, t.nsec))
            .map_err(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }

    #[test]
    fn intervals() {
        assert_eq!(iv("30"), Ok((30, 0)));
        assert_eq!(iv("30sec"), Ok((30, 0)));
        assert_eq!(iv("1.5 hours"), Ok((5400, 0)));
        assert_eq!(iv("1h30m"), Ok((5400, 0)));
        assert_eq!(iv("2 days"), Ok((172_800, 0)));
        assert_eq!(iv("250 msec"), Ok((0, 250_000_000)));
        assert_eq!(iv("1 2"), Ok((3, 0)));
        // "ms" drops its "s" and is minutes
        assert_eq!(iv("1ms"), Ok((60, 0)));
        assert_eq!(iv(" "), Ok((0, 0)));
    }

    #[test]
    fn interval_errors() {
        assert_eq!(iv(""), Err("\n^ -- Null or empty specification\n".into()));
        assert_eq!(iv("junk"), Err("junk\n^ -- unexpected value\n".into()));
        assert_eq!(iv("10 weeks"), Err("10 weeks\n   ^ -- unexpected value\n".into()));
        assert_eq!(iv("-1"), Err("-1\n^ -- unexpected value\n".into()));
    }

    // archive bounds: 2023-01-10 03:04:05.5 UTC for a day
    const START: Timestamp = Timestamp { sec: 1_673_319_845, nsec: 500_000_000 };
    const END: Timestamp = Timestamp { sec: 1_673_319_845 + 86_400, nsec: 250_000_000 };

    fn window(s: Option<&str>, t: Option<&str>, a: Option<&str>, o: Option<&str>) -> Result<Window, String> {
        let spec = WindowSpec {
            start: s.map(str::as_bytes),
            finish: t.map(str::as_bytes),
            align: a.map(str::as_bytes),
            origin: o.map(str::as_bytes),
        };
        parse_high_res_time_window(&spec, START, END, &Zone::utc(), END)
            .map_err(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }

    #[test]
    fn window_offsets_and_clipping() {
        let w = window(Some("+30sec"), Some("-1h"), None, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(w.start, Timestamp { sec: START.sec + 30, nsec: START.nsec });
        assert_eq!(w.end, Timestamp { sec: END.sec - 3600, nsec: END.nsec });
        assert_eq!(w.origin, w.start);
        let w = window(Some("@ 2020"), Some("+10d"), None, Some("@ Jan 10 12:00:00")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((w.start, w.end), (START, END));
        assert_eq!(w.origin, Timestamp { sec: 1_673_352_000, nsec: 0 });
    }

    #[test]
    fn a_free_form_origin_from_a_start_past_any_year() {
        // -S wraps the start far past the years an int holds, where
        // localtime fails; libpcp 6.0.3 reads "this +1 year" from what
        // glibc left in its struct and clamps the origin to the start
        let spec = WindowSpec {
            start: Some(b"- 214543743820488 weeks"),
            finish: None,
            align: None,
            origin: Some(b"-tHIs  +1 yEar"),
        };
        let zone = Zone::new("AEDT-11").unwrap_or_else(|_| Zone::utc());
        let (start, end) = (RawTime { sec: 1_667_649_600, nsec: 500_000_000 }, RawTime { sec: 1_667_822_400, nsec: 0 });
        let w = parse_time_window_raw(&spec, start, end, &zone, 1_667_665_150).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(
            (w.start.sec, w.end.sec, w.origin.sec),
            (628_847_748_331_930_688, 1_667_822_400, 628_847_748_331_930_688)
        );
    }

    #[test]
    fn window_alignment() {
        let w = window(None, None, Some("1h"), Some("+90m")).unwrap_or_else(|e| panic!("{e}"));
        // 04:00, then 04:00 + 90 minutes aligned up to 06:00
        assert_eq!(w.start, Timestamp { sec: 1_673_323_200, nsec: 0 });
        assert_eq!(w.origin, Timestamp { sec: 1_673_330_400, nsec: 0 });
        assert_eq!(w.warning, None);
        let w = window(None, None, Some("7 days"), None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(w.start, START);
        assert_eq!(
            w.warning.map(|e| e.to_string()),
            Some("7 days\n^ -- alignment specified by -A switch could not be applied\n".into())
        );
        assert_eq!(
            window(None, None, Some("0"), None).err().as_deref(),
            Some("0\n^ -- alignment specified by -A switch could not be applied\n")
        );
    }

    #[test]
    fn window_errors_keep_the_first_complaint() {
        assert_eq!(window(Some("junk"), None, None, None).err().as_deref(), Some("junk\n^ -- unexpected value\n"));
        assert_eq!(
            window(Some("@ Jan 45"), None, None, None).err().as_deref(),
            Some(" Jan 45\n     ^ -- unexpected value\n")
        );
    }
}
