//! The resume lane (issue 26, point 4): the file around a compaction as the
//! core's `SessionLog` writes it, and the view the core's importer resumes
//! from it, which is the live one.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly
use compaction_scenarios::sandbox::{explore, journal, scenario, Knobs, Outcome, Place};

#[test]
fn a_compaction_writes_its_boundary_and_a_resume_relinks_the_preserved_tail() {
    let s = scenario("compact-analysis", 0).unwrap();
    let knobs = Knobs::of(&s);
    let e = explore(&s, &knobs).unwrap();
    let at = e.moments.iter().position(|m| m.frame.kind == "compact").unwrap();
    let Some(Outcome::Compacted {
        pre_tokens,
        post_tokens,
        preserved,
        ..
    }) = &e.moments[at].outcome
    else {
        panic!("the /compact compacted")
    };
    let j = journal(&s, &knobs, at).unwrap().expect("a boundary");
    // Every message appended before it has its record.
    assert_eq!(j.before, e.moments[at].stored);
    // The boundary, then the summary, then the five restored files.
    let boundary = &j.written[0];
    assert_eq!(
        (boundary.kind.as_str(), boundary.subtype.as_deref()),
        ("system", Some("compact_boundary"))
    );
    assert!(j.written[1].summary, "{:?}", j.written[1]);
    assert_eq!(j.written.len(), 2 + 5);
    assert_eq!(j.boundary.trigger, "manual");
    assert_eq!(
        (j.boundary.pre_tokens, j.boundary.post_tokens),
        (*pre_tokens, *post_tokens)
    );
    assert_eq!(j.boundary.preserved.len(), *preserved);
    assert!(j.boundary.logical_parent.is_some());
    // After it, the user's next prompt, chained to the last record written.
    assert_eq!(j.after.len(), 1);
    assert_eq!(
        j.after[0].parent.as_deref(),
        Some(j.written.last().unwrap().uuid.as_str())
    );
    // The resume: the summary, the preserved messages relinked in order,
    // the restored files, the new prompt; exactly the live view.
    assert_eq!(j.resumed[0].place, Place::Summary);
    let relinked: Vec<&str> = j
        .resumed
        .iter()
        .filter(|r| r.place == Place::Preserved)
        .map(|r| r.uuid.as_str())
        .collect();
    assert_eq!(
        relinked,
        j.boundary
            .preserved
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
    );
    assert_eq!(j.resumed.iter().filter(|r| r.place == Place::Restored).count(), 5);
    assert_eq!(j.resumed.last().unwrap().place, Place::New);
    assert!(j.resumes_as_live(), "resumed {:?}\nlive {:?}", j.resumed, j.live);
    assert!(j.transcript_path.as_deref().unwrap().ends_with(".jsonl"));
    // An event that wrote no boundary has no lane.
    assert_eq!(journal(&s, &knobs, 0).unwrap(), None);
}

#[test]
fn every_built_in_compaction_resumes_as_it_ran() {
    for s in compaction_scenarios::all() {
        let knobs = Knobs::of(&s);
        let e = explore(&s, &knobs).unwrap();
        for (i, m) in e.moments.iter().enumerate() {
            if !matches!(m.outcome, Some(Outcome::Compacted { .. })) {
                continue;
            }
            let j = journal(&s, &knobs, i).unwrap().unwrap();
            assert!(j.resumes_as_live(), "{} moment {i}", s.name);
        }
    }
}
