// A persisted CompactionRecord comes back from the app's store as plain
// JSON: prepareStep checks it before trusting it (issue 27/28). A malformed
// one is INVALID_ARGUMENT naming the field, never a TypeError thrown deep in
// a step; a good one is taken as before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MockLanguageModelV3 } from "ai/test";
import { prepareStep } from "context-compaction/ai-sdk";

const model = () =>
  new MockLanguageModelV3({
    doGenerate: async () => ({
      content: [{ type: "text", text: "<summary>s</summary>" }],
      finishReason: { unified: "stop", raw: undefined },
      usage: { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
      warnings: [],
    }),
  });

const good = { messages: [{ role: "user", content: "summary of the first turns" }], cut: 2, tokens: 120, at: "2026-12-03T12:00:00Z" };
const history = [
  { role: "user", content: "first" },
  { role: "assistant", content: "ok" },
  { role: "user", content: "and now?" },
];

const BAD = [
  ["not an object", "record"],
  [[good], "record"],
  [{ ...good, messages: "summary" }, "record.messages"],
  [{ ...good, messages: undefined }, "record.messages"],
  [{ ...good, messages: [null] }, "record.messages[0]"],
  [{ ...good, messages: [{ content: "no role" }] }, "record.messages[0]"],
  [{ ...good, cut: "2" }, "record.cut"],
  [{ ...good, cut: -1 }, "record.cut"],
  [{ ...good, cut: 1.5 }, "record.cut"],
  [{ ...good, tokens: "many" }, "record.tokens"],
  [{ ...good, at: 5 }, "record.at"],
];

for (const [record, field] of BAD) {
  test(`a record with a bad ${field} is INVALID_ARGUMENT naming it (${JSON.stringify(record)?.slice(0, 40)})`, async () => {
    assert.throws(() => prepareStep({ record }), (e) => e instanceof Error && e.code === "INVALID_ARGUMENT" && e.field === field);
    // Given per conversation, the step that opens it rejects with it.
    const step = prepareStep({ record: (id) => (id === "c1" ? record : undefined), conversationId: () => "c1" });
    await assert.rejects(async () => step({ messages: history, stepNumber: 0, steps: [], model: model() }), (e) => e.code === "INVALID_ARGUMENT" && e.field === field);
  });
}

test("a good record, null and undefined are taken", async () => {
  for (const record of [good, null, undefined]) {
    const step = prepareStep({ record, host: { precompute: false } });
    const out = await step({ messages: history, stepNumber: 0, steps: [], model: model() });
    const text = JSON.stringify(out?.messages ?? history);
    assert.equal(text.includes("summary of the first turns"), record === good, JSON.stringify(record));
  }
});
