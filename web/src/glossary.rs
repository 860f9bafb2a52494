//! The words a newcomer meets on this page, each in a line or two: what a
//! legal group, a precompute, a boundary, the five tiers and the kinds of
//! evidence are. Words only: no figure here.

use yew::prelude::*;

/// Each term and what it means.
pub const TERMS: [(&str, &str); 10] = [
    ("Legal group", "A run of messages that must stay together: an assistant message that calls tools with the user message holding their results. Every cut falls between groups, so no tool_use is ever kept without its tool_result."),
    ("Precompute", "A summary prepared in the background once the count passes the precompute line, so a later compaction can reuse it instead of waiting for the model (a hit), or drop it when it no longer fits (a miss)."),
    ("Boundary", "The compact_boundary record written to the session file (JSONL) after a compaction: its trigger, the tokens before and after, the preserved messages' uuids. It stays on disk; it is never sent to the model."),
    ("T1 microcompact", "Clears old tool results (by the client, or by the server's context editing); no model call."),
    ("T2 snip", "Deletes the oldest turns outright; no model call, but the prompt cache from the first deleted message is lost."),
    ("T3 collapse", "Replaces a segment of old turns with a short summary; the originals stay in the store and can be expanded."),
    ("T4 compact", "Summarises everything before a cut, keeps the tail verbatim, restores recent files: one model call, and a boundary on disk."),
    ("T5 reactive", "When the API still refuses a call as too long (413): first collapse recovery, then an emergency compaction, once per turn."),
    ("Evidence kinds", "Each step says how we know the client does it: a source location in its bundle, a runtime probe, the public API docs, third-party reverse engineering, an illustration, or our own extension."),
    ("Newcomer / expert", "Newcomer mode shows these words and keeps the engine's evidence in a closed drawer; expert mode opens the drawer on every event."),
];

/// The glossary, as a description list in a drawer.
#[component]
pub fn Glossary(props: &GlossaryProps) -> Html {
    html! {
        <details class="glossary" open={props.open}>
            <summary>{ "Words used here" }</summary>
            <dl>
                { for TERMS.iter().map(|(term, meaning)| html! { <>
                    <dt>{ *term }</dt>
                    <dd>{ *meaning }</dd>
                </> }) }
            </dl>
        </details>
    }
}

/// Props of [`Glossary`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct GlossaryProps {
    /// Open (newcomer mode).
    pub open: bool,
}
