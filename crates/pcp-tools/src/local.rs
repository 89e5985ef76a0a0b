//! The local context as the tools open it: `-L` (with `-K` specs), and the
//! embedded default, a local context when no source is named and no pmcd
//! answers on the local host.
//!
//! A local context runs PCP's Linux PMDA inside the tool, and that PMDA
//! takes its test settings from the environment: `LINUX_STATSPATH` (the
//! root its /proc and /sys files are read under), `LINUX_HERTZ`,
//! `LINUX_PAGESIZE`, `LINUX_NCPUS`, `LINUX_NNODES` and `LINUX_MDADM` (the
//! program `disk.md.status` runs), as the proc PMDA takes
//! `PROC_STATSPATH`, `PROC_HERTZ`, `PROC_PAGESIZE` and `PROC_THREADS`.
//! The tools read them here, so a
//! local context over a snapshot of files works as PCP's does (the golden
//! tests use the snapshot committed in crates/pcp-linux/tests/snapshot).

use crate::options::atoi;
use pcp::debug::Trace;
use pcp::local::{Agents, LocalNames, LocalSpec};
use pcp::Context;
use pcp_linux::RootFiles;
use pcp_pmns::Pmns;
use std::os::unix::ffi::OsStrExt;

/// The local context of a tool run in the environment `env`, its agents
/// as `-K` specs left them and, when the tool loaded one, its own name
/// space, tracing into `trace` (what libpcp traces while it makes the
/// context is there after); with the diagnostics libpcp prints on the way.
pub fn open(
    env: &[(Vec<u8>, Vec<u8>)],
    agents: &Agents,
    pmns: Option<Pmns>,
    trace: &Trace,
) -> (pcp::PmResult<Context>, Vec<u8>) {
    let var = |name: &str| env.iter().find(|(k, _)| k == name.as_bytes()).map(|(_, v)| v.as_slice());
    let mut spec = LocalSpec::system();
    spec.agents = agents.clone();
    if let Some(p) = pmns {
        spec.names = LocalNames::Given(p);
    }
    if let Some(root) = var("LINUX_STATSPATH") {
        spec.files = RootFiles::new(String::from_utf8_lossy(root).into_owned());
    }
    if let Some(hz) = var("LINUX_HERTZ") {
        spec.linux.hz = u32::try_from(atoi(hz)).unwrap_or(1).max(1);
    }
    if let Some(size) = var("LINUX_PAGESIZE") {
        // the PMDA keeps the page size as a shift: the lowest bit set
        let n = atoi(size) as u32;
        spec.linux.page_size = if n == 0 { 1 } else { 1 << n.trailing_zeros() };
    }
    if let Some(path) = var("LINUX_MDADM") {
        spec.linux.mdadm = std::path::PathBuf::from(std::ffi::OsStr::from_bytes(path));
    }
    if let Some(n) = var("LINUX_NCPUS") {
        spec.linux.ncpus = Some(u32::try_from(atoi(n)).unwrap_or(0));
    }
    // (its value is not used)
    spec.linux.single_node = var("LINUX_NNODES").is_some();
    // and the proc PMDA its own
    if let Some(root) = var("PROC_STATSPATH") {
        spec.proc_files = RootFiles::new(String::from_utf8_lossy(root).into_owned());
    }
    if let Some(hz) = var("PROC_HERTZ") {
        spec.proc.hz = u32::try_from(atoi(hz)).unwrap_or(1).max(1);
    }
    if let Some(size) = var("PROC_PAGESIZE") {
        spec.proc.page_size = atoi(size) as u32;
    }
    if let Some(t) = var("PROC_THREADS") {
        spec.proc.threads = atoi(t) != 0;
    }
    let (ctx, diagnostics) = Context::open_local_traced(spec, trace);
    (ctx.map_err(pcp::PmError::from), diagnostics)
}

/// [`open`], writing what it traced and the diagnostics to `err`, and on
/// failure `failed` and the error (the tool's words for it): `None` then.
pub fn open_reporting(
    env: &[(Vec<u8>, Vec<u8>)],
    agents: &Agents,
    pmns: Option<Pmns>,
    trace: &Trace,
    failed: &str,
    err: &mut dyn std::io::Write,
) -> std::io::Result<Option<Context>> {
    let (ctx, diagnostics) = open(env, agents, pmns, trace);
    err.write_all(&trace.take())?;
    err.write_all(&diagnostics)?;
    match ctx {
        Ok(c) => Ok(Some(c)),
        Err(e) => {
            writeln!(err, "{failed}: {e}")?;
            Ok(None)
        }
    }
}

/// The line a tool prints when, with no source named, it finds no pmcd on
/// the local host (`reason` says why) and uses the local context instead.
pub fn fallback_note(prog: &str, reason: pcp::PmError) -> String {
    format!("{prog}: no pmcd on local host ({reason}), using built-in local metrics\n")
}

/// Is there a pmcd on the local host? `Err` says why not, in PCP's words.
pub fn local_pmcd() -> Result<(), pcp::PmError> {
    pcp::host::pmcd_answers("local:")
}
