//! `PDU_PMNS_IDS` and `PDU_DESC_IDS`: a status word and a list of PMIDs.

use crate::fetch::{get_ids, put_ids};
use crate::pdu::Body;
use crate::wire::{Reader, Writer, IPC};
use pcp_core::{PmId, PmResult};

/// A PMID list (`idlist_t`). The status word is -1 in a `PDU_DESC_IDS`
/// request, 0 in a `pmNameID` request, and pmcd's count of names it
/// found in its reply to `pmLookupName`. Decoding wants at least one PMID
/// and a PDU exactly as long as the list.
#[doc(alias = "__pmSendIDList")]
#[doc(alias = "__pmDecodeIDList")]
#[doc(alias = "__pmDecodeIDList2")]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IdList {
    /// The status word (`sts`).
    pub status: i32,
    /// The PMIDs.
    pub ids: Vec<PmId>,
}

impl Body for IdList {
    fn put(&self, w: &mut Writer) -> PmResult<()> {
        w.i32(self.status);
        put_ids(&self.ids, w)
    }

    fn get(r: &mut Reader) -> PmResult<IdList> {
        let status = r.i32()?;
        let ids = get_ids(r)?;
        if ids.is_empty() {
            return Err(IPC);
        }
        Ok(IdList { status, ids })
    }
}
