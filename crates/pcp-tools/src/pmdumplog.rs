//! `pmdumplog`: dump the contents of a PCP archive.
//!
//! Everything PCP 6.0.3's pmdumplog dumps: the archive label (`-l`, `-L`),
//! metric descriptors (`-d`), label sets (`-e`), help text (`-h`),
//! instance domains as logged (`-I`) and as libpcp resolves them (`-i`),
//! the temporal index (`-t`), and the results (the default, `-m`), in
//! either direction (`-r`), within a time window (`-S`, `-T`), with
//! record sizes (`-s`), long timestamps (`-x`, `-xx`, `-xxx`), for chosen
//! metrics only (metric name operands, `-M` to keep mark records then),
//! names from another name space (`-n`), in the local zone, the archive's
//! (`-z`) or a given one (`-Z`); and a raw dump of any file (`-v`).
//!
//! Options are libpcp's (`pmGetOptions`, [`crate::options`]): its usage
//! message and getopt messages, and the `PCP_*` environment variables that
//! preset the standard ones (`$PCP_ARCHIVE` names the archive, and then
//! every operand is a metric name).
//!
//! Results are read one record at a time (`Replay::fetch_archive_record`), so memory stays
//! small whatever the size of the archive.

use crate::options::{self, tools, ContextHooks, ContextInfo, ContextKind, Parser};
use pcp::timezone::Zone;
use pcp::Context;
use pcp_archive::archive::{Archive, ArchiveSet};
use pcp_archive::labels::LabelIndex;
use pcp_archive::meta::MetaIndex;
use pcp_archive::raw::{Label, Version};
use pcp_archive::replay::{Mode, Replay};
use pcp_core::debug::{DebugFlag, Trace};
use pcp_core::{Desc, InDom, PmError, PmId, Timestamp};
use pcp_pmns::cpp::{Files, OsFiles};
use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Write;

mod events;
mod format;
mod index;
mod metadata;
mod rawdump;
mod results;

use rawdump::raw_dump;
use results::{InstLines, MetricInfo};

/// `PM_LOG_FEATURE_QA`: the one archive feature bit 6.0.3 knows.
const LOG_FEATURE_QA: u32 = 0x8000_0000;

/// libpcp's `-Dcontext` line of `pmWhichContext` in pmdumplog's one
/// context.
const WHICH: &str = "pmWhichContext() -> 0, cur=0\n";

/// Run `pmdumplog` with `args` (including the program name).
pub fn run(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    run_with(args, out, err, &mut OsFiles)
}

/// [`run`] with the files a `-n` name space is read from.
pub fn run_with(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write, files: &mut dyn Files) -> i32 {
    main(args, &options::process_env(), out, err, files).unwrap_or(1)
}

/// [`run`] in the environment `env` (name and value pairs, in order)
/// rather than the process's: the `PCP_*` presets and the local time
/// zone come from it.
pub fn run_with_env(args: &[OsString], env: &[(Vec<u8>, Vec<u8>)], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    main(args, env, out, err, &mut OsFiles).unwrap_or(1)
}

/// What to dump, and how.
#[derive(Default)]
struct Flags {
    descs: bool,
    labelsets: bool,
    help: bool,
    disk_indoms: bool,
    indoms: bool,
    label: bool,
    verbose_label: bool,
    marks: bool,
    metrics: bool,
    reverse: bool,
    sizes: bool,
    index: bool,
    xflag: u32,
}

fn main(
    args: &[OsString],
    env: &[(Vec<u8>, Vec<u8>)],
    out: &mut dyn Write,
    err: &mut dyn Write,
    files: &mut dyn Files,
) -> std::io::Result<i32> {
    let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_encoded_bytes().to_vec()).collect();
    // -n (or $PCP_NAMESPACE, $PCP_UNIQNAMES) loads a name space through
    // pmcpp, its messages in libpcp's order
    let mut hooks = ContextHooks::new(files, env, "pmdumplog");
    let mut p = Parser::new(&args, tools::PMDUMPLOG, env, &mut hooks, err);
    let mut f = Flags::default();
    let mut raw: Option<Vec<u8>> = None;
    while let Some(o) = p.next_tool_opt() {
        match o.opt {
            b'a' => {
                f.descs = true;
                f.indoms = true;
                f.verbose_label = true;
                f.label = true;
                f.metrics = true;
                f.sizes = true;
                f.index = true;
            }
            b'd' => f.descs = true,
            b'e' => f.labelsets = true,
            b'h' => f.help = true,
            b'I' => f.disk_indoms = true,
            b'i' => f.indoms = true,
            b'L' => {
                f.verbose_label = true;
                f.label = true;
            }
            b'l' => f.label = true,
            b'm' => f.metrics = true,
            b'M' => f.marks = true,
            b'r' => f.reverse = true,
            b's' => f.sizes = true,
            b't' => f.index = true,
            b'v' => raw = o.arg,
            b'x' => f.xflag += 1,
            _ => {}
        }
    }
    let mut opts = p.finish();
    err.write_all(&opts.flushed)?;
    let names_ctx = hooks.namespace.take();
    let no_operands = opts.operands.is_empty();
    if opts.errors > 0
        || opts.exit
        || (raw.is_some() && !no_operands)
        || (raw.is_none() && no_operands && opts.archives.is_empty())
    {
        opts.usage_message(err)?;
        return Ok(i32::from(!opts.exit));
    }
    if let Some(file) = raw {
        return raw_dump(out, err, &file);
    }
    if !(f.descs || f.labelsets || f.help || f.disk_indoms || f.indoms || f.label || f.metrics || f.index) {
        f.metrics = true;
    }
    // the archive is the first operand, unless the environment named one
    // ($PCP_ARCHIVE): then every operand is a metric name
    let mut operands = std::mem::take(&mut opts.operands);
    if opts.archives.is_empty() {
        let first = operands.remove(0);
        opts.add_archive(&first);
    }
    opts.end_options(&mut hooks);
    let Some(name) = opts.archives.first() else {
        // ($PCP_HOST and an archive: libpcp has no archive name here, and
        // pmdumplog dies of it)
        opts.flush(err)?;
        return Ok(1);
    };
    let name = String::from_utf8_lossy(name).into_owned();
    let trace = hooks.trace.clone();
    if !name.contains(',') && trace.on(DebugFlag::Log) {
        let note = pcp_archive::opentrace::decompress_note(&name);
        writeln!(err, "__pmStat(\"{name}\"): {note}")?;
    }
    if name.contains(',') || std::fs::metadata(&name).is_ok_and(|m| m.is_dir()) {
        writeln!(err, "pmdumplog: Multiple archives are not supported")?;
        return Ok(1);
    }
    let (src, mut reader) = match Source::open(&name, &trace, err)? {
        Ok(x) => x,
        Err(e) => {
            if trace.on(DebugFlag::Context) {
                writeln!(err, "pmNewContext(2, {name}) -> {}, curr_handle=-1", e.code())?;
            }
            writeln!(err, "pmdumplog: Cannot open archive \"{name}\": {e}")?;
            return Ok(1);
        }
    };
    let archive = &src.archive;
    if trace.on(DebugFlag::Context) {
        pcp::context::trace_new_archive_context(&trace, &name, archive.label().start);
        err.write_all(&trace.take())?;
    }
    // libpcp sets up its derived metrics at the first context
    let (registry, report) = hooks.take_registry();
    err.write_all(&report)?;
    // libpcp's label is the first data volume's (it checked it on opening)
    let label = first_volume_label(archive).unwrap_or_else(|| archive.label().clone());
    // each PMAPI call's look at the current context (pmWhichContext)
    let which = |n: usize| {
        if trace.on(DebugFlag::Context) {
            trace.write_bytes(WHICH.repeat(n).as_bytes());
        }
    };

    // the reporting zone and the time window (libpcp looks for the end of
    // the archive whatever the options, and warns when it cannot find it)
    let host = String::from_utf8_lossy(&label.hostname).into_owned();
    let tz = String::from_utf8_lossy(&label.timezone).into_owned();
    reader.set_trace(&trace);
    opts.zone_trace(&trace, Some(&tz), &options::local_zone(env));
    // (pmGetArchiveEnd)
    which(2);
    let end = reader.end();
    if trace.has_deferred() {
        let archive_names;
        let names = match &names_ctx {
            Some(n) => n,
            None => {
                archive_names = src.names();
                &archive_names
            }
        };
        let zone = opts.reporting_zone(Some(&tz), &options::local_zone(env));
        fill_record_dumps(&trace, names, &src, &zone, label.start);
    }
    err.write_all(&trace.take())?;
    let info = ContextInfo {
        kind: ContextKind::Archive,
        host_name: &host,
        zone: Ok(&tz),
        bounds: Some((label.start, end.map_err(|e| e.to_string()))),
        end_trace: Vec::new(),
    };
    let settings = match opts.context_options(&info, &options::local_zone(env), options::now(), out, err)? {
        Ok(s) => s,
        Err(()) => {
            opts.flush(err)?;
            return Ok(1);
        }
    };
    let Some(window) = settings.window else { return Ok(1) };

    // metric name operands, in the archive's name space (or -n's), with
    // the derived metrics libpcp registers at its first context
    // ($PCP_DERIVED_CONFIG); pmdumplog finds them by name (and dumps
    // nothing for them, as no record holds them)
    let mut archive_names = src.names();
    let mut names_ctx = names_ctx;
    let names = names_ctx.as_mut().unwrap_or(&mut archive_names);
    names.set_trace(hooks.trace.clone());
    names.bind_derived(&registry);
    let names = &*names;
    let mut pmids: Vec<PmId> = Vec::new();
    if !operands.is_empty() {
        for op in &operands {
            let m = String::from_utf8_lossy(op).into_owned();
            match lookup_name(names, &m) {
                Ok((ids, _)) => pmids.extend(ids),
                Err(PmError::PM_ERR_NONLEAF) => {
                    let mut leaves = Vec::new();
                    let sts = names.traverse_with(&m, |leaf| leaves.push(leaf.to_string()));
                    for leaf in leaves {
                        if leaf.is_empty() {
                            out.write_all(b"PMNS appears to be empty!\n")?;
                            continue;
                        }
                        let looked_up = names.lookup_names(&[leaf.as_str()]).map_err(PmError::from);
                        err.write_all(&names.take_messages())?;
                        match looked_up {
                            Ok((ids, _)) => pmids.extend(ids),
                            Err(e) => writeln!(err, "pmdumplog: pmLookupName({leaf}): {e}")?,
                        }
                    }
                    err.write_all(&names.take_messages())?;
                    if let Err(e) = sts {
                        writeln!(err, "pmdumplog: pmTraversePMNS({m}): {e}")?;
                        // libpcp drops one more (the last found) here
                        pmids.pop();
                    }
                }
                Err(e) => {
                    err.write_all(&names.take_messages())?;
                    writeln!(err, "pmdumplog: pmLookupName({m}): {e}")?
                }
            }
        }
        err.write_all(&names.take_messages())?;
        if pmids.is_empty() {
            writeln!(err, "No metric names can be translated, dump abandoned")?;
            return Ok(1);
        }
    }

    let mut d = Dumper {
        src: &src,
        names,
        zone: settings.zone,
        version: label.version,
        start: label.start,
        xflag: f.xflag,
        sizes: f.sizes,
        metric_cache: HashMap::new(),
        by_place: Vec::new(),
        inst_lines: HashMap::new(),
        buf: Vec::with_capacity(1 << 16),
        meta_trace: trace.on(pcp::debug::DebugFlag::LogMeta).then(|| trace.clone()),
        context_trace: trace.on(DebugFlag::Context).then(|| trace.clone()),
        trace: trace.clone(),
        anon: crate::evrec::AnonLookups::default(),
    };
    // results are read from the window's start (or back from its end);
    // with -S or -T the dump stops at its far end, else only at the far
    // end of time a 32-bit timestamp holds (or the epoch, going back)
    let narrowed = opts.start_arg.is_some() || opts.finish_arg.is_some();
    let done = match (f.reverse, narrowed) {
        (false, true) => window.end,
        (false, false) => Timestamp { sec: i32::MAX as i64, nsec: 0 },
        (true, true) => window.start,
        (true, false) => Timestamp { sec: 0, nsec: 0 },
    };
    // (pmSetMode)
    which(1);
    let origin = if f.reverse { window.end } else { window.start };
    if f.reverse {
        let _ = reader.set_mode(Mode::Back, window.end, 0);
    } else {
        let _ = reader.set_mode(Mode::Forw, window.start, 0);
    }
    // (libpcp's context is at the new time while it positions)
    d.fill_record_dumps(origin);
    err.write_all(&trace.take())?;
    if f.label {
        let mut end_again = || {
            let end = reader.end().ok();
            d.fill_record_dumps(origin);
            (end, trace.take())
        };
        d.dump_label(out, err, &label, &mut end_again, f.verbose_label)?;
    }
    if f.descs {
        d.dump_descs(out, err)?;
    }
    if f.labelsets {
        d.dump_labelsets(out)?;
    }
    if f.help {
        d.dump_help(out)?;
    }
    if f.disk_indoms {
        if let Some(status) = d.dump_disk_indoms(out, err)? {
            return Ok(status);
        }
    }
    if f.indoms {
        d.dump_indoms(out, err)?;
        err.write_all(&trace.take())?;
    }
    if f.index {
        d.dump_index(out, err, &trace)?;
    }
    if f.metrics {
        let what = Selection { pmids: &pmids, marks: f.marks, reverse: f.reverse, done, origin, trace: &trace };
        return d.dump_results(out, err, &mut reader, &what);
    }
    Ok(0)
}

/// The archive as pmdumplog uses it: its files and its metadata as
/// libpcp holds it (names, descriptors and instance domains are all it
/// needs of a context, so it does without the rest of one).
struct Source {
    archive: Archive,
    meta: std::sync::Arc<MetaIndex>,
    labels: LabelIndex,
}

impl Source {
    /// Open the archive `name` as `pmNewContext` does, and a reader of its
    /// results. Feature bits 6.0.3 does not know make pmdumplog warn (and
    /// open the archive without checking them). The metadata records go
    /// once indexed.
    /// The opening is traced into `trace` as libpcp's (twice when feature
    /// bits make libpcp open it again), written out to `err`.
    fn open(name: &str, trace: &Trace, err: &mut dyn Write) -> std::io::Result<Result<(Source, Replay), PmError>> {
        pcp_archive::opentrace::trace_log_open(name, true, trace);
        err.write_all(&trace.take())?;
        let mut archive = match Archive::open(name).map_err(PmError::from) {
            Ok(a) => a,
            Err(e) => return Ok(Err(e)),
        };
        let unknown = |l: &Label| l.features & !LOG_FEATURE_QA != 0;
        let index_label = pcp_archive::files::find_file(archive.base(), ".index")
            .and_then(|p| pcp_archive::files::open_records(&p).ok())
            .map(|(l, _)| l);
        if first_volume_label(&archive).as_ref().is_some_and(unknown)
            || index_label.as_ref().is_some_and(unknown)
            || unknown(archive.label())
        {
            if trace.on(DebugFlag::Context) {
                writeln!(err, "pmNewContext(2, {name}) -> {}, curr_handle=-1", PmError::PM_ERR_FEATURE.code())?;
            }
            writeln!(err, "pmdumplog: Warning: unsupported feature bits, other errors may follow ...")?;
            pcp_archive::opentrace::trace_log_open(name, false, trace);
            err.write_all(&trace.take())?;
        }
        let meta = match MetaIndex::build(archive.meta()) {
            Ok(m) => std::sync::Arc::new(m),
            Err(e) => return Ok(Err(e)),
        };
        let labels = match LabelIndex::build(archive.meta()) {
            Ok(l) => l,
            Err(e) => return Ok(Err(e)),
        };
        archive.forget_meta();
        let replay = Replay::with_index(ArchiveSet::single(archive.clone()), false, std::sync::Arc::clone(&meta));
        Ok(replay.map(|reader| (Source { archive, meta, labels }, reader)))
    }

    /// A context holding the archive's name space (with libpcp's
    /// anonymous metrics), for the name services.
    fn names(&self) -> Context {
        let mut pmns = pcp_pmns::Pmns::new();
        // libpcp adds each name in turn to the front of its parent's children
        pmns.add_names_front(
            self.meta.names().iter().map(|(n, id)| (std::str::from_utf8(n).unwrap_or("\u{fffd}"), *id)),
        );
        Context::with_archive_namespace(pmns)
    }

    /// `pmLookupDesc`.
    fn desc(&self, pmid: PmId) -> Result<Desc, PmError> {
        match pcp::derived::anon_by_pmid(pmid) {
            Some(a) => Ok(a.desc),
            None => self.meta.desc(pmid).copied(),
        }
    }
}

/// Under `-Dpdu`, the dumps of the records read since last asked (libpcp
/// decodes each with a `__pmResult` dump), where each was read: metrics
/// named in `names`, instances as the archive named them at `when` (the
/// context's time while libpcp read them).
fn fill_record_dumps(trace: &Trace, names: &Context, src: &Source, zone: &Zone, when: Timestamp) {
    if !trace.has_deferred() {
        return;
    }
    let desc = |p| src.desc(p).ok();
    let inst = |indom, inst| src.meta.indom_at(indom, Some(when)).ok()?.name_of(inst).map(<[u8]>::to_vec);
    let by = pcp::context::ResultLookups { desc: &desc, inst: &inst, zone };
    trace.fill_results(|r, sptr| {
        let mut text = Vec::new();
        names.dump_result_by(r, sptr, &by, &mut text);
        text
    });
}

impl Dumper<'_> {
    /// [`fill_record_dumps`] with the dump's names and zone.
    fn fill_record_dumps(&self, when: Timestamp) {
        fill_record_dumps(&self.trace, self.names, self.src, &self.zone, when);
    }
}

/// `pmLookupName` of one name. libpcp finds derived metrics (the
/// anonymous `event.flags` and `event.missed`, and registered ones) by
/// name but not their parents, so a non-leaf with nothing but those below
/// it (or the root) is an unknown name.
fn lookup_name(names: &Context, name: &str) -> Result<(Vec<PmId>, usize), PmError> {
    match names.lookup_names(&[name]).map_err(PmError::from) {
        Err(PmError::PM_ERR_NONLEAF) => {
            if name.is_empty() || names.only_derived_below(name) {
                Err(PmError::PM_ERR_NAME)
            } else {
                Err(PmError::PM_ERR_NONLEAF)
            }
        }
        r => r,
    }
}

impl Dumper<'_> {
    /// With `-Dcontext`, `n` PMAPI calls' `pmWhichContext` lines (and
    /// whatever else was traced), written after the text so far: `buf`
    /// goes to `out` first, as C's stdio holds it there.
    fn which(&self, out: &mut dyn Write, buf: &mut Vec<u8>, err: &mut dyn Write, n: usize) -> std::io::Result<()> {
        let Some(trace) = &self.context_trace else { return self.flush_trace(out, buf, err) };
        out.write_all(buf)?;
        buf.clear();
        trace.write_bytes(WHICH.repeat(n).as_bytes());
        err.write_all(&trace.take())
    }

    /// Whatever was traced, written after the text so far (as
    /// [`Dumper::which`] does), when there is any.
    fn flush_trace(&self, out: &mut dyn Write, buf: &mut Vec<u8>, err: &mut dyn Write) -> std::io::Result<()> {
        if !self.trace.any() {
            return Ok(());
        }
        let text = self.trace.take();
        if text.is_empty() {
            return Ok(());
        }
        out.write_all(buf)?;
        buf.clear();
        err.write_all(&text)
    }
}

/// The label of the first data volume.
fn first_volume_label(archive: &pcp_archive::archive::Archive) -> Option<Label> {
    let vol = archive.volumes().first()?;
    let path = pcp_archive::files::find_file(archive.base(), &format!(".{vol}"))?;
    pcp_archive::files::open_records(&path).ok().map(|(l, _)| l)
}

struct Dumper<'a> {
    src: &'a Source,
    /// Where names come from: the archive, or `-n`'s name space.
    names: &'a Context,
    zone: Zone,
    version: Version,
    start: Timestamp,
    xflag: u32,
    sizes: bool,
    metric_cache: HashMap<PmId, std::rc::Rc<MetricInfo>>,
    /// The metric at each place of the last record dumped.
    by_place: Vec<std::rc::Rc<MetricInfo>>,
    /// [`results::inst_lines`] of the instance set last used for each instance
    /// domain, with the set's address.
    inst_lines: HashMap<InDom, (usize, InstLines)>,
    buf: Vec<u8>,
    /// With `-Dlogmeta`, where `pmNameInDom`'s searches are traced.
    meta_trace: Option<Trace>,
    /// With `-Dcontext`, where each PMAPI call's `pmWhichContext` is
    /// traced: written out where libpcp writes it, after the text
    /// printed so far.
    context_trace: Option<Trace>,
    /// The `-D` trace, whatever its options.
    trace: Trace,
    /// The once-a-process look-ups of `event.flags` and `event.missed`.
    anon: crate::evrec::AnonLookups,
}

/// Which results to dump, in which order, up to when.
struct Selection<'a> {
    /// The metrics asked for (all when empty).
    pmids: &'a [PmId],
    /// Keep mark records when metrics are asked for (`-M`).
    marks: bool,
    /// Newest first (`-r`).
    reverse: bool,
    /// Stop at a result beyond this time (before it, going backwards).
    done: Timestamp,
    /// The context's time before the first result is read.
    origin: Timestamp,
    /// The `-D` trace, written out before each result.
    trace: &'a Trace,
}
