//! What the browser sandbox asks of the engine (SPEC R12): a built-in
//! scenario played with the visitor's settings and failure switches, with
//! the view before and after every event, how each compaction ended, and a
//! per-request series for the session chart. Everything here is computed
//! by the engine; the sandbox only lays it out.

use serde::Serialize;

mod chart;
mod flows;

pub use chart::{session_chart, timeline_chart, Mark, Request, SessionChart};
pub use flows::{failure_stages, Flow, Stage, FLOWS};

use crate as scenarios;
use crate::{Event, Frame, HostPolicy, Observer, Scenario};
use compaction_core::compact::attachments::{AttachmentSettings, Candidate};
use compaction_core::compact::Progress;
use compaction_core::engine::{CallStatus, Engine};
use compaction_core::error::Error;
use compaction_core::message::{Block, Role, Uuid};
use compaction_core::step::{Evidence, Owner, Step, Tier};
use compaction_core::summary::{offline_summary, PromptOptions};
use compaction_core::thresholds::Thresholds;
use compaction_core::time::Timestamp;
use compaction_core::view::Source;

/// A stored precompute the host loads before a `/compact` (R9.2, R9.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum PrecomputeSwitch {
    /// None stored: the compaction asks the model (the seed's own case).
    #[default]
    None,
    /// A fresh one covering what an automatic compaction would summarise.
    Ready,
    /// One written eight days ago: R9.3 rejects it.
    Stale,
    /// One whose messages no longer open the view: R9.2 misses it.
    Moved,
}

impl PrecomputeSwitch {
    /// Every switch, in the order a control lists them.
    pub const ALL: [PrecomputeSwitch; 4] = [Self::None, Self::Ready, Self::Stale, Self::Moved];

    /// Short name (URL value).
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Ready => "ready",
            Self::Stale => "stale",
            Self::Moved => "moved",
        }
    }

    /// The switch with this name.
    pub fn by_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// The sandbox's controls, applied to a scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Knobs {
    /// The model's window.
    pub window: u64,
    /// The model's max output tokens (`None`: the reserve cap).
    pub max_output_tokens: Option<u64>,
    /// The override percentage (R1.4), if any.
    pub override_pct: Option<f64>,
    /// Extra tool-call groups before the `/compact` (compact-analysis only).
    pub extra_groups: usize,
    /// Legal groups preserved by a manual or reactive compaction (R7.5).
    pub preserve_groups: usize,
    /// Attachment budgets (R7.7).
    pub attachments: AttachmentSettings,
    /// Failure switches and the hook.
    pub policy: HostPolicy,
    /// A stored precompute before each `/compact`.
    pub precompute: PrecomputeSwitch,
    /// `/compact` instructions: `None` keeps the scenario's own.
    pub instructions: Option<String>,
}

impl Knobs {
    /// The scenario's own settings and host.
    pub fn of(scenario: &Scenario) -> Knobs {
        let s = &scenario.settings;
        Knobs {
            window: s.thresholds.window,
            max_output_tokens: s.thresholds.max_output_tokens,
            override_pct: s.thresholds.override_pct,
            extra_groups: 0,
            preserve_groups: s.compact.preserve_groups,
            attachments: s.compact.attachments,
            policy: scenario.policy.clone(),
            precompute: PrecomputeSwitch::None,
            instructions: None,
        }
    }
}

/// What a view entry is, for drawing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    /// The system prompt.
    System,
    /// A compaction's summary.
    Summary,
    /// A collapsed segment's summary (Tier 3).
    Collapse,
    /// Restored material (a file).
    Attachment,
    /// A user message.
    User,
    /// An assistant message.
    Assistant,
    /// A message carrying tool results.
    ToolResult,
}

/// One entry of a view, for drawing.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    /// What it is.
    pub kind: Kind,
    /// Its uuid (empty for the system prompt).
    pub uuid: Uuid,
    /// Estimated tokens.
    pub tokens: u64,
    /// A short description (first words, or the tool and path).
    pub label: String,
    /// What it replaced (summaries and collapses): its lineage.
    pub replaces: Vec<Uuid>,
    /// Whether the view reduced or cleared some of its blocks.
    pub reduced: bool,
}

/// How a compaction ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Outcome {
    /// A boundary was written and the view is the new one.
    Compacted {
        /// Tokens before (the boundary's `preTokens`).
        pre_tokens: u64,
        /// Tokens after.
        post_tokens: u64,
        /// Messages preserved after the summary.
        preserved: usize,
        /// The boundary record's uuid.
        boundary: Uuid,
        /// The summary's text.
        summary: String,
        /// How each attachment candidate ended (R7.7).
        attachments: Vec<Candidate>,
    },
    /// Nothing changed; no boundary.
    Failed {
        /// Why.
        reason: String,
    },
}

/// One non-append event of a scenario, seen whole.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Moment {
    /// The engine's frame (steps, count, status).
    pub frame: Frame,
    /// The view before the event.
    pub before: Vec<Item>,
    /// The view after it.
    pub after: Vec<Item>,
    /// Messages of `before` that `after` no longer holds and no summary or
    /// collapse of `after` replaced (snipped or dropped).
    pub dropped: usize,
    /// Messages of `before` replaced by a summary or collapse of `after`.
    pub summarised: usize,
    /// The count before the event (the first step's, or the count then).
    pub tokens_before: u64,
    /// The tiers that changed the count or wrote a boundary, in order,
    /// each once.
    pub tiers: Vec<Tier>,
    /// How a compaction run in this event ended, if one did.
    pub outcome: Option<Outcome>,
}

/// A scenario played with the sandbox's knobs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Exploration {
    /// The scenario's name.
    pub name: &'static str,
    /// Its one-line title.
    pub title: &'static str,
    /// The lines the engine held the counts against.
    pub lines: Thresholds,
    /// Every non-append event, in order.
    pub moments: Vec<Moment>,
    /// Messages in the session (appends).
    pub messages: usize,
    /// Legal groups in the view before the first `/compact`, if any.
    pub groups_at_compact: Option<usize>,
}

/// The built-in scenario `name`, with `extra_groups` more tool-call groups
/// when it is compact-analysis (the "message groups" control).
pub fn scenario(name: &str, extra_groups: usize) -> Option<Scenario> {
    scenario_reading(name, extra_groups, &[])
}

/// [`scenario`] whose compact-analysis session reads `reads` in its second
/// request instead of its own files (the "files the session reads" input:
/// the attachment candidates follow it, R7.7); other scenarios ignore it.
pub fn scenario_reading(name: &str, extra_groups: usize, reads: &[String]) -> Option<Scenario> {
    if name == "compact-analysis" {
        Some(scenarios::compact_analysis_with(extra_groups, reads))
    } else {
        scenarios::by_name(name)
    }
}

/// Plays `scenario` with `knobs` (its window, budgets, switches).
pub fn explore(scenario: &Scenario, knobs: &Knobs) -> Result<Exploration, Error> {
    let mut scenario = scenario.clone();
    let t = &mut scenario.settings.thresholds;
    t.window = knobs.window;
    t.max_output_tokens = knobs.max_output_tokens;
    t.override_pct = knobs.override_pct;
    scenario.settings.compact.preserve_groups = knobs.preserve_groups;
    scenario.settings.compact.attachments = knobs.attachments;
    if let Some(text) = &knobs.instructions {
        let text = Some(text.trim().to_owned()).filter(|t| !t.is_empty());
        for event in &mut scenario.events {
            if let Event::Compact(i) = event {
                i.clone_from(&text);
            }
        }
    }
    let messages = scenario
        .events
        .iter()
        .filter(|e| matches!(e, Event::Append(_)))
        .count();
    let mut watch = Watch {
        precompute: knobs.precompute,
        before: Vec::new(),
        groups_at_compact: None,
        now: None,
        moments: Vec::new(),
        labels: Labels::default(),
    };
    let (_, engine) = scenarios::play_observed(&scenario, &knobs.policy, &mut watch)?;
    Ok(Exploration {
        name: scenario.name,
        title: scenario.title,
        lines: engine.lines().clone(),
        moments: watch.moments,
        messages,
        groups_at_compact: watch.groups_at_compact,
    })
}

/// Records each event's view and outcome, and loads precomputes.
struct Watch {
    precompute: PrecomputeSwitch,
    before: Vec<Item>,
    groups_at_compact: Option<usize>,
    now: Option<Timestamp>,
    moments: Vec<Moment>,
    labels: Labels,
}

impl Observer for Watch {
    fn before(&mut self, engine: &mut Engine, event: &Event) -> Vec<Step> {
        self.before = items_with(engine, &mut self.labels);
        let mut steps = Vec::new();
        match event {
            Event::Call(now) => self.now.clone_from(now),
            Event::Compact(_) => {
                self.groups_at_compact
                    .get_or_insert(engine.view().segmentation().group_starts().len());
                steps.extend(load_precompute(engine, self.precompute, self.now.as_ref()));
            }
            Event::Append(_) | Event::Pin(_) | Event::PromptTooLong => {}
        }
        steps
    }

    fn after(&mut self, engine: &Engine, frame: &Frame, end: Option<&Progress>) {
        let before = std::mem::take(&mut self.before);
        let after = items_with(engine, &mut self.labels);
        let replaced: std::collections::HashSet<&Uuid> =
            after.iter().flat_map(|i| i.replaces.iter()).collect();
        let kept: std::collections::HashSet<&Uuid> = after.iter().map(|i| &i.uuid).collect();
        let gone = before
            .iter()
            .filter(|i| i.kind != Kind::System && !kept.contains(&i.uuid));
        let (summarised, dropped) = gone.fold((0, 0), |(s, d), i| {
            if replaced.contains(&i.uuid) {
                (s + 1, d)
            } else {
                (s, d + 1)
            }
        });
        let mut tiers: Vec<Tier> = Vec::new();
        for step in &frame.steps {
            let fired = step.count_before.tokens != step.count_after.tokens;
            if fired && !tiers.contains(&step.tier) {
                tiers.push(step.tier);
            }
        }
        let outcome = end.and_then(|p| match p {
            Progress::Compacted { result } => Some(Outcome::Compacted {
                pre_tokens: result.boundary.compact_metadata.pre_tokens,
                post_tokens: result.boundary.compact_metadata.post_tokens,
                preserved: result.boundary.compact_metadata.preserved_messages.len(),
                boundary: result.boundary.uuid.clone(),
                summary: result.summary.message.content.clone(),
                attachments: result.attachments.clone(),
            }),
            Progress::Failed { reason } => Some(Outcome::Failed {
                reason: reason.clone(),
            }),
            // Still waiting (for a summary, files, segments…): nothing ended.
            _ => None,
        });
        if matches!(outcome, Some(Outcome::Compacted { .. }))
            && !tiers.iter().any(|t| matches!(t, Tier::Compact | Tier::Reactive))
        {
            tiers.push(if frame.kind == "413" {
                Tier::Reactive
            } else {
                Tier::Compact
            });
        }
        let tokens_before = frame
            .steps
            .first()
            .map_or(frame.count.tokens, |s| s.count_before.tokens);
        self.moments.push(Moment {
            frame: frame.clone(),
            before,
            after,
            dropped,
            summarised,
            tokens_before,
            tiers,
            outcome,
        });
    }
}

/// The host loads a stored precompute per `switch` (R9.3), saying so in a
/// step; the compaction then hits or misses it (R9.2) and says why.
fn load_precompute(engine: &mut Engine, switch: PrecomputeSwitch, now: Option<&Timestamp>) -> Vec<Step> {
    const SESSION: &str = "sandbox";
    const DAY_MS: i64 = 86_400_000;
    if switch == PrecomputeSwitch::None {
        return Vec::new();
    }
    let now = now.cloned().unwrap_or_else(|| Timestamp::from_unix_ms(0));
    let view = engine.view();
    let Some(prefix) =
        compaction_core::compact::cut::preserve_turns(view, engine.settings().compact.auto_keep_turns)
    else {
        return Vec::new();
    };
    // "Moved": summarises the view's messages from the second one on, so
    // its messages exist but no longer open the view.
    let range = if switch == PrecomputeSwitch::Moved {
        (prefix.start + 1).min(prefix.end)..prefix.end
    } else {
        prefix
    };
    let messages: Vec<_> = view.entries()[range]
        .iter()
        .map(|e| e.message.as_ref().clone())
        .collect();
    if messages.is_empty() {
        return Vec::new();
    }
    let created = if switch == PrecomputeSwitch::Stale {
        Timestamp::from_unix_ms(now.unix_ms().saturating_sub(8 * DAY_MS))
    } else {
        now.clone()
    };
    let sidecar = compaction_core::engine::Sidecar {
        session_id: SESSION.to_owned(),
        model: engine.settings().compact.model.clone(),
        client_version: "sandbox".to_owned(),
        created_at: created,
        tokens_at: engine.count().tokens,
        history_len: engine.view().len(),
        summarised: messages.iter().map(|m| m.uuid.clone()).collect(),
        reply: offline_summary(&messages, &PromptOptions::default()),
    };
    let count = engine.count();
    let reason = match engine.load_sidecar(sidecar, SESSION, &now) {
        compaction_core::engine::SidecarCheck::Loaded => format!(
            "the host loads a stored precompute of {} messages: it passes R9.3's checks",
            messages.len()
        ),
        compaction_core::engine::SidecarCheck::Rejected { reason } => {
            format!(
                "the host's stored precompute is rejected (R9.3): {reason}; the compaction asks the model"
            )
        }
    };
    vec![Step::note(
        Tier::Compact,
        "R9.3",
        Owner::Client,
        Evidence::Illustrative,
        count,
        reason,
    )]
}

/// The view as items, the system prompt first when there is one.
pub fn items(engine: &Engine) -> Vec<Item> {
    items_with(engine, &mut Labels::default())
}

/// Labels already made, by uuid, with the message they describe (a view
/// that changes a message holds a new `Arc`, and gets a new label).
#[derive(Default)]
struct Labels(std::collections::HashMap<Uuid, (std::sync::Arc<compaction_core::message::Message>, String)>);

impl Labels {
    fn of(&mut self, m: &std::sync::Arc<compaction_core::message::Message>) -> String {
        match self.0.get(&m.uuid) {
            Some((seen, text)) if std::sync::Arc::ptr_eq(seen, m) => text.clone(),
            _ => {
                let text = label(m);
                self.0.insert(m.uuid.clone(), (m.clone(), text.clone()));
                text
            }
        }
    }
}

fn items_with(engine: &Engine, labels: &mut Labels) -> Vec<Item> {
    let mut out = Vec::with_capacity(engine.view().len() + 1);
    // The field, not breakdown(): that re-estimates every block.
    let system = engine.system_tokens();
    if system > 0 {
        out.push(Item {
            kind: Kind::System,
            uuid: Uuid(String::new()),
            tokens: system,
            label: "system prompt".to_owned(),
            replaces: Vec::new(),
            reduced: false,
        });
    }
    for entry in engine.view().entries() {
        let m = entry.message.as_ref();
        let (kind, replaces) = match &entry.source {
            Source::Summary { replaces } => (Kind::Summary, replaces.clone()),
            Source::Collapse { replaces } => (Kind::Collapse, replaces.clone()),
            Source::Attachment => (Kind::Attachment, Vec::new()),
            Source::Stored => {
                let tool_result = m
                    .content
                    .blocks()
                    .iter()
                    .any(|b| matches!(b, Block::ToolResult { .. }));
                let kind = match m.role {
                    Role::User if tool_result => Kind::ToolResult,
                    Role::User => Kind::User,
                    _ => Kind::Assistant,
                };
                (kind, Vec::new())
            }
        };
        out.push(Item {
            kind,
            uuid: m.uuid.clone(),
            tokens: entry.tokens,
            label: labels.of(&entry.message),
            replaces,
            reduced: !entry.settled_blocks.is_empty(),
        });
    }
    out
}

const LABEL_CHARS: usize = 90;

/// A short description of a message: its first text, or its tools. Reads
/// only as much of each text as the label shows (texts can be long).
pub fn label(m: &compaction_core::message::Message) -> String {
    let mut out = String::new();
    let push = |part: &str, out: &mut String| {
        if part.is_empty() {
            return;
        }
        if !out.is_empty() {
            out.push_str(" · ");
        }
        for word in part.split_whitespace() {
            if out.chars().count() > LABEL_CHARS {
                break;
            }
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
            out.push_str(word);
        }
    };
    let mut parts = 0;
    match &m.content {
        compaction_core::message::Content::Text(text) => push(text, &mut out),
        compaction_core::message::Content::Blocks(blocks) => {
            for block in blocks {
                match block {
                    Block::Text { text, .. } => push(text, &mut out),
                    Block::ToolUse { name, input, .. } => {
                        let path = ["file_path", "path", "command"]
                            .iter()
                            .find_map(|key| input.str_field(key));
                        match path {
                            Some(p) => push(&format!("{name} {p}"), &mut out),
                            None => push(name, &mut out),
                        }
                    }
                    Block::ToolResult { .. } => push("tool result", &mut out),
                    _ => continue,
                }
                parts += 1;
                if parts == 3 || out.chars().count() > LABEL_CHARS {
                    break;
                }
            }
        }
    }
    if out.chars().count() > LABEL_CHARS {
        let cut: String = out.chars().take(LABEL_CHARS - 1).collect();
        format!("{}…", cut.trim_end())
    } else {
        out
    }
}

/// Whether a call's status refused the call (for the chart's marks).
pub fn is_blocked(status: Option<&CallStatus>) -> bool {
    matches!(status, Some(CallStatus::Blocked { .. }))
}
