//! The state behind one JS `Engine`: the core engine, the transcript log
//! (records to persist), and the conversions of its answers into DTOs.

use super::*;
use crate::error::JsErr;
use compaction_core::message::Usage;
use compaction_core::transcript::counted::Restorer;

/// An optional RFC 3339 time argument.
pub(super) fn read_now(now: Option<String>) -> Result<Option<Timestamp>, JsValue> {
    match now {
        None => Ok(None),
        Some(text) => Timestamp::parse(&text).map(Some).ok_or_else(|| {
            js_error(
                INVALID_ARGUMENT,
                "now",
                &format!("now: \"{text}\" is not an RFC 3339 timestamp like \"2026-11-30T12:00:00Z\""),
            )
        }),
    }
}

/// The state behind one JS `Engine`.
pub(crate) struct State {
    pub(crate) engine: CoreEngine,
    /// The records to persist, and the uuids of messages without one.
    pub(super) log: SessionLog,
    /// The host's latest clock reading (records get it as their time).
    pub(super) last_now: Option<Timestamp>,
    /// The host's `countTokens`, kept while the engine lives.
    pub(crate) counter: Option<crate::counter::CounterSlot>,
    /// The history's format, when it is not Anthropic's (`settings.format`).
    pub(crate) formatted: Option<crate::format::Formatted>,
    /// The background precompute (SPEC R9.1) `prepare()` started last, and
    /// what the host's summariser gave for it once it settled: the next
    /// `prepare()` answers the engine with it (never awaited inside one).
    pub(crate) precompute: crate::driver::Background,
    /// What the count rested on at the last `count_calibrated` record (or
    /// the start): a change writes the next one.
    pub(crate) counted: compaction_core::view::Counting,
    /// The last decision handed out, to cross the next one as a copy.
    pub(crate) crossing: crate::js::crossing::Crossing,
}

impl State {
    pub(crate) fn new(settings: CoreSettings, session_id: String) -> Result<Self, JsErr> {
        Ok(State {
            engine: CoreEngine::new(settings)?,
            log: SessionLog::new(session_id),
            last_now: None,
            counter: None,
            formatted: None,
            precompute: crate::driver::Background::default(),
            counted: compaction_core::view::Counting::default(),
            crossing: Default::default(),
        })
    }

    pub(crate) fn append(&mut self, message: Message, field: &str) -> Result<Uuid, JsValue> {
        self.append_named(message, || field.to_owned())
    }

    /// `append`, naming the field only if it fails (a bulk load appends
    /// thousands).
    pub(super) fn append_named(
        &mut self,
        message: Message,
        field: impl FnOnce() -> String,
    ) -> Result<Uuid, JsValue> {
        let uuid = message.uuid.clone();
        self.engine.append(message).at(&field())?;
        self.log.appended(uuid.clone());
        Ok(uuid)
    }

    /// Appends a JSON string of messages; all or nothing (checked before any
    /// enters the engine, except a duplicate uuid, found on append).
    pub(crate) fn load_json(&mut self, json: String) -> Result<usize, JsValue> {
        self.load_text(json, None, None)
    }

    /// `load_json`, with the array the text was written from (a format's
    /// untouched items come back as those very objects) and the usage
    /// reported for the model reply among them. The text is freed once
    /// read, before the messages enter the engine: a bulk load never holds
    /// the text and the engine's copies at once.
    pub(crate) fn load_text(
        &mut self,
        json: String,
        objects: Option<js_sys::Array>,
        usage: Option<Usage>,
    ) -> Result<usize, JsValue> {
        if let Some(f) = &self.formatted {
            let mut incoming = f.read(&json, objects)?;
            drop(json);
            if let Some(usage) = usage {
                incoming.report(usage)?;
            }
            return self.append_formatted(incoming);
        }
        let mut maker = self.log.uuids.clone();
        let store = self.engine.store();
        let (system, mut messages) = input::from_json(json, || maker.make(|u| store.get(u).is_some()), "")?;
        report(&mut messages, usage)?;
        self.no_duplicates(&messages)?;
        self.log.uuids = maker;
        if let Some(system) = system {
            self.engine.set_system(&system);
        }
        self.append_checked(messages)
    }

    /// Appends messages read beforehand ([`input::read_js`]); all or
    /// nothing. `usage`: reported for the model reply among them.
    pub(crate) fn append_all_read(
        &mut self,
        read: Vec<input::Read>,
        usage: Option<Usage>,
    ) -> Result<usize, JsValue> {
        let mut maker = self.log.uuids.clone();
        let store = self.engine.store();
        let mut messages = Vec::with_capacity(read.len());
        for (i, r) in read.into_iter().enumerate() {
            let (m, _) = r.into_message(&format!("messages[{i}]"), || {
                maker.make(|u| store.get(u).is_some())
            })?;
            messages.push(m);
        }
        report(&mut messages, usage)?;
        self.log.uuids = maker;
        self.append_all(messages)
    }

    /// Appends messages checked beforehand, the uuid indices sized once;
    /// returns how many.
    pub(super) fn append_all(&mut self, messages: Vec<Message>) -> Result<usize, JsValue> {
        self.no_duplicates(&messages)?;
        self.append_checked(messages)
    }

    /// Refuses a batch with a uuid the store holds, or one given twice.
    fn no_duplicates(&self, messages: &[Message]) -> Result<(), JsValue> {
        // A duplicate uuid (in the store, or twice in the batch) is found
        // before any message enters: the batch is all or nothing.
        // Sorted as `pinned()` sorts, as Strings (one sort in the module,
        // not two).
        let mut sorted: Vec<String> = messages.iter().map(|m| m.uuid.0.clone()).collect();
        sorted.sort();
        let twice = sorted.windows(2).find(|w| w[0] == w[1]).and_then(|w| {
            // Its second place in the batch.
            let mut places = messages.iter().enumerate().filter(|(_, m)| m.uuid.0 == w[0]);
            places.nth(1).map(|(i, m)| (m.uuid.0.as_str(), i))
        });
        let held = || {
            messages
                .iter()
                .position(|m| self.engine.store().get(&m.uuid).is_some())
                .map(|i| (messages[i].uuid.0.as_str(), i))
        };
        if let Some((uuid, i)) = held().into_iter().chain(twice).min_by_key(|(_, i)| *i) {
            let field = format!("messages[{i}]");
            return Err(js_error(
                crate::error::DUPLICATE_UUID,
                &compaction_core::concat(&field, ".uuid"),
                &format!(
                    "{field}.uuid: duplicate message uuid `{}`: the engine already holds a message with it (nothing was loaded)",
                    crate::js::cut(uuid, 80)
                ),
            ));
        }
        Ok(())
    }

    /// [`State::append_all`] of a batch [`State::no_duplicates`] passed.
    fn append_checked(&mut self, messages: Vec<Message>) -> Result<usize, JsValue> {
        let n = messages.len();
        self.engine.reserve(n);
        for (i, m) in messages.into_iter().enumerate() {
            self.append_named(m, || format!("messages[{i}]"))?;
        }
        Ok(n)
    }

    /// Appends one message object.
    pub(crate) fn append_js(&mut self, message: &JsValue, field: &str) -> Result<Uuid, JsValue> {
        if self.formatted.is_some() {
            let json = crate::js::json_text(message, field)?;
            return self.append_formatted_json(&json, message, field, None);
        }
        self.append_read(input::read_js(message, field)?, field, None)
    }

    /// Appends one item of the engine's format, written as JSON beforehand.
    pub(crate) fn append_formatted_json(
        &mut self,
        json: &str,
        message: &JsValue,
        field: &str,
        usage: Option<Usage>,
    ) -> Result<Uuid, JsValue> {
        let Some(f) = &self.formatted else {
            return Err(js_error(INVALID_ARGUMENT, field, "this engine has no format"));
        };
        let mut incoming = f.read_one(json, message, field)?;
        if let Some(usage) = usage {
            incoming.report(usage)?;
        }
        self.append_formatted(incoming)?;
        // A leading system message has no uuid: the system prompt's is "".
        Ok(self.log.parent().cloned().unwrap_or_else(|| Uuid(String::new())))
    }

    /// Appends one message read beforehand ([`input::read_js`]), with the
    /// usage reported for it.
    pub(crate) fn append_read(
        &mut self,
        message: input::Read,
        field: &str,
        usage: Option<Usage>,
    ) -> Result<Uuid, JsValue> {
        let mut maker = self.log.uuids.clone();
        let store = self.engine.store();
        let (mut m, applied) = message.into_message(field, || maker.make(|u| store.get(u).is_some()))?;
        report(std::slice::from_mut(&mut m), usage)?;
        self.log.uuids = maker;
        let uuid = self.append(m, field)?;
        // A response's applied edits replace the view's prediction; the
        // next decision reports a difference (R13.4).
        if !applied.is_empty() {
            self.engine.applied_edits(&applied);
        }
        Ok(uuid)
    }

    /// Appends a message of plain text (`append`'s fast path, plain.rs):
    /// what [`State::append_read`] makes of `{ role, content }` with a
    /// string content, its uuid the next one made.
    #[cfg(not(feature = "formats"))]
    pub(crate) fn append_text(&mut self, role: Role, content: String) -> Result<Uuid, JsValue> {
        let store = self.engine.store();
        let uuid = self.log.uuids.make(|u| store.get(u).is_some());
        self.append(Message::new(uuid.0, role, Content::Text(content)), "message")
    }

    /// Appends messages a format converted, each with a fresh uuid.
    fn append_formatted(&mut self, incoming: crate::format::Incoming) -> Result<usize, JsValue> {
        let Some(mut f) = self.formatted.take() else {
            return Ok(0);
        };
        let n = incoming.messages();
        let mut maker = self.log.uuids.clone();
        let store = self.engine.store();
        let uuids: Vec<Uuid> = (0..n).map(|_| maker.make(|u| store.get(u).is_some())).collect();
        self.log.uuids = maker;
        self.engine.reserve(n);
        let now = self.last_now.clone();
        let result = f.take(incoming, now.as_ref(), uuids, |piece| match piece {
            crate::format::Piece::System(text) => {
                self.engine.set_system(text);
                Ok(())
            }
            crate::format::Piece::Message(m) => self.append_named(m, || "messages".to_owned()).map(|_| ()),
        });
        self.formatted = Some(f);
        result
    }

    /// The messages to send, in the engine's format.
    pub(crate) fn messages_js(&self) -> Result<JsValue, JsValue> {
        let view = self.engine.view().sent_messages();
        match &self.formatted {
            Some(f) => {
                let store = self.engine.store();
                f.export(view, |u| store.get(u).map(|m| &**m))
            }
            None => {
                let list: Vec<ParamRef> = view
                    .map(|m| ParamRef {
                        role: m.role,
                        content: &m.content,
                        extra: &m.extra,
                    })
                    .collect();
                to_js(&list)
            }
        }
    }

    pub(crate) fn now(&mut self, now: Option<String>) -> Result<Option<Timestamp>, JsValue> {
        let now = read_now(now)?;
        if now.is_some() {
            self.last_now.clone_from(&now);
        }
        Ok(now)
    }

    /// The time a record written now gets ([`record_time`]).
    fn record_time(&self) -> Timestamp {
        record_time(&self.last_now)
    }

    pub(crate) fn decision(&mut self, d: compaction_core::engine::Decision) -> Decision {
        convert_decision(d, |p| self.progress(p))
    }

    /// Logs a finished compaction's records (with the restored attachments
    /// now in the view) and returns them.
    pub(crate) fn log_compaction(&mut self, result: &core_compact::Compacted) -> Vec<String> {
        // Its own restored messages: the view may hold a later compaction's.
        let attachments = &result.restored;
        let timestamp = self.record_time();
        self.log.compacted(result, attachments, timestamp)
    }

    /// Logs the records of each snip and collapse since the last call
    /// (SPEC R11.6), so a resume of the file shows what the live view does.
    pub(crate) fn log_view_events(&mut self) {
        for event in self.engine.take_view_events() {
            let timestamp = self.record_time();
            self.log.view_event(&event, timestamp);
        }
    }

    /// Logs what the count rests on when it changed since the last record
    /// (SPEC R11.6: `count_calibrated`), after the view's last message, so
    /// a resume of the file counts as this engine does.
    pub(crate) fn log_counting(&mut self) {
        let now = &self.last_now;
        self.log
            .count_changed(&self.engine, &mut self.counted, || record_time(now));
    }

    /// Logs a pin or unpin of `uuid` (SPEC R11.6) when it changed anything.
    pub(crate) fn log_pinned(&mut self, uuid: &Uuid, pinned: bool) {
        let timestamp = self.record_time();
        self.log.pinned(uuid, pinned, timestamp);
    }

    /// Logs an expanded compaction's record (SPEC R11.5; a collapse writes
    /// none).
    pub(crate) fn log_expanded(&mut self, summary: &Uuid) {
        let timestamp = self.record_time();
        self.log.expanded(summary, timestamp);
    }

    /// A preparation's result in JS terms: every compaction it finished is
    /// logged, in order; the decision's is the last of them.
    pub(crate) fn prepared(&mut self, prepared: compaction_core::engine::Prepared) -> Decision {
        let mut records = Vec::new();
        for result in &prepared.compacted {
            records = self.log_compaction(result);
        }
        convert_decision(prepared.decision, |p| match p {
            core_compact::Progress::Compacted { result } => Progress::Compacted { result, records },
            other => dry_progress(other),
        })
    }

    /// Converts a compaction's progress; a finished one is logged as
    /// transcript records.
    pub(crate) fn progress(&mut self, p: core_compact::Progress) -> Progress {
        match p {
            core_compact::Progress::Compacted { result } => {
                let records = self.log_compaction(&result);
                Progress::Compacted { result, records }
            }
            // Everything else converts as in a dry run.
            other => dry_progress(other),
        }
    }

    /// An engine outcome in JS terms; a finished compaction is logged.
    pub(crate) fn outcome(&mut self, out: compaction_core::engine::Outcome) -> dto::Outcome {
        dto::Outcome {
            steps: out.steps,
            requests: out.requests.into_iter().map(dto::Request::from_core).collect(),
            compaction: out.compaction.map(|p| self.progress(p)),
        }
    }

    /// Every record so far.
    pub(super) fn records(&self) -> Vec<String> {
        self.log.records(self.engine.store())
    }

    /// The records written since the last `take_records`.
    pub(super) fn take_records(&mut self) -> Vec<String> {
        self.log.take(self.engine.store())
    }

    /// Loads a resumed session's view (SPEC R11.2).
    pub(super) fn load_session(&mut self, session: input::SessionIn) -> Result<JsValue, JsValue> {
        if !self.engine.store().is_empty() {
            return Err(js_error(
                INVALID_ARGUMENT,
                "session",
                "session: load a session into a new engine (this one already holds messages)",
            ));
        }
        let n = session.messages.len();
        self.engine.reserve(n);
        // The file's count basis holds from the message its record followed.
        let counting = Restorer::start(
            session.counting.as_ref(),
            session.messages.iter().map(|(m, _)| &m.uuid),
            &mut self.engine,
        );
        for (i, (m, is_compact_summary)) in session.messages.into_iter().enumerate() {
            self.log.uuids.follow(m.uuid.as_str());
            let result = if is_compact_summary {
                self.engine.append_summary(m)
            } else {
                self.engine.append(m)
            };
            result.at(&format!("session.messages[{i}]"))?;
            counting.loaded(i, &mut self.engine);
        }
        // What the file says now: the records written next start from it.
        self.counted = self.engine.counting();
        // New records continue the file's chain, with uuids it does not
        // hold: after its highest `m<n>`, in the view or not, and derived
        // from compactions numbered after the file's.
        self.engine.follow_compactions(session.compactions);
        // The file's pins, on messages of the view (no record: the file
        // has them already).
        for uuid in session.pinned {
            let uuid = Uuid(uuid);
            if self.engine.store().get(&uuid).is_some() {
                self.engine.pin(&uuid).at("session.pinned")?;
            }
        }
        self.log.resumed(
            session.last_made_uuid.as_deref(),
            session.leaf,
            session.session_id,
        );
        to_js(&dto::SessionLoad {
            report: session.report,
            boundary: session.boundary,
            appended: n as f64,
        })
    }
}

/// The engine module takes no usage beside a message (a message carries
/// its own).
#[cfg(not(feature = "formats"))]
fn report(_messages: &mut [Message], _usage: Option<Usage>) -> Result<(), JsValue> {
    Ok(())
}

/// Gives `usage` (reported with `append(message, usage)` /
/// `load(messages, usage)`) to the model reply among `messages`: the last
/// assistant message. None there is `INVALID_ARGUMENT` on `usage`.
#[cfg(feature = "formats")]
fn report(messages: &mut [Message], usage: Option<Usage>) -> Result<(), JsValue> {
    let Some(usage) = usage else {
        return Ok(());
    };
    match messages.iter_mut().rev().find(|m| m.role == Role::Assistant) {
        Some(m) => {
            m.usage = Some(Box::new(usage));
            Ok(())
        }
        None => Err(no_reply()),
    }
}

/// A usage reported with no model reply to carry it.
#[cfg(feature = "formats")]
pub(crate) fn no_reply() -> JsValue {
    js_error(
        INVALID_ARGUMENT,
        "usage",
        "usage: reported usage belongs to a model reply, and there is no assistant message here to carry it (nothing was appended)",
    )
}

/// A message reduced to what the API takes, borrowed (no copy before JS).
#[derive(Serialize)]
pub(super) struct ParamRef<'a> {
    pub(super) role: Role,
    pub(super) content: &'a Content,
    /// A system message's `clear_at` / `output_config` (R13.3).
    #[serde(flatten)]
    pub(super) extra: &'a compaction_core::message::Extra,
}

/// An engine decision in JS terms; `progress` converts a compaction's.
pub(super) fn convert_decision(
    d: compaction_core::engine::Decision,
    progress: impl FnOnce(core_compact::Progress) -> Progress,
) -> Decision {
    Decision {
        steps: d.steps,
        count: d.count,
        lines: Thresholds::from(d.lines),
        status: dto::CallStatus::from(&d.status),
        context_management: d.context_management,
        betas: d.betas,
        thinking: d.thinking,
        cleared_by_client: d.cleared_by_client,
        compaction: d.compaction.map(progress),
        breaker: d.breaker,
        requests: crate::js::crossing::convert(d.requests),
    }
}

/// A compaction's progress in JS terms, nothing logged (a dry run, and
/// every progress but a finished compaction in a real one).
pub(super) fn dry_progress(p: core_compact::Progress) -> Progress {
    match p {
        core_compact::Progress::Waiting => Progress::Waiting,
        core_compact::Progress::Failed { reason } => Progress::Failed { reason },
        core_compact::Progress::Compacted { result } => Progress::Compacted {
            result,
            records: Vec::new(),
        },
    }
}

impl State {
    /// `before_call` for the driver: returns the decision in engine terms.
    pub(crate) fn before_call_raw(
        &mut self,
        now: Option<String>,
    ) -> Result<compaction_core::engine::Decision, JsValue> {
        let now = self.now(now)?;
        Ok(self.engine.before_call(now.as_ref()))
    }
}

/// Borrows an engine's state. Nothing borrows it across JS code, so a
/// borrow already held is one a trap left: the engine is poisoned.
pub(crate) fn borrow(shared: &Shared) -> Result<std::cell::RefMut<'_, State>, JsValue> {
    shared.state.try_borrow_mut().map_err(|_| poisoned())
}

/// The time a record written now gets: the host's latest clock reading,
/// else the epoch (a host that never passes `now`).
fn record_time(last_now: &Option<Timestamp>) -> Timestamp {
    last_now.clone().unwrap_or_else(|| Timestamp::from_unix_ms(0))
}
