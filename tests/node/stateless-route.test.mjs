// Stateless routes (issue 28, points 4 and 5): a chat route that keeps
// nothing between requests. Each request carries the whole history; what
// the engine needs next time travels with it: through the AI SDK, the
// route's `prepareStep` state (the last compaction's record and the last
// step's usage) in the assistant message's metadata; through
// `@anthropic-ai/sdk`, the compacted history itself, its last reply with its
// `usage`. Over 100 requests against a Messages API stand-in that counts
// about 10 % over chars/4 and refuses with the API's real 400s: 0 refusals,
// one summary call per compaction and none other (no precompute: a fresh
// engine per request would never take its answer).
import { test } from "node:test";
import assert from "node:assert/strict";

import { convertToModelMessages, DefaultChatTransport, readUIMessageStream, streamText } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import Anthropic from "@anthropic-ai/sdk";
import { Engine } from "context-compaction";
import { prepareStep } from "context-compaction/ai-sdk";
import { windowApi } from "./fake-window-api.mjs";

const WINDOW = 200_000;
const MAX_OUTPUT = 16_000;
// The defaults (Tier 2 drops the oldest turns first), and Tier 2 off (every
// crossing of the compact line is a compaction).
const SETTINGS = { window: WINDOW, maxOutputTokens: MAX_OUTPUT };
const NO_SNIP = { ...SETTINGS, snip: false, collapse: false };
const REQUESTS = 100;
// A user turn pasting ~4,000 tokens of code: the history crosses the compact
// line every ~35 requests.
const turn = (i) => `Request ${i}: review this file.\n${`const v${i} = compute(a, b) + 1;\n`.repeat(480)}`;
const compactions = (decisions) => decisions.filter((d) => d.steps.some((s) => s.rule === "R7.9")).length;

/** The AI SDK route: `POST(request)` of a `{ messages: UIMessage[] }` body. */
function aiSdkRoute(api, settings, decisions, errors) {
  const model = createAnthropic({ apiKey: "sk-ant-test", fetch: api.fetch })("claude-sonnet-4-6");
  return async (request) => {
    const { messages } = await request.json();
    const state = messages.findLast((m) => m.role === "assistant")?.metadata?.compaction;
    const step = prepareStep({ settings, state, onDecision: (d) => decisions.push(d) });
    const result = streamText({
      model,
      messages: await convertToModelMessages(messages),
      prepareStep: step,
      onStepEnd: step.onStepEnd,
      maxOutputTokens: MAX_OUTPUT,
      maxRetries: 0,
      onError: ({ error }) => errors.push(error),
    });
    return result.toUIMessageStreamResponse({
      messageMetadata: ({ part }) => (part.type === "finish" ? { compaction: step.stateOf() } : undefined),
    });
  };
}

for (const [name, settings, compacts] of [["default settings", SETTINGS, 0], ["Tier 2 off", NO_SNIP, 2]]) {
  test(`a stateless AI SDK route, 100 requests, ${name}: 0 refusals, summary calls = compactions, no precompute`, async () => {
    const api = windowApi({ window: WINDOW });
    const decisions = [];
    const errors = [];
    const POST = aiSdkRoute(api, settings, decisions, errors);
    const transport = new DefaultChatTransport({ api: "http://chat.test/api/chat", fetch: (url, init) => POST(new Request(url, init)) });
    let messages = [];
    let withUsage = 0;
    for (let i = 0; i < REQUESTS; i++) {
      messages.push({ id: `u${i}`, role: "user", parts: [{ type: "text", text: turn(i) }] });
      const stream = await transport.sendMessages({ chatId: "chat-1", messages, trigger: "submit-message", messageId: undefined, abortSignal: undefined });
      let reply;
      for await (const message of readUIMessageStream({ stream })) reply = message;
      assert.ok(reply?.metadata?.compaction, `request ${i}: the reply carries the route's state`);
      if (reply.metadata.compaction.usage) withUsage++;
      // The browser keeps the history as JSON.
      messages = JSON.parse(JSON.stringify([...messages, reply]));
    }
    assert.deepEqual(errors, []);
    assert.deepEqual(api.log.refusals, [], "no request over the window");
    assert.equal(api.log.calls, REQUESTS);
    assert.equal(withUsage, REQUESTS, "every state carries the usage that counts its view");
    const done = compactions(decisions);
    assert.ok(done >= compacts, `the history crossed the compact line at least ${compacts} times (${done} compactions)`);
    assert.equal(api.log.summaries, done, "one summary call per compaction, none per request");
    const precomputes = decisions.flatMap((d) => d.requests).filter((r) => r.kind === "precompute");
    assert.ok(precomputes.length > 0, "the engine did reach its precompute line");
    console.log(`AI SDK route (${name}): ${REQUESTS} requests, ${done} compactions, ${api.log.summaries} summary calls, 0 refusals, largest request ${api.log.largest}`);
  });
}

test("a stateless @anthropic-ai/sdk route, 100 requests: the compacted history and its last usage round-trip; 0 refusals, summary calls = compactions", async () => {
  const api = windowApi({ window: WINDOW });
  const client = new Anthropic({ apiKey: "sk-ant-test", fetch: api.fetch, maxRetries: 0 });
  const model = "claude-sonnet-4-6";
  let compacted = 0;
  // The route: the client's history in (the last reply with the `usage`
  // the API reported), the history to keep and the reply out.
  const POST = async (request) => {
    const { messages } = await request.json();
    const engine = new Engine(NO_SNIP);
    try {
      engine.load(messages);
      const decision = await engine.prepare({
        // No engine outlives the request: no background precompute.
        precompute: false,
        summarize: async (r) => {
          const reply = await client.messages.create({ model, max_tokens: MAX_OUTPUT, messages: [...r.messages, { role: "user", content: r.prompt }] });
          return reply.content.map((b) => (b.type === "text" ? b.text : "")).join("");
        },
      });
      if (decision.steps.some((s) => s.rule === "R7.9")) compacted++;
      const history = engine.messages();
      const reply = await client.messages.create({ model, max_tokens: MAX_OUTPUT, messages: history });
      return Response.json({ messages: [...history, { role: "assistant", content: reply.content, usage: reply.usage }] });
    } finally {
      engine.free();
    }
  };
  let messages = [];
  for (let i = 0; i < REQUESTS; i++) {
    const body = JSON.stringify({ messages: [...messages, { role: "user", content: turn(i) }] });
    const response = await POST(new Request("http://chat.test/api/chat", { method: "POST", body }));
    messages = (await response.json()).messages;
  }
  assert.deepEqual(api.log.refusals, [], "no request over the window");
  assert.equal(api.log.calls, REQUESTS);
  assert.ok(compacted >= 2, `the history crossed the compact line at least twice (${compacted})`);
  assert.equal(api.log.summaries, compacted, "one summary call per compaction, none per request");
  console.log(`Anthropic SDK route: ${REQUESTS} requests, ${compacted} compactions, ${api.log.summaries} summary calls, 0 refusals, largest request ${api.log.largest}`);
});

const good = { usage: { inputTokens: 1200, outputTokens: 12, totalTokens: 1212 } };
const BAD = [
  ["not an object", "state"],
  [[good], "state"],
  [{ usage: "many" }, "state.usage"],
  [{ usage: { outputTokens: 12 } }, "state.usage.inputTokens"],
  [{ usage: { inputTokens: -1 } }, "state.usage.inputTokens"],
  [{ usage: { inputTokens: 1.5 } }, "state.usage.inputTokens"],
  [{ usage: { inputTokens: 10, outputTokens: "12" } }, "state.usage.outputTokens"],
  [{ ...good, record: { messages: "summary", cut: 2 } }, "state.record.messages"],
  [{ ...good, record: { messages: [], cut: -2 } }, "state.record.cut"],
];

for (const [state, field] of BAD) {
  test(`a persisted state with a bad ${field} is INVALID_ARGUMENT naming it (${JSON.stringify(state).slice(0, 50)})`, () => {
    assert.throws(
      () => prepareStep({ state }),
      (e) => e instanceof Error && e.code === "INVALID_ARGUMENT" && e.field === field,
    );
  });
}
