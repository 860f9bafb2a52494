//! The built-in sessions, each a function building its [`Scenario`].

use compaction_core::engine::Preset;

use crate::builder::Builder;
use crate::disk;
use crate::{Estimates, Event, HostPolicy, Scenario, SystemPart};

/// Seed 002's own session: analysing `/compact`, then a manual `/compact`
/// with instructions (precomputed miss), then the user's next prompt.
pub fn compact_analysis() -> Scenario {
    compact_analysis_with(0, &[])
}

/// The ranges of `cli.readable.js` the model reads while it analyses
/// `/compact` (seed 002's evidence table and their neighbours), 160 lines
/// each.
const RANGES: [u32; 24] = [
    216_095, 216_245, 261_901, 262_061, 262_209, 262_320, 262_480, 262_640, 263_099, 263_175, 331_301,
    232_845, 211_531, 211_691, 211_851, 262_247, 263_235, 331_367, 232_876, 216_405, 262_800, 263_395,
    211_993, 212_001,
];

/// The files on the host's disk, oldest read first, with their size in
/// tokens: two over the 5,000-token per-file budget (R7.7), and six in all,
/// one more than the five restored.
const FILES: [(&str, u64); 6] = [
    ("analysis/visuals/compact-failures.dot", 2_100),
    ("analysis/visuals/compact-rebuild.dot", 2_000),
    ("skill/claude-code-version-diff/SKILL.md", 2_200),
    (
        "analysis/runtime-probes/agent-loop-tool-result-resume.json",
        6_400,
    ),
    ("analysis/articles/compact.md", 2_600),
    ("reverse/javascript/cli.readable.js", 12_000),
];

/// What Claude Code sends before the messages: its system prompt, the
/// project's CLAUDE.md and its tool definitions (sizes as `/context` shows
/// them for a 2.1 client: about 3k, 2k and 12k tokens).
fn claude_code_system() -> Vec<SystemPart> {
    vec![
        SystemPart {
            name: "system prompt",
            text: disk::sized(
                "You are Claude Code, Anthropic's official CLI for Claude.",
                &[
                    "You are an interactive CLI tool that helps users with software engineering tasks.",
                    "Use the available tools to search, read and edit code; never guess file contents.",
                    "Keep your answers short; explain before running a command that changes the system.",
                ],
                3_000 * disk::CHARS_PER_TOKEN,
            ),
        },
        SystemPart {
            name: "CLAUDE.md",
            text: disk::sized(
                "# CLAUDE.md (project memory, reloaded from disk on every request)",
                &[
                    "- Cite reverse/javascript/cli.readable.js by line range for every claim.",
                    "- Validate with python3 skill/claude-code-version-diff/scripts/validate_snapshot.py .",
                    "- Write for readers who have never seen the client's source.",
                ],
                1_800 * disk::CHARS_PER_TOKEN,
            ),
        },
        SystemPart {
            name: "tools",
            text: disk::sized(
                "tools: Bash, Edit, Glob, Grep, Read, Write, WebFetch, WebSearch, TodoWrite, Task, ...",
                &[
                    "{\"name\": \"Read\", \"description\": \"Reads a file from the local filesystem.\", \"input_schema\": {...}}",
                    "{\"name\": \"Grep\", \"description\": \"A powerful search tool built on ripgrep.\", \"input_schema\": {...}}",
                    "{\"name\": \"Bash\", \"description\": \"Executes a bash command in a persistent shell.\", \"input_schema\": {...}}",
                ],
                12_000 * disk::CHARS_PER_TOKEN,
            ),
        },
    ]
}

/// A ranged read's result: 160 numbered lines from `offset`.
fn source_range(offset: u32) -> String {
    disk::sized(
        &format!(
            "reverse/javascript/cli.readable.js lines {offset}-{}",
            offset + 160
        ),
        &[
            "  const groups = splitIntoGroups(messages); // legal groups: tool_use with its tool_result",
            "  if (tokens(prefix) > window) { keep += 1; continue; } // summary request over the window",
            "  attachments = recentFiles.slice(0, 5).map((f) => readCapped(f, 5000)); // 50,000 in all",
            "  record({ subtype: 'compact_boundary', compactMetadata: { trigger, preTokens, postTokens } });",
        ],
        6_400,
    )
}

/// [`compact_analysis`] with `extra_groups` more tool-call groups (reads of
/// notes) before the `/compact` (the sandbox's "message groups"), and its
/// second request reading `reads` (3,000 characters each) instead of its
/// own files when `reads` is not empty (the sandbox's "files the session
/// reads": the attachment candidates follow it, R7.7).
///
/// Its sizes are those of a real session: the system prompt, CLAUDE.md and
/// tools take about 17k tokens of every request; two dozen reads of the
/// client's source (each cut to 4,000 characters by budget reduction, R2)
/// and the model's analyses fill the conversation; the files it read are 2k
/// to 12k tokens on disk.
pub fn compact_analysis_with(extra_groups: usize, reads: &[String]) -> Scenario {
    const BUNDLE: &str = "reverse/javascript/cli.readable.js";
    let mut b = Builder::new();
    b.prompt("Find out what Claude Code 2.1.235 does on /compact. Confirm four things: how the Summary is made, whether recent messages are kept, how files are restored, how Resume continues.")
        .tool("Grep", BUNDLE, 1_800)
        .call();
    for &offset in &RANGES[..4] {
        b.tool_text("Read", BUNDLE, source_range(offset));
    }
    b.say(&"The summary prompt asks for an <analysis> block and a <summary> block with nine sections; the parser removes the analysis and keeps the summary as 'Summary:'. ".repeat(40))
        .call()
        .prompt("Do not only analyse the prompt. Check whether manual /compact keeps tool_use/tool_result, which files it re-reads, and how compact_boundary takes part in Resume.");
    let (old, rest) = FILES.split_at(3);
    if reads.is_empty() {
        for &offset in &RANGES[4..12] {
            b.tool_text("Read", BUNDLE, source_range(offset));
        }
        for (path, tokens) in old {
            b.tool_text("Read", path, disk::file_text(path, *tokens));
        }
    }
    for path in reads {
        b.tool("Read", path, 3_000);
    }
    b.say(&"Manual /compact cuts on legal groups, so a tool_use never loses its tool_result; the last group is always kept, and more when the summary request is over the window. ".repeat(40))
        .call();
    for &offset in &RANGES[12..22] {
        b.tool_text("Read", BUNDLE, source_range(offset));
    }
    b.tool(
        "Bash",
        "skill/claude-code-version-diff/scripts/validate_snapshot.py",
        600,
    );
    if reads.is_empty() {
        for (path, tokens) in &rest[..2] {
            b.tool_text("Read", path, disk::file_text(path, *tokens));
        }
    }
    b.say(&"Attachments restore at most five recent files, 5,000 tokens each and 50,000 in all; a failed read is recorded and the rest continue. ".repeat(40))
        .call();
    for k in 0..extra_groups {
        b.tool("Read", &format!("analysis/notes/note_{k:02}.md"), 1_200);
    }
    b.tool_text("Read", BUNDLE, source_range(RANGES[22]))
        .say("Boundary keeps pre/post tokens and the preserved uuids; next, write the article.")
        .call()
        .event(Event::Compact(Some(
            "keep the user's two requests, the key source locations, the probe results and the remaining writing task".to_owned(),
        )))
        .prompt("Now write the /compact article from this evidence, then run the snapshot validation.")
        .call();
    Scenario {
        estimates: Estimates::default(),
        name: "compact-analysis",
        title: "Seed 002: a manual /compact of the session that analyses /compact (precomputed miss)",
        settings: {
            let mut s = Preset::Seed.settings(200_000);
            // Where the summary tells the model the whole session is.
            s.compact.transcript_path = Some(
                "~/.claude/projects/-work-claude-code-analysis/5f1c2a9e-0000-4000-8000-sandbox.jsonl"
                    .to_owned(),
            );
            s
        },
        events: b.done(),
        policy: HostPolicy::default(),
        system: claude_code_system(),
        files: FILES.iter().map(|(p, t)| ((*p).to_owned(), *t)).collect(),
        phases: Vec::new(),
    }
}

/// Design turns `turns` of [`run_through`]: a pinned decision and a long
/// answer each, one call per turn.
fn design_turns(b: &mut Builder, turns: std::ops::Range<usize>) {
    for turn in turns {
        b.prompt(&format!(
            "Design decision {turn}: FastAPI instead of Flask, PostgreSQL for the database."
        ))
        .pin_last();
        b.say(&"Long design answer. ".repeat(1_500)).call();
    }
}

/// A turn of [`run_through`] that runs a package's tests: 25 tool calls
/// (Tier 1's round, R4.3) of `chars` characters each in one turn, then
/// `report` and one call.
fn test_run(b: &mut Builder, package: &str, chars: usize, report: &str) {
    b.prompt(&format!(
        "Run the {package} tests, file by file, and fix what fails."
    ));
    for i in 0..25 {
        b.tool("Bash", &format!("tests/{package}/test_{i}.py"), chars);
    }
    b.say(report).call();
}

/// The test log pasted at the end of [`run_through`], in tokens at the
/// engine's estimate.
const PASTE_TOKENS: usize = 105_000;

/// Seed 000 §5: phases 1–5 over a long session in a 200k window, at the
/// seed's default settings (snip and collapse both on, Tier 3 at its
/// default line), then a 413 (Tier 5).
pub fn run_through() -> Scenario {
    let mut b = Builder::new();
    let mut phases = Vec::new();
    // Phase 1: normal work, nothing fires.
    phases.push(("1 · normal work", b.at()));
    b.prompt("Refactor the Python project: start with utils.py.");
    b.tool("Grep", "src", 50_000); // a huge grep: budget reduction keeps 4,000 characters
    for i in 0..8 {
        b.tool("Read", &format!("src/module_{i}.py"), 1_600);
    }
    b.say("utils.py is fixed.").call();
    // Phase 2: over 50 tool calls, Tier 1 cache-aware clears the first 30.
    phases.push(("2 · microcompact", b.at()));
    for turn in 0..5 {
        b.prompt(&format!("Next: module {turn}."));
        for i in 0..9 {
            b.tool(
                ["Read", "Grep", "Bash"][i % 3],
                &format!("src/pkg_{turn}/file_{i}.py"),
                2_000,
            );
        }
        // What changed and why: the turns snip deletes first (phases 3–4).
        b.say(&format!("Module {turn} is done; what changed and why. ").repeat(370))
            .call();
    }
    // Phase 3: the conversation itself grows towards the line (design
    // turns, no tool call; the user pins each decision, an extension:
    // snip may not delete those turns), then one test run of 25 tool
    // calls takes it over. Its call is due a Tier 1 round (25 more
    // calls), which clears old results but leaves the count over; Tier 2
    // snip then deletes the oldest turns and the count drops under the
    // line (Tiers 3–4 do not run).
    phases.push(("3 · microcompact + snip", b.at()));
    design_turns(&mut b, 0..18);
    test_run(&mut b, "api", 1_200, &"Test report for the API: ".repeat(2_000));
    // Phase 4: continued use. The next test run (larger results) takes
    // the count over again at Tier 1's next round: the same pair again,
    // snip deleting what is left of phase 2 and the API test run.
    phases.push(("4 · again: microcompact + snip", b.at()));
    test_run(&mut b, "db", 3_200, "The database tests pass.");
    b.prompt("Commit that.");
    b.say("Committed.").call();
    // Phase 5: one long turn keeps growing. Snip still gets its second and
    // fourth parts under the line (phase 4 goes on), deleting the last
    // turns it may; at the sixth only the short commit turn is left, and
    // deleting it is not enough: Tier 3 collapses the old design turns (their
    // pinned decisions stay verbatim), and when that is not enough Tier 4
    // compacts.
    b.prompt("Now write the whole API module, with tests.");
    for part in 0..30 {
        if part == 5 {
            phases.push(("5 · collapse, compact", b.at()));
        }
        b.say(&format!("API part {part}: ").repeat(2_000)).call();
    }
    // Tier 5: the user pastes the whole test log. The engine estimates it
    // at four characters a token, under the compact line, and lets the
    // call go; the API counts the log's numbers, hashes and paths at 2.5
    // characters a token, finds the prompt over the window and refuses it,
    // stating its size (413). The emergency compaction summarises what came
    // before the paste, and the retry fits.
    phases.push(("413 · a pasted log", b.at()));
    let log = disk::sized(
        "Here is the full output of `pytest -vv --tb=long`; find why the API tests fail:",
        &[
            "tests/api/test_part_17.py::test_create_item[0x7f3a2c1e-42] FAILED [ 43%]",
            "E   AssertionError: 422 != 201 at api/routes.py:118 (sha 9c1e4b7a)",
            "tests/api/test_part_18.py::test_list_items[page=3,size=50] PASSED [ 44%]",
            "    0x00007f3a2c1e4b70 in handle_request (api/server.py:2041) 12.37ms",
        ],
        PASTE_TOKENS * disk::CHARS_PER_TOKEN,
    );
    let undercount = log.len() as u64 * 10 / 25 - log.len() as u64 / 4;
    b.prompt(&log)
        .call()
        .event(Event::PromptTooLong(Some(undercount)))
        .call();
    Scenario {
        estimates: Estimates::default(),
        name: "run-through",
        title: "Seed 000 §5: phases 1–5 of a long session at default settings (microcompact, snip, collapse, compact), then a pasted test log the API counts over the window (413)",
        settings: Preset::Seed.settings(200_000),
        events: b.done(),
        policy: HostPolicy::default(),
        system: Vec::new(),
        files: Vec::new(),
        phases,
    }
}

/// A long session in a configuration without snip: Tier 3 collapses old
/// segments.
pub fn long_collapse() -> Scenario {
    let mut settings = Preset::Seed.settings(200_000);
    settings.snip = false;
    let mut b = Builder::new();
    for turn in 0..40 {
        b.prompt(&format!("Chapter {turn}: draft it."));
        b.tool("Read", &format!("book/chapter_{turn}.md"), 3_000);
        b.say(&"Drafted text. ".repeat(1_200)).call();
    }
    // Then the recent turns alone outgrow the line: Tier 3 has nothing
    // old left to collapse, and Tier 4 compacts.
    for turn in 0..12 {
        b.prompt(&format!("Review pass {turn}: the whole manuscript."));
        b.say(&"Reviewed text. ".repeat(4_000)).call();
    }
    Scenario {
        estimates: Estimates::default(),
        name: "long-collapse",
        title: "Without snip: segments of old turns collapse into `Turns a–b` summaries as the answers arrive (Tier 3); when the recent turns alone outgrow the line, Tier 4 compacts",
        settings,
        events: b.done(),
        policy: HostPolicy::default(),
        system: Vec::new(),
        files: Vec::new(),
        phases: Vec::new(),
    }
}

/// A tool-heavy coding session: Tier 1 on both paths.
pub fn tool_heavy() -> Scenario {
    let mut b = Builder::new();
    b.prompt("Fix every failing test in the repository.");
    for i in 0..60 {
        b.tool(
            ["Read", "Bash", "Edit", "Grep"][i % 4],
            &format!("tests/test_{}.py", i % 17),
            1_200,
        );
        if i % 10 == 9 {
            b.call();
        }
    }
    b.say("All tests pass.").idle(95).call();
    Scenario {
        estimates: Estimates::default(),
        name: "tool-heavy",
        title: "Microcompact: cache-aware clearing at 50 calls, then time-based after 95 idle minutes",
        settings: Preset::Seed.settings(200_000),
        events: b.done(),
        policy: HostPolicy::default(),
        system: Vec::new(),
        files: Vec::new(),
        phases: Vec::new(),
    }
}

/// Chained compactions: each summary summarises the one before (R7.12).
pub fn chained() -> Scenario {
    let mut b = Builder::new();
    for round in 0..3 {
        for t in 0..4 {
            b.prompt(&format!("Round {round}, task {t}: continue the migration."));
            b.tool("Read", &format!("models/table_{round}_{t}.py"), 8_000);
            b.tool("Edit", &format!("migrations/{round}_{t}.sql"), 800);
            b.say(&format!("Migrated table {round}_{t}: the columns, their types, the foreign keys and the backfill, each checked against the model. ").repeat(300));
        }
        b.event(Event::Compact(None));
    }
    Scenario {
        estimates: Estimates::default(),
        name: "chained",
        title: "Chained compactions: information decays with each pass (R7.12)",
        settings: Preset::Seed.settings(200_000),
        events: b.done(),
        policy: HostPolicy::default(),
        system: Vec::new(),
        files: Vec::new(),
        phases: Vec::new(),
    }
}

/// A request the API refuses as too long: Tier 5, once per turn (R8).
pub fn overflow() -> Scenario {
    let mut b = Builder::new();
    for t in 0..23 {
        b.prompt(&format!("Load dataset part {t}."));
        b.tool("Read", &format!("data/part_{t}.csv"), 3_800);
        b.say("Loaded.");
    }
    // Then the user pastes a whole CSV export into the prompt. The engine
    // estimates it at four characters a token (120,000 tokens: the request
    // is under the compact line, the call goes out); the API counts its
    // digits and commas at two characters a token, 240,000, more than the
    // window by itself. Collapse recovery frees the old turns, the
    // emergency compaction summarises them: the paste is the last group,
    // kept, and every retry is refused again; the third 413 ends the turn.
    let csv = disk::sized(
        "Here is the full export; find the rows where revenue and refunds disagree:",
        &[
            "2026-11-03,4417,1928.40,0,19,7,0.0321,EU-W,30917,112.08",
            "2026-11-03,4418,207.11,2,3,1,0.0007,US-E,30918,9.61",
            "2026-11-04,4419,88210.00,14,211,96,0.2230,AP-S,30919,1204.77",
        ],
        120_000 * disk::CHARS_PER_TOKEN,
    );
    let undercount = csv.len() as u64 / 2 - csv.len() as u64 / 4;
    b.prompt(&csv).call();
    b.event(Event::PromptTooLong(Some(undercount))).call();
    b.event(Event::PromptTooLong(Some(undercount))).call();
    b.event(Event::PromptTooLong(Some(undercount)));
    Scenario {
        estimates: Estimates::default(),
        name: "overflow",
        title: "A pasted CSV the API counts over the window by itself: collapse overflow recovery, then on the next 413 an emergency compaction, then a third 413 in the same turn ends the session (R8)",
        settings: Preset::Seed.settings(200_000),
        events: b.done(),
        policy: HostPolicy::default(),
        system: Vec::new(),
        files: Vec::new(),
        phases: Vec::new(),
    }
}

/// Automatic compaction that keeps failing trips the breaker (R10).
pub fn breakers() -> Scenario {
    let mut settings = Preset::Seed.settings(200_000);
    settings.snip = false;
    settings.collapse.enabled = false;
    let mut b = Builder::new();
    for t in 0..16 {
        b.prompt(&format!("Step {t}."));
        b.say(&"Output. ".repeat(6_000)).call();
    }
    b.call().event(Event::Compact(None));
    Scenario {
        estimates: Estimates::default(),
        name: "breakers",
        title: "Every model down: three failed auto-compactions open the breaker; /compact is still allowed (R10)",
        settings,
        events: b.done(),
        policy: HostPolicy { all_models_down: true, ..HostPolicy::default() },
        system: Vec::new(),
        files: Vec::new(),
        phases: Vec::new(),
    }
}

/// Signed thinking (R13.1): an agent loop whose every reply opens with a
/// signed `thinking` block (one `redacted_thinking`), then 95 idle
/// minutes. The next call's time-based clearing rewrites the oldest tool
/// results, so every thinking block after the first of them no longer
/// matches what it was signed over: the engine's `thinking` setting says
/// what happens to them. The replies after the rewrite are signed over
/// the new history and stay.
pub fn thinking() -> Scenario {
    let mut b = Builder::new();
    b.prompt("Find why the nightly import job times out, and fix it.");
    for i in 0..26 {
        let path = format!("jobs/import/step_{i:02}.py");
        b.tool(["Read", "Grep", "Bash"][i % 3], &path, 1_400);
        if i == 4 {
            b.redacted();
        } else {
            b.think(&format!("Step {i}: {path} may hold the slow query; read it before changing anything, and keep the batch size in mind."));
        }
        b.call();
    }
    b.say("The import reads every row twice: step_07 re-queries what step_03 already loaded. The fix is ready for review.")
        .think("The double read explains the timeout; summarise it and propose the fix.")
        .call()
        .idle(95);
    b.prompt("Back from lunch. Apply the fix and run the job's tests.");
    b.call();
    for (i, path) in ["jobs/import/step_07.py", "tests/test_import.py"]
        .iter()
        .enumerate()
    {
        b.tool(["Edit", "Bash"][i], path, 1_200)
            .think(&format!("After the break: {path}, with the plan from before."))
            .call();
    }
    Scenario {
        estimates: Estimates::default(),
        name: "thinking",
        title: "Signed thinking (R13.1): after 95 idle minutes, time-based clearing rewrites old tool results; the thinking blocks signed over them are dropped, or kept, as the `thinking` setting says",
        settings: Preset::Seed.settings(200_000),
        events: b.done(),
        policy: HostPolicy::default(),
        system: Vec::new(),
        files: Vec::new(),
        phases: Vec::new(),
    }
}
