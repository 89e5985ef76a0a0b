//! The embedded default: with no metrics source named and no pmcd
//! answering on the local host, pminfo, pmprobe and pmval use the local
//! context and say so in one line on standard error (PCP's tools fail
//! there: this is pcp-rs's own behaviour, so it has no C output to record).
//!
//! Each case reuses a golden `-L` case (tests/golden/TOOL/localNN, recorded
//! from PCP 6.0.3 over the committed /proc snapshot): run without `-L`
//! and with no pmcd to be found, the tool must print that case's standard
//! output and exit status, and its standard error after the one line.
//! With something answering on pmcd's port (a listener that never
//! greets), the tools keep to a host context, and report its silence.

#[path = "common/case.rs"]
mod case;

use case::{read_case, Case};
use pcp_tools::ToolFn;
use std::ffi::OsString;
use std::path::PathBuf;

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn golden_case(tool: &str, name: &str) -> Case {
    read_case(&golden_dir().join(tool).join(format!("{name}.cmd")))
}

fn expected(tool: &str, name: &str) -> (Vec<u8>, Vec<u8>, i32) {
    let read = |ext: &str| std::fs::read(golden_dir().join(tool).join(format!("{name}.{ext}"))).expect("expected file");
    let status = String::from_utf8(read("status")).expect("status").trim().parse().expect("status");
    (read("out"), read("err"), status)
}

fn tool(name: &str) -> ToolFn {
    match name {
        "pminfo" => pcp_tools::pminfo::run,
        "pmprobe" => pcp_tools::pmprobe::run,
        "pmval" => pcp_tools::pmval::run,
        _ => panic!("no tool {name}"),
    }
}

/// The tests here change the process's environment: one run at a time.
static ENV: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Run `tool` with `args` in the environment `env` (set for the run).
fn run(tool_name: &str, args: &[String], env: &[(String, String)]) -> (Vec<u8>, Vec<u8>, i32) {
    let _one_at_a_time = ENV.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    for (k, v) in env {
        std::env::set_var(k, v);
    }
    let mut argv: Vec<OsString> = vec![tool_name.into()];
    argv.extend(args.iter().map(OsString::from));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = tool(tool_name)(&argv, &mut out, &mut err);
    for (k, _) in env {
        std::env::remove_var(k);
    }
    (out, err, status)
}

/// The cases: a golden `-L` case of each tool, run with `-L` left out.
const CASES: &[(&str, &str)] = &[
    ("pminfo", "local01"),
    ("pminfo", "local05"),
    ("pminfo", "local10"),
    ("pminfo", "local12"),
    ("pminfo", "local20"),
    ("pmprobe", "local01"),
    ("pmprobe", "local08"),
    ("pmval", "local01"),
    ("pmval", "local02"),
    ("pmval", "local13"),
];

#[test]
fn no_pmcd_means_the_local_context() {
    // no Unix socket, and nothing listens on TCP port 1
    let no_pmcd = [("PCP_RUN_DIR", "/nonexistent"), ("PMCD_PORT", "1")];
    for &(tool_name, name) in CASES {
        let case = golden_case(tool_name, name);
        assert!(case.args.iter().any(|a| a == "-L"), "{tool_name}/{name} is not a -L case");
        let args: Vec<String> = case.args.iter().filter(|a| *a != "-L").cloned().collect();
        let mut env = case.env.clone();
        env.extend(no_pmcd.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let (out, err, status) = run(tool_name, &args, &env);
        let (want_out, want_err, want_status) = expected(tool_name, name);
        let mut want_err_all =
            format!("{tool_name}: no pmcd on local host (Connection refused), using built-in local metrics\n")
                .into_bytes();
        want_err_all.extend_from_slice(&want_err);
        assert_eq!(String::from_utf8_lossy(&out), String::from_utf8_lossy(&want_out), "{tool_name}/{name} stdout");
        assert_eq!(String::from_utf8_lossy(&err), String::from_utf8_lossy(&want_err_all), "{tool_name}/{name} stderr");
        assert_eq!(status, want_status, "{tool_name}/{name} status");
    }
}

#[test]
fn a_named_source_or_an_answering_pmcd_is_not_replaced() {
    // something answering on pmcd's port: the tools go on to a host
    // context, and wait (a fifth of a second) for a greeting that never
    // comes, as PCP's would
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
    let port = listener.local_addr().expect("address").port().to_string();
    let pmcd = [
        ("PCP_RUN_DIR".to_string(), "/nonexistent".to_string()),
        ("PMCD_PORT".to_string(), port),
        ("PMCD_REQUEST_TIMEOUT".to_string(), "0.2".to_string()),
    ];
    for (tool_name, args) in [("pminfo", vec!["-f"]), ("pmprobe", vec!["-v"]), ("pmval", vec!["-s", "1"])] {
        let mut args: Vec<String> = args.into_iter().map(String::from).collect();
        args.push("hinv.ncpu".into());
        let (out, err, status) = run(tool_name, &args, &pmcd);
        let want = format!(
            "{tool_name}: Cannot connect to PMCD on host \"local:\": Timeout waiting for a response from PMCD\n"
        );
        assert_eq!((out, String::from_utf8_lossy(&err).into_owned(), status), (Vec::new(), want, 1), "{tool_name}");
    }
    // a host named with no pmcd there is PCP's error, not the local context
    let no_pmcd: Vec<(String, String)> = [("PCP_RUN_DIR", "/nonexistent"), ("PMCD_PORT", "1")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let (out, err, status) = run("pminfo", &["-h".into(), "local:".into(), "-f".into(), "hinv.ncpu".into()], &no_pmcd);
    assert_eq!(
        (out, String::from_utf8_lossy(&err).into_owned(), status),
        (Vec::new(), "pminfo: Cannot connect to PMCD on host \"local:\": Connection refused\n".to_string(), 1)
    );
}
