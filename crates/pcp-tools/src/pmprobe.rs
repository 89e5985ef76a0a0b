//! `pmprobe`: how many values each metric has, and optionally the values
//! (`-v`), instance numbers (`-i`) and names (`-I`).
//!
//! Options are libpcp's (`pmGetOptions`, through [`crate::options`]), with
//! its messages, usage text and `PCP_*` presets. Works today over archives
//! (`-a`, with `-b -f -F -i -I -n -O -v -V -z -Z`). Archive values are read
//! in one pass for all metrics, with the answers pmprobe's
//! one-metric-at-a-time fetches from the archive's start (or the `-O`
//! origin) give. Host and local contexts (`-h`, `-L`, `-K`) and
//! `--derived` say they are not implemented yet (`--container` only
//! matters to pmcd: archives ignore it).

use crate::options::{self, tools, ContextHooks, ContextInfo, ContextKind, Parser};
use pcp::context::Instances;
use pcp::timezone::Zone;
use pcp::Context;
use pcp_core::{InDom, PmError, PmId, PmResult};
use pcp_pmns::cpp::{Files, OsFiles};
use std::ffi::OsString;
use std::io::Write;

/// How many PDU types libpcp counts (`PDU_MAX`), for `-V`.
const PDU_MAX: usize = 23;

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
    let mut hooks = ContextHooks::new(files, &env);
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
    let unsupported = if !hooks.derived.is_empty() {
        Some("--derived (derived metrics)")
    } else if !hooks.spec_local.is_empty() {
        Some("-K (local PMDAs)")
    } else if opts.context == Some(ContextKind::Local) {
        Some("-L (local contexts)")
    } else {
        None
    };
    if let Some(what) = unsupported {
        writeln!(err, "{prog}: {what} is not implemented in pcp-rs yet")?;
        return Ok(1);
    }
    if opts.context != Some(ContextKind::Archive) {
        let host = opts.hosts.first().map_or_else(|| "local:".to_string(), |h| String::from_utf8_lossy(h).into_owned());
        match pcp::transport::connect(&host) {
            Err(e) => writeln!(err, "{prog}: Cannot connect to PMCD on host \"{host}\": {e}")?,
            Ok(_) => writeln!(
                err,
                "{prog}: pmcd on host \"{host}\" answers, but host contexts are not implemented in pcp-rs yet"
            )?,
        }
        return Ok(1);
    }
    let name = String::from_utf8_lossy(opts.archives.first().map(Vec::as_slice).unwrap_or_default()).into_owned();
    if name.contains(',') {
        writeln!(err, "{prog}: multi-archive contexts (\"{name}\") are not implemented in pcp-rs yet")?;
        return Ok(1);
    }
    let mut ctx = match Context::open_archive(&name) {
        Ok(c) => c,
        Err(e) => {
            writeln!(err, "{prog}: Cannot open archive \"{name}\": {e}")?;
            return Ok(1);
        }
    };
    if let Some(names) = hooks.namespace.take() {
        // pmprobe does not trim the loaded names to the archive's
        ctx.adopt_namespace(names);
    }
    let Some(label) = ctx.archive().map(|a| a.label().clone()) else { return Ok(1) };
    // pmGetContextOptions: the time zone (and its "Note:"), the -O origin
    let host = String::from_utf8_lossy(&label.hostname).into_owned();
    let tz = String::from_utf8_lossy(&label.timezone).into_owned();
    let window =
        opts.start_arg.is_some() || opts.finish_arg.is_some() || opts.align_arg.is_some() || opts.origin_arg.is_some();
    let end = if window { ctx.archive_end().map_err(|e| e.to_string()) } else { Ok(label.start) };
    let info =
        ContextInfo { kind: ContextKind::Archive, host_name: &host, zone: Ok(&tz), bounds: Some((label.start, end)) };
    let (zone, origin) = match opts.context_options(&info, &Zone::local(), options::now(), out, err)? {
        Ok(settings) => (settings.zone, settings.window.filter(|_| opts.origin_arg.is_some()).map(|w| w.origin)),
        Err(()) => {
            opts.flush(err)?;
            return Ok(1);
        }
    };
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
        match ctx.lookup_names(&batch) {
            Ok((ids, _)) => metrics.extend(batch.iter().zip(ids).map(|(n, id)| (n.to_string(), id))),
            Err(e) => {
                for n in &batch {
                    writeln!(out, "{n} {} {e}", e.code())?;
                }
            }
        }
        idx += b;
    }

    // the values, unless -f with -i or -I goes straight to the instances
    let fetched = if fflag && (iflag || big_i) {
        Default::default()
    } else {
        let pmids: Vec<PmId> = metrics.iter().map(|m| m.1).collect();
        match origin {
            // (a failure to position is reported as each fetch's)
            Some(t) => ctx.first_each_forw(t, &pmids).unwrap_or_else(|e| pmids.iter().map(|&p| (p, Err(e))).collect()),
            None => ctx.archive().map(|src| src.first_each(ctx.origin(), &pmids)).unwrap_or_default(),
        }
    };

    let mut icache: Option<(InDom, PmResult<Instances>)> = None;
    let mut lookup = |indom: InDom| -> PmResult<Instances> {
        if icache.as_ref().is_none_or(|(i, _)| *i != indom) {
            icache = Some((indom, ctx.get_indom_archive(indom)));
        }
        icache.as_ref().map_or(Err(PmError::PM_ERR_INDOM), |(_, r)| r.clone())
    };

    if fflag && (iflag || big_i) {
        // straight to the instance domains, no values fetched
        for (name, pmid) in &metrics {
            let desc = match ctx.lookup_desc(*pmid) {
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
                match lookup(desc.indom) {
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
        for (name, pmid) in &metrics {
            let result = match fetched.get(pmid).cloned().unwrap_or(Err(PmError::PM_ERR_EOL)) {
                Ok(r) => r,
                Err(e) => {
                    writeln!(out, "{name} {} {e} (pmFetch)", e.code())?;
                    continue;
                }
            };
            write!(out, "{name} ")?;
            let mut desc = None;
            if iflag || big_i || vflag {
                match ctx.lookup_desc(*pmid) {
                    Ok(d) => desc = Some(d),
                    Err(e) => {
                        writeln!(out, "{} {e} (pmLookupDesc)", e.code())?;
                        continue;
                    }
                }
            }
            let Some(vs) = result.sets.first() else { continue };
            match &vs.values {
                Err(e) => write!(out, "{} {e}", e.code())?,
                Ok(v) if v.is_empty() => write!(out, "0")?,
                Ok(values) => {
                    write!(out, "{}", values.len())?;
                    if let (true, Some(d)) = (vflag, desc) {
                        for v in values {
                            let mut text = vec![b' '];
                            let _ = pcp_core::format::print_value_in(&mut text, &v.value, d.ty, 1, &zone);
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
                        let (ids, inames) = match lookup(d.indom) {
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
    }

    if verbose {
        // no PDUs are exchanged with an archive
        writeln!(out, "PDUs send{}\nTotal: 0", "   0".repeat(PDU_MAX))?;
        writeln!(out, "PDUs recv{}\nTotal: 0", "   0".repeat(PDU_MAX))?;
    }
    Ok(0)
}
