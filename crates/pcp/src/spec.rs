//! The uniform metric specification of PCP's tools:
//! `[host:]metric[[instance,...]]`, `[archive/]metric[[instance,...]]`
//! and `@:metric[[instance,...]]` for the local context.

use crate::timeparse::lex::{c_str, caret, is_space};
use crate::timeparse::SpecError;

/// Where a metric specification says its metric comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpecSource {
    /// `host:metric` (`isarch` 0): the host's name, unescaped.
    Host(Vec<u8>),
    /// `archive/metric` (`isarch` 1): the archive's name, unescaped.
    Archive(Vec<u8>),
    /// `@:metric` (`isarch` 2): the local context.
    Local,
}

/// A parsed metric specification.
#[doc(alias = "pmMetricSpec")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetricSpec {
    /// The source the specification names; `None` when it names none and
    /// the caller's default applies.
    pub source: Option<SpecSource>,
    /// The metric's name, with `\` escapes removed.
    pub metric: Vec<u8>,
    /// The instance names between `[` and `]`, in order; `instances_given`
    /// tells an empty list `[]` from no list.
    pub instances: Vec<Vec<u8>>,
    /// Whether the specification had a `[...]` part at all.
    pub instances_given: bool,
}

const HOST_MSG: &str = "host name expected";
const ARCHIVE_MSG: &str = "archive name expected";
const NAME_CHAR_MSG: &str = "unexpected character in metric name";
const NAME_MSG: &str = "performance metric name expected";
const CLOSE_BOTH_MSG: &str = "closing \" and ] expected";
const CLOSE_MSG: &str = "closing ] expected";
const EXTRA_MSG: &str = "unexpected extra characters";
const BOTCH_MSG: &str = "closing \" expected (pmParseMetricSpec botch?)";

/// Copy `s`, a `\` taking the byte after it literally (except a last `\`).
fn unescape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'\\' && i + 1 < s.len() {
            i += 1;
        }
        out.push(s[i]);
        i += 1;
    }
    out
}

impl MetricSpec {
    /// Parse a metric specification as `pmParseMetricSpec` does: the
    /// source is found by the last `:` or `/` before the instance list,
    /// `\` escapes a byte in names, and instances are separated by commas
    /// or white space, each optionally in `"` quotes.
    ///
    /// The error is libpcp's message: the text, then a caret under the
    /// problem and its description.
    #[doc(alias = "pmParseMetricSpec")]
    pub fn parse(spec: &[u8]) -> Result<MetricSpec, SpecError> {
        let spec = c_str(spec);
        let err = |at: usize, msg: &str| Err(caret(spec, at, msg));
        let mut scan = spec.iter().take_while(|&&b| is_space(b)).count();

        // the source ends at the last ':' or '/' before any '['
        let name_end = spec[scan..].iter().position(|&b| b == b'[').map_or(spec.len(), |p| scan + p);
        let mut source = None;
        if let Some(mark) = spec[scan..name_end].iter().rposition(|&b| b == b':' || b == b'/').map(|p| scan + p) {
            let start = scan;
            let end = mark - spec[start..mark].iter().rev().take_while(|&&b| is_space(b)).count();
            let host = spec[mark] == b':';
            if end == start {
                return err(start, if host { HOST_MSG } else { ARCHIVE_MSG });
            }
            let name = unescape(&spec[start..end]);
            // (the local context is a plain `@`: libpcp compares before
            // unescaping, so `\@` names a host called `@`)
            source = Some(match (host, &spec[start..end]) {
                (true, b"@") => SpecSource::Local,
                (true, _) => SpecSource::Host(name),
                (false, _) => SpecSource::Archive(name),
            });
            scan = mark + 1;
        }
        while scan < spec.len() && is_space(spec[scan]) {
            scan += 1;
        }

        // the metric's name
        let m_start = scan;
        while scan < spec.len() && !is_space(spec[scan]) && spec[scan] != b'[' {
            if spec[scan] == b']' || spec[scan] == b',' {
                return err(scan, NAME_CHAR_MSG);
            }
            if spec[scan] == b'\\' && scan + 1 < spec.len() {
                scan += 1;
            }
            scan += 1;
        }
        if scan == m_start {
            return err(m_start, NAME_MSG);
        }
        let metric = unescape(&spec[m_start..scan]);
        while scan < spec.len() && is_space(spec[scan]) {
            scan += 1;
        }

        // the instance list
        let mut list = None;
        let mut body_at = 0;
        if spec.get(scan) == Some(&b'[') {
            scan += 1;
            while scan < spec.len() && is_space(spec[scan]) {
                scan += 1;
            }
            let i_start = scan;
            let mut inquote = false;
            loop {
                match spec.get(scan) {
                    None => return err(scan, if inquote { CLOSE_BOTH_MSG } else { CLOSE_MSG }),
                    Some(b'\\') if scan + 1 < spec.len() => scan += 1,
                    Some(b'"') => inquote = !inquote,
                    Some(b']') if !inquote => break,
                    Some(_) => {}
                }
                scan += 1;
            }
            list = Some(&spec[i_start..scan]);
            body_at = i_start;
            scan += 1;
        }
        while scan < spec.len() && is_space(spec[scan]) {
            scan += 1;
        }
        if scan < spec.len() {
            return err(scan, EXTRA_MSG);
        }

        let instances = match list {
            Some(body) => match split_list(body) {
                Ok(names) => names,
                // a name's opening quote that another name's closed
                Err(at) => return err(body_at + at, BOTCH_MSG),
            },
            None => Vec::new(),
        };
        Ok(MetricSpec { source, metric, instances, instances_given: list.is_some() })
    }
}

/// The instance names of a `[...]` body: separated by commas or white
/// space; a name in `"` quotes may hold both, and `\` takes the next
/// byte literally. A quote left open is an error at the list's end.
fn split_list(body: &[u8]) -> Result<Vec<Vec<u8>>, usize> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let mut name = Vec::new();
        if body[i] == b'"' {
            i += 1;
            loop {
                if i >= body.len() {
                    return Err(i);
                }
                if body[i] == b'"' {
                    break;
                }
                if body[i] == b'\\' && i + 1 < body.len() {
                    i += 1;
                }
                name.push(body[i]);
                i += 1;
            }
            i += 1;
        } else {
            while i < body.len() && !is_space(body[i]) && body[i] != b',' {
                if body[i] == b'\\' && i + 1 < body.len() {
                    i += 1;
                }
                name.push(body[i]);
                i += 1;
            }
        }
        out.push(name);
        while i < body.len() && (is_space(body[i]) || body[i] == b',') {
            i += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> MetricSpec {
        MetricSpec::parse(s.as_bytes()).unwrap()
    }

    fn fails(s: &str) -> String {
        String::from_utf8(MetricSpec::parse(s.as_bytes()).unwrap_err().as_bytes().to_vec()).unwrap()
    }

    #[test]
    fn sources() {
        assert_eq!(ok("kernel.all.load").source, None);
        assert_eq!(ok(" box :sample.bin").source, Some(SpecSource::Host(b"box".to_vec())));
        assert_eq!(ok("local:sample.bin[a:b]").source, Some(SpecSource::Host(b"local".to_vec())));
        assert_eq!(ok("@:sample.bin").source, Some(SpecSource::Local));
        // an escaped `@` is a host's name, as libpcp reads it
        assert_eq!(ok("\\@ :bin-100").source, Some(SpecSource::Host(b"@".to_vec())));
        assert_eq!(ok("/a/b/arch/x.y").source, Some(SpecSource::Archive(b"/a/b/arch".to_vec())));
        assert_eq!(ok("/a/b/arch/x.y").metric, b"x.y");
        // the last of ':' and '/' decides
        assert_eq!(ok("h:o/st/m").source, Some(SpecSource::Archive(b"h:o/st".to_vec())));
        assert_eq!(ok("a/h:m").source, Some(SpecSource::Host(b"a/h".to_vec())));
        assert_eq!(ok("a\\ b:m").source, Some(SpecSource::Host(b"a b".to_vec())));
    }

    #[test]
    fn instances() {
        let s = ok("sample.bin[bin-100,bin-200]");
        assert_eq!(s.instances, vec![b"bin-100".to_vec(), b"bin-200".to_vec()]);
        let s = ok("m[ \"a b\", c\\,d  e ]");
        assert_eq!(s.instances, vec![b"a b".to_vec(), b"c,d".to_vec(), b"e".to_vec()]);
        let s = ok("m[]");
        assert!(s.instances.is_empty() && s.instances_given);
        let s = ok("m [x] ");
        assert_eq!(s.instances, vec![b"x".to_vec()]);
        let s = ok("m[\"a\\\"b\"x]");
        assert_eq!(s.instances, vec![b"a\"b".to_vec(), b"x".to_vec()]);
    }

    #[test]
    fn errors_carry_libpcp_texts() {
        assert_eq!(fails(":m"), ":m\n^ -- host name expected\n");
        assert_eq!(fails("  /m"), "  /m\n  ^ -- archive name expected\n");
        assert_eq!(fails("h:"), "h:\n  ^ -- performance metric name expected\n");
        assert_eq!(fails(""), "\n^ -- performance metric name expected\n");
        assert_eq!(fails("a,b"), "a,b\n ^ -- unexpected character in metric name\n");
        assert_eq!(fails("m[a"), "m[a\n   ^ -- closing ] expected\n");
        assert_eq!(fails("m[\"a]"), "m[\"a]\n     ^ -- closing \" and ] expected\n");
        assert_eq!(fails("m x"), "m x\n  ^ -- unexpected extra characters\n");
        assert_eq!(fails("m[a\" \"b]"), "m[a\" \"b]\n       ^ -- closing \" expected (pmParseMetricSpec botch?)\n");
        assert_eq!(fails("m[a] x"), "m[a] x\n     ^ -- unexpected extra characters\n");
    }

    #[test]
    fn every_short_spec_parses_or_fails_cleanly() {
        // every string of up to 5 bytes over the bytes that matter
        let alphabet = b"a:/[]\", \\";
        let mut specs = vec![Vec::new()];
        for _ in 0..5 {
            let longer: Vec<Vec<u8>> =
                specs.iter().flat_map(|s| alphabet.iter().map(move |&b| [s.as_slice(), &[b]].concat())).collect();
            for spec in &longer {
                match MetricSpec::parse(spec) {
                    Ok(m) => assert!(!m.metric.is_empty()),
                    Err(e) => assert!(e.as_bytes().starts_with(spec) && e.as_bytes().ends_with(b"\n")),
                }
            }
            specs = longer;
        }
    }
}
