//! Builds the parser's tables from `grammar.rs` (test builds only; the
//! result is committed as `tables.rs`, and a test checks it is current).
//!
//! The construction is LALR(1) with the conventions of yacc (as bison
//! implements them), because the language's error diagnostics depend on
//! them: the LR(0) automaton with LALR(1) lookaheads; shift/reduce
//! conflicts settled by precedence and associativity; in every state that
//! needs a lookahead the most frequent reduction becomes the default for
//! any token without an explicit action (the earliest rule on ties), except
//! in states that can shift `error`; and a state with a single reduction
//! and no shift reduces without reading a lookahead at all.

use crate::grammar::{rule_precedence, token_precedence, Assoc, Nt, Sym, Tok, NNTERMS, NTOKENS, RULES};
use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;

type Item = (usize, usize); // (rule, dot)
type Set = u64; // terminals as bits

const _: () = assert!(NTOKENS <= 64);

fn bit(t: Tok) -> Set {
    1u64 << (t as u32)
}

fn next_sym(item: Item) -> Option<Sym> {
    RULES[item.0].rhs.get(item.1).copied()
}

struct First {
    first: [Set; NNTERMS],
    nullable: [bool; NNTERMS],
}

impl First {
    fn new() -> First {
        let mut f = First { first: [0; NNTERMS], nullable: [false; NNTERMS] };
        loop {
            let mut changed = false;
            for rule in RULES {
                let lhs = rule.lhs as usize;
                let (set, nullable) = f.of(rule.rhs);
                if f.first[lhs] | set != f.first[lhs] {
                    f.first[lhs] |= set;
                    changed = true;
                }
                if nullable && !f.nullable[lhs] {
                    f.nullable[lhs] = true;
                    changed = true;
                }
            }
            if !changed {
                return f;
            }
        }
    }

    /// FIRST of a symbol string, and whether it derives the empty string.
    fn of(&self, syms: &[Sym]) -> (Set, bool) {
        let mut set = 0;
        for s in syms {
            match *s {
                Sym::T(t) => return (set | bit(t), false),
                Sym::N(n) => {
                    set |= self.first[n as usize];
                    if !self.nullable[n as usize] {
                        return (set, false);
                    }
                }
            }
        }
        (set, true)
    }
}

fn closure0(kernel: &[Item]) -> Vec<Item> {
    let mut items: Vec<Item> = kernel.to_vec();
    let mut i = 0;
    while i < items.len() {
        if let Some(Sym::N(n)) = next_sym(items[i]) {
            for (r, rule) in RULES.iter().enumerate() {
                if rule.lhs == n && !items.contains(&(r, 0)) {
                    items.push((r, 0));
                }
            }
        }
        i += 1;
    }
    items
}

/// One state of the finished automaton.
pub struct BuiltState {
    /// Explicit actions: token, then shift target (>0) or reduced rule (<0).
    pub actions: Vec<(Tok, i32)>,
    /// Default reduction: rule number + 1, or 0 for "error".
    pub default: usize,
    /// Gotos on nonterminals.
    pub gotos: Vec<(Nt, usize)>,
    /// The state's kernel, for the generated file's comments.
    pub kernel: Vec<Item>,
}

/// Builds the automaton. Panics on an unresolved conflict (the grammar,
/// like libpcp's, must have none).
pub fn build() -> Vec<BuiltState> {
    // LR(0) states: kernels, discovered breadth first.
    let mut kernels: Vec<Vec<Item>> = vec![vec![(0, 0)]];
    let mut index: BTreeMap<Vec<Item>, usize> = BTreeMap::new();
    index.insert(kernels[0].clone(), 0);
    let mut trans: Vec<Vec<(Sym, usize)>> = Vec::new();
    let mut queue = VecDeque::from([0usize]);
    while let Some(s) = queue.pop_front() {
        let items = closure0(&kernels[s]);
        // symbols in order of first appearance, grouped by symbol
        let mut by_sym: Vec<(Sym, Vec<Item>)> = Vec::new();
        for &it in &items {
            if let Some(x) = next_sym(it) {
                match by_sym.iter_mut().find(|(y, _)| *y == x) {
                    Some((_, v)) => v.push((it.0, it.1 + 1)),
                    None => by_sym.push((x, vec![(it.0, it.1 + 1)])),
                }
            }
        }
        let mut out = Vec::new();
        for (x, mut k) in by_sym {
            k.sort();
            let target = match index.get(&k) {
                Some(&t) => t,
                None => {
                    kernels.push(k.clone());
                    index.insert(k, kernels.len() - 1);
                    queue.push_back(kernels.len() - 1);
                    kernels.len() - 1
                }
            };
            out.push((x, target));
        }
        if trans.len() <= s {
            trans.resize_with(s + 1, Vec::new);
        }
        trans[s] = out;
    }
    trans.resize_with(kernels.len(), Vec::new);
    let n = kernels.len();

    // LALR(1) lookaheads of kernel items, propagated to a fixpoint.
    let first = First::new();
    let mut la: Vec<Vec<Set>> = kernels.iter().map(|k| vec![0; k.len()]).collect();
    let closure1 = |s: usize, la: &Vec<Vec<Set>>| -> Vec<(Item, Set)> {
        let mut items: Vec<(Item, Set)> = kernels[s].iter().copied().zip(la[s].iter().copied()).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for i in 0..items.len() {
                let ((r, d), l) = items[i];
                if let Some(Sym::N(b)) = next_sym((r, d)) {
                    let (f, nullable) = first.of(&RULES[r].rhs[d + 1..]);
                    let new = f | if nullable { l } else { 0 };
                    for (rb, rule) in RULES.iter().enumerate() {
                        if rule.lhs != b {
                            continue;
                        }
                        match items.iter_mut().find(|(it, _)| *it == (rb, 0)) {
                            Some((_, set)) => {
                                if *set | new != *set {
                                    *set |= new;
                                    changed = true;
                                }
                            }
                            None => {
                                items.push(((rb, 0), new));
                                changed = true;
                            }
                        }
                    }
                }
            }
        }
        items
    };
    loop {
        let mut changed = false;
        for (s, out) in trans.iter().enumerate() {
            for ((r, d), l) in closure1(s, &la) {
                let Some(x) = next_sym((r, d)) else { continue };
                let Some(&(_, t)) = out.iter().find(|(y, _)| *y == x) else { continue };
                let Some(k) = kernels[t].iter().position(|&it| it == (r, d + 1)) else { continue };
                if la[t][k] | l != la[t][k] {
                    la[t][k] |= l;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }

    let mut states = Vec::with_capacity(n);
    #[allow(clippy::needless_range_loop)] // s indexes several tables
    for s in 0..n {
        let items = closure1(s, &la);
        // reductions in rule order, with their lookaheads
        let mut reds: Vec<(usize, Set)> =
            items.iter().filter(|((r, d), _)| *d == RULES[*r].rhs.len()).map(|((r, _), l)| (*r, *l)).collect();
        reds.sort();
        let shifts: Vec<(Tok, usize)> = trans[s]
            .iter()
            .filter_map(|&(x, t)| match x {
                Sym::T(tok) => Some((tok, t)),
                Sym::N(_) => None,
            })
            .collect();
        let gotos: Vec<(Nt, usize)> = trans[s]
            .iter()
            .filter_map(|&(x, t)| match x {
                Sym::N(nt) => Some((nt, t)),
                Sym::T(_) => None,
            })
            .collect();
        let consistent = !(reds.len() > 1 || (reds.len() == 1 && !shifts.is_empty()));

        // precedence settles shift/reduce conflicts
        let mut shift_set: Set = shifts.iter().fold(0, |a, (t, _)| a | bit(*t));
        if !consistent {
            for (r, l) in reds.iter_mut() {
                let Some((rprec, _)) = rule_precedence(&RULES[*r]) else { continue };
                for t in Tok::ALL {
                    if *l & bit(t) == 0 || shift_set & bit(t) == 0 {
                        continue;
                    }
                    let Some((tprec, Assoc::Left)) = token_precedence(t) else { continue };
                    if tprec > rprec {
                        *l &= !bit(t); // shift
                    } else {
                        shift_set &= !bit(t); // reduce (lower, or equal and left)
                    }
                }
            }
        }
        // anything left over is a conflict the grammar must not have
        let mut seen = shift_set;
        for (r, l) in &reds {
            if !consistent {
                assert!(seen & l == 0, "unresolved conflict in state {s} on rule {r}");
                seen |= l;
            }
        }

        // the action row
        let mut row: [i32; NTOKENS] = [0; NTOKENS];
        if !consistent {
            for (r, l) in reds.iter().rev() {
                for t in Tok::ALL {
                    if l & bit(t) != 0 {
                        row[t as usize] = -(*r as i32);
                    }
                }
            }
        }
        let mut no_default = false;
        for (t, target) in &shifts {
            if shift_set & bit(*t) != 0 {
                row[*t as usize] = *target as i32;
            }
            if *t == Tok::Error {
                no_default = true;
            }
        }
        let mut default = 0;
        if !reds.is_empty() && !no_default {
            if consistent {
                default = reds[0].0 + 1;
            } else {
                let mut max = 0;
                for (r, _) in &reds {
                    let count = row.iter().filter(|&&a| a == -(*r as i32)).count();
                    if count > max {
                        max = count;
                        default = r + 1;
                    }
                }
                if max > 0 {
                    for a in row.iter_mut() {
                        if *a == -(default as i32 - 1) {
                            *a = 0;
                        }
                    }
                }
            }
        }
        let actions = Tok::ALL.iter().filter(|t| row[**t as usize] != 0).map(|t| (*t, row[*t as usize])).collect();
        states.push(BuiltState { actions, default, gotos, kernel: kernels[s].clone() });
    }
    states
}

fn sym_name(s: Sym) -> String {
    match s {
        Sym::T(t) => format!("{t:?}"),
        Sym::N(n) => format!("{n:?}").to_lowercase(),
    }
}

/// The text of `tables.rs`.
pub fn render(states: &[BuiltState]) -> String {
    let mut o = String::new();
    o.push_str(
        "// @generated by the `tables_are_current` test of pcp-derived from src/grammar.rs\n\
         // (PCP_RS_REGEN=1 cargo test -p pcp-derived --lib tables_are_current). Do not edit.\n\
         //\n\
         // One row per parser state: the explicit actions (shift to a state when\n\
         // positive, reduce by a rule when negative), the default reduction (rule + 1,\n\
         // 0 for a syntax error) and the gotos. A state without explicit actions\n\
         // never reads a lookahead.\n\n\
         use crate::grammar::{Nt, Tok};\n\n\
         /// One parser state.\n\
         pub(crate) struct State {\n    \
         pub actions: &'static [(Tok, i16)],\n    \
         pub default: u16,\n    \
         pub gotos: &'static [(Nt, u16)],\n\
         }\n\n",
    );
    let _ = writeln!(o, "pub(crate) static STATES: [State; {}] = [", states.len());
    for (i, st) in states.iter().enumerate() {
        let _ = write!(o, "    // {i}:");
        for &(r, d) in &st.kernel {
            let rule = &RULES[r];
            let _ = write!(o, " [{}:", sym_name(Sym::N(rule.lhs)));
            for (j, s) in rule.rhs.iter().enumerate() {
                if j == d {
                    o.push_str(" .");
                }
                let _ = write!(o, " {}", sym_name(*s));
            }
            if d == rule.rhs.len() {
                o.push_str(" .");
            }
            o.push(']');
        }
        o.push('\n');
        o.push_str("    State {\n        actions: &[");
        for (j, (t, a)) in st.actions.iter().enumerate() {
            if j > 0 {
                o.push_str(", ");
            }
            let _ = write!(o, "(Tok::{t:?}, {a})");
        }
        let _ = write!(o, "],\n        default: {},\n        gotos: &[", st.default);
        for (j, (nt, t)) in st.gotos.iter().enumerate() {
            if j > 0 {
                o.push_str(", ");
            }
            let _ = write!(o, "(Nt::{nt:?}, {t})");
        }
        o.push_str("],\n    },\n");
    }
    o.push_str("];\n");
    o
}

/// The grammar in yacc's notation (to cross-check the tables with bison).
#[cfg(test)]
pub fn render_yacc() -> String {
    use crate::grammar::PRECEDENCE;
    let mut o = String::from("%token");
    for t in &Tok::ALL[3..] {
        let _ = write!(o, " {t:?}");
    }
    o.push_str("\n%start defn\n");
    for (_, toks) in PRECEDENCE {
        o.push_str("%left");
        for t in *toks {
            let _ = write!(o, " {t:?}");
        }
        o.push('\n');
    }
    o.push_str("%%\n");
    for rule in RULES[1..].iter().filter(|r| !matches!(r.lhs, Nt::MidInt | Nt::MidDouble)) {
        let _ = write!(o, "{}:", sym_name(Sym::N(rule.lhs)));
        for s in rule.rhs {
            match s {
                Sym::T(Tok::Error) => o.push_str(" error"),
                Sym::N(Nt::MidInt) | Sym::N(Nt::MidDouble) => o.push_str(" {}"),
                _ => {
                    let _ = write!(o, " {}", sym_name(*s));
                }
            }
        }
        if rule.rhs.is_empty() {
            o.push_str(" %empty");
        }
        if let Some(p) = rule.prec {
            let _ = write!(o, " %prec {p:?}");
        }
        o.push_str(" ;\n");
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `tables.rs` is what the grammar gives today.
    /// Writes the grammar for bison to $PCP_RS_YACC (a cross-check by hand).
    #[test]
    fn yacc_grammar() {
        if let Some(path) = std::env::var_os("PCP_RS_YACC") {
            std::fs::write(path, render_yacc()).expect("write grammar");
        }
    }

    #[test]
    fn tables_are_current() {
        let text = render(&build());
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/tables.rs");
        if std::env::var_os("PCP_RS_REGEN").is_some() {
            std::fs::write(path, &text).expect("write tables.rs");
        }
        let current = std::fs::read_to_string(path).expect("read tables.rs");
        assert!(current == text, "src/tables.rs is stale: rerun with PCP_RS_REGEN=1");
    }
}
