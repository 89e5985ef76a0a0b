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
