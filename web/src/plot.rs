//! The session chart's two drawn layers, each a component of its own so
//! that a render that changes neither (the cursor moved to the request
//! picked, a control the chart does not show) draws neither again: the
//! backdrop (chapters, ticks, threshold lines, marks) and the series (the
//! saw-tooth, the what-if, the points where a tier fired). A session with
//! 200k requests and 100k boundaries made each render of the page rebuild
//! both (its paths and its marks, one per pixel column) and Yew compare
//! them again.

use std::collections::HashMap;
use std::rc::Rc;

use compaction_core::thresholds::Thresholds;
use yew::prelude::*;

use crate::chart::{
    dense_classes, labelled, one_per_column, path, short, spread, text_width, top_of, y_of, Band, Frame,
    Mark, Point, BOTTOM, H, TOP,
};

/// What both layers are drawn from.
#[derive(Debug, Clone, PartialEq)]
pub struct Layers {
    /// One point per request.
    pub points: Rc<Vec<Option<Point>>>,
    /// The what-if's series, if any.
    pub what_if: Option<Rc<Vec<Option<Point>>>>,
    /// The lines.
    pub lines: Thresholds,
    /// Tier events and boundaries.
    pub marks: Rc<Vec<Mark>>,
    /// Chapters.
    pub bands: Vec<Band>,
    /// The chart's geometry.
    pub frame: Frame,
}

impl Layers {
    /// The scale's top: the window, or the largest count of either series.
    fn top(&self) -> u64 {
        top_of(&self.points, &self.lines).max(self.what_if.as_ref().map_or(0, |w| top_of(w, &self.lines)))
    }
}

/// The marks drawn of `marks` on a chart of `n` requests: one per pixel
/// column (and class and label); a session with 100k boundaries would
/// otherwise draw 300k nodes, most on top of others.
pub fn shown<'a>(marks: &'a [Mark], f: &Frame, n: usize) -> Vec<&'a Mark> {
    one_per_column(marks, |m| f.x(m.at.min(n.saturating_sub(1)), n))
}

/// Props of [`Backdrop`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct BackdropProps {
    /// What it is drawn from.
    pub layers: Layers,
    /// The marks' labels' widths as the browser drew them, by text.
    pub measured: Rc<HashMap<String, f64>>,
}

/// Chapters, ticks, the threshold lines and the marks.
#[component]
pub fn Backdrop(props: &BackdropProps) -> Html {
    let Layers {
        points,
        lines: t,
        marks,
        bands,
        frame: f,
        ..
    } = &props.layers;
    let n = points.len();
    let top = props.layers.top();
    let shown = shown(marks, f, n);
    let lines = [
        ("precompute", "pre", t.precompute, "l-precompute"),
        ("warn", "warn", t.warn, "l-warn"),
        ("compact", "compact", t.compact, "l-compact"),
        ("blocked", "blocked", t.blocked, "l-blocked"),
    ];
    let ticks = [0, top / 4, top / 2, top * 3 / 4, top];
    let xs: Vec<f64> = shown
        .iter()
        .map(|m| f.x(m.at.min(n.saturating_sub(1)), n))
        .collect();
    let dense = dense_classes(&shown, f.plot_right() - f.left);
    // A dense class's marks keep their line and tooltip, not a label (the
    // same text over and over).
    let widths: Vec<f64> = shown
        .iter()
        .map(|m| match dense.contains(&m.class) {
            true => f64::INFINITY,
            false => props
                .measured
                .get(&m.label)
                .copied()
                .unwrap_or_else(|| text_width(&m.label)),
        })
        .collect();
    let placed = labelled(&xs, &widths, f.left, f.plot_right());
    let label_y = spread(&lines.iter().map(|l| y_of(l.2, top)).collect::<Vec<_>>(), 14.0);
    let (left, right) = (f.left, f.plot_right());
    let h_line = |y: f64| html! { <line x1={left.to_string()} x2={right.to_string()} y1={format!("{y:.1}")} y2={format!("{y:.1}")} /> };
    html! { <>
        { for bands.iter().enumerate().map(|(k, b)| {
            let half = if n > 1 { (f.x(1, n) - f.x(0, n)) / 2.0 } else { 0.0 };
            let x0 = (f.x(b.first.min(n.saturating_sub(1)), n) - half).max(left);
            let x1 = (f.x(b.end.saturating_sub(1).min(n.saturating_sub(1)), n) + half).min(right);
            html! { <rect class={classes!("band", if k % 2 == 0 { "band-even" } else { "band-odd" })}
                x={format!("{x0:.1}")} y={TOP.to_string()} width={format!("{:.1}", (x1 - x0).max(0.0))}
                height={(H - TOP - BOTTOM).to_string()} data-chapter={b.name.clone()}><title>{ b.name.clone() }</title></rect> }
        }) }
        { for ticks.iter().map(|&v| html! { <g class="tick">
            { h_line(y_of(v, top)) }
            <text x={(left - 6.0).to_string()} y={format!("{:.1}", y_of(v, top) + 4.0)} text-anchor="end">{ short(v) }</text>
        </g> }) }
        { for lines.iter().zip(&label_y).map(|(&(name, brief, v, class), ly)| html! { <g class={classes!("line", class)}>
            { h_line(y_of(v, top)) }
            <text x={(right + 6.0).to_string()} y={format!("{:.1}", ly + 4.0)}>{ format!("{} {}", if f.narrow { brief } else { name }, short(v)) }</text>
        </g> }) }
        { for shown.iter().zip(placed).map(|(m, (x, place))| {
            let dense = dense.contains(&m.class).then_some("dense");
            html! { <g class={classes!("mark", m.class, dense)}>
                <line x1={format!("{x:.1}")} x2={format!("{x:.1}")} y1={TOP.to_string()} y2={(H - BOTTOM).to_string()} />
                if let Some((row, end)) = place {
                    <text x={format!("{:.1}", if end { x - 3.0 } else { x + 3.0 })} y={(TOP + 10.0 + 14.0 * row as f64).to_string()}
                        text-anchor={if end { "end" } else { "start" }}>{ m.label.clone() }</text>
                }
                <title>{ m.label.clone() }</title>
            </g> }
        }) }
    </> }
}

/// Props of [`Series`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct SeriesProps {
    /// What it is drawn from.
    pub layers: Layers,
}

/// The saw-tooth, the what-if dashed, and a dot where a tier fired.
#[component]
pub fn Series(props: &SeriesProps) -> Html {
    let (points, f) = (&props.layers.points, &props.layers.frame);
    let n = points.len();
    let top = props.layers.top();
    html! { <>
        <path class="series" d={path(points, top, f)} />
        if let Some(w) = &props.layers.what_if {
            <path class="series what-if" d={path(w, top, f)}><title>{ "the what-if's count under these settings" }</title></path>
        }
        { for points.iter().enumerate().filter_map(|(i, p)| p.map(|p| (i, p))).filter(|(_, p)| p.after != p.before).map(|(i, p)| html! {
            <circle class="fired" cx={format!("{:.1}", f.x(i, n))} cy={format!("{:.1}", y_of(p.after, top))} r="3.5" />
        }) }
    </> }
}
