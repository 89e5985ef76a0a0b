//! Which patterns `matchinst()` accepts: the syntax of POSIX extended
//! regular expressions as the GNU C library's `regcomp` checks it
//! (`REG_EXTENDED`, C locale), and the `regerror` text of the first
//! problem, which libpcp quotes in its diagnostic.
//!
//! The same walk over a pattern writes it in the syntax of the `regex`
//! crate ([`translate`]), which the evaluator compiles; nothing is
//! compiled here.

/// `regerror` texts.
const BADPAT: &str = "Invalid regular expression";
const ECOLLATE: &str = "Invalid collation character";
const ECTYPE: &str = "Invalid character class name";
const EESCAPE: &str = "Trailing backslash";
const ESUBREG: &str = "Invalid back reference";
const EBRACK: &str = "Unmatched [, [^, [:, [., or [=";
const EPAREN: &str = "Unmatched ( or \\(";
const EBRACE: &str = "Unmatched \\{";
const BADBR: &str = "Invalid content of \\{\\}";
const ERANGE: &str = "Invalid range end";
const BADRPT: &str = "Invalid preceding regular expression";
const ESIZE: &str = "Regular expression too big";

/// The largest repetition count (`RE_DUP_MAX`).
const DUP_MAX: i64 = 0x7fff;

/// Character class names.
const CLASSES: &[&[u8]] = &[
    b"alpha", b"upper", b"lower", b"digit", b"xdigit", b"space", b"print", b"punct", b"graph", b"cntrl", b"blank",
    b"alnum",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Char,
    Alt,
    Star,
    Plus,
    Question,
    OpenBrace,
    CloseBrace,
    Open,
    Close,
    Bracket,
    Period,
    Anchor,
    /// `\w \W \s \S`
    Class,
    BackRef(u8),
    /// `\` at the very end.
    Backslash,
    End,
}

#[derive(Clone, Copy)]
struct Token {
    kind: Kind,
    /// The character a `,` check looks at.
    c: u8,
}

struct Re<'a> {
    s: &'a [u8],
    pos: usize,
    tok: Token,
    /// Groups closed so far (bit per group 1..=9).
    completed: u32,
    groups: u32,
    /// The pattern so far in the `regex` crate's syntax.
    out: String,
    /// Has the pattern something the `regex` crate cannot express (back
    /// references, collating elements, equivalence classes)?
    inexpressible: bool,
}

type R<T> = Result<T, &'static str>;

/// Checks a pattern; `Err` holds `regerror`'s text for the first problem.
#[doc(alias = "regcomp")]
pub fn check(pattern: &[u8]) -> Result<(), &'static str> {
    parse(pattern).map(|_| ())
}

/// A pattern [`check`] accepts, in the syntax of the `regex` crate (bytes,
/// not Unicode; `.` matches a newline too, as glibc's does); `Ok(None)` for
/// what that cannot express (back references, collating elements and
/// equivalence classes). Like `regcomp`, it reads up to the first NUL.
pub fn translate(pattern: &[u8]) -> Result<Option<String>, &'static str> {
    parse(pattern).map(|re| (!re.inexpressible).then_some(re.out))
}

fn parse(pattern: &[u8]) -> R<Re<'_>> {
    let end = pattern.iter().position(|&b| b == 0).unwrap_or(pattern.len());
    let mut re = Re {
        s: &pattern[..end],
        pos: 0,
        tok: Token { kind: Kind::End, c: 0 },
        completed: 0,
        groups: 0,
        out: String::from("(?s-u)"),
        inexpressible: false,
    };
    re.fetch();
    re.alternation(0)?;
    Ok(re)
}

/// `b` as a literal in the `regex` crate's syntax. Only that crate's meta
/// characters are escaped: it reads some escaped punctuation, such as
/// `\<`, as something else.
fn literal(out: &mut String, b: u8) {
    if b.is_ascii_graphic() && !br"\.+*?()|[]{}^$#&-~".contains(&b) || b == b' ' {
        out.push(b as char);
    } else if b.is_ascii_graphic() {
        out.push('\\');
        out.push(b as char);
    } else {
        out.push_str(&format!("\\x{b:02x}"));
    }
}

impl Re<'_> {
    fn peek(&self) -> (Token, usize) {
        let Some(&c) = self.s.get(self.pos) else {
            return (Token { kind: Kind::End, c: 0 }, 0);
        };
        if c == b'\\' {
            let Some(&c2) = self.s.get(self.pos + 1) else {
                return (Token { kind: Kind::Backslash, c }, 1);
            };
            let kind = match c2 {
                b'1'..=b'9' => Kind::BackRef(c2 - b'1'),
                b'<' | b'>' | b'b' | b'B' | b'`' | b'\'' => Kind::Anchor,
                b'w' | b'W' | b's' | b'S' => Kind::Class,
                _ => Kind::Char,
            };
            return (Token { kind, c: c2 }, 2);
        }
        let kind = match c {
            b'|' => Kind::Alt,
            b'*' => Kind::Star,
            b'+' => Kind::Plus,
            b'?' => Kind::Question,
            b'{' => Kind::OpenBrace,
            b'}' => Kind::CloseBrace,
            b'(' => Kind::Open,
            b')' => Kind::Close,
            b'[' => Kind::Bracket,
            b'.' => Kind::Period,
            b'^' | b'$' => Kind::Anchor,
            _ => Kind::Char,
        };
        (Token { kind, c }, 1)
    }

    fn fetch(&mut self) {
        let (t, len) = self.peek();
        self.tok = t;
        self.pos += len;
    }

    /// branch ( `|` branch )*
    fn alternation(&mut self, nest: u32) -> R<()> {
        // a back reference may only name a group of its own alternative
        let initial = self.completed;
        self.branch(nest)?;
        while self.tok.kind == Kind::Alt {
            self.out.push('|');
            self.fetch();
            let k = self.tok.kind;
            if k != Kind::Alt && k != Kind::End && (nest == 0 || k != Kind::Close) {
                let accumulated = self.completed;
                self.completed = initial;
                self.branch(nest)?;
                self.completed |= accumulated;
            }
        }
        Ok(())
    }

    fn branch(&mut self, nest: u32) -> R<()> {
        self.expression(nest)?;
        loop {
            let k = self.tok.kind;
            if k == Kind::Alt || k == Kind::End || (nest > 0 && k == Kind::Close) {
                return Ok(());
            }
            self.expression(nest)?;
        }
    }

    /// One element and its repetitions. `Ok(false)` for "nothing there".
    fn expression(&mut self, nest: u32) -> R<bool> {
        let mut elem = true;
        let start = self.out.len();
        let Token { kind, c } = self.tok;
        match kind {
            Kind::Char => literal(&mut self.out, c),
            Kind::Period => self.out.push('.'),
            Kind::Class => {
                self.out.push('\\');
                self.out.push(c as char);
            }
            // an unmatched `)` is an ordinary character, as `}` is
            Kind::Close | Kind::CloseBrace => literal(&mut self.out, c),
            Kind::Open => elem = self.group(nest + 1)?,
            Kind::Bracket => self.bracket()?,
            Kind::BackRef(i) => {
                if self.completed & (1 << i) == 0 {
                    return Err(ESUBREG);
                }
                self.inexpressible = true;
            }
            Kind::Star | Kind::Plus | Kind::Question | Kind::OpenBrace => return Err(BADRPT),
            Kind::Anchor => {
                self.out.push_str(match c {
                    b'^' => "^",
                    b'$' => "$",
                    b'b' => r"\b",
                    b'B' => r"\B",
                    b'<' => r"\b{start}",
                    b'>' => r"\b{end}",
                    b'`' => r"\A",
                    _ => r"\z", // \'
                });
                // nothing may repeat an anchor: what follows starts afresh
                self.fetch();
                return Ok(true);
            }
            Kind::Alt | Kind::End => return Ok(false),
            Kind::Backslash => return Err(EESCAPE),
        }
        self.fetch();
        let mut repeated = false;
        while matches!(self.tok.kind, Kind::Star | Kind::Plus | Kind::Question | Kind::OpenBrace) {
            // POSIX applies a second repetition to the first: a+? is (a+)?
            if repeated {
                self.out.insert_str(start, "(?:");
                self.out.push(')');
            }
            self.repetition()?;
            repeated = true;
        }
        Ok(elem)
    }

    /// `(` ... `)`; `Ok(false)` for an empty group.
    fn group(&mut self, nest: u32) -> R<bool> {
        let index = self.groups;
        self.groups += 1;
        self.out.push('(');
        self.fetch();
        let mut nonempty = false;
        if self.tok.kind != Kind::Close {
            self.alternation(nest)?;
            if self.tok.kind != Kind::Close {
                return Err(EPAREN);
            }
            nonempty = true;
        }
        self.out.push(')');
        if index < 9 {
            self.completed |= 1 << index;
        }
        Ok(nonempty)
    }

    /// The current token is `*`, `+`, `?` or `{`.
    fn repetition(&mut self) -> R<()> {
        if self.tok.kind != Kind::OpenBrace {
            self.out.push(self.tok.c as char);
        } else {
            let mut start = self.number();
            let mut end = 0;
            if start == -1 {
                if self.tok.c == b',' {
                    start = 0; // {,m} is {0,m}
                } else {
                    return Err(BADBR); // {}
                }
            }
            if start != -2 {
                end = if self.tok.kind == Kind::CloseBrace {
                    start
                } else if self.tok.c == b',' {
                    self.number()
                } else {
                    -2
                };
            }
            if start == -2 || end == -2 {
                return Err(if self.tok.kind == Kind::End { EBRACE } else { BADBR });
            }
            if (end != -1 && start > end) || self.tok.kind != Kind::CloseBrace {
                return Err(BADBR);
            }
            if DUP_MAX < if end == -1 { start } else { end } {
                return Err(ESIZE);
            }
            self.out.push_str(&match end {
                -1 => format!("{{{start},}}"),
                _ if end == start => format!("{{{start}}}"),
                _ => format!("{{{start},{end}}}"),
            });
        }
        self.fetch();
        Ok(())
    }

    /// Digits up to `,` or `}`: -1 for none, -2 for anything else.
    fn number(&mut self) -> i64 {
        let mut num: i64 = -1;
        loop {
            self.fetch();
            let Token { kind, c } = self.tok;
            if kind == Kind::End {
                return -2;
            }
            if kind == Kind::CloseBrace || c == b',' {
                return num;
            }
            num = if kind != Kind::Char || !c.is_ascii_digit() || num == -2 {
                -2
            } else if num == -1 {
                i64::from(c - b'0')
            } else {
                (DUP_MAX + 1).min(num * 10 + i64::from(c - b'0'))
            };
        }
    }

    /// A bracket expression; `self.pos` is just after the `[`.
    fn bracket(&mut self) -> R<()> {
        let s = self.s;
        let mut pos = self.pos;
        let mut t = bpeek(s, pos);
        if t.0 == B::End {
            return Err(BADPAT);
        }
        self.out.push('[');
        if t.0 == B::Caret {
            self.out.push('^');
            pos += t.2;
            t = bpeek(s, pos);
            if t.0 == B::End {
                return Err(BADPAT);
            }
        }
        if t.0 == B::Close {
            t.0 = B::Char; // a leading ] is ordinary
        }
        let mut first = true;
        loop {
            let (start, after) = belement(s, pos, t, first)?;
            pos = after;
            first = false;
            t = bpeek(s, pos);
            let mut range = None;
            if !matches!(start, Elem::CharClass(_) | Elem::Equiv(_)) {
                if t.0 == B::End {
                    return Err(EBRACK);
                }
                if t.0 == B::Range {
                    let t2 = bpeek(s, pos + t.2);
                    if t2.0 == B::End {
                        return Err(EBRACK);
                    }
                    if t2.0 == B::Close {
                        t.0 = B::Char; // a trailing - is ordinary
                    } else {
                        pos += t.2;
                        range = Some(t2);
                    }
                }
            }
            match range {
                Some(t2) => {
                    let (end, after) = belement(s, pos, t2, true)?;
                    pos = after;
                    t = bpeek(s, pos);
                    if matches!(start, Elem::CharClass(_) | Elem::Equiv(_))
                        || matches!(end, Elem::CharClass(_) | Elem::Equiv(_))
                    {
                        return Err(ERANGE);
                    }
                    let (Some(lo), Some(hi)) = (start.collation(), end.collation()) else {
                        return Err(ECOLLATE);
                    };
                    if lo > hi {
                        return Err(ERANGE);
                    }
                    match (start, end) {
                        // (every end escaped, so that the regex crate
                        // sees no set operation such as `--`)
                        (Elem::Char(lo), Elem::Char(hi)) => {
                            literal(&mut self.out, lo);
                            self.out.push('-');
                            literal(&mut self.out, hi);
                        }
                        _ => self.inexpressible = true,
                    }
                }
                None => match &start {
                    Elem::Char(c) => literal(&mut self.out, *c),
                    Elem::Coll(name) | Elem::Equiv(name) => {
                        if name.len() != 1 {
                            return Err(ECOLLATE);
                        }
                        self.inexpressible = true;
                    }
                    Elem::CharClass(name) => {
                        if !CLASSES.contains(&name.as_slice()) {
                            return Err(ECTYPE);
                        }
                        // (a class name is one of CLASSES: ASCII)
                        self.out.push_str("[:");
                        self.out.extend(name.iter().map(|&b| b as char));
                        self.out.push_str(":]");
                    }
                },
            }
            if t.0 == B::End {
                return Err(EBRACK);
            }
            if t.0 == B::Close {
                self.out.push(']');
                self.pos = pos + t.2;
                return Ok(());
            }
        }
    }
}

/// Tokens inside a bracket expression.
#[derive(Clone, Copy, PartialEq, Eq)]
enum B {
    Char,
    Range,
    Close,
    Caret,
    Coll,
    Equiv,
    CharClass,
    End,
}

/// The bracket token at `pos`: kind, character, length.
fn bpeek(s: &[u8], pos: usize) -> (B, u8, usize) {
    let Some(&c) = s.get(pos) else { return (B::End, 0, 0) };
    if c == b'[' {
        match s.get(pos + 1) {
            Some(b'.') => return (B::Coll, b'.', 2),
            Some(b'=') => return (B::Equiv, b'=', 2),
            Some(b':') => return (B::CharClass, b':', 2),
            _ => return (B::Char, c, 1),
        }
    }
    match c {
        b'-' => (B::Range, c, 1),
        b']' => (B::Close, c, 1),
        b'^' => (B::Caret, c, 1),
        _ => (B::Char, c, 1),
    }
}

/// An element of a bracket expression.
enum Elem {
    Char(u8),
    /// `[.name.]`
    Coll(Vec<u8>),
    /// `[=name=]`
    Equiv(Vec<u8>),
    /// `[:name:]`
    CharClass(Vec<u8>),
}

impl Elem {
    /// Its place in the C locale's collation order, if it has one.
    fn collation(&self) -> Option<u8> {
        match self {
            Elem::Char(c) => Some(*c),
            Elem::Coll(name) if name.len() == 1 => Some(name[0]),
            _ => None,
        }
    }
}

/// Reads one element at `pos` (token `t`); returns it and the position
/// after it. A `-` is an element only first, last, or as a range's end.
fn belement(s: &[u8], pos: usize, t: (B, u8, usize), accept_hyphen: bool) -> R<(Elem, usize)> {
    let (kind, c, len) = t;
    let mut pos = pos + len;
    if matches!(kind, B::Coll | B::Equiv | B::CharClass) {
        if pos >= s.len() {
            return Err(EBRACK);
        }
        let mut name: Vec<u8> = Vec::new();
        loop {
            if name.len() >= 32 {
                return Err(EBRACK);
            }
            let ch = s[pos];
            pos += 1;
            if pos >= s.len() {
                return Err(EBRACK);
            }
            if ch == c && s[pos] == b']' {
                break;
            }
            name.push(ch);
        }
        pos += 1;
        return Ok((
            match kind {
                B::Coll => Elem::Coll(name),
                B::Equiv => Elem::Equiv(name),
                _ => Elem::CharClass(name),
            },
            pos,
        ));
    }
    if kind == B::Range && !accept_hyphen && bpeek(s, pos).0 != B::Close {
        return Err(ERANGE);
    }
    Ok((Elem::Char(c), pos))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_formed() {
        for p in ["", "a", "^(lo)|(vbir)", "a**", "a{2}{3}", "a{,}", "[]a]", "[^]a-]", "(a)\\1", "x|", "|", "()", "a)"]
        {
            assert_eq!(check(p.as_bytes()), Ok(()), "{p}");
        }
    }

    #[test]
    fn errors() {
        for (p, e) in [
            ("*a", BADRPT),
            ("(", EPAREN),
            ("a{", EBRACE),
            ("a{x}", BADBR),
            ("a{2,1}", BADBR),
            ("[", BADPAT),
            ("[a", EBRACK),
            ("[z-a]", ERANGE),
            ("[[:foo:]]", ECTYPE),
            ("\\", EESCAPE),
            ("\\1", ESUBREG),
            ("a{32768}", ESIZE),
        ] {
            assert_eq!(check(p.as_bytes()), Err(e), "{p}");
        }
    }

    #[test]
    fn translations() {
        for (p, want) in [
            ("a+?", Some(r"(?s-u)(?:a+)?")),
            ("a{,3}b{2}{1,}", Some(r"(?s-u)a{0,3}(?:b{2}){1,}")),
            (r"\<x\'|[]a-]", Some(r"(?s-u)\b{start}x\z|[\]a\-]")),
            ("[^[:digit:]-z]", None), // ERANGE, not translated
            ("(a)\\1", None),
            ("[[=a=]]", None),
            ("a b#", Some(r"(?s-u)a b\#")),
        ] {
            let got = translate(p.as_bytes());
            match want {
                Some(w) => assert_eq!(got, Ok(Some(w.to_string())), "{p}"),
                None => assert!(matches!(got, Ok(None) | Err(_)), "{p}: {got:?}"),
            }
        }
    }
}
