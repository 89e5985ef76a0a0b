//! pcp::timezone against glibc's localtime/ctime (golden file from
//! oracle/tz_oracle.c; see oracle/gen-tz.sh).

use pcp::timezone::Zone;
use std::collections::HashMap;
use std::path::PathBuf;

#[test]
fn localtime_matches_glibc() {
    let (path, committed) = match std::env::var_os("PCP_RS_TZ_GOLDEN") {
        Some(p) => (PathBuf::from(p), false),
        None => (PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/tz.tsv"), true),
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut zones: HashMap<String, Zone> = HashMap::new();
    let mut bad = Vec::new();
    let mut n = 0;
    for line in text.lines() {
        let c: Vec<&str> = line.split('\t').collect();
        let zone = zones.entry(c[0].to_string()).or_insert_with(|| Zone::from_tz_env(c[0]).expect("zone"));
        let sec: i64 = c[1].parse().expect("seconds");
        let t = zone.localtime(sec).expect("localtime");
        let got = format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02} {} {} {} {} {}",
            t.year, t.month, t.mday, t.hour, t.min, t.sec, t.wday, t.yday, t.isdst as i32, t.gmtoff, t.abbrev
        );
        let ctime = zone.ctime(sec).expect("ctime");
        n += 1;
        if got != c[2] || ctime != c[3] {
            bad.push(format!("{line}\n    got {got}\t{ctime}"));
        }
    }
    assert!(n > 0);
    if committed {
        assert!(n >= 20_000, "only {n} cases");
    }
    assert!(
        bad.is_empty(),
        "{} of {n} differ from glibc:\n{}",
        bad.len(),
        bad.iter().take(15).cloned().collect::<Vec<_>>().join("\n")
    );
}
