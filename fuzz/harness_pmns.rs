// The name-space fuzz targets' bodies, shared by `cargo fuzz`
// (fuzz/fuzz_targets) and the corpus replay in `cargo test`
// (crates/pcp-pmns/tests/fuzz_corpus.rs). Each must never panic or hang.

use pcp_pmns::cpp::{Cpp, Files, Options, ShellExit};
use std::collections::HashMap;

/// In-memory files: the input is "in.pmns"; includes find a second file
/// made of the input's second half, so nesting and include errors happen.
struct Mem(HashMap<Vec<u8>, Vec<u8>>);

impl Files for Mem {
    fn read(&mut self, path: &[u8]) -> Result<Vec<u8>, i32> {
        self.0.get(path).cloned().ok_or(2)
    }
    fn shell(&mut self, command: &[u8]) -> std::io::Result<(Vec<u8>, Vec<u8>, ShellExit)> {
        // never run anything: echo the command back as its output
        Ok((command.to_vec(), Vec::new(), ShellExit::Code(command.len() as i32 % 3)))
    }
}

fn files(data: &[u8]) -> Mem {
    let mut m = HashMap::new();
    m.insert(b"in.pmns".to_vec(), data.to_vec());
    m.insert(b"./inc".to_vec(), data[data.len() / 2..].to_vec());
    Mem(m)
}

/// pmcpp on arbitrary bytes, in every mode.
pub fn pmcpp_target(data: &[u8]) {
    let mut f = files(data);
    for (restrict, shell_style) in [(false, false), (true, false), (false, true)] {
        let opts = Options { restrict, shell_style, debug: restrict, ..Options::default() };
        let mut cpp = Cpp::new(&opts);
        let _ = cpp.define_arg(b"X=1", 2);
        let _ = cpp.run(Some(b"in.pmns"), None, &mut f);
    }
}

/// The ASCII PMNS loader (through pmcpp) and every name service on
/// whatever loads.
pub fn pmns_target(data: &[u8]) {
    let mut f = files(data);
    for dupok in [true, false] {
        let opts = pcp_pmns::LoadOptions { dupok, ..pcp_pmns::LoadOptions::default() };
        if let Ok(t) = pcp_pmns::load(b"in.pmns", &opts, &mut f).pmns {
            let mut names = Vec::new();
            let _ = t.traverse_with("", |n| names.push(n.to_string()));
            for n in names.iter().take(50) {
                if let Ok(id) = t.lookup(n) {
                    let _ = (t.name_of(id), t.names_of(id));
                }
                let _ = t.children(n);
                let _ = t.lookup(&format!("{n}.x.y"));
            }
        }
    }
    let _ = pcp_pmns::ascii::load_text(b"raw", data, false);
}
