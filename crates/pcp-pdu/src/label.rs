//! `PDU_LABEL_REQ` and `PDU_LABEL`: label sets.

use crate::pdu::Body;
use crate::wire::{Reader, Writer, EINVAL, IPC};
use pcp_core::labels::{flags, Label, LabelSet, PM_MAXLABELJSONLEN, PM_MAXLABELS};
use pcp_core::{PmError, PmResult};

/// A label request (`label_req_t`): an identifier and the `PM_LABEL_*`
/// level it is for.
#[doc(alias = "__pmSendLabelReq")]
#[doc(alias = "__pmDecodeLabelReq")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LabelReq {
    /// The domain number, PMID or instance domain (`PM_ID_NULL` for
    /// context labels).
    pub ident: u32,
    /// `PM_LABEL_*` bits.
    pub kind: i32,
}

/// The identifier libpcp sends with labels of `kind`: `ident` when the
/// kind names a domain, instance domain, cluster or item level, else none
/// (`PM_ID_NULL` goes out).
fn wire_ident(ident: u32, kind: i32) -> Option<u32> {
    let levels = (flags::DOMAIN | flags::INDOM | flags::INSTANCES | flags::CLUSTER | flags::ITEM) as i32;
    (kind & levels != 0).then_some(ident)
}

impl LabelReq {
    /// The request libpcp sends (`__pmSendLabelReq`): `PM_ID_NULL` as the
    /// identifier of context labels; a kind naming no level is `-EINVAL`.
    pub fn new(ident: u32, kind: i32) -> PmResult<LabelReq> {
        if kind & flags::CONTEXT as i32 != 0 {
            return Ok(LabelReq { ident: u32::MAX, kind });
        }
        match wire_ident(ident, kind) {
            Some(ident) => Ok(LabelReq { ident, kind }),
            None => Err(EINVAL),
        }
    }
}

impl LabelReq {
    /// The identifier as pmcd's `__pmDecodeLabelReq` reads it:
    /// `PM_ID_NULL` when the kind names no domain, instance domain,
    /// cluster or item level.
    pub fn effective_ident(&self) -> u32 {
        wire_ident(self.ident, self.kind).unwrap_or(u32::MAX)
    }
}

impl Body for LabelReq {
    fn put(&self, w: &mut Writer) -> PmResult<()> {
        w.u32(self.ident);
        w.i32(self.kind);
        Ok(())
    }

    fn get(r: &mut Reader) -> PmResult<LabelReq> {
        Ok(LabelReq { ident: r.u32()?, kind: r.i32()? })
    }
}

/// Label sets (`labels_t`): the identifier and level asked for, then per
/// set its instance, label count (or error code), the offset and length
/// of its JSONB text and its labels (8 bytes each: name offset, name
/// length, flags, value offset, value length), then all the texts, back
/// to back and unpadded.
///
/// Decoding refuses negative counts, offsets and lengths, 255 labels or
/// more in a set, a text of 65535 bytes or more, texts outside the PDU
/// or among the sets, a label outside its set's text, and a PDU not
/// exactly as long as its sets and texts. A set's text is kept even when it has no
/// labels (libpcp's decoder drops it then).
#[doc(alias = "__pmSendLabel")]
#[doc(alias = "__pmDecodeLabel")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Labels {
    /// The domain number, PMID or instance domain (`PM_ID_NULL` for
    /// context labels).
    pub ident: u32,
    /// `PM_LABEL_*` bits.
    pub kind: i32,
    /// The label sets (their compound names do not travel).
    pub sets: Vec<LabelSet>,
}

impl Labels {
    /// The reply libpcp sends (`__pmSendLabel`): `PM_ID_NULL` as the
    /// identifier of context labels and of kinds naming no level.
    pub fn new(ident: u32, kind: i32, sets: Vec<LabelSet>) -> Labels {
        Labels { ident: wire_ident(ident, kind).unwrap_or(u32::MAX), kind, sets }
    }
}

const HEAD: usize = 28;
const SET_HEAD: usize = 16;
const LABEL_SIZE: usize = 8;

impl Body for Labels {
    fn put(&self, w: &mut Writer) -> PmResult<()> {
        let nsets = i32::try_from(self.sets.len()).map_err(|_| IPC)?;
        let mut json_at = HEAD + SET_HEAD * self.sets.len();
        for s in &self.sets {
            if s.json.len() > PM_MAXLABELJSONLEN {
                return Err(PmError::PM_ERR_TOOBIG);
            }
            if s.nlabels > 0 {
                if s.labels.len() != s.nlabels as usize {
                    return Err(EINVAL);
                }
                json_at += LABEL_SIZE * s.labels.len();
            }
        }
        w.u32(self.ident);
        w.i32(self.kind);
        w.i32(0);
        w.i32(nsets);
        for s in &self.sets {
            w.i32(s.inst);
            w.i32(s.nlabels);
            w.i32(i32::try_from(json_at).map_err(|_| IPC)?);
            w.i32(s.json.len() as i32);
            if s.nlabels > 0 {
                for l in &s.labels {
                    w.u16(l.name);
                    w.u8(l.namelen);
                    w.u8(l.flags);
                    w.u16(l.value);
                    w.u16(l.valuelen);
                }
            }
            json_at += s.json.len();
        }
        for s in &self.sets {
            w.bytes(&s.json);
        }
        Ok(())
    }

    fn get(r: &mut Reader) -> PmResult<Labels> {
        let ident = r.u32()?;
        let kind = r.i32()?;
        r.i32()?; // padding
        let n = r.count(SET_HEAD)?;
        let pdulen = r.pdu_len();
        let mut sets = Vec::with_capacity(n);
        let mut json_total = 0usize;
        let mut json_from = pdulen;
        for _ in 0..n {
            let inst = r.i32()?;
            let nlabels = r.i32()?;
            let json_at = usize::try_from(r.i32()?).map_err(|_| IPC)?;
            let json_len = usize::try_from(r.i32()?).map_err(|_| IPC)?;
            if nlabels >= PM_MAXLABELS as i32 || json_len >= PM_MAXLABELJSONLEN {
                return Err(IPC);
            }
            let json = r.slice_at(json_at, json_len)?.to_vec();
            json_total += json_len;
            json_from = json_from.min(json_at);
            let count = usize::try_from(nlabels).unwrap_or(0);
            if count * LABEL_SIZE > r.remaining() {
                return Err(IPC);
            }
            let mut labels = Vec::with_capacity(count);
            for _ in 0..count {
                let l = Label { name: r.u16()?, namelen: r.u8()?, flags: r.u8()?, value: r.u16()?, valuelen: r.u16()? };
                let within = |at: u16, len: usize| usize::from(at) + len <= json_len;
                if !within(l.name, l.namelen.into()) || !within(l.value, l.valuelen.into()) {
                    return Err(IPC);
                }
                labels.push(l);
            }
            sets.push(LabelSet { inst, nlabels, json, labels, names: None });
        }
        // the texts follow the sets and fill the rest of the PDU
        if json_from < r.pos() || r.pos() + json_total != pdulen {
            return Err(IPC);
        }
        r.seek(pdulen)?;
        Ok(Labels { ident, kind, sets })
    }
}
