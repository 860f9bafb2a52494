//! Text of a chosen size for the built-in sessions: the host's files and
//! system parts, read back the same every time. ASCII only, so at the
//! engine's default estimate (four characters a token) `tokens` tokens are
//! `4 × tokens` characters.

use std::cell::RefCell;
use std::fmt::Write as _;

/// Characters per token of plain ASCII at the default estimate.
pub(crate) const CHARS_PER_TOKEN: usize = 4;

/// `chars` characters: `head` on the first line, then `lines` in turn,
/// numbered like a file a tool prints.
pub(crate) fn sized(head: &str, lines: &[&str], chars: usize) -> String {
    let mut out = String::with_capacity(chars + 80);
    out.push_str(head);
    out.push('\n');
    let mut n = 1;
    while out.len() < chars {
        let line = lines.get(n % lines.len().max(1)).copied().unwrap_or("");
        // Written in place: a String's fmt::Write never fails.
        let _ = writeln!(out, "{n:>5}  {line}");
        n += 1;
    }
    out.truncate(chars);
    out
}

thread_local! {
    /// The files' texts made so far, by path and size: every play of a
    /// scenario reads the same files again (the sandbox plays one on each
    /// control change).
    static MADE: RefCell<Vec<(String, u64, String)>> = const { RefCell::new(Vec::new()) };
}

/// Files' texts kept made at most.
const MADE_KEPT: usize = 64;

/// A file's text of about `tokens` tokens, in the style its extension
/// suggests (made once per path and size, then copied).
pub(crate) fn file_text(path: &str, tokens: u64) -> String {
    MADE.with(|made| {
        let mut made = made.borrow_mut();
        if let Some((_, _, text)) = made.iter().find(|(p, t, _)| p == path && *t == tokens) {
            return text.clone();
        }
        let text = make_file_text(path, tokens);
        if made.len() >= MADE_KEPT {
            made.clear();
        }
        made.push((path.to_owned(), tokens, text.clone()));
        text
    })
}

fn make_file_text(path: &str, tokens: u64) -> String {
    const JS: [&str; 6] = [
        "function wmi(messages, settings) { const groups = splitIntoGroups(messages);",
        "  if (!isLegalCut(groups, keep)) return { error: 'tool_use without tool_result' };",
        "  const preserved = groups.slice(-keep).flat(); // messagesToPreserve",
        "  await runHooks('PreCompact', { trigger: 'manual', customInstructions });",
        "  const summary = parseSummary(reply.text); // <analysis> removed",
        "  appendRecord({ type: 'system', subtype: 'compact_boundary', compactMetadata });",
    ];
    const JSON_LINES: [&str; 5] = [
        "{\"step\": \"manual_compact\", \"request\": {\"messages\": 14, \"system\": \"<elided>\"},",
        "  \"boundary\": {\"trigger\": \"manual\", \"preTokens\": 61234, \"postTokens\": 35870},",
        "  \"preserved\": [\"a1f0c9e2-7d41-4b8e-9c3a-5e2f1d0b6a77\"], \"resume\": \"relinked\"},",
        "{\"step\": \"fork\", \"parentUuid\": null, \"logicalParentUuid\": \"b7e1...\"},",
        "{\"step\": \"resume\", \"chain\": [\"summary\", \"preserved\", \"new input\"]},",
    ];
    const MD: [&str; 5] = [
        "## What /compact changes",
        "The next request is the summary, the preserved messages, the attachments and the new input.",
        "The boundary goes to the local JSONL transcript, never into the request.",
        "- files restored: at most 5, 5,000 tokens each, 50,000 in all",
        "Resume relinks the preserved messages after the summary using the boundary's uuids.",
    ];
    const DOT: [&str; 5] = [
        "digraph compact { rankdir=LR; node [shape=box, fontname=\"Inter\"];",
        "  precompact -> cut -> summary -> parse -> attachments -> boundary;",
        "  summary -> retry [label=\"prompt too long\"]; retry -> cut;",
        "  precompact -> keep_history [label=\"hook blocks\", style=dashed];",
        "  attachments -> degrade [label=\"read fails\"];",
    ];
    const TEXT: [&str; 3] = [
        "python3 scripts/validate_snapshot.py . -> snapshot validation: PASS",
        "checked 2.1.235: prompts, thresholds, boundary fields",
        "notes on the session so far",
    ];
    let lines: &[&str] = match path.rsplit('.').next() {
        Some("js" | "ts" | "py" | "rs") => &JS,
        Some("json" | "jsonl") => &JSON_LINES,
        Some("md") => &MD,
        Some("dot") => &DOT,
        _ => &TEXT,
    };
    sized(&format!("// {path}"), lines, tokens as usize * CHARS_PER_TOKEN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use compaction_core::tokens::Estimator;

    #[test]
    fn a_file_of_n_tokens_estimates_at_n() {
        let e = Estimator::default();
        for (path, tokens) in [("a.js", 12_000), ("b.json", 6_400), ("c.md", 2_600), ("d", 7)] {
            let text = file_text(path, tokens);
            assert!(text.is_ascii());
            assert_eq!(e.text(&text), tokens, "{path}");
        }
    }
}
