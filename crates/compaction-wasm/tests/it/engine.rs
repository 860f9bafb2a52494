//! The `Engine`'s protocol across the boundary: every request in
//! `requests`, one `answer(id, answer)`, the PreCompact hook first, and
//! `prepare(host)`'s steps (driven here as `js/guard.js` drives them)
//! rejecting with the summariser's error as `cause`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use compaction_wasm::engine::Engine;
use js_sys::{Array, Function, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

fn get(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &key.into()).unwrap()
}

fn object(pairs: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (key, value) in pairs {
        Reflect::set(&o, &(*key).into(), value).unwrap();
    }
    o.into()
}

/// An engine over its compact line (13,304 at this window) and under its
/// blocked line: 17 turns of 4,000 characters, with snip and collapse off so
/// that Tier 4 is what brings it under.
fn engine() -> Engine {
    let settings = object(&[
        ("window", 40_000.into()),
        ("snip", false.into()),
        ("collapse", false.into()),
    ]);
    let engine = Engine::new(Some(settings)).unwrap();
    let list = Array::new();
    for i in 0..17 {
        list.push(&object(&[
            ("role", "user".into()),
            ("content", format!("question {i}").into()),
        ]));
        list.push(&object(&[
            ("role", "assistant".into()),
            ("content", "a".repeat(4_000).into()),
        ]));
    }
    engine.load(list.into(), JsValue::UNDEFINED).unwrap();
    engine
}

fn kinds(x: &JsValue) -> Vec<String> {
    Array::from(&get(x, "requests"))
        .iter()
        .map(|r| get(&r, "kind").as_string().unwrap())
        .collect()
}

#[wasm_bindgen_test]
fn answer_takes_every_request_and_refuses_wrong_ids_and_kinds() {
    let engine = engine();
    let d = engine.before_call(JsValue::UNDEFINED).unwrap();
    assert_eq!(kinds(&d)[0], "preCompact", "every compaction asks its hook first");
    let hook = Array::from(&get(&d, "requests")).get(0);
    let id = get(&hook, "id").as_f64().unwrap();
    let wrong = engine.answer(id.into(), "text".into()).unwrap_err();
    assert_eq!(get(&wrong, "code"), "WRONG_ANSWER");
    let unknown = engine.answer((id + 100.0).into(), "text".into()).unwrap_err();
    assert_eq!(get(&unknown, "code"), "UNKNOWN_REQUEST");
    let out = engine
        .answer(id.into(), object(&[("kind", "hook".into())]))
        .unwrap();
    assert_eq!(kinds(&out)[0], "summary");
    let summary = Array::from(&get(&out, "requests")).get(0);
    let done = engine
        .answer(get(&summary, "id"), "<summary>s</summary>".into())
        .unwrap();
    assert_eq!(get(&get(&done, "compaction"), "kind"), "compacted");
}

/// `prepare(host)` as the package's JS loop runs it, with every callback
/// answering synchronously.
fn drive(engine: &Engine, host: JsValue) -> Result<JsValue, JsValue> {
    engine.prepare_start(host)?;
    let (mut ok, mut value) = (true, JsValue::UNDEFINED);
    loop {
        let next = engine.prepare_step(ok, value)?;
        // `[decision]`, or `[decision, summarize, request, id, report]`
        // when a precompute is left for the background.
        if next.length() == 1 || next.length() == 5 {
            return Ok(next.get(0));
        }
        let f: Function = next.get(0).unchecked_into();
        (ok, value) = match f.call1(&JsValue::NULL, &next.get(1)) {
            Ok(v) => (true, v),
            Err(e) => (false, e),
        };
    }
}

#[wasm_bindgen_test]
fn prepare_rejects_with_summarizer_failed_and_the_hosts_error_as_cause() {
    let engine = engine();
    let summarize = Function::new_with_args("request", "throw new Error('model down')");
    let host = object(&[("summarize", summarize.into())]);
    let rejected = drive(&engine, host).unwrap_err();
    assert!(rejected.is_instance_of::<js_sys::Error>());
    assert_eq!(get(&rejected, "code"), "SUMMARIZER_FAILED");
    let cause = get(&rejected, "cause");
    assert_eq!(get(&cause, "message"), "model down");
}

#[wasm_bindgen_test]
fn prepare_asks_the_precompact_hook_and_a_block_keeps_the_view() {
    let engine = engine();
    let before = engine.messages().unwrap();
    let summarize = Function::new_with_args("request", "throw new Error('not asked')");
    let pre_compact = Function::new_with_args(
        "request",
        "globalThis.preCompactCalls = (globalThis.preCompactCalls || 0) + 1; return { block: 'frozen' }",
    );
    let host = object(&[
        ("summarize", summarize.into()),
        ("preCompact", pre_compact.into()),
        ("precompute", false.into()),
    ]);
    let d = drive(&engine, host).unwrap();
    assert_eq!(get(&get(&d, "compaction"), "kind"), "failed");
    // One prepare(), one compaction, one hook call: a block is not retried.
    assert_eq!(get(&js_sys::global(), "preCompactCalls"), 1);
    assert_eq!(
        js_sys::JSON::stringify(&engine.messages().unwrap()).unwrap(),
        js_sys::JSON::stringify(&before).unwrap()
    );
}
