//! `PDU_CREDS`: the credentials a client sends after pmcd's greeting.
//! Today the only kind is the version credential: the client's protocol
//! version and the features it asks for.

use crate::wire::{Reader, Writer, IPC};
use pcp_core::PmResult;

/// `LIMIT_CREDS`: the most credentials one PDU may carry.
pub const LIMIT_CREDS: usize = 1024;

/// `CVERSION`: the version credential's type.
pub const CVERSION: u8 = 1;

/// One credential (`__pmCred`): a type byte and three value bytes, sent
/// as one big-endian word, type first.
#[doc(alias = "__pmCred")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cred {
    /// `c_type`.
    pub kind: u8,
    /// `c_vala`, `c_valb`, `c_valc`.
    pub vals: [u8; 3],
}

impl Cred {
    /// The version credential (`__pmVersionCred`): protocol `version` and
    /// the `PDU_FLAG_*` features the client wants.
    #[doc(alias = "__pmVersionCred")]
    pub fn version(version: u8, flags: u16) -> Cred {
        let [hi, lo] = flags.to_be_bytes();
        Cred { kind: CVERSION, vals: [version, hi, lo] }
    }

    /// The protocol version of a version credential (`c_version`).
    pub fn protocol_version(&self) -> u8 {
        self.vals[0]
    }

    /// The feature flags of a version credential (`c_flags`).
    pub fn flags(&self) -> u16 {
        u16::from_be_bytes([self.vals[1], self.vals[2]])
    }

    /// The credential as its wire word.
    pub fn to_u32(self) -> u32 {
        u32::from_be_bytes([self.kind, self.vals[0], self.vals[1], self.vals[2]])
    }

    /// A credential from its wire word.
    pub fn from_u32(w: u32) -> Cred {
        let [kind, a, b, c] = w.to_be_bytes();
        Cred { kind, vals: [a, b, c] }
    }
}

/// `__pmSendCreds`: a count then the words; 1 to 1024 credentials, else
/// `PM_ERR_IPC`.
pub(crate) fn put(creds: &[Cred], w: &mut Writer) -> PmResult<()> {
    if creds.is_empty() || creds.len() > LIMIT_CREDS {
        return Err(IPC);
    }
    w.i32(creds.len() as i32);
    for c in creds {
        w.u32(c.to_u32());
    }
    Ok(())
}

/// `__pmDecodeCreds`: 1 to 1024 credentials filling the PDU.
pub(crate) fn get(r: &mut Reader) -> PmResult<Vec<Cred>> {
    let n = r.count(4)?;
    if n == 0 || n > LIMIT_CREDS {
        return Err(IPC);
    }
    (0..n).map(|_| r.u32().map(Cred::from_u32)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_credential_is_type_then_version_then_flags() {
        let c = Cred::version(2, 0x0e44);
        assert_eq!(c.to_u32(), 0x0102_0e44);
        assert_eq!((c.protocol_version(), c.flags()), (2, 0x0e44));
        assert_eq!(Cred::from_u32(0x0102_0e44), c);
    }
}
