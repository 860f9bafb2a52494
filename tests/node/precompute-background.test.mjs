// The background precompute (SPEC R9.1; issue 28, point 5) never blocks and
// never fails a call: `prepare()` resolves without awaiting it, the host's
// answer is taken by a later `prepare()` (and a compaction reuses it with
// no summary call of its own), and a summariser that fails on it fails no
// call: `host.onPrecompute` gets the error and the next decision says the
// precompute was dropped. Before, `prepare()` awaited it and rejected with
// SUMMARIZER_FAILED when it failed.
import { test } from "node:test";
import assert from "node:assert/strict";

import { generateText } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { Engine } from "context-compaction";
import { prepareStep } from "context-compaction/ai-sdk";
import { windowApi } from "./fake-window-api.mjs";

const deferred = () => {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
};
const turn = (i) => `Turn ${i}: ${"the build log says ok; ".repeat(300)}`;

/** An engine fed turns until its count reaches `line`. */
function engineAt(line) {
  // Tier 2 off: the count reaches the compact line (and Tier 4).
  const engine = new Engine({ window: 200_000, maxOutputTokens: 16_000, snip: false, collapse: false });
  let i = 0;
  while (engine.count().tokens < engine.lines()[line]) {
    engine.append({ role: "user", content: turn(i) });
    engine.append({ role: "assistant", content: `Noted ${i}.` });
    i++;
  }
  return { engine, next: i };
}

test("prepare() resolves while the precompute's summary is pending; a later prepare() takes it and the compaction reuses it", async () => {
  const { engine, next } = engineAt("precompute");
  const called = deferred();
  const gate = deferred();
  const settled = deferred();
  const calls = [];
  const host = {
    summarize: (request) => {
      calls.push(request.purpose.kind);
      called.resolve(request);
      return gate.promise;
    },
    onPrecompute: (s) => settled.resolve(s),
  };
  const first = await engine.prepare(host);
  assert.equal(first.requests.filter((r) => r.kind === "precompute").length, 1, "the precompute is pending when prepare() resolves");
  const request = await called.promise;
  assert.equal(request.purpose.kind, "precompute");
  // A prepare() while it is still pending neither waits for it nor asks again.
  const second = await engine.prepare(host);
  assert.deepEqual(calls, ["precompute"]);
  assert.ok(second.requests.some((r) => r.kind === "precompute"));
  gate.resolve("<summary>The build was checked; logs are fine.</summary>");
  assert.deepEqual(await settled.promise, { id: request.id, ok: true });
  // Over the compact line: the compaction reuses it, no summary call.
  let i = next;
  while (engine.count().tokens < engine.lines().compact) engine.append({ role: "user", content: turn(i++) });
  const third = await engine.prepare({ ...host, summarize: (r) => (calls.push(r.purpose.kind), "<summary>fresh</summary>") });
  const reasons = third.steps.map((s) => s.reason);
  assert.ok(reasons.includes("the precomputed summary is ready"), reasons.join("\n"));
  assert.ok(reasons.some((r) => r.startsWith("precompute hit")), reasons.join("\n"));
  assert.deepEqual(calls, ["precompute"], "no summary call for the compaction");
  assert.ok(third.steps.some((s) => s.rule === "R7.9"), "it compacted");
  engine.free();
});

test("a precompute whose summariser throws fails no call: onPrecompute gets the error, the next decision says it was dropped", async () => {
  const { engine } = engineAt("precompute");
  const failure = new Error("summariser overloaded");
  const settled = deferred();
  const host = {
    summarize: async (request) => {
      if (request.purpose.kind === "precompute") throw failure;
      return "<summary>s</summary>";
    },
    onPrecompute: (s) => settled.resolve(s),
  };
  const first = await engine.prepare(host);
  assert.ok(first.requests.some((r) => r.kind === "precompute"));
  const report = await settled.promise;
  assert.equal(report.ok, false);
  assert.equal(report.error, failure, "the host's own error, not swallowed");
  const second = await engine.prepare(host);
  assert.ok(second.steps.some((s) => s.reason === "the precompute was dropped: no usable reply"), second.steps.map((s) => s.reason).join("\n"));
  engine.free();
});

test("host.onPrecompute must be a function", () => {
  const engine = new Engine();
  assert.throws(
    () => engine.prepare({ summarize: () => "s", onPrecompute: "log" }),
    (e) => e.code === "INVALID_ARGUMENT" && e.field === "host.onPrecompute",
  );
  engine.free();
});

test("a stateful AI SDK route whose precompute throws completes every one of 100 calls", async () => {
  const api = windowApi({ window: 200_000 });
  const model = createAnthropic({ apiKey: "sk-ant-test", fetch: api.fetch })("claude-sonnet-4-6");
  const failed = [];
  const purposes = { compact: 0, precompute: 0 };
  const step = prepareStep({
    settings: { window: 200_000, maxOutputTokens: 16_000, snip: false, collapse: false },
    summarize: async (request) => {
      purposes[request.purpose.kind]++;
      if (request.purpose.kind === "precompute") throw new Error("the summary model is down");
      return "<summary>Code reviewed so far.</summary>";
    },
    host: { onPrecompute: (s) => s.ok || failed.push(s.error) },
  });
  const history = [];
  let answered = 0;
  for (let i = 0; i < 100; i++) {
    history.push({ role: "user", content: `Review ${i}:\n${`const v${i} = compute(a, b) + 1;\n`.repeat(480)}` });
    const result = await generateText({
      model,
      messages: history,
      prepareStep: step,
      onStepEnd: step.onStepEnd,
      maxOutputTokens: 16_000,
      maxRetries: 0,
      runtimeContext: { conversationId: "c1" },
    });
    history.push(...result.response.messages);
    answered++;
  }
  // The last background call settles on the next turns of the event loop.
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(answered, 100);
  assert.deepEqual(api.log.refusals, []);
  assert.ok(purposes.precompute > 0, "a precompute was asked for");
  assert.equal(failed.length, purposes.precompute, "each failure reported");
  assert.ok(purposes.compact > 0, "it compacted all the same");
  // A failing summariser is not asked for a precompute again on every
  // call: once per compaction cycle at most.
  assert.ok(purposes.precompute <= purposes.compact + 1, `${purposes.precompute} precompute calls for ${purposes.compact} compactions`);
  console.log(`stateful route: 100 calls, ${purposes.precompute} precomputes failed and reported, ${purposes.compact} compactions`);
});
