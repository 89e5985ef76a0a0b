//! The order the proc PMDA keeps its processes in: libpcp's hash table
//! (`__pmHashCtl`), whose bucket walk is the order of the process
//! instance domain (and so of every fetch's values).

/// The PMDA's table of processes, by pid: `pid % size` picks a bucket,
/// a new pid goes to the front of its bucket, and the table doubles
/// (rounded to a multiple of 2, 3 and 5 as libpcp rounds it) when it has
/// more than four entries a bucket. The PMDA takes exited processes out
/// of the buckets without telling the table, so its count of entries
/// only grows.
#[derive(Clone, Debug, Default)]
pub struct PidOrder {
    buckets: Vec<Vec<i32>>,
    added: usize,
}

impl PidOrder {
    /// Add a pid (not already there).
    pub fn add(&mut self, pid: i32) {
        self.added += 1;
        if self.buckets.is_empty() {
            self.buckets = vec![Vec::new()];
        } else if self.added / 4 > self.buckets.len() {
            let mut size = self.buckets.len() * 2;
            if size % 2 != 0 {
                size += 1;
            }
            if size % 3 != 0 {
                size += 2;
            }
            if size % 5 != 0 {
                size += 2;
            }
            let old = std::mem::replace(&mut self.buckets, vec![Vec::new(); size]);
            for chain in old.iter().rev() {
                for &p in chain {
                    self.buckets[bucket(p, size)].insert(0, p);
                }
            }
        }
        let size = self.buckets.len();
        self.buckets[bucket(pid, size)].insert(0, pid);
    }

    /// Keep only the pids `keep` accepts.
    pub fn retain(&mut self, keep: impl Fn(i32) -> bool) {
        for chain in &mut self.buckets {
            chain.retain(|&p| keep(p));
        }
    }

    /// The pids in the table's walk order.
    pub fn iter(&self) -> impl Iterator<Item = i32> + '_ {
        self.buckets.iter().flatten().copied()
    }
}

/// The bucket of `pid` (libpcp hashes the key as an unsigned int).
fn bucket(pid: i32, size: usize) -> usize {
    (pid as u32 as usize) % size
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_in_libpcp_hash_order() {
        let mut o = PidOrder::default();
        for p in 1..=14 {
            o.add(p);
        }
        // 14 entries: the table grew from 1 to 6 buckets at the 8th
        // (8/4 > 1), then not again (14/4 = 3 <= 6)
        let walk: Vec<i32> = o.iter().collect();
        assert_eq!(walk, [12, 6, 13, 1, 7, 14, 8, 2, 9, 3, 10, 4, 11, 5]);
        o.retain(|p| p % 2 == 0);
        assert_eq!(o.iter().collect::<Vec<_>>(), [12, 6, 14, 8, 2, 10, 4]);
    }
}
