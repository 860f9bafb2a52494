//! A summary request's messages cross once: while the engine hands out the
//! same shared messages (a request pending over many calls), every value
//! out carries the JS array made the first time, neither written nor
//! parsed again. Each to_js writes a placeholder for the arrays it has and
//! puts them in after `JSON.parse`, in the places requests are: the value
//! itself, its `requests`, or its elements (a list of requests).

use std::cell::{Cell, RefCell};
use std::sync::Arc;

use compaction_core::message::{Content, Json, Message, Role};
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;

/// Arrays made, at most this many (the pending requests of an engine or
/// two, Tier 3's segments among them; one whose messages the engine
/// dropped goes first).
const KEPT: usize = 64;

/// Each request's messages written in one to_js, in order, and the array
/// already made for them.
type Written = Vec<(Arc<[Message]>, Option<JsValue>)>;

thread_local! {
    /// The arrays made, with the messages they were made from.
    static MADE: RefCell<Vec<(Arc<[Message]>, JsValue)>> = const { RefCell::new(Vec::new()) };
    /// In a to_js, what it wrote.
    static WRITTEN: RefCell<Option<Written>> = const { RefCell::new(None) };
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// `SummaryRequest.messages`: the engine's shared messages, written as
/// `MessageParam`s (`role`, `content`, a system message's `clear_at`,
/// `output_config`).
#[derive(Debug, Clone)]
pub struct SharedParams(pub Arc<[Message]>);

/// The same shared messages (what crosses as the same array), never
/// compared message by message.
impl PartialEq for SharedParams {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

#[derive(Serialize)]
struct Param<'a> {
    role: Role,
    content: &'a Content,
    #[serde(skip_serializing_if = "Option::is_none")]
    clear_at: Option<&'a Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_config: Option<&'a Json>,
}

impl Serialize for SharedParams {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let made = MADE.with_borrow(|made| {
            made.iter()
                .find(|(m, _)| Arc::ptr_eq(m, &self.0))
                .map(|(_, a)| a.clone())
        });
        let hit = WRITTEN.with_borrow_mut(|w| match w {
            Some(w) => {
                let hit = made.is_some();
                w.push((Arc::clone(&self.0), made));
                hit
            }
            None => false,
        });
        if hit {
            return s.serialize_unit();
        }
        s.collect_seq(self.0.iter().map(|m| Param {
            role: m.role,
            content: &m.content,
            clear_at: m.extra.get("clear_at"),
            output_config: m.extra.get("output_config"),
        }))
    }
}

impl<'de> Deserialize<'de> for SharedParams {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let params = Vec::<crate::dto::MessageParam>::deserialize(d)?;
        let messages = params.into_iter().map(|p| {
            let role = match p.role.as_str() {
                "assistant" => Role::Assistant,
                "system" => Role::System,
                _ => Role::User,
            };
            let mut m = Message::new(String::new(), role, p.content);
            for (key, value) in [("clear_at", p.clear_at), ("output_config", p.output_config)] {
                if let Some(value) = value {
                    m.extra.insert(key.to_owned(), value);
                }
            }
            m
        });
        Ok(SharedParams(messages.collect()))
    }
}

pub(super) fn to_js(write: &dyn super::WriteJson) -> Result<JsValue, JsValue> {
    // Only the outermost to_js splices (none nests today).
    if DEPTH.get() > 0 {
        return super::parsed(write);
    }
    DEPTH.set(1);
    WRITTEN.set(Some(Vec::new()));
    let out = super::parsed(write);
    let written = WRITTEN.take().unwrap_or_default();
    DEPTH.set(0);
    let out = out?;
    if !written.is_empty() {
        splice(&out, written);
    }
    Ok(out)
}

/// Puts the arrays in, and keeps the ones `JSON.parse` just made.
fn splice(out: &JsValue, written: Written) {
    let key = JsValue::from_str("messages");
    let list = match js_sys::Array::is_array(out) {
        true => Some(out.clone()),
        false => js_sys::Reflect::get(out, &JsValue::from_str("requests"))
            .ok()
            .filter(js_sys::Array::is_array),
    };
    let requests = list
        .map(|r| js_sys::Array::from(&r).to_vec())
        .unwrap_or_else(|| vec![out.clone()]);
    let mut written = written.into_iter();
    for request in requests {
        let Ok(messages) = js_sys::Reflect::get(&request, &key) else {
            continue;
        };
        if messages.is_undefined() {
            continue;
        }
        let Some((shared, made)) = written.next() else {
            return;
        };
        match made {
            Some(array) => {
                let _ = js_sys::Reflect::set(&request, &key, &array);
            }
            None => MADE.with_borrow_mut(|kept| {
                kept.retain(|(m, _)| Arc::strong_count(m) > 1);
                if kept.len() >= KEPT {
                    kept.remove(0);
                }
                kept.push((shared, messages));
            }),
        }
    }
}
