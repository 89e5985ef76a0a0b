//! Bounding the requested time: folding the records read into each
//! instance's prior and next values, reading on to the requested time,
//! and which instances still need a search back or forwards.

use super::cache::{Head, Read, Sets};
use super::InterpState;
use super::{is, InstCtl, S_MARK, S_SCANNED, S_UNDEFINED, S_VALUE};
use crate::logread::Dir;
use crate::record::ValRef;
use crate::replay::{IgnoreMarks, Replay};
use pcp_core::debug::DebugFlag;
use pcp_core::{MetricType, PmError, PmId, PM_IN_NULL};

/// What to do with marks while updating bounds (`UPD_MARK_*`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Upd {
    None,
    Forw,
    Back,
}

/// libpcp's "unbound" list: the metric-instances still searching for a
/// bound, singly linked, kept in the order libpcp builds it.
pub(super) struct Unbound {
    items: Vec<(usize, usize)>,
    next: Vec<usize>,
    head: usize,
    /// Elements looked at placing new ones, and sweeping (libpcp's
    /// `nuis` counts, shown under `-Dqa`).
    pub(super) placed: u64,
    pub(super) swept: u64,
}

const NIL: usize = usize::MAX;

impl Unbound {
    pub(super) fn new() -> Unbound {
        Unbound { items: Vec::new(), next: Vec::new(), head: NIL, placed: 0, swept: 0 }
    }

    /// Insert `item` before the first element `before` accepts (at the end
    /// if none does).
    pub(super) fn insert(&mut self, item: (usize, usize), before: impl Fn((usize, usize)) -> bool) {
        let new = self.items.len();
        self.items.push(item);
        self.next.push(NIL);
        let (mut prev, mut at) = (NIL, self.head);
        while at != NIL {
            self.placed += 1;
            if before(self.items[at]) {
                break;
            }
            prev = at;
            at = self.next[at];
        }
        self.next[new] = at;
        if prev == NIL {
            self.head = new;
        } else {
            self.next[prev] = new;
        }
    }

    /// Walk from the head until `stop`; unlink the elements `take` accepts.
    pub(super) fn sweep(
        &mut self,
        mut stop: impl FnMut((usize, usize)) -> bool,
        mut take: impl FnMut((usize, usize)) -> bool,
    ) {
        let (mut prev, mut at) = (NIL, self.head);
        while at != NIL {
            self.swept += 1;
            if stop(self.items[at]) {
                break;
            }
            let next = self.next[at];
            if take(self.items[at]) {
                if prev == NIL {
                    self.head = next;
                } else {
                    self.next[prev] = next;
                }
            } else {
                prev = at;
            }
            at = next;
        }
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let mut at = self.head;
        std::iter::from_fn(move || {
            (at != NIL).then(|| {
                let item = self.items[at];
                at = self.next[at];
                item
            })
        })
    }
}

impl Replay {
    /// `update_bounds`: fold one record into the prior/next bounds of
    /// every metric-instance asked for so far.
    pub(super) fn update_bounds(
        &mut self,
        t_req: f64,
        logrp: &Read,
        do_mark: Upd,
        mut done: Option<&mut i32>,
        mut seen_mark: Option<&mut bool>,
    ) -> Result<(), PmError> {
        let t_this = logrp.since(self.start);
        if logrp.is_mark() && self.ignore_mark() {
            return Ok(());
        }
        let st = &mut self.interp;
        let trace = &self.log.trace;
        let tracing = trace.on(DebugFlag::Interp);
        let desperate = tracing && trace.on(DebugFlag::Desperate);
        if logrp.is_mark() {
            // a mark: a gap in the recording
            if do_mark == Upd::None {
                return Ok(());
            }
            for k in 0..st.want.len() {
                let (pi, ii) = st.want[k];
                let pcp = &mut st.pmids[pi];
                let pointer = pcp.valfmt != 0;
                let icp = &mut pcp.insts[ii];
                if t_this <= t_req && (t_this >= icp.t_prior || icp.t_prior > t_req) {
                    icp.t_prior = t_this;
                    icp.s_prior = S_MARK;
                    if do_mark == Upd::Back {
                        if icp.search {
                            if let Some(d) = done.as_deref_mut() {
                                icp.search = false;
                                *d += 1;
                                icp.s_prior |= S_SCANNED;
                            }
                        }
                    } else {
                        if let Some(m) = seen_mark.as_deref_mut() {
                            *m = true;
                        }
                        if desperate {
                            trace.write(format_args!("<mark> rolling forwards\n"));
                        }
                    }
                    if pointer {
                        icp.v_prior = None;
                    }
                    if tracing {
                        st.dump(trace, "update_bounds: mark@prior", pi, ii);
                    }
                }
                let icp = &mut st.pmids[pi].insts[ii];
                if t_this >= t_req && ((t_this <= icp.t_next || icp.t_next < 0.0) || icp.t_next < t_req) {
                    icp.t_next = t_this;
                    icp.s_next = S_MARK;
                    if do_mark == Upd::Forw {
                        if icp.search {
                            if let Some(d) = done.as_deref_mut() {
                                icp.search = false;
                                *d += 1;
                                icp.s_next |= S_SCANNED;
                            }
                        }
                    } else {
                        if let Some(m) = seen_mark.as_deref_mut() {
                            *m = true;
                        }
                        if desperate {
                            trace.write(format_args!("<mark> rolling backwards\n"));
                        }
                    }
                    if pointer {
                        icp.v_next = None;
                    }
                    if tracing {
                        st.dump(trace, "update_bounds: mark@next", pi, ii);
                    }
                }
            }
            return Ok(());
        }
        // (what changed, for the trace, as libpcp keeps it: over the
        // whole record)
        let mut fold = Fold {
            t_this,
            t_req,
            do_mark,
            changed: 0,
            trace: tracing.then_some(trace),
            log: self.log.tracing().then_some(trace),
        };
        match logrp.sets() {
            Sets::Record(rec, hits) => {
                for &set in hits {
                    fold_set(st, Head::of(set), rec.values(set), &mut fold, &mut done)?;
                }
            }
            Sets::Kept(kept) => {
                for (set, values) in kept.sets() {
                    fold_set(st, set, values, &mut fold, &mut done)?;
                }
            }
        }
        Ok(())
    }

    /// Whether to pass over the mark just read, as the replay's
    /// [`IgnoreMarks`] says: when only marks in short gaps are, the
    /// records either side are read for their times (libpcp's reads,
    /// which leave the file after the mark whichever way it was read).
    fn ignore_mark(&mut self) -> bool {
        let first = !std::mem::replace(&mut self.marks_checked, true);
        let gap = match &self.ignore_marks {
            IgnoreMarks::Keep => return false,
            IgnoreMarks::Bad { warning } => {
                if first {
                    self.log.trace.write_bytes(warning);
                }
                return false;
            }
            IgnoreMarks::All => 0.0,
            IgnoreMarks::Within(gap) => *gap,
        };
        let tracing = self.log.trace.on(DebugFlag::Interp);
        let say = |r: &Replay, args: std::fmt::Arguments<'_>| {
            if tracing {
                r.log.trace.write(args);
            }
        };
        if gap == 0.0 {
            say(self, format_args!("update_bounds: ignore mark: unconditional\n"));
            return true;
        }
        let (save_vol, save_offset) = (self.ac_vol, self.ac_offset);
        let (mut t_prior, mut t_next) = (-1.0, -1.0);
        // the reads, and what a failure of each is called (and whether it
        // puts the remembered position back)
        let steps = [
            (Dir::Forw, "read <next>", false),
            (Dir::Back, "unread <next>", true),
            (Dir::Back, "unread <mark>", true),
            (Dir::Back, "read <prior>", false),
            (Dir::Forw, "unread <prior>", true),
            (Dir::Forw, "reread <mark>", true),
        ];
        for (k, (dir, what, restore)) in steps.into_iter().enumerate() {
            match self.read_rec(dir) {
                Err(e) => {
                    say(self, format_args!("update_bounds: mark {what} failed: {e}\n"));
                    if restore {
                        (self.ac_vol, self.ac_offset) = (save_vol, save_offset);
                    }
                    break;
                }
                Ok(rec) => match k {
                    0 => t_next = rec.ts.sub(self.start),
                    3 => t_prior = rec.ts.sub(self.start),
                    2 | 5 if !rec.is_mark() => say(
                        self,
                        format_args!("update_bounds: mark {what} expecting <mark> got numpmid={}\n", rec.numpmid()),
                    ),
                    _ => {}
                },
            }
        }
        if t_prior != -1.0 && t_next != -1.0 && t_next - t_prior <= gap {
            say(self, format_args!("update_bounds: ignore mark: gap {t_next:.6} - {t_prior:.6} <= {gap:.6}\n"));
            return true;
        }
        false
    }

    /// `do_roll`: read on in the direction of travel up to the requested
    /// time, folding the records into the bounds.
    pub(super) fn do_roll(&mut self, t_req: f64, seen_mark: &mut bool) -> Result<(), PmError> {
        let (dir, upd) = if self.direction > 0 { (Dir::Forw, Upd::Forw) } else { (Dir::Back, Upd::Back) };
        let err = loop {
            let logrp = match self.cache_read(dir) {
                Ok(r) => r,
                Err(e) => break e,
            };
            let t_this = logrp.since(self.start);
            if (dir == Dir::Forw && t_this > t_req) || (dir == Dir::Back && t_this < t_req) {
                return Ok(());
            }
            if self.log.trace.on(DebugFlag::Interp) {
                let way = if dir == Dir::Forw { "forw" } else { "back" };
                let mark = if logrp.is_mark() { " <mark>" } else { "" };
                self.log.trace.write(format_args!("do_roll: {way} to t={t_this:.6}{mark}\n"));
            }
            self.remember();
            self.update_bounds(t_req, &logrp, upd, None, Some(seen_mark))?;
        };
        if err == PmError::PM_ERR_LOGREC {
            self.trace_corrupt("", "vol");
            return Err(err);
        }
        Ok(())
    }
}

/// One record being folded into the bounds (`update_bounds`' state).
struct Fold<'t> {
    t_this: f64,
    t_req: f64,
    do_mark: Upd,
    /// libpcp's `changed`: 1 once a bound has moved, 2 added once a
    /// search has ended, kept from one instance to the next.
    changed: u8,
    /// Where `-Dinterp` traces go, when on.
    trace: Option<&'t pcp_core::debug::Trace>,
    /// Where `-Dlog` traces go, when on.
    log: Option<&'t pcp_core::debug::Trace>,
}

/// Fold one value set of a record at `t_this` into the bounds of its
/// metric's instances.
#[inline]
fn fold_set<'a>(
    st: &mut InterpState,
    set: Head,
    values: impl Iterator<Item = (i32, ValRef<'a>)>,
    fold: &mut Fold<'_>,
    done: &mut Option<&mut i32>,
) -> Result<(), PmError> {
    let Some(pi) = st.pmid_index(set.pmid) else { return Ok(()) };
    let (t_this, t_req, do_mark) = (fold.t_this, fold.t_req, fold.do_mark);
    let pcp = &mut st.pmids[pi];
    if pcp.valfmt == -1 && set.numval > 0 {
        let ok = match pcp.ty {
            0 | 1 => set.valfmt == 0,
            4 => (0..=2).contains(&set.valfmt),
            _ => set.valfmt == 1 || set.valfmt == 2,
        };
        if !ok {
            if let Some(log) = fold.log {
                log.write(format_args!(
                    "update_bounds: corrupted archive: PMID {}: valfmt {} unexpected for type {}\n",
                    PmId(set.pmid),
                    set.valfmt,
                    MetricType(pcp.ty).name()
                ));
            }
            return Err(PmError::PM_ERR_LOGREC);
        }
        pcp.valfmt = set.valfmt;
    } else if pcp.valfmt != -1 && set.numval > 0 && pcp.valfmt != set.valfmt {
        if let Some(log) = fold.log {
            log.write(format_args!(
                "update_bounds: corrupted archive: PMID {}: valfmt changed from {} to {}\n",
                PmId(set.pmid),
                pcp.valfmt,
                set.valfmt
            ));
        }
        return Err(PmError::PM_ERR_LOGREC);
    }
    let (ty, valfmt) = (pcp.ty, pcp.valfmt);
    let desperate = fold.trace.is_some_and(|t| t.on(DebugFlag::Desperate));
    for (inst, value) in values {
        let Some(&ii) = pcp.by_inst.get(&inst).or_else(|| pcp.by_inst.get(&PM_IN_NULL)) else { continue };
        let icp = &mut pcp.insts[ii];
        if desperate {
            if let Some(trace) = fold.trace {
                super::trace::dumpicp(trace, "update_bounds: match", set.pmid, ty, valfmt, icp);
            }
        }
        if t_this <= t_req && (icp.t_prior > t_req || t_this >= icp.t_prior) {
            fold.changed = 1;
            if icp.t_prior < icp.t_next && icp.t_prior >= t_req {
                // the old prior becomes the next
                icp.t_next = icp.t_prior;
                icp.s_next = icp.s_prior & !S_SCANNED;
                icp.v_next = icp.v_prior.clone();
            }
            icp.t_prior = t_this;
            icp.s_prior = S_VALUE;
            value.store(&mut icp.v_prior);
            if do_mark == Upd::Back && icp.search {
                if let Some(d) = done.as_deref_mut() {
                    fold.changed |= 2;
                    icp.search = false;
                    *d += 1;
                    icp.s_prior |= S_SCANNED;
                }
            }
        }
        if t_this >= t_req && (icp.t_next < t_req || t_this <= icp.t_next) {
            fold.changed |= 1;
            if icp.t_prior < icp.t_next && icp.t_next <= t_req {
                icp.t_prior = icp.t_next;
                icp.s_prior = icp.s_next & !S_SCANNED;
                icp.v_prior = icp.v_next.clone();
            }
            icp.t_next = t_this;
            icp.s_next = S_VALUE;
            value.store(&mut icp.v_next);
            if do_mark == Upd::Forw && icp.search {
                if let Some(d) = done.as_deref_mut() {
                    fold.changed |= 2;
                    icp.search = false;
                    *d += 1;
                    icp.s_next |= S_SCANNED;
                }
            }
        }
        if let (Some(trace), 1..) = (fold.trace, fold.changed) {
            let tag = if fold.changed & 2 != 0 { "update_bounds: update+search" } else { "update_bounds: update" };
            super::trace::dumpicp(trace, tag, set.pmid, ty, valfmt, icp);
        }
    }
    Ok(())
}

/// Whether neither the second nor the third pass of [`fetch_at`] has
/// anything to do for `icp`: both its bounds are there, and no search is
/// wanted. Most often both are values, one at or before `t_req` and one
/// at or after it, which is decided at once.
#[inline]
pub(super) fn is_bounded(icp: &InstCtl, t_req: f64, direction: i32) -> bool {
    let (odd_prior, odd_next) = (icp.s_prior & (S_UNDEFINED | S_MARK), icp.s_next & (S_UNDEFINED | S_MARK));
    if odd_prior == 0 && odd_next == 0 && icp.t_prior >= 0.0 && icp.t_prior <= t_req && t_req <= icp.t_next {
        return true;
    }
    passes_pass_over(icp, t_req, direction)
}

/// [`is_bounded`] without the shortcut: none of the four tests of the
/// second and third passes asks for work.
fn passes_pass_over(icp: &InstCtl, t_req: f64, direction: i32) -> bool {
    !(prior_missing(icp, t_req)
        || search_back(icp, t_req, direction)
        || next_missing(icp, t_req)
        || search_forw(icp, t_req, direction))
}

/// Whether `icp` has no prior bound at or before `t_req` (the second pass
/// of [`fetch_at`] then reads on to `t_req` first, going forwards).
pub(super) fn prior_missing(icp: &InstCtl, t_req: f64) -> bool {
    icp.t_prior < 0.0 || icp.t_prior > t_req
}

/// Whether the second pass of [`fetch_at`] searches back for `icp`'s prior
/// bound.
pub(super) fn search_back(icp: &InstCtl, t_req: f64, direction: i32) -> bool {
    (is(icp.s_prior, S_UNDEFINED) && !is(icp.s_prior, S_SCANNED))
        || (icp.t_prior > t_req && (direction < 0 || !is(icp.s_prior, S_SCANNED)))
        || (is(icp.s_next, S_MARK) && icp.t_prior == t_req)
}

/// Whether `icp` has no next bound at or after `t_req` (the third pass then
/// reads on to `t_req` first, going backwards).
pub(super) fn next_missing(icp: &InstCtl, t_req: f64) -> bool {
    icp.t_next < 0.0 || icp.t_next < t_req
}

/// Whether the third pass of [`fetch_at`] searches forwards for `icp`'s
/// next bound.
pub(super) fn search_forw(icp: &InstCtl, t_req: f64, direction: i32) -> bool {
    (is(icp.s_next, S_UNDEFINED) && !is(icp.s_next, S_SCANNED))
        || (icp.t_next < t_req && (direction > 0 || !is(icp.s_next, S_SCANNED)))
        || (is(icp.s_prior, S_MARK) && icp.t_next == t_req)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The shortcut in `is_bounded` decides as the four tests it
        /// passes over would.
        #[test]
        fn bounded_at_once_as_by_the_passes(
            t_prior in prop::sample::select(vec![-1.0, 0.0, 0.5, 1.0, 2.0, 3.0]),
            t_next in prop::sample::select(vec![-1.0, 0.0, 0.5, 1.0, 2.0, 3.0]),
            t_req in prop::sample::select(vec![0.0, 0.5, 1.0, 1.5, 2.0, 3.0, f64::NAN]),
            s_prior in prop::sample::select(vec![S_UNDEFINED, S_MARK, S_VALUE, S_UNDEFINED | S_SCANNED, S_MARK | S_SCANNED, S_VALUE | S_SCANNED]),
            s_next in prop::sample::select(vec![S_UNDEFINED, S_MARK, S_VALUE, S_UNDEFINED | S_SCANNED, S_MARK | S_SCANNED, S_VALUE | S_SCANNED]),
            direction in prop::sample::select(vec![-1, 1]),
        ) {
            let icp = InstCtl { t_prior, t_next, s_prior, s_next, ..InstCtl::new(0) };
            prop_assert_eq!(is_bounded(&icp, t_req, direction), passes_pass_over(&icp, t_req, direction));
        }
    }
}
