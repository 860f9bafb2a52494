//! The settings a replay chooses from the session file itself: the preset
//! from the client version, the window and output reserve from the model
//! (the tables and their evidence are [`super::versions`]'), and the reason
//! for each choice in words; an unmeasured version or unknown model is
//! said to be one.

use serde::Serialize;

use super::Transcript;
use crate::engine::{EngineSettings, Preset};
use crate::message::Role;

use super::versions::{range_of, text, Version, VersionRange, MODELS, NON_CLAUDE};

/// The client versions whose count took a reply's usage as its session
/// file records it, a streaming snapshot of `output_tokens` included
/// ([`crate::tokens::Estimator::reported_output_as_is`]); other versions
/// count the reply's final output, which a replay estimates when the
/// record holds a smaller snapshot. Evidence, on the calibration set
/// (`../shared/fixtures/sessions/`), where a boundary's `preTokens` is the
/// last usage plus characters / 4 of the records after the reply, plus
/// the reply's output beyond its recorded snapshot or not:
/// - 2.1.14 – 2.1.29 (839b35f7, 08940314, a318ad73, fdd24234, b82405ba,
///   24a274a3): `preTokens` = the usage as recorded + characters / 4 of
///   what followed, within a token, though each reply holds 70 – 600 tokens
///   of content its snapshot (1 – 5) leaves out; and 24a274a3's request
///   before its boundary was sent at 168,254 tokens without compacting,
///   which only the snapshot count explains (the final one is 167,700).
/// - 2.1.2 – 2.1.7 (880d23f9, 0276a600, b42aaf1f, b00b80af) and 2.1.33 –
///   2.1.42 (1a289c77, 9e2434f3, 4f8c1176, b6aa9bbc): `preTokens` exceeds
///   that by about the reply's content (77 – 310 tokens; 9e2434f3: its
///   9,734-character text, recorded with `output_tokens` 3).
/// - 2.1.8 – 2.1.13 and 2.1.30 – 2.1.32 are unmeasured and taken as their
///   neighbours outside the range.
const SNAPSHOT_OUTPUT: (Version, Version) = ((2, 1, 14), (2, 1, 29));

/// The long window assumed for a model the table knows none for, in
/// tokens.
const LONG_WINDOW: u64 = 1_000_000;

/// The window when the model is unknown.
const DEFAULT_WINDOW: u64 = 200_000;

/// What a replay chose from the file, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Choice {
    /// The preset.
    pub preset: Preset,
    /// The client version it was chosen from (the file's last).
    pub version: Option<String>,
    /// The measured version range it falls in (`"2.1.29 – 2.1.72"`), or
    /// where it stands when it falls in none (`"unmeasured 2.1.73 –
    /// 2.1.121"`, `"newer than 2.1.146"`, `"no version"`).
    pub range: String,
    /// Whether the client's count adds what was appended since the last
    /// response to its usage ([`VersionRange::counts_appended`]).
    pub counts_appended: bool,
    /// The model the window and reserve were chosen from (the one most
    /// requests used).
    pub model: Option<String>,
    /// The context window.
    pub window: u64,
    /// The model's maximum output tokens (the reserve is the smaller of
    /// this and the preset's cap), when the model is known.
    pub max_output_tokens: Option<u64>,
    /// Whether the client counted a reply's recorded `output_tokens` as it
    /// stands, a streaming snapshot included ([`SNAPSHOT_OUTPUT`]).
    pub reported_output_as_is: bool,
    /// One line per choice: what was chosen and why.
    pub reasons: Vec<String>,
}

impl Choice {
    /// The engine settings this choice makes.
    pub fn settings(&self) -> EngineSettings {
        let mut settings = self.preset.settings(self.window);
        settings.thresholds.max_output_tokens = self.max_output_tokens;
        settings.estimator.reported_output_as_is = self.reported_output_as_is;
        settings
    }
}

/// `"2.1.17"` → `(2, 1, 17)`; anything after the third number is ignored.
fn parse(version: &str) -> Option<Version> {
    let mut parts = version.split(['.', '-', '+']).map(str::parse::<u32>);
    Some((parts.next()?.ok()?, parts.next()?.ok()?, parts.next()?.ok()?))
}

/// The preset for a client version, and why, from the version table.
pub fn preset_for_version(version: Option<&str>) -> (Preset, String) {
    let (row, _, why) = version_row(version);
    (row.map_or(Preset::Seed, |r| r.preset), why)
}

/// The measured row a version is taken as (none: the seed's settings),
/// the range's label, and why in words.
fn version_row(version: Option<&str>) -> (Option<&'static VersionRange>, String, String) {
    let Some(text_version) = version else {
        return (
            None,
            "no version".to_owned(),
            "no client version in the file: the seed's settings".to_owned(),
        );
    };
    let Some(v) = parse(text_version) else {
        return (
            None,
            "no version".to_owned(),
            crate::text::concat3(
                "client version `",
                text_version,
                "` is not a version number: the seed's settings",
            ),
        );
    };
    let span = |r: &VersionRange| format!("{} – {}", text(r.first), text(r.last));
    match range_of(v) {
        Ok(row) => (
            Some(row),
            span(row),
            format!(
                "client {text_version}: `{}`, measured on {}: {}",
                row.preset.name(),
                span(row),
                row.evidence
            ),
        ),
        Err((Some(older), newer)) => {
            let (label, side) = match newer {
                Some(newer) => (
                    format!(
                        "unmeasured {} – {}",
                        text(next(older.last)),
                        text(prev(newer.first))
                    ),
                    format!("between the measured {} and {}", span(older), span(newer)),
                ),
                None => (
                    format!("newer than {}", text(older.last)),
                    format!(
                        "newer than any measured version (the newest range: {})",
                        span(older)
                    ),
                ),
            };
            let why = format!(
                "client {text_version} is unmeasured, {side}: taken as `{}`, the older range's",
                older.preset.name()
            );
            (Some(older), label, why)
        }
        Err((None, newer)) => {
            let Some(newer) = newer else {
                return (None, "no version".to_owned(), "no version table".to_owned());
            };
            let why = format!(
                "client {text_version} is unmeasured, older than any measured version (the oldest range: {}): taken as `{}`",
                span(newer),
                newer.preset.name()
            );
            (Some(newer), format!("older than {}", text(newer.first)), why)
        }
    }
}

/// The version after `v` within its minor release (`2.1.72` → `2.1.73`).
fn next((a, b, c): Version) -> Version {
    (a, b, c.saturating_add(1))
}

/// The version before `v` (`2.1.122` → `2.1.121`; `2.1.0` stays).
fn prev((a, b, c): Version) -> Version {
    (a, b, c.saturating_sub(1))
}

/// The settings a replay of `transcript` uses when none are given: see
/// [`Choice`].
pub fn choose(transcript: &Transcript) -> Choice {
    let mut tally = Tally::default();
    while !tally.step(transcript, usize::MAX) {}
    tally.choose(transcript)
}

/// [`choose`]'s pass over the messages (the model most requests used, and
/// the largest request), advanced a slice of messages at a time
/// ([`Tally::step`]) so that a page can yield between slices; then
/// [`Tally::choose`].
#[derive(Debug, Default)]
pub struct Tally {
    /// Each model and how many requests used it, in order of first use.
    models: Vec<(String, usize)>,
    /// The largest request's prompt tokens.
    largest: u64,
    /// The messages tallied.
    done: usize,
}

impl Tally {
    /// Tallies up to `budget` more messages; true once all are.
    pub fn step(&mut self, transcript: &Transcript, budget: usize) -> bool {
        let to = transcript.messages.len().min(self.done.saturating_add(budget));
        for m in transcript.messages.get(self.done..to).unwrap_or_default() {
            if m.message.role != Role::Assistant || m.is_api_error_message {
                continue;
            }
            self.largest = self
                .largest
                .max(m.message.usage.as_ref().map_or(0, |u| u.prompt_tokens()));
            let Some(model) = m.message_extra.str_field("model") else {
                continue;
            };
            if model.starts_with('<') {
                continue; // `<synthetic>`
            }
            match self.models.iter_mut().find(|(name, _)| *name == model) {
                Some((_, n)) => *n += 1,
                None => self.models.push((model.into_owned(), 1)),
            }
        }
        self.done = to;
        self.done >= transcript.messages.len()
    }

    /// The choice, once [`Tally::step`] said done.
    pub fn choose(self, transcript: &Transcript) -> Choice {
        let Tally { models, largest, .. } = self;
        choose_from(transcript, &models, largest)
    }
}

/// [`choose`] once the messages are tallied.
fn choose_from(transcript: &Transcript, models: &[(String, usize)], largest: u64) -> Choice {
    let version = transcript.versions.last().cloned();
    let (row, range, why) = version_row(version.as_deref());
    let preset = row.map_or(Preset::Seed, |r| r.preset);
    let counts_appended = row.is_none_or(|r| r.counts_appended);
    let mut reasons = vec![why];
    if !counts_appended {
        reasons.push(
            "this client counts the last response's usage alone, not what was appended after it (a tool result is first counted at the next response)"
                .to_owned(),
        );
    }
    let reported_output_as_is = version
        .as_deref()
        .and_then(parse)
        .is_some_and(|v| SNAPSHOT_OUTPUT.0 <= v && v <= SNAPSHOT_OUTPUT.1);
    if reported_output_as_is {
        reasons.push(
            "clients 2.1.14 – 2.1.29 count a reply's output as its usage records it (a streaming snapshot included)"
                .to_owned(),
        );
    }
    // The model most requests used.
    let model = models
        .iter()
        .max_by_key(|(_, n)| *n)
        .map(|(name, _)| name.clone());
    let known = model
        .as_deref()
        .and_then(|name| MODELS.iter().find(|row| name.starts_with(row.prefix)));
    let (mut window, max_output_tokens) = match (known, &model) {
        (Some(row), Some(name)) => {
            reasons.push(format!(
                "model {name}: window {}, maximum output {} (the reserve is the smaller of it and the preset's cap): {}",
                row.window, row.max_output, row.evidence
            ));
            (row.window, Some(row.max_output))
        }
        (None, Some(name)) => {
            let why = NON_CLAUDE
                .iter()
                .find(|(prefix, _)| name.starts_with(prefix))
                .map_or("".to_owned(), |(_, why)| {
                    crate::text::concat3(" (not a Claude model: ", why, ")")
                });
            reasons.push(format!(
                "model {name} is unknown to the model table{why}: window {DEFAULT_WINDOW} assumed, the reserve is the preset's cap"
            ));
            (DEFAULT_WINDOW, None)
        }
        _ => {
            reasons.push(format!(
                "no model in the file: window {DEFAULT_WINDOW} assumed, the reserve is the preset's cap"
            ));
            (DEFAULT_WINDOW, None)
        }
    };
    if largest > window {
        let long = known.and_then(|row| row.long_window);
        match (long, &model) {
            (Some(long), Some(name)) => reasons.push(format!(
                "a request of {largest} tokens exceeds {window}: {name}'s {long}-token window"
            )),
            _ => reasons.push(format!(
                "a request of {largest} tokens exceeds {window}, and the model table knows no longer window for this model: {LONG_WINDOW} assumed"
            )),
        }
        window = long.unwrap_or(LONG_WINDOW);
    }
    Choice {
        preset,
        version,
        range,
        counts_appended,
        model,
        window,
        max_output_tokens,
        reported_output_as_is,
        reasons,
    }
}
