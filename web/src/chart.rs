//! The session chart (SVG): tokens per request with the precompute, warn,
//! compact and blocked lines, and where each tier fired (the saw-tooth).
//! Layout only: every value is the engine's (a scenario's moments, or an
//! imported session's reported usage and replay).

use std::fmt::Write;

use compaction_core::thresholds::Thresholds;
use compaction_scenarios::figures::grouped;
use yew::prelude::*;

/// A request on the chart: the count before it and after the engine's
/// steps (equal when nothing fired).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Tokens before.
    pub before: u64,
    /// Tokens after.
    pub after: u64,
}

/// A labelled mark at a request.
#[derive(Debug, Clone, PartialEq)]
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
    /// One point per request (`None`: no figure for it).
    pub points: Vec<Option<Point>>,
    /// The lines.
    pub lines: Thresholds,
    /// Tier events and boundaries.
    pub marks: Vec<Mark>,
    /// The request highlighted.
    pub current: Option<usize>,
    /// What the chart shows, for its title.
    pub title: AttrValue,
    /// Chapters, shaded in turn.
    #[prop_or_default]
    pub bands: Vec<Band>,
}

const W: f64 = 900.0;
const H: f64 = 300.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 110.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 34.0;

/// x of request `i` of `n`.
pub fn x_of(i: usize, n: usize) -> f64 {
    let span = W - LEFT - RIGHT;
    if n <= 1 {
        LEFT + span / 2.0
    } else {
        LEFT + span * i as f64 / (n - 1) as f64
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
/// engine left.
pub fn path(points: &[Option<Point>], top: u64) -> String {
    let n = points.len();
    let mut d = String::with_capacity(points.len() * 24);
    let mut pen_down = false;
    for (i, p) in points.iter().enumerate() {
        let Some(p) = p else {
            pen_down = false;
            continue;
        };
        let x = x_of(i, n);
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

/// The chart.
#[component]
pub fn Chart(props: &ChartProps) -> Html {
    let n = props.points.len();
    let top = top_of(&props.points, &props.lines);
    let t = &props.lines;
    let lines = [
        ("precompute", t.precompute, "l-precompute"),
        ("warn", t.warn, "l-warn"),
        ("compact", t.compact, "l-compact"),
        ("blocked", t.blocked, "l-blocked"),
    ];
    let ticks = [0, top / 4, top / 2, top * 3 / 4, top];
    let xs: Vec<f64> = props
        .marks
        .iter()
        .map(|m| x_of(m.at.min(n.saturating_sub(1)), n))
        .collect();
    let label_y = spread(&lines.iter().map(|l| y_of(l.1, top)).collect::<Vec<_>>(), 12.0);
    html! {
        <figure class="chart">
            <svg viewBox={format!("0 0 {W} {H}")} role="img" aria-labelledby="chart-title chart-desc">
                <title id="chart-title">{ props.title.clone() }</title>
                <desc id="chart-desc">{ format!(
                    "{n} requests; lines: precompute {}, warn {}, compact {}, blocked {}; {} marked events",
                    grouped(t.precompute), grouped(t.warn), grouped(t.compact), grouped(t.blocked), props.marks.len()) }</desc>
                { for props.bands.iter().enumerate().map(|(k, b)| {
                    let half = if n > 1 { (x_of(1, n) - x_of(0, n)) / 2.0 } else { 0.0 };
                    let x0 = x_of(b.first.min(n.saturating_sub(1)), n) - half;
                    let x1 = x_of(b.end.saturating_sub(1).min(n.saturating_sub(1)), n) + half;
                    html! { <rect class={classes!("band", if k % 2 == 0 { "band-even" } else { "band-odd" })}
                        x={format!("{:.1}", x0.max(LEFT))} y={TOP.to_string()} width={format!("{:.1}", (x1.min(W - RIGHT) - x0.max(LEFT)).max(0.0))}
                        height={(H - TOP - BOTTOM).to_string()} data-chapter={b.name.clone()}><title>{ b.name.clone() }</title></rect> }
                }) }
                { for ticks.iter().map(|&v| html! { <g class="tick">
                    <line x1={LEFT.to_string()} x2={(W - RIGHT).to_string()} y1={format!("{:.1}", y_of(v, top))} y2={format!("{:.1}", y_of(v, top))} />
                    <text x={(LEFT - 6.0).to_string()} y={format!("{:.1}", y_of(v, top) + 4.0)} text-anchor="end">{ short(v) }</text>
                </g> }) }
                { for lines.iter().zip(&label_y).map(|(&(name, v, class), ly)| html! { <g class={classes!("line", class)}>
                    <line x1={LEFT.to_string()} x2={(W - RIGHT).to_string()} y1={format!("{:.1}", y_of(v, top))} y2={format!("{:.1}", y_of(v, top))} />
                    <text x={(W - RIGHT + 6.0).to_string()} y={format!("{:.1}", ly + 4.0)}>{ format!("{name} {}", short(v)) }</text>
                </g> }) }
                { for props.marks.iter().zip(labelled(&xs)).map(|(m, (x, row))| {
                    html! { <g class={classes!("mark", m.class)}>
                        <line x1={format!("{x:.1}")} x2={format!("{x:.1}")} y1={TOP.to_string()} y2={(H - BOTTOM).to_string()} />
                        if let Some(row) = row {
                            <text x={format!("{:.1}", x + 3.0)} y={(TOP + 10.0 + 12.0 * row as f64).to_string()}>{ m.label.clone() }</text>
                        }
                        <title>{ m.label.clone() }</title>
                    </g> }
                }) }
                if let Some(c) = props.current.filter(|&c| c < n) {
                    <rect class="cursor" x={format!("{:.1}", x_of(c, n) - 6.0)} y={TOP.to_string()} width="12" height={(H - TOP - BOTTOM).to_string()} />
                }
                <path class="series" d={path(&props.points, top)} />
                { for props.points.iter().enumerate().filter_map(|(i, p)| p.map(|p| (i, p))).filter(|(_, p)| p.after != p.before).map(|(i, p)| html! {
                    <circle class="fired" cx={format!("{:.1}", x_of(i, n))} cy={format!("{:.1}", y_of(p.after, top))} r="3.5" />
                }) }
                <text class="axis" x={((LEFT + W - RIGHT) / 2.0).to_string()} y={(H - 8.0).to_string()} text-anchor="middle">{ "requests, in order →" }</text>
            </svg>
            <figcaption>{ "Tokens in each request (estimated where no usage was reported). A drop is the engine freeing room; dashed lines are the thresholds; labelled verticals are where a tier fired or a boundary was written." }</figcaption>
        </figure>
    }
}

/// Which marks get a text label, and on which of three rows: a label
/// needs 90 units of room on its row; the rest keep their line and tooltip
/// (the event list names them all).
pub fn labelled(xs: &[f64]) -> Vec<(f64, Option<usize>)> {
    let mut ends = [f64::NEG_INFINITY; 3];
    xs.iter()
        .map(|&x| {
            let row = ends.iter().position(|&end| x >= end);
            if let Some(r) = row {
                ends[r] = x + 90.0;
            }
            (x, row)
        })
        .collect()
}

/// Label positions near `ys` but at least `gap` apart, keeping their order
/// (the lines' labels never overlap).
pub fn spread(ys: &[f64], gap: f64) -> Vec<f64> {
    let mut order: Vec<usize> = (0..ys.len()).collect();
    order.sort_by(|&a, &b| ys[b].total_cmp(&ys[a]));
    let mut out = ys.to_vec();
    let mut floor = f64::INFINITY;
    for &i in &order {
        out[i] = ys[i].min(floor - gap);
        floor = out[i];
    }
    out
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
        let d = path(&[p(0, 0), p(100, 50), None, p(80, 80)], 100);
        assert_eq!(d.matches('M').count(), 2, "{d}");
        assert!(d.contains(&format!("V{:.1}", y_of(50, 100))));
    }

    #[test]
    fn crowded_marks_lose_their_text_not_their_line() {
        let rows: Vec<_> = labelled(&[0.0, 10.0, 20.0, 30.0, 100.0])
            .into_iter()
            .map(|(_, r)| r)
            .collect();
        assert_eq!(rows, [Some(0), Some(1), Some(2), None, Some(0)]);
    }

    #[test]
    fn labels_are_spread_apart_in_order() {
        let y = spread(&[100.0, 95.0, 50.0, 97.0], 10.0);
        assert_eq!(y, [100.0, 80.0, 50.0, 90.0]);
    }

    #[test]
    fn scale_and_labels() {
        assert_eq!(y_of(0, 100), H - BOTTOM);
        assert_eq!(y_of(200, 100), TOP);
        assert_eq!(x_of(0, 1), x_of(5, 1));
        assert_eq!(short(167_000), "167k");
        assert_eq!(short(1_000_000), "1.0M");
        assert_eq!(short(9_500), "9,500");
    }
}
