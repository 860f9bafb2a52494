//! The settings' container (issue 26, point 10): a sidebar on wide
//! screens; on a phone a bottom sheet, closed to one bar under the
//! picture until the visitor opens it, so the strip and the stepper keep
//! the top of the screen. Open, it covers the strip, so it shows the
//! request pinned under its bar. Escape closes it and gives the focus back
//! to its bar. Layout only (the breakpoint is CSS's).

use yew::prelude::*;

/// Props of [`Sheet`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct SheetProps {
    /// The settings.
    pub children: Html,
    /// Drawn under the bar while the sheet is open (the request, pinned:
    /// the sheet covers the strip).
    #[prop_or_default]
    pub peek: Html,
}

/// The settings, as a sidebar or a bottom sheet.
#[component]
pub fn Sheet(props: &SheetProps) -> Html {
    let open = use_state(|| false);
    let bar = use_node_ref();
    let toggle = {
        let open = open.clone();
        Callback::from(move |_| open.set(!*open))
    };
    let onkeydown = {
        let open = open.clone();
        let bar = bar.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" && *open {
                open.set(false);
                if let Some(b) = bar.cast::<web_sys::HtmlElement>() {
                    let _ = b.focus();
                }
            }
        })
    };
    html! {
        <aside class={classes!("controls", "sheet", open.then_some("open"))} aria-label="Settings" {onkeydown}>
            <button type="button" class="sheet-bar" ref={bar} aria-expanded={if *open { "true" } else { "false" }}
                aria-controls="sheet-body" onclick={toggle}>
                <span>{ if *open { "Settings ▾" } else { "Settings ▴" } }</span>
                <span class="sheet-hint">{ if *open { "close" } else { "window · groups · budgets · failures" } }</span>
            </button>
            if *open { <div class="sheet-peek">{ props.peek.clone() }</div> }
            <div id="sheet-body" class="sheet-body">{ props.children.clone() }</div>
        </aside>
    }
}
