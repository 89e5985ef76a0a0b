//! The PMAPI programmer's guide's "Iterative Processing of Values": every
//! interval, an instantaneous metric's value and a counter's rate over
//! the last two samples, from the previous result kept.
//!
//!   cargo run -p pcp-pmapi --example iterative_processing -- [-a ARCHIVE | -h HOST] INSTANT COUNTER [SAMPLES]
//!
//! Over an archive the samples are interpolated a second apart; from pmcd
//! they are taken a second apart. For example:
//!
//!   cargo run -p pcp-pmapi --example iterative_processing -- \
//!       -a crates/pcp-archive/tests/fixtures/v3 sample.double.hundred sample.seconds 3

use pcp::{extract_value, AtomValue, Context, FetchResult, MetricType, Mode, PmError};
use std::time::Duration;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = run(&args) {
        eprintln!("iterative_processing: {e}");
        std::process::exit(1);
    }
}

fn run(args: &[String]) -> Result<(), PmError> {
    let (mut ctx, rest, archive) = match args {
        [flag, archive, rest @ ..] if flag == "-a" => (Context::archive(archive).open()?, rest, true),
        [flag, host, rest @ ..] if flag == "-h" => (Context::host(host).open()?, rest, false),
        rest => (Context::host("localhost").open()?, rest, false),
    };
    let [instant, counter, more @ ..] = rest else {
        eprintln!("usage: iterative_processing [-a ARCHIVE | -h HOST] INSTANT COUNTER [SAMPLES]");
        std::process::exit(1);
    };
    let samples: usize = more.first().and_then(|n| n.parse().ok()).unwrap_or(5);
    // the guide's pmLookupName of the two names
    let pmids = [ctx.lookup(instant)?, ctx.lookup(counter)?];
    let types = [ctx.lookup_desc(pmids[0])?.ty, ctx.lookup_desc(pmids[1])?.ty];
    if archive {
        ctx.replay(Mode::Interp, ctx.archive_start()?, Duration::from_secs(1))?;
    }
    let mut prev: Option<FetchResult> = None;
    for trip in 0..=samples {
        let resp = ctx.fetch(&pmids)?;
        if let Some(prev) = &prev {
            let duration = resp.timestamp.as_secs_f64() - prev.timestamp.as_secs_f64();
            // (an archive may have no value at a time: "?" then)
            let now = first_value(&resp, 0, types[0]).map_or("?".to_string(), |v| format!("{v}"));
            let missed = match (first_value(&resp, 1, types[1]), first_value(prev, 1, types[1])) {
                (Ok(a), Ok(b)) => format!("{:.2}", (a - b) / duration),
                _ => "?".to_string(),
            };
            println!("{now:>6} {missed:>5}");
        }
        prev = Some(resp);
        if !archive && trip < samples {
            std::thread::sleep(Duration::from_secs(1));
        }
    }
    Ok(())
}

/// The first value of the `k`th metric in `result`, as a double.
fn first_value(result: &FetchResult, k: usize, ty: MetricType) -> Result<f64, PmError> {
    let values = result.sets[k].values.as_ref().map_err(|e| *e)?;
    let first = values.first().ok_or(PmError::PM_ERR_VALUE)?;
    match extract_value(&first.value, ty, MetricType::DOUBLE)? {
        AtomValue::Double(d) => Ok(d),
        _ => Err(PmError::PM_ERR_CONV),
    }
}
