//! Archive reading traces (`-Dlog`, `-Dinterp` with `log` or
//! `desperate`) against the C tools' over the fixture archives.
//!
//! Opening an archive under `-Dlog` traces each file of its directory in
//! the directory's order, and the file descriptors of its index and
//! metadata follow that order: those lines differ from one file system to
//! another, so before comparing, the `__pmLogOpen: inspect file` and
//! `__pmFopen` lines are left out and `__pmLogChkLabel`'s descriptor reads
//! `fd=N`. The addresses libpcp prints (its read cache's, its results') are
//! numbered `<addr-N>` in order of appearance, and a value held in a block
//! (`v=??? (lval=N)`, half its address) reads `lval=N`. Each case is
//! `tests/log_trace/TOOL/NAME.cmd` in the golden cases' format;
//! `PCP_RS_RECORD=1` records the filtered outputs of the C tool beside it
//! (`PCP_RS_ONLY=TEXT`: only the cases whose path holds TEXT).

#[path = "common/case.rs"]
mod case;

use case::compare_filtered;
use std::path::PathBuf;

/// `text` with what differs between runs and file systems masked.
fn filtered(text: &[u8]) -> Vec<u8> {
    let s = String::from_utf8_lossy(text);
    let mut seen: Vec<String> = Vec::new();
    let mut out = String::with_capacity(s.len());
    for line in s.split_inclusive('\n') {
        if line.starts_with("__pmLogOpen: inspect file ") || line.starts_with("__pmFopen(") {
            continue;
        }
        let mut line = line.to_string();
        if let Some(rest) = line.strip_prefix("__pmLogChkLabel: fd=") {
            let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
            line = format!("__pmLogChkLabel: fd=N{rest}");
        }
        if let Some(i) = line.find("v=??? (lval=") {
            let mut masked = String::new();
            let mut rest = line.as_str();
            let mut at = Some(i);
            while let Some(i) = at {
                let head = i + "v=??? (lval=".len();
                masked.push_str(&rest[..head]);
                masked.push('N');
                rest = rest[head..].trim_start_matches(|c: char| c.is_ascii_digit() || c == '-');
                at = rest.find("v=??? (lval=");
            }
            masked.push_str(rest);
            line = masked;
        }
        // addresses, numbered in order of appearance
        let mut masked = String::with_capacity(line.len());
        let mut rest = line.as_str();
        while let Some(i) = rest.find("0x") {
            let addr: String =
                rest[i..].chars().take(2).chain(rest[i + 2..].chars().take_while(char::is_ascii_hexdigit)).collect();
            masked.push_str(&rest[..i]);
            // (only where libpcp prints an address: a result dump's is
            // ADDR, as ours prints one address for every dump)
            if rest[..i].ends_with("dump from ") {
                masked.push_str("ADDR");
            } else if line.starts_with("read cache entry ") {
                let n = seen.iter().position(|a| *a == addr).unwrap_or_else(|| {
                    seen.push(addr.clone());
                    seen.len() - 1
                });
                masked.push_str(&format!("<addr-{n}>"));
            } else {
                masked.push_str(&addr);
            }
            rest = &rest[i + addr.len()..];
        }
        masked.push_str(rest);
        out.push_str(&masked);
    }
    out.into_bytes()
}

#[test]
fn traces_match_the_c_tools() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/log_trace");
    let run = |tool: &str| match tool {
        "pminfo" => pcp_tools::pminfo::run,
        "pmprobe" => pcp_tools::pmprobe::run,
        "pmval" => pcp_tools::pmval::run,
        _ => panic!("trace cases for unknown tool {tool}"),
    };
    let (checked, failures) = compare_filtered(&root, run, filtered);
    assert!(checked > 0 || std::env::var_os("PCP_RS_ONLY").is_some(), "no trace cases found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_filter_masks_what_the_directory_and_the_run_decide() {
    let text = b"__pmLogOpen: inspect file \"a.0\"\n__pmFopen(\"a.index\", \"r\"): no decompress\n\
                 __pmLogChkLabel: fd=5 vol=-1 [magic=0x50052603 version=3]\n\
                 update_bounds: update: pmid 29.0.31: t_prior=0.019907 v=??? (lval=-1312686244) t_next=1.0 v=??? (lval=12)\n\
                 read cache entry 0x55aa10: c_name=./v3 rp=0x55bb20\nread cache entry 0x55aa48: c_name=(none) rp=(nil)\n";
    assert_eq!(
        String::from_utf8_lossy(&filtered(text)),
        "__pmLogChkLabel: fd=N vol=-1 [magic=0x50052603 version=3]\n\
         update_bounds: update: pmid 29.0.31: t_prior=0.019907 v=??? (lval=N) t_next=1.0 v=??? (lval=N)\n\
         read cache entry <addr-0>: c_name=./v3 rp=<addr-1>\nread cache entry <addr-2>: c_name=(none) rp=(nil)\n"
    );
}
