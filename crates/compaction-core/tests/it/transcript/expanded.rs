//! An expanded compaction in the session file (SPEC R11.5): the records a
//! live engine's log writes, imported and resumed, give the view the live
//! engine has after `expand` — at the expansion, after more messages, with
//! compactions on either side of it, and nested.

use super::at;
use compaction_core::compact::Compacted;
use compaction_core::engine::{Engine, Preset};
use compaction_core::groups::pairing_is_legal;
use compaction_core::message::{Block, Content, Json, Message, Role, ToolResultContent, Uuid};
use compaction_core::transcript::expand::EXPANDED_SUBTYPE;
use compaction_core::transcript::log::SessionLog;
use compaction_core::transcript::{import, ProblemKind, Resume};
use serde_json::{json, Value};

/// A live engine and the log its host writes.
struct Live {
    engine: Engine,
    log: SessionLog,
    n: usize,
}

impl Live {
    fn new() -> Self {
        Live {
            engine: Engine::new(Preset::Seed.settings(200_000)).unwrap(),
            log: SessionLog::new("s-expand".into()),
            n: 0,
        }
    }

    fn append(&mut self, m: Message) {
        let uuid = m.uuid.clone();
        self.engine.append(m).unwrap();
        self.log.appended(uuid);
    }

    /// A prompt, a tool call and its result, a reply.
    fn turn(&mut self) {
        self.n += 1;
        let n = self.n;
        self.append(Message::user(format!("p{n}"), format!("turn {n}: read f{n}.rs")));
        let id = format!("toolu_{n}");
        self.append(Message::new(
            format!("call-{n}"),
            Role::Assistant,
            Content::Blocks(vec![Block::ToolUse {
                id: id.clone(),
                name: "Read".into(),
                input: Json::from_value(&json!({"file_path": format!("f{n}.rs")})),
                extra: Default::default(),
            }]),
        ));
        self.append(Message::new(
            format!("result-{n}"),
            Role::User,
            Content::Blocks(vec![Block::ToolResult {
                tool_use_id: id,
                content: ToolResultContent::Text(format!("line {n}\n").repeat(300)),
                is_error: None,
                extra: Default::default(),
            }]),
        ));
        self.append(Message::assistant(format!("a{n}"), format!("f{n}.rs read")));
    }

    /// A manual compaction answered offline (one file re-attached), logged.
    fn compact(&mut self) -> Box<Compacted> {
        super::compact_logged(&mut self.engine, &mut self.log)
    }

    fn expand(&mut self, summary: &Uuid) -> Option<String> {
        self.engine.expand(summary).unwrap();
        self.log.expanded(summary, at())
    }

    fn file(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for line in self.log.records(self.engine.store()) {
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        }
        out
    }

    /// Resumes the records and checks the view is the live one.
    fn resumes_to_the_live_view(&self, what: &str) -> Resume {
        let resumed = import(&self.file()).resume();
        let got: Vec<(&str, Role, &Content)> = (resumed.messages.iter())
            .map(|m| (m.message.uuid.as_str(), m.message.role, &m.message.content))
            .collect();
        let live: Vec<Message> = self.engine.view().sent_messages().cloned().collect();
        let want: Vec<(&str, Role, &Content)> = live
            .iter()
            .map(|m| (m.uuid.as_str(), m.role, &m.content))
            .collect();
        assert_eq!(got, want, "{what}: resume(records) is not the live view");
        let view: Vec<Message> = resumed.messages.iter().map(|m| (*m.message).clone()).collect();
        pairing_is_legal(&view).unwrap();
        resumed
    }
}

#[test]
fn r11_5_an_expanded_compaction_resumes_to_the_live_view() {
    let mut live = Live::new();
    for _ in 0..4 {
        live.turn();
    }
    let c = live.compact();
    live.resumes_to_the_live_view("after the compaction");
    live.turn();
    let line = live
        .expand(&c.summary.uuid)
        .expect("a logged compaction writes a record");
    let record: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(record["type"], "system");
    assert_eq!(record["subtype"], EXPANDED_SUBTYPE);
    assert_eq!(record["parentUuid"], "a5", "chained after the last record");
    assert_eq!(record["expandMetadata"]["boundaryUuid"], c.boundary.uuid.as_str());
    let removed = record["expandMetadata"]["removedUuids"].as_array().unwrap();
    assert_eq!(
        removed[0],
        c.summary.uuid.as_str(),
        "the summary, then the re-attached file"
    );
    assert_eq!(removed.len(), 2, "{record}");
    // The expansion is the file's last record: it is the leaf.
    let resumed = live.resumes_to_the_live_view("at the expansion");
    assert!(resumed.boundary.is_none(), "no boundary is in force");
    assert!(resumed.problems.is_empty(), "{:?}", resumed.problems);
    live.turn();
    live.resumes_to_the_live_view("after more turns");
    // The full history still has the compaction.
    assert_eq!(import(&live.file()).eras().len(), 2);
}

#[test]
fn r11_5_compactions_before_and_after_an_expanded_one_and_nested_expansions() {
    let mut live = Live::new();
    for _ in 0..3 {
        live.turn();
    }
    let first = live.compact();
    live.turn();
    live.turn();
    let second = live.compact();
    live.turn();
    live.expand(&second.summary.uuid).unwrap();
    let resumed = live.resumes_to_the_live_view("the later one expanded");
    assert_eq!(
        resumed.boundary.map(|b| b.uuid),
        Some(first.boundary.uuid.clone())
    );
    live.turn();
    live.expand(&first.summary.uuid).unwrap();
    live.resumes_to_the_live_view("both expanded");
    // A compaction right after an expansion: its boundary follows the
    // expansion's record, so the history before it still knows it.
    let third = live.compact();
    let file = import(&live.file());
    let boundary = file.boundaries.last().unwrap();
    assert_eq!(boundary.uuid, third.boundary.uuid);
    live.resumes_to_the_live_view("compacted after the expansions");
    live.turn();
    live.expand(&third.summary.uuid).unwrap();
    live.resumes_to_the_live_view("the third expanded too");
    live.turn();
    live.resumes_to_the_live_view("the end");
}

#[test]
fn r11_5_an_unknown_summary_writes_no_record_and_a_record_without_its_boundary_is_reported() {
    let mut log = SessionLog::new("s".into());
    assert_eq!(log.expanded(&"not-a-summary".into(), at()), None);
    let file = concat!(
        r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}"#,
        "\n",
        r#"{"type":"system","subtype":"compact_expanded","uuid":"x1","parentUuid":"u1","expandMetadata":{}}"#,
        "\n",
        r#"{"type":"assistant","uuid":"a1","parentUuid":"x1","message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}}"#,
        "\n",
    );
    let t = import(file.as_bytes());
    assert_eq!(t.problems.len(), 1, "{:?}", t.problems);
    assert_eq!(t.problems[0].kind, ProblemKind::InvalidRecord);
    assert!(
        t.problems[0].detail.contains("expandMetadata.boundaryUuid"),
        "{:?}",
        t.problems
    );
    let resumed = t.resume();
    let uuids: Vec<&str> = resumed.messages.iter().map(|m| m.message.uuid.as_str()).collect();
    assert_eq!(uuids, ["u1", "a1"], "the chain goes through it");
}

#[test]
fn r11_6_an_expanded_collapse_is_recorded_and_resumes_to_the_live_view() {
    // Issue 27: expanding a collapse wrote no record, so a resume kept the
    // collapse summary the live view had replaced with the turns again.
    let mut settings = Preset::Seed.settings(200_000);
    settings.snip = false;
    let mut live = Live {
        engine: Engine::new(settings).unwrap(),
        log: SessionLog::new("s-collapse".into()),
        n: 100, // its turns after the 30 below
    };
    for t in 1..=30 {
        live.append(Message::user(format!("p{t}"), format!("step {t}")));
        live.append(Message::assistant(format!("a{t}"), "w".repeat(5_600 * 4 - 8)));
    }
    let d = live.engine.before_call(None);
    let segment = d
        .requests
        .iter()
        .find(|r| matches!(r, compaction_core::engine::Request::CollapseSegment(_)))
        .map(|r| r.id())
        .expect("a collapse segment is asked for");
    live.engine
        .answer(
            segment,
            compaction_core::engine::Answer::text("set up the repo and the CI"),
        )
        .unwrap();
    for event in live.engine.take_view_events() {
        live.log.view_event(&event, at());
    }
    let summary = live.engine.view().entries()[0].message.uuid.clone();
    assert!(
        !summary.as_str().starts_with('p'),
        "the view starts with the collapse summary"
    );
    live.resumes_to_the_live_view("collapsed");
    let record = live.expand(&summary).expect("the expansion is recorded");
    let record: Value = serde_json::from_str(&record).unwrap();
    assert_eq!(record["subtype"], "collapse_expanded");
    assert_eq!(record["expandMetadata"]["summaryUuid"], summary.as_str());
    assert_eq!(live.engine.view().entries()[0].message.uuid.as_str(), "p1");
    live.resumes_to_the_live_view("the collapse expanded");
    live.turn();
    live.resumes_to_the_live_view("written on after the expansion");
}
