use super::*;
use pcp_core::{MetricType, ValueSet};

fn fixture(name: &str) -> Context {
    let path = format!("{}/../pcp-archive/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    Context::open_archive(&path).expect("fixture archive")
}

fn registry(defs: &[(&str, &str)]) -> crate::derived::Registry {
    let mut r = crate::derived::Registry::new();
    for (name, expr) in defs {
        r.register(name, expr).expect("registers");
    }
    r
}

#[test]
fn derived_metrics_are_named_described_and_fetched() {
    let mut ctx = fixture("v2");
    ctx.bind_derived(&registry(&[("my.sum", "sample.bin + sample.bin"), ("sample.colour", "sample.bin")]));
    let (ids, _) = ctx.lookup_names(&["my.sum"]).expect("derived name");
    let desc = ctx.lookup_desc(ids[0]).expect("derived desc");
    let bin = ctx.lookup_names(&["sample.bin"]).expect("real name").0[0];
    assert_eq!(desc.indom, ctx.lookup_desc(bin).expect("real desc").indom);
    // a derived name that is a real metric's: the real one wins
    assert!(!pcp_derived::check::is_derived(ctx.lookup_names(&["sample.colour"]).expect("name").0[0]));
    let r = ctx.fetch(&[ids[0], bin]).expect("fetch");
    let (sum, real) = (r.sets[0].values.as_ref().expect("sum"), r.sets[1].values.as_ref().expect("bin"));
    assert_eq!(sum.len(), real.len());
    assert!(!sum.is_empty());
    assert_eq!(ctx.lookup_text(ids[0], TextLevel::OneLine), Err(PmError::PM_ERR_TEXT));
}

#[test]
fn a_registered_metric_does_not_take_the_pmid_of_event_flags() {
    let mut ctx = fixture("v2");
    ctx.bind_derived(&registry(&[("my.one", "sample.long.one")]));
    let (ids, n) = ctx.lookup_names(&["my.one", "event.flags", "event.missed"]).expect("names");
    assert_eq!((n, ids[0]), (3, PmId::new(511, 0, 3)));
    assert_eq!(ids[1..], [PmId::new(511, 0, 1), PmId::new(511, 0, 2)]);
    assert_eq!(ctx.lookup_desc(ids[1]).map(|d| d.ty), Ok(MetricType::U32));
    assert_eq!(ctx.name_of(ids[0]).as_deref(), Ok("my.one"));
}

#[test]
fn fetching_into_a_result_handed_back_is_fetching_afresh() {
    // instances coming and going, derived metrics with history, one
    // that cannot be bound, real metrics, interpolated at half the
    // logging interval
    let defs = registry(&[
        ("my.rate", "rate(sample.dynamic.counter)"),
        ("my.ratio", "sample.dynamic.instant / (sample.long.hundred + 1)"),
        ("my.bad", "sample.dynamic.counter + sample.dynamic.instant"),
    ]);
    let open = || {
        let mut ctx = fixture("dyn");
        ctx.bind_derived(&defs);
        let start = ctx.origin();
        ctx.set_mode(Mode::Interp, start, 500_000_000).expect("interp");
        ctx
    };
    let (mut fresh, mut reused) = (open(), open());
    let names = ["my.rate", "sample.dynamic.discrete", "my.ratio", "my.bad", "sample.long.hundred"];
    let (ids, _) = fresh.lookup_names(&names).expect("names");
    let mut rated = 0;
    for pmids in [&ids[..], &ids[1..2], &ids[..1], &ids[..]] {
        // a result of another shape to start from: more sets, an error
        let junk = ValueSet { pmid: PmId::NULL, values: Err(PmError::PM_ERR_PMID) };
        let mut out = FetchResult { timestamp: Timestamp::new(1, 2), sets: vec![junk.clone(), junk.clone(), junk] };
        for _ in 0..12 {
            let want = fresh.fetch(pmids);
            let got = reused.fetch_into(pmids, &mut out);
            assert_eq!(got.map(|()| out.clone()), want);
            rated += usize::from(out.sets[0].pmid == ids[0] && out.sets[0].values.as_ref().is_ok_and(|v| v.len() > 1));
        }
    }
    // (rates of several instances were made, from the second fetch on,
    // where the counters did not go down)
    assert!(rated >= 5, "{rated}");
}

#[test]
fn a_derived_metric_that_fails_to_bind_is_reported_once_then_hidden() {
    let mut ctx = fixture("v2");
    ctx.bind_derived(&registry(&[("my.sem", "sample.bin + sample.colour"), ("my.ok", "sample.long.one * 2")]));
    let mut names = Vec::new();
    ctx.traverse_with("my", |n| names.push(n.to_string())).expect("walk");
    assert_eq!(names, ["my.sem", "my.ok"]);
    let pmid = ctx.lookup_names(&["my.sem"]).expect("name").0[0];
    assert_eq!(ctx.lookup_desc(pmid), Err(PmError::PM_ERR_BADDERIVE));
    let said = String::from_utf8(ctx.take_messages()).expect("text");
    assert!(said.starts_with("Semantic error: derived metric my.sem: "), "{said}");
    assert_eq!(ctx.lookup_desc(pmid), Err(PmError::PM_ERR_BADDERIVE));
    assert!(ctx.take_messages().is_empty());
    names.clear();
    ctx.traverse_with("my", |n| names.push(n.to_string())).expect("walk");
    assert_eq!(names, ["my.ok"]);
}

/// `pmAddDerivedMetric`'s message for a failed [`Context::add_derived`].
fn add(ctx: &mut Context, name: &str, expr: &str) -> Result<PmId, String> {
    ctx.add_derived(name, expr)
        .map_err(|e| String::from_utf8(pcp_derived::add_message(name.as_bytes(), expr.as_bytes(), &e)).expect("text"))
}

fn walk(ctx: &Context, name: &str) -> Vec<String> {
    let mut names = Vec::new();
    ctx.traverse_with(name, |n| names.push(n.to_string())).expect("walk");
    names
}

fn kids(ctx: &Context, name: &str) -> PmResult<Vec<(String, bool)>> {
    ctx.children(name).map(|k| k.into_iter().map(|c| (c.name, c.leaf)).collect())
}

fn desc_type(ctx: &Context, name: &str) -> PmResult<MetricType> {
    let pmid = ctx.lookup_names(&[name])?.0[0];
    ctx.lookup_desc(pmid).map(|d| d.ty)
}

// The expected values are what libpcp 6.0.3 gives for the same calls
// (pmAddDerivedMetric, pmLookupName, pmLookupDesc, pmNameID,
// pmLookupText, pmTraversePMNS, pmGetChildrenStatus) on this archive,
// but for a nested derived metric, refused as pmRegisterDerived(3)
// says (6.0.3 has no such rule).
#[test]
fn per_context_derived_metrics_are_added_as_libpcp_adds_them() {
    let mut ctx = fixture("v2");
    ctx.bind_derived(&registry(&[]));
    let first = PmId(0x8000_0000 | PmId::new(511, 2047, 1023).0);
    assert_eq!(add(&mut ctx, "my.a", "sample.long.one * 2"), Ok(first));
    assert_eq!(desc_type(&ctx, "my.a"), Ok(MetricType::U32));
    assert_eq!(ctx.name_of(first).as_deref(), Ok("my.a"));
    assert_eq!(ctx.lookup_text(first, TextLevel::OneLine), Err(PmError::PM_ERR_PMID));
    assert_eq!(
        add(&mut ctx, "my.b", "sample.bin + sample.colour").unwrap_err(),
        "Semantic Error: pmAddDerivedMetric(\"my.b\", ...)\nsample.bin + sample.colour\n^\n\
         Operands should have the same instance domain\n"
    );
    // it keeps its name and PMID, and cannot be used
    assert_eq!(ctx.lookup_names(&["my.b"]).map(|r| r.0[0]), Ok(PmId(first.0 - 1)));
    assert_eq!(desc_type(&ctx, "my.b"), Err(PmError::PM_ERR_BADDERIVE));
    assert_eq!(
        add(&mut ctx, "my.c", "sample.long.one +").unwrap_err(),
        "Syntax Error: pmAddDerivedMetric(\"my.c\", ...)\nsample.long.one +\n                ^\n\
         Arithmetic expression expected to follow PLUS\n"
    );
    assert_eq!(ctx.lookup_names(&["my.c"]).map_err(|e| e.code()), Err(PmError::PM_ERR_NAME));
    assert_eq!(
        add(&mut ctx, "my.a", "3").unwrap_err(),
        "Error: pmAddDerivedMetric(\"my.a\", ...): returns -12409\nDuplicate per-context derived metric name\n"
    );
    // unknown operands: added, but unusable
    assert_eq!(add(&mut ctx, "my.d", "no.such.metric + 1"), Ok(PmId(first.0 - 2)));
    assert_eq!(desc_type(&ctx, "my.d"), Err(PmError::PM_ERR_BADDERIVE));
    // a real metric's name: added (a PMID used), the real one wins
    assert_eq!(add(&mut ctx, "sample.bin", "sample.long.one"), Ok(PmId(first.0 - 3)));
    assert_eq!(ctx.lookup_names(&["sample.bin"]).map(|r| r.0[0]), Ok(PmId::new(29, 0, 6)));
    assert_eq!(add(&mut ctx, "my.glob", "sample.float.ten"), Ok(PmId(first.0 - 4)));
    assert_eq!(desc_type(&ctx, "my.glob"), Ok(MetricType::FLOAT));
    assert_eq!(add(&mut ctx, "my.e", "rate(sample.long.one)"), Ok(PmId(first.0 - 5)));
    assert_eq!(desc_type(&ctx, "my.e"), Ok(MetricType::DOUBLE));
    // another derived metric as an operand: pmRegisterDerived(3), "A
    // derived metric (<opname>) cannot be nested (i.e. used) in the
    // definition of another derived metric" (libpcp 6.0.3 accepts it)
    assert_eq!(
        add(&mut ctx, "my.f", "my.a + 1").unwrap_err(),
        "Semantic Error: pmAddDerivedMetric(\"my.f\", ...)\nmy.a + 1\n^\nIllegal nested derived metric\n"
    );
    assert_eq!(ctx.lookup_names(&["my.f"]).map(|r| r.0[0]), Ok(PmId(first.0 - 6)));
    assert_eq!(desc_type(&ctx, "my.f"), Err(PmError::PM_ERR_BADDERIVE));
    assert_eq!(
        add(&mut ctx, "my.h", "sample.bin > 100 ? sample.bin : 0").unwrap_err(),
        "Semantic Error: pmAddDerivedMetric(\"my.h\", ...)\nsample.bin > 100 ? sample.bin : 0\n^\n\
         Different types for ternary operands\n"
    );
    assert_eq!(add(&mut ctx, "my.i", "").unwrap_err(), "Syntax Error: pmAddDerivedMetric(\"my.i\", ...)\n\n ^\n");
    assert_eq!(
        add(&mut ctx, "my.j", "rescale(sample.long.one, \"sec\")").unwrap_err(),
        "Semantic Error: pmAddDerivedMetric(\"my.j\", ...)\nrescale(sample.long.one, \"sec\")\n^\n\
         Incompatible dimensions\n"
    );
    assert_eq!(desc_type(&ctx, "my.j"), Err(PmError::PM_ERR_BADDERIVE));
    // a metric naming itself is nested too (libpcp 6.0.3 recurses until
    // it crashes)
    assert!(add(&mut ctx, "my.self", "my.self + 1").is_err_and(|e| e.ends_with("Illegal nested derived metric\n")));
    // the ones that failed to bind are in no listing; nothing is said
    assert_eq!(walk(&ctx, "my"), ["my.a", "my.glob", "my.e"]);
    let leaf = |n: &str| (n.to_string(), true);
    assert_eq!(kids(&ctx, "my"), Ok(vec![leaf("a"), leaf("glob"), leaf("e")]));
    let node = |n: &str| (n.to_string(), false);
    assert_eq!(kids(&ctx, ""), Ok(vec![node("sample"), node("pmcd"), node("event"), node("my")]));
    assert_eq!(kids(&ctx, "my.b"), Err(PmError::PM_ERR_NAME));
    assert_eq!(kids(&ctx, "my.a"), Ok(vec![]));
    assert!(ctx.take_messages().is_empty());
    // values
    let ids = ctx.lookup_names(&["my.a", "sample.long.one"]).expect("names").0;
    let r = ctx.fetch(&ids).expect("fetch");
    let one = |i: usize| r.sets[i].values.as_ref().ok().and_then(|v| v.first()).map(|v| v.value.clone());
    assert!(one(1).is_some());
    assert_ne!(one(0), one(1));
}

#[test]
fn per_context_derived_metrics_mask_global_ones_in_that_context_alone() {
    let globals = registry(&[("my.glob", "sample.long.one + 1"), ("my.gbad", "sample.bin + sample.colour")]);
    let mut ctx = fixture("v2");
    ctx.bind_derived(&globals);
    let mut other = fixture("v2");
    other.bind_derived(&globals);
    let global = globals.get("my.glob").expect("registered").pmid;
    assert_eq!(add(&mut ctx, "my.a", "sample.long.one * 2").map(|p| p.item()), Ok(1023));
    let local = add(&mut ctx, "my.glob", "sample.float.ten").expect("added");
    assert_eq!(add(&mut ctx, "my.e", "rate(sample.long.one)").map(|p| p.item()), Ok(1021));
    assert_eq!(ctx.lookup_names(&["my.glob"]).map(|r| r.0[0]), Ok(local));
    assert_eq!(desc_type(&ctx, "my.glob"), Ok(MetricType::FLOAT));
    assert_eq!(ctx.name_of(global), Err(PmError::PM_ERR_PMID));
    // the masking metric comes after the context's others, as in libpcp
    assert_eq!(walk(&ctx, "my"), ["my.gbad", "my.a", "my.glob", "my.e"]);
    // the other context still has the global metric, and none of these
    assert_eq!(other.lookup_names(&["my.glob"]).map(|r| r.0[0]), Ok(global));
    assert_eq!(desc_type(&other, "my.glob"), Ok(MetricType::U32));
    assert_eq!(other.lookup_names(&["my.a"]).map_err(|e| e.code()), Err(PmError::PM_ERR_NAME));
    assert_eq!(add(&mut other, "my.x", "1").map(|p| p.item()), Ok(1023));
    // a failed addition masks the global metric all the same
    assert!(add(&mut other, "my.glob", "1 +").is_err());
    assert_eq!(other.lookup_names(&["my.glob"]).map_err(|e| e.code()), Err(PmError::PM_ERR_NAME));
    // once my.gbad is bound (and fails), it leaves the listings
    assert_eq!(desc_type(&ctx, "my.gbad"), Err(PmError::PM_ERR_BADDERIVE));
    let said = ctx.diagnostics();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].to_string().starts_with("Semantic error: derived metric my.gbad: "), "{said:?}");
    assert!(ctx.diagnostics().is_empty());
    assert_eq!(walk(&ctx, "my"), ["my.a", "my.glob", "my.e"]);
    assert_eq!(kids(&ctx, "my").map(|k| k.len()), Ok(3));
}

#[test]
fn the_limit_on_per_context_metrics_is_the_registrys() {
    let mut r = registry(&[]);
    r.set_limit(Some(1));
    let mut ctx = fixture("v2");
    ctx.bind_derived(&r);
    assert!(add(&mut ctx, "my.a", "1").is_ok());
    assert_eq!(
        add(&mut ctx, "my.b", "2").unwrap_err(),
        "Error: pmAddDerivedMetric(\"my.b\", ...): returns -12409\nToo many per-context derived metrics\n"
    );
}

/// Fetch `ids` `n` times from `a` and from `b`, which must agree.
fn fetches_agree(a: &mut Context, b: &mut Context, ids: &[PmId], n: usize) {
    for i in 0..n {
        let (x, y) = (a.fetch(ids), b.fetch(ids));
        assert_eq!(x, y, "fetch {i}");
    }
}

#[test]
fn a_duplicate_archive_context_goes_on_from_where_the_original_is() {
    for (archive, mode, step) in [("v2", Mode::Forw, 0), ("v2", Mode::Interp, 700_000_000), ("dyn", Mode::Forw, 0)] {
        let mut ctx = fixture(archive);
        ctx.bind_derived(&registry(&[("my.twice", "sample.long.one * 2")]));
        let name = if archive == "dyn" { "sample.dynamic.counter" } else { "sample.bin" };
        let (ids, _) = ctx.lookup_names(&[name, "my.twice"]).expect("names");
        let indom = ctx.lookup_desc(ids[0]).expect("desc").indom;
        let (insts, _) = ctx.get_indom_archive(indom).expect("instances");
        ctx.del_profile(indom, &[]).expect("profile");
        ctx.add_profile(indom, &insts[1..3]).expect("profile");
        let start = ctx.archive_source().expect("archive").label().start;
        ctx.set_mode(mode, start, step).expect("mode");
        let first = ctx.fetch(&ids).expect("first fetch");
        let mut dup = ctx.dup().expect("dup");
        assert_eq!(dup.origin(), ctx.origin());
        assert_eq!(dup.lookup_names(&["my.twice"]).expect("derived name").0[0], ids[1]);
        fetches_agree(&mut ctx, &mut dup, &ids, 12);
        // the help text came along (the copy's records have none left)
        assert!(dup.lookup_text(ids[0], TextLevel::OneLine).is_ok(), "{archive}");
        for level in [TextLevel::OneLine, TextLevel::Help] {
            assert_eq!(dup.lookup_text(ids[0], level), ctx.lookup_text(ids[0], level), "{archive}");
        }
        // the profile came along: only the two instances chosen
        if let Ok(values) = &first.sets[0].values {
            assert!(values.iter().all(|v| insts[1..3].contains(&v.inst)), "{archive}");
        }
    }
}

#[test]
fn a_duplicate_local_context_serves_the_same_metrics() {
    let root = format!("{}/../pcp-linux/tests/snapshot/vm1", env!("CARGO_MANIFEST_DIR"));
    let mut ctx = Context::open_local_at(&root).expect("local context");
    let (ids, _) = ctx.lookup_names(&["hinv.ncpu", "kernel.all.load", "hinv.physmem"]).expect("names");
    let indom = ctx.lookup_desc(ids[1]).expect("desc").indom;
    let five = ctx.lookup_indom(indom, b"5").expect("5 minute");
    ctx.del_profile(indom, &[]).expect("profile");
    ctx.add_profile(indom, &[five]).expect("profile");
    let mut dup = ctx.dup().expect("dup");
    assert_eq!(dup.local_source().map(LocalSource::hostname), ctx.local_source().map(LocalSource::hostname));
    let (a, b) = (ctx.fetch(&ids).expect("fetch"), dup.fetch(&ids).expect("fetch"));
    assert_eq!(a.sets, b.sets);
    assert_eq!(b.sets[1].values.as_ref().map(Vec::len), Ok(1));
    assert_eq!(dup.store(&b), Err(PmError::PM_ERR_PERMISSION));
}

#[test]
fn a_context_of_names_alone_has_nothing_to_duplicate() {
    let ctx = Context::with_namespace(Pmns::new());
    assert_eq!(ctx.dup().err(), Some(PmError::PM_ERR_NOCONTEXT));
}

#[test]
fn contexts_are_send_and_sync() {
    fn both<T: Send + Sync>() {}
    both::<Context>();
}

#[test]
fn instance_names_in_an_archive_at_any_time() {
    let ctx = fixture("dyn");
    let counter = ctx.lookup_names(&["sample.dynamic.counter"]).expect("name").0[0];
    let indom = ctx.lookup_desc(counter).expect("desc").indom;
    let (ids, names) = ctx.get_indom_archive(indom).expect("instances");
    let now = ctx.get_indom(indom).map(|(now, _)| now).unwrap_or_default();
    // some instance came or went: not there at the start, named all the same
    assert!(ids.iter().any(|i| !now.contains(i)), "{ids:?} {now:?}");
    for (&id, name) in ids.iter().zip(&names) {
        assert_eq!(ctx.name_indom_archive(indom, id).as_ref(), Ok(name));
    }
    assert_eq!(ctx.name_indom_archive(indom, 999_999), Err(PmError::PM_ERR_INST_LOG));
    assert_eq!(ctx.name_indom_archive(InDom::NULL, ids[0]), Err(PmError::PM_ERR_INDOM));
    assert_eq!(ctx.name_indom_archive(InDom(0x0ff0_0001), 0), Err(PmError::PM_ERR_INDOM_LOG));
    let names_alone = Context::with_namespace(Pmns::new());
    assert_eq!(names_alone.name_indom_archive(indom, ids[0]), Err(PmError::PM_ERR_NOTARCHIVE));
}

#[test]
fn unloading_a_loaded_name_space_gives_back_the_sources_names() {
    let mut ctx = fixture("v2");
    ctx.bind_derived(&registry(&[("my.one", "sample.long.one")]));
    let one = ctx.lookup_names(&["sample.long.one"]).expect("archive name").0[0];
    // nothing loaded: nothing changes
    assert_eq!(ctx.unload_namespace(), Ok(()));
    assert_eq!(ctx.lookup_names(&["my.one"]).map(|(_, n)| n), Ok(1));
    let mut pmns = Pmns::new();
    pmns.add_names([("other.one", one)]);
    ctx.use_namespace_of(Context::with_namespace(pmns));
    assert_eq!(ctx.pmns_location(), PmnsLocation::Local);
    assert!(ctx.lookup_names(&["sample.long.one"]).is_err());
    assert_eq!(ctx.unload_namespace(), Ok(()));
    assert_eq!(ctx.pmns_location(), PmnsLocation::Archive);
    assert_eq!(ctx.lookup_names(&["sample.long.one"]).map(|(ids, _)| ids), Ok(vec![one]));
    assert!(ctx.lookup_names(&["other.one"]).is_err());
    // the derived metrics' names join the archive's again
    let (ids, n) = ctx.lookup_names(&["my.one", "event.flags"]).expect("derived names");
    assert_eq!((n, ctx.lookup_desc(ids[0]).map(|d| d.ty)), (2, ctx.lookup_desc(one).map(|d| d.ty)));

    // a context of names alone has none left but the anonymous metrics'
    let mut pmns = Pmns::new();
    pmns.add_names([("other.one", one)]);
    let mut alone = Context::with_namespace(pmns);
    assert_eq!(alone.unload_namespace(), Ok(()));
    assert!(alone.lookup_names(&["other.one"]).is_err());
    assert_eq!(alone.lookup_names(&["event.flags"]).map(|(_, n)| n), Ok(1));
}

#[test]
fn rate_of_a_counter_that_went_down_has_no_value_unless_asked_for_as_6_0_3() {
    // the wrap archive's signed 32-bit counter goes down where it wraps
    let rates = |rule: crate::derived::CounterDecrease| {
        let mut r = registry(&[("my.rate", "rate(sample.wrap.long)")]);
        r.set_counter_decrease(rule);
        let mut ctx = fixture("wrap");
        ctx.bind_derived(&r);
        let start = ctx.origin();
        ctx.set_mode(Mode::Forw, start, 0).expect("forw");
        let id = ctx.lookup_names(&["my.rate"]).expect("name").0[0];
        let ty = ctx.lookup_desc(id).expect("desc").ty;
        let mut got = Vec::new();
        while let Ok(r) = ctx.fetch(&[id]) {
            let vals = r.sets[0].values.clone().unwrap_or_default();
            got.push(
                vals.iter()
                    .map(|v| pcp_core::value::extract_value(&v.value, ty, ty).expect("decodes"))
                    .collect::<Vec<_>>(),
            );
        }
        got
    };
    let (manual, pcp603) =
        (rates(crate::derived::CounterDecrease::NoValue), rates(crate::derived::CounterDecrease::Subtract));
    assert_eq!(manual.len(), pcp603.len());
    // where the counter went up, both agree; where it went down only
    // 6.0.3's rule gives a value
    let values = |r: &[Vec<pcp_core::AtomValue>]| r.iter().filter(|v| !v.is_empty()).count();
    assert!(values(&manual) < values(&pcp603), "{manual:?} {pcp603:?}");
    for (m, p) in manual.iter().zip(&pcp603) {
        assert!(m.is_empty() || m == p, "{m:?} {p:?}");
    }
}

#[test]
fn global_metrics_registered_later_are_in_every_context_given_the_registry() {
    let shared = crate::derived::SharedRegistry::new(registry(&[("my.one", "sample.long.one")]));
    let mut ctx = fixture("v2");
    ctx.use_registry(&shared);
    let names = |ctx: &Context| {
        let mut all = Vec::new();
        ctx.traverse_with("my", |n| all.push(n.to_string())).map(|()| all)
    };
    assert_eq!(names(&ctx), Ok(vec!["my.one".to_string()]));
    // registered after the context was made: there at the next look-up,
    // through &self
    let later = shared.register("my.later", "sample.long.one * 3").expect("registers");
    assert_eq!(ctx.lookup_names(&["my.later"]).map(|(ids, _)| ids), Ok(vec![later]));
    assert_eq!(ctx.name_of(later).as_deref(), Ok("my.later"));
    assert_eq!(names(&ctx), Ok(vec!["my.one".to_string(), "my.later".to_string()]));
    let one = ctx.lookup_names(&["sample.long.one"]).expect("name").0[0];
    let r = ctx.fetch(&[later, one]).expect("fetch");
    let value = |i: usize| r.sets[i].values.as_ref().expect("values")[0].value.clone();
    assert!(matches!((value(0), value(1)), (pcp_core::Value::Insitu(3), pcp_core::Value::Insitu(1))));
    // a duplicate shares the registry; a per-context metric masks a
    // global one of its name registered after it
    let dup = ctx.dup().expect("dup");
    let own = ctx.add_derived("my.mine", "sample.long.one * 5").expect("adds");
    shared.register("my.mine", "sample.long.one * 7").expect("registers");
    shared.register("my.third", "sample.long.one * 9").expect("registers");
    assert_eq!(ctx.lookup_names(&["my.mine"]).map(|(ids, _)| ids), Ok(vec![own]));
    let (ids, n) = dup.lookup_names(&["my.mine", "my.third", "my.later"]).expect("names");
    assert_eq!(n, 3);
    assert_ne!(ids[0], own);
    assert!(dup.lookup_desc(ids[1]).is_ok());
    // a context given a registry snapshot has what it had then
    let mut snapshot = fixture("v2");
    snapshot.bind_derived(&shared.read());
    shared.register("my.fourth", "sample.long.one").expect("registers");
    assert!(snapshot.lookup_names(&["my.fourth"]).is_err());
    assert!(ctx.lookup_names(&["my.fourth"]).is_ok());
}

#[test]
fn registering_while_other_threads_look_up_is_safe() {
    let shared = crate::derived::SharedRegistry::default();
    let mut ctx = fixture("v2");
    ctx.use_registry(&shared);
    std::thread::scope(|s| {
        s.spawn(|| {
            for i in 0..50 {
                shared.register(&format!("t.m{i}"), "sample.long.one + 1").expect("registers");
            }
        });
        for _ in 0..4 {
            s.spawn(|| {
                for i in 0..50 {
                    if let Ok((ids, _)) = ctx.lookup_names(&[&format!("t.m{i}")]) {
                        assert!(ctx.lookup_desc(ids[0]).is_ok());
                    }
                }
            });
        }
    });
    let mut all = 0;
    ctx.traverse_with("t", |_| all += 1).expect("walk");
    assert_eq!(all, 50);
}

#[test]
fn threads_looking_up_an_unbound_metric_all_get_its_descriptor() {
    let names: Vec<String> = (0..40).map(|i| format!("t.m{i}")).collect();
    let defs: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "sample.long.one + sample.float.ten")).collect();
    for _ in 0..5 {
        let mut ctx = fixture("v2");
        ctx.bind_derived(&registry(&defs));
        let (ids, _) = ctx.lookup_names(&names.iter().map(String::as_str).collect::<Vec<_>>()).expect("names");
        // (one thread checking a metric must not have the others take it
        // for failed meanwhile)
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for &id in &ids {
                        assert_eq!(ctx.lookup_desc(id).map(|d| d.pmid), Ok(id));
                    }
                });
            }
        });
    }
}

#[test]
fn a_local_context_is_traced_as_libpcp_traces_its_agents() {
    use pcp_core::debug::DebugOptions;
    let root = format!("{}/../pcp-linux/tests/snapshot/vm1", env!("CARGO_MANIFEST_DIR"));
    let trace = Trace::new(DebugOptions::parse(b"context").expect("flag"));
    let (ctx, diagnostics) = Context::open_local_traced(LocalSpec::snapshot(&root), &trace);
    let ctx = ctx.expect("local context");
    assert!(diagnostics.is_empty());
    let dir = crate::config::get("PCP_PMDAS_DIR").unwrap_or_else(|| "/var/lib/pcp/pmdas".into());
    let linux = format!("name={dir}/linux/pmda_linux.so init=linux_init handle=(nil)");
    let proc = format!("name={dir}/proc/pmda_proc.so init=proc_init handle=(nil)");
    // the built-in agents added to the table, then each one's start
    let expected = format!(
        "__pmLocalPMDA(op=ADD, domain=60, name={dir}/linux/pmda_linux.so, init=linux_init)\n\
         Local Context PMDA Table\n0x5600000d5350 [0] domain=60 {linux}\n\
         __pmLocalPMDA(op=ADD, domain=3, name={dir}/proc/pmda_proc.so, init=proc_init)\n\
         Local Context PMDA Table\n0x5600000d5350 [0] domain=60 {linux}\n0x5600000d53e8 [1] domain=3 {proc}\n\
         __pmSetSocketIPC: fd=3\nIPC table fd(PDU version):\npmWhichContext() -> 0, cur=0\n\
         __pmSetSocketIPC: fd=4\nIPC table fd(PDU version):\npmWhichContext() -> 0, cur=0\n\
         pmNewContext(3, NULL) -> 0\nDump Contexts: current -> contexts[0] handle 0\n\
         contexts[0] handle 0: standalone: profile=NOT_SENT\nDump Instance Profile state=INCLUDE, 0 profiles\n"
    );
    assert_eq!(String::from_utf8_lossy(&trace.take()), expected);
    // at exit, the agents hear of the end of the current context
    ctx.trace_exit();
    let notices = format!(
        "NotifyEndLocalContext: DSO PMDA {dir}/linux/pmda_linux.so (60) notified of context 0 close\n\
         NotifyEndLocalContext: DSO PMDA {dir}/proc/pmda_proc.so (3) notified of context 0 close\n"
    );
    assert_eq!(String::from_utf8_lossy(&trace.take()), format!("pmWhichContext() -> 0, cur=0\n{notices}"));
    // of none once it is destroyed
    ctx.trace_destroy();
    ctx.trace_exit();
    let after = String::from_utf8_lossy(&trace.take()).into_owned();
    assert!(
        after.ends_with(&format!(
            "pmWhichContext() -> -12376, cur=-1\n{}",
            notices.replace("context 0", "context -12376")
        )),
        "{after}"
    );
    // an untraced context traces nothing
    let quiet = Trace::off();
    let (ctx, _) = Context::open_local_traced(LocalSpec::snapshot(&root), &quiet);
    ctx.expect("local context").trace_exit();
    assert!(quiet.take().is_empty());
}

#[test]
fn a_duplicate_local_context_is_traced_as_libpcp_traces_it() {
    use pcp_core::debug::DebugOptions;
    let root = format!("{}/../pcp-linux/tests/snapshot/vm1", env!("CARGO_MANIFEST_DIR"));
    let trace = Trace::new(DebugOptions::parse(b"context").expect("flag"));
    let (ctx, _) = Context::open_local_traced(LocalSpec::snapshot(&root), &trace);
    let mut ctx = ctx.expect("local context");
    ctx.add_profile(InDom::new(60, 2), &[1, 15]).expect("profile");
    trace.take();
    let dup = ctx.dup().expect("dup");
    assert_eq!(dup.handle(), 1);
    let dump = "Dump Contexts: current -> contexts[1] handle 1\n\
                contexts[1] handle 1: standalone: profile=NOT_SENT\n\
                Dump Instance Profile state=INCLUDE, 0 profiles\n";
    let expected = format!(
        "pmWhichContext() -> 0, cur=0\n{}pmNewContext(3, NULL) -> 1\n{dump}pmDupContext() -> 1\n{dump}",
        "pmWhichContext() -> 1, cur=1\n".repeat(2)
    );
    assert_eq!(String::from_utf8_lossy(&trace.take()), expected);
    // a local context has nothing to reconnect
    dup.reconnect().expect("reconnect");
    assert_eq!(String::from_utf8_lossy(&trace.take()), "pmReconnectContext(1) -> 1\n");
    // the duplicate is current at exit, and the next one is handle 2
    dup.trace_exit();
    assert!(String::from_utf8_lossy(&trace.take()).starts_with("pmWhichContext() -> 1, cur=1\nNotifyEndLocalContext: "));
    assert_eq!(ctx.dup().expect("dup").handle(), 2);
    // a context of names alone has none to duplicate
    let mut names = Context::with_namespace(Pmns::new());
    names.set_trace(trace.clone());
    assert_eq!(names.dup().err(), Some(PmError::PM_ERR_NOCONTEXT));
    assert!(String::from_utf8_lossy(&trace.take())
        .ends_with("pmWhichContext() -> -12376, cur=-1\npmDupContext() -> -12376\n"));
}

/// What `-Dcontext` traces of [`Context::dup`] of a fixture archive's
/// context after `steps` (run on it with the trace off).
fn traced_archive_dup(name: &str, dups: usize, steps: impl FnOnce(&mut Context)) -> String {
    use pcp_core::debug::DebugOptions;
    let path = format!("../pcp-archive/tests/fixtures/{name}");
    let dir = env!("CARGO_MANIFEST_DIR");
    let trace = Trace::new(DebugOptions::parse(b"context").expect("flag"));
    let mut ctx = Context::open_archive_traced(&format!("{dir}/{path}"), true, &trace).expect("fixture");
    steps(&mut ctx);
    trace.take();
    for _ in 0..dups {
        ctx.dup().expect("dup");
    }
    String::from_utf8_lossy(&trace.take()).replace(dir, "DIR")
}

#[test]
fn duplicate_archive_contexts_are_traced_as_libpcp_traces_them() {
    let fetch = |ctx: &mut Context, name: &str, n: usize| {
        let pmid = ctx.lookup_names(&[name]).expect("name").0[0];
        for _ in 0..n {
            let _ = ctx.fetch(&[pmid]);
        }
    };
    let start = |ctx: &Context| ctx.archive_source().expect("archive").label().start;
    // recorded from 6.0.3 (DIR: this crate's directory)
    let mut got = traced_archive_dup("v3", 2, |ctx| fetch(ctx, "sample.seconds", 2));
    got.push('\n');
    got += &traced_archive_dup("dyn", 1, |ctx| fetch(ctx, "sample.long.hundred", 19));
    got.push('\n');
    got += &traced_archive_dup("v2", 1, |ctx| {
        let mut t = start(ctx);
        t.sec += 5;
        ctx.set_mode(Mode::Interp, t, -10_000_000_000).expect("mode");
        fetch(ctx, "sample.seconds", 1);
    });
    got.push('\n');
    got += &traced_archive_dup("dyn", 1, |ctx| {
        let t = start(ctx);
        ctx.set_mode(Mode::Back, t, 0).expect("mode");
    });
    got.push('\n');
    got += &traced_archive_dup("v3", 1, |ctx| ctx.add_profile(InDom::new(29, 2), &[1, 15]).expect("profile"));
    got.push('\n');
    assert_eq!(got, include_str!("../../tests/golden/dup-archive.trace"));
}
