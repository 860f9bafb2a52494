//! The context view: the request before and after an event as stacked
//! blocks by kind, with token counts, what was dropped, summarised,
//! cleared and restored, and a summary's lineage on click. Layout only:
//! the items and their tokens are the engine's.

use compaction_core::compact::attachments::{Candidate, Status};
use compaction_scenarios::figures::grouped;
use compaction_scenarios::sandbox::{Groups, Item, Kind, Moment, Outcome};
use yew::prelude::*;
use yew::virtual_dom::Key;

use crate::cut::CutHandle;
use crate::lost::WhatWasLost;
use crate::offscreen::Offscreen;
use crate::shown::Shown;
use crate::thinking::{run_tags, ThinkingView};

/// A kind's name on screen and its CSS class.
pub fn kind_name(k: Kind) -> (&'static str, &'static str) {
    match k {
        Kind::System => ("system prompt", "k-system"),
        Kind::Summary => ("summary", "k-summary"),
        Kind::Collapse => ("collapsed segment", "k-collapse"),
        Kind::Attachment => ("attachment", "k-attachment"),
        Kind::User => ("user message", "k-user"),
        Kind::Assistant => ("assistant message", "k-assistant"),
        Kind::ToolResult => ("tool result", "k-tool"),
    }
}

/// Consecutive items of one kind, drawn as one block.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// Their kind.
    pub kind: Kind,
    /// Index of the first item.
    pub first: usize,
    /// How many.
    pub len: usize,
    /// Their tokens.
    pub tokens: u64,
    /// How many the view reduced or cleared.
    pub reduced: usize,
    /// Kept verbatim after the summary by the compaction in force.
    pub preserved: bool,
    /// Replaced by the event's summary (the request before a compaction).
    pub summarised: bool,
}

/// Items grouped into runs; summaries and collapses stay one per run (each
/// has its own lineage).
pub fn runs(items: &[Item]) -> Vec<Run> {
    runs_marking(items, &compaction_core::hash::HashSet::default(), &[])
}

/// [`runs`], with the items in `summarised` (replaced by the event's
/// summary) in runs of their own, as preserved items are, and a new run at
/// each of `starts` (the item indices where legal groups start).
pub fn runs_marking(
    items: &[Item],
    summarised: &compaction_core::hash::HashSet<&compaction_core::message::Uuid>,
    starts: &[usize],
) -> Vec<Run> {
    let mut out: Vec<Run> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let alone = matches!(item.kind, Kind::Summary | Kind::Collapse) || starts.binary_search(&i).is_ok();
        let gone = summarised.contains(&item.uuid);
        match out.last_mut() {
            Some(r)
                if r.kind == item.kind && !alone && r.preserved == item.preserved && r.summarised == gone =>
            {
                r.len += 1;
                r.tokens += item.tokens;
                r.reduced += usize::from(item.reduced);
            }
            _ => out.push(Run {
                kind: item.kind,
                first: i,
                len: 1,
                tokens: item.tokens,
                reduced: usize::from(item.reduced),
                preserved: item.preserved,
                summarised: gone,
            }),
        }
    }
    out
}

/// Blocks listed before "Show all".
pub const SHOWN: usize = 30;

/// The step a long list's first row moves by ([`first_shown`]).
const START_STEP: usize = 10;
/// Segments a stack's bar draws with a least width and a separator each.
const DENSE: usize = 120;

/// The first row a long list shows when the cut falls before row `cut`:
/// the rows around the cut, not only the first ones, with at least 5 after
/// it. It moves in steps of [`START_STEP`] rows, so a cut moved by a group
/// or two moves among rows that stay put (the eye follows the cut, and
/// the rows are not all written again).
fn first_shown(cut: Option<usize>) -> usize {
    match cut {
        Some(c) if c + 5 > SHOWN => (c + 5 - SHOWN).div_ceil(START_STEP) * START_STEP,
        _ => 0,
    }
}

/// Props of [`ContextView`]. Equal when all but the callbacks are: each
/// render makes its callbacks anew (they compare by pointer), and they
/// only dispatch an action to the page's state, the same from any render;
/// compared, they would draw the panel again on every change, even one
/// that leaves its event as it was.
#[derive(Debug, Clone, Properties)]
pub struct ContextViewProps {
    /// The event.
    pub moment: Shown,
    /// Messages the current step touched.
    pub touched: Vec<String>,
    /// Summaries whose lineage is open (uuids), and lists shown whole
    /// (`list:Before`, `list:After`).
    pub open: Vec<String>,
    /// Called with a summary's uuid (or a list's key) to open or close it.
    pub on_lineage: Callback<String>,
    /// The `thinking` setting the engine ran with (R13.1).
    #[prop_or_default]
    pub thinking: compaction_core::api::ThinkingMode,
    /// The "groups preserved" setting (the cut's handle).
    #[prop_or_default]
    pub preserve: usize,
    /// Called with a new "groups preserved" when the cut is moved.
    #[prop_or_default]
    pub on_preserve: Callback<usize>,
}

impl PartialEq for ContextViewProps {
    fn eq(&self, other: &Self) -> bool {
        self.moment == other.moment
            && self.touched == other.touched
            && self.open == other.open
            && self.thinking == other.thinking
            && self.preserve == other.preserve
    }
}

/// The request before and after the event.
#[component]
pub fn ContextView(props: &ContextViewProps) -> Html {
    let m = &props.moment;
    let total_before: u64 = m.before.iter().map(|i| i.tokens).sum();
    let total_after: u64 = m.after.iter().map(|i| i.tokens).sum();
    let widest = total_before.max(total_after).max(1);
    let (before_rows, after_rows) = (use_node_ref(), use_node_ref());
    html! {
        <div class="context">
            <p class="count-note">
                { "The engine's count: " }<strong>{ grouped(m.tokens_before) }</strong>{ " → " }<strong>{ grouped(m.frame.count.tokens) }</strong>
                { " tokens (R1.6: the last reported usage plus estimates for what followed). The blocks below are each message's own estimate." }
            </p>
            <ul class="changes" aria-label="What changed">
                <li><strong>{ m.summarised }</strong>{ " messages summarised" }</li>
                <li><strong>{ m.dropped }</strong>{ " dropped (snipped)" }</li>
                <li><strong>{ m.after.iter().filter(|i| i.reduced).count() }</strong>{ " with content cleared or trimmed" }</li>
                <li><strong>{ m.after.iter().filter(|i| i.kind == Kind::Attachment).count() }</strong>{ " attachments restored" }</li>
            </ul>
            { stack("Before", &m.before, total_before, widest, props, &before_rows) }
            // The panel is tall: what is below the screen catches up after
            // the frame (the cut is moved with the list above in view).
            <Offscreen tag="div">
                { stack("After", &m.after, total_after, widest, props, &after_rows) }
                <ThinkingView moment={props.moment.clone()} mode={props.thinking} touched={props.touched.clone()} />
                { outcome(m, props) }
            </Offscreen>
        </div>
    }
}

fn stack(
    title: &'static str,
    items: &[Item],
    total: u64,
    widest: u64,
    props: &ContextViewProps,
    rows: &NodeRef,
) -> Html {
    // Before a compaction: what its summary replaced, and where the cut fell.
    let compacted = matches!(props.moment.outcome, Some(Outcome::Compacted { .. }));
    let summarised: compaction_core::hash::HashSet<&compaction_core::message::Uuid> =
        if title == "Before" && compacted {
            props
                .moment
                .after
                .iter()
                .flat_map(|i| i.replaces.iter())
                .collect()
        } else {
            compaction_core::hash::HashSet::default()
        };
    // Before a compaction, each legal group is bracketed: its runs start
    // at group starts.
    let groups = props.moment.groups.as_ref().filter(|_| title == "Before");
    let starts = groups.map(|g| g.starts.as_slice()).unwrap_or_default();
    let runs = runs_marking(items, &summarised, starts);
    let cut = runs.iter().rposition(|r| r.summarised).map(|i| i + 1);
    let open = props.open.contains(&format!("list:{title}"));
    let start = if open { 0 } else { first_shown(cut) };
    // Long views list their first blocks; the bar above always shows all.
    let key = format!("list:{title}");
    let open = props.open.contains(&key);
    let toggle = {
        let on_lineage = props.on_lineage.clone();
        Callback::from(move |_| on_lineage.emit(key.clone()))
    };
    // Rows and segments keyed by their run's first message: a group
    // inserted above (extra groups) inserts its rows and segments, and the
    // ones below keep their elements and text instead of each taking its
    // predecessor's (an unkeyed list rewrote every row and segment after
    // the insertion: ~110 attribute and ~30 text writes a change, 17-20
    // keyed). A dense bar (hundreds of segments, one key each to make and
    // compare on every render) stays unkeyed.
    let shown: Vec<(usize, &Run)> = runs
        .iter()
        .enumerate()
        .skip(start)
        .take(if open { usize::MAX } else { SHOWN })
        .collect();
    let uuid = |r: &Run| items[r.first].uuid.0.as_str();
    let rows_keyed = keys_unique(shown.iter().map(|(_, r)| uuid(r)));
    let bar_keyed = runs.len() <= DENSE && keys_unique(runs.iter().map(uuid));
    let bar = BarProps {
        segments: runs
            .iter()
            .map(|r| {
                (
                    kind_name(r.kind).1,
                    r.tokens,
                    bar_keyed.then(|| Key::from(uuid(r))),
                )
            })
            .collect(),
        rest: widest.saturating_sub(total),
    };
    let mut listed: Vec<Html> = Vec::new();
    if start > 0 {
        listed.push(html! { <li key="earlier" class="earlier muted">{ format!("… {start} earlier blocks (Show all lists them)") }</li> });
    }
    for (i, r) in shown {
        if cut == Some(i) {
            listed.push(match groups.filter(|g| g.movable) {
                Some(g) => html! { <CutHandle key="cut" groups={g.clone()} setting={props.preserve} rows={rows.clone()} on_set={props.on_preserve.clone()} /> },
                None => html! { <li key="cut" class="cut-row">{ "✂ the cut: the messages above go into the summary; those below are kept verbatim" }</li> },
            });
        }
        let key = if rows_keyed {
            Key::from(uuid(r))
        } else {
            Key::from(i)
        };
        listed.push(run(r, items, props, groups, cut.is_some_and(|c| i >= c), key));
    }
    html! {
        <section class="stack" aria-label={format!("{title}: {} messages, {} tokens", items.len(), grouped(total))}>
            <h4>{ title }{ ": " }{ items.len() }{ " messages, " }{ grouped(total) }{ " tokens (estimated)" }</h4>
            <Bar ..bar />
            // The rows run far below the bar: off screen, they catch up
            // after the frame like the panels below.
            <Offscreen tag="div">
                <ol class={classes!("runs", groups.is_some().then_some("grouped"))} ref={rows.clone()}>
                    { for listed }
                </ol>
                if runs.len() > SHOWN {
                    <button type="button" class="more" aria-expanded={if open { "true" } else { "false" }} onclick={toggle}>
                        { if open { "Show fewer".to_owned() } else { format!("Show all {} blocks", runs.len()) } }
                    </button>
                }
            </Offscreen>
        </section>
    }
}

/// Props of [`Bar`]: each segment's kind (its `data-k`) and tokens, and
/// what the list lacks of the widest list drawn beside it.
#[derive(Debug, Clone, PartialEq, Properties)]
struct BarProps {
    segments: Vec<(&'static str, u64, Option<Key>)>,
    rest: u64,
}

/// Whether `uuids` can key a list's children: unique among them and none
/// of the list's other keys (a key seen twice would make Yew's keyed diff
/// misplace children; they are then keyed by their place, or not at all,
/// which draws them as an unkeyed list does).
fn keys_unique<'a>(uuids: impl Iterator<Item = &'a str>) -> bool {
    let mut seen = compaction_core::hash::HashSet::default();
    ["cut", "earlier", "rest"].into_iter().all(|k| seen.insert(k)) && { uuids }.all(|u| seen.insert(u))
}

/// A list's bar: a segment a run of items, in proportion to its tokens.
/// A component of its own, so that a change that leaves a list's runs as
/// they were (the groups preserved move only the cut) draws nothing of it
/// again: a bar holds a segment a message, hundreds of them.
#[component]
fn Bar(p: &BarProps) -> Html {
    // Each segment grows by its tokens, and a last, empty one by what the
    // list lacks of the widest (its share of the bar stays striped): a
    // change leaves the attribute of every segment whose tokens it did not
    // change the same string, and the page sets none of those again (as
    // widths in percent of the widest, a change of the total rewrote all
    // 467 of a long list and restyled them, inside the frame). Past DENSE
    // segments, a least width each no longer fits the bar (467 at 2 px each
    // were 50 px wider than it, and the newest were cut off): the segments
    // are then in proportion only, without separators.
    let dense = p.segments.len() > DENSE;
    let grow = |t: u64| format!("flex-grow: {t}");
    // Keyed (a bar of up to DENSE segments), every child is, the rest
    // too: Yew diffs a list by key only when all its children have one.
    let keyed = p.segments.first().is_some_and(|s| s.2.is_some());
    let rest = (p.rest > 0).then(|| match keyed {
        true => html! { <span key="rest" class="rest" style={grow(p.rest)}></span> },
        false => html! { <span class="rest" style={grow(p.rest)}></span> },
    });
    // The kind as an attribute, not a class: one segment a message
    // (hundreds), and a class list is a set built and compared per element.
    let children: Html = p
        .segments
        .iter()
        .map(|(kind, tokens, key)| match key {
            Some(key) => html! { <span key={key.clone()} data-k={*kind} style={grow(*tokens)}></span> },
            None => html! { <span data-k={*kind} style={grow(*tokens)}></span> },
        })
        .chain(rest)
        .collect();
    html! {
        <div class={if dense { "bar dense" } else { "bar" }} aria-hidden="true">{ children }</div>
    }
}

/// A run's row; `groups`: the legal groups it is bracketed by; `kept`:
/// after the event's cut (kept verbatim by it).
fn run(
    r: &Run,
    items: &[Item],
    props: &ContextViewProps,
    groups: Option<&Groups>,
    kept: bool,
    key: Key,
) -> Html {
    let (name, class) = kind_name(r.kind);
    let slice = &items[r.first..r.first + r.len];
    let touched = slice.iter().any(|i| props.touched.contains(&i.uuid.0));
    let first = &slice[0];
    let head = if r.len == 1 {
        html! { <span class="label">{ first.label.clone() }</span> }
    } else {
        html! { <span class="label">{ format!("{} {}s", r.len, name) }</span> }
    };
    let lineage = if first.replaces.is_empty() {
        html! {}
    } else {
        let uuid = first.uuid.0.clone();
        let open = props.open.contains(&uuid);
        let on_lineage = props.on_lineage.clone();
        let toggle = {
            let uuid = uuid.clone();
            Callback::from(move |_| on_lineage.emit(uuid.clone()))
        };
        html! { <>
            <button type="button" class="lineage-toggle" aria-expanded={if open { "true" } else { "false" }} onclick={toggle}>
                { if open { "Hide lineage" } else { "Show lineage" } }{ format!(" ({} messages)", first.replaces.len()) }
            </button>
            if open {
                <ol class="lineage" aria-label="Messages this summary replaced">
                    { for first.replaces.iter().map(|u| {
                        let label = props.moment.before.iter().find(|i| i.uuid == *u).map(|i| i.label.clone());
                        html! { <li><code>{ u.0.clone() }</code>{ label.map(|l| format!(" {l}")).unwrap_or_default() }</li> }
                    }) }
                </ol>
            }
        </> }
    };
    // Its place in its legal group: a bracket opens at the group's first
    // run and closes at its last.
    let group = groups.and_then(|g| g.group_of(r.first).map(|k| (g, k)));
    let bracket = group.map(|(g, k)| {
        let first = g.starts[k] == r.first;
        let end = g.starts.get(k + 1).copied().unwrap_or(g.end);
        let last = r.first + r.len == end;
        match (first, last) {
            (true, true) => "b-solo",
            (true, false) => "b-first",
            (false, true) => "b-last",
            (false, false) => "b-mid",
        }
    });
    html! {
        <li {key} class={classes!("run", class, touched.then_some("touched"))} data-kind={name}
            data-item={groups.map(|_| r.first.to_string())} data-group={group.map(|(_, k)| k.to_string())}>
            if let Some(b) = bracket {
                <span class={classes!("bracket", b)} aria-hidden="true"></span>
            }
            <span class={classes!("swatch", class)} aria-hidden="true"></span>
            <span class="kind">{ name }</span>
            { head }
            <span class="num">{ grouped(r.tokens) }{ " tokens" }</span>
            if r.reduced > 0 { <span class="tag">{ format!("{} cleared/trimmed", r.reduced) }</span> }
            if r.preserved || kept { <span class="tag tag-preserved">{ "kept verbatim" }</span> }
            if r.summarised { <span class="tag tag-summarised">{ "summarised" }</span> }
            { run_tags(slice) }
            if touched { <span class="tag tag-touched">{ "touched by this step" }</span> }
            { lineage }
        </li>
    }
}

fn outcome(m: &Moment, props: &ContextViewProps) -> Html {
    match m.outcome.as_ref() {
        None => html! {},
        Some(Outcome::Failed { reason }) => html! {
            <div class="outcome failed" role="status">
                <h4>{ "No boundary: the original history stays" }</h4>
                <p>{ reason.clone() }</p>
            </div>
        },
        Some(Outcome::Compacted {
            pre_tokens,
            post_tokens,
            preserved,
            boundary,
            summary,
            attachments,
            ..
        }) => html! {
            <div class="outcome compacted">
                <h4>{ "Boundary written to the session's JSONL (on disk, not sent)" }</h4>
                <p class="boundary">
                    <code>{ "compact_boundary" }</code>{ " " }<code>{ boundary.0.clone() }</code>
                    { format!(": {} → {} tokens, {} messages preserved", grouped(*pre_tokens), grouped(*post_tokens), preserved) }
                </p>
                <h4>{ "Attachments" }</h4>
                { attachment_table(attachments, props) }
                <WhatWasLost summarised={summarised(m)} sections={m.lost.clone()} />
                <details class="summary-text">
                    <summary>{ "The summary the model wrote (offline, deterministic)" }</summary>
                    <pre>{ summary.clone() }</pre>
                </details>
            </div>
        },
    }
}

/// The items of the request before `m` its summary replaced, with their
/// index there.
fn summarised(m: &Moment) -> Vec<(usize, Item)> {
    let replaced: compaction_core::hash::HashSet<&compaction_core::message::Uuid> =
        m.after.iter().flat_map(|i| i.replaces.iter()).collect();
    m.before
        .iter()
        .enumerate()
        .filter(|(_, i)| replaced.contains(&i.uuid))
        .map(|(at, i)| (at, i.clone()))
        .collect()
}

/// A candidate's status in words.
pub fn status_text(s: &Status) -> (&'static str, String) {
    match s {
        Status::Restored { tokens, cut } => (
            "restored",
            format!(
                "{} tokens{}",
                grouped(*tokens),
                if *cut { ", cut to the per-file budget" } else { "" }
            ),
        ),
        Status::PathOnly => ("path only", "only the path is restored".to_owned()),
        Status::NotChosen => ("not chosen", "not among the most recent files".to_owned()),
        Status::OverBudget { tokens } => (
            "over budget",
            format!("{} tokens would pass the total", grouped(*tokens)),
        ),
        Status::Failed { reason } => ("not restored", format!("read failed: {reason}")),
    }
}

/// "Not chosen" rows a long attachment table lists before it counts the
/// rest (a session of hundreds of reads has hundreds of candidates).
const NOT_CHOSEN_SHOWN: usize = 3;

/// The attachments' candidates and how each ended: every row the engine
/// read (restored, cut, over budget, failed), the first few it never chose,
/// and how many more (all of them when `props.open` lists the table).
fn attachment_table(c: &[Candidate], props: &ContextViewProps) -> Html {
    if c.is_empty() {
        return html! { <p class="muted">{ "Nothing to restore: no file was read or edited, and no plan, task list, skill or hook output was there." }</p> };
    }
    const KEY: &str = "list:attachments";
    let open = props.open.iter().any(|k| k == KEY);
    let not_chosen = c.iter().filter(|c| matches!(c.status, Status::NotChosen)).count();
    let foldable = not_chosen > NOT_CHOSEN_SHOWN + 1;
    let mut seen = 0;
    let shown = c.iter().filter(|c| {
        if open || !foldable || !matches!(c.status, Status::NotChosen) {
            return true;
        }
        seen += 1;
        seen <= NOT_CHOSEN_SHOWN
    });
    let toggle = {
        let on_lineage = props.on_lineage.clone();
        Callback::from(move |_| on_lineage.emit(KEY.to_owned()))
    };
    html! { <>
        <table class="attachments">
            <thead><tr><th scope="col">{ "kind" }</th><th scope="col">{ "file or name" }</th><th scope="col">{ "status" }</th><th scope="col">{ "detail" }</th></tr></thead>
            <tbody>
            { for shown.map(|c| {
                let (status, detail) = status_text(&c.status);
                html! {
                    <tr data-path={c.path.clone()} data-status={status} data-kind={c.kind.as_str()}>
                        <td>{ c.kind.as_str() }</td>
                        <td><code>{ c.path.clone() }</code></td>
                        <td><span class={classes!("badge", format!("st-{}", status.replace(' ', "-")))}>{ status }</span></td>
                        <td>{ detail }</td>
                    </tr>
                }
            }) }
            if foldable && !open {
                <tr class="folded"><td colspan="4" class="muted">{ format!("… {} more not chosen: older than the most recent files", not_chosen - NOT_CHOSEN_SHOWN) }</td></tr>
            }
            </tbody>
        </table>
        if foldable {
            <button type="button" class="more" aria-expanded={if open { "true" } else { "false" }} onclick={toggle}>
                { if open { "Show fewer".to_owned() } else { format!("Show all {} candidates", c.len()) } }
            </button>
        }
    </> }
}

#[cfg(test)]
mod tests {
    use super::*;
    use compaction_core::message::Uuid;

    fn item(kind: Kind, tokens: u64) -> Item {
        Item {
            kind,
            uuid: Uuid(format!("{kind:?}{tokens}")),
            tokens,
            label: String::new(),
            replaces: Vec::new(),
            reduced: tokens == 7,
            preserved: false,
            thinking: Vec::new(),
        }
    }

    #[test]
    fn runs_split_where_the_cut_falls_and_where_preserved_messages_start() {
        let mut items = vec![
            item(Kind::User, 1),
            item(Kind::User, 2),
            item(Kind::User, 3),
            item(Kind::User, 4),
        ];
        items[3].preserved = true;
        let gone = [items[0].uuid.clone()];
        let gone: compaction_core::hash::HashSet<_> = gone.iter().collect();
        let r = runs_marking(&items, &gone, &[]);
        let shape: Vec<(usize, bool, bool)> = r.iter().map(|r| (r.len, r.summarised, r.preserved)).collect();
        assert_eq!(shape, [(1, true, false), (2, false, false), (1, false, true)]);
    }

    #[test]
    fn a_long_list_shows_the_cut_with_five_rows_after_it_and_moves_in_steps() {
        assert_eq!(first_shown(None), 0);
        let mut moves = 0;
        for c in 0..2_000 {
            let start = first_shown(Some(c));
            assert!(
                start <= c && c + 5 <= start + SHOWN,
                "cut {c}: rows {start}..{}",
                start + SHOWN
            );
            assert_eq!(start % START_STEP, 0);
            if start != first_shown(Some(c + 1)) {
                moves += 1;
            }
        }
        // Once every 10 rows the cut moves past, not at every row.
        assert!(moves <= 2_000 / START_STEP, "{moves} moves");
    }

    #[test]
    fn a_legal_group_starts_a_run_of_its_own() {
        let items = [item(Kind::User, 1), item(Kind::User, 2), item(Kind::User, 3)];
        let none = compaction_core::hash::HashSet::default();
        let shape = |starts: &[usize]| -> Vec<(usize, usize)> {
            runs_marking(&items, &none, starts)
                .iter()
                .map(|r| (r.first, r.len))
                .collect()
        };
        assert_eq!(shape(&[]), [(0, 3)]);
        assert_eq!(shape(&[0, 2]), [(0, 2), (2, 1)]);
    }

    #[test]
    fn runs_merge_neighbours_of_a_kind_but_never_summaries() {
        let items = [
            item(Kind::Summary, 10),
            item(Kind::Summary, 11),
            item(Kind::User, 1),
            item(Kind::User, 7),
            item(Kind::ToolResult, 3),
        ];
        let r = runs(&items);
        assert_eq!(r.len(), 4);
        assert_eq!((r[2].len, r[2].tokens, r[2].reduced), (2, 8, 1));
        assert_eq!(r[3].first, 4);
    }
}
