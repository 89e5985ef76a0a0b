//! The Rust side of `scripts/bench.sh`: pcp-core's `Units` display,
//! `parse_units` and `err_str` over the inputs of the golden files, in
//! nanoseconds per call, with the same skips and loop counts as
//! `bench/core_bench.c`.
//!
//! `cargo run --release -p pcp-core --example core_bench -- [DIR [ROUNDS]]`

use pcp_core::{err_str, parse_units, Units};
use std::hint::black_box;
use std::time::Instant;

fn col0(dir: &str, file: &str) -> Vec<String> {
    let text = std::fs::read_to_string(format!("{dir}/{file}")).expect("golden file");
    text.lines().map(|l| l.split('\t').next().unwrap_or("").to_string()).collect()
}

fn unhex(s: &str) -> String {
    if s == "-" {
        return String::new();
    }
    let bytes: Vec<u8> =
        (0..s.len() / 2).map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap_or(b'?')).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = args.get(1).map_or("crates/pcp-core/tests/golden", String::as_str);
    let rounds: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(20);
    let units = col0(dir, "units.tsv");
    let parse: Vec<String> = col0(dir, "parse.tsv").iter().map(|s| unhex(s)).collect();
    let errs = col0(dir, "err.tsv");
    let mut sink = 0usize;

    let t0 = Instant::now();
    for _ in 0..rounds {
        for u in &units {
            let x = u32::from_str_radix(u, 16).unwrap_or(0);
            sink += black_box(Units::from_u32(x).to_string()).len();
        }
    }
    println!("units_str {:.1}", t0.elapsed().as_nanos() as f64 / (rounds * units.len()) as f64);

    let t0 = Instant::now();
    for _ in 0..rounds {
        for p in &parse {
            if p.to_ascii_lowercase().contains("time-") {
                continue; // as the C side, which may abort on these
            }
            sink += black_box(parse_units(p)).is_ok() as usize;
        }
    }
    println!("parse_units {:.1}", t0.elapsed().as_nanos() as f64 / (rounds * parse.len()) as f64);

    let t0 = Instant::now();
    for _ in 0..rounds {
        for e in &errs {
            sink += black_box(err_str(e.parse().unwrap_or(0))).len();
        }
    }
    println!("err_str {:.1}", t0.elapsed().as_nanos() as f64 / (rounds * errs.len()) as f64);
    eprintln!("sink {sink}");
}
