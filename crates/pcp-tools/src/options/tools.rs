//! The option tables of the tools pcp-rs reimplements, as PCP 6.0.3
//! declares them (`pmLongOptions longopts[]` and `pmOptions opts` in each
//! tool's source): short options, long options in usage order, usage line,
//! `pmOptions` version and flags, and the letters each tool's `override`
//! callback claims.

use super::std_opts::*;
use super::{ApiVersion, LongOpt, ToolFlags, ToolSpec};

/// `PM_OPTFLAG_STDOUT_TZ` alone.
const STDOUT_TZ: ToolFlags = ToolFlags { stdout_tz: true, ..ToolFlags::NONE };

const fn own(long: &'static str, has_arg: bool, short: u8, arg: Option<&'static str>, msg: &'static str) -> LongOpt {
    LongOpt::new(long, has_arg, short, arg, msg)
}

const PMINFO_LONG: [LongOpt; 30] = [
    LongOpt::header("General options"),
    ARCHIVE,
    DEBUG,
    HOST,
    CONTAINER,
    LOCALPMDA,
    SPECLOCAL,
    NAMESPACE,
    UNIQNAMES,
    ORIGIN,
    TIMEZONE,
    HOSTZONE,
    VERSION,
    HELP,
    LongOpt::header("Protocol options"),
    own("batch", true, b'b', Some("N"), "fetch N metrics at a time for -f and -v [128]"),
    own("desc", false, b'd', None, "get and print metric description"),
    own("fetch", false, b'f', None, "fetch and print values for all instances"),
    own("fetchall", false, b'F', None, "fetch and print values for non-enumerable indoms"),
    own("fullindom", false, b'I', None, "print InDom in verbose format"),
    own("labels", false, b'l', None, "print InDom, metric and instance labels"),
    own("pmid", false, b'm', None, "print PMID"),
    own("fullpmid", false, b'M', None, "print PMID in verbose format"),
    own("series", false, b's', None, "print source, metric, instance series identifiers"),
    own("oneline", false, b't', None, "get and display (terse) oneline text"),
    own("helptext", false, b'T', None, "get and display (verbose) help text"),
    LongOpt::header("Metrics options"),
    own("derived", true, b'c', Some("FILE"), "load derived metric definitions from FILE(s)"),
    own("events", false, b'x', None, "unpack and report on any fetched event records"),
    own("verify", false, b'v', None, "verify mode, be quiet and only report errors"),
];

/// `pminfo`.
pub const PMINFO: ToolSpec = ToolSpec {
    short_options: "a:b:c:CdD:Ffh:IK:lLMmN:n:O:stTvVxzZ:?",
    long_options: &PMINFO_LONG,
    short_usage: Some("[options] [metricname | pmid | indom]..."),
    version: ApiVersion::V2,
    flags: STDOUT_TZ,
    overrides: b"stT",
};

const PMPROBE_LONG: [LongOpt; 23] = [
    LongOpt::header("General options"),
    ARCHIVE,
    DEBUG,
    HOST,
    CONTAINER,
    DERIVED,
    LOCALPMDA,
    SPECLOCAL,
    NAMESPACE,
    ORIGIN,
    TIMEZONE,
    HOSTZONE,
    own("version", false, b'd', None, "display version number and exit"),
    HELP,
    LongOpt::header("Protocol options"),
    own("batch", true, b'b', Some("N"), "fetch at most N metrics at a time [128]"),
    LongOpt::header("Reporting options"),
    own("force", false, b'f', None, "report all pmGetIndom or pmGetInDomArchive instances"),
    own("faster", false, b'F', None, "assume given metric names are PMNS leaf nodes"),
    own("external", false, b'I', None, "list external instance names"),
    own("internal", false, b'i', None, "list internal instance numbers"),
    own("verbose", false, b'V', None, "report PDU operations (verbose)"),
    own("values", false, b'v', None, "list metric values"),
];

/// `pmprobe`.
pub const PMPROBE: ToolSpec = ToolSpec {
    short_options: "a:b:D:efh:IiK:Ln:FO:VvZ:z?",
    long_options: &PMPROBE_LONG,
    short_usage: Some("[options] [metricname ...]"),
    version: ApiVersion::V2,
    flags: STDOUT_TZ,
    overrides: b"V",
};

const PMVAL_LONG: [LongOpt; 31] = [
    GENERAL[0],
    GENERAL[1],
    GENERAL[2],
    GENERAL[3],
    GENERAL[4],
    GENERAL[5],
    GENERAL[6],
    GENERAL[7],
    GENERAL[8],
    GENERAL[9],
    GENERAL[10],
    GENERAL[11],
    GENERAL[12],
    GENERAL[13],
    GENERAL[14],
    GENERAL[15],
    GENERAL[16],
    SPECLOCAL,
    LOCALPMDA,
    CONTAINER,
    DERIVED,
    LongOpt::header("Reporting options"),
    own("delay", false, b'd', None, "delay, pause between updates for archive replay"),
    own("precision", true, b'f', Some("N"), "fixed output format with N digits precision"),
    own("instances", true, b'i', Some("INST"), "comma-separated metrics instance list"),
    own("raw", false, b'r', None, "output raw counter values (no rate conversion)"),
    own("nointerp", true, b'U', Some("FILE"), "non-interpolated fetching; ignores interval"),
    own("verbose", false, b'v', None, "increase diagnostic output"),
    own("width", true, b'w', Some("N"), "set the width of each column of output"),
    own("filter", true, b'x', Some("VALUE"), "store to the metric before fetching (filter)"),
    own("timestamp", false, b'X', None, "include date and microseconds in reported timestamps"),
];

/// `pmval` (its `override` claims nothing; it only notes `-s 0`, which
/// [`super::Options::samples_arg`] shows).
pub const PMVAL: ToolSpec = ToolSpec {
    short_options: "A:a:D:gh:n:O:p:S:s:T:t:VZ:z?df:i:K:LrU:vw:x:X",
    long_options: &PMVAL_LONG,
    short_usage: Some("[options] metricname"),
    version: ApiVersion::V3,
    flags: ToolFlags { deferred_end: true, boundaries: true, ..STDOUT_TZ },
    overrides: b"",
};

const PMDUMPLOG_LONG: [LongOpt; 24] = [
    LongOpt::header("Options"),
    DEBUG,
    own("all", false, b'a', None, "dump everything"),
    own("descs", false, b'd', None, "dump metric descriptions"),
    own("labelsets", false, b'e', None, "dump all metric label metadata"),
    own("helptext", false, b'h', None, "dump all metric help text"),
    own("on-disk-insts", false, b'I', None, "dump on-disk instance domain descriptions"),
    own("insts", false, b'i', None, "dump instance domain descriptions"),
    own("", false, b'L', None, "more verbose form of archive label dump"),
    own("label", false, b'l', None, "dump the archive label"),
    own("markrecs", false, b'M', None, "report <mark> records"),
    own("metrics", false, b'm', None, "dump values of the metrics (default)"),
    NAMESPACE,
    own("reverse", false, b'r', None, "process archive in reverse chronological order"),
    START,
    own("sizes", false, b's', None, "report size of data records in archive"),
    FINISH,
    own("", false, b't', None, "dump the temporal index"),
    own("", true, b'v', Some("FILE"), "verbose hex dump of a physical file in raw format"),
    own("", false, b'x', None, "include date, usec (-xx) and Epoch (-xxx) in reported timestamps"),
    TIMEZONE,
    HOSTZONE,
    VERSION,
    HELP,
];

/// `pmdumplog`.
pub const PMDUMPLOG: ToolSpec = ToolSpec {
    short_options: "aD:dehIilLmMn:rS:sT:tv:xZ:z?",
    long_options: &PMDUMPLOG_LONG,
    short_usage: Some("[options] [archive [metricname ...]]"),
    version: ApiVersion::V3,
    flags: ToolFlags { deferred_end: true, boundaries: true, ..STDOUT_TZ },
    overrides: b"ahLst",
};

const PMSTORE_LONG: [LongOpt; 12] = [
    LongOpt::header("General options"),
    DEBUG,
    HOST,
    LOCALPMDA,
    SPECLOCAL,
    NAMESPACE,
    VERSION,
    HELP,
    LongOpt::header("Value options"),
    own("fetch", false, b'F', None, "perform pmFetch after pmStore to confirm value"),
    own("force", false, b'f', None, "store the value even if there is no current value set"),
    own("insts", true, b'i', Some("INSTS"), "restrict store to comma-separated list of instances"),
];

/// `pmstore`.
pub const PMSTORE: ToolSpec = ToolSpec {
    short_options: "D:Ffh:K:Li:n:V?",
    long_options: &PMSTORE_LONG,
    short_usage: Some("[options] metricname value"),
    version: ApiVersion::V2,
    flags: ToolFlags { posix: true, ..ToolFlags::NONE },
    overrides: b"",
};

const PMCPP_LONG: [LongOpt; 6] = [
    HELP,
    own("define", true, b'D', Some("name[=value]"), "define a macro with an optional value"),
    own("include", true, b'I', Some("dir"), "additional directory to search for include files"),
    own("", false, b'P', None, "do not output # lineno \"filename\" linemarkers"),
    own("restrict", false, b'r', None, "restrict macro expansion to #name or #{name}"),
    own("shell", false, b's', None, "use alternate control syntax with prefix % instead of #"),
];

/// `pmcpp` (which scans its options with `pmgetopt_r` alone: no standard
/// options, no `PCP_*` presets).
pub const PMCPP: ToolSpec = ToolSpec {
    short_options: "dD:I:Prs?",
    long_options: &PMCPP_LONG,
    short_usage: Some("[-Prs] [-Dname[=value] ...] [-I dir ...] [[infile] outfile]"),
    version: ApiVersion::V2,
    flags: ToolFlags::NONE,
    overrides: b"",
};
