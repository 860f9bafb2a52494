//! [`Engine::answer`]: the one way a host answers any request, and
//! [`Engine::requests`]: every request pending, in one place.

use super::request::{Answer, Outcome, Request};
use super::tier4::Reply;
use super::Engine;
use crate::error::Error;

/// Which pending request an id names.
enum Target {
    Hook,
    Summary,
    Files,
    Segment(usize),
    Precompute,
}

impl Target {
    fn kind(&self) -> &'static str {
        match self {
            Target::Hook => "preCompact",
            Target::Summary => "summary",
            Target::Files => "files",
            Target::Segment(_) => "collapseSegment",
            Target::Precompute => "precompute",
        }
    }
}

impl Engine {
    /// Every request pending now, in the order to answer them: the
    /// compaction's (its PreCompact hooks, then its summary, then its
    /// files), Tier 3's segments, the background precompute.
    pub fn requests(&self) -> Vec<Request> {
        self.requests_after(self.tier4_request())
    }

    /// [`Engine::requests`], the compaction's (`tier4`) found already.
    pub(super) fn requests_after(&self, tier4: Option<Request>) -> Vec<Request> {
        // Sized once, the segments' requests put in as they are found: no
        // list of them first, no growing (twelve pending: one allocation,
        // not four).
        let mut out = Vec::with_capacity(self.collapse_pending.len() + 2);
        // `if let` + push, not `extend` of an Option: no
        // SpecExtend<option::IntoIter<_>> of its own in the modules.
        if let Some(request) = tier4 {
            out.push(request);
        }
        out.extend(
            self.collapse_pending
                .iter()
                .filter_map(|p| self.segment_request(p))
                .map(Request::CollapseSegment),
        );
        if let Some(request) = self.precompute_request() {
            out.push(Request::Precompute(request));
        }
        out
    }

    /// Answers the pending request `id` (see [`Request`] for which
    /// [`Answer`] each kind takes). An id the engine is not waiting for is
    /// [`Error::UnknownRequest`], an answer of the wrong kind
    /// [`Error::WrongAnswer`]; either way nothing changes.
    pub fn answer(&mut self, id: u64, answer: Answer) -> Result<Outcome, Error> {
        let target = self.target(id).ok_or(Error::UnknownRequest { id })?;
        let request = target.kind();
        let wrong = |answer: &Answer| Error::WrongAnswer {
            id,
            request,
            answer: answer.kind(),
        };
        // One `outcome` for every arm (one copy of its code).
        let (steps, progress) = match (target, answer) {
            (Target::Hook, Answer::Hook(hook)) => {
                let Some(wait) = self.hook.take() else {
                    return Err(Error::UnknownRequest { id });
                };
                let (steps, progress) = self.hook_answered(wait, hook);
                (steps, Some(progress))
            }
            (Target::Files, Answer::Files { files, hooks }) => {
                let (steps, progress) = self.tier4_files(id, &files, &hooks)?;
                (steps, Some(progress))
            }
            (target @ (Target::Summary | Target::Segment(_) | Target::Precompute), answer) => {
                let reply = Reply::of(answer).map_err(|a| wrong(&a))?;
                match target {
                    Target::Summary => {
                        let (steps, progress) = self.tier4_summary(id, reply)?;
                        (steps, Some(progress))
                    }
                    Target::Segment(index) => (self.segment_answered(index, reply), None),
                    _ => (self.precompute_answered(reply), None),
                }
            }
            (_, answer) => return Err(wrong(&answer)),
        };
        Ok(self.outcome(steps, progress))
    }

    /// The pending request `id` names, if any.
    fn target(&self, id: u64) -> Option<Target> {
        if self.hook.as_ref().is_some_and(|w| w.id == id) {
            return Some(Target::Hook);
        }
        if let Some(run) = &self.run {
            match run.pending {
                super::tier4::Pending::Summary(p) if p == id => return Some(Target::Summary),
                super::tier4::Pending::Files(p) if p == id => return Some(Target::Files),
                _ => {}
            }
        }
        if let Some(index) = self.segment_index(id) {
            return Some(Target::Segment(index));
        }
        self.is_precompute(id).then_some(Target::Precompute)
    }
}
