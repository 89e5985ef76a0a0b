//! The `-Dpdu` trace of a PDU sent or received, as libpcp's
//! `__pmXmitPDU` and `__pmGetPDU` print it.
//!
//! libpcp prints a line naming the PDU, then every 32-bit word of it in
//! hex, eight to a line. The three header words are shown as numbers, but
//! the body words as they lie in memory in wire (big-endian) order, read
//! as this machine's integers: on a little-endian machine they appear
//! byte-swapped. The bytes padding the last word are shown as `~`.
//!
//! ```
//! use pcp_pdu::dump::{write_pdu, Direction};
//! use pcp_pdu::{Fetch, Pdu};
//!
//! let bytes = Pdu::HighResFetch(Fetch { ctxid: 0, pmids: vec![] }).to_bytes(7).unwrap();
//! let mut out = Vec::new();
//! write_pdu(&mut out, 42, Direction::Sent, 3, &bytes);
//! let text = String::from_utf8(out).unwrap();
//! assert!(text.starts_with("[42]pmXmitPDU: HIGHRES_FETCH fd=3 len=28\n000:       1c     7014        7 "));
//! ```

use crate::PduType;
use std::io::Write;

/// Which way a PDU went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Sent (`pmXmitPDU`).
    Sent,
    /// Received (`pmGetPDU`), with the header's sender word shown.
    Received,
}

/// Append the `-Dpdu` trace of the PDU `pdu` (whole, header first) that
/// process `pid` sent or received on descriptor `fd`.
#[doc(alias = "__pmXmitPDU")]
#[doc(alias = "__pmGetPDU")]
pub fn write_pdu(out: &mut Vec<u8>, pid: u32, dir: Direction, fd: i32, pdu: &[u8]) {
    let be = |i: usize| pdu.get(i * 4..i * 4 + 4).map_or(0, |w| i32::from_be_bytes([w[0], w[1], w[2], w[3]]));
    let (len, ty, from) = (be(0), be(1), be(2));
    let _ = match dir {
        Direction::Sent => write!(out, "[{pid}]pmXmitPDU: {} fd={fd} len={len}", PduType(ty)),
        Direction::Received => write!(out, "[{pid}]pmGetPDU: {} fd={fd} len={len} from={from}", PduType(ty)),
    };
    // the words of the length the header gives, padding shown as '~'
    let shown = usize::try_from(len).unwrap_or(0).min(pdu.len());
    let words = shown.div_ceil(4);
    for j in 0..words {
        if j % 8 == 0 {
            let _ = write!(out, "\n{j:03}: ");
        }
        let word = if j < 3 {
            be(j) as u32
        } else {
            let mut w = [b'~'; 4];
            for (k, b) in w.iter_mut().enumerate() {
                if let Some(&v) = pdu.get(j * 4 + k).filter(|_| j * 4 + k < shown) {
                    *b = v;
                }
            }
            u32::from_ne_bytes(w)
        };
        let _ = write!(out, "{word:8x} ");
    }
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_words_are_numbers_and_body_words_are_memory() {
        // pmcd's greeting: an error PDU of 20 bytes
        let mut pdu = Vec::new();
        for w in [20i32, 0x7000, 0, 0, 0x0201_0000] {
            pdu.extend_from_slice(&w.to_be_bytes());
        }
        let mut out = Vec::new();
        write_pdu(&mut out, 9, Direction::Received, 4, &pdu);
        let body = |w: u32| u32::from_ne_bytes(w.to_be_bytes());
        let want = format!(
            "[9]pmGetPDU: ERROR fd=4 len=20 from=0\n000:       14     7000        0 {:8x} {:8x} \n",
            body(0),
            body(0x0201_0000)
        );
        assert_eq!(String::from_utf8(out).unwrap(), want);
    }

    #[test]
    fn lines_of_eight_words_and_padding_as_tildes() {
        let mut pdu = Vec::new();
        for w in [38i32, 0x7009, 1, 2, 3, 4, 5, 6, 7] {
            pdu.extend_from_slice(&w.to_be_bytes());
        }
        pdu.extend_from_slice(b"ab");
        let mut out = Vec::new();
        write_pdu(&mut out, 1, Direction::Sent, -1, &pdu);
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "[1]pmXmitPDU: TEXT fd=-1 len=38");
        assert!(lines[1].starts_with("000:       26     7009        1 "));
        let last = u32::from_ne_bytes(*b"ab~~");
        let seven = u32::from_ne_bytes(7u32.to_be_bytes());
        assert_eq!(lines[2], format!("008: {seven:8x} {last:8x} "));
        assert_eq!(lines.len(), 3);
        // an unknown type is named as libpcp names it
        let mut out = Vec::new();
        write_pdu(&mut out, 1, Direction::Sent, 3, &[0, 0, 0, 12, 0, 0, 0, 5, 0, 0, 0, 0]);
        assert_eq!(out, b"[1]pmXmitPDU: TYPE-5? fd=3 len=12\n000:        c        5        0 \n");
    }
}
