//! /proc/net/dev and the interfaces' sysfs attributes and netlink
//! answers: `network.interface.*`.

use super::{count32, num, LinuxSource, Need, Snap};
use crate::files::Files;
use crate::parse;
use pcp_core::{AtomValue, MetricType, PmError};

/// The values the kernel's `ioctl`s and sysfs give for an interface
/// (`net_dev_t`): zero means "not known".
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Ioc {
    mtu: u32,
    speed: u32,
    ty: u32,
    duplex: u32,
    linkup: bool,
    running: bool,
    wireless: bool,
    virtuali: bool,
}

const IFF_UP: u64 = 0x1;
const IFF_RUNNING: u64 = 0x40;

impl<F: Files> LinuxSource<F> {
    pub(super) fn refresh_net(&mut self, need: &Need, snap: &mut Snap) {
        self.nets.deactivate_all();
        let read = self.with_file("/proc/net/dev", |s, text| {
            for line in parse::net_dev(text) {
                if line.name.is_empty() {
                    continue;
                }
                if let Some(inst) = s.nets.add(&line.name) {
                    snap.nets.insert(inst, (line.counters, Ioc::default()));
                }
            }
        });
        if read.is_none() {
            return;
        }
        let wants_sysfs = need.net_mtu
            || need.net_speed
            || need.net_duplex
            || need.net_linkup
            || need.net_running
            || need.net_wireless
            || need.net_type
            || need.net_virtual;
        if !wants_sysfs {
            return;
        }
        let active: Vec<(i32, String)> = self.nets.active().map(|(i, n)| (i, n.to_owned())).collect();
        let links = self.files.net_links();
        // the kernel's index of each interface, where netlink gives it
        let index = |name: &str| links.as_ref()?.links.iter().find(|l| l.name == name).map(|l| l.index);
        let indexes: Vec<Option<i32>> = active.iter().map(|(_, n)| index(n)).collect();
        // each attribute file is read once per fetch, whichever pass asks;
        // whether an interface is wireless is known from an earlier fetch
        // while it has the same name and index (the kernel decides it as
        // it registers the device)
        let mut memo: Vec<Memo<'_, F>> = active.iter().map(|(_, n)| Memo::new(&self.files, n)).collect();
        for ((m, (_, name)), ix) in memo.iter_mut().zip(&active).zip(&indexes) {
            m.wireless = ix.and_then(|ix| self.wireless_known.iter().find(|k| k.0 == ix && k.1 == *name)).map(|k| k.2);
        }
        // sysfs first, stopping at the first interface missing a value
        for ((inst, _), m) in active.iter().zip(&mut memo) {
            let Some((_, ioc)) = snap.nets.get_mut(inst) else { continue };
            if !sysfs_ioc(m, need, ioc) {
                break;
            }
        }
        // then what the PMDA's ioctl()s give, for every interface: its
        // sysfs walk always reports a failure, so this always runs; the
        // kernel's netlink answers are what the ioctl()s would give, and
        // without them the sysfs files that mirror them stand in
        for ((inst, _), m) in active.iter().zip(&mut memo) {
            let Some((_, ioc)) = snap.nets.get_mut(inst) else { continue };
            match &links {
                Some(nl) => netlink_ioc(nl, m, need, ioc),
                None => ioctl_ioc(m, need, ioc),
            }
        }
        let known = memo.iter().zip(&indexes).zip(&active);
        self.wireless_known =
            known.filter_map(|((m, ix), (_, n))| Some((ix.as_ref().copied()?, n.clone(), m.wireless?))).collect();
    }

    pub(super) fn net_value(
        &self,
        snap: &Snap,
        ty: MetricType,
        item: u32,
        inst: i32,
    ) -> Result<Option<AtomValue>, PmError> {
        if item == 27 {
            return Ok(Some(AtomValue::U32(count32(self.nets.active_count()))));
        }
        let Some((c, ioc)) = snap.nets.get(&inst) else { return Err(PmError::PM_ERR_INST) };
        let pair = |a: usize, b: usize| Some(c[a]?.wrapping_add(c[b]?));
        Ok(match item {
            0..=15 => c[item as usize].map(|v| num(ty, v)),
            16 => pair(0, 8).map(AtomValue::U64),
            17 => pair(1, 9).map(AtomValue::U64),
            18 => pair(2, 10).map(AtomValue::U64),
            19 => pair(3, 11).map(AtomValue::U64),
            20 => c[7].map(AtomValue::U64),
            21 => (ioc.mtu != 0).then_some(AtomValue::U32(ioc.mtu)),
            22 => (ioc.speed != 0)
                .then(|| AtomValue::Float(((ioc.speed as f32) * 1_000_000f32) / 8f32 / 1024f32 / 1024f32)),
            23 => (ioc.speed != 0).then(|| AtomValue::U64(u64::from(ioc.speed) * 1_000_000 / 8)),
            24 => (ioc.duplex != 0).then_some(AtomValue::U32(ioc.duplex)),
            25 => Some(AtomValue::U32(u32::from(ioc.linkup))),
            26 => Some(AtomValue::U32(u32::from(ioc.running))),
            28 => Some(AtomValue::U32(u32::from(ioc.wireless))),
            29 => Some(AtomValue::U32(ioc.ty)),
            30 => Some(AtomValue::U32(u32::from(ioc.virtuali))),
            _ => return Err(PmError::PM_ERR_PMID),
        })
    }
}

/// The pattern of the interfaces `network.all.*` leaves out when the
/// configuration file has none that compiles.
const DEFAULT_VIRTUAL: &str = "^(lo|bond[0-9]+|team[0-9]+|face)$";

/// The pattern of interfaces.conf as the PMDA takes it: everything but
/// comments (`#` to the line's end) and white space, run together.
pub(super) fn interfaces_pattern(conf: &[u8]) -> Option<String> {
    let mut out = Vec::new();
    let mut comment = false;
    for &b in conf {
        match b {
            b'#' => comment = true,
            b'\n' => comment = false,
            _ if !comment && !b.is_ascii_whitespace() => out.push(b),
            _ => {}
        }
    }
    (!out.is_empty()).then(|| String::from_utf8_lossy(&out).into_owned())
}

/// The interfaces `network.all.*` leaves out: $PCP_SYSCONF_DIR's
/// linux/interfaces.conf pattern (read from the running system, as the
/// PMDA reads it), else the default.
pub(super) fn virtual_interfaces() -> regex::bytes::Regex {
    let dir = std::env::var("PCP_SYSCONF_DIR").unwrap_or_else(|_| "/etc/pcp".into());
    let conf = std::fs::read(format!("{dir}/linux/interfaces.conf")).ok();
    conf.and_then(|c| interfaces_pattern(&c))
        .and_then(|p| regex::bytes::Regex::new(&p).ok())
        .or_else(|| regex::bytes::Regex::new(DEFAULT_VIRTUAL).ok())
        .unwrap_or_else(|| regex::bytes::Regex::new("^$").expect("a valid pattern"))
}

impl<F: Files> LinuxSource<F> {
    /// `network.all.*` (cluster 90): the interfaces' counters summed over
    /// those the pattern does not leave out (in, out, total: bytes,
    /// packets, errors, drops).
    pub(super) fn net_all_value(&self, snap: &Snap, item: u32) -> Result<Option<AtomValue>, PmError> {
        let Some(re) = &self.virtual_interfaces else { return Ok(None) };
        let (mut inn, mut out) = ([0u64; 4], [0u64; 4]);
        for (inst, (c, _)) in &snap.nets {
            let Some(name) = self.nets.name(*inst) else { continue };
            if re.is_match(name.as_bytes()) {
                continue;
            }
            for k in 0..4 {
                inn[k] = inn[k].wrapping_add(c[k].unwrap_or(0));
                out[k] = out[k].wrapping_add(c[k + 8].unwrap_or(0));
            }
        }
        let k = (item % 4) as usize;
        Ok(Some(AtomValue::U64(match item {
            0..=3 => inn[k],
            4..=7 => out[k],
            8..=11 => inn[k].wrapping_add(out[k]),
            _ => return Err(PmError::PM_ERR_PMID),
        })))
    }
}

/// One interface's sysfs attributes, each read at most once.
struct Memo<'a, F: Files> {
    files: &'a F,
    name: &'a str,
    words: Vec<(&'static str, Option<Vec<u8>>)>,
    /// Does it have a `wireless` directory (once looked at, or known)?
    wireless: Option<bool>,
}

impl<'a, F: Files> Memo<'a, F> {
    fn new(files: &'a F, name: &'a str) -> Memo<'a, F> {
        Memo { files, name, words: Vec::new(), wireless: None }
    }

    /// Is it a wireless interface (`/sys/class/net/NAME/wireless`)?
    fn wireless(&mut self) -> bool {
        let name = self.name;
        *self.wireless.get_or_insert_with(|| self.files.exists(&format!("/sys/class/net/{name}/wireless")))
    }

    /// The first word of `/sys/class/net/NAME/ATTR`.
    fn word(&mut self, attr: &'static str) -> Option<Vec<u8>> {
        if let Some((_, w)) = self.words.iter().find(|(a, _)| *a == attr) {
            return w.clone();
        }
        let w = self
            .files
            .read(&format!("/sys/class/net/{}/{attr}", self.name))
            .ok()
            .and_then(|t| parse::sysfs_oneline(&t).map(<[u8]>::to_vec));
        self.words.push((attr, w.clone()));
        w
    }

    fn exists(&self, path: String) -> bool {
        self.files.exists(&path)
    }
}

/// The interface values from sysfs, as `refresh_net_dev_sysfs` reads
/// them; `false` when a needed attribute is missing (the PMDA stops its
/// sysfs walk there).
fn sysfs_ioc<F: Files>(m: &mut Memo<'_, F>, need: &Need, ioc: &mut Ioc) -> bool {
    if need.net_speed {
        let Some(v) = m.word("speed") else { return false };
        ioc.speed = crate::scan::atoi(&v) as u32;
    }
    if need.net_mtu {
        let Some(v) = m.word("mtu") else { return false };
        ioc.mtu = crate::scan::atoi(&v) as u32;
    }
    if need.net_linkup || need.net_running {
        let Some(v) = m.word("flags") else { return false };
        let flags = crate::scan::strtoul_hex(&v);
        ioc.linkup = flags & IFF_UP != 0;
        ioc.running = flags & IFF_RUNNING != 0;
    }
    if need.net_duplex {
        ioc.duplex = match m.word("duplex") {
            None if !m.exists(format!("/sys/class/net/{}", m.name)) => return false,
            v => duplex_code(v.as_deref()),
        };
    }
    if need.net_wireless {
        ioc.wireless = m.wireless();
    }
    if need.net_type {
        let Some(v) = m.word("type") else { return false };
        ioc.ty = crate::scan::atoi(&v) as u32;
    }
    if need.net_virtual {
        ioc.virtuali = m.exists(format!("/sys/devices/virtual/net/{}", m.name));
    }
    true
}

fn duplex_code(v: Option<&[u8]>) -> u32 {
    match v {
        Some(b"half") => 1,
        Some(b"full") => 2,
        _ => 0,
    }
}

/// What the PMDA's `ioctl()`s would set, derived from the sysfs files
/// that mirror them: `SIOCGIFMTU` is the `mtu` attribute, `SIOCGIFFLAGS`
/// the `flags` with `IFF_RUNNING` where the link is up and its operational
/// state "up" or "unknown", and `SIOCETHTOOL` succeeds where the driver
/// reports a speed (then type 1, not wireless); an interface with a
/// `wireless` directory answers as a wireless one (its bit rate is not
/// available here).
fn ioctl_ioc<F: Files>(m: &mut Memo<'_, F>, need: &Need, ioc: &mut Ioc) {
    if need.net_mtu {
        if let Some(v) = m.word("mtu") {
            ioc.mtu = crate::scan::atoi(&v) as u32;
        }
    }
    if need.net_linkup || need.net_running {
        if let Some(v) = m.word("flags") {
            let up = crate::scan::strtoul_hex(&v) & IFF_UP != 0;
            let oper = m.word("operstate");
            ioc.linkup = up;
            ioc.running = up && matches!(oper.as_deref(), Some(b"up" | b"unknown"));
        }
    }
    if need.net_type || need.net_speed || need.net_duplex || need.net_wireless {
        let ethtool =
            m.word("speed").map(|speed| (crate::scan::atoi(&speed) as u32, duplex_code(m.word("duplex").as_deref())));
        ethtool_ioc(m, ethtool, ioc);
    }
}

/// What the PMDA's `ioctl()`s set, from the kernel's netlink answers:
/// the link dump's MTU and flags are `SIOCGIFMTU`'s and `SIOCGIFFLAGS`'s
/// (both from the same device fields), the ethtool link modes' speed and
/// duplex `ETHTOOL_GSET`'s (the duplex as the PMDA keeps it, one more in
/// two bits); without an ethtool answer the sysfs files stand in.
fn netlink_ioc<F: Files>(nl: &parse::NetLinks, m: &mut Memo<'_, F>, need: &Need, ioc: &mut Ioc) {
    // an interface the kernel does not know fails every ioctl()
    let Some(link) = nl.links.iter().find(|l| l.name == m.name) else { return };
    if need.net_mtu {
        if let Some(mtu) = link.mtu {
            ioc.mtu = mtu;
        }
    }
    if need.net_linkup || need.net_running {
        ioc.linkup = u64::from(link.flags) & IFF_UP != 0;
        ioc.running = u64::from(link.flags) & IFF_RUNNING != 0;
    }
    if need.net_type || need.net_speed || need.net_duplex || need.net_wireless {
        let ethtool = if nl.ethtool_known {
            link.ethtool.map(|(speed, duplex)| (speed, (u32::from(duplex) + 1) & 3))
        } else {
            m.word("speed").map(|speed| (crate::scan::atoi(&speed) as u32, duplex_code(m.word("duplex").as_deref())))
        };
        ethtool_ioc(m, ethtool, ioc);
    }
}

/// `SIOCETHTOOL`'s answer `(speed, duplex)` or, where it fails, the
/// wireless interface's.
fn ethtool_ioc<F: Files>(m: &mut Memo<'_, F>, ethtool: Option<(u32, u32)>, ioc: &mut Ioc) {
    if let Some((speed, duplex)) = ethtool {
        ioc.ty = 1;
        ioc.speed = speed;
        ioc.duplex = duplex;
        ioc.wireless = false;
    } else if m.wireless() {
        ioc.ty = 0;
        ioc.duplex = 1;
        ioc.wireless = true;
    }
}

#[cfg(test)]
mod net_all_tests {
    use super::*;

    #[test]
    fn interfaces_conf_pattern_runs_together() {
        let conf = b"# comment (lo)\n^(lo |\n  bond[0-9]+ | # trailing\n  face)$\n";
        assert_eq!(interfaces_pattern(conf).as_deref(), Some("^(lo|bond[0-9]+|face)$"));
        assert_eq!(interfaces_pattern(b"# all comment\n"), None);
        let re = regex::bytes::Regex::new(DEFAULT_VIRTUAL).unwrap();
        assert!(re.is_match(b"bond0") && re.is_match(b"lo") && !re.is_match(b"eth0") && !re.is_match(b"lo0"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::testkit::*;

    #[test]
    fn interface_values_come_from_netlink_as_the_ioctls_give_them() {
        let link =
            |name: &str, mtu, flags, ethtool| NetLink { name: name.into(), index: 0, mtu: Some(mtu), flags, ethtool };
        // eth1 is not in the dump (gone between the reads): every ioctl()
        // fails for it, and it keeps what sysfs gave, as for the PMDA
        let links = NetLinks {
            links: vec![link("lo", 65536, 0x49, None), link("eth0", 1400, 0x1043, Some((u32::MAX, 0xff)))],
            ethtool_known: true,
        };
        let mut src = source(Some(links));
        assert_eq!(values(&mut src, "network.interface.mtu"), u32s(&[(0, 65536), (1, 1400), (2, 9000)]));
        // IFF_RUNNING from the flags the kernel computes (sysfs lacks it)
        assert_eq!(values(&mut src, "network.interface.running"), u32s(&[(0, 1), (1, 1), (2, 0)]));
        assert_eq!(values(&mut src, "network.interface.up"), u32s(&[(0, 1), (1, 1), (2, 1)]));
        // an unknown duplex (0xff) plus one is 0 in the PMDA's two bits:
        // no value; the unknown speed is all ones
        assert_eq!(values(&mut src, "network.interface.duplex"), vec![]);
        assert_eq!(values(&mut src, "network.interface.type"), u32s(&[(0, 0), (1, 1), (2, 0)]));
        let baud = values(&mut src, "network.interface.baudrate");
        assert_eq!(baud, vec![(1, Value::from_atom(&AtomValue::U64(u64::from(u32::MAX) * 1_000_000 / 8)))]);
        // full duplex: 1 + 1
        let full = NetLinks { links: vec![link("eth0", 1500, 0x1003, Some((1000, 1)))], ethtool_known: true };
        let mut src = source(Some(full));
        assert_eq!(values(&mut src, "network.interface.duplex"), u32s(&[(1, 2)]));
    }

    #[test]
    fn an_interface_is_looked_at_for_wireless_once_while_its_index_stays() {
        let link = |name: &str, index| NetLink { name: name.into(), index, mtu: Some(1), flags: 1, ethtool: None };
        let wireless = |src: &mut LinuxSource<Mem>| values(src, "network.interface.wireless");
        let mut src = source(Some(NetLinks { links: vec![link("lo", 1), link("eth0", 2)], ethtool_known: true }));
        src.files.files.insert("/sys/class/net/eth0/wireless/x".into(), Vec::new());
        assert_eq!(wireless(&mut src), u32s(&[(0, 0), (1, 1), (2, 0)]));
        // the same interface (name and index): not looked at again
        src.files.files.remove("/sys/class/net/eth0/wireless/x");
        assert_eq!(wireless(&mut src), u32s(&[(0, 0), (1, 1), (2, 0)]));
        // another one by that name: looked at
        src.files.links = Some(NetLinks { links: vec![link("lo", 1), link("eth0", 3)], ethtool_known: true });
        assert_eq!(wireless(&mut src), u32s(&[(0, 0), (1, 0), (2, 0)]));
        // eth1, not in the dump, fails every ioctl(); added to it, it is
        // looked at
        src.files.files.insert("/sys/class/net/eth1/wireless/x".into(), Vec::new());
        src.files.links = Some(NetLinks { links: vec![link("eth0", 3), link("eth1", 4)], ethtool_known: true });
        assert_eq!(wireless(&mut src), u32s(&[(0, 0), (1, 0), (2, 1)]));
    }

    #[test]
    fn interface_values_without_netlink_come_from_sysfs() {
        let mut src = source(None);
        assert_eq!(values(&mut src, "network.interface.mtu"), u32s(&[(0, 65536), (1, 1500), (2, 9000)]));
        assert_eq!(values(&mut src, "network.interface.running"), u32s(&[(0, 1), (1, 1), (2, 1)]));
        assert_eq!(values(&mut src, "network.interface.type"), u32s(&[(0, 0), (1, 1), (2, 0)]));
        // without an ethtool answer, the sysfs speed stands in
        let links =
            ["lo", "eth0", "eth1"].map(|n| NetLink { name: n.into(), index: 0, mtu: Some(1), flags: 1, ethtool: None });
        let mut src = source(Some(NetLinks { links: links.to_vec(), ethtool_known: false }));
        assert_eq!(values(&mut src, "network.interface.type"), u32s(&[(0, 0), (1, 1), (2, 0)]));
        assert_eq!(values(&mut src, "network.interface.mtu"), u32s(&[(0, 1), (1, 1), (2, 1)]));
        // an interface missing from the dump: no ioctl() answers for it
        let mut src = source(Some(NetLinks { links: vec![], ethtool_known: true }));
        assert_eq!(values(&mut src, "network.interface.type"), u32s(&[(0, 0), (1, 0), (2, 0)]));
    }
}
