// Reported usage in every provider format, through the packed package:
// `append(reply, usage)` / `load(items, usage)` in the SDK's own shape make
// the count the reported prompt plus what came after (SPEC R1.6), a
// LangChain `ai` message's own `usage_metadata` is read as Anthropic's
// `usage` is, and a usage that is not one is refused naming its field,
// all or nothing, the engine still usable.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Engine } from "context-compaction/formats";
import { createEngine } from "context-compaction/ai-sdk";
import { chatEngine, responsesEngine } from "context-compaction/openai";
import { langchainEngine } from "context-compaction/langchain";
import { AIMessage, HumanMessage, mapChatMessagesToStoredMessages } from "@langchain/core/messages";

const REPORTED = 50_000;
const rejects = (f, code, field) =>
  assert.throws(f, (e) => {
    assert.ok(e instanceof Error);
    assert.equal(e.code, code, e.message);
    assert.equal(e.field, field, e.message);
    return true;
  });

test("each format's own usage shape anchors the count at the reported prompt (cached tokens inside it) plus the reply's output", () => {
  const cases = [
    [chatEngine(), { role: "assistant", content: "ok" }, { prompt_tokens: REPORTED, completion_tokens: 40, total_tokens: REPORTED + 40, prompt_tokens_details: { cached_tokens: 30_000 } }],
    [responsesEngine(), { type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "ok", annotations: [] }] }, { input_tokens: REPORTED, input_tokens_details: { cached_tokens: 0 }, output_tokens: 40, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: REPORTED + 40 }],
    [createEngine(), { role: "assistant", content: [{ type: "text", text: "ok" }] }, { inputTokens: REPORTED, inputTokenDetails: { noCacheTokens: 10_000, cacheReadTokens: 35_000, cacheWriteTokens: 5_000 }, outputTokens: 40, outputTokenDetails: { textTokens: 40, reasoningTokens: undefined }, totalTokens: REPORTED + 40 }],
    [new Engine({ format: "anthropic" }), { role: "assistant", content: "ok" }, { input_tokens: 10_000, cache_read_input_tokens: 40_000, output_tokens: 40 }],
  ];
  for (const [engine, reply, usage] of cases) {
    engine.append(reply, usage);
    const after = engine.count().tokens;
    assert.ok(after >= REPORTED + 40 && after < REPORTED + 100, `${after}`);
    engine.free();
  }
  // load(items, usage): the usage goes to the last assistant message.
  const chat = chatEngine();
  chat.load([{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }, { role: "user", content: "more" }], { prompt_tokens: REPORTED, completion_tokens: 2 });
  assert.ok(chat.count().tokens >= REPORTED);
  assert.equal(chat.view()[1].usage.input_tokens, REPORTED);
  chat.free();
});

test("a LangChain ai message's own usage_metadata is its reported usage", () => {
  const engine = langchainEngine();
  engine.load(mapChatMessagesToStoredMessages([
    new HumanMessage("hi"),
    new AIMessage({ content: "hello", usage_metadata: { input_tokens: REPORTED, output_tokens: 7, total_tokens: REPORTED + 7, input_token_details: { cache_read: 1_000 } } }),
  ]));
  assert.ok(engine.count().tokens >= REPORTED + 7);
  assert.deepEqual(engine.view()[1].usage, { input_tokens: REPORTED - 1_000, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 1_000 });
  const bad = mapChatMessagesToStoredMessages([new HumanMessage("x"), new AIMessage({ content: "y", usage_metadata: { input_tokens: 1.5, output_tokens: 1, total_tokens: 2 } })]);
  rejects(() => engine.load(bad), "INVALID_MESSAGE", "messages[1].data.usage_metadata.input_tokens");
  assert.equal(engine.view().length, 2, "nothing of the bad batch entered");
  engine.free();
});

test("a usage that is not one is INVALID_ARGUMENT naming its field; nothing is appended; the engine still works", () => {
  const chat = chatEngine();
  const reply = { role: "assistant", content: "ok" };
  for (const [usage, field] of [
    [{ prompt_tokens: 1.5 }, "usage.prompt_tokens"],
    [{ prompt_tokens: -1 }, "usage.prompt_tokens"],
    [{ prompt_tokens: "12" }, "usage.prompt_tokens"],
    [{ prompt_tokens: 2 ** 53 }, "usage.prompt_tokens"],
    [{ prompt_tokens: 10, prompt_tokens_details: { cached_tokens: 11 } }, "usage.prompt_tokens_details"],
    [{ prompt_tokens: 10, prompt_tokens_details: { cached_tokens: 0.5 } }, "usage.prompt_tokens_details.cached_tokens"],
    [42, "usage"],
  ]) {
    rejects(() => chat.append(reply, usage), "INVALID_ARGUMENT", field);
  }
  // No reply to carry it: refused, nothing loaded.
  rejects(() => chat.load([{ role: "user", content: "a" }, { role: "user", content: "b" }], { prompt_tokens: 5 }), "INVALID_ARGUMENT", "usage");
  rejects(() => chat.append({ role: "user", content: "a" }, { prompt_tokens: 5 }), "INVALID_ARGUMENT", "usage");
  assert.equal(chat.view().length, 0);
  // Undefined and null are no usage; a usage reporting nothing is none.
  chat.append({ role: "user", content: "a" }, undefined);
  chat.append(reply, null);
  chat.append(reply, {});
  assert.equal(chat.view().length, 3);
  assert.equal(chat.view()[2].usage ?? null, null, "a usage reporting nothing is none");
  chat.append(reply, { prompt_tokens: 9_000, completion_tokens: 3 });
  assert.ok(chat.count().tokens >= 9_003);
  const ai = createEngine();
  rejects(() => ai.append({ role: "assistant", content: "x" }, { inputTokens: 10, inputTokenDetails: { cacheReadTokens: -2 } }), "INVALID_ARGUMENT", "usage.inputTokenDetails.cacheReadTokens");
  ai.free();
  chat.free();
});
