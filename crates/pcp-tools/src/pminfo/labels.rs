//! pminfo's label caches: the label sets it last asked for at each level,
//! asked for again only when the level's identifier changes (the context's
//! just once), as pminfo keeps them.

use pcp::Context;
use pcp_core::labels::{add_labels, flags, LabelSet};
use pcp_core::{InDom, PmId, PmResult};

/// The longest host name pminfo's fallback context label takes
/// (`MAXHOSTNAMELEN - 1`).
const HOSTNAME_MAX: usize = 63;

/// The first set of an answer, as pminfo keeps it.
fn first(sets: PmResult<Vec<LabelSet>>) -> Option<LabelSet> {
    sets.ok().and_then(|v| v.into_iter().next())
}

/// pminfo's `defaultlabels`: `{"hostname":HOST}` from the context's host.
fn default_labels(ctx: &Context) -> Option<LabelSet> {
    let host = ctx.archive_source().map(|a| a.label().hostname.clone()).unwrap_or_default();
    let mut text = br#"{"hostname":""#.to_vec();
    text.extend_from_slice(&host[..host.len().min(HOSTNAME_MAX)]);
    text.extend_from_slice(br#""}"#);
    let mut set = None;
    match add_labels(&mut set, &text, flags::CONTEXT) {
        Ok(n) if n > 0 => set,
        _ => None,
    }
}

/// The caches (`lookup_*_labels` and the instance label cache).
pub(super) struct Caches {
    context: Option<Option<LabelSet>>,
    domain: Option<(u32, Option<LabelSet>)>,
    indom: (InDom, Option<LabelSet>),
    cluster: (PmId, Option<LabelSet>),
    item: (PmId, Option<LabelSet>),
    /// The instance domain whose instances' labels are held, and what
    /// `pmGetInstancesLabels` answered.
    instances: (InDom, PmResult<Vec<LabelSet>>),
}

impl Default for Caches {
    fn default() -> Self {
        Caches {
            context: None,
            domain: None,
            indom: (InDom::NULL, None),
            cluster: (PmId::NULL, None),
            item: (PmId::NULL, None),
            instances: (InDom::NULL, Ok(Vec::new())),
        }
    }
}

/// What the caches hold now.
pub(super) struct Held<'a> {
    pub context: Option<&'a LabelSet>,
    pub domain: Option<&'a LabelSet>,
    pub indom: Option<&'a LabelSet>,
    pub cluster: Option<&'a LabelSet>,
    pub item: Option<&'a LabelSet>,
    pub instances: &'a PmResult<Vec<LabelSet>>,
}

impl Caches {
    /// The context's labels: asked for once, with the host name as the
    /// fallback when there are none then.
    pub fn context(&mut self, ctx: &Context) {
        if self.context.is_none() {
            self.context = Some(match ctx.get_context_labels() {
                Ok(v) if !v.is_empty() => v.into_iter().next(),
                _ => default_labels(ctx),
            });
        }
    }

    /// A domain's labels.
    pub fn domain(&mut self, ctx: &Context, domain: u32) {
        if self.domain.as_ref().is_none_or(|(d, _)| *d != domain) {
            self.domain = Some((domain, first(ctx.get_domain_labels(domain))));
        }
    }

    /// An instance domain's labels.
    pub fn indom(&mut self, ctx: &Context, indom: InDom) {
        if indom != self.indom.0 {
            self.indom = (indom, first(ctx.get_indom_labels(indom)));
        }
    }

    /// The labels of a metric's cluster: kept while metrics stay in the
    /// same domain and cluster, though asked for with the first one's
    /// whole PMID.
    pub fn cluster(&mut self, ctx: &Context, pmid: PmId) {
        let last = self.cluster.0;
        if pmid.domain() != last.domain() || pmid.cluster() != last.cluster() {
            self.cluster = (pmid, first(ctx.get_cluster_labels(pmid)));
        }
    }

    /// A metric's labels.
    pub fn item(&mut self, ctx: &Context, pmid: PmId) {
        if pmid != self.item.0 {
            self.item = (pmid, first(ctx.get_item_labels(pmid)));
        }
    }

    /// The labels of each instance of `indom` (asked for when the instance
    /// domain changes).
    pub fn instances(&mut self, ctx: &Context, indom: InDom) {
        if indom != self.instances.0 {
            self.instances = (indom, ctx.get_instances_labels(indom));
        }
    }

    /// The sets held now.
    pub fn held(&self) -> Held<'_> {
        Held {
            context: self.context.as_ref().and_then(Option::as_ref),
            domain: self.domain.as_ref().and_then(|(_, s)| s.as_ref()),
            indom: self.indom.1.as_ref(),
            cluster: self.cluster.1.as_ref(),
            item: self.item.1.as_ref(),
            instances: &self.instances.1,
        }
    }
}
