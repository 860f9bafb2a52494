// A LangChain agent on @langchain/openai meets its first overflow (issue 28):
// the model's window is smaller than the one the engine was told, so a call
// is refused with OpenAI's real 400 (`context_length_exceeded`), which
// @langchain/openai wraps in its own error. `isPromptTooLong` sees through
// the wrapper, `promptTooLongTokens` reads the size, the engine compacts
// reactively and the agent goes on. The transport is a fake Chat
// Completions endpoint counting about 10 % over chars/4.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ChatOpenAI } from "@langchain/openai";
import { HumanMessage, AIMessage, mapChatMessagesToStoredMessages, mapStoredMessagesToChatMessages } from "@langchain/core/messages";
import { langchainEngine } from "context-compaction/langchain";
import { isPromptTooLong, promptTooLongTokens } from "context-compaction/formats";

const REAL_WINDOW = 8_192;

/** A Chat Completions endpoint with an 8,192-token window. */
function fakeOpenAI() {
  const calls = { ok: 0, refused: 0 };
  const fetch = async (_url, init) => {
    const body = JSON.parse(init.body);
    const tokens = Math.ceil((JSON.stringify(body.messages).length / 4) * 1.1);
    if (tokens > REAL_WINDOW) {
      calls.refused++;
      const error = {
        message: `This model's maximum context length is ${REAL_WINDOW} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      };
      return new Response(JSON.stringify({ error }), { status: 400, headers: { "content-type": "application/json" } });
    }
    calls.ok++;
    const completion = {
      id: `chatcmpl-${calls.ok}`,
      object: "chat.completion",
      created: 1_780_000_000,
      model: body.model,
      choices: [{ index: 0, message: { role: "assistant", content: `noted (${calls.ok})`, refusal: null }, logprobs: null, finish_reason: "stop" }],
      usage: { prompt_tokens: tokens, completion_tokens: 5, total_tokens: tokens + 5 },
    };
    return new Response(JSON.stringify(completion), { status: 200, headers: { "content-type": "application/json" } });
  };
  return { fetch, calls };
}

test("a LangChain agent recovers from @langchain/openai's wrapped context_length_exceeded", async () => {
  const { fetch, calls } = fakeOpenAI();
  const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "sk-test", maxRetries: 0, configuration: { fetch, baseURL: "http://fake.test/v1" } });
  // The engine is told a larger window than the model has: only the API knows.
  const engine = langchainEngine({ window: 16_000, maxOutputTokens: 1_000 });
  const summarize = async () => "The user pasted numbered log excerpts; each was acknowledged.";
  let recovered = 0;
  let wrapped = "";
  for (let turn = 1; turn <= 30; turn++) {
    engine.append(mapChatMessagesToStoredMessages([new HumanMessage(`excerpt ${turn}: ` + "log line with numbers 12345 67890\n".repeat(30))])[0]);
    let reply;
    for (let attempt = 0; attempt < 3 && reply === undefined; attempt++) {
      await engine.prepare({ summarize });
      try {
        reply = await model.invoke(mapStoredMessagesToChatMessages(engine.messages()));
      } catch (error) {
        wrapped ||= `${error.constructor.name} (cause: ${error.cause?.constructor?.name})`;
        assert.ok(isPromptTooLong(error), `not recognised: ${error.constructor.name}: ${error.message}`);
        const stated = promptTooLongTokens(error);
        assert.ok(stated > REAL_WINDOW, `the stated size: ${stated}`);
        engine.promptTooLong(stated);
        recovered++;
      }
    }
    assert.ok(reply, `turn ${turn}: no reply after the refusals`);
    const usage = reply.usage_metadata;
    engine.append(mapChatMessagesToStoredMessages([new AIMessage({ content: reply.content })])[0], usage);
  }
  console.log(`langchain-overflow: ${calls.ok} calls answered, ${calls.refused} refused and recovered (${recovered}); the error: ${wrapped}`);
  assert.ok(calls.refused >= 1, "the model's smaller window was met");
  assert.equal(recovered, calls.refused);
  engine.free();
});
