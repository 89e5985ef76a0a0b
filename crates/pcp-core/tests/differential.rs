//! Differential tests against the C libpcp of PCP 6.0.3.
//!
//! The golden files in `tests/golden` were written by `oracle/gen.sh`, which
//! builds `oracle/oracle.c` against `-lpcp` and records libpcp's answer for
//! each case (column layouts: `oracle/README.md`). These tests recompute
//! every answer with pcp-core and require byte-for-byte agreement, so they
//! need no PCP installation. CI also generates fresh cases from a new seed
//! against the live library and points `PCP_RS_GOLDEN_DIR` at them.

mod common;

use common::{hex, unescape};
use pcp_core::format::{atom_str, number_str, print_value};
use pcp_core::*;
use std::path::PathBuf;

fn golden_dir() -> (PathBuf, bool) {
    match std::env::var_os("PCP_RS_GOLDEN_DIR") {
        Some(d) => (PathBuf::from(d), false),
        None => (PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden"), true),
    }
}

fn to_hex(b: &[u8]) -> String {
    if b.is_empty() {
        return "-".to_string();
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn u32_hex(s: &str) -> u32 {
    u32::from_str_radix(s, 16).expect("u32 hex")
}

fn num(s: &str) -> i32 {
    s.parse().expect("integer column")
}

/// Check every line of `KIND.tsv` (see [`common::run_lines`]).
fn run(kind: &str, min_cases: usize, check: impl Fn(&[&str]) -> Option<String>) {
    let (dir, committed) = golden_dir();
    common::run_lines(&dir.join(format!("{kind}.tsv")), committed, min_cases, kind, check);
}

fn expect_eq(got: &[u8], want: &[u8]) -> Option<String> {
    (got != want).then(|| format!("got {:?}, libpcp {:?}", String::from_utf8_lossy(got), String::from_utf8_lossy(want)))
}

#[test]
fn units_str() {
    run("units", 10_000, |c| expect_eq(Units::from_u32(u32_hex(c[0])).to_string().as_bytes(), &unescape(c[1])));
}

#[test]
fn parse_units_str() {
    run("parse", 10_000, |c| {
        let input = String::from_utf8(hex(c[0])).expect("oracle inputs are ASCII");
        let got = parse_units(&input);
        if c[1] == "crash" {
            // libpcp aborts here; we must refuse instead
            return got.is_ok().then(|| format!("libpcp crashes, we accepted {got:?}"));
        }
        let sts = num(c[1]);
        match got {
            Ok((u, m)) if sts == 0 => {
                let want_m = u64::from_str_radix(c[3], 16).expect("mult bits");
                (u.to_u32() != u32_hex(c[2]) || m.to_bits() != want_m).then(|| {
                    format!(
                        "got {:08x} {m:e} ({:016x}), libpcp {} {:e}",
                        u.to_u32(),
                        m.to_bits(),
                        c[2],
                        f64::from_bits(want_m)
                    )
                })
            }
            Err(e) if sts != 0 => {
                let msg = unescape(c.get(4).copied().unwrap_or(""));
                (e.code.code() != sts || e.message.as_bytes() != msg)
                    .then(|| format!("got error {} {:?}", e.code.code(), e.message))
            }
            other => Some(format!("got {other:?}, libpcp status {sts}")),
        }
    });
}

/// A pmValue from the oracle's columns: INSITU (valfmt 0) holds the 4
/// payload bytes in place, else a block of type `vtype`.
fn value_of(valfmt: i32, vtype: i32, payload: Vec<u8>) -> Value {
    if valfmt == 0 {
        Value::Insitu(i32::from_le_bytes(payload[..4].try_into().expect("4 bytes")))
    } else {
        Value::Block(ValueBlock::new(vtype as u8, payload))
    }
}

fn atom_of(ty: i32, bits: u64) -> AtomValue {
    match ty {
        0 => AtomValue::I32(bits as u32 as i32),
        1 => AtomValue::U32(bits as u32),
        2 => AtomValue::I64(bits as i64),
        3 => AtomValue::U64(bits),
        4 => AtomValue::Float(f32::from_bits(bits as u32)),
        5 => AtomValue::Double(f64::from_bits(bits)),
        _ => AtomValue::String(Vec::new()),
    }
}

#[test]
fn conv_scale_values() {
    run("conv", 10_000, |c| {
        let ty = num(c[0]);
        let atom = atom_of(ty, u64::from_str_radix(c[1], 16).expect("bits"));
        let got = conv_scale(&atom, Units::from_u32(u32_hex(c[2])), Units::from_u32(u32_hex(c[3])));
        if c[4] == "crash" {
            return got.is_ok().then(|| format!("libpcp crashes, we returned {got:?}"));
        }
        let sts = num(c[4]);
        match got {
            Ok(a) if sts == 0 => {
                let want = u64::from_str_radix(c[5], 16).expect("bits");
                (a.union_bits() != want).then(|| format!("got {:016x} ({a:?})", a.union_bits()))
            }
            Err(e) if e.code() == sts => None,
            other => Some(format!("got {other:?}, libpcp status {sts}")),
        }
    });
}

#[test]
fn extract_value_table() {
    run("extract", 10_000, |c| {
        let (itype, otype) = (num(c[1]), num(c[4]));
        let value = value_of(num(c[0]), num(c[2]), hex(c[3]));
        let got = extract_value(&value, MetricType(itype), MetricType(otype));
        let sts = num(c[5]);
        match got {
            Err(e) if e.code() == sts => None,
            Ok(a) if sts == 0 => {
                let bytes = match &a {
                    AtomValue::String(s) => s.clone(),
                    AtomValue::Aggregate(b) => {
                        let mut v = ((b.vlen() as u32) | ((b.vtype as u32) << 24)).to_le_bytes().to_vec();
                        v.extend_from_slice(&b.data);
                        v
                    }
                    other => other.union_bits().to_le_bytes().to_vec(),
                };
                (to_hex(&bytes) != c[6]).then(|| format!("got {} ({a:?})", to_hex(&bytes)))
            }
            other => Some(format!("got {other:?}, libpcp status {sts}")),
        }
    });
}

#[test]
fn extract_covers_every_type_pair() {
    // the conversion table's every (itype, otype) pair, numeric and not
    let (dir, _) = golden_dir();
    let text = std::fs::read_to_string(dir.join("extract.tsv")).expect("extract.tsv");
    let types = [-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 255];
    for i in types {
        for o in types {
            let n = text
                .lines()
                .filter(|l| {
                    let c: Vec<&str> = l.split('\t').collect();
                    num(c[1]) == i && num(c[4]) == o
                })
                .count();
            assert!(n >= 10, "type pair {i} -> {o} has only {n} cases");
        }
    }
}

#[test]
fn err_str_texts() {
    run("err", 5_000, |c| expect_eq(err_str(num(c[0])).as_bytes(), &unescape(c[1])));
}

#[test]
fn every_error_code_is_covered() {
    let (dir, _) = golden_dir();
    let text = std::fs::read_to_string(dir.join("err.tsv")).expect("err.tsv");
    let codes: std::collections::HashSet<i32> = text.lines().map(|l| num(l.split('\t').next().unwrap_or(""))).collect();
    for e in pcp_core::error::ERROR_TABLE {
        assert!(codes.contains(&e.code), "{} not in the oracle's cases", e.symbol);
    }
    for errno in 1..=133 {
        assert!(codes.contains(&-errno), "errno {errno} not in the oracle's cases");
    }
}

#[test]
fn atom_str_texts() {
    run("atom", 5_000, |c| {
        let (ty, vtype, payload) = (num(c[0]), num(c[1]), hex(c[2]));
        let null = payload == [0xff];
        let atom = match ty {
            6 if null => None,
            6 => Some(AtomValue::String(payload)),
            7 | 8 if null => None,
            7 | 8 => Some(AtomValue::Aggregate(ValueBlock::new(vtype as u8, payload))),
            9 | 10 => Some(AtomValue::Event(ValueBlock::new(vtype as u8, payload))),
            _ => {
                let mut w = [0u8; 8];
                w[..payload.len().min(8)].copy_from_slice(&payload[..payload.len().min(8)]);
                Some(AtomValue::U64(u64::from_le_bytes(w)))
            }
        };
        expect_eq(&atom_str(atom.as_ref(), MetricType(ty)), &unescape(c[3]))
    });
}

#[test]
fn ids_texts() {
    run("ids", 10_000, |c| {
        let got = match c[0] {
            "pmid" => PmId(u32_hex(c[1])).to_string(),
            "pmid-parts" => {
                let id = PmId(u32_hex(c[1]));
                format!("{}.{}.{}", id.domain(), id.cluster(), id.item())
            }
            "indom" => InDom(u32_hex(c[1])).to_string(),
            "indom-parts" => {
                let id = InDom(u32_hex(c[1]));
                format!("{}.{}", id.domain(), id.serial())
            }
            "type" => MetricType(num(c[1])).name().to_string(),
            "sem" => Semantics(num(c[1])).name().to_string(),
            other => return Some(format!("unknown row kind {other}")),
        };
        expect_eq(got.as_bytes(), &unescape(c[2]))
    });
}

#[test]
fn print_value_texts() {
    run("printvalue", 5_000, |c| {
        let (ty, width) = (num(c[1]), num(c[4]));
        let value = value_of(num(c[0]), num(c[2]), hex(c[3]));
        let mut out = Vec::new();
        if let Err(e) = print_value(&mut out, &value, MetricType(ty), width) {
            return Some(format!("error {e}"));
        }
        expect_eq(&out, &unescape(c.get(5).copied().unwrap_or("")))
    });
}

#[test]
fn number_str_texts() {
    run("number", 2_000, |c| {
        let v = f64::from_bits(u64::from_str_radix(c[0], 16).expect("bits"));
        expect_eq(number_str(v).as_bytes(), &unescape(c[1]))
    });
}

#[test]
fn print_desc_texts() {
    run("desc", 1_000, |c| {
        let d = Desc {
            pmid: PmId(u32_hex(c[0])),
            ty: MetricType(num(c[1])),
            indom: InDom(u32_hex(c[2])),
            sem: Semantics(num(c[3])),
            units: Units::from_u32(u32_hex(c[4])),
        };
        expect_eq(d.to_string().as_bytes(), &unescape(c[5]))
    });
}

/// pcp-core's value for a constant of `pmapi.h`, by its C name.
fn our_constant(name: &str) -> Option<i64> {
    use pcp_core::units::*;
    use pcp_core::value::{PM_VAL_HDR_SIZE, PM_VAL_VLEN_MAX};
    if let Some(e) = pcp_core::error::ERROR_TABLE.iter().find(|e| e.symbol == name) {
        return Some(e.code as i64);
    }
    let types = [
        ("NOSUPPORT", MetricType::NOSUPPORT),
        ("32", MetricType::I32),
        ("U32", MetricType::U32),
        ("64", MetricType::I64),
        ("U64", MetricType::U64),
        ("FLOAT", MetricType::FLOAT),
        ("DOUBLE", MetricType::DOUBLE),
        ("STRING", MetricType::STRING),
        ("AGGREGATE", MetricType::AGGREGATE),
        ("AGGREGATE_STATIC", MetricType::AGGREGATE_STATIC),
        ("EVENT", MetricType::EVENT),
        ("HIGHRES_EVENT", MetricType::HIGHRES_EVENT),
        ("UNKNOWN", MetricType::UNKNOWN),
    ];
    if let Some(t) = name.strip_prefix("PM_TYPE_") {
        return types.iter().find(|(n, _)| *n == t).map(|(_, ty)| ty.0 as i64);
    }
    Some(match name {
        "PM_ERR_BASE" | "PM_ERR_BASE2" => pcp_core::error::PM_ERR_BASE as i64,
        "PM_SEM_COUNTER" => Semantics::COUNTER.0 as i64,
        "PM_SEM_INSTANT" => Semantics::INSTANT.0 as i64,
        "PM_SEM_DISCRETE" => Semantics::DISCRETE.0 as i64,
        "PM_SPACE_BYTE" => PM_SPACE_BYTE as i64,
        "PM_SPACE_KBYTE" => PM_SPACE_KBYTE as i64,
        "PM_SPACE_MBYTE" => PM_SPACE_MBYTE as i64,
        "PM_SPACE_GBYTE" => PM_SPACE_GBYTE as i64,
        "PM_SPACE_TBYTE" => PM_SPACE_TBYTE as i64,
        "PM_SPACE_PBYTE" => PM_SPACE_PBYTE as i64,
        "PM_SPACE_EBYTE" => PM_SPACE_EBYTE as i64,
        "PM_SPACE_ZBYTE" => PM_SPACE_ZBYTE as i64,
        "PM_SPACE_YBYTE" => PM_SPACE_YBYTE as i64,
        "PM_TIME_NSEC" => PM_TIME_NSEC as i64,
        "PM_TIME_USEC" => PM_TIME_USEC as i64,
        "PM_TIME_MSEC" => PM_TIME_MSEC as i64,
        "PM_TIME_SEC" => PM_TIME_SEC as i64,
        "PM_TIME_MIN" => PM_TIME_MIN as i64,
        "PM_TIME_HOUR" => PM_TIME_HOUR as i64,
        "PM_COUNT_ONE" => PM_COUNT_ONE as i64,
        "PM_VAL_HDR_SIZE" => PM_VAL_HDR_SIZE as i64,
        "PM_VAL_VLEN_MAX" => PM_VAL_VLEN_MAX as i64,
        "PM_VAL_INSITU" => ValueFormat::Insitu as i64,
        "PM_VAL_DPTR" => ValueFormat::Dptr as i64,
        "PM_VAL_SPTR" => ValueFormat::Sptr as i64,
        _ => return None,
    })
}

#[test]
fn pmapi_h_constants() {
    // every PM_ERR_/PM_TYPE_/PM_SEM_/PM_SPACE_/PM_TIME_/PM_COUNT_/PM_VAL_
    // constant the header defines, with the compiler's value for it
    run("defines", 100, |c| {
        let want: i64 = c[1].parse().expect("value");
        match our_constant(c[0]) {
            Some(v) if v == want => None,
            Some(v) => Some(format!("ours is {v}")),
            None => Some("pcp-core has no such constant".to_string()),
        }
    });
    // and the table has nothing the header lacks
    let (dir, _) = golden_dir();
    let text = std::fs::read_to_string(dir.join("defines.tsv")).expect("defines.tsv");
    for e in pcp_core::error::ERROR_TABLE {
        assert!(text.lines().any(|l| l.split('\t').next() == Some(e.symbol)), "{} not in pmapi.h", e.symbol);
    }
}
