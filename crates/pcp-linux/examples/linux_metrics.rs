//! Print the Linux metrics as `pminfo` would print them from a local
//! context, for the live differential (scripts/linux-differential.sh):
//!
//! - `linux_metrics desc [NAME...]`: `pminfo -dmT` (all metrics by default)
//! - `linux_metrics fetch [--root DIR] [NAME...]`: one fetch of the
//!   metrics, `pminfo -f` style
//! - `linux_metrics names`: every metric name, one a line
//! - `linux_metrics computed`: the names of the metrics whose values
//!   pcp-linux computes (`pcp_linux::computes`), one a line
//! - `linux_metrics indoms`: the instance domains of the metrics
//!   pcp-linux computes, `60.N`
//! - `linux_metrics table`: name, semantics and type, tab separated
//! - `linux_metrics bench N [NAME...]`: N fetches; the seconds they took
//!   and the CPU seconds (user and system) this process used, on stdout

use pcp_core::{PmId, Timestamp};
use pcp_linux::{metric_by_name, metrics, LinuxSource, MetricDef, Options, RootFiles};
use std::io::Write;

#[path = "../tests/common/render.rs"]
mod render;
use render::{desc, fetch};
use std::process::ExitCode;

fn defs(names: &[String]) -> Result<Vec<&'static MetricDef>, String> {
    if names.is_empty() {
        return Ok(metrics().iter().collect());
    }
    names.iter().map(|n| metric_by_name(n).ok_or_else(|| format!("{n}: Unknown metric name"))).collect()
}

/// This process's user and system CPU time so far (/proc/self/stat's
/// utime and stime, in clock ticks).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(") ").map_or("", |(_, rest)| rest);
    let f: Vec<f64> = after.split(' ').skip(11).take(2).filter_map(|x| x.parse().ok()).collect();
    let hz = rustix::param::clock_ticks_per_second() as f64;
    f.iter().sum::<f64>() / hz
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        eprintln!("usage: linux_metrics desc|fetch|names|bench [--root DIR] [NAME...]");
        return ExitCode::from(2);
    }
    let mode = args.remove(0);
    let mut root = None;
    if args.first().map(String::as_str) == Some("--root") && args.len() > 1 {
        root = Some(args.remove(1));
        args.remove(0);
    }
    let mut count = 1u32;
    if mode == "bench" {
        count = args.first().and_then(|a| a.parse().ok()).unwrap_or(1);
        if !args.is_empty() {
            args.remove(0);
        }
    }
    let defs = match defs(&args) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(1);
        }
    };
    let mut src = match root {
        Some(r) => LinuxSource::with_files(
            RootFiles::snapshot(r),
            Options {
                hz: 100,
                page_size: 4096,
                ncpus: None,
                pmda_cache_dir: None,
                mdadm: pcp_linux::MDADM.into(),
                single_node: false,
            },
        ),
        None => LinuxSource::with_files(RootFiles::new("/"), Options::from_system()),
    };
    let mut out = Vec::new();
    match mode.as_str() {
        "desc" => desc(&mut out, &defs),
        "names" => {
            for d in &defs {
                out.extend_from_slice(d.name.as_bytes());
                out.push(b'\n');
            }
        }
        "computed" => {
            for d in defs.iter().filter(|d| pcp_linux::computes(d.pmid)) {
                out.extend_from_slice(d.name.as_bytes());
                out.push(b'\n');
            }
        }
        "indoms" => {
            let mut serials: Vec<u32> =
                defs.iter().filter(|d| pcp_linux::computes(d.pmid)).filter_map(|d| d.indom).collect();
            serials.sort_unstable();
            serials.dedup();
            for serial in serials {
                let _ = writeln!(out, "{}", pcp_core::InDom::new(pcp_linux::LINUX_DOMAIN, serial));
            }
        }
        "fetch" => fetch(&mut out, &mut src, &defs),
        "table" => {
            for d in &defs {
                let _ = writeln!(out, "{}\t{}\t{}", d.name, d.sem, d.ty);
            }
        }
        "bench" => {
            let pmids: Vec<PmId> = defs.iter().map(|d| d.pmid).collect();
            let cpu0 = cpu_seconds();
            let start = std::time::Instant::now();
            for _ in 0..count {
                let r = src.fetch(&pmids, Timestamp::default(), &|_, _| true);
                std::hint::black_box(r);
            }
            let wall = start.elapsed().as_secs_f64();
            let _ = writeln!(out, "{wall:.6} {:.6}", cpu_seconds() - cpu0);
        }
        _ => {
            eprintln!("unknown mode {mode}");
            return ExitCode::from(2);
        }
    }
    let _ = std::io::stdout().write_all(&out);
    ExitCode::SUCCESS
}
