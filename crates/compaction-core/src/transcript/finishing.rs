//! The last passes of an import ([`Finishing`]): the chain resolved a
//! part at a time, then the file-wide tool pairing checked.

use crate::hash::KeySet;

use super::chain::Resolving;
use super::model::{ImportedMessage, Transcript};
use super::{Problem, ProblemKind};

/// Records (or messages) a sliced pass takes per step: a pass over the
/// 1M records of one era took 133 ms (late parents) and 128 ms (tool
/// pairing) in one step natively, some 200 ms of CPU in the page.
const SLICE: usize = 100_000;

/// An import being finished a pass over the records at a time
/// ([`Finishing::step`]), the long passes a slice of records at a time,
/// so that a host can yield between steps; the result is the one
/// [`Importer::finish`] gives.
#[derive(Debug)]
pub struct Finishing {
    transcript: Transcript,
    /// The passes done.
    done: usize,
    /// Where the pass under way stands (records or messages done).
    at: usize,
    /// The tool ids used and answered in the file, as collected so far
    /// (owned: a step cannot keep borrows of the transcript).
    uses: KeySet<String>,
    results: KeySet<String>,
}

impl Finishing {
    /// The passes still to run over `transcript`.
    pub(super) fn new(transcript: Transcript) -> Self {
        Finishing {
            transcript,
            done: 0,
            at: 0,
            uses: KeySet::default(),
            results: KeySet::default(),
        }
    }

    /// Runs the next pass, or the next slice of a long one; true once
    /// every pass ran.
    pub fn step(&mut self) -> bool {
        self.step_by(SLICE)
    }

    /// [`Finishing::step`] with slices of `slice` records (at least one).
    pub fn step_by(&mut self, slice: usize) -> bool {
        let Transcript {
            messages,
            boundaries,
            problems,
            graph,
            ..
        } = &mut self.transcript;
        let (from, parts) = (self.at, Resolving::ALL.len());
        let to = |len: usize| len.min(from.saturating_add(slice.max(1)));
        let (to, len) = match Resolving::ALL.get(self.done) {
            Some(Resolving::Links) => {
                let len = graph.nodes.len();
                graph.resolve_links(problems, from, to(len));
                (to(len), len)
            }
            // The summaries found, then claimed, then the boundaries a tenth
            // of a slice at a time (76 ms per 100,000 boundaries natively).
            Some(Resolving::Boundaries) if from == 0 => {
                graph.find_summaries(messages, boundaries);
                (1, boundaries.len() + 2)
            }
            Some(Resolving::Boundaries) if from == 1 => {
                graph.claim_summaries(messages, boundaries);
                (2, boundaries.len() + 2)
            }
            Some(Resolving::Boundaries) => {
                let len = boundaries.len() + 2;
                let to = len.min(from.saturating_add((slice / 10).max(1)));
                let (first, end) = (from.saturating_sub(2), to.saturating_sub(2));
                graph.resolve_boundaries(messages, boundaries, problems, first, end);
                (to, len)
            }
            Some(&part) => {
                graph.resolve_part(part, messages, boundaries, problems);
                (0, 0)
            }
            None if self.done == parts => {
                for m in messages.get(from..to(messages.len())).unwrap_or_default() {
                    self.uses.extend(m.message.tool_use_ids().map(str::to_owned));
                    self.results
                        .extend(m.message.tool_result_ids().map(str::to_owned));
                }
                (to(messages.len()), messages.len())
            }
            None if self.done == parts + 1 => {
                let slice = messages.get(from..to(messages.len())).unwrap_or_default();
                orphan_problems(slice, &self.uses, &self.results, problems);
                (to(messages.len()), messages.len())
            }
            None if self.done == parts + 2 => {
                // Dropped here, in a step, not by the host's `finish`.
                self.uses = KeySet::default();
                self.results = KeySet::default();
                problems.sort_by_key(|p| p.line);
                (0, 0)
            }
            None => return true,
        };
        if to < len {
            self.at = to;
            return false;
        }
        self.at = 0;
        self.done += 1;
        self.done >= parts + 3
    }

    /// The transcript (whole once [`Finishing::step`] said so).
    pub fn finish(self) -> Transcript {
        self.transcript
    }
}

/// The unpaired tool blocks of `messages`, one problem each, given every
/// tool id the file uses and answers.
fn orphan_problems(
    messages: &[ImportedMessage],
    uses: &KeySet<String>,
    results: &KeySet<String>,
    problems: &mut Vec<Problem>,
) {
    for m in messages {
        for id in m.message.tool_use_ids().filter(|id| !results.contains(*id)) {
            problems.push(Problem::new(
                m.line,
                ProblemKind::OrphanToolUse,
                format!(
                    "`tool_use` `{id}` in message `{}` has no `tool_result` in the file",
                    m.message.uuid
                ),
            ));
        }
        for id in m.message.tool_result_ids().filter(|id| !uses.contains(*id)) {
            problems.push(Problem::new(
                m.line,
                ProblemKind::OrphanToolResult,
                format!(
                    "`tool_result` for `{id}` in message `{}` has no `tool_use` in the file",
                    m.message.uuid
                ),
            ));
        }
    }
}
