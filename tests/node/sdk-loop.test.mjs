// A production-shaped agent loop, written from the package README: 300
// model calls through the real @anthropic-ai/sdk client, whose `fetch` is a
// stand-in for the Messages API that answers as the API does — BetaMessage
// bodies with usage and context_management.applied_edits, and an HTTP 400
// invalid_request_error "prompt is too long: N tokens > M maximum" whenever
// the request exceeds the 200k window by its own count. The session has
// growing tool logs, a 2-hour idle gap and a pasted Japanese document.
import { test } from "node:test";
import assert from "node:assert/strict";

import Anthropic from "@anthropic-ai/sdk";
import { Engine, isPromptTooLong, promptTooLongTokens } from "context-compaction";

const WINDOW = 200_000;
const SUMMARIZER = "You summarise coding sessions.";

/** The stand-in API's tokenizer: Latin text ~3.5 characters a token, CJK 1.4 tokens a character. */
function apiTokens(body) {
  const text = JSON.stringify(body.messages) + JSON.stringify(body.system ?? "");
  const cjk = (text.match(/[\u3040-\u30ff\u4e00-\u9fff]/g) ?? []).length;
  return Math.ceil((text.length - cjk) / 3.5 + cjk * 1.4);
}

/** A fetch that answers like the Messages API; `script(i)` gives the i-th main reply's content. */
function fakeApi(script) {
  const log = { calls: 0, summaries: 0, refused: 0, sawEdits: 0, betas: new Set(), pairsBroken: 0 };
  let main = 0;
  const fetch = async (url, init) => {
    const body = JSON.parse(init.body);
    for (const b of (init.headers?.get?.("anthropic-beta") ?? new Headers(init.headers).get("anthropic-beta") ?? "").split(",")) if (b) log.betas.add(b.trim());
    const tokens = apiTokens(body);
    const json = (status, value) =>
      new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json", "request-id": `req_${log.calls}` } });
    if (tokens > WINDOW) {
      log.refused += 1;
      return json(400, {
        type: "error",
        error: { type: "invalid_request_error", message: `prompt is too long: ${tokens} tokens > ${WINDOW} maximum` },
        request_id: `req_${log.calls}`,
      });
    }
    body.messages.forEach((m, i) => {
      if (typeof m.content === "string") return;
      for (const b of m.content) {
        if (b.type !== "tool_result") continue;
        const prev = body.messages[i - 1];
        if (!(prev && Array.isArray(prev.content) && prev.content.some((u) => u.type === "tool_use" && u.id === b.tool_use_id))) log.pairsBroken += 1;
      }
    });
    const isSummary = body.system === SUMMARIZER;
    if (isSummary) log.summaries += 1;
    else log.calls += 1;
    const edits = body.context_management?.edits ?? [];
    if (edits.length) log.sawEdits += 1;
    const content = isSummary
      ? [{ type: "text", text: "<analysis>read it all</analysis>\n<summary>\n1. Primary Request and Intent: keep the service running.\n</summary>", citations: null }]
      : script(main++);
    return json(200, {
      id: `msg_${log.calls}_${log.summaries}`,
      type: "message",
      role: "assistant",
      model: body.model,
      content,
      stop_reason: content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage: { input_tokens: tokens, output_tokens: 120, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, server_tool_use: null, service_tier: "standard" },
      context_management: { applied_edits: edits.filter((e) => e.type === "clear_tool_uses_20250919").map(() => ({ type: "clear_tool_uses_20250919", cleared_tool_uses: 0, cleared_input_tokens: 0 })) },
    });
  };
  return { fetch, log };
}

test("300 calls through the real SDK: never crashes, every tier fires, the 400 goes to the reactive tier", { timeout: 240_000 }, async () => {
  // Replies: two tool calls (Bash: growing logs), then an answer.
  const script = (i) =>
    i % 3 === 2
      ? [{ type: "text", text: `Done with step ${i}.`, citations: null }]
      : [{ type: "tool_use", id: `toolu_${i}`, name: "Bash", input: { command: `make test # ${i}` } }];
  const { fetch, log } = fakeApi(script);
  const client = new Anthropic({ apiKey: "sk-ant-test", maxRetries: 0, fetch });

  let clock = Date.parse("2026-12-01T09:00:00Z");
  const now = () => new Date(clock).toISOString();
  const tiers = new Set();
  let reactiveAfter400 = 0;

  async function summarize(request) {
    const reply = await client.beta.messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 16_000,
      system: SUMMARIZER,
      messages: [...request.messages, { role: "user", content: request.prompt }],
    });
    return reply.content.map((b) => (b.type === "text" ? b.text : "")).join("");
  }

  const engine = new Engine({ preset: "seed", window: WINDOW, maxOutputTokens: 16_000, model: "claude-sonnet-4-5" });
  engine.setSystem("You are a careful coding agent.");
  let turn = 0;
  while (log.calls < 300) {
    turn += 1;
    if (turn === 60) clock += 2 * 60 * 60 * 1000; // the user comes back two hours later
    const paste = turn === 80 ? `\n${"日本語の設計書です。".repeat(12_000)}` : "";
    const prompt = engine.append({ role: "user", content: `Task ${turn}: keep the service green.${paste}`, timestamp: now() });
    // The user pins every task's prompt but ten: snip deletes those ten
    // turns, and once it cannot get under the line Tier 3 collapses the
    // pinned turns (the pins stay verbatim) before Tier 4 (R3.1).
    if (turn <= 40 || turn > 50) engine.pin(prompt);
    for (;;) {
      clock += 20_000;
      const decision = await engine.prepare({ summarize, now: now() });
      decision.steps.forEach((s) => tiers.add(s.tier));
      assert.notEqual(decision.status.kind, "blocked", decision.steps.at(-1)?.reason);
      let reply;
      try {
        reply = await client.beta.messages.create({
          model: "claude-sonnet-4-5",
          max_tokens: 16_000,
          system: "You are a careful coding agent.",
          messages: engine.messages(),
          context_management: decision.contextManagement ?? undefined,
          betas: decision.betas,
        });
      } catch (e) {
        if (!isPromptTooLong(e)) throw e;
        const outcome = engine.promptTooLong(promptTooLongTokens(e));
        outcome.steps.forEach((s) => tiers.add(s.tier));
        assert.notEqual(outcome.compaction?.kind, "failed", outcome.compaction?.reason);
        reactiveAfter400 += 1;
        continue;
      }
      engine.append({ ...reply, timestamp: now() });
      const uses = reply.content.filter((b) => b.type === "tool_use");
      if (uses.length === 0 || log.calls >= 300) break;
      const logs = Array.from({ length: 40 + log.calls * 3 }, (_, k) => `[${k}] PASS tests/test_${k}.py::test_case ok`).join("\n");
      engine.append({ role: "user", content: uses.map((u) => ({ type: "tool_result", tool_use_id: u.id, content: logs })), timestamp: now() });
    }
  }

  assert.equal(log.calls, 300);
  assert.equal(log.pairsBroken, 0, "no request separated a tool_use from its tool_result");
  // R1.6a: the engine counts the CJK paste near one token a character, so it
  // compacts before sending instead of overflowing the real window.
  assert.equal(log.refused, 0, "the CJK paste never overflowed the real window");
  assert.equal(reactiveAfter400, log.refused, "every 400 went to the reactive tier");
  assert.ok(log.summaries >= 1, "summaries were asked through the SDK");
  for (const tier of ["budgetReduction", "microcompact", "snip", "collapse", "compact"]) {
    assert.ok(tiers.has(tier), `tier ${tier} fired (seen: ${[...tiers].join(", ")})`);
  }
  console.log(`calls ${log.calls}, summaries ${log.summaries}, 400s ${log.refused}, edits sent ${log.sawEdits}, betas ${[...log.betas].join(",") || "none"}; tiers ${[...tiers].join(", ")}`);
});
