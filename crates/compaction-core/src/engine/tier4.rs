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
    CompactOptions, FileAnswer, FileRequest, HookOutcome, HookOutput, PreCompactRequest, Progress, Trigger,
};
use crate::error::Error;
use crate::message::Uuid;
use crate::step::{Evidence, Owner, Step, Tier};
use crate::summary::offline::offline_summary_of;
use crate::summary::retention::check_retention_of;
use crate::summary::{parse_summary, OfflineLimits, PromptOptions, RetentionReport};
use crate::tokens::TokenFigure;

/// A run in progress.
#[derive(Debug, Clone)]
pub(crate) struct Run {
    pub(crate) trigger: Trigger,
    pub(crate) reactive: bool,
    pub(super) options: PromptOptions,
    pub(super) prefix: Prefix,
    pub(super) attempt: u32,
    /// Truncations so far (auto and partial regime, R7.5: at most
    /// `auto_max_retries`).
    pub(super) truncations: u32,
    /// View positions before this one stay verbatim before the summary
    /// (partial compaction "from here"); 0 otherwise.
    pub(super) head_end: usize,
    /// A partial compaction (R7.5): the truncation regime whatever the
    /// trigger.
    pub(super) partial: bool,
    pub(super) model: usize,
    pub(super) pre: TokenFigure,
    pub(super) pending: Pending,
    pub(super) summary: Option<(String, RetentionReport)>,
    pub(super) candidates: Vec<String>,
    /// The view's uuids when the run was parked to wait for an answer: its
    /// prefix and preserved tail are positions in that view.
    pub(super) parked: Vec<Uuid>,
    /// How long the summary call took, when the host said (R7.9).
    pub(super) took: Option<u64>,
    /// Its summary request while pending, built once per state of the
    /// view and of the run ([`super::ask::Memo`]).
    pub(super) built: super::ask::Memo,
    /// The view's change counter when `parked` was last found in place.
    pub(super) in_place: super::ask::ViewMark,
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
    /// A partial compaction's choice (R7.5), resolved once the hooks allow.
    pub(crate) partial: Option<crate::compact::PartialCompact>,
}

/// A summary request's answer, as Tier 4, Tier 3 and the precompute take
/// it.
#[derive(Debug, Clone)]
pub(super) enum Reply {
    Text(String, Option<u64>),
    Offline,
    Unavailable,
    TooLong,
    Failed(String),
}

impl Reply {
    /// The summary kinds of [`Answer`]; `None` for the others.
    pub(super) fn of(answer: Answer) -> Result<Reply, Answer> {
        Ok(match answer {
            Answer::Text { text, duration_ms } => Reply::Text(text, duration_ms),
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
        let (steps, progress) = relabel(started, Tier::Compact, self.count());
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
            partial: None,
        });
        (Vec::new(), Progress::Waiting)
    }

    /// An outcome: these steps and progress, and every request pending now.
    /// (Not inlined: one copy for its nine callers.)
    #[inline(never)]
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
        let started = self.start(wait, hook);
        relabel(started, tier, self.count())
    }

    /// A Tier 4 summary request answered.
    pub(super) fn tier4_summary(&mut self, id: u64, reply: Reply) -> Result<(Vec<Step>, Progress), Error> {
        let tier = self.run_tier();
        let answered = self.summary_answered(id, reply);
        answered.map(|r| relabel(r, tier, self.count()))
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
        let answered = self.files_answered(id, answers, hooks);
        answered.map(|r| relabel(r, tier, self.count()))
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
            Pending::Summary(_) => Request::Summary(self.summary_request_built(run)),
            Pending::Files(id) => Request::Files(self.file_request(id, run)),
        })
    }

    fn start(&mut self, wait: HookWait, hook: HookOutcome) -> (Vec<Step>, Progress) {
        let HookWait {
            trigger,
            reactive,
            instructions,
            partial,
            ..
        } = wait;
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
                    reason: crate::text::concat("blocked by a PreCompact hook: ", reason),
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
        // A partial compaction summarises a part of its own choosing.
        if open_loop.is_none() && partial.is_none() {
            let (hit, precompute_step) = self.precompute_hit(instructions.as_deref(), &hook, pre);
            steps.extend(precompute_step);
            if let Some((len, reply)) = hit {
                return self.with_reply(Run::reusing(trigger, reactive, len, pre), steps, &reply);
            }
        }
        let manual_regime = trigger == Trigger::Manual || reactive;
        let mut head_end = 0;
        let prefix = if let Some(at) = open_loop {
            let uuid = &self.view.entries()[at].message.uuid;
            steps.push(self.step(Tier::Compact, "R13.1", Owner::Client, EVIDENCE_GROUPS, pre, vec![uuid.clone()], 0,
                format!("a tool loop is open at {uuid}: its signed thinking must be passed back over an unchanged prefix, so nothing is preserved after the summary; it summarises the whole view, the loop included")));
            Some(0..self.view.len())
        } else if let Some(p) = &partial {
            match self.partial_cut(p) {
                Ok((prefix, head)) => {
                    head_end = head;
                    Some(prefix)
                }
                Err(reason) => return (steps, Progress::Failed { reason }),
            }
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
            truncations: 0,
            head_end,
            partial: partial.is_some(),
            model: 0,
            pre,
            pending: Pending::Summary(id),
            summary: None,
            candidates: Vec::new(),
            parked: Vec::new(),
            took: None,
            built: Default::default(),
            in_place: Default::default(),
        };
        // Shorten before asking when the request is already over the window
        // (bounded: R7.5).
        if let Err(reason) = self.fit_window(&mut run, &mut steps) {
            return (steps, self.fail(&run, &reason));
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
        let request = self.summary_request_built(&run);
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
            Reply::Text(text, took) => {
                run.took = took;
                text
            }
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
                    self.fail(
                        &run,
                        &crate::text::concat("the host could not get a summary: ", &reason),
                    ),
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
                run.attempt += 1;
                return Ok(match self.after_too_long(&mut run) {
                    Ok(step) => {
                        steps.push(step);
                        self.ask_again(run, steps)
                    }
                    Err(reason) => (steps, self.fail(&run, &reason)),
                });
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

    pub(super) fn ask_again(&mut self, mut run: Run, steps: Vec<Step>) -> (Vec<Step>, Progress) {
        let id = self.next_request();
        run.pending = Pending::Summary(id);
        self.park(run);
        (steps, Progress::Waiting)
    }

    pub(super) fn fail(&mut self, run: &Run, reason: &str) -> Progress {
        self.run = None;
        // R10.1 counts automatic compactions; a reactive one (Tier 5) has
        // its own once-per-turn limit (R8.1).
        if run.trigger == Trigger::Auto && !run.reactive {
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
        run.in_place = super::ask::ViewMark::at(self.view.changes());
        self.run = Some(run);
    }

    /// Whether the view changed under a parked run other than by appends
    /// (a collapse answer or an expand moved its positions).
    fn moved_under(&self, run: &Run) -> bool {
        let view = self.view.entries();
        // Only a change other than an append can move it (see ViewMark).
        !run.in_place.passes(self.view.changes(), || {
            view.len() >= run.parked.len() && view.iter().zip(&run.parked).all(|(e, u)| &e.message.uuid == u)
        })
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
/// step of its own (R7.10) at `count`, the engine's count now: a failed
/// compaction left the view as it was.
pub(crate) fn relabel(
    (mut steps, progress): (Vec<Step>, Progress),
    tier: Tier,
    count: TokenFigure,
) -> (Vec<Step>, Progress) {
    if let Progress::Failed { reason } = &progress {
        steps.push(Step::note(
            tier,
            "R7.10",
            Owner::Client,
            EVIDENCE_FINALIZE,
            count,
            crate::text::concat3(
                "compaction failed (",
                reason,
                "): the old view stays in force, no boundary is written",
            ),
        ));
    }
    for step in &mut steps {
        if step.tier == Tier::Compact {
            step.tier = tier;
        }
    }
    (steps, progress)
}
