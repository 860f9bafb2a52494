//! Attachments (SPEC R7.7): exact material restored after the summary, so
//! the model need not rely on the summary's retelling of recent files. The
//! engine cannot read files: it names the candidates, the host answers with
//! their contents (or why it could not), and the engine applies the budgets.
//! Each candidate ends restored, not chosen, over budget or failed, and the
//! step says which.

use serde::{Deserialize, Serialize};

use crate::compact::boundary::derived_uuid;
use crate::hash::KeySet;
use crate::message::Message;
use crate::summary::file_paths;
use crate::tokens::Estimator;
use crate::view::View;

/// R7.7's budgets, all settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentSettings {
    /// Most recently read or edited files restored (default 5).
    pub max_files: usize,
    /// Tokens per file; a longer file is cut to it with a marker (default
    /// 5,000).
    pub per_file_tokens: u64,
    /// Tokens for all files together (default 50,000).
    pub total_tokens: u64,
    /// Restore only the path, not the content (a newer-client preset).
    pub path_only: bool,
    /// Tokens per invoked skill (newer clients: 5,000).
    pub skill_tokens: u64,
    /// Tokens for all skills together (newer clients: 25,000).
    pub skills_total_tokens: u64,
    /// The host runs post-compact hooks: the engine pauses for their
    /// output (with the file answers) even when no file is asked for.
    pub post_compact_hooks: bool,
}

impl Default for AttachmentSettings {
    fn default() -> Self {
        AttachmentSettings {
            max_files: 5,
            per_file_tokens: 5_000,
            total_tokens: 50_000,
            path_only: false,
            skill_tokens: 5_000,
            skills_total_tokens: 25_000,
            post_compact_hooks: false,
        }
    }
}

/// The host's answer for one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileAnswer {
    /// The path asked for.
    pub path: String,
    /// Its content, or why it could not be read.
    pub content: Result<String, String>,
}

/// How one candidate ended (R7.7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "status")]
pub enum Status {
    /// Restored, `tokens` long; `cut` when it was longer than the per-file
    /// budget.
    Restored {
        /// Tokens restored.
        tokens: u64,
        /// Whether it was cut to the per-file budget.
        cut: bool,
    },
    /// Only its path was restored (path-only preset).
    PathOnly,
    /// Not among the most recent `max_files`.
    NotChosen,
    /// It would have taken the total over the budget.
    OverBudget {
        /// Its tokens (after the per-file cut).
        tokens: u64,
    },
    /// The host could not read it.
    Failed {
        /// The host's reason.
        reason: String,
    },
}

/// What an attachment restores (R7.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    /// A recently read or edited file.
    File,
    /// The current plan.
    Plan,
    /// The task list.
    TaskState,
    /// An invoked skill's instructions.
    Skill,
    /// An MCP server's instructions.
    Mcp,
    /// A post-compact hook's output.
    HookOutput,
}

impl Kind {
    /// The serialised name.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Plan => "plan",
            Kind::TaskState => "taskState",
            Kind::Skill => "skill",
            Kind::Mcp => "mcp",
            Kind::HookOutput => "hookOutput",
        }
    }
}

/// One candidate and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    /// What it is.
    pub kind: Kind,
    /// The file's path, or the item's name for the other kinds.
    pub path: String,
    /// How it ended.
    #[serde(flatten)]
    pub status: Status,
}

/// Files read or edited in the view, most recent first, each once.
pub fn candidate_paths(view: &View) -> Vec<String> {
    // A set beside the list: a session that read hundreds of distinct files
    // made the list's own scan quadratic (with the sandbox's own lists of
    // reads, 9% of a sandbox play with 200 extra groups).
    let mut seen = KeySet::<String>::default();
    let mut out = Vec::<String>::new();
    for entry in view.entries().iter().rev() {
        for block in entry.message.content.blocks().iter().rev() {
            if let Some((_, paths)) = file_paths(block) {
                for path in paths {
                    if !seen.contains(path.as_ref()) {
                        seen.insert(path.to_string());
                        out.push(path.into_owned());
                    }
                }
            }
        }
    }
    out
}

/// The paths whose contents the engine asks the host for.
pub fn requested(candidates: &[String], settings: &AttachmentSettings) -> Vec<String> {
    if settings.path_only {
        return Vec::new();
    }
    candidates.iter().take(settings.max_files).cloned().collect()
}

/// Applies the budgets to the host's answers: how each candidate ended, and
/// the attachment messages for the new view. A requested path the host did
/// not answer counts as failed.
pub fn restore(
    candidates: &[String],
    answers: &[FileAnswer],
    settings: &AttachmentSettings,
    estimator: &Estimator,
    seed: &str,
) -> (Vec<Candidate>, Vec<Message>) {
    let mut outcomes = Vec::new();
    let mut messages = Vec::new();
    let mut total = 0;
    for (i, path) in candidates.iter().enumerate() {
        let status = if i >= settings.max_files {
            Status::NotChosen
        } else if settings.path_only {
            messages.push(attachment(
                seed,
                path,
                &crate::text::concat("Recently used file (content not restored): ", path),
            ));
            Status::PathOnly
        } else {
            match answers.iter().find(|a| &a.path == path).map(|a| &a.content) {
                None => Status::Failed {
                    reason: "the host gave no answer for this file".to_owned(),
                },
                Some(Err(reason)) => Status::Failed {
                    reason: reason.clone(),
                },
                Some(Ok(content)) => {
                    let (text, cut) = cut_to(content, settings.per_file_tokens, estimator);
                    let tokens = estimator.text(&text);
                    if total + tokens > settings.total_tokens {
                        Status::OverBudget { tokens }
                    } else {
                        total += tokens;
                        let body = format!("Restored after compaction: {path}\n\n{text}");
                        messages.push(attachment(seed, path, &body));
                        Status::Restored { tokens, cut }
                    }
                }
            }
        };
        outcomes.push(Candidate {
            kind: Kind::File,
            path: path.clone(),
            status,
        });
    }
    (outcomes, messages)
}

pub(super) fn attachment(seed: &str, path: &str, text: &str) -> Message {
    Message::user(
        derived_uuid(&crate::text::concat3(seed, " attachment ", path)).0,
        text,
    )
}

/// `content` cut to about `tokens` tokens, on a character boundary, with a
/// marker saying how much was left out.
pub(super) fn cut_to(content: &str, tokens: u64, estimator: &Estimator) -> (String, bool) {
    if estimator.text(content) <= tokens {
        return (content.to_owned(), false);
    }
    let end = estimator.prefix_within(content, tokens);
    let left_out = crate::tokens::char_count(&content[end..]);
    (
        format!(
            "{}\n...[cut to {tokens} tokens: {left_out} more chars not restored]",
            &content[..end],
        ),
        true,
    )
}
