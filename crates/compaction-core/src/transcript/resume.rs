//! Resume (SPEC R11.2): the active view a resumed session sees — the last
//! boundary's summary, the preserved messages relinked after it, then what
//! followed — with every tool pair legal; and the full history as eras.

use std::collections::HashSet;

use serde::Serialize;

use super::model::{Boundary, Era, ImportedMessage, Transcript};
use super::{Problem, ProblemKind};
use crate::message::{Block, Content, Usage};

/// The active view of an imported session.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Resume {
    /// The boundary the view starts after, if the session was compacted.
    pub boundary: Option<Boundary>,
    /// The view in order: summary first (flagged `isCompactSummary`), then
    /// preserved messages (flagged `preserved`, usage zeroed), then the
    /// rest.
    pub messages: Vec<ImportedMessage>,
    /// What was changed to keep tool pairs legal: each `tool_result` block
    /// left out of the view, and each message left out because nothing else
    /// was in it. The store keeps them all.
    pub problems: Vec<Problem>,
}

impl Transcript {
    /// The active view a resumed session would see (SPEC R11.2).
    ///
    /// Tool pairs are made legal ([`crate::groups::pairing_is_legal`]) this way: a
    /// `tool_result` block whose `tool_use` is not earlier in the view, or
    /// whose `tool_use` was already answered, is left out of the view and
    /// reported; a message with nothing else in it is left out too. A
    /// `tool_use` without an answer is legal and stays.
    pub fn resume(&self) -> Resume {
        let Some(start) = self.graph.view_start() else {
            return Resume {
                boundary: None,
                messages: Vec::new(),
                problems: Vec::new(),
            };
        };
        let (era, _) = self.graph.era(start, &self.messages, &mut HashSet::new());
        let mut messages: Vec<ImportedMessage> = era
            .messages
            .iter()
            .filter_map(|&m| self.messages.get(m))
            .cloned()
            .collect();
        let first_preserved = usize::from(messages.first().is_some_and(|m| m.is_compact_summary));
        for m in messages.iter_mut().skip(first_preserved).take(era.preserved) {
            m.preserved = true;
            if m.message.usage.is_some() {
                m.message.usage = Some(Usage::zeroed());
            }
        }
        let problems = make_pairs_legal(&mut messages);
        Resume {
            boundary: era.boundary.and_then(|b| self.boundaries.get(b)).cloned(),
            messages,
            problems,
        }
    }

    /// The full logical history, oldest era first: the chain walked from
    /// the leaf, crossing each boundary to its `logicalParentUuid` (or, when
    /// that names no record, the last main record before the boundary).
    /// Messages are as in the file (no pairing repair, usage as written).
    pub fn eras(&self) -> Vec<Era> {
        let mut eras = Vec::new();
        let mut visited = HashSet::new();
        let mut start = self.graph.view_start();
        while let Some(at) = start.filter(|at| !visited.contains(at)) {
            let (era, before) = self.graph.era(at, &self.messages, &mut visited);
            let more = era.boundary.is_some();
            eras.push(era);
            start = if more { before } else { None };
        }
        eras.reverse();
        eras
    }
}

/// Leaves out the `tool_result` blocks that would make the view illegal,
/// and the messages that held nothing else; reports each.
fn make_pairs_legal(messages: &mut Vec<ImportedMessage>) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut open: HashSet<String> = HashSet::new();
    let mut answered: HashSet<String> = HashSet::new();
    let mut emptied: HashSet<usize> = HashSet::new();
    for (at, m) in messages.iter_mut().enumerate() {
        let line = m.line;
        let uuid = m.message.uuid.clone();
        if let Content::Blocks(blocks) = &mut m.message.content {
            let before = blocks.len();
            blocks.retain(|block| {
                let Block::ToolResult { tool_use_id, .. } = block else {
                    return true;
                };
                let (kind, why) = if !open.contains(tool_use_id) {
                    (
                        ProblemKind::OrphanToolResult,
                        "its `tool_use` is not earlier in the view",
                    )
                } else if answered.contains(tool_use_id) {
                    (
                        ProblemKind::DuplicateToolResult,
                        "its `tool_use` is already answered",
                    )
                } else {
                    answered.insert(tool_use_id.clone());
                    return true;
                };
                problems.push(Problem::new(
                    line,
                    kind,
                    format!(
                        "`tool_result` for `{tool_use_id}` in message `{uuid}` left out of the view: {why}"
                    ),
                ));
                false
            });
            if blocks.is_empty() && before > 0 {
                emptied.insert(at);
                problems.push(Problem::new(
                    line,
                    ProblemKind::OrphanToolResult,
                    format!("message `{uuid}` left out of the view: it held only those tool results"),
                ));
            }
        }
        open.extend(m.message.tool_use_ids().map(str::to_owned));
    }
    let mut at = 0;
    messages.retain(|_| {
        let keep = !emptied.contains(&at);
        at += 1;
        keep
    });
    problems
}
