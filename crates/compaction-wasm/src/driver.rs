//! `engine.prepare(host)`'s steps: the binding's only request loop. The
//! loop itself is JS (`js/guard.js`: each `await` of a host callback
//! between two synchronous calls into the module, so a trap in any step
//! rejects the promise with `ENGINE_POISONED` instead of killing a
//! microtask); each step here takes the host's outcome for the callback it
//! asked for and steps the core's [`Preparation`] (which runs the cascade,
//! decides what a host failure does — the next model of the chain, or a
//! failed request — and when to run the cascade again) up to the next
//! callback to call. The state is never borrowed across a callback: the
//! host may read it while its call runs.
//!
//! The background precompute (SPEC R9.1) is never awaited inside a
//! preparation: when one ends with a precompute request pending (and the
//! host wants it), the JS loop calls `summarize` for it after resolving and
//! hands its outcome to [`Background::settled`]; the next preparation
//! answers the engine with it before it decides. Its failure drops that
//! precompute (a step of the next decision says so; `host.onPrecompute`
//! gets the error) and fails no call.

use compaction_core::compact::FileAnswer;
use compaction_core::engine::{Answer, Preparation, Request};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::dto::{self, SummaryRequest};
use crate::engine::{borrow, to_js, Shared};
use crate::error::{
    js_error, js_error_caused, At, INVALID_ARGUMENT, POST_COMPACT_HOOKS_FAILED, PRE_COMPACT_FAILED,
    READ_FILES_FAILED, SUMMARIZER_FAILED,
};

/// The host `prepare()` was given, read once.
pub(crate) struct JsHost {
    summarize: js_sys::Function,
    read_files: Option<js_sys::Function>,
    pre_compact: Option<js_sys::Function>,
    post_compact_hooks: Option<js_sys::Function>,
    pub(crate) now: Option<String>,
    precompute: bool,
    on_precompute: Option<js_sys::Function>,
}

impl JsHost {
    /// Reads `{ summarize, readFiles?, preCompact?, postCompactHooks?, now?, precompute?, onPrecompute? }`.
    pub(crate) fn read(host: &JsValue) -> Result<JsHost, JsValue> {
        if !host.is_object() {
            return Err(js_error(
                INVALID_ARGUMENT,
                "host",
                "host must be an object { summarize, readFiles?, preCompact?, postCompactHooks?, now?, precompute?, onPrecompute? }",
            ));
        }
        let get = |key: &str| crate::js::get(host, key, &compaction_core::concat("host.", key));
        let function = |key: &str| -> Result<Option<js_sys::Function>, JsValue> {
            let value = get(key)?;
            if value.is_undefined() || value.is_null() {
                return Ok(None);
            }
            value.dyn_into::<js_sys::Function>().map(Some).map_err(|_| {
                js_error(
                    INVALID_ARGUMENT,
                    &compaction_core::concat("host.", key),
                    &compaction_core::concat3("host.", key, " must be a function"),
                )
            })
        };
        let summarize = function("summarize")?.ok_or_else(|| {
            js_error(
                INVALID_ARGUMENT,
                "host.summarize",
                "host.summarize must be a function",
            )
        })?;
        let now = get("now")?;
        let now = if now.is_undefined() || now.is_null() {
            None
        } else {
            Some(now.as_string().ok_or_else(|| {
                js_error(
                    INVALID_ARGUMENT,
                    "host.now",
                    "host.now must be an RFC 3339 string",
                )
            })?)
        };
        Ok(JsHost {
            summarize,
            read_files: function("readFiles")?,
            pre_compact: function("preCompact")?,
            post_compact_hooks: function("postCompactHooks")?,
            now,
            precompute: get("precompute")?.as_bool().unwrap_or(true),
            on_precompute: function("onPrecompute")?,
        })
    }

    /// The first callback `request` needs, or its answer when it needs none.
    fn begin(&self, request: &Request) -> Asked {
        match request {
            Request::PreCompact(_) => {
                let Some(f) = &self.pre_compact else {
                    return Asked::Answer(Answer::allow());
                };
                match to_js(&dto::Request::from_core(request.clone())) {
                    Ok(arg) => Asked::Call(f.clone(), arg, Stage::PreCompact),
                    Err(e) => Asked::Failed(PRE_COMPACT_FAILED, "preCompact", e),
                }
            }
            Request::Summary(r) | Request::CollapseSegment(r) | Request::Precompute(r) => {
                // (A precompute is never asked inside a preparation: see the module.)
                match to_js(&SummaryRequest::from_core(r.clone())) {
                    Ok(arg) => Asked::Call(self.summarize.clone(), arg, Stage::Summarize),
                    Err(e) => Asked::Failed(SUMMARIZER_FAILED, "summarize", e),
                }
            }
            Request::Files(r) => match &self.read_files {
                None => {
                    let files = r
                        .paths
                        .iter()
                        .map(|path| compaction_core::compact::FileAnswer {
                            path: path.clone(),
                            content: Err("no readFiles given to prepare()".to_owned()),
                        })
                        .collect();
                    self.hooks_or_answer(files, r.post_compact_hooks)
                }
                Some(f) => {
                    let paths: js_sys::Array = r.paths.iter().map(|p| JsValue::from_str(p)).collect();
                    Asked::Call(f.clone(), paths.into(), Stage::ReadFiles)
                }
            },
        }
    }

    /// The files' answer, once the PostCompact hooks (when asked for and
    /// given) have been called.
    fn hooks_or_answer(&self, files: Vec<FileAnswer>, wanted: bool) -> Asked {
        match (&self.post_compact_hooks, wanted) {
            (Some(f), true) => Asked::Call(f.clone(), JsValue::UNDEFINED, Stage::Hooks(files)),
            _ => Asked::Answer(Answer::Files {
                files,
                hooks: Vec::new(),
            }),
        }
    }

    /// What the callback of `stage` gave (`Ok`: what its promise resolved
    /// to; `Err`: what it threw or rejected with) makes of `request`.
    fn settle(&self, request: &Request, stage: Stage, outcome: Result<JsValue, JsValue>) -> Asked {
        match stage {
            Stage::PreCompact => match outcome {
                Err(e) => Asked::Failed(PRE_COMPACT_FAILED, "preCompact", e),
                Ok(value) => match crate::engine::read_hook(&value) {
                    Ok(hook) => Asked::Answer(Answer::Hook(hook)),
                    Err(e) => Asked::Failed(PRE_COMPACT_FAILED, "preCompact", invalid("preCompact", &e)),
                },
            },
            Stage::Summarize => match outcome {
                Err(e) => Asked::Failed(SUMMARIZER_FAILED, "summarize", e),
                // A resolved value that is no answer is the host's bug, not
                // an unavailable model: it rejects at once.
                Ok(value) => match crate::engine::answer_from_js(&value) {
                    Ok(answer) => Asked::Answer(answer),
                    Err(e) => Asked::Fatal(invalid(
                        "summarize",
                        &compaction_core::concat(
                            "summarize must resolve to the summary text or an Answer: ",
                            &e,
                        ),
                    )),
                },
            },
            Stage::ReadFiles => match outcome {
                Err(e) => Asked::Failed(READ_FILES_FAILED, "readFiles", e),
                Ok(value) => match crate::engine::read_files(&value) {
                    Ok(files) => {
                        let wanted = matches!(request, Request::Files(r) if r.post_compact_hooks);
                        self.hooks_or_answer(files, wanted)
                    }
                    Err(e) => Asked::Failed(READ_FILES_FAILED, "readFiles", invalid("readFiles", &e)),
                },
            },
            Stage::Hooks(files) => match outcome {
                Err(e) => Asked::Failed(POST_COMPACT_HOOKS_FAILED, "postCompactHooks", e),
                Ok(value) => match crate::engine::read_hooks(&value) {
                    Ok(hooks) => Asked::Answer(Answer::Files { files, hooks }),
                    Err(e) => Asked::Failed(
                        POST_COMPACT_HOOKS_FAILED,
                        "postCompactHooks",
                        invalid("postCompactHooks", &e),
                    ),
                },
            },
        }
    }
}

/// Which of a request's callbacks the host is running.
enum Stage {
    PreCompact,
    Summarize,
    ReadFiles,
    /// `postCompactHooks`, after `readFiles` gave these files.
    Hooks(Vec<FileAnswer>),
}

/// Where a request stands after a callback (or before the first).
enum Asked {
    /// Call this callback with this argument next.
    Call(js_sys::Function, JsValue, Stage),
    /// The request's answer.
    Answer(Answer),
    /// The host failed it: the code and field of the error, and the cause.
    Failed(&'static str, &'static str, JsValue),
    /// The host's bug: `prepare()` rejects with this at once.
    Fatal(JsValue),
}

fn invalid(field: &str, message: &str) -> JsValue {
    js_error(INVALID_ARGUMENT, field, message)
}

/// What a step asks the JS loop to do next.
pub(crate) enum Next {
    /// Call this callback with this argument, then step with its outcome.
    Call(js_sys::Function, JsValue),
    /// `prepare()` resolves to this decision; with a precompute to start
    /// in the background, not awaited.
    Done(JsValue, Option<Started>),
}

/// A precompute request `prepare()` starts in the background: call
/// `summarize` with `request`, then give its outcome to the engine with
/// `id` (`__precomputeSettled`) and to `report` (`host.onPrecompute`).
pub(crate) struct Started {
    pub(crate) summarize: js_sys::Function,
    pub(crate) request: JsValue,
    pub(crate) id: u64,
    pub(crate) report: Option<js_sys::Function>,
}

/// The engine's background precompute, as the package runs it.
#[derive(Default)]
pub(crate) struct Background {
    /// The precompute request started last (a request is started once).
    started: Option<u64>,
    /// What the host's summariser gave for the latest request that
    /// settled, not yet answered (an earlier one is gone by then: the
    /// engine asks for a precompute only when none is pending).
    settled: Option<(u64, Answer)>,
    /// The summariser failed on a precompute: none is started again until
    /// a compaction ran (a failing model is not asked again on every call).
    failed: bool,
}

impl Background {
    /// The summariser settled on request `id`: `Ok` what it resolved to,
    /// `Err` what it threw. A failure, or a value that is no summary (a
    /// precompute takes a text or `offline`), drops the precompute: a
    /// failed answer, never an error (`host.onPrecompute` has the cause).
    pub(crate) fn settled(&mut self, id: u64, outcome: Result<JsValue, JsValue>) {
        let answer = match outcome.map(|v| crate::engine::answer_from_js(&v)) {
            Ok(Ok(a @ (Answer::Text { .. } | Answer::Offline))) => a,
            _ => {
                self.failed = true;
                Answer::Failed {
                    reason: "the host's summariser gave no summary".to_owned(),
                }
            }
        };
        if self.settled.as_ref().is_none_or(|(held, _)| *held < id) {
            self.settled = Some((id, answer));
        }
    }

    /// Answers the engine with the settled precompute; its steps. An
    /// answer whose request is gone (a compaction ran before it came: it
    /// said "precompute miss") changes nothing.
    fn answer(&mut self, engine: &mut compaction_core::engine::Engine) -> Vec<compaction_core::step::Step> {
        self.settled
            .take()
            .and_then(|(id, answer)| engine.answer(id, answer).ok())
            .map(|out| out.steps)
            .unwrap_or_default()
    }

    /// The precompute request to start now among a decision's `requests`,
    /// if one is pending that was not started yet (and none failed since
    /// the last compaction: `compacted`, this preparation compacted).
    fn start(
        &mut self,
        requests: &[Request],
        compacted: bool,
    ) -> Option<compaction_core::compact::SummaryRequest> {
        self.failed &= !compacted;
        if self.failed {
            return None;
        }
        let request = requests.iter().find_map(|r| match r {
            Request::Precompute(r) => Some(r),
            _ => None,
        })?;
        if self.started == Some(request.id) {
            return None;
        }
        self.started = Some(request.id);
        Some(request.clone())
    }
}

/// One pending `prepare()`: the host, the core's preparation, and the
/// request whose callback the host is running.
pub(crate) struct Run {
    host: JsHost,
    prep: Preparation,
    asked: Option<(Request, Stage)>,
    /// The steps of the precompute answers taken at the start.
    settled: Vec<compaction_core::step::Step>,
}

impl Run {
    /// A preparation with `host`, at the `now` it gives.
    pub(crate) fn start(state: &Shared, host: JsHost) -> Result<Run, JsValue> {
        let mut s = borrow(state)?;
        let now = s.now(host.now.clone())?;
        let s = &mut *s;
        let settled = s.precompute.answer(&mut s.engine);
        // The precompute is never answered inside the preparation.
        let prep = Preparation::new(now, false);
        Ok(Run {
            host,
            prep,
            asked: None,
            settled,
        })
    }

    /// Writes the records of the compactions that finished before a
    /// rejection: their new views are in force.
    fn log_finished(&mut self, state: &Shared) -> Result<(), JsValue> {
        let finished = self.prep.take_compacted();
        if !finished.is_empty() {
            let mut s = borrow(state)?;
            for result in &finished {
                s.log_compaction(result);
            }
        }
        Ok(())
    }

    /// Takes the outcome of the callback asked for last (ignored on the
    /// first step) and runs to the next callback, or to the decision.
    pub(crate) fn step(
        &mut self,
        state: &Shared,
        outcome: Result<JsValue, JsValue>,
    ) -> Result<Next, JsValue> {
        let mut asked = self.asked.take().map(|(request, stage)| {
            let next = self.host.settle(&request, stage, outcome);
            (request, next)
        });
        loop {
            let (request, next) = match asked.take() {
                Some(pair) => pair,
                None => {
                    let next = self.prep.next(&mut borrow(state)?.engine);
                    let Some(request) = next else {
                        let mut s = borrow(state)?;
                        let prep = std::mem::replace(&mut self.prep, Preparation::new(None, false));
                        let mut prepared = prep.finish(&mut s.engine);
                        let mut steps = std::mem::take(&mut self.settled);
                        steps.append(&mut prepared.decision.steps);
                        prepared.decision.steps = steps;
                        let background = match self.host.precompute {
                            true => s
                                .precompute
                                .start(&prepared.decision.requests, !prepared.compacted.is_empty()),
                            false => None,
                        };
                        let requests = std::mem::take(&mut prepared.decision.requests);
                        let out = s.prepared(prepared);
                        let started = match background {
                            None => None,
                            Some(r) => Some(Started {
                                summarize: self.host.summarize.clone(),
                                id: r.id,
                                request: to_js(&SummaryRequest::from_core(r))?,
                                report: self.host.on_precompute.clone(),
                            }),
                        };
                        return s.crossing.cross(out, requests).map(|d| Next::Done(d, started));
                    };
                    let next = self.host.begin(&request);
                    (request, next)
                }
            };
            match next {
                Asked::Call(f, arg, stage) => {
                    self.asked = Some((request, stage));
                    return Ok(Next::Call(f, arg));
                }
                Asked::Answer(answer) => {
                    let mut s = borrow(state)?;
                    self.prep
                        .answered(&mut s.engine, request.id(), answer)
                        .at("answer")?;
                }
                Asked::Fatal(error) => {
                    self.log_finished(state)?;
                    return Err(error);
                }
                Asked::Failed(code, field, cause) => {
                    let mut s = borrow(state)?;
                    let go_on = self.prep.host_failed(&mut s.engine, &request).at(field)?;
                    if !go_on {
                        // The compactions that finished before the error
                        // are in force: their records are written.
                        for result in self.prep.take_compacted() {
                            s.log_compaction(&result);
                        }
                        let message = format!(
                            "host.{field} failed on the {} request {}: {}",
                            request.kind(),
                            request.id(),
                            describe(&cause)
                        );
                        return Err(js_error_caused(code, field, &message, &cause));
                    }
                }
            }
        }
    }
}

/// What the host threw, in one line.
fn describe(error: &JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| error.as_string())
        .unwrap_or_else(|| "it threw".to_owned())
}
