//! Host specifications as libpcp parses them, and connecting to pmcd
//! (directly or through pmproxy) as one names.

use super::*;

/// How a host specification says to reach pmcd.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostKind {
    /// Over TCP to the named host.
    Inet,
    /// `local:`: pmcd's Unix socket, else TCP to localhost.
    Local,
    /// `unix:`: pmcd's Unix socket only.
    Unix,
}

/// A host specification as `pmNewContext(PM_CONTEXT_HOST, spec)` takes it
/// (`__pmParseHostAttrsSpec`): `host`, `host:port[,port...]`, `[addr]:port`,
/// `local:[path]`, `unix:[path]`, optionally `pcp://` in front,
/// `@proxy[:port]` after the host and `?attributes` at the end (attributes
/// are not used).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostSpec {
    /// The host name, or the socket's path (empty: pmcd's default).
    pub name: String,
    /// The ports to try in turn (empty: `$PMCD_PORT`'s).
    pub ports: Vec<u16>,
    /// How to reach pmcd.
    pub kind: HostKind,
    /// The pmproxy to reach pmcd through (`host@proxy`); without one,
    /// `$PMPROXY_HOST` names it.
    pub proxy: Option<Proxy>,
}

/// A pmproxy that relays a connection to pmcd: its host, and the ports
/// it is tried on (empty: 44322).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proxy {
    /// pmproxy's host (empty: one that cannot be reached).
    pub name: String,
    /// Its ports; the first is used.
    pub ports: Vec<u16>,
}

impl HostSpec {
    /// Parse a host specification. A malformed one (an unclosed `[`, a
    /// port that is not a number or is missing, characters after the
    /// host) is `PM_ERR_GENERIC`; one naming no host is `PM_ERR_NOTHOST`.
    /// Of `host@proxy@...`, the second host is the proxy (an empty one
    /// after a final `@`) and any after it go unused, as in libpcp.
    /// [`HostSpec::parse_reporting`] also gives libpcp's message.
    #[doc(alias = "__pmParseHostAttrsSpec")]
    pub fn parse(spec: &str) -> PmResult<HostSpec> {
        HostSpec::parse_reporting(spec).map_err(|(e, _)| e)
    }

    /// Parse a host specification as `__pmParseHostAttrsSpec` does; a
    /// malformed one also gives the message `pmNewContext` writes to
    /// standard error for it (`pmNewContext: bad host specification`, the
    /// text, and a caret under the problem).
    pub fn parse_reporting(spec: &str) -> Result<HostSpec, (PmError, Option<Vec<u8>>)> {
        let b = spec.as_bytes();
        let at = |i: usize| b.get(i).copied().unwrap_or(0);
        let fail = |point: usize, msg: &str| {
            let mut m = b"pmNewContext: bad host specification\n".to_vec();
            m.extend_from_slice(crate::timeparse::lex::caret(b, point, msg).as_bytes());
            Err((PmError::PM_ERR_GENERIC, Some(m)))
        };
        // an optional protocol, then any '/' after it
        let mut s = 0;
        let mut kind = HostKind::Inet;
        for (prefix, k) in
            [("pcp:", None), ("pcps:", None), ("local:", Some(HostKind::Local)), ("unix:", Some(HostKind::Unix))]
        {
            if spec.starts_with(prefix) {
                s = prefix.len();
                while at(s) == b'/' {
                    s += 1;
                }
                if let Some(k) = k {
                    kind = k;
                }
                break;
            }
        }
        let mut hosts: Vec<(String, Vec<u16>)> = Vec::new();
        if kind != HostKind::Inet {
            // a socket path: up to ':', '?' or the end, made absolute
            let start = s;
            while s < b.len() && b[s] != b':' && b[s] != b'?' {
                s += 1;
            }
            let delimited = s < b.len();
            let name = if s == start || (delimited && s == start + 1) {
                String::new()
            } else {
                format!("/{}", &spec[start..s])
            };
            hosts.push((name, Vec::new()));
        } else {
            let delim = |c: u8| matches!(c, b':' | b'@' | 0 | b'/' | b'?');
            let position = s;
            let mut start = s;
            while s <= b.len() {
                let next;
                if s == start && at(s) == b'[' {
                    s += 1;
                    while at(s) != b']' && at(s) != 0 {
                        s += 1;
                    }
                    if at(s) != b']' {
                        return fail(s, "missing closing ']' for host spec");
                    }
                    next = s + 1;
                    if !delim(at(next)) {
                        return fail(next, "extra characters after host spec");
                    }
                    start += 1;
                } else {
                    next = s;
                }
                if !delim(at(next)) {
                    s += 1;
                    continue;
                }
                if s == position {
                    break;
                }
                if s == start {
                    s += 1;
                    continue;
                }
                hosts.push((String::from_utf8_lossy(&b[start..s]).into_owned(), Vec::new()));
                s = next;
                if at(s) == b':' {
                    s += 1;
                    start = s;
                    loop {
                        let c = at(s);
                        if matches!(c, b',' | b'@' | 0 | b'/' | b'?') {
                            if s == start {
                                return fail(s, "missing port");
                            }
                            // atoi, kept in an int and then a socket's short
                            let port = spec[start..s].parse::<u64>().map_or(u16::MAX, |v| v as i32 as u16);
                            if let Some(h) = hosts.last_mut() {
                                h.1.push(port);
                            }
                            start = s + 1;
                            if c == b',' {
                                s += 1;
                                continue;
                            }
                            break;
                        }
                        if !c.is_ascii_digit() {
                            return fail(s, "non-numeric port");
                        }
                        s += 1;
                    }
                }
                if at(s) == b'@' {
                    start = s + 1;
                    s += 1;
                    continue;
                }
                break;
            }
        }
        // attributes may follow a '?' (they are not used)
        let end = at(s);
        if end != b'?' && end != 0 && end != b'/' {
            return fail(s, "unexpected terminal character");
        }
        let mut hosts = hosts.into_iter();
        let Some((name, ports)) = hosts.next() else { return Err((PmError::PM_ERR_NOTHOST, None)) };
        let proxy = match hosts.next() {
            Some((name, ports)) => Some(Proxy { name, ports }),
            // (`host@`: a proxy with no name, which cannot be reached)
            None if spec[..s.min(spec.len())].ends_with('@') => Some(Proxy { name: String::new(), ports: Vec::new() }),
            None => None,
        };
        Ok(HostSpec { name, ports, kind, proxy })
    }

    /// The Unix socket path a `local:` or `unix:` specification uses:
    /// the one it names, else `$PMCD_SOCKET`, else
    /// `$PCP_RUN_DIR/pmcd.socket`.
    pub fn socket_path(&self) -> std::path::PathBuf {
        if !self.name.is_empty() {
            return self.name.clone().into();
        }
        match crate::config::get("PMCD_SOCKET") {
            Some(p) => p.into(),
            None => crate::config::run_dir().join("pmcd.socket"),
        }
    }

    /// [`HostSpec::socket_path`], tracing the look-up of `$PCP_RUN_DIR`
    /// under `-Dconfig` as libpcp does (it works the default path out
    /// once per process).
    fn socket_path_traced(&self, trace: &Trace) -> std::path::PathBuf {
        // (what a trace notes once the default path has been worked out)
        const SOCKET_DEFAULT: &str = "pmcd socket default";
        if self.name.is_empty() && std::env::var_os("PMCD_SOCKET").is_none() && trace.changed(SOCKET_DEFAULT, 1) {
            let _ = crate::config::lookup("PCP_RUN_DIR", trace);
        }
        self.socket_path()
    }
}

/// What `pmNewContext(PM_CONTEXT_HOST, spec)` writes to standard error
/// before it fails on a malformed host specification (empty for a
/// well-formed one): tools write it ahead of their own message.
pub fn spec_report(spec: &str) -> Vec<u8> {
    match HostSpec::parse_reporting(spec) {
        Err((_, Some(message))) => message,
        _ => Vec::new(),
    }
}

/// Connect to pmcd as `__pmConnectPMCD` does, through the handshake:
/// `local:` and `unix:` try the Unix socket (and `local:` then TCP to
/// localhost); TCP tries each port in turn, each attempt waiting at most
/// the connect timeout. The last attempt's error is the answer.
pub fn connect_spec(spec: &HostSpec, timeouts: Timeouts, ctxflags: u32) -> PmResult<PmcdConnection<BoxStream>> {
    connect_spec_traced(spec, timeouts, ctxflags, &Trace::off())
}

/// [`connect_spec`], tracing the PDUs of each handshake (and of the
/// connection made) into `trace` under `-Dpdu`.
pub fn connect_spec_traced(
    spec: &HostSpec,
    timeouts: Timeouts,
    ctxflags: u32,
    trace: &Trace,
) -> PmResult<PmcdConnection<BoxStream>> {
    let opts = |local: bool, unix_socket: bool| ClientOptions {
        pid: std::process::id() as i32,
        ctxflags,
        local,
        unix_socket,
        container: None,
    };
    let env_proxy = || {
        let name = std::env::var("PMPROXY_HOST").ok()?;
        Some(Proxy { name, ports: crate::config::pmproxy_ports() })
    };
    if spec.kind == HostKind::Inet {
        if let Some(proxy) = spec.proxy.clone().or_else(env_proxy) {
            return connect_via(&proxy, spec, timeouts, &opts(proxy.name.contains("localhost"), false), trace);
        }
    } else if env_proxy().is_some() {
        // libpcp tries a socket path's (negative) count of ports through
        // the proxy: none, and its -1 reads as EPERM
        return Err(PmError::from_errno(1));
    }
    let mut name = spec.name.as_str();
    let mut last = PmError::from_errno(111);
    let traced = trace.on(DebugFlag::Context);
    if spec.kind != HostKind::Inet {
        #[cfg(unix)]
        match transport::connect_unix(&spec.socket_path_traced(trace)) {
            Ok(stream) => match PmcdConnection::handshake_traced(
                Box::new(stream) as BoxStream,
                &opts(true, true),
                timeouts,
                trace,
            ) {
                Ok(c) => {
                    if traced {
                        let path = spec.socket_path();
                        trace_connected(trace, spec, &format!("path={}", path.display()), &c);
                    }
                    return Ok(c);
                }
                Err(e) => last = e,
            },
            Err(e) => {
                if traced {
                    trace_failed_socket(trace);
                }
                last = e
            }
        }
        if spec.kind == HostKind::Unix {
            if traced {
                trace_failed(trace, spec, &[], last);
            }
            return Err(last);
        }
        name = "localhost";
    }
    let ports = if spec.ports.is_empty() || spec.kind == HostKind::Local {
        crate::config::pmcd_ports()
    } else {
        spec.ports.clone()
    };
    let local = name.contains("localhost");
    for &port in &ports {
        let addrs = match transport::resolve(name, port) {
            Ok(addrs) => addrs,
            Err(e) => {
                if traced {
                    trace_unknown_host(trace, name, port, &e);
                }
                last = PmError::from_errno(transport::EHOSTUNREACH);
                continue;
            }
        };
        match transport::connect_addrs(addrs, timeouts.connect) {
            Ok(stream) => match PmcdConnection::handshake_traced(
                Box::new(stream) as BoxStream,
                &opts(local, false),
                timeouts,
                trace,
            ) {
                Ok(c) => {
                    if traced {
                        trace_connected(trace, spec, &format!("port={port}"), &c);
                    }
                    return Ok(c);
                }
                Err(e) => {
                    if traced {
                        trace.ipc_forget(None);
                    }
                    last = e
                }
            },
            Err(e) => {
                if traced {
                    trace_failed_socket(trace);
                }
                last = e
            }
        }
    }
    if traced {
        trace_failed(trace, spec, &ports, last);
    }
    Err(last)
}

/// The name libpcp gives the host of `spec` in its traces: the host's,
/// or for a Unix socket its path.
pub(crate) fn traced_host_name(spec: &HostSpec) -> String {
    match spec.kind {
        HostKind::Inet => spec.name.clone(),
        _ => spec.socket_path().display().to_string(),
    }
}

/// `-Dcontext`: `__pmConnectPMCD`'s report of a connection made (at
/// `place`: `port=N` or `path=P`) and the IPC table.
#[cold]
fn trace_connected(trace: &Trace, spec: &HostSpec, place: &str, c: &PmcdConnection<BoxStream>) {
    trace.write(format_args!(
        "__pmConnectPMCD({}): pmcd connection {place} fd={} PDU version=2\n",
        traced_host_name(spec),
        c.fd()
    ));
    trace.write_bytes(trace.ipc_table().as_bytes());
}

/// `-Dcontext`: `__pmSetSocketIPC`'s lines for a socket made for a
/// connection that then failed (the descriptor it had: the lowest free
/// one, as the socket's was), and its closing.
#[cold]
fn trace_failed_socket(trace: &Trace) {
    let fd = std::fs::File::open("/dev/null").map_or(-1, |f| std::os::fd::AsRawFd::as_raw_fd(&f));
    trace.write(format_args!("__pmSetSocketIPC: fd={fd}\n"));
    trace.write_bytes(trace.ipc_set(fd, false, true).as_bytes());
    trace.ipc_forget(Some(fd));
}

/// `-Dcontext`: `__pmAuxConnectPMCDPort`'s report of a host name that
/// did not resolve (no socket is made).
#[cold]
fn trace_unknown_host(trace: &Trace, name: &str, port: u16, e: &std::io::Error) {
    let (code, text) = transport::host_error(e);
    trace.write(format_args!("auxconnect.c:__pmAuxConnectPMCDPort({name}, {port}) : hosterror={code}, ``{text}''\n"));
}

/// `-Dcontext`: `__pmConnectPMCD`'s report of failing on every port.
#[cold]
fn trace_failed(trace: &Trace, spec: &HostSpec, ports: &[u16], e: PmError) {
    let ports: Vec<String> = ports.iter().map(u16::to_string).collect();
    trace.write(format_args!(
        "__pmConnectPMCD({}): pmcd connection port={} failed: {e}\n",
        traced_host_name(spec),
        ports.join(",")
    ));
}

/// Connect to pmcd through pmproxy, as `__pmConnectPMCD` does: for each
/// of pmcd's ports in turn, a connection to the proxy's (first) port,
/// which must answer the client's version line with its own, then the
/// host and port pmcd is on, then the handshake, relayed. Failing to
/// reach the proxy at all ends the attempts.
fn connect_via(
    proxy: &Proxy,
    spec: &HostSpec,
    timeouts: Timeouts,
    opts: &ClientOptions,
    trace: &Trace,
) -> PmResult<PmcdConnection<BoxStream>> {
    let ports = if spec.ports.is_empty() { crate::config::pmcd_ports() } else { spec.ports.clone() };
    let proxy_port = proxy.ports.first().copied().unwrap_or(44322);
    let mut last = PmError::from_errno(111);
    for port in ports {
        let mut stream = transport::connect_port(&proxy.name, proxy_port, timeouts.connect)?;
        let relayed = negotiate_proxy(&mut stream, &spec.name, port, timeouts.greeting)
            .and_then(|()| PmcdConnection::handshake_traced(Box::new(stream) as BoxStream, opts, timeouts, trace));
        match relayed {
            Ok(c) => return Ok(c),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// pmproxy's version exchange, then the host and port to relay to. A
/// reply line that is not `pmproxy-server 1` (or none, in time) is
/// `PM_ERR_IPC`.
pub(super) fn negotiate_proxy(
    stream: &mut transport::Connection,
    host: &str,
    port: u16,
    wait: Option<std::time::Duration>,
) -> PmResult<()> {
    use std::io::{Read, Write};
    let ipc = |_| PmError::PM_ERR_IPC;
    if let transport::Connection::Tcp(s) = stream {
        s.set_read_timeout(wait).map_err(ipc)?;
    }
    stream.write_all(b"pmproxy-client 1\n").map_err(ipc)?;
    // libpcp reads the line a byte at a time, up to a host name's length
    // and some
    let mut line = Vec::new();
    let mut byte = [0u8];
    while line.len() < 74 {
        match stream.read(&mut byte) {
            Ok(1) if byte[0] != b'\n' && byte[0] != b'\r' => line.push(byte[0]),
            Ok(1) => break,
            _ => return Err(PmError::PM_ERR_IPC),
        }
    }
    if line != b"pmproxy-server 1" {
        return Err(PmError::PM_ERR_IPC);
    }
    if let transport::Connection::Tcp(s) = stream {
        s.set_read_timeout(None).map_err(ipc)?;
    }
    stream.write_all(format!("{host} {port}\n").as_bytes()).map_err(ipc)
}
