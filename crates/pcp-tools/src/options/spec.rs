//! How a tool describes its command line to `pmGetOptions`: the long
//! option table (`pmLongOptions`) with the standard entries of `pmapi.h`,
//! the `pmOptions` version and flags, and what parsing hands back.

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
    /// [`super::Options::end_options`] once it knows its metrics source).
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
