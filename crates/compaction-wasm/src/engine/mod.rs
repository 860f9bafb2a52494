//! `Engine`: one agent session's compaction engine, for JS.
//!
//! ```ts
//! const engine = new Engine({ preset: "seed", window: 200_000 });
//! engine.append({ role: "user", content: "Refactor utils.py" });
//! const decision = await engine.prepare({ summarize: async (request) => callModel(request) });
//! await client.beta.messages.create({ messages: engine.messages(), context_management: decision.contextManagement ?? undefined, … });
//! ```

use std::cell::{Cell, RefCell};

use compaction_core::compact as core_compact;
use compaction_core::engine::Engine as CoreEngine;
use compaction_core::engine::EngineSettings as CoreSettings;
use compaction_core::message::{Content, Message, Role, Usage, Uuid};
use compaction_core::time::Timestamp;
use compaction_core::transcript::log::SessionLog;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::dto::{self, Decision, Progress};
use crate::error::{js_error, At, ENGINE_BUSY, ENGINE_POISONED, INVALID_ARGUMENT};
use crate::input;
use crate::js::{opt_text, text};
pub(crate) use crate::settings::read_settings;
use crate::thresholds::Thresholds;

pub(crate) use crate::js::{string_fields, to_js};

/// `promptTooLong`'s `tokens`: a whole number from 1 to 2^53 − 1.
fn read_tokens(tokens: &JsValue) -> Result<u64, JsValue> {
    match tokens.as_f64() {
        Some(t) if t.fract() == 0.0 && (1.0..=9_007_199_254_740_991.0).contains(&t) => Ok(t as u64),
        _ => Err(js_error(
            INVALID_ARGUMENT,
            "tokens",
            "tokens must be a whole number of tokens from 1 to 2^53 - 1, or null",
        )),
    }
}

/// The compaction engine for one agent session (sans-IO: it never calls a
/// model; it says what to send and what to ask).
#[wasm_bindgen]
pub struct Engine {
    shared: Shared,
}

/// An engine's state and whether a `prepare()` is pending on it. No JS
/// code runs while the state is borrowed (arguments are read before, host
/// callbacks between borrows), so a borrow found held can only be one a
/// trap left behind: the engine is poisoned, never "busy".
pub(crate) struct Shared {
    pub(crate) state: RefCell<State>,
    pub(crate) preparing: Cell<bool>,
    /// The pending `prepare()` (between its steps).
    pub(crate) run: Cell<Option<crate::driver::Run>>,
}

impl Engine {
    /// Runs `f` on the state for a call that may change it: refused while
    /// a `prepare()` is pending.
    fn with<T>(&self, f: impl FnOnce(&mut State) -> Result<T, JsValue>) -> Result<T, JsValue> {
        let mut state = self.enter()?;
        // The host's countTokens failing while `f` counted is the host's error.
        let out = crate::counter::checked(f(&mut state));
        leave(&mut state);
        out
    }

    /// [`Engine::with`]'s start, one copy whatever `f` is: the state,
    /// unless poisoned or a `prepare()` is pending.
    #[inline(never)]
    fn enter(&self) -> Result<std::cell::RefMut<'_, State>, JsValue> {
        let state = borrow(&self.shared)?;
        if self.shared.preparing.get() {
            return Err(busy());
        }
        Ok(state)
    }

    /// Runs `f` on the state for a call that only reads it (also while a
    /// `prepare()` is pending: a host callback may look).
    fn read<T>(&self, f: impl FnOnce(&mut State) -> Result<T, JsValue>) -> Result<T, JsValue> {
        let mut state = borrow(&self.shared)?;
        crate::counter::checked(f(&mut state))
    }
}

/// [`Engine::with`]'s end, one copy whatever its `f` was: the view's events
/// and the counting logged.
#[inline(never)]
fn leave(state: &mut State) {
    state.log_view_events();
    state.log_counting();
}

fn busy() -> JsValue {
    js_error(
        ENGINE_BUSY,
        "",
        "the engine is busy: a prepare() on it is pending (a host callback is running or awaited); only reads (messages, view, count, lines, pinned, records, plan) are taken until that promise settles",
    )
}

/// The error of every call on an engine a trap stopped half way.
pub(crate) fn poisoned() -> JsValue {
    js_error(
        ENGINE_POISONED,
        "",
        "this engine stopped in the middle of a call (the shared wasm memory ran out, or the module trapped), so its state can no longer be trusted: free() it and create a new Engine (loadSession of the records you saved resumes the session)",
    )
}

#[wasm_bindgen(typescript_custom_section)]
const PREPARE_TYPES: &str = r#"
/** What `prepare(host)` asks of you: the I/O the engine never does itself. */
export interface Host {
    /** A summary (a compaction's, a Tier 3 segment's, the precompute's:
     * `request.purpose`): send `request.messages`, then `request.prompt` as
     * a user message, to `request.model`, and return the reply's text (or
     * an `Answer` such as `{ kind: "offline" }`). A throw or rejection moves
     * to the next model of the chain, each model at most once; when none is
     * left `prepare()` rejects with `code` `SUMMARIZER_FAILED` and your
     * error as `cause`. */
    summarize: (request: SummaryRequest) => Promise<string | Answer> | string | Answer;
    /** Reads the files the engine wants to re-attach after a compaction:
     * one `{ path, content }` or `{ path, error }` per path. Without it no
     * file is re-attached. A throw rejects `prepare()` (`READ_FILES_FAILED`). */
    readFiles?: (paths: string[]) => Promise<FileAnswer[]> | FileAnswer[];
    /** Your PreCompact hooks, before every compaction (manual, automatic
     * and reactive alike): return `{ block }` to block it, `{ addedInstructions }`
     * to add to the summary prompt, nothing to allow. A throw rejects
     * `prepare()` (`PRE_COMPACT_FAILED`). */
    preCompact?: (request: PreCompactRequest) => Promise<HookOutcome | undefined | void> | HookOutcome | undefined | void;
    /** What your post-compact hooks printed, when the settings ask for it. */
    postCompactHooks?: () => Promise<HookOutput[]> | HookOutput[];
    /** The host's clock (RFC 3339); lets the time-based microcompact see idle gaps. */
    now?: string;
    /** Ask for the background precompute summary (SPEC R9.1; default
     * true): when a preparation leaves one pending, `summarize` is called
     * for it after `prepare()` resolved, never awaited by it; the next
     * `prepare()` takes its answer, and a later compaction reuses it. Its
     * failure fails no call: that precompute is dropped (a step of the
     * next decision says so), `onPrecompute` gets the error, and none is
     * asked for again until a compaction ran. Pass
     * `false` when the engine does not outlive the request (a stateless
     * route): nothing would be left to take the answer. */
    precompute?: boolean;
    /** Told when a background precompute's `summarize` settled: `ok`, or
     * the error it threw (reported here, never thrown by `prepare()`). */
    onPrecompute?: (settled: PrecomputeSettled) => void;
}

/** A background precompute's `summarize` settled (`Host.onPrecompute`). */
export type PrecomputeSettled = { id: number; ok: true } | { id: number; ok: false; error: unknown };

export interface Engine {
    /** Runs the cascade before a model call and answers every request it
     * makes through `host` (a compaction with its PreCompact hooks,
     * summary, fallbacks and files; Tier 3 segments) until nothing is
     * pending but the precompute, which runs in the background
     * (`Host.precompute`): the async twin of the engine's `drive`, and the
     * binding's only request loop. Resolves to the last decision with every
     * step taken. Then send `messages()`. Throws at once (`ENGINE_BUSY`,
     * `INVALID_ARGUMENT`, `ENGINE_POISONED`) when it cannot start; a wasm
     * trap in any of its steps rejects with `ENGINE_POISONED`. */
    prepare(host: Host): Promise<Decision>;
}
"#;

#[wasm_bindgen]
impl Engine {
    /// A new engine. `settings` is a preset name (`"seed"`,
    /// `"client-2.1"`, `"newer-client"`) or an `EngineSettings` object;
    /// default: the seed preset with a 200,000-token window.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "EngineSettings | PresetName")] settings: Option<
            JsValue,
        >,
    ) -> Result<Engine, JsValue> {
        let settings_js = settings.unwrap_or(JsValue::UNDEFINED);
        let (mut settings, session, counter) = read_settings(&settings_js)?;
        let formatted = crate::format::read_format(&settings_js, &mut settings)?;
        let mut state = State::new(settings, session)?;
        state.formatted = formatted;
        state.counter = counter;
        Ok(Engine {
            shared: Shared {
                state: RefCell::new(state),
                preparing: Cell::new(false),
                run: Cell::new(None),
            },
        })
    }

    /// Whether a call a trap stopped left this engine's state borrowed
    /// (for the package's guard, which says `ENGINE_POISONED` then).
    #[wasm_bindgen(js_name = __poisoned, skip_typescript)]
    pub fn poisoned(&self) -> bool {
        self.shared.state.try_borrow_mut().is_err()
    }

    /// Sets the system prompt (and tool definitions, as text) sent with
    /// every call; it counts while no usage is reported.
    #[wasm_bindgen(js_name = setSystem)]
    pub fn set_system(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] system: JsValue,
    ) -> Result<(), JsValue> {
        let system = text(&system, "system", false)?;
        self.with(|s| {
            s.engine.set_system(&system);
            Ok(())
        })
    }

    /// Appends a history given as a JSON string: an array of messages, or
    /// an API request body `{ system?, messages }` (its system prompt is
    /// set too). Parsed inside wasm, in one pass: the fast path for bulk
    /// loads. Returns how many messages were appended.
    #[wasm_bindgen(js_name = loadJson)]
    pub fn load_json(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] json: JsValue,
    ) -> Result<usize, JsValue> {
        let json = text(&json, "json", true)?;
        self.with(|s| s.load_json(json))
    }

    /// Runs the cascade before a model call (tiers 1–4, statuses) and
    /// returns the decision: steps, count, status, `contextManagement` to
    /// send, and any summary requests to answer. Then send `messages()`.
    #[wasm_bindgen(js_name = beforeCall, unchecked_return_type = "Decision")]
    pub fn before_call(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "string | null")] now: JsValue,
    ) -> Result<JsValue, JsValue> {
        let now = opt_text(&now, "now")?;
        self.with(|s| {
            let now = s.now(now)?;
            let mut d = s.engine.before_call(now.as_ref());
            let requests = std::mem::take(&mut d.requests);
            let d = s.decision(d);
            s.crossing.cross(d, requests)
        })
    }

    /// What `beforeCall` would decide now, changing nothing (a dry run).
    #[wasm_bindgen(unchecked_return_type = "Decision")]
    pub fn plan(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "string | null")] now: JsValue,
    ) -> Result<JsValue, JsValue> {
        let now = opt_text(&now, "now")?;
        self.read(|s| {
            let now = read_now(now)?;
            // A dry run logs nothing.
            let d = convert_decision(s.engine.plan(now.as_ref()), dry_progress);
            to_js(&d)
        })
    }

    /// Answers the pending request `id` (any kind: see `Request`): the
    /// model's text as a string, or an `Answer`. A wrong id is an `Error`
    /// with `code` `UNKNOWN_REQUEST`, an answer of the wrong kind
    /// `WRONG_ANSWER`; either way nothing changes.
    #[wasm_bindgen(unchecked_return_type = "Outcome")]
    pub fn answer(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string | Answer")] answer: JsValue,
    ) -> Result<JsValue, JsValue> {
        let id = read_id(&id)?;
        let answer = read_answer(&answer)?;
        self.with(|s| {
            let out = s.engine.answer(id, answer).at("id")?;
            to_js(&s.outcome(out))
        })
    }

    /// The messages to send now, as the API takes them (`role`, `content`),
    /// or in the engine's `format`: there, every item no tier touched is
    /// the very object you gave.
    #[wasm_bindgen(unchecked_return_type = "MessageParam[]")]
    pub fn messages(&self) -> Result<JsValue, JsValue> {
        self.read(|s| s.messages_js())
    }

    /// The view with the engine's fields (`uuid`, `timestamp`, `usage`).
    #[wasm_bindgen(unchecked_return_type = "Message[]")]
    pub fn view(&self) -> Result<JsValue, JsValue> {
        self.read(|s| {
            let list: Vec<&Message> = s.engine.view().sent_messages().collect();
            to_js(&list)
        })
    }

    /// The count now (SPEC R1.6).
    #[wasm_bindgen(unchecked_return_type = "TokenFigure")]
    pub fn count(&self) -> Result<JsValue, JsValue> {
        self.read(|s| to_js(&s.engine.count()))
    }

    /// The lines the count is held against.
    #[wasm_bindgen(unchecked_return_type = "Thresholds")]
    pub fn lines(&self) -> Result<JsValue, JsValue> {
        self.read(|s| to_js(&Thresholds::from(s.engine.lines().clone())))
    }

    /// Every transcript record so far, as JSONL lines in Claude Code's
    /// shape: one per appended message, and a compaction's
    /// `compact_boundary`, summary and attachments. Written to a file, they
    /// resume with `readSession` and `loadSession`.
    pub fn records(&self) -> Result<Vec<String>, JsValue> {
        self.read(|s| Ok(s.records()))
    }

    /// The records written since the last `takeRecords()` (append them to
    /// the session file).
    #[wasm_bindgen(js_name = takeRecords)]
    pub fn take_records(&self) -> Result<Vec<String>, JsValue> {
        self.with(|s| Ok(s.take_records()))
    }

    /// Loads a session (from `readSession` or a `SessionImporter`, in the
    /// `context-compaction/session` module) into this new engine: its
    /// resumed view (the last boundary's summary, the preserved messages,
    /// what followed). Records the engine writes next continue the file's
    /// chain and session id. Returns the file's report (its problems
    /// included: bad lines are reported, never fatal).
    #[wasm_bindgen(js_name = loadSession, unchecked_return_type = "SessionLoad")]
    pub fn load_session(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Session")] session: JsValue,
    ) -> Result<JsValue, JsValue> {
        let session = input::session_from_js(&session)?;
        self.with(|s| s.load_session(session))
    }

    /// `prepare(host)`'s start (its loop is `js/guard.js`'s): checks the
    /// engine and `host` and begins a preparation. Throws at once when
    /// poisoned, busy, or `host` is wrong.
    #[wasm_bindgen(js_name = __prepareStart, skip_typescript)]
    pub fn prepare_start(&self, host: JsValue) -> Result<(), JsValue> {
        drop(borrow(&self.shared)?);
        if self.shared.preparing.get() {
            return Err(busy());
        }
        let host = crate::driver::JsHost::read(&host)?;
        // Validate `now` before anything runs.
        read_now(host.now.clone())?;
        let run = crate::driver::Run::start(&self.shared, host)?;
        self.shared.run.set(Some(run));
        self.shared.preparing.set(true);
        Ok(())
    }

    /// One step of the pending `prepare()`: `ok`/`value` is the outcome of
    /// the callback the last step asked for (what it resolved to, or what
    /// it threw). Returns `[callback, argument]` to call next, or
    /// `[decision]` when done; an error rejects `prepare()` and ends it.
    #[wasm_bindgen(js_name = __prepareStep, skip_typescript)]
    pub fn prepare_step(&self, ok: bool, value: JsValue) -> Result<js_sys::Array, JsValue> {
        let Some(mut run) = self.shared.run.take() else {
            return Err(js_error(
                crate::error::ENGINE_ERROR,
                "",
                "no prepare() is pending on this engine",
            ));
        };
        let outcome = if ok { Ok(value) } else { Err(value) };
        // The host's countTokens failing in a step is its error.
        let next = crate::counter::checked(run.step(&self.shared, outcome));
        if let Ok(mut state) = borrow(&self.shared) {
            leave(&mut state);
        }
        match next {
            Ok(crate::driver::Next::Call(f, arg)) => {
                self.shared.run.set(Some(run));
                Ok(js_sys::Array::of2(&f, &arg))
            }
            Ok(crate::driver::Next::Done(decision, None)) => {
                self.shared.preparing.set(false);
                Ok(js_sys::Array::of1(&decision))
            }
            Ok(crate::driver::Next::Done(decision, Some(b))) => {
                self.shared.preparing.set(false);
                let report = b.report.map_or(JsValue::UNDEFINED, JsValue::from);
                Ok(js_sys::Array::of5(
                    &decision,
                    &b.summarize,
                    &b.request,
                    &JsValue::from_f64(b.id as f64),
                    &report,
                ))
            }
            Err(e) => {
                self.shared.preparing.set(false);
                Err(e)
            }
        }
    }
}

#[wasm_bindgen]
impl Engine {
    /// The background precompute request `id` that `prepare()` started
    /// settled (`ok`: resolved to `value`; else threw `value`): kept for
    /// the next `prepare()`, also while one is pending.
    #[wasm_bindgen(js_name = __precomputeSettled, skip_typescript)]
    pub fn precompute_settled(&self, id: f64, ok: bool, value: JsValue) -> Result<(), JsValue> {
        let outcome = if ok { Ok(value) } else { Err(value) };
        borrow(&self.shared)?.precompute.settled(id as u64, outcome);
        Ok(())
    }
}

impl Engine {
    /// `append(message)`, with the usage reported for it (read beforehand).
    fn append_with(&self, message: &JsValue, usage: Option<Usage>) -> Result<String, JsValue> {
        if self.read(|s| Ok(s.formatted.is_some()))? {
            // Written as JSON before the engine is borrowed (a getter may call back).
            let json = crate::js::json_text(message, "message")?;
            return self.with(|s| {
                s.append_formatted_json(&json, message, "message", usage)
                    .map(|u| u.0)
            });
        }
        let message = input::read_js(message, "message")?;
        self.append_new(Appended::Read(message, usage))
    }

    /// Appends one message read beforehand: the one borrow of the state
    /// both `append` paths share (one copy of it in the module).
    #[inline(never)]
    fn append_new(&self, message: Appended) -> Result<String, JsValue> {
        self.with(|s| {
            match message {
                Appended::Read(message, usage) => s.append_read(message, "message", usage),
                #[cfg(not(feature = "formats"))]
                Appended::Text(role, content) => s.append_text(role, content),
            }
            .map(|u| u.0)
        })
    }

    /// `load(messages)`, with the usage reported for the model reply among
    /// them (read beforehand).
    fn load_with(&self, messages: &JsValue, usage: Option<Usage>) -> Result<usize, JsValue> {
        let Some(list) = crate::js::array(messages, "messages", crate::js::MAX_LIST)? else {
            return Err(js_error(
                INVALID_ARGUMENT,
                "messages",
                &format!("messages must be an array, got {}", crate::js::kind(messages)),
            ));
        };
        match js_sys::JSON::stringify(&list)
            .ok()
            .and_then(|json| json.as_string())
        {
            Some(json) => self.with(|s| s.load_text(json, Some(list.clone()), usage)),
            // Not writable as JSON (a BigInt, a cycle): one by one, so the
            // error names the message at fault.
            None if self.read(|s| Ok(s.formatted.is_some()))? => Err(js_error(
                crate::error::INVALID_MESSAGE,
                "messages",
                "messages is not writable as JSON (a BigInt, a cycle): a format reads its items as JSON",
            )),
            None => {
                let read = read_each(&list)?;
                self.with(|s| s.append_all_read(read, usage))
            }
        }
    }
}

mod args;
mod edit;
#[cfg(feature = "formats")]
mod formatted;
mod on_demand;
#[cfg(not(feature = "formats"))]
mod plain;
mod state;

/// A message `append` read, to append.
enum Appended {
    /// Read from a message object, with the usage reported beside it.
    Read(input::Read, Option<Usage>),
    /// `{ role, content }` with a string content, read by guard.js.
    #[cfg(not(feature = "formats"))]
    Text(Role, String),
}

/// `load`'s messages one at a time (each read through `JSON.stringify`,
/// so a value JSON cannot hold is an error naming its message), before the
/// state is borrowed.
fn read_each(list: &js_sys::Array) -> Result<Vec<input::Read>, JsValue> {
    list.iter()
        .enumerate()
        .map(|(i, item)| input::read_js(&item, &format!("messages[{i}]")))
        .collect()
}

pub(crate) use args::{answer_from_js, read_files, read_hook, read_hooks};
use args::{read_answer, read_id};
#[cfg(feature = "formats")]
pub(crate) use state::no_reply;
pub(crate) use state::{borrow, State};
use state::{convert_decision, dry_progress, read_now};
