//! An in-memory [`Files`] and a source over it, for the modules' tests.

use super::*;
pub(super) use crate::parse::{NetLink, NetLinks};
pub(super) use pcp_core::{Timestamp, Value, PM_IN_NULL};
use std::io;

/// Files in memory, and the kernel's netlink answers when given; what
/// poll(2) would say of the mount table; /proc's entries, counting the
/// listings made of them; whether this stands for the running system.
#[derive(Default)]
pub(super) struct Mem {
    pub(super) files: HashMap<String, Vec<u8>>,
    pub(super) links: Option<NetLinks>,
    /// The socket diagnostics' TCP states, IPv4 and IPv6.
    pub(super) tcp: Option<[[u32; crate::parse::netlink::TCP_STATES]; 2]>,
    pub(super) mounts_unchanged: bool,
    pub(super) proc_entries: Vec<String>,
    pub(super) proc_listings: std::cell::Cell<usize>,
    pub(super) live: bool,
    /// Every path read, in order.
    pub(super) reads: std::cell::RefCell<Vec<String>>,
    /// Directories other than /proc, and their entries.
    pub(super) dirs: HashMap<String, Vec<String>>,
}

impl Files for Mem {
    fn read(&self, path: &str) -> io::Result<Vec<u8>> {
        self.reads.borrow_mut().push(path.to_owned());
        self.files.get(path).cloned().ok_or_else(|| io::ErrorKind::NotFound.into())
    }
    fn list(&self, dir: &str) -> io::Result<Vec<String>> {
        if let Some(entries) = self.dirs.get(dir) {
            return Ok(entries.clone());
        }
        if dir != "/proc" {
            return Err(io::ErrorKind::NotFound.into());
        }
        self.proc_listings.set(self.proc_listings.get() + 1);
        Ok(self.proc_entries.clone())
    }
    fn exists(&self, path: &str) -> bool {
        self.files.keys().any(|k| k == path || k.starts_with(&format!("{path}/")))
    }
    fn realpath(&self, _: &str) -> Option<String> {
        None
    }
    fn read_link(&self, _: &str) -> Option<String> {
        None
    }
    fn statfs(&self, _: &str) -> io::Result<FsStats> {
        Ok(FsStats { bsize: 4096, blocks: 100, bfree: 50, bavail: 40, files: 10, ffree: 5 })
    }
    fn net_links(&self) -> Option<NetLinks> {
        self.links.clone()
    }
    fn tcp_states(&self, v6: bool) -> Option<[u32; crate::parse::netlink::TCP_STATES]> {
        self.tcp.map(|t| t[usize::from(v6)])
    }
    fn mounts_unchanged(&self) -> bool {
        self.mounts_unchanged
    }
    fn live(&self) -> bool {
        self.live
    }
}

pub(super) const NET_DEV: &str = "Inter-|   Receive |  Transmit\n face |bytes packets|bytes packets\n\
        lo: 10 1 0 0 0 0 0 0 10 1 0 0 0 0 0 0\n  eth0: 20 2 0 0 0 0 0 0 30 3 0 0 0 0 0 0\n\
        eth1: 40 4 0 0 0 0 0 0 50 5 0 0 0 0 0 0\n";

pub(super) fn source(links: Option<NetLinks>) -> LinuxSource<Mem> {
    let mut files = HashMap::new();
    let mut put = |p: &str, v: &str| files.insert(p.to_owned(), v.as_bytes().to_vec());
    put("/proc/net/dev", NET_DEV);
    for (name, mtu, speed, duplex) in
        [("lo", "65536", None, None), ("eth0", "1500", Some("-1"), Some("unknown")), ("eth1", "9000", None, None)]
    {
        put(&format!("/sys/class/net/{name}/mtu"), &format!("{mtu}\n"));
        put(&format!("/sys/class/net/{name}/flags"), "0x1003\n");
        put(&format!("/sys/class/net/{name}/operstate"), "up\n");
        if let Some(s) = speed {
            put(&format!("/sys/class/net/{name}/speed"), &format!("{s}\n"));
        }
        if let Some(d) = duplex {
            put(&format!("/sys/class/net/{name}/duplex"), &format!("{d}\n"));
        }
    }
    let opts = Options {
        hz: 100,
        page_size: 4096,
        ncpus: Some(1),
        pmda_cache_dir: None,
        mdadm: MDADM.into(),
        single_node: false,
    };
    LinuxSource::with_files(Mem { files, links, ..Mem::default() }, opts)
}

pub(super) fn values(src: &mut LinuxSource<Mem>, name: &str) -> Vec<(i32, Value)> {
    let pmid = crate::metric_by_name(name).map(|m| m.pmid).unwrap();
    let r = src.fetch(&[pmid], Timestamp::default(), &|_, _| true);
    r.sets[0].values.clone().unwrap().into_iter().map(|v| (v.inst, v.value)).collect()
}

pub(super) fn u32s(v: &[(i32, u32)]) -> Vec<(i32, Value)> {
    v.iter().map(|&(i, x)| (i, Value::from_atom(&AtomValue::U32(x)))).collect()
}
