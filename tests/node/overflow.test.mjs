// isPromptTooLong / promptTooLongTokens (SPEC R8.1) on the errors real
// clients throw: @anthropic-ai/sdk's and openai's own error classes, made
// the way the SDKs make them (the client over a fetch that answers with the
// API's error body, and the classes' own `generate`), and the count
// recalibrated by the size the error states.
import { test } from "node:test";
import assert from "node:assert/strict";

import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { APICallError, generateText } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { Engine, isPromptTooLong, promptTooLongTokens } from "context-compaction";

/** An Anthropic client whose fetch answers every call with `status` and `body`. */
function anthropicAnswering(status, body) {
  return new Anthropic({
    apiKey: "sk-ant-test",
    maxRetries: 0,
    fetch: async () =>
      new Response(JSON.stringify(body), {
        status,
        headers: { "content-type": "application/json", "request-id": "req_011CTest" },
      }),
  });
}

/** What `client.beta.messages.create` throws when the API answers `status` / `body`. */
async function anthropicError(status, body) {
  const client = anthropicAnswering(status, body);
  try {
    await client.beta.messages.create({ model: "claude-sonnet-4-5", max_tokens: 1024, messages: [{ role: "user", content: "hi" }] });
  } catch (e) {
    return e;
  }
  assert.fail("the call should have thrown");
}

const anthropicBody = (type, message) => ({ type: "error", error: { type, message }, request_id: "req_011CTest" });

/** What the openai client throws when the API answers `status` / `body`. */
async function openaiError(status, body) {
  const client = new OpenAI({
    apiKey: "sk-test",
    maxRetries: 0,
    fetch: async () => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } }),
  });
  try {
    await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] });
  } catch (e) {
    return e;
  }
  assert.fail("the call should have thrown");
}

test("the Anthropic API's 400 'prompt is too long', as the SDK throws it", async () => {
  const e = await anthropicError(400, anthropicBody("invalid_request_error", "prompt is too long: 236175 tokens > 200000 maximum"));
  assert.ok(e instanceof Anthropic.BadRequestError, e.constructor.name);
  assert.equal(e.status, 400);
  assert.equal(isPromptTooLong(e), true);
  assert.equal(promptTooLongTokens(e), 236175);
  // The same error built by the SDK's own factory, and the base class.
  const generated = Anthropic.APIError.generate(
    400,
    anthropicBody("invalid_request_error", "prompt is too long: 201337 tokens > 200000 maximum"),
    undefined,
    new Headers({ "request-id": "req_2" }),
  );
  assert.ok(generated instanceof Anthropic.BadRequestError);
  assert.equal(isPromptTooLong(generated), true);
  assert.equal(promptTooLongTokens(generated), 201337);
  const base = new Anthropic.APIError(400, anthropicBody("invalid_request_error", "prompt is too long: 5 tokens > 4 maximum"), undefined, new Headers());
  assert.equal(promptTooLongTokens(base), 5);
});

test("Claude Code's 413 prompt_too_long; a 413 request_too_large is not one", async () => {
  const cc = await anthropicError(413, anthropicBody("prompt_too_long", "Prompt is too long"));
  assert.equal(cc.status, 413);
  assert.equal(isPromptTooLong(cc), true);
  assert.equal(promptTooLongTokens(cc), null, "no size stated");
  const large = await anthropicError(413, anthropicBody("request_too_large", "Request exceeds the maximum allowed number of bytes."));
  assert.equal(isPromptTooLong(large), false);
});

test("a reply that stopped at model_context_window_exceeded", () => {
  const reply = {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content: [{ type: "text", text: "partial" }],
    stop_reason: "model_context_window_exceeded",
    stop_sequence: null,
    usage: { input_tokens: 198_000, output_tokens: 2_000, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
  assert.equal(isPromptTooLong(reply), true);
  assert.equal(isPromptTooLong({ ...reply, stop_reason: "end_turn" }), false);
  assert.equal(isPromptTooLong({ ...reply, stop_reason: "max_tokens" }), false);
});

test("OpenAI's context_length_exceeded, as the openai package throws it", async () => {
  const e = await openaiError(400, {
    error: {
      message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.",
      type: "invalid_request_error",
      param: "messages",
      code: "context_length_exceeded",
    },
  });
  assert.ok(e instanceof OpenAI.BadRequestError, e.constructor.name);
  assert.equal(e.code, "context_length_exceeded");
  assert.equal(isPromptTooLong(e), true);
  assert.equal(promptTooLongTokens(e), 130532);
  const other = await openaiError(400, { error: { message: "Invalid value for 'temperature'.", type: "invalid_request_error", param: "temperature", code: "invalid_value" } });
  assert.equal(isPromptTooLong(other), false);
});

/** A fetch that answers every call with `status` and `body`. */
const answering = (status, body) => async () =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** What the AI SDK's `generateText` throws when the server answers `status` / `body`. */
async function aiSdkError(model) {
  try {
    await generateText({ model, prompt: "hi", maxRetries: 0 });
  } catch (e) {
    return e;
  }
  assert.fail("the call should have thrown");
}

// The bodies local OpenAI-compatible servers answer an overflow with.
const vllmBody = (message) => ({ object: "error", error: { message, type: "BadRequestError", param: null, code: 400 } });
const VLLM = "This model's maximum context length is 8192 tokens. However, your request has 9000 input tokens. Please reduce the length of the input messages.";
const llamaBody = {
  error: {
    code: 400,
    message: "request (9000 tokens) exceeds the available context size (8192 tokens)",
    type: "exceed_context_size_error",
    n_prompt_tokens: 9000,
    n_ctx: 8192,
  },
};

test("local servers' overflow (vLLM, llama.cpp), as the openai package throws it", async () => {
  for (const body of [vllmBody(VLLM), llamaBody]) {
    const e = await openaiError(400, body);
    assert.ok(e instanceof OpenAI.BadRequestError, e.constructor.name);
    assert.equal(isPromptTooLong(e), true, e.message);
    assert.equal(promptTooLongTokens(e), 9000);
  }
  const older = await openaiError(400, { error: { code: 400, message: "the request exceeds the available context size, try increasing it", type: "exceed_context_size_error" } });
  assert.equal(isPromptTooLong(older), true);
  assert.equal(promptTooLongTokens(older), null, "no size stated");
  // max_tokens alone is the whole window: no shorter prompt fits, so not one.
  const whole = await openaiError(400, vllmBody("'max_tokens' or 'max_completion_tokens' is too large: 8192. This model's maximum context length is 8192 tokens and your request has 12 input tokens (8192 > 8192 - 12)."));
  assert.equal(isPromptTooLong(whole), false);
  const other = await openaiError(400, vllmBody("[{'type': 'missing', 'loc': ('body', 'messages')}]"));
  assert.equal(isPromptTooLong(other), false);
});

test("the AI SDK's APICallError (statusCode, data.error) from @ai-sdk/openai-compatible and @ai-sdk/anthropic", async () => {
  const local = (body) => createOpenAICompatible({ name: "local", baseURL: "http://127.0.0.1:8080/v1", fetch: answering(400, body) })("qwen3");
  for (const body of [vllmBody(VLLM), llamaBody]) {
    const e = await aiSdkError(local(body));
    assert.ok(APICallError.isInstance(e), e?.constructor?.name);
    assert.equal(e.statusCode, 400);
    assert.equal(e.status, undefined, "the AI SDK has no `status`");
    assert.equal(isPromptTooLong(e), true, e.message);
    assert.equal(promptTooLongTokens(e), 9000);
  }
  const openaiCode = await aiSdkError(local({ error: { message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens.", type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } }));
  assert.equal(isPromptTooLong(openaiCode), true);
  assert.equal(promptTooLongTokens(openaiCode), 130532);
  const anthropic = createAnthropic({ apiKey: "sk-ant-test", fetch: answering(400, anthropicBody("invalid_request_error", "prompt is too long: 236175 tokens > 200000 maximum")) })("claude-sonnet-4-5");
  const e = await aiSdkError(anthropic);
  assert.ok(APICallError.isInstance(e));
  assert.equal(isPromptTooLong(e), true, e.message);
  assert.equal(promptTooLongTokens(e), 236175);
  const rejected = await aiSdkError(local({ error: { message: "Invalid value for 'temperature'.", type: "invalid_request_error", code: "invalid_value" } }));
  assert.ok(APICallError.isInstance(rejected));
  assert.equal(isPromptTooLong(rejected), false);
  const limited = await aiSdkError(createAnthropic({ apiKey: "k", fetch: answering(429, anthropicBody("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit")) })("claude-sonnet-4-5"));
  assert.equal(isPromptTooLong(limited), false);
  // The status and the type come from the AI SDK's own fields: the same
  // words under a 401 or a `request_too_large` are not a prompt-too-long.
  for (const [status, type] of [[401, "authentication_error"], [413, "request_too_large"]]) {
    const e = await aiSdkError(createAnthropic({ apiKey: "k", fetch: answering(status, anthropicBody(type, "prompt is too long: 5 tokens > 4 maximum")) })("claude-sonnet-4-5"));
    assert.equal(e.statusCode, status);
    assert.equal(isPromptTooLong(e), false, `${status} ${type}`);
  }
});

test("everything else is not a prompt-too-long", async () => {
  const others = [
    await anthropicError(400, anthropicBody("invalid_request_error", "messages.1: roles must alternate between \"user\" and \"assistant\"")),
    await anthropicError(400, anthropicBody("invalid_request_error", "max_tokens: 64001 > 64000, which is the maximum allowed number of output tokens")),
    await anthropicError(401, anthropicBody("authentication_error", "invalid x-api-key")),
    await anthropicError(404, anthropicBody("not_found_error", "model: claude-nonexistent")),
    await anthropicError(429, anthropicBody("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit")),
    await anthropicError(529, anthropicBody("overloaded_error", "Overloaded")),
    new Anthropic.APIConnectionError({ message: "Connection error." }),
    new Error("fetch failed"),
    new TypeError("Cannot read properties of undefined"),
    // The engine's own SUMMARIZER_FAILED is not followed: a failed summary request is not the main call's overflow
    // (other wrappers are: overflow-forms.test.mjs).
    Object.assign(new Error("summary failed", { cause: { status: 400, type: "invalid_request_error", message: "prompt is too long: 5 tokens > 4 maximum" } }), { code: "SUMMARIZER_FAILED" }),
    "prompt is too long: 5 tokens > 4 maximum",
    400,
    null,
    undefined,
    {},
    [],
  ];
  for (const e of others) {
    assert.equal(isPromptTooLong(e), false, String(e?.message ?? e));
    assert.equal(promptTooLongTokens(e), null);
  }
});

test("promptTooLong(tokens): the count becomes the size the API stated (R8.1), then the reactive tier runs", async () => {
  const engine = new Engine({ preset: "client-2.1", window: 200_000, maxOutputTokens: 32_000 });
  for (let i = 0; i < 20; i++) {
    engine.append({ role: "user", content: `step ${i}` });
    engine.append({ role: "assistant", content: "w".repeat(4_000) });
  }
  const estimated = engine.count().tokens;
  assert.ok(estimated < 30_000, `${estimated}`);
  const e = await anthropicError(400, anthropicBody("invalid_request_error", "prompt is too long: 236175 tokens > 200000 maximum"));
  assert.ok(isPromptTooLong(e));
  const outcome = engine.promptTooLong(promptTooLongTokens(e));
  assert.equal(outcome.steps[0].rule, "R8.1");
  assert.match(outcome.steps[0].reason, /236175/);
  assert.equal(outcome.requests[0].kind, "preCompact", "client-2.1 has no collapse: the emergency compaction, its hook first");
  assert.equal(engine.count().tokens, 236_175);
  assert.equal(engine.count().basis, "reportedPlusEstimate");
  // No size stated: the count stays the engine's.
  const other = new Engine("client-2.1");
  other.append({ role: "user", content: "hi" });
  const before = other.count().tokens;
  other.promptTooLong(null);
  assert.equal(other.count().tokens, before);
});

for (const bad of [0, -1, 1.5, NaN, Infinity, "236175", {}, 2 ** 53]) {
  test(`promptTooLong(${typeof bad === "string" ? JSON.stringify(bad) : String(bad)}) is INVALID_ARGUMENT naming tokens; nothing changes`, () => {
    const engine = new Engine("seed");
    engine.append({ role: "user", content: "hi" });
    assert.throws(
      () => engine.promptTooLong(bad),
      (e) => e instanceof Error && e.code === "INVALID_ARGUMENT" && e.field === "tokens",
    );
    assert.ok(Array.isArray(engine.promptTooLong().requests), "the engine still works");
  });
}

test("isPromptTooLong reads an error's fields in JS without throwing, and both entries agree", async () => {
  const formats = await import("context-compaction/formats");
  const web = await import("context-compaction/web");
  const both = (error) => {
    const here = [isPromptTooLong(error), promptTooLongTokens(error)];
    assert.deepEqual([formats.isPromptTooLong(error), formats.promptTooLongTokens(error)], here, "formats entry");
    return here;
  };
  const message = "prompt is too long: 236175 tokens > 200000 maximum";
  const body = { type: "error", error: { type: "invalid_request_error", message } };
  assert.deepEqual(both({ status: 400, error: body }), [true, 236175]);
  // Not objects, or nothing read: false and null.
  for (const value of [undefined, null, 400, message, true, () => message]) {
    assert.deepEqual(both(value), [false, null], String(value));
  }
  // A getter or Proxy trap that throws reads as nothing; the other fields still count.
  const getter = { status: 400, error: body };
  Object.defineProperty(getter, "type", { get: () => { throw new Error("no"); } });
  assert.deepEqual(both(getter), [true, 236175]);
  const trap = new Proxy({}, { get: () => { throw new Error("trap"); } });
  assert.deepEqual(both(trap), [false, null]);
  assert.deepEqual(both({ status: 400, error: trap, message }), [true, 236175]);
  // A status that is not a whole HTTP status is none (Anthropic's wording then counts under any).
  assert.deepEqual(both({ status: 400.5, type: "invalid_request_error", message }), [true, 236175]);
  assert.deepEqual(both({ status: 500, type: "invalid_request_error", message }), [false, null]);
  assert.deepEqual(both({ status: 500, statusCode: 400, type: "invalid_request_error", message }), [false, null]);
  // A size found in what it wraps wins over none outside; 16 values at most.
  assert.deepEqual(both({ name: "ContextOverflowError", cause: { status: 400, error: body } }), [true, 236175]);
  let chain = { status: 400, error: body };
  for (let i = 0; i < 15; i++) chain = { cause: chain };
  assert.deepEqual(both(chain), [true, 236175]);
  assert.deepEqual(both({ cause: chain }), [false, null], "the 17th value is not read");
  // The AI SDK's response body as text, only when no parsed `data`.
  const text = JSON.stringify({ object: "error", message: "This model's maximum context length is 8192 tokens. However, your request has 9000 input tokens." });
  assert.deepEqual(both({ statusCode: 400, responseBody: text }), [true, 9000]);
  assert.deepEqual(both({ statusCode: 400, responseBody: text, data: {} }), [false, null]);
  assert.equal(typeof web.isPromptTooLong, "function");
});
