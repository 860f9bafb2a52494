//! The retention check (extension): which real user prompts and edited file
//! paths did not survive into a summary.
//!
//! "Survives" is deliberately simple and mechanical:
//! - a **user prompt** survives when the first [`RETAINED_PROMPT_CHARS`]
//!   characters of its normalised text appear in the normalised summary.
//!   Normalised means lowercased character by character and with every run
//!   of whitespace collapsed to one space (leading and trailing whitespace
//!   gone), so re-indenting or re-wrapping a quote still counts. A prompt
//!   with no text survives trivially;
//! - an **edited file path** (the `file_path`, `path` or `notebook_path` of
//!   an Edit, Write, MultiEdit or NotebookEdit call) survives when it
//!   appears verbatim, case and all, in the summary.
//!
//! A summary that paraphrases a prompt fails the check for it: section 6
//! asks for the user's messages verbatim (R7.3), and that is what is
//! checked. Read-only paths are not checked: R7.7 attachments restore
//! recent files, and a path that was only read carries no change to lose.

use crate::hash::KeySet;

use serde::Serialize;

use super::{file_paths, user_prompt_text, FileUse};
use crate::message::{Message, Uuid};

/// Characters of a (normalised) user prompt that must appear in the summary
/// for the prompt to count as kept. Default 200.
pub const RETAINED_PROMPT_CHARS: usize = 200;

/// A real user prompt the summary did not keep.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingPrompt {
    /// The message's uuid.
    pub uuid: Uuid,
    /// The prompt's whole text (its text blocks joined by newlines).
    pub text: String,
}

/// What a summary lost: user prompts and edited file paths, each in the
/// order of the history.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RetentionReport {
    /// Real user prompts whose text did not survive.
    pub missing_prompts: Vec<MissingPrompt>,
    /// Edited file paths that do not appear in the summary, each once.
    pub missing_paths: Vec<String>,
}

impl RetentionReport {
    /// Nothing is missing.
    pub fn is_complete(&self) -> bool {
        self.missing_prompts.is_empty() && self.missing_paths.is_empty()
    }
}

/// Checks `summary` (a parsed summary or a raw reply) against the messages
/// it summarised; see the module docs for what "survives" means.
///
/// ```
/// use compaction_core::message::Message;
/// use compaction_core::summary::check_retention;
///
/// let history = [Message::user("u1", "Keep   the PROBE results"), Message::user("u2", "and the paths")];
/// let report = check_retention("Summary:\n6. All User Messages:\n- keep the probe results", &history);
/// assert_eq!(report.missing_prompts.len(), 1);
/// assert_eq!(report.missing_prompts[0].uuid.as_str(), "u2");
/// ```
pub fn check_retention(summary: &str, messages: &[Message]) -> RetentionReport {
    check_retention_of(summary, messages)
}

/// [`check_retention`] over borrowed messages (the engine checks a view's
/// prefix without copying it).
pub(crate) fn check_retention_of<'a>(
    summary: &str,
    messages: impl IntoIterator<Item = &'a Message>,
) -> RetentionReport {
    // The summary's normal form is made only when a prompt is not quoted
    // verbatim: an offline summary of a long session quotes every prompt,
    // hundreds of KB that then need no normalising.
    let mut normalised_summary: Option<String> = None;
    let mut report = RetentionReport::default();
    let mut seen_paths: KeySet<String> = KeySet::default();
    // Where the previous prompt and path were found: a summary usually
    // quotes them in history order, so the next one is looked for there
    // first (see [`occurs`]).
    let (mut verbatim_at, mut prompt_at, mut path_at) = (0, 0, 0);
    for message in messages {
        if let Some(text) = user_prompt_text(message) {
            let (key, stretch) = prompt_key(&text);
            match stretch.and_then(|stretch| occurs(summary, stretch, verbatim_at)) {
                Some(at) => verbatim_at = at,
                None => {
                    let normalised = normalised_summary.get_or_insert_with(|| normalise(summary, usize::MAX));
                    match occurs(normalised, &key, prompt_at) {
                        Some(at) => prompt_at = at,
                        None => report.missing_prompts.push(MissingPrompt {
                            uuid: message.uuid.clone(),
                            text,
                        }),
                    }
                }
            }
        }
        for block in message.content.blocks() {
            if let Some((FileUse::Edited, paths)) = file_paths(block) {
                for path in paths {
                    if !seen_paths.contains(path.as_ref()) {
                        seen_paths.insert(path.to_string());
                        match occurs(summary, &path, path_at) {
                            Some(at) => path_at = at,
                            None => report.missing_paths.push(path.into_owned()),
                        }
                    }
                }
            }
        }
    }
    report
}

/// Where `needle` occurs in `haystack` (`haystack.contains(needle)`, with
/// the place found), looking at or after `from` first, then before it: an
/// occurrence starting before `from` ends before `from + needle.len()`.
fn occurs(haystack: &str, needle: &str, from: usize) -> Option<usize> {
    if let Some(at) = haystack.get(from..).and_then(|tail| tail.find(needle)) {
        return Some(from + at);
    }
    let mut end = from.saturating_add(needle.len()).min(haystack.len());
    while !haystack.is_char_boundary(end) {
        end += 1;
    }
    haystack.get(..end).and_then(|head| head.find(needle))
}

/// The first `limit` characters of `text`'s normal form: lowercased
/// character by character (no context rules, so a text's normal form does
/// not depend on what surrounds it), whitespace runs collapsed to one
/// space, trimmed. One pass over the bytes: ASCII whitespace is skipped and
/// runs of other ASCII are copied and lowercased whole (most summaries are
/// ASCII); other characters are decoded where they start.
fn normalise(text: &str, limit: usize) -> String {
    normalise_stretch(text, limit).0
}

/// [`normalise`], and the bytes of `text` its characters came from (from
/// the first character written to the last; empty when nothing was).
fn normalise_stretch(text: &str, limit: usize) -> (String, std::ops::Range<usize>) {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len().min(limit.saturating_mul(4)));
    let mut chars = 0;
    // Whitespace since the last character written: one space before the
    // next one (none at the start or the end).
    let mut gap = false;
    let mut i = 0;
    // The bytes of `text` the written characters came from.
    let mut stretch: Option<std::ops::Range<usize>> = None;
    while chars < limit && i < bytes.len() {
        let b = bytes[i];
        if is_ascii_whitespace(b) {
            gap = true;
            i += 1;
            continue;
        }
        let start = i;
        let c = if b.is_ascii() {
            while i < bytes.len() && bytes[i].is_ascii() && !is_ascii_whitespace(bytes[i]) {
                i += 1;
            }
            None
        } else {
            let Some(c) = text.get(i..).and_then(|rest| rest.chars().next()) else {
                break;
            };
            i += c.len_utf8();
            if c.is_whitespace() {
                gap = true;
                continue;
            }
            Some(c)
        };
        if gap && !out.is_empty() {
            out.push(' ');
            chars += 1;
        }
        gap = false;
        match c {
            None => {
                // A run of ASCII: as many of its characters as the limit allows.
                let take = (i - start).min(limit - chars);
                let at = out.len();
                out.push_str(text.get(start..start + take).unwrap_or_default());
                if let Some(added) = out.get_mut(at..) {
                    added.make_ascii_lowercase();
                }
                chars += take;
                extend(&mut stretch, start, start + take);
            }
            Some(c) => {
                for lower in c.to_lowercase() {
                    if chars == limit {
                        break;
                    }
                    out.push(lower);
                    chars += 1;
                }
                extend(&mut stretch, start, i);
            }
        }
    }
    (out, stretch.unwrap_or(0..0))
}

/// Grows `stretch` to end at `end` (or starts it at `start`).
fn extend(stretch: &mut Option<std::ops::Range<usize>>, start: usize, end: usize) {
    match stretch {
        Some(range) => range.end = end,
        None => *stretch = Some(start..end),
    }
}

/// A prompt's key (the first [`RETAINED_PROMPT_CHARS`] characters of its
/// normal form) and, when it can stand in for the key, the stretch of the
/// prompt the key was made from. A stretch begins and ends on a character
/// the key keeps, and normalising works character by character and on
/// whitespace runs, so wherever the stretch occurs verbatim in a summary,
/// the summary's normal form contains the key. A key that ends in the
/// space of a whitespace run cut by the limit has no stretch (the summary
/// might end right after it).
fn prompt_key(text: &str) -> (String, Option<&str>) {
    let (key, range) = normalise_stretch(text, RETAINED_PROMPT_CHARS);
    let stretch = if key.ends_with(' ') { None } else { text.get(range) };
    (key, stretch)
}

/// The ASCII characters `char::is_whitespace` accepts (tab, line feed,
/// vertical tab, form feed, carriage return, space).
fn is_ascii_whitespace(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Block, Content, Role};
    use serde_json::json;

    fn edit(uuid: &str, name: &str, path: &str) -> Message {
        Message::new(
            uuid,
            Role::Assistant,
            Content::Blocks(vec![Block::ToolUse {
                id: format!("t-{uuid}"),
                name: name.into(),
                input: crate::message::Json::from_value(&json!({"file_path": path})),
                extra: Default::default(),
            }]),
        )
    }

    #[test]
    fn normalising_lowercases_and_collapses_whitespace() {
        assert_eq!(normalise("  A\n\tB  c ", usize::MAX), "a b c");
        // Final sigma lowercases alike wherever it stands.
        assert_eq!(normalise("ΟΔΟΣ", usize::MAX), "οδοσ");
        // A prefix is the first characters of the whole normal form.
        for text in ["  Ab\n\tCd  e ", "ΟΔΟΣ İx  yz", "a"] {
            let whole = normalise(text, usize::MAX);
            for limit in 0..12 {
                let prefix: String = whole.chars().take(limit).collect();
                assert_eq!(normalise(text, limit), prefix, "{text:?} {limit}");
            }
        }
    }

    /// The normal form as the module docs define it, for comparison.
    fn reference(text: &str) -> String {
        let words: Vec<String> = text
            .split_whitespace()
            .map(|w| w.chars().flat_map(char::to_lowercase).collect())
            .collect();
        words.join(" ")
    }

    #[test]
    fn verbatim_quotes_decide_as_the_normal_forms_would() {
        // The shortcut (a prompt's stretch found verbatim) must never call a
        // prompt kept that the normal forms would call missing, nor the
        // reverse: compare with the definition on random prompts and
        // summaries made of pieces of them, changed or not.
        let piece = "([a-cA-C]{1,4}|[ \t\n]{1,3}|İ|Σ|\u{a0}|é)";
        let prompt = format!("{piece}{{0,12}}");
        proptest::proptest!(|(
            prompts in proptest::collection::vec(prompt.as_str(), 1..5),
            picks in proptest::collection::vec((0usize..5, 0usize..4, 0usize..20), 0..6),
            noise in "[a-c \n]{0,6}",
        )| {
            let mut summary = noise.clone();
            for (which, how, cut) in picks {
                let p = &prompts[which % prompts.len()];
                let quoted: String = match how {
                    0 => p.clone(),
                    1 => p.to_uppercase(),
                    2 => p.split_whitespace().collect::<Vec<_>>().join("  "),
                    _ => p.chars().take(cut).collect(),
                };
                summary.push_str(&quoted);
                summary.push_str(&noise);
            }
            let history: Vec<Message> = prompts
                .iter()
                .enumerate()
                .map(|(i, p)| Message::user(format!("u{i}"), p.clone()))
                .collect();
            let normalised = normalise(&summary, usize::MAX);
            let expected: Vec<String> = history
                .iter()
                .filter(|m| {
                    let key = normalise(&user_prompt_text(m).unwrap_or_default(), RETAINED_PROMPT_CHARS);
                    user_prompt_text(m).is_some() && !normalised.contains(&key)
                })
                .map(|m| m.uuid.as_str().to_owned())
                .collect();
            let missing: Vec<String> = check_retention(&summary, &history)
                .missing_prompts
                .iter()
                .map(|p| p.uuid.as_str().to_owned())
                .collect();
            proptest::prop_assert_eq!(missing, expected, "summary {:?}", summary);
        });
    }

    #[test]
    fn normalising_random_text_matches_the_definition() {
        proptest::proptest!(|(text in "[ -~\t\n\x0b\x0c\r\x1c]{0,80}|\\PC{0,40}", limit in 0usize..100)| {
            let whole = reference(&text);
            let prefix: String = whole.chars().take(limit).collect();
            proptest::prop_assert_eq!(normalise(&text, limit), prefix);
            proptest::prop_assert_eq!(normalise(&text, usize::MAX), whole);
        });
    }

    #[test]
    fn normalising_matches_the_definition_at_every_length() {
        let texts = [
            "",
            "   ",
            "Plain ASCII Words",
            "\u{b}Vertical\u{b}tab\u{c}and\u{1c}file separator\r\n",
            "ÀÉÎ ÕÜ straße İstanbul ΟΔΟΣ",
            "mixed\u{a0}nbsp\u{3000}ideographic\u{2028}line  \t end ",
            "a\u{301}ccent COMBINING ǅ titlecase",
            "emoji 🙂 ＦＵＬＬ width",
        ];
        for text in texts {
            let whole = reference(text);
            assert_eq!(normalise(text, usize::MAX), whole, "{text:?}");
            for limit in 0..=whole.chars().count() + 1 {
                let prefix: String = whole.chars().take(limit).collect();
                assert_eq!(normalise(text, limit), prefix, "{text:?} {limit}");
            }
        }
    }

    #[test]
    fn occurs_finds_a_needle_before_or_after_the_hint() {
        let hay = "abc déf abc xyz";
        for from in 0..=hay.len() {
            if !hay.is_char_boundary(from) {
                continue;
            }
            for needle in ["abc", "déf", "xyz", "c d", "", "zz", "f abc x"] {
                assert_eq!(
                    occurs(hay, needle, from).is_some(),
                    hay.contains(needle),
                    "{needle:?} {from}"
                );
            }
        }
    }

    #[test]
    fn a_prompt_survives_by_its_first_characters() {
        let long = format!("{} tail that may be dropped", "word ".repeat(60));
        let history = [Message::user("u1", long.clone())];
        let kept: String = long.chars().take(RETAINED_PROMPT_CHARS + 10).collect();
        assert!(check_retention(&kept.to_uppercase(), &history).is_complete());
        let short: String = long.chars().take(RETAINED_PROMPT_CHARS - 10).collect();
        assert!(!check_retention(&short, &history).is_complete());
    }

    #[test]
    fn tool_results_are_not_prompts_and_reads_are_not_edits() {
        let results: Message = serde_json::from_value(json!({"uuid": "r", "role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t", "content": "lost output"}
        ]}))
        .unwrap();
        let history = [results, edit("a", "Read", "only/read.rs")];
        assert!(check_retention("", &history).is_complete());
    }

    #[test]
    fn edited_paths_must_appear_verbatim_and_are_listed_once() {
        let history = [
            edit("a", "Edit", "src/Lib.rs"),
            edit("b", "Write", "src/Lib.rs"),
            edit("c", "MultiEdit", "docs/x.md"),
        ];
        let report = check_retention("edited src/lib.rs and docs/x.md", &history);
        assert_eq!(report.missing_paths, vec!["src/Lib.rs".to_owned()]);
    }

    #[test]
    fn the_report_serialises_in_camel_case() {
        let report = RetentionReport {
            missing_prompts: vec![MissingPrompt {
                uuid: Uuid::from("u1"),
                text: "x".into(),
            }],
            missing_paths: vec!["a.rs".into()],
        };
        assert_eq!(
            serde_json::to_value(&report).unwrap(),
            json!({"missingPrompts": [{"uuid": "u1", "text": "x"}], "missingPaths": ["a.rs"]})
        );
    }
}
