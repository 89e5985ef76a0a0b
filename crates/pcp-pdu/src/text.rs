//! `PDU_TEXT_REQ` and `PDU_TEXT`: help text.

use crate::pdu::Body;
use crate::wire::{Reader, Writer, IPC};
use pcp_core::PmResult;

/// `PM_TEXT_ONELINE`: the one-line help text.
pub const PM_TEXT_ONELINE: i32 = 1;
/// `PM_TEXT_HELP`: the full help text.
pub const PM_TEXT_HELP: i32 = 2;
/// `PM_TEXT_PMID`: the identifier is a PMID.
pub const PM_TEXT_PMID: i32 = 4;
/// `PM_TEXT_INDOM`: the identifier is an instance domain.
pub const PM_TEXT_INDOM: i32 = 8;
/// `PM_TEXT_DIRECT`: libpcp-internal, never sent.
pub const PM_TEXT_DIRECT: i32 = 16;

/// A help text request (`text_req_t`): a PMID or instance domain and the
/// kind of text (`PM_TEXT_*` bits).
#[doc(alias = "__pmSendTextReq")]
#[doc(alias = "__pmDecodeTextReq")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TextReq {
    /// The PMID or instance domain.
    pub ident: u32,
    /// `PM_TEXT_*` bits.
    pub kind: i32,
}

impl TextReq {
    /// The request libpcp sends for `ident` and `kind`: without the
    /// internal `PM_TEXT_DIRECT` bit.
    pub fn new(ident: u32, kind: i32) -> TextReq {
        TextReq { ident, kind: kind & !PM_TEXT_DIRECT }
    }

    /// The identifier as pmcd's `__pmDecodeTextReq` reads it:
    /// `PM_INDOM_NULL` when the kind names neither a PMID nor an
    /// instance domain.
    pub fn effective_ident(&self) -> u32 {
        if self.kind & (PM_TEXT_PMID | PM_TEXT_INDOM) != 0 {
            self.ident
        } else {
            u32::MAX
        }
    }
}

impl Body for TextReq {
    fn put(&self, w: &mut Writer) -> PmResult<()> {
        w.u32(self.ident);
        w.i32(self.kind);
        Ok(())
    }

    fn get(r: &mut Reader) -> PmResult<TextReq> {
        Ok(TextReq { ident: r.u32()?, kind: r.i32()? })
    }
}

/// Help text (`text_t`): the identifier it answers and the text, padded
/// to 4 bytes with `~`. The text is kept as sent; libpcp's decoder
/// stops at a NUL inside it (see [`Text::c_text`]).
#[doc(alias = "__pmSendText")]
#[doc(alias = "__pmDecodeText")]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Text {
    /// The PMID or instance domain.
    pub ident: u32,
    /// The text's bytes.
    pub text: Vec<u8>,
}

impl Text {
    /// The text up to its first NUL, as libpcp's decoder copies it.
    pub fn c_text(&self) -> &[u8] {
        let end = self.text.iter().position(|&b| b == 0).unwrap_or(self.text.len());
        &self.text[..end]
    }
}

impl Body for Text {
    fn put(&self, w: &mut Writer) -> PmResult<()> {
        w.u32(self.ident);
        w.i32(i32::try_from(self.text.len()).map_err(|_| IPC)?);
        w.padded_bytes(&self.text);
        Ok(())
    }

    fn get(r: &mut Reader) -> PmResult<Text> {
        let ident = r.u32()?;
        let n = usize::try_from(r.i32()?).map_err(|_| IPC)?;
        Ok(Text { ident, text: r.padded_bytes(n)?.to_vec() })
    }
}
