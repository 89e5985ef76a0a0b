//! What interpolation keeps of each metric and instance, set up the
//! first time the metric is asked for: its descriptor, and its instances
//! in libpcp's order with their first and last sightings.

use super::{InstCtl, PmidCtl, S_UNDEFINED};
use crate::logread::Ts;
use crate::replay::Replay;
use pcp_core::debug::DebugFlag;
use pcp_core::{InDom, PmError, PmId, Semantics, PM_IN_NULL};
use std::collections::HashMap;

/// Each instance's first sighting and the first time it was gone again.
pub(super) type Calipers = HashMap<i32, (f64, f64)>;

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

impl InstCtl {
    pub(super) fn new(inst: i32) -> InstCtl {
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

impl Replay {
    /// `time_caliper`: when an instance domain ever has 16 or more
    /// instances, the first and last sighting of each instance in the
    /// metadata. Traced under `-Dqa` as libpcp traces it.
    fn caliper(&mut self, indom: InDom, inst: i32) -> (f64, f64) {
        if indom == InDom::NULL {
            return (-1.0, -1.0);
        }
        let qa = self.log.trace.on(DebugFlag::Qa);
        if !self.interp.calipers.contains_key(&indom.0) {
            if qa {
                self.log.trace.write(format_args!("time_caliper: build hashes for indom {indom}\n"));
            }
            let start = self.start;
            // libpcp's chain: newest first (no calipers where a set cannot
            // be read: each instance is then taken to be there throughout)
            let sets: Vec<_> = self.meta.indom_history(indom).rev().collect::<Result<_, PmError>>().unwrap_or_default();
            let big = sets.iter().find(|set| set.ids.len() >= 16);
            if let (true, Some(set)) = (qa, big) {
                // (libpcp stops looking at the first set this big)
                let n = set.ids.len();
                self.log.trace.write(format_args!("time_caliper: indom {indom} maxinst={n}\n"));
            }
            let table = big.is_some().then(|| {
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
        let found = self.interp.calipers.get(&indom.0).and_then(|t| t.as_ref()).and_then(|t| t.get(&inst)).copied();
        match found {
            Some((birth, death)) => {
                if qa {
                    self.log.trace.write(format_args!(
                        "time_caliper: indom {indom} and inst {inst} -> {birth:.6} .. {death:.6}\n"
                    ));
                }
                (birth, death)
            }
            None => (-1.0, -1.0),
        }
    }

    /// `pmGetInDomArchive`: every instance the metadata ever lists for
    /// `indom`, newest records first.
    fn archive_instances(&self, indom: InDom) -> Vec<i32> {
        self.meta.indom_union_ids(indom).unwrap_or_default()
    }

    pub(super) fn pmid_ctl(&mut self, pmid: PmId) -> usize {
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
            // (in the instance domain's order, as libpcp looks them up)
            let calipers: Vec<_> = ids.iter().map(|&id| self.caliper(pcp.indom, id)).collect();
            for i in order {
                let mut icp = InstCtl::new(ids[i]);
                (icp.t_birth, icp.t_death) = calipers[i];
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_order_with_one_bucket_per_key() {
        // keys 0..4 in 4 buckets: one per bucket, in bucket order
        assert_eq!(prealloc_hash_order(&[3, 1, 2, 0]), [3, 1, 2, 0]);
        // 5 and 1 share bucket 1 of 4; the later one comes first
        assert_eq!(prealloc_hash_order(&[1, 5, 2, 3]), [1, 0, 2, 3]);
    }
}
