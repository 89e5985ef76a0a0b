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

use crate::logread::{Dir, Record, SetRef, Ts};
use crate::replay::Replay;
use pcp_core::{FetchResult, InDom, InstValue, PmError, PmId, Semantics, Value, ValueBlock, ValueSet, PM_IN_NULL};
use std::collections::HashMap;
use std::sync::Arc;

const S_UNDEFINED: u8 = 1;
const S_MARK: u8 = 2;
const S_VALUE: u8 = 4;
const S_SCANNED: u8 = 16;

fn is(state: u8, flag: u8) -> bool {
    state & flag == flag
}

/// What to do with marks while updating bounds (`UPD_MARK_*`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Upd {
    None,
    Forw,
    Back,
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

/// Each instance's first sighting and the first time it was gone again.
type Calipers = HashMap<i32, (f64, f64)>;

/// A record read, with its value sets of the metrics asked for so far.
#[derive(Clone, Debug)]
struct Read {
    rec: Arc<Record>,
    hits: Arc<[SetRef]>,
    /// The record's time in seconds after a start, and that start (worked
    /// out once for a record read again from the cache: libpcp's long
    /// double arithmetic is done on integers here, and is slow).
    since: (Ts, f64),
}

impl Read {
    /// The record's time in seconds after `start` (`__pmTimestampSub`).
    fn since(&self, start: Ts) -> f64 {
        if self.since.0 == start {
            self.since.1
        } else {
            self.ts.sub(start)
        }
    }
}

impl std::ops::Deref for Read {
    type Target = Record;
    fn deref(&self) -> &Record {
        &self.rec
    }
}

#[derive(Clone, Debug)]
struct CacheEntry {
    rp: Read,
    /// How many metrics had been asked for when `rp.hits` was found.
    hits_for: usize,
    /// The archive (of several) and volume it was read from.
    arch: usize,
    vol: i32,
    head: i64,
    tail: i64,
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
    cache: Vec<Option<CacheEntry>>,
    cache_idx: usize,
    /// `ac_end`: the archive's end, relative to its start.
    end: f64,
    /// Per instance domain: each instance's first and last sighting, for
    /// big instance domains (`time_caliper`); `None` for small ones.
    calipers: HashMap<u32, Option<Calipers>>,
    /// Value lists emptied, to fill again.
    pool: Vec<Vec<InstValue>>,
}

impl InterpState {
    /// The value sets of `rec` that belong to metrics asked for, in record
    /// order.
    fn hits(&self, rec: &Record) -> Arc<[SetRef]> {
        match self.ids[..] {
            [one] => rec.sets_where(|p| p == one).into(),
            _ => rec.sets_where(|p| self.pmid_index(p).is_some()).into(),
        }
    }

    /// Where `pmid` is in `pmids`: found by looking along the list while it
    /// is short (every value set of every record read is looked up, and
    /// usually one metric or two are being interpolated).
    fn pmid_index(&self, pmid: u32) -> Option<usize> {
        if self.ids.len() <= 8 {
            self.ids.iter().position(|&p| p == pmid)
        } else {
            self.by_pmid.get(&pmid).copied()
        }
    }
}

/// libpcp's "unbound" list: the metric-instances still searching for a
/// bound, singly linked, kept in the order libpcp builds it.
struct Unbound {
    items: Vec<(usize, usize)>,
    next: Vec<usize>,
    head: usize,
}

const NIL: usize = usize::MAX;

impl Unbound {
    fn new() -> Unbound {
        Unbound { items: Vec::new(), next: Vec::new(), head: NIL }
    }

    /// Insert `item` before the first element `before` accepts (at the end
    /// if none does).
    fn insert(&mut self, item: (usize, usize), before: impl Fn((usize, usize)) -> bool) {
        let new = self.items.len();
        self.items.push(item);
        self.next.push(NIL);
        let (mut prev, mut at) = (NIL, self.head);
        while at != NIL && !before(self.items[at]) {
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
    fn sweep(&mut self, mut stop: impl FnMut((usize, usize)) -> bool, mut take: impl FnMut((usize, usize)) -> bool) {
        let (mut prev, mut at) = (NIL, self.head);
        while at != NIL {
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

    fn iter(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
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

/// libpcp's hash table walk order for keys added in order to a table
/// preallocated with one bucket per key: bucket by bucket, newest first.
fn prealloc_hash_order(keys: &[i32]) -> Vec<usize> {
    let n = keys.len();
    if n == 0 {
        return Vec::new();
    }
    let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, &k) in keys.iter().enumerate() {
        buckets[(k as u32 as usize) % n].push(i);
    }
    buckets.into_iter().flat_map(|b| b.into_iter().rev()).collect()
}

// C's float to integer conversions as gcc compiles them on x86-64
fn cvtt_i32(v: f64) -> i32 {
    if v > -2147483649.0 && v < 2147483648.0 {
        v as i32
    } else {
        i32::MIN
    }
}

fn cvtt_i64(v: f64) -> i64 {
    if (-9223372036854775808.0..9223372036854775808.0).contains(&v) {
        v as i64
    } else {
        i64::MIN
    }
}

fn cvt_u32(v: f64) -> u32 {
    cvtt_i64(v) as u32
}

fn cvt_u64(v: f64) -> u64 {
    const TWO63: f64 = 9223372036854775808.0;
    if v >= TWO63 {
        (cvtt_i64(v - TWO63) as u64) ^ (1 << 63)
    } else {
        cvtt_i64(v) as u64
    }
}

fn lval(v: &Option<Value>) -> i32 {
    match v {
        Some(Value::Insitu(l)) => *l,
        _ => 0,
    }
}

fn bytes8(v: &Option<Value>) -> [u8; 8] {
    let mut out = [0u8; 8];
    if let Some(Value::Block(b)) = v {
        for (o, d) in out.iter_mut().zip(&b.data) {
            *o = *d;
        }
    }
    out
}

fn f32_of(v: &Option<Value>) -> f32 {
    let b = bytes8(v);
    f32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

impl InstCtl {
    fn new(inst: i32) -> InstCtl {
        InstCtl {
            inst,
            inresult: false,
            search: false,
            t_prior: -1.0,
            s_prior: S_UNDEFINED,
            v_prior: None,
            t_next: -1.0,
            s_next: S_UNDEFINED,
            v_next: None,
            t_first: -1.0,
            t_last: -1.0,
            t_birth: -1.0,
            t_death: -1.0,
        }
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

impl Replay {
    /// `cache_read`: a record read in direction `dir`, through a small
    /// cache of records recently read around the current position.
    fn cache_read(&mut self, dir: Dir) -> Result<Read, PmError> {
        let posn = if self.ac_vol == self.log.curvol { self.log.tell() } else { 0 };
        if self.interp.cache.is_empty() {
            self.interp.cache = (0..4).map(|_| None).collect();
        }
        self.interp.cache_idx = (self.interp.cache_idx + 1) % 4;
        let st = &mut self.interp;
        let (cur, ac_vol, nids) = (self.cur, self.ac_vol, st.ids.len());
        let hit = st.cache.iter().position(|c| {
            c.as_ref().is_some_and(|c| {
                c.arch == cur
                    && c.vol == ac_vol
                    && ((dir == Dir::Forw && c.head == posn) || (dir == Dir::Back && c.tail == posn))
            })
        });
        if let Some(c) = hit.and_then(|i| st.cache[i].take()) {
            let mut c = c;
            if c.hits_for != nids {
                c.rp.hits = st.hits(&c.rp.rec);
                c.hits_for = nids;
            }
            let (rp, to) = (c.rp.clone(), if dir == Dir::Forw { c.tail } else { c.head });
            if let Some(i) = hit {
                st.cache[i] = Some(c);
            }
            self.log.seek(to);
            self.log.mark_done = false;
            return Ok(rp);
        }
        let idx = self.interp.cache_idx;
        self.interp.cache[idx] = None;
        let (save_cur, save_curvol) = (self.cur, self.log.curvol);
        let rec = Arc::new(self.read_rec(dir)?);
        let since = (self.start, rec.ts.sub(self.start));
        let rp = Read { hits: self.interp.hits(&rec), rec, since };
        // not after a volume or archive switch, or a boundary mark
        if posn != 0 && save_curvol == self.log.curvol && save_cur == self.cur && !self.log.mark_done {
            let now = self.log.tell();
            let (head, tail) = if dir == Dir::Forw { (posn, now) } else { (now, posn) };
            let entry = CacheEntry { rp: rp.clone(), hits_for: nids, arch: self.cur, vol: self.ac_vol, head, tail };
            self.interp.cache[idx] = Some(entry);
        }
        Ok(rp)
    }

    /// `update_bounds`: fold one record into the prior/next bounds of
    /// every metric-instance asked for so far.
    fn update_bounds(
        &mut self,
        t_req: f64,
        logrp: &Read,
        do_mark: Upd,
        mut done: Option<&mut i32>,
        mut seen_mark: Option<&mut bool>,
    ) -> Result<(), PmError> {
        let t_this = logrp.since(self.start);
        let st = &mut self.interp;
        if logrp.is_mark() {
            // a mark: a gap in the recording
            if do_mark == Upd::None {
                return Ok(());
            }
            for &(pi, ii) in &st.want {
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
                    } else if let Some(m) = seen_mark.as_deref_mut() {
                        *m = true;
                    }
                    if pointer {
                        icp.v_prior = None;
                    }
                }
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
                    } else if let Some(m) = seen_mark.as_deref_mut() {
                        *m = true;
                    }
                    if pointer {
                        icp.v_next = None;
                    }
                }
            }
            return Ok(());
        }
        for &set in logrp.hits.iter() {
            let Some(pi) = st.pmid_index(set.pmid) else { continue };
            let pcp = &mut st.pmids[pi];
            if pcp.valfmt == -1 && set.numval > 0 {
                let ok = match pcp.ty {
                    0 | 1 => set.valfmt == 0,
                    4 => (0..=2).contains(&set.valfmt),
                    _ => set.valfmt == 1 || set.valfmt == 2,
                };
                if !ok {
                    return Err(PmError::PM_ERR_LOGREC);
                }
                pcp.valfmt = set.valfmt;
            } else if pcp.valfmt != -1 && set.numval > 0 && pcp.valfmt != set.valfmt {
                return Err(PmError::PM_ERR_LOGREC);
            }
            for (inst, value) in logrp.values(set) {
                let Some(&ii) = pcp.by_inst.get(&inst).or_else(|| pcp.by_inst.get(&PM_IN_NULL)) else { continue };
                let icp = &mut pcp.insts[ii];
                if t_this <= t_req && (icp.t_prior > t_req || t_this >= icp.t_prior) {
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
                            icp.search = false;
                            *d += 1;
                            icp.s_prior |= S_SCANNED;
                        }
                    }
                }
                if t_this >= t_req && (icp.t_next < t_req || t_this <= icp.t_next) {
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
                            icp.search = false;
                            *d += 1;
                            icp.s_next |= S_SCANNED;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// `do_roll`: read on in the direction of travel up to the requested
    /// time, folding the records into the bounds.
    fn do_roll(&mut self, t_req: f64, seen_mark: &mut bool) -> Result<(), PmError> {
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
            self.remember();
            self.update_bounds(t_req, &logrp, upd, None, Some(seen_mark))?;
        };
        if err == PmError::PM_ERR_LOGREC {
            return Err(err);
        }
        Ok(())
    }

    /// `time_caliper`: when an instance domain ever has 16 or more
    /// instances, the first and last sighting of each instance in the
    /// metadata.
    fn caliper(&mut self, indom: InDom, inst: i32) -> (f64, f64) {
        if indom == InDom::NULL {
            return (-1.0, -1.0);
        }
        if !self.interp.calipers.contains_key(&indom.0) {
            let start = self.start;
            // libpcp's chain: newest first (no calipers where a set cannot
            // be read: each instance is then taken to be there throughout)
            let sets: Vec<_> = self.meta.indom_history(indom).rev().collect::<Result<_, PmError>>().unwrap_or_default();
            let table = sets.iter().any(|set| set.ids.len() >= 16).then(|| {
                let mut t: HashMap<i32, (f64, f64)> = HashMap::new();
                let mut t_indom_prior = -1.0;
                for set in &sets {
                    let t_indom = Ts::from_timestamp(set.when).sub(start);
                    for &id in &set.ids {
                        t.entry(id).and_modify(|e| e.0 = t_indom).or_insert((t_indom, t_indom_prior));
                    }
                    t_indom_prior = t_indom;
                }
                t
            });
            self.interp.calipers.insert(indom.0, table);
        }
        self.interp
            .calipers
            .get(&indom.0)
            .and_then(|t| t.as_ref())
            .and_then(|t| t.get(&inst))
            .copied()
            .unwrap_or((-1.0, -1.0))
    }

    /// `pmGetInDomArchive`: every instance the metadata ever lists for
    /// `indom`, newest records first.
    fn archive_instances(&self, indom: InDom) -> Vec<i32> {
        self.meta.indom_union_ids(indom).unwrap_or_default()
    }

    fn pmid_ctl(&mut self, pmid: PmId) -> usize {
        if let Some(&i) = self.interp.by_pmid.get(&pmid.0) {
            return i;
        }
        let desc = self.meta.desc(pmid).ok().copied();
        let mut pcp = PmidCtl {
            ty: desc.map_or(-1, |d| d.ty.0),
            sem: desc.map_or(Semantics(0), |d| d.sem),
            indom: desc.map_or(InDom::NULL, |d| d.indom),
            valfmt: -1,
            numval: 0,
            last_numval: -1,
            insts: Vec::new(),
            by_inst: foldhash::HashMap::default(),
        };
        if pcp.ty != -1 {
            let ids = if pcp.indom == InDom::NULL { vec![PM_IN_NULL] } else { self.archive_instances(pcp.indom) };
            let order = if pcp.indom == InDom::NULL { vec![0] } else { prealloc_hash_order(&ids) };
            for i in order {
                let mut icp = InstCtl::new(ids[i]);
                (icp.t_birth, icp.t_death) = self.caliper(pcp.indom, ids[i]);
                pcp.by_inst.insert(ids[i], pcp.insts.len());
                pcp.insts.push(icp);
            }
        }
        let i = self.interp.pmids.len();
        self.interp.pmids.push(pcp);
        self.interp.by_pmid.insert(pmid.0, i);
        self.interp.ids.push(pmid.0);
        i
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

/// `__pmLogFetchInterp`, into `out` (its value lists reused; on an error,
/// what it holds is unspecified).
pub(crate) fn fetch_into(
    r: &mut Replay,
    pmids: &[PmId],
    wanted: &dyn Fn(InDom, i32) -> bool,
    out: &mut FetchResult,
) -> Result<(), PmError> {
    let t_req = r.origin.sub(r.start);
    let res = fetch_at(r, t_req, pmids, wanted, out);
    match res {
        Err(Early(e)) => Err(e),
        Ok(v) => {
            r.advance();
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
        }
    }

    if back > 0 {
        if let Err(e) = r.log.change_vol(r.ac_vol) {
            return Ok(Err(e));
        }
        r.log.seek(r.ac_offset);
        let mut done = 0i32;
        while done < back {
            let logrp = match r.cache_read(Dir::Back) {
                Ok(l) => l,
                Err(PmError::PM_ERR_LOGREC) => return Err(Early(PmError::PM_ERR_LOGREC)),
                Err(_) => break,
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
        for (p, i) in unbound.iter() {
            let icp = &mut r.interp.pmids[p].insts[i];
            if (is(icp.s_prior, S_UNDEFINED) || icp.t_prior > t_req) && icp.t_first < t_req {
                icp.t_first = t_req;
                icp.s_prior |= S_SCANNED;
            }
            icp.search = false;
        }
    }

    // third pass: who needs a bound from later in the archive
    let mut unbound = Unbound::new();
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
        }
    }

    if forw > 0 {
        if let Err(e) = r.log.change_vol(r.ac_vol) {
            return Ok(Err(e));
        }
        r.log.seek(r.ac_offset);
        let mut done = 0i32;
        while done < forw {
            let logrp = match r.cache_read(Dir::Forw) {
                Ok(l) => l,
                Err(PmError::PM_ERR_LOGREC) => return Err(Early(PmError::PM_ERR_LOGREC)),
                Err(_) => break,
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
        for (p, i) in unbound.iter() {
            let icp = &mut r.interp.pmids[p].insts[i];
            if icp.t_next < t_req && (icp.t_last < 0.0 || t_req < icp.t_last) {
                icp.t_last = t_req;
                icp.s_next |= S_SCANNED;
            }
            icp.search = false;
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

/// How many emptied value lists interpolation keeps for the next fetch.
const POOL_MAX: usize = 64;

/// Whether neither the second nor the third pass of [`fetch_at`] has
/// anything to do for `icp`: both its bounds are there, and no search is
/// wanted. Most often both are values, one at or before `t_req` and one
/// at or after it, which is decided at once.
#[inline]
fn is_bounded(icp: &InstCtl, t_req: f64, direction: i32) -> bool {
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
fn prior_missing(icp: &InstCtl, t_req: f64) -> bool {
    icp.t_prior < 0.0 || icp.t_prior > t_req
}

/// Whether the second pass of [`fetch_at`] searches back for `icp`'s prior
/// bound.
fn search_back(icp: &InstCtl, t_req: f64, direction: i32) -> bool {
    (is(icp.s_prior, S_UNDEFINED) && !is(icp.s_prior, S_SCANNED))
        || (icp.t_prior > t_req && (direction < 0 || !is(icp.s_prior, S_SCANNED)))
        || (is(icp.s_next, S_MARK) && icp.t_prior == t_req)
}

/// Whether `icp` has no next bound at or after `t_req` (the third pass then
/// reads on to `t_req` first, going backwards).
fn next_missing(icp: &InstCtl, t_req: f64) -> bool {
    icp.t_next < 0.0 || icp.t_next < t_req
}

/// Whether the third pass of [`fetch_at`] searches forwards for `icp`'s
/// next bound.
fn search_forw(icp: &InstCtl, t_req: f64, direction: i32) -> bool {
    (is(icp.s_next, S_UNDEFINED) && !is(icp.s_next, S_SCANNED))
        || (icp.t_next < t_req && (direction > 0 || !is(icp.s_next, S_SCANNED)))
        || (is(icp.s_prior, S_MARK) && icp.t_next == t_req)
}

/// One instance's value at `t_req` from its bounds, or `None` where libpcp
/// puts none.
fn interpolate(ty: i32, sem: Semantics, valfmt: i32, icp: &InstCtl, t_req: f64, wrap: bool) -> Option<Value> {
    let exact = if icp.t_prior == t_req {
        Some(&icp.v_prior)
    } else if icp.t_next == t_req {
        Some(&icp.v_next)
    } else {
        None
    };
    let both = icp.t_prior >= 0.0 && icp.t_next >= 0.0;
    // for non-counters: which held value to take, if any
    let held = || -> Option<&Option<Value>> {
        if sem == Semantics::DISCRETE {
            (icp.t_prior >= 0.0).then_some(&icp.v_prior)
        } else if sem == Semantics::INSTANT {
            both.then_some(&icp.v_prior)
        } else {
            None
        }
    };
    let counter = sem != Semantics::DISCRETE && sem != Semantics::INSTANT;
    let dt_req = t_req - icp.t_prior;
    let dt = icp.t_next - icp.t_prior;
    let block = |vtype: i32, data: &[u8]| Some(Value::Block(ValueBlock::from_slice(vtype as u8, data)));
    match ty {
        0 | 1 => {
            if let Some(v) = exact {
                return Some(Value::Insitu(lval(v)));
            }
            if !counter {
                return held().map(|v| Value::Insitu(lval(v)));
            }
            if !both {
                return None;
            }
            let (p, n) = (lval(&icp.v_prior), lval(&icp.v_next));
            let out = if ty == 0 {
                if n >= p || !wrap {
                    cvtt_i32(0.5 + p as f64 + dt_req * (n.wrapping_sub(p) as f64) / dt)
                } else {
                    // libpcp adds the prior value to the following slot
                    // instead of this one
                    cvtt_i32(0.5 + dt_req * (n.wrapping_sub(p) as f64) / dt)
                }
            } else {
                let (p, n) = (p as u32, n as u32);
                let ul = if n >= p {
                    cvt_u32(0.5 + p as f64 + dt_req * (n - p) as f64 / dt)
                } else if wrap {
                    cvt_u32(0.5 + dt_req * (n.wrapping_sub(p) as f64) / dt).wrapping_add(p)
                } else {
                    cvt_u32(0.5 + p as f64 - dt_req * (p - n) as f64 / dt)
                };
                ul as i32
            };
            Some(Value::Insitu(out))
        }
        4 if valfmt == 0 => {
            if let Some(v) = exact {
                return Some(Value::Insitu(lval(v)));
            }
            if !counter {
                return held().map(|v| Value::Insitu(lval(v)));
            }
            if !both {
                return None;
            }
            let (p, n) = (f32::from_bits(lval(&icp.v_prior) as u32), f32::from_bits(lval(&icp.v_next) as u32));
            let f = (p as f64 + dt_req * ((n - p) as f64) / dt) as f32;
            Some(Value::Insitu(f.to_bits() as i32))
        }
        4 => {
            let src = match exact {
                Some(v) => v,
                None if !counter => held()?,
                None => {
                    if !both {
                        return None;
                    }
                    let (p, n) = (f32_of(&icp.v_prior), f32_of(&icp.v_next));
                    let f = (p as f64 + dt_req * ((n - p) as f64) / dt) as f32;
                    return block(4, &f.to_le_bytes());
                }
            };
            block(4, &bytes8(src)[..4])
        }
        2 | 3 => {
            let src = match exact {
                Some(v) => v,
                None if !counter => held()?,
                None => {
                    if !both {
                        return None;
                    }
                    let (p, n) = (i64::from_le_bytes(bytes8(&icp.v_prior)), i64::from_le_bytes(bytes8(&icp.v_next)));
                    let out = if ty == 2 {
                        cvtt_i64(0.5 + p as f64 + dt_req * (n.wrapping_sub(p) as f64) / dt) as u64
                    } else if n >= p {
                        // libpcp compares the unsigned values, and converts
                        // the prior, as signed; and its compiler, reasoning
                        // that a signed difference cannot overflow, converts
                        // the difference as signed too
                        cvt_u64(0.5 + p as f64 + dt_req * (n.wrapping_sub(p) as f64) / dt)
                    } else if wrap {
                        let d = (n as u64).wrapping_sub(p as u64);
                        cvt_u64(0.5 + p as f64 + dt_req * (d as f64) / dt)
                    } else {
                        cvt_u64(0.5 + p as f64 - dt_req * (p.wrapping_sub(n) as f64) / dt)
                    };
                    return block(ty, &out.to_le_bytes());
                }
            };
            block(ty, &bytes8(src))
        }
        5 => {
            let src = match exact {
                Some(v) => v,
                None if !counter => held()?,
                None => {
                    if !both {
                        return None;
                    }
                    let (p, n) = (f64::from_le_bytes(bytes8(&icp.v_prior)), f64::from_le_bytes(bytes8(&icp.v_next)));
                    let d = p + dt_req * (n - p) / dt;
                    return block(5, &d.to_le_bytes());
                }
            };
            block(5, &bytes8(src))
        }
        6 | 7 | 9 | 10 if icp.t_prior >= 0.0 => match &icp.v_prior {
            Some(Value::Block(b)) => Some(Value::Block(b.clone())),
            _ => None,
        },
        _ => None,
    }
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

    #[test]
    fn conversions_behave_like_x86_64() {
        assert_eq!(cvtt_i32(f64::NAN), i32::MIN);
        assert_eq!(cvtt_i32(3e9), i32::MIN);
        assert_eq!(cvtt_i32(-2.7), -2);
        assert_eq!(cvt_u32(-1.0), u32::MAX);
        assert_eq!(cvt_u32(4294967296.5), 0);
        assert_eq!(cvt_u64(-1.0), u64::MAX);
        assert_eq!(cvt_u64(f64::NAN), 1 << 63);
        assert_eq!(cvt_u64(1.8446744073709552e19), 0);
        assert_eq!(cvt_u64(9223372036854775808.0), 1 << 63);
    }

    #[test]
    fn hash_order_with_one_bucket_per_key() {
        // keys 0..4 in 4 buckets: one per bucket, in bucket order
        assert_eq!(prealloc_hash_order(&[3, 1, 2, 0]), [3, 1, 2, 0]);
        // 5 and 1 share bucket 1 of 4; the later one comes first
        assert_eq!(prealloc_hash_order(&[1, 5, 2, 3]), [1, 0, 2, 3]);
    }
}
