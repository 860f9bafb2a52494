//! The sandbox's `<noscript>` content, rendered from the engine at build
//! time so that a page without JavaScript shows the engine's own numbers,
//! never numbers typed by hand.

use compaction_core::thresholds::{ThresholdSettings, Thresholds};
use compaction_core::Error;
use compaction_scenarios::figures::grouped;

pub mod r12;

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
    let content = [
        r12::manual_compact()?,
        r12::recovery_branches()?,
        r12::flows(),
        thresholds_example()?,
    ]
    .concat();
    Ok(Some(page.replacen(MARKER, &content, 1)))
}

/// Where the page's loader goes once moved out of line.
pub const LOADER: &str = "start.js";

/// Moves Trunk's inline `<script type="module">` loader into its own file
/// ([`LOADER`]), so that the page's Content-Security-Policy can forbid
/// inline scripts. Returns the new page and the script; `None` when the
/// page has no inline module script.
pub fn externalise_loader(page: &str) -> Option<(String, String)> {
    const OPEN: &str = "<script type=\"module\">";
    let start = page.find(OPEN)?;
    let body_start = start + OPEN.len();
    let end = body_start + page[body_start..].find("</script>")?;
    let script = page[body_start..end].trim().to_owned();
    let tag = format!("<script type=\"module\" src=\"/{LOADER}\"></script>");
    let new_page = format!("{}{tag}{}", &page[..start], &page[end + "</script>".len()..]);
    Some((new_page, script))
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

    #[test]
    fn r12_the_page_shows_the_manual_compact_in_the_seed_order() {
        let out = render_into(&format!("<noscript>{MARKER}</noscript>"))
            .unwrap()
            .unwrap();
        let order = [
            "1. Summary",
            "2. Preserved messages",
            "3. Attachments",
            "4. Boundary",
            "5. Recovery branches",
            "6. Flow diagrams",
        ];
        let at: Vec<usize> = order
            .iter()
            .map(|h| out.find(h).unwrap_or_else(|| panic!("{h} missing")))
            .collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");
        for flow in ["manual", "rebuild", "failures", "cascade"] {
            assert!(out.contains(&format!("data-flow=\"{flow}\"")), "{flow}");
        }
        assert!(out.contains("no boundary; the original history stays"));
        assert!(out.contains("cli.readable.js not restored: ENOENT"));
        assert!(out.contains("compact_boundary"));
    }

    #[test]
    fn the_inline_loader_moves_out() {
        let page = "<head><script type=\"module\">\nimport init from '/x.js';\nawait init();\n</script><link></head>";
        let (new, script) = externalise_loader(page).unwrap();
        assert_eq!(
            new,
            "<head><script type=\"module\" src=\"/start.js\"></script><link></head>"
        );
        assert_eq!(script, "import init from '/x.js';\nawait init();");
        assert_eq!(externalise_loader("<head></head>"), None);
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            r12::esc("<a href='x'>&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
        );
    }
}
