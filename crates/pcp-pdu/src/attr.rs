//! `PDU_ATTR` (also `PDU_AUTH`): a connection attribute, such as the
//! container name a client asks for, or a SASL exchange's payload.

use crate::pdu::Body;
use crate::wire::{Reader, Writer, IPC};
use pcp_core::PmResult;

/// `LIMIT_ATTR_PDU`: an attribute's value must be shorter than this.
pub const LIMIT_ATTR_PDU: usize = 4096;

/// `PCP_ATTR_CONTAINER`: the attribute naming a container.
pub const PCP_ATTR_CONTAINER: i32 = 15;

/// An attribute (`attr_t`): a `PCP_ATTR_*` code (0 for a SASL payload)
/// and a value of 0 to 4095 bytes filling the rest of the PDU, unpadded.
#[doc(alias = "__pmSendAttr")]
#[doc(alias = "__pmDecodeAttr")]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Attr {
    /// The attribute code.
    pub attr: i32,
    /// The value's bytes.
    pub value: Vec<u8>,
}

impl Body for Attr {
    fn put(&self, w: &mut Writer) -> PmResult<()> {
        if self.value.len() >= LIMIT_ATTR_PDU {
            return Err(IPC);
        }
        w.i32(self.attr);
        w.bytes(&self.value);
        Ok(())
    }

    fn get(r: &mut Reader) -> PmResult<Attr> {
        let attr = r.i32()?;
        if r.remaining() >= LIMIT_ATTR_PDU {
            return Err(IPC);
        }
        Ok(Attr { attr, value: r.bytes(r.remaining())?.to_vec() })
    }
}
