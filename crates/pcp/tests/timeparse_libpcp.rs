//! pcp::timeparse against libpcp's pmParseInterval, pmParseHighResInterval,
//! pmParseHighResTimeWindow and pmParseTimeWindow (golden file from
//! oracle/timeparse_oracle.c; see oracle/gen-timeparse.sh). A fresh-seed
//! file can be checked with PCP_RS_TIMEPARSE_GOLDEN=FILE.

use pcp::timeparse::{
    parse_high_res_interval_raw, parse_interval_raw, parse_time_window_raw, parse_time_window_usec_raw, reads_unset_tm,
    RawTime, RawWindow, SpecError, WindowSpec,
};
use pcp::timezone::Zone;
use std::collections::HashMap;
use std::path::PathBuf;

fn unhex(s: &str) -> Option<Vec<u8>> {
    match s {
        "!" => None,
        "-" => Some(Vec::new()),
        _ => Some((0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex")).collect()),
    }
}

/// The oracle's escaping of a message.
fn esc(b: &[u8]) -> String {
    let mut s = String::new();
    for &c in b {
        match c {
            b'\\' => s.push_str("\\\\"),
            b'\t' => s.push_str("\\t"),
            b'\n' => s.push_str("\\n"),
            0x20..=0x7e => s.push(c as char),
            _ => s.push_str(&format!("\\x{c:02x}")),
        }
    }
    s
}

fn raw(s: &str) -> RawTime {
    let (sec, nsec) = s.split_once('.').expect("sec.nsec");
    RawTime { sec: sec.parse().expect("sec"), nsec: nsec.parse().expect("nsec") }
}

fn show(t: RawTime) -> String {
    format!("{}.{}", t.sec, t.nsec)
}

fn interval_row(c: &[&str]) -> Option<String> {
    let spec = unhex(c[1]).unwrap_or_default();
    let got = match (parse_interval_raw(&spec), parse_high_res_interval_raw(&spec)) {
        (Ok(tv), Ok(ts)) => format!("{}\t{}", show(tv), show(ts)),
        (Err(a), Err(b)) if a == b => format!("err\t{}", esc(a.as_bytes())),
        _ => "disagree".to_string(),
    };
    let want = c[2..].join("\t");
    (got != want).then(|| format!("interval {:?}\n    want {want}\n    got  {got}", String::from_utf8_lossy(&spec)))
}

fn window_text(r: &Result<RawWindow, SpecError>) -> String {
    match r {
        Ok(w) => {
            let msg = w.message.as_ref().map_or("-".to_string(), |e| esc(e.as_bytes()));
            format!("{} {} {} {} {msg}", w.status, show(w.start), show(w.end), show(w.origin))
        }
        Err(e) => format!("err {}", esc(e.as_bytes())),
    }
}

/// A window row's answer, or `None` where libpcp's is undefined: an
/// absolute time without a year against a start whose local time
/// `localtime` refuses, where libpcp reads a `struct tm` it never filled
/// ([`reads_unset_tm`]; `-T` and `-O` are read against the start).
fn window_row(c: &[&str], zones: &mut HashMap<String, Zone>) -> Option<Option<String>> {
    let zone = zones.entry(c[1].to_string()).or_insert_with(|| Zone::from_tz_env(c[1]).expect("zone"));
    let (start, end) = (raw(c[2]), raw(c[3]));
    let now: i64 = c[4].parse().expect("now");
    let args: Vec<Option<Vec<u8>>> = c[5..9].iter().map(|s| unhex(s)).collect();
    let spec = WindowSpec {
        start: args[0].as_deref(),
        finish: args[1].as_deref(),
        align: args[2].as_deref(),
        origin: args[3].as_deref(),
    };
    // where libpcp dies, pcp-rs must refuse
    let text = |r: Result<RawWindow, SpecError>, want: &str| {
        if want == "crash" && r.is_err() {
            "crash".to_string()
        } else {
            window_text(&r)
        }
    };
    let got = parse_time_window_raw(&spec, start, end, zone, now);
    let unset = |arg: Option<&[u8]>, origin: RawTime| arg.is_some_and(|a| reads_unset_tm(a, origin, zone));
    if unset(spec.start, start)
        || got.as_ref().is_ok_and(|w| unset(spec.finish, w.start) || unset(spec.origin, w.start))
    {
        return None;
    }
    let hr = text(got, c[9]);
    let tv = text(parse_time_window_usec_raw(&spec, start, end, zone, now), c[10]);
    if hr == c[9] && tv == c[10] {
        return Some(None);
    }
    let show_arg =
        |a: &Option<Vec<u8>>| a.as_ref().map_or("NULL".into(), |v| format!("{:?}", String::from_utf8_lossy(v)));
    Some(Some(format!(
        "window TZ={} bounds {} {} now {now} -S {} -T {} -A {} -O {}\n    want {}\n    got  {hr}\n    want {}\n    got  {tv}",
        c[1],
        c[2],
        c[3],
        show_arg(&args[0]),
        show_arg(&args[1]),
        show_arg(&args[2]),
        show_arg(&args[3]),
        c[9],
        c[10]
    )))
}

#[test]
fn time_parsing_matches_libpcp() {
    let (path, committed) = match std::env::var_os("PCP_RS_TIMEPARSE_GOLDEN") {
        Some(p) => (PathBuf::from(p), false),
        None => (PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/timeparse.tsv"), true),
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut zones = HashMap::new();
    let mut bad = Vec::new();
    let (mut intervals, mut windows, mut undefined) = (0, 0, 0);
    for line in text.lines() {
        let c: Vec<&str> = line.split('\t').collect();
        let miss = match c[0] {
            "I" => {
                intervals += 1;
                interval_row(&c)
            }
            "W" => {
                windows += 1;
                window_row(&c, &mut zones).unwrap_or_else(|| {
                    undefined += 1;
                    None
                })
            }
            other => panic!("unknown row kind {other}"),
        };
        bad.extend(miss);
    }
    if committed {
        assert!(intervals >= 1500 && windows >= 8000, "only {intervals} intervals and {windows} windows");
    }
    assert!(intervals > 0 && windows > 0);
    // (a handful at most: the random years that overflow localtime are
    // rare, and rarer still before a time without a year)
    assert!(undefined * 1000 <= windows, "{undefined} of {windows} windows left out as undefined in libpcp");
    assert!(
        bad.is_empty(),
        "{} of {} cases differ from libpcp:\n{}",
        bad.len(),
        intervals + windows,
        bad.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
}
