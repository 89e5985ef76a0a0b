//! The facade's errors name what the failing call was given: the archive,
//! the host, the name space file, the metric name.

use pcp::error::Subject;
use pcp::{Context, Error, PmError};
use std::path::Path;

/// The message of any error, through the trait object.
fn message(e: &dyn std::error::Error) -> String {
    e.to_string()
}

/// A path under the temporary directory that does not exist.
fn missing(what: &str) -> String {
    let dir = std::env::temp_dir().join(format!("pcp-rs-errors-{}-{what}", std::process::id()));
    dir.join("none").to_string_lossy().into_owned()
}

#[test]
fn opening_a_missing_archive_names_it() {
    let name = missing("archive");
    let e = Context::open_archive(&name).unwrap_err();
    assert_eq!(e.code(), PmError::from_errno(2));
    assert_eq!(e.subject(), Some(&Subject::Archive(name.clone())));
    assert_eq!(e.path(), Some(Path::new(&name)));
    assert_eq!(message(&e), format!("Cannot open archive \"{name}\": No such file or directory"));
}

#[test]
fn opening_a_list_names_the_archive_that_failed() {
    let good = format!("{}/../pcp-archive/tests/fixtures/v2", env!("CARGO_MANIFEST_DIR"));
    Context::open_archive(&good).expect("fixture archive");
    let bad = missing("list");
    let e = Context::open_archive(&format!("{good},{bad}")).unwrap_err();
    assert_eq!((e.code(), e.path()), (PmError::from_errno(2), Some(Path::new(&bad))));
}

#[test]
fn loading_a_missing_namespace_names_the_file() {
    let path = missing("pmns");
    let (ctx, diagnostics) = Context::load_namespace(path.as_bytes(), true, &mut pcp_pmns::cpp::OsFiles);
    let e = ctx.unwrap_err();
    assert_eq!(e.code(), PmError::from_errno(2));
    assert_eq!(e.subject(), Some(&Subject::Namespace(path.clone().into())));
    assert_eq!(message(&e), format!("Cannot load namespace from \"{path}\": No such file or directory"));
    // libpcp's own diagnostic is unchanged
    assert_eq!(diagnostics, format!("Error Parsing ASCII PMNS: Cannot open \"{path}\"\n").into_bytes());
}

#[test]
fn a_bad_host_specification_names_the_host() {
    let e = Context::open_host("[::1").unwrap_err();
    assert_eq!(e.code(), PmError::PM_ERR_GENERIC);
    assert_eq!(e.name(), Some("[::1"));
    assert!(message(&e).starts_with("Cannot connect to PMCD on host \"[::1\": "), "{e}");
}

#[test]
fn the_code_comes_back_for_status_code_callers() {
    fn open(name: &str) -> pcp::PmResult<Context> {
        Ok(Context::open_archive(name)?)
    }
    assert_eq!(open(&missing("code")).unwrap_err(), PmError::from_errno(2));
    let e: Error = PmError::PM_ERR_EOL.into();
    assert_eq!((e.subject(), message(&e)), (None, "End of PCP archive log".to_string()));
}

#[test]
fn time_specification_errors_are_errors() {
    let e = pcp::timeparse::parse_interval(b"junk").unwrap_err();
    assert!(message(&e).starts_with("junk\n^"), "{e}");
}
