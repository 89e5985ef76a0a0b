//! How pmdumplog prints times and values.

use super::Dumper;
use pcp::timezone::Zone;
use pcp_archive::raw::{Stamp, ValueView, Version};
use pcp_core::format::{print_value_in, Decimal};
use pcp_core::{LocalTime, MetricType};
use std::io::Write;

/// Is `d` a whole number that `%.16g` prints as plain digits?
fn whole(d: f64) -> bool {
    d.fract() == 0.0 && d.abs() < 1e15 && !(d == 0.0 && d.is_sign_negative())
}

/// `HH:MM:SS` of `sec` in `zone`.
pub(super) fn hms(zone: &Zone, sec: i64) -> String {
    match zone.hms(sec) {
        Some((h, m, s)) => format!("{h:02}:{m:02}:{s:02}"),
        None => "??:??:??".to_string(),
    }
}

/// `HH:MM:SS.uuuuuu` (v2) or `HH:MM:SS.nnnnnnnnn` (v3) in `zone`, the
/// nanoseconds as a record has them (C's `int` arithmetic: -1000 is
/// `.-00001`).
pub(super) fn timestamp(zone: &Zone, t: impl Into<Stamp>, v: Version) -> String {
    let t = t.into();
    match v {
        Version::V2 => format!("{}.{:06}", hms(zone, t.sec), t.nsec / 1000),
        Version::V3 => format!("{}.{:09}", hms(zone, t.sec), t.nsec),
    }
}

/// `a - b` in seconds as libpcp computes it (in long double, then
/// rounded to double): the double nearest `units` counted in `per`-ths of
/// a second.
fn seconds(units: i128, per: i128) -> f64 {
    let sign = if units < 0 { "-" } else { "" };
    let u = units.unsigned_abs();
    let digits = if per == 1_000_000 { 6 } else { 9 };
    format!("{sign}{}.{:0digits$}", u / per as u128, u % per as u128).parse().unwrap_or(0.0)
}

impl Dumper<'_> {
    /// `dump_pmTimestamp`: the time, with `-x` the date and year, with
    /// `-xx` the offset from the archive's start, with `-xxx` the seconds
    /// since the epoch.
    pub(super) fn stamp(&self, buf: &mut Vec<u8>, t: impl Into<Stamp>) {
        let t = t.into();
        let ctime = if self.xflag > 0 { self.zone.ctime(t.sec).ok() } else { None };
        if let Some(c) = &ctime {
            let _ = write!(buf, "{} ", c.get(..10).unwrap_or(""));
        }
        buf.extend_from_slice(timestamp(&self.zone, t, self.version).as_bytes());
        if let Some(c) = &ctime {
            let _ = write!(buf, " {:>4.4}", c.get(20..).unwrap_or(""));
        }
        if self.xflag >= 2 {
            let ns =
                (t.sec as i128 - self.start.sec as i128) * 1_000_000_000 + (t.nsec as i128 - self.start.nsec as i128);
            let (fmt, v) = match self.version {
                Version::V3 => ("%.9f", seconds(ns, 1_000_000_000)),
                Version::V2 => ("%.6f", seconds(ns, 1_000_000_000)),
            };
            let _ = write!(buf, " ({})", pcp_core::support::cfmt::sprintf_f64_text(fmt, &[], v).unwrap_or_default());
        }
        if self.xflag >= 3 {
            let _ = write!(buf, " {}", t.sec as u64);
        }
    }

    /// `dump_timeval`: an event record's time (microseconds).
    pub(super) fn timeval(&self, buf: &mut Vec<u8>, sec: i64, usec: i64) {
        let ctime = if self.xflag > 0 { self.zone.ctime(sec).ok() } else { None };
        if let Some(c) = &ctime {
            let _ = write!(buf, "{} ", c.get(..10).unwrap_or(""));
        }
        let _ = write!(buf, "{}.{:06}", hms(&self.zone, sec), usec as i32);
        if let Some(c) = &ctime {
            let _ = write!(buf, " {:>4.4}", c.get(20..).unwrap_or(""));
        }
        if self.xflag >= 2 {
            let us =
                (sec as i128 - self.start.sec as i128) * 1_000_000 + (usec as i128 - (self.start.nsec / 1000) as i128);
            let v = seconds(us, 1_000_000);
            let _ = write!(buf, " ({})", pcp_core::support::cfmt::sprintf_f64_text("%.6f", &[], v).unwrap_or_default());
        }
    }

    /// `pmPrintValue(..., 1)` of one value; the common integer cases
    /// straight from the record's bytes.
    pub(super) fn value(&self, buf: &mut Vec<u8>, value: ValueView, ty: MetricType) {
        let same = |vtype: u8| vtype == ty.0 as u8 || vtype == 0;
        // libpcp turns a block's numbers to host order only when the block
        // says its type; with the type byte unset they stay as recorded
        let word = |vtype: u8, w: [u8; 8]| if vtype == 0 { u64::from_le_bytes(w) } else { u64::from_be_bytes(w) };
        let signed = |buf: &mut Vec<u8>, v: i64| buf.extend_from_slice(Decimal::signed(v).as_bytes());
        let unsigned = |buf: &mut Vec<u8>, v: u64| buf.extend_from_slice(Decimal::unsigned(v).as_bytes());
        match (value, ty) {
            (ValueView::Insitu(l), MetricType::I32) => signed(buf, l.into()),
            (ValueView::Insitu(l), MetricType::U32) => unsigned(buf, u64::from(l as u32)),
            (ValueView::Block(t, &[a, b, c, d, e, f, g, h]), MetricType::I64) if same(t) => {
                signed(buf, word(t, [a, b, c, d, e, f, g, h]) as i64)
            }
            (ValueView::Block(t, &[a, b, c, d, e, f, g, h]), MetricType::U64) if same(t) => {
                unsigned(buf, word(t, [a, b, c, d, e, f, g, h]))
            }
            // %.16g of a whole number below 10^15 is its digits
            (ValueView::Block(t, &[a, b, c, d, e, f, g, h]), MetricType::DOUBLE)
                if same(t) && whole(f64::from_bits(word(t, [a, b, c, d, e, f, g, h]))) =>
            {
                signed(buf, f64::from_bits(word(t, [a, b, c, d, e, f, g, h])) as i64)
            }
            (ValueView::Block(t, data), MetricType::STRING) if same(t) => {
                // a C string: up to its first NUL
                let end = data.iter().position(|&c| c == 0).unwrap_or(data.len());
                buf.push(b'"');
                buf.extend_from_slice(&data[..end]);
                buf.push(b'"');
            }
            _ => {
                let _ = print_value_in(buf, &value.to_value(), ty, 1, &self.zone);
            }
        }
    }
}
