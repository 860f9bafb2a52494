//! `compaction`: the engine on the command line. JSON on stdout, errors on
//! stderr, a non-zero exit status on failure.

mod fidelity;
mod files;
mod format;
mod output;
mod read;
mod session;
mod transcript;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use compaction_core::thresholds::{RawThresholdSettings, ThresholdSettings, Thresholds};
use compaction_core::Setting;

/// Context compaction for LLM agents, from the command line.
#[derive(Debug, Parser)]
#[command(name = "compaction", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the threshold lines (SPEC R1) for a model's window as JSON.
    #[command(allow_negative_numbers = true)]
    Thresholds(ThresholdArgs),
    /// Read a Claude Code session file (.jsonl) and print what it holds:
    /// records, messages, tool pairs, compact boundaries, versions, problems.
    Inspect(transcript::SessionArgs),
    /// Print the active view a resumed session would see (SPEC R11.2): the
    /// last boundary's summary, the preserved messages, then what followed.
    Resume(transcript::SessionArgs),
    /// Plan the cascade before the next call on an API-shaped history
    /// `{system, messages}`, changing nothing: `{steps, view, requests, breakdown}`.
    Plan(session::PlanArgs),
    /// Run a manual /compact on an API-shaped history with the offline
    /// summariser, restoring files read only from under the root:
    /// `{steps, view, boundary, summary, attachments, refused}`.
    Compact(session::CompactArgs),
    /// What SPEC R7.4 makes of a model's summary reply: `{text}`.
    ParseSummary {
        /// A file holding the model's reply.
        file: std::path::PathBuf,
    },
    /// List the presets and their settings.
    Presets,
    /// What-if: where automatic compaction would fire in a session file,
    /// beside its real boundaries: `{preset, lines, predicted, actual,
    /// atReal, tiers, chosen}`. With no flags the settings are chosen from
    /// the file (client version → preset, model → window and reserve;
    /// `chosen.reasons` says why) to reproduce what its client did.
    Replay(session::ReplayArgs),
    /// Every session file under DIR (recursively, like ~/.claude/projects)
    /// replayed with the settings chosen from it, its predicted automatic
    /// compactions scored against the real ones. A hit: a predicted
    /// automatic compaction whose last message is one of the 12 messages
    /// (user records and merged API responses of the logical history)
    /// before a real automatic boundary, with a count within 1.5 % of its
    /// preTokens. A miss: a real automatic boundary without a hit. A false
    /// positive: a prediction that hits nothing. The token error: the
    /// hitting prediction's count minus preTokens (without a hit, the
    /// replay's count at the real boundary's request). Boundaries where the
    /// file provably lacks records its client had (its logicalParentUuid in
    /// no record, the last call's result in no record, a hook for a call in
    /// no record) are listed apart with the evidence, and kept in the score.
    /// Each miss is listed with the replay's count there and why it did not
    /// fire; a compaction call's transcript (agent-acompact-*) predicting
    /// its own compaction is listed apart, not a false positive. Totals per
    /// preset, client version range and repository.
    Fidelity(fidelity::FidelityArgs),
}

/// Flags of `compaction thresholds`; numbers are checked by the engine, so
/// NaN, negatives and fractions are rejected with the flag's name.
#[derive(Debug, clap::Args)]
struct ThresholdArgs {
    /// The model's context window, in tokens.
    #[arg(long, value_name = "TOKENS")]
    window: f64,
    /// The model's maximum output tokens (the reserve is min(this, reserve cap)).
    #[arg(long, value_name = "TOKENS")]
    max_output: Option<f64>,
    /// The cap on the reserve kept for the reply [default: 20000].
    #[arg(long, value_name = "TOKENS")]
    reserve_cap: Option<f64>,
    /// The model input ceiling the blocked line hangs from [default: the budget].
    #[arg(long, value_name = "TOKENS")]
    ceiling: Option<f64>,
    /// Move the compact line to this percent of the budget (1–100; it can only lower it).
    #[arg(long, value_name = "PERCENT")]
    override_pct: Option<f64>,
}

impl From<&ThresholdArgs> for RawThresholdSettings {
    fn from(args: &ThresholdArgs) -> Self {
        RawThresholdSettings {
            window: args.window,
            max_output_tokens: args.max_output,
            reserve_cap: args.reserve_cap,
            ceiling: args.ceiling,
            override_pct: args.override_pct,
        }
    }
}

/// The flag a user types for an engine setting.
fn flag(setting: Setting) -> String {
    match setting {
        Setting::MaxOutputTokens => "--max-output".to_owned(),
        other => format!("--{}", other.key().replace('_', "-")),
    }
}

fn run(cli: &Cli) -> Result<String, String> {
    match &cli.command {
        Command::Thresholds(args) => {
            let lines = ThresholdSettings::try_from(&RawThresholdSettings::from(args))
                .and_then(|settings| Thresholds::compute(&settings))
                .map_err(|err| err.message_naming(flag))?;
            serde_json::to_string_pretty(&lines).map_err(|err| err.to_string())
        }
        Command::Inspect(args) => transcript::inspect(args),
        Command::Resume(args) => transcript::resume(args),
        Command::Plan(args) => session::plan(args),
        Command::Compact(args) => session::compact(args),
        Command::ParseSummary { file } => session::parse(file),
        Command::Presets => session::presets(),
        Command::Replay(args) => session::replay(args),
        Command::Fidelity(args) => fidelity::fidelity(args),
    }
}

/// `value` as indented JSON, written straight from its type (see
/// [`output`]).
fn pretty<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, String> {
    serde_json::to_string_pretty(value).map_err(|err| err.to_string())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(json) => {
            use std::io::Write;
            // A reader that stops early (`| head`) is not an error.
            match writeln!(std::io::stdout().lock(), "{json}") {
                Ok(()) => ExitCode::SUCCESS,
                Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(err) => {
                    eprintln!("error: cannot write the output: {err}");
                    ExitCode::FAILURE
                }
            }
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
