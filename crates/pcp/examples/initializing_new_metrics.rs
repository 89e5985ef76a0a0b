//! The PMAPI programmer's guide's "Initializing New Metrics": the names a
//! tool reports on, looked up once into PMIDs, each name with its own
//! result.
//!
//!   cargo run -p pcp-pmapi --example initializing_new_metrics -- [-a ARCHIVE | -h HOST] NAME...
//!
//! For example, over a fixture archive:
//!
//!   cargo run -p pcp-pmapi --example initializing_new_metrics -- \
//!       -a crates/pcp-archive/tests/fixtures/v3 sample.bin sample.seconds no.such.metric

use pcp::{Context, PmError};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (ctx, names) = match open(&args) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("Error opening the context: {e}");
            std::process::exit(1);
        }
    };
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    for (name, pmid) in refs.iter().zip(ctx.lookup_each(&refs)) {
        match pmid {
            Ok(pmid) => println!("{name}: {pmid}"),
            // (the error names the metric)
            Err(e) => println!("{e}"),
        }
    }
}

/// The context `-a ARCHIVE` or `-h HOST` names (pmcd on this host if
/// neither), and the arguments after it.
fn open(args: &[String]) -> Result<(Context, Vec<String>), PmError> {
    match args {
        [flag, archive, rest @ ..] if flag == "-a" => Ok((Context::archive(archive).open()?, rest.to_vec())),
        [flag, host, rest @ ..] if flag == "-h" => Ok((Context::host(host).open()?, rest.to_vec())),
        rest => Ok((Context::host("localhost").open()?, rest.to_vec())),
    }
}
