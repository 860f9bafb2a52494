//! The count's basis across a restart (SPEC R11.6, `count_calibrated`): a
//! host that writes the record whenever [`Engine::counting`] changes, and
//! takes the file's last one after loading the message it follows, resumes
//! to the count the live engine had — across usage reports, a compaction
//! that replaced the reporting messages (calibration kept), and a refused
//! request's stated size (on no message). Without the record the same
//! resume counts differently (the test fails without it).

use super::{at, compact_logged};
use compaction_core::engine::{Engine, EngineSettings as Settings, Preset};
use compaction_core::message::{Block, Content, Json, Message, Role, ToolResultContent, Usage, Uuid};
use compaction_core::transcript::counted::Restorer;
use compaction_core::transcript::import;
use compaction_core::transcript::log::SessionLog;
use compaction_core::view::Counting;

/// An engine and its log, writing a `count_calibrated` record on change.
struct Live {
    engine: Engine,
    log: SessionLog,
    counted: Counting,
    n: usize,
}

impl Live {
    fn new() -> Self {
        Live {
            engine: Engine::new(Preset::Seed.settings(200_000)).unwrap(),
            log: SessionLog::new("s-count".into()),
            counted: Counting::default(),
            n: 0,
        }
    }

    /// What the package does after every call.
    fn sync(&mut self) {
        self.log.count_changed(&self.engine, &mut self.counted, at);
    }

    /// A user prompt of ~`chars` characters, then a reply whose usage says
    /// the request held `reported` tokens.
    fn turn(&mut self, chars: usize, reported: u64) {
        self.n += 1;
        let (u, a) = (format!("u{}", self.n), format!("a{}", self.n));
        let text = format!(
            "prompt {}: {}",
            self.n,
            "fn f(x: u32) -> u32 { x + 1 } ".repeat(chars / 30)
        );
        self.engine
            .append(Message::new(u.clone(), Role::User, Content::Text(text)))
            .unwrap();
        self.log.appended(Uuid(u));
        let mut reply = Message::new(
            a.clone(),
            Role::Assistant,
            Content::Text(format!("done {}", self.n)),
        );
        reply.usage = Some(Box::new(Usage {
            input_tokens: reported,
            output_tokens: 40,
            ..Usage::default()
        }));
        self.engine.append(reply).unwrap();
        self.log.appended(Uuid(a));
        self.sync();
    }

    fn file(&self) -> Vec<u8> {
        self.log.records(self.engine.store()).join("\n").into_bytes()
    }
}

/// `loadSession(readSession(file))`: the resumed view, and the file's last
/// count record after the message it follows (when `with_record`).
fn resume(file: &[u8], with_record: bool) -> Engine {
    resume_with(file, &Preset::Seed.settings(200_000), with_record)
}

/// [`resume`] into an engine with `settings`.
fn resume_with(file: &[u8], settings: &Settings, with_record: bool) -> Engine {
    let resume = import(file).resume();
    let mut engine = Engine::new(settings.clone()).unwrap();
    let saved = resume.counting.as_ref().filter(|_| with_record);
    let uuids = resume.messages.iter().map(|m| &m.message.uuid);
    let counting = Restorer::start(saved, uuids, &mut engine);
    for (i, m) in resume.messages.into_iter().enumerate() {
        if m.is_compact_summary {
            engine
                .append_summary(std::sync::Arc::unwrap_or_clone(m.message))
                .unwrap();
        } else {
            engine.append(std::sync::Arc::unwrap_or_clone(m.message)).unwrap();
        }
        counting.loaded(i, &mut engine);
    }
    engine
}

#[test]
fn a_resume_counts_as_the_live_engine_after_reports_a_compaction_and_a_refusal() {
    let mut live = Live::new();
    // Reports that say the estimate is ~20 % low: the calibration learns it.
    for i in 0..6u64 {
        live.turn(4_000, 1_500 + i * 1_250);
    }
    let file = live.file();
    assert_eq!(
        resume(&file, true).count(),
        live.engine.count(),
        "after usage reports"
    );

    // A compaction replaces the reporting messages; the calibration stays.
    compact_logged(&mut live.engine, &mut live.log);
    live.sync();
    live.engine
        .append(Message::user("u-after", "and now, the tests"))
        .unwrap();
    live.log.appended(Uuid::from("u-after"));
    live.sync();
    let file = live.file();
    let with = resume(&file, true);
    assert_eq!(with.count(), live.engine.count(), "after a compaction");
    assert_eq!(with.counting().calibration, live.engine.counting().calibration);
    assert_ne!(
        resume(&file, false).count(),
        live.engine.count(),
        "without the record the calibration is lost"
    );

    // A refused request states the size: on no message, only the record has it.
    live.turn(2_000, 9_000);
    let _ = live.engine.prompt_too_long_at(30_000);
    live.sync();
    let file = live.file();
    assert_eq!(
        resume(&file, true).counting(),
        live.engine.counting(),
        "after a refusal"
    );
    assert_eq!(resume(&file, true).count(), live.engine.count());
}

#[test]
fn a_record_whose_message_left_the_view_applies_before_the_first_and_bad_ones_are_kept_verbatim() {
    let mut live = Live::new();
    live.turn(4_000, 1_500);
    live.turn(4_000, 2_900);
    let file = String::from_utf8(live.file()).unwrap();
    let t = import(file.as_bytes());
    let saved = t.resume().counting.expect("the file's record");
    assert_eq!(saved.position_in([&Uuid::from("a2"), &Uuid::from("x")]), Some(0));
    assert_eq!(saved.position_in([&Uuid::from("x")]), None);
    // A record whose numbers are not whole is reported and says nothing.
    let bad = file.replace("\"real\":", "\"real\":-");
    let t = import(bad.as_bytes());
    assert!(
        t.problems.iter().any(|p| p.detail.contains("countMetadata")),
        "{:?}",
        t.problems
    );
    assert_ne!(t.resume().counting, Some(saved), "the bad record says nothing");
}

/// The cache-aware microcompact's prediction (R4.3) rests on when it fired,
/// which the messages cannot say: the record carries it (`serverCleared`),
/// so a resumed view predicts the same cleared results and counts the
/// same. Without it the resume counts the results the server clears.
#[test]
fn a_resume_predicts_what_the_server_clears_as_the_live_engine_did() {
    let mut settings = Preset::Seed.settings(200_000);
    settings.microcompact.first_after = 4;
    settings.microcompact.every = 3;
    settings.microcompact.keep_recent = 2;
    let mut live = Live::new();
    live.engine = Engine::new(settings.clone()).unwrap();
    live.engine.append(Message::user("u0", "read the files")).unwrap();
    live.log.appended(Uuid::from("u0"));
    for i in 0..9 {
        let id = format!("toolu_{i}");
        let call = Message::new(
            format!("c{i}"),
            Role::Assistant,
            Content::Blocks(vec![Block::ToolUse {
                id: id.clone(),
                name: "Read".into(),
                input: Json::parse(&format!("{{\"file_path\":\"f{i}.rs\"}}")).unwrap(),
                extra: Default::default(),
            }]),
        );
        let result = Message::new(
            format!("r{i}"),
            Role::User,
            Content::Blocks(vec![Block::ToolResult {
                tool_use_id: id,
                content: ToolResultContent::Text(format!("line {i}\n").repeat(400)),
                is_error: None,
                extra: Default::default(),
            }]),
        );
        for m in [call, result] {
            let uuid = m.uuid.clone();
            live.engine.append(m).unwrap();
            live.log.appended(uuid);
        }
        // Fires at 4 calls (clears 2), then at 7 (clears 5): 5 of 9 cleared now.
        let _ = live.engine.before_call(None);
        live.sync();
    }
    let saved = live.engine.counting().server_cleared.expect("the path fired");
    assert_eq!((saved.through.as_str(), saved.fired_at), ("toolu_4", 7));
    let file = live.file();
    let resumed = resume_with(&file, &settings, true);
    assert_eq!(resumed.counting(), live.engine.counting());
    assert_eq!(resumed.count(), live.engine.count());
    assert_ne!(
        resume_with(&file, &settings, false).count(),
        live.engine.count(),
        "without the record nothing is predicted cleared"
    );
}

/// A record whose message left the view after it was written (a removal
/// that changed nothing the record holds writes no new one) takes effect
/// after the view's last message written before it, not before the first:
/// there the usage it places would not be in the view yet, and the resumed
/// engine would count from that message's report alone.
#[test]
fn a_record_whose_message_left_the_view_later_applies_after_the_last_one_before_it() {
    let mut live = Live::new();
    live.turn(4_000, 1_500);
    live.turn(4_000, 2_900);
    // A refused request's stated size: a basis only the record has.
    let _ = live.engine.prompt_too_long_at(2_000);
    live.sync();
    let file = String::from_utf8(live.file()).unwrap();
    let named = "\"afterUuid\":\"a2\"";
    assert!(file.contains(named), "{file}");
    let moved = file.replace(named, "\"afterUuid\":\"gone\"");
    let t = import(moved.as_bytes());
    assert_eq!(
        t.resume().counting.and_then(|c| c.after),
        Some(Uuid::from("a2")),
        "the last message written before the record"
    );
    assert_eq!(resume(moved.as_bytes(), true).count(), live.engine.count());
}
