//! What a compaction lost (issue 26, point 5): the messages its summary
//! replaced, beside the summary's nine sections. Selecting a line of the
//! summary lights the messages it was taken from and brings the first of
//! them into view. Layout only: the sections and each line's sources are
//! `compaction-scenarios`' ([`Lost`], traced when this panel is drawn).

use compaction_scenarios::figures::grouped;
use compaction_scenarios::sandbox::{Item, Lost};
use yew::prelude::*;

use crate::context::kind_name;

/// Summarised messages listed before "List all" (the lit ones always are).
pub const LISTED: usize = 80;

/// Props of [`WhatWasLost`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct WhatWasLostProps {
    /// The summarised messages: their index in the request before, and
    /// the item.
    pub summarised: Vec<(usize, Item)>,
    /// The summary's sections, each line with its sources.
    pub sections: Lost,
}

/// The summarised messages beside the summary.
#[component]
pub fn WhatWasLost(props: &WhatWasLostProps) -> Html {
    // The line selected: (section, line).
    let picked = use_state(|| None::<(usize, usize)>);
    let all = use_state(|| false);
    let show_all = {
        let all = all.clone();
        Callback::from(move |_| all.set(!*all))
    };
    let list = use_node_ref();
    let sources: &[usize] = picked
        .and_then(|(s, l)| props.sections.get(s).and_then(|s| s.lines.get(l)))
        .map_or(&[], |l| l.sources.as_slice());
    // Bring the first lit message into view inside its list (not the page).
    {
        let list = list.clone();
        let first = sources.first().copied();
        use_effect_with(first, move |first| {
            let found = first.zip(list.cast::<web_sys::Element>()).and_then(|(at, list)| {
                let row = list.query_selector(&format!("[data-item=\"{at}\"]")).ok()??;
                Some((list, row))
            });
            if let Some((list, row)) = found {
                let (l, r) = (list.get_bounding_client_rect(), row.get_bounding_client_rect());
                let top = f64::from(list.scroll_top()) + r.top() - l.top() - 8.0;
                list.set_scroll_top(top.max(0.0) as i32);
            }
        });
    }
    let status = match picked.and_then(|(s, l)| props.sections.get(s).and_then(|s| s.lines.get(l))) {
        Some(line) => format!(
            "This line was taken from {} of the {} summarised messages (lit).",
            line.sources.len(),
            props.summarised.len()
        ),
        None => "Select a line of the summary: the messages it was taken from light up.".to_owned(),
    };
    html! {
        <section class="lost" aria-labelledby="lost-h">
            <h4 id="lost-h">{ format!("What was lost: {} messages, and the nine sections that replaced them", props.summarised.len()) }</h4>
            <p class="lost-status muted" role="status">{ status }</p>
            <div class="lost-cols">
                <ol class="lost-messages" ref={list} aria-label="The summarised messages" tabindex="0">
                    { for props.summarised.iter().enumerate().map(|(k, (at, item))| {
                        let (name, class) = kind_name(item.kind);
                        let lit = sources.binary_search(at).is_ok();
                        // A long list keeps its first rows and every lit one;
                        // a gap row stands for the rest (the DOM stays small).
                        if k >= LISTED && !lit && !*all {
                            let next_shown = k + 1 == props.summarised.len()
                                || sources.binary_search(&props.summarised[k + 1].0).is_ok();
                            let from = props.summarised[..k].iter().rposition(|(a, _)| sources.binary_search(a).is_ok()).map_or(LISTED, |p| (p + 1).max(LISTED));
                            return if next_shown {
                                html! { <li class="lost-gap muted">{ format!("… {} more", k + 1 - from) }</li> }
                            } else {
                                html! {}
                            };
                        }
                        html! {
                            <li class={classes!("lost-msg", lit.then_some("lit"))} data-item={at.to_string()} data-kind={name}>
                                <span class={classes!("swatch", class)} aria-hidden="true"></span>
                                <span class="label">{ item.label.clone() }</span>
                                <span class="num">{ grouped(item.tokens) }</span>
                                if lit { <span class="tag tag-lit">{ "source" }</span> }
                            </li>
                        }
                    }) }
                    if props.summarised.len() > LISTED {
                        <li><button type="button" class="more" onclick={show_all}>
                            { if *all { "Show fewer".to_owned() } else { format!("List all {}", props.summarised.len()) } }
                        </button></li>
                    }
                </ol>
                <div class="lost-summary" role="group" aria-label="The summary's nine sections">
                    { for props.sections.iter().enumerate().map(|(s, section)| html! {
                        <div class="lost-section">
                            <h5>{ format!("{}. {}", s + 1, section.title) }</h5>
                            <ul>
                                { for section.lines.iter().enumerate().map(|(l, line)| {
                                    if line.sources.is_empty() {
                                        return html! { <li class="line quiet">{ line.text.clone() }</li> };
                                    }
                                    let on = *picked == Some((s, l));
                                    let picked = picked.clone();
                                    let onclick = Callback::from(move |_| picked.set(if on { None } else { Some((s, l)) }));
                                    html! {
                                        <li>
                                            <button type="button" class="line" aria-pressed={if on { "true" } else { "false" }} {onclick}>
                                                { line.text.clone() }
                                                <span class="src-count">{ format!(" ← {}", line.sources.len()) }</span>
                                            </button>
                                        </li>
                                    }
                                }) }
                            </ul>
                        </div>
                    }) }
                </div>
            </div>
        </section>
    }
}
