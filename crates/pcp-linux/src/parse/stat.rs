//! /proc/stat.

use crate::scan::{lines, starts, Scan};

/// The ten CPU time columns of a `cpu` line, in USER_HZ ticks; columns an
/// older kernel (or a damaged line) lacks are `None`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuTimes {
    /// user (includes guest).
    pub user: Option<u64>,
    /// nice (includes guest_nice).
    pub nice: Option<u64>,
    /// system.
    pub sys: Option<u64>,
    /// idle.
    pub idle: Option<u64>,
    /// iowait.
    pub wait: Option<u64>,
    /// irq (hard interrupts).
    pub irq: Option<u64>,
    /// softirq.
    pub sirq: Option<u64>,
    /// steal.
    pub steal: Option<u64>,
    /// guest.
    pub guest: Option<u64>,
    /// guest_nice.
    pub guest_nice: Option<u64>,
}

impl CpuTimes {
    fn parse(s: &mut Scan<'_>) -> CpuTimes {
        let mut v = [None; 10];
        for slot in &mut v {
            match s.u64() {
                Some(x) => *slot = Some(x),
                None => break,
            }
        }
        let [user, nice, sys, idle, wait, irq, sirq, steal, guest, guest_nice] = v;
        CpuTimes { user, nice, sys, idle, wait, irq, sirq, steal, guest, guest_nice }
    }
}

/// What the Linux PMDA takes from /proc/stat.
#[doc(alias = "proc_stat_t")]
#[doc(alias = "refresh_proc_stat")]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stat {
    /// The aggregate `cpu` line (only when it is the first line, as the
    /// PMDA reads it).
    pub all: Option<CpuTimes>,
    /// The `cpuN` lines: CPU number and times, in file order.
    pub cpus: Vec<(u32, CpuTimes)>,
    /// `page` in/out (2.4 kernels).
    pub page: [Option<u32>; 2],
    /// `swap` in/out (2.4 kernels).
    pub swap: [Option<u32>; 2],
    /// The first number of `intr`: all interrupts.
    pub intr: Option<u64>,
    /// `ctxt`: context switches.
    pub ctxt: Option<u64>,
    /// `btime`: boot time, seconds since the epoch.
    pub btime: Option<u64>,
    /// `processes`: forks since boot.
    pub processes: Option<u64>,
    /// `procs_running`.
    pub procs_running: Option<u64>,
    /// `procs_blocked`.
    pub procs_blocked: Option<u64>,
}

/// The value after `key ` on the first line starting with it.
fn keyed<'a>(all: &[&'a [u8]], key: &[u8]) -> Option<Scan<'a>> {
    all.iter().find(|l| starts(l, key) && l.get(key.len()) == Some(&b' ')).map(|l| Scan::new(&l[key.len()..]))
}

/// Parse /proc/stat.
///
/// ```
/// use pcp_linux::parse::stat;
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshot/vm1/proc/stat");
/// let st = stat(&std::fs::read(path).unwrap());
/// // "cpu  2242037 1 261974 1863426 10387 0 2477 2961 0 0"
/// let all = st.all.unwrap();
/// assert_eq!((all.user, all.nice, all.sys, all.idle), (Some(2242037), Some(1), Some(261974), Some(1863426)));
/// assert_eq!(st.cpus.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [0, 1]);
/// assert_eq!(st.cpus[1].1.user, Some(1146526));
/// assert_eq!((st.ctxt, st.btime, st.processes), (Some(23705605), Some(1795280850), Some(1159725)));
///
/// // an old kernel's shorter cpu line: the missing columns have no value
/// let st = stat(b"cpu  10 20 30 40\n");
/// assert_eq!((st.all.unwrap().idle, st.all.unwrap().wait), (Some(40), None));
/// ```
pub fn stat(text: &[u8]) -> Stat {
    let all: Vec<&[u8]> = lines(text).collect();
    let mut st = Stat::default();
    if let Some(first) = all.first() {
        if let Some(rest) = first.strip_prefix(b"cpu ") {
            st.all = Some(CpuTimes::parse(&mut Scan::new(rest)));
        }
    }
    for l in &all {
        let Some(rest) = l.strip_prefix(b"cpu") else { continue };
        if !rest.first().is_some_and(u8::is_ascii_digit) {
            continue;
        }
        let mut s = Scan::new(rest);
        // the PMDA takes the number with atoi; it always has a digit here
        let Some(id) = s.u32() else { continue };
        st.cpus.push((id, CpuTimes::parse(&mut s)));
    }
    if let Some(mut s) = keyed(&all, b"page") {
        st.page[0] = s.u32();
        st.page[1] = st.page[0].and_then(|_| s.u32());
    }
    if let Some(mut s) = keyed(&all, b"swap") {
        st.swap[0] = s.u32();
        st.swap[1] = st.swap[0].and_then(|_| s.u32());
    }
    st.intr = keyed(&all, b"intr").and_then(|mut s| s.u64());
    st.ctxt = keyed(&all, b"ctxt").and_then(|mut s| s.u64());
    st.btime = keyed(&all, b"btime").and_then(|mut s| s.u64());
    st.processes = keyed(&all, b"processes").and_then(|mut s| s.u64());
    st.procs_running = keyed(&all, b"procs_running").and_then(|mut s| s.u64());
    st.procs_blocked = keyed(&all, b"procs_blocked").and_then(|mut s| s.u64());
    st
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_cpu_lines_and_counters() {
        let st = stat(
            b"cpu  10 1 20 30 4 0 5 6 0 0\ncpu0 5 0 10 15 2 0 2 3 0 0\ncpu1 5 1 10 15 2 0 3 3\n\
              intr 999 1 2 3\nctxt 77\nbtime 1700000000\nprocesses 12\nprocs_running 3\nprocs_blocked 0\n",
        );
        let all = st.all.unwrap();
        assert_eq!((all.user, all.sirq, all.guest_nice), (Some(10), Some(5), Some(0)));
        assert_eq!(st.cpus.len(), 2);
        assert_eq!(st.cpus[1].0, 1);
        assert_eq!((st.cpus[1].1.steal, st.cpus[1].1.guest), (Some(3), None));
        assert_eq!((st.intr, st.ctxt, st.btime), (Some(999), Some(77), Some(1700000000)));
        assert_eq!((st.processes, st.procs_running, st.procs_blocked), (Some(12), Some(3), Some(0)));
        assert_eq!(st.page, [None, None]);
    }

    #[test]
    fn damaged_lines_give_no_values() {
        let st = stat(b"cpu x\ncpu0\nintr\nctxt -\n");
        assert_eq!(st.all, Some(CpuTimes::default()));
        assert_eq!(st.cpus, vec![(0, CpuTimes::default())]);
        assert_eq!((st.intr, st.ctxt), (None, None));
        assert_eq!(stat(b"").all, None);
        // the aggregate line counts only when it is first
        assert_eq!(stat(b"intr 1\ncpu  1 2 3 4\n").all, None);
    }
}
