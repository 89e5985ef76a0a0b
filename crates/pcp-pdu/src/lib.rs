//! The wire protocol between PMAPI clients and pmcd, as a sans-IO codec.
//!
//! Every PDU a client sends or receives (and so every PDU pmcd, or a fake
//! pmcd in tests, sends or receives) encodes and decodes here, byte for
//! byte as libpcp 6.0.3's `__pmSend*` and `__pmDecode*` functions do,
//! padding bytes included. Nothing here touches a socket or a clock:
//!
//! - [`Framer`] cuts a byte stream into whole PDUs, refusing a length
//!   word that is too small or too large as soon as it arrives (the rest
//!   of a header is the decoder's to check, once the PDU is whole);
//! - [`Pdu::decode`] turns one whole PDU into a [`Pdu`], checking every
//!   count and offset against the bytes present before reading or
//!   allocating, and refusing anything malformed with `PM_ERR_IPC`;
//! - [`Pdu::encode`] appends a PDU to a `Vec<u8>`;
//! - [`handshake`] holds the connection set-up both sides go through:
//!   pmcd's greeting with its features, the client's credentials.
//!
//! Transports are thin loops around these: read what [`Framer::wanted`]
//! asks for, push it, decode what comes out.
//!
//! It sits on `pcp-core` (PMIDs, descriptors, values, error codes); the
//! `pcp` facade's host contexts and its tests' fake pmcd are its users.
//!
//! ```
//! use pcp_core::PmId;
//! use pcp_pdu::{Fetch, Framer, Pdu, PduType};
//!
//! // a client asks for two metrics...
//! let fetch = Pdu::HighResFetch(Fetch { ctxid: 0, pmids: vec![PmId::new(60, 2, 0), PmId::new(3, 0, 0)] });
//! let bytes = fetch.to_bytes(1234).unwrap();
//! assert_eq!(bytes.len(), 12 + 4 + 8 + 4 + 2 * 4); // header, ctxid, timeval, count, PMIDs
//!
//! // ...and pmcd's side receives them a few bytes at a time
//! let mut framer = Framer::for_server();
//! let mut pdus = Vec::new();
//! for chunk in bytes.chunks(5) {
//!     framer.push(chunk);
//!     while let Some(pdu) = framer.next_pdu().unwrap() {
//!         pdus.push(pdu);
//!     }
//! }
//! assert_eq!(framer.finish(), Ok(()));
//! let (header, decoded) = Pdu::decode(&pdus[0]).unwrap();
//! assert_eq!((header.ty, header.from, header.len), (PduType::HIGHRES_FETCH, 1234, bytes.len()));
//! assert_eq!(decoded, fetch);
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod attr;
pub mod creds;
mod desc;
pub mod dump;
pub mod error;
pub mod fetch;
pub mod frame;
pub mod handshake;
pub mod idlist;
pub mod instance;
pub mod label;
mod pdu;
pub mod pmns;
pub mod profile;
pub mod result;
pub mod text;
pub mod types;
mod wire;

pub use attr::Attr;
pub use creds::Cred;
pub use error::ErrorPdu;
pub use fetch::Fetch;
pub use frame::{Framer, Header};
pub use idlist::IdList;
pub use instance::{InResult, Instance, InstanceReq};
pub use label::{LabelReq, Labels};
pub use pdu::Pdu;
pub use pmns::{NameList, NameReq};
pub use profile::{InDomProfile, Profile};
pub use result::ResultPdu;
pub use text::{Text, TextReq};
pub use types::PduType;
pub use wire::{padded, HEADER_LEN, PAD_BYTE};

/// `FROM_ANON`: the sender word of PDUs from no particular process
/// (pmcd's replies, attributes).
pub const FROM_ANON: i32 = 0;
