//! Derived metrics every context has: libpcp's two anonymous metrics that
//! carry the flags and missed-record counts of unpacked event records.

use pcp_core::{Desc, InDom, MetricType, PmId, Semantics, Units};

/// An anonymous derived metric (`__pmRegisterAnon`).
#[derive(Clone, Copy, Debug)]
pub struct AnonMetric {
    /// Its name.
    pub name: &'static str,
    /// Its descriptor.
    pub desc: Desc,
    /// One-line help.
    pub oneline: &'static str,
    /// Full help.
    pub help: &'static str,
}

const fn anon(item: u32, name: &'static str, oneline: &'static str, help: &'static str) -> AnonMetric {
    AnonMetric {
        name,
        desc: Desc {
            pmid: PmId((511 << 22) | item),
            ty: MetricType::U32,
            indom: InDom::NULL,
            sem: Semantics::DISCRETE,
            units: Units::NONE,
        },
        oneline,
        help,
    }
}

/// `event.flags` (511.0.1) and `event.missed` (511.0.2).
pub const ANON: [AnonMetric; 2] = [
    anon(
        1,
        "event.flags",
        "Flags for event records",
        "An anonymous derived metric that is used to encode the event flags\n\
         associated with event records.   See pmUnpackEventRecords(3).\n",
    ),
    anon(
        2,
        "event.missed",
        "Count of missed event records",
        "An anonymous derived metric that is used to encode the number of\n\
         event records missed because either the PMDA could not keep up\n\
         or the PMAPI client did not collect the event records fast\n\
         enough.  See pmUnpackEventRecords(3).\n",
    ),
];

/// The anonymous metric with this PMID.
pub fn anon_by_pmid(pmid: PmId) -> Option<&'static AnonMetric> {
    ANON.iter().find(|a| a.desc.pmid == pmid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anonymous_pmids_are_in_the_derived_domain() {
        assert_eq!(ANON[0].desc.pmid, PmId::new(511, 0, 1));
        assert_eq!(anon_by_pmid(PmId::new(511, 0, 2)).map(|a| a.name), Some("event.missed"));
    }
}
