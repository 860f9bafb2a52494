//! The one request loop: [`drive`] answers every request the engine has
//! pending through a [`Host`], synchronously; [`Driver`] is the same loop's
//! logic, one step at a time, for hosts that answer asynchronously (the JS
//! package's `prepare(host)` is built on it).
//!
//! Host errors are the host's to see: they are never swallowed or retried.
//! A failed summary moves to the next model of the fallback chain (each
//! model is asked at most once); when the chain is exhausted the request
//! fails in the engine (a compaction fails, and an automatic one counts
//! once toward the failure breaker, R10.1) and [`drive`] returns the
//! host's error as the cause. A failed file read or hook leaves its
//! request pending and returns the error at once.

use super::request::{Answer, Outcome, Request};
use super::Engine;
use crate::compact::{FileAnswer, HookOutcome, HookOutput, PreCompactRequest, Progress, SummaryRequest};
use crate::error::Error;
use crate::step::Step;

/// What a host does for the engine: the I/O the engine never does itself.
/// Only `summarize` is required; by default the host has no hooks, reads
/// no files and answers the background precompute.
pub trait Host {
    /// The host's own error (a failed model call, an unreadable folder…).
    type Error;

    /// A summary: a compaction's, a Tier 3 segment's or the precompute's
    /// (`request.purpose`). Send `request.messages`, then `request.prompt`
    /// as a user message, to `request.model`, tools denied, and return
    /// [`Answer::Text`]; or [`Answer::Offline`], [`Answer::ModelUnavailable`],
    /// [`Answer::PromptTooLong`]. An `Err` is handled as the module says.
    fn summarize(&mut self, request: &SummaryRequest) -> Result<Answer, Self::Error>;

    /// The PreCompact hooks, before every compaction (R7.2): block, or add
    /// instructions to the summary prompt. Default: no hooks (allow).
    fn pre_compact(&mut self, request: &PreCompactRequest) -> Result<HookOutcome, Self::Error> {
        let _ = request;
        Ok(HookOutcome::default())
    }

    /// The files to re-attach after a compaction (R7.7), each with its
    /// content or why it could not be read. Default: none can be read.
    fn read_files(&mut self, paths: &[String]) -> Result<Vec<FileAnswer>, Self::Error> {
        Ok(paths
            .iter()
            .map(|path| FileAnswer {
                path: path.clone(),
                content: Err("the host reads no files".to_owned()),
            })
            .collect())
    }

    /// What the post-compact hooks printed (R7.1), when the settings ask
    /// for them. Default: none.
    fn post_compact_hooks(&mut self) -> Result<Vec<HookOutput>, Self::Error> {
        Ok(Vec::new())
    }

    /// Whether to answer the background precompute request (R9.1) now.
    /// Default: yes.
    fn precompute(&self) -> bool {
        true
    }
}

/// Why [`drive`] stopped before every request was answered.
#[derive(Debug)]
pub enum DriveError<E> {
    /// The host failed on a request (see the module for what the engine
    /// did with it); `cause` is the host's own error.
    Host {
        /// The request's id.
        request: u64,
        /// Its kind (`summary`, `files`, …).
        kind: &'static str,
        /// The host's error.
        cause: E,
    },
    /// The engine refused an answer the host gave (one of the wrong kind).
    Engine(Error),
}

impl<E: std::fmt::Display> std::fmt::Display for DriveError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DriveError::Host { request, kind, cause } => {
                write!(f, "the host failed on {kind} request {request}: {cause}")
            }
            DriveError::Engine(e) => e.fmt(f),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for DriveError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DriveError::Host { cause, .. } => Some(cause),
            DriveError::Engine(e) => Some(e),
        }
    }
}

/// Answers put to the engine by one loop at most: far more than any run
/// needs (each answer moves a request on, and chains are short), so a loop
/// always ends; the outcome's `requests` shows what was left.
const MAX_ANSWERS: usize = 10_000;

/// The request loop's logic one step at a time: ask [`Driver::next`] for a
/// request, put it to the host, and give back [`Driver::answered`] or
/// [`Driver::host_failed`]; [`Driver::finish`] gathers the outcome.
/// [`drive`] is this loop, synchronous.
#[derive(Debug, Default)]
pub struct Driver {
    steps: Vec<Step>,
    compaction: Option<Progress>,
    skip_precompute: bool,
    answers: usize,
}

impl Driver {
    /// A loop; `precompute`: answer the background precompute request too.
    pub fn new(precompute: bool) -> Driver {
        Driver {
            skip_precompute: !precompute,
            ..Driver::default()
        }
    }

    /// The next request to put to the host; `None` when nothing is left.
    pub fn next(&self, engine: &Engine) -> Option<Request> {
        if self.answers >= MAX_ANSWERS {
            return None;
        }
        engine
            .requests()
            .into_iter()
            .find(|r| !(self.skip_precompute && matches!(r, Request::Precompute(_))))
    }

    /// The host answered request `id`.
    pub fn answered(&mut self, engine: &mut Engine, id: u64, answer: Answer) -> Result<(), Error> {
        let outcome = engine.answer(id, answer)?;
        self.answers += 1;
        self.steps.extend(outcome.steps);
        if outcome.compaction.is_some() {
            self.compaction = outcome.compaction;
        }
        Ok(())
    }

    /// The host failed on `request`. A summary request with models left in
    /// its chain moves to the next one (`Ok(true)`: go on). Otherwise
    /// `Ok(false)`: stop and hand the host its error; a summary request has
    /// then failed in the engine, a file or hook request stays pending.
    pub fn host_failed(&mut self, engine: &mut Engine, request: &Request) -> Result<bool, Error> {
        let Some(summary) = request.summary() else {
            return Ok(false);
        };
        if summary.fallback_models.is_empty() {
            let reason = format!("the host's summariser failed on {}", summary.model);
            self.answered(engine, request.id(), Answer::Failed { reason })?;
            Ok(false)
        } else {
            self.answered(engine, request.id(), Answer::ModelUnavailable)?;
            Ok(true)
        }
    }

    /// Everything the loop did: its steps, what is still pending, where the
    /// compaction it moved ended.
    pub fn finish(self, engine: &Engine) -> Outcome {
        Outcome {
            steps: self.steps,
            requests: engine.requests(),
            compaction: self.compaction,
        }
    }
}

/// Answers every request the engine has pending through `host`, until none
/// is left (a compaction with its retries and fallbacks, its hooks and
/// files; Tier 3's segments; the precompute unless the host declines it).
/// Call it after [`Engine::before_call`], [`Engine::compact`] or
/// [`Engine::prompt_too_long`]; the outcome holds the steps of the answers
/// (not those of the call before it).
pub fn drive<H: Host>(engine: &mut Engine, host: &mut H) -> Result<Outcome, DriveError<H::Error>> {
    let mut driver = Driver::new(host.precompute());
    while let Some(request) = driver.next(engine) {
        match ask(host, &request) {
            Ok(answer) => driver
                .answered(engine, request.id(), answer)
                .map_err(DriveError::Engine)?,
            Err(cause) => {
                if !driver.host_failed(engine, &request).map_err(DriveError::Engine)? {
                    return Err(DriveError::Host {
                        request: request.id(),
                        kind: request.kind(),
                        cause,
                    });
                }
            }
        }
    }
    Ok(driver.finish(engine))
}

/// Puts one request to the host: the method of [`Host`] that answers its
/// kind.
pub(crate) fn ask<H: Host>(host: &mut H, request: &Request) -> Result<Answer, H::Error> {
    match request {
        Request::PreCompact(r) => host.pre_compact(r).map(Answer::Hook),
        Request::Summary(r) | Request::CollapseSegment(r) | Request::Precompute(r) => host.summarize(r),
        Request::Files(r) => host.read_files(&r.paths).and_then(|files| {
            let hooks = if r.post_compact_hooks {
                host.post_compact_hooks()?
            } else {
                Vec::new()
            };
            Ok(Answer::Files { files, hooks })
        }),
    }
}
