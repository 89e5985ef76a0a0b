//! /proc/tty/driver/serial (`tty.serial.*`): the serial ports' counts.

use super::area::{Area, Reader};
use super::Options;
use crate::cache::InstCache;
use crate::scan::{lines, Scan};
use crate::MetricDef;
use pcp_core::{AtomValue, PmError};
use std::collections::HashMap;

/// `CLUSTER_TTY`.
const TTY: u32 = 74;
/// The clusters served here.
pub(super) const CLUSTERS: [u32; 1] = [TTY];
/// The serial ports (`TTY_INDOM`).
const TTY_INDOM: u32 = 35;
/// The instance domains kept here.
pub(super) const INDOMS: [u32; 1] = [TTY_INDOM];

/// Each count's label on a port's line, by item.
const LABELS: [&[u8]; 7] = [b"tx:", b"rx:", b"fe:", b"pe:", b"brk:", b"oe:", b"irq:"];

/// One port's line: its name (the text before the first colon) and the
/// counts it gives (those it lacks are `None`); `None` for lines the
/// PMDA passes over (no `uart:`, an unknown UART, the header, a port
/// that is not a number from 0).
pub(super) fn port_line(line: &[u8]) -> Option<(String, [Option<u32>; 7])> {
    let colon = line.iter().position(|&b| b == b':')?;
    let uart_at = memchr::memmem::find(line, b"uart:")?;
    let port = &line[..colon.min(63)];
    let (n, used) = pcp_core::support::strtod::strtol_prefix(port);
    if (used > 0 && (n < 0 || n > i64::from(i32::MAX))) || (n as i32) < 0 {
        return None;
    }
    let uart = Scan::new(&line[uart_at + 5..]).word().unwrap_or_default();
    if uart == b"unknown" || port == b"serinfo" {
        return None;
    }
    let mut counts = [None; 7];
    for (k, label) in LABELS.iter().enumerate() {
        if let Some(at) = memchr::memmem::find(line, label) {
            counts[k] = Scan::new(&line[at + label.len()..]).u32();
        }
    }
    Some((String::from_utf8_lossy(port).into_owned(), counts))
}

#[derive(Clone, Debug, Default)]
struct Tty {
    /// Whether the file could be read (the PMDA's permission check).
    readable: bool,
    insts: InstCache,
    /// Per instance, its counts (kept: a count a line lacks keeps its
    /// last value).
    counts: HashMap<i32, [u32; 7]>,
}

/// The area, new.
pub(super) fn new(_: &Options) -> Box<dyn Area> {
    Box::<Tty>::default()
}

impl Area for Tty {
    fn refresh(&mut self, rd: &mut Reader, _clusters: &[u32]) {
        let Ok(text) = rd.files.read("/proc/tty/driver/serial") else {
            self.readable = false;
            return;
        };
        self.readable = true;
        self.insts.deactivate_all();
        for line in lines(&text) {
            let Some((port, counts)) = port_line(line) else { continue };
            let Some(inst) = self.insts.add(&port) else { continue };
            let kept = self.counts.entry(inst).or_default();
            for (k, c) in counts.iter().enumerate() {
                if let Some(c) = c {
                    kept[k] = *c;
                }
            }
        }
    }

    fn value(&self, def: &MetricDef, inst: i32) -> Result<Option<AtomValue>, PmError> {
        if !self.readable || self.insts.name(inst).is_none() {
            return Ok(None);
        }
        let c = self.counts.get(&inst).and_then(|c| c.get(def.pmid.item() as usize)).ok_or(PmError::PM_ERR_PMID)?;
        Ok(Some(AtomValue::U32(*c)))
    }

    fn instances(&self, serial: u32) -> Vec<(i32, &str)> {
        match serial {
            TTY_INDOM => self.insts.active().collect(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_lines_read_as_the_pmda_reads_them() {
        let (port, c) = port_line(b"0: uart:16550A port:000003F8 irq:26 tx:218 rx:0 RTS|CTS|DTR|DSR|CD").unwrap();
        assert_eq!(port, "0");
        assert_eq!(c, [Some(218), Some(0), None, None, None, None, Some(26)]);
        assert_eq!(port_line(b"1: uart:unknown port:000002F8 irq:3"), None);
        assert_eq!(port_line(b"serinfo:1.0 driver revision:"), None);
        assert_eq!(port_line(b"-1: uart:16550A tx:1"), None);
        assert_eq!(port_line(b"\xff"), None);
    }
}
