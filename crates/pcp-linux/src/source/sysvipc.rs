//! The System V IPC objects (`ipc.shm.key`, `ipc.msg.owner`, ... per
//! shared memory segment, message queue and semaphore set): the rows of
//! /proc/sysvipc/{shm,msg,sem}, named by their identifiers, as the PMDA
//! reads them (a stream of numbers after the header line, a record at a
//! time, the first row of an identifier winning).

use super::area::{saved_cache, Area, Reader};
use super::Options;
use crate::cache::InstCache;
use crate::MetricDef;
use pcp_core::{AtomValue, PmError};
use std::collections::HashMap;

/// `CLUSTER_SHM_STAT`, `CLUSTER_MSG_STAT`, `CLUSTER_SEM_STAT`.
const SHM_STAT: u32 = 64;
const MSG_STAT: u32 = 65;
const SEM_STAT: u32 = 66;
/// The clusters served here.
pub(super) const CLUSTERS: [u32; 3] = [SHM_STAT, MSG_STAT, SEM_STAT];
/// `IPC_STAT_INDOM`, `IPC_MSG_INDOM`, `IPC_SEM_INDOM`.
const SHM_INDOM: u32 = 28;
const MSG_INDOM: u32 = 29;
const SEM_INDOM: u32 = 30;
/// The instance domains kept here.
pub(super) const INDOMS: [u32; 3] = [SHM_INDOM, MSG_INDOM, SEM_INDOM];

/// A field's conversion, as the PMDA's `fscanf` format has it.
#[derive(Clone, Copy)]
enum Conv {
    /// `%d`
    Dec,
    /// `%u` or `%llu`
    Unsigned,
    /// `%o`
    Octal,
}
use Conv::{Dec, Octal, Unsigned};

/// key shmid perms size cpid lpid nattch uid (then gid ... swap).
const SHM_FORMAT: [Conv; 16] = [
    Dec, Unsigned, Octal, Unsigned, Unsigned, Unsigned, Unsigned, Unsigned, Unsigned, Unsigned, Unsigned, Unsigned,
    Unsigned, Unsigned, Unsigned, Unsigned,
];
/// key msqid perms cbytes qnum lspid lrpid uid (then gid ... ctime).
const MSG_FORMAT: [Conv; 14] = [
    Dec, Unsigned, Octal, Unsigned, Unsigned, Unsigned, Unsigned, Unsigned, Unsigned, Unsigned, Unsigned, Unsigned,
    Unsigned, Unsigned,
];
/// key semid perms nsems uid (then gid ... ctime).
const SEM_FORMAT: [Conv; 10] =
    [Dec, Unsigned, Octal, Unsigned, Unsigned, Unsigned, Unsigned, Unsigned, Unsigned, Unsigned];

/// One word as a conversion reads it (`None` when it does not).
fn convert(word: &[u8], conv: Conv) -> Option<u64> {
    let text = std::str::from_utf8(word).ok()?;
    match conv {
        Octal => u64::from_str_radix(text.strip_prefix('+').unwrap_or(text), 8).ok(),
        Dec | Unsigned => match text.strip_prefix('-') {
            Some(n) => n.parse::<u64>().ok().map(u64::wrapping_neg),
            None => text.strip_prefix('+').unwrap_or(text).parse::<u64>().ok(),
        },
    }
}

/// The records of a /proc/sysvipc file: after its first line, the
/// whitespace-separated words read `format.len()` at a time, as `fscanf`
/// reads them; a record of at least `min` fields counts, and reading
/// stops at a word that does not convert or a short record.
fn records(text: &[u8], format: &[Conv], min: usize) -> Vec<Vec<u64>> {
    let Some(nl) = text.iter().position(|&b| b == b'\n') else { return Vec::new() };
    let mut words = text[nl + 1..].split(u8::is_ascii_whitespace).filter(|w| !w.is_empty()).peekable();
    let mut out = Vec::new();
    loop {
        let mut rec = Vec::with_capacity(format.len());
        for &conv in format {
            let Some(v) = words.peek().and_then(|w| convert(w, conv)) else { break };
            words.next();
            rec.push(v);
        }
        let whole = rec.len() == format.len();
        if rec.len() >= min {
            out.push(rec);
        }
        if !whole {
            return out;
        }
    }
}

/// One object's values, as the metrics give them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Object {
    key: String,
    owner: Vec<u8>,
    /// The permission bits, their octal digits read as decimal.
    perms: u32,
    /// The kind's numbers after the owner and permissions, by item.
    nums: Vec<u32>,
    /// Shared memory's status.
    status: &'static str,
}

/// The PMDA's `extract_perms`: the permission bits' octal digits, read as
/// a decimal number (0640 is 640).
fn perms(mode: u64) -> u32 {
    format!("{:o}", mode & 0o777).parse().unwrap_or(0)
}

/// An object of a record (key, id, perms, then the kind's fields), its
/// owner named from `users` (by number when not there).
fn object(rec: &[u64], users: &HashMap<u32, Vec<u8>>, uid_at: usize, nums: &[usize]) -> Object {
    let uid = rec.get(uid_at).copied().unwrap_or(0) as u32;
    let mut owner = users.get(&uid).cloned().unwrap_or_else(|| uid.to_string().into_bytes());
    owner.truncate(127);
    Object {
        key: format!("0x{:08x}", rec[0] as u32),
        owner,
        perms: perms(rec[2]),
        nums: nums.iter().map(|&k| rec.get(k).copied().unwrap_or(0) as u32).collect(),
        status: "",
    }
}

/// The shared memory segments, message queues or semaphore sets of a
/// /proc/sysvipc file: (identifier as the instance name, object).
fn objects(kind: u32, text: &[u8], users: &HashMap<u32, Vec<u8>>) -> Vec<(String, Object)> {
    let (rows, uid_at, nums): (Vec<Vec<u64>>, usize, &[usize]) = match kind {
        // segsz nattch creator_pid last_access_pid
        SHM_STAT => (records(text, &SHM_FORMAT, 8), 7, &[3, 6, 4, 5]),
        // msgsz messages last_send_pid last_recv_pid
        MSG_STAT => (records(text, &MSG_FORMAT, 8), 7, &[3, 4, 5, 6]),
        // nsems
        _ => (records(text, &SEM_FORMAT, 5), 4, &[3]),
    };
    rows.iter()
        .map(|r| {
            let mut o = object(r, users, uid_at, nums);
            if kind == SHM_STAT {
                // SHM_DEST and SHM_LOCKED, above the permission bits
                o.status = match (r[2] & 0o1000 != 0, r[2] & 0o2000 != 0) {
                    (true, true) => "dest locked",
                    (false, true) => "locked",
                    (true, false) => "dest",
                    (false, false) => "",
                };
            }
            ((r[1] as u32).to_string(), o)
        })
        .collect()
}

#[derive(Clone, Debug)]
struct Kind {
    insts: InstCache,
    objects: HashMap<i32, Object>,
}

#[derive(Clone, Debug)]
struct SysvIpc {
    /// Shared memory, message queues, semaphores.
    kinds: [Kind; 3],
}

/// The area, new.
pub(super) fn new(opts: &Options) -> Box<dyn Area> {
    let kind = |serial| Kind { insts: saved_cache(opts, serial), objects: HashMap::new() };
    Box::new(SysvIpc { kinds: [kind(SHM_INDOM), kind(MSG_INDOM), kind(SEM_INDOM)] })
}

/// The files, by kind.
const FILES: [&str; 3] = ["/proc/sysvipc/shm", "/proc/sysvipc/msg", "/proc/sysvipc/sem"];

impl Area for SysvIpc {
    fn refresh(&mut self, rd: &mut Reader, clusters: &[u32]) {
        let mut users = None;
        for &c in clusters {
            let k = (c - SHM_STAT) as usize;
            let Some(kind) = self.kinds.get_mut(k) else { continue };
            kind.insts.deactivate_all();
            let Some(text) = rd.read_file(FILES[k]) else { continue };
            let users = users.get_or_insert_with(|| crate::proc::id_names("/etc/passwd"));
            for (name, o) in objects(c, &text, users) {
                if kind.insts.lookup(&name).is_some() {
                    continue;
                }
                let Some(inst) = kind.insts.add(&name) else { continue };
                kind.objects.insert(inst, o);
            }
        }
    }

    fn value(&self, def: &MetricDef, inst: i32) -> Result<Option<AtomValue>, PmError> {
        let c = def.pmid.cluster();
        let kind = self.kinds.get(c.wrapping_sub(SHM_STAT) as usize).ok_or(PmError::PM_ERR_PMID)?;
        kind.insts.name(inst).ok_or(PmError::PM_ERR_INST)?;
        let o = kind.objects.get(&inst).ok_or(PmError::PM_ERR_INST)?;
        let item = def.pmid.item() as usize;
        let num = |k: usize| o.nums.get(k).map(|&v| AtomValue::U32(v)).ok_or(PmError::PM_ERR_PMID);
        Ok(Some(match (c, item) {
            (_, 0) => AtomValue::String(o.key.clone().into_bytes()),
            (_, 1) => AtomValue::String(o.owner.clone()),
            (_, 2) => AtomValue::U32(o.perms),
            (SHM_STAT, 5) => AtomValue::String(o.status.as_bytes().to_vec()),
            (SHM_STAT, 3 | 4) => num(item - 3)?,
            (SHM_STAT, 6 | 7) => num(item - 4)?,
            (MSG_STAT, 3..=6) | (SEM_STAT, 3) => num(item - 3)?,
            _ => return Err(PmError::PM_ERR_PMID),
        }))
    }

    fn instances(&self, serial: u32) -> Vec<(i32, &str)> {
        match INDOMS.iter().position(|&s| s == serial) {
            Some(k) => self.kinds[k].insts.active().collect(),
            None => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_as_the_pmda_reads_them() {
        let users = HashMap::from([(0, b"root".to_vec())]);
        let shm = b"       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid      atime      dtime      ctime                   rss                  swap\n\
                    \x20     4660          1  3640                 10000 20165     7      2     0     0     0     0          0          0 1795928602                     0                     0\n\
                    \x20       -5          2   600                  4096 20165     0      0  1234     0     0     0          0          0 1795928602                     0                     0\n";
        let got = objects(SHM_STAT, shm, &users);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0, "1");
        assert_eq!(
            got[0].1,
            Object {
                key: "0x00001234".into(),
                owner: b"root".to_vec(),
                perms: 640,
                nums: vec![10000, 2, 20165, 7],
                status: "dest locked"
            }
        );
        assert_eq!(
            (got[1].1.key.as_str(), got[1].1.owner.as_slice(), got[1].1.status),
            ("0xfffffffb", &b"1234"[..], "")
        );
        let msg = b"key msqid perms cbytes qnum lspid lrpid uid gid cuid cgid stime rtime ctime\n 17185 1 620 20 1 20165 0 0 0 0 0 1 0 1\n";
        assert_eq!(objects(MSG_STAT, msg, &users)[0].1.nums, vec![20, 1, 20165, 0]);
        let sem = b"key semid perms nsems uid\n 1911 1 644 3 0 0 0 0 0 1\n 0 2 600 1 0 x\n 0 3 600 1 0 0 0 0 0 0\n";
        let sems = objects(SEM_STAT, sem, &users);
        // the record cut short by a word that does not read still counts;
        // reading stops there
        assert_eq!(sems.iter().map(|s| s.0.as_str()).collect::<Vec<_>>(), ["1", "2"]);
        assert_eq!(sems[0].1.perms, 644);
        // malformed files: no objects, no panic
        assert!(objects(SHM_STAT, b"", &users).is_empty());
        assert!(objects(SHM_STAT, b"header\n1 2 9\n", &users).is_empty());
        assert!(objects(MSG_STAT, b"header\n\xff\xfe 1 2\n", &users).is_empty());
    }
}
