//! Instance selection: `x[name]` and `matchinst()` patterns, and the
//! matches an evaluator remembers between fetches.

use super::{Evaluator, Instances};
use pcp_core::debug::DebugFlag;
use pcp_core::{PmError, Timestamp};
use std::collections::HashMap;

/// How many `matchinst()` evaluations between cullings of the instance
/// matches remembered (libpcp's `REGEX_INST_COMPACT`).
pub(super) const REGEX_COMPACT: u32 = 100;

/// `matchinst()` patterns compiled (`None`: not compilable), by pattern.
#[derive(Clone, Debug, Default)]
pub struct Patterns(HashMap<Vec<u8>, Option<regex::bytes::Regex>>);

impl Patterns {
    /// `pattern` compiled, by [`compile_ere`] the first time it is asked for.
    pub(super) fn compiled(&mut self, pattern: &[u8]) -> Option<regex::bytes::Regex> {
        if let Some(re) = self.0.get(pattern) {
            return re.clone();
        }
        let re = compile_ere(pattern);
        self.0.insert(pattern.to_vec(), re.clone());
        re
    }
}

/// What a `matchinst()` node has decided, instance by instance.
#[derive(Clone, Debug, Default)]
pub(super) struct Matches {
    /// Instance -> (matches, times seen since culling).
    seen: HashMap<i32, (bool, u32)>,
    /// Evaluations since culling.
    pub(super) used: u32,
    /// Whether an instance has ever been seen (libpcp's table of them
    /// exists from then on).
    grown: bool,
}

impl Matches {
    /// How many instances are remembered and how many of them match,
    /// once any has been.
    pub(super) fn seen_counts(&self) -> Option<(usize, usize)> {
        self.grown.then(|| (self.seen.len(), self.seen.values().filter(|m| m.0).count()))
    }
}

/// A POSIX extended regular expression (as glibc's `regcomp` with
/// `REG_EXTENDED` takes it, C locale), compiled by the `regex` crate;
/// `None` for what that cannot express (see [`crate::regex::translate`])
/// or a pattern `regcomp` fails.
pub(super) fn compile_ere(pattern: &[u8]) -> Option<regex::bytes::Regex> {
    let translated = crate::regex::translate(pattern).ok()??;
    regex::bytes::Regex::new(&translated).ok()
}

impl Evaluator {
    /// `x[name]`: node `x`'s value for the instance named `name`.
    pub(super) fn filter_by_name(
        &mut self,
        i: usize,
        name: &[u8],
        x: usize,
        stamp: Timestamp,
        names: &mut dyn Instances,
    ) -> Result<(), PmError> {
        let indom = self.desc_of(x).indom;
        self.state[i].last_stamp = self.state[i].stamp;
        self.state[i].stamp = stamp;
        let mut out = self.out_buf(i, 1);
        if !self.vals(x).is_empty() {
            if self.state[i].inst.is_none() {
                match names.inst_id(indom, name, stamp) {
                    Ok(inst) => self.state[i].inst = Some(inst),
                    Err(e) => {
                        if self.trace.on(DebugFlag::Derive) && self.trace.on(DebugFlag::Appl2) {
                            let mut t = Vec::new();
                            crate::trace::write_lookup_failed(&mut t, self, i, indom, name, e);
                            self.trace.write_bytes(&t);
                        }
                    }
                }
            }
            if let Some(inst) = self.state[i].inst {
                if let Some(v) = self.vals(x).iter().find(|(j, _)| *j == inst) {
                    out.push(v.clone());
                }
            }
        }
        // (libpcp keeps no history for this node, so that
        // delta(x[name]) never has a value; this does)
        self.set(i, Ok(out))
    }

    /// `matchinst([!]pattern, x)`: node `x`'s values for the instances
    /// whose names (up to the first space) the pattern matches, or with
    /// `invert` does not.
    pub(super) fn filter_by_pattern(
        &mut self,
        i: usize,
        invert: bool,
        x: usize,
        stamp: Timestamp,
        names: &mut dyn Instances,
    ) -> Result<(), PmError> {
        let indom = self.desc_of(x).indom;
        self.state[i].last_stamp = self.state[i].stamp;
        self.state[i].stamp = stamp;
        let mut out = self.out_buf(i, 0);
        let mut matches = self.state[i].matches.take().unwrap_or_default();
        for k in 0..self.vals(x).len() {
            let (inst, value) = self.vals(x)[k].clone();
            let known = matches.seen.get(&inst).map(|m| m.0);
            let matched = match known {
                Some(m) => m,
                None => {
                    let m = match names.inst_name(indom, inst, stamp) {
                        Some(full) => {
                            let name = full.split(|&b| b == b' ').next().unwrap_or(&[]);
                            let re = self.regex.iter().find(|r| r.0 == i).and_then(|r| r.1.as_ref());
                            let hit = re.is_some_and(|re| re.is_match(name));
                            hit != invert
                        }
                        None => false,
                    };
                    matches.seen.insert(inst, (m, 0));
                    matches.grown = true;
                    m
                }
            };
            if let Some(e) = matches.seen.get_mut(&inst) {
                e.1 += 1;
            }
            if matched {
                out.push((inst, value));
            }
        }
        matches.used += 1;
        if matches.used >= REGEX_COMPACT {
            let scanned = matches.seen.len();
            matches.seen.retain(|_, m| m.1 >= REGEX_COMPACT / 2);
            if self.trace.on(DebugFlag::Derive) && self.trace.on(DebugFlag::Appl2) {
                let mut t = Vec::new();
                crate::trace::write_inst_gc(&mut t, self, i, scanned, scanned - matches.seen.len());
                self.trace.write_bytes(&t);
            }
            matches.seen.values_mut().for_each(|m| m.1 = 0);
            matches.used = 0;
        }
        self.state[i].matches = Some(matches);
        self.set(i, Ok(out))
    }
}
