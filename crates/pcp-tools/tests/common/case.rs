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
