//! The sandbox's first screen: window and max-output controls driving the
//! engine's threshold gauge.

use compaction_core::figures::grouped;
use compaction_core::thresholds::Thresholds;
use yew::prelude::*;

use crate::controls::NumberField;
use crate::gauge::Gauge;
use crate::state::{Action, SandboxState};

/// The whole page.
#[component]
pub fn App() -> Html {
    let state = use_reducer(SandboxState::default);
    let on_window = {
        let state = state.clone();
        Callback::from(move |text| state.dispatch(Action::SetWindow(text)))
    };
    let on_max_output = {
        let state = state.clone();
        Callback::from(move |text| state.dispatch(Action::SetMaxOutput(text)))
    };
    let result = state.thresholds();
    html! {
        <main>
            <header>
                <h1>{ "Context compaction sandbox" }</h1>
                <p>{ "When does an agent compact its context? The lines below come from the engine's threshold math (SPEC R1): change the model's window and max output and watch them move." }</p>
            </header>
            <section class="controls" aria-label="Settings">
                <NumberField id="window" label="Context window (tokens)"
                    hint="The model's context window, e.g. 200000 or 1000000."
                    value={state.window.clone()} on_change={on_window} />
                <NumberField id="max-output" label="Max output tokens"
                    hint="The model's maximum reply; the reserve is min(this, 20,000)."
                    value={state.max_output.clone()} on_change={on_max_output} />
            </section>
            { match result {
                Ok(t) => html! { <>
                    <Gauge thresholds={t.clone()} />
                    <Readout thresholds={t} />
                </> },
                Err(message) => html! {
                    <p class="error" role="alert">{ message }</p>
                },
            } }
        </main>
    }
}

/// Props of [`Readout`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ReadoutProps {
    /// The engine's lines.
    pub thresholds: Thresholds,
}

/// The lines as a table, with what each one does (R1.7).
#[component]
pub fn Readout(props: &ReadoutProps) -> Html {
    let t = &props.thresholds;
    let rows = [
        ("budget", t.budget, "window − reserve for the reply"),
        ("precompute", t.precompute, "a background summary starts"),
        ("warn", t.warn, "the host shows “N tokens left”"),
        ("compact", t.compact, "auto-compaction runs"),
        ("blocked", t.blocked, "calls are refused until the host compacts"),
    ];
    html! {
        <table class="readout" aria-label="Threshold lines">
            <thead><tr><th scope="col">{ "line" }</th><th scope="col">{ "tokens" }</th><th scope="col">{ "what happens there" }</th></tr></thead>
            <tbody>
                { for rows.iter().map(|(name, tokens, what)| html! {
                    <tr data-line={*name}>
                        <th scope="row">{ *name }</th>
                        <td class="tokens">{ grouped(*tokens) }</td>
                        <td>{ *what }</td>
                    </tr>
                }) }
            </tbody>
        </table>
    }
}
