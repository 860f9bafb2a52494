//! The records the engine writes (issue 29): with the `newer-client`
//! preset a boundary's `compactMetadata` is Claude Code 2.1.170's
//! (`postTokens`, `durationMs` when the host measured the summary call,
//! `preservedSegment {headUuid, anchorUuid, tailUuid}`, `preservedMessages
//! {anchorUuid, uuids, allUuids}`, as in `hand__preserved-segment-2.1.170.jsonl`),
//! the importer reads every field of it back typed, a field it does not
//! know is kept, and a resume of the file is the summary, then exactly the
//! preserved messages. The seed preset keeps SPEC R7.9's shape.

use super::at;
use crate::common::{split, Allow, Stage};
use compaction_core::compact::{CompactOptions, Compacted};
use compaction_core::engine::{Answer, Engine, Preset};
use compaction_core::message::{Content, Role, Uuid};
use compaction_core::transcript::log::SessionLog;
use compaction_core::transcript::{import, Transcript};
use serde_json::{json, Value};

/// An engine and the log its host writes, messages with made uuids.
struct Host {
    engine: Engine,
    log: SessionLog,
}

impl Host {
    fn new(preset: Preset) -> Self {
        let mut settings = preset.settings(200_000);
        // Three groups kept verbatim.
        settings.compact.preserve_groups = 3;
        Host {
            engine: Engine::new(settings).unwrap(),
            log: SessionLog::new("s-written".into()),
        }
    }

    fn say(&mut self, role: Role, content: Content) -> Uuid {
        super::say_logged(&mut self.engine, &mut self.log, role, content)
    }

    /// A prompt and a long reply.
    fn turn(&mut self, n: usize) {
        self.say(Role::User, Content::Text(format!("turn {n}: explain f{n}.rs")));
        let reply = format!("f{n}.rs: line {n}\n").repeat(300);
        self.say(Role::Assistant, Content::Text(reply));
    }

    /// A manual compaction whose summary the model wrote in `took` ms (or
    /// an unmeasured time), no file re-attached, logged.
    fn compact(&mut self, took: Option<u64>) -> Box<Compacted> {
        let e = &mut self.engine;
        let text = "<summary>explained f1.rs to f3.rs</summary>";
        let summary = match took {
            Some(ms) => Answer::text_took(text, ms),
            None => Answer::text(text),
        };
        let mut out = e.compact(CompactOptions::default()).allowed(e);
        let result = loop {
            out = match split(out).1 {
                Stage::NeedsSummary { request } => e.answer(request.id, summary.clone()),
                Stage::NeedsFiles { request } => e.answer(request.id, crate::common::files(&[])),
                Stage::Compacted { result } => break result,
                other => panic!("{other:?}"),
            }
            .unwrap();
        };
        self.log.compacted(&result, &result.restored, at());
        result
    }

    fn file(&self) -> String {
        let mut out = String::new();
        for line in self.log.records(self.engine.store()) {
            out.push_str(&line);
            out.push('\n');
        }
        out
    }
}

/// The file's compact_boundary record.
fn boundary_line(file: &str) -> Value {
    let line = file
        .lines()
        .find(|l| l.contains(r#""subtype":"compact_boundary""#))
        .unwrap();
    serde_json::from_str(line).unwrap()
}

/// Three turns, the last one's reply pinned before the next prompt (a pin
/// record chained there), compacted: the summary, then the last turn kept
/// verbatim.
fn compacted(preset: Preset, took: Option<u64>) -> (Host, Box<Compacted>) {
    let mut host = Host::new(preset);
    host.turn(1);
    host.turn(2);
    host.say(Role::User, Content::Text("turn 3: and f3.rs".into()));
    let reply = host.say(Role::Assistant, Content::Text("reading it".into()));
    host.engine.pin(&reply).unwrap();
    host.log.pinned(&reply, true, at());
    host.say(Role::User, Content::Text("go on".into()));
    host.say(Role::Assistant, Content::Text("f3.rs read".into()));
    let result = host.compact(took);
    (host, result)
}

fn uuids(t: &Transcript) -> Vec<String> {
    t.resume()
        .messages
        .iter()
        .map(|m| m.message.uuid.0.clone())
        .collect()
}

#[test]
fn newer_client_boundaries_are_written_as_claude_code_2_1_170_writes_them() {
    let (host, result) = compacted(Preset::NewerClient, Some(91_236));
    let file = host.file();
    let boundary = boundary_line(&file);
    let kept = &result.boundary.compact_metadata.preserved_messages;
    let summary = result.summary.uuid.as_str();
    let pin = file
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["subtype"] == compaction_core::transcript::expand::PINNED_SUBTYPE)
        .map(|r| r["uuid"].as_str().unwrap().to_owned())
        .unwrap();
    // The golden: the kept messages are the last three groups (m6 – m8),
    // the pin record chained between m6 and m7.
    assert_eq!(kept, &["m6", "m7", "m8"].map(Uuid::from));
    let post = result.boundary.compact_metadata.post_tokens;
    let pre = result.boundary.compact_metadata.pre_tokens;
    assert_eq!(
        boundary["compactMetadata"],
        json!({
            "trigger": "manual",
            "preTokens": pre,
            "postTokens": post,
            "durationMs": 91_236,
            "preservedSegment": {"headUuid": "m6", "anchorUuid": summary, "tailUuid": "m8"},
            "preservedMessages": {
                "anchorUuid": summary,
                "uuids": ["m6", "m7", "m8"],
                "allUuids": ["m6", pin, "m7", "m8"],
            },
        })
    );
    // Key order as Claude Code's.
    let written = file.lines().find(|l| l.contains("compact_boundary")).unwrap();
    let order: Vec<usize> = [
        "\"trigger\"",
        "\"preTokens\"",
        "\"postTokens\"",
        "\"durationMs\"",
        "\"preservedSegment\"",
        "\"preservedMessages\"",
    ]
    .iter()
    .map(|k| written.find(k).unwrap())
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{written}");

    // Read back: every field typed, nothing left over, the same JSON.
    let t = import(file.as_bytes());
    assert!(t.problems.is_empty(), "{:?}", t.problems);
    let meta = t.boundaries[0].metadata.as_ref().unwrap();
    assert_eq!(meta.post_tokens, Some(post));
    assert_eq!(meta.duration_ms, Some(91_236));
    let segment = meta.preserved_segment.as_ref().unwrap();
    assert_eq!(segment.anchor_uuid.as_ref().map(Uuid::as_str), Some(summary));
    assert!(meta.extra.is_empty(), "{:?}", meta.extra);
    assert_eq!(serde_json::to_value(meta).unwrap(), boundary["compactMetadata"]);
    // The resume: the summary, then exactly the preserved uuids (the
    // pinned reply among them), then what the compaction re-attached, as
    // the live view.
    let mut expected = vec![summary.to_owned()];
    expected.extend(kept.iter().map(|u| u.0.clone()));
    expected.extend(result.restored.iter().map(|m| m.uuid.0.clone()));
    assert_eq!(uuids(&t), expected);
    let view: Vec<String> = host
        .engine
        .view()
        .sent_messages()
        .map(|m| m.uuid.0.clone())
        .collect();
    assert_eq!(uuids(&t), view);
}

#[test]
fn a_field_the_importer_does_not_know_round_trips_through_the_engines_record() {
    let (host, _) = compacted(Preset::NewerClient, Some(91_236));
    let file = host.file();
    let edited = file.replacen(
        r#""durationMs":91236,"#,
        r#""durationMs":91236,"messagesSummarized":8,"compactModel":{"id":"claude-opus-4-6"},"#,
        1,
    );
    assert_ne!(edited, file);
    let t = import(edited.as_bytes());
    let meta = t.boundaries[0].metadata.as_ref().unwrap();
    assert_eq!(meta.extra.len(), 2, "{:?}", meta.extra);
    assert_eq!(
        serde_json::to_value(meta).unwrap(),
        boundary_line(&edited)["compactMetadata"]
    );
    assert_eq!(uuids(&t), uuids(&import(file.as_bytes())));
}

#[test]
fn without_a_measured_duration_no_duration_is_written() {
    let (host, result) = compacted(Preset::NewerClient, None);
    assert_eq!(result.boundary.compact_metadata.duration_ms, None);
    let meta = &boundary_line(&host.file())["compactMetadata"];
    assert!(meta.get("durationMs").is_none(), "{meta}");
    assert!(meta.get("preservedSegment").is_some(), "{meta}");
}

#[test]
fn the_seed_preset_writes_spec_r7_9s_list_and_the_duration_it_was_given() {
    let (host, result) = compacted(Preset::Seed, Some(1_500));
    let file = host.file();
    let meta = &boundary_line(&file)["compactMetadata"];
    let kept: Vec<&str> = (result.boundary.compact_metadata.preserved_messages.iter())
        .map(Uuid::as_str)
        .collect();
    assert_eq!(meta["preservedMessages"], json!(kept));
    assert_eq!(meta["durationMs"], 1_500);
    assert!(meta.get("cumulativeDroppedTokens").is_some(), "{meta}");
    assert!(meta.get("preservedSegment").is_none(), "{meta}");
    // The outcome's own shape is the same for both presets.
    let (_, newer) = compacted(Preset::NewerClient, Some(1_500));
    let keys = |c: &Compacted| {
        let v = serde_json::to_value(&c.boundary.compact_metadata).unwrap();
        v.as_object().unwrap().keys().cloned().collect::<Vec<_>>()
    };
    assert_eq!(keys(&result), keys(&newer));
    let t = import(file.as_bytes());
    let mut expected = vec![result.summary.uuid.0.clone()];
    expected.extend(kept.iter().map(|u| (*u).to_owned()));
    expected.extend(result.restored.iter().map(|m| m.uuid.0.clone()));
    assert_eq!(uuids(&t), expected);
}
