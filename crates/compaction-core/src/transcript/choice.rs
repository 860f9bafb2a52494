//! The settings a replay chooses from the session file itself: the preset
//! from the client version (a table of version ranges, the evidence for
//! each in its preset's docs), the window and output reserve from the
//! model, and the reason for each choice in words.

use serde::Serialize;

use super::Transcript;
use crate::engine::{EngineSettings, Preset};
use crate::message::Role;

/// A client version, `(major, minor, patch)`.
type Version = (u32, u32, u32);

/// Version ranges → presets, oldest first: `(first, last, preset, why)`.
/// Versions outside every range take the nearest one (said so in the
/// reason).
const VERSIONS: &[(Version, Version, Preset, &str)] = &[
    (
        (2, 0, 76),
        (2, 1, 24),
        Preset::Client2076,
        "2.0.76 – 2.1.20 fire near 155,000 (a 32,000 reserve); 2.1.21 – 2.1.24 are unmeasured and taken as unchanged",
    ),
    (
        (2, 1, 25),
        (2, 1, 74),
        Preset::Client21,
        "2.1.25 – 2.1.74 fire near 167,000 (a 20,000 reserve)",
    ),
];

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

/// Models → (context window, maximum output tokens), by id prefix, from
/// Anthropic's published model table. The window is the standard one; a
/// session whose requests exceed it used the 1M-token window.
const MODELS: &[(&str, u64, u64)] = &[
    ("claude-opus-4-6", 200_000, 128_000),
    ("claude-sonnet-4-6", 200_000, 64_000),
    ("claude-opus-4-5", 200_000, 64_000),
    ("claude-sonnet-4-5", 200_000, 64_000),
    ("claude-haiku-4-5", 200_000, 64_000),
    ("claude-opus-4-1", 200_000, 32_000),
    ("claude-opus-4", 200_000, 32_000),
    ("claude-sonnet-4", 200_000, 64_000),
    ("claude-3-7-sonnet", 200_000, 64_000),
    ("claude-3-5-haiku", 200_000, 8_192),
    ("claude-3-5-sonnet", 200_000, 8_192),
];

/// The larger window some models offer (beta), in tokens.
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

/// The preset for a client version, and why, from the table above.
pub fn preset_for_version(version: Option<&str>) -> (Preset, String) {
    let Some(text) = version else {
        return (
            Preset::Seed,
            "no client version in the file: the seed's settings".to_owned(),
        );
    };
    let Some(v) = parse(text) else {
        return (
            Preset::Seed,
            format!("client version `{text}` is not a version number: the seed's settings"),
        );
    };
    let (Some(first), Some(last)) = (VERSIONS.first(), VERSIONS.last()) else {
        return (Preset::Seed, "no version table".to_owned());
    };
    if let Some((_, _, preset, why)) = VERSIONS.iter().find(|(lo, hi, _, _)| *lo <= v && v <= *hi) {
        return (*preset, format!("client {text}: `{}`, as {why}", preset.name()));
    }
    let (preset, side) = if v < first.0 {
        (first.2, "older than any measured version")
    } else {
        (last.2, "newer than any measured version")
    };
    (
        preset,
        format!(
            "client {text}: `{}`, the nearest measured range ({side})",
            preset.name()
        ),
    )
}

/// The settings a replay of `transcript` uses when none are given: see
/// [`Choice`].
pub fn choose(transcript: &Transcript) -> Choice {
    let version = transcript.versions.last().cloned();
    let (preset, why) = preset_for_version(version.as_deref());
    let mut reasons = vec![why];
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
    // The model most requests used, and the largest request.
    let mut models: Vec<(String, usize)> = Vec::new();
    let mut largest = 0u64;
    for m in &transcript.messages {
        if m.message.role != Role::Assistant || m.is_api_error_message {
            continue;
        }
        largest = largest.max(m.message.usage.as_ref().map_or(0, |u| u.prompt_tokens()));
        let Some(model) = m.message_extra.str_field("model") else {
            continue;
        };
        if model.starts_with('<') {
            continue; // `<synthetic>`
        }
        match models.iter_mut().find(|(name, _)| *name == model) {
            Some((_, n)) => *n += 1,
            None => models.push((model.into_owned(), 1)),
        }
    }
    let model = models
        .iter()
        .max_by_key(|(_, n)| *n)
        .map(|(name, _)| name.clone());
    let known = model
        .as_deref()
        .and_then(|name| MODELS.iter().find(|(prefix, _, _)| name.starts_with(prefix)));
    let (mut window, max_output_tokens) = match (known, &model) {
        (Some(&(_, window, output)), Some(name)) => {
            reasons.push(format!(
                "model {name}: window {window}, maximum output {output} (the reserve is the smaller of it and the preset's cap)"
            ));
            (window, Some(output))
        }
        (None, Some(name)) => {
            reasons.push(format!(
                "model {name} is not in the model table: window {DEFAULT_WINDOW}, the reserve is the preset's cap"
            ));
            (DEFAULT_WINDOW, None)
        }
        _ => {
            reasons.push(format!(
                "no model in the file: window {DEFAULT_WINDOW}, the reserve is the preset's cap"
            ));
            (DEFAULT_WINDOW, None)
        }
    };
    if largest > window {
        reasons.push(format!(
            "a request of {largest} tokens exceeds {window}: the {LONG_WINDOW}-token window"
        ));
        window = window.max(LONG_WINDOW);
    }
    Choice {
        preset,
        version,
        model,
        window,
        max_output_tokens,
        reported_output_as_is,
        reasons,
    }
}
