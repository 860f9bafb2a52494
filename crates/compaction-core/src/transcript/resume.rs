//! Resume (SPEC R11.2): the active view a resumed session sees — the last
//! boundary's summary, the preserved messages relinked after it, then what
//! followed — with every tool pair legal; and the full history as eras.

use crate::hash::HashSet;

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
    /// Tool pairs are made legal ([`crate::groups::pairing_is_legal`]) this
    /// way: a `tool_result` block whose `tool_use` is not earlier in the
    /// view, or whose `tool_use` was already answered, is left out of the
    /// view and reported; a message with nothing else in it is left out
    /// too. A message holding a `tool_use` that nothing in the view answers
    /// (its result line missing or unreadable) is left out whole, with the
    /// results of its other calls (SPEC R11.4). Every change is reported.
    pub fn resume(&self) -> Resume {
        let Some((era, repairs, problems)) = self.active_view() else {
            return Resume {
                boundary: None,
                messages: Vec::new(),
                problems: Vec::new(),
            };
        };
        let mut messages: Vec<ImportedMessage> = era
            .messages
            .iter()
            .filter_map(|&m| self.messages.get(m))
            .cloned()
            .collect();
        let first_preserved =
            usize::from(messages.first().is_some_and(|m| m.is_compact_summary)) + era.context;
        for m in messages.iter_mut().skip(first_preserved).take(era.preserved) {
            m.preserved = true;
            if m.message.usage.is_some() {
                m.message.usage = Some(Usage::zeroed());
            }
        }
        // Backwards, so earlier positions stay valid.
        for repair in repairs.iter().rev() {
            if repair.whole {
                if repair.at < messages.len() {
                    messages.remove(repair.at);
                }
            } else if let Some(Content::Blocks(blocks)) =
                messages.get_mut(repair.at).map(|m| &mut m.message.content)
            {
                for &b in repair.blocks.iter().rev() {
                    if b < blocks.len() {
                        blocks.remove(b);
                    }
                }
            }
        }
        // Preserved messages follow a new prefix (the summary): their
        // signed thinking no longer matches what it was signed over and goes,
        // as the live engine drops it (R13.1); a message that held nothing
        // else goes too (it held no `tool_use`).
        messages.retain_mut(|m| {
            if !m.preserved {
                return true;
            }
            match &mut m.message.content {
                Content::Blocks(blocks) if !blocks.is_empty() => {
                    blocks.retain(|b| !crate::api::thinking::is_signed_thinking(b));
                    !blocks.is_empty()
                }
                _ => true,
            }
        });
        Resume {
            boundary: era.boundary.and_then(|b| self.boundaries.get(b)).cloned(),
            messages,
            problems,
        }
    }

    /// How many messages [`Transcript::resume`] returns, without copying
    /// them.
    pub fn active_len(&self) -> usize {
        self.active_view().map_or(0, |(era, repairs, _)| {
            era.messages.len() - repairs.iter().filter(|r| r.whole).count()
        })
    }

    /// The newest era and the repairs that make its tool pairs legal.
    fn active_view(&self) -> Option<(Era, Vec<Repair>, Vec<Problem>)> {
        let start = self.graph.view_start()?;
        let (era, _) = self.graph.era(start, &self.messages, &mut HashSet::default());
        let view: Vec<&ImportedMessage> = era
            .messages
            .iter()
            .filter_map(|&m| self.messages.get(m))
            .collect();
        let (repairs, problems) = plan_repairs(&view);
        Some((era, repairs, problems))
    }

    /// The full logical history, oldest era first: the chain walked from
    /// the leaf, crossing each boundary to its `logicalParentUuid` (or, when
    /// that names no record, the last main record before the boundary).
    /// Messages are as in the file (no pairing repair, usage as written).
    pub fn eras(&self) -> Vec<Era> {
        let mut eras = Vec::new();
        let mut visited = HashSet::default();
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

/// A change that keeps tool pairs legal: in the view's message at `at`,
/// the blocks at `blocks` are left out; `whole` when that was all of them.
struct Repair {
    at: usize,
    blocks: Vec<usize>,
    whole: bool,
}

/// Finds what would make the view illegal and plans its repair, reporting
/// each change: a `tool_result` block answering nothing earlier (or a
/// second answer) is left out; a message holding a `tool_use` that nothing
/// in the view answers is left out whole (SPEC R11.4), which can orphan the
/// results of its other calls, so the plan is made again until it holds.
fn plan_repairs(view: &[&ImportedMessage]) -> (Vec<Repair>, Vec<Problem>) {
    let mut dropped: HashSet<usize> = HashSet::default();
    let mut unanswered_problems = Vec::new();
    loop {
        let (mut repairs, mut problems, answered) = plan_results(view, &dropped);
        let mut more = false;
        for (at, m) in view.iter().enumerate() {
            if dropped.contains(&at) {
                continue;
            }
            let missing: Vec<&str> = m
                .message
                .tool_use_ids()
                .filter(|id| !answered.contains(id))
                .collect();
            if missing.is_empty() {
                continue;
            }
            dropped.insert(at);
            more = true;
            unanswered_problems.push(Problem::new(
                m.line,
                ProblemKind::OrphanToolUse,
                format!(
                    "message `{}` left out of the view: nothing in the view answers its `tool_use` {}",
                    m.message.uuid,
                    missing
                        .iter()
                        .map(|id| format!("`{id}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        if more {
            continue;
        }
        for &at in &dropped {
            let blocks = view[at].message.content.blocks().len();
            repairs.push(Repair {
                at,
                blocks: (0..blocks).collect(),
                whole: true,
            });
        }
        repairs.sort_by_key(|r| r.at);
        problems.append(&mut unanswered_problems);
        problems.sort_by_key(|p| p.line);
        return (repairs, problems);
    }
}

/// The `tool_result` repairs of the view without the `dropped` messages,
/// and the `tool_use` ids answered in it.
fn plan_results<'a>(
    view: &[&'a ImportedMessage],
    dropped: &HashSet<usize>,
) -> (Vec<Repair>, Vec<Problem>, HashSet<&'a str>) {
    let mut repairs = Vec::new();
    let mut problems = Vec::new();
    let mut open: HashSet<&str> = HashSet::default();
    let mut answered: HashSet<&str> = HashSet::default();
    for (at, m) in view.iter().enumerate() {
        if dropped.contains(&at) {
            continue;
        }
        let uuid = &m.message.uuid;
        let blocks = m.message.content.blocks();
        let mut left_out = Vec::new();
        for (b, block) in blocks.iter().enumerate() {
            let Block::ToolResult { tool_use_id, .. } = block else {
                continue;
            };
            let id = tool_use_id.as_str();
            let (kind, why) = if !open.contains(id) {
                (
                    ProblemKind::OrphanToolResult,
                    "its `tool_use` is not earlier in the view",
                )
            } else if answered.contains(id) {
                (
                    ProblemKind::DuplicateToolResult,
                    "its `tool_use` is already answered",
                )
            } else {
                answered.insert(id);
                continue;
            };
            problems.push(Problem::new(
                m.line,
                kind,
                format!("`tool_result` for `{id}` in message `{uuid}` left out of the view: {why}"),
            ));
            left_out.push(b);
        }
        if !left_out.is_empty() {
            let whole = left_out.len() == blocks.len();
            if whole {
                problems.push(Problem::new(
                    m.line,
                    ProblemKind::OrphanToolResult,
                    format!("message `{uuid}` left out of the view: it held only those tool results"),
                ));
            }
            repairs.push(Repair {
                at,
                blocks: left_out,
                whole,
            });
        }
        open.extend(m.message.tool_use_ids());
    }
    (repairs, problems, answered)
}
