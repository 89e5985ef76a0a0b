//! Local contexts over the committed /proc and /sys snapshot of pcp-linux
//! (crates/pcp-linux/tests/snapshot): names, descriptors, help, instance
//! domains, the profile, fetches, labels and the agent table, through the
//! `Context` facade.

use pcp::context::{Mode, TextLevel};
use pcp::labels::{merge_label_sets, LabelSet, PM_MAXLABELJSONLEN};
use pcp::local::{Agents, LocalNames, LocalSpec};
use pcp::{AtomValue, Context, InDom, PmError, PmId, Timestamp};
use pcp_pmns::Pmns;
use std::path::PathBuf;

fn snapshot() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../pcp-linux/tests/snapshot/vm1")
}

fn spec() -> LocalSpec {
    let mut spec = LocalSpec::snapshot(snapshot());
    spec.linux.hz = 100;
    spec.linux.page_size = 4096;
    spec
}

fn open(spec: LocalSpec) -> Context {
    let (ctx, diagnostics) = Context::open_local_with(spec);
    assert_eq!(diagnostics, b"");
    ctx.unwrap()
}

fn pmid(ctx: &Context, name: &str) -> PmId {
    ctx.lookup_names(&[name]).unwrap().0[0]
}

fn floats(ctx: &mut Context, name: &str) -> Vec<(i32, f64)> {
    let id = pmid(ctx, name);
    let ty = ctx.lookup_desc(id).unwrap().ty;
    let r = ctx.fetch(&[id]).unwrap();
    let vals = r.sets[0].values.clone().unwrap();
    vals.iter()
        .map(|v| {
            let a = pcp::extract_value(&v.value, ty, pcp::MetricType::DOUBLE).unwrap();
            let AtomValue::Double(d) = a else { panic!("{a:?}") };
            (v.inst, d)
        })
        .collect()
}

#[test]
fn the_builtin_names_are_the_metrics_served() {
    let ctx = Context::open_local_at(snapshot()).unwrap();
    assert!(ctx.local_source().is_some());
    let mut names = Vec::new();
    ctx.traverse_with("", |n| names.push(n.to_string())).unwrap();
    let linux = pcp_linux::metrics().iter().filter(|m| m.pmid.domain() != 3);
    let all: Vec<_> = linux.chain(pcp_linux::proc::metrics()).collect();
    let mut want: Vec<String> = all.iter().map(|m| m.name.to_string()).collect();
    want.extend(["event.flags".to_string(), "event.missed".to_string()]);
    // the agents' name-space order, then libpcp's anonymous derived metrics
    assert_eq!(names, want);
    // each name leads to its PMID, and back
    for m in all {
        assert_eq!(pmid(&ctx, m.name), m.pmid);
        assert_eq!(ctx.name_of(m.pmid).unwrap(), m.name);
    }
}

#[test]
fn descriptors_and_help_are_the_pmdas() {
    let ctx = open(spec());
    let load = pmid(&ctx, "kernel.all.load");
    assert_eq!(load, PmId::new(60, 2, 0));
    assert_eq!(
        ctx.lookup_desc(load).unwrap().to_string(),
        "    Data Type: float  InDom: 60.2 0xf000002\n    Semantics: instant  Units: none\n"
    );
    assert_eq!(ctx.lookup_text(load, TextLevel::OneLine).unwrap(), b"1, 5 and 15 minute load average");
    let pagesize = pmid(&ctx, "hinv.pagesize");
    assert_eq!(
        ctx.lookup_text(pagesize, TextLevel::Help).unwrap(),
        b"The memory page size of the running kernel in bytes."
    );
    assert_eq!(ctx.lookup_indom_text(InDom::new(60, 0), TextLevel::Help).unwrap(), b"set of all processors");
    // every instance domain of the PMDA has its text; no other has
    assert_eq!(ctx.lookup_indom_text(InDom::new(60, 4), TextLevel::OneLine).unwrap(), b"set of interrupt lines");
    assert_eq!(ctx.lookup_desc(PmId::new(60, 99, 99)), Err(PmError::PM_ERR_PMID));
    assert_eq!(ctx.lookup_indom_text(InDom::new(60, 9), TextLevel::OneLine), Err(PmError::PM_ERR_TEXT));
    // another PMDA's metric: no agent
    assert_eq!(ctx.lookup_desc(PmId::new(29, 0, 1)), Err(PmError::PM_ERR_NOAGENT));
    assert_eq!(ctx.lookup_text(PmId::new(29, 0, 1), TextLevel::OneLine), Err(PmError::PM_ERR_NOAGENT));
    assert_eq!(ctx.get_indom(InDom::new(29, 2)), Err(PmError::PM_ERR_NOAGENT));
    assert_eq!(ctx.host_name().unwrap(), "vm");
}

#[test]
fn instance_domains_and_the_profile() {
    let mut ctx = open(spec());
    let (ids, names) = ctx.get_indom(InDom::new(60, 2)).unwrap();
    assert_eq!(ids, [1, 5, 15]);
    assert_eq!(names, [b"1 minute".to_vec(), b"5 minute".to_vec(), b"15 minute".to_vec()]);
    let cpu = InDom::new(60, 0);
    assert_eq!(ctx.get_indom(cpu).unwrap(), (vec![0, 1], vec![b"cpu0".to_vec(), b"cpu1".to_vec()]));
    assert_eq!(ctx.lookup_indom(cpu, b"cpu1"), Ok(1));
    assert_eq!(ctx.lookup_indom(cpu, b"cpu7"), Err(PmError::PM_ERR_INST));
    assert_eq!(ctx.name_indom(cpu, 0).unwrap(), b"cpu0");
    assert_eq!(ctx.name_indom(cpu, 9), Err(PmError::PM_ERR_INST));
    assert_eq!(ctx.get_indom(InDom::NULL), Err(PmError::PM_ERR_INDOM));

    // /proc/loadavg of the snapshot: 8.53 8.37 7.37
    let load: Vec<(i32, f32)> = floats(&mut ctx, "kernel.all.load").into_iter().map(|(i, v)| (i, v as f32)).collect();
    assert_eq!(load, [(1, 8.53), (5, 8.37), (15, 7.37)]);
    // cpu1's user time: 1146526 ticks at 100 Hz, in milliseconds
    assert_eq!(floats(&mut ctx, "kernel.percpu.cpu.user"), [(0, 10955110.0), (1, 11465260.0)]);
    ctx.add_profile(cpu, &[1]).unwrap();
    assert_eq!(floats(&mut ctx, "kernel.percpu.cpu.user"), [(1, 11465260.0)]);
    ctx.add_profile(cpu, &[]).unwrap();
    assert_eq!(floats(&mut ctx, "kernel.percpu.cpu.user").len(), 2);
}

#[test]
fn fetches_answer_each_metric() {
    let mut ctx = open(spec());
    let ids = [pmid(&ctx, "hinv.ncpu"), PmId::new(29, 0, 1), PmId::new(60, 99, 99), pmid(&ctx, "event.flags")];
    let before = pcp::local::now();
    let r = ctx.fetch(&ids).unwrap();
    assert!(r.timestamp >= before && r.timestamp <= pcp::local::now());
    let got: Vec<_> = r.sets.iter().map(|s| (s.pmid, s.values.as_ref().map(Vec::len))).collect();
    assert_eq!(
        got,
        [
            (ids[0], Ok(1)),
            (ids[1], Err(&PmError::PM_ERR_NOAGENT)),
            (ids[2], Err(&PmError::PM_ERR_PMID)),
            (ids[3], Ok(0))
        ]
    );
    assert_eq!(ctx.fetch(&[]), Err(PmError::PM_ERR_TOOSMALL));
    // archive services are not a local context's
    assert_eq!(ctx.set_mode(Mode::Interp, Timestamp::default(), 0), Err(PmError::PM_ERR_MODE));
    assert_eq!(ctx.fetch_archive(), Err(PmError::PM_ERR_NOTARCHIVE));
    assert_eq!(ctx.get_indom_archive(InDom::new(60, 0)), Err(PmError::PM_ERR_NOTARCHIVE));
    assert_eq!(ctx.lookup_indom_archive(InDom::new(60, 0), b"cpu0"), Err(PmError::PM_ERR_NOTARCHIVE));
    assert!(ctx.archive_source().is_none() && ctx.local_source().is_some());
}

fn text(sets: &[Option<&LabelSet>]) -> String {
    String::from_utf8(merge_label_sets(sets, PM_MAXLABELJSONLEN, None).unwrap()).unwrap()
}

#[test]
fn labels_are_libpcps_and_the_pmdas() {
    let mut ctx = open(spec());
    let context = ctx.get_context_labels().unwrap();
    assert_eq!(context.len(), 1);
    let (uid, gid) = pcp_linux::user_and_group();
    assert_eq!(
        text(&[context.first()]),
        format!(
            r#"{{"domainname":"localdomain","groupid":{gid},"hostname":"vm","machineid":"localmachine","userid":{uid}}}"#
        )
    );
    let user = pmid(&ctx, "kernel.percpu.cpu.user");
    let cpu = InDom::new(60, 0);
    let domain = ctx.get_domain_labels(60).unwrap();
    let indom = ctx.get_indom_labels(cpu).unwrap();
    assert_eq!(
        text(&[domain.first(), indom.first()]),
        r#"{"agent":"linux","device_type":"cpu","indom_name":"per cpu"}"#
    );
    assert_eq!(text(&[ctx.get_domain_labels(3).unwrap().first()]), r#"{"agent":"proc"}"#);
    assert_eq!(ctx.get_domain_labels(29), Err(PmError::PM_ERR_NOAGENT));
    assert_eq!(ctx.get_cluster_labels(user).unwrap(), []);
    assert_eq!(ctx.get_item_labels(user).unwrap(), []);
    let all_user = pmid(&ctx, "kernel.all.cpu.user");
    assert_eq!(text(&[ctx.get_item_labels(all_user).unwrap().first()]), r#"{"device_type":"cpu"}"#);
    // instance labels are those of the instances the last refresh found
    ctx.fetch(&[user]).unwrap();
    let insts = ctx.get_instances_labels(cpu).unwrap();
    let got: Vec<(i32, String)> = insts.iter().map(|s| (s.inst, text(&[Some(s)]))).collect();
    assert_eq!(got, [(0, r#"{"cpu":0}"#.to_string()), (1, r#"{"cpu":1}"#.to_string())]);
    // instances without labels still have a set each
    let load = ctx.get_instances_labels(InDom::new(60, 2)).unwrap();
    assert_eq!(load.iter().map(|s| (s.inst, s.nlabels)).collect::<Vec<_>>(), [(1, 0), (5, 0), (15, 0)]);
    let merged = ctx.lookup_labels(all_user).unwrap();
    assert_eq!(merged.len(), 3);
}

#[test]
fn a_name_space_with_other_pmdas() {
    let mut pmns = Pmns::new();
    pmns.add_names([
        ("kernel.all.load", PmId::new(60, 2, 0)),
        ("sample.long.one", PmId::new(29, 0, 10)),
        ("kvm.trace", PmId::dynamic_root(95)),
        ("proc.psinfo", PmId::dynamic_root(3)),
        ("zzz.after", PmId::new(60, 0, 32)),
    ]);
    let mut spec = spec();
    spec.names = LocalNames::Given(pmns);
    let ctx = open(spec);
    // a dynamic subtree with no agent ends the walk, the names before it
    // handed on; one whose agent has no names below it is empty
    let mut names = Vec::new();
    assert_eq!(ctx.traverse_with("", |n| names.push(n.to_string())), Err(PmError::PM_ERR_NOAGENT));
    assert_eq!(names, ["kernel.all.load", "sample.long.one"]);
    names.clear();
    ctx.traverse_with("proc", |n| names.push(n.to_string())).unwrap();
    assert_eq!(names, Vec::<String>::new());
    assert_eq!(ctx.lookup_names(&["kvm.trace.x"]).map_err(|e| e.code()), Err(PmError::PM_ERR_NOAGENT));
    assert_eq!(ctx.traverse_with("kvm.trace.x", |_| ()), Err(PmError::PM_ERR_NOAGENT));
    assert_eq!(ctx.traverse_with("proc.psinfo.x", |_| ()), Err(PmError::PM_ERR_NAME));
    assert_eq!(ctx.traverse_with("nosuch.x", |_| ()), Err(PmError::PM_ERR_NAME));
    // the error of a lookup of one name names it
    let e = ctx.lookup_names(&["proc.psinfo.pid"]).unwrap_err();
    assert_eq!((e.code(), e.name()), (PmError::PM_ERR_NAME, Some("proc.psinfo.pid")));
    assert_eq!(e.to_string(), "proc.psinfo.pid: Unknown metric name");
    let (ids, found) = ctx.lookup_names(&["kvm.trace.x", "sample.long.one"]).unwrap();
    assert_eq!((ids, found), (vec![PmId::NULL, PmId::new(29, 0, 10)], 1));
    assert_eq!(ctx.lookup_desc(PmId::new(29, 0, 10)), Err(PmError::PM_ERR_NOAGENT));
}

#[test]
fn the_agent_table_decides_what_is_served() {
    let mut spec = spec();
    let mut agents = Agents::default();
    agents.apply_spec("del,60").unwrap();
    spec.agents = agents;
    let mut ctx = open(spec);
    let load = pmid(&ctx, "kernel.all.load");
    let nprocs = pmid(&ctx, "proc.nprocs");
    assert_eq!(ctx.lookup_desc(load), Err(PmError::PM_ERR_NOAGENT));
    let r = ctx.fetch(&[load, nprocs]).unwrap();
    assert_eq!(r.sets[0].values, Err(PmError::PM_ERR_NOAGENT));
    // the snapshot keeps five process directories
    assert_eq!(r.sets[1].values.as_ref().map(Vec::len), Ok(1));
    assert_eq!(floats(&mut ctx, "proc.nprocs"), [(pcp::PM_IN_NULL, 5.0)]);
}

#[test]
fn configured_context_labels_come_first() {
    let dir = std::env::temp_dir().join(format!("pcp-rs-local-labels-{}", std::process::id()));
    let labels = dir.join("labels");
    std::fs::create_dir_all(labels.join("optional")).unwrap();
    std::fs::write(labels.join("site.json"), r#"{"site":"lab","rack":{"row":3}}"#).unwrap();
    std::fs::write(labels.join("bad"), "not json").unwrap();
    std::fs::write(labels.join(".hidden"), r#"{"hidden":1}"#).unwrap();
    // the host's own labels win over configured ones of the same name
    std::fs::write(labels.join("optional").join("team"), r#"{"team":"perf","hostname":"other"}"#).unwrap();
    let mut spec = spec();
    spec.sysconf_dir = Some(dir.clone());
    let ctx = open(spec);
    let sets = ctx.get_context_labels().unwrap();
    let (uid, gid) = pcp_linux::user_and_group();
    assert_eq!(
        text(&[sets.first()]),
        format!(
            r#"{{"domainname":"localdomain","groupid":{gid},"hostname":"vm","machineid":"localmachine","rack.row":3,"site":"lab","team":"perf","userid":{uid}}}"#
        )
    );
    // optional labels are not part of a metric's identity
    let set = &sets[0];
    let optional: Vec<String> = set
        .labels
        .iter()
        .filter(|l| l.flags & pcp::labels::flags::OPTIONAL != 0)
        .map(|l| String::from_utf8_lossy(set.name(l)).into_owned())
        .collect();
    assert_eq!(optional, ["groupid", "team", "userid"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_stored_cgroup_filter_limits_that_contexts_processes() {
    // the proc snapshot, whose cgroup /cg/a holds processes 345 and 1
    let procs = || {
        let mut spec = spec();
        spec.proc_files = pcp_linux::RootFiles::snapshot(snapshot().join("../procpid"));
        spec
    };
    let mut ctx = open(procs());
    let mut other = open(procs());
    let nprocs = pmid(&ctx, "proc.nprocs");
    let pids = pmid(&ctx, "proc.psinfo.pid");
    let indom = ctx.lookup_desc(pids).unwrap().indom;
    assert_eq!(ctx.get_indom(indom).unwrap().0, [4000000, 345, 2, 1]);
    let cgroups = pmid(&ctx, "proc.control.perclient.cgroups");
    let value = pcp::Value::from_atom(&AtomValue::String(b"/cg/a".to_vec()));
    let set = pcp::ValueSet { pmid: cgroups, values: Ok(vec![pcp::InstValue { inst: pcp::PM_IN_NULL, value }]) };
    ctx.store(&pcp::FetchResult { timestamp: Timestamp::new(0, 0), sets: vec![set] }).unwrap();
    let (ids, names) = ctx.get_indom(indom).unwrap();
    assert_eq!(ids, [345, 1]);
    assert_eq!(names, [b"000345 /bin/prometheus".to_vec(), b"000001 /sbin/init".to_vec()]);
    assert_eq!(floats(&mut ctx, "proc.nprocs"), [(pcp::PM_IN_NULL, 2.0)]);
    let r = ctx.fetch(&[pids]).unwrap();
    assert_eq!(r.sets[0].values.as_ref().unwrap().iter().map(|v| v.inst).collect::<Vec<_>>(), [345, 1]);
    // another context is not filtered
    assert_eq!(other.get_indom(indom).unwrap().0, [4000000, 345, 2, 1]);
    let r = other.fetch(&[nprocs]).unwrap();
    assert_eq!(r.sets[0].values.as_ref().map(Vec::len), Ok(1));
    assert_eq!(floats(&mut other, "proc.nprocs"), [(pcp::PM_IN_NULL, 4.0)]);
}
