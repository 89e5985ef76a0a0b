use super::matching::compile_ere;
use super::*;
use crate::check::{check, Catalog};
use crate::parse;
use pcp_core::{MetricType, Semantics, Units, Value, ValueBlock};

const IND: InDom = InDom(0x0040_0001);
const fn d(item: u32, ty: MetricType, indom: InDom, sem: Semantics, units: u32) -> Desc {
    Desc { pmid: PmId(0x0040_0000 | item), ty, indom, sem, units: Units::from_u32(units) }
}
const BYTE: u32 = 0x1000_0000;
const KBYTE: u32 = 0x1001_0000;
const MSEC: u32 = 0x0100_2000;
const METRICS: &[(&str, Desc)] = &[
    ("a", d(1, MetricType::U64, IND, Semantics::COUNTER, BYTE)),
    ("b", d(2, MetricType::U32, InDom::NULL, Semantics::INSTANT, 0)),
    ("c", d(3, MetricType::I32, IND, Semantics::INSTANT, 0)),
    ("dd", d(4, MetricType::DOUBLE, IND, Semantics::INSTANT, 0)),
    ("k", d(5, MetricType::U32, InDom::NULL, Semantics::INSTANT, KBYTE)),
    ("t", d(6, MetricType::U64, InDom::NULL, Semantics::COUNTER, MSEC)),
    ("s", d(7, MetricType::STRING, InDom::NULL, Semantics::INSTANT, 0)),
    ("w", d(8, MetricType::U32, IND, Semantics::COUNTER, 0)),
    ("f", d(9, MetricType::FLOAT, IND, Semantics::INSTANT, 0)),
];

struct Fake;
impl Catalog for Fake {
    fn lookup_name(&mut self, name: &str) -> Result<PmId, PmError> {
        METRICS.iter().find(|m| m.0 == name).map(|m| m.1.pmid).ok_or(PmError::PM_ERR_NAME)
    }
    fn lookup_desc(&mut self, pmid: PmId) -> Result<Desc, PmError> {
        METRICS.iter().find(|m| m.1.pmid == pmid).map(|m| m.1).ok_or(PmError::PM_ERR_PMID)
    }
}
impl Instances for Fake {
    fn inst_name(&mut self, indom: InDom, inst: i32, _: Timestamp) -> Option<Vec<u8>> {
        let names: [&[u8]; 3] = [b"zero", b"one two", b"two"];
        (indom == IND).then(|| names.get(inst as usize).map(|n| n.to_vec())).flatten()
    }
    fn inst_id(&mut self, indom: InDom, name: &[u8], at: Timestamp) -> Result<i32, PmError> {
        (0..3)
            .find(|&i| {
                self.inst_name(indom, i, at).is_some_and(|n| n == name || n.starts_with(b"one ") && name == b"one")
            })
            .ok_or(PmError::PM_ERR_INST)
    }
    fn instances(&mut self, indom: InDom, _: Timestamp) -> Result<Vec<i32>, PmError> {
        if indom == IND {
            Ok(vec![0, 1, 2])
        } else {
            Err(PmError::PM_ERR_INDOM)
        }
    }
}

fn pmid(name: &str) -> PmId {
    METRICS.iter().find(|m| m.0 == name).map_or(PmId::NULL, |m| m.1.pmid)
}

/// A value set of metric `name` with (inst, atom) values.
fn set(name: &str, vals: &[(i32, AtomValue)]) -> ValueSet {
    ValueSet {
        pmid: pmid(name),
        values: Ok(vals.iter().map(|(i, a)| InstValue { inst: *i, value: Value::from_atom(a) }).collect()),
    }
}

const DERIVED: PmId = PmId(511 << 22 | 1);

fn evaluator(e: &str) -> Evaluator {
    let expr = parse(e).expect("parses");
    let checked = check("m", DERIVED, &expr, &mut Fake).expect("checks");
    Evaluator::new(expr, checked)
}

fn at(sec: i64) -> Timestamp {
    Timestamp::new(sec, 0)
}

/// The derived metric's values over fetches, as (inst, atom) pairs.
fn run(e: &str, fetches: &[(Timestamp, Vec<ValueSet>)]) -> Vec<Result<Vec<(i32, AtomValue)>, PmError>> {
    run_with(e, CounterDecrease::default(), fetches)
}

/// [`run`], `rate()` of a counter that went down as `rule` says.
fn run_with(
    e: &str,
    rule: CounterDecrease,
    fetches: &[(Timestamp, Vec<ValueSet>)],
) -> Vec<Result<Vec<(i32, AtomValue)>, PmError>> {
    let mut ev = evaluator(e);
    ev.set_counter_decrease(rule);
    let ty = ev.desc().ty;
    fetches
        .iter()
        .map(|(ts, sets)| {
            let r = FetchResult { timestamp: *ts, sets: sets.clone() };
            let vs = ev.evaluate(&r, &mut Fake);
            assert_eq!(vs.pmid, DERIVED);
            vs.values.map(|v| v.iter().map(|iv| (iv.inst, decode(&iv.value, ty).expect("decodes"))).collect())
        })
        .collect()
}

fn once(e: &str, sets: Vec<ValueSet>) -> Result<Vec<(i32, AtomValue)>, PmError> {
    run(e, &[(at(10), sets)]).remove(0)
}

use AtomValue::{Double, Float, I32, I64, U32, U64};

fn c3() -> ValueSet {
    set("c", &[(0, I32(1)), (1, I32(-2)), (2, I32(3))])
}

#[test]
fn arithmetic_per_instance_with_promotion() {
    assert_eq!(evaluator("c + b").desc().ty, MetricType::U32);
    assert_eq!(
        once("c + b", vec![c3(), set("b", &[(-1, U32(10))])]),
        Ok(vec![(0, U32(11)), (1, U32(8)), (2, U32(13))])
    );
    assert_eq!(once("c * 2", vec![c3()]), Ok(vec![(0, U32(2)), (1, U32(u32::MAX - 3)), (2, U32(6))]));
    assert_eq!(once("-c", vec![c3()]), Ok(vec![(0, I32(-1)), (1, I32(2)), (2, I32(-3))]));
    // U32 negated is I32
    assert_eq!(once("-b", vec![set("b", &[(-1, U32(5))])]), Ok(vec![(-1, I32(-5))]));
    assert_eq!(
        once("c + dd", vec![c3(), set("dd", &[(0, Double(0.5)), (2, Double(0.25))])]),
        Ok(vec![(0, Double(1.5)), (2, Double(3.25))])
    );
}

#[test]
fn instances_are_matched_by_identifier() {
    // the right operand in another order, with one missing
    let dd = set("dd", &[(2, Double(20.0)), (0, Double(10.0))]);
    assert_eq!(once("c * dd", vec![c3(), dd.clone()]), Ok(vec![(0, Double(10.0)), (2, Double(60.0))]));
    assert_eq!(once("dd - c", vec![c3(), dd]), Ok(vec![(2, Double(17.0)), (0, Double(9.0))]));
    // an operand with no values gives none
    assert_eq!(once("c + dd", vec![c3(), set("dd", &[])]), Ok(vec![]));
}

#[test]
fn division_is_double_and_zero_over_anything_is_zero() {
    let b = |v| vec![set("b", &[(-1, U32(v))])];
    assert_eq!(once("b / 4", b(6)), Ok(vec![(-1, Double(1.5))]));
    assert_eq!(once("b / 0", b(6)), Ok(vec![(-1, Double(f64::INFINITY))]));
    assert_eq!(once("b / 0", b(0)), Ok(vec![(-1, Double(0.0))]));
}

#[test]
fn scale_conversion_makes_a_double() {
    // Kbyte + byte: 3 Kbyte + 2048 byte = 5 Kbyte
    let ev = evaluator("k + mkconst(2048, units=byte)");
    assert_eq!(ev.desc().ty, MetricType::DOUBLE);
    assert_eq!(once("k + mkconst(2048, units=byte)", vec![set("k", &[(-1, U32(3))])]), Ok(vec![(-1, Double(5.0))]));
    assert_eq!(once("rescale(k, \"byte\")", vec![set("k", &[(-1, U32(3))])]), Ok(vec![(-1, U32(3072))]));
}

#[test]
fn relational_boolean_and_ternary() {
    // an unsigned constant makes the comparison unsigned, as in libpcp
    assert_eq!(once("c >= 1", vec![c3()]), Ok(vec![(0, U32(1)), (1, U32(1)), (2, U32(1))]));
    assert_eq!(once("c >= mkconst(1, type=32)", vec![c3()]), Ok(vec![(0, U32(1)), (1, U32(0)), (2, U32(1))]));
    assert_eq!(once("c > 0 && c < 3", vec![c3()]), Ok(vec![(0, U32(1)), (1, U32(0)), (2, U32(0))]));
    assert_eq!(once("!c", vec![set("c", &[(0, I32(0)), (1, I32(7))])]), Ok(vec![(0, I32(1)), (1, I32(0))]));
    // a float or double operand gets libpcp's bit pattern of 32-bit 1
    let dd = |v| vec![set("dd", &[(0, Double(v))])];
    assert_eq!(once("!dd", dd(0.0)), Ok(vec![(0, Double(f64::from_bits(1)))]));
    assert_eq!(once("!dd", dd(2.5)), Ok(vec![(0, Double(0.0))]));
    assert_eq!(once("c > mkconst(0, type=32) ? c : -c", vec![c3()]), Ok(vec![(0, I32(1)), (1, I32(2)), (2, I32(3))]));
    // a singular guard picks for every instance
    let b = |v| set("b", &[(-1, U32(v))]);
    assert_eq!(once("b ? c : -c", vec![c3(), b(0)]), Ok(vec![(0, I32(-1)), (1, I32(2)), (2, I32(-3))]));
    // novalue() drops the instances it is picked for
    assert_eq!(once("c > mkconst(1, type=32) ? c : novalue()", vec![c3()]), Ok(vec![(2, I32(3))]));
    // defined() decides at binding
    assert_eq!(once("defined(nope) ? b * 2 : b", vec![b(4)]), Ok(vec![(-1, U32(4))]));
    assert_eq!(once("defined(b)", vec![]), Ok(vec![(-1, U32(1))]));
}

#[test]
fn aggregates() {
    assert_eq!(once("sum(c)", vec![c3()]), Ok(vec![(-1, I32(2))]));
    assert_eq!(once("max(c)", vec![c3()]), Ok(vec![(-1, I32(3))]));
    assert_eq!(once("min(c)", vec![c3()]), Ok(vec![(-1, I32(-2))]));
    assert_eq!(once("count(c)", vec![c3()]), Ok(vec![(-1, U32(3))]));
    assert_eq!(once("avg(c)", vec![c3()]), Ok(vec![(-1, Float(1.0 / 3.0 + -2.0 / 3.0 + 1.0))]));
    // no values: a count of 0, a sum of 0
    assert_eq!(once("count(c)", vec![set("c", &[])]), Ok(vec![(-1, U32(0))]));
    assert_eq!(once("sum(c)", vec![set("c", &[])]), Ok(vec![(-1, I32(0))]));
    // count() turns an error into 0, the others pass it on
    let err = ValueSet { pmid: pmid("c"), values: Err(PmError::PM_ERR_AGAIN) };
    assert_eq!(once("count(c)", vec![err.clone()]), Ok(vec![(-1, U32(0))]));
    assert_eq!(once("sum(c)", vec![err]), Err(PmError::PM_ERR_AGAIN));
    assert_eq!(once("sum(c)", vec![]), Err(PmError::PM_ERR_PMID));
    assert_eq!(once("scalar(c)", vec![c3()]), Ok(vec![(-1, I32(1))]));
}

#[test]
fn delta_and_rate_over_fetches() {
    let a = |v: [u64; 2]| vec![set("a", &[(0, U64(v[0])), (1, U64(v[1]))])];
    let r = run("delta(a)", &[(at(10), a([100, 5])), (at(12), a([150, 5])), (at(14), a([140, 9]))]);
    assert_eq!(r[0], Ok(vec![]));
    assert_eq!(r[1], Ok(vec![(0, Double(50.0)), (1, Double(0.0))]));
    assert_eq!(r[2], Ok(vec![(0, Double(-10.0)), (1, Double(4.0))]));
    let r = run("rate(a)", &[(at(10), a([100, 5])), (at(12), a([150, 5]))]);
    assert_eq!(r, vec![Ok(vec![]), Ok(vec![(0, Double(25.0)), (1, Double(0.0))])]);
    // a 32-bit counter that wraps: as 6.0.3 has it rate() wraps, delta()
    // goes negative
    let w = |v: u32| vec![set("w", &[(1, U32(v))])];
    let r = run_with("rate(w)", CounterDecrease::Subtract, &[(at(1), w(u32::MAX - 1)), (at(3), w(2))]);
    assert_eq!(r[1], Ok(vec![(1, Double(2.0))]));
    let r = run("delta(w)", &[(at(1), w(u32::MAX - 1)), (at(3), w(2))]);
    assert_eq!(r[1], Ok(vec![(1, I64(2 - i64::from(u32::MAX - 1)))]));
    // rate of a time counter in milliseconds: a utilisation
    let t = |v: u64| vec![set("t", &[(-1, U64(v))])];
    let r = run("rate(t)", &[(at(0), t(0)), (at(10), t(5000))]);
    assert_eq!(r[1], Ok(vec![(-1, Double(0.5))]));
    // instances that come and go
    let r = run(
        "delta(c)",
        &[(at(0), vec![set("c", &[(0, I32(1)), (1, I32(2))])]), (at(1), vec![set("c", &[(2, I32(5)), (1, I32(7))])])],
    );
    assert_eq!(r[1], Ok(vec![(1, I32(5))]));
    // an error in the previous fetch is passed on once
    let err = vec![ValueSet { pmid: pmid("c"), values: Err(PmError::PM_ERR_AGAIN) }];
    let r = run("delta(c)", &[(at(0), vec![c3()]), (at(1), err), (at(2), vec![c3()]), (at(3), vec![c3()])]);
    assert_eq!(r[1], Err(PmError::PM_ERR_AGAIN));
    assert_eq!(r[2], Err(PmError::PM_ERR_AGAIN));
    assert_eq!(r[3], Ok(vec![(0, I32(0)), (1, I32(0)), (2, I32(0))]));
    // the same timestamp twice: no panic, an infinite or NaN rate
    let r = run("rate(w)", &[(at(1), w(1)), (at(1), w(2))]);
    assert_eq!(r[1], Ok(vec![(1, Double(f64::INFINITY))]));
}

#[test]
fn rate_of_a_counter_that_goes_down_has_no_value() {
    // pmRegisterDerived(3): "current value of an instance is smaller than
    // the previous value ... then no value is returned for this instance
    // (this corresponds to a counter wrap or a counter reset)"
    let a = |v: [u64; 2]| vec![set("a", &[(0, U64(v[0])), (1, U64(v[1]))])];
    let fetches = [(at(10), a([100, 5])), (at(12), a([40, 9]))];
    assert_eq!(run("rate(a)", &fetches)[1], Ok(vec![(1, Double(2.0))]));
    // 6.0.3 subtracts in the operand's type: a huge value
    let huge = (100u64.wrapping_neg() + 40) as f64 / 2.0;
    assert_eq!(
        run_with("rate(a)", CounterDecrease::Subtract, &fetches)[1],
        Ok(vec![(0, Double(huge)), (1, Double(2.0))])
    );
    let w = |v: u32| vec![set("w", &[(1, U32(v))])];
    assert_eq!(run("rate(w)", &[(at(1), w(u32::MAX - 1)), (at(3), w(2))])[1], Ok(vec![]));
    // an expression of counters is a counter; delta() and rate() of an
    // instantaneous metric go down freely
    assert_eq!(run("rate(a + a)", &fetches)[1], Ok(vec![(1, Double(4.0))]));
    assert_eq!(run("delta(a)", &fetches)[1], Ok(vec![(0, Double(-60.0)), (1, Double(4.0))]));
    let c = |v: i32| vec![set("c", &[(0, I32(v))])];
    assert_eq!(run("rate(c)", &[(at(0), c(5)), (at(1), c(3))])[1], Ok(vec![(0, Double(-2.0))]));
}

#[test]
fn an_error_passes_over_the_operands_after_it() {
    // b fails in the second fetch: delta(c) is not evaluated then, so
    // its history is the first fetch's when the third comes
    let err = ValueSet { pmid: pmid("b"), values: Err(PmError::PM_ERR_AGAIN) };
    let b = set("b", &[(PM_IN_NULL, U32(1))]);
    let c = |v: i32| set("c", &[(0, I32(v))]);
    let f = [(at(0), vec![b.clone(), c(10)]), (at(1), vec![err.clone(), c(20)]), (at(2), vec![b.clone(), c(35)])];
    let r = run("b + delta(c)", &f);
    assert_eq!(r[1], Err(PmError::PM_ERR_AGAIN));
    assert_eq!(r[2], Ok(vec![(0, U32(26))]));
    // the same under count(), which counts the error as no values, and
    // under a ternary's guard
    let r = run("count(b) + delta(c)", &f);
    assert_eq!(r[1], Ok(vec![(0, U32(10))]));
    let r = run("(b ? delta(c) : -delta(c)) + 0", &f);
    assert_eq!(r[1], Err(PmError::PM_ERR_AGAIN));
    assert_eq!(r[2], Ok(vec![(0, U32(25))]));
}

#[test]
fn delta_of_expressions_keeps_history_at_every_node() {
    let c = |v: i32| vec![set("c", &[(0, I32(v)), (2, I32(v * 10))])];
    let f = [(at(0), c(1)), (at(1), c(4))];
    assert_eq!(run("delta(sum(c))", &f), vec![Ok(vec![]), Ok(vec![(-1, I32(33))])]);
    assert_eq!(run("delta(c[two])", &f), vec![Ok(vec![]), Ok(vec![(2, I32(30))])]);
    assert_eq!(run("delta(matchinst(/^z/, c))", &f), vec![Ok(vec![]), Ok(vec![(0, I32(3))])]);
    assert_eq!(run("delta(instant(c) * 2)", &f)[1], Ok(vec![(0, I64(6)), (2, I64(60))]));
    // a constant's previous value is itself, from the first fetch
    assert_eq!(run("delta(mkconst(3, type=32))", &f), vec![Ok(vec![(-1, I32(0))]), Ok(vec![(-1, I32(0))])]);
    assert_eq!(
        run("delta(delta(c))", &[(at(0), c(1)), (at(1), c(4)), (at(2), c(9))])[2],
        Ok(vec![(0, I32(2)), (2, I32(20))])
    );
}

#[test]
fn instant_passes_values_through() {
    let r = run("instant(a)", &[(at(0), vec![set("a", &[(0, U64(7))])])]);
    assert_eq!(r[0], Ok(vec![(0, U64(7))]));
    assert_eq!(evaluator("instant(a)").desc().sem, Semantics::INSTANT);
}

#[test]
fn instance_selection_by_name_and_pattern() {
    assert_eq!(once("c[two]", vec![c3()]), Ok(vec![(2, I32(3))]));
    assert_eq!(once("c[nope]", vec![c3()]), Ok(vec![]));
    assert_eq!(once("matchinst(/^t/, c)", vec![c3()]), Ok(vec![(2, I32(3))]));
    assert_eq!(once("matchinst(!/^t/, c)", vec![c3()]), Ok(vec![(0, I32(1)), (1, I32(-2))]));
    // names are cut at the first space
    assert_eq!(once("matchinst(/^one$/, c)", vec![c3()]), Ok(vec![(1, I32(-2))]));
    assert_eq!(once("matchinst(/e[[:alpha:]]/, c)", vec![c3()]), Ok(vec![(0, I32(1))]));
    assert_eq!(once("scalar(matchinst(/o$/, c))", vec![c3()]), Ok(vec![(-1, I32(1))]));
}

#[test]
fn constants_and_metadata() {
    assert_eq!(once("mkconst(7, type=64)", vec![]), Ok(vec![(-1, I64(7))]));
    assert_eq!(once("mkconst(4294967295, type=u64)", vec![]), Ok(vec![(-1, U64(4294967295))]));
    assert_eq!(once("mkconst(2.5, type=float)", vec![]), Ok(vec![(-1, Float(2.5))]));
    // meta= with an instance domain: one value per instance
    assert_eq!(once("mkconst(4, meta=c)", vec![]), Ok(vec![(0, I32(4)), (1, I32(4)), (2, I32(4))]));
    assert_eq!(
        once("s", vec![set("s", &[(-1, AtomValue::String(b"hi".to_vec()))])]),
        Ok(vec![(-1, AtomValue::String(b"hi".to_vec()))])
    );
}

#[test]
fn posix_patterns_translate() {
    let m = |p: &str, s: &str| compile_ere(p.as_bytes()).map(|r| r.is_match(s.as_bytes()));
    assert_eq!(m("a{2}", "xaay"), Some(true));
    // (regcomp fails it, so the parser has refused it already)
    assert_eq!(m("a{", "a{"), None);
    assert_eq!(m("[]x]", "]"), Some(true));
    assert_eq!(m("[a\\]", "\\"), Some(true));
    assert_eq!(m("\\.", "x"), Some(false));
    assert_eq!(m("(a)\\1", "aa"), None);
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2).filter_map(|i| u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()).collect()
}

#[test]
fn patterns_match_as_glibc_regexec() {
    // recorded by oracle/gen-regex-match.sh: every valid pattern of
    // regex.tsv on a set of subjects
    let text = include_str!("../../tests/eval/regex-match.tsv");
    let mut lines = text.lines();
    let subjects: Vec<Vec<u8>> =
        lines.next().and_then(|l| l.strip_prefix("S\t")).expect("subjects").split(',').map(unhex).collect();
    let (mut compared, mut unsupported, mut wrong) = (0, Vec::new(), Vec::new());
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        let (pattern, bits) = (unhex(f[1]), f[2].as_bytes());
        assert_eq!(bits.len(), subjects.len(), "{line}");
        let Some(re) = compile_ere(&pattern) else {
            unsupported.push(String::from_utf8_lossy(&pattern).into_owned());
            continue;
        };
        for (s, &bit) in subjects.iter().zip(bits) {
            if re.is_match(s) != (bit == b'1') {
                wrong.push(format!(
                    "{:?} on {:?}: glibc {}",
                    String::from_utf8_lossy(&pattern),
                    String::from_utf8_lossy(s),
                    bit as char
                ));
            }
            compared += 1;
        }
    }
    wrong.dedup_by(|a, b| a.split(" on ").next() == b.split(" on ").next());
    assert!(wrong.is_empty(), "{} differ, first: {:?}", wrong.len(), &wrong[..wrong.len().min(20)]);
    assert!(compared > 80_000, "{compared}");
    // what the translation cannot express: back references, [. .], [= =]
    assert!(unsupported.len() <= 6, "{} unsupported: {:?}", unsupported.len(), unsupported);
}

#[test]
fn prefetch_and_postfetch() {
    let mut evs = vec![evaluator("c + dd * c")];
    assert_eq!(evs[0].operands(), vec![pmid("c"), pmid("dd"), pmid("c")]);
    let list = prefetch(&[pmid("dd"), DERIVED], &evs);
    assert_eq!(list, vec![pmid("dd"), DERIVED, pmid("c")]);
    // into a list kept from before: what was there goes
    let mut kept = vec![pmid("zz"); 9];
    prefetch_into(&[pmid("dd"), DERIVED], &evs, &mut kept);
    assert_eq!(kept, list);
    let other = PmId(511 << 22 | 2);
    let r = FetchResult {
        timestamp: at(0),
        sets: vec![
            set("dd", &[(0, Double(2.0))]),
            ValueSet { pmid: DERIVED, values: Err(PmError::PM_ERR_NOAGENT) },
            ValueSet { pmid: other, values: Err(PmError::PM_ERR_NOAGENT) },
            c3(),
        ],
    };
    let out = postfetch(&r, 3, &mut evs, &mut Fake);
    assert_eq!(out.sets.len(), 3);
    assert_eq!(out.timestamp, r.timestamp);
    assert_eq!(out.sets[0], r.sets[0]);
    assert_eq!(out.sets[1].values, Ok(vec![InstValue { inst: 0, value: Value::from_atom(&Double(3.0)) }]));
    assert_eq!(out.sets[2].values, Err(PmError::PM_ERR_PMID));
}

#[test]
fn a_derived_metric_recorded_in_an_archive_keeps_its_values() {
    // 511.2048.3: what pmlogger recorded, a plain metric of the archive
    let logged = PmId(0x7fe0_0003);
    let mut evs = vec![evaluator("b")];
    let kept = ValueSet { pmid: logged, values: Ok(vec![InstValue { inst: 0, value: Value::from_atom(&U32(7)) }]) };
    let r = FetchResult {
        timestamp: at(0),
        sets: vec![
            kept.clone(),
            ValueSet { pmid: DERIVED, values: Err(PmError::PM_ERR_NOAGENT) },
            set("b", &[(-1, U32(2))]),
        ],
    };
    let out = postfetch(&r, 2, &mut evs, &mut Fake);
    assert_eq!(out.sets[0], kept);
}

#[test]
fn a_metric_asked_for_twice_is_evaluated_twice() {
    let mut evs = vec![evaluator("delta(b)")];
    let fetch = |v: u32| FetchResult {
        timestamp: at(0),
        sets: vec![
            ValueSet { pmid: DERIVED, values: Err(PmError::PM_ERR_NOAGENT) },
            ValueSet { pmid: DERIVED, values: Err(PmError::PM_ERR_NOAGENT) },
            set("b", &[(-1, U32(v))]),
        ],
    };
    assert_eq!(prefetch(&[DERIVED, DERIVED], &evs), vec![DERIVED, DERIVED, pmid("b")]);
    postfetch(&fetch(1), 2, &mut evs, &mut Fake);
    // the second evaluation sees the same values as its previous ones
    let out = postfetch(&fetch(5), 2, &mut evs, &mut Fake);
    let delta = |d: i64| Ok(vec![InstValue { inst: -1, value: Value::from_atom(&I64(d)) }]);
    assert_eq!((out.sets[0].values.clone(), out.sets[1].values.clone()), (delta(4), delta(0)));
}

#[test]
fn evaluators_can_move_between_threads() {
    let mut ev = evaluator("matchinst(/^t/, c) + 1");
    let got = std::thread::spawn(move || ev.evaluate(&FetchResult { timestamp: at(0), sets: vec![c3()] }, &mut Fake))
        .join()
        .expect("joins");
    assert_eq!(got.values, Ok(vec![InstValue { inst: 2, value: Value::from_atom(&U32(4)) }]));
}

#[test]
fn odd_fetched_values_are_errors_not_panics() {
    // a 64-bit value in place, a short block
    let bad = ValueSet { pmid: pmid("a"), values: Ok(vec![InstValue { inst: 0, value: Value::Insitu(1) }]) };
    assert_eq!(once("instant(a)", vec![bad]), Err(PmError::PM_ERR_LOGREC));
    let short = ValueSet {
        pmid: pmid("dd"),
        values: Ok(vec![InstValue { inst: 0, value: Value::Block(ValueBlock::new(5, vec![0, 0])) }]),
    };
    assert_eq!(once("dd", vec![short]), Ok(vec![(0, Double(0.0))]));
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn any_atom() -> impl Strategy<Value = AtomValue> {
        prop_oneof![
            any::<i32>().prop_map(AtomValue::I32),
            any::<u32>().prop_map(AtomValue::U32),
            any::<i64>().prop_map(AtomValue::I64),
            any::<u64>().prop_map(AtomValue::U64),
            any::<f32>().prop_map(AtomValue::Float),
            any::<f64>().prop_map(AtomValue::Double),
            prop_oneof![Just(f64::NAN), Just(-0.0), Just(0.0)].prop_map(AtomValue::Double),
        ]
    }

    proptest! {
        /// The quick max() and min() of values all of one type are
        /// what comparing them converted one by one gives (NaNs,
        /// signed zeros and ties included).
        #[test]
        fn extremes_of_alike_values_are_the_general_ones(
            first in any_atom(),
            more in prop::collection::vec(any_atom(), 0..6),
            same in any::<bool>(),
            most in any::<bool>(),
        ) {
            let ty = first.metric_type();
            // (most often all of the first one's type)
            let vals: Vec<(i32, AtomValue)> = std::iter::once(first)
                .chain(more.into_iter().map(|v| if same { convert(&v, ty) } else { v }))
                .enumerate()
                .map(|(k, v)| (k as i32, v))
                .collect();
            if let Some(quick) = extreme_alike(&vals, most, ty) {
                let general = extreme(&vals, most, ty, None);
                prop_assert_eq!(format!("{quick:?}"), format!("{general:?}"));
            }
        }
    }

    fn leaf() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("a".to_string()),
            Just("b".to_string()),
            Just("c".to_string()),
            Just("dd".to_string()),
            Just("k".to_string()),
            Just("t".to_string()),
            Just("w".to_string()),
            Just("f".to_string()),
            Just("0".to_string()),
            Just("3".to_string()),
            Just("0.0".to_string()),
            Just("mkconst(4294967295, type=u32)".to_string()),
            Just("mkconst(2147483647, type=32)".to_string()),
            Just("mkconst(4294967295, type=64)".to_string()),
        ]
    }

    fn expression() -> impl Strategy<Value = String> {
        leaf().prop_recursive(5, 40, 3, |inner| {
            prop_oneof![
                (
                    inner.clone(),
                    prop::sample::select(vec!["+", "-", "*", "/", "<", "==", "&&", "||", ">="]),
                    inner.clone()
                )
                    .prop_map(|(l, o, r)| format!("({l}) {o} ({r})")),
                inner.clone().prop_map(|x| format!("-({x})")),
                inner.clone().prop_map(|x| format!("!({x})")),
                (prop::sample::select(vec!["delta", "rate", "instant", "scalar"]), inner.clone())
                    .prop_map(|(f, x)| format!("{f}({x})")),
                (
                    prop::sample::select(vec!["avg", "count", "max", "min", "sum"]),
                    prop::sample::select(vec!["a", "b", "c", "dd", "w", "f", "s"]),
                )
                    .prop_map(|(f, x)| format!("{f}({x})")),
                (inner.clone(), inner.clone(), inner.clone()).prop_map(|(g, t, e)| format!("({g}) ? ({t}) : ({e})")),
                inner.clone().prop_map(|x| format!("({x})[two]")),
                // (a `/` after matchinst( reads as a pattern: a name only)
                leaf().prop_map(|x| format!("matchinst(!/o/, {x})")),
                inner.prop_map(|x| format!("rescale({x}, \"Mbyte\")")),
            ]
        })
    }

    fn atom(ty: MetricType) -> BoxedStrategy<AtomValue> {
        match ty {
            MetricType::I32 => any::<i32>().prop_map(I32).boxed(),
            MetricType::U32 => any::<u32>().prop_map(U32).boxed(),
            MetricType::U64 => any::<u64>().prop_map(U64).boxed(),
            MetricType::FLOAT => any::<f32>().prop_map(Float).boxed(),
            MetricType::DOUBLE => prop_oneof![any::<f64>(), Just(0.0), Just(f64::NAN)].prop_map(Double).boxed(),
            _ => Just(AtomValue::String(b"x".to_vec())).boxed(),
        }
    }

    /// One fetch: each metric missing, an error, or some instances.
    fn fetch() -> impl Strategy<Value = Vec<ValueSet>> {
        let sets: Vec<BoxedStrategy<Option<ValueSet>>> = METRICS
            .iter()
            .map(|(name, desc)| {
                let pmid = desc.pmid;
                let ty = desc.ty;
                prop_oneof![
                    1 => Just(None),
                    1 => Just(Some(ValueSet { pmid, values: Err(PmError::PM_ERR_AGAIN) })),
                    6 => prop::collection::vec((-1i32..4, atom(ty)), 0..4).prop_map(move |v| Some(ValueSet {
                        pmid,
                        values: Ok(v.iter().map(|(i, a)| InstValue { inst: *i, value: Value::from_atom(a) }).collect()),
                    })),
                ]
                .prop_map(move |s| {
                    let _ = name;
                    s
                })
                .boxed()
            })
            .collect();
        sets.prop_map(|v| v.into_iter().flatten().collect())
    }

    proptest! {
        /// The double arithmetic made in place is the general path's:
        /// operands scaled by the checker's factors, then `arith`.
        #[test]
        fn double_arithmetic_in_place_is_the_general_one(
            op in prop::sample::select(vec!["+", "-", "*", "/"]),
            (l, r) in prop::sample::select(vec![
                ("k", "mkconst(2048, units=byte)"),
                ("mkconst(3, units=Mbyte)", "k"),
                ("dd", "k"),
                ("k", "dd"),
                ("dd", "c"),
                ("f", "dd"),
                ("a", "a"),
            ]),
            kv in prop_oneof![any::<u32>(), Just(0u32)],
            dv in prop_oneof![any::<f64>(), Just(0.0), Just(-0.0)],
            av in any::<u64>(),
            cv in any::<i32>(),
            fv in any::<f32>(),
        ) {
            let tree = parse(&format!("{l} {op} {r}")).expect("parses");
            // (adding a dimensionless double to bytes is refused: passed over)
            let checked = check("m", DERIVED, &tree, &mut Fake);
            prop_assume!(checked.is_ok());
            let mut ev = Evaluator::new(tree, checked.expect("checks"));
            prop_assume!(ev.desc().ty == MetricType::DOUBLE);
            let sets = vec![
                set("k", &[(-1, U32(kv))]),
                set("dd", &[(0, Double(dv))]),
                set("a", &[(0, U64(av))]),
                set("c", &[(0, I32(cv))]),
                set("f", &[(0, Float(fv))]),
            ];
            let got = ev.evaluate(&FetchResult { timestamp: at(1), sets }, &mut Fake).values.expect("values");
            // what the general path makes of the operands' values
            let root = ev.expr.nodes().len() - 1;
            let Node::Binary(bop, ln, rn) = ev.expr.nodes()[root].clone() else { panic!("a binary root") };
            let (ln, rn) = (ln.index(), rn.index());
            let scale = |x: usize| ev.checked.info.get(x).map_or((1, 1), |f| (f.mul, f.div));
            let (lt, rt) = (ev.desc_of(ln).ty, ev.desc_of(rn).ty);
            let want = arith(
                MetricType::DOUBLE,
                bop,
                &scaled(&ev.vals(ln)[0].1, lt, MetricType::DOUBLE, scale(ln)),
                &scaled(&ev.vals(rn)[0].1, rt, MetricType::DOUBLE, scale(rn)),
            );
            prop_assert_eq!(got.len(), 1);
            let bits = |a: AtomValue| match a {
                Double(x) => x.to_bits(),
                _ => 0,
            };
            prop_assert_eq!(bits(decode(&got[0].value, MetricType::DOUBLE).expect("decodes")), bits(want));
        }
    }

    proptest! {
        /// Packing over what a slot held gives what packing the converted
        /// value afresh gives.
        #[test]
        fn packing_in_place_is_packing_afresh(
            a in prop_oneof![
                atom(MetricType::I32),
                atom(MetricType::U32),
                any::<i64>().prop_map(I64),
                atom(MetricType::U64),
                atom(MetricType::FLOAT),
                atom(MetricType::DOUBLE),
                prop::collection::vec(any::<u8>(), 0..40).prop_map(AtomValue::String),
            ],
            ty in (0i32..=6).prop_map(MetricType),
            held in prop_oneof![
                any::<i32>().prop_map(Value::Insitu),
                prop::collection::vec(any::<u8>(), 0..40)
                    .prop_map(|b| Value::Block(pcp_core::ValueBlock::from_slice(6, &b))),
            ],
        ) {
            let mut slot = held;
            pack_into(&a, ty, &mut slot);
            // (converting anything but a number leaves it as it is)
            prop_assert_eq!(slot, Value::from_atom(&convert(&a, ty)));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        #[test]
        fn evaluation_never_panics(e in expression(), fetches in prop::collection::vec((0i64..3, fetch()), 1..4)) {
            let tree = parse(&e).expect("generated expressions parse");
            let Ok(checked) = check("m", DERIVED, &tree, &mut Fake) else { return Ok(()) };
            let mut ev = Evaluator::new(tree, checked);
            let ty = ev.desc().ty;
            for (t, sets) in fetches {
                let r = FetchResult { timestamp: at(t), sets };
                let vs = ev.evaluate(&r, &mut Fake);
                prop_assert_eq!(vs.pmid, DERIVED);
                if let Ok(v) = &vs.values {
                    for iv in v {
                        // every value is of the metric's type
                        if ty.is_numeric() {
                            prop_assert!(decode(&iv.value, ty).is_ok());
                        }
                    }
                }
            }
        }
    }
}
