//! The next request as the page's strip draws it: what the host sends
//! before the messages (system prompt, CLAUDE.md, tools), then the view in
//! order, grouped into the parts a reader names (conversation, summary,
//! preserved tail, restored files, what came since), each with the
//! engine's tokens. And, for an event that rewrote the view, what became of
//! each part of the request before it (kept, summarised, dropped), and how
//! far a compaction had got at a given step.

use compaction_core::hash::HashSet;

use serde::Serialize;

use compaction_core::engine::Engine;
use compaction_core::message::{Content, Uuid};
use compaction_core::step::{Owner, Step, Tier};
use compaction_core::view::Source;

use super::{Moment, Outcome};
use crate::figures::grouped;
use crate::SystemPart;

/// What a part of the request is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Part {
    /// Sent with every call, outside the messages: never compacted.
    System,
    /// The conversation as it happened (no compaction before it).
    Conversation,
    /// A compaction's summary.
    Summary,
    /// A collapsed segment's summary (Tier 3).
    Collapsed,
    /// Messages a compaction kept verbatim after its summary.
    Preserved,
    /// Material restored after a compaction (one segment per item).
    Attachment,
    /// Messages appended since the last compaction.
    Since,
}

impl Part {
    /// Its name on screen.
    pub fn name(self) -> &'static str {
        match self {
            Part::System => "system",
            Part::Conversation => "conversation",
            Part::Summary => "summary",
            Part::Collapsed => "collapsed segments",
            Part::Preserved => "preserved, kept verbatim",
            Part::Attachment => "restored file",
            Part::Since => "new input",
        }
    }
}

/// What the event did to a part of the request before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Goes {
    /// Still in the request after the event.
    Kept,
    /// Replaced by a summary or a collapsed segment.
    Summarised,
    /// Gone with nothing in its place (snipped, or a view rebuilt).
    Dropped,
}

/// A run of the request of one part (and one fate).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Segment {
    /// What it is.
    pub part: Part,
    /// Its name: the system part's, a restored file's path, or the part's.
    pub name: String,
    /// The engine's tokens for it.
    pub tokens: u64,
    /// Messages in it (0 for what is sent outside the messages).
    pub messages: usize,
    /// What the event did to it (requests before an event; `Kept` after).
    pub goes: Goes,
}

/// One message of the view, classified: its uuid, tokens, part and name.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Entry {
    uuid: Uuid,
    tokens: u64,
    part: Part,
    /// A restored item's name (the others are named by their part).
    name: Option<String>,
}

/// What the host sends before the messages, as segments.
pub(super) fn system_segments(engine: &Engine, system: &[SystemPart]) -> Vec<Segment> {
    let estimator = &engine.settings().estimator;
    if system.is_empty() {
        return (engine.system_tokens() > 0)
            .then(|| segment(Part::System, "system prompt and tools", engine.system_tokens()))
            .into_iter()
            .collect();
    }
    system
        .iter()
        .map(|p| segment(Part::System, p.name, estimator.text(&p.text)))
        .collect()
}

/// The view's messages in order, each with its part: `preserved` are the
/// messages the compaction in force kept verbatim.
pub(super) fn entries(engine: &Engine, preserved: &HashSet<Uuid>) -> Vec<Entry> {
    let mut since_summary = false;
    engine
        .view()
        .entries()
        .iter()
        .map(|e| {
            let m = e.message.as_ref();
            let part = match &e.source {
                Source::Summary { .. } => {
                    since_summary = true;
                    Part::Summary
                }
                Source::Collapse { .. } => Part::Collapsed,
                Source::Attachment => Part::Attachment,
                Source::Stored if preserved.contains(&m.uuid) => Part::Preserved,
                Source::Stored if since_summary => Part::Since,
                Source::Stored => Part::Conversation,
            };
            let name = (part == Part::Attachment).then(|| attachment_name(&m.content));
            Entry {
                uuid: m.uuid.clone(),
                tokens: e.tokens,
                part,
                name,
            }
        })
        .collect()
}

/// `system` then the messages, consecutive messages of one part and fate
/// in one segment (each summary and restored item alone); `goes` says what
/// the event did to each message.
pub(super) fn segments(system: &[Segment], messages: &[Entry], goes: impl Fn(&Uuid) -> Goes) -> Vec<Segment> {
    let mut out = system.to_vec();
    for m in messages {
        let goes = goes(&m.uuid);
        match out.last_mut() {
            Some(last)
                if last.part == m.part
                    && last.goes == goes
                    && !matches!(m.part, Part::Attachment | Part::Summary | Part::System) =>
            {
                last.tokens += m.tokens;
                last.messages += 1;
            }
            _ => out.push(Segment {
                part: m.part,
                name: m.name.clone().unwrap_or_else(|| m.part.name().to_owned()),
                tokens: m.tokens,
                messages: 1,
                goes,
            }),
        }
    }
    out
}

fn segment(part: Part, name: &str, tokens: u64) -> Segment {
    Segment {
        part,
        name: name.to_owned(),
        tokens,
        messages: 0,
        goes: Goes::Kept,
    }
}

/// What a restored item is: the file's path, or the item's first line.
fn attachment_name(content: &Content) -> String {
    let text = match content {
        Content::Text(t) => t.as_str(),
        Content::Blocks(_) => "",
    };
    let first = text.lines().next().unwrap_or("");
    let name = [
        "Restored after compaction: ",
        "Recently used file (content not restored): ",
    ]
    .iter()
    .find_map(|p| first.strip_prefix(p))
    .unwrap_or(first);
    name.chars().take(80).collect()
}

/// How far a compaction had got at a step, for the strip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Rebuild {
    /// Nothing yet (or the event rewrote nothing: the request stands).
    Before,
    /// The cut is chosen: what will be summarised, what is preserved.
    Cut,
    /// The summary request is out to the model.
    Asked,
    /// The reply (or a stored precompute) is there.
    Written,
    /// The reply is parsed: analysis removed, the summary kept.
    Parsed,
    /// Files and context restored.
    Restored,
    /// The new request stands, and the boundary is on disk.
    Assembled,
}

/// The stage a compaction event had reached after `step` (`None`: the
/// whole event). An event that ran no compaction stands at `Before` on its
/// steps and `Assembled` after its last (its view is then the new one).
pub fn rebuild(m: &Moment, step: Option<usize>) -> Rebuild {
    let steps: &[Step] = match step {
        Some(s) => &m.frame.steps[..(s + 1).min(m.frame.steps.len())],
        None => {
            return if m.before == m.after {
                Rebuild::Before
            } else {
                Rebuild::Assembled
            }
        }
    };
    let compacting = matches!(m.outcome, Some(Outcome::Compacted { .. }));
    if !compacting {
        return if step.is_some_and(|s| s + 1 >= m.frame.steps.len()) && m.before != m.after {
            Rebuild::Assembled
        } else {
            Rebuild::Before
        };
    }
    steps.iter().fold(Rebuild::Before, |at, s| {
        let next = if matches!(s.tier, Tier::Compact | Tier::Reactive)
            && s.count_before.tokens != s.count_after.tokens
        {
            Rebuild::Assembled
        } else if matches!(s.rule, "R7.7" | "R7.8") {
            Rebuild::Restored
        } else if s.rule == "R7.4" {
            Rebuild::Parsed
        } else if s.rule == "R7.3" && s.owner == Owner::Model {
            Rebuild::Asked
        } else if s.rule == "R7.3" || s.rule.starts_with("R9") {
            Rebuild::Written
        } else if matches!(s.rule, "R7.5" | "R7.6") {
            Rebuild::Cut
        } else {
            at
        };
        at.max(next)
    })
}

/// What a reader would otherwise find implausible in an event, said in one
/// line: a 413 on a request the engine counted under the window (the API
/// counted it over: text the estimate undercounts), or a compaction that
/// made the request larger (what it added outweighs what it summarised).
pub fn explain(m: &Moment, window: u64) -> Option<String> {
    if m.undercount > 0 {
        let estimate = m.tokens_before.saturating_sub(m.undercount);
        return Some(format!(
            "The engine estimated this request at {} tokens, inside the {} window; the API counted {} ({} more: pasted logs, CSV and hashes run fewer characters a token than the estimate's four), over the window, so it answered 413 (prompt too long) and Tier 5 takes over.",
            grouped(estimate),
            grouped(window),
            grouped(m.tokens_before),
            grouped(m.undercount),
        ));
    }
    let Some(Outcome::Compacted {
        pre_tokens,
        post_tokens,
        ..
    }) = &m.outcome
    else {
        return None;
    };
    if post_tokens <= pre_tokens {
        return None;
    }
    let of = |segments: &[Segment], pick: &dyn Fn(&Segment) -> bool| -> u64 {
        segments.iter().filter(|s| pick(s)).map(|s| s.tokens).sum()
    };
    let summarised = of(&m.request_before, &|s| s.goes == Goes::Summarised);
    let summary = of(&m.request_after, &|s| s.part == Part::Summary);
    let files = of(&m.request_after, &|s| s.part == Part::Attachment);
    Some(format!(
        "This compaction made the request larger ({} → {} tokens): the summary ({}) and the restored files ({}) outweigh the {} tokens it summarised. Compaction pays off on a long history, not on a short one.",
        grouped(*pre_tokens),
        grouped(*post_tokens),
        grouped(summary),
        grouped(files),
        grouped(summarised),
    ))
}
