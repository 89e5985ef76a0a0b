//! Metric identifiers (PMIDs), instance domains and instance identifiers.
//!
//! A PMID packs domain (9 bits), cluster (12 bits) and item (10 bits) into a
//! 32-bit word below a flag bit; an instance domain packs domain (9 bits) and
//! serial (22 bits). The layouts are those of libpcp's `__pmID_int` and
//! `__pmInDom_int`, read as one host-order `u32`, so they are the same on
//! every platform; on the wire and in archives the word is big-endian.

use std::fmt;

/// A Performance Metric Identifier.
///
/// ```
/// use pcp_core::PmId;
///
/// // kernel.all.cpu.user of the Linux PMDA: domain 60, cluster 0, item 20
/// let pmid = PmId::new(60, 0, 20);
/// assert_eq!((pmid.domain(), pmid.cluster(), pmid.item()), (60, 0, 20));
/// assert_eq!(pmid.to_string(), "60.0.20");
/// assert_eq!(PmId::from_be_bytes(pmid.to_be_bytes()), pmid);
///
/// // pmIDStr's special forms
/// assert_eq!(PmId::NULL.to_string(), "PM_ID_NULL");
/// assert_eq!(PmId::dynamic_root(60).to_string(), "60.*.*");
/// ```
#[doc(alias = "pmID")]
#[doc(alias = "pmIDStr")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PmId(pub u32);

/// An instance domain identifier.
///
/// ```
/// use pcp_core::InDom;
///
/// // the Linux PMDA's load averages
/// let indom = InDom::new(60, 2);
/// assert_eq!((indom.domain(), indom.serial()), (60, 2));
/// assert_eq!(indom.0, 0x0f00_0002);
/// assert_eq!(indom.to_string(), "60.2");
/// assert_eq!(InDom::NULL.to_string(), "PM_INDOM_NULL");
/// ```
#[doc(alias = "pmInDom")]
#[doc(alias = "pmInDomStr")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct InDom(pub u32);

/// The domain number reserved for dynamic subtree roots and derived metrics.
pub const DYNAMIC_PMID: u32 = 511;

/// The largest domain number a PMDA may have (511 is reserved).
pub const MAX_DOMAIN: u32 = 510;
/// The largest cluster number.
pub const MAX_CLUSTER: u32 = 4095;
/// The largest item number.
pub const MAX_ITEM: u32 = 1023;
/// The largest instance-domain serial number.
pub const MAX_SERIAL: u32 = (1 << 22) - 1;

/// "No instance": the instance id of a singular metric's value.
pub const PM_IN_NULL: i32 = -1;

impl PmId {
    /// `PM_ID_NULL`: no metric.
    #[doc(alias = "PM_ID_NULL")]
    pub const NULL: PmId = PmId(0xffff_ffff);

    /// Build a PMID from its fields; each is masked to its width
    /// (domain 9 bits, cluster 12, item 10), as `pmID_build` does.
    #[doc(alias = "pmID_build")]
    pub const fn new(domain: u32, cluster: u32, item: u32) -> PmId {
        PmId(((domain & 0x1ff) << 22) | ((cluster & 0xfff) << 10) | (item & 0x3ff))
    }

    /// The root of a dynamic subtree served by PMDA `domain`, written
    /// `domain:*:*` in a PMNS file and shown by `pmIDStr` as `domain.*.*`.
    pub const fn dynamic_root(domain: u32) -> PmId {
        PmId::new(DYNAMIC_PMID, domain, 0)
    }

    /// The domain field (9 bits).
    #[doc(alias = "pmID_domain")]
    pub const fn domain(self) -> u32 {
        (self.0 >> 22) & 0x1ff
    }

    /// The cluster field (12 bits).
    #[doc(alias = "pmID_cluster")]
    pub const fn cluster(self) -> u32 {
        (self.0 >> 10) & 0xfff
    }

    /// The item field (10 bits).
    #[doc(alias = "pmID_item")]
    pub const fn item(self) -> u32 {
        self.0 & 0x3ff
    }

    /// Is this `PM_ID_NULL`?
    pub const fn is_null(self) -> bool {
        self.0 == PmId::NULL.0
    }

    /// Is this the root of a dynamic subtree (`IS_DYNAMIC_ROOT`)?
    #[doc(alias = "IS_DYNAMIC_ROOT")]
    pub const fn is_dynamic_root(self) -> bool {
        self.domain() == DYNAMIC_PMID && self.item() == 0
    }

    /// Is this the PMID of a derived metric (`IS_DERIVED`)?
    #[doc(alias = "IS_DERIVED")]
    pub const fn is_derived(self) -> bool {
        self.domain() == DYNAMIC_PMID && (self.cluster() & 2048) == 0 && self.item() != 0
    }

    /// Decode from 4 bytes in network (big-endian) order.
    pub const fn from_be_bytes(b: [u8; 4]) -> PmId {
        PmId(u32::from_be_bytes(b))
    }

    /// Encode as 4 bytes in network (big-endian) order.
    pub const fn to_be_bytes(self) -> [u8; 4] {
        self.0.to_be_bytes()
    }
}

/// `pmIDStr`: `PM_ID_NULL`, `dom.*.*` for a dynamic subtree root, else
/// `domain.cluster.item`.
impl fmt::Display for PmId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_null() {
            f.write_str("PM_ID_NULL")
        } else if self.is_dynamic_root() {
            write!(f, "{}.*.*", self.cluster())
        } else {
            write!(f, "{}.{}.{}", self.domain(), self.cluster(), self.item())
        }
    }
}

impl InDom {
    /// `PM_INDOM_NULL`: the metric has a single value, no instance domain.
    #[doc(alias = "PM_INDOM_NULL")]
    pub const NULL: InDom = InDom(0xffff_ffff);

    /// Build an instance domain from its fields (domain 9 bits, serial 22),
    /// masked to their widths as `pmInDom_build` does.
    #[doc(alias = "pmInDom_build")]
    pub const fn new(domain: u32, serial: u32) -> InDom {
        InDom(((domain & 0x1ff) << 22) | (serial & MAX_SERIAL))
    }

    /// The domain field (9 bits).
    #[doc(alias = "pmInDom_domain")]
    pub const fn domain(self) -> u32 {
        (self.0 >> 22) & 0x1ff
    }

    /// The serial field (22 bits).
    #[doc(alias = "pmInDom_serial")]
    pub const fn serial(self) -> u32 {
        self.0 & MAX_SERIAL
    }

    /// Is this `PM_INDOM_NULL`?
    pub const fn is_null(self) -> bool {
        self.0 == InDom::NULL.0
    }

    /// Decode from 4 bytes in network (big-endian) order.
    pub const fn from_be_bytes(b: [u8; 4]) -> InDom {
        InDom(u32::from_be_bytes(b))
    }

    /// Encode as 4 bytes in network (big-endian) order.
    pub const fn to_be_bytes(self) -> [u8; 4] {
        self.0.to_be_bytes()
    }
}

/// `pmInDomStr`: `PM_INDOM_NULL`, else `domain.serial`.
impl fmt::Display for InDom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_null() {
            f.write_str("PM_INDOM_NULL")
        } else {
            write!(f, "{}.{}", self.domain(), self.serial())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_forms() {
        assert_eq!(PmId::new(60, 0, 4).to_string(), "60.0.4");
        assert_eq!(PmId::NULL.to_string(), "PM_ID_NULL");
        assert_eq!(PmId::dynamic_root(60).to_string(), "60.*.*");
        assert_eq!(InDom::new(60, 1).to_string(), "60.1");
        assert_eq!(InDom::NULL.to_string(), "PM_INDOM_NULL");
        // the flag bit above the domain is not part of any field
        assert_eq!(PmId(0x8000_0000).to_string(), "0.0.0");
    }

    proptest! {
        #[test]
        fn pmid_fields_round_trip(d in 0u32..512, c in 0u32..4096, i in 0u32..1024) {
            let id = PmId::new(d, c, i);
            prop_assert_eq!((id.domain(), id.cluster(), id.item()), (d, c, i));
            prop_assert_eq!(PmId::new(id.domain(), id.cluster(), id.item()), id);
            prop_assert_eq!(PmId::from_be_bytes(id.to_be_bytes()), id);
        }

        #[test]
        fn indom_fields_round_trip(d in 0u32..512, s in 0u32..(1 << 22)) {
            let id = InDom::new(d, s);
            prop_assert_eq!((id.domain(), id.serial()), (d, s));
            prop_assert_eq!(InDom::from_be_bytes(id.to_be_bytes()), id);
        }

        #[test]
        fn raw_words_round_trip(x in any::<u32>()) {
            prop_assert_eq!(PmId::from_be_bytes(PmId(x).to_be_bytes()).0, x);
            prop_assert_eq!(InDom::from_be_bytes(InDom(x).to_be_bytes()).0, x);
        }
    }
}
