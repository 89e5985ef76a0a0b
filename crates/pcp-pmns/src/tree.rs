//! A loaded name space and the PMAPI's name services on it.
//!
//! Laid out for large name spaces: all names live in one byte arena, a node
//! is 24 bytes, each node's children are a contiguous range of one index
//! array (in definition order, the order of every listing and traversal)
//! with a name-sorted twin for lookups, and PMIDs map to leaves through one
//! sorted array.

use pcp_core::{PmError, PmId, PmResult};

/// Index of a node in a [`Pmns`].
pub type NodeId = u32;

#[derive(Clone, Copy, Debug)]
struct Node {
    name_off: u32,
    name_len: u32,
    pmid: PmId, // PM_ID_NULL for a non-leaf
    parent: NodeId,
    first: u32, // start of this node's range in `kids` and `sorted`
    count: u32,
}

/// A Performance Metrics Name Space: a tree of names whose leaves carry
/// PMIDs.
///
/// Built by loading a PMNS file (see [`crate::load`]) or name by name, as
/// derived metrics and archives add theirs:
///
/// ```
/// use pcp_core::PmId;
/// use pcp_pmns::Pmns;
///
/// let mut pmns = Pmns::new();
/// assert!(pmns.is_empty());
/// pmns.add_names([("disk.dev.read", PmId::new(60, 0, 4)), ("disk.dev.write", PmId::new(60, 0, 5))]);
/// assert_eq!(pmns.len(), 5); // root, disk, dev and the two leaves
/// assert_eq!(pmns.traverse("").unwrap(), ["disk.dev.read", "disk.dev.write"]);
///
/// // archives' names go in front of their siblings, as libpcp adds them
/// let mut archive = Pmns::new();
/// archive.add_names_front([("a.x", PmId::new(1, 0, 1)), ("a.y", PmId::new(1, 0, 2))]);
/// assert_eq!(archive.traverse("a").unwrap(), ["a.y", "a.x"]);
/// ```
#[derive(Clone, Debug)]
pub struct Pmns {
    names: Vec<u8>,
    nodes: Vec<Node>,
    kids: Vec<NodeId>,   // children ranges, definition order
    sorted: Vec<NodeId>, // the same ranges, sorted by name
    // leaves by PMID, in depth-first order within one PMID
    by_pmid: Vec<(PmId, NodeId)>,
    // libpcp lists (and finds) a non-leaf only if some leaf lies below it
    visible: Vec<bool>,
    // non-leaf nodes that stay hidden whatever lies below them (see
    // `add_archive_names`)
    hidden: Vec<NodeId>,
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

/// Builds a [`Pmns`] a node's children at a time.
pub(crate) struct Builder {
    tree: Pmns,
}

impl Builder {
    /// A builder whose node names are slices of `names`.
    pub(crate) fn new(names: Vec<u8>) -> Builder {
        let mut tree = Pmns::new();
        tree.names = names;
        Builder { tree }
    }

    /// Give `parent` its children, each a (name offset, name length, PMID)
    /// into the name arena; returns the first child's id (the rest follow).
    pub(crate) fn set_children(&mut self, parent: NodeId, children: &[(u32, u32, PmId)]) -> NodeId {
        let t = &mut self.tree;
        let first_id = t.nodes.len() as NodeId;
        let start = t.kids.len() as u32;
        for (i, &(name_off, name_len, pmid)) in children.iter().enumerate() {
            t.nodes.push(Node { name_off, name_len, pmid, parent, first: 0, count: 0 });
            t.kids.push(first_id + i as NodeId);
        }
        let p = &mut t.nodes[parent as usize];
        p.first = start;
        p.count = children.len() as u32;
        first_id
    }

    /// The arena text of a node's name.
    pub(crate) fn name(&self, n: NodeId) -> &[u8] {
        self.tree.name_bytes(n)
    }

    /// Finish: build the indexes.
    pub(crate) fn finish(mut self) -> Pmns {
        self.tree.index();
        self.tree
    }

    /// The tree so far (for checks before finishing).
    pub(crate) fn tree(&self) -> &Pmns {
        &self.tree
    }
}

impl Pmns {
    /// An empty name space: just the root.
    pub fn new() -> Pmns {
        Pmns {
            names: b"root".to_vec(),
            nodes: vec![Node { name_off: 0, name_len: 4, pmid: PmId::NULL, parent: ROOT, first: 0, count: 0 }],
            kids: Vec::new(),
            sorted: Vec::new(),
            by_pmid: Vec::new(),
            visible: vec![true],
            hidden: Vec::new(),
        }
    }

    fn name_bytes(&self, n: NodeId) -> &[u8] {
        let node = &self.nodes[n as usize];
        &self.names[node.name_off as usize..(node.name_off + node.name_len) as usize]
    }

    fn name_str(&self, n: NodeId) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(self.name_bytes(n))
    }

    fn range(&self, n: NodeId) -> std::ops::Range<usize> {
        let node = &self.nodes[n as usize];
        node.first as usize..(node.first + node.count) as usize
    }

    /// Build the lookup, PMID and visibility indexes; call once the tree is
    /// complete.
    fn index(&mut self) {
        self.sorted = self.kids.clone();
        let (names, nodes) = (&self.names, &self.nodes);
        let name = |c: NodeId| {
            let node = &nodes[c as usize];
            &names[node.name_off as usize..(node.name_off + node.name_len) as usize]
        };
        for node in nodes {
            let r = node.first as usize..(node.first + node.count) as usize;
            self.sorted[r].sort_by(|&a, &b| name(a).cmp(name(b)));
        }
        let mut by_pmid = Vec::new();
        self.walk(ROOT, |n| {
            let pmid = self.nodes[n as usize].pmid;
            if n != ROOT && !pmid.is_null() {
                by_pmid.push((pmid, n));
            }
        });
        by_pmid.sort_by_key(|&(pmid, _)| pmid); // stable: keeps depth-first order
        self.by_pmid = by_pmid;
        let mut visible = vec![false; self.nodes.len()];
        visible[ROOT as usize] = true;
        for &(_, leaf) in &self.by_pmid {
            let mut x = leaf;
            while !visible[x as usize] {
                visible[x as usize] = true;
                x = self.nodes[x as usize].parent;
            }
        }
        for &h in &self.hidden {
            visible[h as usize] = false;
        }
        self.visible = visible;
    }

    /// Visit `from` and every node below it, depth first, parents before
    /// children, children in order.
    pub(crate) fn walk(&self, from: NodeId, mut f: impl FnMut(NodeId)) {
        let mut stack = vec![from];
        while let Some(n) = stack.pop() {
            f(n);
            stack.extend(self.kids[self.range(n)].iter().rev());
        }
    }

    fn visible_children(&self, n: NodeId) -> impl DoubleEndedIterator<Item = NodeId> + '_ {
        self.kids[self.range(n)].iter().copied().filter(|&c| self.visible[c as usize])
    }

    /// The visible child of `n` named `name`.
    fn child(&self, n: NodeId, name: &[u8]) -> Option<NodeId> {
        let sorted = &self.sorted[self.range(n)];
        // (siblings' names mostly differ in their first byte: compared
        // first, without a call)
        let first = name.first().copied();
        let i = sorted
            .binary_search_by(|&c| {
                let have = self.name_bytes(c);
                match have.first().copied().cmp(&first) {
                    std::cmp::Ordering::Equal => have.cmp(name),
                    other => other,
                }
            })
            .ok()?;
        let c = sorted[i];
        self.visible[c as usize].then_some(c)
    }

    /// Add a leaf by its full name, creating the non-leaf nodes on the way
    /// (libpcp's `__pmAddPMNSNode`, used for derived metrics); an existing
    /// name is left as it is.
    pub fn add_name(&mut self, name: &str, pmid: PmId) {
        self.add_names([(name, pmid)]);
    }

    /// [`Pmns::add_name`] for many names, indexing once at the end.
    pub fn add_names<'a>(&mut self, names: impl IntoIterator<Item = (&'a str, PmId)>) {
        self.insert_names(names, false, false);
    }

    /// Add names as libpcp's `__pmAddPMNSNode` does when it builds an
    /// archive's name space: a new node goes in *front* of its siblings,
    /// so children list in the reverse of the order they arrived.
    #[doc(alias = "__pmAddPMNSNode")]
    pub fn add_names_front<'a>(&mut self, names: impl IntoIterator<Item = (&'a str, PmId)>) {
        self.insert_names(names, true, false);
    }

    /// Add the names of the archives of a multi-archive context, one
    /// archive's names after another, as libpcp loads them into one name
    /// space (each as [`Pmns::add_names_front`]). libpcp makes a non-leaf
    /// node findable only when the name space is first indexed, after the
    /// first archive: a non-leaf node that a later archive creates stays
    /// hidden, with everything below it, from lookups, listings and
    /// traversals, while `pmNameID` and `pmNameAll` still report the
    /// names through it.
    #[doc(alias = "__pmAddPMNSNode")]
    #[doc(alias = "__pmFixPMNSHashTab")]
    pub fn add_archive_names<'a, I>(&mut self, archives: impl IntoIterator<Item = I>)
    where
        I: IntoIterator<Item = (&'a str, PmId)>,
    {
        for (i, names) in archives.into_iter().enumerate() {
            self.insert_names(names, true, i > 0);
        }
    }

    /// Insert names in one batch: each node whose children change gets a
    /// working child list (and a by-name lookup) the first time it is
    /// touched; at the end each such list is laid out once in `kids` and
    /// the tree is indexed once. Existing names are left as they are.
    /// With `hide`, the non-leaf nodes it creates stay hidden.
    fn insert_names<'a>(&mut self, names: impl IntoIterator<Item = (&'a str, PmId)>, front: bool, hide: bool) {
        use foldhash::{HashMap, HashMapExt};
        use std::borrow::Cow;
        /// A touched node's children in order, and their ids by name (a
        /// new child's name borrowed from the name given).
        type Working<'a> = (Vec<NodeId>, HashMap<Cow<'a, [u8]>, NodeId>);
        let mut touched: HashMap<NodeId, Working<'a>> = HashMap::new();
        for (name, pmid) in names {
            let mut n = ROOT;
            let mut parts = name.split('.').peekable();
            while let Some(part) = parts.next() {
                let last = parts.peek().is_none();
                let (list, by_name) = touched.entry(n).or_insert_with(|| {
                    let list = self.kids[self.range(n)].to_vec();
                    let by_name = list.iter().map(|&c| (Cow::Owned(self.name_bytes(c).to_vec()), c)).collect();
                    (list, by_name)
                });
                if let Some(&c) = by_name.get(part.as_bytes()) {
                    n = c;
                    continue;
                }
                let id = self.nodes.len() as NodeId;
                let name_off = self.names.len() as u32;
                self.names.extend_from_slice(part.as_bytes());
                let leaf_pmid = if last { pmid } else { PmId::NULL };
                if hide && leaf_pmid.is_null() {
                    self.hidden.push(id);
                }
                self.nodes.push(Node {
                    name_off,
                    name_len: part.len() as u32,
                    pmid: leaf_pmid,
                    parent: n,
                    first: 0,
                    count: 0,
                });
                by_name.insert(Cow::Borrowed(part.as_bytes()), id);
                if front {
                    list.insert(0, id);
                } else {
                    list.push(id);
                }
                n = id;
            }
        }
        for (n, (list, _)) in touched {
            let node = &mut self.nodes[n as usize];
            node.first = self.kids.len() as u32;
            node.count = list.len() as u32;
            self.kids.extend_from_slice(&list);
        }
        self.index();
    }

    /// Remove a leaf by its full name, and the non-leaf nodes above it
    /// left with no children; the order of the other names is kept.
    /// Returns whether the name was there. (libpcp's per-context derived
    /// metrics take the place of a global one of the same name this way.)
    pub fn remove_name(&mut self, name: &str) -> bool {
        self.remove_names([name]) == 1
    }

    /// [`Pmns::remove_name`] for many names, indexing once at the end;
    /// returns how many were there.
    pub fn remove_names<'a>(&mut self, names: impl IntoIterator<Item = &'a str>) -> usize {
        // each name found before any is removed, so all against one index
        let mut removed = vec![false; self.nodes.len()];
        let mut left = std::collections::BTreeMap::<NodeId, u32>::new();
        let mut count = 0;
        for name in names {
            let Some(mut n) = self.locate(name) else { continue };
            if n == ROOT || !self.is_childless(n) || removed[n as usize] {
                continue;
            }
            count += 1;
            // up from the leaf, while a parent is left with no children
            while n != ROOT {
                removed[n as usize] = true;
                let parent = self.nodes[n as usize].parent;
                let kids = left.entry(parent).or_insert(self.nodes[parent as usize].count);
                *kids -= 1;
                if *kids > 0 {
                    break;
                }
                n = parent;
            }
        }
        for &parent in left.keys() {
            let kept: Vec<NodeId> =
                self.kids[self.range(parent)].iter().copied().filter(|&c| !removed[c as usize]).collect();
            let start = self.kids.len() as u32;
            let p = &mut self.nodes[parent as usize];
            p.first = start;
            p.count = kept.len() as u32;
            self.kids.extend_from_slice(&kept);
        }
        if count > 0 {
            self.index();
        }
        count
    }

    /// The root's id.
    pub fn root(&self) -> NodeId {
        ROOT
    }

    /// A node's PMID (`PM_ID_NULL` for a non-leaf).
    pub fn pmid_of(&self, n: NodeId) -> PmId {
        self.nodes[n as usize].pmid
    }

    /// The full dotted name of a node (empty for the root).
    pub fn full_name(&self, n: NodeId) -> String {
        let mut parts = Vec::new();
        let mut x = n;
        while x != ROOT {
            parts.push(self.name_str(x));
            x = self.nodes[x as usize].parent;
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
            n = self.child(n, part.as_bytes())?;
        }
        Some(n)
    }

    fn is_childless(&self, n: NodeId) -> bool {
        self.nodes[n as usize].count == 0
    }

    /// `pmLookupName` for one name: its PMID. `PM_ERR_NONLEAF` for an
    /// inner node; a name below the root of a dynamic subtree gives that
    /// root's PMID (the PMDA that serves it resolves the rest); any other
    /// unknown name is `PM_ERR_NAME`.
    ///
    /// ```
    /// use pcp_core::{PmError, PmId};
    /// use pcp_pmns::Pmns;
    ///
    /// let mut pmns = Pmns::new();
    /// pmns.add_names([("kernel.all.load", PmId::new(60, 2, 0)), ("mmv", PmId::dynamic_root(70))]);
    /// assert_eq!(pmns.lookup("kernel.all.load"), Ok(PmId::new(60, 2, 0)));
    /// assert_eq!(pmns.lookup("kernel.all"), Err(PmError::PM_ERR_NONLEAF));
    /// assert_eq!(pmns.lookup("kernel.all.nosuch"), Err(PmError::PM_ERR_NAME));
    /// // below a dynamic subtree's root: the root's PMID, for its PMDA to resolve
    /// assert_eq!(pmns.lookup("mmv.app.requests"), Ok(PmId::dynamic_root(70)));
    /// ```
    #[doc(alias = "pmLookupName")]
    pub fn lookup(&self, name: &str) -> PmResult<PmId> {
        if name.is_empty() {
            return Err(PmError::PM_ERR_NONLEAF);
        }
        // one walk down: the deepest node the name's leading parts reach
        let mut n = ROOT;
        let mut parts = name.split('.');
        let whole = loop {
            let Some(part) = parts.next() else { break true };
            match self.child(n, part.as_bytes()) {
                Some(c) => n = c,
                None => break false,
            }
        };
        if whole {
            return if self.is_childless(n) && n != ROOT {
                Ok(self.nodes[n as usize].pmid)
            } else {
                Err(PmError::PM_ERR_NONLEAF)
            };
        }
        // a name below a leaf: only the root of a dynamic subtree has
        // names below it (the nodes above the deepest one reached all
        // have children, so it is the only leaf among the name's prefixes)
        let pmid = self.nodes[n as usize].pmid;
        if self.is_childless(n) && pmid.is_dynamic_root() {
            return Ok(pmid);
        }
        Err(PmError::PM_ERR_NAME)
    }

    /// `pmLookupName`: many names at once, one-to-one with the input,
    /// `PM_ID_NULL` where a name fails. Returns the PMIDs and the number
    /// found; a single failing name gives its error instead.
    ///
    /// ```
    /// use pcp_core::{PmError, PmId};
    /// use pcp_pmns::Pmns;
    ///
    /// let mut pmns = Pmns::new();
    /// pmns.add_names([("a.x", PmId::new(1, 0, 1)), ("a.y", PmId::new(1, 0, 2))]);
    /// let (ids, found) = pmns.lookup_names(&["a.y", "a.nosuch", "a.x"]).unwrap();
    /// assert_eq!(ids, [PmId::new(1, 0, 2), PmId::NULL, PmId::new(1, 0, 1)]);
    /// assert_eq!(found, 2);
    /// assert_eq!(pmns.lookup_names(&["a.nosuch"]), Err(PmError::PM_ERR_NAME));
    /// ```
    #[doc(alias = "pmLookupName")]
    pub fn lookup_names(&self, names: &[&str]) -> PmResult<(Vec<PmId>, usize)> {
        self.lookup_names_with(names, |_, found| found)
    }

    /// The PMID of the root of a dynamic subtree that `name` runs through
    /// above its last part, where names were added below that root (a
    /// derived metric's, say): libpcp gives that PMID for such a name when
    /// nothing resolves names in the subtree (a name space alone).
    ///
    /// ```
    /// use pcp_core::PmId;
    /// use pcp_pmns::Pmns;
    ///
    /// let mut pmns = Pmns::new();
    /// pmns.add_names([("proc.psinfo", PmId::dynamic_root(3)), ("proc.nprocs", PmId::new(3, 0, 1))]);
    /// pmns.add_names([("proc.psinfo.age", PmId::new(511, 0, 10))]);
    /// assert_eq!(pmns.dynamic_root_above("proc.psinfo.age"), Some(PmId::dynamic_root(3)));
    /// assert_eq!(pmns.dynamic_root_above("proc.nprocs"), None);
    /// ```
    pub fn dynamic_root_above(&self, name: &str) -> Option<PmId> {
        let mut n = ROOT;
        let mut parts = name.split('.').peekable();
        while let Some(part) = parts.next() {
            n = self.child(n, part.as_bytes())?;
            let pmid = self.nodes[n as usize].pmid;
            if parts.peek().is_some() && pmid.is_dynamic_root() {
                return Some(pmid);
            }
        }
        None
    }

    /// [`Pmns::lookup_names`], each name's lookup passed through `resolve`
    /// with the name (which may refuse or replace it): how a context whose
    /// agents resolve names in dynamic subtrees looks names up.
    pub fn lookup_names_with(
        &self,
        names: &[&str],
        mut resolve: impl FnMut(&str, PmResult<PmId>) -> PmResult<PmId>,
    ) -> PmResult<(Vec<PmId>, usize)> {
        let mut found = 0;
        let mut first_err = None;
        let ids = names
            .iter()
            .map(|n| match resolve(n, self.lookup(n)) {
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

    fn leaves_of(&self, pmid: PmId) -> &[(PmId, NodeId)] {
        let lo = self.by_pmid.partition_point(|&(p, _)| p < pmid);
        let hi = self.by_pmid.partition_point(|&(p, _)| p <= pmid);
        &self.by_pmid[lo..hi]
    }

    /// `pmNameID`: a name for the PMID (libpcp's choice where there are
    /// several: the last in traversal order). The root of a dynamic
    /// subtree has no name by PMID (`PM_ERR_PMID`).
    #[doc(alias = "pmNameID")]
    pub fn name_of(&self, pmid: PmId) -> PmResult<String> {
        if pmid.is_dynamic_root() {
            return Err(PmError::PM_ERR_PMID);
        }
        self.leaves_of(pmid).last().map(|&(_, n)| self.full_name(n)).ok_or(PmError::PM_ERR_PMID)
    }

    /// `pmNameAll`: every name of the PMID (last in traversal order first,
    /// as libpcp lists them).
    #[doc(alias = "pmNameAll")]
    pub fn names_of(&self, pmid: PmId) -> PmResult<Vec<String>> {
        let leaves = self.leaves_of(pmid);
        if pmid.is_dynamic_root() || leaves.is_empty() {
            return Err(PmError::PM_ERR_PMID);
        }
        Ok(leaves.iter().rev().map(|&(_, n)| self.full_name(n)).collect())
    }

    /// `pmGetChildrenStatus`: the children of a node and whether each is a
    /// leaf. Empty for a leaf; `PM_ERR_NAME` for an unknown name.
    ///
    /// ```
    /// use pcp_core::{PmError, PmId};
    /// use pcp_pmns::tree::Child;
    /// use pcp_pmns::Pmns;
    ///
    /// let mut pmns = Pmns::new();
    /// pmns.add_names([("kernel.all.load", PmId::new(60, 2, 0)), ("kernel.uname.release", PmId::new(60, 12, 0))]);
    /// let kids = pmns.children("kernel").unwrap();
    /// assert_eq!(
    ///     kids,
    ///     [Child { name: "all".into(), leaf: false }, Child { name: "uname".into(), leaf: false }]
    /// );
    /// assert_eq!(pmns.children("kernel.all").unwrap(), [Child { name: "load".into(), leaf: true }]);
    /// assert!(pmns.children("kernel.all.load").unwrap().is_empty());
    /// assert_eq!(pmns.children("nosuch"), Err(PmError::PM_ERR_NAME));
    /// ```
    #[doc(alias = "pmGetChildren")]
    #[doc(alias = "pmGetChildrenStatus")]
    pub fn children(&self, name: &str) -> PmResult<Vec<Child>> {
        let n = self.locate(name).ok_or(PmError::PM_ERR_NAME)?;
        Ok(self
            .visible_children(n)
            .map(|c| Child { name: self.name_str(c).into_owned(), leaf: self.is_childless(c) })
            .collect())
    }

    /// `pmTraversePMNS`: call `f` with the full name of every leaf at or
    /// below `name`, depth first in definition order. Non-leaf nodes with
    /// no leaf below them are not listed, but one named directly yields its
    /// own name (as libpcp does); `PM_ERR_NAME` for an unknown name.
    #[doc(alias = "pmTraversePMNS")]
    pub fn traverse_with(&self, name: &str, mut f: impl FnMut(&str)) -> PmResult<()> {
        let start = self.locate(name).ok_or(PmError::PM_ERR_NAME)?;
        // one name buffer, extended and cut back as the walk goes
        let mut full = String::from(name);
        // (node, length of `full` before this node's name was added)
        let mut stack: Vec<(NodeId, usize, bool)> = vec![(start, full.len(), false)];
        while let Some((n, base, add)) = stack.pop() {
            full.truncate(base);
            if add {
                if !full.is_empty() {
                    full.push('.');
                }
                full.push_str(&self.name_str(n));
            }
            let len = full.len();
            let mut any = false;
            for c in self.visible_children(n).rev() {
                stack.push((c, len, true));
                any = true;
            }
            if !any {
                f(&full);
            }
        }
        Ok(())
    }

    /// [`Pmns::traverse_with`], collecting the names.
    #[doc(alias = "pmTraversePMNS")]
    pub fn traverse(&self, name: &str) -> PmResult<Vec<String>> {
        let mut out = Vec::new();
        self.traverse_with(name, |n| out.push(n.to_string()))?;
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

    #[test]
    fn removing_a_name_keeps_the_order_and_drops_emptied_parents() {
        let mut t = Pmns::new();
        let (p1, p2, p3) = (PmId::new(1, 0, 1), PmId::new(1, 0, 2), PmId::new(1, 0, 3));
        t.add_names([("a.b", p1), ("a.c", p2), ("x.y.z", p3), ("w", p1)]);
        assert!(t.remove_name("a.b"));
        assert!(!t.remove_name("a.b"));
        assert!(!t.remove_name("x.y"), "a non-leaf is not removed");
        assert_eq!(t.lookup("a.b"), Err(PmError::PM_ERR_NAME));
        assert_eq!(t.name_of(p1).as_deref(), Ok("w"));
        t.add_name("a.b", p3);
        assert_eq!(t.traverse("a").unwrap(), ["a.c", "a.b"]);
        assert!(t.remove_name("x.y.z"));
        assert_eq!(t.lookup("x"), Err(PmError::PM_ERR_NAME));
        assert_eq!(t.traverse("").unwrap(), ["a.c", "a.b", "w"]);
    }

    #[test]
    fn removing_names_at_once_is_removing_them_one_by_one() {
        let names = [("a.b.c", 1), ("a.b.d", 2), ("a.e", 3), ("f.g", 4), ("h", 5), ("f.i.j", 6)];
        let mut t = Pmns::new();
        t.add_names(names.map(|(n, i)| (n, PmId::new(1, 0, i))));
        let gone = ["a.b.c", "a.b.d", "a.b.d", "f", "f.i.j", "h", "nope", ""];
        let mut one_by_one = t.clone();
        let found = gone.iter().filter(|n| one_by_one.remove_name(n)).count();
        assert_eq!(t.remove_names(gone), found);
        assert_eq!(found, 4);
        assert_eq!(t.traverse("").unwrap(), one_by_one.traverse("").unwrap());
        assert_eq!(t.traverse("").unwrap(), ["a.e", "f.g"]);
        assert_eq!(t.lookup("a.b"), Err(PmError::PM_ERR_NAME));
        assert_eq!(t.children("").unwrap(), one_by_one.children("").unwrap());
    }

    #[test]
    fn later_archives_add_no_findable_non_leaf_nodes() {
        let mut t = Pmns::new();
        let (p1, p2, p3, p4) = (PmId::new(1, 0, 1), PmId::new(1, 0, 2), PmId::new(1, 0, 3), PmId::new(1, 0, 4));
        t.add_archive_names([vec![("a.b", p1)], vec![("a.c", p2), ("x.y", p3), ("a.d.e", p4), ("a.d.f", p4)]]);
        // a new leaf under a node of the first archive is found
        assert_eq!(t.lookup("a.c"), Ok(p2));
        assert_eq!(t.children("a").unwrap().iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["c", "b"]);
        // below non-leaf nodes a later archive made, nothing is
        assert_eq!(t.lookup("x.y"), Err(PmError::PM_ERR_NAME));
        assert_eq!(t.lookup("a.d.e"), Err(PmError::PM_ERR_NAME));
        assert_eq!(t.traverse("").unwrap(), ["a.c", "a.b"]);
        // but the names are there for pmNameID and pmNameAll
        assert_eq!(t.name_of(p3).unwrap(), "x.y");
        assert_eq!(t.names_of(p4).unwrap(), ["a.d.e", "a.d.f"]);
    }

    fn sample() -> Pmns {
        let names = b"axybdynzz".to_vec();
        let mut b = Builder::new(names);
        // root: a (non-leaf), b, dyn, zz (a non-leaf with no leaves: hidden)
        let a = b.set_children(
            ROOT,
            &[(0, 1, PmId::NULL), (3, 1, PmId::new(1, 0, 1)), (4, 3, PmId::dynamic_root(60)), (7, 2, PmId::NULL)],
        );
        b.set_children(a, &[(1, 1, PmId::new(1, 0, 1)), (2, 1, PmId::new(1, 0, 2))]);
        b.finish()
    }

    #[test]
    fn services() {
        let t = sample();
        assert_eq!(t.traverse("").unwrap(), ["a.x", "a.y", "b", "dyn"]);
        assert_eq!(t.traverse("a.y").unwrap(), ["a.y"]);
        assert_eq!(t.traverse("nope"), Err(PmError::PM_ERR_NAME));
        assert_eq!(t.traverse("zz"), Err(PmError::PM_ERR_NAME));
        assert_eq!(t.lookup("a.x"), Ok(PmId::new(1, 0, 1)));
        assert_eq!(t.lookup("a"), Err(PmError::PM_ERR_NONLEAF));
        assert_eq!(t.lookup("dyn.foo.bar"), Ok(PmId::dynamic_root(60)));
        assert_eq!(t.lookup("a.z"), Err(PmError::PM_ERR_NAME));
        assert_eq!(t.name_of(PmId::new(1, 0, 1)).unwrap(), "b");
        assert_eq!(t.names_of(PmId::new(1, 0, 1)).unwrap(), ["b", "a.x"]);
        assert_eq!(t.name_of(PmId::dynamic_root(60)), Err(PmError::PM_ERR_PMID));
        assert_eq!(t.children("a").unwrap()[1], Child { name: "y".into(), leaf: true });
        assert_eq!(t.children("").unwrap().len(), 3);
        let (ids, n) = t.lookup_names(&["a.x", "zz", "b"]).unwrap();
        assert_eq!((ids[1], n), (PmId::NULL, 2));
        assert_eq!(t.lookup_names(&["zz"]), Err(PmError::PM_ERR_NAME));
    }

    proptest::proptest! {
        /// One walk down finds what looking up each prefix in turn (the
        /// way libpcp searches for a dynamic subtree's root) finds.
        #[test]
        fn lookup_is_the_prefix_search(parts in proptest::collection::vec("(a|b|x|y|zz|dyn|foo|)", 0..5)) {
            let t = sample();
            let name = parts.join(".");
            let by_prefixes = match t.locate(&name) {
                Some(n) if t.is_childless(n) && n != ROOT => Ok(t.nodes[n as usize].pmid),
                Some(_) => Err(PmError::PM_ERR_NONLEAF),
                None => {
                    let mut found = Err(PmError::PM_ERR_NAME);
                    let mut prefix = name.as_str();
                    while let Some(dot) = prefix.rfind('.') {
                        prefix = &prefix[..dot];
                        if let Some(n) = t.locate(prefix) {
                            let pmid = t.nodes[n as usize].pmid;
                            if t.is_childless(n) && pmid.is_dynamic_root() {
                                found = Ok(pmid);
                                break;
                            }
                        }
                    }
                    found
                }
            };
            proptest::prop_assert_eq!(t.lookup(&name), by_prefixes, "{}", name);
        }
    }

    #[test]
    fn add_name_appends_in_order() {
        let mut t = sample();
        t.add_name("event.flags", PmId::new(511, 0, 1));
        t.add_name("event.missed", PmId::new(511, 0, 2));
        t.add_name("b", PmId::new(9, 9, 9)); // exists: unchanged
        assert_eq!(t.traverse("").unwrap(), ["a.x", "a.y", "b", "dyn", "event.flags", "event.missed"]);
        assert_eq!(t.lookup("b"), Ok(PmId::new(1, 0, 1)));
    }

    #[test]
    fn adding_many_siblings_lays_each_range_out_once() {
        // inserting one name at a time used to copy the parent's whole
        // child range each time, leaving k*k/2 dead entries for k siblings
        let names: Vec<String> = (0..2000).map(|i| format!("g.m{i}")).collect();
        let mut t = Pmns::new();
        t.add_names_front(names.iter().enumerate().map(|(i, n)| (n.as_str(), PmId::new(1, 0, i as u32 % 1024))));
        assert!(t.kids.len() <= 2 * t.nodes.len(), "{} child slots for {} nodes", t.kids.len(), t.nodes.len());
        assert_eq!(t.traverse("g").unwrap().first().map(String::as_str), Some("g.m1999"));
    }

    #[test]
    fn add_names_front_reverses_arrival_order() {
        let mut t = Pmns::new();
        t.add_names_front([("s.one", PmId::new(1, 0, 1)), ("s.two", PmId::new(1, 0, 2)), ("t", PmId::new(1, 0, 3))]);
        assert_eq!(t.traverse("").unwrap(), ["t", "s.two", "s.one"]);
    }
}
