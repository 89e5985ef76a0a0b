//! A loaded name space and the PMAPI's name services on it.

use pcp_core::{PmError, PmId, PmResult};
use std::collections::HashMap;

/// Index of a node in a [`Pmns`].
pub type NodeId = usize;

#[derive(Clone, Debug)]
struct Node {
    name: Box<str>,
    pmid: PmId, // PM_ID_NULL for a non-leaf
    parent: NodeId,
    children: Vec<NodeId>,
}

/// A Performance Metrics Name Space: a tree of names whose leaves carry
/// PMIDs. Children keep the order in which the source defined them, which is
/// the order of every listing and traversal.
#[derive(Clone, Debug)]
pub struct Pmns {
    nodes: Vec<Node>,
    by_pmid: HashMap<PmId, Vec<NodeId>>, // leaves, in depth-first order
    // libpcp lists a non-leaf only if some leaf lies below it
    visible: Vec<bool>,
}

/// A child of a node, as `pmGetChildrenStatus` reports it.
#[doc(alias = "pmGetChildrenStatus")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Child {
    /// The child's name relative to its parent.
    pub name: String,
    /// Is it a leaf (a metric, or the root of a dynamic subtree)?
    pub leaf: bool,
}

const ROOT: NodeId = 0;

impl Default for Pmns {
    fn default() -> Pmns {
        Pmns::new()
    }
}

impl Pmns {
    /// An empty name space: just the root.
    pub fn new() -> Pmns {
        Pmns {
            nodes: vec![Node { name: "root".into(), pmid: PmId::NULL, parent: ROOT, children: Vec::new() }],
            by_pmid: HashMap::new(),
            visible: vec![true],
        }
    }

    /// Add `name` under `parent`, a leaf when `pmid` is not `PM_ID_NULL`.
    /// Returns the new node. (The loader checks names; this does not.)
    pub(crate) fn push(&mut self, parent: NodeId, name: &str, pmid: PmId) -> NodeId {
        let id = self.nodes.len();
        self.nodes.push(Node { name: name.into(), pmid, parent, children: Vec::new() });
        self.nodes[parent].children.push(id);
        id
    }

    /// Build the PMID index (depth-first, pre-order); call once the tree is
    /// complete.
    pub(crate) fn index(&mut self) {
        let mut by_pmid: HashMap<PmId, Vec<NodeId>> = HashMap::new();
        self.walk(ROOT, |n| {
            if !self.nodes[n].pmid.is_null() && n != ROOT {
                by_pmid.entry(self.nodes[n].pmid).or_default().push(n);
            }
        });
        self.by_pmid = by_pmid;
        let mut visible = vec![false; self.nodes.len()];
        visible[ROOT] = true;
        for leaves in self.by_pmid.values() {
            for &leaf in leaves {
                let mut x = leaf;
                while !visible[x] {
                    visible[x] = true;
                    x = self.nodes[x].parent;
                }
            }
        }
        self.visible = visible;
    }

    /// Add a leaf by its full name, creating the non-leaf nodes on the way
    /// (libpcp's `__pmAddPMNSNode`, used for derived metrics); an existing
    /// name is left as it is.
    pub fn add_name(&mut self, name: &str, pmid: PmId) {
        let mut n = ROOT;
        let parts: Vec<&str> = name.split('.').collect();
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            n = match self.nodes[n].children.iter().find(|&&c| &*self.nodes[c].name == *part) {
                Some(&c) => c,
                None => self.push(n, part, if last { pmid } else { PmId::NULL }),
            };
        }
        self.index();
    }

    fn visible_children(&self, n: NodeId) -> impl DoubleEndedIterator<Item = NodeId> + '_ {
        self.nodes[n].children.iter().copied().filter(|&c| self.visible.get(c).copied().unwrap_or(true))
    }

    /// Visit `from` and every node below it, depth first, parents before
    /// children, children in order.
    pub(crate) fn walk(&self, from: NodeId, mut f: impl FnMut(NodeId)) {
        let mut stack = vec![from];
        while let Some(n) = stack.pop() {
            f(n);
            stack.extend(self.nodes[n].children.iter().rev());
        }
    }

    /// The root's id.
    pub fn root(&self) -> NodeId {
        ROOT
    }

    /// A node's children, in order.
    pub fn children_of(&self, n: NodeId) -> &[NodeId] {
        &self.nodes[n].children
    }

    /// A node's PMID (`PM_ID_NULL` for a non-leaf).
    pub fn pmid_of(&self, n: NodeId) -> PmId {
        self.nodes[n].pmid
    }

    /// Is the node a leaf?
    pub fn is_leaf(&self, n: NodeId) -> bool {
        n != ROOT && self.nodes[n].children.is_empty() && !self.nodes[n].pmid.is_null()
    }

    /// The full dotted name of a node (empty for the root).
    pub fn full_name(&self, n: NodeId) -> String {
        let mut parts = Vec::new();
        let mut x = n;
        while x != ROOT {
            parts.push(&*self.nodes[x].name);
            x = self.nodes[x].parent;
        }
        parts.reverse();
        parts.join(".")
    }

    /// The node a full name names (the empty name is the root); hidden
    /// non-leaf nodes (no leaf below them) are not found, as in libpcp.
    pub fn locate(&self, name: &str) -> Option<NodeId> {
        if name.is_empty() {
            return Some(ROOT);
        }
        let mut n = ROOT;
        for part in name.split('.') {
            n = self.visible_children(n).find(|&c| &*self.nodes[c].name == part)?;
        }
        Some(n)
    }

    /// `pmLookupName` for one name: its PMID. `PM_ERR_NONLEAF` for an
    /// inner node; a name below the root of a dynamic subtree gives that
    /// root's PMID (the PMDA that serves it resolves the rest); any other
    /// unknown name is `PM_ERR_NAME`.
    #[doc(alias = "pmLookupName")]
    pub fn lookup(&self, name: &str) -> PmResult<PmId> {
        if let Some(n) = self.locate(name) {
            return if self.nodes[n].children.is_empty() && n != ROOT {
                Ok(self.nodes[n].pmid)
            } else {
                Err(PmError::PM_ERR_NONLEAF)
            };
        }
        let mut prefix = name;
        while let Some(dot) = prefix.rfind('.') {
            prefix = &prefix[..dot];
            if let Some(n) = self.locate(prefix) {
                let pmid = self.nodes[n].pmid;
                if self.nodes[n].children.is_empty() && pmid.is_dynamic_root() {
                    return Ok(pmid);
                }
            }
        }
        Err(PmError::PM_ERR_NAME)
    }

    /// `pmLookupName`: many names at once, one-to-one with the input,
    /// `PM_ID_NULL` where a name fails. Returns the PMIDs and the number
    /// found; a single failing name gives its error instead.
    #[doc(alias = "pmLookupName")]
    pub fn lookup_names(&self, names: &[&str]) -> PmResult<(Vec<PmId>, usize)> {
        let mut found = 0;
        let mut first_err = None;
        let ids = names
            .iter()
            .map(|n| match self.lookup(n) {
                Ok(id) => {
                    found += 1;
                    id
                }
                Err(e) => {
                    first_err.get_or_insert(e);
                    PmId::NULL
                }
            })
            .collect();
        match (names.len(), first_err) {
            (1, Some(e)) => Err(e),
            _ => Ok((ids, found)),
        }
    }

    /// `pmNameID`: a name for the PMID (libpcp's choice where there are
    /// several: the last in traversal order). The root of a dynamic
    /// subtree has no name by PMID (`PM_ERR_PMID`).
    #[doc(alias = "pmNameID")]
    pub fn name_of(&self, pmid: PmId) -> PmResult<String> {
        if pmid.is_dynamic_root() {
            return Err(PmError::PM_ERR_PMID);
        }
        self.by_pmid.get(&pmid).and_then(|v| v.last()).map(|&n| self.full_name(n)).ok_or(PmError::PM_ERR_PMID)
    }

    /// `pmNameAll`: every name of the PMID (last in traversal order first,
    /// as libpcp lists them).
    #[doc(alias = "pmNameAll")]
    pub fn names_of(&self, pmid: PmId) -> PmResult<Vec<String>> {
        if pmid.is_dynamic_root() {
            return Err(PmError::PM_ERR_PMID);
        }
        match self.by_pmid.get(&pmid) {
            Some(v) => Ok(v.iter().rev().map(|&n| self.full_name(n)).collect()),
            None => Err(PmError::PM_ERR_PMID),
        }
    }

    /// `pmGetChildrenStatus`: the children of a node and whether each is a
    /// leaf. Empty for a leaf; `PM_ERR_NAME` for an unknown name.
    #[doc(alias = "pmGetChildren")]
    #[doc(alias = "pmGetChildrenStatus")]
    pub fn children(&self, name: &str) -> PmResult<Vec<Child>> {
        let n = self.locate(name).ok_or(PmError::PM_ERR_NAME)?;
        Ok(self
            .visible_children(n)
            .map(|c| Child { name: self.nodes[c].name.to_string(), leaf: self.nodes[c].children.is_empty() })
            .collect())
    }

    /// `pmTraversePMNS`: the full names of every leaf at or below `name`,
    /// depth first in definition order. Non-leaf nodes with no leaf below
    /// them are not listed, but one named directly yields its own name (as
    /// libpcp does); `PM_ERR_NAME` for an unknown name.
    #[doc(alias = "pmTraversePMNS")]
    pub fn traverse(&self, name: &str) -> PmResult<Vec<String>> {
        let start = self.locate(name).ok_or(PmError::PM_ERR_NAME)?;
        let mut out = Vec::new();
        // (node, its full name); children pushed in reverse to pop in order
        let mut stack = vec![(start, name.to_string())];
        while let Some((n, full)) = stack.pop() {
            let kids: Vec<NodeId> = self.visible_children(n).collect();
            if kids.is_empty() {
                out.push(full);
                continue;
            }
            for &c in kids.iter().rev() {
                let child = &*self.nodes[c].name;
                let cname = if full.is_empty() { child.to_string() } else { format!("{full}.{child}") };
                stack.push((c, cname));
            }
        }
        Ok(out)
    }

    /// Number of nodes, the root included.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Is there nothing but the root?
    pub fn is_empty(&self) -> bool {
        self.nodes.len() == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Pmns {
        let mut t = Pmns::new();
        let a = t.push(ROOT, "a", PmId::NULL);
        t.push(a, "x", PmId::new(1, 0, 1));
        t.push(a, "y", PmId::new(1, 0, 2));
        t.push(ROOT, "b", PmId::new(1, 0, 1));
        t.push(ROOT, "dyn", PmId::dynamic_root(60));
        t.index();
        t
    }

    #[test]
    fn services() {
        let t = sample();
        assert_eq!(t.traverse("").unwrap(), ["a.x", "a.y", "b", "dyn"]);
        assert_eq!(t.traverse("a.y").unwrap(), ["a.y"]);
        assert_eq!(t.traverse("nope"), Err(PmError::PM_ERR_NAME));
        assert_eq!(t.lookup("a.x"), Ok(PmId::new(1, 0, 1)));
        assert_eq!(t.lookup("a"), Err(PmError::PM_ERR_NONLEAF));
        assert_eq!(t.lookup("dyn.foo.bar"), Ok(PmId::dynamic_root(60)));
        assert_eq!(t.lookup("a.z"), Err(PmError::PM_ERR_NAME));
        assert_eq!(t.name_of(PmId::new(1, 0, 1)).unwrap(), "b");
        assert_eq!(t.names_of(PmId::new(1, 0, 1)).unwrap(), ["b", "a.x"]);
        assert_eq!(t.children("a").unwrap()[1], Child { name: "y".into(), leaf: true });
        let (ids, n) = t.lookup_names(&["a.x", "zz", "b"]).unwrap();
        assert_eq!((ids[1], n), (PmId::NULL, 2));
        assert_eq!(t.lookup_names(&["zz"]), Err(PmError::PM_ERR_NAME));
    }
}
