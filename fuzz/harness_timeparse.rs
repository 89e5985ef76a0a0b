// The time parsing fuzz target's body, shared by `cargo fuzz`
// (fuzz/fuzz_targets/timeparse.rs) and the corpus replay in `cargo test`
// (crates/pcp/tests/fuzz_corpus.rs). It must never panic nor hang.

use pcp::timeparse::{
    parse_ctime, parse_high_res_interval, parse_high_res_time_window, parse_interval, parse_time, parse_time_window,
    WindowSpec, PM_MAX_TIME_T,
};
use pcp::timezone::Zone;
use pcp_core::Timestamp;
use std::sync::OnceLock;

/// Zones as the oracle uses them (loaded once: reading zoneinfo files on
/// every input would slow the fuzzer down).
fn zones() -> &'static [Zone] {
    static ZONES: OnceLock<Vec<Zone>> = OnceLock::new();
    ZONES.get_or_init(|| {
        ["UTC", "AEDT-11", ":Australia/Melbourne", "EST5EDT", "America/New_York", "EST-11EST-10,89/2:00,299/2:00"]
            .iter()
            .map(|z| Zone::from_tz_env(z).unwrap_or_else(|_| Zone::utc()))
            .collect()
    })
}

const fn ts(sec: i64, nsec: u32) -> Timestamp {
    Timestamp { sec, nsec }
}

/// Archive-like bounds, a live source (no end), and extremes.
const BOUNDS: [(Timestamp, Timestamp); 5] = [
    (ts(1_673_319_845, 123_456_789), ts(1_673_579_045, 623_456_789)),
    (ts(1_667_649_600, 500_000_000), ts(1_667_822_400, 0)),
    (ts(870_947_643, 79_000), ts(870_947_945, 0)),
    (ts(1_700_000_000, 250_000_000), ts(PM_MAX_TIME_T, 0)),
    (ts(-5_000_000_000, 0), ts(i64::MAX - 1, 999_999_999)),
];

/// Byte 0 picks the zone, byte 1 the bounds; the rest is up to four
/// fields separated by 0x1f: -S, -T, -A and -O (an empty field is not
/// given). Each field also goes through the interval, ctime and single
/// time parsers.
pub fn timeparse_target(data: &[u8]) {
    if data.len() < 2 {
        return;
    }
    let zone = &zones()[usize::from(data[0]) % zones().len()];
    let (start, end) = BOUNDS[usize::from(data[1]) % BOUNDS.len()];
    let now = ts(start.sec.wrapping_add(i64::from(data[1])), 0);
    let fields: Vec<&[u8]> = data[2..].split(|&b| b == 0x1f).collect();
    for f in &fields {
        let _ = parse_interval(f);
        let _ = parse_high_res_interval(f);
        let _ = parse_ctime(f);
        if let Ok(t) = parse_time(f, start, end, zone, now) {
            assert!(t.nsec < 1_000_000_000);
        }
    }
    let field = |i: usize| fields.get(i).copied().filter(|f| !f.is_empty());
    let spec = WindowSpec { start: field(0), finish: field(1), align: field(2), origin: field(3) };
    for w in [parse_high_res_time_window(&spec, start, end, zone, now), parse_time_window(&spec, start, end, zone, now)]
        .into_iter()
        .flatten()
    {
        assert!(w.start.nsec < 1_000_000_000 && w.end.nsec < 1_000_000_000 && w.origin.nsec < 1_000_000_000);
    }
}
