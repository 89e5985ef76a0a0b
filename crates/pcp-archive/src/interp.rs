//! `PM_MODE_INTERP`: values at evenly spaced times, computed from the
//! records on either side of each time, as libpcp 6.0.3's
//! `__pmLogFetchInterp` computes them.
//!
//! For every metric-instance ever asked for, the state keeps the nearest
//! value (or mark) at or before the requested time (`prior`) and at or
//! after it (`next`), updated from the records read while moving through
//! the archive; searches back and forth only happen for instances not yet
//! bounded. Then, at time `t`:
//!
//! - a value recorded exactly at `t` is returned as is;
//! - discrete metrics take the prior value (none before the first);
//! - instantaneous metrics take the prior value, but only when there is a
//!   value on both sides (no mark in between);
//! - counters are interpolated linearly between prior and next (integer
//!   types rounded by adding 0.5 and truncating, as C converts), again
//!   only with values on both sides; counters of non-numeric types give
//!   `PM_ERR_TYPE`, and after a mark has been crossed since the previous
//!   fetch that returned values, a counter returns no values once;
//! - strings, aggregates and events take the prior value whatever their
//!   semantics.
//!
//! The result's time is the requested time, which then moves by the delta.
//!
//! Here are the state and the fetch; [`metrics`] sets up the state of a
//! metric first asked for, [`cache`] reads the records, [`bounds`] folds
//! them into the bounds and [`value`] computes each value from them.

use crate::logread::Dir;
use crate::replay::Replay;
use pcp_core::debug::DebugFlag;
use pcp_core::{FetchResult, InDom, InstValue, PmError, PmId, Semantics, Value, ValueSet};
use std::collections::HashMap;

mod bounds;
mod cache;
mod metrics;
mod trace;
mod value;

use bounds::{is_bounded, next_missing, prior_missing, search_back, search_forw, Unbound, Upd};
use cache::Cache;
use metrics::Calipers;
use value::interpolate;

const S_UNDEFINED: u8 = 1;
const S_MARK: u8 = 2;
const S_VALUE: u8 = 4;
const S_SCANNED: u8 = 16;

fn is(state: u8, flag: u8) -> bool {
    state & flag == flag
}

#[derive(Clone, Debug)]
struct InstCtl {
    inst: i32,
    inresult: bool,
    search: bool,
    t_prior: f64,
    s_prior: u8,
    v_prior: Option<Value>,
    t_next: f64,
    s_next: u8,
    v_next: Option<Value>,
    t_first: f64,
    t_last: f64,
    t_birth: f64,
    t_death: f64,
}

#[derive(Clone, Debug)]
struct PmidCtl {
    /// The metric's type, -1 when the archive has no descriptor for it.
    ty: i32,
    sem: Semantics,
    indom: InDom,
    valfmt: i32,
    numval: i32,
    last_numval: i32,
    /// Instances in libpcp's hash table walk order.
    insts: Vec<InstCtl>,
    by_inst: foldhash::HashMap<i32, usize>,
}

/// Interpolation state kept between fetches.
#[derive(Clone, Debug, Default)]
pub(crate) struct InterpState {
    pmids: Vec<PmidCtl>,
    by_pmid: foldhash::HashMap<u32, usize>,
    /// The PMID of each of `pmids`.
    ids: Vec<u32>,
    /// The metric-instances of the current fetch (`ac_want`), in libpcp's
    /// list order.
    want: Vec<(usize, usize)>,
    cache: Cache,
    /// `ac_end`: the archive's end, relative to its start.
    end: f64,
    /// Per instance domain: each instance's first and last sighting, for
    /// big instance domains (`time_caliper`); `None` for small ones.
    calipers: HashMap<u32, Option<Calipers>>,
    /// Value lists emptied, to fill again.
    pool: Vec<Vec<InstValue>>,
    /// Records read (not found in the cache) forwards and backwards in
    /// this fetch, for `-Dinterp`.
    nr: [u64; 2],
    /// And found in the cache (counted under `-Dlog,desperate` only).
    nr_cache: [u64; 2],
    /// Metric-instances looked at in this fetch (libpcp's `nuis`, for
    /// `-Dqa`): the second pass, placing in and sweeping and trimming
    /// its unbound list, then the same for the third pass.
    nuis: [u64; 8],
}

impl InterpState {
    /// `dumpicp`: trace metric-instance `ii` of metric `pi` under `tag`.
    fn dump(&self, trace: &pcp_core::debug::Trace, tag: &str, pi: usize, ii: usize) {
        let pcp = &self.pmids[pi];
        trace::dumpicp(trace, tag, self.ids[pi], pcp.ty, pcp.valfmt, &pcp.insts[ii]);
    }
}

/// `__pmLogResetInterp`, after `pmSetMode`: forget bounds that do not
/// bracket the new time.
pub(crate) fn reset(r: &mut Replay) {
    let t_req = r.origin.sub(r.start);
    for pcp in &mut r.interp.pmids {
        for icp in &mut pcp.insts {
            if icp.t_prior > t_req || icp.t_next < t_req {
                icp.t_prior = -1.0;
                icp.t_next = -1.0;
                icp.s_prior = S_UNDEFINED;
                icp.s_next = S_UNDEFINED;
                icp.v_prior = None;
                icp.v_next = None;
            }
        }
    }
}

/// `__pmLogFetchInterp`, into `out` (its value lists reused; on an error,
/// what it holds is unspecified).
pub(crate) fn fetch_into(
    r: &mut Replay,
    pmids: &[PmId],
    wanted: &dyn Fn(InDom, i32) -> bool,
    out: &mut FetchResult,
) -> Result<(), PmError> {
    let t_req = r.origin.sub(r.start);
    let tracing = r.log.trace.on(DebugFlag::Interp);
    if tracing {
        r.log.trace.write(format_args!(
            "__pmLogFetchInterp @ {} t_req={t_req:.6} curvol={} posn={} (vol={}) serial={}\n",
            r.origin.shown(&r.log.trace),
            r.log.curvol,
            r.ac_offset,
            r.ac_vol,
            i32::from(r.serial)
        ));
        r.interp.nr = [0, 0];
        r.interp.nr_cache = [0, 0];
    }
    r.interp.nuis = [0; 8];
    let res = fetch_at(r, t_req, pmids, wanted, out);
    match res {
        Err(Early(e)) => Err(e),
        Ok(v) => {
            r.advance();
            if tracing {
                let [forw, back] = r.interp.nr;
                let [cforw, cback] = r.interp.nr_cache;
                let cached = |n: u64| if n > 0 { format!(" (+{n} cached)") } else { String::new() };
                r.log.trace.write(format_args!(
                    "__pmLogFetchInterp: log reads: forward {forw}{} backwards {back}{}\n",
                    cached(cforw),
                    cached(cback)
                ));
            }
            if r.log.trace.on(DebugFlag::Qa) {
                let n = r.interp.nuis;
                r.log.trace.write(format_args!(
                    "__pmLogFetchInterp: unbound items scanned: pass2: {} first: {} forget: {} trim: {} pass3: {} last: {} forget: {} trim: {}\n",
                    n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7]
                ));
            }
            v
        }
    }
}

/// An error returned before the time moves on (libpcp returns these
/// without advancing the current time).
struct Early(PmError);

impl From<PmError> for Early {
    fn from(e: PmError) -> Early {
        Early(e)
    }
}

type Step = Result<Result<(), PmError>, Early>;

fn fetch_at(
    r: &mut Replay,
    t_req: f64,
    pmids: &[PmId],
    wanted: &dyn Fn(InDom, i32) -> bool,
    out: &mut FetchResult,
) -> Step {
    let tracing = r.log.trace.on(DebugFlag::Interp);
    if t_req < -0.001 {
        return Ok(Err(PmError::PM_ERR_EOL));
    }
    if t_req > r.interp.end + 0.001 {
        if let Ok(end) = r.log.archive_end() {
            r.interp.end = end.sub(r.start);
        }
        // past the end of the current archive: the end, unless another
        // archive follows
        if t_req > r.interp.end && r.cur + 1 >= r.archives.len() {
            return Ok(Err(PmError::PM_ERR_EOL));
        }
    }

    // first pass: the metric-instances asked for, through the profile
    // (the last fetch's list, emptied: its room kept)
    // (whether each is bounded on both sides already, see below, is
    // found on the way)
    let mut want_rev = std::mem::take(&mut r.interp.want);
    want_rev.clear();
    let (direction, mut bounded) = (r.direction, true);
    for &pmid in pmids {
        if pmid == PmId::NULL {
            continue;
        }
        let pi = r.pmid_ctl(pmid);
        let pcp = &mut r.interp.pmids[pi];
        pcp.numval = 0;
        if pcp.ty == -1 {
            pcp.numval = PmError::PM_ERR_PMID_LOG.code();
        } else if pcp.indom != InDom::NULL {
            for (ii, icp) in pcp.insts.iter_mut().enumerate() {
                icp.search = false;
                if wanted(pcp.indom, icp.inst) {
                    icp.inresult = true;
                    want_rev.push((pi, ii));
                    pcp.numval += 1;
                    bounded = bounded && is_bounded(icp, t_req, direction);
                } else {
                    icp.inresult = false;
                }
            }
        } else if let Some(icp) = pcp.insts.first_mut() {
            icp.inresult = true;
            icp.search = false;
            want_rev.push((pi, 0));
            pcp.numval = 1;
            bounded = bounded && is_bounded(icp, t_req, direction);
        }
    }
    want_rev.reverse();
    r.interp.want = want_rev;

    let serial = r.serial;
    if !serial {
        // coarse positioning with the index, then back up against the
        // direction of travel to just before the requested time
        let _ = r.set_time();
        r.remember();
        let back = if r.direction > 0 { Dir::Back } else { Dir::Forw };
        while let Ok(logrp) = r.cache_read(back) {
            let t_this = logrp.since(r.start);
            if (back == Dir::Back && t_this <= t_req) || (back == Dir::Forw && t_this > t_req) {
                break;
            }
            r.remember();
            r.update_bounds(t_req, &logrp, Upd::None, None, None)?;
        }
        r.serial = true;
        for &pmid in pmids {
            if let Some(&pi) = r.interp.by_pmid.get(&pmid.0) {
                r.interp.pmids[pi].last_numval = -1;
            }
        }
    }

    if let Err(e) = r.log.change_vol(r.ac_vol) {
        return Ok(Err(e));
    }
    r.log.seek(r.ac_offset);

    let mut seen_mark = false;
    let mut done_roll = false;
    let (mut back, mut forw) = (0i32, 0i32);

    // Most often (many samples between two records) every instance is
    // bounded on both sides already: then neither pass below would read
    // or change anything, and both are passed over. (Found in the first
    // pass, unless positioning has read records since.)
    if !serial {
        let pmids = &r.interp.pmids;
        bounded = r.interp.want.iter().all(|&(pi, ii)| is_bounded(&pmids[pi].insts[ii], t_req, direction));
    }
    let todo = if bounded { 0 } else { r.interp.want.len() };
    // (each pass looks at every metric-instance, even those it passes by)
    r.interp.nuis[0] = r.interp.want.len() as u64;

    // second pass: who needs a bound from earlier in the archive
    let mut unbound = Unbound::new();
    for k in 0..todo {
        let (pi, ii) = r.interp.want[k];
        {
            let icp = &r.interp.pmids[pi].insts[ii];
            if (icp.t_first >= 0.0 && t_req < icp.t_first)
                || (icp.t_birth >= 0.0 && t_req < icp.t_birth)
                || (icp.t_death >= 0.0 && t_req > icp.t_death)
            {
                continue;
            }
            if prior_missing(icp, t_req) && back == 0 && !done_roll {
                done_roll = true;
                if r.direction > 0 {
                    r.do_roll(t_req, &mut seen_mark)?;
                }
            }
        }
        let direction = r.direction;
        let icp = &mut r.interp.pmids[pi].insts[ii];
        if search_back(icp, t_req, direction) {
            back += 1;
            icp.search = true;
            let t_first = icp.t_first;
            let pmids = &r.interp.pmids;
            unbound.insert((pi, ii), |(p, i)| t_first >= pmids[p].insts[i].t_first);
            if tracing {
                r.interp.dump(&r.log.trace, "search back", pi, ii);
            }
        }
    }
    r.interp.nuis[1] = unbound.placed;

    if back > 0 {
        if let Err(e) = r.log.change_vol(r.ac_vol) {
            return Ok(Err(e));
        }
        r.log.seek(r.ac_offset);
        let mut done = 0i32;
        while done < back {
            let logrp = match r.cache_read(Dir::Back) {
                Ok(l) => l,
                Err(PmError::PM_ERR_LOGREC) => {
                    r.trace_corrupt("scanning backwards in ", "volume");
                    return Err(Early(PmError::PM_ERR_LOGREC));
                }
                Err(_) => {
                    if tracing {
                        r.log.trace.write(format_args!("Start of Log, {} metric-inst not found\n", back - done));
                    }
                    break;
                }
            };
            let t_this = logrp.since(r.start);
            if r.direction < 0 && t_this >= t_req {
                r.remember();
            }
            r.update_bounds(t_req, &logrp, Upd::Back, Some(&mut done), Some(&mut seen_mark))?;
            // those that cannot be found further back
            let pmids = std::cell::RefCell::new(&mut r.interp.pmids);
            unbound.sweep(
                |(p, i)| pmids.borrow()[p].insts[i].t_first < t_this,
                |(p, i)| {
                    let mut pmids = pmids.borrow_mut();
                    let icp = &mut pmids[p].insts[i];
                    if !icp.search {
                        return false;
                    }
                    icp.search = false;
                    icp.s_prior |= S_SCANNED;
                    done += 1;
                    true
                },
            );
        }
        r.interp.nuis[2] = unbound.swept;
        for (p, i) in unbound.iter() {
            r.interp.nuis[3] += 1;
            let icp = &mut r.interp.pmids[p].insts[i];
            if (is(icp.s_prior, S_UNDEFINED) || icp.t_prior > t_req) && icp.t_first < t_req {
                icp.t_first = t_req;
                icp.s_prior |= S_SCANNED;
                if tracing {
                    r.interp.dump(&r.log.trace, "no values before t_first", p, i);
                }
            }
            r.interp.pmids[p].insts[i].search = false;
        }
    }

    // third pass: who needs a bound from later in the archive
    let mut unbound = Unbound::new();
    r.interp.nuis[4] = r.interp.want.len() as u64;
    for k in 0..todo {
        let (pi, ii) = r.interp.want[k];
        {
            let icp = &r.interp.pmids[pi].insts[ii];
            if (icp.t_last >= 0.0 && t_req > icp.t_last)
                || (icp.t_birth >= 0.0 && t_req < icp.t_birth)
                || (icp.t_death >= 0.0 && t_req > icp.t_death)
            {
                continue;
            }
            if next_missing(icp, t_req) && forw == 0 && !done_roll {
                done_roll = true;
                if r.direction < 0 {
                    r.do_roll(t_req, &mut seen_mark)?;
                }
            }
        }
        let direction = r.direction;
        let icp = &mut r.interp.pmids[pi].insts[ii];
        if search_forw(icp, t_req, direction) {
            forw += 1;
            icp.search = true;
            let t_last = icp.t_last;
            let pmids = &r.interp.pmids;
            unbound.insert((pi, ii), |(p, i)| t_last <= pmids[p].insts[i].t_last);
            if tracing {
                r.interp.dump(&r.log.trace, "search forw", pi, ii);
            }
        }
    }
    r.interp.nuis[5] = unbound.placed;

    if forw > 0 {
        if let Err(e) = r.log.change_vol(r.ac_vol) {
            return Ok(Err(e));
        }
        r.log.seek(r.ac_offset);
        let mut done = 0i32;
        while done < forw {
            let logrp = match r.cache_read(Dir::Forw) {
                Ok(l) => l,
                Err(PmError::PM_ERR_LOGREC) => {
                    r.trace_corrupt("scanning forwards in ", "volume");
                    return Err(Early(PmError::PM_ERR_LOGREC));
                }
                Err(_) => {
                    if tracing {
                        r.log.trace.write(format_args!("End of Log, {} metric-insts not found\n", forw - done));
                    }
                    break;
                }
            };
            let t_this = logrp.since(r.start);
            if r.direction > 0 && t_this <= t_req {
                r.remember();
            }
            r.update_bounds(t_req, &logrp, Upd::Forw, Some(&mut done), Some(&mut seen_mark))?;
            let pmids = std::cell::RefCell::new(&mut r.interp.pmids);
            unbound.sweep(
                |(p, i)| pmids.borrow()[p].insts[i].t_last > t_this,
                |(p, i)| {
                    let mut pmids = pmids.borrow_mut();
                    let icp = &mut pmids[p].insts[i];
                    if !(icp.search && icp.t_last >= 0.0) {
                        return false;
                    }
                    icp.search = false;
                    icp.s_next |= S_SCANNED;
                    done += 1;
                    true
                },
            );
        }
        r.interp.nuis[6] = unbound.swept;
        for (p, i) in unbound.iter() {
            r.interp.nuis[7] += 1;
            let icp = &mut r.interp.pmids[p].insts[i];
            if icp.t_next < t_req && (icp.t_last < 0.0 || t_req < icp.t_last) {
                icp.t_last = t_req;
                icp.s_next |= S_SCANNED;
                if tracing {
                    let (inst, pmid) = (icp.inst, PmId(r.interp.ids[p]));
                    r.log.trace.write(format_args!("pmid {pmid} inst {inst} no values after t_last={t_req:.6}\n"));
                }
            }
            r.interp.pmids[p].insts[i].search = false;
        }
    }

    // how many values there will really be
    for k in 0..r.interp.want.len() {
        let (pi, ii) = r.interp.want[k];
        let pcp = &mut r.interp.pmids[pi];
        let (ty, sem, last_numval) = (pcp.ty, pcp.sem, pcp.last_numval);
        let icp = &mut pcp.insts[ii];
        let mut drop_it = false;
        let mut type_error = false;
        if sem == Semantics::DISCRETE {
            if is(icp.s_prior, S_MARK)
                || is(icp.s_prior, S_UNDEFINED)
                || icp.t_prior > t_req
                || (icp.t_birth != -1.0 && icp.t_birth > t_req)
                || (icp.t_death != -1.0 && t_req > icp.t_death)
            {
                drop_it = true;
            }
        } else if is(icp.s_prior, S_MARK)
            || is(icp.s_prior, S_UNDEFINED)
            || icp.t_prior > t_req
            || is(icp.s_next, S_MARK)
            || is(icp.s_next, S_UNDEFINED)
            || icp.t_next < t_req
        {
            drop_it = true;
        } else if sem == Semantics::COUNTER {
            if !(0..=5).contains(&ty) {
                type_error = true;
            } else if seen_mark && last_numval > 0 {
                drop_it = true;
            }
        }
        if drop_it {
            icp.inresult = false;
            pcp.numval -= 1;
        } else if type_error {
            pcp.numval = PmError::PM_ERR_TYPE.code();
        }
    }

    // build the result, in the lists of the one `out` held
    let wrap = r.counter_wrap;
    let pool = &mut r.interp.pool;
    for set in out.sets.drain(..) {
        if let Ok(mut vals) = set.values {
            vals.clear();
            pool.push(vals);
        }
    }
    let sets = &mut out.sets;
    sets.reserve(pmids.len());
    for &pmid in pmids {
        if pmid == PmId::NULL {
            sets.push(ValueSet { pmid, values: Ok(pool.pop().unwrap_or_default()) });
            continue;
        }
        let Some(&pi) = r.interp.by_pmid.get(&pmid.0) else { continue };
        let pcp = &mut r.interp.pmids[pi];
        let mut vals = if pcp.numval < 0 { Vec::new() } else { pool.pop().unwrap_or_default() };
        vals.reserve(usize::try_from(pcp.numval).unwrap_or(0));
        if pcp.numval > 0 {
            for icp in pcp.insts.iter().filter(|i| i.inresult) {
                if tracing && done_roll {
                    trace::dump_result_inst(&r.log.trace, pmid.0, pcp.ty, pcp.valfmt, icp);
                }
                if let Some(value) = interpolate(pcp.ty, pcp.sem, pcp.valfmt, icp, t_req, wrap) {
                    vals.push(InstValue { inst: icp.inst, value });
                }
            }
        }
        pcp.last_numval = pcp.numval;
        let values = if pcp.numval < 0 { Err(PmError::from_code(pcp.numval)) } else { Ok(vals) };
        sets.push(ValueSet { pmid, values });
    }
    // (what is left over is kept for results of more sets, within reason)
    r.interp.pool.truncate(POOL_MAX);
    out.timestamp = r.origin.to_timestamp();
    Ok(Ok(()))
}

/// Stand-ins for the addresses of libpcp's read cache and the results in
/// it.
const FAKE_CACHE: u64 = 0x5600_000a_0a60;
const FAKE_RESULT: u64 = 0x5600_000b_5950;

/// How many emptied value lists interpolation keeps for the next fetch.
const POOL_MAX: usize = 64;

impl Replay {
    /// What `__pmFreeInterpData` traces when the context is destroyed:
    /// under `-Dinterp,desperate` the values held in blocks it releases,
    /// under `-Dlog,interp` its read cache's entries (their addresses
    /// stand-ins).
    pub(crate) fn trace_free_interp(&self) {
        let trace = &self.log.trace;
        let st = &self.interp;
        if trace.on(DebugFlag::Interp) && trace.on(DebugFlag::Desperate) && !st.pmids.is_empty() {
            let mut by_pmid = pcp_core::support::hash::PmHash::new();
            for (pi, &pmid) in st.ids.iter().enumerate() {
                by_pmid.add(pmid, pi);
            }
            for (pmid, &pi) in by_pmid.iter() {
                let pcp = &st.pmids[pi];
                if pcp.valfmt == 0 {
                    continue;
                }
                for icp in &pcp.insts {
                    for (v, which) in [(&icp.v_prior, "prior"), (&icp.v_next, "next")] {
                        if v.is_some() {
                            trace.write(format_args!("release pmid {} inst {} {which}\n", PmId(pmid), icp.inst));
                        }
                    }
                }
            }
        }
        if trace.on(DebugFlag::Log) && trace.on(DebugFlag::Interp) && st.cache.used {
            for (k, (name, rp)) in st.cache.traced.iter().enumerate() {
                let entry = FAKE_CACHE + k as u64 * 0x38;
                let name = name.as_deref().unwrap_or("(none)");
                let rp = if *rp { format!("{:#x}", FAKE_RESULT + k as u64 * 0x5a0) } else { "(nil)".to_string() };
                trace.write(format_args!("read cache entry {entry:#x}: c_name={name} rp={rp}\n"));
            }
        }
    }

    /// Trace, under `-Dinterp` or `-Dlog`, that a record read while
    /// searching `what` (the archive's name follows) was corrupt.
    fn trace_corrupt(&self, what: &str, vol: &str) {
        let trace = &self.log.trace;
        if trace.on(DebugFlag::Interp) || trace.on(DebugFlag::Log) {
            let name = crate::opentrace::lcp_name(self.log.base());
            trace.write(format_args!("Error: corrupted archive {what}'{name}', {vol} {}\n", self.log.curvol));
        }
    }

    fn advance(&mut self) {
        let o = &mut self.origin;
        o.sec = o.sec.wrapping_add(self.delta.sec);
        o.nsec = o.nsec.wrapping_add(self.delta.nsec);
        while o.nsec > 1_000_000_000 {
            o.sec += 1;
            o.nsec -= 1_000_000_000;
        }
        while o.nsec < 0 {
            o.sec -= 1;
            o.nsec += 1_000_000_000;
        }
    }
}
