//! Playing a scenario through the engine: the host a [`HostPolicy`]
//! describes answers every request, an [`Observer`] watches each event,
//! and each non-append event leaves a [`Frame`].

use serde::Serialize;

use compaction_core::compact::{
    CompactOptions, FileAnswer, HookOutcome, PreCompactRequest, Progress, Purpose, SummaryRequest,
};
use compaction_core::engine::{drive, Answer, CallStatus, DriveError, Engine, Host};
use compaction_core::error::Error;
use compaction_core::hash::HashMap;
use compaction_core::message::{Block, ToolResultContent};
use compaction_core::step::Step;
use compaction_core::tokens::TokenFigure;

use crate::{Event, Scenario};

/// How the host answers the engine's requests.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HostPolicy {
    /// The primary model is unavailable (R7.10: the fallback answers).
    pub primary_unavailable: bool,
    /// The first summary request comes back as too long (R7.5).
    pub first_request_too_long: bool,
    /// Paths whose reads fail (R7.7).
    pub failing_files: Vec<String>,
    /// The PreCompact hook's output, for every compaction (R7.2).
    pub hook: HookOutcome,
    /// Every model is unavailable and no offline fallback: compactions fail.
    pub all_models_down: bool,
}

/// What one event did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Frame {
    /// The event's index in the scenario.
    pub event: usize,
    /// What kind of event (`call`, `compact`, `413`).
    pub kind: &'static str,
    /// The steps it produced, in order.
    pub steps: Vec<Step>,
    /// The count after it.
    pub count: TokenFigure,
    /// The call's status, for calls.
    pub status: Option<CallStatus>,
    /// Messages in the view after it.
    pub view_len: usize,
}

/// Plays a scenario: appends, calls `before_call`, runs compactions, and
/// answers every request per `policy` with the offline summariser. Returns
/// a frame per event that is not an append, and the engine at the end.
pub fn play(scenario: &Scenario, policy: &HostPolicy) -> Result<(Vec<Frame>, Engine), Error> {
    play_observed(scenario, policy, &mut ())
}

/// Watches a scenario being played: the sandbox uses it to see the view
/// around each event and how each compaction ended. Both methods do
/// nothing by default.
pub trait Observer {
    /// Before a non-append event, with the engine as it stands; steps
    /// returned go first in the event's frame (a host action, such as
    /// loading a stored precompute).
    fn before(&mut self, _engine: &mut Engine, _event: &Event) -> Vec<Step> {
        Vec::new()
    }
    /// After a non-append event: its frame, and how the compaction it ran
    /// ended (`Compacted` or `Failed`), if it ran one to the end.
    fn after(&mut self, _engine: &Engine, _frame: &Frame, _end: Option<&Progress>) {}
}

impl Observer for () {}

/// The host a [`HostPolicy`] describes: every summary offline unless a
/// switch says otherwise, files generated unless listed as failing, the
/// policy's PreCompact hook output for every compaction (R7.2).
struct PolicyHost<'a> {
    policy: &'a HostPolicy,
    /// What a read returns, by path.
    disk: &'a Disk<'a>,
    /// Tier 4 summary requests asked during the current event.
    asked: usize,
}

/// The host's files: the scenario's own list (each file's text made only
/// when it is read: most plays read none), then each path as the session
/// last read it whole.
struct Disk<'a> {
    own: &'a [(String, u64)],
    /// Each path's text as last read, borrowed from the history (a long
    /// one reads the same file hundreds of times: no copy each time).
    read: HashMap<String, &'a str>,
}

impl<'a> Disk<'a> {
    fn of(scenario: &'a Scenario) -> Disk<'a> {
        // Reads by tool_use id, then their results (maps: a session with
        // hundreds of reads made the lists' scans quadratic).
        let mut reads: HashMap<&'a str, String> = HashMap::default();
        let mut read: HashMap<String, &'a str> = HashMap::default();
        for event in &scenario.events {
            let Event::Append(m) = event else { continue };
            for block in m.content.blocks() {
                match block {
                    Block::ToolUse { id, name, input, .. } if name == "Read" => {
                        if let Some(path) = input.str_field("file_path") {
                            reads.insert(id, path.into_owned());
                        }
                    }
                    Block::ToolResult {
                        tool_use_id,
                        content: ToolResultContent::Text(text),
                        ..
                    } => {
                        let Some(path) = reads.get(tool_use_id.as_str()) else {
                            continue;
                        };
                        if scenario.files.iter().any(|(p, _)| p == path) {
                            continue;
                        }
                        read.insert(path.clone(), text);
                    }
                    _ => {}
                }
            }
        }
        Disk {
            own: &scenario.files,
            read,
        }
    }

    fn read(&self, path: &str) -> String {
        if let Some((_, tokens)) = self.own.iter().find(|(p, _)| p == path) {
            return crate::disk::file_text(path, *tokens);
        }
        self.read
            .get(path)
            .map_or_else(|| file_content(path), |text| (*text).to_owned())
    }
}

impl Host for PolicyHost<'_> {
    type Error = std::convert::Infallible;

    fn summarize(&mut self, request: &SummaryRequest) -> Result<Answer, Self::Error> {
        let policy = self.policy;
        if policy.all_models_down {
            return Ok(Answer::ModelUnavailable);
        }
        if request.purpose != Purpose::Compact {
            return Ok(Answer::Offline);
        }
        self.asked += 1;
        Ok(
            if policy.primary_unavailable && &*request.model != "fallback-model" {
                Answer::ModelUnavailable
            } else if policy.first_request_too_long && self.asked == 1 {
                Answer::PromptTooLong
            } else {
                Answer::Offline
            },
        )
    }

    fn pre_compact(&mut self, _: &PreCompactRequest) -> Result<HookOutcome, Self::Error> {
        Ok(self.policy.hook.clone())
    }

    fn read_files(&mut self, paths: &[String]) -> Result<Vec<FileAnswer>, Self::Error> {
        Ok(paths
            .iter()
            .map(|path| FileAnswer {
                path: path.clone(),
                content: if self.policy.failing_files.contains(path) {
                    Err("ENOENT: no such file".to_owned())
                } else {
                    Ok(self.disk.read(path))
                },
            })
            .collect())
    }
}

/// [`play`], telling `observer` about each event.
pub fn play_observed(
    scenario: &Scenario,
    policy: &HostPolicy,
    observer: &mut dyn Observer,
) -> Result<(Vec<Frame>, Engine), Error> {
    play_with(scenario, scenario.settings.clone(), None, policy, observer)
}

/// [`play_observed`] with `settings` instead of the scenario's, and every
/// `/compact` given `instructions` instead of its own when they are `Some`
/// (the sandbox's knobs, without a copy of the scenario).
pub(crate) fn play_with(
    scenario: &Scenario,
    mut settings: compaction_core::engine::EngineSettings,
    instructions: Option<&Option<String>>,
    policy: &HostPolicy,
    observer: &mut dyn Observer,
) -> Result<(Vec<Frame>, Engine), Error> {
    if policy.primary_unavailable {
        settings.compact.fallback_models = vec!["fallback-model".to_owned()];
    }
    let mut engine = Engine::new(settings)?;
    if !scenario.system.is_empty() {
        let system: String = scenario.system.iter().map(|p| p.text.as_str()).collect();
        engine.set_system(&system);
    }
    let disk = Disk::of(scenario);
    let mut frames = Vec::new();
    // The estimates kept from the last play (none while another play of
    // it holds them).
    let mut kept = scenario.estimates.0.try_lock().ok();
    if let Some(kept) = kept.as_mut() {
        kept.resize_with(scenario.events.len(), || None);
    }
    for (i, event) in scenario.events.iter().enumerate() {
        match event {
            Event::Append(m) => {
                let mut spare = None;
                let known = kept.as_mut().and_then(|k| k.get_mut(i)).unwrap_or(&mut spare);
                engine.append_estimated(m.clone(), known)?;
                continue;
            }
            Event::Pin(uuid) => {
                engine.pin(uuid)?;
                continue;
            }
            // The real prompt fits the window: the API took the call.
            Event::PromptTooLong(Some(more))
                if api_count(&engine, *more) <= engine.settings().thresholds.window =>
            {
                continue;
            }
            _ => {}
        }
        let mut steps = observer.before(&mut engine, event);
        let (kind, status, started) = match event {
            Event::Append(_) | Event::Pin(_) => continue,
            Event::Call(now) => {
                let d = engine.before_call(now.as_ref());
                steps.extend(d.steps);
                ("call", Some(d.status), d.compaction)
            }
            Event::Compact(own) => {
                let out = engine.compact(CompactOptions {
                    instructions: instructions.unwrap_or(own).clone(),
                });
                steps.extend(out.steps);
                ("compact", None, out.compaction)
            }
            Event::PromptTooLong(Some(more)) => {
                let out = engine.prompt_too_long_at(api_count(&engine, *more));
                steps.extend(out.steps);
                ("413", None, out.compaction)
            }
            Event::PromptTooLong(None) => {
                let out = engine.prompt_too_long();
                steps.extend(out.steps);
                ("413", None, out.compaction)
            }
        };
        let mut host = PolicyHost {
            policy,
            disk: &disk,
            asked: 0,
        };
        let out = match drive(&mut engine, &mut host) {
            Ok(out) => out,
            Err(DriveError::Engine(e)) => return Err(e),
            Err(DriveError::Host { cause, .. }) => match cause {},
        };
        steps.extend(out.steps);
        let end = out
            .compaction
            .or(started)
            .filter(|p| !matches!(p, Progress::Waiting));
        let frame = Frame {
            event: i,
            kind,
            steps,
            count: engine.count(),
            status,
            view_len: engine.view().len(),
        };
        observer.after(&engine, &frame, end.as_ref());
        frames.push(frame);
    }
    Ok((frames, engine))
}

/// The prompt's size as the API counts it: `more` tokens over the
/// engine's count.
fn api_count(engine: &Engine, more: u64) -> u64 {
    engine.count().tokens + more
}

fn file_content(path: &str) -> String {
    format!("// {path}\n") + &"fn example() {}\n".repeat(40)
}
