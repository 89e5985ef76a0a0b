//! The streaming JSON tokenizer libpcp parses label sets with (the
//! vendored `jsonsl`), as far as its behaviour can be observed: the push
//! and pop events it reports, at which input position and nesting level,
//! and where it gives up.
//!
//! It is a lenient tokenizer, not a validator: input may end anywhere
//! without complaint, several top-level values may follow one another when
//! commas separate them, `-01` passes as a number while `01` does not, and
//! string bytes 0x14..0x1f pass unescaped. libpcp's label sets depend on
//! all of that, so it is kept.

/// What a tokenizer level holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// The level below the first value.
    Root,
    /// A string value.
    Str,
    /// An object key.
    Key,
    /// `{ ... }`.
    Object,
    /// `[ ... ]`.
    List,
    /// A number, `true`, `false` or `null`.
    Special,
}

/// A value starts or ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Action {
    Push,
    Pop,
}

/// Receives the tokenizer's events.
pub(super) trait Sink {
    /// A value of `kind` at nesting `level` starts (`Push`, `at` its
    /// first byte) or ends (`Pop`, `at` the byte that ends it: a closing
    /// quote or bracket, or the byte after a number or literal).
    fn event(&mut self, action: Action, kind: Kind, level: usize, at: usize);
    /// The input is not JSON this tokenizer accepts; nothing more is read.
    fn error(&mut self);
}

// kinds of special value, as bits
const SIGNED: u32 = 1 << 0;
const UNSIGNED: u32 = 1 << 1;
const TRUE: u32 = 1 << 2;
const FALSE: u32 = 1 << 3;
const NULL: u32 = 1 << 4;
const FLOAT: u32 = 1 << 5;
const EXPONENT: u32 = 1 << 6;
const INF: u32 = 1 << 9;
const ZERO: u32 = (1 << 11) | UNSIGNED;
const DASH: u32 = 1 << 12;
const NUMERIC: u32 = SIGNED | UNSIGNED;

/// The special value a byte starts, if any (no NaN or Infinity).
fn special_start(c: u8) -> u32 {
    match c {
        b'-' => DASH,
        b'0' => ZERO,
        b'1'..=b'9' => UNSIGNED,
        b'f' => FALSE,
        b'n' => NULL,
        b't' => TRUE,
        _ => 0,
    }
}

/// Bytes that end a number or literal.
fn special_end(c: u8) -> bool {
    matches!(c, b'\t' | b'\n' | b'\r' | b' ' | b'"' | b',' | b':' | b'[' | b'\\' | b']' | b'{' | b'}')
}

fn whitespace(c: u8) -> bool {
    matches!(c, b'\t' | b'\n' | b'\r' | b' ')
}

/// Bytes a string may hold as they are: all but quote, backslash and
/// 0x00..0x13 (the table stops short of 0x1f).
fn plain_in_string(c: u8) -> bool {
    !(c <= 0x13 || c == b'"' || c == b'\\')
}

fn escape_ok(c: u8) -> bool {
    matches!(c, b'"' | b'/' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' | b'u')
}

#[derive(Clone, Copy, Debug)]
struct Level {
    kind: Kind,
    /// Elements so far (objects count keys and values), or a number's
    /// digits; only its parity and zero-ness matter.
    nelem: u64,
    /// Special value kind bits.
    flags: u32,
    /// Length of a literal so far.
    len: u64,
    /// Where the value began.
    begin: usize,
}

const BLANK: Level = Level { kind: Kind::Root, nelem: 0, flags: 0, len: 0, begin: 0 };

struct Tokenizer<'s, S: Sink> {
    stack: Vec<Level>,
    level: usize,
    can_insert: bool,
    expecting: u8,
    tok_last: u8,
    in_escape: bool,
    max_callback_level: usize,
    sink: &'s mut S,
}

/// Stop: the sink has been told of an error.
struct Stop;

type Step = Result<(), Stop>;

/// Run the tokenizer over `input` with at most `levels` nesting levels
/// (the root included), reporting events for levels below
/// `max_callback_level` only.
pub(super) fn feed<S: Sink>(input: &[u8], levels: usize, max_callback_level: usize, sink: &mut S) {
    let mut t = Tokenizer {
        stack: vec![BLANK; levels.max(2)],
        level: 0,
        can_insert: true,
        expecting: 0,
        tok_last: 0,
        in_escape: false,
        max_callback_level,
        sink,
    };
    for (pos, &c) in input.iter().enumerate() {
        if t.step(c, pos).is_err() {
            return;
        }
    }
}

impl<S: Sink> Tokenizer<'_, S> {
    fn fail(&mut self) -> Step {
        self.sink.error();
        Err(Stop)
    }

    fn event(&mut self, action: Action, level: usize, at: usize) {
        if self.max_callback_level > level {
            let kind = self.stack[level].kind;
            self.sink.event(action, kind, level, at);
        }
    }

    fn push(&mut self, kind: Kind, pos: usize) -> Step {
        if self.level >= self.stack.len() - 1 {
            return self.fail();
        }
        self.level += 1;
        let st = &mut self.stack[self.level];
        st.kind = kind;
        st.begin = pos;
        Ok(())
    }

    fn step(&mut self, c: u8, pos: usize) -> Step {
        match self.stack[self.level].kind {
            Kind::Str | Kind::Key => {
                if self.in_escape {
                    self.in_escape = false;
                    return if escape_ok(c) { Ok(()) } else { self.fail() };
                }
                if plain_in_string(c) {
                    Ok(())
                } else if c == b'"' {
                    self.quote(pos)
                } else if c == b'\\' {
                    self.escape()
                } else {
                    self.fail()
                }
            }
            Kind::Special => self.special(c, pos),
            _ if whitespace(c) => Ok(()),
            _ if special_start(c) != 0 => self.special_begin(c, pos),
            _ if c == b'"' => self.quote(pos),
            _ if c == b'\\' => self.escape(),
            _ => self.structural(c, pos),
        }
    }

    fn escape(&mut self) -> Step {
        if !matches!(self.stack[self.level].kind, Kind::Str | Kind::Key) {
            return self.fail();
        }
        self.in_escape = true;
        Ok(())
    }

    fn quote(&mut self, pos: usize) -> Step {
        self.can_insert = false;
        let level = self.level;
        match self.stack[level].kind {
            Kind::Str | Kind::Key => {
                self.event(Action::Pop, level, pos);
                self.level -= 1;
                Ok(())
            }
            Kind::Object => {
                let st = &mut self.stack[level];
                st.nelem = st.nelem.wrapping_add(1);
                if (st.nelem.wrapping_sub(1)) % 2 == 1 {
                    // a value
                    if self.tok_last != b':' {
                        return self.fail();
                    }
                    self.expecting = b',';
                    self.tok_last = 0;
                    self.push(Kind::Str, pos)?;
                } else {
                    if self.expecting != b'"' {
                        return self.fail();
                    }
                    self.tok_last = 0;
                    self.expecting = b':';
                    self.push(Kind::Key, pos)?;
                }
                self.event(Action::Push, self.level, pos);
                Ok(())
            }
            Kind::List => {
                let st = &mut self.stack[level];
                st.nelem = st.nelem.wrapping_add(1);
                self.push(Kind::Str, pos)?;
                self.expecting = b',';
                self.tok_last = 0;
                self.event(Action::Push, self.level, pos);
                Ok(())
            }
            Kind::Special | Kind::Root => self.fail(),
        }
    }

    fn structural(&mut self, c: u8, pos: usize) -> Step {
        match c {
            b':' => {
                if self.expecting != b':' {
                    return self.fail();
                }
                self.tok_last = b':';
                self.can_insert = true;
                self.expecting = b'"';
                Ok(())
            }
            b',' => {
                if self.expecting != b',' {
                    return self.fail();
                }
                if self.stack[self.level].kind != Kind::Object {
                    self.can_insert = true;
                }
                self.tok_last = b',';
                self.expecting = b'"';
                Ok(())
            }
            b'{' | b'[' => {
                if !self.can_insert {
                    return self.fail();
                }
                let st = &mut self.stack[self.level];
                if st.kind == Kind::Object && st.nelem % 2 == 0 {
                    return self.fail();
                }
                st.nelem = st.nelem.wrapping_add(1);
                let kind = if c == b'{' { Kind::Object } else { Kind::List };
                self.push(kind, pos)?;
                self.stack[self.level].nelem = 0;
                self.can_insert = true;
                if c == b'{' {
                    self.expecting = b'"';
                }
                self.event(Action::Push, self.level, pos);
                self.tok_last = 0;
                Ok(())
            }
            b'}' | b']' => {
                if self.tok_last == b',' {
                    return self.fail();
                }
                self.can_insert = false;
                let level = self.level;
                if level == 0 {
                    // nothing open: the root is neither list nor object
                    return self.fail();
                }
                self.level -= 1;
                self.expecting = b',';
                self.tok_last = 0;
                let st = self.stack[level];
                if c == b']' {
                    if st.kind != Kind::List {
                        return self.fail();
                    }
                } else if st.kind != Kind::Object || (st.nelem != 0 && st.nelem % 2 != 0) {
                    return self.fail();
                }
                self.event(Action::Pop, level, pos);
                Ok(())
            }
            _ => self.special_begin(c, pos),
        }
    }

    fn special_begin(&mut self, c: u8, pos: usize) -> Step {
        let flags = special_start(c);
        if flags == 0 {
            return self.fail();
        }
        let st = &mut self.stack[self.level];
        if st.kind == Kind::Object && st.nelem % 2 == 0 {
            return self.fail();
        }
        st.nelem = st.nelem.wrapping_add(1);
        if !self.can_insert {
            return self.fail();
        }
        self.push(Kind::Special, pos)?;
        let st = &mut self.stack[self.level];
        st.flags = flags;
        st.len = 1;
        if flags == UNSIGNED {
            st.nelem = u64::from(c - b'0');
            self.tok_last = b'1';
        } else {
            st.nelem = 0;
            self.tok_last = b'-';
        }
        self.event(Action::Push, self.level, pos);
        Ok(())
    }

    /// A byte inside a number or literal.
    fn special(&mut self, c: u8, pos: usize) -> Step {
        let level = self.level;
        let flags = self.stack[level].flags;
        let numeric = if flags == UNSIGNED || flags == SIGNED {
            if c.is_ascii_digit() {
                return Ok(());
            }
            true
        } else if flags == DASH {
            if !c.is_ascii_digit() {
                return self.fail();
            }
            self.stack[level].flags = if c == b'0' { ZERO | SIGNED } else { SIGNED };
            return Ok(());
        } else if flags == ZERO {
            if c.is_ascii_digit() {
                return self.fail();
            }
            self.stack[level].flags = UNSIGNED;
            true
        } else {
            flags & NUMERIC != 0 && flags & INF == 0
        };
        if numeric {
            let st = &mut self.stack[level];
            match c {
                b'0'..=b'9' => {
                    self.tok_last = b'1';
                    return Ok(());
                }
                b'.' => {
                    if st.flags & FLOAT != 0 {
                        return self.fail();
                    }
                    st.flags |= FLOAT;
                    self.tok_last = b'.';
                    return Ok(());
                }
                b'e' | b'E' => {
                    if st.flags & EXPONENT != 0 {
                        return self.fail();
                    }
                    st.flags |= EXPONENT;
                    self.tok_last = b'e';
                    return Ok(());
                }
                b'-' | b'+' => {
                    if self.tok_last != b'e' {
                        return self.fail();
                    }
                    self.tok_last = b'-';
                    return Ok(());
                }
                _ if !special_end(c) => return self.fail(),
                _ => {}
            }
        } else if !special_end(c) {
            let st = &mut self.stack[level];
            st.len = st.len.wrapping_add(1);
            let literal: &[u8] = match st.flags {
                TRUE => b"true",
                FALSE => b"false",
                NULL => b"null",
                _ => return Ok(()),
            };
            let want = literal.get(pos - st.begin).copied().unwrap_or(0);
            return if c == want { Ok(()) } else { self.fail() };
        }
        // the value ends here
        self.can_insert = false;
        let st = &mut self.stack[level];
        let f = st.flags;
        if f == UNSIGNED || f == SIGNED {
        } else if f == ZERO || f == ZERO | SIGNED {
            st.flags = UNSIGNED;
        } else if f == DASH {
            return self.fail();
        } else if f & NUMERIC != 0 {
            if self.tok_last != b'1' {
                return self.fail();
            }
        } else if (f == TRUE && st.len != 4) || (f == FALSE && st.len != 5) || (f == NULL && st.len != 4) {
            return self.fail();
        }
        self.event(Action::Pop, level, pos);
        self.level -= 1;
        self.tok_last = 0;
        self.expecting = b',';
        if whitespace(c) {
            return Ok(());
        }
        self.structural(c, pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Log(Vec<String>, bool);

    impl Sink for Log {
        fn event(&mut self, action: Action, kind: Kind, level: usize, at: usize) {
            self.0.push(format!("{action:?}{kind:?}@{level}:{at}"));
        }
        fn error(&mut self) {
            self.1 = true;
        }
    }

    fn run(s: &str) -> Log {
        let mut log = Log::default();
        feed(s.as_bytes(), 256, 64, &mut log);
        log
    }

    #[test]
    fn events_of_a_small_object() {
        let log = run(r#"{"a": 1}"#);
        assert!(!log.1);
        assert_eq!(
            log.0,
            ["PushObject@1:0", "PushKey@2:1", "PopKey@2:3", "PushSpecial@2:6", "PopSpecial@2:7", "PopObject@1:7"]
        );
    }

    #[test]
    fn what_it_accepts_and_refuses() {
        for ok in
            [r#"{"a":-01}"#, r#"{"a":1},{"b":2}"#, r#"{"a":"x"#, "{\"a\":\"\x14\"}", r#"{"a":[1,2.5e+3,true,null]}"#]
        {
            assert!(!run(ok).1, "{ok} refused");
        }
        for bad in [r#"{"a":01}"#, r#"{"a":1,}"#, r#"{"a":tru}"#, r#"{"a":1"b":2}"#, "{\"a\":\"\x13\"}", r#"{}{}"#, "}"]
        {
            assert!(run(bad).1, "{bad} accepted");
        }
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = "[".repeat(300);
        assert!(run(&deep).1);
        let log = run(&"[".repeat(100));
        assert!(!log.1);
        // events only below level 64
        assert_eq!(log.0.len(), 63);
    }
}
