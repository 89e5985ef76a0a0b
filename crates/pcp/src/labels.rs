//! Metric labels of a context (`pmGetContextLabels` and friends).
//!
//! Each source has its own (see [`crate::MetricSource::labels`]): a local
//! context's are libpcp's and its agents' (see [`crate::local`]), an
//! archive's those logged last at or before the context's current time,
//! a host context's pmcd's.
//!
//! Label sets, their parsing and merging are `pcp_core::labels`, re-exported
//! here.

use crate::Context;
pub use pcp_core::labels::*;
use pcp_core::{InDom, PmId, PmResult};

impl Context {
    /// libpcp's `getlabels`: the sets of `kind` for `ident` (in an
    /// archive, at the current time).
    fn labels_of(&self, kind: u8, ident: u32) -> PmResult<Vec<LabelSet>> {
        self.trace_which(1);
        self.need_source()?.labels(kind, ident, self.origin(), self.profile())
    }

    /// `pmGetContextLabels`: the context's labels (one set, or none when
    /// the archive's were all logged after the current time).
    #[doc(alias = "pmGetContextLabels")]
    pub fn get_context_labels(&self) -> PmResult<Vec<LabelSet>> {
        self.labels_of(flags::CONTEXT, PmId::NULL.0)
    }

    /// `pmGetDomainLabels`: the labels of PMDA `domain`.
    #[doc(alias = "pmGetDomainLabels")]
    pub fn get_domain_labels(&self, domain: u32) -> PmResult<Vec<LabelSet>> {
        self.labels_of(flags::DOMAIN, domain)
    }

    /// `pmGetInDomLabels`: the labels of an instance domain.
    #[doc(alias = "pmGetInDomLabels")]
    pub fn get_indom_labels(&self, indom: InDom) -> PmResult<Vec<LabelSet>> {
        self.labels_of(flags::INDOM, indom.0)
    }

    /// `pmGetClusterLabels`: the labels logged for `pmid` as a cluster
    /// identifier. Archives file cluster labels under the PMID with item
    /// 0, and this looks up exactly the PMID given, as libpcp does.
    #[doc(alias = "pmGetClusterLabels")]
    pub fn get_cluster_labels(&self, pmid: PmId) -> PmResult<Vec<LabelSet>> {
        self.labels_of(flags::CLUSTER, pmid.0)
    }

    /// `pmGetItemLabels`: the labels of a metric.
    #[doc(alias = "pmGetItemLabels")]
    pub fn get_item_labels(&self, pmid: PmId) -> PmResult<Vec<LabelSet>> {
        self.labels_of(flags::ITEM, pmid.0)
    }

    /// `pmGetInstancesLabels`: the labels of each instance of `indom`
    /// that has a set, in the order logged.
    #[doc(alias = "pmGetInstancesLabels")]
    pub fn get_instances_labels(&self, indom: InDom) -> PmResult<Vec<LabelSet>> {
        self.labels_of(flags::INSTANCES, indom.0)
    }

    /// `pmLookupLabels`: the first set of each level that applies to
    /// `pmid`, lowest precedence first (context, domain, instance domain
    /// if any, cluster, item), ready for
    /// [`merge_label_sets`].
    #[doc(alias = "pmLookupLabels")]
    pub fn lookup_labels(&self, pmid: PmId) -> PmResult<Vec<LabelSet>> {
        let desc = self.lookup_desc(pmid)?;
        let mut levels = vec![self.get_context_labels()?, self.get_domain_labels(pmid.domain())?];
        if !desc.indom.is_null() {
            levels.push(self.get_indom_labels(desc.indom)?);
        }
        levels.push(self.get_cluster_labels(PmId::new(pmid.domain(), pmid.cluster(), 0))?);
        levels.push(self.get_item_labels(pmid)?);
        Ok(levels.into_iter().filter_map(|sets| sets.into_iter().next()).collect())
    }
}
