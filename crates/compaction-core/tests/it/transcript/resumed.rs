//! Writing on after a resume (SPEC R11.2, issue 15): the importer reports
//! the file's highest made uuid (`m<n>`, [`Transcript::last_made_uuid`])
//! and its compactions; an engine and log that follow them, as the
//! package's `loadSession` does, write records the file does not hold, so
//! the file with them appended resumes to that engine's view — even when
//! the view holds none of the uuids an earlier engine made, or is one an
//! earlier engine compacted from.

use super::at;
use compaction_core::compact::Compacted;
use compaction_core::engine::{Engine, Preset, ViewEvent};
use compaction_core::message::{Block, Content, Json, Role, ToolResultContent, Uuid};
use compaction_core::transcript::log::SessionLog;
use compaction_core::transcript::{import, ProblemKind, Transcript};
use serde_json::json;

/// An engine and the log its host writes, as the package's `Engine` holds
/// them; messages come without uuids and get made ones.
struct Host {
    engine: Engine,
    log: SessionLog,
    /// The file it was resumed from.
    earlier: Vec<u8>,
}

/// Whether `uuid` is a made one (`m<n>`, `transcript::log::UuidMaker`).
fn is_made(uuid: &str) -> bool {
    uuid.strip_prefix('m').is_some_and(|n| n.parse::<u64>().is_ok())
}

impl Host {
    fn new() -> Self {
        Host {
            engine: Engine::new(Preset::Seed.settings(200_000)).unwrap(),
            log: SessionLog::new("s-resume".into()),
            earlier: Vec::new(),
        }
    }

    /// What `loadSession(readSession(file))` does: the resumed view, then
    /// records that continue the file.
    fn resumed(file: Vec<u8>) -> Self {
        Host::resumed_with(file, true)
    }

    /// [`Host::resumed`], its compactions numbered after the file's or not.
    fn resumed_with(file: Vec<u8>, follow_compactions: bool) -> Self {
        let t = import(&file);
        let mut host = Host::new();
        let resume = t.resume();
        for m in resume.messages {
            if m.is_compact_summary {
                host.engine
                    .append_summary(std::sync::Arc::unwrap_or_clone(m.message))
                    .unwrap();
            } else {
                host.engine
                    .append(std::sync::Arc::unwrap_or_clone(m.message))
                    .unwrap();
            }
        }
        for uuid in &resume.pinned {
            host.engine.pin(uuid).unwrap();
        }
        if follow_compactions {
            host.engine.follow_compactions(t.boundaries.len() as u64);
        }
        let last = t.last_made_uuid.as_ref().map(Uuid::as_str);
        host.log
            .resumed(last, t.leaf().map(|u| u.0.clone()), t.sessions.last().cloned());
        host.earlier = file;
        host
    }

    /// Appends a message with a made uuid.
    fn say(&mut self, role: Role, content: Content) -> Uuid {
        super::say_logged(&mut self.engine, &mut self.log, role, content)
    }

    /// Pins (`on`) or unpins a message, as the package does: a record when
    /// it changes anything.
    fn pin(&mut self, uuid: &Uuid, on: bool) {
        if self.engine.is_pinned(uuid) == on {
            return;
        }
        if on {
            self.engine.pin(uuid).unwrap();
        } else {
            self.engine.unpin(uuid);
        }
        self.log.pinned(uuid, on, at());
    }

    /// A turn, a standing rule the user gives and its acknowledgement, a
    /// turn; returns the rule.
    fn with_a_rule() -> (Self, Uuid) {
        let mut host = Host::new();
        host.turn(1);
        let rule = host.say(Role::User, Content::Text("remember: tabs, not spaces".into()));
        host.say(Role::Assistant, Content::Text("noted".into()));
        host.turn(2);
        (host, rule)
    }

    /// A call to read `f9.rs` (`toolu_open`), not answered yet.
    fn open_call(&mut self) -> Uuid {
        let call = Block::ToolUse {
            id: "toolu_open".into(),
            name: "Read".into(),
            input: Json::from_value(&json!({"file_path": "f9.rs"})),
            extra: Default::default(),
        };
        self.say(Role::Assistant, Content::Blocks(vec![call]))
    }

    /// The result of [`Host::open_call`].
    fn answer_open_call(&mut self) -> Uuid {
        let result = Block::ToolResult {
            tool_use_id: "toolu_open".into(),
            content: ToolResultContent::Text("fn main() {}".into()),
            is_error: None,
            extra: Default::default(),
        };
        self.say(Role::User, Content::Blocks(vec![result]))
    }

    /// A prompt, a tool call and its result, a reply.
    fn turn(&mut self, n: usize) {
        self.say(Role::User, Content::Text(format!("turn {n}: read f{n}.rs")));
        let id = format!("toolu_{n}");
        let call = Block::ToolUse {
            id: id.clone(),
            name: "Read".into(),
            input: Json::from_value(&json!({"file_path": format!("f{n}.rs")})),
            extra: Default::default(),
        };
        self.say(Role::Assistant, Content::Blocks(vec![call]));
        let result = Block::ToolResult {
            tool_use_id: id,
            content: ToolResultContent::Text(format!("line {n}\n").repeat(300)),
            is_error: None,
            extra: Default::default(),
        };
        self.say(Role::User, Content::Blocks(vec![result]));
        self.say(Role::Assistant, Content::Text(format!("f{n}.rs read")));
    }

    /// A manual compaction answered offline (one file re-attached), logged.
    fn compact(&mut self) -> Box<Compacted> {
        super::compact_logged(&mut self.engine, &mut self.log)
    }

    /// The file it was resumed from, then its own records.
    fn file(&self) -> Vec<u8> {
        let mut out = self.earlier.clone();
        for line in self.log.records(self.engine.store()) {
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        }
        out
    }

    /// The uuids of the view its file resumes to.
    fn resumed_uuids(&self) -> Vec<String> {
        let messages = import(&self.file()).resume().messages;
        messages.iter().map(|m| m.message.uuid.0.clone()).collect()
    }

    fn view_uuids(&self) -> Vec<String> {
        (self.engine.view().sent_messages())
            .map(|m| m.uuid.0.clone())
            .collect()
    }

    /// Imports its file: no problem, and the resume is its view.
    fn resumes_to_its_view(&self, what: &str) -> Transcript {
        let t = import(&self.file());
        assert!(t.problems.is_empty(), "{what}: {:?}", t.problems);
        let resumed: Vec<String> = t
            .resume()
            .messages
            .iter()
            .map(|m| m.message.uuid.0.clone())
            .collect();
        assert_eq!(resumed, self.view_uuids(), "{what}: the resume is not the view");
        t
    }
}

#[test]
fn the_importer_reports_the_highest_made_uuid_of_any_record() {
    let file = concat!(
        r#"{"type":"user","uuid":"m3","parentUuid":null,"message":{"role":"user","content":"hi"}}"#,
        "\n",
        // Off the resumed view: a sidechain, a system record, a branch.
        r#"{"type":"user","uuid":"m12","parentUuid":"m3","isSidechain":true,"message":{"role":"user","content":"sub"}}"#,
        "\n",
        r#"{"type":"system","subtype":"informational","uuid":"m11","parentUuid":"m3","content":"note"}"#,
        "\n",
        r#"{"type":"assistant","uuid":"m9","parentUuid":"m3","message":{"role":"assistant","content":[{"type":"text","text":"a branch"}]}}"#,
        "\n",
        // Not made uuids: no number, too large, another prefix.
        r#"{"type":"assistant","uuid":"mx","parentUuid":"m3","message":{"role":"assistant","content":[{"type":"text","text":"x"}]}}"#,
        "\n",
        r#"{"type":"user","uuid":"m18446744073709551616","parentUuid":"mx","message":{"role":"user","content":"y"}}"#,
        "\n",
        r#"{"type":"assistant","uuid":"u99","parentUuid":"m18446744073709551616","message":{"role":"assistant","content":[{"type":"text","text":"z"}]}}"#,
        "\n",
        // A copy of a record seen before changes nothing.
        r#"{"type":"user","uuid":"m3","parentUuid":null,"message":{"role":"user","content":"hi"}}"#,
        "\n",
    );
    let t = import(file.as_bytes());
    assert_eq!(t.last_made_uuid.as_ref().map(Uuid::as_str), Some("m12"));
    let resumed = t.resume();
    let view: Vec<&str> = resumed.messages.iter().map(|m| m.message.uuid.as_str()).collect();
    assert!(!view.contains(&"m12"), "{view:?}");
    assert_eq!(
        t.problems.iter().map(|p| p.kind).collect::<Vec<_>>(),
        [ProblemKind::DuplicateUuid]
    );
    // The same in chunks of any size.
    let mut importer = compaction_core::transcript::Importer::new();
    for chunk in file.as_bytes().chunks(7) {
        importer.feed(chunk);
    }
    assert_eq!(importer.finish().last_made_uuid, t.last_made_uuid);
    // None made: none reported.
    let other = file.replace("\"m", "\"u");
    assert_eq!(import(other.as_bytes()).last_made_uuid, None);
    assert_eq!(import(b"").last_made_uuid, None);
}

#[test]
fn a_resumed_view_without_made_uuids_makes_uuids_after_the_files_highest() {
    let mut first = Host::new();
    first.turn(1);
    first.turn(2);
    first.compact();
    assert_eq!(
        first.resumes_to_its_view("first").last_made_uuid,
        Some(Uuid::from("m8"))
    );
    // Compacted again at once: the summary and the re-attached file are
    // all the view holds.
    let mut second = Host::resumed(first.file());
    second.compact();
    let file = second.file();
    let third = Host::resumed(file.clone());
    assert!(
        !third.view_uuids().iter().any(|u| is_made(u)),
        "{:?}",
        third.view_uuids()
    );
    assert_eq!(import(&file).last_made_uuid, Some(Uuid::from("m8")));
    // A log that followed only the view would make `m1` again, which the
    // file holds: the importer would drop what it writes.
    let mut blind = SessionLog::new("s".into());
    let t = import(&file);
    blind.resumed(
        third.view_uuids().iter().map(String::as_str),
        t.leaf().map(|u| u.0.clone()),
        None,
    );
    assert_eq!(blind.uuids.make(|_| false).as_str(), "m1");

    let mut third = third;
    third.turn(3);
    assert_eq!(third.view_uuids()[2..], ["m9", "m10", "m11", "m12"]);
    third.resumes_to_its_view("the third writes on");
    let fourth = Host::resumed(third.file());
    fourth.resumes_to_its_view("resumed again");
    assert_eq!(fourth.view_uuids(), third.view_uuids());
}

#[test]
fn a_resumed_engine_numbers_its_compactions_after_the_files() {
    let mut first = Host::new();
    first.turn(1);
    first.turn(2);
    first.compact();
    // The second compacts its resumed view, then expands that: its view is
    // the resumed one again, and the file holds that compaction. The third
    // resumes the same view and compacts it too.
    let second_then_third = |follow: bool| {
        let mut second = Host::resumed_with(first.file(), follow);
        let undone = second.compact();
        second.engine.expand(&undone.summary.uuid).unwrap();
        assert!(second.log.expanded(&undone.summary.uuid, at()).is_some());
        second.resumes_to_its_view("expanded");
        let mut third = Host::resumed_with(second.file(), follow);
        assert_eq!(third.view_uuids(), second.view_uuids());
        let redone = third.compact();
        (undone, redone, third)
    };
    // Numbered from 0 in each engine, the third derives the second's
    // uuids: the file drops its records as copies.
    let (undone, redone, third) = second_then_third(false);
    assert_eq!(redone.boundary.uuid, undone.boundary.uuid);
    let kinds: Vec<ProblemKind> = import(&third.file()).problems.iter().map(|p| p.kind).collect();
    assert!(kinds.contains(&ProblemKind::DuplicateUuid), "{kinds:?}");

    let (undone, redone, mut third) = second_then_third(true);
    assert_ne!(redone.boundary.uuid, undone.boundary.uuid);
    assert_ne!(redone.summary.uuid, undone.summary.uuid);
    third.turn(3);
    let t = third.resumes_to_its_view("compacted again");
    assert_eq!(t.boundaries.len(), 3);
    Host::resumed(third.file()).resumes_to_its_view("resumed again");
}

#[test]
fn two_assistant_messages_appended_in_a_row_resume_as_two() {
    // Issue 27: the records carried no response id, so the importer merged
    // the second into the first (as it does for exports that drop the id).
    let mut host = Host::new();
    host.say(Role::User, Content::Text("hi".into()));
    host.say(Role::Assistant, Content::Text("first".into()));
    host.say(Role::Assistant, Content::Text("second".into()));
    host.turn(1);
    host.resumes_to_its_view("two replies in a row");
    host.compact();
    host.turn(2);
    host.resumes_to_its_view("after a compaction");
}

#[test]
fn a_pinned_message_a_compaction_keeps_is_a_preserved_message_of_its_boundary() {
    // Issue 27: the boundary listed only the preserved tail, so a resume
    // dropped the pinned message the live view kept after the summary.
    let (mut host, pinned) = Host::with_a_rule();
    host.turn(3);
    host.engine.pin(&pinned).unwrap();
    let compacted = host.compact();
    let preserved = &compacted.boundary.compact_metadata.preserved_messages;
    assert!(preserved.contains(&pinned), "{preserved:?}");
    assert!(host.view_uuids().contains(&pinned.0));
    host.resumes_to_its_view("pinned, compacted");
    host.turn(4);
    Host::resumed(host.file()).resumes_to_its_view("pinned, resumed");
}

#[test]
fn a_snip_is_recorded_and_a_resume_leaves_out_what_it_deleted() {
    // Issue 27/28: a snip wrote no record, so a resume brought back every
    // turn the live view had deleted (R11.6).
    let mut host = Host::new();
    for t in 0..10 {
        host.say(Role::User, Content::Text(format!("turn {t}")));
        host.say(Role::Assistant, Content::Text("a".repeat(80_000)));
    }
    let d = host.engine.before_call(None);
    assert!(d.steps.iter().any(|s| s.rule == "R5.1"), "it snips");
    let events = host.engine.take_view_events();
    assert!(
        matches!(events.as_slice(), [ViewEvent::Snipped { .. }]),
        "{events:?}"
    );
    assert_eq!(host.log.view_event(&events[0], at()).len(), 1);
    assert!(host.engine.take_view_events().is_empty(), "taken once");
    host.resumes_to_its_view("snipped");
    host.turn(1);
    let mut again = Host::resumed(host.file());
    again.resumes_to_its_view("snipped, resumed");
    again.turn(2);
    again.resumes_to_its_view("snipped, resumed, written on");
}

#[test]
fn a_compaction_under_an_open_call_resumes_with_its_attachments_first() {
    // The live view puts re-attached context before a preserved tail whose
    // last calls are still open; a file that ends there resumed it after,
    // splitting the call from the result the host appends next.
    let mut host = Host::new();
    host.turn(1);
    host.turn(2);
    let prompt = host.say(Role::User, Content::Text("read f9.rs".into()));
    host.engine.pin(&prompt).unwrap();
    host.open_call();
    let compacted = host.compact();
    let preserved = &compacted.boundary.compact_metadata.preserved_messages;
    assert!(preserved.len() > 1, "{preserved:?}");
    let live = host.view_uuids();
    let resumed = host.resumed_uuids();
    // The resume leaves the open call out (R11.4); the rest is in live order.
    assert_eq!(resumed, live[..live.len() - 1], "before the result");
    host.answer_open_call();
    host.resumes_to_its_view("after the result");
}

#[test]
fn pins_are_recorded_and_a_resume_pins_them_again() {
    // Issue 27/28: pins lived only in the engine, so `pinned()` came back
    // empty after a resume, and the next snip or compaction treated the
    // messages as any other.
    let (mut host, rule) = Host::with_a_rule();
    let reply = host.say(Role::Assistant, Content::Text("noted again".into()));
    host.pin(&rule, true);
    host.pin(&reply, true);
    host.pin(&reply, false);
    let t = host.resumes_to_its_view("pinned and unpinned");
    assert_eq!(t.resume().pinned, std::slice::from_ref(&rule));
    let mut again = Host::resumed(host.file());
    assert_eq!(
        again.engine.pinned(),
        std::slice::from_ref(&rule.0),
        "pinned again on resume"
    );
    // The resumed engine keeps it through a compaction, as the live one did.
    again.turn(3);
    again.turn(4);
    let compacted = again.compact();
    assert!(compacted
        .boundary
        .compact_metadata
        .preserved_messages
        .contains(&rule));
    again.resumes_to_its_view("pinned, resumed, compacted");
    let last = Host::resumed(again.file());
    assert_eq!(last.engine.pinned(), std::slice::from_ref(&rule.0));
    // A record that says nothing usable is an invalid record, not a pin.
    let mut file = last.file();
    file.extend_from_slice(
        br#"{"parentUuid":null,"type":"system","subtype":"message_pinned","uuid":"p-bad","pinMetadata":{"uuid":"m1"}}"#,
    );
    file.push(b'\n');
    let t = import(&file);
    assert_eq!(t.resume().pinned, [rule]);
    assert!(
        t.problems.iter().any(|p| p.detail.contains("pinMetadata")),
        "{:?}",
        t.problems
    );
}

#[test]
fn a_snip_of_a_tail_that_ended_on_a_call_leaves_the_context_first() {
    // Fuzzer seed 421731, once pins were resumed: a compaction under an open
    // call put its re-attached context before the pinned and preserved
    // messages; a later snip removed the preserved tail, and the resume
    // decided the order on what was left, putting the context after the
    // pinned message.
    let (mut host, rule) = Host::with_a_rule();
    host.pin(&rule, true);
    let prompt = host.say(Role::User, Content::Text("read f9.rs".into()));
    let call = host.open_call();
    host.compact();
    let result = host.answer_open_call();
    host.turn(3);
    let live = host.view_uuids();
    let at_rule = live.iter().position(|u| *u == rule.0).unwrap();
    assert!(at_rule > 1 && !is_made(&live[1]), "context first: {live:?}");
    let removed = vec![prompt, call, result];
    host.log.view_event(
        &ViewEvent::Snipped {
            removed: removed.clone(),
        },
        at(),
    );
    let expected: Vec<String> = live
        .into_iter()
        .filter(|u| !removed.iter().any(|r| r.0 == *u))
        .collect();
    let resumed = host.resumed_uuids();
    assert_eq!(resumed, expected);
}

#[test]
fn two_compactions_logged_after_both_write_each_its_own_attachments() {
    // Fuzzer seed 221681821: one prepare() ran a manual compaction and the
    // automatic one right after it, then the package logged both, each with
    // the attachments the view held by then (the second's): the file held
    // five uuids twice, and the resume lost the view's tail.
    let mut host = Host::new();
    host.turn(1);
    host.turn(2);
    host.turn(3);
    let compact = |host: &mut Host| {
        let mut log = SessionLog::new("scratch".into());
        super::compact_logged(&mut host.engine, &mut log)
    };
    let first = compact(&mut host);
    host.turn(4);
    let second = compact(&mut host);
    assert!(!first.restored.is_empty() && !second.restored.is_empty());
    // Logged only now, as prepare() logs what it finished.
    host.log.compacted(&first, &first.restored, at());
    host.log.compacted(&second, &second.restored, at());
    let file = String::from_utf8(host.file()).unwrap();
    let mut seen = std::collections::HashSet::new();
    for line in file.lines() {
        let uuid = serde_json::from_str::<serde_json::Value>(line).unwrap()["uuid"].clone();
        assert!(seen.insert(uuid.to_string()), "{uuid} written twice");
    }
}

#[test]
fn a_pin_after_a_resume_chains_after_the_files_last_pin_record() {
    // scripts/fuzz.sh seed 469002066: pin, unpin, resume, pin again. The
    // resumed engine chained its records after the last message, not the
    // unpin record, so the new pin derived the first pin's uuid; the
    // importer kept the first and the message resumed unpinned.
    let (mut host, rule) = Host::with_a_rule();
    host.pin(&rule, true);
    host.pin(&rule, false);
    let mut again = Host::resumed(host.file());
    assert!(again.engine.pinned().is_empty());
    again.pin(&rule, true);
    let t = again.resumes_to_its_view("pinned again after a resume");
    assert_eq!(t.resume().pinned, std::slice::from_ref(&rule));
    assert!(
        t.problems.iter().all(|p| p.kind != ProblemKind::DuplicateUuid),
        "{:?}",
        t.problems
    );
}
