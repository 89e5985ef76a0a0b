//! How long a new thread takes to start running while the thread that
//! started it keeps busy: `std::thread::Builder::spawn` against
//! `pcp_archive::thread::spawn`, alternated, in microseconds (least,
//! median, most). One thread is started per process, as the tools do:
//! this runs itself ROUNDS times (default 41) for each kind.
//!
//!   cargo run --release -p pcp-archive --example thread_start [ROUNDS]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Start one thread of `kind` and spin until it runs (at most 10 ms):
/// microseconds from before the spawn to the thread's first instruction.
fn once(kind: &str) -> f64 {
    let ran = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&ran);
    let start = Instant::now();
    let work = move || flag.store(true, Ordering::Release);
    let handle = match kind {
        "std" => std::thread::Builder::new().name("std".into()).spawn(work),
        _ => pcp_archive::thread::spawn("beside", work),
    }
    .expect("spawn");
    while !ran.load(Ordering::Acquire) && start.elapsed() < Duration::from_millis(10) {
        std::hint::spin_loop();
    }
    let took = start.elapsed().as_secs_f64() * 1e6;
    let _ = handle.join();
    took
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(kind) = args.get(1).and_then(|a| a.strip_prefix("--once=")) {
        println!("{}", once(kind));
        return;
    }
    let rounds: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(41);
    let me = std::env::current_exe().expect("current_exe");
    let mut times: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for _ in 0..rounds {
        for (k, kind) in ["std", "beside"].iter().enumerate() {
            let out = std::process::Command::new(&me).arg(format!("--once={kind}")).output().expect("run");
            if let Ok(t) = String::from_utf8_lossy(&out.stdout).trim().parse() {
                times[k].push(t);
            }
        }
    }
    for (k, kind) in ["std::thread::Builder::spawn", "pcp_archive::thread::spawn"].iter().enumerate() {
        let t = &mut times[k];
        t.sort_by(f64::total_cmp);
        if let (Some(least), Some(most)) = (t.first(), t.last()) {
            println!("{kind:28} least {least:7.0} median {:7.0} most {most:7.0} us", t[t.len() / 2]);
        }
    }
}
