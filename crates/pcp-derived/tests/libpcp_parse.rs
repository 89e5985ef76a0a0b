//! The parser against libpcp 6.0.3: every case recorded by
//! oracle/gen-derived.sh (tests/golden/*.tsv) must come out the same:
//! pmRegisterDerivedMetric's status and message, the tokens libpcp's lexer
//! read, and the parse tree. Cases exercising what the manual page adds to
//! 6.0.3's language (an expression inside delta(), rate() or instant(),
//! novalue(), meta=) are checked against tests/golden/extensions.tsv
//! instead, hand-written from the manual page and PCP 6.3's grammar.

mod common;

use pcp_derived::lex::Token;
use pcp_derived::{parse_traced, register_message, Expr, Filter, Node, NodeId, ParseState, Registry};
use std::collections::HashMap;

/// The oracle's escaping of token and tree text.
fn text(out: &mut String, s: &[u8]) {
    for &c in s {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'"' | b' ' | 0..=0x1f | 0x7f..=0xff => out.push_str(&format!("\\x{c:02x}")),
            _ => out.push(c as char),
        }
    }
}

fn tokens(trace: &[Token]) -> String {
    let mut s = String::new();
    for (i, t) in trace.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(t.tok.trace_name());
        s.push('"');
        text(&mut s, &t.text);
        s.push('"');
    }
    if s.is_empty() {
        s.push('-');
    }
    s
}

/// The tree as the oracle writes libpcp's: (TYPE "value" child...).
fn tree(e: &Expr, id: NodeId, s: &mut String) {
    let leaf = |s: &mut String, kind: &str, v: &[u8]| {
        s.push('(');
        s.push_str(kind);
        s.push_str(" \"");
        text(s, v);
        s.push_str("\")");
    };
    let node = |s: &mut String, kind: &str, kids: &[NodeId]| {
        s.push('(');
        s.push_str(kind);
        for &k in kids {
            s.push(' ');
            tree(e, k, s);
        }
        s.push(')');
    };
    match &e[id] {
        Node::Integer(c) => leaf(s, "INTEGER", c.text.as_bytes()),
        Node::Double(c) => leaf(s, "DOUBLE", c.text.as_bytes()),
        Node::Name(n) => leaf(s, "NAME", n.as_bytes()),
        Node::Neg(x) => node(s, "NEG", &[*x]),
        Node::Not(x) => node(s, "NOT", &[*x]),
        Node::Binary(op, l, r) => node(s, op.node_name(), &[*l, *r]),
        Node::Ternary(g, t, f) => {
            s.push_str("(QUEST ");
            tree(e, *g, s);
            s.push(' ');
            node(s, "COLON", &[*t, *f]);
            s.push(')');
        }
        Node::NoValue(_) => s.push_str("(NOVALUE)"),
        Node::Func(f, x) => node(s, f.node_name(), &[*x]),
        Node::Anon(t) => {
            s.push_str("(ANON ");
            leaf(s, "INTEGER", t.as_bytes());
            s.push(')');
        }
        Node::Rescale(x, u) => {
            s.push_str("(RESCALE ");
            tree(e, *x, s);
            s.push(' ');
            leaf(s, "SCALE", u.to_string().as_bytes());
            s.push(')');
        }
        Node::Filter(f, x) => {
            s.push_str("(FILTERINST ");
            match f {
                Filter::Instance(i) => leaf(s, "PATTERN ?", i),
                Filter::Regex { pattern, invert } => leaf(s, if *invert { "PATTERN !" } else { "PATTERN ?" }, pattern),
            }
            s.push(' ');
            tree(e, *x, s);
            s.push(')');
        }
    }
}

/// libpcp's dump says "exact" for name[inst] and "regex" for (expr)[inst]
/// and matchinst(); the trees here do not tell the first two apart.
fn normalise(t: &str) -> String {
    t.replace("(PATTERN exact ", "(PATTERN ? ")
        .replace("(PATTERN regex ", "(PATTERN ? ")
        .replace("(PATTERN !regex ", "(PATTERN ! ")
}

/// Our tree against libpcp's, both normalised. libpcp 6.0.3 never sets the
/// negation flag of an `(expr)[inst]` pattern (its memory comes from malloc
/// uninitialised, so its dump may say "!regex" after an earlier
/// `matchinst(!...)` freed a pattern there): where ours shows a pattern
/// that is not negated, libpcp's may show either.
fn same_tree(ours: &str, golden: &str) -> bool {
    let (ours, golden) = (normalise(ours), normalise(golden));
    let (o, g): (Vec<&str>, Vec<&str>) = (ours.split("(PATTERN ").collect(), golden.split("(PATTERN ").collect());
    o.len() == g.len()
        && o[0] == g[0]
        && o[1..].iter().zip(&g[1..]).all(|(o, g)| match (o.strip_prefix("? "), g.strip_prefix("! ")) {
            (Some(o), Some(g)) => o == g,
            _ => o == g,
        })
}

#[test]
fn an_unset_negation_in_libpcp_dump_is_accepted_only_where_ours_is_plain() {
    assert!(same_tree(
        "(FILTERINST (PATTERN ? \"a\") (NAME \"x\"))",
        "(FILTERINST (PATTERN !regex \"a\") (NAME \"x\"))"
    ));
    assert!(!same_tree(
        "(FILTERINST (PATTERN ! \"a\") (NAME \"x\"))",
        "(FILTERINST (PATTERN regex \"a\") (NAME \"x\"))"
    ));
    assert!(!same_tree(
        "(FILTERINST (PATTERN ? \"a\") (NAME \"x\"))",
        "(FILTERINST (PATTERN !regex \"b\") (NAME \"x\"))"
    ));
}

struct Outcome {
    rc: String,
    errmsg: String,
    tokens: String,
    tree: String,
}

fn run(name: &[u8], expr: &[u8], state: &mut ParseState) -> Outcome {
    let mut trace = Vec::new();
    let r = parse_traced(expr, state, &mut trace);
    let mut errmsg = String::new();
    let (rc, t) = match &r {
        Ok(e) => {
            let mut t = String::new();
            tree(e, e.root(), &mut t);
            ("0", t)
        }
        Err(e) => {
            text(&mut errmsg, &register_message(name, expr, e));
            ("-1", "-".to_string())
        }
    };
    Outcome { rc: rc.to_string(), errmsg, tokens: tokens(&trace), tree: t }
}

/// The oracle escapes message columns with escout (spaces and quotes
/// kept); compare unescaped bytes.
fn same_message(ours: &str, golden: &str) -> bool {
    common::column(ours) == common::column(golden)
}

/// Whether libpcp's tokens show a construct the manual page extends.
fn extension_case(tokens: &str) -> bool {
    ["DELTA\"", "RATE\"", "INSTANT\"", "NAME\"novalue\" LPAREN", "NAME\"meta\""].iter().any(|k| tokens.contains(k))
}

#[test]
fn regcomp_verdicts() {
    let mut n = 0;
    for line in common::golden("regex.tsv").lines() {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f[0], "R");
        let re = common::column(f[1]);
        let want = common::column(f[2]);
        let got = match pcp_derived::regex::check(&re) {
            Ok(()) => b"ok".to_vec(),
            Err(e) => e.as_bytes().to_vec(),
        };
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want),
            "regex {:?}",
            String::from_utf8_lossy(&re)
        );
        n += 1;
    }
    assert!(n > 3000, "{n} cases");
    eprintln!("{n} patterns as glibc");
}

/// Every expression of the oracle's that the recogniser is sure of,
/// libpcp parsed (but for what 6.0.3 lacks) and so does the parser here;
/// and it is sure of nearly all of those libpcp parses that are plain
/// ASCII.
#[test]
fn what_is_recognised_libpcp_parses() {
    let (mut sure, mut plain, mut extended) = (0, 0, 0);
    for line in common::golden("parse.tsv").lines() {
        let f: Vec<&str> = line.split('\t').collect();
        if f[0] != "E" {
            continue;
        }
        let expr = common::column(f[2]);
        let ok = f[3] == "0";
        let ascii = expr.is_ascii();
        plain += usize::from(ok && ascii);
        if pcp_derived::recognises(&expr, &mut ParseState::default()) {
            assert!(
                ok || extension_case(f[5]),
                "recognised, but libpcp fails it: {:?}",
                String::from_utf8_lossy(&expr)
            );
            assert!(pcp_derived::parse(&String::from_utf8_lossy(&expr)).is_ok());
            if ok {
                sure += 1;
            } else {
                extended += 1;
            }
        }
    }
    assert!(sure * 100 >= plain * 99, "{sure} of {plain} recognised");
    eprintln!("{sure} of the {plain} ASCII expressions libpcp parses recognised, and {extended} of the manual page's");
}

#[test]
fn parses_like_libpcp() {
    let ext = extensions();
    let (mut exact, mut extended, mut sequences, mut unjudged, mut untraced) = (0, 0, 0, 0, 0);
    let fresh = std::env::var_os("PCP_RS_DERIVED_GOLDEN").is_some();
    let mut seq_registry: HashMap<String, Registry> = HashMap::new();
    let mut failures = Vec::new();
    for line in common::golden("parse.tsv").lines() {
        let f: Vec<&str> = line.split('\t').collect();
        match f[0] {
            "E" => {
                let (name, expr) = (common::column(f[1]), common::column(f[2]));
                let o = run(&name, &expr, &mut ParseState::default());
                let shown = String::from_utf8_lossy(&expr).into_owned();
                if extension_case(f[5]) && (f[3] != "0" || f[5].contains("NAME\"meta\"")) {
                    // checked against the hand-written expectation instead
                    let Some(want) = ext.get(f[2]) else {
                        // a fresh seed's random expression outside 6.0.3's
                        // language: libpcp cannot judge it and nobody wrote
                        // what the spec makes of it, so it is counted, not
                        // compared; every such case of the committed file
                        // has its expectation
                        if fresh {
                            unjudged += 1;
                        } else {
                            failures.push(format!(
                                "extension case without expectation: {}\n  ours {} {} {}",
                                f[2], o.rc, o.errmsg, o.tree
                            ));
                        }
                        continue;
                    };
                    if o.rc != want.0 || !same_message(&o.errmsg, &want.1) || o.tree != want.2 {
                        failures.push(format!(
                            "extension {shown:?}\n  want {want:?}\n  ours {} {} {}",
                            o.rc, o.errmsg, o.tree
                        ));
                    }
                    extended += 1;
                    continue;
                }
                if f[5] == "crash" {
                    // libpcp's traced run died (its syntax trace crashes on
                    // some random expressions): the oracle has only the
                    // untraced run's status and message to compare
                    if o.rc != f[3] || !same_message(&o.errmsg, f[4]) {
                        failures.push(format!(
                            "{shown:?}\n  libpcp (untraced) {} {}\n  ours   {} {}",
                            f[3], f[4], o.rc, o.errmsg
                        ));
                    }
                    untraced += 1;
                    continue;
                }
                let ok = o.rc == f[3] && same_message(&o.errmsg, f[4]) && o.tokens == f[5] && same_tree(&o.tree, f[6]);
                if !ok {
                    failures.push(format!(
                        "{shown:?}\n  libpcp {} {} | {} | {}\n  ours   {} {} | {} | {}",
                        f[3], f[4], f[5], f[6], o.rc, o.errmsg, o.tokens, o.tree
                    ));
                }
                exact += 1;
            }
            "S" => {
                // registrations in one process: what a parse leaves matters
                let (name, expr) = (common::column(f[2]), common::column(f[3]));
                let r = seq_registry.entry(f[1].to_string()).or_default();
                let got = match r.register_bytes(&name, &expr, false) {
                    Ok(_) => ("0".to_string(), String::new()),
                    Err(e) => {
                        let mut m = String::new();
                        text(&mut m, &register_message(&name, &expr, &e));
                        ("-1".to_string(), m)
                    }
                };
                if got.0 != f[4] || !same_message(&got.1, f[5]) {
                    failures.push(format!(
                        "seq {} {:?}\n  libpcp {} {}\n  ours   {} {}",
                        f[1], f[3], f[4], f[5], got.0, got.1
                    ));
                }
                sequences += 1;
            }
            k => panic!("unknown line kind {k}"),
        }
    }
    let n = failures.len();
    for f in failures.iter().take(40) {
        eprintln!("{f}");
    }
    assert_eq!(
        n, 0,
        "{n} cases differ ({exact} compared with libpcp, {untraced} only by status as libpcp's trace crashed, \
         {extended} with extensions.tsv, {sequences} in sequences, {unjudged} outside 6.0.3's language with no \
         written expectation)"
    );
    assert!(exact > 3000 && sequences >= 15, "{exact} {sequences}");
    // the cases nobody can judge stay rare (about 1 in 10,000 random ones)
    assert!(unjudged * 100 < exact, "{unjudged} unjudged of {exact}");
    eprintln!("{exact} compared with libpcp, {extended} with extensions.tsv, {unjudged} unjudged");
    eprintln!("{exact} cases as libpcp, {extended} extension cases as expected, {sequences} sequence steps");
}

/// extensions.tsv: expression, rc, errmsg, tree (escaped as the oracle's).
fn extensions() -> HashMap<String, (String, String, String)> {
    common::golden("extensions.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_string(), (f[1].to_string(), f[2].to_string(), f[3].to_string()))
        })
        .collect()
}
