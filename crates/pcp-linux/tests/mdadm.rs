//! `disk.md.status`: the wait status of `mdadm --detail --test` for each
//! md device the last read of the disks found, as the PMDA runs it.

use pcp_core::{extract_value, AtomValue, PmId, Timestamp};
use pcp_linux::{metric_by_name, LinuxSource, Options, RootFiles};
use std::path::PathBuf;

/// (Lines as the kernel aligns them: the PMDA passes over others.)
const DISKSTATS: &[u8] = concat!(
    "   9       0 md0 100 0 800 0 200 0 1600 0 0 0 0 0 0 0 0 0 0\n",
    "   9     127 md127 1 0 8 0 2 0 16 0 0 0 0 0 0 0 0 0 0\n"
)
.as_bytes();

/// A source over `root`, with /proc/diskstats written there.
fn source(root: &std::path::Path, mdadm: PathBuf) -> LinuxSource<RootFiles> {
    std::fs::create_dir_all(root.join("proc")).unwrap();
    std::fs::write(root.join("proc/diskstats"), DISKSTATS).unwrap();
    let opts = Options { hz: 100, page_size: 4096, ncpus: Some(2), pmda_cache_dir: None, mdadm, single_node: false };
    LinuxSource::with_files(RootFiles::new(root), opts)
}

/// The values of `names` in one fetch, as (instance, atom) per metric.
fn get(src: &mut LinuxSource<RootFiles>, names: &[&str]) -> Vec<Vec<(i32, AtomValue)>> {
    let defs: Vec<_> = names.iter().map(|n| metric_by_name(n).unwrap()).collect();
    let pmids: Vec<PmId> = defs.iter().map(|d| d.pmid).collect();
    let r = src.fetch(&pmids, Timestamp::default(), &|_, _| true);
    defs.iter()
        .zip(r.sets)
        .map(|(d, s)| {
            let vals = s.values.unwrap_or_default();
            vals.into_iter().map(|v| (v.inst, extract_value(&v.value, d.ty, d.ty).unwrap())).collect()
        })
        .collect()
}

#[test]
fn status_is_mdadms_wait_status() {
    let dir = std::env::temp_dir().join(format!("pcp-linux-mdadm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("mdadm");
    // quiet: what it wrote would go to a pipe closed unread
    std::fs::write(
        &script,
        "#!/bin/sh\n[ \"$1 $2\" = '--detail --test' ] || exit 9\ncase \"$3\" in /dev/md0) exit 0;; *) exit 2;; esac\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut src = source(&dir, script.clone());
    // the devices are known only once the disks have been read
    assert_eq!(get(&mut src, &["disk.md.status"]), vec![vec![]]);
    let got = get(&mut src, &["disk.md.read", "disk.md.status"]);
    assert_eq!(got[1], vec![(0, AtomValue::I32(0)), (1, AtomValue::I32(2 << 8))]);
    assert_eq!(get(&mut src, &["disk.md.status"])[0].len(), 2);
    // a program that cannot be read: -1
    let mut src = source(&dir, dir.join("absent"));
    let got = get(&mut src, &["disk.md.read", "disk.md.status"]);
    assert_eq!(got[1], vec![(0, AtomValue::I32(-1)), (1, AtomValue::I32(-1))]);
    std::fs::remove_dir_all(&dir).unwrap();
}
