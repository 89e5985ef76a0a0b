//! Semantic checks against libpcp 6.0.3 (tests/golden/sem.tsv, made by
//! oracle/gen-derived.sh with the local pmcd): each expression, defined as
//! a derived metric and looked up in a new context, must get libpcp's
//! descriptor, or fail with libpcp's report. The metrics' descriptors are
//! recorded with the cases, so no PCP is needed here.
//!
//! The recorded expressions keep to what 6.0.3 and the manual page agree
//! on: no ternary guard that constants and defined() alone decide (the
//! manual page then checks only the branch chosen), no undefined name in
//! a branch, delta()/rate()/instant() only of a metric.

mod common;

use pcp_core::{Desc, InDom, MetricType, PmError, PmId, Semantics, Units};
use pcp_derived::check::{check, Catalog};
use pcp_derived::{parse_bytes, ParseState};
use std::collections::HashMap;

struct Recorded(HashMap<String, Desc>);

impl Catalog for Recorded {
    fn lookup_name(&mut self, name: &str) -> Result<PmId, PmError> {
        self.0.get(name).map(|d| d.pmid).ok_or(PmError::PM_ERR_NAME)
    }
    fn lookup_desc(&mut self, pmid: PmId) -> Result<Desc, PmError> {
        self.0.values().find(|d| d.pmid == pmid).copied().ok_or(PmError::PM_ERR_PMID)
    }
}

fn hex32(s: &str) -> u32 {
    u32::from_str_radix(s, 16).expect("hex")
}

#[test]
fn checks_like_libpcp() {
    let text = common::golden("sem.tsv");
    let mut catalog = Recorded(HashMap::new());
    let (mut ok, mut refused, mut syntax) = (0, 0, 0);
    let mut failures = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        match f[0] {
            "D" if f[2] != "err" => {
                let d = Desc {
                    pmid: PmId(hex32(f[2])),
                    ty: MetricType(f[3].parse().expect("type")),
                    indom: InDom(hex32(f[4])),
                    sem: Semantics(f[5].parse().expect("sem")),
                    units: Units::from_u32(hex32(f[6])),
                };
                catalog.0.insert(f[1].to_string(), d);
            }
            "D" => {}
            "K" => {
                let expr = common::column(f[1]);
                let shown = String::from_utf8_lossy(&expr).into_owned();
                let parsed = parse_bytes(&expr, &mut ParseState::default());
                if f[2] == "syntax" {
                    if parsed.is_ok() {
                        failures.push(format!("{shown}: libpcp refuses the syntax, we parse it"));
                    }
                    syntax += 1;
                    continue;
                }
                let Ok(tree) = parsed else {
                    failures.push(format!("{shown}: does not parse"));
                    continue;
                };
                let got = check("d.m", PmId(0x7fc0_0001), &tree, &mut catalog);
                match (f[2], got) {
                    ("0", Ok(checked)) => {
                        let d = checked.desc();
                        let want = (f[3].parse::<i32>().ok(), hex32(f[4]), f[5].parse::<i32>().ok(), hex32(f[6]));
                        let have = (Some(d.ty.0), d.indom.0, Some(d.sem.0), d.units.to_u32());
                        if want != have {
                            failures.push(format!("{shown}\n  libpcp {want:x?}\n  ours   {have:x?}"));
                        }
                        ok += 1;
                    }
                    ("-12409", Err(e)) => {
                        let want = common::column(f[7]);
                        let have = e.report.unwrap_or_default();
                        if want != have {
                            failures.push(format!(
                                "{shown}\n  libpcp {:?}\n  ours   {:?}",
                                String::from_utf8_lossy(&want),
                                String::from_utf8_lossy(&have)
                            ));
                        }
                        refused += 1;
                    }
                    (status, got) => failures.push(format!("{shown}\n  libpcp {status} {}\n  ours   {got:?}", f[7])),
                }
            }
            k => panic!("line kind {k}"),
        }
    }
    let n = failures.len();
    for f in failures.iter().take(30) {
        eprintln!("{f}");
    }
    assert_eq!(n, 0, "{n} cases differ");
    assert!(ok + refused > 900, "{ok} {refused}");
    eprintln!("{ok} descriptors and {refused} refusals as libpcp, {syntax} syntax errors");
}
