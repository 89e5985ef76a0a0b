//! Reaching pmcd: the connection a host context is made over.
//!
//! [`connect`] opens the socket (so tools report an absent pmcd as PCP's
//! do); [`PmcdConnection`] goes through pmcd's handshake on any byte
//! stream and then exchanges PDUs (pcp-pdu's codec) with libpcp's
//! timeouts: a thin blocking loop around the sans-IO codec, which tests
//! drive over an in-memory stream with a fake pmcd.

use crate::config;
use pcp_core::debug::{DebugFlag, Trace};
use pcp_core::support::strtod::{is_c_space, strtol_prefix};
use pcp_core::{PmError, PmId, PmResult};
use pcp_pdu::handshake::{self, ClientOptions, PduInfo};
use pcp_pdu::{Framer, Pdu, PduType, ResultPdu};
use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

pub(crate) const EHOSTUNREACH: i32 = 113;
const ECONNREFUSED: i32 = 111;

/// A connection to pmcd.
#[derive(Debug)]
pub enum Connection {
    /// Over TCP.
    Tcp(TcpStream),
    /// Over pmcd's Unix domain socket.
    #[cfg(unix)]
    Unix(std::os::unix::net::UnixStream),
}

fn errno_of(e: &std::io::Error) -> PmError {
    PmError::from_errno(e.raw_os_error().unwrap_or(ECONNREFUSED))
}

/// Connect to pmcd on `host` as libpcp does: `local:` (or `unix:`) tries
/// pmcd's Unix socket first and then TCP on localhost; a host that does not
/// resolve is "No route to host"; otherwise the last address's error.
/// Each TCP attempt waits at most `$PMCD_CONNECT_TIMEOUT` ([`Timeouts`]).
pub fn connect(host: &str) -> Result<Connection, PmError> {
    let tcp_host = match host {
        "local:" | "unix:" | "localhost:" => {
            #[cfg(unix)]
            if let Ok(s) = connect_unix(&config::run_dir().join("pmcd.socket")) {
                return Ok(s);
            }
            "localhost"
        }
        h => h,
    };
    connect_port(tcp_host, config::pmcd_port(), Timeouts::from_env().0.connect)
}

/// Connect to pmcd's Unix domain socket at `path`.
#[cfg(unix)]
pub fn connect_unix(path: &std::path::Path) -> Result<Connection, PmError> {
    std::os::unix::net::UnixStream::connect(path).map(Connection::Unix).map_err(|e| errno_of(&e))
}

/// Connect over TCP to `port` of `host` (`__pmAuxConnectPMCDPort`): each
/// of the name's addresses in turn, each attempt waiting at most
/// `timeout`; a name that does not resolve is "No route to host",
/// otherwise the last address's error.
pub fn connect_port(host: &str, port: u16, timeout: Duration) -> Result<Connection, PmError> {
    let addrs = resolve(host, port).map_err(|_| PmError::from_errno(EHOSTUNREACH))?;
    connect_addrs(addrs, timeout)
}

/// The addresses of `port` on `host`, or why the name did not resolve.
pub(crate) fn resolve(host: &str, port: u16) -> io::Result<Vec<std::net::SocketAddr>> {
    Ok((host, port).to_socket_addrs()?.collect())
}

/// libpcp's `hosterror()` and `hoststrerror()` after a name failed to
/// resolve: the resolver's `h_errno` and its `hstrerror` text, as glibc
/// sets them for the `getaddrinfo` failure `e` describes.
pub(crate) fn host_error(e: &io::Error) -> (i32, &'static str) {
    let text = e.to_string();
    if text.contains("Temporary failure") {
        (2, "Host name lookup failure")
    } else if text.contains("No address associated") {
        (4, "No address associated with name")
    } else if text.contains("not known") {
        (1, "Unknown host")
    } else {
        (3, "Unknown server error")
    }
}

/// Connect over TCP to each of `addrs` in turn, each attempt waiting at
/// most `timeout`: the first that answers, or the last one's error.
pub(crate) fn connect_addrs(addrs: Vec<std::net::SocketAddr>, timeout: Duration) -> Result<Connection, PmError> {
    let timeout = timeout.max(Duration::from_millis(1));
    let mut last = PmError::from_errno(EHOSTUNREACH);
    for a in addrs {
        match TcpStream::connect_timeout(&a, timeout) {
            Ok(s) => {
                // as libpcp's sockets: a small request goes out at once,
                // not after the acknowledgement of the one before (a
                // failure here only costs speed, as libpcp just warns)
                let _ = s.set_nodelay(true);
                return Ok(Connection::Tcp(s));
            }
            Err(e) => last = errno_of(&e),
        }
    }
    Err(last)
}

/// libpcp's timeouts for talking to pmcd, as the environment sets them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// How long a TCP connection attempt may take
    /// (`$PMCD_CONNECT_TIMEOUT`, default 5 seconds).
    pub connect: Duration,
    /// How long pmcd's greeting may take to arrive whole
    /// (`$PMCD_REQUEST_TIMEOUT`, default 10 seconds).
    pub greeting: Option<Duration>,
    /// How long each reply may take to arrive whole. libpcp keeps a host
    /// context's timeout in whole seconds, so this is
    /// `$PMCD_REQUEST_TIMEOUT` truncated, and a value under a second
    /// means no timeout at all (as in libpcp).
    pub request: Option<Duration>,
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts::from_vars(None, None).0
    }
}

/// A C `strtod` of a whole string: `None` if anything follows the number
/// or it is negative.
fn env_seconds(text: &str) -> Option<f64> {
    if text.is_empty() {
        // strtod reads nothing, and stops at the end
        return Some(0.0);
    }
    // strtod skips leading white space
    let b = text.as_bytes();
    let ws = b.iter().take_while(|&&c| is_c_space(c)).count();
    let p = pcp_core::support::strtod::parse_prefix(&b[ws..])?;
    // NaN passes libpcp's "< 0" test too
    (ws + p.len == b.len() && (p.value >= 0.0 || p.value.is_nan())).then_some(p.value)
}

impl Timeouts {
    /// The timeouts `$PMCD_CONNECT_TIMEOUT` and `$PMCD_REQUEST_TIMEOUT`
    /// give, with the warnings libpcp logs for values it ignores (the
    /// caller reports them).
    pub fn from_env() -> (Timeouts, Vec<String>) {
        let connect = std::env::var("PMCD_CONNECT_TIMEOUT").ok();
        let request = std::env::var("PMCD_REQUEST_TIMEOUT").ok();
        Timeouts::from_vars(connect.as_deref(), request.as_deref())
    }

    /// The timeouts for these values of `$PMCD_CONNECT_TIMEOUT` and
    /// `$PMCD_REQUEST_TIMEOUT`: each a number of seconds as `strtod`
    /// reads it; a value with anything after the number, or a negative
    /// one, is ignored with libpcp's warning.
    pub fn from_vars(connect: Option<&str>, request: Option<&str>) -> (Timeouts, Vec<String>) {
        let mut warnings = Vec::new();
        let mut read = |name: &str, prefix: &str, v: Option<&str>, default: f64| match v {
            None => default,
            Some(t) => env_seconds(t).unwrap_or_else(|| {
                warnings.push(format!("{prefix}ignored bad {name} = '{t}'"));
                default
            }),
        };
        let connect = read("PMCD_CONNECT_TIMEOUT", "auxconnect.c:__pmAuxConnectPMCDPort: ", connect, 5.0);
        let request = read("PMCD_REQUEST_TIMEOUT", "", request, 10.0);
        let secs = |s: f64| Duration::try_from_secs_f64(s).unwrap_or(Duration::MAX);
        // a zero wait polls once: the smallest wait a socket takes
        let wait = |s: f64| Some(secs(s).max(Duration::from_micros(1)));
        // libpcp keeps a context's timeout as whole seconds of an int
        let whole = (request * 1000.0) as i32 / 1000;
        let t = Timeouts {
            connect: secs(connect),
            greeting: wait(request),
            request: (whole > 0).then(|| Duration::from_secs(whole as u64)),
        };
        (t, warnings)
    }
}

/// The delays between attempts to reach pmcd again after a connection
/// failed (`$PMCD_RECONNECT_TIMEOUT`: seconds, comma-separated; default
/// 5, 10, 20, 40, 80). Each failure moves one step along the list, and
/// the last delay repeats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Backoff {
    delays: Vec<u32>,
    step: usize,
}

impl Backoff {
    /// From `$PMCD_RECONNECT_TIMEOUT`, with libpcp's warning if it was
    /// ignored.
    pub fn from_env() -> (Backoff, Option<String>) {
        Backoff::from_var(std::env::var("PMCD_RECONNECT_TIMEOUT").ok().as_deref())
    }

    /// From a value of `$PMCD_RECONNECT_TIMEOUT`: each delay must be a
    /// positive whole number (as `strtol` reads it) followed by a comma
    /// or the end, else the whole list is ignored.
    pub fn from_var(v: Option<&str>) -> (Backoff, Option<String>) {
        let default = || Backoff { delays: vec![5, 10, 20, 40, 80], step: 0 };
        let Some(text) = v else { return (default(), None) };
        let mut delays = Vec::new();
        let mut rest = text.as_bytes();
        while !rest.is_empty() {
            let (val, used) = strtol_prefix(rest);
            // libpcp keeps the long in an int
            let val = val as i32;
            let after = &rest[used..];
            if val <= 0 || !(after.is_empty() || after[0] == b',') {
                return (default(), Some(format!("pmReconnectContext: ignored bad PMCD_RECONNECT_TIMEOUT = '{text}'")));
            }
            delays.push(u32::try_from(val).unwrap_or(u32::MAX));
            rest = after.get(1..).unwrap_or_default();
        }
        if delays.is_empty() {
            return (default(), None);
        }
        (Backoff { delays, step: 0 }, None)
    }

    /// The delay after another failure.
    pub fn next_delay(&mut self) -> Duration {
        self.step = (self.step + 1).min(self.delays.len());
        Duration::from_secs(u64::from(self.delays[self.step - 1]))
    }

    /// A connection succeeded: start the list again.
    pub fn reset(&mut self) {
        self.step = 0;
    }
}

/// A byte stream to pmcd that can wait for input with a time limit.
pub trait PduStream: Read + Write {
    /// Limit how long the next reads wait (`None`: as long as it takes).
    fn set_read_timeout(&mut self, t: Option<Duration>) -> io::Result<()>;

    /// Wait, apart from reading, until input arrives (`Ok(true)`) or `t`
    /// passes (`Ok(false)`); `None` for a stream that does not wait this
    /// way, whose reads wait instead (as [`PduStream::set_read_timeout`]
    /// limits them). A Unix socket waits this way: a read blocked on one
    /// is woken, for nothing, whenever the other end takes in what was
    /// sent (pmcd reading the request), which costs a second sleep and
    /// wake-up a request; waiting for input alone is not (libpcp's
    /// select() before each read avoids it too).
    fn wait_readable(&mut self, _t: Option<Duration>) -> Option<io::Result<bool>> {
        None
    }

    /// The file descriptor, for the `-Dpdu` trace (-1 for a stream
    /// without one).
    fn raw_fd(&self) -> i32 {
        -1
    }
}

impl<T: PduStream + ?Sized> PduStream for Box<T> {
    fn set_read_timeout(&mut self, t: Option<Duration>) -> io::Result<()> {
        (**self).set_read_timeout(t)
    }

    fn wait_readable(&mut self, t: Option<Duration>) -> Option<io::Result<bool>> {
        (**self).wait_readable(t)
    }

    fn raw_fd(&self) -> i32 {
        (**self).raw_fd()
    }
}

/// poll(2) `fd` for input for up to `t` (`None`: no limit).
#[cfg(unix)]
fn poll_in(fd: &impl std::os::fd::AsFd, t: Option<Duration>) -> io::Result<bool> {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    let limit = t
        .map(|d| Timespec { tv_sec: i64::try_from(d.as_secs()).unwrap_or(i64::MAX), tv_nsec: d.subsec_nanos().into() });
    let mut fds = [PollFd::new(fd, PollFlags::IN)];
    Ok(poll(&mut fds, limit.as_ref())? > 0)
}

impl PduStream for TcpStream {
    fn set_read_timeout(&mut self, t: Option<Duration>) -> io::Result<()> {
        TcpStream::set_read_timeout(self, t)
    }

    #[cfg(unix)]
    fn raw_fd(&self) -> i32 {
        std::os::fd::AsRawFd::as_raw_fd(self)
    }
}

#[cfg(unix)]
impl PduStream for std::os::unix::net::UnixStream {
    fn set_read_timeout(&mut self, t: Option<Duration>) -> io::Result<()> {
        std::os::unix::net::UnixStream::set_read_timeout(self, t)
    }

    fn wait_readable(&mut self, t: Option<Duration>) -> Option<io::Result<bool>> {
        Some(poll_in(self, t))
    }

    fn raw_fd(&self) -> i32 {
        std::os::fd::AsRawFd::as_raw_fd(self)
    }
}

impl Read for Connection {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Connection::Tcp(s) => s.read(buf),
            #[cfg(unix)]
            Connection::Unix(s) => s.read(buf),
        }
    }
}

impl Write for Connection {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Connection::Tcp(s) => s.write(buf),
            #[cfg(unix)]
            Connection::Unix(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Connection::Tcp(s) => s.flush(),
            #[cfg(unix)]
            Connection::Unix(s) => s.flush(),
        }
    }
}

impl PduStream for Connection {
    fn set_read_timeout(&mut self, t: Option<Duration>) -> io::Result<()> {
        match self {
            Connection::Tcp(s) => TcpStream::set_read_timeout(s, t),
            #[cfg(unix)]
            Connection::Unix(s) => std::os::unix::net::UnixStream::set_read_timeout(s, t),
        }
    }

    fn wait_readable(&mut self, t: Option<Duration>) -> Option<io::Result<bool>> {
        match self {
            Connection::Tcp(_) => None,
            #[cfg(unix)]
            Connection::Unix(s) => s.wait_readable(t),
        }
    }

    fn raw_fd(&self) -> i32 {
        match self {
            Connection::Tcp(s) => s.raw_fd(),
            #[cfg(unix)]
            Connection::Unix(s) => s.raw_fd(),
        }
    }
}

/// A connection to pmcd that has been through the handshake: whole PDUs
/// out, whole PDUs in, each reply within the request timeout.
///
/// A failure of the byte stream (a timeout, the stream closing or failing,
/// a length word no PDU can have) leaves the connection broken: later
/// calls fail with `PM_ERR_IPC` at once, and the caller connects again
/// (see [`Backoff`]). A reply that arrived whole but cannot be decoded,
/// or is not what the request wanted, fails that request alone, as in
/// libpcp: `__pmGetPDU` has taken all of its bytes, so the next reply
/// starts where it should.
#[derive(Debug)]
pub struct PmcdConnection<S: PduStream> {
    stream: S,
    framer: Framer,
    server: PduInfo,
    flags: u16,
    timeouts: Timeouts,
    broken: bool,
    counts: PduCounts,
    /// What each read from the stream goes into (kept, not made per PDU).
    rbuf: Box<[u8]>,
    /// What each PDU sent is encoded into (kept, not made per PDU).
    wbuf: Vec<u8>,
    /// The read timeout last set on the stream (`None`: not set yet), so
    /// that a loop of requests does not set the same one before each read.
    read_timeout: Option<Option<Duration>>,
    /// Where `-Dpdu` traces each PDU sent and received.
    trace: Trace,
}

/// How many PDUs of each type went each way (libpcp's `__pmPDUCntOut`
/// and `__pmPDUCntIn`), indexed by type less `PDU_START` (0x7000), for
/// the `PDU_MAX` (23) types a client and pmcd exchange.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PduCounts {
    /// PDUs sent, by type.
    pub sent: [u32; PDU_MAX],
    /// PDUs received, by type.
    pub received: [u32; PDU_MAX],
}

/// `PDU_MAX`: the number of PDU types libpcp counts.
pub const PDU_MAX: usize = 23;

impl PduCounts {
    fn slot(ty: PduType) -> Option<usize> {
        usize::try_from(ty.0 - PduType::ERROR.0).ok().filter(|&i| i < PDU_MAX)
    }

    /// Add another set of counts to these.
    pub fn add(&mut self, other: &PduCounts) {
        for i in 0..PDU_MAX {
            self.sent[i] += other.sent[i];
            self.received[i] += other.received[i];
        }
    }
}

/// Errors of the socket calls, as libpcp reports them.
fn io_error(e: &io::Error) -> PmError {
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => PmError::PM_ERR_TIMEOUT,
        io::ErrorKind::BrokenPipe
        | io::ErrorKind::ConnectionReset
        | io::ErrorKind::ConnectionAborted
        | io::ErrorKind::NotConnected
        | io::ErrorKind::UnexpectedEof => PmError::PM_ERR_IPC,
        _ => e.raw_os_error().map_or(PmError::PM_ERR_IPC, PmError::from_errno),
    }
}

impl<S: PduStream> PmcdConnection<S> {
    /// Go through pmcd's handshake on `stream` (`__pmConnectHandshake`):
    /// wait for its greeting (within `timeouts.greeting`), answer it
    /// ([`handshake::client_answer`]) and send the credentials (and any
    /// attributes). pmcd sends nothing back for them.
    #[doc(alias = "__pmConnectHandshake")]
    pub fn handshake(stream: S, opts: &ClientOptions, timeouts: Timeouts) -> PmResult<PmcdConnection<S>> {
        PmcdConnection::handshake_traced(stream, opts, timeouts, &Trace::off())
    }

    /// [`PmcdConnection::handshake`], tracing the PDUs of the handshake
    /// and of every exchange after it into `trace` (under `-Dpdu`).
    pub fn handshake_traced(
        stream: S,
        opts: &ClientOptions,
        timeouts: Timeouts,
        trace: &Trace,
    ) -> PmResult<PmcdConnection<S>> {
        let mut c = PmcdConnection {
            stream,
            framer: Framer::for_client(),
            server: PduInfo::pmcd(),
            flags: 0,
            timeouts,
            broken: false,
            counts: PduCounts::default(),
            rbuf: vec![0; 16384].into_boxed_slice(),
            wbuf: Vec::with_capacity(256),
            read_timeout: None,
            trace: trace.clone(),
        };
        let traced = trace.on(DebugFlag::Context);
        if traced {
            trace.write(format_args!("__pmSetSocketIPC: fd={}\n", c.stream.raw_fd()));
            trace.write_bytes(trace.ipc_set(c.stream.raw_fd(), false, true).as_bytes());
        }
        let greeting = c.recv_within(timeouts.greeting)?;
        if traced {
            c.trace_greeting(&greeting);
        }
        let accepted = handshake::client_answer(&greeting, opts)?;
        for pdu in &accepted.send {
            if traced {
                c.trace_sent_creds(pdu, accepted.server.features);
            }
            c.send(pdu, handshake::sender(pdu, opts))?;
        }
        c.server = accepted.server;
        c.flags = accepted.flags;
        Ok(c)
    }

    /// `-Dcontext`: `__pmDecodeXtendError`'s line for pmcd's greeting.
    #[cold]
    fn trace_greeting(&self, greeting: &Pdu) {
        if let Pdu::Error(e) = greeting {
            // libpcp prints the datum as it lies in memory, unswapped
            let datum = e.datum.map_or(0, |d| i32::from_ne_bytes(d.to_be_bytes()));
            let version = if e.datum.is_some() { 2 } else { PmError::PM_ERR_IPC.code() };
            self.trace.write(format_args!(
                "__pmDecodeXtendError: got error PDU (code={}, datum={datum}, version={version})\n",
                e.xtend_status()
            ));
        }
    }

    /// `-Dcontext`: `__pmSetFeaturesIPC`'s lines before the credentials
    /// are sent, and `__pmSendCreds`' line for each credential (as the
    /// word lies in memory).
    #[cold]
    fn trace_sent_creds(&self, pdu: &Pdu, features: u16) {
        let Pdu::Creds(creds) = pdu else { return };
        let fd = self.stream.raw_fd();
        self.trace.write(format_args!("__pmSetFeaturesIPC: fd={fd} version=2 features={features}\n"));
        self.trace.write_bytes(self.trace.ipc_set(fd, true, true).as_bytes());
        for (i, c) in creds.iter().enumerate() {
            let word = u32::from_be_bytes([c.kind, c.vals[0], c.vals[1], c.vals[2]]);
            self.trace.write(format_args!("__pmSendCreds: #{i} = {word:x}\n"));
        }
    }

    /// Trace the PDUs sent and received from now on into `trace` (under
    /// `-Dpdu`, as libpcp's `__pmXmitPDU` and `__pmGetPDU` print them).
    pub fn set_trace(&mut self, trace: &Trace) {
        self.trace = trace.clone();
    }

    /// `-Dcontext`: `__pmDecodeError`'s line for an error PDU received.
    fn trace_error(&self, got: &Pdu) {
        if let Pdu::Error(e) = got {
            if self.trace.on(DebugFlag::Context) {
                self.trace.write(format_args!("__pmDecodeError: got error PDU (code={}, fromversion=2)\n", e.code));
            }
        }
    }

    /// Where the PDUs are traced.
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// Append the `-Dpdu` trace of one PDU to the trace.
    #[cold]
    fn trace_pdu(&self, dir: pcp_pdu::dump::Direction, bytes: &[u8]) {
        let mut text = Vec::with_capacity(64 + bytes.len() * 3);
        pcp_pdu::dump::write_pdu(&mut text, std::process::id(), dir, self.stream.raw_fd(), bytes);
        self.trace.write_bytes(&text);
    }

    /// The connection's file descriptor (-1 for a stream without one).
    pub fn fd(&self) -> i32 {
        self.stream.raw_fd()
    }

    /// What pmcd offered in its greeting.
    pub fn server(&self) -> PduInfo {
        self.server
    }

    /// The features asked for in the credentials.
    pub fn flags(&self) -> u16 {
        self.flags
    }

    /// pmcd answers fetches with nanosecond timestamps
    /// (`PDU_FLAG_HIGHRES`): libpcp then always sends `PDU_HIGHRES_FETCH`.
    pub fn highres(&self) -> bool {
        self.server.features & handshake::features::HIGHRES != 0
    }

    /// The PDUs sent and received so far.
    pub fn counts(&self) -> &PduCounts {
        &self.counts
    }

    /// Has a failure broken the connection?
    pub fn is_broken(&self) -> bool {
        self.broken
    }

    /// The stream, for the caller to close or inspect (bytes read from it
    /// beyond the last PDU received are dropped).
    pub fn into_stream(self) -> S {
        self.stream
    }

    fn fail<T>(&mut self, e: PmError) -> PmResult<T> {
        self.broken = true;
        Err(e)
    }

    /// Send one PDU with `from` as its sender word (a context's handle
    /// for requests).
    #[doc(alias = "__pmXmitPDU")]
    pub fn send(&mut self, pdu: &Pdu, from: i32) -> PmResult<()> {
        if self.broken {
            return Err(PmError::PM_ERR_IPC);
        }
        self.wbuf.clear();
        pdu.encode(from, &mut self.wbuf)?;
        self.write_wbuf(pdu.pdu_type())
    }

    /// Write the PDU in `wbuf` (of type `ty`).
    fn write_wbuf(&mut self, ty: PduType) -> PmResult<()> {
        if self.trace.on(DebugFlag::Pdu) {
            self.trace_pdu(pcp_pdu::dump::Direction::Sent, &self.wbuf);
        }
        if let Some(i) = PduCounts::slot(ty) {
            self.counts.sent[i] += 1;
        }
        if let Err(e) = self.stream.write_all(&self.wbuf).and_then(|()| self.stream.flush()) {
            return self.fail(io_error(&e));
        }
        Ok(())
    }

    /// Receive one PDU within the request timeout (`__pmGetPDU`): the
    /// whole PDU must have arrived by then (`PM_ERR_TIMEOUT`); the
    /// stream ending is `PM_ERR_IPC`. Both break the connection. A PDU
    /// that arrived whole but does not decode (a bad count or length
    /// inside it, a negative or unknown type) is `PM_ERR_IPC` too, but
    /// the connection stays usable, as libpcp's does.
    #[doc(alias = "__pmGetPDU")]
    pub fn recv(&mut self) -> PmResult<Pdu> {
        self.recv_within(self.timeouts.request)
    }

    fn recv_within(&mut self, limit: Option<Duration>) -> PmResult<Pdu> {
        if self.broken {
            return Err(PmError::PM_ERR_IPC);
        }
        let deadline = limit.map(|l| Instant::now() + l);
        let mut first = true;
        loop {
            let len = match self.framer.peek() {
                Ok(Some(bytes)) => {
                    if let Some(i) = bytes
                        .get(4..8)
                        .and_then(|t| PduCounts::slot(PduType(i32::from_be_bytes([t[0], t[1], t[2], t[3]]))))
                    {
                        self.counts.received[i] += 1;
                    }
                    if self.trace.on(DebugFlag::Pdu) {
                        self.trace_pdu(pcp_pdu::dump::Direction::Received, bytes);
                    }
                    let pdu = Pdu::decode(bytes);
                    let len = bytes.len();
                    self.framer.consume(len);
                    // a bad body spoils this reply only: its bytes are
                    // gone from the stream, which is still in step
                    return pdu.map(|(_, pdu)| pdu);
                }
                Ok(None) => self.framer.buffered(),
                Err(e) => return self.fail(e),
            };
            // the first read of a PDU waits the whole limit (set once for
            // a run of requests, not before every read); a PDU that comes
            // in pieces waits only what is left of it for the rest
            let wait = match (deadline, limit) {
                (Some(_), Some(l)) if first && len == 0 && !l.is_zero() => Some(l),
                (None, _) => None,
                (Some(d), _) => match d.checked_duration_since(Instant::now()).filter(|w| !w.is_zero()) {
                    Some(w) => Some(w),
                    None => return self.fail(PmError::PM_ERR_TIMEOUT),
                },
            };
            first = false;
            match self.stream.wait_readable(wait) {
                // input is there: the read below takes it at once
                Some(Ok(true)) => {}
                Some(Ok(false)) => return self.fail(PmError::PM_ERR_TIMEOUT),
                Some(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Some(Err(e)) => return self.fail(io_error(&e)),
                None => {}
            }
            if self.read_timeout != Some(wait) {
                if let Err(e) = self.stream.set_read_timeout(wait) {
                    self.read_timeout = None;
                    return self.fail(io_error(&e));
                }
                self.read_timeout = Some(wait);
            }
            // whatever has arrived, up to the buffer's size: usually a whole
            // PDU in one read (bytes past it stay in the framer for the next)
            match self.stream.read(&mut self.rbuf) {
                Ok(0) => return self.fail(PmError::PM_ERR_IPC),
                Ok(n) => self.framer.push(&self.rbuf[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return self.fail(io_error(&e)),
            }
        }
    }

    /// Send a request and receive its reply, which must be of type
    /// `reply` or an error PDU: a negative error code is returned as the
    /// error; any other PDU is `PM_ERR_IPC` for this request alone (each
    /// of libpcp's receivers refuses a reply of another type so, and goes
    /// on with the connection). An error PDU is itself the expected reply
    /// of a store (`reply` `PDU_ERROR`).
    pub fn request(&mut self, pdu: &Pdu, from: i32, reply: PduType) -> PmResult<Pdu> {
        self.send(pdu, from)?;
        let got = self.recv()?;
        self.trace_error(&got);
        match got {
            p if p.pdu_type() == reply => Ok(p),
            Pdu::Error(e) if e.code < 0 => Err(PmError::from_code(e.code)),
            // an error PDU of 0 or more where something else was wanted
            // leaves libpcp's callers with nothing read: refused here
            _ => Err(PmError::PM_ERR_IPC),
        }
    }

    /// A fetch (`__pmRecvFetchPDU`): send `PDU_HIGHRES_FETCH` when pmcd
    /// offers it, else `PDU_FETCH`, and read the result. Error PDUs with
    /// positive codes before it are pmcd announcing changes
    /// (`PMCD_ADD_AGENT` and friends): their bits are returned with the
    /// result.
    #[doc(alias = "pmFetch")]
    pub fn fetch(&mut self, from: i32, ctxid: i32, pmids: &[PmId]) -> PmResult<(ResultPdu, i32)> {
        self.send_fetch(from, ctxid, pmids)?;
        self.recv_fetch()
    }

    /// The first half of [`PmcdConnection::fetch`]: send the request.
    /// Its reply is read by [`PmcdConnection::recv_fetch`], which must come
    /// before any other request on this connection; meanwhile the caller
    /// may send requests on other connections (many hosts asked at once).
    pub fn send_fetch(&mut self, from: i32, ctxid: i32, pmids: &[PmId]) -> PmResult<()> {
        if self.broken {
            return Err(PmError::PM_ERR_IPC);
        }
        let highres = self.highres();
        let ty = if highres { PduType::HIGHRES_FETCH } else { PduType::FETCH };
        self.wbuf.clear();
        pcp_pdu::Fetch::encode_ids(ctxid, pmids, highres, from, &mut self.wbuf)?;
        self.write_wbuf(ty)
    }

    /// The second half of [`PmcdConnection::fetch`]: read the result of
    /// the fetch sent last.
    pub fn recv_fetch(&mut self) -> PmResult<(ResultPdu, i32)> {
        let reply = if self.highres() { PduType::HIGHRES_RESULT } else { PduType::RESULT };
        let mut changed = 0;
        loop {
            let got = self.recv()?;
            self.trace_error(&got);
            match got {
                Pdu::Error(e) if e.code > 0 => changed |= e.code,
                Pdu::Error(e) if e.code < 0 => return Err(PmError::from_code(e.code)),
                Pdu::HighResResult(r) if reply == PduType::HIGHRES_RESULT => return Ok((r, changed)),
                Pdu::Result(r) if reply == PduType::RESULT => return Ok((r, changed)),
                // an error PDU of 0 ends libpcp's loop with no result at
                // all; anything else (a result of the other kind among
                // them) is refused, with the connection kept, as
                // `__pmRecvFetchPDU` does
                _ => return Err(PmError::PM_ERR_IPC),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_that_does_not_resolve_gets_the_resolver_error_glibc_sets() {
        let gai = |detail: &str| io::Error::other(format!("failed to lookup address information: {detail}"));
        assert_eq!(host_error(&gai("Name or service not known")), (1, "Unknown host"));
        assert_eq!(host_error(&gai("Temporary failure in name resolution")), (2, "Host name lookup failure"));
        assert_eq!(host_error(&gai("No address associated with hostname")), (4, "No address associated with name"));
    }

    #[cfg(unix)]
    #[test]
    fn a_unix_socket_waits_for_input_apart_from_reading() {
        let (mut a, mut b) = std::os::unix::net::UnixStream::pair().unwrap();
        let short = Some(Duration::from_millis(20));
        assert!(matches!(a.wait_readable(short), Some(Ok(false))));
        b.write_all(&[1]).unwrap();
        assert!(matches!(a.wait_readable(short), Some(Ok(true))));
        assert!(matches!(a.wait_readable(None), Some(Ok(true))));
        // a peer that says nothing: the greeting times out in the wait
        let t = Timeouts { connect: Duration::from_secs(1), greeting: short, request: short };
        let (c, _peer) = std::os::unix::net::UnixStream::pair().unwrap();
        let opts = ClientOptions { pid: 1, local: true, unix_socket: true, ..Default::default() };
        assert_eq!(PmcdConnection::handshake(c, &opts, t).err(), Some(PmError::PM_ERR_TIMEOUT));
        // one that hangs up: the stream ends, PM_ERR_IPC
        let (c, peer) = std::os::unix::net::UnixStream::pair().unwrap();
        drop(peer);
        assert_eq!(PmcdConnection::handshake(c, &opts, t).err(), Some(PmError::PM_ERR_IPC));
        let mut boxed: Box<dyn PduStream> = Box::new(Connection::Unix(a));
        assert!(matches!(boxed.wait_readable(short), Some(Ok(true))));
    }

    #[test]
    fn timeouts_follow_libpcp() {
        let (t, w) = Timeouts::from_vars(None, None);
        assert_eq!(
            (t.connect, t.greeting, t.request),
            (Duration::from_secs(5), Some(Duration::from_secs(10)), Some(Duration::from_secs(10)))
        );
        assert!(w.is_empty());
        let (t, _) = Timeouts::from_vars(Some("0.25"), Some("2.7"));
        assert_eq!(t.connect, Duration::from_millis(250));
        assert_eq!((t.greeting, t.request), (Some(Duration::from_secs_f64(2.7)), Some(Duration::from_secs(2))));
        // under a second: the greeting waits that long, requests forever
        let (t, _) = Timeouts::from_vars(None, Some("0.5"));
        assert_eq!((t.greeting, t.request), (Some(Duration::from_millis(500)), None));
        let (t, w) = Timeouts::from_vars(Some("5s"), Some("-1"));
        assert_eq!((t.connect, t.request), (Duration::from_secs(5), Some(Duration::from_secs(10))));
        assert_eq!(
            w,
            [
                "auxconnect.c:__pmAuxConnectPMCDPort: ignored bad PMCD_CONNECT_TIMEOUT = '5s'",
                "ignored bad PMCD_REQUEST_TIMEOUT = '-1'"
            ]
        );
        // strtod's forms
        assert_eq!(Timeouts::from_vars(Some(" 1e1"), None).0.connect, Duration::from_secs(10));
        assert_eq!(Timeouts::from_vars(Some("0x2"), None).0.connect, Duration::from_secs(2));
    }

    #[test]
    fn backoff_follows_libpcp() {
        let (mut b, w) = Backoff::from_var(None);
        assert!(w.is_none());
        let d: Vec<u64> = (0..7).map(|_| b.next_delay().as_secs()).collect();
        assert_eq!(d, [5, 10, 20, 40, 80, 80, 80]);
        b.reset();
        assert_eq!(b.next_delay().as_secs(), 5);
        let (mut b, _) = Backoff::from_var(Some("1, 2,"));
        assert_eq!([b.next_delay().as_secs(), b.next_delay().as_secs(), b.next_delay().as_secs()], [1, 2, 2]);
        for bad in ["0", "1,,2", "1;2", "x", "-3"] {
            let (mut b, w) = Backoff::from_var(Some(bad));
            assert_eq!(w, Some(format!("pmReconnectContext: ignored bad PMCD_RECONNECT_TIMEOUT = '{bad}'")));
            assert_eq!(b.next_delay().as_secs(), 5);
        }
        assert_eq!(Backoff::from_var(Some("")).0.next_delay().as_secs(), 5);
    }
}
