//! Derived-metric traces (`-Dderive` with `appl0`, `appl1`, `appl2`)
//! against the C tools' over the fixture archives.
//!
//! The traces print node addresses, which differ from run to run and
//! between libpcp and pcp-rs; as PCP's QA filters do, each address in a
//! tree dump (and the pattern address `regex_inst_gc` prints,
//! and the table address `__dmclosecontext` prints) is replaced
//! by `<addr-N>`, numbered in order of appearance, before comparing. Each
//! case is `tests/derive_trace/TOOL/NAME.cmd` in the golden cases' format;
//! `PCP_RS_RECORD=1` records the filtered outputs of the C tool beside it
//! (`PCP_RS_ONLY=TEXT`: only the cases whose path holds TEXT).

#[path = "common/case.rs"]
mod case;

use case::compare_filtered;
use std::path::PathBuf;

/// The text with the addresses of trees' nodes numbered as the QA
/// filters number them.
fn number_addresses(text: &[u8]) -> Vec<u8> {
    let s = String::from_utf8_lossy(text);
    let mut seen: Vec<String> = Vec::new();
    for line in s.lines() {
        let at = ["expr node ", "dump from ", "regex_inst_gc(", "dm->"]
            .iter()
            .find_map(|m| line.find(m).map(|i| i + m.len()));
        let Some(at) = at else { continue };
        let addr: String = line[at..].chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
        if addr.starts_with("0x") && !seen.contains(&addr) {
            seen.push(addr);
        }
    }
    let mut out = String::with_capacity(s.len());
    for line in s.split_inclusive('\n') {
        let mut line = line.to_string();
        // (longest first: no address is replaced inside another)
        let mut order: Vec<usize> = (0..seen.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(seen[i].len()));
        for i in order {
            if line.contains(&seen[i]) {
                line = line.replace(&seen[i], &format!("<addr-{i}>"));
            }
        }
        out.push_str(&line);
    }
    out.into_bytes()
}

#[test]
fn traces_match_the_c_tools() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/derive_trace");
    let run = |tool: &str| match tool {
        "pminfo" => pcp_tools::pminfo::run,
        "pmval" => pcp_tools::pmval::run,
        _ => panic!("trace cases for unknown tool {tool}"),
    };
    let (_, failures) = compare_filtered(&root, run, number_addresses);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn addresses_are_numbered_in_order_of_appearance() {
    let text = b"Derived metric expr dump from 0x55aa00...\n\
                 expr node 0x55aa00 type=PLUS left=0x55aa40 right=0x55aa0 save_last=0\n\
                 expr node 0x55aa40 type=NAME\nexpr node 0x55aa0 type=NAME InDom: 29.2 0x7400002\n";
    assert_eq!(
        String::from_utf8_lossy(&number_addresses(text)),
        "Derived metric expr dump from <addr-0>...\n\
         expr node <addr-0> type=PLUS left=<addr-1> right=<addr-2> save_last=0\n\
         expr node <addr-1> type=NAME\nexpr node <addr-2> type=NAME InDom: 29.2 0x7400002\n"
    );
}
