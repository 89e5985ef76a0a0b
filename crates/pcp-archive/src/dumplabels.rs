//! (pmdumplog's own index of label sets, in the order its `-e` dump walks
//! them; [`crate::labels`] is the one contexts use. Merging the two is
//! open work.)
//!
//! An archive's label sets as libpcp holds them after loading `.meta`
//! (`addlabel`, `check_dup_labels`): per label type and identifier, a
//! chain of timestamped label sets, newest first, with sets repeated
//! unchanged from one time to the next dropped from the later one.

use crate::archive::libpcp_hash_order;
use crate::raw::{LabelSet, MetaRecord};
use pcp_core::Timestamp;

/// `PM_LABEL_CONTEXT` .. `PM_LABEL_INSTANCES`, `PM_LABEL_COMPOUND`,
/// `PM_LABEL_OPTIONAL`.
pub mod label_type {
    /// Context labels.
    pub const CONTEXT: u32 = 1 << 0;
    /// Domain labels.
    pub const DOMAIN: u32 = 1 << 1;
    /// Instance domain labels.
    pub const INDOM: u32 = 1 << 2;
    /// Cluster labels.
    pub const CLUSTER: u32 = 1 << 3;
    /// Metric (item) labels.
    pub const ITEM: u32 = 1 << 4;
    /// Instance labels.
    pub const INSTANCES: u32 = 1 << 5;
    /// Flag: the name has several components.
    pub const COMPOUND: u32 = 1 << 6;
    /// Flag: an optional (extrinsic) label.
    pub const OPTIONAL: u32 = 1 << 7;
}

/// Label sets logged at one time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelEntry {
    /// When.
    pub when: Timestamp,
    /// The sets.
    pub sets: Vec<LabelSet>,
}

/// One identifier's chain (libpcp's hash node): entries newest first.
#[derive(Clone, Debug)]
pub struct LabelChain {
    /// The identifier (`PM_ID_NULL` for context labels).
    pub ident: u32,
    /// The entries, newest first.
    pub entries: Vec<LabelEntry>,
}

/// The label sets of one archive.
#[derive(Debug, Default)]
pub struct LabelIndex {
    /// Per label type (without the flag bits), its chains in the order
    /// they were made.
    types: Vec<(u32, Vec<LabelChain>)>,
}

fn same_set(a: &LabelSet, b: &LabelSet) -> bool {
    if a.inst != b.inst || a.labels.len() != b.labels.len() {
        return false;
    }
    let part = |s: &LabelSet, off: u16, len: usize| -> Option<Vec<u8>> {
        s.json.get(off as usize..off as usize + len).map(<[u8]>::to_vec)
    };
    a.labels.iter().all(|&(name, namelen, _, value, valuelen)| {
        let an = part(a, name, namelen as usize);
        match b.labels.iter().find(|l| l.1 == namelen && part(b, l.0, l.1 as usize) == an) {
            Some(l) => l.4 == valuelen && part(b, l.3, l.4 as usize) == part(a, value, valuelen as usize),
            None => false,
        }
    })
}

impl LabelIndex {
    /// Index the label records among `records` (in `.meta` file order)
    /// as libpcp does.
    pub fn build(records: &[MetaRecord]) -> LabelIndex {
        let mut idx = LabelIndex::default();
        for rec in records {
            if let MetaRecord::Labels { when, kind, ident, sets } = rec {
                idx.add(*kind, *ident, *when, sets.clone());
            }
        }
        for (_, chains) in &mut idx.types {
            for chain in chains.iter_mut() {
                // a later entry drops the sets the entry before it has;
                // an entry left with none goes
                let mut i = 0;
                while i + 1 < chain.entries.len() {
                    let (later, earlier) = chain.entries.split_at_mut(i + 1);
                    let next = &earlier[0];
                    later[i].sets.retain(|s| !next.sets.iter().any(|n| same_set(s, n)));
                    if later[i].sets.is_empty() {
                        chain.entries.remove(i);
                    } else {
                        i += 1;
                    }
                }
            }
        }
        idx
    }

    fn add(&mut self, kind: u32, ident: u32, when: Timestamp, sets: Vec<LabelSet>) {
        let ty = kind & !(label_type::COMPOUND | label_type::OPTIONAL);
        let ident = if ty == label_type::CONTEXT { u32::MAX } else { ident };
        let entry = LabelEntry { when, sets };
        let pos = match self.types.iter().position(|(t, _)| *t == ty) {
            Some(p) => p,
            None => {
                self.types.push((ty, Vec::new()));
                self.types.len() - 1
            }
        };
        let chains = &mut self.types[pos].1;
        // libpcp finds the newest chain for the identifier; one whose
        // latest entry has no sets starts a new chain
        match chains.iter_mut().rev().find(|c| c.ident == ident) {
            Some(c) if c.entries.first().is_some_and(|e| !e.sets.is_empty()) => {
                let at = c.entries.iter().position(|e| e.when < entry.when).unwrap_or(c.entries.len());
                c.entries.insert(at, entry);
            }
            _ => chains.push(LabelChain { ident, entries: vec![entry] }),
        }
    }

    /// The chains of label type `ty`, in libpcp's hash table walk order.
    pub fn chains(&self, ty: u32) -> Vec<&LabelChain> {
        let Some((_, chains)) = self.types.iter().find(|(t, _)| *t == ty) else { return Vec::new() };
        let keys: Vec<u32> = chains.iter().map(|c| c.ident).collect();
        libpcp_hash_order(&keys).into_iter().map(|i| &chains[i]).collect()
    }

    /// Every entry of every chain.
    pub fn entries(&self) -> impl Iterator<Item = &LabelEntry> {
        self.types.iter().flat_map(|(_, c)| c.iter().flat_map(|c| c.entries.iter()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(inst: i32, json: &str) -> LabelSet {
        // one label: the whole of {"a":1} style text, name at 2..3, value at 5..
        let j = json.as_bytes().to_vec();
        let len = j.len();
        LabelSet { inst, json: j, labels: vec![(2, 1, 1, 5, (len - 6) as u16)] }
    }

    fn rec(sec: i64, kind: u32, ident: u32, sets: Vec<LabelSet>) -> MetaRecord {
        MetaRecord::Labels { when: Timestamp::new(sec, 0), kind, ident, sets }
    }

    #[test]
    fn repeated_sets_are_dropped_from_the_later_entry() {
        let recs = [
            rec(10, label_type::DOMAIN, 29, vec![set(-1, "{\"a\":1}")]),
            rec(20, label_type::DOMAIN | label_type::OPTIONAL, 29, vec![set(-1, "{\"a\":1}")]),
            rec(30, label_type::DOMAIN, 29, vec![set(-1, "{\"a\":2}")]),
            rec(5, label_type::CONTEXT, 7, vec![set(-1, "{\"h\":1}")]),
        ];
        let idx = LabelIndex::build(&recs);
        let d = idx.chains(label_type::DOMAIN);
        assert_eq!(d.len(), 1);
        let times: Vec<i64> = d[0].entries.iter().map(|e| e.when.sec).collect();
        assert_eq!(times, [30, 10]);
        assert_eq!(idx.chains(label_type::CONTEXT)[0].ident, u32::MAX);
    }

    #[test]
    fn an_empty_latest_entry_starts_a_new_chain() {
        let recs = [rec(10, label_type::INDOM, 3, vec![]), rec(20, label_type::INDOM, 3, vec![set(1, "{\"a\":1}")])];
        let idx = LabelIndex::build(&recs);
        assert_eq!(idx.chains(label_type::INDOM).len(), 2);
    }
}
