//! The command-line handling PCP's tools share (`pmGetOptions` and
//! friends): the standard options (`-a`, `-h`, `-L`, `-K`, `-n`, `-N`,
//! `-A`, `-S`, `-T`, `-O`, `-s`, `-t`, `-z`, `-Z`, `-D`, `-V`, `-?`, `-g`,
//! `-p`, `-H`, and the long-only `--archive-list`, `--archive-folio`,
//! `--host-list`, `--container`, `--derived`), the `PCP_*` environment
//! variables that preset them, libpcp's own `getopt_long` (`pmgetopt_r`:
//! its argument permutation and messages), the usage message built from
//! the option table, and the final step that needs a context
//! (`pmGetContextOptions`): the reporting time zone, its "Note:" line, and
//! the time window.
//!
//! Messages go where libpcp's `pmprintf` puts them: into a buffer
//! ([`Options::messages`]) that [`Options::flush`] writes to standard
//! error, usually after [`Options::usage_message`].
//!
//! A tool describes itself with a [`ToolSpec`] (its short option string,
//! its long option table, its usage line, which letters it claims for
//! itself), then either drives a [`Parser`] as C tools drive
//! `pmGetOptions` (handling its own options as they come, so its messages
//! fall in order), or calls [`parse`] to get its own options as a list.
//! Side effects libpcp performs while parsing (loading a name space,
//! derived metrics, reading host and folio files) go through [`Hooks`].

pub mod getopt;
pub mod hooks;
pub mod tools;

pub use hooks::ContextHooks;

use getopt::{GetOpt, Got};

use pcp::timeparse::{self, SpecError, Window, WindowSpec, PM_MAX_TIME_T};
use pcp::timezone::Zone;
use pcp_core::Timestamp;
use std::io::{self, Write};

/// libpcp's version, as `-V` reports it.
pub const PCP_VERSION: &str = "6.0.3";

/// The standard short options (`PMAPI_OPTIONS`), to which a tool appends
/// its own.
pub const PMAPI_OPTIONS: &str = "A:a:D:gh:n:O:p:S:s:T:t:VZ:z?";

/// One entry of a tool's long option table (`pmLongOptions`): an option,
/// a section header, or a line of text for the usage message.
#[doc(alias = "pmLongOptions")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LongOpt {
    /// The long name without `--`; empty for a short-only option or a
    /// header.
    pub long: &'static str,
    /// Does it take an argument?
    pub has_arg: bool,
    /// Its short letter (0 for none); `-` marks a section header and `|`
    /// a line of text.
    pub short: u8,
    /// The argument's name in the usage message.
    pub argname: Option<&'static str>,
    /// Its line in the usage message (`None`: not shown).
    pub message: Option<&'static str>,
}

impl LongOpt {
    /// An option.
    pub const fn new(
        long: &'static str,
        has_arg: bool,
        short: u8,
        argname: Option<&'static str>,
        message: &'static str,
    ) -> LongOpt {
        LongOpt { long, has_arg, short, argname, message: Some(message) }
    }

    /// A section header (`PMAPI_OPTIONS_HEADER`).
    #[doc(alias = "PMAPI_OPTIONS_HEADER")]
    pub const fn header(title: &'static str) -> LongOpt {
        LongOpt { long: "", has_arg: false, short: b'-', argname: None, message: Some(title) }
    }

    /// A line of text (`PMAPI_OPTIONS_TEXT`).
    #[doc(alias = "PMAPI_OPTIONS_TEXT")]
    pub const fn text(line: &'static str) -> LongOpt {
        LongOpt { long: "", has_arg: false, short: b'|', argname: None, message: Some(line) }
    }
}

/// The standard entries of `pmapi.h` (`PMOPT_*`).
pub mod std_opts {
    use super::LongOpt;

    const fn opt(
        long: &'static str,
        has_arg: bool,
        short: u8,
        arg: Option<&'static str>,
        msg: &'static str,
    ) -> LongOpt {
        LongOpt::new(long, has_arg, short, arg, msg)
    }

    /// `-A`, `--align`.
    pub const ALIGN: LongOpt = opt("align", true, b'A', Some("TIME"), "align sample times on natural boundaries");
    /// `-a`, `--archive`.
    pub const ARCHIVE: LongOpt = opt("archive", true, b'a', Some("FILE"), "metrics source is a PCP log archive");
    /// `-D`, `--debug` (not shown in usage messages).
    pub const DEBUG: LongOpt =
        LongOpt { long: "debug", has_arg: true, short: b'D', argname: Some("DBG"), message: None };
    /// `-g`, `--guimode`.
    pub const GUIMODE: LongOpt = opt("guimode", false, b'g', None, "start in GUI mode with new time control");
    /// `-h`, `--host`.
    pub const HOST: LongOpt = opt("host", true, b'h', Some("HOST"), "metrics source is PMCD on host");
    /// `-H`, `--hostsfile`.
    pub const HOSTSFILE: LongOpt = opt("hostsfile", true, b'H', Some("FILE"), "read metric source hosts from a file");
    /// `-K`, `--spec-local`.
    pub const SPECLOCAL: LongOpt =
        opt("spec-local", true, b'K', Some("SPEC"), "optional additional PMDA spec for local connection");
    /// `-L`, `--local-PMDA`.
    pub const LOCALPMDA: LongOpt = opt("local-PMDA", false, b'L', None, "metrics source is local connection to a PMDA");
    /// `-n`, `--namespace`.
    pub const NAMESPACE: LongOpt = opt("namespace", true, b'n', Some("FILE"), "use an alternative PMNS");
    /// `-N`, `--uniqnames`.
    pub const UNIQNAMES: LongOpt =
        opt("uniqnames", true, b'N', Some("FILE"), "like -n but only one name allowed for each PMID");
    /// `-O`, `--origin`.
    pub const ORIGIN: LongOpt = opt("origin", true, b'O', Some("TIME"), "initial sample time within the time window");
    /// `-p`, `--guiport`.
    pub const GUIPORT: LongOpt = opt("guiport", true, b'p', Some("N"), "port for connection to existing time control");
    /// `-S`, `--start`.
    pub const START: LongOpt = opt("start", true, b'S', Some("TIME"), "start of the time window");
    /// `-s`, `--samples`.
    pub const SAMPLES: LongOpt = opt("samples", true, b's', Some("N"), "terminate after this many samples");
    /// `-T`, `--finish`.
    pub const FINISH: LongOpt = opt("finish", true, b'T', Some("TIME"), "end of the time window");
    /// `-t`, `--interval`.
    pub const INTERVAL: LongOpt = opt("interval", true, b't', Some("DELTA"), "sampling interval");
    /// `-V`, `--version`.
    pub const VERSION: LongOpt = opt("version", false, b'V', None, "display version number and exit");
    /// `-Z`, `--timezone`.
    pub const TIMEZONE: LongOpt = opt("timezone", true, b'Z', Some("TZ"), "set reporting timezone");
    /// `-z`, `--hostzone`.
    pub const HOSTZONE: LongOpt =
        opt("hostzone", false, b'z', None, "set reporting timezone to local time of metrics source");
    /// `-?`, `--help`.
    pub const HELP: LongOpt = opt("help", false, b'?', None, "show this usage message and exit");
    /// `--archive-list`.
    pub const ARCHIVE_LIST: LongOpt =
        opt("archive-list", true, 0, Some("FILES"), "comma-separated list of metric source archives");
    /// `--archive-folio`.
    pub const ARCHIVE_FOLIO: LongOpt =
        opt("archive-folio", true, 0, Some("FILE"), "read metric source archives from a folio");
    /// `--host-list`.
    pub const HOST_LIST: LongOpt =
        opt("host-list", true, 0, Some("HOSTS"), "comma-separated list of metric source hosts");
    /// `--container`.
    pub const CONTAINER: LongOpt =
        opt("container", true, 0, Some("NAME"), "specify an individual container to be queried");
    /// `--derived`.
    pub const DERIVED: LongOpt = opt("derived", true, 0, Some("FILE"), "load derived metric definitions from FILE(s)");

    /// `PMAPI_GENERAL_OPTIONS`: a "General options" header and the options
    /// of [`super::PMAPI_OPTIONS`].
    #[doc(alias = "PMAPI_GENERAL_OPTIONS")]
    pub const GENERAL: [LongOpt; 17] = [
        LongOpt::header("General options"),
        ALIGN,
        ARCHIVE,
        DEBUG,
        GUIMODE,
        HOST,
        NAMESPACE,
        ORIGIN,
        GUIPORT,
        START,
        SAMPLES,
        FINISH,
        INTERVAL,
        TIMEZONE,
        HOSTZONE,
        VERSION,
        HELP,
    ];
}

/// Which `pmOptions` a tool was built with: it decides whether `-t` is read
/// to microseconds or nanoseconds, and which message names the parser.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ApiVersion {
    /// `PMAPI_VERSION_2` (`timeval`): libpcp's default.
    #[default]
    V2,
    /// `PMAPI_VERSION_3` (`timespec`).
    V3,
}

/// The `PM_OPTFLAG_*` settings a tool starts with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ToolFlags {
    /// `PM_OPTFLAG_DONE`: the tool ends option processing itself (it calls
    /// [`Options::end_options`] once it knows its metrics source).
    pub deferred_end: bool,
    /// `PM_OPTFLAG_MULTI`: one context per archive or host.
    pub multi: bool,
    /// `PM_OPTFLAG_MIXED`: hosts and archives together.
    pub mixed: bool,
    /// `PM_OPTFLAG_BOUNDARIES`: always compute the time window.
    pub boundaries: bool,
    /// `PM_OPTFLAG_STDOUT_TZ`: say so on standard output when the time
    /// zone changes.
    pub stdout_tz: bool,
    /// `PM_OPTFLAG_POSIX`: stop at the first operand.
    pub posix: bool,
    /// `PM_OPTFLAG_LONG_ONLY`: `-name` may be a long option.
    pub long_only: bool,
    /// `PM_OPTFLAG_QUIET`: no getopt messages.
    pub quiet: bool,
}

impl ToolFlags {
    /// No flag set.
    pub const NONE: ToolFlags = ToolFlags {
        deferred_end: false,
        multi: false,
        mixed: false,
        boundaries: false,
        stdout_tz: false,
        posix: false,
        long_only: false,
        quiet: false,
    };
}

/// How a tool parses its command line (the static part of `pmOptions`).
#[derive(Clone, Copy, Debug)]
pub struct ToolSpec {
    /// The short options, e.g. `PMAPI_OPTIONS` followed by the tool's.
    pub short_options: &'static str,
    /// The long option table, headers included, in usage-message order.
    pub long_options: &'static [LongOpt],
    /// What follows `Usage: PROG` (`None`: `[options]`).
    pub short_usage: Option<&'static str>,
    /// `pmOptions.version`.
    pub version: ApiVersion,
    /// `pmOptions.flags`.
    pub flags: ToolFlags,
    /// Letters the tool takes for itself even where they are standard (what
    /// its `override` callback claims).
    pub overrides: &'static [u8],
}

/// The kind of metrics source (`PM_CONTEXT_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContextKind {
    /// An archive (`PM_CONTEXT_ARCHIVE`).
    Archive,
    /// pmcd on a host (`PM_CONTEXT_HOST`).
    Host,
    /// The local machine's PMDAs (`PM_CONTEXT_LOCAL`).
    Local,
}

/// One of the tool's own options, as `pmGetOptions` hands it back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolOpt {
    /// The letter (the long option's `short` entry when given by its long
    /// name; 0 for a long-only option).
    pub opt: u8,
    /// The long option's name, when given by it.
    pub long: Option<&'static str>,
    /// Its argument.
    pub arg: Option<Vec<u8>>,
}

/// What libpcp does as a side effect of some options; the defaults do
/// nothing (or read files from disk).
pub trait Hooks {
    /// `-n`/`-N` (`pmLoadASCIINameSpace`): load the name space `path`;
    /// `Err` carries `pmErrStr`'s text.
    fn load_namespace(&mut self, _path: &[u8], _dupok: bool) -> Result<(), String> {
        Ok(())
    }
    /// What the last [`Hooks::load_namespace`] wrote to standard error, in
    /// two parts: what went there at once (pmcpp's messages, say), then
    /// what libpcp `pmprintf`ed and flushed with `pmflush` (so every
    /// message still pending goes out ahead of it). The default: nothing.
    fn take_output(&mut self) -> (Vec<u8>, Vec<u8>) {
        (Vec::new(), Vec::new())
    }
    /// `--derived` (`pmLoadDerivedConfig`); `Err` carries `pmErrStr`'s text.
    fn load_derived(&mut self, _path: &[u8]) -> Result<(), String> {
        Ok(())
    }
    /// `-K` (`pmSpecLocalPMDA`); `Err` carries its message.
    fn spec_local(&mut self, _spec: &[u8]) -> Result<(), String> {
        Ok(())
    }
    /// Read a file (`-H` hosts files, `--archive-folio` folios).
    fn read_file(&mut self, path: &[u8]) -> io::Result<Vec<u8>> {
        use std::os::unix::ffi::OsStrExt;
        std::fs::read(std::ffi::OsStr::from_bytes(path))
    }
    /// The archive libpcp assumes for `-O` with no source:
    /// `$PCP_ARCHIVE_DIR/HOSTNAME`.
    fn default_archive(&mut self) -> Vec<u8> {
        let dir = pcp::config::get("PCP_ARCHIVE_DIR").unwrap_or_else(|| "/var/log/pcp/pmlogger".to_string());
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim_end().to_string())
            .unwrap_or_else(|_| "localhost".to_string());
        format!("{dir}/{host}").into_bytes()
    }
}

/// [`Hooks`] with every default.
pub struct DefaultHooks;

impl Hooks for DefaultHooks {}

/// The settings the standard options and `PCP_*` variables make, the
/// tool's own options, operands, and the messages libpcp has for the
/// user (`pmOptions`).
#[doc(alias = "pmOptions")]
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The program name messages start with (`pmGetProgname`).
    pub prog: String,
    /// The `pmOptions` version (set to V2 at the end if the tool gave none).
    pub version: ApiVersion,
    /// How many errors were found.
    pub errors: u32,
    /// `PM_OPTFLAG_USAGE_ERR`: an error in the usage.
    pub usage_error: bool,
    /// `PM_OPTFLAG_RUNTIME_ERR`: an error that is not the user's syntax
    /// (a usage message would not help).
    pub runtime_error: bool,
    /// `PM_OPTFLAG_EXIT`: the tool should exit with status 0 (`-V`).
    pub exit: bool,
    /// The metrics source's kind, once known.
    pub context: Option<ContextKind>,
    /// `-a` archives: one comma-separated entry unless the tool takes
    /// several contexts.
    pub archives: Vec<Vec<u8>>,
    /// `-h` hosts.
    pub hosts: Vec<Vec<u8>>,
    /// `-L`: the local context.
    pub local: bool,
    /// A name space was loaded with `-n` or `-N`.
    pub namespace_loaded: bool,
    /// `-z`: report in the metrics source's time zone.
    pub hostzone: bool,
    /// `-Z TZ`.
    pub timezone: Option<Vec<u8>>,
    /// `-S`.
    pub start_arg: Option<Vec<u8>>,
    /// `-T`.
    pub finish_arg: Option<Vec<u8>>,
    /// `-A`.
    pub align_arg: Option<Vec<u8>>,
    /// `-O`.
    pub origin_arg: Option<Vec<u8>>,
    /// `-s` (0 if not given).
    pub samples: i32,
    /// The last `-s` argument on the command line (not `PCP_SAMPLES`):
    /// pmval tells `-s 0` from no `-s` with it.
    pub samples_arg: Option<Vec<u8>>,
    /// `-t` (zero if not given; microsecond resolution for V2 tools).
    pub interval: Timestamp,
    /// `-g`.
    pub guimode: bool,
    /// `-p` (0 if not a number).
    pub guiport: i32,
    /// The `-p` argument.
    pub guiport_arg: Option<Vec<u8>>,
    /// `-D` settings accepted, in order (`PCP_DEBUG` first).
    pub debug: Vec<Vec<u8>>,
    /// `--container`.
    pub container: Option<Vec<u8>>,
    /// The tool's own options, in order (filled by [`parse`]).
    pub tool_opts: Vec<ToolOpt>,
    /// The operands, in order, once the options are done.
    pub operands: Vec<Vec<u8>>,
    /// The `pmprintf` buffer: messages not yet written.
    pub messages: Vec<u8>,
    /// What libpcp has already written to standard error while the
    /// options were parsed: a name-space loader's messages, with the
    /// `pmprintf` messages its `pmflush` sent out ahead of its own (see
    /// [`Hooks::take_output`]). The tool writes it first.
    pub flushed: Vec<u8>,
    flags: ToolFlags,
    long_options: &'static [LongOpt],
    short_usage: Option<&'static str>,
    ended: bool,
}

/// `pmGetProgname`: `argv[0]` without its directories.
pub(crate) fn progname(arg0: &[u8]) -> String {
    let base = arg0.rsplit(|&b| b == b'/').next().unwrap_or_default();
    String::from_utf8_lossy(base).into_owned()
}

/// `strtol(s, &end, 10)` as an `int` the way the C tools keep it, and
/// whether the whole string was a number (`*end == '\0'`).
pub fn strtol_int(s: &[u8]) -> (i32, bool) {
    let (v, used) = pcp_core::strtod::strtol_prefix(s);
    (v as i32, used == s.len())
}

/// `pmSetDebug`'s option names (the fields of `pmdebugoptions_t` in
/// PCP 6.0.3's `pmapi.h`, in order).
const DEBUG_NAMES: [&str; 53] = [
    "pdu",
    "fetch",
    "profile",
    "value",
    "context",
    "indom",
    "pdubuf",
    "log",
    "logmeta",
    "optfetch",
    "af",
    "appl0",
    "appl1",
    "appl2",
    "pmns",
    "libpmda",
    "timecontrol",
    "pmc",
    "derive",
    "lock",
    "interp",
    "config",
    "pmapi",
    "fault",
    "auth",
    "discovery",
    "attr",
    "http",
    "desperate",
    "deprecated",
    "exec",
    "labels",
    "series",
    "libweb",
    "alloc",
    "services",
    "appl3",
    "appl4",
    "appl5",
    "access",
    "qa",
    "search",
    "query",
    "compress",
    "dev0",
    "dev1",
    "dev2",
    "pmlc",
    "appl6",
    "appl7",
    "appl8",
    "appl9",
    "tls",
];

/// `pmSetDebug`'s syntax check: comma-separated option names, `all`, or
/// numbers (old-style bit masks).
#[doc(alias = "pmSetDebug")]
pub fn valid_debug_spec(spec: &[u8]) -> bool {
    let mut rest = spec;
    while !rest.is_empty() {
        // strtol first: white space, a sign, digits
        let ws = rest.iter().take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')).count();
        let sign = usize::from(matches!(rest.get(ws), Some(b'-' | b'+')));
        let digits = rest[ws + sign..].iter().take_while(|b| b.is_ascii_digit()).count();
        if digits > 0 {
            // a number ends at a comma or at the end
            match rest.get(ws + sign + digits) {
                None => return true,
                Some(b',') => {
                    rest = &rest[ws + sign + digits + 1..];
                    continue;
                }
                Some(_) => return false,
            }
        }
        let end = rest.iter().position(|&b| b == b',').unwrap_or(rest.len());
        let item = &rest[..end];
        let known =
            item.eq_ignore_ascii_case(b"all") || DEBUG_NAMES.iter().any(|n| n.as_bytes().eq_ignore_ascii_case(item));
        if !known {
            return false;
        }
        rest = rest.get(end + 1..).unwrap_or_default();
    }
    true
}

impl Options {
    fn msg(&mut self, text: &str) {
        self.messages.extend_from_slice(text.as_bytes());
    }

    fn msg_bytes(&mut self, parts: &[&[u8]]) {
        for p in parts {
            self.messages.extend_from_slice(p);
        }
    }

    fn complain(&mut self, parts: &[&[u8]]) {
        self.msg_bytes(parts);
        self.errors += 1;
    }

    fn error(&mut self, text: &str) {
        self.msg(text);
        self.errors += 1;
    }

    fn set_debug(&mut self, arg: &[u8]) {
        if valid_debug_spec(arg) {
            self.debug.push(arg.to_vec());
        } else {
            let p = self.prog.clone();
            self.msg_bytes(&[p.as_bytes(), b": unrecognized debug options specification (", arg, b")\n"]);
            self.errors += 1;
        }
    }

    fn set_guimode(&mut self) {
        if self.guiport_arg.is_some() {
            let m = format!("{}: at most one of -g and -p allowed\n", self.prog);
            self.error(&m);
        } else {
            self.guimode = true;
        }
    }

    fn set_guiport(&mut self, arg: &[u8]) {
        if self.guimode {
            let m = format!("{}: at most one of -g and -p allowed\n", self.prog);
            self.error(&m);
        } else {
            self.guiport_arg = Some(arg.to_vec());
            let (n, whole) = strtol_int(arg);
            self.guiport = if !whole || n < 0 { 0 } else { n };
        }
    }

    /// Add an archive: a separate entry with several contexts, else one
    /// comma-separated list without duplicates.
    fn add_archive_name(&mut self, arg: &[u8]) {
        if self.flags.multi {
            if !self.archives.iter().any(|a| a == arg) {
                self.archives.push(arg.to_vec());
            }
            return;
        }
        let Some(list) = self.archives.first_mut() else {
            self.archives.push(arg.to_vec());
            return;
        };
        add_to_archive_list(list, arg);
    }

    /// The archive named, when exactly one is and no host.
    pub fn sole_archive(&self) -> Option<&[u8]> {
        match (&self.archives[..], &self.hosts[..]) {
            ([name], []) => Some(name),
            _ => None,
        }
    }

    /// `__pmAddOptArchive`: `-a`.
    #[doc(alias = "__pmAddOptArchive")]
    pub fn add_archive(&mut self, arg: &[u8]) {
        if !self.hosts.is_empty() && !self.flags.mixed {
            let m = format!("{}: only one host or archive allowed\n", self.prog);
            self.error(&m);
        } else {
            self.add_archive_name(arg);
        }
    }

    fn add_archive_list(&mut self, arg: &[u8]) {
        if !self.hosts.is_empty() && !self.flags.mixed {
            let m = format!("{}: only one of hosts or archives allowed\n", self.prog);
            self.error(&m);
            return;
        }
        if !self.flags.multi {
            self.add_archive(arg);
            return;
        }
        for name in arg.split(|&b| b == b',').filter(|n| !n.is_empty()) {
            self.add_archive(name);
        }
    }

    fn add_archive_folio(&mut self, arg: &[u8], hooks: &mut dyn Hooks) {
        // libpcp's dirname() cuts the name in place: later messages show
        // what is left
        let mut shown = arg.to_vec();
        if !self.hosts.is_empty() && !self.flags.mixed {
            let m = format!("{}: only one of hosts or archives allowed\n", self.prog);
            self.error(&m);
        } else {
            match read_or_empty(hooks, arg) {
                Err(e) => {
                    let p = self.prog.clone();
                    let e = io_err_text(&e);
                    self.complain(&[p.as_bytes(), b": cannot open archive folio ", arg, b": ", e.as_bytes(), b"\n"]);
                    self.runtime_error = true;
                }
                Ok(text) => {
                    if let Err(m) = self.read_folio(&text, arg, &mut shown) {
                        self.complain(&[&m]);
                        self.runtime_error = true;
                    }
                }
            }
        }
        if self.archives.len() > 1 && !self.flags.multi {
            let p = self.prog.clone();
            self.complain(&[p.as_bytes(), b": too many archives requested: ", &shown, b"\n"]);
        }
    }

    /// The archives of a folio: a `PCPFolio` / `Version: 1` header, then
    /// `Archive: HOST PATH` lines (paths relative to the folio's
    /// directory).
    fn read_folio(&mut self, text: &[u8], folio: &[u8], shown: &mut Vec<u8>) -> Result<(), Vec<u8>> {
        let about = |what: &str| [self.prog.as_bytes(), b": archive folio ", folio, what.as_bytes(), b"\n"].concat();
        let mut lines = text.split_inclusive(|&b| b == b'\n');
        let header = lines.next().ok_or_else(|| about(" has no header"))?;
        if !header.starts_with(b"PCPFolio") {
            return Err(about(" has bad magic"));
        }
        let version = lines.next().ok_or_else(|| about(" has no version"))?;
        if !version.starts_with(b"Version: 1") {
            return Err([self.prog.as_bytes(), b": unknown version archive folio ", folio, b"\n"].concat());
        }
        let dir = match dirname(folio) {
            Some(d) => {
                shown.clone_from(&d);
                d
            }
            None => b".".to_vec(),
        };
        let is_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
        for (n, line) in lines.enumerate() {
            let line_no = n + 3;
            if !line.starts_with(b"Archive:") {
                continue;
            }
            // the keyword, blanks, the host, blanks, the path
            let skip_blanks = |p: usize| p + line[p..].iter().take_while(|b| is_space(b) && **b != b'\n').count();
            let skip_word = |p: usize| p + line[p..].iter().take_while(|b| !is_space(b)).count();
            let mut p = skip_blanks(skip_word(0));
            if line.get(p) == Some(&b'\n') {
                return Err(format!("{}: missing host on archive folio line {line_no}\n", self.prog).into_bytes());
            }
            p = skip_blanks(skip_word(p));
            if line.get(p) == Some(&b'\n') {
                return Err(format!("{}: missing path on archive folio line {line_no}\n", self.prog).into_bytes());
            }
            let path = &line[p..skip_word(p)];
            if path.starts_with(b"/") {
                self.add_archive(path);
            } else {
                let mut full = dir.clone();
                full.push(b'/');
                full.extend_from_slice(path);
                self.add_archive(&full);
            }
        }
        Ok(())
    }

    /// `__pmAddOptHost`: `-h`.
    #[doc(alias = "__pmAddOptHost")]
    pub fn add_host(&mut self, arg: &[u8]) {
        if !self.hosts.is_empty() && !self.flags.multi {
            let p = self.prog.clone();
            self.complain(&[p.as_bytes(), b": too many hosts requested: ", arg, b"\n"]);
        } else if !self.archives.is_empty() && !self.flags.mixed {
            let m = format!("{}: only one host or archive allowed\n", self.prog);
            self.error(&m);
        } else {
            self.hosts.push(arg.to_vec());
        }
    }

    fn add_host_list(&mut self, arg: &[u8]) {
        if !self.archives.is_empty() && !self.flags.mixed {
            let m = format!("{}: only one of hosts or archives allowed\n", self.prog);
            self.error(&m);
        } else {
            for name in arg.split(|&b| b == b',').filter(|n| !n.is_empty()) {
                self.hosts.push(name.to_vec());
            }
        }
        if self.hosts.len() > 1 && !self.flags.multi {
            let p = self.prog.clone();
            self.complain(&[p.as_bytes(), b": too many hosts requested: ", arg, b"\n"]);
        }
    }

    fn add_host_file(&mut self, arg: &[u8], hooks: &mut dyn Hooks) {
        if !self.archives.is_empty() && !self.flags.mixed {
            let m = format!("{}: only one of hosts or archives allowed\n", self.prog);
            self.error(&m);
            return;
        }
        let text = match read_or_empty(hooks, arg) {
            Ok(t) => t,
            Err(e) => {
                let p = self.prog.clone();
                let e = io_err_text(&e);
                self.complain(&[p.as_bytes(), b": cannot open hosts file ", arg, b": ", e.as_bytes(), b"\n"]);
                self.runtime_error = true;
                return;
            }
        };
        let is_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
        for line in text.split_inclusive(|&b| b == b'\n') {
            let start = line.iter().take_while(|b| is_space(b) && **b != b'\n').count();
            let rest = &line[start..];
            if matches!(rest.first(), Some(b'\n' | b'#')) {
                continue;
            }
            if !self.hosts.is_empty() && !self.flags.multi {
                let p = self.prog.clone();
                self.complain(&[p.as_bytes(), b": too many hosts requested: ", arg, b"\n"]);
                break;
            }
            let len = rest.iter().take_while(|b| **b != b'#' && !is_space(b)).count();
            self.hosts.push(rest[..len].to_vec());
        }
    }

    fn set_local(&mut self) {
        if self.context.is_some() && !self.flags.multi {
            let m = format!("{}: at most one of -a, -h and -L allowed\n", self.prog);
            self.error(&m);
        } else {
            self.local = true;
        }
    }

    fn set_namespace(&mut self, arg: &[u8], dupok: bool, hooks: &mut dyn Hooks) {
        let loaded = hooks.load_namespace(arg, dupok);
        let (direct, flushed) = hooks.take_output();
        self.flushed.extend_from_slice(&direct);
        if !flushed.is_empty() {
            self.flushed.append(&mut self.messages);
            self.flushed.extend_from_slice(&flushed);
        }
        match loaded {
            Ok(()) => self.namespace_loaded = true,
            Err(e) => {
                let p = self.prog.clone();
                self.msg_bytes(&[p.as_bytes(), b": Cannot load namespace from \"", arg, b"\": ", e.as_bytes(), b"\n"]);
                self.errors += 1;
                self.runtime_error = true;
            }
        }
    }

    fn set_samples(&mut self, arg: &[u8]) {
        let (n, whole) = strtol_int(arg);
        self.samples = n;
        if !whole || n < 0 {
            let m = format!("{}: -s requires a positive numeric argument\n", self.prog);
            self.error(&m);
        }
    }

    fn set_interval(&mut self, arg: &[u8]) {
        let (parsed, name) = match self.version {
            ApiVersion::V3 => (timeparse::parse_high_res_interval(arg), "pmParseHighResInterval"),
            ApiVersion::V2 => (timeparse::parse_interval(arg), "pmParseInterval"),
        };
        match parsed {
            Ok(t) => self.interval = t,
            Err(e) => {
                let m = format!("{}: -t argument not in {name}(3) format:\n", self.prog);
                self.msg(&m);
                self.msg_bytes(&[e.as_bytes(), b"\n"]);
                self.errors += 1;
            }
        }
    }

    fn set_timezone(&mut self, arg: &[u8]) {
        if self.hostzone {
            let m = format!("{}: at most one of -Z and -z allowed\n", self.prog);
            self.error(&m);
        } else {
            self.timezone = Some(arg.to_vec());
        }
    }

    fn set_hostzone(&mut self) {
        if self.timezone.is_some() {
            let m = format!("{}: at most one of -Z and -z allowed\n", self.prog);
            self.error(&m);
        } else {
            self.hostzone = true;
        }
    }

    fn set_version(&mut self) {
        self.exit = true;
        let m = format!("{} version {PCP_VERSION}\n", self.prog);
        self.msg(&m);
    }

    /// A standard option given by its long name (`__pmGetLongOptions`);
    /// `false` if the name is not a standard one.
    fn long_option(&mut self, name: &str, arg: &[u8], hooks: &mut dyn Hooks) -> bool {
        match name {
            "align" => self.align_arg = Some(arg.to_vec()),
            "archive" => self.add_archive(arg),
            "archive-list" => self.add_archive_list(arg),
            "archive-folio" => self.add_archive_folio(arg, hooks),
            "container" => self.container = Some(arg.to_vec()),
            "debug" => self.set_debug(arg),
            "derived" => {
                // libpcp pmflushes each of loading's reports (with all
                // that is waiting)
                let loaded = hooks.load_derived(arg);
                let (report, _) = hooks.take_output();
                if !report.is_empty() {
                    self.flushed.append(&mut self.messages);
                    self.flushed.extend_from_slice(&report);
                }
                if let Err(e) = loaded {
                    let m = format!("{}: pmLoadDerivedConfig failed: {e}\n", self.prog);
                    self.error(&m);
                }
            }
            "guimode" => self.set_guimode(),
            "host" => self.add_host(arg),
            "hostsfile" => self.add_host_file(arg, hooks),
            "spec-local" => self.spec_local(arg, hooks),
            "local-PMDA" => self.set_local(),
            "namespace" => self.set_namespace(arg, true, hooks),
            "uniqnames" => self.set_namespace(arg, false, hooks),
            "guiport" => self.set_guiport(arg),
            "host-list" => self.add_host_list(arg),
            "interval" => self.set_interval(arg),
            "origin" => self.origin_arg = Some(arg.to_vec()),
            "samples" => {
                self.samples_arg = Some(arg.to_vec());
                self.set_samples(arg);
            }
            "start" => self.start_arg = Some(arg.to_vec()),
            "finish" => self.finish_arg = Some(arg.to_vec()),
            "timezone" => self.set_timezone(arg),
            "hostzone" => self.set_hostzone(),
            "version" => self.set_version(),
            _ => return false,
        }
        true
    }

    fn spec_local(&mut self, arg: &[u8], hooks: &mut dyn Hooks) {
        if let Err(e) = hooks.spec_local(arg) {
            let m = format!("{}: pmSpecLocalPMDA failed: {e}\n", self.prog);
            self.error(&m);
        }
    }

    /// A standard short option (`pmGetOptions`' switch); `false` if `c`
    /// is not one.
    fn short_option(&mut self, c: u8, arg: &[u8], hooks: &mut dyn Hooks) -> bool {
        match c {
            b'A' => self.align_arg = Some(arg.to_vec()),
            b'a' => self.add_archive(arg),
            b'D' => self.set_debug(arg),
            b'g' => self.set_guimode(),
            b'H' => self.add_host_file(arg, hooks),
            b'h' => self.add_host(arg),
            b'K' => self.spec_local(arg, hooks),
            b'L' => self.set_local(),
            b'N' => self.set_namespace(arg, false, hooks),
            b'n' => self.set_namespace(arg, true, hooks),
            b'O' => self.origin_arg = Some(arg.to_vec()),
            b'p' => self.set_guiport(arg),
            b'S' => self.start_arg = Some(arg.to_vec()),
            b's' => {
                self.samples_arg = Some(arg.to_vec());
                self.set_samples(arg);
            }
            b'T' => self.finish_arg = Some(arg.to_vec()),
            b't' => self.set_interval(arg),
            b'V' => self.set_version(),
            b'Z' => self.set_timezone(arg),
            b'z' => self.set_hostzone(),
            b'?' => self.errors += 1,
            _ => return false,
        }
        true
    }

    /// `__pmStartOptions`: the `PCP_*` variables of the environment
    /// (`PCP_DEBUG` first, then the rest in environment order).
    fn start_options(&mut self, env: &[(Vec<u8>, Vec<u8>)], hooks: &mut dyn Hooks) {
        if let Some((_, v)) = env.iter().find(|(k, _)| k == b"PCP_DEBUG") {
            self.set_debug(v);
        }
        for (k, v) in env {
            let Some(name) = k.strip_prefix(b"PCP_") else { continue };
            match name {
                b"ALIGN_TIME" => self.align_arg = Some(v.clone()),
                b"ARCHIVE" => self.add_archive(v),
                b"ARCHIVE_LIST" => self.add_archive_list(v),
                b"FOLIO" => self.add_archive_folio(v, hooks),
                b"GUIMODE" => self.set_guimode(),
                b"HOST" => self.add_host(v),
                b"HOST_LIST" => self.add_host_list(v),
                b"SPECLOCAL" => self.spec_local(v, hooks),
                b"LOCALMODE" | b"LOCALPMDA" => self.set_local(),
                b"NAMESPACE" => self.set_namespace(v, true, hooks),
                b"UNIQNAMES" => self.set_namespace(v, false, hooks),
                b"ORIGIN" | b"ORIGIN_TIME" => self.origin_arg = Some(v.clone()),
                b"GUIPORT" => self.set_guiport(v),
                b"START_TIME" => self.start_arg = Some(v.clone()),
                b"SAMPLES" => self.set_samples(v),
                b"FINISH_TIME" => self.finish_arg = Some(v.clone()),
                b"INTERVAL" => self.set_interval(v),
                b"TIMEZONE" => self.set_timezone(v),
                b"HOSTZONE" => self.set_hostzone(),
                _ => {}
            }
        }
    }

    /// `__pmEndOptions`: settle the metrics source's kind and check what
    /// needs one. Tools with [`ToolFlags::deferred_end`] call this once
    /// they have added any source taken from their operands; for the
    /// others [`Parser`] calls it at the end of the options. Running it
    /// twice does nothing.
    #[doc(alias = "__pmEndOptions")]
    pub fn end_options(&mut self, hooks: &mut dyn Hooks) {
        if self.ended {
            return;
        }
        if self.context.is_none() {
            if self.local {
                self.context = Some(ContextKind::Local);
            } else if !self.hosts.is_empty() && self.archives.is_empty() {
                self.context = Some(ContextKind::Host);
            } else if !self.archives.is_empty() && self.hosts.is_empty() {
                self.context = Some(ContextKind::Archive);
            } else if self.origin_arg.is_some() {
                self.context = Some(ContextKind::Archive);
                let dir = hooks.default_archive();
                self.add_archive_name(&dir);
            }
        }
        let window = self.start_arg.is_some() || self.align_arg.is_some() || self.origin_arg.is_some();
        if window && self.context != Some(ContextKind::Archive) {
            let m = format!("{}: time window options are supported for archives only\n", self.prog);
            self.error(&m);
        }
        if self.hostzone && !matches!(self.context, Some(ContextKind::Archive | ContextKind::Host)) {
            let m = format!("{}: use of timezone from metric source requires a source\n", self.prog);
            self.error(&m);
        }
        if self.errors > 0 && !self.runtime_error {
            self.usage_error = true;
        }
        self.ended = true;
    }

    /// `pmUsageMessage`: append the usage message to the messages (unless
    /// there was a runtime error or `-V`), then write them all to `err`.
    #[doc(alias = "pmUsageMessage")]
    pub fn usage_message(&mut self, err: &mut dyn Write) -> io::Result<()> {
        if !self.runtime_error && !self.exit {
            let text = usage_text(&self.prog, self.short_usage, self.long_options);
            self.msg(&text);
        }
        self.flush(err)
    }

    /// `pmflush`: write the messages to `err` and forget them.
    #[doc(alias = "pmflush")]
    pub fn flush(&mut self, err: &mut dyn Write) -> io::Result<()> {
        let text = std::mem::take(&mut self.messages);
        err.write_all(&text)
    }

    /// Append a message of the tool's own (`pmprintf`).
    #[doc(alias = "pmprintf")]
    pub fn printf(&mut self, text: &[u8]) {
        self.messages.extend_from_slice(text);
    }

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
}

/// What [`Options::context_options`] settles.
#[derive(Clone, Debug)]
pub struct ContextSettings {
    /// The zone to report times in.
    pub zone: Zone,
    /// The time window, when one was asked for.
    pub window: Option<Window>,
}

/// The text of an I/O error as `strerror` gives it.
fn io_err_text(e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(n) => pcp_core::err_str(-n).into_owned(),
        None => e.to_string(),
    }
}

/// What glibc's `dirname(3)` leaves of `path`: `None` when it has no
/// slash (dirname then answers "." and leaves it alone), else the
/// directory, which is also what remains of `path` (it is cut in place).
fn dirname(path: &[u8]) -> Option<Vec<u8>> {
    let mut last = path.iter().rposition(|&b| b == b'/')?;
    if last != 0 && last + 1 == path.len() {
        // trailing slashes: look before them
        let run = path[..last].iter().rposition(|&b| b != b'/').map_or(0, |i| i + 1);
        if run != 0 {
            last = path[..run].iter().rposition(|&b| b == b'/')?;
        }
    }
    let run = path[..last].iter().rposition(|&b| b != b'/').map_or(0, |i| i + 1);
    let end = if run == 0 {
        // the slash starts the string: "/", or "//" for exactly two
        if last == 1 {
            2
        } else {
            1
        }
    } else {
        run
    };
    Some(path[..end].to_vec())
}

/// A file's contents; a directory reads as empty (C's `fopen` opens one,
/// then finds nothing in it).
fn read_or_empty(hooks: &mut dyn Hooks, path: &[u8]) -> io::Result<Vec<u8>> {
    match hooks.read_file(path) {
        Err(e) if e.raw_os_error() == Some(21) => Ok(Vec::new()),
        other => other,
    }
}

/// libpcp's `addArchive` for tools with one context: add `arg` to the
/// comma-separated archive list `list`, unless it is there already
/// (libpcp looks only at the first occurrence of the name in the list).
pub fn add_to_archive_list(list: &mut Vec<u8>, arg: &[u8]) {
    if let Some(at) = find(list, arg) {
        let before_ok = at == 0 || list[at - 1] == b',';
        let after = list.get(at + arg.len());
        if before_ok && matches!(after, None | Some(b',')) {
            return;
        }
    }
    list.push(b',');
    list.extend_from_slice(arg);
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The usage message `pmUsageMessage` builds from a long option table.
pub fn usage_text(prog: &str, short_usage: Option<&str>, table: &[LongOpt]) -> String {
    let mut s = format!("Usage: {prog} {}\n", short_usage.unwrap_or("[options]"));
    for o in table {
        let Some(message) = o.message else { continue };
        match o.short {
            b'-' => {
                s.push_str(&format!("\n{message}:\n"));
                continue;
            }
            b'|' => {
                s.push_str(&format!("{message}\n"));
                continue;
            }
            _ => {}
        }
        let arg = o.argname.unwrap_or("?");
        let short = o.short as char;
        let head = match (o.long.is_empty(), o.short != 0, o.has_arg) {
            (false, true, true) => format!("  -{short} {arg}, --{}={arg}", o.long),
            (false, true, false) => format!("  -{short}, --{}", o.long),
            (false, false, true) => format!("  --{}={arg}", o.long),
            (false, false, false) => format!("  --{}", o.long),
            (true, _, true) => format!("  -{short} {arg}"),
            (true, _, false) => format!("  -{short}"),
        };
        if head.len() < 24 {
            s.push_str(&format!("{head}{:1$}{message}\n", "", 24 - head.len()));
        } else {
            s.push_str(&format!("{head}\n{:24}{message}\n", ""));
        }
    }
    s
}

/// `pmGetOptions` as an iterator: standard options are handled as they
/// come, the tool's own are handed back in order.
pub struct Parser<'h> {
    spec: ToolSpec,
    hooks: &'h mut dyn Hooks,
    /// The settings so far.
    pub opts: Options,
    getopt: GetOpt,
    done: bool,
}

impl<'h> Parser<'h> {
    /// Start parsing `args` (`args[0]` the program) for a tool described
    /// by `spec`, after the `PCP_*` settings of `env` (name and value
    /// pairs, in the environment's order). libpcp's own start-up complaint
    /// about a bad `$PCP_DEBUG` goes straight to `err`, as it does in C.
    pub fn new(
        args: &[Vec<u8>],
        spec: ToolSpec,
        env: &[(Vec<u8>, Vec<u8>)],
        hooks: &'h mut dyn Hooks,
        err: &mut dyn Write,
    ) -> Parser<'h> {
        if let Some((_, v)) = env.iter().find(|(k, _)| k == b"PCP_DEBUG") {
            if !valid_debug_spec(v) {
                let mut m = b"Error: $PCP_DEBUG=".to_vec();
                m.extend_from_slice(v);
                m.extend_from_slice(b" is not valid, ignored\n");
                let _ = err.write_all(&m);
            }
        }
        let prog = progname(args.first().map(Vec::as_slice).unwrap_or(b"pcp"));
        let mut opts = Options {
            prog,
            version: spec.version,
            flags: spec.flags,
            long_options: spec.long_options,
            short_usage: spec.short_usage,
            ..Options::default()
        };
        opts.start_options(env, hooks);
        let posixly_correct = env.iter().any(|(k, _)| k == b"POSIXLY_CORRECT");
        let getopt = GetOpt::new(args, &spec, &opts.prog, posixly_correct);
        Parser { spec, hooks, opts, getopt, done: false }
    }

    /// The next of the tool's own options; `None` once the options are
    /// done (the operands are then in [`Options::operands`], and
    /// [`Options::end_options`] has run unless the tool defers it).
    pub fn next_tool_opt(&mut self) -> Option<ToolOpt> {
        if self.done {
            return None;
        }
        loop {
            let (c, index, arg) = match self.getopt.next(&mut self.opts.messages) {
                Got::End => {
                    self.done = true;
                    self.opts.operands = self.getopt.remaining().to_vec();
                    if !self.spec.flags.deferred_end {
                        self.opts.end_options(self.hooks);
                    }
                    return None;
                }
                Got::Opt(c, index, arg) => (c, index, arg),
            };
            let long = index.and_then(|i| self.spec.long_options.get(i)).map(|o| o.long);
            if self.spec.overrides.contains(&c) {
                return Some(ToolOpt { opt: c, long, arg });
            }
            let a = arg.clone().unwrap_or_default();
            let handled = if c == 0 {
                long.is_some_and(|name| self.opts.long_option(name, &a, self.hooks))
            } else {
                self.opts.short_option(c, &a, self.hooks)
            };
            if !handled {
                return Some(ToolOpt { opt: c, long, arg });
            }
        }
    }

    /// The settings, once [`Parser::next_tool_opt`] has returned `None`.
    pub fn finish(self) -> Options {
        self.opts
    }
}

/// Parse a whole command line: the standard settings, with the tool's own
/// options collected in [`Options::tool_opts`]. (A tool whose own options
/// can produce messages should drive a [`Parser`] instead, so that its
/// messages fall among libpcp's in command-line order.)
#[doc(alias = "pmGetOptions")]
pub fn parse(
    args: &[Vec<u8>],
    spec: ToolSpec,
    env: &[(Vec<u8>, Vec<u8>)],
    hooks: &mut dyn Hooks,
    err: &mut dyn Write,
) -> Options {
    let mut p = Parser::new(args, spec, env, hooks, err);
    let mut own = Vec::new();
    while let Some(o) = p.next_tool_opt() {
        own.push(o);
    }
    let mut opts = p.finish();
    opts.tool_opts = own;
    opts
}

/// The process environment as [`Parser::new`] takes it.
pub fn process_env() -> Vec<(Vec<u8>, Vec<u8>)> {
    std::env::vars_os().map(|(k, v)| (k.as_encoded_bytes().to_vec(), v.as_encoded_bytes().to_vec())).collect()
}

/// The local time zone of a process whose environment is `env` (as
/// [`Parser::new`] takes it): its `$TZ` (UTC when empty, or when it names
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

/// C's `atoi`: [`strtol_int`]'s value, whatever follows the number.
pub fn atoi(s: &[u8]) -> i32 {
    strtol_int(s).0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtol_int_reads_what_pcp_accepts() {
        assert_eq!(strtol_int(b""), (0, true));
        assert_eq!(strtol_int(b" 12"), (12, true));
        assert_eq!(strtol_int(b"-3"), (-3, true));
        assert!(!strtol_int(b"12x").1);
        assert!(!strtol_int(b" ").1);
        assert!(!strtol_int(b"+").1);
    }

    fn args(a: &[&str]) -> Vec<Vec<u8>> {
        a.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    fn run(spec: ToolSpec, a: &[&str], env: &[(&str, &str)]) -> Options {
        let env: Vec<(Vec<u8>, Vec<u8>)> =
            env.iter().map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec())).collect();
        let mut err = Vec::new();
        parse(&args(a), spec, &env, &mut DefaultHooks, &mut err)
    }

    fn text(o: &Options) -> String {
        String::from_utf8_lossy(&o.messages).into_owned()
    }

    #[test]
    fn operands_are_gathered_after_the_options() {
        let o = run(tools::PMINFO, &["pminfo", "a", "-m", "b", "-b", "5", "c"], &[]);
        assert_eq!(o.operands, args(&["a", "b", "c"]));
        assert_eq!(o.tool_opts.len(), 2);
        assert_eq!(o.tool_opts[1].arg.as_deref(), Some(&b"5"[..]));
    }

    #[test]
    fn posixly_correct_stops_at_the_first_operand() {
        let o = run(tools::PMINFO, &["pminfo", "a", "-m"], &[("POSIXLY_CORRECT", "1")]);
        assert_eq!(o.operands, args(&["a", "-m"]));
        assert!(o.tool_opts.is_empty());
    }

    #[test]
    fn clusters_and_attached_arguments() {
        let o = run(tools::PMVAL, &["pmval", "-rvs3", "-t1m", "-Zx", "m"], &[]);
        assert_eq!(o.samples, 3);
        assert_eq!(o.interval, Timestamp { sec: 60, nsec: 0 });
        assert_eq!(o.timezone.as_deref(), Some(&b"x"[..]));
        let letters: Vec<u8> = o.tool_opts.iter().map(|t| t.opt).collect();
        assert_eq!(letters, b"rv");
    }

    #[test]
    fn long_options_by_prefix_and_long_only_ones() {
        let o = run(tools::PMPROBE, &["pmprobe", "--arch=A", "--cont", "c1", "--verbose"], &[]);
        assert_eq!(o.archives, args(&["A"]));
        assert_eq!(o.container.as_deref(), Some(&b"c1"[..]));
        assert_eq!(o.tool_opts[0], ToolOpt { opt: b'V', long: Some("verbose"), arg: None });
    }

    #[test]
    fn environment_presets() {
        let o = run(
            tools::PMVAL,
            &["pmval", "m"],
            &[("PCP_ARCHIVE", "a1"), ("PCP_START_TIME", "-1h"), ("PCP_INTERVAL", "2s"), ("PCP_HOSTZONE", "")],
        );
        assert_eq!(o.archives, args(&["a1"]));
        assert_eq!(o.start_arg.as_deref(), Some(&b"-1h"[..]));
        assert_eq!(o.interval.sec, 2);
        assert!(o.hostzone);
        assert_eq!(o.errors, 0, "{}", text(&o));
    }

    #[test]
    fn origin_alone_means_the_local_archives() {
        struct Here;
        impl Hooks for Here {
            fn default_archive(&mut self) -> Vec<u8> {
                b"/logs/here".to_vec()
            }
        }
        let mut err = Vec::new();
        let o = parse(&args(&["pminfo", "-O", "@10:00"]), tools::PMINFO, &[], &mut Here, &mut err);
        assert_eq!(o.context, Some(ContextKind::Archive));
        assert_eq!(o.archives, args(&["/logs/here"]));
    }

    #[test]
    fn hosts_files_and_folios_through_the_hooks() {
        struct Files;
        impl Hooks for Files {
            fn read_file(&mut self, path: &[u8]) -> io::Result<Vec<u8>> {
                match path {
                    b"hosts" => Ok(b"  # comment\n\nh1 trailing\n".to_vec()),
                    b"dir/folio" => Ok(b"PCPFolio\nVersion: 1\nArchive: host a1\nArchive:  host  /abs/a2\n".to_vec()),
                    b"dir/bad" => Ok(b"PCPFolio\nVersion: 1\nArchive:\n".to_vec()),
                    _ => Err(io::Error::from_raw_os_error(2)),
                }
            }
        }
        const LONG: [LongOpt; 1] = [std_opts::HOSTSFILE];
        let spec = ToolSpec {
            short_options: "H:",
            long_options: &LONG,
            flags: ToolFlags { multi: true, ..tools::PMVAL.flags },
            ..tools::PMVAL
        };
        let mut err = Vec::new();
        let o = parse(&args(&["pmval", "-H", "hosts", "m"]), spec, &[], &mut Files, &mut err);
        assert_eq!(o.hosts, args(&["h1"]));
        let env = [(b"PCP_FOLIO".to_vec(), b"dir/folio".to_vec())];
        let o = parse(&args(&["pmval", "m"]), spec, &env, &mut Files, &mut err);
        assert_eq!(o.archives, args(&["dir/a1", "/abs/a2"]));
        let env = [(b"PCP_FOLIO".to_vec(), b"dir/bad".to_vec())];
        let o = parse(&args(&["pmval", "m"]), spec, &env, &mut Files, &mut err);
        assert_eq!(text(&o), "pmval: missing host on archive folio line 3\n");
        assert!(o.runtime_error);
        let o = parse(&args(&["pmval", "-H", "nowhere", "m"]), spec, &[], &mut Files, &mut err);
        assert_eq!(text(&o), "pmval: cannot open hosts file nowhere: No such file or directory\n");
    }

    #[test]
    fn debug_specifications() {
        for good in ["pdu", "PDU,fetch", "all", "3", "-1", "5,", "tls,appl9", ""] {
            assert!(valid_debug_spec(good.as_bytes()), "{good}");
        }
        for bad in ["junk", "5x", ",pdu", "pdu,,fetch", "-", "al"] {
            assert!(!valid_debug_spec(bad.as_bytes()), "{bad}");
        }
    }

    #[test]
    fn dirname_cuts_as_glibc_does() {
        let d = |p: &str| dirname(p.as_bytes()).map(|v| String::from_utf8_lossy(&v).into_owned());
        assert_eq!(d("folio"), None);
        assert_eq!(d("a/b/folio"), Some("a/b".into()));
        assert_eq!(d("/folio"), Some("/".into()));
        assert_eq!(d("//folio"), Some("//".into()));
        assert_eq!(d("a//b//"), Some("a".into()));
        assert_eq!(d("abc/"), None);
        assert_eq!(d("///"), Some("/".into()));
    }

    #[test]
    fn strtol_int_as_the_tools_use_it() {
        assert_eq!(strtol_int(b"12"), (12, true));
        assert_eq!(strtol_int(b" -3"), (-3, true));
        assert_eq!(strtol_int(b"12x"), (12, false));
        assert_eq!(strtol_int(b""), (0, true));
        assert_eq!(strtol_int(b"x"), (0, false));
        // a long cut to an int
        assert_eq!(strtol_int(b"4294967297"), (1, true));
    }

    #[test]
    fn window_needs_an_archive_for_start_align_origin_but_not_finish() {
        let mut o = run(tools::PMVAL, &["pmval", "-T", "+1h", "-h", "h", "m"], &[]);
        o.end_options(&mut DefaultHooks);
        assert_eq!(o.errors, 0);
        let mut o = run(tools::PMVAL, &["pmval", "-A", "1h", "-h", "h", "m"], &[]);
        o.end_options(&mut DefaultHooks);
        assert_eq!(text(&o), "pmval: time window options are supported for archives only\n");
        assert!(o.usage_error);
    }

    #[test]
    fn live_windows_run_from_now_without_end() {
        let mut o = run(tools::PMVAL, &["pmval", "-T", "+90s", "-h", "h", "m"], &[]);
        o.end_options(&mut DefaultHooks);
        let info = ContextInfo { kind: ContextKind::Host, host_name: "h", zone: Ok("UTC"), bounds: None };
        let now = Timestamp { sec: 1000, nsec: 5 };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let Ok(Ok(s)) = o.context_options(&info, &Zone::utc(), now, &mut out, &mut err) else {
            panic!("{}", text(&o));
        };
        let w = s.window.unwrap_or_else(|| panic!("no window"));
        assert_eq!((w.start, w.end, w.origin), (now, Timestamp { sec: 1090, nsec: 5 }, now));
    }
}
