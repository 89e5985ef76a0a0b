//! Real exchanges between PCP 6.0.3's tools and pmcd (tests/captures,
//! recorded by record.sh; see the README there), replayed through the
//! codec: every PDU decodes, and encodes back to the same bytes; the
//! stream frames the same however it is cut; the handshake answers
//! pmcd's greeting with the very bytes libpcp sent; and a few decoded
//! contents are checked against what the tools printed.

use pcp_core::{PmError, PmId, Value};
use pcp_pdu::handshake::{self, ctxflags, ClientOptions};
use pcp_pdu::{Framer, Pdu, PduType};
use std::collections::BTreeMap;
use std::path::Path;

/// One capture: (client sent it, bytes) in order.
fn load(name: &str) -> Vec<(bool, Vec<u8>)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/captures").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (who, hex) = l.split_once(' ').expect("direction and bytes");
            let bytes = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
            (who == "C", bytes)
        })
        .collect()
}

fn captures() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/captures");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".pdus"))
        .collect();
    names.sort();
    names
}

#[test]
fn every_captured_pdu_decodes_and_encodes_back_to_its_bytes() {
    let mut seen: BTreeMap<(bool, String), usize> = BTreeMap::new();
    let mut total = 0;
    for name in captures() {
        for (client, bytes) in load(&name) {
            let (h, pdu) = Pdu::decode(&bytes).unwrap_or_else(|e| panic!("{name}: {e}: {bytes:02x?}"));
            assert_eq!(h.ty, pdu.pdu_type());
            assert_eq!(pdu.to_bytes(h.from).unwrap(), bytes, "{name}: {pdu:?}");
            *seen.entry((client, h.ty.to_string())).or_default() += 1;
            total += 1;
        }
    }
    eprintln!("{total} PDUs: {seen:?}");
    // what the captures hold between them: every request a client makes of
    // pmcd and every reply
    let client = [
        "CREDS",
        "ATTR",
        "PROFILE",
        "HIGHRES_FETCH",
        "DESC_REQ",
        "DESC_IDS",
        "INSTANCE_REQ",
        "TEXT_REQ",
        "PMNS_IDS",
        "PMNS_NAMES",
        "PMNS_CHILD",
        "PMNS_TRAVERSE",
        "LABEL_REQ",
        "RESULT",
    ];
    let server = ["ERROR", "HIGHRES_RESULT", "DESC", "DESCS", "INSTANCE", "TEXT", "PMNS_IDS", "PMNS_NAMES", "LABEL"];
    for t in client {
        assert!(seen.contains_key(&(true, t.to_string())), "no {t} from a client");
    }
    for t in server {
        assert!(seen.contains_key(&(false, t.to_string())), "no {t} from pmcd");
    }
}

#[test]
fn streams_frame_alike_however_they_are_cut() {
    for name in captures() {
        let pdus: Vec<Vec<u8>> = load(&name).into_iter().filter(|(c, _)| !*c).map(|(_, b)| b).collect();
        let stream = pdus.concat();
        for step in [1, 3, 7, 64, 4096] {
            let mut f = Framer::for_client();
            let mut got = Vec::new();
            for chunk in stream.chunks(step) {
                f.push(chunk);
                while let Some(p) = f.next_pdu().unwrap() {
                    got.push(p);
                }
            }
            assert_eq!(got, pdus, "{name} in chunks of {step}");
            f.finish().unwrap();
        }
    }
}

#[test]
fn the_handshake_answers_as_libpcp_did() {
    for name in captures() {
        let pdus = load(&name);
        let (false, greeting) = &pdus[0] else { panic!("{name}: pmcd speaks first") };
        let (_, greeting) = Pdu::decode(greeting).unwrap();
        // the credentials' sender is the client's pid; the container case
        // names its container
        let (h, _) = Pdu::decode(&pdus[1].1).unwrap();
        let container = name.starts_with("container");
        let opts = ClientOptions {
            pid: h.from,
            local: true,
            ctxflags: if container { ctxflags::CONTAINER } else { 0 },
            container: container.then(|| b"nosuch".to_vec()),
            ..Default::default()
        };
        let a = handshake::client_answer(&greeting, &opts).unwrap();
        for (i, pdu) in a.send.iter().enumerate() {
            let (client, sent) = &pdus[1 + i];
            assert!(client);
            assert_eq!(&pdu.to_bytes(handshake::sender(pdu, &opts)).unwrap(), sent, "{name}");
        }
        assert_eq!(a.send.len(), 1 + container as usize);
    }
}

fn decoded(name: &str) -> Vec<(bool, Pdu)> {
    load(name).into_iter().map(|(c, b)| (c, Pdu::decode(&b).unwrap().1)).collect()
}

#[test]
fn decoded_contents_are_what_the_tools_printed() {
    // pminfo -f sample.long.one sample.string.hullo: "value 1", "value "hullo world!""
    let pdus = decoded("names-and-values.pdus");
    let result = pdus.iter().find_map(|(_, p)| if let Pdu::HighResResult(r) = p { Some(&r.result) } else { None });
    let result = result.expect("a result");
    let values: Vec<&Value> = result.sets.iter().map(|s| &s.values.as_ref().unwrap()[0].value).collect();
    assert_eq!(values[0], &Value::Insitu(1));
    let Value::Block(b) = values[1] else { panic!("a string block") };
    assert_eq!((b.vtype, b.data.as_slice()), (6, &b"hullo world!\0"[..]));

    // unknown names: pmcd's reply counts the names it found and has
    // PM_ID_NULL for the others
    let pdus = decoded("pmapi.pdus");
    let ids = pdus.iter().find_map(|(c, p)| match (c, p) {
        (false, Pdu::PmnsIds(l)) if l.ids.contains(&PmId::NULL) => Some(l),
        _ => None,
    });
    let ids = ids.expect("an id list with an unknown name");
    assert_eq!((ids.status, ids.ids.len()), (1, 2));

    // events come in blocks pmcd marks static
    let events = decoded("events.pdus");
    assert!(events.iter().any(|(_, p)| matches!(p, Pdu::HighResResult(r) if !r.sptr_sets.is_empty())));

    // the refused store comes back as an error PDU
    let refusal = pdus.windows(2).find_map(|w| match (&w[0], &w[1]) {
        ((true, Pdu::Result(_)), (false, Pdu::Error(e))) => Some(e.code),
        _ => None,
    });
    assert_eq!(refusal, Some(PmError::PM_ERR_PERMISSION.code()));

    // instance names of sample.colour
    let names: Vec<Vec<u8>> = pdus
        .iter()
        .find_map(|(_, p)| match p {
            Pdu::Instance(r) if r.instances.len() == 3 => Some(r.instances.iter().map(|i| i.name.clone()).collect()),
            _ => None,
        })
        .expect("the colour instances");
    assert_eq!(names, [b"red".to_vec(), b"green".to_vec(), b"blue".to_vec()]);

    // every capture starts with pmcd's greeting and the client's credentials
    for name in captures() {
        let pdus = decoded(&name);
        assert_eq!(pdus[0].1.pdu_type(), PduType::ERROR);
        assert_eq!(pdus[1].1.pdu_type(), PduType::CREDS);
    }
}
