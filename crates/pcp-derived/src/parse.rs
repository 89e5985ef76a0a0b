//! The parser: an LALR(1) automaton (`tables.rs`) driven the way yacc
//! drives it, error recovery included, so that a bad expression fails at
//! the same token and with the same diagnostic as in libpcp.
//!
//! On a syntax error the automaton unwinds its stack to the nearest state
//! that can shift `error`; the error rule reduced there supplies the
//! diagnostic (unless the lexer already gave one) and unwinds further, until
//! the stack is empty. Actions can also stop the parse: a bad regular
//! expression, bad units, an unknown `type=` or `semantics=` value.

use crate::ast::{Builder, Constant, Expr, Filter, Metadata, Node, NodeId};
use crate::grammar::{Act, SpecKind, Tok, NTOKENS, RULES};
use crate::lex::{Kinds, Lexer, Token};
use crate::tables::STATES;
use pcp_core::{MetricType, Semantics, Units};
use std::fmt;

/// What libpcp's parser remembers from one expression to the next: whether
/// a `matchinst(` was left open by a failed parse, in which case a `/` in
/// the next expression starts a pattern. Registration tables keep one; a
/// fresh one is what a new process starts with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParseState {
    in_matchinst: bool,
    /// Room the parses of a table's expressions share.
    room: Room,
}

/// The parser's stacks and the tree's lists, kept empty between parses so
/// that each parse of a table's many expressions does not allocate them
/// afresh. Not part of the state: two states compare equal whatever
/// room they hold, and a clone starts with none.
#[derive(Default)]
struct Room {
    states: Vec<usize>,
    /// The recogniser's texts, one per state.
    spans: Vec<(usize, usize)>,
    vals: Vec<Val<'static>>,
    tree: Builder,
}

impl Clone for Room {
    fn clone(&self) -> Room {
        Room::default()
    }
}

impl PartialEq for Room {
    fn eq(&self, _: &Room) -> bool {
        true
    }
}

impl Eq for Room {}

impl std::fmt::Debug for Room {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Room")
    }
}

/// An empty list of values of any lifetime, in the room of `v` (emptied):
/// collecting nothing from a list into one of the same layout reuses its
/// allocation.
/// The deepest parse whose room is kept for the next.
const ROOM_KEPT: usize = 256;

// (a map to another type is what lets the lifetime change; there is
// nothing to map)
#[allow(clippy::unnecessary_filter_map)]
fn relend<'a, 'b>(mut v: Vec<Val<'a>>) -> Vec<Val<'b>> {
    v.clear();
    v.into_iter().filter_map(|_| None).collect()
}

impl ParseState {
    /// Whether the next expression starts inside a `matchinst(`.
    pub fn in_matchinst(&self) -> bool {
        self.in_matchinst
    }
}

/// A syntax error.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SyntaxError {
    /// Where libpcp points: the offset of the token being read when the
    /// parse failed (for the end of the text, its last byte; -1 when the
    /// text is empty).
    pub offset: isize,
    /// The diagnostic (`pmDerivedErrStr`), if there is one. Bytes, as the
    /// expression's own bytes may be quoted in it.
    pub message: Option<Vec<u8>>,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.message {
            Some(m) => write!(f, "syntax error at offset {}: {}", self.offset, String::from_utf8_lossy(m)),
            None => write!(f, "syntax error at offset {}", self.offset),
        }
    }
}

impl std::error::Error for SyntaxError {}

/// libpcp formats its diagnostics into a 256-byte buffer.
const MESSAGE_MAX: usize = 255;

/// yacc's stack limit (`YYMAXDEPTH`): a parse that needs this many states
/// fails ("memory exhausted", with no diagnostic of libpcp's own).
const MAX_DEPTH: usize = 10_000;

fn bounded(mut m: Vec<u8>) -> Vec<u8> {
    m.truncate(MESSAGE_MAX);
    m
}

/// A value on the parser's stack.
enum Val<'t> {
    None,
    Tok(Token<'t>),
    Expr(NodeId),
    Filter(Filter),
    Bang(bool),
}

/// How an action ends the parse early.
enum Stop {
    /// The whole expression is parsed.
    Accept,
    /// An error rule fired: unwind further.
    Unwind,
    /// An action found an error: give up at once.
    Abort,
}

struct Parser<'t, 's> {
    lexer: Lexer<'t>,
    state: &'s mut ParseState,
    lookahead: Option<Token<'t>>,
    /// Offset of the last token read.
    lexicon: isize,
    message: Option<Vec<u8>>,
    /// `mkconst`/`novalue` parameters collected so far.
    spec: Metadata,
    /// The tree so far.
    tree: Builder,
    trace: Option<&'s mut Vec<Token<'t>>>,
}

/// Parses one expression (`pmRegisterDerived`'s syntax check), with a
/// fresh [`ParseState`].
///
/// ```
/// use pcp_derived::{parse, Func, Node};
///
/// let e = parse("100 * delta(disk.dev.read) / delta(disk.dev.total)").unwrap();
/// assert_eq!(e.to_string(), "((100 * delta(disk.dev.read)) / delta(disk.dev.total))");
/// assert!(matches!(e[e.root()], Node::Binary(..)));
/// let funcs = e.nodes().iter().filter(|n| matches!(n, Node::Func(Func::Delta, _))).count();
/// assert_eq!(funcs, 2);
///
/// // a syntax error points where libpcp points, with its message
/// let err = parse("a + * b").unwrap_err();
/// assert_eq!(err.offset, 4);
/// assert_eq!(err.to_string(), "syntax error at offset 4: Arithmetic expression expected to follow PLUS");
/// ```
#[doc(alias = "pmRegisterDerived")]
pub fn parse(text: &str) -> Result<Expr, SyntaxError> {
    parse_bytes(text.as_bytes(), &mut ParseState::default())
}

/// Parses one expression given as bytes (the text ends at a NUL), carrying
/// `state` from and to the neighbouring parses.
pub fn parse_bytes(text: &[u8], state: &mut ParseState) -> Result<Expr, SyntaxError> {
    run(text, state, None)
}

/// As [`parse_bytes`], also recording every token read, in order (what
/// libpcp's `-Dderive,appl0` trace lists).
pub fn parse_traced<'t>(
    text: &'t [u8],
    state: &mut ParseState,
    trace: &mut Vec<Token<'t>>,
) -> Result<Expr, SyntaxError> {
    run(text, state, Some(trace))
}

/// Whether `text` is sure to parse, found without making its tree: the
/// parser's automaton runs on the tokens alone, checking what the
/// parser's actions check (patterns, units, metadata parameters), and
/// gives up (`false`) at the first error, at a diagnostic rule, and at
/// text that is not plain ASCII. `true` promises that [`parse_bytes`]
/// from `state` succeeds and leaves `state` as it was, so that the tree
/// can be made when it is first wanted; `false` promises nothing.
pub fn recognises(text: &[u8], state: &mut ParseState) -> bool {
    if state.in_matchinst {
        return false;
    }
    let mut states = std::mem::take(&mut state.room.states);
    let mut spans = std::mem::take(&mut state.room.spans);
    states.clear();
    spans.clear();
    let sure = recognise(text, &mut states, &mut spans);
    states.clear();
    spans.clear();
    if states.capacity() <= ROOM_KEPT {
        state.room.states = states;
        state.room.spans = spans;
    }
    sure
}

/// [`recognises`], the automaton's stack in `states`, and in `spans`
/// where each symbol on it got its text (a token's, or the one token a
/// nonterminal passes on), for the checks.
fn recognise(text: &[u8], states: &mut Vec<usize>, spans: &mut Vec<(usize, usize)>) -> bool {
    let mut kinds = Kinds::new(text);
    let mut lookahead = None;
    let mut in_matchinst = false;
    let mut spec = Metadata::default();
    let text = kinds.text();
    states.push(0);
    spans.push((0, 0));
    loop {
        let Some(&top) = states.last() else { return false };
        let row = &STATES[top];
        let mut action = 0;
        if !row.actions.is_empty() {
            let (tok, span) = match lookahead {
                Some(t) => t,
                None => match kinds.next_kind(in_matchinst) {
                    None => return false,
                    Some(t) => {
                        // (as the parser's read: when the token is read)
                        in_matchinst |= t.0 == Tok::MatchInst;
                        *lookahead.insert(t)
                    }
                },
            };
            action = ACTIONS[top][tok as usize];
            if action > 0 {
                lookahead = None;
                states.push(action as usize);
                spans.push(span);
                if states.len() >= MAX_DEPTH {
                    return false;
                }
                continue;
            }
        }
        let rule = match (action, row.default) {
            (a, _) if a < 0 => &RULES[(-a) as usize],
            (_, 0) => return false,
            (_, d) => &RULES[d as usize - 1],
        };
        let Some(keep) = states.len().checked_sub(rule.rhs.len()) else { return false };
        let arg = |k: usize| spans.get(keep + k).and_then(|&(a, b)| text.get(a..b)).unwrap_or_default();
        let mut passed = (0, 0);
        match rule.act {
            Act::Accept => return !in_matchinst,
            Act::Fail { .. } | Act::TernaryNoValueBoth => return false,
            Act::Pass if rule.rhs.len() == 1 => passed = spans.get(keep).copied().unwrap_or_default(),
            Act::Regexpr if crate::regex::check(&unescape(arg(1))).is_err() => return false,
            Act::Rescale if parse_units(arg(4)).is_err() => return false,
            Act::Spec(kind) if set_spec(&mut spec, kind, arg(2)).is_err() => return false,
            Act::MkConstDouble if !float_type_allowed(&spec) => return false,
            Act::MidInt | Act::MidDouble | Act::NoValueSpecs | Act::MkConstInt | Act::MkConstDouble => {
                spec = Metadata::default()
            }
            Act::MatchInst => in_matchinst = false,
            _ => {}
        }
        states.truncate(keep);
        spans.truncate(keep);
        let Some(&from) = states.last() else { return false };
        let Some(&(_, to)) = STATES[from].gotos.iter().find(|(n, _)| *n == rule.lhs) else { return false };
        states.push(to as usize);
        spans.push(passed);
    }
}

/// An instance name's or a pattern's text as the lexer gives it: each
/// backslash dropped, and the byte after it kept.
pub(crate) fn unescape(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut escape = false;
    for &b in raw {
        if !escape && b == b'\\' {
            escape = true;
            continue;
        }
        escape = false;
        out.push(b);
    }
    out
}

fn run<'t>(text: &'t [u8], state: &mut ParseState, trace: Option<&mut Vec<Token<'t>>>) -> Result<Expr, SyntaxError> {
    let mut states = std::mem::take(&mut state.room.states);
    let mut vals = relend(std::mem::take(&mut state.room.vals));
    let tree = std::mem::take(&mut state.room.tree);
    let mut p = Parser {
        lexer: Lexer::new(text),
        state,
        lookahead: None,
        lexicon: -1,
        message: None,
        spec: Metadata::default(),
        tree,
        trace,
    };
    let parsed = p.drive(&mut states, &mut vals);
    // the root is the last node made
    let done = match parsed {
        Some(()) => Ok(p.tree.finish()),
        None => Err(SyntaxError { offset: p.lexicon, message: p.message.take() }),
    };
    p.tree.clear();
    states.clear();
    // (the room of a deep expression's parse is not held on to)
    if states.capacity() <= ROOM_KEPT {
        let spans = std::mem::take(&mut p.state.room.spans);
        p.state.room = Room { states, spans, vals: relend(vals), tree: std::mem::take(&mut p.tree) };
    }
    done
}

enum Step {
    Shift(usize),
    Reduce(usize),
    Error,
}

/// Each state's explicit actions (`STATES`' lists) by token, laid out at
/// compile time: the parser reads one entry instead of searching a list.
/// 0 is no action (no action is 0: state 0 is never shifted to, and rule
/// 0 never reduced by, which building the table checks).
static ACTIONS: [[i16; NTOKENS]; STATES.len()] = dense_actions();

const fn dense_actions() -> [[i16; NTOKENS]; STATES.len()] {
    let mut table = [[0i16; NTOKENS]; STATES.len()];
    let mut s = 0;
    while s < STATES.len() {
        let actions = STATES[s].actions;
        let mut k = 0;
        while k < actions.len() {
            let (tok, a) = actions[k];
            assert!(a != 0, "an action of 0 would read as none");
            table[s][tok as usize] = a;
            k += 1;
        }
        s += 1;
    }
    table
}

impl<'t> Parser<'t, '_> {
    fn read(&mut self) -> Tok {
        if let Some(t) = &self.lookahead {
            return t.tok;
        }
        let t = self.lexer.next_token(self.state.in_matchinst);
        self.lexicon = t.start;
        if let Some(why) = t.error {
            self.message = Some(why.as_bytes().to_vec());
        }
        if t.tok == Tok::MatchInst {
            self.state.in_matchinst = true;
        }
        if let Some(trace) = self.trace.as_deref_mut() {
            trace.push(t.clone());
        }
        let tok = t.tok;
        self.lookahead = Some(t);
        tok
    }

    fn set_message(&mut self, m: Vec<u8>) {
        if self.message.is_none() {
            self.message = Some(bounded(m));
        }
    }

    /// `Some` when the expression is parsed (the tree is in `self.tree`),
    /// `None` on a syntax error (offset and message left in `self`).
    fn drive(&mut self, states: &mut Vec<usize>, vals: &mut Vec<Val<'t>>) -> Option<()> {
        states.push(0);
        vals.push(Val::None);
        // yacc's count of tokens to shift before errors are reported again
        let mut errstatus = 0u8;
        loop {
            let top = *states.last()?;
            let row = &STATES[top];
            let mut step = None;
            if !row.actions.is_empty() {
                let tok = self.read();
                let a = ACTIONS[top][tok as usize];
                if a != 0 {
                    step = Some(if a > 0 { Step::Shift(a as usize) } else { Step::Reduce((-a) as usize) });
                }
            }
            let step = step.unwrap_or(match row.default {
                0 => Step::Error,
                d => Step::Reduce(d as usize - 1),
            });
            match step {
                Step::Shift(s) => {
                    errstatus = errstatus.saturating_sub(1);
                    states.push(s);
                    vals.push(self.lookahead.take().map_or(Val::None, Val::Tok));
                    if states.len() >= MAX_DEPTH {
                        return None;
                    }
                }
                Step::Reduce(r) => {
                    let rule = &RULES[r];
                    let keep = states.len().checked_sub(rule.rhs.len())?;
                    states.truncate(keep);
                    match self.act(rule.act, vals.drain(keep..)) {
                        Ok(v) => {
                            let from = *states.last()?;
                            let &(_, to) = STATES[from].gotos.iter().find(|(n, _)| *n == rule.lhs)?;
                            states.push(to as usize);
                            vals.push(v);
                        }
                        Err(Stop::Accept) => return Some(()),
                        Err(Stop::Abort) => return None,
                        Err(Stop::Unwind) => {
                            errstatus = 3;
                            self.recover(states, vals)?;
                        }
                    }
                }
                Step::Error => {
                    if errstatus == 3 {
                        // a token right after recovery: drop it (at the end, give up)
                        match &self.lookahead {
                            Some(t) if t.tok == Tok::End => return None,
                            Some(_) => self.lookahead = None,
                            None => {}
                        }
                    }
                    errstatus = 3;
                    self.recover(states, vals)?;
                }
            }
        }
    }

    /// Pops states until one can shift `error`, and shifts it; `None` when
    /// the stack empties first.
    fn recover(&mut self, states: &mut Vec<usize>, vals: &mut Vec<Val<'t>>) -> Option<()> {
        loop {
            let top = *states.last()?;
            if let Some(&(_, a)) = STATES[top].actions.iter().find(|(t, a)| *t == Tok::Error && *a > 0) {
                states.push(a as usize);
                vals.push(Val::None);
                return (states.len() < MAX_DEPTH).then_some(());
            }
            if states.len() == 1 {
                return None;
            }
            states.pop();
            vals.pop();
        }
    }

    fn node(&mut self, n: Node) -> Val<'t> {
        Val::Expr(self.tree.push(n))
    }

    fn act(&mut self, act: Act, mut args: std::vec::Drain<'_, Val<'t>>) -> Result<Val<'t>, Stop> {
        let mut next = || args.next().unwrap_or(Val::None);
        // (the grammar puts an expression wherever one is taken)
        let expr = |v: Val| match v {
            Val::Expr(e) => e,
            _ => NodeId(0),
        };
        let text = |v: Val| match v {
            Val::Tok(t) => String::from_utf8_lossy(&t.text).into_owned(),
            _ => String::new(),
        };
        let bytes = |v: Val| match v {
            Val::Tok(t) => t.text.into_owned(),
            _ => Vec::new(),
        };
        Ok(match act {
            Act::Accept => return Err(Stop::Accept),
            Act::Fail { phrase, follow, arg } => {
                let m = if follow { format!("{phrase} expected to follow {arg}") } else { format!("{phrase} '{arg}'") };
                self.set_message(m.into_bytes());
                return Err(Stop::Unwind);
            }
            Act::Pass => next(),
            Act::Paren => {
                next();
                next()
            }
            Act::NameInst => {
                let name = text(next());
                let inst = bytes(next());
                let n = self.tree.push(Node::Name(name));
                self.node(Node::Filter(Filter::Instance(inst), n))
            }
            Act::ParenInst => {
                next();
                let e = expr(next());
                next();
                let inst = bytes(next());
                self.node(Node::Filter(Filter::Instance(inst), e))
            }
            Act::Name => {
                let name = text(next());
                self.node(Node::Name(name))
            }
            Act::Binary(op) => {
                let l = expr(next());
                next();
                let r = expr(next());
                self.node(Node::Binary(op, l, r))
            }
            Act::Neg | Act::Not => {
                next();
                let e = expr(next());
                self.node(if act == Act::Neg { Node::Neg(e) } else { Node::Not(e) })
            }
            Act::Ternary | Act::TernaryNoValueThen | Act::TernaryNoValueElse => {
                let g = expr(next());
                next();
                let t = expr(next());
                next();
                let e = expr(next());
                self.node(Node::Ternary(g, t, e))
            }
            Act::TernaryNoValueBoth => {
                self.message = Some(b"novalue() may appear at most once in a ternary expression".to_vec());
                return Err(Stop::Unwind);
            }
            Act::NoValue => self.node(Node::NoValue(Box::default())),
            Act::NoValueSpecs => {
                let m = std::mem::take(&mut self.spec);
                self.node(Node::NoValue(Box::new(m)))
            }
            Act::Regexpr => {
                let invert = matches!(next(), Val::Bang(true));
                let pattern = bytes(next());
                if let Err(why) = crate::regex::check(&pattern) {
                    let _ = self.abort_quoting("bad regular expression:", why.as_bytes());
                    return Err(Stop::Abort);
                }
                Val::Filter(Filter::Regex { pattern, invert })
            }
            Act::Bang => Val::Bang(true),
            Act::NoBang => Val::Bang(false),
            Act::Integer => {
                let t = text(next());
                self.node(Node::Integer(Constant { text: t, meta: None }))
            }
            Act::Double => {
                let t = text(next());
                self.node(Node::Double(Constant { text: t, meta: None }))
            }
            Act::MidInt | Act::MidDouble => {
                self.spec = Metadata::default();
                Val::None
            }
            Act::MkConstInt | Act::MkConstDouble => {
                next();
                next();
                let number = text(next());
                let meta = std::mem::take(&mut self.spec);
                if act == Act::MkConstInt {
                    self.node(Node::Integer(Constant { text: number, meta: Some(Box::new(meta)) }))
                } else {
                    if !float_type_allowed(&meta) {
                        let ty = meta.ty.unwrap_or(MetricType::DOUBLE);
                        let m = format!("Incompatible floating point constant and type '{}'", ty.name());
                        self.set_message(m.into_bytes());
                        return Err(Stop::Abort);
                    }
                    self.node(Node::Double(Constant { text: number, meta: Some(Box::new(meta)) }))
                }
            }
            Act::SpecMore | Act::SpecOne => Val::None,
            Act::Spec(kind) => {
                next();
                next();
                let value = bytes(next());
                self.spec_value(kind, &value)?;
                Val::None
            }
            Act::SpecMeta => {
                next();
                next();
                self.spec.meta = Some(text(next()));
                Val::None
            }
            Act::Anon => {
                next();
                next();
                let word = text(next());
                self.node(Node::Anon(word))
            }
            Act::FuncName(f) | Act::FuncExpr(f) => {
                next();
                next();
                let e = match next() {
                    Val::Tok(t) => self.tree.push(Node::Name(String::from_utf8_lossy(&t.text).into_owned())),
                    v => expr(v),
                };
                self.node(Node::Func(f, e))
            }
            Act::Rescale => {
                next();
                next();
                let e = expr(next());
                next();
                let units = bytes(next());
                match parse_units(&units) {
                    Ok(u) => self.node(Node::Rescale(e, u)),
                    Err(why) => {
                        let _ = self.abort_quoting("Illegal units:", why.as_bytes());
                        return Err(Stop::Abort);
                    }
                }
            }
            Act::MatchInst => {
                next();
                next();
                let filter = match next() {
                    Val::Filter(f) => f,
                    _ => Filter::Regex { pattern: Vec::new(), invert: false },
                };
                next();
                let e = expr(next());
                self.state.in_matchinst = false;
                self.node(Node::Filter(filter, e))
            }
        })
    }

    /// A `type=`, `semantics=` or `units=` parameter.
    fn spec_value(&mut self, kind: SpecKind, value: &[u8]) -> Result<(), Stop> {
        match set_spec(&mut self.spec, kind, value) {
            Ok(()) => Ok(()),
            Err((phrase, what)) => self.abort_quoting(phrase, &what),
        }
    }

    /// Stops with the message `phrase 'what'`.
    fn abort_quoting(&mut self, phrase: &str, what: &[u8]) -> Result<(), Stop> {
        let mut m = format!("{phrase} '").into_bytes();
        m.extend_from_slice(what);
        m.push(b'\'');
        self.set_message(m);
        Err(Stop::Abort)
    }
}

/// Puts a `type=`, `semantics=` or `units=` parameter's value in `spec`,
/// or says why it cannot: the diagnostic's phrase and what it quotes.
fn set_spec(spec: &mut Metadata, kind: SpecKind, value: &[u8]) -> Result<(), (&'static str, Vec<u8>)> {
    let is = |word: &str| value.eq_ignore_ascii_case(word.as_bytes());
    match kind {
        SpecKind::Type => {
            let types = [MetricType::I32, MetricType::U32, MetricType::I64, MetricType::U64];
            match types.into_iter().chain([MetricType::FLOAT, MetricType::DOUBLE]).find(|t| is(t.name())) {
                Some(t) => spec.ty = Some(t),
                None => return Err(("Unrecognized value for type", value.to_vec())),
            }
        }
        SpecKind::Semantics => {
            let sems = [Semantics::COUNTER, Semantics::INSTANT, Semantics::DISCRETE];
            match sems.into_iter().find(|s| is(s.name())) {
                Some(s) => spec.sem = Some(s),
                None => return Err(("Unrecognized value for semantics", value.to_vec())),
            }
        }
        SpecKind::Units => match parse_units(value) {
            Ok(u) => spec.units = Some(u),
            Err(why) => return Err(("Illegal units:", why.as_bytes().to_vec())),
        },
    }
    Ok(())
}

/// A units string of `rescale()` or `units=`, or why it is not one
/// (`pmParseUnitsStr`'s message).
fn parse_units(text: &[u8]) -> Result<Units, &'static str> {
    pcp_core::parse_units(&String::from_utf8_lossy(text)).map(|(u, _)| u).map_err(|why| why.message)
}

/// Whether a `mkconst()` of a floating point constant may have the type
/// its parameters give (none: `double`).
fn float_type_allowed(spec: &Metadata) -> bool {
    matches!(spec.ty.unwrap_or(MetricType::DOUBLE), MetricType::DOUBLE | MetricType::FLOAT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_is_relent_not_reallocated() {
        let v: Vec<Val<'static>> = Vec::with_capacity(40);
        let at = v.as_ptr() as usize;
        let text = b"x".to_vec();
        let mut w: Vec<Val<'_>> = relend(v);
        assert_eq!((w.capacity(), w.as_ptr() as usize), (40, at));
        w.push(Val::Tok(Lexer::new(&text).next_token(false)));
        let back: Vec<Val<'static>> = relend(w);
        assert_eq!((back.len(), back.capacity(), back.as_ptr() as usize), (0, 40, at));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]
        /// Parses that share their room (as a table's do) give what parses
        /// in rooms of their own give, the state carried from one to the
        /// next the same way: after failures, deep and shallow trees.
        #[test]
        fn parses_sharing_room_are_parses_on_their_own(texts in proptest::collection::vec(
            proptest::sample::select(vec![
                "a.b + 1", "rate(x) / delta(y)", "matchinst(/a", "matchinst(/a/, b)", "x[i\\]j]", "(a ? b : c)",
                "mkconst(3, type=u32, semantics=instant)", "1 +", ")", "-(-(-(-(-(-(-(-(-(-(-a))))))))))",
                "avg(z) * sum(w) - count(v) + max(u) / min(t)", "/", "a / b", "novalue(type=double)", "", "\"s\"",
            ]),
            0..12,
        )) {
            let mut shared = ParseState::default();
            let mut alone = ParseState::default();
            for text in &texts {
                let a = parse_bytes(text.as_bytes(), &mut shared);
                // (a clone has no room of its own)
                let mut own = alone.clone();
                let b = parse_bytes(text.as_bytes(), &mut own);
                alone = own;
                proptest::prop_assert_eq!(&a, &b, "{:?}", texts);
                proptest::prop_assert_eq!(&shared, &alone);
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5000))]
        /// Whatever the recogniser is sure of parses, from the state it was
        /// asked in, and leaves the state as it was.
        #[test]
        fn what_is_recognised_parses(parts in proptest::collection::vec(
            proptest::sample::select(vec![
                "a", "b.c", "7", "4294967296", ".5", "1.", " ", "+", "-", "*", "/", "?", ":", ",", "(", ")", "!",
                "<", "<=", "==", "!=", ">", ">=", "&&", "||", "=", "&", "avg(", "count(", "delta(", "max(", "min(",
                "sum(", "rate(", "instant(", "scalar(", "defined(", "anon(", "mkconst(", "rescale(", "matchinst(",
                "novalue(", "type", "units", "\"s\"", "[i]", "/p/", "PM_TYPE_32", "u32", "meta", "x[", "\0",
                "\"Mbyte\"", "\"count / sec\"", "=", "type=", "semantics=", "units=", "meta=", "double", "float",
                "counter", "/[/", "/a\\/b/", "[a\\]", "\\", "1.5", "\u{e9}", "\u{ff}",
            ]),
            0..20,
        ), open: bool) {
            let text: Vec<u8> = parts.concat().into_bytes();
            let mut state = ParseState::default();
            if open {
                let _ = parse_bytes(b"matchinst(", &mut state);
            }
            let before = state.clone();
            let sure = recognises(&text, &mut state);
            proptest::prop_assert_eq!(&state, &before);
            let parsed = parse_bytes(&text, &mut state);
            if sure {
                proptest::prop_assert!(parsed.is_ok(), "{:?}: {:?}", String::from_utf8_lossy(&text), parsed);
                proptest::prop_assert_eq!(&state, &before);
            }
        }
    }

    /// The recogniser is sure of the common forms, and leaves the rest to
    /// the parser.
    #[test]
    fn recognised_and_left_to_the_parser() {
        let sure = |t: &str| recognises(t.as_bytes(), &mut ParseState::default());
        for t in [
            "rate(kernel.all.cpu.user)",
            "delta(disk.dev.read_bytes) / delta(disk.dev.read)",
            "disk.dev.read > 0 ? disk.dev.read : 0 * disk.dev.read",
            "100 * mem.util.used / mem.physmem",
            "kernel.all.load > 0 && mem.util.used > 0 ? kernel.all.load : -kernel.all.load",
            "!(disk.dev.read == 0) || kernel.all.cpu.user < 0",
            "(max(disk.dev.read) - min(disk.dev.read)) / count(disk.dev.read)",
            "defined(a) ? scalar(b) + avg(c) + sum(d) : instant(e) - 1.5",
            "a ? b : c ? d : e",
            "matchinst(/^eth/, disk.dev.read) / 2",
            "matchinst(!/a\\/b/, x) + matchinst(/c/, y)",
            "rescale(mem.util.used, \"Mbyte\")",
            "mkconst(0, type=u32, semantics=instant)",
            "mkconst(1.5, type=\"float\", units=\"millisec / count\")",
            "a ? novalue(type=double, semantics=counter) : b",
            "x[i] + (y)[a\\]b]",
        ] {
            assert!(sure(t), "{t}");
        }
        for t in [
            "matchinst(/a[/, x)",
            "matchinst(/a/ x)",
            "rescale(x, \"furlongs\")",
            "mkconst(1.5, type=u32)",
            "mkconst(1, type=bogus)",
            "novalue(semantics=sometimes)",
            "a ? novalue() : novalue()",
            "x[caf\u{e9}]",
            "a +",
            "rate (x)",
            "units",
            "",
        ] {
            assert!(!sure(t), "{t}");
        }
        let mut open = ParseState::default();
        assert!(parse_bytes(b"matchinst(", &mut open).is_err());
        assert!(!recognises(b"a", &mut open), "a pattern may start the next text");
    }

    /// libpcp's parser stack holds 9999 states: 9997 minus signs and a
    /// name fit, one more does not (the error points at the token that
    /// would not fit).
    /// Found by fuzzing: printed unary operators must not capture what
    /// follows them when the text is parsed again.
    #[test]
    fn printed_unary_operators_parse_back() {
        for text in ["!a - -b", "-a * b", "(!(!2)) - --!1", "!a > b || c"] {
            let e = parse(text).expect("parses");
            let again = parse(&e.to_string()).expect("parses again");
            assert_eq!(again, e, "{text} printed as {e}");
        }
    }

    #[test]
    fn nesting_stops_where_yaccs_stack_does() {
        let deep = |n: usize, tail: &str| [&"-".repeat(n), tail].concat();
        let e = parse(&deep(9997, "a+b")).expect("fits");
        // deep trees print, copy, compare and drop without exhausting a
        // thread's stack
        assert_eq!(e.to_string().len(), 9997 * 5 + 7);
        assert_eq!(e.clone(), e);
        // as do long sums (as deep as they are long)
        let sum = parse(&vec!["a"; 200_000].join("+")).expect("parses");
        assert_eq!(sum.nodes().len(), 399_999);
        assert!(sum.to_string().starts_with(&"(".repeat(1000)));
        let sure = |t: &str| recognises(t.as_bytes(), &mut ParseState::default());
        assert!(sure(&deep(9997, "a+b")));
        assert!(!sure(&deep(9998, "a")));
        let err = parse(&deep(9998, "a")).expect_err("too deep");
        assert_eq!((err.offset, err.message), (9998, None));
        assert_eq!(parse(&deep(9999, "a")).expect_err("too deep").offset, 9998);
    }
}
