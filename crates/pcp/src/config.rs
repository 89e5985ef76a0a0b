//! PCP's configuration as the environment and `/etc/pcp.conf` give it
//! (`pmGetConfig`): the environment wins, then the file.
//!
//! libpcp reads `pcp.conf` once per process, at its first look-up, and
//! under `-Dconfig` lists what it read then and each look-up after;
//! [`lookup`] and [`lookup_optional`] trace the same lines into a
//! [`Trace`] (whose clones stand for the process: the first traced
//! look-up in a family of clones lists the file).

use pcp_core::debug::{DebugFlag, Trace};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

/// `pmGetConfig(name)`: the value of a PCP configuration variable
/// (untraced; see [`lookup`]).
#[doc(alias = "pmGetConfig")]
pub fn get(name: &str) -> Option<String> {
    value(name.as_bytes()).map(|v| String::from_utf8_lossy(&v).into_owned())
}

/// `pmGetConfig(name)`, traced as libpcp traces it under `-Dconfig`: an
/// unset variable is empty (after a `getenv(NAME) -> NULL` line).
#[doc(alias = "pmGetConfig")]
pub fn lookup(name: &str, trace: &Trace) -> Vec<u8> {
    traced(name, trace, true).unwrap_or_default()
}

/// `pmGetOptionalConfig(name)`, traced as libpcp traces it under
/// `-Dconfig`: `None` when the variable is unset.
#[doc(alias = "pmGetOptionalConfig")]
pub fn lookup_optional(name: &str, trace: &Trace) -> Option<Vec<u8>> {
    traced(name, trace, false)
}

/// `pmflush`'s look-up (`-Dconfig`): libpcp looks `PCP_XCONFIRM_PROG`
/// up at the process's first `pmflush` (traced or not: a trace's family
/// of clones stands for the process), before it writes the messages.
#[doc(alias = "pmflush")]
pub fn trace_flush(trace: &Trace) {
    if trace.changed("pmflush looked up", 1) {
        let _ = lookup_optional("PCP_XCONFIRM_PROG", trace);
    }
}

/// What a child process that libpcp starts (pmcpp for a name space)
/// traces under `-Dconfig` at its first look-up, of `name`: libpcp has
/// put every setting of `pcp.conf` in the environment it inherits (the
/// quotes taken off), so it lists each with that value.
#[doc(hidden)] // tool support
pub fn child_trace(name: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for (var, _) in conf_entries() {
        let shown = value(&var).unwrap_or_default();
        for part in [&b"pmgetconfig: (init) "[..], &var, b"=", &shown, b"\n"] {
            out.extend_from_slice(part);
        }
    }
    for part in [&b"pmgetconfig: "[..], name.as_bytes(), b"=", &value(name.as_bytes()).unwrap_or_default(), b"\n"] {
        out.extend_from_slice(part);
    }
    out
}

/// What a trace notes once `pcp.conf` has been read for it.
const CONF_READ: &str = "pcp.conf read";

fn traced(name: &str, trace: &Trace, required: bool) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let val = traced_into(name, trace, required, &mut out);
    trace.write_bytes(&out);
    val
}

/// Let the crates below this one (which cannot read `pcp.conf`) trace
/// the look-ups libpcp makes in their parts into `trace` and its clones
/// (pcp-archive's `PCP_TMPFILE_DIR` for a volume libpcp decompresses to
/// a temporary file): sets [`lookup_optional`]'s trace as the trace's
/// [`Trace::set_config_lookup`]. Archive sources do it to the traces
/// they are given.
pub fn attach(trace: &Trace) {
    trace.set_config_lookup(lookup_optional_trace);
}

/// [`lookup_optional`]'s trace, returned rather than written.
fn lookup_optional_trace(name: &str, trace: &Trace) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = traced_into(name, trace, false, &mut out);
    out
}

/// A traced look-up, its trace added to `out`.
fn traced_into(name: &str, trace: &Trace, required: bool, out: &mut Vec<u8>) -> Option<Vec<u8>> {
    if trace.changed(CONF_READ, 1) && trace.on(DebugFlag::Config) {
        // each variable with the value it keeps: the environment's, else
        // the file's as written (quotes and all)
        // (a name met twice has the first one's value by then)
        let mut set: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        for (var, val) in conf_entries() {
            let env = std::env::var_os(OsStr::from_bytes(&var)).map(|v| v.into_encoded_bytes());
            let shown = match env.or_else(|| set.iter().find(|(k, _)| *k == var).map(|(_, v)| v.clone())) {
                Some(v) => v,
                None => {
                    set.push((var.clone(), unquote(&val).to_vec()));
                    val
                }
            };
            for part in [&b"pmgetconfig: (init) "[..], &var, b"=", &shown, b"\n"] {
                out.extend_from_slice(part);
            }
        }
    }
    let val = value(name.as_bytes());
    if trace.on(DebugFlag::Config) {
        if val.is_none() {
            out.extend_from_slice(format!("pmgetconfig: getenv({name}) -> NULL\n").as_bytes());
        }
        if val.is_some() || required {
            for part in [&b"pmgetconfig: "[..], name.as_bytes(), b"=", val.as_deref().unwrap_or_default(), b"\n"] {
                out.extend_from_slice(part);
            }
        }
    }
    val
}

/// A variable's value: the environment's, else `pcp.conf`'s with the
/// quotes around it (if any) taken off, as libpcp puts it in the
/// environment.
fn value(name: &[u8]) -> Option<Vec<u8>> {
    if let Some(v) = std::env::var_os(OsStr::from_bytes(name)) {
        return Some(v.into_encoded_bytes());
    }
    let (_, val) = conf_entries().into_iter().find(|(var, _)| var == name)?;
    Some(unquote(&val).to_vec())
}

fn unquote(val: &[u8]) -> &[u8] {
    match val {
        [q @ (b'\'' | b'"'), inner @ .., e] if q == e => inner,
        // (one quote alone is both ends: nothing between)
        [b'\'' | b'"'] => &[],
        _ => val,
    }
}

/// Where `pcp.conf` is: `$PCP_CONF`, else `$PCP_DIR/etc/pcp.conf`, else
/// `/etc/pcp.conf` (or `/usr/local/etc/pcp.conf` when only that one can
/// be read).
fn conf_path() -> PathBuf {
    if let Some(p) = std::env::var_os("PCP_CONF") {
        return p.into();
    }
    if let Some(dir) = std::env::var_os("PCP_DIR") {
        return PathBuf::from(dir).join("etc/pcp.conf");
    }
    let readable = |p: &str| std::fs::File::open(p).is_ok();
    if !readable("/etc/pcp.conf") && readable("/usr/local/etc/pcp.conf") {
        return "/usr/local/etc/pcp.conf".into();
    }
    "/etc/pcp.conf".into()
}

/// `pcp.conf`'s settings in file order (nothing if it cannot be read).
fn conf_entries() -> Vec<(Vec<u8>, Vec<u8>)> {
    std::fs::read(conf_path()).map(|text| parse_conf(&text)).unwrap_or_default()
}

/// The `NAME=value` lines of a `pcp.conf`, as libpcp splits them: lines
/// starting with `#` or without `=` skipped, the name everything before
/// the first `=`.
fn parse_conf(text: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
        .into_iter()
        .filter(|l| l.first() != Some(&b'#'))
        .filter_map(|l| {
            let eq = l.iter().position(|&b| b == b'=')?;
            Some((l[..eq].to_vec(), l[eq + 1..].to_vec()))
        })
        .collect()
}

/// `$PCP_VAR_DIR` (default `/var/lib/pcp`).
pub fn var_dir() -> PathBuf {
    get("PCP_VAR_DIR").unwrap_or_else(|| "/var/lib/pcp".to_string()).into()
}

/// `$PCP_RUN_DIR` (default `/run/pcp`), where pmcd's Unix socket lives.
pub fn run_dir() -> PathBuf {
    get("PCP_RUN_DIR").unwrap_or_else(|| "/run/pcp".to_string()).into()
}

/// The default name space: `$PMNS_DEFAULT`, else `$PCP_VAR_DIR/pmns/root`.
#[doc(alias = "PMNS_DEFAULT")]
pub fn default_pmns() -> PathBuf {
    match std::env::var_os("PMNS_DEFAULT") {
        Some(p) => p.into(),
        None => var_dir().join("pmns").join("root"),
    }
}

/// pmcd's port: the first of `$PMCD_PORT` (a comma-separated list), else
/// 44321.
pub fn pmcd_port() -> u16 {
    pmcd_ports()[0]
}

/// pmcd's ports, in the order a connection tries them
/// (`__pmPMCDAddPorts`): `$PMCD_PORT`, a comma-separated list of numbers
/// as `strtol` reads them in any base; if it is unset, or anything in it
/// is not a number or is negative, 44321 alone. Never empty.
pub fn pmcd_ports() -> Vec<u16> {
    std::env::var("PMCD_PORT").ok().and_then(|v| parse_ports(v.as_bytes())).unwrap_or_else(|| vec![44321])
}

/// The ports pmproxy is tried on when `$PMPROXY_HOST` names it
/// (`__pmProxyAddPorts`): `$PMPROXY_PORT`'s list, else 44322.
pub fn pmproxy_ports() -> Vec<u16> {
    std::env::var("PMPROXY_PORT").ok().and_then(|v| parse_ports(v.as_bytes())).unwrap_or_else(|| vec![44322])
}

fn parse_ports(mut s: &[u8]) -> Option<Vec<u16>> {
    let mut ports = Vec::new();
    loop {
        // strtol(s, &end, 0)
        let (negative, m, used) = pcp_core::support::strtod::strtoint_parts(s, 0);
        let port = if negative { -(m.min(1 << 63) as i128) } else { m.min(1 << 63) as i128 };
        let rest = &s[used..];
        if port < 0 || !(rest.is_empty() || rest[0] == b',') {
            return None;
        }
        // libpcp keeps the port in an int and the socket layer a short
        ports.push(port as i32 as u16);
        match rest.split_first() {
            None => return Some(ports),
            Some((_, after)) => s = after,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pmcd_port_lists_read_as_libpcp_reads_them() {
        assert_eq!(parse_ports(b"44321"), Some(vec![44321]));
        assert_eq!(parse_ports(b"1,0x10, 010"), Some(vec![1, 16, 8]));
        assert_eq!(parse_ports(b"1,x"), None);
        assert_eq!(parse_ports(b"-1"), None);
        assert_eq!(parse_ports(b"12a"), None);
        // strtol reads nothing in an empty value: port 0, as libpcp has it
        assert_eq!(parse_ports(b""), Some(vec![0]));
    }

    #[test]
    fn pcp_conf_lines_split_as_libpcp_splits_them() {
        let text = b"# comment=x\nPCP_A=/a\nno equals\nPCP_B='gawk --posix'\nPCP_C=x=y\n=z\nPCP_D=";
        let got = parse_conf(text);
        let want: Vec<(&[u8], &[u8])> =
            vec![(b"PCP_A", b"/a"), (b"PCP_B", b"'gawk --posix'"), (b"PCP_C", b"x=y"), (b"", b"z"), (b"PCP_D", b"")];
        assert_eq!(got.iter().map(|(k, v)| (&k[..], &v[..])).collect::<Vec<_>>(), want);
        assert_eq!(unquote(b"'gawk --posix'"), b"gawk --posix");
        assert_eq!(unquote(b"\"a'"), b"\"a'");
        assert_eq!(unquote(b"\""), b"");
    }

    #[test]
    fn config_trace_lists_the_file_once() {
        let trace = Trace::new(pcp_core::debug::DebugOptions::parse(b"config").unwrap());
        let _ = lookup_optional("PCP_RS_TEST_UNSET_VARIABLE", &trace);
        let first = String::from_utf8(trace.take()).unwrap();
        assert!(first.ends_with("pmgetconfig: getenv(PCP_RS_TEST_UNSET_VARIABLE) -> NULL\n"));
        let _ = lookup("PCP_RS_TEST_UNSET_VARIABLE", &trace);
        assert_eq!(
            String::from_utf8(trace.take()).unwrap(),
            "pmgetconfig: getenv(PCP_RS_TEST_UNSET_VARIABLE) -> NULL\npmgetconfig: PCP_RS_TEST_UNSET_VARIABLE=\n"
        );
    }

    /// What crates below this one trace through an attached trace is
    /// [`lookup_optional`]'s, the file listed at the family's first.
    #[test]
    fn attached_traces_look_up_as_lookup_optional() {
        let trace = Trace::new(pcp_core::debug::DebugOptions::parse(b"config").unwrap());
        attach(&trace);
        let first = trace.clone().config_lookup_trace("PCP_RS_TEST_UNSET_VARIABLE");
        assert!(first.ends_with(b"pmgetconfig: getenv(PCP_RS_TEST_UNSET_VARIABLE) -> NULL\n"));
        assert!(trace.take().is_empty());
        let _ = lookup_optional("PCP_RS_TEST_UNSET_VARIABLE", &trace);
        assert_eq!(trace.take(), b"pmgetconfig: getenv(PCP_RS_TEST_UNSET_VARIABLE) -> NULL\n");
    }
}
