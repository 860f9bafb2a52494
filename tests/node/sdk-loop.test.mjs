// A production-shaped agent loop, written from the package README: 300
// model calls through the real @anthropic-ai/sdk client, whose `fetch` is a
// stand-in for the Messages API (./fake-anthropic.mjs) that answers as the
// API does — BetaMessage bodies with usage and
// context_management.applied_edits, and an HTTP 400 invalid_request_error
// "prompt is too long: N tokens > M maximum" whenever the request exceeds
// the 200k window by its own tokenizer, which counts CJK text 1.4 tokens a
// character where the engine estimates one (R1.6a). The session has growing
// tool logs, a 2-hour idle gap and a pasted Japanese document that the
// engine counts as fitting and the API does not: the real 400 goes to the
// reactive tier (R8.1), which recovers.
import { test } from "node:test";
import assert from "node:assert/strict";

import Anthropic from "@anthropic-ai/sdk";
import { Engine, isPromptTooLong, promptTooLongTokens } from "context-compaction";
import { BETA_CONTEXT_MANAGEMENT, fakeApi } from "./fake-anthropic.mjs";

const WINDOW = 200_000;
const MODEL = "claude-sonnet-4-6";
const MAX_TOKENS = 8_192;
const SYSTEM = "You are a careful coding agent.";
const TOOLS = [{ name: "Bash", description: "Runs a shell command.", input_schema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } }];
const SUMMARY = "<analysis>read it all</analysis>\n<summary>\n1. Primary Request and Intent: keep the service running.\n</summary>";
/** The pasted design document: Japanese, one line repeated (10 characters, 9 of them kana or kanji). */
const PASTE_LINE = "日本語の設計書です。";

test("300 calls through the real SDK: never crashes, every tier fires, the API's 400 goes to the reactive tier", { timeout: 240_000 }, async () => {
  // Replies: two tool calls (Bash: growing logs), then an answer.
  const reply = (_body, i) =>
    i % 3 === 2
      ? [{ type: "text", text: `Done with step ${i}.`, citations: null }]
      : [{ type: "tool_use", id: `toolu_${i}`, name: "Bash", input: { command: `make test # ${i}` } }];
  const { fetch, log } = fakeApi({
    window: WINDOW,
    reply,
    summary: () => SUMMARY,
    isSummary: (body) => body.tool_choice?.type === "none",
  });
  const client = new Anthropic({ apiKey: "sk-ant-test", maxRetries: 0, fetch });

  let clock = Date.parse("2026-12-01T09:00:00Z");
  const now = () => new Date(clock).toISOString();
  const tiers = new Set();
  let reactiveAfter400 = 0;
  let summaryTooLong = 0;
  let decisionsWithEdits = 0;

  // The summary call the engine asks for, through the same SDK; a summary
  // request the API refuses as too long is answered `promptTooLong`, so the
  // engine retries it shorter (R7.5).
  async function summarize(request) {
    try {
      const answer = await client.messages.create({
        model: request.model,
        max_tokens: MAX_TOKENS,
        tools: TOOLS,
        tool_choice: request.toolChoice,
        messages: [...request.messages, { role: "user", content: request.prompt }],
      });
      return answer.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    } catch (e) {
      if (!isPromptTooLong(e)) throw e;
      summaryTooLong += 1;
      return { kind: "promptTooLong" };
    }
  }

  const engine = new Engine({ preset: "seed", window: WINDOW, maxOutputTokens: MAX_TOKENS, model: MODEL });
  engine.setSystem(SYSTEM);
  let turn = 0;
  let pasteChars = 0;
  while (log.calls < 300) {
    turn += 1;
    if (turn === 60) clock += 2 * 60 * 60 * 1000; // the user comes back two hours later
    // After the idle gap, once the count is back over 50k, the user pastes a
    // Japanese design document sized to what the engine says is left under
    // its compact line (less 3k, and 5% for the calibration of its
    // estimate): by the engine's count the call fits, by the API's
    // tokenizer the paste is ~29% larger and the prompt over the window.
    let paste = "";
    if (turn > 60 && pasteChars === 0 && engine.count().tokens > 50_000) {
      const room = (engine.lines().compact - engine.count().tokens - 3_000) / 1.05;
      paste = `\n${PASTE_LINE.repeat(Math.floor(room / PASTE_LINE.length))}`;
      pasteChars = paste.length;
    }
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
      // R13.4: the decision names the beta its context_management needs.
      if (decision.contextManagement) {
        decisionsWithEdits += 1;
        assert.ok(decision.betas.includes(BETA_CONTEXT_MANAGEMENT), `betas ${decision.betas} lack ${BETA_CONTEXT_MANAGEMENT}`);
      }
      let answer;
      try {
        answer = await client.beta.messages.create({
          model: MODEL,
          max_tokens: MAX_TOKENS,
          system: SYSTEM,
          tools: TOOLS,
          messages: engine.messages(),
          context_management: decision.contextManagement ?? undefined,
          betas: decision.betas,
        });
      } catch (e) {
        if (!isPromptTooLong(e)) throw e;
        assert.equal(e.status, 400, "the API's prompt-too-long is an HTTP 400");
        const tokens = promptTooLongTokens(e);
        assert.ok(tokens > WINDOW, `the error states the prompt's size (${tokens})`);
        const outcome = engine.promptTooLong(tokens);
        outcome.steps.forEach((s) => tiers.add(s.tier));
        assert.notEqual(outcome.compaction?.kind, "failed", outcome.compaction?.reason);
        reactiveAfter400 += 1;
        continue;
      }
      engine.append({ ...answer, timestamp: now() });
      const uses = answer.content.filter((b) => b.type === "tool_use");
      if (uses.length === 0 || log.calls >= 300) break;
      const logs = Array.from({ length: 40 + log.calls * 3 }, (_, k) => `[${k}] PASS tests/test_${k}.py::test_case ok`).join("\n");
      engine.append({ role: "user", content: uses.map((u) => ({ type: "tool_result", tool_use_id: u.id, content: logs })), timestamp: now() });
    }
  }

  assert.equal(log.calls, 300);
  assert.equal(log.pairsBroken, 0, "no request separated a tool_use from its tool_result");
  assert.ok(pasteChars > 100_000, `the paste came (${pasteChars} characters)`);
  // Only the API's tokenizer could refuse: never a missing beta or a bad pair.
  assert.deepEqual(new Set(log.refusals.map((r) => r.kind)), new Set(["tooLong"]), JSON.stringify(log.refusals));
  const mainRefusals = log.refused - summaryTooLong;
  assert.ok(mainRefusals >= 1, "the paste the engine counted as fitting was refused by the API with a real 400");
  assert.equal(reactiveAfter400, mainRefusals, "every 400 of a model call went to the reactive tier");
  assert.ok(tiers.has("reactive"), "the reactive tier ran");
  assert.ok(log.summaries >= 1, "summaries were asked through the SDK");
  assert.ok(decisionsWithEdits >= 1 && log.sawEdits === decisionsWithEdits, `edits sent ${log.sawEdits}, decided ${decisionsWithEdits}`);
  assert.ok(log.betas.has(BETA_CONTEXT_MANAGEMENT), "the beta header reached the API");
  for (const tier of ["budgetReduction", "microcompact", "snip", "collapse", "compact", "reactive"]) {
    assert.ok(tiers.has(tier), `tier ${tier} fired (seen: ${[...tiers].join(", ")})`);
  }
  console.log(
    `calls ${log.calls}, summaries ${log.summaries}, 400s ${log.refused} (${summaryTooLong} of summary requests), reactive ${reactiveAfter400}, paste ${pasteChars} chars, edits sent ${log.sawEdits}, betas ${[...log.betas].join(",") || "none"}; tiers ${[...tiers].join(", ")}`,
  );
});
