//! Differential test of `pcp_core::support::cfmt` against glibc's `snprintf`.
//!
//! `tests/golden/printf.tsv` was written by `oracle/gen-printf.sh` (seed 1),
//! which runs `oracle/printf_oracle.c` against the C library: each line holds
//! a format, its `*` arguments (comma-separated, `-` for none), the double's
//! IEEE bits in hex and what `snprintf` printed (`\\`, `\t`, `\n` escaped).
//! Every line must come out byte for byte the same. Set `PCP_RS_PRINTF_GOLDEN`
//! to check another file, such as one made from a fresh seed.

mod common;

use pcp_core::support::cfmt::sprintf_f64_text;

#[test]
fn printf_matches_glibc() {
    let (path, committed) = common::golden_file("PCP_RS_PRINTF_GOLDEN", "printf.tsv");
    common::run_lines(&path, committed, 30_000, "printf", |cols| {
        if cols.len() != 4 {
            return Some("want 4 columns".to_string());
        }
        let fmt = String::from_utf8(common::unescape(cols[0])).expect("ASCII format");
        let star: Vec<i32> = match cols[1] {
            "-" => Vec::new(),
            s => s.split(',').map(|a| a.parse().expect("star argument")).collect(),
        };
        let v = f64::from_bits(u64::from_str_radix(cols[2], 16).expect("double bits"));
        let want = common::unescape(cols[3]);
        let got = sprintf_f64_text(&fmt, &star, v);
        (got.as_deref().map(str::as_bytes) != Some(want.as_slice())).then(|| {
            format!("printf({fmt:?}, {star:?}, {v:e}): got {got:?}, glibc {:?}", String::from_utf8_lossy(&want))
        })
    });
}
