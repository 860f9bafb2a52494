//! Messages in: Anthropic `MessageParam`s as JS objects (one append) or as
//! a JSON string (bulk loads: parsed by serde_json inside wasm, which is
//! cheaper than handing wasm an already-parsed JS object), into the engine's
//! `Message`.

use compaction_core::api::body::{parse_body_text, BodyAt, MessageParam, ParamError};
use compaction_core::message::{Json, Message, Uuid};
use compaction_core::transcript::counted::SavedCounting;
use wasm_bindgen::JsValue;

use crate::error::{js_err, js_error, At, JsErr, INVALID_ARGUMENT, INVALID_JSON, INVALID_MESSAGE};

/// What the server says it did in the response `value` (a `BetaMessage`):
/// its `context_management.applied_edits`, none when absent.
pub fn applied_edits(
    value: &JsValue,
    field: &str,
) -> Result<Vec<compaction_core::api::applied::AppliedEdit>, JsValue> {
    if !value.is_object() {
        return Ok(Vec::new());
    }
    // The field's name is written only for an error, and its key made
    // once: this runs on every append.
    thread_local! {
        static KEY: JsValue = JsValue::from_str("context_management");
    }
    let cm = match KEY.with(|key| js_sys::Reflect::get(value, key)) {
        Ok(cm) => cm,
        Err(e) => {
            return Err(crate::js::threw(
                &compaction_core::concat(field, ".context_management"),
                &e,
            ))
        }
    };
    if cm.is_undefined() || cm.is_null() {
        return Ok(Vec::new());
    }
    read_applied(&cm).map_err(|e| {
        js_error(
            INVALID_MESSAGE,
            &compaction_core::concat(field, ".context_management"),
            &compaction_core::concat3(field, ".context_management", &e),
        )
    })
}

/// `context_management`'s `applied_edits` (R13.4), read straight from the
/// object (no deserializer of its own in the module), taking what its JSON
/// would give: absent `applied_edits` is none; each edit's `type` a
/// string, its counters absent, `null` (or not finite, which JSON writes as
/// `null`) or whole numbers below 2^64; other fields ignored. What is wrong
/// is said from the place (`.applied_edits[0].cleared_tool_uses must be
/// …`).
fn read_applied(cm: &JsValue) -> Result<Vec<compaction_core::api::applied::AppliedEdit>, String> {
    let threw = |at: &str| compaction_core::concat(at, ": reading it threw");
    if !cm.is_object() || crate::js::is_array(cm, "").unwrap_or(true) {
        return Err(" must be an object".to_owned());
    }
    let list = crate::js::get(cm, "applied_edits", "").map_err(|_| threw(".applied_edits"))?;
    if list.is_undefined() {
        return Ok(Vec::new());
    }
    let list = crate::js::array(&list, "", crate::js::MAX_LIST)
        .map_err(|_| threw(".applied_edits"))?
        .ok_or_else(|| ".applied_edits must be an array".to_owned())?;
    let mut out = Vec::with_capacity(list.length() as usize);
    for (i, edit) in list.iter().enumerate() {
        let at = format!(".applied_edits[{i}]");
        let [kind] = crate::js::object_strings(&edit, ["type"]).map_err(|e| format!("{at}{e}"))?;
        let count = |key: &str| -> Result<Option<u64>, String> {
            let n = crate::js::get(&edit, key, "")
                .map_err(|_| threw(&compaction_core::concat3(&at, ".", key)))?;
            if n.is_undefined() || n.is_null() {
                return Ok(None);
            }
            match n.as_f64() {
                Some(n) if !n.is_finite() => Ok(None),
                Some(n) if n >= 0.0 && n.fract() == 0.0 && n < 18_446_744_073_709_551_616.0 => {
                    Ok(Some(n as u64))
                }
                _ => Err(format!("{at}.{key} must be a whole number of 0 or more, or null")),
            }
        };
        out.push(compaction_core::api::applied::AppliedEdit {
            kind: kind.ok_or_else(|| compaction_core::concat(&at, ".type is missing"))?,
            cleared_tool_uses: count("cleared_tool_uses")?,
            cleared_thinking_turns: count("cleared_thinking_turns")?,
            cleared_input_tokens: count("cleared_input_tokens")?,
        });
    }
    Ok(out)
}

impl<T> At<T> for Result<T, ParamError> {
    /// A message the core refused, as an `INVALID_MESSAGE` naming `field`
    /// and the path below it (`messages[3].content[1].text`).
    fn at(self, field: &str) -> Result<T, JsErr> {
        self.map_err(|e| {
            js_err(
                INVALID_MESSAGE,
                &format!("{field}{}", e.at),
                &format!("{field}{}", e.text),
            )
        })
    }
}

/// A `Session` (made by the session module's `readSession` or
/// `SessionImporter`), as `loadSession` reads it.
pub struct SessionIn {
    /// The file's report, passed back unread.
    pub report: Json,
    /// The resumed view, each with its `isCompactSummary` flag.
    pub messages: Vec<(Message, bool)>,
    /// The boundary the view starts after.
    pub boundary: Option<String>,
    /// The chain's last record.
    pub leaf: Option<String>,
    /// The file's session id.
    pub session_id: Option<String>,
    /// The file's highest `m<n>` uuid.
    pub last_made_uuid: Option<String>,
    /// The compactions the file holds.
    pub compactions: u64,
    /// The messages the file leaves pinned.
    pub pinned: Vec<String>,
    /// What the count rested on when the file was last written.
    pub counting: Option<SavedCounting>,
}

/// A `Session` from a JS object; its messages must carry their uuids. Read
/// field by field, its messages through the same one-pass parser as
/// `loadJson` (no second copy of it in the module).
pub fn session_from_js(value: &JsValue) -> Result<SessionIn, JsValue> {
    let not_a_session = |why: &str| {
        js_error(
            INVALID_ARGUMENT,
            "session",
            &compaction_core::concat("session must be a Session from readSession() or SessionImporter.finish() (`context-compaction/session`): ", why),
        )
    };
    if !value.is_object() || js_sys::Array::is_array(value) {
        return Err(not_a_session("not an object"));
    }
    let get = |key: &str| js_sys::Reflect::get(value, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED);
    let json = |key: &str| -> Result<String, JsValue> {
        let v = get(key);
        if v.is_undefined() {
            return Err(not_a_session(&compaction_core::concat3("no `", key, "`")));
        }
        js_sys::JSON::stringify(&v)
            .ok()
            .and_then(|s| s.as_string())
            .ok_or_else(|| not_a_session(&compaction_core::concat3("`", key, "` is not JSON")))
    };
    let report = Json::parse(&json("report")?).map_err(|_| not_a_session("`report` is not JSON"))?;
    let list = json("messages")?;
    if !list.starts_with('[') {
        return Err(not_a_session("`messages` must be a list"));
    }
    let (_, items) = parse_messages(&list, "session.")?;
    let mut messages = Vec::with_capacity(items.len());
    for (i, m) in items.into_iter().enumerate() {
        let field = format!("session.messages[{i}]");
        let flag = m.is_compact_summary();
        let mut m = m;
        // A counter the engine cannot hold (a file's 2^64 − 1) drops that
        // message's usage (the count estimates it), not the whole session.
        m.drop_bad_usage();
        let message = m.into_message(|| Uuid(String::new())).at(&field)?;
        if message.uuid.0.is_empty() {
            return Err(js_error(
                INVALID_MESSAGE,
                &compaction_core::concat(&field, ".uuid"),
                &compaction_core::concat(&field, ".uuid is missing"),
            ));
        }
        messages.push((message, flag));
    }
    let [boundary, leaf, session_id] = crate::js::object_strings(value, ["boundary", "leaf", "sessionId"])
        .map_err(|e| not_a_session(&compaction_core::concat("session", &e)))?;
    // Absent or `null` (a Session made before they were reported): none.
    let (last, compactions) = (get("lastMadeUuid"), get("compactions"));
    let last_made_uuid = match last.as_string() {
        None if !(last.is_undefined() || last.is_null()) => {
            return Err(not_a_session("`lastMadeUuid` must be a string or null"))
        }
        last => last,
    };
    let compactions = match compactions.as_f64() {
        Some(n) if n >= 0.0 && n.fract() == 0.0 => n as u64,
        None if compactions.is_undefined() || compactions.is_null() => 0,
        _ => return Err(not_a_session("`compactions` must be a count")),
    };
    // Absent or `null` (a Session made before pins were recorded): none.
    let list = get("pinned");
    let pinned = if list.is_undefined() || list.is_null() {
        Vec::new()
    } else if js_sys::Array::is_array(&list) {
        let list = js_sys::Array::from(&list);
        let mut pinned = Vec::with_capacity(list.length() as usize);
        for (i, item) in list.iter().enumerate() {
            let Some(uuid) = item.as_string() else {
                return Err(not_a_session(&format!("`pinned[{i}]` must be a uuid (a string)")));
            };
            pinned.push(uuid);
        }
        pinned
    } else {
        return Err(not_a_session("`pinned` must be a list of uuids"));
    };
    // Absent or `null` (a Session made before counts were recorded): none.
    let counting = get("counting");
    let counting = if counting.is_undefined() || counting.is_null() {
        None
    } else {
        Some(
            counting_from_js(&counting)
                .map_err(|e| not_a_session(&compaction_core::concat3("`counting", &e, "`")))?,
        )
    };
    Ok(SessionIn {
        report,
        messages,
        boundary,
        leaf,
        session_id,
        last_made_uuid,
        compactions,
        pinned,
        counting,
    })
}

/// A `Session`'s `counting` (what `readSession` read from the file's
/// `count_calibrated` record), or what is wrong with it (`.field …`).
fn counting_from_js(value: &JsValue) -> Result<SavedCounting, String> {
    use compaction_core::view::{Calibration, Counting, SavedAnchor, ServerCleared};
    let whole = |object: &JsValue, key: &str, signed: bool| -> Result<f64, String> {
        let n = crate::js::get(object, key, "")
            .map_err(|_| compaction_core::concat3(".", key, " cannot be read"))?;
        match n.as_f64() {
            Some(n) if n.fract() == 0.0 && n.abs() <= 9_007_199_254_740_991.0 && (signed || n >= 0.0) => {
                Ok(n)
            }
            _ => Err(compaction_core::concat3(".", key, " must be a whole number")),
        }
    };
    let [after] = crate::js::object_strings(value, ["after"])?;
    let calibration =
        crate::js::get(value, "calibration", "").map_err(|_| ".calibration cannot be read".to_owned())?;
    let anchor = crate::js::get(value, "anchor", "").map_err(|_| ".anchor cannot be read".to_owned())?;
    let anchor = if anchor.is_null() || anchor.is_undefined() {
        None
    } else {
        let [uuid] = crate::js::object_strings(&anchor, ["uuid"])
            .map_err(|e| compaction_core::concat(".anchor", &e))?;
        let at =
            |key| whole(&anchor, key, key != "reported").map_err(|e| compaction_core::concat(".anchor", &e));
        Some(SavedAnchor {
            uuid: uuid.map(Uuid),
            reported: at("reported")? as u64,
            reply_delta: at("replyDelta")? as i64,
            prefix_delta: at("prefixDelta")? as i64,
        })
    };
    let cleared =
        crate::js::get(value, "serverCleared", "").map_err(|_| ".serverCleared cannot be read".to_owned())?;
    let server_cleared = if cleared.is_null() || cleared.is_undefined() {
        None
    } else {
        let [through] = crate::js::object_strings(&cleared, ["through"])
            .map_err(|e| compaction_core::concat(".serverCleared", &e))?;
        Some(ServerCleared {
            through: through.ok_or_else(|| ".serverCleared.through is missing".to_owned())?,
            fired_at: whole(&cleared, "firedAt", false)
                .map_err(|e| compaction_core::concat(".serverCleared", &e))? as u64,
        })
    };
    let at = |key| whole(&calibration, key, false).map_err(|e| compaction_core::concat(".calibration", &e));
    Ok(SavedCounting {
        after: after.map(Uuid),
        counting: Counting {
            calibration: Calibration {
                real: at("real")? as u64,
                estimated: at("estimated")? as u64,
            },
            anchor,
            server_cleared,
        },
    })
}

/// One message read from a JS object, not yet given its uuid: everything
/// that runs the caller's code (getters, `toJSON`, a Proxy's traps) is done
/// here, before the engine's state is borrowed.
pub struct Read {
    raw: MessageParam,
    applied: Vec<compaction_core::api::applied::AppliedEdit>,
}

/// Reads one message object (see [`Read`]).
pub fn read_js(value: &JsValue, field: &str) -> Result<Read, JsValue> {
    if !value.is_object() {
        return Err(js_error(
            INVALID_MESSAGE,
            field,
            &format!(
                "{field} must be an object like {{ role: \"user\", content: \"…\" }}, got {}",
                crate::js::kind(value)
            ),
        ));
    }
    let raw: MessageParam = crate::js::from_js_at(value).map_err(|(e, path)| {
        let field = format!("{field}{path}");
        js_error(
            INVALID_MESSAGE,
            &field,
            &compaction_core::concat3(&field, ": ", &e),
        )
    })?;
    let applied = applied_edits(value, field)?;
    Ok(Read { raw, applied })
}

impl Read {
    /// The message (its uuid from `uuid` when it has none) and the
    /// response's applied edits.
    pub fn into_message(
        self,
        field: &str,
        uuid: impl FnOnce() -> Uuid,
    ) -> Result<(Message, Vec<compaction_core::api::applied::AppliedEdit>), JsValue> {
        let message = self.raw.into_message(uuid).at(field)?;
        Ok((message, self.applied))
    }
}

/// One message from a JS object.
pub fn from_js(value: &JsValue, field: &str, uuid: impl FnOnce() -> Uuid) -> Result<Message, JsValue> {
    read_js(value, field)?.into_message(field, uuid).map(|(m, _)| m)
}

/// Messages from a JSON string: an array of `MessageParam`s, or an object
/// with a `messages` array (an API request body; its `system` is returned
/// too, as text).
/// Fields are named under `prefix` (`"request."`: `request.messages[3]`).
/// The text is freed once parsed, before the messages are made from what
/// was read: a bulk load never holds the text, the parsed list and the
/// messages at once (issue 30's peak memory).
pub fn from_json(
    json: String,
    mut uuid: impl FnMut() -> Uuid,
    prefix: &str,
) -> Result<(Option<String>, Vec<Message>), JsValue> {
    let (system, items) = parse_messages(&json, prefix)?;
    drop(json);
    let mut out = Vec::with_capacity(items.len());
    for (i, raw) in items.into_iter().enumerate() {
        let field = format!("{prefix}messages[{i}]");
        out.push(raw.into_message(&mut uuid).at(&field)?);
    }
    Ok((system, out))
}

/// Core's [`parse_body_text`] with its errors as JS errors, fields named under
/// `prefix`: a message of the wrong shape in valid JSON is named by its
/// index; text that is not JSON at all is an INVALID_JSON error on
/// `messages`.
fn parse_messages(json: &str, prefix: &str) -> Result<(Option<String>, Vec<MessageParam>), JsValue> {
    let body = parse_body_text(json).map_err(|e| {
        let text = crate::js::clean(&e.error);
        match e.at {
            BodyAt::Message(i) if e.is_json => {
                // The path inside the message: from the whole text's path
                // (`[3].content[1]`, `.messages[3].content[1]`), past the
                // index (lone surrogates are fixed in place: same offsets).
                let path = crate::js::error_path(json.as_bytes(), &e.error);
                let marker = format!("[{i}]");
                let inside = path.find(&marker).map_or("", |p| &path[p + marker.len()..]);
                let field = format!("{prefix}messages[{i}]{inside}");
                js_error(
                    INVALID_MESSAGE,
                    &field,
                    &compaction_core::concat3(&field, ": ", &text),
                )
            }
            BodyAt::System if e.is_json => js_error(
                INVALID_JSON,
                "system",
                &compaction_core::concat("system: ", &text),
            ),
            _ => js_error(
                INVALID_JSON,
                &compaction_core::concat(prefix, "messages"),
                &format!(
                    "{prefix}messages: not a JSON array of messages or an object with `messages`: {text}"
                ),
            ),
        }
    })?;
    Ok((body.system, body.messages))
}
