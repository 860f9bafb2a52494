// context-compaction/ai-sdk's prepareStep, as the AI SDK calls it: a
// history over the line comes back smaller, one engine serves every step,
// and each step feeds it only the messages that are new.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MockLanguageModelV3 } from "ai/test";
import { prepareStep } from "context-compaction/ai-sdk";
import { aiSdk, pairing } from "./formats-gen.mjs";

const reply = (text) => ({
  content: [{ type: "text", text }],
  finishReason: { unified: "stop", raw: undefined },
  usage: { inputTokens: { total: 100, noCache: 100, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 10, text: 10, reasoning: 0 } },
  warnings: [],
});

test("prepareStep returns a smaller messages for a history over the line and keeps one engine across steps", async () => {
  const model = new MockLanguageModelV3({ doGenerate: async () => reply("<summary>The files were read.</summary>") });
  const records = [];
  const step = prepareStep({ settings: { window: 200_000, snip: false, collapse: false }, onRecord: (r) => records.push(r), host: { precompute: false } });
  const history = aiSdk(160, 3000);
  const first = await step({ messages: history, stepNumber: 0, steps: [], model });
  assert.ok(first.messages.length < history.length / 2, `${first.messages.length} of ${history.length}`);
  assert.ok(model.doGenerateCalls.length >= 1, "the default summariser asked the step's own model");
  const prompt = JSON.stringify(model.doGenerateCalls[0].prompt);
  assert.match(prompt, /fix the bug/);
  assert.equal(first.messages[0], history[0], "the system prompt first, as given");
  pairing("ai-sdk", first.messages);
  assert.equal(records.length, 1);
  assert.equal(records[0].messages[0], first.messages[1], "the record holds the summary");
  assert.ok(records[0].cut > 0 && records[0].cut < history.length);
  const engine = step.engine;
  const held = engine.view().length;

  // The next step: what was sent, then the step's response messages.
  const response = [
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "n1", toolName: "Read", input: { file_path: "z.rs" } }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "n1", toolName: "Read", output: { type: "text", value: "ok" } }] },
  ];
  const calls = model.doGenerateCalls.length;
  const second = await step({ messages: [...first.messages, ...response], stepNumber: 1, steps: [], model });
  assert.equal(step.engine, engine, "one engine across steps");
  assert.equal(engine.view().length, held + 2, "only the new messages were appended");
  assert.equal(model.doGenerateCalls.length, calls, "no second summary");
  assert.deepEqual(second.messages.slice(-2), response);
  assert.equal(second.messages.at(-1), response[1]);

  // A later request on the persisted (uncompacted) history starts from the record.
  const later = prepareStep({ settings: { window: 200_000, snip: false, collapse: false }, record: records[0], host: { precompute: false } });
  const persisted = [...history, ...response];
  const third = await later({ messages: persisted, stepNumber: 0, steps: [], model });
  assert.equal(model.doGenerateCalls.length, calls, "the record is not summarised again");
  assert.ok(third.messages.length < persisted.length / 2);
  assert.deepEqual(third.messages.slice(-2), response);
  engine.free();
  later.engine.free();
});

test("prepareStep: a history under the line comes back as the very objects, and a host summarize is used", async () => {
  let asked = 0;
  const step = prepareStep({ summarize: () => { asked++; return "s"; } });
  const history = aiSdk(3, 100);
  const out = await step({ messages: history, stepNumber: 0, steps: [], model: new MockLanguageModelV3() });
  assert.equal(out.messages.length, history.length);
  out.messages.forEach((m, i) => assert.equal(m, history[i]));
  assert.equal(asked, 0);
  step.engine.free();
});

test("prepareStep's default summariser: a summary the model refuses as too long is asked again shorter; another error is the host's", async () => {
  const { APICallError } = await import("ai");
  const tooLong = () =>
    new APICallError({
      message: "prompt is too long: 212000 tokens > 200000 maximum",
      url: "https://api.anthropic.com/v1/messages",
      requestBodyValues: {},
      statusCode: 400,
      data: { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 212000 tokens > 200000 maximum" } },
    });
  const sizes = [];
  const model = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      sizes.push(JSON.stringify(prompt).length);
      if (sizes.length === 1) throw tooLong();
      return reply("<summary>The files were read.</summary>");
    },
  });
  const step = prepareStep({ settings: { window: 200_000, snip: false, collapse: false }, host: { precompute: false } });
  const history = aiSdk(160, 3000);
  const out = await step({ messages: history, stepNumber: 0, steps: [], model });
  assert.equal(sizes.length, 2, "asked twice: the refusal, then a shorter request");
  assert.ok(sizes[1] < sizes[0], `${sizes[1]} < ${sizes[0]}`);
  assert.ok(out.messages.length < history.length / 2);
  pairing("ai-sdk", out.messages);
  step.engine.free();

  // Any other error rejects with the host's error as the cause (here the
  // AI SDK's own RetryError, after generateText's own retries).
  let calls = 0;
  const failing = new MockLanguageModelV3({
    doGenerate: async () => {
      calls++;
      throw new APICallError({ message: "Overloaded", url: "u", requestBodyValues: {}, statusCode: 529, data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } });
    },
  });
  const other = prepareStep({ settings: { window: 200_000, snip: false, collapse: false }, host: { precompute: false } });
  await assert.rejects(other({ messages: aiSdk(160, 3000), stepNumber: 0, steps: [], model: failing, maxRetries: 0 }), (e) => e.code === "SUMMARIZER_FAILED" && /Overloaded/.test(String(e.cause?.message)));
  assert.ok(calls >= 1);
  other.engine.free();
});
