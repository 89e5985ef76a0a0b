//! libpcp's own answers (oracle/pdu_oracle.c, recorded by
//! oracle/gen-pdu.sh into tests/golden/pdu.tsv): PDU type names; PDUs
//! libpcp's `__pmSend*` functions wrote, which must decode to what
//! libpcp's decoders make of them and encode back to the same bytes; and
//! mutants of them, which must be refused wherever libpcp refuses them
//! and, where accepted, decode to what libpcp makes of them.
//!
//! `PCP_RS_PDU_GOLDEN=FILE` reads another file (the differential suite's
//! fresh seed).

use pcp_core::{Desc, Value};
use pcp_pdu::{Framer, InstanceReq, Pdu, PduType};
use std::fmt::Write;
use std::path::PathBuf;

fn golden() -> String {
    let path = std::env::var_os("PCP_RS_PDU_GOLDEN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/pdu.tsv"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

/// ` :hex` of a byte string.
fn hex(out: &mut String, b: &[u8]) {
    out.push_str(" :");
    for c in b {
        write!(out, "{c:02x}").unwrap();
    }
}

/// A byte string as libpcp hands it out: up to its first NUL.
fn cstr(out: &mut String, b: &[u8]) {
    hex(out, &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())]);
}

fn desc(out: &mut String, d: &Desc) {
    write!(out, " {:08x} {} {:08x} {} {:08x}", d.pmid.0, d.ty.0, d.indom.0, d.sem.0, d.units.to_u32()).unwrap();
}

fn ids(out: &mut String, ids: &[pcp_core::PmId]) {
    for id in ids {
        write!(out, " {:08x}", id.0).unwrap();
    }
}

/// A decoded PDU the way the oracle prints libpcp's decode of it.
fn dump(pdu: &Pdu) -> String {
    let mut o = pdu.pdu_type().to_string();
    match pdu {
        Pdu::Error(e) => {
            write!(o, " {}", e.code).unwrap();
            if let Some(d) = e.datum {
                write!(o, " {d:08x}").unwrap();
            }
        }
        Pdu::Creds(c) => {
            write!(o, " {}", c.len()).unwrap();
            for c in c {
                write!(o, " {:08x}", c.to_u32()).unwrap();
            }
        }
        Pdu::Profile(p) => {
            write!(o, " {} {} {}", p.ctxid, p.state, p.indoms.len()).unwrap();
            for ip in &p.indoms {
                write!(o, " {:08x} {} {}", ip.indom.0, ip.state, ip.instances.len()).unwrap();
                for i in &ip.instances {
                    write!(o, " {i}").unwrap();
                }
            }
        }
        Pdu::Fetch(f) | Pdu::HighResFetch(f) => {
            write!(o, " {} {}", f.ctxid, f.pmids.len()).unwrap();
            ids(&mut o, &f.pmids);
        }
        Pdu::Result(r) | Pdu::HighResResult(r) => {
            let t = r.result.timestamp;
            write!(o, " {} {} {}", t.sec, t.nsec, r.result.sets.len()).unwrap();
            for (i, s) in r.result.sets.iter().enumerate() {
                write!(o, " {:08x} {}", s.pmid.0, s.numval()).unwrap();
                let Ok(values) = &s.values else { continue };
                if values.is_empty() {
                    continue;
                }
                let fmt = if r.sptr_sets.contains(&i) { 2 } else { s.valfmt() as i32 };
                write!(o, " {fmt}").unwrap();
                for v in values {
                    match &v.value {
                        Value::Insitu(l) => write!(o, " {}={l}", v.inst).unwrap(),
                        Value::Block(b) => {
                            write!(o, " {}=t{}", v.inst, b.vtype).unwrap();
                            hex(&mut o, &b.data);
                        }
                    }
                }
            }
        }
        Pdu::DescReq(id) => write!(o, " {:08x}", id.0).unwrap(),
        Pdu::Desc(d) => desc(&mut o, d),
        Pdu::Descs(ds) => {
            write!(o, " {}", ds.len()).unwrap();
            for d in ds {
                desc(&mut o, d);
            }
        }
        Pdu::DescIds(l) => {
            write!(o, " {}", l.len()).unwrap();
            ids(&mut o, l);
        }
        Pdu::PmnsIds(l) => {
            write!(o, " {} {}", l.status, l.ids.len()).unwrap();
            ids(&mut o, &l.ids);
        }
        Pdu::InstanceReq(InstanceReq { indom, inst, name }) => {
            write!(o, " {:08x} {inst}", indom.0).unwrap();
            match name {
                Some(n) => cstr(&mut o, n),
                None => o.push_str(" -"),
            }
        }
        Pdu::Instance(r) => {
            write!(o, " {:08x} {}", r.indom.0, r.instances.len()).unwrap();
            for i in &r.instances {
                write!(o, " {}", i.inst).unwrap();
                cstr(&mut o, &i.name);
            }
        }
        Pdu::TextReq(q) => write!(o, " {:08x} {}", q.effective_ident(), q.kind).unwrap(),
        Pdu::Text(t) => {
            write!(o, " {:08x}", t.ident).unwrap();
            hex(&mut o, t.c_text());
        }
        Pdu::PmnsNames(n) => {
            write!(o, " {}", n.names.len()).unwrap();
            for (i, name) in n.names.iter().enumerate() {
                if let Some(s) = &n.status {
                    write!(o, " s{}", s[i]).unwrap();
                }
                cstr(&mut o, name);
            }
        }
        Pdu::PmnsChild(q) => {
            write!(o, " {}", q.subtype).unwrap();
            cstr(&mut o, &q.name);
        }
        Pdu::PmnsTraverse(q) => cstr(&mut o, &q.name),
        Pdu::Attr(a) => {
            write!(o, " {}", a.attr).unwrap();
            hex(&mut o, &a.value);
        }
        Pdu::LabelReq(q) => write!(o, " {:08x} {}", q.effective_ident(), q.kind).unwrap(),
        Pdu::Label(l) => {
            write!(o, " {:08x} {} {}", l.ident, l.kind, l.sets.len()).unwrap();
            for s in &l.sets {
                write!(o, " {} {}", s.inst, s.nlabels).unwrap();
                if s.nlabels > 0 {
                    hex(&mut o, &s.json);
                } else {
                    o.push_str(" -");
                }
                for l in &s.labels {
                    write!(o, " {},{},{},{},{}", l.name, l.namelen, l.flags, l.value, l.valuelen).unwrap();
                }
            }
        }
    }
    o
}

/// Read one PDU from a stream holding `bytes`, as a client reads pmcd.
fn read_one(bytes: &[u8]) -> Result<Pdu, pcp_core::PmError> {
    let mut f = Framer::for_client();
    f.push(bytes);
    match f.next_pdu()? {
        Some(p) => Pdu::decode(&p).map(|(_, pdu)| pdu),
        None => Err(pcp_core::PmError::PM_ERR_IPC),
    }
}

#[test]
fn libpcp_agrees() {
    let text = golden();
    let (mut types, mut encs, mut refused_own) = (0, 0, 0);
    // mutants: both accept, both refuse, only we refuse, libpcp crashed
    let (mut both_ok, mut both_err, mut stricter, mut crashed) = (0, 0, 0, 0);
    let mut stricter_kinds = std::collections::BTreeMap::<String, usize>::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        match f[0] {
            "type" => {
                assert_eq!(PduType(f[1].parse().unwrap()).to_string(), f[2]);
                types += 1;
            }
            "enc" => {
                let bytes = unhex(f[2]);
                if f[3] != "ok" {
                    // libpcp cannot always read what it wrote
                    assert!(Pdu::decode(&bytes).is_err(), "libpcp refused ({}) what we accept: {line}", f[3]);
                    refused_own += 1;
                    continue;
                }
                let (h, pdu) = Pdu::decode(&bytes).unwrap_or_else(|e| panic!("{line}: {e}"));
                assert_eq!(dump(&pdu), f[4], "{line}");
                assert_eq!(pdu.to_bytes(h.from).unwrap(), bytes, "{line}");
                encs += 1;
            }
            "dec" => {
                let bytes = unhex(f[1]);
                let ours = read_one(&bytes);
                match (f[2], &ours) {
                    ("ok", Ok(pdu)) => {
                        assert_eq!(dump(pdu), f[3], "{line}");
                        both_ok += 1;
                    }
                    ("ok", Err(e)) => {
                        if std::env::var_os("PCP_RS_PDU_VERBOSE").is_some() {
                            eprintln!("refused only here ({e}): {line}");
                        }
                        stricter += 1;
                        let ty = bytes.get(4..8).map_or(0, |b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]));
                        *stricter_kinds.entry(PduType(ty).to_string()).or_default() += 1;
                    }
                    ("crash", _) => crashed += 1,
                    (_, Ok(pdu)) => panic!("libpcp refused ({}) what we accept: {line}\n{pdu:?}", f[2]),
                    (_, Err(_)) => both_err += 1,
                }
            }
            k => panic!("unknown line kind {k}"),
        }
    }
    eprintln!(
        "{types} type names, {encs} encodings ({refused_own} libpcp cannot decode); mutants: {both_ok} accepted by both, {both_err} refused by both, \
         {stricter} refused only here {stricter_kinds:?}, {crashed} crashed libpcp"
    );
    assert!(types > 0 && encs > 0 && both_ok > 0 && both_err > 0);
}
