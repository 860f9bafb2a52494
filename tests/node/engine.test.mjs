// The Engine API of the built package, imported by name as a user would:
// every method, its errors, and the module surviving bad input.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { Engine, plan } from "context-compaction";
import { readSession, SessionImporter } from "context-compaction/session";

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, "../../crates/compaction-core/tests/fixtures/transcripts");
const fixtureNames = [
  "ivh__claudecode_to_html__89196983-226d-4cce-917d-f19967122f0b.jsonl",
  "kzahel__yepanywhere__index.jsonl",
  "marot__spotter__4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
  "oneryalcin__fasthooks__sample_main_transcript.jsonl",
  "wpfleger96__claude-code-status-line__session_with_compact.jsonl",
];

// A 50,000-token window: compact line 33,000, blocked 43,000. client-2.1 has
// no snip and no collapse, so crossing the compact line means Tier 4.
const SMALL = { preset: "client-2.1", window: 50_000, maxOutputTokens: 4_000 };

/** Turns of ~2,000 tokens each (a prompt and a reply). */
function turns(n, from = 0) {
  const out = [];
  for (let i = from; i < from + n; i++) {
    out.push({ role: "user", content: `question ${i}: ${"q".repeat(4_000)}` });
    out.push({ role: "assistant", content: `answer ${i}: ${"a".repeat(4_000)}` });
  }
  return out;
}

/** Walks a value: only plain objects, arrays, strings, finite numbers, booleans and null. */
function assertPlain(value, path = "value") {
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    assert.ok(Number.isFinite(value), `${path} is not finite`);
    return;
  }
  assert.equal(typeof value, "object", `${path} is ${typeof value}`);
  if (Array.isArray(value)) {
    value.forEach((v, i) => assertPlain(v, `${path}[${i}]`));
    return;
  }
  assert.equal(Object.getPrototypeOf(value), Object.prototype, `${path} is not a plain object`);
  for (const [k, v] of Object.entries(value)) assertPlain(v, `${path}.${k}`);
}

/** Asserts `fn` throws an Error with this code, naming this field. */
function throwsCode(fn, code, field) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof Error, `thrown value is ${typeof e}, not an Error`);
    assert.equal(e.code, code, e.message);
    if (field !== undefined) {
      assert.equal(e.field, field, e.message);
      assert.ok(e.message.includes(field), `message ${JSON.stringify(e.message)} names ${field}`);
    }
    return true;
  });
}

function deepFreeze(v) {
  if (v && typeof v === "object") {
    Object.values(v).forEach(deepFreeze);
    Object.freeze(v);
  }
  return v;
}

/** Answers a pending PreCompact request with "allow" (no hooks); returns
 * the engine's outcome then, or `x` when no hook was pending. */
function allow(engine, x) {
  const hook = x.requests.find((r) => r.kind === "preCompact");
  if (!hook) return x;
  const next = engine.answer(hook.id, { kind: "hook" });
  return { ...next, steps: [...(x.steps ?? []), ...next.steps] };
}
/** The summary request among `x.requests`, past its hook. */
const summaryOf = (engine, x) => allow(engine, x).requests.find((r) => r.kind === "summary");

test("an engine from a preset name, a settings object, or nothing", () => {
  assert.equal(new Engine().lines().compact, 167_000);
  assert.equal(new Engine("newer-client").lines().compact, 167_000);
  assert.equal(new Engine({ window: 1_000_000, maxOutputTokens: 32_000 }).lines().compact, 967_000);
  assert.equal(new Engine(SMALL).lines().compact, 33_000);
});

const badSettings = [
  ["turbo", "preset"],
  [{ preset: "turbo" }, "preset"],
  [{ window: 10_000 }, "window"],
  [{ window: "200000" }, "window"],
  [{ window: NaN }, "window"],
  [{ maxOutputTokens: -1 }, "maxOutputTokens"],
  [{ overridePct: 0 }, "overridePct"],
  [{ windw: 1 }, "windw"],
  [{ model: 3 }, "model"],
  [{ fallbackModels: "haiku" }, "fallbackModels"],
  [{ snip: "no" }, "snip"],
  [42, "settings"],
  [true, "settings"],
];
for (const [settings, field] of badSettings) {
  test(`new Engine(${JSON.stringify(settings)}) → INVALID_SETTING naming ${field}`, () => {
    throwsCode(() => new Engine(settings), "INVALID_SETTING", field);
  });
}

test("append: uuids made when absent, kept when given; duplicates refused", () => {
  const engine = new Engine();
  assert.equal(engine.append({ role: "user", content: "hi" }), "m1");
  assert.equal(engine.append({ role: "assistant", content: [{ type: "text", text: "hello" }], uuid: "a-1" }), "a-1");
  assert.equal(engine.append({ role: "user", content: "again" }), "m2");
  throwsCode(() => engine.append({ role: "user", content: "x", uuid: "a-1" }), "DUPLICATE_UUID", "message");
  assert.deepEqual(engine.messages(), [
    { role: "user", content: "hi" },
    { role: "assistant", content: [{ type: "text", text: "hello" }] },
    { role: "user", content: "again" },
  ]);
  assert.deepEqual(engine.view().map((m) => m.uuid), ["m1", "a-1", "m2"]);
});

test("R13.3: a mid-conversation system message and tool changes are kept where they are, byte for byte, and counted", () => {
  const system = {
    role: "system",
    content: [
      { type: "text", text: "From now on answer in French." },
      { type: "tool_addition", tool: { type: "tool_reference", name: "Grep" } },
      { type: "tool_removal", tool: { type: "tool_reference", name: "Bash" } },
    ],
    clear_at: "next_user_message",
    output_config: { effort: "low" },
  };
  const history = [
    { role: "user", content: "hello" },
    { role: "assistant", content: "hi" },
    system,
    { role: "user", content: "again" },
  ];
  for (const load of [(e) => e.load(history), (e) => e.loadJson(JSON.stringify(history)), (e) => history.forEach((m) => e.append(m))]) {
    const engine = new Engine(SMALL);
    const before = engine.count().tokens;
    load(engine);
    assert.deepEqual(engine.messages()[2], system);
    assert.equal(engine.view()[2].role, "system");
    assert.equal(engine.view()[2].clear_at, "next_user_message");
    assert.ok(engine.count().tokens > before + 20, "the system message counts");
  }
});

const garbage = [
  [null, "message"],
  ["hello", "message"],
  [42, "message"],
  [{ role: "robot", content: "x" }, "message.role"],
  [{ role: "user" }, "message.content"],
  [{ role: "user", content: 5 }, "message.content"],
  [{ role: "user", content: [{ text: "no type" }] }, "message.content[0]"],
  [{ role: "user", content: [{ type: "tool_result" }] }, "message.content[0]"],
  [{ role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: 5 }] }, "message.content[1].text"],
  [{ role: "user", content: "x", timestamp: "yesterday" }, "message.timestamp"],
  [{ role: "user", content: "x", uuid: "" }, "message.uuid"],
  [{ role: "system", content: 7 }, "message.content"],
  [{ role: "assistant", content: "x", usage: { input_tokens: -5 } }, "message.usage.input_tokens"],
  [{ role: "user", content: "x", usage: { input_tokens: 1.5 } }, "message.usage.input_tokens"],
];
test("garbage messages are INVALID_MESSAGE errors naming the field, and the same engine keeps working", () => {
  const engine = new Engine(SMALL);
  engine.append({ role: "user", content: "before" });
  for (const [message, field] of garbage) {
    throwsCode(() => engine.append(message), "INVALID_MESSAGE", field);
  }
  throwsCode(() => engine.loadJson("{not json"), "INVALID_JSON", "messages");
  throwsCode(() => engine.loadJson('[{"role":"user","content":"ok"},{"role":"user"}]'), "INVALID_MESSAGE", "messages[1].content");
  throwsCode(() => engine.loadJson('[{"role":"user","content":"ok"},{"role":1,"content":"x"}]'), "INVALID_MESSAGE", "messages[1].role");
  throwsCode(() => engine.loadJson('[{"role":"user","content":"ok"},\n {"role":"user","content":[{"type":"text","text":"a"},\n  {"type":"text","text":[5]}]}]'), "INVALID_MESSAGE", "messages[1].content[1].text");
  throwsCode(() => engine.loadJson('[{"role":"user","content":"ok"},{"role":1,"content":"x"'), "INVALID_JSON", "messages");
  throwsCode(() => engine.loadJson('{"messages":[{"role":"user","content":"ok"},{"role":"user","content":7}]}'), "INVALID_MESSAGE", "messages[1].content");
  throwsCode(() => engine.loadJson('{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":{}}]}]}'), "INVALID_MESSAGE", "messages[0].content[0].text");
  throwsCode(() => engine.loadJson('{"system":7,"messages":[]}'), "INVALID_JSON", "system");
  throwsCode(() => engine.loadJson('{"model":"m"}'), "INVALID_JSON", "messages");
  throwsCode(() => engine.loadJson('[{"role":"user","content":"ok"}] trailing'), "INVALID_JSON", "messages");
  throwsCode(() => engine.load([{ role: "user", content: "ok" }, { role: 1 }]), "INVALID_MESSAGE", "messages[1].role");
  throwsCode(() => engine.load([{ role: "user", content: "ok" }, { role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: null }] }]), "INVALID_MESSAGE", "messages[1].content[1].text");
  throwsCode(() => engine.load([{ role: "user", content: "ok" }, "hi"]), "INVALID_MESSAGE", "messages[1]");
  // Not writable as JSON: still named by index.
  throwsCode(() => engine.load([{ role: "user", content: "ok" }, { role: "user", content: "x", usage: { input_tokens: 1n } }]), "INVALID_MESSAGE", "messages[1]");
  throwsCode(() => engine.load("nope"), "INVALID_ARGUMENT", "messages");
  throwsCode(() => engine.beforeCall("soon"), "INVALID_ARGUMENT", "now");
  throwsCode(() => engine.answer(99, "text"), "UNKNOWN_REQUEST", "id");
  throwsCode(() => engine.answer(-1, "text"), "INVALID_ARGUMENT", "id");
  throwsCode(() => engine.answer(1, { kind: "banana" }), "INVALID_ARGUMENT", "answer");
  throwsCode(() => engine.answer(1, { kind: "text" }), "INVALID_ARGUMENT", "answer");
  throwsCode(() => engine.answer(1, { kind: "text", text: 5 }), "INVALID_ARGUMENT", "answer");
  throwsCode(() => engine.answer(7, { kind: "files", files: [{ path: "a" }] }), "UNKNOWN_REQUEST", "id");
  throwsCode(() => engine.answer(7, { kind: "files", files: "files" }), "INVALID_ARGUMENT", "answer");
  throwsCode(() => engine.answer(7, { kind: "hook", addedInstructions: [5] }), "INVALID_ARGUMENT", "answer");
  // A compaction's first request is its PreCompact hook's; any other kind
  // of answer to it is WRONG_ANSWER, and nothing changes.
  const manual = engine.compact();
  if (manual.requests.length) {
    const [hook] = manual.requests;
    assert.equal(hook.kind, "preCompact");
    throwsCode(() => engine.answer(hook.id, "text"), "WRONG_ANSWER", "id");
    assert.deepEqual(engine.answer(hook.id, { kind: "hook", block: "no" }).compaction.kind, "failed");
  }
  throwsCode(() => engine.pin("nobody"), "UNKNOWN_MESSAGE", "uuid");
  throwsCode(() => engine.expand("m1"), "UNKNOWN_MESSAGE", "uuid");
  throwsCode(() => engine.loadSession(42), "INVALID_ARGUMENT", "session");
  throwsCode(() => engine.loadSession("a file's text"), "INVALID_ARGUMENT", "session");
  throwsCode(() => engine.loadSession({ report: {}, messages: [{ role: "user", content: "no uuid" }] }), "INVALID_MESSAGE", "session.messages[0].uuid");
  // Nothing of the failed loads entered; the engine still works.
  assert.deepEqual(engine.messages(), [{ role: "user", content: "before" }]);
  engine.append({ role: "assistant", content: "after" });
  const d = engine.beforeCall("2026-11-30T12:00:00Z");
  assert.equal(d.status.kind, "proceed");
  assert.equal(engine.messages().length, 2);
});

test("loadJson: an array or a request body; same engine state as load() of the objects", () => {
  const history = turns(5);
  const a = new Engine();
  assert.equal(a.loadJson(JSON.stringify(history)), 10);
  const b = new Engine();
  assert.equal(b.load(history), 10);
  assert.deepEqual(a.messages(), b.messages());
  assert.deepEqual(a.count(), b.count());
  const c = new Engine();
  c.loadJson(JSON.stringify({ system: "You are terse. ".repeat(400), messages: history }));
  assert.ok(c.count().tokens > a.count().tokens, "the request's system prompt counts");
  // `system` as text blocks (cache_control and other fields ignored) counts the same.
  const d = new Engine();
  const half = "You are terse. ".repeat(200);
  d.loadJson(JSON.stringify({
    model: "claude-sonnet-4", max_tokens: 1024,
    system: [{ type: "text", text: half }, { type: "text", text: half, cache_control: { type: "ephemeral" } }],
    messages: history,
  }));
  assert.ok(Math.abs(d.count().tokens - c.count().tokens) <= 2, `${d.count().tokens} vs ${c.count().tokens}`);
});

test("what the engine does not interpret comes back as it went in: key order, every field", () => {
  const assistant = {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "hmm", signature: "sig" },
      { type: "tool_use", id: "toolu_1", name: "Edit", input: { z: 1, a: [2.5, { y: null, b: "é" }], file_path: "a.rs" }, caller: { type: "direct" } },
      { type: "text", text: "done", citations: null, cache_control: { type: "ephemeral" } },
      { type: "server_tool_use", id: "srv_1", name: "web_search", input: { query: "x" } },
    ],
  };
  const user = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok", is_error: false }] };
  for (const load of [(e) => e.load([assistant, user]), (e) => e.loadJson(JSON.stringify([assistant, user]))]) {
    const engine = new Engine();
    load(engine);
    assert.equal(JSON.stringify(engine.messages()), JSON.stringify([assistant, user]));
  }
});

test("usage as the SDK reports it (cache counters may be null) makes the count reported", () => {
  const engine = new Engine();
  engine.append({ role: "user", content: "hi" });
  engine.append({
    role: "assistant",
    content: "hello",
    // As a response's `usage` comes from the SDK, extra fields and all.
    usage: {
      input_tokens: 12_000, output_tokens: 30, cache_creation_input_tokens: null, cache_read_input_tokens: 500,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 }, server_tool_use: null, service_tier: "standard",
    },
  });
  const d = engine.beforeCall();
  assert.match(d.count.basis, /^reported/);
  assert.ok(d.count.tokens >= 12_500 && d.count.tokens < 12_600, String(d.count.tokens));
});

test("decisions are plain objects: camelCase, numbers, null, no Map/BigInt; inputs are not mutated", () => {
  const history = deepFreeze(turns(17));
  const copy = structuredClone(history);
  const engine = new Engine(SMALL);
  engine.load(history);
  const d = engine.beforeCall("2026-11-30T12:00:00Z");
  assert.deepEqual(history, copy);
  assertPlain(d, "decision");
  assert.deepEqual(Object.keys(d).sort(), [
    "betas", "breaker", "clearedByClient", "compaction", "contextManagement", "count", "lines", "requests", "status", "steps", "thinking",
  ]);
  assert.equal(d.status.kind, "compactionDue");
  assert.equal(typeof d.status.overBy, "number");
  assert.equal(d.compaction.kind, "waiting");
  assert.equal(d.requests[0].kind, "preCompact", "every compaction asks its PreCompact hook first");
  assert.equal(d.requests[0].trigger, "auto");
  const request = summaryOf(engine, d);
  assert.equal(request.purpose.kind, "compact");
  assert.equal(request.attempt, 1);
  assert.ok(request.messages.length > 0);
  for (const m of request.messages) assert.deepEqual(Object.keys(m), ["role", "content"]);
  for (const step of d.steps) {
    assert.equal(typeof step.countBefore.tokens, "number");
    assert.equal(typeof step.reason, "string");
  }
  assertPlain(engine.view(), "view");
  assertPlain(engine.messages(), "messages");
});

test("answering by hand: text compacts; records hold the boundary; the view starts with the summary", () => {
  const engine = new Engine(SMALL);
  engine.load(turns(17));
  const d = engine.beforeCall();
  const out = engine.answer(summaryOf(engine, d).id, "<summary>1. Primary Request: the questions so far.</summary>");
  assertPlain(out, "outcome");
  assert.equal(out.compaction.kind, "compacted");
  const { boundary, summary } = out.compaction.result;
  assert.equal(boundary.subtype, "compact_boundary");
  assert.equal(boundary.compactMetadata.trigger, "auto");
  assert.ok(boundary.compactMetadata.preTokens > boundary.compactMetadata.postTokens);
  assert.equal(summary.isCompactSummary, true);
  assert.equal(out.compaction.records.length >= 2, true);
  assert.equal(JSON.parse(out.compaction.records[0]).subtype, "compact_boundary");
  const view = engine.view();
  assert.equal(view[0].uuid, summary.uuid);
  assert.ok(engine.count().tokens < 33_000);
  assert.equal(engine.beforeCall().status.kind === "compactionDue", false);
});

test("answering by hand: model unavailable and prompt too long leave the old view (retry or failure)", () => {
  for (const answer of [{ kind: "modelUnavailable" }, { kind: "promptTooLong" }]) {
    const engine = new Engine(SMALL);
    engine.load(turns(17));
    const before = engine.messages();
    const first = summaryOf(engine, engine.beforeCall());
    const out = engine.answer(first.id, answer);
    const next = out.requests.find((r) => r.kind === "summary");
    assert.ok(next || out.compaction.kind === "failed", JSON.stringify(out.compaction));
    if (next) {
      assert.ok(next.attempt > 1 || next.messages.length < first.messages.length);
    }
    assert.deepEqual(engine.messages(), before, "all or nothing: the old view stays");
  }
});

test("answer(id, { kind: \"offline\" }): the engine's own summariser compacts without a model", () => {
  const engine = new Engine(SMALL);
  engine.load(turns(17));
  const d = engine.beforeCall();
  assert.equal(engine.answer(summaryOf(engine, d).id, { kind: "offline" }).compaction.kind, "compacted");
});

test("prepare(host) runs the loop: the callbacks get the requests, the decision comes back settled", async () => {
  const engine = new Engine(SMALL);
  engine.load(turns(17));
  const asked = [];
  const hooks = [];
  const d = await engine.prepare({
    summarize: async (request) => {
      asked.push(request);
      // The engine is not borrowed while the model call runs.
      assert.ok(engine.messages().length > 0);
      return "<summary>Everything so far, briefly.</summary>";
    },
    preCompact: (request) => {
      hooks.push(request);
      return { addedInstructions: ["Keep the ticket id."] };
    },
    now: "2026-11-30T12:00:00Z",
  });
  assert.equal(hooks.length, 1);
  assert.equal(hooks[0].trigger, "auto");
  assert.match(asked[0].prompt, /Keep the ticket id\./);
  assertPlain(d, "decision");
  assert.equal(asked.length, 1);
  assert.equal(asked[0].purpose.kind, "compact");
  assert.ok(asked[0].prompt.length > 100);
  assert.equal(d.compaction.kind, "compacted");
  assert.deepEqual(d.requests, []);
  assert.notEqual(d.status.kind, "compactionDue");
  assert.ok(d.steps.some((s) => s.tier === "compact"), d.steps.map((s) => s.tier).join());
  const records = engine.takeRecords().map((r) => JSON.parse(r));
  assert.ok(records.some((r) => r.subtype === "compact_boundary"));
  assert.equal(records.find((r) => r.subtype === "compact_boundary").timestamp, "2026-11-30T12:00:00Z");
  assert.deepEqual(engine.takeRecords(), [], "taken records are not handed out twice");
});

test("prepare: a rejecting summarize rejects with SUMMARIZER_FAILED and its error as cause, after one call per model; the old view stays", async () => {
  const engine = new Engine({ ...SMALL, fallbackModels: ["backup"] });
  engine.load(turns(17));
  const before = engine.messages();
  const down = new Error("503");
  const models = [];
  await assert.rejects(
    engine.prepare({
      summarize: (request) => {
        if (request.purpose.kind === "compact") models.push(request.model);
        return Promise.reject(down);
      },
    }),
    (e) => e instanceof Error && e.code === "SUMMARIZER_FAILED" && e.cause === down,
  );
  assert.deepEqual(models, ["session-model", "backup"], "each model of the chain once");
  assert.deepEqual(engine.messages(), before);
  const other = new Engine(SMALL);
  other.load(turns(17));
  await assert.rejects(other.prepare({ summarize: () => 42 }), (e) => e instanceof Error && e.code === "INVALID_ARGUMENT" && e.field === "summarize");
  assert.equal(other.messages().length, 34, "the engine survives a bad callback");
  const settled = await other.prepare({ summarize: () => "<summary>ok</summary>" });
  assert.notEqual(settled.status.kind, "compactionDue");
  throwsCode(() => engine.prepare({ summarize: () => "", now: "later" }), "INVALID_ARGUMENT", "now");
  throwsCode(() => engine.prepare(() => ""), "INVALID_ARGUMENT", "host");
});

test("prepare: preCompact blocks automatic, reactive and manual compactions alike; a block writes no boundary", async () => {
  for (const start of ["auto", "reactive", "manual"]) {
    const engine = new Engine(SMALL);
    engine.load(turns(17));
    const before = engine.messages();
    if (start === "reactive") engine.promptTooLong();
    if (start === "manual") engine.compact();
    const triggers = [];
    const d = await engine.prepare({
      summarize: () => assert.fail("a blocked compaction asks for no summary"),
      preCompact: ({ trigger }) => {
        triggers.push(trigger);
        return { block: "frozen" };
      },
      precompute: false,
    });
    assert.deepEqual(triggers.slice(0, 1), [start === "manual" ? "manual" : "auto"], start);
    assert.deepEqual(engine.messages(), before, start);
    assert.ok(!engine.takeRecords().some((r) => JSON.parse(r).subtype === "compact_boundary"), start);
    assert.ok(d.steps.some((s) => s.rule === "R7.2"), start);
  }
});

test("promptTooLong(): the reactive tier, once per turn", () => {
  const engine = new Engine(SMALL);
  engine.load(turns(8));
  const out = engine.promptTooLong();
  assert.equal(out.compaction.kind, "waiting");
  assert.equal(out.requests[0].kind, "preCompact");
  const allowed = allow(engine, out);
  assert.ok(allowed.steps.some((s) => s.tier === "reactive"), allowed.steps.map((s) => s.tier).join());
  const done = engine.answer(summaryOf(engine, allowed).id, "<summary>short</summary>");
  assert.equal(done.compaction.kind, "compacted");
  const again = engine.promptTooLong();
  assert.equal(again.compaction.kind, "failed");
});

test("compact(instructions): a manual compaction whose prompt carries them", () => {
  const engine = new Engine();
  engine.load(turns(3));
  const out = engine.compact("Focus on the database migration");
  assert.equal(out.requests[0].kind, "preCompact");
  assert.equal(out.requests[0].instructions, "Focus on the database migration");
  const request = summaryOf(engine, out);
  assert.match(request.prompt, /Focus on the database migration/);
  const done = engine.answer(request.id, "<summary>db</summary>");
  assert.equal(done.compaction.result.boundary.compactMetadata.trigger, "manual");
});

test("pin, unpin, pinned; a pinned message survives a compaction verbatim", () => {
  const engine = new Engine(SMALL);
  const history = turns(17);
  history[2] = { ...history[2], uuid: "keep-me" };
  engine.load(history);
  engine.pin("keep-me");
  engine.pin("keep-me");
  assert.deepEqual(engine.pinned(), ["keep-me"]);
  const d = engine.beforeCall();
  engine.answer(summaryOf(engine, d).id, "<summary>s</summary>");
  assert.ok(engine.view().some((m) => m.content === history[2].content), "the pinned text is still in the view");
  engine.unpin("keep-me");
  engine.unpin("never-pinned");
  assert.deepEqual(engine.pinned(), []);
});

test("expand restores what a compaction replaced", () => {
  const engine = new Engine(SMALL);
  engine.load(turns(17));
  const before = engine.messages();
  const d = engine.beforeCall();
  const out = engine.answer(summaryOf(engine, d).id, "<summary>s</summary>");
  const step = engine.expand(out.compaction.result.summary.uuid);
  assert.equal(step.tier, "compact");
  assert.deepEqual(engine.messages(), before);
});

test("records persist a session; readSession + loadSession resume it to the same view", () => {
  const live = new Engine(SMALL);
  live.load(turns(10));
  live.append({ role: "user", content: "one more", timestamp: "2026-11-30T10:00:00Z" });
  live.beforeCall();
  live.load(turns(8, 10));
  const d = live.beforeCall("2026-11-30T11:00:00Z");
  live.answer(summaryOf(live, d).id, "<summary>the story so far</summary>");
  live.append({ role: "assistant", content: "after the compaction" });
  const file = live.records().join("\n") + "\n";
  const session = readSession(file);
  assertPlain(session, "session");
  assert.deepEqual(session.report.problems, []);
  assert.equal(session.messages.filter((m) => m.isCompactSummary).length, 1);
  const resumed = new Engine(SMALL);
  const loaded = resumed.loadSession(session);
  assert.deepEqual(loaded.report, session.report);
  assert.equal(loaded.report.boundaries.length, 1);
  assert.equal(loaded.boundary, loaded.report.boundaries[0].uuid);
  assert.equal(loaded.appended, session.messages.length);
  assert.deepEqual(resumed.messages(), live.messages());
  assert.deepEqual(resumed.view().map((m) => m.uuid), live.view().map((m) => m.uuid));
  throwsCode(() => resumed.loadSession(session), "INVALID_ARGUMENT", "session");
  // The resumed engine's new records continue the file's chain: the file
  // with them appended reads back to the resumed engine's view.
  resumed.append({ role: "user", content: "and now?" });
  const more = file + resumed.takeRecords().join("\n") + "\n";
  const again = new Engine(SMALL);
  again.loadSession(readSession(more));
  assert.deepEqual(again.messages(), resumed.messages());
});

for (const name of fixtureNames) {
  test(`real session ${name}: loads whole, in chunks, and as bytes, with the same result`, () => {
    const bytes = readFileSync(join(fixtures, name));
    const session = readSession(bytes.toString("utf8"));
    const whole = new Engine();
    const loaded = whole.loadSession(session);
    assertPlain(loaded, "load");
    assert.equal(loaded.appended, loaded.report.activeMessages);
    assert.ok(loaded.report.messages > 0);
    const importer = new SessionImporter();
    for (let i = 0; i < bytes.length; i += 4_099) importer.feed(bytes.subarray(i, i + 4_099));
    assert.equal(importer.bytesFed, bytes.length);
    const chunked = importer.finish();
    assert.deepEqual(chunked, session);
    throwsCode(() => importer.feed("more"), "INVALID_ARGUMENT", "importer");
    assert.deepEqual(readSession(new Uint8Array(bytes)), session);
    throwsCode(() => readSession(42), "INVALID_ARGUMENT", "session");
    const d = whole.beforeCall();
    assert.ok(["proceed", "warn", "compactionDue", "blocked"].includes(d.status.kind));
  });
}

test("a session file with bad lines is reported, not fatal", () => {
  const good = JSON.stringify({ type: "user", uuid: "u1", parentUuid: null, sessionId: "s", message: { role: "user", content: "hi" } });
  const report = new SessionImporter();
  report.feed(`${good}\n{broken json\n{"type":"user","uuid":"u2","parentUuid":"u1","message":{"role":"user","content":"trunc`);
  const r = report.finish().report;
  assert.ok(r.problems.some((p) => p.kind === "malformed_json" && p.line === 2), JSON.stringify(r.problems));
  assert.ok(r.problems.some((p) => p.kind === "truncated_line"), JSON.stringify(r.problems));
  throwsCode(() => report.finish(), "INVALID_ARGUMENT", "importer");
});

test("plan(): stateless, from a JSON string or objects, the same decision; nothing kept", () => {
  const history = deepFreeze(turns(17));
  const fromJson = plan(SMALL, JSON.stringify(history));
  const fromObjects = plan(SMALL, history);
  assert.deepEqual(fromJson, fromObjects);
  assert.equal(fromJson.status.kind, "compactionDue");
  assert.equal(plan(undefined, "[]").status.kind, "proceed");
  throwsCode(() => plan(SMALL, "[{]"), "INVALID_JSON", "messages");
  throwsCode(() => plan(SMALL, 7), "INVALID_ARGUMENT", "messages");
  throwsCode(() => plan({ window: 1 }, "[]"), "INVALID_SETTING", "window");
});

test("engine.plan() is a dry run: nothing changes", () => {
  const engine = new Engine(SMALL);
  engine.load(turns(17));
  const a = engine.plan();
  const b = engine.plan();
  assert.deepEqual(a, b);
  assert.deepEqual(engine.beforeCall().requests.map((r) => r.id), a.requests.map((r) => r.id));
});

test("cache-aware microcompact: after 50 eligible tool calls the decision carries context_management edits", () => {
  const engine = new Engine();
  engine.append({ role: "user", content: "read everything" });
  for (let i = 0; i < 60; i++) {
    engine.append({ role: "assistant", content: [{ type: "tool_use", id: `toolu_${i}`, name: "Read", input: { file_path: `f${i}.rs` } }] });
    engine.append({ role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: "x".repeat(400) }] });
  }
  const d = engine.beforeCall();
  assert.ok(d.contextManagement, "edits expected");
  const [edit] = d.contextManagement.edits;
  assert.equal(edit.type, "clear_tool_uses_20250919");
  assert.equal(edit.trigger.type, "input_tokens");
  assert.equal(edit.keep.type, "tool_uses");
  assert.ok(d.steps.some((s) => s.tier === "microcompact"));
});

test("after promptTooLong(), the next prepare() answers the reactive compaction's request", async () => {
  const engine = new Engine(SMALL);
  engine.load(turns(8));
  engine.promptTooLong();
  const asked = [];
  const triggers = [];
  const d = await engine.prepare({
    summarize: (request) => {
      asked.push(request.purpose.kind);
      return "<summary>recovered</summary>";
    },
    preCompact: ({ trigger }) => void triggers.push(trigger),
  });
  assert.deepEqual(asked, ["compact"]);
  assert.deepEqual(triggers, ["auto"], "the reactive compaction asked the PreCompact hook too");
  assert.equal(d.compaction.kind, "compacted");
  assert.ok(engine.records().some((r) => JSON.parse(r).subtype === "compact_boundary"));
});

test("promptTooLong() with collapse on: segment summaries first (R8.1), then the emergency compaction, then failure", async () => {
  const engine = new Engine({ preset: "seed", window: 200_000 });
  engine.load(turns(30)); // 30 turns: the oldest 20 are collapsible, far under every line
  const first = engine.promptTooLong();
  assert.equal(first.compaction, null, "no compaction yet");
  assert.deepEqual(first.requests.map((r) => r.kind), ["collapseSegment", "collapseSegment"]);
  assert.deepEqual(first.requests.map((r) => r.purpose.kind), ["collapseSegment", "collapseSegment"]);
  const before = engine.count().tokens;
  for (const r of first.requests) engine.answer(r.id, "what happened in these turns");
  assert.ok(engine.count().tokens < before, "the view shrank");
  const second = engine.promptTooLong();
  engine.answer(summaryOf(engine, second).id, "<summary>s</summary>");
  const third = engine.promptTooLong();
  assert.equal(third.compaction.kind, "failed");
  assert.match(third.compaction.reason, /cannot continue/);
});

test("setContext and post-compact hooks: plan, task list, skills, MCP and hook output come back after the summary (R7.7)", () => {
  const engine = new Engine();
  engine.load([
    { role: "user", content: "port the parser" },
    { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "TodoWrite", input: { todos: [{ content: "write parser.rs", status: "in_progress" }] } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] },
    { role: "assistant", content: [{ type: "tool_use", id: "t2", name: "Skill", input: { skill: "rust-style" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t2", content: "ok" }] },
    { role: "user", content: "go on" },
  ]);
  engine.setContext([
    { kind: "plan", name: "plan.md", content: "1. read\n2. write" },
    { kind: "skill", name: "rust-style", content: "prefer iterators" },
    { kind: "mcp", name: "github", content: "use the github tools for PRs" },
  ]);
  throwsCode(() => engine.setContext([{ kind: "file", name: "a", content: "" }]), "INVALID_ARGUMENT", "items[0].kind");
  throwsCode(() => engine.setContext("nope"), "INVALID_ARGUMENT", "items");
  const out = engine.compact();
  const done = engine.answer(summaryOf(engine, out).id, "<summary>s</summary>");
  const kinds = done.compaction.result.attachments.map((c) => `${c.kind}:${c.path}:${c.status}`);
  assert.deepEqual(kinds, ["plan:plan:restored", "taskState:tasks:restored", "skill:rust-style:restored", "mcp:github:restored"]);
  assert.ok(engine.view().some((m) => typeof m.content === "string" && m.content.endsWith("prefer iterators")));
});

test("swapInSummary: a summary made elsewhere replaces exactly the messages it was given (R9.4)", () => {
  const engine = new Engine();
  engine.load(turns(4));
  const uuids = engine.view().map((m) => m.uuid);
  const refused = engine.swapInSummary(uuids.slice(1, 3), "<summary>x</summary>");
  assert.equal(refused.compaction.kind, "failed");
  throwsCode(() => engine.swapInSummary([1, 2], "x"), "INVALID_ARGUMENT", "uuids");
  assert.equal(engine.messages().length, 8, "the view stays");
  const out = engine.swapInSummary(uuids.slice(0, 4), "<summary>turns 0 and 1</summary>");
  assert.equal(out.compaction.kind, "compacted");
  assert.ok(out.steps.some((s) => s.rule === "R9.4"));
  const after = engine.view().map((m) => m.uuid);
  assert.deepEqual(after.slice(1, 5), uuids.slice(4), "the rest stays, in order");
});

test("R13.2/R13.4: server compaction sends compact_20260112 with its betas; the response's compaction block starts the view", () => {
  const engine = new Engine({ window: 200_000, compaction: "server", snip: false, collapse: false });
  for (let n = 0; n < 180; n++) {
    engine.append({ role: "user", content: `step ${n}` });
    engine.append({ role: "assistant", content: [{ type: "tool_use", id: `t${n}`, name: "Task", input: {} }] });
    engine.append({ role: "user", content: [{ type: "tool_result", tool_use_id: `t${n}`, content: "x".repeat(3_900) }] });
    engine.append({ role: "assistant", content: `done ${n}` });
  }
  const decision = engine.beforeCall();
  assert.equal(decision.compaction, null);
  assert.deepEqual(decision.contextManagement, {
    edits: [{ type: "compact_20260112", trigger: { type: "input_tokens", value: decision.lines.compact } }],
  });
  assert.deepEqual(decision.betas, ["compact-2026-01-12", "context-management-2025-06-27"]);
  const block = { type: "compaction", content: "Summary.", encrypted_content: "ZQ==", signature: "c2ln", tool_changes: [] };
  engine.append({
    id: "msg_1", type: "message", role: "assistant", model: "m", stop_reason: "end_turn",
    content: [block, { type: "text", text: "Continuing." }],
    usage: { input_tokens: 2_000, output_tokens: 10, iterations: [{ type: "compaction", input_tokens: 170_000, output_tokens: 900 }, { type: "message", input_tokens: 2_000, output_tokens: 10 }] },
  });
  assert.deepEqual(engine.messages()[0].content[0], block);
  assert.equal(engine.messages().length, 1);
  assert.ok(engine.count().tokens < 3_000);
});

test("R9.4: swapInSummary takes a compaction block and inserts nothing after it; a wrong block is INVALID_ARGUMENT", () => {
  const engine = new Engine(SMALL);
  for (let n = 0; n < 4; n++) {
    engine.append({ role: "user", content: `q${n}`, uuid: `q${n}` });
    engine.append({ role: "assistant", content: `a${n}`, uuid: `a${n}` });
  }
  const block = { type: "compaction", content: "Summary of q0-a1.", encrypted_content: null, signature: "s" };
  const out = engine.swapInSummary(["q0", "a0", "q1", "a1"], block);
  assert.equal(out.compaction.kind, "compacted");
  assert.deepEqual(engine.messages()[0], { role: "assistant", content: [block] });
  assert.deepEqual(engine.view().slice(1).map((m) => m.uuid), ["q2", "a2", "q3", "a3"]);
  throwsCode(() => engine.swapInSummary(["q2"], { type: "text", text: "x" }), "INVALID_ARGUMENT", "summary");
});

test("R13.4: append(response) reads applied_edits; a difference from the prediction is reconciled and reported", () => {
  const engine = new Engine(SMALL);
  for (let n = 0; n < 60; n++) {
    engine.append({ role: "user", content: `step ${n}` });
    engine.append({ role: "assistant", content: [{ type: "tool_use", id: `t${n}`, name: "Read", input: {} }] });
    engine.append({ role: "user", content: [{ type: "tool_result", tool_use_id: `t${n}`, content: "x".repeat(400) }] });
  }
  const decision = engine.beforeCall();
  const keep = decision.contextManagement?.edits[0];
  assert.ok(keep && "keep" in keep, JSON.stringify(decision.contextManagement));
  assert.ok(decision.betas.includes("context-management-2025-06-27"));
  engine.append({
    role: "assistant", content: "ok",
    context_management: { applied_edits: [{ type: "clear_tool_uses_20250919", cleared_tool_uses: 1, cleared_input_tokens: 100 }] },
  });
  const next = engine.beforeCall();
  assert.ok(next.steps.some((s) => s.rule === "R13.4"), JSON.stringify(next.steps.map((s) => s.rule)));
});

test("R13.1: thinking settings are checked, drop_block puts the binding control and its beta in the decision", () => {
  const engine = new Engine({ thinking: "drop_block" });
  engine.append({ role: "user", content: "hi" });
  const d = engine.beforeCall();
  assert.deepEqual(d.thinking, { block_binding: { prefix_mismatch_behavior: "drop_block" } });
  assert.deepEqual(d.betas, ["thinking-binding-controls-2026-08-01"]);
  assert.equal(new Engine().beforeCall().thinking, null);
  throwsCode(() => new Engine({ thinking: "maybe" }), "INVALID_SETTING", "thinking");
  throwsCode(() => new Engine({ compaction: "cloud" }), "INVALID_SETTING", "compaction");
  throwsCode(() => new Engine({ clearThinking: { type: "clear_tool_uses_20250919" } }), "INVALID_SETTING", "clearThinking");
  const withEdit = new Engine({ clearThinking: { type: "clear_thinking_20251015", keep: "all" } });
  withEdit.append({ role: "user", content: "hi" });
  assert.deepEqual(withEdit.beforeCall().contextManagement, { edits: [{ type: "clear_thinking_20251015", keep: "all" }] });
});
