//! /proc/swaps (`swapdev.*`): each swap device's size, use and priority.

use super::area::{Area, Reader};
use super::Options;
use crate::cache::InstCache;
use crate::scan::{lines, Scan};
use crate::MetricDef;
use pcp_core::{AtomValue, PmError};
use std::collections::HashMap;

/// `CLUSTER_SWAPDEV`.
const SWAPDEV: u32 = 6;
/// The clusters served here.
pub(super) const CLUSTERS: [u32; 1] = [SWAPDEV];
/// `SWAPDEV_INDOM`: the swap devices by path.
const SWAPDEV_INDOM: u32 = 6;
/// The instance domains kept here.
pub(super) const INDOMS: [u32; 1] = [SWAPDEV_INDOM];

/// A swap device's line: its path, size and use (kilobytes) and
/// priority, as the PMDA reads them (`None` for a line it passes over:
/// one not starting with `/`, or short of fields). A field that does not
/// read as a number is `None`, keeping what was read before.
pub(super) fn swap_line(line: &[u8]) -> Option<(String, [Option<i64>; 3])> {
    if line.first() != Some(&b'/') {
        return None;
    }
    let mut w = line.split(|&b| b == b' ' || b == b'\t').filter(|w| !w.is_empty());
    let path = w.next()?;
    let (_ty, size, used, prio) = (w.next()?, w.next()?, w.next()?, w.next()?);
    let u = |t: &[u8]| Scan::new(t).u32().map(i64::from);
    Some((String::from_utf8_lossy(path).into_owned(), [u(size), u(used), Scan::new(prio).i32().map(i64::from)]))
}

#[derive(Clone, Debug, Default)]
struct Swaps {
    insts: InstCache,
    /// Per instance: size, used, priority.
    values: HashMap<i32, [i64; 3]>,
}

/// The area, new.
pub(super) fn new(_: &Options) -> Box<dyn Area> {
    Box::<Swaps>::default()
}

impl Area for Swaps {
    fn refresh(&mut self, rd: &mut Reader, _clusters: &[u32]) {
        self.insts.deactivate_all();
        let Some(text) = rd.read_file("/proc/swaps") else { return };
        for line in lines(&text) {
            let Some((path, v)) = swap_line(line) else { continue };
            if self.insts.lookup(&path).is_some() {
                // a repeated line
                continue;
            }
            let Some(inst) = self.insts.add(&path) else { continue };
            let kept = self.values.entry(inst).or_default();
            for (k, x) in v.iter().enumerate() {
                if let Some(x) = x {
                    kept[k] = *x;
                }
            }
        }
    }

    fn value(&self, def: &MetricDef, inst: i32) -> Result<Option<AtomValue>, PmError> {
        self.insts.name(inst).ok_or(PmError::PM_ERR_INST)?;
        let [size, used, prio] = self.values.get(&inst).copied().unwrap_or_default();
        Ok(Some(match def.pmid.item() {
            0 => AtomValue::U32((size as u32).wrapping_sub(used as u32)),
            1 | 2 => AtomValue::U32(size as u32),
            3 => AtomValue::U32(0),
            4 => AtomValue::I32(prio as i32),
            _ => return Err(PmError::PM_ERR_PMID),
        }))
    }

    fn instances(&self, serial: u32) -> Vec<(i32, &str)> {
        match serial {
            SWAPDEV_INDOM => self.insts.active().collect(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swap_lines_as_the_pmda_reads_them() {
        assert_eq!(swap_line(b"Filename\tType\tSize\tUsed\tPriority"), None);
        assert_eq!(
            swap_line(b"/dev/zram0                              partition\t8388604\t\t1024\t\t-2"),
            Some(("/dev/zram0".to_string(), [Some(8388604), Some(1024), Some(-2)]))
        );
        assert_eq!(swap_line(b"/swapfile file 10"), None);
        assert_eq!(swap_line(b"/x t a b c").map(|l| l.1), Some([None, None, None]));
    }
}
