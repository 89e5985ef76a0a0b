//! /proc/diskstats and /proc/partitions: the disks (`disk.dev.*`,
//! `disk.all.*`, `hinv.ndisk`), their partitions, device-mapper and
//! multi-device devices, and multipath devices by WWID.

use super::{count32, num, LinuxSource, Need, Snap};
use crate::files::Files;
use crate::parse::{self, DeviceClass, DiskCounters};
use crate::{DISK_INDOM, DM_INDOM, MD_INDOM, PARTITIONS_INDOM, WWID_INDOM};
use pcp_core::{AtomValue, MetricType, PmError};

#[derive(Clone, Debug, Default)]
pub(super) struct DiskEntry {
    /// The name the PMDA keeps (`namebuf`: persistent for dm and md).
    name: String,
    /// The kernel name of a dm or md device (`dmname`/`mdname`).
    kname: Option<String>,
    counters: Option<DiskCounters>,
    nr_blocks: u64,
    wwid: Option<String>,
}

/// `disk.partitions.*`.
pub(super) const PARTITIONS_CLUSTER: u32 = 10;

impl<F: Files> LinuxSource<F> {
    pub(super) fn refresh_disks(&mut self, need: &Need, snap: &mut Snap) {
        for c in [&mut self.disks, &mut self.parts, &mut self.dm, &mut self.md, &mut self.zram] {
            c.deactivate_all();
        }
        // a disk's WWID is a file or two of its own to look for, only
        // where the WWID domain's metrics are asked for (its instances
        // otherwise stay as found last)
        let wwid = need.wwid;
        if wwid {
            self.wwid.deactivate_all();
        }
        let mut need_partitions = need.partitions;
        if need.diskstats {
            let read = self.with_file("/proc/diskstats", |s, text| {
                for line in parse::diskstats(text) {
                    if let Some(key) = s.disk_instance(&line.name, wwid, snap) {
                        if let Some(e) = snap.disks.get_mut(&key) {
                            e.counters = line.counters;
                        }
                    }
                }
            });
            need_partitions |= read.is_none();
        }
        // the zram devices' stat files asked for, each read once
        for (k, file) in ["io_stat", "mm_stat", "bd_stat"].iter().enumerate() {
            if !need.zram_stat[k] {
                continue;
            }
            let names: Vec<(i32, String)> = self.zram.active().map(|(i, n)| (i, n.to_owned())).collect();
            for (inst, name) in names {
                let want = [4, 8, 3][k];
                let nums = self.read(&format!("/sys/block/{name}/{file}")).and_then(|t| {
                    let mut s = crate::scan::Scan::new(&t);
                    (0..want).map(|_| s.u64()).collect::<Option<Vec<u64>>>()
                });
                snap.zram_stats.entry(inst).or_default()[k] = nums;
            }
        }
        if need_partitions {
            self.with_file("/proc/partitions", |s, text| {
                for line in parse::partitions(text) {
                    if let Some(key) = s.disk_instance(&line.name, wwid, snap) {
                        if let Some(e) = snap.disks.get_mut(&key) {
                            e.nr_blocks = line.blocks;
                            if e.counters.is_none() {
                                e.counters = Some(DiskCounters::default());
                            }
                        }
                    }
                }
            });
        }
    }

    /// Place one kernel device name in its instance domain, as
    /// `refresh_disk_indom` does; the snapshot key of its entry.
    fn disk_instance(&mut self, kname: &str, wwid: bool, snap: &mut Snap) -> Option<(u32, i32)> {
        let class = parse::classify_device(kname)?;
        let (name, dmmd) = match class {
            DeviceClass::Dm => {
                // the persistent name from sysfs; without one the PMDA
                // skips the device
                let raw = self.read(&format!("/sys/block/{kname}/dm/name"))?;
                let first = raw.split(|&b| b == b'\n').next().unwrap_or_default();
                if first.is_empty() && raw.is_empty() {
                    return None;
                }
                (String::from_utf8_lossy(first).into_owned(), Some(kname.to_owned()))
            }
            DeviceClass::Md => {
                (self.md_persistent_name(kname).unwrap_or_else(|| kname.to_owned()), Some(kname.to_owned()))
            }
            _ => (kname.to_owned(), None),
        };
        let (serial, inst) = match class {
            DeviceClass::Dm => (DM_INDOM.serial(), self.dm.add(&name)?),
            DeviceClass::Md => (MD_INDOM.serial(), self.md.add(&name)?),
            DeviceClass::Disk => (DISK_INDOM.serial(), self.disks.add(&name)?),
            DeviceClass::Wwid => (WWID_INDOM.serial(), self.wwid.add(&name)?),
            DeviceClass::Partition => (PARTITIONS_INDOM.serial(), self.parts.add(&name)?),
            DeviceClass::Zram => (super::ZRAM_INDOM.serial(), self.zram.add(&name)?),
        };
        let key = (serial, inst);
        if let Some(e) = snap.disks.get_mut(&key) {
            // seen earlier in this fetch (in /proc/diskstats, now in
            // /proc/partitions): its names and WWID are known
            e.nr_blocks = 0;
            return Some(key);
        }
        let mut id = None;
        if wwid && class == DeviceClass::Disk {
            id = self.scsi_id(&name);
            if let Some(w) = &id {
                self.wwid.add(w);
            }
        }
        let e = snap.disks.entry(key).or_default();
        e.name = name;
        e.kname = dmmd;
        e.wwid = id;
        e.nr_blocks = 0;
        Some(key)
    }

    fn md_persistent_name(&self, kname: &str) -> Option<String> {
        let names = self.files.list("/dev/md").ok()?;
        names.into_iter().find(|n| {
            !n.starts_with('.')
                && !n.as_bytes().first().is_some_and(u8::is_ascii_digit)
                && self.files.read_link(&format!("/dev/md/{n}")).is_some_and(|t| t.rsplit('/').next() == Some(kname))
        })
    }

    fn scsi_id(&self, dev: &str) -> Option<String> {
        // the device's wwid file, else (where it does not exist) the block
        // device's: reading the first answers the PMDA's question whether
        // it exists (a failure to open it that is not its absence is
        // asked again)
        let first = format!("/sys/block/{dev}/device/wwid");
        let text = match self.files.read(&first) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound || !self.files.exists(&first) => {
                self.read(&format!("/sys/block/{dev}/wwid"))?
            }
            Err(_) => return None,
        };
        let id = parse::scsi_id(&text)?;
        (!id.starts_with("unknown")).then_some(id)
    }

    fn disk_entry<'s>(&self, snap: &'s Snap, serial: u32, inst: i32) -> Result<&'s DiskEntry, PmError> {
        snap.disks.get(&(serial, inst)).ok_or(PmError::PM_ERR_INST)
    }

    pub(super) fn disk_value(
        &self,
        snap: &Snap,
        ty: MetricType,
        item: u32,
        inst: i32,
    ) -> Result<Option<AtomValue>, PmError> {
        if item == 33 {
            return Ok(Some(AtomValue::U32(count32(self.disks.active_count()))));
        }
        if DISK_ALL.contains(&item) {
            return Ok(self.disk_all(snap, ty, item));
        }
        let e = self.disk_entry(snap, DISK_INDOM.serial(), inst)?;
        if item == 103 {
            // hinv.map.scsi_id: the device's WWID, "unknown" without one
            let first = format!("/sys/block/{}/device/wwid", e.name);
            let path = if self.files.exists(&first) { first } else { format!("/sys/block/{}/wwid", e.name) };
            let id = self.read(&path).and_then(|t| parse::scsi_id(&t)).unwrap_or_else(|| "unknown".into());
            return Ok(Some(AtomValue::String(id.into_bytes())));
        }
        if item == 59 {
            let sched = self.read(&format!("/sys/block/{}/queue/scheduler", e.name));
            return Ok(Some(AtomValue::String(scheduler_name(&self.files, &e.name, sched.as_deref()))));
        }
        let Some(c) = e.counters else { return Ok(None) };
        if item == 87 {
            return Ok((e.nr_blocks != 0).then_some(AtomValue::U64(e.nr_blocks)));
        }
        Ok(dev_field(&c, item).map(|v| num(ty, v)))
    }

    fn disk_all(&self, snap: &Snap, ty: MetricType, item: u32) -> Option<AtomValue> {
        let mut sum: u64 = 0;
        for (inst, _) in self.disks.active() {
            let Some(c) = snap.disks.get(&(DISK_INDOM.serial(), inst)).and_then(|e| e.counters) else { continue };
            // the same per-device quantity as disk.dev's twin item
            let dev_item = match item {
                24 => 4,
                25 => 5,
                26 => 6,
                27 => 7,
                29 => 28,
                37 => 36,
                41 => 38,
                42 => 39,
                43 => 40,
                44 => 46,
                45 => 47,
                51 => 49,
                52 => 50,
                74 => 72,
                75 => 73,
                80 => 79,
                96 => 88,
                97 => 89,
                98 => 90,
                99 => 91,
                100 => 92,
                101 => 93,
                102 => 94,
                104 => 95,
                _ => return None,
            };
            sum = sum.wrapping_add(dev_field(&c, dev_item)?);
        }
        Some(num(ty, sum))
    }

    pub(super) fn dmmd_value(
        &self,
        snap: &Snap,
        ty: MetricType,
        cluster: u32,
        item: u32,
        inst: i32,
    ) -> Result<Option<AtomValue>, PmError> {
        let serial = if cluster == 54 { DM_INDOM.serial() } else { MD_INDOM.serial() };
        let e = self.disk_entry(snap, serial, inst)?;
        if item == 13 {
            return Ok(e.kname.clone().map(|k| AtomValue::String(k.into_bytes())));
        }
        self.block_value(e, ty, item)
    }

    /// `disk.md.status` of an md device the last read of the disks found
    /// (the PMDA reads none for it): the wait status of `mdadm --detail
    /// --test` run by the shell, -1 when the program is not readable or
    /// cannot be run.
    pub(super) fn mdadm_value(&self, item: u32, inst: i32) -> Result<Option<AtomValue>, PmError> {
        let name = self.md.name(inst).ok_or(PmError::PM_ERR_INST)?;
        if item != 0 {
            return Err(PmError::PM_ERR_PMID);
        }
        Ok(Some(AtomValue::I32(mdadm_status(&self.opts.mdadm, name))))
    }

    /// Item `item` of disk.dm (or disk.md, or disk.partitions renumbered)
    /// for one device: the capacity, or disk.dev's twin of the counter.
    fn block_value(&self, e: &DiskEntry, ty: MetricType, item: u32) -> Result<Option<AtomValue>, PmError> {
        if item == 17 {
            return Ok((e.nr_blocks != 0).then_some(AtomValue::U64(e.nr_blocks)));
        }
        let Some(c) = e.counters else { return Ok(None) };
        // disk.{dm,md} items in the order of disk.dev's twins
        let dev_item = match item {
            0 => 4,
            1 => 5,
            2 => 28,
            3 => 6,
            4 => 7,
            5 => 36,
            6 => 38,
            7 => 39,
            8 => 40,
            9 => 49,
            10 => 50,
            11 => 46,
            12 => 47,
            14 => 72,
            15 => 73,
            16 => 79,
            18 => 88,
            19 => 89,
            20 => 90,
            21 => 91,
            22 => 92,
            23 => 93,
            24 => 94,
            25 => 95,
            _ => return Err(PmError::PM_ERR_PMID),
        };
        Ok(dev_field(&c, dev_item).map(|v| num(ty, v)))
    }

    pub(super) fn wwid_value(
        &self,
        snap: &Snap,
        ty: MetricType,
        item: u32,
        inst: i32,
    ) -> Result<Option<AtomValue>, PmError> {
        let Some(wwid) = self.wwid.name(inst) else { return Err(PmError::PM_ERR_INST) };
        let mut sum: u64 = 0;
        let mut text: Option<Vec<u8>> = None;
        for (dinst, _) in self.disks.active() {
            let Some(e) = snap.disks.get(&(DISK_INDOM.serial(), dinst)) else { continue };
            if e.wwid.as_deref() != Some(wwid) {
                continue;
            }
            match item {
                3 => {
                    let t = text.get_or_insert_with(Vec::new);
                    if !t.is_empty() {
                        t.push(b' ');
                    }
                    t.extend_from_slice(e.name.as_bytes());
                    t.truncate(1023);
                }
                59 => {
                    let sched = self.read(&format!("/sys/block/{}/queue/scheduler", e.name));
                    text = Some(scheduler_name(&self.files, &e.name, sched.as_deref()));
                }
                87 => {
                    if e.nr_blocks == 0 {
                        return Ok(None);
                    }
                    sum = sum.wrapping_add(e.nr_blocks);
                }
                _ => {
                    let Some(c) = e.counters else { continue };
                    let v = dev_field(&c, item).ok_or(PmError::PM_ERR_PMID)?;
                    // these the PMDA adds (or, for discard_bytes, sets) in
                    // the 32-bit half of its value
                    sum = match item {
                        90 => v as u32 as u64,
                        88 | 89 | 91 | 93 => (sum as u32).wrapping_add(v as u32) as u64,
                        _ => sum.wrapping_add(v),
                    };
                }
            }
        }
        Ok(Some(match item {
            3 | 59 => match text {
                Some(t) => AtomValue::String(t),
                // no path: the PMDA's value is a NULL string
                None => return Ok(None),
            },
            _ => num(ty, sum),
        }))
    }

    /// `disk.partitions.*`: disk.dm's items without its item 13.
    pub(super) fn partitions_value(
        &self,
        snap: &Snap,
        ty: MetricType,
        item: u32,
        inst: i32,
    ) -> Result<Option<AtomValue>, PmError> {
        let e = self.disk_entry(snap, PARTITIONS_INDOM.serial(), inst)?;
        self.block_value(e, ty, if item < 13 { item } else { item + 1 })
    }
}

impl<F: Files> LinuxSource<F> {
    /// A `zram.*` value (cluster 86): disk.partitions' twin, the capacity
    /// from the device's `disksize` (kilobytes).
    pub(super) fn zram_value(
        &self,
        snap: &Snap,
        ty: MetricType,
        item: u32,
        inst: i32,
    ) -> Result<Option<AtomValue>, PmError> {
        let e = self.disk_entry(snap, super::ZRAM_INDOM.serial(), inst)?;
        if item == 16 {
            let size = self
                .read(&format!("/sys/block/{}/disksize", e.name))
                .and_then(|t| crate::scan::Scan::new(&t).u64())
                .map_or(e.nr_blocks, |b| b >> 10);
            return Ok(Some(AtomValue::U64(size)));
        }
        self.block_value(e, ty, if item < 13 { item } else { item + 1 })
    }

    /// A `zram.{io_stat,mm_stat,bd_stat}.*` value (clusters 87 to 89): no
    /// values where the device's file is missing or short; sizes in
    /// kilobytes (bytes shifted, 4 KB pages scaled), as the PMDA has them.
    pub(super) fn zram_stat_value(
        &self,
        snap: &Snap,
        cluster: u32,
        item: u32,
        inst: i32,
    ) -> Result<Option<AtomValue>, PmError> {
        self.disk_entry(snap, super::ZRAM_INDOM.serial(), inst)?;
        let k = (cluster - 87) as usize;
        let Some(Some(nums)) = snap.zram_stats.get(&inst).map(|s| &s[k]) else { return Ok(None) };
        let v = *nums.get(item as usize).ok_or(PmError::PM_ERR_PMID)?;
        Ok(Some(AtomValue::U64(match (cluster, item) {
            (88, 0..=4) => v >> 10,
            (88, _) | (89, _) => v << 2,
            _ => v,
        })))
    }
}

/// disk.all items (cluster 0).
const DISK_ALL: [u32; 24] =
    [24, 25, 26, 27, 29, 37, 41, 42, 43, 44, 45, 51, 52, 74, 75, 80, 96, 97, 98, 99, 100, 101, 102, 104];

/// Is cluster-0 `item` one of the disk metrics (read from /proc/diskstats)?
pub(super) fn is_disk_item(item: u32) -> bool {
    matches!(item, 4..=7 | 28 | 33 | 36 | 38..=40 | 46 | 47 | 49 | 50 | 59 | 72 | 73 | 79 | 87..=95 | 103)
        || DISK_ALL.contains(&item)
}

/// The per-device quantity behind a disk.dev item (sectors halved to
/// kilobytes, 32-bit times added in 32 bits, as the PMDA does).
fn dev_field(c: &DiskCounters, item: u32) -> Option<u64> {
    Some(match item {
        4 => c.rd_ios,
        5 => c.wr_ios,
        6 => c.rd_sectors,
        7 => c.wr_sectors,
        28 => c.rd_ios.wrapping_add(c.wr_ios),
        36 => c.rd_sectors.wrapping_add(c.wr_sectors),
        38 => c.rd_sectors / 2,
        39 => c.wr_sectors / 2,
        40 => c.rd_sectors.wrapping_add(c.wr_sectors) / 2,
        46 => u64::from(c.io_ticks),
        47 => u64::from(c.aveq),
        49 => c.rd_merges,
        50 => c.wr_merges,
        72 => u64::from(c.rd_ticks),
        73 => u64::from(c.wr_ticks),
        79 => u64::from(c.rd_ticks.wrapping_add(c.wr_ticks)),
        88 => c.ds_ios,
        89 => c.ds_sectors,
        90 => c.ds_sectors / 2,
        91 => c.ds_merges,
        92 => u64::from(c.ds_ticks),
        93 => c.fl_ios,
        94 => u64::from(c.fl_ticks),
        95 => u64::from(c.ios_in_flight),
        _ => return None,
    })
}

/// The I/O scheduler of a device: the bracketed name, or what the
/// directory layout of kernels without the scheduler file suggests.
fn scheduler_name(files: &dyn FilesDyn, dev: &str, sched: Option<&[u8]>) -> Vec<u8> {
    if let Some(text) = sched {
        return parse::io_scheduler(text).map_or_else(|| b"unknown".to_vec(), <[u8]>::to_vec);
    }
    let q = format!("/sys/block/{dev}/queue/iosched");
    for (file, name) in [("quantum", "cfq"), ("fifo_batch", "deadline"), ("antic_expire", "anticipatory")] {
        if files.exists_dyn(&format!("{q}/{file}")) {
            return name.as_bytes().to_vec();
        }
    }
    if files.exists_dyn(&q) {
        return b"noop".to_vec();
    }
    b"unknown".to_vec()
}

/// Object-safe access to [`Files::exists`] for the helpers above.
trait FilesDyn {
    fn exists_dyn(&self, path: &str) -> bool;
}

impl<F: Files> FilesDyn for F {
    fn exists_dyn(&self, path: &str) -> bool {
        self.exists(path)
    }
}

/// The PMDA's `refresh_mdadm`: `mdadm --detail --test /dev/NAME` through
/// the shell with its output to a pipe closed unread (`popen` and
/// `pclose`: what the program writes may kill it), as a wait status.
fn mdadm_status(mdadm: &std::path::Path, name: &str) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    if rustix::fs::access(mdadm, rustix::fs::Access::READ_OK).is_err() {
        return -1;
    }
    let command = format!("{} --detail --test /dev/{name} 2>&1 >/dev/null", mdadm.display());
    let Ok(mut child) =
        std::process::Command::new("/bin/sh").arg("-c").arg(command).stdout(std::process::Stdio::piped()).spawn()
    else {
        return -1;
    };
    drop(child.stdout.take());
    child.wait().map_or(-1, |s| s.into_raw())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::testkit::*;

    #[test]
    fn disks_wwids_are_looked_for_only_where_their_domain_is_asked_for() {
        let mut src = source(None);
        let line = "   8       0 sda 10 0 80 5 20 0 160 7 0 12 12 0 0 0 0 0 0\n";
        src.files.files.insert("/proc/diskstats".into(), line.into());
        src.files.files.insert("/sys/block/sda/device/wwid".into(), b"naa.5000c500a1b2c3d4\n".to_vec());
        let wwid_reads =
            |src: &LinuxSource<Mem>| src.files.reads.borrow().iter().filter(|p| p.ends_with("wwid")).count();
        let ten = vec![(0, Value::from_atom(&AtomValue::U64(10)))];
        assert_eq!(values(&mut src, "disk.dev.read"), ten);
        assert_eq!(wwid_reads(&src), 0);
        assert_eq!(values(&mut src, "disk.wwid.read"), ten);
        assert_eq!(wwid_reads(&src), 1);
        assert_eq!(src.instances(WWID_INDOM).unwrap(), vec![(0, "35000c500a1b2c3d4".to_string())]);
        assert_eq!(wwid_reads(&src), 2);
        // the device's file gone: the block device's is read in its stead
        src.files.files.remove("/sys/block/sda/device/wwid");
        assert_eq!(src.instances(WWID_INDOM).unwrap(), vec![]);
        let reads = src.files.reads.borrow().clone();
        assert_eq!(reads[reads.len() - 2..], ["/sys/block/sda/device/wwid", "/sys/block/sda/wwid"]);
    }

    #[test]
    fn partitions_have_their_own_instance_domain() {
        let u = |v: &[(i32, u64)]| -> Vec<(i32, Value)> {
            v.iter().map(|&(i, x)| (i, Value::from_atom(&AtomValue::U64(x)))).collect()
        };
        let mut src = source(None);
        src.files.files.insert(
            "/proc/diskstats".into(),
            [
                " 253 0 vda 100 2 3000 40 200 5 6000 70 0 90 110 7 0 80 8 1 9\n",
                " 253 1 vda1 10 0 300 4 20 1 600 7 0 9 11 0 0 0 0 0 0\n",
                " 253 2 vda2 30 0 500 4 20 1 600 7 0 9 11 0 0 0 0 0 0\n",
            ]
            .concat()
            .into_bytes(),
        );
        src.files.files.insert("/proc/partitions".into(), b"major minor #blocks name\n\n 253 1 1024 vda1\n".to_vec());
        assert_eq!(src.instances(PARTITIONS_INDOM).unwrap(), [(0, "vda1".to_string()), (1, "vda2".to_string())]);
        assert_eq!(src.instances(DISK_INDOM).unwrap(), [(0, "vda".to_string())]);
        assert_eq!(values(&mut src, "disk.partitions.read"), u(&[(0, 10), (1, 30)]));
        assert_eq!(values(&mut src, "disk.partitions.blkread"), u(&[(0, 300), (1, 500)]));
        assert_eq!(values(&mut src, "disk.partitions.capacity"), u(&[(0, 1024)]));
        // partitions count in neither the disks nor their totals
        assert_eq!(values(&mut src, "disk.all.read"), u(&[(-1, 100)]));
        assert_eq!(values(&mut src, "disk.dev.read"), u(&[(0, 100)]));
    }
}
