//! The floor under a local fetch: how long the kernel takes to produce
//! each file a fetch reads, with nothing parsed (open, read into a reused
//! buffer, close), and how long listing /proc takes.
//!
//! `read_floor N PATH...`: N rounds; per path the mean microseconds of
//! one read, then the total of one round. A path ending in `/` is a
//! directory, listed with `getdents64` into a reused buffer; `netlink:`
//! is the two netlink dumps the interface values come from (through
//! `RootFiles`, parsing included), `statfs:PATH` a `statfs`, and
//! `exists:PATH` an `access` check.

use pcp_linux::{Files, RootFiles};
use std::io::Read;
use std::mem::MaybeUninit;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((n, paths)) = args.split_first() else {
        eprintln!("usage: read_floor N PATH...");
        std::process::exit(2);
    };
    let n: u32 = n.parse().unwrap_or(1000).max(1);
    let mut buf = Vec::with_capacity(1 << 16);
    let mut dbuf = vec![MaybeUninit::<u8>::uninit(); 1 << 16];
    let mut total = 0.0;
    let root = RootFiles::new("/");
    for p in paths {
        let start = Instant::now();
        let mut bytes = 0usize;
        for _ in 0..n {
            if p == "netlink:" {
                bytes += root.net_links().map_or(0, |l| l.links.len());
            } else if let Some(path) = p.strip_prefix("statfs:") {
                bytes += usize::from(root.statfs(path).is_ok());
            } else if let Some(path) = p.strip_prefix("exists:") {
                bytes += usize::from(root.exists(path));
            } else if p.ends_with('/') {
                let Ok(fd) = rustix::fs::open(
                    p.as_str(),
                    rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::CLOEXEC,
                    rustix::fs::Mode::empty(),
                ) else {
                    continue;
                };
                let mut d = rustix::fs::RawDir::new(&fd, &mut dbuf);
                while let Some(Ok(e)) = d.next() {
                    bytes += usize::from(e.file_name().to_bytes().first().is_some_and(u8::is_ascii_digit));
                }
            } else {
                buf.clear();
                if let Ok(mut f) = std::fs::File::open(p) {
                    let mut chunk = [0u8; 8192];
                    while let Ok(k) = f.read(&mut chunk) {
                        if k == 0 {
                            break;
                        }
                        buf.extend_from_slice(&chunk[..k]);
                    }
                }
                bytes += buf.len();
            }
        }
        let us = start.elapsed().as_secs_f64() * 1e6 / f64::from(n);
        total += us;
        println!("{us:8.1} us  {p} ({} bytes or entries)", bytes / n as usize);
    }
    println!("{total:8.1} us  one round of {} paths", paths.len());
    // the CPU this process used (/proc/self/stat's utime and stime)
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(") ").map_or("", |(_, rest)| rest);
    let ticks: f64 = after.split(' ').skip(11).take(2).filter_map(|x| x.parse::<f64>().ok()).sum();
    let cpu = ticks / rustix::param::clock_ticks_per_second() as f64;
    let rounds = f64::from(n) * 1e-6;
    println!("{:8.1} us  CPU (user and system) a round", cpu / rounds);
}
