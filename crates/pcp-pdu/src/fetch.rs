//! `PDU_FETCH` and `PDU_HIGHRES_FETCH`: which metrics to fetch.

use crate::pdu::Body;
use crate::types::PduType;
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

impl Fetch {
    /// Encode a fetch of `pmids` for context slot `ctxid` straight from a
    /// slice (`PDU_HIGHRES_FETCH` if `highres`, else `PDU_FETCH`), the
    /// same bytes [`Pdu::encode`] gives for a [`Fetch`] holding them,
    /// without building one: a client's fetch loop allocates nothing
    /// here. Returns the PDU's length.
    ///
    /// [`Pdu::encode`]: crate::Pdu::encode
    pub fn encode_ids(ctxid: i32, pmids: &[PmId], highres: bool, from: i32, out: &mut Vec<u8>) -> PmResult<usize> {
        let ty = if highres { PduType::HIGHRES_FETCH } else { PduType::FETCH };
        let mut w = Writer::begin(out, ty, from);
        w.i32(ctxid);
        w.i64(0);
        match put_ids(pmids, &mut w) {
            Ok(()) => w.finish(),
            Err(e) => {
                w.abandon();
                Err(e)
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Pdu;

    #[test]
    fn encode_ids_gives_the_bytes_of_a_fetch_pdu() {
        let pmids = vec![PmId(0x0740_0001), PmId(0x0740_0002), PmId(7)];
        for highres in [false, true] {
            let f = Fetch { ctxid: 3, pmids: pmids.clone() };
            let pdu = if highres { Pdu::HighResFetch(f) } else { Pdu::Fetch(f) };
            let want = pdu.to_bytes(42).unwrap();
            let mut got = vec![9u8];
            assert_eq!(Fetch::encode_ids(3, &pmids, highres, 42, &mut got), Ok(want.len()));
            assert_eq!(got[1..], want[..]);
        }
    }
}
