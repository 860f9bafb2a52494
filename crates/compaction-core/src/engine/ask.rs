//! What a Tier 4 run asks the model for (SPEC R7.1, R7.3, R7.3a): the
//! fallback chain, the messages it summarises and the summary request.

use super::tier4::{Pending, Run};
use super::Engine;
use crate::compact::{cut, Purpose, SummaryRequest};
use crate::message::Message;
use crate::summary::summary_prompt;

impl Engine {
    pub(super) fn chain(&self) -> Vec<String> {
        let c = &self.settings.compact;
        let mut chain = vec![c.model.clone()];
        chain.extend_from_slice(&c.fallback_models);
        chain
    }

    /// Model `at` of the chain (its last, past the end) and the models
    /// after it, as a summary request names them: one copy of the code for
    /// the compaction's requests and the segments' and precompute's.
    pub(super) fn chain_from(&self, at: usize) -> (std::sync::Arc<str>, std::sync::Arc<[String]>) {
        let chain = self.chain();
        let model = chain[at.min(chain.len() - 1)].as_str().into();
        (model, chain.get(at + 1..).unwrap_or_default().into())
    }

    /// The messages the summary request carries: thinking made safe
    /// (R13.1), then as the plain API takes them (R13.3, user first).
    fn prefix_messages(&self, run: &Run) -> Vec<Message> {
        crate::api::plain::plain(self.thinking_safe(run.prefix.start, self.prefix(run).cloned().collect()))
    }

    /// The messages a run summarises, borrowed.
    pub(super) fn prefix(&self, run: &Run) -> impl Iterator<Item = &Message> {
        self.view.entries()[run.prefix.clone()]
            .iter()
            .map(|e| &*e.message)
    }

    pub(super) fn request_tokens(&self, run: &Run) -> u64 {
        let prompt = self.settings.estimator.text(&summary_prompt(&run.options));
        self.system_tokens + cut::tokens(&self.view, run.prefix.clone()) + prompt
    }

    /// [`Engine::summary_request`], built once while the view (appends
    /// aside: the prefix is the view's first messages) and the run are
    /// what they were: a compaction pending over many calls costs one
    /// build, and its messages cross into JS once.
    pub(super) fn summary_request_built(&self, run: &Run) -> SummaryRequest {
        let id = match run.pending {
            Pending::Summary(id) | Pending::Files(id) => id,
        };
        let key = [
            self.view.changes(),
            self.system_tokens,
            id,
            run.model as u64,
            u64::from(run.attempt),
            run.prefix.start as u64,
            run.prefix.end as u64,
        ];
        run.built
            .get(key, || Some(self.summary_request(run)))
            .unwrap_or_else(|| self.summary_request(run))
    }

    fn summary_request(&self, run: &Run) -> SummaryRequest {
        let (model, fallback_models) = self.chain_from(run.model);
        let id = match run.pending {
            Pending::Summary(id) | Pending::Files(id) => id,
        };
        SummaryRequest {
            id,
            purpose: Purpose::Compact,
            model,
            fallback_models,
            messages: self.prefix_messages(run).into(),
            prompt: summary_prompt(&run.options).into(),
            estimated_tokens: self.request_tokens(run),
            attempt: run.attempt,
            tool_choice: crate::compact::ToolChoice::None,
        }
    }
}

/// A summary request built once and handed out again while what it was
/// built from is unchanged (`key`: the view's changes, the system prompt's
/// tokens, …): a request pending over many calls costs one build, and its
/// messages are shared, never copied again. A build that found none (its
/// messages left the view) is kept too: appends bring none back, so it is
/// not looked for again, a walk over the view on every call (a precompute
/// pending when a snip took its messages: 240-540 us a call at 10k
/// messages, 4-6 us once kept). Not part of the engine's state: clones
/// and comparisons ignore it.
#[derive(Debug, Default)]
pub(crate) struct Memo(std::sync::Mutex<Option<(Key, Option<SummaryRequest>)>>);

/// What a request was built from, its unused places 0: an array, not a
/// `Vec` made on every call for each request pending.
pub(crate) type Key = [u64; 7];

impl Memo {
    /// The request built for `key` (or none), building it with `build`
    /// when the one kept was built for another key (or none was built).
    pub(crate) fn get(
        &self,
        key: Key,
        build: impl FnOnce() -> Option<SummaryRequest>,
    ) -> Option<SummaryRequest> {
        let Ok(mut kept) = self.0.lock() else {
            return build();
        };
        if let Some((_, request)) = kept.as_ref().filter(|(k, _)| same(k, &key)) {
            return request.clone();
        }
        let request = build();
        *kept = Some((key, request.clone()));
        request
    }
}

/// `a == b`, word by word: the array's `==` is a `memcmp` call, which in
/// wasm compares byte by byte (a tenth of a pending request's cost per
/// call, measured with twelve pending).
fn same(a: &Key, b: &Key) -> bool {
    a.iter().zip(b).fold(0, |d, (x, y)| d | (x ^ y)) == 0
}

impl Clone for Memo {
    fn clone(&self) -> Self {
        Memo(std::sync::Mutex::new(self.0.lock().ok().and_then(|k| k.clone())))
    }
}

impl PartialEq for Memo {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// The view's change counter when a check of what a pending request stands
/// on (its messages still in the view, in order) last passed: appends leave
/// every message where it was, so while the counter is the same the check
/// passes again without walking the view. Not part of the engine's state:
/// comparisons ignore it.
#[derive(Debug)]
pub(crate) struct ViewMark(std::sync::atomic::AtomicU64);

impl Default for ViewMark {
    fn default() -> Self {
        ViewMark(std::sync::atomic::AtomicU64::new(u64::MAX))
    }
}

impl ViewMark {
    /// A mark for a check that passes at change `changes` (what it checks
    /// was just taken from that view).
    pub(crate) fn at(changes: u64) -> Self {
        ViewMark(std::sync::atomic::AtomicU64::new(changes))
    }

    /// Whether `check` passes on the view at change `changes`: at once when
    /// it passed there before, else by running it (kept when it passes).
    pub(crate) fn passes(&self, changes: u64, check: impl FnOnce() -> bool) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        if self.0.load(Relaxed) == changes {
            return true;
        }
        let passed = check();
        if passed {
            self.0.store(changes, Relaxed);
        }
        passed
    }
}

impl Clone for ViewMark {
    fn clone(&self) -> Self {
        ViewMark(std::sync::atomic::AtomicU64::new(
            self.0.load(std::sync::atomic::Ordering::Relaxed),
        ))
    }
}

impl PartialEq for ViewMark {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::Memo;

    #[test]
    fn a_build_that_found_none_is_kept_for_its_key() {
        let memo = Memo::default();
        let builds = std::cell::Cell::new(0);
        let none = || {
            builds.set(builds.get() + 1);
            None
        };
        assert!(memo.get([1, 0, 0, 0, 0, 0, 0], none).is_none());
        assert!(memo.get([1, 0, 0, 0, 0, 0, 0], none).is_none());
        assert_eq!(builds.get(), 1);
        // Another key builds again.
        assert!(memo.get([2, 0, 0, 0, 0, 0, 0], none).is_none());
        assert_eq!(builds.get(), 2);
    }
}
