//! What libpcp does as a side effect of some options ([`Hooks`]), and
//! [`ContextHooks`], which does it for the tools pcp-rs has: `-n` and
//! `-N` load the name space (through pmcpp, as `pmLoadASCIINameSpace`
//! does), `-K` specs edit the local context's agent table, and
//! `--derived` loads derived-metric configurations into the registry the
//! tool binds in its context.

use super::valid_debug_spec;
use pcp::local::Agents;
use pcp::Context;
use pcp_core::PmError;
use pcp_pmns::cpp::Files;
use std::io;

/// What libpcp does as a side effect of some options; the defaults do
/// nothing (or read files from disk).
pub trait Hooks {
    /// `-n`/`-N` (`pmLoadASCIINameSpace`): load the name space `path`;
    /// `Err` carries `pmErrStr`'s text.
    fn load_namespace(&mut self, _path: &[u8], _dupok: bool) -> Result<(), String> {
        Ok(())
    }
    /// What the last [`Hooks::load_namespace`] (or [`Hooks::spec_local`],
    /// its trace) wrote to standard error, in
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
    /// `-D` or `$PCP_DEBUG` (`pmSetDebug`) accepted: the debug options
    /// are now `opts`. The default: nothing.
    fn set_debug(&mut self, _opts: pcp::debug::DebugOptions) {}
    /// `-K` (`pmSpecLocalPMDA`); `Err` carries its message.
    fn spec_local(&mut self, _spec: &[u8]) -> Result<(), String> {
        Ok(())
    }
    /// The trace libpcp's own work during option parsing goes to (its
    /// `pmflush`es: [`super::Options::flush`]). The default: none.
    fn trace(&self) -> pcp::debug::Trace {
        pcp::debug::Trace::off()
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

/// The side effects of a tool's options: the name space `-n`/`-N` loaded
/// (kept as the name-space context `pmLoadASCIINameSpace` leaves behind),
/// the local agents `-K` set up, and the derived metrics `--derived`
/// registered. What loading
/// writes to standard error reaches [`super::Options::flushed`].
pub struct ContextHooks<'f> {
    files: &'f mut dyn Files,
    /// The name space loaded by `-n`/`-N` (or `$PCP_NAMESPACE`), as a
    /// context of names alone.
    pub namespace: Option<Context>,
    /// The registered derived metrics (`pmLoadDerivedConfig`): made as
    /// libpcp does at the first `--derived` (from `$PCP_DERIVED_CONFIG`),
    /// or by [`ContextHooks::take_registry`].
    registry: Option<pcp::derived::Registry>,
    /// The tool's name, for libpcp's warnings.
    pub progname: String,
    /// The local context's agents, as the `-K` specs left them.
    pub agents: Agents,
    /// What pmcpp's own start-up says of a bad `$PCP_DEBUG` (pmcpp runs
    /// with the tool's environment).
    child_debug_error: Option<Vec<u8>>,
    output: (Vec<u8>, Vec<u8>),
    /// Where the debug trace goes (`-D`, `$PCP_DEBUG`): the tool gives
    /// it to the contexts it opens and writes it to standard error.
    pub trace: pcp::debug::Trace,
    /// Whether libpcp would hold a name space now (a load that got past
    /// parsing, even one that failed after).
    kept: bool,
}

impl<'f> ContextHooks<'f> {
    /// Hooks reading name-space files through `files`, in a process whose
    /// environment is `env` (name and value pairs), named `progname`.
    pub fn new(files: &'f mut dyn Files, env: &[(Vec<u8>, Vec<u8>)], progname: &str) -> ContextHooks<'f> {
        let child_debug_error =
            env.iter().find(|(k, _)| k == b"PCP_DEBUG").filter(|(_, v)| !valid_debug_spec(v)).map(|(_, v)| {
                let mut m = b"Error: $PCP_DEBUG=".to_vec();
                m.extend_from_slice(v);
                m.extend_from_slice(b" is not valid, ignored\n");
                m
            });
        ContextHooks {
            files,
            namespace: None,
            registry: None,
            progname: progname.to_string(),
            agents: Agents::default(),
            child_debug_error,
            output: (Vec::new(), Vec::new()),
            trace: pcp::debug::Trace::off(),
            kept: false,
        }
    }
}

impl ContextHooks<'_> {
    /// The registered derived metrics, to bind in each context the tool
    /// makes: those `--derived` loaded (after `$PCP_DERIVED_CONFIG`'s), or
    /// `$PCP_DERIVED_CONFIG`'s alone, with the report of loading them
    /// (libpcp's start-up at the first context).
    ///
    /// `rate()` of a counter that went down gives 6.0.3's values there,
    /// not the manual page's none (see [`tools_registry`]).
    pub fn take_registry(&mut self) -> (pcp::derived::Registry, Vec<u8>) {
        self.defer_registry().finish()
    }

    /// [`ContextHooks::take_registry`] for later, when the hooks are gone
    /// (a tool that sets the derived metrics up once its context is made,
    /// where libpcp does).
    pub fn defer_registry(&mut self) -> DeferredRegistry {
        DeferredRegistry {
            loaded: self.registry.take(),
            progname: self.progname.clone(),
            trace: self.trace.clone(),
            ready: None,
        }
    }
}

/// The registered derived metrics, to be set up
/// ([`ContextHooks::defer_registry`]).
pub struct DeferredRegistry {
    loaded: Option<pcp::derived::Registry>,
    progname: String,
    trace: pcp::debug::Trace,
    ready: Option<pcp::derived::Registry>,
}

impl DeferredRegistry {
    /// The registry and the report of setting it up
    /// ([`ContextHooks::take_registry`]).
    pub fn finish(mut self) -> (pcp::derived::Registry, Vec<u8>) {
        if let Some(r) = self.ready.take() {
            return (r, Vec::new());
        }
        let (mut registry, report) = match self.loaded.take() {
            Some(r) => (r, Vec::new()),
            None => pcp::derived::startup_registry_traced(&self.progname, &self.trace),
        };
        tools_registry(&mut registry);
        (registry, report)
    }

    /// Set the registry up now (once), writing the report to `err`: where
    /// libpcp does, once the tool's context is made.
    pub fn set_up(&mut self, err: &mut dyn io::Write) -> io::Result<()> {
        if self.ready.is_none() {
            let pending = DeferredRegistry {
                loaded: self.loaded.take(),
                progname: self.progname.clone(),
                trace: self.trace.clone(),
                ready: None,
            };
            let (registry, report) = pending.finish();
            err.write_all(&report)?;
            self.ready = Some(registry);
        }
        Ok(())
    }

    /// The registry, set up now if it was not yet ([`DeferredRegistry::set_up`]).
    pub fn into_registry(mut self, err: &mut dyn io::Write) -> io::Result<pcp::derived::Registry> {
        self.set_up(err)?;
        Ok(self.finish().0)
    }
}

/// Set a tool's registry to evaluate as PCP 6.0.3's tools do, whose
/// outputs the tools match: `rate()` of a counter that went down gives
/// the difference 6.0.3 computes ([`pcp::derived::CounterDecrease::Subtract`]),
/// where the library follows the manual page.
pub fn tools_registry(registry: &mut pcp::derived::Registry) {
    registry.set_counter_decrease(pcp::derived::CounterDecrease::Subtract);
}

/// How long the lines of `-Dpmns`'s report of a load starting (`load(`,
/// `loadascii(`) at the head of a loader's messages are.
fn pmns_load_lines(diagnostics: &[u8]) -> usize {
    let mut at = 0;
    while [&b"load("[..], b"loadascii("].iter().any(|p| diagnostics[at..].starts_with(p)) {
        match diagnostics[at..].iter().position(|&b| b == b'\n') {
            Some(nl) => at += nl + 1,
            None => return diagnostics.len(),
        }
    }
    at
}

/// The prefix of libpcp's complaint when it cannot read the file (it then
/// runs no pmcpp).
const CANNOT_OPEN: &[u8] = b"Error Parsing ASCII PMNS: Cannot open \"";

/// Where libpcp's own part of a loader's messages starts: the line of its
/// first "Error Parsing ASCII PMNS" complaint; before it is what pmcpp
/// wrote (libpcp reads pmcpp's output whole before it parses).
fn libpcp_part(diagnostics: &[u8]) -> usize {
    const MARK: &[u8] = b"Error Parsing ASCII PMNS: ";
    let Some(at) = diagnostics.windows(MARK.len()).position(|w| w == MARK) else { return diagnostics.len() };
    diagnostics[..at].iter().rposition(|&b| b == b'\n').map_or(0, |nl| nl + 1)
}

impl Hooks for ContextHooks<'_> {
    fn load_namespace(&mut self, path: &[u8], dupok: bool) -> Result<(), String> {
        // libpcp loads one name space per process: a second load is
        // refused, even after a first one that parsed and then failed
        if self.kept {
            return Err(PmError::PM_ERR_DUPPMNS.to_string());
        }
        let (ctx, diagnostics, kept) = Context::load_namespace_keeping(path, dupok, self.files, self.trace.options());
        self.kept = kept;
        let split = libpcp_part(&diagnostics);
        let mut direct = Vec::new();
        // (-Dpmns's report of the load starting)
        let started = pmns_load_lines(&diagnostics[..split]);
        direct.extend_from_slice(&diagnostics[..started]);
        if !diagnostics[started..].starts_with(CANNOT_OPEN) {
            // pmcpp ran, found where libpcp looks it up (-Dconfig traces
            // that, after what was traced before)
            if std::env::var_os("PCP_ALT_CPP").is_none() {
                let _ = pcp::config::lookup_optional("PCP_BINADM_DIR", &self.trace);
                direct.extend_from_slice(&self.trace.take());
            }
            direct.extend(self.child_debug_error.iter().flatten());
            // (pmcpp's own -Dconfig, from the $PCP_DEBUG it inherits)
            let child_config = std::env::var_os("PCP_DEBUG")
                .and_then(|v| pcp::debug::DebugOptions::parse(v.as_encoded_bytes()).ok())
                .is_some_and(|o| o.contains(pcp::debug::DebugFlag::Config));
            if child_config && !diagnostics[started..].starts_with(CANNOT_OPEN) {
                direct.extend_from_slice(&pcp::config::child_trace("PCP_VAR_DIR"));
            }
        }
        direct.extend_from_slice(&diagnostics[started..split]);
        self.output = (direct, diagnostics[split..].to_vec());
        self.namespace = Some(ctx.map_err(|e| e.code().to_string())?);
        Ok(())
    }

    fn take_output(&mut self) -> (Vec<u8>, Vec<u8>) {
        std::mem::take(&mut self.output)
    }

    fn default_archive(&mut self) -> Vec<u8> {
        let dir = pcp::config::lookup_optional("PCP_ARCHIVE_DIR", &self.trace)
            .unwrap_or_else(|| b"/var/log/pcp/pmlogger".to_vec());
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim_end().to_string())
            .unwrap_or_else(|_| "localhost".to_string());
        [&dir[..], b"/", host.as_bytes()].concat()
    }

    fn load_derived(&mut self, path: &[u8]) -> Result<(), String> {
        let registry = self.registry.get_or_insert_with(pcp::derived::Registry::new);
        registry.set_trace(self.trace.clone());
        let (loaded, report) = pcp::derived::load_config(registry, path, &self.progname);
        self.output.0.extend_from_slice(&report);
        loaded.map(|_| ()).map_err(|e| e.to_string())
    }

    fn set_debug(&mut self, opts: pcp::debug::DebugOptions) {
        self.trace = self.trace.with_options(opts);
        // (pmdumplog reads archives below pcp's sources)
        pcp::config::attach(&self.trace);
        if self.trace.any() {
            // times in the process's zone until the tool picks its own
            self.trace.set_zone(std::sync::Arc::new(pcp::timezone::Zone::local()));
        }
    }

    fn trace(&self) -> pcp::debug::Trace {
        self.trace.clone()
    }

    fn spec_local(&mut self, spec: &[u8]) -> Result<(), String> {
        let applied = self.agents.apply_spec_traced(&String::from_utf8_lossy(spec), &self.trace);
        // (what libpcp traced goes out at once)
        self.output.0.extend_from_slice(&self.trace.take());
        applied
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libpcp_complaint_is_split_from_pmcpp_messages() {
        let d = b"pmcpp: x[2]: #include \"y\": No such file\n[x:3] Error Parsing ASCII PMNS: bad\n    a\n[x:3] Error Parsing ASCII PMNS: Expected }\n";
        let first = d.windows(5).position(|w| w == b"[x:3]").unwrap_or(0);
        assert_eq!(libpcp_part(d), first);
        assert!(d[first..].starts_with(b"[x:3] Error Parsing ASCII PMNS: bad\n"));
        assert_eq!(libpcp_part(b"Warning: cpp\n"), 13);
        assert_eq!(libpcp_part(b"Error Parsing ASCII PMNS: Cannot open \"f\"\n"), 0);
    }
}
