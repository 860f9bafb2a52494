//! A replay advanced a slice at a time ([`Replaying`]): the same walk as
//! [`Timeline::replay_with`], which runs one to its end, resumable between
//! any two timeline messages so that a page can yield to the browser.

use std::sync::Arc;

use super::{Actual, OfflineHost, Predicted, RealCount, Replay, ReplayOptions, TierEvent, Timeline};
use crate::compact::Progress;
use crate::engine::{drive, DriveError, Engine, EngineSettings, Preset};
use crate::error::Error;
use crate::message::{Role, Uuid};
use crate::step::Tier;
use crate::thresholds::Thresholds;

/// The last record appended: a timeline message, or the last message of
/// an era's opening (a compaction predicted before the era's first
/// message stands after the boundary).
#[derive(Debug, Clone, Copy)]
enum Last {
    Entry(usize),
    Opening(usize),
}

impl Last {
    fn uuid(self, timeline: &Timeline) -> Option<&Uuid> {
        match self {
            Last::Entry(at) => timeline.entries.get(at).map(|(m, _)| &m.uuid),
            Last::Opening(era) => timeline.openings.get(era).and_then(|o| o.last()).map(|m| &m.uuid),
        }
    }
}

/// One replay in progress: the engine, and what it found so far.
struct Run {
    engine: Engine,
    predicted: Vec<Predicted>,
    tiers: Vec<TierEvent>,
    /// The what-if's view is no longer the real one: count by estimate.
    diverged: bool,
    last: Option<Last>,
}

impl Run {
    /// The before-call decision for one request, every request answered
    /// offline; a started compaction is recorded as predicted.
    /// Returns the count the decision saw.
    fn request(&mut self, timeline: &Timeline, now: Option<&crate::time::Timestamp>) -> Result<u64, Error> {
        let engine = &mut self.engine;
        let decision = engine.before_call(now);
        let last = self.last.and_then(|l| l.uuid(timeline));
        if let Some(at) = last {
            for step in &decision.steps {
                use crate::step::Tier::{Collapse, Microcompact, Snip};
                if matches!(step.tier, Snip | Collapse) {
                    // The what-if's view is no longer the real one.
                    self.diverged = true;
                }
                if matches!(step.tier, Microcompact | Snip | Collapse)
                    && step.count_before != step.count_after
                {
                    self.tiers.push(TierEvent {
                        at_uuid: at.clone(),
                        tier: step.tier,
                        rule: step.rule,
                        tokens_before: step.count_before.tokens,
                        tokens_after: step.count_after.tokens,
                    });
                }
            }
        }
        // Every request answered offline, through the engine's driver.
        let out = match drive(engine, &mut OfflineHost) {
            Ok(out) => out,
            Err(DriveError::Engine(e)) => return Err(e),
            Err(DriveError::Host { cause, .. }) => match cause {},
        };
        // Any compaction that got as far as its summary counts (a
        // precompute hit finishes it without asking for one).
        let compacted = matches!(out.compaction, Some(Progress::Compacted { .. }));
        let started = decision.compaction.is_some()
            && (compacted
                || out
                    .steps
                    .iter()
                    .any(|s| s.tier != Tier::Collapse && s.rule == "R7.3"));
        if let (true, Some(at)) = (started, last) {
            self.predicted.push(Predicted {
                at_uuid: at.clone(),
                tokens: decision.count.tokens,
            });
        }
        self.diverged |= compacted;
        Ok(decision.count.tokens)
    }

    /// Appends timeline message `at` (without its usage once diverged).
    fn append(&mut self, timeline: &Timeline, at: usize) -> Result<(), Error> {
        let Some(entry) = timeline.entries.get(at) else {
            return Ok(());
        };
        let appended = if self.diverged {
            super::without_usage(entry)
        } else {
            &entry.0
        };
        self.last = Some(Last::Entry(at));
        // A uuid seen twice (a resumed file) is the same message.
        match self.engine.append_shared(Arc::clone(appended)) {
            Ok(()) | Err(Error::DuplicateUuid { .. }) => Ok(()),
            Err(other) => Err(other),
        }
    }
}

/// A replay of a [`Timeline`] in progress, advanced by [`Replaying::step`]
/// a slice of messages at a time, always with the timeline it was started
/// for; [`Replaying::finish`] gives the [`Replay`] once `step` says done.
/// The result is the one [`Timeline::replay_with`] gives.
pub struct Replaying {
    preset: Preset,
    fresh: EngineSettings,
    options: ReplayOptions,
    lines: Thresholds,
    run: Run,
    /// The era being walked, and whether its opening was appended.
    era: usize,
    opened: bool,
    /// The next timeline message.
    at: usize,
    /// The next recorded microcompaction.
    microcompaction: usize,
    /// The count the era's last decision saw.
    checked: Option<u64>,
    at_real: Vec<RealCount>,
    /// The what-if's count at each request so far.
    counts: Vec<u64>,
    /// The last era's engine, replaced at a real boundary and released a
    /// slice of messages per step ([`Engine::release`]) before the replay
    /// goes on.
    retired: Option<Engine>,
}

/// Messages released per message of a step's budget: a replayed message
/// took about 1.8 us natively (the 1M-record session's replay, 1.8 s), a
/// released one 0.08-0.1 us.
const RELEASED_PER_MESSAGE: usize = 20;

impl Replaying {
    /// A replay of a timeline with `settings` and `options`, not started.
    pub fn new(preset: Preset, mut settings: EngineSettings, options: ReplayOptions) -> Result<Self, Error> {
        if options.follow_real {
            // The real usage already counts what the client cleared; the
            // file says which results (`microcompact_boundary`).
            settings.microcompact.eligible_tools.clear();
        }
        let fresh = settings.clone();
        let engine = Engine::new(settings)?;
        let lines = engine.lines().clone();
        Ok(Replaying {
            preset,
            fresh,
            options,
            lines,
            run: Run {
                engine,
                predicted: Vec::new(),
                tiers: Vec::new(),
                diverged: false,
                last: None,
            },
            era: 0,
            opened: false,
            at: 0,
            microcompaction: 0,
            checked: None,
            at_real: Vec::new(),
            counts: Vec::new(),
            retired: None,
        })
    }

    /// The timeline messages replayed so far.
    pub fn done(&self) -> usize {
        self.at
    }

    /// Replays up to about `budget` more messages of `timeline` (an era's
    /// opening counts as one), or releases the last era's engine
    /// ([`RELEASED_PER_MESSAGE`] messages per message of `budget`); true
    /// once the whole timeline is replayed and the last engine released.
    pub fn step(&mut self, timeline: &Timeline, budget: usize) -> Result<bool, Error> {
        if let Some(old) = self.retired.as_mut() {
            if !old.release(budget.saturating_mul(RELEASED_PER_MESSAGE)) {
                return Ok(false);
            }
            self.retired = None;
        }
        let done = self.advance(timeline, budget)?;
        Ok(done && self.retired.is_none())
    }

    /// [`Replaying::step`]'s replay.
    fn advance(&mut self, timeline: &Timeline, budget: usize) -> Result<bool, Error> {
        let mut spent = 0;
        while let Some(&(start, boundary)) = timeline.eras.get(self.era) {
            if !self.opened {
                self.open(timeline, start, boundary)?;
                spent += 1;
            }
            let end = timeline
                .eras
                .get(self.era + 1)
                .map_or(timeline.entries.len(), |next| next.0);
            while self.at < end {
                if spent >= budget {
                    return Ok(false);
                }
                self.message(timeline)?;
                spent += 1;
            }
            self.close(timeline)?;
            self.era += 1;
            self.opened = false;
            if spent >= budget {
                return Ok(self.era >= timeline.eras.len());
            }
        }
        Ok(true)
    }

    /// The what-if's count (R1.6) at each request replayed so far: one per
    /// assistant message of the timeline, in order, as its decision saw it.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// The replay's result (of what was replayed: all of it once
    /// [`Replaying::step`] said so).
    pub fn finish(self, timeline: &Timeline) -> Replay {
        Replay {
            preset: self.preset.name(),
            lines: self.lines,
            predicted: self.run.predicted,
            tiers: self.run.tiers,
            actual: timeline.actual.clone(),
            at_real: self.at_real,
        }
    }

    /// Starts the era at `start`, opened by real boundary `boundary`.
    fn open(&mut self, timeline: &Timeline, start: usize, boundary: Option<usize>) -> Result<(), Error> {
        self.opened = true;
        self.at = start;
        self.checked = None;
        let run = &mut self.run;
        // The era's messages, to size the engine's indices once (a
        // 1M-message era would rehash them at each doubling, the last
        // time in one slice of 120 ms in the page).
        let end = timeline
            .eras
            .get(self.era + 1)
            .map_or(timeline.entries.len(), |next| next.0);
        let messages = end.saturating_sub(start);
        if self.options.follow_real && boundary.is_some() {
            // Resume from the real compacted view; the last one is
            // released in the next steps.
            let old = std::mem::replace(&mut run.engine, Engine::new(self.fresh.clone())?);
            self.retired = Some(old);
            let opening = timeline.openings.get(self.era).map_or(0, Vec::len);
            run.engine.reserve(messages + opening);
            run.diverged = false;
            for (i, m) in timeline.openings.get(self.era).into_iter().flatten().enumerate() {
                let appended = if i == 0 {
                    run.engine.append_summary((**m).clone())
                } else {
                    run.engine.append_shared(Arc::clone(m))
                };
                match appended {
                    Ok(()) | Err(Error::DuplicateUuid { .. }) => {}
                    Err(other) => return Err(other),
                }
            }
            // A compaction predicted before the era's first message
            // stands after the boundary, not at a timeline message.
            run.last = timeline
                .openings
                .get(self.era)
                .is_some_and(|o| !o.is_empty())
                .then_some(Last::Opening(self.era));
        } else {
            run.engine.reserve(messages);
            // After a real boundary the real usage describes the real
            // client's compacted view, not the what-if's.
            run.diverged |= boundary.is_some();
        }
        Ok(())
    }

    /// The next timeline message: the microcompactions recorded before it,
    /// the request it answers, then the message itself.
    fn message(&mut self, timeline: &Timeline) -> Result<(), Error> {
        let at = self.at;
        while let Some((_, ids)) = timeline
            .microcompactions
            .get(self.microcompaction)
            .filter(|(before, _)| *before <= at)
        {
            if self.options.follow_real {
                self.run.engine.clear_results_recorded(ids);
            }
            self.microcompaction += 1;
        }
        let Some((message, _)) = timeline.entries.get(at) else {
            self.at += 1;
            return Ok(());
        };
        let response = message.role == Role::Assistant;
        let now = message.timestamp.as_ref();
        if response && self.options.counts_appended {
            let tokens = self.run.request(timeline, now)?;
            self.counts.push(tokens);
        }
        self.run.append(timeline, at)?;
        if response && !self.options.counts_appended {
            self.checked = Some(self.run.engine.count().tokens);
            let tokens = self.run.request(timeline, now)?;
            self.counts.push(tokens);
        }
        self.at += 1;
        Ok(())
    }

    /// Ends the era: at a real automatic boundary the client was about to
    /// send a request, and checked the count first.
    fn close(&mut self, timeline: &Timeline) -> Result<(), Error> {
        let next = timeline.eras.get(self.era + 1).and_then(|&(_, b)| b);
        let Some(b) = next.filter(|&b| timeline.actual.get(b).is_some_and(Actual::is_auto)) else {
            return Ok(());
        };
        if let Some(real) = timeline.actual.get(b) {
            let tokens = match (self.options.counts_appended, self.checked) {
                (false, Some(tokens)) => tokens,
                _ => self.run.engine.count().tokens,
            };
            self.at_real.push(RealCount {
                uuid: real.uuid.clone(),
                tokens,
            });
        }
        // A client that counts only the last response's usage decided on
        // it already, right after that response.
        if self.options.counts_appended || self.checked.is_none() {
            let now = timeline.actual_times.get(b).and_then(Option::as_ref);
            self.run.request(timeline, now)?;
        }
        Ok(())
    }
}

impl Timeline {
    /// Replays the timeline through an engine with `settings` and `options`
    /// ([`Replaying`], run to its end).
    pub fn replay_with(
        &self,
        preset: Preset,
        settings: EngineSettings,
        options: ReplayOptions,
    ) -> Result<Replay, Error> {
        let mut replaying = Replaying::new(preset, settings, options)?;
        while !replaying.step(self, usize::MAX)? {}
        Ok(replaying.finish(self))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers may fail loudly

    use super::super::ReplayOptions;
    use super::Replaying;
    use crate::engine::Preset;
    use crate::transcript::{import, Transcript};

    /// A session of three eras (two real automatic boundaries), a large
    /// result its client cleared (`microcompact_boundary`), and requests
    /// that grow past a small window's line.
    fn eras() -> Transcript {
        let mut lines = Vec::new();
        let mut parent = "null".to_owned();
        let mut k = 0;
        for era in 0..3 {
            for i in 0..40 {
                k += 1;
                let (u, tokens) = (format!("u{k}"), 2_000 + 1_500 * i);
                lines.push(if i % 2 == 0 {
                    let content = if i == 10 {
                        format!(r#"[{{"type":"tool_result","tool_use_id":"toolu_{}","content":"{}"}}]"#, k - 1, "x".repeat(40_000))
                    } else {
                        format!(r#""prompt {k} {}""#, "y".repeat(400))
                    };
                    format!(r#"{{"type":"user","uuid":"{u}","parentUuid":{parent},"version":"2.1.39","timestamp":"2026-01-01T00:00:{:02}Z","message":{{"role":"user","content":{content}}}}}"#, i)
                } else {
                    let content = if i == 9 {
                        format!(r#"[{{"type":"tool_use","id":"toolu_{k}","name":"Read","input":{{"file_path":"/a"}}}}]"#)
                    } else {
                        r#"[{"type":"text","text":"reply"}]"#.to_owned()
                    };
                    format!(r#"{{"type":"assistant","uuid":"{u}","parentUuid":{parent},"message":{{"id":"msg_{k}","role":"assistant","model":"claude-opus-4-6","content":{content},"usage":{{"input_tokens":{tokens},"output_tokens":20}}}}}}"#)
                });
                parent = format!(r#""{u}""#);
                if era == 1 && i == 12 {
                    k += 1;
                    lines.push(format!(r#"{{"type":"system","subtype":"microcompact_boundary","uuid":"m{k}","parentUuid":{parent},"microcompactMetadata":{{"trigger":"auto","preTokens":30000,"tokensSaved":10000,"compactedToolIds":["toolu_{}"]}}}}"#, k - 4));
                    parent = format!(r#""m{k}""#);
                }
            }
            if era < 2 {
                k += 1;
                lines.push(format!(r#"{{"type":"system","subtype":"compact_boundary","uuid":"b{k}","parentUuid":null,"logicalParentUuid":{parent},"compactMetadata":{{"trigger":"auto","preTokens":60000}}}}"#));
                k += 1;
                lines.push(format!(r#"{{"type":"user","uuid":"s{k}","parentUuid":"b{}","isCompactSummary":true,"message":{{"role":"user","content":"Summary: x"}}}}"#, k - 1));
                parent = format!(r#""s{k}""#);
            }
        }
        import(lines.join("\n").as_bytes())
    }

    #[test]
    fn a_timeline_laid_out_and_replayed_a_message_at_a_time_is_the_whole_one() {
        let t = eras();
        assert_eq!(t.boundaries.len(), 2);
        assert_eq!(t.microcompactions.len(), 1);
        let whole = t.timeline();
        let mut laying = t.lay_out();
        let mut steps = 0;
        while !laying.step(&t, 1) {
            steps += 1;
        }
        let sliced = laying.finish();
        assert!(steps > 100, "{steps} steps");
        assert_eq!(format!("{sliced:?}"), format!("{whole:?}"));
        let mut predicted = 0;
        for window in [200_000, 50_000, 40_000] {
            for follow_real in [true, false] {
                let options = ReplayOptions {
                    follow_real,
                    ..ReplayOptions::default()
                };
                let settings = Preset::Client21.settings(window);
                let expected = whole
                    .replay_with(Preset::Client21, settings.clone(), options)
                    .unwrap();
                let mut replaying = Replaying::new(Preset::Client21, settings, options).unwrap();
                // Steps that found an engine still to release.
                let mut releasing = 0;
                while !replaying.step(&whole, 1).unwrap() {
                    releasing += usize::from(replaying.retired.is_some());
                }
                // An era's engine (40 messages and more) is released 20
                // messages a step.
                assert!(!follow_real || releasing >= 4, "{releasing}");
                let requests = whole
                    .entries
                    .iter()
                    .filter(|(m, _)| m.role == crate::message::Role::Assistant);
                assert_eq!(replaying.counts().len(), requests.count());
                assert_eq!(replaying.finish(&whole), expected, "window {window}, {options:?}");
                predicted += expected.predicted.len() + expected.tiers.len();
            }
        }
        // The small windows compact or clear on the way: the slices cross
        // the engine's own steps, not only appends.
        assert!(predicted > 0);
    }

    /// The evidence of missing records, its tool ids collected a message
    /// at a time, is the evidence found at once: a call answered only
    /// after the boundary lacks nothing, one never answered is reported.
    #[test]
    fn the_lacks_laid_out_a_message_at_a_time_are_the_whole_ones() {
        let lines = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"go"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{}},{"type":"tool_use","id":"toolu_2","name":"Read","input":{}}]}}"#,
            r#"{"type":"system","subtype":"compact_boundary","uuid":"b1","parentUuid":null,"logicalParentUuid":"a1","compactMetadata":{"trigger":"auto","preTokens":1000}}"#,
            r#"{"type":"user","uuid":"s1","parentUuid":"b1","isCompactSummary":true,"message":{"role":"user","content":"Summary"}}"#,
            r#"{"type":"user","uuid":"r1","parentUuid":"s1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}}"#,
        ];
        let t = import(lines.join("\n").as_bytes());
        let whole = t.timeline();
        assert_eq!(whole.actual.len(), 1);
        assert_eq!(
            whole.actual.first().map(|a| a.lacks.len()),
            Some(1),
            "{:?}",
            whole.actual
        );
        let mut laying = t.lay_out();
        while !laying.step(&t, 1) {}
        assert_eq!(format!("{:?}", laying.finish()), format!("{whole:?}"));
    }
}
