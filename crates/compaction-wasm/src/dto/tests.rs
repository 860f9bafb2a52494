//! The mirrors against the engine's real output: every scenario played,
//! every step, count, `context_management` edit, finished compaction
//! and view message deserialized into its mirror, unknown fields
//! refused. A change in the engine's shapes fails here, not in a user's
//! TypeScript.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;
use compaction_core::compact::Progress as CoreProgress;
use compaction_core::engine::{drive, Answer, Engine, Host, Request as CoreRequest};
use compaction_scenarios::{self as scenarios, Event};
use serde::de::DeserializeOwned;

/// A DTO serializes (the generated type is what it writes).
fn mirror_out<T: Serialize + Clone>(value: &T) -> T {
    serde_json::to_value(value).unwrap();
    value.clone()
}

fn mirror<T: DeserializeOwned>(what: &str, value: &impl Serialize) -> T {
    let json = serde_json::to_value(value).unwrap();
    serde_json::from_value(json.clone()).unwrap_or_else(|e| panic!("{what}: {e}\n{json:#}"))
}

fn check_progress(scenario: &str, engine: &Engine, p: Option<&CoreProgress>, seen: &mut [bool; 4]) {
    if let Some(CoreProgress::Compacted { result }) = p {
        let _: Compacted = mirror(scenario, result);
        seen[1] = true;
    }
    for m in engine.view().sent_messages() {
        let _: Message = mirror(scenario, m);
    }
}

/// Every summary offline, every file read (as generated contents); the
/// requests it is asked are mirrored.
struct Mirroring<'a> {
    scenario: &'a str,
    files: bool,
}

impl Host for Mirroring<'_> {
    type Error = std::convert::Infallible;

    fn summarize(
        &mut self,
        request: &compaction_core::compact::SummaryRequest,
    ) -> Result<Answer, Self::Error> {
        let _: SummaryRequest = mirror(self.scenario, &SummaryRequest::from_core(request.clone()));
        Ok(Answer::Offline)
    }

    fn read_files(
        &mut self,
        paths: &[String],
    ) -> Result<Vec<compaction_core::compact::FileAnswer>, Self::Error> {
        self.files = true;
        Ok(paths
            .iter()
            .map(|p| compaction_core::compact::FileAnswer {
                path: p.clone(),
                content: Ok(format!("contents of {p}")),
            })
            .collect())
    }
}

#[test]
fn mirrors_match_the_engine() {
    // [steps, compacted, context management, attachments]
    let mut seen = [false; 4];
    for scenario in scenarios::all() {
        let name = scenario.name;
        let mut engine = Engine::new(scenario.settings.clone()).unwrap();
        for event in &scenario.events {
            match event {
                Event::Append(m) => {
                    engine.append((**m).clone()).unwrap();
                    continue;
                }
                Event::Pin(uuid) => {
                    engine.pin(uuid).unwrap();
                    continue;
                }
                Event::Call(now) => {
                    let d = engine.before_call(now.as_ref());
                    for step in &d.steps {
                        let _: Step = mirror(name, step);
                        seen[0] = true;
                    }
                    let _: TokenFigure = mirror(name, &d.count);
                    let _: Thresholds = mirror(name, &Thresholds::from(d.lines.clone()));
                    if let Some(cm) = &d.context_management {
                        let _: ContextManagement = mirror(name, cm);
                        seen[2] = true;
                    }
                }
                Event::Compact(instructions) => {
                    engine.compact(compaction_core::compact::CompactOptions {
                        instructions: instructions.clone(),
                    });
                }
                Event::PromptTooLong(_) => {
                    engine.prompt_too_long();
                }
            }
            // Every request answered through the engine's driver.
            let mut host = Mirroring {
                scenario: name,
                files: false,
            };
            let out = drive(&mut engine, &mut host).unwrap();
            seen[3] |= host.files;
            check_progress(name, &engine, out.compaction.as_ref(), &mut seen);
        }
    }
    assert_eq!(seen, [true; 4], "every mirrored shape was exercised");
}

/// Every attachment kind (SPEC R7.7) in a finished compaction mirrors.
#[test]
fn every_attachment_kind_mirrors() {
    use compaction_core::compact::attachments::Kind;
    use compaction_core::compact::{ContextItem as CoreItem, HookOutput as CoreHook};
    use compaction_core::message::{Block, Content, Message as CoreMessage, Role, ToolResultContent};
    let mut s = compaction_core::engine::Preset::Seed.settings(200_000);
    s.compact.attachments.post_compact_hooks = true;
    let mut e = Engine::new(s).unwrap();
    e.append(CoreMessage::user("u", "plan it")).unwrap();
    for (n, (name, input)) in [
        ("ExitPlanMode", serde_json::json!({"plan": "1. do it"})),
        (
            "TodoWrite",
            serde_json::json!({"todos": [{"content": "do it", "status": "pending"}]}),
        ),
        ("Skill", serde_json::json!({"skill": "pdf"})),
        ("Read", serde_json::json!({"file_path": "a.rs"})),
    ]
    .into_iter()
    .enumerate()
    {
        let id = format!("toolu_{n}");
        e.append(CoreMessage::new(
            format!("c{n}"),
            Role::Assistant,
            Content::Blocks(vec![Block::ToolUse {
                id: id.clone(),
                name: name.into(),
                input: compaction_core::message::Json::from_value(&input),
                extra: Default::default(),
            }]),
        ))
        .unwrap();
        e.append(CoreMessage::new(
            format!("r{n}"),
            Role::User,
            Content::Blocks(vec![Block::ToolResult {
                tool_use_id: id,
                content: ToolResultContent::Text("ok".into()),
                is_error: None,
                extra: Default::default(),
            }]),
        ))
        .unwrap();
    }
    e.append(CoreMessage::user("u2", "go on")).unwrap();
    e.set_context(vec![CoreItem {
        kind: Kind::Mcp,
        name: "github".into(),
        content: "use it".into(),
    }])
    .unwrap();
    let out = e.compact(Default::default());
    let out = e.answer(out.requests[0].id(), Answer::allow()).unwrap();
    let out = e.answer(out.requests[0].id(), Answer::Offline).unwrap();
    let Some(CoreRequest::Files(request)) = out.requests.first() else {
        panic!("{out:?}")
    };
    let _: FileRequest = mirror("files", request);
    let _: Request = mirror_out(&Request::from_core(out.requests[0].clone()));
    let hooks = vec![CoreHook {
        hook: "h".into(),
        output: "out".into(),
    }];
    let out = e
        .answer(
            request.id,
            Answer::Files {
                files: Vec::new(),
                hooks,
            },
        )
        .unwrap();
    let Some(CoreProgress::Compacted { result }) = out.compaction else {
        panic!("{out:?}")
    };
    let mirrored: Compacted = mirror("kinds", &result);
    let json = serde_json::to_value(&mirrored).unwrap();
    let kinds: Vec<&str> = json["attachments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["file", "plan", "taskState", "skill", "mcp", "hookOutput"]);
}

#[test]
fn on_demand_compaction_mirrors_the_engine() {
    let mut engine = Engine::new(compaction_core::engine::Preset::Seed.settings(200_000)).unwrap();
    engine
        .append(compaction_core::message::Message::user("u1", "hi"))
        .unwrap();
    for instructions in [Some("Keep ids."), None] {
        let r = engine.compaction_request(instructions).unwrap();
        let m: OnDemandCompaction = mirror("on-demand compaction", &r);
        assert_eq!(
            (m.summarised, m.compaction.kind.as_str()),
            (vec!["u1".to_owned()], "summarize")
        );
        assert_eq!(m.compaction.instructions.as_deref(), instructions);
        assert_eq!(m.betas, vec!["compact-2026-09-04"]);
    }
}
