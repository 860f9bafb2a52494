//! `engine.prepare(summarize)`: the sans-IO loop driven for the host. Runs
//! the cascade, asks `summarize` for every summary the engine wants (a
//! compaction with its retries and fallback models, Tier 3 segments, the
//! precompute), answers, and repeats until nothing is pending. The engine's
//! state is never borrowed across an `await`: the host may read it (or
//! even append) while its model call runs.

use std::cell::RefCell;
use std::rc::Rc;

use compaction_core::compact::{self as core_compact, FileAnswer};
use compaction_core::step::Step;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::dto::SummaryRequest;
use crate::engine::{borrow, to_js, State};
use crate::error::{from_engine_at, js_error, INVALID_ARGUMENT};

/// Rounds of "decide, answer" before giving up (each round answers every
/// request pending; more than a few means the engine keeps asking).
const MAX_ROUNDS: usize = 8;

/// Calls a JS callback and awaits it if it returned a promise.
async fn call(f: &js_sys::Function, arg: &JsValue) -> Result<JsValue, JsValue> {
    let out = f.call1(&JsValue::NULL, arg)?;
    if out.is_instance_of::<js_sys::Promise>() {
        JsFuture::from(js_sys::Promise::from(out)).await
    } else {
        Ok(out)
    }
}

/// Asks `summarize`; a throw or rejection is "model unavailable".
async fn ask(
    summarize: &js_sys::Function,
    request: &core_compact::SummaryRequest,
) -> Result<core_compact::SummaryAnswer, JsValue> {
    let arg = to_js(&SummaryRequest::from_core(request.clone()))?;
    match call(summarize, &arg).await {
        Ok(value) => crate::engine::answer_from_js(&value).map_err(|e| {
            js_error(
                INVALID_ARGUMENT,
                "summarize",
                &format!("summarize must resolve to the summary text or a SummaryAnswer: {e}"),
            )
        }),
        Err(_) => Ok(core_compact::SummaryAnswer::ModelUnavailable),
    }
}

async fn read_files(read_file: Option<&js_sys::Function>, paths: &[String]) -> Vec<FileAnswer> {
    let mut out = Vec::with_capacity(paths.len());
    for path in paths {
        let content = match read_file {
            None => Err("no readFile given to prepare()".to_owned()),
            Some(f) => match call(f, &JsValue::from_str(path)).await {
                Ok(v) => v
                    .as_string()
                    .ok_or_else(|| "readFile did not return a string".to_owned()),
                Err(e) => Err(e
                    .dyn_ref::<js_sys::Error>()
                    .map(|e| String::from(e.message()))
                    .unwrap_or_else(|| "could not be read".to_owned())),
            },
        };
        out.push(FileAnswer {
            path: path.clone(),
            content,
        });
    }
    out
}

use wasm_bindgen::JsCast;

/// Drives one compaction from a pending progress to its end.
async fn finish_compaction(
    state: &Rc<RefCell<State>>,
    summarize: &js_sys::Function,
    read_file: Option<&js_sys::Function>,
    mut progress: core_compact::Progress,
    steps: &mut Vec<Step>,
) -> Result<(), JsValue> {
    for _ in 0..64 {
        let (more, next) = match progress {
            core_compact::Progress::NeedsSummary { request } => {
                let answer = ask(summarize, &request).await?;
                borrow(state)?
                    .engine
                    .answer_summary(request.id, answer)
                    .map_err(|e| from_engine_at(&e, "summarize"))?
            }
            core_compact::Progress::NeedsFiles { request } => {
                let answers = read_files(read_file, &request.paths).await;
                borrow(state)?
                    .engine
                    .answer_files(request.id, &answers)
                    .map_err(|e| from_engine_at(&e, "readFile"))?
            }
            core_compact::Progress::NeedsCollapse { requests } => {
                // R8.1: the segments are answered; the host retries the call.
                for request in &requests {
                    let answer = ask(summarize, request).await?;
                    let more = borrow(state)?
                        .engine
                        .answer_collapse(request.id, answer)
                        .map_err(|e| from_engine_at(&e, "summarize"))?;
                    steps.extend(more);
                }
                return Ok(());
            }
            done @ (core_compact::Progress::Compacted { .. } | core_compact::Progress::Failed { .. }) => {
                // Logs the records of a finished compaction.
                borrow(state)?.progress_pub(done);
                return Ok(());
            }
        };
        steps.extend(more);
        progress = next;
    }
    Ok(())
}

/// The loop behind `Engine.prepare`.
pub(crate) async fn prepare(
    state: Rc<RefCell<State>>,
    summarize: js_sys::Function,
    now: Option<String>,
    read_file: Option<js_sys::Function>,
    precompute: bool,
) -> Result<JsValue, JsValue> {
    let mut steps: Vec<Step> = Vec::new();
    let mut rounds = 0;
    loop {
        let decision = borrow(&state)?.before_call_raw(now.clone())?;
        rounds += 1;
        let pending = decision.compaction.is_some()
            || !decision.collapse.is_empty()
            || (precompute && decision.precompute.is_some());
        if !pending || rounds > MAX_ROUNDS {
            let mut state = borrow(&state)?;
            let mut out = state.decision(decision);
            steps.append(&mut out.steps);
            out.steps = steps;
            return to_js(&out);
        }
        steps.extend(decision.steps);
        if let Some(progress) = decision.compaction {
            finish_compaction(&state, &summarize, read_file.as_ref(), progress, &mut steps).await?;
        }
        for request in &decision.collapse {
            let answer = ask(&summarize, request).await?;
            let more = borrow(&state)?
                .engine
                .answer_collapse(request.id, answer)
                .map_err(|e| from_engine_at(&e, "summarize"))?;
            steps.extend(more);
        }
        if precompute {
            if let Some(request) = &decision.precompute {
                let answer = ask(&summarize, request).await?;
                let more = borrow(&state)?
                    .engine
                    .answer_precompute(request.id, answer)
                    .map_err(|e| from_engine_at(&e, "summarize"))?;
                steps.extend(more);
            }
        }
    }
}
