//! /proc/loadavg, /proc/meminfo, /proc/vmstat, /proc/uptime,
//! /proc/zoneinfo, /proc/self/mounts, /sys cpu lists, and the PMDA's
//! instance-domain cache files.

use crate::scan::{lines, Scan};

/// /proc/loadavg.
#[doc(alias = "proc_loadavg_t")]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LoadAvg {
    /// The 1, 5 and 15 minute load averages.
    pub load: [Option<f32>; 3],
    /// Runnable scheduling entities (before the `/`).
    pub runnable: Option<u32>,
    /// All scheduling entities, threads included (after the `/`).
    pub nprocs: Option<u32>,
    /// The most recently allocated process id.
    pub lastpid: Option<u32>,
}

/// Parse /proc/loadavg (`%f %f %f %u/%u %u`; reading stops at the first
/// field that does not match).
///
/// ```
/// use pcp_linux::parse::loadavg;
///
/// let la = loadavg(b"8.53 8.37 7.37 6/153 24492\n");
/// assert_eq!(la.load, [Some(8.53), Some(8.37), Some(7.37)]);
/// assert_eq!((la.runnable, la.nprocs, la.lastpid), (Some(6), Some(153), Some(24492)));
///
/// // a damaged file: the fields up to the damage, the rest "no value"
/// let la = loadavg(b"0.10 0.20 0.30 x/153 24492\n");
/// assert_eq!(la.load, [Some(0.1), Some(0.2), Some(0.3)]);
/// assert_eq!((la.runnable, la.nprocs), (None, None));
/// assert_eq!(loadavg(b"").load, [None; 3]);
/// ```
pub fn loadavg(text: &[u8]) -> LoadAvg {
    let line = lines(text).next().unwrap_or_default();
    let mut s = Scan::new(line);
    let mut la = LoadAvg::default();
    for slot in &mut la.load {
        *slot = s.f32();
        if slot.is_none() {
            return la;
        }
    }
    la.runnable = s.u32();
    if la.runnable.is_none() || !s.lit(b'/') {
        return la;
    }
    la.nprocs = s.u32();
    if la.nprocs.is_some() {
        la.lastpid = s.u32();
    }
    la
}

/// /proc/uptime: seconds up and seconds all CPUs spent idle.
#[doc(alias = "proc_uptime_t")]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Uptime {
    /// Seconds since boot.
    pub uptime: Option<f64>,
    /// Idle seconds, summed over CPUs.
    pub idletime: Option<f64>,
}

/// Parse /proc/uptime (`%lf %lf`).
pub fn uptime(text: &[u8]) -> Uptime {
    let mut s = Scan::new(text);
    let uptime = s.f64();
    let idletime = uptime.and_then(|_| s.f64());
    Uptime { uptime, idletime }
}

macro_rules! mem_fields {
    ($($var:ident = $key:literal,)*) => {
        /// The /proc/meminfo fields the Linux PMDA reads.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum MemField { $($var,)* }

        impl MemField {
            /// Every field, in order.
            pub const ALL: &'static [MemField] = &[$(MemField::$var,)*];

            /// The field's name in /proc/meminfo.
            pub fn key(self) -> &'static str {
                match self { $(MemField::$var => $key,)* }
            }

            fn from_key(k: &[u8]) -> Option<MemField> {
                match k { $(k if k == $key.as_bytes() => Some(MemField::$var),)* _ => None }
            }
        }
    };
}

mem_fields! {
    MemTotal = "MemTotal",
    MemFree = "MemFree",
    MemAvailable = "MemAvailable",
    MemShared = "MemShared",
    Buffers = "Buffers",
    Cached = "Cached",
    SwapCached = "SwapCached",
    Active = "Active",
    Inactive = "Inactive",
    ActiveAnon = "Active(anon)",
    InactiveAnon = "Inactive(anon)",
    ActiveFile = "Active(file)",
    InactiveFile = "Inactive(file)",
    Unevictable = "Unevictable",
    Mlocked = "Mlocked",
    HighTotal = "HighTotal",
    HighFree = "HighFree",
    LowTotal = "LowTotal",
    LowFree = "LowFree",
    MmapCopy = "MmapCopy",
    SwapTotal = "SwapTotal",
    SwapFree = "SwapFree",
    Dirty = "Dirty",
    Writeback = "Writeback",
    AnonPages = "AnonPages",
    Mapped = "Mapped",
    Shmem = "Shmem",
    Slab = "Slab",
    SReclaimable = "SReclaimable",
    SUnreclaim = "SUnreclaim",
    KernelStack = "KernelStack",
    PageTables = "PageTables",
    Quicklists = "Quicklists",
    NfsUnstable = "NFS_Unstable",
    Bounce = "Bounce",
    WritebackTmp = "WritebackTmp",
    CommitLimit = "CommitLimit",
    CommittedAs = "Committed_AS",
    VmallocTotal = "VmallocTotal",
    VmallocUsed = "VmallocUsed",
    VmallocChunk = "VmallocChunk",
    HardwareCorrupted = "HardwareCorrupted",
    AnonHugePages = "AnonHugePages",
    ReverseMaps = "ReverseMaps",
    HugePagesTotal = "HugePages_Total",
    HugePagesFree = "HugePages_Free",
    HugePagesRsvd = "HugePages_Rsvd",
    HugePagesSurp = "HugePages_Surp",
    Hugepagesize = "Hugepagesize",
    DirectMap4k = "DirectMap4k",
    DirectMap2M = "DirectMap2M",
    DirectMap1G = "DirectMap1G",
}

/// /proc/meminfo: each field's number (kilobytes, or pages for the huge
/// page counts), `None` when absent.
#[doc(alias = "proc_meminfo_t")]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Meminfo {
    values: Vec<(MemField, u64)>,
}

impl Meminfo {
    /// The value of `f`, if the file had it.
    pub fn get(&self, f: MemField) -> Option<u64> {
        self.values.iter().find(|(k, _)| *k == f).map(|&(_, v)| v)
    }

    /// Set (or replace) the value of `f`.
    pub fn set(&mut self, f: MemField, v: u64) {
        match self.values.iter_mut().find(|(k, _)| *k == f) {
            Some(slot) => slot.1 = v,
            None => self.values.push((f, v)),
        }
    }
}

/// Parse /proc/meminfo: for each `Name:` the PMDA knows, the first number
/// after the colon (the last line wins for a repeated name). The PMDA's
/// "no value" mark is -1, so a value reading as all ones is absent too.
///
/// ```
/// use pcp_linux::parse::{meminfo, MemField};
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshot/vm1/proc/meminfo");
/// let m = meminfo(&std::fs::read(path).unwrap());
/// assert_eq!(m.get(MemField::MemTotal), Some(24_731_708)); // kB
/// assert_eq!(m.get(MemField::MemFree), Some(8_643_400));
///
/// let m = meminfo(b"MemTotal:  1000 kB\nMemFree: lots\n");
/// assert_eq!((m.get(MemField::MemTotal), m.get(MemField::MemFree)), (Some(1000), None));
/// ```
pub fn meminfo(text: &[u8]) -> Meminfo {
    let mut m = Meminfo::default();
    for l in lines(text) {
        let Some(colon) = l.iter().position(|&b| b == b':') else { continue };
        let Some(f) = MemField::from_key(&l[..colon]) else { continue };
        let rest = &l[colon + 1..];
        let Some(d) = rest.iter().position(u8::is_ascii_digit) else { continue };
        if let Some(v) = Scan::new(&rest[d..]).u64() {
            if v == u64::MAX {
                m.values.retain(|(k, _)| *k != f);
            } else {
                m.set(f, v);
            }
        }
    }
    m
}

/// The sum of the `low` watermarks of /proc/zoneinfo, in pages (what the
/// PMDA estimates `MemAvailable` from on kernels without it).
pub fn zoneinfo_low_pages(text: &[u8]) -> i64 {
    let mut sum: i64 = 0;
    for l in lines(text) {
        let Some(at) = l.windows(4).position(|w| w == b"low ") else { continue };
        let mut s = Scan::new(&l[at + 4..]);
        if let Some(v) = s.u64() {
            sum = sum.wrapping_add(v as i64);
        }
    }
    sum
}

/// The swap page counters of /proc/vmstat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VmstatSwap {
    /// `pswpin`: pages swapped in.
    pub pswpin: Option<u64>,
    /// `pswpout`: pages swapped out.
    pub pswpout: Option<u64>,
}

/// Parse `pswpin` and `pswpout` out of /proc/vmstat.
pub fn vmstat_swap(text: &[u8]) -> VmstatSwap {
    // the first line of each field, as the /proc/vmstat walk reads it; one
    // pass, and only those two numbers read
    let (mut pswpin, mut pswpout) = (None, None);
    for (name, rest) in vmstat_fields(text) {
        let slot = match name {
            b"pswpin" => &mut pswpin,
            b"pswpout" => &mut pswpout,
            _ => continue,
        };
        if slot.is_none() {
            *slot = Some(vmstat_value(rest).filter(|&x| x != u64::MAX));
            if pswpin.is_some() && pswpout.is_some() {
                break;
            }
        }
    }
    VmstatSwap { pswpin: pswpin.flatten(), pswpout: pswpout.flatten() }
}

/// Where in a start of /proc/vmstat the first `pswpin` and `pswpout`
/// lines are both whole: the end of the later one (after its newline), or
/// `None` while one is missing or cut short. What follows changes nothing
/// [`vmstat_swap`] finds.
pub fn vmstat_swap_end(text: &[u8]) -> Option<usize> {
    let (mut pswpin, mut pswpout) = (false, false);
    let mut at = 0;
    for line in text.split_inclusive(|&b| b == b'\n') {
        at += line.len();
        if line.last() != Some(&b'\n') {
            return None;
        }
        let name = &line[..memchr::memchr(b' ', line).unwrap_or(0)];
        match name {
            b"pswpin" => pswpin = true,
            b"pswpout" => pswpout = true,
            _ => continue,
        }
        if pswpin && pswpout {
            return Some(at);
        }
    }
    None
}

/// /proc/vmstat's lines as the PMDA reads them: the name up to the line's
/// first space (lines without one are skipped), and the number `%llu`
/// reads from the first digit after it (`None` without a digit).
pub fn vmstat_lines(text: &[u8]) -> impl Iterator<Item = (&[u8], Option<u64>)> {
    vmstat_fields(text).map(|(name, rest)| (name, vmstat_value(rest)))
}

/// /proc/vmstat's lines: the name up to the first space, and the rest.
fn vmstat_fields(text: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> {
    text.split(|&b| b == b'\n').filter_map(|line| {
        let sp = memchr::memchr(b' ', line)?;
        Some((&line[..sp], &line[sp + 1..]))
    })
}

/// The number `%llu` reads from the first digit of `rest`.
fn vmstat_value(rest: &[u8]) -> Option<u64> {
    rest.iter().position(u8::is_ascii_digit).and_then(|d| Scan::new(&rest[d..]).u64())
}

/// One line of /proc/self/mounts: the first four space-separated fields
/// (escapes such as `\040` are kept, as the PMDA keeps them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MountEntry {
    /// The mounted device (or source).
    pub device: String,
    /// The mount point.
    pub path: String,
    /// The file system type.
    pub fstype: String,
    /// The mount options, comma separated.
    pub options: String,
}

/// Parse /proc/self/mounts; lines with fewer than three fields are
/// skipped (a missing options field reads as empty).
pub fn mounts(text: &[u8]) -> Vec<MountEntry> {
    let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    mount_fields(text)
        .map(|[d, p, t, o]| MountEntry { device: s(d), path: s(p), fstype: s(t), options: s(o) })
        .collect()
}

/// The lines of /proc/self/mounts as [`mounts`] reads them, each as its
/// device, mount point, type and options, borrowed (nothing copied for
/// the lines a caller skips).
pub fn mount_fields(text: &[u8]) -> impl Iterator<Item = [&[u8]; 4]> {
    lines(text).filter_map(|l| {
        let mut f = l.split(|&b| b == b' ').filter(|w| !w.is_empty());
        let (d, p, t) = (f.next()?, f.next()?, f.next()?);
        Some([d, p, t, f.next().unwrap_or_default()])
    })
}

/// How many CPUs a sysfs CPU list such as `0-3,8,10-11` names; `None` if
/// it does not read as one.
pub fn cpu_list_count(text: &[u8]) -> Option<u32> {
    let text = std::str::from_utf8(text).ok()?.trim();
    if text.is_empty() {
        return None;
    }
    let mut n: u32 = 0;
    for part in text.split(',') {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a.parse::<u32>().ok()?, b.parse::<u32>().ok()?),
            None => {
                let a = part.parse::<u32>().ok()?;
                (a, a)
            }
        };
        n = n.checked_add(b.checked_sub(a)?.checked_add(1)?)?;
    }
    Some(n)
}

/// One entry of a PMDA instance-domain cache file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PmdaCacheEntry {
    /// The instance identifier.
    pub inst: i32,
    /// The instance name.
    pub name: String,
}

/// Parse a `pmdaCache` save file (`$PCP_VAR_DIR/config/pmda/DOMAIN.SERIAL`):
/// a header line whose first number is the version (1 or 2), then one
/// `inst stamp [key] name` line per instance. `None` for a bad header;
/// a bad entry line ends the list there.
#[doc(alias = "pmdaCacheOp")]
#[doc(alias = "PMDA_CACHE_LOAD")]
pub fn pmda_cache(text: &[u8]) -> Option<Vec<PmdaCacheEntry>> {
    let mut it = lines(text);
    let header = it.next()?;
    let version = Scan::new(header).i32()?;
    if !(1..=2).contains(&version) {
        return None;
    }
    let mut out = Vec::new();
    for l in it {
        let mut s = Scan::new(l);
        let Some(inst) = s.u64().and_then(|v| i32::try_from(v).ok()) else { break };
        if s.u64().is_none() {
            break;
        }
        let mut rest = s.rest();
        rest = &rest[rest.iter().take_while(|&&b| b == b' ' || b == b'\t').count()..];
        if let Some(r) = rest.strip_prefix(b"[") {
            let Some(end) = r.iter().position(|&b| b == b']') else { break };
            rest = &r[end + 1..];
            rest = &rest[rest.iter().take_while(|&&b| b == b' ' || b == b'\t').count()..];
        }
        if rest.is_empty() {
            break;
        }
        out.push(PmdaCacheEntry { inst, name: String::from_utf8_lossy(rest).into_owned() });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vmstat_swap_end_is_where_both_swap_lines_are_whole() {
        let text = b"nr_free_pages 5\npswpin 7\npgfault 9\npswpout 8\npswpin 1\n";
        let end = vmstat_swap_end(text).unwrap();
        assert_eq!(&text[..end], b"nr_free_pages 5\npswpin 7\npgfault 9\npswpout 8\n");
        assert_eq!(vmstat_swap(&text[..end]), vmstat_swap(text));
        // cut inside the second line, or before it: not yet
        assert_eq!(vmstat_swap_end(&text[..end - 1]), None);
        assert_eq!(vmstat_swap_end(&text[..20]), None);
        // a line without a space names nothing
        assert_eq!(vmstat_swap_end(b"pswpin\npswpout\n"), None);
        for cut in 0..text.len() {
            if let Some(e) = vmstat_swap_end(&text[..cut]) {
                assert_eq!(vmstat_swap(&text[..e]), vmstat_swap(text));
            }
        }
    }

    #[test]
    fn loadavg_fields_stop_at_the_first_bad_one() {
        let la = loadavg(b"6.07 7.30 6.31 9/147 4349\n");
        assert_eq!(la.load, [Some(6.07), Some(7.30), Some(6.31)]);
        assert_eq!((la.runnable, la.nprocs, la.lastpid), (Some(9), Some(147), Some(4349)));
        let la = loadavg(b"1.0 2.0 x 9/147 4349\n");
        assert_eq!(la.load, [Some(1.0), Some(2.0), None]);
        assert_eq!(la.nprocs, None);
        assert_eq!(loadavg(b"1 2 3 4 5").nprocs, None);
        assert_eq!(loadavg(b""), LoadAvg::default());
    }

    #[test]
    fn meminfo_takes_the_first_number_after_the_colon() {
        let m = meminfo(b"MemTotal:       24731708 kB\nMemFree: x 12 kB\nHugePages_Total:       0\nBogus: 1\nDirty:\n");
        assert_eq!(m.get(MemField::MemTotal), Some(24731708));
        assert_eq!(m.get(MemField::MemFree), Some(12));
        assert_eq!(m.get(MemField::HugePagesTotal), Some(0));
        assert_eq!(m.get(MemField::Dirty), None);
        assert_eq!(m.get(MemField::Cached), None);
        assert_eq!(meminfo(b"Cached: 18446744073709551615 kB\n").get(MemField::Cached), None);
    }

    #[test]
    fn small_files() {
        assert_eq!(uptime(b"21317.16 18634.20\n"), Uptime { uptime: Some(21317.16), idletime: Some(18634.20) });
        assert_eq!(uptime(b"x"), Uptime::default());
        let v = vmstat_swap(b"nr_free_pages 5\npswpin 3\npswpout 4\n");
        assert_eq!((v.pswpin, v.pswpout), (Some(3), Some(4)));
        // fields at line starts only, the first of a repeated one
        let v = vmstat_swap(b"xpswpin 9\npswpin 1\npswpin 7\npswpout 2");
        assert_eq!((v.pswpin, v.pswpout), (Some(1), Some(2)));
        assert_eq!(vmstat_swap(b"xpswpin 9\n"), VmstatSwap { pswpin: None, pswpout: None });
        assert_eq!(vmstat_swap(b""), VmstatSwap { pswpin: None, pswpout: None });
        assert_eq!(zoneinfo_low_pages(b"  pages free 1\n        low      10\n        low 5\n"), 15);
        assert_eq!(cpu_list_count(b"0-1\n"), Some(2));
        assert_eq!(cpu_list_count(b"0-3,8,10-11"), Some(7));
        assert_eq!(cpu_list_count(b"3-1"), None);
        assert_eq!(cpu_list_count(b""), None);
    }

    #[test]
    fn mounts_and_cache_files() {
        let m = mounts(b"/dev/vda / ext4 rw,relatime 0 0\nbroken line\nnone /x tmpfs\n");
        assert_eq!(m.len(), 2);
        assert_eq!((m[0].device.as_str(), m[0].path.as_str(), m[0].fstype.as_str()), ("/dev/vda", "/", "ext4"));
        assert_eq!(m[1].options, "");
        let c = pmda_cache(b"2 0 2147483647\n0 1795290294 lo\n3 1795290294 eth0\n").unwrap();
        assert_eq!(
            c,
            vec![PmdaCacheEntry { inst: 0, name: "lo".into() }, PmdaCacheEntry { inst: 3, name: "eth0".into() }]
        );
        assert_eq!(pmda_cache(b"9 0 0\n"), None);
        assert_eq!(pmda_cache(b"2 0 1\n5 1 [00ff] name with space\nbad\n6 1 x\n").unwrap().len(), 1);
    }
}
