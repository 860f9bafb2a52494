//! `compaction fidelity DIR`: every session file under DIR (recursively,
//! like `~/.claude/projects`) replayed with the settings chosen from the
//! file, its predicted automatic compactions scored against the real ones
//! (the definitions of hit, miss and false positive are
//! `compaction_core::transcript::fidelity`'s), as a table or as JSON.

use std::path::{Path, PathBuf};

use compaction_core::transcript::fidelity::{
    score, Copies, Fidelity, Miss, Scored, TOLERANCE_PER_MILLE, WINDOW_RECORDS,
};
use compaction_core::transcript::lacks::Lack;
use serde::Serialize;

use crate::session::{replay_options, replay_settings, ReplaySettingsArgs};

/// Flags of `compaction fidelity`.
#[derive(Debug, Clone, clap::Args)]
pub struct FidelityArgs {
    /// A folder of Claude Code session files (`*.jsonl`, searched
    /// recursively), or one file.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub settings: ReplaySettingsArgs,
}

/// One file, scored.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct FileScore {
    /// The path, relative to DIR.
    file: String,
    /// The client version the settings were chosen from.
    version: Option<String>,
    /// The measured version range it falls in, or where it stands
    /// (`chosen.range`).
    range: String,
    /// The preset used.
    preset: &'static str,
    /// The compact line used.
    compact_line: u64,
    #[serde(flatten)]
    fidelity: Fidelity,
    /// Real automatic boundaries and false positives an earlier file (a
    /// copy of the same session) had: counted there, not here.
    #[serde(skip_serializing_if = "is_zero")]
    repeated_boundaries: usize,
    #[serde(skip_serializing_if = "is_zero")]
    repeated_false_positives: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl FileScore {
    /// Whether the file is scored apart: its client did not compact at the
    /// line (the user's settings), so it is in no total.
    fn apart(&self) -> bool {
        self.fidelity.passed_line.is_some()
    }
}

/// Totals over a group of files.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct Totals {
    auto: usize,
    hits: usize,
    misses: usize,
    false_positives: usize,
    /// Real automatic boundaries where the file lacks records the client
    /// counted (`lacks`), and how many of them were hit.
    incomplete: usize,
    incomplete_hits: usize,
    /// |count − preTokens| at the real boundaries: median and 90th
    /// percentile (nearest rank), in tokens.
    abs_error_median: Option<u64>,
    abs_error_p90: Option<u64>,
    /// The signed errors, in file order.
    errors: Vec<i64>,
    /// The same two figures over the boundaries whose file lacks nothing.
    complete_abs_error_median: Option<u64>,
    complete_abs_error_p90: Option<u64>,
    /// The signed errors at those boundaries, in file order.
    complete_errors: Vec<i64>,
}

/// The median and the 90th percentile (nearest rank) of the errors' sizes.
fn median_p90(errors: &[i64]) -> (Option<u64>, Option<u64>) {
    let mut abs: Vec<u64> = errors.iter().map(|e| e.unsigned_abs()).collect();
    abs.sort_unstable();
    let rank = |pct: usize| {
        let n = abs.len();
        (n > 0).then(|| abs[(n * pct).div_ceil(100).clamp(1, n) - 1])
    };
    (rank(50), rank(90))
}

impl Totals {
    fn add(&mut self, f: &Fidelity) {
        self.auto += f.auto;
        self.hits += f.hits;
        self.misses += f.misses;
        self.false_positives += f.false_positives;
        self.incomplete += f.incomplete;
        self.incomplete_hits += f.incomplete_hits;
        self.errors
            .extend(f.boundaries.iter().filter_map(|b| b.token_error));
        self.complete_errors.extend(
            f.boundaries
                .iter()
                .filter(|b| b.lacks.is_empty())
                .filter_map(|b| b.token_error),
        );
    }

    fn finish(mut self) -> Self {
        (self.abs_error_median, self.abs_error_p90) = median_p90(&self.errors);
        (self.complete_abs_error_median, self.complete_abs_error_p90) = median_p90(&self.complete_errors);
        self
    }
}

/// Every `*.jsonl` under `dir`, sorted; `dir` itself when it is a file.
/// Links to folders are not followed (each folder is walked once); a
/// `*.jsonl` that is not a regular file is listed, and refused when read.
fn session_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let meta = std::fs::metadata(dir).map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?;
    if meta.is_file() {
        return Ok(vec![dir.to_path_buf()]);
    }
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        let entries =
            std::fs::read_dir(&folder).map_err(|e| format!("cannot read `{}`: {e}", folder.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("cannot read `{}`: {e}", folder.display()))?;
            let path = entry.path();
            // The entry's own type: a link is never followed into a folder
            // (a link back up the tree would be walked forever).
            let is_dir = entry
                .file_type()
                .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?
                .is_dir();
            if is_dir {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// `compaction fidelity DIR`.
pub fn fidelity(args: &FidelityArgs) -> Result<String, String> {
    let mut files = Vec::new();
    let mut total = Totals::default();
    let mut failed = Vec::new();
    let mut copies = Copies::default();
    for path in session_files(&args.dir)? {
        let name = path
            .strip_prefix(&args.dir)
            .ok()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(&path)
            .display()
            .to_string();
        let scored = crate::transcript::transcript_of(&path).and_then(|transcript| {
            let (chosen, settings) = replay_settings(&transcript, &args.settings)?;
            let timeline = transcript.timeline();
            let replay = timeline
                .replay_with(chosen.preset, settings, replay_options(&args.settings, &chosen))
                .map_err(|e| e.message_naming(crate::flag))?;
            let mut fidelity = score(&timeline, &replay);
            let (repeated_boundaries, repeated_false_positives) =
                copies.drop_repeated(&transcript, &timeline, &mut fidelity);
            Ok(FileScore {
                file: name.clone(),
                version: chosen.version,
                range: chosen.range,
                preset: chosen.preset.name(),
                compact_line: replay.lines.compact,
                fidelity,
                repeated_boundaries,
                repeated_false_positives,
            })
        });
        match scored {
            Ok(file) => {
                if !file.apart() {
                    total.add(&file.fidelity);
                }
                files.push(file);
            }
            Err(why) => failed.push((name, why)),
        }
    }
    let by_preset = group(&files, |f| f.preset.to_owned());
    let mut by_range = group(&files, |f| f.range.clone());
    // Version ranges oldest first (a label's first version number).
    by_range.sort_by_key(|(range, _)| range_order(range));
    let by_repository = group(&files, |f| repository(&f.file));
    let total = total.finish();
    if args.json {
        return crate::pretty(&Report {
            definition: definition(),
            incomplete: (incomplete(&files).into_iter())
                .map(|(file, boundary)| Incomplete { file, boundary })
                .collect(),
            files: &files,
            by_preset: groups(&by_preset),
            by_range: groups(&by_range),
            by_repository: groups(&by_repository),
            total: &total,
            failed: (failed.iter())
                .map(|(file, error)| Failed { file, error })
                .collect(),
        });
    }
    Ok(table(
        &files,
        &[
            ("", &by_preset),
            ("by client version range:", &by_range),
            ("by repository:", &by_repository),
        ],
        &total,
        &failed,
    ))
}

/// `fidelity --json`'s output.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Report<'a> {
    definition: String,
    files: &'a [FileScore],
    incomplete: Vec<Incomplete<'a>>,
    by_preset: Vec<Group<'a>>,
    by_range: Vec<Group<'a>>,
    by_repository: Vec<Group<'a>>,
    total: &'a Totals,
    failed: Vec<Failed<'a>>,
}

/// A boundary where the file lacks records, and its file.
#[derive(Serialize)]
struct Incomplete<'a> {
    file: &'a str,
    boundary: &'a Scored,
}

/// The totals of one group of files: a preset's, a version range's, a
/// repository's.
#[derive(Serialize)]
struct Group<'a> {
    name: &'a str,
    totals: &'a Totals,
}

/// Groups as `--json` prints them.
fn groups(list: &[(String, Totals)]) -> Vec<Group<'_>> {
    list.iter().map(|(name, totals)| Group { name, totals }).collect()
}

/// The files' totals by `key`, in order of first appearance.
fn group(files: &[FileScore], key: impl Fn(&FileScore) -> String) -> Vec<(String, Totals)> {
    let mut out: Vec<(String, Totals)> = Vec::new();
    for file in files.iter().filter(|f| !f.apart()) {
        let name = key(file);
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some((_, t)) => t.add(&file.fidelity),
            None => {
                let mut t = Totals::default();
                t.add(&file.fidelity);
                out.push((name, t));
            }
        }
    }
    out.into_iter().map(|(n, t)| (n, t.finish())).collect()
}

/// The repository a file comes from: in the calibration sets' naming
/// (`owner__repo__session.jsonl`) the part before the last `__`; else the
/// folder it is in under DIR (a `~/.claude/projects` project), or `.`.
fn repository(file: &str) -> String {
    let path = Path::new(file);
    let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    if let Some((repo, _)) = name.rsplit_once("__") {
        return repo.to_owned();
    }
    match path.parent().map(|p| p.display().to_string()) {
        Some(folder) if !folder.is_empty() => folder,
        _ => ".".to_owned(),
    }
}

/// Where a range label sorts: by the first version it names, the labels
/// without one last.
fn range_order(label: &str) -> (u8, Vec<u32>) {
    let version = label
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .find(|w| w.contains('.'));
    match version {
        Some(v) => (0, v.split('.').filter_map(|n| n.parse().ok()).collect()),
        None => (1, Vec::new()),
    }
}

/// A file that could not be scored, and why.
#[derive(Serialize)]
struct Failed<'a> {
    file: &'a str,
    error: &'a str,
}

/// The real automatic boundaries where the file lacks records, with the
/// file they are in.
fn incomplete(files: &[FileScore]) -> Vec<(&str, &Scored)> {
    files
        .iter()
        .flat_map(|f| {
            f.fidelity
                .boundaries
                .iter()
                .filter(|b| !b.lacks.is_empty())
                .map(|b| (f.file.as_str(), b))
        })
        .collect()
}

/// One piece of evidence in words.
fn evidence(lack: &Lack) -> String {
    match lack {
        Lack::LogicalParentAbsent { uuid } => {
            format!("logicalParentUuid {uuid} is in no record")
        }
        Lack::UnansweredToolUse { line, tool_use_id } => {
            format!("line {line} calls {tool_use_id}, whose result is in no record")
        }
        Lack::HookForMissingCall { line, tool_use_id } => {
            format!("line {line} is a hook for {tool_use_id}, a call in no record")
        }
    }
}

/// Why a boundary was missed, in words.
fn miss_words(b: &Scored) -> String {
    let pre = b.pre_tokens.map_or("-".to_owned(), |p| p.to_string());
    match &b.missed {
        None => "hit".to_owned(),
        Some(Miss::NotReached) => "the replay never reached it (no era of the walked history ends there)".to_owned(),
        Some(Miss::FiredEarly { tokens, records_before }) => format!(
            "fired {records_before} records earlier at {tokens} (a false positive), its own compaction kept the count low after"
        ),
        Some(Miss::OffInTokens { tokens, records_before }) => format!(
            "fired {records_before} records before at {tokens}, more than {}.{} % from preTokens {pre}",
            TOLERANCE_PER_MILLE / 10,
            TOLERANCE_PER_MILLE % 10
        ),
        Some(Miss::UnderTheLine { counted, line }) => format!(
            "counted {counted}, {} under the compact line {line}",
            line.saturating_sub(*counted)
        ),
    }
}

/// The hit rule in words.
fn definition() -> String {
    format!(
        "hit: a predicted automatic compaction whose last message is one of the {WINDOW_RECORDS} messages before a real automatic boundary, with a count within {}.{} % of its preTokens; miss: a real automatic boundary without a hit; false positive: a prediction that hits nothing (one at a real boundary's own request, off in tokens, is that boundary's miss, not a false positive); apart: a file whose client passed the compact line without compacting (the user's settings: in no total); copies: a boundary or false positive an earlier file had (the same logicalParentUuid, preTokens and time; the same record time and count) is counted once; incomplete: a real automatic boundary where the file provably lacks records its client had (kept in the score)",
        TOLERANCE_PER_MILLE / 10,
        TOLERANCE_PER_MILLE % 10
    )
}

fn table(
    files: &[FileScore],
    blocks: &[(&str, &[(String, Totals)])],
    total: &Totals,
    failed: &[(String, String)],
) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let width = files
        .iter()
        .map(|f| f.file.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(
        out,
        "{:width$}  {:8}  {:13}  {:>7}  {:>4}  {:>4}  {:>6}  {:>2}  {:>5}  token error at each real boundary",
        "file", "version", "preset", "line", "auto", "hits", "misses", "FP", "lacks"
    );
    for f in files {
        let errors: Vec<String> = f
            .fidelity
            .boundaries
            .iter()
            .map(|b| {
                let error = b.token_error.map_or("?".to_owned(), |e| format!("{e:+}"));
                // A boundary where the file lacks records is marked.
                if b.lacks.is_empty() {
                    error
                } else {
                    format!("{error}*")
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "{:width$}  {:8}  {:13}  {:>7}  {:>4}  {:>4}  {:>6}  {:>2}  {:>5}  {}",
            f.file,
            f.version.as_deref().unwrap_or("-"),
            f.preset,
            f.compact_line,
            f.fidelity.auto,
            f.fidelity.hits,
            f.fidelity.misses,
            f.fidelity.false_positives,
            f.fidelity.incomplete,
            errors.join(" ")
        );
    }
    let incomplete = incomplete(files);
    if !incomplete.is_empty() {
        let _ = writeln!(
            out,
            "\n* the file lacks records its client had at these boundaries (kept in the score):"
        );
        for (file, b) in incomplete {
            let reasons: Vec<String> = b.lacks.iter().map(evidence).collect();
            let _ = writeln!(
                out,
                "{file}  boundary {}  preTokens {}  {}  token error {}: {}",
                b.uuid,
                b.pre_tokens.map_or("-".to_owned(), |p| p.to_string()),
                if b.hit { "hit" } else { "miss" },
                b.token_error.map_or("?".to_owned(), |e| format!("{e:+}")),
                reasons.join("; ")
            );
        }
    }
    let misses: Vec<(&str, &Scored)> = files
        .iter()
        .flat_map(|f| {
            f.fidelity
                .boundaries
                .iter()
                .filter(|b| !b.hit)
                .map(|b| (f.file.as_str(), b))
        })
        .collect();
    if !misses.is_empty() {
        let _ = writeln!(
            out,
            "\nmisses: what the replay counted at each and why it did not fire:"
        );
        for (file, b) in misses {
            let lacked: Vec<String> = b.lacks.iter().map(evidence).collect();
            let _ = writeln!(
                out,
                "{file}  line {}  preTokens {}  counted {}: {}{}",
                b.line,
                b.pre_tokens.map_or("-".to_owned(), |p| p.to_string()),
                b.counted.map_or("-".to_owned(), |c| c.to_string()),
                miss_words(b),
                if lacked.is_empty() {
                    String::new()
                } else {
                    format!("; the file lacks records: {}", lacked.join("; "))
                }
            );
        }
    }
    let calls: Vec<(&str, u64)> = files
        .iter()
        .filter_map(|f| {
            f.fidelity
                .own_call
                .as_ref()
                .map(|(_, tokens)| (f.file.as_str(), *tokens))
        })
        .collect();
    if !calls.is_empty() {
        let _ = writeln!(
            out,
            "\ncompaction calls (the file is a compaction's summary request; its boundary is in the parent session's file, so this is no false positive):"
        );
        for (file, tokens) in calls {
            let _ = writeln!(out, "{file}  its own compaction predicted at {tokens}");
        }
    }
    let apart: Vec<&FileScore> = files.iter().filter(|f| f.apart()).collect();
    if !apart.is_empty() {
        let _ = writeln!(
            out,
            "\napart (the user's settings, not the client's: scored above, in no total below):"
        );
        for f in apart {
            if let Some(p) = &f.fidelity.passed_line {
                let _ = writeln!(
                    out,
                    "{}  a response of {} tokens ({}) passed the compact line {} by more than {}.{} % and no automatic compaction followed: auto-compact was off or the window larger",
                    f.file, p.tokens, p.uuid, p.line, TOLERANCE_PER_MILLE / 10, TOLERANCE_PER_MILLE % 10
                );
            }
        }
    }
    let copies: Vec<&FileScore> = (files.iter())
        .filter(|f| f.repeated_boundaries + f.repeated_false_positives > 0)
        .collect();
    if !copies.is_empty() {
        let _ = writeln!(
            out,
            "\ncopies of a session scored before (the same boundaries: logicalParentUuid, preTokens and time; counted once, in the first file):"
        );
        for f in copies {
            let _ = writeln!(
                out,
                "{}  {} boundaries and {} false positives repeated",
                f.file, f.repeated_boundaries, f.repeated_false_positives
            );
        }
    }
    let _ = writeln!(out);
    let line = |out: &mut String, name: &str, t: &Totals| {
        // Per mille, rounded to nearest; none without an automatic boundary.
        let pct = (t.hits * 1000 + t.auto / 2)
            .checked_div(t.auto)
            .map_or("-".to_owned(), |p| format!("{}.{} %", p / 10, p % 10));
        let figure = |e: Option<u64>| e.map_or("-".to_owned(), |e| e.to_string());
        let _ = writeln!(
            out,
            "{name:15} hits {}/{} ({pct}), misses {}, false positives {}, |token error| median {}, p90 {}; the file lacks records at {} ({} hit); complete {}/{} hit, |token error| median {}, p90 {}",
            t.hits,
            t.auto,
            t.misses,
            t.false_positives,
            figure(t.abs_error_median),
            figure(t.abs_error_p90),
            t.incomplete,
            t.incomplete_hits,
            t.hits - t.incomplete_hits,
            t.auto - t.incomplete,
            figure(t.complete_abs_error_median),
            figure(t.complete_abs_error_p90),
        );
    };
    for (title, groups) in blocks {
        if !title.is_empty() {
            let _ = writeln!(out, "{title}");
        }
        for (name, t) in groups.iter() {
            line(&mut out, name, t);
        }
    }
    line(&mut out, "total", total);
    for (file, why) in failed {
        let _ = writeln!(out, "not scored: {file}: {why}");
    }
    let _ = write!(out, "{}", definition());
    out
}
