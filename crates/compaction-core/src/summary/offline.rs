//! The offline summariser: a deterministic, extractive stand-in for the
//! model's summary reply (R7.10: a fallback only when the host opts in; the
//! sandbox and tests use it to run Tier 4 without a model).
//!
//! It writes what a model is asked for (R7.3) in the model's format, an
//! `<analysis>` block then a `<summary>` with the nine numbered sections, so
//! [`parse_summary`](super::parse_summary) reads it on the same path. It
//! copies and counts; it does not judge. Every real user prompt is quoted
//! whole in section 6 and every edited file path in section 3, so its
//! summary always passes [`check_retention`](super::check_retention). Other
//! items are cut to [`OfflineLimits`] with a ` ...[N chars removed]` marker.
//!
//! The analysis block holds only counts, never message text, so a message
//! that contains `</analysis>` cannot end it early.

use std::fmt::Write as _;

use crate::hash::KeySet;

use super::emphasis;
use super::prompt::{PromptOptions, SECTIONS};
use super::{assistant_text, file_paths, tool_result_text, truncate_chars, user_prompt_text, FileUse};
use crate::message::{Block, Message};

/// How much of each item the offline summary keeps. User prompts in section
/// 6 and edited file paths are never cut (the retention check needs them
/// whole); these bound everything else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OfflineLimits {
    /// Characters kept of one quoted item (the first and last prompt in
    /// sections 1, 7 and 9, the last assistant text in section 8, an
    /// instruction). Default 2,000.
    pub item_chars: usize,
    /// Characters kept of one read file path or tool name. Default 300.
    pub name_chars: usize,
    /// Characters kept of an error's first line. Default 300.
    pub error_line_chars: usize,
    /// Errors listed in section 4; the rest are counted. Default 20.
    pub errors_listed: usize,
    /// Read paths listed in section 3; the rest are counted. Default 50.
    pub read_paths_listed: usize,
}

impl Default for OfflineLimits {
    fn default() -> Self {
        OfflineLimits {
            item_chars: 2_000,
            name_chars: 300,
            error_line_chars: 300,
            errors_listed: 20,
            read_paths_listed: 50,
        }
    }
}

/// The offline summary of `messages` with the default [`OfflineLimits`]: a
/// reply in the model's format (`<analysis>…</analysis>` then
/// `<summary>…</summary>`), byte-identical for identical input.
///
/// `options.manual_instructions` and `options.hook_instructions` are
/// recorded in section 1, and their terms choose what the summary brings
/// forward ([`super::emphasis`]): the lines quoted in section 1, the files
/// and errors listed first in sections 3 and 4;
/// `options.retry` changes nothing, since nothing the check looks for is
/// ever left out.
pub fn offline_summary(messages: &[Message], options: &PromptOptions) -> String {
    offline_summary_with(messages, options, &OfflineLimits::default())
}

/// [`offline_summary`] with explicit limits.
pub fn offline_summary_with(messages: &[Message], options: &PromptOptions, limits: &OfflineLimits) -> String {
    offline_summary_of(messages, options, limits)
}

/// [`offline_summary_with`] over borrowed messages (the engine summarises
/// a view's prefix without copying it).
pub(crate) fn offline_summary_of<'a>(
    messages: impl IntoIterator<Item = &'a Message>,
    options: &PromptOptions,
    limits: &OfflineLimits,
) -> String {
    // The rest is one copy, whatever the caller's iterator.
    summary_of_refs(messages.into_iter().collect(), options, limits)
}

fn summary_of_refs(messages: Vec<&Message>, options: &PromptOptions, limits: &OfflineLimits) -> String {
    let mut facts = Facts::gather(messages.iter().copied());
    let terms = emphasis::terms(options.manual().into_iter().chain(options.hooks()));
    emphasis::first_named(&mut facts.edited, &terms, String::as_str);
    emphasis::first_named(&mut facts.read, &terms, String::as_str);
    emphasis::first_named(&mut facts.errors, &terms, |e| e.first_line.as_str());
    let mut sections: Vec<String> = Vec::with_capacity(SECTIONS.len());
    let mut request = primary_request(&facts, options, limits);
    let quotes = emphasis::quoted(messages.iter().copied(), &terms);
    if !quotes.is_empty() {
        request.push_str("\nWhat the history says of the instructions' terms (");
        request.push_str(&terms.join(", "));
        request.push_str("):");
        for (position, line) in quotes {
            let _ = write!(request, "\n- message {}: {line}", position + 1);
        }
    }
    sections.push(request);
    sections.push(concepts(&facts, limits));
    sections.push(files(&facts, limits));
    sections.push(errors(&facts, limits));
    sections.push(format!(
        "Turns: {}; tool calls: {}; failed tool results: {}; messages: {}. \
         This summary was extracted without a model: it records what \
         happened, not why.",
        facts.prompts.len(),
        facts.tool_calls,
        facts.errors.len(),
        facts.messages
    ));
    sections.push(all_user_messages(&facts));
    sections.push(match facts.prompts.last() {
        Some(last) => format!(
            "The most recent request:\n{}",
            truncate_chars(last, limits.item_chars)
        ),
        None => "None recorded.".to_owned(),
    });
    sections.push(match &facts.last_assistant_text {
        Some(text) => format!(
            "The last assistant message said:\n{}",
            truncate_chars(text, limits.item_chars)
        ),
        None => "No assistant text yet.".to_owned(),
    });
    sections.push(match facts.prompts.last() {
        Some(last) => format!("Continue with: {}", truncate_chars(last, limits.item_chars)),
        None => "None.".to_owned(),
    });

    let mut out = format!(
        "<analysis>\nOffline summary, extracted without a model from {} messages. \
         User prompts: {}; tool calls: {}; failed tool results: {}; files read \
         or searched: {}; files edited: {}.\n</analysis>\n\n<summary>\n",
        facts.messages,
        facts.prompts.len(),
        facts.tool_calls,
        facts.errors.len(),
        facts.read.len(),
        facts.edited.len()
    );
    for (i, (title, body)) in SECTIONS.iter().zip(&sections).enumerate() {
        let _ = write!(out, "{}. {title}:\n{body}\n\n", i + 1);
    }
    out.truncate(out.trim_end_matches('\n').len());
    out.push_str("\n</summary>\n");
    out
}

/// A failed tool result.
struct ToolError {
    tool: String,
    tool_use_id: String,
    first_line: String,
}

/// Everything the summary is built from, gathered in one pass.
#[derive(Default)]
struct Facts {
    /// Messages summarised.
    messages: usize,
    /// Real user prompts' text, in order.
    prompts: Vec<String>,
    /// Calls per tool name, sorted by name (a sorted `Vec`: one fewer
    /// `BTreeMap` monomorphisation in the module).
    tool_counts: Vec<(String, usize)>,
    tool_calls: usize,
    /// Paths in first-seen order, each once.
    read: Vec<String>,
    edited: Vec<String>,
    errors: Vec<ToolError>,
    last_assistant_text: Option<String>,
}

impl Facts {
    fn gather<'a>(messages: impl IntoIterator<Item = &'a Message>) -> Self {
        let mut facts = Facts::default();
        // Tool name per tool_use id (the first use of an id wins), sorted by id.
        let mut tool_names: Vec<(&str, &str)> = Vec::new();
        let mut seen_read: KeySet<String> = KeySet::default();
        let mut seen_edited: KeySet<String> = KeySet::default();
        for message in messages {
            facts.messages += 1;
            if let Some(text) = user_prompt_text(message) {
                facts.prompts.push(text);
            }
            if let Some(text) = assistant_text(message).filter(|t| !t.trim().is_empty()) {
                facts.last_assistant_text = Some(text);
            }
            for block in message.content.blocks() {
                match block {
                    Block::ToolUse { id, name, .. } => {
                        facts.tool_calls += 1;
                        match facts.tool_counts.binary_search_by(|(n, _)| n.as_str().cmp(name)) {
                            Ok(at) => facts.tool_counts[at].1 += 1,
                            Err(at) => facts.tool_counts.insert(at, (name.clone(), 1)),
                        }
                        if let Err(at) = tool_names.binary_search_by(|(i, _)| (*i).cmp(id.as_str())) {
                            tool_names.insert(at, (id.as_str(), name.as_str()));
                        }
                    }
                    Block::ToolResult {
                        tool_use_id,
                        content,
                        is_error: Some(true),
                        ..
                    } => {
                        let text = tool_result_text(content);
                        facts.errors.push(ToolError {
                            tool: tool_names
                                .binary_search_by(|(i, _)| (*i).cmp(tool_use_id.as_str()))
                                .map_or_else(
                                    |_| "an unknown tool".to_owned(),
                                    |at| tool_names[at].1.to_owned(),
                                ),
                            tool_use_id: tool_use_id.clone(),
                            first_line: text
                                .lines()
                                .find(|l| !l.trim().is_empty())
                                .unwrap_or("(no error text)")
                                .trim()
                                .to_owned(),
                        });
                    }
                    _ => {}
                }
                if let Some((kind, paths)) = file_paths(block) {
                    let (seen, list) = match kind {
                        FileUse::Read => (&mut seen_read, &mut facts.read),
                        FileUse::Edited => (&mut seen_edited, &mut facts.edited),
                    };
                    for path in paths {
                        if !seen.contains(path.as_ref()) {
                            seen.insert(path.to_string());
                            list.push(path.into_owned());
                        }
                    }
                }
            }
        }
        facts
    }
}

fn primary_request(facts: &Facts, options: &PromptOptions, limits: &OfflineLimits) -> String {
    let mut out = match facts.prompts.first() {
        Some(first) => format!("The first request:\n{}", truncate_chars(first, limits.item_chars)),
        None => "No user prompt in the summarised messages.".to_owned(),
    };
    if let Some(manual) = options.manual() {
        out.push_str("\nInstructions given for this summary: ");
        out.push_str(&truncate_chars(manual, limits.item_chars));
    }
    for hook in options.hooks() {
        out.push_str("\nInstructions added by a hook: ");
        out.push_str(&truncate_chars(hook, limits.item_chars));
    }
    out
}

fn concepts(facts: &Facts, limits: &OfflineLimits) -> String {
    if facts.tool_counts.is_empty() {
        return "No tools were used.".to_owned();
    }
    let mut out = "Tools used: ".to_owned();
    for (i, (name, n)) in facts.tool_counts.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{} ×{n}", truncate_chars(name, limits.name_chars));
    }
    out.push('.');
    out
}

fn files(facts: &Facts, limits: &OfflineLimits) -> String {
    let mut out = String::new();
    if facts.edited.is_empty() {
        out.push_str("Edited: none.");
    } else {
        out.push_str("Edited:");
        for path in &facts.edited {
            out.push_str("\n- ");
            out.push_str(path);
        }
    }
    if facts.read.is_empty() {
        out.push_str("\nRead or searched: none.");
    } else {
        out.push_str("\nRead or searched:");
        for path in facts.read.iter().take(limits.read_paths_listed) {
            out.push_str("\n- ");
            out.push_str(&truncate_chars(path, limits.name_chars));
        }
        let more = facts.read.len().saturating_sub(limits.read_paths_listed);
        if more > 0 {
            let _ = write!(out, "\n- ...and {more} more");
        }
    }
    out
}

fn errors(facts: &Facts, limits: &OfflineLimits) -> String {
    if facts.errors.is_empty() {
        return "No tool errors.".to_owned();
    }
    let mut out = String::new();
    for e in facts.errors.iter().take(limits.errors_listed) {
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = write!(
            out,
            "- {} ({}): {}",
            truncate_chars(&e.tool, limits.name_chars),
            truncate_chars(&e.tool_use_id, limits.name_chars),
            truncate_chars(&e.first_line, limits.error_line_chars)
        );
    }
    let more = facts.errors.len().saturating_sub(limits.errors_listed);
    if more > 0 {
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = write!(out, "- ...and {more} more");
    }
    out
}

/// Every real user prompt, whole and in order, each on its own line after a
/// dash (a prompt's own lines follow as they are).
fn all_user_messages(facts: &Facts) -> String {
    if facts.prompts.is_empty() {
        return "None.".to_owned();
    }
    let mut out = String::new();
    for p in &facts.prompts {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str("- ");
        out.push_str(if p.trim().is_empty() {
            "(a message without text)"
        } else {
            p
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Content, Role};
    use serde_json::json;

    fn tool_use(id: &str, name: &str, input: serde_json::Value) -> Message {
        Message::new(
            format!("a-{id}"),
            Role::Assistant,
            Content::Blocks(vec![Block::ToolUse {
                id: id.into(),
                name: name.into(),
                input: crate::message::Json::from_value(&input),
                extra: Default::default(),
            }]),
        )
    }

    fn result(id: &str, text: &str, is_error: bool) -> Message {
        let m = json!({"uuid": format!("r-{id}"), "role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": text, "is_error": is_error}
        ]});
        serde_json::from_value(m).unwrap()
    }

    #[test]
    fn an_empty_history_still_has_nine_sections() {
        let reply = offline_summary(&[], &PromptOptions::default());
        for (i, title) in SECTIONS.iter().enumerate() {
            assert!(reply.contains(&format!("{}. {title}:\n", i + 1)), "{title}");
        }
        assert!(reply.starts_with("<analysis>\n"));
        assert!(reply.ends_with("\n</summary>\n"));
    }

    #[test]
    fn sections_are_filled_from_the_messages() {
        let history = vec![
            Message::user("u1", "fix the parser"),
            tool_use("t1", "Read", json!({"file_path": "src/parser.rs"})),
            result("t1", "fn parse() {}", false),
            tool_use("t2", "Bash", json!({"command": "cargo test"})),
            result("t2", "\nerror[E0425]: cannot find value\nmore", true),
            tool_use("t3", "Edit", json!({"file_path": "src/parser.rs"})),
            result("t3", "ok", false),
            Message::assistant("a9", "Fixed the parser."),
            Message::user("u2", "now add tests"),
        ];
        let reply = offline_summary(&history, &PromptOptions::default());
        assert!(reply.contains("The first request:\nfix the parser"));
        assert!(reply.contains("Tools used: Bash ×1, Edit ×1, Read ×1."));
        assert!(reply.contains("Edited:\n- src/parser.rs\nRead or searched:\n- src/parser.rs"));
        assert!(reply.contains("- Bash (t2): error[E0425]: cannot find value"));
        assert!(reply.contains("Turns: 2; tool calls: 3; failed tool results: 1; messages: 9."));
        assert!(reply.contains("6. All User Messages:\n- fix the parser\n- now add tests\n"));
        assert!(reply.contains("The last assistant message said:\nFixed the parser."));
        assert!(reply.contains("Continue with: now add tests"));
    }

    #[test]
    fn instructions_change_what_the_summary_brings_forward() {
        let history = vec![
            Message::user("u1", "fix the parser, then update the docs"),
            tool_use("t1", "Read", json!({"file_path": "docs/guide.md"})),
            result("t1", "# Guide\nThe docs explain the CLI.", false),
            tool_use("t2", "Read", json!({"file_path": "src/parser.rs"})),
            result("t2", "fn parse() {}", false),
            tool_use("t3", "Bash", json!({"command": "cargo test"})),
            result("t3", "error: the parser panics on empty input", true),
        ];
        let plain = offline_summary(&history, &PromptOptions::default());
        assert!(!plain.contains("instructions' terms"));
        assert!(plain.contains("Read or searched:\n- docs/guide.md\n- src/parser.rs"));
        let with = |text: &str| {
            let options = PromptOptions {
                manual_instructions: Some(text.to_owned()),
                ..PromptOptions::default()
            };
            offline_summary(&history, &options)
        };
        let parser = with("focus on the parser");
        assert!(parser.contains("What the history says of the instructions' terms (parser):"));
        assert!(parser.contains("- message 1: fix the parser, then update the docs"));
        assert!(parser.contains("- message 7: error: the parser panics on empty input"));
        assert!(parser.contains("Read or searched:\n- src/parser.rs\n- docs/guide.md"));
        let docs = with("keep the docs guide");
        assert!(docs.contains("(docs, guide):"));
        assert!(docs.contains("- message 3: # Guide"));
        assert!(!docs.contains("- message 7:"));
        assert!(docs.contains("Read or searched:\n- docs/guide.md\n- src/parser.rs"));
        // Only the order and the quotes change: nothing the check needs is lost.
        for reply in [&parser, &docs] {
            let summary = crate::summary::parse_summary(reply).unwrap();
            assert!(crate::summary::check_retention(&summary, &history).is_complete());
        }
    }

    #[test]
    fn long_items_are_cut_but_prompts_in_section_6_are_not() {
        let long = "é".repeat(5_000);
        let history = vec![
            Message::user("u1", long.clone()),
            Message::assistant("a1", long.clone()),
        ];
        let reply = offline_summary(&history, &PromptOptions::default());
        assert!(reply.contains(&format!("- {long}\n")));
        assert!(reply.contains("The last assistant message said:\n"));
        assert!(reply.contains(" ...[3000 chars removed]"));
    }

    #[test]
    fn lists_are_bounded() {
        let limits = OfflineLimits {
            errors_listed: 1,
            read_paths_listed: 1,
            ..OfflineLimits::default()
        };
        let history = vec![
            tool_use("t1", "Read", json!({"file_path": "a"})),
            result("t1", "boom", true),
            tool_use("t2", "Glob", json!({"path": "b"})),
            result("t2", "bang", true),
        ];
        let reply = offline_summary_with(&history, &PromptOptions::default(), &limits);
        assert!(reply.contains("- a\n- ...and 1 more"));
        assert!(reply.contains("- Read (t1): boom\n- ...and 1 more"));
        assert!(!reply.contains("bang"));
        // None listed: only the count, first in its section.
        let none = OfflineLimits {
            errors_listed: 0,
            read_paths_listed: 0,
            ..limits
        };
        let reply = offline_summary_with(&history, &PromptOptions::default(), &none);
        let files = format!(
            "3. {}:\nEdited: none.\nRead or searched:\n- ...and 2 more\n",
            SECTIONS[2]
        );
        assert!(reply.contains(&files), "{reply}");
        assert!(
            reply.contains(&format!("4. {}:\n- ...and 2 more\n", SECTIONS[3])),
            "{reply}"
        );
    }

    #[test]
    fn a_prompt_without_text_is_named_as_such() {
        let image_only = Message::new(
            "u1",
            Role::User,
            Content::Blocks(vec![Block::Image {
                extra: Default::default(),
            }]),
        );
        let reply = offline_summary(&[image_only], &PromptOptions::default());
        assert!(reply.contains("6. All User Messages:\n- (a message without text)\n"));
    }

    #[test]
    fn an_error_without_its_tool_use_names_an_unknown_tool() {
        let reply = offline_summary(&[result("lost", "", true)], &PromptOptions::default());
        assert!(reply.contains("- an unknown tool (lost): (no error text)"));
    }
}
