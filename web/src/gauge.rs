//! The threshold gauge: 0 … window, with the budget and the four lines,
//! each labelled with its value. Layout only; the numbers are the engine's.
//!
//! The bar is SVG; the labels are HTML text, one row per line in ascending
//! order, each with a tick at its line's position, so they never overlap and
//! stay readable on a phone.

use compaction_core::thresholds::Thresholds;
use compaction_scenarios::figures::grouped;
use yew::prelude::*;

/// Labels right of this position (percent) hang to the left of their tick.
const FLIP_AT_PCT: f64 = 60.0;

/// One labelled line on the gauge.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// The line's name, as the engine calls it.
    pub name: &'static str,
    /// Its value in tokens.
    pub tokens: u64,
    /// Position along the bar, percent of the window (0 … 100).
    pub pct: f64,
    /// Whether the label hangs left of the tick (near the right edge).
    pub hangs_left: bool,
}

/// The gauge's marks in ascending position.
pub fn marks(t: &Thresholds) -> Vec<Mark> {
    let mut lines = [
        ("precompute", t.precompute),
        ("warn", t.warn),
        ("compact", t.compact),
        ("blocked", t.blocked),
        ("budget", t.budget),
    ];
    lines.sort_by_key(|&(_, tokens)| tokens);
    lines
        .into_iter()
        .map(|(name, tokens)| {
            let pct = percent_of_window(t, tokens);
            Mark {
                name,
                tokens,
                pct,
                hangs_left: pct > FLIP_AT_PCT,
            }
        })
        .collect()
}

fn percent_of_window(t: &Thresholds, tokens: u64) -> f64 {
    (tokens as f64 * 100.0 / t.window.max(1) as f64).min(100.0)
}

/// Props of [`Gauge`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct GaugeProps {
    /// The engine's lines.
    pub thresholds: Thresholds,
}

/// The gauge. Zones are coloured, and every line is also named in text
/// (colour is never the only signal).
#[component]
pub fn Gauge(props: &GaugeProps) -> Html {
    let t = &props.thresholds;
    let marks = marks(t);
    let low = t.precompute.min(t.warn);
    let zone = |from: u64, to: u64, class: &'static str| {
        let x = percent_of_window(t, from);
        let width = percent_of_window(t, to) - x;
        html! { <rect class={classes!("zone", class)} x={pct(x)} y="0" width={pct(width.max(0.0))} height="100%" /> }
    };
    html! {
        <figure class="gauge">
            <svg class="gauge-bar" role="img" aria-labelledby="gauge-title" preserveAspectRatio="none">
                <title id="gauge-title">{ format!(
                    "Threshold gauge from 0 to {} tokens: precompute {}, warn {}, compact {}, blocked {}, budget {}",
                    grouped(t.window), grouped(t.precompute), grouped(t.warn),
                    grouped(t.compact), grouped(t.blocked), grouped(t.budget)) }</title>
                { zone(0, low, "zone-free") }
                { zone(low, t.compact, "zone-warn") }
                { zone(t.compact, t.blocked, "zone-compact") }
                { zone(t.blocked, t.budget, "zone-blocked") }
                { zone(t.budget, t.window, "zone-reserve") }
                { for marks.iter().map(|m| html! {
                    <line class={classes!("tick", format!("tick-{}", m.name))}
                          x1={pct(m.pct)} x2={pct(m.pct)} y1="0" y2="100%" />
                }) }
            </svg>
            <div class="gauge-axis" aria-hidden="true">
                <span>{ "0" }</span>
                <span>{ format!("window {}", grouped(t.window)) }</span>
            </div>
            <ol class="gauge-labels" aria-hidden="true">
                { for marks.iter().map(|m| html! {
                    <li class={classes!(format!("mark-{}", m.name), m.hangs_left.then_some("hangs-left"))}
                        style={format!("--x: {}", pct(m.pct))}>
                        <span>{ format!("{} {}", m.name, grouped(m.tokens)) }</span>
                    </li>
                }) }
            </ol>
            <figcaption>
                { format!("0 … {} tokens (window). Reserve for the reply: {} tokens.",
                    grouped(t.window), grouped(t.reserve)) }
            </figcaption>
        </figure>
    }
}

fn pct(v: f64) -> String {
    format!("{v:.2}%")
}

/// Props of [`Readout`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ReadoutProps {
    /// The engine's lines.
    pub thresholds: Thresholds,
}

/// The lines as a table, with what each one does (R1.7).
#[component]
pub fn Readout(props: &ReadoutProps) -> Html {
    let t = &props.thresholds;
    let rows = [
        ("budget", t.budget, "window − reserve for the reply"),
        ("precompute", t.precompute, "a background summary starts"),
        ("warn", t.warn, "the host shows “N tokens left”"),
        ("compact", t.compact, "auto-compaction runs"),
        ("blocked", t.blocked, "calls are refused until the host compacts"),
    ];
    html! {
        <table class="readout" aria-label="Threshold lines">
            <thead><tr><th scope="col">{ "line" }</th><th scope="col">{ "tokens" }</th><th scope="col">{ "what happens there" }</th></tr></thead>
            <tbody>
                { for rows.iter().map(|(name, tokens, what)| html! {
                    <tr data-line={*name}>
                        <th scope="row">{ *name }</th>
                        <td class="tokens">{ grouped(*tokens) }</td>
                        <td>{ *what }</td>
                    </tr>
                }) }
            </tbody>
        </table>
    }
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
        assert_eq!(m[0].pct, 72.0);
        assert_eq!(m[4].pct, 90.0);
    }

    #[test]
    fn labels_near_the_right_edge_hang_left() {
        let m = marks(&lines(60_000, 20_000));
        // warn 7,000 is at 11.7%: its label reads rightwards; budget 40,000
        // at 66.7% hangs left.
        assert_eq!((m[0].name, m[0].hangs_left), ("warn", false));
        assert_eq!((m[4].name, m[4].hangs_left), ("budget", true));
    }

    #[test]
    fn positions_are_clamped_to_the_bar() {
        let mut t = lines(200_000, 20_000);
        t.ceiling = 400_000;
        t.blocked = 397_000;
        let blocked = marks(&t).into_iter().find(|m| m.name == "blocked").unwrap();
        assert_eq!(blocked.pct, 100.0);
    }
}
