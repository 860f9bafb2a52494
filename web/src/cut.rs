//! The cut as a handle (issue 26, point 2): it *is* "groups preserved".
//! Dragged with the pointer over the list of the request before a
//! compaction, it lands between two rows; the engine's groups
//! ([`Groups::preserved_at`]) say how many groups that keeps, or why the
//! cut cannot fall there, and the handle snaps back with that reason.
//! Arrow keys move it one legal group at a time. Layout only.

use std::cell::Cell;

use compaction_scenarios::sandbox::Groups;
use wasm_bindgen::JsCast;
use yew::prelude::*;

thread_local! {
    /// The handle was moved by keys: focus it again once it is redrawn at
    /// its new place (the list re-renders around it).
    static REFOCUS: Cell<bool> = const { Cell::new(false) };
}

/// Props of [`CutHandle`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct CutHandleProps {
    /// The view's groups and where the cut fell.
    pub groups: Groups,
    /// The "groups preserved" setting.
    pub setting: usize,
    /// The list the handle moves over (rows carry `data-item`).
    pub rows: NodeRef,
    /// Called with the new "groups preserved".
    pub on_set: Callback<usize>,
}

/// The row under the pointer's height: the item a cut there falls before.
fn target(rows: &NodeRef, y: f64, end: usize) -> Option<usize> {
    let list = rows.cast::<web_sys::Element>()?;
    let rows = list.query_selector_all("li.run[data-item]").ok()?;
    for i in 0..rows.length() {
        let Some(row) = rows.item(i).and_then(|n| n.dyn_into::<web_sys::Element>().ok()) else {
            continue;
        };
        let r = row.get_bounding_client_rect();
        if r.top() + r.height() / 2.0 > y {
            return row.get_attribute("data-item")?.parse().ok();
        }
    }
    Some(end)
}

/// The cut's handle.
#[component]
pub fn CutHandle(props: &CutHandleProps) -> Html {
    // While dragging: where the pointer went down, where it is, and what
    // the engine's groups say of the row under it.
    let drag = use_state(|| None::<(f64, f64, Result<usize, String>)>);
    let refused = use_state(|| None::<String>);
    let handle = use_node_ref();
    {
        let handle = handle.clone();
        use_effect_with(props.setting, move |_| {
            if REFOCUS.with(|r| r.replace(false)) {
                if let Some(h) = handle.cast::<web_sys::HtmlElement>() {
                    let _ = h.focus();
                }
            }
        });
    }
    let groups = &props.groups;
    let max = groups.cuts.len().saturating_sub(1).max(1);
    let set = {
        let on_set = props.on_set.clone();
        let setting = props.setting;
        move |n: usize| {
            if n != setting {
                on_set.emit(n);
            }
        }
    };
    let onpointerdown = {
        let drag = drag.clone();
        let refused = refused.clone();
        let setting = props.setting;
        Callback::from(move |e: PointerEvent| {
            if let Some(el) = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) {
                let _ = el.set_pointer_capture(e.pointer_id());
            }
            let y = f64::from(e.client_y());
            refused.set(None);
            drag.set(Some((y, y, Ok(setting))));
        })
    };
    let onpointermove = {
        let drag = drag.clone();
        let rows = props.rows.clone();
        let groups = groups.clone();
        Callback::from(move |e: PointerEvent| {
            if let Some((y0, _, _)) = &*drag {
                let y = f64::from(e.client_y());
                let at = target(&rows, y, groups.end).unwrap_or(groups.end);
                drag.set(Some((*y0, y, groups.preserved_at(at))));
            }
        })
    };
    let onpointerup = {
        let drag = drag.clone();
        let refused = refused.clone();
        let set = set.clone();
        Callback::from(move |_: PointerEvent| {
            match drag.as_ref().map(|(_, _, verdict)| verdict.clone()) {
                Some(Ok(n)) => set(n),
                Some(Err(why)) => refused.set(Some(why)),
                None => {}
            }
            drag.set(None);
        })
    };
    let onpointercancel = {
        let drag = drag.clone();
        Callback::from(move |_: PointerEvent| drag.set(None))
    };
    let onkeydown = {
        let setting = props.setting;
        let refused = refused.clone();
        Callback::from(move |e: KeyboardEvent| {
            let n = match e.key().as_str() {
                "ArrowUp" | "ArrowLeft" => (setting + 1).min(max),
                "ArrowDown" | "ArrowRight" => setting.saturating_sub(1).max(1),
                "Home" => max,
                "End" => 1,
                _ => return,
            };
            e.prevent_default();
            refused.set(None);
            REFOCUS.with(|r| r.set(n != setting));
            set(n);
        })
    };
    let (shift, live) = match &*drag {
        Some((y0, y, verdict)) => (y - y0, Some(verdict.clone())),
        None => (0.0, None),
    };
    let text = match &live {
        Some(Ok(n)) => format!("⇕ drop: {n} group{} preserved", if *n == 1 { "" } else { "s" }),
        Some(Err(_)) => "⇕ not here: inside a group".to_owned(),
        None => format!(
            "⇕ {} group{} preserved",
            props.setting,
            if props.setting == 1 { "" } else { "s" }
        ),
    };
    html! {
        <li class="cut-row movable">
            <span class="cut-text">{ "✂ the cut: the messages above go into the summary; those below are kept verbatim" }</span>
            <button type="button" role="slider" ref={handle}
                class={classes!("cut-handle", live.is_some().then_some("dragging"), matches!(live, Some(Err(_))).then_some("illegal"))}
                style={format!("transform: translateY({shift:.0}px)")}
                aria-label="The cut: legal groups kept after it (drag, or arrow keys)"
                aria-valuemin="1" aria-valuemax={max.to_string()} aria-valuenow={props.setting.to_string()}
                aria-valuetext={format!("{} group{} kept verbatim", props.setting, if props.setting == 1 { "" } else { "s" })}
                {onpointerdown} {onpointermove} {onpointerup} {onpointercancel} {onkeydown}>
                { text }
            </button>
            if let Some(why) = &*refused {
                <p class="cut-refused" role="status">{ "Snapped back. " }{ why.clone() }</p>
            }
        </li>
    }
}
