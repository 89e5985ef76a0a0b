//! The label sets of an archive as libpcp holds them after loading `.meta`
//! (`addlabel`, `check_dup_labels`, `__pmLogLookupLabel`).
//!
//! Each label record is filed by its type (without the compound and
//! optional bits) and identifier (context labels all under `PM_ID_NULL`),
//! on a chain ordered by decreasing time: a record goes after every entry
//! no older than it. A lookup at a time takes the first entry logged at or
//! before it. After loading, each entry drops the sets that the entry just
//! older than it also holds (same instance, same labels and values), and an
//! entry left with no sets goes, unless it is the oldest.
//!
//! Contexts look label sets up in it ([`LabelIndex::lookup`]); pmdumplog's
//! `-e` walks its chains in libpcp's table order ([`LabelIndex::chains_of`]).
//!
//! One slip of libpcp's is kept: when the latest entry for an identifier
//! holds no sets, the next record for it starts a second chain under the
//! same key, and which chain lookups find then depends on the hash table's
//! history ([`PmHash`]).

use crate::raw::MetaRecord;
use pcp_core::labels::{flags, Label, LabelSet, PM_MAXLABELJSONLEN, PM_MAXLABELS};
use pcp_core::support::hash::PmHash;
use pcp_core::{PmError, PmResult, Timestamp};

/// `PM_ID_NULL`: the identifier context labels are filed under.
const ID_NULL: u32 = 0xffff_ffff;

/// Label sets of one type and identifier, logged at one time
/// (`__pmLogLabelSet`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelEntry {
    /// When they were logged.
    pub when: Timestamp,
    /// The sets (one a instance for instance labels).
    pub sets: Vec<LabelSet>,
}

/// An archive's label sets, by type and identifier.
#[derive(Clone, Debug, Default)]
pub struct LabelIndex {
    /// Type -> identifier -> chain, newest first.
    by_type: PmHash<PmHash<Vec<LabelEntry>>>,
}

/// The key a record or lookup files under: the type without the compound
/// and optional bits, and `PM_ID_NULL` for context labels.
fn key(kind: u32, ident: u32) -> (u32, u32) {
    let kind = kind & !u32::from(flags::COMPOUND | flags::OPTIONAL);
    (kind, if kind == u32::from(flags::CONTEXT) { ID_NULL } else { ident })
}

/// `len` bytes of `json` from `off`, reading NULs past its end (libpcp's
/// copy of the text ends in one).
fn bytes_at(json: &[u8], off: u16, len: usize) -> impl Iterator<Item = u8> + '_ {
    (usize::from(off)..usize::from(off) + len).map(|i| json.get(i).copied().unwrap_or(0))
}

/// `samelabelset`: the same instance, and every label of `a` in `b` by
/// name with the same value.
fn same_set(a: &LabelSet, b: &LabelSet) -> bool {
    if a.inst != b.inst || a.nlabels != b.nlabels {
        return false;
    }
    let na = usize::try_from(a.nlabels).unwrap_or(0).min(a.labels.len());
    let nb = usize::try_from(b.nlabels).unwrap_or(0).min(b.labels.len());
    a.labels[..na].iter().all(|l1| {
        let same_name = |l2: &&Label| {
            l1.namelen == l2.namelen
                && bytes_at(&a.json, l1.name, l1.namelen.into()).eq(bytes_at(&b.json, l2.name, l2.namelen.into()))
        };
        match b.labels[..nb].iter().find(same_name) {
            Some(l2) => {
                l1.valuelen == l2.valuelen
                    && bytes_at(&a.json, l1.value, l1.valuelen.into()).eq(bytes_at(
                        &b.json,
                        l2.value,
                        l2.valuelen.into(),
                    ))
            }
            None => false,
        }
    })
}

impl LabelIndex {
    /// Index the label records among `records` (in `.meta` order) as
    /// `__pmLogLoadMeta` does. A set with text longer than
    /// `PM_MAXLABELJSONLEN` or more than `PM_MAXLABELS` labels is
    /// `PM_ERR_LOGREC`.
    #[doc(alias = "addlabel")]
    #[doc(alias = "check_dup_labels")]
    pub fn build(records: &[MetaRecord]) -> PmResult<LabelIndex> {
        LabelIndex::build_all([records])
    }

    /// Index the label records of several archives as libpcp accumulates
    /// them for a multi-archive context: each archive's records filed on
    /// top of the ones before, in the order given, duplicates dropped after
    /// each archive.
    #[doc(alias = "addlabel")]
    #[doc(alias = "check_dup_labels")]
    pub fn build_all<'a>(archives: impl IntoIterator<Item = &'a [MetaRecord]>) -> PmResult<LabelIndex> {
        let mut index = LabelIndex::default();
        for records in archives {
            index.load(records)?;
        }
        Ok(index)
    }

    /// File one archive's label records, then drop duplicates.
    fn load(&mut self, records: &[MetaRecord]) -> PmResult<()> {
        let index = self;
        for rec in records {
            let MetaRecord::Labels { when, kind, ident, sets } = rec else { continue };
            let mut entry = LabelEntry { when: *when, sets: Vec::with_capacity(sets.len()) };
            for s in sets {
                if s.json.len() > PM_MAXLABELJSONLEN || s.labels.len() > PM_MAXLABELS {
                    return Err(PmError::PM_ERR_LOGREC);
                }
                let labels = s
                    .labels
                    .iter()
                    .map(|&(name, namelen, flags, value, valuelen)| Label { name, namelen, flags, value, valuelen })
                    .collect();
                let mut set = LabelSet::from_parts(s.inst, s.json.clone(), labels);
                // an error code kept, as libpcp keeps it: merges pass over the set
                set.nlabels = s.nlabels.min(set.nlabels);
                entry.sets.push(set);
            }
            index.add(*kind, *ident, entry);
        }
        index.drop_duplicates();
        Ok(())
    }

    /// `addlabel`: file an entry.
    fn add(&mut self, kind: u32, ident: u32, entry: LabelEntry) {
        let (kind, ident) = key(kind, ident);
        let found = self.lookup(kind, ident, None).map_or(0, <[LabelSet]>::len);
        if found == 0 {
            if self.by_type.search(kind).is_none() {
                self.by_type.add(kind, PmHash::new());
            }
            if let Some(idents) = self.by_type.search_mut(kind) {
                idents.add(ident, vec![entry]);
            }
            return;
        }
        if let Some(chain) = self.by_type.search_mut(kind).and_then(|idents| idents.search_mut(ident)) {
            let at = chain.iter().position(|e| e.when < entry.when).unwrap_or(chain.len());
            chain.insert(at, entry);
        }
    }

    /// `check_dup_labels`: drop from each entry the sets the next older
    /// entry holds, then the entries left empty (but never the oldest).
    fn drop_duplicates(&mut self) {
        for (_, idents) in self.by_type.iter_mut() {
            for (_, chain) in idents.iter_mut() {
                for k in 0..chain.len().saturating_sub(1) {
                    let (newer, older) = chain.split_at_mut(k + 1);
                    let (newer, older) = (&mut newer[k], &older[0]);
                    newer.sets.retain(|s| !older.sets.iter().any(|o| same_set(s, o)));
                }
                let last = chain.len().saturating_sub(1);
                let mut k = 0;
                chain.retain(|e| {
                    k += 1;
                    k - 1 == last || !e.sets.is_empty()
                });
            }
        }
    }

    /// `__pmLogLookupLabel`: the sets of `kind` for `ident` logged last at
    /// or before `when` (with no time, the latest); none when all were
    /// logged later, `PM_ERR_NOLABELS` when there are none of that type
    /// and identifier at all.
    #[doc(alias = "__pmLogLookupLabel")]
    pub fn lookup(&self, kind: u32, ident: u32, when: Option<Timestamp>) -> PmResult<&[LabelSet]> {
        let (kind, ident) = key(kind, ident);
        let chain =
            self.by_type.search(kind).and_then(|idents| idents.search(ident)).ok_or(PmError::PM_ERR_NOLABELS)?;
        let entry = match when {
            Some(t) => chain.iter().find(|e| e.when <= t),
            None => chain.first(),
        };
        Ok(entry.map_or(&[][..], |e| e.sets.as_slice()))
    }

    /// The chains of one label type (`kind`, its flag bits ignored):
    /// identifier and entries (newest first), in the order libpcp walks
    /// that type's table. An identifier has two chains when its latest
    /// entry held no sets as the next record for it came.
    pub fn chains_of(&self, kind: u32) -> impl Iterator<Item = (u32, &[LabelEntry])> {
        let (kind, _) = key(kind, 0);
        self.by_type.search(kind).into_iter().flat_map(|idents| idents.iter().map(|(i, c)| (i, c.as_slice())))
    }

    /// Every chain: type, identifier and entries (newest first), in the
    /// order libpcp's tables walk them.
    pub fn chains(&self) -> impl Iterator<Item = (u32, u32, &[LabelEntry])> {
        self.by_type
            .iter()
            .flat_map(|(kind, idents)| idents.iter().map(move |(ident, chain)| (kind, ident, chain.as_slice())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raw::LabelSet as RawSet;

    fn t(sec: i64) -> Timestamp {
        Timestamp::new(sec, 0)
    }

    /// A record of one set `{"a":v}` per (inst, v).
    fn rec(when: i64, kind: u8, ident: u32, sets: &[(i32, &str)]) -> MetaRecord {
        let sets = sets
            .iter()
            .map(|&(inst, v)| {
                let json = format!(r#"{{"a":{v}}}"#).into_bytes();
                RawSet { inst, json, labels: vec![(2, 1, kind, 5, v.len() as u16)], nlabels: 1 }
            })
            .collect();
        MetaRecord::Labels { when: t(when), kind: kind.into(), ident, sets }
    }

    fn values(sets: &[LabelSet]) -> Vec<(i32, String)> {
        sets.iter().map(|s| (s.inst, String::from_utf8_lossy(s.value(&s.labels[0])).into_owned())).collect()
    }

    #[test]
    fn lookups_take_the_latest_at_or_before() {
        let recs = [rec(20, flags::ITEM, 7, &[(-1, "2")]), rec(10, flags::ITEM, 7, &[(-1, "1")])];
        let idx = LabelIndex::build(&recs).unwrap();
        let at = |s| values(idx.lookup(flags::ITEM.into(), 7, Some(t(s))).unwrap());
        assert_eq!(at(5), []);
        assert_eq!(at(10), [(-1, "1".to_string())]);
        assert_eq!(at(25), [(-1, "2".to_string())]);
        assert_eq!(values(idx.lookup(flags::ITEM.into(), 7, None).unwrap()), [(-1, "2".to_string())]);
        assert_eq!(idx.lookup(flags::ITEM.into(), 8, None), Err(PmError::PM_ERR_NOLABELS));
        assert_eq!(idx.lookup(flags::DOMAIN.into(), 7, None), Err(PmError::PM_ERR_NOLABELS));
    }

    #[test]
    fn context_labels_ignore_their_identifier_and_flag_bits() {
        let c = flags::CONTEXT | flags::COMPOUND;
        let idx = LabelIndex::build(&[rec(1, c, 42, &[(-1, "1")])]).unwrap();
        assert_eq!(values(idx.lookup(flags::CONTEXT.into(), 0, Some(t(1))).unwrap()).len(), 1);
    }

    #[test]
    fn repeated_sets_are_dropped_from_the_newer_entry() {
        let i = flags::INSTANCES;
        let recs = [
            rec(1, i, 5, &[(0, "1"), (1, "1")]),
            rec(2, i, 5, &[(0, "1"), (1, "2")]),
            rec(3, i, 5, &[(0, "1"), (1, "2")]),
        ];
        let idx = LabelIndex::build(&recs).unwrap();
        let chains: Vec<_> = idx.chains().collect();
        assert_eq!(chains.len(), 1);
        // t=3 repeats t=2 entirely and goes; t=2 keeps what changed
        let when: Vec<i64> = chains[0].2.iter().map(|e| e.when.sec).collect();
        assert_eq!(when, [2, 1]);
        assert_eq!(values(idx.lookup(i.into(), 5, Some(t(9))).unwrap()), [(1, "2".to_string())]);
        assert_eq!(values(idx.lookup(i.into(), 5, Some(t(1))).unwrap()).len(), 2);
    }

    #[test]
    fn equal_times_file_after_earlier_records() {
        let recs = [rec(1, flags::ITEM, 3, &[(-1, "1")]), rec(1, flags::ITEM, 3, &[(-1, "2")])];
        let idx = LabelIndex::build(&recs).unwrap();
        assert_eq!(values(idx.lookup(flags::ITEM.into(), 3, Some(t(1))).unwrap()), [(-1, "1".to_string())]);
    }

    #[test]
    fn an_empty_latest_entry_starts_a_second_chain() {
        let d = flags::INDOM;
        let recs = [rec(10, d, 3, &[]), rec(20, d, 3, &[(1, "1")]), rec(30, d, 4, &[(1, "1")])];
        let idx = LabelIndex::build(&recs).unwrap();
        let chains: Vec<(u32, Vec<i64>)> =
            idx.chains_of(d.into()).map(|(i, c)| (i, c.iter().map(|e| e.when.sec).collect())).collect();
        // one bucket: the newest node first
        assert_eq!(chains, [(4, vec![30]), (3, vec![20]), (3, vec![10])]);
        assert_eq!(idx.chains_of(flags::ITEM.into()).count(), 0);
        // lookups find the newer chain
        assert_eq!(values(idx.lookup(d.into(), 3, None).unwrap()), [(1, "1".to_string())]);
    }

    #[test]
    fn oversized_sets_are_corrupt() {
        let mut r = rec(1, flags::ITEM, 3, &[(-1, "1")]);
        if let MetaRecord::Labels { sets, .. } = &mut r {
            sets[0].labels = vec![(2, 1, 0, 5, 1); 256];
            sets[0].nlabels = 256;
        }
        assert_eq!(LabelIndex::build(&[r]).unwrap_err(), PmError::PM_ERR_LOGREC);
    }
}
