//! The derived-metric error types are `std::error::Error`s whose `Display`
//! is libpcp's diagnostic.

use pcp_core::{Desc, MetricType, PmError, PmId};
use pcp_derived::check::{check, Catalog};
use pcp_derived::registry::AttributeError;
use pcp_derived::{parse_bytes, AddError, ParseState, Registry};

/// The message of any error, through the trait object.
fn message(e: &dyn std::error::Error) -> String {
    e.to_string()
}

/// A catalog that knows no metrics.
struct Empty;

impl Catalog for Empty {
    fn lookup_name(&mut self, _: &str) -> Result<PmId, PmError> {
        Err(PmError::PM_ERR_NAME)
    }
    fn lookup_desc(&mut self, _: PmId) -> Result<Desc, PmError> {
        Err(PmError::PM_ERR_PMID)
    }
}

#[test]
fn syntax_error_displays_offset_and_diagnostic() {
    let e = parse_bytes(b"1 +", &mut ParseState::default()).unwrap_err();
    assert!(message(&e).starts_with("syntax error at offset "), "{e}");
}

#[test]
fn semantic_error_displays_libpcp_reason() {
    let expr = parse_bytes(b"no.such.metric", &mut ParseState::default()).expect("parses");
    let e = check("m", PmId(0), &expr, &mut Empty).unwrap_err();
    assert_eq!(message(&e), "semantic error: Unknown operand metric");
    let text = br#"-(rescale(matchinst(/a/, scalar(1.5)), "byte"))"#;
    let expr = parse_bytes(text, &mut ParseState::default()).expect("parses");
    let e = check("d.m", PmId(0), &expr, &mut Empty).unwrap_err();
    assert_eq!(message(&e), "Semantic error: derived metric d.m: <expr> RESCALE byte: Incompatible dimensions");
}

#[test]
fn add_error_displays_each_kind() {
    assert_eq!(
        message(&AddError::Table(b"Duplicate per-context derived metric name".to_vec())),
        "Duplicate per-context derived metric name"
    );
    let syntax = parse_bytes(b"1 +", &mut ParseState::default()).unwrap_err();
    assert_eq!(message(&AddError::Syntax(syntax.clone())), syntax.to_string());
    assert_eq!(
        message(&AddError::Semantic(b"Unknown operand metric".to_vec())),
        "semantic error: Unknown operand metric"
    );
}

#[test]
fn anon_error_displays_report_or_code() {
    let mut reg = Registry::default();
    let e = reg.register_anon("a.b", MetricType::STRING).unwrap_err();
    assert_eq!(message(&e), "Unknown or illegal metric type");
    reg.register_anon("a.b", MetricType::I32).expect("registers");
    let e = reg.register_anon("a.b", MetricType::I32).unwrap_err();
    assert!(message(&e).starts_with("__pmRegisterAnon(a.b, 0): "), "{e}");
}

#[test]
fn attribute_error_displays_libpcp_words() {
    let mut reg = Registry::default();
    let e = reg.set_attribute("no.such", "oneline", b"x".to_vec()).unwrap_err();
    assert_eq!(e, AttributeError::NoMetric);
    assert_eq!(message(&e), "cannot set attribute, derived metric not defined");
    assert_eq!(message(&AttributeError::UnknownAttribute), "attribute is unknown for metric");
    assert_eq!(message(&AttributeError::Duplicate), "duplicate value for attribute");
}
