//! Signed thinking blocks on screen (R13.1): each block of the request
//! after an event, and what became of it, as the engine's view and its
//! R13.1 step say. Layout only: the fates are
//! `compaction_scenarios::sandbox`'s, read off the engine.

use compaction_core::api::ThinkingMode;
use compaction_scenarios::sandbox::{Fate, Item, Thought};

use crate::shown::Shown;
use yew::prelude::*;

/// A fate's short name (its `data-fate`), and what it means under
/// `mode`, the setting the engine ran with.
pub fn fate_text(fate: Fate, mode: ThinkingMode) -> (&'static str, &'static str) {
    match (fate, mode) {
        (Fate::Kept, _) => ("kept", "kept whole: its signed prefix is unchanged"),
        (Fate::Dropped, _) => ("dropped", "dropped whole: its prefix was rewritten"),
        (Fate::Stale, ThinkingMode::DropBlock) => (
            "stale",
            "prefix rewritten, sent whole with drop_block: the server drops it",
        ),
        (Fate::Stale, _) => (
            "stale",
            "prefix rewritten, sent whole (keep): the API refuses it unless the host acts",
        ),
    }
}

/// The fates of `items`' blocks, as counts in [kept, dropped, stale] order.
pub fn tally(items: &[Item]) -> [usize; 3] {
    let mut out = [0; 3];
    for t in items.iter().flat_map(|i| &i.thinking) {
        out[t.fate as usize] += 1;
    }
    out
}

/// One line of counts: "1 kept whole · 26 dropped whole".
pub fn tally_text(counts: [usize; 3]) -> String {
    let names = ["kept whole", "dropped whole", "sent with a rewritten prefix"];
    let parts: Vec<String> = counts
        .iter()
        .zip(names)
        .filter(|(n, _)| **n > 0)
        .map(|(n, name)| format!("{n} {name}"))
        .collect();
    if parts.is_empty() {
        "none".to_owned()
    } else {
        parts.join(" · ")
    }
}

/// Tags for a run of the context view: its blocks' fates, counted.
pub fn run_tags(items: &[Item]) -> Html {
    let counts = tally(items);
    let tags = [
        ("kept", "kept whole"),
        ("dropped", "dropped whole"),
        ("stale", "prefix rewritten"),
    ]
    .into_iter()
    .zip(counts)
    .filter(|(_, n)| *n > 0);
    html! { <>{ for tags.map(|((name, word), n)| html! {
        <span class={classes!("tag", "th", format!("th-{name}"))}>{ format!("{n} thinking {word}") }</span>
    }) }</> }
}

/// Props of [`ThinkingView`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ThinkingViewProps {
    /// The event: its request before and after.
    pub moment: Shown,
    /// The setting the engine ran with.
    pub mode: ThinkingMode,
    /// Messages the current step touched.
    pub touched: Vec<String>,
}

/// The signed thinking blocks of the request after an event, each with its
/// fate; nothing when the session has none.
#[component]
pub fn ThinkingView(props: &ThinkingViewProps) -> Html {
    let rows: Vec<(&Item, &Thought)> = props
        .moment
        .after
        .iter()
        .flat_map(|i| i.thinking.iter().map(move |t| (i, t)))
        .collect();
    if rows.is_empty() && tally(&props.moment.before) == [0; 3] {
        return html! {};
    }
    html! {
        <section class="thinking" aria-labelledby="thinking-h">
            <h4 id="thinking-h">{ "Signed thinking blocks (R13.1)" }</h4>
            <p class="thinking-setting">{ "Setting " }<code>{ format!("thinking: {}", props.mode.name()) }</code>
                { ". A block is signed over everything before it; once the client rewrites any of that, the block no longer matches." }</p>
            <ul class="thinking-counts">
                <li data-side="before"><strong>{ "Before: " }</strong>{ tally_text(tally(&props.moment.before)) }</li>
                <li data-side="after"><strong>{ "After: " }</strong>{ tally_text(tally(&props.moment.after)) }</li>
            </ul>
            <dl class="thinking-legend">
                { for [Fate::Kept, Fate::Dropped, Fate::Stale].into_iter().filter(|f| rows.iter().any(|(_, t)| t.fate == *f)).map(|f| {
                    let (name, text) = fate_text(f, props.mode);
                    html! { <div data-fate={name}><dt><span class={classes!("badge", format!("th-{name}"))}>{ name }</span></dt><dd>{ text }</dd></div> }
                }) }
            </dl>
            <table class="thinking-blocks">
                <thead><tr><th scope="col">{ "message" }</th><th scope="col">{ "block" }</th>
                    <th scope="col">{ "reasoning" }</th><th scope="col">{ "fate" }</th></tr></thead>
                <tbody>
                { for rows.iter().map(|(item, t)| {
                    let (name, text) = fate_text(t.fate, props.mode);
                    let touched = props.touched.contains(&item.uuid.0);
                    html! {
                        <tr data-fate={name} data-uuid={item.uuid.0.clone()} class={classes!(format!("th-{name}"), touched.then_some("touched"))}>
                            <td><code>{ item.uuid.0.clone() }</code></td>
                            <td class="th-kind"><code>{ t.kind.clone() }</code>{ " " }<small>{ format!("block {}", t.block) }</small></td>
                            <td class="excerpt">{ if t.excerpt.is_empty() { "(encrypted)".to_owned() } else { t.excerpt.clone() } }</td>
                            <td><span class={classes!("badge", format!("th-{name}"))} title={text}>{ name }</span></td>
                        </tr>
                    }
                }) }
                </tbody>
            </table>
        </section>
    }
}
