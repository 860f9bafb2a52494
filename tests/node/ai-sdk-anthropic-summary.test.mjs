// `/ai-sdk`'s default summariser through `@ai-sdk/anthropic` with no
// `maxOutputTokens` set by the caller (issue 28, point 1): the provider asks
// for the model's maximum output when none is given, so a summary request of
// a long history plus that `max_tokens` went over the window and the API
// refused it. The summariser now asks for the engine's reserve. The fake
// Messages API counts about 10 % over chars/4 and answers an over-long
// request with the API's real 400s (prompt over the window; prompt plus
// `max_tokens` over it).
import { test } from "node:test";
import assert from "node:assert/strict";

import { generateText, stepCountIs } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { isPromptTooLong, prepareStep } from "context-compaction/ai-sdk";

const WINDOW = 200_000;

/** A Messages API stand-in: counts each request, refuses what does not fit. */
function fakeAnthropic() {
  const log = { calls: 0, refusals: [], maxTokens: [] };
  const fetch = async (_url, init) => {
    log.calls++;
    const body = JSON.parse(init.body);
    const input = Math.ceil((JSON.stringify(body.messages).length + JSON.stringify(body.system ?? "").length) / 4 * 1.1);
    log.maxTokens.push(body.max_tokens);
    const refuse = (message) => {
      log.refusals.push(message);
      return new Response(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message }, request_id: "req_011CTest" }), {
        status: 400,
        headers: { "content-type": "application/json", "request-id": "req_011CTest" },
      });
    };
    if (input > WINDOW) return refuse(`prompt is too long: ${input} tokens > ${WINDOW} maximum`);
    if (input + body.max_tokens > WINDOW) {
      return refuse(`input length and \`max_tokens\` exceed context limit: ${input} + ${body.max_tokens} > ${WINDOW}, decrease input length or \`max_tokens\` and try again`);
    }
    const text = String(body.messages.at(-1).content.at?.(-1)?.text ?? body.messages.at(-1).content).includes("summary") ? "The summary: refactored utils." : "Done.";
    return new Response(
      JSON.stringify({
        id: `msg_${log.calls}`,
        type: "message",
        role: "assistant",
        model: body.model,
        content: [{ type: "text", text }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: input, output_tokens: 8, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      }),
      { status: 200, headers: { "content-type": "application/json", "request-id": "req_011CTest" } },
    );
  };
  return { fetch, log };
}

/** An agent reading one file a turn (~4,060 estimated tokens each) for 60
 * turns through @ai-sdk/anthropic and the stand-in, usage fed back with
 * `onStepFinish`; `callOptions` go to every `generateText`. A refused call
 * runs the reactive tier and is retried (the tests assert none was). */
async function agent(callOptions) {
  const { fetch, log } = fakeAnthropic();
  const model = createAnthropic({ apiKey: "sk-ant-test", fetch })("claude-sonnet-4-6");
  const decisions = [];
  const step = prepareStep({ settings: { preset: "client-2.1", window: WINDOW, maxOutputTokens: 32_000 }, onDecision: (d) => decisions.push(d) });
  const history = [];
  for (let i = 0; i < 60; i++) {
    history.push({ role: "user", content: `Step ${i}: read file ${i}.\n${"const x = compute(a, b) + 1;\n".repeat(560)}` });
    let result;
    for (let attempt = 0; result === undefined && attempt < 3; attempt++) {
      try {
        result = await generateText({
          model,
          messages: history,
          prepareStep: step,
          stopWhen: stepCountIs(1),
          maxRetries: 0,
          ...callOptions,
          onStepFinish: (finished) => step.onStepFinish(finished),
        });
      } catch (error) {
        if (!isPromptTooLong(error)) throw error;
        await step.promptTooLong(error);
      }
    }
    history.push(...result.response.messages);
  }
  const compactions = decisions.filter((d) => d.steps.some((s) => s.rule === "R7.9")).length;
  return { log, compactions };
}

test("@ai-sdk/anthropic, the default summariser, no maxOutputTokens of its own: the summary request fits, 0 refusals", async () => {
  // The calls pass the one `maxOutputTokens` the engine was given; the
  // default summariser sets its own.
  const { log, compactions } = await agent({ maxOutputTokens: 32_000 });
  assert.ok(compactions >= 1, "the history was compacted (a summary call was made)");
  assert.deepEqual(log.refusals, [], "no request was refused");
  // The summary calls asked for the engine's reserve: min(32,000, reserveCap 20,000).
  assert.ok(log.maxTokens.includes(20_000), `max_tokens sent: ${[...new Set(log.maxTokens)]}`);
  assert.ok(!log.maxTokens.some((m) => m > 32_000), `max_tokens sent: ${[...new Set(log.maxTokens)]}`);
});

test("@ai-sdk/anthropic, no maxOutputTokens anywhere in the caller's calls: each step asks for the engine's, 0 refusals", async () => {
  // No maxOutputTokens: the provider would ask for the model's maximum.
  const { log, compactions } = await agent({});
  assert.ok(compactions >= 1, "the history was compacted");
  assert.deepEqual(log.refusals, [], "no request was refused");
  assert.ok(log.maxTokens.includes(32_000), `main calls asked for the engine's maxOutputTokens: ${[...new Set(log.maxTokens)]}`);
  assert.ok(!log.maxTokens.some((m) => m > 32_000), `max_tokens sent: ${[...new Set(log.maxTokens)]}`);
});
