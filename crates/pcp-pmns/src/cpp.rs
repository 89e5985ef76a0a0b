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
//! File access goes through the [`Files`] trait, so the preprocessor itself
//! does no I/O and is tested on in-memory files.

use std::io;

/// Deepest nesting of the input file, includes and shell commands.
const MAXLEVEL: usize = 5;

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
}

impl Default for Options {
    fn default() -> Options {
        Options {
            line_markers: true,
            restrict: false,
            shell_style: false,
            include_dirs: Vec::new(),
            var_dir: b"/var/lib/pcp".to_vec(),
        }
    }
}

/// What a run produced: the output, the diagnostics pmcpp writes to its
/// standard error, and whether it succeeded (pmcpp's exit status 0 or 1).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    /// The preprocessed text (everything written before any error).
    pub text: Vec<u8>,
    /// Warnings and the error message, as pmcpp prints them.
    pub diagnostics: Vec<u8>,
    /// `false` when pmcpp would exit 1.
    pub ok: bool,
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
        }
    }

    fn fatal(&mut self, fname: &[u8], lineno: i32, line: &[u8], msg: &str) -> Fatal {
        self.diag.extend_from_slice(b"pmcpp: ");
        self.diag.extend_from_slice(fname);
        if lineno > 0 {
            self.diag.extend_from_slice(format!("[{lineno}]: ").as_bytes());
            self.diag.extend_from_slice(line);
        } else {
            self.diag.extend_from_slice(b":\n");
        }
        self.diag.extend_from_slice(b"pmcpp: Error: ");
        self.diag.extend_from_slice(msg.as_bytes());
        self.diag.push(b'\n');
        Fatal
    }

    /// `-D name[=value]`: define a macro from the command line; `optind` is
    /// the argument index pmcpp names in its error message. On error the
    /// returned output holds pmcpp's message and `ok == false`.
    pub fn define_arg(&mut self, arg: &[u8], optind: i32) -> Result<(), Output> {
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
        Output { text: std::mem::take(&mut self.out), diagnostics: std::mem::take(&mut self.diag), ok }
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

    fn lookup(&self, token: &[u8]) -> Option<&[u8]> {
        if token.is_empty() {
            return None;
        }
        self.macros.iter().find(|m| m.name == token).map(|m| m.value.as_slice())
    }

    /// Macro substitution on one line.
    fn substitute(&self, line: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(line.len());
        let starts = |c: u8| {
            if self.restrict {
                c == self.ctl
            } else {
                c.is_ascii_alphabetic() || c == b'_'
            }
        };
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
            let name: &[u8] = if !self.restrict {
                token
            } else if token.len() < 2 {
                b""
            } else if token[1] == b'{' {
                &token[2..token.len().saturating_sub(1).max(2)]
            } else {
                &token[1..]
            };
            match self.lookup(name) {
                Some(value) => out.extend_from_slice(value),
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

    fn marker(&mut self, lineno: i32, fname: &[u8]) {
        if self.markers {
            self.out.extend_from_slice(format!("# {lineno} \"").as_bytes());
            self.out.extend_from_slice(fname);
            self.out.extend_from_slice(b"\"\n");
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
            let Some(mut line) = next_line(frame) else {
                // end of this input
                let Some(done) = stack.pop() else { break };
                match done.shell_exit {
                    Some(ShellExit::Code(0)) | None => {}
                    Some(ShellExit::Code(c)) => self.diag.extend_from_slice(
                        format!("Warning: {}shell cmd returns {c} exit status\n", ctl as char).as_bytes(),
                    ),
                    Some(ShellExit::Signal(s)) => self.diag.extend_from_slice(
                        format!("Warning: {}shell cmd terminated by signal {s}\n", ctl as char).as_bytes(),
                    ),
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

            if self.c_style {
                strip_comments(&mut line, &mut incomment, lineno);
            }
            if incomment != 0 && line[0] == b'\n' {
                self.out.push(b'\n');
                continue;
            }
            if line[0] == ctl {
                let rest = &line[1..];
                let is_include = rest.starts_with(b"include");
                if is_include || rest.starts_with(b"shell") {
                    if skip {
                        self.out.push(b'\n');
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
                        let found = find_include(files, &arg, &search);
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
                        self.diag.extend_from_slice(&stderr);
                        Frame { fname: b"<shell>".to_vec(), data: stdout, pos: 0, lineno: 0, shell_exit: Some(exit) }
                    };
                    self.marker(1, &frame.fname.clone());
                    stack.push(frame);
                    continue;
                }
                match self.directive(&line, &fname, lineno)? {
                    Some(s) => {
                        skip = s;
                        self.out.push(b'\n');
                        continue;
                    }
                    None => {
                        // not a directive (maybe #name for -r): an ordinary
                        // line, and it ends any skipping
                        skip = false;
                    }
                }
            } else if skip {
                self.out.push(b'\n');
                continue;
            }
            if self.macros.is_empty() {
                self.out.extend_from_slice(&line);
            } else {
                let text = self.substitute(&line);
                self.out.extend_from_slice(&text);
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
        Ok(())
    }
}

/// The next line of a frame as pmcpp's `fgets` loop sees it: up to and
/// including a newline; a NUL ends the text of its chunk (the rest of that
/// line is lost and the next line joins on); `None` at the end of input,
/// when an unterminated last line is dropped.
fn next_line(frame: &mut Frame) -> Option<Vec<u8>> {
    let mut line = Vec::new();
    loop {
        let rest = frame.data.get(frame.pos..).filter(|r| !r.is_empty())?;
        let chunk_len = rest.iter().position(|&b| b == b'\n').map_or(rest.len(), |i| i + 1);
        let chunk = &rest[..chunk_len];
        let text = &chunk[..chunk.iter().position(|&b| b == 0).unwrap_or(chunk.len())];
        line.extend_from_slice(text);
        frame.pos += chunk_len;
        if line.last() == Some(&b'\n') {
            return Some(line);
        }
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

/// pmcpp's include search: the name as given, then (for a relative name)
/// each search directory.
fn find_include(files: &mut dyn Files, name: &[u8], search: &[Vec<u8>]) -> Option<(Vec<u8>, Vec<u8>)> {
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
        files.read(&path).ok().map(|d| (path, d))
    })
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
