// A complete agent loop with context compaction, against a fake model, run
// by scripts/test.sh: `node tests/examples/agent-loop.mjs` (after the
// package is installed into tests/node_modules). Every tier of the cascade
// fires in one of its sessions; the script exits non-zero if one does not,
// or if a view sent to the "API" ever separates a tool_use from its result.
import { Engine, isPromptTooLong, promptTooLongTokens } from "context-compaction";
import { readSession } from "context-compaction/session";

// --- the world: a fake Messages API and tools --------------------------------

/** What the fake API counts: a little more than the engine's estimate, as real tokenizers do. */
const realTokens = (messages) => Math.ceil(JSON.stringify(messages).length / 3.2);

/** The API's answer to an over-long prompt: HTTP 400 `invalid_request_error`, as the SDK's `APIError` carries it. */
class PromptTooLong extends Error {
  status = 400;
  type = "invalid_request_error";
}

/** A fake `client.beta.messages.create`: follows a script of replies. */
function fakeModel({ limit, script, reportUsage = true }) {
  let i = 0;
  return {
    calls: 0,
    async create({ messages, context_management }) {
      this.calls += 1;
      checkPairs(messages);
      if (context_management) this.sawEdits = true;
      const tokens = realTokens(messages);
      if (tokens > limit) throw new PromptTooLong(`prompt is too long: ${tokens} tokens > ${limit} maximum`);
      const content = script(i++);
      return {
        role: "assistant",
        content,
        usage: reportUsage ? { input_tokens: tokens, output_tokens: 50, cache_creation_input_tokens: null, cache_read_input_tokens: null } : undefined,
      };
    },
  };
}

/** Every tool_result answers a tool_use in the message just before it. */
function checkPairs(messages) {
  messages.forEach((m, i) => {
    if (typeof m.content === "string") return;
    for (const b of m.content) {
      if (b.type !== "tool_result") continue;
      const prev = messages[i - 1];
      const ok = prev && Array.isArray(prev.content) && prev.content.some((u) => u.type === "tool_use" && u.id === b.tool_use_id);
      if (!ok) throw new Error(`view separates tool_result ${b.tool_use_id} from its tool_use (message ${i})`);
    }
  });
}

/** The summariser: a real agent sends request.messages + request.prompt to request.model. */
async function summarize(request) {
  const turns = request.messages.filter((m) => m.role === "user" && typeof m.content === "string").length;
  return `<analysis>drafting</analysis>\n<summary>\n1. Primary Request and Intent: ${turns} user turns so far.\n</summary>`;
}

const runTool = (use) => (use.name === "Read" ? `contents of ${use.input.file_path}\n${"line\n".repeat(use.input.lines ?? 100)}` : "ok");

// --- the agent loop -------------------------------------------------------------

let clock = Date.parse("2026-11-30T09:00:00Z");
const now = () => new Date(clock).toISOString();
const tiers = new Set();
const note = (steps) => steps.forEach((s) => tiers.add(s.tier));

/** The host `prepare()` answers the engine's requests through. */
const host = () => ({
  summarize,
  now: now(),
  readFiles: (paths) => paths.map((path) => ({ path, content: `restored ${path}` })),
  preCompact: ({ trigger }) => {
    hooks.push(trigger);
    return { addedInstructions: ["Keep the file list."] };
  },
});
const hooks = [];

/** One user turn: the model may call tools until it answers in text. */
async function agentTurn(engine, model, prompt) {
  engine.append({ role: "user", content: prompt, timestamp: now() });
  for (let round = 0; round < 200; round++) {
    clock += 30_000;
    const decision = await engine.prepare(host());
    note(decision.steps);
    if (decision.status.kind === "blocked") throw new Error(`blocked: ${decision.steps.at(-1).reason}`);
    let reply;
    try {
      reply = await model.create({ messages: engine.messages(), context_management: decision.contextManagement ?? undefined });
    } catch (e) {
      if (!isPromptTooLong(e)) throw e;
      // Tier 5: the next prepare() answers what the refusal asks (segments,
      // or an emergency compaction with its PreCompact hook), then retry.
      const outcome = engine.promptTooLong(promptTooLongTokens(e));
      note(outcome.steps);
      if (outcome.compaction?.kind === "failed") throw new Error(`cannot continue: ${outcome.compaction.reason}`);
      continue;
    }
    engine.append({ role: "assistant", content: reply.content, usage: reply.usage, timestamp: now() });
    const uses = reply.content.filter((b) => b.type === "tool_use");
    if (uses.length === 0) return;
    engine.append({
      role: "user",
      content: uses.map((u) => ({ type: "tool_result", tool_use_id: u.id, content: runTool(u) })),
      timestamp: now(),
    });
  }
  throw new Error("the model never stopped calling tools");
}

const text = (s) => [{ type: "text", text: s }];
const read = (id, path, lines) => [{ type: "tool_use", id, name: "Read", input: { file_path: path, lines } }];

// --- sessions, one per part of the cascade ----------------------------------------

async function session(name, settings, model, prompts) {
  const engine = new Engine(settings);
  engine.setSystem("You are a careful coding agent.");
  const before = new Set(tiers);
  tiers.clear();
  for (const p of prompts) await agentTurn(engine, model, p);
  const seen = [...tiers];
  seen.forEach((t) => before.add(t));
  tiers.clear();
  before.forEach((t) => tiers.add(t));
  const records = engine.records();
  // Persist and resume. Records hold what Claude Code's transcript holds:
  // the messages and each compaction's boundary and summary. Snip and
  // collapse are view decisions the engine makes again after a resume, so
  // only where no such tier fired must the resumed view equal the live one.
  const resumed = new Engine(settings);
  resumed.loadSession(readSession(records.join("\n")));
  const viewOnly = seen.some((t) => t === "snip" || t === "collapse" || t === "budgetReduction");
  if (!viewOnly && JSON.stringify(resumed.messages()) !== JSON.stringify(engine.messages())) {
    throw new Error(`${name}: resume differs from the live view`);
  }
  console.log(
    `${name.padEnd(20)} ${String(model.calls).padStart(3)} calls, ${String(engine.count().tokens).padStart(6)} tokens at the end, ` +
      `${String(records.length).padStart(3)} records; tiers: ${seen.filter((t) => t !== "lines").join(", ")}`,
  );
  return engine;
}

// Tier 1 (cache-aware microcompact) and budget reduction: 60 reads, one huge.
await session(
  "tools (tier 1, R2)",
  "seed",
  fakeModel({ limit: 200_000, script: (i) => (i < 60 ? read(`toolu_${i}`, `src/f${i}.rs`, i === 3 ? 5_000 : 40) : text("done")) }),
  ["Read every file in src/."],
);

// Tier 2 (snip): the seed preset on a small window.
await session(
  "snip (tier 2)",
  { preset: "seed", window: 50_000, maxOutputTokens: 4_000 },
  fakeModel({ limit: 50_000, script: () => text("w".repeat(6_000)) }),
  Array.from({ length: 24 }, (_, i) => `Chapter ${i}: draft it.`),
);

// Tier 3 (collapse): no snip, a 200k window, long turns.
await session(
  "collapse (tier 3)",
  { preset: "seed", snip: false },
  fakeModel({ limit: 200_000, reportUsage: false, script: () => text("Drafted text. ".repeat(1_600)) }),
  Array.from({ length: 34 }, (_, i) => `Chapter ${i}: draft it.`),
);

// Tier 4 (auto-compaction): client 2.1 (no snip, no collapse).
await session(
  "compact (tier 4)",
  { preset: "client-2.1", window: 50_000, maxOutputTokens: 4_000 },
  fakeModel({ limit: 50_000, script: () => text("x".repeat(6_000)) }),
  Array.from({ length: 24 }, (_, i) => `Step ${i}.`),
);

// Tier 5 (reactive): usage never reported and a tokenizer heavier than the
// estimate, so the API refuses before the engine's lines are reached.
await session(
  "reactive (tier 5)",
  { preset: "client-2.1", window: 50_000, maxOutputTokens: 4_000 },
  fakeModel({ limit: 34_000, reportUsage: false, script: () => text("y".repeat(6_000)) }),
  Array.from({ length: 24 }, (_, i) => `Step ${i}.`),
);

// A manual /compact with instructions, answered by hand.
{
  const engine = new Engine("seed");
  engine.load([
    { role: "user", content: "Design the API." },
    { role: "assistant", content: "Here is a draft." },
  ]);
  // Sans-IO by hand: every compaction asks the PreCompact hook first, then
  // for its summary; each answer names its request's id.
  let outcome = engine.compact("Keep the endpoint list");
  const [hook] = outcome.requests;
  if (hook.kind !== "preCompact" || hook.trigger !== "manual") throw new Error("the hook is asked first");
  outcome = engine.answer(hook.id, { kind: "hook" });
  const [request] = outcome.requests;
  if (request.kind !== "summary") throw new Error(`expected a summary request, got ${request.kind}`);
  outcome = engine.answer(request.id, await summarize(request));
  const progress = outcome.compaction;
  if (progress?.kind !== "compacted" || progress.result.boundary.compactMetadata.trigger !== "manual") throw new Error("manual compact failed");
  console.log(`${"manual /compact".padEnd(22)} boundary ${progress.result.boundary.uuid}`);
}

const want = ["budgetReduction", "microcompact", "snip", "collapse", "compact", "reactive"];
const missing = want.filter((t) => !tiers.has(t));
// The PreCompact hook was asked before automatic and reactive compactions too.
if (!hooks.includes("auto")) {
  console.error("the PreCompact hook was never asked before an automatic compaction");
  process.exit(1);
}
console.log(`tiers seen: ${[...tiers].sort().join(", ")}`);
if (missing.length) {
  console.error(`tiers that never fired: ${missing.join(", ")}`);
  process.exit(1);
}
