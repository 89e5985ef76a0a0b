//! Decode every record of the archive files named on the command line
//! (`.meta`, `.index` or data volumes, compressed or not) and report, one
//! line a file, how many records decoded and the first error if any.
//!
//! `cargo run -p pcp-archive --example scan -- FILE...`

use pcp_archive::files::open_records;
use pcp_archive::raw::{decode_result, IndexEntry, MetaRecord};
use std::io::Read;
use std::path::Path;

fn scan(path: &str) -> String {
    let (label, mut records) = match open_records(Path::new(path)) {
        Ok(x) => x,
        Err(e) => return format!("{path}: label: {e}"),
    };
    if label.vol == -2 {
        // the index is unframed: read it whole after the label
        let mut rest = Vec::new();
        let opened = pcp_archive::files::open(Path::new(path)).and_then(|mut f| f.read_to_end(&mut rest));
        if let Err(e) = opened {
            return format!("{path}: {e}");
        }
        let body = rest.get(records.offset() as usize..).unwrap_or_default();
        return match IndexEntry::decode_all(body, label.version) {
            Ok(v) => format!("{path}: ok, {} index entries", v.len()),
            Err(e) => format!("{path}: index: {e}"),
        };
    }
    let mut n = 0;
    loop {
        let at = records.offset();
        match records.next_record() {
            Ok(None) => return format!("{path}: ok, {n} records"),
            Ok(Some(payload)) => {
                let r = if label.vol == -1 {
                    MetaRecord::decode(payload, label.version).map(|_| ())
                } else {
                    decode_result(payload, label.version).map(|_| ())
                };
                if let Err(e) = r {
                    return format!("{path}: record {n} at byte {at}: {e}");
                }
                n += 1;
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
