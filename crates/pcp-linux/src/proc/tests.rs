//! The proc source over the committed synthetic snapshot
//! (tests/snapshot/procpid, see its README).

use super::*;
use crate::files::FsStats;
use std::io;

fn root() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshot/procpid").to_string()
}

fn source(threads: bool) -> ProcSource<RootFiles> {
    ProcSource::with_files(RootFiles::snapshot(root()), ProcOptions { hz: 100, page_size: 4096, threads })
}

/// Each instance's value (or the set's error) of a metric, rendered.
fn values<F: Files>(s: &mut ProcSource<F>, name: &str) -> String {
    let def = metric_by_name(name).unwrap();
    let r = s.fetch(&[def.pmid], Timestamp::new(0, 0), &|_, _| true);
    match &r.sets[0].values {
        Err(e) => format!("{e:?}"),
        Ok(v) => v
            .iter()
            .map(|iv| {
                let atom = pcp_core::extract_value(&iv.value, def.ty, def.ty).unwrap();
                let shown = match atom {
                    AtomValue::String(b) => format!("{:?}", String::from_utf8_lossy(&b)),
                    a => format!("{a:?}"),
                };
                format!("{}={shown}", iv.inst)
            })
            .collect::<Vec<_>>()
            .join(" "),
    }
}

#[test]
fn every_metric_is_found_by_its_pmid() {
    for m in metrics() {
        assert_eq!(metric_by_pmid(m.pmid), Some(m), "{}", m.name);
    }
    assert_eq!(metric_by_pmid(PmId::new(DOMAIN, 4095, 1023)), None);
    assert_eq!(metric_by_pmid(PmId::new(60, 0, 20)), None);
}

#[test]
fn instances_are_named_and_ordered_as_the_pmda_does() {
    let mut s = source(false);
    let insts = s.instances(PROC_INDOM).unwrap();
    let names: Vec<(i32, String)> = insts.into_iter().map(|(i, n)| (i, String::from_utf8(n).unwrap())).collect();
    // one hash bucket until the eighth process: newest first
    assert_eq!(
        names,
        [
            (4000000, "4000000 sleep30".to_string()),
            (345, "000345 /bin/prometheus".to_string()),
            (2, "000002 (kthreadd)".to_string()),
            (1, "000001 /sbin/init".to_string()),
        ]
    );
    let mut t = source(true);
    let names: Vec<String> =
        t.instances(PROC_INDOM).unwrap().into_iter().map(|(_, n)| String::from_utf8(n).unwrap()).collect();
    assert!(names.contains(&"000346 <exiting>".to_string()));
    assert_eq!(ProcSource::<RootFiles>::normalise_name(PROC_INDOM, b"12"), b"000012");
    assert_eq!(ProcSource::<RootFiles>::normalise_name(PROC_INDOM, b"12 x"), b"12 x");
    assert_eq!(instance_label(PROC_INDOM, 7).as_deref(), Some("{\"pid\":7}"));
    assert_eq!(indom_text(PROC_INDOM, true), Some("all current processes"));
}

#[test]
fn values_follow_the_pmda() {
    let mut s = source(false);
    let cases = [
        ("proc.nprocs", "-1=U32(4)"),
        ("proc.psinfo.pid", "4000000=U32(4000000) 345=U32(345) 2=U32(2) 1=U32(1)"),
        ("proc.psinfo.psargs", "4000000=\"sleep30\" 345=\"/bin/prometheus --config=/etc/p.yml\" 2=\"(kthreadd)\" 1=\"/sbin/init splash\""),
        ("proc.psinfo.cmd", "4000000=\"sleep\" 2=\"kthreadd\" 1=\"systemd\""),
        ("proc.psinfo.sname", "4000000=\"Z\" 2=\"S\" 1=\"S\""),
        ("proc.psinfo.utime", "4000000=U64(0) 2=U64(0) 1=U64(2400)"),
        ("proc.psinfo.rss", "4000000=U64(0) 2=U64(0) 1=U64(15004)"),
        // the PMDA's fields after `processor` land one name early
        ("proc.psinfo.priority", "4000000=I32(0) 2=I32(0) 1=I32(0)"),
        ("proc.psinfo.policy", "4000000=U32(0) 2=U32(0) 1=U32(7)"),
        ("proc.psinfo.policy_s", "4000000=\"NORMAL\" 2=\"NORMAL\" 1=\"?\""),
        ("proc.psinfo.tty_pgrp", ""),
        ("proc.psinfo.ttyname", "4000000=\"?\" 2=\"?\" 1=\"?\""),
        ("proc.psinfo.wchan_s", "1=\"ep_poll\""),
        ("proc.psinfo.environ", "4000000=\"\" 345=\"\" 2=\"\" 1=\"HOME=/ TERM=linux\""),
        ("proc.memory.rss", "1=U32(15004)"),
        ("proc.memory.size", "1=U32(44868)"),
        ("proc.id.uid", "345=U32(1000) 2=U32(0) 1=U32(0)"),
        ("proc.id.gid", "345=U32(1000) 2=U32(0) 1=U32(0)"),
        ("proc.psinfo.cpusallowed", "1=\"0-1\""),
        ("proc.namespaces.pid", "1=\"1\""),
        ("proc.memory.vmreal", "345=U64(0) 2=U64(0) 1=U64(15012)"),
        ("proc.psinfo.cgroups", "345=\"cpu,cpuacct:/system.slice/docker-0ea0c47ef0e1a90cd10059a0da0abd4da28d3bc35ce15c7beb46da1c7ab02736.scope;cpuset:/system.slice/docker-0ea0c47ef0e1a90cd10059a0da0abd4da28d3bc35ce15c7beb46da1c7ab02736.scope;:/system.slice/docker-0ea0c47ef0e1a90cd10059a0da0abd4da28d3bc35ce15c7beb46da1c7ab02736.scope\" 1=\":/init.scope\""),
        ("proc.id.container", "345=\"0ea0c47ef0e1a90cd10059a0da0abd4da28d3bc35ce15c7beb46da1c7ab02736\" 1=\"\""),
        ("proc.io.read_bytes", "1=U64(4096)"),
        ("proc.schedstat.cpu_time", "1=U64(1234567)"),
        ("proc.smaps.pss", "1=U64(6000)"),
        ("proc.fd.count", "1=U32(3)"),
        ("proc.psinfo.exe", "4000000=\"\" 345=\"\" 2=\"\" 1=\"/usr/lib/systemd/systemd\""),
        // (a link out of the snapshot, read as it is, never followed)
        ("proc.psinfo.cwd", "4000000=\"\" 345=\"\" 2=\"\" 1=\"/var/empty/snapshot-cwd\""),
        ("proc.autogroup.enabled", "-1=U32(1)"),
        ("proc.autogroup.id", "1=U32(2)"),
        // a process gone: its files are not there
        ("proc.io.rchar", "1=U64(1000)"),
        ("proc.runq.sleeping", "-1=I32(1)"),
        ("proc.runq.defunct", "-1=I32(1)"),
        ("proc.runq.swapped", "-1=I32(1)"),
        ("proc.runq.unknown", "-1=I32(1)"),
        ("proc.control.all.threads", "-1=U32(0)"),
        ("cgroup.cpuset.cpus", ""),
    ];
    let mut bad = Vec::new();
    for (name, want) in cases {
        let got = values(&mut s, name);
        if got != want {
            bad.push(format!("(\"{name}\", {got:?}),"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(values(&mut s, "proc.id.uid_nm").ends_with(" 2=\"root\" 1=\"root\""));
    // only processes without values: the last one's error
    let mut t = source(true);
    assert_eq!(values(&mut t, "proc.psinfo.threads").matches('=').count(), 3);
    let def = metric_by_name("proc.io.syscr").unwrap();
    let r = t.fetch(&[def.pmid], Timestamp::new(0, 0), &|_, i| i == 346);
    assert_eq!(r.sets[0].values, Err(PmError::PM_ERR_APPVERSION));
}

#[test]
fn a_profile_limits_the_processes_read() {
    let mut s = source(false);
    let def = metric_by_name("proc.psinfo.cgroups").unwrap();
    let r = s.fetch(&[def.pmid], Timestamp::new(0, 0), &|_, i| i == 345);
    let v = r.sets[0].values.as_ref().unwrap();
    assert_eq!(v.len(), 1);
    let id = metric_by_name("proc.id.container").unwrap();
    let r = s.fetch(&[id.pmid], Timestamp::new(0, 0), &|_, i| i == 345);
    let atom = pcp_core::extract_value(&r.sets[0].values.as_ref().unwrap()[0].value, id.ty, id.ty).unwrap();
    assert_eq!(atom, AtomValue::String(b"0ea0c47ef0e1a90cd10059a0da0abd4da28d3bc35ce15c7beb46da1c7ab02736".to_vec()));
    // one process, one value; the others' files are not read
    let io = metric_by_name("proc.io.rchar").unwrap();
    let r = s.fetch(&[io.pmid], Timestamp::new(0, 0), &|_, i| i == 1);
    assert_eq!(r.sets[0].values.as_ref().unwrap().len(), 1);
}

/// A snapshot with some files unreadable as for another user's
/// processes, and maybe its cgroup2 mounts left out of /proc/mounts or
/// another /proc/mounts;
/// directories list sorted (instance numbers then do not depend on the
/// file system).
struct Denied {
    inner: RootFiles,
    denied: &'static [&'static str],
    v1_only: bool,
    mounts: Option<&'static str>,
}

impl Files for Denied {
    fn read(&self, path: &str) -> io::Result<Vec<u8>> {
        if self.denied.iter().any(|d| path.ends_with(d)) {
            return Err(io::Error::from_raw_os_error(13));
        }
        if let (Some(m), "/proc/mounts") = (self.mounts, path) {
            return Ok(m.as_bytes().to_vec());
        }
        let text = self.inner.read(path)?;
        if path != "/proc/mounts" || !self.v1_only {
            return Ok(text);
        }
        let keep = text.split_inclusive(|c| *c == b'\n').filter(|l| !l.starts_with(b"cgroup2 "));
        Ok(keep.flatten().copied().collect())
    }
    fn list(&self, dir: &str) -> io::Result<Vec<String>> {
        let mut names = self.inner.list(dir)?;
        names.sort();
        Ok(names)
    }
    fn exists(&self, path: &str) -> bool {
        self.inner.exists(path)
    }
    fn realpath(&self, path: &str) -> Option<String> {
        self.inner.realpath(path)
    }
    fn read_link(&self, path: &str) -> Option<String> {
        self.inner.read_link(path)
    }
    fn statfs(&self, path: &str) -> io::Result<FsStats> {
        self.inner.statfs(path)
    }
}

#[test]
fn unreadable_files_are_no_values() {
    let files = Denied {
        inner: RootFiles::snapshot(root()),
        denied: &["1/io", "1/environ", "1/maps"],
        v1_only: false,
        mounts: None,
    };
    let mut s = ProcSource::with_files(files, ProcOptions { hz: 100, page_size: 4096, threads: false });
    let io = metric_by_name("proc.io.rchar").unwrap();
    let r = s.fetch(&[io.pmid], Timestamp::new(0, 0), &|_, i| i == 1);
    assert_eq!(r.sets[0].values, Ok(Vec::new()));
    assert_eq!(values(&mut s, "proc.psinfo.environ").matches("1=\"\"").count(), 1);
    assert_eq!(values(&mut s, "proc.memory.maps"), "1=\"\"");
}

/// Each metric fetched alone by a new source, as `pminfo -f` in a local
/// context fetches it, against what PCP 6.0.3's `pminfo -L` with the proc
/// PMDA's DSO printed over the same tree (see the snapshot's README).
fn check_cgroups(v2: bool, cases: &[(&str, &str)]) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshot/cgroup");
    let mut bad = Vec::new();
    for (name, want) in cases {
        let files = Denied { inner: RootFiles::snapshot(root), denied: &[], v1_only: !v2, mounts: None };
        let mut s = ProcSource::with_files(files, ProcOptions { hz: 100, page_size: 4096, threads: false });
        let got = values(&mut s, name);
        if got != *want {
            bad.push(format!("(\"{name}\", {got:?}),"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn cgroups_of_a_hybrid_machine_are_the_v2_trees() {
    // the v1 refresh walks the v2 mount last, inactivating first: its
    // cgroups are the instances, and what they cannot read again stays
    check_cgroups(
        true,
        &[
            ("cgroup.subsys.count", "-1=U32(4)"),
            ("cgroup.mounts.subsys", "0=\"cpuacct\" 1=\"memory\" 2=\"blkio\" 3=\"?\""),
            ("cgroup.mounts.count", "-1=U32(4)"),
            ("cgroup.cpuset.cpus", "0=\"\" 1=\"\""),
            ("cgroup.cpuacct.stat.user", "0=U64(500) 2=U64(0)"),
            ("cgroup.cpuacct.usage", ""),
            ("cgroup.cpuacct.usage_percpu", ""),
            ("cgroup.cpusched.cfs_quota", "0=I64(-2) 1=I64(-2)"),
            ("cgroup.memory.stat.cache", ""),
            ("cgroup.blkio.all.time", "0=U64(0) 1=U64(0)"),
            ("cgroup.blkio.dev.io_serviced.total", ""),
            ("cgroup.netclass.id.container", "0=\"\" 1=\"\""),
            ("cgroup.cpu.stat.user", ""),
            ("cgroup.pressure.cpu.some.total", ""),
        ],
    );
}

#[test]
fn cgroups_of_v1_mounts_are_read_as_the_pmda_reads_them() {
    check_cgroups(
        false,
        &[
            ("cgroup.mounts.count", "-1=U32(3)"),
            ("cgroup.cpuacct.usage", "0=U64(123456789) 1=U64(16)"),
            ("cgroup.cpuacct.usage_percpu", "0=U64(100) 1=U64(200) 2=U64(7) 3=U64(8)"),
            // /a's cpuacct.stat has no system line: the last one read stays
            ("cgroup.cpuacct.stat.system", "0=U64(300) 1=U64(300)"),
            ("cgroup.memory.limit", "0=U64(9223372036854771712)"),
            ("cgroup.memory.stat.cache", "0=U64(4096) 1=U64(1)"),
            ("cgroup.memory.stat.rss", "0=U64(8192)"),
            ("cgroup.blkio.dev.io_serviced.total", "0=U64(30)"),
            ("cgroup.blkio.dev.time", "0=U64(2500)"),
            ("cgroup.blkio.all.sectors", "0=U64(32)"),
            ("cgroup.blkio.all.io_serviced.async", "0=U64(25)"),
            ("cgroup.netclass.classid", ""),
        ],
    );
}

#[test]
fn hotproc_and_acct_have_settings_and_no_processes() {
    let mut s = source(false);
    for (name, want) in [
        ("hotproc.nprocs", "-1=U32(0)"),
        ("hotproc.control.refresh", "-1=U32(10)"),
        ("hotproc.control.config", "-1=\"\""),
        ("hotproc.control.config_gen", "-1=U32(0)"),
        ("hotproc.control.reload_config", "-1=U32(0)"),
        ("hotproc.total.cpuother.percent", "-1=Float(0.0)"),
        ("acct.control.open_retry_interval", "-1=U32(60)"),
        ("acct.control.file_size_threshold", "-1=U64(10485760)"),
        ("acct.control.enable_acct", "-1=U32(0)"),
        // no predicate: no hot process; accounting off: no records
        ("hotproc.psinfo.pid", ""),
        ("hotproc.predicate.cpuburn", ""),
        ("hotproc.memory.rss", ""),
        ("acct.psinfo.ttyname", ""),
        ("acct.flag.fork", ""),
    ] {
        assert_eq!(values(&mut s, name), want, "{name}");
    }
    assert_eq!(s.instances(HOTPROC_INDOM), Ok(Vec::new()));
    assert_eq!(s.instances(ACCT_INDOM), Ok(Vec::new()));
    assert_eq!(indom_text(HOTPROC_INDOM, false), Some("set of interesting (\"hot\") processes"));
    assert_eq!(instance_label(HOTPROC_INDOM, 7).as_deref(), Some("{\"pid\":7}"));
    // the PMDA's PMIDs
    assert_eq!(metric_by_name("hotproc.psinfo.ttyname").unwrap().pmid, PmId::new(3, 52, 39));
    assert_eq!(metric_by_name("acct.psinfo.ttyname").unwrap().pmid, PmId::new(3, 70, 16));
}

/// A store of `value` (as pmstore packs it) into `name`, then the
/// metric's values.
fn store<F: Files>(s: &mut ProcSource<F>, name: &str, value: AtomValue) -> Result<String, PmError> {
    let def = metric_by_name(name).unwrap();
    s.store(def.pmid, &Value::from_atom(&value))?;
    Ok(values(s, name))
}

#[test]
fn stores_change_settings_as_the_pmda_lets_them() {
    let mut s = source(false).for_user(0);
    assert_eq!(store(&mut s, "proc.control.all.threads", AtomValue::U32(1)), Ok("-1=U32(1)".into()));
    assert_eq!(values(&mut s, "proc.control.perclient.threads"), "-1=U32(1)");
    assert_eq!(store(&mut s, "proc.control.all.threads", AtomValue::U32(2)), Err(PmError::PM_ERR_BADSTORE));
    assert_eq!(store(&mut s, "proc.control.perclient.threads", AtomValue::U32(0)), Ok("-1=U32(0)".into()));
    assert_eq!(values(&mut s, "proc.control.all.threads"), "-1=U32(1)");
    let cg = |t: &str| AtomValue::String(t.as_bytes().to_vec());
    assert_eq!(store(&mut s, "proc.control.perclient.cgroups", cg("")), Err(PmError::PM_ERR_BADSTORE));
    assert_eq!(store(&mut s, "proc.control.perclient.cgroups", cg("/a")), Ok("-1=\"/a\"".into()));
    assert_eq!(store(&mut s, "hotproc.control.refresh", AtomValue::U32(5)), Ok("-1=U32(5)".into()));
    assert_eq!(store(&mut s, "hotproc.control.config", cg(" ")), Ok("-1=\"\"".into()));
    // a predicate: the PMDA's printing of it, a new generation
    let pred = cg("fname == \"x\" && cpuburn > 0.5");
    let want = "-1=\"((fname == \\\"x\\\") && (cpuburn > 0.500000))\"";
    assert_eq!(store(&mut s, "hotproc.control.config", pred), Ok(want.into()));
    assert_eq!(values(&mut s, "hotproc.control.config_gen"), "-1=U32(1)");
    assert_eq!(store(&mut s, "hotproc.control.config", cg("uid ==")), Err(PmError::PM_ERR_BADSTORE));
    assert_eq!(values(&mut s, "hotproc.control.config"), want);
    assert_eq!(store(&mut s, "hotproc.control.config", cg("")), Ok("-1=\"\"".into()));
    assert_eq!(values(&mut s, "hotproc.control.config_gen"), "-1=U32(0)");
    assert_eq!(store(&mut s, "hotproc.control.reload_config", AtomValue::U32(1)), Ok("-1=U32(0)".into()));
    assert_eq!(store(&mut s, "acct.control.refresh", AtomValue::U32(0)), Err(PmError::PM_ERR_PERMISSION));
    assert_eq!(store(&mut s, "acct.control.refresh", AtomValue::U32(7)), Ok("-1=U32(7)".into()));
    // (the PMDA keeps the threshold's low 32 bits)
    let big = AtomValue::U64(5_000_000_000);
    assert_eq!(store(&mut s, "acct.control.file_size_threshold", big), Ok("-1=U64(705032704)".into()));
    for name in ["hotproc.control.config_gen", "hotproc.total.cpuidle", "proc.nprocs", "cgroup.subsys.count"] {
        assert_eq!(store(&mut s, name, AtomValue::U32(1)), Err(PmError::PM_ERR_PERMISSION), "{name}");
    }
    // only root changes the hotproc and acct settings
    let mut user = source(false).for_user(1000);
    assert_eq!(store(&mut user, "hotproc.control.refresh", AtomValue::U32(5)), Err(PmError::PM_ERR_PERMISSION));
    assert_eq!(store(&mut user, "acct.control.lifetime", AtomValue::U32(5)), Err(PmError::PM_ERR_PERMISSION));
    assert_eq!(store(&mut user, "proc.control.all.threads", AtomValue::U32(1)), Ok("-1=U32(1)".into()));
}

/// The process instances, then `proc.nprocs`.
fn listed<F: Files>(s: &mut ProcSource<F>) -> String {
    let insts = s.instances(PROC_INDOM).unwrap();
    let names: Vec<String> = insts.iter().map(|(i, n)| format!("{i} {}", String::from_utf8_lossy(n))).collect();
    format!("{}; {}", names.join(", "), values(s, "proc.nprocs"))
}

#[test]
fn a_client_cgroup_filter_limits_the_processes() {
    // (what the PMDA answers a local context over a copy of the snapshot;
    // the table already holds every process, in its order)
    let cg = |t: &str| AtomValue::String(t.as_bytes().to_vec());
    let mut s = source(false);
    assert_eq!(
        listed(&mut s),
        "4000000 4000000 sleep30, 345 000345 /bin/prometheus, 2 000002 (kthreadd), 1 000001 /sbin/init; -1=U32(4)"
    );
    assert_eq!(store(&mut s, "proc.control.perclient.cgroups", cg("/cg/a")), Ok("-1=\"/cg/a\"".into()));
    assert_eq!(listed(&mut s), "345 000345 /bin/prometheus, 1 000001 /sbin/init; -1=U32(2)");
    assert_eq!(values(&mut s, "proc.psinfo.pid"), "345=U32(345) 1=U32(1)");
    assert_eq!(values(&mut s, "proc.runq.sleeping"), "-1=I32(1)");
    // an empty value is refused: the filter stays
    assert_eq!(store(&mut s, "proc.control.perclient.cgroups", cg("")), Err(PmError::PM_ERR_BADSTORE));
    assert_eq!(listed(&mut s), "345 000345 /bin/prometheus, 1 000001 /sbin/init; -1=U32(2)");
    // no such cgroup, a path not from the root (the PMDA reads
    // /system.slice/container/cgroup.procs: no processes on any system)
    for gone in ["/nope", "cg/a", "/system.slice"] {
        assert_eq!(store(&mut s, "proc.control.perclient.cgroups", cg(gone)), Ok(format!("-1={gone:?}")));
        assert_eq!(listed(&mut s), "; -1=U32(0)", "{gone}");
    }
    // other sources (clients) see every process
    assert_eq!(values(&mut source(false), "proc.nprocs"), "-1=U32(4)");
}

#[test]
fn a_cgroup_filter_with_threads_reads_the_interface_file() {
    let cg = AtomValue::String(b"/cg/a".to_vec());
    let opts = ProcOptions { hz: 100, page_size: 4096, threads: true };
    // no /proc/mounts: the processes file; v1 (or hybrid): tasks; v2 alone:
    // cgroup.threads
    let mut s = ProcSource::with_files(RootFiles::snapshot(root()), opts.clone());
    assert_eq!(store(&mut s, "proc.control.perclient.cgroups", cg.clone()), Ok("-1=\"/cg/a\"".into()));
    // (the file's order into a new table: 345 then 1 before it)
    assert_eq!(listed(&mut s), "1 000001 /sbin/init, 345 000345 /bin/prometheus; -1=U32(2)");
    for (mounts, want) in [
        (
            "cgroup /sys/fs/cgroup/memory cgroup rw,memory 0 0\ncgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0\n",
            "2 000002 (kthreadd); -1=U32(1)",
        ),
        ("cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n", "346 000346 <exiting>; -1=U32(1)"),
    ] {
        let files = Denied { inner: RootFiles::snapshot(root()), denied: &[], v1_only: false, mounts: Some(mounts) };
        let mut s = ProcSource::with_files(files, opts.clone());
        assert_eq!(store(&mut s, "proc.control.perclient.cgroups", cg.clone()), Ok("-1=\"/cg/a\"".into()));
        assert_eq!(listed(&mut s), want);
    }
}
