//! The hotproc predicate language (pmdaproc(1)'s "hotproc" section): the
//! text a client stores into `hotproc.control.config`, checked as PCP
//! 6.0.3's PMDA parses it and printed back as it prints its tree (fully
//! parenthesised), which is what `hotproc.control.config` then holds.
//!
//! ```text
//! [Version 1.0] predicate
//! predicate := predicate && predicate | predicate || predicate | ! predicate
//!            | ( predicate ) | true | false
//!            | numvar (< <= > >= == !=) numvar
//!            | strvar (== !=) strvar | strvar (~ !~) /pattern/
//! numvar    := number | uid | gid | cpuburn | syscalls | ctxswitch
//!            | virtualsize | residentsize | iodemand | iowait | schedwait
//! strvar    := "string" | uname | gname | fname | psargs
//! ```
//!
//! `||` binds loosest, then `&&`, then `!`. As in the PMDA's scanner, a
//! word or character it does not know is skipped (the PMDA complains on
//! its standard error and carries on), a `#` comment runs to the end of
//! its line, and a string or pattern also ends at the end of a line.

/// A token of the language.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Version,
    Number(f64),
    Str(Vec<u8>),
    Pattern(Vec<u8>),
    /// A numeric variable, by its name.
    NumVar(&'static str),
    /// A string variable, by its name.
    StrVar(&'static str),
    And,
    Or,
    Not,
    LParen,
    RParen,
    True,
    False,
    /// A comparison operator, as printed.
    Op(&'static str),
}

const NUM_VARS: [&str; 10] = [
    "schedwait",
    "iowait",
    "iodemand",
    "residentsize",
    "virtualsize",
    "ctxswitch",
    "syscalls",
    "gid",
    "uid",
    "cpuburn",
];
const STR_VARS: [&str; 4] = ["uname", "gname", "fname", "psargs"];
/// The operators, longest first (the scanner takes the longest match).
const OPS: [(&str, Option<&str>); 12] = [
    ("&&", None),
    ("||", None),
    ("==", Some("==")),
    ("!=", Some("!=")),
    ("<=", Some("<=")),
    (">=", Some(">=")),
    ("!~", Some("!~")),
    ("!", None),
    ("<", Some("<")),
    (">", Some(">")),
    ("~", Some("~")),
    ("(", None),
];

/// The tokens of `text`, without what the scanner skips.
fn scan(text: &[u8]) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        let rest = &text[i..];
        if matches!(c, b' ' | b'\t' | b'\r' | b'\n') {
            i += 1;
        } else if c == b'#' {
            // (a comment without its newline is an unknown character)
            match memchr::memchr(b'\n', rest) {
                Some(n) => i += n + 1,
                None => i += 1,
            }
        } else if c.is_ascii_alphabetic() {
            let n = rest.iter().take_while(|b| b.is_ascii_alphabetic()).count();
            let word = &rest[..n];
            let tok = match word {
                b"Version" => Some(Tok::Version),
                b"true" => Some(Tok::True),
                b"false" => Some(Tok::False),
                _ => NUM_VARS
                    .iter()
                    .find(|v| v.as_bytes() == word)
                    .map(|v| Tok::NumVar(v))
                    .or_else(|| STR_VARS.iter().find(|v| v.as_bytes() == word).map(|v| Tok::StrVar(v))),
            };
            out.extend(tok);
            i += n;
        } else if c.is_ascii_digit() || (c == b'.' && rest.get(1).is_some_and(u8::is_ascii_digit)) {
            let int = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            let mut n = int;
            if rest.get(n) == Some(&b'.') {
                n += 1 + rest[n + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
            }
            let s = std::str::from_utf8(&rest[..n]).unwrap_or("0");
            out.push(Tok::Number(s.parse().unwrap_or(0.0)));
            i += n;
        } else if c == b'"' || c == b'/' {
            // up to the closing quote (or slash) or the end of the line
            let end = rest[1..].iter().position(|&b| b == c || b == b'\n');
            match end {
                Some(n) => {
                    let body = rest[1..1 + n].to_vec();
                    out.push(if c == b'"' { Tok::Str(body) } else { Tok::Pattern(body) });
                    i += n + 2;
                }
                None => i += 1,
            }
        } else if c == b')' {
            out.push(Tok::RParen);
            i += 1;
        } else if let Some((op, cmp)) = OPS.iter().find(|(op, _)| rest.starts_with(op.as_bytes())) {
            out.push(match (*op, cmp) {
                ("&&", _) => Tok::And,
                ("||", _) => Tok::Or,
                ("!", _) => Tok::Not,
                ("(", _) => Tok::LParen,
                (_, Some(c)) => Tok::Op(c),
                _ => unreachable!("every operator is named"),
            });
            i += op.len();
        } else {
            i += 1;
        }
    }
    out
}

/// A predicate, printed as the PMDA prints its tree.
struct Parser {
    toks: Vec<Tok>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.at).cloned();
        self.at += 1;
        t
    }

    /// `||` over `&&`-terms.
    fn or(&mut self) -> Option<String> {
        self.left_assoc(Tok::Or, "||", Parser::and)
    }

    /// `&&` over `!`-terms.
    fn and(&mut self) -> Option<String> {
        self.left_assoc(Tok::And, "&&", Parser::not)
    }

    /// Operands from `operand` joined by `op`, grouped from the left.
    fn left_assoc(&mut self, op: Tok, shown: &str, operand: fn(&mut Parser) -> Option<String>) -> Option<String> {
        let mut left = operand(self)?;
        while self.peek() == Some(&op) {
            self.at += 1;
            left = format!("({left} {shown} {})", operand(self)?);
        }
        Some(left)
    }

    fn not(&mut self) -> Option<String> {
        match self.next()? {
            Tok::Not => Some(format!("(! {})", self.not()?)),
            Tok::LParen => {
                let p = self.or()?;
                (self.next()? == Tok::RParen).then_some(p)
            }
            Tok::True => Some("(true)".into()),
            Tok::False => Some("(false)".into()),
            t @ (Tok::Number(_) | Tok::NumVar(_)) => {
                let Some(Tok::Op(op @ ("<" | "<=" | ">" | ">=" | "==" | "!="))) = self.next() else { return None };
                let right = self.next()?;
                matches!(right, Tok::Number(_) | Tok::NumVar(_)).then(|| format!("({} {op} {})", var(&t), var(&right)))
            }
            t @ (Tok::Str(_) | Tok::StrVar(_)) => match self.next()? {
                Tok::Op(op @ ("==" | "!=")) => {
                    let right = self.next()?;
                    matches!(right, Tok::Str(_) | Tok::StrVar(_)).then(|| format!("({} {op} {})", var(&t), var(&right)))
                }
                Tok::Op(op @ ("~" | "!~")) => match self.next()? {
                    Tok::Pattern(p) => Some(format!("({} {op} \"{}\")", var(&t), String::from_utf8_lossy(&p))),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        }
    }
}

/// A variable or constant as the PMDA prints it.
fn var(t: &Tok) -> String {
    match t {
        Tok::NumVar(v) | Tok::StrVar(v) => (*v).to_string(),
        Tok::Str(s) => format!("\"{}\"", String::from_utf8_lossy(s)),
        Tok::Number(n) if n.fract() == 0.0 && (f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(n) => {
            format!("{}", *n as i32)
        }
        Tok::Number(n) => format!("{n:.6}"),
        _ => String::new(),
    }
}

/// Parse a stored predicate: `Ok(None)` for an empty one (hotproc off),
/// `Ok(Some(text))` with the PMDA's printing of one it accepts, `Err(())`
/// for one it rejects.
pub(crate) fn parse(text: &[u8]) -> Result<Option<String>, ()> {
    let text = &text[..memchr::memchr(0, text).unwrap_or(text.len())];
    let mut p = Parser { toks: scan(text), at: 0 };
    if p.peek().is_none() {
        return Ok(None);
    }
    if p.peek() == Some(&Tok::Version) {
        p.at += 1;
        // (only version 1.0 is known)
        // (the PMDA compares it as a float)
        match p.next() {
            Some(Tok::Number(v)) if v as f32 == 1.0 => {}
            _ => return Err(()),
        }
    }
    let tree = p.or().ok_or(())?;
    if p.at != p.toks.len() {
        return Err(());
    }
    Ok(Some(tree))
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn predicates_print_as_the_pmda_prints_them() {
        let ok = |t: &str| parse(t.as_bytes()).map(|p| p.unwrap_or_default());
        assert_eq!(ok("cpuburn > 0.5"), Ok("(cpuburn > 0.500000)".into()));
        assert_eq!(
            ok("fname == \"a\" && (uid < 3 || ! gname != \"x\") || psargs ~ /a.*b/"),
            Ok("(((fname == \"a\") && ((uid < 3) || (! (gname != \"x\")))) || (psargs ~ \"a.*b\"))".into())
        );
        assert_eq!(ok("# c\n Version 1.0 true"), Ok("(true)".into()));
        assert_eq!(ok("! true && false"), Ok("((! (true)) && (false))".into()));
        // unknown words and characters are skipped
        assert_eq!(ok("blah"), Ok("".into()));
        assert_eq!(ok("  \n"), Ok("".into()));
        assert_eq!(ok("uid == 0 @"), Ok("(uid == 0)".into()));
        // syntax errors
        for bad in ["cpuburn > 0.5 && blah", "uid == \"x\"", "fname < 3", "Version 2.0 true", "Version 1.0", "(true"] {
            assert_eq!(parse(bad.as_bytes()), Err(()), "{bad}");
        }
    }
}
