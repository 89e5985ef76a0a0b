//! Evaluation against libpcp: each case of tests/eval/cases.txt registers
//! derived metrics, opens a fixture archive of pcp-archive, fetches them
//! record by record in the initial (forward) mode and prints what came
//! back; the output must be what oracle/derived_eval_oracle.c printed with
//! the reference libpcp (tests/eval/cases.out, recorded by
//! oracle/gen-derived-eval.sh).

use pcp_archive::archive::Archive;
use pcp_archive::raw::{Instances as Logged, MetaRecord};
use pcp_archive::Replay;
use pcp_core::{extract_value, AtomValue, Desc, InDom, PmError, PmId, Timestamp};
use pcp_derived::check::{check, Catalog};
use pcp_derived::{postfetch, prefetch, Evaluator, Instances, Registry};
use std::fmt::Write;
use std::path::Path;

/// An archive's metrics and instance domains, with the registered derived
/// metrics' names.
struct Meta<'a> {
    meta: &'a [MetaRecord],
    registry: &'a Registry,
}

impl Catalog for Meta<'_> {
    fn lookup_name(&mut self, name: &str) -> Result<PmId, PmError> {
        for rec in self.meta {
            if let MetaRecord::Desc { desc, names } = rec {
                if names.iter().any(|n| n == name.as_bytes()) {
                    return Ok(desc.pmid);
                }
            }
        }
        self.registry.get(name).map(|d| d.pmid).ok_or(PmError::PM_ERR_NAME)
    }
    fn lookup_desc(&mut self, pmid: PmId) -> Result<Desc, PmError> {
        self.meta
            .iter()
            .find_map(|r| match r {
                MetaRecord::Desc { desc, .. } if desc.pmid == pmid => Some(*desc),
                _ => None,
            })
            .ok_or(PmError::PM_ERR_PMID)
    }
}

impl Meta<'_> {
    /// The instance domain as last logged at or before `at` (else the
    /// first logged).
    fn indom(&self, indom: InDom, at: Timestamp) -> Option<Logged> {
        let logged = self.meta.iter().filter_map(|r| match r {
            MetaRecord::InDom { when, indom: i, instances, .. } if *i == indom => Some((*when, instances)),
            _ => None,
        });
        let before = logged.clone().filter(|l| l.0 <= at).max_by_key(|l| l.0);
        before.or_else(|| logged.min_by_key(|l| l.0)).and_then(|l| l.1.get().ok())
    }
}

impl Instances for Meta<'_> {
    fn inst_name(&mut self, indom: InDom, inst: i32, at: Timestamp) -> Option<Vec<u8>> {
        self.indom(indom, at)?.iter().find(|i| i.0 == inst).and_then(|i| i.1.map(<[u8]>::to_vec))
    }
    fn inst_id(&mut self, indom: InDom, name: &[u8], at: Timestamp) -> Result<i32, PmError> {
        let list = self.indom(indom, at).ok_or(PmError::PM_ERR_INDOM)?;
        let found = list.iter().find(|i| i.1 == Some(name)).map(|i| i.0);
        found.ok_or(PmError::PM_ERR_INST)
    }
    fn instances(&mut self, indom: InDom, at: Timestamp) -> Result<Vec<i32>, PmError> {
        self.indom(indom, at).map(|l| l.iter().map(|i| i.0).collect()).ok_or(PmError::PM_ERR_INDOM)
    }
}

fn run_case(archive: &Path, defs: &[&str]) -> String {
    let mut out = String::new();
    let mut registry = Registry::new();
    let mut names = Vec::new();
    for def in defs {
        let (name, expr) = def.split_once('=').expect("NAME=EXPR");
        let rc = if registry.register(name, expr).is_ok() { 0 } else { -1 };
        writeln!(out, "R\t{name}\t{rc}").unwrap();
        names.push(name);
    }
    let arch = Archive::open(&archive.to_string_lossy()).expect("archive opens");
    let meta_records = arch.meta().to_vec();
    let mut meta = Meta { meta: &meta_records, registry: &registry };
    let mut evaluators = Vec::new();
    let mut fetched = Vec::new();
    for name in &names {
        let Some(def) = registry.get(name) else {
            writeln!(out, "D\t{name}\t{}", PmError::PM_ERR_NAME.code()).unwrap();
            continue;
        };
        let tree = def.expr.tree().expect("a registered expression parses");
        match check(name, def.pmid, &tree, &mut meta) {
            Ok(checked) => {
                let d = checked.desc();
                writeln!(out, "D\t{name}\t0\t{}\t{:08x}\t{}\t{:08x}", d.ty.0, d.indom.0, d.sem.0, d.units.to_u32())
                    .unwrap();
                let mut ev = Evaluator::new(tree, checked);
                // libpcp 6.0.3's rate() of a counter that went down (the
                // manual page's rule has its own test in the evaluator's)
                ev.set_counter_decrease(pcp_derived::CounterDecrease::Subtract);
                evaluators.push(ev);
                fetched.push((*name, d));
            }
            Err(_) => writeln!(out, "D\t{name}\t{}", PmError::PM_ERR_BADDERIVE.code()).unwrap(),
        }
    }
    if evaluators.is_empty() {
        return out;
    }
    let requested: Vec<PmId> = evaluators.iter().map(|e| e.pmid()).collect();
    let list = prefetch(&requested, &evaluators);
    let mut replay = Replay::new(arch).expect("replay");
    loop {
        let r = match replay.fetch(&list, &|_, _| true) {
            Ok(r) => r,
            Err(e) => {
                writeln!(out, "E\t{}", e.code()).unwrap();
                break;
            }
        };
        let r = postfetch(&r, requested.len(), &mut evaluators, &mut meta);
        writeln!(out, "T\t{}\t{}", r.timestamp.sec, r.timestamp.nsec / 1000).unwrap();
        for (set, (name, d)) in r.sets.iter().zip(&fetched) {
            writeln!(out, "V\t{name}\t{}", set.numval()).unwrap();
            let Ok(values) = &set.values else { continue };
            for iv in values {
                let v = match extract_value(&iv.value, d.ty, d.ty) {
                    Err(e) => format!("!{}", e.code()),
                    Ok(AtomValue::I32(x)) => x.to_string(),
                    Ok(AtomValue::U32(x)) => x.to_string(),
                    Ok(AtomValue::I64(x)) => x.to_string(),
                    Ok(AtomValue::U64(x)) => x.to_string(),
                    Ok(AtomValue::Float(x)) => format!("f{:08x}", x.to_bits()),
                    Ok(AtomValue::Double(x)) => format!("d{:016x}", x.to_bits()),
                    Ok(AtomValue::String(s)) => format!("s{}", String::from_utf8_lossy(&s)),
                    Ok(_) => "?".to_string(),
                };
                writeln!(out, "I\t{}\t{v}", iv.inst).unwrap();
            }
        }
    }
    out
}

#[test]
fn evaluation_matches_libpcp_over_fixture_archives() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixtures = here.join("../pcp-archive/tests/fixtures");
    let cases = std::fs::read_to_string(here.join("tests/eval/cases.txt")).expect("cases.txt");
    let want = std::fs::read_to_string(here.join("tests/eval/cases.out")).expect("cases.out");
    let mut got = String::new();
    let mut n = 0;
    for line in cases.lines().filter(|l| !l.is_empty() && !l.starts_with('#')) {
        n += 1;
        let f: Vec<&str> = line.split('\t').collect();
        writeln!(got, "# CASE {n}").unwrap();
        got.push_str(&run_case(&fixtures.join(f[0]), &f[1..]));
    }
    assert!(n >= 13, "only {n} cases");
    let (mut case, mut bad) = (String::new(), Vec::new());
    for (g, w) in got.lines().zip(want.lines()) {
        if w.starts_with("# CASE") {
            case = w.to_string();
        }
        if g != w {
            bad.push(format!("{case}: libpcp {w:?} ours {g:?}"));
        }
    }
    assert!(
        bad.is_empty(),
        "{} lines differ, first:\n{}",
        bad.len(),
        bad.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
    assert_eq!(got.lines().count(), want.lines().count());
}
