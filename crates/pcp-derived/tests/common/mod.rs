//! Helpers shared by pcp-derived's golden-file tests (the byte-level ones
//! are pcp-core's).
#![allow(dead_code)] // each test file uses its own subset

#[path = "../../../pcp-core/tests/common/mod.rs"]
mod core_common;

/// Bytes from lowercase hex.
pub fn hex(s: &str) -> Vec<u8> {
    core_common::hex(s)
}

/// A golden file's text: from $PCP_RS_DERIVED_GOLDEN (a directory of
/// fresh oracle output, as the differential suite makes) if set, else the
/// committed one. extensions.tsv is always the committed one.
pub fn golden(name: &str) -> String {
    let committed = format!("{}/tests/golden", env!("CARGO_MANIFEST_DIR"));
    let dir = match std::env::var("PCP_RS_DERIVED_GOLDEN") {
        Ok(d) if name != "extensions.tsv" => d,
        _ => committed,
    };
    let path = format!("{dir}/{name}");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A text column: `-` is empty, anything else unescaped.
pub fn column(s: &str) -> Vec<u8> {
    if s == "-" {
        Vec::new()
    } else {
        core_common::unescape(s)
    }
}
