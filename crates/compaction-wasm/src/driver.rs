//! `engine.prepare(host)`: the async twin of the engine's `prepare`, and
//! the binding's only request loop: it steps the core's [`Preparation`]
//! (which runs the cascade, decides what a host failure does — the next
//! model of the chain, or a failed request — and when to run the cascade
//! again), putting each request to the host. The engine's state is never
//! borrowed across an `await`: the host may read it while its call runs.

use compaction_core::engine::{Answer, Preparation, Request};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::dto::{self, SummaryRequest};
use crate::engine::{borrow, to_js, Shared};
use crate::error::{
    from_engine_at, js_error, js_error_caused, INVALID_ARGUMENT, POST_COMPACT_HOOKS_FAILED,
    PRE_COMPACT_FAILED, READ_FILES_FAILED, SUMMARIZER_FAILED,
};

/// The host `prepare()` was given, read once.
pub(crate) struct JsHost {
    summarize: js_sys::Function,
    read_files: Option<js_sys::Function>,
    pre_compact: Option<js_sys::Function>,
    post_compact_hooks: Option<js_sys::Function>,
    pub(crate) now: Option<String>,
    precompute: bool,
}

impl JsHost {
    /// Reads `{ summarize, readFiles?, preCompact?, postCompactHooks?, now?, precompute? }`.
    pub(crate) fn read(host: &JsValue) -> Result<JsHost, JsValue> {
        if !host.is_object() {
            return Err(js_error(
                INVALID_ARGUMENT,
                "host",
                "host must be an object { summarize, readFiles?, preCompact?, postCompactHooks?, now?, precompute? }",
            ));
        }
        let get = |key: &str| crate::js::get(host, key, &format!("host.{key}"));
        let function = |key: &str| -> Result<Option<js_sys::Function>, JsValue> {
            let value = get(key)?;
            if value.is_undefined() || value.is_null() {
                return Ok(None);
            }
            value.dyn_into::<js_sys::Function>().map(Some).map_err(|_| {
                js_error(
                    INVALID_ARGUMENT,
                    &format!("host.{key}"),
                    &format!("host.{key} must be a function"),
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
        })
    }

    /// Puts one request to the host: its answer, or the host's error with
    /// the code naming the callback.
    async fn ask(&self, request: &Request) -> Result<Answer, (&'static str, &'static str, JsValue)> {
        match request {
            Request::PreCompact(r) => {
                let Some(f) = &self.pre_compact else {
                    return Ok(Answer::allow());
                };
                let arg = to_js(&dto::Request::from_core(request.clone()))
                    .map_err(|e| (PRE_COMPACT_FAILED, "preCompact", e))?;
                let _ = r;
                let value = call(f, &arg)
                    .await
                    .map_err(|e| (PRE_COMPACT_FAILED, "preCompact", e))?;
                crate::engine::read_hook(&value)
                    .map(Answer::Hook)
                    .map_err(|e| (PRE_COMPACT_FAILED, "preCompact", invalid("preCompact", &e)))
            }
            Request::Summary(r) | Request::CollapseSegment(r) | Request::Precompute(r) => {
                let arg = to_js(&SummaryRequest::from_core(r.clone()))
                    .map_err(|e| (SUMMARIZER_FAILED, "summarize", e))?;
                let value = call(&self.summarize, &arg)
                    .await
                    .map_err(|e| (SUMMARIZER_FAILED, "summarize", e))?;
                // A resolved value that is no answer is the host's bug, not
                // an unavailable model: it rejects at once.
                crate::engine::answer_from_js(&value).map_err(|e| {
                    (
                        "",
                        "summarize",
                        invalid(
                            "summarize",
                            &format!("summarize must resolve to the summary text or an Answer: {e}"),
                        ),
                    )
                })
            }
            Request::Files(r) => {
                let files = match &self.read_files {
                    None => r
                        .paths
                        .iter()
                        .map(|path| compaction_core::compact::FileAnswer {
                            path: path.clone(),
                            content: Err("no readFiles given to prepare()".to_owned()),
                        })
                        .collect(),
                    Some(f) => {
                        let paths: js_sys::Array = r.paths.iter().map(|p| JsValue::from_str(p)).collect();
                        let value = call(f, &paths)
                            .await
                            .map_err(|e| (READ_FILES_FAILED, "readFiles", e))?;
                        crate::engine::read_files(&value)
                            .map_err(|e| (READ_FILES_FAILED, "readFiles", invalid("readFiles", &e)))?
                    }
                };
                let hooks = match (&self.post_compact_hooks, r.post_compact_hooks) {
                    (Some(f), true) => {
                        let value = call(f, &JsValue::UNDEFINED)
                            .await
                            .map_err(|e| (POST_COMPACT_HOOKS_FAILED, "postCompactHooks", e))?;
                        crate::engine::read_hooks(&value).map_err(|e| {
                            (
                                POST_COMPACT_HOOKS_FAILED,
                                "postCompactHooks",
                                invalid("postCompactHooks", &e),
                            )
                        })?
                    }
                    _ => Vec::new(),
                };
                Ok(Answer::Files { files, hooks })
            }
        }
    }
}

fn invalid(field: &str, message: &str) -> JsValue {
    js_error(INVALID_ARGUMENT, field, message)
}

/// Calls a JS callback and awaits what it returned (`Promise.resolve`
/// never throws: a thenable whose `then` throws, or a Proxy, rejects).
async fn call(f: &js_sys::Function, arg: &JsValue) -> Result<JsValue, JsValue> {
    let out = f.call1(&JsValue::NULL, arg)?;
    JsFuture::from(js_sys::Promise::resolve(&out)).await
}

/// `Engine.prepare`: the core [`Preparation`] stepped with `await`s (the
/// rounds, and when a preparation ends, are the core's).
pub(crate) async fn prepare(state: &Shared, host: JsHost) -> Result<JsValue, JsValue> {
    // The host's countTokens failing anywhere in the loop is its error.
    crate::counter::checked(prepare_loop(state, host).await)
}

async fn prepare_loop(state: &Shared, host: JsHost) -> Result<JsValue, JsValue> {
    let now = borrow(state)?.now(host.now.clone())?;
    let mut prep = Preparation::new(now, host.precompute);
    loop {
        let next = prep.next(&mut borrow(state)?.engine);
        let Some(request) = next else { break };
        match host.ask(&request).await {
            Ok(answer) => {
                let mut s = borrow(state)?;
                prep.answered(&mut s.engine, request.id(), answer)
                    .map_err(|e| from_engine_at(&e, "answer"))?;
            }
            Err(("", _, error)) => return Err(error),
            Err((code, field, cause)) => {
                let mut s = borrow(state)?;
                let go_on = prep
                    .host_failed(&mut s.engine, &request)
                    .map_err(|e| from_engine_at(&e, field))?;
                if !go_on {
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
    let mut s = borrow(state)?;
    let prepared = prep.finish(&mut s.engine);
    let out = s.prepared(prepared);
    to_js(&out)
}

/// What the host threw, in one line.
fn describe(error: &JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| error.as_string())
        .unwrap_or_else(|| "it threw".to_owned())
}
