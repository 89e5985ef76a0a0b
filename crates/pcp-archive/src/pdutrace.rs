//! `-Dpdu` over archives: after decoding a result record, libpcp's
//! `__pmLogRead` shows the record's body as 32-bit words in host order,
//! as decoding left them (value-block headers and the values of 64-bit,
//! double, float and event values converted in place; the rest as read).

use crate::logread::Ts;
use crate::raw::Version;
use pcp_core::debug::Trace;

/// Stand-in for the address of the body in libpcp's PDU buffer.
const FAKE_BODY: u64 = 0x5600_000e_0abc;

/// `__pmLogRead timestamp=... ADDR ... ADDR` and the words of `body`;
/// `head` is the distance between the addresses (the record length, less
/// header and trailer when `-Dlog` is also on).
pub(crate) fn dump(trace: &Trace, ts: Ts, body: &[u8], version: Version, head: usize) {
    let bytes = decoded(body, version);
    let mut out =
        format!("__pmLogRead timestamp={} {FAKE_BODY:#x} ... {:#x}\n000: ", ts.shown(trace), FAKE_BODY + head as u64);
    for (j, w) in bytes.chunks_exact(4).enumerate() {
        if j > 0 && j % 8 == 0 {
            out.push_str(&format!("\n{j:03}: "));
        }
        out.push_str(&format!("{:8x} ", u32::from_le_bytes([w[0], w[1], w[2], w[3]])));
    }
    out.push('\n');
    trace.write(format_args!("{out}"));
}

fn be(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// Reverse the `n` bytes at `at`, if they are there.
fn flip(b: &mut [u8], at: usize, n: usize) -> Option<()> {
    b.get_mut(at..at + n)?.reverse();
    Some(())
}

/// A copy of `body` as decoding leaves it in libpcp's buffer.
fn decoded(body: &[u8], version: Version) -> Vec<u8> {
    let mut b = body.to_vec();
    let _ = convert(&mut b, version);
    b
}

fn convert(b: &mut [u8], version: Version) -> Option<()> {
    let mut at = if version == Version::V3 { 12 } else { 8 };
    let numpmid = be(b, at)? as i32;
    at += 4;
    for _ in 0..numpmid.max(0) {
        let numval = be(b, at + 4)? as i32;
        at += 8;
        if numval <= 0 {
            continue;
        }
        let valfmt = be(b, at)?;
        at += 4;
        for _ in 0..numval {
            let value = be(b, at + 4)?;
            at += 8;
            if valfmt != 0 {
                // offsets count words from the start of the PDU, three
                // words of header before the body
                let block = (value as usize).checked_sub(3)? * 4;
                value_block(b, block)?;
            }
        }
    }
    Some(())
}

fn value_block(b: &mut [u8], at: usize) -> Option<()> {
    flip(b, at, 4)?;
    let vtype = b[at + 3];
    match vtype {
        2 | 3 | 5 => flip(b, at + 4, 8),
        4 => flip(b, at + 4, 4),
        9 => events(b, at, false),
        10 => events(b, at, true),
        _ => Some(()),
    }
}

/// `ntohEventArray`: the records' times, flags, counts and parameters.
fn events(b: &mut [u8], at: usize, highres: bool) -> Option<()> {
    flip(b, at + 4, 4)?;
    let nrecords = i32::from_ne_bytes(b.get(at + 4..at + 8)?.try_into().ok()?);
    let mut p = at + 8;
    for _ in 0..nrecords.max(0) {
        let stamp = if highres {
            flip(b, p, 8)?;
            flip(b, p + 8, 8)?;
            16
        } else {
            flip(b, p, 4)?;
            flip(b, p + 4, 4)?;
            8
        };
        flip(b, p + stamp, 4)?;
        flip(b, p + stamp + 4, 4)?;
        let ne = |b: &[u8], i: usize| b.get(i..i + 4).map(|w| u32::from_ne_bytes(w.try_into().unwrap()));
        let flags = ne(b, p + stamp)?;
        let nparams = if flags & 1 << 31 != 0 { 0 } else { ne(b, p + stamp + 4)? as i32 };
        p += stamp + 8;
        for _ in 0..nparams.max(0) {
            flip(b, p, 4)?;
            flip(b, p + 4, 4)?;
            let tl = ne(b, p + 4)?;
            let (ty, len) = (tl >> 24, (tl & 0xff_ffff) as usize);
            match ty {
                0 | 1 => flip(b, p + 8, 4)?,
                2 | 3 | 5 => flip(b, p + 8, 8)?,
                4 => flip(b, p + 8, 4)?,
                _ => (),
            }
            p += 4 + len.div_ceil(4) * 4;
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcp_core::debug::DebugOptions;

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|w| w.to_be_bytes()).collect()
    }

    /// A version 2 record: a string (its block's header converted), a
    /// double (its eight bytes reversed) and an insitu value (as read).
    fn record() -> Vec<u8> {
        let mut b = words(&[0x35c9_f740, 0x0003_f1ad, 3]);
        // pmid, numval, valfmt, inst, offset (words from the PDU's start)
        b.extend(words(&[0x0740_002e, 1, 1, 0xffff_ffff, 3 + 18]));
        b.extend(words(&[0x0740_0007, 1, 1, 0xffff_ffff, 3 + 20]));
        b.extend(words(&[0x0740_0002, 1, 0, 0xffff_ffff, 0x381]));
        b.extend(words(&[0x0600_0008, 0x7265_6400]));
        b.extend(words(&[0x0500_000c, 0x0102_0304, 0x0506_0708]));
        b
    }

    #[test]
    fn converted_as_decoding_leaves_the_buffer() {
        let got: Vec<u32> = decoded(&record(), Version::V2)
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
            .collect();
        assert_eq!(&got[..3], &[0x40f7_c935, 0xadf1_0300, 0x0300_0000]);
        assert_eq!(&got[18..], &[0x0600_0008, 0x0064_6572, 0x0500_000c, 0x0506_0708, 0x0102_0304]);
    }

    #[test]
    fn dump_shows_eight_words_a_line() {
        let trace = Trace::new(DebugOptions::parse(b"pdu").unwrap());
        let ts = Ts { sec: 902_428_480, nsec: 258_477_000 };
        let body = record();
        dump(&trace, ts, &body, Version::V2, body.len() + 8);
        let text = String::from_utf8(trace.take()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "__pmLogRead timestamp=18:34:40.258477000 0x5600000e0abc ... 0x5600000e0b20");
        assert_eq!(lines[1], "000: 40f7c935 adf10300  3000000 2e004007  1000000  1000000 ffffffff 15000000 ");
        assert_eq!(lines[3], "016: ffffffff 81030000  6000008   646572  500000c  5060708  1020304 ");
        assert_eq!(lines.len(), 4);
    }
}
