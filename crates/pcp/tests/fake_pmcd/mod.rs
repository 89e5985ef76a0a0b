//! An in-memory pmcd for tests: a byte stream pair standing in for a
//! socket, and a fake pmcd that greets, reads credentials and answers
//! requests about a few metrics with pcp-pdu's codec, misbehaving on
//! demand (silence, hanging up, garbage, replies a byte at a time).
//!
//! Shared by the tests of crates/pcp that talk to pmcd.
#![allow(dead_code)] // each test file uses part of it

use pcp::transport::PduStream;
use pcp_core::{Desc, FetchResult, InDom, InstValue, PmError, PmId, Timestamp, Value, ValueSet};
use pcp_pdu::handshake::{self, PduInfo};
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
}

/// One metric the fake serves: sample.long.one-like, or an instance
/// domain's worth of values.
#[derive(Clone, Debug)]
pub struct Metric {
    pub name: &'static str,
    pub desc: Desc,
    pub values: Vec<InstValue>,
    pub help: &'static str,
}

/// A pmcd in a box.
pub struct FakePmcd {
    pub info: PduInfo,
    pub metrics: Vec<Metric>,
    pub instances: Vec<(i32, &'static str)>,
    pub quirk: Quirk,
    /// Every PDU a client sent, with its sender word.
    pub received: Vec<(i32, Pdu)>,
    answered: usize,
}

pub const COLOUR_INDOM: InDom = InDom::new(29, 1);

impl FakePmcd {
    /// Two metrics: a singular one and one over three colours.
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
                Metric { name: "sample.long.one", desc: one, values: vec![v(-1, 1)], help: "1 as a 32-bit integer" },
                Metric { name: "sample.colour", desc: colour, values: vec![v(0, 101), v(1, 202), v(2, 303)], help: "" },
            ],
            instances: vec![(0, "red"), (1, "green"), (2, "blue")],
            quirk,
            received: Vec::new(),
            answered: 0,
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
                values: self.metric(pmid).map(|m| m.values.clone()).ok_or(PmError::PM_ERR_PMID),
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
            Pdu::Creds(_) | Pdu::Profile(_) => Vec::new(),
            Pdu::PmnsNames(l) => {
                let ids: Vec<PmId> = l
                    .names
                    .iter()
                    .map(|n| self.metrics.iter().find(|m| m.name.as_bytes() == n).map_or(PmId::NULL, |m| m.desc.pmid))
                    .collect();
                let found = ids.iter().filter(|id| !id.is_null()).count() as i32;
                vec![Pdu::PmnsIds(IdList { status: found, ids })]
            }
            Pdu::PmnsIds(l) => match self.metric(l.ids[0]) {
                Some(m) => vec![Pdu::PmnsNames(NameList { names: vec![m.name.as_bytes().to_vec()], status: None })],
                None => vec![Pdu::error(PmError::PM_ERR_PMID.code())],
            },
            Pdu::DescReq(id) => match self.metric(*id) {
                Some(m) => vec![Pdu::Desc(m.desc)],
                None => vec![Pdu::error(PmError::PM_ERR_PMID.code())],
            },
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
            Pdu::TextReq(q) => match self.metric(PmId(q.ident)).filter(|m| !m.help.is_empty()) {
                Some(m) => vec![Pdu::Text(Text { ident: q.ident, text: m.help.as_bytes().to_vec() })],
                None => vec![Pdu::error(PmError::PM_ERR_TEXT.code())],
            },
            Pdu::LabelReq(q) => vec![Pdu::Label(Labels { ident: q.ident, kind: q.kind, sets: Vec::new() })],
            Pdu::Result(_) => vec![Pdu::error(0)],
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

/// Start a fake pmcd with `quirk` on a thread; the client's end of the
/// stream, and the thread that gives the fake back when the client hangs up.
pub fn start(quirk: Quirk) -> (MemStream, std::thread::JoinHandle<FakePmcd>) {
    let (client, server) = pair();
    let fake = FakePmcd::new(quirk);
    (client, std::thread::spawn(move || fake.serve(server)))
}
