//! Export (SPEC R7.9, R11.2): a compaction by the engine on an imported
//! session, appended to the file in Claude Code's shape, resumes to the
//! view the live session had.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use crate::common::fixture;
use crate::common::{files, split, Allow, Stage};
use compaction_core::compact::{CompactOptions, FileAnswer};
use compaction_core::engine::Answer;
use compaction_core::engine::Engine;
use compaction_core::engine::Preset;
use compaction_core::message::Message;
use compaction_core::time::Timestamp;
use compaction_core::transcript::export::{compaction_records, RecordContext};
use compaction_core::transcript::{import, Resume};
use compaction_core::view::Source;

/// An engine holding a resumed view, as a resumed session would have it.
fn engine_from(resume: Resume) -> Engine {
    let mut engine = Engine::new(Preset::Seed.settings(200_000)).unwrap();
    for m in resume.messages {
        if m.is_compact_summary {
            engine
                .append_summary(std::sync::Arc::unwrap_or_clone(m.message))
                .unwrap();
        } else {
            engine.append(std::sync::Arc::unwrap_or_clone(m.message)).unwrap();
        }
    }
    engine
}

fn sent(engine: &Engine) -> Vec<Message> {
    engine.view().sent_messages().cloned().collect()
}

fn round_trip(name: &str) {
    let file = fixture(name);
    let mut live = engine_from(import(&file).resume());
    let (_, mut progress) = split(live.compact(CompactOptions::default()).allowed(&mut live));
    let compacted = loop {
        progress = match progress {
            Stage::NeedsSummary { request } => live.answer(request.id, Answer::Offline).map(split).unwrap().1,
            Stage::NeedsFiles { request } => {
                let answers: Vec<FileAnswer> = request
                    .paths
                    .iter()
                    .enumerate()
                    .map(|(i, p)| FileAnswer {
                        path: p.clone(),
                        content: if i % 2 == 0 {
                            Ok(format!("contents of {p}"))
                        } else {
                            Err("gone".into())
                        },
                    })
                    .collect();
                live.answer(request.id, files(&answers)).map(split).unwrap().1
            }
            Stage::Compacted { result } => break result,
            Stage::Failed { reason } => panic!("{name}: {reason}"),
            Stage::NeedsCollapse { .. } => panic!("{name}: a manual compaction asks for no segment"),
        };
    };
    let attachments: Vec<Message> = live
        .view()
        .entries()
        .iter()
        .filter(|e| e.source == Source::Attachment)
        .map(|e| (*e.message).clone())
        .collect();
    let ctx = RecordContext {
        session_id: "exported-session".into(),
        version: "compaction-engine".into(),
        timestamp: Timestamp::parse("2026-11-29T12:00:00Z").unwrap(),
    };
    let mut extended = file.clone();
    if !extended.ends_with(b"\n") {
        extended.push(b'\n');
    }
    let records = compaction_records(&compacted, &attachments, &ctx);
    // Fields in Claude Code's order (as in the fixtures' own boundaries).
    assert!(
        records[0].starts_with(r#"{"parentUuid":null,"logicalParentUuid":"#),
        "{}",
        records[0]
    );
    assert!(
        records[0].contains(r#""type":"system","subtype":"compact_boundary","content":"#),
        "{}",
        records[0]
    );
    assert!(records[1].starts_with(r#"{"parentUuid":""#), "{}", records[1]);
    assert!(
        records[1].contains(r#""type":"user","message":{"role":"user","content":"#),
        "{}",
        records[1]
    );
    for line in &records {
        extended.extend_from_slice(line.as_bytes());
        extended.push(b'\n');
    }
    let transcript = import(&extended);
    let resumed = transcript.resume();
    assert_eq!(
        resumed.boundary.as_ref().map(|b| &b.uuid),
        Some(&compacted.boundary.uuid),
        "{name}"
    );
    let resumed_engine = engine_from(resumed);
    let (got, want) = (sent(&resumed_engine), sent(&live));
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.uuid, w.uuid, "{name}: message {i}");
        assert_eq!(g.role, w.role, "{name}: message {i} ({})", w.uuid);
        assert_eq!(g.content, w.content, "{name}: message {i} ({})", w.uuid);
        assert_eq!(g.usage, w.usage, "{name}: message {i} ({})", w.uuid);
        // The engine has no clock: the summary and attachments it wrote get
        // their time when the records are written.
        if live.view().entries()[i].source == Source::Stored {
            assert_eq!(g.timestamp, w.timestamp, "{name}: message {i} ({})", w.uuid);
        } else {
            assert_eq!(g.timestamp.as_ref(), Some(&ctx.timestamp), "{name}: message {i}");
        }
    }
    assert_eq!(
        got.len(),
        want.len(),
        "{name}: resume(export(x)) has another length than the live view"
    );
}

#[test]
fn r11_2_resume_of_an_export_is_the_live_view_on_a_session_without_boundaries() {
    round_trip("kzahel__yepanywhere__index.jsonl");
    round_trip("ivh__claudecode_to_html__89196983-226d-4cce-917d-f19967122f0b.jsonl");
}

#[test]
fn r11_2_resume_of_an_export_is_the_live_view_on_an_already_compacted_session() {
    round_trip("wpfleger96__claude-code-status-line__session_with_compact.jsonl");
    round_trip("marot__spotter__4d5611e5-241a-462a-8d15-5122611a9569.jsonl");
}

mod generated {
    //! The same round trip over generated sessions written as Claude Code
    //! files (property test; `PROPTEST_CASES` sets the count).

    use super::*;
    use compaction_core::message::{Block, Content, Role, ToolResultContent, Usage};
    use proptest::prelude::*;
    use serde_json::json;

    /// A session as JSONL records, chained by `parentUuid`.
    fn write(messages: &[Message]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut parent = serde_json::Value::Null;
        for (i, m) in messages.iter().enumerate() {
            let mut payload = json!({ "role": m.role, "content": m.content });
            if m.role == Role::Assistant {
                payload["id"] = json!(format!("msg_{i}"));
                payload["type"] = json!("message");
                if let Some(u) = &m.usage {
                    payload["usage"] = json!(u);
                }
            }
            let record = json!({
                "type": if m.role == Role::User { "user" } else { "assistant" },
                "uuid": m.uuid,
                "parentUuid": parent,
                "isSidechain": false,
                "sessionId": "generated",
                "timestamp": m.timestamp.as_ref().map(|t| t.as_str().to_owned()),
                "message": payload,
            });
            out.extend_from_slice(record.to_string().as_bytes());
            out.push(b'\n');
            parent = json!(m.uuid);
        }
        out
    }

    fn session() -> impl Strategy<Value = Vec<Message>> {
        prop::collection::vec((0u8..3, 1usize..3_000, prop::option::of(1_000u64..50_000)), 2..30).prop_map(
            |turns| {
                let mut out = Vec::new();
                for (i, (kind, chars, usage)) in turns.into_iter().enumerate() {
                    let ts = Some(Timestamp::from_unix_ms(1_796_000_000_000 + i as i64 * 60_000));
                    let mut prompt = Message::user(format!("u{i}"), format!("step {i}"));
                    prompt.timestamp = ts.clone();
                    out.push(prompt);
                    if kind == 0 {
                        let mut a = Message::assistant(format!("a{i}"), "w".repeat(chars));
                        a.timestamp = ts;
                        a.usage = usage.map(|u| {
                            Box::new(Usage {
                                input_tokens: u,
                                ..Usage::default()
                            })
                        });
                        out.push(a);
                    } else {
                        let id = format!("toolu_{i}");
                        let name = if kind == 1 { "Read" } else { "Edit" };
                        let mut call = Message::new(
                            format!("c{i}"),
                            Role::Assistant,
                            Content::Blocks(vec![Block::ToolUse {
                                id: id.clone(),
                                name: name.into(),
                                input: compaction_core::message::Json::from_value(
                                    &json!({"file_path": format!("src/f{}.rs", i % 4)}),
                                ),
                                extra: Default::default(),
                            }]),
                        );
                        call.timestamp = ts.clone();
                        call.usage = usage.map(|u| {
                            Box::new(Usage {
                                input_tokens: u,
                                ..Usage::default()
                            })
                        });
                        let mut result = Message::new(
                            format!("r{i}"),
                            Role::User,
                            Content::Blocks(vec![Block::ToolResult {
                                tool_use_id: id,
                                content: ToolResultContent::Text("x".repeat(chars * 3)),
                                is_error: None,
                                extra: Default::default(),
                            }]),
                        );
                        result.timestamp = ts;
                        out.push(call);
                        out.push(result);
                    }
                }
                out
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(1_000),
            ..ProptestConfig::default()
        })]

        #[test]
        fn resume_of_an_export_is_the_live_view(messages in session()) {
            let file = write(&messages);
            let mut live = engine_from(import(&file).resume());
            let (_, mut progress) = split(live.compact(CompactOptions::default()).allowed(&mut live));
            let compacted = loop {
                progress = match progress {
                    Stage::NeedsSummary { request } => live.answer(request.id, Answer::Offline).map(split).unwrap().1,
                    Stage::NeedsFiles { request } => {
                        let answers: Vec<FileAnswer> = request.paths.iter()
                            .map(|p| FileAnswer { path: p.clone(), content: Ok(format!("// {p}")) }).collect();
                        live.answer(request.id, files(&answers)).map(split).unwrap().1
                    }
                    Stage::Compacted { result } => break Some(result),
                    Stage::Failed { .. } => break None,
                    Stage::NeedsCollapse { .. } => panic!("a manual compaction asks for no segment"),
                };
            };
            let Some(compacted) = compacted else { return Ok(()) };
            let attachments: Vec<Message> = live.view().entries().iter()
                .filter(|e| e.source == Source::Attachment).map(|e| (*e.message).clone()).collect();
            let ctx = RecordContext {
                session_id: "generated".into(),
                version: "test".into(),
                timestamp: Timestamp::parse("2026-11-29T12:00:00Z").unwrap(),
            };
            let mut extended = file;
            for line in compaction_records(&compacted, &attachments, &ctx) {
                extended.extend_from_slice(line.as_bytes());
                extended.push(b'\n');
            }
            let resumed = engine_from(import(&extended).resume());
            let strip = |ms: Vec<Message>| ms.into_iter().map(|mut m| { m.timestamp = None; m }).collect::<Vec<_>>();
            prop_assert_eq!(strip(sent(&resumed)), strip(sent(&live)));
        }
    }
}
