//! /proc/scsi/scsi (`hinv.map.scsi`): each SCSI device, named
//! `scsiH:C:I:L TYPE`, and the block device the running system's
//! /sys/class/scsi_device gives it (the PMDA looks there whatever the
//! files' root). A device once listed stays listed, as in the PMDA.

use super::area::{saved_cache, Area, Reader};
use super::Options;
use crate::cache::InstCache;
use crate::scan::{lines, Scan};
use crate::MetricDef;
use pcp_core::{AtomValue, PmError};
use std::collections::HashMap;

/// `CLUSTER_SCSI`.
const SCSI: u32 = 15;
/// The clusters served here.
pub(super) const CLUSTERS: [u32; 1] = [SCSI];
/// `SCSI_INDOM`.
const SCSI_INDOM: u32 = 11;
/// The instance domains kept here.
pub(super) const INDOMS: [u32; 1] = [SCSI_INDOM];

/// `Host: scsi%d Channel: %d Id: %d Lun: %d`: the four numbers (white
/// space before each label and number as `sscanf` skips it).
fn host_line(line: &[u8]) -> Option<[i32; 4]> {
    let mut rest = line.strip_prefix(b"Host:")?;
    let mut out = [0; 4];
    for (k, label) in [&b"scsi"[..], b"Channel:", b"Id:", b"Lun:"].iter().enumerate() {
        let mut s = Scan::new(rest.trim_ascii_start().strip_prefix(*label)?);
        out[k] = s.i32()?;
        rest = s.rest();
    }
    Some(out)
}

/// The devices of /proc/scsi/scsi in order, as (instance name, the
/// address `H:C:I:L` its block device is looked up by): a `Host:` line,
/// then the word after the first `Type:` of the lines that follow (the
/// last one found before, when none does).
pub(super) fn devices(text: &[u8]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut ty = String::new();
    let mut rows = lines(text);
    while let Some(line) = rows.next() {
        let Some([h, c, i, l]) = host_line(line) else { continue };
        for next in rows.by_ref() {
            let Some(at) = memchr::memmem::find(next, b"Type:") else { continue };
            let word = next[at + 5..].split(u8::is_ascii_whitespace).find(|w| !w.is_empty());
            if let Some(w) = word {
                ty = String::from_utf8_lossy(&w[..w.len().min(63)]).into_owned();
                break;
            }
        }
        out.push((format!("scsi{h}:{c}:{i}:{l} {ty}"), format!("{h}:{c}:{i}:{l}")));
    }
    out
}

/// The first name in the running system's
/// /sys/class/scsi_device/ADDRESS/device/block, in directory order.
fn block_device(address: &str) -> Option<String> {
    let dir = std::fs::read_dir(format!("/sys/class/scsi_device/{address}/device/block")).ok()?;
    dir.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).find(|n| !n.starts_with('.'))
}

#[derive(Clone, Debug)]
struct Scsi {
    insts: InstCache,
    /// The block device of each instance.
    devs: HashMap<i32, String>,
}

/// The area, new.
pub(super) fn new(opts: &Options) -> Box<dyn Area> {
    Box::new(Scsi { insts: saved_cache(opts, SCSI_INDOM), devs: HashMap::new() })
}

impl Area for Scsi {
    fn refresh(&mut self, rd: &mut Reader, _clusters: &[u32]) {
        let Some(text) = rd.read_file("/proc/scsi/scsi") else { return };
        for (name, address) in devices(&text) {
            if self.insts.lookup(&name).is_some() {
                continue;
            }
            let Some(dev) = block_device(&address) else { continue };
            if let Some(inst) = self.insts.add(&name) {
                self.devs.insert(inst, dev);
            }
        }
    }

    fn value(&self, def: &MetricDef, inst: i32) -> Result<Option<AtomValue>, PmError> {
        self.insts.name(inst).ok_or(PmError::PM_ERR_INST)?;
        match def.pmid.item() {
            0 => Ok(Some(AtomValue::String(self.devs.get(&inst).cloned().unwrap_or_default().into_bytes()))),
            _ => Err(PmError::PM_ERR_PMID),
        }
    }

    fn instances(&self, serial: u32) -> Vec<(i32, &str)> {
        match serial {
            SCSI_INDOM => self.insts.active().collect(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_as_the_pmda_reads_them() {
        let text = b"Attached devices:\n\
Host: scsi0 Channel: 00 Id: 00 Lun: 00\n\
  Vendor: ATA      Model: QEMU HARDDISK    Rev: 2.5+\n\
  Type:   Direct-Access                    ANSI  SCSI revision: 05\n\
Host: scsi1 Channel: 00 Id: 01 Lun: 02\n\
  Vendor: QEMU     Model: QEMU DVD-ROM     Rev: 2.5+\n\
  Type:   CD-ROM                           ANSI  SCSI revision: 05\n\
Host: scsi2 Channel: 00 Id: 00 Lun: 00\n\
  Vendor: X\n";
        assert_eq!(
            devices(text),
            vec![
                ("scsi0:0:0:0 Direct-Access".to_string(), "0:0:0:0".to_string()),
                ("scsi1:0:1:2 CD-ROM".to_string(), "1:0:1:2".to_string()),
                // no Type: line, the last one's type
                ("scsi2:0:0:0 CD-ROM".to_string(), "2:0:0:0".to_string()),
            ]
        );
        assert_eq!(host_line(b"Host: scsi0 Channel: 00 Id: 00"), None);
        assert_eq!(host_line(b"Host: scsix Channel: 00 Id: 00 Lun: 00"), None);
        assert!(devices(b"\xff\nHost:\n").is_empty());
    }
}
