//! `pmval`: report one metric's values over time, live from pmcd or the
//! local machine, or from an archive.
//!
//! Live from pmcd (`-h`, a `host:metric` spec, or `local:` when no source
//! is named) it samples every `-t` for `-s` samples (or until `-T`, after
//! waiting for `-S`), counters as rates, the zone for `-z` from
//! `pmcd.zoneinfo` or `pmcd.timezone`. Unlike pmval, it stores no
//! `pmcd.client.whoami` in pmcd.
//!
//! Works today over archives (one, or several read as one context: a
//! comma-separated list, a directory, `-a` repeated): interpolated (`-t`,
//! the default 1 second) or as recorded (`-U`), counters as rates (or raw
//! with `-r`), event metrics' records unpacked, with the time window
//! options (`-S -T -O -A -s`), instance lists (`-i`), column width and
//! precision (`-w -f`), time zones (`-z -Z`), long timestamps (`-X`,
//! `-XX`), an alternative name space (`-n`, or `$PCP_UNIQNAMES`), `-d` and
//! `-v`; and over local contexts (`-L`, with `-K` specs), sampling every
//! interval as pmval samples pmcd. With no source named and no pmcd
//! answering on the local host, pmval says so in one line and uses the
//! local context (PCP's fails there). `-x` stores its value (a filter, for
//! an event metric's PMDA) to the metric in pmcd before sampling, as a
//! string for event metrics and as the metric's type otherwise, and does
//! nothing for archives and local contexts, as in pmval. The GUI time
//! control (`-g -p`), `--container` and `archive/metric` or `@:metric`
//! specs say they are not implemented yet. Derived
//! metrics come from `$PCP_DERIVED_CONFIG` and `--derived`.

use crate::evrec;
use crate::options::{self, tools, ContextHooks, ContextInfo, ContextKind, DefaultHooks, Parser};
use pcp::context::Mode;
use pcp::spec::{MetricSpec, SpecSource};
use pcp::timeparse::PM_MAX_TIME_T;
use pcp::timezone::Zone;
use pcp::Context;
use pcp_core::cfmt::{push_f64, push_f64_text, FloatSpec};
use pcp_core::format::pad_left;
use pcp_core::value::extract_value;
use pcp_core::{
    Desc, FetchResult, InDom, InstValue, MetricType, PmError, PmId, Semantics, Timestamp, Value, ValueSet, PM_IN_NULL,
};
use pcp_pmns::cpp::{Files, OsFiles};
use std::ffi::OsString;
use std::io::Write;

/// Run `pmval` with `args` (including the program name).
pub fn run(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    run_with_env(args, &options::process_env(), out, err)
}

/// [`run`] in the environment `env` (name and value pairs, in order)
/// rather than the process's: the `PCP_*` presets, `PCP_COUNTER_WRAP` and
/// the local time zone come from it.
pub fn run_with_env(args: &[OsString], env: &[(Vec<u8>, Vec<u8>)], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    main(args, env, out, err, &mut OsFiles).unwrap_or(1)
}

/// [`run`] reading name-space files through `files`.
pub fn run_with(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write, files: &mut dyn Files) -> i32 {
    main(args, &options::process_env(), out, err, files).unwrap_or(1)
}

/// An instance: identifier and name.
#[derive(Clone, Debug)]
struct InstPair {
    id: i32,
    name: Vec<u8>,
}

/// What pmval prints, and how.
struct Report {
    /// The metric's name as given.
    metric: String,
    desc: Desc,
    /// Every instance (no `-i`).
    iall: bool,
    /// The instance names asked for with `-i`.
    inames: Vec<Vec<u8>>,
    /// The instances reported, by identifier.
    ipairs: Vec<InstPair>,
    /// The same in the order they were found (pmval's `iids` and
    /// `inames`), where event records look their instances up.
    iorder: Vec<InstPair>,
    /// An event metric: records are unpacked (pmval's `rawEvents`).
    raw_events: bool,
    /// `-v`.
    verbose: bool,
    /// Seconds per the counter's time unit (rates come out per second).
    scale: f64,
    cols: i32,
    fixed: i32,
    raw_counter: bool,
    xflag: u32,
    zone: Zone,
    /// pmval's label style, decided once: 0 normal, 1 wide, 2 too wide.
    style: Option<u8>,
    wrap: bool,
    /// An archive context: values are stamped with their times.
    stamps: bool,
    /// pmval's `archive`: instances are looked up as in an archive (a
    /// source named with `-a`, even when `-L` makes the context local).
    archive: bool,
    /// Room for a line of values and for one value's text, kept from one
    /// sample to the next.
    line: Vec<u8>,
    text: String,
    /// The result each fetch fills, holding the room of a value set done
    /// with ([`Report::recycle`]).
    fetched: FetchResult,
}

fn main(
    args: &[OsString],
    env: &[(Vec<u8>, Vec<u8>)],
    out: &mut dyn Write,
    err: &mut dyn Write,
    files: &mut dyn Files,
) -> std::io::Result<i32> {
    let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_encoded_bytes().to_vec()).collect();
    let mut hooks =
        ContextHooks::new(files, env, &crate::options::progname(args.first().map(Vec::as_slice).unwrap_or_default()));
    let mut p = Parser::new(&args, tools::PMVAL, env, &mut hooks, err);
    let (mut fixed, mut cols, mut raw_counter, mut xflag) = (-1i32, 0i32, false, 0u32);
    let mut inames: Vec<Vec<u8>> = Vec::new();
    let mut iall = true;
    let (mut uninterp, mut pause, mut verbose) = (false, false, false);
    let mut filter: Option<Vec<u8>> = None;
    while let Some(o) = p.next_tool_opt() {
        let arg = o.arg.clone().unwrap_or_default();
        match o.opt {
            b'd' => pause = true,
            b'f' => {
                let (n, whole) = options::strtol_int(&arg);
                fixed = n;
                if !whole || n < 0 {
                    p.opts.printf(b"pmval: -f requires +ve numeric argument\n");
                    p.opts.errors += 1;
                }
            }
            b'i' => {
                iall = false;
                inames.extend(split_instances(&arg));
            }
            b'r' => raw_counter = true,
            b'U' => {
                p.opts.add_archive(&arg);
                uninterp = true;
            }
            b'v' => verbose = true,
            b'w' => {
                let (n, whole) = options::strtol_int(&arg);
                cols = n;
                if !whole || n < 1 {
                    p.opts.printf(b"pmval: -w requires +ve numeric argument\n");
                    p.opts.errors += 1;
                }
            }
            // a filter stored to pmcd (an archive or a local context has
            // nothing to do with it)
            b'x' => filter = Some(arg),
            b'X' => xflag += 1,
            _ => p.opts.errors += 1,
        }
    }
    let mut opts = p.finish();
    err.write_all(&opts.flushed)?;
    if opts.exit {
        opts.usage_message(err)?;
        return Ok(0);
    }
    if opts.errors == 0 && opts.operands.is_empty() {
        opts.printf(b"pmval: error - no metricname specified\n");
        opts.errors += 1;
    } else if opts.errors == 0 && opts.operands.len() > 1 {
        opts.printf(b"pmval: error - too many arguments\n");
        opts.errors += 1;
    }
    if opts.errors > 0 {
        opts.usage_message(err)?;
        return Ok(1);
    }
    // pmParseMetricSpec: the spec may name the source itself
    let default_archive = opts.hosts.is_empty() && (!opts.archives.is_empty() || opts.origin_arg.is_some());
    let spec = match MetricSpec::parse(&opts.operands[0]) {
        Ok(spec) => spec,
        Err(e) => {
            opts.printf(e.as_bytes());
            opts.errors += 1;
            opts.end_options(&mut hooks);
            opts.usage_message(err)?;
            return Ok(1);
        }
    };
    let metric = String::from_utf8_lossy(&spec.metric).into_owned();
    let spec_ninst = spec.instances.len();
    if spec_ninst > 0 {
        iall = false;
        inames = spec.instances;
    }
    // the spec's source is the one opened; -h or -a, if given, stays the
    // source the options name
    let mut spec_source = None;
    let archive_insts = match spec.source {
        Some(SpecSource::Archive(a)) => {
            if opts.archives.is_empty() {
                opts.add_archive(&a);
            }
            spec_source = Some(a);
            true
        }
        Some(SpecSource::Local) => {
            opts.local = true;
            default_archive
        }
        Some(SpecSource::Host(h)) => {
            if opts.hosts.is_empty() {
                opts.add_host(&h);
            }
            spec_source = Some(h);
            default_archive
        }
        None => default_archive,
    };
    if opts.hosts.is_empty() && opts.archives.is_empty() && !opts.local {
        if opts.origin_arg.is_some() {
            let dir = options::Hooks::default_archive(&mut DefaultHooks);
            opts.add_archive(&dir);
        } else if let Err(e) = crate::local::local_pmcd() {
            // no source named and no pmcd here: the local context
            err.write_all(crate::local::fallback_note("pmval", e).as_bytes())?;
            opts.local = true;
        } else {
            opts.add_host(b"local:");
        }
    }
    opts.end_options(&mut hooks);
    if opts.context != Some(ContextKind::Archive) {
        if uninterp {
            opts.printf(b"pmval: uninterpolated mode can only be used with archives");
            opts.errors += 1;
        }
        if pause {
            opts.printf(b"pmval: delay can only be used with archives\n");
            opts.errors += 1;
        }
    }
    if opts.errors > 0 {
        opts.usage_message(err)?;
        return Ok(1);
    }
    let (registry, report) = hooks.take_registry();
    err.write_all(&report)?;
    if opts.guimode || opts.guiport_arg.is_some() {
        writeln!(err, "pmval: -g and -p are not implemented in pcp-rs yet")?;
        return Ok(1);
    }
    let is_archive = opts.context == Some(ContextKind::Archive);
    let named = if opts.context == Some(ContextKind::Host) { opts.hosts.first() } else { opts.archives.first() };
    let source = spec_source.as_ref().or(named).map(|s| String::from_utf8_lossy(s).into_owned()).unwrap_or_default();
    // pmval keeps the loaded names whole (no pmTrimNameSpace)
    let names = hooks.namespace.take();
    let mut ctx = if opts.context == Some(ContextKind::Host) {
        let host = source.clone();
        match Context::open_host(&host) {
            Ok(mut c) => {
                if let Some(names) = names {
                    c.use_namespace_of(names);
                }
                c
            }
            Err(e) => {
                err.write_all(&pcp::host::spec_report(&host))?;
                writeln!(err, "pmval: Cannot connect to PMCD on host \"{host}\": {e}")?;
                return Ok(1);
            }
        }
    } else if is_archive {
        match Context::open_archive(&source) {
            Ok(mut c) => {
                if let Some(names) = names {
                    c.use_namespace_of(names);
                }
                c
            }
            Err(e) => {
                writeln!(err, "pmval: Cannot open archive \"{source}\": {e}")?;
                return Ok(1);
            }
        }
    } else {
        match crate::local::open_reporting(
            env,
            &hooks.agents,
            names.map(Context::into_namespace),
            "pmval: Cannot establish local context",
            err,
        )? {
            Some(c) => c,
            None => return Ok(1),
        }
    };
    ctx.bind_derived(&registry);
    let hostname = ctx.host_name().unwrap_or_default();
    // pmcd is asked for its zone only when it is wanted
    let host_zone = match ctx.host().is_some() && opts.hostzone {
        true => ctx.zone_spec().map_err(|e| e.to_string()),
        false => Ok(String::new()),
    };
    let label = ctx.archive().map(|a| a.label().clone());
    let tz = label.as_ref().map(|l| String::from_utf8_lossy(&l.timezone).into_owned()).unwrap_or_default();
    let info = match label {
        Some(label) => {
            let end = ctx.archive_end().map_err(|e| e.to_string());
            ContextInfo {
                kind: ContextKind::Archive,
                host_name: &hostname,
                zone: Ok(&tz),
                bounds: Some((label.start, end)),
            }
        }
        None if ctx.host().is_some() => ContextInfo {
            kind: ContextKind::Host,
            host_name: &hostname,
            zone: host_zone.as_deref().map_err(Clone::clone),
            bounds: None,
        },
        None => ContextInfo {
            kind: ContextKind::Local,
            host_name: &hostname,
            zone: Err(PmError::PM_ERR_NOTHOST.to_string()),
            bounds: None,
        },
    };
    let now = options::now();
    let settings = match opts.context_options(&info, &options::local_zone(env), now, out, err)? {
        Ok(s) => s,
        Err(()) => {
            opts.flush(err)?;
            return Ok(1);
        }
    };
    let zone = settings.zone;
    let Some(window) = settings.window else { return Ok(1) };
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

    // initapi
    let pmid = match ctx.lookup_names(&[&metric]) {
        Ok((ids, _)) => ids[0],
        Err(e) => {
            writeln!(err, "pmval: pmLookupName({metric}): {e}")?;
            return Ok(1);
        }
    };
    let looked_up = ctx.lookup_desc(pmid);
    err.write_all(&ctx.take_messages())?;
    let desc = match looked_up {
        Ok(d) => d,
        Err(e) => {
            writeln!(err, "pmval: pmLookupDesc: {e}")?;
            return Ok(1);
        }
    };
    if desc.indom.is_null() && spec_ninst > 0 {
        writeln!(err, "pmval: {metric}: singular metrics do not have instances")?;
        return Ok(1);
    }
    // event records are not interpolated: pmval reads them as recorded
    let raw_events = matches!(desc.ty, MetricType::EVENT | MetricType::HIGHRES_EVENT);
    if raw_events && is_archive {
        uninterp = true;
    }
    let mut scale = 1.0;
    if desc.sem == Semantics::COUNTER && desc.units.dim_time() != 0 {
        let st = desc.units.scale_time() as i32;
        // PM_TIME_SEC is 3
        scale = if st > 3 { 60f64.powi(3 - st) } else { 1000f64.powi(3 - st) };
        // pmval keeps the scale in a float
        scale = scale as f32 as f64;
    }
    let mut rep = Report {
        metric: metric.clone(),
        desc,
        iall,
        inames,
        ipairs: Vec::new(),
        iorder: Vec::new(),
        raw_events,
        verbose,
        scale,
        cols,
        fixed,
        raw_counter,
        xflag,
        zone,
        style: None,
        wrap: env.iter().any(|(k, _)| k == b"PCP_COUNTER_WRAP"),
        stamps: is_archive,
        archive: archive_insts,
        line: Vec::new(),
        text: String::new(),
        fetched: FetchResult::default(),
    };
    if let Err(code) = rep.init_insts(&mut ctx, err)? {
        return Ok(code);
    }
    if let (Some(text), Some(_)) = (&filter, ctx.host()) {
        if let Err(code) = rep.store_filter(&mut ctx, pmid, text, err)? {
            return Ok(code);
        }
    }

    let amode = if uninterp { Mode::Forw } else { Mode::Interp };
    if samples < 0 && amode != Mode::Forw {
        if let Some(finish) = finish {
            let n = c_int_of((finish.as_secs_f64() - window.origin.as_secs_f64()) / (interval_ns as f64 / 1e9));
            samples = if n < 0 { 0 } else { n.wrapping_add(1) };
        }
    }
    if opts.timezone.is_none() && !opts.hostzone && !raw_events {
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
    if is_archive {
        if let Err(e) = ctx.set_mode(amode, usec(window.origin), step_ns) {
            writeln!(err, "pmval: pmSetMode: {e}")?;
            return Ok(1);
        }
        // (the interpolation for the next samples is done while this one
        // is reported)
        ctx.set_fetch_ahead(amode == Mode::Interp);
    }
    if rep.cols <= 0 {
        rep.cols = match howide(rep.desc.ty) {
            Some(w) => w,
            None => {
                writeln!(err, "pmval: unknown performance metric value type {}", rep.desc.ty.name())?;
                return Ok(1);
            }
        };
    }
    if (rep.fixed == 0 && rep.fixed > rep.cols) || (rep.fixed > 0 && rep.fixed > rep.cols - 2) {
        writeln!(err, "pmval: -f {} too large for column width {}", rep.fixed, rep.cols)?;
        return Ok(1);
    }

    // printhdr
    if !raw_events {
        writeln!(out, "metric:    {metric}")?;
    }
    if is_archive {
        writeln!(out, "archive:   {source}")?;
    }
    writeln!(out, "host:      {hostname}")?;
    if is_archive {
        writeln!(out, "start:     {}", rep.zone.ctime(window.origin.sec).unwrap_or_default())?;
        if let Some(f) = finish {
            writeln!(out, "end:       {}", rep.zone.ctime(f.sec).unwrap_or_default())?;
        }
    }
    if !raw_events {
        rep.print_units(out)?;
    }
    if samples < 0 {
        writeln!(out, "samples:   all")?;
    } else {
        writeln!(out, "samples:   {samples}")?;
    }
    if samples > 1 && (!is_archive || amode == Mode::Interp) {
        let iv = interval_ns as f64 / 1e9;
        out.write_all(
            pcp_core::cfmt::sprintf_f64_text("interval:  %1.2f sec\n", &[], iv).unwrap_or_default().as_bytes(),
        )?;
    }

    // live, the first sample waits for the window's start
    if !is_archive {
        let wait = window.start.as_secs_f64() - options::now().as_secs_f64();
        if wait > 0.0 {
            out.flush()?;
            std::thread::sleep(std::time::Duration::from_secs_f64(wait));
        }
    }

    // the main loop
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
            match rep.getvals(&mut ctx, pmid, uninterp, finish, out, err)? {
                Got::Values(t, vs) => {
                    have_prev = true;
                    if rep.raw_events {
                        match rep.print_events(&ctx, out, err, t, &vs)? {
                            Ok(()) => continue,
                            Err(code) => return Ok(code),
                        }
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
                Got::Exit(code) => return Ok(code),
                Got::Nothing => no_values = true,
                Got::Suspended => {
                    reporting = false;
                    no_values = true;
                }
            }
        }
        if pause || !is_archive {
            // (PCP's pmval writes each line as it is made, setlinebuf():
            // what is buffered here goes out before waiting, so that a
            // reader of a pipe gets each sample when it comes)
            out.flush()?;
            std::thread::sleep(std::time::Duration::from_nanos(interval_ns.max(0) as u64));
        }
        if !have_prev {
            continue;
        }
        let (t1, vs1) = match rep.getvals(&mut ctx, pmid, uninterp, finish, out, err)? {
            Got::PastEnd => break,
            Got::Exit(code) => return Ok(code),
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
            match rep.print_events(&ctx, out, err, t1, &vs1)? {
                Ok(()) => continue,
                Err(code) => return Ok(code),
            }
        }
        if rep.iall && !rep.has_all_insts(&vs1) {
            if let Err(code) = rep.init_insts(&mut ctx, err)? {
                return Ok(code);
            }
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
    Ok(0)
}

/// A `?` right-aligned in `cols` columns: no value.
fn unknown(line: &mut Vec<u8>, cols: usize) {
    line.resize(line.len() + cols.saturating_sub(1), b' ');
    line.push(b'?');
}

/// The first entry of instance `id` in `list`, sorted by instance (`inst`
/// gives an entry's), looked for from `*at` on, where the search for the
/// next, greater or equal, `id` goes on from. pmval's values (sorted by
/// `getvals`, the first in the order fetched) and its reported instances
/// (sorted when they are set) are walked together this way.
fn seek<'l, T>(list: &'l [T], at: &mut usize, id: i32, inst: impl Fn(&T) -> i32) -> Option<&'l T> {
    while list.get(*at).is_some_and(|e| inst(e) < id) {
        *at += 1;
    }
    list.get(*at).filter(|e| inst(e) == id)
}

/// [`seek`] in a list of values.
fn value_of<'v>(values: &'v [InstValue], at: &mut usize, id: i32) -> Option<&'v InstValue> {
    seek(values, at, id, |v| v.inst)
}

/// What one fetch gave pmval.
enum Got {
    /// Values (sorted by instance).
    Values(Timestamp, ValueSet),
    /// No values (already reported).
    Nothing,
    /// A mark record: logging was suspended (already reported).
    Suspended,
    /// Past the end of the time window.
    PastEnd,
    /// pmval ends with this status.
    Exit(i32),
}

/// printreal's conversion for `v` (not zero and not negative where that
/// prints '!'), from "%*.0f.0   " to "%*.0f.    ", its width given as a
/// `*` argument (negative: left-justified, as in C), and the text after it.
// a NaN fails every comparison and falls to the last format, as in C: a
// range test would change that
#[allow(clippy::manual_range_contains)]
fn printreal_spec(v: f64, minwidth: i32) -> (FloatSpec, &'static str) {
    let (conv, precision, w, tail) = if v == 0.0 {
        (b'f', 0, minwidth - 5, ".0   ")
    } else if v < 0.1 || v > 9999.0 {
        (b'E', 3, minwidth, "")
    } else if v <= 0.9999 {
        (b'f', 4, minwidth, "")
    } else if v <= 9.999 {
        (b'f', 3, minwidth - 1, " ")
    } else if v <= 99.99 {
        (b'f', 2, minwidth - 2, "  ")
    } else if v <= 999.9 {
        (b'f', 1, minwidth - 3, "   ")
    } else {
        (b'f', 0, minwidth - 5, ".    ")
    };
    let spec = FloatSpec {
        conv,
        left: w < 0,
        plus: false,
        space: false,
        alt: false,
        zero: false,
        width: w.unsigned_abs() as usize,
        precision: Some(precision),
    };
    (spec, tail)
}

/// printreal's conversion of `v` appended to `text`, but for the spaces
/// a right-justified number has before it: how wide the text is to be
/// with them. (Padding in place would move the digits; the caller puts
/// the spaces first, [`pad_left`].)
fn printreal_unpadded(text: &mut String, v: f64, minwidth: i32) -> usize {
    let (mut spec, tail) = printreal_spec(v, minwidth);
    let width = if spec.left { 0 } else { std::mem::take(&mut spec.width) };
    push_f64(text, &spec, v);
    text.push_str(tail);
    // (the text after the number counts too: the padding comes before it)
    width + tail.len()
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

/// pmval's `getinstance`: instance names separated by commas or white
/// space, each optionally quoted with `"` or `'`.
fn split_instances(s: &[u8]) -> Vec<Vec<u8>> {
    let sep = |b: u8| matches!(b, b',' | b' ' | b'\t' | b'\n');
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        while i < s.len() && sep(s[i]) {
            i += 1;
        }
        if i >= s.len() {
            break;
        }
        if s[i] == b'"' || s[i] == b'\'' {
            let q = s[i];
            let start = i + 1;
            let mut j = start;
            while j < s.len() && s[j] != q {
                j += 1;
            }
            out.push(s[start..j].to_vec());
            // skip the closing quote and one following character
            i = (j + 2).min(s.len().max(j + 1));
        } else {
            let start = i;
            while i < s.len() && !sep(s[i]) {
                i += 1;
            }
            out.push(s[start..i].to_vec());
            i += 1;
        }
    }
    out
}

impl Report {
    /// printhdr's semantics and units lines.
    fn print_units(&self, out: &mut dyn Write) -> std::io::Result<()> {
        write!(out, "semantics: ")?;
        match self.desc.sem {
            Semantics::COUNTER => {
                write!(out, "cumulative counter")?;
                if !self.raw_counter {
                    write!(out, " (converting to rate)")?;
                }
            }
            Semantics::INSTANT => write!(out, "instantaneous value")?,
            Semantics::DISCRETE => write!(out, "discrete instantaneous value")?,
            _ => write!(out, "unknown")?,
        }
        writeln!(out)?;
        write!(out, "units:     {}", self.desc.units.describe())?;
        if !self.raw_counter && self.desc.sem == Semantics::COUNTER {
            write!(out, " (converting to ")?;
            let u = self.desc.units;
            let st = if u.dim_time() == 0 { 3 } else { u.scale_time() };
            let per_time = pcp_core::Units::new(
                u.dim_space(),
                u.dim_time() - 1,
                u.dim_count(),
                u.scale_space(),
                st,
                u.scale_count(),
            );
            match per_time {
                Ok(p) if p.dim_space() == 0 && p.dim_time() == 0 && p.dim_count() == 0 => {
                    write!(out, "time utilization)")?
                }
                Ok(p) => write!(out, "{})", p.describe())?,
                Err(_) => write!(out, "none)")?,
            }
        }
        writeln!(out)?;
        Ok(())
    }

    /// pmval's `initinsts`: the instances to report, sorted by identifier.
    fn init_insts(&mut self, ctx: &mut Context, err: &mut dyn Write) -> std::io::Result<Result<(), i32>> {
        if self.desc.indom.is_null() {
            self.ipairs.clear();
            self.iorder.clear();
            return Ok(Ok(()));
        }
        let indom: InDom = self.desc.indom;
        let mut pairs = Vec::new();
        if !self.iall {
            let mut ids = Vec::new();
            for n in &self.inames {
                let found = if self.archive { ctx.lookup_indom_archive(indom, n) } else { ctx.lookup_indom(indom, n) };
                match found {
                    Ok(id) => {
                        ids.push(id);
                        pairs.push(InstPair { id, name: n.clone() });
                    }
                    Err(_) => {
                        writeln!(err, "pmval: instance {} not available", String::from_utf8_lossy(n))?;
                        return Ok(Err(1));
                    }
                }
            }
            if let Err(e) = ctx.add_profile(indom, &ids) {
                writeln!(err, "pmval: pmAddProfile: {e}")?;
                return Ok(Err(1));
            }
        } else {
            let all = if self.archive { ctx.get_indom_archive(indom) } else { ctx.get_indom(indom) };
            match all {
                Ok((ids, names)) => {
                    pairs = ids.into_iter().zip(names).map(|(id, name)| InstPair { id, name }).collect();
                }
                Err(e) => {
                    writeln!(err, "pmval: pmGetInDom({indom}): {e}")?;
                    return Ok(Err(1));
                }
            }
        }
        self.iorder.clone_from(&pairs);
        // (sorted: values are looked up in instance order)
        pairs.sort_by_key(|p| p.id);
        self.ipairs = pairs;
        Ok(Ok(()))
    }

    /// Whether instance `id` is one reported ([`seek`] from `*at`).
    fn known(&self, at: &mut usize, id: i32) -> bool {
        seek(&self.ipairs, at, id, |p| p.id).is_some()
    }

    /// pmval's `initfilters` (`-x`, host contexts only): store `text` to
    /// the metric in pmcd before the first fetch, for each instance
    /// pmval reports (the one null instance of a singular metric), as a
    /// string for an event metric (a filter its PMDA may take), else as
    /// the metric's own type, read as pmstore reads values.
    fn store_filter(
        &self,
        ctx: &mut Context,
        pmid: PmId,
        text: &[u8],
        err: &mut dyn Write,
    ) -> std::io::Result<Result<(), i32>> {
        let ty = if self.raw_events { MetricType::STRING } else { self.desc.ty };
        // pmval's messages quote the filter as given, bytes and all
        let say = |err: &mut dyn Write, head: &str, tail: &str| -> std::io::Result<()> {
            err.write_all(head.as_bytes())?;
            err.write_all(text)?;
            err.write_all(tail.as_bytes())
        };
        let mut insts: Vec<i32> = self.iorder.iter().map(|p| p.id).collect();
        if insts.is_empty() {
            insts.push(PM_IN_NULL);
        }
        let mut values = Vec::with_capacity(insts.len());
        for inst in insts {
            match crate::pmstore::stuff_value(text, ty, inst) {
                Ok(v) => values.push(v),
                Err(crate::pmstore::ValueError::Type) => {
                    let tail = format!("\" incompatible with metric type (PM_TYPE_{})\n", ty.name());
                    say(err, "pmval: filter \"", &tail)?;
                    return Ok(Err(1));
                }
                Err(crate::pmstore::ValueError::Range) => {
                    let tail = format!("\" is out of range for metric data type (PM_TYPE_{})\n", ty.name());
                    say(err, "pmval: filter value \"", &tail)?;
                    return Ok(Err(1));
                }
            }
        }
        let request =
            FetchResult { timestamp: Timestamp::default(), sets: vec![ValueSet { pmid, values: Ok(values) }] };
        if let Err(e) = ctx.store(&request) {
            say(err, "pmval: store value \"", &format!("\" failed: {e}\n"))?;
            return Ok(Err(1));
        }
        Ok(Ok(()))
    }

    /// pmval's `chkinsts`.
    fn has_all_insts(&self, vs: &ValueSet) -> bool {
        if self.desc.indom.is_null() {
            return true;
        }
        let Ok(values) = &vs.values else { return true };
        let mut at = 0;
        values.iter().all(|v| self.known(&mut at, v.inst))
    }

    /// pmval's `getvals`.
    fn getvals(
        &mut self,
        ctx: &mut Context,
        pmid: PmId,
        uninterp: bool,
        finish: Option<Timestamp>,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> std::io::Result<Got> {
        let fetched: Result<(), PmError> = if uninterp {
            loop {
                match ctx.fetch_archive() {
                    Err(e) => break Err(e),
                    Ok(r) if r.sets.is_empty() => {
                        self.timestamp(out, r.timestamp)?;
                        writeln!(out, "  Archive logging suspended")?;
                        return Ok(Got::Suspended);
                    }
                    Ok(r) => {
                        if let Some(i) = r.sets.iter().position(|s| s.pmid == pmid) {
                            let mut r = r;
                            let set = r.sets.swap_remove(i);
                            self.fetched = FetchResult { timestamp: r.timestamp, sets: vec![set] };
                            break Ok(());
                        }
                    }
                }
            }
        } else {
            ctx.fetch_into(&[pmid], &mut self.fetched)
        };
        match fetched {
            Ok(()) => {}
            Err(PmError::PM_ERR_EOL) => return Ok(Got::Exit(0)),
            Err(e) => {
                let what = if uninterp { "pmFetchArchive" } else { "pmFetch" };
                writeln!(err, "\npmval: {what}: {e}")?;
                return Ok(Got::Exit(1));
            }
        }
        let timestamp = self.fetched.timestamp;
        if finish.is_some_and(|f| timestamp.as_secs_f64() > f.as_secs_f64()) {
            return Ok(Got::PastEnd);
        }
        // (the set is taken out, the list that held it kept)
        let Some(mut vs) = self.fetched.sets.drain(..).next() else { return Ok(Got::Nothing) };
        match &mut vs.values {
            Ok(v) if v.is_empty() => {
                if self.stamps {
                    self.timestamp(out, timestamp)?;
                    out.write_all(b"  ")?;
                }
                if !self.raw_events {
                    writeln!(out, "No values available")?;
                } else if self.verbose {
                    writeln!(out, "{}: No values available", self.metric)?;
                }
                Ok(Got::Nothing)
            }
            Err(PmError::PM_ERR_NOTCONN) if self.raw_events => Ok(Got::Exit(0)),
            Err(e) => {
                let what = if uninterp { "pmFetchArchive" } else { "pmFetch" };
                writeln!(err, "\npmval: {what}: {e}")?;
                Ok(Got::Nothing)
            }
            Ok(v) => {
                v.sort_by_key(|iv| iv.inst);
                Ok(Got::Values(timestamp, vs))
            }
        }
    }

    /// Hand back a value set done with: the next fetch fills its list.
    fn recycle(&mut self, vs: ValueSet) {
        if self.fetched.sets.is_empty() {
            self.fetched.sets.push(vs);
        }
    }

    /// "No values available", after the time in an archive.
    fn no_values(&self, out: &mut dyn Write, t: Timestamp) -> std::io::Result<()> {
        if self.stamps {
            self.timestamp(out, t)?;
            out.write_all(b"  ")?;
        }
        writeln!(out, "No values available")
    }

    /// pmval's `mytimestamp`, for archives (live values go unstamped).
    fn timestamp(&self, out: &mut dyn Write, t: Timestamp) -> std::io::Result<()> {
        if !self.stamps {
            return Ok(());
        }
        if self.xflag == 0 {
            let Some((hour, min, sec)) = pcp_core::LocalTime::hms(&self.zone, t.sec) else { return Ok(()) };
            let ms = i64::from(t.nsec / 1_000_000);
            // (the common case, each sample's, without the formatting machinery)
            let digit = |v: i64| b'0' + v.rem_euclid(10) as u8;
            let two = |v: u32| [digit(i64::from(v) / 10), digit(v.into())];
            if sec < 60 && (0..1000).contains(&ms) {
                let ([h1, h2], [m1, m2], [s1, s2]) = (two(hour), two(min), two(sec));
                return out.write_all(&[
                    h1,
                    h2,
                    b':',
                    m1,
                    m2,
                    b':',
                    s1,
                    s2,
                    b'.',
                    digit(ms / 100),
                    digit(ms / 10),
                    digit(ms),
                ]);
            }
            return write!(out, "{hour:02}:{min:02}:{sec:02}.{ms:03}");
        }
        let Ok(tm) = self.zone.local_clock(t.sec) else { return Ok(()) };
        let ctime = self.zone.ctime(t.sec).unwrap_or_default();
        let ddmm = ctime.get(..10).unwrap_or("");
        let yr = ctime.get(20..24).unwrap_or("");
        if self.xflag == 1 {
            write!(out, "{ddmm} {:02}:{:02}:{:02}.{:06} {yr:>4}", tm.hour, tm.min, tm.sec, t.nsec / 1000)
        } else {
            write!(out, "{ddmm} {:02}:{:02}:{:02}.{:09} {yr:>4}", tm.hour, tm.min, tm.sec, t.nsec)
        }
    }

    /// pmval's `printlabels`.
    fn print_labels(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        let cols = self.cols.max(0) as usize;
        let style = match self.style {
            Some(s) => s,
            None => {
                let mut s = 0;
                for p in &self.ipairs {
                    if p.name.len() > cols {
                        s = 2;
                        break;
                    }
                    if p.name.len() + 3 > cols {
                        s = 1;
                    }
                }
                if s == 2 {
                    for (i, p) in self.ipairs.iter().enumerate() {
                        write!(out, "full label for instance[{i}]: ")?;
                        out.write_all(&p.name)?;
                        writeln!(out)?;
                    }
                }
                self.style = Some(s);
                s
            }
        };
        writeln!(out)?;
        for (i, p) in self.ipairs.iter().enumerate() {
            if i == 0 && self.stamps {
                // room for the time column
                let lead = match self.xflag {
                    0 => 12,
                    1 => 31,
                    _ => 34,
                };
                write!(out, "{:lead$}", "")?;
            }
            let shift = !(self.raw_counter || self.desc.sem != Semantics::COUNTER || style != 0) && self.fixed == -1;
            if shift {
                let w = cols.saturating_sub(3);
                let name = &p.name[..p.name.len().min(w)];
                write!(out, "{:w$}", "", w = w - name.len())?;
                out.write_all(name)?;
                write!(out, "    ")?;
            } else {
                let name = &p.name[..p.name.len().min(cols)];
                write!(out, "{:w$}", "", w = cols - name.len())?;
                out.write_all(name)?;
                write!(out, " ")?;
            }
        }
        if !self.ipairs.is_empty() {
            writeln!(out)?;
        }
        Ok(())
    }

    /// pmval's `printreal`, made in `text` but for the spaces a
    /// right-justified number has before it: how wide it is to be with
    /// them.
    fn real(&self, text: &mut String, v: f64, sem: Semantics, minwidth: i32) -> usize {
        if v < 0.0 && sem == Semantics::COUNTER {
            text.push('!');
            return minwidth.max(0) as usize;
        }
        if self.fixed != -1 {
            push_f64_text(text, "%*.*f", &[minwidth, self.fixed], v);
            return 0;
        }
        printreal_unpadded(text, v, minwidth)
    }

    /// [`Report::real`] appended to `line`, made in `text`.
    fn real_line(&self, line: &mut Vec<u8>, text: &mut String, v: f64, sem: Semantics, minwidth: i32) {
        text.clear();
        let width = self.real(text, v, sem, minwidth);
        pad_left(line, width, text.as_bytes());
    }

    /// One value as pmval prints it, appended to `line`: reals through
    /// `printreal` (made in `text`), the rest through `pmPrintValue`.
    fn value(&self, line: &mut Vec<u8>, text: &mut String, v: &InstValue, minwidth: i32) {
        if matches!(self.desc.ty, MetricType::FLOAT | MetricType::DOUBLE) {
            let d = extract_value(&v.value, self.desc.ty, MetricType::DOUBLE).ok().and_then(|a| a.as_f64());
            return self.real_line(line, text, d.unwrap_or(0.0), self.desc.sem, minwidth);
        }
        let _ = pcp_core::format::print_value(line, &v.value, self.desc.ty, minwidth);
    }

    /// Write the line `make` makes (in the room kept for a line, with
    /// the room for a value's text) at once.
    fn write_line(
        &mut self,
        out: &mut dyn Write,
        make: impl FnOnce(&Report, &mut Vec<u8>, &mut String) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let (mut line, mut text) = (std::mem::take(&mut self.line), std::mem::take(&mut self.text));
        line.clear();
        let done = make(self, &mut line, &mut text).and_then(|()| out.write_all(&line));
        (self.line, self.text) = (line, text);
        done
    }

    /// pmval's `printvals`.
    fn print_vals(&mut self, out: &mut dyn Write, vs: &ValueSet) -> std::io::Result<()> {
        self.write_line(out, |rep, line, text| rep.vals_line(line, text, vs))
    }

    /// The line [`Report::print_vals`] writes.
    fn vals_line(&self, line: &mut Vec<u8>, text: &mut String, vs: &ValueSet) -> std::io::Result<()> {
        let values: &[InstValue] = vs.values.as_deref().unwrap_or(&[]);
        let cols = self.cols.max(0) as usize;
        if self.desc.indom.is_null() {
            if values.len() == 1 {
                self.value(line, text, &values[0], self.cols);
            } else {
                unknown(line, cols);
            }
            line.push(b'\n');
            return Ok(());
        }
        // (the reported instances and the values both in instance order)
        let mut at = 0;
        for p in &self.ipairs {
            match value_of(values, &mut at, p.id) {
                Some(v) => self.value(line, text, v, self.cols),
                None => unknown(line, cols),
            }
            line.push(b' ');
        }
        line.push(b'\n');
        let mut at = 0;
        for v in values {
            if self.iall && !self.known(&mut at, v.inst) {
                line.extend_from_slice(b"Warning: value=");
                self.value(line, text, v, 1);
                writeln!(line, ", but instance={} is unknown", v.inst)?;
            }
        }
        Ok(())
    }

    /// pmval's `printrate`, appended to `line` (made in `text`).
    fn rate(&self, line: &mut Vec<u8>, text: &mut String, a: &InstValue, b: &InstValue, delta: f64, minwidth: i32) {
        let get = |v: &InstValue| {
            extract_value(&v.value, self.desc.ty, MetricType::DOUBLE).ok().and_then(|x| x.as_f64()).unwrap_or(0.0)
        };
        let mut v = get(a) - get(b);
        if v < 0.0 && self.wrap {
            match self.desc.ty {
                MetricType::I32 | MetricType::U32 => v += u32::MAX as f64 + 1.0,
                MetricType::I64 | MetricType::U64 => v += u64::MAX as f64 + 1.0,
                _ => {}
            }
        }
        self.real_line(line, text, v / delta, Semantics::COUNTER, minwidth)
    }

    /// pmval's `printrates`.
    fn print_rates(
        &mut self,
        out: &mut dyn Write,
        vs1: &ValueSet,
        t1: Timestamp,
        vs2: &ValueSet,
        t2: Timestamp,
    ) -> std::io::Result<()> {
        self.write_line(out, |rep, line, text| rep.rates_line(line, text, (vs1, t1), (vs2, t2)))
    }

    /// The line [`Report::print_rates`] writes.
    fn rates_line(
        &self,
        line: &mut Vec<u8>,
        text: &mut String,
        (vs1, t1): (&ValueSet, Timestamp),
        (vs2, t2): (&ValueSet, Timestamp),
    ) -> std::io::Result<()> {
        let v1: &[InstValue] = vs1.values.as_deref().unwrap_or(&[]);
        let v2: &[InstValue] = vs2.values.as_deref().unwrap_or(&[]);
        let cols = self.cols.max(0) as usize;
        let delta = self.scale * (t1.as_secs_f64() - t2.as_secs_f64());
        if self.desc.indom.is_null() {
            if v1.len() == 1 && v2.len() == 1 {
                self.rate(line, text, &v1[0], &v2[0], delta, self.cols);
            } else {
                unknown(line, cols);
            }
            line.push(b'\n');
            return Ok(());
        }
        let (mut at1, mut at2) = (0, 0);
        for p in &self.ipairs {
            let cur = value_of(v1, &mut at1, p.id);
            let old = cur.and_then(|c| value_of(v2, &mut at2, c.inst));
            match (cur, old) {
                (Some(c), Some(o)) => self.rate(line, text, c, o, delta, self.cols),
                _ => unknown(line, cols),
            }
            line.push(b' ');
        }
        line.push(b'\n');
        let mut at = 0;
        for (j, v) in v1.iter().enumerate() {
            let known = self.known(&mut at, v.inst);
            if self.iall && !known && v2.get(j).is_some_and(|o| o.inst == v.inst) {
                line.extend_from_slice(b"Warning: value=");
                self.rate(line, text, v, &v2[j], delta, 1);
                writeln!(line, ", but instance={} is unknown", v.inst)?;
            }
        }
        Ok(())
    }
}

impl Report {
    /// The time, then pmval's `printevents`: each value's event records,
    /// under the metric's name (and instance's, for an instance pmval
    /// knows; others are passed over). `Err` is the exit status.
    fn print_events(
        &self,
        ctx: &Context,
        out: &mut dyn Write,
        err: &mut dyn Write,
        t: Timestamp,
        vs: &ValueSet,
    ) -> std::io::Result<Result<(), i32>> {
        if self.stamps {
            self.timestamp(out, t)?;
            out.write_all(b"  ")?;
        }
        let values: &[InstValue] = vs.values.as_deref().unwrap_or(&[]);
        let highres = self.desc.ty != MetricType::EVENT;
        for v in values {
            if v.inst == PM_IN_NULL {
                write!(out, "{}:", self.metric)?;
            } else {
                let name = if !self.iorder.is_empty() {
                    self.iorder.iter().find(|p| p.id == v.inst).map(|p| p.name.clone())
                } else {
                    let names = if self.archive {
                        ctx.get_indom_archive(self.desc.indom).and_then(|(ids, names)| {
                            ids.iter()
                                .position(|&i| i == v.inst)
                                .map(|k| names[k].clone())
                                .ok_or(PmError::PM_ERR_INST_LOG)
                        })
                    } else {
                        ctx.name_indom(self.desc.indom, v.inst)
                    };
                    match names {
                        Ok(n) => Some(n),
                        Err(e) => {
                            writeln!(err, "pmval: pmNameInDom: {}[{}]: {e}", self.metric, v.inst as u32)?;
                            return Ok(Err(1));
                        }
                    }
                };
                let Some(name) = name else { continue };
                write!(out, "{}[", self.metric)?;
                out.write_all(&name)?;
                out.write_all(b"]:")?;
            }
            self.event_dump(ctx, out, err, vs, v, evrec::VAL_SPTR, highres)?;
        }
        Ok(Ok(()))
    }

    /// pmval's `myeventdump`: the records of one event value.
    #[allow(clippy::too_many_arguments)]
    fn event_dump(
        &self,
        ctx: &Context,
        out: &mut dyn Write,
        err: &mut dyn Write,
        vs: &ValueSet,
        iv: &InstValue,
        block_fmt: i32,
        highres: bool,
    ) -> std::io::Result<()> {
        let valfmt = if matches!(iv.value, Value::Block(_)) { block_fmt } else { 0 };
        let src = evrec::Source { pmid: vs.pmid, numval: vs.numval(), valfmt };
        let records = match evrec::unpack(&src, iv, highres, &|p| ctx.names_of(p).ok()) {
            Ok(r) => r,
            Err((e, dump)) => {
                err.write_all(&dump)?;
                return writeln!(out, " pmUnpackEventRecords: {e}");
            }
        };
        writeln!(out, " {} event records", records.len())?;
        for (r, rec) in records.iter().enumerate() {
            let mut text = b"  ".to_vec();
            evrec::stamp(&mut text, &self.zone, rec.sec, rec.frac, highres);
            out.write_all(&text)?;
            write!(out, " --- event record [{r}]")?;
            if rec.numpmid == 0 {
                out.write_all(b" ---\n    ==> No parameters\n")?;
                continue;
            }
            if rec.numpmid < 0 {
                writeln!(out, " ---\n\tError: illegal number of parameters ({})", rec.numpmid)?;
                continue;
            }
            let mut flags = 0u32;
            for (p, set) in rec.sets.iter().enumerate() {
                self.event_parameter(ctx, out, err, set, p, &mut flags)?;
            }
        }
        Ok(())
    }

    /// pmval's `myvaluesetdump`: one parameter of an event record.
    fn event_parameter(
        &self,
        ctx: &Context,
        out: &mut dyn Write,
        err: &mut dyn Write,
        set: &ValueSet,
        index: usize,
        flags: &mut u32,
    ) -> std::io::Result<()> {
        use pcp_core::event::{flags_str, EVENT_FLAGS_PMID, EVENT_MISSED_PMID, FLAG_MISSED};
        let name = match ctx.name_of(set.pmid) {
            Ok(n) => n,
            Err(e) => return writeln!(out, "\t{}: pmNameID: {e}", set.pmid),
        };
        let anon = set.pmid == EVENT_FLAGS_PMID || set.pmid == EVENT_MISSED_PMID;
        let desc = match ctx.lookup_desc(set.pmid) {
            Ok(d) => Some(d),
            Err(_) if anon => None,
            Err(e) => return writeln!(out, "\t{name}: pmLookupDesc: {e}"),
        };
        if index == 0 {
            if set.pmid == EVENT_FLAGS_PMID {
                *flags = evrec::lval(set) as u32;
                return writeln!(out, " flags 0x{:x} ({}) ---", *flags, flags_str(*flags));
            }
            out.write_all(b" ---\n")?;
        }
        if *flags & FLAG_MISSED != 0 && index == 1 && set.pmid == EVENT_MISSED_PMID {
            return writeln!(out, "    ==> {} missed event records", evrec::lval(set));
        }
        match desc {
            Some(d) => self.param_dump(ctx, out, err, &name, &d, set),
            // pmval looks no descriptor up for the anonymous metrics
            None => Ok(()),
        }
    }

    /// pmval's `mydump` of an event parameter's values.
    fn param_dump(
        &self,
        ctx: &Context,
        out: &mut dyn Write,
        err: &mut dyn Write,
        name: &str,
        d: &Desc,
        vs: &ValueSet,
    ) -> std::io::Result<()> {
        let values = match &vs.values {
            Ok(v) if v.is_empty() => {
                if self.verbose {
                    writeln!(out, "{name}: No value(s) available!")?;
                }
                return Ok(());
            }
            Err(e) => return writeln!(out, "{name}: Error: {e}"),
            Ok(v) => v,
        };
        write!(out, "    {name}")?;
        for v in values {
            if !d.indom.is_null() {
                if values.len() > 1 {
                    out.write_all(b"\n        ")?;
                }
                let found = ctx
                    .get_indom_archive(d.indom)
                    .ok()
                    .and_then(|(ids, names)| ids.iter().position(|&i| i == v.inst).map(|k| names[k].clone()));
                match found {
                    Some(n) => {
                        out.write_all(b"[\"")?;
                        out.write_all(&n)?;
                        out.write_all(b"\"]")?;
                    }
                    None => write!(out, "[{}]", v.inst)?,
                }
            }
            out.write_all(b" ")?;
            match d.ty {
                MetricType::AGGREGATE | MetricType::AGGREGATE_STATIC => {
                    out.write_all(b"[")?;
                    if let Value::Block(b) = &v.value {
                        for byte in &b.data {
                            write!(out, "{byte:02x}")?;
                        }
                    }
                    out.write_all(b"]\n")?;
                }
                // an event parameter of an event type: libpcp refuses to unpack it
                MetricType::EVENT | MetricType::HIGHRES_EVENT => {
                    self.event_dump(ctx, out, err, vs, v, 1, d.ty != MetricType::EVENT)?
                }
                _ => {
                    let mut text = Vec::new();
                    let _ = pcp_core::format::print_value_in(&mut text, &v.value, d.ty, 1, &self.zone);
                    out.write_all(&text)?;
                    out.write_all(b"\n")?;
                }
            }
        }
        Ok(())
    }
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

    use super::*;

    /// The conversions made directly are what pmval's format strings make
    /// through the general formatter.
    #[test]
    #[allow(clippy::manual_range_contains)]
    fn printreal_conversions_are_its_formats() {
        let formats = |v: f64, w: i32| {
            if v == 0.0 {
                ("%*.0f.0   ", w - 5)
            } else if v < 0.1 || v > 9999.0 {
                ("%*.3E", w)
            } else if v <= 0.9999 {
                ("%*.4f", w)
            } else if v <= 9.999 {
                ("%*.3f ", w - 1)
            } else if v <= 99.99 {
                ("%*.2f  ", w - 2)
            } else if v <= 999.9 {
                ("%*.1f   ", w - 3)
            } else {
                ("%*.0f.    ", w - 5)
            }
        };
        let mut values =
            vec![0.0, -0.0, f64::INFINITY, -f64::INFINITY, f64::NAN, 0.1, 0.9999, 9.999, 99.99, 999.9, 9999.0];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..4000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let m = (x >> 11) as f64 / (1u64 << 53) as f64;
            let e = (x % 17) as i32 - 6;
            values.push(if x & 1 == 0 { m * 10f64.powi(e) } else { -m * 10f64.powi(e) });
        }
        for &v in &values {
            for w in -8..=24 {
                let (fmt, star) = formats(v, w);
                let mut want = String::new();
                assert!(push_f64_text(&mut want, fmt, &[star], v));
                let (spec, tail) = printreal_spec(v, w);
                let mut got = String::new();
                push_f64(&mut got, &spec, v);
                got.push_str(tail);
                assert_eq!(got, want, "{v} {w}");
                // made unpadded, the spaces put first
                let mut text = String::new();
                let width = printreal_unpadded(&mut text, v, w);
                let mut line = b"x".to_vec();
                pad_left(&mut line, width, text.as_bytes());
                assert_eq!(line, [b"x", want.as_bytes()].concat(), "{v} {w}");
            }
        }
    }

    #[test]
    fn instance_lists_split_like_pmval() {
        assert_eq!(split_instances(b"a,b c"), [b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]);
        assert_eq!(split_instances(b"\"x y\",z"), [b"x y".to_vec(), b"z".to_vec()]);
        assert_eq!(split_instances(b""), Vec::<Vec<u8>>::new());
    }
}
