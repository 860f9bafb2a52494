//! The hero: what the next request holds, as one full-width strip of
//! segments (system prompt, CLAUDE.md, tools, conversation, summary,
//! preserved tail, restored files, new input), each with the engine's
//! tokens, and under it the session's record on disk, where the boundary
//! goes. Stepping through a compaction redraws it: the cut, the prefix
//! sent to the model, the summary, the files, the new request. Layout
//! only: segments, tokens and stages come from `compaction-scenarios`.

use compaction_scenarios::figures::grouped;
use compaction_scenarios::sandbox::{rebuild, Goes, Moment, Outcome, Part, Rebuild, Segment};

use crate::shown::Shown;
use yew::prelude::*;

/// A segment as drawn: the engine's segment, and whether it is a preview
/// of what the compaction is building (a summary or file not yet sent).
#[derive(Debug, Clone, PartialEq)]
pub struct Drawn {
    /// The segment.
    pub segment: Segment,
    /// Not in the request yet: being built.
    pub ghost: bool,
    /// Sent to the model for the summary at this stage.
    pub asked: bool,
}

/// The segments to draw at a stage of an event, and where the cut falls
/// (index of the first segment after it), if drawn.
pub fn layout(m: &Moment, stage: Rebuild) -> (Vec<Drawn>, Option<usize>) {
    let plain = |segments: &[Segment]| -> Vec<Drawn> {
        segments
            .iter()
            .map(|s| Drawn {
                segment: s.clone(),
                ghost: false,
                asked: false,
            })
            .collect()
    };
    match stage {
        Rebuild::Assembled => (plain(&m.request_after), None),
        Rebuild::Before => {
            // Nothing rewritten yet: the request as it stands, undivided.
            let mut merged: Vec<Segment> = Vec::new();
            for s in &m.request_before {
                match merged.last_mut() {
                    Some(last) if last.part == s.part && s.part == Part::Conversation => {
                        last.tokens += s.tokens;
                        last.messages += s.messages;
                    }
                    _ => merged.push(Segment {
                        goes: Goes::Kept,
                        ..s.clone()
                    }),
                }
            }
            (plain(&merged), None)
        }
        _ => {
            let mut out: Vec<Drawn> = m
                .request_before
                .iter()
                .map(|s| {
                    let mut segment = s.clone();
                    // Past the cut, the conversation is named by its fate.
                    if s.part == Part::Conversation {
                        segment.name = match s.goes {
                            Goes::Summarised => "to summarise",
                            Goes::Kept => "preserved, kept verbatim",
                            Goes::Dropped => "conversation",
                        }
                        .to_owned();
                    }
                    Drawn {
                        segment,
                        ghost: false,
                        asked: stage >= Rebuild::Asked && s.goes == Goes::Summarised,
                    }
                })
                .collect();
            let cut = out
                .iter()
                .rposition(|d| d.segment.goes == Goes::Summarised)
                .map(|i| i + 1);
            let ghost = |s: &Segment| Drawn {
                segment: s.clone(),
                ghost: true,
                asked: false,
            };
            if stage >= Rebuild::Written {
                if let Some(summary) = m.request_after.iter().find(|s| s.part == Part::Summary) {
                    out.insert(cut.unwrap_or(out.len()), ghost(summary));
                }
            }
            if stage >= Rebuild::Restored {
                out.extend(
                    m.request_after
                        .iter()
                        .filter(|s| s.part == Part::Attachment)
                        .map(ghost),
                );
            }
            (out, cut)
        }
    }
}

/// What the strip says about a stage.
pub fn caption(stage: Rebuild, m: &Moment) -> &'static str {
    let compacted = matches!(m.outcome, Some(Outcome::Compacted { .. }));
    match stage {
        Rebuild::Before if matches!(m.outcome, Some(Outcome::Failed { .. })) => {
            "No new request: the compaction stopped, so the next request is the one that stood."
        }
        Rebuild::Before => "The request as it stands.",
        Rebuild::Cut => "The cut: the older groups (hatched) will be summarised; the tail after ✂ is preserved verbatim.",
        Rebuild::Asked => "The hatched part goes to the model with the summary prompt (tools denied).",
        Rebuild::Written => "The summary is written (dashed: not sent yet).",
        Rebuild::Parsed => "The reply is parsed: its <analysis> removed, its <summary> kept.",
        Rebuild::Restored => "Recent files are read again, each cut to the budgets (dashed green).",
        Rebuild::Assembled if compacted => {
            "The new request: system, summary, preserved tail and restored files. The boundary went to disk, not into the request."
        }
        Rebuild::Assembled => "The request after this event.",
    }
}

/// A part's CSS class (its colour in the lanes and the legend).
pub fn part_class(p: Part) -> &'static str {
    match p {
        Part::System => "p-system",
        Part::Conversation => "p-conversation",
        Part::Summary => "p-summary",
        Part::Collapsed => "p-collapsed",
        Part::Preserved => "p-preserved",
        Part::Attachment => "p-attachment",
        Part::Since => "p-since",
    }
}

/// A segment's label: its name, and what the event does to it.
pub fn label(d: &Drawn) -> String {
    let s = &d.segment;
    let mut out = s.name.clone();
    if s.goes == Goes::Dropped {
        out.push_str(" (dropped)");
    }
    if d.ghost {
        out.push_str(" (being built)");
    }
    out
}

/// Props of [`RequestStrip`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct RequestStripProps {
    /// The event shown.
    pub moment: Shown,
    /// The step shown (`None`: the whole event).
    pub step: Option<usize>,
    /// What walks the events (the stepper), drawn right under the lanes.
    #[prop_or_default]
    pub children: Html,
    /// Why the event looks as it does, when a reader would otherwise doubt
    /// it (`compaction_scenarios::sandbox::explain`).
    #[prop_or_default]
    pub note: Option<String>,
    /// The total sent before the last "try this" change, and its label:
    /// drawn as a ghost to compare against.
    #[prop_or_default]
    pub ghost: Option<(String, u64)>,
    /// Set on an empty block right after the lane: the page pins a copy of
    /// the lane once it is out of view (`pinned.rs`).
    #[prop_or_default]
    pub lane_end: NodeRef,
}

/// The next request, drawn, and the record on disk.
#[component]
pub fn RequestStrip(props: &RequestStripProps) -> Html {
    let m = &props.moment;
    let stage = rebuild(m, props.step);
    let (drawn, cut) = layout(m, stage);
    let sent: u64 = drawn.iter().filter(|d| !d.ghost).map(|d| d.segment.tokens).sum();
    let before: u64 = m.request_before.iter().map(|s| s.tokens).sum();
    let after: u64 = m.request_after.iter().map(|s| s.tokens).sum();
    let scale = drawn
        .iter()
        .map(|d| d.segment.tokens)
        .sum::<u64>()
        .max(before)
        .max(after)
        .max(1);
    let width = |t: u64| format!("width: {:.3}%", t as f64 * 100.0 / scale as f64);
    // What the event freed, drawn as room left in the lane once assembled.
    let freed = if stage == Rebuild::Assembled {
        before.saturating_sub(after)
    } else {
        0
    };
    let segment = |(i, d): (usize, &Drawn)| {
        let s = &d.segment;
        let text = format!("{}: {} tokens", label(d), grouped(s.tokens));
        let class = classes!(
            "seg",
            part_class(s.part),
            (s.goes == Goes::Summarised).then_some("goes-summarised"),
            (s.goes == Goes::Dropped).then_some("goes-dropped"),
            d.ghost.then_some("ghost"),
            d.asked.then_some("asked"),
        );
        html! { <>
            if cut == Some(i) { <span class="cut" aria-hidden="true" title="the cut">{ "✂" }</span> }
            <span {class} style={width(s.tokens)} title={text.clone()} data-part={part_class(s.part)} data-tokens={s.tokens.to_string()}>
                <span class="seg-text">{ label(d) }<br />{ grouped(s.tokens) }</span>
            </span>
        </> }
    };
    let item = |d: &Drawn| {
        let s = &d.segment;
        let class = classes!(
            "part",
            part_class(s.part),
            (s.goes == Goes::Summarised).then_some("goes-summarised"),
            d.ghost.then_some("ghost"),
        );
        html! {
            <li {class}>
                <span class={classes!("swatch", part_class(s.part))} aria-hidden="true"></span>
                <span class="part-name">{ label(d) }</span>
                <span class="num">{ grouped(s.tokens) }</span>
                if s.messages > 1 { <span class="muted">{ format!(" · {} messages", s.messages) }</span> }
            </li>
        }
    };
    html! {
        <section class="strip" aria-labelledby="strip-h" data-stage={format!("{stage:?}")}>
            <div class="strip-head">
                <h2 id="strip-h">{ "The next request" }</h2>
                <p class="strip-total" aria-live="polite">
                    <strong>{ grouped(sent) }</strong>{ " tokens sent" }
                    if before != after { <span class="muted">{ format!(" · this event: {} → {}", grouped(before), grouped(after)) }</span> }
                </p>
            </div>
            <p class="strip-caption" aria-live="polite">{ caption(stage, m) }</p>
            if let Some(note) = &props.note { <p class="strip-note" role="note">{ note.clone() }</p> }
            if let Some((label, was)) = &props.ghost {
                <p class="ghost-total" aria-live="polite">
                    { format!("Before “{label}”: {} tokens; now {} ", grouped(*was), grouped(sent)) }
                    <strong>{ delta(sent, *was) }</strong>
                </p>
            }
            <div class="lane lane-request" aria-hidden="true">
                if let Some((_, was)) = &props.ghost {
                    <span class="ghost-mark" style={format!("left: {:.3}%", (*was as f64 * 100.0 / scale as f64).min(100.0))} title="the total before"></span>
                }
                { for drawn.iter().enumerate().map(segment) }
                if freed > 0 {
                    <span class="seg freed" style={width(freed)} title={format!("{} tokens freed by this event", grouped(freed))}>
                        <span class="seg-text">{ "freed" }<br />{ grouped(freed) }</span>
                    </span>
                }
            </div>
            <div class="lane-end" ref={props.lane_end.clone()}></div>
            { disk(m, stage) }
            { props.children.clone() }
            <ol class="parts" aria-label="What the next request holds, in order">
                { for drawn.iter().map(item) }
            </ol>
        </section>
    }
}

/// `now` against `was`, signed: `+6,430`, `−1,200`, `unchanged`.
fn delta(now: u64, was: u64) -> String {
    match now.cmp(&was) {
        std::cmp::Ordering::Greater => format!("(+{})", grouped(now - was)),
        std::cmp::Ordering::Less => format!("(−{})", grouped(was - now)),
        std::cmp::Ordering::Equal => "(unchanged)".to_owned(),
    }
}

/// The session's record on disk (JSONL): every message, and the boundary
/// once a compaction is assembled. Never part of the request.
fn disk(m: &Moment, stage: Rebuild) -> Html {
    let written = stage == Rebuild::Assembled;
    let record = match (&m.outcome, written) {
        (
            Some(Outcome::Compacted {
                pre_tokens,
                post_tokens,
                preserved,
                trigger,
                ..
            }),
            true,
        ) => html! { <>
            <span class="rec rec-summary">{ "+ summary record" }</span>
            <span class="rec rec-boundary">
                <code>{ "compact_boundary" }</code>
                { format!(" trigger {trigger} · {} → {} tokens · {preserved} preserved uuid{}", grouped(*pre_tokens), grouped(*post_tokens), if *preserved == 1 { "" } else { "s" }) }
            </span>
        </> },
        (Some(Outcome::Compacted { .. }), false) => html! {
            <span class="rec rec-pending muted">{ "the boundary is written last, once the new request stands" }</span>
        },
        (Some(Outcome::Failed { .. }), _) => html! {
            <span class="rec rec-none">{ "no boundary written: the history stays as it was" }</span>
        },
        (None, _) => html! {},
    };
    html! {
        <div class="lane lane-disk" role="group" aria-label="On disk (JSONL), never sent">
            <span class="lane-name">{ "On disk (JSONL)" }</span>
            <span class="rec rec-messages">{ format!("{} messages, every one kept", m.stored) }</span>
            { record }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use compaction_scenarios::sandbox::{explore, scenario, Knobs};

    fn the_compact() -> Moment {
        let s = scenario("compact-analysis", 0).unwrap();
        let e = explore(&s, &Knobs::of(&s)).unwrap();
        e.moments.into_iter().find(|m| m.frame.kind == "compact").unwrap()
    }

    #[test]
    fn every_step_of_the_compact_draws_a_different_strip() {
        let m = the_compact();
        let mut seen: Vec<(Vec<Drawn>, Option<usize>, &str)> = Vec::new();
        for s in 0..m.frame.steps.len() {
            let stage = rebuild(&m, Some(s));
            let (drawn, cut) = layout(&m, stage);
            let now = (drawn, cut, caption(stage, &m));
            assert!(
                !seen.contains(&now),
                "step {} draws what an earlier step drew",
                s + 1
            );
            seen.push(now);
        }
    }

    #[test]
    fn the_cut_falls_after_the_summarised_part_and_the_ghosts_are_the_new_parts() {
        let m = the_compact();
        let (drawn, cut) = layout(&m, Rebuild::Restored);
        let cut = cut.unwrap();
        assert_eq!(drawn[cut - 1].segment.goes, Goes::Summarised);
        assert!(drawn[cut].ghost && drawn[cut].segment.part == Part::Summary);
        let files = drawn
            .iter()
            .filter(|d| d.ghost && d.segment.part == Part::Attachment)
            .count();
        assert_eq!(files, 5);
        // Assembled: exactly the request after, nothing ghostly.
        let (after, cut) = layout(&m, Rebuild::Assembled);
        assert_eq!(cut, None);
        assert!(after.iter().all(|d| !d.ghost));
        assert_eq!(after.len(), m.request_after.len());
    }
}
