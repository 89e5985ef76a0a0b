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
//! Results are read one record at a time ([`LogReader`]), so memory stays
//! small whatever the size of the archive.

use crate::options::{self, tools, ContextHooks, ContextInfo, ContextKind, Parser};
use pcp::timezone::Zone;
use pcp::Context;
use pcp_archive::archive::ArchiveSet;
use pcp_archive::archive::{libpcp_hash_order, Archive};
use pcp_archive::files::Compression;
use pcp_archive::labels::{LabelEntry, LabelIndex};
use pcp_archive::meta::{text_kind, InDomSet, MetaIndex};
use pcp_archive::raw::{Label, MetaRecord, ResultView, SetView, ValueView, Version};
use pcp_archive::replay::{Mode, Replay};
use pcp_core::event::{self, EVENT_FLAGS_PMID, EVENT_MISSED_PMID, FLAG_MISSED};
use pcp_core::format::{print_value_in, Decimal};
use pcp_core::labels::{flags as label_type, LabelSet};
use pcp_core::{Desc, InDom, LocalTime, MetricType, PmError, PmId, Timestamp, Value, ValueSet};
use pcp_pmns::cpp::{Files, OsFiles};
use std::collections::HashMap;
use std::ffi::OsString;
use std::io::{Read, Write};

/// `PM_LOG_FEATURE_QA`: the one archive feature bit 6.0.3 knows.
const LOG_FEATURE_QA: u32 = 0x8000_0000;

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
    if name.contains(',') || std::fs::metadata(&name).is_ok_and(|m| m.is_dir()) {
        writeln!(err, "pmdumplog: Multiple archives are not supported")?;
        return Ok(1);
    }
    let (src, mut reader) = match Source::open(&name, f.disk_indoms, err)? {
        Ok(x) => x,
        Err(e) => {
            writeln!(err, "pmdumplog: Cannot open archive \"{name}\": {e}")?;
            return Ok(1);
        }
    };
    // libpcp sets up its derived metrics at the first context
    let (registry, report) = hooks.take_registry();
    err.write_all(&report)?;
    let archive = &src.archive;
    // libpcp's label is the first data volume's (it checked it on opening)
    let label = first_volume_label(archive).unwrap_or_else(|| archive.label().clone());

    // the reporting zone and the time window (libpcp looks for the end of
    // the archive whatever the options, and warns when it cannot find it)
    let host = String::from_utf8_lossy(&label.hostname).into_owned();
    let tz = String::from_utf8_lossy(&label.timezone).into_owned();
    let end = reader.end();
    let info = ContextInfo {
        kind: ContextKind::Archive,
        host_name: &host,
        zone: Ok(&tz),
        bounds: Some((label.start, end.map_err(|e| e.to_string()))),
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
                        match names.lookup_names(&[leaf.as_str()]) {
                            Ok((ids, _)) => pmids.extend(ids),
                            Err(e) => writeln!(err, "pmdumplog: pmLookupName({leaf}): {e}")?,
                        }
                    }
                    if let Err(e) = sts {
                        writeln!(err, "pmdumplog: pmTraversePMNS({m}): {e}")?;
                        // libpcp drops one more (the last found) here
                        pmids.pop();
                    }
                }
                Err(e) => writeln!(err, "pmdumplog: pmLookupName({m}): {e}")?,
            }
        }
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
    if f.reverse {
        let _ = reader.set_mode(Mode::Back, window.end, 0);
    } else {
        let _ = reader.set_mode(Mode::Forw, window.start, 0);
    }
    if f.label {
        d.dump_label(out, &label, end.ok(), f.verbose_label)?;
    }
    if f.descs {
        d.dump_descs(out)?;
    }
    if f.labelsets {
        d.dump_labelsets(out)?;
    }
    if f.help {
        d.dump_help(out)?;
    }
    if f.disk_indoms {
        d.dump_disk_indoms(out)?;
    }
    if f.indoms {
        d.dump_indoms(out)?;
    }
    if f.index {
        d.dump_index(out)?;
    }
    if f.metrics {
        let what = Selection { pmids: &pmids, marks: f.marks, reverse: f.reverse, done };
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
    /// open the archive without checking them). The metadata records are
    /// kept once indexed only with `keep_records` (for `-I`).
    fn open(name: &str, keep_records: bool, err: &mut dyn Write) -> std::io::Result<Result<(Source, Replay), PmError>> {
        let mut archive = match Archive::open(name) {
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
            writeln!(err, "pmdumplog: Warning: unsupported feature bits, other errors may follow ...")?;
        }
        let meta = match MetaIndex::build(archive.meta()) {
            Ok(m) => std::sync::Arc::new(m),
            Err(e) => return Ok(Err(e)),
        };
        let labels = match LabelIndex::build(archive.meta()) {
            Ok(l) => l,
            Err(e) => return Ok(Err(e)),
        };
        if !keep_records {
            archive.forget_meta();
        }
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
        Context::with_namespace(pmns)
    }

    /// `pmLookupDesc`.
    fn desc(&self, pmid: PmId) -> Result<Desc, PmError> {
        match pcp::derived::anon_by_pmid(pmid) {
            Some(a) => Ok(a.desc),
            None => self.meta.desc(pmid).copied(),
        }
    }
}

/// `pmLookupName` of one name. libpcp finds derived metrics (the
/// anonymous `event.flags` and `event.missed`, and registered ones) by
/// name but not their parents, so a non-leaf with nothing but those below
/// it (or the root) is an unknown name.
fn lookup_name(names: &Context, name: &str) -> Result<(Vec<PmId>, usize), PmError> {
    match names.lookup_names(&[name]) {
        Err(PmError::PM_ERR_NONLEAF) => {
            let mut real = false;
            let _ = names.traverse_with(name, |leaf| {
                real |= !names.lookup_names(&[leaf]).is_ok_and(|(ids, _)| pcp::derived::is_derived(ids[0]));
            });
            if name.is_empty() || !real {
                Err(PmError::PM_ERR_NAME)
            } else {
                Err(PmError::PM_ERR_NONLEAF)
            }
        }
        r => r,
    }
}

/// The label of the first data volume.
fn first_volume_label(archive: &pcp_archive::archive::Archive) -> Option<Label> {
    let vol = archive.volumes().first()?;
    let path = pcp_archive::files::find_file(archive.base(), &format!(".{vol}"))?;
    pcp_archive::files::open_records(&path).ok().map(|(l, _)| l)
}

/// `-v FILE`: every record of any archive file, in hex.
fn raw_dump(out: &mut dyn Write, err: &mut dyn Write, file: &[u8]) -> std::io::Result<i32> {
    let name = String::from_utf8_lossy(file);
    let path = std::path::PathBuf::from(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(file));
    let f = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) => {
            let e = PmError::from_errno(e.raw_os_error().unwrap_or(2));
            writeln!(err, "pmdumplog: Cannot open \"{name}\": {e}")?;
            return Ok(1);
        }
    };
    writeln!(out, "Raw dump of physical archive file \"{name}\" ...")?;
    let mut input = std::io::BufReader::with_capacity(1 << 16, f);
    let mut pos: u64 = 0;
    let mut buf = Vec::with_capacity(1 << 16);
    let mut word = [0u8; 4];
    loop {
        if read_full(&mut input, &mut word) != 4 {
            break;
        }
        pos += 4;
        let len = i32::from_be_bytes(word);
        buf.clear();
        let _ = write!(buf, "Dump ... record len: {len} @ offset: {}", pos - 4);
        let body = len.wrapping_sub(8);
        let mut i: i32 = 0;
        let mut byte = [0u8; 1];
        while i < body {
            if read_full(&mut input, &mut byte) != 1 {
                buf.extend_from_slice(b"Unexpected EOF\n");
                break;
            }
            pos += 1;
            if i % 32 == 0 {
                buf.push(b'\n');
            }
            if i % 4 == 0 {
                buf.push(b' ');
            }
            let _ = write!(buf, "{:02x}", byte[0]);
            i += 1;
        }
        buf.push(b'\n');
        out.write_all(&buf)?;
        let n = read_full(&mut input, &mut word);
        if n != 4 {
            if n == 0 {
                out.write_all(b"Unexpected EOF\n")?;
            }
            break;
        }
        pos += 4;
        let check = i32::from_be_bytes(word);
        let len = body.wrapping_add(8);
        if check != len {
            writeln!(out, "Trailer botch: {check} != {len}")?;
            break;
        }
    }
    Ok(0)
}

/// Read until `buf` is full or the input ends (or fails); how many came.
fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> usize {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => got += n,
        }
    }
    got
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
    /// [`inst_lines`] of the instance set last used for each instance
    /// domain, with the set's address.
    inst_lines: HashMap<InDom, (usize, InstLines)>,
    buf: Vec<u8>,
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
}

/// A metric's heading and descriptor, for dumping its values.
struct MetricInfo {
    pmid: PmId,
    /// `    PMID (names` (the caller closes the parenthesis).
    head: Vec<u8>,
    /// Its names joined with " or ", if it has any.
    names: Option<String>,
    desc: Option<Desc>,
}

/// Is `d` a whole number that `%.16g` prints as plain digits?
fn whole(d: f64) -> bool {
    d.fract() == 0.0 && d.abs() < 1e15 && !(d == 0.0 && d.is_sign_negative())
}

/// Where an instance is in `set`, looked for first where the last one
/// was found (results list instances in the order of their domain);
/// `hint` is left just after it.
fn index_near(set: &InDomSet, inst: i32, hint: &mut usize) -> Option<usize> {
    let i = match set.ids.get(*hint) {
        Some(&id) if id == inst => *hint,
        _ => set.ids.binary_search(&inst).ok()?,
    };
    *hint = i + 1;
    Some(i)
}

/// The start of each instance's line, for one instance set.
type InstLines = std::rc::Rc<Vec<Vec<u8>>>;

/// `        inst [ID or "NAME"] value ` for each instance of `set`.
fn inst_lines(set: &InDomSet) -> InstLines {
    let lines = set
        .ids
        .iter()
        .zip(&set.names)
        .map(|(id, name)| {
            let mut l = b"        inst [".to_vec();
            l.extend_from_slice(Decimal::signed(*id as i64).as_bytes());
            l.extend_from_slice(b" or \"");
            l.extend_from_slice(name);
            l.extend_from_slice(b"\"] value ");
            l
        })
        .collect();
    std::rc::Rc::new(lines)
}

/// `HH:MM:SS` of `sec` in `zone`.
fn hms(zone: &Zone, sec: i64) -> String {
    match zone.hms(sec) {
        Some((h, m, s)) => format!("{h:02}:{m:02}:{s:02}"),
        None => "??:??:??".to_string(),
    }
}

/// `HH:MM:SS.uuuuuu` (v2) or `HH:MM:SS.nnnnnnnnn` (v3) in `zone`.
fn timestamp(zone: &Zone, t: Timestamp, v: Version) -> String {
    match v {
        Version::V2 => format!("{}.{:06}", hms(zone, t.sec), t.nsec / 1000),
        Version::V3 => format!("{}.{:09}", hms(zone, t.sec), t.nsec),
    }
}

/// `a - b` in seconds as libpcp computes it (in long double, then
/// rounded to double): the double nearest `units` counted in `per`-ths of
/// a second.
fn seconds(units: i128, per: i128) -> f64 {
    let sign = if units < 0 { "-" } else { "" };
    let u = units.unsigned_abs();
    let digits = if per == 1_000_000 { 6 } else { 9 };
    format!("{sign}{}.{:0digits$}", u / per as u128, u % per as u128).parse().unwrap_or(0.0)
}

impl Dumper<'_> {
    /// `pmNameAll` of `pmid`, joined with " or ".
    fn names_of(&mut self, pmid: PmId) -> Option<String> {
        self.metric(pmid).names.clone()
    }

    /// `pmLookupDesc` of `pmid`.
    fn desc(&mut self, pmid: PmId) -> Option<Desc> {
        self.metric(pmid).desc
    }

    /// `dump_pmTimestamp`: the time, with `-x` the date and year, with
    /// `-xx` the offset from the archive's start, with `-xxx` the seconds
    /// since the epoch.
    fn stamp(&self, buf: &mut Vec<u8>, t: Timestamp) {
        let ctime = if self.xflag > 0 { self.zone.ctime(t.sec).ok() } else { None };
        if let Some(c) = &ctime {
            let _ = write!(buf, "{} ", c.get(..10).unwrap_or(""));
        }
        buf.extend_from_slice(timestamp(&self.zone, t, self.version).as_bytes());
        if let Some(c) = &ctime {
            let _ = write!(buf, " {:>4.4}", c.get(20..).unwrap_or(""));
        }
        if self.xflag >= 2 {
            let ns =
                (t.sec as i128 - self.start.sec as i128) * 1_000_000_000 + (t.nsec as i128 - self.start.nsec as i128);
            let (fmt, v) = match self.version {
                Version::V3 => ("%.9f", seconds(ns, 1_000_000_000)),
                Version::V2 => ("%.6f", seconds(ns, 1_000_000_000)),
            };
            let _ = write!(buf, " ({})", pcp_core::cfmt::sprintf_f64_text(fmt, &[], v).unwrap_or_default());
        }
        if self.xflag >= 3 {
            let _ = write!(buf, " {}", t.sec as u64);
        }
    }

    /// `dump_timeval`: an event record's time (microseconds).
    fn timeval(&self, buf: &mut Vec<u8>, sec: i64, usec: i64) {
        let ctime = if self.xflag > 0 { self.zone.ctime(sec).ok() } else { None };
        if let Some(c) = &ctime {
            let _ = write!(buf, "{} ", c.get(..10).unwrap_or(""));
        }
        let _ = write!(buf, "{}.{:06}", hms(&self.zone, sec), usec as i32);
        if let Some(c) = &ctime {
            let _ = write!(buf, " {:>4.4}", c.get(20..).unwrap_or(""));
        }
        if self.xflag >= 2 {
            let us =
                (sec as i128 - self.start.sec as i128) * 1_000_000 + (usec as i128 - (self.start.nsec / 1000) as i128);
            let v = seconds(us, 1_000_000);
            let _ = write!(buf, " ({})", pcp_core::cfmt::sprintf_f64_text("%.6f", &[], v).unwrap_or_default());
        }
    }

    fn dump_label(&self, out: &mut dyn Write, l: &Label, end: Option<Timestamp>, verbose: bool) -> std::io::Result<()> {
        writeln!(out, "Log Label (Log Format Version {})", l.version as u8)?;
        writeln!(out, "Performance metrics from host {}", String::from_utf8_lossy(&l.hostname))?;
        self.write_when(out, "    commencing ", l.start)?;
        match end {
            Some(end) => self.write_when(out, "    ending     ", end)?,
            None => writeln!(out, "    ending     UNKNOWN")?,
        }
        if verbose {
            if !l.timezone.is_empty() {
                writeln!(out, "Archive timezone: {}", String::from_utf8_lossy(&l.timezone))?;
            }
            if !l.zoneinfo.is_empty() {
                writeln!(out, "Archive zoneinfo: {}", String::from_utf8_lossy(&l.zoneinfo))?;
            }
            if l.features != 0 {
                write!(out, "Archive features: 0x{:x}", l.features)?;
                let unknown = l.features & !LOG_FEATURE_QA;
                if unknown != 0 {
                    let bits: Vec<String> =
                        (0..31).rev().filter(|b| unknown & (1 << b) != 0).map(|b| format!("bit_{b:02}")).collect();
                    write!(out, " [unknown: {}]", bits.join(" "))?;
                }
                writeln!(out)?;
            }
            writeln!(out, "PID for pmlogger: {}", l.pid)?;
        }
        Ok(())
    }

    /// `    commencing Sat Nov 21 18:25:14.786674603 2026`.
    fn write_when(&self, out: &mut dyn Write, prefix: &str, t: Timestamp) -> std::io::Result<()> {
        let Ok(ctime) = self.zone.ctime(t.sec) else {
            return writeln!(out, "{prefix}UNKNOWN");
        };
        write!(
            out,
            "{prefix}{} {} {:>4.4}",
            &ctime[..10],
            timestamp(&self.zone, t, self.version),
            ctime.get(20..).unwrap_or("")
        )?;
        if self.xflag >= 3 {
            write!(out, " {}", t.sec as u64)?;
        }
        writeln!(out)
    }

    /// The descriptors, once per PMID, in the order libpcp's hash table
    /// holds them, each with its names.
    fn dump_descs(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "\nDescriptions for Metrics in the Log ...")?;
        let src = self.src;
        let descs: Vec<Desc> = src.meta.descs().copied().collect();
        let keys: Vec<u32> = descs.iter().map(|d| d.pmid.0).collect();
        for i in libpcp_hash_order(&keys) {
            let d = &descs[i];
            match self.names.names_of(d.pmid) {
                Ok(n) => writeln!(out, "PMID: {} ({})", d.pmid, n.join(" or "))?,
                Err(_) => writeln!(out, "PMID: {} (<noname>)", d.pmid)?,
            }
            write!(out, "{d}")?;
        }
        Ok(())
    }

    /// `-e`: the label sets, by time, then type, then identifier.
    fn dump_labelsets(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "\nMetric Labels in the Log ...")?;
        let idx = &self.src.labels;
        let mut times: Vec<Timestamp> =
            idx.chains().flat_map(|(_, _, c)| c.iter().map(|e| e.when)).filter(|t| *t > Timestamp::default()).collect();
        times.sort();
        times.dedup();
        let order = [
            label_type::CONTEXT,
            label_type::DOMAIN,
            label_type::CLUSTER,
            label_type::ITEM,
            label_type::INDOM,
            label_type::INSTANCES,
        ];
        for t in times {
            let mut buf = Vec::new();
            self.stamp(&mut buf, t);
            buf.push(b'\n');
            for ty in order {
                let ty = u32::from(ty);
                let chains: Vec<(u32, &[LabelEntry])> = idx.chains_of(ty).collect();
                // context labels: every chain in turn; others: one chain a
                // identifier (the first met), by increasing identifier
                let mut picked = Vec::new();
                if ty == u32::from(label_type::CONTEXT) {
                    picked.extend(chains.iter().copied());
                } else {
                    let mut prev: Option<u32> = None;
                    loop {
                        let next = chains.iter().filter(|c| prev.is_none_or(|p| c.0 > p)).fold(
                            None::<&(u32, &[LabelEntry])>,
                            |best, c| match best {
                                Some(b) if b.0 <= c.0 => Some(b),
                                _ => Some(c),
                            },
                        );
                        let Some(c) = next else { break };
                        picked.push(*c);
                        prev = Some(c.0);
                    }
                }
                for (ident, entries) in picked {
                    for e in entries.iter().filter(|e| e.when == t) {
                        print_label_sets(&mut buf, ident, ty, &e.sets);
                    }
                }
            }
            out.write_all(&buf)?;
        }
        Ok(())
    }

    /// `-h`: help text by kind (metrics, then instance domains), then
    /// identifier, one-line text before full text.
    fn dump_help(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "\nMetric Help Text in the Log ...")?;
        let src = self.src;
        for what in [text_kind::PMID, text_kind::INDOM] {
            let mut items: Vec<(u32, u32, &[u8])> = src
                .meta
                .texts()
                .filter(|(k, _, _)| *k == what | text_kind::ONELINE || *k == what | text_kind::HELP)
                .map(|(k, i, t)| (i, if k & text_kind::ONELINE != 0 { 0 } else { 1 }, t))
                .collect();
            items.sort_by_key(|(i, c, _)| (*i, *c));
            for (ident, class, text) in items {
                if what == text_kind::PMID {
                    write!(out, "PMID: {}", PmId(ident))?;
                } else {
                    write!(out, "InDom: {}", InDom(ident))?;
                }
                let text = &text[..text.iter().position(|&b| b == 0).unwrap_or(text.len())];
                if class == 0 {
                    out.write_all(b" [")?;
                    out.write_all(text)?;
                    out.write_all(b"]")?;
                } else {
                    out.write_all(b"\n")?;
                    out.write_all(text)?;
                }
                writeln!(out)?;
            }
        }
        Ok(())
    }

    /// `-I`: the instance domain records as they are in `.meta`.
    fn dump_disk_indoms(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "\nInstance Domains on-disk ...")?;
        let src = self.src;
        for rec in src.archive.meta() {
            let MetaRecord::InDom { when, indom, instances, delta } = rec else { continue };
            let mut buf = Vec::new();
            self.stamp(&mut buf, *when);
            let _ = write!(buf, " InDom: {indom}");
            if *delta {
                buf.extend_from_slice(b" delta");
            }
            let _ = writeln!(buf, " {} instances", instances.len());
            // (read with the record: pmdumplog opens archives so)
            let instances = instances.get().map_err(|e| std::io::Error::other(e.to_string()))?;
            for (id, name) in instances.iter() {
                match (delta, name) {
                    (true, None) => {
                        let _ = writeln!(buf, "   del {id}");
                    }
                    (true, Some(n)) => {
                        let _ = write!(buf, "   add {id} or \"");
                        buf.extend_from_slice(n);
                        buf.extend_from_slice(b"\"\n");
                    }
                    (false, n) => {
                        let _ = write!(buf, "   {id} or \"");
                        buf.extend_from_slice(n.unwrap_or_default());
                        buf.extend_from_slice(b"\"\n");
                    }
                }
            }
            out.write_all(&buf)?;
        }
        Ok(())
    }

    /// `-i`: each instance domain's history as libpcp holds it, in its
    /// hash table's order, oldest set first.
    fn dump_indoms(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "\nInstance Domains in the Log ...")?;
        let meta = &self.src.meta;
        let keys: Vec<u32> = meta.indom_order().iter().map(|i| i.0).collect();
        for i in libpcp_hash_order(&keys) {
            let indom = meta.indom_order()[i];
            let mut buf = Vec::new();
            let _ = writeln!(buf, "InDom: {indom}");
            for set in meta.indom_history(indom) {
                let set = set.map_err(|e| std::io::Error::other(e.to_string()))?;
                self.stamp(&mut buf, set.when);
                let _ = writeln!(buf, " {} instances", set.ids.len());
                for (id, name) in set.ids.iter().zip(&set.names) {
                    let _ = write!(buf, "   {id} or \"");
                    buf.extend_from_slice(name);
                    buf.extend_from_slice(b"\"\n");
                }
            }
            out.write_all(&buf)?;
        }
        Ok(())
    }

    /// `-t`: the temporal index, with pmdumplog's integrity checks
    /// against the files' sizes.
    fn dump_index(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        let archive = &self.src.archive;
        let v = self.version;
        writeln!(out, "\nTemporal Index")?;
        if self.xflag > 0 {
            out.write_all(b"\t\t")?;
        }
        if self.xflag >= 2 {
            out.write_all(b"\t\t")?;
        }
        if v == Version::V3 {
            out.write_all(b"\t")?;
        }
        writeln!(out, "\t\tLog Vol    end(meta)     end(log)")?;
        let entries = archive.index().unwrap_or_default();
        // the file as found, compressed or not; libpcp's __pmStat gives
        // the size of a plain one only (a compressed file's is "invalid",
        // -1, and no offset is past it)
        let size = |suffix: &str| -> Option<Option<u64>> {
            let path = pcp_archive::files::find_file(archive.base(), suffix)?;
            let plain = pcp_archive::files::compression_of(&path.to_string_lossy()) == Compression::None;
            let meta = std::fs::metadata(&path).ok()?;
            Some(plain.then_some(meta.len()))
        };
        let mut meta_size = None;
        let mut log_size = None;
        let mut last: Option<&pcp_archive::raw::IndexEntry> = None;
        for (i, e) in entries.iter().enumerate() {
            let mut buf = Vec::new();
            self.stamp(&mut buf, e.when);
            let _ = writeln!(buf, "\t  {:5}  {:11}  {:11}", e.vol, e.meta_offset as i64, e.data_offset as i64);
            out.write_all(&buf)?;
            if i == 0 {
                meta_size = size(".meta").flatten();
            }
            if last.is_none_or(|l| l.vol != e.vol) {
                let found = size(&format!(".{}", e.vol));
                if found.is_none() {
                    writeln!(out, "\t\tWarning: file missing for log volume {}", e.vol)?;
                }
                log_size = found.flatten();
            }
            if e.when.sec < 0 {
                writeln!(out, "\t\tError: illegal timestamp value ({} sec, {} nsec)", e.when.sec, e.when.nsec)?;
            }
            if let Some(m) = meta_size.filter(|&m| e.meta_offset as i64 > m as i64) {
                writeln!(out, "\t\tError: offset to meta file past end of file ({m})")?;
            }
            if let Some(s) = log_size.filter(|&s| e.data_offset as i64 > s as i64) {
                writeln!(out, "\t\tError: offset to log file past end of file ({s})")?;
            }
            if let Some(l) = last {
                if e.when < l.when {
                    writeln!(
                        out,
                        "\t\tError: timestamp went backwards in time {} -> {}",
                        timestamp(&self.zone, l.when, v),
                        timestamp(&self.zone, e.when, v)
                    )?;
                }
                if e.vol < l.vol {
                    writeln!(out, "\t\tError: volume number decreased")?;
                }
                if e.vol == l.vol && (e.meta_offset as i64) < l.meta_offset as i64 {
                    writeln!(out, "\t\tError: offset to meta file decreased")?;
                }
                if e.vol == l.vol && (e.data_offset as i64) < l.data_offset as i64 {
                    writeln!(out, "\t\tError: offset to log file decreased")?;
                }
            }
            last = Some(e);
        }
        Ok(())
    }

    /// The results, one record at a time, as `pmFetchArchive` returns
    /// them, as `what` says: until one beyond its time; with metric
    /// operands, only records holding one of them, cut down to those
    /// (mark records too with `-M`).
    fn dump_results(
        &mut self,
        out: &mut dyn Write,
        err: &mut dyn Write,
        reader: &mut Replay,
        what: &Selection,
    ) -> std::io::Result<i32> {
        let Selection { pmids, marks, reverse, done } = *what;
        let mut first = true;
        let mut buf = std::mem::take(&mut self.buf);
        let sts = loop {
            let record = match reader.fetch_archive_record() {
                Ok(r) => r,
                Err(e) => break e,
            };
            let view = match ResultView::new(record.payload(), self.version) {
                Ok(v) => v,
                Err(e) => break e,
            };
            let when = view.timestamp();
            let picked: Option<Vec<SetView>> = if pmids.is_empty() || (view.numpmid() == 0 && marks) {
                None
            } else {
                // cherry-pick the metrics asked for, in the order asked
                let mut slots: Vec<Option<SetView>> = vec![None; pmids.len()];
                let mut picked = 0;
                for set in view.sets() {
                    if let Some(j) = pmids.iter().position(|p| *p == set.pmid) {
                        slots[j] = Some(set);
                        picked += 1;
                    }
                }
                if picked == 0 {
                    continue;
                }
                Some(slots.into_iter().flatten().collect())
            };
            if first && reverse {
                first = false;
                let c = self.zone.ctime(when.sec).unwrap_or_default();
                writeln!(out, "\nLog finished at {:24.24} - dump in reverse order", c)?;
            }
            if (!reverse && when > done) || (reverse && when < done) {
                break PmError::PM_ERR_EOL;
            }
            buf.clear();
            buf.push(b'\n');
            let size = match (&picked, self.sizes) {
                (_, false) => None,
                (Some(p), true) => Some(record_size(p.iter().copied(), self.version)),
                (None, true) => Some(record_size(view.sets(), self.version)),
            };
            match &picked {
                Some(p) => self.dump_result(out, &mut buf, err, when, size, p.len(), p.iter().copied())?,
                None => self.dump_result(out, &mut buf, err, when, size, view.numpmid(), view.sets())?,
            }
            out.write_all(&buf)?;
        };
        self.buf = buf;
        if sts != PmError::PM_ERR_EOL {
            writeln!(err, "pmdumplog: pmFetch: {sts}")?;
            return Ok(1);
        }
        Ok(0)
    }

    /// What pmdumplog needs of a metric to dump its values, worked out
    /// once: `    PMID (names)`, and its type and instance domain.
    fn metric(&mut self, pmid: PmId) -> std::rc::Rc<MetricInfo> {
        if let Some(m) = self.metric_cache.get(&pmid) {
            return m.clone();
        }
        let names = self.names.names_of(pmid).ok().map(|n| n.join(" or "));
        let mut head = Vec::new();
        let _ = write!(head, "    {pmid} ({}", names.as_deref().unwrap_or("<nonames>"));
        let desc = self.src.desc(pmid).ok();
        let m = std::rc::Rc::new(MetricInfo { pmid, head, names, desc });
        self.metric_cache.insert(pmid, m.clone());
        m
    }

    /// One result: `n` value sets (`size` is the record's size, with `-s`).
    #[allow(clippy::too_many_arguments)]
    fn dump_result<'s>(
        &mut self,
        out: &mut dyn Write,
        buf: &mut Vec<u8>,
        err: &mut dyn Write,
        when: Timestamp,
        size: Option<usize>,
        n: usize,
        sets: impl Iterator<Item = SetView<'s>>,
    ) -> std::io::Result<()> {
        if let Some(size) = size {
            let _ = writeln!(buf, "[{size} bytes]");
        }
        self.stamp(buf, when);
        if n == 0 {
            buf.extend_from_slice(b"  <mark>\n");
            return Ok(());
        }
        buf.push(b' ');
        buf.extend_from_slice(Decimal::unsigned(n as u64).as_bytes());
        buf.extend_from_slice(if n > 1 { b" metrics\n" } else { b" metric\n" });
        let meta = Some(&self.src.meta);
        for (k, vs) in sets.enumerate() {
            // hand on what is made so far now and then: a big record's text
            // need not be held whole
            if buf.len() >= 1 << 16 {
                out.write_all(buf)?;
                buf.clear();
            }
            // records mostly list the same metrics in the same order: try the
            // metric found at this place last time first
            let m = match self.by_place.get(k) {
                Some(m) if m.pmid == vs.pmid => m.clone(),
                _ => {
                    let m = self.metric(vs.pmid);
                    if k < self.by_place.len() {
                        self.by_place[k] = m.clone();
                    } else {
                        self.by_place.push(m.clone());
                    }
                    m
                }
            };
            if vs.numval == 0 {
                buf.extend_from_slice(&m.head);
                buf.extend_from_slice(b"): No values returned!\n");
                continue;
            }
            if vs.numval < 0 {
                buf.extend_from_slice(&m.head);
                let _ = writeln!(buf, "): {}", PmError::from_code(vs.numval));
                continue;
            }
            let (ty, indom) = match m.desc {
                Some(d) => (d.ty, d.indom),
                None if vs.valfmt == 0 => (MetricType::I32, InDom::NULL),
                None => (MetricType::AGGREGATE, InDom::NULL),
            };
            if ty == MetricType::EVENT || ty == MetricType::HIGHRES_EVENT {
                let highres = ty == MetricType::HIGHRES_EVENT;
                let set = vs.to_set();
                for j in 0..vs.numval as usize {
                    let names = m.names.as_deref().unwrap_or("<nonames>");
                    self.dump_event(buf, err, (&set, vs.valfmt), j, names, indom, highres, when)?;
                }
                continue;
            }
            // the instances in force at this time, looked up once a set,
            // and the text before each instance's value made once a set
            let insts = if indom.is_null() { None } else { meta.and_then(|m| m.indom_at(indom, Some(when)).ok()) };
            let lines = insts.map(|set| {
                // one instance set kept an instance domain: the one in use
                let key = set as *const InDomSet as usize;
                match self.inst_lines.get(&indom) {
                    Some((k, lines)) if *k == key => lines.clone(),
                    _ => {
                        let lines = inst_lines(set);
                        self.inst_lines.insert(indom, (key, lines.clone()));
                        lines
                    }
                }
            });
            let mut hint = 0usize;
            for (j, (inst, value)) in vs.values().enumerate() {
                if j == 0 {
                    buf.extend_from_slice(&m.head);
                    buf.extend_from_slice(if vs.numval > 1 { b"):\n" } else { b"):" });
                }
                let indent: &[u8] = if j == 0 && vs.numval == 1 { b"" } else { b"       " };
                if indom.is_null() {
                    buf.extend_from_slice(indent);
                    buf.extend_from_slice(b" value ");
                } else {
                    match (insts, &lines) {
                        (Some(set), Some(lines)) if index_near(set, inst, &mut hint).is_some() => {
                            let line = &lines[hint - 1];
                            buf.extend_from_slice(if indent.is_empty() { &line[7..] } else { line });
                        }
                        _ => {
                            buf.extend_from_slice(indent);
                            buf.extend_from_slice(b" inst [");
                            buf.extend_from_slice(Decimal::signed(inst as i64).as_bytes());
                            buf.extend_from_slice(b" or ???] value ");
                        }
                    }
                }
                self.value(buf, value, ty);
                buf.push(b'\n');
            }
        }
        Ok(())
    }

    /// `pmPrintValue(..., 1)` of one value; the common integer cases
    /// straight from the record's bytes.
    fn value(&self, buf: &mut Vec<u8>, value: ValueView, ty: MetricType) {
        let same = |vtype: u8| vtype == ty.0 as u8 || vtype == 0;
        // libpcp turns a block's numbers to host order only when the block
        // says its type; with the type byte unset they stay as recorded
        let word = |vtype: u8, w: [u8; 8]| if vtype == 0 { u64::from_le_bytes(w) } else { u64::from_be_bytes(w) };
        let signed = |buf: &mut Vec<u8>, v: i64| buf.extend_from_slice(Decimal::signed(v).as_bytes());
        let unsigned = |buf: &mut Vec<u8>, v: u64| buf.extend_from_slice(Decimal::unsigned(v).as_bytes());
        match (value, ty) {
            (ValueView::Insitu(l), MetricType::I32) => signed(buf, l.into()),
            (ValueView::Insitu(l), MetricType::U32) => unsigned(buf, u64::from(l as u32)),
            (ValueView::Block(t, &[a, b, c, d, e, f, g, h]), MetricType::I64) if same(t) => {
                signed(buf, word(t, [a, b, c, d, e, f, g, h]) as i64)
            }
            (ValueView::Block(t, &[a, b, c, d, e, f, g, h]), MetricType::U64) if same(t) => {
                unsigned(buf, word(t, [a, b, c, d, e, f, g, h]))
            }
            // %.16g of a whole number below 10^15 is its digits
            (ValueView::Block(t, &[a, b, c, d, e, f, g, h]), MetricType::DOUBLE)
                if same(t) && whole(f64::from_bits(word(t, [a, b, c, d, e, f, g, h]))) =>
            {
                signed(buf, f64::from_bits(word(t, [a, b, c, d, e, f, g, h])) as i64)
            }
            (ValueView::Block(t, data), MetricType::STRING) if same(t) => {
                // a C string: up to its first NUL
                let end = data.iter().position(|&c| c == 0).unwrap_or(data.len());
                buf.push(b'"');
                buf.extend_from_slice(&data[..end]);
                buf.push(b'"');
            }
            _ => {
                let _ = print_value_in(buf, &value.to_value(), ty, 1, &self.zone);
            }
        }
    }

    /// `%d or "name"` (or `%d or ???`) for an instance at time `when`,
    /// then `close`.
    fn inst_name(&self, buf: &mut Vec<u8>, indom: InDom, inst: i32, when: Timestamp, close: &str) {
        let name = self.src.meta.indom_at(indom, Some(when)).ok().and_then(|set| set.name_of(inst));
        match name {
            Some(n) => {
                let _ = write!(buf, "{inst} or \"");
                buf.extend_from_slice(n);
                let _ = write!(buf, "\"{close}");
            }
            None => {
                let _ = write!(buf, "{inst} or ???{close}");
            }
        }
    }

    /// One value of an event metric: its records unpacked.
    #[allow(clippy::too_many_arguments)]
    fn dump_event(
        &mut self,
        buf: &mut Vec<u8>,
        err: &mut dyn Write,
        (vs, valfmt): (&ValueSet, i32),
        j: usize,
        names: &str,
        indom: InDom,
        highres: bool,
        when: Timestamp,
    ) -> std::io::Result<()> {
        let Ok(values) = &vs.values else { return Ok(()) };
        let iv = &values[j];
        let _ = write!(buf, "    {} ({}", vs.pmid, names);
        if indom.is_null() {
            buf.push(b')');
        } else {
            buf.push(b'[');
            self.inst_name(buf, indom, iv.inst, when, "])");
        }
        buf.extend_from_slice(b": ");
        let block = match &iv.value {
            Value::Block(b) if valfmt == 1 || valfmt == 2 => Some(b),
            _ => None,
        };
        if block.map_or(Err(PmError::PM_ERR_CONV), |b| event::check(b, highres)).is_err() {
            // libpcp dumps the array to stderr when its check fails
            let src = event::DumpSource { pmid: vs.pmid, numval: vs.numval(), valfmt, inst: iv.inst, block };
            let names = self.names;
            let mut text = Vec::new();
            event::dump(&mut text, &src, highres, &|p| names.names_of(p).ok());
            err.write_all(&text)?;
            return Ok(());
        }
        let Some(Ok(records)) = block.map(|b| event::unpack(b, highres)) else { return Ok(()) };
        if records.is_empty() {
            buf.extend_from_slice(b"No event records\n");
            return Ok(());
        }
        let value_of = |set: &ValueSet| match &set.values {
            Ok(v) => match v.first().map(|iv| &iv.value) {
                Some(Value::Insitu(l)) => *l,
                _ => 0,
            },
            Err(_) => 0,
        };
        let mut nmissed: i32 = 0;
        for r in &records {
            if r.sets.len() == 2
                && r.sets[0].pmid == EVENT_FLAGS_PMID
                && value_of(&r.sets[0]) as u32 & FLAG_MISSED != 0
                && r.sets[1].pmid == EVENT_MISSED_PMID
            {
                nmissed = nmissed.wrapping_add(value_of(&r.sets[1]));
            }
        }
        let nrecords = records.len() as i32;
        let _ = write!(buf, "{nrecords}");
        if nmissed > 0 {
            let _ = write!(buf, " (and {nmissed} missed)");
        }
        buf.extend_from_slice(if nrecords.wrapping_add(nmissed) == 1 {
            b" event record\n"
        } else {
            b" event records\n"
        });
        for (i, r) in records.iter().enumerate() {
            let _ = write!(buf, "        --- event record [{i}] timestamp ");
            if highres {
                let _ = write!(buf, "{}.{:09}", hms(&self.zone, r.sec), r.frac as i32);
            } else {
                self.timeval(buf, r.sec, r.frac);
            }
            if r.numpmid == 0 {
                buf.extend_from_slice(b" ---\n\t          No parameters\n");
                continue;
            }
            if r.numpmid < 0 {
                let _ = writeln!(buf, " ---\n\t          Error: illegal number of parameters ({})", r.numpmid);
                continue;
            }
            let mut flags: u32 = 0;
            for (p, set) in r.sets.iter().enumerate() {
                self.dump_parameter(buf, set, p, &mut flags);
            }
        }
        Ok(())
    }

    /// One parameter of an event record (`event.flags` and `event.missed`
    /// in their own forms).
    fn dump_parameter(&mut self, buf: &mut Vec<u8>, set: &ValueSet, index: usize, flags: &mut u32) {
        let lval = match &set.values {
            Ok(v) => match v.first().map(|iv| &iv.value) {
                Some(Value::Insitu(l)) => *l,
                _ => 0,
            },
            Err(_) => 0,
        };
        match self.names_of(set.pmid) {
            Some(names) => {
                if index == 0 {
                    if set.pmid == EVENT_FLAGS_PMID {
                        *flags = lval as u32;
                        let _ = writeln!(buf, " flags 0x{:x} ({}) ---", *flags, event::flags_str(*flags));
                        return;
                    }
                    buf.extend_from_slice(b" ---\n");
                }
                if *flags & FLAG_MISSED != 0 && index == 1 && set.pmid == EVENT_MISSED_PMID {
                    let _ = writeln!(buf, "        ==> {lval} missed event records");
                    return;
                }
                let _ = write!(buf, "        {} ({}):", set.pmid, names);
            }
            None => {
                let _ = write!(buf, "        PMID: {}:", set.pmid);
            }
        }
        let Some(desc) = self.desc(set.pmid) else {
            let e = self.src.desc(set.pmid).err().unwrap_or(PmError::PM_ERR_PMID_LOG);
            let _ = writeln!(buf, " pmLookupDesc: {e}");
            return;
        };
        buf.extend_from_slice(b" value ");
        if let Ok(v) = &set.values {
            if let Some(iv) = v.first() {
                let _ = print_value_in(buf, &iv.value, desc.ty, 1, &self.zone);
            }
        }
        buf.push(b'\n');
    }
}

/// pmdumplog's idea of a record's size on disk (`do_size`).
fn record_size<'s>(sets: impl Iterator<Item = SetView<'s>>, v: Version) -> usize {
    let mut n = match v {
        Version::V3 => 4 + 12 + 4,
        Version::V2 => 4 + 8 + 4,
    } + 4;
    for vs in sets {
        n += 8;
        if vs.numval > 0 {
            n += 4;
            for (_, value) in vs.values() {
                n += 8;
                if let (true, ValueView::Block(_, data)) = (vs.valfmt != 0, value) {
                    n += (data.len() + 4 + 3) & !3;
                }
            }
        }
    }
    n
}

/// `pmPrintLabelSets`.
fn print_label_sets(buf: &mut Vec<u8>, ident: u32, ty: u32, sets: &[LabelSet]) {
    let is = |t: u8| ty == u32::from(t);
    let id = if is(label_type::DOMAIN) {
        format!("Domain {ident}")
    } else if is(label_type::INDOM) || is(label_type::INSTANCES) {
        format!("InDom {}", InDom(ident))
    } else if is(label_type::CLUSTER) {
        let s = PmId(ident).to_string();
        format!("Cluster {}", &s[..s.rfind('.').unwrap_or(s.len())])
    } else if is(label_type::ITEM) {
        format!("PMID {}", PmId(ident))
    } else if is(label_type::CONTEXT) {
        "Context".to_string()
    } else {
        String::new()
    };
    for s in sets {
        let json = &s.json[..s.json.iter().position(|&b| b == 0).unwrap_or(s.json.len())];
        if ty & u32::from(label_type::INSTANCES) != 0 {
            let _ = write!(buf, "    {id}[{}] labels ({} bytes): ", s.inst as u32, s.json.len());
        } else {
            let _ = write!(buf, "    {id} labels ({} bytes): ", s.json.len());
        }
        buf.extend_from_slice(json);
        buf.push(b'\n');
        for (i, l) in s.labels.iter().enumerate() {
            let f = l.flags;
            let mut kind = match f & !(label_type::COMPOUND | label_type::OPTIONAL) {
                label_type::CONTEXT => "context",
                label_type::DOMAIN => "domain",
                label_type::INDOM => "indom",
                label_type::CLUSTER => "cluster",
                label_type::ITEM => "pmid",
                label_type::INSTANCES => "instances",
                _ => "?",
            }
            .to_string();
            if f & label_type::COMPOUND != 0 {
                kind.push_str(",compound");
            }
            if f & label_type::OPTIONAL != 0 {
                kind.push_str(",optional");
            }
            let _ = writeln!(
                buf,
                "        [{i}] name({},{}) : value({},{}) [{kind}]",
                l.name, l.namelen, l.value, l.valuelen
            );
        }
    }
}
