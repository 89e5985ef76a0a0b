//! libpcp's hash table (`__pmHashCtl`), kept as libpcp keeps it.
//!
//! Keys may repeat, and a search finds the first node of the key's bucket
//! chain; which node that is depends on the order of insertion and on when
//! the table grew (growing relinks each chain in reverse). Where libpcp's
//! answers depend on that (duplicate keys, or the order a walk visits
//! nodes in), this table gives the same answers.

/// A hash table from `u32` keys, with libpcp's buckets, growth and chain
/// order.
#[doc(alias = "__pmHashCtl")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PmHash<T> {
    /// Nodes ever added (libpcp never lowers this count, not even when
    /// the table is cleared).
    nodes: usize,
    /// One chain a bucket, head first; as many buckets as the table's size.
    buckets: Vec<Vec<(u32, T)>>,
}

impl<T> Default for PmHash<T> {
    fn default() -> Self {
        PmHash { nodes: 0, buckets: Vec::new() }
    }
}

impl<T> PmHash<T> {
    /// An empty table of size zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// `__pmHashAdd`: add a node at the head of its bucket's chain, after
    /// growing the table when it holds more than four nodes a bucket.
    #[doc(alias = "__pmHashAdd")]
    pub fn add(&mut self, key: u32, data: T) {
        self.nodes += 1;
        let size = self.buckets.len();
        if size == 0 {
            self.buckets.push(Vec::new());
        } else if self.nodes / 4 > size {
            let mut new = size * 2;
            if new % 2 != 0 {
                new += 1;
            }
            if new % 3 != 0 {
                new += 2;
            }
            if new % 5 != 0 {
                new += 2;
            }
            let mut relinked: Vec<Vec<(u32, T)>> = (0..new).map(|_| Vec::new()).collect();
            // last bucket first, each chain from its head, each node onto
            // the head of its new chain
            for chain in std::mem::take(&mut self.buckets).into_iter().rev() {
                for node in chain {
                    relinked[node.0 as usize % new].insert(0, node);
                }
            }
            self.buckets = relinked;
        }
        let size = self.buckets.len();
        self.buckets[key as usize % size].insert(0, (key, data));
    }

    /// `__pmHashSearch`: the data of the first node with `key` in its
    /// bucket's chain.
    #[doc(alias = "__pmHashSearch")]
    pub fn search(&self, key: u32) -> Option<&T> {
        let size = self.buckets.len();
        if size == 0 {
            return None;
        }
        self.buckets[key as usize % size].iter().find(|(k, _)| *k == key).map(|(_, d)| d)
    }

    /// [`search`](Self::search), for changing the data in place.
    pub fn search_mut(&mut self, key: u32) -> Option<&mut T> {
        let size = self.buckets.len();
        if size == 0 {
            return None;
        }
        self.buckets[key as usize % size].iter_mut().find(|(k, _)| *k == key).map(|(_, d)| d)
    }

    /// Every node in `__pmHashWalkCB` order: bucket by bucket, each chain
    /// from its head.
    #[doc(alias = "__pmHashWalkCB")]
    pub fn iter(&self) -> impl Iterator<Item = (u32, &T)> {
        self.buckets.iter().flatten().map(|(k, d)| (*k, d))
    }

    /// [`iter`](Self::iter), for changing the data in place.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (u32, &mut T)> {
        self.buckets.iter_mut().flatten().map(|(k, d)| (*k, d))
    }

    /// Delete every node and free the buckets (`__pmHashWalkCB` deleting
    /// each node, then `__pmHashClear`). The count of nodes ever added is
    /// kept, as libpcp keeps it.
    #[doc(alias = "__pmHashClear")]
    pub fn clear(&mut self) {
        self.buckets.clear();
    }

    /// The table's size (number of buckets).
    pub fn size(&self) -> usize {
        self.buckets.len()
    }

    /// The count of nodes ever added (`nodes`).
    pub fn nodes(&self) -> usize {
        self.nodes
    }

    /// Are there no nodes in the table now?
    pub fn is_empty(&self) -> bool {
        self.buckets.iter().all(Vec::is_empty)
    }
}

impl<T: Clone> PmHash<T> {
    /// A copy made as libpcp copies a table: each node, in walk order,
    /// added to a new table (so chains may come out in another order).
    pub fn copied(&self) -> PmHash<T> {
        let mut new = PmHash::new();
        for (k, d) in self.iter() {
            new.add(k, d.clone());
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_and_relinks_like_libpcp() {
        let mut h = PmHash::new();
        for k in 0..3u32 {
            h.add(k + 5, k);
        }
        // one bucket until the 8th node: newest first
        assert_eq!(h.iter().map(|(k, _)| k).collect::<Vec<_>>(), [7, 6, 5]);
        let mut h = PmHash::new();
        for k in 0..8u32 {
            h.add(k, ());
        }
        // 1 -> 2 -> 4 -> 6 buckets when the 8th arrives; the old chain
        // 6..0 is relinked head first, reversing each new chain
        assert_eq!(h.size(), 6);
        assert_eq!(h.iter().map(|(k, _)| k).collect::<Vec<_>>(), [0, 6, 7, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn duplicate_keys_find_the_chain_head() {
        let mut h = PmHash::new();
        h.add(3, "old");
        h.add(3, "new");
        assert_eq!(h.search(3), Some(&"new"));
        // growth reverses the chain: the older node comes first again
        for k in 0..6 {
            h.add(100 + k * 6, "other");
        }
        assert_eq!(h.size(), 6);
        assert_eq!(h.search(3), Some(&"old"));
    }

    #[test]
    fn clear_keeps_the_node_count() {
        let mut h = PmHash::new();
        h.add(1, ());
        h.clear();
        assert!(h.is_empty());
        assert_eq!((h.size(), h.nodes()), (0, 1));
        assert_eq!(h.search(1), None);
    }
}
