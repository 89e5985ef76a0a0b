//! Configuration files of derived metrics (`pmLoadDerivedConfig(3)`) and
//! the `$PCP_DERIVED_CONFIG` search rules, as libpcp applies them.
//!
//! A file holds one definition per line, `name = expression`, and
//! optionally `name(oneline) = text` and `name(helptext) = "text"` lines
//! (a quoted text may span lines, `\` escaping the next character). Lines
//! starting with `#` and empty lines are skipped, a line ending in `\` is
//! joined to the next (as the manual page says; libpcp 6.0.3 does not),
//! and a last line without a newline is ignored. Problems are reported,
//! not fatal: the text libpcp writes to stderr is collected in a report.
//!
//! Files are read through [`ConfigFiles`], so this module does no I/O.

use crate::lex::is_space;
use crate::registry::{AttributeError, Registry};
use pcp_core::debug::{DebugFlag, Trace};
use pcp_core::PmError;

/// What a path names (`stat(2)`, symbolic links followed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
    /// Anything else (skipped).
    Other,
}

/// Access to the files a configuration path names. Errors are the
/// `-errno` PCP codes (`PmError::from_errno`).
pub trait ConfigFiles {
    /// What `path` is.
    fn kind(&mut self, path: &[u8]) -> Result<PathKind, PmError>;
    /// The names in a directory, in the order `readdir(3)` gives them
    /// (which is the order libpcp loads them in); `.` and `..` may be
    /// included.
    fn list(&mut self, dir: &[u8]) -> Result<Vec<Vec<u8>>, PmError>;
    /// A file's contents.
    fn read(&mut self, path: &[u8]) -> Result<Vec<u8>, PmError>;
    /// `$PCP_VAR_DIR` looked up as libpcp looks it up when
    /// `$PCP_DERIVED_CONFIG` is unset (`pmGetConfig`, with its
    /// `-Dconfig` lines in `trace`); `None` (the default): the
    /// [`Environment`]'s.
    fn var_dir(&mut self, _trace: &Trace) -> Option<Vec<u8>> {
        None
    }
}

/// Where global derived metrics come from when a process starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Environment {
    /// `$PCP_DERIVED_CONFIG`: `None` when unset.
    pub derived_config: Option<Vec<u8>>,
    /// `$PCP_VAR_DIR` (e.g. `/var/lib/pcp`).
    pub var_dir: Vec<u8>,
    /// The program's name, for warnings (`pmGetProgname`).
    pub progname: String,
}

/// The configuration path a process loads at start: `$PCP_DERIVED_CONFIG`
/// if set (empty: nothing), else `$PCP_VAR_DIR/config/derived` if that
/// exists. Components are separated by `:`.
pub fn startup_path(env: &Environment, files: &mut dyn ConfigFiles) -> Option<Vec<u8>> {
    startup_path_traced(env, files, &Trace::off())
}

/// [`startup_path`], the look-up of `$PCP_VAR_DIR` traced into `trace`.
fn startup_path_traced(env: &Environment, files: &mut dyn ConfigFiles, trace: &Trace) -> Option<Vec<u8>> {
    let path = match &env.derived_config {
        Some(p) => p.clone(),
        None => {
            let mut p = files.var_dir(trace).unwrap_or_else(|| env.var_dir.clone());
            p.extend_from_slice(b"/config/derived");
            files.kind(&p).ok()?;
            p
        }
    };
    (!path.is_empty()).then_some(path)
}

impl Registry {
    /// libpcp's one-time set-up of derived metrics (done before the first
    /// context, name lookup or `pmLoadDerivedConfig`): every definition on
    /// the [`startup_path`], problems reported but not fatal (the
    /// anonymous metrics libpcp registers first are in every registry
    /// from the start: see [`Registry::new`]). Returns the report (what
    /// libpcp writes to stderr); does nothing the second time.
    pub fn init(&mut self, env: &Environment, files: &mut dyn ConfigFiles) -> Vec<u8> {
        let mut report = Vec::new();
        if self.initialised {
            return report;
        }
        self.trace_anon();
        if let Some(path) = startup_path_traced(env, files, &self.trace) {
            if self.trace.on(DebugFlag::Derive) {
                let mut line = b"Derived metric initialization from ".to_vec();
                line.extend_from_slice(if env.derived_config.is_some() { b"$PCP_DERIVED_CONFIG" } else { &path });
                line.push(b'\n');
                self.trace.write_bytes(&line);
            }
            let before = self.metrics.len();
            self.load_path(&path, true, files, &mut report);
            for d in &mut self.metrics[before..] {
                d.startup = true;
            }
        }
        self.initialised = true;
        self.sync_trace(&mut report);
        report
    }

    /// `pmLoadDerivedConfig`: [`Registry::init`] if not yet done, then
    /// every file the `:`-separated `path` names (a directory stands for
    /// all its files, in directory order). Returns how many metrics were
    /// defined, or the first error (a missing file, say), and the report.
    #[doc(alias = "pmLoadDerivedConfig")]
    pub fn load_config(
        &mut self,
        path: &[u8],
        env: &Environment,
        files: &mut dyn ConfigFiles,
    ) -> (Result<usize, PmError>, Vec<u8>) {
        let mut report = self.init(env, files);
        let n = self.load_path(path, false, files, &mut report);
        self.sync_trace(&mut report);
        (if n < 0 { Err(PmError::from_code(n)) } else { Ok(n as usize) }, report)
    }

    /// The components of a path; with `recover`, errors count as 0.
    fn load_path(&mut self, path: &[u8], recover: bool, files: &mut dyn ConfigFiles, report: &mut Vec<u8>) -> i32 {
        let mut total = 0;
        let mut parts: Vec<&[u8]> = path.split(|&b| b == b':').collect();
        // a trailing ':' leaves no last component
        if parts.last().is_some_and(|p| p.is_empty()) {
            parts.pop();
        }
        for part in parts {
            let n = self.load_component(part, recover, files, report);
            if n < 0 {
                return n;
            }
            total += n;
        }
        total
    }

    fn load_component(&mut self, name: &[u8], recover: bool, files: &mut dyn ConfigFiles, report: &mut Vec<u8>) -> i32 {
        let traced = self.trace.on(DebugFlag::Derive);
        let warn = |what: &str, e: &PmError| {
            if traced {
                let mut line = format!("Warning: derived metrics path {what}: ").into_bytes();
                line.extend_from_slice(name);
                line.extend_from_slice(format!(": {e}\n").as_bytes());
                self.trace.write_bytes(&line);
            }
        };
        let n = match files.kind(name) {
            Err(e) => {
                warn("component", &e);
                e.code()
            }
            Ok(PathKind::File) => {
                if traced {
                    let mut line = b"pmLoadDerivedConfig(\"".to_vec();
                    line.extend_from_slice(name);
                    line.extend_from_slice(b"\")\n");
                    self.trace.write_bytes(&line);
                }
                match files.read(name) {
                    Err(e) => {
                        if traced {
                            let mut line = b"pmLoadDerivedConfig(".to_vec();
                            line.extend_from_slice(name);
                            line.extend_from_slice(format!("): {e}\n").as_bytes());
                            self.trace.write_bytes(&line);
                        }
                        e.code()
                    }
                    Ok(text) => i32::try_from(self.load_text(name, &text, report)).unwrap_or(i32::MAX),
                }
            }
            Ok(PathKind::Directory) => match files.list(name) {
                Err(e) => {
                    warn("directory component", &e);
                    e.code()
                }
                Ok(entries) => {
                    let mut total = 0i32;
                    for entry in entries {
                        if entry == b"." || entry == b".." {
                            continue;
                        }
                        let mut p = name.to_vec();
                        p.push(b'/');
                        p.extend_from_slice(&entry);
                        let n = self.load_component(&p, recover, files, report);
                        if n < 0 {
                            total = n;
                            break;
                        }
                        total = total.saturating_add(n);
                    }
                    total
                }
            },
            Ok(PathKind::Other) => 0,
        };
        if recover {
            0
        } else {
            n
        }
    }

    /// Loads the definitions in one file's text (named `fname` in the
    /// report); returns how many metrics it defined.
    ///
    /// ```
    /// use pcp_derived::Registry;
    ///
    /// let text = b"# disk rates\nmy.disk.avgsz = delta(disk.dev.total_bytes) / delta(disk.dev.total)\nmy.bad = 1 +\n";
    /// let mut registry = Registry::new();
    /// let mut report = Vec::new();
    /// assert_eq!(registry.load_text(b"disk.conf", text, &mut report), 1);
    /// assert!(registry.get("my.disk.avgsz").is_some());
    /// assert!(registry.get("my.bad").is_none());
    /// assert_eq!(
    ///     String::from_utf8_lossy(&report),
    ///     "[disk.conf:3] Error: pmRegisterDerived(my.bad, ...) syntax error\n 1 +\n   ^\n\
    ///      Arithmetic expression expected to follow PLUS\n"
    /// );
    /// ```
    pub fn load_text(&mut self, fname: &[u8], text: &[u8], report: &mut Vec<u8>) -> usize {
        self.load_lines(fname, text, report, true)
    }

    /// [`Registry::load_text`]; `whole_lines` takes each line that is not
    /// continued at once, rather than a byte at a time (the same, faster).
    fn load_lines(&mut self, fname: &[u8], text: &[u8], report: &mut Vec<u8>, whole_lines: bool) -> usize {
        let mut cfg = ConfigText { fname, text, pos: 0, lineno: 1, report };
        let mut defined = 0;
        let mut buf: Vec<u8> = Vec::new();
        let (mut eq, mut lp, mut rp) = (None, None, None);
        let mut lastc = 0u8;
        let mut continued = 0;
        loop {
            if whole_lines && buf.is_empty() && continued == 0 {
                // at the start of a line: one not continued onto the next
                // is taken where it lies (it ends the same way whether
                // read a byte at a time or found at once)
                let text = cfg.text;
                let rest = &text[cfg.pos..];
                if let Some(nl) = memchr::memchr(b'\n', rest) {
                    let line = &rest[..nl];
                    if line.last() != Some(&b'\\') {
                        cfg.pos += nl + 1;
                        if !line.is_empty() && line[0] != b'#' {
                            let head = &line[..memchr::memchr(b'=', line).unwrap_or(line.len())];
                            let eq = (head.len() < line.len()).then_some(head.len());
                            let (lp, rp) = (memchr::memchr(b'(', head), memchr::memchr(b')', head));
                            defined += self.config_line(&mut cfg, line, eq, lp, rp);
                        }
                        // (`lastc` is left as it is: it matters only when
                        // it is a `\`, and no line start follows one)
                        cfg.lineno += 1;
                        continue;
                    }
                }
            }
            let Some(c) = cfg.getc() else { break };
            if eq.is_none() {
                if c == b'=' {
                    eq = Some(buf.len());
                } else if c == b'(' && lp.is_none() {
                    lp = Some(buf.len());
                } else if c == b')' && rp.is_none() {
                    rp = Some(buf.len());
                }
            }
            if c == b'\n' && lastc == b'\\' {
                // a continued line: drop the \ and the newline
                continued += 1;
                buf.pop();
                lastc = c;
                continue;
            }
            if c != b'\n' {
                lastc = c;
                buf.push(c);
                continue;
            }
            if !buf.is_empty() && buf[0] != b'#' {
                defined += self.config_line(&mut cfg, &buf, eq, lp, rp);
            }
            cfg.lineno += 1 + continued;
            continued = 0;
            buf.clear();
            (eq, lp, rp) = (None, None, None);
        }
        defined
    }

    /// One line: a definition or an attribute. Returns 1 for a metric
    /// defined.
    fn config_line(
        &mut self,
        cfg: &mut ConfigText<'_, '_>,
        raw: &[u8],
        eq: Option<usize>,
        lp: Option<usize>,
        rp: Option<usize>,
    ) -> usize {
        // libpcp works on C strings: the line up to a NUL for messages,
        // the part before '=' up to a NUL for the name and attribute, the
        // part after '=' up to a NUL for the expression or value
        self.sync_trace(cfg.report);
        let line = crate::registry::cstr(raw);
        let Some(eq) = eq else {
            cfg.error_with_line("missing ``='' after derived metric name", line);
            return 0;
        };
        let head = crate::registry::cstr(&raw[..eq]);
        let end = lp.unwrap_or(eq);
        let name = if end <= head.len() {
            trim(&head[..end])
        } else {
            // the mark lies past a NUL: libpcp trims nothing off the end
            let start = head.iter().position(|&b| !is_space(i32::from(b))).unwrap_or(head.len());
            &head[start..]
        };
        if name.is_empty() {
            cfg.error_with_line("derived metric name missing", line);
            return 0;
        }
        if !legal_name(name) {
            cfg.error_quoting("illegal derived metric name (", name, ")");
            return 0;
        }
        let name = String::from_utf8_lossy(name);
        let (lp, rp) = match (lp, rp) {
            (Some(_), None) => {
                cfg.error_with_line("missing ')' after attribute", line);
                return 0;
            }
            (None, Some(_)) => {
                cfg.error_with_line("missing '(' before attribute", line);
                return 0;
            }
            (None, None) => return self.config_definition(cfg, &name, line, crate::registry::cstr(&raw[eq + 1..])),
            (Some(l), Some(r)) => (l, r),
        };
        // name(attr) = value
        let attr = trim(head.get(lp + 1..rp.min(head.len())).unwrap_or(b""));
        if attr.is_empty() {
            cfg.error_with_line("attribute name missing", line);
            return 0;
        }
        let after = crate::registry::cstr(&raw[eq + 1..]);
        let mut vp = after.iter().position(|&b| !is_space(i32::from(b))).map_or(&after[after.len()..], |i| &after[i..]);
        let delim = match vp.first() {
            Some(&d) if d == b'"' || d == b'\'' => {
                vp = &vp[1..];
                Some(d)
            }
            _ => None,
        };
        if vp.is_empty() {
            cfg.error_with_line("attribute value missing", line);
            return 0;
        }
        let value = match delim {
            None => vp.to_vec(),
            Some(d) => match cfg.quoted_value(vp, d) {
                Some(v) => v,
                None => return 0,
            },
        };
        let attr_name = String::from_utf8_lossy(attr).into_owned();
        let set = self.set_attribute(&name, &attr_name, value);
        self.sync_trace(cfg.report);
        if let Err(e) = set {
            let name = name.as_bytes();
            let m = match e {
                AttributeError::NoMetric => {
                    [&b"cannot set attribute, derived metric ("[..], name, b") not defined"].concat()
                }
                AttributeError::UnknownAttribute => {
                    [&b"attribute ("[..], attr, b") is unknown for metric (", name, b")"].concat()
                }
                AttributeError::Duplicate => {
                    [&b"duplicate value for attribute ("[..], attr, b") of metric (", name, b")"].concat()
                }
            };
            cfg.error_with_line_bytes(&m, line);
        }
        0
    }

    /// `name = expression`.
    fn config_definition(&mut self, cfg: &mut ConfigText<'_, '_>, name: &str, line: &[u8], after: &[u8]) -> usize {
        let Some(skip) = after.iter().position(|&b| !is_space(i32::from(b))) else {
            cfg.error_with_line("expression missing", line);
            return 0;
        };
        let registered = self.register_bytes(name.as_bytes(), &after[skip..], false);
        self.sync_trace(cfg.report);
        match registered {
            Ok(_) => 1,
            Err(e) => {
                let head = cfg.head("Error");
                let r = &mut *cfg.report;
                r.extend_from_slice(&head);
                r.extend_from_slice(format!("pmRegisterDerived({name}, ...) syntax error\n").as_bytes());
                r.extend_from_slice(after);
                r.push(b'\n');
                // the caret under the error; white space kept, so tabs line up
                let at = usize::try_from(skip as isize + e.offset).ok();
                for (i, &b) in after.iter().enumerate() {
                    r.push(if Some(i) == at {
                        b'^'
                    } else if is_space(i32::from(b)) {
                        b
                    } else {
                        b' '
                    });
                }
                r.push(b'\n');
                if let Some(m) = &e.message {
                    r.extend_from_slice(m);
                    r.push(b'\n');
                }
                0
            }
        }
    }
}

/// A file being read, with libpcp's line count and the report.
struct ConfigText<'a, 'r> {
    fname: &'a [u8],
    text: &'a [u8],
    pos: usize,
    lineno: usize,
    report: &'r mut Vec<u8>,
}

impl ConfigText<'_, '_> {
    fn getc(&mut self) -> Option<u8> {
        let c = self.text.get(self.pos).copied();
        if c.is_some() {
            self.pos += 1;
        }
        c
    }

    /// `[file:line] Error: ` (or `Warning: `).
    fn head(&self, what: &str) -> Vec<u8> {
        let mut h = b"[".to_vec();
        h.extend_from_slice(self.fname);
        h.extend_from_slice(format!(":{}] {what}: ", self.lineno).as_bytes());
        h
    }

    fn error_with_line(&mut self, why: &str, line: &[u8]) {
        self.error_with_line_bytes(why.as_bytes(), line);
    }

    fn error_with_line_bytes(&mut self, why: &[u8], line: &[u8]) {
        let h = self.head("Error");
        self.report.extend_from_slice(&h);
        self.report.extend_from_slice(b"pmLoadDerivedConfig: ");
        self.report.extend_from_slice(why);
        self.report.push(b'\n');
        self.report.extend_from_slice(line);
        self.report.push(b'\n');
    }

    fn error_quoting(&mut self, before: &str, what: &[u8], after: &str) {
        let h = self.head("Error");
        self.report.extend_from_slice(&h);
        self.report.extend_from_slice(b"pmLoadDerivedConfig: ");
        self.report.extend_from_slice(before.as_bytes());
        self.report.extend_from_slice(what);
        self.report.extend_from_slice(after.as_bytes());
        self.report.push(b'\n');
    }

    /// A quoted attribute value starting at `first` (the rest of its
    /// line, after the opening quote), going on over more lines until the
    /// closing `delim`; `\` escapes the next character, and a `\` at the
    /// end of a line joins the lines. `None` if the file ends first.
    fn quoted_value(&mut self, first: &[u8], delim: u8) -> Option<Vec<u8>> {
        let mut value = Vec::new();
        let mut rest = first.iter();
        let mut escaped = false;
        let mut lines = 0;
        let mut closed = false;
        loop {
            let c = match rest.next() {
                Some(&c) => c,
                None if lines == 0 => b'\n',
                None => match self.getc() {
                    Some(c) => c,
                    None => break,
                },
            };
            if c == b'\n' {
                lines += 1;
            }
            if escaped {
                escaped = false;
                if c != b'\n' {
                    value.push(c);
                }
                continue;
            }
            if c == b'\\' {
                escaped = true;
                continue;
            }
            if c == delim {
                closed = true;
                break;
            }
            value.push(c);
        }
        // libpcp counts the value's lines before it reports on them (and,
        // in 6.0.3, not the last one's newline)
        if lines > 1 {
            self.lineno += lines - 1;
        }
        if !closed {
            let h = self.head("Error");
            self.report.extend_from_slice(&h);
            self.report.extend_from_slice(b"pmLoadDerivedConfig: missing termination (");
            self.report.push(delim);
            self.report.extend_from_slice(b") for value\n");
            return None;
        }
        let tail = rest.as_slice();
        if !tail.is_empty() {
            // more on the value's first line
            let extra = &tail[tail.iter().position(|&b| !is_space(i32::from(b))).unwrap_or(tail.len())..];
            if !extra.is_empty() {
                let h = self.head("Warning");
                self.report.extend_from_slice(&h);
                self.report.extend_from_slice(b"pmLoadDerivedConfig: extra text (");
                self.report.extend_from_slice(extra);
                self.report.extend_from_slice(b") after attribute value will be ignored\n");
            }
        } else if lines > 0 {
            // more on the line where the value ended: libpcp skips the
            // first character, then white space
            let mut c = self.getc();
            while c.is_some_and(|ch| ch != b'\n') {
                c = self.getc();
                if !c.is_some_and(|x| is_space(i32::from(x))) {
                    break;
                }
            }
            if let Some(ch) = c.filter(|&ch| ch != b'\n') {
                let h = self.head("Warning");
                self.report.extend_from_slice(&h);
                self.report.extend_from_slice(b"pmLoadDerivedConfig: extra text (");
                self.report.push(ch);
                while let Some(x) = self.getc().filter(|&x| x != b'\n') {
                    self.report.push(x);
                }
                self.report.extend_from_slice(b") after attribute value will be ignored\n");
            }
        }
        Some(crate::registry::cstr(&value).to_vec())
    }
}

/// Without leading and trailing white space.
fn trim(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&b| !is_space(i32::from(b))).unwrap_or(s.len());
    let end = s.iter().rposition(|&b| !is_space(i32::from(b))).map_or(start, |i| i + 1);
    &s[start..end.max(start)]
}

/// libpcp's check of a name in a configuration file: components separated
/// by `.`, each a letter then letters, digits and `_` (an empty last
/// component passes).
fn legal_name(name: &[u8]) -> bool {
    let mut first = true;
    for &c in name {
        if first {
            if !c.is_ascii_alphabetic() {
                return false;
            }
            first = false;
        } else if c == b'.' {
            first = true;
        } else if !(c.is_ascii_alphanumeric() || c == b'_') {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Files in memory; directories list in insertion order.
    #[derive(Default)]
    struct Mem {
        files: BTreeMap<Vec<u8>, Vec<u8>>,
        dirs: Vec<(Vec<u8>, Vec<Vec<u8>>)>,
    }

    impl ConfigFiles for Mem {
        fn kind(&mut self, path: &[u8]) -> Result<PathKind, PmError> {
            if self.files.contains_key(path) {
                Ok(PathKind::File)
            } else if self.dirs.iter().any(|(d, _)| d == path) {
                Ok(PathKind::Directory)
            } else {
                Err(PmError::from_errno(2))
            }
        }
        fn list(&mut self, dir: &[u8]) -> Result<Vec<Vec<u8>>, PmError> {
            self.dirs.iter().find(|(d, _)| d == dir).map(|(_, l)| l.clone()).ok_or(PmError::from_errno(2))
        }
        fn read(&mut self, path: &[u8]) -> Result<Vec<u8>, PmError> {
            self.files.get(path).cloned().ok_or(PmError::from_errno(2))
        }
    }

    fn env(cfg: Option<&str>) -> Environment {
        Environment {
            derived_config: cfg.map(|c| c.as_bytes().to_vec()),
            var_dir: b"/var/lib/pcp".to_vec(),
            progname: "test".into(),
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// Taking a line at once defines what reading it a byte at a
        /// time defines, and reports the same.
        #[test]
        fn whole_lines_read_as_bytes_do(lines in proptest::collection::vec((
            proptest::sample::select(vec!["", "", " ", "#", "\t"]),
            proptest::sample::select(vec!["a.b", "x", "", "m(", "c.d", "a.b(oneline)", "x(helptext)", "y)", "z(q", "e.f"]),
            proptest::sample::select(vec![" = ", "=", " = ", "=", " ", "= (", "==", ""]),
            proptest::sample::select(vec![
                "1", "a.b + 1", "rate(x", "\"text\"", "'quoted \\", "'two\\\nlines'", "", "(1)", "x[y]", "\0z",
            ]),
            proptest::sample::select(vec!["\n", "\\\n", "", "\n\n", " \\\n"]),
        ), 0..20)) {
            let text: String = lines.iter().map(|(a, b, c, d, e)| format!("{a}{b}{c}{d}{e}")).collect();
            let load = |whole_lines: bool| {
                let (mut r, mut report) = (Registry::new(), Vec::new());
                let n = r.load_lines(b"f", text.as_bytes(), &mut report, whole_lines);
                let defs: Vec<_> = r
                    .metrics()
                    .iter()
                    .map(|d| (d.name.clone(), d.pmid, d.text().to_vec(), d.oneline.clone(), d.helptext.clone()))
                    .collect();
                (n, defs, report)
            };
            proptest::prop_assert_eq!(load(true), load(false), "{:?}", text);
        }
    }

    #[test]
    fn startup_path_rules() {
        let mut m = Mem::default();
        assert_eq!(startup_path(&env(None), &mut m), None);
        m.dirs.push((b"/var/lib/pcp/config/derived".to_vec(), vec![]));
        assert_eq!(startup_path(&env(None), &mut m).as_deref(), Some(&b"/var/lib/pcp/config/derived"[..]));
        assert_eq!(startup_path(&env(Some("")), &mut m), None);
        assert_eq!(startup_path(&env(Some("a:b")), &mut m).as_deref(), Some(&b"a:b"[..]));
    }

    #[test]
    fn directories_load_in_listing_order_and_errors_recover_at_start() {
        let mut m = Mem::default();
        m.dirs.push((b"/d".to_vec(), vec![b".".to_vec(), b"z.conf".to_vec(), b"a.conf".to_vec()]));
        m.files.insert(b"/d/z.conf".to_vec(), b"z = 1\n".to_vec());
        m.files.insert(b"/d/a.conf".to_vec(), b"a = 2\n".to_vec());
        let mut r = Registry::new();
        let report = r.init(&env(Some("/missing:/d")), &mut m);
        assert!(report.is_empty());
        let names: Vec<&str> = r.metrics().iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["event.flags", "event.missed", "z", "a"]);
        let (n, _) = r.load_config(b"/d/a.conf:/nope", &env(None), &mut m);
        assert_eq!(n, Err(PmError::from_errno(2)));
    }

    #[test]
    fn continued_lines_join_and_count() {
        let mut r = Registry::new();
        let mut report = Vec::new();
        let n = r.load_text(b"f", b"a = 1 + \\\n 2\nb = (\n", &mut report);
        assert_eq!(n, 1);
        assert_eq!(r.get("a").map(|d| d.text()), Some(&b"1 +  2"[..]));
        assert_eq!(
            String::from_utf8_lossy(&report),
            "[f:3] Error: pmRegisterDerived(b, ...) syntax error\n (\n ^\nUnexpected initial '('\n"
        );
    }

    /// The form PCP's own files use: `'\` ends the line, the text starts on
    /// the next. Joining gives the same value libpcp 6.0.3 reads; the lines
    /// are counted as 6.0.3 counts them (the value's last line is not).
    #[test]
    fn help_text_starting_on_the_next_line() {
        let mut r = Registry::new();
        let mut report = Vec::new();
        let text = b"a = 1\na(helptext) = '\\\nfirst\nsecond'\nb = (\n";
        assert_eq!(r.load_text(b"f", text, &mut report), 1);
        assert_eq!(r.get("a").and_then(|d| d.helptext.as_deref()), Some(&b"first\nsecond"[..]));
        assert!(report.starts_with(b"[f:4] Error: pmRegisterDerived(b, ...)"), "{}", String::from_utf8_lossy(&report));
    }

    #[test]
    fn a_continued_definition_reports_its_first_line() {
        let mut r = Registry::new();
        let mut report = Vec::new();
        assert_eq!(r.load_text(b"f", b"a = 1 +\\\n  +\nb = 2\n", &mut report), 1);
        assert_eq!(
            String::from_utf8_lossy(&report),
            "[f:1] Error: pmRegisterDerived(a, ...) syntax error\n 1 +  +\n      ^\nArithmetic expression expected to follow PLUS\n"
        );
        assert_eq!(r.get("b").map(|d| d.pmid), Some(pcp_core::PmId(0x7fc0_0003)));
    }
}
