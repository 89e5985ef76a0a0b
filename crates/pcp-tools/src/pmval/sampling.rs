//! pmval's sampling: how the samples are taken (the archive's mode, how
//! many, how far apart), the header that says so, and the loop that
//! fetches and reports them.

use super::report::{Got, Report};
use super::{Command, Source, Stop};
use crate::options;
use pcp::context::Mode;
use pcp::timeparse::{Window, PM_MAX_TIME_T};
use pcp::Context;
use pcp_core::{MetricType, PmId, Semantics, Timestamp, ValueSet};
use std::io::Write;

/// How the samples are taken.
pub(super) struct Sampling {
    pmid: PmId,
    /// Values as recorded (`-U`, and event records in an archive), not
    /// interpolated.
    uninterp: bool,
    /// Wait an interval between samples (live, or `-d`).
    wait: bool,
    /// The interval, in nanoseconds.
    interval_ns: i64,
    /// How many samples (negative: until the end).
    samples: i32,
    /// The time window's end, when it has one.
    finish: Option<Timestamp>,
}

/// How many samples and how far apart; for an archive, its mode set for
/// them. Then the column width, checked against `-f`.
pub(super) fn set_up_sampling(
    cmd: &Command,
    src: &mut Source,
    window: &Window,
    pmid: PmId,
    rep: &mut Report,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Sampling, Stop> {
    let opts = &cmd.opts;
    let finish = (window.end.sec != PM_MAX_TIME_T).then_some(window.end);
    let mut samples = if opts.samples == 0 && opts.samples_arg.as_deref().is_none_or(|a| options::atoi(a) != 0) {
        -1
    } else {
        opts.samples
    };
    let interval_ns = if opts.interval.sec == 0 && opts.interval.nsec == 0 {
        1_000_000_000
    } else {
        opts.interval.sec * 1_000_000_000 + opts.interval.nsec as i64
    };
    // event records are not interpolated: pmval reads them as recorded
    let uninterp = cmd.own.uninterp || (rep.raw_events && src.is_archive);
    let amode = if uninterp { Mode::Forw } else { Mode::Interp };
    if samples < 0 && amode != Mode::Forw {
        if let Some(finish) = finish {
            let n = c_int_of((finish.as_secs_f64() - window.origin.as_secs_f64()) / (interval_ns as f64 / 1e9));
            samples = if n < 0 { 0 } else { n.wrapping_add(1) };
        }
    }
    if opts.timezone.is_none() && !opts.hostzone && !rep.raw_events {
        writeln!(out)?;
    }
    // pmval hands the origin to pmSetMode as a timeval, and the interval
    // as whole milliseconds (whole seconds beyond 24 days)
    let usec = |t: Timestamp| Timestamp { sec: t.sec, nsec: t.nsec / 1000 * 1000 };
    let (tv_sec, tv_usec) = (interval_ns / 1_000_000_000, (interval_ns % 1_000_000_000) / 1000);
    let step_ns = if tv_sec > 2_073_600 {
        tv_sec * 1_000_000_000
    } else {
        i64::from((tv_sec as f64 * 1e3 + tv_usec as f64 / 1e3) as i32) * 1_000_000
    };
    if src.is_archive {
        let set = src.ctx.set_mode(amode, usec(window.origin), step_ns);
        err.write_all(&src.ctx.take_messages())?;
        if let Err(e) = set {
            writeln!(err, "pmval: pmSetMode: {e}")?;
            return Err(Stop::Exit(1));
        }
    }
    if rep.cols <= 0 {
        rep.cols = match howide(rep.desc.ty) {
            Some(w) => w,
            None => {
                writeln!(err, "pmval: unknown performance metric value type {}", rep.desc.ty.name())?;
                return Err(Stop::Exit(1));
            }
        };
    }
    if (rep.fixed == 0 && rep.fixed > rep.cols) || (rep.fixed > 0 && rep.fixed > rep.cols - 2) {
        writeln!(err, "pmval: -f {} too large for column width {}", rep.fixed, rep.cols)?;
        return Err(Stop::Exit(1));
    }
    let wait = cmd.own.pause || !src.is_archive;
    Ok(Sampling { pmid, uninterp, wait, interval_ns, samples, finish })
}

/// pmval's `printhdr`.
pub(super) fn print_header(
    cmd: &Command,
    src: &Source,
    window: &Window,
    s: &Sampling,
    rep: &Report,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    if !rep.raw_events {
        writeln!(out, "metric:    {}", cmd.metric)?;
    }
    if src.is_archive {
        writeln!(out, "archive:   {}", src.name)?;
    }
    writeln!(out, "host:      {}", src.hostname)?;
    if src.is_archive {
        writeln!(out, "start:     {}", rep.zone.ctime(window.origin.sec).unwrap_or_default())?;
        if let Some(f) = s.finish {
            writeln!(out, "end:       {}", rep.zone.ctime(f.sec).unwrap_or_default())?;
        }
    }
    if !rep.raw_events {
        rep.print_units(out)?;
    }
    if s.samples < 0 {
        writeln!(out, "samples:   all")?;
    } else {
        writeln!(out, "samples:   {}", s.samples)?;
    }
    if s.samples > 1 && (!src.is_archive || !s.uninterp) {
        let iv = s.interval_ns as f64 / 1e9;
        out.write_all(
            pcp_core::support::cfmt::sprintf_f64_text("interval:  %1.2f sec\n", &[], iv).unwrap_or_default().as_bytes(),
        )?;
    }
    Ok(())
}

/// Live, the first sample waits for the window's start.
pub(super) fn wait_for_start(window: &Window, out: &mut dyn Write) -> std::io::Result<()> {
    let wait = window.start.as_secs_f64() - options::now().as_secs_f64();
    if wait > 0.0 {
        out.flush()?;
        std::thread::sleep(std::time::Duration::from_secs_f64(wait));
    }
    Ok(())
}

/// pmval's main loop: fetch, report values (or rates, from each two
/// fetches in a row) until the samples or the window are done.
pub(super) fn sample(
    rep: &mut Report,
    ctx: &mut Context,
    s: Sampling,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), Stop> {
    let Sampling { pmid, uninterp, wait, interval_ns, mut samples, finish } = s;
    let forever = samples < 0;
    let mut have_prev = false;
    let mut no_values = false;
    let mut reporting = false;
    let mut prev: Option<(Timestamp, ValueSet)> = None;
    while forever || {
        samples -= 1;
        samples >= 0
    } {
        if !have_prev {
            match rep.getvals(ctx, pmid, uninterp, finish, out, err)? {
                Got::Values(t, vs) => {
                    have_prev = true;
                    if rep.raw_events {
                        rep.print_events(ctx, out, err, t, &vs)?.map_err(Stop::Exit)?;
                        continue;
                    }
                    if !rep.desc.indom.is_null() {
                        rep.print_labels(out)?;
                    }
                    if rep.raw_counter || rep.desc.sem != Semantics::COUNTER {
                        rep.timestamp(out, t)?;
                        rep.print_vals(out, &vs)?;
                        reporting = true;
                        prev = Some((t, vs));
                        continue;
                    } else if no_values || reporting {
                        rep.no_values(out, t)?;
                    }
                    no_values = false;
                    prev = Some((t, vs));
                }
                Got::PastEnd => break,
                Got::Exit(code) => return Err(Stop::Exit(code)),
                Got::Nothing => no_values = true,
                Got::Suspended => {
                    reporting = false;
                    no_values = true;
                }
            }
        }
        if wait {
            // (PCP's pmval writes each line as it is made, setlinebuf():
            // what is buffered here goes out before waiting, so that a
            // reader of a pipe gets each sample when it comes)
            out.flush()?;
            std::thread::sleep(std::time::Duration::from_nanos(interval_ns.max(0) as u64));
        }
        if !have_prev {
            continue;
        }
        let (t1, vs1) = match rep.getvals(ctx, pmid, uninterp, finish, out, err)? {
            Got::PastEnd => break,
            Got::Exit(code) => return Err(Stop::Exit(code)),
            Got::Nothing => {
                have_prev = false;
                continue;
            }
            Got::Suspended => {
                reporting = false;
                have_prev = false;
                continue;
            }
            Got::Values(t, vs) => (t, vs),
        };
        if rep.raw_events {
            rep.print_events(ctx, out, err, t1, &vs1)?.map_err(Stop::Exit)?;
            continue;
        }
        if rep.iall && !rep.has_all_insts(&vs1) {
            rep.init_insts(ctx, err)?.map_err(Stop::Exit)?;
            rep.print_labels(out)?;
        }
        rep.timestamp(out, t1)?;
        if rep.raw_counter || rep.desc.sem != Semantics::COUNTER {
            rep.print_vals(out, &vs1)?;
        } else if let Some((t2, vs2)) = &prev {
            rep.print_rates(out, &vs1, t1, vs2, *t2)?;
        }
        reporting = true;
        if let Some((_, old)) = prev.replace((t1, vs1)) {
            rep.recycle(old);
        }
    }
    Ok(())
}

/// pmval's `howide`: the column width for a type.
fn howide(ty: MetricType) -> Option<i32> {
    Some(match ty {
        MetricType::I32 | MetricType::U32 => 11,
        MetricType::I64 | MetricType::U64 => 21,
        MetricType::FLOAT => 13,
        MetricType::DOUBLE | MetricType::STRING => 21,
        MetricType::EVENT | MetricType::HIGHRES_EVENT => 0,
        MetricType::AGGREGATE | MetricType::AGGREGATE_STATIC => 21,
        _ => return None,
    })
}

/// C's `(int)` of a double as x86 computes it: a value out of `int`'s
/// range (or not a number) is `INT_MIN`, where Rust's `as` saturates. An
/// archive whose last timestamp is years away has pmval count no samples,
/// not sample for ever.
fn c_int_of(x: f64) -> i32 {
    if x.is_nan() || x >= 2_147_483_648.0 || x <= -2_147_483_649.0 {
        i32::MIN
    } else {
        x as i32
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn c_int_of_is_int_min_out_of_range() {
        assert_eq!(super::c_int_of(2.5e9), i32::MIN);
        assert_eq!(super::c_int_of(-2.5e9), i32::MIN);
        assert_eq!(super::c_int_of(f64::NAN), i32::MIN);
        assert_eq!(super::c_int_of(2_147_483_647.9), i32::MAX);
        assert_eq!(super::c_int_of(-3.7), -3);
    }
}
