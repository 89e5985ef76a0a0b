//! A golden case file: `tests/golden/TOOL/NAME.cmd`, one argument per line,
//! then optionally `--env` and `NAME=VALUE` lines.

use std::path::Path;

/// A case's command line and environment settings.
pub struct Case {
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// Read a case file.
pub fn read_case(path: &Path) -> Case {
    let text = std::fs::read_to_string(path).expect("case file");
    let mut args = Vec::new();
    let mut env = Vec::new();
    let mut in_env = false;
    for line in text.lines() {
        if line == "--env" {
            in_env = true;
        } else if in_env {
            let (k, v) = line.split_once('=').expect("NAME=VALUE");
            env.push((k.to_string(), v.to_string()));
        } else {
            args.push(line.to_string());
        }
    }
    Case { args, env }
}

/// The cases under `root`: each tool's directory (in name order) with its
/// `.cmd` files (in name order).
#[allow(dead_code)] // not every test lists cases
pub fn cases_by_tool(root: &Path) -> Vec<(String, Vec<std::path::PathBuf>)> {
    let mut dirs: Vec<_> =
        std::fs::read_dir(root).expect("cases dir").flatten().filter(|d| d.path().is_dir()).collect();
    dirs.sort_by_key(|d| d.file_name());
    dirs.into_iter()
        .map(|dir| {
            let mut cases: Vec<_> = std::fs::read_dir(dir.path())
                .expect("tool dir")
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "cmd"))
                .collect();
            cases.sort();
            (dir.file_name().to_string_lossy().into_owned(), cases)
        })
        .collect()
}

/// Run our `tool` (called `name`) on a case, with the case's environment
/// settings in place while it runs: its stdout, stderr and exit status.
#[allow(dead_code)] // not every test runs cases this way
pub fn run_ours(tool: pcp_tools::ToolFn, name: &str, case: &Case) -> (Vec<u8>, Vec<u8>, i32) {
    for (k, v) in &case.env {
        std::env::set_var(k, v);
    }
    let mut args: Vec<std::ffi::OsString> = vec![name.into()];
    args.extend(case.args.iter().map(std::ffi::OsString::from));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = tool(&args, &mut out, &mut err);
    for (k, _) in &case.env {
        std::env::remove_var(k);
    }
    (out, err, status)
}

/// Compare our tools with the C tools on every case under `root` (those
/// whose path holds `$PCP_RS_ONLY`, if set), each output passed through
/// `filter` first: recorded filtered beside each case (`NAME.out`,
/// `NAME.err`, `NAME.status`), by running the C tool in the crate's
/// directory, when `$PCP_RS_RECORD` is set. `run` gives our tool of a
/// name. Returns how many cases were compared, and what differed.
#[allow(dead_code)] // not every test compares filtered traces
pub fn compare_filtered(
    root: &Path,
    run: impl Fn(&str) -> pcp_tools::ToolFn,
    filter: impl Fn(&[u8]) -> Vec<u8>,
) -> (usize, Vec<String>) {
    let record = std::env::var_os("PCP_RS_RECORD").is_some();
    let only = std::env::var("PCP_RS_ONLY").ok();
    let (mut checked, mut failures) = (0, Vec::new());
    for (tool, cases) in cases_by_tool(root) {
        let ours = run(&tool);
        for cmd in cases {
            if only.as_deref().is_some_and(|o| !cmd.to_string_lossy().contains(o)) {
                continue;
            }
            let case = read_case(&cmd);
            let stem = cmd.with_extension("");
            let file = |ext: &str| stem.with_extension(ext);
            if record {
                let c = std::process::Command::new(&tool)
                    .args(&case.args)
                    .envs(case.env.iter().map(|(k, v)| (k, v)))
                    .current_dir(env!("CARGO_MANIFEST_DIR"))
                    .output()
                    .unwrap_or_else(|e| panic!("cannot run the C {tool}: {e}"));
                std::fs::write(file("out"), filter(&c.stdout)).unwrap();
                std::fs::write(file("err"), filter(&c.stderr)).unwrap();
                std::fs::write(file("status"), format!("{}\n", c.status.code().unwrap_or(-1))).unwrap();
            }
            let (out, err, status) = run_ours(ours, &tool, &case);
            let read = |ext: &str| std::fs::read(file(ext)).unwrap_or_default();
            let got = (filter(&out), filter(&err), format!("{status}\n").into_bytes());
            let want = (read("out"), read("err"), read("status"));
            checked += 1;
            let name = stem.display();
            if got.0 != want.0 {
                failures.push(format!("{name}: stdout differs:\n{}", String::from_utf8_lossy(&got.0)));
            }
            if got.1 != want.1 {
                failures.push(format!("{name}: stderr differs:\n{}", String::from_utf8_lossy(&got.1)));
            }
            if got.2 != want.2 {
                failures.push(format!("{name}: status {status}"));
            }
        }
    }
    (checked, failures)
}

/// The golden tests' filter: libpcp's result dumps (`-Dfetch`, `-Dpdu`) print the
/// result's address, which differs from run to run: `dump from 0x...`
/// reads `dump from ADDR` on both sides.
#[allow(dead_code)] // not every test compares traces
pub fn unaddressed((out, err, status): (Vec<u8>, Vec<u8>, i32)) -> (Vec<u8>, Vec<u8>, i32) {
    const AT: &[u8] = b"dump from 0x";
    let mut masked = Vec::with_capacity(err.len());
    let mut rest = &err[..];
    while let Some(i) = rest.windows(AT.len()).position(|w| w == AT) {
        masked.extend_from_slice(&rest[..i]);
        masked.extend_from_slice(b"dump from ADDR");
        let tail = &rest[i + AT.len()..];
        rest = &tail[tail.iter().take_while(|b| b.is_ascii_hexdigit()).count()..];
    }
    masked.extend_from_slice(rest);
    (out, undelta_unaddressed(&masked), status)
}

/// The others: `-Dlogmeta`'s `__pmLogUndeltaInDom` lines print the
/// addresses of instance sets, `-Dlog,interp`'s `read cache entry`
/// lines those of its read cache, `-Dcontext`'s dumps of the local
/// agent table (`0x... [N] domain=...`) those of its entries, and
/// `-Dpdu`'s `__pmLogRead timestamp=` lines those of a record's body;
/// each reads `ADDR` on both sides. And
/// `-Dinterp` shows a value held in a block as `v=??? (lval=N)`, N half
/// the block's address: it reads `lval=N`.
fn undelta_unaddressed(err: &[u8]) -> Vec<u8> {
    let mut masked = Vec::with_capacity(err.len());
    for line in err.split_inclusive(|&b| b == b'\n') {
        let agent_entry = line.starts_with(b"0x") && line.windows(9).any(|w| w == b"] domain=");
        let masked_line = ["__pmLogUndeltaInDom(", "read cache entry ", "__pmLogRead timestamp="]
            .iter()
            .any(|s| line.starts_with(s.as_bytes()));
        if !masked_line && !agent_entry {
            masked.extend_from_slice(&unlval(line));
            continue;
        }
        let mut i = 0;
        while i < line.len() {
            if line[i..].starts_with(b"0x") {
                masked.extend_from_slice(b"ADDR");
                i += 2 + line[i + 2..].iter().take_while(|b| b.is_ascii_hexdigit()).count();
            } else {
                masked.push(line[i]);
                i += 1;
            }
        }
    }
    masked
}

/// `line` with each `v=??? (lval=` number read as `N`.
fn unlval(line: &[u8]) -> Vec<u8> {
    const AT: &[u8] = b"v=??? (lval=";
    let mut masked = Vec::with_capacity(line.len());
    let mut rest = line;
    while let Some(i) = rest.windows(AT.len()).position(|w| w == AT) {
        masked.extend_from_slice(&rest[..i + AT.len()]);
        masked.push(b'N');
        let tail = &rest[i + AT.len()..];
        rest = &tail[tail.iter().take_while(|b| b.is_ascii_digit() || **b == b'-').count()..];
    }
    masked.extend_from_slice(rest);
    masked
}
