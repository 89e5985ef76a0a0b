//! /proc/net/sockstat and sockstat6 (`network.sockstat.*`) and
//! /proc/net/softnet_stat (`network.softnet.*`).

use super::area::{Area, Reader};
use super::Options;
use crate::scan::{lines, Scan};
use crate::MetricDef;
use pcp_core::{AtomValue, PmError};
use std::collections::HashMap;

/// /proc/net/sockstat (`CLUSTER_NET_SOCKSTAT`), sockstat6, softnet_stat.
const SOCKSTAT: u32 = 11;
const SOCKSTAT6: u32 = 73;
const SOFTNET: u32 = 57;
/// The clusters served here.
pub(super) const CLUSTERS: [u32; 3] = [SOCKSTAT, SOCKSTAT6, SOFTNET];
/// The instance domains kept here: none (softnet's per-CPU metrics are
/// over the CPUs).
pub(super) const INDOMS: [u32; 0] = [];

/// Each sockstat row the PMDA reads: its prefix, and the items its
/// numbers go to (the 2nd, 4th, ... word after the prefix).
const SOCKSTAT_ROWS: [(&[u8], &[u32]); 6] = [
    (b"sockets:", &[9]),
    (b"TCP:", &[0, 10, 11, 12, 13]),
    (b"UDP:", &[3, 14]),
    (b"UDPLITE:", &[8]),
    (b"RAW:", &[6]),
    (b"FRAG:", &[15, 16]),
];
const SOCKSTAT6_ROWS: [(&[u8], &[u32]); 5] =
    [(b"TCP6:", &[0]), (b"UDP6:", &[1]), (b"UDPLITE6:", &[2]), (b"RAW6:", &[3]), (b"FRAG6:", &[4, 5])];

/// Read sockstat rows into `values` by item, as `sscanf("%s %s %d %s
/// %d ...")` reads them: up to the first number that does not read.
/// What a file does not say keeps its last value.
pub(super) fn sockstat(text: &[u8], rows: &[(&[u8], &[u32])], values: &mut [i32]) {
    for line in lines(text) {
        let Some((_, items)) = rows.iter().find(|(p, _)| line.starts_with(p)) else { continue };
        let mut words = line.split(|b| b.is_ascii_whitespace()).filter(|w| !w.is_empty()).skip(1);
        for &item in items.iter() {
            let Some(w) = words.nth(1) else { break };
            let Some(v) = Scan::new(w).i32() else { break };
            if let Some(slot) = values.get_mut(item as usize) {
                *slot = v;
            }
        }
    }
}

/// One CPU's softnet counters: processed, dropped, time squeezed, CPU
/// collisions, received RPS, flow limit count, and how many fields the
/// line had (the PMDA's `sscanf` count, of 11).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Softnet {
    counts: [u64; 6],
    fields: usize,
}

/// A softnet_stat line as `%08llx` conversions read it.
pub(super) fn softnet_line(line: &[u8]) -> Softnet {
    let mut s = Softnet::default();
    let mut words = line.split(|b| b.is_ascii_whitespace()).filter(|w| !w.is_empty());
    for k in 0..11 {
        let Some(w) = words.next() else { break };
        let w = &w[..w.len().min(8)];
        let digits = w.iter().take_while(|b| b.is_ascii_hexdigit()).count();
        if digits == 0 {
            break;
        }
        let v = u64::from_str_radix(std::str::from_utf8(&w[..digits]).unwrap_or("0"), 16).unwrap_or(0);
        match k {
            0..=2 => s.counts[k] = v,
            8..=10 => s.counts[k - 5] = v,
            _ => {}
        }
        s.fields = k + 1;
        if digits < w.len() {
            break;
        }
    }
    s
}

#[derive(Clone, Debug, Default)]
struct Sockets {
    sockstat: [i32; 17],
    sockstat6: [i32; 6],
    /// Per CPU instance, and all together (whose field count is the
    /// last CPU's).
    softnet: HashMap<i32, Softnet>,
    softnet_all: Softnet,
}

/// The area, new.
pub(super) fn new(_: &Options) -> Box<dyn Area> {
    Box::<Sockets>::default()
}

impl Area for Sockets {
    fn refresh(&mut self, rd: &mut Reader, clusters: &[u32]) {
        for &c in clusters {
            match c {
                SOCKSTAT => {
                    let v = &mut self.sockstat;
                    rd.with("/proc/net/sockstat", |t| sockstat(t, &SOCKSTAT_ROWS, v));
                }
                SOCKSTAT6 => {
                    let v = &mut self.sockstat6;
                    rd.with("/proc/net/sockstat6", |t| sockstat(t, &SOCKSTAT6_ROWS, v));
                }
                SOFTNET => {
                    self.softnet_all = Softnet::default();
                    let cpus = rd.cpus;
                    let (all, per) = (&mut self.softnet_all, &mut self.softnet);
                    rd.with("/proc/net/softnet_stat", |t| {
                        // a line for each online CPU, in order
                        let mut ls = lines(t);
                        for &(cpu, _) in cpus {
                            let Some(line) = ls.next() else { break };
                            let s = softnet_line(line);
                            for (a, v) in all.counts.iter_mut().zip(s.counts) {
                                *a = a.wrapping_add(v);
                            }
                            all.fields = s.fields;
                            per.insert(cpu, s);
                        }
                    });
                }
                _ => {}
            }
        }
    }

    fn value(&self, def: &MetricDef, inst: i32) -> Result<Option<AtomValue>, PmError> {
        let item = def.pmid.item() as usize;
        match def.pmid.cluster() {
            SOCKSTAT => Ok(Some(AtomValue::I32(*self.sockstat.get(item).ok_or(PmError::PM_ERR_PMID)?))),
            SOCKSTAT6 => Ok(Some(AtomValue::I32(*self.sockstat6.get(item).ok_or(PmError::PM_ERR_PMID)?))),
            _ => {
                let k = item % 6;
                // the fields a counter needs the line to have had
                let needed = [9, 9, 9, 9, 10, 11][k];
                if item > 11 {
                    return Err(PmError::PM_ERR_PMID);
                }
                if self.softnet_all.fields < needed {
                    return Err(PmError::PM_ERR_APPVERSION);
                }
                let s =
                    if item < 6 { self.softnet_all } else { *self.softnet.get(&inst).ok_or(PmError::PM_ERR_INST)? };
                Ok(Some(AtomValue::U64(s.counts[k])))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sockstat_rows_read_as_sscanf_reads_them() {
        let mut v = [0; 17];
        sockstat(
            b"sockets: used 39\nTCP: inuse 8 orphan 1 tw 2 alloc 11 mem 142\nUDP: inuse x mem 3\n",
            &SOCKSTAT_ROWS,
            &mut v,
        );
        assert_eq!((v[9], v[0], v[10], v[11], v[12], v[13]), (39, 8, 1, 2, 11, 142));
        // a number that does not read ends the row
        assert_eq!((v[3], v[14]), (0, 0));
        sockstat(b"\xff\nTCP:\n", &SOCKSTAT_ROWS, &mut v);
        assert_eq!(v[0], 8);
    }

    #[test]
    fn softnet_lines_read_as_hex_words() {
        let s = softnet_line(b"0000be29 00000001 00000002 0 0 0 0 0 00000003 00000004 00000005 0 0");
        assert_eq!((s.counts, s.fields), ([0xbe29, 1, 2, 3, 4, 5], 11));
        assert_eq!(softnet_line(b"00000010 00000001 00000002 0 0 0 0 0 00000003").fields, 9);
        assert_eq!(softnet_line(b"zz").fields, 0);
        assert_eq!(softnet_line(b"").fields, 0);
    }
}
