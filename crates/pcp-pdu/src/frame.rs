//! PDU framing: the three-word header, and cutting a byte stream into
//! whole PDUs without trusting its length words further than the bytes
//! that have arrived.

use crate::types::PduType;
use crate::wire::{HEADER_LEN, IPC};
use pcp_core::{PmError, PmResult};

/// `PDU_CHUNK * 64`: the largest PDU pmcd accepts from a client
/// (`__pmGetPDUCeiling`); anything longer is `PM_ERR_TOOBIG`.
#[doc(alias = "__pmGetPDUCeiling")]
pub const CLIENT_PDU_CEILING: usize = 1024 * 64;

/// The largest PDU a client accepts from a server by default. libpcp
/// takes any length an `int` holds; this bound keeps a broken or hostile
/// server from making us buffer gigabytes, while leaving room for the
/// largest results and instance domains real pmcds send.
pub const DEFAULT_SERVER_PDU_LIMIT: usize = 256 << 20;

/// A PDU header (`__pmPDUHdr`): total length, type and sender.
#[doc(alias = "__pmPDUHdr")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Header {
    /// Bytes in the whole PDU, header included.
    pub len: usize,
    /// The PDU type.
    pub ty: PduType,
    /// The sender: a process id, a context handle, or 0 (`FROM_ANON`).
    pub from: i32,
}

impl Header {
    /// Read and check a header as `__pmGetPDU` does: a length below the
    /// header's own size, or a negative type, is `PM_ERR_IPC`; a length
    /// above `limit` is `PM_ERR_TOOBIG`. Fewer than 12 bytes is
    /// `PM_ERR_IPC`.
    #[doc(alias = "__pmGetPDU")]
    pub fn parse(bytes: &[u8], limit: usize) -> PmResult<Header> {
        let word = |i: usize| bytes.get(i..i + 4).map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]));
        let len = word(0).ok_or(IPC)?;
        let len = usize::try_from(len).ok().filter(|&l| l >= HEADER_LEN).ok_or(IPC)?;
        if len > limit {
            return Err(PmError::PM_ERR_TOOBIG);
        }
        let ty = word(4).ok_or(IPC)?;
        if ty < 0 {
            return Err(IPC);
        }
        Ok(Header { len, ty: PduType(ty), from: word(8).ok_or(IPC)? })
    }
}

/// Cuts a byte stream into whole PDUs (the reassembly `__pmGetPDU` does
/// around its reads), with no I/O of its own: push what arrives, take
/// PDUs out.
///
/// The buffer never holds more than one PDU's bytes beyond what has been
/// taken out plus what was pushed, and a PDU whose header declares more
/// than the limit is refused as soon as its length word arrives.
///
/// ```
/// use pcp_core::PmError;
/// use pcp_pdu::{Framer, Pdu};
///
/// let mut stream = Pdu::error(PmError::PM_ERR_NAME.code()).to_bytes(0).unwrap();
/// stream.extend(Pdu::error(0).to_bytes(0).unwrap());
///
/// let mut framer = Framer::for_client();
/// assert_eq!(framer.wanted(), 12); // a header first
/// framer.push(&stream[..12]);
/// assert_eq!(framer.wanted(), 4); // then the rest of the first PDU's 16 bytes
/// assert_eq!(framer.next_pdu(), Ok(None));
/// framer.push(&stream[12..]);
/// assert_eq!(framer.next_pdu().unwrap().as_deref(), Some(&stream[..16]));
/// assert_eq!(framer.next_pdu().unwrap().as_deref(), Some(&stream[16..]));
/// assert_eq!(framer.next_pdu(), Ok(None));
///
/// // pmcd refuses a client's PDU over 64 KiB when its length word arrives
/// let mut server = Framer::for_server();
/// server.push(&(1i32 << 20).to_be_bytes());
/// assert_eq!(server.next_pdu(), Err(PmError::PM_ERR_TOOBIG));
/// ```
#[derive(Clone, Debug)]
pub struct Framer {
    buf: Vec<u8>,
    limit: usize,
}

impl Framer {
    /// A framer refusing PDUs longer than `limit` bytes (`PM_ERR_TOOBIG`).
    pub fn new(limit: usize) -> Framer {
        Framer { buf: Vec::new(), limit }
    }

    /// What a client uses for the PDUs pmcd sends:
    /// [`DEFAULT_SERVER_PDU_LIMIT`].
    pub fn for_client() -> Framer {
        Framer::new(DEFAULT_SERVER_PDU_LIMIT)
    }

    /// What pmcd (or a fake one) uses for the PDUs clients send:
    /// [`CLIENT_PDU_CEILING`], as `__pmGetPDU`'s `LIMIT_SIZE` mode.
    pub fn for_server() -> Framer {
        Framer::new(CLIENT_PDU_CEILING)
    }

    /// Add bytes that arrived.
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// How many more bytes complete the PDU under way (the rest of its
    /// header first): what a transport should read next. 0 when a whole
    /// PDU is ready.
    pub fn wanted(&self) -> usize {
        if self.buf.len() < HEADER_LEN {
            return HEADER_LEN - self.buf.len();
        }
        match self.length() {
            Ok(Some(l)) => l.saturating_sub(self.buf.len()),
            // a bad length word: next_pdu reports it
            _ => 0,
        }
    }

    /// Bytes held that are not yet a whole PDU (or PDUs not yet taken).
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// The next whole PDU, header included, if one has arrived. A bad
    /// length word is an error (below the header's size `PM_ERR_IPC`,
    /// over the limit `PM_ERR_TOOBIG`); after an error the stream cannot
    /// be resynchronised and the framer should be dropped. The rest of
    /// the header is the decoder's to check ([`Header::parse`]): as
    /// `__pmGetPDU` does, a PDU whose length is good is taken whole
    /// before its type is looked at, so one with a negative type is
    /// refused by [`Pdu::decode`](crate::Pdu::decode) with the stream
    /// still in step.
    pub fn next_pdu(&mut self) -> PmResult<Option<Vec<u8>>> {
        let Some(len) = self.peek()?.map(<[u8]>::len) else {
            return Ok(None);
        };
        let rest = self.buf.split_off(len);
        Ok(Some(std::mem::replace(&mut self.buf, rest)))
    }

    /// The next whole PDU, header included, left in the framer's buffer
    /// (checked as [`Framer::next_pdu`] checks it): decode it in place,
    /// then [`Framer::consume`] its length. This copies and allocates
    /// nothing, which is what a client's loop of requests wants.
    pub fn peek(&self) -> PmResult<Option<&[u8]>> {
        // the type is the decoder's to refuse, once the whole PDU is here
        let Some(len) = self.length()? else { return Ok(None) };
        Ok(self.buf.get(..len))
    }

    /// The length word of the PDU under way, checked as soon as it has
    /// arrived (`None` before).
    fn length(&self) -> PmResult<Option<usize>> {
        let Some(word) = self.buf.get(..4) else { return Ok(None) };
        let len = i32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        let len = usize::try_from(len).ok().filter(|&l| l >= HEADER_LEN).ok_or(IPC)?;
        if len > self.limit {
            return Err(PmError::PM_ERR_TOOBIG);
        }
        Ok(Some(len))
    }

    /// Drop the first `n` bytes held (the PDU [`Framer::peek`] showed).
    pub fn consume(&mut self, n: usize) {
        self.buf.drain(..n.min(self.buf.len()));
    }

    /// The stream ended: `Ok` if it ended between PDUs, else `PM_ERR_IPC`
    /// (a PDU cut short, as `__pmGetPDU` reports it).
    pub fn finish(&self) -> PmResult<()> {
        if self.buf.is_empty() {
            Ok(())
        } else {
            Err(IPC)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pdu(len: i32, ty: i32, body: usize) -> Vec<u8> {
        let mut v = len.to_be_bytes().to_vec();
        v.extend_from_slice(&ty.to_be_bytes());
        v.extend_from_slice(&5i32.to_be_bytes());
        v.resize(12 + body, 0xee);
        v
    }

    #[test]
    fn pdus_come_out_whole_however_the_bytes_arrive() {
        let mut stream = pdu(16, 0x7000, 4);
        stream.extend(pdu(20, 0x7004, 8));
        for step in 1..stream.len() {
            let mut f = Framer::for_client();
            let mut got = Vec::new();
            for chunk in stream.chunks(step) {
                assert!(f.wanted() > 0);
                f.push(chunk);
                while let Some(p) = f.next_pdu().unwrap() {
                    got.push(p);
                }
            }
            assert_eq!(got, vec![stream[..16].to_vec(), stream[16..].to_vec()]);
            assert_eq!(f.finish(), Ok(()));
        }
    }

    #[test]
    fn bad_headers_are_refused_before_their_bodies_arrive() {
        let mut f = Framer::for_server();
        f.push(&(65537i32).to_be_bytes());
        assert_eq!(f.next_pdu(), Err(PmError::PM_ERR_TOOBIG));
        let mut f = Framer::for_client();
        f.push(&pdu(11, 0x7000, 0)[..4]);
        assert_eq!(f.next_pdu(), Err(IPC));
        let mut f = Framer::for_client();
        f.push(&pdu(-5, 0x7000, 0)[..4]);
        assert_eq!(f.next_pdu(), Err(IPC));
        // a negative type is the decoder's to refuse: the PDU is taken
        // whole, as __pmGetPDU takes it, and the next one follows
        let mut f = Framer::for_client();
        let mut stream = pdu(16, -1, 4);
        stream.extend(pdu(12, 0x7000, 0));
        f.push(&stream);
        let bad = f.next_pdu().unwrap().unwrap();
        assert_eq!(crate::Pdu::decode(&bad), Err(IPC));
        assert_eq!(f.next_pdu().unwrap().as_deref(), Some(&stream[16..]));
        // a length the limit allows waits for its bytes, which are not
        // reserved ahead
        let mut f = Framer::new(usize::MAX);
        f.push(&pdu(i32::MAX, 0x7001, 0));
        assert_eq!(f.next_pdu(), Ok(None));
        assert_eq!(f.wanted(), i32::MAX as usize - 12);
        assert!(f.buffered() == 12);
        assert_eq!(f.finish(), Err(IPC));
    }

    #[test]
    fn peek_and_consume_give_the_pdus_next_pdu_gives() {
        let mut stream = pdu(16, 0x7000, 4);
        stream.extend(pdu(20, 0x7004, 8));
        stream.extend(&pdu(24, 0x7001, 12)[..7]);
        let mut f = Framer::for_client();
        f.push(&stream);
        let mut got = Vec::new();
        while let Some(p) = f.peek().unwrap() {
            let p = p.to_vec();
            f.consume(p.len());
            got.push(p);
        }
        assert_eq!(got, vec![stream[..16].to_vec(), stream[16..36].to_vec()]);
        assert_eq!(f.buffered(), 7);
    }
}
