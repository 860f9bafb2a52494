//! The host's `countTokens(text) => number` (SPEC R1.6a), an engine
//! setting, as the core's [`TokenCounter`]. The core's counter is a plain
//! `Fn(&str) -> u64` that cannot fail, so a throw (or a result that is not a
//! whole number of tokens) is kept here and the engine method that counted
//! throws it: an `Error` with `code` `COUNT_TOKENS_FAILED`, `field`
//! `countTokens` and the host's error as `cause`. Never swallowed, never
//! retried; that text counts by the built-in estimate meanwhile, so the
//! engine stays consistent.
//!
//! A JS function cannot live in the core's `Send + Sync` closure, so it
//! stays in this thread's registry under an id; the engine's [`CounterSlot`]
//! removes it when the engine is freed.

use std::cell::{Cell, RefCell};

use compaction_core::tokens::{Estimator, TokenCounter};
use wasm_bindgen::prelude::*;

use crate::error::js_error_caused;
use crate::thresholds::describe;

/// `code` of the `Error` an engine method throws when the host's
/// `countTokens` threw or returned something that is not a token count.
pub const COUNT_TOKENS_FAILED: &str = "COUNT_TOKENS_FAILED";

thread_local! {
    static FUNCTIONS: RefCell<Vec<(u32, js_sys::Function)>> = const { RefCell::new(Vec::new()) };
    static NEXT: Cell<u32> = const { Cell::new(0) };
    static FAILED: RefCell<Option<JsValue>> = const { RefCell::new(None) };
}

/// Keeps a registered `countTokens` alive for one engine; removes it when
/// dropped.
#[derive(Debug)]
pub struct CounterSlot(u32);

impl Drop for CounterSlot {
    fn drop(&mut self) {
        FUNCTIONS.with(|f| f.borrow_mut().retain(|(id, _)| *id != self.0));
    }
}

/// Registers `count` and returns the core counter calling it, with the slot
/// that keeps it.
pub fn register(count: js_sys::Function) -> (TokenCounter, CounterSlot) {
    let id = NEXT.with(|n| {
        let id = n.get();
        n.set(id.wrapping_add(1));
        id
    });
    FUNCTIONS.with(|f| f.borrow_mut().push((id, count)));
    let counter = TokenCounter::new(move |text: &str| {
        let fallback = || Estimator::default().text(text);
        let Some(f) = FUNCTIONS.with(|f| f.borrow().iter().find(|(i, _)| *i == id).map(|(_, f)| f.clone()))
        else {
            return fallback();
        };
        match f.call1(&JsValue::NULL, &JsValue::from_str(text)) {
            Ok(v) => match v.as_f64() {
                Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 => n as u64,
                _ => {
                    let cause = js_sys::Error::new(&format!(
                        "countTokens returned {}: it must return a whole number of tokens (0 or more)",
                        describe(&v)
                    ));
                    fail(cause.into());
                    fallback()
                }
            },
            Err(e) => {
                fail(e);
                fallback()
            }
        }
    });
    (counter, CounterSlot(id))
}

/// Keeps the first failure until an engine method reports it.
fn fail(cause: JsValue) {
    FAILED.with(|f| {
        let mut f = f.borrow_mut();
        if f.is_none() {
            *f = Some(cause);
        }
    });
}

/// `result`, unless the host's `countTokens` failed while it was computed:
/// then the `COUNT_TOKENS_FAILED` error, with the host's error as `cause`.
pub fn checked<T>(result: Result<T, JsValue>) -> Result<T, JsValue> {
    // One copy of the error's making, whatever `T` is.
    match failure() {
        None => result,
        Some(error) => Err(error),
    }
}

/// The `COUNT_TOKENS_FAILED` error, if the host's `countTokens` failed
/// since the last call (taking that failure).
fn failure() -> Option<JsValue> {
    let cause = FAILED.with(|f| f.borrow_mut().take())?;
    let said = cause
        .dyn_ref::<js_sys::Error>()
        .and_then(|e| e.message().as_string())
        .unwrap_or_else(|| describe(&cause));
    Some(js_error_caused(
        COUNT_TOKENS_FAILED,
        "countTokens",
        &compaction_core::concat3(
            "settings.countTokens failed: ",
            &said,
            " (the host's error is the cause)",
        ),
        &cause,
    ))
}
