//! The `pmcpp` preprocessor: what every ASCII PMNS file (and other PCP
//! configuration) passes through before it is parsed.
//!
//! It strips C comments, follows `#include "file"` / `#include <file>`, runs
//! `#shell 'command'`, keeps `#define`/`#undef` macros (plain word
//! substitution, or only `#name` / `#{name}` with `restrict`), and honours
//! one level of `#ifdef`/`#ifndef`/`#else`/`#endif`. Its output carries
//! `# N "file"` line markers so later error messages name the right line.
//!
//! Behaviour, messages and exit status follow PCP 6.0.3's pmcpp exactly,
//! including its quirks: a last line without a newline is dropped, a NUL
//! byte ends its line's text (the rest of the line joins the next), a
//! control line pmcpp does not know ends the skipping of a false `#ifdef`,
//! and an `#else` that turns true after a macro was undefined (or after an
//! earlier true `#else`) reports "Macro redefinition".
//!
//! With [`Options::debug`] (pmcpp's `-d`) the diagnostics also trace the
//! run as pmcpp does, including the sizes its line buffers would grow to;
//! [`Output::steps`] keeps the order of text and diagnostics, so a tool
//! can interleave its standard output and error as pmcpp's stdio does.
//!
//! File access goes through the [`Files`] trait, so the preprocessor itself
//! does no I/O and is tested on in-memory files.

use std::io;

/// Deepest nesting of the input file, includes and shell commands.
const MAXLEVEL: usize = 5;

/// The size pmcpp's input line buffer starts at (it doubles while a line
/// or a `-D` definition does not fit).
const IBUF_START: usize = 256;

/// How a `#shell` command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShellExit {
    /// It exited with this status.
    Code(i32),
    /// A signal ended it.
    Signal(i32),
}

/// Where the preprocessor gets files and command output from.
pub trait Files {
    /// The whole content of the file at `path`, if it can be opened for
    /// reading and is a regular file or character device; else the errno.
    fn read(&mut self, path: &[u8]) -> Result<Vec<u8>, i32>;
    /// Run `command` with `sh -c`: its standard output, its standard error
    /// and how it ended.
    fn shell(&mut self, command: &[u8]) -> io::Result<(Vec<u8>, Vec<u8>, ShellExit)>;
}

/// The real file system and `/bin/sh`.
#[cfg(unix)]
#[derive(Clone, Copy, Debug, Default)]
pub struct OsFiles;

#[cfg(unix)]
impl Files for OsFiles {
    fn read(&mut self, path: &[u8]) -> Result<Vec<u8>, i32> {
        use std::io::Read;
        use std::os::unix::ffi::OsStrExt;
        use std::os::unix::fs::FileTypeExt;
        let errno = |e: io::Error| e.raw_os_error().unwrap_or(2);
        let path = std::ffi::OsStr::from_bytes(path);
        let mut f = std::fs::File::open(path).map_err(errno)?;
        let kind = f.metadata().map_err(errno)?.file_type();
        if !kind.is_file() && !kind.is_char_device() {
            return Err(2); // ENOENT, as pmcpp says for directories and the like
        }
        let mut data = Vec::new();
        f.read_to_end(&mut data).map_err(errno)?;
        Ok(data)
    }

    fn shell(&mut self, command: &[u8]) -> io::Result<(Vec<u8>, Vec<u8>, ShellExit)> {
        use std::os::unix::ffi::OsStrExt;
        use std::os::unix::process::ExitStatusExt;
        let out = std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(std::ffi::OsStr::from_bytes(command))
            .stdin(std::process::Stdio::null())
            .output()?;
        let exit = match (out.status.code(), out.status.signal()) {
            (Some(c), _) => ShellExit::Code(c),
            (None, Some(s)) => ShellExit::Signal(s),
            (None, None) => ShellExit::Code(0),
        };
        Ok((out.stdout, out.stderr, exit))
    }
}

/// Settings of one run, as pmcpp's command line gives them.
#[derive(Clone, Debug)]
pub struct Options {
    /// Write `# N "file"` line markers (pmcpp without `-P`).
    pub line_markers: bool,
    /// Substitute macros only where written `#name` or `#{name}` (`-r`).
    pub restrict: bool,
    /// Control lines start with `%` instead of `#`, and comments are not
    /// stripped (`-s`).
    pub shell_style: bool,
    /// Extra include directories, searched in order (`-I`).
    pub include_dirs: Vec<Vec<u8>>,
    /// `$PCP_VAR_DIR`; `$PCP_VAR_DIR/pmns` is searched last for includes.
    pub var_dir: Vec<u8>,
    /// Trace the run in the diagnostics, as pmcpp's `-d` does: macro
    /// definitions, tokens looked up and what they became, include paths
    /// tried, growth of pmcpp's line buffers, and line counts at the end.
    pub debug: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            line_markers: true,
            restrict: false,
            shell_style: false,
            include_dirs: Vec::new(),
            var_dir: b"/var/lib/pcp".to_vec(),
            debug: false,
        }
    }
}

/// What a run produced: the output, the diagnostics pmcpp writes to its
/// standard error, and whether it succeeded (pmcpp's exit status 0 or 1).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    /// The preprocessed text (everything written before any error).
    pub text: Vec<u8>,
    /// Warnings, `-d` tracing and the error message, as pmcpp prints them.
    pub diagnostics: Vec<u8>,
    /// How pmcpp wrote `text` and `diagnostics`, in order: replaying these
    /// steps onto a buffered standard output and an unbuffered standard
    /// error interleaves the two as pmcpp's own output does.
    pub steps: Vec<Step>,
    /// `false` when pmcpp would exit 1.
    pub ok: bool,
}

/// One step of pmcpp's writing (see [`Output::steps`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The text up to this offset of [`Output::text`] is written (to
    /// buffered output).
    Text(usize),
    /// The diagnostics up to this offset of [`Output::diagnostics`] are
    /// written (to unbuffered standard error).
    Diagnostics(usize),
    /// The output is flushed, as pmcpp does before its error message.
    Flush,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum IfState {
    False,
    True,
    None,
}

struct Macro {
    name: Vec<u8>, // an #undef leaves an empty name
    value: Vec<u8>,
}

struct Frame {
    fname: Vec<u8>,
    data: Vec<u8>,
    pos: usize,
    lineno: i32,
    shell_exit: Option<ShellExit>,
}

/// The error that stops pmcpp: its complete message.
struct Fatal;

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// POSIX `dirname`.
fn dirname(path: &[u8]) -> Vec<u8> {
    let trimmed = {
        let mut end = path.len();
        while end > 1 && path[end - 1] == b'/' {
            end -= 1;
        }
        &path[..end]
    };
    match trimmed.iter().rposition(|&b| b == b'/') {
        None => b".".to_vec(),
        Some(i) => {
            let mut end = i;
            while end > 0 && trimmed[end - 1] == b'/' {
                end -= 1;
            }
            if end == 0 {
                b"/".to_vec()
            } else {
                trimmed[..end].to_vec()
            }
        }
    }
}

/// The preprocessor's state across one run.
///
/// ```
/// use pcp_pmns::cpp::{Cpp, Files, Options, ShellExit};
///
/// // files from memory: the preprocessor itself does no I/O (an include
/// // is looked for in the input's directory first, here ".")
/// struct Mem;
/// impl Files for Mem {
///     fn read(&mut self, path: &[u8]) -> Result<Vec<u8>, i32> {
///         match path {
///             b"./stdpmid" => Ok(b"#define LINUX 60\n".to_vec()),
///             _ => Err(2), // ENOENT
///         }
///     }
///     fn shell(&mut self, _: &[u8]) -> std::io::Result<(Vec<u8>, Vec<u8>, ShellExit)> {
///         Err(std::io::ErrorKind::Unsupported.into())
///     }
/// }
///
/// let opts = Options { line_markers: false, ..Options::default() };
/// let input = b"#include \"stdpmid\"\nload LINUX:2:0 /* 1, 5, 15 */\n".to_vec();
/// let out = Cpp::new(&opts).run(Some(b"root"), Some(input), &mut Mem);
/// assert!(out.ok);
/// assert_eq!(String::from_utf8_lossy(&out.text), "\nload 60:2:0\n");
///
/// let out = Cpp::new(&opts).run(Some(b"root"), Some(b"#include \"nosuch\"\n".to_vec()), &mut Mem);
/// assert!(!out.ok);
/// assert_eq!(
///     String::from_utf8_lossy(&out.diagnostics),
///     "pmcpp: root[1]: #include \"nosuch\"\npmcpp: Error: Cannot open file for #include\n"
/// );
/// ```
pub struct Cpp {
    macros: Vec<Macro>,
    in_if: IfState,
    if_lineno: i32,
    ctl: u8,
    restrict: bool,
    markers: bool,
    c_style: bool,
    include_dirs: Vec<Vec<u8>>,
    var_dir: Vec<u8>,
    out: Vec<u8>,
    diag: Vec<u8>,
    steps: Vec<Step>,
    debug: bool,
    /// The sizes pmcpp's line buffers would have (`-d` reports growth).
    ibuflen: usize,
    obuflen: usize,
    /// `-d`'s closing counts: lines in and out, lines with a substitution,
    /// substitutions.
    nline_in: u64,
    nline_out: u64,
    nline_sub: u64,
    nsub: u64,
}

impl Cpp {
    /// A preprocessor with no macros defined.
    pub fn new(opts: &Options) -> Cpp {
        Cpp {
            macros: Vec::new(),
            in_if: IfState::None,
            if_lineno: 0,
            ctl: if opts.shell_style { b'%' } else { b'#' },
            restrict: opts.restrict,
            markers: opts.line_markers,
            c_style: !opts.shell_style,
            include_dirs: opts.include_dirs.clone(),
            var_dir: opts.var_dir.clone(),
            out: Vec::new(),
            diag: Vec::new(),
            steps: Vec::new(),
            debug: opts.debug,
            ibuflen: IBUF_START,
            obuflen: 0,
            nline_in: 0,
            nline_out: 0,
            nline_sub: 0,
            nsub: 0,
        }
    }

    /// Turn `-d` tracing on or off from here on (pmcpp's `-d` affects only
    /// the `-D` options after it).
    pub fn set_debug(&mut self, on: bool) {
        self.debug = on;
    }

    /// Take the diagnostics so far (the `-D` definitions' tracing), to
    /// write them before anything else goes wrong; [`Cpp::run`]'s output
    /// then holds only what follows.
    pub fn take_diagnostics(&mut self) -> Vec<u8> {
        self.steps.clear();
        std::mem::take(&mut self.diag)
    }

    /// Write to standard error (unbuffered: in [`Output::steps`], after the
    /// text written so far).
    fn stderr(&mut self, bytes: &[u8]) {
        self.mark_text();
        self.diag.extend_from_slice(bytes);
        match self.steps.last_mut() {
            Some(Step::Diagnostics(end)) => *end = self.diag.len(),
            _ => self.steps.push(Step::Diagnostics(self.diag.len())),
        }
    }

    /// A `-d` trace line, if tracing.
    fn trace(&mut self, parts: &[&[u8]]) {
        if self.debug {
            self.stderr(&parts.concat());
        }
    }

    fn mark_text(&mut self) {
        let written = self.steps.iter().rev().find_map(|s| match s {
            Step::Text(end) => Some(*end),
            _ => None,
        });
        if written.unwrap_or(0) < self.out.len() {
            self.steps.push(Step::Text(self.out.len()));
        }
    }

    /// Write one output line (or several, from one write).
    fn emit(&mut self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
        self.nline_out += 1;
    }

    fn fatal(&mut self, fname: &[u8], lineno: i32, line: &[u8], msg: &str) -> Fatal {
        let mut text = b"pmcpp: ".to_vec();
        text.extend_from_slice(fname);
        if lineno > 0 {
            text.extend_from_slice(format!("[{lineno}]: ").as_bytes());
            text.extend_from_slice(line);
        } else {
            text.extend_from_slice(b":\n");
        }
        text.extend_from_slice(b"pmcpp: Error: ");
        text.extend_from_slice(msg.as_bytes());
        text.push(b'\n');
        // pmcpp flushes its output before the message
        self.mark_text();
        self.steps.push(Step::Flush);
        self.stderr(&text);
        Fatal
    }

    /// `-D name[=value]`: define a macro from the command line; `optind` is
    /// the argument index pmcpp names in its error message. On error the
    /// returned output holds pmcpp's message and `ok == false`.
    pub fn define_arg(&mut self, arg: &[u8], optind: i32) -> Result<(), Output> {
        // pmcpp's line buffer grows to hold "#define ...\n"
        while arg.len() + 9 >= self.ibuflen {
            self.ibuflen *= 2;
            let grown = format!("<<-D doubled ibuf[] to {} chars\n", self.ibuflen);
            self.trace(&[grown.as_bytes()]);
        }
        let mut line = b"#define ".to_vec();
        let mut arg = arg.to_vec();
        if let Some(eq) = arg.iter().position(|&b| b == b'=') {
            arg[eq] = b' ';
        }
        line.extend_from_slice(&arg);
        line.push(b'\n');
        match self.directive(&line, b"<arg>", optind) {
            Ok(_) => Ok(()),
            Err(Fatal) => Err(self.take_output(false)),
        }
    }

    fn take_output(&mut self, ok: bool) -> Output {
        self.mark_text();
        Output {
            text: std::mem::take(&mut self.out),
            diagnostics: std::mem::take(&mut self.diag),
            steps: std::mem::take(&mut self.steps),
            ok,
        }
    }

    /// Handle a control line other than include/shell. `Ok(None)` means it
    /// is not one pmcpp knows; `Ok(Some(skip))` whether lines that follow
    /// are skipped.
    fn directive(&mut self, line: &[u8], fname: &[u8], lineno: i32) -> Result<Option<bool>, Fatal> {
        #[derive(PartialEq)]
        enum Op {
            Define,
            Undef,
            Ifdef,
            Ifndef,
            Else,
            Endif,
        }
        let rest = &line[1..];
        let (op, word) = [
            (Op::Define, &b"define"[..]),
            (Op::Undef, b"undef"),
            (Op::Ifdef, b"ifdef"),
            (Op::Ifndef, b"ifndef"),
            (Op::Endif, b"endif"),
            (Op::Else, b"else"),
        ]
        .into_iter()
        .find(|(_, w)| rest.starts_with(w))
        .map_or((None, &b""[..]), |(op, w)| (Some(op), w));
        let Some(op) = op else { return Ok(None) };
        let ctl = self.ctl as char;
        let at = |i: usize| line.get(i).copied().unwrap_or(0);
        let mut ip = 1 + word.len();
        while is_blank(at(ip)) {
            ip += 1;
        }
        let mut name: &[u8] = b"";
        let mut value: &[u8] = b"";
        if op != Op::Endif && op != Op::Else {
            if at(ip) == b'\n' || at(ip) == 0 {
                return Err(self.fatal(fname, lineno, line, "Missing macro name"));
            }
            let start = ip;
            while at(ip) != 0 && !is_blank(at(ip)) {
                let c = at(ip);
                if c.is_ascii_alphabetic() || c == b'_' || (ip > start && c.is_ascii_digit()) {
                    ip += 1;
                } else {
                    break;
                }
            }
            if !is_space(at(ip)) {
                return Err(self.fatal(fname, lineno, line, "Illegal character in macro name"));
            }
            name = &line[start..ip];
            if op == Op::Define && at(ip) != b'\n' && at(ip) != 0 {
                while is_blank(at(ip)) {
                    ip += 1;
                }
                let quote = match at(ip) {
                    q @ (b'\'' | b'"') => {
                        ip += 1;
                        Some(q)
                    }
                    _ => None,
                };
                let vstart = ip;
                while at(ip) != 0
                    && match quote {
                        None => !is_space(at(ip)),
                        Some(q) => at(ip) != q,
                    }
                {
                    ip += 1;
                }
                if let Some(q) = quote {
                    if at(ip) != q {
                        let msg = format!("Unterminated value string in {ctl}define");
                        return Err(self.fatal(fname, lineno, line, &msg));
                    }
                }
                value = &line[vstart..ip];
                if quote.is_some() {
                    ip += 1;
                }
            }
            if op == Op::Define {
                self.trace(&[b"<<macro ", name, b"=\"", value, b"\"\n"]);
            }
        }
        while is_blank(at(ip)) {
            ip += 1;
        }
        if !matches!(at(ip), b'\n' | b'\r' | 0) {
            return Err(self.fatal(fname, lineno, line, "Unexpected extra text in a control line"));
        }
        match op {
            Op::Endif => {
                if self.in_if == IfState::None {
                    let msg = format!("No matching {ctl}ifdef or {ctl}ifndef for {ctl}endif");
                    return Err(self.fatal(fname, lineno, line, &msg));
                }
                self.in_if = IfState::None;
                return Ok(Some(false));
            }
            Op::Else => {
                self.in_if = match self.in_if {
                    IfState::None => {
                        let msg = format!("No matching {ctl}ifdef or {ctl}ifndef for {ctl}else");
                        return Err(self.fatal(fname, lineno, line, &msg));
                    }
                    IfState::True => IfState::False,
                    IfState::False => IfState::True,
                };
            }
            Op::Ifdef | Op::Ifndef if self.in_if != IfState::None => {
                let msg = format!("Nested {ctl}ifdef or {ctl}ifndef");
                return Err(self.fatal(fname, lineno, line, &msg));
            }
            _ => {}
        }
        if self.in_if == IfState::False {
            return Ok(Some(true));
        }
        // An #else reaches here with an empty name, which matches an
        // undefined macro's emptied slot, or is "defined" itself: pmcpp's
        // own behaviour, kept.
        if let Some(i) = self.macros.iter().position(|m| m.name == name) {
            return match op {
                Op::Ifdef => {
                    self.in_if = IfState::True;
                    Ok(Some(false))
                }
                Op::Ifndef => {
                    self.in_if = IfState::False;
                    Ok(Some(true))
                }
                Op::Undef => {
                    self.macros[i].name.clear();
                    Ok(Some(false))
                }
                _ => Err(self.fatal(fname, lineno, line, "Macro redefinition")),
            };
        }
        match op {
            Op::Ifdef => {
                self.in_if = IfState::False;
                self.if_lineno = lineno;
                Ok(Some(true))
            }
            Op::Ifndef => {
                self.in_if = IfState::True;
                self.if_lineno = lineno;
                Ok(Some(false))
            }
            Op::Undef => Ok(Some(false)),
            _ => {
                self.macros.push(Macro { name: name.to_vec(), value: value.to_vec() });
                Ok(Some(false))
            }
        }
    }

    fn lookup(&self, token: &[u8]) -> Option<usize> {
        if token.is_empty() {
            return None;
        }
        self.macros.iter().position(|m| m.name == token)
    }

    /// Macro substitution on one line; `inlen` is the line's length as
    /// read (before comments were stripped), plus one.
    fn substitute(&mut self, line: &[u8], inlen: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(line.len());
        let (restrict, ctl) = (self.restrict, self.ctl);
        let starts = |c: u8| {
            if restrict {
                c == ctl
            } else {
                c.is_ascii_alphabetic() || c == b'_'
            }
        };
        let mut substituted = false;
        let mut ip = 0;
        while ip < line.len() && !starts(line[ip]) {
            ip += 1;
        }
        out.extend_from_slice(&line[..ip]);
        while ip < line.len() {
            let tp = ip;
            ip += 1;
            // find the end of this token
            while let Some(&c) = line.get(ip) {
                let more = if !self.restrict {
                    c.is_ascii_alphanumeric() || c == b'_'
                } else if ip == tp + 1 {
                    c == b'{' || c.is_ascii_alphanumeric()
                } else if ip == tp + 2 && line[tp + 1] == b'{' {
                    c.is_ascii_alphanumeric()
                } else if line[tp + 1] != b'{' {
                    c.is_ascii_alphanumeric() || c == b'_'
                } else if c != b'}' {
                    true
                } else {
                    ip += 1; // the closing brace belongs to the token
                    false
                };
                if !more {
                    break;
                }
                ip += 1;
            }
            let token = &line[tp..ip];
            self.trace(&[b"<<name=\"", token, b"\"\n"]);
            let name: &[u8] = if !self.restrict {
                token
            } else if token.len() < 2 {
                b""
            } else if token[1] == b'{' {
                if token.len() < 3 || token.last() != Some(&b'}') {
                    // no closing brace on the line: pmcpp reads on past
                    // the line's end in its buffer, and a name running
                    // through the newline is never a macro's
                    b""
                } else {
                    &token[2..token.len() - 1]
                }
            } else {
                &token[1..]
            };
            match self.lookup(name) {
                Some(i) => {
                    let value = self.macros[i].value.clone();
                    self.trace(&[b"<<value=\"", &value, b"\"\n"]);
                    self.grow_obuf((inlen + value.len()).saturating_sub(token.len()));
                    if !substituted {
                        substituted = true;
                        self.nline_sub += 1;
                    }
                    self.nsub += 1;
                    out.extend_from_slice(&value);
                }
                None => out.extend_from_slice(token),
            }
            let gap = ip;
            while ip < line.len() && !starts(line[ip]) {
                ip += 1;
            }
            out.extend_from_slice(&line[gap..ip]);
        }
        out
    }

    /// pmcpp's output line buffer: it starts as big as the input buffer
    /// at the first substitution, and doubles until a line's expected
    /// length (`need`) fits.
    fn grow_obuf(&mut self, need: usize) {
        if need > self.obuflen {
            if self.obuflen == 0 {
                self.obuflen = self.ibuflen;
            }
            while need > self.obuflen {
                self.obuflen = self.obuflen.saturating_mul(2);
            }
            let grown = format!("<<increased obuf[] to {} chars\n", self.obuflen);
            self.trace(&[grown.as_bytes()]);
        }
    }

    fn marker(&mut self, lineno: i32, fname: &[u8]) {
        if self.markers {
            let mut line = format!("# {lineno} \"").into_bytes();
            line.extend_from_slice(fname);
            line.extend_from_slice(b"\"\n");
            self.emit(&line);
        }
    }

    /// Preprocess `input`, named `name` (`None`: standard input, already
    /// read into `input`); with a name and no input, the file is read
    /// through `files`.
    pub fn run(mut self, name: Option<&[u8]>, input: Option<Vec<u8>>, files: &mut dyn Files) -> Output {
        match self.run_inner(name, input, files) {
            Ok(()) => self.take_output(true),
            Err(Fatal) => self.take_output(false),
        }
    }

    fn run_inner(&mut self, name: Option<&[u8]>, input: Option<Vec<u8>>, files: &mut dyn Files) -> Result<(), Fatal> {
        // include search: the input's directory, -I directories, then
        // $PCP_VAR_DIR/pmns
        let mut search: Vec<Vec<u8>> = Vec::new();
        let top_name = name.map_or(b"<stdin>".to_vec(), <[u8]>::to_vec);
        let data = match (name, input) {
            (_, Some(d)) => d,
            (Some(n), None) => match files.read(n) {
                Ok(d) => d,
                Err(errno) => {
                    let msg = pcp_core::PmError::from_errno(errno).to_string();
                    return Err(self.fatal(n, 0, b"", &msg));
                }
            },
            (None, None) => Vec::new(),
        };
        if let Some(n) = name {
            search.push(dirname(n));
        }
        search.extend(self.include_dirs.iter().cloned());
        let mut pmns_dir = self.var_dir.clone();
        pmns_dir.extend_from_slice(b"/pmns");
        search.push(pmns_dir);

        let mut stack = vec![Frame { fname: top_name, data, pos: 0, lineno: 0, shell_exit: None }];
        self.marker(1, &stack[0].fname.clone());
        let mut skip = false;
        let mut incomment = 0;
        let ctl = self.ctl;
        loop {
            let depth = stack.len() - 1;
            let frame = &mut stack[depth];
            let Some(mut line) = self.next_line(frame)? else {
                // end of this input
                let Some(done) = stack.pop() else { break };
                match done.shell_exit {
                    Some(ShellExit::Code(0)) | None => {}
                    Some(ShellExit::Code(c)) => {
                        self.stderr(format!("Warning: {}shell cmd returns {c} exit status\n", ctl as char).as_bytes())
                    }
                    Some(ShellExit::Signal(s)) => {
                        self.stderr(format!("Warning: {}shell cmd terminated by signal {s}\n", ctl as char).as_bytes())
                    }
                }
                let Some(parent) = stack.last() else {
                    stack.push(done);
                    break;
                };
                let (lineno, fname) = (parent.lineno + 1, parent.fname.clone());
                self.marker(lineno, &fname);
                continue;
            };
            frame.lineno += 1;
            let (fname, lineno) = (frame.fname.clone(), frame.lineno);
            self.nline_in += 1;
            let inlen = line.len() + 1;

            if self.c_style {
                strip_comments(&mut line, &mut incomment, lineno);
            }
            if incomment != 0 && line[0] == b'\n' {
                self.emit(b"\n");
                continue;
            }
            if line[0] == ctl {
                let rest = &line[1..];
                let is_include = rest.starts_with(b"include");
                if is_include || rest.starts_with(b"shell") {
                    if skip {
                        self.emit(b"\n");
                        continue;
                    }
                    let (word, opens, what): (&[u8], [u8; 2], &str) = if is_include {
                        (b"include", [b'"', b'<'], "file name")
                    } else {
                        (b"shell", [b'"', b'\''], "command")
                    };
                    let kind = if is_include { "include" } else { "shell" };
                    let c = ctl as char;
                    let at = |i: usize| line.get(i).copied().unwrap_or(0);
                    let mut p = 1 + word.len();
                    while is_blank(at(p)) {
                        p += 1;
                    }
                    let open = at(p);
                    if open != opens[0] && open != opens[1] {
                        let msg = if is_include {
                            format!("Expected \" or < after {c}include")
                        } else {
                            format!("Expected \" or ' after {c}shell")
                        };
                        return Err(self.fatal(&fname, lineno, &line, &msg));
                    }
                    let close = match open {
                        b'<' => b'>',
                        q => q,
                    };
                    p += 1;
                    let mut pend = p;
                    while at(pend) != 0 && at(pend) != b'\n' && at(pend) != close {
                        pend += 1;
                    }
                    if at(pend) != close {
                        let msg = format!("Expected {} after {what}", close as char);
                        return Err(self.fatal(&fname, lineno, &line, &msg));
                    }
                    if stack.len() == MAXLEVEL {
                        let msg = if is_include {
                            format!("{c}include and/or {c}shell nesting too deep")
                        } else {
                            format!("{c}shell and/or {c}include nesting too deep")
                        };
                        return Err(self.fatal(&fname, lineno, &line, &msg));
                    }
                    let mut q = pend + 1;
                    while is_space(at(q)) {
                        q += 1;
                    }
                    if at(q) != b'\n' && at(q) != 0 {
                        let msg = format!("Unexpected extra text in {c}{kind} line");
                        return Err(self.fatal(&fname, lineno, &line, &msg));
                    }
                    let arg = line[p..pend].to_vec();
                    let frame = if is_include {
                        let found = self.find_include(files, &arg, &search);
                        let Some((path, data)) = found else {
                            let msg = format!("Cannot open file for {c}include");
                            return Err(self.fatal(&fname, lineno, &line, &msg));
                        };
                        Frame { fname: path, data, pos: 0, lineno: 0, shell_exit: None }
                    } else {
                        let Ok((stdout, stderr, exit)) = files.shell(&arg) else {
                            let msg = format!("Cannot open pipe for {c}shell");
                            return Err(self.fatal(&fname, lineno, &line, &msg));
                        };
                        self.stderr(&stderr);
                        Frame { fname: b"<shell>".to_vec(), data: stdout, pos: 0, lineno: 0, shell_exit: Some(exit) }
                    };
                    self.marker(1, &frame.fname.clone());
                    stack.push(frame);
                    continue;
                }
                match self.directive(&line, &fname, lineno)? {
                    Some(s) => {
                        skip = s;
                        self.emit(b"\n");
                        continue;
                    }
                    None => {
                        // not a directive (maybe #name for -r): an ordinary
                        // line, and it ends any skipping
                        skip = false;
                    }
                }
            } else if skip {
                self.emit(b"\n");
                continue;
            }
            if self.macros.is_empty() {
                self.emit(&line);
            } else {
                let text = self.substitute(&line, inlen);
                self.emit(&text);
            }
        }

        let top = stack.last().map_or(b"<stdin>".to_vec(), |f| f.fname.clone());
        if incomment != 0 {
            let msg = format!("Comment at line {incomment} not terminated before end of file");
            return Err(self.fatal(&top, 0, b"", &msg));
        }
        if self.in_if != IfState::None {
            let c = self.ctl as char;
            let msg =
                format!("End of input and no matching {c}endif for {c}ifdef or {c}ifndef at line {}", self.if_lineno);
            return Err(self.fatal(&top, 0, b"", &msg));
        }
        let counts = format!(
            "<<lines: in {} out {} (modified {}) substitutions: {}\n",
            self.nline_in, self.nline_out, self.nline_sub, self.nsub
        );
        self.trace(&[counts.as_bytes()]);
        Ok(())
    }

    /// The next line of a frame as pmcpp's `fgets` loop reads it into its
    /// line buffer: up to and including a newline. Each read takes what
    /// fits in the rest of the buffer; a NUL ends the text of that read
    /// (the rest of what it read is lost), and the buffer doubles while
    /// the text so far does not end in a newline, then reading goes on.
    /// `None` at the end of input, when an unterminated last line is
    /// dropped (after its doubling). Each NUL-started read doubles the
    /// buffer too, and pmcpp dies when its `int` size overflows.
    fn next_line(&mut self, frame: &mut Frame) -> Result<Option<Vec<u8>>, Fatal> {
        let mut line = Vec::new();
        loop {
            let Some(rest) = frame.data.get(frame.pos..).filter(|r| !r.is_empty()) else {
                return Ok(None);
            };
            let room = self.ibuflen - line.len() - 1;
            let window = &rest[..rest.len().min(room)];
            let read = window.iter().position(|&b| b == b'\n').map_or(window.len(), |i| i + 1);
            let chunk = &window[..read];
            line.extend_from_slice(&chunk[..chunk.iter().position(|&b| b == 0).unwrap_or(read)]);
            frame.pos += read;
            if line.last() == Some(&b'\n') {
                return Ok(Some(line));
            }
            self.ibuflen *= 2;
            if self.ibuflen > i32::MAX as usize {
                // realloc of the negative size, and pmNoMem's fatal message
                // (less its time stamp and process id); exit then writes out
                // the buffered output
                let size = self.ibuflen as u32 as i32 as u64;
                let msg = format!("pmcpp: ibuf realloc: malloc({size}) failed: Cannot allocate memory\n");
                self.stderr(msg.as_bytes());
                return Err(Fatal);
            }
            let grown = format!("<<doubled ibuf[] to {} chars\n", self.ibuflen);
            self.trace(&[grown.as_bytes()]);
        }
    }

    /// pmcpp's include search: the name as given, then (for a relative
    /// name) each search directory.
    fn find_include(&mut self, files: &mut dyn Files, name: &[u8], search: &[Vec<u8>]) -> Option<(Vec<u8>, Vec<u8>)> {
        if let Ok(d) = files.read(name) {
            return Some((name.to_vec(), d));
        }
        if name.first() == Some(&b'/') {
            return None;
        }
        search.iter().find_map(|dir| {
            let mut path = dir.clone();
            path.push(b'/');
            path.extend_from_slice(name);
            self.trace(&[b"<<include \"", &path, b"\"?\n"]);
            files.read(&path).ok().map(|d| (path, d))
        })
    }
}

/// Blank out C comments (tracking one that spans lines); a line that had
/// any has its trailing white space removed.
fn strip_comments(line: &mut Vec<u8>, incomment: &mut i32, lineno: i32) {
    let mut blanked = false;
    let mut i = 0;
    while line[i] != b'\n' {
        if *incomment > 0 {
            blanked = true;
            if line[i] == b'*' && line[i + 1] == b'/' {
                *incomment = 0;
                line[i] = b' ';
                i += 1;
            }
            line[i] = b' ';
        } else if line[i] == b'/' && line[i + 1] == b'*' {
            *incomment = lineno;
            blanked = true;
            line[i] = b' ';
            i += 1;
            line[i] = b' ';
        }
        i += 1;
    }
    if blanked {
        while line.last().is_some_and(|&b| is_space(b)) {
            line.pop();
        }
        line.push(b'\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// In-memory files for tests.
    #[derive(Default)]
    pub(crate) struct MemFiles(pub HashMap<Vec<u8>, Vec<u8>>);

    impl Files for MemFiles {
        fn read(&mut self, path: &[u8]) -> Result<Vec<u8>, i32> {
            self.0.get(path).cloned().ok_or(2)
        }
        fn shell(&mut self, _: &[u8]) -> io::Result<(Vec<u8>, Vec<u8>, ShellExit)> {
            Ok((b"from shell\n".to_vec(), Vec::new(), ShellExit::Code(3)))
        }
    }

    fn run(text: &str) -> Output {
        let mut files = MemFiles::default();
        files.0.insert(b"inc/sub".to_vec(), b"in sub\n".to_vec());
        Cpp::new(&Options::default()).run(Some(b"t.pmns"), Some(text.as_bytes().to_vec()), &mut files)
    }

    #[test]
    fn comments_macros_and_conditionals() {
        let o = run("a\n/* c */ b /* d\nxx */ e\n#define FOO 12\nFOO:FOO_x xFOO _FOO FOO\n#ifdef FOO\nyes\n#else\nno\n#endif\nlast");
        assert!(o.ok);
        assert_eq!(
            String::from_utf8_lossy(&o.text),
            "# 1 \"t.pmns\"\na\n        b\n      e\n\n12:FOO_x xFOO _FOO 12\n\nyes\n\n\n\n"
        );
    }

    #[test]
    fn errors_name_the_line() {
        let o = run("#ifdef X\n#else\n#endif\n#ifdef Y\n#else\n#endif\n");
        assert!(!o.ok);
        assert_eq!(
            String::from_utf8_lossy(&o.diagnostics),
            "pmcpp: t.pmns[5]: #else\npmcpp: Error: Macro redefinition\n"
        );
        let o = run("x\n/* open\n");
        assert_eq!(
            String::from_utf8_lossy(&o.diagnostics),
            "pmcpp: t.pmns:\npmcpp: Error: Comment at line 2 not terminated before end of file\n"
        );
    }

    #[test]
    fn includes_and_shell() {
        let o = run("#include \"inc/sub\"\n#shell 'echo'\nend\n");
        assert!(o.ok, "{}", String::from_utf8_lossy(&o.diagnostics));
        assert_eq!(
            String::from_utf8_lossy(&o.text),
            "# 1 \"t.pmns\"\n# 1 \"inc/sub\"\nin sub\n# 2 \"t.pmns\"\n# 1 \"<shell>\"\nfrom shell\n# 3 \"t.pmns\"\nend\n"
        );
        assert_eq!(String::from_utf8_lossy(&o.diagnostics), "Warning: #shell cmd returns 3 exit status\n");
    }

    #[test]
    fn debug_traces_in_order_with_the_text() {
        let opts = Options { debug: true, restrict: true, ..Options::default() };
        let mut files = MemFiles::default();
        let o = Cpp::new(&opts).run(Some(b"t"), Some(b"#define X y\n#X #{X} #Y\n#ifdef X\n".to_vec()), &mut files);
        assert!(!o.ok);
        let diag = String::from_utf8_lossy(&o.diagnostics);
        let trace = "<<macro X=\"y\"\n<<name=\"#X\"\n<<value=\"y\"\n<<increased obuf[] to 256 chars\n\
                     <<name=\"#{X}\"\n<<value=\"y\"\n<<name=\"#Y\"\n";
        assert_eq!(
            diag,
            format!(
                "{trace}pmcpp: t:\npmcpp: Error: End of input and no matching #endif for #ifdef or #ifndef at line 0\n"
            )
        );
        assert_eq!(o.text, b"# 1 \"t\"\n\ny y #Y\n\n");
        // the marker, the #define's trace, its blank line, the other
        // line's trace, its text, the flush before the error message
        let (t, d) = (o.text.len(), o.diagnostics.len());
        let steps = [8, 14, 9, trace.len(), t];
        assert_eq!(
            o.steps,
            [
                Step::Text(steps[0]),
                Step::Diagnostics(steps[1]),
                Step::Text(steps[2]),
                Step::Diagnostics(steps[3]),
                Step::Text(steps[4]),
                Step::Flush,
                Step::Diagnostics(d)
            ]
        );
    }

    #[test]
    fn buffer_growth_follows_pmcpp() {
        let opts = Options { debug: true, line_markers: false, ..Options::default() };
        let mut files = MemFiles::default();
        let mut cpp = Cpp::new(&opts);
        assert!(cpp.define_arg(&[b'a'; 250], 3).is_ok());
        let long = format!("{} a\nno newline", "x".repeat(600));
        let o = cpp.run(Some(b"t"), Some(long.into_bytes()), &mut files);
        let diag = String::from_utf8_lossy(&o.diagnostics);
        let grown: Vec<&str> = diag.lines().filter(|l| !l.starts_with("<<name") && !l.starts_with("<<macro")).collect();
        assert_eq!(
            grown,
            [
                "<<-D doubled ibuf[] to 512 chars",
                "<<doubled ibuf[] to 1024 chars",
                "<<doubled ibuf[] to 2048 chars",
                "<<lines: in 1 out 1 (modified 0) substitutions: 0"
            ]
        );
    }

    #[test]
    fn unclosed_brace_is_not_a_macro() {
        let opts = Options { restrict: true, shell_style: true, line_markers: false, ..Options::default() };
        let mut files = MemFiles::default();
        let o = Cpp::new(&opts).run(Some(b"t"), Some(b"%define foo bar\n%foo %{foo\n".to_vec()), &mut files);
        assert_eq!(o.text, b"\nbar %{foo\n");
    }

    #[test]
    fn nul_bytes_join_lines() {
        let o = run("x\0y\nz\n");
        assert_eq!(o.text, b"# 1 \"t.pmns\"\nxz\n");
    }

    #[test]
    fn dirname_like_posix() {
        for (p, d) in [("a", "."), ("/a/b", "/a"), ("a/b/", "a"), ("/", "/"), ("", "."), ("//a", "/")] {
            assert_eq!(dirname(p.as_bytes()), d.as_bytes(), "{p}");
        }
    }

    proptest::proptest! {
        #[test]
        fn never_panics(text in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200)) {
            let mut files = MemFiles::default();
            let _ = Cpp::new(&Options::default()).run(Some(b"f"), Some(text.clone()), &mut files);
            let opts = Options { restrict: true, ..Options::default() };
            let _ = Cpp::new(&opts).run(None, Some(text), &mut files);
        }
    }
}
