//! `PDU_INSTANCE_REQ` and `PDU_INSTANCE`: instance domain queries.

use crate::pdu::Body;
use crate::wire::{Reader, Writer, IPC};
use pcp_core::{InDom, PmResult};

/// An instance domain request (`instance_req_t`): all instances
/// (`inst` `PM_IN_NULL`, no name; `pmGetInDom`), one instance's name
/// (`pmNameInDom`) or one name's instance (`pmLookupInDom`). An unused
/// timeval (zero) sits after the instance domain; the name is padded to
/// 4 bytes with `~`.
///
/// An empty name travels as no name at all, so it decodes as `None`.
#[doc(alias = "__pmSendInstanceReq")]
#[doc(alias = "__pmDecodeInstanceReq")]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InstanceReq {
    /// The instance domain.
    pub indom: InDom,
    /// The instance, or `PM_IN_NULL`.
    pub inst: i32,
    /// The name looked up, if any.
    pub name: Option<Vec<u8>>,
}

impl Body for InstanceReq {
    fn put(&self, w: &mut Writer) -> PmResult<()> {
        w.u32(self.indom.0);
        w.i64(0);
        w.i32(self.inst);
        let name = self.name.as_deref().unwrap_or_default();
        w.i32(i32::try_from(name.len()).map_err(|_| IPC)?);
        w.padded_bytes(name);
        Ok(())
    }

    fn get(r: &mut Reader) -> PmResult<InstanceReq> {
        let indom = InDom(r.u32()?);
        r.i64()?; // unused timeval
        let inst = r.i32()?;
        let n = usize::try_from(r.i32()?).map_err(|_| IPC)?;
        let name = r.padded_bytes(n)?;
        Ok(InstanceReq { indom, inst, name: (n > 0).then(|| name.to_vec()) })
    }
}

/// One instance of a reply: its identifier and name (either may be a
/// placeholder: `PM_IN_NULL`, empty, when the request asked for the
/// other).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Instance {
    /// The instance identifier.
    pub inst: i32,
    /// The external name's bytes.
    pub name: Vec<u8>,
}

/// Instances of an instance domain (`pmInResult`, `instance_t`): each an
/// identifier, a name length and the name padded to 4 bytes with `~`.
/// Decoding refuses negative counts and lengths, and a PDU not exactly
/// as long as its instances.
#[doc(alias = "pmInResult")]
#[doc(alias = "__pmSendInstance")]
#[doc(alias = "__pmDecodeInstance")]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InResult {
    /// The instance domain.
    pub indom: InDom,
    /// The instances.
    pub instances: Vec<Instance>,
}

impl Body for InResult {
    fn put(&self, w: &mut Writer) -> PmResult<()> {
        w.u32(self.indom.0);
        w.i32(i32::try_from(self.instances.len()).map_err(|_| IPC)?);
        for i in &self.instances {
            w.i32(i.inst);
            w.i32(i32::try_from(i.name.len()).map_err(|_| IPC)?);
            w.padded_bytes(&i.name);
        }
        Ok(())
    }

    fn get(r: &mut Reader) -> PmResult<InResult> {
        let indom = InDom(r.u32()?);
        let n = r.count(8)?;
        let mut instances = Vec::with_capacity(n);
        for _ in 0..n {
            let inst = r.i32()?;
            let len = usize::try_from(r.i32()?).map_err(|_| IPC)?;
            instances.push(Instance { inst, name: r.padded_bytes(len)?.to_vec() });
        }
        Ok(InResult { indom, instances })
    }
}
