//! Small kernel files: /proc/sys/kernel's entropy, `pid_max` and pty
//! count (`kernel.all.entropy.*`, `kernel.all.pid_max`,
//! `kernel.all.nptys`), /proc/sys/fs's file, inode, dentry and AIO counts
//! (`vfs.files.*`, `vfs.inodes.*`, `vfs.dentry.*`, `vfs.aio.*`) and
//! /proc/pressure (`kernel.all.pressure.*`) and /proc/locks
//! (`vfs.locks.*`).

use super::area::{Area, Reader};
use crate::scan::{lines, Scan};
use crate::MetricDef;
use pcp_core::{AtomValue, PmError};

/// /proc/sys/kernel (`CLUSTER_SYS_KERNEL`).
const SYS_KERNEL: u32 = 72;
/// /proc/sys/fs (`CLUSTER_VFS`).
const VFS: u32 = 27;
/// /proc/pressure/cpu, memory, io and irq.
const PRESSURE_CPU: u32 = 83;
const PRESSURE_MEM: u32 = 84;
const PRESSURE_IO: u32 = 85;
const PRESSURE_IRQ: u32 = 93;
/// /proc/locks (`CLUSTER_LOCKS`).
const LOCKS: u32 = 75;
/// /sys/kernel (`CLUSTER_SYSFS_KERNEL`): `sysfs.kernel.*`.
const SYSFS_KERNEL: u32 = 35;
/// The login records (`CLUSTER_UTMP`): `kernel.all.nusers`, `nroots`,
/// `nsessions`.
const UTMP: u32 = 25;

/// The clusters served here.
pub(super) const CLUSTERS: [u32; 9] =
    [SYS_KERNEL, VFS, PRESSURE_CPU, PRESSURE_MEM, PRESSURE_IO, PRESSURE_IRQ, LOCKS, SYSFS_KERNEL, UTMP];

/// Where the C library keeps the login records (`_PATH_UTMP`): the
/// PMDA reads the running system's, whatever its files' root.
const UTMP_PATH: &str = "/var/run/utmp";
/// A login record's size and fields (glibc's `struct utmp` on 64-bit
/// Linux): `ut_type` at 0 (a short), `ut_user` at 44 (32 bytes).
const UTMP_SIZE: usize = 384;
const USER_PROCESS: i16 = 7;

/// The login records' (users logged in, of them root, all records).
pub(super) fn logins(utmp: &[u8]) -> [u32; 3] {
    let mut out = [0u32; 3];
    for rec in utmp.chunks_exact(UTMP_SIZE) {
        if i16::from_ne_bytes([rec[0], rec[1]]) == USER_PROCESS {
            let user = &rec[44..76];
            let user = &user[..user.iter().position(|&b| b == 0).unwrap_or(user.len())];
            if user.is_empty() {
                continue;
            }
            if user == b"root" {
                out[1] += 1;
            }
            out[0] += 1;
        }
        out[2] += 1;
    }
    out
}
/// The pressure averages' instance domain (10, 60 and 300 seconds).
const PRESSURE_INDOM: u32 = 37;
/// The instance domains kept here.
pub(super) const INDOMS: [u32; 1] = [PRESSURE_INDOM];

/// `pid_max` when the kernel does not say (`PID_MAX_LIMIT`).
const PID_MAX_LIMIT: u32 = 1 << 22;

/// One line of a /proc/pressure file: the 10 s, 60 s and 300 s averages
/// and the total stall time (microseconds).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Pressure {
    avg: [f32; 3],
    total: u64,
}

/// The line of `kind` (`some` or `full`) as the PMDA's format
/// `KIND avg10=%f avg60=%f avg300=%f total=%llu` reads it.
pub(super) fn pressure_line(line: &[u8], kind: &[u8]) -> Option<Pressure> {
    let rest = line.strip_prefix(kind)?;
    let mut s = Scan::new(rest);
    let mut p = Pressure::default();
    for (k, label) in [&b"avg10="[..], b"avg60=", b"avg300="].iter().enumerate() {
        let r = trim_start(s.rest()).strip_prefix(*label)?;
        s = Scan::new(r);
        p.avg[k] = s.f32()?;
    }
    let r = trim_start(s.rest()).strip_prefix(&b"total="[..])?;
    p.total = Scan::new(r).u64()?;
    Some(p)
}

fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|b| b.is_ascii_whitespace()).count();
    &s[n..]
}

/// A file's `some` line, then (when `full`) its `full` line after it.
pub(super) fn pressure(text: &[u8], some: bool, full: bool) -> (Option<Pressure>, Option<Pressure>) {
    let mut ls = lines(text);
    let s = if some { ls.next().and_then(|l| pressure_line(l, b"some")) } else { None };
    // the PMDA reads on where the first line left off: after a first line
    // it could not read, nothing more
    let f = match (some, s.is_some(), full) {
        (_, _, false) | (true, false, _) => None,
        _ => ls.next().and_then(|l| pressure_line(l, b"full")),
    };
    (s, f)
}

/// /proc/locks' locks by kind (POSIX, flock, lease) and access: for each
/// kind, read, write and all. A lock line is `ID: KIND KIND2 ACCESS ...`.
pub(super) fn locks(text: &[u8]) -> [u32; 9] {
    let mut out = [0u32; 9];
    for line in lines(text) {
        let mut s = Scan::new(line);
        if s.i32().is_none() || !s.lit(b':') {
            continue;
        }
        let (Some(kind), Some(_), Some(access)) = (s.word(), s.word(), s.word()) else { continue };
        let (kind, access) = (&kind[..kind.len().min(15)], &access[..access.len().min(15)]);
        let at = if [&b"POSIX"[..], b"ACCESS", b"OFDLCK"].iter().any(|k| kind.starts_with(k)) {
            0
        } else if kind.starts_with(b"FLOCK") {
            3
        } else if kind.starts_with(b"DELEG") || kind.starts_with(b"LEASE") {
            6
        } else {
            continue;
        };
        out[at + 2] += 1;
        if access.starts_with(b"READ") {
            out[at] += 1;
        } else if access.starts_with(b"WRITE") {
            out[at + 1] += 1;
        } else if access.starts_with(b"RW") {
            out[at] += 1;
            out[at + 1] += 1;
        }
    }
    out
}

/// What the files said.
#[derive(Clone, Debug, Default)]
struct KernelMisc {
    entropy_avail: u32,
    poolsize: u32,
    pid_max: u32,
    nptys: u32,
    /// file-nr (count, free, max), inode-state (count, free),
    /// dentry-state (count, free), aio-nr, aio-max-nr.
    vfs: [i32; 9],
    /// cpu some; memory some, full; io some, full; irq full.
    pressure: [Option<Pressure>; 6],
    locks: [u32; 9],
    /// /sys/kernel/uevent_seqnum, where it could be read.
    uevent_seqnum: Option<u64>,
    logins: [u32; 3],
}

/// The area, new.
pub(super) fn new(_: &super::Options) -> Box<dyn Area> {
    Box::new(KernelMisc::default())
}

/// `fscanf(f, "%d %d ...")` into `out`, as far as it reads.
fn ints(text: &[u8], out: &mut [i32]) {
    let mut s = Scan::new(text);
    for v in out {
        match s.i32() {
            Some(x) => *v = x,
            None => return,
        }
    }
}

fn first_u32(text: &[u8]) -> Option<u32> {
    Scan::new(text).u32()
}

impl Area for KernelMisc {
    fn refresh(&mut self, rd: &mut Reader, clusters: &[u32]) {
        for &c in clusters {
            match c {
                SYS_KERNEL => {
                    self.pid_max = rd.with("/proc/sys/kernel/pid_max", first_u32).flatten().unwrap_or(PID_MAX_LIMIT);
                    self.nptys = rd.with("/proc/sys/kernel/pty/nr", first_u32).flatten().unwrap_or(0);
                    self.entropy_avail =
                        rd.with("/proc/sys/kernel/random/entropy_avail", first_u32).flatten().unwrap_or(0);
                    self.poolsize = rd.with("/proc/sys/kernel/random/poolsize", first_u32).flatten().unwrap_or(0);
                }
                VFS => {
                    let mut v = [0; 9];
                    for (path, range) in [
                        ("/proc/sys/fs/file-nr", 0..3),
                        ("/proc/sys/fs/inode-state", 3..5),
                        ("/proc/sys/fs/dentry-state", 5..7),
                        ("/proc/sys/fs/aio-nr", 7..8),
                        ("/proc/sys/fs/aio-max-nr", 8..9),
                    ] {
                        rd.with(path, |t| ints(t, &mut v[range]));
                    }
                    self.vfs = v;
                }
                PRESSURE_CPU => {
                    self.pressure[0] = rd.with("/proc/pressure/cpu", |t| pressure(t, true, false).0).flatten();
                }
                PRESSURE_MEM => {
                    let (s, f) = rd.with("/proc/pressure/memory", |t| pressure(t, true, true)).unwrap_or_default();
                    (self.pressure[1], self.pressure[2]) = (s, f);
                }
                PRESSURE_IO => {
                    let (s, f) = rd.with("/proc/pressure/io", |t| pressure(t, true, true)).unwrap_or_default();
                    (self.pressure[3], self.pressure[4]) = (s, f);
                }
                LOCKS => self.locks = rd.with("/proc/locks", locks).unwrap_or_default(),
                UTMP => self.logins = std::fs::read(UTMP_PATH).map(|t| logins(&t)).unwrap_or_default(),
                SYSFS_KERNEL => {
                    // (all but the last byte, its line end, as %llu reads it)
                    self.uevent_seqnum = rd
                        .with("/sys/kernel/uevent_seqnum", |t| {
                            (!t.is_empty()).then(|| Scan::new(&t[..t.len() - 1]).u64().unwrap_or(0))
                        })
                        .flatten();
                }
                PRESSURE_IRQ => {
                    self.pressure[5] = rd.with("/proc/pressure/irq", |t| pressure(t, false, true).1).flatten();
                }
                _ => {}
            }
        }
    }

    fn value(&self, def: &MetricDef, inst: i32) -> Result<Option<AtomValue>, PmError> {
        let (cluster, item) = (def.pmid.cluster(), def.pmid.item());
        Ok(Some(match cluster {
            SYS_KERNEL => AtomValue::U32(match item {
                0 => self.entropy_avail,
                1 => self.poolsize,
                2 => self.pid_max,
                3 => self.nptys,
                _ => return Err(PmError::PM_ERR_PMID),
            }),
            VFS => AtomValue::I32(*self.vfs.get(item as usize).ok_or(PmError::PM_ERR_PMID)?),
            LOCKS => AtomValue::U32(*self.locks.get(item as usize).ok_or(PmError::PM_ERR_PMID)?),
            UTMP => AtomValue::U32(*self.logins.get(item as usize).ok_or(PmError::PM_ERR_PMID)?),
            SYSFS_KERNEL => match item {
                0 => return Ok(self.uevent_seqnum.map(AtomValue::U64)),
                // the nodes' fragmentation, from debugfs: not read (no
                // values, as where debugfs cannot be read)
                1 => return Ok(None),
                _ => return Err(PmError::PM_ERR_PMID),
            },
            _ => {
                // the pressure clusters: (average, total) pairs
                let slot = match (cluster, item / 2) {
                    (PRESSURE_CPU, 0) => 0,
                    (PRESSURE_MEM, k @ 0..=1) => 1 + k,
                    (PRESSURE_IO, k @ 0..=1) => 3 + k,
                    (PRESSURE_IRQ, 0) => 5,
                    _ => return Err(PmError::PM_ERR_PMID),
                };
                let Some(p) = self.pressure[slot as usize] else { return Ok(None) };
                if item % 2 == 1 {
                    AtomValue::U64(p.total)
                } else {
                    AtomValue::Float(match inst {
                        10 => p.avg[0],
                        60 => p.avg[1],
                        300 => p.avg[2],
                        _ => return Err(PmError::PM_ERR_INST),
                    })
                }
            }
        }))
    }

    fn instances(&self, serial: u32) -> Vec<(i32, &str)> {
        match serial {
            PRESSURE_INDOM => vec![(10, "10 second"), (60, "1 minute"), (300, "5 minute")],
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pressure_lines_read_as_the_pmda_reads_them() {
        let text = b"some avg10=0.44 avg60=1.36 avg300=1.41 total=35812283\n\
                     full avg10=0.03 avg60=0.24 avg300=0.37 total=10374247\n";
        let (s, f) = pressure(text, true, true);
        assert_eq!(s, Some(Pressure { avg: [0.44, 1.36, 1.41], total: 35812283 }));
        assert_eq!(f, Some(Pressure { avg: [0.03, 0.24, 0.37], total: 10374247 }));
        // irq: a full line alone
        assert_eq!(pressure(b"full avg10=1 avg60=2 avg300=3 total=4\n", false, true).1.unwrap().total, 4);
        // damaged: no value, no panic
        assert_eq!(pressure(b"some avg10=x", true, true), (None, None));
        assert_eq!(pressure(b"", true, true), (None, None));
        assert_eq!(pressure(b"some avg10=1 avg60=2 avg300=3\n", true, false).0, None);
    }

    #[test]
    fn login_records_count_users_and_sessions() {
        let rec = |ty: i16, user: &[u8]| {
            let mut r = vec![0u8; UTMP_SIZE];
            r[..2].copy_from_slice(&ty.to_ne_bytes());
            r[44..44 + user.len()].copy_from_slice(user);
            r
        };
        let t = [rec(7, b"root"), rec(7, b"fred"), rec(7, b""), rec(8, b"gone"), vec![1, 2, 3]].concat();
        // (a user record without a user is not a session either)
        assert_eq!(logins(&t), [2, 1, 3]);
        assert_eq!(logins(b""), [0; 3]);
    }

    #[test]
    fn locks_count_by_kind_and_access() {
        let text = b"1: POSIX  ADVISORY  WRITE 1 00:1a:2 0 EOF\n1: -> POSIX ADVISORY WRITE 2 0:0:0 0 EOF\n\
                     2: FLOCK  ADVISORY  READ 3 00:1a:3 0 EOF\n3: OFDLCK ADVISORY RW -1 0:0:0 0 EOF\n\
                     4: LEASE ACTIVE READ 5 0:0:0 0 EOF\nx: POSIX ADVISORY WRITE\n";
        assert_eq!(locks(text), [1, 2, 2, 1, 0, 1, 1, 0, 1]);
        assert_eq!(locks(b"\xff\n1:\n"), [0; 9]);
    }

    #[test]
    fn vfs_counts_read_as_fscanf_reads_them() {
        let mut v = [0; 3];
        ints(b"2790\t0\t9223372036854775807\n", &mut v);
        assert_eq!(v, [2790, 0, -1]);
        let mut v = [7; 2];
        ints(b"12 x", &mut v);
        assert_eq!(v, [12, 7]);
    }
}
