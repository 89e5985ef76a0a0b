//! The PMAPI programmer's guide's "Handling PMAPI Errors": connect, look
//! up a metric, get its descriptor and fetch it, saying at each step what
//! failed, where, and why (in libpcp's words: `PmError`'s `Display` is
//! `pmErrStr`), and exiting non-zero.
//!
//!   cargo run -p pcp-pmapi --example handling_errors -- [HOST [METRIC]]
//!
//! With no pmcd on the host, or a metric it does not have, it says so.

use pcp::Context;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let host = args.first().map_or("localhost", String::as_str);
    let metric = args.get(1).map_or("kernel.all.load", String::as_str);
    let mut ctx = match Context::host(host).open() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("Error connecting to pmcd on {host}: {e}");
            std::process::exit(1);
        }
    };
    let pmid = match ctx.lookup(metric) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("Error looking up {metric}: {e}");
            std::process::exit(1);
        }
    };
    let desc = match ctx.lookup_desc(pmid) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("Error getting descriptor for {host}:{metric}: {e}");
            std::process::exit(1);
        }
    };
    let result = match ctx.fetch(&[pmid]) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("Error fetching {host}:{metric}: {e}");
            std::process::exit(1);
        }
    };
    match &result.sets[0].values {
        Ok(values) => println!("{host}:{metric}: {} value(s) of type {}", values.len(), desc.ty),
        Err(e) => {
            eprintln!("Error fetching {host}:{metric}: {e}");
            std::process::exit(1);
        }
    }
}
