//! Differential test of `pcp_core::labels` against libpcp's label parser
//! and merges.
//!
//! `tests/golden/labels.tsv` was written by `oracle/gen-labels.sh` (seed 1),
//! which runs `oracle/labels_oracle.c` against libpcp: `pmMergeLabels`,
//! `pmMergeLabelSets` (with and without filters), `__pmAddLabels` and
//! `__pmParseLabelSet` on hand-written and random label texts (line kinds
//! and columns are described in the C file). Every answer must come out the
//! same: status, text and label index. Set `PCP_RS_LABELS_GOLDEN` to check
//! another file, such as one made from a fresh seed.

mod common;

use pcp_core::labels::{self, flags, Label, LabelSet};
use pcp_core::{PmError, PmResult};

fn status_of(r: &PmResult<Vec<u8>>) -> (i32, Vec<u8>) {
    match r {
        Ok(t) => (t.len() as i32, t.clone()),
        Err(e) => (e.code(), Vec::new()),
    }
}

fn flagged(col: &str) -> (u8, Vec<u8>) {
    let (f, hex) = col.split_once(':').expect("FLAGS:hex");
    (f.parse().expect("flags"), common::hex(hex))
}

fn labels_text(set: &LabelSet) -> String {
    if set.nlabels <= 0 {
        return "-".to_string();
    }
    let one = |l: &Label| format!("{},{},{},{},{}", l.name, l.namelen, l.flags, l.value, l.valuelen);
    set.labels.iter().map(one).collect::<Vec<_>>().join(";")
}

/// The oracle's "nlabels json labels" columns for a set.
fn set_cols(set: Option<&LabelSet>) -> String {
    match set {
        None => "none\t-\t-".to_string(),
        Some(s) => {
            let json =
                if s.json.is_empty() { "-".to_string() } else { s.json.iter().map(|b| format!("{b:02x}")).collect() };
            format!("{}\t{json}\t{}", s.nlabels, labels_text(s))
        }
    }
}

fn check(cols: &[&str]) -> Option<String> {
    match cols[0] {
        "merge" => {
            let buflen: usize = cols[1].parse().ok()?;
            let n: usize = cols[2].parse().ok()?;
            let texts: Vec<Option<Vec<u8>>> =
                cols[3..3 + n].iter().map(|c| (*c != "null").then(|| common::hex(c))).collect();
            let sets: Vec<Option<&[u8]>> = texts.iter().map(|t| t.as_deref()).collect();
            let (st, out) = status_of(&labels::merge_labels(&sets, buflen));
            let want = (cols[3 + n].parse::<i32>().ok()?, common::hex(cols[4 + n]));
            ((st, out.clone()) != want).then(|| format!("got {st} {:?}", String::from_utf8_lossy(&out)))
        }
        "sets" => {
            let buflen: usize = cols[1].parse().ok()?;
            let filter: u8 = cols[2].parse().ok()?;
            let n: usize = cols[3].parse().ok()?;
            let sets: Vec<Option<LabelSet>> = cols[4..4 + n]
                .iter()
                .map(|c| match *c {
                    "null" => None,
                    "err" => Some(LabelSet { nlabels: -1, inst: -1, ..LabelSet::default() }),
                    c => {
                        let (f, text) = flagged(c);
                        labels::parse_label_set(&text, f).ok()
                    }
                })
                .collect();
            let refs: Vec<Option<&LabelSet>> = sets.iter().map(Option::as_ref).collect();
            let mut keep = |l: &Label, json: &[u8]| match filter {
                1 => l.flags & flags::OPTIONAL == 0,
                2 => json.get(usize::from(l.name)) != Some(&b'b'),
                _ => false,
            };
            let r = labels::merge_label_sets(&refs, buflen, if filter == 0 { None } else { Some(&mut keep) });
            let (st, out) = status_of(&r);
            let want = (cols[4 + n].parse::<i32>().ok()?, common::hex(cols[5 + n]));
            ((st, out.clone()) != want).then(|| format!("got {st} {:?}", String::from_utf8_lossy(&out)))
        }
        "add" => {
            let n: usize = cols[1].parse().ok()?;
            let mut set = None;
            let mut st = 0;
            for c in &cols[2..2 + n] {
                let (f, text) = flagged(c);
                match labels::add_labels(&mut set, &text, f) {
                    Ok(k) => st = k,
                    Err(e) => {
                        st = e.code();
                        break;
                    }
                }
            }
            let got = format!("{st}\t{}", set_cols(set.as_ref()));
            let want = cols[2 + n..].join("\t");
            (got != want).then(|| format!("got {got}"))
        }
        "parse" => {
            let (f, text) = flagged(cols[1]);
            let got = match labels::parse_label_set(&text, f) {
                Ok(set) => format!("1\t{}", set_cols(Some(&set))),
                Err(e) => format!("{}\t{}", e.code(), set_cols(None)),
            };
            let want = cols[2..].join("\t");
            (got != want).then(|| format!("got {got}"))
        }
        k => Some(format!("unknown line kind {k}")),
    }
}

#[test]
fn labels_match_libpcp() {
    let (path, committed) = common::golden_file("PCP_RS_LABELS_GOLDEN", "labels.tsv");
    common::run_lines(&path, committed, 3000, "labels", check);
}

#[test]
fn errors_are_errno_codes() {
    assert_eq!(labels::merge_labels(&[], 10), Err(PmError::from_errno(22)));
}
