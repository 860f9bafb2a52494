//! An engine's decisions cross as copies of a template: the engine keeps
//! the last decision it handed out and, as JS values, one per field (made
//! by `JSON.parse` once, never handed out); a new decision replaces only
//! the fields that differ (usually none but the count's tokens), and the
//! package's `decision(template, tokens)` (guard.js) returns a fresh deep
//! copy of it. Writing and parsing the whole decision as JSON was half of
//! `append` + `beforeCall` in a steady 10k-message engine, and most of it
//! while requests were pending (a summary request's prompt alone is 3 KB).
//!
//! A host changing a decision it got changes nothing else: every object of
//! it is its own, except a summary request's `messages`, the same array on
//! every call while the request is pending, as before (`shared`).
//! Without the package's entries (wasm-bindgen's glue alone) nothing is
//! registered and decisions cross as JSON text.
//!
//! Its size: +681 B gzip on the engine module, +569 B on the formats one
//! (the comparisons, and each field's serializer called from here as well
//! as from `Decision`'s), for a steady call 14.7 -> 9.5 us and one with 12
//! requests pending 101 -> 31 us.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

use compaction_core::tokens::TokenFigure;

use crate::dto::{Decision, Progress};
use crate::engine::Engine;

#[wasm_bindgen]
extern "C" {
    /// guard.js's `decision(template, tokens)`.
    #[wasm_bindgen(extends = js_sys::Function)]
    #[derive(Clone)]
    type Build;
    /// `build.call(null, template, tokens)`, its throw returned.
    #[wasm_bindgen(method, catch, js_name = call)]
    fn call(this: &Build, this_arg: &JsValue, template: &JsValue, tokens: f64) -> Result<JsValue, JsValue>;
}

thread_local! {
    /// guard.js's `decision(template, tokens)`, once an entry gave it.
    static BUILD: RefCell<Option<Build>> = const { RefCell::new(None) };
}

#[wasm_bindgen]
impl Engine {
    /// Sets the function that copies a decision's template (guard.js's
    /// `decision`; anything but a function: none, decisions cross as JSON
    /// text) and returns the one set before (for the tests).
    #[wasm_bindgen(js_name = __crossing, skip_typescript)]
    pub fn crossing(build: JsValue) -> JsValue {
        let build = build.is_function().then(|| build.unchecked_into::<Build>());
        BUILD
            .with_borrow_mut(|b| std::mem::replace(b, build))
            .map_or(JsValue::UNDEFINED, JsValue::from)
    }
}

/// One engine's last decision and its template.
#[derive(Default)]
pub(crate) struct Crossing {
    last: Option<(Decision, JsValue)>,
}

impl Crossing {
    /// `d` as a JS object.
    pub(crate) fn cross(&mut self, d: Decision) -> Result<JsValue, JsValue> {
        let Some(build) = BUILD.with_borrow(Clone::clone) else {
            self.last = None;
            return super::to_js(&d);
        };
        // Kept only once patched whole: an error leaves none.
        let template = match self.last.take() {
            Some((last, template)) => {
                patch(&template, &last, &d)?;
                template
            }
            None => super::to_js(&d)?,
        };
        let out = build.call(&JsValue::NULL, &template, d.count.tokens as f64)?;
        self.last = Some((d, template));
        Ok(out)
    }
}

/// `patch(template, last, d)`: sets each field of `template` (made for
/// `last`) that differs in `d`; and `KEYS`, the fields as JS names them.
/// Every field is named: one added to `Decision` fails to compile until it
/// crosses too.
macro_rules! fields {
    ($last:ident; $($field:ident $key:literal $changed:expr;)*) => {
        #[cfg(test)]
        const KEYS: &[&str] = &[$($key),*];

        fn patch(template: &JsValue, $last: &Decision, d: &Decision) -> Result<(), JsValue> {
            let Decision { $($field),* } = d;
            $(
                if $changed {
                    set(template, $key, super::to_js($field))?;
                }
            )*
            Ok(())
        }
    };
}

fields! { last;
    // Steps are new whenever there are any (a step has the count in it):
    // not compared.
    steps "steps" !(steps.is_empty() && last.steps.is_empty());
    // The count's tokens are `build`'s second argument.
    count "count" TokenFigure { tokens: last.count.tokens, ..*count } != last.count;
    lines "lines" *lines != last.lines;
    status "status" *status != last.status;
    context_management "contextManagement" *context_management != last.context_management;
    betas "betas" *betas != last.betas;
    thinking "thinking" *thinking != last.thinking;
    cleared_by_client "clearedByClient" *cleared_by_client != last.cleared_by_client;
    // A finished compaction is new each time: not compared.
    compaction "compaction" !matches!(
        (compaction, &last.compaction),
        (None, None) | (Some(Progress::Waiting), Some(Progress::Waiting))
    );
    breaker "breaker" *breaker != last.breaker;
    requests "requests" *requests != last.requests;
}

/// `template[key] = value`.
fn set(template: &JsValue, key: &str, value: Result<JsValue, JsValue>) -> Result<(), JsValue> {
    js_sys::Reflect::set(template, &JsValue::from_str(key), &value?).map(|_| ())
}

#[cfg(test)]
mod tests {
    use compaction_core::thresholds::{ThresholdSettings, Thresholds};
    use compaction_core::tokens::TokenFigure;

    use crate::dto::{CallStatus, Decision};

    #[test]
    fn the_keys_are_the_fields_a_decision_is_written_with() {
        let lines = Thresholds::compute(&ThresholdSettings::for_window(200_000)).unwrap();
        let d = Decision {
            steps: Vec::new(),
            count: TokenFigure::estimated(1),
            lines: lines.into(),
            status: CallStatus::Proceed,
            context_management: None,
            betas: Vec::new(),
            thinking: None,
            cleared_by_client: Vec::new(),
            compaction: None,
            breaker: None,
            requests: Vec::new(),
        };
        let text = serde_json::to_string(&d).unwrap();
        let value: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text).unwrap();
        let mut keys = super::KEYS.to_vec();
        keys.sort_unstable();
        assert_eq!(value.keys().collect::<Vec<_>>(), keys);
        // In the order written (no value here holds a key of its own).
        let at = |key: &str| text.find(&format!("\"{key}\":")).unwrap();
        assert!(super::KEYS.windows(2).all(|w| at(w[0]) < at(w[1])));
    }
}
