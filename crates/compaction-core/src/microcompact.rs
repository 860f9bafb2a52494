//! Tier 1, microcompact (SPEC R4): clear old results of eligible tools.
//! Two paths (R4.2): cache-aware, where the server clears them through
//! Anthropic context editing and the client's copy stays intact (R4.3); and
//! time-based, where the client replaces them with a canonical sentinel
//! after an idle gap (R4.4, R4.5).

use crate::hash::KeySet;
use std::sync::Arc;

use serde::Serialize;

use crate::message::{Block, Content, Message, ToolResultContent};
use crate::step::{BlockRef, CacheEffect, Evidence, Owner, Step, Tier};
use crate::time::Timestamp;
use crate::view::View;

/// Tier 1 settings (R4).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MicrocompactSettings {
    /// Tools whose results may be cleared (R4.1).
    pub eligible_tools: Vec<String>,
    /// The provider supports context editing (R4.2).
    pub context_editing: bool,
    /// How long content stays in the provider's prompt cache, in
    /// milliseconds (R4.2; default 5 minutes, the API's default TTL).
    pub cache_ttl_ms: i64,
    /// Cache-aware path: first fires after this many eligible tool calls
    /// (R4.3; default 50).
    pub first_after: usize,
    /// … then every this many more (R4.3; default 25).
    pub every: usize,
    /// … keeping this many most recent results (R4.3; default 20).
    pub keep_recent: usize,
    /// Time-based path: idle gap since the last assistant message, in
    /// milliseconds (R4.4; default 90 minutes).
    pub idle_gap_ms: i64,
    /// Time-based path: most recent eligible results kept (R4.4; the seed
    /// gives no number: default 20, the cache-aware path's).
    pub time_keep_recent: usize,
    /// The canonical sentinel that replaces a cleared result (R4.4, R4.5).
    pub sentinel: String,
}

impl Default for MicrocompactSettings {
    fn default() -> Self {
        MicrocompactSettings {
            eligible_tools: [
                "Read",
                "Bash",
                "Grep",
                "Glob",
                "WebSearch",
                "WebFetch",
                "Edit",
                "Write",
            ]
            .map(String::from)
            .to_vec(),
            context_editing: true,
            cache_ttl_ms: 5 * 60 * 1_000,
            first_after: 50,
            every: 25,
            keep_recent: 20,
            idle_gap_ms: 90 * 60 * 1_000,
            time_keep_recent: 20,
            sentinel: "[content no longer available]".to_owned(),
        }
    }
}

/// A `{type, value}` pair of the context-management API.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Amount {
    /// `input_tokens` or `tool_uses`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The amount.
    pub value: u64,
}

/// A `clear_tool_uses_20250919` edit, in the API's own (snake_case) shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClearToolUsesEdit {
    /// Always `clear_tool_uses_20250919`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Applies when the prompt exceeds this: set to 1 so the server applies
    /// it whenever it is sent; the engine decides when to send it.
    pub trigger: Amount,
    /// Tool uses left alone: the most recent ones.
    pub keep: Amount,
    /// Minimum to clear: none, so the server clears exactly what the engine
    /// predicts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clear_at_least: Option<Amount>,
    /// Tools whose uses are never cleared: every tool in the view that is
    /// not eligible (R4.1).
    pub exclude_tools: Vec<String>,
    /// Tool inputs are kept.
    pub clear_tool_inputs: bool,
}

pub use crate::api::ContextManagement;

/// What Tier 1 did before one call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// The step, when the tier fired.
    pub step: Option<Step>,
    /// The edit to send with this call (cache-aware path, once it has
    /// fired, on every call so the server keeps clearing).
    pub context_management: Option<ClearToolUsesEdit>,
    /// `tool_use_id`s cleared by the client in this call (time-based path):
    /// a `microcompact_boundary` record (R4.4).
    pub cleared_by_client: Vec<String>,
}

/// Tier 1's bookkeeping, updated as messages enter the view.
#[derive(Debug, Clone, Default)]
pub struct Microcompact {
    /// Eligible tool calls in view order (`tool_use_id`s).
    calls: Vec<String>,
    /// Names of tools seen that are not eligible, sorted, each once.
    other_tools: Vec<String>,
    /// Results the client replaced with the sentinel.
    client_cleared: KeySet<String>,
    /// The first this many of `calls` are cleared by the server.
    server_cleared: usize,
    /// `calls.len()` when the cache-aware path last fired.
    fired_at: Option<usize>,
    /// When the last assistant message was written, if known.
    last_assistant: Option<Timestamp>,
}

impl Microcompact {
    /// Bookkeeping for a message entering the view.
    pub fn observe(&mut self, message: &Message, settings: &MicrocompactSettings) {
        for block in message.content.blocks() {
            if let Block::ToolUse { id, name, .. } = block {
                if settings.eligible_tools.iter().any(|t| t == name) {
                    self.calls.push(id.clone());
                } else {
                    if let Err(at) = self.other_tools.binary_search(name) {
                        self.other_tools.insert(at, name.clone());
                    }
                }
            }
        }
        if message.role == crate::message::Role::Assistant {
            if let Some(ts) = &message.timestamp {
                self.last_assistant = Some(ts.clone());
            }
        }
    }

    /// Bookkeeping after the view was rebuilt (snip, compaction).
    pub fn rebuild(&mut self, view: &View, settings: &MicrocompactSettings) {
        // Owned ids here and below: `KeySet<String>` is the engine's one set
        // type, so the wasm modules hold no `(&str, usize)` table code
        // (~1 KB raw); a copy per id, on calls that rebuild or clear.
        let in_view: KeySet<String> = view
            .messages()
            .flat_map(|m| m.tool_use_ids())
            .map(str::to_owned)
            .collect();
        let cleared_before = self.calls[..self.server_cleared.min(self.calls.len())]
            .iter()
            .filter(|id| in_view.contains(id.as_str()))
            .count();
        let client_cleared = std::mem::take(&mut self.client_cleared);
        *self = Microcompact {
            last_assistant: self.last_assistant.take(),
            ..Microcompact::default()
        };
        for m in view.messages() {
            self.observe(m, settings);
        }
        self.client_cleared = client_cleared
            .into_iter()
            .filter(|id| in_view.contains(id.as_str()))
            .collect();
        self.server_cleared = cleared_before;
        self.fired_at = (cleared_before > 0).then_some(self.calls.len());
    }

    /// Forgets server-side clearing: after a compaction the view is sent
    /// afresh and no edit is needed until the path fires again.
    pub fn forget_server_clearing(&mut self) {
        self.server_cleared = 0;
        self.fired_at = None;
    }

    /// Eligible tool calls in the view.
    pub fn calls(&self) -> usize {
        self.calls.len()
    }

    /// How many of the oldest eligible results the view predicts the
    /// server clears (R4.3).
    pub fn server_cleared(&self) -> usize {
        self.server_cleared
    }

    /// The prediction as data to persist (R4.3), when there is one.
    pub(crate) fn saved(&self) -> Option<crate::view::ServerCleared> {
        let cleared = self.server_cleared.min(self.calls.len());
        let through = self.calls.get(cleared.checked_sub(1)?)?.clone();
        Some(crate::view::ServerCleared {
            through,
            fired_at: self.fired_at.unwrap_or(self.calls.len()) as u64,
        })
    }

    /// Whether [`Microcompact::saved`] is `saved`, allocating nothing.
    pub(crate) fn saved_is(&self, saved: Option<&crate::view::ServerCleared>) -> bool {
        let cleared = self.server_cleared.min(self.calls.len());
        let through = cleared.checked_sub(1).and_then(|i| self.calls.get(i));
        match (through, saved) {
            (None, None) => true,
            (Some(through), Some(s)) => {
                *through == s.through && s.fired_at == self.fired_at.unwrap_or(self.calls.len()) as u64
            }
            _ => false,
        }
    }

    /// Takes a persisted prediction as this view's: the server clears the
    /// oldest eligible results up to `saved.through` (nothing when the view
    /// no longer holds that call).
    pub(crate) fn restore(&mut self, view: &mut View, saved: &crate::view::ServerCleared) {
        if let Some(at) = self.calls.iter().position(|id| *id == saved.through) {
            self.reconcile(view, at + 1);
            self.fired_at = Some(usize::try_from(saved.fired_at).unwrap_or(usize::MAX));
        }
    }

    /// Replaces the prediction with what the server reported it cleared
    /// (R13.4: `applied_edits`): the oldest `actual` eligible results are
    /// cleared in the view, the others show the client's copy again.
    /// Returns the blocks whose prediction changed.
    pub fn reconcile(&mut self, view: &mut View, actual: usize) -> Vec<BlockRef> {
        let actual = actual.min(self.calls.len());
        let predicted = self.server_cleared.min(self.calls.len());
        let changed = if actual > predicted {
            let ids: KeySet<String> = self.calls[predicted..actual].iter().cloned().collect();
            clear_results(view, &ids, None)
        } else {
            let ids: KeySet<String> = self.calls[actual..predicted].iter().cloned().collect();
            restore_results(view, &ids)
        };
        self.server_cleared = actual;
        if actual > 0 && self.fired_at.is_none() {
            self.fired_at = Some(self.calls.len());
        }
        changed
    }

    /// Runs Tier 1 before a call (R4.2–R4.5). `now` comes from the host;
    /// without it the cache is taken as warm and no idle gap is seen.
    /// `protected` holds the `tool_use_id`s of pinned messages (extension):
    /// their results are never cleared.
    pub fn run(
        &mut self,
        view: &mut View,
        settings: &MicrocompactSettings,
        now: Option<&Timestamp>,
        system_tokens: u64,
        protected: &KeySet<String>,
    ) -> Outcome {
        let idle_ms = match (now, &self.last_assistant) {
            // Saturating: timestamps are input and may be any i64.
            (Some(now), Some(last)) => Some(now.unix_ms().saturating_sub(last.unix_ms())),
            _ => None,
        };
        let warm = idle_ms.is_none_or(|ms| ms <= settings.cache_ttl_ms);
        let mut outcome = if settings.context_editing && warm {
            self.cache_aware(view, settings, system_tokens, protected)
        } else {
            match idle_ms {
                Some(ms) if ms >= settings.idle_gap_ms => {
                    self.time_based(view, settings, ms, system_tokens, protected)
                }
                _ => Outcome::default(),
            }
        };
        // Once the server clears results, the edit goes with every call, on
        // either path: without it the cleared results would come back.
        outcome.context_management = self.edit();
        outcome
    }

    /// The `context_management` edit that makes the server clear exactly
    /// the first `server_cleared` eligible results.
    fn edit(&self) -> Option<ClearToolUsesEdit> {
        (self.server_cleared > 0).then(|| ClearToolUsesEdit {
            kind: "clear_tool_uses_20250919",
            trigger: Amount {
                kind: "input_tokens",
                value: 1,
            },
            keep: Amount {
                kind: "tool_uses",
                value: (self.calls.len() - self.server_cleared) as u64,
            },
            clear_at_least: None,
            exclude_tools: self.other_tools.clone(),
            clear_tool_inputs: false,
        })
    }

    /// Clears the results the client itself cleared, as a transcript
    /// records them (`microcompact_boundary`): each is replaced by the
    /// sentinel, as the time-based path does (R4.4).
    pub fn clear_recorded(
        &mut self,
        view: &mut View,
        tool_ids: &[String],
        settings: &MicrocompactSettings,
    ) -> Vec<BlockRef> {
        let ids: KeySet<String> = tool_ids.iter().cloned().collect();
        let blocks = clear_results(view, &ids, Some(&settings.sentinel));
        self.client_cleared.extend(tool_ids.iter().cloned());
        blocks
    }

    fn cache_aware(
        &mut self,
        view: &mut View,
        s: &MicrocompactSettings,
        system_tokens: u64,
        protected: &KeySet<String>,
    ) -> Outcome {
        let total = self.calls.len();
        let due = total >= s.first_after && self.fired_at.is_none_or(|at| total >= at + s.every);
        let mut step = None;
        if due && total > s.keep_recent {
            let before = view.count(system_tokens);
            // The server clears the oldest results by count: a pinned one
            // stops the range before it (extension).
            let first_protected = self.calls[self.server_cleared..]
                .iter()
                .position(|id| protected.contains(id))
                .map(|p| p + self.server_cleared);
            let clear_to = (total - s.keep_recent)
                .min(first_protected.unwrap_or(usize::MAX))
                .max(self.server_cleared);
            let ids: KeySet<String> = self.calls[self.server_cleared..clear_to]
                .iter()
                .cloned()
                .collect();
            let blocks = clear_results(view, &ids, None);
            if let Some(first) = blocks.first() {
                step = Some(Step {
                    tier: Tier::Microcompact,
                    rule: "R4.3",
                    owner: Owner::Server,
                    evidence: Evidence::ThirdParty,
                    count_before: before,
                    count_after: view.count(system_tokens),
                    messages: dedup(blocks.iter().map(|b| b.uuid.clone())),
                    cache: CacheEffect::ServerInvalidatesFrom { from: first.uuid.clone() },
                    blocks: blocks.clone(),
                    model_calls: 0,
                    reason: format!(
                        "{total} eligible tool calls: the server clears {} more old results by context editing, keeping the {} most recent; the client's copy is unchanged",
                        blocks.len(),
                        s.keep_recent
                    ),
                });
            }
            self.server_cleared = clear_to;
            self.fired_at = Some(total);
        }
        Outcome {
            step,
            context_management: None,
            cleared_by_client: Vec::new(),
        }
    }

    fn time_based(
        &mut self,
        view: &mut View,
        s: &MicrocompactSettings,
        idle_ms: i64,
        system_tokens: u64,
        protected: &KeySet<String>,
    ) -> Outcome {
        let keep_from = self.calls.len().saturating_sub(s.time_keep_recent);
        // Results the server already clears stay the server's.
        let from = self.server_cleared.min(keep_from);
        let ids: KeySet<String> = self.calls[from..keep_from]
            .iter()
            .filter(|id| !self.client_cleared.contains(id.as_str()) && !protected.contains(id.as_str()))
            .cloned()
            .collect();
        if ids.is_empty() {
            return Outcome::default();
        }
        let before = view.count(system_tokens);
        let cleared: Vec<String> = ids.iter().cloned().collect();
        let blocks = clear_results(view, &ids, Some(&s.sentinel));
        let Some(first) = blocks.first() else {
            return Outcome::default();
        };
        self.client_cleared.extend(cleared.iter().cloned());
        let step = Step {
            tier: Tier::Microcompact,
            rule: "R4.4",
            owner: Owner::Client,
            evidence: Evidence::ThirdParty,
            count_before: before,
            count_after: view.count(system_tokens),
            messages: dedup(blocks.iter().map(|b| b.uuid.clone())),
            cache: CacheEffect::PrefixBroken { from: first.uuid.clone() },
            blocks: blocks.clone(),
            model_calls: 0,
            reason: format!(
                "idle {} min since the last assistant message (cache expired): the client replaces {} old results with `{}`, keeping the {} most recent{}",
                idle_ms / 60_000,
                blocks.len(),
                s.sentinel,
                s.time_keep_recent,
                if s.context_editing {
                    ""
                } else {
                    " (the client path: this provider has no server-side context editing, R4.2)"
                }
            ),
        };
        let mut cleared_sorted = cleared;
        cleared_sorted.sort();
        Outcome {
            step: Some(step),
            context_management: None,
            cleared_by_client: cleared_sorted,
        }
    }
}

fn dedup(uuids: impl Iterator<Item = crate::message::Uuid>) -> Vec<crate::message::Uuid> {
    let mut out: Vec<_> = Vec::new();
    for u in uuids {
        if out.last() != Some(&u) {
            out.push(u);
        }
    }
    out
}

/// Shows the client's copy again for the results answering `ids` that the
/// view predicted the server clears (R13.4: it did not).
fn restore_results(view: &mut View, ids: &KeySet<String>) -> Vec<BlockRef> {
    let mut touched = Vec::new();
    for index in 0..view.len() {
        let entry = &view.entries()[index];
        let Some(sent) = entry.sent.clone() else {
            continue;
        };
        let (Content::Blocks(seen), Content::Blocks(client)) = (&entry.message.content, &sent.content) else {
            continue;
        };
        let back: Vec<usize> = seen
            .iter()
            .enumerate()
            .filter(|(i, b)| {
                matches!(b, Block::ToolResult { tool_use_id, .. } if ids.contains(tool_use_id.as_str()))
                    && client.get(*i) != Some(b)
            })
            .map(|(i, _)| i)
            .collect();
        if back.is_empty() {
            continue;
        }
        let mut message = (*entry.message).clone();
        if let Content::Blocks(blocks) = &mut message.content {
            for &i in &back {
                if let (Some(slot), Some(original)) = (blocks.get_mut(i), client.get(i)) {
                    *slot = original.clone();
                }
            }
        }
        let uuid = message.uuid.clone();
        view.predict_server_edit(index, Arc::new(message), &[]);
        touched.extend(back.into_iter().map(|block| BlockRef {
            uuid: uuid.clone(),
            block,
        }));
    }
    touched
}

/// Clears the results answering `ids`: with `sentinel` the client replaces
/// them (time-based); without, the server does and the view predicts an
/// empty result while the client keeps sending its copy (cache-aware).
/// Results already holding the sentinel are left byte-identical (R4.5), and
/// results no bigger than the sentinel are left alone (clearing them would
/// raise the count).
fn clear_results(view: &mut View, ids: &KeySet<String>, sentinel: Option<&str>) -> Vec<BlockRef> {
    let mut touched = Vec::new();
    for index in 0..view.len() {
        let entry = &view.entries()[index];
        // What the model sees: results the server clears stay cleared.
        let base = &entry.message;
        let Content::Blocks(blocks) = &base.content else {
            continue;
        };
        // Most messages answer none of `ids`: look before copying anything.
        let answers_one = blocks.iter().any(
            |b| matches!(b, Block::ToolResult { tool_use_id, .. } if ids.contains(tool_use_id.as_str())),
        );
        if !answers_one {
            continue;
        }
        let replacement = match sentinel {
            Some(text) => ToolResultContent::Text(text.to_owned()),
            None => ToolResultContent::Text(String::new()),
        };
        let estimator = view.estimator();
        let changed: Vec<usize> = blocks
            .iter()
            .enumerate()
            .filter(|(_, block)| match block {
                Block::ToolResult {
                    tool_use_id, content, ..
                } => {
                    // Already cleared (R4.5), or not worth clearing: a result
                    // no bigger than its replacement would raise the count.
                    ids.contains(tool_use_id.as_str())
                        && *content != replacement
                        && !(sentinel.is_some()
                            && estimator.tool_result(content) <= estimator.tool_result(&replacement))
                }
                _ => false,
            })
            .map(|(i, _)| i)
            .collect();
        if changed.is_empty() {
            continue;
        }
        // The new blocks: the cleared ones rebuilt without copying the
        // content they drop, the others copied.
        let new_blocks: Vec<Block> = blocks
            .iter()
            .enumerate()
            .map(|(i, block)| match block {
                Block::ToolResult {
                    tool_use_id,
                    is_error,
                    extra,
                    ..
                } if changed.binary_search(&i).is_ok() => Block::ToolResult {
                    tool_use_id: tool_use_id.clone(),
                    content: replacement.clone(),
                    is_error: *is_error,
                    extra: extra.clone(),
                },
                other => other.clone(),
            })
            .collect();
        // The client's own copy, when the server clears other results of
        // this message: the same blocks change there too.
        let sent = match (sentinel, &entry.sent) {
            (Some(_), Some(sent)) => {
                let mut copy = (**sent).clone();
                if let Content::Blocks(sent_blocks) = &mut copy.content {
                    for &i in &changed {
                        if let (Some(slot), Some(new)) = (sent_blocks.get_mut(i), new_blocks.get(i)) {
                            *slot = new.clone();
                        }
                    }
                }
                Some(Arc::new(copy))
            }
            _ => None,
        };
        let message = Message {
            uuid: base.uuid.clone(),
            role: base.role,
            content: Content::Blocks(new_blocks),
            timestamp: base.timestamp.clone(),
            usage: base.usage.clone(),
            extra: base.extra.clone(),
        };
        let uuid = message.uuid.clone();
        match sentinel {
            Some(_) => view.replace_sent(index, Arc::new(message), sent, &changed),
            None => view.predict_server_edit(index, Arc::new(message), &changed),
        }
        touched.extend(changed.into_iter().map(|block| BlockRef {
            uuid: uuid.clone(),
            block,
        }));
    }
    touched
}
