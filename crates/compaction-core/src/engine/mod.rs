//! The engine: orders the tiers before every model call (SPEC R3.1) and
//! reports each decision as a [`Step`]. Sans-IO: messages, "now" and
//! (later) summaries come in as data; nothing is read from the world.

use crate::hash::KeySet;
use std::sync::Arc;

mod answer;
mod applied;
mod ask;
mod assemble;
mod counting;
mod decision;
mod driver;
mod events;
mod partial;
mod pins;
mod precompute;
mod prepare;
mod request;
mod retry;
mod server;
pub mod settings;
mod swap;
mod thinking;
mod tier3;
mod tier4;
mod tier5;

pub use decision::{CallStatus, Decision};
pub use driver::{drive, DriveError, Driver, Host};
pub use events::ViewEvent;
pub use precompute::{Sidecar, SidecarCheck};
pub use prepare::{prepare, Preparation, Prepared, Unprepared, MAX_ROUNDS};
pub use request::{Answer, Outcome, Request};
pub use settings::{EngineSettings, Preset};
use tier4::{HookWait, Run};
use tier5::Reactive;

use crate::breakers::{Breakers, Open};
use crate::compact::attachments::Kind;
use crate::compact::{ContextItem, Progress, Trigger};
use crate::error::Error;
use crate::message::{Message, Uuid};
use crate::microcompact::Microcompact;
use crate::reduction::{record_step, reduce_message};
use crate::snip::snip;
use crate::step::{BlockRef, Evidence, Owner, Step, Tier};
use crate::store::Store;
use crate::thresholds::Thresholds;
use crate::time::Timestamp;
use crate::tokens::TokenFigure;
use crate::view::{Entry, Source, View};

/// The engine for one session: a sans-IO state machine. It never calls a
/// model, reads a file or a clock; it says what it needs as [`Request`]s
/// and goes on when the host answers them.
///
/// # The protocol
///
/// What the host calls, in what order, and what comes back:
///
/// 1. [`Engine::append`] each message as it enters the session (and
///    [`Engine::set_system`] for the system prompt).
/// 2. Before every model call, [`Engine::before_call`]`(now)`. The
///    [`Decision`] holds the steps taken (tiers 1–3, the lines' status),
///    the `context_management` edit to send, and every request pending,
///    in one place: [`Decision::requests`].
/// 3. Answer each request with [`Engine::answer`]`(id, answer)`; each
///    answer returns an [`Outcome`] (its steps, the requests now pending,
///    the compaction's [`Progress`]). New requests may follow (the next
///    model of the fallback chain, the files to re-attach): answer until
///    none is left, or let [`drive`] do it through a [`Host`].
/// 4. Send [`View::sent_messages`] (from [`Engine::view`]) with the call.
///
/// Off the beaten path: [`Engine::compact`] for `/compact`,
/// [`Engine::prompt_too_long`] when the API answers 413, and
/// [`Engine::swap_in_summary`] for a summary made elsewhere; each returns
/// an [`Outcome`] whose requests are answered the same way.
///
/// Every compaction, manual, automatic or reactive, first asks the
/// PreCompact hooks ([`Request::PreCompact`], answered with
/// [`Answer::Hook`]): a block leaves the view as it is and writes no
/// boundary. Then it asks for its summary ([`Request::Summary`]), then
/// for the files to re-attach ([`Request::Files`]). Tier 3 asks for
/// segment summaries ([`Request::CollapseSegment`]), the precompute line
/// for a background summary ([`Request::Precompute`]). An answer naming
/// no pending request is [`Error::UnknownRequest`], one of the wrong kind
/// [`Error::WrongAnswer`]; either way nothing changes.
#[derive(Debug, Clone)]
pub struct Engine {
    /// Shared: never changed after [`Engine::new`], so the copy a dry run
    /// ([`Engine::plan`]) makes shares it instead of copying every field.
    pub(crate) settings: Arc<EngineSettings>,
    lines: Thresholds,
    pub(crate) store: Store,
    pub(crate) view: View,
    pub(crate) microcompact: Microcompact,
    /// Steps taken on append (budget reduction), reported by the next call.
    pub(crate) pending: Vec<Step>,
    /// What snips and collapses did to the view since the last
    /// [`Engine::take_view_events`], for the host's session log (R11.6).
    view_events: Vec<ViewEvent>,
    /// The first view position reduced on append since the last call: a
    /// reply appended before the next call read the original (R13.1).
    unsent_reduction: Option<usize>,
    pub(crate) system_tokens: u64,
    /// The compaction waiting for the PreCompact hooks' answer (R7.2).
    pub(crate) hook: Option<HookWait>,
    /// The compaction in progress, waiting for an answer.
    pub(crate) run: Option<Run>,
    /// The last request id handed out.
    pub(crate) requests: u64,
    /// Finished compactions (a resumed session's counted from its file's,
    /// [`Engine::follow_compactions`]): part of the seed of the uuids
    /// derived for a compaction's records.
    pub(crate) compactions: u64,
    /// Sum of `preTokens − postTokens` over compactions (R7.9).
    pub(crate) cumulative_dropped: u64,
    pub(crate) breakers: Breakers,
    /// Real user prompts appended so far: the turn number.
    prompts: usize,
    /// Model replies appended so far: the breakers' turns (R10.2, a
    /// reading), one per model call, so a long autonomous run under one
    /// prompt is not taken for thrashing.
    calls: usize,
    /// How far Tier 5 went in which episode (R8.1: each stage once per
    /// episode), the episode numbered by `prompts + calls`.
    reactive: Option<(usize, Reactive)>,
    /// Pinned messages (extension): never snipped, cleared or summarised
    /// away. Uuid-keyed tables here and in the store are keyed by the text:
    /// one hash-table type for strings in the wasm module, not two.
    pub(crate) pinned: KeySet<String>,
    /// What each compaction and collapse replaced, by summary uuid, for
    /// `expand` (extension; R6.2's collapse store). One entry per
    /// compaction or collapse in the view, so a list searched by key: one
    /// hash-table type fewer in the wasm module.
    pub(crate) lineage: Vec<(Uuid, Replaced)>,
    /// Each message's turn number (1-based; 0 before the first prompt) by
    /// its place in the store: a list, not a table holding every uuid again.
    turn_of: Arc<Vec<usize>>,
    /// Tier 3's segment summaries waiting for answers.
    pub(crate) collapse_pending: Vec<tier3::PendingSegment>,
    /// The precomputed summary, pending or ready (R9).
    pub(crate) precompute: Option<precompute::Precompute>,
    /// Context the host registered for restoring after a compaction
    /// (R7.7: plan, task state, skills, MCP).
    pub(crate) context: Vec<ContextItem>,
    /// The host's clock at the last call that gave one: the time a
    /// compaction's summary and restored attachments carry, as their
    /// records in the session file do (R7.9), so a resume gives them back.
    pub(crate) clock: Option<Timestamp>,
}

/// The view entries a compaction replaced, and the uuids it put in their
/// place (extension: lineage and expand).
#[derive(Debug, Clone)]
pub(crate) struct Replaced {
    /// The entries before the compaction, as the view had them.
    pub(crate) before: Vec<Entry>,
    /// The uuids the compaction put in the view (summary, pinned copies,
    /// preserved, attachments).
    pub(crate) produced: Vec<Uuid>,
}

impl Engine {
    /// Drops up to `n` more of the messages of an engine being dropped
    /// (unusable from the first call): true once none are left and
    /// dropping it is cheap. A 1M-message engine dropped at once took a
    /// 79-96 ms slice of the sandbox's replay natively (a reference count
    /// to touch per message, twice: the store and the view).
    pub(crate) fn release(&mut self, n: usize) -> bool {
        self.view.release(n) & self.store.release(n)
    }

    /// An engine with these settings; invalid settings are an error (R1.5).
    pub fn new(settings: EngineSettings) -> Result<Self, Error> {
        let lines = Thresholds::compute(&settings.thresholds)?;
        settings.reduction.check()?;
        let settings_breakers = settings.breakers;
        Ok(Engine {
            view: View::new(settings.estimator.clone()),
            lines,
            settings: Arc::new(settings),
            store: Store::new(),
            microcompact: Microcompact::default(),
            pending: Vec::new(),
            view_events: Vec::new(),
            unsent_reduction: None,
            system_tokens: 0,
            hook: None,
            run: None,
            requests: 0,
            compactions: 0,
            cumulative_dropped: 0,
            breakers: Breakers::new(settings_breakers),
            prompts: 0,
            calls: 0,
            reactive: None,
            pinned: KeySet::default(),
            lineage: Vec::new(),
            turn_of: Arc::default(),
            collapse_pending: Vec::new(),
            precompute: None,
            context: Vec::new(),
            clock: None,
        })
    }

    /// Sets the system prompt and tool definitions the host sends with
    /// every call (estimated; they count only when no usage is reported).
    pub fn set_system(&mut self, system: &str) {
        self.system_tokens = self.settings.estimator.text(system);
    }

    /// Registers the context the host holds outside the messages, restored
    /// after each compaction (R7.7): its plan and task list (otherwise the
    /// last `ExitPlanMode` plan and `TodoWrite` list in the view are used),
    /// the content of each skill by name (restored when the view invoked
    /// it), MCP servers' instructions. Replaces what was registered before;
    /// a `file` or `hookOutput` item is an error and changes nothing.
    pub fn set_context(&mut self, items: Vec<ContextItem>) -> Result<(), Error> {
        if let Some((index, item)) = items
            .iter()
            .enumerate()
            .find(|(_, i)| matches!(i.kind, Kind::File | Kind::HookOutput))
        {
            return Err(Error::InvalidContext {
                index,
                kind: item.kind.as_str(),
            });
        }
        self.context = items;
        Ok(())
    }

    /// The system prompt's and tool definitions' estimate, as set by
    /// [`Engine::set_system`] (0 before).
    pub fn system_tokens(&self) -> u64 {
        self.system_tokens
    }

    /// The settings.
    pub fn settings(&self) -> &EngineSettings {
        &self.settings
    }

    /// The lines.
    pub fn lines(&self) -> &Thresholds {
        &self.lines
    }

    /// The store (every message ever appended, unchanged).
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The active view.
    pub fn view(&self) -> &View {
        &self.view
    }

    /// Where the view's tokens go (R3.3), like `/context`.
    pub fn breakdown(&self) -> crate::breakdown::Breakdown {
        crate::breakdown::Breakdown::of(&self.view, self.system_tokens)
    }

    /// The count against the lines now (R1.6).
    pub fn count(&self) -> TokenFigure {
        self.view.count(self.system_tokens)
    }

    /// Appends a summary written before this engine existed (a resumed
    /// session's `isCompactSummary` record): it enters the store, and the
    /// view knows it for a summary, so no tier treats it as an ordinary turn.
    pub fn append_summary(&mut self, message: Message) -> Result<(), Error> {
        let stored = self.store.append(message)?;
        self.note_turn();
        self.microcompact.observe(&stored, &self.settings.microcompact);
        self.view
            .push(stored, Source::Summary { replaces: Vec::new() }, Vec::new());
        Ok(())
    }

    /// Numbers the compactions to come after the `compactions` a resumed
    /// session's file holds ([`Transcript::boundaries`](crate::transcript::Transcript::boundaries)):
    /// the uuids derived for their records are then new to the file, even
    /// when the view is one an earlier engine compacted from (expanded).
    pub fn follow_compactions(&mut self, compactions: u64) {
        self.compactions = self.compactions.max(compactions);
    }

    /// Clears the results answering `tool_ids` as the host's client
    /// already did (a session file's `microcompact_boundary` record names
    /// them): each is replaced by the sentinel (R4.4). Returns the blocks
    /// changed.
    pub fn clear_results_recorded(&mut self, tool_ids: &[String]) -> Vec<BlockRef> {
        self.microcompact
            .clear_recorded(&mut self.view, tool_ids, &self.settings.microcompact)
    }

    /// What snips and collapses did to the view since the last call, in
    /// order: a host that keeps a session file writes a record of each
    /// ([`SessionLog::view_event`](crate::transcript::log::SessionLog::view_event),
    /// R11.6), so a resume shows what the live view does.
    pub fn take_view_events(&mut self) -> Vec<ViewEvent> {
        std::mem::take(&mut self.view_events)
    }

    pub(crate) fn push_view_event(&mut self, event: ViewEvent) {
        self.view_events.push(event);
    }

    /// Notes the turn of the message the store took last.
    fn note_turn(&mut self) {
        let (at, turn) = (self.store.len().saturating_sub(1), self.prompts);
        let turns = Arc::make_mut(&mut self.turn_of);
        if turns.len() <= at {
            turns.resize(at + 1, 0);
        }
        if let Some(slot) = turns.get_mut(at) {
            *slot = turn;
        }
    }

    /// The turn of the stored message `uuid` (0: before the first prompt,
    /// or not one the engine numbered).
    pub(crate) fn turn_of(&self, uuid: &str) -> usize {
        let at = self.store.position(uuid);
        at.and_then(|i| self.turn_of.get(i)).copied().unwrap_or(0)
    }

    /// Makes room for `additional` more messages before a bulk load (no
    /// effect on behaviour; the indices are sized once).
    pub fn reserve(&mut self, additional: usize) {
        self.store.reserve(additional);
        self.view.reserve(additional);
        Arc::make_mut(&mut self.turn_of).reserve(additional);
    }

    /// Appends a message to the store and the view. Oversized tool results
    /// are reduced in the view (R2); the store keeps the original. O(size of
    /// the message).
    pub fn append(&mut self, message: Message) -> Result<(), Error> {
        self.append_shared(Arc::new(message))
    }

    /// [`Engine::append`] of a message shared with its caller (a replay
    /// appends the same messages under many settings).
    pub fn append_shared(&mut self, message: Arc<Message>) -> Result<(), Error> {
        self.append_estimated(message, &mut None)
    }

    /// [`Engine::append_shared`] with the message's estimate kept by the
    /// caller in `known` ([`Estimator::known`]: read when it is this
    /// message's under this engine's rule, else estimated and kept).
    ///
    /// [`Estimator::known`]: crate::tokens::Estimator::known
    pub fn append_estimated(
        &mut self,
        message: Arc<Message>,
        known: &mut Option<crate::tokens::Estimate>,
    ) -> Result<(), Error> {
        let stored = self.store.append_shared(message)?;
        if stored.is_user_prompt() {
            self.prompts += 1;
        }
        self.note_turn();
        if stored.role == crate::message::Role::Assistant {
            self.calls += 1;
            // A reply appended with no call since a result was reduced was
            // written against the original result (R13.1).
            if let Some(at) = self.unsent_reduction.take() {
                self.reply_over_reduction(at, &stored);
            }
        }
        if stored.holds_compaction() {
            self.start_at_compaction(stored);
            return Ok(());
        }
        let estimate = self.view.estimator().known(&stored, known);
        // The count as if the message entered unreduced.
        let before = self.view.count_plus(self.system_tokens, estimate);
        self.microcompact.observe(&stored, &self.settings.microcompact);
        match reduce_message(&stored, &self.settings.reduction) {
            Some((reduced, blocks)) => {
                let at = self.view.len();
                self.unsent_reduction = Some(self.unsent_reduction.map_or(at, |u| u.min(at)));
                let settled: Vec<usize> = blocks.iter().map(|b| b.block).collect();
                self.view.push(Arc::new(reduced), Source::Stored, settled);
                let (counts, settings) = ((before, self.count()), &self.settings.reduction);
                record_step(&mut self.pending, &stored.uuid, &blocks, counts, settings);
            }
            None => self
                .view
                .push_estimated(stored, Source::Stored, Vec::new(), estimate),
        }
        Ok(())
    }

    /// Runs the cascade before a model call (R3.1): budget reduction's
    /// steps, Tier 1 on its own triggers, then Tier 2 while over the compact
    /// line, then the lines' status (R1.7). `now` is the host's clock.
    pub fn before_call(&mut self, now: Option<&Timestamp>) -> Decision {
        if let Some(now) = now {
            self.clock = Some(now.clone());
        }
        let mut steps = std::mem::take(&mut self.pending);
        steps.extend(self.settle_thinking(Tier::BudgetReduction));
        // This call sends what was reduced: replies from now on read it.
        self.unsent_reduction = None;
        let protected = self.protected_tool_ids();
        // An open tool loop under `strip`: no client rewrite before it
        // (R13.1), so no client-side clearing and no snip this call; the
        // server's clearing is exempt and still runs.
        let open_loop = self.open_loop();
        let tier1 = self.microcompact.run(
            &mut self.view,
            &self.settings.microcompact,
            now.filter(|_| open_loop.is_none()),
            self.system_tokens,
            &protected,
        );
        steps.extend(tier1.step);
        steps.extend(self.settle_thinking(Tier::Microcompact));
        // Not under a pending compaction: its prefix is view positions, and
        // it is about to replace those messages anyway.
        if self.settings.snip
            && open_loop.is_none()
            && !self.compacting()
            && self.count().tokens > self.lines.compact
        {
            if let Some(step) = snip(
                &mut self.view,
                self.lines.compact,
                self.system_tokens,
                &self.pinned,
            ) {
                self.microcompact.rebuild(&self.view, &self.settings.microcompact);
                self.view_events.push(ViewEvent::Snipped {
                    removed: step.messages.clone(),
                });
                steps.push(step);
                steps.extend(self.settle_thinking(Tier::Snip));
            }
        }
        self.run_precompute(&mut steps);
        let collapse_blocking = self.run_collapse(&mut steps);
        steps.extend(self.settle_thinking(Tier::Collapse));
        let server = self.settings.api.compaction == crate::api::CompactionMode::Server;
        if server && self.count().tokens > self.lines.compact {
            steps.push(self.server_compaction_step());
        }
        // The compaction's request, found once: nothing below changes it
        // but a compaction started here.
        let mut tier4 = self.tier4_request();
        let mut compaction = tier4.as_ref().map(|_| Progress::Waiting);
        if !server
            && compaction.is_none()
            && self.collapse_pending.is_empty()
            && self.count().tokens > self.lines.compact
            && self.breakers.open().is_none()
        {
            self.breakers.reached_line(self.calls);
            if self.breakers.open().is_none() {
                let started = self.begin(Trigger::Auto, false, None);
                let (more, progress) = tier4::relabel(started, Tier::Compact, self.count());
                steps.extend(more);
                compaction = Some(progress);
                tier4 = self.tier4_request();
            }
        }
        if let (Some(open), true) = (self.breakers.open(), self.count().tokens > self.lines.compact) {
            let count = self.count();
            let (rule, why) = match open {
                Open::Failures => ("R10.1", "consecutive automatic compactions failed"),
                Open::RapidRefill => (
                    "R10.2",
                    "the context refilled right after compacting, three times in a row",
                ),
            };
            steps.push(Step::note(
                Tier::Compact,
                rule,
                Owner::Client,
                Evidence::SourceLocation {
                    location: "cli.readable.js 232845-232876",
                },
                count,
                crate::text::concat3(
                    "automatic compaction is off for this session (",
                    why,
                    "): /compact still works (R10.3)",
                ),
            ));
        }
        let count = self.count();
        let mut status = self.status(count);
        if collapse_blocking && !matches!(status, CallStatus::Blocked { .. }) {
            status = CallStatus::WaitForCollapse {
                pending: self.collapse_pending.len(),
            };
        }
        if let Some(step) = self.status_step(count, &status) {
            steps.push(step);
        }
        let needs = crate::api::Needs {
            clear_tool_uses: tier1.context_management,
            compact: server.then(|| self.compact_edit()),
            clear_thinking: self.settings.api.clear_thinking.clone(),
            drop_block: self.settings.api.thinking == crate::api::ThinkingMode::DropBlock,
            features: self.view.features(),
        };
        let context_management = crate::api::context_management(&needs);
        Decision {
            steps,
            count,
            lines: self.lines.clone(),
            status,
            betas: crate::api::betas(&needs, context_management.as_ref()),
            thinking: needs.drop_block.then(crate::api::ThinkingParams::drop_block),
            context_management,
            cleared_by_client: tier1.cleared_by_client,
            compaction,
            breaker: self.breakers.open(),
            requests: self.requests_after(tier4),
        }
    }

    /// The view's messages with these uuids, borrowed; `None` when one is
    /// not in the view.
    pub(crate) fn messages_of(&self, uuids: &[Uuid]) -> Option<Vec<&Arc<Message>>> {
        // `uuids` are in view order: each is looked for after the last one
        // found (one pass over the view), then from the start.
        let entries = self.view.entries();
        let mut from = 0;
        let mut messages = Vec::with_capacity(uuids.len());
        for u in uuids {
            let i = entries
                .get(from..)
                .and_then(|rest| rest.iter().position(|e| &e.message.uuid == u))
                .map(|i| i + from)
                .or_else(|| self.view.position(u))?;
            messages.push(&entries.get(i)?.message);
            from = i + 1;
        }
        Some(messages)
    }

    /// A summary request for the view messages named by `uuids` (in order),
    /// asked of model `model` in the chain; `None` when one of them has left
    /// the view.
    pub(crate) fn request_for(
        &self,
        id: u64,
        purpose: crate::compact::Purpose,
        uuids: &[Uuid],
        prompt: String,
        model: usize,
    ) -> Option<crate::compact::SummaryRequest> {
        let messages: Vec<Message> = self
            .messages_of(uuids)?
            .into_iter()
            .map(|m| m.as_ref().clone())
            .collect();
        // A request that does not start where the view starts (a collapse
        // segment, a truncated prefix) changes every thinking block's
        // prefix: they go, unless the host keeps them (R13.1).
        let start = uuids
            .first()
            .and_then(|u| self.view.position(u))
            .unwrap_or(usize::MAX);
        let messages = crate::api::plain::plain(self.thinking_safe(start, messages));
        let (model, fallback_models) = self.chain_from(model);
        let estimated_tokens = self.system_tokens
            + messages
                .iter()
                .map(|m| self.settings.estimator.message(m))
                .sum::<u64>()
            + self.settings.estimator.text(&prompt);
        Some(crate::compact::SummaryRequest {
            id,
            purpose,
            model,
            fallback_models,
            messages: messages.into(),
            prompt: prompt.into(),
            estimated_tokens,
            attempt: 1,
            tool_choice: crate::compact::ToolChoice::None,
        })
    }

    /// `tool_use_id`s used or answered by pinned messages.
    fn protected_tool_ids(&self) -> KeySet<String> {
        self.pinned
            .iter()
            .filter_map(|uuid| self.store.get_text(uuid))
            .flat_map(|m| {
                m.tool_use_ids()
                    .chain(m.tool_result_ids())
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// Model replies appended so far: the breakers' turns (R10.2).
    pub(crate) fn calls_seen(&self) -> usize {
        self.calls
    }
}
