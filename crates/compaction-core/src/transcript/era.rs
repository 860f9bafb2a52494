//! Eras assembled from walks of the record graph: the summary, the
//! preserved messages, then the walked messages and the parallel tool
//! results recovered off the path, in file order; and the era a resumed
//! view shows, which walks on past every compaction a `compact_expanded`
//! record on its path undid (extension, SPEC R11.5).

use crate::hash::HashSet;

use super::chain::{message_of, Graph, NodeKind};
use super::model::{Era, ImportedMessage};
use crate::message::Uuid;
use crate::message::{Block, Content, Role};

impl Graph {
    /// The era ending at `start`, assembled: summary, preserved messages,
    /// then the walked messages and recovered parallel tool results in file
    /// order. Returns the era and where the history before it continues.
    pub(super) fn era(
        &self,
        start: usize,
        messages: &[ImportedMessage],
        visited: &mut HashSet<usize>,
    ) -> (Era, Option<usize>) {
        let (boundary, walked) = self.segment(start, visited);
        self.era_walked(start, boundary, &walked, messages)
    }

    /// [`Graph::era`] once the walk from `start` is done: it met the
    /// boundary `boundary` and the nodes `walked`.
    pub fn era_walked(
        &self,
        start: usize,
        boundary: Option<usize>,
        walked: &[usize],
        messages: &[ImportedMessage],
    ) -> (Era, Option<usize>) {
        let era = self.assemble(start, boundary, walked, messages, &HashSet::default());
        let before = boundary.and_then(|b| self.before_boundary.get(b).copied().flatten());
        (era, before)
    }

    /// The era a resumed view shows, ending at `start`: [`Graph::era`],
    /// except that a compaction undone by a `compact_expanded` record on the
    /// walked path is no boundary. The walk goes on where the history before
    /// that compaction continues, and what the compaction wrote (its summary,
    /// the records the expansion names) is left out: the live view after
    /// `expand` had the messages before it back, then what followed.
    pub fn view_era(&self, start: usize, messages: &[ImportedMessage]) -> Era {
        let mut visited = HashSet::default();
        let mut walked = Vec::new();
        let mut undone: HashSet<&str> = HashSet::default();
        let mut removed: HashSet<usize> = HashSet::default();
        // What each extension record removes and restores, with its line:
        // applied in file order once the walk is done.
        let mut changes: Vec<(u32, &[Uuid], &[Uuid])> = Vec::new();
        let mut boundary = None;
        // Collapse summaries and where they go, with their record's line.
        let mut placed: Vec<(u32, &Uuid, Option<&Uuid>)> = Vec::new();
        let mut from = Some(start);
        while let Some(at) = from.take() {
            let (opener, nodes) = self.segment(at, &mut visited);
            for node in nodes.iter().filter_map(|&n| self.nodes.get(n)) {
                if let Some(x) = match node.kind {
                    NodeKind::Expanded(x) => self.expansions.get(x),
                    _ => None,
                } {
                    if let Some(b) = &x.boundary {
                        undone.insert(b.as_str());
                    }
                    if let Some((summary, after)) = &x.placed {
                        placed.push((node.line, summary, after.as_ref()));
                    }
                    changes.push((node.line, &x.removed, &x.restored));
                }
            }
            walked.extend(nodes);
            boundary = opener;
            let Some(b) = opener else { break };
            let boundary_uuid = self
                .boundary_node
                .get(b)
                .and_then(|&n| self.nodes.get(n))
                .map(|n| n.uuid.as_str());
            if boundary_uuid.is_some_and(|u| undone.contains(u)) {
                removed.extend(self.summary.get(b).copied().flatten());
                boundary = None;
                from = self.before_boundary.get(b).copied().flatten();
            }
        }
        changes.sort_by_key(|&(line, ..)| line);
        for (_, gone, back) in changes {
            removed.extend(gone.iter().filter_map(|u| self.message_index(u)));
            for m in back.iter().filter_map(|u| self.message_index(u)) {
                removed.remove(&m);
            }
        }
        let mut era = self.assemble(start, boundary, &walked, messages, &removed);
        // Each collapse summary (walked in file order with the rest) takes
        // the place of what it replaced: right after the message it followed
        // in the live view, oldest collapse first (R11.6).
        placed.sort_by_key(|&(line, ..)| line);
        for (_, summary, after) in placed {
            let Some(s) = self.message_index(summary) else {
                continue;
            };
            let Some(from) = era.messages.iter().position(|&m| m == s) else {
                continue;
            };
            let to = match after.map(|a| self.message_index(a)) {
                None => Some(0),
                Some(a) => a
                    .and_then(|a| era.messages.iter().position(|&m| m == a))
                    .map(|at| at + 1),
            };
            if let Some(to) = to {
                let m = era.messages.remove(from);
                era.messages.insert(if to > from { to - 1 } else { to }, m);
            }
        }
        era
    }

    /// The era opened by `boundary` whose walk from `start` met the nodes
    /// `walked`, without the messages `removed`.
    fn assemble(
        &self,
        start: usize,
        boundary: Option<usize>,
        walked: &[usize],
        messages: &[ImportedMessage],
        removed: &HashSet<usize>,
    ) -> Era {
        let summary = boundary.and_then(|b| self.summary.get(b).copied().flatten());
        let preserved: Vec<usize> = boundary
            .and_then(|b| self.preserved.get(b))
            .map(|list| {
                let keep = |m: &usize| Some(*m) != summary && !removed.contains(m);
                list.iter().copied().filter(keep).collect()
            })
            .unwrap_or_default();
        let kept: HashSet<usize> = summary.iter().chain(&preserved).copied().collect();
        // Walked newest first: oldest first it is usually in order already.
        let mut body: Vec<usize> = walked
            .iter()
            .rev()
            .filter_map(|&n| self.nodes.get(n).and_then(message_of))
            .filter(|m| !kept.contains(m) && !removed.contains(m))
            .collect();
        sort_indices(&mut body);
        let from_line = boundary.map_or(0, |b| self.boundary_line(b));
        let to_line = self.nodes.get(start).map_or(0, |n| n.line);
        let in_era: Vec<usize> = summary.iter().chain(&preserved).chain(&body).copied().collect();
        let recovered = recover_parallel_results(messages, &in_era, from_line, to_line);
        if !recovered.is_empty() {
            body.extend(recovered);
            sort_indices(&mut body);
        }
        // Decided on the preserved messages as the compaction wrote them:
        // a later snip may have removed its last ones, not the order it made.
        let written = boundary
            .and_then(|b| self.preserved.get(b))
            .map_or(&[][..], Vec::as_slice);
        let lead = context_before_results(written, &body, messages);
        Era {
            boundary,
            preserved: preserved.len(),
            context: lead,
            messages: summary
                .into_iter()
                .chain(body[..lead].iter().copied())
                .chain(preserved)
                .chain(body[lead..].iter().copied())
                .collect(),
        }
    }
}

/// Sorts message indices and drops repeats. A sorted list is left as it
/// is: the wasm modules' std sorts by heapsort (built for size), which
/// takes as long on sorted input, 270 ms for an era of 1M messages.
pub(super) fn sort_indices(list: &mut Vec<usize>) {
    if !list.is_sorted() {
        list.sort_unstable();
    }
    list.dedup();
}

/// Tool-result messages off the walked path (parallel tool calls put them
/// on side branches) that answer a `tool_use` of the era nothing in the era
/// answers yet, between lines `from` and `to`.
fn recover_parallel_results(
    messages: &[ImportedMessage],
    in_era: &[usize],
    from: u32,
    to: u32,
) -> Vec<usize> {
    let mut open: HashSet<&str> = HashSet::default();
    let mut answered: HashSet<&str> = HashSet::default();
    for msg in in_era.iter().filter_map(|&m| messages.get(m)) {
        open.extend(msg.message.tool_use_ids());
        answered.extend(msg.message.tool_result_ids());
    }
    let mut out = Vec::new();
    if open.len() == answered.len() && open.iter().all(|id| answered.contains(id)) {
        return out;
    }
    let member: HashSet<usize> = in_era.iter().copied().collect();
    for (m, msg) in messages.iter().enumerate() {
        if msg.line <= from || msg.line > to || member.contains(&m) || msg.message.role != Role::User {
            continue;
        }
        let Content::Blocks(blocks) = &msg.message.content else {
            continue;
        };
        let answers_open = !blocks.is_empty()
            && blocks.iter().all(|b| match b {
                Block::ToolResult { tool_use_id, .. } => {
                    open.contains(tool_use_id.as_str()) && !answered.contains(tool_use_id.as_str())
                }
                _ => false,
            });
        if answers_open {
            answered.extend(msg.message.tool_result_ids());
            out.push(m);
        }
    }
    out
}

/// How many of the era's first `body` messages go before its preserved
/// ones: none, unless the preserved run the compaction wrote (`preserved`,
/// before anything later removed) ends on a `tool_use`. Then the run
/// of `isMeta` records opening the body (the context a compaction
/// re-attached after its summary) goes first, as the live engine's view had
/// it, so the call is answered by the message right after it (the API's
/// rule) whatever came of it later: answered next, still open when the file
/// ended, or dropped.
fn context_before_results(preserved: &[usize], body: &[usize], messages: &[ImportedMessage]) -> usize {
    let Some(last) = preserved.last().and_then(|&m| messages.get(m)) else {
        return 0;
    };
    if last.message.tool_use_ids().next().is_none() {
        return 0;
    }
    body.iter()
        .take_while(|&&m| {
            messages
                .get(m)
                .is_some_and(|m| m.is_meta && m.message.tool_result_ids().next().is_none())
        })
        .count()
}
