//! The step timeline: the engine's events and steps in order, each with its
//! owner, evidence kind, rule id and tokens before → after, and the flow
//! diagrams with the current stage lit. Layout only.

use compaction_core::step::{Evidence, Owner, Step, Tier};
use compaction_scenarios::figures::grouped;
use compaction_scenarios::sandbox::{lit, Flow, Moment, FLOWS};

use crate::shown::Shown;
use yew::prelude::*;

/// Where the timeline stands: an event, and a step in it (`None`: the
/// event as a whole).
pub type Cursor = (usize, Option<usize>);

/// The cursor one step on: through each event's steps, then to the next
/// event; `None` at the end. `steps[i]` is event `i`'s step count.
pub fn forward(steps: &[usize], (m, s): Cursor) -> Option<Cursor> {
    let n = *steps.get(m)?;
    match s {
        None if n > 0 => Some((m, Some(0))),
        Some(i) if i + 1 < n => Some((m, Some(i + 1))),
        _ if m + 1 < steps.len() => Some((m + 1, None)),
        _ => None,
    }
}

/// The cursor one step back; `None` at the start.
pub fn back(steps: &[usize], (m, s): Cursor) -> Option<Cursor> {
    match s {
        Some(0) => Some((m, None)),
        Some(i) => Some((m, Some(i - 1))),
        None if m > 0 => {
            let n = *steps.get(m - 1)?;
            Some((m - 1, n.checked_sub(1)))
        }
        None => None,
    }
}

/// The tier's name on screen.
pub fn tier_name(t: Tier) -> &'static str {
    match t {
        Tier::BudgetReduction => "budget reduction",
        Tier::Lines => "lines",
        Tier::Microcompact => "T1 microcompact",
        Tier::Snip => "T2 snip",
        Tier::Collapse => "T3 collapse",
        Tier::Compact => "T4 compact",
        Tier::Reactive => "T5 reactive",
    }
}

/// The owner's name on screen.
pub fn owner_name(o: Owner) -> &'static str {
    match o {
        Owner::Client => "client",
        Owner::Model => "model",
        Owner::Hook => "hook",
        Owner::Server => "server",
    }
}

/// The evidence kind on screen, and its detail.
pub fn evidence(e: &Evidence) -> (&'static str, Option<&'static str>) {
    match e {
        Evidence::SourceLocation { location } => ("source location", Some(location)),
        Evidence::RuntimeProbe { probe } => ("runtime probe", Some(probe)),
        Evidence::ThirdParty => ("third-party", None),
        Evidence::PublicApi => ("public API docs", None),
        Evidence::Illustrative => ("illustrative", None),
        Evidence::Extension => ("extension", None),
    }
}

/// What an event is, in words.
pub fn event_name(m: &Moment) -> String {
    match m.frame.kind {
        "compact" => "/compact".to_owned(),
        "413" => "413 prompt too long".to_owned(),
        _ => "call".to_owned(),
    }
}

/// Props of [`StepList`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct StepListProps {
    /// The event.
    pub moment: Shown,
    /// The step lit, if one.
    pub current: Option<usize>,
    /// Called with a step's index when it is chosen.
    pub on_pick: Callback<Option<usize>>,
}

/// The event's steps as a table.
#[component]
pub fn StepList(props: &StepListProps) -> Html {
    let steps = &props.moment.frame.steps;
    if steps.is_empty() {
        return html! { <p class="muted">{ "The engine took no step here: the count is under every line." }</p> };
    }
    html! {
        <table class="steps">
            <caption class="visually-hidden">{ "Steps of this event" }</caption>
            <thead><tr>
                <th scope="col">{ "#" }</th><th scope="col">{ "tier · rule" }</th><th scope="col">{ "owner" }</th>
                <th scope="col">{ "evidence" }</th><th scope="col" class="num">{ "tokens before → after" }</th>
                <th scope="col">{ "what and why" }</th>
            </tr></thead>
            <tbody>
            { for steps.iter().enumerate().map(|(i, s)| step_row(i, s, props.current == Some(i), &props.on_pick)) }
            </tbody>
        </table>
    }
}

fn step_row(i: usize, s: &Step, current: bool, on_pick: &Callback<Option<usize>>) -> Html {
    let (kind, detail) = evidence(&s.evidence);
    let pick = {
        let on_pick = on_pick.clone();
        Callback::from(move |_| on_pick.emit(Some(i)))
    };
    let changed = s.count_before.tokens != s.count_after.tokens;
    html! {
        <tr class={classes!(current.then_some("current"), format!("owner-{}", owner_name(s.owner)))}
            aria-current={current.then_some("step")}>
            <td><button type="button" class="linkish" onclick={pick} aria-label={format!("Show step {}", i + 1)}>{ i + 1 }</button></td>
            <td><span class="tier">{ tier_name(s.tier) }</span>{ " · " }<code>{ s.rule }</code></td>
            <td><span class={classes!("badge", format!("owner-{}", owner_name(s.owner)))}>{ owner_name(s.owner) }</span></td>
            <td title={detail.unwrap_or("")}>{ kind }{ detail.map(|d| html!{ <small class="block">{ d }</small> }) }</td>
            <td class="num">{ grouped(s.count_before.tokens) }{ " → " }
                <strong class={classes!(changed.then_some("changed"))}>{ grouped(s.count_after.tokens) }</strong></td>
            <td>{ s.reason.clone() }</td>
        </tr>
    }
}

/// Props of [`Flows`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct FlowsProps {
    /// The steps that light the stages: the current step, or the event's.
    pub steps: Vec<Step>,
    /// Whether the event is a compaction (shows seed 002's three diagrams).
    pub compaction: bool,
    /// The event (which failure branches it took, whether it rebuilt).
    pub moment: Shown,
}

/// The flow diagrams, each stage marked when a step happens there (as
/// `compaction-scenarios` says: a failed compaction lights no rebuild).
#[component]
pub fn Flows(props: &FlowsProps) -> Html {
    let flows: Vec<&Flow> = FLOWS
        .iter()
        .filter(|f| props.compaction || f.id == "cascade")
        .collect();
    html! {
        <div class="flows">
            { for flows.into_iter().map(|f| flow(f, &lit(f, &props.steps, &props.moment))) }
        </div>
    }
}

fn flow(f: &Flow, lit: &[usize]) -> Html {
    html! {
        <figure class="flow" data-flow={f.id}>
            <figcaption>{ f.title }</figcaption>
            <ol>
                { for f.stages.iter().enumerate().map(|(i, st)| {
                    let on = lit.contains(&i);
                    html! {
                        <li class={classes!(on.then_some("lit"))} aria-current={on.then_some("step")}>
                            <strong>{ if on { "▶ " } else { "" } }{ st.label }</strong>
                            <small>{ st.detail }</small>
                        </li>
                    }
                }) }
            </ol>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forward_walks_every_step_then_the_next_event() {
        let steps = [2, 0, 1];
        let mut c = (0, None);
        let mut seen = vec![c];
        while let Some(n) = forward(&steps, c) {
            c = n;
            seen.push(c);
        }
        assert_eq!(
            seen,
            [
                (0, None),
                (0, Some(0)),
                (0, Some(1)),
                (1, None),
                (2, None),
                (2, Some(0))
            ]
        );
    }

    #[test]
    fn back_undoes_forward() {
        let steps = [2, 0, 1];
        let mut c = (2, Some(0));
        let mut seen = vec![c];
        while let Some(p) = back(&steps, c) {
            c = p;
            seen.push(c);
        }
        assert_eq!(
            seen,
            [
                (2, Some(0)),
                (2, None),
                (1, None),
                (0, Some(1)),
                (0, Some(0)),
                (0, None)
            ]
        );
        assert_eq!(forward(&steps, (9, None)), None);
    }
}
