//! The resume lane: the session's file (JSONL) as a compaction grows it,
//! how a resume relinks the preserved messages after the summary, and what
//! the model continues from. Layout only: the records, the boundary and the
//! resumed view are the core's (`compaction_scenarios::sandbox::journal`).

use compaction_scenarios::figures::grouped;
use compaction_scenarios::sandbox::{Journal, Place, Record};
use yew::prelude::*;

/// A place's name on screen.
fn place_name(p: Place) -> &'static str {
    match p {
        Place::Summary => "summary",
        Place::Preserved => "preserved, relinked",
        Place::Restored => "restored file",
        Place::New => "new input",
    }
}

fn place_class(p: Place) -> &'static str {
    match p {
        Place::Summary => "p-summary",
        Place::Preserved => "p-preserved",
        Place::Restored => "p-attachment",
        Place::New => "p-since",
    }
}

/// A record's label: its type and subtype.
fn record_label(r: &Record) -> String {
    match (&r.subtype, r.summary) {
        (Some(sub), _) => format!("{} · {sub}", r.kind),
        (None, true) => format!("{} · isCompactSummary", r.kind),
        (None, false) => r.kind.clone(),
    }
}

/// A uuid short enough for a list a reader scans: a random one's first
/// eight characters, a readable one (`assistant-0069`) whole.
fn short(uuid: &str) -> &str {
    if uuid.len() > 16 {
        uuid.get(..8).unwrap_or(uuid)
    } else {
        uuid
    }
}

/// Props of [`ResumeLane`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ResumeLaneProps {
    /// The file around the compaction shown, and its resume.
    pub journal: Journal,
}

/// The file, the relinking, and the closing card.
#[component]
pub fn ResumeLane(props: &ResumeLaneProps) -> Html {
    let j = &props.journal;
    let b = &j.boundary;
    // Runs of one place, with their tokens and messages.
    let mut runs: Vec<(Place, u64, usize)> = Vec::new();
    for r in &j.resumed {
        match runs.last_mut() {
            Some((p, t, n)) if *p == r.place => {
                *t += r.tokens;
                *n += 1;
            }
            _ => runs.push((r.place, r.tokens, 1)),
        }
    }
    let total: u64 = j.resumed.iter().map(|r| r.tokens).sum();
    let same = j.resumes_as_live();
    html! {
        <div class="resume">
            <ol class="jsonl" aria-label="The session file (JSONL), oldest record first">
                <li class="rec rec-messages">{ format!("{} records before", j.before) }</li>
                { for j.written.iter().map(|r| {
                    let boundary = r.subtype.as_deref() == Some("compact_boundary");
                    html! {
                        <li class={classes!("rec", if boundary { "rec-boundary" } else if r.summary { "rec-summary" } else { "rec-restored" })}
                            data-subtype={r.subtype.clone().unwrap_or_default()}>
                            <code>{ record_label(r) }</code>
                            if !boundary && !r.summary { <span class="muted">{ " · restored file" }</span> }
                            if boundary {
                                <span class="meta">{ format!(" trigger {} · preTokens {} · postTokens {} · {} preserved uuid{}", b.trigger, grouped(b.pre_tokens), grouped(b.post_tokens), b.preserved.len(), if b.preserved.len() == 1 { "" } else { "s" }) }</span>
                                if r.parent.is_none() { <span class="muted">{ " · parentUuid null: the chain restarts here" }</span> }
                                if let Some(lp) = &b.logical_parent { <span class="muted">{ format!(" · logicalParentUuid {}", short(lp)) }</span> }
                            }
                        </li>
                    }
                }) }
                { for j.after.iter().map(|r| html! {
                    <li class="rec rec-after"><code>{ record_label(r) }</code><span class="muted">{ format!(" · after the compaction, parent {}", r.parent.as_deref().map(short).unwrap_or("none")) }</span></li>
                }) }
            </ol>
            <p class="relink">
                { "On resume, the reader follows the chain back from the last record to the boundary, puts the summary first, then relinks the " }
                <strong>{ format!("{} preserved message{}", b.preserved.len(), if b.preserved.len() == 1 { "" } else { "s" }) }</strong>
                { " the boundary lists (" }
                <code>{ b.preserved.iter().take(3).map(|u| short(u)).collect::<Vec<_>>().join(", ") }</code>
                { if b.preserved.len() > 3 { ", …" } else { "" } }
                { ") in order after it; nothing before the boundary is sent again." }
            </p>
            <div class="closing" role="group" aria-label="What the model continues from">
                <h3>{ "What the model continues from" }</h3>
                <ol class="continues">
                    { for runs.iter().map(|(p, t, n)| html! {
                        <li class={classes!("part", place_class(*p))} data-place={place_name(*p)}>
                            <span class={classes!("swatch", place_class(*p))} aria-hidden="true"></span>
                            <span class="part-name">{ place_name(*p) }</span>
                            <span class="num">{ grouped(*t) }</span>
                            if *n > 1 { <span class="muted">{ format!(" · {n} messages") }</span> }
                        </li>
                    }) }
                </ol>
                <p class="resume-total">
                    <strong>{ grouped(total) }</strong>{ " tokens of messages, after the system prompt and tools. " }
                    if same {
                        <span class="same">{ "✓ A resume reads back exactly the view the live session sends." }</span>
                    } else {
                        <span class="differs">{ "✗ The resumed view differs from the live one." }</span>
                    }
                </p>
                if let Some(path) = &j.transcript_path {
                    <p class="muted">{ "The summary tells the model where the whole session is: " }<code>{ path.clone() }</code></p>
                }
            </div>
        </div>
    }
}
