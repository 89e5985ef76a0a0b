//! The command-line handling PCP's tools share (`pmGetOptions` and
//! friends), one concern to a module:
//!
//! - [`spec`]: how a tool describes itself ([`ToolSpec`]: its short
//!   option string, its long option table with the standard entries, its
//!   usage line, which letters it claims for itself);
//! - [`getopt`]: libpcp's own `getopt_long` (`pmgetopt_r`: its argument
//!   permutation and messages), the one scanner every tool uses;
//! - [`standard`]: the standard options (`-A`, `-S`, `-T`, `-O`, `-s`,
//!   `-t`, `-z`, `-Z`, `-D`, `-V`, `-?`, `-g`, `-p`, `-n`, `-N`, `-K`, and
//!   the long-only `--container`, `--derived`);
//! - [`sources`]: the metrics source (`-a`, `-h`, `-H`, `-L`,
//!   `--archive-list`, `--archive-folio`, `--host-list`) and the end of
//!   option processing that settles its kind;
//! - [`presets`]: the `PCP_*` environment variables that preset them;
//! - [`usage`]: the usage message built from the option table;
//! - [`context`]: the final step that needs a context
//!   (`pmGetContextOptions`): the reporting time zone, its "Note:" line,
//!   and the time window.
//!
//! Messages go where libpcp's `pmprintf` puts them: into a buffer
//! ([`Options::messages`]) that [`Options::flush`] writes to standard
//! error, usually after [`Options::usage_message`].
//!
//! A tool either drives a [`Parser`] as C tools drive `pmGetOptions`
//! (handling its own options as they come, so its messages fall in
//! order), or calls [`parse`] to get its own options as a list. Side
//! effects libpcp performs while parsing (loading a name space, derived
//! metrics, reading host and folio files) go through [`Hooks`].

pub mod context;
pub mod getopt;
pub mod hooks;
pub mod presets;
pub mod sources;
pub mod spec;
pub mod standard;
pub mod tools;
pub mod usage;

pub use context::{local_zone, now, ContextInfo, ContextSettings};
pub use hooks::{ContextHooks, DefaultHooks, Hooks};
pub use presets::process_env;
pub use sources::add_to_archive_list;
pub use spec::{std_opts, ApiVersion, ContextKind, LongOpt, ToolFlags, ToolOpt, ToolSpec, PCP_VERSION, PMAPI_OPTIONS};
pub use standard::valid_debug_spec;
pub use usage::usage_text;

use getopt::{GetOpt, Got};
use pcp_core::Timestamp;
use std::io::{self, Write};

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
    /// The debug options they set.
    pub debug_options: pcp::debug::DebugOptions,
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
    /// Where libpcp's traces go (the hooks' trace): `pmflush`'s look-up.
    trace: pcp::debug::Trace,
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
    let (v, used) = pcp_core::support::strtod::strtol_prefix(s);
    (v as i32, used == s.len())
}

/// C's `atoi`: [`strtol_int`]'s value, whatever follows the number.
pub fn atoi(s: &[u8]) -> i32 {
    strtol_int(s).0
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

    /// `pmflush`: write the messages to `err` and forget them (after
    /// what libpcp traces at its first `pmflush`).
    #[doc(alias = "pmflush")]
    pub fn flush(&mut self, err: &mut dyn Write) -> io::Result<()> {
        pcp::config::trace_flush(&self.trace);
        err.write_all(&self.trace.take())?;
        let text = std::mem::take(&mut self.messages);
        err.write_all(&text)
    }

    /// Append a message of the tool's own (`pmprintf`).
    #[doc(alias = "pmprintf")]
    pub fn printf(&mut self, text: &[u8]) {
        self.messages.extend_from_slice(text);
    }
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
            trace: hooks.trace(),
            ..Options::default()
        };
        let _ = err.write_all(&opts.start_options(env, hooks));
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

    /// `pmLoadDerivedConfig` of `path` where the tool's option names it
    /// (pminfo's `-c`), its report among what was written so far.
    #[doc(alias = "pmLoadDerivedConfig")]
    pub fn load_derived(&mut self, path: &[u8]) -> Result<(), String> {
        self.opts.load_derived(path, self.hooks)
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

/// What the tests of the option modules share.
#[cfg(test)]
mod testing {
    use super::*;

    pub(super) fn args(a: &[&str]) -> Vec<Vec<u8>> {
        a.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    pub(super) fn run(spec: ToolSpec, a: &[&str], env: &[(&str, &str)]) -> Options {
        let env: Vec<(Vec<u8>, Vec<u8>)> =
            env.iter().map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec())).collect();
        let mut err = Vec::new();
        parse(&args(a), spec, &env, &mut DefaultHooks, &mut err)
    }

    pub(super) fn text(o: &Options) -> String {
        String::from_utf8_lossy(&o.messages).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{args, run};
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
}
