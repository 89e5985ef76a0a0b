// The archive fuzz target's body, shared by `cargo fuzz` (fuzz/fuzz_targets)
// and the corpus replay in `cargo test` (crates/pcp-archive/tests/fuzz_corpus.rs).
// It must never panic, hang or allocate without bound.

use pcp_archive::raw::{
    decode_result, next_record, paranoid_check, IndexEntry, Label, MetaRecord, ResultView, Version,
};
use pcp_core::format::print_value;
use std::io::Read;

/// The archive record decoders: a label, then framed records decoded as
/// metadata (and label sets indexed) and as results in both versions (in
/// place and owned, and libpcp's looser check), index entries, and the
/// whole input as `compress` (.Z) data.
pub fn archive_target(data: &[u8]) {
    let _ = Label::decode(data);
    let mut at = 0;
    let mut meta = Vec::new();
    while let Ok(Some((payload, used))) = next_record(&data[at..]) {
        for v in [Version::V2, Version::V3] {
            if let Ok(m) = MetaRecord::decode(payload, v) {
                meta.push(m);
            }
            let _ = paranoid_check(payload, v);
            if let Ok(view) = ResultView::new(payload, v) {
                for set in view.sets() {
                    for (_, value) in set.values() {
                        let _ = value.to_value();
                    }
                }
            }
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
    // instance domains: each record's instances read in place, then every
    // set of every history resolved (deltas against the sets before)
    for m in &meta {
        if let MetaRecord::InDom { instances, .. } = m {
            if let Ok(instances) = instances.get() {
                let _ = instances.iter().count() + instances.sorted().len();
            }
        }
    }
    if let Ok(index) = pcp_archive::meta::MetaIndex::build(&meta) {
        for &indom in index.indom_order() {
            for set in index.indom_history(indom).flatten() {
                let _ = set.ids.first().map(|&id| set.name_of(id));
            }
            let _ = index.indom_union(indom);
        }
    }
    if let Ok(labels) = pcp_archive::labels::LabelIndex::build(&meta) {
        // pmdumplog's walk: every type's chains, in table order
        for kind in 0..8 {
            for (ident, chain) in labels.chains_of(1 << kind) {
                let _ = labels.lookup(1 << kind, ident, chain.last().map(|e| e.when));
            }
        }
    }
    let _ = IndexEntry::decode_all(data, Version::V2);
    let _ = IndexEntry::decode_all(data, Version::V3);
    let mut out = Vec::new();
    let _ = pcp_archive::lzw::LzwDecoder::new(data).take(1 << 20).read_to_end(&mut out);
}
