//! The walk through a scenario: the events, the buttons that step through
//! them (focus kept when one has nowhere to go), the event's headline with
//! what each tier cost, and the engine's evidence in a drawer. Layout only.

use compaction_core::step::Step;
use compaction_scenarios::figures::grouped;
use compaction_scenarios::sandbox::{Cost, Exploration};
use yew::prelude::*;

use crate::shown::Shown;
use crate::state::{Action, SandboxState};
use crate::timeline::{back, event_name, forward, tier_name, Flows, StepList};

/// The events and the buttons that walk them. A button with nowhere to go
/// says so (`aria-disabled`) but keeps the focus: a disabled button would
/// drop it to the page body.
pub fn stepper(
    e: &Exploration,
    cursor: (usize, Option<usize>),
    counts: &[usize],
    go: &Callback<(usize, Option<usize>)>,
    playing: &UseStateHandle<bool>,
) -> Html {
    let Some(m) = e.moments.get(cursor.0) else {
        return html! { <p class="muted">{ "This scenario has no model call." }</p> };
    };
    let nav = |to: Option<(usize, Option<usize>)>, label: &'static str, text: &'static str| {
        let go = go.clone();
        let playing = playing.clone();
        html! {
            <button type="button" aria-label={label} aria-disabled={if to.is_none() { "true" } else { "false" }}
                onclick={Callback::from(move |_| { if let Some(c) = to { playing.set(false); go.emit(c) } })}>{ text }</button>
        }
    };
    let play = {
        let playing = playing.clone();
        Callback::from(move |_| playing.set(!*playing))
    };
    let position = match cursor.1 {
        Some(s) => format!(
            "event {} of {}, step {} of {}",
            cursor.0 + 1,
            e.moments.len(),
            s + 1,
            m.frame.steps.len()
        ),
        None => format!(
            "event {} of {} (all {} steps)",
            cursor.0 + 1,
            e.moments.len(),
            m.frame.steps.len()
        ),
    };
    let step_reason = cursor
        .1
        .and_then(|s| m.frame.steps.get(s))
        .map(|s| format!("{} · {}: {}", tier_name(s.tier), s.rule, s.reason));
    html! {
        <div class="walk">
            <ol class="events" aria-label="Events">
                { for e.moments.iter().enumerate().map(|(i, mo)| {
                    let go = go.clone();
                    let current = i == cursor.0;
                    let tiers: Vec<&str> = mo.tiers.iter().map(|t| tier_name(*t)).collect();
                    html! {
                        <li>
                            <button type="button" class={classes!("event", current.then_some("current"), (!mo.tiers.is_empty()).then_some("fired"))}
                                aria-current={current.then_some("step")} onclick={Callback::from(move |_| go.emit((i, None)))}
                                title={format!("{} → {} tokens", grouped(mo.tokens_before), grouped(mo.frame.count.tokens))}>
                                <span class="ev-kind">{ event_name(mo) }</span>
                                <span class="ev-tok">{ crate::chart::short(mo.frame.count.tokens) }</span>
                                if !tiers.is_empty() { <span class="ev-tier">{ tiers.join(", ") }</span> }
                            </button>
                        </li>
                    }
                }) }
            </ol>
            <div class="stepper" role="group" aria-label="Step through">
                { nav(Some((0, None)).filter(|_| cursor != (0, None)), "First event", "« first") }
                { nav(back(counts, cursor), "Step back", "◀ back") }
                <button type="button" aria-pressed={if **playing { "true" } else { "false" }} onclick={play}>{ if **playing { "❚❚ pause" } else { "▶ play" } }</button>
                { nav(forward(counts, cursor), "Step forward", "forward ▶") }
                { nav(Some((counts.len().saturating_sub(1), None)).filter(|c| *c != cursor), "Last event", "last »") }
                <span class="position" aria-live="polite">{ position }</span>
            </div>
            <p class="moment-head">
                <strong>{ event_name(m) }</strong>{ format!(": {} → {} tokens", grouped(m.tokens_before), grouped(m.frame.count.tokens)) }
                { status_text(m) }
                { for m.costs().into_iter().map(|(tier, cost)| html! {
                    <span class={classes!("cost", cost_class(cost))}>{ format!("{}: {}", tier_name(tier), cost.label()) }</span>
                }) }
                if let Some(reason) = step_reason { <span class="step-reason">{ reason }</span> }
            </p>
        </div>
    }
}

/// Newcomer or expert: the evidence drawer closed or open.
pub fn mode(state: &UseReducerHandle<SandboxState>) -> Html {
    let set = |on: bool| {
        let state = state.clone();
        Callback::from(move |_| state.dispatch(Action::Expert(on)))
    };
    let pressed = |on: bool| if state.expert == on { "true" } else { "false" };
    html! {
        <div class="mode" role="group" aria-label="Mode">
            <button type="button" aria-pressed={pressed(false)} onclick={set(false)}>{ "Newcomer" }</button>
            <button type="button" aria-pressed={pressed(true)} onclick={set(true)}>{ "Expert" }</button>
            <span class="muted">{ if state.expert { " The engine's evidence is open on every event." } else { " Plain words first; the evidence waits in a drawer." } }</span>
        </div>
    }
}

/// The engine's evidence for the event: its steps (tier, rule, owner,
/// evidence, tokens, reason) and the flow diagrams, in a drawer, open in
/// expert mode, embedded alone (the evidence is then the panel), or when
/// the visitor opened it (`opened`, kept by the page).
pub fn timeline(
    shown: Option<&Shown>,
    cursor: (usize, Option<usize>),
    state: &UseReducerHandle<SandboxState>,
    opened: &UseStateHandle<bool>,
) -> Html {
    let Some(m) = shown else {
        return html! { <p class="muted">{ "This scenario has no model call." }</p> };
    };
    let expert = state.expert;
    let open = expert || state.embed.as_deref() == Some("timeline") || **opened;
    // Only what the visitor does in newcomer mode: expert mode's own
    // opening is the mode's, and leaving it closes.
    let ontoggle = {
        let opened = opened.clone();
        Callback::from(move |e: Event| {
            if !expert {
                opened.set(
                    e.target_unchecked_into::<web_sys::Element>()
                        .has_attribute("open"),
                );
            }
        })
    };
    let on_pick = {
        let state = state.clone();
        Callback::from(move |s| state.dispatch(Action::Step(s)))
    };
    let lit: Vec<Step> = match cursor.1.and_then(|s| m.frame.steps.get(s)) {
        Some(s) => vec![s.clone()],
        None => m.frame.steps.clone(),
    };
    // A call where a breaker is open shows the failure branches too: that
    // is where "auto keeps failing" lights.
    let compaction = m.outcome.is_some()
        || m.frame.kind != "call"
        || m.frame.steps.iter().any(|s| s.rule.starts_with("R10"));
    let summary = format!(
        "The engine's evidence: {} step{} of this event, with rule, owner and source",
        m.frame.steps.len(),
        if m.frame.steps.len() == 1 { "" } else { "s" }
    );
    // Closed, the drawer holds only its summary line: the steps table and
    // the flows are drawn when it opens (by the mode, or by the visitor,
    // which `ontoggle` tells the page), so a change of control does not
    // redraw a table nobody sees.
    html! {
        <details class="evidence" {open} {ontoggle}>
            <summary>{ summary }</summary>
            if open {
                <StepList moment={m.clone()} current={cursor.1} {on_pick} />
                <Flows steps={lit} {compaction} moment={m.clone()} />
            }
        </details>
    }
}

fn cost_class(c: Cost) -> &'static str {
    match c {
        Cost::CacheKept => "cost-kept",
        Cost::CacheBroken => "cost-broken",
        Cost::ModelCall => "cost-model",
    }
}

fn status_text(m: &compaction_scenarios::sandbox::Moment) -> String {
    use compaction_core::engine::CallStatus;
    match &m.frame.status {
        Some(CallStatus::Proceed) => " · call proceeds".to_owned(),
        Some(CallStatus::Warn { tokens_left }) => format!(" · warn: {} tokens left", grouped(*tokens_left)),
        Some(CallStatus::CompactionDue { over_by }) => {
            format!(" · compaction due: {} over the line", grouped(*over_by))
        }
        Some(CallStatus::Blocked { over_by }) => format!(" · BLOCKED: {} over the line", grouped(*over_by)),
        Some(_) => " · see the steps".to_owned(),
        None => String::new(),
    }
}
