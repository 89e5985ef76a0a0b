//! An in-memory pmcd for tests: a byte stream pair standing in for a
//! socket, and a fake pmcd that greets, reads credentials and answers
//! requests about a few metrics with pcp-pdu's codec, misbehaving on
//! demand (silence, hanging up, garbage, replies a byte at a time).
//!
//! Shared by the tests of crates/pcp that talk to pmcd.
#![allow(dead_code)] // each test file uses part of it

use pcp::transport::PduStream;
use pcp_core::labels::{flags as label_flags, parse_label_set, LabelSet};
use pcp_core::{Desc, FetchResult, InDom, InstValue, PmError, PmId, Timestamp, Value, ValueSet};
use pcp_pdu::handshake::{self, PduInfo};
use pcp_pdu::pmns::{PMNS_LEAF_STATUS, PMNS_NONLEAF_STATUS};
use pcp_pdu::text::{PM_TEXT_HELP, PM_TEXT_INDOM, PM_TEXT_ONELINE};
use pcp_pdu::{Framer, IdList, InResult, Instance, Labels, NameList, Pdu, ResultPdu, Text};
use std::io::{self, Read, Write};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::time::Duration;

/// One end of an in-memory duplex byte stream.
pub struct MemStream {
    rx: Receiver<Vec<u8>>,
    tx: Option<Sender<Vec<u8>>>,
    pending: Vec<u8>,
    timeout: Option<Duration>,
}

/// Two connected ends.
pub fn pair() -> (MemStream, MemStream) {
    let (atx, brx) = channel();
    let (btx, arx) = channel();
    let end = |rx, tx| MemStream { rx, tx: Some(tx), pending: Vec::new(), timeout: None };
    (end(arx, atx), end(brx, btx))
}

impl MemStream {
    /// Close this end for writing: the other end reads end-of-stream.
    pub fn close(&mut self) {
        self.tx = None;
    }
}

impl Read for MemStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pending.is_empty() {
            let got = match self.timeout {
                None => self.rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
                Some(t) => self.rx.recv_timeout(t),
            };
            match got {
                Ok(v) => self.pending = v,
                Err(RecvTimeoutError::Timeout) => return Err(io::ErrorKind::WouldBlock.into()),
                Err(RecvTimeoutError::Disconnected) => return Ok(0),
            }
        }
        let n = buf.len().min(self.pending.len());
        buf[..n].copy_from_slice(&self.pending[..n]);
        self.pending.drain(..n);
        Ok(n)
    }
}

impl Write for MemStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let tx = self.tx.as_ref().ok_or(io::ErrorKind::BrokenPipe)?;
        tx.send(buf.to_vec()).map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl PduStream for MemStream {
    fn set_read_timeout(&mut self, t: Option<Duration>) -> io::Result<()> {
        self.timeout = t;
        Ok(())
    }
}

/// How the fake misbehaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Quirk {
    /// Answers as pmcd does.
    None,
    /// Refuses the connection in its greeting with this status.
    Refuse(i32),
    /// Never greets.
    NoGreeting,
    /// Greets, then never answers.
    Silent,
    /// Answers this many requests, then sends half a PDU and hangs up.
    HangUpAfter(usize),
    /// Writes every reply a byte at a time.
    ByteAtATime,
    /// Sends a header claiming a PDU of this length instead of a reply.
    BadLength(i32),
    /// Announces this state change before each fetch result.
    StateChange(i32),
    /// Answers every request with a descriptor.
    WrongReply,
    /// Answers the request of this number (0 the first one answered)
    /// with these bytes instead (a PDU, well framed or not), then the
    /// rest as pmcd does.
    Replace(usize, Vec<u8>),
}

/// One metric the fake serves: sample.long.one-like, or an instance
/// domain's worth of values.
#[derive(Clone, Debug)]
pub struct Metric {
    pub name: &'static str,
    pub desc: Desc,
    pub values: Vec<InstValue>,
    /// One-line help ("" for none).
    pub oneline: &'static str,
    /// Full help ("" for none).
    pub help: &'static str,
    /// Does a store change it (else `PM_ERR_PERMISSION`)?
    pub writable: bool,
}

/// A pmcd in a box.
pub struct FakePmcd {
    pub info: PduInfo,
    pub metrics: Vec<Metric>,
    pub instances: Vec<(i32, &'static str)>,
    pub quirk: Quirk,
    /// Every PDU a client sent, with its sender word.
    pub received: Vec<(i32, Pdu)>,
    /// The profile the client last sent.
    pub profile: Option<pcp_pdu::Profile>,
    answered: usize,
}

pub const COLOUR_INDOM: InDom = InDom::new(29, 1);

/// The fake's label sets, as pmcd's sample PMDA has them.
pub const CONTEXT_LABELS: &str = r#"{"hostname":"fake","userid":0}"#;
pub const DOMAIN_LABELS: &str = r#"{"agent":"sample","role":"testing"}"#;
pub const INDOM_LABELS: &str = r#"{"model":"RGB"}"#;
pub const CLUSTER_LABELS: &str = r#"{"cluster":"zero"}"#;

/// Is `inst` of `indom` in `profile` (`__pmInProfile`)?
pub fn in_profile(profile: Option<&pcp_pdu::Profile>, indom: InDom, inst: i32) -> bool {
    let Some(p) = profile else { return true };
    match p.indoms.iter().find(|d| d.indom == indom) {
        None => p.state == 0,
        Some(d) => d.instances.contains(&inst) == (d.state != 0),
    }
}

fn label_set(inst: i32, json: &str) -> LabelSet {
    let mut s = parse_label_set(json.as_bytes(), 0).expect("fake labels parse");
    s.inst = inst;
    s.names = None;
    s
}

impl FakePmcd {
    /// Three metrics: a singular one, one over three colours and a
    /// writable one.
    pub fn new(quirk: Quirk) -> FakePmcd {
        let one = Desc {
            pmid: PmId::new(29, 0, 10),
            ty: pcp_core::MetricType::I32,
            indom: InDom::NULL,
            sem: pcp_core::Semantics::INSTANT,
            units: pcp_core::Units::NONE,
        };
        let colour = Desc { pmid: PmId::new(29, 0, 5), indom: COLOUR_INDOM, ..one };
        let v = |inst, l| InstValue { inst, value: Value::Insitu(l) };
        FakePmcd {
            info: PduInfo::pmcd(),
            metrics: vec![
                Metric {
                    name: "sample.long.one",
                    desc: one,
                    values: vec![v(-1, 1)],
                    oneline: "1 as a 32-bit integer",
                    help: "This one has the constant value 1.",
                    writable: false,
                },
                Metric {
                    name: "sample.colour",
                    desc: colour,
                    values: vec![v(0, 101), v(1, 202), v(2, 303)],
                    oneline: "Metrics with a \"saw-tooth\" trend over time",
                    help: "",
                    writable: false,
                },
                Metric {
                    name: "sample.long.write_me",
                    desc: Desc { pmid: PmId::new(29, 0, 14), ..one },
                    values: vec![v(-1, 13)],
                    oneline: "",
                    help: "",
                    writable: true,
                },
            ],
            instances: vec![(0, "red"), (1, "green"), (2, "blue")],
            quirk,
            received: Vec::new(),
            profile: None,
            answered: 0,
        }
    }

    /// Every name at or below `prefix`, in the fake's order.
    fn names_below(&self, prefix: &[u8]) -> Vec<&'static str> {
        self.metrics
            .iter()
            .map(|m| m.name)
            .filter(|n| {
                prefix.is_empty()
                    || (n.as_bytes().starts_with(prefix) && matches!(n.as_bytes().get(prefix.len()), None | Some(b'.')))
            })
            .collect()
    }

    /// pmcd's answer to a children request (`DoPMNSChild`).
    fn children(&self, prefix: &[u8], with_status: bool) -> Pdu {
        let below = self.names_below(prefix);
        if below.is_empty() {
            return Pdu::error(PmError::PM_ERR_NAME.code());
        }
        let mut names: Vec<Vec<u8>> = Vec::new();
        let mut status = Vec::new();
        for full in below {
            if full.len() == prefix.len() {
                // a leaf has no children
                return Pdu::PmnsNames(NameList::default());
            }
            let rest = &full.as_bytes()[if prefix.is_empty() { 0 } else { prefix.len() + 1 }..];
            let end = rest.iter().position(|&b| b == b'.').unwrap_or(rest.len());
            if !names.iter().any(|n| n == &rest[..end]) {
                names.push(rest[..end].to_vec());
                status.push(if end == rest.len() { PMNS_LEAF_STATUS } else { PMNS_NONLEAF_STATUS });
            }
        }
        Pdu::PmnsNames(NameList { names, status: with_status.then_some(status) })
    }

    /// pmcd's label sets for a request.
    fn labels(&self, ident: u32, kind: i32) -> Vec<LabelSet> {
        let kind = kind as u8;
        let one = |json| vec![label_set(-1, json)];
        if kind & label_flags::CONTEXT != 0 {
            one(CONTEXT_LABELS)
        } else if kind & label_flags::DOMAIN != 0 && ident == 29 {
            one(DOMAIN_LABELS)
        } else if kind & label_flags::INDOM != 0 && InDom(ident) == COLOUR_INDOM {
            one(INDOM_LABELS)
        } else if kind & label_flags::CLUSTER != 0 && PmId(ident).domain() == 29 {
            one(CLUSTER_LABELS)
        } else if kind & label_flags::INSTANCES != 0 && InDom(ident) == COLOUR_INDOM {
            self.instances
                .iter()
                .filter(|(i, _)| in_profile(self.profile.as_ref(), COLOUR_INDOM, *i))
                .map(|&(i, n)| label_set(i, &format!(r#"{{"colour":"{n}"}}"#)))
                .collect()
        } else {
            Vec::new()
        }
    }

    fn metric(&self, pmid: PmId) -> Option<&Metric> {
        self.metrics.iter().find(|m| m.desc.pmid == pmid)
    }

    fn result(&self, pmids: &[PmId]) -> FetchResult {
        let sets = pmids
            .iter()
            .map(|&pmid| ValueSet {
                pmid,
                values: self
                    .metric(pmid)
                    .map(|m| {
                        let indom = m.desc.indom;
                        let mut v = m.values.clone();
                        if !indom.is_null() {
                            v.retain(|iv| in_profile(self.profile.as_ref(), indom, iv.inst));
                        }
                        v
                    })
                    .ok_or(PmError::PM_ERR_PMID),
            })
            .collect();
        FetchResult { timestamp: Timestamp::new(1_700_000_000, 123_456_789), sets }
    }

    /// The replies pmcd sends to one PDU from a client.
    pub fn answer(&mut self, pdu: &Pdu) -> Vec<Pdu> {
        if self.quirk == Quirk::WrongReply && !matches!(pdu, Pdu::Creds(_) | Pdu::Profile(_)) {
            return vec![Pdu::Desc(self.metrics[0].desc)];
        }
        let changed = match self.quirk {
            Quirk::StateChange(c) => vec![Pdu::error(c)],
            _ => Vec::new(),
        };
        match pdu {
            Pdu::Creds(_) => Vec::new(),
            Pdu::Profile(p) => {
                self.profile = Some(p.clone());
                Vec::new()
            }
            Pdu::PmnsNames(l) => {
                let ids: Vec<PmId> = l
                    .names
                    .iter()
                    .map(|n| self.metrics.iter().find(|m| m.name.as_bytes() == n).map_or(PmId::NULL, |m| m.desc.pmid))
                    .collect();
                let found = ids.iter().filter(|id| !id.is_null()).count() as i32;
                if found == 0 && ids.len() == 1 {
                    // pmcd's own lookup of one name fails with its error
                    return vec![Pdu::error(PmError::PM_ERR_NAME.code())];
                }
                vec![Pdu::PmnsIds(IdList { status: found, ids })]
            }
            Pdu::PmnsTraverse(q) => {
                let names = self.names_below(&q.name);
                if names.is_empty() {
                    vec![Pdu::error(PmError::PM_ERR_NAME.code())]
                } else {
                    vec![Pdu::PmnsNames(NameList {
                        names: names.iter().map(|n| n.as_bytes().to_vec()).collect(),
                        status: None,
                    })]
                }
            }
            Pdu::PmnsChild(q) => vec![self.children(&q.name, q.subtype == 1)],
            Pdu::PmnsIds(l) => match self.metric(l.ids[0]) {
                Some(m) => vec![Pdu::PmnsNames(NameList { names: vec![m.name.as_bytes().to_vec()], status: None })],
                None => vec![Pdu::error(PmError::PM_ERR_PMID.code())],
            },
            Pdu::DescReq(id) => match self.metric(*id) {
                Some(m) => vec![Pdu::Desc(m.desc)],
                None => vec![Pdu::error(PmError::PM_ERR_PMID.code())],
            },
            // one metric pmcd cannot describe is its error (GetDescs)
            Pdu::DescIds(ids) if ids.len() == 1 && self.metric(ids[0]).is_none() => {
                vec![Pdu::error(PmError::PM_ERR_PMID.code())]
            }
            Pdu::DescIds(ids) => vec![Pdu::Descs(
                ids.iter()
                    .map(|&id| self.metric(id).map_or(Desc { pmid: PmId::NULL, ..self.metrics[0].desc }, |m| m.desc))
                    .collect(),
            )],
            Pdu::HighResFetch(f) => {
                [changed, vec![Pdu::HighResResult(ResultPdu::from(self.result(&f.pmids)))]].concat()
            }
            Pdu::Fetch(f) => [changed, vec![Pdu::Result(ResultPdu::from(self.result(&f.pmids)))]].concat(),
            Pdu::InstanceReq(q) if q.indom == COLOUR_INDOM => {
                let all = self.instances.iter().map(|&(inst, name)| Instance { inst, name: name.as_bytes().to_vec() });
                let instances: Vec<Instance> = match (&q.name, q.inst) {
                    (Some(n), _) => all.filter(|i| &i.name == n).collect(),
                    (None, -1) => all.collect(),
                    (None, inst) => all.filter(|i| i.inst == inst).collect(),
                };
                if instances.is_empty() {
                    vec![Pdu::error(PmError::PM_ERR_INST.code())]
                } else {
                    vec![Pdu::Instance(InResult { indom: q.indom, instances })]
                }
            }
            Pdu::InstanceReq(_) => vec![Pdu::error(PmError::PM_ERR_INDOM.code())],
            Pdu::TextReq(q) => {
                let text = if q.kind & PM_TEXT_INDOM != 0 {
                    (InDom(q.ident) == COLOUR_INDOM && q.kind & PM_TEXT_ONELINE != 0).then_some("Colours")
                } else {
                    self.metric(PmId(q.ident)).map(|m| if q.kind & PM_TEXT_HELP != 0 { m.help } else { m.oneline })
                };
                match text.filter(|t| !t.is_empty()) {
                    Some(t) => vec![Pdu::Text(Text { ident: q.ident, text: t.as_bytes().to_vec() })],
                    None => vec![Pdu::error(PmError::PM_ERR_TEXT.code())],
                }
            }
            Pdu::LabelReq(q) => {
                vec![Pdu::Label(Labels { ident: q.ident, kind: q.kind, sets: self.labels(q.ident, q.kind) })]
            }
            Pdu::Result(r) => {
                for set in &r.result.sets {
                    match self.metrics.iter_mut().find(|m| m.desc.pmid == set.pmid) {
                        None => return vec![Pdu::error(PmError::PM_ERR_PMID.code())],
                        Some(m) if !m.writable => return vec![Pdu::error(PmError::PM_ERR_PERMISSION.code())],
                        Some(m) => m.values = set.values.clone().unwrap_or_default(),
                    }
                }
                vec![Pdu::error(0)]
            }
            _ => vec![Pdu::error(PmError::PM_ERR_IPC.code())],
        }
    }

    /// Serve one connection until the client hangs up (or the quirk ends
    /// it); returns the fake with what it received.
    pub fn serve(mut self, mut stream: MemStream) -> FakePmcd {
        match self.quirk {
            Quirk::NoGreeting => {
                // wait for the client to give up
                let _ = stream.read(&mut [0u8; 1]);
                return self;
            }
            Quirk::Refuse(code) => {
                let _ = stream.write_all(&handshake::greeting(code, self.info).to_bytes(0).unwrap());
                return self;
            }
            _ => {}
        }
        let greeting = handshake::greeting(0, self.info).to_bytes(0).unwrap();
        if stream.write_all(&greeting).is_err() {
            return self;
        }
        let mut framer = Framer::for_server();
        let mut buf = [0u8; 4096];
        loop {
            let n = match stream.read(&mut buf) {
                Ok(0) | Err(_) => return self,
                Ok(n) => n,
            };
            framer.push(&buf[..n]);
            while let Ok(Some(bytes)) = framer.next_pdu() {
                let (h, pdu) = Pdu::decode(&bytes).expect("clients send good PDUs");
                self.received.push((h.from, pdu.clone()));
                let replies = self.answer(&pdu);
                if replies.is_empty() {
                    continue;
                }
                match self.quirk {
                    Quirk::Silent => continue,
                    Quirk::HangUpAfter(n) if self.answered == n => {
                        let half = replies[0].to_bytes(0).unwrap();
                        let _ = stream.write_all(&half[..half.len() / 2]);
                        stream.close();
                        return self;
                    }
                    Quirk::Replace(n, ref bytes) if self.answered == n => {
                        self.answered += 1;
                        if stream.write_all(bytes).is_err() {
                            return self;
                        }
                        continue;
                    }
                    Quirk::BadLength(len) => {
                        let mut head = len.to_be_bytes().to_vec();
                        head.extend_from_slice(&[0, 0, 0x70, 0x05, 0, 0, 0, 0]);
                        let _ = stream.write_all(&head);
                        continue;
                    }
                    _ => {}
                }
                self.answered += 1;
                for r in replies {
                    let bytes = r.to_bytes(0).unwrap();
                    let sent = if self.quirk == Quirk::ByteAtATime {
                        bytes.iter().try_for_each(|b| stream.write_all(&[*b]))
                    } else {
                        stream.write_all(&bytes)
                    };
                    if sent.is_err() {
                        return self;
                    }
                }
            }
        }
    }
}

/// `pdu`'s bytes with the 32-bit word at `offset` set to `word`: the same
/// length, so still well framed (for [`Quirk::Replace`]).
pub fn with_word(pdu: &Pdu, offset: usize, word: i32) -> Vec<u8> {
    let mut b = pdu.to_bytes(0).unwrap();
    b[offset..offset + 4].copy_from_slice(&word.to_be_bytes());
    b
}

/// Start a fake pmcd with `quirk` on a thread; the client's end of the
/// stream, and the thread that gives the fake back when the client hangs up.
pub fn start(quirk: Quirk) -> (MemStream, std::thread::JoinHandle<FakePmcd>) {
    let (client, server) = pair();
    let fake = FakePmcd::new(quirk);
    (client, std::thread::spawn(move || fake.serve(server)))
}
