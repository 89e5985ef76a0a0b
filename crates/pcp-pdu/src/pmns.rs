//! `PDU_PMNS_NAMES`, `PDU_PMNS_CHILD` and `PDU_PMNS_TRAVERSE`: names.

use crate::pdu::Body;
use crate::wire::{padded, Reader, Writer, EINVAL, IPC};
use pcp_core::PmResult;

/// `PMNS_LEAF_STATUS`: a child that is a metric.
pub const PMNS_LEAF_STATUS: i32 = 0;
/// `PMNS_NONLEAF_STATUS`: a child with children of its own.
pub const PMNS_NONLEAF_STATUS: i32 = 1;

/// A list of names (`namelist_t`), each optionally with a status word
/// (leaf or not, for `pmGetChildrenStatus`). The header counts the
/// names, the statuses (0 or the name count) and the bytes the names
/// take as C strings; each name follows as its length, then its bytes
/// padded to 4 bytes with `~` (after its status, when there are
/// statuses).
///
/// Decoding refuses negative or inconsistent counts, a byte count that
/// is not the names' (plus a NUL each), and a PDU not exactly as long as
/// its names; like libpcp's, it refuses a list whose last name is empty
/// (which libpcp's encoder writes and its decoder cannot read). An empty list carries no statuses, so it decodes with
/// `status: None`.
///
/// ```
/// use pcp_pdu::pmns::{NameList, PMNS_LEAF_STATUS, PMNS_NONLEAF_STATUS};
/// use pcp_pdu::Pdu;
///
/// // pmcd's answer to the children of "kernel.all"
/// let list = NameList {
///     names: vec![b"load".to_vec(), b"cpu".to_vec()],
///     status: Some(vec![PMNS_LEAF_STATUS, PMNS_NONLEAF_STATUS]),
/// };
/// let bytes = Pdu::PmnsNames(list.clone()).to_bytes(0).unwrap();
/// // header, three counts, then (status, length, name padded with ~) each
/// assert_eq!(bytes.len(), 12 + 12 + (4 + 4 + 4) + (4 + 4 + 4));
/// assert_eq!(&bytes[44..48], b"cpu~");
/// assert_eq!(Pdu::decode(&bytes).unwrap().1, Pdu::PmnsNames(list));
/// ```
#[doc(alias = "__pmSendNameList")]
#[doc(alias = "__pmDecodeNameList")]
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct NameList {
    /// The names' bytes.
    pub names: Vec<Vec<u8>>,
    /// A status per name, if the list carries them.
    pub status: Option<Vec<i32>>,
}

impl Body for NameList {
    fn put(&self, w: &mut Writer) -> PmResult<()> {
        if self.status.as_ref().is_some_and(|s| s.len() != self.names.len()) {
            return Err(EINVAL);
        }
        let strbytes: usize = self.names.iter().map(|n| n.len() + 1).sum();
        let n = i32::try_from(self.names.len()).map_err(|_| IPC)?;
        w.i32(i32::try_from(strbytes).map_err(|_| IPC)?);
        w.i32(if self.status.is_some() { n } else { 0 });
        w.i32(n);
        for (i, name) in self.names.iter().enumerate() {
            if let Some(s) = &self.status {
                w.i32(s[i]);
            }
            w.i32(i32::try_from(name.len()).map_err(|_| IPC)?);
            w.padded_bytes(name);
        }
        Ok(())
    }

    fn get(r: &mut Reader) -> PmResult<NameList> {
        let strbytes = r.i32()?;
        let nstatus = r.i32()?;
        let n = r.count(4)?;
        if n == 0 {
            return Ok(NameList::default());
        }
        let with_status = match usize::try_from(nstatus) {
            Ok(0) => false,
            Ok(s) if s == n => true,
            _ => return Err(IPC),
        };
        let mut names = Vec::with_capacity(n);
        let mut status = Vec::with_capacity(if with_status { n } else { 0 });
        let mut total = 0usize;
        for _ in 0..n {
            // libpcp wants room for a whole name_t (or name_status_t),
            // so it refuses an empty name at the very end
            if r.remaining() < if with_status { 12 } else { 8 } {
                return Err(IPC);
            }
            if with_status {
                status.push(r.i32()?);
            }
            let len = usize::try_from(r.i32()?).map_err(|_| IPC)?;
            names.push(r.padded_bytes(len)?.to_vec());
            total += len + 1;
        }
        if usize::try_from(strbytes) != Ok(total) {
            return Err(IPC);
        }
        Ok(NameList { names, status: with_status.then_some(status) })
    }
}

/// A name request (`namereq_t`) for children (`PDU_PMNS_CHILD`, subtype
/// 1 asks for statuses too) or a traversal (`PDU_PMNS_TRAVERSE`, subtype
/// 0): the subtype, then the name's length and bytes padded to 4 bytes
/// with `~`.
#[doc(alias = "__pmSendChildReq")]
#[doc(alias = "__pmSendTraversePMNSReq")]
#[doc(alias = "__pmDecodeChildReq")]
#[doc(alias = "__pmDecodeTraversePMNSReq")]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NameReq {
    /// The subtype word.
    pub subtype: i32,
    /// The PMNS node's name (empty for the root).
    pub name: Vec<u8>,
}

impl Body for NameReq {
    fn put(&self, w: &mut Writer) -> PmResult<()> {
        w.i32(self.subtype);
        w.i32(i32::try_from(self.name.len()).map_err(|_| IPC)?);
        w.padded_bytes(&self.name);
        Ok(())
    }

    fn get(r: &mut Reader) -> PmResult<NameReq> {
        let subtype = r.i32()?;
        let n = usize::try_from(r.i32()?).map_err(|_| IPC)?;
        if padded(n) > r.remaining() {
            return Err(IPC);
        }
        Ok(NameReq { subtype, name: r.padded_bytes(n)?.to_vec() })
    }
}
