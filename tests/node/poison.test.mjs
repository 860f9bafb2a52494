// Out of memory (issue 15): all engines share one wasm memory. When a call
// runs out of it half way, that engine says ENGINE_POISONED from then on
// (truthfully: its state stopped mid-change) and free() releases it; other
// engines keep working. Its own file: it fills this process's wasm memory to
// the 4 GiB limit (address space only: the pages are never touched).
import { test } from "node:test";
import assert from "node:assert/strict";

import { Engine } from "context-compaction";
import { initSync } from "context-compaction/web";

test("a call that runs out of memory poisons its engine only; free() works; other engines go on", () => {
  const memory = initSync({ module: new Uint8Array() }).memory;
  const bystander = new Engine();
  bystander.append({ role: "user", content: "bystander" });
  const victim = new Engine();
  victim.loadJson(JSON.stringify([{ role: "user", content: "x".repeat(32 << 20) }]));
  // Take every page the module could still grow into: the engine's next
  // large allocation fails.
  for (let step = 1 << 15; step >= 1; step >>= 1) {
    try {
      memory.grow(step);
    } catch {}
  }
  assert.throws(() => victim.messages(), (e) => e.code === "ENGINE_POISONED" && /create a new Engine/.test(e.message) && e.cause instanceof WebAssembly.RuntimeError);
  for (const call of [() => victim.count(), () => victim.append({ role: "user", content: "x" }), () => victim.records()]) {
    assert.throws(call, (e) => e instanceof Error && e.code === "ENGINE_POISONED");
  }
  victim.free();
  victim.free();
  assert.equal(bystander.count().tokens > 0, true);
  bystander.append({ role: "assistant", content: "still here" });
  assert.equal(bystander.messages().length, 2);
  const fresh = new Engine();
  fresh.append({ role: "user", content: "new" });
  assert.equal(fresh.messages().length, 1);
});
