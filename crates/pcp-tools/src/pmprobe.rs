//! `pmprobe`: how many values each metric has, and optionally the values
//! (`-v`), instance numbers (`-i`) and names (`-I`).
//!
//! Works today over archives (`-a`, with `-b -f -F -i -I -v -V -z -Z`; one
//! archive, or several read as one context: a comma-separated list, a
//! directory, `-a` repeated).
//! Archive values are read in one pass for all metrics, with the answers
//! pmprobe's one-metric-at-a-time fetches from the archive's start give.
//! Host contexts (`-h`, and `local:` when no source is named) fetch `-b`
//! metrics at a time from pmcd, and `-V` counts the PDUs exchanged as
//! libpcp does. Local contexts (`-L`, with `-K` specs) fetch in batches as
//! from pmcd; with no source named and no pmcd answering on the local
//! host, pmprobe says so in one line and uses the local context (PCP's
//! fails there). `-n`, `-O`, `--derived` and `--container` say they are
//! not implemented yet.

use crate::getopt::{self, OptSpec};
use pcp::context::Instances;
use pcp::Context;
use pcp_core::{InDom, PmError, PmId, PmResult, ValueSet};
use std::ffi::OsString;
use std::io::Write;

const USAGE: &str = include_str!("pmprobe-usage.txt");

const fn opt(short: char, long: Option<&'static str>, has_arg: bool) -> OptSpec {
    OptSpec { short, long, has_arg }
}

const SPECS: &[OptSpec] = &[
    opt('a', Some("archive"), true),
    opt('b', Some("batch"), true),
    opt('D', Some("debug"), true),
    opt('e', None, false),
    opt('f', Some("force"), false),
    opt('h', Some("host"), true),
    opt('I', Some("external"), false),
    opt('i', Some("internal"), false),
    opt('K', Some("spec-local"), true),
    opt('L', Some("local-PMDA"), false),
    opt('n', Some("namespace"), true),
    opt('F', Some("faster"), false),
    opt('O', Some("origin"), true),
    opt('V', Some("verbose"), false),
    opt('v', Some("values"), false),
    opt('Z', Some("timezone"), true),
    opt('z', Some("hostzone"), false),
    opt('?', Some("help"), false),
    // long only: their short letters are never typed
    OptSpec { short: '\u{1}', long: Some("container"), has_arg: true },
    OptSpec { short: '\u{2}', long: Some("derived"), has_arg: true },
    // --version is 'd', which is not among pmprobe's short options
    OptSpec { short: '\u{3}', long: Some("version"), has_arg: false },
];

/// The name-length ceiling of one name lookup batch (`PDU_CHUNK * 64`).
const CEILING: usize = 1024 * 64;

/// Run `pmprobe` with `args` (including the program name).
pub fn run(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    main(args, out, err).unwrap_or(1)
}

fn main(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<i32> {
    let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_encoded_bytes().to_vec()).collect();
    let parsed = getopt::parse_quiet(&args, SPECS, "pmprobe");
    let mut errors = parsed.errors;
    let mut messages = String::new();
    let (mut fflag, mut faster, mut iflag, mut big_i, mut vflag, mut verbose) =
        (false, false, false, false, false, false);
    let mut batchsize: i32 = 128;
    let mut archive: Option<String> = None;
    let mut host: Option<String> = None;
    let (mut hostzone, mut zone_arg) = (false, None::<String>);
    let mut exit_version = false;
    let mut unsupported: Option<&str> = None;
    let mut local = false;
    let mut agents = pcp::local::Agents::default();
    for (k, o) in parsed.opts.iter().enumerate() {
        parsed.messages_at(k).for_each(|m| messages.push_str(m));
        let arg = || String::from_utf8_lossy(o.arg.as_deref().unwrap_or_default()).into_owned();
        match o.opt {
            'b' => match crate::options::strtol_int(arg().as_bytes()) {
                (n, true) => batchsize = n,
                (_, false) => {
                    messages.push_str("pmprobe: -b requires numeric argument\n");
                    errors += 1;
                }
            },
            'f' => fflag = true,
            'i' => {
                if vflag {
                    messages.push_str("pmprobe: at most one of -i and -v allowed\n");
                    errors += 1;
                }
                iflag = true;
            }
            'I' => {
                if vflag {
                    messages.push_str("pmprobe: at most one of -I and -v allowed\n");
                    errors += 1;
                }
                big_i = true;
            }
            'F' => faster = true,
            'V' => verbose = true,
            'v' => {
                if iflag || big_i {
                    messages.push_str("pmprobe: at most one of -v and (-i or -I) allowed\n");
                    errors += 1;
                }
                vflag = true;
            }
            'a' | 'h' => {
                if (o.opt == 'a' && host.is_some()) || (o.opt == 'h' && archive.is_some()) {
                    messages.push_str("pmprobe: only one host or archive allowed\n");
                    errors += 1;
                } else if o.opt == 'h' && host.is_some() {
                    messages.push_str(&format!("pmprobe: too many hosts requested: {}\n", arg()));
                    errors += 1;
                } else if let (true, Some(list)) = (o.opt == 'a', archive.as_mut()) {
                    // another archive: one context over all of them
                    let mut bytes = std::mem::take(list).into_bytes();
                    crate::options::add_to_archive_list(&mut bytes, o.arg.as_deref().unwrap_or_default());
                    *list = String::from_utf8_lossy(&bytes).into_owned();
                } else if o.opt == 'a' {
                    archive = Some(arg());
                } else {
                    host = Some(arg());
                }
            }
            'z' => hostzone = true,
            'Z' => zone_arg = Some(arg()),
            'D' => {}
            '\u{3}' => {
                messages.push_str("pmprobe version 6.0.3\n");
                exit_version = true;
            }
            'n' => {
                unsupported.get_or_insert("n");
            }
            'O' => {
                unsupported.get_or_insert("O");
            }
            'L' => local = true,
            'K' => {
                if let Err(e) = agents.apply_spec(&arg()) {
                    messages.push_str(&format!("pmprobe: pmSpecLocalPMDA failed: {e}\n"));
                    errors += 1;
                }
            }
            '\u{1}' => {
                unsupported.get_or_insert("-container");
            }
            '\u{2}' => {
                unsupported.get_or_insert("-derived");
            }
            _ => errors += 1,
        }
    }
    parsed.messages_at(parsed.opts.len()).for_each(|m| messages.push_str(m));
    if hostzone && zone_arg.is_some() {
        messages.push_str("pmprobe: at most one of -Z and -z allowed\n");
        errors += 1;
    }
    if hostzone && (local || (archive.is_none() && host.is_none())) {
        messages.push_str("pmprobe: use of timezone from metric source requires a source\n");
        errors += 1;
    }
    if exit_version {
        // pmGetOptions' exit request: only the messages, and success
        err.write_all(messages.as_bytes())?;
        return Ok(0);
    }
    if errors > 0 {
        err.write_all(messages.as_bytes())?;
        err.write_all(USAGE.as_bytes())?;
        return Ok(1);
    }
    if let Some(what) = unsupported {
        writeln!(err, "pmprobe: -{what} is not implemented in pcp-rs yet")?;
        return Ok(1);
    }
    // -L wins over -a and -h, as in libpcp
    let archive = archive.filter(|_| !local);
    let mut from_host = None;
    if !local && archive.is_none() {
        let named = host.is_some();
        let host = host.unwrap_or_else(|| "local:".to_string());
        match Context::open_host(&host) {
            Ok(c) => from_host = Some(c),
            Err(e) => match (named, crate::local::local_pmcd()) {
                // no source named and no pmcd here: the local context
                (false, Err(why)) => err.write_all(crate::local::fallback_note("pmprobe", why).as_bytes())?,
                _ => {
                    writeln!(err, "pmprobe: Cannot connect to PMCD on host \"{host}\": {e}")?;
                    return Ok(1);
                }
            },
        }
    }
    let mut ctx = match (from_host, archive) {
        (Some(c), _) => c,
        (None, Some(name)) => match Context::open_archive(&name) {
            Ok(c) => c,
            Err(e) => {
                writeln!(err, "pmprobe: Cannot open archive \"{name}\": {e}")?;
                return Ok(1);
            }
        },
        (None, None) => {
            let env = crate::options::process_env();
            let failed = "pmprobe: Cannot make standalone connection on localhost";
            match crate::local::open_reporting(&env, &agents, None, failed, err)? {
                Some(c) => c,
                None => return Ok(1),
            }
        }
    };
    if let Some(src) = ctx.archive() {
        if let Some(tz) = &zone_arg {
            writeln!(out, "Note: timezone set to \"TZ={tz}\"\n")?;
        } else if hostzone {
            let host = String::from_utf8_lossy(&src.label().hostname).into_owned();
            writeln!(out, "Note: timezone set to local timezone of host \"{host}\" from archive\n")?;
        }
    }

    // the metric names: traversed, or as given with -F
    let mut names: Vec<String> = Vec::new();
    if parsed.operands.is_empty() {
        let _ = ctx.traverse_with("", |n| names.push(n.to_string()));
    } else {
        for arg in &parsed.operands {
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

    let mut icache: Option<(InDom, PmResult<Instances>)> = None;
    let mut lookup = |ctx: &Context, indom: InDom| -> PmResult<Instances> {
        if icache.as_ref().is_none_or(|(i, _)| *i != indom) {
            let insts = if ctx.archive().is_some() { ctx.get_indom_archive(indom) } else { ctx.get_indom(indom) };
            icache = Some((indom, insts));
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
        // an archive's metrics are fetched one at a time from its start
        // (all read in one pass), others in batches
        let (fetched, batch) = match ctx.archive() {
            Some(src) => (src.first_each(ctx.origin(), &pmids), 1),
            None => (Default::default(), batchsize),
        };
        for chunk in metrics.chunks(batch) {
            let sets: PmResult<Vec<ValueSet>> = match ctx.archive() {
                Some(_) => {
                    let result = fetched.get(&chunk[0].1).cloned().unwrap_or(Err(PmError::PM_ERR_EOL));
                    result.map(|r| r.sets)
                }
                None => {
                    let ids: Vec<PmId> = chunk.iter().map(|m| m.1).collect();
                    ctx.fetch(&ids).map(|r| r.sets)
                }
            };
            match sets {
                Ok(sets) => report_values(out, &ctx, &mut lookup, chunk, &sets, (iflag, big_i, vflag))?,
                // pmprobe names the batch's first metric
                Err(e) => writeln!(out, "{} {} {e} (pmFetch)", chunk[0].0, e.code())?,
            }
        }
    }

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
    Ok(0)
}

/// pmprobe's report of one fetch's value sets, one line a metric.
fn report_values(
    out: &mut dyn Write,
    ctx: &Context,
    lookup: &mut dyn FnMut(&Context, InDom) -> PmResult<Instances>,
    metrics: &[(String, PmId)],
    sets: &[ValueSet],
    (iflag, big_i, vflag): (bool, bool, bool),
) -> std::io::Result<()> {
    for (k, (name, pmid)) in metrics.iter().enumerate() {
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
        let Some(vs) = sets.get(k) else { continue };
        match &vs.values {
            Err(e) => write!(out, "{} {e}", e.code())?,
            Ok(v) if v.is_empty() => write!(out, "0")?,
            Ok(values) => {
                write!(out, "{}", values.len())?;
                if let (true, Some(d)) = (vflag, desc) {
                    for v in values {
                        let mut text = vec![b' '];
                        let _ = pcp_core::format::print_value(&mut text, &v.value, d.ty, 1);
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
