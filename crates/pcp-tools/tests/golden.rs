//! Golden tests: every tool against the C tool's recorded output.
//!
//! Each case is `tests/golden/TOOL/NAME.cmd`, one argument per line (the
//! lines after `--env`, if any, are `NAME=VALUE` settings). Beside it,
//! `NAME.out`, `NAME.err` and `NAME.status` hold what PCP 6.0.3's TOOL
//! printed and returned. The test runs our tool as a library function and
//! compares all three byte for byte.
//!
//! `PCP_RS_RECORD=1` re-records the expected files by running the C tool
//! (PCP installed). `PCP_RS_LIVE=1` compares against the C tool run now
//! instead of the files: the differential suite CI runs. `PCP_RS_ONLY=TEXT`
//! takes only the cases whose path has TEXT in it (`pminfo/debug-`).

#[path = "common/case.rs"]
mod case;

use case::{cases_by_tool, read_case, run_ours, unaddressed, Case};
use pcp_tools::ToolFn;
use std::path::PathBuf;
use std::process::Command;

/// Our tool, and the C tool's path (PCP keeps some outside PATH).
fn tool(name: &str) -> Option<(ToolFn, &'static str)> {
    Some(match name {
        "pmerr" => (pcp_tools::pmerr::run, "pmerr"),
        "pmcpp" => (pcp_tools::pmcpp::run, "/usr/lib/pcp/bin/pmcpp"),
        "pminfo" => (pcp_tools::pminfo::run, "pminfo"),
        "pmprobe" => (pcp_tools::pmprobe::run, "pmprobe"),
        "pmval" => (pcp_tools::pmval::run, "pmval"),
        "pmstore" => (pcp_tools::pmstore::run, "pmstore"),
        "pmdumplog" => (pcp_tools::pmdumplog::run, "pmdumplog"),
        _ => return None,
    })
}

fn run_c_tool(tool: &str, case: &Case) -> (Vec<u8>, Vec<u8>, i32) {
    let out = Command::new(tool)
        .args(&case.args)
        .envs(case.env.iter().map(|(k, v)| (k, v)))
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C {tool}: {e}"));
    (out.stdout, out.stderr, out.status.code().unwrap_or(-1))
}

#[test]
fn golden_outputs() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let record = std::env::var_os("PCP_RS_RECORD").is_some();
    let live = std::env::var_os("PCP_RS_LIVE").is_some();
    // PCP_RS_ONLY=TEXT: only the cases whose path has TEXT in it
    let only = std::env::var("PCP_RS_ONLY").ok();
    let mut checked = 0;
    let mut failures = Vec::new();
    for (name, cases) in cases_by_tool(&root) {
        let Some((run, c_tool)) = tool(&name) else { panic!("golden dir for unknown tool {name}") };
        for cmd in cases {
            if only.as_deref().is_some_and(|o| !cmd.to_string_lossy().contains(o)) {
                continue;
            }
            let case = read_case(&cmd);
            let stem = cmd.with_extension("");
            let expected = if record || live {
                let got = run_c_tool(c_tool, &case);
                if record {
                    std::fs::write(stem.with_extension("out"), &got.0).expect("write");
                    std::fs::write(stem.with_extension("err"), &got.1).expect("write");
                    std::fs::write(stem.with_extension("status"), format!("{}\n", got.2)).expect("write");
                }
                got
            } else {
                let read = |ext: &str| std::fs::read(stem.with_extension(ext)).expect("expected file");
                let status = String::from_utf8(read("status")).expect("status").trim().parse().expect("status");
                (read("out"), read("err"), status)
            };
            // our tool sees the same environment settings as the C one
            let got = run_ours(run, &name, &case);
            checked += 1;
            let (got, expected) = (unaddressed(got), unaddressed(expected));
            if got != expected {
                failures.push(format!(
                    "{}:\n  stdout ours {:?}\n         C    {:?}\n  stderr ours {:?}\n         C    {:?}\n  status ours {} C {}",
                    cmd.display(),
                    String::from_utf8_lossy(&got.0), String::from_utf8_lossy(&expected.0),
                    String::from_utf8_lossy(&got.1), String::from_utf8_lossy(&expected.1),
                    got.2, expected.2
                ));
            }
        }
    }
    assert!(checked > 0, "no golden cases found");
    assert!(failures.is_empty(), "{} of {checked} golden cases differ:\n{}", failures.len(), failures.join("\n"));
    eprintln!("{checked} golden cases agree with the C tools");
}
