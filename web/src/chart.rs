//! The session chart (SVG): tokens per request with the precompute, warn,
//! compact and blocked lines, and where each tier fired (the saw-tooth).
//! Layout only: every value is the engine's (a scenario's moments, or an
//! imported session's reported usage and replay).

use std::collections::HashMap;
use std::fmt::Write;
use std::rc::Rc;

use compaction_core::thresholds::Thresholds;
use compaction_scenarios::figures::grouped;
use wasm_bindgen::JsCast;
use yew::prelude::*;

pub use crate::placement::{dense_classes, labelled, one_per_column, spread, text_width};

/// A request on the chart: the count before it and after the engine's
/// steps (equal when nothing fired).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Point {
    /// Tokens before.
    pub before: u64,
    /// Tokens after.
    pub after: u64,
}

/// A labelled mark at a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    /// The request's index.
    pub at: usize,
    /// Short text on the chart.
    pub label: String,
    /// CSS class (its line style and glyph).
    pub class: &'static str,
}

/// A chapter of the session, shaded behind its requests.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    /// Its first request.
    pub first: usize,
    /// One past its last request.
    pub end: usize,
    /// Its name (a tooltip: the chips above the chart carry the text).
    pub name: String,
}

/// Props of [`Chart`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ChartProps {
    /// One point per request (`None`: no figure for it); shared, so that
    /// a session's 500k points are neither copied nor compared per render.
    pub points: Rc<Vec<Option<Point>>>,
    /// The lines.
    pub lines: Thresholds,
    /// Tier events and boundaries.
    pub marks: Rc<Vec<Mark>>,
    /// The request highlighted.
    pub current: Option<usize>,
    /// What the chart shows, for its title.
    pub title: AttrValue,
    /// Chapters, shaded in turn.
    #[prop_or_default]
    pub bands: Vec<Band>,
    /// A second series, drawn dashed: an imported session's count under
    /// the current settings (the what-if), one per request.
    #[prop_or_default]
    pub what_if: Option<Rc<Vec<Option<Point>>>>,
    /// Picks a request: a click on the plot (an imported session's walk).
    #[prop_or_default]
    pub on_pick: Option<Callback<usize>>,
}

pub(crate) const H: f64 = 300.0;
pub(crate) const TOP: f64 = 16.0;
pub(crate) const BOTTOM: f64 = 34.0;

/// The narrowest the chart is drawn: below it, the SVG would be scaled
/// down and its text fall under 11 px (a 320 px phone leaves about 270).
const MIN_W: f64 = 160.0;

/// The chart's horizontal geometry, in CSS pixels: the SVG is drawn at the
/// width it is shown at (one unit, one pixel), so its text keeps its CSS
/// size at every width.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    /// Total width.
    pub w: f64,
    /// Room left of the plot (tick labels).
    pub left: f64,
    /// Room right of the plot (the lines' labels).
    pub right: f64,
    /// Narrow: the lines' labels use short names.
    pub narrow: bool,
}

impl Frame {
    /// The frame for a figure `width` pixels wide (0: not measured yet).
    pub fn of(width: f64) -> Frame {
        let w = if width > 0.0 { width.max(MIN_W) } else { 900.0 };
        let narrow = w < 600.0;
        Frame {
            w,
            left: if narrow { 40.0 } else { 60.0 },
            right: if narrow { 94.0 } else { 124.0 },
            narrow,
        }
    }

    /// The plot's right edge.
    pub fn plot_right(&self) -> f64 {
        self.w - self.right
    }

    /// The request of `n` nearest to `x`.
    pub fn index_at(&self, x: f64, n: usize) -> usize {
        let span = (self.plot_right() - self.left).max(1.0);
        if n <= 1 {
            return 0;
        }
        let i = ((x - self.left) / span * (n - 1) as f64).round();
        (i.max(0.0) as usize).min(n - 1)
    }

    /// x of request `i` of `n`.
    pub fn x(&self, i: usize, n: usize) -> f64 {
        let span = self.plot_right() - self.left;
        if n <= 1 {
            self.left + span / 2.0
        } else {
            self.left + span * i as f64 / (n - 1) as f64
        }
    }
}

/// y of `tokens` on a scale topping at `top`.
pub fn y_of(tokens: u64, top: u64) -> f64 {
    let span = H - TOP - BOTTOM;
    TOP + span * (1.0 - (tokens as f64 / top.max(1) as f64).min(1.0))
}

/// The scale's top: the window, or the largest count if higher.
pub fn top_of(points: &[Option<Point>], lines: &Thresholds) -> u64 {
    points
        .iter()
        .flatten()
        .map(|p| p.before.max(p.after))
        .max()
        .unwrap_or(0)
        .max(lines.window)
}

/// The saw-tooth path: up to each request's count, then down to what the
/// engine left. Requests that share a pixel column are drawn as one
/// vertical from their lowest to their highest count (a session with 500k
/// requests would otherwise draw a path of 12 MB).
pub fn path(points: &[Option<Point>], top: u64, f: &Frame) -> String {
    let n = points.len();
    let columns = (f.plot_right() - f.left).max(1.0) as usize + 1;
    if n > 2 * columns {
        return column_path(points, top, f);
    }
    let mut d = String::with_capacity(points.len() * 24);
    let mut pen_down = false;
    for (i, p) in points.iter().enumerate() {
        let Some(p) = p else {
            pen_down = false;
            continue;
        };
        let x = f.x(i, n);
        // Written in place: one allocation for the whole path, not one a point.
        let _ = write!(
            d,
            "{}{x:.1} {:.1} V{:.1} ",
            if pen_down { "L" } else { "M" },
            y_of(p.before, top),
            y_of(p.after, top)
        );
        pen_down = true;
    }
    d.truncate(d.trim_end().len());
    d
}

/// [`path`] for more requests than pixel columns: per column, from the
/// first request's count through the lowest and highest to the last
/// one's; a column with no figure lifts the pen.
fn column_path(points: &[Option<Point>], top: u64, f: &Frame) -> String {
    let n = points.len();
    let mut d = String::new();
    let mut pen_down = false;
    let mut column: Option<(i64, u64, u64, u64, u64)> = None;
    let draw =
        |d: &mut String, pen_down: &mut bool, (x, first, low, high, last): (i64, u64, u64, u64, u64)| {
            let _ = write!(
                d,
                "{}{x}.0 {:.1} V{:.1} V{:.1} V{:.1} ",
                if *pen_down { "L" } else { "M" },
                y_of(first, top),
                y_of(high, top),
                y_of(low, top),
                y_of(last, top)
            );
            *pen_down = true;
        };
    for (i, p) in points.iter().enumerate() {
        let x = f.x(i, n).round() as i64;
        let Some(p) = p else {
            if let Some(c) = column.take() {
                draw(&mut d, &mut pen_down, c);
            }
            pen_down = false;
            continue;
        };
        let (low, high) = (p.before.min(p.after), p.before.max(p.after));
        column = match column {
            Some((cx, first, l, h, _)) if cx == x => Some((cx, first, l.min(low), h.max(high), p.after)),
            other => {
                if let Some(c) = other {
                    draw(&mut d, &mut pen_down, c);
                }
                Some((x, p.before, low, high, p.after))
            }
        };
    }
    if let Some(c) = column {
        draw(&mut d, &mut pen_down, c);
    }
    d.truncate(d.trim_end().len());
    d
}

/// The chart, drawn at the width its figure has on screen.
#[component]
pub fn Chart(props: &ChartProps) -> Html {
    let figure = use_node_ref();
    let width = use_state(|| 0.0_f64);
    let f = Frame::of(*width);
    let n = props.points.len();
    // The marks' labels as the browser draws them (width in px, by text):
    // measured after a render from hidden copies, so labels are placed by
    // their real width, not an estimate, whatever the font.
    // Measured when the labels change (a measure forces a layout).
    let measured = use_state(|| Rc::new(HashMap::<String, f64>::new()));
    let rulers = use_node_ref();
    // Each measured in its class (a boundary's label is bold); worked out
    // again only when the marks or the width change (100k boundaries are
    // 100k marks).
    let distinct = use_memo((props.marks.clone(), f), |(marks, f)| {
        let mut distinct: Vec<(String, &'static str)> = crate::plot::shown(marks, f, n)
            .iter()
            .map(|m| (m.label.clone(), m.class))
            .collect();
        distinct.sort_unstable();
        distinct.dedup();
        distinct
    });
    {
        let rulers = rulers.clone();
        let measured = measured.clone();
        use_effect_with((*distinct).clone(), move |_| {
            let Some(texts) = rulers
                .cast::<web_sys::Element>()
                .and_then(|g| g.query_selector_all("text").ok())
            else {
                return;
            };
            let mut next = (**measured).clone();
            for i in 0..texts.length() {
                let Some(t) = texts
                    .item(i)
                    .and_then(|n| n.dyn_into::<web_sys::SvgTextContentElement>().ok())
                else {
                    continue;
                };
                let (label, w) = (
                    t.text_content().unwrap_or_default(),
                    f64::from(t.get_computed_text_length()) + 4.0,
                );
                if next.get(&label).is_none_or(|old| (old - w).abs() > 0.5) {
                    next.insert(label, w);
                }
            }
            if next.len() != measured.len() || next.iter().any(|(k, v)| measured.get(k) != Some(v)) {
                measured.set(Rc::new(next));
            }
        });
    }
    {
        // Its width as laid out, read when it changes (the window resized,
        // or a layout change moved it), by a ResizeObserver: its callback
        // runs after the frame's layout, so reading the width there forces
        // none. (Read in an effect after every render, it forced that
        // layout early instead; the frame took as long either way.)
        let figure = figure.clone();
        let width = width.clone();
        use_effect_with((), move |()| {
            let el = figure.cast::<web_sys::Element>();
            let on_resize = wasm_bindgen::closure::Closure::<dyn Fn()>::new({
                let el = el.clone();
                // What it was last set to: a change of height alone (a
                // longer caption) draws nothing again.
                let last = std::cell::Cell::new(-1.0_f64);
                move || {
                    let Some(el) = &el else { return };
                    let w = f64::from(el.client_width());
                    if (w - last.get()).abs() >= 1.0 {
                        last.set(w);
                        width.set(w);
                    }
                }
            });
            let observer = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()).ok();
            if let (Some(o), Some(el)) = (&observer, &el) {
                o.observe(el);
            }
            move || {
                if let Some(o) = observer {
                    o.disconnect();
                }
                drop(on_resize);
            }
        });
    }
    let t = &props.lines;
    let (left, right) = (f.left, f.plot_right());
    let svg = use_node_ref();
    let onclick = props.on_pick.clone().map(|pick| {
        let svg = svg.clone();
        Callback::from(move |e: MouseEvent| {
            if let Some(el) = svg.cast::<web_sys::Element>() {
                let r = el.get_bounding_client_rect();
                // One SVG unit is one CSS pixel (the chart is drawn at its width).
                let scale = if r.width() > 0.0 { f.w / r.width() } else { 1.0 };
                pick.emit(f.index_at((f64::from(e.client_x()) - r.left()) * scale, n));
            }
        })
    });
    // What the drawing's two layers are drawn from: neither is drawn again
    // when only the cursor moves (a request picked) or when an unrelated
    // control changes (their props compare equal; a session's points and
    // marks by pointer).
    let layers = crate::plot::Layers {
        points: props.points.clone(),
        what_if: props.what_if.clone(),
        lines: props.lines.clone(),
        marks: props.marks.clone(),
        bands: props.bands.clone(),
        frame: f,
    };
    html! {
        <figure class="chart" ref={figure}>
            <svg ref={svg} viewBox={format!("0 0 {:.0} {H}", f.w)} role="img" aria-labelledby="chart-title chart-desc"
                class={classes!(onclick.is_some().then_some("pickable"))} {onclick}>
                <title id="chart-title">{ props.title.clone() }</title>
                <desc id="chart-desc">{ format!(
                    "{n} requests; lines: precompute {}, warn {}, compact {}, blocked {}; {} marked events",
                    grouped(t.precompute), grouped(t.warn), grouped(t.compact), grouped(t.blocked), props.marks.len()) }</desc>
                <crate::plot::Backdrop layers={layers.clone()} measured={(*measured).clone()} />
                if let Some(c) = props.current.filter(|&c| c < n) {
                    <rect class="cursor" x={format!("{:.1}", f.x(c, n) - 6.0)} y={TOP.to_string()} width="12" height={(H - TOP - BOTTOM).to_string()} />
                }
                <crate::plot::Series {layers} />
                <text class="axis" x={((left + right) / 2.0).to_string()} y={(H - 8.0).to_string()} text-anchor="middle">{ "requests, in order →" }</text>
                <g class="rulers" ref={rulers} visibility="hidden" aria-hidden="true">
                    { for distinct.iter().map(|(l, class)| html! { <g class="mark" data-ruler={*class}><text x="0" y="0">{ l.clone() }</text></g> }) }
                </g>
            </svg>
            <figcaption>{ "Tokens in each request (estimated where no usage was reported). A drop is the engine freeing room; dashed lines are the thresholds; labelled verticals are where a tier fired or a boundary was written." }
                if props.what_if.is_some() { { " The solid series is the session's reported usage; the dashed orange one, the what-if's count under these settings." } }
                if props.on_pick.is_some() { { " Click any point to see that request in the strip." } }
            </figcaption>
        </figure>
    }
}

/// 167000 → "167k".
pub fn short(v: u64) -> String {
    if v >= 1_000_000 && v % 100_000 == 0 {
        format!("{}.{}M", v / 1_000_000, (v % 1_000_000) / 100_000)
    } else if v >= 10_000 {
        format!("{}k", (v + 500) / 1_000)
    } else {
        grouped(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_saw_tooth_goes_up_then_down_and_breaks_on_gaps() {
        let p = |before, after| Some(Point { before, after });
        let d = path(&[p(0, 0), p(100, 50), None, p(80, 80)], 100, &Frame::of(900.0));
        assert_eq!(d.matches('M').count(), 2, "{d}");
        assert!(d.contains(&format!("V{:.1}", y_of(50, 100))));
    }

    #[test]
    fn a_request_per_pixel_or_more_is_drawn_once_per_column() {
        let f = Frame::of(900.0);
        let points: Vec<Option<Point>> = (0..500_000u64)
            .map(|i| {
                Some(Point {
                    before: 1_000 + i % 7 * 100,
                    after: 1_000 + i % 7 * 100,
                })
            })
            .collect();
        let d = path(&points, 2_000, &f);
        let columns = (f.plot_right() - f.left) as usize + 1;
        assert!(
            d.matches(['M', 'L']).count() <= columns,
            "{} segments",
            d.matches(['M', 'L']).count()
        );
        // Every column spans the lowest and highest count of its requests.
        assert!(d.contains(&format!("V{:.1} V{:.1}", y_of(1_600, 2_000), y_of(1_000, 2_000))));
        // A gap still lifts the pen.
        let mut gappy = points;
        gappy[250_000] = None;
        assert_eq!(path(&gappy, 2_000, &f).matches('M').count(), 2);
    }

    #[test]
    fn a_click_picks_the_nearest_request() {
        let f = Frame::of(900.0);
        assert_eq!(f.index_at(f.x(37, 100), 100), 37);
        assert_eq!(f.index_at(0.0, 100), 0);
        assert_eq!(f.index_at(5_000.0, 100), 99);
        assert_eq!(f.index_at(f.x(0, 1), 1), 0);
    }

    #[test]
    fn scale_and_labels() {
        assert_eq!(y_of(0, 100), H - BOTTOM);
        assert_eq!(y_of(200, 100), TOP);
        let f = Frame::of(390.0);
        assert_eq!(f.x(0, 1), f.x(5, 1));
        assert!(f.narrow && !Frame::of(900.0).narrow);
        assert_eq!(Frame::of(0.0).w, 900.0);
        assert_eq!(short(167_000), "167k");
        assert_eq!(short(1_000_000), "1.0M");
        assert_eq!(short(9_500), "9,500");
    }
}
