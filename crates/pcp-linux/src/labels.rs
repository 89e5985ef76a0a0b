//! The label sets the Linux PMDA attaches to its instance domains, metrics
//! and instances (its `label` and label callbacks), for the instance
//! domains and metrics this crate serves. Context and domain labels are
//! libpcp's and the PMDA library's, not the PMDA's (see the `pcp` crate's
//! local context).

use crate::{CPU_INDOM, DISK_INDOM, DM_INDOM, LINUX_DOMAIN, MD_INDOM, NET_DEV_INDOM, PARTITIONS_INDOM};
use pcp_core::{InDom, PmId};

/// The labels of an instance domain (`PM_LABEL_INDOM`), as one JSON
/// object; `None` where the PMDA gives none.
#[doc(alias = "pmGetInDomLabels")]
pub fn indom(indom: InDom) -> Option<&'static str> {
    Some(match indom {
        CPU_INDOM => r#"{"device_type":"cpu","indom_name":"per cpu"}"#,
        MD_INDOM => r#"{"device_type":"block","indom_name":"per md device"}"#,
        DM_INDOM => r#"{"device_type":"block","indom_name":"per dm device"}"#,
        DISK_INDOM => r#"{"device_type":"block","indom_name":"per disk"}"#,
        PARTITIONS_INDOM => r#"{"device_type":"block","indom_name":"per partition"}"#,
        NET_DEV_INDOM => r#"{"device_type":"interface","indom_name":"per interface"}"#,
        _ if indom.domain() != LINUX_DOMAIN => return None,
        // the PMDA's other instance domains, by serial
        _ => match indom.serial() {
            11 => r#"{"device_type":"block","indom_name":"per disk"}"#,
            19 => r#"{"device_type":"numa_node","indom_name":"per numa_node"}"#,
            17 => r#"{"device_type":"interface","indom_name":"per interface"}"#,
            6 => r#"{"device_type":["block","memory"],"indom_name":"per swap device"}"#,
            12 => r#"{"device_type":"memory","indom_name":"per slab"}"#,
            32 => r#"{"device_type":["memory","numa_node"],"indom_name":"per zone per numa_node"}"#,
            31 => r#"{"device_type":["memory","numa_node"],"indom_name":"per buddy per numa_node"}"#,
            4 => r#"{"device_type":"irq","indom_name":"per irq"}"#,
            40 => r#"{"device_type":["irq","cpu"],"indom_name":"per cpu, per irq"}"#,
            36 => r#"{"indom_name":"per softirq"}"#,
            41 => r#"{"device_type":"cpu","indom_name":"per cpu, per softirq"}"#,
            _ => return None,
        },
    })
}

/// The labels of a metric (`PM_LABEL_ITEM`), as one JSON object; `None`
/// where the PMDA gives none. The PMDA labels the aggregate and per-node
/// CPU times of its `/proc/stat` cluster (0).
#[doc(alias = "pmGetItemLabels")]
pub fn item(pmid: PmId) -> Option<&'static str> {
    if pmid.domain() != LINUX_DOMAIN || pmid.cluster() != 0 {
        return None;
    }
    let per_node = r#"{"device_type":["numa_node","cpu"]}"#;
    let cpu = r#"{"device_type":"cpu"}"#;
    match pmid.item() {
        62..=71 | 77 | 85 | 86 => Some(per_node),
        20..=23 | 53..=55 | 34 | 35 | 60 | 78 | 81 | 82 => Some(cpu),
        _ => None,
    }
}

/// The labels of one instance (`PM_LABEL_INSTANCES`, one set per
/// instance): `name` is the instance's name where the PMDA's cache holds
/// it as present. `None` where the PMDA gives none.
#[doc(alias = "pmGetInstancesLabels")]
pub fn instance(indom: InDom, inst: i32, name: Option<&str>) -> Option<String> {
    match indom {
        CPU_INDOM => Some(format!(r#"{{"cpu":{}}}"#, inst as u32)),
        DISK_INDOM | DM_INDOM | MD_INDOM | PARTITIONS_INDOM => name.map(|n| format!(r#"{{"device_name":"{n}"}}"#)),
        NET_DEV_INDOM => name.map(|n| format!(r#"{{"interface":"{n}"}}"#)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{metric_by_name, LOADAVG_INDOM};

    #[test]
    fn labels_follow_the_pmda() {
        let pmid = |n: &str| metric_by_name(n).unwrap().pmid;
        assert_eq!(item(pmid("kernel.all.cpu.user")), Some(r#"{"device_type":"cpu"}"#));
        assert_eq!(item(pmid("kernel.all.cpu.wait.total")), Some(r#"{"device_type":"cpu"}"#));
        assert_eq!(item(pmid("kernel.percpu.cpu.user")), None);
        assert_eq!(item(pmid("kernel.all.load")), None);
        assert_eq!(indom(LOADAVG_INDOM), None);
        assert_eq!(indom(CPU_INDOM), Some(r#"{"device_type":"cpu","indom_name":"per cpu"}"#));
        assert_eq!(instance(CPU_INDOM, 1, Some("cpu1")).as_deref(), Some(r#"{"cpu":1}"#));
        assert_eq!(instance(DISK_INDOM, 0, Some("vda")).as_deref(), Some(r#"{"device_name":"vda"}"#));
        assert_eq!(instance(DISK_INDOM, 0, None), None);
        assert_eq!(instance(LOADAVG_INDOM, 1, Some("1 minute")), None);
    }
}
