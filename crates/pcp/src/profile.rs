//! The instance profile of a context: which instances of each instance
//! domain a fetch returns (`pmAddProfile`, `pmDelProfile`).
//!
//! A host context sends its profile to pmcd before a fetch whenever it
//! has changed since it was last sent, so the profile keeps libpcp's
//! layout (instance domains in the order first named, instance lists as
//! built) and counts its changes.

use pcp_core::{InDom, PmError, PmResult};

/// Per instance domain: does the list name the instances excluded (state
/// "include", the rest are in) or the ones included (state "exclude")?
/// `None` is libpcp's absent list, which a first addition copies as
/// given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct InDomProfile {
    include: bool,
    instances: Option<Vec<i32>>,
}

/// An instance profile; the default includes every instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    include_all: bool,
    indoms: Vec<(InDom, InDomProfile)>,
    changes: u64,
}

impl Default for Profile {
    fn default() -> Profile {
        Profile { include_all: true, indoms: Vec::new(), changes: 0 }
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
            self.changes += 1;
            return Ok(());
        }
        self.changes += 1;
        // a domain seen for the first time starts from "exclude all but the list"
        let at = match self.indoms.iter().position(|(d, _)| *d == indom) {
            Some(at) => at,
            None => {
                self.indoms.push((indom, InDomProfile::default()));
                self.indoms.len() - 1
            }
        };
        let p = &mut self.indoms[at].1;
        if insts.is_empty() {
            p.instances = None;
            p.include = add;
            return Ok(());
        }
        // adding to an exclusion list, or deleting from an inclusion list,
        // removes; the other two add
        if p.include == add {
            if let Some(list) = &mut p.instances {
                list.retain(|i| !insts.contains(i));
            }
        } else {
            match &mut p.instances {
                // libpcp copies the first list it is given as it is
                None => p.instances = Some(insts.to_vec()),
                Some(list) => {
                    for &i in insts {
                        if !list.contains(&i) {
                            list.push(i);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// `__pmInProfile`: is `inst` of `indom` wanted?
    pub fn wanted(&self, indom: InDom, inst: i32) -> bool {
        match self.indoms.iter().find(|(d, _)| *d == indom) {
            None => self.include_all,
            Some((_, p)) => p.instances.as_deref().unwrap_or_default().contains(&inst) != p.include,
        }
    }

    /// How many times the profile has been changed: a host context sends
    /// it again when this moves (libpcp's `c_sent`).
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// The profile as `__pmSendProfile` sends it for context slot
    /// `ctxid`.
    #[doc(alias = "__pmSendProfile")]
    pub fn to_pdu(&self, ctxid: i32) -> pcp_pdu::Profile {
        use pcp_pdu::profile::{PM_PROFILE_EXCLUDE, PM_PROFILE_INCLUDE};
        let state = |include: bool| if include { PM_PROFILE_INCLUDE } else { PM_PROFILE_EXCLUDE };
        pcp_pdu::Profile {
            ctxid,
            state: state(self.include_all),
            indoms: self
                .indoms
                .iter()
                .map(|(indom, p)| pcp_pdu::InDomProfile {
                    indom: *indom,
                    state: state(p.include),
                    instances: p.instances.clone().unwrap_or_default(),
                })
                .collect(),
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

    #[test]
    fn the_sent_profile_keeps_libpcps_order_and_lists() {
        let mut p = Profile::default();
        assert_eq!(p.to_pdu(0), pcp_pdu::Profile { ctxid: 0, state: 0, indoms: Vec::new() });
        p.add(InDom(9), &[4, 4, 2]).unwrap();
        p.delete(InDom(3), &[1]).unwrap();
        p.add(InDom(9), &[2, 5]).unwrap();
        let sent = p.to_pdu(2);
        assert_eq!(sent.ctxid, 2);
        let lists: Vec<_> = sent.indoms.iter().map(|d| (d.indom, d.state, d.instances.clone())).collect();
        // the first list is copied as given; later additions are a union;
        // deleting from an empty inclusion list leaves it empty
        assert_eq!(lists, [(InDom(9), 1, vec![4, 4, 2, 5]), (InDom(3), 1, vec![])]);
        let before = p.changes();
        p.delete(InDom::NULL, &[]).unwrap();
        assert_eq!((p.changes(), p.to_pdu(0).state, p.to_pdu(0).indoms.len()), (before + 1, 1, 0));
    }
}
