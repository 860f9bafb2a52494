//! What the visitor set, as a pure reducer (`State` + `Action`), unit-tested
//! natively, and its URL form. The engine turns it into numbers; this module
//! only parses text.

use std::rc::Rc;

use compaction_core::api::ThinkingMode;
use compaction_core::compact::attachments::AttachmentSettings;
use compaction_core::compact::HookOutcome;
use compaction_core::thresholds::{RawThresholdSettings, ThresholdSettings, Thresholds};
use compaction_scenarios::sandbox::{self, Knobs, PrecomputeSwitch};
use compaction_scenarios::{self as scenarios, Event, Scenario};
use yew::Reducible;

pub use crate::url::{decode, encode};

/// The scenario shown first.
pub const DEFAULT_SCENARIO: &str = "compact-analysis";

/// The panels a page can show alone (`?embed=1&panel=…`).
pub const PANELS: [&str; 8] = [
    "rebuild", "controls", "timeline", "resume", "context", "chart", "import", "gauge",
];

/// A number field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// Context window.
    Window,
    /// Max output tokens (empty: the reserve cap).
    MaxOutput,
    /// Override percentage (empty: none).
    OverridePct,
    /// Extra tool-call groups before the `/compact`.
    ExtraGroups,
    /// Groups preserved.
    PreserveGroups,
    /// Attachment budget: files.
    MaxFiles,
    /// Attachment budget: tokens per file.
    PerFile,
    /// Attachment budget: tokens in all.
    Total,
}

impl Field {
    /// Every field, in URL order.
    pub const ALL: [Field; 8] = [
        Field::Window,
        Field::MaxOutput,
        Field::OverridePct,
        Field::ExtraGroups,
        Field::PreserveGroups,
        Field::MaxFiles,
        Field::PerFile,
        Field::Total,
    ];

    /// Its URL key.
    pub fn key(self) -> &'static str {
        match self {
            Field::Window => "window",
            Field::MaxOutput => "maxOutput",
            Field::OverridePct => "overridePct",
            Field::ExtraGroups => "groups",
            Field::PreserveGroups => "preserve",
            Field::MaxFiles => "maxFiles",
            Field::PerFile => "perFile",
            Field::Total => "total",
        }
    }

    /// Its label on screen.
    pub fn label(self) -> &'static str {
        match self {
            Field::Window => "Context window (tokens)",
            Field::MaxOutput => "Max output tokens",
            Field::OverridePct => "Override (% of window)",
            Field::ExtraGroups => "Extra message groups",
            Field::PreserveGroups => "Groups preserved",
            Field::MaxFiles => "Files restored (max)",
            Field::PerFile => "Tokens per file",
            Field::Total => "Tokens for all files",
        }
    }
}

/// A yes/no switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Switch {
    /// The PreCompact hook blocks.
    HookBlocks,
    /// The first summary request is over the window.
    TooLong,
    /// The primary model is unavailable.
    PrimaryDown,
    /// Every model is down.
    AllDown,
}

impl Switch {
    /// Every switch, in URL order.
    pub const ALL: [Switch; 4] = [
        Switch::HookBlocks,
        Switch::TooLong,
        Switch::PrimaryDown,
        Switch::AllDown,
    ];

    /// Its URL key.
    pub fn key(self) -> &'static str {
        match self {
            Switch::HookBlocks => "hookBlocks",
            Switch::TooLong => "tooLong",
            Switch::PrimaryDown => "primaryDown",
            Switch::AllDown => "allDown",
        }
    }

    /// Its label on screen.
    pub fn label(self) -> &'static str {
        match self {
            Switch::HookBlocks => "PreCompact hook blocks the compaction",
            Switch::TooLong => "Summary request over the window (adaptive retry)",
            Switch::PrimaryDown => "Primary model unavailable (fallback answers)",
            Switch::AllDown => "Every model unavailable",
        }
    }
}

/// Everything the visitor set.
#[derive(Debug, Clone, PartialEq)]
pub struct SandboxState {
    /// The built-in scenario.
    pub scenario: String,
    /// Number fields, as typed, in [`Field::ALL`] order.
    pub fields: [String; 8],
    /// Switches, in [`Switch::ALL`] order.
    pub switches: [bool; 4],
    /// Paths whose reads fail.
    pub failing: Vec<String>,
    /// Instructions the hook adds, one per line.
    pub hook_instructions: String,
    /// `/compact` instructions.
    pub instructions: String,
    /// Files the session's second request reads, one per line
    /// (compact-analysis; empty: the scenario's own).
    pub reads: String,
    /// A stored precompute.
    pub precompute: PrecomputeSwitch,
    /// The engine's `thinking` setting (R13.1).
    pub thinking: ThinkingMode,
    /// The event shown (index into the exploration's moments).
    pub moment: usize,
    /// The step highlighted within it (`None`: all of it).
    pub step: Option<usize>,
    /// Summaries whose lineage is open (uuids).
    pub open: Vec<String>,
    /// Embedded: only this panel.
    pub embed: Option<String>,
    /// Expert mode: the engine's evidence open on every event (newcomer
    /// mode: closed, with the glossary).
    pub expert: bool,
}

impl Default for SandboxState {
    fn default() -> Self {
        Self::for_scenario(DEFAULT_SCENARIO)
    }
}

/// A change the visitor made.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Pick a scenario: its own settings come back.
    Scenario(String),
    /// A number field now reads this text.
    Set(Field, String),
    /// A switch flipped.
    Toggle(Switch, bool),
    /// A file's read fails or not.
    FileFails(String, bool),
    /// The hook's added instructions.
    HookInstructions(String),
    /// The `/compact` instructions.
    Instructions(String),
    /// The files the session reads, one per line.
    Reads(String),
    /// The stored precompute.
    Precompute(PrecomputeSwitch),
    /// The `thinking` setting.
    Thinking(ThinkingMode),
    /// Show this event (clamped later to the exploration's length).
    Moment(usize),
    /// Show this step of the event (`None`: the whole event).
    Step(Option<usize>),
    /// Open or close a summary's lineage.
    Lineage(String),
    /// Expert mode on or off.
    Expert(bool),
}

impl Reducible for SandboxState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::Scenario(name) => {
                if scenarios::names().any(|n| n == name) {
                    next = SandboxState {
                        embed: next.embed,
                        expert: next.expert,
                        ..SandboxState::for_scenario(&name)
                    };
                }
            }
            Action::Set(field, text) => next.fields[field as usize] = text,
            Action::Toggle(switch, on) => next.switches[switch as usize] = on,
            Action::FileFails(path, fails) => {
                next.failing.retain(|p| p != &path);
                if fails {
                    next.failing.push(path);
                    next.failing.sort();
                }
            }
            Action::HookInstructions(text) => next.hook_instructions = text,
            Action::Instructions(text) => next.instructions = text,
            Action::Reads(text) => next.reads = text,
            Action::Precompute(p) => next.precompute = p,
            Action::Thinking(t) => next.thinking = t,
            Action::Moment(i) => {
                next.moment = i;
                next.step = None;
            }
            Action::Step(s) => next.step = s,
            Action::Expert(on) => next.expert = on,
            Action::Lineage(uuid) => {
                if next.open.contains(&uuid) {
                    next.open.retain(|u| u != &uuid);
                } else {
                    next.open.push(uuid);
                }
            }
        }
        Rc::new(next)
    }
}

fn number(n: Option<impl ToString>) -> String {
    n.map(|n| n.to_string()).unwrap_or_default()
}

impl SandboxState {
    /// The scenario's own settings, its last event shown.
    pub fn for_scenario(name: &str) -> Self {
        let scenario = scenarios::by_name(name).or_else(|| scenarios::by_name(DEFAULT_SCENARIO));
        let (name, knobs, instructions) = match &scenario {
            Some(s) => (s.name, Knobs::of(s), own_instructions(s)),
            None => (DEFAULT_SCENARIO, fallback_knobs(), String::new()),
        };
        let a = knobs.attachments;
        SandboxState {
            scenario: name.to_owned(),
            fields: [
                knobs.window.to_string(),
                number(knobs.max_output_tokens),
                number(knobs.override_pct),
                "0".to_owned(),
                knobs.preserve_groups.to_string(),
                a.max_files.to_string(),
                a.per_file_tokens.to_string(),
                a.total_tokens.to_string(),
            ],
            switches: [
                knobs.policy.hook.block.is_some(),
                knobs.policy.first_request_too_long,
                knobs.policy.primary_unavailable,
                knobs.policy.all_models_down,
            ],
            failing: knobs.policy.failing_files.clone(),
            hook_instructions: knobs.policy.hook.added_instructions.join("\n"),
            instructions,
            reads: String::new(),
            precompute: knobs.precompute,
            thinking: knobs.thinking,
            moment: usize::MAX,
            step: None,
            open: Vec::new(),
            embed: None,
            expert: false,
        }
    }

    /// The text of a number field.
    pub fn field(&self, field: Field) -> &str {
        &self.fields[field as usize]
    }

    /// Whether a switch is on.
    pub fn on(&self, switch: Switch) -> bool {
        self.switches[switch as usize]
    }

    /// The scenario with the "message groups" applied, and the knobs; or a
    /// message naming the field to fix.
    pub fn knobs(&self) -> Result<(Scenario, Knobs), String> {
        let scenario = self.scenario()?;
        let knobs = self.knobs_for(&scenario)?;
        Ok((scenario, knobs))
    }

    /// The scenario with the "message groups" applied (it depends on the
    /// scenario's name and that field only).
    pub fn scenario(&self) -> Result<Scenario, String> {
        let extra = self.extra_groups()?;
        let reads: Vec<String> = self
            .reads
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect();
        sandbox::scenario_reading(&self.scenario, extra, &reads)
            .ok_or_else(|| format!("no built-in scenario is called “{}”", self.scenario))
    }

    fn extra_groups(&self) -> Result<usize, String> {
        let extra = whole(Field::ExtraGroups, self.field(Field::ExtraGroups))?.unwrap_or(0);
        if extra > 200 {
            return Err(format!("{}: at most 200", Field::ExtraGroups.label()));
        }
        Ok(extra as usize)
    }

    /// The knobs for `scenario` (built by [`SandboxState::scenario`]).
    pub fn knobs_for(&self, scenario: &Scenario) -> Result<Knobs, String> {
        let extra = self.extra_groups()?;
        let lines = self.thresholds()?;
        let mut knobs = Knobs::of(scenario);
        knobs.window = lines.window;
        knobs.max_output_tokens = parse(Field::MaxOutput, self.field(Field::MaxOutput))?.map(|n| n as u64);
        knobs.override_pct = parse(Field::OverridePct, self.field(Field::OverridePct))?;
        knobs.extra_groups = extra;
        let count = |f: Field, min: u64| -> Result<u64, String> {
            let n = whole(f, self.field(f))?.ok_or_else(|| format!("{}: enter a number", f.label()))?;
            if n < min {
                return Err(format!("{}: at least {min}", f.label()));
            }
            Ok(n)
        };
        knobs.preserve_groups = count(Field::PreserveGroups, 1)? as usize;
        knobs.attachments = AttachmentSettings {
            max_files: count(Field::MaxFiles, 0)? as usize,
            per_file_tokens: count(Field::PerFile, 0)?,
            total_tokens: count(Field::Total, 0)?,
            ..knobs.attachments
        };
        knobs.policy.failing_files = self.failing.clone();
        knobs.policy.hook = HookOutcome {
            block: self
                .on(Switch::HookBlocks)
                .then(|| "the PreCompact hook exited with code 2".to_owned()),
            added_instructions: self
                .hook_instructions
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_owned)
                .collect(),
        };
        knobs.policy.first_request_too_long = self.on(Switch::TooLong);
        knobs.policy.primary_unavailable = self.on(Switch::PrimaryDown);
        knobs.policy.all_models_down = self.on(Switch::AllDown);
        knobs.precompute = self.precompute;
        knobs.thinking = self.thinking;
        knobs.instructions = Some(self.instructions.clone());
        Ok(knobs)
    }

    /// The engine's lines for the window fields, or a message to show.
    pub fn thresholds(&self) -> Result<Thresholds, String> {
        let window = parse(Field::Window, self.field(Field::Window))?
            .ok_or_else(|| "enter a context window size".to_owned())?;
        let raw = RawThresholdSettings {
            window,
            max_output_tokens: parse(Field::MaxOutput, self.field(Field::MaxOutput))?,
            override_pct: parse(Field::OverridePct, self.field(Field::OverridePct))?,
            ..RawThresholdSettings::default()
        };
        ThresholdSettings::try_from(&raw)
            .and_then(|settings| Thresholds::compute(&settings))
            .map_err(|err| err.to_string())
    }

    /// The state as a query string (no `?`): every control, the event shown
    /// and the embed panel.
    pub fn to_query(&self) -> String {
        let mut pairs: Vec<(String, String)> = vec![("scenario".into(), self.scenario.clone())];
        for f in Field::ALL {
            pairs.push((f.key().into(), self.field(f).to_owned()));
        }
        for s in Switch::ALL {
            if self.on(s) {
                pairs.push((s.key().into(), "1".into()));
            }
        }
        for path in &self.failing {
            pairs.push(("fail".into(), path.clone()));
        }
        if !self.hook_instructions.is_empty() {
            pairs.push(("hookAdds".into(), self.hook_instructions.clone()));
        }
        pairs.push(("instructions".into(), self.instructions.clone()));
        if !self.reads.is_empty() {
            pairs.push(("reads".into(), self.reads.clone()));
        }
        if self.precompute != PrecomputeSwitch::None {
            pairs.push(("precompute".into(), self.precompute.name().into()));
        }
        if self.thinking != ThinkingMode::default() {
            pairs.push(("thinking".into(), self.thinking.name().into()));
        }
        if self.moment != usize::MAX {
            pairs.push(("event".into(), self.moment.to_string()));
        }
        if self.expert {
            pairs.push(("expert".into(), "1".into()));
        }
        if let Some(panel) = &self.embed {
            pairs.push(("embed".into(), "1".into()));
            pairs.push(("panel".into(), panel.clone()));
        }
        pairs
            .iter()
            .map(|(k, v)| format!("{k}={}", encode(v)))
            .collect::<Vec<_>>()
            .join("&")
    }

    /// The state a query string describes; unknown keys and bad values are
    /// ignored (the field keeps the text, and the engine judges it).
    pub fn from_query(query: &str) -> Self {
        let pairs: Vec<(String, String)> = query
            .trim_start_matches('?')
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (decode(k), decode(v))
            })
            .collect();
        let get = |key: &str| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        let mut state =
            SandboxState::for_scenario(&get("scenario").unwrap_or_else(|| DEFAULT_SCENARIO.into()));
        for f in Field::ALL {
            if let Some(v) = get(f.key()) {
                state.fields[f as usize] = v;
            }
        }
        for s in Switch::ALL {
            if let Some(v) = get(s.key()) {
                state.switches[s as usize] = v == "1";
            }
        }
        let failing: Vec<String> = pairs
            .iter()
            .filter(|(k, _)| k == "fail")
            .map(|(_, v)| v.clone())
            .collect();
        if !failing.is_empty() {
            state.failing = failing;
        }
        if let Some(v) = get("hookAdds") {
            state.hook_instructions = v;
        }
        if let Some(v) = get("instructions") {
            state.instructions = v;
        }
        if let Some(v) = get("reads") {
            state.reads = v;
        }
        if let Some(p) = get("precompute").as_deref().and_then(PrecomputeSwitch::by_name) {
            state.precompute = p;
        }
        if let Some(t) = get("thinking").as_deref().and_then(sandbox::thinking_mode) {
            state.thinking = t;
        }
        if let Some(i) = get("event").and_then(|v| v.parse().ok()) {
            state.moment = i;
        }
        state.expert = get("expert").as_deref() == Some("1");
        if get("embed").as_deref() == Some("1") {
            let panel = get("panel").filter(|p| PANELS.contains(&p.as_str()));
            state.embed = Some(panel.unwrap_or_else(|| "timeline".into()));
        }
        state
    }
}

/// The field a settings error is about: a field's own message starts with
/// its label; the engine's names the setting in backticks (R1.5). `None`
/// when it names no field.
pub fn field_of(message: &str) -> Option<Field> {
    if let Some(f) = Field::ALL.into_iter().find(|f| message.starts_with(f.label())) {
        return Some(f);
    }
    if message.contains("`max_output_tokens`") {
        Some(Field::MaxOutput)
    } else if message.contains("`override_pct`") {
        Some(Field::OverridePct)
    } else if message.contains("`window`") || message.contains("context window") {
        Some(Field::Window)
    } else {
        None
    }
}

/// The first `/compact` instructions of a scenario, or nothing.
fn own_instructions(s: &Scenario) -> String {
    s.events
        .iter()
        .find_map(|e| match e {
            Event::Compact(Some(text)) => Some(text.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

fn fallback_knobs() -> Knobs {
    Knobs::of(&scenarios::compact_analysis())
}

/// Text → number; `Ok(None)` for an empty field. The engine judges the value.
fn parse(field: Field, text: &str) -> Result<Option<f64>, String> {
    let text = text.trim().replace(['_', ','], "");
    if text.is_empty() {
        return Ok(None);
    }
    match text.parse::<f64>() {
        Ok(n) if n.is_finite() => Ok(Some(n)),
        _ => Err(format!("{}: “{text}” is not a number", field.label())),
    }
}

/// Text → a whole, non-negative number of at most 10^12.
fn whole(field: Field, text: &str) -> Result<Option<u64>, String> {
    match parse(field, text)? {
        None => Ok(None),
        Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 1e12 => Ok(Some(n as u64)),
        Some(n) => Err(format!(
            "{}: {n} is not a whole number from 0 to 10^12",
            field.label()
        )),
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
