// The pdu fuzz target's body, shared by `cargo fuzz` (fuzz/fuzz_targets)
// and the corpus replay in `cargo test` (crates/pcp-pdu/tests/fuzz_corpus.rs).
// It must never panic, hang or allocate without bound.

use pcp_pdu::handshake::{self, ClientOptions};
use pcp_pdu::{Framer, Pdu};

/// Byte 0 picks how the rest arrives (chunk size) and whether it is read
/// as a client or as pmcd reads; the rest is a stream of PDUs. Every
/// whole PDU is decoded; whatever decodes must encode again to a PDU of
/// the same length that decodes to the same contents, and go through
/// both sides of the handshake.
pub fn pdu_target(data: &[u8]) {
    let Some((&mode, stream)) = data.split_first() else { return };
    let mut framer = if mode & 0x80 == 0 { Framer::for_client() } else { Framer::for_server() };
    let step = usize::from(mode & 0x3f) + 1;
    for chunk in stream.chunks(step) {
        framer.push(chunk);
        loop {
            match framer.next_pdu() {
                Ok(Some(pdu)) => check(&pdu),
                Ok(None) => break,
                Err(_) => return,
            }
        }
    }
    let _ = framer.finish();
}

fn check(bytes: &[u8]) {
    let Ok((h, pdu)) = Pdu::decode(bytes) else { return };
    let again = pdu.to_bytes(h.from).unwrap_or_else(|e| panic!("a decoded PDU does not encode ({e}): {pdu:?}"));
    assert_eq!(again.len(), bytes.len(), "{pdu:?}");
    let (h2, pdu2) = Pdu::decode(&again).expect("an encoded PDU decodes");
    assert_eq!((h2, &pdu2), (h, &pdu));
    let opts = ClientOptions { container: Some(b"c".to_vec()), ..Default::default() };
    if let Ok(a) = handshake::client_answer(&pdu, &opts) {
        for p in &a.send {
            let _ = p.to_bytes(handshake::sender(p, &opts)).expect("the handshake's PDUs encode");
        }
    }
    let _ = handshake::server_accept(&pdu);
}
