//! The instance profile of a context: which instances of each instance
//! domain a fetch returns (`pmAddProfile`, `pmDelProfile`).

use pcp_core::{InDom, PmError, PmResult};
use std::collections::HashMap;

/// Per instance domain: does the list name the instances excluded (state
/// "include", the rest are in) or the ones included (state "exclude")?
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct InDomProfile {
    include: bool,
    instances: Vec<i32>,
}

/// An instance profile; the default includes every instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    include_all: bool,
    indoms: HashMap<InDom, InDomProfile>,
}

impl Default for Profile {
    fn default() -> Profile {
        Profile { include_all: true, indoms: HashMap::new() }
    }
}

impl Profile {
    /// `pmAddProfile`: include `insts` of `indom` (all of them when
    /// `insts` is empty; every instance of every domain for
    /// `PM_INDOM_NULL` with no instances).
    #[doc(alias = "pmAddProfile")]
    pub fn add(&mut self, indom: InDom, insts: &[i32]) -> PmResult<()> {
        self.change(indom, insts, true)
    }

    /// `pmDelProfile`: exclude `insts` of `indom` (all of them when
    /// `insts` is empty; everything for `PM_INDOM_NULL`).
    #[doc(alias = "pmDelProfile")]
    pub fn delete(&mut self, indom: InDom, insts: &[i32]) -> PmResult<()> {
        self.change(indom, insts, false)
    }

    fn change(&mut self, indom: InDom, insts: &[i32], add: bool) -> PmResult<()> {
        if indom.is_null() {
            if !insts.is_empty() {
                return Err(PmError::PM_ERR_PROFILESPEC);
            }
            self.include_all = add;
            self.indoms.clear();
            return Ok(());
        }
        // a domain seen for the first time starts from "exclude all but the list"
        let p = self.indoms.entry(indom).or_default();
        if insts.is_empty() {
            p.instances.clear();
            p.include = add;
            return Ok(());
        }
        // adding to an exclusion list, or deleting from an inclusion list,
        // removes; the other two add
        if p.include == add {
            p.instances.retain(|i| !insts.contains(i));
        } else {
            for &i in insts {
                if !p.instances.contains(&i) {
                    p.instances.push(i);
                }
            }
        }
        Ok(())
    }

    /// `__pmInProfile`: is `inst` of `indom` wanted?
    pub fn wanted(&self, indom: InDom, inst: i32) -> bool {
        match self.indoms.get(&indom) {
            None => self.include_all,
            Some(p) => p.instances.contains(&inst) != p.include,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_follow_libpcp() {
        let d = InDom(7);
        let mut p = Profile::default();
        assert!(p.wanted(d, 1));
        // a first add on a domain keeps only the listed instances
        p.add(d, &[1, 2]).unwrap();
        assert!(p.wanted(d, 1) && !p.wanted(d, 3));
        p.delete(d, &[1]).unwrap();
        assert!(!p.wanted(d, 1) && p.wanted(d, 2));
        p.add(d, &[]).unwrap();
        assert!(p.wanted(d, 3));
        p.delete(d, &[3]).unwrap();
        assert!(!p.wanted(d, 3) && p.wanted(d, 4));
        p.delete(InDom::NULL, &[]).unwrap();
        assert!(!p.wanted(d, 4) && !p.wanted(InDom(8), 0));
        assert_eq!(p.add(InDom::NULL, &[1]), Err(PmError::PM_ERR_PROFILESPEC));
    }
}
