//! Whole fetches: the metrics a fetch must ask for (`__dmprefetch`) and
//! the derived metrics' values put into its result (`__dmpostfetch`).

use super::{Evaluator, Instances};
use pcp_core::debug::DebugFlag;
use pcp_core::{FetchResult, PmError, PmId, ValueSet};
use std::borrow::{Borrow, BorrowMut};
use std::collections::HashMap;

/// The real metrics a fetch of `requested` must ask for: `requested`
/// itself, then each operand of a derived metric in it (one of
/// `evaluators`) not already in the list (libpcp's `__dmprefetch`). The
/// derived metrics' own PMIDs stay in the list.
#[doc(alias = "__dmprefetch")]
pub fn prefetch<E: Borrow<Evaluator>>(requested: &[PmId], evaluators: &[E]) -> Vec<PmId> {
    let mut list = Vec::new();
    prefetch_into(requested, evaluators, &mut list);
    list
}

/// [`prefetch`] into `list` (emptied first): for a caller that keeps the
/// list's room from one fetch to the next.
pub fn prefetch_into<E: Borrow<Evaluator>>(requested: &[PmId], evaluators: &[E], list: &mut Vec<PmId>) {
    let operands: usize = evaluators.iter().map(|e| e.borrow().operands().len()).sum();
    list.clear();
    list.reserve(requested.len() + operands);
    list.extend_from_slice(requested);
    // (what is listed, by PMID, when looking along the list would be slow)
    let mut listed: Option<std::collections::HashSet<PmId>> =
        (requested.len() > 16).then(|| requested.iter().copied().collect());
    let by_pmid = EvaluatorIndex::new(evaluators);
    for pmid in requested {
        if let Some(ev) = by_pmid.find(evaluators, *pmid).map(|i| evaluators[i].borrow()) {
            for &op in ev.operands() {
                let new = match &mut listed {
                    Some(set) => set.insert(op),
                    None => !list.contains(&op),
                };
                if new {
                    list.push(op);
                }
            }
        }
    }
}

/// Where each evaluator of a list is, by its metric's PMID (the first, if
/// there are several); `None` while the list is short enough to look
/// along.
struct EvaluatorIndex(Option<HashMap<PmId, usize>>);

impl EvaluatorIndex {
    fn new<E: Borrow<Evaluator>>(evaluators: &[E]) -> EvaluatorIndex {
        EvaluatorIndex((evaluators.len() > 16).then(|| {
            let mut m = HashMap::with_capacity(evaluators.len());
            for (i, e) in evaluators.iter().enumerate() {
                m.entry(e.borrow().pmid()).or_insert(i);
            }
            m
        }))
    }

    fn find<E: Borrow<Evaluator>>(&self, evaluators: &[E], pmid: PmId) -> Option<usize> {
        match &self.0 {
            Some(m) => m.get(&pmid).copied(),
            None => evaluators.iter().position(|e| e.borrow().pmid() == pmid),
        }
    }
}

/// The result a caller sees: the first `requested` value sets of `result`
/// (a fetch of [`prefetch`]'s list), each derived metric's replaced by its
/// evaluation (libpcp's `__dmpostfetch`). A derived metric with no
/// evaluator (it could not be bound) gets `PM_ERR_PMID`; one asked for
/// twice is evaluated twice, as libpcp does. The evaluators may be held
/// in boxes (or anything else that lends one).
#[doc(alias = "__dmpostfetch")]
pub fn postfetch<E: BorrowMut<Evaluator>>(
    result: &FetchResult,
    requested: usize,
    evaluators: &mut [E],
    names: &mut dyn Instances,
) -> FetchResult {
    let mut out =
        FetchResult { timestamp: result.timestamp, sets: Vec::with_capacity(requested.min(result.sets.len())) };
    postfetch_into(result, requested, evaluators, names, &mut out);
    out
}

/// [`postfetch`] into `out`, whose value lists are filled again.
pub fn postfetch_into<E: BorrowMut<Evaluator>>(
    result: &FetchResult,
    requested: usize,
    evaluators: &mut [E],
    names: &mut dyn Instances,
    out: &mut FetchResult,
) {
    let n = requested.min(result.sets.len());
    out.sets.truncate(n);
    out.timestamp = result.timestamp;
    let by_pmid = EvaluatorIndex::new(evaluators);
    for (k, set) in result.sets.iter().take(n).enumerate() {
        // the list the set in this place held
        let mut room = match out.sets.get_mut(k).map(|old| std::mem::replace(&mut old.values, Ok(Vec::new()))) {
            Some(Ok(v)) => v,
            _ => Vec::new(),
        };
        let made = if !crate::check::is_derived(set.pmid) {
            let values = set.values.as_ref().map_err(|e| *e).map(|v| {
                room.clone_from(v);
                room
            });
            ValueSet { pmid: set.pmid, values }
        } else {
            match by_pmid.find(evaluators, set.pmid).and_then(|i| evaluators.get_mut(i)) {
                Some(ev) => {
                    let ev = ev.borrow_mut();
                    let made = ev.evaluate_into(result, names, room);
                    if ev.trace.on(DebugFlag::Derive) && ev.trace.on(DebugFlag::Appl2) {
                        let mut t = Vec::new();
                        crate::trace::write_values(&mut t, k, made.numval(), ev);
                        ev.trace.write_bytes(&t);
                    }
                    made
                }
                None => ValueSet { pmid: set.pmid, values: Err(PmError::PM_ERR_PMID) },
            }
        };
        match out.sets.get_mut(k) {
            Some(old) => *old = made,
            None => out.sets.push(made),
        }
    }
}
