//! The left-hand panel: every setting and failure switch, each a labelled
//! control that dispatches one [`Action`].

use compaction_core::api::ThinkingMode;
use compaction_core::compact::attachments::{Kind as AttachmentKind, Status};
use compaction_scenarios::sandbox::{thinking_mode, Exploration, Outcome, PrecomputeSwitch, THINKING_MODES};
use yew::prelude::*;

use crate::controls::{Check, Choice, NumberField, TextArea};
use crate::state::{Action, Field, SandboxState, Switch};

/// Files a "reading this file fails" list shows all of; a longer one
/// lists those a compaction read.
const FAILING_LISTED: usize = 12;

/// The panel for the current state; `e` is the engine's run, whose
/// compactions name the files a visitor can make fail; `problem` what is
/// wrong with a field's text, said at that field.
pub fn controls(
    state: &UseReducerHandle<SandboxState>,
    e: Option<&Exploration>,
    problem: Option<&(Field, String)>,
) -> Html {
    let field = |f: Field, hint: &'static str, step: &'static str| {
        let s = state.clone();
        let on_change = Callback::from(move |text| s.dispatch(Action::Set(f, text)));
        let error = problem
            .filter(|(at, _)| *at == f)
            .map(|(_, message)| AttrValue::from(message.clone()));
        html! { <NumberField id={f.key()} label={f.label()} {hint} value={state.field(f).to_owned()} {on_change} step={step} {error} /> }
    };
    let check = |sw: Switch| {
        let s = state.clone();
        let on_change = Callback::from(move |on| s.dispatch(Action::Toggle(sw, on)));
        html! { <Check id={sw.key()} label={sw.label()} checked={state.on(sw)} {on_change} /> }
    };
    // The files the engine considered at the last compaction, and any
    // already failing; past a dozen, only those a compaction read (a file
    // it never chose is never read, so its read cannot fail).
    let considered = || {
        e.into_iter()
            .flat_map(|e| e.moments.iter())
            .filter_map(|m| match &m.outcome {
                Some(Outcome::Compacted { attachments, .. }) => Some(attachments.iter()),
                _ => None,
            })
            .flatten()
            .filter(|c| c.kind == AttachmentKind::File)
    };
    let long = considered().count() > FAILING_LISTED;
    let mut files: Vec<String> = considered()
        .filter(|c| !long || !matches!(c.status, Status::NotChosen))
        .map(|c| c.path.clone())
        .chain(state.failing.iter().cloned())
        .collect();
    files.sort();
    files.dedup();
    let precompute = {
        let s = state.clone();
        Callback::from(move |v: String| {
            if let Some(p) = PrecomputeSwitch::by_name(&v) {
                s.dispatch(Action::Precompute(p))
            }
        })
    };
    let options = [
        ("none", "none stored (the seed's case)"),
        ("ready", "ready: fresh, covers the cut"),
        ("stale", "stale: written 8 days ago"),
        ("moved", "moved: its messages no longer open the view"),
    ]
    .iter()
    .map(|(v, t)| (AttrValue::from(*v), AttrValue::from(*t)))
    .collect::<Vec<_>>();
    let thinking = {
        let s = state.clone();
        Callback::from(move |v: String| {
            if let Some(t) = thinking_mode(&v) {
                s.dispatch(Action::Thinking(t))
            }
        })
    };
    let thinking_options = THINKING_MODES
        .iter()
        .map(|m| {
            let text = match m {
                ThinkingMode::Strip => "strip (default): drop them whole",
                ThinkingMode::DropBlock => "drop_block: send them, the server drops them",
                ThinkingMode::Keep => "keep: send them, the host's responsibility",
            };
            (AttrValue::from(m.name()), AttrValue::from(text))
        })
        .collect::<Vec<_>>();
    let hook = {
        let s = state.clone();
        Callback::from(move |t| s.dispatch(Action::HookInstructions(t)))
    };
    let instructions = {
        let s = state.clone();
        Callback::from(move |t| s.dispatch(Action::Instructions(t)))
    };
    let reads = {
        let s = state.clone();
        Callback::from(move |t| s.dispatch(Action::Reads(t)))
    };
    html! { <>
        <fieldset>
            <legend>{ "Model and lines" }</legend>
            { field(Field::Window, "e.g. 200000 or 1000000", "1000") }
            { field(Field::MaxOutput, "the reserve is min(this, 20,000); empty: the cap", "1000") }
            { field(Field::OverridePct, "auto-compact at this % of the window; empty: none", "1") }
        </fieldset>
        <fieldset>
            <legend>{ "Cut point (manual / reactive)" }</legend>
            { field(Field::ExtraGroups, "more tool-call groups before /compact (compact-analysis)", "1") }
            { field(Field::PreserveGroups, "legal groups kept verbatim after the summary", "1") }
            if let Some(g) = e.and_then(|e| e.groups_at_compact) {
                <p class="muted">{ format!("The engine sees {g} legal groups at the first /compact.") }</p>
            }
        </fieldset>
        <fieldset>
            <legend>{ "Attachments (files restored)" }</legend>
            { field(Field::MaxFiles, "most recent files restored", "1") }
            { field(Field::PerFile, "longer files are cut to this", "500") }
            { field(Field::Total, "all files together", "1000") }
            <TextArea id="reads" label="Files the session reads" hint="compact-analysis: one path per line, read by its second request; empty: its own two files. The candidates are the files most recently read (R7.7)" value={state.reads.clone()} on_change={reads} />
            if files.is_empty() {
                <p class="muted">{ "No compaction restores files in this run." }</p>
            } else {
                <p class="sub">{ if long { "Reading this file fails (the files a compaction read):" } else { "Reading this file fails:" } }</p>
                // Keyed and named by the path, not its place: a file read
                // earlier (extra groups) inserts its box, and the ones
                // below keep their ids and labels instead of each taking
                // its predecessor's. In a list of their own: Yew diffs a
                // list by key only when all its children have one.
                <>{ for files.iter().map(|path| {
                    let s = state.clone();
                    let p = path.clone();
                    let on_change = Callback::from(move |on| s.dispatch(Action::FileFails(p.clone(), on)));
                    html! { <Check key={path.as_str()} id={fail_id(path)} label={path.clone()} checked={state.failing.contains(path)} {on_change} /> }
                }) }</>
            }
        </fieldset>
        <fieldset>
            <legend>{ "PreCompact hook and summary" }</legend>
            { check(Switch::HookBlocks) }
            <TextArea id="hook-adds" label="Instructions the hook adds" hint="one per line; added to the summary prompt" value={state.hook_instructions.clone()} on_change={hook} />
            <TextArea id="instructions" label="/compact instructions" hint="what the user typed after /compact" value={state.instructions.clone()} on_change={instructions} />
            <Choice id="precompute" label="Stored precompute" value={state.precompute.name()} {options} on_change={precompute} />
            { check(Switch::TooLong) }
            { check(Switch::PrimaryDown) }
            { check(Switch::AllDown) }
        </fieldset>
        <fieldset>
            <legend>{ "Signed thinking (R13.1)" }</legend>
            <Choice id="thinking" label="Thinking blocks after a client rewrite" value={state.thinking.name()} options={thinking_options} on_change={thinking} />
            <p class="muted">{ "A thinking block is signed over everything before it. When the client rewrites any of that (clearing, snip, collapse, a summary with a kept tail), the engine's setting decides what is sent. The thinking scenario shows it." }</p>
        </fieldset>
    </> }
}

/// The id of the failing-read box of `path`: the path with whitespace and
/// `%` escaped (an id holds no whitespace), so distinct paths never share
/// one.
fn fail_id(path: &str) -> String {
    let mut id = String::from("fail-");
    for c in path.chars() {
        if c.is_whitespace() || c == '%' {
            id.push_str(&format!("%{:X};", u32::from(c)));
        } else {
            id.push(c);
        }
    }
    id
}
