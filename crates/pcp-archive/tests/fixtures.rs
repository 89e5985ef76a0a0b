//! Decoding whole archives made by pmlogger (PCP 6.0.3).
//!
//! tests/fixtures/v2.* and v3.* were made on the reference machine with
//! `PCP_DERIVED_CONFIG= pmlogger -V 2 (or -V 3) -c tests/fixtures/pmlogger.config -s 4 -t 1 v2`
//! against pmcd with the sample PMDA: four samples of nine sample metrics
//! (integers, 64-bit, double, float, string, aggregate, an instance domain)
//! plus pmlogger's own records. What the tests expect was read off
//! `pmdumplog -a` for each archive.

use pcp_archive::raw::{decode_result, next_record, IndexEntry, Label, MetaRecord, Version};
use pcp_core::format::print_value;
use pcp_core::MetricType;
use std::path::PathBuf;

fn file(name: &str) -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)).expect("fixture")
}

fn records(buf: &[u8]) -> Vec<&[u8]> {
    let (_, mut at) = Label::decode(buf).expect("label");
    let mut out = Vec::new();
    while let Some((payload, used)) = next_record(&buf[at..]).expect("record") {
        out.push(payload);
        at += used;
    }
    out
}

fn check(base: &str, version: Version) {
    let vol = file(&format!("{base}.0"));
    let meta = file(&format!("{base}.meta"));
    let index = file(&format!("{base}.index"));
    let (label, _) = Label::decode(&vol).unwrap();
    assert_eq!((label.version, label.vol, &label.hostname[..]), (version, 0, &b"vm"[..]));
    assert_eq!(Label::decode(&meta).unwrap().0.vol, -1);
    let (ilabel, used) = Label::decode(&index).unwrap();
    assert_eq!(ilabel.vol, -2);
    let entries = IndexEntry::decode_all(&index[used..], version).unwrap();
    assert!(!entries.is_empty());

    // every metadata record decodes; the descriptors name our metrics
    let mut names = Vec::new();
    let mut colour = None;
    for rec in records(&meta) {
        match MetaRecord::decode(rec, version).unwrap() {
            MetaRecord::Desc { names: n, desc } => {
                for name in n {
                    names.push((String::from_utf8(name).unwrap(), desc));
                }
            }
            MetaRecord::InDom { indom, instances, .. } if indom.to_string() == "29.1" => colour = Some(instances),
            _ => {}
        }
    }
    let find = |n: &str| names.iter().find(|(x, _)| x == n).map(|(_, d)| *d).unwrap_or_else(|| panic!("{n}"));
    assert_eq!(find("sample.double.hundred").ty, MetricType::DOUBLE);
    assert_eq!(find("sample.colour").indom.to_string(), "29.1");
    let colour = colour.expect("the colour instance domain").get().expect("read with the record");
    let inames: Vec<_> = colour.iter().map(|(_, n)| String::from_utf8(n.unwrap().to_vec()).unwrap()).collect();
    assert_eq!(inames, ["red", "green", "blue"]);

    // every result decodes; values print as pmdumplog shows them
    let mut printed = std::collections::BTreeMap::new();
    let results: Vec<_> = records(&vol).into_iter().map(|r| decode_result(r, version).unwrap()).collect();
    assert!(results.len() >= 4);
    for res in &results {
        for set in &res.sets {
            // a PMID may have several names (sample.dupnames.*)
            for (name, desc) in names.iter().filter(|(_, d)| d.pmid == set.pmid) {
                for iv in set.values.as_ref().unwrap() {
                    let mut out = Vec::new();
                    print_value(&mut out, &iv.value, desc.ty, 1).unwrap();
                    printed.insert(name.clone(), String::from_utf8(out).unwrap());
                }
            }
        }
    }
    assert_eq!(printed["sample.long.one"], "1");
    assert_eq!(printed["sample.ulonglong.million"], "1000000");
    assert_eq!(printed["sample.double.hundred"], "100");
    assert_eq!(printed["sample.float.ten"], "10");
    assert_eq!(printed["sample.string.hullo"], "\"hullo world!\"");
    assert_eq!(printed["sample.aggregate.hullo"], "\"hullo world!\" [68756c6c6f20776f726c6421]");
}

#[test]
fn version_2_archive_decodes() {
    check("v2", Version::V2);
}

#[test]
fn version_3_archive_decodes() {
    check("v3", Version::V3);
}
