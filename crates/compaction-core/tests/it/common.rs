//! Helpers shared by the test modules: the real session files under
//! `tests/fixtures/transcripts/` (see `SOURCES.tsv` there).

#![allow(clippy::unwrap_used)] // test helpers may fail loudly

/// Where the real session files are.
pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/transcripts");

/// A real session file's bytes.
pub fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{FIXTURES}/{name}")).unwrap()
}

/// A real session file's text.
pub fn fixture_text(name: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{name}")).unwrap()
}

use compaction_core::compact::{Compacted, FileAnswer, FileRequest, SummaryRequest};
use compaction_core::engine::{Answer, Decision, Engine, Outcome, Request};
use compaction_core::step::Step;

/// Where a compaction stands after a call, read from the engine's
/// [`Outcome`]: the request it waits on (hooks answered), or how it ended.
#[derive(Debug)]
pub enum Stage {
    /// Waiting for its summary.
    NeedsSummary { request: SummaryRequest },
    /// Waiting for its files.
    NeedsFiles { request: FileRequest },
    /// No compaction: Tier 3 segments are asked for (R8.1's first stage).
    NeedsCollapse { requests: Vec<SummaryRequest> },
    /// Done.
    Compacted { result: Box<Compacted> },
    /// Failed or blocked.
    Failed { reason: String },
}

/// An outcome's steps and [`Stage`].
pub fn split(out: Outcome) -> (Vec<Step>, Stage) {
    let stage = stage(&out.requests, out.compaction);
    (out.steps, stage)
}

/// The stage that `requests` and `compaction` describe.
pub fn stage(requests: &[Request], compaction: Option<compaction_core::compact::Progress>) -> Stage {
    use compaction_core::compact::Progress;
    match compaction {
        Some(Progress::Compacted { result }) => return Stage::Compacted { result },
        Some(Progress::Failed { reason }) => return Stage::Failed { reason },
        _ => {}
    }
    for r in requests {
        match r {
            Request::Summary(request) => {
                return Stage::NeedsSummary {
                    request: request.clone(),
                }
            }
            Request::Files(request) => {
                return Stage::NeedsFiles {
                    request: request.clone(),
                }
            }
            _ => {}
        }
    }
    Stage::NeedsCollapse {
        requests: requests
            .iter()
            .filter_map(|r| match r {
                Request::CollapseSegment(s) => Some(s.clone()),
                _ => None,
            })
            .collect(),
    }
}

/// Answers a pending PreCompact request with `allow` (no hooks), keeping
/// the steps of both.
pub trait Allow {
    /// This outcome, then the hooks' answer: allow.
    fn allowed(self, e: &mut Engine) -> Outcome;
    /// This outcome, then the hooks' answer `hook`.
    fn hooked(self, e: &mut Engine, hook: compaction_core::compact::HookOutcome) -> Outcome;
}

impl Allow for Outcome {
    fn allowed(self, e: &mut Engine) -> Outcome {
        self.hooked(e, compaction_core::compact::HookOutcome::default())
    }

    fn hooked(mut self, e: &mut Engine, hook: compaction_core::compact::HookOutcome) -> Outcome {
        let asked = self.requests.iter().find_map(|r| match r {
            Request::PreCompact(h) => Some(h.id),
            _ => None,
        });
        let Some(id) = asked else { return self };
        let next = e.answer(id, Answer::Hook(hook)).unwrap();
        self.steps.extend(next.steps);
        Outcome {
            steps: self.steps,
            requests: next.requests,
            compaction: next.compaction.or(self.compaction),
        }
    }
}

/// The automatic compaction a decision started, past its hooks (allowed).
pub fn begun(e: &mut Engine, d: &Decision) -> (Vec<Step>, Stage) {
    let out = Outcome {
        steps: Vec::new(),
        requests: d.requests.clone(),
        compaction: d.compaction.clone(),
    };
    split(out.allowed(e))
}

/// A file answer without hook output.
pub fn files(answers: &[FileAnswer]) -> Answer {
    Answer::Files {
        files: answers.to_vec(),
        hooks: Vec::new(),
    }
}

/// A host whose every summary is the offline summariser's; it has no hooks
/// and reads no files.
pub struct Offline;

impl compaction_core::engine::Host for Offline {
    type Error = std::convert::Infallible;

    fn summarize(&mut self, _: &SummaryRequest) -> Result<Answer, Self::Error> {
        Ok(Answer::Offline)
    }
}

/// The Tier 3 segment requests among `requests`.
pub fn segments(requests: &[Request]) -> Vec<SummaryRequest> {
    requests
        .iter()
        .filter_map(|r| match r {
            Request::CollapseSegment(s) => Some(s.clone()),
            _ => None,
        })
        .collect()
}

/// The precompute request among `requests`, if any.
pub fn precompute_of(requests: &[Request]) -> Option<SummaryRequest> {
    requests.iter().find_map(|r| match r {
        Request::Precompute(s) => Some(s.clone()),
        _ => None,
    })
}

/// Answers every pending request through [`Offline`] (files: none).
pub fn drive_offline(e: &mut Engine) -> Outcome {
    compaction_core::engine::drive(e, &mut Offline).unwrap()
}
