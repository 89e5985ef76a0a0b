//! /proc/buddyinfo (`mem.buddyinfo.*`): free pages of each order in each
//! zone of each node.

use super::area::{Area, Reader};
use super::Options;
use crate::MetricDef;
use pcp_core::{AtomValue, PmError};

/// `CLUSTER_BUDDYINFO`.
const BUDDYINFO: u32 = 67;
/// The clusters served here.
pub(super) const CLUSTERS: [u32; 1] = [BUDDYINFO];
/// `BUDDYINFO_INDOM`: zone, order and node.
const BUDDY_INDOM: u32 = 31;
/// The instance domains kept here.
pub(super) const INDOMS: [u32; 1] = [BUDDY_INDOM];

/// The words of a line split at single spaces as the PMDA splits them
/// (runs of spaces as one; a line's end is part of its last word, or a
/// word of its own after a space).
fn words(line: &[u8]) -> Vec<&[u8]> {
    let start = line.iter().position(|&b| b != b' ').unwrap_or(line.len());
    let line = &line[start..];
    let mut out: Vec<&[u8]> = line.split(|&b| b == b' ').filter(|w| !w.is_empty()).collect();
    if line.is_empty() || line.ends_with(b" ") {
        out.push(b"");
    }
    out
}

/// One instance: its zone, order, node name and free pages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Buddy {
    zone: String,
    order: u32,
    node: String,
    pages: u32,
}

impl Buddy {
    fn name(&self) -> String {
        format!("{}::order{}::{}", self.zone, self.order, self.node)
    }
}

/// The orders the file has, as the PMDA counts them from its first line
/// (with its line end): the words less five.
pub(super) fn max_order(first_line: &[u8]) -> usize {
    words(first_line).len().saturating_sub(5)
}

/// Read the file (lines with their ends) into `buddies`, adding the
/// zones not seen before in the order met, `orders` instances each.
pub(super) fn read(text: &[u8], orders: usize, buddies: &mut Vec<Buddy>) {
    for line in text.split_inclusive(|&b| b == b'\n') {
        // "Node N" up to the comma, as "nodeN"
        let comma = line.iter().position(|&b| b == b',').unwrap_or(line.len());
        let head: Vec<u8> = line[..comma].iter().map(|&b| if b == b'N' { b'n' } else { b }).collect();
        let gap = head.iter().position(|&b| b == b' ').unwrap_or(head.len());
        let mut node: Vec<u8> = head.iter().enumerate().filter(|(i, _)| *i != gap).map(|(_, b)| *b).collect();
        node.truncate(head.len().saturating_sub(1));
        let node = String::from_utf8_lossy(&node).into_owned();
        let rest = line.get(comma + 6..).unwrap_or_default();
        let w = words(rest);
        let zone = String::from_utf8_lossy(w.first().copied().unwrap_or_default()).into_owned();
        let pages: Vec<u32> = (0..orders)
            .map(|k| crate::scan::Scan::new(w.get(k + 1).copied().unwrap_or_default()).u64().unwrap_or(0) as u32)
            .collect();
        let at = match buddies.iter().position(|b| b.node == node && b.zone == zone) {
            Some(at) => at,
            None => {
                let at = buddies.len();
                buddies.extend((0..orders).map(|k| Buddy {
                    zone: zone.clone(),
                    order: k as u32,
                    node: node.clone(),
                    pages: 0,
                }));
                at
            }
        };
        for (k, p) in pages.into_iter().enumerate() {
            if let Some(b) = buddies.get_mut(at + k) {
                b.pages = p;
            }
        }
    }
}

#[derive(Clone, Debug, Default)]
struct Buddies {
    page_shift: u32,
    orders: Option<usize>,
    buddies: Vec<Buddy>,
    names: Vec<String>,
}

/// The area, new.
pub(super) fn new(opts: &Options) -> Box<dyn Area> {
    Box::new(Buddies { page_shift: opts.page_size.max(1).trailing_zeros(), ..Buddies::default() })
}

impl Area for Buddies {
    fn refresh(&mut self, rd: &mut Reader, _clusters: &[u32]) {
        let Some(text) = rd.read_file("/proc/buddyinfo") else { return };
        if self.orders.is_none() {
            let Some(first) = text.split_inclusive(|&b| b == b'\n').next() else { return };
            self.orders = Some(max_order(first));
        }
        read(&text, self.orders.unwrap_or(0), &mut self.buddies);
        self.names = self.buddies.iter().map(Buddy::name).collect();
    }

    fn value(&self, def: &MetricDef, inst: i32) -> Result<Option<AtomValue>, PmError> {
        let b = usize::try_from(inst).ok().and_then(|i| self.buddies.get(i)).ok_or(PmError::PM_ERR_INST)?;
        Ok(Some(AtomValue::U64(match def.pmid.item() {
            0 => u64::from(b.pages),
            1 => (u64::from(b.pages).wrapping_shl(b.order).wrapping_shl(self.page_shift)) >> 10,
            _ => return Err(PmError::PM_ERR_PMID),
        })))
    }

    fn instances(&self, serial: u32) -> Vec<(i32, &str)> {
        match serial {
            BUDDY_INDOM => self.names.iter().zip(0..).map(|(n, i)| (i, n.as_str())).collect(),
            _ => Vec::new(),
        }
    }

    fn instance_label(&self, _serial: u32, inst: i32, _name: &str) -> Option<String> {
        let b = self.buddies.get(usize::try_from(inst).ok()?)?;
        // (the PMDA's atoi of "nodeN": always 0)
        let node = crate::scan::atoi(b.node.as_bytes());
        Some(format!(r#"{{"numa_node":{},"zone":"{}","order":{}}}"#, node as u32, b.zone, b.order))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buddyinfo_as_the_pmda_reads_it() {
        let text = b"Node 0, zone      DMA      0      1      3 \nNode 0, zone   Normal  13092   3877   4098 \n";
        let orders = max_order(b"Node 0, zone      DMA      0      1      3 \n");
        assert_eq!(orders, 3);
        let mut b = Vec::new();
        read(text, orders, &mut b);
        assert_eq!(b.len(), 6);
        assert_eq!((b[1].name(), b[1].pages), ("DMA::order1::node0".to_string(), 1));
        assert_eq!((b[5].name(), b[5].pages), ("Normal::order2::node0".to_string(), 4098));
        read(b"Node 0, zone   Normal  1 2 3 \n", orders, &mut b);
        assert_eq!((b.len(), b[3].pages), (6, 1));
        read(b"\xff\n,\n", orders, &mut b);
    }
}
