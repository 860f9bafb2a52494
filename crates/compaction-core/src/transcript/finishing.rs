//! The last passes of an import ([`Finishing`]): the chain resolved a
//! part at a time, then the file-wide tool pairing checked.

use crate::hash::HashSet;

use super::chain::Resolving;
use super::model::{ImportedMessage, Transcript};
use super::{Problem, ProblemKind};

/// An import being finished a pass over the records at a time
/// ([`Finishing::step`]), so that a host can yield between passes; the
/// result is the one [`Importer::finish`] gives.
#[derive(Debug)]
pub struct Finishing {
    pub(super) transcript: Transcript,
    /// The passes done.
    pub(super) done: usize,
}

impl Finishing {
    /// Runs the next pass; true once every pass ran.
    pub fn step(&mut self) -> bool {
        let Transcript {
            messages,
            boundaries,
            problems,
            graph,
            ..
        } = &mut self.transcript;
        match Resolving::ALL.get(self.done) {
            Some(&part) => graph.resolve_part(part, messages, boundaries, problems),
            None if self.done == Resolving::ALL.len() => orphan_problems(messages, problems),
            None if self.done == Resolving::ALL.len() + 1 => problems.sort_by_key(|p| p.line),
            None => return true,
        }
        self.done += 1;
        self.done >= Resolving::ALL.len() + 2
    }

    /// The transcript (whole once [`Finishing::step`] said so).
    pub fn finish(self) -> Transcript {
        self.transcript
    }
}

/// File-wide unpaired tool blocks, one problem each.
fn orphan_problems(messages: &[ImportedMessage], problems: &mut Vec<Problem>) {
    let mut uses: HashSet<&str> = HashSet::default();
    let mut results: HashSet<&str> = HashSet::default();
    for m in messages {
        uses.extend(m.message.tool_use_ids());
        results.extend(m.message.tool_result_ids());
    }
    for m in messages {
        for id in m.message.tool_use_ids().filter(|id| !results.contains(id)) {
            problems.push(Problem::new(
                m.line,
                ProblemKind::OrphanToolUse,
                format!(
                    "`tool_use` `{id}` in message `{}` has no `tool_result` in the file",
                    m.message.uuid
                ),
            ));
        }
        for id in m.message.tool_result_ids().filter(|id| !uses.contains(id)) {
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
