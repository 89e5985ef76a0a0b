//! /proc/meminfo (`mem.*`, `swap.*` totals, `hinv.physmem`,
//! `hinv.pagesize`) and /proc/vmstat (`mem.vmstat.*`, `swap.pages*`).

use super::{num, LinuxSource, Need, Snap};
use crate::files::Files;
use crate::parse::{self, MemField, Meminfo};
use pcp_core::{AtomValue, MetricType, PmError};

/// `mem.vmstat.*`.
pub(super) const VMSTAT_CLUSTER: u32 = 28;

/// The /proc/vmstat fields `mem.vmstat.*` serves, sorted, with their
/// items.
pub(super) fn vmstat_items() -> Vec<(&'static [u8], u32)> {
    let mut v: Vec<_> = crate::metrics()
        .iter()
        .filter(|m| m.pmid.cluster() == VMSTAT_CLUSTER)
        .filter_map(|m| Some((m.name.strip_prefix("mem.vmstat.")?.as_bytes(), m.pmid.item())))
        .collect();
    v.sort_unstable();
    v
}

impl<F: Files> LinuxSource<F> {
    /// /proc/vmstat: the swap counters (`swap.*`, read up to them alone
    /// when they are all that is asked for) and `mem.vmstat.*`.
    pub(super) fn refresh_vmstat(&mut self, need: &Need, snap: &mut Snap) {
        if need.vmstat && !need.vmstat_all {
            // only the swap counters: /proc/vmstat read up to them (the
            // kernel then writes out no more of it), asked for as far as
            // they ended last time and a little more
            let mut buf = std::mem::take(&mut self.scratch);
            let first = self.vmstat_swap_end.map_or(4096, |e| e + 256);
            if self.files.read_start("/proc/vmstat", &mut buf, first, &|t| parse::vmstat_swap_end(t).is_some()).is_ok()
            {
                self.vmstat_swap_end = parse::vmstat_swap_end(&buf);
                snap.vmstat = Some(parse::vmstat_swap(&buf));
            }
            self.scratch = buf;
        } else if need.vmstat || need.vmstat_all {
            let (swap, all) = self
                .with_file("/proc/vmstat", |s, t| {
                    (need.vmstat.then(|| parse::vmstat_swap(t)), need.vmstat_all.then(|| s.vmstat_all(t)))
                })
                .unwrap_or_default();
            snap.vmstat = swap;
            snap.vmstat_all = all;
        }
    }

    /// `mem.vmstat.*` from /proc/vmstat as `refresh_proc_vmstat` takes
    /// them: each field the PMDA knows, by item (`u64::MAX` where the kernel
    /// has none); the totals of the `pgsteal_*`, `pgscan_kswapd*` and
    /// `pgscan_direct*` fields read; `nr_slab` and `thp_split`, where the
    /// kernel has split them, the sums of their parts (missing parts
    /// counting as `u64::MAX`, as the PMDA's -1).
    fn vmstat_all(&mut self, text: &[u8]) -> Vec<u64> {
        let items = &self.vmstat_items;
        let item = |name: &[u8]| items.binary_search_by(|(f, _)| (*f).cmp(name)).ok().map(|i| items[i].1 as usize);
        let mut v = vec![u64::MAX; items.iter().map(|(_, i)| *i as usize + 1).max().unwrap_or(0)];
        let (mut steal, mut kswapd, mut direct) = (0u64, 0u64, 0u64);
        for (k, (name, value)) in parse::vmstat_lines(text).enumerate() {
            // the field at this line last time, or looked up afresh
            let known = match self.vmstat_lines.get(k) {
                Some((seen, i)) if **seen == *name => i.map(|i| i as usize),
                _ => {
                    let i = item(name);
                    let entry = (name.into(), i.map(|i| i as u32));
                    match self.vmstat_lines.get_mut(k) {
                        Some(e) => *e = entry,
                        None => self.vmstat_lines.push(entry),
                    }
                    i
                }
            };
            let (Some(i), Some(x)) = (known, value) else { continue };
            v[i] = x;
            if name.starts_with(b"pgsteal_") {
                steal = steal.wrapping_add(x);
            } else if name.starts_with(b"pgscan_kswapd") {
                kswapd = kswapd.wrapping_add(x);
            } else if name.starts_with(b"pgscan_direct") {
                direct = direct.wrapping_add(x);
            }
        }
        let mut set = |name: &[u8], x: u64| {
            if let Some(i) = item(name) {
                v[i] = x;
            }
        };
        set(b"pgsteal_total", steal);
        set(b"pgscan_kswapd_total", kswapd);
        set(b"pgscan_direct_total", direct);
        let get = |v: &[u64], name: &[u8]| item(name).map_or(u64::MAX, |i| v[i]);
        for (whole, a, b) in [
            (&b"nr_slab"[..], &b"nr_slab_reclaimable"[..], &b"nr_slab_unreclaimable"[..]),
            (b"thp_split", b"thp_split_page", b"thp_split_page_failed"),
        ] {
            if get(&v, whole) == u64::MAX {
                let sum = get(&v, a).wrapping_add(get(&v, b));
                if let Some(i) = item(whole) {
                    v[i] = sum;
                }
            }
        }
        v
    }

    pub(super) fn meminfo_with_available(&self, text: &[u8]) -> Meminfo {
        let mut m = parse::meminfo(text);
        if m.get(MemField::MemAvailable).is_none() {
            // kernels before 3.14: the PMDA's estimate
            let (Some(free), Some(af), Some(inf), Some(srec)) = (
                m.get(MemField::MemFree),
                m.get(MemField::ActiveFile),
                m.get(MemField::InactiveFile),
                m.get(MemField::SReclaimable),
            ) else {
                return m;
            };
            if m.get(MemField::MemTotal).is_none() {
                return m;
            }
            let shift = self.opts.page_size.max(1).trailing_zeros();
            let low = self.read("/proc/zoneinfo").map_or(0, |z| parse::zoneinfo_low_pages(&z)).wrapping_shl(shift);
            let (free, af, inf, srec) = (free as i64, af as i64, inf as i64, srec as i64);
            let mut avail = free.wrapping_sub(low);
            let pagecache = af.wrapping_add(inf);
            avail = avail.wrapping_add(pagecache.wrapping_sub((pagecache / 2).min(low)));
            avail = avail.wrapping_add(srec).wrapping_sub((srec / 2).min(low));
            m.set(MemField::MemAvailable, avail.max(0) as u64);
        }
        m
    }
}

/// `mem.vmstat.*`.
pub(super) fn vmstat_value(snap: &Snap, item: u32) -> Result<Option<AtomValue>, PmError> {
    let Some(v) = &snap.vmstat_all else { return Ok(None) };
    let x = *v.get(item as usize).ok_or(PmError::PM_ERR_PMID)?;
    Ok((x != u64::MAX).then_some(AtomValue::U64(x)))
}

pub(super) fn mem_value(m: Option<&Meminfo>, ty: MetricType, item: u32, page_size: u32) -> Option<AtomValue> {
    use MemField as F;
    if item == 11 {
        return Some(AtomValue::U32(page_size));
    }
    let m = m?;
    let g = |f: F| m.get(f);
    let v: u64 = match item {
        0 => g(F::MemTotal)?,
        1 => g(F::MemTotal)?.wrapping_sub(g(F::MemFree)?),
        2 | 10 => g(F::MemFree)?,
        3 => g(F::MemShared)?,
        4 => g(F::Buffers)?,
        5 => g(F::Cached)?,
        6 => g(F::SwapTotal)? << 10,
        7 => g(F::SwapTotal)?.wrapping_sub(g(F::SwapFree)?) << 10,
        8 => g(F::SwapFree)? << 10,
        9 => g(F::MemTotal)? >> 10,
        12 => {
            let other = (g(F::MemTotal)? as i64)
                .wrapping_sub(g(F::MemFree)? as i64)
                .wrapping_sub(g(F::Cached)? as i64)
                .wrapping_sub(g(F::Buffers)? as i64);
            other.max(0) as u64
        }
        13 => g(F::SwapCached)?,
        14 => g(F::Active)?,
        15 => g(F::Inactive)?,
        16 => g(F::HighTotal)?,
        17 => g(F::HighFree)?,
        18 => g(F::LowTotal)?,
        19 => g(F::LowFree)?,
        20 => g(F::SwapTotal)?,
        21 => g(F::SwapFree)?,
        22 => g(F::Dirty)?,
        23 => g(F::Writeback)?,
        24 => g(F::Mapped)?,
        25 => g(F::Slab)?,
        26 => g(F::CommittedAs)?,
        27 => g(F::PageTables)?,
        28 => g(F::ReverseMaps)?,
        29 => {
            let clean = (g(F::Cached)? as i64).wrapping_sub(g(F::Dirty)? as i64).wrapping_sub(g(F::Writeback)? as i64);
            clean.max(0) as u64
        }
        30 => g(F::AnonPages)?,
        31 => g(F::CommitLimit)?,
        32 => g(F::Bounce)?,
        33 => g(F::NfsUnstable)?,
        34 => g(F::SReclaimable)?,
        35 => g(F::SUnreclaim)?,
        36 => g(F::ActiveAnon)?,
        37 => g(F::InactiveAnon)?,
        38 => g(F::ActiveFile)?,
        39 => g(F::InactiveFile)?,
        40 => g(F::Unevictable)?,
        41 => g(F::Mlocked)?,
        42 => g(F::Shmem)?,
        43 => g(F::KernelStack)?,
        44 => g(F::HugePagesTotal)?,
        45 => g(F::HugePagesFree)?,
        46 => g(F::HugePagesRsvd)?,
        47 => g(F::HugePagesSurp)?,
        48 => g(F::DirectMap4k)?,
        49 => g(F::DirectMap2M)?,
        50 => g(F::VmallocTotal)?,
        51 => g(F::VmallocUsed)?,
        52 => g(F::VmallocChunk)?,
        53 => g(F::MmapCopy)?,
        54 => g(F::Quicklists)?,
        55 => g(F::HardwareCorrupted)?,
        56 => g(F::AnonHugePages)?,
        57 => g(F::DirectMap1G)?,
        58 => g(F::MemAvailable)?,
        59 => g(F::Hugepagesize)? << 10,
        60..=63 => {
            let pages =
                g([F::HugePagesTotal, F::HugePagesFree, F::HugePagesRsvd, F::HugePagesSurp][(item - 60) as usize])?;
            pages.wrapping_mul(g(F::Hugepagesize)? << 10)
        }
        _ => return None,
    };
    Some(num(ty, v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::testkit::*;

    #[test]
    fn vmstat_fields_totals_and_split_counters() {
        let u64s = |x: u64| vec![(-1, Value::from_atom(&AtomValue::U64(x)))];
        let mut src = source(None);
        src.files.files.insert(
            "/proc/vmstat".into(),
            b"nr_free_pages 12\npgsteal_kswapd 5\npgsteal_direct 7\npgscan_kswapd 100\npgscan_direct 1\n\
              pgscan_direct_throttle 2\nnr_slab_reclaimable 3\nnr_slab_unreclaimable 4\nthp_split_page 9\n\
              nosuch_field 1\nnr_dirty\nnr_mapped x-8y\n"
                .to_vec(),
        );
        assert_eq!(values(&mut src, "mem.vmstat.nr_free_pages"), u64s(12));
        assert_eq!(values(&mut src, "mem.vmstat.pgsteal_total"), u64s(12));
        assert_eq!(values(&mut src, "mem.vmstat.pgscan_kswapd_total"), u64s(100));
        assert_eq!(values(&mut src, "mem.vmstat.pgscan_direct_total"), u64s(3));
        // split in 2.6.18: the parts' sum
        assert_eq!(values(&mut src, "mem.vmstat.nr_slab"), u64s(7));
        // a part missing counts as the PMDA's -1
        assert_eq!(values(&mut src, "mem.vmstat.thp_split"), u64s(8));
        // no number on the line: no value; the first digits after the name
        assert_eq!(values(&mut src, "mem.vmstat.nr_dirty"), vec![]);
        assert_eq!(values(&mut src, "mem.vmstat.nr_mapped"), u64s(8));
        assert_eq!(values(&mut src, "mem.vmstat.compact_stall"), vec![]);
        // and the swap metrics still read the same file
        assert_eq!(values(&mut src, "swap.pagesin"), vec![]);
    }
}
