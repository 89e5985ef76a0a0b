// The archive fuzz target's body, shared by `cargo fuzz` (fuzz/fuzz_targets)
// and the corpus replay in `cargo test` (crates/pcp-archive/tests/fuzz_corpus.rs).
// It must never panic, hang or allocate without bound.

use pcp_archive::raw::{decode_result, next_record, IndexEntry, Label, MetaRecord, Version};
use pcp_core::format::print_value;

/// The archive record decoders: a label, then framed records decoded as
/// metadata and as results in both versions, and index entries.
pub fn archive_target(data: &[u8]) {
    let _ = Label::decode(data);
    let mut at = 0;
    while let Ok(Some((payload, used))) = next_record(&data[at..]) {
        for v in [Version::V2, Version::V3] {
            let _ = MetaRecord::decode(payload, v);
            if let Ok(res) = decode_result(payload, v) {
                for set in &res.sets {
                    for iv in set.values.iter().flatten() {
                        let mut out = Vec::new();
                        let _ = print_value(&mut out, &iv.value, pcp_core::MetricType(data.len() as i32 % 12), 3);
                    }
                }
            }
        }
        at += used;
    }
    let _ = IndexEntry::decode_all(data, Version::V2);
    let _ = IndexEntry::decode_all(data, Version::V3);
}
