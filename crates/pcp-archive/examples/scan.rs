//! Decode every record of the archive files named on the command line
//! (`.meta`, `.index` or data volumes, uncompressed) and report, one line a
//! file, how many records decoded and the first error if any.
//!
//! `cargo run -p pcp-archive --example scan -- FILE...`

use pcp_archive::raw::{decode_result, next_record, IndexEntry, Label, MetaRecord};

fn scan(path: &str) -> String {
    let buf = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return format!("{path}: {e}"),
    };
    let (label, mut at) = match Label::decode(&buf) {
        Ok(l) => l,
        Err(e) => return format!("{path}: label: {e}"),
    };
    if label.vol == -2 {
        return match IndexEntry::decode_all(&buf[at..], label.version) {
            Ok(v) => format!("{path}: ok, {} index entries", v.len()),
            Err(e) => format!("{path}: index: {e}"),
        };
    }
    let mut n = 0;
    loop {
        match next_record(&buf[at..]) {
            Ok(None) => return format!("{path}: ok, {n} records"),
            Ok(Some((payload, used))) => {
                let r = if label.vol == -1 {
                    MetaRecord::decode(payload, label.version).map(|_| ())
                } else {
                    decode_result(payload, label.version).map(|_| ())
                };
                if let Err(e) = r {
                    return format!("{path}: record {n} at byte {at}: {e}");
                }
                n += 1;
                at += used;
            }
            Err(e) => return format!("{path}: record {n} at byte {at}: framing: {e}"),
        }
    }
}

fn main() {
    for path in std::env::args().skip(1) {
        println!("{}", scan(&path));
    }
}
