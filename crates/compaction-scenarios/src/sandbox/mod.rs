//! What the browser sandbox asks of the engine (SPEC R12): a built-in
//! scenario played with the visitor's settings and failure switches, with
//! the view before and after every event, how each compaction ended, and a
//! per-request series for the session chart. Everything here is computed
//! by the engine; the sandbox only lays it out.

use compaction_core::hash::HashSet;

use serde::Serialize;

mod chart;
mod cut;
mod flows;
mod focus;
mod items;
mod journal;
mod lost;
mod precompute;
mod request;
mod walk;

pub use chart::{session_chart, timeline_chart, Charting, Mark, Request, SessionChart};
pub use cut::{Groups, SEED_002_REASON};
pub use flows::{failure_stages, lit, Flow, Stage, FLOWS};
pub use focus::{default_moment, explore_at};
pub use items::{items, label, Fate, Item, Kind, Thought};
pub use journal::{journal, BoundaryCard, Journal, Place, Record, Resumed};
pub use lost::{Line, Lost, Section};
pub use precompute::PrecomputeSwitch;
pub use request::{explain, rebuild, Goes, Part, Rebuild, Segment};
pub use walk::{session_request, Kept, Opened, Opening, Opens, SessionRequest, Walking};

use crate as scenarios;
use crate::{Event, Frame, HostPolicy, Observer, Scenario};
use compaction_core::api::ThinkingMode;
use compaction_core::compact::attachments::{AttachmentSettings, Candidate};
use compaction_core::compact::boundary::Trigger;
use compaction_core::compact::Progress;
use compaction_core::engine::{CallStatus, Engine};
use compaction_core::error::Error;
use compaction_core::message::Uuid;
use compaction_core::step::{CacheEffect, Step, Tier};
use compaction_core::thresholds::Thresholds;
use compaction_core::time::Timestamp;
use items::{items_with, Labels, Stale};
use precompute::load_precompute;

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
    /// What the engine does with signed thinking after a client rewrite
    /// (R13.1).
    pub thinking: ThinkingMode,
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
            thinking: s.api.thinking,
        }
    }
}
/// The engine's `thinking` settings (R13.1), in the order a control lists
/// them, the default first.
pub const THINKING_MODES: [ThinkingMode; 3] =
    [ThinkingMode::Strip, ThinkingMode::DropBlock, ThinkingMode::Keep];

/// The `thinking` setting with this name (`strip`, `drop_block`, `keep`).
pub fn thinking_mode(name: &str) -> Option<ThinkingMode> {
    THINKING_MODES.into_iter().find(|m| m.name() == name)
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
        /// The boundary's `trigger` (`manual` or `auto`).
        trigger: &'static str,
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
    /// The request before the event, each part split by what the event
    /// did to it: the system parts first, then the view.
    pub request_before: Vec<Segment>,
    /// The request after it: what the next call sends.
    pub request_after: Vec<Segment>,
    /// Messages in the session's record after the event (the store: the
    /// local JSONL never loses one).
    pub stored: usize,
    /// Tokens the API counted over the engine's count of the request
    /// before the event: a 413 that stated the prompt's size (0 otherwise).
    pub undercount: u64,
    /// When the event compacted: the legal groups of the view before it
    /// and where its cut fell (R7.5).
    pub groups: Option<Groups>,
    /// When the event compacted: its summary's nine sections, each line
    /// with the items of [`Moment::before`] it was taken from (traced when
    /// first read).
    pub lost: Lost,
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
    /// The `thinking` setting it played with (R13.1).
    pub thinking: ThinkingMode,
    /// The scenario's chapters over [`Exploration::moments`]: each one's
    /// name and its first moment (empty: one chapter).
    pub chapters: Vec<Chapter>,
}

/// A chapter of a scenario (seed 000's phases), over its moments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Chapter {
    /// Its name.
    pub name: &'static str,
    /// Its first moment (index into [`Exploration::moments`]).
    pub first: usize,
    /// One past its last moment.
    pub end: usize,
}

/// What a tier's step costs the session: a model call, the prompt cache,
/// or nothing (in that order, the cheapest first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Cost {
    /// No model call, and the cached prefix stays valid.
    CacheKept,
    /// No model call, but the cached prefix from the change on is not
    /// reused (the client or the server changed what was sent).
    CacheBroken,
    /// It asks a model (a summary).
    ModelCall,
}

impl Cost {
    /// The costliest of `steps` that changed the count or called a model
    /// (`None`: none did).
    pub fn of(steps: &[&Step]) -> Option<Cost> {
        steps
            .iter()
            .filter(|s| s.count_before.tokens != s.count_after.tokens || s.model_calls > 0)
            .map(|s| {
                if s.model_calls > 0 {
                    Cost::ModelCall
                } else if s.cache == CacheEffect::Intact {
                    Cost::CacheKept
                } else {
                    Cost::CacheBroken
                }
            })
            .max()
    }

    /// Its badge.
    pub fn label(self) -> &'static str {
        match self {
            Cost::CacheKept => "no model call · cache kept",
            Cost::CacheBroken => "no model call · cache broken",
            Cost::ModelCall => "model call",
        }
    }
}

impl Moment {
    /// What each tier that fired in this event cost, in order.
    pub fn costs(&self) -> Vec<(Tier, Cost)> {
        self.tiers
            .iter()
            .filter_map(|&t| {
                let steps: Vec<&Step> = self.frame.steps.iter().filter(|s| s.tier == t).collect();
                Cost::of(&steps).map(|c| (t, c))
            })
            .collect()
    }
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
    play_watched(scenario, knobs, Focus::All)
}

/// Which events a play lays out.
#[derive(Debug, Clone, Copy)]
pub(super) enum Focus {
    /// Every one.
    All,
    /// Only the `n`-th.
    One(usize),
    /// The `n`-th and every one after it.
    From(usize),
}

/// Plays `scenario` with `knobs`, laying out the events `focus` names.
pub(super) fn play_watched(scenario: &Scenario, knobs: &Knobs, focus: Focus) -> Result<Exploration, Error> {
    let messages = scenario
        .events
        .iter()
        .filter(|e| matches!(e, Event::Append(_)))
        .count();
    let mut watch = Watch {
        system: scenario.system.clone(),
        preserved: HashSet::default(),
        request_before: Vec::new(),
        precompute: knobs.precompute,
        before: Vec::new(),
        groups_at_compact: None,
        now: None,
        moments: Vec::new(),
        labels: Labels::after_last(),
        stale: Stale::default(),
        undercount: 0,
        groups: None,
        focus,
    };
    let played = play_knobbed(scenario, knobs, &mut watch);
    std::mem::take(&mut watch.labels).keep();
    let (_, engine) = played?;
    let starts: Vec<usize> = scenario
        .phases
        .iter()
        .map(|(_, at)| watch.moments.iter().take_while(|m| m.frame.event < *at).count())
        .collect();
    let chapters = scenario
        .phases
        .iter()
        .zip(&starts)
        .enumerate()
        .map(|(i, ((name, _), &first))| Chapter {
            name,
            first,
            end: starts.get(i + 1).copied().unwrap_or(watch.moments.len()),
        })
        .filter(|c| c.end > c.first)
        .collect();
    Ok(Exploration {
        name: scenario.name,
        title: scenario.title,
        lines: engine.lines().clone(),
        moments: watch.moments,
        messages,
        groups_at_compact: watch.groups_at_compact,
        thinking: knobs.thinking,
        chapters,
    })
}

/// Plays `scenario` with the knobs' window, budgets and instructions
/// (the scenario itself is not copied: its messages are shared).
pub(super) fn play_knobbed(
    scenario: &Scenario,
    knobs: &Knobs,
    observer: &mut dyn Observer,
) -> Result<(Vec<Frame>, Engine), Error> {
    let mut settings = scenario.settings.clone();
    let t = &mut settings.thresholds;
    t.window = knobs.window;
    t.max_output_tokens = knobs.max_output_tokens;
    t.override_pct = knobs.override_pct;
    settings.compact.preserve_groups = knobs.preserve_groups;
    settings.compact.attachments = knobs.attachments;
    settings.api.thinking = knobs.thinking;
    let instructions = knobs
        .instructions
        .as_ref()
        .map(|text| Some(text.trim().to_owned()).filter(|t| !t.is_empty()));
    crate::play::play_with(scenario, settings, instructions.as_ref(), &knobs.policy, observer)
}

/// Records each event's view and outcome, and loads precomputes.
struct Watch {
    system: Vec<crate::SystemPart>,
    /// Messages the compaction in force kept verbatim.
    preserved: HashSet<Uuid>,
    /// The view before the current event, classified.
    request_before: Vec<request::Entry>,
    precompute: PrecomputeSwitch,
    before: Vec<Item>,
    groups_at_compact: Option<usize>,
    now: Option<Timestamp>,
    moments: Vec<Moment>,
    labels: Labels,
    stale: Stale,
    /// The current event's [`Moment::undercount`].
    undercount: u64,
    /// The view before an event that may compact.
    groups: Option<ViewBefore>,
    /// The moments laid out.
    focus: Focus,
}

impl Watch {
    /// Whether the current event is laid out (views, requests, groups).
    fn detailed(&self) -> bool {
        let n = self.moments.len();
        match self.focus {
            Focus::All => true,
            Focus::One(f) => f == n,
            Focus::From(f) => f <= n,
        }
    }
}

/// The view before an event that may compact, for its [`Groups`].
struct ViewBefore {
    messages: Vec<std::sync::Arc<compaction_core::message::Message>>,
    /// The item index of its first entry.
    first: usize,
    /// Whether "groups preserved" sets its cut.
    movable: bool,
}

impl Observer for Watch {
    fn before(&mut self, engine: &mut Engine, event: &Event) -> Vec<Step> {
        let detailed = self.detailed();
        if detailed {
            self.before = items_with(engine, &mut self.labels, &self.stale, &self.preserved);
            self.request_before = request::entries(engine, &self.preserved);
        }
        // The view's first entry follows the system prompt's item, if any.
        let first = self.before.len().saturating_sub(engine.view().len());
        // The view's messages, kept until the event is known to compact:
        // its groups are worked out only then.
        let movable = match event {
            Event::Compact(_) | Event::PromptTooLong(_) => Some(true),
            Event::Call(_) => Some(false),
            Event::Append(_) | Event::Pin(_) => None,
        };
        self.groups = movable.filter(|_| detailed).map(|movable| ViewBefore {
            messages: engine
                .view()
                .entries()
                .iter()
                .map(|e| e.message.clone())
                .collect(),
            first,
            movable,
        });
        let mut steps = Vec::new();
        self.undercount = match event {
            Event::PromptTooLong(Some(more)) => *more,
            _ => 0,
        };
        match event {
            Event::Call(now) => self.now.clone_from(now),
            Event::Compact(_) => {
                self.groups_at_compact
                    .get_or_insert(engine.view().segmentation().group_starts().len());
                steps.extend(load_precompute(engine, self.precompute, self.now.as_ref()));
            }
            Event::Append(_) | Event::Pin(_) | Event::PromptTooLong(_) => {}
        }
        steps
    }

    fn after(&mut self, engine: &Engine, frame: &Frame, end: Option<&Progress>) {
        let before = std::mem::take(&mut self.before);
        self.stale.note(&frame.steps);
        if let Some(Progress::Compacted { result }) = end {
            self.preserved = result
                .boundary
                .compact_metadata
                .preserved_messages
                .iter()
                .cloned()
                .collect();
        }
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
                trigger: match result.boundary.compact_metadata.trigger {
                    Trigger::Manual => "manual",
                    Trigger::Auto => "auto",
                },
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
        if !self.detailed() {
            self.moments.push(Moment {
                frame: frame.clone(),
                before: Vec::new(),
                after: Vec::new(),
                dropped: 0,
                summarised: 0,
                tokens_before,
                tiers,
                outcome,
                request_before: Vec::new(),
                request_after: Vec::new(),
                stored: engine.store().len(),
                undercount: self.undercount,
                groups: None,
                lost: Lost::default(),
            });
            return;
        }
        let after = items_with(engine, &mut self.labels, &self.stale, &self.preserved);
        let replaced: compaction_core::hash::HashSet<&Uuid> =
            after.iter().flat_map(|i| i.replaces.iter()).collect();
        let kept: compaction_core::hash::HashSet<&Uuid> = after.iter().map(|i| &i.uuid).collect();
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
        let system = request::system_segments(engine, &self.system);
        let entries = std::mem::take(&mut self.request_before);
        let request_before = request::segments(&system, &entries, |u| {
            if kept.contains(u) {
                Goes::Kept
            } else if replaced.contains(u) {
                Goes::Summarised
            } else {
                Goes::Dropped
            }
        });
        let request_after = request::segments(&system, &request::entries(engine, &self.preserved), |_| {
            Goes::Kept
        });
        let groups = match (&outcome, self.groups.take()) {
            (Some(Outcome::Compacted { .. }), Some(v)) => {
                let mut g = Groups::of(&v.messages, &before, v.first, v.movable);
                g.at = before
                    .iter()
                    .rposition(|i| replaced.contains(&i.uuid))
                    .map(|i| i + 1);
                Some(g)
            }
            _ => None,
        };
        let lost = match &outcome {
            Some(Outcome::Compacted { summary, .. }) => Lost::of(summary, &before, &replaced, engine),
            _ => Lost::default(),
        };
        self.moments.push(Moment {
            frame: frame.clone(),
            before,
            after,
            dropped,
            summarised,
            tokens_before,
            tiers,
            outcome,
            request_before,
            request_after,
            stored: engine.store().len(),
            undercount: self.undercount,
            groups,
            lost,
        });
    }
}

/// Whether a call's status refused the call (for the chart's marks).
pub fn is_blocked(status: Option<&CallStatus>) -> bool {
    matches!(status, Some(CallStatus::Blocked { .. }))
}
