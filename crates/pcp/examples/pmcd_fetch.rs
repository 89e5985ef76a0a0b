//! Fetch metrics from a real pmcd through a host context and print them as
//! `pminfo -f` does (leaf names only, no help): the live check of the
//! host context in scripts/differential.sh.
//!
//!   cargo run -p pcp-pmapi --example pmcd_fetch -- HOST NAME...

use pcp::Context;
use pcp_core::format::print_value;
use pcp_core::PmError;
use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((host, names)) = args.split_first() else {
        eprintln!("usage: pmcd_fetch HOST NAME...");
        std::process::exit(1);
    };
    if let Err(e) = run(host, names) {
        eprintln!("pmcd_fetch: {e}");
        std::process::exit(1);
    }
}

fn run(host: &str, names: &[String]) -> Result<(), PmError> {
    let mut ctx = Context::open_host(host)?;
    for w in ctx.host_source().map(|h| h.warnings().to_vec()).unwrap_or_default() {
        eprintln!("{w}");
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let (ids, _) = ctx.lookup_names(&refs)?;
    let mut out = Vec::new();
    for (name, &pmid) in names.iter().zip(&ids) {
        writeln!(out).ok();
        if pmid.is_null() {
            writeln!(out, "{name}: {}", PmError::PM_ERR_NAME).ok();
            continue;
        }
        let desc = ctx.lookup_desc(pmid)?;
        let r = ctx.fetch(&[pmid])?;
        writeln!(out, "{name}").ok();
        let values = match &r.sets[0].values {
            Ok(v) => v,
            Err(e) => {
                writeln!(out, "Error: {e}").ok();
                continue;
            }
        };
        for v in values {
            let mut text = Vec::new();
            print_value(&mut text, &v.value, desc.ty, 1)?;
            if desc.indom.is_null() {
                writeln!(out, "    value {}", String::from_utf8_lossy(&text)).ok();
                continue;
            }
            let inst_name = ctx.name_indom(desc.indom, v.inst)?;
            writeln!(
                out,
                "    inst [{} or \"{}\"] value {}",
                v.inst,
                String::from_utf8_lossy(&inst_name),
                String::from_utf8_lossy(&text)
            )
            .ok();
        }
    }
    std::io::stdout().write_all(&out).ok();
    Ok(())
}
