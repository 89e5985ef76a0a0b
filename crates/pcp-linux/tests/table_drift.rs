//! src/table.rs is generated (gen/README.md): it must be, byte for byte,
//! what gen/gen-table.py prints from gen/descs.tsv and gen/indoms.tsv, so that the table is
//! changed through its source and the generator, never by hand.
//!
//! The generator prints the file as `cargo fmt` leaves it, so no
//! formatting step comes between the two. Python 3 runs the generator;
//! it is on the machines that build and test this crate, and where it
//! is missing the test fails rather than pass unchecked.

use std::path::Path;
use std::process::Command;

#[test]
fn table_is_what_the_generator_prints_from_its_source() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .args(["gen/gen-table.py", "gen/descs.tsv", "gen/indoms.tsv"])
        .current_dir(dir)
        .env("PYTHONIOENCODING", "utf-8")
        .output()
        .expect("run python3 gen/gen-table.py (Python 3 is needed, see gen/README.md)");
    assert!(out.status.success(), "gen/gen-table.py failed: {}", String::from_utf8_lossy(&out.stderr));
    let committed = std::fs::read(dir.join("src/table.rs")).expect("read src/table.rs");
    if out.stdout == committed {
        return;
    }
    // the first line that differs, to say where
    let (generated, committed) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&committed));
    let mut lines = generated.lines().zip(committed.lines()).enumerate();
    let at = lines.find(|(_, (g, c))| g != c).map_or_else(
        || {
            let (g, c) = (generated.lines().count(), committed.lines().count());
            format!("generated: {g} lines, src/table.rs: {c} lines")
        },
        |(i, (g, c))| format!("line {}:\n  generated:    {g}\n  src/table.rs: {c}", i + 1),
    );
    panic!(
        "src/table.rs is not what `python3 gen/gen-table.py gen/descs.tsv gen/indoms.tsv` prints ({at}); \
         regenerate it (gen/README.md) rather than edit it"
    );
}
