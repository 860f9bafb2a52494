// On-demand server compaction (SPEC R13.2, beta compact-2026-09-04) through
// the real @anthropic-ai/sdk client and the stand-in Messages API of
// ./fake-anthropic.mjs, which refuses `compaction` without its beta or
// together with `context_management`, as the API does (R13.4).
import { test } from "node:test";
import assert from "node:assert/strict";

import Anthropic from "@anthropic-ai/sdk";
import { Engine } from "context-compaction";
import { BETA_COMPACT_ON_DEMAND, BETA_CONTEXT_MANAGEMENT, fakeApi } from "./fake-anthropic.mjs";

const MODEL = "claude-sonnet-4-6";

function history(engine, turns) {
  for (let n = 0; n < turns; n++) {
    engine.append({ role: "user", content: `step ${n}: read the next file` });
    engine.append({ role: "assistant", content: [{ type: "tool_use", id: `toolu_${n}`, name: "Read", input: { file_path: `src/f${n}.rs` } }] });
    engine.append({ role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${n}`, content: "x".repeat(2_000) }] });
    engine.append({ role: "assistant", content: `read f${n}` });
  }
}

test("compactionRequest: its own request, never with context_management; the block it returns starts the view", async () => {
  const { fetch, log } = fakeApi({
    reply: () => [{ type: "text", text: "ok", citations: null }],
    summary: () => "unused",
    isSummary: () => false,
  });
  const client = new Anthropic({ apiKey: "sk-ant-test", maxRetries: 0, fetch });
  const engine = new Engine({ preset: "seed", window: 200_000, maxOutputTokens: 8_192, model: MODEL });
  history(engine, 60);
  const decision = engine.beforeCall();
  assert.ok(decision.contextManagement, "the call itself clears tool results on the server");
  assert.ok(decision.betas.includes(BETA_CONTEXT_MANAGEMENT));

  const request = engine.compactionRequest("Keep ticket ids.");
  assert.deepEqual(request.compaction, { type: "summarize", instructions: "Keep ticket ids." });
  assert.deepEqual(request.betas, [BETA_COMPACT_ON_DEMAND]);
  assert.deepEqual(request.summarised, engine.view().map((m) => m.uuid));
  assert.deepEqual(engine.compactionRequest().compaction, { type: "summarize" });

  // Sent together with the call's context_management, the API refuses it.
  await assert.rejects(
    client.beta.messages.create({
      model: MODEL,
      max_tokens: 8_192,
      messages: engine.messages(),
      compaction: request.compaction,
      context_management: decision.contextManagement ?? undefined,
      betas: [...new Set([...request.betas, ...decision.betas])],
    }),
    (e) => e.status === 400 && /cannot be combined/.test(e.message),
  );
  const reply = await client.beta.messages.create({
    model: MODEL,
    max_tokens: 8_192,
    messages: engine.messages(),
    compaction: request.compaction,
    betas: request.betas,
  });
  assert.equal(reply.stop_reason, "compaction");
  assert.equal(log.compactions, 1);
  const block = reply.content.find((b) => b.type === "compaction");
  const out = engine.swapInSummary(request.summarised, block);
  assert.equal(out.compaction.kind, "compacted", JSON.stringify(out.steps));
  assert.equal(engine.view().length, 1);
  assert.deepEqual(engine.messages()[0].content, [block], "the block byte for byte, nothing after it");
  const next = engine.beforeCall();
  assert.ok(next.betas.includes("compact-2026-01-12"), `${next.betas}`);
  assert.ok(next.count.tokens < 1_000, `${next.count.tokens}`);

  // A view that ends with an unanswered tool call cannot be compacted.
  engine.append({ role: "assistant", content: [{ type: "tool_use", id: "toolu_x", name: "Read", input: {} }] });
  assert.equal(engine.compactionRequest(), null);
  assert.throws(() => engine.compactionRequest(5), (e) => e.code === "INVALID_ARGUMENT" && e.field === "instructions");
});
