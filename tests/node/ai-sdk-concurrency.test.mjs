// One module-level `prepareStep` (and one module-level `ToolLoopAgent`)
// serving many conversations at once (issue 28, point 6): each conversation
// has its own engine, keyed by the id the caller puts in the call's
// `runtimeContext` (`conversationId`). Before, the one engine was freed and
// rebuilt under another conversation's pending step: 16 of 32 concurrent
// runs rejected with ENGINE_BUSY / ENGINE_FREED.
//
// The model is the AI SDK's MockLanguageModelV3: it reports usage about
// 10 % over chars/4 of the prompt it got, calls a tool on the first step of
// a turn, answers on the second, and writes a summary when asked for one.
// Every message of every conversation carries that conversation's marker; a
// prompt holding another conversation's marker is cross-talk.
import { test } from "node:test";
import assert from "node:assert/strict";

import { ToolLoopAgent, generateText, stepCountIs, tool, jsonSchema } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { prepareStep } from "context-compaction/ai-sdk";

const CONVERSATIONS = 32;
const TURNS = 8;

const textOf = (prompt) =>
  prompt
    .map((m) => (typeof m.content === "string" ? m.content : m.content.map((p) => p.text ?? JSON.stringify(p.output ?? p.input ?? "")).join("\n")))
    .join("\n");

/** The mock model, with what it saw. */
function model() {
  const seen = { calls: 0, crossTalk: [], summaries: 0 };
  const m = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      seen.calls++;
      const text = textOf(prompt);
      const markers = new Set(text.match(/\bconv-\d+\b/g) ?? []);
      if (markers.size > 1) seen.crossTalk.push([...markers].join(","));
      const [marker] = markers;
      // Let the other conversations' steps run in between.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
      const usage = {
        inputTokens: { total: Math.ceil((text.length / 4) * 1.1), noCache: Math.ceil((text.length / 4) * 1.1), cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 20, text: 20, reasoning: 0 },
      };
      const last = prompt.at(-1);
      if (text.includes("summary") && last.role === "user" && !last.content.some?.((p) => p.type === "tool-result")) {
        if (/Your task is to create a detailed summary/i.test(text) || /summar/i.test(textOf([last]))) {
          seen.summaries++;
          return { content: [{ type: "text", text: `Summary of ${marker}: files read so far.` }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
        }
      }
      if (last.role === "tool") {
        return { content: [{ type: "text", text: `${marker}: read it.` }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
      }
      return {
        content: [{ type: "tool-call", toolCallId: `call-${seen.calls}`, toolName: "read", input: JSON.stringify({ marker }) }],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
  return { model: m, seen };
}

const read = tool({
  description: "Reads a file.",
  inputSchema: jsonSchema({ type: "object", properties: { marker: { type: "string" } }, required: ["marker"] }),
  execute: async ({ marker }) => `${marker} file:\n${`const ${marker.replace("-", "_")} = compute(a, b);\n`.repeat(200)}`,
});

const SETTINGS = { preset: "client-2.1", window: 16_000, maxOutputTokens: 1_000 };

test(`one module-level prepareStep, ${CONVERSATIONS} concurrent conversations through generateText: 0 failures, no cross-talk`, async () => {
  const { model: m, seen } = model();
  const step = prepareStep({ settings: SETTINGS }); // module level: one for every conversation
  const compactions = new Map();
  const run = async (i) => {
    const id = `conv-${i}`;
    const history = [];
    for (let t = 0; t < TURNS; t++) {
      history.push({ role: "user", content: `${id}: read the next file (${t}).` });
      const result = await generateText({
        model: m,
        messages: history,
        tools: { read },
        prepareStep: step,
        stopWhen: stepCountIs(4),
        runtimeContext: { conversationId: id },
        onStepFinish: (finished) => {
          history.push(...finished.response.messages); // each step's own messages
          step.onStepFinish(finished);
        },
      });
      assert.match(result.text, new RegExp(`^${id}: `));
    }
    compactions.set(id, step.recordOf(id) !== undefined);
    return history;
  };
  const results = await Promise.allSettled(Array.from({ length: CONVERSATIONS }, (_, i) => run(i)));
  const failures = results.filter((r) => r.status === "rejected").map((r) => `${r.reason?.code}: ${r.reason?.message}`);
  assert.deepEqual(failures, [], "every run completed");
  assert.deepEqual(seen.crossTalk, [], "no prompt held another conversation's messages");
  assert.ok([...compactions.values()].every(Boolean), "every conversation compacted on its own engine");
  for (let i = 0; i < CONVERSATIONS; i++) {
    const engine = step.engineOf(`conv-${i}`);
    assert.ok(engine, `conv-${i} has its engine`);
    for (const message of engine.messages()) {
      const text = JSON.stringify(message);
      assert.ok(!/conv-\d+/.test(text.replaceAll(`conv-${i}`, "")), `conv-${i}'s view holds only its own messages`);
    }
    step.forget(`conv-${i}`);
    assert.equal(step.engineOf(`conv-${i}`), undefined);
  }
});

test(`one module-level ToolLoopAgent, ${CONVERSATIONS} concurrent conversations (the id through prepareCall): 0 failures`, async () => {
  const { model: m, seen } = model();
  const step = prepareStep({ settings: SETTINGS });
  const agent = new ToolLoopAgent({
    model: m,
    tools: { read },
    prepareStep: step,
    stopWhen: stepCountIs(4),
    prepareCall: ({ options, ...call }) => ({ ...call, runtimeContext: { conversationId: options.conversationId } }),
  });
  const run = async (i) => {
    const conversationId = `conv-${i}`;
    const history = [];
    for (let t = 0; t < TURNS; t++) {
      history.push({ role: "user", content: `${conversationId}: read the next file (${t}).` });
      const result = await agent.generate({
        messages: history,
        options: { conversationId },
        onStepFinish: (finished) => history.push(...finished.response.messages),
      });
      assert.match(result.text, new RegExp(`^${conversationId}: `));
    }
  };
  const results = await Promise.allSettled(Array.from({ length: CONVERSATIONS }, (_, i) => run(i)));
  const failures = results.filter((r) => r.status === "rejected").map((r) => `${r.reason?.code}: ${r.reason?.message}`);
  assert.deepEqual(failures, [], "every run completed");
  assert.deepEqual(seen.crossTalk, []);
  assert.ok(seen.summaries >= CONVERSATIONS, `${seen.summaries} summaries`);
});

test("a conversation id that is not a string is INVALID_ARGUMENT naming conversationId", async () => {
  const { model: m } = model();
  const step = prepareStep({ settings: SETTINGS });
  await assert.rejects(
    generateText({ model: m, messages: [{ role: "user", content: "conv-1: hi" }], prepareStep: step, runtimeContext: { conversationId: 7 } }),
    (e) => {
      const cause = e.code === undefined ? e.cause : e;
      return cause?.code === "INVALID_ARGUMENT" && cause.field === "conversationId";
    },
  );
});

test("a refused call is recovered in its own conversation: promptTooLong(error, id)", async () => {
  const { APICallError } = await import("ai");
  let refuse = true;
  const m = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const text = textOf(prompt);
      if (refuse && text.includes("conv-a")) {
        refuse = false;
        const body = { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 250000 tokens > 200000 maximum" } };
        throw new APICallError({ message: body.error.message, url: "https://api.anthropic.com/v1/messages", requestBodyValues: {}, statusCode: 400, responseBody: JSON.stringify(body), data: body, isRetryable: false });
      }
      return { content: [{ type: "text", text: "ok" }], finishReason: { unified: "stop", raw: undefined }, usage: { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }, warnings: [] };
    },
  });
  const step = prepareStep({ settings: { preset: "client-2.1", window: 200_000, maxOutputTokens: 32_000 } });
  const call = (id) => generateText({ model: m, messages: [{ role: "user", content: `${id}: hello` }], prepareStep: step, runtimeContext: { conversationId: id }, maxRetries: 0 });
  const [a, b] = await Promise.allSettled([call("conv-a"), call("conv-b")]);
  assert.equal(b.status, "fulfilled");
  assert.equal(a.status, "rejected");
  const before = step.engineOf("conv-b").count().tokens;
  const outcome = await step.promptTooLong(a.reason, "conv-a");
  assert.equal(outcome.steps[0].rule, "R8.1");
  assert.match(outcome.steps[0].reason, /250000/, "conv-a's count recalibrated to the size the error states");
  assert.equal(step.engineOf("conv-b").count().tokens, before, "the other conversation is untouched");
  await assert.rejects(step.promptTooLong(a.reason, "conv-unknown"), (e) => e.code === "INVALID_ARGUMENT");
  assert.equal((await call("conv-a")).text, "ok");
});
