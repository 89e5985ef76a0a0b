//! Fetch metrics from a real pmcd over pcp's PmcdConnection and print them
//! as `pminfo -f` does (leaf names only, no derived metrics, no help):
//! the live check of the transport in scripts/differential.sh.
//!
//!   cargo run -p pcp --example pmcd_fetch -- HOST NAME...

use pcp::transport::{self, PmcdConnection, Timeouts};
use pcp_core::format::print_value;
use pcp_core::PmError;
use pcp_pdu::handshake::ClientOptions;
use pcp_pdu::{Fetch, InstanceReq, NameList, Pdu, PduType};
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
    let (timeouts, warnings) = Timeouts::from_env();
    for w in warnings {
        eprintln!("{w}");
    }
    let stream = transport::connect(host)?;
    let local = matches!(stream, transport::Connection::Unix(_)) || host.contains("localhost");
    let opts = ClientOptions {
        pid: std::process::id() as i32,
        local,
        unix_socket: matches!(stream, transport::Connection::Unix(_)),
        ..Default::default()
    };
    let mut c = PmcdConnection::handshake(stream, &opts, timeouts)?;
    let request =
        Pdu::PmnsNames(NameList { names: names.iter().map(|n| n.as_bytes().to_vec()).collect(), status: None });
    let Pdu::PmnsIds(ids) = c.request(&request, 0, PduType::PMNS_IDS)? else { return Err(PmError::PM_ERR_IPC) };
    c.send(&Pdu::Profile(pcp_pdu::Profile { ctxid: 0, state: 0, indoms: Vec::new() }), 0)?;
    let mut out = Vec::new();
    for (name, &pmid) in names.iter().zip(&ids.ids) {
        writeln!(out).ok();
        if pmid.is_null() {
            writeln!(out, "{name}: {}", PmError::PM_ERR_NAME).ok();
            continue;
        }
        let Pdu::Desc(desc) = c.request(&Pdu::DescReq(pmid), 0, PduType::DESC)? else {
            return Err(PmError::PM_ERR_IPC);
        };
        let (r, _) = c.fetch(0, Fetch { ctxid: 0, pmids: vec![pmid] })?;
        writeln!(out, "{name}").ok();
        let values = match &r.result.sets[0].values {
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
            let req = Pdu::InstanceReq(InstanceReq { indom: desc.indom, inst: v.inst, name: None });
            let Pdu::Instance(i) = c.request(&req, 0, PduType::INSTANCE)? else { return Err(PmError::PM_ERR_IPC) };
            let inst_name = i.instances.first().map(|i| String::from_utf8_lossy(&i.name).into_owned());
            writeln!(
                out,
                "    inst [{} or \"{}\"] value {}",
                v.inst,
                inst_name.unwrap_or_default(),
                String::from_utf8_lossy(&text)
            )
            .ok();
        }
    }
    std::io::stdout().write_all(&out).ok();
    Ok(())
}
