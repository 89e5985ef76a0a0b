//! Linux metrics for local contexts: the data side of PCP's Linux PMDA
//! (domain 60) and the one metric of its proc PMDA that tools lean on
//! (`proc.nprocs`), read straight from /proc and /sys.
//!
//! - [`parse`]: pure parsers, bytes in and structs out, a missing or
//!   damaged field being "no value".
//! - [`metrics`]: one table of every metric of the Linux PMDA (all 1340
//!   PCP 6.0.3's has on the machine the table was taken from), with the
//!   names, PMIDs, types, instance domains, semantics, units and help
//!   texts it serves; [`computes`] says which have values here (the
//!   others answer no values, as for files the kernel lacks).
//! - [`LinuxSource`]: the instance domains (numbered as the PMDA numbers
//!   them) and fetches, over a [`Files`] root that tests point at a
//!   committed snapshot. Each area of /proc and /sys is a module of its
//!   own, registered by the PMIDs' clusters it serves, reading its files
//!   once a fetch.
//!
//! It sits on `pcp-core` (PMIDs, descriptors, values); the `pcp` facade's
//! local contexts (`PM_CONTEXT_LOCAL`) serve their metrics from it, and
//! pcp-tools use it for `-L`.
//!
//! ```
//! use pcp_core::{extract_value, AtomValue, MetricType, Timestamp};
//! use pcp_linux::{metric_by_name, LinuxSource, Options, RootFiles, CPU_INDOM, MDADM};
//!
//! // a committed snapshot of a two-CPU machine's /proc and /sys
//! let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshot/vm1");
//! let opts = Options { hz: 100, page_size: 4096, ncpus: Some(2), pmda_cache_dir: None, mdadm: MDADM.into(), single_node: false };
//! let mut source = LinuxSource::with_files(RootFiles::snapshot(root), opts);
//! assert_eq!(source.instances(CPU_INDOM).unwrap(), [(0, "cpu0".to_string()), (1, "cpu1".to_string())]);
//!
//! let load = metric_by_name("kernel.all.load").unwrap();
//! let result = source.fetch(&[load.pmid], Timestamp::new(5, 0), &|_indom, _inst| true);
//! let values: Vec<(i32, AtomValue)> = result.sets[0]
//!     .values
//!     .as_ref()
//!     .unwrap()
//!     .iter()
//!     .map(|v| (v.inst, extract_value(&v.value, load.ty, MetricType::FLOAT).unwrap()))
//!     .collect();
//! // /proc/loadavg: "8.53 8.37 7.37 6/153 24492"
//! assert_eq!(
//!     values,
//!     [(1, AtomValue::Float(8.53)), (5, AtomValue::Float(8.37)), (15, AtomValue::Float(7.37))]
//! );
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod cache;
mod files;
pub mod labels;
pub mod parse;
pub mod proc;
mod scan;
mod source;
mod table;

pub use cache::InstCache;
pub use files::{user_and_group, Files, FsStats, RootFiles};
pub use source::{LinuxSource, Options, MDADM};

use pcp_core::{Desc, InDom, MetricType, PmId, Semantics, Units};
use std::sync::LazyLock;

/// The Linux PMDA's domain number.
pub const LINUX_DOMAIN: u32 = 60;
/// The proc PMDA's domain number (for `proc.nprocs`).
pub const PROC_DOMAIN: u32 = 3;

/// `CPU_INDOM` (60.0): `cpuN`, instance N.
pub const CPU_INDOM: InDom = InDom::new(LINUX_DOMAIN, 0);
/// `DISK_INDOM` (60.1): whole disks by kernel name.
pub const DISK_INDOM: InDom = InDom::new(LINUX_DOMAIN, 1);
/// `LOADAVG_INDOM` (60.2): instances 1, 5 and 15 ("1 minute", ...).
pub const LOADAVG_INDOM: InDom = InDom::new(LINUX_DOMAIN, 2);
/// `NET_DEV_INDOM` (60.3): network interfaces of /proc/net/dev.
pub const NET_DEV_INDOM: InDom = InDom::new(LINUX_DOMAIN, 3);
/// `PARTITIONS_INDOM` (60.10): disk partitions by kernel name.
pub const PARTITIONS_INDOM: InDom = InDom::new(LINUX_DOMAIN, 10);
/// `FILESYS_INDOM` (60.5): mounted block-device file systems.
pub const FILESYS_INDOM: InDom = InDom::new(LINUX_DOMAIN, 5);
/// `ICMPMSG_INDOM` (60.23): the 256 ICMP message types, `TypeN`,
/// instance N.
pub const ICMPMSG_INDOM: InDom = InDom::new(LINUX_DOMAIN, 23);
/// `DM_INDOM` (60.24): device-mapper devices by persistent name.
pub const DM_INDOM: InDom = InDom::new(LINUX_DOMAIN, 24);
/// `MD_INDOM` (60.25): multi-device (software RAID) devices.
pub const MD_INDOM: InDom = InDom::new(LINUX_DOMAIN, 25);
/// `WWID_INDOM` (60.42): multipath devices by WWID.
pub const WWID_INDOM: InDom = InDom::new(LINUX_DOMAIN, 42);

/// The instance domains with constants of their own (every instance
/// domain of the PMDA has its help text: [`indom_text`]).
pub const INDOMS: [InDom; 10] = [
    CPU_INDOM,
    DISK_INDOM,
    LOADAVG_INDOM,
    NET_DEV_INDOM,
    FILESYS_INDOM,
    PARTITIONS_INDOM,
    ICMPMSG_INDOM,
    DM_INDOM,
    MD_INDOM,
    WWID_INDOM,
];

/// One metric: its name, descriptor and help texts, as the PMDA serves
/// them (`pminfo -dmtT` prints these).
///
/// ```
/// use pcp_core::{MetricType, PmId, Semantics};
/// use pcp_linux::{metric_by_name, metric_by_pmid};
///
/// let user = metric_by_name("kernel.all.cpu.user").unwrap();
/// assert_eq!(user.pmid, PmId::new(60, 0, 20));
/// assert_eq!((user.ty, user.sem, user.indom), (MetricType::U64, Semantics::COUNTER, None));
/// assert_eq!(user.units.to_string(), "millisec");
/// assert_eq!(metric_by_pmid(user.pmid), Some(user));
/// assert_eq!(user.desc().indom.to_string(), "PM_INDOM_NULL");
/// assert!(metric_by_name("kernel.all.nosuch").is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetricDef {
    /// The full name, e.g. `kernel.all.load`.
    pub name: &'static str,
    /// The PMID.
    pub pmid: PmId,
    /// The value type.
    pub ty: MetricType,
    /// The instance domain's serial (in the metric's domain), or `None`
    /// for a singular metric.
    pub indom: Option<u32>,
    /// The semantics.
    pub sem: Semantics,
    /// The units.
    pub units: Units,
    /// The one-line help text (`PM_TEXT_ONELINE`).
    pub oneline: &'static str,
    /// The full help text (`PM_TEXT_HELP`) when it differs from the
    /// one-line text (the PMDA serves the one-line text for both
    /// otherwise).
    pub help: Option<&'static str>,
}

impl MetricDef {
    /// The descriptor (`pmLookupDesc`).
    #[doc(alias = "pmLookupDesc")]
    pub fn desc(&self) -> Desc {
        Desc {
            pmid: self.pmid,
            ty: self.ty,
            indom: self.indom.map_or(InDom::NULL, |s| InDom::new(self.pmid.domain(), s)),
            sem: self.sem,
            units: self.units,
        }
    }

    /// The help text of `level` (`pmLookupText`).
    #[doc(alias = "pmLookupText")]
    pub fn text(&self, full: bool) -> &'static str {
        match (full, self.help) {
            (true, Some(h)) => h,
            _ => self.oneline,
        }
    }
}

/// Every metric served, in the order of the PMDA's name space.
pub fn metrics() -> &'static [MetricDef] {
    table::METRICS
}

/// The metric with this PMID.
pub fn metric_by_pmid(pmid: PmId) -> Option<&'static MetricDef> {
    static BY_PMID: LazyLock<Vec<&MetricDef>> = LazyLock::new(|| by_pmid(table::METRICS));
    find_pmid(&BY_PMID, pmid)
}

/// A metric table's rows sorted by PMID, for [`find_pmid`] (the tables
/// are in name-space order; a fetch of every metric looks each one up
/// several times).
pub(crate) fn by_pmid(table: &'static [MetricDef]) -> Vec<&'static MetricDef> {
    let mut sorted: Vec<_> = table.iter().collect();
    sorted.sort_by_key(|m| m.pmid);
    sorted
}

/// The row of `pmid` in rows [`by_pmid`] sorted.
pub(crate) fn find_pmid(sorted: &[&'static MetricDef], pmid: PmId) -> Option<&'static MetricDef> {
    sorted.binary_search_by_key(&pmid, |m| m.pmid).ok().map(|i| sorted[i])
}

/// The metric with this name.
pub fn metric_by_name(name: &str) -> Option<&'static MetricDef> {
    table::METRICS.iter().find(|m| m.name == name)
}

/// Does this crate compute the values of the metric `pmid` yet? The
/// table names every metric of the PMDA; those not computed yet have no
/// values (as a metric whose files the kernel lacks).
pub fn computes(pmid: PmId) -> bool {
    source::area::computes(pmid)
}

/// The one-line help text of one of the Linux PMDA's instance domains
/// (`pmLookupInDomText`, `PM_TEXT_ONELINE`).
#[doc(alias = "pmLookupInDomText")]
pub fn indom_text(indom: InDom) -> Option<&'static str> {
    indom_texts(indom).map(|t| t.0)
}

/// The full help text of one of the Linux PMDA's instance domains
/// (`PM_TEXT_HELP`): the one-line text where the PMDA has no other.
pub fn indom_help(indom: InDom) -> Option<&'static str> {
    indom_texts(indom).map(|t| t.1.unwrap_or(t.0))
}

fn indom_texts(indom: InDom) -> Option<(&'static str, Option<&'static str>)> {
    if indom.domain() != LINUX_DOMAIN {
        return None;
    }
    table::INDOM_TEXTS.iter().find(|t| t.0 == indom.serial()).map(|t| (t.1, t.2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_consistent() {
        let all = metrics();
        assert_eq!(all.len(), 1341);
        for (i, m) in all.iter().enumerate() {
            assert!(all[..i].iter().all(|o| o.pmid != m.pmid && o.name != m.name), "{} repeated", m.name);
            let d = m.desc();
            let domain = if m.name == "proc.nprocs" { PROC_DOMAIN } else { LINUX_DOMAIN };
            assert_eq!(d.pmid.domain(), domain, "{}", m.name);
            if let Some(s) = m.indom {
                assert!(indom_text(InDom::new(LINUX_DOMAIN, s)).is_some(), "{}", m.name);
            }
            assert_eq!(metric_by_pmid(m.pmid), Some(m));
            assert_eq!(metric_by_name(m.name), Some(m));
        }
        let load = metric_by_name("kernel.all.load").unwrap();
        assert_eq!(
            load.desc().to_string(),
            "    Data Type: float  InDom: 60.2 0xf000002\n    Semantics: instant  Units: none\n"
        );
        assert_eq!(load.text(true), "1, 5 and 15 minute load average");
        assert!(INDOMS.iter().all(|i| indom_text(*i).is_some()));
        assert_eq!(indom_text(InDom::new(LINUX_DOMAIN, 4)), Some("set of interrupt lines"));
        assert_eq!(indom_text(InDom::new(LINUX_DOMAIN, 9)), None);
        assert_eq!(indom_text(InDom::new(PROC_DOMAIN, 0)), None);
        let tape = InDom::new(LINUX_DOMAIN, 34);
        assert_eq!(indom_text(tape), Some("scsi tape devices, per scsi tape device"));
        assert!(indom_help(tape).unwrap().starts_with("The scsi tape instance domain includes"));
    }
}
