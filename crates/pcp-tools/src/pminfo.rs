//! `pminfo`: list metric names, PMIDs and (with a metrics source)
//! descriptions, help text and values.
//!
//! Options are libpcp's (`pmGetOptions`, through [`crate::options`]), with
//! its messages, usage text and `PCP_*` presets. Works today: the
//! name-space part (`-n`/`-N FILE`, `-m`, `-M`, metric and subtree names,
//! PMIDs and instance domains as arguments) and archive contexts (`-a`
//! with `-d -f -F -I -l -m -M -s -t -T -v -x -b -O -z -Z`, and `-n`/`-N`,
//! whose names are then trimmed to the archive's metrics; one archive, or
//! several read as one: a comma-separated list, a directory, `-a`
//! repeated). Archive values are read in one pass for all the metrics
//! named, with the answers pminfo's one-metric-at-a-time fetches from the
//! archive's start (or the `-O` origin) give; labels are those of the time
//! each fetch found (see `labels`).
//! Local contexts (`-L`, with `-K` specs): this machine's metrics read
//! in-process (see `pcp::local`), fetched a batch at a time as pminfo
//! fetches from pmcd. Host contexts (`-h`, and `local:` when no source is
//! named) ask pmcd, with pminfo's batching of names under pmcd's PDU size
//! limit and one fetch a batch; `-n` with a host takes the names from the
//! file. With no source named and no pmcd answering on the local host,
//! pminfo says so in one line and uses the local context (PCP's pminfo
//! fails there). Derived metrics: `$PCP_DERIVED_CONFIG` (or
//! `$PCP_VAR_DIR/config/derived`) then each `-c`/`--derived` file, bound
//! in the context as libpcp binds them (host contexts whose names are
//! pmcd's do not see them yet).
//! (`--container` only matters to pmcd: archives ignore it.)

mod labels;
mod series;

use crate::evrec;
use crate::options::hooks::DeferredRegistry;
use crate::options::{self, tools, ContextHooks, ContextInfo, ContextKind, Parser};
use pcp::context::{Instances, TextLevel};
use pcp::debug::DebugFlag;
use pcp::timezone::Zone;
use pcp::Context;
use pcp_core::debug::Trace;
use pcp_core::labels::{flags as label_flags, merge_label_sets, Label, LabelSet, PM_MAXLABELJSONLEN};
use pcp_core::{
    Desc, FetchResult, InDom, InstValue, MetricType, PmError, PmId, PmResult, Timestamp, ValueSet, PM_IN_NULL,
};
use pcp_pmns::cpp::{Files, OsFiles};
use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::Write;

/// Names are looked up (and printed) this many at a time, as pminfo does.
const BATCH: usize = 128;

/// Run `pminfo` with `args` (including the program name).
pub fn run(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    run_with(args, out, err, &mut OsFiles)
}

/// [`run`] reading name-space files through `files`.
pub fn run_with(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write, files: &mut dyn Files) -> i32 {
    // a failed write (other than a closed pipe) ends with failure
    Pminfo::new(out, err, files).main(args).unwrap_or(1)
}

/// What to print for each metric (pminfo's `p_*` flags).
#[derive(Clone, Copy, Debug, Default)]
struct Flags {
    mid: bool,
    fullmid: bool,
    fulliid: bool,
    desc: bool,
    oneline: bool,
    help: bool,
    label: bool,
    series: bool,
    value: bool,
    force: bool,
    verify: bool,
    /// `-x`: unpack event records.
    events: bool,
}

struct Pminfo<'a> {
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
    files: &'a mut dyn Files,
    prog: String,
    p: Flags,
    need_pmid: bool,
    batch: Vec<String>,
    batchsize: usize,
    /// The archive's values, fetched ahead in the order pminfo fetches
    /// them (see `Context::first_each`).
    fetched: VecDeque<(PmId, PmResult<FetchResult>)>,
    /// pminfo's instance cache: the instance domain last asked for and
    /// what `pmGetInDom` said then.
    icache: Option<(InDom, PmResult<Instances>)>,
    /// pminfo's label caches.
    labels: labels::Caches,
    /// Where each archive fetch starts (the epoch, or `-O`): a failed
    /// fetch leaves the context there.
    origin: Option<Timestamp>,
    /// The reporting time zone (`pmLocaltime`'s), for event timestamps.
    zone: Zone,
    /// Fetch with libpcp's positioning at the `-O` origin.
    fetch_from_origin: bool,
    /// Fetch each archive metric when it is reported rather than ahead
    /// (under `-Dderive`, `-Dpmns` and `-Dcontext`, whose traces then come
    /// where libpcp's do).
    fetch_each: bool,
    /// For a host context, pminfo's running guess at the size of the
    /// `PDU_PMNS_NAMES` request for the batch.
    pdusize: Option<usize>,
    /// The once-a-process look-ups of `event.flags` and `event.missed`.
    anon: evrec::AnonLookups,
}

/// pminfo's starting guess at a names request: the header and three
/// counts.
const PDUSIZE_START: usize = 20;

/// `PM_PDU_SIZE_BYTES`: a name's bytes rounded up to whole words.
fn pcp_pdu_padded(len: usize) -> usize {
    len.div_ceil(4) * 4
}

impl<'a> Pminfo<'a> {
    fn new(out: &'a mut dyn Write, err: &'a mut dyn Write, files: &'a mut dyn Files) -> Self {
        Pminfo {
            out,
            err,
            files,
            prog: "pminfo".to_string(),
            p: Flags::default(),
            need_pmid: false,
            batch: Vec::new(),
            batchsize: BATCH,
            fetched: VecDeque::new(),
            icache: None,
            labels: labels::Caches::default(),
            origin: None,
            anon: evrec::AnonLookups::default(),
            zone: Zone::utc(),
            fetch_from_origin: false,
            fetch_each: false,
            pdusize: None,
        }
    }

    fn main(&mut self, args: &[OsString]) -> std::io::Result<i32> {
        let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_encoded_bytes().to_vec()).collect();
        let env = options::process_env();
        let mut hooks = ContextHooks::new(
            &mut *self.files,
            &env,
            &crate::options::progname(args.first().map(Vec::as_slice).unwrap_or_default()),
        );
        let mut p = Parser::new(&args, tools::PMINFO, &env, &mut hooks, &mut *self.err);
        self.prog.clone_from(&p.opts.prog);
        let mut need_context = false;
        while let Some(o) = p.next_tool_opt() {
            let f = &mut self.p;
            match o.opt {
                b'b' => match options::strtol_int(o.arg.as_deref().unwrap_or_default()) {
                    (n, true) => self.batchsize = n.max(1) as usize,
                    (_, false) => {
                        let m = format!("{}: -b requires numeric argument\n", self.prog);
                        p.opts.printf(m.as_bytes());
                        p.opts.errors += 1;
                    }
                },
                // loaded there, traced as -D has said so far
                b'c' => {
                    if let Err(e) = p.load_derived(o.arg.as_deref().unwrap_or_default()) {
                        let m = format!("{}: derived configuration(s) error: {e}\n", self.prog);
                        p.opts.flushed.extend_from_slice(m.as_bytes());
                    }
                }
                b'd' => f.desc = true,
                b'F' => (f.force, f.value) = (true, true),
                b'f' => f.value = true,
                b'l' => f.label = true,
                b'M' => (f.fullmid, f.mid) = (true, true),
                b'I' => (f.fulliid, f.desc) = (true, true),
                b'm' => f.mid = true,
                b's' => f.series = true,
                b't' => f.oneline = true,
                b'T' => f.help = true,
                b'v' => f.verify = true,
                b'x' => (f.events, f.value) = (true, true),
                // pminfo takes -C and ignores it
                _ => {}
            }
            if matches!(o.opt, b'd' | b'F' | b'f' | b'I' | b'l' | b's' | b't' | b'T' | b'v' | b'x') {
                need_context = true;
            }
            if matches!(o.opt, b'd' | b'F' | b'f' | b'I' | b'l' | b'M' | b'm' | b's' | b't' | b'T' | b'v' | b'x') {
                self.need_pmid = true;
            }
        }
        let mut opts = p.finish();
        self.err.write_all(&opts.flushed)?;
        let namespace = hooks.namespace.take();
        let agents = std::mem::take(&mut hooks.agents);
        let trace = hooks.trace.clone();
        // libpcp sets the derived metrics up (and reads its configuration
        // for them) once the context is made
        let mut deferred = hooks.defer_registry();
        if opts.errors > 0 || opts.exit {
            let status = i32::from(!opts.exit);
            opts.usage_message(self.err)?;
            return Ok(status);
        }
        if opts.context.is_some() || !opts.namespace_loaded {
            need_context = true;
        }
        if opts.context == Some(ContextKind::Archive) {
            // one metric a batch, each fetched from the same origin
            self.batchsize = 1;
        }
        if self.p.verify {
            let p = &mut self.p;
            (p.desc, p.mid, p.fullmid, p.help, p.oneline, p.value, p.force, p.label) =
                (false, false, false, false, false, false, false, false);
        }
        let ctx = match (need_context, opts.context, namespace) {
            (false, _, Some(names)) => names,
            (true, Some(ContextKind::Archive), names) => {
                match self.open_archive(&mut opts, names, &trace, &mut deferred)? {
                    Ok(ctx) => ctx,
                    Err(status) => return Ok(status),
                }
            }
            // -L wins over -a and -h, as in libpcp
            (true, Some(ContextKind::Local), names) => match self.open_local(&agents, names, &trace)? {
                Some(ctx) => ctx,
                None => return Ok(1),
            },
            (_, kind, names) => match self.open_host(kind, opts.hosts.first(), &agents, names, &trace)? {
                Some(ctx) => ctx,
                None => return Ok(1),
            },
        };
        let mut ctx = ctx;
        let (registry, report) = deferred.finish();
        if need_context {
            // libpcp sets the derived metrics up once pmNewContext has
            // made the context, after what opening it traced (and not
            // when that fails)
            self.err.write_all(&report)?;
        } else {
            // with no context, at the first service that asks them
            ctx.defer_derived_startup(report);
        }
        let mut status = 0;
        ctx.set_trace(trace);
        ctx.bind_derived(&registry);
        let operands = std::mem::take(&mut opts.operands);
        if self.p.value || self.p.label || self.p.verify {
            self.fetch_ahead(&mut ctx, &operands);
        }
        if operands.is_empty() {
            if let Err(e) = self.traverse(&mut ctx, "") {
                self.err.write_all(&ctx.take_messages())?;
                writeln!(self.err, "Error: {e}")?;
                status = 1;
            }
        }
        for arg in &operands {
            let name = String::from_utf8_lossy(arg).into_owned();
            let r = if arg.first().is_some_and(u8::is_ascii_digit) {
                self.digits(&mut ctx, &name)
            } else {
                self.traverse(&mut ctx, &name)
            };
            if let Err(e) = r {
                // (after what the failed request traced)
                self.err.write_all(&ctx.take_messages())?;
                writeln!(self.err, "Error: {name}: {e}")?;
                status = 1;
            }
        }
        self.report(&mut ctx)?;
        // (what the last requests traced, and the local agents' end)
        ctx.trace_exit();
        self.err.write_all(&ctx.take_messages())?;
        Ok(status)
    }

    /// Open the archive, take the `-n` names (trimmed to the archive's
    /// metrics), then `pmGetContextOptions`: the time zone (and its
    /// "Note:"), and the `-O` origin. `Err` is the exit status.
    fn open_archive(
        &mut self,
        opts: &mut options::Options,
        names: Option<Context>,
        trace: &Trace,
        deferred: &mut DeferredRegistry,
    ) -> std::io::Result<Result<Context, i32>> {
        let name = String::from_utf8_lossy(opts.archives.first().map(Vec::as_slice).unwrap_or_default()).into_owned();
        let opened = Context::open_archive_traced(&name, true, trace).map_err(PmError::from);
        self.err.write_all(&trace.take())?;
        let mut ctx = match opened {
            Ok(c) => c,
            Err(e) => {
                writeln!(self.err, "{}: Cannot open archive \"{name}\": {e}", self.prog)?;
                return Ok(Err(1));
            }
        };
        // (pmNewContext sets the derived metrics up, before pmTrimNameSpace)
        deferred.set_up(&mut self.err)?;
        if let Some(names) = names {
            ctx.use_namespace_of(names);
            ctx.trim_namespace();
        }
        let Some(label) = ctx.archive_source().map(|a| a.label().clone()) else { return Ok(Err(1)) };
        let host = String::from_utf8_lossy(&label.hostname).into_owned();
        let tz = String::from_utf8_lossy(&label.timezone).into_owned();
        let window = opts.start_arg.is_some()
            || opts.finish_arg.is_some()
            || opts.align_arg.is_some()
            || opts.origin_arg.is_some();
        opts.zone_trace(trace, Some(&tz), &Zone::local());
        let end = if window { ctx.archive_end().map_err(|e| e.to_string()) } else { Ok(label.start) };
        let info = ContextInfo {
            kind: ContextKind::Archive,
            host_name: &host,
            zone: Ok(&tz),
            bounds: Some((label.start, end)),
            end_trace: Vec::new(),
        };
        match opts.context_options(&info, &Zone::local(), options::now(), self.out, self.err)? {
            Ok(settings) => {
                self.zone = settings.zone;
                // pminfo fetches from the -O origin, else from the time
                // its options left unset (zero, the epoch: libpcp then
                // positions before the first index entry)
                self.origin = Some(match (&opts.origin_arg, settings.window) {
                    (Some(_), Some(w)) => w.origin,
                    _ => Timestamp::new(0, 0),
                });
                self.fetch_from_origin = opts.origin_arg.is_some();
                Ok(Ok(ctx))
            }
            Err(()) => {
                opts.flush(self.err)?;
                Ok(Err(1))
            }
        }
    }

    /// An archive's values for every metric the arguments name, read in
    /// one pass: what pminfo's one-metric fetches from the origin would
    /// each find.
    fn fetch_ahead(&mut self, ctx: &mut Context, operands: &[Vec<u8>]) {
        if ctx.archive_source().is_none() {
            return;
        }
        // (the walks, lookups and reads of fetching ahead are not libpcp's:
        // where they would be traced, fetch each metric as it is reported)
        let trace = ctx.trace();
        if [DebugFlag::Derive, DebugFlag::Log, DebugFlag::Pmns, DebugFlag::Context].into_iter().any(|f| trace.on(f)) {
            self.fetch_each = true;
            return;
        }
        let mut names = Vec::new();
        let mut add = |n: &str| names.push(n.to_string());
        if operands.is_empty() {
            let _ = ctx.traverse_with("", &mut add);
        }
        for arg in operands {
            let name = String::from_utf8_lossy(arg).into_owned();
            if arg.first().is_some_and(u8::is_ascii_digit) {
                if let [d, c, i, ..] = crate::cscanf::scan_dotted_u32(arg)[..] {
                    if let Ok(n) = ctx.name_of(PmId::new(d, c, i)) {
                        let _ = ctx.traverse_with(&n, &mut add);
                    }
                }
            } else {
                let _ = ctx.traverse_with(&name, &mut add);
            }
        }
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let pmids: Vec<PmId> = refs.iter().filter_map(|n| ctx.lookup_names(&[n]).ok().map(|(ids, _)| ids[0])).collect();
        let origin = self.origin.unwrap_or_else(|| ctx.origin());
        if self.fetch_from_origin {
            // (a failure to position is reported as each fetch's)
            let fetched =
                ctx.first_each_forw(origin, &pmids, false).unwrap_or_else(|e| pmids.iter().map(|_| Err(e)).collect());
            self.fetched = pmids.iter().copied().zip(fetched).collect();
            ctx.set_origin(origin);
        } else {
            self.fetched = pmids.iter().copied().zip(ctx.first_each(origin, &pmids, false)).collect();
        }
    }

    /// The local context (over the name space `-n` loaded, if any), or
    /// `None` when it cannot be made (reported as pminfo reports it).
    fn open_local(
        &mut self,
        agents: &pcp::local::Agents,
        names: Option<Context>,
        trace: &Trace,
    ) -> std::io::Result<Option<Context>> {
        let env = crate::options::process_env();
        let failed = format!("{}: Cannot make standalone connection on localhost", self.prog);
        self.zone = Zone::local();
        crate::local::open_reporting(&env, agents, names.map(Context::into_namespace), trace, &failed, self.err)
    }

    /// The host context (`-h`, else `local:`), its names from the `-n`
    /// file if one was loaded; with no source named and no pmcd here, the
    /// local context instead. `None` when neither can be made (reported
    /// as pminfo reports it).
    fn open_host(
        &mut self,
        kind: Option<ContextKind>,
        host: Option<&Vec<u8>>,
        agents: &pcp::local::Agents,
        names: Option<Context>,
        trace: &pcp::debug::Trace,
    ) -> std::io::Result<Option<Context>> {
        let named = kind == Some(ContextKind::Host);
        let host = host.map_or_else(|| "local:".to_string(), |h| String::from_utf8_lossy(h).into_owned());
        let opened = Context::open_host_traced(&host, trace).map_err(PmError::from);
        // (what the handshake traced, where libpcp wrote it)
        self.err.write_all(&trace.take())?;
        match opened {
            Ok(mut c) => {
                self.pdusize = Some(PDUSIZE_START);
                self.zone = Zone::local();
                // names from the loaded name space, all else from pmcd
                if let Some(ns) = names {
                    c.use_namespace_of(ns);
                }
                Ok(Some(c))
            }
            Err(e) => match (named, crate::local::local_pmcd()) {
                // no source named and no pmcd here: the local context
                (false, Err(why)) => {
                    self.err.write_all(crate::local::fallback_note(&self.prog, why).as_bytes())?;
                    self.open_local(agents, names, trace)
                }
                _ => {
                    self.err.write_all(&pcp::host::spec_report(&host))?;
                    writeln!(self.err, "{}: Cannot connect to PMCD on host \"{host}\": {e}", self.prog)?;
                    Ok(None)
                }
            },
        }
    }

    /// A PMID (`d.c.i`) or instance domain (`d.s`) argument.
    fn digits(&mut self, ctx: &mut Context, arg: &str) -> Result<(), PmError> {
        let parts: Vec<u32> = crate::cscanf::scan_dotted_u32(arg.as_bytes());
        match parts[..] {
            [d, c, i, ..] => {
                let name = ctx.name_of(PmId::new(d, c, i))?;
                self.traverse(ctx, &name)
            }
            [d, s] => {
                if !self.p.verify {
                    let _ = self.indom(ctx, InDom::new(d, s));
                }
                Ok(())
            }
            _ => Err(PmError::PM_ERR_NAME),
        }
    }

    /// pminfo's `doindom`.
    fn indom(&mut self, ctx: &Context, indom: InDom) -> std::io::Result<()> {
        write!(self.out, "\nInDom: {indom}")?;
        if self.p.fulliid {
            write!(self.out, " = {} =", indom.0)?;
        }
        write!(self.out, " 0x{:x}", indom.0)?;
        if self.p.oneline {
            let text = ctx.lookup_indom_text(indom, TextLevel::OneLine);
            // (what the lookup traced)
            self.err.write_all(&ctx.take_messages())?;
            self.oneline(text, self.p.fulliid)?;
        }
        writeln!(self.out)?;
        if self.p.label {
            self.indom_labels(ctx, indom)?;
        }
        if self.p.help {
            let text = ctx.lookup_indom_text(indom, TextLevel::Help);
            // (what the lookup traced)
            self.err.write_all(&ctx.take_messages())?;
            self.helptext(text)?;
        }
        Ok(())
    }

    fn traverse(&mut self, ctx: &mut Context, name: &str) -> Result<(), PmError> {
        let mut names = Vec::new();
        let r = ctx.traverse_with(name, |n| names.push(n.to_string()));
        // derived metrics bound by the walk report their semantic errors
        // now, whatever is printed of them (-m, -T, ... look nothing up)
        let _ = self.err.write_all(&ctx.take_messages());
        for n in names {
            if n.is_empty() {
                let _ = self.out.write_all(b"PMNS appears to be empty!\n");
                continue;
            }
            if let Some(size) = &mut self.pdusize {
                // the names go to pmcd in one PDU, which must stay under
                // 64 KiB: a batch that would pass 63 KiB ends here, and
                // so do all later ones
                *size += 4 + pcp_pdu_padded(n.len());
                if *size > 63 * 1024 {
                    self.batchsize = self.batch.len() + 1;
                }
            }
            self.batch.push(n);
            if self.batch.len() >= self.batchsize {
                let _ = self.report(ctx);
            }
        }
        r
    }

    /// pminfo's `report`: look up and print the batch of names.
    fn report(&mut self, ctx: &mut Context) -> std::io::Result<()> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let batch = std::mem::take(&mut self.batch);
        if let Some(size) = &mut self.pdusize {
            *size = PDUSIZE_START;
        }
        let mut names: Vec<&str> = batch.iter().map(String::as_str).collect();
        let mut pmids = vec![PmId::NULL; names.len()];
        if self.need_pmid {
            let looked_up = ctx.lookup_names(&names).map_err(PmError::from);
            // (what the lookup traced)
            self.err.write_all(&ctx.take_messages())?;
            match looked_up {
                Ok((ids, _)) => pmids = ids,
                Err(e) => {
                    // only a failure of every name comes back as an error
                    for n in &names {
                        writeln!(self.out, "{n}: pmLookupName: {e}")?;
                    }
                    names.clear();
                    pmids.clear();
                }
            }
        }
        let p = self.p;
        let mut result: Option<FetchResult> = None;
        if (p.value || p.label || p.verify)
            && (ctx.local_source().is_some() || ctx.host_source().is_some())
            && !pmids.is_empty()
        {
            // the batch in one fetch, as from pmcd
            let fetched = ctx.fetch(&pmids);
            self.err.write_all(&ctx.take_messages())?;
            match fetched {
                Ok(r) => result = Some(r),
                Err(e) => {
                    for n in &names {
                        writeln!(self.out, "{n}: pmFetch: {e}")?;
                    }
                    return Ok(());
                }
            }
        }
        if p.value || p.label || p.verify {
            if let Some(&pmid) = pmids.first().filter(|_| ctx.archive_source().is_some()) {
                let found = if self.fetch_each {
                    // pmSetMode(PM_MODE_FORW, origin) before each fetch
                    let origin = self.origin.unwrap_or_else(|| ctx.origin());
                    let r = ctx.set_mode(pcp::context::Mode::Forw, origin, 0).and_then(|()| ctx.fetch(&[pmid]));
                    self.err.write_all(&ctx.take_messages())?;
                    r
                } else {
                    // this metric's next fetch (a metric named twice is fetched twice)
                    let next = self.fetched.iter().position(|(p, _)| *p == pmid);
                    let fetched =
                        next.and_then(|i| self.fetched.remove(i)).map_or(Err(PmError::PM_ERR_EOL), |(_, r)| r);
                    ctx.trace_read_ahead(&fetched);
                    self.err.write_all(&ctx.take_messages())?;
                    fetched
                };
                match found {
                    Ok(r) => {
                        // the fetch moves the context to the record's time
                        ctx.set_origin(r.timestamp);
                        result = Some(r);
                    }
                    Err(e) => {
                        // pmSetMode put the context at the start; the
                        // failed fetch leaves it there
                        if let Some(t) = self.origin {
                            ctx.set_origin(t);
                        }
                        for n in &names {
                            writeln!(self.out, "{n}: pmFetch: {e}")?;
                        }
                        return Ok(());
                    }
                }
            }
        }
        for (i, (name, &pmid)) in names.iter().zip(&pmids).enumerate() {
            let mut desc = None;
            if p.desc || p.value || p.label || p.series || p.verify {
                let looked_up = ctx.lookup_desc(pmid);
                self.err.write_all(&ctx.take_messages())?;
                match looked_up {
                    Ok(d) => desc = Some(d),
                    Err(e) => {
                        writeln!(self.out, "{name}: pmLookupDesc: {e}")?;
                        continue;
                    }
                }
            }
            if p.desc || p.help || p.value || p.label {
                writeln!(self.out)?;
            }
            let mut vset = result.as_ref().and_then(|r| r.sets.get(i)).cloned();
            if let (true, Some(d), Some(vs)) = (p.value && p.force, desc, vset.as_ref()) {
                if vs.values == Err(PmError::PM_ERR_PROFILE) {
                    // a non-enumerable instance domain: pminfo fetches again
                    // with every instance in the profile; an archive answers
                    // with the same recorded value set
                    match ctx.get_indom(d.indom) {
                        Ok((ids, _)) if !ids.is_empty() => {
                            if ctx.local_source().is_some() || ctx.host_source().is_some() {
                                let _ = ctx.del_profile(d.indom, &[]);
                                let _ = ctx.add_profile(d.indom, &ids);
                                let again = ctx.fetch(&[pmid]);
                                // the profile goes back to every instance
                                let _ = ctx.del_profile(d.indom, &[]);
                                let _ = ctx.add_profile(d.indom, &[]);
                                match again {
                                    Ok(mut r) => vset = r.sets.pop(),
                                    Err(e) => {
                                        writeln!(self.out, "{name}: pmFetch: {e}")?;
                                        continue;
                                    }
                                }
                            }
                        }
                        Ok(_) => {
                            writeln!(self.out, "{name}: pmGetIndom: No instances?")?;
                            continue;
                        }
                        Err(e) => {
                            writeln!(self.out, "{name}: pmGetIndom: {e}")?;
                            continue;
                        }
                    }
                }
            }
            let vset = vset.as_ref();
            if p.verify {
                let (Some(d), Some(vs)) = (desc, vset) else { continue };
                if d.ty == MetricType::NOSUPPORT {
                    writeln!(self.out, "{name}: Not Supported")?;
                } else {
                    match &vs.values {
                        Err(e) => writeln!(self.out, "{name}: {e}")?,
                        Ok(v) if v.is_empty() => writeln!(self.out, "{name}: No value(s) available")?,
                        Ok(_) => {}
                    }
                }
                continue;
            }
            self.out.write_all(name.as_bytes())?;
            if p.mid {
                write!(self.out, " PMID: {pmid}")?;
            }
            if p.fullmid {
                write!(self.out, " = {} = 0x{:x}", pmid.0, pmid.0)?;
            }
            if p.oneline {
                let text = ctx.lookup_text(pmid, TextLevel::OneLine);
                // (what the lookup traced)
                self.err.write_all(&ctx.take_messages())?;
                self.oneline(text, p.fullmid)?;
            }
            writeln!(self.out)?;
            if let (true, Some(d)) = (p.desc, &desc) {
                self.desc(d)?;
            }
            if let (true, Some(d)) = (p.series, &desc) {
                self.metric_series(ctx, name, d)?;
            }
            if let (true, Some(d)) = (p.label, &desc) {
                self.metric_labels(ctx, d)?;
            }
            if p.help {
                let text = ctx.lookup_text(pmid, TextLevel::Help);
                // (what the lookup traced)
                self.err.write_all(&ctx.take_messages())?;
                self.helptext(text)?;
            }
            if let (true, Some(d), Some(vs)) = (p.value, &desc, vset) {
                self.dump(ctx, d, vs, b"", evrec::VAL_SPTR)?;
            }
            if let (true, Some(d)) = (p.series, &desc) {
                self.instance_series(ctx, d.indom)?;
            }
            if let (true, Some(d)) = (p.label, &desc) {
                self.instance_labels(ctx, d)?;
            }
        }
        Ok(())
    }

    /// pminfo's `mydesc`.
    fn desc(&mut self, d: &Desc) -> std::io::Result<()> {
        match d.ty.description() {
            Some(t) => write!(self.out, "    Data Type: {t}")?,
            None if d.ty == MetricType::NOSUPPORT => write!(self.out, "    Data Type: Not Supported")?,
            None => write!(self.out, "    Data Type: ??? ({})", d.ty.0)?,
        }
        write!(self.out, "  InDom: {}", d.indom)?;
        if self.p.fulliid {
            write!(self.out, " = {} =", d.indom.0)?;
        }
        writeln!(self.out, " 0x{:x}", d.indom.0)?;
        match d.sem.name() {
            "???" => write!(self.out, "    Semantics: ??? ({})", d.sem.0)?,
            s => write!(self.out, "    Semantics: {s}")?,
        }
        writeln!(self.out, "  Units: {}", d.units.describe())
    }

    /// pminfo's `myoneline`.
    fn oneline(&mut self, text: PmResult<Vec<u8>>, full: bool) -> std::io::Result<()> {
        match text {
            Ok(t) => {
                self.out.write_all(if full { b"\n    " } else { b" " })?;
                self.out.write_all(b"[")?;
                self.out.write_all(&t)?;
                self.out.write_all(b"]")
            }
            Err(e) => write!(self.out, " One-line Help: Error: {e}"),
        }
    }

    /// pminfo's `myhelptext`.
    fn helptext(&mut self, text: PmResult<Vec<u8>>) -> std::io::Result<()> {
        match text {
            Ok(mut t) => {
                while t.last() == Some(&b'\n') {
                    t.pop();
                }
                if t.is_empty() {
                    writeln!(self.out, "Help: <empty entry>")
                } else {
                    self.out.write_all(b"Help:\n")?;
                    self.out.write_all(&t)?;
                    self.out.write_all(b"\n")
                }
            }
            Err(e) => writeln!(self.out, "Full Help: Error: {e}"),
        }
    }

    /// The instances of `indom` as pminfo's cache has them: asked for
    /// again only when the instance domain changes.
    fn instances(&mut self, ctx: &Context, indom: InDom) -> &PmResult<Instances> {
        if self.icache.as_ref().is_none_or(|(i, _)| *i != indom) {
            self.icache = Some((indom, ctx.get_indom(indom)));
            // (what the lookup traced)
            let _ = self.err.write_all(&ctx.take_messages());
        }
        match &self.icache {
            Some((_, r)) => r,
            None => &Err(PmError::PM_ERR_INDOM),
        }
    }

    /// An instance's name, from pminfo's instance cache.
    fn instance_name(&mut self, ctx: &Context, indom: InDom, inst: i32) -> Option<&[u8]> {
        let Ok((ids, names)) = self.instances(ctx, indom) else { return None };
        ids.iter().position(|&i| i == inst).map(|k| names[k].as_slice())
    }

    /// pminfo's `myindomlabels`.
    fn indom_labels(&mut self, ctx: &Context, indom: InDom) -> std::io::Result<()> {
        self.labels.context(ctx);
        self.labels.domain(ctx, indom.domain());
        self.labels.indom(ctx, indom);
        // (what the lookups traced)
        self.err.write_all(&ctx.take_messages())?;
        let h = self.labels.held();
        let sets = [h.context, h.domain, h.indom];
        print_merged(&mut *self.out, &mut *self.err, &sets, b"    ", || format!("indom {indom}"))
    }

    /// pminfo's `mymetriclabels`.
    fn metric_labels(&mut self, ctx: &Context, d: &Desc) -> std::io::Result<()> {
        let c = &mut self.labels;
        c.context(ctx);
        c.domain(ctx, d.pmid.domain());
        if !d.indom.is_null() {
            c.indom(ctx, d.indom);
        }
        c.cluster(ctx, d.pmid);
        c.item(ctx, d.pmid);
        // (what the lookups traced)
        self.err.write_all(&ctx.take_messages())?;
        let h = self.labels.held();
        let mut sets = vec![h.context, h.domain];
        if !d.indom.is_null() {
            sets.push(h.indom);
        }
        sets.extend([h.cluster, h.item]);
        print_merged(&mut *self.out, &mut *self.err, &sets, b"    ", || format!("metric {}", d.pmid))
    }

    /// pminfo's `mymetricseries`: the source's and the metric's series
    /// identifiers, from their intrinsic labels.
    fn metric_series(&mut self, ctx: &Context, name: &str, d: &Desc) -> std::io::Result<()> {
        let mut intrinsic = |l: &Label, _: &[u8]| l.flags & label_flags::OPTIONAL == 0;
        self.labels.context(ctx);
        let h = self.labels.held();
        match merge_label_sets(&[h.context], PM_MAXLABELJSONLEN, Some(&mut intrinsic)) {
            Ok(text) if text.is_empty() => {}
            Ok(text) => writeln!(self.out, "    Source: {}", series::hex(&series::source(&text)))?,
            Err(e) => writeln!(self.err, "pminfo: context labels merge failed: {e}")?,
        }
        let c = &mut self.labels;
        c.domain(ctx, d.pmid.domain());
        c.indom(ctx, d.indom);
        c.cluster(ctx, d.pmid);
        c.item(ctx, d.pmid);
        let h = self.labels.held();
        let sets = [h.context, h.domain, h.indom, h.cluster, h.item];
        match merge_label_sets(&sets, PM_MAXLABELJSONLEN, Some(&mut intrinsic)) {
            Ok(text) if text.is_empty() => Ok(()),
            Ok(text) => writeln!(self.out, "    Series: {}", series::hex(&series::metric(name, d, &text))),
            Err(e) => writeln!(self.err, "pminfo: metric {} labels merge failed: {e}", d.pmid),
        }
    }

    /// pminfo's `myinstanceseries`: each instance's series identifier,
    /// from its labels merged over its instance domain's (all of them).
    fn instance_series(&mut self, ctx: &Context, indom: InDom) -> std::io::Result<()> {
        self.each_instance(ctx, indom, None, |out, inst, name, text| {
            let id = series::hex(&series::instance(text, name));
            write!(out, "    inst [{inst} or \"")?;
            out.write_all(name.unwrap_or(b"DISAPPEARED"))?;
            writeln!(out, "\"] series {id}")
        })
    }

    /// pminfo's `myinstancelabels`: each instance's labels merged over the
    /// metric's.
    fn instance_labels(&mut self, ctx: &Context, d: &Desc) -> std::io::Result<()> {
        self.each_instance(ctx, d.indom, Some(d.pmid), |out, inst, name, text| {
            write!(out, "    inst [{inst} or \"")?;
            out.write_all(name.unwrap_or(b"DISAPPEARED"))?;
            out.write_all(b"\"] labels ")?;
            out.write_all(text)?;
            out.write_all(b"\n")
        })
    }

    /// The walk over an instance domain's instances that pminfo's label
    /// and series reports share: as many instances as have label sets,
    /// else as the instance domain has; each one's labels merged over the
    /// context's, domain's and instance domain's (and, given a metric, its
    /// cluster's and item's), handed to `each` with the instance and its
    /// name when the merge gives a text. Failed merges are reported.
    fn each_instance(
        &mut self,
        ctx: &Context,
        indom: InDom,
        metric: Option<PmId>,
        mut each: impl FnMut(&mut dyn Write, i32, Option<&[u8]>, &[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        if indom.is_null() {
            return Ok(());
        }
        let numinst = match self.instances(ctx, indom) {
            Ok((ids, _)) => ids.len(),
            Err(_) => 0,
        };
        let c = &mut self.labels;
        c.instances(ctx, indom);
        c.context(ctx);
        c.domain(ctx, indom.domain());
        c.indom(ctx, indom);
        if let Some(pmid) = metric {
            c.cluster(ctx, pmid);
            c.item(ctx, pmid);
        }
        // (what the lookups traced)
        self.err.write_all(&ctx.take_messages())?;
        let h = self.labels.held();
        let isets: &[LabelSet] = h.instances.as_deref().unwrap_or(&[]);
        let n = if isets.is_empty() { numinst } else { isets.len() };
        let (ids, names): (&[i32], &[Vec<u8>]) = match &self.icache {
            Some((_, Ok((ids, names)))) => (ids, names),
            _ => (&[], &[]),
        };
        for j in 0..n {
            let ilabels = isets.get(j);
            let mut sets = vec![h.context, h.domain, h.indom];
            if metric.is_some() {
                sets.extend([h.cluster, h.item]);
            }
            sets.extend(ilabels.map(Some));
            match merge_label_sets(&sets, PM_MAXLABELJSONLEN, None) {
                Ok(text) if text.is_empty() => {}
                Ok(text) => {
                    let inst = ilabels.map_or_else(|| ids.get(j).copied().unwrap_or(PM_IN_NULL), |s| s.inst);
                    let name = ids.iter().position(|&i| i == inst).map(|k| names[k].as_slice());
                    each(&mut *self.out, inst, name, &text)?;
                }
                Err(e) => writeln!(self.err, "pminfo: {indom} instances labels merge failed: {e}")?,
            }
        }
        Ok(())
    }

    /// pminfo's `mydump`: one metric's values, after `indent`; with `-x`,
    /// each event value's records. `block_fmt` is the `valfmt` a value
    /// block has in `vs` (for libpcp's dump of a bad event array).
    fn dump(&mut self, ctx: &Context, d: &Desc, vs: &ValueSet, indent: &[u8], block_fmt: i32) -> std::io::Result<()> {
        self.out.write_all(indent)?;
        let values = match &vs.values {
            Err(e) => return writeln!(self.out, "Error: {e}"),
            Ok(v) if v.is_empty() => return writeln!(self.out, "No value(s) available!"),
            Ok(v) => v,
        };
        // (each value's lines made here, then written at once)
        let mut line = Vec::new();
        let force = self.p.force;
        for v in values {
            line.clear();
            if !d.indom.is_null() {
                match self.instance_name(ctx, d.indom, v.inst) {
                    None if force => {
                        writeln!(line, "    inst [{} \"DISAPPEARED\"]", v.inst)?;
                        self.out.write_all(&line)?;
                        continue;
                    }
                    None => {
                        writeln!(line, "pmNameIndom: indom={} inst={}: {}", d.indom, v.inst, PmError::PM_ERR_INST)?;
                        write!(line, "    inst [{}]", v.inst)?;
                    }
                    Some(n) => {
                        write!(line, "    inst [{} or \"", v.inst)?;
                        line.extend_from_slice(n);
                        line.extend_from_slice(b"\"]");
                    }
                }
            } else {
                line.extend_from_slice(b"   ");
            }
            line.extend_from_slice(b" value ");
            let _ = pcp_core::format::print_value_in(&mut line, &v.value, d.ty, 1, &self.zone);
            line.push(b'\n');
            self.out.write_all(&line)?;
            if self.p.events && matches!(d.ty, MetricType::EVENT | MetricType::HIGHRES_EVENT) {
                let valfmt = if matches!(v.value, pcp_core::Value::Block(_)) { block_fmt } else { 0 };
                self.event_dump(ctx, vs, v, valfmt, d.ty == MetricType::HIGHRES_EVENT)?;
            }
        }
        Ok(())
    }

    /// pminfo's `myeventdump`: the records of one event value.
    fn event_dump(
        &mut self,
        ctx: &Context,
        vs: &ValueSet,
        iv: &InstValue,
        valfmt: i32,
        highres: bool,
    ) -> std::io::Result<()> {
        let src = evrec::Source { pmid: vs.pmid, numval: vs.numval(), valfmt };
        let records = match evrec::unpack(&src, iv, highres, &|p| ctx.names_of(p).ok()) {
            Ok(r) => r,
            Err((e, dump)) => {
                self.err.write_all(&dump)?;
                let what = if highres { "pmUnpackHighResEventRecords" } else { "pmUnpackEventRecords" };
                return writeln!(self.err, "{}: {what}: {e}", self.prog);
            }
        };
        self.anon.unpacked(ctx, &records);
        self.anon.tool_setup(ctx);
        self.err.write_all(&ctx.take_messages())?;
        for (r, rec) in records.iter().enumerate() {
            let mut text = format!("    --- event record [{r}] timestamp ").into_bytes();
            evrec::stamp(&mut text, &self.zone, rec.sec, rec.frac, highres);
            self.out.write_all(&text)?;
            if rec.numpmid == 0 {
                self.out.write_all(b" ---\n\tNo parameters\n")?;
                continue;
            }
            if rec.numpmid < 0 {
                writeln!(self.out, " ---\n\tError: illegal number of parameters ({})", rec.numpmid)?;
                continue;
            }
            let mut flags = 0u32;
            for (p, set) in rec.sets.iter().enumerate() {
                self.event_parameter(ctx, set, p, &mut flags)?;
            }
        }
        Ok(())
    }

    /// pminfo's `dump_parameter`: one parameter of an event record
    /// (`event.flags` and `event.missed` in their own forms).
    fn event_parameter(&mut self, ctx: &Context, set: &ValueSet, index: usize, flags: &mut u32) -> std::io::Result<()> {
        use pcp_core::event::{flags_str, EVENT_FLAGS_PMID, EVENT_MISSED_PMID, FLAG_MISSED};
        let names = ctx.names_of(set.pmid);
        self.err.write_all(&ctx.take_messages())?;
        match names {
            Ok(names) => {
                if index == 0 {
                    if set.pmid == EVENT_FLAGS_PMID {
                        *flags = evrec::lval(set) as u32;
                        return writeln!(self.out, " flags 0x{:x} ({}) ---", *flags, flags_str(*flags));
                    }
                    self.out.write_all(b" ---\n")?;
                }
                if *flags & FLAG_MISSED != 0 && index == 1 && set.pmid == EVENT_MISSED_PMID {
                    return writeln!(self.out, "        ==> {} missed event records", evrec::lval(set));
                }
                writeln!(self.out, "    {} ({})", names.join(" or "), set.pmid)?;
            }
            Err(_) => writeln!(self.out, "\tPMID: {}", set.pmid)?,
        }
        let desc = ctx.lookup_desc(set.pmid);
        self.err.write_all(&ctx.take_messages())?;
        match desc {
            Err(e) => writeln!(self.out, "\tpmLookupDesc: {e}"),
            // unpacked parameters hold their blocks as PM_VAL_DPTR
            Ok(d) => self.dump(ctx, &d, set, b"    ", 1),
        }
    }
}

/// Print a merge of label sets as pminfo does: `lead`, then `labels` and
/// the text when there is one; a failed merge is reported on stderr as
/// the merge of `what`.
fn print_merged(
    out: &mut dyn Write,
    err: &mut dyn Write,
    sets: &[Option<&LabelSet>],
    lead: &[u8],
    what: impl FnOnce() -> String,
) -> std::io::Result<()> {
    match merge_label_sets(sets, PM_MAXLABELJSONLEN, None) {
        Ok(text) if text.is_empty() => Ok(()),
        Ok(text) => {
            out.write_all(lead)?;
            out.write_all(b"labels ")?;
            out.write_all(&text)?;
            out.write_all(b"\n")
        }
        Err(e) => writeln!(err, "pminfo: {} labels merge failed: {e}", what()),
    }
}
