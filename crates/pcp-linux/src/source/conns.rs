//! The socket tables: /proc/net/tcp and tcp6 (`network.tcpconn*.*`, by
//! state), udp and udp6 (`network.udpconn*.*`), raw and raw6
//! (`network.rawconn*.count`) and unix (`network.unix.*`).

use super::area::{Area, Reader};
use super::Options;
// how many TCP states the PMDA counts (`_PM_TCP_LAST`)
use crate::parse::netlink::TCP_STATES;
use crate::MetricDef;
use pcp_core::{AtomValue, PmError};

const TCP: u32 = 19;
const TCP6: u32 = 76;
const RAW: u32 = 77;
const RAW6: u32 = 78;
const UDP: u32 = 79;
const UDP6: u32 = 80;
const UNIX: u32 = 81;
/// The clusters served here.
pub(super) const CLUSTERS: [u32; 7] = [TCP, TCP6, RAW, RAW6, UDP, UDP6, UNIX];
/// No instance domains.
pub(super) const INDOMS: [u32; 0] = [];

/// The lines of `text` that end with a newline (the PMDA looks at no
/// other), each as its words.
fn full_lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let end = text.iter().rposition(|&b| b == b'\n').map_or(0, |e| e + 1);
    text[..end].split(|&b| b == b'\n').take(text[..end].iter().filter(|&&b| b == b'\n').count())
}

/// `%x` of the `k`th word of a line (counting from 0).
fn hex_word(line: &[u8], k: usize) -> Option<u32> {
    let w = line.split(|b| b.is_ascii_whitespace()).filter(|w| !w.is_empty()).nth(k)?;
    let (v, n) = pcp_core::support::strtod::strtoull_prefix(w, 16);
    (n > 0).then_some(v as u32)
}

/// Connections of a TCP table by state.
pub(super) fn tcp_states(text: &[u8]) -> [u32; TCP_STATES] {
    let mut out = [0u32; TCP_STATES];
    for line in full_lines(text) {
        if let Some(n) = hex_word(line, 3).filter(|&n| (n as usize) < TCP_STATES) {
            out[n as usize] += 1;
        }
    }
    out
}

/// The TCP sockets by state: from the kernel's socket diagnostics where
/// they answer, else from /proc/net/tcp or tcp6.
fn tcp_table(rd: &mut Reader, v6: bool) -> [u32; TCP_STATES] {
    let path = if v6 { "/proc/net/tcp6" } else { "/proc/net/tcp" };
    rd.files.tcp_states(v6).or_else(|| rd.with(path, tcp_states)).unwrap_or_default()
}

/// A UDP table's (established, listening) sockets.
pub(super) fn udp_states(text: &[u8]) -> [u32; 2] {
    let mut out = [0u32; 2];
    for line in full_lines(text) {
        match hex_word(line, 3) {
            Some(1) => out[0] += 1,
            Some(7) => out[1] += 1,
            _ => {}
        }
    }
    out
}

/// The sockets of a raw table: its lines after the first.
pub(super) fn raw_count(text: &[u8]) -> u32 {
    let n = crate::scan::lines(text).count();
    n.saturating_sub(1) as u32
}

/// The unix sockets: datagram, stream established, listening and all.
pub(super) fn unix_counts(text: &[u8]) -> [u32; 4] {
    let mut out = [0u32; 4];
    for line in full_lines(text) {
        let (Some(ty), Some(state)) = (hex_word(line, 4), hex_word(line, 5)) else { continue };
        match ty {
            2 => out[0] += 1,
            1 => {
                match state {
                    3 => out[1] += 1,
                    1 => out[2] += 1,
                    _ => {}
                }
                out[3] += 1;
            }
            _ => {}
        }
    }
    out
}

#[derive(Clone, Debug, Default)]
struct Conns {
    tcp: [u32; TCP_STATES],
    tcp6: [u32; TCP_STATES],
    udp: [u32; 2],
    udp6: [u32; 2],
    raw: u32,
    raw6: u32,
    unix: [u32; 4],
}

/// The area, new.
pub(super) fn new(_: &Options) -> Box<dyn Area> {
    Box::<Conns>::default()
}

impl Area for Conns {
    fn refresh(&mut self, rd: &mut Reader, clusters: &[u32]) {
        for &c in clusters {
            match c {
                TCP => self.tcp = tcp_table(rd, false),
                TCP6 => self.tcp6 = tcp_table(rd, true),
                UDP => self.udp = rd.with("/proc/net/udp", udp_states).unwrap_or_default(),
                UDP6 => self.udp6 = rd.with("/proc/net/udp6", udp_states).unwrap_or_default(),
                RAW => self.raw = rd.with("/proc/net/raw", raw_count).unwrap_or_default(),
                RAW6 => self.raw6 = rd.with("/proc/net/raw6", raw_count).unwrap_or_default(),
                UNIX => self.unix = rd.with("/proc/net/unix", unix_counts).unwrap_or_default(),
                _ => {}
            }
        }
    }

    fn value(&self, def: &MetricDef, _inst: i32) -> Result<Option<AtomValue>, PmError> {
        let item = def.pmid.item() as usize;
        let v = match def.pmid.cluster() {
            TCP => self.tcp.get(item),
            TCP6 => self.tcp6.get(item),
            UDP => item.checked_sub(1).and_then(|k| self.udp.get(k)),
            UDP6 => item.checked_sub(1).and_then(|k| self.udp6.get(k)),
            RAW => Some(&self.raw).filter(|_| item == 1),
            RAW6 => Some(&self.raw6).filter(|_| item == 1),
            _ => item.checked_sub(1).and_then(|k| self.unix.get(k)),
        };
        Ok(Some(AtomValue::U32(*v.ok_or(PmError::PM_ERR_PMID)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn socket_tables_count_by_state() {
        let tcp = b"  sl  local_address rem_address   st tx_queue\n\
                    0: 0100007F:0CEA 00000000:0000 0A 00000000:00000000\n\
                    1: 0100007F:0CEA 0100007F:9C40 01 00000000:00000000\n\
                    2: 0100007F:0CEA 0100007F:9C40 01 x\n\
                    3: 0100007F:0CEA 0100007F:9C40 01";
        let s = tcp_states(tcp);
        // the last line has no newline: not counted
        assert_eq!((s[10], s[1]), (1, 2));
        assert_eq!(udp_states(b"sl a b st\n 0: a b 07\n 1: a b 01\n 2: a b 0C\n"), [1, 1]);
        assert_eq!(raw_count(b"header\nx\ny\n"), 2);
        assert_eq!(raw_count(b""), 0);
        let unix = b"Num RefCount Protocol Flags Type St Inode Path\n\
                     0: 00000002 00000000 00010000 0001 01 1 /run/x\n\
                     0: 00000002 00000000 00000000 0001 03 2\n\
                     0: 00000002 00000000 00000000 0002 01 3\n";
        assert_eq!(unix_counts(unix), [1, 1, 1, 2]);
        assert_eq!(unix_counts(b"\xff\xfe\n\n"), [0; 4]);
    }

    #[test]
    fn tcp_states_come_from_socket_diagnostics_where_they_answer() {
        use crate::source::testkit::*;
        let mut src = source(None);
        let table = b"  sl  local_address rem_address   st\n 0: 0100007F:0CEA 00000000:0000 0A\n";
        src.files.files.insert("/proc/net/tcp".into(), table.to_vec());
        src.files.files.insert("/proc/net/tcp6".into(), table.to_vec());
        // no answer (a snapshot, no sock_diag): the files
        assert_eq!(values(&mut src, "network.tcpconn.listen"), u32s(&[(PM_IN_NULL, 1)]));
        assert_eq!(values(&mut src, "network.tcpconn6.listen"), u32s(&[(PM_IN_NULL, 1)]));
        let (mut v4, mut v6) = ([0; TCP_STATES], [0; TCP_STATES]);
        (v4[1], v4[10], v6[6]) = (5, 2, 3);
        src.files.tcp = Some([v4, v6]);
        src.files.reads.borrow_mut().clear();
        assert_eq!(values(&mut src, "network.tcpconn.listen"), u32s(&[(PM_IN_NULL, 2)]));
        assert_eq!(values(&mut src, "network.tcpconn.established"), u32s(&[(PM_IN_NULL, 5)]));
        assert_eq!(values(&mut src, "network.tcpconn6.time_wait"), u32s(&[(PM_IN_NULL, 3)]));
        assert!(src.files.reads.borrow().iter().all(|p| !p.starts_with("/proc/net/tcp")));
    }
}
