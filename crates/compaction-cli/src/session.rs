//! `compaction plan`, `compact`, `parse-summary` and `presets`: the engine
//! over an API-shaped history, `{system, messages}` as the Messages API
//! takes them, where each message may also carry `uuid`, `timestamp` and
//! `usage` (when absent, uuids are `m1`, `m2`, … as the JS package makes them).

use std::path::{Path, PathBuf};

use compaction_core::api::body::{parse_body, BodyAt};
use compaction_core::api::{CompactionMode, ThinkingMode};
use compaction_core::compact::{
    CompactOptions, Direction, FileAnswer, HookOutcome, PartialCompact, PreCompactRequest, Progress,
    SummaryRequest,
};
use compaction_core::engine::{drive, Answer, DriveError, Driver, Engine, Host, Request as EngineRequest};
use compaction_core::engine::{EngineSettings, Preset};
use compaction_core::format::Ledger;
use compaction_core::message::Uuid;
use compaction_core::summary::parse_summary;
use compaction_core::thresholds::whole_tokens;
use compaction_core::time::Timestamp;
use compaction_core::transcript::choice::{self, Choice};
use compaction_core::transcript::counted::Restorer;
use compaction_core::transcript::log::UuidMaker;
use compaction_core::transcript::replay::ReplayOptions;
use compaction_core::transcript::Transcript;
use compaction_core::Setting;

use crate::files::Files;
use crate::output;

/// Settings flags shared by `plan` and `compact`.
#[derive(Debug, Clone, clap::Args)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["messages", "session"])))]
pub struct SessionArgs {
    /// The history: a JSON file `{system?, messages}`.
    #[arg(long, value_name = "FILE.json")]
    pub messages: Option<PathBuf>,
    /// The shape of `--messages`: `anthropic` (a request body), or a list
    /// of another SDK's items (`ai-sdk`, `openai-chat`, `openai-responses`,
    /// `langchain`); the view comes out in the same shape.
    #[arg(long, value_name = "FORMAT", default_value = "anthropic")]
    pub format: String,
    /// Or a Claude Code session file: its resumed view (SPEC R11.2) is the history.
    #[arg(long, value_name = "FILE.jsonl")]
    pub session: Option<PathBuf>,
    /// The model's context window, in tokens.
    #[arg(long, value_name = "TOKENS", default_value_t = 200_000.0)]
    pub window: f64,
    /// The model's maximum output tokens.
    #[arg(long, value_name = "TOKENS")]
    pub max_output: Option<f64>,
    /// A named preset (`compaction presets` lists them).
    #[arg(long, value_name = "NAME", default_value = "seed")]
    pub preset: String,
    /// Signed thinking after a client-side rewrite (SPEC R13.1): `strip`
    /// drops it, `drop_block` lets the server drop it, `keep` keeps it.
    #[arg(long, value_name = "MODE", default_value = "strip", value_parser = ["strip", "drop_block", "keep"])]
    pub thinking: String,
    /// Who writes Tier 4's summary (SPEC R13.2): `client` or `server`
    /// (the `compact_20260112` edit).
    #[arg(long, value_name = "WHO", default_value = "client", value_parser = ["client", "server"])]
    pub compaction: String,
    /// Budget reduction (SPEC R2.2): `MAX,HEAD,TAIL` characters (a tool
    /// result over MAX keeps its first HEAD and last TAIL; the seed's
    /// 4000,2400,1600), or `off`. Default: the preset's.
    #[arg(long, value_name = "MAX,HEAD,TAIL|off")]
    pub reduction: Option<String>,
    /// The session's transcript: a compaction's summary message names it,
    /// so the model can read older detail itself (SPEC R11.3).
    #[arg(long, value_name = "PATH")]
    pub transcript_path: Option<String>,
}

/// Flags of `compaction plan`.
#[derive(Debug, Clone, clap::Args)]
pub struct PlanArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// "Now", for the idle-time rules (RFC 3339); without it no idle gap is seen.
    #[arg(long, value_name = "RFC3339")]
    pub now: Option<String>,
    #[command(flatten)]
    pub hook: HookArgs,
}

/// The PreCompact hook's answer (R7.2), for every compaction the command
/// runs.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct HookArgs {
    /// The PreCompact hook blocks the compaction (with this reason, if
    /// given): the history stays, no boundary is written.
    #[arg(long, value_name = "REASON")]
    pub hook_block: Option<Option<String>>,
    /// The PreCompact hook adds these instructions to the summary prompt
    /// (repeatable).
    #[arg(long, value_name = "TEXT")]
    pub hook_instructions: Vec<String>,
}

impl HookArgs {
    /// The hook's output.
    fn outcome(&self) -> HookOutcome {
        HookOutcome {
            block: self
                .hook_block
                .as_ref()
                .map(|reason| reason.clone().unwrap_or_else(|| "--hook-block".to_owned())),
            added_instructions: self.hook_instructions.clone(),
        }
    }
}

/// The CLI as the engine's host: summaries from the offline summariser,
/// files read from disk under the root ([`Files`]), the hook flags' answer
/// to every PreCompact request.
struct CliHost {
    hook: HookOutcome,
    files: Files,
}

impl Host for CliHost {
    type Error = std::convert::Infallible;

    fn summarize(&mut self, _: &SummaryRequest) -> Result<Answer, Self::Error> {
        Ok(Answer::Offline)
    }

    fn pre_compact(&mut self, _: &PreCompactRequest) -> Result<HookOutcome, Self::Error> {
        Ok(self.hook.clone())
    }

    fn read_files(&mut self, paths: &[String]) -> Result<Vec<FileAnswer>, Self::Error> {
        Ok(self.files.answer(paths))
    }
}

/// Flags of `compaction compact`.
#[derive(Debug, Clone, clap::Args)]
pub struct CompactArgs {
    #[command(flatten)]
    pub session: SessionArgs,
    /// `/compact` instructions for the summary.
    #[arg(long, value_name = "TEXT")]
    pub instructions: Option<String>,
    /// Partial compaction, "summarize from here" (R7.5): summarise this
    /// message (a uuid of the view) and everything after it; what came
    /// before stays verbatim.
    #[arg(long, value_name = "UUID", conflicts_with = "up_to")]
    pub from: Option<String>,
    /// Partial compaction (R7.5): summarise everything before this message;
    /// it and what follows stay verbatim.
    #[arg(long, value_name = "UUID")]
    pub up_to: Option<String>,
    /// The folder the files to restore are read from (R7.7): only regular
    /// files under it, through no link out of it [default: the session's
    /// working directory with --session, else the current directory].
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Restore no file's content: every file asked for is listed in
    /// `refused`.
    #[arg(long, conflicts_with = "root")]
    pub no_read: bool,
    #[command(flatten)]
    pub hook: HookArgs,
}

/// The folder `compact` reads files under: `--root`, else the session's
/// working directory, else the current directory; the reason every read
/// is refused when that folder is not here.
fn root_of(args: &CompactArgs, cwd: Option<&str>) -> Result<Result<PathBuf, String>, String> {
    if let Some(dir) = &args.root {
        return match std::fs::metadata(dir) {
            Ok(meta) if meta.is_dir() => Ok(Ok(dir.clone())),
            Ok(_) => Err(format!("invalid --root `{}`: not a folder", dir.display())),
            Err(e) => Err(format!(
                "invalid --root `{}`: {}",
                dir.display(),
                crate::read::reason(&e)
            )),
        };
    }
    if let Some(cwd) = cwd {
        let dir = PathBuf::from(cwd);
        return Ok(if dir.is_dir() {
            Ok(dir)
        } else {
            Err(format!(
                "the session's working directory `{cwd}` is not a folder here (give --root DIR)"
            ))
        });
    }
    std::env::current_dir()
        .map(Ok)
        .map_err(|e| format!("cannot find the current directory: {}", crate::read::reason(&e)))
}

/// The engine's settings from the flags.
pub fn settings(args: &SessionArgs) -> Result<EngineSettings, String> {
    let preset = preset_named(&args.preset)?;
    let window = whole_tokens(Setting::Window, args.window).map_err(|e| e.message_naming(crate::flag))?;
    let mut settings = preset.settings(window);
    settings.api.thinking = match args.thinking.as_str() {
        "drop_block" => ThinkingMode::DropBlock,
        "keep" => ThinkingMode::Keep,
        _ => ThinkingMode::Strip,
    };
    if args.compaction == "server" {
        settings.api.compaction = CompactionMode::Server;
    }
    if let Some(max_output) = args.max_output {
        settings.thresholds.max_output_tokens = Some(
            whole_tokens(Setting::MaxOutputTokens, max_output).map_err(|e| e.message_naming(crate::flag))?,
        );
    }
    settings.compact.transcript_path.clone_from(&args.transcript_path);
    if let Some(r) = &args.reduction {
        settings.reduction = reduction(r)?;
    }
    Ok(settings)
}

/// `--reduction MAX,HEAD,TAIL` or `off`.
fn reduction(text: &str) -> Result<compaction_core::reduction::ReductionSettings, String> {
    use compaction_core::reduction::ReductionSettings;
    if text == "off" {
        return Ok(ReductionSettings::off());
    }
    let numbers: Option<Vec<usize>> = text.split(',').map(|n| n.trim().parse().ok()).collect();
    let [max_chars, head_chars, tail_chars] = numbers.as_deref().unwrap_or_default() else {
        return Err(format!(
            "invalid --reduction \"{text}\": give MAX,HEAD,TAIL in characters (like 4000,2400,1600) or off"
        ));
    };
    let settings = ReductionSettings {
        max_chars: *max_chars,
        head_chars: *head_chars,
        tail_chars: *tail_chars,
    };
    if settings.max_chars >= ReductionSettings::OFF {
        return Err(format!(
            "invalid --reduction \"{text}\": MAX must be below {}; use off",
            ReductionSettings::OFF
        ));
    }
    settings.check().map_err(|e| e.message_naming(crate::flag))?;
    Ok(settings)
}

/// The preset `--preset NAME` names.
fn preset_named(name: &str) -> Result<Preset, String> {
    Preset::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Preset::ALL.iter().map(|p| p.name()).collect();
        format!("unknown --preset `{name}`; presets: {}", names.join(", "))
    })
}

/// A history from the flags.
pub struct History {
    /// An engine holding it.
    pub engine: Engine,
    /// The ledger of its `--format` (none for Anthropic's).
    pub ledger: Option<Ledger>,
    /// A session's working directory: the `cwd` of its last message that
    /// names one.
    pub cwd: Option<String>,
}

/// The history of `--messages` or `--session`.
pub fn engine_in(args: &SessionArgs) -> Result<History, String> {
    if let Some(format) = crate::format::parse(&args.format)? {
        let Some(path) = &args.messages else {
            return Err("--format reads --messages (a session file is Anthropic-shaped)".to_owned());
        };
        let (engine, ledger) = crate::format::load(path, format, settings(args)?)?;
        return Ok(History {
            engine,
            ledger: Some(ledger),
            cwd: None,
        });
    }
    let settings = settings(args)?;
    match (&args.messages, &args.session) {
        (Some(path), _) => Ok(History {
            engine: load(path, settings)?,
            ledger: None,
            cwd: None,
        }),
        (None, Some(path)) => {
            let transcript = crate::transcript::transcript_of(path)?;
            let mut engine = Engine::new(settings).map_err(|e| e.message_naming(crate::flag))?;
            // As the package's `loadSession`: a compaction's records get
            // uuids new to the file (no message here needs a made `m<n>`).
            engine.follow_compactions(transcript.boundaries.len() as u64);
            let resume = transcript.resume();
            // The count's basis an engine recorded in the file, if any.
            let uuids = resume.messages.iter().map(|m| &m.message.uuid);
            let counting = Restorer::start(resume.counting.as_ref(), uuids, &mut engine);
            for (i, m) in resume.messages.into_iter().enumerate() {
                let appended = if m.is_compact_summary {
                    engine.append_summary(std::sync::Arc::unwrap_or_clone(m.message))
                } else {
                    engine.append_shared(m.message)
                };
                appended.map_err(|e| format!("{}: resumed message {i}: {e}", path.display()))?;
                counting.loaded(i, &mut engine);
            }
            let cwd = (transcript.messages.iter().rev())
                .find_map(|m| m.extra.str_field("cwd"))
                .map(|cwd| cwd.into_owned());
            Ok(History {
                engine,
                ledger: None,
                cwd,
            })
        }
        (None, None) => Err("give --messages FILE.json or --session FILE.jsonl".to_owned()),
    }
}

/// Reads `{system?, messages}` (or a bare list of messages) into a fresh
/// engine, through the same reader as the package's `loadJson`.
pub fn load(path: &Path, settings: EngineSettings) -> Result<Engine, String> {
    let text = crate::read::input(path)?;
    let body = parse_body(&text).map_err(|e| {
        let what = match e.at {
            _ if !e.is_json => "not JSON".to_owned(),
            BodyAt::Message(i) => format!("messages[{i}]"),
            BodyAt::System => "`system` must be a string or a list of text blocks".to_owned(),
            BodyAt::Body => "not a request body `{system?, messages}`".to_owned(),
        };
        format!("{}: {what}: {}", path.display(), e.error)
    })?;
    let mut engine = Engine::new(settings).map_err(|e| e.message_naming(crate::flag))?;
    if let Some(system) = &body.system {
        engine.set_system(system);
    }
    // Messages without a uuid get the package's: m1, m2, … (one rule, in core).
    let mut uuids = UuidMaker::default();
    for (i, param) in body.messages.into_iter().enumerate() {
        let store = engine.store();
        let message = param
            .into_message(|| uuids.make(|u| store.get(u).is_some()))
            .map_err(|e| format!("messages[{i}]{}", e.text))?;
        engine
            .append(message)
            .map_err(|e| format!("messages[{i}]: {e}"))?;
    }
    Ok(engine)
}

/// `compaction plan`: what the cascade would do before the next call,
/// changing nothing, up to the first step that needs a model answer.
pub fn plan(args: &PlanArgs) -> Result<String, String> {
    let History { engine, ledger, .. } = engine_in(&args.session)?;
    let now = match &args.now {
        Some(text) => {
            Some(Timestamp::parse(text).ok_or_else(|| format!("invalid --now `{text}`: not RFC 3339"))?)
        }
        None => None,
    };
    let mut probe = engine.clone();
    let decision = probe.before_call(now.as_ref());
    // The driver's loop, up to the first request that needs a model or a
    // file: a PreCompact request is answered with the hook flags.
    let mut steps = decision.steps.clone();
    let mut driver = Driver::new(true);
    while let Some(EngineRequest::PreCompact(r)) = driver.next(&probe) {
        driver
            .answered(&mut probe, r.id, Answer::Hook(args.hook.outcome()))
            .map_err(|e| e.to_string())?;
    }
    let out = driver.finish(&probe);
    steps.extend(out.steps);
    crate::pretty(&output::Plan {
        steps,
        view: output::view_of(&probe, ledger.as_ref())?,
        requests: out.requests,
        status: decision.status,
        count: decision.count,
        lines: decision.lines,
        context_management: decision.context_management,
        betas: decision.betas,
        thinking: decision.thinking,
        breakdown: probe.breakdown(),
    })
}

/// `compaction compact`: a manual compaction, summarised offline; the files
/// it restores are read from disk under the root ([`Files`]).
pub fn compact(args: &CompactArgs) -> Result<String, String> {
    let History {
        mut engine,
        ledger,
        cwd,
    } = engine_in(&args.session)?;
    let root = root_of(args, cwd.as_deref())?;
    let partial = match (&args.from, &args.up_to) {
        (Some(uuid), _) => Some((uuid, Direction::From)),
        (None, Some(uuid)) => Some((uuid, Direction::UpTo)),
        (None, None) => None,
    };
    let started = match partial {
        Some((uuid, direction)) => engine.compact_partial(PartialCompact {
            uuid: Uuid::from(uuid.as_str()),
            direction,
            instructions: args.instructions.clone(),
        }),
        None => engine.compact(CompactOptions {
            instructions: args.instructions.clone(),
        }),
    };
    let settings = engine.settings();
    let files = Files::new(root, &settings.compact.attachments, &settings.estimator);
    let mut host = CliHost {
        hook: args.hook.outcome(),
        files: if args.no_read { files.off() } else { files },
    };
    let out = match drive(&mut engine, &mut host) {
        Ok(out) => out,
        Err(DriveError::Engine(e)) => return Err(e.to_string()),
        Err(DriveError::Host { cause, .. }) => match cause {},
    };
    let mut steps = started.steps;
    steps.extend(out.steps);
    match out.compaction {
        Some(Progress::Compacted { result }) => {
            let next = engine.plan(None);
            let result = *result;
            crate::pretty(&output::Compact {
                steps,
                view: output::view_of(&engine, ledger.as_ref())?,
                betas: next.betas,
                context_management: next.context_management,
                boundary: result.boundary,
                summary: result.summary,
                attachments: result.attachments,
                retention: result.retention,
                refused: host.files.into_refused(),
            })
        }
        Some(Progress::Failed { reason }) => Err(format!("compaction failed: {reason}")),
        Some(Progress::Waiting) | None => Err("the compaction is still waiting (an engine bug)".to_owned()),
    }
}

/// `compaction parse-summary FILE`: what R7.4 makes of a model reply.
pub fn parse(path: &Path) -> Result<String, String> {
    #[derive(serde::Serialize)]
    struct Parsed {
        text: String,
    }
    let text = crate::read::input_text(path)?;
    let summary = parse_summary(&text).map_err(|e| e.to_string())?;
    crate::pretty(&Parsed { text: summary })
}

/// `compaction presets`: every preset and its settings (for a 200,000-token
/// window).
pub fn presets() -> Result<String, String> {
    #[derive(serde::Serialize)]
    struct Named {
        name: &'static str,
        settings: EngineSettings,
    }
    let presets: Vec<Named> = (Preset::ALL.iter())
        .map(|p| Named {
            name: p.name(),
            settings: p.settings(200_000),
        })
        .collect();
    crate::pretty(&presets)
}

/// Settings flags of `compaction replay` and `compaction fidelity`: each
/// overrides what the replay chose from the file.
#[derive(Debug, Clone, clap::Args)]
pub struct ReplaySettingsArgs {
    /// A named preset [default: the one for the file's client version].
    #[arg(long, value_name = "NAME")]
    pub preset: Option<String>,
    /// The model's context window, in tokens [default: the file's model's].
    #[arg(long, value_name = "TOKENS")]
    pub window: Option<f64>,
    /// The model's maximum output tokens [default: the file's model's].
    #[arg(long, value_name = "TOKENS")]
    pub max_output: Option<f64>,
    /// One engine over the whole timeline that never learns of the
    /// session's real compactions or microcompactions (a what-if for other
    /// windows); by default each real boundary restarts the replay from the
    /// session's real compacted view.
    #[arg(long)]
    pub ignore_real: bool,
}

/// Flags of `compaction replay`.
#[derive(Debug, Clone, clap::Args)]
pub struct ReplayArgs {
    /// The Claude Code session file.
    #[arg(value_name = "FILE.jsonl")]
    pub file: PathBuf,
    #[command(flatten)]
    pub settings: ReplaySettingsArgs,
}

/// What a replay of `transcript` runs with: the file's choice
/// ([`choice::choose`]), each flag given overriding it, with the reasons.
pub fn replay_settings(
    transcript: &Transcript,
    args: &ReplaySettingsArgs,
) -> Result<(Choice, EngineSettings), String> {
    let mut chosen = choice::choose(transcript);
    if let Some(name) = &args.preset {
        chosen.preset = preset_named(name)?;
        chosen.reasons.push(format!("--preset {name}"));
    }
    if let Some(window) = args.window {
        chosen.window = whole_tokens(Setting::Window, window).map_err(|e| e.message_naming(crate::flag))?;
        chosen.reasons.push(format!("--window {}", chosen.window));
    }
    if let Some(max_output) = args.max_output {
        let tokens =
            whole_tokens(Setting::MaxOutputTokens, max_output).map_err(|e| e.message_naming(crate::flag))?;
        chosen.max_output_tokens = Some(tokens);
        chosen.reasons.push(format!("--max-output {tokens}"));
    }
    if args.ignore_real {
        chosen.reasons.push(
            "--ignore-real: one engine over the whole timeline, the real compactions not followed".to_owned(),
        );
    }
    let settings = chosen.settings();
    Ok((chosen, settings))
}

/// The replay options the flags and the file's client ask for.
pub fn replay_options(args: &ReplaySettingsArgs, chosen: &Choice) -> ReplayOptions {
    ReplayOptions {
        follow_real: !args.ignore_real,
        counts_appended: chosen.counts_appended,
    }
}

/// `compaction replay`: where automatic compaction would fire under the
/// settings chosen from the file (or the flags), beside the session's real
/// boundaries, and what was chosen and why.
pub fn replay(args: &ReplayArgs) -> Result<String, String> {
    let transcript = crate::transcript::transcript_of(&args.file)?;
    let (chosen, settings) = replay_settings(&transcript, &args.settings)?;
    let result = transcript
        .timeline()
        .replay_with(chosen.preset, settings, replay_options(&args.settings, &chosen))
        .map_err(|e| e.message_naming(crate::flag))?;
    #[derive(serde::Serialize)]
    struct Replayed {
        #[serde(flatten)]
        result: compaction_core::transcript::replay::Replay,
        chosen: Choice,
    }
    crate::pretty(&Replayed { result, chosen })
}
