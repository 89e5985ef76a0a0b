//! PMAPI error codes (`PM_ERR_*`) and their texts, as `pmErrStr` gives them,
//! and [`Error`]: a code with what the failing call was given.
//!
//! One table ([`ERROR_TABLE`]) holds every code with its symbol and message;
//! the constants, [`PmError::symbol`], `Display` and the `pmerr -l` listing are
//! all generated from it. Its order is libpcp's, because `pmerr -l` prints it.
//! The errno values' symbols and texts are a table of their own, as the C
//! library's are.

use crate::errtext::{ERRNO_TEXT, SASL_TEXT};
use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};

/// Base of the PMAPI error codes: `PM_ERR_BASE` (12345).
pub const PM_ERR_BASE: i32 = 12345;

/// A PCP error: a negative status code, either `-errno` or one of `PM_ERR_*`.
///
/// The `Display` text is exactly what libpcp's `pmErrStr` prints for the code;
/// `Debug` shows the C symbol (`PmError(PM_ERR_NOAGENT)`, `PmError(ENOENT)`),
/// or the number for a code without one (`PmError(-99999)`).
#[doc(alias = "pmErrStr")]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PmError(i32);

/// One row of the error table: code, C symbol, message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorEntry {
    /// The (negative) status code.
    pub code: i32,
    /// The C symbol, e.g. `PM_ERR_NAME`.
    pub symbol: &'static str,
    /// The `pmErrStr` text.
    pub message: &'static str,
}

macro_rules! error_table {
    ($( $(#[$doc:meta])* $name:ident = $off:expr, $msg:expr; )*) => {
        impl PmError {
            $(
                $(#[$doc])*
                #[doc = concat!("`", stringify!($name), "`: ", $msg)]
                pub const $name: PmError = PmError(-PM_ERR_BASE - $off);
            )*
        }
        /// Every `PM_ERR_*` code in libpcp's order, as `pmerr -l` lists them.
        pub const ERROR_TABLE: &[ErrorEntry] = &[
            $( ErrorEntry { code: -PM_ERR_BASE - $off, symbol: stringify!($name), message: $msg }, )*
        ];
    };
}

error_table! {
    PM_ERR_GENERIC = 0, "Generic error, already reported above";
    PM_ERR_PMNS = 1, "Problems parsing PMNS definitions";
    PM_ERR_NOPMNS = 2, "PMNS not accessible";
    PM_ERR_DUPPMNS = 3, "Attempt to reload the PMNS";
    PM_ERR_TEXT = 4, "One-line or help text is not available";
    PM_ERR_APPVERSION = 5, "Metric not supported by this version of monitored application";
    PM_ERR_VALUE = 6, "Missing metric value(s)";
    PM_ERR_TIMEOUT = 8, "Timeout waiting for a response from PMCD";
    PM_ERR_NODATA = 9, "Empty archive log file";
    PM_ERR_RESET = 10, "PMCD reset or configuration change";
    PM_ERR_NAME = 12, "Unknown metric name";
    PM_ERR_PMID = 13, "Unknown or illegal metric identifier";
    PM_ERR_INDOM = 14, "Unknown or illegal instance domain identifier";
    PM_ERR_INST = 15, "Unknown or illegal instance identifier";
    PM_ERR_TYPE = 52, "Unknown or illegal metric type";
    PM_ERR_UNIT = 16, "Illegal pmUnits specification";
    PM_ERR_CONV = 17, "Impossible value or scale conversion";
    PM_ERR_TRUNC = 18, "Truncation in value conversion";
    PM_ERR_SIGN = 19, "Negative value in conversion to unsigned";
    PM_ERR_PROFILE = 20, "Explicit instance identifier(s) required";
    PM_ERR_IPC = 21, "IPC protocol failure";
    PM_ERR_TLS = 69, "TLS protocol failure";
    PM_ERR_EOF = 23, "IPC channel closed";
    PM_ERR_NOTHOST = 24, "Operation requires context with host source of metrics";
    PM_ERR_EOL = 25, "End of PCP archive log";
    PM_ERR_MODE = 26, "Illegal mode specification";
    PM_ERR_LABEL = 27, "Illegal label record at start of a PCP archive log file";
    PM_ERR_LOGREC = 28, "Corrupted record in a PCP archive log";
    PM_ERR_LOGFILE = 30, "Missing PCP archive log file";
    PM_ERR_NOTARCHIVE = 29, "Operation requires context with archive source of metrics";
    PM_ERR_NOCONTEXT = 31, "Attempt to use an illegal context";
    PM_ERR_PROFILESPEC = 32, "NULL pmInDom with non-NULL instlist";
    PM_ERR_PMID_LOG = 33, "Metric not defined in the PCP archive log";
    PM_ERR_INDOM_LOG = 34, "Instance domain identifier not defined in the PCP archive log";
    PM_ERR_INST_LOG = 35, "Instance identifier not defined in the PCP archive log";
    PM_ERR_NOPROFILE = 36, "Missing profile - protocol botch";
    PM_ERR_NOAGENT = 41, "No PMCD agent for domain of request";
    PM_ERR_PERMISSION = 42, "No permission to perform requested operation";
    PM_ERR_CONNLIMIT = 43, "PMCD connection limit for this host exceeded";
    PM_ERR_AGAIN = 44, "Try again. Information not currently available";
    PM_ERR_ISCONN = 45, "Already Connected";
    PM_ERR_NOTCONN = 46, "Not Connected";
    PM_ERR_NEEDPORT = 47, "A non-null port name is required";
    PM_ERR_NONLEAF = 49, "Metric name is not a leaf in PMNS";
    PM_ERR_PMDANOTREADY = 1049, "PMDA is not yet ready to respond to requests";
    PM_ERR_PMDAREADY = 1048, "PMDA is now responsive to requests";
    PM_ERR_BOTCH = 97, "Internal inconsistency detected or assertion failed";
    PM_ERR_TOOSMALL = 98, "Insufficient elements in list";
    PM_ERR_TOOBIG = 99, "Result size exceeded";
    PM_ERR_FAULT = 100, "QA fault injected";
    PM_ERR_THREAD = 53, "Operation not supported for multi-threaded applications";
    PM_ERR_NOCONTAINER = 54, "Container not found";
    PM_ERR_BADSTORE = 55, "Bad input to pmstore";
    PM_ERR_LOGOVERLAP = 56, "Archives overlap in time";
    PM_ERR_LOGHOST = 57, "Archives differ by host";
    PM_ERR_LOGCHANGETYPE = 59, "The type of a metric has changed in an archive";
    PM_ERR_LOGCHANGESEM = 60, "The semantics of a metric has changed in an archive";
    PM_ERR_LOGCHANGEINDOM = 61, "The instance domain of a metric has changed in an archive";
    PM_ERR_LOGCHANGEUNITS = 62, "The units of a metric have changed in an archive";
    PM_ERR_NEEDCLIENTCERT = 63, "PMCD requires a client certificate";
    PM_ERR_BADDERIVE = 64, "Derived metric definition failed";
    PM_ERR_NOLABELS = 65, "No support for metric label metadata";
    PM_ERR_PMDAFENCED = 66, "PMDA is currently fenced and unable to respond to requests";
    PM_ERR_RECTYPE = 67, "Incorrect record type in an archive";
    PM_ERR_FEATURE = 68, "Archive feature not supported";
    PM_ERR_NYI = 8999, "Functionality not yet implemented";
}

impl PmError {
    /// Wrap a status code. Any `i32` is accepted: positive and unknown codes
    /// still have a `pmErrStr` text.
    pub const fn from_code(code: i32) -> PmError {
        PmError(code)
    }

    /// The error for a system `errno` value (status `-errno`).
    pub const fn from_errno(errno: i32) -> PmError {
        PmError(errno.wrapping_neg())
    }

    /// The numeric status code (negative for real errors).
    pub const fn code(self) -> i32 {
        self.0
    }

    /// The C symbol: `PM_ERR_*` for a PMAPI error code, `E*` (Linux's
    /// name) for a system error; `None` for other codes.
    pub fn symbol(self) -> Option<&'static str> {
        match self.errno() {
            Some(errno) => errno_entry(errno).map(|&(_, symbol, _)| symbol),
            None => lookup(self.0).map(|e| e.symbol),
        }
    }

    /// The errno this status carries, if it is in the system range.
    pub fn errno(self) -> Option<i32> {
        (self.0 < 0 && self.0 > -PM_ERR_BASE).then(|| -self.0)
    }

    /// The message text, as `pmErrStr` gives it.
    #[doc(alias = "pmErrStr")]
    #[doc(alias = "pmErrStr_r")]
    pub fn text(self) -> Cow<'static, str> {
        err_str(self.0)
    }
}

impl fmt::Display for PmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

impl fmt::Debug for PmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.symbol() {
            Some(symbol) => write!(f, "PmError({symbol})"),
            None => write!(f, "PmError({})", self.0),
        }
    }
}

impl std::error::Error for PmError {}

impl From<PmError> for i32 {
    fn from(e: PmError) -> i32 {
        e.0
    }
}

fn lookup(code: i32) -> Option<&'static ErrorEntry> {
    ERROR_TABLE.iter().find(|e| e.code == code)
}

/// The errno table's row for `errno`: value, symbol, `strerror` text.
fn errno_entry(errno: i32) -> Option<&'static (i32, &'static str, &'static str)> {
    ERRNO_TEXT.iter().find(|(c, _, _)| *c == errno)
}

/// The text libpcp's `pmErrStr` returns for any status `code`.
///
/// `0` is "No error"; codes in `-1..-12344` are system errors with glibc's
/// `strerror` texts; `PM_ERR_*` codes have the table's texts; codes below
/// `PM_ERR_NYI` are secure-socket (SASL) errors; anything else reads
/// "No such PMAPI error code (N)".
///
/// ```
/// use pcp_core::{err_str, PmError};
///
/// assert_eq!(err_str(0), "No error");
/// assert_eq!(err_str(-2), "No such file or directory");
/// assert_eq!(err_str(PmError::PM_ERR_NAME.code()), "Unknown metric name");
/// assert_eq!(err_str(-12357), PmError::PM_ERR_NAME.to_string());
/// assert_eq!(err_str(5), "No such PMAPI error code (5)");
/// ```
#[doc(alias = "pmErrStr")]
#[doc(alias = "pmErrStr_r")]
pub fn err_str(code: i32) -> Cow<'static, str> {
    if code == 0 {
        return Cow::Borrowed("No error");
    }
    let nyi = PmError::PM_ERR_NYI.0;
    if code < nyi {
        // wrapped libraries' codes: SASL's are offset by PM_ERR_NYI
        let sasl = code - nyi;
        return if sasl >= -1000 {
            let text = SASL_TEXT.iter().find(|(c, _)| *c == sasl).map_or("undefined error!", |(_, t)| *t);
            Cow::Owned(format!("Authentication - {text}"))
        } else {
            Cow::Owned(format!("Unknown secure sockets error {code} ({sasl})"))
        };
    }
    if code < 0 && code > -PM_ERR_BASE {
        let errno = -code;
        return match errno_entry(errno) {
            Some((_, _, t)) => Cow::Borrowed(t),
            None => Cow::Owned(format!("Unknown error {errno}")),
        };
    }
    match lookup(code) {
        Some(e) => Cow::Borrowed(e.message),
        None => Cow::Owned(format!("No such PMAPI error code ({code})")),
    }
}

/// A `Result` whose error is a PCP status code.
pub type PmResult<T> = Result<T, PmError>;

/// What a failed call was given, for an [`Error`] to name.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Subject {
    /// An archive: its base name or one of its files, a directory of
    /// archives, or a comma-separated list of them, as given.
    Archive(String),
    /// A pmcd host specification, as given.
    Host(String),
    /// An ASCII name space file.
    Namespace(PathBuf),
    /// A metric name.
    Metric(String),
}

/// A PCP error with what it is about: the status code ([`Error::code`]),
/// and the archive, host, name space file or metric name the failing call
/// was given, where the library knows it ([`Error::subject`]).
///
/// `Display` says both, in the words PCP's tools use:
/// `Cannot open archive "x": No such file or directory`. A tool that must
/// print exactly what PCP prints formats [`Error::code`] (`pmErrStr`'s
/// text) in its own words.
///
/// ```
/// use pcp_core::error::{Error, Subject};
/// use pcp_core::PmError;
///
/// let e = Error::new(PmError::from_errno(2), Subject::Archive("x".into()));
/// assert_eq!(e.to_string(), "Cannot open archive \"x\": No such file or directory");
/// assert_eq!(e.code(), PmError::from_errno(2));
/// assert_eq!(e.path(), Some(std::path::Path::new("x")));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Error {
    code: PmError,
    subject: Option<Subject>,
}

impl Error {
    /// The error `code` of a call given `subject`.
    pub fn new(code: PmError, subject: Subject) -> Error {
        Error { code, subject: Some(subject) }
    }

    /// The status code, as the C API returns it.
    pub fn code(&self) -> PmError {
        self.code
    }

    /// What the failing call was given, if known.
    pub fn subject(&self) -> Option<&Subject> {
        self.subject.as_ref()
    }

    /// The file the call failed on: an archive's name as given, or a name
    /// space file.
    pub fn path(&self) -> Option<&Path> {
        match self.subject.as_ref()? {
            Subject::Archive(name) => Some(Path::new(name)),
            Subject::Namespace(path) => Some(path),
            Subject::Host(_) | Subject::Metric(_) => None,
        }
    }

    /// The name the call failed on: a metric's, or a host specification.
    pub fn name(&self) -> Option<&str> {
        match self.subject.as_ref()? {
            Subject::Host(name) | Subject::Metric(name) => Some(name),
            Subject::Archive(_) | Subject::Namespace(_) => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.code.text();
        match &self.subject {
            None => f.write_str(&text),
            Some(Subject::Archive(name)) => write!(f, "Cannot open archive \"{name}\": {text}"),
            Some(Subject::Host(host)) => write!(f, "Cannot connect to PMCD on host \"{host}\": {text}"),
            Some(Subject::Namespace(path)) => {
                write!(f, "Cannot load namespace from \"{}\": {text}", path.display())
            }
            Some(Subject::Metric(name)) => write!(f, "{name}: {text}"),
        }
    }
}

/// The code's text is part of the `Display`, so there is no `source`.
impl std::error::Error for Error {}

impl From<PmError> for Error {
    fn from(code: PmError) -> Error {
        Error { code, subject: None }
    }
}

/// The code alone, for callers that work in status codes (the subject is
/// dropped).
impl From<Error> for PmError {
    fn from(e: Error) -> PmError {
        e.code
    }
}

/// An error equals a bare code when its code does, whatever its subject.
impl PartialEq<PmError> for Error {
    fn eq(&self, code: &PmError) -> bool {
        self.code == *code
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_codes_are_unique_and_negative() {
        for (i, a) in ERROR_TABLE.iter().enumerate() {
            assert!(a.code <= -PM_ERR_BASE, "{}", a.symbol);
            for b in &ERROR_TABLE[i + 1..] {
                assert_ne!(a.code, b.code, "{} and {}", a.symbol, b.symbol);
            }
        }
    }

    #[test]
    fn well_known_texts() {
        assert_eq!(PmError::PM_ERR_NAME.code(), -12357);
        assert_eq!(PmError::PM_ERR_NAME.to_string(), "Unknown metric name");
        assert_eq!(PmError::from_errno(13).to_string(), "Permission denied");
        assert_eq!(err_str(5), "No such PMAPI error code (5)");
        assert_eq!(err_str(-134), "Unknown error 134");
        assert_eq!(err_str(-99999), "Unknown secure sockets error -99999 (-78655)");
        assert_eq!(PmError::PM_ERR_CONV.symbol(), Some("PM_ERR_CONV"));
    }

    #[test]
    fn debug_shows_symbols() {
        assert_eq!(format!("{:?}", PmError::PM_ERR_NOAGENT), "PmError(PM_ERR_NOAGENT)");
        assert_eq!(format!("{:?}", PmError::from_errno(2)), "PmError(ENOENT)");
        assert_eq!(format!("{:?}", PmError::from_errno(11)), "PmError(EAGAIN)");
        assert_eq!(format!("{:?}", PmError::from_errno(41)), "PmError(-41)");
        assert_eq!(format!("{:?}", PmError::from_code(-99999)), "PmError(-99999)");
        assert_eq!(format!("{:?}", PmError::from_code(0)), "PmError(0)");
        assert_eq!(format!("{:?}", Err::<(), _>(PmError::PM_ERR_EOL)), "Err(PmError(PM_ERR_EOL))");
    }

    #[test]
    fn every_errno_with_a_text_has_a_symbol() {
        for errno in 1..=133 {
            let e = PmError::from_errno(errno);
            let known = !e.text().starts_with("Unknown error");
            assert_eq!(e.symbol().is_some(), known, "errno {errno}");
            assert!(e.symbol().is_none_or(|s| s.starts_with('E')), "errno {errno}");
        }
    }

    fn message_of(e: &dyn std::error::Error) -> String {
        e.to_string()
    }

    #[test]
    fn error_names_its_subject() {
        let enoent = PmError::from_errno(2);
        let archive = Error::new(enoent, Subject::Archive("/no/such".into()));
        assert_eq!(message_of(&archive), "Cannot open archive \"/no/such\": No such file or directory");
        assert_eq!(archive.path(), Some(Path::new("/no/such")));
        assert_eq!(archive.name(), None);
        let host = Error::new(PmError::from_errno(111), Subject::Host("nohost".into()));
        assert_eq!(message_of(&host), "Cannot connect to PMCD on host \"nohost\": Connection refused");
        assert_eq!(host.name(), Some("nohost"));
        let pmns = Error::new(PmError::PM_ERR_PMNS, Subject::Namespace("x.pmns".into()));
        assert_eq!(message_of(&pmns), "Cannot load namespace from \"x.pmns\": Problems parsing PMNS definitions");
        assert_eq!(pmns.path(), Some(Path::new("x.pmns")));
        let metric = Error::new(PmError::PM_ERR_NAME, Subject::Metric("a.b".into()));
        assert_eq!(message_of(&metric), "a.b: Unknown metric name");
        assert_eq!(metric.name(), Some("a.b"));
        let bare = Error::from(PmError::PM_ERR_EOL);
        assert_eq!(message_of(&bare), "End of PCP archive log");
        assert_eq!(bare.subject(), None);
        assert_eq!(message_of(&PmError::PM_ERR_EOL), "End of PCP archive log");
    }

    #[test]
    fn error_converts_to_and_from_its_code() {
        let e = Error::new(PmError::PM_ERR_NAME, Subject::Metric("a".into()));
        assert_eq!(e, PmError::PM_ERR_NAME);
        assert_eq!(e.code(), PmError::PM_ERR_NAME);
        assert_eq!(PmError::from(e), PmError::PM_ERR_NAME);
        let via_question_mark = || -> PmResult<()> { Err(Error::from(PmError::PM_ERR_EOL))? };
        assert_eq!(via_question_mark(), Err(PmError::PM_ERR_EOL));
    }
}
