//! /proc/net/dev and the one-line /sys/class/net attributes.

use crate::scan::lines;

/// Counters per /proc/net/dev line: receive bytes, packets, errs, drop,
/// fifo, frame, compressed, multicast; transmit bytes, packets, errs,
/// drop, fifo, colls, carrier, compressed.
pub const NET_DEV_COUNTERS: usize = 16;

/// One interface of /proc/net/dev.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetDevLine {
    /// The interface name (before the colon, leading spaces removed).
    pub name: String,
    /// The sixteen counters; `None` past the point a line stops having
    /// numbers.
    pub counters: [Option<u64>; NET_DEV_COUNTERS],
}

/// Parse /proc/net/dev: every line with a colon is an interface; each
/// counter is the next run of digits after the previous one, as the PMDA
/// walks the line.
#[doc(alias = "refresh_proc_net_dev")]
pub fn net_dev(text: &[u8]) -> Vec<NetDevLine> {
    let mut out = Vec::new();
    for l in lines(text) {
        let Some(colon) = l.iter().position(|&b| b == b':') else { continue };
        let name = &l[..colon];
        let name = &name[name.iter().take_while(|b| b.is_ascii_whitespace()).count()..];
        let mut counters = [None; NET_DEV_COUNTERS];
        let mut rest = &l[colon + 1..];
        for slot in &mut counters {
            let Some(d) = rest.iter().position(u8::is_ascii_digit) else { break };
            rest = &rest[d..];
            let n = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            let mut v: u64 = 0;
            for &b in &rest[..n] {
                v = v.checked_mul(10).and_then(|x| x.checked_add(u64::from(b - b'0'))).unwrap_or(u64::MAX);
            }
            *slot = Some(v);
            // the PMDA then skips to the next white space
            let skip = rest.iter().take_while(|b| !b.is_ascii_whitespace()).count();
            rest = &rest[skip..];
        }
        out.push(NetDevLine { name: String::from_utf8_lossy(name).into_owned(), counters });
    }
    out
}

/// The first white-space-delimited word (at most 63 bytes) of a sysfs
/// attribute, as the PMDA reads one (`fscanf("%63s")`); `None` if empty.
pub fn sysfs_oneline(text: &[u8]) -> Option<&[u8]> {
    let start = text.iter().position(|b| !b.is_ascii_whitespace())?;
    let rest = &text[start..];
    let n = rest.iter().take_while(|b| !b.is_ascii_whitespace()).count().min(63);
    Some(&rest[..n])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn net_dev_lines() {
        let t = b"Inter-|   Receive    |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes\n    lo:  783085    7391    0    0    0     0          0         0   783085    7391    0    0    0     0       0          0\n  eth0: 1 2 3\n";
        let d = net_dev(t);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].name, "lo");
        assert_eq!(d[0].counters[0], Some(783085));
        assert_eq!(d[0].counters[9], Some(7391));
        assert_eq!(d[0].counters[15], Some(0));
        assert_eq!(d[1].counters[2], Some(3));
        assert_eq!(d[1].counters[3], None);
    }

    #[test]
    fn oneline_words() {
        assert_eq!(sysfs_oneline(b"1500\n"), Some(&b"1500"[..]));
        assert_eq!(sysfs_oneline(b"  \n"), None);
        assert_eq!(sysfs_oneline(&[b'a'; 100]).map(<[u8]>::len), Some(63));
    }
}

/// /proc/net/snmp as `refresh_proc_net_snmp` takes it: the counters of the
/// IP, ICMP, TCP, UDP and UDP-Lite rows by `protocol.field` in lower case
/// (the PMDA's metric names, whose `udp.recvbuferrors` the kernel calls
/// `RcvbufErrors`), and the ICMP message counts by type. What the file
/// lacks is none (`u64::MAX`, the PMDA's -1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snmp {
    fields: Vec<(String, u64)>,
    /// `IcmpMsg: InTypeN` by N.
    pub icmpmsg_in: Vec<u64>,
    /// `IcmpMsg: OutTypeN` by N.
    pub icmpmsg_out: Vec<u64>,
}

impl Default for Snmp {
    fn default() -> Snmp {
        Snmp { fields: Vec::new(), icmpmsg_in: vec![u64::MAX; 256], icmpmsg_out: vec![u64::MAX; 256] }
    }
}

impl Snmp {
    /// The counter `key` (`tcp.activeopens`), `u64::MAX` for none.
    pub fn get(&self, key: &str) -> u64 {
        self.fields.binary_search_by(|(k, _)| k.as_str().cmp(key)).map_or(u64::MAX, |i| self.fields[i].1)
    }
}

/// A /proc/net/snmp row's words after its `Protocol:` (`strtok` on
/// spaces).
fn snmp_words(row: &[u8]) -> impl Iterator<Item = &[u8]> {
    row.split(|&b| b == b' ' || b == b'\n').filter(|w| !w.is_empty()).skip(1)
}

/// Parse /proc/net/snmp: lines in pairs, a row of column names and a row
/// of numbers, told apart by the second's prefix; each number as
/// `strtoull` reads it (0 where it reads nothing); rows of other
/// protocols ignored.
pub fn snmp(text: &[u8]) -> Snmp {
    let mut out = Snmp::default();
    let mut rows = lines(text);
    while let (Some(header), Some(values)) = (rows.next(), rows.next()) {
        let proto = match values {
            v if v.starts_with(b"Ip:") => "ip",
            v if v.starts_with(b"Icmp:") => "icmp",
            v if v.starts_with(b"IcmpMsg:") => "icmpmsg",
            v if v.starts_with(b"Tcp:") => "tcp",
            v if v.starts_with(b"Udp:") => "udp",
            v if v.starts_with(b"UdpLite:") => "udplite",
            _ => continue,
        };
        let number = |w: &[u8]| crate::scan::Scan::new(w).u64().unwrap_or(0);
        for (name, value) in snmp_words(header).zip(snmp_words(values)) {
            if proto == "icmpmsg" {
                // InTypeN / OutTypeN, N below 256 (sscanf's %u)
                let (types, n) = if let Some(n) = name.strip_prefix(b"InType") {
                    (&mut out.icmpmsg_in, n)
                } else if let Some(n) = name.strip_prefix(b"OutType") {
                    (&mut out.icmpmsg_out, n)
                } else {
                    continue;
                };
                if let Some(slot) = crate::scan::Scan::new(n).u32().and_then(|t| types.get_mut(t as usize)) {
                    *slot = number(value);
                }
                continue;
            }
            let field = String::from_utf8_lossy(name).to_ascii_lowercase();
            let field = if field == "rcvbuferrors" { "recvbuferrors".to_string() } else { field };
            out.fields.push((format!("{proto}.{field}"), number(value)));
        }
    }
    // the last of a field repeated wins, as in the PMDA
    out.fields.reverse();
    out.fields.sort_by(|a, b| a.0.cmp(&b.0));
    out.fields.dedup_by(|a, b| a.0 == b.0);
    out
}

#[cfg(test)]
mod snmp_tests {
    use super::*;

    #[test]
    fn snmp_rows_pair_names_with_numbers() {
        let text = b"Ip: Forwarding DefaultTTL InReceives\nIp: 2 64 12345\n\
            IcmpMsg: InType3 OutType3 InType300\nIcmpMsg: 5 6 7\n\
            Tcp: RtoAlgorithm MaxConn ActiveOpens\nTcp: 1 -1 x\n\
            Udp: InDatagrams RcvbufErrors\nUdp: 10 99999999999999999999999\n\
            Bogus: A\nBogus: 1\n";
        let s = snmp(text);
        assert_eq!(s.get("ip.forwarding"), 2);
        assert_eq!(s.get("ip.inreceives"), 12345);
        assert_eq!(s.get("ip.outrequests"), u64::MAX);
        // strtoull: -1 wraps, nothing read is 0, too big saturates
        assert_eq!(s.get("tcp.maxconn"), u64::MAX);
        assert_eq!(s.get("tcp.activeopens"), 0);
        assert_eq!(s.get("udp.recvbuferrors"), u64::MAX);
        assert_eq!(s.get("udp.indatagrams"), 10);
        assert_eq!((s.icmpmsg_in[3], s.icmpmsg_out[3], s.icmpmsg_in[4]), (5, 6, u64::MAX));
        assert_eq!(s.get("bogus.a"), u64::MAX);
        // a header without its numbers row
        assert_eq!(snmp(b"Ip: Forwarding\n").get("ip.forwarding"), u64::MAX);
    }
}
