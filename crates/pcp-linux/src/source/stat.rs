//! /proc/stat (cluster 0 but the disks): the CPU times, interrupts,
//! context switches, forks, the page and swap counts and `hinv.ncpu`.

use super::{count32, is_disk_item, num, LinuxSource, Snap};
use crate::files::Files;
use crate::parse;
use pcp_core::{AtomValue, MetricType, PmError};

/// How far /proc/stat's iowait may step back before it counts as a wrap.
const WAITIO_SLOP: u64 = 100;

impl<F: Files> LinuxSource<F> {
    /// The configured CPUs: the option, else the running system's (the
    /// PMDA's `sysconf(_SC_NPROCESSORS_CONF)`, of the live system even
    /// over a snapshot's files).
    pub(super) fn ncpus_conf(&self) -> u32 {
        if let Some(n) = self.opts.ncpus {
            return n.max(1);
        }
        let live = crate::files::RootFiles::new("/");
        let from_possible = live.read("/sys/devices/system/cpu/possible").ok().and_then(|t| parse::cpu_list_count(&t));
        let n = from_possible.or_else(|| {
            let names = live.list("/sys/devices/system/cpu").ok()?;
            let n = names
                .iter()
                .filter(|n| {
                    n.strip_prefix("cpu").is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
                })
                .count();
            u32::try_from(n).ok().filter(|&n| n > 0)
        });
        n.unwrap_or(1).max(1)
    }

    pub(super) fn refresh_stat(&mut self, snap: &mut Snap) {
        if !self.cpus_ready {
            self.cpus_ready = true;
            let n = self.ncpus_conf();
            for i in 0..n {
                self.cpus.add(&format!("cpu{i}"));
            }
            // the CPUs a NUMA node lists (all, without nodes): no other
            // is ever online for the PMDA; those beyond the configured
            // ones numbered in the order found
            let files: &dyn Files = &self.files;
            let listed = super::cpuinfo::topology(files, n, self.opts.single_node).1;
            for &(cpu, _) in &listed {
                self.cpus.add(&format!("cpu{cpu}"));
                let at = cpu as usize;
                if at < 1 << 16 {
                    if self.cpus_listed.len() <= at {
                        self.cpus_listed.resize(at + 1, false);
                    }
                    self.cpus_listed[at] = true;
                }
            }
        }
        let size = self.cpus.len();
        self.cpus.deactivate_all();
        let Some(mut st) = self.with_file("/proc/stat", |_, t| parse::stat(t)) else { return };
        if let Some(all) = st.all.as_mut() {
            if let Some(w) = all.wait {
                all.wait = Some(monotone_wait(&mut self.prev_wait_all, w));
            }
        }
        if size == 1 {
            // one CPU: its times are the aggregate line's
            if let Some(inst) = self.cpus.add("cpu0") {
                snap.cpu.insert(inst, st.all.unwrap_or_default());
            }
        } else {
            for (id, times) in &st.cpus {
                let name = format!("cpu{id}");
                // only CPUs the indom was set up with, and a node lists,
                // count
                let listed = usize::try_from(*id).ok().and_then(|i| self.cpus_listed.get(i)).copied();
                if !self.cpus.contains(&name) || listed != Some(true) {
                    continue;
                }
                let Some(inst) = self.cpus.add(&name) else { continue };
                let mut t = *times;
                if let Some(w) = t.wait {
                    let prev = self.prev_wait.entry(inst).or_insert(0);
                    t.wait = Some(monotone_wait(prev, w));
                }
                snap.cpu.insert(inst, t);
            }
        }
        snap.stat = Some(st);
    }

    /// The CPU times of NUMA node instance `inst`: each time summed over
    /// the node's CPUs that /proc/stat lists.
    fn node_times(&self, snap: &Snap, inst: i32) -> Result<parse::CpuTimes, PmError> {
        let area = self.area_index.indom(19).map(|a| &self.areas[a]).ok_or(PmError::PM_ERR_INST)?;
        let name = area.instances(19).into_iter().find(|(i, _)| *i == inst).ok_or(PmError::PM_ERR_INST)?.1;
        let node: u32 = name.strip_prefix("node").and_then(|n| n.parse().ok()).ok_or(PmError::PM_ERR_INST)?;
        let nodes = area.cpu_nodes().unwrap_or_default();
        let mut sum = parse::CpuTimes::default();
        let add = |a: &mut Option<u64>, b: Option<u64>| *a = Some(a.unwrap_or(0).wrapping_add(b.unwrap_or(0)));
        for (inst, t) in &snap.cpu {
            let number = self.cpus.name(*inst).and_then(|n| n.strip_prefix("cpu")?.parse::<usize>().ok());
            if number.and_then(|c| nodes.get(c)).copied().flatten() != Some(node) {
                continue;
            }
            add(&mut sum.user, t.user);
            add(&mut sum.nice, t.nice);
            add(&mut sum.sys, t.sys);
            add(&mut sum.idle, t.idle);
            add(&mut sum.wait, t.wait);
            add(&mut sum.irq, t.irq);
            add(&mut sum.sirq, t.sirq);
            add(&mut sum.steal, t.steal);
            add(&mut sum.guest, t.guest);
            add(&mut sum.guest_nice, t.guest_nice);
        }
        Ok(sum)
    }

    pub(super) fn stat_value(
        &self,
        snap: &Snap,
        ty: MetricType,
        item: u32,
        inst: i32,
    ) -> Result<Option<AtomValue>, PmError> {
        if is_disk_item(item) {
            return self.disk_value(snap, ty, item, inst);
        }
        // kernel.pernode.cpu.*: the per-CPU metric of the same time, over
        // the sums of the times of the node's CPUs
        let pernode = match item {
            62 => Some(0),
            63 => Some(1),
            64 => Some(2),
            65 => Some(3),
            66 => Some(31),
            67 => Some(58),
            68 => Some(61),
            69 => Some(30),
            70 => Some(56),
            71 => Some(57),
            77 => Some(76),
            85 => Some(83),
            86 => Some(84),
            _ => None,
        };
        let item = pernode.unwrap_or(item);
        let percpu = matches!(item, 0..=3 | 30 | 31 | 56..=58 | 61 | 76 | 83 | 84);
        let allcpu = matches!(item, 20..=23 | 34 | 35 | 53..=55 | 60 | 78 | 81 | 82);
        if percpu || allcpu {
            let t = if pernode.is_some() {
                self.node_times(snap, inst)?
            } else if percpu {
                *snap.cpu.get(&inst).ok_or(PmError::PM_ERR_INST)?
            } else {
                match snap.stat.as_ref().and_then(|s| s.all) {
                    Some(t) => t,
                    None => return Ok(None),
                }
            };
            let hz = f64::from(self.opts.hz.max(1));
            let diff = |a: Option<u64>, b: Option<u64>| Some(a?.wrapping_sub(b?));
            let ticks = match item {
                0 | 20 => t.user,
                1 | 21 => t.nice,
                2 | 22 => t.sys,
                3 | 23 => t.idle,
                30 | 35 => t.wait,
                31 | 34 => {
                    // hard and soft interrupt time, added in double precision
                    let (Some(a), Some(b)) = (t.irq, t.sirq) else { return Ok(None) };
                    return Ok(Some(num(ty, (1000.0 * (a as f64 + b as f64) / hz) as u64)));
                }
                53 | 56 => t.sirq,
                54 | 57 => t.irq,
                55 | 58 => t.steal,
                60 | 61 => t.guest,
                76 | 78 => diff(t.user, t.guest),
                81 | 83 => t.guest_nice,
                82 | 84 => diff(t.nice, t.guest_nice),
                _ => return Err(PmError::PM_ERR_PMID),
            };
            return Ok(ticks.map(|v| num(ty, (1000.0 * v as f64 / hz) as u64)));
        }
        match item {
            8 | 9 => {
                // pages swapped, from /proc/vmstat (or /proc/stat before 2.6)
                let i = (item - 8) as usize;
                Ok(match &snap.vmstat {
                    Some(v) => [v.pswpin, v.pswpout][i].map(|x| AtomValue::U32(x as u32)),
                    None => snap.stat.as_ref().and_then(|s| s.swap[i]).map(AtomValue::U32),
                })
            }
            10 | 11 => {
                if snap.vmstat.is_some() {
                    return Err(PmError::PM_ERR_APPVERSION);
                }
                Ok(snap.stat.as_ref().and_then(|s| s.page[(item - 10) as usize]).map(AtomValue::U32))
            }
            12 => Ok(snap.stat.as_ref().and_then(|s| s.intr).map(|v| num(ty, v))),
            13 => Ok(snap.stat.as_ref().and_then(|s| s.ctxt).map(|v| num(ty, v))),
            14 => Ok(snap.stat.as_ref().and_then(|s| s.processes).map(|v| num(ty, v))),
            15 => Ok(snap.stat.as_ref().and_then(|s| s.procs_running).map(|v| num(ty, v))),
            16 => Ok(snap.stat.as_ref().and_then(|s| s.procs_blocked).map(|v| num(ty, v))),
            17 => Ok(snap.stat.as_ref().and_then(|s| s.btime).map(|v| AtomValue::I64(v as i64))),
            32 => Ok(Some(AtomValue::U32(count32(self.cpus.active_count())))),
            48 => Ok(Some(AtomValue::U32(self.opts.hz))),
            _ => Err(PmError::PM_ERR_PMID),
        }
    }
}

/// /proc/stat's iowait can step back a little; the PMDA holds the last
/// value until the kernel catches up, unless the drop is large (a wrap).
fn monotone_wait(prev: &mut u64, cur: u64) -> u64 {
    if *prev > 0 && cur < *prev && cur > prev.wrapping_sub(WAITIO_SLOP) {
        *prev
    } else {
        *prev = cur;
        cur
    }
}
