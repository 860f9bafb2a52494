// `context-compaction/formats/web` under Node, as a worker or bundler user
// loads it: nothing is loaded on import; `init(bytes)` or `initSync({ module })`
// loads the formats module; then the same API as `/formats`, every format.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

import init, { initSync, Engine, plan } from "context-compaction/formats/web";

const wasm = readFileSync(createRequire(import.meta.url).resolve("context-compaction/compaction_formats_bg.wasm"));

test("/formats/web: init with a compiled module, then a Chat Completions history compacts in its own shape", async () => {
  assert.throws(() => new Engine({ format: "openai-chat" }), "nothing is loaded before init");
  await init({ module_or_path: await WebAssembly.compile(wasm) });
  initSync({ module: wasm }); // once loaded, a second init changes nothing
  const engine = new Engine({ format: "openai-chat", preset: "client-2.1", window: 50_000, maxOutputTokens: 4_000 });
  const history = [{ role: "system", content: "You are terse." }];
  for (let i = 0; i < 24; i++) {
    history.push({ role: "user", content: `question ${i}: ${"q".repeat(4_000)}` });
    history.push({ role: "assistant", content: null, tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "read", arguments: "{}" } }] });
    history.push({ role: "tool", tool_call_id: `call_${i}`, content: `result ${i}: ${"r".repeat(2_000)}` });
    history.push({ role: "assistant", content: `answer ${i}` });
  }
  engine.load(history);
  const asked = [];
  const decision = await engine.prepare({
    summarize: async (request) => {
      asked.push(request.purpose.kind);
      return "<summary>the story so far</summary>";
    },
  });
  assert.deepEqual(asked, ["compact"]);
  assert.equal(decision.status.kind, "proceed");
  const messages = engine.messages();
  assert.ok(messages.length < history.length);
  assert.equal(messages[0], history[0], "the system message no tier touched is the very object given");
  assert.equal(messages.at(-1), history.at(-1));
  assert.throws(() => engine.append({ role: "robot", content: 1 }), (e) => e instanceof Error && e.code === "INVALID_MESSAGE");
  engine.free();
  // The stateless plan takes a format too.
  const planned = plan({ format: "openai-chat", preset: "client-2.1", window: 50_000, maxOutputTokens: 4_000 }, history);
  assert.equal(planned.status.kind, "compactionDue");
});
