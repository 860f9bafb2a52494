//! "Your own session", walked: the imported session replayed under the
//! current settings a slice at a time, the page yielding to the browser
//! between slices (a file with 100k boundaries would otherwise hold the
//! page for seconds), the last replay kept on screen meanwhile.

use std::cell::Cell;
use std::rc::Rc;

use compaction_core::engine::{EngineSettings, Preset};
use compaction_core::transcript::replay::{Replay, ReplayOptions, Replaying};
use compaction_scenarios::sandbox::{Charting, SessionChart, SessionRequest, Walking};
use yew::prelude::*;

use crate::chart::{Mark, Point};
use crate::import::{chart_figures, Imported, Phases};
use crate::state::{Action, Field, SandboxState};

/// An imported session replayed under the current lines, with its chart.
pub type Replayed = Result<Rc<Walked>, String>;

/// A replay of an imported session and what its chart draws.
#[derive(Debug)]
pub struct Walked {
    /// The replay.
    pub replay: Replay,
    /// The chart's data, as the scenarios lay it out.
    pub chart: SessionChart,
    /// One point per request.
    pub points: Rc<Vec<Option<Point>>>,
    /// The marks.
    pub marks: Rc<Vec<Mark>>,
    /// The what-if's count at each request.
    pub what_if: Rc<Vec<Option<Point>>>,
    /// The requests a real boundary opens, in order.
    pub boundaries: Rc<Vec<usize>>,
}

/// How long a slice of work runs before the page yields, in ms.
pub const SLICE_MS: f64 = 30.0;

/// Messages replayed between two looks at the clock.
const BATCH: usize = 500;

/// Timeline messages charted between two looks at the clock.
const CHART_BATCH: usize = 5_000;

/// Lets the browser run (paint, input, timers) before going on: a task
/// posted with `scheduler.postTask` where the browser has it (at the
/// priority of any other task: timers and frames still run between
/// slices), else a 0 ms timer. A timer set from a timer's callback waits at
/// least 4 ms once they nest five deep, as every slice's does: 4 ms of idle
/// page per 30 ms slice, 0.4 s over a 1M-record import's ~100 slices after
/// the reading.
pub async fn yield_now() {
    if let Some(ran) = post_task() {
        // Cancelled only if the task is dropped unrun: go on just the same.
        let _ = ran.await;
        return;
    }
    gloo::timers::future::TimeoutFuture::new(0).await;
}

/// An empty task posted with `scheduler.postTask`, when the browser has
/// it; the receiver wakes when it runs. A oneshot channel, as gloo's timers
/// use, not a `Promise` awaited through wasm-bindgen-futures (+1.3 KB gzip).
fn post_task() -> Option<futures_channel::oneshot::Receiver<()>> {
    use wasm_bindgen::JsCast;
    let scheduler = js_sys::Reflect::get(&gloo::utils::window(), &"scheduler".into()).ok()?;
    if !scheduler.is_object() {
        return None;
    }
    let post = js_sys::Reflect::get(&scheduler, &"postTask".into())
        .ok()?
        .dyn_into::<js_sys::Function>()
        .ok()?;
    let (ran, wake) = futures_channel::oneshot::channel();
    let task = wasm_bindgen::closure::Closure::once_into_js(move || {
        let _ = ran.send(());
    });
    post.call1(&scheduler, &task).ok()?;
    Some(wake)
}

/// The page's clock, in ms.
pub fn now() -> f64 {
    gloo::utils::window().performance().map_or(0.0, |p| p.now())
}

/// The controls a replay depends on.
type Deps = (Option<Imported>, String, String, String);

/// The imported session replayed under `state`'s lines, recomputed in
/// slices whenever they or the session change; the previous result stays
/// until the next is ready (`None` before the first).
#[hook]
pub fn use_replayed(imported: &Option<Imported>, state: &UseReducerHandle<SandboxState>) -> Option<Replayed> {
    let out = use_state(|| None::<Replayed>);
    let deps: Deps = (
        imported.clone(),
        state.fields[Field::Window as usize].clone(),
        state.fields[Field::MaxOutput as usize].clone(),
        state.fields[Field::OverridePct as usize].clone(),
    );
    {
        let out = out.clone();
        let state = state.clone();
        use_effect_with(deps, move |(imported, ..)| {
            let alive = Rc::new(Cell::new(true));
            match imported.clone() {
                None => out.set(None),
                Some(i) => {
                    let alive = alive.clone();
                    let settings = settings(&i, &state);
                    yew::platform::spawn_local(async move {
                        let replayed = match settings {
                            Ok((preset, settings, options)) => {
                                replay(&i, preset, settings, options, &alive).await
                            }
                            Err(e) => Some(Err(e)),
                        };
                        if let (Some(r), true) = (replayed, alive.get()) {
                            out.set(Some(r));
                        }
                    });
                }
            }
            move || alive.set(false)
        });
    }
    (*out).clone()
}

/// What a replay of `i` runs with: the engine's choice from the file
/// (preset, how its client counted), the lines from the controls (which
/// start at the file's choice, [`choice_actions`]).
fn settings(i: &Imported, state: &SandboxState) -> Result<(Preset, EngineSettings, ReplayOptions), String> {
    let chosen = &i.choice;
    let lines = state.thresholds()?;
    let mut settings = chosen.preset.settings(lines.window);
    settings.thresholds.max_output_tokens = lines.reserve.into();
    settings.thresholds.override_pct = lines.override_requested_pct;
    settings.estimator.reported_output_as_is = chosen.reported_output_as_is;
    let options = ReplayOptions {
        counts_appended: chosen.counts_appended,
        ..ReplayOptions::default()
    };
    Ok((chosen.preset, settings, options))
}

/// The controls set to what the engine chose from an imported file: its
/// model's window and maximum output (empty: the preset's cap).
pub fn choice_actions(i: &Imported) -> [Action; 2] {
    let output = i
        .choice
        .max_output_tokens
        .map(|t| t.to_string())
        .unwrap_or_default();
    [
        Action::Set(Field::Window, i.choice.window.to_string()),
        Action::Set(Field::MaxOutput, output),
    ]
}

/// Replays `i` a slice at a time; `None` when abandoned (`alive` turned
/// false: the controls changed again).
async fn replay(
    i: &Imported,
    preset: Preset,
    settings: EngineSettings,
    options: ReplayOptions,
    alive: &Cell<bool>,
) -> Option<Replayed> {
    let mut phases = Phases::start();
    let mut replaying = match Replaying::new(preset, settings, options) {
        Ok(r) => r,
        Err(e) => return Some(Err(e.to_string())),
    };
    let timeline = &i.timeline;
    loop {
        yield_now().await;
        if !alive.get() {
            return None;
        }
        let start = now();
        loop {
            match replaying.step(timeline, BATCH) {
                Ok(true) => {
                    let what_if: Vec<Option<Point>> = replaying
                        .counts()
                        .iter()
                        .map(|&t| Some(Point { before: t, after: t }))
                        .collect();
                    let replay = replaying.finish(timeline);
                    phases.lap("replay");
                    // The chart a slice at a time (one piece was a 158 ms
                    // task for a 1M-record file).
                    let mut charting = Charting::new(timeline);
                    loop {
                        yield_now().await;
                        if !alive.get() {
                            return None;
                        }
                        let start = now();
                        let mut done = false;
                        while !done && now() - start < SLICE_MS {
                            done = charting.step(timeline, CHART_BATCH);
                        }
                        if done {
                            break;
                        }
                    }
                    let chart = charting.finish(timeline, &replay);
                    yield_now().await;
                    if !alive.get() {
                        return None;
                    }
                    let (points, marks) = chart_figures(&chart);
                    let boundaries = crate::walked::boundary_requests(&chart);
                    phases.lap("chart");
                    return Some(Ok(Rc::new(Walked {
                        replay,
                        chart,
                        points: Rc::new(points),
                        marks: Rc::new(marks),
                        what_if: Rc::new(what_if),
                        boundaries,
                    })));
                }
                Ok(false) if now() - start < SLICE_MS => {}
                Ok(false) => break,
                Err(e) => return Some(Err(e.to_string())),
            }
        }
    }
}

/// A request of an imported session laid out, or why it could not be.
pub type Walk = Result<Rc<SessionRequest>, String>;

/// Messages appended between two looks at the clock while a request is
/// laid out.
const WALK_BATCH: usize = 200;

/// Request `at` of the imported session, laid out under `state`'s lines a
/// slice at a time whenever it, the lines or the session change; the last
/// one stays until the next is ready.
#[hook]
pub fn use_walk(
    imported: &Option<Imported>,
    state: &UseReducerHandle<SandboxState>,
    at: Option<usize>,
) -> Option<Walk> {
    let out = use_state(|| None::<Walk>);
    // The settings: the file's choice (in `imported`) and the lines. Of
    // the lines, a request laid out depends only on whether its engine
    // starts (Walking::starts): a change of the window, the output reserve
    // or the override alone lays nothing out again.
    let settings = imported.as_ref().map(|i| settings(i, state));
    let starts = settings.as_ref().map(|s| {
        s.as_ref()
            .map_err(Clone::clone)
            .and_then(|(_, s, _)| Walking::starts(s).map_err(|e| e.to_string()))
    });
    let deps = (imported.clone(), at, starts);
    {
        let out = out.clone();
        use_effect_with(deps, move |(imported, at, _)| {
            let alive = Rc::new(Cell::new(true));
            match (imported.clone(), *at, settings) {
                (Some(i), Some(at), Some(settings)) => {
                    let alive = alive.clone();
                    yew::platform::spawn_local(async move {
                        let walked = match settings {
                            Ok((_, settings, _)) => walk(&i, settings, at, &alive).await,
                            Err(e) => Some(Err(e)),
                        };
                        if let (Some(w), true) = (walked, alive.get()) {
                            out.set(Some(w));
                        }
                    });
                }
                _ => out.set(None),
            }
            move || alive.set(false)
        });
    }
    (*out).clone()
}

/// Lays out request `at` of `i` a slice at a time; `None` when abandoned.
async fn walk(i: &Imported, settings: EngineSettings, at: usize, alive: &Cell<bool>) -> Option<Walk> {
    let timeline = &i.timeline;
    yield_now().await;
    if !alive.get() {
        return None;
    }
    // What the request's era opens with: the last era's from the resumed
    // view; an earlier one's as the timeline holds it (laid out on import).
    let opened = Walking::opened(&i.transcript, timeline, at);
    let mut walking = match Walking::new(&i.transcript, timeline, opened.as_ref(), settings, at) {
        Ok(Some(w)) => w,
        Ok(None) => return Some(Err(format!("the session has no request {}", at + 1))),
        Err(e) => return Some(Err(e.to_string())),
    };
    loop {
        let start = now();
        loop {
            match walking.step(timeline, WALK_BATCH) {
                Ok(true) => return Some(Ok(Rc::new(walking.finish(timeline)))),
                Ok(false) if now() - start < SLICE_MS => {}
                Ok(false) => break,
                Err(e) => return Some(Err(e.to_string())),
            }
        }
        yield_now().await;
        if !alive.get() {
            return None;
        }
    }
}
