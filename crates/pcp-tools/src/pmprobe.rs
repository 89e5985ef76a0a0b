//! `pmprobe`: how many values each metric has, and optionally the values
//! (`-v`), instance numbers (`-i`) and names (`-I`).
//!
//! Options are libpcp's (`pmGetOptions`, through [`crate::options`]), with
//! its messages, usage text and `PCP_*` presets. Works today over archives
//! (`-a`, with `-b -f -F -i -I -n -O -v -V -z -Z`; one archive, or several
//! read as one context: a comma-separated list, a directory, `-a`
//! repeated). Archive values are read in one pass for all metrics, with
//! the answers pmprobe's one-metric-at-a-time fetches from the archive's
//! start (or the `-O` origin) give.
//! Host contexts (`-h`, and `local:` when no source is named) fetch `-b`
//! metrics at a time from pmcd, and `-V` counts the PDUs exchanged as
//! libpcp does. Local contexts (`-L`, with `-K` specs) fetch in batches as
//! from pmcd; with no source named and no pmcd answering on the local
//! host, pmprobe says so in one line and uses the local context (PCP's
//! fails there). `-n` names replace the source's. Derived metrics come
//! from `$PCP_DERIVED_CONFIG` and `--derived` (`--container` only matters
//! to pmcd: archives ignore it).

use crate::options::hooks::DeferredRegistry;
use crate::options::{self, tools, ContextHooks, ContextInfo, ContextKind, Parser};
use pcp::context::Instances;
use pcp::timezone::Zone;
use pcp::Context;
use pcp_core::debug::Trace;
use pcp_core::{InDom, PmError, PmId, PmResult, Timestamp, ValueSet};
use pcp_pmns::cpp::{Files, OsFiles};
use std::ffi::OsString;
use std::io::Write;

/// The name-length ceiling of one name lookup batch (`PDU_CHUNK * 64`).
const CEILING: usize = 1024 * 64;

/// Run `pmprobe` with `args` (including the program name).
pub fn run(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    run_with(args, out, err, &mut OsFiles)
}

/// [`run`] reading name-space files through `files`.
pub fn run_with(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write, files: &mut dyn Files) -> i32 {
    main(args, out, err, files).unwrap_or(1)
}

fn main(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write, files: &mut dyn Files) -> std::io::Result<i32> {
    let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_encoded_bytes().to_vec()).collect();
    let env = options::process_env();
    let mut hooks =
        ContextHooks::new(files, &env, &crate::options::progname(args.first().map(Vec::as_slice).unwrap_or_default()));
    let mut p = Parser::new(&args, tools::PMPROBE, &env, &mut hooks, err);
    let prog = p.opts.prog.clone();
    let (mut fflag, mut faster, mut iflag, mut big_i, mut vflag, mut verbose) =
        (false, false, false, false, false, false);
    let mut batchsize: i32 = 128;
    while let Some(o) = p.next_tool_opt() {
        let mut complain = |m: &str| {
            p.opts.printf(format!("{prog}: {m}\n").as_bytes());
            p.opts.errors += 1;
        };
        match o.opt {
            b'b' => match options::strtol_int(o.arg.as_deref().unwrap_or_default()) {
                (n, true) => batchsize = n,
                (_, false) => complain("-b requires numeric argument"),
            },
            b'f' => fflag = true,
            b'i' => {
                if vflag {
                    complain("at most one of -i and -v allowed");
                }
                iflag = true;
            }
            b'I' => {
                if vflag {
                    complain("at most one of -I and -v allowed");
                }
                big_i = true;
            }
            b'F' => faster = true,
            b'd' => {
                // --version ('V' is taken by -V, verbose)
                p.opts.printf(format!("{prog} version {}\n", options::PCP_VERSION).as_bytes());
                p.opts.exit = true;
            }
            b'V' => verbose = true,
            b'v' => {
                if iflag || big_i {
                    complain("at most one of -v and (-i or -I) allowed");
                }
                vflag = true;
            }
            _ => p.opts.errors += 1,
        }
    }
    let mut opts = p.finish();
    err.write_all(&opts.flushed)?;
    if opts.errors > 0 || opts.exit {
        let status = i32::from(!opts.exit);
        opts.usage_message(err)?;
        return Ok(status);
    }
    // (libpcp sets the derived metrics up once the context is made)
    let mut deferred = hooks.defer_registry();
    let trace = hooks.trace.clone();
    let names = hooks.namespace.take();
    let agents = std::mem::take(&mut hooks.agents);
    let (ctx, zone, origin) = if opts.context == Some(ContextKind::Archive) {
        match open_archive(&prog, &mut opts, names, &trace, &mut deferred, out, err)? {
            Ok(opened) => opened,
            Err(status) => return Ok(status),
        }
    } else {
        match open_live(&prog, &opts, &agents, names, &trace, &mut deferred, err)? {
            Some(ctx) => (ctx, Zone::local(), None),
            None => return Ok(1),
        }
    };
    let registry = deferred.into_registry(err)?;
    let mut ctx = ctx;
    ctx.set_trace(trace);
    ctx.bind_derived(&registry);
    let parsed_operands = std::mem::take(&mut opts.operands);

    // the metric names: traversed, or as given with -F
    let mut names: Vec<String> = Vec::new();
    if parsed_operands.is_empty() {
        let _ = ctx.traverse_with("", |n| names.push(n.to_string()));
    } else {
        for arg in &parsed_operands {
            let a = String::from_utf8_lossy(arg).into_owned();
            if faster {
                names.push(a);
            } else if let Err(e) = ctx.traverse_with(&a, |n| names.push(n.to_string())) {
                writeln!(out, "{a} {} {e}", e.code())?;
            }
        }
    }

    // look the names up in batches as pmprobe does; names of a batch that
    // fails as a whole are dropped
    let batchsize = batchsize.max(1) as usize;
    let mut metrics: Vec<(String, PmId)> = Vec::with_capacity(names.len());
    let mut idx = 0;
    while idx < names.len() {
        let (mut b, mut bytes) = (0usize, 0usize);
        while idx + b < names.len() {
            let len = names[idx + b].len() + 32;
            if b > batchsize || len + bytes >= CEILING {
                b = b.saturating_sub(1).max(1);
                break;
            }
            bytes += len;
            b += 1;
        }
        let batch: Vec<&str> = names[idx..idx + b].iter().map(String::as_str).collect();
        match ctx.lookup_names(&batch).map_err(PmError::from) {
            Ok((ids, _)) => metrics.extend(batch.iter().zip(ids).map(|(n, id)| (n.to_string(), id))),
            Err(e) => {
                for n in &batch {
                    writeln!(out, "{n} {} {e}", e.code())?;
                }
            }
        }
        idx += b;
    }

    let mut icache: Option<(InDom, PmResult<Instances>)> = None;
    let mut lookup = |ctx: &Context, indom: InDom| -> PmResult<Instances> {
        if icache.as_ref().is_none_or(|(i, _)| *i != indom) {
            let insts =
                if ctx.archive_source().is_some() { ctx.get_indom_archive(indom) } else { ctx.get_indom(indom) };
            icache = Some((indom, insts));
        }
        icache.as_ref().map_or(Err(PmError::PM_ERR_INDOM), |(_, r)| r.clone())
    };

    if fflag && (iflag || big_i) {
        // straight to the instance domains, no values fetched
        for (name, pmid) in &metrics {
            let looked_up = ctx.lookup_desc(*pmid);
            err.write_all(&ctx.take_messages())?;
            let desc = match looked_up {
                Ok(d) => d,
                Err(e) => {
                    writeln!(out, "{name} {} {e} (pmLookupDesc)", e.code())?;
                    continue;
                }
            };
            if desc.indom.is_null() {
                write!(out, "{name} 1 PM_IN_NULL")?;
                if iflag && big_i {
                    write!(out, " PM_IN_NULL")?;
                }
            } else {
                match lookup(&ctx, desc.indom) {
                    Err(e) => write!(out, "{name} {} {e} (pmGetInDom)", e.code())?,
                    Ok((ids, inames)) => {
                        write!(out, "{name} {}", ids.len())?;
                        for (id, n) in ids.iter().zip(&inames) {
                            if iflag {
                                write!(out, " ?{id}")?;
                            }
                            if big_i {
                                write!(out, " \"")?;
                                out.write_all(n)?;
                                write!(out, "\"")?;
                            }
                        }
                    }
                }
            }
            writeln!(out)?;
        }
    } else {
        let pmids: Vec<PmId> = metrics.iter().map(|m| m.1).collect();
        // an archive's metrics are fetched one at a time from its start or
        // the -O origin (all read in one pass), others in batches
        // (what libpcp traces of each fetch is traced by fetching each)
        let one_by_one = ctx.archive_source().is_some() && ctx.trace().on(pcp_core::debug::DebugFlag::Log);
        let (fetched, batch) = match origin {
            _ if one_by_one => (Vec::new(), 1),
            // (a failure to position is reported as each fetch's)
            Some(t) => {
                (ctx.first_each_forw(t, &pmids, true).unwrap_or_else(|e| pmids.iter().map(|_| Err(e)).collect()), 1)
            }
            // (pmprobe's origin left unset is zero, the epoch)
            None if ctx.archive_source().is_some() => (ctx.first_each(Timestamp::new(0, 0), &pmids, true), 1),
            None => (Vec::new(), batchsize),
        };
        err.write_all(&ctx.take_messages())?;
        let mut fetched = fetched.into_iter();
        for chunk in metrics.chunks(batch) {
            let sets: PmResult<Vec<ValueSet>> = match ctx.archive_source() {
                Some(_) if one_by_one => {
                    // pmSetMode(PM_MODE_FORW, origin), then this one's fetch
                    let t = origin.unwrap_or(Timestamp::new(0, 0));
                    let set = ctx.set_mode(pcp::context::Mode::Forw, t, 0);
                    err.write_all(&ctx.take_messages())?;
                    if let Err(e) = set {
                        writeln!(out, "{} {e} (pmSetMode)", e.code())?;
                        continue;
                    }
                    let fetched = ctx.fetch(&[chunk[0].1]).map(|r| r.sets);
                    err.write_all(&ctx.take_messages())?;
                    fetched
                }
                Some(_) => {
                    // one metric a chunk, in the order they were fetched
                    let result = fetched.next().unwrap_or(Err(PmError::PM_ERR_EOL));
                    ctx.trace_read_ahead(&result);
                    err.write_all(&ctx.take_messages())?;
                    result.map(|r| r.sets)
                }
                None => {
                    let ids: Vec<PmId> = chunk.iter().map(|m| m.1).collect();
                    let fetched = ctx.fetch(&ids).map(|r| r.sets);
                    err.write_all(&ctx.take_messages())?;
                    fetched
                }
            };
            match sets {
                Ok(sets) => report_values(out, &ctx, &zone, &mut lookup, chunk, &sets, (iflag, big_i, vflag))?,
                // pmprobe names the batch's first metric
                Err(e) => writeln!(out, "{} {} {e} (pmFetch)", chunk[0].0, e.code())?,
            }
        }
    }
    // (what the last requests traced)
    err.write_all(&ctx.take_messages())?;

    if verbose {
        // libpcp's PDU counters (none are exchanged with an archive or the
        // local machine)
        let counts = ctx.pdu_counts();
        for (what, c) in [("send", &counts.sent), ("recv", &counts.received)] {
            write!(out, "PDUs {what}")?;
            for n in c {
                write!(out, " {n:3}")?;
            }
            writeln!(out, "\nTotal: {}", c.iter().sum::<u32>())?;
        }
    }
    ctx.trace_destroy();
    ctx.trace_exit();
    err.write_all(&ctx.take_messages())?;
    Ok(0)
}

/// pmprobe's report of one fetch's value sets, one line a metric.
fn report_values(
    out: &mut dyn Write,
    ctx: &Context,
    zone: &Zone,
    lookup: &mut dyn FnMut(&Context, InDom) -> PmResult<Instances>,
    metrics: &[(String, PmId)],
    sets: &[ValueSet],
    (iflag, big_i, vflag): (bool, bool, bool),
) -> std::io::Result<()> {
    for (k, (name, pmid)) in metrics.iter().enumerate() {
        write!(out, "{name} ")?;
        let mut desc = None;
        if iflag || big_i || vflag {
            let looked_up = ctx.lookup_desc(*pmid);
            match looked_up {
                Ok(d) => desc = Some(d),
                Err(e) => {
                    writeln!(out, "{} {e} (pmLookupDesc)", e.code())?;
                    continue;
                }
            }
        }
        let Some(vs) = sets.get(k) else { continue };
        match &vs.values {
            Err(e) => write!(out, "{} {e}", e.code())?,
            Ok(v) if v.is_empty() => write!(out, "0")?,
            Ok(values) => {
                write!(out, "{}", values.len())?;
                if let (true, Some(d)) = (vflag, desc) {
                    for v in values {
                        let mut text = vec![b' '];
                        let _ = pcp_core::format::print_value_in(&mut text, &v.value, d.ty, 1, zone);
                        out.write_all(&text)?;
                    }
                }
                if let (true, Some(d)) = (iflag || big_i, desc) {
                    if d.indom.is_null() {
                        write!(out, " PM_IN_NULL")?;
                        if iflag && big_i {
                            write!(out, " PM_IN_NULL")?;
                        }
                        writeln!(out)?;
                        continue;
                    }
                    let (ids, inames) = match lookup(ctx, d.indom) {
                        Ok(l) => l,
                        Err(e) => {
                            writeln!(out, "{} {e} (pmGetInDom)", e.code())?;
                            continue;
                        }
                    };
                    for v in values {
                        if iflag {
                            write!(out, " ?{}", v.inst)?;
                        }
                        if big_i {
                            match ids.iter().position(|&i| i == v.inst) {
                                Some(k) => {
                                    write!(out, " \"")?;
                                    out.write_all(&inames[k])?;
                                    write!(out, "\"")?;
                                }
                                None => write!(out, " ?{}", v.inst)?,
                            }
                        }
                    }
                }
            }
        }
        writeln!(out)?;
    }
    Ok(())
}

/// An archive context, its reporting zone and the `-O` origin if given.
type Opened = (Context, Zone, Option<Timestamp>);

/// The archive context (`-a`: one archive or several), with the `-n`
/// names if any (pmprobe does not trim them to the archive's), then
/// `pmGetContextOptions`: the reporting zone (and its "Note:") and the
/// `-O` origin. `Err` is the exit status.
fn open_archive(
    prog: &str,
    opts: &mut options::Options,
    names: Option<Context>,
    trace: &Trace,
    deferred: &mut DeferredRegistry,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<Result<Opened, i32>> {
    let name = String::from_utf8_lossy(opts.archives.first().map(Vec::as_slice).unwrap_or_default()).into_owned();
    let opened = Context::open_archive_traced(&name, true, trace).map_err(PmError::from);
    err.write_all(&trace.take())?;
    let mut ctx = match opened {
        Ok(c) => c,
        Err(e) => {
            writeln!(err, "{prog}: Cannot open archive \"{name}\": {e}")?;
            return Ok(Err(1));
        }
    };
    deferred.set_up(err)?;
    if let Some(names) = names {
        ctx.use_namespace_of(names);
    }
    let Some(label) = ctx.archive_source().map(|a| a.label().clone()) else { return Ok(Err(1)) };
    let host = String::from_utf8_lossy(&label.hostname).into_owned();
    let tz = String::from_utf8_lossy(&label.timezone).into_owned();
    let window =
        opts.start_arg.is_some() || opts.finish_arg.is_some() || opts.align_arg.is_some() || opts.origin_arg.is_some();
    opts.zone_trace(trace, Some(&tz), &Zone::local());
    let end = if window { ctx.archive_end().map_err(|e| e.to_string()) } else { Ok(label.start) };
    let info = ContextInfo {
        kind: ContextKind::Archive,
        host_name: &host,
        zone: Ok(&tz),
        bounds: Some((label.start, end)),
        end_trace: Vec::new(),
    };
    match opts.context_options(&info, &Zone::local(), options::now(), out, err)? {
        Ok(settings) => {
            let origin = settings.window.filter(|_| opts.origin_arg.is_some()).map(|w| w.origin);
            Ok(Ok((ctx, settings.zone, origin)))
        }
        Err(()) => {
            opts.flush(err)?;
            Ok(Err(1))
        }
    }
}

/// The local context (`-L`), or the host context (`-h`, else `local:`),
/// falling back to the local context when no source was named and no
/// pmcd answers here; with the `-n` names if any. `None` when it cannot
/// be made (reported as pmprobe reports it).
fn open_live(
    prog: &str,
    opts: &options::Options,
    agents: &pcp::local::Agents,
    names: Option<Context>,
    trace: &pcp::debug::Trace,
    deferred: &mut DeferredRegistry,
    err: &mut dyn Write,
) -> std::io::Result<Option<Context>> {
    if opts.context != Some(ContextKind::Local) {
        let named = opts.context == Some(ContextKind::Host);
        let host = opts.hosts.first().map_or_else(|| "local:".to_string(), |h| String::from_utf8_lossy(h).into_owned());
        let opened = Context::open_host_traced(&host, trace).map_err(PmError::from);
        // (what the handshake traced, where libpcp wrote it)
        err.write_all(&trace.take())?;
        match opened {
            Ok(mut c) => {
                deferred.set_up(err)?;
                if let Some(ns) = names {
                    c.use_namespace_of(ns);
                }
                return Ok(Some(c));
            }
            Err(e) => match (named, crate::local::local_pmcd()) {
                // no source named and no pmcd here: the local context
                (false, Err(why)) => err.write_all(crate::local::fallback_note(prog, why).as_bytes())?,
                _ => {
                    err.write_all(&pcp::host::spec_report(&host))?;
                    writeln!(err, "{prog}: Cannot connect to PMCD on host \"{host}\": {e}")?;
                    return Ok(None);
                }
            },
        }
    }
    let env = crate::options::process_env();
    let failed = format!("{prog}: Cannot make standalone connection on localhost");
    crate::local::open_reporting(&env, agents, names.map(Context::into_namespace), trace, &failed, err)
}
