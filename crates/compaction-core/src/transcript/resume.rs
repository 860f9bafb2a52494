//! Resume (SPEC R11.2): the active view a resumed session sees — the last
//! boundary's summary, the preserved messages relinked after it, then what
//! followed — with every tool pair legal; and the full history as eras.

use std::sync::Arc;

use crate::hash::HashSet;

use serde::Serialize;

use super::counted::SavedCounting;
use super::model::{Boundary, Era, ImportedMessage, Transcript};
use super::{Problem, ProblemKind};
use crate::message::{Block, Content, Extra, Message, Role, ToolResultContent, Usage, Uuid};

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
    /// The messages of the view the file left pinned (extension, SPEC
    /// R11.6: each message's last `message_pinned` record), sorted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pinned: Vec<Uuid>,
    /// What the count rested on when the file was last written (extension:
    /// its last `count_calibrated` record): a resumed engine takes it after
    /// loading the message it names ([`SavedCounting::position_in`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counting: Option<SavedCounting>,
}

/// What a resumed view does with a message holding a `tool_use` that
/// nothing in the view answers (its result line damaged, cut or never
/// written; SPEC R11.4). Either way the view is legal and the change is
/// reported (`orphan_tool_use`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Unanswered {
    /// Leave the message out whole, with the results of its other calls
    /// (the same repair as an orphan `tool_result`). The default.
    #[default]
    Drop,
    /// Keep it, and answer each unanswered call with a synthetic error
    /// `tool_result` ([`UNANSWERED_RESULT`]) at the start of the next user
    /// message (or in a user message of its own when the next message is
    /// not one, or there is none).
    ErrorResult,
}

/// The text of a synthetic error `tool_result` ([`Unanswered::ErrorResult`]).
pub const UNANSWERED_RESULT: &str =
    "[no result: this tool call's result is not in the session file (the session was cut off, or the line was lost)]";

impl Transcript {
    /// The active view a resumed session would see (SPEC R11.2), with the
    /// default repair of unanswered calls ([`Unanswered::Drop`]).
    pub fn resume(&self) -> Resume {
        self.resume_with(Unanswered::Drop)
    }

    /// The active view a resumed session would see (SPEC R11.2).
    ///
    /// Tool pairs are made legal ([`crate::groups::pairing_is_legal`]) this
    /// way: a `tool_result` block whose `tool_use` is not in the assistant
    /// message just before its run of user messages, or whose `tool_use`
    /// was already answered, is left out of the
    /// view and reported; a message with nothing else in it is left out
    /// too. A message holding a `tool_use` that nothing in the view answers
    /// (its result line missing or unreadable) is left out whole, with the
    /// results of its other calls, or answered with synthetic error
    /// results, as `unanswered` says (SPEC R11.4). Every change is
    /// reported.
    pub fn resume_with(&self, unanswered: Unanswered) -> Resume {
        let Some((era, repairs, problems)) = self.active_view(unanswered) else {
            return Resume {
                boundary: None,
                messages: Vec::new(),
                problems: Vec::new(),
                pinned: Vec::new(),
                counting: self.counting_on(&[]),
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
                m.message_mut().usage = Some(Box::new(Usage::zeroed()));
            }
        }
        // Backwards, so earlier positions stay valid.
        for repair in repairs.iter().rev() {
            if !repair.answer.is_empty() {
                answer_after(&mut messages, repair.at, &repair.answer);
            }
            if repair.whole {
                if repair.at < messages.len() {
                    messages.remove(repair.at);
                }
            } else if let Some(Content::Blocks(blocks)) =
                messages.get_mut(repair.at).map(|m| &mut m.message_mut().content)
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
            match &mut m.message_mut().content {
                Content::Blocks(blocks) if !blocks.is_empty() => {
                    blocks.retain(|b| !crate::api::thinking::is_signed_thinking(b));
                    !blocks.is_empty()
                }
                _ => true,
            }
        });
        let pinned = self.pinned_among(&messages);
        let counting = self.counting_on(&messages);
        Resume {
            boundary: era.boundary.and_then(|b| self.boundaries.get(b)).cloned(),
            messages,
            problems,
            pinned,
            counting,
        }
    }

    /// The file's last count record, placed on the resumed `view`: after
    /// the message it names, or, when the view no longer holds that one (a
    /// snip or a removal that changed nothing the record holds came after
    /// it), after the last message of the view written before the record:
    /// the ones after it came later, and load on top of the state as they
    /// did live.
    fn counting_on(&self, view: &[ImportedMessage]) -> Option<SavedCounting> {
        let mut saved = self.counted.clone()?;
        let named = saved
            .after
            .as_ref()
            .is_some_and(|after| view.iter().any(|m| m.message.uuid == *after));
        if !named {
            saved.after = view
                .iter()
                .rev()
                .find(|m| m.line < self.counted_line)
                .map(|m| m.message.uuid.clone());
        }
        Some(saved)
    }

    /// The messages among `view` that the file's pin records leave pinned
    /// (each message's last record decides), sorted.
    fn pinned_among(&self, view: &[ImportedMessage]) -> Vec<Uuid> {
        let mut pinned: HashSet<&Uuid> = HashSet::default();
        for (uuid, on) in &self.pins {
            if *on {
                pinned.insert(uuid);
            } else {
                pinned.remove(uuid);
            }
        }
        let mut out: Vec<Uuid> = view
            .iter()
            .map(|m| &m.message.uuid)
            .filter(|u| pinned.contains(u))
            .cloned()
            .collect();
        out.sort();
        out
    }

    /// How many messages [`Transcript::resume`] returns, without copying
    /// them.
    pub fn active_len(&self) -> usize {
        self.active_view(Unanswered::Drop).map_or(0, |(era, repairs, _)| {
            era.messages.len() - repairs.iter().filter(|r| r.whole).count()
        })
    }

    /// The newest era and the repairs that make its tool pairs legal.
    fn active_view(&self, unanswered: Unanswered) -> Option<(Era, Vec<Repair>, Vec<Problem>)> {
        let start = self.graph.view_start()?;
        let era = self.graph.view_era(start, &self.messages);
        let view: Vec<&ImportedMessage> = era
            .messages
            .iter()
            .filter_map(|&m| self.messages.get(m))
            .collect();
        let (repairs, problems) = match unanswered {
            Unanswered::Drop => plan_repairs(&view),
            Unanswered::ErrorResult => plan_answers(&view),
        };
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
/// the blocks at `blocks` are left out; `whole` when that was all of them;
/// the calls `answer` get synthetic error results after it.
struct Repair {
    at: usize,
    blocks: Vec<usize>,
    whole: bool,
    answer: Vec<String>,
}

/// The repairs with unanswered calls answered ([`Unanswered::ErrorResult`]):
/// results answering nothing are left out as in [`plan_repairs`]; no
/// message is dropped for its calls, so one pass holds.
fn plan_answers(view: &[&ImportedMessage]) -> (Vec<Repair>, Vec<Problem>) {
    let (dups, mut lead_problems) = duplicate_calls(view);
    let mut dropped: HashSet<usize> = HashSet::default();
    let (mut repairs, mut problems, mut answered) = loop {
        let planned = plan_results(view, &dropped, &dups);
        if !drop_leading_assistant(view, &planned.0, &mut dropped, &mut lead_problems) {
            break planned;
        }
    };
    for (at, m) in view.iter().enumerate() {
        if dropped.contains(&at) {
            continue;
        }
        // An id used again later is answered once, at its first call.
        let missing: Vec<String> = calls(m, at, &dups)
            .filter(|id| answered.insert(id))
            .map(str::to_owned)
            .collect();
        if missing.is_empty() {
            continue;
        }
        problems.push(Problem::new(
            m.line,
            ProblemKind::OrphanToolUse,
            format!(
                "nothing in the view answers the `tool_use` {} of message `{}`: answered with a synthetic error `tool_result`",
                missing.iter().map(|id| crate::text::concat3("`", id, "`")).collect::<Vec<_>>().join(", "),
                m.message.uuid,
            ),
        ));
        repairs.push(Repair {
            at,
            blocks: Vec::new(),
            whole: false,
            answer: missing,
        });
    }
    finish(view, repairs, problems, &dropped, &dups, lead_problems)
}

/// The `tool_use` blocks whose id an earlier block of the view has (the
/// first wins), by message, with a problem for each.
fn duplicate_calls(view: &[&ImportedMessage]) -> (Dups, Vec<Problem>) {
    let mut seen: HashSet<&str> = HashSet::default();
    let mut dups = Dups::default();
    let mut problems = Vec::new();
    for (at, m) in view.iter().enumerate() {
        for (b, block) in m.message.content.blocks().iter().enumerate() {
            let Block::ToolUse { id, .. } = block else {
                continue;
            };
            if seen.insert(id.as_str()) {
                continue;
            }
            dups.entry(at).or_default().push(b);
            problems.push(Problem::new(
                m.line,
                ProblemKind::DuplicateToolUse,
                format!(
                    "`tool_use` `{id}` of message `{}` left out of the view: an earlier `tool_use` has that id",
                    m.message.uuid
                ),
            ));
        }
    }
    (dups, problems)
}

/// Per message of the view: the `tool_use` blocks left out as duplicates.
type Dups = crate::hash::HashMap<usize, Vec<usize>>;

/// The ids of the calls message `at` keeps (not its duplicates).
fn calls<'a>(m: &'a ImportedMessage, at: usize, dups: &'a Dups) -> impl Iterator<Item = &'a str> + 'a {
    let left_out = dups.get(&at);
    m.message
        .content
        .blocks()
        .iter()
        .enumerate()
        .filter(move |(b, _)| !left_out.is_some_and(|l| l.contains(b)))
        .filter_map(|(_, block)| match block {
            Block::ToolUse { id, .. } => Some(id.as_str()),
            _ => None,
        })
}

/// When the first message the view keeps (not `dropped`, not left out
/// whole by `repairs`) is an assistant message, drops it with a problem and
/// says so: the plan must be made again without it.
fn drop_leading_assistant(
    view: &[&ImportedMessage],
    repairs: &[Repair],
    dropped: &mut HashSet<usize>,
    problems: &mut Vec<Problem>,
) -> bool {
    let whole: HashSet<usize> = repairs.iter().filter(|r| r.whole).map(|r| r.at).collect();
    let first = (0..view.len()).find(|at| !dropped.contains(at) && !whole.contains(at));
    let Some((at, m)) = first.and_then(|at| view.get(at).map(|m| (at, m))) else {
        return false;
    };
    if m.message.role != Role::Assistant {
        return false;
    }
    dropped.insert(at);
    problems.push(Problem::new(
        m.line,
        ProblemKind::AssistantFirst,
        format!(
            "message `{}` left out of the view: it would come first, and the API wants a user message first",
            m.message.uuid
        ),
    ));
    true
}

/// The repairs in order with the `dropped` messages left out whole and the
/// duplicate calls `dups` left out, and every problem in line order.
fn finish(
    view: &[&ImportedMessage],
    mut repairs: Vec<Repair>,
    mut problems: Vec<Problem>,
    dropped: &HashSet<usize>,
    dups: &Dups,
    mut more: Vec<Problem>,
) -> (Vec<Repair>, Vec<Problem>) {
    for &at in dropped {
        let blocks = view.get(at).map_or(0, |m| m.message.content.blocks().len());
        repairs.push(Repair {
            at,
            blocks: (0..blocks).collect(),
            whole: true,
            answer: Vec::new(),
        });
    }
    for (&at, left_out) in dups {
        if dropped.contains(&at) {
            continue;
        }
        let blocks = view.get(at).map_or(0, |m| m.message.content.blocks().len());
        repairs.push(Repair {
            at,
            blocks: left_out.clone(),
            whole: left_out.len() == blocks,
            answer: Vec::new(),
        });
    }
    // One repair per message: its blocks together, its answers kept.
    repairs.sort_by_key(|r| r.at);
    let mut merged: Vec<Repair> = Vec::with_capacity(repairs.len());
    for r in repairs {
        match merged.last_mut() {
            Some(last) if last.at == r.at => {
                last.blocks.extend(r.blocks);
                last.blocks.sort_unstable();
                last.blocks.dedup();
                last.whole |= r.whole;
                last.answer.extend(r.answer);
            }
            _ => merged.push(r),
        }
    }
    for r in &mut merged {
        let blocks = view.get(r.at).map_or(0, |m| m.message.content.blocks().len());
        r.whole |= blocks > 0 && r.blocks.len() == blocks;
    }
    problems.append(&mut more);
    problems.sort_by_key(|p| p.line);
    (merged, problems)
}

/// Puts a synthetic error result for each of `ids` after the message at
/// `at`: at the start of the next message when it is a user message (after
/// the results already there), else in a new user message.
fn answer_after(messages: &mut Vec<ImportedMessage>, at: usize, ids: &[String]) {
    let results = ids.iter().map(|id| Block::ToolResult {
        tool_use_id: id.clone(),
        content: ToolResultContent::Text(UNANSWERED_RESULT.to_owned()),
        is_error: Some(true),
        extra: Extra::new(),
    });
    match messages.get_mut(at + 1) {
        Some(next) if next.message.role == Role::User => {
            let content = &mut next.message_mut().content;
            if let Content::Text(text) = content {
                let text = std::mem::take(text);
                *content = Content::Blocks(vec![Block::text(text)]);
            }
            if let Content::Blocks(blocks) = content {
                let first = blocks
                    .iter()
                    .position(|b| !matches!(b, Block::ToolResult { .. }))
                    .unwrap_or(blocks.len());
                blocks.splice(first..first, results);
            }
        }
        _ => {
            let Some(call) = messages.get(at) else { return };
            let mut message = call.clone();
            let mut answer = Message::new(
                format!("{}-unanswered", call.message.uuid),
                Role::User,
                Content::Blocks(results.collect()),
            );
            answer.timestamp = call.message.timestamp.clone();
            message.message = Arc::new(answer);
            message.parent_uuid = Some(call.message.uuid.clone());
            message.merged_uuids = Vec::new();
            message.message_id = None;
            message.request_id = None;
            message.is_meta = false;
            message.is_compact_summary = false;
            message.is_api_error_message = false;
            message.preserved = false;
            messages.insert(at + 1, message);
        }
    }
}

/// Finds what would make the view illegal and plans its repair, reporting
/// each change: a `tool_result` block answering nothing earlier (or a
/// second answer) is left out; a message holding a `tool_use` that nothing
/// in the view answers is left out whole (SPEC R11.4), which can orphan the
/// results of its other calls, so the plan is made again until it holds.
fn plan_repairs(view: &[&ImportedMessage]) -> (Vec<Repair>, Vec<Problem>) {
    let (dups, mut unanswered_problems) = duplicate_calls(view);
    let mut dropped: HashSet<usize> = HashSet::default();
    loop {
        let (repairs, problems, answered) = plan_results(view, &dropped, &dups);
        let mut more = false;
        for (at, m) in view.iter().enumerate() {
            if dropped.contains(&at) {
                continue;
            }
            let missing: Vec<&str> = calls(m, at, &dups).filter(|id| !answered.contains(id)).collect();
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
                        .map(|id| crate::text::concat3("`", id, "`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        if more || drop_leading_assistant(view, &repairs, &mut dropped, &mut unanswered_problems) {
            continue;
        }
        return finish(view, repairs, problems, &dropped, &dups, unanswered_problems);
    }
}

/// The `tool_result` repairs of the view without the `dropped` messages,
/// and the `tool_use` ids answered in it.
fn plan_results<'a>(
    view: &[&'a ImportedMessage],
    dropped: &HashSet<usize>,
    dups: &'a Dups,
) -> (Vec<Repair>, Vec<Problem>, HashSet<&'a str>) {
    let mut repairs = Vec::new();
    let mut problems = Vec::new();
    let mut open: HashSet<&str> = HashSet::default();
    let mut answered: HashSet<&str> = HashSet::default();
    for (at, m) in view.iter().enumerate() {
        // A result answers a call of the assistant message just before its
        // run of user messages (the API wants it there), or nothing.
        if m.message.role == Role::Assistant {
            open.clear();
        }
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
                    "its `tool_use` is not in the assistant message just before it",
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
                answer: Vec::new(),
            });
        }
        open.extend(calls(m, at, dups));
    }
    (repairs, problems, answered)
}
