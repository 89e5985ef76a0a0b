//! Where the files come from: the I/O edge, kept behind one trait so the
//! rest reads a live system or a committed snapshot alike.

use crate::parse::netlink::{self, Batch, NetLinks};
use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What `statfs(2)` says about a mounted file system (the fields the
/// PMDA uses).
#[doc(alias = "statfs")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FsStats {
    /// `f_bsize`: the block size the counts are in.
    pub bsize: u64,
    /// `f_blocks`: total blocks.
    pub blocks: u64,
    /// `f_bfree`: free blocks.
    pub bfree: u64,
    /// `f_bavail`: blocks free to unprivileged users.
    pub bavail: u64,
    /// `f_files`: total inodes.
    pub files: u64,
    /// `f_ffree`: free inodes.
    pub ffree: u64,
}

/// Access to a system's /proc, /sys and /dev by absolute path (`/proc/stat`).
pub trait Files {
    /// A file's contents.
    fn read(&self, path: &str) -> io::Result<Vec<u8>>;
    /// A file's contents into `buf`, replacing what it held and reusing
    /// its memory.
    fn read_into(&self, path: &str, buf: &mut Vec<u8>) -> io::Result<()> {
        *buf = self.read(path)?;
        Ok(())
    }
    /// The start of a file into `buf`, replacing what it held: `first`
    /// bytes asked for at once, then more until `enough` accepts what was
    /// read or the file ends. A file the kernel makes as it is read
    /// (/proc's) is then made only that far. Where a file is not read in
    /// parts (a snapshot's), all of it.
    fn read_start(
        &self,
        path: &str,
        buf: &mut Vec<u8>,
        first: usize,
        enough: &dyn Fn(&[u8]) -> bool,
    ) -> io::Result<()> {
        let _ = (first, enough);
        self.read_into(path, buf)
    }
    /// How many names in a directory (without `.` and `..`) `keep`
    /// accepts.
    #[doc(alias = "getdents64")]
    fn count(&self, dir: &str, keep: &dyn Fn(&[u8]) -> bool) -> io::Result<usize> {
        Ok(self.list(dir)?.iter().filter(|n| keep(n.as_bytes())).count())
    }
    /// The names in a directory (without `.` and `..`), in directory order.
    fn list(&self, dir: &str) -> io::Result<Vec<String>>;
    /// The names of a directory's subdirectories, in directory order: as
    /// `readdir`'s `d_type` tells them (a symbolic link is not one), by
    /// `stat` where the file system does not tell. (By default: the names
    /// `list` can list in turn, for files without links.)
    #[doc(alias = "d_type")]
    fn list_dirs(&self, dir: &str) -> io::Result<Vec<String>> {
        let mut names = self.list(dir)?;
        names.retain(|n| self.list(&format!("{dir}/{n}")).is_ok());
        Ok(names)
    }
    /// Does the path exist (`access(F_OK)`)?
    fn exists(&self, path: &str) -> bool;
    /// The path with symbolic links resolved (`realpath`).
    fn realpath(&self, path: &str) -> Option<String>;
    /// A symbolic link's target (`readlink`).
    fn read_link(&self, path: &str) -> Option<String>;
    /// `statfs` of a mount point.
    fn statfs(&self, path: &str) -> io::Result<FsStats>;
    /// Is the mount table known to be as it was when `/proc/self/mounts`
    /// was last read here? `false` where that is not known (a snapshot,
    /// a first read). Asking forgets a change it reports: the table must
    /// be read again then.
    fn mounts_unchanged(&self) -> bool {
        false
    }
    /// Are these the running kernel's own files, each read giving the
    /// system as it is at that moment? `false` for a snapshot.
    fn live(&self) -> bool {
        false
    }
    /// The network interfaces as the kernel's network device interface
    /// reports them (what the PMDA's `SIOCGIFMTU`, `SIOCGIFFLAGS` and
    /// `SIOCETHTOOL` `ioctl()`s answer), or `None` where that cannot be
    /// asked (a snapshot): the source then takes them from the sysfs files
    /// that mirror them.
    #[doc(alias = "SIOCGIFMTU")]
    #[doc(alias = "SIOCGIFFLAGS")]
    #[doc(alias = "SIOCETHTOOL")]
    fn net_links(&self) -> Option<NetLinks> {
        None
    }
    /// The IPv4 addresses as `(label, address)`, in the kernel's order
    /// (what the PMDA's `SIOCGIFCONF` and `SIOCGIFADDR` `ioctl()`s
    /// answer), or `None` where that cannot be asked (a snapshot).
    #[doc(alias = "SIOCGIFCONF")]
    #[doc(alias = "SIOCGIFADDR")]
    fn ipv4_addrs(&self) -> Option<Vec<(String, [u8; 4])>> {
        None
    }
    /// The TCP sockets of this network namespace by state, IPv4 or
    /// (`v6`) IPv6, as /proc/net/tcp or tcp6 would list them, from the
    /// kernel's socket diagnostics (`NETLINK_SOCK_DIAG`), which spare
    /// the kernel formatting a line per socket; `None` where that cannot
    /// be asked (a snapshot, a kernel or container without it): the
    /// source reads the files then.
    #[doc(alias = "SOCK_DIAG_BY_FAMILY")]
    fn tcp_states(&self, _v6: bool) -> Option<[u32; netlink::TCP_STATES]> {
        None
    }
}

/// The files under a root directory: `/` for the running system, or a
/// snapshot directory. In snapshot mode `statfs` answers come from the
/// file `statfs` at the root (lines of `mountpoint bsize blocks bfree
/// bavail files ffree`, as `stat -f -c '%n %s %b %f %a %c %d'` prints
/// them) instead of the system call.
#[derive(Debug)]
pub struct RootFiles {
    root: PathBuf,
    statfs_table: Option<Vec<(String, FsStats)>>,
    /// The netlink sockets, kept open between fetches as the PMDA keeps
    /// its `ioctl()` socket, with the answer buffer and the ethtool
    /// family's identifier (fixed by the kernel when the family
    /// registers).
    netlink: Mutex<Netlink>,
    /// The running system's /proc and /sys files read so far, kept open:
    /// reading one again from its start makes the kernel produce it
    /// afresh, and opening and closing it every fetch cost more than
    /// reading it.
    kept: Mutex<Vec<(String, OwnedFd)>>,
}

/// A copy reads the same files, with sockets and files of its own.
impl Clone for RootFiles {
    fn clone(&self) -> RootFiles {
        RootFiles {
            root: self.root.clone(),
            statfs_table: self.statfs_table.clone(),
            netlink: Mutex::default(),
            kept: Mutex::default(),
        }
    }
}

#[derive(Debug, Default)]
struct Netlink {
    route: Option<OwnedFd>,
    generic: Option<OwnedFd>,
    sock_diag: Option<OwnedFd>,
    ethtool_family: Option<Option<u16>>,
    buf: Vec<u8>,
}

/// The most /proc files [`RootFiles`] keeps open.
const KEPT_MAX: usize = 32;

impl RootFiles {
    /// The running system's files under `root` (normally `/`).
    pub fn new(root: impl Into<PathBuf>) -> RootFiles {
        RootFiles { root: root.into(), statfs_table: None, netlink: Mutex::default(), kept: Mutex::default() }
    }

    /// A snapshot directory, `statfs` answered from its `statfs` file.
    pub fn snapshot(root: impl Into<PathBuf>) -> RootFiles {
        let root = root.into();
        let table = std::fs::read(root.join("statfs")).map(|t| parse_statfs_table(&t)).unwrap_or_default();
        RootFiles { root, statfs_table: Some(table), netlink: Mutex::default(), kept: Mutex::default() }
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn at(&self, path: &str) -> PathBuf {
        self.root.join(path.trim_start_matches('/'))
    }

    /// Read `path` whole into `buf` through a file kept open, for the
    /// running system's /proc and /sys files (`None` for other files, as
    /// for a snapshot's, which tests may replace between reads, and when
    /// no more can be kept). Reading a kept file again from its start
    /// makes the kernel produce it afresh. A kept sysfs file whose device
    /// went away answers `ENODEV`: it is closed and the path opened again
    /// (a device of the same name may have come since). Other failures
    /// are the answer, and the file stays open (a network interface's
    /// `speed` fails while the link is down, and reads again once it is
    /// up).
    fn read_kept(&self, path: &str, buf: &mut Vec<u8>, part: Part) -> Option<io::Result<()>> {
        if !(path.starts_with("/proc/") || path.starts_with("/sys/")) || !self.live() {
            return None;
        }
        let mut kept = self.kept.lock().ok()?;
        if let Some(k) = kept.iter().position(|(p, _)| p == path) {
            match read_whole(&kept[k].1, buf, part) {
                Err(rustix::io::Errno::NODEV) => {
                    kept.swap_remove(k);
                    buf.clear();
                }
                r => return Some(r.map_err(io::Error::from)),
            }
        }
        // (a fetch reads a fixed few; a path per process would not be
        // kept beyond these)
        if kept.len() >= KEPT_MAX {
            return None;
        }
        use rustix::fs::{Mode, OFlags};
        let fd = match rustix::fs::open(path, OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty()) {
            Ok(fd) => fd,
            Err(e) => return Some(Err(e.into())),
        };
        let r = read_whole(&fd, buf, part);
        if r != Err(rustix::io::Errno::NODEV) {
            kept.push((path.to_string(), fd));
        }
        Some(r.map_err(io::Error::from))
    }

    fn strip_root(&self, p: &Path) -> Option<String> {
        let root = std::fs::canonicalize(&self.root).ok()?;
        let rel = p.strip_prefix(&root).ok()?;
        Some(format!("/{}", rel.to_str()?))
    }
}

/// How much of a file to read: all of it, or from its start `first` bytes
/// and then more until the predicate accepts what was read.
type Part<'a> = Option<(usize, &'a dyn Fn(&[u8]) -> bool)>;

/// What `fd` holds from its start (all of it, or as `part` says), appended
/// to `buf` (the part read before a failure cleared).
fn read_whole(fd: &OwnedFd, buf: &mut Vec<u8>, part: Part) -> Result<(), rustix::io::Errno> {
    use rustix::io::{pread, Errno};
    let start = buf.len();
    let Some((first, enough)) = part else {
        loop {
            if buf.capacity() - buf.len() < 1024 {
                buf.reserve(4096);
            }
            let at = (buf.len() - start) as u64;
            match pread(fd, rustix::buffer::spare_capacity(&mut *buf), at) {
                Ok(0) => return Ok(()),
                Ok(_) | Err(Errno::INTR) => {}
                Err(e) => {
                    buf.truncate(start);
                    return Err(e);
                }
            }
        }
    };
    let mut want = first.max(1);
    loop {
        let len = buf.len();
        buf.resize(len + want, 0);
        match pread(fd, &mut buf[len..], (len - start) as u64) {
            Ok(0) => {
                buf.truncate(len);
                return Ok(());
            }
            Ok(n) => {
                buf.truncate(len + n);
                if enough(&buf[start..]) {
                    return Ok(());
                }
            }
            Err(Errno::INTR) => buf.truncate(len),
            Err(e) => {
                buf.truncate(start);
                return Err(e);
            }
        }
        want = 4096;
    }
}

/// `request` sent on the netlink socket in `slot` (opened for `protocol`
/// when there is none), and each batch of the answer handed to `each`
/// until it says the answer is complete; `false` when the socket, the
/// kernel or the bytes fail, and then the socket is closed (whatever was
/// left unread goes with it).
fn netlink_ask(
    slot: &mut Option<OwnedFd>,
    buf: &mut Vec<u8>,
    protocol: Option<rustix::net::Protocol>,
    request: &[u8],
    mut each: impl FnMut(&[u8]) -> Batch,
) -> bool {
    use rustix::net::{AddressFamily, RecvFlags, SendFlags, SocketFlags, SocketType};
    if slot.is_none() {
        *slot = rustix::net::socket_with(AddressFamily::NETLINK, SocketType::RAW, SocketFlags::CLOEXEC, protocol).ok();
    }
    let Some(fd) = slot.as_ref() else { return false };
    // a dump arrives in batches of at most 32 KiB
    buf.resize(32768, 0);
    let mut ok = rustix::net::send(fd, request, SendFlags::empty()).ok() == Some(request.len());
    while ok {
        let n = match rustix::net::recv(fd, &mut buf[..], RecvFlags::empty()) {
            Ok((n, full)) if n == full && n > 0 => n,
            _ => break,
        };
        match each(&buf[..n]) {
            Batch::More => continue,
            Batch::Done => return true,
            Batch::Failed(_) => ok = false,
        }
    }
    *slot = None;
    false
}

/// This process's real user and group identifiers (`getuid`, `getgid`):
/// a local context labels itself with them.
#[doc(alias = "getuid")]
#[doc(alias = "getgid")]
pub fn user_and_group() -> (u32, u32) {
    (rustix::process::getuid().as_raw(), rustix::process::getgid().as_raw())
}

/// Parse the snapshot `statfs` file.
pub(crate) fn parse_statfs_table(text: &[u8]) -> Vec<(String, FsStats)> {
    let mut out = Vec::new();
    for l in crate::scan::lines(text) {
        let mut s = crate::scan::Scan::new(l);
        let Some(path) = s.word() else { continue };
        let mut v = [0u64; 6];
        if v.iter_mut().all(|slot| s.u64().map(|x| *slot = x).is_some()) {
            let [bsize, blocks, bfree, bavail, files, ffree] = v;
            let st = FsStats { bsize, blocks, bfree, bavail, files, ffree };
            out.push((String::from_utf8_lossy(path).into_owned(), st));
        }
    }
    out
}

impl Files for RootFiles {
    fn read(&self, path: &str) -> io::Result<Vec<u8>> {
        let mut buf = Vec::with_capacity(4096);
        self.read_into(path, &mut buf)?;
        Ok(buf)
    }

    fn read_into(&self, path: &str, buf: &mut Vec<u8>) -> io::Result<()> {
        // not fs::read nor File::read_to_end: /proc and /sys files report
        // no useful size, and asking for it costs a statx and an lseek;
        // a `Take` reads to the end without asking
        use std::io::Read;
        buf.clear();
        if buf.capacity() < 4096 {
            buf.reserve(4096);
        }
        if let Some(r) = self.read_kept(path, buf, None) {
            return r;
        }
        std::fs::File::open(self.at(path))?.take(u64::MAX).read_to_end(buf)?;
        Ok(())
    }

    fn read_start(
        &self,
        path: &str,
        buf: &mut Vec<u8>,
        first: usize,
        enough: &dyn Fn(&[u8]) -> bool,
    ) -> io::Result<()> {
        buf.clear();
        match self.read_kept(path, buf, Some((first, enough))) {
            Some(r) => r,
            None => self.read_into(path, buf),
        }
    }

    fn count(&self, dir: &str, keep: &dyn Fn(&[u8]) -> bool) -> io::Result<usize> {
        // getdents64 into one buffer on the stack, no name copied
        use rustix::fs::{Mode, OFlags, RawDir};
        let fd = rustix::fs::open(self.at(dir), OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())?;
        let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 16384];
        let mut entries = RawDir::new(&fd, &mut buf);
        let mut n = 0;
        while let Some(e) = entries.next() {
            let e = e?;
            let name = e.file_name().to_bytes();
            if name != b"." && name != b".." && keep(name) {
                n += 1;
            }
        }
        Ok(n)
    }

    fn list(&self, dir: &str) -> io::Result<Vec<String>> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(self.at(dir))? {
            out.push(e?.file_name().to_string_lossy().into_owned());
        }
        Ok(out)
    }

    fn list_dirs(&self, dir: &str) -> io::Result<Vec<String>> {
        use rustix::fs::{FileType, Mode, OFlags, RawDir};
        let fd = rustix::fs::open(self.at(dir), OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())?;
        let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 16384];
        let mut entries = RawDir::new(&fd, &mut buf);
        let mut out = Vec::new();
        while let Some(e) = entries.next() {
            let e = e?;
            let name = e.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            let is_dir = match e.file_type() {
                FileType::Directory => true,
                FileType::Unknown => rustix::fs::statat(&fd, e.file_name(), rustix::fs::AtFlags::empty())
                    .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Directory),
                _ => false,
            };
            if is_dir {
                out.push(String::from_utf8_lossy(name).into_owned());
            }
        }
        Ok(out)
    }

    fn exists(&self, path: &str) -> bool {
        self.at(path).exists()
    }

    fn realpath(&self, path: &str) -> Option<String> {
        let p = std::fs::canonicalize(self.at(path)).ok()?;
        self.strip_root(&p)
    }

    fn read_link(&self, path: &str) -> Option<String> {
        Some(std::fs::read_link(self.at(path)).ok()?.to_string_lossy().into_owned())
    }

    fn statfs(&self, path: &str) -> io::Result<FsStats> {
        if let Some(table) = &self.statfs_table {
            return table
                .iter()
                .find(|(p, _)| p == path)
                .map(|(_, s)| *s)
                .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound));
        }
        let st = rustix::fs::statfs(self.at(path)).map_err(io::Error::from)?;
        // the kernel's counts are unsigned; the block size is a long
        Ok(FsStats {
            bsize: st.f_bsize as u64,
            blocks: st.f_blocks as u64,
            bfree: st.f_bfree as u64,
            bavail: st.f_bavail as u64,
            files: st.f_files as u64,
            ffree: st.f_ffree as u64,
        })
    }

    fn live(&self) -> bool {
        self.statfs_table.is_none() && self.root == Path::new("/")
    }

    fn mounts_unchanged(&self) -> bool {
        use rustix::event::{poll, PollFd, PollFlags, Timespec};
        // the kernel marks a change of the mount table to each open
        // /proc/PID/mounts file as an exceptional condition, reported
        // (and then forgotten) by the next poll(2)
        let Ok(kept) = self.kept.lock() else { return false };
        let Some((_, fd)) = kept.iter().find(|(p, _)| p == "/proc/self/mounts") else { return false };
        let mut fds = [PollFd::new(fd, PollFlags::PRI)];
        let now = Timespec { tv_sec: 0, tv_nsec: 0 };
        matches!(poll(&mut fds, Some(&now)), Ok(0))
    }

    fn net_links(&self) -> Option<NetLinks> {
        use rustix::net::netlink::GENERIC;
        // the kernel answers for this process's network namespace: only
        // the running system's root reads like that
        if !self.live() {
            return None;
        }
        let Ok(mut guard) = self.netlink.lock() else { return None };
        let Netlink { route, generic, ethtool_family, buf, .. } = &mut *guard;
        let mut links = Vec::new();
        let request = netlink::getlink_request();
        // NETLINK_ROUTE is protocol 0
        if !netlink_ask(route, buf, None, &request, |b| netlink::links(b, &mut links)) {
            return None;
        }
        let family = match *ethtool_family {
            Some(f) => f,
            None => {
                let mut id = None;
                let ok = netlink_ask(generic, buf, Some(GENERIC), &netlink::family_request(), |b| {
                    id = netlink::family_id(b);
                    if id.is_some() {
                        Batch::Done
                    } else {
                        Batch::Failed(-2)
                    }
                });
                // asked once: a kernel without the family has none later
                *ethtool_family.insert(id.filter(|_| ok))
            }
        };
        let ethtool_known = family.is_some_and(|f| {
            netlink_ask(generic, buf, Some(GENERIC), &netlink::linkmodes_request(f), |b| {
                netlink::linkmodes(b, f, &mut links)
            })
        });
        if !ethtool_known {
            for l in &mut links {
                l.ethtool = None;
            }
        }
        Some(NetLinks { links, ethtool_known })
    }

    fn ipv4_addrs(&self) -> Option<Vec<(String, [u8; 4])>> {
        if !self.live() {
            return None;
        }
        let Ok(mut guard) = self.netlink.lock() else { return None };
        let Netlink { route, buf, .. } = &mut *guard;
        let mut out = Vec::new();
        let request = netlink::getaddr_request();
        netlink_ask(route, buf, None, &request, |b| netlink::ipv4_addrs(b, &mut out)).then_some(out)
    }

    fn tcp_states(&self, v6: bool) -> Option<[u32; netlink::TCP_STATES]> {
        use rustix::net::netlink::SOCK_DIAG;
        if !self.live() {
            return None;
        }
        let Ok(mut guard) = self.netlink.lock() else { return None };
        let Netlink { sock_diag, buf, .. } = &mut *guard;
        let family = if v6 { 10 } else { 2 };
        let mut out = [0; netlink::TCP_STATES];
        let request = netlink::tcp_dump_request(family);
        netlink_ask(sock_diag, buf, Some(SOCK_DIAG), &request, |b| netlink::tcp_states(b, family, &mut out))
            .then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statfs_table_lines() {
        let t = parse_statfs_table(b"/ 4096 66053021 10 20 16777216 100\nbad line\n/x 1 2 3\n");
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].0, "/");
        assert_eq!(t[0].1.blocks, 66053021);
    }

    #[test]
    fn list_dirs_gives_subdirectories_not_files_or_links() {
        let root = std::env::temp_dir().join(format!("pcp-linux-list-dirs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("top/a/b")).unwrap();
        std::fs::create_dir_all(root.join("top/.hidden")).unwrap();
        std::fs::write(root.join("top/cgroup.procs"), b"1\n").unwrap();
        std::os::unix::fs::symlink(root.join("top/a"), root.join("top/link")).unwrap();
        let files = RootFiles::new(&root);
        let mut dirs = files.list_dirs("/top").unwrap();
        dirs.sort();
        // as readdir's d_type tells: the link to a directory is no
        // directory (the caller leaves out dot names)
        assert_eq!(dirs, [".hidden", "a"]);
        assert_eq!(files.list_dirs("/top/a").unwrap(), ["b"]);
        assert!(files.list_dirs("/top/cgroup.procs").is_err());
        assert!(files.list_dirs("/none").is_err());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn kept_proc_files_are_read_afresh() {
        let files = RootFiles::new("/");
        let mut buf = Vec::new();
        // the same bytes as a file opened anew, every time
        for _ in 0..3 {
            files.read_into("/proc/version", &mut buf).unwrap();
            assert_eq!(buf, std::fs::read("/proc/version").unwrap());
        }
        assert_eq!(files.kept.lock().unwrap().len(), 1);
        // a kept file says what the kernel says now: uptime (in hundredths)
        // moves on between two reads
        let uptime = |b: &[u8]| String::from_utf8_lossy(b).split(' ').next().unwrap().parse::<f64>().unwrap();
        files.read_into("/proc/uptime", &mut buf).unwrap();
        let first = uptime(&buf);
        std::thread::sleep(std::time::Duration::from_millis(50));
        files.read_into("/proc/uptime", &mut buf).unwrap();
        assert!(uptime(&buf) > first);
        // other files, and a snapshot's, are opened each time
        assert!(files.read_into("/proc/no-such-file", &mut buf).is_err());
        assert_eq!(files.kept.lock().unwrap().len(), 2);
        let snap = RootFiles::snapshot("/");
        snap.read_into("/proc/version", &mut buf).unwrap();
        assert!(snap.kept.lock().unwrap().is_empty());
    }
}
