//! The page: scenario and controls on the left; the timeline, the flow
//! diagrams, the context before/after, the session chart, the threshold
//! gauge and "your own session" on the right. Every number comes from one
//! engine run per change ([`explore`]); stepping only moves a cursor.

use std::rc::Rc;

use compaction_scenarios as scenarios;
use compaction_scenarios::sandbox::{
    default_moment, explain, explore_at, journal as journal_of, Exploration, Journal, Outcome,
};
use yew::prelude::*;

use crate::chart::{Band, Chart, Mark, Point};
use crate::context::ContextView;
use crate::controls::Choice;
use crate::gauge::Gauge;
pub use crate::gauge::{Readout, ReadoutProps};
use crate::glossary::Glossary;
use crate::import::{imported_chart, imported_summary, ImportPanel, Imported};
use crate::offscreen::Offscreen;
use crate::resume::ResumeLane;
use crate::run::{asked, run, RunKey};
use crate::sheet::Sheet;
use crate::shown::Shown;
use crate::state::{field_of, Action, Field, SandboxState};
use crate::strip::RequestStrip;
use crate::timeline::{forward, tier_name};
use crate::try_this::{chips, Chip, TryThis};
use crate::walk::{stepper, timeline};

/// How long after the last control change the URL is written.
const URL_WRITE_DELAY_MS: u32 = 200;

/// How long after a change the resume lane's file is written: after the
/// frame that shows the change, even one a loaded machine takes 50 ms to
/// draw (the file is a second play of the scenario, with its log).
const JOURNAL_DELAY_MS: u32 = 150;

/// The resume lane's file, for the controls and event it was written for.
type JournalFor = ((RunKey, usize), Option<Journal>);

/// The query string the page was opened with.
fn initial_query() -> String {
    gloo::utils::window().location().search().unwrap_or_default()
}

fn now_ms() -> Option<f64> {
    gloo::utils::window().performance().map(|p| p.now())
}

/// The whole page.
#[component]
pub fn App() -> Html {
    let started = now_ms();
    let state = use_reducer(|| SandboxState::from_query(&initial_query()));
    let imported = use_state(|| None::<Imported>);
    let playing = use_state(|| false);
    // The strip's total before the last "try this" chip, with its label.
    let ghost = use_state(|| None::<(String, u64)>);
    let copied = use_state(|| false);
    // The evidence drawer opened by the visitor (newcomer mode keeps it
    // closed, and closed it is not drawn).
    let evidence_open = use_state(|| false);
    // The end of the strip's lane: the panels pin a copy of it once it is out of view.
    let lane_end = use_node_ref();
    let built = {
        let state = state.clone();
        let deps = (
            state.scenario.clone(),
            state.fields[Field::ExtraGroups as usize].clone(),
            state.reads.clone(),
        );
        use_memo(deps, move |_| state.scenario().map(Rc::new))
    };
    let replayed = crate::session::use_replayed(&imported, &state);
    // An imported session, walked: the request picked (`None`: the first
    // after its last boundary), laid out by the engine.
    let picked = use_state(|| None::<usize>);
    let session_at = match (&replayed, &*imported) {
        (Some(Ok(w)), Some(_)) if !w.chart.requests.is_empty() => Some(
            picked
                .unwrap_or_else(|| crate::walked::default_request(&w.chart))
                .min(w.chart.requests.len() - 1),
        ),
        _ => None,
    };
    // While a session is shown, the built-in scenario shows only in the
    // controls (its groups at /compact, the files it reads): it is played a
    // moment after the frame that shows the change, as the resume lane's
    // file is written, and not at all while a slider keeps moving. A
    // field's error is still found at once. The resume lane's timer lets
    // it through: `journal` then holds these controls and no file (the
    // lane is not shown beside a session).
    let journal = use_state(|| None::<JournalFor>);
    let lane: &Option<JournalFor> = &journal;
    let key = RunKey::of(&state);
    let behind = session_at.is_some() && !matches!(lane, Some(((k, _), None)) if *k == key);
    // The event the last run laid out: where the next one likely opens.
    let guess = use_mut_ref(|| 0usize);
    let result = {
        let state = state.clone();
        let built = built.clone();
        let guess = guess.clone();
        use_memo((key, behind), move |(_, behind)| {
            // Held back: `None`, or what is wrong with a field, at once.
            let run = run(&state, &built, asked(&state), *guess.borrow(), !*behind);
            if let Some(Ok((_, shown))) = &run {
                *guess.borrow_mut() = *shown;
            }
            run
        })
    };
    let result = result.as_ref().as_ref();
    let walk = crate::session::use_walk(&imported, &state, session_at);
    let pick = {
        let picked = picked.clone();
        Callback::from(move |at: usize| picked.set(Some(at)))
    };

    // Every control lives in the URL, written a moment after the last
    // change rather than inside the render: dragging a slider changes it
    // dozens of times a second, and Chromium throttles history updates made
    // that often (a later change cancels the pending write).
    let query = state.to_query();
    use_effect_with(query.clone(), |query| {
        let query = query.clone();
        let write = gloo::timers::callback::Timeout::new(URL_WRITE_DELAY_MS, move || {
            if let Ok(history) = gloo::utils::window().history() {
                let _ = history.replace_state_with_url(
                    &wasm_bindgen::JsValue::NULL,
                    "",
                    Some(&format!("?{query}")),
                );
            }
        });
        move || drop(write)
    });
    // The render time, for the browser benchmark (tests/e2e).
    use_effect(move || {
        if let (Some(t0), Some(t1)) = (started, now_ms()) {
            let _ = js_sys::Reflect::set(
                &gloo::utils::window(),
                &"sandboxRenderMs".into(),
                &(t1 - t0).into(),
            );
        }
    });

    // An invalid value (a window typed digit by digit, a field emptied)
    // keeps the last good run on screen; the field says what is wrong.
    let last_good = use_mut_ref(|| None::<(Rc<Exploration>, usize)>);
    let (exploration, laid_out) = match result {
        Some(Ok(run)) => {
            *last_good.borrow_mut() = Some(run.clone());
            (Some(run.0.clone()), run.1)
        }
        _ => match last_good.borrow().clone() {
            Some((e, at)) => (Some(e), at),
            None => (None, 0),
        },
    };
    let problem: Option<(Field, String)> = result
        .and_then(|r| r.as_ref().err())
        .map(|message| (field_of(message).unwrap_or(Field::Window), message.clone()));
    let stale = problem.is_some() && exploration.is_some();
    // The cursor, clamped to this run.
    let step_counts: Vec<usize> = exploration
        .as_ref()
        .map(|e| e.moments.iter().map(|m| m.frame.steps.len()).collect())
        .unwrap_or_default();
    let last = step_counts.len().saturating_sub(1);
    // Opened without an event: the last one where a tier fired.
    let moment = match (state.moment, exploration.as_ref()) {
        (usize::MAX, Some(e)) => default_moment(&e.moments),
        (m, _) => m.min(last),
    };
    let cursor = (moment, state.step);
    // The event shown, laid out whole.
    let shown = {
        let laid = exploration.as_ref().and_then(|e| Shown::of(e, laid_out));
        let state = state.clone();
        let built = built.clone();
        crate::shown::use_shown(laid, laid_out, moment, move |at| {
            let scenario = built.as_ref().as_ref().ok()?;
            let knobs = state.knobs_for(scenario).ok()?;
            let (e, k) = explore_at(scenario, &knobs, Some(at), at).ok()?;
            Shown::of(&Rc::new(e), k)
        })
    };

    // The session file around the compaction shown, and its resume: a
    // second play with the log, computed a moment after the frame that
    // shows the change (and not at all while a slider keeps moving), so a
    // control change still repaints at once. Not while an imported
    // session is shown: the panel then says it walks the built-in
    // scenarios only, and the file would not be drawn.
    let compacted = session_at.is_none()
        && exploration
            .as_ref()
            .and_then(|e| e.moments.get(cursor.0))
            .is_some_and(|m| matches!(m.outcome, Some(Outcome::Compacted { .. })));
    let journal_key = (RunKey::of(&state), cursor.0);
    {
        let journal = journal.clone();
        let state = state.clone();
        let built = built.clone();
        // `held`: the run for these controls is held back (see `behind`).
        let held = result.is_none();
        use_effect_with(
            (journal_key.clone(), compacted, held),
            move |(key, compacted, held)| {
                let (key, held) = (key.clone(), *held);
                let timer = (*compacted || held).then(|| {
                    gloo::timers::callback::Timeout::new(JOURNAL_DELAY_MS, move || {
                        let written = built.as_ref().as_ref().ok().filter(|_| !held).and_then(|s| {
                            let knobs = state.knobs_for(s).ok()?;
                            journal_of(s, &knobs, key.1).ok().flatten()
                        });
                        journal.set(Some((key, written)));
                    })
                });
                move || drop(timer)
            },
        );
    }
    // While the file of a new change is being written, the lane of the
    // last one stays, dimmed and marked busy, under a "writing" line: the
    // change's frame then does not take the lane out of the page (about
    // 4 ms of a window change's frame), and the file written a moment
    // later is a patch of it.
    // Only a lane on the page stays: one written for an earlier event, after
    // events that wrote none, is not brought back.
    let lane_shown = use_mut_ref(|| false);
    let resume = match (lane, compacted) {
        (Some((key, Some(j))), true) if *key == journal_key || *lane_shown.borrow() => {
            let fresh = *key == journal_key;
            *lane_shown.borrow_mut() = true;
            html! {
                <div class={classes!("resume-body", (!fresh).then_some("stale"))} aria-busy={(!fresh).to_string()}>
                    <p class="muted resume-wait" hidden={fresh}>{ "Writing the session file…" }</p>
                    <ResumeLane journal={j.clone()} />
                </div>
            }
        }
        (_, true) => {
            *lane_shown.borrow_mut() = false;
            html! { <p class="muted resume-wait" aria-busy="true">{ "Writing the session file…" }</p> }
        }
        _ => {
            *lane_shown.borrow_mut() = false;
            html! { <p class="muted resume-none">{ "This event wrote no boundary. Pick a compaction (/compact, or an event marked T4 or T5) to see the session file grow and how a resume reads it back." }</p> }
        }
    };

    // Play: one step every 900 ms until the end.
    {
        let state = state.clone();
        let playing = playing.clone();
        let counts = step_counts.clone();
        use_effect_with((*playing, cursor, counts), move |(on, cursor, counts)| {
            let alive = Rc::new(std::cell::Cell::new(true));
            if *on {
                let alive = alive.clone();
                let (cursor, counts) = (*cursor, counts.clone());
                yew::platform::spawn_local(async move {
                    yew::platform::time::sleep(std::time::Duration::from_millis(900)).await;
                    if !alive.get() {
                        return;
                    }
                    match forward(&counts, cursor) {
                        Some((m, s)) => {
                            state.dispatch(Action::Moment(m));
                            state.dispatch(Action::Step(s));
                        }
                        None => playing.set(false),
                    }
                });
            }
            move || alive.set(false)
        });
    }

    let go = {
        let state = state.clone();
        Callback::from(move |(m, s): (usize, Option<usize>)| {
            state.dispatch(Action::Moment(m));
            state.dispatch(Action::Step(s));
        })
    };
    let mode = crate::walk::mode(&state);
    let embed = state.embed.clone();
    let show = |panel: &str| embed.as_deref().is_none_or(|p| p == panel);

    let controls = crate::panel::controls(&state, exploration.as_deref(), problem.as_ref());
    let notice = match (&problem, stale) {
        (Some((field, message)), true) => html! {
            <p class="stale-note" role="status">{ format!("Still showing the last valid settings: {} needs a fix ({message}).", field.label()) }</p>
        },
        (Some((_, message)), false) => html! { <p class="error" role="alert">{ message.clone() }</p> },
        _ => html! {},
    };
    let (stepper, timeline) = match exploration.as_deref() {
        None => (html! {}, html! {}),
        Some(e) => (
            stepper(e, cursor, &step_counts, &go, &playing),
            timeline(shown.as_ref(), cursor, &state, &evidence_open),
        ),
    };
    // The strip, with the stepper right under its lanes.
    let session = match (&replayed, &*imported, session_at) {
        (Some(Ok(w)), Some(i), Some(at)) => Some((w.clone(), i.clone(), at)),
        _ => None,
    };
    let strip = match (&session, shown.clone()) {
        (Some((w, i, at)), _) => {
            let (request, error) = match &walk {
                Some(Ok(r)) => (Some(r.clone()), None),
                Some(Err(e)) => (None, Some(e.clone())),
                None => (None, None),
            };
            let stepper = crate::walked::session_stepper(*at, w.chart.requests.len(), &w.boundaries, &pick);
            html! { <crate::walked::SessionStrip {request} {error} at={*at} requests={w.chart.requests.len()} name={i.name.clone()} lane_end={lane_end.clone()}>{ stepper }</crate::walked::SessionStrip> }
        }
        (None, Some(m)) => {
            let note = exploration.as_ref().and_then(|e| explain(&m, e.lines.window));
            let ghost = (*ghost).clone();
            html! { <RequestStrip moment={m} step={cursor.1} {note} {ghost} lane_end={lane_end.clone()}>{ stepper.clone() }</RequestStrip> }
        }
        (None, None) => stepper.clone(),
    };
    // What the pinned copy of the strip draws.
    let pinned = match (&session, &walk) {
        (Some((w, _, _)), Some(Ok(r))) => {
            Some(crate::pinned::Source::Request(r.clone(), w.chart.requests.len()))
        }
        (Some(_), _) => None,
        (None, _) => shown.clone().map(|m| crate::pinned::Source::Event(m, cursor.1)),
    };
    // The timeline follows the strip: an imported session's picked request.
    let timeline = match &session {
        Some((w, _, at)) => crate::walked::session_timeline(
            walk.as_ref().and_then(|w| w.as_ref().ok()).map(|r| r.as_ref()),
            *at,
            &w.marks,
        ),
        None => timeline,
    };
    let try_this = match exploration.as_ref() {
        Some(e) if problem.is_none() && session.is_none() => {
            let sent_now: u64 = shown
                .as_ref()
                .map(|m| m.request_after.iter().map(|s| s.tokens).sum())
                .unwrap_or(0);
            let on_apply = {
                let state = state.clone();
                let ghost = ghost.clone();
                Callback::from(move |chip: Chip| {
                    ghost.set(Some((chip.label.clone(), sent_now)));
                    for a in chip.actions {
                        state.dispatch(a);
                    }
                })
            };
            html! { <TryThis chips={chips(&state, e)} {on_apply} /> }
        }
        _ => html! {},
    };
    let context = shown.clone().map(|m| {
            let touched: Vec<String> = cursor
                .1
                .and_then(|s| m.frame.steps.get(s))
                .map(|s| s.messages.iter().map(|u| u.0.clone()).collect())
                .unwrap_or_default();
            let thinking = exploration.as_ref().map(|e| e.thinking).unwrap_or_default();
            let preserve = state.fields[Field::PreserveGroups as usize].parse().unwrap_or(1);
            let on_lineage = {
                let state = state.clone();
                Callback::from(move |uuid| state.dispatch(Action::Lineage(uuid)))
            };
            let set = state.clone();
            let on_preserve = Callback::from(move |n: usize| set.dispatch(Action::Set(Field::PreserveGroups, n.to_string())));
            html! { <ContextView moment={m} {touched} open={state.open.clone()} {on_lineage} {thinking} {preserve} {on_preserve} /> }
        });
    let chart = match (&replayed, &*imported) {
        (Some(Ok(r)), Some(i)) => imported_chart(i, r, session_at.unwrap_or(0), &pick),
        (Some(Err(e)), _) => html! { <p class="error" role="alert">{ e.clone() }</p> },
        _ => exploration
            .as_ref()
            .map(|e| scenario_chart(e, cursor.0, &go))
            .unwrap_or_default(),
    };
    let gauge = match (state.thresholds(), exploration.as_ref()) {
        (Ok(t), _) => html! { <><Gauge thresholds={t.clone()} /><Readout thresholds={t} /></> },
        // The last good lines, while a field is being fixed.
        (Err(_), Some(e)) => {
            let t = e.lines.clone();
            html! { <><Gauge thresholds={t.clone()} /><Readout thresholds={t} /></> }
        }
        (Err(message), None) => html! { <p class="error" role="alert">{ message }</p> },
    };
    let on_loaded = {
        let imported = imported.clone();
        let state = state.clone();
        let picked = picked.clone();
        Callback::from(move |i: Imported| {
            picked.set(None);
            for a in crate::session::choice_actions(&i) {
                state.dispatch(a);
            }
            imported.set(Some(i));
        })
    };
    let on_clear = {
        let imported = imported.clone();
        let picked = picked.clone();
        Callback::from(move |()| {
            picked.set(None);
            imported.set(None);
        })
    };
    let import = html! { <>
        <ImportPanel {on_loaded} {on_clear} loaded={imported.is_some()} />
        { match (&replayed, &*imported) {
            (Some(Ok(r)), Some(i)) => imported_summary(i, &r.replay),
            _ => html! {},
        } }
    </> };

    let copy = {
        let copied = copied.clone();
        let query = query.clone();
        Callback::from(move |_| {
            // Built from the state, not read back from the address bar (whose
            // write may still be pending).
            let w = gloo::utils::window();
            let location = w.location();
            if let (Ok(origin), Ok(path)) = (location.origin(), location.pathname()) {
                let _ = w
                    .navigator()
                    .clipboard()
                    .write_text(&format!("{origin}{path}?{query}"));
                copied.set(true);
            }
        })
    };
    let on_scenario = {
        let ghost = ghost.clone();
        let state = state.clone();
        Callback::from(move |name: String| {
            ghost.set(None);
            state.dispatch(Action::Scenario(name));
        })
    };

    if let Some(panel) = embed.as_deref() {
        let body = match panel {
            "rebuild" => html! { <>{ notice.clone() }{ strip }</> },
            "controls" => controls,
            "resume" => resume,
            "context" => context.unwrap_or_default(),
            "chart" => chart,
            "import" => import,
            "gauge" => gauge,
            _ => html! { <>{ stepper }{ timeline }</> },
        };
        return html! {
            <main class="embed" data-panel={panel.to_owned()}>
                <p class="embed-title">{ exploration.as_ref().map(|e| e.title).unwrap_or("Context compaction sandbox") }</p>
                if panel != "rebuild" { { notice } }
                { body }
            </main>
        };
    }
    let _ = show;
    html! {
        <main>
            <header>
                <h1>{ "Context compaction sandbox" }</h1>
                <p class="lede">{ "Watch an agent's context being rebuilt, step by step. Every number, step and decision below comes from the engine (compaction-core, compiled to WebAssembly) running in this page; change a control and it runs again." }</p>
                <div class="scenario-bar">
                    <Choice id="scenario" label="Scenario" value={state.scenario.clone()} on_change={on_scenario}
                        options={scenarios::names().map(|n| (AttrValue::from(n), AttrValue::from(n))).collect::<Vec<_>>()} />
                    <p class="scenario-title">{ exploration.as_ref().map(|e| e.title).unwrap_or("") }</p>
                    <div class="share">
                        <button type="button" onclick={copy}>{ "Copy link to these settings" }</button>
                        <span role="status" class="muted">{ if *copied { "Link copied." } else { "" } }</span>
                    </div>
                    { mode }
                </div>
            </header>
            <div class="hero">
                { notice }
                // Scrolled away from, the strip catches up after the frame:
                // its pinned copy is what shows the change.
                <Offscreen tag="div">
                    { strip }
                    { try_this }
                </Offscreen>
            </div>
            <nav class="jump" aria-label="Panels">
                <a href="#timeline">{ "Steps and evidence" }</a>
                <a href="#resume">{ "Resume" }</a>
                <a href="#context">{ "Before and after" }</a>
                <a href="#chart">{ "Session chart" }</a>
                <a href="#gauge">{ "Threshold lines" }</a>
                <a href="#import">{ "Your own session" }</a>
            </nav>
            <div class="layout">
                <Sheet peek={html! { <crate::pinned::Pinned source={pinned.clone()} always=true /> }}>{ controls }</Sheet>
                <div class="panels">
                    <crate::pinned::Pinned source={pinned} lane_end={lane_end.clone()} />
                    <Offscreen id="timeline" labelledby="timeline-h"><h2 id="timeline-h">{ if session.is_some() { "What this request carried" } else { "What the engine did" } }</h2>
                        if !state.expert && session.is_none() { <Glossary open={false} /> }
                        { timeline }
                    </Offscreen>
                    <Offscreen id="resume" labelledby="resume-h"><h2 id="resume-h">{ "The session file, and a resume" }</h2>{ if session.is_some() { built_in_only() } else { resume } }</Offscreen>
                    <Offscreen id="context" labelledby="context-h"><h2 id="context-h">{ "The request, before and after" }</h2>{ if session.is_some() { built_in_only() } else { context.unwrap_or_default() } }</Offscreen>
                    <Offscreen id="chart" labelledby="chart-h"><h2 id="chart-h">{ "Session chart" }</h2>{ chart }</Offscreen>
                    <Offscreen id="gauge" labelledby="gauge-h"><h2 id="gauge-h">{ "Threshold lines" }</h2>{ gauge }</Offscreen>
                    <section id="import" aria-labelledby="import-h"><h2 id="import-h">{ "Your own session" }</h2>{ import }</section>
                </div>
            </div>
        </main>
    }
}

/// What a scenario-only panel says while an imported session is shown.
fn built_in_only() -> Html {
    html! { <p class="muted">{ "Showing your session: the strip above is the request picked on its chart. This panel walks the built-in scenarios (“Back to the built-in scenarios” under “Your own session”)." }</p> }
}

fn scenario_chart(e: &Exploration, current: usize, go: &Callback<(usize, Option<usize>)>) -> Html {
    let points: Vec<Option<Point>> = e
        .moments
        .iter()
        .map(|m| {
            Some(Point {
                before: m.tokens_before,
                after: m.frame.count.tokens,
            })
        })
        .collect();
    let marks: Vec<Mark> = e
        .moments
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.tiers.is_empty() || matches!(m.outcome, Some(Outcome::Failed { .. })))
        .map(|(i, m)| {
            let failed = matches!(m.outcome, Some(Outcome::Failed { .. }));
            Mark {
                at: i,
                label: if failed {
                    "✗ no boundary".to_owned()
                } else {
                    m.tiers
                        .iter()
                        .map(|t| tier_name(*t))
                        .collect::<Vec<_>>()
                        .join(", ")
                },
                class: if failed { "m-failed" } else { "m-tier" },
            }
        })
        .collect();
    let bands: Vec<Band> = e
        .chapters
        .iter()
        .map(|c| Band {
            first: c.first,
            end: c.end,
            name: c.name.to_owned(),
        })
        .collect();
    html! { <>
        if !e.chapters.is_empty() {
            <nav class="chapters" aria-label="Chapters">
                { for e.chapters.iter().map(|c| {
                    let go = go.clone();
                    let first = c.first;
                    let here = (c.first..c.end).contains(&current);
                    html! {
                        <button type="button" class={classes!("chapter", here.then_some("current"))} aria-current={here.then_some("true")}
                            onclick={Callback::from(move |_| go.emit((first, None)))}>{ c.name }</button>
                    }
                }) }
            </nav>
        }
        <Chart points={Rc::new(points)} lines={e.lines.clone()} marks={Rc::new(marks)} {bands} current={Some(current)}
            title={format!("{}: tokens per request", e.name)} />
    </> }
}
