//! Where the files come from: the I/O edge, kept behind one trait so the
//! rest reads a live system or a committed snapshot alike.

use std::io;
use std::path::{Path, PathBuf};

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
    /// The names in a directory (without `.` and `..`), in directory order.
    fn list(&self, dir: &str) -> io::Result<Vec<String>>;
    /// Does the path exist (`access(F_OK)`)?
    fn exists(&self, path: &str) -> bool;
    /// The path with symbolic links resolved (`realpath`).
    fn realpath(&self, path: &str) -> Option<String>;
    /// A symbolic link's target (`readlink`).
    fn read_link(&self, path: &str) -> Option<String>;
    /// `statfs` of a mount point.
    fn statfs(&self, path: &str) -> io::Result<FsStats>;
}

/// The files under a root directory: `/` for the running system, or a
/// snapshot directory. In snapshot mode `statfs` answers come from the
/// file `statfs` at the root (lines of `mountpoint bsize blocks bfree
/// bavail files ffree`, as `stat -f -c '%n %s %b %f %a %c %d'` prints
/// them) instead of the system call.
#[derive(Clone, Debug)]
pub struct RootFiles {
    root: PathBuf,
    statfs_table: Option<Vec<(String, FsStats)>>,
}

impl RootFiles {
    /// The running system's files under `root` (normally `/`).
    pub fn new(root: impl Into<PathBuf>) -> RootFiles {
        RootFiles { root: root.into(), statfs_table: None }
    }

    /// A snapshot directory, `statfs` answered from its `statfs` file.
    pub fn snapshot(root: impl Into<PathBuf>) -> RootFiles {
        let root = root.into();
        let table = std::fs::read(root.join("statfs")).map(|t| parse_statfs_table(&t)).unwrap_or_default();
        RootFiles { root, statfs_table: Some(table) }
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn at(&self, path: &str) -> PathBuf {
        self.root.join(path.trim_start_matches('/'))
    }

    fn strip_root(&self, p: &Path) -> Option<String> {
        let root = std::fs::canonicalize(&self.root).ok()?;
        let rel = p.strip_prefix(&root).ok()?;
        Some(format!("/{}", rel.to_str()?))
    }
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
        // not fs::read: /proc and /sys files report no useful size, so
        // skip its metadata call and read into a page-sized buffer
        use std::io::Read;
        let mut buf = Vec::with_capacity(4096);
        std::fs::File::open(self.at(path))?.read_to_end(&mut buf)?;
        Ok(buf)
    }

    fn list(&self, dir: &str) -> io::Result<Vec<String>> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(self.at(dir))? {
            out.push(e?.file_name().to_string_lossy().into_owned());
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
}
