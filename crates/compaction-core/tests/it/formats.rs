//! Provider formats (`compaction_core::format`): 160-turn tool-heavy
//! histories in the AI SDK, Chat Completions, Responses and LangChain
//! shapes go through the engine with a tier firing, and come back paired
//! in the format's own terms, with the untouched tail deep-equal and every
//! signature and `encrypted_content` byte for byte.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

mod gen;

use std::collections::HashSet;

use compaction_core::engine::{drive, Engine, EngineSettings, Preset};
use compaction_core::format::{Emit, Format, Ledger};
use compaction_core::message::Uuid;
use compaction_core::time::Timestamp;
use proptest::prelude::*;
use serde_json::{json, Value};

use crate::common::Offline;

const T0: i64 = 1_780_000_000_000;

/// An engine holding `items`, each message stamped 10 s after the last.
fn load(format: Format, items: &[Value], settings: EngineSettings) -> (Engine, Ledger) {
    let mut engine = Engine::new(settings).unwrap();
    let mut ledger = Ledger::new(format);
    let converted = ledger.read(&Value::Array(items.to_vec()).to_string()).unwrap();
    for (n, c) in converted.into_iter().enumerate() {
        let preamble = c.preamble;
        let (mut m, origin) = c.into_message(Uuid(format!("m{n}")));
        m.timestamp = Some(Timestamp::from_unix_ms(T0 + n as i64 * 10_000));
        ledger.record(&m, origin, preamble);
        if preamble {
            engine.set_system(ledger.system_text());
        } else {
            engine.append(m).unwrap();
        }
    }
    (engine, ledger)
}

fn export(engine: &Engine, ledger: &Ledger) -> Vec<Value> {
    let store = engine.store();
    ledger
        .export(engine.view().sent_messages(), |u| store.get(u).map(|m| &**m))
        .iter()
        .map(|e| serde_json::from_str(e.text()).unwrap())
        .collect()
}

/// The settings every format gets off Anthropic: no server-side context
/// editing (Tier 1 takes the client's path).
fn settings() -> EngineSettings {
    let mut s = Preset::Seed.settings(200_000);
    s.microcompact.context_editing = false;
    s
}

fn str_of<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

/// Every call keeps its result, in the format's own terms, and the history
/// starts as the provider requires (system, then a user message or a
/// compaction item).
fn pairing(format: Format, items: &[Value]) -> Result<(), String> {
    let mut open: Vec<String> = Vec::new();
    let mut first = true;
    for (i, v) in items.iter().enumerate() {
        let (kind, calls, results): (&str, Vec<String>, Vec<String>) = match format {
            Format::AiSdk => {
                let role = str_of(v, "/role");
                let parts = v["content"].as_array().cloned().unwrap_or_default();
                let ids = |t: &str| -> Vec<String> {
                    parts
                        .iter()
                        .filter(|p| p["type"] == t && p["providerExecuted"] != json!(true))
                        .map(|p| str_of(p, "/toolCallId").to_owned())
                        .collect()
                };
                match role {
                    "assistant" => ("model", ids("tool-call"), vec![]),
                    "tool" => ("results", vec![], ids("tool-result")),
                    r => (if r == "system" { "system" } else { "user" }, vec![], vec![]),
                }
            }
            Format::OpenAiChat => match str_of(v, "/role") {
                "assistant" => (
                    "model",
                    v["tool_calls"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|c| str_of(c, "/id").to_owned())
                        .collect(),
                    vec![],
                ),
                "tool" => ("results", vec![], vec![str_of(v, "/tool_call_id").to_owned()]),
                "system" | "developer" => ("system", vec![], vec![]),
                _ => ("user", vec![], vec![]),
            },
            Format::OpenAiResponses => {
                let t = v["type"].as_str().unwrap_or("message");
                let id = str_of(v, "/call_id").to_owned();
                match (t, str_of(v, "/role")) {
                    (_, "system" | "developer") => ("system", vec![], vec![]),
                    ("message", "user") | ("compaction", _) => ("user", vec![], vec![]),
                    _ if !id.is_empty() && t.ends_with("_output") => ("results", vec![], vec![id]),
                    _ if !id.is_empty() => ("model-cont", vec![id], vec![]),
                    _ => ("model-cont", vec![], vec![]),
                }
            }
            Format::LangChain => match str_of(v, "/type") {
                "ai" => (
                    "model",
                    v["data"]["tool_calls"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|c| str_of(c, "/id").to_owned())
                        .collect(),
                    vec![],
                ),
                "tool" => (
                    "results",
                    vec![],
                    vec![str_of(v, "/data/tool_call_id").to_owned()],
                ),
                "system" => ("system", vec![], vec![]),
                _ => ("user", vec![], vec![]),
            },
            Format::Anthropic => unreachable!(),
        };
        if kind == "system" {
            if !first && format != Format::OpenAiResponses {
                // Mid-conversation system messages are allowed; none here.
                return Err(format!("item {i}: a system message after the start"));
            }
            continue;
        }
        if first && kind != "user" {
            return Err(format!("item {i}: the history starts with a {kind} item"));
        }
        first = false;
        for id in results {
            let Some(at) = open.iter().position(|o| *o == id) else {
                return Err(format!("item {i}: result `{id}` answers no open call"));
            };
            open.remove(at);
        }
        if (kind == "user" || kind == "model") && !open.is_empty() {
            return Err(format!("item {i}: calls {open:?} have no result before it"));
        }
        open.extend(calls);
    }
    if open.is_empty() {
        Ok(())
    } else {
        Err(format!("calls {open:?} never answered"))
    }
}

/// Every object of `v`, as canonical text.
fn objects(v: &Value, out: &mut HashSet<String>) {
    match v {
        Value::Object(map) => {
            out.insert(v.to_string());
            map.values().for_each(|x| objects(x, out));
        }
        Value::Array(list) => list.iter().for_each(|x| objects(x, out)),
        _ => {}
    }
}

const SIGNED: [&str; 4] = [
    "encrypted_content",
    "reasoningEncryptedContent",
    "signature",
    "thoughtSignature",
];

/// Every signed object in `out` (a reasoning part or item, a signed
/// thinking block, a compaction item) is one of `input`'s, byte for byte.
fn signed_kept(input: &[Value], out: &[Value]) -> Result<usize, String> {
    let mut known = HashSet::new();
    input.iter().for_each(|v| objects(v, &mut known));
    let mut seen = HashSet::new();
    out.iter().for_each(|v| objects(v, &mut seen));
    let mut n = 0;
    for text in &seen {
        let v: Value = serde_json::from_str(text).unwrap();
        if SIGNED.iter().any(|k| v.get(*k).is_some()) {
            n += 1;
            if !known.contains(text) {
                return Err(format!("signed object changed: {text}"));
            }
        }
    }
    Ok(n)
}

fn generate(format: Format, turns: usize, size: usize) -> Vec<Value> {
    match format {
        Format::AiSdk => gen::ai_sdk(turns, size),
        Format::OpenAiChat => gen::openai_chat(turns, size),
        Format::OpenAiResponses => gen::openai_responses(turns, size),
        Format::LangChain => gen::langchain(turns, size),
        Format::Anthropic => unreachable!(),
    }
}

const CONVERTED: [Format; 4] = [
    Format::AiSdk,
    Format::OpenAiChat,
    Format::OpenAiResponses,
    Format::LangChain,
];

/// How many items the last `turns` turns hold (from the last user prompt
/// back).
fn tail_len(format: Format, items: &[Value], turns: usize) -> usize {
    let prompt = |v: &Value| match format {
        Format::LangChain => v["type"] == "human",
        _ => v["role"] == "user",
    };
    let starts: Vec<usize> = (0..items.len()).filter(|&i| prompt(&items[i])).collect();
    items.len() - starts[starts.len() - turns]
}

fn check_after_tier(format: Format, input: &[Value], out: &[Value], turns: usize) {
    pairing(format, input).unwrap_or_else(|e| panic!("{format:?} input: {e}"));
    pairing(format, out).unwrap_or_else(|e| panic!("{format:?} export: {e}"));
    let tail = tail_len(format, input, turns);
    assert!(out.len() >= tail, "{format:?}: {out:#?}");
    assert_eq!(
        &out[out.len() - tail..],
        &input[input.len() - tail..],
        "{format:?}: the untouched tail comes back deep-equal"
    );
    assert_eq!(out[0], input[0], "{format:?}: the system prompt stays first");
    let signed = signed_kept(input, out).unwrap_or_else(|e| panic!("{format:?}: {e}"));
    // LangChain's only signed blocks are Anthropic thinking, which R13.1
    // drops after a rewrite.
    assert!(
        signed > 0 || format == Format::LangChain,
        "{format:?}: signed objects survive"
    );
}

#[test]
fn format_names_round_trip() {
    for f in Format::ALL {
        assert_eq!(Format::from_name(f.name()), Some(f));
    }
    assert_eq!(Format::from_name("openai"), None);
    assert!(Format::Anthropic.context_editing() && !Format::AiSdk.context_editing());
}

#[test]
fn untouched_histories_come_back_deep_equal() {
    for f in CONVERTED {
        let input = generate(f, 12, 200);
        let (mut engine, ledger) = load(f, &input, settings());
        let d = engine.before_call(None);
        assert!(d.steps.is_empty(), "{f:?}: nothing fires");
        let out = export(&engine, &ledger);
        assert_eq!(out, input, "{f:?}");
        // Every item is the original itself, not a copy.
        let store = engine.store();
        let emits = ledger.export(engine.view().sent_messages(), |u| store.get(u).map(|m| &**m));
        assert!(
            emits
                .iter()
                .enumerate()
                .all(|(i, e)| matches!(e, Emit::Kept { id, .. } if *id == i)),
            "{f:?}"
        );
    }
}

#[test]
fn r4_4_time_based_clearing_patches_results_in_each_format() {
    for f in CONVERTED {
        let input = generate(f, 160, 2_000);
        let (mut engine, ledger) = load(f, &input, settings());
        let now = Timestamp::from_unix_ms(T0 + 10_000 * input.len() as i64 + 2 * 3_600_000);
        let d = engine.before_call(Some(&now));
        let tier1 = d
            .steps
            .iter()
            .find(|s| s.rule.starts_with("R4.4"))
            .unwrap_or_else(|| panic!("{f:?}: {:?}", d.steps));
        assert!(tier1.count_after.tokens < tier1.count_before.tokens);
        assert!(
            tier1.reason.contains("no server-side context editing"),
            "{}",
            tier1.reason
        );
        let out = export(&engine, &ledger);
        check_after_tier(f, &input, &out, 2);
        let text = Value::Array(out.clone()).to_string();
        assert!(
            text.contains("[content no longer available]"),
            "{f:?}: cleared results carry the sentinel"
        );
        assert_eq!(out.len(), input.len(), "{f:?}: clearing removes no item");
    }
}

#[test]
fn a_compaction_in_each_format_starts_with_a_fresh_summary() {
    for f in CONVERTED {
        let input = generate(f, 160, 3_000);
        let mut s = settings();
        s.snip = false;
        s.collapse.enabled = false;
        let (mut engine, ledger) = load(f, &input, s);
        let d = engine.before_call(None);
        assert!(!d.requests.is_empty(), "{f:?}: a compaction is asked for");
        let outcome = drive(&mut engine, &mut Offline).unwrap();
        let out = export(&engine, &ledger);
        assert!(out.len() < input.len() / 2, "{f:?}: {outcome:?}");
        assert!(
            out.len() < input.len() / 2,
            "{f:?}: {} of {}",
            out.len(),
            input.len()
        );
        check_after_tier(f, &input, &out, 1);
    }
}

#[test]
fn a_responses_compaction_item_starts_the_view() {
    let mut input = gen::openai_responses(3, 100);
    let item = json!({"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAAcompacted=="});
    input.insert(5, item.clone());
    let (engine, ledger) = load(Format::OpenAiResponses, &input, settings());
    let out = export(&engine, &ledger);
    assert_eq!(out[0], input[0], "the developer message stays first");
    assert_eq!(out[1], item);
    assert_eq!(&out[2..], &input[6..]);
}

#[test]
fn errors_name_the_field() {
    let cases: [(Format, Value, &str); 6] = [
        (
            Format::AiSdk,
            json!([{"role": "user", "content": "a"}, {"role": "tool", "content": [{"type": "tool-result", "toolName": "x", "output": {"type": "text", "value": ""}}]}]),
            "messages[1].content[0].toolCallId",
        ),
        (
            Format::AiSdk,
            json!([{"role": "robot", "content": "a"}]),
            "messages[0].role",
        ),
        (
            Format::OpenAiChat,
            json!([{"role": "tool", "content": "x"}]),
            "messages[0].tool_call_id",
        ),
        (
            Format::OpenAiChat,
            json!([{"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"arguments": "{}"}}]}]),
            "messages[0].tool_calls[0].function.name",
        ),
        (
            Format::OpenAiResponses,
            json!([{"type": "compaction"}]),
            "messages[0].encrypted_content",
        ),
        (
            Format::LangChain,
            json!([{"type": "tool", "data": {"content": "x"}}]),
            "messages[0].data.tool_call_id",
        ),
    ];
    for (f, items, path) in cases {
        let err = Ledger::new(f).read(&items.to_string()).unwrap_err();
        assert_eq!(err.path, path, "{f:?}: {err}");
    }
    assert_eq!(Ledger::new(Format::AiSdk).read("{").unwrap_err().path, "messages");
    assert_eq!(
        Ledger::new(Format::AiSdk).read("[1]").unwrap_err().path,
        "messages[0]"
    );
}

#[test]
fn lone_surrogates_read_as_the_replacement_character_in_every_format() {
    // Issue 27: a JS string cut inside an emoji (JSON.stringify writes the
    // lone half as `\ud83d`) was refused in all four formats, with "must be
    // a string or a list of parts"; the engine and the importer read U+FFFD.
    let cases = [
        (Format::AiSdk, r#"[{"role":"user","content":"cut \ud83d here"}]"#),
        (
            Format::OpenAiChat,
            r#"[{"role":"user","content":"cut \ud83d here"}]"#,
        ),
        (
            Format::OpenAiResponses,
            r#"[{"role":"user","content":[{"type":"input_text","text":"cut \ud83d here"}]}]"#,
        ),
        (
            Format::LangChain,
            r#"[{"type":"human","data":{"content":"cut \udc00 here"}}]"#,
        ),
    ];
    for (format, items) in cases {
        let converted = Ledger::new(format)
            .read(items)
            .unwrap_or_else(|e| panic!("{format:?}: {e}"));
        let (m, _) = converted
            .into_iter()
            .next()
            .unwrap()
            .into_message(Uuid("m".into()));
        let text = serde_json::to_string(&m.content).unwrap();
        assert!(text.contains("cut \u{fffd} here"), "{format:?}: {text}");
    }
}

#[test]
fn r13_1_signed_reasoning_is_dropped_whole_after_a_rewrite() {
    let input = gen::ai_sdk(160, 2_000);
    let (mut engine, ledger) = load(Format::AiSdk, &input, settings());
    let now = Timestamp::from_unix_ms(T0 + 10_000 * input.len() as i64 + 2 * 3_600_000);
    engine.before_call(Some(&now));
    let out = export(&engine, &ledger);
    let signed = |v: &Value| v.to_string().contains("EqQBCkYIARgC");
    assert!(input.iter().any(signed));
    assert!(
        !out.iter().any(signed),
        "every Anthropic signature after the rewrite is gone"
    );
    let mut kept = 0;
    for v in out.iter().filter(|v| v["role"] == "assistant") {
        // A message that held signed reasoning keeps everything else.
        if let Some(orig) = input.iter().find(|o| {
            o["role"] == "assistant"
                && o["content"].as_array().is_some_and(|p| p.len() == 2)
                && o["content"][1] == v["content"][0]
                && signed(o)
        }) {
            assert_eq!(v["content"].as_array().map(Vec::len), Some(1));
            assert_eq!(v["content"][0], orig["content"][1]);
            kept += 1;
        }
    }
    assert!(kept > 0, "messages that held signed reasoning keep their text");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// Any length, size and idle gap: whatever fires, every export pairs
    /// in its format's terms and its signed objects are the input's.
    #[test]
    fn exports_pair_and_keep_signatures(
        f in 0usize..4, turns in 2usize..70, size in 10usize..4_000, idle in prop::bool::ANY, window in 30_000u64..200_000,
    ) {
        let f = CONVERTED[f];
        // The last turn holds no Anthropic-signed thinking (R13.1 may drop it).
        let turns = if turns % 10 == 6 { turns + 1 } else { turns };
        let input = generate(f, turns, size);
        let mut s = settings();
        s.thresholds = compaction_core::thresholds::ThresholdSettings::for_window(window);
        let (mut engine, ledger) = load(f, &input, s);
        let now = Timestamp::from_unix_ms(T0 + 10_000 * input.len() as i64 + if idle { 7_200_000 } else { 0 });
        engine.before_call(Some(&now));
        drive(&mut engine, &mut Offline).unwrap();
        let out = export(&engine, &ledger);
        prop_assert!(pairing(f, &out).is_ok(), "{:?}: {:?}", f, pairing(f, &out));
        prop_assert!(signed_kept(&input, &out).is_ok());
        let tail = tail_len(f, &input, 1);
        prop_assert_eq!(&out[out.len() - tail..], &input[input.len() - tail..]);
    }
}
