// context-compaction/openai-agents (issue 28, point 9): the engine over the
// OpenAI Agents SDK's `AgentInputItem`s as its `callModelInputFilter`,
// through the real `@openai/agents` (its Runner, its Responses model, the
// `openai` client) against a Responses API stand-in that counts about 10 %
// over chars/4. Told its model's window, a 30-turn agent with a tool is
// never refused and compacts through the default summariser (the agent's
// own model). Told twice the real window (32,000 for 16,000), calls are
// refused with the API's real 400 (`context_length_exceeded`): the agent
// recovers through `promptTooLong` and every turn is answered. Usage
// reaches the engine (the count is anchored to what the API reported), and
// every item no tier touched is the SDK's own object.
import { test } from "node:test";
import assert from "node:assert/strict";

import OpenAI from "openai";
import { Agent, OpenAIResponsesModel, run, setTracingDisabled, tool } from "@openai/agents";
import { agentsCompaction, isPromptTooLong, toResponsesItem } from "context-compaction/openai-agents";

setTracingDisabled(true);

const SUMMARY = "CRITICAL: Respond with TEXT ONLY";

/** A Responses API stand-in: a tool call on a turn's first call, an answer
 * on its second, a summary when asked; refuses what is over its window. */
function fakeResponses(window) {
  const log = { calls: 0, summaries: 0, refused: 0, refusedSummaries: 0, largest: 0 };
  let n = 0;
  const fetch = async (_url, init) => {
    const body = JSON.parse(init.body);
    const tokens = Math.ceil(((JSON.stringify(body.input).length + JSON.stringify(body.instructions ?? "").length + JSON.stringify(body.tools ?? []).length) / 4) * 1.1);
    const headers = { "content-type": "application/json", "x-request-id": `req_${++n}` };
    const last = body.input.at(-1);
    const text = typeof last.content === "string" ? last.content : JSON.stringify(last.content ?? last.output ?? "");
    if (tokens > window) {
      if (text.includes(SUMMARY)) log.refusedSummaries++;
      else log.refused++;
      const error = { message: "Your input exceeds the context window of this model. Please adjust your input and try again.", type: "invalid_request_error", param: "input", code: "context_length_exceeded" };
      return new Response(JSON.stringify({ error }), { status: 400, headers });
    }
    log.largest = Math.max(log.largest, tokens);
    let output;
    if (text.includes(SUMMARY)) {
      log.summaries++;
      output = [{ type: "message", id: `msg_${n}`, status: "completed", role: "assistant", content: [{ type: "output_text", text: "<summary>Files read so far: all fine.</summary>", annotations: [] }] }];
    } else if (last.type === "function_call_output") {
      log.calls++;
      output = [{ type: "message", id: `msg_${n}`, status: "completed", role: "assistant", content: [{ type: "output_text", text: `Read it (${log.calls}).`, annotations: [] }] }];
    } else {
      log.calls++;
      output = [{ type: "function_call", id: `fc_${n}`, call_id: `call_${n}`, name: "read_file", arguments: JSON.stringify({ path: `src/file${n}.ts` }), status: "completed" }];
    }
    const response = {
      id: `resp_${n}`,
      object: "response",
      created_at: 1_780_000_000,
      status: "completed",
      model: body.model,
      output,
      parallel_tool_calls: true,
      tool_choice: "auto",
      tools: [],
      usage: { input_tokens: tokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: 12, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: tokens + 12 },
    };
    return new Response(JSON.stringify(response), { status: 200, headers });
  };
  return { fetch, log };
}

const readFile = tool({
  name: "read_file",
  description: "Reads a file of the project.",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false },
  strict: true,
  execute: async ({ path }) => `// ${path}\n${"export const value = compute(a, b) + 1;\n".repeat(100)}`,
});

async function conversation(told, real, more = {}) {
  const { fetch, log } = fakeResponses(real);
  const model = new OpenAIResponsesModel(new OpenAI({ apiKey: "sk-test", fetch, maxRetries: 0 }), "gpt-5");
  const agent = new Agent({ name: "reviewer", instructions: "Review the files you are asked about.", model, tools: [readFile] });
  const decisions = [];
  const compaction = agentsCompaction({ settings: { window: told, maxOutputTokens: 4_000, ...more }, onDecision: (d) => decisions.push(d) });
  let history = [];
  let recovered = 0;
  const TURNS = 30;
  for (let turn = 0; turn < TURNS; turn++) {
    const input = [...history, { role: "user", content: `Turn ${turn}: read the next file and tell me what it does.` }];
    let result;
    for (let attempt = 0; result === undefined; attempt++) {
      assert.ok(attempt < 4, `turn ${turn}: still refused after ${attempt} recoveries`);
      try {
        result = await run(agent, input, { callModelInputFilter: compaction.callModelInputFilter, context: compaction.context });
      } catch (error) {
        if (!isPromptTooLong(error)) throw error;
        const outcome = await compaction.promptTooLong(error, input);
        assert.notEqual(outcome.compaction?.kind, "failed");
        recovered++;
      }
    }
    assert.match(String(result.finalOutput), /^Read it/);
    history = result.history;
  }
  // Two answered calls a turn, and the tool call again of a run retried
  // after a refusal of its second call (the SDK keeps no failed run).
  assert.ok(log.calls >= 2 * TURNS && log.calls <= 2 * TURNS + log.refused, `${log.calls} answered calls`);
  assert.equal(recovered, log.refused, "every refused call recovered");
  const compactions = decisions.filter((d) => d.steps.some((s) => s.rule === "R7.9")).length;
  assert.ok(compactions >= 1);
  assert.ok(log.summaries >= 1, "summaries went through the agent's own model");
  // Usage reached the engine: its count is anchored to what the API reported.
  assert.ok(decisions.at(-1).count.basis !== "estimated", `count basis ${decisions.at(-1).count.basis}`);
  console.log(`Agents SDK, window ${told} told, ${real} real: ${TURNS} turns, ${log.calls} calls, ${log.refused} refused and recovered, ${compactions} compactions, ${log.summaries} summary calls (${log.refusedSummaries} refused: R7.5 retried them shorter), largest ${log.largest}`);
  await compaction.free();
  return log;
}

test("an Agents SDK agent, 30 turns with a tool: usage fed, the default summariser, 0 refusals", async () => {
  const log = await conversation(24_000, 24_000, { snip: false, collapse: false });
  assert.equal(log.refused + log.refusedSummaries, 0);
});

test("an Agents SDK agent over a window half the one it was told: every refused call recovered, every turn answered", async () => {
  const log = await conversation(32_000, 16_000);
  assert.ok(log.refused >= 1, "calls were refused");
});


test("the filter gives back the SDK's own items when nothing is over a line, and speaks the Responses API to the engine", async () => {
  const compaction = agentsCompaction();
  const items = [
    { role: "user", content: "Read a.ts" },
    { type: "function_call", callId: "call_1", name: "read_file", arguments: '{"path":"a.ts"}', status: "completed" },
    { type: "function_call_result", callId: "call_1", name: "read_file", status: "completed", output: { type: "text", text: "export const a = 1;" } },
    { role: "assistant", status: "completed", content: [{ type: "output_text", text: "It exports a." }] },
  ];
  const agent = new Agent({ name: "a", instructions: "Be brief." });
  const out = await compaction.callModelInputFilter({ modelData: { input: items, instructions: "Be brief." }, agent, context: undefined });
  assert.equal(out.input.length, items.length);
  out.input.forEach((item, i) => assert.equal(item, items[i], `item ${i} is the SDK's own object`));
  assert.equal(out.instructions, "Be brief.");
  assert.deepEqual(toResponsesItem(items[2]), { type: "function_call_output", call_id: "call_1", output: "export const a = 1;" });
  assert.deepEqual(toResponsesItem(items[1]), { type: "function_call", call_id: "call_1", name: "read_file", arguments: '{"path":"a.ts"}' });
  await assert.rejects(compaction.promptTooLong(new Error("rate limited")), (e) => e.code === "INVALID_ARGUMENT" && e.field === "error");
  await compaction.free();
});
