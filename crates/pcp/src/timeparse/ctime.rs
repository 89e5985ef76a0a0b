//! `__pmParseCtime`: the `ctime`-like times after `@` in `-S`/`-T`/`-O`
//! (`Tue Jan 10 10:00:00 2023`, `Jan 10`, `10:30`, `2023`, `3pm`, ...),
//! any part of which may be left out.

use super::lex::{caret, is_alpha, parse_char, parse_double, parse_int, skip_space, MORE_MSG, WHAT_MSG};
use super::SpecError;
use crate::timezone::CTm;
use pcp_core::support::x87;

/// Three-letter codes (lower case) libpcp recognises.
const WEEKDAYS: [&[u8]; 7] = [b"sun", b"mon", b"tue", b"wed", b"thu", b"fri", b"sat"];
const MONTHS: [&[u8]; 12] =
    [b"jan", b"feb", b"mar", b"apr", b"may", b"jun", b"jul", b"aug", b"sep", b"oct", b"nov", b"dec"];
const MERIDIANS: [&[u8]; 2] = [b"am", b"pm"];

/// A word of one to three letters at `*pos` (after white space) that is
/// one of `codes`: its index, with `*pos` after it. Otherwise `None`, with
/// `*pos` after the white space only. Longer words are cut after three
/// letters.
fn parse_code(s: &[u8], pos: &mut usize, codes: &[&[u8]]) -> Option<usize> {
    let at = skip_space(s, *pos);
    *pos = at;
    let word = s[at..].iter().take(3).take_while(|&&b| is_alpha(b)).count();
    if word == 0 {
        return None;
    }
    let lower: Vec<u8> = s[at..at + word].iter().map(u8::to_ascii_lowercase).collect();
    let i = codes.iter().position(|c| *c == lower.as_slice())?;
    *pos = at + word;
    Some(i)
}

/// Parse a `ctime`-like time. Fields left out are -1 in the result, except
/// that everything finer than the coarsest given field defaults to its
/// start (a year alone means January 1st, 00:00:00). `yday` carries the
/// nanoseconds of fractional seconds and `wday` is 0 (libpcp's "absolute
/// time" mark).
#[doc(alias = "__pmParseCtime")]
pub fn parse_ctime(spec: &[u8]) -> Result<CTm, SpecError> {
    let s = super::lex::c_str(spec);
    let mut tm = CTm { sec: -1, min: -1, hour: -1, mday: -1, mon: -1, year: -1, wday: 0, yday: -1, isdst: -1 };
    let mut pos = 0;

    let weekday = parse_code(s, &mut pos, &WEEKDAYS);
    if let Some(m) = parse_code(s, &mut pos, &MONTHS) {
        tm.mon = m as i32;
    }
    if let Some(d) = parse_int(s, &mut pos, 0, 31) {
        tm.mday = d;
    }
    if let Some(h) = parse_int(s, &mut pos, 0, 23) {
        tm.hour = h;
    }
    if tm.mday == 0 && tm.hour != -1 {
        tm.mday = -1;
    }
    // a lone small number is an hour, unless it follows a month (then a
    // colon after it still makes it one)
    if tm.hour == -1 && (0..=23).contains(&tm.mday) && (tm.mon == -1 || s.get(pos) == Some(&b':')) {
        tm.hour = tm.mday;
        tm.mday = -1;
    }
    if parse_char(s, &mut pos, b':') {
        if tm.hour == -1 {
            tm.hour = 0;
        }
        tm.min = 0;
        if let Some(m) = parse_int(s, &mut pos, 0, 59) {
            tm.min = m;
        }
        if parse_char(s, &mut pos, b':') {
            if let Some(d) = parse_double(s, &mut pos, 0.0, 61.0) {
                tm.sec = x87::f64_to_i32(d);
                let frac = d - f64::from(tm.sec);
                tm.yday = match x87::scaled_fraction(frac, 1_000_000_000, false) {
                    Some(ns) => ns as i32,
                    None => i32::MIN,
                };
            }
        }
    }
    if let Some(pm) = parse_code(s, &mut pos, &MERIDIANS) {
        if tm.hour > 12 || tm.hour == -1 {
            // not a meridian after all: leave it to be reported
            pos -= 2;
        } else if pm == 1 {
            if tm.hour < 12 {
                tm.hour += 12;
            }
        } else if tm.hour == 12 {
            tm.hour = 0;
        }
    }
    if let Some(y) = parse_int(s, &mut pos, 1900, 9999) {
        tm.year = y - 1900;
    }

    pos = skip_space(s, pos);
    if pos < s.len() {
        return Err(caret(s, pos, WHAT_MSG));
    }
    let weekday_only = weekday.is_some() && tm.mon == -1 && tm.mday == -1;
    let hour_only = tm.hour != -1 && tm.min == -1 && tm.mday == -1 && tm.mon == -1 && tm.year == -1;
    if weekday_only || hour_only {
        return Err(caret(s, pos, MORE_MSG));
    }

    // below the coarsest field given, fields default to their start
    let mut given = tm.year != -1;
    for (field, start) in [(&mut tm.mon, 0), (&mut tm.mday, 1), (&mut tm.hour, 0), (&mut tm.min, 0)] {
        if *field != -1 {
            given = true;
        } else if given {
            *field = start;
        }
    }
    if tm.sec == -1 && given {
        tm.sec = 0;
        tm.yday = 0;
    }
    Ok(tm)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(s: &str) -> (i32, i32, i32, i32, i32, i32, i32) {
        let t = parse_ctime(s.as_bytes()).unwrap_or_else(|e| panic!("{s}: {e}"));
        (t.year, t.mon, t.mday, t.hour, t.min, t.sec, t.yday)
    }

    #[test]
    fn full_and_partial_forms() {
        assert_eq!(fields(" Tue Jan 10 10:00:00 2023"), (123, 0, 10, 10, 0, 0, 0));
        assert_eq!(fields("Jan 10"), (-1, 0, 10, 0, 0, 0, 0));
        assert_eq!(fields("10:30"), (-1, -1, -1, 10, 30, 0, 0));
        assert_eq!(fields("2023"), (123, 0, 1, 0, 0, 0, 0));
        assert_eq!(fields("3:00pm"), (-1, -1, -1, 15, 0, 0, 0));
        assert_eq!(fields("12:15 am"), (-1, -1, -1, 0, 15, 0, 0));
        assert_eq!(fields("1:02:03.25"), (-1, -1, -1, 1, 2, 3, 250_000_000));
        assert_eq!(fields(""), (-1, -1, -1, -1, -1, -1, -1));
        // 25 is a day of the month, so the colon starts at midnight
        assert_eq!(fields("\t25:00"), (-1, -1, 25, 0, 0, 0, 0));
    }

    #[test]
    fn errors_point_at_the_problem() {
        let e = |s: &str| parse_ctime(s.as_bytes()).err().map(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        assert_eq!(e("Tuesday"), Some("Tuesday\n   ^ -- unexpected value\n".into()));
        assert_eq!(e("10"), Some("10\n  ^ -- more information expected\n".into()));
        assert_eq!(e("Tue"), Some("Tue\n   ^ -- more information expected\n".into()));
        assert_eq!(e("13pm"), Some("13pm\n  ^ -- unexpected value\n".into()));
        assert_eq!(e("\tJan 10 xyz"), Some("\tJan 10 xyz\n\t       ^ -- unexpected value\n".into()));
    }
}
