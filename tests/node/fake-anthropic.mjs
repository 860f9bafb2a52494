// A stand-in for the Anthropic Messages API behind the real
// @anthropic-ai/sdk client: a `fetch` that answers POST /v1/messages as the
// API does. Shared by the 300-call SDK loop and the TypeScript README loop.
// What it checks, as the API would refuse it (HTTP 400
// invalid_request_error): a prompt over the window by its own tokenizer
// ("prompt is too long: N tokens > M maximum"), `context_management`
// without its beta header, `compaction` (an on-demand compaction request)
// together with `context_management` or without its beta, and a
// tool_result that does not answer a tool_use in the message before it,
// and signed thinking (SPEC R13.1): when a request enables `thinking`, each
// reply starts with a thinking block signed over what came before it (the
// system prompt, the tools, the messages, the earlier blocks of its own
// message); a later request, summary requests included, that sends it back
// after any of that changed is refused ("Invalid `signature` in `thinking`
// block"), unless it carries `prefix_mismatch_behavior: "drop_block"`.
// It is not a test file: node --test runs only `*.test.mjs` here.

/** Beta header `context_management` needs. */
export const BETA_CONTEXT_MANAGEMENT = "context-management-2025-06-27";
/** Beta header of an on-demand compaction request (`compaction: {type: "summarize"}`). */
export const BETA_COMPACT_ON_DEMAND = "compact-2026-09-04";

import { createHash } from "node:crypto";

const CJK = /[\u3040-\u30ff\u4e00-\u9fff]/g;

/**
 * The stand-in's tokenizer: Latin text and JSON ~3.5 characters a token,
 * Hiragana, Katakana and Han 1.4 tokens a character (real tokenizers split
 * CJK finer than the engine's one-a-character estimate, R1.6a).
 */
export function apiTokens(body) {
  const text = JSON.stringify(body.messages) + JSON.stringify(body.system ?? "") + JSON.stringify(body.tools ?? []);
  const cjk = (text.match(CJK) ?? []).length;
  return Math.ceil((text.length - cjk) / 3.5 + cjk * 1.4);
}

/** Every tool_result answers a tool_use in the message just before it: how many do not. */
function brokenPairs(messages) {
  let broken = 0;
  messages.forEach((m, i) => {
    if (typeof m.content === "string" || !Array.isArray(m.content)) return;
    for (const b of m.content) {
      if (b.type !== "tool_result") continue;
      const prev = messages[i - 1];
      if (!(prev && Array.isArray(prev.content) && prev.content.some((u) => u.type === "tool_use" && u.id === b.tool_use_id))) broken += 1;
    }
  });
  return broken;
}

/** JSON with sorted keys and no nulls: the signed prefix as data, whatever the key order. */
function canonical(value) {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .filter((k) => value[k] !== null && value[k] !== undefined)
      .map((k) => [k, canonical(value[k])]),
  );
}

/** The signature the model gives a thinking block after `messages` and, in its own message, `blocks`. */
function signature(body, messages, blocks, thinking) {
  const prefix = { system: body.system ?? null, tools: body.tools ?? null, messages, blocks, thinking };
  return createHash("sha256").update(JSON.stringify(canonical(prefix))).digest("base64");
}

/** Where the API starts reading `messages`: the latest compaction block's message (R13.2), or 0. */
function readFrom(messages) {
  return Math.max(0, messages.findLastIndex((m) => Array.isArray(m.content) && m.content.some((b) => b.type === "compaction")));
}

/** The first thinking block of `body` not signed over its prefix, as the API's error says it, or null. */
function staleThinking(body) {
  const from = readFrom(body.messages);
  for (const [i, m] of body.messages.entries()) {
    if (i < from || !Array.isArray(m.content)) continue;
    for (const [j, b] of m.content.entries()) {
      if (b.type !== "thinking") continue;
      if (b.signature !== signature(body, body.messages.slice(from, i), m.content.slice(0, j), b.thinking)) {
        return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
      }
    }
  }
  return null;
}

/**
 * `fakeApi({ window, reply, summary, isSummary, count })`: `reply(body, i)`
 * gives the i-th model reply's content blocks, `summary(body)` the text of
 * a summary request's reply (a request is a summary request when
 * `isSummary(body)`); `count(body)` is the tokenizer (default `apiTokens`).
 * Returns `{ fetch, log }`; `log` counts calls, summaries, refusals (by
 * kind), on-demand compactions, the edits and betas it saw.
 */
export function fakeApi({ window = 200_000, reply, summary, isSummary, count = apiTokens }) {
  const log = {
    calls: 0,
    summaries: 0,
    compactions: 0,
    refused: 0,
    refusals: [],
    sawEdits: 0,
    betas: new Set(),
    pairsBroken: 0,
    lastTokens: 0,
    thinkingChecked: 0,
    thinkingInSummaries: 0,
  };
  let main = 0;
  const fetch = async (_url, init) => {
    const body = JSON.parse(init.body);
    const betas = new Set(
      (new Headers(init.headers).get("anthropic-beta") ?? "")
        .split(",")
        .map((b) => b.trim())
        .filter(Boolean),
    );
    for (const b of betas) log.betas.add(b);
    const id = `req_${log.calls + log.summaries + log.compactions + log.refused}`;
    const json = (status, value) =>
      new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json", "request-id": id } });
    const refuse = (kind, message) => {
      log.refused += 1;
      log.refusals.push({ kind, message });
      return json(400, { type: "error", error: { type: "invalid_request_error", message }, request_id: id });
    };
    if (body.context_management && !betas.has(BETA_CONTEXT_MANAGEMENT)) {
      return refuse("beta", `context_management: requires the anthropic-beta header ${BETA_CONTEXT_MANAGEMENT}`);
    }
    if (body.compaction && body.context_management) {
      return refuse("combination", "compaction: cannot be combined with context_management");
    }
    if (body.compaction && !betas.has(BETA_COMPACT_ON_DEMAND)) {
      return refuse("beta", `compaction: requires the anthropic-beta header ${BETA_COMPACT_ON_DEMAND}`);
    }
    const kept = body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b) => b.type === "thinking") : []));
    if (kept.length && body.thinking?.block_binding?.prefix_mismatch_behavior !== "drop_block") {
      const stale = staleThinking(body);
      if (stale) return refuse("thinking", stale);
      log.thinkingChecked += kept.length;
      if (isSummary(body)) log.thinkingInSummaries += kept.length;
    }
    const tokens = count(body);
    if (tokens > window) return refuse("tooLong", `prompt is too long: ${tokens} tokens > ${window} maximum`);
    log.pairsBroken += brokenPairs(body.messages);
    const edits = body.context_management?.edits ?? [];
    if (edits.length) log.sawEdits += 1;
    const usage = {
      input_tokens: tokens,
      output_tokens: 120,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      server_tool_use: null,
      service_tier: "standard",
    };
    const message = (content, stop_reason) =>
      json(200, {
        id: `msg_${id}`,
        type: "message",
        role: "assistant",
        model: body.model,
        content,
        stop_reason,
        stop_sequence: null,
        usage,
        context_management: {
          applied_edits: edits
            .filter((e) => e.type === "clear_tool_uses_20250919")
            .map(() => ({ type: "clear_tool_uses_20250919", cleared_tool_uses: 0, cleared_input_tokens: 0 })),
        },
      });
    if (body.compaction) {
      log.compactions += 1;
      const text = `The session so far, in ${body.messages.length} messages: keep the service green.`;
      return message(
        [{ type: "compaction", content: text, encrypted_content: `enc_${log.compactions}`, signature: `sig_${log.compactions}`, tool_changes: [] }],
        "compaction",
      );
    }
    if (isSummary(body)) {
      log.summaries += 1;
      return message([{ type: "text", text: summary(body), citations: null }], "end_turn");
    }
    log.calls += 1;
    log.lastTokens = tokens;
    let content = reply(body, main++);
    if (body.thinking?.type === "enabled" || body.thinking?.type === "adaptive") {
      const thinking = `Thinking before reply ${main}.`;
      content = [{ type: "thinking", thinking, signature: signature(body, body.messages.slice(readFrom(body.messages)), [], thinking) }, ...content];
    }
    return message(content, content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn");
  };
  return { fetch, log };
}
