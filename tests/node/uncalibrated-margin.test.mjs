// Issue 28, point 2: never over the window while uncalibrated. A history
// arrives with no usage (a resumed conversation, a route that kept none) and
// goes out through the real @anthropic-ai/sdk to a stand-in API that counts
// about 10 % more than chars/4 and answers with the real 400s. At the
// package's default settings the engine's margin makes it compact first;
// with the margin off, the histories between the API's limit and the
// engine's compact line are refused (the test shows the margin is what
// keeps them out).
import { test } from "node:test";
import assert from "node:assert/strict";

import Anthropic from "@anthropic-ai/sdk";
import { Engine } from "context-compaction";

import { windowApi } from "./fake-window-api.mjs";

const WINDOW = 200_000;
const MAX_OUTPUT = 32_000;
const model = "claude-sonnet-4-6";

/** A history of about `tokens` estimated tokens: turns of code (no quotes
 * or newlines, which JSON would escape) of ~3,250 tokens each. */
function history(tokens) {
  const messages = [];
  for (let i = 0; (messages.length / 2) * 3_250 < tokens; i++) {
    const code = Array.from({ length: 400 }, (_, r) => `fn f${i}_${r}(x: u32) -> u32 { x + ${r} }`).join(" ");
    messages.push({ role: "user", content: `turn ${i}: review this: ${code}`.slice(0, 12_000) });
    messages.push({ role: "assistant", content: `turn ${i}: ${"each function adds its index to x; ".repeat(40)}`.slice(0, 1_000) });
  }
  messages.push({ role: "user", content: "and now?" });
  return messages;
}

/** One request of a conversation that arrives with no usage: load, prepare, send. */
async function send(settings, messages) {
  const api = windowApi({ window: WINDOW });
  const client = new Anthropic({ apiKey: "sk-ant-test", fetch: api.fetch, maxRetries: 0 });
  const engine = new Engine(settings);
  try {
    engine.load(messages);
    const before = engine.count().tokens;
    await engine.prepare({
      precompute: false,
      summarize: async (r) => {
        const reply = await client.messages.create({ model, max_tokens: 8_000, messages: [...r.messages, { role: "user", content: r.prompt }] });
        return reply.content.map((b) => (b.type === "text" ? b.text : "")).join("");
      },
    });
    try {
      // A timeout of its own: the SDK asks for streaming above ~21k max_tokens otherwise.
      await client.messages.create({ model, max_tokens: MAX_OUTPUT, messages: engine.messages() }, { timeout: 60_000 });
    } catch (e) {
      if (!(e instanceof Anthropic.BadRequestError)) throw e;
    }
    return { before, refusals: api.log.refusals, summaries: api.log.summaries };
  } finally {
    engine.free();
  }
}

test("a history with no usage, 120k-166k estimated tokens: 0 refusals at default settings; refusals with the margin off", async () => {
  const sizes = [];
  for (let tokens = 120_000; tokens <= 166_000; tokens += 4_000) sizes.push(tokens);
  let withMargin = 0;
  let without = 0;
  let counted = [];
  for (const tokens of sizes) {
    const messages = history(tokens);
    const on = await send({ window: WINDOW, maxOutputTokens: MAX_OUTPUT }, messages);
    withMargin += on.refusals.length;
    const off = await send({ window: WINDOW, maxOutputTokens: MAX_OUTPUT, uncalibratedMarginPct: 0 }, messages);
    without += off.refusals.length;
    counted.push([off.before, on.before]);
  }
  // The margin is in the count: 15 % over the plain estimate, uncalibrated.
  for (const [plain, margin] of counted) assert.ok(margin >= plain * 1.149 && margin <= plain * 1.151 + 1, `${plain} -> ${margin}`);
  assert.equal(withMargin, 0, "no request refused at the default settings");
  assert.ok(without >= 2, `with the margin off, histories over the API's limit but under the compact line are refused (${without})`);
  console.log(`uncalibrated margin: ${sizes.length} histories of ${sizes[0]}-${sizes.at(-1)} estimated tokens; refusals: ${withMargin} at default settings, ${without} with uncalibratedMarginPct 0`);
});

test("the margin shrinks as usage calibrates the count, and a host's own counter has none", () => {
  const engine = new Engine({ window: WINDOW });
  engine.append({ role: "user", content: "x".repeat(40_000) });
  assert.equal(engine.count().tokens, Math.ceil(10_000 * 1.15));
  // A reply with usage: the count is the report plus what follows.
  engine.append({ role: "assistant", content: "ok", usage: { input_tokens: 11_000, output_tokens: 5 } });
  assert.equal(engine.count().basis, "reportedPlusEstimate");
  assert.ok(engine.count().tokens < 11_100, String(engine.count().tokens));
  engine.free();
  const counted = new Engine({ window: WINDOW, countTokens: (text) => text.length / 4 });
  counted.append({ role: "user", content: "x".repeat(40_000) });
  assert.equal(counted.count().tokens, 10_000);
  counted.free();
});
