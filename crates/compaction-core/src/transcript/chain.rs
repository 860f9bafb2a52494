//! The record graph: one light node per record with a uuid, its
//! `parentUuid` link, the leaf, and the walks that rebuild the chain —
//! across compact boundaries, around preserved messages, and past parallel
//! tool calls (see the module docs of `transcript` for the rules).

use crate::hash::{HashMap, HashSet};
use std::collections::hash_map::Entry;

use super::expand::Expansion;
use super::model::{Boundary, ImportedMessage};
use super::{Problem, ProblemKind};
use crate::message::Uuid;

/// The parts of [`Graph::resolve_part`], in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resolving {
    Links,
    Cycles,
    Boundaries,
    Leaf,
}

impl Resolving {
    pub const ALL: [Resolving; 4] = [
        Resolving::Links,
        Resolving::Cycles,
        Resolving::Boundaries,
        Resolving::Leaf,
    ];
}

/// What a node stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NodeKind {
    /// A line of the message at this index.
    Message(usize),
    /// The boundary at this index.
    Boundary(usize),
    /// The `compact_expanded` record at this index of
    /// [`Graph::expansions`].
    Expanded(usize),
    /// A `message_pinned` or `count_calibrated` record (extension): a
    /// record the engine wrote, so the records a resumed engine writes
    /// next chain after it.
    Pinned,
    /// Any other record with a uuid (progress, system, attachment, a
    /// sidechain record, an unknown type).
    Other,
}

/// Where a node's `parentUuid` leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Link {
    /// `parentUuid: null` (or absent).
    Root,
    /// The node at this index.
    Parent(usize),
    /// Not seen yet while reading (resolved by [`Graph::resolve`]).
    Pending(Uuid),
    /// Names no record: the walk continues from this earlier node, if any.
    Dangling(Option<usize>),
}

/// One record with a uuid.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub uuid: Uuid,
    pub line: u32,
    pub kind: NodeKind,
    pub sidechain: bool,
    pub link: Link,
}

/// Every record with a uuid, in file order, and what was derived from them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Graph {
    pub nodes: Vec<Node>,
    /// Node by uuid (the first record with that uuid).
    pub index: HashMap<Uuid, usize>,
    /// The node the chain is walked from.
    pub leaf: Option<usize>,
    /// What each `compact_expanded` record says.
    pub expansions: Vec<Expansion>,
    /// Per boundary: its node.
    pub(super) boundary_node: Vec<usize>,
    /// Per boundary: where the history before it continues.
    pub(super) before_boundary: Vec<Option<usize>>,
    /// Per boundary: its summary message.
    pub(super) summary: Vec<Option<usize>>,
    /// Per boundary: the preserved messages, in order.
    pub(super) preserved: Vec<Vec<usize>>,
    /// Message → the boundaries that preserve it.
    preserved_by: HashMap<usize, Vec<usize>>,
    /// Per node: the nearest main node before it.
    main_before: Vec<Option<usize>>,
}

impl Graph {
    /// Adds a node; if the uuid is taken, nothing is added and the line of
    /// the first record with it is returned, with the uuid.
    pub fn add(
        &mut self,
        uuid: Uuid,
        parent: Option<&Uuid>,
        line: u32,
        kind: NodeKind,
        sidechain: bool,
    ) -> Result<(), (u32, Uuid)> {
        let link = match parent {
            None => Link::Root,
            Some(p) => match self.index.get(p) {
                Some(&at) => Link::Parent(at),
                None => Link::Pending(p.clone()),
            },
        };
        let at = self.nodes.len();
        match self.index.entry(uuid) {
            Entry::Occupied(first) => {
                let line = self.nodes.get(*first.get()).map_or(0, |n| n.line);
                Err((line, first.key().clone()))
            }
            Entry::Vacant(slot) => {
                let uuid = slot.key().clone();
                slot.insert(at);
                self.nodes.push(Node {
                    uuid,
                    line,
                    kind,
                    sidechain,
                    link,
                });
                Ok(())
            }
        }
    }

    /// Makes room for `additional` more records in the uuid index.
    pub fn reserve(&mut self, additional: usize) {
        self.index.reserve(additional);
    }

    /// The message a uuid belongs to (its own or a merged line's).
    pub fn message_index(&self, uuid: &Uuid) -> Option<usize> {
        match self.nodes.get(*self.index.get(uuid)?)?.kind {
            NodeKind::Message(m) => Some(m),
            _ => None,
        }
    }

    /// The nearest main (non-sidechain) node before node `at`: where a walk
    /// continues when a link names no record.
    fn main_before(&self, at: usize) -> Option<usize> {
        self.main_before.get(at).copied().flatten()
    }

    /// Resolves what reading could not (late parents, boundaries' logical
    /// parents and summaries, preserved messages, the leaf), one part at a
    /// time, each of [`Resolving::ALL`] in turn: each pass over the records
    /// on its own, so that a host can yield between them.
    pub fn resolve_part(
        &mut self,
        part: Resolving,
        messages: &[ImportedMessage],
        boundaries: &mut [Boundary],
        problems: &mut Vec<Problem>,
    ) {
        match part {
            Resolving::Links => self.resolve_links(problems, 0, self.nodes.len()),
            Resolving::Cycles => self.report_cycles(problems),
            Resolving::Boundaries => {
                self.find_summaries(messages, boundaries);
                self.claim_summaries(messages, boundaries);
                self.resolve_boundaries(messages, boundaries, problems, 0, boundaries.len());
            }
            Resolving::Leaf => {
                self.leaf = self.nodes.iter().rposition(|n| {
                    !n.sidechain
                        && matches!(
                            n.kind,
                            NodeKind::Message(_)
                                | NodeKind::Boundary(_)
                                | NodeKind::Expanded(_)
                                | NodeKind::Pinned
                        )
                });
            }
        }
    }

    /// Late parents: each link to a record not seen yet when read, of
    /// the records `from..to` (called for consecutive ranges from 0, so
    /// that a host can yield between slices).
    pub(super) fn resolve_links(&mut self, problems: &mut Vec<Problem>, from: usize, to: usize) {
        self.main_before.truncate(from);
        for i in from..to {
            let before = match i.checked_sub(1) {
                Some(p) if self.nodes.get(p).is_some_and(|n| !n.sidechain) => Some(p),
                Some(p) => self.main_before(p),
                None => None,
            };
            self.main_before.push(before);
        }
        for at in from..to {
            let Some(Link::Pending(parent)) = self.nodes.get(at).map(|n| n.link.clone()) else {
                continue;
            };
            let link = match self.index.get(&parent) {
                Some(&p) if p != at => Link::Parent(p),
                Some(_) => {
                    if let Some(node) = self.nodes.get(at) {
                        problems.push(Problem::new(
                            node.line,
                            ProblemKind::ParentCycle,
                            format!("`parentUuid` = {parent} names the record itself; the chain continues from the record before it"),
                        ));
                    }
                    Link::Dangling(self.main_before(at))
                }
                None => {
                    let fallback = self.main_before(at);
                    if let Some(node) = self.nodes.get(at).filter(|n| !n.sidechain) {
                        let then = match fallback.and_then(|f| self.nodes.get(f)) {
                            Some(f) => format!("the chain continues from line {}", f.line),
                            None => "the chain starts here".to_owned(),
                        };
                        problems.push(Problem::new(
                            node.line,
                            ProblemKind::DanglingParent,
                            format!("`parentUuid` = {parent} names no record in the file; {then}"),
                        ));
                    }
                    Link::Dangling(fallback)
                }
            };
            if let Some(node) = self.nodes.get_mut(at) {
                node.link = link;
            }
        }
    }

    /// Reports each `parentUuid` loop (records naming later records as
    /// parents, around to the first): the record whose link closes it, by
    /// uuid. A walk stops where it would repeat a record.
    fn report_cycles(&self, problems: &mut Vec<Problem>) {
        // Per node: 0 not reached yet, 1 on the path being followed, 2 done.
        let mut seen = vec![0u8; self.nodes.len()];
        for start in 0..self.nodes.len() {
            let mut path: Vec<usize> = Vec::new();
            let mut at = Some(start);
            while let Some(i) = at {
                match seen.get(i) {
                    Some(0) => {}
                    Some(1) => {
                        let closing = path.last().and_then(|&c| self.nodes.get(c));
                        if let (Some(node), Some(to)) = (closing, self.nodes.get(i)) {
                            let length = path.len() - path.iter().position(|&p| p == i).unwrap_or(0);
                            problems.push(Problem::new(
                                node.line,
                                ProblemKind::ParentCycle,
                                format!(
                                    "`parentUuid` of record `{}` = {} closes a cycle of {length} records (line {} back to line {}); the walk stops where it would repeat a record",
                                    node.uuid, to.uuid, node.line, to.line
                                ),
                            ));
                        }
                        break;
                    }
                    _ => break,
                }
                if let Some(s) = seen.get_mut(i) {
                    *s = 1;
                }
                path.push(i);
                at = match self.nodes.get(i).map(|n| &n.link) {
                    Some(Link::Parent(p)) => Some(*p),
                    Some(Link::Dangling(fallback)) => *fallback,
                    _ => None,
                };
            }
            for i in path {
                if let Some(s) = seen.get_mut(i) {
                    *s = 2;
                }
            }
        }
    }

    /// Each boundary's node and the summary that names it, before
    /// [`Graph::claim_summaries`] and [`Graph::resolve_boundaries`] (steps
    /// of their own: together 150 ms for 100,000 boundaries natively).
    pub(super) fn find_summaries(&mut self, messages: &[ImportedMessage], boundaries: &[Boundary]) {
        let mut boundary_node = vec![0; boundaries.len()];
        for (at, node) in self.nodes.iter().enumerate() {
            if let NodeKind::Boundary(b) = node.kind {
                if let Some(slot) = boundary_node.get_mut(b) {
                    *slot = at;
                }
            }
        }
        let by_uuid: HashMap<&Uuid, usize> =
            boundaries.iter().enumerate().map(|(i, b)| (&b.uuid, i)).collect();
        let mut summary: Vec<Option<usize>> = vec![None; boundaries.len()];
        // A summary names its boundary as parent; failing that, the first
        // unclaimed summary between a boundary and the next one.
        for (m, msg) in messages.iter().enumerate().filter(|(_, m)| m.is_compact_summary) {
            if let Some(&b) = msg.parent_uuid.as_ref().and_then(|p| by_uuid.get(p)) {
                if let Some(slot @ None) = summary.get_mut(b) {
                    *slot = Some(m);
                }
            }
        }
        self.boundary_node = boundary_node;
        self.summary = summary;
    }

    /// After [`Graph::find_summaries`] (a step of its own, 24 ms of the
    /// 73 natively for 100,000 boundaries): for each boundary whose
    /// summary does not name it, the first unclaimed one after it.
    pub(super) fn claim_summaries(&mut self, messages: &[ImportedMessage], boundaries: &[Boundary]) {
        let mut summary = std::mem::take(&mut self.summary);
        let claimed: HashSet<usize> = summary.iter().flatten().copied().collect();
        for b in 0..boundaries.len() {
            if summary.get(b).copied().flatten().is_some() {
                continue;
            }
            let from = boundaries.get(b).map_or(0, |x| x.line);
            let to = boundaries.get(b + 1).map_or(u32::MAX, |x| x.line);
            let found = messages
                .iter()
                .enumerate()
                .find(|(m, msg)| {
                    msg.is_compact_summary && msg.line > from && msg.line < to && !claimed.contains(m)
                })
                .map(|(m, _)| m);
            if let Some(slot) = summary.get_mut(b) {
                *slot = found;
            }
        }

        self.summary = summary;
        self.before_boundary = Vec::with_capacity(boundaries.len());
        self.preserved = Vec::with_capacity(boundaries.len());
    }

    /// Boundaries `from..to` (called for consecutive ranges from 0 after
    /// [`Graph::find_summaries`], so that a host can yield between slices):
    /// their summaries, logical parents and preserved messages.
    pub(super) fn resolve_boundaries(
        &mut self,
        messages: &[ImportedMessage],
        boundaries: &mut [Boundary],
        problems: &mut Vec<Problem>,
        from: usize,
        to: usize,
    ) {
        let len = boundaries.len();
        self.before_boundary.truncate(from);
        self.preserved.truncate(from);
        for (b, boundary) in boundaries.iter_mut().enumerate().take(to).skip(from) {
            let node = self.boundary_node.get(b).copied().unwrap_or(0);
            boundary.summary_uuid = self
                .summary
                .get(b)
                .copied()
                .flatten()
                .and_then(|m| messages.get(m))
                .map(|m| m.message.uuid.clone());
            if boundary.summary_uuid.is_none() {
                problems.push(Problem::new(
                    boundary.line,
                    ProblemKind::MissingCompactSummary,
                    format!(
                        "boundary `{}` has no `isCompactSummary` message after it",
                        boundary.uuid
                    ),
                ));
            }
            let logical = boundary
                .logical_parent_uuid
                .as_ref()
                .and_then(|p| self.index.get(p))
                .copied();
            boundary.logical_parent_found = logical.is_some();
            let fallback = || self.main_before(node);
            let before = match (&boundary.logical_parent_uuid, logical) {
                (_, Some(at)) => Some(at),
                (Some(p), None) => {
                    let at = fallback();
                    let then = match at.and_then(|f| self.nodes.get(f)) {
                        Some(f) => format!("the history continues from line {}", f.line),
                        None => "no earlier record in the file".to_owned(),
                    };
                    problems.push(Problem::new(
                        boundary.line,
                        ProblemKind::DanglingLogicalParent,
                        format!("`logicalParentUuid` = {p} names no record in the file; {then}"),
                    ));
                    at
                }
                (None, None) => fallback(),
            };
            self.before_boundary.push(before);
            let preserved = self.preserved_of(boundary, messages, problems);
            self.preserved.push(preserved);
        }
        if to < len {
            return;
        }
        let mut preserved_by: HashMap<usize, Vec<usize>> = HashMap::default();
        for (b, list) in self.preserved.iter().enumerate() {
            for &m in list {
                preserved_by.entry(m).or_default().push(b);
            }
        }
        self.preserved_by = preserved_by;
    }

    /// The messages a boundary preserves, in order: `preservedMessages`
    /// uuids, else the `preservedSegment` walked from tail back to head.
    fn preserved_of(
        &self,
        boundary: &Boundary,
        messages: &[ImportedMessage],
        problems: &mut Vec<Problem>,
    ) -> Vec<usize> {
        let Some(meta) = &boundary.metadata else {
            return Vec::new();
        };
        let mut out: Vec<usize> = Vec::new();
        let mut dangling = |what: String| {
            problems.push(Problem::new(boundary.line, ProblemKind::DanglingPreserved, what));
        };
        if let Some(list) = &meta.preserved_messages {
            // `uuids` are the messages kept; `allUuids` only when a file
            // gives no `uuids` (every record in it that is a message).
            let (uuids, wider) = match (&list.all_uuids, list.uuids.is_empty()) {
                (Some(all), true) => (all, true),
                _ => (&list.uuids, false),
            };
            for uuid in uuids {
                match self.message_index(uuid) {
                    Some(m) if !out.contains(&m) => out.push(m),
                    Some(_) => {}
                    // The wider list names kept records that are no message.
                    None if wider && self.index.contains_key(uuid) => {}
                    None => dangling(format!(
                        "`preservedMessages` uuid {uuid} names no message in the file"
                    )),
                }
            }
            return out;
        }
        let Some(segment) = &meta.preserved_segment else {
            return out;
        };
        let (Some(head), Some(tail)) = (&segment.head_uuid, &segment.tail_uuid) else {
            dangling("`preservedSegment` lacks `headUuid` or `tailUuid`".to_owned());
            return out;
        };
        let Some(&start) = self.index.get(tail) else {
            dangling(format!(
                "`preservedSegment.tailUuid` = {tail} names no record in the file"
            ));
            return out;
        };
        let mut at = Some(start);
        let mut seen = HashSet::default();
        let mut reached = false;
        while let Some(i) = at.filter(|&i| seen.insert(i)) {
            let Some(node) = self.nodes.get(i) else { break };
            if let NodeKind::Message(m) = node.kind {
                if !out.contains(&m) {
                    out.push(m);
                }
            }
            if &node.uuid == head
                || message_of(node)
                    .and_then(|m| messages.get(m))
                    .is_some_and(|m| &m.message.uuid == head)
            {
                reached = true;
                break;
            }
            at = match node.link {
                Link::Parent(p) => Some(p),
                _ => None,
            };
        }
        if !reached {
            dangling(format!(
                "`preservedSegment.headUuid` = {head} is not reached walking back from its tail"
            ));
        }
        out.reverse();
        out
    }

    /// The newest era ending at node `start`: the boundary that opens it
    /// and the walked nodes after it (newest first).
    pub(super) fn segment(&self, start: usize, visited: &mut HashSet<usize>) -> (Option<usize>, Vec<usize>) {
        let mut walk = self.walk_from(start);
        while !walk.step(self, visited, usize::MAX) {}
        walk.finish()
    }

    /// [`Graph::segment`] to be walked a slice at a time ([`Walk::step`]).
    pub(super) fn walk_from(&self, start: usize) -> Walk {
        Walk {
            start_line: self.nodes.get(start).map_or(0, |n| n.line),
            at: Some(start),
            nodes: Vec::new(),
            opener: None,
        }
    }

    pub(super) fn boundary_line(&self, b: usize) -> u32 {
        self.boundary_node
            .get(b)
            .and_then(|&n| self.nodes.get(n))
            .map_or(0, |n| n.line)
    }

    /// The node a walk for the resumed view starts from.
    pub fn view_start(&self) -> Option<usize> {
        self.leaf
    }
}

/// A walk back from a node to the boundary that opens its era
/// ([`Graph::segment`]), resumable between any two nodes.
#[derive(Debug)]
pub(super) struct Walk {
    start_line: u32,
    /// The next node.
    at: Option<usize>,
    /// The nodes walked, newest first.
    nodes: Vec<usize>,
    /// The boundary that opens the era, once the walk met it.
    opener: Option<usize>,
}

impl Walk {
    /// Walks up to `budget` more nodes; true once the walk is done.
    pub(super) fn step(&mut self, graph: &Graph, visited: &mut HashSet<usize>, budget: usize) -> bool {
        for _ in 0..budget {
            let Some(i) = self.at.take() else {
                return true;
            };
            let Some(node) = graph.nodes.get(i) else {
                return true;
            };
            if let NodeKind::Boundary(b) = node.kind {
                // A boundary met twice (logical parents that loop) ends the
                // history instead of repeating it.
                let first_time = visited.insert(i);
                self.opener = first_time.then_some(b);
                return true;
            }
            // A preserved message reached from after its boundary: the
            // boundary relinks it, so the era starts there.
            if let NodeKind::Message(m) = node.kind {
                let opener = graph.preserved_by.get(&m).and_then(|bs| {
                    bs.iter()
                        .copied()
                        .filter(|&b| {
                            let line = graph.boundary_line(b);
                            line > node.line && line < self.start_line
                        })
                        .max()
                });
                if opener.is_some() {
                    self.opener = opener;
                    return true;
                }
            }
            if !visited.insert(i) {
                return true;
            }
            self.nodes.push(i);
            self.at = match node.link {
                Link::Parent(p) => Some(p),
                Link::Dangling(fallback) => fallback,
                Link::Root | Link::Pending(_) => None,
            };
        }
        self.at.is_none()
    }

    /// How many nodes it walked so far.
    pub(super) fn walked(&self) -> usize {
        self.nodes.len()
    }

    /// The boundary that opens the era, and the nodes walked after it.
    pub(super) fn finish(self) -> (Option<usize>, Vec<usize>) {
        (self.opener, self.nodes)
    }
}

/// The message a node is a line of.
pub(super) fn message_of(node: &Node) -> Option<usize> {
    match node.kind {
        NodeKind::Message(m) => Some(m),
        _ => None,
    }
}
