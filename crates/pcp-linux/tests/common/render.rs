//! `pminfo -dmT` and `pminfo -f` renderings of the Linux metrics, shared
//! by the snapshot tests and the `linux_metrics` example.

use pcp_core::format::print_value;
use pcp_core::{PmId, Timestamp};
use pcp_linux::{Files, LinuxSource, MetricDef};
use std::io::Write;

/// `pminfo -dmT NAME...`.
#[allow(dead_code)] // the tests render values only
pub fn desc(out: &mut Vec<u8>, defs: &[&MetricDef]) {
    for d in defs {
        let _ = write!(out, "\n{} PMID: {}\n{}", d.name, d.pmid, d.desc());
        let text = d.text(true).trim_end_matches('\n');
        if text.is_empty() {
            let _ = writeln!(out, "Help: <empty entry>");
        } else {
            let _ = writeln!(out, "Help:\n{text}");
        }
    }
}

/// `pminfo -f NAME...` with every metric in one fetch.
pub fn fetch<F: Files>(out: &mut Vec<u8>, src: &mut LinuxSource<F>, defs: &[&MetricDef]) {
    let pmids: Vec<PmId> = defs.iter().map(|d| d.pmid).collect();
    let r = src.fetch(&pmids, Timestamp::default(), &|_, _| true);
    for (d, set) in defs.iter().zip(&r.sets) {
        let _ = writeln!(out, "\n{}", d.name);
        let vals = match &set.values {
            Err(e) => {
                let _ = writeln!(out, "Error: {}", e.text());
                continue;
            }
            Ok(v) => v,
        };
        if vals.is_empty() {
            let _ = writeln!(out, "No value(s) available!");
            continue;
        }
        let indom = d.desc().indom;
        let names = if indom.is_null() { Vec::new() } else { src.instances(indom).unwrap_or_default() };
        for v in vals {
            if indom.is_null() {
                let _ = write!(out, "    value ");
            } else {
                let name = names.iter().find(|(i, _)| *i == v.inst).map_or("???", |(_, n)| n.as_str());
                let _ = write!(out, "    inst [{} or \"{}\"] value ", v.inst, name);
            }
            let _ = print_value(out, &v.value, d.ty, 1);
            out.push(b'\n');
        }
    }
}
