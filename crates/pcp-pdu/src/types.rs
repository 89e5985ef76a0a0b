//! PDU type codes (`PDU_*`) and their names, from one table.

use std::borrow::Cow;
use std::fmt;

/// A PDU type: the second word of every PDU header.
///
/// `Display` gives libpcp's `__pmPDUTypeStr` text: the type's name, or
/// `TYPE-N?` for a code it does not know.
///
/// ```
/// use pcp_pdu::PduType;
///
/// assert_eq!(PduType::HIGHRES_RESULT.to_string(), "HIGHRES_RESULT");
/// assert_eq!(PduType(0x7011), PduType::ATTR);
/// assert_eq!(PduType(0x7011).name(), Some("ATTR"));
/// assert_eq!(PduType(12).to_string(), "TYPE-12?");
/// ```
#[doc(alias = "__pmPDUTypeStr")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PduType(pub i32);

macro_rules! pdu_types {
    ($( $(#[$doc:meta])* $name:ident = $code:expr, $text:expr; )*) => {
        impl PduType {
            $(
                $(#[$doc])*
                #[doc = concat!("`PDU_", stringify!($name), "` (", stringify!($code), ").")]
                pub const $name: PduType = PduType($code);
            )*
        }
        /// Every PDU type libpcp names, with its `__pmPDUTypeStr` text.
        pub const PDU_TYPE_TABLE: &[(PduType, &str)] = &[ $( (PduType($code), $text), )* ];
    };
}

pdu_types! {
    /// An error status; pmcd's first PDU on a connection is its extended
    /// form.
    ERROR = 0x7000, "ERROR";
    /// A fetch result with a timeval timestamp (also a `pmStore` request).
    RESULT = 0x7001, "RESULT";
    /// The client's instance profile.
    PROFILE = 0x7002, "PROFILE";
    /// A fetch request answered by a `RESULT`.
    FETCH = 0x7003, "FETCH";
    /// A request for one metric's descriptor.
    DESC_REQ = 0x7004, "DESC_REQ";
    /// One metric descriptor.
    DESC = 0x7005, "DESC";
    /// An instance domain request (`pmGetInDom`, `pmNameInDom`, `pmLookupInDom`).
    INSTANCE_REQ = 0x7006, "INSTANCE_REQ";
    /// Instances of an instance domain.
    INSTANCE = 0x7007, "INSTANCE";
    /// A help text request.
    TEXT_REQ = 0x7008, "TEXT_REQ";
    /// Help text.
    TEXT = 0x7009, "TEXT";
    /// A control request (no longer used by clients).
    CONTROL_REQ = 0x700a, "CONTROL_REQ";
    /// Credentials: the client's protocol version and features.
    CREDS = 0x700c, "CREDS";
    /// A list of PMIDs (`pmNameID` request, `pmLookupName` reply).
    PMNS_IDS = 0x700d, "PMNS_IDS";
    /// A list of names (`pmLookupName` request; names, children and
    /// traversal replies).
    PMNS_NAMES = 0x700e, "PMNS_NAMES";
    /// A request for a PMNS node's children.
    PMNS_CHILD = 0x700f, "PMNS_CHILD";
    /// A request for every name below a PMNS node.
    PMNS_TRAVERSE = 0x7010, "PMNS_TRAVERSE";
    /// A connection attribute (`PDU_AUTH` is the same code).
    ATTR = 0x7011, "ATTR";
    /// A label request.
    LABEL_REQ = 0x7012, "LABEL_REQ";
    /// Label sets.
    LABEL = 0x7013, "LABEL";
    /// A fetch request answered by a `HIGHRES_RESULT`.
    HIGHRES_FETCH = 0x7014, "HIGHRES_FETCH";
    /// A fetch result with a nanosecond timestamp.
    HIGHRES_RESULT = 0x7015, "HIGHRES_RESULT";
    /// A request for many descriptors at once.
    DESC_IDS = 0x7016, "DESC_IDS";
    /// Many descriptors.
    DESCS = 0x7017, "DESCS";
    /// pmlogger control (not a pmcd PDU).
    LOG_CONTROL = 0x8000, "LOG_CONTROL";
    /// pmlogger status, old form (not a pmcd PDU).
    LOG_STATUS_V2 = 0x8001, "LOG_STATUS_V2";
    /// pmlogger request (not a pmcd PDU).
    LOG_REQUEST = 0x8002, "LOG_REQUEST";
    /// pmlogger status (not a pmcd PDU).
    LOG_STATUS = 0x8003, "LOG_STATUS";
}

impl PduType {
    /// `PDU_AUTH`: the attribute PDU under its older name.
    pub const AUTH: PduType = PduType::ATTR;

    /// The type's name, or `None` for a code libpcp does not name.
    pub fn name(self) -> Option<&'static str> {
        PDU_TYPE_TABLE.iter().find(|(t, _)| *t == self).map(|(_, n)| *n)
    }

    /// `__pmPDUTypeStr`.
    pub fn text(self) -> Cow<'static, str> {
        match self.name() {
            Some(n) => Cow::Borrowed(n),
            None => Cow::Owned(format!("TYPE-{}?", self.0)),
        }
    }
}

impl fmt::Display for PduType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_unknown_codes() {
        assert_eq!(PduType::HIGHRES_RESULT.to_string(), "HIGHRES_RESULT");
        assert_eq!(PduType::AUTH.to_string(), "ATTR");
        assert_eq!(PduType(0x700b).to_string(), "TYPE-28683?");
        assert_eq!(PduType(-1).to_string(), "TYPE--1?");
        for (i, (a, _)) in PDU_TYPE_TABLE.iter().enumerate() {
            assert!(PDU_TYPE_TABLE[i + 1..].iter().all(|(b, _)| a != b));
        }
    }
}
