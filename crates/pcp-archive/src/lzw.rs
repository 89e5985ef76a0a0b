//! The old Unix `compress` format (`.Z`, LZW), which PCP reads by piping
//! `.Z` and `.z` files through `gzip -dc`.
//!
//! A `compress` stream is the magic `1f 9d`, a flags byte (the largest
//! code width, 9 to 16 bits, and the "block mode" bit that makes code 256
//! a table reset), then variable-width codes packed least significant bit
//! first. Codes come in groups of eight: when the width grows, or the
//! table is reset, the rest of the current group is skipped.

use std::io::{self, Read};

const MAGIC: [u8; 2] = [0x1f, 0x9d];
const BLOCK_MODE: u8 = 0x80;
const CLEAR: u16 = 256;
const INIT_BITS: u32 = 9;
const MAX_BITS: u32 = 16;

fn corrupt(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("compress data: {what}"))
}

/// Is this the start of a `compress` stream?
pub fn is_compress(head: &[u8]) -> bool {
    head.starts_with(&MAGIC)
}

/// Decompresses a `compress` (LZW) stream as it is read.
pub struct LzwDecoder<R: Read> {
    input: R,
    started: bool,
    done: bool,
    block_mode: bool,
    max_bits: u32,
    n_bits: u32,
    /// Pending input bits (low bits first) and how many there are.
    bitbuf: u64,
    nbits: u32,
    /// Codes read at the current width since the last group boundary.
    in_group: u32,
    free_ent: u32,
    maxcode: u32,
    oldcode: Option<u16>,
    finchar: u8,
    prefix: Vec<u16>,
    suffix: Vec<u8>,
    /// Decoded bytes not handed out yet.
    pending: Vec<u8>,
    pending_at: usize,
    eof: bool,
}

impl<R: Read> LzwDecoder<R> {
    /// Decode the `compress` stream `input`, from its magic number on.
    pub fn new(input: R) -> LzwDecoder<R> {
        LzwDecoder {
            input,
            started: false,
            done: false,
            block_mode: false,
            max_bits: MAX_BITS,
            n_bits: INIT_BITS,
            bitbuf: 0,
            nbits: 0,
            in_group: 0,
            free_ent: 0,
            maxcode: (1 << INIT_BITS) - 1,
            oldcode: None,
            finchar: 0,
            prefix: vec![0; 1 << MAX_BITS],
            suffix: (0..1u32 << MAX_BITS).map(|i| i as u8).collect(),
            pending: Vec::new(),
            pending_at: 0,
            eof: false,
        }
    }

    fn read_byte(&mut self) -> io::Result<Option<u8>> {
        let mut b = [0u8; 1];
        loop {
            return match self.input.read(&mut b) {
                Ok(0) => Ok(None),
                Ok(_) => Ok(Some(b[0])),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => Err(e),
            };
        }
    }

    fn start(&mut self) -> io::Result<()> {
        let mut head = [0u8; 3];
        for h in head.iter_mut() {
            *h = self.read_byte()?.ok_or_else(|| corrupt("short header"))?;
        }
        if head[..2] != MAGIC {
            return Err(corrupt("not in compress format"));
        }
        self.max_bits = u32::from(head[2] & 0x1f);
        if !(INIT_BITS..=MAX_BITS).contains(&self.max_bits) {
            return Err(corrupt("unsupported code width"));
        }
        self.block_mode = head[2] & BLOCK_MODE != 0;
        self.free_ent = if self.block_mode { 257 } else { 256 };
        self.started = true;
        Ok(())
    }

    /// The next code, or `None` when no whole code is left.
    fn code(&mut self) -> io::Result<Option<u16>> {
        while self.nbits < self.n_bits {
            match self.read_byte()? {
                Some(b) => {
                    self.bitbuf |= u64::from(b) << self.nbits;
                    self.nbits += 8;
                }
                None => return Ok(None),
            }
        }
        let code = (self.bitbuf & ((1 << self.n_bits) - 1)) as u16;
        self.bitbuf >>= self.n_bits;
        self.nbits -= self.n_bits;
        self.in_group = (self.in_group + 1) % 8;
        Ok(Some(code))
    }

    /// Skip the rest of the current group of eight codes.
    fn skip_group(&mut self) -> io::Result<()> {
        if self.in_group != 0 {
            let mut skip = (8 - self.in_group) * self.n_bits;
            self.in_group = 0;
            while skip > 0 {
                if self.nbits == 0 {
                    match self.read_byte()? {
                        Some(b) => {
                            self.bitbuf = u64::from(b);
                            self.nbits = 8;
                        }
                        None => return Ok(()),
                    }
                }
                let n = skip.min(self.nbits);
                self.bitbuf >>= n;
                self.nbits -= n;
                skip -= n;
            }
        }
        Ok(())
    }

    /// Decode codes until some output is pending or the input ends.
    fn step(&mut self) -> io::Result<()> {
        if !self.started {
            self.start()?;
        }
        let maxmaxcode = 1u32 << self.max_bits;
        while self.pending_at >= self.pending.len() && !self.eof {
            if self.free_ent > self.maxcode {
                self.skip_group()?;
                self.n_bits += 1;
                self.maxcode = if self.n_bits == self.max_bits { maxmaxcode } else { (1 << self.n_bits) - 1 };
            }
            let Some(code) = self.code()? else {
                self.eof = true;
                break;
            };
            let Some(old) = self.oldcode else {
                if code >= 256 {
                    return Err(corrupt("bad first code"));
                }
                self.finchar = code as u8;
                self.oldcode = Some(code);
                self.pending.clear();
                self.pending.push(code as u8);
                self.pending_at = 0;
                continue;
            };
            if code == CLEAR && self.block_mode {
                self.prefix[..256].fill(0);
                self.free_ent = 256;
                self.skip_group()?;
                self.n_bits = INIT_BITS;
                self.maxcode = (1 << INIT_BITS) - 1;
                continue;
            }
            let incode = code;
            let mut stack = Vec::new();
            let mut c = u32::from(code);
            if c >= self.free_ent {
                if c > self.free_ent {
                    return Err(corrupt("bad code"));
                }
                stack.push(self.finchar);
                c = u32::from(old);
            }
            while c >= 256 {
                stack.push(self.suffix[c as usize]);
                c = u32::from(self.prefix[c as usize]);
                if stack.len() > 1 << MAX_BITS {
                    return Err(corrupt("loop in the code table"));
                }
            }
            self.finchar = self.suffix[c as usize];
            stack.push(self.finchar);
            stack.reverse();
            self.pending = stack;
            self.pending_at = 0;
            if self.free_ent < maxmaxcode {
                self.prefix[self.free_ent as usize] = old;
                self.suffix[self.free_ent as usize] = self.finchar;
                self.free_ent += 1;
            }
            self.oldcode = Some(incode);
        }
        Ok(())
    }
}

impl<R: Read> Read for LzwDecoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.done || buf.is_empty() {
            return Ok(0);
        }
        let mut n = 0;
        while n < buf.len() {
            if self.pending_at >= self.pending.len() {
                if self.eof {
                    break;
                }
                self.step()?;
                continue;
            }
            let take = (buf.len() - n).min(self.pending.len() - self.pending_at);
            buf[n..n + take].copy_from_slice(&self.pending[self.pending_at..self.pending_at + take]);
            self.pending_at += take;
            n += take;
        }
        if n == 0 {
            self.done = true;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `compress` encoder written from the format description, to test
    /// the decoder against. Its output for the data below, at 9, 12 and
    /// 16 bits, with and without table resets, was checked once to
    /// decompress with `gzip -dc` (what PCP uses); the `.Z` golden fixture
    /// checks that path on every differential run.
    fn compress(data: &[u8], max_bits: u32, clear_every: Option<usize>) -> Vec<u8> {
        struct Bits {
            out: Vec<u8>,
            buf: u64,
            n: u32,
            in_group: u32,
        }
        impl Bits {
            fn emit(&mut self, code: u32, width: u32) {
                self.buf |= u64::from(code) << self.n;
                self.n += width;
                self.in_group = (self.in_group + 1) % 8;
                while self.n >= 8 {
                    self.out.push(self.buf as u8);
                    self.buf >>= 8;
                    self.n -= 8;
                }
            }
            /// Pad out the group of eight codes (compress flushes whole groups).
            fn pad(&mut self, width: u32) {
                while self.in_group != 0 {
                    self.emit(0, width);
                }
            }
        }
        let mut b = Bits { out: vec![0x1f, 0x9d, 0x80 | max_bits as u8], buf: 0, n: 0, in_group: 0 };
        let mut table: std::collections::HashMap<(u32, u8), u32> = std::collections::HashMap::new();
        let (mut n_bits, mut free_ent, mut emitted) = (INIT_BITS, 257u32, 0usize);
        // as compress does: the largest code only counts once the width
        // has grown to the maximum
        let mut maxcode = (1u32 << INIT_BITS) - 1;
        let Some((&first, rest)) = data.split_first() else { return b.out };
        let mut w = u32::from(first);
        for &c in rest {
            if let Some(&code) = table.get(&(w, c)) {
                w = code;
                continue;
            }
            b.emit(w, n_bits);
            emitted += 1;
            // widen after the code that takes the table past this width
            if free_ent > maxcode {
                b.pad(n_bits);
                n_bits += 1;
                maxcode = if n_bits == max_bits { 1 << max_bits } else { (1 << n_bits) - 1 };
            }
            if free_ent < 1 << max_bits {
                table.insert((w, c), free_ent);
                free_ent += 1;
            }
            if clear_every.is_some_and(|k| emitted % k == 0) {
                b.emit(u32::from(CLEAR), n_bits);
                b.pad(n_bits);
                n_bits = INIT_BITS;
                maxcode = (1 << INIT_BITS) - 1;
                table.clear();
                free_ent = 257;
            }
            w = u32::from(c);
        }
        b.emit(w, n_bits);
        if b.n > 0 {
            b.out.push(b.buf as u8);
        }
        b.out
    }

    fn decode(z: &[u8]) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        LzwDecoder::new(z).read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn round_trips_through_width_changes() {
        let mut data = Vec::new();
        for i in 0..60_000u32 {
            data.extend_from_slice(format!("{} ", (i * 7919) % 1013).as_bytes());
        }
        for bits in [9, 12, 16] {
            assert_eq!(decode(&compress(&data, bits, None)).unwrap(), data, "{bits} bits");
            assert_eq!(decode(&compress(&data, bits, Some(5000))).unwrap(), data, "{bits} bits, clears");
        }
        assert_eq!(decode(&compress(b"abababababab", 16, None)).unwrap(), b"abababababab");
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(decode(b"\x1f\x8b\x08").is_err());
        assert!(decode(b"\x1f\x9d\x90\xff\xff\xff\xff").is_err());
        assert!(decode(b"\x1f\x9d").is_err());
    }

    proptest::proptest! {
        #[test]
        fn never_panics(data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300)) {
            let mut z = vec![0x1f, 0x9d, 0x90];
            z.extend_from_slice(&data);
            let _ = decode(&z);
        }
    }
}
