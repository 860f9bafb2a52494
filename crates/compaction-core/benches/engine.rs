//! Native benchmarks of the engine's hot path (issue 3): one append and the
//! before-call decision on a held history of 1k and 10k messages, a full plan
//! from scratch, a dry-run plan, and decisions where Tier 1 or Tier 2 fire.
//!
//! `cargo bench -p compaction-core --bench engine`. The histories are
//! generated deterministically (no dependency, same bytes every run) and
//! their token counts are printed before the results.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::sync::{Mutex, OnceLock};

use compaction_core::engine::{CallStatus, Decision, Engine};
use compaction_core::engine::{EngineSettings, Preset};
use compaction_core::message::{Block, Content, Message, Role, ToolResultContent, Usage};
use compaction_core::step::Tier;
use compaction_core::tokens::Estimator;
use divan::counter::{BytesCount, ItemsCount};
use divan::Bencher;
use serde_json::json;

/// History lengths, in messages.
const SIZES: [usize; 2] = [1_000, 10_000];

/// A window far above any history here: every decision is the common
/// "proceed" path (nothing near the compact line).
const WIDE: u64 = 100_000_000;

/// The seed's window for today's models (R1.1): a long history imported
/// into it is mostly snipped.
const CLAUDE: u64 = 200_000;

fn main() {
    let e = Estimator::default();
    for n in SIZES {
        let s = Session::new(n);
        let bytes = json_bytes(&s.messages);
        let store: u64 = s.messages.iter().map(|m| e.message(m)).sum();
        let sent: u64 = s.engine.view().sent_messages().map(|m| e.message(m)).sum();
        println!(
            "session of {n} messages ({bytes} bytes of JSON, {} eligible tool calls): \
             {store} tokens in the store, {sent} sent after budget reduction, \
             count {} after Tier 1's clearing (estimated tokens)",
            s.gen.eligible,
            s.engine.count().tokens,
        );
    }
    divan::main();
}

// --- the history -------------------------------------------------------

/// Deterministic pseudo-random numbers (splitmix64).
#[derive(Clone)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo) as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.range(0, 100) < percent
    }
}

/// Source-code-like ASCII lines that message texts are cut from.
fn corpus() -> &'static str {
    static CORPUS: OnceLock<String> = OnceLock::new();
    CORPUS.get_or_init(|| {
        (0..3_000)
            .map(|i| {
                format!(
                    "src/engine/m{}.rs:{}:    let v{i} = compute(&state, {});\n",
                    i % 97,
                    i % 999,
                    i * 7
                )
            })
            .collect()
    })
}

/// Eligible for Tier 1 (R4.1) and not.
const ELIGIBLE: [&str; 5] = ["Read", "Bash", "Grep", "Glob", "Edit"];
const OTHER: [&str; 3] = ["TodoWrite", "Task", "mcp__db__query"];

/// Writes the messages of a session.
#[derive(Clone)]
struct Gen {
    rng: Rng,
    /// Largest oversized tool result, in characters.
    big_max: usize,
    tool_ids: usize,
    eligible: usize,
}

impl Gen {
    fn text(&mut self, lo: usize, hi: usize) -> String {
        let len = self.rng.range(lo, hi);
        let c = corpus();
        let at = self.rng.range(0, c.len() - len);
        c[at..at + len].to_owned()
    }

    /// An assistant message with one or two tool calls (`tool` or a random
    /// one, four in five eligible); returns it and the call ids.
    fn call(&mut self, uuid: String, tool: Option<&str>) -> (Message, Vec<String>) {
        let mut blocks = Vec::new();
        if self.rng.chance(40) {
            blocks.push(Block::text(self.text(40, 400)));
        }
        let calls = 1 + usize::from(tool.is_none() && self.rng.chance(15));
        let mut ids = Vec::new();
        for _ in 0..calls {
            let name = tool.unwrap_or_else(|| match self.rng.range(0, 100) {
                0..80 => ELIGIBLE[self.rng.range(0, ELIGIBLE.len())],
                _ => OTHER[self.rng.range(0, OTHER.len())],
            });
            self.eligible += usize::from(ELIGIBLE.contains(&name));
            self.tool_ids += 1;
            let id = format!("toolu_{:06}", self.tool_ids);
            blocks.push(Block::ToolUse {
                id: id.clone(),
                name: name.to_owned(),
                input: compaction_core::message::Json::from_value(
                    &json!({"file_path": format!("src/engine/module_{}.rs", self.tool_ids % 97)}),
                ),
                extra: Default::default(),
            });
            ids.push(id);
        }
        (Message::new(uuid, Role::Assistant, Content::Blocks(blocks)), ids)
    }

    /// The user message answering `ids`: mostly a few hundred to a few
    /// thousand characters, one in four over 4,000 (budget reduction).
    fn results(&mut self, uuid: String, ids: &[String], chars: Option<usize>) -> Message {
        let blocks = ids
            .iter()
            .map(|id| {
                let text = match chars {
                    Some(n) => self.text(n, n + 1),
                    None if self.rng.chance(25) => self.text(4_001, self.big_max),
                    None => self.text(200, 3_000),
                };
                Block::ToolResult {
                    tool_use_id: id.clone(),
                    content: ToolResultContent::Text(text),
                    is_error: None,
                    extra: Default::default(),
                }
            })
            .collect();
        Message::new(uuid, Role::User, Content::Blocks(blocks))
    }
}

/// A live session of `n` messages: turns of a prompt, one to eight tool
/// rounds and a reply, sized to about 1M tokens at 1k messages and 8M at
/// 10k. The engine (wide window) takes a decision before every model call,
/// and each assistant message reports as `usage` the count of the prompt
/// it answered, as the API would (after the server's clearing).
#[derive(Clone)]
struct Session {
    engine: Engine,
    messages: Vec<Message>,
    gen: Gen,
}

impl Session {
    fn new(n: usize) -> Self {
        static CACHE: Mutex<Vec<Session>> = Mutex::new(Vec::new());
        let mut cache = CACHE.lock().unwrap();
        if let Some(s) = cache.iter().find(|s| s.messages.len() == n) {
            return s.clone();
        }
        let mut s = Session {
            engine: Engine::new(Preset::Seed.settings(WIDE)).unwrap(),
            messages: Vec::with_capacity(n),
            gen: Gen {
                rng: Rng(n as u64),
                big_max: if n <= 1_000 { 58_000 } else { 43_000 },
                tool_ids: 0,
                eligible: 0,
            },
        };
        let mut pending: Vec<String> = Vec::new();
        let mut rounds = 0;
        let mut replied = false;
        while s.messages.len() < n {
            let uuid = format!("m{:06}", s.messages.len());
            let left = n - s.messages.len();
            let m = if !pending.is_empty() {
                let ids = std::mem::take(&mut pending);
                s.gen.results(uuid, &ids, None)
            } else if s.messages.is_empty() || (rounds == 0 && left > 1 && replied) {
                rounds = s.gen.rng.range(1, 9);
                Message::user(uuid, s.gen.text(80, 1_200))
            } else if rounds == 0 || left == 1 {
                let text = s.gen.text(300, 2_500);
                s.answered(Message::assistant(uuid, text))
            } else {
                rounds -= 1;
                let (call, ids) = s.gen.call(uuid, None);
                pending = ids;
                s.answered(call)
            };
            replied = matches!(m.content, Content::Text(_)) && m.role == Role::Assistant;
            s.engine.append(m.clone()).unwrap();
            s.messages.push(m);
        }
        // The decision before the next call.
        s.engine.before_call(None);
        cache.push(s.clone());
        s
    }

    /// The decision before the model call that wrote `m`, and the usage
    /// that call reports.
    fn answered(&mut self, mut m: Message) -> Message {
        let prompt = self.engine.before_call(None).count.tokens;
        m.usage = Some(Box::new(Usage {
            input_tokens: prompt.min(2_000),
            cache_read_input_tokens: prompt.saturating_sub(2_000),
            output_tokens: Estimator::default().message(&m),
            ..Usage::default()
        }));
        m
    }

    /// The next Read call (after its decision) and its 1,500-character
    /// result (not reduced), not appended.
    fn pair(&mut self) -> (Message, Message) {
        let uuid = format!("next-{}", self.gen.tool_ids);
        let (call, ids) = self.gen.call(format!("{uuid}-call"), Some("Read"));
        let call = self.answered(call);
        (
            call,
            self.gen.results(format!("{uuid}-result"), &ids, Some(1_500)),
        )
    }

    /// The next pair whose decision fires Tier 1 (`fires`) or does not;
    /// pairs before it join the session, each with its decision.
    fn pair_that(&mut self, fires: bool) -> (Message, Message) {
        loop {
            let (call, result) = self.pair();
            let mut e = plus(&self.engine, &[&call, &result]);
            if tiers(&e.before_call(None)).contains(&Tier::Microcompact) == fires {
                return (call, result);
            }
            for m in [call, result] {
                self.engine.append(m.clone()).unwrap();
                self.messages.push(m);
            }
        }
    }
}

// --- engines in a known state --------------------------------------------

fn engine_with(settings: EngineSettings, messages: impl IntoIterator<Item = Message>) -> Engine {
    let mut e = Engine::new(settings).unwrap();
    messages.into_iter().for_each(|m| e.append(m).unwrap());
    e
}

/// A clone of `engine` with `messages` appended.
fn plus(engine: &Engine, messages: &[&Message]) -> Engine {
    let mut e = engine.clone();
    messages.iter().for_each(|m| e.append((*m).clone()).unwrap());
    e
}

fn json_bytes(messages: &[Message]) -> usize {
    messages
        .iter()
        .map(|m| serde_json::to_string(m).unwrap().len())
        .sum()
}

fn tiers(d: &Decision) -> Vec<Tier> {
    d.steps.iter().map(|s| s.tier).collect()
}

type Check = fn(&Decision) -> bool;

/// Times appending `result` and deciding, on clones of `engine` that
/// already hold `call`. Appending `call` untimed also gives the clones'
/// vectors (cloned at exactly their length) room, so the timed append
/// does not pay for a reallocation a held engine would not make.
fn bench_pair(bencher: Bencher, engine: &Engine, call: &Message, result: &Message, ok: Check) {
    let input = || (plus(engine, &[call]), result.clone());
    let (mut e, r) = input();
    e.append(r).unwrap();
    let d = e.before_call(None);
    assert!(ok(&d), "unexpected decision: {:?} {:?}", tiers(&d), d.status);
    bencher
        .with_inputs(input)
        .bench_local_values(|(mut e, r): (Engine, Message)| {
            e.append(r).unwrap();
            let d = e.before_call(None);
            (e, d)
        });
}

// --- benchmarks -------------------------------------------------------

/// The common case: one more message, then a decision that only says
/// "proceed" (no tier fires). Target: under 50 µs at 10k messages.
#[divan::bench(args = SIZES, sample_count = 100, sample_size = 10)]
fn append_and_decide(bencher: Bencher, n: usize) {
    let mut s = Session::new(n);
    let (call, result) = s.pair_that(false);
    bench_pair(bencher, &s.engine, &call, &result, |d| {
        d.steps.is_empty() && d.status == CallStatus::Proceed
    });
}

/// The append that completes the 25th eligible call since Tier 1 last
/// fired: the decision clears 25 more results (R4.3).
#[divan::bench(args = SIZES, sample_count = 50, sample_size = 5)]
fn append_and_decide_tier1_fires(bencher: Bencher, n: usize) {
    let mut s = Session::new(n);
    let (call, result) = s.pair_that(true);
    bench_pair(bencher, &s.engine, &call, &result, |d| {
        tiers(d) == [Tier::Microcompact] && d.status == CallStatus::Proceed
    });
}

/// A compact line just under the count: the decision after one more
/// append snips the oldest turn(s) (R5). The line is an override at 80% of
/// the budget (R1.4), under collapse's 90% start, so Tier 2 fires alone.
#[divan::bench(args = SIZES, sample_count = 50, sample_size = 5)]
fn append_and_decide_snips(bencher: Bencher, n: usize) {
    let mut s = Session::new(n);
    let (call, result) = s.pair_that(false);
    let before = s.engine.count().tokens;
    let after = plus(&s.engine, &[&call, &result]).count().tokens;
    // compact = 80% of (window − reserve cap); put it between the counts.
    let line = before + (after - before) / 2;
    let mut settings = Preset::Seed.settings(line * 5 / 4 + 20_000);
    settings.thresholds = settings.thresholds.with_override_pct(80.0);
    let mut engine = engine_with(settings, s.messages);
    let first = engine.before_call(None);
    assert!(!tiers(&first).contains(&Tier::Snip) && (before..after).contains(&engine.lines().compact));
    bench_pair(bencher, &engine, &call, &result, |d| {
        tiers(d).contains(&Tier::Snip) && tiers(d).iter().all(|t| matches!(t, Tier::Snip | Tier::Lines))
    });
}

/// A dry run (R3.4) on a held engine: the same decision, nothing changed.
#[divan::bench(args = SIZES, sample_count = 50, sample_size = 5)]
fn plan_dry_run(bencher: Bencher, n: usize) {
    let s = Session::new(n);
    bencher.bench_local(|| s.engine.plan(None));
}

/// From a list of messages: a new engine, every message appended, one
/// decision (budget reductions reported, Tier 1's first firing; with a
/// small window, snip).
fn from_scratch(bencher: Bencher, n: usize, window: u64, usage: bool) {
    let Session { mut messages, .. } = Session::new(n);
    if !usage {
        messages.iter_mut().for_each(|m| m.usage = None);
    }
    let bytes = json_bytes(&messages);
    bencher
        .counter(ItemsCount::new(n))
        .counter(BytesCount::new(bytes))
        .with_inputs(|| messages.clone())
        .bench_local_values(|messages: Vec<Message>| {
            let mut e = engine_with(Preset::Seed.settings(window), messages);
            let d = e.before_call(None);
            (e, d)
        });
}

/// Full plan from scratch with a window above the history (no snip).
#[divan::bench(args = SIZES, sample_count = 10, sample_size = 1)]
fn full_plan_from_scratch(bencher: Bencher, n: usize) {
    from_scratch(bencher, n, WIDE, true);
}

/// Full plan from scratch of a transcript without `usage` (the count is
/// the estimate) into a 200k window: at 10k messages, most of the view is
/// snipped, a turn at a time (importing a long session).
#[divan::bench(args = SIZES, sample_count = 10, sample_size = 1)]
fn full_plan_from_scratch_200k_window(bencher: Bencher, n: usize) {
    from_scratch(bencher, n, CLAUDE, false);
}

/// A window whose precompute line (R9.1) the session's count has passed
/// while it stays under the warn line: the first decision asks for a
/// precompute, which stays pending (unanswered) for the timed calls.
fn precompute_pending(n: usize) -> (Engine, Message, Message) {
    let mut s = Session::new(n);
    let (call, result) = s.pair_that(false);
    let count = s.engine.count().tokens;
    let settings = (1..400)
        .map(|i| {
            let mut st = Preset::Seed.settings(count + count * i / 400);
            // Room between the lines for a 1k session's count too.
            st.thresholds.precompute_pct = 50;
            st
        })
        .find(|st| {
            let l = compaction_core::thresholds::Thresholds::compute(&st.thresholds).unwrap();
            l.precompute <= count && count + 20_000 < l.warn
        })
        .expect("a window with the count between the precompute and warn lines");
    let mut engine = engine_with(settings, s.messages);
    let first = engine.before_call(None);
    assert!(
        first.requests.iter().any(|r| r.kind() == "precompute"),
        "no precompute asked: {:?}",
        first.steps.iter().map(|s| &s.reason).collect::<Vec<_>>()
    );
    (engine, call, result)
}

/// One more message and a decision while a precompute request is pending
/// (the host has not answered it yet): the decision lists that request.
#[divan::bench(args = SIZES, sample_count = 50, sample_size = 5)]
fn append_and_decide_precompute_pending(bencher: Bencher, n: usize) {
    let (engine, call, result) = precompute_pending(n);
    bench_pair(bencher, &engine, &call, &result, |d| {
        d.requests.len() == 1 && d.status == CallStatus::Proceed
    });
}

/// A window whose compact line the session's count has passed, with room
/// under the blocked line: the first decision starts a compaction, its
/// PreCompact hooks are answered, and its summary request stays pending
/// (unanswered) for the timed calls. With `collapse`, Tier 3 is on and
/// asks for segment summaries first.
fn tier_pending(n: usize, collapse: bool) -> (Engine, Message, Message) {
    let mut s = Session::new(n);
    let (call, result) = s.pair_that(false);
    // No clearing (Tier 1) and no snip: the count stays where it is.
    let settings_for = |window: u64| {
        let mut st = Preset::Seed.settings(window);
        st.collapse.enabled = collapse;
        st.snip = false;
        st.microcompact.eligible_tools.clear();
        st.microcompact.context_editing = false;
        st
    };
    let count = engine_with(settings_for(WIDE), s.messages.clone()).count().tokens;
    let settings = (1..400)
        .map(|i| settings_for(count + count * i / 400))
        .find(|st| {
            let l = compaction_core::thresholds::Thresholds::compute(&st.thresholds).unwrap();
            l.compact < count && count + 5_000 < l.blocked
        })
        .expect("a window with the count between the compact and blocked lines");
    let mut engine = engine_with(settings, s.messages);
    let first = engine.before_call(None);
    if let Some(hook) = first.requests.iter().find(|r| r.kind() == "preCompact") {
        engine
            .answer(
                hook.id(),
                compaction_core::engine::Answer::Hook(Default::default()),
            )
            .unwrap();
    }
    let kinds: Vec<_> = engine.requests().iter().map(|r| r.kind()).collect();
    let want = if collapse { "collapseSegment" } else { "summary" };
    assert!(
        kinds.contains(&want),
        "no {want} pending: {kinds:?} {:?}",
        first.steps.iter().map(|s| &s.reason).collect::<Vec<_>>()
    );
    (engine, call, result)
}

/// One more message and a decision while a compaction's summary request
/// is pending: the decision lists that request.
#[divan::bench(args = SIZES, sample_count = 50, sample_size = 5)]
fn append_and_decide_compaction_pending(bencher: Bencher, n: usize) {
    let (engine, call, result) = tier_pending(n, false);
    bench_pair(bencher, &engine, &call, &result, |d| {
        d.requests.iter().any(|r| r.kind() == "summary")
    });
}

/// One more message and a decision while Tier 3's segment summaries are
/// pending: the decision lists them.
#[divan::bench(args = SIZES, sample_count = 50, sample_size = 5)]
fn append_and_decide_collapse_pending(bencher: Bencher, n: usize) {
    let (engine, call, result) = tier_pending(n, true);
    bench_pair(bencher, &engine, &call, &result, |d| {
        d.requests.iter().any(|r| r.kind() == "collapseSegment")
    });
}
