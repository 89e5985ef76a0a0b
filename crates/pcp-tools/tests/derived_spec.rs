//! Derived metrics where PCP 6.0.3 gives nothing to compare with: what it
//! lacks (`novalue()`, `\` continuation lines, `delta()`/`rate()`/
//! `instant()` of an expression, `mkconst(..., meta=...)`) or crashes on
//! (`(expr)[instance]`, `scalar()` of an empty set). These follow the text
//! of pmRegisterDerived(3) (the seed copy and its restored passage in
//! `shared/spec/`), quoted in the configurations
//! (`tests/derived/spec-*.conf`).
//!
//! Two checks per case `tests/spec/TOOL/NAME.cmd`:
//! - the manual page's claims, written beside the definitions as
//!   `# same: A B` (metrics A and B have the same values), `# expect: A
//!   TEXT` (A's report has a line holding TEXT) and `# absent: A` (A is not
//!   defined), asserted on the output of every pminfo case that loads the
//!   configuration (`-c FILE`);
//! - the whole output, byte for byte, against `NAME.out`, `.err` and
//!   `.status`: our own output, read against the manual page when it was
//!   written (`PCP_RS_BLESS=1` writes them again), so that any change
//!   shows.

#[path = "common/case.rs"]
mod case;

use case::{cases_by_tool, read_case, run_ours};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn tool(name: &str) -> pcp_tools::ToolFn {
    match name {
        "pminfo" => pcp_tools::pminfo::run,
        "pmprobe" => pcp_tools::pmprobe::run,
        "pmval" => pcp_tools::pmval::run,
        _ => panic!("no spec cases for {name}"),
    }
}

/// pminfo's report split by metric: each entry starts after a blank line
/// or at an error line (`NAME: ...`), named by its first word.
fn entries(out: &str) -> BTreeMap<String, Vec<String>> {
    let mut map: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut after_blank = true;
    for line in out.lines() {
        if line.is_empty() {
            after_blank = true;
            continue;
        }
        let error_line = !line.starts_with(' ') && line.split_once(": ").is_some_and(|(n, _)| !n.contains(' '));
        if after_blank || error_line {
            let name = line.split([' ', ':']).next().unwrap_or_default().to_string();
            map.entry(name.clone()).or_default();
            current = Some(name);
        }
        after_blank = false;
        if let Some(n) = &current {
            map.entry(n.clone()).or_default().push(line.trim().to_string());
        }
    }
    map
}

/// The lines of an entry that hold its metadata and values.
fn values(lines: &[String]) -> Vec<&String> {
    lines
        .iter()
        .filter(|l| {
            l.contains("value ")
                || l.starts_with("No value")
                || l.starts_with("Data Type:")
                || l.starts_with("Semantics:")
        })
        .collect()
}

/// Spec cases whose pmval output must be a recorded PCP 6.0.3 case's but
/// for the metric's name: an expression PCP 6.0.3 cannot take inside
/// rate(), delta() or instant() against the metric name it can.
const AS_PCP: [(&str, &str); 3] = [
    ("pmval/wrap-xw_rate_paren", "pmval/dg-wrap-wr_rate_ulong"),
    ("pmval/wrap-xw_delta_paren", "pmval/dg-wrap-wr_delta_longlong"),
    ("pmval/wrap-xw_instant_paren", "pmval/dg-wrap-wr_instant_ulong"),
];

/// Checks the `# same:`, `# expect:` and `# absent:` claims of `config`
/// on pminfo's output; returns the failures.
fn claims(config: &str, out: &str) -> (usize, Vec<String>) {
    let text = std::fs::read_to_string(config).expect("configuration");
    let map = entries(out);
    let mut failures = Vec::new();
    let mut n = 0;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# same: ") {
            n += 1;
            let (a, b) = rest.split_once(' ').expect("# same: A B");
            match (map.get(a), map.get(b)) {
                (Some(x), Some(y)) if !values(x).is_empty() && values(x) == values(y) => {}
                (x, y) => failures.push(format!("{config}: {a} and {b} differ: {x:?} {y:?}")),
            }
        } else if let Some(rest) = line.strip_prefix("# expect: ") {
            n += 1;
            let (a, want) = rest.split_once(' ').expect("# expect: A TEXT");
            if !map.get(a).is_some_and(|lines| lines.iter().any(|l| l.contains(want))) {
                failures.push(format!("{config}: {a} lacks {want:?}: {:?}", map.get(a)));
            }
        } else if let Some(a) = line.strip_prefix("# absent: ") {
            n += 1;
            if map.contains_key(a.trim()) {
                failures.push(format!("{config}: {a} is defined: {:?}", map.get(a.trim())));
            }
        }
    }
    (n, failures)
}

#[test]
fn derived_metrics_as_the_manual_page_says() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/spec");
    let bless = std::env::var_os("PCP_RS_BLESS").is_some();
    let (mut cases, mut checked_claims) = (0, 0);
    let mut failures = Vec::new();
    for (name, cmds) in cases_by_tool(&root) {
        let run = tool(&name);
        for cmd in cmds {
            let case = read_case(&cmd);
            let (out, err, status) = run_ours(run, &name, &case);
            cases += 1;
            if name == "pminfo" {
                let config = case.args.iter().skip_while(|a| *a != "-c").nth(1).expect("pminfo case with -c");
                let (n, f) = claims(config, &String::from_utf8_lossy(&out));
                checked_claims += n;
                failures.extend(f.into_iter().map(|f| format!("{}: {f}", cmd.display())));
            }
            let stem = cmd.with_extension("");
            if bless {
                std::fs::write(stem.with_extension("out"), &out).expect("write");
                std::fs::write(stem.with_extension("err"), &err).expect("write");
                std::fs::write(stem.with_extension("status"), format!("{status}\n")).expect("write");
                continue;
            }
            let read = |ext: &str| std::fs::read(stem.with_extension(ext)).expect("expected file");
            let want_status: i32 = String::from_utf8(read("status")).expect("status").trim().parse().expect("status");
            if (&out, &err, status) != (&read("out"), &read("err"), want_status) {
                failures.push(format!(
                    "{}: output changed:\n  stdout {:?}\n  stderr {:?}\n  status {status}",
                    cmd.display(),
                    String::from_utf8_lossy(&out),
                    String::from_utf8_lossy(&err)
                ));
            }
        }
    }
    let tests = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests");
    for (spec, golden) in AS_PCP {
        let body = |path: PathBuf| {
            let text = std::fs::read_to_string(path).expect("recorded output");
            text.lines().filter(|l| !l.starts_with("metric:")).map(|l| format!("{l}\n")).collect::<String>()
        };
        let (ours, pcp) = (
            body(root.join(spec).with_extension("out")),
            body(tests.join("golden").join(golden).with_extension("out")),
        );
        if ours != pcp {
            failures.push(format!("{spec}: not as PCP's {golden}:\n{ours}\n{pcp}"));
        }
    }
    assert!(cases > 0 && checked_claims > 0, "no spec cases found");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    eprintln!("{cases} spec cases, {checked_claims} claims of the manual page hold");
}
