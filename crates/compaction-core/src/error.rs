//! The engine's one error type: invalid input, named by setting and value.

use std::fmt;

/// A setting the engine can reject. Front doors (the CLI, the JS package)
/// name it in their own vocabulary; [`Setting::key`] is the engine's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum Setting {
    /// The model's context window, in tokens (R1.1).
    Window,
    /// The model's maximum output tokens for the reply (R1.1).
    MaxOutputTokens,
    /// The cap on the reserve kept for the reply (R1.1, default 20,000).
    ReserveCap,
    /// The model input ceiling the blocked line hangs from (R1.2).
    Ceiling,
    /// The auto-compact override percentage (R1.4).
    OverridePct,
    /// How far below the budget the precompute line sits, in percent (R1.2).
    PrecomputePct,
    /// How far below the budget the compact line sits (R1.2).
    CompactMargin,
    /// How far below the compact line the warn line sits (R1.2).
    WarnMargin,
    /// How far below the ceiling the blocked line sits (R1.2).
    BlockedMargin,
    /// The most of the budget the compact and warn margins may take (R1.5a).
    MarginSharePct,
    /// Budget reduction's threshold, head and tail (R2.2).
    Reduction,
}

impl Setting {
    /// The engine's snake_case name of the setting.
    pub fn key(self) -> &'static str {
        match self {
            Setting::Window => "window",
            Setting::MaxOutputTokens => "max_output_tokens",
            Setting::ReserveCap => "reserve_cap",
            Setting::Ceiling => "ceiling",
            Setting::OverridePct => "override_pct",
            Setting::PrecomputePct => "precompute_pct",
            Setting::CompactMargin => "compact_margin",
            Setting::WarnMargin => "warn_margin",
            Setting::BlockedMargin => "blocked_margin",
            Setting::MarginSharePct => "margin_share_pct",
            Setting::Reduction => "reduction",
        }
    }
}

impl fmt::Display for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// Everything the engine can refuse.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A setting is out of range, not a whole number, or inconsistent with
    /// another setting (R1.5).
    #[error("{}", self.message_naming(|s| s.key().to_owned()))]
    InvalidSetting {
        /// Which setting.
        setting: Setting,
        /// The rejected value, as given.
        value: String,
        /// Why it was rejected, in lowercase words.
        reason: String,
    },
    /// A message was appended with a uuid the store already holds: the store
    /// is append-only and a uuid names one message forever.
    #[error("duplicate message uuid `{uuid}`: the store already holds a message with it")]
    DuplicateUuid {
        /// The uuid given twice.
        uuid: String,
    },
    /// A uuid names no message the operation can use.
    #[error("no message `{uuid}` here: it is not in the store, or not in the view, or has no lineage")]
    UnknownMessage {
        /// The uuid given.
        uuid: String,
    },
    /// An answer names a request the engine is not waiting for.
    #[error("no pending request with id {id}: it was answered already, or never asked")]
    UnknownRequest {
        /// The id given.
        id: u64,
    },
    /// An answer of a kind its request does not take (a file answer to a
    /// summary request…); nothing changes.
    #[error("request {id} is a {request} request: an answer of kind {answer} does not answer it")]
    WrongAnswer {
        /// The id given.
        id: u64,
        /// The request's kind.
        request: &'static str,
        /// The answer's kind.
        answer: &'static str,
    },
    /// The model's summary reply has no text once its first `<analysis>`
    /// block is removed, or its `<summary>` block is blank (R7.4): the
    /// compaction fails and the old view stays (R7.10).
    #[error("empty summary reply: no text outside the first <analysis> block, or a blank <summary> block")]
    EmptySummary,
    /// A registered context item has a kind that is not registered (R7.7:
    /// files are read on request, hook output comes with the file answers).
    #[error(
        "context item {index}: kind `{kind}` cannot be registered (only plan, taskState, skill and mcp)"
    )]
    InvalidContext {
        /// The item's position in the list given.
        index: usize,
        /// Its kind.
        kind: &'static str,
    },
}

/// A number from untrusted input, shown in an error message: whole
/// numbers as integers, others in their shortest round-trip form (what
/// `JSON.stringify` shows), without pulling `f64`'s `Display` machinery
/// into the wasm module.
pub struct Num(pub f64);

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        if v.is_nan() {
            f.write_str("NaN")
        } else if v.is_infinite() {
            f.write_str(if v > 0.0 { "inf" } else { "-inf" })
        } else if v.fract() == 0.0 && v.abs() < 9.2e18 {
            // Whole and within i64: the cast is exact.
            write!(f, "{}", v as i64)
        } else {
            match serde_json::Number::from_f64(v) {
                Some(n) => write!(f, "{n}"),
                None => f.write_str("NaN"),
            }
        }
    }
}

impl Error {
    /// Shorthand for [`Error::InvalidSetting`].
    pub(crate) fn invalid(setting: Setting, value: impl fmt::Display, reason: impl Into<String>) -> Self {
        Error::InvalidSetting {
            setting,
            value: value.to_string(),
            reason: reason.into(),
        }
    }

    /// The message with the setting named the caller's way (a CLI flag, a JS
    /// key) instead of the engine's: every front door words errors alike.
    pub fn message_naming(&self, name: impl Fn(Setting) -> String) -> String {
        match self {
            Error::InvalidSetting {
                setting,
                value,
                reason,
            } => {
                format!("invalid setting `{}` = {value}: {reason}", name(*setting))
            }
            // Other variants name no setting: their own message stands.
            #[allow(unreachable_patterns)]
            other => other.to_string(),
        }
    }

    /// The setting this error names, if it is about a setting.
    pub fn setting(&self) -> Option<Setting> {
        match self {
            Error::InvalidSetting { setting, .. } => Some(*setting),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
}
