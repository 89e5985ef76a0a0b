//! /proc/loadavg (`kernel.all.load`, `kernel.all.lastpid`,
//! `kernel.all.runnable`, `kernel.all.nprocs`), /proc/uptime
//! (`kernel.all.uptime`, `kernel.all.idletime`), /proc/sys/kernel and
//! /etc's release files (`kernel.uname.*`), and /proc's process count
//! (`proc.nprocs`).

use super::{count32, LinuxSource, Snap};
use crate::files::Files;
use crate::parse;
use pcp_core::{AtomValue, PmError};

/// A listing of /proc's processes and the task counters read before it.
#[derive(Clone, Copy, Debug)]
pub(super) struct ProcsSeen {
    /// /proc/stat's `processes`: tasks created since boot.
    forks: u64,
    /// /proc/loadavg's task count, read after `forks`.
    tasks: u32,
    /// The processes listed, after both.
    count: u32,
}

/// `kernel.uname.*` (cluster 12): uname(2)'s fields as /proc/sys/kernel
/// gives them, and the distribution's name.
#[derive(Clone, Debug, Default)]
pub(super) struct Uname {
    release: Option<Vec<u8>>,
    version: Option<Vec<u8>>,
    sysname: Option<Vec<u8>>,
    machine: Option<Vec<u8>>,
    nodename: Option<Vec<u8>>,
    distro: Vec<u8>,
}

impl<F: Files> LinuxSource<F> {
    /// `proc.nprocs`: how many processes /proc lists. On the running
    /// system the listing, the dearest part of a fetch, is made again only
    /// when the set of tasks may have changed since it was last made.
    ///
    /// The kernel adds one to /proc/stat's `processes` for every task it
    /// creates, and takes one from the task count in /proc/loadavg
    /// (`nr_threads`) for every task it releases; the two change with a
    /// task's appearing in and leaving /proc. When the listing was made
    /// after reading `processes` as S and then the task count as T, a
    /// later fetch that reads the task count as T' and then `processes`
    /// as S' knows, when S' = S, that no task was created between the two
    /// readings of S, and then, when T' = T, that none was released
    /// between the two readings of T. The tasks are those the listing
    /// saw, and so is their number. A listing that tasks came to or left
    /// while it was made is never reused: its S or T differs by the next
    /// fetch.
    ///
    /// (With /proc mounted `hidepid=`, a process that changes its
    /// credentials can come into or go out of sight without either
    /// number changing; that is not looked for.)
    pub(super) fn count_procs(&mut self, snap: &Snap) -> Option<u32> {
        let pid = |n: &[u8]| n.first().is_some_and(u8::is_ascii_digit);
        let live = self.files.live();
        let forks = snap.stat.as_ref().and_then(|s| s.processes);
        let tasks = snap.loadavg.as_ref().and_then(|l| l.nprocs);
        if let (true, Some(f), Some(t), Some(seen)) = (live, forks, tasks, self.procs_seen) {
            if seen.forks == f && seen.tasks == t {
                return Some(seen.count);
            }
        }
        self.procs_seen = None;
        // the task count again, now after `processes`
        let tasks = match (live, forks) {
            (true, Some(_)) => self.with_file("/proc/loadavg", |_, t| parse::loadavg(t).nprocs).flatten(),
            _ => None,
        };
        let count = self.files.count("/proc", &pid).ok().map(count32);
        if let (Some(forks), Some(tasks), Some(count)) = (forks, tasks, count) {
            self.procs_seen = Some(ProcsSeen { forks, tasks, count });
        }
        count
    }

    /// uname(2)'s fields from /proc/sys/kernel (one line each), and the
    /// distribution as the PMDA guesses it: the first of its release files
    /// in /etc that opens, up to its first newline (`Debian ` before
    /// debian_version's, lsb-release's `DISTRIB_ID=` dropped), else `?`.
    pub(super) fn read_uname(&self) -> Uname {
        let line = |t: Vec<u8>| t[..memchr::memchr(b'\n', &t).unwrap_or(t.len())].to_vec();
        let sysctl = |name: &str| self.read(&format!("/proc/sys/kernel/{name}")).map(line);
        const RELEASE_FILES: [&str; 7] = [
            "debian_version",
            "oracle-release",
            "fedora-release",
            "redhat-release",
            "slackware-version",
            "SuSE-release",
            "lsb-release",
        ];
        let distro = RELEASE_FILES
            .iter()
            .find_map(|f| Some((*f, self.read(&format!("/etc/{f}"))?)))
            .and_then(|(f, text)| {
                let mut d = match f {
                    "debian_version" => [b"Debian ".as_slice(), &text].concat(),
                    "lsb-release" => {
                        let t = text.strip_prefix(b"DISTRIB_ID = ").unwrap_or(&text);
                        t.strip_prefix(b"DISTRIB_ID=").unwrap_or(t).to_vec()
                    }
                    _ => text,
                };
                // (an empty file reads as nothing)
                if d.len() <= usize::from(f == "debian_version") * 7 {
                    return None;
                }
                d.truncate(memchr::memchr(b'\n', &d).unwrap_or(d.len()));
                Some(d)
            })
            .unwrap_or_else(|| b"?".to_vec());
        Uname {
            release: sysctl("osrelease"),
            version: sysctl("version"),
            sysname: sysctl("ostype"),
            machine: sysctl("arch"),
            nodename: sysctl("hostname"),
            distro,
        }
    }

    /// `kernel.uname.*`.
    pub(super) fn uname_value(&self, item: u32) -> Result<Option<AtomValue>, PmError> {
        let Some(u) = &self.uname else { return Ok(None) };
        let field = match item {
            0 => &u.release,
            1 => &u.version,
            2 => &u.sysname,
            3 => &u.machine,
            4 => &u.nodename,
            7 => return Ok(Some(AtomValue::String(u.distro.clone()))),
            // pmda.uname: the five fields as uname(1) -a prints them (a
            // missing one as "(null)", as printf has it)
            5 => {
                let fields = [&u.sysname, &u.nodename, &u.release, &u.version, &u.machine];
                let parts: Vec<&[u8]> = fields.iter().map(|f| f.as_deref().unwrap_or(b"(null)")).collect();
                return Ok(Some(AtomValue::String(parts.join(&b' '))));
            }
            // pmda.version: the PCP release whose PMDA this is
            6 => return Ok(Some(AtomValue::String(b"6.0.3".to_vec()))),
            _ => return Err(PmError::PM_ERR_PMID),
        };
        Ok(field.clone().map(AtomValue::String))
    }
}

/// `kernel.all.load`, `kernel.all.lastpid`, `kernel.all.runnable` and
/// `kernel.all.nprocs`.
pub(super) fn loadavg_value(snap: &Snap, item: u32, inst: i32) -> Result<Option<AtomValue>, PmError> {
    let Some(la) = snap.loadavg else { return Ok(None) };
    Ok(match item {
        0 => match inst {
            1 => la.load[0],
            5 => la.load[1],
            15 => la.load[2],
            _ => return Err(PmError::PM_ERR_INST),
        }
        .map(AtomValue::Float),
        1 => la.lastpid.map(AtomValue::U32),
        2 => la.runnable.map(AtomValue::U32),
        3 => la.nprocs.map(AtomValue::U32),
        _ => return Err(PmError::PM_ERR_PMID),
    })
}

/// `kernel.all.uptime` and `kernel.all.idletime`.
pub(super) fn uptime_value(snap: &Snap, item: u32) -> Result<Option<AtomValue>, PmError> {
    let Some(up) = snap.uptime else { return Ok(None) };
    Ok(match item {
        0 => up.uptime,
        1 => up.idletime,
        _ => return Err(PmError::PM_ERR_PMID),
    }
    .map(AtomValue::Double))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::testkit::*;

    #[test]
    fn processes_are_listed_again_only_when_tasks_may_have_come_or_gone() {
        let mut src = source(None);
        let procs = |src: &mut LinuxSource<Mem>| values(src, "proc.nprocs");
        let set = |src: &mut LinuxSource<Mem>, forks: u64, tasks: u32, pids: &[&str]| {
            let stat = format!("cpu  1 2 3 4 5 6 7 8 9 10\ncpu0 1 2 3 4 5 6 7 8 9 10\nprocesses {forks}\n");
            let loadavg = format!("0.10 0.20 0.30 1/{tasks} 999\n");
            src.files.files.insert("/proc/stat".into(), stat.into_bytes());
            src.files.files.insert("/proc/loadavg".into(), loadavg.into_bytes());
            src.files.proc_entries = pids.iter().map(|p| p.to_string()).chain(["self".into(), "stat".into()]).collect();
        };
        let listings = |src: &LinuxSource<Mem>| src.files.proc_listings.get();
        src.files.live = true;
        set(&mut src, 100, 50, &["1", "2", "3"]);
        assert_eq!(procs(&mut src), u32s(&[(PM_IN_NULL, 3)]));
        assert_eq!(listings(&src), 1);
        // neither counter moved: the listing stands (a listing made now
        // would differ only if the kernel's counters lied)
        set(&mut src, 100, 50, &["1", "2", "3", "4"]);
        assert_eq!(procs(&mut src), u32s(&[(PM_IN_NULL, 3)]));
        assert_eq!(listings(&src), 1);
        // a task created (a thread, say): listed again
        set(&mut src, 101, 51, &["1", "2", "3", "4"]);
        assert_eq!(procs(&mut src), u32s(&[(PM_IN_NULL, 4)]));
        assert_eq!(listings(&src), 2);
        // one created and one released: the task count is as it was, the
        // creations are not
        set(&mut src, 102, 51, &["1", "2", "4", "5"]);
        assert_eq!(procs(&mut src), u32s(&[(PM_IN_NULL, 4)]));
        assert_eq!(listings(&src), 3);
        // one released
        set(&mut src, 102, 50, &["1", "2", "4"]);
        assert_eq!(procs(&mut src), u32s(&[(PM_IN_NULL, 3)]));
        assert_eq!(listings(&src), 4);
        // a counter missing: listed every time
        src.files.files.insert("/proc/loadavg".into(), b"garbage\n".to_vec());
        assert_eq!(procs(&mut src), u32s(&[(PM_IN_NULL, 3)]));
        assert_eq!(procs(&mut src), u32s(&[(PM_IN_NULL, 3)]));
        assert_eq!(listings(&src), 6);
        // not the running system (a snapshot): listed every time
        let mut snap = source(None);
        set(&mut snap, 100, 50, &["1", "2"]);
        assert_eq!(procs(&mut snap), u32s(&[(PM_IN_NULL, 2)]));
        set(&mut snap, 100, 50, &["1", "2", "3"]);
        assert_eq!(procs(&mut snap), u32s(&[(PM_IN_NULL, 3)]));
        assert_eq!(listings(&snap), 2);
    }

    #[test]
    fn uname_comes_from_proc_sys_kernel_and_the_release_files() {
        let string = |s: &str| vec![(-1, Value::from_atom(&AtomValue::String(s.as_bytes().to_vec())))];
        let with = |extra: &[(&str, &str)]| {
            let mut src = source(None);
            for (p, v) in extra {
                src.files.files.insert(p.to_string(), v.as_bytes().to_vec());
            }
            src
        };
        let mut src = with(&[
            ("/proc/sys/kernel/osrelease", "6.1.0-9\n"),
            ("/proc/sys/kernel/ostype", "Linux\n"),
            ("/proc/sys/kernel/hostname", "box\n"),
            ("/etc/debian_version", "12.11\n"),
            ("/etc/lsb-release", "DISTRIB_ID=Ubuntu\n"),
        ]);
        assert_eq!(values(&mut src, "kernel.uname.release"), string("6.1.0-9"));
        assert_eq!(values(&mut src, "kernel.uname.sysname"), string("Linux"));
        assert_eq!(values(&mut src, "kernel.uname.nodename"), string("box"));
        // no /proc/sys/kernel/arch (before Linux 6.1): no value
        assert_eq!(values(&mut src, "kernel.uname.machine"), vec![]);
        // debian_version comes first, with a prefix
        assert_eq!(values(&mut src, "kernel.uname.distro"), string("Debian 12.11"));
        // read once, as the PMDA reads them when it starts
        src.files.files.insert("/proc/sys/kernel/hostname".into(), b"other\n".to_vec());
        assert_eq!(values(&mut src, "kernel.uname.nodename"), string("box"));
        let mut src = with(&[("/etc/lsb-release", "DISTRIB_ID=Ubuntu\nDISTRIB_RELEASE=24.04\n")]);
        assert_eq!(values(&mut src, "kernel.uname.distro"), string("Ubuntu"));
        // an empty release file, or none: "?"
        assert_eq!(values(&mut with(&[("/etc/debian_version", "")]), "kernel.uname.distro"), string("?"));
        assert_eq!(values(&mut with(&[]), "kernel.uname.distro"), string("?"));
    }
}
