//! Time to register the definitions of a derived-metric configuration
//! file (`Registry::load_text`), in microseconds: the least and the
//! median of ROUNDS fresh registries.
//!
//! `cargo run --release -p pcp-derived --example load_bench -- FILE [ROUNDS]`
//! (`scripts/bench-derived.sh` makes such a file of 1,000 definitions.)

use pcp_derived::Registry;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: load_bench FILE [ROUNDS]");
        std::process::exit(1);
    };
    let rounds: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(200);
    let text = match std::fs::read(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("load_bench: {path}: {e}");
            std::process::exit(1);
        }
    };
    let mut times = Vec::with_capacity(rounds);
    let mut defined = 0;
    for _ in 0..rounds {
        let mut registry = Registry::new();
        let mut report = Vec::new();
        let start = Instant::now();
        defined = registry.load_text(path.as_bytes(), &text, &mut report);
        times.push(start.elapsed().as_secs_f64() * 1e6);
        std::hint::black_box(&registry);
    }
    times.sort_by(f64::total_cmp);
    println!("{defined} definitions: least {:.0} us, median {:.0} us", times[0], times[times.len() / 2]);
}
