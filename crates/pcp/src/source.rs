//! Where a context's metrics come from: the [`MetricSource`] trait that an
//! archive ([`ArchiveSource`]), pmcd on a host ([`HostSource`]) and the
//! local machine ([`LocalSource`]) implement, and any other source can.
//!
//! A source answers for its own metrics alone. The [`Context`] over it
//! adds what every context has whatever its source: the name space (unless
//! the source serves its own, as pmcd does: [`RemoteNames`]), derived
//! metrics, the instance profile and the current time, which it hands to
//! the source's services that depend on them.
//!
//! [`Context`]: crate::Context

use crate::archive::ArchiveSource;
use crate::context::{Instances, TextLevel};
use crate::host::HostSource;
use crate::local::LocalSource;
use crate::profile::Profile;
use pcp_core::labels::LabelSet;
use pcp_core::{Desc, FetchResult, InDom, PmError, PmId, PmResult, Timestamp};
use pcp_pmns::tree::Child;

/// A source of metrics: descriptors, instance domains, help text, labels
/// and values, for a [`Context`](crate::Context) to serve.
///
/// Services that take the time `at` answer as of the context's current
/// time (an archive's instance domains and labels change over time; live
/// sources answer for now and need not look at it). Errors are the
/// PMAPI's: a metric the source does not know is `PM_ERR_PMID` (or
/// `PM_ERR_PMID_LOG`, `PM_ERR_NOAGENT`), and the context then tries its
/// anonymous derived metrics (`event.flags`, `event.missed`).
///
/// A source is `Send` and `Sync`: services that change nothing take
/// `&self`, so a source that caches or talks to a server keeps its state
/// behind a lock.
#[doc(alias = "pmNewContext")]
pub trait MetricSource: Send + Sync + std::fmt::Debug {
    /// Trace from now on into `trace`, as its debug options select
    /// ([`crate::Context::set_trace`]); sources that trace nothing
    /// ignore it.
    fn set_trace(&mut self, trace: &pcp_core::debug::Trace) {
        let _ = trace;
    }

    /// `pmLookupDesc`: the descriptor of `pmid`.
    #[doc(alias = "pmLookupDesc")]
    fn desc(&self, pmid: PmId) -> PmResult<Desc>;

    /// `pmGetInDom`: the instances of `indom` at `at`, identifiers and
    /// names index for index (`indom` is not `PM_INDOM_NULL`).
    #[doc(alias = "pmGetInDom")]
    fn instances(&self, indom: InDom, at: Timestamp) -> PmResult<Instances>;

    /// `pmNameInDom`: the name of instance `inst` of `indom` at `at`; by
    /// default found among [`MetricSource::instances`], `PM_ERR_INST`
    /// when it is not there.
    #[doc(alias = "pmNameInDom")]
    fn instance_name(&self, indom: InDom, inst: i32, at: Timestamp) -> PmResult<Vec<u8>> {
        let (ids, mut names) = self.instances(indom, at)?;
        let k = ids.iter().position(|&i| i == inst).ok_or(PmError::PM_ERR_INST)?;
        Ok(names.swap_remove(k))
    }

    /// `pmLookupInDom`: the instance of `indom` named `name` at `at`; by
    /// default the first of [`MetricSource::instances`] with exactly that
    /// name, `PM_ERR_INST` when none has it.
    #[doc(alias = "pmLookupInDom")]
    fn instance_id(&self, indom: InDom, name: &[u8], at: Timestamp) -> PmResult<i32> {
        let (ids, names) = self.instances(indom, at)?;
        names.iter().position(|n| n == name).map(|k| ids[k]).ok_or(PmError::PM_ERR_INST)
    }

    /// `pmLookupText`: a metric's help text (for `TextLevel::Help`, the
    /// one-line text where there is no full help).
    #[doc(alias = "pmLookupText")]
    fn text(&self, pmid: PmId, level: TextLevel) -> PmResult<Vec<u8>>;

    /// `pmLookupInDomText`: an instance domain's help text; by default
    /// there is none (`PM_ERR_TEXT`).
    #[doc(alias = "pmLookupInDomText")]
    fn indom_text(&self, indom: InDom, level: TextLevel) -> PmResult<Vec<u8>> {
        let _ = (indom, level);
        Err(PmError::PM_ERR_TEXT)
    }

    /// The label sets of `kind` (one of `pcp_core::labels::flags`'s level
    /// bits) for `ident` (a domain, instance domain, cluster or metric
    /// identifier, as `kind` says) at `at`; instance labels are those of
    /// the instances `profile` allows, for a source that filters them.
    /// By default there are none.
    #[doc(alias = "pmGetContextLabels")]
    #[doc(alias = "pmGetDomainLabels")]
    #[doc(alias = "pmGetInDomLabels")]
    #[doc(alias = "pmGetClusterLabels")]
    #[doc(alias = "pmGetItemLabels")]
    #[doc(alias = "pmGetInstancesLabels")]
    fn labels(&self, kind: u8, ident: u32, at: Timestamp, profile: &Profile) -> PmResult<Vec<LabelSet>> {
        let _ = (kind, ident, at, profile);
        Ok(Vec::new())
    }

    /// `pmFetch`: the values of `pmids` (at least one), one value set
    /// each in order, of the instances `profile` allows, into `out`
    /// (whose room may be reused; on an error what it holds is
    /// unspecified). `origin` is the context's current time: a source
    /// that is replayed (an archive) reads from it and moves it to where
    /// the fetch leaves off, even when the fetch fails.
    #[doc(alias = "pmFetch")]
    #[doc(alias = "pmFetchHighRes")]
    fn fetch_into(
        &mut self,
        pmids: &[PmId],
        profile: &Profile,
        out: &mut FetchResult,
        origin: &mut Timestamp,
    ) -> PmResult<()>;

    /// `pmStore`: change the values in `result` (at least one set, each
    /// with at least one value). By default a source takes no stores, as
    /// an archive takes none (`PM_ERR_NOTHOST`).
    #[doc(alias = "pmStore")]
    fn store(&self, result: &FetchResult) -> PmResult<()> {
        let _ = result;
        Err(PmError::PM_ERR_NOTHOST)
    }

    /// `pmDupContext`: another source over the same metrics, in the same
    /// state (an archive's replay position, a local agent's instance
    /// numbering); the context copies its own state itself.
    #[doc(alias = "pmDupContext")]
    fn dup(&self) -> PmResult<Box<dyn MetricSource>>;

    /// `pmGetContextHostName`: the host the metrics are of (a source that
    /// asks a server fetches through `profile`).
    #[doc(alias = "pmGetContextHostName")]
    fn host_name(&self, profile: &Profile) -> PmResult<String>;

    /// The name space the source serves itself, if it has one (pmcd's,
    /// `PMNS_REMOTE`): a context made over the source with no name space
    /// of its own asks it for names. By default there is none.
    #[doc(alias = "PMNS_REMOTE")]
    fn remote_names(&self) -> Option<&dyn RemoteNames> {
        None
    }

    /// What names below `root`, the root of a dynamic subtree in the
    /// context's name space, come to: `Ok` when the source has no agents
    /// to expand it, so the name space's entry stands (the default); else
    /// the error that ends a lookup or a walk there (`PM_ERR_NOAGENT`
    /// when no agent serves the subtree's domain, `PM_ERR_NAME` when its
    /// agent has no names in it).
    #[doc(alias = "IS_DYNAMIC_ROOT")]
    fn dynamic_names(&self, root: PmId) -> PmResult<()> {
        let _ = root;
        Ok(())
    }

    /// The source as an archive, for the services only archives have
    /// (`pmSetMode`, `pmFetchArchive`, `pmGetArchiveLabel`, ...).
    fn as_archive(&self) -> Option<&ArchiveSource> {
        None
    }

    /// [`MetricSource::as_archive`], to change it.
    fn as_archive_mut(&mut self) -> Option<&mut ArchiveSource> {
        None
    }

    /// The source as a connection to pmcd, for the services only host
    /// contexts have (`pmReconnectContext`, state-change bits, ...).
    fn as_host(&self) -> Option<&HostSource> {
        None
    }

    /// The source as the local machine's agents.
    fn as_local(&self) -> Option<&LocalSource> {
        None
    }
}

/// A name space a source serves itself, asked name by name (pmcd's, for
/// a host context): see [`MetricSource::remote_names`]. Derived metrics
/// are the context's to add.
#[doc(alias = "PMNS_REMOTE")]
pub trait RemoteNames {
    /// `pmLookupName`: PMIDs for names, one-to-one (`PM_ID_NULL` for a
    /// name not known), with the count found; one name that is not found
    /// is its error.
    #[doc(alias = "pmLookupName")]
    fn lookup_names(&self, names: &[&str]) -> PmResult<(Vec<PmId>, usize)>;

    /// `pmNameID`: a name of `pmid`.
    #[doc(alias = "pmNameID")]
    fn name_of(&self, pmid: PmId) -> PmResult<String>;

    /// `pmNameAll`: every name of `pmid`.
    #[doc(alias = "pmNameAll")]
    fn names_of(&self, pmid: PmId) -> PmResult<Vec<String>>;

    /// `pmGetChildrenStatus`: the children of `name` ("" is the root) and
    /// whether each is a leaf.
    #[doc(alias = "pmGetChildren")]
    #[doc(alias = "pmGetChildrenStatus")]
    fn children(&self, name: &str) -> PmResult<Vec<Child>>;

    /// `pmTraversePMNS`: every metric name at or below `name`, in order,
    /// handed to `f`.
    #[doc(alias = "pmTraversePMNS")]
    fn traverse(&self, name: &str, f: &mut dyn FnMut(&str)) -> PmResult<()>;
}
