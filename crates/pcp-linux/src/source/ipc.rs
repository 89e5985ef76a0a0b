//! System V IPC (`ipc.{shm,msg,sem}.*` limits and use): what the PMDA asks
//! the kernel with `shmctl`, `msgctl` and `semctl` (`IPC_INFO`, and
//! `SHM_INFO`, `MSG_INFO`, `SEM_INFO`), from the files the kernel shows
//! the same numbers in: its tunables in /proc/sys/kernel, its compiled-in
//! limits, and the objects of /proc/sysvipc. Like those system calls,
//! this is the running system's, whatever the files' root.

use super::area::{Area, Reader};
use super::Options;
use crate::files::{Files, RootFiles};
use crate::scan::{lines, Scan};
use crate::MetricDef;
use pcp_core::{AtomValue, PmError};

/// The semaphore, message queue and shared memory limits
/// (`CLUSTER_SEM_LIMITS` and so on) and use (`CLUSTER_SHM_INFO`,
/// `CLUSTER_SEM_INFO`, `CLUSTER_MSG_INFO`).
const SEM_LIMITS: u32 = 21;
const MSG_LIMITS: u32 = 22;
const SHM_LIMITS: u32 = 23;
const SHM_INFO: u32 = 56;
const SEM_INFO: u32 = 61;
const MSG_INFO: u32 = 62;
/// The clusters served here.
pub(super) const CLUSTERS: [u32; 6] = [SEM_LIMITS, MSG_LIMITS, SHM_LIMITS, SHM_INFO, SEM_INFO, MSG_INFO];
/// No instance domains (the per-object metrics are `sysvipc`'s).
pub(super) const INDOMS: [u32; 0] = [];

/// The kernel's compiled-in limits (include/uapi/linux/{sem,msg,shm}.h)
/// that `IPC_INFO` reports beside its tunables.
const SEMMNS: u64 = 32000 * 32000;
const SEMOPM: u64 = 500;
const SEMUSZ: u64 = 20;
const SEMVMX: u64 = 32767;
const MSGMNB: u64 = 16384;
const MSGPOOL: u64 = 32000 * MSGMNB / 1024;
const MSGSSZ: u64 = 16;
const MSGSEG: u64 = 0xffff;
const SHMMIN: u64 = 1;
const SHMSEG: u64 = 4096;

/// The numbers of the rows of a /proc/sysvipc file (its header left
/// out), by column.
fn columns(text: &[u8], wanted: &[usize]) -> Vec<Vec<u64>> {
    lines(text)
        .skip(1)
        .map(|l| {
            let words: Vec<&[u8]> = l.split(|b| b.is_ascii_whitespace()).filter(|w| !w.is_empty()).collect();
            wanted.iter().map(|&k| words.get(k).and_then(|w| Scan::new(w).u64()).unwrap_or(0)).collect()
        })
        .collect()
}

/// Shared memory in use: segments, and their pages allocated, resident
/// and swapped (from /proc/sysvipc/shm's size, rss and swap in bytes).
pub(super) fn shm_use(text: &[u8], page_size: u64) -> [u64; 4] {
    let page = page_size.max(1);
    let rows = columns(text, &[3, 14, 15]);
    let mut out = [rows.len() as u64, 0, 0, 0];
    for r in rows {
        out[1] = out[1].wrapping_add(r[0].div_ceil(page));
        out[2] = out[2].wrapping_add(r[1] / page);
        out[3] = out[3].wrapping_add(r[2] / page);
    }
    out
}

/// Message queues in use, and their messages and bytes.
pub(super) fn msg_use(text: &[u8]) -> [u64; 3] {
    let rows = columns(text, &[3, 4]);
    let mut out = [rows.len() as u64, 0, 0];
    for r in rows {
        out[1] = out[1].wrapping_add(r[1]);
        out[2] = out[2].wrapping_add(r[0]);
    }
    out
}

/// Semaphore sets in use, and their semaphores.
pub(super) fn sem_use(text: &[u8]) -> [u64; 2] {
    let rows = columns(text, &[3]);
    [rows.len() as u64, rows.iter().fold(0u64, |a, r| a.wrapping_add(r[0]))]
}

#[derive(Clone, Debug, Default)]
struct Ipc {
    page_size: u64,
    /// Per cluster's items, as the metrics' 32-bit values.
    sem_limits: [u64; 10],
    msg_limits: [u64; 8],
    shm_limits: [u64; 5],
    shm_info: [u64; 6],
    sem_info: [u64; 2],
    msg_info: [u64; 3],
}

/// The area, new.
pub(super) fn new(opts: &Options) -> Box<dyn Area> {
    Box::new(Ipc { page_size: u64::from(opts.page_size), ..Ipc::default() })
}

impl Area for Ipc {
    fn refresh(&mut self, _rd: &mut Reader, clusters: &[u32]) {
        let live = RootFiles::new("/");
        let text = |p: &str| live.read(p).unwrap_or_default();
        let num = |p: &str| Scan::new(&text(p)).u64().unwrap_or(0);
        for &c in clusters {
            match c {
                SEM_LIMITS => {
                    // /proc/sys/kernel/sem: SEMMSL SEMMNS SEMOPM SEMMNI
                    let t = text("/proc/sys/kernel/sem");
                    let mut s = Scan::new(&t);
                    let v: Vec<u64> = (0..4).map(|_| s.u64().unwrap_or(0)).collect();
                    let (msl, mns, opm, mni) = (v[0], v[1], v[2], v[3]);
                    self.sem_limits = [SEMMNS, mni, mns, SEMMNS, msl, opm, SEMOPM, SEMUSZ, SEMVMX, SEMVMX];
                }
                MSG_LIMITS => {
                    let (max, mnb, mni) = (
                        num("/proc/sys/kernel/msgmax"),
                        num("/proc/sys/kernel/msgmnb"),
                        num("/proc/sys/kernel/msgmni"),
                    );
                    self.msg_limits = [MSGPOOL, MSGMNB, max, mnb, mni, MSGSSZ, MSGMNB, MSGSEG];
                }
                SHM_LIMITS => {
                    let (max, mni, all) = (
                        num("/proc/sys/kernel/shmmax"),
                        num("/proc/sys/kernel/shmmni"),
                        num("/proc/sys/kernel/shmall"),
                    );
                    self.shm_limits = [max, SHMMIN, mni, SHMSEG, all];
                }
                SHM_INFO => {
                    let [ids, tot, rss, swp] = shm_use(&text("/proc/sysvipc/shm"), self.page_size);
                    let bytes = |pages: u64| pages.wrapping_mul(self.page_size);
                    self.shm_info = [bytes(tot), bytes(rss), bytes(swp), ids, 0, 0];
                }
                SEM_INFO => self.sem_info = sem_use(&text("/proc/sysvipc/sem")),
                MSG_INFO => self.msg_info = msg_use(&text("/proc/sysvipc/msg")),
                _ => {}
            }
        }
    }

    fn value(&self, def: &MetricDef, _inst: i32) -> Result<Option<AtomValue>, PmError> {
        let item = def.pmid.item() as usize;
        let v = match def.pmid.cluster() {
            SEM_LIMITS => self.sem_limits.get(item),
            MSG_LIMITS => self.msg_limits.get(item),
            SHM_LIMITS => self.shm_limits.get(item),
            SHM_INFO => self.shm_info.get(item),
            SEM_INFO => self.sem_info.get(item),
            _ => self.msg_info.get(item),
        };
        Ok(Some(AtomValue::U32(*v.ok_or(PmError::PM_ERR_PMID)? as u32)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysvipc_objects_add_up() {
        let shm = b"       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid      atime      dtime      ctime                   rss                  swap\n\
                    \x20        0          1   600                  5000  10  11  1  0  0  0  0  0  0  0  8192  4096\n";
        assert_eq!(shm_use(shm, 4096), [1, 2, 2, 1]);
        let msg = b"key msqid perms cbytes qnum lspid\n 1 2 600 100 3 0\n 1 3 600 50 1 0\n";
        assert_eq!(msg_use(msg), [2, 4, 150]);
        assert_eq!(sem_use(b"key semid perms nsems\n 1 1 600 4\n"), [1, 4]);
        assert_eq!(sem_use(b""), [0, 0]);
        assert_eq!(msg_use(b"\xff\n\xff"), [1, 0, 0]);
    }
}
