//! Every PDU a PMAPI client and pmcd exchange, as one enum, with the
//! encoder and decoder that dispatch on its type.

use crate::attr::Attr;
use crate::creds::Cred;
use crate::error::{xlate_v2_to_v1, ErrorPdu};
use crate::fetch::Fetch;
use crate::frame::Header;
use crate::idlist::IdList;
use crate::instance::{InResult, InstanceReq};
use crate::label::{LabelReq, Labels};
use crate::pmns::{NameList, NameReq};
use crate::profile::Profile;
use crate::result::ResultPdu;
use crate::text::{Text, TextReq};
use crate::types::PduType;
use crate::wire::{Reader, Writer, IPC};
use pcp_core::{Desc, PmId, PmResult};

/// One PDU's contents (the header's length and sender are not part of it).
///
/// Each variant holds what travels in the PDU, no more and no less, so
/// decoding a PDU libpcp sent and encoding the result gives back the
/// same bytes. Where libpcp's sending function adjusts its arguments
/// first (translating an error code, clearing a flag, choosing an
/// identifier by type) the variant holds the adjusted form and a
/// constructor does the adjusting: [`Pdu::xtend_error`],
/// [`TextReq::new`], [`LabelReq::new`], [`Labels::new`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pdu {
    /// `PDU_ERROR`: a status code (`__pmSendError`); positive codes from
    /// pmcd announce state changes during a fetch.
    Error(ErrorPdu),
    /// `PDU_RESULT`: a fetch result (pmcd's reply to `PDU_FETCH`), or the
    /// values of a `pmStore` request.
    Result(ResultPdu),
    /// `PDU_HIGHRES_RESULT`: a fetch result with a nanosecond timestamp.
    HighResResult(ResultPdu),
    /// `PDU_PROFILE`: the client's instance profile.
    Profile(Profile),
    /// `PDU_FETCH`.
    Fetch(Fetch),
    /// `PDU_HIGHRES_FETCH`.
    HighResFetch(Fetch),
    /// `PDU_DESC_REQ`: one metric's descriptor, please.
    DescReq(PmId),
    /// `PDU_DESC`.
    Desc(Desc),
    /// `PDU_DESC_IDS`: descriptors for these metrics, please (sent with
    /// status -1).
    DescIds(Vec<PmId>),
    /// `PDU_DESCS`: the descriptors, in request order (`PM_ID_NULL` for a
    /// metric pmcd could not describe).
    Descs(Vec<Desc>),
    /// `PDU_INSTANCE_REQ`.
    InstanceReq(InstanceReq),
    /// `PDU_INSTANCE`.
    Instance(InResult),
    /// `PDU_TEXT_REQ`.
    TextReq(TextReq),
    /// `PDU_TEXT`.
    Text(Text),
    /// `PDU_CREDS`: the client's credentials (its version and features).
    Creds(Vec<Cred>),
    /// `PDU_PMNS_IDS`: PMIDs with a status word (a `pmNameID` request;
    /// pmcd's reply to a `pmLookupName` request).
    PmnsIds(IdList),
    /// `PDU_PMNS_NAMES`: names, optionally each with a status (a
    /// `pmLookupName` request; pmcd's reply to `pmNameID`, children and
    /// traversal requests).
    PmnsNames(NameList),
    /// `PDU_PMNS_CHILD`: the children of a PMNS node, please.
    PmnsChild(NameReq),
    /// `PDU_PMNS_TRAVERSE`: every name below a PMNS node, please.
    PmnsTraverse(NameReq),
    /// `PDU_ATTR` (`PDU_AUTH`): a connection attribute.
    Attr(Attr),
    /// `PDU_LABEL_REQ`.
    LabelReq(LabelReq),
    /// `PDU_LABEL`.
    Label(Labels),
}

/// A PDU body's codec: what follows the header.
pub(crate) trait Body: Sized {
    /// Write the body; an error leaves the PDU to be abandoned.
    fn put(&self, w: &mut Writer) -> PmResult<()>;
    /// Read the body from a reader positioned after the header; the
    /// caller checks nothing is left over.
    fn get(r: &mut Reader) -> PmResult<Self>;
}

impl Pdu {
    /// The extended error pmcd sends first on a connection
    /// (`__pmSendXtendError`): `status` in libpcp's terms, which goes out
    /// as a PCP 1.x code, and the datum word (the server's [`PduInfo`]).
    ///
    /// [`PduInfo`]: crate::handshake::PduInfo
    #[doc(alias = "__pmSendXtendError")]
    pub fn xtend_error(status: i32, datum: u32) -> Pdu {
        Pdu::Error(ErrorPdu { code: xlate_v2_to_v1(status), datum: Some(datum) })
    }

    /// A plain error PDU carrying `code` (`__pmSendError`).
    #[doc(alias = "__pmSendError")]
    pub fn error(code: i32) -> Pdu {
        Pdu::Error(ErrorPdu { code, datum: None })
    }

    /// This PDU's type code.
    pub fn pdu_type(&self) -> PduType {
        match self {
            Pdu::Error(_) => PduType::ERROR,
            Pdu::Result(_) => PduType::RESULT,
            Pdu::HighResResult(_) => PduType::HIGHRES_RESULT,
            Pdu::Profile(_) => PduType::PROFILE,
            Pdu::Fetch(_) => PduType::FETCH,
            Pdu::HighResFetch(_) => PduType::HIGHRES_FETCH,
            Pdu::DescReq(_) => PduType::DESC_REQ,
            Pdu::Desc(_) => PduType::DESC,
            Pdu::DescIds(_) => PduType::DESC_IDS,
            Pdu::Descs(_) => PduType::DESCS,
            Pdu::InstanceReq(_) => PduType::INSTANCE_REQ,
            Pdu::Instance(_) => PduType::INSTANCE,
            Pdu::TextReq(_) => PduType::TEXT_REQ,
            Pdu::Text(_) => PduType::TEXT,
            Pdu::Creds(_) => PduType::CREDS,
            Pdu::PmnsIds(_) => PduType::PMNS_IDS,
            Pdu::PmnsNames(_) => PduType::PMNS_NAMES,
            Pdu::PmnsChild(_) => PduType::PMNS_CHILD,
            Pdu::PmnsTraverse(_) => PduType::PMNS_TRAVERSE,
            Pdu::Attr(_) => PduType::ATTR,
            Pdu::LabelReq(_) => PduType::LABEL_REQ,
            Pdu::Label(_) => PduType::LABEL,
        }
    }

    /// Append this PDU, header first, to `out`, with `from` as its sender
    /// word, exactly as libpcp's `__pmSend*` function for its type writes
    /// it (padding bytes included). Returns the PDU's length.
    ///
    /// Contents libpcp's sender refuses are refused the same way
    /// (`PM_ERR_IPC` for a credential list of 0 or more than 1024
    /// entries, or an attribute of 4096 bytes or more; `-EINVAL` for an
    /// empty descriptor list); so are contents no C structure can hold:
    /// a value set mixing values in place and in blocks, or whose
    /// error status is not negative (`-EINVAL`), a value block or label
    /// text longer than its length field (`PM_ERR_TOOBIG`), a label set
    /// whose `nlabels` does not count its labels (`-EINVAL`). On error
    /// `out` is left as it was.
    ///
    /// ```
    /// use pcp_core::PmId;
    /// use pcp_pdu::Pdu;
    ///
    /// let mut out = Vec::new();
    /// let len = Pdu::DescReq(PmId::new(60, 2, 0)).encode(0, &mut out).unwrap();
    /// assert_eq!(len, 16);
    /// assert_eq!(
    ///     out,
    ///     [
    ///         0, 0, 0, 16, // length
    ///         0, 0, 0x70, 0x04, // PDU_DESC_REQ
    ///         0, 0, 0, 0, // from: FROM_ANON
    ///         0x0f, 0x00, 0x08, 0x00, // PMID 60.2.0, big-endian
    ///     ]
    /// );
    ///
    /// // a descriptor list must not be empty, as libpcp's sender says
    /// assert_eq!(Pdu::Descs(vec![]).encode(0, &mut out).unwrap_err().code(), -22); // EINVAL
    /// assert_eq!(out.len(), 16);
    /// ```
    pub fn encode(&self, from: i32, out: &mut Vec<u8>) -> PmResult<usize> {
        let mut w = Writer::begin(out, self.pdu_type(), from);
        let sts = match self {
            Pdu::Error(e) => e.put(&mut w),
            Pdu::Result(r) => crate::result::put(r, false, &mut w),
            Pdu::HighResResult(r) => crate::result::put(r, true, &mut w),
            Pdu::Profile(p) => p.put(&mut w),
            Pdu::Fetch(f) | Pdu::HighResFetch(f) => f.put(&mut w),
            Pdu::DescReq(id) => {
                w.u32(id.0);
                Ok(())
            }
            Pdu::Desc(d) => {
                crate::desc::put_desc(d, &mut w);
                Ok(())
            }
            Pdu::DescIds(ids) => IdList { status: -1, ids: ids.clone() }.put(&mut w),
            Pdu::Descs(ds) => crate::desc::put_descs(ds, &mut w),
            Pdu::InstanceReq(q) => q.put(&mut w),
            Pdu::Instance(r) => r.put(&mut w),
            Pdu::TextReq(q) => q.put(&mut w),
            Pdu::Text(t) => t.put(&mut w),
            Pdu::Creds(c) => crate::creds::put(c, &mut w),
            Pdu::PmnsIds(l) => l.put(&mut w),
            Pdu::PmnsNames(n) => n.put(&mut w),
            Pdu::PmnsChild(q) | Pdu::PmnsTraverse(q) => q.put(&mut w),
            Pdu::Attr(a) => a.put(&mut w),
            Pdu::LabelReq(q) => q.put(&mut w),
            Pdu::Label(l) => l.put(&mut w),
        };
        match sts {
            Ok(()) => w.finish(),
            Err(e) => {
                w.abandon();
                Err(e)
            }
        }
    }

    /// Encode into a new buffer (see [`Pdu::encode`]).
    pub fn to_bytes(&self, from: i32) -> PmResult<Vec<u8>> {
        let mut out = Vec::new();
        self.encode(from, &mut out)?;
        Ok(out)
    }

    /// Decode one whole PDU, header included (as [`Framer`] hands them
    /// out), by its type.
    ///
    /// Every count and offset is checked against the bytes present before
    /// anything is read or allocated, and the PDU must be exactly as long
    /// as its contents need, padding to 4 bytes included: anything else,
    /// a type no PMAPI client or pmcd exchanges, or a header whose length
    /// word is not the slice's length, is `PM_ERR_IPC`. Where libpcp's
    /// decoders are looser (trailing bytes, a timestamp out of range,
    /// offsets outside the PDU) this decoder refuses; it accepts nothing
    /// libpcp refuses. Each type's checks are described on its struct.
    ///
    /// ```
    /// use pcp_core::{PmError, PmId};
    /// use pcp_pdu::{Pdu, PduType};
    ///
    /// let bytes = [0, 0, 0, 16, 0, 0, 0x70, 0x04, 0, 0, 0, 7, 0x0f, 0x00, 0x08, 0x00];
    /// let (header, pdu) = Pdu::decode(&bytes).unwrap();
    /// assert_eq!((header.len, header.ty, header.from), (16, PduType::DESC_REQ, 7));
    /// assert_eq!(pdu, Pdu::DescReq(PmId::new(60, 2, 0)));
    ///
    /// // cut short, or with a byte too many: refused
    /// let mut short = bytes[..15].to_vec();
    /// short[3] = 15;
    /// assert_eq!(Pdu::decode(&short), Err(PmError::PM_ERR_IPC));
    /// let mut long = bytes.to_vec();
    /// long.push(0);
    /// long[3] = 17;
    /// assert_eq!(Pdu::decode(&long), Err(PmError::PM_ERR_IPC));
    /// ```
    ///
    /// [`Framer`]: crate::frame::Framer
    pub fn decode(pdu: &[u8]) -> PmResult<(Header, Pdu)> {
        let h = Header::parse(pdu, usize::MAX)?;
        if h.len != pdu.len() {
            return Err(IPC);
        }
        let mut r = Reader::body(pdu);
        let body = match h.ty {
            PduType::ERROR => Pdu::Error(ErrorPdu::get(&mut r)?),
            PduType::RESULT => Pdu::Result(crate::result::get(&mut r, false)?),
            PduType::HIGHRES_RESULT => Pdu::HighResResult(crate::result::get(&mut r, true)?),
            PduType::PROFILE => Pdu::Profile(Profile::get(&mut r)?),
            PduType::FETCH => Pdu::Fetch(Fetch::get(&mut r)?),
            PduType::HIGHRES_FETCH => Pdu::HighResFetch(Fetch::get(&mut r)?),
            PduType::DESC_REQ => Pdu::DescReq(PmId(r.u32()?)),
            PduType::DESC => Pdu::Desc(crate::desc::get_desc(&mut r)?),
            PduType::DESC_IDS => {
                let l = IdList::get(&mut r)?;
                if l.status != -1 {
                    return Err(IPC);
                }
                Pdu::DescIds(l.ids)
            }
            PduType::DESCS => Pdu::Descs(crate::desc::get_descs(&mut r)?),
            PduType::INSTANCE_REQ => Pdu::InstanceReq(InstanceReq::get(&mut r)?),
            PduType::INSTANCE => Pdu::Instance(InResult::get(&mut r)?),
            PduType::TEXT_REQ => Pdu::TextReq(TextReq::get(&mut r)?),
            PduType::TEXT => Pdu::Text(Text::get(&mut r)?),
            PduType::CREDS => Pdu::Creds(crate::creds::get(&mut r)?),
            PduType::PMNS_IDS => Pdu::PmnsIds(IdList::get(&mut r)?),
            PduType::PMNS_NAMES => Pdu::PmnsNames(NameList::get(&mut r)?),
            PduType::PMNS_CHILD => Pdu::PmnsChild(NameReq::get(&mut r)?),
            PduType::PMNS_TRAVERSE => Pdu::PmnsTraverse(NameReq::get(&mut r)?),
            PduType::ATTR => Pdu::Attr(Attr::get(&mut r)?),
            PduType::LABEL_REQ => Pdu::LabelReq(LabelReq::get(&mut r)?),
            PduType::LABEL => Pdu::Label(Labels::get(&mut r)?),
            _ => return Err(IPC),
        };
        r.end()?;
        Ok((h, body))
    }
}
