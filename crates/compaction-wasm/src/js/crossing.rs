//! An engine's decisions cross as copies of a template: the engine keeps
//! the last decision it handed out and, as JS values, one per field (made
//! by `JSON.parse` once, never handed out); a new decision replaces only
//! the fields that differ (usually none but the count's tokens), and the
//! package's `decision(template, tokens, …)` (guard.js) returns a fresh
//! deep copy of it. A status or a step that differs only in its numbers
//! (the lines step, on every call while over a line, has the count in it)
//! has only those set, by `decision`. Writing and parsing the whole decision as JSON was half of
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
//! Patching the status's number and the lines step in place, and comparing
//! requests by their shared messages: about +290 B more on the engine
//! module (one tree, back to back), for a call with a summary pending
//! 21.4 -> 12.4 us and one with 12 requests pending 29.9 -> 18.1 us. Tried
//! and dropped: the changed fields written as one object through
//! `Decision`'s own field serializers (+69 B more, not less).
//! The engine's summary requests, when they are the last decision's (the
//! same shared messages, kind and id), are taken from it rather than
//! converted, compared and dropped again: +236 B gzip on the engine
//! module, a call with 12 requests pending 7.62 -> 7.29 us.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

use compaction_core::tokens::TokenFigure;

use compaction_core::engine::Request as CoreRequest;
use compaction_core::step::Step;

use crate::dto::{CallStatus, Decision, Progress, Request, SummaryRequest};
use crate::engine::Engine;

#[wasm_bindgen]
extern "C" {
    /// guard.js's `decision(template, tokens, status, before, after,
    /// reason)`.
    #[wasm_bindgen(extends = js_sys::Function)]
    #[derive(Clone)]
    type Build;
    /// `build.call(null, template, tokens, status, before, after,
    /// reason)`, its throw returned.
    #[wasm_bindgen(method, catch, js_name = call)]
    #[allow(clippy::too_many_arguments)]
    fn call(
        this: &Build,
        this_arg: &JsValue,
        template: &JsValue,
        tokens: f64,
        status: Option<f64>,
        before: f64,
        after: f64,
        reason: Option<&str>,
    ) -> Result<JsValue, JsValue>;
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
    /// `d` with the engine's `requests` (`d.requests` is set here) as a JS
    /// object.
    pub(crate) fn cross(&mut self, mut d: Decision, requests: Vec<CoreRequest>) -> Result<JsValue, JsValue> {
        let Some(build) = BUILD.with_borrow(Clone::clone) else {
            self.last = None;
            d.requests = convert(requests);
            return super::to_js(&d);
        };
        // Kept only once patched whole: an error leaves none.
        let (template, status, step) = match self.last.take() {
            Some((mut last, template)) => {
                // The last decision's own requests when they are the same
                // (moved: nothing converted, compared or dropped again).
                let same = same_built(&last.requests, &requests);
                d.requests = match same {
                    true => std::mem::take(&mut last.requests),
                    false => convert(requests),
                };
                let status = status_number(&last.status, &d.status);
                let step = lines_step(&last.steps, &d.steps);
                patch(&template, &last, &d, (status.is_some(), step.is_some(), same))?;
                (template, status, step)
            }
            None => {
                d.requests = convert(requests);
                (super::to_js(&d)?, None, None)
            }
        };
        let out = build.call(
            &JsValue::NULL,
            &template,
            d.count.tokens as f64,
            status,
            step.map_or(0.0, |s| s.count_before.tokens as f64),
            step.map_or(0.0, |s| s.count_after.tokens as f64),
            step.map(|s| s.reason.as_str()),
        )?;
        self.last = Some((d, template));
        Ok(out)
    }
}

/// `patch(template, last, d, numbers)`: sets each field of `template`
/// (made for `last`) that differs in `d`, but the status and the step whose
/// numbers alone `build` sets (`numbers`: whether it sets the status's, the
/// step's; then whether the requests are `last`'s, moved out of it); and
/// `KEYS`, the fields as JS names them. Every field is named: one added to
/// `Decision` fails to compile until it crosses too.
macro_rules! fields {
    ($last:ident, $numbers:ident; $($field:ident $key:literal $changed:expr;)*) => {
        #[cfg(test)]
        const KEYS: &[&str] = &[$($key),*];

        fn patch(
            template: &JsValue,
            $last: &Decision,
            d: &Decision,
            $numbers: (bool, bool, bool),
        ) -> Result<(), JsValue> {
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

fields! { last, numbers;
    // Steps are new whenever there are any, but for one that differs from
    // the last call's only in its counts' tokens and its reason (the lines
    // step, on every call while over a line).
    steps "steps" !(numbers.1 || (steps.is_empty() && last.steps.is_empty()));
    // The count's tokens are `build`'s second argument.
    count "count" TokenFigure { tokens: last.count.tokens, ..*count } != last.count;
    lines "lines" *lines != last.lines;
    status "status" *status != last.status && !numbers.0;
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
    requests "requests" !(numbers.2 || same_requests(&last.requests, requests));
}

/// `status`'s number, when only that differs from `last` (over by, tokens
/// left, pending: the one number a status has).
fn status_number(last: &CallStatus, status: &CallStatus) -> Option<f64> {
    let number = |s: &CallStatus| match *s {
        CallStatus::Proceed => None,
        CallStatus::Warn { tokens_left: n }
        | CallStatus::CompactionDue { over_by: n }
        | CallStatus::WaitForCollapse { pending: n }
        | CallStatus::Blocked { over_by: n } => Some(n),
    };
    let same_kind = std::mem::discriminant(last) == std::mem::discriminant(status);
    number(status).filter(|n| same_kind && Some(*n) != number(last))
}

/// The one step of `steps` when `last` had one alike but for its counts'
/// tokens and its reason, both notes (no message, no block touched).
fn lines_step<'a>(last: &[Step], steps: &'a [Step]) -> Option<&'a Step> {
    let ([a], [b]) = (last, steps) else {
        return None;
    };
    // Every field named: one added to `Step` fails to compile here.
    let Step {
        tier,
        rule,
        owner,
        evidence,
        count_before,
        count_after,
        messages,
        blocks,
        cache,
        model_calls,
        reason: _,
    } = b;
    let alike = a.tier == *tier
        && a.rule == *rule
        && a.owner == *owner
        && a.evidence == *evidence
        && a.count_before.basis == count_before.basis
        && a.count_after.basis == count_after.basis
        && a.messages.is_empty()
        && messages.is_empty()
        && a.blocks.is_empty()
        && blocks.is_empty()
        && a.cache == *cache
        && a.model_calls == *model_calls;
    alike.then_some(b)
}

/// Whether `requests` are `last`'s. A summary request's messages are made
/// for it when it is built, and shared by every copy the engine hands out
/// while what it stands on is unchanged: the same messages, the same
/// request (its prompt, 3 KB for a compaction's, is not compared again).
fn same_requests(last: &[Request], requests: &[Request]) -> bool {
    last.len() == requests.len()
        && last
            .iter()
            .zip(requests)
            .all(|(a, b)| match (built(a), built(b)) {
                (Some(x), Some(y)) if x.messages == y.messages => {
                    std::mem::discriminant(a) == std::mem::discriminant(b) && x.id == y.id
                }
                _ => a == b,
            })
}

/// The engine's requests in JS terms.
pub(crate) fn convert(requests: Vec<CoreRequest>) -> Vec<Request> {
    requests.into_iter().map(Request::from_core).collect()
}

/// Whether the engine's `requests` are `last`'s, all of them summary
/// requests (as [`same_requests`] compares them: their shared messages,
/// kind and id).
fn same_built(last: &[Request], requests: &[CoreRequest]) -> bool {
    use compaction_core::engine::Request as R;
    last.len() == requests.len()
        && last.iter().zip(requests).all(|(a, b)| {
            let (x, y) = match (a, b) {
                (Request::Summary(x), R::Summary(y))
                | (Request::CollapseSegment(x), R::CollapseSegment(y))
                | (Request::Precompute(x), R::Precompute(y)) => (x, y),
                _ => return false,
            };
            std::sync::Arc::ptr_eq(&x.messages.0, &y.messages) && x.id == y.id as f64
        })
}

/// `template[key] = value`.
fn set(template: &JsValue, key: &str, value: Result<JsValue, JsValue>) -> Result<(), JsValue> {
    js_sys::Reflect::set(template, &JsValue::from_str(key), &value?).map(|_| ())
}

/// A summary request's fields, for the three summary kinds.
fn built(r: &Request) -> Option<&SummaryRequest> {
    match r {
        Request::Summary(s) | Request::CollapseSegment(s) | Request::Precompute(s) => Some(s),
        Request::PreCompact(_) | Request::Files(_) => None,
    }
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

    #[test]
    fn a_status_number_is_set_only_between_statuses_of_one_kind() {
        let number = super::status_number;
        let due = |over_by| CallStatus::CompactionDue { over_by };
        assert_eq!(number(&due(1.0), &due(2.0)), Some(2.0));
        assert_eq!(number(&due(2.0), &due(2.0)), None);
        assert_eq!(number(&CallStatus::Blocked { over_by: 1.0 }, &due(2.0)), None);
        assert_eq!(number(&CallStatus::Proceed, &CallStatus::Proceed), None);
        let warn = |tokens_left| CallStatus::Warn { tokens_left };
        assert_eq!(number(&warn(5.0), &warn(4.0)), Some(4.0));
        // A status has one number besides its kind: the one guard.js sets.
        for status in [
            due(1.0),
            warn(1.0),
            CallStatus::WaitForCollapse { pending: 1.0 },
            CallStatus::Blocked { over_by: 1.0 },
        ] {
            let value = serde_json::to_value(&status).unwrap();
            assert_eq!(value.as_object().unwrap().len(), 2, "{value}");
        }
    }
}
