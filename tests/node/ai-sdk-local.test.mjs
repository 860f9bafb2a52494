// An AI SDK agent on a small local model, as a user runs one: the real `ai`
// package (generateText + tools + prepareStep from context-compaction/ai-sdk)
// over @ai-sdk/openai-compatible, against a stand-in llama.cpp server (a
// fake `fetch`) with an 8,192-token context whose tokenizer counts Japanese
// at two tokens a character, twice what the engine's estimate says. The
// server reports real usage with every reply and answers a request over
// its context with llama.cpp's own 400 (`exceed_context_size_error`).
//  - Reported usage: each step's usage reaches the engine, so its count
//    follows the server's and it compacts when the real count crosses the
//    line, before the server refuses (without it, the estimate is half
//    the truth and the server refuses first).
//  - Reactive recovery: a refused call rejects generateText; the host calls
//    step.promptTooLong(error) and retries with its own history, and the
//    step function carries on with the same engine.
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateText, jsonSchema, stepCountIs, tool } from "ai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { isPromptTooLong, prepareStep } from "context-compaction/ai-sdk";

const N_CTX = 8192;
const CJK = /[\u3000-\u30ff\u3400-\u9fff\uff00-\uffef]/g;
/** The server's tokenizer: Japanese at 2 tokens a character, the rest at 4 characters a token. */
const realTokens = (text) => {
  const cjk = (text.match(CJK) ?? []).length;
  return 2 * cjk + Math.ceil((text.length - cjk) / 4);
};
const requestTokens = (body) => realTokens(JSON.stringify(body.messages)) + realTokens(JSON.stringify(body.tools ?? []));
const japanese = (n, seed) => {
  const line = `第${seed}章：このファイルは設定の読み込みと検証を行います。エラーが発生した場合は再試行します。`;
  return line.repeat(Math.ceil(n / line.length)).slice(0, n);
};

/** Tool calls and their results pair up in a Chat Completions request. */
function assertPaired(messages) {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === "assistant" && m.tool_calls) {
      const ids = m.tool_calls.map((c) => c.id);
      const answered = [];
      for (let j = i + 1; j < messages.length && messages[j].role === "tool"; j++) answered.push(messages[j].tool_call_id);
      assert.deepEqual(answered.sort(), [...ids].sort(), `the calls of message ${i} are answered right after it`);
    }
    if (m.role === "tool") {
      let j = i - 1;
      while (j >= 0 && messages[j].role === "tool") j--;
      assert.ok(messages[j]?.tool_calls?.some((c) => c.id === m.tool_call_id), `tool message ${i} answers a call just before it`);
    }
  }
}

/** A stand-in llama-server: `/v1/chat/completions` with tools is an agent
 * step (a tool call until `steps` steps, then text); without tools, a
 * summary request. Every reply reports the request's real size. */
function llamaServer({ steps }) {
  const server = { requests: [], refused: 0, agentSteps: 0, summaries: 0 };
  server.fetch = async (url, init) => {
    const body = JSON.parse(init.body);
    assertPaired(body.messages);
    const prompt = requestTokens(body);
    server.requests.push({ prompt, tools: Boolean(body.tools?.length), messages: body.messages.length });
    if (prompt > N_CTX) {
      server.refused++;
      return new Response(
        JSON.stringify({
          error: {
            code: 400,
            message: `request (${prompt} tokens) exceeds the available context size (${N_CTX} tokens), try increasing it`,
            type: "exceed_context_size_error",
            n_prompt_tokens: prompt,
            n_ctx: N_CTX,
          },
        }),
        { status: 400, headers: { "content-type": "application/json" } },
      );
    }
    let message;
    let finish;
    if (body.tools?.length) {
      server.agentSteps++;
      const k = server.agentSteps;
      message = k < steps
        ? { role: "assistant", content: null, tool_calls: [{ id: `call_${k}`, type: "function", function: { name: "Read", arguments: JSON.stringify({ path: `docs/${k}.md` }) } }] }
        : { role: "assistant", content: "全部読みました。" };
      finish = k < steps ? "tool_calls" : "stop";
    } else {
      server.summaries++;
      message = { role: "assistant", content: "<summary>docs/1.md から順に設定ファイルを読んだ。問題なし。</summary>" };
      finish = "stop";
    }
    const completion = realTokens(JSON.stringify(message));
    return new Response(
      JSON.stringify({
        id: `chatcmpl-${server.requests.length}`,
        object: "chat.completion",
        created: 1_764_000_000,
        model: "qwen3-8b",
        choices: [{ index: 0, message, finish_reason: finish }],
        usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: 0 } },
      }),
      { status: 200, headers: { "content-type": "application/json" } },
    );
  };
  server.model = createOpenAICompatible({ name: "llama", baseURL: "http://127.0.0.1:8080/v1", fetch: server.fetch })("qwen3-8b");
  return server;
}

const tools = {
  Read: tool({
    description: "Read a file",
    inputSchema: jsonSchema({ type: "object", properties: { path: { type: "string" } }, required: ["path"] }),
    execute: async ({ path }) => `${path}\n${japanese(420, path)}`,
  }),
};
const settings = { window: N_CTX, maxOutputTokens: 1024 };

test("prepareStep feeds every step's reported usage: the count follows the server's, and it compacts when the real count crosses the line, before the server refuses", async () => {
  const server = llamaServer({ steps: 24 });
  const decisions = [];
  const step = prepareStep({ settings, host: { precompute: false }, onDecision: (d) => decisions.push(d) });
  const result = await generateText({
    model: server.model,
    tools,
    messages: [{ role: "user", content: "docs/ の設定ファイルを全部読んで確認してください。" }],
    prepareStep: step,
    stopWhen: stepCountIs(30),
    maxRetries: 0,
  });
  assert.equal(result.text, "全部読みました。");
  assert.equal(server.refused, 0, "the server never refused a request");
  const agent = server.requests.filter((r) => r.tools);
  assert.equal(agent.length, 24);
  assert.equal(decisions.length, 24, "one decision per step");
  const compact = decisions[0].lines.compact;
  const first = decisions.findIndex((d) => d.steps.some((s) => s.rule === "R7.9"));
  assert.ok(first > 0, "a compaction ran");
  assert.ok(server.summaries >= 1, "the summary went to the step's own model");
  // Each count starts from what the server reported for the request before
  // (R1.6), so it is never below it; with only the newest result estimated
  // it is within 20% of the server's count, and once the estimate is
  // calibrated by the reports (R1.6a; after the first compaction here),
  // within 2%. Without the usage it would be half the server's.
  // (A compacting step's count is the summary's, which no report covers.)
  const compacting = (k) => decisions[k].steps.some((s) => s.rule === "R7.9");
  for (let k = 1; k < decisions.length; k++) {
    if (compacting(k)) continue;
    const { tokens } = decisions[k].count;
    const real = agent[k].prompt;
    assert.ok(tokens >= agent[k - 1].prompt, `step ${k}: ${tokens} counts the ${agent[k - 1].prompt} reported before`);
    if (k >= 2) assert.ok(Math.abs(tokens - real) <= 0.2 * real, `step ${k}: the engine counted ${tokens}, the server ${real}`);
    if (k > first) assert.ok(Math.abs(tokens - real) <= 0.02 * real, `step ${k}: the engine counted ${tokens}, the server ${real}`);
  }
  // Every compaction came at the first step over the line, never later.
  for (let k = 1; k < decisions.length; k++) {
    if (compacting(k)) assert.ok(agent[k - 1].prompt < compact && agent[k - 1].prompt + 800 >= compact, `step ${k} compacted after ${agent[k - 1].prompt}`);
  }
  // Not later: the step before the compaction was under the line for real,
  // and what the compacting step was given (that request, the reply, the
  // new result) was over it.
  assert.ok(agent[first - 1].prompt < compact, `step ${first - 1}: ${agent[first - 1].prompt} < ${compact}`);
  assert.ok(agent[first - 1].prompt + realTokens(japanese(420, "x")) >= compact, "the compacting step was over the line");
  assert.ok(agent[first].prompt < agent[first - 1].prompt, "the compacting step sent less");
  step.engine.free();
});

test("without reported usage the same agent is refused by the server (why the usage matters)", async () => {
  const server = llamaServer({ steps: 24 });
  const step = prepareStep({ settings, host: { precompute: false } });
  // The same step function, given no steps (so no usage) each time.
  const blind = (options) => step({ ...options, steps: [] });
  await assert.rejects(
    generateText({ model: server.model, tools, messages: [{ role: "user", content: "docs/ を全部読んで。" }], prepareStep: blind, stopWhen: stepCountIs(30), maxRetries: 0 }),
    (e) => isPromptTooLong(e),
  );
  assert.equal(server.refused, 1);
  step.engine.free();
});

test("a refused step: step.promptTooLong(error) runs the reactive tier through the same summariser, and the retry with the host's history continues the same engine", async () => {
  const server = llamaServer({ steps: 6 });
  const decisions = [];
  const step = prepareStep({ settings, host: { precompute: false }, onDecision: (d) => decisions.push(d) });
  // A resumed conversation: earlier turns the host kept (its own objects),
  // then a pasted Japanese document the estimate puts under the line and
  // the server's tokenizer over the window.
  const history = [];
  for (let t = 0; t < 3; t++) {
    history.push({ role: "user", content: `質問${t}：設定を確認して。` });
    history.push({ role: "assistant", content: [{ type: "tool-call", toolCallId: `old_${t}`, toolName: "Read", input: { path: `old/${t}.md` } }] });
    history.push({ role: "tool", content: [{ type: "tool-result", toolCallId: `old_${t}`, toolName: "Read", output: { type: "text", value: japanese(500, `old${t}`) } }] });
    history.push({ role: "assistant", content: [{ type: "text", text: `確認しました（${t}）。` }] });
  }
  history.push({ role: "user", content: `この文書を要約して、関連ファイルを読んでください。\n${japanese(2800, "paste")}` });

  const outcomes = [];
  const engines = new Set();
  let result;
  for (let attempt = 0; attempt < 4 && !result; attempt++) {
    try {
      result = await generateText({
        model: server.model,
        tools,
        messages: history,
        prepareStep: step,
        stopWhen: stepCountIs(10),
        maxRetries: 0,
        // Keep the history: each finished step's messages, so a retry
        // passes every answered tool call on.
        onStepFinish: (s) => {
          history.push(...s.response.messages);
          step.onStepFinish(s);
        },
      });
    } catch (e) {
      engines.add(step.engine);
      if (!isPromptTooLong(e)) throw e;
      const outcome = await step.promptTooLong(e);
      outcomes.push(outcome);
      if (outcome.compaction?.kind === "failed") throw new Error(outcome.compaction.reason);
    }
  }
  assert.ok(result, "the retry succeeded");
  assert.equal(result.text, "全部読みました。");
  assert.ok(server.refused >= 1, "the server refused the first call");
  assert.equal(outcomes.length, server.refused - server.requests.filter((r) => !r.tools && r.prompt > N_CTX).length, "one recovery per refused agent call");
  engines.add(step.engine);
  assert.equal(engines.size, 1, "one engine across the generateText calls");
  const rules = outcomes.flatMap((o) => o.steps.map((s) => s.rule));
  assert.ok(rules.some((r) => r.startsWith("R8")), `the reactive tier ran: ${rules.join(",")}`);
  assert.ok(outcomes.some((o) => o.decision?.steps.some((s) => s.rule === "R7.9")), "a compaction answered through the summariser");
  assert.ok(server.summaries >= 1);
  // The count was recalibrated to the server's figure: the decision after
  // the refusal counted at least what the error stated, before compacting.
  const last = server.requests.filter((r) => r.tools).at(-1);
  assert.ok(last.prompt <= N_CTX);
  // The host's history holds every step, every call answered.
  assert.equal(history.filter((m) => m.role === "tool").length, 3 + 5);
  step.engine.free();
});

test("step.promptTooLong refuses what is not a refusal, and before any step", async () => {
  const step = prepareStep({ settings });
  await assert.rejects(step.promptTooLong(new Error("boom")), (e) => e.code === "INVALID_ARGUMENT" && e.cause?.message === "boom");
  await assert.rejects(step.promptTooLong(), (e) => e.code === "INVALID_ARGUMENT");
});
