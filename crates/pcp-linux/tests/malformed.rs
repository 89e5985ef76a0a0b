//! Damaged /proc content: truncated lines and garbage numbers give "no
//! value", never an error the PMDA would not give, and never a panic.

#[path = "../../../fuzz/harness_linux.rs"]
mod harness_linux;

use harness_linux::MemFiles;
use pcp_core::{extract_value, AtomValue, PmId, Timestamp};
use pcp_linux::{metric_by_name, metrics, LinuxSource, Options};
use proptest::prelude::*;

fn source(files: &[(&str, &[u8])]) -> LinuxSource<MemFiles> {
    let opts = Options {
        hz: 100,
        page_size: 4096,
        ncpus: Some(2),
        pmda_cache_dir: None,
        mdadm: pcp_linux::MDADM.into(),
        single_node: false,
    };
    LinuxSource::with_files(MemFiles::with(files), opts)
}

/// The values of `name` in one fetch, as (instance, atom).
fn get(src: &mut LinuxSource<MemFiles>, name: &str) -> Vec<(i32, AtomValue)> {
    let d = metric_by_name(name).unwrap();
    let r = src.fetch(&[d.pmid], Timestamp::default(), &|_, _| true);
    let vals = r.sets[0].values.clone().unwrap_or_else(|e| panic!("{name}: {e:?}"));
    vals.into_iter().map(|v| (v.inst, extract_value(&v.value, d.ty, d.ty).unwrap())).collect()
}

#[test]
fn missing_files_give_no_values() {
    let mut src = source(&[]);
    for name in ["kernel.all.load", "kernel.all.cpu.user", "mem.physmem", "kernel.all.uptime", "disk.all.read"] {
        let v = get(&mut src, name);
        assert!(v.is_empty() || name == "disk.all.read", "{name}: {v:?}");
    }
    // with no disks the sum over them is zero, as the PMDA has it
    assert_eq!(get(&mut src, "disk.all.read"), vec![(-1, AtomValue::U64(0))]);
    assert_eq!(get(&mut src, "hinv.ndisk"), vec![(-1, AtomValue::U32(0))]);
    assert_eq!(get(&mut src, "network.interface.in.bytes"), vec![]);
    assert_eq!(get(&mut src, "proc.nprocs"), vec![]);
}

#[test]
fn truncated_stat_lines() {
    let mut src = source(&[("/proc/stat", b"cpu  12 3\ncpu0 1\ncpu1")]);
    assert_eq!(get(&mut src, "kernel.all.cpu.user"), vec![(-1, AtomValue::U64(120))]);
    assert_eq!(get(&mut src, "kernel.all.cpu.idle"), vec![]);
    assert_eq!(get(&mut src, "kernel.all.cpu.vuser"), vec![]);
    assert_eq!(get(&mut src, "kernel.percpu.cpu.user"), vec![(0, AtomValue::U64(10))]);
    assert_eq!(get(&mut src, "kernel.all.pswitch"), vec![]);
    // both CPUs are online as far as /proc/stat says
    assert_eq!(get(&mut src, "hinv.ncpu"), vec![(-1, AtomValue::U32(2))]);
}

#[test]
fn garbage_numbers() {
    let mut src = source(&[
        ("/proc/meminfo", b"MemTotal: abc kB\nMemFree:   -5 kB\nCached: 18446744073709551615 kB\n"),
        ("/proc/loadavg", b"0.5 zz 1 2/3 4\n"),
        ("/proc/uptime", b"nan-ish\n"),
        ("/proc/net/dev", b"eth0: 1 2 x\n: 5\n"),
        ("/proc/diskstats", b" 254 0 vda 1 2\n 8 0 sda 1 2 3 4 5 6 7 8 9 10 x\n"),
    ]);
    assert_eq!(get(&mut src, "mem.physmem"), vec![]);
    // the PMDA takes the first digits after the colon
    assert_eq!(get(&mut src, "mem.util.free"), vec![(-1, AtomValue::U64(5))]);
    // all ones is the PMDA's "no value" mark
    assert_eq!(get(&mut src, "mem.util.cached"), vec![]);
    assert_eq!(get(&mut src, "mem.util.used"), vec![]);
    assert_eq!(get(&mut src, "kernel.all.load"), vec![(1, AtomValue::Float(0.5))]);
    assert_eq!(get(&mut src, "kernel.all.nprocs"), vec![]);
    // strtod, as sscanf's %lf, reads "nan"
    let up = get(&mut src, "kernel.all.uptime");
    assert!(matches!(up[..], [(-1, AtomValue::Double(v))] if v.is_nan()), "{up:?}");
    assert_eq!(get(&mut src, "kernel.all.idletime"), vec![]);
    assert_eq!(get(&mut src, "network.interface.in.packets"), vec![(0, AtomValue::U64(2))]);
    assert_eq!(get(&mut src, "network.interface.in.errors"), vec![]);
    assert_eq!(get(&mut src, "network.interface.total.bytes"), vec![]);
    // both disks are instances; vda has too few counters for a value, and
    // sda's ten read as the short form of old kernels' partitions
    assert_eq!(get(&mut src, "hinv.ndisk"), vec![(-1, AtomValue::U32(2))]);
    assert_eq!(get(&mut src, "disk.dev.read"), vec![(1, AtomValue::U64(1))]);
    assert_eq!(get(&mut src, "disk.dev.write"), vec![(1, AtomValue::U64(3))]);
    assert_eq!(get(&mut src, "disk.dev.read_merge"), vec![(1, AtomValue::U64(0))]);
}

#[test]
fn every_metric_survives_an_empty_and_a_binary_system() {
    let pmids: Vec<PmId> = metrics().iter().map(|m| m.pmid).collect();
    let junk: &[u8] = b"\x00\xff\n\n:::\n \x80 1 2 3 [ ]\n";
    let files: Vec<(&str, &[u8])> = harness_linux::FILES.iter().map(|f| (*f, junk)).collect();
    for files in [&[][..], &files[..]] {
        let mut src = source(files);
        let r = src.fetch(&pmids, Timestamp::default(), &|_, _| true);
        assert_eq!(r.sets.len(), pmids.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn parsers_and_fetches_never_panic(data in proptest::collection::vec(any::<u8>(), 0..2048)) {
        harness_linux::linux_proc_target(&data);
    }

    #[test]
    fn line_oriented_files_with_arbitrary_text(text in "[ -~\n]{0,400}") {
        harness_linux::linux_proc_target(&[text.as_bytes(), b"\xff"].concat().repeat(3));
    }
}

/// Every file the fuzz harness knows, from the committed snapshot, cut
/// short at a few places (mid-line, mid-number): every parser and a
/// fetch of every metric over them, with no panic.
#[test]
fn snapshot_files_cut_short_never_panic() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshot/vm1");
    let whole: Vec<Vec<u8>> =
        harness_linux::FILES.iter().map(|f| std::fs::read(format!("{root}{f}")).unwrap_or_default()).collect();
    for (k, text) in whole.iter().enumerate() {
        let len = text.len();
        for cut in [1, len / 2] {
            let parts: Vec<&[u8]> =
                whole.iter().enumerate().map(|(j, t)| if j == k { &t[..cut.min(t.len())] } else { &t[..] }).collect();
            let data = parts.join(&0xffu8);
            harness_linux::linux_proc_target(&data);
        }
    }
}
