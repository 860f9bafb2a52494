//! The request, pinned: once the strip has scrolled out of view (a visitor
//! down at the controls and the panels), a slim copy of its lane stays at
//! the top of the panels: the tokens the request sends, what the last
//! change did to them, and its parts in proportion. It draws the strip's
//! own parts (`strip::layout` for a scenario's event, the laid-out request
//! of an imported session); while the strip is in view it is empty and
//! costs nothing.

use compaction_scenarios::figures::grouped;
use std::rc::Rc;

use compaction_scenarios::sandbox::{rebuild, SessionRequest};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::shown::Shown;
use crate::strip::{label, layout, part_class};

/// What the strip shows.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A scenario's event, at a step (`None`: the whole event).
    Event(Shown, Option<usize>),
    /// An imported session's request, and how many it has.
    Request(Rc<SessionRequest>, usize),
}

/// A part of the lane: its class, name, tokens, and whether it is still
/// being built (not sent yet).
type Part = (&'static str, String, u64, bool);

impl Source {
    /// The lane's name and parts.
    fn parts(&self) -> (String, Vec<Part>) {
        match self {
            Source::Event(m, step) => {
                let (drawn, _) = layout(m, rebuild(m, *step));
                let parts = drawn
                    .iter()
                    .map(|d| (part_class(d.segment.part), label(d), d.segment.tokens, d.ghost))
                    .collect();
                ("Next request".to_owned(), parts)
            }
            Source::Request(r, of) => {
                let parts = r
                    .segments
                    .iter()
                    .map(|s| (part_class(s.part), s.name.clone(), s.tokens, false))
                    .collect();
                (
                    format!("Request {} of {}", grouped(r.at as u64 + 1), grouped(*of as u64)),
                    parts,
                )
            }
        }
    }
}

/// The tokens sent: the parts not being built.
fn sent(parts: &[Part]) -> u64 {
    parts.iter().filter(|p| !p.3).map(|p| p.2).sum()
}

/// Props of [`Pinned`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct PinnedProps {
    /// What the strip shows (`None`: nothing yet).
    pub source: Option<Source>,
    /// The end of the strip's lane: pinned once it is above the viewport.
    #[prop_or_default]
    pub lane_end: NodeRef,
    /// Drawn whatever the strip's place (under the phone's settings sheet,
    /// which covers the strip).
    #[prop_or(false)]
    pub always: bool,
}

/// See the module's documentation.
pub struct Pinned {
    /// The strip's lane is above the viewport.
    out: bool,
    /// The tokens sent as last drawn, and what the last change moved them by.
    last: Option<u64>,
    moved: i64,
    /// The element observed, the observer and its callback.
    observed: Option<(web_sys::Element, web_sys::IntersectionObserver, Closure<OnChange>)>,
}

type OnChange = dyn Fn(js_sys::Array);

/// The strip's lane went out of view or came back.
pub struct Scrolled(bool);

impl Pinned {
    /// The tokens the strip's request sends, as it draws them.
    fn sent(props: &PinnedProps) -> Option<u64> {
        props.source.as_ref().map(|s| sent(&s.parts().1))
    }

    /// Observes the strip's lane end; again when the strip drew a new one
    /// (a session's request in place of a scenario's event).
    fn observe(&mut self, ctx: &Context<Self>) {
        if ctx.props().always {
            return;
        }
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
}

impl Component for Pinned {
    type Message = Scrolled;
    type Properties = PinnedProps;

    fn create(ctx: &Context<Self>) -> Self {
        Self {
            out: ctx.props().always,
            last: Self::sent(ctx.props()),
            moved: 0,
            observed: None,
        }
    }

    fn changed(&mut self, ctx: &Context<Self>, _: &Self::Properties) -> bool {
        let now = Self::sent(ctx.props());
        self.moved = match (now, self.last) {
            (Some(now), Some(was)) => now as i64 - was as i64,
            _ => 0,
        };
        self.last = now;
        self.observe(ctx);
        // Off view, nothing is drawn: the next change draws what is then due.
        self.out
    }

    fn update(&mut self, _: &Context<Self>, Scrolled(out): Scrolled) -> bool {
        out != std::mem::replace(&mut self.out, out)
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let p = ctx.props();
        let Some(source) = p.source.as_ref().filter(|_| self.out) else {
            return html! { <aside class="pinned" hidden=true></aside> };
        };
        let (name, parts) = source.parts();
        let scale = parts.iter().map(|p| p.2).sum::<u64>().max(1);
        let moved = match self.moved {
            0 => String::new(),
            d if d > 0 => format!(" (+{} by the last change)", grouped(d.unsigned_abs())),
            d => format!(" (−{} by the last change)", grouped(d.unsigned_abs())),
        };
        html! {
            <aside class="pinned" aria-label="The request, pinned">
                <p class="pinned-total">
                    <a href="#strip-h">{ name }</a>{ ": " }<strong>{ grouped(sent(&parts)) }</strong>{ " tokens sent" }
                    <span class="muted">{ moved }</span>
                </p>
                <div class="lane lane-pinned" aria-hidden="true">
                    { for parts.iter().map(|(class, name, tokens, ghost)| html! {
                        <span class={classes!("seg", *class, ghost.then_some("ghost"))}
                            style={format!("width: {:.3}%", *tokens as f64 * 100.0 / scale as f64)}
                            title={format!("{name}: {} tokens", grouped(*tokens))}></span>
                    }) }
                </div>
            </aside>
        }
    }

    fn rendered(&mut self, ctx: &Context<Self>, _: bool) {
        self.observe(ctx);
    }

    fn destroy(&mut self, _: &Context<Self>) {
        if let Some((_, o, _)) = self.observed.take() {
            o.disconnect();
        }
    }
}
