//! `PDU_DESC` and `PDU_DESCS`: metric descriptors (`PDU_DESC_REQ` is a
//! bare PMID).

use crate::wire::{Reader, Writer, EINVAL, IPC};
use pcp_core::{Desc, InDom, MetricType, PmId, PmResult, Semantics, Units};

/// A descriptor in `pmDesc` field order: PMID, type, instance domain,
/// semantics, units.
pub(crate) fn put_desc(d: &Desc, w: &mut Writer) {
    w.u32(d.pmid.0);
    w.i32(d.ty.0);
    w.u32(d.indom.0);
    w.i32(d.sem.0);
    w.u32(d.units.to_u32());
}

pub(crate) fn get_desc(r: &mut Reader) -> PmResult<Desc> {
    Ok(Desc {
        pmid: PmId(r.u32()?),
        ty: MetricType(r.i32()?),
        indom: InDom(r.u32()?),
        sem: Semantics(r.i32()?),
        units: Units::from_u32(r.u32()?),
    })
}

/// `__pmSendDescs`: a count then the descriptors; an empty list is
/// `-EINVAL`.
pub(crate) fn put_descs(ds: &[Desc], w: &mut Writer) -> PmResult<()> {
    if ds.is_empty() {
        return Err(EINVAL);
    }
    w.i32(i32::try_from(ds.len()).map_err(|_| IPC)?);
    for d in ds {
        put_desc(d, w);
    }
    Ok(())
}

/// `__pmDecodeDescs2`: at least one descriptor, filling the PDU.
pub(crate) fn get_descs(r: &mut Reader) -> PmResult<Vec<Desc>> {
    let n = r.count(20)?;
    if n == 0 {
        return Err(IPC);
    }
    (0..n).map(|_| get_desc(r)).collect()
}
