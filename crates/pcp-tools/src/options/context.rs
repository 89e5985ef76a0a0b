//! The step that needs a context (`pmGetContextOptions`): the reporting
//! time zone, libpcp's "Note:" line about it, and the time window `-S`,
//! `-T`, `-A` and `-O` select.

use super::{ApiVersion, ContextKind, Options};
use pcp::timeparse::{self, SpecError, Window, WindowSpec, PM_MAX_TIME_T};
use pcp::timezone::Zone;
use pcp_core::Timestamp;
use std::io::{self, Write};

impl Options {
    /// The time zone the tool reports in: `-z` gives the source's
    /// (`context_zone`: an archive label's `$TZ`, or pmcd's), `-Z` its
    /// own, otherwise `local`.
    pub fn reporting_zone(&self, context_zone: Option<&str>, local: &Zone) -> Zone {
        match (&self.timezone, self.hostzone, context_zone) {
            (_, true, Some(tz)) => Zone::new(tz).unwrap_or_else(|_| Zone::utc()),
            (Some(tz), false, _) => Zone::new(&String::from_utf8_lossy(tz)).unwrap_or_else(|_| Zone::utc()),
            _ => local.clone(),
        }
    }

    /// Show `trace`'s times from now on in the zone the tool reports in
    /// (see [`Options::reporting_zone`]): libpcp's traces show them in
    /// the current zone, which `pmGetContextOptions` sets before it looks
    /// for the end of an archive.
    ///
    /// With `-Dcontext`, trace what `pmGetContextOptions` does to set the
    /// zone: `pmNewContextZone`'s look at the context (`-z`), then
    /// `pmNewZone`'s line.
    pub fn zone_trace(&self, trace: &pcp::debug::Trace, context_zone: Option<&str>, local: &Zone) {
        if trace.any() {
            trace.set_zone(std::sync::Arc::new(self.reporting_zone(context_zone, local)));
        }
        self.trace_context_zone(trace);
        self.trace_new_zone(trace, context_zone);
    }

    /// With `-Dcontext` and `-z`, `pmNewContextZone`'s look at the
    /// current context (before it asks pmcd, for a host).
    pub fn trace_context_zone(&self, trace: &pcp::debug::Trace) {
        if self.hostzone && trace.on(pcp::debug::DebugFlag::Context) {
            trace.write_bytes(b"pmWhichContext() -> 0, cur=0\n");
        }
    }

    /// With `-Dcontext`, `pmNewZone`'s line for the zone `-z` (the
    /// source's `context_zone`, when it has one) or `-Z` names. libpcp
    /// numbers the zones it is given from 0, and adds `+0` to a name of
    /// three characters.
    #[doc(alias = "pmNewZone")]
    pub fn trace_new_zone(&self, trace: &pcp::debug::Trace, context_zone: Option<&str>) {
        if !trace.on(pcp::debug::DebugFlag::Context) {
            return;
        }
        let tz: std::borrow::Cow<str> = match (self.hostzone, context_zone, &self.timezone) {
            (true, Some(tz), _) => tz.into(),
            (false, _, Some(tz)) => String::from_utf8_lossy(tz),
            _ => return,
        };
        let n = trace.noted("pmNewZone").map_or(0, |n| n + 1);
        trace.changed("pmNewZone", n);
        let hack = if tz.len() == 3 { "+0" } else { "" };
        trace.write(format_args!("pmNewZone({tz}{hack}) -> {n}\n"));
    }

    /// The time window `-S`, `-T`, `-A` and `-O` select within
    /// `first`..`last` (an archive's bounds; for a live source, now and
    /// [`PM_MAX_TIME_T`] seconds), local times read in `zone`, `now` the
    /// current time. The error is libpcp's whole message
    /// (`PROG: invalid time window.` and the parser's complaint).
    pub fn time_window(
        &self,
        first: Timestamp,
        last: Timestamp,
        zone: &Zone,
        now: Timestamp,
    ) -> Result<Window, Vec<u8>> {
        let spec = WindowSpec {
            start: self.start_arg.as_deref(),
            finish: self.finish_arg.as_deref(),
            align: self.align_arg.as_deref(),
            origin: self.origin_arg.as_deref(),
        };
        let parsed = match self.version {
            ApiVersion::V3 => timeparse::parse_high_res_time_window(&spec, first, last, zone, now),
            ApiVersion::V2 => timeparse::parse_time_window(&spec, first, last, zone, now),
        };
        parsed.map_err(|e: SpecError| {
            let mut m = format!("{}: invalid time window.\n", self.prog).into_bytes();
            m.extend_from_slice(e.as_bytes());
            m.push(b'\n');
            m
        })
    }

    /// `pmGetContextOptions`: once the tool has its context, set up the
    /// reporting time zone (writing libpcp's "Note: timezone set to ..."
    /// lines to `out` if the tool asks for them) and, if any of `-S`, `-T`,
    /// `-A`, `-O` was given or the tool always wants one, the time window.
    /// On failure the messages are waiting in [`Options::messages`] (the C
    /// tools then `pmflush` and exit with status 1).
    #[doc(alias = "pmGetContextOptions")]
    pub fn context_options(
        &mut self,
        ctx: &ContextInfo<'_>,
        local: &Zone,
        now: Timestamp,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> io::Result<Result<ContextSettings, ()>> {
        let mut zone = local.clone();
        if self.hostzone {
            match &ctx.zone {
                Ok(tz) => {
                    zone = Zone::new(tz).unwrap_or_else(|_| Zone::utc());
                    if self.flags.stdout_tz {
                        let from = if ctx.kind == ContextKind::Archive { " from archive" } else { "" };
                        write!(out, "Note: timezone set to local timezone of host \"{}\"{from}\n\n", ctx.host_name)?;
                    }
                }
                Err(e) => {
                    let m = format!("{}: Cannot set context timezone: {e}\n", self.prog);
                    self.error(&m);
                }
            }
        } else if let Some(tz) = &self.timezone {
            zone = Zone::new(&String::from_utf8_lossy(tz)).unwrap_or_else(|_| Zone::utc());
            if self.flags.stdout_tz {
                out.write_all(b"Note: timezone set to \"TZ=")?;
                out.write_all(tz)?;
                out.write_all(b"\"\n\n")?;
            }
        }

        err.write_all(&ctx.end_trace)?;

        let wanted = self.start_arg.is_some()
            || self.finish_arg.is_some()
            || self.align_arg.is_some()
            || self.origin_arg.is_some()
            || self.flags.boundaries;
        let mut window = None;
        if self.errors == 0 && wanted {
            let (first, last) = match (ctx.kind, &ctx.bounds) {
                (ContextKind::Archive, Some((start, end))) => {
                    let end = match end {
                        Ok(end) => *end,
                        Err(e) => {
                            out.flush()?;
                            let name = self.archives.first().cloned().unwrap_or_default();
                            write!(err, "{}: Cannot locate end of archive ", self.prog)?;
                            err.write_all(&name)?;
                            write!(
                                err,
                                ": {e}\n\nWARNING: This archive is sufficiently damaged that it may not be possible to\n         produce complete information.  Continuing and hoping for the best.\n\n"
                            )?;
                            err.flush()?;
                            Timestamp { sec: PM_MAX_TIME_T, nsec: 0 }
                        }
                    };
                    (*start, end)
                }
                _ => (now, Timestamp { sec: PM_MAX_TIME_T, nsec: 0 }),
            };
            match self.time_window(first, last, &zone, now) {
                Ok(w) => window = Some(w),
                Err(m) => {
                    self.messages.extend_from_slice(&m);
                    self.errors += 1;
                }
            }
        }
        if self.errors > 0 {
            if !self.usage_error {
                self.runtime_error = true;
            }
            return Ok(Err(()));
        }
        Ok(Ok(ContextSettings { zone, window }))
    }
}

/// What [`Options::context_options`] needs to know about the context.
#[derive(Clone, Debug)]
pub struct ContextInfo<'a> {
    /// Its kind.
    pub kind: ContextKind,
    /// `pmGetContextHostName`: the archive label's host, or pmcd's.
    pub host_name: &'a str,
    /// For `-z`: the source's `$TZ` (the archive label's, or
    /// `pmcd.timezone`), or `pmErrStr` of why it could not be had.
    pub zone: Result<&'a str, String>,
    /// An archive's bounds: the label's start and the end of its data (or
    /// `pmErrStr` of why the end could not be found).
    pub bounds: Option<(Timestamp, Result<Timestamp, String>)>,
    /// What libpcp traced finding the archive's end, which it does after
    /// the zone's "Note:": written to the error stream there.
    pub end_trace: Vec<u8>,
}

/// What [`Options::context_options`] settles.
#[derive(Clone, Debug)]
pub struct ContextSettings {
    /// The zone to report times in.
    pub zone: Zone,
    /// The time window, when one was asked for.
    pub window: Option<Window>,
}

/// The local time zone of a process whose environment is `env` (as
/// [`super::Parser::new`] takes it): its `$TZ` (UTC when empty, or when it names
/// nothing usable), or with no `$TZ` the system's (`/etc/localtime`), as
/// [`Zone::local`] finds it.
pub fn local_zone(env: &[(Vec<u8>, Vec<u8>)]) -> Zone {
    match env.iter().find(|(k, _)| k == b"TZ") {
        Some((_, tz)) if tz.is_empty() => Zone::utc(),
        Some((_, tz)) => Zone::from_tz_env(&String::from_utf8_lossy(tz)).unwrap_or_else(|_| Zone::utc()),
        None => Zone::local(),
    }
}

/// The current time.
pub fn now() -> Timestamp {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    Timestamp { sec: d.as_secs() as i64, nsec: d.subsec_nanos() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::testing::{run, text};
    use crate::options::{tools, DefaultHooks};

    #[test]
    fn live_windows_run_from_now_without_end() {
        let mut o = run(tools::PMVAL, &["pmval", "-T", "+90s", "-h", "h", "m"], &[]);
        o.end_options(&mut DefaultHooks);
        let info = ContextInfo {
            kind: ContextKind::Host,
            host_name: "h",
            zone: Ok("UTC"),
            bounds: None,
            end_trace: Vec::new(),
        };
        let now = Timestamp { sec: 1000, nsec: 5 };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let Ok(Ok(s)) = o.context_options(&info, &Zone::utc(), now, &mut out, &mut err) else {
            panic!("{}", text(&o));
        };
        let w = s.window.unwrap_or_else(|| panic!("no window"));
        assert_eq!((w.start, w.end, w.origin), (now, Timestamp { sec: 1090, nsec: 5 }, now));
    }
}
