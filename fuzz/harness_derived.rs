// The derived-metric fuzz target's body, shared by `cargo fuzz`
// (fuzz/fuzz_targets/derived.rs) and the corpus replay in `cargo test`
// (crates/pcp-derived/tests/fuzz_corpus.rs). It must never panic or hang.

use pcp_core::{Desc, InDom, MetricType, PmError, PmId, Semantics, Units};
use pcp_derived::check::{check, Catalog};
use pcp_derived::config::{ConfigFiles, Environment, PathKind};
use pcp_derived::lex::Lexer;
use pcp_derived::{parse_bytes, recognises, register_message, ContextTable, ParseState, Registry};

/// One file, "f", holding the input; "d" a directory listing it twice.
struct OneFile<'a>(&'a [u8]);

impl ConfigFiles for OneFile<'_> {
    fn kind(&mut self, path: &[u8]) -> Result<PathKind, pcp_core::PmError> {
        match path {
            b"f" | b"d/f" => Ok(PathKind::File),
            b"d" => Ok(PathKind::Directory),
            _ => Err(pcp_core::PmError::from_errno(2)),
        }
    }
    fn list(&mut self, _: &[u8]) -> Result<Vec<Vec<u8>>, pcp_core::PmError> {
        Ok(vec![b"f".to_vec(), b".".to_vec(), b"f".to_vec()])
    }
    fn read(&mut self, _: &[u8]) -> Result<Vec<u8>, pcp_core::PmError> {
        Ok(self.0.to_vec())
    }
}

/// Metrics of every kind for the semantic checks: names made of one
/// letter, with types, semantics, units and instance domains taken from
/// the letter; `d` is a derived metric.
struct Letters;

impl Catalog for Letters {
    fn lookup_name(&mut self, name: &str) -> Result<PmId, PmError> {
        match name.as_bytes() {
            [b'd'] => Ok(PmId(0x7fc0_0009)),
            [c @ b'a'..=b'z'] => Ok(PmId(u32::from(*c))),
            _ => Err(PmError::PM_ERR_NAME),
        }
    }
    fn lookup_desc(&mut self, pmid: PmId) -> Result<Desc, PmError> {
        let c = pmid.0 & 0xff;
        Ok(Desc {
            pmid,
            ty: MetricType((c % 11) as i32),
            indom: if c % 3 == 0 { InDom::NULL } else { InDom(c % 3) },
            sem: Semantics([1, 3, 4][(c % 3) as usize]),
            units: Units::from_u32((c.wrapping_mul(0x9e37_79b9)) & 0xffff_ff00),
        })
    }
}

/// The lexer, the parser (in both starting states), re-parsing what a tree
/// prints, semantic checks, registration (global and per-context) and configuration loading
/// on arbitrary bytes.
pub fn derived_target(data: &[u8]) {
    // tokens start inside the text, in order
    let text = &data[..data.iter().position(|&b| b == 0).unwrap_or(data.len())];
    let mut lexer = Lexer::new(data);
    let mut last = -1;
    for _ in 0..=text.len() + 1 {
        let t = lexer.next_token(false);
        assert!(t.start >= last && t.start < text.len().max(1) as isize, "token at {} after {last}", t.start);
        last = t.start;
        if matches!(t.tok, pcp_derived::Tok::Eos | pcp_derived::Tok::LexError) {
            break;
        }
    }

    for open in [false, true] {
        let mut state = ParseState::default();
        if open {
            // leave a matchinst( open, as a failed parse can
            let _ = parse_bytes(b"matchinst(", &mut state);
        }
        // what the recogniser is sure of parses, from the same state, and
        // leaves the state as it was
        let before = state.clone();
        let sure = recognises(data, &mut state);
        assert_eq!(state, before);
        let parsed = parse_bytes(data, &mut state);
        if sure {
            assert!(parsed.is_ok(), "recognised but {parsed:?}");
            assert_eq!(state, before);
        }
        match parsed {
            Ok(e) => {
                let _ = check("m", PmId(0x7fc0_0001), &e, &mut Letters);
                // what a tree prints parses to a tree that prints the same
                if std::str::from_utf8(data).is_ok() {
                    let shown = e.to_string();
                    let again = parse_bytes(shown.as_bytes(), &mut ParseState::default())
                        .unwrap_or_else(|err| panic!("{shown:?} does not parse: {err}"));
                    assert_eq!(again.to_string(), shown);
                }
            }
            Err(err) => {
                assert!(err.offset >= -1 && err.offset < text.len().max(1) as isize, "offset {}", err.offset);
                let m = register_message(b"d.m", data, &err);
                assert!(m.ends_with(b"\n"));
            }
        }
    }

    let mut r = Registry::new();
    let _ = r.register_bytes(b"a", data, false);
    let _ = r.register_bytes(b"a", data, false);
    let mut c = ContextTable::open(&r);
    let s = String::from_utf8_lossy(data);
    let _ = c.add(&mut r, "a", &s);
    let _ = c.add(&mut r, "b", &s);
    let _ = c.lookup(&r, "a");

    let env = Environment { derived_config: Some(b"f:d".to_vec()), var_dir: b"/v".to_vec(), progname: "fuzz".into() };
    let mut files = OneFile(data);
    let mut r = Registry::new();
    let _ = r.init(&env, &mut files);
    let _ = r.load_config(b"f", &env, &mut files);
}
