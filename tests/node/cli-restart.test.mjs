// Issue 28, point 3: what an engine persists is what it resumes. A CLI
// agent on the real @anthropic-ai/sdk, against a stand-in API that counts
// about 10 % over chars/4 and answers with the real 400s, appends its
// records to a session file after every call and is restarted five times
// in 24 prompts: each restart is `new Engine(settings)` +
// `loadSession(readSession(file))`. After each restart the view is the one
// it had before it exited (messages, pins) and the count is the same; no
// call is refused, before or after a restart.
import { test } from "node:test";
import assert from "node:assert/strict";

import Anthropic from "@anthropic-ai/sdk";
import { Engine, isPromptTooLong, promptTooLongTokens } from "context-compaction";
import { readSession } from "context-compaction/session";

import { windowApi } from "./fake-window-api.mjs";

const WINDOW = 200_000;
const model = "claude-sonnet-4-6";

/** Prompt `i`: a file pasted for review, ~9k-15k tokens of code. */
const prompt = (i) => {
  const lines = 420 + ((i * 97) % 5) * 80;
  const code = Array.from({ length: lines }, (_, r) => `fn step_${i}_${r}(x: u64) -> u64 { x.wrapping_mul(${r + 3}) ^ ${i} }`).join(" ");
  return `prompt ${i}: review this file and say what to change: ${code}`;
};

/** Model calls made so far, by every process: the clock's minutes. */
let calls = 0;

/** One agent process: an engine, the file it appends to, a client. */
class Agent {
  constructor(file, api, settings) {
    this.file = file;
    this.settings = settings;
    this.rules = new Set();
    this.client = new Anthropic({ apiKey: "sk-ant-test", fetch: api.fetch, maxRetries: 0 });
    this.engine = new Engine(settings);
    if (file.length) this.engine.loadSession(readSession(file.join("\n")));
  }

  async turn(text) {
    const { engine, client } = this;
    engine.append({ role: "user", content: text });
    const summarize = async (r) => {
      const reply = await client.messages.create({ model, max_tokens: 8_000, messages: [...r.messages, { role: "user", content: r.prompt }] });
      return reply.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    };
    for (let attempt = 0; ; attempt++) {
      // The host's clock, one minute a call: what a compaction's summary
      // and attachments carry, live and in their records alike.
      const now = new Date(Date.UTC(2026, 11, 6) + 60_000 * ++calls).toISOString();
      const decision = await engine.prepare({ summarize, precompute: false, now });
      assert.notEqual(decision.status.kind, "blocked", decision.steps.at(-1)?.reason);
      for (const s of decision.steps) this.rules.add(s.rule);
      try {
        const reply = await client.messages.create({ model, max_tokens: this.settings.maxOutputTokens, messages: engine.messages() }, { timeout: 60_000 });
        engine.append(reply);
        break;
      } catch (e) {
        if (!isPromptTooLong(e) || attempt > 2) throw e;
        engine.promptTooLong(promptTooLongTokens(e));
      }
    }
    this.file.push(...engine.takeRecords());
  }
}

/** 24 prompts, a restart every 4th: what each restart found, and what ran. */
async function run(settings) {
  const api = windowApi({ window: WINDOW });
  const file = [];
  const rules = new Set();
  let agent = new Agent(file, api, settings);
  const restarts = [];
  for (let i = 0; i < 24; i++) {
    if (i > 0 && i % 4 === 0 && restarts.length < 5) {
      const live = { view: agent.engine.view(), messages: agent.engine.messages(), count: agent.engine.count(), pinned: agent.engine.pinned() };
      const refusalsBefore = api.log.refusals.length;
      agent.engine.free();
      for (const r of agent.rules) rules.add(r);
      agent = new Agent(file, api, settings);
      const resumed = agent.engine;
      assert.deepEqual(resumed.messages(), live.messages, `restart ${restarts.length + 1}: the resumed view sends what the live one did`);
      // The whole view: uuids, content, and the timestamps the compaction's
      // messages were given (its records carry the same).
      assert.deepEqual(resumed.view(), live.view, `restart ${restarts.length + 1}: the resumed view is the live one`);
      assert.deepEqual(resumed.pinned(), live.pinned);
      assert.deepEqual(resumed.count(), live.count, `restart ${restarts.length + 1}: the resumed engine counts as the live one did`);
      restarts.push({ at: i, messages: live.messages.length, count: live.count.tokens, basis: live.count.basis, refusalsBefore });
    }
    await agent.turn(prompt(i));
  }
  agent.engine.free();
  for (const r of agent.rules) rules.add(r);
  const session = readSession(file.join("\n"));
  assert.equal(restarts.length, 5);
  assert.deepEqual(api.log.refusals, [], "no call refused, before or after a restart");
  console.log(`cli restart (${JSON.stringify(settings)}): 24 prompts, ${api.log.calls} calls, ${api.log.summaries} summaries, ${session.report.boundaries.length} compactions, rules ${[...rules].sort().join(" ")}; 5 restarts at ${restarts.map((r) => `${r.at} (${r.messages} messages, ${r.count} ${r.basis})`).join(", ")}; 0 refusals; file ${file.length} records`);
  return { rules, session };
}

test("a 24-prompt CLI agent restarted five times, snipping (seed preset): the resumed view and count are the live ones, 0 refusals", async () => {
  const { rules } = await run({ window: WINDOW, maxOutputTokens: 16_000 });
  assert.ok(rules.has("R5.1"), "Tier 2 snipped on the way (its records resume)");
});

test("a 24-prompt CLI agent restarted five times, collapsing (snip off): the resumed view and count are the live ones, 0 refusals", async () => {
  const { rules } = await run({ window: WINDOW, maxOutputTokens: 16_000, snip: false });
  assert.ok(rules.has("R6.1"), "Tier 3 collapsed on the way (its records resume)");
});

test("a 24-prompt CLI agent restarted five times, compacting (snip and collapse off): the resumed view and count are the live ones, 0 refusals", async () => {
  const { session } = await run({ window: WINDOW, maxOutputTokens: 16_000, snip: false, collapse: false });
  assert.ok(session.report.boundaries.length >= 1, "the conversation compacted on the way");
});
