//! A stored precompute the host loads before a `/compact` (R9.2, R9.3):
//! the sandbox's switch, and the host's loading of it.

use serde::Serialize;

use compaction_core::engine::Engine;
use compaction_core::step::{Evidence, Owner, Step, Tier};
use compaction_core::summary::{offline_summary, PromptOptions};
use compaction_core::time::Timestamp;

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

/// The host loads a stored precompute per `switch` (R9.3), saying so in a
/// step; the compaction then hits or misses it (R9.2) and says why.
pub(super) fn load_precompute(
    engine: &mut Engine,
    switch: PrecomputeSwitch,
    now: Option<&Timestamp>,
) -> Vec<Step> {
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
