//! The PMAPI context: where metrics come from, and the services on it.

use pcp_core::{PmId, PmResult};
use pcp_pmns::cpp::Files;
use pcp_pmns::{LoadOptions, Loaded, Pmns};

/// Where a context's names come from (`pmGetPMNSLocation`).
#[doc(alias = "pmGetPMNSLocation")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PmnsLocation {
    /// `PMNS_LOCAL`: a name space loaded from a file.
    Local,
    /// `PMNS_REMOTE`: pmcd's name space (host contexts).
    Remote,
    /// `PMNS_ARCHIVE`: the names an archive's metadata holds.
    Archive,
}

/// A PMAPI context. Each is independent: no global "current context".
///
/// Today a context holds a name space loaded from a file (what `pminfo -n`
/// uses); host, archive and local metric sources are added to this type as
/// they are implemented.
#[derive(Debug)]
pub struct Context {
    pmns: Pmns,
    location: PmnsLocation,
}

impl Context {
    /// A context whose name services use `pmns` (as after
    /// `pmLoadASCIINameSpace`), with libpcp's two anonymous derived metrics
    /// (`event.flags`, `event.missed`) that every context has.
    pub fn with_namespace(mut pmns: Pmns) -> Context {
        pmns.add_names([("event.flags", PmId::new(511, 0, 1)), ("event.missed", PmId::new(511, 0, 2))]);
        Context { pmns, location: PmnsLocation::Local }
    }

    /// Load an ASCII name space file (through pmcpp, as libpcp does) and
    /// make a context of it; the diagnostics libpcp would print come back
    /// either way.
    #[doc(alias = "pmLoadASCIINameSpace")]
    pub fn load_namespace(path: &[u8], dupok: bool, files: &mut dyn Files) -> (PmResult<Context>, Vec<u8>) {
        let var_dir = crate::config::var_dir().into_os_string().into_encoded_bytes();
        let opts = LoadOptions { dupok, use_cpp: true, var_dir };
        let Loaded { pmns, diagnostics } = pcp_pmns::load(path, &opts, files);
        (pmns.map(Context::with_namespace), diagnostics)
    }

    /// `pmGetPMNSLocation`: where this context's names come from.
    #[doc(alias = "pmGetPMNSLocation")]
    pub fn pmns_location(&self) -> PmnsLocation {
        self.location
    }

    /// `pmLookupName`: PMIDs for names, one-to-one (see
    /// [`Pmns::lookup_names`]).
    #[doc(alias = "pmLookupName")]
    pub fn lookup_names(&self, names: &[&str]) -> PmResult<(Vec<PmId>, usize)> {
        self.pmns.lookup_names(names)
    }

    /// `pmNameID`: a name of a PMID.
    #[doc(alias = "pmNameID")]
    pub fn name_of(&self, pmid: PmId) -> PmResult<String> {
        self.pmns.name_of(pmid)
    }

    /// `pmNameAll`: every name of a PMID.
    #[doc(alias = "pmNameAll")]
    pub fn names_of(&self, pmid: PmId) -> PmResult<Vec<String>> {
        self.pmns.names_of(pmid)
    }

    /// `pmGetChildrenStatus`: a node's children and their leaf status.
    #[doc(alias = "pmGetChildren")]
    #[doc(alias = "pmGetChildrenStatus")]
    pub fn children(&self, name: &str) -> PmResult<Vec<pcp_pmns::tree::Child>> {
        self.pmns.children(name)
    }

    /// `pmTraversePMNS`: every metric name at or below `name`, in order.
    #[doc(alias = "pmTraversePMNS")]
    pub fn traverse_with(&self, name: &str, f: impl FnMut(&str)) -> PmResult<()> {
        self.pmns.traverse_with(name, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contexts_are_send_and_sync() {
        fn both<T: Send + Sync>() {}
        both::<Context>();
    }
}
