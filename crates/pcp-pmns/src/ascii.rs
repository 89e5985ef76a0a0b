//! The ASCII PMNS loader (`pmLoadASCIINameSpace`), per PMNS(5).
//!
//! Pass 1 reads the (preprocessed) text into subtree definitions, one per
//! `path { ... }` block; pass 2 joins them into one tree from `root`, and
//! optionally refuses duplicate PMIDs. Diagnostics are the ones libpcp
//! 6.0.3 prints, byte for byte: location `[file:line]`, the offending line
//! as the lexer saw it (white space squeezed) and a caret under the token.
//! libpcp formats some messages into its line buffer before printing it,
//! which shows in the caret lines; that is reproduced too.

use crate::cpp::{Cpp, Files, Options};
use crate::tree::{Builder, NodeId, Pmns};
use pcp_core::error::Subject;
use pcp_core::{Error, PmError, PmId};
use std::collections::HashMap;

/// libpcp's line buffer size: longer lines are refused.
const LINEBUF: usize = 256;

/// Settings for one load.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Allow several names for one PMID (`pminfo -n`); `false` for `-N`.
    pub dupok: bool,
    /// Pass the file through pmcpp first (libpcp always does for
    /// `pmLoadASCIINameSpace`).
    pub use_cpp: bool,
    /// `$PCP_VAR_DIR`, for pmcpp's include search.
    pub var_dir: Vec<u8>,
    /// Write libpcp's `-Dpmns` trace of the load into the diagnostics:
    /// the load and its file, each leaf's PMID as it is read, and the
    /// success at the end.
    pub trace: bool,
}

impl Default for LoadOptions {
    fn default() -> LoadOptions {
        LoadOptions { dupok: true, use_cpp: true, var_dir: b"/var/lib/pcp".to_vec(), trace: false }
    }
}

/// The outcome of a load: the name space or the status code, and the
/// diagnostics libpcp (and pmcpp) write to standard error on the way.
#[derive(Debug)]
pub struct Loaded {
    /// The name space, or why there is none (`PM_ERR_PMNS`, or `-errno`
    /// when the file cannot be read), the error naming the file.
    pub pmns: Result<Pmns, Error>,
    /// Everything written to standard error, in order.
    pub diagnostics: Vec<u8>,
    /// Whether libpcp would hold on to this load as the process's name
    /// space: it does once the text has parsed (its second pass, which
    /// builds the tree, has begun), even when that pass then fails; a
    /// later load is then refused with `PM_ERR_DUPPMNS`.
    pub kept: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Name,
    Path,
    Pmid(PmId),
    LBrace,
    RBrace,
    Bogus,
}

use pcp_core::support::strtod::is_c_space as is_space;

struct Lexer {
    text: Vec<u8>,
    pos: usize,
    cpp_ok: bool,
    used_cpp: bool,
    linebuf: [u8; LINEBUF],
    lp: usize,
    linep: Option<usize>,
    lineno: i32,
    fname: Vec<u8>,
    tok: Vec<u8>,
    diag: Vec<u8>,
}

impl Lexer {
    fn cstr(&self) -> &[u8] {
        let end = self.linebuf.iter().position(|&b| b == 0).unwrap_or(LINEBUF);
        &self.linebuf[..end]
    }

    /// pmsprintf into the line buffer (libpcp formats messages there).
    fn set_linebuf(&mut self, msg: &[u8]) {
        let n = msg.len().min(LINEBUF - 1);
        self.linebuf[..n].copy_from_slice(&msg[..n]);
        self.linebuf[n] = 0;
    }

    /// libpcp's `err()`.
    fn err(&mut self, msg: &[u8]) {
        let located = self.lineno > 0;
        if located {
            self.diag.push(b'[');
            self.diag.extend_from_slice(&self.fname);
            self.diag.extend_from_slice(format!(":{}] ", self.lineno).as_bytes());
        }
        self.diag.extend_from_slice(b"Error Parsing ASCII PMNS: ");
        self.diag.extend_from_slice(msg);
        self.diag.push(b'\n');
        if located {
            let line = self.cstr().to_vec();
            self.diag.extend_from_slice(b"    ");
            self.diag.extend_from_slice(&line);
            if line.last() != Some(&b'\n') {
                self.diag.push(b'\n');
            }
            if let Some(at) = self.linep {
                let at = at.min(LINEBUF - 3);
                for b in &mut self.linebuf[..at] {
                    if !is_space(*b) {
                        *b = b' ';
                    }
                }
                self.linebuf[at] = b'^';
                self.linebuf[at + 1] = b'\n';
                self.linebuf[at + 2] = 0;
                let caret = self.cstr().to_vec();
                self.diag.extend_from_slice(b"    ");
                self.diag.extend_from_slice(&caret);
            }
        }
    }

    /// Read the next input line into the line buffer, squeezing white
    /// space as libpcp does. `Ok(false)` at the end of the input.
    fn read_line(&mut self) -> Result<bool, PmError> {
        let rest = &self.text[self.pos..];
        if rest.is_empty() {
            self.lineno = -1;
            if self.used_cpp && !self.cpp_ok {
                self.err(b"pmcpp returned non-zero exit status");
                return Err(PmError::PM_ERR_PMNS);
            }
            return Ok(false);
        }
        // fgets: up to a newline, at most LINEBUF-1 bytes
        let mut n = rest.iter().take(LINEBUF - 1).position(|&b| b == b'\n').map_or(rest.len(), |i| i + 1);
        n = n.min(LINEBUF - 1);
        // fgets into the line buffer, then squeeze it in place up to its
        // first NUL; a refused line is printed unterminated, so whatever
        // fgets left after the squeezed text shows too
        self.linebuf[..n].copy_from_slice(&rest[..n]);
        self.linebuf[n] = 0;
        self.pos += n;
        let len = self.linebuf[..n].iter().position(|&b| b == 0).unwrap_or(n);
        let ends_in_newline = len > 0 && self.linebuf[len - 1] == b'\n';
        let mut q = 0usize;
        let mut inspace = false;
        for p in 0..len {
            let c = self.linebuf[p];
            if is_space(c) {
                if !inspace {
                    if q > 0 && self.linebuf[q - 1] != b':' {
                        self.linebuf[q] = c;
                        q += 1;
                    }
                    inspace = true;
                }
            } else if c == b':' {
                if inspace {
                    q = q.saturating_sub(1);
                    inspace = false;
                }
                self.linebuf[q] = c;
                q += 1;
            } else {
                self.linebuf[q] = c;
                q += 1;
                inspace = false;
            }
        }
        if !ends_in_newline {
            self.err(b"Absurdly long line, cannot recover");
            return Err(PmError::PM_ERR_PMNS);
        }
        self.linebuf[q] = 0;
        Ok(true)
    }

    /// The next token; `Ok(None)` at the end of the input.
    fn next(&mut self) -> Result<Option<Tok>, PmError> {
        while self.linebuf[self.lp] != 0 && is_space(self.linebuf[self.lp]) {
            self.lp += 1;
        }
        while self.linebuf[self.lp] == 0 {
            loop {
                if !self.read_line()? {
                    return Ok(None);
                }
                if self.linebuf[0] == b'#' {
                    // a line marker from pmcpp: # N "file"
                    let line = self.cstr().to_vec();
                    match parse_marker(&line) {
                        Some((n, file)) => {
                            self.lineno = n - 1;
                            self.fname = file;
                        }
                        None => {
                            self.err(b"Illegal line number control number");
                            return Err(PmError::PM_ERR_PMNS);
                        }
                    }
                    continue;
                }
                self.lineno += 1;
                self.lp = 0;
                while self.linebuf[self.lp] != 0 && is_space(self.linebuf[self.lp]) {
                    self.lp += 1;
                }
                break;
            }
        }
        self.linep = Some(self.lp);
        let start = self.lp;
        while self.lp < LINEBUF && self.linebuf[self.lp] != 0 && !is_space(self.linebuf[self.lp]) {
            self.lp += 1;
        }
        self.tok.clear();
        self.tok.extend_from_slice(&self.linebuf[start..self.lp]);
        Ok(Some(self.classify()))
    }

    fn classify(&mut self) -> Tok {
        let t = &self.tok;
        match t.as_slice() {
            b"{" => return Tok::LBrace,
            b"}" => return Tok::RBrace,
            _ => {}
        }
        if t.first().is_some_and(u8::is_ascii_alphabetic) {
            let mut kind = Tok::Name;
            let mut ok = true;
            for &c in &t[1..] {
                if c == b'.' {
                    kind = Tok::Path;
                } else if !c.is_ascii_alphanumeric() && c != b'_' {
                    ok = false;
                    break;
                }
            }
            if ok {
                return kind;
            }
        }
        let mut colons = 0;
        for &c in t {
            if c == b':' {
                colons += 1;
                if colons > 3 {
                    return Tok::Bogus;
                }
            } else if !c.is_ascii_digit() && c != b'*' {
                return Tok::Bogus;
            }
        }
        // sscanf("%d:%d:%d"): leading numbers separated by single colons
        let t = t.clone();
        let mut nums = Vec::new();
        let mut i = 0;
        while nums.len() < 3 {
            let d = t[i..].iter().take_while(|b| b.is_ascii_digit()).count();
            if d == 0 {
                break;
            }
            // sscanf's %d: clamped to 64 bits, cut to 32
            nums.push(pcp_core::support::strtod::strtol_prefix(&t[i..i + d]).0 as i32);
            i += d;
            if nums.len() < 3 {
                if t.get(i) != Some(&b':') {
                    break;
                }
                i += 1;
            }
        }
        if let [d, c, it] = nums[..] {
            let msg: &[u8] = if d > 510 {
                b"Illegal domain field in PMID"
            } else if c > 4095 {
                b"Illegal cluster field in PMID"
            } else if it > 1023 {
                b"Illegal item field in PMID"
            } else {
                return Tok::Pmid(PmId::new(d as u32, c as u32, it as u32));
            };
            self.err(msg);
            return Tok::Bogus;
        }
        if let Some(colon) = t.iter().position(|&b| b == b':') {
            if &t[colon + 1..] != b"*:*" {
                self.err(b"Illegal PMID");
                return Tok::Bogus;
            }
        }
        let Some(&d) = nums.first() else {
            self.err(b"Illegal PMID");
            return Tok::Bogus;
        };
        if d > 510 {
            self.err(b"Illegal domain field in dynamic PMID");
            return Tok::Bogus;
        }
        Tok::Pmid(PmId::dynamic_root(d as u32))
    }
}

/// `# N "file"` as libpcp's `sscanf("# %d \"%s")` reads it: the file name
/// runs to the next white space, and its last character (the closing
/// quote) is dropped.
fn parse_marker(line: &[u8]) -> Option<(i32, Vec<u8>)> {
    let mut i = 1;
    let skip_ws = |i: &mut usize| {
        while line.get(*i).is_some_and(|&b| is_space(b)) {
            *i += 1;
        }
    };
    // %d: white space, a sign and digits, clamped to a long, cut to an int
    let (n, used) = pcp_core::support::strtod::strtol_prefix(line.get(i..).unwrap_or_default());
    if used == 0 {
        return None;
    }
    let n = n as i32;
    i += used;
    skip_ws(&mut i);
    if line.get(i) != Some(&b'"') {
        return None;
    }
    i += 1;
    let len = line[i..].iter().take_while(|&&b| !is_space(b)).count();
    if len == 0 {
        return None;
    }
    let mut file = line[i..i + len].to_vec();
    file.pop();
    Some((n, file))
}

/// One `path { ... }` block of pass 1: its path, and its children as
/// (name offset, name length, PMID) into the name arena.
struct Subtree {
    name: Vec<u8>,
    children: Vec<(u32, u32, PmId)>,
}

/// Pass 1's result: the blocks, and one arena holding every child name.
struct Defs {
    names: Vec<u8>,
    blocks: Vec<Subtree>,
}

/// Load an ASCII PMNS from `path`, reading through `files` (pmcpp's
/// includes too), as `pmLoadASCIINameSpace` does.
#[doc(alias = "pmLoadASCIINameSpace")]
#[doc(alias = "pmLoadNameSpace")]
pub fn load(path: &[u8], opts: &LoadOptions, files: &mut dyn Files) -> Loaded {
    let mut diag = Vec::new();
    if opts.trace {
        // (libpcp's "case 0": a file named by the caller)
        let (dupok, cpp) = (i32::from(opts.dupok), i32::from(opts.use_cpp));
        for part in [
            &b"load(name="[..],
            path,
            format!(", dupok={dupok}, use_cpp={cpp}) lic case=0 fname=").as_bytes(),
            path,
            b"\n",
        ] {
            diag.extend_from_slice(part);
        }
    }
    let data = match files.read(path) {
        Ok(d) => d,
        Err(errno) => {
            diag.extend_from_slice(b"Error Parsing ASCII PMNS: Cannot open \"");
            diag.extend_from_slice(path);
            diag.extend_from_slice(b"\"\n");
            let pmns = Err(on_file(path, PmError::from_errno(errno)));
            return Loaded { pmns, diagnostics: diag, kept: false };
        }
    };
    if opts.trace {
        let (dupok, cpp) = (i32::from(opts.dupok), i32::from(opts.use_cpp));
        diag.extend_from_slice(format!("loadascii(dupok={dupok}, use_cpp={cpp}) fname=").as_bytes());
        diag.extend_from_slice(path);
        diag.push(b'\n');
    }
    let (text, cpp_ok) = if opts.use_cpp {
        let cpp_opts = Options { var_dir: opts.var_dir.clone(), ..Options::default() };
        let out = Cpp::new(&cpp_opts).run(Some(path), Some(data), files);
        diag.extend_from_slice(&out.diagnostics);
        (out.text, out.ok)
    } else {
        (data, true)
    };
    let mut lex = Lexer {
        text,
        pos: 0,
        cpp_ok,
        used_cpp: opts.use_cpp,
        linebuf: [0; LINEBUF],
        lp: 0,
        linep: None,
        lineno: 1,
        fname: path.to_vec(),
        tok: Vec::new(),
        diag,
    };
    let mut kept = false;
    let pmns = pass1(&mut lex, opts.trace).and_then(|defs| {
        lex.text = Vec::new(); // the text is no longer needed: free it first
        kept = true;
        pass2(&mut lex, defs, opts.dupok)
    });
    if opts.trace && pmns.is_ok() {
        lex.diag.extend_from_slice(b"Loaded ASCII PMNS\n");
    }
    let pmns = pmns.map_err(|code| on_file(path, code));
    Loaded { pmns, diagnostics: std::mem::take(&mut lex.diag), kept }
}

/// A load's failure as an [`Error`] naming the file.
fn on_file(path: &[u8], code: PmError) -> Error {
    use std::os::unix::ffi::OsStrExt;
    Error::new(code, Subject::Namespace(std::ffi::OsStr::from_bytes(path).into()))
}

/// Load the text of an ASCII PMNS that needs no preprocessing (as
/// `pmLoadNameSpace` reads a file).
///
/// A text that does not parse gives `PM_ERR_PMNS` and libpcp's
/// diagnostics, which name the file and line and point at the token:
///
/// ```
/// use pcp_core::PmError;
/// use pcp_pmns::ascii::load_text;
///
/// let loaded = load_text(b"bad.pmns", b"root {\n    a 1:2:3\n    b 511:0:0\n}\n", true);
/// assert_eq!(loaded.pmns.unwrap_err(), PmError::PM_ERR_PMNS);
/// assert_eq!(
///     String::from_utf8_lossy(&loaded.diagnostics),
///     "[bad.pmns:4] Error Parsing ASCII PMNS: Illegal domain field in PMID\n    b 511:0:0\n      ^\n\
///      [bad.pmns:4] Error Parsing ASCII PMNS: Expected NAME, PMID or }\n      ^\n      ^\n"
/// );
///
/// // one PMID under two names is refused when duplicates are not allowed
/// let text = b"root {\n    a 1:0:1\n    b 1:0:1\n}\n";
/// assert!(load_text(b"dup.pmns", text, true).pmns.is_ok());
/// assert!(load_text(b"dup.pmns", text, false).pmns.is_err());
/// ```
pub fn load_text(name: &[u8], text: &[u8], dupok: bool) -> Loaded {
    struct One<'t>(&'t [u8]);
    impl Files for One<'_> {
        fn read(&mut self, _: &[u8]) -> Result<Vec<u8>, i32> {
            Ok(self.0.to_vec())
        }
        fn shell(&mut self, _: &[u8]) -> std::io::Result<(Vec<u8>, Vec<u8>, crate::cpp::ShellExit)> {
            Err(std::io::ErrorKind::Unsupported.into())
        }
    }
    load(name, &LoadOptions { dupok, use_cpp: false, ..LoadOptions::default() }, &mut One(text))
}

fn pass1(lex: &mut Lexer, trace: bool) -> Result<Defs, PmError> {
    let mut defs = Defs { names: Vec::new(), blocks: Vec::new() };
    let mut state = 0;
    while let Some(tok) = lex.next()? {
        match state {
            0 => {
                if tok != Tok::Name && tok != Tok::Path {
                    lex.err(b"Expected NAME or PATH");
                    return Err(PmError::PM_ERR_PMNS);
                }
                defs.blocks.push(Subtree { name: lex.tok.clone(), children: Vec::new() });
                state = 1;
            }
            1 => {
                if tok != Tok::LBrace {
                    lex.err(b"{ expected");
                    return Err(PmError::PM_ERR_PMNS);
                }
                state = 2;
            }
            _ => match (state, tok) {
                (_, Tok::Name) => {
                    let off = defs.names.len() as u32;
                    defs.names.extend_from_slice(&lex.tok);
                    if let Some(d) = defs.blocks.last_mut() {
                        d.children.push((off, lex.tok.len() as u32, PmId::NULL));
                    }
                    state = 3;
                }
                (3, Tok::Pmid(id)) => {
                    if let Some(child) = defs.blocks.last_mut().and_then(|d| d.children.last_mut()) {
                        child.2 = id;
                        if trace {
                            let name = arena(&defs.names, child);
                            lex.diag.extend_from_slice(b"pmLoadNameSpace: ");
                            lex.diag.extend_from_slice(name);
                            lex.diag.extend_from_slice(format!(" -> {id}\n").as_bytes());
                        }
                    }
                    state = 2;
                }
                (_, Tok::RBrace) => {
                    state = 0;
                    if let Some(d) = defs.blocks.last() {
                        if let Some(dup) = first_duplicate(&defs.names, &d.children) {
                            let mut msg = b"Duplicate name \"".to_vec();
                            msg.extend_from_slice(dup);
                            msg.extend_from_slice(b"\" in subtree for \"");
                            msg.extend_from_slice(&d.name);
                            msg.extend_from_slice(b"\"\n");
                            lex.set_linebuf(&msg);
                            let shown = lex.cstr().to_vec();
                            lex.err(&shown);
                            return Err(PmError::PM_ERR_PMNS);
                        }
                    }
                }
                (2, _) => {
                    lex.err(b"Expected NAME or }");
                    return Err(PmError::PM_ERR_PMNS);
                }
                _ => {
                    lex.err(b"Expected NAME, PMID or }");
                    return Err(PmError::PM_ERR_PMNS);
                }
            },
        }
    }
    Ok(defs)
}

fn arena<'n>(names: &'n [u8], (off, len, _): &(u32, u32, PmId)) -> &'n [u8] {
    &names[*off as usize..(*off + *len) as usize]
}

/// The first child name (in order) that appears again later in the block.
fn first_duplicate<'n>(names: &'n [u8], children: &[(u32, u32, PmId)]) -> Option<&'n [u8]> {
    let mut order: Vec<u32> = (0..children.len() as u32).collect();
    order
        .sort_by(|&a, &b| arena(names, &children[a as usize]).cmp(arena(names, &children[b as usize])).then(a.cmp(&b)));
    // the earliest first member of any group of equal names
    let first = order
        .windows(2)
        .filter(|w| arena(names, &children[w[0] as usize]) == arena(names, &children[w[1] as usize]))
        .map(|w| w[0])
        .min()?;
    Some(arena(names, &children[first as usize]))
}

fn pass2(lex: &mut Lexer, defs: Defs, dupok: bool) -> Result<Pmns, PmError> {
    lex.lineno = -1;
    let Defs { names, blocks } = defs;
    // the "seen" list: definitions by path, most recent last
    let mut seen: HashMap<&[u8], Vec<usize>> = HashMap::new();
    for (i, d) in blocks.iter().enumerate() {
        seen.entry(d.name.as_slice()).or_default().push(i);
    }
    let mut take = |name: &[u8]| -> Option<usize> {
        let v = seen.get_mut(name)?;
        let i = v.pop();
        if v.is_empty() {
            seen.remove(name);
        }
        i
    };
    let Some(root) = take(b"root") else {
        lex.err(b"No name space entry for \"root\"");
        return Err(PmError::PM_ERR_PMNS);
    };
    if take(b"root").is_some() {
        lex.err(b"Multiple name space entries for \"root\"");
        return Err(PmError::PM_ERR_PMNS);
    }
    let mut used = vec![false; blocks.len()];
    used[root] = true;
    let mut build = Builder::new(names);
    // depth first: a child's subtree is attached before its next sibling
    struct Level {
        block: usize,
        first: NodeId,
        next: usize,
        path: Vec<u8>,
    }
    let first = build.set_children(0, &blocks[root].children);
    let mut stack = vec![Level { block: root, first, next: 0, path: Vec::new() }];
    while let Some(top) = stack.last_mut() {
        let Some(&(_, _, pmid)) = blocks[top.block].children.get(top.next) else {
            stack.pop();
            continue;
        };
        let node = top.first + top.next as NodeId;
        top.next += 1;
        if !pmid.is_null() {
            continue;
        }
        let mut path = top.path.clone();
        if !path.is_empty() {
            path.push(b'.');
        }
        path.extend_from_slice(build.name(node));
        let Some(sub) = take(&path) else {
            let mut msg = b"Cannot find definition for non-terminal node \"".to_vec();
            msg.extend_from_slice(&path);
            msg.extend_from_slice(b"\" in name space");
            lex.set_linebuf(&msg);
            let shown = lex.cstr().to_vec();
            lex.err(&shown);
            return Err(PmError::PM_ERR_PMNS);
        };
        used[sub] = true;
        let first = build.set_children(node, &blocks[sub].children);
        stack.push(Level { block: sub, first, next: 0, path });
    }
    // anything defined but never attached, most recent first
    let mut disconnected = false;
    for (i, d) in blocks.iter().enumerate().rev() {
        if !used[i] && d.name != b"root" {
            let mut msg = b"Disconnected subtree (\"".to_vec();
            msg.extend_from_slice(&d.name);
            msg.extend_from_slice(b"\") in name space");
            lex.set_linebuf(&msg);
            let shown = lex.cstr().to_vec();
            lex.err(&shown);
            disconnected = true;
        }
    }
    if disconnected {
        return Err(PmError::PM_ERR_PMNS);
    }
    if !dupok {
        // the first leaf, depth first, whose PMID an earlier leaf has
        let tree = build.tree();
        let mut first: HashMap<PmId, NodeId> = HashMap::new();
        let mut dup = None;
        tree.walk(tree.root(), |n| {
            let pmid = tree.pmid_of(n);
            if dup.is_some() || pmid.is_null() || n == tree.root() {
                return;
            }
            match first.get(&pmid) {
                Some(&x) if !pmid.is_dynamic_root() => dup = Some((n, x)),
                Some(_) => {}
                None => {
                    first.insert(pmid, n);
                }
            }
        });
        if let Some((n, x)) = dup {
            let msg = format!(
                "Duplicate metric id ({}) in name space for metrics \"{}\" and \"{}\"\n",
                tree.pmid_of(n),
                tree.full_name(n),
                tree.full_name(x)
            );
            lex.set_linebuf(msg.as_bytes());
            let shown = lex.cstr().to_vec();
            lex.err(&shown);
            return Err(PmError::PM_ERR_PMNS);
        }
    }
    Ok(build.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_str(text: &str, dupok: bool) -> Loaded {
        load_text(b"t.pmns", text.as_bytes(), dupok)
    }

    #[test]
    fn loads_the_spec_example() {
        let l = load_str(
            "root {\n    dynamic 387:*:*\n    network\n    cpu\n}\nnetwork {\n    intrate 1:26:1\n    packetrate\n}\n\
             network.packetrate {\n    in 1:26:35\n    out 1:26:36\n}\ncpu {\n    syscallrate 1:10:10\n}\n",
            true,
        );
        let t = l.pmns.expect("loads");
        assert_eq!(
            t.traverse("").unwrap(),
            ["dynamic", "network.intrate", "network.packetrate.in", "network.packetrate.out", "cpu.syscallrate"]
        );
        assert_eq!(t.lookup("dynamic").unwrap().to_string(), "387.*.*");
        assert!(l.diagnostics.is_empty());
    }

    #[test]
    fn errors_carry_location_and_caret() {
        // Without pmcpp there are no line markers, and libpcp counts from
        // 2 (it presets line 1 and counts the first line again): "4" here.
        let l = load_str("root {\n    a 1:2:3\n    b 511:0:0\n}\n", true);
        let e = l.pmns.unwrap_err();
        assert_eq!(e, PmError::PM_ERR_PMNS);
        assert_eq!(e.path(), Some(std::path::Path::new("t.pmns")));
        assert_eq!(
            String::from_utf8_lossy(&l.diagnostics),
            "[t.pmns:4] Error Parsing ASCII PMNS: Illegal domain field in PMID\n    b 511:0:0\n      ^\n\
             [t.pmns:4] Error Parsing ASCII PMNS: Expected NAME, PMID or }\n      ^\n      ^\n"
        );
        let l = load_str("root {\n    a\n}\n", true);
        assert_eq!(
            String::from_utf8_lossy(&l.diagnostics),
            "Error Parsing ASCII PMNS: Cannot find definition for non-terminal node \"a\" in name space\n"
        );
    }

    #[test]
    fn duplicate_pmids_only_without_dupok() {
        let text = "root {\n    a 1:0:1\n    b 1:0:1\n}\n";
        assert!(load_str(text, true).pmns.is_ok());
        let l = load_str(text, false);
        assert!(l.pmns.is_err());
        assert_eq!(
            String::from_utf8_lossy(&l.diagnostics),
            "Error Parsing ASCII PMNS: Duplicate metric id (1.0.1) in name space for metrics \"b\" and \"a\"\n\n"
        );
    }

    proptest::proptest! {
        #[test]
        fn never_panics(text in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300)) {
            let _ = load_text(b"f", &text, false);
        }

        #[test]
        fn never_panics_on_pmns_like_text(text in "(root|[a-c]|[a-c]\\.[a-c]|\\{|\\}|[0-9]{1,4}:[0-9*]{1,4}:[0-9*]{1,4}|[ \t\n:]){0,60}") {
            let _ = load_text(b"f", text.as_bytes(), true);
        }
    }
}
