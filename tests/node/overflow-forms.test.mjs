// isPromptTooLong / promptTooLongTokens over every overflow refusal the
// package recognises (SPEC R8.1), each one made by a real client from the
// server's real 400 body, then read directly and through every wrapper a host
// meets: an `Error` with `{ cause }`, LangChain's `ContextOverflowError`
// (`ContextOverflowError.fromError`, what `@langchain/openai` and
// `@langchain/anthropic` throw), and the AI SDK's `RetryError` (a 429, then
// the refusal), whose `lastError` and `errors` hold the refusal.
//
// Where each body comes from:
// - Anthropic "prompt is too long": the Messages API's 400 (README, R8.1).
// - Anthropic "input length and `max_tokens` exceed context limit": the API's
//   400 as users reported it (anthropics/claude-code#408,
//   docker/docker-agent#569: `{"type":"error","error":{"type":
//   "invalid_request_error","message":"input length and `max_tokens` exceed
//   context limit: 178959 + 64000 > 200000, decrease input length or
//   `max_tokens` and try again"},"request_id":…}`).
// - OpenAI `context_length_exceeded`: the Chat Completions 400.
// - vLLM: `ErrorResponse` (vllm/entrypoints/openai/protocol.py): today
//   `{"error": {message, type: "BadRequestError", param, code: 400}}`,
//   before `{"object": "error", message, type, param, code}`.
// - llama.cpp's server: `exceed_context_size_error` with `n_prompt_tokens`.
// - Ollama (ollama/ollama at fb30760): its llama-server runner's 400 "the
//   prompt is longer than the context length currently available to the
//   model; …" (llm/llama_server.go), its MLX runner's 400 "input length (N
//   tokens) exceeds the model's maximum context length (M tokens)"
//   (x/mlxrunner/pipeline.go), both in its OpenAI-compatible envelope
//   (openai/openai.go `NewError`: `{"error": {message, type:
//   "invalid_request_error", param: null, code: null}}`).
import { test } from "node:test";
import assert from "node:assert/strict";

import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { APICallError, RetryError, generateText } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { ContextOverflowError } from "@langchain/core/errors";
import { Engine, isPromptTooLong, promptTooLongTokens } from "context-compaction";
import { isPromptTooLong as isPromptTooLongFormats } from "context-compaction/ai-sdk";

const anthropicBody = (message) => ({ type: "error", error: { type: "invalid_request_error", message }, request_id: "req_011CTest" });
const openaiBody = (message, code) => ({ error: { message, type: "invalid_request_error", param: "messages", code } });
const vllmBody = (message) => ({ error: { message, type: "BadRequestError", param: null, code: 400 } });
const vllmOldBody = (message) => ({ object: "error", message, type: "BadRequestError", param: null, code: 400 });
const ollamaBody = (message) => ({ error: { message, type: "invalid_request_error", param: null, code: null } });

const FORMS = [
  { name: "Anthropic prompt is too long", api: "anthropic", body: anthropicBody("prompt is too long: 236175 tokens > 200000 maximum"), tokens: 236175 },
  {
    name: "Anthropic input length and max_tokens",
    api: "anthropic",
    body: anthropicBody("input length and `max_tokens` exceed context limit: 188000 + 32000 > 200000, decrease input length or `max_tokens` and try again"),
    tokens: 188000,
  },
  {
    name: "OpenAI context_length_exceeded",
    api: "openai",
    body: openaiBody("This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.", "context_length_exceeded"),
    tokens: 130532,
  },
  {
    name: "vLLM",
    api: "openai",
    body: vllmBody("This model's maximum context length is 8192 tokens. However, your request has 9000 input tokens. Please reduce the length of the input messages."),
    tokens: 9000,
  },
  {
    name: "vLLM, the older top-level body",
    api: "openai",
    body: vllmOldBody("This model's maximum context length is 8192 tokens. However, you requested 1024 output tokens and your prompt contains at least 8193 input tokens, for a total of at least 9217 tokens. Please reduce the length of the input prompt or the number of requested output tokens."),
    tokens: 8193,
  },
  {
    name: "llama.cpp",
    api: "openai",
    body: { error: { code: 400, message: "request (9000 tokens) exceeds the available context size (8192 tokens)", type: "exceed_context_size_error", n_prompt_tokens: 9000, n_ctx: 8192 } },
    tokens: 9000,
  },
  {
    name: "Ollama (llama-server runner)",
    api: "openai",
    body: ollamaBody("the prompt is longer than the context length currently available to the model; shorten the prompt, adjust the context length in settings, or use a model with a longer context length"),
    tokens: null,
  },
  {
    name: "Ollama (MLX runner)",
    api: "openai",
    body: ollamaBody("input length (9000 tokens) exceeds the model's maximum context length (8192 tokens)"),
    tokens: 9000,
  },
];

/** A fetch that answers each call with the next of `answers` ([status, body]). */
function answering(...answers) {
  let i = 0;
  return async () => {
    const [status, body] = answers[Math.min(i++, answers.length - 1)];
    return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "request-id": "req_011CTest" } });
  };
}

async function rejection(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail("the call should have thrown");
}

/** What the vendor's own SDK throws for the form. */
function sdkError(form) {
  const fetch = answering([400, form.body]);
  if (form.api === "anthropic") {
    const client = new Anthropic({ apiKey: "sk-ant-test", maxRetries: 0, fetch });
    return rejection(client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 1024, messages: [{ role: "user", content: "hi" }] }));
  }
  const client = new OpenAI({ apiKey: "sk-test", baseURL: "http://127.0.0.1:8080/v1", maxRetries: 0, fetch });
  return rejection(client.chat.completions.create({ model: "local", messages: [{ role: "user", content: "hi" }] }));
}

/** An AI SDK model for the form, answering with `answers`. */
function aiSdkModel(form, ...answers) {
  const fetch = answering(...answers);
  return form.api === "anthropic"
    ? createAnthropic({ apiKey: "sk-ant-test", fetch })("claude-sonnet-4-6")
    : createOpenAICompatible({ name: "local", baseURL: "http://127.0.0.1:8080/v1", fetch })("qwen3");
}

/** Every way the form reaches a host, by name. */
async function carriers(form) {
  const out = [];
  out.push(["the vendor SDK's error", await sdkError(form)]);
  const apiCall = await rejection(generateText({ model: aiSdkModel(form, [400, form.body]), prompt: "hi", maxRetries: 0 }));
  assert.ok(APICallError.isInstance(apiCall), apiCall?.constructor?.name);
  out.push(["the AI SDK's APICallError", apiCall]);
  // A 429 first, retried, then the refusal: the AI SDK's RetryError.
  const limited = form.api === "anthropic"
    ? { type: "error", error: { type: "rate_limit_error", message: "Number of request tokens has exceeded your per-minute rate limit" } }
    : { error: { message: "Rate limit reached", type: "requests", param: null, code: "rate_limit_exceeded" } };
  const retry = await rejection(
    generateText({ model: aiSdkModel(form, [429, limited], [400, form.body]), prompt: "hi", maxRetries: 1, headers: { "retry-after-ms": "0" } }),
  );
  assert.ok(RetryError.isInstance(retry), `${retry?.constructor?.name}: ${retry?.message}`);
  assert.equal(retry.errors.length, 2);
  out.push(["the AI SDK's RetryError", retry]);
  for (const [name, inner] of [...out]) {
    out.push([`ContextOverflowError.fromError(${name})`, ContextOverflowError.fromError(inner)]);
    out.push([`new Error(…, { cause: ${name} })`, new Error("the model call failed", { cause: inner })]);
  }
  return out;
}

for (const form of FORMS) {
  test(`${form.name}: recognised with its size, directly and wrapped`, async () => {
    for (const [how, error] of await carriers(form)) {
      assert.equal(isPromptTooLong(error), true, `${how}: ${error.message}`);
      assert.equal(isPromptTooLongFormats(error), true, `${how} (formats module)`);
      assert.equal(promptTooLongTokens(error), form.tokens, how);
    }
  });
}

test("not one, however wrapped: other 400s, rate limits, max_tokens alone over the window", async () => {
  const others = [
    { api: "anthropic", body: anthropicBody("messages.1: roles must alternate between \"user\" and \"assistant\"") },
    // max_tokens alone is the whole window: no shorter prompt fits.
    { api: "anthropic", body: anthropicBody("input length and `max_tokens` exceed context limit: 12 + 200000 > 200000, decrease input length or `max_tokens` and try again") },
    { api: "openai", body: vllmBody("'max_tokens' or 'max_completion_tokens' is too large: 8192. This model's maximum context length is 8192 tokens and your request has 12 input tokens (8192 > 8192 - 12).") },
    { api: "openai", body: openaiBody("Invalid value for 'temperature'.", "invalid_value") },
  ];
  for (const form of others) {
    for (const [how, error] of await carriers(form)) {
      if (how.startsWith("ContextOverflowError")) continue; // LangChain's class says overflow by itself
      assert.equal(isPromptTooLong(error), false, `${how}: ${error.message}`);
      assert.equal(promptTooLongTokens(error), null, how);
    }
  }
  // A LangChain ContextOverflowError is one by its class, even with no size.
  const bare = new ContextOverflowError();
  assert.equal(isPromptTooLong(bare), true);
  assert.equal(promptTooLongTokens(bare), null);
  // A cause loop ends.
  const loop = new Error("outer");
  loop.cause = loop;
  assert.equal(isPromptTooLong(loop), false);
});

test("a summary the engine's prepare() failed on is not the main call's overflow (SUMMARIZER_FAILED is not followed)", async () => {
  const engine = new Engine({ preset: "client-2.1", window: 200_000, maxOutputTokens: 20_000 });
  // Over the compact line: the compaction's summary fails (a precompute's
  // failure, in the background, would fail no call).
  for (let i = 0; engine.count().tokens < engine.lines().compact; i++) {
    engine.append({ role: "user", content: `step ${i}` });
    engine.append({ role: "assistant", content: "w".repeat(20_000) });
  }
  const refusal = await sdkError(FORMS[0]);
  const failed = await rejection(
    engine.prepare({
      summarize: () => {
        throw refusal;
      },
    }),
  );
  assert.equal(failed.code, "SUMMARIZER_FAILED", failed.message);
  assert.equal(failed.cause, refusal);
  assert.equal(isPromptTooLong(failed), false);
  assert.equal(isPromptTooLong(new Error("the turn failed", { cause: failed })), false);
  engine.free();
});
