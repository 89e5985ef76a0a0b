//! The mounted block-device file systems (/proc/self/mounts and
//! statfs(2)): `filesys.*` and `hinv.nfilesys`; and the mounted memory
//! file systems, `tmpfs.*`.

use super::{count32, LinuxSource, Snap};
use crate::files::Files;
use crate::parse;
use pcp_core::{AtomValue, PmError};

#[derive(Clone, Debug)]
pub(super) struct FsEntry {
    path: String,
    options: String,
}

impl<F: Files> LinuxSource<F> {
    /// The mount table, and `statfs` of the file systems of the kinds
    /// asked for (block devices', `filesys`; memory ones, `tmpfs`).
    pub(super) fn refresh_filesys(&mut self, snap: &mut Snap, filesys: bool, tmpfs: bool) {
        match &self.mounted {
            // the kernel says the mount table is as it was when read: the
            // file systems (and their instances) are the ones found then
            Some((fs, tmp)) if self.files.mounts_unchanged() => (snap.fs, snap.tmpfs) = (fs.clone(), tmp.clone()),
            _ => {
                self.filesys.deactivate_all();
                self.tmpfs.deactivate_all();
                let mut text = std::mem::take(&mut self.scratch);
                let read = self.files.read_into("/proc/self/mounts", &mut text).is_ok();
                if read {
                    self.filesys_mounts(&text, snap);
                }
                self.scratch = text;
                self.mounted = read.then(|| (snap.fs.clone(), snap.tmpfs.clone()));
            }
        }
        if filesys {
            for (inst, e) in &snap.fs {
                snap.statfs.insert(*inst, self.files.statfs(&e.path).ok());
            }
        }
        if tmpfs {
            for (inst, e) in &snap.tmpfs {
                snap.tmpfs_statfs.insert(*inst, self.files.statfs(&e.path).ok());
            }
        }
    }

    fn filesys_mounts(&mut self, text: &[u8], snap: &mut Snap) {
        // (compared as bytes: what is not UTF-8 matches none of these
        // names, as its lossy conversion would not)
        for [dev, path, fstype, options] in parse::mount_fields(text) {
            const SKIP: [&[u8]; 11] = [
                b"proc",
                b"nfs",
                b"devfs",
                b"devpts",
                b"devtmpfs",
                b"squashfs",
                b"selinuxfs",
                b"securityfs",
                b"configfs",
                b"cgroup",
                b"sysfs",
            ];
            if SKIP.contains(&fstype) || fstype.starts_with(b"auto") {
                continue;
            }
            let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            if fstype == b"tmpfs" {
                // a memory file system, known by where it is mounted
                let mut dir = lossy(path);
                if let Some(real) = self.files.realpath(&dir) {
                    dir = real;
                }
                if self.tmpfs.lookup(&dir).is_some() {
                    continue;
                }
                if let Some(inst) = self.tmpfs.add(&dir) {
                    snap.tmpfs.insert(inst, FsEntry { path: lossy(path), options: lossy(options) });
                }
                continue;
            }
            if !dev.starts_with(b"/dev") && path != b"/" {
                continue;
            }
            let mut device = lossy(dev);
            if !device.starts_with("/dev/mapper") && !device.starts_with("/dev/md") {
                if let Some(real) = self.files.realpath(&device) {
                    device = real;
                }
            }
            if self.filesys.lookup(&device).is_some() {
                // a repeated mount of the same device: the first counts
                continue;
            }
            if let Some(inst) = self.filesys.add(&device) {
                snap.fs.insert(inst, FsEntry { path: lossy(path), options: lossy(options) });
            }
        }
    }

    pub(super) fn fs_value(&self, snap: &Snap, item: u32, inst: i32) -> Result<Option<AtomValue>, PmError> {
        if item == 0 {
            return Ok(Some(AtomValue::U32(count32(self.filesys.active_count()))));
        }
        let Some(e) = snap.fs.get(&inst) else { return Err(PmError::PM_ERR_INST) };
        let Some(Some(s)) = snap.statfs.get(&inst) else { return Err(PmError::PM_ERR_INST) };
        let kb = |blocks: u64| blocks.wrapping_mul(s.bsize) / 1024;
        let used = s.blocks.wrapping_sub(s.bfree);
        Ok(Some(match item {
            1 => AtomValue::U64(kb(s.blocks)),
            2 => AtomValue::U64(kb(used)),
            3 => AtomValue::U64(kb(s.bfree)),
            4 => AtomValue::U32(s.files as u32),
            5 => AtomValue::U32(s.files.wrapping_sub(s.ffree) as u32),
            6 => AtomValue::U32(s.ffree as u32),
            7 => AtomValue::String(e.path.clone().into_bytes()),
            8 => AtomValue::Double(100.0 * used as f64 / used.wrapping_add(s.bavail) as f64),
            9 => AtomValue::U32(s.bsize as u32),
            10 => AtomValue::U64(kb(s.bavail)),
            11 => {
                // the PMDA looks at the first 127 bytes of the options
                let opts = e.options.as_bytes();
                let opts = &opts[..opts.len().min(127)];
                AtomValue::U32(u32::from(opts.split(|&b| b == b',').any(|o| o == b"ro")))
            }
            _ => return Err(PmError::PM_ERR_PMID),
        }))
    }
}

impl<F: Files> LinuxSource<F> {
    /// A `tmpfs.*` value (cluster 34).
    pub(super) fn tmpfs_value(&self, snap: &Snap, item: u32, inst: i32) -> Result<Option<AtomValue>, PmError> {
        let Some(Some(s)) = snap.tmpfs_statfs.get(&inst) else { return Err(PmError::PM_ERR_INST) };
        let kb = |blocks: u64| blocks.wrapping_mul(s.bsize) / 1024;
        let used = s.blocks.wrapping_sub(s.bfree);
        Ok(Some(match item {
            1 => AtomValue::U64(kb(s.blocks)),
            2 => AtomValue::U64(kb(used)),
            3 => AtomValue::U64(kb(s.bfree)),
            4 => AtomValue::U32(s.files as u32),
            5 => AtomValue::U32(s.files.wrapping_sub(s.ffree) as u32),
            6 => AtomValue::U32(s.ffree as u32),
            7 => AtomValue::Double(100.0 * used as f64 / used.wrapping_add(s.bavail) as f64),
            _ => return Err(PmError::PM_ERR_PMID),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::testkit::*;

    #[test]
    fn mount_table_is_read_again_only_when_it_may_have_changed() {
        let dirs = |src: &mut LinuxSource<Mem>| values(src, "filesys.mountdir");
        let at = |v: &[(i32, &str)]| -> Vec<(i32, Value)> {
            v.iter().map(|&(i, d)| (i, Value::from_atom(&AtomValue::String(d.as_bytes().to_vec())))).collect()
        };
        let mut src = source(None);
        let one = "/dev/vda / ext4 rw 0 0\nproc /proc proc rw 0 0\n";
        let two = "/dev/vda / ext4 rw 0 0\n/dev/vdb /data xfs rw 0 0\n";
        src.files.files.insert("/proc/self/mounts".into(), one.into());
        // a first read, whatever poll says
        src.files.mounts_unchanged = true;
        assert_eq!(dirs(&mut src), at(&[(0, "/")]));
        // unchanged: what was found stands, the file is not read
        src.files.files.insert("/proc/self/mounts".into(), two.into());
        assert_eq!(dirs(&mut src), at(&[(0, "/")]));
        // changed (or not known): read again
        src.files.mounts_unchanged = false;
        assert_eq!(dirs(&mut src), at(&[(0, "/"), (1, "/data")]));
        src.files.mounts_unchanged = true;
        src.files.files.insert("/proc/self/mounts".into(), one.into());
        assert_eq!(dirs(&mut src), at(&[(0, "/"), (1, "/data")]));
        // a mount table that cannot be read is not kept as known
        src.files.mounts_unchanged = false;
        src.files.files.remove("/proc/self/mounts");
        let pmid = crate::metric_by_name("filesys.mountdir").map(|m| m.pmid).unwrap();
        let r = src.fetch(&[pmid], Timestamp::default(), &|_, _| true);
        assert!(r.sets[0].values.as_ref().map_or(true, Vec::is_empty), "{:?}", r.sets[0]);
        src.files.mounts_unchanged = true;
        src.files.files.insert("/proc/self/mounts".into(), one.into());
        assert_eq!(dirs(&mut src), at(&[(0, "/")]));
    }
}
