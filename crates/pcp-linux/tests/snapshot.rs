//! The committed snapshot of this machine's /proc and /sys (see
//! tests/snapshot/README.md), read through `LinuxSource` and compared
//! with what PCP's Linux PMDA made of the same files.

#[path = "common/render.rs"]
mod render;

use pcp_core::{AtomValue, InDom, PmError, PmId, Timestamp, Value};
use pcp_linux::{metric_by_name, metrics, LinuxSource, MetricDef, Options, RootFiles};
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshot")
}

fn opts(cache: Option<PathBuf>) -> Options {
    Options {
        hz: 100,
        page_size: 4096,
        ncpus: Some(2),
        pmda_cache_dir: cache,
        mdadm: pcp_linux::MDADM.into(),
        single_node: false,
    }
}

fn source() -> LinuxSource<RootFiles> {
    LinuxSource::with_files(RootFiles::snapshot(dir().join("vm1")), opts(None))
}

/// One fetch of `names`: each metric's values as (instance, atom).
fn values(src: &mut LinuxSource<RootFiles>, names: &[&str]) -> Vec<Result<Vec<(i32, AtomValue)>, PmError>> {
    let defs: Vec<&MetricDef> = names.iter().map(|n| metric_by_name(n).unwrap()).collect();
    let pmids: Vec<PmId> = defs.iter().map(|d| d.pmid).collect();
    let r = src.fetch(&pmids, Timestamp::new(5, 0), &|_, _| true);
    assert_eq!(r.timestamp, Timestamp::new(5, 0));
    defs.iter()
        .zip(r.sets)
        .map(|(d, s)| {
            assert_eq!(s.pmid, d.pmid);
            s.values.map(|vs| {
                vs.into_iter().map(|v| (v.inst, pcp_core::extract_value(&v.value, d.ty, d.ty).unwrap())).collect()
            })
        })
        .collect()
}

fn one(src: &mut LinuxSource<RootFiles>, name: &str) -> Vec<(i32, AtomValue)> {
    values(src, &[name]).remove(0).unwrap()
}

/// These take statfs(2) of the live root file system, which the PMDA did
/// when the golden output was recorded and the snapshot's `statfs` file
/// records at another moment: their values are checked by hand below.
const LIVE_STATFS: [&str; 13] = [
    "filesys.used",
    "filesys.free",
    "filesys.usedfiles",
    "filesys.freefiles",
    "filesys.full",
    "filesys.avail",
    "tmpfs.capacity",
    "tmpfs.used",
    "tmpfs.free",
    "tmpfs.maxfiles",
    "tmpfs.usedfiles",
    "tmpfs.freefiles",
    "tmpfs.full",
];

/// Metrics the PMDA reads from the running system even over a snapshot
/// (`$LINUX_STATSPATH`): the System V IPC limits and use (system calls;
/// the objects themselves come from the snapshot's /proc/sysvipc) and
/// the login records. The machine running the test is
/// not the one recorded, so only the shape of their values is compared.
fn is_live_system(name: &str) -> bool {
    name.starts_with("ipc.") || matches!(name, "kernel.all.nusers" | "kernel.all.nroots" | "kernel.all.nsessions")
}

/// The PMDA takes this from an `ioctl()` of the live kernel even over a
/// snapshot; pcp-linux gives no value there.
const LIVE_IOCTL: [&str; 1] = ["network.interface.inet_addr"];

/// These number their instances in the directory order of
/// /sys/class/net, which a checkout of the snapshot need not keep: their
/// lines are compared by instance name.
const DIR_ORDER: [&str; 3] =
    ["network.interface.ipv6_addr", "network.interface.ipv6_scope", "network.interface.hw_addr"];

/// A value line less its instance number, for [`DIR_ORDER`].
fn by_name(line: &str) -> String {
    match line.split_once(" or ") {
        Some((_, rest)) if line.starts_with("    inst [") => rest.to_string(),
        _ => line.to_string(),
    }
}

#[test]
fn every_value_matches_the_pmda_reading_the_same_snapshot() {
    let golden = std::fs::read_to_string(dir().join("vm1.pmda-f.txt")).unwrap();
    // the golden output of every metric, by name
    let mut blocks: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in golden.lines().filter(|l| !l.is_empty()) {
        if line.starts_with(' ') || line.starts_with("No value") || line.starts_with("Error") {
            blocks.last_mut().unwrap().1.push(line);
        } else {
            blocks.push((line, Vec::new()));
        }
    }
    let all: Vec<&MetricDef> = metrics().iter().filter(|m| m.name != "proc.nprocs").collect();
    assert_eq!(blocks.iter().map(|b| b.0).collect::<Vec<_>>(), all.iter().map(|m| m.name).collect::<Vec<_>>());
    // the metrics computed, fetched at once
    let defs: Vec<&MetricDef> = all.into_iter().filter(|m| pcp_linux::computes(m.pmid)).collect();
    let mut out = Vec::new();
    render::fetch(&mut out, &mut source(), &defs);
    let ours = String::from_utf8(out).unwrap();
    let (mut current, mut compared, mut skipped, mut live) = (String::new(), 0, 0, 0);
    let mut want = Vec::new().into_iter();
    for line in ours.lines().filter(|l| !l.is_empty()) {
        if !line.starts_with(' ') && !line.starts_with("No value") && !line.starts_with("Error") {
            assert_eq!(want.next(), None, "golden has more lines in {current}");
            current = line.to_string();
            want = blocks.iter().find(|b| b.0 == line).unwrap().1.clone().into_iter();
            if LIVE_IOCTL.contains(&line) {
                want = Vec::new().into_iter();
            }
            if DIR_ORDER.contains(&line) {
                let mut ours: Vec<String> = render_block(&ours, line).iter().map(|l| by_name(l)).collect();
                let mut golden: Vec<String> = want.by_ref().map(by_name).collect();
                ours.sort();
                golden.sort();
                assert_eq!(ours, golden, "in {current}");
                compared += ours.len();
            }
            continue;
        }
        if LIVE_IOCTL.contains(&current.as_str()) || DIR_ORDER.contains(&current.as_str()) {
            continue;
        }
        let want = want.next().unwrap_or_else(|| panic!("golden ends before {line:?} in {current}"));
        if is_live_system(&current) && line.starts_with("    value") {
            // (the running system's, whatever the snapshot: its shape only)
            assert_eq!(line.split(" value ").next(), want.split(" value ").next(), "in {current}");
            live += 1;
            continue;
        }
        if LIVE_STATFS.contains(&current.as_str()) && line.starts_with("    inst") {
            assert_eq!(line.split(" value ").next(), want.split(" value ").next());
            skipped += 1;
            continue;
        }
        assert_eq!(line, want, "in {current}");
        compared += 1;
    }
    assert_eq!(want.next(), None, "golden has more lines in {current}");
    assert_eq!(skipped, 6 + 7 * 3);
    assert_eq!(live, 37, "values of the running system");
    assert!(compared >= 1223, "{compared} lines compared");
}

/// The value lines of metric `name` in `out` (pminfo -f's layout).
fn render_block<'a>(out: &'a str, name: &str) -> Vec<&'a str> {
    let mut lines = out.lines().filter(|l| !l.is_empty()).skip_while(|l| *l != name);
    lines.next();
    lines.take_while(|l| l.starts_with(' ') || l.starts_with("No value") || l.starts_with("Error")).collect()
}

#[test]
fn cpu_times_are_milliseconds_of_user_hz_ticks() {
    let mut src = source();
    let v = values(
        &mut src,
        &[
            "kernel.all.cpu.user",
            "kernel.all.cpu.idle",
            "kernel.all.cpu.intr",
            "kernel.percpu.cpu.sys",
            "kernel.all.cpu.vuser",
            "hinv.ncpu",
            "kernel.all.pswitch",
            "kernel.all.intr",
            "kernel.all.boottime",
        ],
    );
    // cpu  2242037 1 261974 1863426 10387 0 2477 2961 0 0
    assert_eq!(v[0], Ok(vec![(-1, AtomValue::U64(22420370))]));
    assert_eq!(v[1], Ok(vec![(-1, AtomValue::U64(18634260))]));
    assert_eq!(v[2], Ok(vec![(-1, AtomValue::U64(24770))]));
    assert_eq!(v[3], Ok(vec![(0, AtomValue::U64(1294500)), (1, AtomValue::U64(1325240))]));
    assert_eq!(v[4], Ok(vec![(-1, AtomValue::U64(22420370))]));
    assert_eq!(v[5], Ok(vec![(-1, AtomValue::U32(2))]));
    assert_eq!(v[6], Ok(vec![(-1, AtomValue::U64(23705605))]));
    assert_eq!(v[7], Ok(vec![(-1, AtomValue::U64(13329108))]));
    assert_eq!(v[8], Ok(vec![(-1, AtomValue::I64(1795280850))]));
}

#[test]
fn load_memory_swap_and_uptime() {
    let mut src = source();
    let v = values(
        &mut src,
        &[
            "kernel.all.load",
            "kernel.all.nprocs",
            "mem.physmem",
            "hinv.physmem",
            "mem.util.used",
            "mem.util.available",
            "swap.length",
            "swap.pagesin",
            "swap.in",
            "kernel.all.uptime",
            "proc.nprocs",
            "mem.util.highTotal",
        ],
    );
    assert_eq!(v[0], Ok(vec![(1, AtomValue::Float(8.53)), (5, AtomValue::Float(8.37)), (15, AtomValue::Float(7.37))]));
    assert_eq!(v[1], Ok(vec![(-1, AtomValue::U32(153))]));
    assert_eq!(v[2], Ok(vec![(-1, AtomValue::U64(24731708))]));
    assert_eq!(v[3], Ok(vec![(-1, AtomValue::U32(24731708 >> 10))]));
    assert_eq!(v[4], Ok(vec![(-1, AtomValue::U64(24731708 - 8643400))]));
    assert_eq!(v[5], Ok(vec![(-1, AtomValue::U64(23496436))]));
    assert_eq!(v[6], Ok(vec![(-1, AtomValue::U64(0))]));
    assert_eq!(v[7], Ok(vec![(-1, AtomValue::U32(0))]));
    // no swap operation counts since 2.6
    assert_eq!(v[8], Err(PmError::PM_ERR_APPVERSION));
    assert_eq!(v[9], Ok(vec![(-1, AtomValue::Double(21930.00))]));
    // the snapshot keeps five process directories
    assert_eq!(v[10], Ok(vec![(-1, AtomValue::U32(5))]));
    // not in this kernel's meminfo: no value
    assert_eq!(v[11], Ok(vec![]));
}

#[test]
fn disks_and_their_rawactive_times() {
    let mut src = source();
    // 254 0 vda 217375 42970 18276458 78487 533892 500943 528609864 3654849 0 336180
    //           3918139 617910 34 472826128 184710 2200 92
    let v = values(
        &mut src,
        &[
            "disk.dev.read",
            "disk.dev.read_bytes",
            "disk.dev.total_rawactive",
            "disk.dev.avactive",
            "disk.dev.discard_rawactive",
            "disk.dev.flush",
            "disk.dev.capacity",
            "disk.dev.scheduler",
            "disk.all.write_rawactive",
            "hinv.ndisk",
            "disk.dm.read",
        ],
    );
    assert_eq!(v[0], Ok(vec![(0, AtomValue::U64(217375))]));
    assert_eq!(v[1], Ok(vec![(0, AtomValue::U64(18276458 / 2))]));
    assert_eq!(v[2], Ok(vec![(0, AtomValue::U32(78487 + 3654849))]));
    assert_eq!(v[3], Ok(vec![(0, AtomValue::U32(336180))]));
    assert_eq!(v[4], Ok(vec![(0, AtomValue::U32(184710))]));
    assert_eq!(v[5], Ok(vec![(0, AtomValue::U64(2200))]));
    assert_eq!(v[6], Ok(vec![(0, AtomValue::U64(268435456))]));
    assert_eq!(v[7], Ok(vec![(0, AtomValue::String(b"mq-deadline".to_vec()))]));
    assert_eq!(v[8], Ok(vec![(-1, AtomValue::U64(3654849))]));
    assert_eq!(v[9], Ok(vec![(-1, AtomValue::U32(1))]));
    assert_eq!(v[10], Ok(vec![]));
}

#[test]
fn filesys_values_come_from_statfs() {
    // / 4096 blocks bfree bavail files ffree, as recorded
    let t = std::fs::read_to_string(dir().join("vm1/statfs")).unwrap();
    let f: Vec<u64> = t.lines().next().unwrap().split_whitespace().skip(1).map(|x| x.parse().unwrap()).collect();
    let (bsize, blocks, bfree, bavail, files, ffree) = (f[0], f[1], f[2], f[3], f[4], f[5]);
    let mut src = source();
    let kb = |b: u64| b * bsize / 1024;
    assert_eq!(one(&mut src, "filesys.capacity"), vec![(0, AtomValue::U64(kb(blocks)))]);
    assert_eq!(one(&mut src, "filesys.used"), vec![(0, AtomValue::U64(kb(blocks - bfree)))]);
    assert_eq!(one(&mut src, "filesys.free"), vec![(0, AtomValue::U64(kb(bfree)))]);
    assert_eq!(one(&mut src, "filesys.avail"), vec![(0, AtomValue::U64(kb(bavail)))]);
    assert_eq!(one(&mut src, "filesys.usedfiles"), vec![(0, AtomValue::U32((files - ffree) as u32))]);
    assert_eq!(one(&mut src, "filesys.freefiles"), vec![(0, AtomValue::U32(ffree as u32))]);
    let used = (blocks - bfree) as f64;
    assert_eq!(one(&mut src, "filesys.full"), vec![(0, AtomValue::Double(100.0 * used / (used + bavail as f64)))]);
    assert_eq!(one(&mut src, "filesys.mountdir"), vec![(0, AtomValue::String(b"/".to_vec()))]);
    assert_eq!(one(&mut src, "filesys.readonly"), vec![(0, AtomValue::U32(0))]);
    assert_eq!(one(&mut src, "hinv.nfilesys"), vec![(-1, AtomValue::U32(1))]);
    // the memory file systems: /dev/shm 4096 6171021 6171021 6171021 3085510 3085509
    assert_eq!(one(&mut src, "tmpfs.capacity")[0], (0, AtomValue::U64(6171021 * 4)));
    assert_eq!(one(&mut src, "tmpfs.usedfiles")[0], (0, AtomValue::U32(1)));
    assert_eq!(one(&mut src, "tmpfs.full")[0], (0, AtomValue::Double(0.0)));
}

#[test]
fn instance_domains_are_named_and_numbered_as_the_pmda_does() {
    let mut src = source();
    let names =
        |src: &mut LinuxSource<RootFiles>, indom: InDom| -> Vec<(i32, String)> { src.instances(indom).unwrap() };
    let s = |v: &[(i32, &str)]| v.iter().map(|&(i, n)| (i, n.to_string())).collect::<Vec<_>>();
    assert_eq!(names(&mut src, pcp_linux::CPU_INDOM), s(&[(0, "cpu0"), (1, "cpu1")]));
    assert_eq!(names(&mut src, pcp_linux::DISK_INDOM), s(&[(0, "vda")]));
    assert_eq!(names(&mut src, pcp_linux::LOADAVG_INDOM), s(&[(1, "1 minute"), (5, "5 minute"), (15, "15 minute")]));
    assert_eq!(names(&mut src, pcp_linux::NET_DEV_INDOM), s(&[(0, "lo"), (1, "ifb0"), (2, "ifb1"), (3, "eth0")]));
    assert_eq!(names(&mut src, pcp_linux::FILESYS_INDOM), s(&[(0, "/dev/vda")]));
    assert_eq!(names(&mut src, pcp_linux::DM_INDOM), s(&[]));
    assert_eq!(src.instances(InDom::new(60, 99)), Err(PmError::PM_ERR_INDOM));
}

#[test]
fn saved_pmda_caches_keep_their_instance_numbers() {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pcp-linux-pmda-cache");
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::write(cache.join("60.3"), "2 0 2147483647\n0 1 lo\n7 1 eth0\n9 1 gone0\n").unwrap();
    std::fs::write(cache.join("60.1"), "2 0 2147483647\n4 1 vda\n").unwrap();
    let mut src = LinuxSource::with_files(RootFiles::snapshot(dir().join("vm1")), opts(Some(cache)));
    let nets = src.instances(pcp_linux::NET_DEV_INDOM).unwrap();
    let ids: Vec<(i32, &str)> = nets.iter().map(|(i, n)| (*i, n.as_str())).collect();
    assert_eq!(ids, vec![(0, "lo"), (7, "eth0"), (10, "ifb0"), (11, "ifb1")]);
    assert_eq!(one(&mut src, "disk.dev.read"), vec![(4, AtomValue::U64(217375))]);
}

#[test]
fn interface_values_depend_on_what_is_fetched_with_them_as_in_the_pmda() {
    // alone, type comes from sysfs; with speed, the PMDA's sysfs walk stops
    // at lo (no speed) and the ioctl answers leave 0 where ethtool fails
    let mut src = source();
    let alone = one(&mut src, "network.interface.type");
    assert_eq!(alone.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>(), [772, 1, 1, 1].map(AtomValue::U32));
    let both = values(&mut src, &["network.interface.type", "network.interface.speed"]);
    let ty: Vec<AtomValue> = both[0].clone().unwrap().into_iter().map(|(_, v)| v).collect();
    assert_eq!(ty, [0, 0, 0, 1].map(AtomValue::U32));
    // speed -1 (unknown) read as an unsigned 32-bit count of Mbit/s
    assert_eq!(both[1], Ok(vec![(3, AtomValue::Float(4294967295f32 * 1e6 / 8.0 / 1024.0 / 1024.0))]));
    let running = one(&mut src, "network.interface.running");
    assert_eq!(running.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>(), [1, 0, 0, 1].map(AtomValue::U32));
}

#[test]
fn unknown_pmids_and_the_instance_profile() {
    let mut src = source();
    let load = metric_by_name("kernel.all.load").unwrap().pmid;
    let r = src.fetch(&[PmId::new(60, 4000, 1), load], Timestamp::default(), &|_, inst| inst == 5);
    assert_eq!(r.sets[0].values, Err(PmError::PM_ERR_PMID));
    let v = r.sets[1].values.as_ref().unwrap();
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].inst, 5);
    assert_eq!(v[0].value, Value::from_atom(&AtomValue::Float(8.37)));
}
