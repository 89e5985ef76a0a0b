//! `-v FILE`: a raw dump of any archive file.

use pcp_core::PmError;
use std::io::{Read, Write};

/// `-v FILE`: every record of any archive file, in hex.
pub(super) fn raw_dump(out: &mut dyn Write, err: &mut dyn Write, file: &[u8]) -> std::io::Result<i32> {
    let name = String::from_utf8_lossy(file);
    let path = std::path::PathBuf::from(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(file));
    let f = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) => {
            let e = PmError::from_errno(e.raw_os_error().unwrap_or(2));
            writeln!(err, "pmdumplog: Cannot open \"{name}\": {e}")?;
            return Ok(1);
        }
    };
    writeln!(out, "Raw dump of physical archive file \"{name}\" ...")?;
    let mut input = std::io::BufReader::with_capacity(1 << 16, f);
    let mut pos: u64 = 0;
    let mut buf = Vec::with_capacity(1 << 16);
    let mut word = [0u8; 4];
    loop {
        if read_full(&mut input, &mut word) != 4 {
            break;
        }
        pos += 4;
        let len = i32::from_be_bytes(word);
        buf.clear();
        let _ = write!(buf, "Dump ... record len: {len} @ offset: {}", pos - 4);
        let body = len.wrapping_sub(8);
        let mut i: i32 = 0;
        let mut byte = [0u8; 1];
        while i < body {
            if read_full(&mut input, &mut byte) != 1 {
                buf.extend_from_slice(b"Unexpected EOF\n");
                break;
            }
            pos += 1;
            if i % 32 == 0 {
                buf.push(b'\n');
            }
            if i % 4 == 0 {
                buf.push(b' ');
            }
            let _ = write!(buf, "{:02x}", byte[0]);
            i += 1;
        }
        buf.push(b'\n');
        out.write_all(&buf)?;
        let n = read_full(&mut input, &mut word);
        if n != 4 {
            if n == 0 {
                out.write_all(b"Unexpected EOF\n")?;
            }
            break;
        }
        pos += 4;
        let check = i32::from_be_bytes(word);
        let len = body.wrapping_add(8);
        if check != len {
            writeln!(out, "Trailer botch: {check} != {len}")?;
            break;
        }
    }
    Ok(0)
}

/// Read until `buf` is full or the input ends (or fails); how many came.
fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> usize {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => got += n,
        }
    }
    got
}
