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
use pcp_core::debug::{DebugFlag, Trace};
use pcp_core::error::Subject;
use pcp_core::labels::{flags as label_flags, LabelSet};
use pcp_core::{
    Desc, Error, FetchResult, InDom, MetricType, PmError, PmId, PmResult, Semantics, Timestamp, Value, PM_IN_NULL,
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

mod context;
mod names_trace;
mod spec;
#[cfg(test)]
mod tests;

pub use spec::{connect_spec, connect_spec_traced, spec_report, HostKind, HostSpec, Proxy};

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
    /// What the last fetch left for the context's trace (kept only while
    /// `-Dpdu` or `-Dfetch` is on).
    traced: Option<TracedFetch>,
}

/// What a fetch leaves for the context to trace: pmcd's result as it
/// arrived (`-Dpdu`: libpcp dumps it as it decodes it) and the state
/// changes pmcd announced before it (`-Dfetch`).
#[derive(Debug, Default)]
pub(crate) struct TracedFetch {
    pub(crate) received: Option<FetchResult>,
    pub(crate) changed: i32,
    /// The metrics whose values pmcd sent as `PM_VAL_SPTR`, which libpcp
    /// shows as their format.
    pub(crate) sptr: Vec<PmId>,
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
    /// The trace of this source's connections, shared with the connector
    /// [`HostSource::open_traced`] made (so that reconnections trace their
    /// handshakes) and with duplicates.
    trace: Arc<Mutex<Trace>>,
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

/// Whether a pmcd answers at `host` (`local:` for this machine's socket,
/// then TCP), without a handshake; `Err` says why not, in libpcp's words
/// (the tools' check before falling back to the local context).
pub fn pmcd_answers(host: &str) -> PmResult<()> {
    transport::connect(host).map(|_| ())
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
    /// libpcp's timeouts from the environment. The error names the host.
    #[doc(alias = "pmNewContext")]
    pub fn open(spec: &str) -> Result<HostSource, Error> {
        HostSource::open_traced(spec, &Trace::off())
    }

    /// [`HostSource::open`], tracing into `trace` from the start: under
    /// `-Dpdu` the PDUs of the handshake (and of every reconnection's)
    /// are traced as libpcp traces them while `pmNewContext` connects.
    #[doc(alias = "pmNewContext")]
    pub fn open_traced(spec: &str, trace: &Trace) -> Result<HostSource, Error> {
        let parsed = HostSpec::parse(spec).map_err(|code| Error::new(code, Subject::Host(spec.to_owned())))?;
        let (timeouts, warnings) = Timeouts::from_env();
        let slot = Arc::new(Mutex::new(trace.clone()));
        let for_connector = Arc::clone(&slot);
        let connector: Connector = Arc::new(move || {
            let trace = for_connector.lock().unwrap_or_else(|e| e.into_inner()).clone();
            connect_spec_traced(&parsed, timeouts, 0, &trace)
        });
        let mut h = HostSource::connect_with(spec, connector, slot)?;
        h.warnings = warnings;
        Ok(h)
    }

    /// A host source for `spec` reaching pmcd through `connector` (tests
    /// give one over an in-memory stream). The error names the host.
    pub fn with_connector(spec: &str, connector: Connector) -> Result<HostSource, Error> {
        HostSource::connect_with(spec, connector, Arc::new(Mutex::new(Trace::off())))
    }

    fn connect_with(spec: &str, connector: Connector, trace: Arc<Mutex<Trace>>) -> Result<HostSource, Error> {
        let mut conn = connector().map_err(|code| Error::new(code, Subject::Host(spec.to_owned())))?;
        let t = trace.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if !conn.trace().shares_buffer(&t) || conn.trace().options() != t.options() {
            conn.set_trace(&t);
        }
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
                traced: None,
            }),
            warnings: warning.into_iter().collect(),
            trace,
        })
    }

    /// The descriptor of the connection to pmcd (-1 for none).
    pub fn fd(&self) -> i32 {
        self.lock().conn.as_ref().map_or(-1, PmcdConnection::fd)
    }

    /// The trace the source's connections use.
    fn current_trace(&self) -> Trace {
        self.trace.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Run `f` with the connection's trace off, as libpcp turns every
    /// debug option off while it dumps a result (the requests that
    /// finding names, descriptors and instances for the dump costs are
    /// not traced).
    pub(crate) fn quietly<R>(&self, f: impl FnOnce() -> R) -> R {
        let t = self.current_trace();
        *self.trace.lock().unwrap_or_else(|e| e.into_inner()) = Trace::off();
        if let Some(c) = self.lock().conn.as_mut() {
            c.set_trace(&Trace::off());
        }
        let r = f();
        if let Some(c) = self.lock().conn.as_mut() {
            c.set_trace(&t);
        }
        *self.trace.lock().unwrap_or_else(|e| e.into_inner()) = t;
        r
    }

    /// What the last fetch left for the trace, if tracing kept anything.
    pub(crate) fn take_traced(&self) -> Option<TracedFetch> {
        self.lock().traced.take()
    }

    /// The result pmcd sent for the last fetch, if `-Dpdu` kept it, and
    /// the metrics whose values came as `PM_VAL_SPTR`.
    pub(crate) fn take_received(&self) -> Option<(FetchResult, Vec<PmId>)> {
        let mut st = self.lock();
        let t = st.traced.as_mut()?;
        Some((t.received.take()?, t.sptr.clone()))
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
        let mut h = HostSource::connect_with(&self.spec, self.connector.clone(), Arc::clone(&self.trace))?;
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
            Ok(mut c) => {
                c.set_trace(&self.current_trace());
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
        let t = self.current_trace();
        let traced = t.on(DebugFlag::Pmns);
        if traced {
            let mut line = String::from("pmLookupName: request_names ->");
            for (i, name) in names.iter().enumerate() {
                line.push_str(&format!(" [{i}] {name}"));
            }
            line.push('\n');
            t.write_bytes(line.as_bytes());
        }
        let mut ids = vec![PmId::NULL; n];
        let mut sts: PmResult<usize> = Ok(0);
        let mut found = 0usize;
        let mut base = 0;
        while base < n {
            let num = if n < 500 { n } else { names_batch(&names[base..]).min(n - base) };
            if traced && n >= 500 {
                let last = base + num.max(1) - 1;
                t.write(format_args!(
                    "pmNameLookup: do sublist [{base}] {} ... [{}] {}\n",
                    names[base],
                    base + num - 1,
                    names[last]
                ));
            }
            if traced {
                names_trace::names(&t, "__pmSendNameList", &names[base..base + num], None);
            }
            let req = NameList {
                names: names[base..base + num].iter().map(|s| s.as_bytes().to_vec()).collect(),
                status: None,
            };
            match self.request(&Pdu::PmnsNames(req), PduType::PMNS_IDS) {
                Ok(Pdu::PmnsIds(l)) if l.ids.len() == num => {
                    if traced {
                        names_trace::ids(&t, "__pmDecodeIDList", &l.ids);
                    }
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
        if traced {
            let mut line = String::from("pmLookupName: receive_names <-");
            match sts {
                Ok(_) => {
                    for (i, id) in ids.iter().enumerate() {
                        line.push_str(&format!(" [{i}] {id}"));
                    }
                }
                Err(e) => line.push_str(&format!(" {e}")),
            }
            line.push('\n');
            t.write_bytes(line.as_bytes());
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
        let t = self.current_trace();
        let traced = t.on(DebugFlag::Pmns);
        if traced {
            names_trace::ids(&t, "__pmSendIDList", &[pmid]);
        }
        let req = Pdu::PmnsIds(pcp_pdu::IdList { status: 0, ids: vec![pmid] });
        match self.request(&req, PduType::PMNS_NAMES)? {
            Pdu::PmnsNames(l) => {
                if traced {
                    names_trace::names(&t, "__pmDecodeNameList", &l.names, None);
                }
                Ok(l.names)
            }
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
        let t = self.current_trace();
        let traced = t.on(DebugFlag::Pmns);
        if traced {
            names_trace::name_req(&t, HANDLE, name, PduType::PMNS_CHILD, 1);
        }
        let req = Pdu::PmnsChild(NameReq { subtype: 1, name: name.as_bytes().to_vec() });
        let remote = match self.request(&req, PduType::PMNS_NAMES) {
            Ok(Pdu::PmnsNames(l)) => Ok({
                if traced {
                    names_trace::names(&t, "__pmDecodeNameList", &l.names, l.status.as_deref());
                }
                l.names
                    .iter()
                    .enumerate()
                    .map(|(i, n)| Child {
                        name: c_string(n),
                        leaf: l.status.as_ref().and_then(|s| s.get(i)).is_none_or(|&s| s == PMNS_LEAF_STATUS),
                    })
                    .collect::<Vec<_>>()
            }),
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
        let t = self.current_trace();
        let traced = t.on(DebugFlag::Pmns);
        if traced {
            names_trace::name_req(&t, HANDLE, name, PduType::PMNS_TRAVERSE, 0);
        }
        let req = Pdu::PmnsTraverse(NameReq { subtype: 0, name: name.as_bytes().to_vec() });
        let mut sts = Ok(());
        match self.request(&req, PduType::PMNS_NAMES) {
            Ok(Pdu::PmnsNames(l)) => {
                if traced {
                    names_trace::names(&t, "__pmDecodeNameList", &l.names, None);
                }
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
                } else if pmids.len() == 1 {
                    // libpcp answers 0; the protocol, the metric's error
                    sts = Err(PmError::PM_ERR_PMID);
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
            let (r, changed) = st.conn()?.fetch(HANDLE, SLOT, pmids)?;
            let trace = st.conn()?.trace();
            if trace.on(DebugFlag::Pdu) || trace.on(DebugFlag::Fetch) {
                let received = trace.on(DebugFlag::Pdu).then(|| r.result.clone());
                let sptr = r.sptr_sets.iter().filter_map(|&i| Some(r.result.sets.get(i)?.pmid)).collect();
                st.traced = Some(TracedFetch { received, changed, sptr });
            }
            (r, changed)
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
        let reply = self.request(&pdu, PduType::ERROR)?;
        match reply {
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
        self.host_name_with(profile, &mut |_, _| {})
    }

    /// [`HostSource::host_name`], handing the fetch's outcome to
    /// `fetched` (which traces it) as soon as it is known.
    pub(crate) fn host_name_with(
        &self,
        profile: &Profile,
        fetched: &mut dyn FnMut(Result<&FetchResult, PmError>, i32),
    ) -> String {
        let t = self.current_trace();
        let traced = t.on(DebugFlag::Pmns);
        // -Dcontext: the context switched to and back, the lookup's and
        // the fetch's pmWhichContext calls
        let which = t.on(DebugFlag::Context);
        if which {
            t.write_bytes(b"pmGetHostName context(0) -> 0\n");
            t.write_bytes("pmWhichContext() -> 0, cur=0\n".repeat(3).as_bytes());
        }
        if traced {
            crate::context::names::trace_location_line(&t, crate::context::PmnsLocation::Remote);
        }
        let looked_up = self.lookup_names(&["pmcd.hostname"]);
        if traced {
            crate::context::names::trace_lookup_end(&t, 1, &looked_up, |p| anon_by_pmid(p).is_some());
        }
        let mut answer = None;
        if let Ok((ids, _)) = looked_up {
            if which {
                t.write_bytes(b"pmWhichContext() -> 0, cur=0\n");
            }
            let got = self.fetch(&ids, profile);
            match &got {
                Ok((r, changed)) => fetched(Ok(r), *changed),
                Err(e) => fetched(Err(*e), 0),
            }
            answer = got.ok();
        }
        if which {
            t.write_bytes(b"pmGetHostName reset(0) -> 0\n");
        }
        if let Some((r, _)) = answer {
            let first = r.sets.first().and_then(|s| s.values.as_ref().ok()).and_then(|v| v.first());
            if let Some(Value::Block(b)) = first.map(|v| &v.value) {
                return c_string(&b.data);
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
    fn set_trace(&mut self, trace: &Trace) {
        *self.trace.lock().unwrap_or_else(|e| e.into_inner()) = trace.clone();
        if let Some(c) = self.lock().conn.as_mut() {
            c.set_trace(trace);
        }
    }

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

fn text_level(level: TextLevel) -> i32 {
    match level {
        TextLevel::OneLine => PM_TEXT_ONELINE,
        TextLevel::Help => PM_TEXT_HELP,
    }
}
