//! What a compaction lost (issue 26, point 5): the summary's nine
//! sections, each line traced to the summarised messages it quotes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly
use compaction_core::summary::SECTIONS;
use compaction_scenarios::sandbox::{explore, scenario, Kind, Knobs, Moment, Outcome};

fn the_compact() -> Moment {
    let s = scenario("compact-analysis", 0).unwrap();
    let e = explore(&s, &Knobs::of(&s)).unwrap();
    e.moments
        .into_iter()
        .find(|m| m.frame.kind == "compact")
        .expect("a /compact")
}

#[test]
fn the_summary_reads_back_as_its_nine_sections_each_line_from_summarised_messages() {
    let m = the_compact();
    let titles: Vec<&str> = m.lost.iter().map(|s| s.title).collect();
    assert_eq!(titles, SECTIONS);
    let replaced: Vec<_> = m.after.iter().flat_map(|i| i.replaces.iter()).collect();
    let mut traced = 0;
    for line in m.lost.iter().flat_map(|s| &s.lines) {
        for &at in &line.sources {
            assert!(
                replaced.contains(&&m.before[at].uuid),
                "{:?} from a message the summary replaced",
                line.text
            );
        }
        traced += usize::from(!line.sources.is_empty());
    }
    assert!(traced >= 8, "{traced} lines traced");
    // Every line of the summary is in a section.
    let Some(Outcome::Compacted { summary, .. }) = &m.outcome else {
        panic!()
    };
    let from = summary.find("1. ").unwrap();
    let body = summary[from..].lines().filter(|l| !l.trim().is_empty()).count();
    assert_eq!(body, 9 + m.lost.iter().map(|s| s.lines.len()).sum::<usize>());
}

#[test]
fn a_path_line_lights_the_calls_that_named_it_and_a_prompt_line_its_prompt() {
    let m = the_compact();
    let files = m
        .lost
        .iter()
        .find(|s| s.title == "Files and Code Sections")
        .unwrap();
    let line = files
        .lines
        .iter()
        .find(|l| l.text.contains("cli.readable.js"))
        .unwrap();
    let path = line.text.trim_start_matches("- ");
    let naming: Vec<usize> = m
        .before
        .iter()
        .enumerate()
        .filter(|(_, i)| {
            i.kind == Kind::Assistant
                && i.label.contains(path)
                && m.after.iter().any(|a| a.replaces.contains(&i.uuid))
        })
        .map(|(at, _)| at)
        .collect();
    assert!(naming.len() > 3, "{naming:?}");
    assert_eq!(line.sources, naming);
    // Section 6 quotes each prompt: its line lights that user message.
    let prompts = m.lost.iter().find(|s| s.title == "All User Messages").unwrap();
    let first = prompts.lines.iter().find(|l| !l.sources.is_empty()).unwrap();
    assert!(
        first.sources.iter().all(|&at| m.before[at].kind == Kind::User),
        "{first:?}"
    );
    // Tools used: every call of those tools.
    let tools = m
        .lost
        .iter()
        .find(|s| s.title == "Key Technical Concepts")
        .unwrap();
    let calls = m.before.iter().filter(|i| {
        i.kind == Kind::Assistant
            && m.after.iter().any(|a| a.replaces.contains(&i.uuid))
            && (i.label.starts_with("Read ") || i.label.starts_with("Bash ") || i.label.starts_with("Grep "))
    });
    assert!(tools.lines[0].sources.len() >= calls.count());
    // Counts quote nothing.
    let counts = m.lost.iter().find(|s| s.title == "Problem Solving").unwrap();
    assert!(counts.lines[0].sources.is_empty());
}

#[test]
fn an_event_that_did_not_compact_lost_nothing() {
    let s = scenario("compact-analysis", 0).unwrap();
    let e = explore(&s, &Knobs::of(&s)).unwrap();
    for m in &e.moments {
        assert_eq!(
            m.lost.is_empty(),
            !matches!(m.outcome, Some(Outcome::Compacted { .. }))
        );
    }
}
