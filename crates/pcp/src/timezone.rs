//! Time zones as PCP uses them: `pmNewZone(tz)` sets `$TZ` and the C
//! library's `localtime` does the rest. Archives carry the collector's `$TZ`
//! string (e.g. `AEDT-11`, `EST-11EST-10,89/2:00,299/2:00`, `PST8PDT`) and
//! sometimes a zoneinfo name (`:Australia/Melbourne`).
//!
//! [`Zone`] reproduces glibc's reading of such a string: a name starting
//! with `:` is a zoneinfo file; otherwise a zoneinfo file of that name is
//! tried first (so `PST8PDT` and `UTC` come from the database, as glibc
//! does), then the string is read as a POSIX TZ rule.

use pcp_core::{PmError, PmResult};

/// A time zone, as a `$TZ` string selects it.
#[doc(alias = "pmNewZone")]
#[derive(Clone, Debug)]
pub struct Zone {
    tz: tz::TimeZone,
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

const ZONEINFO: &str = "/usr/share/zoneinfo";

impl Zone {
    /// The zone a `$TZ` string names (`pmNewZone`). `PM_ERR_GENERIC` if it
    /// names nothing usable.
    #[doc(alias = "pmNewZone")]
    pub fn new(tz_string: &str) -> PmResult<Zone> {
        let file = |name: &str| -> Option<tz::TimeZone> {
            let path = if name.starts_with('/') { name.to_string() } else { format!("{ZONEINFO}/{name}") };
            let bytes = std::fs::read(path).ok()?;
            tz::TimeZone::from_tz_data(&bytes).ok()
        };
        let tz = if let Some(name) = tz_string.strip_prefix(':') {
            file(name)
        } else {
            file(tz_string).or_else(|| tz::TimeZone::from_posix_tz(tz_string).ok())
        };
        tz.map(|tz| Zone { tz }).ok_or(PmError::PM_ERR_GENERIC)
    }

    /// The local zone, as the C library finds it: `$TZ` if set (empty is
    /// UTC), else `/etc/localtime`, else UTC.
    pub fn local() -> Zone {
        match std::env::var("TZ") {
            Ok(tz) if tz.is_empty() => Zone::utc(),
            Ok(tz) => Zone::new(&tz).unwrap_or_else(|_| Zone::utc()),
            Err(_) => std::fs::read("/etc/localtime")
                .ok()
                .and_then(|b| tz::TimeZone::from_tz_data(&b).ok())
                .map_or_else(Zone::utc, |tz| Zone { tz }),
        }
    }

    /// Coordinated Universal Time.
    pub fn utc() -> Zone {
        Zone { tz: tz::TimeZone::utc() }
    }

    /// `localtime`: the local time `sec` seconds after the epoch.
    #[doc(alias = "pmLocaltime")]
    pub fn localtime(&self, sec: i64) -> PmResult<Tm> {
        let dt = tz::DateTime::from_timespec(sec, 0, self.tz.as_ref()).map_err(|_| PmError::PM_ERR_GENERIC)?;
        let ltt = dt.local_time_type();
        Ok(Tm {
            year: dt.year(),
            month: dt.month(),
            mday: dt.month_day(),
            hour: dt.hour(),
            min: dt.minute(),
            sec: dt.second(),
            wday: dt.week_day(),
            yday: dt.year_day(),
            isdst: ltt.is_dst(),
            gmtoff: ltt.ut_offset(),
            abbrev: ltt.time_zone_designation().to_string(),
        })
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

/// The time of day in this zone, cheaply: the zone's offset at that time
/// applied to the seconds (what [`Zone::localtime`] gives, without
/// building a whole date).
impl pcp_core::LocalTime for Zone {
    fn hms(&self, sec: i64) -> Option<(u32, u32, u32)> {
        let off = self.tz.find_local_time_type(sec).ok()?.ut_offset();
        let s = sec.checked_add(off as i64)?.rem_euclid(86_400) as u32;
        Some((s / 3600, s / 60 % 60, s % 60))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcp_core::LocalTime;

    #[test]
    fn time_of_day_agrees_with_localtime() {
        for tz in ["UTC", "EST-11EST-10,89/2:00,299/2:00", "AEST-10AEDT-11,M10.5.0/3,M3.5.0/2", "PST8PDT"] {
            let z = Zone::new(tz).unwrap();
            // across a year, in steps that cross both transitions
            for sec in (1_700_000_000i64..1_732_000_000).step_by(3_607) {
                let tm = z.localtime(sec).unwrap();
                assert_eq!(z.hms(sec), Some((tm.hour as u32, tm.min as u32, tm.sec as u32)), "{tz} {sec}");
            }
        }
    }
}
