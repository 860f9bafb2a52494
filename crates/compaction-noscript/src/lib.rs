//! The sandbox's `<noscript>` content, rendered from the engine at build
//! time so that a page without JavaScript shows the engine's own numbers,
//! never numbers typed by hand.

use compaction_core::figures::grouped;
use compaction_core::thresholds::{ThresholdSettings, Thresholds};
use compaction_core::Error;

/// The comment in `web/index.html` that the generated HTML replaces.
pub const MARKER: &str = "<!-- noscript:generated -->";

/// The R1.3 worked example: window 200,000, max output 20,000.
pub fn thresholds_example() -> Result<String, Error> {
    let window = 200_000;
    let max_output = 20_000;
    let t = Thresholds::compute(&ThresholdSettings::for_window(window).with_max_output_tokens(max_output))?;
    let rows = [
        ("budget", "window − min(max output, 20,000 reserve cap)", t.budget),
        (
            "precompute",
            "budget − 20% of budget: a background summary starts",
            t.precompute,
        ),
        ("warn", "compact − 20,000: the host shows “N tokens left”", t.warn),
        ("compact", "budget − 13,000: auto-compaction runs", t.compact),
        (
            "blocked",
            "ceiling (= budget) − 3,000: calls are refused",
            t.blocked,
        ),
    ];
    let mut html = format!(
        "<section class=\"noscript-thresholds\" aria-labelledby=\"noscript-thresholds-title\">\n\
         <h2 id=\"noscript-thresholds-title\">Threshold lines (SPEC R1.3)</h2>\n\
         <p>A model with a {} token window and {} max output tokens:</p>\n\
         <table class=\"readout\">\n<thead><tr><th scope=\"col\">line</th><th scope=\"col\">tokens</th>\
         <th scope=\"col\">rule</th></tr></thead>\n<tbody>\n",
        grouped(window),
        grouped(max_output)
    );
    for (name, rule, value) in rows {
        html.push_str(&format!(
            "<tr data-line=\"{name}\"><th scope=\"row\">{name}</th><td>{}</td><td>{rule}</td></tr>\n",
            grouped(value)
        ));
    }
    html.push_str("</tbody>\n</table>\n</section>");
    Ok(html)
}

/// Replaces [`MARKER`] in `page` with the generated content; `None` when the
/// page has no marker (the hook then fails loudly rather than ship a page
/// without its fallback).
pub fn render_into(page: &str) -> Result<Option<String>, Error> {
    if !page.contains(MARKER) {
        return Ok(None);
    }
    Ok(Some(page.replacen(MARKER, &thresholds_example()?, 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_carries_the_r1_3_numbers() {
        let html = thresholds_example().unwrap();
        for n in ["180,000", "144,000", "147,000", "167,000", "177,000"] {
            assert!(html.contains(&format!("<td>{n}</td>")), "{n} missing from {html}");
        }
    }

    #[test]
    fn marker_is_replaced_once_and_missing_marker_is_reported() {
        let page = format!("<noscript>{MARKER}</noscript>");
        let out = render_into(&page).unwrap().unwrap();
        assert!(!out.contains(MARKER));
        assert!(out.contains("177,000"));
        assert_eq!(render_into("<noscript></noscript>").unwrap(), None);
    }
}
