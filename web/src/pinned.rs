//! The next request, pinned: once the strip has scrolled out of view (a
//! visitor down at the controls and the panels), a slim copy of its lane
//! stays at the top of the panels: the tokens the next request sends, what
//! the last change did to them, and its parts in proportion. It draws the
//! strip's own layout (`strip::layout`); while the strip is in view it is
//! empty and costs nothing.

use compaction_scenarios::figures::grouped;
use compaction_scenarios::sandbox::rebuild;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::shown::Shown;
use crate::strip::{label, layout, part_class};

/// Props of [`Pinned`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct PinnedProps {
    /// The event the strip shows (`None`: nothing to pin, e.g. a session's
    /// request is shown).
    pub moment: Option<Shown>,
    /// The step the strip shows.
    pub step: Option<usize>,
    /// The end of the strip's lane: pinned once it is above the viewport.
    pub lane_end: NodeRef,
}

/// See the module's documentation.
pub struct Pinned {
    /// The strip's lane is above the viewport.
    out: bool,
    /// The tokens sent as last drawn, and what the change before moved them by.
    last: Option<u64>,
    moved: i64,
    /// The element observed, the observer and its callback.
    observed: Option<(web_sys::Element, web_sys::IntersectionObserver, Closure<OnChange>)>,
}

type OnChange = dyn Fn(js_sys::Array);

/// The strip's lane went out of view or came back.
pub struct Scrolled(bool);

impl Pinned {
    /// The tokens the strip's next request sends, as it draws them.
    fn sent(props: &PinnedProps) -> Option<u64> {
        let m = props.moment.as_ref()?;
        let (drawn, _) = layout(m, rebuild(m, props.step));
        Some(drawn.iter().filter(|d| !d.ghost).map(|d| d.segment.tokens).sum())
    }
}

impl Component for Pinned {
    type Message = Scrolled;
    type Properties = PinnedProps;

    fn create(ctx: &Context<Self>) -> Self {
        Self {
            out: false,
            last: Self::sent(ctx.props()),
            moved: 0,
            observed: None,
        }
    }

    fn changed(&mut self, ctx: &Context<Self>, _: &Self::Properties) -> bool {
        let now = Self::sent(ctx.props());
        if let (Some(now), Some(was)) = (now, self.last) {
            if now != was {
                self.moved = now as i64 - was as i64;
            }
        }
        self.last = now;
        // Off view, nothing is drawn: the next change draws what is then due.
        self.out
    }

    fn update(&mut self, _: &Context<Self>, Scrolled(out): Scrolled) -> bool {
        out != std::mem::replace(&mut self.out, out)
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let p = ctx.props();
        let Some(m) = p.moment.as_ref().filter(|_| self.out) else {
            return html! { <aside class="pinned" hidden=true></aside> };
        };
        let (drawn, _) = layout(m, rebuild(m, p.step));
        let sent: u64 = drawn.iter().filter(|d| !d.ghost).map(|d| d.segment.tokens).sum();
        let scale = drawn.iter().map(|d| d.segment.tokens).sum::<u64>().max(1);
        let moved = match self.moved {
            0 => String::new(),
            d if d > 0 => format!(" (+{} by the last change)", grouped(d.unsigned_abs())),
            d => format!(" (−{} by the last change)", grouped(d.unsigned_abs())),
        };
        html! {
            <aside class="pinned" aria-label="The next request (pinned)">
                <p class="pinned-total">
                    <a href="#strip-h">{ "Next request" }</a>{ ": " }<strong>{ grouped(sent) }</strong>{ " tokens sent" }
                    <span class="muted">{ moved }</span>
                </p>
                <div class="lane lane-pinned" aria-hidden="true">
                    { for drawn.iter().map(|d| html! {
                        <span class={classes!("seg", part_class(d.segment.part), d.ghost.then_some("ghost"))}
                            style={format!("width: {:.3}%", d.segment.tokens as f64 * 100.0 / scale as f64)}
                            title={format!("{}: {} tokens", label(d), grouped(d.segment.tokens))}></span>
                    }) }
                </div>
            </aside>
        }
    }

    fn rendered(&mut self, ctx: &Context<Self>, _: bool) {
        // Observe the strip's lane end; again when the strip drew a new one.
        let Some(el) = ctx.props().lane_end.cast::<web_sys::Element>() else {
            return;
        };
        if self.observed.as_ref().is_some_and(|(e, ..)| *e == el) {
            return;
        }
        if let Some((_, o, _)) = self.observed.take() {
            o.disconnect();
        }
        let link = ctx.link().clone();
        let on_change = Closure::<OnChange>::new(move |entries: js_sys::Array| {
            if let Some(e) = entries.iter().last() {
                let e = e.unchecked_into::<web_sys::IntersectionObserverEntry>();
                // Out of view above (not below: a tall strip on a phone).
                link.send_message(Scrolled(
                    !e.is_intersecting() && e.bounding_client_rect().top() < 0.0,
                ));
            }
        });
        if let Ok(o) = web_sys::IntersectionObserver::new(on_change.as_ref().unchecked_ref()) {
            o.observe(&el);
            self.observed = Some((el, o, on_change));
        }
    }

    fn destroy(&mut self, _: &Context<Self>) {
        if let Some((_, o, _)) = self.observed.take() {
            o.disconnect();
        }
    }
}
