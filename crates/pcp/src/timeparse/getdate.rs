//! `__pmGetDate`: the free-form dates libpcp accepts when a time is
//! neither an interval nor a `ctime`-like `@` time: `yesterday`,
//! `2023-01-10 10:00`, `last monday`, `10 jan 2023 3pm EST`, `2 weeks ago`,
//! `tomorrow noon`-style words, numbers such as `20230110` or `1030`.
//!
//! libpcp reads these with the classic `getdate.y` LALR grammar (its
//! conflicts resolved by shifting). The grammar has no error recovery, so
//! a parse either succeeds, having run its actions in input order, or
//! fails; this module reads the same token stream greedily, taking the
//! longest item at each point as the shifts do, and runs the same
//! assignments. The arithmetic (C `long long`) wraps.

use super::lex::{is_alpha, is_space};
use crate::timezone::{CTm, Zone};

const SECS_PER_DAY: i64 = 86_400;
const EPOCH: i64 = 1970;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Meridian {
    Am,
    Pm,
    H24,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DstMode {
    On,
    Off,
    Maybe,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    End,
    /// Any other byte.
    Char(u8),
    Unsigned(i64),
    Signed(i64),
    Meridian(Meridian),
    Month(i64),
    Day(i64),
    Zone(i64),
    DayZone(i64),
    Dst,
    /// A relative unit counted in minutes.
    MinuteUnit(i64),
    SecUnit,
    MonthUnit(i64),
    /// `today`, `tomorrow`, `yesterday`: minutes, and the date resets to
    /// midnight.
    DayAlignedUnit(i64),
    Ago,
    /// A word nothing knows.
    Unknown,
}

const fn hours(h: i64) -> i64 {
    h * 60
}

/// Months and weekdays: whole words, or the first three letters.
const MONTHS_AND_DAYS: &[(&str, Tok)] = &[
    ("january", Tok::Month(1)),
    ("february", Tok::Month(2)),
    ("march", Tok::Month(3)),
    ("april", Tok::Month(4)),
    ("may", Tok::Month(5)),
    ("june", Tok::Month(6)),
    ("july", Tok::Month(7)),
    ("august", Tok::Month(8)),
    ("september", Tok::Month(9)),
    ("sept", Tok::Month(9)),
    ("october", Tok::Month(10)),
    ("november", Tok::Month(11)),
    ("december", Tok::Month(12)),
    ("sunday", Tok::Day(0)),
    ("monday", Tok::Day(1)),
    ("tuesday", Tok::Day(2)),
    ("tues", Tok::Day(2)),
    ("wednesday", Tok::Day(3)),
    ("wednes", Tok::Day(3)),
    ("thursday", Tok::Day(4)),
    ("thur", Tok::Day(4)),
    ("thurs", Tok::Day(4)),
    ("friday", Tok::Day(5)),
    ("saturday", Tok::Day(6)),
];

/// Relative units, singular (a plural `s` is dropped before a second try).
const UNITS: &[(&str, Tok)] = &[
    ("year", Tok::MonthUnit(12)),
    ("month", Tok::MonthUnit(1)),
    ("fortnight", Tok::MinuteUnit(14 * 24 * 60)),
    ("week", Tok::MinuteUnit(7 * 24 * 60)),
    ("day", Tok::MinuteUnit(24 * 60)),
    ("hour", Tok::MinuteUnit(60)),
    ("minute", Tok::MinuteUnit(1)),
    ("min", Tok::MinuteUnit(1)),
    ("second", Tok::SecUnit),
    ("sec", Tok::SecUnit),
];

/// Other words: ordinals are plain numbers (`last` is -1, `next` 2).
const OTHER_WORDS: &[(&str, Tok)] = &[
    ("tomorrow", Tok::DayAlignedUnit(24 * 60)),
    ("yesterday", Tok::DayAlignedUnit(-24 * 60)),
    ("today", Tok::DayAlignedUnit(0)),
    ("now", Tok::MinuteUnit(0)),
    ("last", Tok::Unsigned(-1)),
    ("this", Tok::MinuteUnit(0)),
    ("next", Tok::Unsigned(2)),
    ("first", Tok::Unsigned(1)),
    ("third", Tok::Unsigned(3)),
    ("fourth", Tok::Unsigned(4)),
    ("fifth", Tok::Unsigned(5)),
    ("sixth", Tok::Unsigned(6)),
    ("seventh", Tok::Unsigned(7)),
    ("eighth", Tok::Unsigned(8)),
    ("ninth", Tok::Unsigned(9)),
    ("tenth", Tok::Unsigned(10)),
    ("eleventh", Tok::Unsigned(11)),
    ("twelfth", Tok::Unsigned(12)),
    ("ago", Tok::Ago),
];

/// Zone abbreviations: minutes west of UTC; `DayZone`s are summer times.
const ZONES: &[(&str, Tok)] = &[
    ("gmt", Tok::Zone(hours(0))),
    ("ut", Tok::Zone(hours(0))),
    ("utc", Tok::Zone(hours(0))),
    ("wet", Tok::Zone(hours(0))),
    ("bst", Tok::DayZone(hours(0))),
    ("wat", Tok::Zone(hours(1))),
    ("at", Tok::Zone(hours(2))),
    ("ast", Tok::Zone(hours(4))),
    ("adt", Tok::DayZone(hours(4))),
    ("est", Tok::Zone(hours(5))),
    ("edt", Tok::DayZone(hours(5))),
    ("cst", Tok::Zone(hours(6))),
    ("cdt", Tok::DayZone(hours(6))),
    ("mst", Tok::Zone(hours(7))),
    ("mdt", Tok::DayZone(hours(7))),
    ("pst", Tok::Zone(hours(8))),
    ("pdt", Tok::DayZone(hours(8))),
    ("yst", Tok::Zone(hours(9))),
    ("ydt", Tok::DayZone(hours(9))),
    ("hst", Tok::Zone(hours(10))),
    ("hdt", Tok::DayZone(hours(10))),
    ("cat", Tok::Zone(hours(10))),
    ("ahst", Tok::Zone(hours(10))),
    ("nt", Tok::Zone(hours(11))),
    ("idlw", Tok::Zone(hours(12))),
    ("cet", Tok::Zone(-hours(1))),
    ("met", Tok::Zone(-hours(1))),
    ("mewt", Tok::Zone(-hours(1))),
    ("mest", Tok::DayZone(-hours(1))),
    ("swt", Tok::Zone(-hours(1))),
    ("sst", Tok::DayZone(-hours(1))),
    ("fwt", Tok::Zone(-hours(1))),
    ("fst", Tok::DayZone(-hours(1))),
    ("eet", Tok::Zone(-hours(2))),
    ("bt", Tok::Zone(-hours(3))),
    ("zp4", Tok::Zone(-hours(4))),
    ("zp5", Tok::Zone(-hours(5))),
    ("zp6", Tok::Zone(-hours(6))),
    ("wast", Tok::Zone(-hours(7))),
    ("wadt", Tok::DayZone(-hours(7))),
    ("cct", Tok::Zone(-hours(8))),
    ("jst", Tok::Zone(-hours(9))),
    ("east", Tok::Zone(-hours(10))),
    ("eadt", Tok::DayZone(-hours(10))),
    ("gst", Tok::Zone(-hours(10))),
    ("nzt", Tok::Zone(-hours(12))),
    ("nzst", Tok::Zone(-hours(12))),
    ("nzdt", Tok::DayZone(-hours(12))),
    ("idle", Tok::Zone(-hours(12))),
];

/// Military zone letters `a`..`z` (no `j`): hours west of UTC.
fn military(letter: u8) -> Option<Tok> {
    let h = match letter {
        b'a'..=b'i' => i64::from(letter - b'a') + 1,
        b'k'..=b'm' => i64::from(letter - b'k') + 10,
        b'n'..=b'y' => -(i64::from(letter - b'n') + 1),
        b'z' => 0,
        _ => return None,
    };
    Some(Tok::Zone(hours(h)))
}

fn find(table: &[(&str, Tok)], word: &[u8]) -> Option<Tok> {
    table.iter().find(|(name, _)| name.as_bytes() == word).map(|&(_, t)| t)
}

/// What a word (letters and dots, at most 19 kept) means.
fn lookup_word(word: &[u8]) -> Tok {
    let mut w: Vec<u8> = word.to_ascii_lowercase();
    match w.as_slice() {
        b"am" | b"a.m." => return Tok::Meridian(Meridian::Am),
        b"pm" | b"p.m." => return Tok::Meridian(Meridian::Pm),
        _ => {}
    }
    // three letters (or three and a dot) abbreviate a month or weekday
    let abbrev = w.len() == 3 || (w.len() == 4 && w[3] == b'.');
    if abbrev {
        w.truncate(3);
    }
    let month_or_day = MONTHS_AND_DAYS.iter().find(|(name, _)| {
        if abbrev {
            name.as_bytes().get(..3) == Some(w.as_slice())
        } else {
            name.as_bytes() == w.as_slice()
        }
    });
    if let Some(&(_, t)) = month_or_day {
        return t;
    }
    if let Some(t) = find(ZONES, &w) {
        return t;
    }
    if w == b"dst" {
        return Tok::Dst;
    }
    if let Some(t) = find(UNITS, &w) {
        return t;
    }
    if let Some(singular) = w.strip_suffix(b"s") {
        if let Some(t) = find(UNITS, singular) {
            return t;
        }
    }
    if let Some(t) = find(OTHER_WORDS, &w) {
        return t;
    }
    if w.len() == 1 && is_alpha(w[0]) {
        if let Some(t) = military(w[0]) {
            return t;
        }
    }
    let undotted: Vec<u8> = w.iter().copied().filter(|&b| b != b'.').collect();
    if undotted.len() != w.len() {
        if let Some(t) = find(ZONES, &undotted) {
            return t;
        }
    }
    Tok::Unknown
}

/// The tokens of `s`, ending with `End`.
fn tokens(s: &[u8]) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut i = 0;
    let at = |i: usize| s.get(i).copied().unwrap_or(0);
    loop {
        while is_space(at(i)) {
            i += 1;
        }
        let c = at(i);
        if c.is_ascii_digit() || c == b'-' || c == b'+' {
            let mut sign = 0;
            if c == b'-' || c == b'+' {
                sign = if c == b'-' { -1 } else { 1 };
                i += 1;
                if !at(i).is_ascii_digit() {
                    // a lone sign is skipped
                    continue;
                }
            }
            let mut n: i64 = 0;
            while at(i).is_ascii_digit() {
                n = n.wrapping_mul(10).wrapping_add(i64::from(at(i) - b'0'));
                i += 1;
            }
            out.push(match sign {
                0 => Tok::Unsigned(n),
                s if s < 0 => Tok::Signed(n.wrapping_neg()),
                _ => Tok::Signed(n),
            });
            continue;
        }
        if is_alpha(c) {
            let start = i;
            while is_alpha(at(i)) || at(i) == b'.' {
                i += 1;
            }
            let kept = &s[start..i.min(start + 19)];
            out.push(lookup_word(kept));
            continue;
        }
        // the parser takes any negative token (a byte above 0x7f read as
        // a signed char) for the end of the input
        if c == 0 || c >= 0x80 {
            out.push(Tok::End);
            return out;
        }
        if c != b'(' {
            out.push(Tok::Char(c));
            i += 1;
            continue;
        }
        // a parenthesised comment, nested; unterminated ends the input
        let mut depth = 0i64;
        loop {
            let c = at(i);
            i += 1;
            match c {
                0 => {
                    out.push(Tok::End);
                    return out;
                }
                b'(' => depth += 1,
                b')' => depth -= 1,
                _ => {}
            }
            if depth <= 0 {
                break;
            }
        }
    }
}

/// What the grammar's actions record.
struct Parsed {
    dst: DstMode,
    day_ordinal: i64,
    day_number: i64,
    have_date: i64,
    have_day: i64,
    have_rel: i64,
    have_time: i64,
    have_zone: i64,
    have_date_align: i64,
    timezone: i64,
    day: i64,
    hour: i64,
    minutes: i64,
    month: i64,
    seconds: i64,
    year: i64,
    meridian: Meridian,
    rel_month: i64,
    rel_seconds: i64,
}

impl Parsed {
    fn zone_from_number(&mut self, z: i64) {
        self.meridian = Meridian::H24;
        self.dst = DstMode::Off;
        self.timezone = (z % 100).wrapping_add((z / 100).wrapping_mul(60)).wrapping_neg();
    }

    /// A bare number: a year after a date and a time, a `yyyymmdd` date,
    /// or an `hh` / `hhmm` time.
    fn number(&mut self, n: i64) {
        if self.have_time != 0 && self.have_date != 0 && self.have_rel == 0 {
            self.year = n;
        } else if n > 10000 {
            self.have_date += 1;
            self.day = n % 100;
            self.month = (n / 100) % 100;
            self.year = n / 10000;
        } else {
            self.have_time += 1;
            if n < 100 {
                self.hour = n;
                self.minutes = 0;
            } else {
                self.hour = n / 100;
                self.minutes = n % 100;
            }
            self.seconds = 0;
            self.meridian = Meridian::H24;
        }
    }
}

/// Run the grammar over `toks`; `false` on a syntax error.
fn parse(toks: &[Tok], p: &mut Parsed) -> bool {
    let mut i = 0;
    let tok = |i: usize| toks.get(i).copied().unwrap_or(Tok::End);
    loop {
        // a relative unit with an optional count before it
        let mut count: Option<i64> = None;
        match tok(i) {
            Tok::End => return true,
            Tok::Unsigned(n) => {
                i += 1;
                match tok(i) {
                    Tok::Meridian(m) => {
                        i += 1;
                        p.hour = n;
                        p.minutes = 0;
                        p.seconds = 0;
                        p.meridian = m;
                        p.have_time += 1;
                        continue;
                    }
                    Tok::Char(b':') => {
                        i += 1;
                        let Tok::Unsigned(m) = tok(i) else { return false };
                        i += 1;
                        p.hour = n;
                        p.minutes = m;
                        match tok(i) {
                            Tok::Meridian(x) => {
                                i += 1;
                                p.seconds = 0;
                                p.meridian = x;
                            }
                            Tok::Signed(z) => {
                                i += 1;
                                p.zone_from_number(z);
                            }
                            Tok::Char(b':') => {
                                i += 1;
                                let Tok::Unsigned(s) = tok(i) else { return false };
                                i += 1;
                                p.seconds = s;
                                match tok(i) {
                                    Tok::Meridian(x) => {
                                        i += 1;
                                        p.meridian = x;
                                    }
                                    Tok::Signed(z) => {
                                        i += 1;
                                        p.zone_from_number(z);
                                    }
                                    _ => p.meridian = Meridian::H24,
                                }
                            }
                            _ => {
                                p.seconds = 0;
                                p.meridian = Meridian::H24;
                            }
                        }
                        p.have_time += 1;
                        continue;
                    }
                    Tok::Day(d) => {
                        i += 1;
                        p.day_ordinal = n;
                        p.day_number = d;
                        p.have_day += 1;
                        continue;
                    }
                    Tok::Char(b'/') => {
                        i += 1;
                        let Tok::Unsigned(a) = tok(i) else { return false };
                        i += 1;
                        if tok(i) == Tok::Char(b'/') {
                            i += 1;
                            let Tok::Unsigned(b) = tok(i) else { return false };
                            i += 1;
                            if n >= 100 {
                                (p.year, p.month, p.day) = (n, a, b);
                            } else {
                                (p.month, p.day, p.year) = (n, a, b);
                            }
                        } else {
                            (p.month, p.day) = (n, a);
                        }
                        p.have_date += 1;
                        continue;
                    }
                    Tok::Signed(a) => {
                        // ISO 8601: yyyy-mm-dd
                        i += 1;
                        let Tok::Signed(b) = tok(i) else { return false };
                        i += 1;
                        (p.year, p.month, p.day) = (n, a.wrapping_neg(), b.wrapping_neg());
                        p.have_date += 1;
                        continue;
                    }
                    Tok::Month(m) => {
                        i += 1;
                        match tok(i) {
                            Tok::Signed(y) => {
                                // 17-JUN-1992
                                i += 1;
                                (p.day, p.month, p.year) = (n, m, y.wrapping_neg());
                            }
                            Tok::Unsigned(y) => {
                                i += 1;
                                (p.month, p.day, p.year) = (m, n, y);
                            }
                            _ => (p.month, p.day) = (m, n),
                        }
                        p.have_date += 1;
                        continue;
                    }
                    Tok::MinuteUnit(_) | Tok::SecUnit | Tok::MonthUnit(_) | Tok::DayAlignedUnit(_) => count = Some(n),
                    _ => {
                        p.number(n);
                        continue;
                    }
                }
            }
            Tok::Signed(n) => {
                i += 1;
                match tok(i) {
                    Tok::MinuteUnit(_) | Tok::SecUnit | Tok::MonthUnit(_) | Tok::DayAlignedUnit(_) => count = Some(n),
                    _ => return false,
                }
            }
            Tok::MinuteUnit(_) | Tok::SecUnit | Tok::MonthUnit(_) | Tok::DayAlignedUnit(_) => {}
            Tok::Zone(z) => {
                i += 1;
                p.timezone = z;
                p.dst = DstMode::Off;
                if tok(i) == Tok::Dst {
                    i += 1;
                    p.dst = DstMode::On;
                }
                p.have_zone += 1;
                continue;
            }
            Tok::DayZone(z) => {
                i += 1;
                p.timezone = z;
                p.dst = DstMode::On;
                p.have_zone += 1;
                continue;
            }
            Tok::Day(d) => {
                i += 1;
                if tok(i) == Tok::Char(b',') {
                    i += 1;
                }
                p.day_ordinal = 0;
                p.day_number = d;
                p.have_day += 1;
                continue;
            }
            Tok::Month(m) => {
                i += 1;
                let Tok::Unsigned(d) = tok(i) else { return false };
                i += 1;
                (p.month, p.day) = (m, d);
                if tok(i) == Tok::Char(b',') {
                    i += 1;
                    let Tok::Unsigned(y) = tok(i) else { return false };
                    i += 1;
                    p.year = y;
                }
                p.have_date += 1;
                continue;
            }
            _ => return false,
        }
        // the unit itself
        match (tok(i), count) {
            (Tok::MinuteUnit(u), c) => {
                p.rel_seconds = p.rel_seconds.wrapping_add(c.unwrap_or(1).wrapping_mul(u).wrapping_mul(60));
            }
            (Tok::SecUnit, Some(c)) => p.rel_seconds = p.rel_seconds.wrapping_add(c),
            (Tok::SecUnit, None) => p.rel_seconds = p.rel_seconds.wrapping_add(1),
            (Tok::MonthUnit(u), c) => p.rel_month = p.rel_month.wrapping_add(c.unwrap_or(1).wrapping_mul(u)),
            (Tok::DayAlignedUnit(u), c) => {
                p.rel_seconds = p.rel_seconds.wrapping_add(c.unwrap_or(1).wrapping_mul(u).wrapping_mul(60));
                p.have_date_align += 1;
            }
            _ => return false,
        }
        i += 1;
        if tok(i) == Tok::Ago {
            i += 1;
            p.rel_seconds = p.rel_seconds.wrapping_neg();
            p.rel_month = p.rel_month.wrapping_neg();
        }
        p.have_rel += 1;
    }
}

/// Seconds since midnight for a clock time; `None` if out of range.
fn to_seconds(hours: i64, minutes: i64, seconds: i64, meridian: Meridian) -> Option<i64> {
    if !(0..=59).contains(&minutes) || !(0..=59).contains(&seconds) {
        return None;
    }
    let h = match meridian {
        Meridian::H24 if (0..=23).contains(&hours) => hours,
        Meridian::Am if (1..=12).contains(&hours) => hours % 12,
        Meridian::Pm if (1..=12).contains(&hours) => hours % 12 + 12,
        _ => return None,
    };
    Some((h * 60 + minutes) * 60 + seconds)
}

fn is_dst(zone: &Zone, t: i64) -> bool {
    zone.localtime_c(t).is_some_and(|tm| tm.isdst > 0)
}

/// A calendar date and clock time to seconds since the epoch, with the
/// grammar's own calendar (every fourth year a leap year after 1970),
/// `timezone` minutes west of UTC, and an hour off for summer time.
/// Two-digit years are 1969-2068; years before 1970 fail.
#[allow(clippy::too_many_arguments)]
fn convert(
    zone: &Zone,
    timezone: i64,
    month: i64,
    day: i64,
    year: i64,
    hours: i64,
    minutes: i64,
    seconds: i64,
    meridian: Meridian,
    dst: DstMode,
) -> Option<i64> {
    let mut year = year.wrapping_abs();
    if year < 69 {
        year += 2000;
    } else if year < 100 {
        year += 1900;
    }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days_in = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if year < EPOCH || !(1..=12).contains(&month) {
        return None;
    }
    let m = (month - 1) as usize;
    if day < 1 || day > days_in[m] {
        return None;
    }
    let mut julian: i64 = day - 1 + days_in[..m].iter().sum::<i64>();
    // 365 a year, plus one for each year divisible by 4 in [1970, year).
    // libpcp counts the years in a C int loop, which its compiled form runs
    // (year - 1970) mod 2^32 times
    let years = i64::from(year.wrapping_sub(EPOCH) as u32);
    let leaps = (EPOCH + years - 1) / 4 - (EPOCH - 1) / 4;
    julian += 365 * years + leaps;
    julian = julian.wrapping_mul(SECS_PER_DAY).wrapping_add(timezone.wrapping_mul(60));
    julian = julian.wrapping_add(to_seconds(hours, minutes, seconds, meridian)?);
    if dst == DstMode::On || (dst == DstMode::Maybe && is_dst(zone, julian)) {
        julian = julian.wrapping_sub(3600);
    }
    Some(julian)
}

/// Hours between two instants' local clocks, as a correction for a DST
/// change between them.
fn dst_correct(zone: &Zone, start: i64, future: i64) -> Option<i64> {
    // (the hour is there even where localtime fails)
    let shifted_hour = |t: i64| i64::from((zone.localtime_as_glibc_leaves(t, CTm::default()).hour + 1) % 24);
    let (a, b) = (shifted_hour(start), shifted_hour(future));
    Some(future.wrapping_sub(start).wrapping_add((a - b) * 3600))
}

/// Seconds from `start` to the `ordinal`th `weekday` (0 = Sunday).
fn relative_date(zone: &Zone, start: i64, ordinal: i64, weekday: i64) -> Option<i64> {
    // (libpcp carries on where localtime fails, with what it left in a
    // struct never cleared: here taken to be zeros)
    let tm = zone.localtime_as_glibc_leaves(start, CTm::default());
    let mut t = start.wrapping_add(SECS_PER_DAY * ((weekday - i64::from(tm.wday) + 7) % 7));
    let weeks = if ordinal <= 0 { ordinal } else { ordinal - 1 };
    t = t.wrapping_add(weeks.wrapping_mul(7 * SECS_PER_DAY));
    dst_correct(zone, start, t)
}

/// Seconds from `start` to the same local time `months` later.
fn relative_month(zone: &Zone, timezone: i64, start: i64, months: i64) -> Option<i64> {
    if months == 0 {
        return Some(0);
    }
    let tm = zone.localtime_as_glibc_leaves(start, CTm::default());
    // 12 * year + month in a C int, then the relative months in a long long
    let m = i64::from(tm.year.wrapping_add(1900).wrapping_mul(12).wrapping_add(tm.mon)).wrapping_add(months);
    let (year, month) = (m / 12, m % 12 + 1);
    let future = convert(
        zone,
        timezone,
        month,
        tm.mday.into(),
        year,
        tm.hour.into(),
        tm.min.into(),
        tm.sec.into(),
        Meridian::H24,
        DstMode::Maybe,
    )
    .unwrap_or(-1);
    dst_correct(zone, start, future)
}

/// `b - a` in seconds for two broken-down times, counting leap days the
/// Gregorian way.
fn tm_diff(a: &CTm, b: &CTm) -> i64 {
    let ay = i64::from(a.year) + 1899;
    let by = i64::from(b.year) + 1899;
    let days = i64::from(a.yday) - i64::from(b.yday) + ((ay >> 2) - (by >> 2)) - (ay / 100 - by / 100)
        + (((ay / 100) >> 2) - ((by / 100) >> 2))
        + (ay - by) * 365;
    60 * (60 * (24 * days + i64::from(a.hour - b.hour)) + i64::from(a.min - b.min)) + i64::from(a.sec - b.sec)
}

/// `__pmGetDate`: `text` as a date relative to `now` (seconds since the
/// epoch) in `zone`; `None` if it is not one libpcp accepts.
#[doc(alias = "__pmGetDate")]
pub(crate) fn get_date(text: &[u8], now: i64, zone: &Zone) -> Option<i64> {
    // where localtime fails libpcp carries on with what it left in the
    // zeroed struct passed in (and no UTC offset)
    let local = zone.localtime_as_glibc_leaves(now, CTm::default());
    let mut tzoff = match Zone::utc().localtime_c(now) {
        Some(gmt) => tm_diff(&gmt, &local) / 60,
        None => 0,
    };
    if local.isdst > 0 {
        tzoff += 60;
    }
    let mut p = Parsed {
        dst: DstMode::Maybe,
        day_ordinal: 0,
        day_number: 0,
        have_date: 0,
        have_day: 0,
        have_rel: 0,
        have_time: 0,
        have_zone: 0,
        have_date_align: 0,
        timezone: tzoff,
        day: local.mday.into(),
        hour: 0,
        minutes: 0,
        month: i64::from(local.mon) + 1,
        seconds: 0,
        year: i64::from(local.year) + 1900,
        meridian: Meridian::H24,
        rel_month: 0,
        rel_seconds: 0,
    };
    if !parse(&tokens(text), &mut p)
        || p.have_time > 1
        || p.have_zone > 1
        || p.have_date > 1
        || p.have_day > 1
        || p.have_date_align > 1
    {
        return None;
    }
    let mut start = if p.have_date != 0 || p.have_time != 0 || p.have_day != 0 || p.have_date_align != 0 {
        let t = convert(zone, p.timezone, p.month, p.day, p.year, p.hour, p.minutes, p.seconds, p.meridian, p.dst)?;
        if t < 0 {
            return None;
        }
        t
    } else if p.have_rel == 0 {
        // nothing at all: midnight today
        let since_midnight = (i64::from(local.hour) * 60 + i64::from(local.min)) * 60 + i64::from(local.sec);
        now.wrapping_sub(since_midnight)
    } else {
        now
    };
    start = start.wrapping_add(p.rel_seconds);
    start = start.wrapping_add(relative_month(zone, p.timezone, start, p.rel_month)?);
    if p.have_day != 0 && p.have_date == 0 {
        start = start.wrapping_add(relative_date(zone, start, p.day_ordinal, p.day_number)?);
    }
    Some(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(text: &str, now: i64) -> Option<i64> {
        get_date(text.as_bytes(), now, &Zone::utc())
    }

    // 2023-01-10 10:00:00 UTC, a Tuesday
    const NOW: i64 = 1_673_344_800;

    #[test]
    fn dates_and_times() {
        assert_eq!(utc("2023-01-10 10:00", NOW), Some(NOW));
        assert_eq!(utc("jan 10 10:00:00 2023", NOW), Some(NOW));
        assert_eq!(utc("10 jan 2023 10am", NOW), Some(NOW));
        assert_eq!(utc("20230110", NOW), Some(NOW - 10 * 3600));
        assert_eq!(utc("1/10/2023 1000", NOW), Some(NOW));
        assert_eq!(utc("", NOW), Some(NOW - 10 * 3600));
        assert_eq!(utc("10:00 EST", NOW), Some(NOW + 5 * 3600));
    }

    #[test]
    fn relative_words() {
        assert_eq!(utc("yesterday", NOW), Some(NOW - 10 * 3600 - 86_400));
        assert_eq!(utc("2 days ago", NOW), Some(NOW - 2 * 86_400));
        assert_eq!(utc("next week", NOW), Some(NOW + 14 * 86_400));
        assert_eq!(utc("+1 month", NOW), Some(NOW + 31 * 86_400));
        // from Tuesday to the next Monday's midnight
        assert_eq!(utc("monday", NOW), Some(NOW - 10 * 3600 + 6 * 86_400));
    }

    #[test]
    fn rejected() {
        for bad in [
            "bogus",
            "10 -1 day",
            "jan",
            "10:",
            "1:2:3:4",
            "10:00 11:00",
            "1960-01-01",
            "feb 30",
            // a year after the day, before the time, reads as a second time
            "jan 10 2023 10:00:00",
        ] {
            assert_eq!(utc(bad, NOW), None, "{bad}");
        }
    }
}
