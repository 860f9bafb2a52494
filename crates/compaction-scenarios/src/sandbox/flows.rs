//! The flow diagrams the sandbox draws (seed 002's three, seed 000 §4's
//! cascade), and which stage each step lights up.

use serde::Serialize;

use super::{Moment, Outcome};
use compaction_core::step::{Step, Tier};

/// One box of a flow diagram, and the steps that light it up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stage {
    /// The box's text.
    pub label: &'static str,
    /// What happens there, in one line.
    pub detail: &'static str,
    /// Rule ids whose steps happen here (`R7.5` also matches `R7.5.x`).
    pub rules: &'static [&'static str],
    /// Tiers whose steps happen here, whatever the rule.
    pub tiers: &'static [Tier],
}

/// A flow diagram: seed 002's three (the manual path, the rebuild, the
/// failure branches) and seed 000 §4's cascade.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Flow {
    /// Short name.
    pub id: &'static str,
    /// Heading.
    pub title: &'static str,
    /// The boxes, in order.
    pub stages: &'static [Stage],
}

impl Flow {
    /// The stage a step happens in, if this diagram shows it.
    pub fn stage_of(&self, step: &Step) -> Option<usize> {
        self.stages.iter().position(|s| {
            s.tiers.contains(&step.tier)
                || s.rules.iter().any(|r| {
                    step.rule == *r
                        || step
                            .rule
                            .strip_prefix(r)
                            .is_some_and(|rest| rest.starts_with('.'))
                })
        })
    }
}

const fn stage(
    label: &'static str,
    detail: &'static str,
    rules: &'static [&'static str],
    tiers: &'static [Tier],
) -> Stage {
    Stage {
        label,
        detail,
        rules,
        tiers,
    }
}

/// The four diagrams.
pub const FLOWS: [Flow; 4] = [
    Flow {
        id: "cascade",
        title: "Before every call: the cascade (seed 000 §4)",
        stages: &[
            stage(
                "Budget reduction",
                "oversized tool results trimmed on arrival (R2)",
                &[],
                &[Tier::BudgetReduction],
            ),
            stage(
                "Count vs lines",
                "the count against warn / compact / blocked (R1.7)",
                &[],
                &[Tier::Lines],
            ),
            stage(
                "Tier 1 microcompact",
                "old tool results cleared (R4)",
                &[],
                &[Tier::Microcompact],
            ),
            stage("Tier 2 snip", "oldest turns dropped (R5)", &[], &[Tier::Snip]),
            stage(
                "Tier 3 collapse",
                "old segments summarised (R6)",
                &[],
                &[Tier::Collapse],
            ),
            stage(
                "Tier 4 compact",
                "summary + preserved tail + attachments (R7)",
                &[],
                &[Tier::Compact],
            ),
            stage(
                "Tier 5 reactive",
                "prompt too long (413, the API's 400): collapse recovery, then emergency compaction (R8.1)",
                &[],
                &[Tier::Reactive],
            ),
        ],
    },
    Flow {
        id: "manual",
        title: "The manual /compact path (seed 002)",
        stages: &[
            stage(
                "PreCompact hook",
                "allow, block, or add instructions (R7.2)",
                &["R7.2"],
                &[],
            ),
            stage(
                "Precomputed summary?",
                "reuse it if it still fits (R9)",
                &["R9"],
                &[],
            ),
            stage(
                "Cut into legal groups",
                "what to summarise, what to keep (R7.5)",
                &["R7.5"],
                &[],
            ),
            stage(
                "Summary request",
                "one model turn, tools denied (R7.3)",
                &["R7.3"],
                &[],
            ),
            stage(
                "Parse the reply",
                "analysis removed, summary kept (R7.4)",
                &["R7.4"],
                &[],
            ),
            stage(
                "Restore files",
                "recent files within budgets (R7.7)",
                &["R7.7"],
                &[],
            ),
            stage(
                "Boundary",
                "new view in force, boundary written (R7.9)",
                &["R7.9"],
                &[],
            ),
        ],
    },
    Flow {
        id: "rebuild",
        title: "The rebuilt request (seed 002)",
        stages: &[
            stage(
                "Summary",
                "the model's summary of the older prefix (R7.3, R7.4)",
                &["R7.3", "R7.4"],
                &[],
            ),
            stage(
                "Preserved messages",
                "the legal tail groups, verbatim (R7.5)",
                &["R7.5"],
                &[],
            ),
            stage(
                "Attachments",
                "re-read files, plan, skills (R7.7)",
                &["R7.7"],
                &[],
            ),
            stage(
                "Boundary",
                "compact_boundary with pre/post tokens (R7.9)",
                &["R7.9"],
                &[],
            ),
            stage("New input", "the next request continues from here", &[], &[]),
        ],
    },
    Flow {
        id: "failures",
        title: "Failure branches (seed 002): no half-built history",
        stages: &[
            stage(
                "Hook blocks",
                "the original history stays; no boundary (R7.2)",
                &["R7.2"],
                &[],
            ),
            stage(
                "Summary over the window",
                "preserve more tail groups and retry (R7.5)",
                &["R7.5"],
                &[],
            ),
            stage(
                "Model unavailable",
                "the fallback model answers (R7.10)",
                &["R7.10"],
                &[],
            ),
            stage(
                "A file cannot be read",
                "recorded; less exact material (R7.7)",
                &["R7.7"],
                &[],
            ),
            stage(
                "Auto keeps failing",
                "the breaker stops auto-compaction; /compact still works (R10)",
                &["R10", "R10.1"],
                &[],
            ),
        ],
    },
];

/// The stages of `flow` that `steps` (the current step, or the event's)
/// light at moment `m`: the `failures` diagram's are the branches the
/// event took ([`failure_stages`]); the `rebuild` diagram lights nothing
/// unless the compaction finished (a failed or blocked one built no new
/// request, whatever steps it got through); the others light the stage of
/// each step.
pub fn lit(flow: &Flow, steps: &[Step], m: &Moment) -> Vec<usize> {
    match flow.id {
        "failures" => failure_stages(m),
        "rebuild" if !matches!(m.outcome, Some(Outcome::Compacted { .. })) => Vec::new(),
        _ => steps.iter().filter_map(|s| flow.stage_of(s)).collect(),
    }
}

/// The stages of the `failures` diagram a compaction went through: the hook
/// blocked (0), the summary request was retried with more tail preserved
/// (1), a fallback model answered (2), a file was not restored (3), a
/// breaker step (4). Read from the moment's steps and outcome.
pub fn failure_stages(m: &Moment) -> Vec<usize> {
    let has = |rule: &str| m.frame.steps.iter().any(|s| s.rule == rule);
    let compacted = matches!(m.outcome, Some(Outcome::Compacted { .. }));
    let failed = matches!(m.outcome, Some(Outcome::Failed { .. }));
    let lost_file = matches!(&m.outcome, Some(Outcome::Compacted { attachments, .. })
        if attachments.iter().any(|c| c.kind == compaction_core::compact::attachments::Kind::File
            && matches!(c.status, compaction_core::compact::attachments::Status::Failed { .. })));
    let retries = m.frame.steps.iter().filter(|s| s.rule == "R7.5").count() > 1;
    let breaker = m.frame.steps.iter().any(|s| s.rule.starts_with("R10"));
    [
        failed && has("R7.2"),
        retries,
        compacted && has("R7.10"),
        lost_file,
        breaker,
    ]
    .iter()
    .enumerate()
    .filter_map(|(i, &on)| on.then_some(i))
    .collect()
}
