//! Replays the PDU fuzz corpus (fuzz/corpus/pdu) through the fuzz
//! target's body on every `cargo test`; see fuzz/README.md.

#[path = "../../../fuzz/harness_pdu.rs"]
mod harness_pdu;
#[path = "../../../fuzz/replay.rs"]
mod replay;

#[test]
fn pdu_corpus() {
    replay::replay(env!("CARGO_MANIFEST_DIR"), "pdu", harness_pdu::pdu_target);
}
