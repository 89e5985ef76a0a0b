//! Host-context fetch benchmark (driven by scripts/bench-host.sh).
//!
//!   bench_fetch fetch SPEC N NAME...      N fetches over one context; prints seconds
//!   bench_fetch latency SPEC N NAME...    the same, each fetch timed: percentiles
//!   bench_fetch hosts SPEC K T NAME...    open K contexts to SPEC, then time one
//!                                         fetch round over all K with T threads
//!                                         (T = 1: sequential; T = 0: one thread
//!                                         sending every request before reading
//!                                         any reply, Context::fetch_all); prints
//!                                         "open_seconds round_seconds cpu_seconds"
//!
//! For `fetch`, SPEC `-L` is the local context (the built-in Linux
//! metrics, as the tools' `-L`).
//!
//! SPEC may be a comma-separated list of hosts (say `localhost:44400,
//! localhost:44401`): context i then goes to the (i mod list length)th.
//!
//! The round is repeated five times: round_seconds is the best wall time,
//! cpu_seconds this process's user+system CPU time per round (the mean,
//! from /proc/self/stat in clock ticks taken as 1/100 s; 0 where that file
//! is missing), i.e. the client's own cost apart from waiting for pmcd.

use pcp::Context;
use pcp_core::{PmError, PmId};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args.first().map(String::as_str) {
        Some("fetch") if args.len() >= 4 => fetch_loop(&args[1], &args[2], &args[3..]),
        Some("latency") if args.len() >= 4 => latency(&args[1], &args[2], &args[3..]),
        Some("hosts") if args.len() >= 5 => hosts(&args[1], &args[2], &args[3], &args[4..]),
        _ => {
            eprintln!("usage: bench_fetch fetch SPEC N NAME... | hosts SPEC K T NAME...");
            std::process::exit(1);
        }
    };
    if let Err(e) = r {
        eprintln!("bench_fetch: {e}");
        std::process::exit(1);
    }
}

fn count(s: &str) -> Result<usize, PmError> {
    s.parse().map_err(|_| PmError::PM_ERR_TOOSMALL)
}

fn lookup(ctx: &Context, names: &[String]) -> Result<Vec<PmId>, PmError> {
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let (ids, _) = ctx.lookup_names(&refs)?;
    if ids.iter().any(|id| id.is_null()) {
        return Err(PmError::PM_ERR_NAME);
    }
    Ok(ids)
}

fn fetch_loop(spec: &str, n: &str, names: &[String]) -> Result<(), PmError> {
    let n = count(n)?;
    let mut ctx = if spec == "-L" { Context::open_local()? } else { Context::open_host(spec)? };
    let ids = lookup(&ctx, names)?;
    let mut values = 0usize;
    let start = Instant::now();
    for _ in 0..n {
        let r = ctx.fetch(&ids)?;
        values += r.sets.len();
    }
    let secs = start.elapsed().as_secs_f64();
    if values != n * ids.len() {
        return Err(PmError::PM_ERR_VALUE);
    }
    println!("{secs:.6}");
    Ok(())
}

/// N fetches, each timed: prints the total and the 50th, 90th, 99th,
/// 99.9th percentile and the longest fetch, in microseconds.
fn latency(spec: &str, n: &str, names: &[String]) -> Result<(), PmError> {
    let n = count(n)?.max(1);
    let mut ctx = Context::open_host(spec)?;
    let ids = lookup(&ctx, names)?;
    let mut took = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        ctx.fetch(&ids)?;
        took.push(start.elapsed().as_secs_f64() * 1e6);
    }
    let total: f64 = took.iter().sum();
    took.sort_by(f64::total_cmp);
    let at = |q: f64| took[((n as f64 * q) as usize).min(n - 1)];
    println!(
        "total {:.3} s  p50 {:.0}  p90 {:.0}  p99 {:.0}  p99.9 {:.0}  max {:.0} us",
        total / 1e6,
        at(0.5),
        at(0.9),
        at(0.99),
        at(0.999),
        took[n - 1]
    );
    Ok(())
}

fn round(ctxs: &mut [Context], ids: &[PmId]) -> Result<(), PmError> {
    for c in ctxs {
        let r = c.fetch(ids)?;
        if r.sets.len() != ids.len() {
            return Err(PmError::PM_ERR_VALUE);
        }
    }
    Ok(())
}

fn hosts(spec: &str, k: &str, t: &str, names: &[String]) -> Result<(), PmError> {
    let k = count(k)?;
    let t = count(t)?;
    let specs: Vec<&str> = spec.split(',').collect();
    let start = Instant::now();
    let mut ctxs = Vec::with_capacity(k);
    for i in 0..k {
        ctxs.push(Context::open_host(specs[i % specs.len()])?);
    }
    let ids = match ctxs.first() {
        Some(c) => lookup(c, names)?,
        None => return Err(PmError::PM_ERR_TOOSMALL),
    };
    let open = start.elapsed().as_secs_f64();
    let chunk = k.div_ceil(t.max(1));
    let mut best = f64::INFINITY;
    let cpu0 = cpu_ticks();
    const ROUNDS: u32 = 5;
    for _ in 0..ROUNDS {
        let start = Instant::now();
        if t == 0 {
            for r in Context::fetch_all(&mut ctxs, &ids) {
                if r?.sets.len() != ids.len() {
                    return Err(PmError::PM_ERR_VALUE);
                }
            }
        } else if t == 1 {
            round(&mut ctxs, &ids)?;
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = ctxs.chunks_mut(chunk).map(|part| s.spawn(|| round(part, &ids))).collect();
                handles.into_iter().try_for_each(|h| h.join().unwrap_or(Err(PmError::PM_ERR_VALUE)))
            })?;
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    let cpu = cpu_ticks().saturating_sub(cpu0) as f64 / 100.0 / f64::from(ROUNDS);
    println!("{open:.6} {best:.6} {cpu:.6}");
    Ok(())
}

/// utime + stime of this process (all its threads, living or not), in
/// clock ticks; 0 when /proc is not there.
fn cpu_ticks() -> u64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0;
    };
    // Fields after the command name's closing parenthesis: state is the
    // 3rd field of the line, utime the 14th and stime the 15th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let field = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    field(11) + field(12)
}
