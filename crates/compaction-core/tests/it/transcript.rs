//! Session-file import and resume (SPEC R11) on the real files under
//! `tests/fixtures/transcripts/` (see `SOURCES.tsv` there) and on hand-made
//! files for every era and every problem kind. Property tests: chunk-size
//! independence, no panic on any bytes, a pairing-legal resumed view for
//! any generated record graph. Cases: 64 by default, `PROPTEST_CASES` to
//! change; failures are saved under `tests/it/transcript/` and replayed first.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

use crate::common::{fixture, FIXTURES};
use std::collections::BTreeMap;

use compaction_core::groups::pairing_is_legal;
use compaction_core::message::{Message, Role, Usage};
use compaction_core::transcript::{import, Importer, ProblemKind, Transcript, Unanswered, UNANSWERED_RESULT};
use serde_json::{json, Value};

const SPOTTER: &str = "marot__spotter__4d5611e5-241a-462a-8d15-5122611a9569.jsonl";
const STATUS_LINE: &str = "wpfleger96__claude-code-status-line__session_with_compact.jsonl";
const FASTHOOKS: &str = "oneryalcin__fasthooks__sample_main_transcript.jsonl";
const YEPANYWHERE: &str = "kzahel__yepanywhere__index.jsonl";
const TO_HTML: &str = "ivh__claudecode_to_html__89196983-226d-4cce-917d-f19967122f0b.jsonl";

fn jsonl(records: &[Value]) -> Vec<u8> {
    records
        .iter()
        .map(|r| format!("{r}\n"))
        .collect::<String>()
        .into_bytes()
}

fn kinds(t: &Transcript) -> Vec<(u32, ProblemKind)> {
    t.problems.iter().map(|p| (p.line, p.kind)).collect()
}

/// Both repairs of unanswered calls give a view the API takes: pairs
/// legal, and every `tool_use` answered (R11.4).
fn view_is_legal(t: &Transcript) {
    for mode in [Unanswered::Drop, Unanswered::ErrorResult] {
        let view: Vec<Message> = t
            .resume_with(mode)
            .messages
            .into_iter()
            .map(|m| std::sync::Arc::unwrap_or_clone(m.message))
            .collect();
        pairing_is_legal(&view).unwrap();
        every_call_answered(&view).unwrap();
        api_takes(&view).unwrap();
    }
}

/// What the API refuses beside pairing: a first message that is not a user
/// message, two `tool_use` blocks with one id (issue 27).
fn api_takes(view: &[Message]) -> Result<(), String> {
    if let Some(first) = view.first().filter(|m| m.role != Role::User) {
        return Err(format!("the view starts with {:?} `{}`", first.role, first.uuid));
    }
    let mut seen = std::collections::HashSet::new();
    match view
        .iter()
        .flat_map(|m| m.tool_use_ids())
        .find(|id| !seen.insert(*id))
    {
        Some(id) => Err(format!("two `tool_use` blocks have the id `{id}`")),
        None => Ok(()),
    }
}

/// Every `tool_use` of `view` has a `tool_result` in it.
fn every_call_answered(view: &[Message]) -> Result<(), String> {
    let results: std::collections::HashSet<&str> = view.iter().flat_map(|m| m.tool_result_ids()).collect();
    match view
        .iter()
        .flat_map(|m| m.tool_use_ids())
        .find(|id| !results.contains(id))
    {
        Some(id) => Err(format!("tool_use `{id}` is unanswered in the resumed view")),
        None => Ok(()),
    }
}

fn user(uuid: &str, parent: Option<&str>, content: Value) -> Value {
    json!({"type": "user", "uuid": uuid, "parentUuid": parent, "isSidechain": false,
           "sessionId": "s", "version": "2.1.39", "timestamp": "2026-02-12T16:13:25.613Z",
           "message": {"role": "user", "content": content}})
}

fn assistant(uuid: &str, parent: Option<&str>, id: &str, block: Value, usage: (u64, u64)) -> Value {
    json!({"type": "assistant", "uuid": uuid, "parentUuid": parent, "isSidechain": false,
           "requestId": "req", "timestamp": "2026-02-12T16:13:26.000Z",
           "message": {"id": id, "role": "assistant", "model": "m", "content": [block],
                       "usage": {"input_tokens": usage.0, "cache_read_input_tokens": 0,
                                 "cache_creation_input_tokens": 0, "output_tokens": usage.1}}})
}

fn tool_use(id: &str) -> Value {
    json!({"type": "tool_use", "id": id, "name": "Read", "input": {}})
}

fn tool_result(id: &str) -> Value {
    json!([{"type": "tool_result", "tool_use_id": id, "content": "ok"}])
}

fn boundary(uuid: &str, logical: &str, metadata: Value) -> Value {
    json!({"type": "system", "subtype": "compact_boundary", "uuid": uuid, "parentUuid": null,
           "logicalParentUuid": logical, "content": "Conversation compacted", "level": "info",
           "compactMetadata": metadata})
}

fn summary(uuid: &str, boundary: &str) -> Value {
    let mut s = user(uuid, Some(boundary), json!("This session is being continued…"));
    s["isCompactSummary"] = json!(true);
    s["isVisibleInTranscriptOnly"] = json!(true);
    s
}

fn uuids(t: &Transcript) -> Vec<String> {
    t.resume()
        .messages
        .iter()
        .map(|m| m.message.uuid.to_string())
        .collect()
}

// --- the real files -------------------------------------------------------

/// The `SOURCES.tsv` row of a fixture, by column name.
fn source_row(name: &str) -> BTreeMap<String, String> {
    let tsv = std::fs::read_to_string(format!("{FIXTURES}/SOURCES.tsv")).unwrap();
    let mut rows = tsv
        .lines()
        .map(|l| l.split('\t').map(str::to_owned).collect::<Vec<_>>());
    let header = rows.next().unwrap();
    let row = rows.find(|r| r[0] == name).unwrap();
    header.into_iter().zip(row).collect()
}

#[test]
fn every_fixture_agrees_with_its_sources_row() {
    for name in [SPOTTER, STATUS_LINE, FASTHOOKS, YEPANYWHERE, TO_HTML] {
        let row = source_row(name);
        let i = import(&fixture(name)).inspection();
        assert_eq!(i.lines.to_string(), row["lines"], "{name}");
        assert_eq!(i.records, i.lines, "{name}");
        assert_eq!(i.tool_uses.to_string(), row["tool_use"], "{name}");
        assert_eq!(i.tool_results.to_string(), row["tool_result"], "{name}");
        assert_eq!(i.boundaries.len().to_string(), row["compact_boundary"], "{name}");
        let triggers: Vec<_> = i.boundaries.iter().map(|b| b.trigger.clone().unwrap()).collect();
        assert_eq!(triggers.join(","), row["triggers"], "{name}");
        let mut versions = i.versions.clone();
        versions.sort();
        assert_eq!(versions.join(","), row["versions"], "{name}");
        let types: BTreeMap<String, u32> = row["record_types"]
            .split(';')
            .map(|kv| kv.split_once('=').unwrap())
            .map(|(k, v)| (k.to_owned(), v.parse().unwrap()))
            .collect();
        assert_eq!(i.record_types, types, "{name}");
        assert_eq!(i.orphans, 0, "{name}");
    }
}

/// Numbers checked by hand (and by an independent script): messages are
/// user lines plus distinct `message.id`s; the active view is the walk from
/// the leaf back to the last boundary plus parallel tool results.
/// File, messages, active view, boundary (line, trigger, preTokens), problems.
type FixtureNumbers = (
    &'static str,
    u32,
    u32,
    Option<(u32, &'static str, u64)>,
    &'static [(u32, ProblemKind)],
);

#[test]
fn fixture_numbers() {
    let cases: [FixtureNumbers; 5] = [
        (
            SPOTTER,
            293,
            161,
            Some((754, "auto", 170_251)),
            &[(754, ProblemKind::DanglingLogicalParent)],
        ),
        (
            STATUS_LINE,
            95,
            95,
            Some((12, "manual", 86_039)),
            &[(12, ProblemKind::DanglingLogicalParent)],
        ),
        (FASTHOOKS, 31, 4, Some((59, "manual", 21_558)), &[]),
        (YEPANYWHERE, 69, 69, None, &[]),
        (TO_HTML, 139, 139, None, &[]),
    ];
    for (name, messages, active, boundary, problems) in cases {
        let t = import(&fixture(name));
        let i = t.inspection();
        assert_eq!(i.messages, messages, "{name}");
        assert_eq!(i.active_messages, active, "{name}");
        let b = i
            .boundaries
            .first()
            .map(|b| (b.line, b.trigger.as_deref().unwrap(), b.pre_tokens.unwrap()));
        assert_eq!(b, boundary, "{name}");
        assert_eq!(kinds(&t), problems, "{name}");
        view_is_legal(&t);
    }
}

#[test]
fn status_line_file_counts_its_sidechain_and_both_sessions() {
    let i = import(&fixture(STATUS_LINE)).inspection();
    assert_eq!(i.sidechain_records, 2);
    assert_eq!(
        i.sessions,
        [
            "47dd7120-0fc6-4d6c-b249-c8de6505075f",
            "b7cdaede-8019-4996-a292-76cc672c3c63"
        ]
    );
    assert_eq!(
        i.boundaries[0].uuid.as_str(),
        "79f1e64f-c0e4-4576-b6fb-3e17af97cc8b"
    );
    assert!(!i.boundaries[0].logical_parent_found);
}

#[test]
fn resume_of_compacted_fixtures_starts_with_the_summary() {
    for (name, boundary_uuid) in [
        (STATUS_LINE, "79f1e64f-c0e4-4576-b6fb-3e17af97cc8b"),
        (FASTHOOKS, "2b772f69-963e-4d05-8a4f-1ca2c3889686"),
        (SPOTTER, "dd3cc2e6-a191-4331-a0f0-2473e6d7692d"),
    ] {
        let t = import(&fixture(name));
        let view = t.resume();
        assert_eq!(
            view.boundary.as_ref().unwrap().uuid.as_str(),
            boundary_uuid,
            "{name}"
        );
        let first = &view.messages[0];
        assert!(first.is_compact_summary, "{name}");
        assert_eq!(first.message.role, Role::User);
        assert_eq!(
            Some(&first.message.uuid),
            view.boundary.as_ref().unwrap().summary_uuid.as_ref()
        );
        assert_eq!(
            view.messages.iter().filter(|m| m.is_compact_summary).count(),
            1,
            "{name}"
        );
        assert!(view.problems.is_empty(), "{name}: {:?}", view.problems);
        view_is_legal(&t);
    }
}

/// Golden outputs: the whole inspection, and the resumed view as one line
/// per message (`line role uuid flags`), per fixture, under
/// `tests/it/snapshots/it__transcript__*.snap`.
#[test]
fn golden_inspection_and_resumed_view_of_each_fixture() {
    for (slug, name) in [
        ("spotter", SPOTTER),
        ("status_line", STATUS_LINE),
        ("fasthooks", FASTHOOKS),
        ("yepanywhere", YEPANYWHERE),
        ("to_html", TO_HTML),
    ] {
        let t = import(&fixture(name));
        insta::assert_json_snapshot!(format!("inspect_{slug}"), t.inspection());
        let view = t.resume();
        let lines: Vec<String> = view
            .messages
            .iter()
            .map(|m| {
                let role = if m.message.role == Role::User {
                    "user"
                } else {
                    "assistant"
                };
                let mut flags = String::new();
                for (on, flag) in [
                    (m.is_compact_summary, " summary"),
                    (m.preserved, " preserved"),
                    (m.is_meta, " meta"),
                    (m.is_api_error_message, " api-error"),
                    (!m.merged_uuids.is_empty(), " merged"),
                ] {
                    if on {
                        flags.push_str(flag);
                    }
                }
                format!("{} {role} {}{flags}", m.line, m.message.uuid)
            })
            .collect();
        let boundary = view.boundary.as_ref().map(|b| b.uuid.to_string());
        insta::assert_json_snapshot!(
            format!("resume_{slug}"),
            json!({"boundary": boundary, "messages": lines})
        );
    }
}

#[test]
fn spotter_merges_split_responses_and_recovers_a_parallel_result() {
    let t = import(&fixture(SPOTTER));
    // msg_01PdWvcjJ6E9BgscDveYt9YV: lines 8, 9, 10 and 15 (a parallel tool_use on a progress branch).
    let m = t
        .messages
        .iter()
        .find(|m| m.message_id.as_deref() == Some("msg_01PdWvcjJ6E9BgscDveYt9YV"))
        .unwrap();
    assert_eq!(m.line, 8);
    assert_eq!(m.merged_uuids.len(), 3);
    let kinds: Vec<_> = m
        .message
        .content
        .blocks()
        .iter()
        .map(|b| b.kind().to_owned())
        .collect();
    assert_eq!(kinds, ["text", "thinking", "tool_use", "tool_use"]);
    // Envelope fields are kept for export; the UI's `toolUseResult` is not.
    assert!(t.messages.iter().all(|m| m.extra.contains_key("cwd")));
    assert!(t.messages.iter().all(|m| !m.extra.contains_key("toolUseResult")));
    // Line 1130 answers a parallel call from a side branch: it is in the view.
    assert!(t.resume().messages.iter().any(|m| m.line == 1130));
    // Full history: the era before the boundary continues from line 753.
    let eras = t.eras();
    assert_eq!(
        eras.iter()
            .map(|e| (e.boundary, e.messages.len()))
            .collect::<Vec<_>>(),
        [(None, 132), (Some(0), 161)]
    );
}

#[test]
fn usage_is_the_largest_snapshot_of_a_response() {
    let t = import(&jsonl(&[
        user("u", None, json!("go")),
        assistant(
            "a1",
            Some("u"),
            "msg_1",
            json!({"type": "thinking", "thinking": "t", "signature": "s"}),
            (10, 1),
        ),
        assistant(
            "a2",
            Some("a1"),
            "msg_1",
            json!({"type": "text", "text": "x"}),
            (10, 30),
        ),
        assistant("a3", Some("a2"), "msg_1", tool_use("t1"), (10, 5)),
        user("r", Some("a3"), tool_result("t1")),
    ]));
    assert_eq!(t.messages.len(), 3);
    let a = &t.messages[1];
    assert_eq!(a.message.uuid.as_str(), "a1");
    assert_eq!(
        a.merged_uuids.iter().map(|u| u.as_str()).collect::<Vec<_>>(),
        ["a2", "a3"]
    );
    assert_eq!(a.message.usage.as_ref().unwrap().output_tokens, 30);
    assert_eq!(a.message.content.blocks().len(), 3);
    assert_eq!(t.message(&"a3".into()).unwrap().message.uuid.as_str(), "a1");
    assert_eq!(uuids(&t), ["u", "a1", "r"]);
}

/// The time every hand-written record of these tests gets.
fn at() -> compaction_core::time::Timestamp {
    compaction_core::time::Timestamp::parse("2026-12-01T12:00:00Z").unwrap()
}

/// Appends a message with a made uuid, as the package's host does: the
/// engine gets it, the log records it.
fn say_logged(
    e: &mut compaction_core::engine::Engine,
    log: &mut compaction_core::transcript::log::SessionLog,
    role: Role,
    content: compaction_core::message::Content,
) -> compaction_core::message::Uuid {
    let store = e.store();
    let uuid = log.uuids.make(|u| store.get(u).is_some());
    e.append(Message::new(uuid.0.clone(), role, content)).unwrap();
    log.appended(uuid.clone());
    uuid
}

/// A manual compaction answered offline (one file re-attached), written to
/// `log` as the package's host writes it.
fn compact_logged(
    e: &mut compaction_core::engine::Engine,
    log: &mut compaction_core::transcript::log::SessionLog,
) -> Box<compaction_core::compact::Compacted> {
    use crate::common::{files, split, Allow, Stage};
    use compaction_core::compact::{CompactOptions, FileAnswer};
    use compaction_core::engine::Answer;
    let (_, p) = split(e.compact(CompactOptions::default()).allowed(e));
    let Stage::NeedsSummary { request } = p else {
        panic!("{p:?}")
    };
    let (_, mut p) = e.answer(request.id, Answer::Offline).map(split).unwrap();
    if let Stage::NeedsFiles { request } = &p {
        let answers: Vec<_> = (request.paths.iter().take(1))
            .map(|path| FileAnswer {
                path: path.clone(),
                content: Ok(format!("contents of {path}")),
            })
            .collect();
        p = e.answer(request.id, files(&answers)).map(split).unwrap().1;
    }
    let Stage::Compacted { result } = p else {
        panic!("{p:?}")
    };
    log.compacted(&result, &result.restored, at());
    result
}

mod apart;
mod calls;
mod counted;
mod eras;
mod expanded;
mod newest;
mod problems;
mod properties;
mod resumed;
mod scale;
mod versions;
mod written;

/// Each fixture finished in slices of 1, 2 and 7 records
/// (`Finishing::step_by`)
/// is the transcript finished at once, problems included.
#[test]
fn a_fixture_finished_a_slice_at_a_time_is_the_one_finished_at_once() {
    let mut names: Vec<_> = std::fs::read_dir(FIXTURES)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    names.sort();
    assert!(names.len() >= 5, "{names:?}");
    // The fixtures have one boundary at most: a session of five eras, an
    // unanswered call and an unmatched result.
    let mut records = Vec::new();
    let mut parent = None;
    for e in 0..5 {
        let (u, a, r) = (format!("u{e}"), format!("a{e}"), format!("r{e}"));
        records.push(user(&u, parent.as_deref(), json!("go")));
        records.push(assistant(
            &a,
            Some(&u),
            &format!("m{e}"),
            tool_use(&format!("t{e}")),
            (100, 10),
        ));
        records.push(user(&r, Some(&a), tool_result(&format!("t{}", e + e % 2))));
        let (b, s) = (format!("b{e}"), format!("s{e}"));
        records.push(boundary(&b, &r, json!({"trigger": "auto", "preTokens": 1000})));
        records.push(summary(&s, &b));
        parent = Some(s);
    }
    let eras = ("five eras".into(), jsonl(&records));
    let files = names
        .into_iter()
        .map(|p| (format!("{p:?}"), std::fs::read(&p).unwrap()));
    for (path, bytes) in files.chain([eras]) {
        let whole = format!("{:?}", import(&bytes));
        for slice in [1, 2, 7] {
            let mut importer = Importer::new();
            importer.feed(&bytes);
            let mut finishing = importer.finishing();
            let mut steps = 0;
            while !finishing.step_by(slice) {
                steps += 1;
            }
            let t = finishing.finish();
            // Seven passes; with slices of one, the late parents take a
            // step per record, the tool pairing two per message.
            let n = t.messages.len();
            assert!(
                slice > 1 || steps >= 6 + 3 * (n - 1),
                "{path:?}: {steps} steps, {n} messages"
            );
            assert_eq!(format!("{t:?}"), whole, "{path:?}, slices of {slice}");
        }
    }
}
