//! Pure parsers for the /proc and /sys files behind the Linux metrics:
//! bytes in, structs out, no I/O. A field that is missing or does not read
//! as a number is `None` ("no value"), never an error or a panic.
//!
//! Each parser reads what the PCP 6.0.3 Linux PMDA reads from the same
//! file, with the same conversions (see the private `scan` module for the C number
//! rules), so the values computed from them agree with the PMDA's.

mod disk;
mod misc;
mod net;
pub mod netlink;
mod stat;

pub use disk::{
    classify_device, diskstats, io_scheduler, is_partition, partitions, scsi_id, DeviceClass, DiskCounters,
    DiskStatsLine, PartitionsLine,
};
pub use misc::{
    cpu_list_count, loadavg, meminfo, mount_fields, mounts, pmda_cache, uptime, vmstat_lines, vmstat_swap,
    vmstat_swap_end, zoneinfo_low_pages, LoadAvg, MemField, Meminfo, MountEntry, PmdaCacheEntry, Uptime, VmstatSwap,
};
pub use net::{net_dev, sysfs_oneline, NetDevLine, Snmp, SnmpReader, NET_DEV_COUNTERS};
pub use netlink::{NetLink, NetLinks};
pub use stat::{stat, CpuTimes, Stat};
