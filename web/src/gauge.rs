//! The threshold gauge: 0 … window, with the budget and the four lines,
//! each labelled with its value. Layout only; the numbers are the engine's.

use compaction_core::figures::grouped;
use compaction_core::thresholds::Thresholds;
use yew::prelude::*;

/// Width of the SVG coordinate space.
const WIDTH: f64 = 1000.0;
/// Labels closer than this (in SVG units) go on separate rows.
const LABEL_GAP: f64 = 150.0;
/// Height of one label row.
const ROW_HEIGHT: f64 = 18.0;
/// Top of the bar.
const BAR_TOP: f64 = 8.0;
/// Height of the bar.
const BAR_HEIGHT: f64 = 28.0;

/// One labelled line on the gauge.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// The line's name, as the engine calls it.
    pub name: &'static str,
    /// Its value in tokens.
    pub tokens: u64,
    /// Horizontal position in SVG units (0 … [`WIDTH`]).
    pub x: f64,
    /// Label row, 0 nearest the bar, so close labels do not overlap.
    pub row: usize,
}

/// The gauge's marks in ascending position, with label rows assigned.
pub fn marks(t: &Thresholds) -> Vec<Mark> {
    let mut lines = vec![
        ("precompute", t.precompute),
        ("warn", t.warn),
        ("compact", t.compact),
        ("blocked", t.blocked),
        ("budget", t.budget),
    ];
    lines.sort_by_key(|&(_, tokens)| tokens);
    let scale = WIDTH / t.window.max(1) as f64;
    let mut last_x_per_row: Vec<f64> = Vec::new();
    lines
        .into_iter()
        .map(|(name, tokens)| {
            let x = (tokens as f64 * scale).min(WIDTH);
            let row = last_x_per_row
                .iter()
                .position(|&last| x - last >= LABEL_GAP)
                .unwrap_or(last_x_per_row.len());
            if row == last_x_per_row.len() {
                last_x_per_row.push(x);
            } else {
                last_x_per_row[row] = x;
            }
            Mark { name, tokens, x, row }
        })
        .collect()
}

/// Props of [`Gauge`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct GaugeProps {
    /// The engine's lines.
    pub thresholds: Thresholds,
}

/// The gauge as SVG, plus the same figures as a table (colour is never the
/// only signal, and screen readers get the numbers).
#[component]
pub fn Gauge(props: &GaugeProps) -> Html {
    let t = &props.thresholds;
    let marks = marks(t);
    let rows = marks.iter().map(|m| m.row).max().unwrap_or(0) + 1;
    let label_top = BAR_TOP + BAR_HEIGHT + 16.0;
    let height = label_top + rows as f64 * ROW_HEIGHT + 8.0;
    let scale = WIDTH / t.window.max(1) as f64;
    let zone = |from: u64, to: u64, class: &'static str| {
        let x = from as f64 * scale;
        let w = (to.saturating_sub(from)) as f64 * scale;
        html! { <rect class={classes!("zone", class)} x={fmt(x)} y={fmt(BAR_TOP)} width={fmt(w)} height={fmt(BAR_HEIGHT)} /> }
    };
    let low = t.precompute.min(t.warn);
    html! {
        <figure class="gauge">
            <svg viewBox={format!("0 0 {WIDTH} {}", fmt(height))} role="img"
                 aria-labelledby="gauge-title">
                <title id="gauge-title">{ format!(
                    "Threshold gauge from 0 to {} tokens: precompute {}, warn {}, compact {}, blocked {}, budget {}",
                    grouped(t.window), grouped(t.precompute), grouped(t.warn),
                    grouped(t.compact), grouped(t.blocked), grouped(t.budget)) }</title>
                { zone(0, low, "zone-free") }
                { zone(low, t.compact, "zone-warn") }
                { zone(t.compact, t.blocked, "zone-compact") }
                { zone(t.blocked, t.budget, "zone-blocked") }
                { zone(t.budget, t.window, "zone-reserve") }
                { for marks.iter().map(|m| {
                    let y = label_top + m.row as f64 * ROW_HEIGHT;
                    let anchor = if m.x > WIDTH - 120.0 { "end" } else { "start" };
                    html! {
                        <g class={classes!("mark", format!("mark-{}", m.name))}>
                            <line x1={fmt(m.x)} x2={fmt(m.x)} y1={fmt(BAR_TOP - 4.0)} y2={fmt(y - 12.0)} />
                            <text x={fmt(m.x)} y={fmt(y)} text-anchor={anchor}>
                                { format!("{} {}", m.name, grouped(m.tokens)) }
                            </text>
                        </g>
                    }
                }) }
                <text class="axis" x="0" y={fmt(BAR_TOP - 1.0)} dy="-2">{ "0" }</text>
            </svg>
            <figcaption>
                { format!("0 … {} tokens (window). Reserve for the reply: {} tokens.",
                    grouped(t.window), grouped(t.reserve)) }
            </figcaption>
        </figure>
    }
}

fn fmt(v: f64) -> String {
    format!("{v:.1}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use compaction_core::thresholds::ThresholdSettings;

    fn lines(window: u64, max_output: u64) -> Thresholds {
        Thresholds::compute(&ThresholdSettings::for_window(window).with_max_output_tokens(max_output))
            .unwrap()
    }

    #[test]
    fn marks_are_ordered_and_scaled_to_the_window() {
        let m = marks(&lines(200_000, 20_000));
        let names: Vec<_> = m.iter().map(|m| m.name).collect();
        assert_eq!(names, ["precompute", "warn", "compact", "blocked", "budget"]);
        assert_eq!(m[0].x, 720.0);
        assert_eq!(m[4].x, 900.0);
    }

    #[test]
    fn close_labels_take_separate_rows() {
        // 784k, 947k, 967k, 977k, 980k on a 1M window: the last four are
        // within a few pixels of each other.
        let m = marks(&lines(1_000_000, 32_000));
        let rows: Vec<_> = m.iter().map(|m| m.row).collect();
        assert_eq!(rows, [0, 0, 1, 2, 3]);
    }

    #[test]
    fn far_apart_labels_share_a_row() {
        let m = marks(&lines(60_000, 20_000));
        // warn 7,000 (x≈117), precompute 32,000 (x≈533), compact 27,000
        // (x=450), blocked 37,000 (x≈617), budget 40,000 (x≈667).
        let by_name = |n: &str| m.iter().find(|m| m.name == n).unwrap().row;
        assert_eq!(by_name("warn"), 0);
        assert_eq!(by_name("compact"), 0);
        assert_ne!(by_name("precompute"), by_name("compact"));
    }
}
