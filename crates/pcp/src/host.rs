//! Host contexts (`PM_CONTEXT_HOST`): the PMAPI's services from pmcd.
//!
//! A [`HostSource`] owns a connection to pmcd and what libpcp keeps for a
//! host context: whether pmcd holds the current instance profile (it is
//! sent before a fetch, or an instance-labels request, only after it has
//! changed), the PDU counts, and the back-off state of
//! [`HostSource::reconnect`]. The name space is pmcd's: names, PMIDs,
//! children and traversals are each a request. The anonymous derived
//! metrics every context has (`event.flags`, `event.missed`) are answered
//! here, after pmcd, as libpcp answers them.
//!
//! Every service takes `&self`: the connection sits behind a mutex, held
//! for one request and its reply, as libpcp holds a context's lock. A
//! `HostSource` is `Send` and `Sync`; each has its own connection, so
//! contexts to many hosts (or many to one) work at once from any threads.

use crate::context::{Context, Instances, TextLevel};
use crate::derived::{anon_by_pmid, ANON};
use crate::profile::Profile;
use crate::source::{MetricSource, RemoteNames};
use crate::transport::{self, Backoff, PduCounts, PduStream, PmcdConnection, Timeouts};
use pcp_core::labels::{flags as label_flags, LabelSet};
use pcp_core::{
    Desc, FetchResult, InDom, MetricType, PmError, PmId, PmResult, Semantics, Timestamp, Value, PM_IN_NULL,
};
use pcp_pdu::handshake::{features, ClientOptions};
use pcp_pdu::pmns::PMNS_LEAF_STATUS;
use pcp_pdu::text::{PM_TEXT_HELP, PM_TEXT_INDOM, PM_TEXT_ONELINE, PM_TEXT_PMID};
use pcp_pdu::{InstanceReq, LabelReq, NameList, NameReq, Pdu, PduType, ResultPdu, TextReq};
use pcp_pmns::tree::Child;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

/// A byte stream to pmcd of any kind (TCP, Unix socket, in memory).
pub type BoxStream = Box<dyn PduStream + Send>;

/// How a host source reaches pmcd, the first time and on every
/// reconnection: a new connection that has been through the handshake.
pub type Connector = Arc<dyn Fn() -> PmResult<PmcdConnection<BoxStream>> + Send + Sync>;

/// The sender word of requests: the context's handle. Each host source has
/// its own connection, so it is libpcp's first context there: handle 0.
const HANDLE: i32 = 0;
/// The context slot pmcd files the profile and fetches under.
const SLOT: i32 = 0;

const ETIMEDOUT: PmError = PmError::from_errno(110);

/// pmcd's limit on the PDUs it takes is 64 KiB: libpcp splits long name
/// lookups to stay under 63 KiB.
const NAMES_PDU_LIMIT: usize = 63 * 1024;

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
            return connect_via(&proxy, spec, timeouts, &opts(proxy.name.contains("localhost"), false));
        }
    } else if env_proxy().is_some() {
        // libpcp tries a socket path's (negative) count of ports through
        // the proxy: none, and its -1 reads as EPERM
        return Err(PmError::from_errno(1));
    }
    let mut name = spec.name.as_str();
    let mut last = PmError::from_errno(111);
    if spec.kind != HostKind::Inet {
        #[cfg(unix)]
        match transport::connect_unix(&spec.socket_path()) {
            Ok(stream) => match PmcdConnection::handshake(Box::new(stream) as BoxStream, &opts(true, true), timeouts) {
                Ok(c) => return Ok(c),
                Err(e) => last = e,
            },
            Err(e) => last = e,
        }
        if spec.kind == HostKind::Unix {
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
    for port in ports {
        match transport::connect_port(name, port, timeouts.connect) {
            Ok(stream) => match PmcdConnection::handshake(Box::new(stream) as BoxStream, &opts(local, false), timeouts)
            {
                Ok(c) => return Ok(c),
                Err(e) => last = e,
            },
            Err(e) => last = e,
        }
    }
    Err(last)
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
) -> PmResult<PmcdConnection<BoxStream>> {
    let ports = if spec.ports.is_empty() { crate::config::pmcd_ports() } else { spec.ports.clone() };
    let proxy_port = proxy.ports.first().copied().unwrap_or(44322);
    let mut last = PmError::from_errno(111);
    for port in ports {
        let mut stream = transport::connect_port(&proxy.name, proxy_port, timeouts.connect)?;
        let relayed = negotiate_proxy(&mut stream, &spec.name, port, timeouts.greeting)
            .and_then(|()| PmcdConnection::handshake(Box::new(stream) as BoxStream, opts, timeouts));
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
fn negotiate_proxy(
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

/// What changes between requests.
struct State {
    /// `None` after a reconnection failed (requests fail with
    /// `PM_ERR_IPC` until one succeeds).
    conn: Option<PmcdConnection<BoxStream>>,
    /// pmcd holds the profile as it was after this many changes.
    profile_sent: Option<u64>,
    /// No reconnection before this (after a failed one).
    retry_at: Option<Instant>,
    backoff: Backoff,
    /// PDUs counted on connections since closed.
    counts: PduCounts,
}

impl State {
    fn conn(&mut self) -> PmResult<&mut PmcdConnection<BoxStream>> {
        self.conn.as_mut().ok_or(PmError::PM_ERR_IPC)
    }

    /// Send the profile if pmcd does not hold this one (`__pmUpdateProfile`).
    fn update_profile(&mut self, profile: &Profile) -> PmResult<()> {
        if self.profile_sent == Some(profile.changes()) {
            return Ok(());
        }
        self.conn()?.send(&Pdu::Profile(profile.to_pdu(SLOT)), HANDLE)?;
        self.profile_sent = Some(profile.changes());
        Ok(())
    }
}

/// The metric source of a host context: a connection to pmcd and the
/// state libpcp keeps with it.
pub struct HostSource {
    spec: String,
    connector: Connector,
    state: Mutex<State>,
    warnings: Vec<String>,
}

impl std::fmt::Debug for HostSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostSource").field("spec", &self.spec).finish_non_exhaustive()
    }
}

/// A fetch's result with the anonymous derived metrics' sets emptied:
/// they have no operands, so no values.
fn without_anon_values(mut result: FetchResult) -> FetchResult {
    for set in &mut result.sets {
        if anon_by_pmid(set.pmid).is_some() {
            set.values = Ok(Vec::new());
        }
    }
    result
}

/// Is `full` at or below `prefix` in the name space ("" is the root)?
fn below(prefix: &str, full: &str) -> bool {
    prefix.is_empty() || (full.starts_with(prefix) && matches!(full.as_bytes().get(prefix.len()), None | Some(b'.')))
}

/// `__dmtraverse` over the derived metrics every context has: the names
/// at or below `name`, in registration order.
fn derived_traverse(name: &str) -> Vec<&'static str> {
    ANON.iter().map(|a| a.name).filter(|n| below(name, n)).collect()
}

/// `__dmchildren`: the next name components below `name` among the
/// derived metrics named (none for a derived metric itself), or
/// `PM_ERR_NAME` when no derived metric is at or below it.
pub(crate) fn derived_children<'a>(name: &str, names: impl IntoIterator<Item = &'a str>) -> PmResult<Vec<Child>> {
    let mut out: Vec<Child> = Vec::new();
    for full in names.into_iter().filter(|n| below(name, n)) {
        if full.len() == name.len() {
            return Ok(Vec::new());
        }
        let rest = &full[if name.is_empty() { 0 } else { name.len() + 1 }..];
        let (child, leaf) = match rest.find('.') {
            Some(dot) => (&rest[..dot], false),
            None => (rest, true),
        };
        if !out.iter().any(|c| c.name == child) {
            out.push(Child { name: child.to_string(), leaf });
        }
    }
    if out.is_empty() {
        Err(PmError::PM_ERR_NAME)
    } else {
        Ok(out)
    }
}

/// libpcp's `stitch_list` as `pmGetChildrenStatus` uses it: the children
/// a name space gave (or its error), then those of derived metrics
/// (`__dmchildren`'s answer) not already among them; a derived metric's
/// own name is a leaf.
pub(crate) fn stitch(base: PmResult<Vec<Child>>, derived: PmResult<Vec<Child>>) -> PmResult<Vec<Child>> {
    match (base, derived) {
        (Ok(mut list), Ok(extra)) if !extra.is_empty() => {
            for c in extra {
                if !list.iter().any(|l| l.name == c.name) {
                    list.push(c);
                }
            }
            Ok(list)
        }
        (Err(_), Ok(extra)) => Ok(extra),
        (r, _) => r,
    }
}

/// `__dmgetpmid` over the derived metrics every context has.
fn derived_pmid(name: &str) -> Option<PmId> {
    ANON.iter().find(|a| a.name == name).map(|a| a.desc.pmid)
}

/// A name as a C string holds it: up to its first NUL.
fn c_str(b: &[u8]) -> &[u8] {
    &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())]
}

fn c_string(b: &[u8]) -> String {
    String::from_utf8_lossy(c_str(b)).into_owned()
}

/// How many of `names` libpcp puts in one `PDU_PMNS_NAMES` request when
/// there are many (at least one).
fn names_batch(names: &[&str]) -> usize {
    let mut size = pcp_pdu::HEADER_LEN + 12;
    let mut n = 0;
    for name in names {
        let len = 4 + pcp_pdu::padded(name.len());
        if size + len > NAMES_PDU_LIMIT {
            break;
        }
        size += len;
        n += 1;
    }
    n.max(1)
}

impl HostSource {
    /// `pmNewContext(PM_CONTEXT_HOST, spec)`: connect to pmcd as the
    /// specification says (see [`HostSpec`], [`connect_spec`]) with
    /// libpcp's timeouts from the environment.
    #[doc(alias = "pmNewContext")]
    pub fn open(spec: &str) -> PmResult<HostSource> {
        let parsed = HostSpec::parse(spec)?;
        let (timeouts, warnings) = Timeouts::from_env();
        let connector: Connector = Arc::new(move || connect_spec(&parsed, timeouts, 0));
        let mut h = HostSource::with_connector(spec, connector)?;
        h.warnings = warnings;
        Ok(h)
    }

    /// A host source for `spec` reaching pmcd through `connector` (tests
    /// give one over an in-memory stream).
    pub fn with_connector(spec: &str, connector: Connector) -> PmResult<HostSource> {
        let conn = connector()?;
        let (backoff, warning) = Backoff::from_env();
        Ok(HostSource {
            spec: spec.to_string(),
            connector,
            state: Mutex::new(State {
                conn: Some(conn),
                profile_sent: None,
                retry_at: None,
                backoff,
                counts: PduCounts::default(),
            }),
            warnings: warning.into_iter().collect(),
        })
    }

    /// The specification the source was opened with.
    pub fn spec(&self) -> &str {
        &self.spec
    }

    /// Warnings libpcp would log about the environment it read
    /// (`$PMCD_REQUEST_TIMEOUT`, `$PMCD_RECONNECT_TIMEOUT` values it
    /// ignored).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // a panic elsewhere cannot leave the state half-changed in a way
        // that matters: the connection breaks itself on any failure
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn request(&self, pdu: &Pdu, reply: PduType) -> PmResult<Pdu> {
        self.lock().conn()?.request(pdu, HANDLE, reply)
    }

    /// What pmcd offered in its greeting (`PDU_FLAG_*` features).
    pub fn features(&self) -> u16 {
        self.lock().conn.as_ref().map_or(0, |c| c.server().features)
    }

    /// The PDUs sent and received by type, over every connection this
    /// source has made (libpcp's counters, for `pmprobe -V`).
    pub fn pdu_counts(&self) -> PduCounts {
        let st = self.lock();
        let mut c = st.counts;
        if let Some(conn) = &st.conn {
            c.add(conn.counts());
        }
        c
    }

    /// `pmDupContext`: another connection to the same pmcd (the profile
    /// is the caller's to copy; it is sent before the new source's first
    /// fetch).
    #[doc(alias = "pmDupContext")]
    pub fn dup(&self) -> PmResult<HostSource> {
        let mut h = HostSource::with_connector(&self.spec, self.connector.clone())?;
        h.warnings = self.warnings.clone();
        Ok(h)
    }

    /// `pmReconnectContext`: drop the connection and connect again. After
    /// a failure, attempts before the back-off delay
    /// (`$PMCD_RECONNECT_TIMEOUT`, 5, 10, 20, 40, 80 seconds) has passed
    /// fail at once; a failed attempt moves to the next delay. Both fail
    /// with `-ETIMEDOUT`, as libpcp's. A success starts the delays again
    /// and has the profile sent before the next fetch.
    #[doc(alias = "pmReconnectContext")]
    pub fn reconnect(&self) -> PmResult<()> {
        self.reconnect_at(Instant::now())
    }

    /// [`HostSource::reconnect`] as if the time were `now`.
    pub fn reconnect_at(&self, now: Instant) -> PmResult<()> {
        let mut st = self.lock();
        if st.retry_at.is_some_and(|at| now < at) {
            return Err(ETIMEDOUT);
        }
        if let Some(old) = st.conn.take() {
            let counts = *old.counts();
            st.counts.add(&counts);
        }
        match (self.connector)() {
            Ok(c) => {
                st.conn = Some(c);
                st.retry_at = None;
                st.backoff.reset();
                st.profile_sent = None;
                Ok(())
            }
            Err(_) => {
                let delay = st.backoff.next_delay();
                st.retry_at = Some(now + delay);
                Err(ETIMEDOUT)
            }
        }
    }

    /// When the next reconnection may be tried, after a failed one.
    pub fn retry_at(&self) -> Option<Instant> {
        self.lock().retry_at
    }

    /// `pmLookupName`: PMIDs for names, one-to-one, `PM_ID_NULL` where a
    /// name is unknown; with the count found. One name that is not found
    /// is its error (pmcd's); a failure of the exchange is the error.
    /// Names pmcd does not know may be derived metrics.
    #[doc(alias = "pmLookupName")]
    pub fn lookup_names(&self, names: &[&str]) -> PmResult<(Vec<PmId>, usize)> {
        if names.is_empty() {
            return Err(PmError::PM_ERR_TOOSMALL);
        }
        let n = names.len();
        let mut ids = vec![PmId::NULL; n];
        let mut sts: PmResult<usize> = Ok(0);
        let mut found = 0usize;
        let mut base = 0;
        while base < n {
            let num = if n < 500 { n } else { names_batch(&names[base..]).min(n - base) };
            let req = NameList {
                names: names[base..base + num].iter().map(|s| s.as_bytes().to_vec()).collect(),
                status: None,
            };
            match self.request(&Pdu::PmnsNames(req), PduType::PMNS_IDS) {
                Ok(Pdu::PmnsIds(l)) if l.ids.len() == num => {
                    ids[base..base + num].copy_from_slice(&l.ids);
                    found += usize::try_from(l.status).unwrap_or(0);
                    sts = Ok(found);
                }
                Ok(_) => {
                    sts = Err(PmError::PM_ERR_IPC);
                    break;
                }
                Err(e) => {
                    sts = Err(e);
                    break;
                }
            }
            base += num;
        }
        let nfail = if sts.is_ok() { n - found.min(n) } else { 0 };
        if sts.is_err() || nfail > 0 {
            let mut still = 0;
            for (id, name) in ids.iter_mut().zip(names) {
                if id.is_null() {
                    match derived_pmid(name) {
                        Some(p) => *id = p,
                        None => still += 1,
                    }
                }
            }
            if still == 0 {
                sts = Ok(n);
            }
        }
        match sts {
            Ok(0) if n == 1 => Err(PmError::PM_ERR_NAME),
            Ok(count) => Ok((ids, count)),
            Err(e) => Err(e),
        }
    }

    fn names_by_id(&self, pmid: PmId) -> PmResult<Vec<Vec<u8>>> {
        let req = Pdu::PmnsIds(pcp_pdu::IdList { status: 0, ids: vec![pmid] });
        match self.request(&req, PduType::PMNS_NAMES)? {
            Pdu::PmnsNames(l) => Ok(l.names),
            _ => Err(PmError::PM_ERR_IPC),
        }
    }

    /// `pmNameID`: a name of `pmid` (the first pmcd gives), else a
    /// derived metric's.
    #[doc(alias = "pmNameID")]
    pub fn name_of(&self, pmid: PmId) -> PmResult<String> {
        match self.names_by_id(pmid) {
            Ok(names) => names.first().map(|n| c_string(n)).ok_or(PmError::PM_ERR_PMID),
            Err(e) => anon_by_pmid(pmid).map(|a| a.name.to_string()).ok_or(e),
        }
    }

    /// `pmNameAll`: every name of `pmid`, else a derived metric's.
    #[doc(alias = "pmNameAll")]
    pub fn names_of(&self, pmid: PmId) -> PmResult<Vec<String>> {
        let r = self.names_by_id(pmid);
        if let Ok(names) = &r {
            if !names.is_empty() {
                return Ok(names.iter().map(|n| c_string(n)).collect());
            }
        }
        match anon_by_pmid(pmid) {
            Some(a) => Ok(vec![a.name.to_string()]),
            None => Err(r.err().unwrap_or(PmError::PM_ERR_PMID)),
        }
    }

    /// `pmGetChildrenStatus`: the children of `name` ("" is the root) and
    /// whether each is a leaf: pmcd's, then those of derived metrics not
    /// already among them. A leaf has none; an unknown name is pmcd's
    /// error.
    #[doc(alias = "pmGetChildren")]
    #[doc(alias = "pmGetChildrenStatus")]
    pub fn children(&self, name: &str) -> PmResult<Vec<Child>> {
        let req = Pdu::PmnsChild(NameReq { subtype: 1, name: name.as_bytes().to_vec() });
        let remote = match self.request(&req, PduType::PMNS_NAMES) {
            Ok(Pdu::PmnsNames(l)) => Ok(l
                .names
                .iter()
                .enumerate()
                .map(|(i, n)| Child {
                    name: c_string(n),
                    leaf: l.status.as_ref().and_then(|s| s.get(i)).is_none_or(|&s| s == PMNS_LEAF_STATUS),
                })
                .collect::<Vec<_>>()),
            Ok(_) => Err(PmError::PM_ERR_IPC),
            Err(e) => Err(e),
        };
        stitch(remote, derived_children(name, ANON.iter().map(|a| a.name)))
    }

    /// `pmTraversePMNS`: every metric name at or below `name`, pmcd's in
    /// its order, then derived metrics' (an unknown name is
    /// `PM_ERR_NAME` unless a derived metric is below it).
    #[doc(alias = "pmTraversePMNS")]
    pub fn traverse_with(&self, name: &str, mut f: impl FnMut(&str)) -> PmResult<()> {
        let req = Pdu::PmnsTraverse(NameReq { subtype: 0, name: name.as_bytes().to_vec() });
        let mut sts = Ok(());
        match self.request(&req, PduType::PMNS_NAMES) {
            Ok(Pdu::PmnsNames(l)) => {
                if l.names.is_empty() {
                    // libpcp stops here, without the derived metrics
                    return Ok(());
                }
                for n in &l.names {
                    f(&c_string(n));
                }
            }
            Ok(_) => return Err(PmError::PM_ERR_IPC),
            Err(PmError::PM_ERR_NAME) => sts = Err(PmError::PM_ERR_NAME),
            Err(e) => return Err(e),
        }
        let extra = derived_traverse(name);
        for n in &extra {
            f(n);
        }
        if extra.is_empty() {
            sts
        } else {
            Ok(())
        }
    }

    /// `pmLookupDesc`: pmcd's descriptor of `pmid`, or a derived
    /// metric's where pmcd knows no such metric.
    #[doc(alias = "pmLookupDesc")]
    pub fn lookup_desc(&self, pmid: PmId) -> PmResult<Desc> {
        let r = match self.request(&Pdu::DescReq(pmid), PduType::DESC) {
            Ok(Pdu::Desc(d)) => Ok(d),
            Ok(_) => Err(PmError::PM_ERR_IPC),
            Err(e) => Err(e),
        };
        match r {
            Err(PmError::PM_ERR_PMID | PmError::PM_ERR_PMID_LOG | PmError::PM_ERR_NOAGENT) => {
                anon_by_pmid(pmid).map(|a| a.desc).ok_or(r.err().unwrap_or(PmError::PM_ERR_PMID))
            }
            r => r,
        }
    }

    /// `pmLookupDescs`: descriptors for many metrics, one-to-one; where
    /// one cannot be had its descriptor's `pmid` is `PM_ID_NULL`. Returns
    /// the descriptors and how many were found. The error protocol of
    /// pmLookupDescs(3): a failure of the exchange is an error; with
    /// several metrics, those not found only lower the count; with one,
    /// its error is the answer (pmcd's). A pmcd that offers
    /// `PDU_FLAG_DESCS` is asked once (`PDU_DESC_IDS`), any other once
    /// per metric.
    #[doc(alias = "pmLookupDescs")]
    pub fn lookup_descs(&self, pmids: &[PmId]) -> PmResult<(Vec<Desc>, usize)> {
        if pmids.is_empty() {
            return Err(PmError::PM_ERR_TOOSMALL);
        }
        // libpcp leaves a failed lookup's other fields as they were
        let null = Desc {
            pmid: PmId::NULL,
            ty: MetricType(0),
            indom: InDom(0),
            sem: Semantics(0),
            units: pcp_core::Units::NONE,
        };
        let mut descs = vec![null; pmids.len()];
        let mut sts: PmResult<usize>;
        let mut nfail = 0;
        if self.features() & features::DESCS != 0 {
            if pmids.iter().all(|p| p.is_derived()) {
                sts = Ok(0);
                nfail = 1;
            } else {
                match self.request(&Pdu::DescIds(pmids.to_vec()), PduType::DESCS) {
                    Ok(Pdu::Descs(got)) if got.len() == pmids.len() => {
                        let count = got.iter().filter(|d| !d.pmid.is_null()).count();
                        descs = got;
                        nfail = pmids.len() - count;
                        sts = Ok(count);
                    }
                    Ok(_) => {
                        sts = Err(PmError::PM_ERR_IPC);
                        nfail = pmids.len();
                    }
                    Err(e) => {
                        sts = Err(e);
                        nfail = pmids.len();
                    }
                }
            }
        } else {
            let mut count = 0;
            sts = Ok(0);
            for (i, &pmid) in pmids.iter().enumerate() {
                if pmid.is_derived() {
                    nfail += 1;
                    continue;
                }
                match self.request(&Pdu::DescReq(pmid), PduType::DESC) {
                    Ok(Pdu::Desc(d)) => {
                        descs[i] = d;
                        count += 1;
                    }
                    // libpcp answers 0 here; pmLookupDescs(3) (and the
                    // bulk protocol) answer one metric with its error
                    Ok(_) if pmids.len() == 1 => sts = Err(PmError::PM_ERR_IPC),
                    Err(e) if pmids.len() == 1 => sts = Err(e),
                    _ => {}
                }
            }
            if sts.is_ok() {
                sts = Ok(count);
            }
        }
        if nfail > 0 {
            for (i, &pmid) in pmids.iter().enumerate() {
                if !pmid.is_derived() {
                    continue;
                }
                if let Some(a) = anon_by_pmid(pmid) {
                    descs[i] = a.desc;
                    if let Ok(c) = &mut sts {
                        *c += 1;
                    }
                }
            }
        }
        sts.map(|c| (descs, c))
    }

    fn instances(&self, indom: InDom, inst: i32, name: Option<&[u8]>) -> PmResult<Vec<pcp_pdu::Instance>> {
        if indom.is_null() {
            return Err(PmError::PM_ERR_INDOM);
        }
        let req = InstanceReq { indom, inst, name: name.map(<[u8]>::to_vec) };
        match self.request(&Pdu::InstanceReq(req), PduType::INSTANCE)? {
            Pdu::Instance(r) => Ok(r.instances),
            _ => Err(PmError::PM_ERR_IPC),
        }
    }

    /// `pmGetInDom`: the instances of `indom`, in pmcd's order.
    #[doc(alias = "pmGetInDom")]
    pub fn get_indom(&self, indom: InDom) -> PmResult<Instances> {
        let list = self.instances(indom, PM_IN_NULL, None)?;
        Ok(list.into_iter().map(|i| (i.inst, c_str(&i.name).to_vec())).unzip())
    }

    /// `pmNameInDom`: an instance's name.
    #[doc(alias = "pmNameInDom")]
    pub fn name_indom(&self, indom: InDom, inst: i32) -> PmResult<Vec<u8>> {
        let list = self.instances(indom, inst, None)?;
        list.first().map(|i| c_str(&i.name).to_vec()).ok_or(PmError::PM_ERR_INST)
    }

    /// `pmLookupInDom`: an instance by name.
    #[doc(alias = "pmLookupInDom")]
    pub fn lookup_indom(&self, indom: InDom, name: &[u8]) -> PmResult<i32> {
        let list = self.instances(indom, PM_IN_NULL, Some(name))?;
        list.first().map(|i| i.inst).ok_or(PmError::PM_ERR_INST)
    }

    /// libpcp's `lookuptext`: the text of `kind`; where full help is
    /// missing or empty, the one-line text.
    fn text(&self, ident: u32, mut kind: i32) -> PmResult<Vec<u8>> {
        loop {
            let r = match self.request(&Pdu::TextReq(TextReq::new(ident, kind)), PduType::TEXT) {
                Ok(Pdu::Text(t)) => Ok(t.c_text().to_vec()),
                Ok(_) => Err(PmError::PM_ERR_IPC),
                Err(e) => Err(e),
            };
            let empty = r.as_ref().map_or(true, Vec::is_empty);
            if empty && kind & PM_TEXT_HELP != 0 {
                kind = (kind & !PM_TEXT_HELP) | PM_TEXT_ONELINE;
                continue;
            }
            return r;
        }
    }

    /// `pmLookupText`: a metric's help text (a derived metric's own).
    #[doc(alias = "pmLookupText")]
    pub fn lookup_text(&self, pmid: PmId, level: TextLevel) -> PmResult<Vec<u8>> {
        if pmid.is_derived() {
            let a = anon_by_pmid(pmid).ok_or(PmError::PM_ERR_PMID)?;
            let text = if level == TextLevel::OneLine { a.oneline } else { a.help };
            return Ok(text.as_bytes().to_vec());
        }
        self.text(pmid.0, text_level(level) | PM_TEXT_PMID)
    }

    /// `pmLookupInDomText`: an instance domain's help text.
    #[doc(alias = "pmLookupInDomText")]
    pub fn lookup_indom_text(&self, indom: InDom, level: TextLevel) -> PmResult<Vec<u8>> {
        self.text(indom.0, text_level(level) | PM_TEXT_INDOM)
    }

    /// `getlabels`: the label sets of `kind` (one `PM_LABEL_*` level) for
    /// `ident`, as pmcd gives them. `PM_ERR_NOLABELS` when pmcd does not
    /// offer labels. Instance labels depend on the profile: it is sent
    /// first if pmcd does not hold it. A set without labels keeps no
    /// text, as libpcp's decoder has it.
    #[doc(alias = "pmGetContextLabels")]
    #[doc(alias = "pmGetDomainLabels")]
    #[doc(alias = "pmGetInDomLabels")]
    #[doc(alias = "pmGetClusterLabels")]
    #[doc(alias = "pmGetItemLabels")]
    #[doc(alias = "pmGetInstancesLabels")]
    pub fn labels(&self, kind: u8, ident: u32, profile: &Profile) -> PmResult<Vec<LabelSet>> {
        let mut st = self.lock();
        if st.conn()?.server().features & features::LABELS == 0 {
            return Err(PmError::PM_ERR_NOLABELS);
        }
        if kind & label_flags::INSTANCES != 0 {
            st.update_profile(profile)?;
        }
        let req = LabelReq::new(ident, i32::from(kind))?;
        let reply = st.conn()?.request(&Pdu::LabelReq(req), HANDLE, PduType::LABEL)?;
        let Pdu::Label(l) = reply else { return Err(PmError::PM_ERR_IPC) };
        if l.ident != req.ident || l.kind != req.kind {
            return Err(PmError::PM_ERR_IPC);
        }
        Ok(l.sets
            .into_iter()
            .map(|mut s| {
                if s.nlabels <= 0 {
                    s.json.clear();
                    s.labels.clear();
                }
                s
            })
            .collect())
    }

    /// `pmFetch`: the values of `pmids`, with the profile sent first if
    /// pmcd does not hold it. Also returns the `PMCD_*` bits of any state
    /// changes pmcd announced before the result (agents added, restarted
    /// or dropped; labels or names changed). Derived metrics without
    /// operands have no values.
    #[doc(alias = "pmFetch")]
    #[doc(alias = "pmFetchHighRes")]
    pub fn fetch(&self, pmids: &[PmId], profile: &Profile) -> PmResult<(FetchResult, i32)> {
        if pmids.is_empty() {
            return Err(PmError::PM_ERR_TOOSMALL);
        }
        let (r, changed) = {
            let mut st = self.lock();
            st.update_profile(profile)?;
            st.conn()?.fetch(HANDLE, SLOT, pmids)?
        };
        Ok((without_anon_values(r.result), changed))
    }

    /// `pmFetch` from many hosts at once: every request is sent (each
    /// source's profile first where pmcd does not hold it) before any
    /// reply is read, so the round trips overlap and pmcds work in
    /// parallel; then each reply is read in turn. One result (or error)
    /// per source, in order, as [`HostSource::fetch`] gives it; a source
    /// whose request could not be sent has that error and nothing to
    /// read. Each source is locked for the whole exchange.
    #[doc(alias = "pmFetch")]
    pub fn fetch_many(sources: &[(&HostSource, &Profile)], pmids: &[PmId]) -> Vec<PmResult<(FetchResult, i32)>> {
        if pmids.is_empty() {
            return sources.iter().map(|_| Err(PmError::PM_ERR_TOOSMALL)).collect();
        }
        let mut locked: Vec<(MutexGuard<'_, State>, PmResult<()>)> = sources
            .iter()
            .map(|(src, profile)| {
                let mut st = src.lock();
                let sent = st.update_profile(profile).and_then(|()| st.conn()?.send_fetch(HANDLE, SLOT, pmids));
                (st, sent)
            })
            .collect();
        locked
            .iter_mut()
            .map(|(st, sent)| {
                (*sent)?;
                let (r, changed) = st.conn()?.recv_fetch()?;
                Ok((without_anon_values(r.result), changed))
            })
            .collect()
    }

    /// `pmStore`: ask pmcd to change the values in `result` (each set
    /// with at least one value); pmcd's answer is the outcome.
    #[doc(alias = "pmStore")]
    #[doc(alias = "pmStoreHighRes")]
    pub fn store(&self, result: &FetchResult) -> PmResult<()> {
        crate::context::storable(result)?;
        let pdu = Pdu::Result(ResultPdu::from(result.clone()));
        match self.request(&pdu, PduType::ERROR)? {
            Pdu::Error(e) if e.code < 0 => Err(PmError::from_code(e.code)),
            _ => Ok(()),
        }
    }

    /// `pmGetContextHostName`: the value of `pmcd.hostname` if pmcd has
    /// one; else, for a local socket or a name starting "localhost", this
    /// machine's name; else the name in the specification.
    #[doc(alias = "pmGetContextHostName")]
    #[doc(alias = "pmGetHostName")]
    pub fn host_name(&self, profile: &Profile) -> String {
        if let Ok((ids, _)) = self.lookup_names(&["pmcd.hostname"]) {
            if let Ok((r, _)) = self.fetch(&ids, profile) {
                let first = r.sets.first().and_then(|s| s.values.as_ref().ok()).and_then(|v| v.first());
                if let Some(Value::Block(b)) = first.map(|v| &v.value) {
                    return c_string(&b.data);
                }
            }
        }
        let name = HostSpec::parse(&self.spec).map(|s| if s.kind == HostKind::Inet { s.name } else { String::new() });
        match name {
            Ok(n) if !n.is_empty() && !n.starts_with('/') && !n.starts_with("localhost") => n,
            _ => std::fs::read_to_string("/proc/sys/kernel/hostname")
                .map(|s| s.trim_end().to_string())
                .unwrap_or_default(),
        }
    }

    /// Close the connection now (as dropping the source does).
    pub fn close(&self) {
        let mut st = self.lock();
        if let Some(old) = st.conn.take() {
            let counts = *old.counts();
            st.counts.add(&counts);
        }
    }
}

/// pmcd's metrics, each service a request (the profile sent first where
/// pmcd does not hold it), and pmcd's name space.
impl MetricSource for HostSource {
    fn desc(&self, pmid: PmId) -> PmResult<Desc> {
        self.lookup_desc(pmid)
    }

    fn instances(&self, indom: InDom, _: Timestamp) -> PmResult<Instances> {
        self.get_indom(indom)
    }

    fn instance_name(&self, indom: InDom, inst: i32, _: Timestamp) -> PmResult<Vec<u8>> {
        self.name_indom(indom, inst)
    }

    fn instance_id(&self, indom: InDom, name: &[u8], _: Timestamp) -> PmResult<i32> {
        self.lookup_indom(indom, name)
    }

    fn text(&self, pmid: PmId, level: TextLevel) -> PmResult<Vec<u8>> {
        self.lookup_text(pmid, level)
    }

    fn indom_text(&self, indom: InDom, level: TextLevel) -> PmResult<Vec<u8>> {
        self.lookup_indom_text(indom, level)
    }

    fn labels(&self, kind: u8, ident: u32, _: Timestamp, profile: &Profile) -> PmResult<Vec<LabelSet>> {
        HostSource::labels(self, kind, ident, profile)
    }

    fn fetch_into(
        &mut self,
        pmids: &[PmId],
        profile: &Profile,
        out: &mut FetchResult,
        _: &mut Timestamp,
    ) -> PmResult<()> {
        *out = self.fetch(pmids, profile)?.0;
        Ok(())
    }

    fn store(&self, result: &FetchResult) -> PmResult<()> {
        HostSource::store(self, result)
    }

    fn dup(&self) -> PmResult<Box<dyn MetricSource>> {
        Ok(Box::new(HostSource::dup(self)?))
    }

    fn host_name(&self, profile: &Profile) -> PmResult<String> {
        Ok(HostSource::host_name(self, profile))
    }

    fn remote_names(&self) -> Option<&dyn RemoteNames> {
        Some(self)
    }

    fn as_host(&self) -> Option<&HostSource> {
        Some(self)
    }
}

impl RemoteNames for HostSource {
    fn lookup_names(&self, names: &[&str]) -> PmResult<(Vec<PmId>, usize)> {
        HostSource::lookup_names(self, names)
    }

    fn name_of(&self, pmid: PmId) -> PmResult<String> {
        HostSource::name_of(self, pmid)
    }

    fn names_of(&self, pmid: PmId) -> PmResult<Vec<String>> {
        HostSource::names_of(self, pmid)
    }

    fn children(&self, name: &str) -> PmResult<Vec<Child>> {
        HostSource::children(self, name)
    }

    fn traverse(&self, name: &str, f: &mut dyn FnMut(&str)) -> PmResult<()> {
        self.traverse_with(name, f)
    }
}

/// The host side of the [`Context`] facade: opening a host context, and
/// the services only host contexts have (or that differ for them).
impl Context {
    /// `pmNewContext(PM_CONTEXT_HOST, spec)`: a context whose names,
    /// descriptors, instances, help text, labels and values come from
    /// pmcd on the host `spec` names (see [`HostSpec`]).
    #[doc(alias = "pmNewContext")]
    #[doc(alias = "PM_CONTEXT_HOST")]
    pub fn open_host(spec: &str) -> PmResult<Context> {
        HostSource::open(spec).map(Context::with_host)
    }

    /// A host context over a source already connected (tests reach a
    /// fake pmcd this way).
    pub fn with_host(host: HostSource) -> Context {
        Context::from_source(Box::new(host), None)
    }

    /// `pmReconnectContext`: connect a host context to pmcd again (see
    /// [`HostSource::reconnect`]); other contexts have nothing to do.
    #[doc(alias = "pmReconnectContext")]
    pub fn reconnect(&self) -> PmResult<()> {
        self.host().map_or(Ok(()), HostSource::reconnect)
    }

    /// `pmDupContext` of a host context: a new connection to the same
    /// pmcd with a copy of the profile (sent before the first fetch).
    /// Other contexts are `PM_ERR_NOTHOST` here; [`Context::dup`] takes
    /// every kind.
    #[doc(alias = "pmDupContext")]
    pub fn dup_host(&self) -> PmResult<Context> {
        let h = self.host().ok_or(PmError::PM_ERR_NOTHOST)?;
        let mut c = Context::with_host(h.dup()?);
        c.copy_profile_from(self);
        Ok(c)
    }

    /// `pmFetch` of the same metrics from many contexts, as a poller of
    /// many hosts wants it: the host contexts' requests all go out before
    /// any reply is read (see [`HostSource::fetch_many`]), so one thread
    /// waits for the slowest pmcd rather than for the sum of them. Other
    /// contexts, and host contexts for which `pmids` names a derived
    /// metric, fetch one after another as [`Context::fetch`] does. One
    /// result per context, in order.
    #[doc(alias = "pmFetch")]
    pub fn fetch_all(ctxs: &mut [Context], pmids: &[PmId]) -> Vec<PmResult<FetchResult>> {
        let plain = |c: &Context| c.host().is_some() && !pmids.iter().any(|&p| c.is_derived_here(p));
        let together: Vec<(&HostSource, &Profile)> =
            ctxs.iter().filter(|c| plain(c)).filter_map(|c| Some((c.host()?, c.profile()))).collect();
        let mut answers = HostSource::fetch_many(&together, pmids).into_iter();
        drop(together);
        let mut out = Vec::with_capacity(ctxs.len());
        for c in ctxs.iter_mut() {
            if plain(c) {
                out.push(answers.next().unwrap_or(Err(PmError::PM_ERR_IPC)).map(|(r, _)| r));
            } else {
                out.push(c.fetch(pmids));
            }
        }
        out
    }

    /// `pmFetch` with pmcd's state-change bits (`PMCD_ADD_AGENT`,
    /// `PMCD_RESTART_AGENT`, `PMCD_DROP_AGENT`, `PMCD_LABEL_CHANGE`,
    /// `PMCD_NAMES_CHANGE`), which are what pmFetch returns when it
    /// succeeds; 0 for other contexts.
    #[doc(alias = "pmFetch")]
    pub fn fetch_changes(&mut self, pmids: &[PmId]) -> PmResult<(FetchResult, i32)> {
        if let Some(h) = self.host() {
            return h.fetch(pmids, self.profile());
        }
        self.fetch(pmids).map(|r| (r, 0))
    }

    /// `pmLookupDescs`: descriptors one-to-one with `pmids` (`PM_ID_NULL`
    /// as the `pmid` of those not found) and how many were found; one
    /// metric that is not found is its error (pmLookupDescs(3)).
    #[doc(alias = "pmLookupDescs")]
    pub fn lookup_descs(&self, pmids: &[PmId]) -> PmResult<(Vec<Desc>, usize)> {
        if let Some(h) = self.host() {
            return h.lookup_descs(pmids);
        }
        if pmids.is_empty() {
            return Err(PmError::PM_ERR_TOOSMALL);
        }
        let mut found = 0;
        let mut descs = Vec::with_capacity(pmids.len());
        for &pmid in pmids {
            match self.lookup_desc(pmid) {
                Ok(d) => {
                    found += 1;
                    descs.push(d);
                }
                Err(e) if pmids.len() == 1 => return Err(e),
                Err(_) => descs.push(Desc {
                    pmid: PmId::NULL,
                    ty: MetricType(0),
                    indom: InDom(0),
                    sem: Semantics(0),
                    units: pcp_core::Units::NONE,
                }),
            }
        }
        Ok((descs, found))
    }

    /// The `$TZ` value `pmNewContextZone` sets up for the context's own
    /// time zone: for a host context `pmcd.zoneinfo` if pmcd has it,
    /// else `pmcd.timezone` (`PM_ERR_VALUE` when neither has a value);
    /// for an archive its label's.
    #[doc(alias = "pmNewContextZone")]
    pub fn zone_spec(&mut self) -> PmResult<String> {
        if let Some(a) = self.archive() {
            return Ok(c_string(&a.label().timezone));
        }
        let h = self.host().ok_or(PmError::PM_ERR_NOCONTEXT)?;
        let (ids, _) = h.lookup_names(&["pmcd.timezone", "pmcd.zoneinfo"])?;
        let (r, _) = h.fetch(&ids, self.profile())?;
        let text = |i: usize| match r.sets.get(i).map(|s| s.values.as_deref()) {
            Some(Ok([v])) => match &v.value {
                Value::Block(b) => Some(c_string(&b.data)),
                Value::Insitu(_) => None,
            },
            _ => None,
        };
        text(1).or_else(|| text(0)).ok_or(PmError::PM_ERR_VALUE)
    }

    /// libpcp's PDU counters for this context (all zero but for host
    /// contexts).
    pub fn pdu_counts(&self) -> PduCounts {
        self.host().map(HostSource::pdu_counts).unwrap_or_default()
    }
}

fn text_level(level: TextLevel) -> i32 {
    match level {
        TextLevel::OneLine => PM_TEXT_ONELINE,
        TextLevel::Help => PM_TEXT_HELP,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pmproxy stand-in that answers the version line with `reply` and
    /// hands back the line the client sends after it.
    fn fake_proxy(reply: &'static [u8]) -> (u16, std::thread::JoinHandle<Vec<u8>>) {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let t = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut hello = [0u8; 17];
            s.read_exact(&mut hello).unwrap();
            assert_eq!(&hello, b"pmproxy-client 1\n");
            s.write_all(reply).unwrap();
            // (nothing more comes from the proxy)
            s.shutdown(std::net::Shutdown::Write).unwrap();
            let mut rest = Vec::new();
            let _ = s.read_to_end(&mut rest);
            rest
        });
        (port, t)
    }

    #[test]
    fn the_proxy_is_told_where_pmcd_is() {
        let (port, t) = fake_proxy(b"pmproxy-server 1\n");
        let mut c = transport::connect_port("127.0.0.1", port, std::time::Duration::from_secs(5)).unwrap();
        negotiate_proxy(&mut c, "box", 4321, Some(std::time::Duration::from_secs(5))).unwrap();
        drop(c);
        assert_eq!(t.join().unwrap(), b"box 4321\n");
        // anything else from the proxy is a protocol failure
        for reply in [&b"pmproxy-server 2\n"[..], b"", b"pmproxy-server 1"] {
            let (port, t) = fake_proxy(reply);
            let mut c = transport::connect_port("127.0.0.1", port, std::time::Duration::from_secs(5)).unwrap();
            let got = negotiate_proxy(&mut c, "box", 4321, Some(std::time::Duration::from_secs(5)));
            assert_eq!(got, Err(PmError::PM_ERR_IPC), "{reply:?}");
            drop(c);
            assert_eq!(t.join().unwrap(), b"");
        }
    }

    #[test]
    fn host_specifications_parse_as_libpcp_parses_them() {
        let inet =
            |name: &str, ports: Vec<u16>| HostSpec { name: name.to_string(), ports, kind: HostKind::Inet, proxy: None };
        assert_eq!(HostSpec::parse("localhost"), Ok(inet("localhost", vec![])));
        assert_eq!(HostSpec::parse("box:1,44321"), Ok(inet("box", vec![1, 44321])));
        assert_eq!(HostSpec::parse("[::1]:7"), Ok(inet("::1", vec![7])));
        assert_eq!(HostSpec::parse("pcp://box?compress"), Ok(inet("box", vec![])));
        assert_eq!(HostSpec::parse("local:").map(|s| s.kind), Ok(HostKind::Local));
        assert_eq!(HostSpec::parse("unix:/tmp/s").map(|s| (s.kind, s.name)), Ok((HostKind::Unix, "/tmp/s".into())));
        for bad in ["box:", "box:x", "[::1", "@proxy", "::1", "[::1]x", "local:/s:"] {
            assert_eq!(HostSpec::parse(bad), Err(PmError::PM_ERR_GENERIC), "{bad}");
        }
        // a proxy: the second host (a third goes unused); an empty one
        let via = |spec: &str| HostSpec::parse(spec).unwrap().proxy.map(|p| (p.name, p.ports));
        assert_eq!(via("box@proxy"), Some(("proxy".to_string(), vec![])));
        assert_eq!(via("box:1@proxy:2,3@other"), Some(("proxy".to_string(), vec![2, 3])));
        assert_eq!(via("box@"), Some((String::new(), vec![])));
        assert_eq!(HostSpec::parse("box:1@proxy").unwrap().ports, [1]);
        assert_eq!(HostSpec::parse(""), Err(PmError::PM_ERR_NOTHOST));
        assert_eq!(HostSpec::parse("unix:run/s").map(|s| s.name), Ok("/run/s".into()));
        assert_eq!(HostSpec::parse("pcp:box:7").map(|s| (s.name, s.ports)), Ok(("box".into(), vec![7])));
        let said = |spec: &str| String::from_utf8(HostSpec::parse_reporting(spec).unwrap_err().1.unwrap()).unwrap();
        assert_eq!(said("::1"), "pmNewContext: bad host specification\n::1\n^ -- unexpected terminal character\n");
        assert_eq!(said("a:b:c"), "pmNewContext: bad host specification\na:b:c\n  ^ -- non-numeric port\n");
        assert_eq!(said("box:1,"), "pmNewContext: bad host specification\nbox:1,\n      ^ -- missing port\n");
    }

    #[test]
    fn derived_names_join_the_remote_name_space() {
        assert_eq!(derived_traverse(""), ["event.flags", "event.missed"]);
        assert_eq!(derived_traverse("event"), ["event.flags", "event.missed"]);
        assert!(derived_traverse("even").is_empty());
        let root = derived_children("", ANON.iter().map(|a| a.name)).unwrap();
        assert_eq!((root.len(), root[0].name.as_str(), root[0].leaf), (1, "event", false));
        assert_eq!(derived_children("event", ANON.iter().map(|a| a.name)).unwrap().len(), 2);
        assert_eq!(derived_children("event.flags", ANON.iter().map(|a| a.name)), Ok(Vec::new()));
        assert_eq!(derived_children("sample", ANON.iter().map(|a| a.name)), Err(PmError::PM_ERR_NAME));
        assert_eq!(derived_pmid("event.missed"), Some(PmId::new(511, 0, 2)));
    }

    #[test]
    fn long_name_lists_split_under_pmcds_limit() {
        let name = "x".repeat(60);
        let names: Vec<&str> = std::iter::repeat_n(name.as_str(), 2000).collect();
        let n = names_batch(&names);
        // each name takes its length word and 60 bytes padded to 4
        assert_eq!(n, (NAMES_PDU_LIMIT - 24) / 64);
        let long = "y".repeat(70_000);
        assert_eq!(names_batch(&[long.as_str()]), 1);
    }
}
