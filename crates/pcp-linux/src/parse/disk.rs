//! /proc/diskstats, /proc/partitions, and the device naming rules the
//! Linux PMDA sorts block devices by.

use crate::scan::{lines, Scan};

/// The counters of one /proc/diskstats line, as the PMDA keeps them
/// (sectors are 512 bytes; times are milliseconds).
#[doc(alias = "partitions_entry_t")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiskCounters {
    /// Reads completed.
    pub rd_ios: u64,
    /// Reads merged.
    pub rd_merges: u64,
    /// Sectors read.
    pub rd_sectors: u64,
    /// Milliseconds spent reading.
    pub rd_ticks: u32,
    /// Writes completed.
    pub wr_ios: u64,
    /// Writes merged.
    pub wr_merges: u64,
    /// Sectors written.
    pub wr_sectors: u64,
    /// Milliseconds spent writing.
    pub wr_ticks: u32,
    /// I/Os in progress.
    pub ios_in_flight: u32,
    /// Milliseconds spent doing I/O.
    pub io_ticks: u32,
    /// Weighted milliseconds spent doing I/O.
    pub aveq: u32,
    /// Discards completed.
    pub ds_ios: u64,
    /// Discards merged.
    pub ds_merges: u64,
    /// Sectors discarded.
    pub ds_sectors: u64,
    /// Milliseconds spent discarding.
    pub ds_ticks: u32,
    /// Flushes completed.
    pub fl_ios: u64,
    /// Milliseconds spent flushing.
    pub fl_ticks: u32,
}

/// One line of /proc/diskstats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiskStatsLine {
    /// Device major number.
    pub major: i32,
    /// Device minor number.
    pub minor: i32,
    /// The kernel's device name.
    pub name: String,
    /// The counters, `None` when the line has too few of them to read.
    pub counters: Option<DiskCounters>,
}

/// Parse /proc/diskstats. As in the PMDA, only lines that start with a
/// space count (the kernel right-aligns the major number in four
/// columns), and a line needs its major, minor and name.
///
/// Kernels before 2.6.25 print four counters for partitions; 4.18 added
/// the four discard counters and 5.5 the two flush counters: counters a
/// line lacks are zero, as the PMDA has them.
///
/// ```
/// use pcp_linux::parse::diskstats;
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshot/vm1/proc/diskstats");
/// let lines = diskstats(&std::fs::read(path).unwrap());
/// let vda = lines.iter().find(|l| l.name == "vda").unwrap();
/// assert_eq!((vda.major, vda.minor), (254, 0));
/// let c = vda.counters.unwrap();
/// assert_eq!((c.rd_ios, c.rd_sectors, c.wr_ios, c.fl_ios), (217375, 18276458, 533892, 2200));
///
/// // a 4.17 kernel's line: no discard or flush counters
/// let old = diskstats(b"   8       0 sda 1 2 3 4 5 6 7 8 0 9 10\n");
/// assert_eq!((old[0].counters.unwrap().wr_ios, old[0].counters.unwrap().ds_ios), (5, 0));
/// ```
#[doc(alias = "refresh_diskstats")]
pub fn diskstats(text: &[u8]) -> Vec<DiskStatsLine> {
    let mut out = Vec::new();
    for l in lines(text) {
        if l.first() != Some(&b' ') {
            continue;
        }
        let mut s = Scan::new(l);
        let (Some(major), Some(minor), Some(name)) = (s.i32(), s.i32(), s.word()) else { continue };
        let name = String::from_utf8_lossy(name).into_owned();
        let mut v = [0u64; 17];
        let mut n = 0;
        for slot in &mut v {
            match s.u64() {
                Some(x) => *slot = x,
                None => break,
            }
            n += 1;
        }
        // ticks and the in-flight count are read as 32-bit %u
        let t = |x: u64| x as u32;
        let counters = if n >= 11 {
            let mut c = DiskCounters {
                rd_ios: v[0],
                rd_merges: v[1],
                rd_sectors: v[2],
                rd_ticks: t(v[3]),
                wr_ios: v[4],
                wr_merges: v[5],
                wr_sectors: v[6],
                wr_ticks: t(v[7]),
                ios_in_flight: t(v[8]),
                io_ticks: t(v[9]),
                aveq: t(v[10]),
                ds_ios: v[11],
                ds_merges: v[12],
                ds_sectors: v[13],
                ds_ticks: t(v[14]),
                fl_ios: v[15],
                fl_ticks: t(v[16]),
            };
            if n < 15 {
                (c.ds_ios, c.ds_merges, c.ds_sectors, c.ds_ticks) = (0, 0, 0, 0);
            }
            if n < 17 {
                (c.fl_ios, c.fl_ticks) = (0, 0);
            }
            Some(c)
        } else if n >= 4 {
            // the short partition form: reads, sectors read, writes,
            // sectors written (32-bit)
            Some(DiskCounters {
                rd_ios: u64::from(t(v[0])),
                rd_sectors: u64::from(t(v[1])),
                wr_ios: u64::from(t(v[2])),
                wr_sectors: u64::from(t(v[3])),
                rd_ticks: t(v[3]),
                ..DiskCounters::default()
            })
        } else {
            None
        };
        out.push(DiskStatsLine { major, minor, name, counters });
    }
    out
}

/// One line of /proc/partitions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionsLine {
    /// Device major number.
    pub major: i32,
    /// Device minor number.
    pub minor: i32,
    /// Size in 1024-byte blocks.
    pub blocks: u64,
    /// The kernel's device name.
    pub name: String,
}

/// Parse /proc/partitions (lines starting with a space: major, minor,
/// blocks, name).
pub fn partitions(text: &[u8]) -> Vec<PartitionsLine> {
    let mut out = Vec::new();
    for l in lines(text) {
        if l.first() != Some(&b' ') {
            continue;
        }
        let mut s = Scan::new(l);
        let (Some(major), Some(minor), Some(blocks), Some(name)) = (s.i32(), s.i32(), s.u64(), s.word()) else {
            continue;
        };
        out.push(PartitionsLine { major, minor, blocks, name: String::from_utf8_lossy(name).into_owned() });
    }
    out
}

fn has_p_after(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix).is_some_and(|rest| rest.contains('p'))
}

fn whole_unless_p(name: &str, prefix: &str) -> bool {
    name.starts_with(prefix) && !has_p_after(name, prefix)
}

fn is_cdrom(name: &str) -> bool {
    name.starts_with("sr") && name.as_bytes().get(2).is_some_and(u8::is_ascii_digit)
}

/// The PMDA's guess whether a device name is a partition (`sda1`,
/// `nvme0n1p1`, `rd/c0d0p1`) rather than a whole device.
#[doc(alias = "_pm_ispartition")]
pub fn is_partition(name: &str) -> bool {
    let b = name.as_bytes();
    let Some(&last) = b.last() else { return false };
    if name.contains('/') {
        let m = b.len() - 1;
        let mut p = m;
        while p > 0 && b[p].is_ascii_digit() {
            p -= 1;
        }
        // no trailing digits: a disk is the PMDA's wild guess, yet it
        // answers "partition" here; keep its answer
        return p == m || b[p] == b'p';
    }
    last.is_ascii_digit()
        && !name.starts_with("loop")
        && !name.starts_with("ram")
        && !whole_unless_p(name, "mmcblk")
        && !whole_unless_p(name, "nvme")
        && !whole_unless_p(name, "rbd")
        && !name.starts_with("zram")
        && !whole_unless_p(name, "nbd")
        && !name.starts_with("md")
        && !name.starts_with("dm-")
        && !is_cdrom(name)
}

fn is_wwid_name(name: &str) -> bool {
    name.len() == 18 && matches!(name.as_bytes().first(), Some(b'1' | b'2' | b'3'))
}

/// Which instance domain a block device belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceClass {
    /// Device-mapper (`dm-N`): `disk.dm.*`.
    Dm,
    /// Multi-device (`mdN`): `disk.md.*`.
    Md,
    /// A partition: `disk.partitions.*`.
    Partition,
    /// A whole disk: `disk.dev.*`.
    Disk,
    /// Compressed RAM (`zramN`).
    Zram,
    /// A name shaped like a multipath WWID.
    Wwid,
}

/// Sort a device name as the PMDA does; `None` for devices it ignores
/// (loop devices, RAM disks, CD-ROMs, ...).
#[doc(alias = "refresh_disk_indom")]
pub fn classify_device(name: &str) -> Option<DeviceClass> {
    if name.starts_with("dm-") {
        Some(DeviceClass::Dm)
    } else if name.starts_with("md") {
        Some(DeviceClass::Md)
    } else if is_partition(name) {
        Some(DeviceClass::Partition)
    } else if !name.starts_with("loop")
        && !name.starts_with("ram")
        && !is_cdrom(name)
        && !name.starts_with("zram")
        && !name.contains("xvm")
        && !is_wwid_name(name)
    {
        Some(DeviceClass::Disk)
    } else if name.starts_with("zram") {
        Some(DeviceClass::Zram)
    } else if is_wwid_name(name) {
        Some(DeviceClass::Wwid)
    } else {
        None
    }
}

/// The active I/O scheduler in the first line of
/// `/sys/block/DEV/queue/scheduler` (`none [mq-deadline] kyber`): the text
/// in brackets, or `None` when there is none.
#[doc(alias = "_pm_ioscheduler")]
pub fn io_scheduler(text: &[u8]) -> Option<&[u8]> {
    let line = text.split(|&b| b == b'\n').next().unwrap_or_default();
    let close = line.iter().position(|&b| b == b']')?;
    let open = line[..close].iter().rposition(|&b| b == b'[')?;
    Some(&line[open + 1..close])
}

/// A SCSI device's WWID from `/sys/block/DEV/device/wwid` as the PMDA
/// renders it: the last byte read is dropped (the newline), the text is cut
/// at its last newline, and the `t10.`, `eui.` and `naa.` prefixes become
/// the digits 1, 2 and 3.
#[doc(alias = "_pm_scsi_id")]
pub fn scsi_id(raw: &[u8]) -> Option<String> {
    let raw = raw.get(..raw.len().min(1024))?;
    let mut buf = raw.get(..raw.len().checked_sub(1)?)?;
    if let Some(nl) = buf.iter().rposition(|&b| b == b'\n') {
        buf = &buf[..nl];
    }
    // a NUL in the file ends the C string
    if let Some(z) = buf.iter().position(|&b| b == 0) {
        buf = &buf[..z];
    }
    let text = String::from_utf8_lossy(buf);
    for (prefix, digit) in [("t10.", '1'), ("eui.", '2'), ("naa.", '3')] {
        if let Some(rest) = text.strip_prefix(prefix) {
            return Some(format!("{digit}{rest}"));
        }
    }
    Some(text.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diskstats_lines() {
        let d = diskstats(
            b"   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n \
              254       0 vda 216487 42844 17694050 75511 508759 458266 512153776 3453884 0 321192 3701637 575968 33 459487248 172154 2164 86\n\
              1000 0 skipped 1 2 3 4 5 6 7 8 9 10 11\n   8 1 sda1 10 20 30 40\n   8 2 sdz 1\n",
        );
        assert_eq!(d.len(), 4);
        let v = d[1].counters.unwrap();
        assert_eq!((d[1].major, d[1].name.as_str()), (254, "vda"));
        assert_eq!(
            (v.rd_ios, v.rd_ticks, v.aveq, v.ds_sectors, v.fl_ios, v.fl_ticks),
            (216487, 75511, 3701637, 459487248, 2164, 86)
        );
        let p = d[2].counters.unwrap();
        assert_eq!((p.rd_ios, p.rd_sectors, p.wr_ios, p.wr_sectors, p.rd_merges), (10, 20, 30, 40, 0));
        assert_eq!(d[3].counters, None);
        // 14 fields: no discard or flush counters
        let old = diskstats(b"   8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n");
        let o = old[0].counters.unwrap();
        assert_eq!((o.aveq, o.ds_ios, o.fl_ios), (11, 0, 0));
    }

    #[test]
    fn device_classes() {
        assert_eq!(classify_device("vda"), Some(DeviceClass::Disk));
        assert_eq!(classify_device("sda1"), Some(DeviceClass::Partition));
        assert_eq!(classify_device("nvme0n1"), Some(DeviceClass::Disk));
        assert_eq!(classify_device("nvme0n1p2"), Some(DeviceClass::Partition));
        assert_eq!(classify_device("loop0"), None);
        assert_eq!(classify_device("sr0"), None);
        assert_eq!(classify_device("zram0"), Some(DeviceClass::Zram));
        assert_eq!(classify_device("dm-0"), Some(DeviceClass::Dm));
        assert_eq!(classify_device("md127"), Some(DeviceClass::Md));
        assert_eq!(classify_device("rd/c0d0"), Some(DeviceClass::Disk));
        assert_eq!(classify_device("rd/c0d0p1"), Some(DeviceClass::Partition));
        // no trailing digits after a slash: the PMDA answers "partition"
        assert_eq!(classify_device("rd/abc"), Some(DeviceClass::Partition));
        assert_eq!(classify_device("36000000000000000a"), Some(DeviceClass::Wwid));
        // ending in a digit, it is taken for a partition first
        assert_eq!(classify_device("360000000000000001"), Some(DeviceClass::Partition));
        assert_eq!(classify_device(""), Some(DeviceClass::Disk));
    }

    #[test]
    fn scheduler_and_wwid() {
        assert_eq!(io_scheduler(b"none [mq-deadline] kyber bfq \n"), Some(&b"mq-deadline"[..]));
        assert_eq!(io_scheduler(b"none"), None);
        assert_eq!(io_scheduler(b"a ] [b]"), None);
        assert_eq!(scsi_id(b"naa.600a\n").as_deref(), Some("3600a"));
        assert_eq!(scsi_id(b"t10.ATA X\n").as_deref(), Some("1ATA X"));
        assert_eq!(scsi_id(b"abc\n").as_deref(), Some("abc"));
        assert_eq!(scsi_id(b""), None);
    }

    #[test]
    fn partitions_lines() {
        let p = partitions(b"major minor  #blocks  name\n\n 254        0  268435456 vda\n 8 0 x\n");
        assert_eq!(p, vec![PartitionsLine { major: 254, minor: 0, blocks: 268435456, name: "vda".into() }]);
    }
}
