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

mod events;
mod report;
mod sampling;

use crate::options::{self, tools, ContextHooks, ContextInfo, ContextKind, DefaultHooks, Options, Parser};
use pcp::spec::{MetricSpec, SpecSource};
use pcp::timeparse::Window;
use pcp::timezone::Zone;
use pcp::Context;
use pcp_core::PmError;
use pcp_pmns::cpp::{Files, OsFiles};
use report::Report;
use sampling::{print_header, sample, set_up_sampling, wait_for_start};
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

/// Why pmval stops before it has sampled all it was to: an exit status
/// (its messages written), or a write that failed.
enum Stop {
    /// pmval exits with this status.
    Exit(i32),
    /// Writing to standard output or error failed.
    Io(std::io::Error),
}

impl From<std::io::Error> for Stop {
    fn from(e: std::io::Error) -> Stop {
        Stop::Io(e)
    }
}

/// pmval's exit status (0 once it has sampled all it was to), or the
/// write that failed.
fn main(
    args: &[OsString],
    env: &[(Vec<u8>, Vec<u8>)],
    out: &mut dyn Write,
    err: &mut dyn Write,
    files: &mut dyn Files,
) -> std::io::Result<i32> {
    // pmval's setlinebuf(stdout): the lines before an error come before it
    let out = &mut crate::LineBuffered(out);
    match pmval(args, env, out, err, files) {
        Ok(()) => Ok(0),
        Err(Stop::Exit(status)) => Ok(status),
        Err(Stop::Io(e)) => Err(e),
    }
}

/// pmval's steps, in order: read the command line, settle the source,
/// open the context, find the zone and time window, set up the report
/// and the sampling, print the header, then sample.
fn pmval(
    args: &[OsString],
    env: &[(Vec<u8>, Vec<u8>)],
    out: &mut dyn Write,
    err: &mut dyn Write,
    files: &mut dyn Files,
) -> Result<(), Stop> {
    let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_encoded_bytes().to_vec()).collect();
    let mut hooks =
        ContextHooks::new(files, env, &options::progname(args.first().map(Vec::as_slice).unwrap_or_default()));
    let (opts, own) = read_options(&args, env, &mut hooks, err)?;
    let mut cmd = choose_source(opts, own, &mut hooks, err)?;
    let mut src = open_context(&cmd, env, &mut hooks, err)?;
    let done = report(&mut cmd, &mut src, env, out, err);
    // exit: libpcp's handler for the local agents
    src.ctx.trace_exit();
    err.write_all(&src.ctx.take_messages())?;
    done
}

/// pmval's steps once the context is open.
fn report(
    cmd: &mut Command,
    src: &mut Source,
    env: &[(Vec<u8>, Vec<u8>)],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), Stop> {
    let (zone, window) = zone_and_window(cmd, src, env, out, err)?;
    let (pmid, mut rep) = Report::set_up(cmd, &mut src.ctx, zone, env, err)?;
    // (what setting up the report traced)
    err.write_all(&src.ctx.take_messages())?;
    let sampling = set_up_sampling(cmd, src, &window, pmid, &mut rep, out, err)?;
    print_header(cmd, src, &window, &sampling, &rep, out)?;
    if !src.is_archive {
        wait_for_start(&window, out)?;
    }
    let sampled = sample(&mut rep, &mut src.ctx, sampling, out, err);
    if sampled.is_ok() {
        // done: pmDestroyContext (what it traces is written out)
        src.ctx.trace_destroy();
    }
    sampled
}

/// pmval's own options (pmGetOptions handles the standard ones).
struct OwnOptions {
    /// `-d`: pause between the samples of an archive.
    pause: bool,
    /// `-f`: digits after the point (-1: pmval's own formats).
    fixed: i32,
    /// `-i`: the instances named.
    inames: Vec<Vec<u8>>,
    /// No `-i`: every instance.
    iall: bool,
    /// `-r`: counters as they are, not rates.
    raw_counter: bool,
    /// `-U`: values as recorded, not interpolated.
    uninterp: bool,
    /// `-v`.
    verbose: bool,
    /// `-w`: the column width (0: the type's).
    cols: i32,
    /// `-x`: the filter to store before fetching.
    filter: Option<Vec<u8>>,
    /// How many `-X`.
    xflag: u32,
}

/// The command line, read: the standard settings, pmval's own, and the
/// metric with the source its values come from.
struct Command {
    opts: Options,
    own: OwnOptions,
    /// The metric's name.
    metric: String,
    /// How many instances the metric spec named.
    spec_ninst: usize,
    /// The source the metric spec named, opened in preference to the one
    /// `-h` or `-a` names.
    spec_source: Option<Vec<u8>>,
    /// pmval's `archive`: instances are looked up as in an archive (a
    /// source named with `-a`, even when `-L` makes the context local).
    archive_insts: bool,
}

/// The options, standard and pmval's own, and the count of operands;
/// after `-V` or a usage error, the usage message and the status.
fn read_options(
    args: &[Vec<u8>],
    env: &[(Vec<u8>, Vec<u8>)],
    hooks: &mut ContextHooks<'_>,
    err: &mut dyn Write,
) -> Result<(Options, OwnOptions), Stop> {
    let mut p = Parser::new(args, tools::PMVAL, env, hooks, err);
    let mut own = OwnOptions {
        pause: false,
        fixed: -1,
        inames: Vec::new(),
        iall: true,
        raw_counter: false,
        uninterp: false,
        verbose: false,
        cols: 0,
        filter: None,
        xflag: 0,
    };
    while let Some(o) = p.next_tool_opt() {
        let arg = o.arg.clone().unwrap_or_default();
        match o.opt {
            b'd' => own.pause = true,
            b'f' => {
                let (n, whole) = options::strtol_int(&arg);
                own.fixed = n;
                if !whole || n < 0 {
                    p.opts.printf(b"pmval: -f requires +ve numeric argument\n");
                    p.opts.errors += 1;
                }
            }
            b'i' => {
                own.iall = false;
                own.inames.extend(split_instances(&arg));
            }
            b'r' => own.raw_counter = true,
            b'U' => {
                p.opts.add_archive(&arg);
                own.uninterp = true;
            }
            b'v' => own.verbose = true,
            b'w' => {
                let (n, whole) = options::strtol_int(&arg);
                own.cols = n;
                if !whole || n < 1 {
                    p.opts.printf(b"pmval: -w requires +ve numeric argument\n");
                    p.opts.errors += 1;
                }
            }
            // a filter stored to pmcd (an archive or a local context has
            // nothing to do with it)
            b'x' => own.filter = Some(arg),
            b'X' => own.xflag += 1,
            _ => p.opts.errors += 1,
        }
    }
    let mut opts = p.finish();
    err.write_all(&opts.flushed)?;
    if opts.exit {
        opts.usage_message(err)?;
        return Err(Stop::Exit(0));
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
        return Err(Stop::Exit(1));
    }
    Ok((opts, own))
}

/// The metric spec (`pmParseMetricSpec`: it may name the source itself)
/// and the source: the spec's, the options', or by default pmcd here
/// (the local context when none answers); then the end of the options
/// (`__pmEndOptions`) and the checks that need the source's kind.
fn choose_source(
    mut opts: Options,
    mut own: OwnOptions,
    hooks: &mut ContextHooks<'_>,
    err: &mut dyn Write,
) -> Result<Command, Stop> {
    let default_archive = opts.hosts.is_empty() && (!opts.archives.is_empty() || opts.origin_arg.is_some());
    let spec = match MetricSpec::parse(&opts.operands[0]) {
        Ok(spec) => spec,
        Err(e) => {
            opts.printf(e.as_bytes());
            opts.errors += 1;
            opts.end_options(hooks);
            opts.usage_message(err)?;
            return Err(Stop::Exit(1));
        }
    };
    let metric = String::from_utf8_lossy(&spec.metric).into_owned();
    let spec_ninst = spec.instances.len();
    if spec_ninst > 0 {
        own.iall = false;
        own.inames = spec.instances;
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
    opts.end_options(hooks);
    if opts.context != Some(ContextKind::Archive) {
        if own.uninterp {
            opts.printf(b"pmval: uninterpolated mode can only be used with archives");
            opts.errors += 1;
        }
        if own.pause {
            opts.printf(b"pmval: delay can only be used with archives\n");
            opts.errors += 1;
        }
    }
    if opts.errors > 0 {
        opts.usage_message(err)?;
        return Err(Stop::Exit(1));
    }
    Ok(Command { opts, own, metric, spec_ninst, spec_source, archive_insts })
}

/// The context the values come from, and what the header says of it.
struct Source {
    ctx: Context,
    /// The source's name as given (the header's `archive:`).
    name: String,
    /// `pmGetContextHostName`.
    hostname: String,
    is_archive: bool,
}

/// Open the context (with the name space `-n` loaded and the derived
/// metrics registered).
fn open_context(
    cmd: &Command,
    env: &[(Vec<u8>, Vec<u8>)],
    hooks: &mut ContextHooks<'_>,
    err: &mut dyn Write,
) -> Result<Source, Stop> {
    let opts = &cmd.opts;
    if opts.guimode || opts.guiport_arg.is_some() {
        writeln!(err, "pmval: -g and -p are not implemented in pcp-rs yet")?;
        return Err(Stop::Exit(1));
    }
    let is_archive = opts.context == Some(ContextKind::Archive);
    let named = if opts.context == Some(ContextKind::Host) { opts.hosts.first() } else { opts.archives.first() };
    let name = cmd.spec_source.as_ref().or(named).map(|s| String::from_utf8_lossy(s).into_owned()).unwrap_or_default();
    // pmval keeps the loaded names whole (no pmTrimNameSpace)
    let names = hooks.namespace.take();
    let mut ctx = if opts.context == Some(ContextKind::Host) {
        let host = name.clone();
        let opened = Context::open_host_traced(&host, &hooks.trace).map_err(PmError::from);
        // (what the handshake traced, where libpcp wrote it)
        err.write_all(&hooks.trace.take())?;
        match opened {
            Ok(mut c) => {
                if let Some(names) = names {
                    c.use_namespace_of(names);
                }
                c
            }
            Err(e) => {
                err.write_all(&pcp::host::spec_report(&host))?;
                writeln!(err, "pmval: Cannot connect to PMCD on host \"{host}\": {e}")?;
                return Err(Stop::Exit(1));
            }
        }
    } else if is_archive {
        let opened = Context::open_archive_traced(&name, true, &hooks.trace).map_err(PmError::from);
        err.write_all(&hooks.trace.take())?;
        match opened {
            Ok(mut c) => {
                if let Some(names) = names {
                    c.use_namespace_of(names);
                }
                c
            }
            Err(e) => {
                writeln!(err, "pmval: Cannot open archive \"{name}\": {e}")?;
                return Err(Stop::Exit(1));
            }
        }
    } else {
        match crate::local::open_reporting(
            env,
            &hooks.agents,
            names.map(Context::into_namespace),
            &hooks.trace,
            "pmval: Cannot establish local context",
            err,
        )? {
            Some(c) => c,
            None => return Err(Stop::Exit(1)),
        }
    };
    // libpcp sets the derived metrics up once the context is made
    let (registry, report) = hooks.take_registry();
    err.write_all(&report)?;
    ctx.set_trace(hooks.trace.clone());
    if is_archive {
        let value = env.iter().find(|(k, _)| k == b"PCP_IGNORE_MARK_RECORDS").map(|(_, v)| &v[..]);
        // (an archive context takes it)
        let _ = ctx.set_ignore_marks(pcp::archive::ignore_marks_setting("pmval", value));
    }
    ctx.bind_derived(&registry);
    let hostname = ctx.host_name().unwrap_or_default();
    // (pmcd.hostname's fetch is traced)
    err.write_all(&ctx.take_messages())?;
    Ok(Source { ctx, name, hostname, is_archive })
}

/// `pmGetContextOptions`: the zone to report in (with its "Note:" line)
/// and the time window.
fn zone_and_window(
    cmd: &mut Command,
    src: &mut Source,
    env: &[(Vec<u8>, Vec<u8>)],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(Zone, Window), Stop> {
    let ctx = &mut src.ctx;
    let opts = &mut cmd.opts;
    let is_host = ctx.host_source().is_some();
    // pmcd is asked for its zone only when it is wanted, after its name
    // again (pmGetContextOptions's own pmGetContextHostName, for the note)
    let (again, host_zone) = match is_host && opts.hostzone {
        true => (ctx.host_name().ok(), ctx.zone_spec().map_err(|e| e.to_string())),
        false => (None, Ok(String::new())),
    };
    let hostname = again.as_deref().unwrap_or(&src.hostname);
    if is_host {
        // (pmNewZone, before the zone's note)
        opts.trace_new_zone(ctx.trace(), host_zone.as_deref().ok());
        err.write_all(&ctx.take_messages())?;
    }
    let label = ctx.archive_source().map(|a| a.label().clone());
    let tz = label.as_ref().map(|l| String::from_utf8_lossy(&l.timezone).into_owned()).unwrap_or_default();
    let info = match label {
        Some(label) => {
            opts.zone_trace(ctx.trace(), Some(&tz), &options::local_zone(env));
            // (libpcp sets the zone before its note)
            err.write_all(&ctx.take_messages())?;
            // (traced after the zone's note, as libpcp finds the end then)
            let end = ctx.archive_end().map_err(|e| e.to_string());
            ContextInfo {
                kind: ContextKind::Archive,
                host_name: hostname,
                zone: Ok(&tz),
                bounds: Some((label.start, end)),
                end_trace: ctx.take_messages(),
            }
        }
        None if is_host => ContextInfo {
            kind: ContextKind::Host,
            host_name: hostname,
            zone: host_zone.as_deref().map_err(Clone::clone),
            bounds: None,
            end_trace: Vec::new(),
        },
        None => ContextInfo {
            kind: ContextKind::Local,
            host_name: hostname,
            zone: Err(PmError::PM_ERR_NOTHOST.to_string()),
            bounds: None,
            end_trace: Vec::new(),
        },
    };
    let now = options::now();
    let settings = match opts.context_options(&info, &options::local_zone(env), now, out, err)? {
        Ok(s) => s,
        Err(()) => {
            opts.flush(err)?;
            return Err(Stop::Exit(1));
        }
    };
    if !src.is_archive && ctx.trace().any() {
        // (pmGetContextOptions switched libpcp's zone, which traces use;
        // an archive's was switched before its end was looked for)
        ctx.trace().set_zone(std::sync::Arc::new(settings.zone.clone()));
    }
    let Some(window) = settings.window else { return Err(Stop::Exit(1)) };
    Ok((settings.zone, window))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_lists_split_like_pmval() {
        assert_eq!(split_instances(b"a,b c"), [b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]);
        assert_eq!(split_instances(b"\"x y\",z"), [b"x y".to_vec(), b"z".to_vec()]);
        assert_eq!(split_instances(b""), Vec::<Vec<u8>>::new());
    }
}
