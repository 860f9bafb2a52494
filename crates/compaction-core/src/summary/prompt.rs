//! The summary prompt (SPEC R7.3): the synthetic user message that asks the
//! model for an `<analysis>` pass and a nine-section `<summary>`.
//!
//! Seed 002 quotes the prompt's opening verbatim ([`SEED_VERBATIM_LINES`]) and
//! paraphrases the rest; everything after the opening is the project's own
//! text. The full prompt is kept as a snapshot test
//! (`tests/it/snapshots/it__summary__prompt_*.snap`), and a test checks that every
//! seed line appears in it verbatim.

use std::fmt::Write as _;

use super::retention::{RetentionReport, RETAINED_PROMPT_CHARS};
use super::truncate_chars;

/// The prompt's opening, verbatim from seed 002 (client 2.1.235,
/// `cli.readable.js` 261901–262207). Every other line of the prompt is ours.
pub const SEED_VERBATIM_LINES: &[&str] = &[
    "CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.",
    "Your entire response must be plain text:",
    "an <analysis> block followed by a <summary> block.",
];

/// The nine section titles of the `<summary>`, in order (R7.3).
pub const SECTIONS: [&str; 9] = [
    "Primary Request and Intent",
    "Key Technical Concepts",
    "Files and Code Sections",
    "Errors and Fixes",
    "Problem Solving",
    "All User Messages",
    "Pending Tasks",
    "Current Work",
    "Optional Next Step",
];

/// What each section asks for, in the order of [`SECTIONS`] (our wording).
const SECTION_ASKS: [&str; 9] = [
    "Every explicit request of the user and the intent behind it, in detail, \
     including how they wanted it done.",
    "The technologies, frameworks, concepts and terms the work relies on.",
    "Every file that was read, searched, created or edited: why it matters, \
     what changed, and the code snippets or line ranges needed to continue.",
    "Every error met and how it was fixed, including the user's feedback on \
     it. Keep failures and corrections: they tell the next turn what not to \
     repeat.",
    "The problems solved so far and any troubleshooting still in progress.",
    "Every message the user wrote that is not a tool result, in order, \
     quoted verbatim. They carry the user's feedback and changing intent.",
    "The tasks the user asked for that are not done yet.",
    "Precisely what was being worked on just before this request, with file \
     names and code.",
    "The next step, only if it follows directly from the user's most recent \
     request; quote the latest messages verbatim to show where the work \
     stopped. If the last task is finished, propose no next step unless the \
     user asked for one.",
];

/// What shapes one summary prompt besides the fixed text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PromptOptions {
    /// The user's `/compact [instructions]` text (R3.2, R7.3). Blank text is
    /// the same as none.
    pub manual_instructions: Option<String>,
    /// Instructions added by PreCompact hooks, in hook order (R7.2). Blank
    /// entries are skipped.
    pub hook_instructions: Vec<String>,
    /// What an earlier summary left out (extension): the prompt lists the
    /// missing user messages and file paths and asks for them.
    pub retry: Option<RetentionReport>,
}

impl PromptOptions {
    /// The manual instructions, if any and not blank, trimmed.
    pub fn manual(&self) -> Option<&str> {
        self.manual_instructions
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
    }

    /// The hook instructions that are not blank, trimmed, in order.
    pub fn hooks(&self) -> impl Iterator<Item = &str> {
        self.hook_instructions
            .iter()
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
    }
}

/// The full summary prompt: the seed's opening, the `<analysis>` pass, the
/// nine sections, the expected format, then (when given) the manual
/// instructions, the hook instructions and the retry list, and a closing
/// reminder that tools are denied.
pub fn summary_prompt(options: &PromptOptions) -> String {
    let mut out = String::new();
    for line in SEED_VERBATIM_LINES {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(
        "\nDo not call Read, Bash, Grep, Glob, Edit, Write or any other tool: \
         tools are denied for this turn, and a tool call wastes the only turn \
         you have. Stop the work in progress. Your one task now is \
         to write a summary of the conversation so far, detailed enough that \
         the work can continue from it without the earlier messages.\n\n",
    );
    out.push_str(
        "First, inside <analysis> tags, go through the conversation in \
         chronological order. For each part, check:\n\
         - what the user asked for, explicitly, and how they wanted it done;\n\
         - which files were read, created or edited, and why;\n\
         - the decisions taken, and the reasons given for them;\n\
         - the errors met, and how each was fixed;\n\
         - the user's feedback, above all every correction or change of \
         direction.\n\
         Then check your draft for technical accuracy and for anything left \
         out.\n\n",
    );
    out.push_str(
        "Then, inside <summary> tags, write the summary in exactly these nine \
         numbered sections, in this order:\n\n",
    );
    for (i, (title, ask)) in SECTIONS.iter().zip(SECTION_ASKS).enumerate() {
        let _ = writeln!(out, "{}. {title}: {ask}", i + 1);
    }
    out.push_str(
        "\nThe shape of your reply:\n\n<analysis>\n[your chronological check]\n</analysis>\n\n<summary>\n",
    );
    for (i, title) in SECTIONS.iter().enumerate() {
        let _ = writeln!(out, "{}. {title}:\n   [...]\n", i + 1);
    }
    // The last section's blank line would sit before the closing tag.
    out.truncate(out.trim_end().len());
    out.push_str("\n</summary>\n");

    if let Some(manual) = options.manual() {
        out.push_str("\nThe user gave these instructions for this summary; follow them:\n");
        out.push_str(manual);
        out.push('\n');
    }
    for hook in options.hooks() {
        out.push_str("\nA PreCompact hook added these instructions for this summary; follow them:\n");
        out.push_str(hook);
        out.push('\n');
    }
    if let Some(report) = options.retry.as_ref().filter(|r| !r.is_complete()) {
        out.push_str(&retry_section(report));
    }

    out.push_str(
        "\nRemember: respond with text only, an <analysis> block followed by a \
         <summary> block, and call no tools.\n",
    );
    out
}

/// The retry list: what the previous summary left out.
fn retry_section(report: &RetentionReport) -> String {
    let mut out =
        String::from("\nYour previous summary left out these items. Include every one of them this time.\n");
    if !report.missing_prompts.is_empty() {
        let _ = writeln!(
            out,
            "User messages missing from section 6 ({}), quote each verbatim \
             (at most the first {RETAINED_PROMPT_CHARS} characters of each are shown):",
            SECTIONS[5]
        );
        for missing in &report.missing_prompts {
            let _ = writeln!(
                out,
                "- [{}] {}",
                missing.uuid,
                truncate_chars(&missing.text, RETAINED_PROMPT_CHARS)
            );
        }
    }
    if !report.missing_paths.is_empty() {
        let _ = writeln!(
            out,
            "Edited file paths missing from section 3 ({}), name each exactly:",
            SECTIONS[2]
        );
        for path in &report.missing_paths {
            let _ = writeln!(out, "- {path}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Uuid;
    use crate::summary::MissingPrompt;

    #[test]
    fn the_seed_lines_open_the_prompt_verbatim_and_in_order() {
        let prompt = summary_prompt(&PromptOptions::default());
        assert!(prompt.starts_with(&SEED_VERBATIM_LINES.join("\n")));
    }

    #[test]
    fn every_section_title_appears_numbered_twice_in_order() {
        let prompt = summary_prompt(&PromptOptions::default());
        let mut from = 0;
        for round in 0..2 {
            for (i, title) in SECTIONS.iter().enumerate() {
                let heading = format!("{}. {title}:", i + 1);
                let at = prompt[from..]
                    .find(&heading)
                    .unwrap_or_else(|| panic!("round {round}: {heading}"));
                from += at + heading.len();
            }
        }
    }

    #[test]
    fn blank_instructions_change_nothing() {
        let plain = summary_prompt(&PromptOptions::default());
        let blank = summary_prompt(&PromptOptions {
            manual_instructions: Some("  \n".into()),
            hook_instructions: vec![String::new(), " ".into()],
            retry: Some(RetentionReport::default()),
        });
        assert_eq!(plain, blank);
    }

    #[test]
    fn options_are_appended_in_order_after_the_format() {
        let prompt = summary_prompt(&PromptOptions {
            manual_instructions: Some("keep the probe results".into()),
            hook_instructions: vec!["hook one".into(), "hook two".into()],
            retry: Some(RetentionReport {
                missing_prompts: vec![MissingPrompt {
                    uuid: Uuid::from("u7"),
                    text: "x".repeat(RETAINED_PROMPT_CHARS + 5),
                }],
                missing_paths: vec!["src/lib.rs".into()],
            }),
        });
        let at = |needle: &str| prompt.find(needle).unwrap_or_else(|| panic!("{needle}"));
        assert!(at("</summary>") < at("keep the probe results"));
        assert!(at("keep the probe results") < at("hook one"));
        assert!(at("hook one") < at("hook two"));
        assert!(at("hook two") < at("[u7] "));
        assert!(at("[u7] ") < at("- src/lib.rs"));
        assert!(prompt.contains(" ...[5 chars removed]"));
    }
}
