//! /proc/net/snmp: `network.{ip,icmp,icmpmsg,tcp,udp,udplite}.*`.

use super::Snap;
use crate::{parse, MetricDef};
use pcp_core::{AtomValue, PmError};

/// `network.{ip,icmp,icmpmsg,tcp,udp,udplite}.*` from /proc/net/snmp.
pub(super) const SNMP_CLUSTER: u32 = 14;
/// How many ICMP message types `network.icmpmsg.*` counts.
pub(super) const ICMPMSG_TYPES: i32 = 256;

/// /proc/net/snmp's reader, knowing the counters of the metric table.
pub(super) fn snmp_reader() -> parse::SnmpReader {
    parse::SnmpReader::new(
        crate::metrics()
            .iter()
            .filter(|m| m.pmid.cluster() == SNMP_CLUSTER && !m.name.starts_with("network.icmpmsg."))
            .filter_map(|m| Some((m.name.strip_prefix("network.")?.to_string(), m.pmid.item() as usize))),
    )
}

/// A `network.*` value of /proc/net/snmp.
pub(super) fn snmp_value(snap: &Snap, def: &MetricDef, item: u32, inst: i32) -> Result<Option<AtomValue>, PmError> {
    let Some(snmp) = &snap.snmp else { return Ok(None) };
    let x = match def.name.strip_prefix("network.icmpmsg.") {
        Some(dir) => {
            let types = if dir == "intype" { &snmp.icmpmsg_in } else { &snmp.icmpmsg_out };
            *types.get(usize::try_from(inst).map_err(|_| PmError::PM_ERR_INST)?).ok_or(PmError::PM_ERR_INST)?
        }
        None => snmp.values.get(item as usize).copied().unwrap_or(u64::MAX),
    };
    // (tcp.maxconn is -1 on Linux: the PMDA shows it whatever)
    Ok((x != u64::MAX || item == 53).then_some(AtomValue::U64(x)))
}
