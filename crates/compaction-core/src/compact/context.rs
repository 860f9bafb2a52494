//! R7.7's attachment kinds other than files: the plan, the task list,
//! invoked skills, MCP server instructions and post-compact hook output.
//! Claude Code re-attaches these after the summary (seed 002: "最近文件、
//! Plan、Skills、MCP 与 Hook 附件", `cli.readable.js 263175-263235`) so the
//! model keeps exact working state rather than the summary's retelling.
//!
//! Where each comes from, sans-IO:
//! - **plan** and **task state**: the last `ExitPlanMode` plan and the last
//!   `TodoWrite` list in the view, unless the host registered its own
//!   ([`crate::engine::Engine::set_context`]);
//! - **skills**: the skills invoked in the view (`Skill` tool calls), most
//!   recent first, with the content the host registered for each name;
//!   budgets per skill and in total (newer clients: 5,000 and 25,000);
//! - **MCP**: every MCP server's instructions the host registered;
//! - **hook output**: what the host's post-compact hooks printed, passed
//!   with the file answers (R7.1: after the attachments, before the view
//!   is assembled).

use serde::{Deserialize, Serialize};

use super::attachments::{attachment, cut_to, AttachmentSettings, Candidate, Kind, Status};
use std::borrow::Cow;

use serde_json::value::RawValue;

use crate::message::{field_in, Block, Json, Message, Text};
use crate::tokens::Estimator;
use crate::view::View;

/// Context the host holds outside the messages and registers with the
/// engine, restored after a compaction (R7.7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextItem {
    /// What it is: `plan`, `taskState`, `skill` or `mcp` (`file` and
    /// `hookOutput` items are not registered: files are read on request,
    /// hook output comes with the file answers).
    pub kind: Kind,
    /// The skill's or MCP server's name; free for a plan or task list.
    pub name: String,
    /// The text restored.
    pub content: String,
}

/// What one post-compact hook printed (R7.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookOutput {
    /// The hook's name or command.
    pub hook: String,
    /// Its output, attached verbatim (cut to the per-file budget).
    pub output: String,
}

/// The inputs of the view's calls to `tool`, most recent first. A list,
/// not a lazy iterator: each caller's search over a lazy one was its own
/// copy of the nested loop (~1.7 KB of the modules for the tasks' alone).
fn tool_inputs<'a>(view: &'a View, tool: &str) -> Vec<&'a Json> {
    let mut inputs = Vec::new();
    for e in view.entries().iter().rev() {
        for b in e.message.content.blocks().iter().rev() {
            if let Block::ToolUse { name, input, .. } = b {
                if name == tool {
                    inputs.push(input);
                }
            }
        }
    }
    inputs
}

/// The last plan approved with `ExitPlanMode` in the view.
fn derived_plan(view: &View) -> Option<String> {
    tool_inputs(view, "ExitPlanMode")
        .into_iter()
        .find_map(|input| input.str_field("plan").map(Cow::into_owned))
}

/// The last `TodoWrite` list in the view, one line per task.
fn derived_tasks(view: &View) -> Option<String> {
    let todos = tool_inputs(view, "TodoWrite")
        .into_iter()
        .find_map(|input| input.field::<Vec<&RawValue>>("todos"))?;
    let lines: Vec<String> = todos
        .iter()
        .filter_map(|t| {
            let content = field_in::<Text>(t.get(), "content")?.0;
            let status = field_in::<Text>(t.get(), "status").map_or(Cow::Borrowed("pending"), |s| s.0);
            Some(format!("- [{status}] {content}"))
        })
        .collect();
    Some(lines.join("\n"))
}

/// Skills invoked in the view (`Skill` calls), most recent first, each once.
pub fn invoked_skills(view: &View) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for input in tool_inputs(view, "Skill") {
        let skill = input.str_field("skill").or_else(|| input.str_field("command"));
        if let Some(skill) = skill {
            if !seen.iter().any(|s| *s == skill) {
                seen.push(skill.into_owned());
            }
        }
    }
    seen
}

/// One restored item: its candidate and, when restored, its message.
struct Restorer<'a> {
    settings: &'a AttachmentSettings,
    estimator: &'a Estimator,
    seed: &'a str,
    outcomes: Vec<Candidate>,
    messages: Vec<Message>,
}

impl Restorer<'_> {
    /// Restores `content` cut to `limit` tokens under `heading`, unless it
    /// would take `spent` over `budget`; returns the tokens it took.
    fn restore(
        &mut self,
        kind: Kind,
        name: &str,
        heading: &str,
        content: &str,
        limit: u64,
        room: u64,
    ) -> u64 {
        let (text, cut) = cut_to(content, limit, self.estimator);
        let tokens = self.estimator.text(&text);
        let status = if tokens > room {
            Status::OverBudget { tokens }
        } else {
            let key = format!("{} {name}", kind.as_str());
            self.messages
                .push(attachment(self.seed, &key, &format!("{heading}\n\n{text}")));
            Status::Restored { tokens, cut }
        };
        let taken = if matches!(status, Status::Restored { .. }) {
            tokens
        } else {
            0
        };
        self.outcomes.push(Candidate {
            kind,
            path: name.to_owned(),
            status,
        });
        taken
    }

    fn fail(&mut self, kind: Kind, name: &str, reason: &str) {
        self.outcomes.push(Candidate {
            kind,
            path: name.to_owned(),
            status: Status::Failed {
                reason: reason.to_owned(),
            },
        });
    }
}

/// Restores the other kinds, in Claude Code's order after the files: plan,
/// task state, skills, MCP, hook output. Returns how each candidate ended
/// and the attachment messages.
pub fn restore(
    registered: &[ContextItem],
    view: &View,
    hooks: &[HookOutput],
    settings: &AttachmentSettings,
    estimator: &Estimator,
    seed: &str,
) -> (Vec<Candidate>, Vec<Message>) {
    let mut r = Restorer {
        settings,
        estimator,
        seed,
        outcomes: Vec::new(),
        messages: Vec::new(),
    };
    let per_item = r.settings.per_file_tokens;
    let own = |kind: Kind| {
        registered
            .iter()
            .find(|i| i.kind == kind)
            .map(|i| i.content.clone())
    };
    if let Some(plan) = own(Kind::Plan).or_else(|| derived_plan(view)) {
        r.restore(
            Kind::Plan,
            "plan",
            "The current plan (restored after compaction):",
            &plan,
            per_item,
            u64::MAX,
        );
    }
    if let Some(tasks) = own(Kind::TaskState).or_else(|| derived_tasks(view)) {
        r.restore(
            Kind::TaskState,
            "tasks",
            "The task list (restored after compaction):",
            &tasks,
            per_item,
            u64::MAX,
        );
    }
    let mut skills_left = r.settings.skills_total_tokens;
    for skill in invoked_skills(view) {
        let content = registered
            .iter()
            .find(|i| i.kind == Kind::Skill && i.name == skill)
            .map(|i| i.content.clone());
        match content {
            None => r.fail(
                Kind::Skill,
                &skill,
                "invoked, but the host registered no content for it",
            ),
            Some(content) => {
                let heading = crate::text::concat3("Skill ", &skill, " (restored after compaction):");
                let limit = r.settings.skill_tokens;
                skills_left -= r.restore(Kind::Skill, &skill, &heading, &content, limit, skills_left);
            }
        }
    }
    for item in registered.iter().filter(|i| i.kind == Kind::Mcp) {
        let heading = format!(
            "MCP server {} instructions (restored after compaction):",
            item.name
        );
        r.restore(Kind::Mcp, &item.name, &heading, &item.content, per_item, u64::MAX);
    }
    for hook in hooks {
        let heading = format!("Post-compact hook {} output:", hook.hook);
        r.restore(
            Kind::HookOutput,
            &hook.hook,
            &heading,
            &hook.output,
            per_item,
            u64::MAX,
        );
    }
    (r.outcomes, r.messages)
}
