//! "Your own session": a Claude Code `.jsonl` picked or dropped, read in
//! the page in chunks (nothing is uploaded), imported by the engine's
//! streaming importer with a progress bar, then charted with its real
//! boundaries and replayed under the current settings.

use std::rc::Rc;

use compaction_core::transcript::choice::{Choice, Tally};
use compaction_core::transcript::replay::{Replay, Timeline};
use compaction_core::transcript::{Importer, Transcript};
use compaction_scenarios::figures::grouped;
use compaction_scenarios::sandbox::{Mark as SessionMark, SessionChart};
use gloo::file::{futures::read_as_bytes, Blob};
use web_sys::{DragEvent, File, HtmlInputElement};
use yew::prelude::*;

use crate::chart::{Chart, Mark, Point};
use crate::session::{now, yield_now, Walked, SLICE_MS};
use crate::timeline::tier_name;

/// Bytes read per chunk: the page redraws its progress between chunks.
pub const CHUNK: u64 = 1024 * 1024;

/// Messages laid out between two looks at the clock.
const BATCH: usize = 2_000;

/// A session imported in the page.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The file's name.
    pub name: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// What the engine read.
    pub transcript: Rc<Transcript>,
    /// Its timeline, laid out once for every replay under other settings.
    pub timeline: Rc<Timeline>,
    /// The settings the engine chooses from the file (as the CLI's
    /// `replay` does), with its reasons: the page's controls start there.
    pub choice: Rc<Choice>,
}

impl PartialEq for Imported {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.bytes == other.bytes
            && Rc::ptr_eq(&self.transcript, &other.transcript)
    }
}

/// Where an import stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Loading {
    /// Nothing is being read.
    Idle,
    /// Reading: bytes done of total.
    Reading(u64, u64),
    /// It failed, with why.
    Failed(String),
}

/// Props of [`ImportPanel`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ImportPanelProps {
    /// Called with the imported session.
    pub on_loaded: Callback<Imported>,
    /// Called to go back to the built-in scenarios.
    pub on_clear: Callback<()>,
    /// Whether a session is loaded.
    pub loaded: bool,
}

/// The picker, the drop zone and the progress bar.
#[component]
pub fn ImportPanel(props: &ImportPanelProps) -> Html {
    let loading = use_state(|| Loading::Idle);
    let start = {
        let loading = loading.clone();
        let on_loaded = props.on_loaded.clone();
        Callback::from(move |file: File| {
            let loading = loading.clone();
            let on_loaded = on_loaded.clone();
            yew::platform::spawn_local(async move {
                match read(&file, &loading).await {
                    Ok(imported) => {
                        loading.set(Loading::Idle);
                        on_loaded.emit(imported);
                    }
                    Err(why) => loading.set(Loading::Failed(why)),
                }
            });
        })
    };
    let onchange = {
        let start = start.clone();
        Callback::from(move |e: Event| {
            let input = e.target_unchecked_into::<HtmlInputElement>();
            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                start.emit(file);
            }
            input.set_value("");
        })
    };
    let ondragover = Callback::from(|e: DragEvent| e.prevent_default());
    let ondrop = Callback::from(move |e: DragEvent| {
        e.prevent_default();
        if let Some(file) = e.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)) {
            start.emit(file);
        }
    });
    let clear = {
        let on_clear = props.on_clear.clone();
        Callback::from(move |_| on_clear.emit(()))
    };
    html! {
        <div class="import">
            <div class="dropzone" {ondragover} {ondrop}>
                <label for="session-file">{ "Pick or drop a Claude Code session file (.jsonl)" }</label>
                <input id="session-file" type="file" accept=".jsonl,.json,application/jsonl,application/x-ndjson,text/plain" {onchange}
                       aria-describedby="session-privacy" />
                <p id="session-privacy" class="privacy">
                    { "The file is read and parsed inside this page. Nothing is uploaded: the page has no network access beyond its own files (its Content-Security-Policy forbids it). Sessions live in " }
                    <code>{ "~/.claude/projects/<project>/<session>.jsonl" }</code>{ "." }
                </p>
            </div>
            { match &*loading {
                Loading::Idle => html! {},
                Loading::Reading(done, total) => html! {
                    <div class="progress">
                        <label for="import-progress">{ format!("Reading… {} of {} KiB", done / 1024, total / 1024) }</label>
                        <progress id="import-progress" max={total.to_string()} value={done.to_string()}></progress>
                    </div>
                },
                Loading::Failed(why) => html! { <p class="error" role="alert">{ why.clone() }</p> },
            } }
            if props.loaded {
                <button type="button" onclick={clear}>{ "Back to the built-in scenarios" }</button>
            }
        </div>
    }
}

/// Reads `file` chunk by chunk into the engine's importer.
async fn read(file: &File, loading: &UseStateHandle<Loading>) -> Result<Imported, String> {
    let name = file.name();
    let blob = Blob::from(web_sys::Blob::from(file.clone()));
    let total = blob.size();
    let mut importer = Importer::new();
    importer.expect(total);
    let mut at = 0;
    loading.set(Loading::Reading(0, total));
    while at < total {
        let end = (at + CHUNK).min(total);
        let bytes = read_as_bytes(&blob.slice(at, end))
            .await
            .map_err(|e| format!("the browser could not read {name}: {e}"))?;
        importer.feed(&bytes);
        at = end;
        loading.set(Loading::Reading(at, total));
    }
    let mut phases = Phases::start();
    phases.mark("readEnd");
    // The chain rebuilt a pass at a time.
    let mut finishing = importer.finishing();
    while !finishing.step() {
        yield_now().await;
    }
    let transcript = finishing.finish();
    phases.lap("finish");
    if transcript.messages.is_empty() {
        let first = transcript
            .problems
            .first()
            .map(|p| format!(" The first problem, line {}: {}.", p.line, p.detail))
            .unwrap_or_default();
        return Err(format!(
            "{name} has no Claude Code conversation messages ({} problems).{first}",
            transcript.problems.len()
        ));
    }
    // The timeline, then the settings chosen from the file, a slice at a
    // time: the page stays responsive.
    let mut laying = transcript.lay_out();
    in_slices(|| laying.step(&transcript, BATCH)).await;
    let timeline = Rc::new(laying.finish());
    phases.lap("timeline");
    let mut tally = Tally::default();
    in_slices(|| tally.step(&transcript, BATCH)).await;
    let choice = Rc::new(tally.choose(&transcript));
    phases.lap("choice");
    yield_now().await;
    Ok(Imported {
        name,
        bytes: total,
        timeline,
        choice,
        transcript: Rc::new(transcript),
    })
}

/// Runs `step` until it says done, yielding to the browser before each
/// slice of [`SLICE_MS`].
async fn in_slices(mut step: impl FnMut() -> bool) {
    loop {
        yield_now().await;
        let start = now();
        let mut done = false;
        while !done && now() - start < SLICE_MS {
            done = step();
        }
        if done {
            return;
        }
    }
}

/// How long each phase after the reading took, in ms, published as
/// `window.sandboxImportPhases` for the browser benchmarks.
pub struct Phases {
    last: f64,
    laps: js_sys::Object,
}

impl Phases {
    /// Starts timing.
    pub fn start() -> Self {
        let laps = js_sys::Reflect::get(&gloo::utils::window(), &"sandboxImportPhases".into())
            .ok()
            .and_then(|v| wasm_bindgen::JsCast::dyn_into::<js_sys::Object>(v).ok())
            .unwrap_or_default();
        Phases { last: now(), laps }
    }

    /// Records the page's clock now under `name`.
    pub fn mark(&mut self, name: &str) {
        let _ = js_sys::Reflect::set(&self.laps, &name.into(), &now().into());
    }

    /// Records the time since the last lap under `name`.
    pub fn lap(&mut self, name: &str) {
        let t = now();
        let _ = js_sys::Reflect::set(&self.laps, &name.into(), &(t - self.last).into());
        let _ = js_sys::Reflect::set(&gloo::utils::window(), &"sandboxImportPhases".into(), &self.laps);
        self.last = t;
    }
}

/// The chart's figures of a replayed session: its reported tokens per
/// request, its real boundaries and what the replay predicts (built once
/// per replay, shared by every render).
pub fn chart_figures(c: &SessionChart) -> (Vec<Option<Point>>, Vec<Mark>) {
    let points: Vec<Option<Point>> = c
        .requests
        .iter()
        .map(|q| q.reported.map(|t| Point { before: t, after: t }))
        .collect();
    let marks: Vec<Mark> = c
        .marks
        .iter()
        .map(|m| match m {
            SessionMark::Real {
                at,
                trigger,
                pre_tokens,
            } => Mark {
                at: *at,
                label: format!(
                    "real boundary ({}{})",
                    trigger.as_deref().unwrap_or("?"),
                    pre_tokens
                        .map(|t| format!(", {}", crate::chart::short(t)))
                        .unwrap_or_default()
                ),
                class: "m-real",
            },
            SessionMark::Predicted { at, .. } => Mark {
                at: *at,
                label: "what-if compacts".to_owned(),
                class: "m-predicted",
            },
            SessionMark::Microcompact { at, cleared } => Mark {
                at: *at,
                label: format!("microcompact ({cleared} cleared)"),
                class: "m-micro",
            },
            SessionMark::Tier { at, tier, .. } => Mark {
                at: *at,
                label: tier_name(*tier).to_owned(),
                class: "m-tier",
            },
        })
        .collect();
    (points, marks)
}

/// The session chart of an imported session.
/// `at` is the request picked; a click on the plot picks another.
pub fn imported_chart(i: &Imported, w: &Walked, at: usize, on_pick: &Callback<usize>) -> Html {
    html! { <Chart points={w.points.clone()} lines={w.replay.lines.clone()} marks={w.marks.clone()} current={Some(at)}
    what_if={Some(w.what_if.clone())} on_pick={Some(on_pick.clone())}
    title={format!("{}: reported tokens per request", i.name)} /> }
}

/// What the import found, and the real and predicted boundaries.
pub fn imported_summary(i: &Imported, r: &Replay) -> Html {
    let t = &i.transcript;
    html! {
        <div class="imported">
            <p>
                <strong>{ i.name.clone() }</strong>
                { format!(": {} KiB, {} messages, {} boundaries, {} problems tolerated; client {}; replayed with the {} preset",
                    i.bytes / 1024, t.messages.len(), t.boundaries.len(), t.problems.len(),
                    t.versions.last().map(String::as_str).unwrap_or("unknown"), r.preset) }
                { if r.lines.window == i.choice.window {
                    format!(" and a {}-token window, as the engine chose from the file.", grouped(r.lines.window))
                } else {
                    format!(" and the {}-token window you set (the file's choice: {}).", grouped(r.lines.window), grouped(i.choice.window))
                } }
            </p>
            <details class="choice">
                <summary>{ "Why these settings" }</summary>
                <ul>{ for i.choice.reasons.iter().map(|why| html! { <li>{ why.clone() }</li> }) }</ul>
            </details>
            <table class="boundaries" aria-label="Real and predicted boundaries">
                <thead><tr><th scope="col">{ "" }</th><th scope="col">{ "where" }</th><th scope="col" class="num">{ "tokens" }</th></tr></thead>
                <tbody>
                    { for shown_rows(r.actual.len() + r.predicted.len()).map(|row| match row {
                        Row::At(i) => boundary_row(r, i),
                        Row::Skipped(n) => html! {
                            <tr class="skipped"><td colspan="3" class="muted">
                                { format!("… {} more boundaries: the first and last {} are listed", grouped(n as u64), TABLE_ROWS / 2) }
                            </td></tr>
                        },
                    }) }
                </tbody>
            </table>
            if r.actual.is_empty() && r.predicted.is_empty() {
                <p class="muted">{ "No boundary in the file, and none under these settings." }</p>
            }
        </div>
    }
}

/// Rows the boundaries table lists at most, the first and the last half:
/// a file with 100k boundaries would otherwise put 800k nodes in the page
/// (the layout alone took seconds at 20k).
const TABLE_ROWS: usize = 200;

/// A row of the boundaries table: the `i`-th boundary (real ones first),
/// or how many were left out.
enum Row {
    At(usize),
    Skipped(usize),
}

/// The rows listed of `total` boundaries.
fn shown_rows(total: usize) -> impl Iterator<Item = Row> {
    let half = TABLE_ROWS / 2;
    let (head, skipped) = if total <= TABLE_ROWS {
        (total, 0)
    } else {
        (half, total - TABLE_ROWS)
    };
    let tail = (head + skipped)..total;
    (0..head)
        .map(Row::At)
        .chain((skipped > 0).then_some(Row::Skipped(skipped)))
        .chain(tail.map(Row::At))
}

/// The `i`-th boundary's row: real ones first, then the predicted.
fn boundary_row(r: &Replay, i: usize) -> Html {
    match r.actual.get(i) {
        Some(a) => html! {
            <tr data-boundary="real"><th scope="row">{ format!("real boundary ({})", a.trigger.as_deref().unwrap_or("?")) }</th>
                <td><code>{ a.uuid.0.clone() }</code></td>
                <td class="num">{ a.pre_tokens.map(grouped).unwrap_or_default() }</td></tr>
        },
        None => match r.predicted.get(i.saturating_sub(r.actual.len())) {
            Some(p) => html! {
                <tr data-boundary="predicted"><th scope="row">{ "what-if: would compact" }</th>
                    <td>{ "after " }<code>{ p.at_uuid.0.clone() }</code></td>
                    <td class="num">{ grouped(p.tokens) }</td></tr>
            },
            None => html! {},
        },
    }
}

#[cfg(test)]
mod tests {
    use super::{shown_rows, Row, TABLE_ROWS};

    fn listed(total: usize) -> (Vec<usize>, usize) {
        let mut at = Vec::new();
        let mut skipped = 0;
        for row in shown_rows(total) {
            match row {
                Row::At(i) => at.push(i),
                Row::Skipped(n) => skipped += n,
            }
        }
        (at, skipped)
    }

    #[test]
    fn a_long_table_lists_its_first_and_last_rows_and_counts_the_rest() {
        assert_eq!(listed(5), ((0..5).collect(), 0));
        assert_eq!(listed(TABLE_ROWS), ((0..TABLE_ROWS).collect(), 0));
        let (at, skipped) = listed(100_000);
        assert_eq!(at.len(), TABLE_ROWS);
        assert_eq!(skipped, 100_000 - TABLE_ROWS);
        assert_eq!(at[..2], [0, 1]);
        assert_eq!(at[TABLE_ROWS - 1], 99_999);
        assert_eq!(at[TABLE_ROWS / 2], 100_000 - TABLE_ROWS / 2);
    }
}
