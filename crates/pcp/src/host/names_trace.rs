//! libpcp's `-Dpmns` trace of the name requests a host context makes:
//! the lists each sends and decodes (`__pmSendNameList`,
//! `__pmDecodeNameList`, `__pmSendIDList`, `__pmDecodeIDList`) and the
//! requests by name (`SendNameReq`).

use pcp_core::debug::Trace;
use pcp_core::PmId;
use pcp_pdu::PduType;

/// `label`, then `__pmDumpNameList` of `names` (and `__pmDumpStatusList`
/// of `status`).
pub(super) fn names<N: AsRef<[u8]>>(t: &Trace, label: &str, names: &[N], status: Option<&[i32]>) {
    let mut out = format!("{label}\nnamelist dump: numnames = {}\n", names.len()).into_bytes();
    for (i, n) in names.iter().enumerate() {
        out.extend_from_slice(format!("  name[{i}]: \"").as_bytes());
        out.extend_from_slice(super::c_str(n.as_ref()));
        out.extend_from_slice(b"\"\n");
    }
    if let Some(status) = status {
        out.extend_from_slice(format!("statuslist dump: numstatus = {}\n", status.len()).as_bytes());
        for (i, s) in status.iter().enumerate() {
            out.extend_from_slice(format!("  status[{i}]: {s}\n").as_bytes());
        }
    }
    t.write_bytes(&out);
}

/// `label`, then `__pmDumpIDList` of `ids`.
pub(super) fn ids(t: &Trace, label: &str, ids: &[PmId]) {
    let mut out = format!("{label}\nIDlist dump: numids = {}\n", ids.len());
    for (i, id) in ids.iter().enumerate() {
        let raw = u32::from_be_bytes(id.to_be_bytes());
        out.push_str(&format!("  PMID[{i}]: 0x{raw:08x} {id}\n"));
    }
    t.write_bytes(out.as_bytes());
}

/// `SendNameReq`'s line: a request naming `name`.
pub(super) fn name_req(t: &Trace, from: i32, name: &str, pdu: PduType, subtype: i32) {
    t.write(format_args!("SendNameReq: from={from} name=\"{name}\" pdu={pdu} subtype={subtype}\n"));
}
