// The `linux_proc` fuzz target's body, shared by `cargo fuzz` and by the
// corpus replay in crates/pcp-linux/tests/fuzz_corpus.rs: arbitrary bytes
// as the contents of the /proc and /sys files the Linux metrics read,
// through every parser and a fetch of every metric. Must never panic.

use pcp_linux::{Files, FsStats, LinuxSource, Options};
use std::collections::HashMap;
use std::io;

/// Files held in memory, by absolute path.
#[derive(Default)]
pub struct MemFiles {
    pub files: HashMap<String, Vec<u8>>,
    pub statfs: Option<FsStats>,
}

impl MemFiles {
    pub fn with(files: &[(&str, &[u8])]) -> MemFiles {
        let files = files.iter().map(|(p, b)| (p.to_string(), b.to_vec())).collect();
        MemFiles { files, statfs: None }
    }
}

impl Files for MemFiles {
    fn read(&self, path: &str) -> io::Result<Vec<u8>> {
        self.files.get(path).cloned().ok_or_else(|| io::ErrorKind::NotFound.into())
    }
    fn list(&self, dir: &str) -> io::Result<Vec<String>> {
        let prefix = format!("{}/", dir.trim_end_matches('/'));
        let mut out: Vec<String> = self
            .files
            .keys()
            .filter_map(|p| p.strip_prefix(&prefix))
            .filter_map(|rest| rest.split('/').next())
            .map(str::to_string)
            .collect();
        out.sort();
        out.dedup();
        if out.is_empty() {
            return Err(io::ErrorKind::NotFound.into());
        }
        Ok(out)
    }
    fn exists(&self, path: &str) -> bool {
        let dir = format!("{}/", path.trim_end_matches('/'));
        self.files.keys().any(|p| p == path || p.starts_with(&dir))
    }
    fn realpath(&self, path: &str) -> Option<String> {
        self.exists(path).then(|| path.to_string())
    }
    fn read_link(&self, _path: &str) -> Option<String> {
        None
    }
    fn statfs(&self, _path: &str) -> io::Result<FsStats> {
        self.statfs.ok_or_else(|| io::ErrorKind::NotFound.into())
    }
}

/// The files the fuzzed bytes become, in order.
pub const FILES: [&str; 51] = [
    "/proc/stat",
    "/proc/meminfo",
    "/proc/loadavg",
    "/proc/uptime",
    "/proc/vmstat",
    "/proc/diskstats",
    "/proc/partitions",
    "/proc/net/dev",
    "/proc/self/mounts",
    "/proc/zoneinfo",
    "/sys/devices/system/cpu/possible",
    "/sys/block/vda/queue/scheduler",
    "/sys/class/net/eth0/speed",
    "/sys/class/net/eth0/flags",
    "/sys/block/sda/device/wwid",
    "/sys/block/dm-0/dm/name",
    "/proc/sys/kernel/osrelease",
    "/etc/debian_version",
    "/etc/lsb-release",
    "/proc/net/snmp",
    "/proc/net/netstat",
    "/proc/net/snmp6",
    "/proc/pressure/cpu",
    "/proc/pressure/memory",
    "/proc/sys/fs/file-nr",
    "/proc/interrupts",
    "/proc/softirqs",
    "/proc/net/sockstat",
    "/proc/net/sockstat6",
    "/proc/net/softnet_stat",
    "/proc/net/tcp",
    "/proc/net/udp",
    "/proc/net/unix",
    "/proc/net/raw",
    "/proc/cpuinfo",
    "/proc/sys/kernel/pid_max",
    "/proc/buddyinfo",
    "/proc/slabinfo",
    "/proc/tty/driver/serial",
    "/proc/locks",
    "/proc/net/rpc/nfs",
    "/proc/net/rpc/nfsd",
    "/proc/fs/nfsd/pool_threads",
    "/proc/fs/nfsd/pool_stats",
    "/sys/block/zram0/mm_stat",
    "/sys/devices/system/node/node0/meminfo",
    "/sys/devices/system/node/node0/numastat",
    "/sys/kernel/mm/ksm/run",
    "/sys/class/scsi_tape/st0/stats/read_cnt",
    "/proc/pressure/io",
    "/sys/kernel/uevent_seqnum",
];

/// Split at 0xff bytes into file contents, parse each with every parser,
/// then fetch every metric twice (the second fetch sees the instance
/// domains the first one made) and list every instance domain.
pub fn linux_proc_target(data: &[u8]) {
    use pcp_linux::parse;
    let parts: Vec<&[u8]> = data.split(|&b| b == 0xff).take(FILES.len()).collect();
    for p in &parts {
        let _ = parse::stat(p);
        let _ = parse::meminfo(p);
        let _ = parse::loadavg(p);
        let _ = parse::uptime(p);
        let _ = parse::vmstat_swap(p);
        let _ = parse::vmstat_lines(p).count();
        let _ = parse::SnmpReader::new([("ip.forwarding".to_string(), 0)]).read(p);
        let _ = parse::diskstats(p);
        let _ = parse::partitions(p);
        let _ = parse::net_dev(p);
        let _ = parse::mounts(p);
        let _ = parse::zoneinfo_low_pages(p);
        let _ = parse::cpu_list_count(p);
        let _ = parse::io_scheduler(p);
        let _ = parse::scsi_id(p);
        let _ = parse::sysfs_oneline(p);
        let _ = parse::pmda_cache(p);
        // netlink answers: the whole part, and from its second byte (the
        // headers' alignment)
        for b in [*p, p.get(1..).unwrap_or_default()] {
            let mut links = vec![parse::NetLink { name: "eth0".into(), ..parse::NetLink::default() }];
            let _ = parse::netlink::links(b, &mut links);
            let _ = parse::netlink::family_id(b);
            let _ = parse::netlink::linkmodes(b, 0x15, &mut links);
            let mut states = [0; parse::netlink::TCP_STATES];
            let _ = parse::netlink::tcp_states(b, 2, &mut states);
        }
        if let Ok(s) = std::str::from_utf8(p) {
            let _ = parse::classify_device(s);
        }
    }
    let files: Vec<(&str, &[u8])> = FILES.iter().copied().zip(parts.iter().copied()).collect();
    let mut mem = MemFiles::with(&files);
    mem.statfs = data.get(..48).map(|b| {
        let w = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap_or_default());
        FsStats { bsize: w(0), blocks: w(1), bfree: w(2), bavail: w(3), files: w(4), ffree: w(5) }
    });
    let opts = Options {
        hz: 100,
        page_size: 4096,
        ncpus: None,
        pmda_cache_dir: None,
        mdadm: pcp_linux::MDADM.into(),
        single_node: false,
    };
    let mut src = LinuxSource::with_files(mem, opts);
    let pmids: Vec<pcp_core::PmId> = pcp_linux::metrics().iter().map(|m| m.pmid).collect();
    for _ in 0..2 {
        let r = src.fetch(&pmids, pcp_core::Timestamp::default(), &|_, _| true);
        assert_eq!(r.sets.len(), pmids.len());
    }
    for indom in pcp_linux::INDOMS {
        let _ = src.instances(indom);
    }
    // every instance domain of the PMDA's (those of the areas too)
    for serial in 0..64 {
        let indom = pcp_core::InDom::new(pcp_linux::LINUX_DOMAIN, serial);
        if pcp_linux::indom_text(indom).is_some() {
            let _ = src.instances(indom);
            let _ = src.instance_labels(indom);
        }
    }
}
