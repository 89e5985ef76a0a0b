//! `PDU_FETCH` and `PDU_HIGHRES_FETCH`: which metrics to fetch.

use crate::pdu::Body;
use crate::wire::{Reader, Writer, IPC};
use pcp_core::{PmId, PmResult};

/// A fetch request (`fetch_t`): the client's context slot, an unused
/// timeval (zero) and the PMIDs. Decoding wants at least one PMID and a
/// PDU exactly as long as the list.
#[doc(alias = "__pmSendFetch")]
#[doc(alias = "__pmSendHighResFetch")]
#[doc(alias = "__pmDecodeFetch")]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fetch {
    /// The client's context slot (`ctxid`).
    pub ctxid: i32,
    /// The metrics.
    pub pmids: Vec<PmId>,
}

impl Body for Fetch {
    fn put(&self, w: &mut Writer) -> PmResult<()> {
        w.i32(self.ctxid);
        w.i64(0);
        put_ids(&self.pmids, w)
    }

    fn get(r: &mut Reader) -> PmResult<Fetch> {
        let ctxid = r.i32()?;
        r.i64()?; // unused timeval
        let pmids = get_ids(r)?;
        if pmids.is_empty() {
            return Err(IPC);
        }
        Ok(Fetch { ctxid, pmids })
    }
}

/// A count then the PMIDs.
pub(crate) fn put_ids(ids: &[PmId], w: &mut Writer) -> PmResult<()> {
    w.i32(i32::try_from(ids.len()).map_err(|_| IPC)?);
    for id in ids {
        w.u32(id.0);
    }
    Ok(())
}

/// A count then the PMIDs.
pub(crate) fn get_ids(r: &mut Reader) -> PmResult<Vec<PmId>> {
    let n = r.count(4)?;
    (0..n).map(|_| r.u32().map(PmId)).collect()
}
