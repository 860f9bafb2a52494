//! Precomputed summaries (SPEC R9): at the precompute line a summary is
//! prepared in the background without changing the view (R9.1); a later
//! compaction reuses it when its messages still open the view and no new
//! instructions came (R9.2), swapping exactly the messages that were
//! summarised (R9.4). A stored sidecar is loaded only under R9.3's checks.

use serde::{Deserialize, Serialize};

use super::tier4::Reply;
use super::Engine;
use crate::compact::{HookOutcome, Purpose, SummaryRequest};
use crate::message::Uuid;
use crate::step::{Evidence, Owner, Step, Tier};
use crate::summary::offline::offline_summary_of;
use crate::summary::{parse_summary, summary_prompt, OfflineLimits, PromptOptions};
use crate::time::Timestamp;
use crate::tokens::TokenFigure;

const EVIDENCE: Evidence = Evidence::SourceLocation {
    location: "cli.readable.js 262320-262680",
};

/// A precomputed summary, waiting for its answer or ready.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Precompute {
    /// The request id while pending.
    id: u64,
    /// The messages summarised: the first ones of the view when asked.
    uuids: Vec<Uuid>,
    /// The reply, once answered.
    reply: Option<String>,
    /// The count when it was asked for.
    tokens_at: u64,
    /// Its request while pending, built once per state of the view.
    built: super::ask::Memo,
}

/// A precomputed summary as stored beside the transcript (R9.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sidecar {
    /// The session it belongs to.
    pub session_id: String,
    /// The model that wrote it.
    pub model: String,
    /// The client version that wrote it (recorded; alone no reason to
    /// reject).
    pub client_version: String,
    /// When it was written.
    pub created_at: Timestamp,
    /// The count when it was asked for.
    pub tokens_at: u64,
    /// The view's length when it was asked for.
    pub history_len: usize,
    /// The messages it summarises, in order.
    pub summarised: Vec<Uuid>,
    /// The model's reply.
    pub reply: String,
}

/// Whether a sidecar was loaded (R9.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum SidecarCheck {
    /// Loaded: the next compaction may hit it (R9.2).
    Loaded,
    /// Rejected, with the first failed check.
    Rejected {
        /// Why, in one line.
        reason: String,
    },
}

/// R9.3's limits.
const MAX_AGE_MS: i64 = 7 * 24 * 60 * 60 * 1_000;
const MAX_GROWTH: u64 = 150_000;

impl Engine {
    /// R9.1: at the precompute line, with nothing precomputed and no
    /// compaction running, asks for a summary of what an automatic
    /// compaction would summarise now. The view does not change.
    pub(super) fn run_precompute(&mut self, steps: &mut Vec<Step>) {
        let count = self.count();
        if count.tokens < self.lines.precompute || self.precompute.is_some() || self.compacting() {
            return;
        }
        let Some(prefix) = crate::compact::cut::preserve_turns_within(
            &self.view,
            self.settings.compact.auto_keep_turns,
            self.lines().compact,
        ) else {
            return;
        };
        let id = self.next_request();
        let uuids: Vec<Uuid> = self.view.entries()[prefix]
            .iter()
            .map(|e| e.message.uuid.clone())
            .collect();
        steps.push(step(
            count,
            Owner::Model,
            1,
            format!(
                "{} tokens, at the precompute line {}: a summary of the first {} messages is prepared in the background; the view does not change",
                count.tokens,
                self.lines.precompute,
                uuids.len()
            ),
        ));
        self.precompute = Some(Precompute {
            id,
            uuids,
            reply: None,
            tokens_at: count.tokens,
            built: Default::default(),
        });
    }

    /// The precompute request waiting for an answer, if any.
    pub(super) fn precompute_request(&self) -> Option<SummaryRequest> {
        let p = self.precompute.as_ref().filter(|p| p.reply.is_none())?;
        // Its messages are the view's first ones: appends leave them as
        // they were, any other change to the view builds it anew.
        let key = [self.view.changes(), self.system_tokens, 0, 0, 0, 0, 0];
        p.built.get(key, || {
            self.request_for(
                p.id,
                Purpose::Precompute,
                &p.uuids,
                summary_prompt(&PromptOptions::default()),
                0,
            )
        })
    }

    /// Whether `id` is the precompute request waiting for its answer.
    pub(super) fn is_precompute(&self, id: u64) -> bool {
        self.precompute
            .as_ref()
            .is_some_and(|p| p.id == id && p.reply.is_none())
    }

    /// Answers the precompute request (the caller checked `id` with
    /// [`Engine::is_precompute`]). A reply that does not parse, or any
    /// answer but a text or the offline summariser, drops it (a later
    /// compaction asks afresh).
    pub(super) fn precompute_answered(&mut self, reply: Reply) -> Vec<Step> {
        let count = self.count();
        let reply = match reply {
            Reply::Text(text, _) => Some(text),
            // The messages precompute_request() would send, borrowed.
            Reply::Offline => self
                .precompute
                .as_ref()
                .and_then(|p| self.messages_of(&p.uuids))
                .map(|messages| {
                    offline_summary_of(
                        messages.into_iter().map(AsRef::as_ref),
                        &PromptOptions::default(),
                        &OfflineLimits::default(),
                    )
                }),
            Reply::Unavailable | Reply::TooLong | Reply::Failed(_) => None,
        };
        match (self.precompute.as_mut(), reply) {
            (Some(p), Some(reply)) if parse_summary(&reply).is_ok() => {
                p.reply = Some(reply);
                vec![step(
                    count,
                    Owner::Model,
                    0,
                    "the precomputed summary is ready".to_owned(),
                )]
            }
            _ => {
                self.precompute = None;
                vec![step(
                    count,
                    Owner::Client,
                    0,
                    "the precompute was dropped: no usable reply".to_owned(),
                )]
            }
        }
    }

    /// R9.2's hit test, consuming a ready precompute: `(messages to swap,
    /// reply)` on a hit, and the step saying hit or miss and why.
    pub(crate) fn precompute_hit(
        &mut self,
        instructions: Option<&str>,
        hook: &HookOutcome,
        count: TokenFigure,
    ) -> (Option<(usize, String)>, Option<Step>) {
        let Some(p) = self.precompute.take() else {
            return (None, None);
        };
        let Some(reply) = p.reply else {
            return (
                None,
                Some(step(
                    count,
                    Owner::Client,
                    0,
                    "precompute miss: its summary was not ready".to_owned(),
                )),
            );
        };
        let miss = |why: &str| {
            (
                None,
                Some(step(
                    count,
                    Owner::Client,
                    0,
                    crate::text::concat("precompute miss: ", why),
                )),
            )
        };
        if instructions.is_some_and(|i| !i.trim().is_empty()) {
            return miss("the user gave new instructions");
        }
        if !hook.added_instructions.is_empty() {
            return miss("a hook added requirements");
        }
        let opens_view = p.uuids.len() < self.view.len()
            && p.uuids
                .iter()
                .zip(self.view.entries())
                .all(|(u, e)| &e.message.uuid == u);
        if !opens_view {
            return miss("its messages no longer open the view (the point is gone)");
        }
        let since = self.view.len() - p.uuids.len();
        let tail = crate::compact::cut::tokens(&self.view, p.uuids.len()..self.view.len());
        if tail > self.lines().compact {
            return miss("the messages since it hold more than the compact line: reusing it would leave the view over the line");
        }
        let reason = format!(
            "precompute hit: its summary of {} messages is reused, no new summary call; the {since} messages since join the preserved tail",
            p.uuids.len()
        );
        (
            Some((p.uuids.len(), reply)),
            Some(step(count, Owner::Client, 0, reason)),
        )
    }

    /// The ready precompute as a sidecar to store beside the transcript.
    pub fn sidecar(&self, session_id: &str, client_version: &str, now: &Timestamp) -> Option<Sidecar> {
        let p = self.precompute.as_ref()?;
        Some(Sidecar {
            session_id: session_id.to_owned(),
            model: self.settings.compact.model.clone(),
            client_version: client_version.to_owned(),
            created_at: now.clone(),
            tokens_at: p.tokens_at,
            history_len: self.view.len(),
            summarised: p.uuids.clone(),
            reply: p.reply.clone()?,
        })
    }

    /// Loads a stored precompute if R9.3's checks pass: same session, same
    /// model, at most 7 days old, tokens grew by at most 150,000 since, the
    /// history did not shrink by more than half, and the summarised
    /// messages' last uuid still exists. The client version is recorded but
    /// alone no reason to reject.
    pub fn load_sidecar(&mut self, sidecar: Sidecar, session_id: &str, now: &Timestamp) -> SidecarCheck {
        let reject = |reason: String| SidecarCheck::Rejected { reason };
        if sidecar.session_id != session_id {
            return reject(format!("another session ({})", sidecar.session_id));
        }
        if sidecar.model != self.settings.compact.model {
            return reject(format!("another model ({})", sidecar.model));
        }
        // Saturating: timestamps are input and may be any i64 (a past too
        // far to subtract is still too old).
        let age = now.unix_ms().saturating_sub(sidecar.created_at.unix_ms());
        if age > MAX_AGE_MS {
            return reject(format!("{} days old, more than 7", age / 86_400_000));
        }
        let grown = self.count().tokens.saturating_sub(sidecar.tokens_at);
        if grown > MAX_GROWTH {
            return reject(format!("tokens grew by {grown} since, more than 150000"));
        }
        if self.view.len() * 2 < sidecar.history_len {
            return reject(format!(
                "the history shrank from {} to {} messages",
                sidecar.history_len,
                self.view.len()
            ));
        }
        match sidecar.summarised.last() {
            Some(last) if self.view.position(last).is_some() => {}
            _ => return reject("its preserved uuid is gone".to_owned()),
        }
        if parse_summary(&sidecar.reply).is_err() {
            return reject("its reply is empty".to_owned());
        }
        self.precompute = Some(Precompute {
            id: 0,
            uuids: sidecar.summarised,
            reply: Some(sidecar.reply),
            tokens_at: sidecar.tokens_at,
            built: Default::default(),
        });
        SidecarCheck::Loaded
    }
}

fn step(count: TokenFigure, owner: Owner, model_calls: u32, reason: String) -> Step {
    Step {
        model_calls,
        ..Step::note(Tier::Compact, "R9", owner, EVIDENCE, count, reason)
    }
}
