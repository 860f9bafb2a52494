// A stand-in for the Anthropic Messages API (POST /v1/messages) as a route's
// SDKs reach it (`@ai-sdk/anthropic`, `@anthropic-ai/sdk`, streamed or not):
// it counts about 10 % more than chars/4 of what it is sent, as the real
// tokenizer does on code and JSON, and answers what does not fit with the
// API's real 400s: "prompt is too long: N tokens > M maximum", and "input
// length and `max_tokens` exceed context limit: I + M > L". A summary
// request (the engine's prompt, "CRITICAL: Respond with TEXT ONLY") is
// counted apart and answered with a summary; any other request with a short
// reply. It is not a test file: node --test runs only `*.test.mjs` here.

const SUMMARY = "CRITICAL: Respond with TEXT ONLY";

/** The stand-in's count: chars/4 of system, messages and tools, plus 10 %. */
export const apiCount = (body) =>
  Math.ceil(((JSON.stringify(body.system ?? "").length + JSON.stringify(body.messages).length + JSON.stringify(body.tools ?? []).length) / 4) * 1.1);

const lastText = (body) => {
  const content = body.messages.at(-1)?.content;
  return typeof content === "string" ? content : (content ?? []).map((b) => b.text ?? "").join("\n");
};

/** `windowApi({ window })`: `{ fetch, log }`; `log` counts main calls,
 * summary calls, refusals (their messages), and the largest request. */
export function windowApi({ window = 200_000 } = {}) {
  const log = { calls: 0, summaries: 0, refusals: [], largest: 0 };
  const fetch = async (_url, init) => {
    const body = JSON.parse(init.body);
    const id = `req_${log.calls + log.summaries + log.refusals.length}`;
    const headers = { "content-type": "application/json", "request-id": id };
    const tokens = apiCount(body);
    const refuse = (message) => {
      log.refusals.push(message);
      return new Response(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message }, request_id: id }), { status: 400, headers });
    };
    if (tokens > window) return refuse(`prompt is too long: ${tokens} tokens > ${window} maximum`);
    if (tokens + body.max_tokens > window) {
      return refuse(`input length and \`max_tokens\` exceed context limit: ${tokens} + ${body.max_tokens} > ${window}, decrease input length or \`max_tokens\` and try again`);
    }
    log.largest = Math.max(log.largest, tokens);
    const summary = lastText(body).includes(SUMMARY);
    if (summary) log.summaries++;
    else log.calls++;
    const text = summary ? `<summary>The work so far, in ${body.messages.length} messages: files read, checks green.</summary>` : `Read it (${log.calls}).`;
    const usage = { input_tokens: tokens, output_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    if (!body.stream) {
      const message = { id: `msg_${id}`, type: "message", role: "assistant", model: body.model, content: [{ type: "text", text }], stop_reason: "end_turn", stop_sequence: null, usage };
      return new Response(JSON.stringify(message), { status: 200, headers });
    }
    const events = [
      ["message_start", { type: "message_start", message: { id: `msg_${id}`, type: "message", role: "assistant", model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }],
      ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }],
      ["content_block_stop", { type: "content_block_stop", index: 0 }],
      ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 12 } }],
      ["message_stop", { type: "message_stop" }],
    ];
    const sse = events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join("");
    return new Response(sse, { status: 200, headers: { ...headers, "content-type": "text/event-stream" } });
  };
  return { fetch, log };
}
