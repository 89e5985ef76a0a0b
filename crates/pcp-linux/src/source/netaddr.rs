//! The network interfaces' addresses (`network.interface.inet_addr`,
//! `ipv6_addr`, `ipv6_scope`, `hw_addr`), one instance domain for every
//! name any of them gives (aliases such as `eth0:1` included), as the
//! PMDA fills it in one refresh: the hardware addresses of
//! /sys/class/net in directory order, then the IPv4 addresses the kernel
//! lists (the PMDA's `SIOCGIFCONF`; here its netlink address dump, of
//! the running system only), then /proc/net/if_inet6, each only when a
//! metric of the fetch wants it.

use super::area::{saved_cache, Area, Reader};
use super::Options;
use crate::cache::InstCache;
use crate::scan::lines;
use crate::MetricDef;
use pcp_core::{AtomValue, PmError};
use std::collections::HashMap;
use std::net::Ipv4Addr;

/// `CLUSTER_NET_ADDR`.
const NET_ADDR: u32 = 33;
/// The clusters served here.
pub(super) const CLUSTERS: [u32; 1] = [NET_ADDR];
/// `NET_ADDR_INDOM`.
const NET_ADDR_INDOM: u32 = 17;
/// The instance domains kept here.
pub(super) const INDOMS: [u32; 1] = [NET_ADDR_INDOM];

/// What one interface name has, as of the last refresh.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Addrs {
    inet: Option<String>,
    /// The address with its prefix length, and the scope.
    ipv6: Option<(String, u16)>,
    hw: Option<String>,
}

/// An IPv6 address as glibc's `inet_ntop` writes it: the first longest
/// run of two or more zero groups as `::`, and the last 32 bits in
/// dotted form for the IPv4-compatible and IPv4-mapped addresses.
pub(super) fn ipv6_text(addr: [u8; 16]) -> String {
    let words: Vec<u16> = addr.chunks(2).map(|c| u16::from_be_bytes([c[0], c[1]])).collect();
    let (mut best, mut run) = ((8usize, 0usize), (8usize, 0usize));
    for (i, &w) in words.iter().enumerate() {
        if w == 0 {
            if run.1 == 0 {
                run.0 = i;
            }
            run.1 += 1;
            if run.1 > best.1 {
                best = run;
            }
        } else {
            run.1 = 0;
        }
    }
    if best.1 < 2 {
        best = (8, 0);
    }
    let mut out = String::with_capacity(40);
    let mut i = 0;
    while i < 8 {
        if i == best.0 {
            out.push(':');
            i += best.1;
            continue;
        }
        if i != 0 {
            out.push(':');
        }
        if i == 6 && best.0 == 0 && (best.1 == 6 || (best.1 == 5 && words[5] == 0xffff)) {
            out.push_str(&Ipv4Addr::new(addr[12], addr[13], addr[14], addr[15]).to_string());
            return out;
        }
        out.push_str(&format!("{:x}", words[i]));
        i += 1;
    }
    if best.1 > 0 && best.0 + best.1 == 8 {
        out.push(':');
    }
    out
}

/// The scope's name, as `ifconfig` gives it.
fn scope_name(scope: u16) -> &'static str {
    match scope {
        0x00 => "Global",
        0x20 => "Link",
        0x40 => "Site",
        0x80 => "Compat",
        0x10 => "Host",
        _ => "Unknown",
    }
}

/// One /proc/net/if_inet6 line: (interface, address with its prefix
/// length, scope); `None` for a line that does not read.
pub(super) fn if_inet6_line(line: &[u8]) -> Option<(String, String, u16)> {
    let mut w = line.split(u8::is_ascii_whitespace).filter(|w| !w.is_empty());
    let hex = w.next()?;
    if hex.len() != 32 {
        return None;
    }
    let mut addr = [0u8; 16];
    for (k, pair) in hex.chunks(2).enumerate() {
        addr[k] = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    let mut num = || w.next().and_then(|x| u32::from_str_radix(std::str::from_utf8(x).ok()?, 16).ok());
    let (_index, plen, scope, _dad) = (num()?, num()?, num()?, num()?);
    let name = w.next()?;
    let name = String::from_utf8_lossy(&name[..name.len().min(20)]).into_owned();
    Some((name, format!("{}/{}", ipv6_text(addr), plen as i32), scope as u16))
}

#[derive(Clone, Debug)]
struct NetAddr {
    insts: InstCache,
    addrs: HashMap<i32, Addrs>,
}

/// The area, new.
pub(super) fn new(opts: &Options) -> Box<dyn Area> {
    Box::new(NetAddr { insts: saved_cache(opts, NET_ADDR_INDOM), addrs: HashMap::new() })
}

impl NetAddr {
    /// The addresses of `name`, made active.
    fn entry(&mut self, name: &str) -> Option<&mut Addrs> {
        let inst = self.insts.add(name)?;
        Some(self.addrs.entry(inst).or_default())
    }
}

impl Area for NetAddr {
    fn refresh(&mut self, rd: &mut Reader, _clusters: &[u32]) {
        let wants = |item: u32| {
            rd.pmids.is_empty()
                || rd
                    .pmids
                    .iter()
                    .any(|p| p.domain() == crate::LINUX_DOMAIN && p.cluster() == NET_ADDR && p.item() == item)
        };
        let (inet, ipv6, hw) = (wants(0), wants(1) || wants(2), wants(3));
        self.insts.deactivate_all();
        for a in self.addrs.values_mut() {
            *a = Addrs::default();
        }
        if hw {
            for name in rd.files.list("/sys/class/net").unwrap_or_default() {
                if name.starts_with('.') {
                    continue;
                }
                // the first word of the file, as `%63s` reads it
                let text = rd.read_file(&format!("/sys/class/net/{name}/address"));
                let word = text.as_deref().and_then(|t| t.split(u8::is_ascii_whitespace).find(|w| !w.is_empty()));
                let word = word.map(|w| String::from_utf8_lossy(&w[..w.len().min(63)]).into_owned());
                if let Some(a) = self.entry(&name) {
                    a.hw = word;
                }
            }
        }
        if inet {
            let all = rd.files.ipv4_addrs().unwrap_or_default();
            for (label, _) in &all {
                // SIOCGIFADDR answers with the first address of the label
                let first = all.iter().find(|(l, _)| l == label).map_or([0; 4], |f| f.1);
                if let Some(a) = self.entry(label) {
                    a.inet = Some(Ipv4Addr::from(first).to_string());
                }
            }
        }
        if ipv6 {
            let text = rd.read_file("/proc/net/if_inet6").unwrap_or_default();
            for (name, addr, scope) in lines(&text).filter_map(if_inet6_line) {
                if let Some(a) = self.entry(&name) {
                    a.ipv6 = Some((addr, scope));
                }
            }
        }
    }

    fn value(&self, def: &MetricDef, inst: i32) -> Result<Option<AtomValue>, PmError> {
        self.insts.name(inst).ok_or(PmError::PM_ERR_INST)?;
        let a = self.addrs.get(&inst).ok_or(PmError::PM_ERR_INST)?;
        let text = |s: Option<&str>| s.map(|s| AtomValue::String(s.as_bytes().to_vec()));
        Ok(match def.pmid.item() {
            0 => text(a.inet.as_deref()),
            1 => text(a.ipv6.as_ref().map(|v| v.0.as_str())),
            2 => text(a.ipv6.as_ref().map(|v| scope_name(v.1))),
            3 => text(a.hw.as_deref()),
            _ => return Err(PmError::PM_ERR_PMID),
        })
    }

    fn instances(&self, serial: u32) -> Vec<(i32, &str)> {
        match serial {
            NET_ADDR_INDOM => self.insts.active().collect(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_as_inet_ntop_writes_it() {
        let a = |s: &str| s.parse::<std::net::Ipv6Addr>().unwrap().octets();
        for (addr, want) in [
            ("::1", "::1"),
            ("::", "::"),
            ("fe80::fc:ff:fe00:1", "fe80::fc:ff:fe00:1"),
            ("fd00::2", "fd00::2"),
            ("1:0:0:2:0:0:0:3", "1:0:0:2::3"),
            ("1:0:0:2:3:0:0:4", "1::2:3:0:0:4"),
            ("1:0:2:3:4:5:6:7", "1:0:2:3:4:5:6:7"),
            ("1:2:3:4:5:6:0:0", "1:2:3:4:5:6::"),
            ("::ffff:192.0.2.1", "::ffff:192.0.2.1"),
            ("::192.0.2.1", "::192.0.2.1"),
            ("::ffff:0:0", "::ffff:0.0.0.0"),
        ] {
            assert_eq!(ipv6_text(a(addr)), want, "{addr}");
        }
    }

    #[test]
    fn if_inet6_lines() {
        assert_eq!(
            if_inet6_line(b"fe8000000000000000fc00fffe000001 04 40 20 80     eth0"),
            Some(("eth0".into(), "fe80::fc:ff:fe00:1/64".into(), 0x20))
        );
        assert_eq!(
            if_inet6_line(b"00000000000000000000000000000001 01 80 10 80       lo"),
            Some(("lo".into(), "::1/128".into(), 0x10))
        );
        assert_eq!(if_inet6_line(b"fe80 04 40 20 80 eth0"), None);
        assert_eq!(if_inet6_line(b"fe8000000000000000fc00fffe00000g 04 40 20 80 eth0"), None);
        assert_eq!(if_inet6_line(b"fe8000000000000000fc00fffe000001 04 40 20"), None);
        assert_eq!(if_inet6_line(b"\xff"), None);
        assert_eq!(scope_name(0x20), "Link");
        assert_eq!(scope_name(0x05), "Unknown");
    }
}
