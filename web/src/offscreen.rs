//! A panel below the first screen. While it is off screen, a change that
//! gives it new content draws it just after the frame that shows the
//! change, not inside it: the frame paints what the visitor sees (the
//! request strip and the stepper) and the panels nobody sees catch up in
//! the task after it. On screen, or before the page has said where it is,
//! it draws inside the frame like anything else. Changes that come before
//! it caught up are drawn once, with the last content.

use std::cell::Cell;
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// A `<section>` of the page's panels, or a block inside one.
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct OffscreenProps {
    /// The element: `section` (a panel) or `div` (a block inside one).
    #[prop_or("section")]
    pub tag: &'static str,
    /// Its id (the page's jump links point at a panel's).
    #[prop_or_default]
    pub id: Option<AttrValue>,
    /// The id of its heading.
    #[prop_or_default]
    pub labelledby: Option<AttrValue>,
    /// What it holds.
    pub children: Html,
}

/// See the module's documentation.
pub struct Offscreen {
    section: NodeRef,
    /// Whether any of it is in the viewport, as the page last said.
    seen: Rc<Cell<bool>>,
    /// A draw is due after the next frame.
    due: bool,
    /// The observer and its callback, held while the section lives.
    observer: Option<(web_sys::IntersectionObserver, Closure<OnChange>)>,
}

/// The observer's callback: its entries.
type OnChange = dyn Fn(js_sys::Array);

/// The content that came while off screen is due.
pub struct CatchUp;

impl Component for Offscreen {
    type Message = CatchUp;
    type Properties = OffscreenProps;

    fn create(_: &Context<Self>) -> Self {
        Self {
            section: NodeRef::default(),
            seen: Rc::new(Cell::new(true)),
            due: false,
            observer: None,
        }
    }

    fn changed(&mut self, ctx: &Context<Self>, _: &Self::Properties) -> bool {
        if self.seen.get() {
            // Drawn now: a catch-up still due has nothing left to draw.
            if std::mem::take(&mut self.due) {
                stale(-1);
            }
            return true;
        }
        if !self.due {
            self.due = true;
            stale(1);
            after_frame(ctx.link().callback(|()| CatchUp));
        }
        false
    }

    fn update(&mut self, _: &Context<Self>, _: CatchUp) -> bool {
        let due = std::mem::take(&mut self.due);
        if due {
            stale(-1);
        }
        due
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let p = ctx.props();
        html! {
            <@{p.tag} id={p.id.clone()} aria-labelledby={p.labelledby.clone()} ref={self.section.clone()}>
                { p.children.clone() }
            </@>
        }
    }

    fn rendered(&mut self, _: &Context<Self>, first: bool) {
        if !first {
            return;
        }
        let Some(el) = self.section.cast::<web_sys::Element>() else {
            return;
        };
        let seen = self.seen.clone();
        let on_change = Closure::<OnChange>::new(move |entries: js_sys::Array| {
            // The last entry is the newest state.
            if let Some(e) = entries.iter().last() {
                seen.set(
                    e.unchecked_into::<web_sys::IntersectionObserverEntry>()
                        .is_intersecting(),
                );
            }
        });
        if let Ok(o) = web_sys::IntersectionObserver::new(on_change.as_ref().unchecked_ref()) {
            o.observe(&el);
            self.observer = Some((o, on_change));
        }
    }

    fn destroy(&mut self, _: &Context<Self>) {
        if std::mem::take(&mut self.due) {
            stale(-1);
        }
        if let Some((o, _)) = self.observer.take() {
            o.disconnect();
        }
    }
}

thread_local! {
    /// Panels with a catch-up due.
    static STALE: Cell<i32> = const { Cell::new(0) };
}

/// Counts a catch-up due (`1`) or done (`-1`), and tells the page how many
/// are due as `window.sandboxStale` (the browser tests wait for 0 before
/// they read a panel below the strip).
fn stale(by: i32) {
    let n = STALE.with(|s| {
        s.set(s.get() + by);
        s.get()
    });
    let _ = js_sys::Reflect::set(&gloo::utils::window(), &"sandboxStale".into(), &n.into());
}

/// Calls `then` in the task after the next frame: a timer set from the
/// frame's animation callback runs once that frame is painted.
fn after_frame(then: Callback<()>) {
    let later = then.clone();
    let in_frame = Closure::once_into_js(move || {
        gloo::timers::callback::Timeout::new(0, move || later.emit(())).forget();
    });
    if gloo::utils::window()
        .request_animation_frame(in_frame.unchecked_ref())
        .is_err()
    {
        gloo::timers::callback::Timeout::new(0, move || then.emit(())).forget();
    }
}
