//! `PDU_PROFILE`: the instance profile a client sends before its first
//! fetch (and again after changing it), which pmcd applies to later
//! fetches from that context.

use crate::pdu::Body;
use crate::wire::{Reader, Writer, IPC};
use pcp_core::{InDom, PmResult};

/// `PM_PROFILE_INCLUDE`: include every instance but those listed.
pub const PM_PROFILE_INCLUDE: i32 = 0;
/// `PM_PROFILE_EXCLUDE`: exclude every instance but those listed.
pub const PM_PROFILE_EXCLUDE: i32 = 1;

/// One instance domain's part of a profile (`pmInDomProfile`).
#[doc(alias = "pmInDomProfile")]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InDomProfile {
    /// The instance domain.
    pub indom: InDom,
    /// [`PM_PROFILE_INCLUDE`] or [`PM_PROFILE_EXCLUDE`].
    pub state: i32,
    /// The instances that are the exception to `state`.
    pub instances: Vec<i32>,
}

/// An instance profile as sent (`pmProfile`, `profile_t`): the context
/// slot, the global state and each instance domain's profile. On the
/// wire the per-domain headers (16 bytes each) come first, then all
/// their instances.
///
/// Decoding refuses a negative context slot or count, counts the PDU
/// cannot hold, and a length other than what the contents take.
#[doc(alias = "pmProfile")]
#[doc(alias = "__pmSendProfile")]
#[doc(alias = "__pmDecodeProfile")]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Profile {
    /// The client's context slot (`ctxid`).
    pub ctxid: i32,
    /// The state for instance domains not listed.
    pub state: i32,
    /// The instance domains' profiles, in the client's order.
    pub indoms: Vec<InDomProfile>,
}

impl Body for Profile {
    fn put(&self, w: &mut Writer) -> PmResult<()> {
        w.i32(self.ctxid);
        w.i32(self.state);
        w.i32(i32::try_from(self.indoms.len()).map_err(|_| IPC)?);
        w.i32(0);
        for p in &self.indoms {
            w.u32(p.indom.0);
            w.i32(p.state);
            w.i32(i32::try_from(p.instances.len()).map_err(|_| IPC)?);
            w.i32(0);
        }
        for p in &self.indoms {
            for &i in &p.instances {
                w.i32(i);
            }
        }
        Ok(())
    }

    fn get(r: &mut Reader) -> PmResult<Profile> {
        let ctxid = r.i32()?;
        if ctxid < 0 {
            return Err(IPC);
        }
        let state = r.i32()?;
        let n = r.i32()?;
        r.u32()?; // pad
        let n = usize::try_from(n).ok().filter(|&n| n.checked_mul(16).is_some_and(|b| b <= r.remaining()));
        let n = n.ok_or(IPC)?;
        let mut heads = Vec::with_capacity(n);
        for _ in 0..n {
            let indom = InDom(r.u32()?);
            let state = r.i32()?;
            let ninst = usize::try_from(r.i32()?).map_err(|_| IPC)?;
            r.u32()?; // pad
            heads.push((indom, state, ninst));
        }
        let mut indoms = Vec::with_capacity(n);
        for (indom, state, ninst) in heads {
            if ninst.checked_mul(4).is_none_or(|b| b > r.remaining()) {
                return Err(IPC);
            }
            let instances = (0..ninst).map(|_| r.i32()).collect::<PmResult<_>>()?;
            indoms.push(InDomProfile { indom, state, instances });
        }
        Ok(Profile { ctxid, state, indoms })
    }
}
