//! "Try this": one-click experiments on the scenario shown, each with a
//! one-line prediction a reader can check against the strip, which then
//! shows the total before the change as a ghost. The chips only set
//! controls; what happens is the engine's.

use compaction_core::compact::attachments::{Kind, Status};
use compaction_scenarios::sandbox::{Exploration, Outcome, PrecomputeSwitch};
use yew::prelude::*;

use crate::state::{Action, Field, SandboxState, Switch};

/// One experiment: its label, its prediction, and the actions that apply
/// it.
#[derive(Debug, Clone, PartialEq)]
pub struct Chip {
    /// What it does.
    pub label: String,
    /// What should happen, in one line.
    pub prediction: String,
    /// The controls it sets.
    pub actions: Vec<Action>,
}

/// The experiments that apply to `state` and what the engine computed.
pub fn chips(state: &SandboxState, e: &Exploration) -> Vec<Chip> {
    let mut out = Vec::new();
    let compacted = e.moments.iter().find_map(|m| match &m.outcome {
        Some(Outcome::Compacted { attachments, .. }) => Some(attachments),
        _ => None,
    });
    let manual = e.moments.iter().any(|m| m.frame.kind == "compact");
    if manual && !state.on(Switch::HookBlocks) {
        out.push(Chip {
            label: "Block the PreCompact hook".into(),
            prediction: "The /compact stops before the cut: no boundary is written and the next request is the one that stood.".into(),
            actions: vec![Action::Toggle(Switch::HookBlocks, true)],
        });
    }
    // A stored summary of the same prefix (R9.2): the /compact reuses it.
    // It was written without the /compact's instructions, so they go.
    let asks_model = e.moments.iter().any(|m| {
        m.frame.kind == "compact"
            && matches!(m.outcome, Some(Outcome::Compacted { .. }))
            && m.frame.steps.iter().any(|s| s.model_calls > 0)
    });
    if asks_model && state.precompute == PrecomputeSwitch::None {
        out.push(Chip {
            label: "Use a stored precompute".into(),
            prediction: "The /compact reuses a summary written in the background: no model call (its cost badge drops), the same cut; its own instructions are cleared, since a stored summary cannot follow new ones.".into(),
            actions: vec![
                Action::Precompute(PrecomputeSwitch::Ready),
                Action::Instructions(String::new()),
            ],
        });
    }
    if compacted.is_some() && state.field(Field::PreserveGroups) != "4" {
        out.push(Chip {
            label: "Keep 4 groups".into(),
            prediction: "More of the tail stays verbatim after the summary: the new request grows.".into(),
            actions: vec![Action::Set(Field::PreserveGroups, "4".into())],
        });
    }
    // The largest file restored: its slot empties.
    let restored = compacted.and_then(|a| {
        a.iter()
            .filter_map(|c| match c.status {
                Status::Restored { tokens, .. } if c.kind == Kind::File => Some((tokens, c)),
                _ => None,
            })
            .max_by_key(|(tokens, _)| *tokens)
            .map(|(_, c)| c)
    });
    if let Some(c) = restored {
        out.push(Chip {
            label: format!("Make {} fail", file_name(&c.path)),
            prediction: "Its slot stays empty, naming the error; the other files are restored and the request shrinks by its tokens.".into(),
            actions: vec![Action::FileFails(c.path.clone(), true)],
        });
    }
    if let Ok(window) = state.field(Field::Window).parse::<u64>() {
        if window >= 40_000 {
            out.push(Chip {
                label: "Halve the window".into(),
                prediction: "Every line drops with it: the warn and compact lines come sooner, and a later call may compact on its own.".into(),
                actions: vec![Action::Set(Field::Window, (window / 2).to_string())],
            });
        }
    }
    out
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Props of [`TryThis`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct TryThisProps {
    /// The experiments.
    pub chips: Vec<Chip>,
    /// Applies one (its label and actions).
    pub on_apply: Callback<Chip>,
}

/// The chips, each with its prediction.
#[component]
pub fn TryThis(props: &TryThisProps) -> Html {
    if props.chips.is_empty() {
        return html! {};
    }
    html! {
        <div class="try" role="group" aria-label="Try this">
            <span class="try-h">{ "Try this:" }</span>
            <ul>
                { for props.chips.iter().map(|c| {
                    let on_apply = props.on_apply.clone();
                    let chip = c.clone();
                    html! {
                        <li>
                            <button type="button" class="try-chip" onclick={Callback::from(move |_| on_apply.emit(chip.clone()))}>{ c.label.clone() }</button>
                            <span class="prediction">{ c.prediction.clone() }</span>
                        </li>
                    }
                }) }
            </ul>
        </div>
    }
}
