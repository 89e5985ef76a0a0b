//! `PDU_ERROR`: a status code, and the extended form with a datum word
//! that pmcd sends first on every connection.

use crate::pdu::Body;
use crate::wire::{Reader, Writer, IPC};
use pcp_core::PmResult;

/// `PM_ERR_BASE` of PCP 1.x error codes.
const PM_ERR_BASE1: i32 = 1000;
/// `PM_ERR_BASE` of today's error codes.
const PM_ERR_BASE2: i32 = 12345;

/// An error PDU (`p_error_t`, or `x_error_t` with its datum).
///
/// `code` is the word on the wire. In the extended form (the only
/// PDU that still carries a PCP 1.x code) it is the translated code: see
/// [`xlate_v1_to_v2`] and [`Pdu::xtend_error`](crate::Pdu::xtend_error).
/// A PDU of 16 bytes has no datum, one of 20 bytes has one; any other
/// length is `PM_ERR_IPC`.
#[doc(alias = "__pmDecodeError")]
#[doc(alias = "__pmDecodeXtendError")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ErrorPdu {
    /// The status word as sent.
    pub code: i32,
    /// The extended form's second word, as sent.
    pub datum: Option<u32>,
}

impl ErrorPdu {
    /// The status as libpcp's `__pmDecodeXtendError` gives it: the code
    /// translated from PCP 1.x terms.
    pub fn xtend_status(&self) -> i32 {
        xlate_v1_to_v2(self.code)
    }
}

/// A PCP 1.x error code in today's terms (`XLATE_ERR_1TO2`): codes at or
/// below -1000 move down to the -12345 base; others are unchanged.
pub const fn xlate_v1_to_v2(code: i32) -> i32 {
    if code <= -PM_ERR_BASE1 {
        code.wrapping_add(PM_ERR_BASE1 - PM_ERR_BASE2)
    } else {
        code
    }
}

/// Today's error code in PCP 1.x terms (`XLATE_ERR_2TO1`), as the
/// extended error PDU carries it.
pub const fn xlate_v2_to_v1(code: i32) -> i32 {
    if code <= -PM_ERR_BASE2 {
        code.wrapping_add(PM_ERR_BASE2 - PM_ERR_BASE1)
    } else {
        code
    }
}

impl Body for ErrorPdu {
    fn put(&self, w: &mut Writer) -> PmResult<()> {
        w.i32(self.code);
        if let Some(d) = self.datum {
            w.u32(d);
        }
        Ok(())
    }

    fn get(r: &mut Reader) -> PmResult<ErrorPdu> {
        let code = r.i32()?;
        let datum = match r.remaining() {
            0 => None,
            4 => Some(r.u32()?),
            _ => return Err(IPC),
        };
        Ok(ErrorPdu { code, datum })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcp_core::PmError;

    #[test]
    fn version_one_codes_translate_both_ways() {
        let name = PmError::PM_ERR_NAME.code();
        assert_eq!(xlate_v2_to_v1(name), -1012);
        assert_eq!(xlate_v1_to_v2(-1012), name);
        for c in [0, -1, -999, 7] {
            assert_eq!((xlate_v1_to_v2(c), xlate_v2_to_v1(c)), (c, c));
        }
        assert_eq!(xlate_v2_to_v1(i32::MIN), i32::MIN + 11345);
    }
}
