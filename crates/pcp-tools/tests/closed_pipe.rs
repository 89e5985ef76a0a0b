//! A tool whose reader goes away early (`pmval ... | head -1`) ends at
//! its next write with the status a shell shows for `SIGPIPE` (141), as
//! PCP's tools do, rather than running on to the end.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

/// pmval over the committed fixture `v2` (pmlogger -V 2 ... -s 4 -t 1; see
/// crates/pcp-archive/tests/fixtures/README.md) at -t 0.001: 3,033 lines,
/// 148 KB, more than a pipe holds.
fn pmval_over_v2() -> Command {
    let mut pmval = Command::new(env!("CARGO_BIN_EXE_pmval"));
    pmval
        .args(["-a", "../pcp-archive/tests/fixtures/v2", "-t", "0.001", "sample.colour"])
        .env("PCP_DERIVED_CONFIG", "")
        .env("TZ", "UTC")
        .env("LC_ALL", "C")
        .stderr(Stdio::null());
    pmval
}

#[test]
fn a_closed_pipe_ends_pmval_with_sigpipes_status() {
    let mut child = pmval_over_v2().stdout(Stdio::piped()).spawn().expect("pmval runs");
    let mut reader = BufReader::new(child.stdout.take().expect("a pipe"));
    let mut first = String::new();
    reader.read_line(&mut first).expect("a line");
    assert_eq!(first, "\n");
    drop(reader);
    let status = child.wait().expect("pmval ends");
    assert_eq!(status.code(), Some(141));
}

#[test]
fn a_reader_that_stays_gets_everything() {
    let out = pmval_over_v2().output().expect("pmval runs");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout.iter().filter(|&&b| b == b'\n').count(), 3033);
}
