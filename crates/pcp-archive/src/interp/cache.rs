//! Reading records for interpolation, through a cache of what the
//! records read hold for the metrics asked for.
//!
//! libpcp keeps the last four records read, and so does this cache
//! ([`Cache::recent`]). Searching for instances with no value near the
//! requested time reads the same records again and again (a replay over
//! thousands of short-lived processes reads each record some forty
//! times), so a record read a second time is also kept ([`Cache::kept`]),
//! as the values of the metrics asked for only, when they are a small
//! part of the record (else reading it again costs little more than using
//! a copy), within a memory budget.
//! Either way the records are the file's, read at the same places: the
//! values fetched are the same as without the cache.

use super::InterpState;
use crate::logread::{Dir, Record, SetRef, Ts};
use crate::record::{Swap, ValRef};
use crate::replay::Replay;
use pcp_core::debug::DebugFlag;
use pcp_core::{PmError, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// A record read, with its value sets of the metrics asked for so far.
#[derive(Clone, Debug)]
pub(super) struct Read {
    ts: Ts,
    mark: bool,
    body: Body,
    /// The record's time in seconds after a start, and that start (worked
    /// out once for a record read again from the cache: libpcp's long
    /// double arithmetic is done on integers here, and is slow).
    since: (Ts, f64),
}

/// Where a [`Read`]'s values are.
#[derive(Clone, Debug)]
enum Body {
    /// In the record as read, at these sets.
    Record(Arc<Record>, Arc<[SetRef]>),
    /// Copied out of it.
    Kept(Arc<Kept>),
}

/// The value sets of the metrics asked for, copied out of a record: for a
/// record kept for long, without the rest of it.
#[derive(Debug)]
pub(super) struct Kept {
    /// Each set, and where its values are in `values`.
    sets: Vec<(Head, std::ops::Range<usize>)>,
    values: Vec<(i32, KeptValue)>,
    /// The value blocks' bytes, in host order.
    bytes: Vec<u8>,
}

#[derive(Clone, Copy, Debug)]
enum KeptValue {
    Insitu(i32),
    /// A value block's type, and where its bytes are.
    Block(u8, u32, u32),
}

/// A [`Read`]'s value sets of the metrics asked for.
pub(super) enum Sets<'a> {
    Record(&'a Record, &'a [SetRef]),
    Kept(&'a Kept),
}

impl Kept {
    /// Each value set, with its instances and values.
    pub(super) fn sets(&self) -> impl Iterator<Item = (Head, impl Iterator<Item = (i32, ValRef<'_>)>)> {
        self.sets.iter().map(|(head, range)| {
            let values = self.values[range.clone()].iter().map(|&(inst, v)| match v {
                KeptValue::Insitu(l) => (inst, ValRef::Insitu(l)),
                KeptValue::Block(vtype, at, len) => {
                    let data = &self.bytes[at as usize..(at + len) as usize];
                    (inst, ValRef::Block { vtype, data, swap: Swap::None })
                }
            });
            (*head, values)
        })
    }
}

/// A value set's PMID, number of values (or an error code) and value
/// format.
#[derive(Clone, Copy, Debug)]
pub(super) struct Head {
    pub(super) pmid: u32,
    pub(super) numval: i32,
    pub(super) valfmt: i32,
}

impl Head {
    pub(super) fn of(set: SetRef) -> Head {
        Head { pmid: set.pmid, numval: set.numval, valfmt: set.valfmt }
    }
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

    /// Whether the record is a mark (a gap in the recording).
    pub(super) fn is_mark(&self) -> bool {
        self.mark
    }

    /// Its value sets of metrics asked for.
    pub(super) fn sets(&self) -> Sets<'_> {
        match &self.body {
            Body::Record(rec, hits) => Sets::Record(rec, hits),
            Body::Kept(kept) => Sets::Kept(kept),
        }
    }

    /// The same, its values copied out of the record.
    fn kept(&self) -> Read {
        let mut kept = Kept { sets: Vec::new(), values: Vec::new(), bytes: Vec::new() };
        if let Body::Record(rec, hits) = &self.body {
            for &set in hits.iter() {
                let from = kept.values.len();
                for (inst, v) in rec.values(set) {
                    let v = match v.to_value() {
                        Value::Insitu(l) => KeptValue::Insitu(l),
                        Value::Block(b) => {
                            let at = kept.bytes.len() as u32;
                            kept.bytes.extend_from_slice(&b.data);
                            KeptValue::Block(b.vtype, at, b.data.len() as u32)
                        }
                    };
                    kept.values.push((inst, v));
                }
                kept.sets.push((Head::of(set), from..kept.values.len()));
            }
        }
        kept.sets.shrink_to_fit();
        kept.values.shrink_to_fit();
        kept.bytes.shrink_to_fit();
        Read { body: Body::Kept(Arc::new(kept)), ..self.clone() }
    }

    /// How many bytes the record read takes (0 once kept).
    fn record_len(&self) -> usize {
        match &self.body {
            Body::Record(rec, _) => rec.raw().len(),
            Body::Kept(_) => 0,
        }
    }

    /// Roughly how many bytes a kept record holds.
    fn size(&self) -> usize {
        match &self.body {
            Body::Record(..) => 0,
            Body::Kept(k) => {
                std::mem::size_of::<CacheEntry>()
                    + std::mem::size_of::<Kept>()
                    + k.sets.len() * std::mem::size_of::<(Head, std::ops::Range<usize>)>()
                    + k.values.len() * std::mem::size_of::<(i32, KeptValue)>()
                    + k.bytes.len()
            }
        }
    }
}

/// Where a record is: the archive (of several), its volume, and an offset
/// in that volume.
type Place = (usize, i32, i64);

#[derive(Clone, Debug)]
struct CacheEntry {
    rp: Read,
    /// The offsets of the record's start and end.
    head: i64,
    tail: i64,
}

/// Records kept by [`Replay::cache_read`].
#[derive(Debug, Default, Clone)]
pub(super) struct Cache {
    /// How many metrics had been asked for when the entries were made:
    /// when more are, every entry is forgotten.
    hits_for: usize,
    /// The last records read (libpcp's cache): slots taken in turn, the
    /// turn moving on at every read, as libpcp's does (so that a trace
    /// counts the reads libpcp makes).
    recent: [Option<(usize, i32, CacheEntry)>; RECENT],
    /// The slot of the last read.
    idx: usize,
    /// Records read more than once, by where they start ...
    kept: HashMap<Place, CacheEntry>,
    /// ... and where they end.
    kept_by_tail: HashMap<Place, i64>,
    /// The starts of the records read before, and whether keeping them was
    /// tried and refused.
    seen: HashMap<Place, bool>,
    /// Roughly how many bytes `kept` holds.
    bytes: usize,
    /// Whether a record has been asked for (libpcp's cache allocated).
    pub(super) used: bool,
    /// For `-Dlog,interp`'s trace at the end: of each slot of `recent`,
    /// the name of the archive its last read was kept for (`None` where
    /// it was not kept), and whether that read gave a record.
    pub(super) traced: [(Option<String>, bool); RECENT],
}

/// How many records libpcp's cache holds.
const RECENT: usize = 4;
/// At most this many bytes of values are kept from records read again.
const KEPT_BYTES: usize = 64 << 20;
/// Values are kept from a record when they take at most this part of it.
const KEPT_PART: usize = 4;
/// At most this many record starts are remembered.
const SEEN_MAX: usize = 1 << 20;

impl Cache {
    /// A record read before, from where it starts (going forwards) or
    /// ends (going backwards); among the records kept for long too, if
    /// `kept`.
    /// (With the slot of [`Cache::recent`] it was found in, if there.)
    fn find(&self, arch: usize, vol: i32, posn: i64, dir: Dir, kept: bool) -> Option<(Option<usize>, CacheEntry)> {
        let recent = self.recent.iter().enumerate().find_map(|(k, e)| match e {
            Some((a, v, c))
                if *a == arch && *v == vol && if dir == Dir::Forw { c.head == posn } else { c.tail == posn } =>
            {
                Some((k, c))
            }
            _ => None,
        });
        if let Some((k, c)) = recent {
            return Some((Some(k), c.clone()));
        }
        if !kept {
            return None;
        }
        let head = if dir == Dir::Forw { posn } else { *self.kept_by_tail.get(&(arch, vol, posn))? };
        self.kept.get(&(arch, vol, head)).map(|c| (None, c.clone()))
    }

    /// Keep `entry` for long if it has been read before (and is worth it).
    fn keep(&mut self, arch: usize, vol: i32, entry: &CacheEntry) {
        let place = (arch, vol, entry.head);
        let refused = self.seen.insert(place, false);
        if refused == Some(false) && self.bytes < KEPT_BYTES {
            // read before: worth keeping, its values copied out, when
            // they are a small part of the record (else reading it again
            // costs little more than using the copy)
            let kept = entry.rp.kept();
            let size = kept.size();
            if self.bytes + size <= KEPT_BYTES && size * KEPT_PART <= entry.rp.record_len() {
                self.bytes += size;
                self.kept_by_tail.insert((arch, vol, entry.tail), entry.head);
                self.kept.insert(place, CacheEntry { rp: kept, ..entry.clone() });
            } else {
                self.seen.insert(place, true);
            }
        } else if refused == Some(true) {
            self.seen.insert(place, true);
        }
        if self.seen.len() >= SEEN_MAX {
            self.seen.clear();
        }
    }
}

impl InterpState {
    /// More metrics are asked for: the records read keep only the value
    /// sets of those asked for before, so find their sets again (those
    /// kept for long are forgotten).
    fn refresh_cache(&mut self) {
        let old = std::mem::take(&mut self.cache);
        let mut cache =
            Cache { hits_for: self.ids.len(), idx: old.idx, used: old.used, traced: old.traced, ..Cache::default() };
        for (k, e) in old.recent.into_iter().enumerate() {
            if let Some((arch, vol, CacheEntry { rp, head, tail })) = e {
                if let Body::Record(rec, _) = &rp.body {
                    let hits = self.hits(rec);
                    let rp = Read { body: Body::Record(rec.clone(), hits), ..rp };
                    cache.recent[k] = Some((arch, vol, CacheEntry { rp, head, tail }));
                }
            }
        }
        self.cache = cache;
    }

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
    /// `cache_read`: a record read in direction `dir`, through the cache
    /// of records read before.
    pub(super) fn cache_read(&mut self, dir: Dir) -> Result<Read, PmError> {
        let posn = if self.ac_vol == self.log.curvol { self.log.tell() } else { 0 };
        let (cur, ac_vol, nids) = (self.cur, self.ac_vol, self.interp.ids.len());
        // records read again are kept for long only when no trace counts
        // the reads
        let tracing = self.log.tracing() || self.log.trace.on(DebugFlag::Interp);
        // -Dlog,desperate: every read, and what the cache did
        let desperate = self.log.tracing() && self.log.trace.on(DebugFlag::Desperate);
        if self.interp.cache.hits_for != nids {
            self.interp.refresh_cache();
        }
        let cache = &mut self.interp.cache;
        cache.used = true;
        if desperate {
            let (fd, curvol) = (self.log.fd(crate::logread::Which::Mfp), self.log.curvol);
            let (way, end) = if dir == Dir::Forw { ("forw", "head") } else { ("back", "tail") };
            self.log.trace.write(format_args!(
                "cache_read: fd={fd} mode={way} vol={ac_vol} (curvol={curvol}) {end}_posn={posn} "
            ));
        }
        cache.idx = (cache.idx + 1) % RECENT;
        if let Some((slot, c)) = cache.find(cur, ac_vol, posn, dir, !tracing) {
            self.log.seek(if dir == Dir::Forw { c.tail } else { c.head });
            self.log.mark_done = false;
            if desperate {
                let t_this = c.rp.since(self.start);
                self.log.trace.write(format_args!("hit cache[{}] t={t_this:.6}\n", slot.unwrap_or(0)));
                self.interp.nr_cache[usize::from(dir == Dir::Back)] += 1;
            }
            return Ok(c.rp);
        }
        if desperate {
            self.log.trace.write(format_args!("miss\n"));
        }
        self.interp.nr[usize::from(dir == Dir::Back)] += 1;
        let slot = cache.idx;
        cache.recent[slot] = None;
        let (save_cur, save_curvol) = (self.cur, self.log.curvol);
        let read = self.read_rec(dir);
        // not after a volume or archive switch, or a boundary mark
        let cached = posn != 0 && save_curvol == self.log.curvol && save_cur == self.cur && !self.log.mark_done;
        if desperate {
            self.trace_reload(slot, cached, posn, dir, read.as_ref().err());
        }
        if self.log.tracing() && self.log.trace.on(DebugFlag::Interp) {
            let name = cached.then(|| crate::opentrace::lcp_name(self.log.base()));
            self.interp.cache.traced[slot] = (name, read.is_ok());
        }
        let rec = read?;
        let since = (self.start, rec.ts.sub(self.start));
        let hits = self.interp.hits(&rec);
        let rp = Read { ts: rec.ts, mark: rec.is_mark(), body: Body::Record(Arc::new(rec), hits), since };
        if cached {
            let now = self.log.tell();
            let (head, tail) = if dir == Dir::Forw { (posn, now) } else { (now, posn) };
            let entry = CacheEntry { rp: rp.clone(), head, tail };
            let cache = &mut self.interp.cache;
            if !tracing {
                cache.keep(self.cur, self.ac_vol, &entry);
            }
            cache.recent[slot] = Some((self.cur, self.ac_vol, entry));
        }
        Ok(rp)
    }

    /// `-Dlog,desperate`: what became of cache slot `slot` after a read
    /// from `posn` (`err` if it failed).
    fn trace_reload(&self, slot: usize, cached: bool, posn: i64, dir: Dir, err: Option<&PmError>) {
        let trace = &self.log.trace;
        if !cached {
            trace.write(format_args!("cache_read: reload vol switch, mark cache[{slot}] unused\n"));
            return;
        }
        let now = self.log.tell();
        let (head, tail) = if dir == Dir::Forw { (posn, now) } else { (now, posn) };
        let (vol, curvol) = (self.ac_vol, self.log.curvol);
        trace.write(format_args!(
            "cache_read: reload cache[{slot}] vol={vol} (curvol={curvol}) head={head} tail={tail} "
        ));
        match err {
            None => trace.write(format_args!("sts=0\n")),
            Some(e) => trace.write(format_args!("sts={e}\n")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::Archive;

    /// Folding a kept copy sees what folding the record sees: the same
    /// sets, instances and values (numbers, strings and aggregates of the
    /// fixture archives, byte-swapped as libpcp leaves them).
    #[test]
    fn kept_values_are_the_records() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        for name in ["v2", "v3", "dyn", "wrap"] {
            let archive = Archive::open(&dir.join(name).to_string_lossy()).unwrap();
            let mut r = Replay::new(archive).unwrap();
            let mut records = 0;
            while let Ok(rec) = r.read_rec(Dir::Forw) {
                let hits: Arc<[SetRef]> = rec.sets_where(|_| true).into();
                let read = Read {
                    ts: rec.ts,
                    mark: rec.is_mark(),
                    body: Body::Record(Arc::new(rec), hits),
                    since: (r.start, 0.0),
                };
                let kept = read.kept();
                let (Sets::Record(rec, hits), Sets::Kept(k)) = (read.sets(), kept.sets()) else {
                    panic!("not a record and a copy")
                };
                let from_record: Vec<_> = hits
                    .iter()
                    .map(|&s| {
                        (s.pmid, s.numval, s.valfmt, rec.values(s).map(|(i, v)| (i, v.to_value())).collect::<Vec<_>>())
                    })
                    .collect();
                let from_kept: Vec<_> = k
                    .sets()
                    .map(|(h, vals)| {
                        (h.pmid, h.numval, h.valfmt, vals.map(|(i, v)| (i, v.to_value())).collect::<Vec<_>>())
                    })
                    .collect();
                assert_eq!(from_record, from_kept, "{name}: record at {:?}", read.ts);
                assert_eq!(kept.is_mark(), read.is_mark());
                records += 1;
            }
            assert!(records > 2, "{name}: {records} records");
        }
    }
}
