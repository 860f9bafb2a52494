//! "Your session, walked" (issue 26, point 8): any request of an imported
//! session laid out as the engine counts it, and at a boundary the real
//! summary and preserved tail the next request carried.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly
use compaction_core::engine::{EngineSettings, Preset};
use compaction_core::message::Message;
use compaction_core::transcript::replay::Timeline;
use compaction_core::transcript::{Importer, Transcript};
use compaction_scenarios::sandbox::{
    session_request, timeline_chart, Mark, Opened, Opens, Part, SessionRequest, Walking,
};

fn import(name: &str) -> Transcript {
    let path = format!(
        "{}/../compaction-core/tests/fixtures/transcripts/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut importer = Importer::new();
    importer.feed(&std::fs::read(path).unwrap());
    importer.finish()
}

fn settings() -> EngineSettings {
    Preset::Client21.settings(200_000)
}

fn request(t: &Transcript, timeline: &Timeline, at: usize) -> Option<SessionRequest> {
    session_request(t, timeline, settings(), at).unwrap()
}

/// The parts of a request, in order, each once.
fn parts(r: &SessionRequest) -> Vec<Part> {
    let mut out: Vec<Part> = r.segments.iter().map(|s| s.part).collect();
    out.dedup();
    out
}

/// The requests of `timeline`, and the first after each real boundary.
fn requests(timeline: &Timeline) -> (usize, Vec<usize>) {
    let replay = timeline.replay(Preset::Client21, settings()).unwrap();
    let chart = timeline_chart(timeline, &replay);
    let real = chart
        .marks
        .iter()
        .filter_map(|m| match m {
            Mark::Real { at, .. } => Some(*at),
            _ => None,
        })
        .collect();
    (chart.requests.len(), real)
}

#[test]
fn the_request_after_a_boundary_holds_the_real_summary_and_preserved_tail() {
    // The walked history starts at the compaction: its first request is
    // the one after it.
    let t = import("hand__preserved-segment-2.1.170.jsonl");
    let timeline = t.timeline();
    let (n, real) = requests(&timeline);
    assert_eq!(real, [0]);
    let after = request(&t, &timeline, 0).unwrap();
    assert!(after.at_boundary);
    let opening = after.opening.as_ref().expect("the era opens with a compaction");
    let boundary = &t.boundaries[0];
    assert_eq!(opening.boundary, boundary.uuid);
    assert!(
        t.message(boundary.summary_uuid.as_ref().unwrap())
            .unwrap()
            .is_compact_summary
    );
    assert!(
        opening.summary.starts_with("This session is being continued"),
        "{}",
        opening.summary
    );
    assert!(opening.summary_tokens > 0);
    // The summary, the preserved tail, then what came since: each message
    // counted once.
    let era = t.eras().into_iter().last().unwrap();
    assert_eq!(opening.preserved.len(), era.preserved);
    assert_eq!(opening.preserved.len(), 2);
    // The last era's opening from the resumed view (only that era
    // walked) is the one the engine's eras assemble.
    let resumed = Opened::resumed(&t).unwrap();
    let whole = Opened::of_era(&t, &t.eras(), 0).unwrap();
    let uuids = |o: &Opened| -> Vec<_> { o.messages.iter().map(|(m, p)| (m.uuid.clone(), *p)).collect() };
    assert_eq!(uuids(&resumed), uuids(&whole));
    assert_eq!(resumed.boundary, whole.boundary);
    // And the one the timeline holds, laid out with it on import.
    let laid = Opened::of_timeline(&timeline, 0).unwrap();
    assert_eq!(uuids(&laid), uuids(&whole));
    assert_eq!(laid.boundary, whole.boundary);
    let p = parts(&after);
    let from = usize::from(p[0] == Part::System);
    assert_eq!(p[from..], [Part::Summary, Part::Preserved, Part::Since]);
    let counted: u64 = after
        .segments
        .iter()
        .filter(|s| s.part != Part::System)
        .map(|s| s.tokens)
        .sum();
    assert_eq!(counted, after.counted);
    // The messages it held are the resumed view's, up to it.
    let resumed: Vec<_> = t
        .resume()
        .messages
        .iter()
        .map(|m| m.message.uuid.clone())
        .collect();
    assert_eq!(
        after.messages,
        resumed.iter().position(|u| *u == after.uuid).unwrap()
    );
    // What the file reports beyond the messages is what the host sent
    // outside them.
    let outside: u64 = after
        .segments
        .iter()
        .filter(|s| s.part == Part::System)
        .map(|s| s.tokens)
        .sum();
    assert_eq!(outside, after.reported.unwrap().saturating_sub(after.counted));
    // No request past the last.
    assert!(request(&t, &timeline, n - 1).is_some());
    assert!(request(&t, &timeline, n).is_none());
}

#[test]
fn requests_before_a_boundary_hold_the_conversation_and_after_it_the_same_opening() {
    let t = import("marot__spotter__4d5611e5-241a-462a-8d15-5122611a9569.jsonl");
    let timeline = t.timeline();
    let (n, real) = requests(&timeline);
    let first_after = real[0];
    assert!(first_after > 0);
    let before = request(&t, &timeline, first_after - 1).unwrap();
    assert!(before.opening.is_none() && !before.at_boundary);
    assert_eq!(parts(&before).last(), Some(&Part::Conversation));
    assert!(!parts(&before).contains(&Part::Summary));
    let a = request(&t, &timeline, first_after).unwrap();
    let b = request(&t, &timeline, n - 1).unwrap();
    assert!(a.at_boundary && !b.at_boundary);
    assert!(parts(&a).contains(&Part::Summary));
    assert_eq!(
        a.opening.as_ref().map(|o| &o.boundary),
        b.opening.as_ref().map(|o| &o.boundary)
    );
    assert!(b.messages > a.messages);
    // The reported figure is the file's usage of the answer.
    let answer = t.message(&b.uuid).unwrap();
    assert_eq!(
        b.reported,
        answer
            .message
            .usage
            .as_ref()
            .map(|u| u.prompt_tokens())
            .filter(|&t| t > 0)
    );
}

/// Sessions with compactions in them.
const COMPACTED: [&str; 5] = [
    "hand__preserved-segment-2.1.170.jsonl",
    "marot__spotter__4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
    "wpfleger96__claude-code-status-line__session_with_compact.jsonl",
    "ivh__claudecode_to_html__89196983-226d-4cce-917d-f19967122f0b.jsonl",
    "kzahel__yepanywhere__index.jsonl",
];

#[test]
fn every_eras_opening_from_the_timeline_is_the_one_the_whole_walk_assembles() {
    // Timeline::opening keeps what the layout's walk assembled on import:
    // an earlier era's summary and preserved tail without walking the
    // history again, the same messages in the same roles, and the same
    // request laid out from them.
    let mut eras_seen = 0;
    for name in COMPACTED {
        let t = import(name);
        let timeline = t.timeline();
        let eras = t.eras();
        assert_eq!(eras.len(), timeline.eras().count(), "{name}");
        let (n, real) = requests(&timeline);
        for era in 0..eras.len() {
            let whole = Opened::of_era(&t, &eras, era);
            let laid = Opened::of_timeline(&timeline, era);
            let key = |o: &Option<Opened>| {
                o.as_ref().map(|o| {
                    // A resume sends the preserved messages without usage (R7.6).
                    let without_usage = |m: &Message, p: Opens| Message {
                        usage: if p == Opens::Summary {
                            m.usage.clone()
                        } else {
                            None
                        },
                        ..m.clone()
                    };
                    let messages: Vec<_> = o
                        .messages
                        .iter()
                        .map(|(m, p)| (without_usage(m, *p), *p))
                        .collect();
                    (o.boundary.clone(), messages)
                })
            };
            assert_eq!(key(&laid), key(&whole), "{name} era {era}");
            eras_seen += usize::from(whole.is_some());
        }
        // Each first request after a boundary, and the last, laid out from
        // either opening, is the same request.
        for at in real.iter().copied().chain([n - 1]).filter(|&at| at < n) {
            let with = |opened: Option<Opened>| {
                let mut w = Walking::new(&t, &timeline, opened.as_ref(), settings(), at)
                    .unwrap()
                    .unwrap();
                while !w.step(&timeline, 7).unwrap() {}
                w.finish(&timeline)
            };
            let era = era_of(&timeline, at);
            let a = with(Opened::of_era(&t, &eras, era));
            let b = with(Opened::of_timeline(&timeline, era));
            assert_eq!(a, b, "{name} request {at}");
        }
    }
    assert!(eras_seen >= 3, "{eras_seen} eras opened by a compaction");
}

/// The era of request `at` (each assistant message answers one).
fn era_of(timeline: &Timeline, at: usize) -> usize {
    let mut seen = 0;
    for (era, (_, messages)) in timeline.eras().enumerate() {
        seen += messages
            .iter()
            .filter(|(m, _)| m.role == compaction_core::message::Role::Assistant)
            .count();
        if seen > at {
            return era;
        }
    }
    usize::MAX
}

#[test]
fn settings_that_differ_only_in_their_lines_lay_out_the_same_requests() {
    // The page lays a request out again when the file's choice (preset,
    // how its client counted) changes, and when the lines change only if
    // whether an engine starts with them changes (Walking::starts): a
    // preset's settings under other windows, output reserves, overrides
    // and margins lay out every request field for field alike, or fail as
    // Walking::starts says.
    let mut checked = 0;
    let mut refused = 0;
    for name in COMPACTED {
        let t = import(name);
        let timeline = t.timeline();
        let (n, _) = requests(&timeline);
        for preset in [Preset::Client21, Preset::Client2076, Preset::NewerClient] {
            for reported_output_as_is in [false, true] {
                let choice = |window| {
                    let mut s = preset.settings(window);
                    s.estimator.reported_output_as_is = reported_output_as_is;
                    s
                };
                let laid = |s: &EngineSettings| {
                    (0..n)
                        .map(|at| session_request(&t, &timeline, s.clone(), at).unwrap())
                        .collect::<Vec<_>>()
                };
                let base = choice(200_000);
                Walking::starts(&base).unwrap();
                let expected = laid(&base);
                for window in [1_000_000, 270_000, 60_000, 30_000, 8_000] {
                    let plain = choice(window);
                    let mut more = plain.clone();
                    more.thresholds.max_output_tokens = Some(window / 8);
                    more.thresholds.override_pct = Some(95.0);
                    more.thresholds.compact_margin = window / 10;
                    for s in [plain, more] {
                        match Walking::starts(&s) {
                            Ok(()) => {
                                assert_eq!(laid(&s), expected, "{name} {preset:?} {:?}", s.thresholds);
                                checked += 1;
                            }
                            Err(why) => {
                                let walked = session_request(&t, &timeline, s.clone(), 0);
                                assert_eq!(walked.unwrap_err().to_string(), why.to_string());
                                refused += 1;
                            }
                        }
                    }
                }
                // The comparison sees a change a request does show.
                let mut other = base.clone();
                other.estimator.chars_per_token = 2;
                assert_ne!(laid(&other), expected, "{name} {preset:?}");
            }
        }
    }
    assert!(
        checked >= 120 && refused > 0,
        "{checked} laid out, {refused} refused"
    );
}
