// A decision crosses as a copy of the template the engine keeps
// (src/js/crossing.rs, guard.js's `decision`): the same values as the JSON
// text it crossed as before (written by serde_json, read by JSON.parse),
// field for field and in the same order, in every state; and a host that
// changes a decision it got changes nothing the engine hands out next.
import { test } from "node:test";
import assert from "node:assert/strict";

import { Engine } from "context-compaction";
import { generate } from "../bench/peers/gen.mjs";

const { messages: history } = generate(600, 7);

/** Turn `i`, ~2,000 tokens: a prompt, a tool call and its result, a reply. */
function turn(i) {
  return [
    { role: "user", content: `question ${i}: ${"q".repeat(2_000)}` },
    { role: "assistant", content: [{ type: "tool_use", id: `toolu_${i}`, name: "Read", input: { path: `f${i}.rs` } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: "r".repeat(3_000) }] },
    { role: "assistant", content: `answer ${i}: ${"a".repeat(3_000)}` },
  ];
}

/** Two engines fed the same calls: `fast` crosses decisions as copies,
 * `text` as JSON text (the module's copier taken away for its calls). */
function pair(settings) {
  const fast = new Engine(settings);
  const text = new Engine(settings);
  fast.count(); // the package gives the module its copier at the first call
  const both = (f) => {
    const a = f(fast);
    const build = Engine.__crossing(null);
    assert.equal(typeof build, "function", "the package gave the module its copier");
    let b;
    try {
      b = f(text);
    } finally {
      Engine.__crossing(build);
    }
    return [a, b];
  };
  const same = (f, what) => {
    const [a, b] = both(f);
    assert.equal(JSON.stringify(a), JSON.stringify(b), what);
    assert.deepEqual(a, b, what);
    return a;
  };
  return { fast, text, both, same };
}

test("every decision crossed as a copy equals the one crossed as JSON text, through every state", () => {
  for (const settings of [
    { preset: "client-2.1", window: 50_000, maxOutputTokens: 4_000 },
    { preset: "seed", window: 60_000, thinking: "drop_block" },
    { preset: "seed", window: 60_000, collapse: true, snip: false },
    { preset: "newer-client", window: 60_000 },
  ]) {
    const { same, both } = pair(settings);
    const seen = new Set();
    let clock = Date.parse("2026-12-06T12:00:00Z");
    let calls = 0;
    history.forEach((message, i) => {
      // A reply with usage now and then: the count's basis changes.
      const m = message.role === "assistant" && i % 40 === 1 ? { ...message, usage: { input_tokens: 30 * i, output_tokens: 500 } } : message;
      both((e) => e.append(m));
      if (i % 5 !== 0) return;
      // An idle hour now and then (the time-based microcompact).
      clock += ++calls % 25 === 0 ? 3_600_000 : 60_000;
      const now = new Date(clock).toISOString();
      const what = `${settings.preset} message ${i}`;
      const d = same((e) => e.beforeCall(now), what);
      // The unchanged history's decision, again.
      same((e) => e.beforeCall(now), `${what}, again`);
      seen.add(`${d.status.kind} ${d.compaction?.kind} ${d.count.basis} ${d.contextManagement !== null} ${d.clearedByClient.length > 0}`);
      for (const r of d.requests) seen.add(r.kind);
      for (const s of d.steps) seen.add(s.tier);
      // Answer some requests, leave others pending over several calls.
      let pending = d.requests;
      while (pending.length > 0) {
        const r = pending[0];
        let answer = `<summary>up to message ${i}</summary>`;
        if (r.kind === "preCompact") answer = { kind: "hook" };
        else if (r.kind === "files") answer = { kind: "files", files: [] };
        else if (calls % 3 !== 0) break;
        pending = same((e) => e.answer(r.id, answer), `${what}, answer ${r.id}`).requests;
      }
    });
    assert.ok(seen.size >= 8, `${settings.preset}: states seen ${[...seen].join("; ")}`);
  }
});

test("prepare() resolves to the same decision either way", async () => {
  const { fast, text } = pair({ preset: "client-2.1", window: 50_000, maxOutputTokens: 4_000 });
  for (let i = 0; i < 20; i++) for (const m of turn(i)) [fast, text].forEach((e) => e.append(m));
  const host = { summarize: () => "<summary>so far</summary>", precompute: false, now: "2026-12-06T12:00:00Z" };
  const a = await fast.prepare(host);
  const build = Engine.__crossing(null);
  let b;
  try {
    b = await text.prepare(host);
  } finally {
    Engine.__crossing(build);
  }
  assert.equal(a.compaction?.kind, "compacted");
  assert.equal(JSON.stringify(a), JSON.stringify(b));
});

test("a host changing a decision changes nothing handed out next", () => {
  // `engine` hands out decisions the test changes; `control`, fed the same
  // calls, decisions nobody touches.
  const settings = { preset: "client-2.1", window: 50_000, maxOutputTokens: 4_000 };
  const [engine, control] = [new Engine(settings), new Engine(settings)];
  const call = (f) => [f(engine), f(control)];
  let first;
  for (const m of history) {
    call((e) => e.append(m));
    [first] = call((e) => e.beforeCall());
    const hook = first.requests.find((r) => r.kind === "preCompact");
    if (hook) {
      call((e) => e.answer(hook.id, { kind: "hook" }));
      [first] = call((e) => e.beforeCall());
    }
    if (first.contextManagement && first.requests.some((r) => r.messages) && first.steps.length > 0) break;
  }
  assert.ok(first.requests.some((r) => r.messages), "a summary request pending");
  assert.ok(first.contextManagement, "an edit to send");
  const shared = first.requests.map((r) => r.messages);
  // Change every object of it.
  first.steps[0].countBefore.tokens = -1;
  first.steps.push({ tier: "mine" });
  first.count.tokens = -1;
  first.count.basis = "mine";
  first.lines.window = -1;
  first.status.kind = "mine";
  first.contextManagement.edits[0].type = "mine";
  first.contextManagement.edits.push({ type: "mine" });
  first.betas.push("mine");
  first.clearedByClient.push("mine");
  for (const r of first.requests) {
    r.id = -1;
    r.purpose.kind = "mine";
    r.fallbackModels?.push("mine");
    if (r.toolChoice) r.toolChoice.type = "mine";
  }
  first.requests.push({ kind: "mine" });
  for (let i = 0; i < 3; i++) {
    const [next, untouched] = call((e) => e.beforeCall());
    assert.deepEqual(next, untouched);
    // A request's messages: the same array on every call while it is pending.
    for (const [k, r] of next.requests.entries()) assert.equal(r.messages, shared[k]);
  }
});
