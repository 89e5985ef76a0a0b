//! Archive replay against libpcp: every script in tests/replay runs through
//! Replay and must print exactly what oracle/replay_oracle.c printed with
//! the reference libpcp (recorded by oracle/gen-replay.sh), over the
//! fixture archives in tests/fixtures (one, or a comma-separated list read
//! as one context).

mod replay_script;

use std::path::Path;

#[test]
fn replay_scripts_match_libpcp() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut n = 0;
    let mut scripts: Vec<_> = std::fs::read_dir(dir.join("replay"))
        .expect("tests/replay")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "script"))
        .collect();
    scripts.sort();
    for script in scripts {
        let text = std::fs::read_to_string(&script).expect("script");
        let archive = text.lines().find_map(|l| l.strip_prefix("# archive: ")).expect("# archive: line");
        let wrap = text.lines().any(|l| l == "# env: PCP_COUNTER_WRAP");
        let want = std::fs::read_to_string(script.with_extension("out")).expect("recorded output");
        // a list names several archives, read as one context
        let fixtures = dir.join("fixtures");
        let names: Vec<String> = archive.split(',').map(|a| fixtures.join(a).to_string_lossy().into_owned()).collect();
        let got = replay_script::run(&names.join(","), &text, wrap);
        if got != want {
            let line = got.lines().zip(want.lines()).position(|(a, b)| a != b).unwrap_or(0);
            panic!(
                "{}: differs from libpcp at line {}:\n  libpcp: {:?}\n  ours:   {:?}",
                script.display(),
                line + 1,
                want.lines().nth(line),
                got.lines().nth(line)
            );
        }
        n += 1;
    }
    assert!(n >= 9, "only {n} replay scripts");
}

#[test]
fn timestamp_differences_match_long_double() {
    // (a.sec, a.nsec, b.sec, b.nsec, bits of the double libpcp computes),
    // recorded by `replay_oracle tsub 1 4000`
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/replay/tsub.tsv"))
        .expect("tests/replay/tsub.tsv");
    let mut n = 0;
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let a = (f[0].parse::<i64>().unwrap(), f[1].parse::<i32>().unwrap());
        let b = (f[2].parse::<i64>().unwrap(), f[3].parse::<i32>().unwrap());
        let want = u64::from_str_radix(f[4], 16).unwrap();
        let got = pcp_archive::timestamp_sub(a, b).to_bits();
        assert_eq!(got, want, "{line}: got {:016x}", got);
        n += 1;
    }
    assert!(n >= 4000);
}
