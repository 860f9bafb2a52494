//! SPEC R12's no-JavaScript content: one manual `/compact` (seed 002's
//! session) in the seed's order — the Summary, the preserved messages, the
//! attachments, the Boundary, the recovery branches — and the flow
//! diagrams, every value from the engine.

use compaction_core::compact::attachments::Status;
use compaction_core::compact::HookOutcome;
use compaction_core::Error;
use compaction_scenarios::figures::grouped;
use compaction_scenarios::sandbox::{
    explore, scenario, Exploration, Flow, Kind, Knobs, Moment, Outcome, FLOWS,
};

/// Escapes text for HTML element content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn play(change: impl FnOnce(&mut Knobs)) -> Result<Exploration, Error> {
    let base = scenario("compact-analysis", 0).ok_or(Error::UnknownMessage {
        uuid: "compact-analysis".to_owned(),
    })?;
    let mut knobs = Knobs::of(&base);
    change(&mut knobs);
    explore(&base, &knobs)
}

/// The scenario's manual `/compact` (the user's next prompt follows it).
fn last(e: &Exploration) -> Option<&Moment> {
    e.moments.iter().find(|m| m.frame.kind == "compact")
}

/// The manual compaction, section by section.
pub fn manual_compact() -> Result<String, Error> {
    let e = play(|_| {})?;
    let Some(m) = last(&e) else {
        return Ok(String::new());
    };
    let mut html = String::new();
    html.push_str(&format!(
        "<section aria-labelledby=\"ns-manual\">\n<h2 id=\"ns-manual\">One manual /compact, step by step</h2>\n<p>{} ({} messages). The steps the engine took:</p>\n<ol class=\"ns-steps\">\n",
        esc(e.title),
        e.messages
    ));
    for s in &m.frame.steps {
        html.push_str(&format!(
            "<li><code>{}</code> ({}): {} → {} tokens. {}</li>\n",
            esc(s.rule),
            esc(&format!("{:?}", s.owner).to_lowercase()),
            grouped(s.count_before.tokens),
            grouped(s.count_after.tokens),
            esc(&s.reason)
        ));
    }
    html.push_str("</ol>\n</section>\n");
    let Some(Outcome::Compacted {
        pre_tokens,
        post_tokens,
        preserved,
        boundary,
        summary,
        attachments,
        trigger,
    }) = &m.outcome
    else {
        return Ok(html);
    };
    html.push_str(&format!(
        "<section aria-labelledby=\"ns-summary\">\n<h2 id=\"ns-summary\">1. Summary</h2>\n<pre class=\"ns-summary\">{}</pre>\n</section>\n",
        esc(summary)
    ));
    html.push_str("<section aria-labelledby=\"ns-preserved\">\n<h2 id=\"ns-preserved\">2. Preserved messages</h2>\n<ol>\n");
    for item in m
        .after
        .iter()
        .filter(|i| matches!(i.kind, Kind::User | Kind::Assistant | Kind::ToolResult))
    {
        html.push_str(&format!(
            "<li><code>{}</code> {} ({} tokens)</li>\n",
            esc(&item.uuid.0),
            esc(&item.label),
            grouped(item.tokens)
        ));
    }
    html.push_str(&format!(
        "</ol>\n<p>{preserved} message(s) kept verbatim after the summary.</p>\n</section>\n"
    ));
    html.push_str("<section aria-labelledby=\"ns-attachments\">\n<h2 id=\"ns-attachments\">3. Attachments</h2>\n<table>\n<thead><tr><th scope=\"col\">file</th><th scope=\"col\">status</th></tr></thead>\n<tbody>\n");
    for c in attachments {
        let status = match &c.status {
            Status::Restored { tokens, cut } => {
                format!(
                    "restored, {} tokens{}",
                    grouped(*tokens),
                    if *cut { " (cut)" } else { "" }
                )
            }
            Status::PathOnly => "path only".to_owned(),
            Status::NotChosen => "not chosen".to_owned(),
            Status::OverBudget { tokens } => format!("over budget ({} tokens)", grouped(*tokens)),
            Status::Failed { reason } => format!("not restored: {reason}"),
        };
        html.push_str(&format!(
            "<tr><td><code>{}</code></td><td>{}</td></tr>\n",
            esc(&c.path),
            esc(&status)
        ));
    }
    html.push_str("</tbody>\n</table>\n</section>\n");
    html.push_str(&format!(
        "<section aria-labelledby=\"ns-boundary\">\n<h2 id=\"ns-boundary\">4. Boundary</h2>\n<p><code>compact_boundary</code> <code>{}</code> (trigger {}): {} → {} tokens, {} preserved message(s). It goes to the session's local JSONL, not into the next request, and is written only once the new view exists.</p>\n</section>\n",
        esc(&boundary.0),
        trigger,
        grouped(*pre_tokens),
        grouped(*post_tokens),
        preserved
    ));
    Ok(html)
}

/// The recovery branches: the same compaction under each failure switch.
pub fn recovery_branches() -> Result<String, Error> {
    type Change = fn(&mut Knobs);
    let branches: [(&str, Change); 4] = [
        ("The PreCompact hook blocks", |k| {
            k.policy.hook = HookOutcome {
                block: Some("the PreCompact hook exited with code 2".to_owned()),
                added_instructions: Vec::new(),
            }
        }),
        ("The summary request is over the window", |k| {
            k.policy.first_request_too_long = true
        }),
        ("The primary model is unavailable", |k| {
            k.policy.primary_unavailable = true
        }),
        ("A file cannot be read", |k| {
            k.policy.failing_files = vec!["reverse/javascript/cli.readable.js".to_owned()]
        }),
    ];
    let mut html = String::from(
        "<section aria-labelledby=\"ns-recovery\">\n<h2 id=\"ns-recovery\">5. Recovery branches</h2>\n<table>\n<thead><tr><th scope=\"col\">failure</th><th scope=\"col\">what the engine did</th><th scope=\"col\">result</th></tr></thead>\n<tbody>\n",
    );
    for (name, change) in branches {
        let e = play(change)?;
        let Some(m) = last(&e) else { continue };
        let did: Vec<String> = m
            .frame
            .steps
            .iter()
            .filter(|s| matches!(s.rule, "R7.2" | "R7.5" | "R7.10" | "R7.7"))
            .map(|s| format!("{}: {}", s.rule, s.reason))
            .collect();
        let result = match &m.outcome {
            Some(Outcome::Compacted {
                pre_tokens,
                post_tokens,
                attachments,
                ..
            }) => {
                let lost: Vec<String> = attachments
                    .iter()
                    .filter_map(|c| match &c.status {
                        Status::Failed { reason } => Some(format!("; {} not restored: {reason}", c.path)),
                        _ => None,
                    })
                    .collect();
                format!(
                    "boundary written: {} → {} tokens{}",
                    grouped(*pre_tokens),
                    grouped(*post_tokens),
                    lost.concat()
                )
            }
            Some(Outcome::Failed { reason }) => format!("no boundary; the original history stays ({reason})"),
            None => "no boundary; the original history stays".to_owned(),
        };
        html.push_str(&format!(
            "<tr><th scope=\"row\">{}</th><td>{}</td><td>{}</td></tr>\n",
            esc(name),
            esc(&did.join(" · ")),
            esc(&result)
        ));
    }
    html.push_str("</tbody>\n</table>\n</section>\n");
    Ok(html)
}

/// The flow diagrams as ordered lists.
pub fn flows() -> String {
    let mut html =
        String::from("<section aria-labelledby=\"ns-flows\">\n<h2 id=\"ns-flows\">6. Flow diagrams</h2>\n");
    let order = ["manual", "rebuild", "failures", "cascade"];
    for id in order {
        if let Some(f) = FLOWS.iter().find(|f| f.id == id) {
            html.push_str(&flow(f));
        }
    }
    html.push_str("</section>\n");
    html
}

fn flow(f: &Flow) -> String {
    let mut html = format!(
        "<figure class=\"flow\" data-flow=\"{}\">\n<figcaption>{}</figcaption>\n<ol>\n",
        f.id,
        esc(f.title)
    );
    for s in f.stages {
        html.push_str(&format!(
            "<li><strong>{}</strong> — {}</li>\n",
            esc(s.label),
            esc(s.detail)
        ));
    }
    html.push_str("</ol>\n</figure>\n");
    html
}
