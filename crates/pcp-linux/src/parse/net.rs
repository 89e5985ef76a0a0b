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
///
/// ```
/// use pcp_linux::parse::net_dev;
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshot/vm1/proc/net/dev");
/// let ifaces = net_dev(&std::fs::read(path).unwrap());
/// assert_eq!(ifaces.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(), ["lo", "ifb0", "ifb1", "eth0"]);
/// let eth0 = &ifaces[3];
/// // receive bytes and packets, transmit bytes and packets
/// assert_eq!(
///     [eth0.counters[0], eth0.counters[1], eth0.counters[8], eth0.counters[9]],
///     [Some(84736695), Some(5597), Some(455975), Some(5166)]
/// );
/// ```
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
            // (digits only: no sign or white space before them)
            *slot = Some(pcp_core::support::strtod::strtoull_prefix(rest, 10).0);
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

/// /proc/net/snmp as `refresh_proc_net_snmp` takes it: the counters asked
/// of a [`SnmpReader`], by their slots, and the ICMP message counts by
/// type. What the file lacks is none (`u64::MAX`, the PMDA's -1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snmp {
    /// The counters, by the slots the reader was given.
    pub values: Vec<u64>,
    /// `IcmpMsg: InTypeN` by N.
    pub icmpmsg_in: Vec<u64>,
    /// `IcmpMsg: OutTypeN` by N.
    pub icmpmsg_out: Vec<u64>,
}

/// Reads /proc/net/snmp, again and again as fetches do: lines in pairs, a
/// row of column names and a row of numbers, told apart by the second's
/// prefix; each number as `strtoull` reads it (0 where it reads nothing);
/// rows of other protocols ignored; the last of a field repeated wins, as
/// in the PMDA. Fields are known by `protocol.field` in lower case (the
/// PMDA's metric names, whose `udp.recvbuferrors` the kernel calls
/// `RcvbufErrors`); each row's column names are looked up once, and again
/// only when the row reads differently.
#[derive(Clone, Debug, Default)]
pub struct SnmpReader {
    /// The fields wanted, sorted, with their slots.
    keys: Vec<(String, usize)>,
    /// Each row pair's header as last read, and each column's slot.
    rows: Vec<SnmpRow>,
    slots: usize,
}

impl SnmpReader {
    /// A reader of the fields `keys` names (`tcp.activeopens`), each into
    /// its slot of [`Snmp::values`].
    pub fn new(keys: impl IntoIterator<Item = (String, usize)>) -> SnmpReader {
        let mut keys: Vec<_> = keys.into_iter().collect();
        keys.sort();
        let slots = keys.iter().map(|(_, s)| s + 1).max().unwrap_or(0);
        SnmpReader { keys, rows: Vec::new(), slots }
    }

    /// The counters of `text`.
    pub fn read(&mut self, text: &[u8]) -> Snmp {
        let mut out = Snmp {
            values: vec![u64::MAX; self.slots],
            icmpmsg_in: vec![u64::MAX; 256],
            icmpmsg_out: vec![u64::MAX; 256],
        };
        let number = |w: &[u8]| crate::scan::Scan::new(w).u64().unwrap_or(0);
        let mut rows = lines(text);
        let mut k = 0;
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
            if proto == "icmpmsg" {
                for (name, value) in snmp_words(header).zip(snmp_words(values)) {
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
                }
                continue;
            }
            if self.rows.get(k).is_none_or(|(seen, _)| **seen != *header) {
                let cols = snmp_words(header).map(|name| self.slot(proto, name)).collect();
                let row = (Box::from(header), cols);
                match self.rows.get_mut(k) {
                    Some(r) => *r = row,
                    None => self.rows.push(row),
                }
            }
            for (slot, value) in self.rows[k].1.iter().zip(snmp_words(values)) {
                if let Some(x) = slot.and_then(|s| out.values.get_mut(s)) {
                    *x = number(value);
                }
            }
            k += 1;
        }
        out
    }

    /// The slot of column `name` of `proto`'s row, if it is wanted.
    fn slot(&self, proto: &str, name: &[u8]) -> Option<usize> {
        let field = String::from_utf8_lossy(name).to_ascii_lowercase();
        let field = if field == "rcvbuferrors" { "recvbuferrors" } else { &field };
        let key = format!("{proto}.{field}");
        self.keys.binary_search_by(|(k, _)| k.as_str().cmp(&key)).ok().map(|i| self.keys[i].1)
    }
}

/// A header row as last read, and the slot of each of its columns.
type SnmpRow = (Box<[u8]>, Box<[Option<usize>]>);

/// A /proc/net/snmp row's words after its `Protocol:` (`strtok` on
/// spaces).
fn snmp_words(row: &[u8]) -> impl Iterator<Item = &[u8]> {
    row.split(|&b| b == b' ' || b == b'\n').filter(|w| !w.is_empty()).skip(1)
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
        let keys = ["ip.forwarding", "ip.inreceives", "ip.outrequests", "tcp.maxconn", "tcp.activeopens"];
        let keys = keys.iter().chain(&["udp.recvbuferrors", "udp.indatagrams", "bogus.a"]);
        let mut reader = SnmpReader::new(keys.enumerate().map(|(i, k)| (k.to_string(), i)));
        for _ in 0..2 {
            let s = reader.read(text);
            // strtoull: -1 wraps, nothing read is 0, too big saturates
            assert_eq!(s.values, [2, 12345, u64::MAX, u64::MAX, 0, u64::MAX, 10, u64::MAX]);
            assert_eq!((s.icmpmsg_in[3], s.icmpmsg_out[3], s.icmpmsg_in[4]), (5, 6, u64::MAX));
        }
        // a header without its numbers row
        assert_eq!(reader.read(b"Ip: Forwarding\n").values[0], u64::MAX);
        // columns in another order, or another row first: looked up again
        let s = reader.read(b"Tcp: ActiveOpens MaxConn\nTcp: 7 8\nIp: InReceives Forwarding\nIp: 3 4\n");
        assert_eq!(s.values[..5], [4, 3, u64::MAX, 8, 7]);
        // the last of a repeated field wins
        assert_eq!(reader.read(b"Ip: Forwarding Forwarding\nIp: 1 2\n").values[0], 2);
    }
}
