//! Setting up a connection: pmcd greets every new client with an
//! extended error PDU carrying a status (0 to go ahead) and its
//! [`PduInfo`] (protocol version and the features it offers); the client
//! checks the features against what it wants and answers with a version
//! credential asking for some of them; then, depending on those, come
//! further exchanges (here: the container attribute). pmcd sends nothing
//! back for the credentials; the client's first request follows.
//!
//! Both sides are here as plain functions over PDUs, so a fake pmcd in
//! tests speaks exactly what a client expects.

use crate::attr::{Attr, PCP_ATTR_CONTAINER};
use crate::creds::{Cred, CVERSION};
use crate::pdu::Pdu;
use crate::types::PduType;
use crate::wire::IPC;
use crate::FROM_ANON;
use pcp_core::{PmError, PmResult};

/// `PDU_VERSION`: the protocol version spoken today (2).
pub const PDU_VERSION: u8 = 2;

/// `PDU_FLAG_*`: features pmcd offers in its greeting and a client asks
/// for in its credentials.
pub mod features {
    /// `PDU_FLAG_SECURE`: TLS.
    pub const SECURE: u16 = 1 << 0;
    /// `PDU_FLAG_COMPRESS`: compression (no longer supported).
    pub const COMPRESS: u16 = 1 << 1;
    /// `PDU_FLAG_AUTH`: SASL authentication.
    pub const AUTH: u16 = 1 << 2;
    /// `PDU_FLAG_CREDS_REQD`: pmcd requires user credentials.
    pub const CREDS_REQD: u16 = 1 << 3;
    /// `PDU_FLAG_SECURE_ACK`: pmcd acknowledges a TLS request.
    pub const SECURE_ACK: u16 = 1 << 4;
    /// `PDU_FLAG_NO_NSS_INIT`.
    pub const NO_NSS_INIT: u16 = 1 << 5;
    /// `PDU_FLAG_CONTAINER`: containers can be named.
    pub const CONTAINER: u16 = 1 << 6;
    /// `PDU_FLAG_CERT_REQD`: pmcd requires a client certificate from
    /// remote clients.
    pub const CERT_REQD: u16 = 1 << 7;
    /// `PDU_FLAG_BAD_LABEL`.
    pub const BAD_LABEL: u16 = 1 << 8;
    /// `PDU_FLAG_LABELS`: label PDUs.
    pub const LABELS: u16 = 1 << 9;
    /// `PDU_FLAG_HIGHRES`: nanosecond fetches.
    pub const HIGHRES: u16 = 1 << 10;
    /// `PDU_FLAG_DESCS`: batched descriptor requests.
    pub const DESCS: u16 = 1 << 11;
}

/// `PM_CTXFLAG_*`: what a client wants of its connection.
pub mod ctxflags {
    /// `PM_CTXFLAG_SECURE`: TLS, or fail.
    pub const SECURE: u32 = 1 << 10;
    /// `PM_CTXFLAG_COMPRESS`: compression (never available).
    pub const COMPRESS: u32 = 1 << 11;
    /// `PM_CTXFLAG_RELAXED`: TLS if pmcd offers it.
    pub const RELAXED: u32 = 1 << 12;
    /// `PM_CTXFLAG_AUTH`: an authenticated connection.
    pub const AUTH: u32 = 1 << 13;
    /// `PM_CTXFLAG_CONTAINER`: name a container.
    pub const CONTAINER: u32 = 1 << 14;
}

/// pmcd's protocol information (`__pmPDUInfo`), the datum of its
/// greeting: in the big-endian word, a zero bit, the 7-bit version, the
/// "licensed" byte (1) and 16 feature bits.
#[doc(alias = "__pmPDUInfo")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PduInfo {
    /// The protocol version pmcd prefers (7 bits).
    pub version: u8,
    /// Always 1 from a version 2 pmcd.
    pub licensed: u8,
    /// The `PDU_FLAG_*` features offered.
    pub features: u16,
    /// The top bit, zero from every pmcd.
    pub zero: bool,
}

impl PduInfo {
    /// What pmcd 6.0.3 offers with none of its optional features
    /// configured: version 2, labels, nanosecond fetches and batched
    /// descriptors.
    pub const fn pmcd() -> PduInfo {
        PduInfo {
            version: PDU_VERSION,
            licensed: 1,
            features: features::DESCS | features::LABELS | features::HIGHRES,
            zero: false,
        }
    }

    /// From the greeting's datum word.
    pub const fn from_u32(w: u32) -> PduInfo {
        PduInfo { zero: w >> 31 != 0, version: ((w >> 24) & 0x7f) as u8, licensed: (w >> 16) as u8, features: w as u16 }
    }

    /// The greeting's datum word.
    pub const fn to_u32(self) -> u32 {
        ((self.zero as u32) << 31)
            | (((self.version & 0x7f) as u32) << 24)
            | ((self.licensed as u32) << 16)
            | self.features as u32
    }
}

/// pmcd's greeting to a new client (`CheckNewClient`): status 0 to
/// accept (or an error such as `PM_ERR_PERMISSION` to refuse) and its
/// protocol information.
pub fn greeting(status: i32, info: PduInfo) -> Pdu {
    Pdu::xtend_error(status, info.to_u32())
}

/// `check_feature_flags`: the features a client asks for, given what it
/// wants (`PM_CTXFLAG_*`) and what pmcd offers, or why it cannot go
/// ahead: `PM_ERR_NEEDCLIENTCERT` when pmcd wants a certificate from a
/// remote client that did not ask for TLS, `-EOPNOTSUPP` for a wanted
/// feature pmcd does not offer (compression never is).
/// pmcd's required features are asked for whatever the client wants.
pub fn feature_flags(ctxflags: u32, offered: u16, local: bool) -> PmResult<u16> {
    let mut flags = offered & features::CREDS_REQD;
    if offered & features::CERT_REQD != 0 && !local {
        flags |= features::CERT_REQD;
        if ctxflags & ctxflags::SECURE == 0 {
            return Err(PmError::PM_ERR_NEEDCLIENTCERT);
        }
    }
    if ctxflags & (ctxflags::SECURE | ctxflags::RELAXED) != 0 {
        if offered & features::SECURE != 0 {
            flags |= features::SECURE | (offered & features::SECURE_ACK);
        } else if ctxflags & ctxflags::SECURE != 0 {
            return Err(EOPNOTSUPP);
        }
    }
    if ctxflags & ctxflags::COMPRESS != 0 {
        return Err(EOPNOTSUPP);
    }
    for (want, feature) in [(ctxflags::AUTH, features::AUTH), (ctxflags::CONTAINER, features::CONTAINER)] {
        if ctxflags & want != 0 {
            if offered & feature == 0 {
                return Err(EOPNOTSUPP);
            }
            flags |= feature;
        }
    }
    Ok(flags)
}

const EOPNOTSUPP: PmError = PmError::from_errno(95);
const ESRCH: PmError = PmError::from_errno(3);

/// What a client brings to the handshake.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientOptions {
    /// The sender word of the credentials: libpcp sends its process id.
    pub pid: i32,
    /// `PM_CTXFLAG_*` wanted.
    pub ctxflags: u32,
    /// A local connection (a Unix socket, or a host name containing
    /// "localhost"): pmcd's certificate requirement does not apply.
    pub local: bool,
    /// Over pmcd's Unix socket: pmcd takes the user's credentials from
    /// the socket, so none need sending.
    pub unix_socket: bool,
    /// The container to name, with [`ctxflags::CONTAINER`].
    pub container: Option<Vec<u8>>,
}

/// The outcome of the client's side of the handshake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accepted {
    /// What pmcd offered.
    pub server: PduInfo,
    /// The features asked for in the credentials.
    pub flags: u16,
    /// The PDUs to send now, in order: the credentials, then any
    /// attributes.
    pub send: Vec<Pdu>,
}

/// The client's side (`__pmConnectHandshake`), given pmcd's first PDU:
/// anything but a 20-byte error PDU is `PM_ERR_IPC`; a negative status
/// in it is the error pmcd refused the connection with; otherwise the
/// features to ask for ([`feature_flags`]) and the PDUs that say so.
///
/// TLS and SASL authentication (asked for explicitly, or forced by
/// pmcd requiring credentials over TCP) are not implemented and give
/// `-EOPNOTSUPP`; a container wanted without a name is `-ESRCH`, as in
/// libpcp.
///
/// ```
/// use pcp_core::PmError;
/// use pcp_pdu::handshake::{client_answer, greeting, server_accept, ClientOptions, PduInfo};
///
/// // pmcd's greeting travels as bytes; the client answers with its credentials
/// let hello = greeting(0, PduInfo::pmcd()).to_bytes(0).unwrap();
/// let (_, hello) = pcp_pdu::Pdu::decode(&hello).unwrap();
/// let opts = ClientOptions { pid: 4321, ..ClientOptions::default() };
/// let accepted = client_answer(&hello, &opts).unwrap();
/// assert_eq!(accepted.server, PduInfo::pmcd());
/// assert_eq!(accepted.send.len(), 1);
/// // and pmcd reads the version and features asked for
/// assert_eq!(server_accept(&accepted.send[0]), Ok((2, accepted.flags)));
///
/// // a pmcd refusing the connection says why in its greeting
/// let refusal = greeting(PmError::PM_ERR_PERMISSION.code(), PduInfo::pmcd());
/// assert_eq!(client_answer(&refusal, &opts).unwrap_err(), PmError::PM_ERR_PERMISSION);
/// ```
#[doc(alias = "__pmConnectHandshake")]
pub fn client_answer(greeting: &Pdu, opts: &ClientOptions) -> PmResult<Accepted> {
    let Pdu::Error(e) = greeting else {
        return Err(IPC);
    };
    let Some(datum) = e.datum else {
        return Err(IPC);
    };
    let status = e.xtend_status();
    if status < 0 {
        return Err(PmError::from_code(status));
    }
    let server = PduInfo::from_u32(datum);
    let flags = feature_flags(opts.ctxflags, server.features, opts.local)?;
    let mut send = vec![Pdu::Creds(vec![Cred::version(PDU_VERSION, flags)])];
    if flags & (features::SECURE | features::AUTH | features::COMPRESS) != 0
        || (flags & features::CREDS_REQD != 0 && !opts.unix_socket)
    {
        return Err(EOPNOTSUPP);
    }
    if flags & features::CONTAINER != 0 {
        let name = opts.container.clone().ok_or(ESRCH)?;
        send.push(Pdu::Attr(Attr { attr: PCP_ATTR_CONTAINER, value: name }));
    }
    Ok(Accepted { server, flags, send })
}

/// The sender word each PDU of [`Accepted::send`] goes out with: the
/// client's process id for credentials, `FROM_ANON` for attributes.
pub fn sender(pdu: &Pdu, opts: &ClientOptions) -> i32 {
    if pdu.pdu_type() == PduType::CREDS {
        opts.pid
    } else {
        FROM_ANON
    }
}

/// pmcd's side of the credentials (`DoCreds`): the protocol version and
/// features the client asked for. A credential of another type is
/// `PM_ERR_IPC`; a PDU that is not credentials is too.
pub fn server_accept(pdu: &Pdu) -> PmResult<(u8, u16)> {
    let Pdu::Creds(creds) = pdu else {
        return Err(IPC);
    };
    let mut got = (0, 0);
    for c in creds {
        if c.kind != CVERSION {
            return Err(IPC);
        }
        got = (c.protocol_version(), c.flags());
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pmcd_info_words() {
        // as the pmcd of this project's reference machine sends it
        let info = PduInfo::from_u32(0x0201_0e44);
        assert_eq!((info.version, info.licensed, info.zero), (2, 1, false));
        assert_eq!(info.features, features::DESCS | features::LABELS | features::HIGHRES | 0x44);
        assert_eq!(info.to_u32(), 0x0201_0e44);
        assert_eq!(PduInfo::pmcd().to_u32(), 0x0201_0e00);
    }

    #[test]
    fn features_follow_libpcp() {
        let all = 0xffff;
        assert_eq!(feature_flags(0, all, true), Ok(features::CREDS_REQD));
        assert_eq!(feature_flags(0, features::CERT_REQD, false), Err(PmError::PM_ERR_NEEDCLIENTCERT));
        assert_eq!(feature_flags(0, features::CERT_REQD, true), Ok(0));
        assert_eq!(
            feature_flags(ctxflags::RELAXED, features::SECURE | features::SECURE_ACK, false),
            Ok(features::SECURE | features::SECURE_ACK)
        );
        assert_eq!(feature_flags(ctxflags::RELAXED, 0, false), Ok(0));
        assert_eq!(feature_flags(ctxflags::SECURE, 0, false), Err(EOPNOTSUPP));
        assert_eq!(feature_flags(ctxflags::COMPRESS, all, true), Err(EOPNOTSUPP));
        assert_eq!(feature_flags(ctxflags::CONTAINER, features::CONTAINER, false), Ok(features::CONTAINER));
        assert_eq!(feature_flags(ctxflags::AUTH, 0, false), Err(EOPNOTSUPP));
    }

    #[test]
    fn client_and_server_agree() {
        let opts = ClientOptions {
            pid: 4242,
            ctxflags: ctxflags::CONTAINER,
            container: Some(b"web".to_vec()),
            ..Default::default()
        };
        let mut info = PduInfo::pmcd();
        info.features |= features::CONTAINER;
        let a = client_answer(&greeting(0, info), &opts).unwrap();
        assert_eq!(a.server, info);
        assert_eq!(a.flags, features::CONTAINER);
        assert_eq!(server_accept(&a.send[0]), Ok((PDU_VERSION, features::CONTAINER)));
        assert_eq!(a.send[1], Pdu::Attr(Attr { attr: PCP_ATTR_CONTAINER, value: b"web".to_vec() }));
        assert_eq!((sender(&a.send[0], &opts), sender(&a.send[1], &opts)), (4242, 0));
        let no_name = ClientOptions { container: None, ..opts };
        assert_eq!(client_answer(&greeting(0, info), &no_name), Err(ESRCH));
    }

    #[test]
    fn refusals_and_bad_greetings() {
        let opts = ClientOptions::default();
        let refused = greeting(PmError::PM_ERR_PERMISSION.code(), PduInfo::pmcd());
        assert_eq!(client_answer(&refused, &opts), Err(PmError::PM_ERR_PERMISSION));
        assert_eq!(client_answer(&Pdu::error(0), &opts), Err(IPC));
        assert_eq!(client_answer(&Pdu::DescReq(pcp_core::PmId(1)), &opts), Err(IPC));
        // pmcd wanting credentials over TCP would need SASL
        let mut info = PduInfo::pmcd();
        info.features |= features::CREDS_REQD;
        assert_eq!(client_answer(&greeting(0, info), &opts), Err(EOPNOTSUPP));
        let unix = ClientOptions { unix_socket: true, ..opts };
        assert_eq!(client_answer(&greeting(0, info), &unix).map(|a| a.flags), Ok(features::CREDS_REQD));
    }
}
