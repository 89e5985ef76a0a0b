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
