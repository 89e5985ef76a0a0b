//! Devices whose counters sysfs keeps as a file each: SCSI tape drives
//! (/sys/class/scsi_tape/stN/stats: `tape.dev.*`, `hinv.ntape`) and
//! fibre channel hosts (/sys/class/fc_host/HOST/statistics: `fchost.*`,
//! `hinv.nfchost`).

use super::area::{Area, Reader};
use super::Options;
use crate::cache::InstCache;
use crate::MetricDef;
use pcp_core::support::strtod::{strtol_prefix, strtoull_prefix};
use pcp_core::{AtomValue, PmError};
use std::collections::HashMap;

/// `CLUSTER_TAPEDEV` and `CLUSTER_FCHOST`.
const TAPE: u32 = 71;
const FCHOST: u32 = 91;
/// The clusters served here.
pub(super) const CLUSTERS: [u32; 2] = [TAPE, FCHOST];
const TAPE_INDOM: u32 = 34;
const FCHOST_INDOM: u32 = 39;
/// The instance domains kept here.
pub(super) const INDOMS: [u32; 2] = [TAPE_INDOM, FCHOST_INDOM];
/// The item of `hinv.ntape` and `hinv.nfchost`.
const COUNT_ITEM: u32 = 16;

/// A tape drive's counter files, by the slot each fills.
const TAPE_FIELDS: [&str; 10] = [
    "in_flight",
    "io_ns",
    "other_cnt",
    "read_byte_cnt",
    "read_cnt",
    "read_ns",
    "resid_cnt",
    "write_byte_cnt",
    "write_cnt",
    "write_ns",
];
/// A fibre channel host's counter files, by the slot each fills (the
/// PMDA serves slot N as item N), and how far the count is shifted left
/// (words to bytes).
const FCHOST_FIELDS: [(&str, u32); 8] = [
    ("rx_frames", 0),
    ("rx_words", 2),
    ("tx_frames", 0),
    ("tx_words", 2),
    ("lip_count", 0),
    ("nos_count", 0),
    ("error_frames", 0),
    ("dumped_frames", 0),
];

/// The slot a counter file fills: the first field that starts with the
/// file's name.
pub(super) fn slot<'a>(fields: impl Iterator<Item = &'a str>, file: &str) -> Option<usize> {
    fields.enumerate().find(|(_, f)| f.as_bytes().starts_with(file.as_bytes())).map(|(k, _)| k)
}

/// A counter as the PMDA reads it: a tape's with `strtoll` (base 10), a
/// fibre channel host's with `strtoull` (any base; all ones as 0), then
/// shifted.
pub(super) fn count(text: &[u8], fchost_shift: Option<u32>) -> u64 {
    match fchost_shift {
        None => strtol_prefix(text).0 as u64,
        Some(shift) => {
            let s = text.trim_ascii_start();
            let (digits, base) = match s {
                [b'0', b'x' | b'X', ..] => (&s[2..], 16),
                [b'0', ..] => (s, 8),
                _ => (s, 10),
            };
            let (v, n) = strtoull_prefix(digits, base);
            let v = if n == 0 && base == 16 { 0 } else { v };
            let v = if v == u64::MAX { 0 } else { v };
            v << shift
        }
    }
}

#[derive(Clone, Debug, Default)]
struct Devices {
    insts: InstCache,
    counts: HashMap<i32, Vec<u64>>,
}

impl Devices {
    /// Read the devices of `class` (`scsi_tape` or `fc_host`).
    fn refresh(&mut self, rd: &mut Reader, tape: bool) {
        self.insts.deactivate_all();
        let (class, sub) = if tape { ("scsi_tape", "stats") } else { ("fc_host", "statistics") };
        let base = format!("/sys/class/{class}");
        let Ok(devices) = rd.files.list(&base) else { return };
        for dev in devices.iter().filter(|d| !d.starts_with('.')) {
            if tape && !(dev.starts_with("st") && dev.ends_with(|c: char| c.is_ascii_digit())) {
                continue;
            }
            let dir = format!("{base}/{dev}/{sub}");
            let Ok(files) = rd.files.list(&dir) else { continue };
            let Some(inst) = self.insts.add(dev) else { continue };
            let mut counts = vec![0u64; if tape { TAPE_FIELDS.len() } else { FCHOST_FIELDS.len() }];
            for f in files.iter().filter(|f| !f.starts_with('.')) {
                let k = if tape {
                    slot(TAPE_FIELDS.iter().copied(), f)
                } else {
                    slot(FCHOST_FIELDS.iter().map(|x| x.0), f)
                };
                let Some(k) = k else { continue };
                let shift = (!tape).then(|| FCHOST_FIELDS[k].1);
                // the first 63 bytes, as the PMDA reads them
                if let Some(Some(v)) =
                    rd.with(&format!("{dir}/{f}"), |t| (!t.is_empty()).then(|| count(&t[..t.len().min(63)], shift)))
                {
                    counts[k] = v;
                }
            }
            self.counts.insert(inst, counts);
        }
    }
}

#[derive(Clone, Debug, Default)]
struct SysfsStats {
    tape: Devices,
    fchost: Devices,
}

/// The area, new.
pub(super) fn new(_: &Options) -> Box<dyn Area> {
    Box::<SysfsStats>::default()
}

impl Area for SysfsStats {
    fn refresh(&mut self, rd: &mut Reader, clusters: &[u32]) {
        if clusters.contains(&TAPE) {
            self.tape.refresh(rd, true);
        }
        if clusters.contains(&FCHOST) {
            self.fchost.refresh(rd, false);
        }
    }

    fn value(&self, def: &MetricDef, inst: i32) -> Result<Option<AtomValue>, PmError> {
        let d = if def.pmid.cluster() == TAPE { &self.tape } else { &self.fchost };
        let item = def.pmid.item();
        if item == COUNT_ITEM {
            return Ok(Some(AtomValue::U32(d.insts.active_count() as u32)));
        }
        d.insts.name(inst).ok_or(PmError::PM_ERR_INST)?;
        let v = d.counts.get(&inst).and_then(|c| c.get(item as usize)).ok_or(PmError::PM_ERR_PMID)?;
        Ok(Some(AtomValue::U64(*v)))
    }

    fn instances(&self, serial: u32) -> Vec<(i32, &str)> {
        match serial {
            TAPE_INDOM => self.tape.insts.active().collect(),
            FCHOST_INDOM => self.fchost.insts.active().collect(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_files_read_as_the_pmda_reads_them() {
        assert_eq!(slot(TAPE_FIELDS.iter().copied(), "read_cnt"), Some(4));
        // a name that starts a field's name fills that field
        assert_eq!(slot(TAPE_FIELDS.iter().copied(), "read"), Some(3));
        assert_eq!(slot(TAPE_FIELDS.iter().copied(), "bogus"), None);
        assert_eq!(count(b"174239975693\n", None), 174239975693);
        assert_eq!(count(b"-1\n", None), u64::MAX);
        assert_eq!(count(b"0x10\n", Some(2)), 64);
        assert_eq!(count(b"0xffffffffffffffff\n", Some(0)), 0);
        assert_eq!(count(b"010", Some(0)), 8);
        assert_eq!(count(b"", Some(0)), 0);
    }
}
