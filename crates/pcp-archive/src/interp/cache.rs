//! Reading records for interpolation, through a small cache of the
//! records read around the current position.

use super::InterpState;
use crate::logread::{Dir, Record, SetRef, Ts};
use crate::replay::Replay;
use pcp_core::PmError;
use std::sync::Arc;

/// A record read, with its value sets of the metrics asked for so far.
#[derive(Clone, Debug)]
pub(super) struct Read {
    rec: Arc<Record>,
    pub(super) hits: Arc<[SetRef]>,
    /// The record's time in seconds after a start, and that start (worked
    /// out once for a record read again from the cache: libpcp's long
    /// double arithmetic is done on integers here, and is slow).
    since: (Ts, f64),
}

impl Read {
    /// The record's time in seconds after `start` (`__pmTimestampSub`).
    pub(super) fn since(&self, start: Ts) -> f64 {
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
pub(super) struct CacheEntry {
    rp: Read,
    /// How many metrics had been asked for when `rp.hits` was found.
    hits_for: usize,
    /// The archive (of several) and volume it was read from.
    arch: usize,
    vol: i32,
    head: i64,
    tail: i64,
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
    pub(super) fn pmid_index(&self, pmid: u32) -> Option<usize> {
        if self.ids.len() <= 8 {
            self.ids.iter().position(|&p| p == pmid)
        } else {
            self.by_pmid.get(&pmid).copied()
        }
    }
}

impl Replay {
    /// `cache_read`: a record read in direction `dir`, through a small
    /// cache of records recently read around the current position.
    pub(super) fn cache_read(&mut self, dir: Dir) -> Result<Read, PmError> {
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
}
