//! "Your session, walked": once a session is imported, the strip shows the
//! request picked on its chart (or stepped to) as the engine counts it,
//! the stepper walks its requests and boundaries, and the timeline shows
//! what the request carried: at a boundary, the real summary and the
//! preserved tail. Layout only: the request comes from
//! `compaction_scenarios::sandbox::Walking`.

use std::rc::Rc;

use compaction_scenarios::figures::grouped;
use compaction_scenarios::sandbox::{SessionChart, SessionRequest};
use yew::prelude::*;

use crate::chart::Mark;
use crate::strip::part_class;

/// The request shown when none is picked: the first after the session's
/// last real boundary, or its last request.
pub fn default_request(chart: &SessionChart) -> usize {
    chart
        .marks
        .iter()
        .rev()
        .find_map(|m| match m {
            compaction_scenarios::sandbox::Mark::Real { at, .. } => Some(*at),
            _ => None,
        })
        .filter(|&at| at < chart.requests.len())
        .unwrap_or(chart.requests.len().saturating_sub(1))
}

/// Where the stepper goes: the requests a real boundary opens.
pub fn boundary_requests(chart: &SessionChart) -> Rc<Vec<usize>> {
    let mut out: Vec<usize> = chart
        .marks
        .iter()
        .filter_map(|m| match m {
            compaction_scenarios::sandbox::Mark::Real { at, .. } => Some(*at),
            _ => None,
        })
        .collect();
    out.dedup();
    Rc::new(out)
}

/// Props of [`SessionStrip`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct SessionStripProps {
    /// The request laid out (`None`: being laid out).
    pub request: Option<Rc<SessionRequest>>,
    /// The request picked.
    pub at: usize,
    /// Set on an empty block right after the lane (see `strip.rs`).
    #[prop_or_default]
    pub lane_end: NodeRef,
    /// How many requests the session has.
    pub requests: usize,
    /// The file's name.
    pub name: AttrValue,
    /// Why the request could not be laid out.
    #[prop_or_default]
    pub error: Option<String>,
    /// The stepper, drawn under the lanes.
    #[prop_or_default]
    pub children: Html,
}

/// The picked request of an imported session, drawn as the strip draws a
/// scenario's next request, and the record on disk.
#[component]
pub fn SessionStrip(props: &SessionStripProps) -> Html {
    let busy = props.request.as_ref().is_none_or(|r| r.at != props.at);
    let head = html! {
        <div class="strip-head">
            <h2 id="strip-h">{ format!("Request {} of {}", grouped(props.at as u64 + 1), grouped(props.requests as u64)) }</h2>
            <p class="strip-total" aria-live="polite">
                if let Some(r) = &props.request {
                    if let Some(reported) = r.reported {
                        <strong>{ grouped(reported) }</strong>{ " tokens reported" }
                        <span class="muted">{ format!(" · the engine counts {} in its {} messages", grouped(r.counted), grouped(r.messages as u64)) }</span>
                    } else {
                        <strong>{ grouped(r.counted) }</strong>{ format!(" tokens counted in {} messages (no usage reported)", grouped(r.messages as u64)) }
                    }
                }
            </p>
        </div>
    };
    let Some(r) = props.request.as_ref().filter(|_| props.error.is_none()) else {
        return html! {
            <section class="strip session-strip" aria-labelledby="strip-h" aria-busy="true">
                { head }
                <p class="strip-caption" aria-live="polite">{ props.error.clone().unwrap_or_else(|| format!("Laying out request {} of {}…", props.at + 1, props.name)) }</p>
                { props.children.clone() }
            </section>
        };
    };
    let total: u64 = r.segments.iter().map(|s| s.tokens).sum::<u64>().max(1);
    let width = |t: u64| format!("width: {:.3}%", t as f64 * 100.0 / total as f64);
    let caption = match (&r.opening, r.at_boundary) {
        (Some(o), true) => format!(
            "The first request after a compaction ({}{}): the real summary, the preserved tail and what came since. The boundary went to disk, not into the request.",
            o.trigger.as_deref().unwrap_or("trigger not written"),
            o.pre_tokens.map(|t| format!(", {} tokens before", grouped(t))).unwrap_or_default()
        ),
        (Some(_), false) => "A request after a compaction: its summary and preserved tail, then the messages since.".to_owned(),
        (None, _) => "A request before any compaction: the conversation as it happened.".to_owned(),
    };
    let segment = |s: &compaction_scenarios::sandbox::Segment| {
        let text = format!("{}: {} tokens", s.name, grouped(s.tokens));
        html! {
            <span class={classes!("seg", part_class(s.part))} style={width(s.tokens)} title={text}
                data-part={part_class(s.part)} data-tokens={s.tokens.to_string()}>
                <span class="seg-text">{ s.name.clone() }<br />{ grouped(s.tokens) }</span>
            </span>
        }
    };
    let item = |s: &compaction_scenarios::sandbox::Segment| {
        html! {
            <li class={classes!("part", part_class(s.part))}>
                <span class={classes!("swatch", part_class(s.part))} aria-hidden="true"></span>
                <span class="part-name">{ s.name.clone() }</span>
                <span class="num">{ grouped(s.tokens) }</span>
                if s.messages > 1 { <span class="muted">{ format!(" · {} messages", s.messages) }</span> }
            </li>
        }
    };
    let disk = match (&r.opening, r.at_boundary) {
        (Some(o), true) => html! {
            <span class="rec rec-boundary">
                <code>{ "compact_boundary" }</code>
                { format!(" line {} · trigger {}{}{} · {} preserved", o.line, o.trigger.as_deref().unwrap_or("?"),
                    o.pre_tokens.map(|t| format!(" · {} tokens before", grouped(t))).unwrap_or_default(),
                    o.post_tokens.map(|t| format!(", {} after", grouped(t))).unwrap_or_default(),
                    o.preserved.len()) }
            </span>
        },
        (Some(o), false) => {
            html! { <span class="rec muted">{ format!("the last boundary: line {}", o.line) }</span> }
        }
        (None, _) => html! { <span class="rec muted">{ "no boundary yet" }</span> },
    };
    html! {
        <section class="strip session-strip" aria-labelledby="strip-h" aria-busy={if busy { "true" } else { "false" }}
            data-request={r.at.to_string()} data-at-boundary={if r.at_boundary { "true" } else { "false" }}>
            { head }
            <p class="strip-caption" aria-live="polite">{ caption }</p>
            <div class="lane lane-request" aria-hidden="true">
                { for r.segments.iter().map(segment) }
            </div>
            <div class="lane-end" ref={props.lane_end.clone()}></div>
            <div class="lane lane-disk" role="group" aria-label="On disk (JSONL), never sent">
                <span class="lane-name">{ "On disk (JSONL)" }</span>
                <span class="rec rec-messages">{ props.name.to_string() }</span>
                { disk }
            </div>
            { props.children.clone() }
            <ol class="parts" aria-label="What this request held, in order">
                { for r.segments.iter().map(item) }
            </ol>
        </section>
    }
}

/// The buttons that walk an imported session's requests and boundaries. A
/// button with nowhere to go says so and keeps the focus.
pub fn session_stepper(at: usize, requests: usize, boundaries: &[usize], go: &Callback<usize>) -> Html {
    let last = requests.saturating_sub(1);
    let prev_b = boundaries.iter().rev().find(|&&b| b < at).copied();
    let next_b = boundaries.iter().find(|&&b| b > at).copied();
    let nav = |to: Option<usize>, label: &'static str, text: &'static str| {
        let go = go.clone();
        html! {
            <button type="button" aria-label={label} aria-disabled={if to.is_none() { "true" } else { "false" }}
                onclick={Callback::from(move |_| if let Some(t) = to { go.emit(t) })}>{ text }</button>
        }
    };
    html! {
        <div class="walk session-walk">
            <div class="stepper" role="group" aria-label="Walk the session">
                { nav(Some(0).filter(|_| at > 0), "First request", "« first") }
                { nav(prev_b, "Previous boundary", "◀ boundary") }
                { nav(at.checked_sub(1), "Previous request", "◀ request") }
                { nav(Some(at + 1).filter(|&n| n <= last), "Next request", "request ▶") }
                { nav(next_b, "Next boundary", "boundary ▶") }
                { nav(Some(last).filter(|&l| l != at), "Last request", "last »") }
                <span class="position" aria-live="polite">{ format!("request {} of {} · {} boundar{} · pick any point of the chart", grouped(at as u64 + 1), grouped(requests as u64), grouped(boundaries.len() as u64), if boundaries.len() == 1 { "y" } else { "ies" }) }</span>
            </div>
        </div>
    }
}

/// What the picked request carried (the timeline panel for a session): the
/// marks at it, and the compaction its era opens with, its summary open at
/// the boundary.
pub fn session_timeline(r: Option<&SessionRequest>, at: usize, marks: &[Mark]) -> Html {
    let here: Vec<&Mark> = marks.iter().filter(|m| m.at == at).collect();
    let Some(r) = r.filter(|r| r.at == at) else {
        return html! { <p class="muted" aria-busy="true">{ "Laying out the request…" }</p> };
    };
    html! {
        <div class="session-timeline">
            if !here.is_empty() {
                <ul class="session-marks" aria-label="At this request">
                    { for here.iter().map(|m| html! { <li class={m.class}>{ m.label.clone() }</li> }) }
                </ul>
            }
            { match &r.opening {
                Some(o) => html! {
                    <div class="opening">
                        <p>{ format!("This request's era opens with the compaction at line {} ({}). Its summary ({} tokens) and the {} message{} it kept verbatim come first in every request until the next one.",
                            o.line, o.trigger.as_deref().unwrap_or("trigger not written"), grouped(o.summary_tokens), o.preserved.len(), if o.preserved.len() == 1 { "" } else { "s" }) }</p>
                        <details class="real-summary" open={r.at_boundary}>
                            <summary>{ format!("The real summary ({} tokens)", grouped(o.summary_tokens)) }</summary>
                            <pre class="summary-text">{ o.summary.clone() }</pre>
                        </details>
                        if o.preserved.is_empty() {
                            <p class="muted">{ "The boundary kept no message verbatim: the summary stands alone." }</p>
                        } else {
                            <ol class="preserved-tail" aria-label="The preserved tail">
                                { for o.preserved.iter().map(|k| html! {
                                    <li><span class="tag tag-preserved">{ "kept verbatim" }</span>{ format!(" {} · {} tokens · ", k.role, grouped(k.tokens)) }<span class="kept-text">{ k.text.clone() }</span></li>
                                }) }
                            </ol>
                        }
                    </div>
                },
                None => html! { <p class="muted">{ "No compaction before this request: it carries the conversation from its start." }</p> },
            } }
        </div>
    }
}
