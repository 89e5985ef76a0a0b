//! pminfo's series identifiers (`-s`): SHA-1 hashes of a JSON text naming
//! a metric source, metric or instance by its identifying labels, as
//! pminfo builds them.

use pcp_core::labels::PM_MAXLABELJSONLEN;
use pcp_core::Desc;

/// SHA-1 (FIPS 180-4) of `data`.
pub(super) fn sha1(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476, 0xc3d2_e1f0];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64).wrapping_mul(8)).to_be_bytes());
    for block in msg.chunks_exact(64) {
        let mut w = [0u32; 80];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, &wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5a82_7999),
                20..=39 => (b ^ c ^ d, 0x6ed9_eba1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8f1b_bcdc),
                _ => (b ^ c ^ d, 0xca62_c1d6),
            };
            let t = a.rotate_left(5).wrapping_add(f).wrapping_add(e).wrapping_add(k).wrapping_add(wi);
            (e, d, c, b, a) = (d, c, b.rotate_left(30), a, t);
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 20];
    for (chunk, x) in out.chunks_exact_mut(4).zip(h) {
        chunk.copy_from_slice(&x.to_be_bytes());
    }
    out
}

/// The 40 hex digits of a hash.
pub(super) fn hex(hash: &[u8; 20]) -> String {
    hash.iter().map(|b| format!("{b:02x}")).collect()
}

/// A C string's bytes: up to a NUL.
fn c_str(s: &[u8]) -> &[u8] {
    &s[..s.iter().position(|&b| b == 0).unwrap_or(s.len())]
}

/// `snprintf` into a buffer of `size` bytes: the text cut to `size - 1`.
fn cut(mut text: Vec<u8>, size: usize) -> Vec<u8> {
    text.truncate(size - 1);
    text
}

/// pminfo's `mysourcehash`: the metric source named by the context's
/// intrinsic labels.
pub(super) fn source(labels: &[u8]) -> [u8; 20] {
    let mut text = br#"{"series":"source","labels":"#.to_vec();
    text.extend_from_slice(c_str(labels));
    text.push(b'}');
    sha1(&text)
}

/// pminfo's `mymetrichash`: a metric by name, intrinsic labels and
/// descriptor.
pub(super) fn metric(name: &str, desc: &Desc, labels: &[u8]) -> [u8; 20] {
    let mut text = br#"{"series":"metric","name":""#.to_vec();
    text.extend_from_slice(c_str(name.as_bytes()));
    text.extend_from_slice(br#"","labels":"#);
    text.extend_from_slice(c_str(labels));
    let tail = format!(r#","semantics":"{}","type":"{}","units":"{}"}}"#, desc.sem.name(), desc.ty.name(), desc.units);
    text.extend_from_slice(tail.as_bytes());
    sha1(&cut(text, PM_MAXLABELJSONLEN + 256))
}

/// pminfo's `myinstancehash`: an instance by name and labels.
pub(super) fn instance(labels: &[u8], name: Option<&[u8]>) -> [u8; 20] {
    let mut text = br#"{"series":"instance","name":""#.to_vec();
    text.extend_from_slice(c_str(name.unwrap_or(b"???")));
    text.extend_from_slice(br#"","labels":"#);
    text.extend_from_slice(c_str(labels));
    text.push(b'}');
    sha1(&cut(text, PM_MAXLABELJSONLEN + 512))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha1_known_answers() {
        assert_eq!(hex(&sha1(b"")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(hex(&sha1(b"abc")), "a9993e364706816aba3e25717850c26c9cd0d89d");
        let long = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        assert_eq!(hex(&sha1(long)), "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
        assert_eq!(hex(&sha1(&[b'a'; 1000])), "291e9a6c66994949b57ba5e650361e98fc36b1ba");
    }
}
