//! [`Hooks`] that do what libpcp does for the tools pcp-rs has: `-n` and
//! `-N` load the name space (through pmcpp, as `pmLoadASCIINameSpace`
//! does), `-K` specs edit the local context's agent table, and
//! `--derived` loads derived-metric configurations into the registry the
//! tool binds in its context.

use super::{valid_debug_spec, Hooks};
use pcp::local::Agents;
use pcp::worker::Worker;
use pcp::Context;
use pcp_core::PmError;
use pcp_pmns::cpp::Files;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;

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
    /// Whether libpcp would hold a name space now (a load that got past
    /// parsing, even one that failed after).
    kept: bool,
    /// An archive context being opened on a thread of its own while the
    /// options are still being acted on (see [`Hooks::archive_ahead`]).
    ahead: ArchiveAhead,
    /// Whether to map an archive's first data volume ahead of a replay
    /// ([`pcp::archive::ArchiveSource::premap_first_volume`]), for a tool
    /// that replays it: the thread opening the archive ahead goes on to,
    /// or a thread of its own once it is opened here.
    pub premap: bool,
    /// The tool's options bound its replay (a start, an end, an origin or
    /// a count of samples): then it may read little of the first volume,
    /// and mapping it whole would cost more than it saves (`pmval -s 1`
    /// over `20180102` took 0.9 ms longer by median with it). Set once
    /// the options are read, before [`ContextHooks::open_archive`].
    pub replay_bounded: bool,
}

/// An archive context perhaps being opened on a thread of its own (see
/// [`Hooks::archive_ahead`]).
#[derive(Default)]
pub struct ArchiveAhead(Option<Ahead>);

/// An opening handed to a thread: the archive's name, whether the opening
/// is under way (claimed by the thread, or by the tool, which opens the
/// archive itself if the thread has not started yet), where the thread
/// hands the context over, where the tool tells the thread whether to map
/// the first volume of the archive it opened ([`ContextHooks::premap`]),
/// and where the tool that opened it itself hands the thread the volume
/// to map. The thread maps the volume once the context is handed over,
/// while the tool binds its derived metrics and sets up its replay: the
/// tool mapping it while it waited for the opening, as it once did, took
/// the context late (the mapping cannot be broken off: 0.6 ms over the
/// 7 MB volume of `20180102`, BENCHMARKS.md).
pub struct Ahead {
    name: Vec<u8>,
    claimed: Arc<AtomicBool>,
    opened: Receiver<pcp::PmResult<Context>>,
    map: SyncSender<bool>,
    to_map: SyncSender<pcp_archive::Premap>,
    /// The thread, lent to the context once its part is done (with
    /// [`ContextHooks::premap`]), to make the fetches ahead on.
    worker: Option<Worker>,
}

impl ArchiveAhead {
    /// `Context::open_archive(name)`: the opening started for `name` if
    /// it is the one started, else one made now; its first volume is
    /// mapped ahead of the replay if `map`.
    pub fn open(self, name: &str, map: bool) -> pcp::PmResult<Context> {
        match self.0 {
            Some(a) if a.name == name.as_bytes() => {
                // (most often the thread is still opening: it finds the
                // answer waiting)
                let _ = a.map.try_send(map);
                let mut opened = if !a.claimed.swap(true, Ordering::AcqRel) {
                    // the thread has not started (on this host, a CPU
                    // that has been idle can take a millisecond to wake):
                    // open here, and leave the thread the first volume
                    let opened = Context::open_archive(name);
                    if let Some(volume) = first_volume(&opened).filter(|_| map) {
                        let _ = a.to_map.send(volume);
                    }
                    opened
                } else {
                    match pcp::worker::recv_awake(&a.opened, AWAKE) {
                        Some(opened) => opened,
                        // (it panicked: have the error happen here)
                        None => Context::open_archive(name),
                    }
                };
                if let (Ok(context), Some(worker)) = (opened.as_mut(), a.worker) {
                    context.lend_worker(worker);
                }
                opened
            }
            _ => Context::open_archive(name),
        }
    }
}

/// How long the tool waits awake for the context the opening thread
/// hands over ([`pcp::worker::recv_awake`]).
const AWAKE: std::time::Duration = std::time::Duration::from_millis(5);

/// The first data volume of an archive context just opened, to map whole
/// ahead of its replay, if it can be.
fn first_volume(opened: &pcp::PmResult<Context>) -> Option<pcp_archive::Premap> {
    opened.as_ref().ok().and_then(Context::archive).and_then(|a| a.premap_first_volume())
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
            kept: false,
            ahead: ArchiveAhead::default(),
            premap: false,
            replay_bounded: false,
        }
    }
}

impl ContextHooks<'_> {
    /// `Context::open_archive(name)`: the opening [`Hooks::archive_ahead`]
    /// started for `name` when there is one, else made now.
    pub fn open_archive(&mut self, name: &str) -> pcp::PmResult<Context> {
        let ahead = self.take_archive_ahead();
        // (an opening thread maps the first volume itself)
        let mapping = ahead.0.as_ref().is_some_and(|a| a.name == name.as_bytes());
        let map = self.premap && !self.replay_bounded;
        let opened = ahead.open(name, map);
        if map && !mapping {
            if let Some(first) = first_volume(&opened) {
                let _ = pcp_archive::thread::spawn("pcp-premap", move || first.run());
            }
        }
        opened
    }

    /// The opening [`Hooks::archive_ahead`] started, if any, to finish
    /// apart from these hooks.
    pub fn take_archive_ahead(&mut self) -> ArchiveAhead {
        std::mem::take(&mut self.ahead)
    }

    /// The registered derived metrics, to bind in each context the tool
    /// makes: those `--derived` loaded (after `$PCP_DERIVED_CONFIG`'s), or
    /// `$PCP_DERIVED_CONFIG`'s alone, with the report of loading them
    /// (libpcp's start-up at the first context).
    pub fn take_registry(&mut self) -> (pcp::derived::Registry, Vec<u8>) {
        match self.registry.take() {
            Some(r) => (r, Vec::new()),
            None => pcp::derived::startup_registry(&self.progname),
        }
    }
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
        let (ctx, diagnostics, kept) = Context::load_namespace_keeping(path, dupok, self.files);
        self.kept = kept;
        let split = libpcp_part(&diagnostics);
        let mut direct = Vec::new();
        if !diagnostics.starts_with(CANNOT_OPEN) {
            // pmcpp ran
            direct.extend(self.child_debug_error.iter().flatten());
        }
        direct.extend_from_slice(&diagnostics[..split]);
        self.output = (direct, diagnostics[split..].to_vec());
        self.namespace = Some(ctx.map_err(|e| e.to_string())?);
        Ok(())
    }

    fn take_output(&mut self) -> (Vec<u8>, Vec<u8>) {
        std::mem::take(&mut self.output)
    }

    fn archive_ahead(&mut self, name: &[u8]) {
        if self.ahead.0.is_some() {
            return;
        }
        let text = String::from_utf8_lossy(name).into_owned();
        let premap = self.premap;
        let claimed = Arc::new(AtomicBool::new(false));
        let (hand_over, opened) = sync_channel(1);
        let (map, decided) = sync_channel::<bool>(1);
        let (to_map, mapping) = sync_channel::<pcp_archive::Premap>(1);
        let (worker, serve) = if premap { Some(Worker::new()).unzip() } else { (None, None) };
        let claim = Arc::clone(&claimed);
        let started = pcp_archive::thread::spawn("pcp-open", move || {
            let first_volume = if claim.swap(true, Ordering::AcqRel) {
                // the tool opened the archive itself: it hands over the
                // first volume to map, if any
                mapping.recv().ok()
            } else {
                let context = Context::open_archive(&text);
                let first = first_volume(&context).filter(|_| premap);
                let _ = hand_over.send(context);
                // (the tool says whether to map it as it takes the
                // context; no answer is a no)
                first.filter(|_| decided.recv().unwrap_or(false))
            };
            // (while the tool sets up its replay), then make the fetches
            // ahead
            if let Some(volume) = first_volume {
                volume.run();
            }
            if let Some(serve) = serve {
                serve.serve();
            }
        });
        if started.is_ok() {
            self.ahead = ArchiveAhead(Some(Ahead { name: name.to_vec(), claimed, opened, map, to_map, worker }));
        }
    }

    fn load_derived(&mut self, path: &[u8]) -> Result<(), String> {
        let registry = self.registry.get_or_insert_with(pcp::derived::Registry::new);
        let (loaded, report) = pcp::derived::load_config(registry, path, &self.progname);
        self.output.0.extend_from_slice(&report);
        loaded.map(|_| ()).map_err(|e| e.to_string())
    }

    fn spec_local(&mut self, spec: &[u8]) -> Result<(), String> {
        self.agents.apply_spec(&String::from_utf8_lossy(spec))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archive_opened_ahead_is_the_one_asked_for() {
        let fixtures = format!("{}/../pcp-archive/tests/fixtures", env!("CARGO_MANIFEST_DIR"));
        let (v2, v3) = (format!("{fixtures}/v2"), format!("{fixtures}/v3"));
        let mut files = pcp_pmns::cpp::OsFiles;
        let mut hooks = ContextHooks::new(&mut files, &[], "test");
        let label = |c: pcp::PmResult<Context>| c.map(|c| c.archive().map(|a| a.label().clone()));
        // the same context as one opened now, whether the name is the one
        // opened ahead or not
        // (mapping the first volume ahead of a replay or not)
        for premap in [false, true] {
            hooks.premap = premap;
            for (ahead, asked) in [(&v2, &v2), (&v2, &v3), (&v3, &v3)] {
                hooks.archive_ahead(ahead.as_bytes());
                assert_eq!(label(hooks.open_archive(asked)), label(Context::open_archive(asked)), "{ahead} {asked}");
                assert!(hooks.take_archive_ahead().0.is_none());
            }
        }
        // and the same error
        let missing = format!("{fixtures}/no-such-archive");
        hooks.archive_ahead(missing.as_bytes());
        assert_eq!(hooks.open_archive(&missing).err(), Context::open_archive(&missing).err());
    }

    /// Where the opening thread has not started by the time the tool wants
    /// the archive, the tool opens it itself (the same context) and hands
    /// the thread the first volume to map, if it is to be mapped.
    #[test]
    fn an_opening_not_started_is_made_by_the_tool() {
        let v2 = format!("{}/../pcp-archive/tests/fixtures/v2", env!("CARGO_MANIFEST_DIR"));
        let label = |c: pcp::PmResult<Context>| c.map(|c| c.archive().map(|a| a.label().clone()));
        for map in [true, false] {
            let (_hand_over, opened) = sync_channel(1);
            let (told, decided) = sync_channel(1);
            let (to_map, mapping) = sync_channel(1);
            let claimed = Arc::new(AtomicBool::new(false));
            let name = v2.as_bytes().to_vec();
            let ahead = Ahead { name, claimed: Arc::clone(&claimed), opened, map: told, to_map, worker: None };
            assert_eq!(label(ArchiveAhead(Some(ahead)).open(&v2, map)), label(Context::open_archive(&v2)));
            assert!(claimed.load(Ordering::Acquire));
            assert_eq!(decided.recv().ok(), Some(map));
            // (the fixture's first volume is plain and small)
            let volume: Option<pcp_archive::Premap> = mapping.recv().ok();
            assert_eq!(volume.is_some(), map);
        }
    }

    /// Where the opening thread is at it, the tool takes the context the
    /// thread hands over (the same as one opened now), maps nothing itself
    /// and tells the thread whether to map the first volume.
    #[test]
    fn the_tool_takes_the_context_the_thread_opens() {
        let v2 = format!("{}/../pcp-archive/tests/fixtures/v2", env!("CARGO_MANIFEST_DIR"));
        let label = |c: &pcp::PmResult<Context>| c.as_ref().map(|c| c.archive().map(|a| a.label().clone())).ok();
        for map in [true, false] {
            let (hand_over, opened) = sync_channel(1);
            let (told, decided) = sync_channel(1);
            let (to_map, _mapping) = sync_channel(1);
            let name = v2.as_bytes().to_vec();
            let claimed = Arc::new(AtomicBool::new(true));
            let ahead = Ahead { name, claimed, opened, map: told, to_map, worker: None };
            hand_over.send(Context::open_archive(&v2)).unwrap();
            let context = ArchiveAhead(Some(ahead)).open(&v2, map);
            assert_eq!(label(&context), label(&Context::open_archive(&v2)));
            assert_eq!(decided.recv().ok(), Some(map));
            assert!(first_volume(&context).and_then(|v| v.back_check()).is_none());
        }
    }

    /// The tool takes the context however long the thread takes to hand
    /// it over (waiting awake, then asleep), and opens the archive itself
    /// if the thread goes away without one.
    #[test]
    fn the_tool_waits_for_the_thread_awake_then_asleep() {
        let v2 = format!("{}/../pcp-archive/tests/fixtures/v2", env!("CARGO_MANIFEST_DIR"));
        let label = |c: &pcp::PmResult<Context>| c.as_ref().map(|c| c.archive().map(|a| a.label().clone())).ok();
        for delay in [Some(0), Some(1), Some(2 * AWAKE.as_millis() as u64), None] {
            let (hand_over, opened) = sync_channel(1);
            let (told, _decided) = sync_channel(1);
            let (to_map, _mapping) = sync_channel(1);
            let name = v2.as_bytes().to_vec();
            let ahead =
                Ahead { name, claimed: Arc::new(AtomicBool::new(true)), opened, map: told, to_map, worker: None };
            let path = v2.clone();
            let thread = std::thread::spawn(move || {
                if let Some(ms) = delay {
                    std::thread::sleep(std::time::Duration::from_millis(ms));
                    hand_over.send(Context::open_archive(&path)).unwrap();
                }
            });
            let context = ArchiveAhead(Some(ahead)).open(&v2, false);
            thread.join().unwrap();
            assert_eq!(label(&context), label(&Context::open_archive(&v2)), "{delay:?}");
        }
    }

    /// The opening thread maps the first volume of the context it hands
    /// over once the tool says to (a replay its options leave unbounded),
    /// and not otherwise.
    #[test]
    fn the_opening_thread_maps_the_first_volume_after() {
        let v2 = format!("{}/../pcp-archive/tests/fixtures/v2", env!("CARGO_MANIFEST_DIR"));
        let mapped = |c: &Context| c.archive().and_then(|a| a.premap_first_volume()).and_then(|v| v.back_check());
        let mut files = pcp_pmns::cpp::OsFiles;
        let mut hooks = ContextHooks::new(&mut files, &[], "test");
        hooks.premap = true;
        for bounded in [false, true] {
            hooks.replay_bounded = bounded;
            hooks.archive_ahead(v2.as_bytes());
            let context = hooks.open_archive(&v2).unwrap();
            if bounded {
                // (told no as it handed the context over, the thread goes
                // on to wait for fetches: nothing maps the volume)
                std::thread::sleep(std::time::Duration::from_millis(50));
                assert!(mapped(&context).is_none());
            } else {
                // (the thread maps it as soon as it has handed the context
                // over; a broken hand-over fails here rather than hangs)
                let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
                while mapped(&context).is_none() && std::time::Instant::now() < until {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                assert!(mapped(&context).is_some());
            }
        }
    }

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
