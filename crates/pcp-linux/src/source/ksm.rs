//! /sys/kernel/mm/ksm (`mem.ksm.*`): kernel same-page merging.

use super::area::{Area, Reader};
use super::Options;
use crate::scan::Scan;
use crate::MetricDef;
use pcp_core::{AtomValue, PmError};

/// `CLUSTER_KSM_INFO`.
const KSM: u32 = 69;
/// The clusters served here.
pub(super) const CLUSTERS: [u32; 1] = [KSM];
/// No instance domains.
pub(super) const INDOMS: [u32; 0] = [];

/// The files the PMDA reads, by the prefix it knows each by, in item
/// order.
const FIELDS: [&str; 9] = [
    "full_scans",
    "merge_across_nodes",
    "pages_shared",
    "pages_sharing",
    "pages_to_scan",
    "pages_unshared",
    "pages_volatile",
    "run",
    "sleep_millisecs",
];

/// The item a file of the directory feeds: the first field whose name
/// starts it.
pub(super) fn item_of(file: &str) -> Option<usize> {
    FIELDS.iter().position(|f| file.starts_with(f))
}

/// The values, kept from one read to the next as the PMDA keeps them.
#[derive(Clone, Debug, Default)]
struct Ksm {
    values: [u64; 9],
}

/// The area, new.
pub(super) fn new(_: &Options) -> Box<dyn Area> {
    Box::<Ksm>::default()
}

impl Area for Ksm {
    fn refresh(&mut self, rd: &mut Reader, _clusters: &[u32]) {
        let dir = "/sys/kernel/mm/ksm";
        let Ok(names) = rd.files.list(dir) else { return };
        for name in names.iter().filter(|n| !n.starts_with('.')) {
            let Some(item) = item_of(name) else { continue };
            // the first line's number, as strtoul reads it (0 for none)
            let v = rd.with(&format!("{dir}/{name}"), |t| t.first().map(|_| Scan::new(t).u64().unwrap_or(0)));
            if let Some(Some(v)) = v {
                self.values[item] = v;
            } else if v.is_none() {
                // a file that cannot be read ends the refresh
                return;
            }
        }
    }

    fn value(&self, def: &MetricDef, _inst: i32) -> Result<Option<AtomValue>, PmError> {
        let v = self.values.get(def.pmid.item() as usize).ok_or(PmError::PM_ERR_PMID)?;
        Ok(Some(AtomValue::U64(*v)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_feed_items_by_prefix() {
        assert_eq!(item_of("pages_shared"), Some(2));
        assert_eq!(item_of("pages_sharing"), Some(3));
        assert_eq!(item_of("run"), Some(7));
        assert_eq!(item_of("max_page_sharing"), None);
        assert_eq!(item_of("sleep_millisecs"), Some(8));
    }
}
