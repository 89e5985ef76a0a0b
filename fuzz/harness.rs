// The fuzz targets' bodies, shared by `cargo fuzz` (fuzz/fuzz_targets) and
// by the corpus replay in `cargo test` (crates/pcp-core/tests/fuzz_corpus.rs).
// Each takes arbitrary bytes and must never panic.

use pcp_core::format::{atom_str, number_str, print_value};
use pcp_core::{conv_scale, extract_value, parse_units, AtomValue, MetricType, Units, Value, ValueBlock};

/// pmParseUnitsStr on arbitrary text; whatever parses must print and
/// convert without panicking.
pub fn parse_units_target(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok((units, mult)) = parse_units(text) {
        let _ = units.to_string();
        let _ = conv_scale(&AtomValue::Double(mult), units, units);
    }
}

fn type_of(b: u8) -> MetricType {
    match b % 16 {
        11 => MetricType::UNKNOWN,
        12 => MetricType::NOSUPPORT,
        13 => MetricType(b as i32 * 7),
        n => MetricType(n as i32 - 1),
    }
}

/// pmExtractValue, pmPrintValue, pmAtomStr, pmConvScale and pmNumberStr on a
/// value built from arbitrary bytes: byte 0 picks the format, 1 and 2 the
/// types, 3 the block's type byte, 4..12 two units words; the rest is the
/// payload.
pub fn value_target(data: &[u8]) {
    if data.len() < 12 {
        return;
    }
    let payload = data[12..].to_vec();
    let value = if data[0] & 1 == 0 && payload.len() >= 4 {
        Value::Insitu(i32::from_le_bytes([payload[0], payload[1], payload[2], payload[3]]))
    } else {
        Value::Block(ValueBlock::new(data[3], payload))
    };
    let (itype, otype) = (type_of(data[1]), type_of(data[2]));
    let width = (data[0] as i8 as i32) >> 2;
    let mut out = Vec::new();
    let _ = print_value(&mut out, &value, itype, width);
    let u1 = Units::from_u32(u32::from_le_bytes([data[4], data[5], data[6], data[7]]));
    let u2 = Units::from_u32(u32::from_le_bytes([data[8], data[9], data[10], data[11]]));
    let _ = (u1.to_string(), u2.describe());
    if let Ok(atom) = extract_value(&value, itype, otype) {
        let _ = atom_str(Some(&atom), otype);
        let _ = atom.to_string();
        if let Ok(scaled) = conv_scale(&atom, u1, u2) {
            if let Some(v) = scaled.as_f64() {
                let _ = number_str(v);
            }
        }
    }
}

/// Label sets on arbitrary bytes: byte 0 picks the flags, bytes 1-2 the
/// buffer length, the rest splits at 0xff into up to four texts, which go
/// through pmMergeLabels, __pmParseLabelSet, __pmAddLabels and
/// pmMergeLabelSets (with a filter). A text that comes back must fit its
/// buffer.
pub fn labels_target(data: &[u8]) {
    use pcp_core::labels::{add_labels, merge_label_sets, merge_labels, parse_label_set, Label};
    let [f, b0, b1, rest @ ..] = data else { return };
    let buflen = usize::from(u16::from_le_bytes([*b0, *b1]));
    let texts: Vec<&[u8]> = rest.split(|&b| b == 0xff).take(4).collect();
    let sets: Vec<Option<&[u8]>> = texts.iter().map(|t| Some(*t)).collect();
    if let Ok(t) = merge_labels(&sets, buflen) {
        assert!(t.is_empty() || t.len() < buflen);
    }
    let parsed: Vec<_> = texts.iter().map(|t| parse_label_set(t, *f).ok()).collect();
    let mut added = None;
    for t in &texts {
        let _ = add_labels(&mut added, t, *f);
    }
    let mut refs: Vec<_> = parsed.iter().map(Option::as_ref).collect();
    refs.push(added.as_ref());
    let mut keep = |l: &Label, json: &[u8]| json.get(usize::from(l.name)).is_some_and(|c| c % 2 == 0);
    if let Ok(t) = merge_label_sets(&refs, buflen, Some(&mut keep)) {
        assert!(t.is_empty() || t.len() < buflen);
    }
    for set in refs.iter().flatten() {
        for l in &set.labels {
            let _ = (set.name(l), set.value(l));
        }
    }
}

/// The event record array decoder on arbitrary bytes: byte 0 picks plain
/// or high-resolution records and the value's type byte; the rest is an
/// array as it travels (big-endian). The array is turned to host order,
/// checked, unpacked, summarised (as pmPrintValue does) and dumped (as
/// libpcp's diagnostic dump does), whatever the check says.
pub fn event_target(data: &[u8]) {
    let Some((&pick, wire)) = data.split_first() else { return };
    let highres = pick & 1 == 1;
    let vtype = match pick >> 1 & 3 {
        0 => MetricType::EVENT.0 as u8,
        1 => MetricType::HIGHRES_EVENT.0 as u8,
        2 => 0,
        _ => pick,
    };
    let mut bytes = wire.to_vec();
    pcp_core::event::to_host_order(&mut bytes, highres);
    let block = ValueBlock::new(vtype, bytes);
    let _ = pcp_core::event::check(&block, highres);
    if let Ok(records) = pcp_core::event::unpack(&block, highres) {
        for r in &records {
            for set in &r.sets {
                for iv in set.values.iter().flatten() {
                    let mut out = Vec::new();
                    let _ = print_value(&mut out, &iv.value, type_of(pick), 1);
                }
            }
        }
    }
    let mut out = Vec::new();
    let ty = if highres { MetricType::HIGHRES_EVENT } else { MetricType::EVENT };
    let _ = print_value(&mut out, &Value::Block(block.clone()), ty, 1);
    let src = pcp_core::event::DumpSource {
        pmid: pcp_core::PmId(pick as u32),
        numval: 1,
        valfmt: (pick >> 3 & 3) as i32,
        inst: -1,
        block: Some(&block),
    };
    pcp_core::event::dump(&mut out, &src, highres, &|p| (p.0 % 2 == 0).then(|| vec!["a.b".to_string()]));
}
