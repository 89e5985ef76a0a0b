//! `pmerr`: translate PCP error codes to their texts, or list them all.

use pcp_core::err_str;
use pcp_core::error::ERROR_TABLE;
use std::ffi::OsString;
use std::io::Write;

use crate::cscanf::{scan_decimal_int, scan_hex_digits};

const USAGE: &str = "Usage: pmerr [options] [code]\n\n  -l, --list   causes all known error codes to be listed\n";

/// Run `pmerr` with `args` (including the program name).
///
/// Codes are decimal or `0x` hexadecimal; a positive code is taken as its
/// negative. `-l`/`--list` as the first argument lists every PMAPI error
/// code (and, as PCP's pmerr does, exits 1).
pub fn run(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    // a write error (other than a closed pipe, handled by the caller) ends
    // the tool with a failure status
    run_inner(args, out, err).unwrap_or(1)
}

fn run_inner(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<i32> {
    let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_encoded_bytes().to_vec()).collect();
    if let Some(first) = args.get(1) {
        match first.as_slice() {
            b"-l" | b"--list" => {
                writeln!(out, "  Code  Symbolic Name          Message")?;
                for e in ERROR_TABLE {
                    writeln!(out, "{:6}  {:<22} {}", e.code, e.symbol, e.message)?;
                }
                return Ok(1);
            }
            b"-?" | b"--help" => {
                err.write_all(USAGE.as_bytes())?;
                return Ok(1);
            }
            [b'-', rest @ ..] if !rest.first().is_some_and(u8::is_ascii_hexdigit) => {
                err.write_all(b"Illegal option -- ")?;
                err.write_all(rest)?;
                err.write_all(b"\n")?;
                err.write_all(USAGE.as_bytes())?;
                return Ok(1);
            }
            _ => {}
        }
    }
    for arg in args.iter().skip(1) {
        let hex = match arg.as_slice() {
            [b'0', b'x' | b'X', digits @ ..] if digits.iter().all(u8::is_ascii_hexdigit) => {
                scan_hex_digits(digits).map(|v| v as i32)
            }
            _ => None,
        };
        let Some(mut code) = hex.or_else(|| scan_decimal_int(arg)) else {
            out.write_all(b"Cannot decode \"")?;
            out.write_all(arg)?;
            out.write_all(b"\" - neither decimal nor hexadecimal\n")?;
            continue;
        };
        if code > 0 {
            code = -code;
            writeln!(out, "Code is positive, assume you mean {code}")?;
        }
        writeln!(out, "Code: {code} 0x{:x} Text: {}", code as u32, err_str(code))?;
    }
    Ok(0)
}
