//! The lexer: bytes of an expression in, one token at a time out, each
//! with the offset where it starts (what error carets point at).
//!
//! It reproduces libpcp's scanner byte for byte, including its corners:
//! the text ends at the first NUL, a 0xff byte reads as end of input (the
//! C scanner compares a signed `char` with `EOF`) without ending the text,
//! the end-of-text token "starts" at the last byte of the text (one before
//! the text when it is empty), `/` starts a pattern while a `matchinst(`
//! is open, and `type`, `semantics`, `units` and `meta` are keywords
//! wherever they appear.

use crate::grammar::{Tok, Word};
use std::borrow::Cow;

/// What C's `get()` returns at the end of the text.
const EOF: i32 = -1;

/// One token, its text borrowed from the expression where it can be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token<'a> {
    /// Its kind.
    pub tok: Tok,
    /// Offset of its first byte in the text; for `Eos`, of the last byte
    /// read (-1 for an empty text).
    pub start: isize,
    /// Its text as libpcp's lexer trace shows it: a name, a number, an
    /// operator; for strings, instance names and patterns the contents
    /// without delimiters and with escapes removed.
    pub text: Cow<'a, [u8]>,
    /// For `LexError`, why.
    pub error: Option<&'static str>,
}

/// C's `isspace` in the C locale.
pub(crate) fn is_space(c: i32) -> bool {
    matches!(c, 0x20 | 0x09..=0x0d)
}

fn is_digit(c: i32) -> bool {
    (b'0' as i32..=b'9' as i32).contains(&c)
}

fn is_alpha(c: i32) -> bool {
    (b'a' as i32..=b'z' as i32).contains(&c) || (b'A' as i32..=b'Z' as i32).contains(&c)
}

/// The function or keyword token `word` is, if any.
fn word_token(word: &[u8], function: bool) -> Option<Tok> {
    // (no function or keyword has a digit, `_` or `.`: metric names are
    // told apart at once)
    if word.iter().any(|&b| !b.is_ascii_alphabetic()) {
        return None;
    }
    WORDS.iter().find(|w| (function || !w.2) && w.0 == word).map(|w| w.1)
}

/// How many terminals have a word.
const NWORDS: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < Tok::ALL.len() {
        if Tok::ALL[i].word().is_some() {
            n += 1;
        }
        i += 1;
    }
    n
};

/// [`Tok::word`] the other way round: each word's bytes, its token, and
/// whether it is a function's.
static WORDS: [(&[u8], Tok, bool); NWORDS] = {
    let mut table: [(&[u8], Tok, bool); NWORDS] = [(b"", Tok::End, false); NWORDS];
    let (mut i, mut n) = (0, 0);
    while i < Tok::ALL.len() {
        let tok = Tok::ALL[i];
        match tok.word() {
            Some(Word::Function(w)) => {
                table[n] = (w.as_bytes(), tok, true);
                n += 1;
            }
            Some(Word::Keyword(w)) => {
                table[n] = (w.as_bytes(), tok, false);
                n += 1;
            }
            None => {}
        }
        i += 1;
    }
    table
};

/// The kinds of the tokens in an expression, read quickly where the text
/// is plain (for [`crate::parse::recognises`]): what [`Lexer`] reads from
/// ASCII text, each kind with where its text is (for strings, instance
/// names and patterns, between the delimiters, escapes still in).
/// `None` where the lexer must read: at a byte that is not ASCII, an
/// integer too large for 32 bits, a lone `&` or `|`, a character the
/// lexer refuses, or a string, name or pattern left open.
pub(crate) struct Kinds<'a> {
    text: &'a [u8],
    pos: usize,
}

impl<'a> Kinds<'a> {
    /// The kinds in `text` (which ends at its first NUL, if any).
    pub(crate) fn new(text: &'a [u8]) -> Kinds<'a> {
        let end = memchr::memchr(0, text).unwrap_or(text.len());
        Kinds { text: &text[..end], pos: 0 }
    }

    /// The text read (up to the first NUL).
    pub(crate) fn text(&self) -> &'a [u8] {
        self.text
    }

    /// The next token's kind and where its text is (`Eos` at the end,
    /// again and again); `in_matchinst` as for [`Lexer::next_token`].
    pub(crate) fn next_kind(&mut self, in_matchinst: bool) -> Option<(Tok, (usize, usize))> {
        let t = self.text;
        let mut i = self.pos;
        while t.get(i).is_some_and(|&b| is_space(i32::from(b))) {
            i += 1;
        }
        let Some(&c) = t.get(i) else {
            self.pos = i;
            return Some((Tok::Eos, (i, i)));
        };
        let from = i;
        i += 1;
        let digits = |mut i: usize| {
            while t.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            i
        };
        // the end of text closed by `close`: after it, and the text before it
        let closed = |mut i: usize, close: u8, escapes: bool| -> Option<(usize, usize)> {
            loop {
                match *t.get(i)? {
                    b if b == close => return Some((i + 1, i)),
                    b'\\' if escapes => {
                        t.get(i + 1).filter(|b| b.is_ascii())?;
                        i += 2;
                    }
                    b if b.is_ascii() => i += 1,
                    _ => return None,
                }
            }
        };
        let tok = match c {
            b'+' => Tok::Plus,
            b'-' => Tok::Minus,
            b'*' => Tok::Star,
            b'/' if !in_matchinst => Tok::Slash,
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b'?' => Tok::Quest,
            b':' => Tok::Colon,
            b',' => Tok::Comma,
            b'0'..=b'9' => {
                let mut v = u64::from(c - b'0');
                while let Some(&d @ b'0'..=b'9') = t.get(i) {
                    v = v * 10 + u64::from(d - b'0');
                    if v > u64::from(u32::MAX) {
                        return None;
                    }
                    i += 1;
                }
                if t.get(i) == Some(&b'.') {
                    i = digits(i + 1);
                    Tok::Double
                } else {
                    Tok::Integer
                }
            }
            b'.' => {
                i = digits(i);
                Tok::Double
            }
            b'a'..=b'z' | b'A'..=b'Z' => {
                while t.get(i).is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.') {
                    i += 1;
                }
                word_token(&t[from..i], t.get(i) == Some(&b'(')).unwrap_or(Tok::Name)
            }
            b'<' | b'>' | b'=' | b'!' => {
                let with_eq = t.get(i) == Some(&b'=');
                i += usize::from(with_eq);
                match (c, with_eq) {
                    (b'<', true) => Tok::Leq,
                    (b'<', false) => Tok::Lt,
                    (b'>', true) => Tok::Geq,
                    (b'>', false) => Tok::Gt,
                    (b'=', true) => Tok::Eq,
                    (b'=', false) => Tok::Assign,
                    (_, true) => Tok::Neq,
                    (_, false) => Tok::Not,
                }
            }
            b'&' | b'|' if t.get(i) == Some(&c) => {
                i += 1;
                if c == b'&' {
                    Tok::And
                } else {
                    Tok::Or
                }
            }
            b'"' | b'[' | b'/' => {
                let (close, escapes, tok) = match c {
                    b'"' => (b'"', false, Tok::String),
                    b'[' => (b']', true, Tok::InstName),
                    _ => (b'/', true, Tok::Pattern),
                };
                let (after, end) = closed(i, close, escapes)?;
                self.pos = after;
                return Some((tok, (from + 1, end)));
            }
            _ => return None,
        };
        self.pos = i;
        Some((tok, (from, i)))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Partial {
    Integer,
    Double,
    Name,
    String,
    InstName,
    Pattern,
    Lt,
    Gt,
    Eq,
    Bang,
    Amp,
    Bar,
}

/// The scanner over one expression's text.
///
/// ```
/// use pcp_derived::lex::Lexer;
/// use pcp_derived::Tok;
///
/// let mut lexer = Lexer::new(b"delta(x.y) > 0.5 ? x.y[cpu0] : max");
/// let mut tokens = Vec::new();
/// loop {
///     let t = lexer.next_token(false);
///     tokens.push((t.tok, t.start, String::from_utf8_lossy(&t.text).into_owned()));
///     if t.tok == Tok::Eos {
///         break;
///     }
/// }
/// let kinds: Vec<Tok> = tokens.iter().map(|t| t.0).collect();
/// assert_eq!(
///     kinds,
///     [
///         Tok::Delta, Tok::LParen, Tok::Name, Tok::RParen, Tok::Gt, Tok::Double, Tok::Quest,
///         Tok::Name, Tok::InstName, Tok::Colon, Tok::Name, Tok::Eos,
///     ]
/// );
/// // the instance name without its brackets; "max" without "(" is a name
/// assert_eq!(tokens[8], (Tok::InstName, 22, "cpu0".to_string()));
/// assert_eq!(tokens[10], (Tok::Name, 31, "max".to_string()));
/// ```
pub struct Lexer<'a> {
    text: &'a [u8],
    pos: usize,
    /// A character pushed back (0: none), as C's `lexpeek`.
    peek: i32,
    /// Whether a name's bytes are taken at once (as they always are but
    /// in a test of that shortcut).
    hurried: bool,
}

impl<'a> Lexer<'a> {
    /// A scanner over `text` (which ends at its first NUL, if any).
    pub fn new(text: &'a [u8]) -> Lexer<'a> {
        let end = memchr::memchr(0, text).unwrap_or(text.len());
        Lexer { text: &text[..end], pos: 0, peek: 0, hurried: true }
    }

    fn get(&mut self) -> i32 {
        if self.peek != 0 {
            let c = self.peek;
            self.peek = 0;
            return c;
        }
        match self.text.get(self.pos) {
            None => EOF,
            Some(&b) => {
                self.pos += 1;
                b as i8 as i32
            }
        }
    }

    /// The next token. `in_matchinst` says whether a `matchinst(` is
    /// open, so that `/` starts a pattern.
    pub fn next_token(&mut self, in_matchinst: bool) -> Token<'a> {
        let text = self.text;
        // The token's bytes so far (what libpcp's scanner has in its
        // buffer) are `len` bytes of the text from `from`: the bytes read
        // since the token started follow one another there, until a
        // backslash in an instance name or a pattern is dropped; from then
        // on they are kept in `own`.
        let mut from = 0;
        let mut len = 0;
        let mut own: Option<Vec<u8>> = None;
        let mut partial: Option<Partial> = None;
        let mut start: isize = -1;
        let mut first = true;
        let mut escape = false;
        let done = |tok: Tok, start: isize, text: Cow<'a, [u8]>| Token { tok, start, text, error: None };
        let fail = |why: &'static str, start: isize, text: Cow<'a, [u8]>| Token {
            tok: Tok::LexError,
            start,
            text,
            error: Some(why),
        };
        // the bytes so far, without the first `skip`
        let bytes = |from: usize, len: usize, own: Option<Vec<u8>>, skip: usize| -> Cow<'a, [u8]> {
            match own {
                Some(mut o) => {
                    o.drain(..skip.min(o.len()));
                    Cow::Owned(o)
                }
                None => Cow::Borrowed(text.get(from + skip..from + len).unwrap_or_default()),
            }
        };
        loop {
            let mut c = self.get();
            if first {
                if is_space(c) {
                    continue;
                }
                start = self.pos as isize - 1;
                from = self.pos.saturating_sub(1);
                first = false;
            }
            if c == EOF {
                if partial.is_none() {
                    return done(Tok::Eos, start, Cow::Borrowed(&[]));
                }
                c = 0; // ends the token in hand
            }
            // take c; `pop` gives it back
            len += 1;
            if let Some(o) = &mut own {
                o.push(c as u8);
            }
            let pop = |len: &mut usize, own: &mut Option<Vec<u8>>| {
                *len -= 1;
                if let Some(o) = own {
                    o.pop();
                }
            };
            let Some(kind) = partial else {
                let single = match c as u8 {
                    b'+' => Some(Tok::Plus),
                    b'-' => Some(Tok::Minus),
                    b'*' => Some(Tok::Star),
                    b'/' if !in_matchinst => Some(Tok::Slash),
                    b'(' => Some(Tok::LParen),
                    b')' => Some(Tok::RParen),
                    b'?' => Some(Tok::Quest),
                    b':' => Some(Tok::Colon),
                    b',' => Some(Tok::Comma),
                    _ => None,
                };
                if let Some(tok) = single {
                    return done(tok, start, bytes(from, len, own, 0));
                }
                partial = Some(match c {
                    _ if is_digit(c) => Partial::Integer,
                    _ if is_alpha(c) => Partial::Name,
                    0x2e => Partial::Double,   // .
                    0x2f => Partial::Pattern,  // / in matchinst(
                    0x3c => Partial::Lt,       // <
                    0x3d => Partial::Eq,       // =
                    0x3e => Partial::Gt,       // >
                    0x21 => Partial::Bang,     // !
                    0x26 => Partial::Amp,      // &
                    0x7c => Partial::Bar,      // |
                    0x22 => Partial::String,   // "
                    0x5b => Partial::InstName, // [
                    _ => return fail("Illegal character", start, bytes(from, len, own, 0)),
                });
                continue;
            };
            match kind {
                Partial::Integer => {
                    if c == b'.' as i32 {
                        partial = Some(Partial::Double);
                    } else if !is_digit(c) {
                        self.peek = c;
                        pop(&mut len, &mut own);
                        let digits = bytes(from, len, own, 0);
                        // at most 32 bits (an overflowing strtoull is too large as well)
                        let fits = digits.iter().try_fold(0u64, |v, &d| {
                            let v = v * 10 + u64::from(d - b'0');
                            (v <= u64::from(u32::MAX)).then_some(v)
                        });
                        if fits.is_none() {
                            return fail("Constant value too large", start, digits);
                        }
                        return done(Tok::Integer, start, digits);
                    }
                }
                Partial::Double => {
                    if !is_digit(c) {
                        self.peek = c;
                        pop(&mut len, &mut own);
                        return done(Tok::Double, start, bytes(from, len, own, 0));
                    }
                }
                Partial::Name => {
                    if is_alpha(c) || is_digit(c) || c == b'_' as i32 || c == b'.' as i32 {
                        // (the rest of the name at once, when its bytes
                        // follow one another in the text)
                        if own.is_none() && self.peek == 0 && self.hurried {
                            let rest = text.get(self.pos..).unwrap_or_default();
                            let more = rest
                                .iter()
                                .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'.'))
                                .unwrap_or(rest.len());
                            self.pos += more;
                            len += more;
                        }
                        continue;
                    }
                    self.peek = c;
                    pop(&mut len, &mut own);
                    let word = bytes(from, len, own, 0);
                    // a function needs its ( at once; keywords are keywords anywhere
                    if let Some(tok) = word_token(&word, c == b'(' as i32) {
                        return done(tok, start, word);
                    }
                    return done(Tok::Name, start, word);
                }
                Partial::String => {
                    if c != b'"' as i32 {
                        if c == 0 {
                            pop(&mut len, &mut own);
                            return fail("unterminated STRING", start, bytes(from, len, own, 1));
                        }
                        continue;
                    }
                    pop(&mut len, &mut own);
                    return done(Tok::String, start, bytes(from, len, own, 1));
                }
                Partial::InstName | Partial::Pattern => {
                    let (close, tok, why) = if kind == Partial::InstName {
                        (b']', Tok::InstName, "unterminated instance name")
                    } else {
                        (b'/', Tok::Pattern, "unterminated pattern")
                    };
                    if escape && c != 0 {
                        escape = false;
                        continue;
                    }
                    if !escape && c == b'\\' as i32 {
                        pop(&mut len, &mut own);
                        if own.is_none() {
                            own = Some(text[from..from + len].to_vec());
                        }
                        escape = true;
                        continue;
                    }
                    if c != close as i32 {
                        if c == 0 {
                            pop(&mut len, &mut own);
                            return fail(why, start, bytes(from, len, own, 1));
                        }
                        continue;
                    }
                    pop(&mut len, &mut own);
                    return done(tok, start, bytes(from, len, own, 1));
                }
                Partial::Lt | Partial::Gt | Partial::Eq | Partial::Bang => {
                    let (with_eq, alone) = match kind {
                        Partial::Lt => (Tok::Leq, Tok::Lt),
                        Partial::Gt => (Tok::Geq, Tok::Gt),
                        Partial::Eq => (Tok::Eq, Tok::Assign),
                        _ => (Tok::Neq, Tok::Not),
                    };
                    if c == b'=' as i32 {
                        return done(with_eq, start, bytes(from, len, own, 0));
                    }
                    self.peek = c;
                    pop(&mut len, &mut own);
                    return done(alone, start, bytes(from, len, own, 0));
                }
                Partial::Amp | Partial::Bar => {
                    let (twice, tok) = if kind == Partial::Amp { (b'&', Tok::And) } else { (b'|', Tok::Or) };
                    if c == twice as i32 {
                        return done(tok, start, bytes(from, len, own, 0));
                    }
                    self.peek = c;
                    pop(&mut len, &mut own);
                    return fail("Illegal character", start, bytes(from, len, own, 0));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &[u8]) -> Vec<(Tok, isize, String)> {
        let mut lx = Lexer::new(s);
        let mut out = Vec::new();
        loop {
            let t = lx.next_token(false);
            let end = t.tok == Tok::Eos || t.tok == Tok::LexError;
            out.push((t.tok, t.start, String::from_utf8_lossy(&t.text).into_owned()));
            if end {
                return out;
            }
        }
    }

    fn all_tokens(mut lx: Lexer<'_>) -> Vec<Token<'_>> {
        let mut out = Vec::new();
        let mut in_matchinst = false;
        loop {
            let t = lx.next_token(in_matchinst);
            in_matchinst |= t.tok == Tok::MatchInst;
            let end = t.tok == Tok::Eos || t.tok == Tok::LexError;
            out.push(t);
            if end {
                return out;
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Taking a name's bytes at once reads the tokens reading them
        /// one at a time reads.
        #[test]
        fn names_taken_at_once_are_names_taken_a_byte_at_a_time(parts in proptest::collection::vec(
            proptest::sample::select(vec![
                &b"a"[..], b"b.c_1", b"Z9", b"_", b".", b"..5", b"7", b" ", b"\t", b"+", b"[", b"]", b"\\", b"/",
                b"matchinst(", b"(", b"avg(", b"units", b"\"", b"\xff", b"\0", b"<=", b"!", b"&", b"|", b"x[a\\]b]",
                "\u{e9}".as_bytes(),
            ]),
            0..24,
        )) {
            let text: Vec<u8> = parts.concat();
            let slow = Lexer { hurried: false, ..Lexer::new(&text) };
            proptest::prop_assert_eq!(all_tokens(Lexer::new(&text)), all_tokens(slow), "{:?}", text);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5000))]
        /// Where the quick reading of kinds gives one, it is the kind the
        /// lexer reads, and its text (escapes dropped) the lexer's, token
        /// after token, to the end.
        #[test]
        fn kinds_read_quickly_are_the_lexers(parts in proptest::collection::vec(
            proptest::sample::select(vec![
                &b"a"[..], b"b.c_1", b"Z9", b"_", b".", b"..5", b"7", b"4294967295", b"4294967296", b"0.", b" ",
                b"\t", b"\n", b"+", b"-", b"*", b"/", b"?", b":", b",", b"(", b")", b"[", b"]", b"\"", b"avg",
                b"avg(", b"rate(", b"matchinst(", b"units", b"type", b"novalue", b"\xff", b"\0", b"<", b">", b"=",
                b"!", b"&", b"|", b"\x7f", b"@", "\u{e9}".as_bytes(), b"\\", b"\"Mbyte\"", b"[a\\]b]", b"/^e/",
                b"#",
            ]),
            0..24,
        )) {
            let text: Vec<u8> = parts.concat();
            let mut lx = Lexer::new(&text);
            let mut quick = Kinds::new(&text);
            let mut in_matchinst = false;
            loop {
                let t = lx.next_token(in_matchinst);
                let Some((kind, (from, to))) = quick.next_kind(in_matchinst) else { break };
                proptest::prop_assert_eq!(kind, t.tok, "{:?}", text);
                if matches!(kind, Tok::String | Tok::InstName | Tok::Pattern) {
                    let raw = &quick.text()[from..to];
                    let unescaped = if kind == Tok::String { raw.to_vec() } else { crate::parse::unescape(raw) };
                    proptest::prop_assert_eq!(&unescaped[..], &t.text[..], "{:?}", text);
                } else if kind != Tok::Eos {
                    proptest::prop_assert_eq!(&quick.text()[from..to], &t.text[..], "{:?}", text);
                }
                in_matchinst |= kind == Tok::MatchInst;
                if t.tok == Tok::Eos {
                    proptest::prop_assert_eq!(quick.next_kind(in_matchinst).map(|k| k.0), Some(Tok::Eos));
                    break;
                }
            }
        }
    }

    #[test]
    fn quick_kinds_give_up_where_the_lexer_reads_more() {
        for text in [&b"x[a"[..], b"\"s", b"4294967296", b"a & b", b"a \xff", b"#", b"\"\xe9\""] {
            let mut quick = Kinds::new(text);
            let gave_up = std::iter::from_fn(|| Some(quick.next_kind(false))).take(4).any(|k| k.is_none());
            assert!(gave_up, "{}", String::from_utf8_lossy(text));
        }
        let mut quick = Kinds::new(b"rate(x) >= .5 && !y ? 1 : 2.0\0+");
        let kinds: Vec<Tok> = std::iter::from_fn(|| quick.next_kind(false).map(|k| k.0)).take(13).collect();
        assert_eq!(
            kinds,
            [
                Tok::Rate,
                Tok::LParen,
                Tok::Name,
                Tok::RParen,
                Tok::Geq,
                Tok::Double,
                Tok::And,
                Tok::Not,
                Tok::Name,
                Tok::Quest,
                Tok::Integer,
                Tok::Colon,
                Tok::Double
            ]
        );
        assert_eq!(quick.next_kind(false).map(|k| k.0), Some(Tok::Eos));
    }

    #[test]
    fn numbers_names_and_operators() {
        let t = toks(b"a.b_1 + 12*.5 <= 3.4.5");
        let kinds: Vec<Tok> = t.iter().map(|x| x.0).collect();
        assert_eq!(
            kinds,
            [Tok::Name, Tok::Plus, Tok::Integer, Tok::Star, Tok::Double, Tok::Leq, Tok::Double, Tok::Double, Tok::Eos]
        );
        assert_eq!(t[6].2, "3.4");
        assert_eq!(t[7].2, ".5");
        assert_eq!(t[8].1, 21, "end of text is the last byte");
    }

    #[test]
    fn empty_text_ends_before_it() {
        assert_eq!(toks(b""), [(Tok::Eos, -1, String::new())]);
        assert_eq!(toks(b"  ")[0].1, 1);
    }

    #[test]
    fn function_names_need_a_parenthesis_at_once() {
        assert_eq!(toks(b"avg(")[0].0, Tok::Avg);
        assert_eq!(toks(b"avg (")[0].0, Tok::Name);
        assert_eq!(toks(b"units")[0].0, Tok::Units);
    }

    #[test]
    fn constants_are_32_bits() {
        assert_eq!(toks(b"4294967295")[0].0, Tok::Integer);
        let t = toks(b"4294967296");
        assert_eq!((t[0].0, t[0].2.as_str()), (Tok::LexError, "4294967296"));
    }

    #[test]
    fn escapes_in_instance_names() {
        let t = toks(br"x[a\]b\\c]");
        assert_eq!(t[1], (Tok::InstName, 1, r"a]b\c".to_string()));
        assert_eq!(toks(b"x[ab")[1].0, Tok::LexError);
    }

    #[test]
    fn byte_ff_ends_input_without_ending_the_text() {
        let t = toks(b"ab\xffcd");
        assert_eq!(t[0].2, "ab");
        assert_eq!(t[1], (Tok::Name, 3, "cd".to_string()));
        assert_eq!(toks(b"a \xff b")[1], (Tok::Eos, 2, String::new()));
    }

    #[test]
    fn nul_ends_the_text() {
        assert_eq!(toks(b"a\0+b"), [(Tok::Name, 0, "a".into()), (Tok::Eos, 0, String::new())]);
    }

    #[test]
    fn lone_ampersand_is_illegal() {
        let t = toks(b"a & b");
        assert_eq!(t[1].0, Tok::LexError);
        assert_eq!(t[1].2, "&");
    }
}
