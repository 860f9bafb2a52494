//! Tier 4 in the engine: automatic and manual compaction (SPEC R7), as a
//! sans-IO state machine. [`Engine::compact`] (manual, R3.2) or the cascade
//! (auto) starts a run; the engine then asks the host for a summary
//! ([`SummaryRequest`]) and for file contents ([`FileRequest`]), and
//! continues with each answer. Until the new view and the boundary both
//! exist the old view stays in force (R7.10).

use super::request::{Answer, Outcome, Request};
use super::Engine;
use crate::compact::attachments;
use crate::compact::cut::{self, Prefix};
use crate::compact::{
    CompactOptions, FileAnswer, FileRequest, HookOutcome, HookOutput, PreCompactRequest, Progress, Purpose,
    SummaryRequest, Trigger,
};
use crate::error::Error;
use crate::message::{Message, Uuid};
use crate::step::{Evidence, Owner, Step, Tier};
use crate::summary::offline::offline_summary_of;
use crate::summary::retention::check_retention_of;
use crate::summary::{parse_summary, summary_prompt, OfflineLimits, PromptOptions, RetentionReport};
use crate::tokens::TokenFigure;

/// A run in progress.
#[derive(Debug, Clone)]
pub(crate) struct Run {
    pub(crate) trigger: Trigger,
    pub(crate) reactive: bool,
    pub(super) options: PromptOptions,
    pub(super) prefix: Prefix,
    pub(super) attempt: u32,
    pub(super) model: usize,
    pub(super) pre: TokenFigure,
    pub(super) pending: Pending,
    pub(super) summary: Option<(String, RetentionReport)>,
    pub(super) candidates: Vec<String>,
    /// The view's uuids when the run was parked to wait for an answer: its
    /// prefix and preserved tail are positions in that view.
    pub(super) parked: Vec<Uuid>,
}

/// What a parked run waits for.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Pending {
    Summary(u64),
    Files(u64),
}

pub(super) const EVIDENCE_SUMMARY: Evidence = Evidence::SourceLocation {
    location: "cli.readable.js 261901-262207",
};
pub(super) const EVIDENCE_GROUPS: Evidence = Evidence::SourceLocation {
    location: "cli.readable.js 262209-262294",
};
pub(super) const EVIDENCE_ATTACH: Evidence = Evidence::SourceLocation {
    location: "cli.readable.js 263099-263235",
};
pub(super) const EVIDENCE_FINALIZE: Evidence = Evidence::SourceLocation {
    location: "cli.readable.js 331301-331367, 232845-232876",
};

/// A compaction waiting for the PreCompact hooks' answer (R7.2): it has
/// not cut anything yet.
#[derive(Debug, Clone)]
pub(crate) struct HookWait {
    pub(crate) id: u64,
    pub(crate) trigger: Trigger,
    pub(crate) reactive: bool,
    pub(crate) instructions: Option<String>,
}

/// A summary request's answer, as Tier 4, Tier 3 and the precompute take
/// it.
#[derive(Debug, Clone)]
pub(super) enum Reply {
    Text(String),
    Offline,
    Unavailable,
    TooLong,
    Failed(String),
}

impl Reply {
    /// The summary kinds of [`Answer`]; `None` for the others.
    pub(super) fn of(answer: Answer) -> Result<Reply, Answer> {
        Ok(match answer {
            Answer::Text { text } => Reply::Text(text),
            Answer::Offline => Reply::Offline,
            Answer::ModelUnavailable => Reply::Unavailable,
            Answer::PromptTooLong => Reply::TooLong,
            Answer::Failed { reason } => Reply::Failed(reason),
            other @ (Answer::Files { .. } | Answer::Hook(_)) => return Err(other),
        })
    }
}

impl Engine {
    /// Manual `/compact [instructions]` (R3.2): straight to Tier 4,
    /// skipping tiers 1–3. Never refused by a breaker (R10.3). The first
    /// request is always the PreCompact hooks' (R7.2).
    pub fn compact(&mut self, options: CompactOptions) -> Outcome {
        let started = self.begin(Trigger::Manual, false, options.instructions);
        let (steps, progress) = relabel(started, Tier::Compact);
        self.outcome(steps, Some(progress))
    }

    /// Starts a compaction: asks the PreCompact hooks first (R7.1, R7.2),
    /// whatever the trigger.
    pub(crate) fn begin(
        &mut self,
        trigger: Trigger,
        reactive: bool,
        instructions: Option<String>,
    ) -> (Vec<Step>, Progress) {
        let id = self.next_request();
        self.hook = Some(HookWait {
            id,
            trigger,
            reactive,
            instructions,
        });
        (Vec::new(), Progress::Waiting)
    }

    /// An outcome: these steps and progress, and every request pending now.
    pub(super) fn outcome(&self, steps: Vec<Step>, compaction: Option<Progress>) -> Outcome {
        Outcome {
            steps,
            requests: self.requests(),
            compaction,
        }
    }

    /// The PreCompact hooks answered: the compaction runs, or is blocked.
    pub(super) fn hook_answered(&mut self, wait: HookWait, hook: HookOutcome) -> (Vec<Step>, Progress) {
        let tier = if wait.reactive {
            Tier::Reactive
        } else {
            Tier::Compact
        };
        let started = self.start(wait.trigger, wait.reactive, wait.instructions, hook);
        relabel(started, tier)
    }

    /// A Tier 4 summary request answered.
    pub(super) fn tier4_summary(&mut self, id: u64, reply: Reply) -> Result<(Vec<Step>, Progress), Error> {
        let tier = self.run_tier();
        self.summary_answered(id, reply).map(|r| relabel(r, tier))
    }

    /// A Tier 4 file request answered (files, and the post-compact hooks'
    /// output: R7.1, after the attachments, before the new view).
    pub(super) fn tier4_files(
        &mut self,
        id: u64,
        answers: &[FileAnswer],
        hooks: &[HookOutput],
    ) -> Result<(Vec<Step>, Progress), Error> {
        let tier = self.run_tier();
        self.files_answered(id, answers, hooks).map(|r| relabel(r, tier))
    }

    /// The tier the run in progress reports its steps under.
    fn run_tier(&self) -> Tier {
        if self.run.as_ref().is_some_and(|r| r.reactive) {
            Tier::Reactive
        } else {
            Tier::Compact
        }
    }

    /// Whether a compaction is waiting for the host (its hooks or a run).
    pub(crate) fn compacting(&self) -> bool {
        self.hook.is_some() || self.run.is_some()
    }

    /// The request the compaction in progress waits on, if any.
    pub(super) fn tier4_request(&self) -> Option<Request> {
        if let Some(wait) = &self.hook {
            return Some(Request::PreCompact(PreCompactRequest {
                id: wait.id,
                trigger: wait.trigger,
                instructions: wait.instructions.clone(),
            }));
        }
        let run = self.run.as_ref()?;
        Some(match run.pending {
            // A run whose view moved has no valid request left (its answer
            // reports it abandoned); its prefix positions are stale.
            Pending::Summary(_) if self.moved_under(run) => return None,
            Pending::Summary(_) => Request::Summary(self.summary_request(run)),
            Pending::Files(id) => Request::Files(self.file_request(id, run)),
        })
    }

    fn start(
        &mut self,
        trigger: Trigger,
        reactive: bool,
        instructions: Option<String>,
        hook: HookOutcome,
    ) -> (Vec<Step>, Progress) {
        // A reply appended since a reduction read the original (R13.1):
        // what follows it is settled before the view is cut.
        let mut steps: Vec<Step> = self.settle_thinking(Tier::BudgetReduction).into_iter().collect();
        let pre = self.count();
        if let Some(reason) = &hook.block {
            steps.push(self.step(Tier::Compact, "R7.2", Owner::Hook, EVIDENCE_FINALIZE, pre, Vec::new(), 0,
                format!("a PreCompact hook blocked the compaction ({reason}): the history stays as it is, no boundary")));
            return (
                steps,
                Progress::Failed {
                    reason: format!("blocked by a PreCompact hook: {reason}"),
                },
            );
        }
        if !hook.added_instructions.is_empty() {
            steps.push(self.step(
                Tier::Compact,
                "R7.2",
                Owner::Hook,
                EVIDENCE_FINALIZE,
                pre,
                Vec::new(),
                0,
                format!(
                    "PreCompact hooks add {} instruction(s) to the prompt",
                    hook.added_instructions.len()
                ),
            ));
        }
        // R9.2: a precomputed summary whose messages still open the view is
        // reused, unless new instructions ask for a different one.
        // An open tool loop (R13.1): its signed thinking cannot follow a
        // summary, so the summary covers the whole view, the loop included.
        let open_loop = self.open_loop();
        if open_loop.is_none() {
            let (hit, precompute_step) = self.precompute_hit(instructions.as_deref(), &hook, pre);
            steps.extend(precompute_step);
            if let Some((len, reply)) = hit {
                return self.with_reply(Run::reusing(trigger, reactive, len, pre), steps, &reply);
            }
        }
        let manual_regime = trigger == Trigger::Manual || reactive;
        let prefix = if let Some(at) = open_loop {
            let uuid = &self.view.entries()[at].message.uuid;
            steps.push(self.step(Tier::Compact, "R13.1", Owner::Client, EVIDENCE_GROUPS, pre, vec![uuid.clone()], 0,
                format!("a tool loop is open at {uuid}: its signed thinking must be passed back over an unchanged prefix, so nothing is preserved after the summary; it summarises the whole view, the loop included")));
            Some(0..self.view.len())
        } else if manual_regime {
            cut::preserve_groups(&self.view, self.settings.compact.preserve_groups)
        } else {
            cut::preserve_turns_within(
                &self.view,
                self.settings.compact.auto_keep_turns,
                self.lines().compact,
            )
        };
        let Some(prefix) = prefix else {
            return (
                steps,
                Progress::Failed {
                    reason: "nothing to summarise: the view is one legal group".to_owned(),
                },
            );
        };
        let options = PromptOptions {
            manual_instructions: instructions,
            hook_instructions: hook.added_instructions,
            retry: None,
        };
        let id = self.next_request();
        let mut run = Run {
            trigger,
            reactive,
            options,
            prefix,
            attempt: 1,
            model: 0,
            pre,
            pending: Pending::Summary(id),
            summary: None,
            candidates: Vec::new(),
            parked: Vec::new(),
        };
        // Shorten before asking when the request is already over the window.
        while self.request_tokens(&run) > self.settings.thresholds.window {
            let gap = self.request_tokens(&run) - self.settings.thresholds.window;
            match self.retry_cut(&mut run, gap) {
                Some(step) => steps.push(step),
                None => {
                    return (
                        steps,
                        self.fail(
                            &run,
                            "the summary request is over the window and nothing is left to shorten",
                        ),
                    )
                }
            }
        }
        let preserved = self.view.len() - run.prefix.end;
        steps.push(self.step(
            Tier::Compact,
            "R7.5",
            Owner::Client,
            EVIDENCE_GROUPS,
            pre,
            self.uuids(run.prefix.clone()),
            0,
            format!(
                "cut into legal groups: {} message(s) to summarise, {preserved} preserved",
                run.prefix.len()
            ),
        ));
        let request = self.summary_request(&run);
        steps.push(self.step(
            Tier::Compact,
            "R7.3",
            Owner::Model,
            EVIDENCE_SUMMARY,
            pre,
            Vec::new(),
            1,
            format!(
                "one model turn with tools denied asks {} for the summary (~{} tokens)",
                request.model, request.estimated_tokens
            ),
        ));
        self.park(run);
        (steps, Progress::Waiting)
    }

    fn summary_answered(&mut self, id: u64, answer: Reply) -> Result<(Vec<Step>, Progress), Error> {
        let mut run = self.take_run(Pending::Summary(id))?;
        if self.moved_under(&run) {
            let reason = "the view changed while the compaction waited (a collapse or an expand): abandoned, the current view stays";
            return Ok((Vec::new(), self.fail(&run, reason)));
        }
        let mut steps = Vec::new();
        let text = match answer {
            Reply::Text(text) => text,
            Reply::Offline => {
                steps.push(self.step(
                    Tier::Compact,
                    "R7.3",
                    Owner::Client,
                    Evidence::Extension,
                    run.pre,
                    Vec::new(),
                    0,
                    "the offline summariser writes the summary (extractive, deterministic)".to_owned(),
                ));
                offline_summary_of(self.prefix(&run), &run.options, &OfflineLimits::default())
            }
            Reply::Failed(reason) => {
                return Ok((
                    steps,
                    self.fail(&run, &format!("the host could not get a summary: {reason}")),
                ))
            }
            Reply::Unavailable => {
                let chain = self.chain();
                if run.model + 1 < chain.len() {
                    run.model += 1;
                    steps.push(self.step(
                        Tier::Compact,
                        "R7.10",
                        Owner::Client,
                        EVIDENCE_ATTACH,
                        run.pre,
                        Vec::new(),
                        1,
                        format!(
                            "{} is unavailable: falling back to {}",
                            chain[run.model - 1],
                            chain[run.model]
                        ),
                    ));
                    return Ok(self.ask_again(run, steps));
                }
                if !self.settings.compact.offline_fallback {
                    return Ok((
                        steps,
                        self.fail(&run, "every model in the fallback chain is unavailable"),
                    ));
                }
                steps.push(self.step(Tier::Compact, "R7.10", Owner::Client, Evidence::Extension, run.pre, Vec::new(), 0,
                    "every model is unavailable: the offline summariser writes the summary (the host opted in)".to_owned()));
                offline_summary_of(self.prefix(&run), &run.options, &OfflineLimits::default())
            }
            Reply::TooLong => {
                let gap = self
                    .request_tokens(&run)
                    .saturating_sub(self.settings.thresholds.window);
                run.attempt += 1;
                let limit = !(run.trigger == Trigger::Manual || run.reactive)
                    && run.attempt > self.settings.compact.auto_max_attempts;
                match (limit, self.retry_cut(&mut run, gap)) {
                    (false, Some(step)) => {
                        steps.push(step);
                        return Ok(self.ask_again(run, steps));
                    }
                    _ => {
                        return Ok((
                            steps,
                            self.fail(&run, "the summary request stays over the window"),
                        ))
                    }
                }
            }
        };
        Ok(self.with_reply(run, steps, &text))
    }

    fn file_request(&self, id: u64, run: &Run) -> FileRequest {
        let settings = &self.settings.compact.attachments;
        FileRequest {
            id,
            paths: attachments::requested(&run.candidates, settings),
            post_compact_hooks: settings.post_compact_hooks,
        }
    }

    fn files_answered(
        &mut self,
        id: u64,
        answers: &[FileAnswer],
        hooks: &[HookOutput],
    ) -> Result<(Vec<Step>, Progress), Error> {
        let run = self.take_run(Pending::Files(id))?;
        if self.moved_under(&run) {
            let reason = "the view changed while the compaction waited (a collapse or an expand): abandoned, the current view stays";
            return Ok((Vec::new(), self.fail(&run, reason)));
        }
        Ok(self.finish(run, Vec::new(), answers, hooks))
    }

    pub(crate) fn with_reply(
        &mut self,
        mut run: Run,
        mut steps: Vec<Step>,
        text: &str,
    ) -> (Vec<Step>, Progress) {
        let summary = match parse_summary(text) {
            Ok(summary) => summary,
            Err(err) => return (steps, self.fail(&run, &err.to_string())),
        };
        let retention = check_retention_of(&summary, self.prefix(&run));
        steps.push(self.step(Tier::Compact, "R7.4", Owner::Client, EVIDENCE_SUMMARY, run.pre, Vec::new(), 0,
            if retention.is_complete() {
                "parsed the reply: analysis removed, summary kept; every user prompt and edited path survived".to_owned()
            } else {
                format!("parsed the reply; it lost {} user prompt(s) and {} edited path(s) (extension: retention check)",
                    retention.missing_prompts.len(), retention.missing_paths.len())
            }));
        run.summary = Some((summary, retention));
        run.candidates = attachments::candidate_paths(&self.view);
        let settings = &self.settings.compact.attachments;
        if !settings.post_compact_hooks && attachments::requested(&run.candidates, settings).is_empty() {
            return self.finish(run, steps, &[], &[]);
        }
        let id = self.next_request();
        run.pending = Pending::Files(id);
        self.park(run);
        (steps, Progress::Waiting)
    }

    fn ask_again(&mut self, mut run: Run, steps: Vec<Step>) -> (Vec<Step>, Progress) {
        let id = self.next_request();
        run.pending = Pending::Summary(id);
        self.park(run);
        (steps, Progress::Waiting)
    }

    /// Moves the cut for a retry (R7.5): manual/reactive preserve more tail
    /// groups; auto truncates the prefix.
    fn retry_cut(&self, run: &mut Run, gap: u64) -> Option<Step> {
        // Preserving more tail would keep an open loop's thinking after the
        // summary (R13.1): such a run drops the oldest groups instead.
        let manual = (run.trigger == Trigger::Manual || run.reactive) && run.prefix.end < self.view.len();
        let next = if manual {
            cut::shorten(&self.view, &run.prefix, gap)
        } else {
            cut::truncate(&self.view, &run.prefix, gap)
        }?;
        let what = if manual {
            "preserved more tail groups"
        } else {
            "dropped the oldest groups of the prefix"
        };
        run.prefix = next;
        Some(self.step(Tier::Compact, "R7.5", Owner::Client, EVIDENCE_GROUPS, run.pre, Vec::new(), 0,
            format!("the summary request is ~{gap} tokens over the window: {what}; {} message(s) left to summarise", run.prefix.len())))
    }

    pub(super) fn fail(&mut self, run: &Run, reason: &str) -> Progress {
        self.run = None;
        if run.trigger == Trigger::Auto {
            self.breakers.failed();
        }
        Progress::Failed {
            reason: reason.to_owned(),
        }
    }

    /// Parks a run until the host answers, remembering the view it cut.
    fn park(&mut self, mut run: Run) {
        run.parked = self
            .view
            .entries()
            .iter()
            .map(|e| e.message.uuid.clone())
            .collect();
        self.run = Some(run);
    }

    /// Whether the view changed under a parked run other than by appends
    /// (a collapse answer or an expand moved its positions).
    fn moved_under(&self, run: &Run) -> bool {
        let view = self.view.entries();
        view.len() < run.parked.len() || view.iter().zip(&run.parked).any(|(e, u)| &e.message.uuid != u)
    }

    fn take_run(&mut self, pending: Pending) -> Result<Run, Error> {
        match self.run.take() {
            Some(run) if run.pending == pending => Ok(run),
            other => {
                self.run = other;
                let id = match pending {
                    Pending::Summary(id) | Pending::Files(id) => id,
                };
                Err(Error::UnknownRequest { id })
            }
        }
    }

    fn chain(&self) -> Vec<String> {
        let c = &self.settings.compact;
        std::iter::once(c.model.clone())
            .chain(c.fallback_models.iter().cloned())
            .collect()
    }

    fn prefix_messages(&self, run: &Run) -> Vec<Message> {
        self.thinking_safe(run.prefix.start, self.prefix(run).cloned().collect())
    }

    /// The messages a run summarises, borrowed.
    fn prefix(&self, run: &Run) -> impl Iterator<Item = &Message> {
        self.view.entries()[run.prefix.clone()]
            .iter()
            .map(|e| &*e.message)
    }

    fn request_tokens(&self, run: &Run) -> u64 {
        let prompt = self.settings.estimator.text(&summary_prompt(&run.options));
        self.system_tokens + cut::tokens(&self.view, run.prefix.clone()) + prompt
    }

    fn summary_request(&self, run: &Run) -> SummaryRequest {
        let chain = self.chain();
        let id = match run.pending {
            Pending::Summary(id) | Pending::Files(id) => id,
        };
        SummaryRequest {
            id,
            purpose: Purpose::Compact,
            model: chain[run.model.min(chain.len() - 1)].clone(),
            fallback_models: chain.iter().skip(run.model + 1).cloned().collect(),
            messages: self.prefix_messages(run),
            prompt: summary_prompt(&run.options),
            estimated_tokens: self.request_tokens(run),
            attempt: run.attempt,
        }
    }

    fn uuids(&self, range: Prefix) -> Vec<Uuid> {
        self.view.entries()[range]
            .iter()
            .map(|e| e.message.uuid.clone())
            .collect()
    }

    pub(crate) fn next_request(&mut self) -> u64 {
        self.requests += 1;
        self.requests
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn step(
        &self,
        tier: Tier,
        rule: &'static str,
        owner: Owner,
        evidence: Evidence,
        before: TokenFigure,
        messages: Vec<Uuid>,
        model_calls: u32,
        reason: String,
    ) -> Step {
        Step {
            count_after: self.count(),
            messages,
            model_calls,
            ..Step::note(tier, rule, owner, evidence, before, reason)
        }
    }
}

/// Reports a reactive run's steps under Tier 5 (R8), and a failure as a
/// step of its own (R7.10).
pub(crate) fn relabel((mut steps, progress): (Vec<Step>, Progress), tier: Tier) -> (Vec<Step>, Progress) {
    if let Progress::Failed { reason } = &progress {
        let count = steps
            .last()
            .map(|s| s.count_after)
            .unwrap_or(TokenFigure::estimated(0));
        steps.push(Step::note(
            tier,
            "R7.10",
            Owner::Client,
            EVIDENCE_FINALIZE,
            count,
            format!("compaction failed ({reason}): the old view stays in force, no boundary is written"),
        ));
    }
    for step in &mut steps {
        if step.tier == Tier::Compact {
            step.tier = tier;
        }
    }
    (steps, progress)
}
