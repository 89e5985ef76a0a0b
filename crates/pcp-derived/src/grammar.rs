//! The grammar of the derived-metric language as data: terminals, the
//! nonterminals, and the rules in the order libpcp's parser declares them
//! (order decides which reduction a state falls back to), each with its
//! precedence and what reducing it does.
//!
//! The parser is an LALR(1) automaton built from these rules with yacc's
//! conventions (see `lalr.rs`, which writes `tables.rs`), and driven with
//! yacc's error recovery. That is what makes error positions and messages
//! those of libpcp: many diagnostics come from "error" rules that fire
//! only after the automaton has unwound to a state able to shift `error`.
//!
//! The language is libpcp 6.0.3's, plus what the current manual page
//! describes and 6.0.3 lacks: `novalue()` as an operand of `?:`, a `meta=`
//! parameter, and any expression as the operand of `delta()`, `rate()`
//! and `instant()`.

/// Declares the terminals: each with its doc, the name libpcp's lexer
/// trace gives it, and for function names and keywords the word the lexer
/// turns into it.
macro_rules! tokens {
    ($($(#[doc = $doc:literal])* $name:ident $trace:literal $($kind:ident $word:literal)?;)*) => {
        /// Terminal symbols (tokens). `End` and `Error` are yacc's own.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Tok {
            $($(#[doc = $doc])* $name,)*
        }

        /// Number of terminals.
        pub const NTOKENS: usize = [$(Tok::$name),*].len();

        impl Tok {
            /// All terminals, by number.
            pub const ALL: [Tok; NTOKENS] = [$(Tok::$name),*];

            /// The name libpcp's lexer trace gives the token (`L_` + this).
            pub fn trace_name(self) -> &'static str {
                match self {
                    $(Tok::$name => $trace,)*
                }
            }

            /// The word for this token: a function name (a token only when
            /// `(` follows at once) or a keyword (always a token).
            pub const fn word(self) -> Option<Word> {
                match self {
                    $($(Tok::$name => Some(Word::$kind($word)),)?)*
                    _ => None,
                }
            }
        }
    };
}

/// The word the lexer turns into a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Word {
    /// A function: the token only when `(` follows at once.
    Function(&'static str),
    /// A keyword: the token wherever it appears.
    Keyword(&'static str),
}

tokens! {
    /// End of input as yacc knows it; the lexer never returns it.
    End "EOF";
    /// yacc's `error` pseudo-token.
    Error "error";
    /// A character the lexer refused, or a bad constant, string, name...
    LexError "ERROR";
    /// End of the expression text.
    Eos "EOS";
    /// `+`
    Plus "PLUS";
    /// `-`
    Minus "MINUS";
    /// `*`
    Star "STAR";
    /// `/`
    Slash "SLASH";
    /// `?`
    Quest "QUEST";
    /// `:`
    Colon "COLON";
    /// `(`
    LParen "LPAREN";
    /// `)`
    RParen "RPAREN";
    /// `avg(`
    Avg "AVG" Function "avg";
    /// `count(`
    Count "COUNT" Function "count";
    /// `delta(`
    Delta "DELTA" Function "delta";
    /// `max(`
    Max "MAX" Function "max";
    /// `min(`
    Min "MIN" Function "min";
    /// `sum(`
    Sum "SUM" Function "sum";
    /// `anon(`
    Anon "ANON" Function "anon";
    /// `rate(`
    Rate "RATE" Function "rate";
    /// `instant(`
    Instant "INSTANT" Function "instant";
    /// `<`
    Lt "LT";
    /// `<=`
    Leq "LEQ";
    /// `==`
    Eq "EQ";
    /// `>=`
    Geq "GEQ";
    /// `>`
    Gt "GT";
    /// `!=`
    Neq "NEQ";
    /// `&&`
    And "AND";
    /// `||`
    Or "OR";
    /// `!`
    Not "NOT";
    /// `mkconst(`
    MkConst "MKCONST" Function "mkconst";
    /// `rescale(`
    Rescale "RESCALE" Function "rescale";
    /// `defined(`
    Defined "DEFINED" Function "defined";
    /// `matchinst(`
    MatchInst "FILTERINST" Function "matchinst";
    /// `scalar(`
    Scalar "SCALAR" Function "scalar";
    /// `novalue(`
    NoValue "NOVALUE" Function "novalue";
    /// the keyword `type`
    Type "TYPE" Keyword "type";
    /// the keyword `semantics`
    Semantics "SEMANTICS" Keyword "semantics";
    /// the keyword `units`
    Units "UNITS" Keyword "units";
    /// the keyword `meta`
    Meta "META" Keyword "meta";
    /// `=`
    Assign "ASSIGN";
    /// `,`
    Comma "COMMA";
    /// digits
    Integer "INTEGER";
    /// digits with a `.`
    Double "DOUBLE";
    /// a metric name (or other word)
    Name "NAME";
    /// `"text"`
    String "STRING";
    /// `[instance]`
    InstName "INSTNAME";
    /// `/regex/` inside `matchinst(`
    Pattern "PATTERN";
}

/// Nonterminal symbols.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Nt {
    /// yacc's augmented start symbol.
    Accept = 0,
    /// `defn`: a whole definition.
    Defn,
    /// `expr`
    Expr,
    /// `novalue`
    NoValue,
    /// `regexpr`: a `matchinst` filter.
    Regexpr,
    /// `opt_bang`
    OptBang,
    /// `num`: a constant.
    Num,
    /// The empty rule standing for the action in the middle of
    /// `mkconst(INTEGER, ...)`.
    MidInt,
    /// The same for `mkconst(DOUBLE, ...)`.
    MidDouble,
    /// `speclist`
    Speclist,
    /// `spec`: one `tag=value`.
    Spec,
    /// `specval`
    Specval,
    /// `func`: a function call.
    Func,
}

/// Number of nonterminals.
#[cfg_attr(not(test), allow(dead_code))] // for the table generator (test builds)
pub const NNTERMS: usize = Nt::Func as usize + 1;

/// A grammar symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sym {
    /// A terminal.
    T(Tok),
    /// A nonterminal.
    N(Nt),
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `<`
    Lt,
    /// `<=`
    Leq,
    /// `==`
    Eq,
    /// `>=`
    Geq,
    /// `>`
    Gt,
    /// `!=`
    Neq,
    /// `&&`
    And,
    /// `||`
    Or,
}

/// Functions taking one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Func {
    /// `avg(metric)`
    Avg,
    /// `count(metric)`
    Count,
    /// `delta(expr)`
    Delta,
    /// `max(metric)`
    Max,
    /// `min(metric)`
    Min,
    /// `sum(metric)`
    Sum,
    /// `rate(expr)`
    Rate,
    /// `instant(expr)`
    Instant,
    /// `defined(metric)`
    Defined,
    /// `scalar(expr)`
    Scalar,
}

/// The three kinds of `mkconst`/`novalue` parameter whose value is a word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecKind {
    /// `type=`
    Type,
    /// `semantics=`
    Semantics,
    /// `units=`
    Units,
}

/// What reducing a rule does (the parser's semantic actions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    /// `defn: expr EOS`: the whole expression parsed.
    Accept,
    /// An error rule: set the message (unless one is set) and unwind.
    /// The message is `phrase 'arg'`, or `phrase expected to follow arg`.
    Fail {
        /// What was expected, or `Unexpected`.
        phrase: &'static str,
        /// `phrase expected to follow arg` rather than `phrase 'arg'`.
        follow: bool,
        /// The token or construct it concerns.
        arg: &'static str,
    },
    /// `( expr )`
    Paren,
    /// `NAME [inst]`
    NameInst,
    /// `( expr ) [inst]`
    ParenInst,
    /// A rule whose value is that of its single symbol.
    Pass,
    /// `NAME`
    Name,
    /// `expr op expr`
    Binary(BinOp),
    /// `- expr`
    Neg,
    /// `! expr`
    Not,
    /// `expr ? expr : expr`
    Ternary,
    /// `expr ? novalue : expr`
    TernaryNoValueThen,
    /// `expr ? expr : novalue`
    TernaryNoValueElse,
    /// `expr ? novalue : novalue`: always an error.
    TernaryNoValueBoth,
    /// `novalue ( )`
    NoValue,
    /// `novalue ( speclist )`
    NoValueSpecs,
    /// `opt_bang PATTERN`: compile the regular expression.
    Regexpr,
    /// `opt_bang: !`
    Bang,
    /// `opt_bang:` (empty)
    NoBang,
    /// `INTEGER`
    Integer,
    /// `DOUBLE`
    Double,
    /// The mid-rule action of `mkconst(INTEGER, ...)`.
    MidInt,
    /// The mid-rule action of `mkconst(DOUBLE, ...)`.
    MidDouble,
    /// `mkconst ( INTEGER , $@ speclist )`
    MkConstInt,
    /// `mkconst ( DOUBLE , $@ speclist )`
    MkConstDouble,
    /// `speclist , spec`
    SpecMore,
    /// `spec`
    SpecOne,
    /// `type=`, `semantics=` or `units=` with its value.
    Spec(SpecKind),
    /// `meta = NAME`
    SpecMeta,
    /// `anon ( NAME )`
    Anon,
    /// `f ( NAME )`
    FuncName(Func),
    /// `f ( expr )`
    FuncExpr(Func),
    /// `rescale ( expr , STRING )`
    Rescale,
    /// `matchinst ( regexpr , expr )`
    MatchInst,
}

/// One rule: `lhs: rhs`, with an explicit precedence token if any.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    /// Left-hand side.
    pub lhs: Nt,
    /// Right-hand side.
    pub rhs: &'static [Sym],
    /// `%prec` token, if the rule names one.
    #[cfg_attr(not(test), allow(dead_code))] // for the table generator (test builds)
    pub prec: Option<Tok>,
    /// What reducing it does.
    pub act: Act,
}

/// Associativity of a precedence level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(test), allow(dead_code))] // for the table generator (test builds)
pub enum Assoc {
    /// `%left`
    Left,
}

/// Precedence levels, lowest first (all left-associative):
/// `? :`, then `&& ||`, then `!`, then the relational operators, then
/// `+ -`, then `* /`.
#[cfg_attr(not(test), allow(dead_code))] // for the table generator (test builds)
pub const PRECEDENCE: &[(Assoc, &[Tok])] = &[
    (Assoc::Left, &[Tok::Quest, Tok::Colon]),
    (Assoc::Left, &[Tok::And, Tok::Or]),
    (Assoc::Left, &[Tok::Not]),
    (Assoc::Left, &[Tok::Lt, Tok::Leq, Tok::Eq, Tok::Geq, Tok::Gt, Tok::Neq]),
    (Assoc::Left, &[Tok::Plus, Tok::Minus]),
    (Assoc::Left, &[Tok::Star, Tok::Slash]),
];

use Sym::{N, T};

const UNEXPECTED: &str = "Unexpected";
const INITIAL: &str = "Unexpected initial";
const AEXPR: &str = "Arithmetic expression";
const BEXPR: &str = "Boolean expression";
const OPERATOR: &str = "Arithmetic or relational or boolean operator";
const METRIC: &str = "Metric name";

const fn r(lhs: Nt, rhs: &'static [Sym], act: Act) -> Rule {
    Rule { lhs, rhs, prec: None, act }
}

const fn fail(phrase: &'static str, follow: bool, arg: &'static str) -> Act {
    Act::Fail { phrase, follow, arg }
}

/// The rules, rule 0 being yacc's `$accept: defn $end`.
pub const RULES: &[Rule] = &[
    r(Nt::Accept, &[N(Nt::Defn), T(Tok::End)], Act::Pass),
    // defn
    r(Nt::Defn, &[N(Nt::Expr), T(Tok::Eos)], Act::Accept),
    r(Nt::Defn, &[N(Nt::Expr), T(Tok::Plus), T(Tok::Error)], fail(UNEXPECTED, false, "+")),
    r(Nt::Defn, &[N(Nt::Expr), T(Tok::Star), T(Tok::Error)], fail(UNEXPECTED, false, "*")),
    r(Nt::Defn, &[N(Nt::Expr), T(Tok::Slash), T(Tok::Error)], fail(UNEXPECTED, false, "/")),
    r(Nt::Defn, &[N(Nt::Expr), T(Tok::LParen), T(Tok::Error)], fail(UNEXPECTED, false, "(")),
    r(Nt::Defn, &[N(Nt::Expr), T(Tok::RParen), T(Tok::Error)], fail(UNEXPECTED, false, ")")),
    r(Nt::Defn, &[N(Nt::Expr), T(Tok::Lt), T(Tok::Error)], fail(UNEXPECTED, false, "<")),
    r(Nt::Defn, &[N(Nt::Expr), T(Tok::Leq), T(Tok::Error)], fail(UNEXPECTED, false, "<=")),
    r(Nt::Defn, &[N(Nt::Expr), T(Tok::Eq), T(Tok::Error)], fail(UNEXPECTED, false, "==")),
    r(Nt::Defn, &[N(Nt::Expr), T(Tok::Geq), T(Tok::Error)], fail(UNEXPECTED, false, ">=")),
    r(Nt::Defn, &[N(Nt::Expr), T(Tok::Gt), T(Tok::Error)], fail(UNEXPECTED, false, ">")),
    r(Nt::Defn, &[N(Nt::Expr), T(Tok::Neq), T(Tok::Error)], fail(UNEXPECTED, false, "!=")),
    r(Nt::Defn, &[N(Nt::Expr), T(Tok::And), T(Tok::Error)], fail(UNEXPECTED, false, "&&")),
    r(Nt::Defn, &[N(Nt::Expr), T(Tok::Or), T(Tok::Error)], fail(UNEXPECTED, false, "||")),
    r(Nt::Defn, &[T(Tok::Plus), T(Tok::Error)], fail(INITIAL, false, "+")),
    r(Nt::Defn, &[T(Tok::Star), T(Tok::Error)], fail(INITIAL, false, "*")),
    r(Nt::Defn, &[T(Tok::Slash), T(Tok::Error)], fail(INITIAL, false, "/")),
    r(Nt::Defn, &[T(Tok::LParen), T(Tok::Error)], fail(INITIAL, false, "(")),
    r(Nt::Defn, &[T(Tok::RParen), T(Tok::Error)], fail(INITIAL, false, ")")),
    r(Nt::Defn, &[T(Tok::Lt), T(Tok::Error)], fail(INITIAL, false, "<")),
    r(Nt::Defn, &[T(Tok::Leq), T(Tok::Error)], fail(INITIAL, false, "<=")),
    r(Nt::Defn, &[T(Tok::Eq), T(Tok::Error)], fail(INITIAL, false, "==")),
    r(Nt::Defn, &[T(Tok::Geq), T(Tok::Error)], fail(INITIAL, false, ">=")),
    r(Nt::Defn, &[T(Tok::Gt), T(Tok::Error)], fail(INITIAL, false, ">")),
    r(Nt::Defn, &[T(Tok::Neq), T(Tok::Error)], fail(INITIAL, false, "!=")),
    r(Nt::Defn, &[T(Tok::And), T(Tok::Error)], fail(INITIAL, false, "&&")),
    r(Nt::Defn, &[T(Tok::Or), T(Tok::Error)], fail(INITIAL, false, "||")),
    r(Nt::Defn, &[T(Tok::Quest), T(Tok::Error)], fail(INITIAL, false, "?")),
    r(Nt::Defn, &[T(Tok::Colon), T(Tok::Error)], fail(INITIAL, false, ":")),
    // expr
    r(Nt::Expr, &[T(Tok::LParen), N(Nt::Expr), T(Tok::RParen)], Act::Paren),
    r(Nt::Expr, &[T(Tok::Name), T(Tok::InstName)], Act::NameInst),
    r(Nt::Expr, &[T(Tok::LParen), N(Nt::Expr), T(Tok::RParen), T(Tok::InstName)], Act::ParenInst),
    r(Nt::Expr, &[N(Nt::Num)], Act::Pass),
    r(Nt::Expr, &[T(Tok::Name)], Act::Name),
    r(Nt::Expr, &[N(Nt::Func)], Act::Pass),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Plus), N(Nt::Expr)], Act::Binary(BinOp::Add)),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Minus), N(Nt::Expr)], Act::Binary(BinOp::Sub)),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Star), N(Nt::Expr)], Act::Binary(BinOp::Mul)),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Slash), N(Nt::Expr)], Act::Binary(BinOp::Div)),
    Rule { lhs: Nt::Expr, rhs: &[T(Tok::Minus), N(Nt::Expr)], prec: Some(Tok::Minus), act: Act::Neg },
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Lt), N(Nt::Expr)], Act::Binary(BinOp::Lt)),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Leq), N(Nt::Expr)], Act::Binary(BinOp::Leq)),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Eq), N(Nt::Expr)], Act::Binary(BinOp::Eq)),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Geq), N(Nt::Expr)], Act::Binary(BinOp::Geq)),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Gt), N(Nt::Expr)], Act::Binary(BinOp::Gt)),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Neq), N(Nt::Expr)], Act::Binary(BinOp::Neq)),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Quest), N(Nt::Expr), T(Tok::Colon), N(Nt::Expr)], Act::Ternary),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Quest), N(Nt::NoValue), T(Tok::Colon), N(Nt::Expr)], Act::TernaryNoValueThen),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Quest), N(Nt::Expr), T(Tok::Colon), N(Nt::NoValue)], Act::TernaryNoValueElse),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Quest), N(Nt::NoValue), T(Tok::Colon), N(Nt::NoValue)], Act::TernaryNoValueBoth),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::And), N(Nt::Expr)], Act::Binary(BinOp::And)),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Or), N(Nt::Expr)], Act::Binary(BinOp::Or)),
    r(Nt::Expr, &[T(Tok::Not), N(Nt::Expr)], Act::Not),
    r(Nt::Expr, &[T(Tok::Name), T(Tok::Error)], fail(OPERATOR, true, "NAME")),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Plus), T(Tok::Error)], fail(AEXPR, true, "PLUS")),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Minus), T(Tok::Error)], fail(AEXPR, true, "MINUS")),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Star), T(Tok::Error)], fail(AEXPR, true, "STAR")),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Slash), T(Tok::Error)], fail(AEXPR, true, "SLASH")),
    r(Nt::Expr, &[T(Tok::Minus), T(Tok::Error)], fail(AEXPR, true, "NEG")),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Lt), T(Tok::Error)], fail(AEXPR, true, "LT")),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Leq), T(Tok::Error)], fail(AEXPR, true, "LEQ")),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Eq), T(Tok::Error)], fail(AEXPR, true, "EQ")),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Geq), T(Tok::Error)], fail(AEXPR, true, "GEQ")),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Gt), T(Tok::Error)], fail(AEXPR, true, "GT")),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Neq), T(Tok::Error)], fail(AEXPR, true, "NEQ")),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::And), T(Tok::Error)], fail(BEXPR, true, "AND")),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Or), T(Tok::Error)], fail(BEXPR, true, "OR")),
    r(Nt::Expr, &[T(Tok::Not), T(Tok::Error)], fail(BEXPR, true, "NOT")),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Quest), T(Tok::Error)], fail(AEXPR, true, "QUEST")),
    r(Nt::Expr, &[N(Nt::Expr), T(Tok::Quest), N(Nt::Expr), T(Tok::Colon), T(Tok::Error)], fail(AEXPR, true, "COLON")),
    // novalue
    r(Nt::NoValue, &[T(Tok::NoValue), T(Tok::LParen), T(Tok::RParen)], Act::NoValue),
    r(Nt::NoValue, &[T(Tok::NoValue), T(Tok::LParen), N(Nt::Speclist), T(Tok::RParen)], Act::NoValueSpecs),
    r(Nt::NoValue, &[T(Tok::NoValue), T(Tok::LParen), T(Tok::Error)], fail("metadata keyword", true, "novalue(")),
    // regexpr, opt_bang
    r(Nt::Regexpr, &[N(Nt::OptBang), T(Tok::Pattern)], Act::Regexpr),
    r(Nt::OptBang, &[T(Tok::Not)], Act::Bang),
    r(Nt::OptBang, &[], Act::NoBang),
    // num
    r(Nt::Num, &[T(Tok::Integer)], Act::Integer),
    r(Nt::Num, &[T(Tok::Double)], Act::Double),
    r(Nt::MidInt, &[], Act::MidInt),
    r(
        Nt::Num,
        &[
            T(Tok::MkConst),
            T(Tok::LParen),
            T(Tok::Integer),
            T(Tok::Comma),
            N(Nt::MidInt),
            N(Nt::Speclist),
            T(Tok::RParen),
        ],
        Act::MkConstInt,
    ),
    r(Nt::MidDouble, &[], Act::MidDouble),
    r(
        Nt::Num,
        &[
            T(Tok::MkConst),
            T(Tok::LParen),
            T(Tok::Double),
            T(Tok::Comma),
            N(Nt::MidDouble),
            N(Nt::Speclist),
            T(Tok::RParen),
        ],
        Act::MkConstDouble,
    ),
    // speclist, spec, specval
    r(Nt::Speclist, &[N(Nt::Speclist), T(Tok::Comma), N(Nt::Spec)], Act::SpecMore),
    r(Nt::Speclist, &[N(Nt::Spec)], Act::SpecOne),
    r(Nt::Spec, &[T(Tok::Type), T(Tok::Assign), N(Nt::Specval)], Act::Spec(SpecKind::Type)),
    r(Nt::Spec, &[T(Tok::Semantics), T(Tok::Assign), N(Nt::Specval)], Act::Spec(SpecKind::Semantics)),
    r(Nt::Spec, &[T(Tok::Units), T(Tok::Assign), N(Nt::Specval)], Act::Spec(SpecKind::Units)),
    r(Nt::Spec, &[T(Tok::Meta), T(Tok::Assign), T(Tok::Name)], Act::SpecMeta),
    r(Nt::Specval, &[T(Tok::String)], Act::Pass),
    r(Nt::Specval, &[T(Tok::Name)], Act::Pass),
    r(Nt::Specval, &[T(Tok::Integer)], Act::Pass),
    // func
    r(Nt::Func, &[T(Tok::Anon), T(Tok::LParen), T(Tok::Name), T(Tok::RParen)], Act::Anon),
    r(Nt::Func, &[T(Tok::Avg), T(Tok::LParen), T(Tok::Name), T(Tok::RParen)], Act::FuncName(Func::Avg)),
    r(Nt::Func, &[T(Tok::Count), T(Tok::LParen), T(Tok::Name), T(Tok::RParen)], Act::FuncName(Func::Count)),
    r(Nt::Func, &[T(Tok::Delta), T(Tok::LParen), N(Nt::Expr), T(Tok::RParen)], Act::FuncExpr(Func::Delta)),
    r(Nt::Func, &[T(Tok::Max), T(Tok::LParen), T(Tok::Name), T(Tok::RParen)], Act::FuncName(Func::Max)),
    r(Nt::Func, &[T(Tok::Min), T(Tok::LParen), T(Tok::Name), T(Tok::RParen)], Act::FuncName(Func::Min)),
    r(Nt::Func, &[T(Tok::Sum), T(Tok::LParen), T(Tok::Name), T(Tok::RParen)], Act::FuncName(Func::Sum)),
    r(Nt::Func, &[T(Tok::Rate), T(Tok::LParen), N(Nt::Expr), T(Tok::RParen)], Act::FuncExpr(Func::Rate)),
    r(Nt::Func, &[T(Tok::Instant), T(Tok::LParen), N(Nt::Expr), T(Tok::RParen)], Act::FuncExpr(Func::Instant)),
    r(Nt::Func, &[T(Tok::Defined), T(Tok::LParen), T(Tok::Name), T(Tok::RParen)], Act::FuncName(Func::Defined)),
    r(
        Nt::Func,
        &[T(Tok::Rescale), T(Tok::LParen), N(Nt::Expr), T(Tok::Comma), T(Tok::String), T(Tok::RParen)],
        Act::Rescale,
    ),
    r(
        Nt::Func,
        &[T(Tok::MatchInst), T(Tok::LParen), N(Nt::Regexpr), T(Tok::Comma), N(Nt::Expr), T(Tok::RParen)],
        Act::MatchInst,
    ),
    r(Nt::Func, &[T(Tok::Scalar), T(Tok::LParen), N(Nt::Expr), T(Tok::RParen)], Act::FuncExpr(Func::Scalar)),
    r(Nt::Func, &[T(Tok::Anon), T(Tok::LParen), T(Tok::Error)], fail(METRIC, true, "anon(")),
    r(Nt::Func, &[T(Tok::Avg), T(Tok::LParen), T(Tok::Error)], fail(METRIC, true, "avg(")),
    r(Nt::Func, &[T(Tok::Count), T(Tok::LParen), T(Tok::Error)], fail(METRIC, true, "count(")),
    r(Nt::Func, &[T(Tok::Delta), T(Tok::LParen), T(Tok::Error)], fail("<expr>", true, "delta(")),
    r(Nt::Func, &[T(Tok::Max), T(Tok::LParen), T(Tok::Error)], fail(METRIC, true, "max(")),
    r(Nt::Func, &[T(Tok::Min), T(Tok::LParen), T(Tok::Error)], fail(METRIC, true, "min(")),
    r(Nt::Func, &[T(Tok::Sum), T(Tok::LParen), T(Tok::Error)], fail(METRIC, true, "sum(")),
    r(Nt::Func, &[T(Tok::Rate), T(Tok::LParen), T(Tok::Error)], fail("<expr>", true, "rate(")),
    r(Nt::Func, &[T(Tok::Instant), T(Tok::LParen), T(Tok::Error)], fail(METRIC, true, "instant(")),
    r(Nt::Func, &[T(Tok::Rescale), T(Tok::LParen), T(Tok::Error)], fail(OPERATOR, true, "rescale(")),
    r(
        Nt::Func,
        &[T(Tok::Rescale), T(Tok::LParen), N(Nt::Expr), T(Tok::Comma), T(Tok::Error)],
        fail("Units string", true, "rescale(<expr>,"),
    ),
    r(Nt::Func, &[T(Tok::MatchInst), T(Tok::LParen), T(Tok::Error)], fail("<filter>, <expr>)", true, "matchinst(")),
    r(
        Nt::Func,
        &[T(Tok::MatchInst), T(Tok::LParen), N(Nt::Regexpr), T(Tok::Error)],
        fail(", <expr>)", true, "matchinst(<filter>"),
    ),
    r(
        Nt::Func,
        &[T(Tok::MatchInst), T(Tok::LParen), N(Nt::Regexpr), T(Tok::Comma), T(Tok::Error)],
        fail("<expr>)", true, "matchinst(<filter>,"),
    ),
    r(Nt::Func, &[T(Tok::Scalar), T(Tok::LParen), T(Tok::Error)], fail("<expr>", true, "scalar(")),
];

/// The precedence level (1 = lowest) and associativity of a token.
#[cfg_attr(not(test), allow(dead_code))] // for the table generator (test builds)
pub fn token_precedence(t: Tok) -> Option<(usize, Assoc)> {
    PRECEDENCE.iter().enumerate().find(|(_, (_, toks))| toks.contains(&t)).map(|(i, (a, _))| (i + 1, *a))
}

/// A rule's precedence: its `%prec` token's, else that of the last
/// terminal in its right-hand side (none if that terminal has none).
#[cfg_attr(not(test), allow(dead_code))] // for the table generator (test builds)
pub fn rule_precedence(rule: &Rule) -> Option<(usize, Assoc)> {
    let tok = rule.prec.or_else(|| {
        rule.rhs.iter().rev().find_map(|s| match s {
            Sym::T(t) => Some(*t),
            Sym::N(_) => None,
        })
    })?;
    token_precedence(tok)
}
