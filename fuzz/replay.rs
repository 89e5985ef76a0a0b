// Corpus replay for `cargo test`: run every input kept in
// fuzz/corpus/TARGET through the target's body. Shared by the crates'
// fuzz_corpus tests.

use std::path::Path;

pub fn replay(manifest_dir: &str, target: &str, f: fn(&[u8])) {
    let dir = Path::new(manifest_dir).join("../../fuzz/corpus").join(target);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        f(&std::fs::read(entry.expect("corpus entry").path()).expect("corpus file"));
        n += 1;
    }
    assert!(n > 0, "empty corpus {}", dir.display());
    eprintln!("{target}: replayed {n} inputs");
}
