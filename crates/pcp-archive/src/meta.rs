//! The metadata of an archive as libpcp holds it after loading `.meta`:
//! descriptors by PMID, the name space, each instance domain's history,
//! and help text, with libpcp's rules for duplicates, conflicts and
//! version 3 delta instance domains.

use crate::logread::Ts;
use crate::raw::{c_str, Logged, MetaRecord, Stamp};
use foldhash::{HashMap, HashMapExt};
use pcp_core::debug::{DebugFlag, Trace};
use pcp_core::{Desc, InDom, PmError, PmId, PmResult, Timestamp};
use std::sync::{Arc, OnceLock};

/// An instance name, shared with the record that logged it by every set
/// made from that record (whole sets, or deltas resolved against the set
/// before).
pub type InstName = crate::raw::InstName;

/// One instance set of an instance domain, valid from `when` on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InDomSet {
    /// When it was logged.
    pub when: Timestamp,
    /// When, as the record has it (`when` is its instant).
    pub stamp: Stamp,
    /// Instance identifiers, ascending.
    pub ids: Vec<i32>,
    /// Their names (a C string each: up to the first NUL), shared with
    /// the other sets that have them.
    pub names: Vec<InstName>,
}

impl InDomSet {
    /// The name of instance `inst`, if the set has it (of the first with
    /// that identifier, should there be more: the set is in order).
    pub fn name_of(&self, inst: i32) -> Option<&[u8]> {
        let k = self.ids.partition_point(|&i| i < inst);
        (self.ids.get(k) == Some(&inst)).then(|| &*self.names[k])
    }

    /// The instance named `name`: a whole-name match first, else a match
    /// of the name up to its first space (libpcp's rule).
    pub fn lookup(&self, name: &[u8]) -> Option<i32> {
        if let Some(i) = self.names.iter().position(|n| **n == *name) {
            return Some(self.ids[i]);
        }
        self.names
            .iter()
            .position(|n| n.iter().position(|&b| b == b' ').is_some_and(|sp| name.starts_with(&n[..sp])))
            .map(|i| self.ids[i])
    }
}

/// Metadata indexed for lookups: what `__pmLogLoadMeta` builds.
#[derive(Clone, Debug, Default)]
pub struct MetaIndex {
    descs: HashMap<PmId, Desc>,
    /// PMIDs in the order their first descriptor appeared.
    desc_order: Vec<PmId>,
    /// Each name with its PMID, in file order (a C string each).
    names: Vec<(Vec<u8>, PmId)>,
    /// Where each archive's names end in `names`, archive by archive.
    name_ends: Vec<usize>,
    /// Each instance domain's sets, oldest first (deltas resolved when
    /// first asked for).
    indoms: HashMap<InDom, History>,
    /// Instance domains in the order they were first added.
    indom_order: Vec<InDom>,
    /// Help text by (`PM_TEXT_*` kind as logged, ident): the last text
    /// logged wins.
    text: HashMap<(u32, u32), Arc<[u8]>>,
    /// For `-Dlogmeta`: which delta sets libpcp would have made whole by
    /// now, with their instance counts (`None` while still a delta), by
    /// instance domain; made when first traced.
    undelta: Arc<std::sync::Mutex<HashMap<InDom, Vec<Option<i32>>>>>,
}

/// `PM_TEXT_ONELINE`, `PM_TEXT_HELP`, `PM_TEXT_PMID`, `PM_TEXT_INDOM`,
/// `PM_TEXT_DIRECT`.
pub mod text_kind {
    /// One-line help.
    pub const ONELINE: u32 = 1;
    /// Full help.
    pub const HELP: u32 = 2;
    /// For a metric.
    pub const PMID: u32 = 4;
    /// For an instance domain.
    pub const INDOM: u32 = 8;
    /// Bypass caches (ignored by lookups).
    pub const DIRECT: u32 = 16;
}

/// A raw instance-domain record on libpcp's per-indom chain.
struct Raw {
    when: Timestamp,
    stamp: Stamp,
    delta: bool,
    /// As logged (sorted by id when used); `None` names are deletions
    /// (deltas only).
    insts: Logged,
}

impl MetaIndex {
    /// Index `records` (in `.meta` file order) as `__pmLogLoadMeta` does:
    /// a PMID's later descriptors must agree with its first
    /// (`PM_ERR_LOGCHANGE*`); instance domains without instances are not
    /// kept; identical sets at one time are kept once; metadata without
    /// descriptors is `PM_ERR_LOGREC`.
    #[doc(alias = "__pmLogLoadMeta")]
    pub fn build(records: &[MetaRecord]) -> PmResult<MetaIndex> {
        MetaIndex::build_all([records])
    }

    /// Index the metadata of several archives as libpcp accumulates it for
    /// a multi-archive context: each archive's records (in `.meta` order)
    /// loaded on top of the ones before, in the order given. Descriptors
    /// must agree across archives too; each archive must hold at least one
    /// descriptor (`PM_ERR_LOGREC`); the last help text loaded wins.
    #[doc(alias = "__pmLogLoadMeta")]
    pub fn build_all<'a>(archives: impl IntoIterator<Item = &'a [MetaRecord]>) -> PmResult<MetaIndex> {
        let mut m = MetaIndex::default();
        // per indom, libpcp's chain (newest first), held in reverse
        let mut chains: HashMap<InDom, Vec<Raw>> = HashMap::new();
        for records in archives {
            m.load(records, &mut chains)?;
        }
        for (indom, chain) in chains {
            m.indoms.insert(indom, History::new(chain));
        }
        Ok(m)
    }

    /// Load one archive's records on top of what is indexed already.
    fn load(&mut self, records: &[MetaRecord], chains: &mut HashMap<InDom, Vec<Raw>>) -> PmResult<()> {
        let m = self;
        let mut ndesc = 0usize;
        for rec in records {
            match rec {
                MetaRecord::Desc { desc, names } => {
                    ndesc += 1;
                    if let Some(old) = m.descs.get(&desc.pmid) {
                        desc_conflict(old, desc)?;
                    } else {
                        m.descs.insert(desc.pmid, *desc);
                        m.desc_order.push(desc.pmid);
                    }
                    // (up to the first NUL: libpcp holds names as C strings)
                    m.names.extend(names.iter().map(|n| (c_str(n).to_vec(), desc.pmid)));
                }
                MetaRecord::InDom { when, stamp, indom, instances, delta, .. } => {
                    if instances.is_empty() {
                        continue;
                    }
                    let raw = Raw { when: *when, stamp: *stamp, delta: *delta, insts: instances.clone() };
                    match chains.get_mut(indom) {
                        None => {
                            m.indom_order.push(*indom);
                            chains.insert(*indom, vec![raw]);
                        }
                        Some(chain) => add_to_chain(chain, raw)?,
                    }
                }
                MetaRecord::Text { kind, ident, text } => {
                    let both = text_kind::ONELINE | text_kind::HELP;
                    if kind & both != 0 && kind & (text_kind::PMID | text_kind::INDOM) != 0 {
                        // keyed by the whole kind word, as libpcp's
                        // addtext keys it: lookups drop PM_TEXT_DIRECT from
                        // the kind asked for, so they never find a text
                        // logged with it (or with other bits)
                        m.text.insert((*kind, *ident), Arc::clone(text));
                    }
                }
                MetaRecord::Labels { .. } => {}
            }
        }
        if ndesc == 0 {
            return Err(PmError::PM_ERR_LOGREC);
        }
        m.name_ends.push(m.names.len());
        Ok(())
    }

    /// `__pmLogLookupDesc`: the descriptor of `pmid`.
    #[doc(alias = "__pmLogLookupDesc")]
    pub fn desc(&self, pmid: PmId) -> PmResult<&Desc> {
        self.descs.get(&pmid).ok_or(PmError::PM_ERR_PMID_LOG)
    }

    /// Every descriptor, in the order its PMID first appeared.
    pub fn descs(&self) -> impl Iterator<Item = &Desc> {
        self.desc_order.iter().filter_map(|p| self.descs.get(p))
    }

    /// Every (name, PMID) pair in file order, names as C strings.
    pub fn names(&self) -> &[(Vec<u8>, PmId)] {
        &self.names
    }

    /// [`MetaIndex::names`] archive by archive, in the order they were
    /// loaded (one slice for a single archive).
    pub fn names_by_archive(&self) -> impl Iterator<Item = &[(Vec<u8>, PmId)]> {
        let starts = std::iter::once(0).chain(self.name_ends.iter().copied());
        starts.zip(self.name_ends.iter().copied()).map(|(a, b)| &self.names[a..b])
    }

    /// Instance domains in the order they were first logged.
    pub fn indom_order(&self) -> &[InDom] {
        &self.indom_order
    }

    /// The whole history of `indom`, oldest first: each set, or why it
    /// cannot be had (a record left in the file that can no longer be
    /// read as it was when the archive was opened).
    pub fn indom_history(
        &self,
        indom: InDom,
    ) -> impl DoubleEndedIterator<Item = PmResult<&InDomSet>> + ExactSizeIterator {
        static NONE: History = History { entries: Vec::new(), first_full: None };
        let hist = self.indoms.get(&indom).unwrap_or(&NONE);
        (0..hist.len()).map(move |k| hist.set(k))
    }

    /// `__pmLogGetInDom`: the set of `indom` in force at `when` (the latest
    /// logged at or before it), or the latest of all when `when` is
    /// `None`.
    #[doc(alias = "__pmLogGetInDom")]
    pub fn indom_at(&self, indom: InDom, when: Option<Timestamp>) -> PmResult<&InDomSet> {
        let hist = self.indoms.get(&indom).ok_or(PmError::PM_ERR_INDOM_LOG)?;
        let upto = match when {
            None => hist.len(),
            Some(t) => {
                // libpcp walks from the newest set to the first not later
                // than `when` by `__pmTimestampCmp`, whose seconds wrap at
                // 2^31 apart: within a 2^30 reach the order is the
                // instants'
                let near = |e: Option<&Entry>| e.is_none_or(|e| e.when.sec.abs_diff(t.sec) < 1 << 30);
                if near(hist.entries.first()) && near(hist.entries.last()) {
                    hist.entries.partition_point(|e| e.when <= t)
                } else {
                    let t = Stamp::from(t);
                    hist.entries.iter().rposition(|e| e.stamp.libpcp_cmp(t).is_le()).map_or(0, |k| k + 1)
                }
            }
        };
        upto.checked_sub(1).ok_or(PmError::PM_ERR_INDOM_LOG).and_then(|k| hist.set(k))
    }

    /// The history the `pm*InDomArchive` calls search: `PM_ERR_INDOM` for
    /// `PM_INDOM_NULL`, `PM_ERR_INDOM_LOG` for an instance domain never
    /// logged.
    fn archive_history(&self, indom: InDom) -> PmResult<&History> {
        if indom == InDom::NULL {
            return Err(PmError::PM_ERR_INDOM);
        }
        self.indoms.get(&indom).ok_or(PmError::PM_ERR_INDOM_LOG)
    }

    /// `__pmLogSearchInDom`'s `-Dlogmeta` trace of looking for the set of
    /// `indom` in force at `when` (the latest when `None`), as
    /// `pmGetInDom`, `pmNameInDom` and `pmLookupInDom` look for it in an
    /// archive context: the sets newer than `when`, then the one found.
    /// Nothing is written unless the trace has `-Dlogmeta`.
    #[doc(alias = "__pmLogSearchInDom")]
    pub fn trace_search(&self, indom: InDom, when: Option<Timestamp>, trace: &Trace) {
        if !trace.on(DebugFlag::LogMeta) {
            return;
        }
        let show = |t: Timestamp| Ts::from_timestamp(t).shown(trace).to_string();
        let mut out = format!("__pmLogSearchInDom( ..., {indom}, ");
        out += &when.map_or_else(|| "<null timestamp>".to_owned(), show);
        out += ")\n";
        // libpcp's chain: newest first
        let mut found = None;
        let entries = self.indoms.get(&indom).map_or(&[][..], |h| &h.entries[..]);
        for (k, e) in entries.iter().enumerate().rev() {
            if e.delta {
                self.trace_undelta(indom, entries, k, &show, &mut out);
            }
            match when {
                Some(t) if e.stamp.libpcp_cmp(t.into()).is_gt() => {
                    out += &format!("request @ {} is too early for indom @ {}\n", show(t), e.stamp.shown(trace))
                }
                _ => {
                    found = Some(e.stamp);
                    break;
                }
            }
        }
        if let Some(at) = found {
            out += &format!("success for indom @ {}\n", at.shown(trace));
        }
        trace.write_bytes(out.as_bytes());
    }

    /// `__pmLogUndeltaInDom`'s `-Dlogmeta` trace of making the `k`th set
    /// of `indom`'s history (oldest first) whole, if it is a delta set
    /// libpcp has not made whole yet, as pmdumplog -i does on its way
    /// through each history.
    pub fn trace_undelta_set(&self, indom: InDom, k: usize, trace: &Trace) {
        let Some(entries) = self.indoms.get(&indom).map(|h| &h.entries[..]) else { return };
        if !trace.on(DebugFlag::LogMeta) || !entries.get(k).is_some_and(|e| e.delta) {
            return;
        }
        let show = |t: Timestamp| Ts::from_timestamp(t).shown(trace).to_string();
        let mut out = String::new();
        self.trace_undelta(indom, entries, k, &show, &mut out);
        trace.write_bytes(out.as_bytes());
    }

    /// `__pmLogUndeltaInDom`'s `-Dlogmeta` trace of making the delta set
    /// `entries[k]` whole (with the deltas between it and the whole set
    /// before it), the first time libpcp is asked for it. Addresses are
    /// made up, one for each set.
    fn trace_undelta(
        &self,
        indom: InDom,
        entries: &[Entry],
        k: usize,
        show: &dyn Fn(Timestamp) -> String,
        out: &mut String,
    ) {
        let mut all = self.undelta.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let counts = all
            .entry(indom)
            .or_insert_with(|| entries.iter().map(|e| (!e.delta).then(|| e.logged.len() as i32)).collect());
        if counts[k].is_some() {
            return;
        }
        // the nearest whole set before it (libpcp gives up without one)
        let Some(from) = (0..k).rev().find(|&j| counts[j].is_some()) else { return };
        let addr =
            |j: usize| format!("0x{:x}", 0x55d2_0000_0000u64 + (u64::from(indom.0 & 0xf_ffff) << 20) + j as u64 * 0xc0);
        let near = |j: Option<usize>| j.filter(|&j| j < entries.len()).map_or_else(|| "(nil)".to_owned(), addr);
        for d in from + 1..=k {
            let Ok(delta) = entries[d].logged.get() else { return };
            let mut n = counts[d - 1].unwrap_or(0);
            for j in 0..delta.len() {
                n += if delta.name(j).is_some() { 1 } else { -1 };
            }
            out.push_str(&format!(
                "__pmLogUndeltaInDom({indom}, {}): undelta {} @{} next={} prior={} numinst={} (-> {n}) isdelta=1\n",
                addr(k),
                addr(d),
                show(entries[d].when),
                near(d.checked_sub(1)),
                near(Some(d + 1)),
                delta.len()
            ));
            counts[d] = Some(n);
        }
    }

    /// `pmGetInDomArchive`: every instance `indom` ever had, each once,
    /// newest sets first (libpcp's order), with the name it had there.
    #[doc(alias = "pmGetInDomArchive")]
    pub fn indom_union(&self, indom: InDom) -> PmResult<(Vec<i32>, Vec<Vec<u8>>)> {
        let hist = self.archive_history(indom)?;
        Ok(union(hist)?.into_iter().map(|(set, k)| (set.ids[k], set.names[k].to_vec())).unzip())
    }

    /// [`MetaIndex::indom_union`] without the names.
    pub fn indom_union_ids(&self, indom: InDom) -> PmResult<Vec<i32>> {
        let hist = self.archive_history(indom)?;
        Ok(union(hist)?.into_iter().map(|(set, k)| set.ids[k]).collect())
    }

    /// `pmLookupInDomArchive`: an instance by name in any set, newest first.
    #[doc(alias = "pmLookupInDomArchive")]
    pub fn lookup_inst_any(&self, indom: InDom, name: &[u8]) -> PmResult<i32> {
        let hist = self.archive_history(indom)?;
        for set in hist.newest_first() {
            if let Some(inst) = set?.lookup(name) {
                return Ok(inst);
            }
        }
        Err(PmError::PM_ERR_INST_LOG)
    }

    /// `pmNameInDomArchive`: an instance's name from the newest set having it.
    #[doc(alias = "pmNameInDomArchive")]
    pub fn name_inst_any(&self, indom: InDom, inst: i32) -> PmResult<&[u8]> {
        let hist = self.archive_history(indom)?;
        for set in hist.newest_first() {
            if let Some(name) = set?.name_of(inst) {
                return Ok(name);
            }
        }
        Err(PmError::PM_ERR_INST_LOG)
    }

    /// Every help text: its kind (the `PM_TEXT_*` bits as logged),
    /// identifier and text, in no particular order.
    pub fn texts(&self) -> impl Iterator<Item = (u32, u32, &[u8])> {
        self.text.iter().map(|(&(kind, ident), t)| (kind, ident, &**t))
    }

    /// `__pmLogLookupText`: help text of `kind` (`PM_TEXT_ONELINE` or
    /// `PM_TEXT_HELP`, with `PM_TEXT_PMID` or `PM_TEXT_INDOM`) for `ident`.
    #[doc(alias = "__pmLogLookupText")]
    pub fn text(&self, kind: u32, ident: u32) -> PmResult<&[u8]> {
        let kind = kind & !text_kind::DIRECT;
        if !self.text.keys().any(|(k, _)| *k == kind) {
            // libpcp's answer when no text of this kind was logged at all
            return Err(PmError::PM_ERR_NOTHOST);
        }
        self.text.get(&(kind, ident)).map(|t| &**t).ok_or(PmError::PM_ERR_TEXT)
    }
}

/// The first descriptor of `records` that disagrees with an earlier one
/// for its PMID (`PM_ERR_LOGCHANGE*`), if any: libpcp adds each record as
/// it reads it, so such a conflict ends its reading before any later
/// record that does not decode.
pub(crate) fn first_desc_conflict(records: &[MetaRecord]) -> Option<PmError> {
    let mut first: HashMap<PmId, &Desc> = HashMap::new();
    for rec in records {
        let MetaRecord::Desc { desc, .. } = rec else { continue };
        match first.get(&desc.pmid) {
            Some(old) => {
                if let Err(e) = desc_conflict(old, desc) {
                    return Some(e);
                }
            }
            None => {
                first.insert(desc.pmid, desc);
            }
        }
    }
    None
}

/// `__pmLogAddDesc`'s check of a descriptor logged again for a PMID
/// against the first: type, semantics, instance domain, then units (their
/// pad bits do not count) must agree.
pub(crate) fn desc_conflict(old: &Desc, new: &Desc) -> PmResult<()> {
    if new.ty != old.ty {
        return Err(PmError::PM_ERR_LOGCHANGETYPE);
    }
    if new.sem != old.sem {
        return Err(PmError::PM_ERR_LOGCHANGESEM);
    }
    if new.indom != old.indom {
        return Err(PmError::PM_ERR_LOGCHANGEINDOM);
    }
    let dims = |u: pcp_core::Units| {
        (u.dim_space(), u.dim_time(), u.dim_count(), u.scale_space(), u.scale_time(), u.scale_count())
    };
    if dims(new.units) != dims(old.units) {
        return Err(PmError::PM_ERR_LOGCHANGEUNITS);
    }
    Ok(())
}

/// libpcp's `addindom`: keep the chain in decreasing time; a set identical
/// to one already at the same time is not added again (the existing one
/// moves to the head of its time slot); a new set goes to the head of its
/// time slot. `chain` holds libpcp's chain in reverse (oldest first, a time
/// slot's head last), so that sets logged in time order are appended.
/// (Comparing reads the instances of records left in the file: a failure
/// to read them is the error.)
fn add_to_chain(chain: &mut Vec<Raw>, new: Raw) -> PmResult<()> {
    // the time slot of `new`
    let lo = chain.partition_point(|c| c.when < new.when);
    let hi = lo + chain[lo..].partition_point(|c| c.when == new.when);
    let mut insts = None;
    for dup in (lo..hi).rev() {
        // (sets of different sizes differ: neither is read to find that)
        if chain[dup].insts.len() != new.insts.len() {
            continue;
        }
        let insts = match &insts {
            Some(i) => i,
            None => insts.insert(new.insts.get()?),
        };
        if chain[dup].insts.get()?.same_sorted(insts) {
            let item = chain.remove(dup);
            chain.insert(hi - 1, item);
            return Ok(());
        }
    }
    chain.insert(hi, new);
    Ok(())
}

/// One instance domain's history, oldest first: whole sets sorted, and
/// delta sets resolved against the set before them (libpcp's
/// `__pmLogUndeltaInDom`), when first asked for, so that tools asking
/// for a few instance domains, or one time, do not decode them all.
#[derive(Clone, Debug, Default)]
struct History {
    entries: Vec<Entry>,
    /// The first whole set: deltas before it have nothing to resolve
    /// against (libpcp leaves them unresolved; their additions are kept).
    first_full: Option<usize>,
}

/// A set of a [`History`].
#[derive(Clone, Debug)]
struct Entry {
    when: Timestamp,
    stamp: Stamp,
    /// Is `logged` a delta set?
    delta: bool,
    /// The set as logged (`None` names are deletions).
    logged: Logged,
    /// The set, made on first use (boxed: most entries of a long history
    /// are never used).
    set: OnceLock<Box<InDomSet>>,
}

impl History {
    /// `chain` as [`add_to_chain`] keeps it.
    fn new(chain: Vec<Raw>) -> History {
        let mut entries = Vec::with_capacity(chain.len());
        let mut first_full = None;
        for raw in chain {
            if !raw.delta {
                first_full.get_or_insert(entries.len());
            }
            entries.push(Entry {
                when: raw.when,
                stamp: raw.stamp,
                delta: raw.delta,
                logged: raw.insts,
                set: OnceLock::new(),
            });
        }
        History { entries, first_full }
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    /// The `k`th set (`k < len()`), resolved (an error where a record
    /// left in the file cannot be read as it was).
    fn set(&self, k: usize) -> PmResult<&InDomSet> {
        let entry = &self.entries[k];
        if let Some(set) = entry.set.get() {
            return Ok(set);
        }
        let logged = &entry.logged.get()?;
        // sorted by id, as libpcp sorts every set it loads
        let sorted = logged.sorted().into_iter().map(|j| (logged.id(j), logged.shared_name(j)));
        if !entry.delta {
            // (a whole set has a name for every instance)
            let (ids, names) = sorted.map(|(id, n)| (id, n.unwrap_or_else(|| InstName::new(b"")))).unzip();
            return Ok(entry
                .set
                .get_or_init(|| Box::new(InDomSet { when: entry.when, stamp: entry.stamp, ids, names })));
        }
        let delta: Vec<(i32, Option<InstName>)> = sorted.collect();
        let (ids, names) = match self.first_full {
            Some(full) if full < k => {
                // resolve from the nearest whole or resolved set before
                // it on (each step then resolves against a resolved set)
                let from = (full..k)
                    .rev()
                    .find(|&j| !self.entries[j].delta || self.entries[j].set.get().is_some())
                    .unwrap_or(full);
                for j in from + 1..k {
                    self.set(j)?;
                }
                let prev = self.set(k - 1)?;
                merge_delta((&prev.ids, &prev.names), &delta)
            }
            _ => delta.iter().filter_map(|(id, n)| n.clone().map(|n| (*id, n))).unzip(),
        };
        Ok(entry.set.get_or_init(|| Box::new(InDomSet { when: entry.when, stamp: entry.stamp, ids, names })))
    }

    /// The sets, newest first (resolving them all).
    fn newest_first(&self) -> impl Iterator<Item = PmResult<&InDomSet>> {
        (0..self.len()).rev().map(|k| self.set(k))
    }
}

/// Every instance of a history, each once, newest sets first: the set
/// and position where each is first seen.
fn union(hist: &History) -> PmResult<Vec<(&InDomSet, usize)>> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for set in hist.newest_first() {
        let set = set?;
        out.extend((0..set.ids.len()).filter(|&k| seen.insert(set.ids[k])).map(|k| (set, k)));
    }
    Ok(out)
}

/// Apply a sorted delta to a sorted full set: deletions remove a matching
/// instance, additions go in sorted position (before an instance with a
/// larger id).
fn merge_delta((ids, names): (&[i32], &[InstName]), delta: &[(i32, Option<InstName>)]) -> (Vec<i32>, Vec<InstName>) {
    // at most: the old set and every addition
    let most = ids.len() + delta.iter().filter(|d| d.1.is_some()).count();
    let mut out = Merged(Vec::with_capacity(most), Vec::with_capacity(most));
    let (mut i, mut j) = (0, 0);
    while i < ids.len() || j < delta.len() {
        if i < ids.len() && j < delta.len() {
            match &delta[j] {
                (id, None) if *id == ids[i] => {
                    i += 1;
                    j += 1;
                    continue;
                }
                (id, Some(name)) if ids[i] > *id => {
                    out.push(*id, name);
                    j += 1;
                    continue;
                }
                _ => {}
            }
        }
        if i < ids.len() {
            out.push(ids[i], &names[i]);
            i += 1;
        } else {
            // past the old set: additions append; a deletion of an
            // instance that was not there removes nothing
            if let (id, Some(name)) = &delta[j] {
                out.push(*id, name);
            }
            j += 1;
        }
    }
    (out.0, out.1)
}

/// A set being merged: ids and their names, index for index.
struct Merged(Vec<i32>, Vec<InstName>);

impl Merged {
    fn push(&mut self, id: i32, name: &InstName) {
        self.0.push(id);
        self.1.push(name.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcp_core::{MetricType, Semantics, Units};

    fn t(sec: i64) -> Timestamp {
        Timestamp::new(sec, 0)
    }

    fn indom(when: i64, delta: bool, insts: &[(i32, Option<&str>)]) -> MetaRecord {
        MetaRecord::InDom {
            when: t(when),
            stamp: t(when).into(),
            indom: InDom(7),
            instances: insts.iter().map(|&(i, n)| (i, n)).collect::<crate::raw::Instances>().into(),
            delta,
            count: insts.len() as i32,
        }
    }

    fn desc(pmid: u32, ty: i32) -> MetaRecord {
        MetaRecord::Desc {
            desc: Desc {
                pmid: PmId(pmid),
                ty: MetricType(ty),
                indom: InDom(7),
                sem: Semantics(1),
                units: Units::default(),
            },
            names: vec![b"a.b\0pad".to_vec()],
        }
    }

    #[test]
    fn deltas_resolve_against_the_set_before() {
        let recs = [
            desc(1, 3),
            indom(10, false, &[(3, Some("c")), (1, Some("a"))]),
            indom(20, true, &[(1, None), (2, Some("b")), (9, Some("z"))]),
            indom(30, true, &[(3, None)]),
        ];
        let m = MetaIndex::build(&recs).unwrap();
        let h: Vec<&InDomSet> = m.indom_history(InDom(7)).collect::<PmResult<_>>().unwrap();
        assert_eq!(h.len(), 3);
        assert_eq!(h[0].ids, [1, 3]);
        assert_eq!(h[1].ids, [2, 3, 9]);
        let names: Vec<&[u8]> = h[1].names.iter().map(|n| &**n).collect();
        assert_eq!(names, [b"b", b"c", b"z"]);
        // one copy of a name, whichever sets have it
        assert!(h[0].names[1].same_copy(&h[1].names[1]));
        assert_eq!(h[2].ids, [2, 9]);
        assert_eq!(m.indom_at(InDom(7), Some(t(25))).unwrap().ids, [2, 3, 9]);
        assert_eq!(m.indom_at(InDom(7), Some(t(9))), Err(PmError::PM_ERR_INDOM_LOG));
        assert_eq!(m.indom_at(InDom(7), None).unwrap().ids, [2, 9]);
        // union: newest sets first
        assert_eq!(m.indom_union(InDom(7)).unwrap().0, [2, 9, 3, 1]);
        assert_eq!(m.name_inst_any(InDom(7), 1).unwrap(), b"a");
        assert_eq!(m.names()[0].0, b"a.b");
    }

    /// Deltas are resolved when first asked for: asking for a late set
    /// first, or for one time only, gives the sets resolving them all in
    /// order gives.
    #[test]
    fn deltas_resolve_the_same_in_any_order() {
        let recs = [
            desc(1, 3),
            indom(5, true, &[(8, Some("h")), (4, None)]),
            indom(10, false, &[(3, Some("c")), (1, Some("a"))]),
            indom(20, true, &[(1, None), (2, Some("b"))]),
            indom(30, true, &[(4, Some("d"))]),
            indom(40, true, &[(3, None), (5, Some("e"))]),
            indom(50, false, &[(7, Some("g"))]),
            indom(60, true, &[(6, Some("f"))]),
        ];
        let in_order = MetaIndex::build(&recs).unwrap();
        let all: Vec<(Vec<i32>, Vec<Vec<u8>>)> = in_order
            .indom_history(InDom(7))
            .map(|s| s.unwrap())
            .map(|s| (s.ids.clone(), s.names.iter().map(|n| n.to_vec()).collect()))
            .collect();
        assert_eq!(all.len(), 7);
        assert_eq!(all[0].0, [8]);
        assert_eq!(all[3].0, [2, 3, 4]);
        assert_eq!(all[4].0, [2, 4, 5]);
        assert_eq!(all[6].0, [6, 7]);
        for when in [45, 35, 5, 60, 25] {
            let late_first = MetaIndex::build(&recs).unwrap();
            let set = late_first.indom_at(InDom(7), Some(t(when))).unwrap();
            let k =
                recs[1..].iter().filter(|r| matches!(r, MetaRecord::InDom { when: w, .. } if w.sec <= when)).count();
            assert_eq!(set.ids, all[k - 1].0, "at {when}");
            let names: Vec<Vec<u8>> = set.names.iter().map(|n| n.to_vec()).collect();
            assert_eq!(names, all[k - 1].1, "at {when}");
        }
    }

    #[test]
    fn duplicates_at_one_time_are_kept_once_and_order_is_by_time() {
        let recs = [
            desc(1, 3),
            indom(20, false, &[(1, Some("a"))]),
            indom(10, false, &[(2, Some("b"))]),
            indom(20, false, &[(1, Some("a"))]),
            indom(20, false, &[(5, Some("e"))]),
            indom(30, false, &[]),
        ];
        let m = MetaIndex::build(&recs).unwrap();
        let h: Vec<_> = m.indom_history(InDom(7)).map(|s| s.unwrap()).map(|s| (s.when.sec, s.ids.clone())).collect();
        // oldest first; within t=20 the newest added is at the chain head,
        // so it comes last here
        assert_eq!(h, [(10, vec![2]), (20, vec![1]), (20, vec![5])]);
    }

    #[test]
    fn several_archives_load_one_on_top_of_another() {
        let text = |t: &[u8]| MetaRecord::Text { kind: text_kind::ONELINE | text_kind::PMID, ident: 1, text: t.into() };
        let a = [desc(1, 3), text(b"old"), indom(20, false, &[(1, Some("a"))])];
        let b = [desc(1, 3), desc(2, 3), text(b"new"), indom(10, false, &[(2, Some("b"))])];
        let m = MetaIndex::build_all([&a[..], &b[..]]).unwrap();
        // the last text loaded wins; instance sets sort by time across them
        assert_eq!(m.text(text_kind::ONELINE | text_kind::PMID, 1).unwrap(), b"new");
        let h: Vec<_> = m.indom_history(InDom(7)).map(|s| s.unwrap().when.sec).collect();
        assert_eq!(h, [10, 20]);
        let by_archive: Vec<usize> = m.names_by_archive().map(<[_]>::len).collect();
        assert_eq!(by_archive, [1, 2]);
        // descriptors must agree across the archives; each needs one
        assert_eq!(MetaIndex::build_all([&a[..], &[desc(1, 2)][..]]).unwrap_err(), PmError::PM_ERR_LOGCHANGETYPE);
        assert_eq!(MetaIndex::build_all([&a[..], &[text(b"x")][..]]).unwrap_err(), PmError::PM_ERR_LOGREC);
    }

    #[test]
    fn conflicting_descriptors_and_no_descriptors_are_errors() {
        assert_eq!(MetaIndex::build(&[desc(1, 3), desc(1, 2)]).unwrap_err(), PmError::PM_ERR_LOGCHANGETYPE);
        assert_eq!(MetaIndex::build(&[indom(1, false, &[(1, Some("a"))])]).unwrap_err(), PmError::PM_ERR_LOGREC);
    }

    #[test]
    fn instance_lookup_by_name_falls_back_to_first_word() {
        let s = InDomSet {
            when: t(0),
            stamp: Stamp::default(),
            ids: vec![1, 2],
            names: vec![InstName::new(b"cpu0"), InstName::new(b"12 /bin/sh -c")],
        };
        assert_eq!(s.lookup(b"cpu0"), Some(1));
        assert_eq!(s.lookup(b"12"), Some(2));
        assert_eq!(s.lookup(b"12 /bin/sh"), Some(2));
        assert_eq!(s.lookup(b"1"), None);
    }

    /// The chain kept oldest first is libpcp's (newest first) reversed,
    /// whatever order sets arrive in: duplicates at the same time move to
    /// the head of their slot, new sets go to its head.
    #[test]
    fn chains_are_libpcps_reversed() {
        fn newest_first(chain: &mut Vec<Raw>, new: Raw) {
            let start = chain.iter().position(|c| c.when <= new.when).unwrap_or(chain.len());
            let mut end = start;
            while end < chain.len() && chain[end].when == new.when {
                end += 1;
            }
            match (start..end).find(|&i| chain[i].insts == new.insts) {
                Some(dup) => {
                    let item = chain.remove(dup);
                    chain.insert(start, item);
                }
                None => chain.insert(start, new),
            }
        }
        let mut seed = 11u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for _ in 0..300 {
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            let mut when = 0;
            for _ in 0..40 {
                // mostly in time order, sometimes back, often the same time
                when = match next(4) {
                    0 => when + 1,
                    1 => next(10) as i64,
                    _ => when,
                };
                let insts = [(next(3) as i32, None::<&[u8]>)].into_iter().collect::<crate::raw::Instances>();
                let new = Raw { when: t(when), stamp: t(when).into(), delta: false, insts: insts.into() };
                let copy = Raw { when: new.when, stamp: new.stamp, delta: new.delta, insts: new.insts.clone() };
                add_to_chain(&mut ours, new).unwrap();
                newest_first(&mut theirs, copy);
            }
            let a: Vec<_> = ours.iter().rev().map(|r| (r.when, r.insts.clone())).collect();
            let b: Vec<_> = theirs.iter().map(|r| (r.when, r.insts.clone())).collect();
            assert_eq!(a, b);
        }
    }
}
