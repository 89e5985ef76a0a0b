//! Instance domains numbered as `pmdaCache` numbers them.

/// One instance domain's instances, numbered as libpcp_pmda's cache
/// numbers them: a new name gets one more than the largest identifier
/// (0 for the first), a name once seen keeps its identifier for the life
/// of the cache, and each refresh marks which instances are present
/// ("active"). Entries are kept in identifier order, the order the PMDA
/// walks them in.
#[doc(alias = "pmdaCache")]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InstCache {
    entries: Vec<(i32, String, bool)>,
}

impl InstCache {
    /// An empty cache.
    pub fn new() -> InstCache {
        InstCache::default()
    }

    /// Seed the cache from a saved one (`PMDA_CACHE_LOAD`): the entries
    /// keep their identifiers and start inactive. Entries whose name or
    /// identifier is already present are skipped.
    pub fn load(&mut self, entries: impl IntoIterator<Item = (i32, String)>) {
        for (inst, name) in entries {
            if inst < 0 || self.entries.iter().any(|(i, n, _)| *i == inst || *n == name) {
                continue;
            }
            let at = self.entries.partition_point(|(i, _, _)| *i < inst);
            self.entries.insert(at, (inst, name, false));
        }
    }

    /// Mark every instance absent (`PMDA_CACHE_INACTIVE`).
    pub fn deactivate_all(&mut self) {
        for e in &mut self.entries {
            e.2 = false;
        }
    }

    /// Mark `name` present, adding it if new (`PMDA_CACHE_ADD`); its
    /// identifier, or `None` when no identifier is left.
    pub fn add(&mut self, name: &str) -> Option<i32> {
        if let Some(e) = self.entries.iter_mut().find(|(_, n, _)| n == name) {
            e.2 = true;
            return Some(e.0);
        }
        let inst = match self.entries.last() {
            None => 0,
            Some(&(last, _, _)) if last < i32::MAX => last + 1,
            // identifiers ran out at the top: take the lowest free one
            Some(_) => {
                let mut want = 0;
                for (i, _, _) in &self.entries {
                    if *i != want {
                        break;
                    }
                    want = want.checked_add(1)?;
                }
                want
            }
        };
        let at = self.entries.partition_point(|(i, _, _)| *i < inst);
        self.entries.insert(at, (inst, name.to_owned(), true));
        Some(inst)
    }

    /// Does the cache hold `name`, active or not?
    pub fn contains(&self, name: &str) -> bool {
        self.entries.iter().any(|(_, n, _)| n == name)
    }

    /// The identifier of an active instance named `name`.
    pub fn lookup(&self, name: &str) -> Option<i32> {
        self.entries.iter().find(|(_, n, a)| *a && n == name).map(|e| e.0)
    }

    /// The name of active instance `inst`.
    pub fn name(&self, inst: i32) -> Option<&str> {
        self.entries.iter().find(|(i, _, a)| *a && *i == inst).map(|e| e.1.as_str())
    }

    /// The active instances, in identifier order.
    pub fn active(&self) -> impl Iterator<Item = (i32, &str)> + '_ {
        self.entries.iter().filter(|e| e.2).map(|e| (e.0, e.1.as_str()))
    }

    /// How many instances are active (`PMDA_CACHE_SIZE_ACTIVE`).
    pub fn active_count(&self) -> usize {
        self.entries.iter().filter(|e| e.2).count()
    }

    /// How many instances the cache holds, active or not.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Does the cache hold no instance at all?
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_follows_pmda_cache() {
        let mut c = InstCache::new();
        assert_eq!(c.add("lo"), Some(0));
        assert_eq!(c.add("eth0"), Some(1));
        c.deactivate_all();
        assert_eq!(c.add("eth1"), Some(2));
        assert_eq!(c.add("lo"), Some(0));
        assert_eq!(c.active().collect::<Vec<_>>(), vec![(0, "lo"), (2, "eth1")]);
        assert_eq!(c.name(1), None);
        assert_eq!(c.lookup("eth1"), Some(2));
        assert_eq!(c.active_count(), 2);
        assert_eq!(c.len(), 3);
    }

    #[test]
    fn loaded_entries_keep_their_numbers() {
        let mut c = InstCache::new();
        c.load([(3, "eth0".to_string()), (0, "lo".to_string()), (3, "dup".to_string())]);
        assert_eq!(c.active_count(), 0);
        assert_eq!(c.add("eth0"), Some(3));
        assert_eq!(c.add("new"), Some(4));
        let mut full = InstCache::new();
        full.load([(i32::MAX, "top".to_string()), (0, "a".to_string())]);
        assert_eq!(full.add("b"), Some(1));
    }
}
