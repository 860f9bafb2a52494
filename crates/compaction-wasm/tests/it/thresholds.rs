//! `thresholds` across the JS boundary, in Node and in headless Chromium
//! (scripts/test.sh runs both): numbers in, a plain object out, and a real
//! `Error` with `code` and `field` for bad input, after which the same
//! module keeps working.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use compaction_wasm::thresholds::thresholds;
use js_sys::{Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

fn settings(pairs: &[(&str, JsValue)]) -> JsValue {
    let object = Object::new();
    for (key, value) in pairs {
        Reflect::set(&object, &(*key).into(), value).unwrap();
    }
    object.into()
}

fn get(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &key.into()).unwrap()
}

fn five(t: &JsValue) -> Vec<f64> {
    ["budget", "precompute", "warn", "compact", "blocked"]
        .iter()
        .map(|k| get(t, k).as_f64().unwrap())
        .collect()
}

/// Calls `thresholds` with bad settings and checks the error's shape.
fn assert_rejected(bad: JsValue, field: &str) {
    let err: JsValue = thresholds(bad).expect_err("bad settings were accepted").into();
    let error: &js_sys::Error = err.dyn_ref().expect("a real JS Error");
    assert_eq!(get(&err, "code").as_string().as_deref(), Some("INVALID_SETTING"));
    assert_eq!(get(&err, "field").as_string().as_deref(), Some(field));
    let message = String::from(error.message());
    assert!(message.contains(field), "{message}");
}

#[wasm_bindgen_test]
fn r1_3_example() {
    let t = thresholds(settings(&[
        ("window", 200_000.into()),
        ("maxOutputTokens", 20_000.into()),
    ]))
    .unwrap();
    assert_eq!(five(&t), [180_000.0, 144_000.0, 147_000.0, 167_000.0, 177_000.0]);
    assert!(get(&t, "overrideRequestedPct").is_null());
    assert!(get(&t, "overrideAppliedPct").is_null());
    // A plain object, not a class instance or a Map.
    assert_eq!(
        Object::get_prototype_of(&t),
        Object::get_prototype_of(&Object::new())
    );
}

#[wasm_bindgen_test]
fn one_million_window() {
    let t = thresholds(settings(&[
        ("window", 1_000_000.into()),
        ("maxOutputTokens", 32_000.into()),
    ]))
    .unwrap();
    assert_eq!(five(&t), [980_000.0, 784_000.0, 947_000.0, 967_000.0, 977_000.0]);
}

#[wasm_bindgen_test]
fn small_window_lines_are_ordered() {
    let t = thresholds(settings(&[
        ("window", 8_192.into()),
        ("maxOutputTokens", 1_024.into()),
    ]))
    .unwrap();
    assert_eq!(five(&t), [7_168.0, 5_734.0, 1_076.0, 4_768.0, 6_615.0]);
}

#[wasm_bindgen_test]
fn override_is_clamped_and_reported() {
    let t = thresholds(settings(&[
        ("window", 200_000.into()),
        ("overridePct", 95.into()),
    ]))
    .unwrap();
    assert_eq!(get(&t, "compact").as_f64(), Some(167_000.0));
    assert_eq!(get(&t, "overrideRequestedPct").as_f64(), Some(95.0));
    assert!(get(&t, "overrideAppliedPct").is_null());
}

#[wasm_bindgen_test]
fn bad_numbers_are_errors_with_code_and_field_and_the_module_survives() {
    let two_to_53 = 9_007_199_254_740_992.0;
    for (field, value) in [
        ("window", JsValue::from(f64::NAN)),
        ("window", JsValue::from(-1)),
        ("window", JsValue::from(two_to_53)),
        ("window", JsValue::from("200000")),
        ("window", JsValue::from(1.5)),
        ("window", JsValue::from(10_000)),
        ("maxOutputTokens", JsValue::from(f64::INFINITY)),
        ("maxOutputTokens", JsValue::from("abc")),
        ("reserveCap", JsValue::from(0)),
        ("ceiling", JsValue::NULL),
        ("overridePct", JsValue::from(150)),
    ] {
        let mut pairs = vec![("window", JsValue::from(200_000))];
        if field == "window" {
            pairs.clear();
        }
        pairs.push((field, value));
        assert_rejected(settings(&pairs), field);
        // The same module answers the next call.
        let t = thresholds(settings(&[("window", 200_000.into())])).unwrap();
        assert_eq!(get(&t, "compact").as_f64(), Some(167_000.0));
    }
}

#[wasm_bindgen_test]
fn missing_unknown_and_non_object_settings_are_errors() {
    assert_rejected(settings(&[]), "window");
    assert_rejected(
        settings(&[("window", 200_000.into()), ("maxOutput", 1.into())]),
        "maxOutput",
    );
    assert_rejected(JsValue::from(200_000), "settings");
    assert_rejected(JsValue::UNDEFINED, "settings");
}
