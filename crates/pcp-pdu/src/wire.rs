//! Big-endian words in and out: a writer that appends a PDU to a
//! `Vec<u8>` and fills in its length at the end, and a reader over one
//! whole PDU whose every read is checked (a short PDU is `PM_ERR_IPC`).

use crate::types::PduType;
use pcp_core::{PmError, PmResult};

/// `PM_ERR_IPC`, what every malformed PDU decodes to.
pub(crate) const IPC: PmError = PmError::PM_ERR_IPC;
/// `-EINVAL`: what libpcp's senders return for arguments they refuse.
pub(crate) const EINVAL: PmError = PmError::from_errno(22);

/// Bytes of the PDU header: length, type and sender words.
pub const HEADER_LEN: usize = 12;

/// The byte libpcp writes into the padding after a string or value block
/// (`~`, "buffer end").
pub const PAD_BYTE: u8 = b'~';

/// `PM_PDU_SIZE_BYTES`: `n` rounded up to a whole 4-byte word.
pub const fn padded(n: usize) -> usize {
    (n + 3) & !3
}

/// Appends one PDU to a buffer; [`Writer::finish`] writes its length.
pub(crate) struct Writer<'a> {
    out: &'a mut Vec<u8>,
    start: usize,
}

impl<'a> Writer<'a> {
    /// Start a PDU of type `ty` from `from`; the length word is filled in
    /// by [`Writer::finish`].
    pub(crate) fn begin(out: &'a mut Vec<u8>, ty: PduType, from: i32) -> Writer<'a> {
        let start = out.len();
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&ty.0.to_be_bytes());
        out.extend_from_slice(&from.to_be_bytes());
        Writer { out, start }
    }

    pub(crate) fn u32(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_be_bytes());
    }

    pub(crate) fn i32(&mut self, v: i32) {
        self.out.extend_from_slice(&v.to_be_bytes());
    }

    pub(crate) fn i64(&mut self, v: i64) {
        self.out.extend_from_slice(&v.to_be_bytes());
    }

    pub(crate) fn u16(&mut self, v: u16) {
        self.out.extend_from_slice(&v.to_be_bytes());
    }

    pub(crate) fn u8(&mut self, v: u8) {
        self.out.push(v);
    }

    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.out.extend_from_slice(b);
    }

    /// `b`, then `~` up to the next 4-byte boundary of `b`'s length.
    pub(crate) fn padded_bytes(&mut self, b: &[u8]) {
        self.out.extend_from_slice(b);
        self.out.resize(self.out.len() + padded(b.len()) - b.len(), PAD_BYTE);
    }

    /// The bytes written so far since the start of this PDU.
    pub(crate) fn len(&self) -> usize {
        self.out.len() - self.start
    }

    /// The writer's buffer, for codecs that convert bytes in place.
    pub(crate) fn buffer(&mut self) -> &mut Vec<u8> {
        self.out
    }

    /// Write the length word. A PDU longer than an `int` is refused
    /// (`PM_ERR_TOOBIG`) and the buffer left as it was found.
    pub(crate) fn finish(self) -> PmResult<usize> {
        let len = self.len();
        let Ok(word) = i32::try_from(len) else {
            self.out.truncate(self.start);
            return Err(PmError::PM_ERR_TOOBIG);
        };
        self.out[self.start..self.start + 4].copy_from_slice(&word.to_be_bytes());
        Ok(len)
    }

    /// Give up on this PDU: the buffer is left as it was found.
    pub(crate) fn abandon(self) {
        self.out.truncate(self.start);
    }
}

/// Reads one whole PDU (header included) front to back; offsets are
/// from the start of the PDU, as libpcp's are.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader positioned after the header of `pdu`.
    pub(crate) fn body(pdu: &'a [u8]) -> Reader<'a> {
        Reader { buf: pdu, pos: HEADER_LEN.min(pdu.len()) }
    }

    /// The whole PDU's length.
    pub(crate) fn pdu_len(&self) -> usize {
        self.buf.len()
    }

    /// Bytes left after the read position.
    pub(crate) fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// The read position.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn bytes(&mut self, n: usize) -> PmResult<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len()).ok_or(IPC)?;
        let b = &self.buf[self.pos..end];
        self.pos = end;
        Ok(b)
    }

    fn array<const N: usize>(&mut self) -> PmResult<[u8; N]> {
        let mut a = [0; N];
        a.copy_from_slice(self.bytes(N)?);
        Ok(a)
    }

    pub(crate) fn u32(&mut self) -> PmResult<u32> {
        self.array().map(u32::from_be_bytes)
    }

    pub(crate) fn i32(&mut self) -> PmResult<i32> {
        self.array().map(i32::from_be_bytes)
    }

    pub(crate) fn i64(&mut self) -> PmResult<i64> {
        self.array().map(i64::from_be_bytes)
    }

    pub(crate) fn u16(&mut self) -> PmResult<u16> {
        self.array().map(u16::from_be_bytes)
    }

    pub(crate) fn u8(&mut self) -> PmResult<u8> {
        self.array().map(|[b]| b)
    }

    /// `n` bytes of a string, then the padding up to its 4-byte boundary
    /// (whatever the padding holds).
    pub(crate) fn padded_bytes(&mut self, n: usize) -> PmResult<&'a [u8]> {
        let b = self.bytes(n)?;
        self.bytes(padded(n) - n)?;
        Ok(b)
    }

    /// A count read from the PDU, as a length: negative counts and counts
    /// of items of at least `min_size` bytes each that cannot fit in what
    /// is left are `PM_ERR_IPC`, so a count is never trusted further than
    /// the bytes present.
    pub(crate) fn count(&mut self, min_size: usize) -> PmResult<usize> {
        let n = self.i32()?;
        let n = usize::try_from(n).map_err(|_| IPC)?;
        if n.checked_mul(min_size).is_none_or(|need| need > self.remaining()) {
            return Err(IPC);
        }
        Ok(n)
    }

    /// The 4-byte big-endian word at `at` bytes from the start of the PDU.
    pub(crate) fn word_at(&self, at: usize) -> PmResult<u32> {
        let b = self.buf.get(at..at.checked_add(4).ok_or(IPC)?).ok_or(IPC)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// `n` bytes at `at` bytes from the start of the PDU.
    pub(crate) fn slice_at(&self, at: usize, n: usize) -> PmResult<&'a [u8]> {
        self.buf.get(at..at.checked_add(n).ok_or(IPC)?).ok_or(IPC)
    }

    /// Move the read position to `at` bytes from the start of the PDU.
    pub(crate) fn seek(&mut self, at: usize) -> PmResult<()> {
        if at > self.buf.len() {
            return Err(IPC);
        }
        self.pos = at;
        Ok(())
    }

    /// The PDU must end here: trailing bytes are `PM_ERR_IPC`.
    pub(crate) fn end(&self) -> PmResult<()> {
        if self.pos == self.buf.len() {
            Ok(())
        } else {
            Err(IPC)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_bounded_by_the_bytes_left() {
        let mut pdu = vec![0u8; 12];
        pdu.extend_from_slice(&3i32.to_be_bytes());
        pdu.extend_from_slice(&[0; 8]);
        assert_eq!(Reader::body(&pdu).count(4), Err(IPC));
        assert_eq!(Reader::body(&pdu).count(2), Ok(3));
        pdu[12..16].copy_from_slice(&(-1i32).to_be_bytes());
        assert_eq!(Reader::body(&pdu).count(0), Err(IPC));
    }

    #[test]
    fn strings_are_padded_with_tildes() {
        let mut out = Vec::new();
        let mut w = Writer::begin(&mut out, PduType::TEXT, 7);
        w.padded_bytes(b"abcde");
        assert_eq!(w.finish(), Ok(20));
        assert_eq!(&out[..12], &[0, 0, 0, 20, 0, 0, 0x70, 0x09, 0, 0, 0, 7]);
        assert_eq!(&out[12..], b"abcde~~~");
        let mut r = Reader::body(&out);
        assert_eq!(r.padded_bytes(5), Ok(&b"abcde"[..]));
        assert_eq!(r.end(), Ok(()));
    }
}
