// A wasm trap inside prepare() (issue 15): each step of prepare() is a
// synchronous call into the module with the host's callbacks awaited in
// between, so a trap in a step rejects that engine's promise with
// ENGINE_POISONED (no uncaught exception, no promise left pending) and
// another engine's pending prepare() still settles. Its own file: it fills
// this process's wasm memory to the 4 GiB limit, as poison.test.mjs does.
import { test } from "node:test";
import assert from "node:assert/strict";

import { Engine } from "context-compaction";
import { initSync } from "context-compaction/web";

const SMALL = { window: 40_000, snip: false, collapse: false };

function turns(n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    out.push({ role: "user", content: `question ${i}` }, { role: "assistant", content: "a".repeat(4_000) });
  }
  return out;
}

function fillMemory(memory) {
  for (let step = 1 << 15; step >= 1; step >>= 1) {
    try {
      memory.grow(step);
    } catch {}
  }
}

test("a trap inside prepare() rejects it with ENGINE_POISONED; free() works; another engine's prepare() settles", async () => {
  const memory = initSync({ module: new Uint8Array() }).memory;
  const uncaught = [];
  const onUncaught = (e) => uncaught.push(e);
  process.on("uncaughtException", onUncaught);
  process.on("unhandledRejection", onUncaught);
  try {
    const bystander = new Engine(SMALL);
    bystander.load(turns(17));
    let release;
    const gate = new Promise((resolve) => (release = resolve));
    const bystanderDone = bystander.prepare({ summarize: async () => (await gate, "<summary>short</summary>"), precompute: false });

    const victim = new Engine(SMALL);
    victim.load(turns(17));
    let asked = 0;
    const victimDone = victim.prepare({
      summarize: () => {
        asked++;
        // The next large allocation the engine makes fails: copying this
        // 64 MiB summary in traps the step that reads it.
        fillMemory(memory);
        return "<summary>" + "s".repeat(64 << 20) + "</summary>";
      },
      precompute: false,
    });
    await assert.rejects(
      victimDone,
      (e) => e instanceof Error && e.code === "ENGINE_POISONED" && /create a new Engine/.test(e.message) && e.cause instanceof WebAssembly.RuntimeError,
    );
    assert.equal(asked, 1);
    for (const call of [() => victim.messages(), () => victim.count(), () => victim.append({ role: "user", content: "x" })]) {
      assert.throws(call, (e) => e instanceof Error && e.code === "ENGINE_POISONED");
    }
    assert.throws(() => victim.prepare({ summarize: () => "x" }), (e) => e.code === "ENGINE_POISONED");
    victim.free();
    victim.free();
    assert.throws(() => victim.count(), (e) => e.code === "ENGINE_FREED");

    release();
    const settled = await Promise.race([
      bystanderDone.then(
        (d) => ({ d }),
        (e) => ({ e }),
      ),
      new Promise((resolve) => setTimeout(() => resolve({ hung: true }), 5_000)),
    ]);
    assert.ok(!settled.hung, "the bystander's prepare() settles");
    assert.equal(settled.e, undefined, "the bystander's prepare() resolves");
    assert.ok(settled.d.steps.some((s) => s.tier === "compact"), "the bystander compacted");
    assert.ok(bystander.count().tokens > 0);
    bystander.free();
    assert.deepEqual(uncaught, [], "no uncaught exception and no unhandled rejection");
  } finally {
    process.off("uncaughtException", onUncaught);
    process.off("unhandledRejection", onUncaught);
  }
});

test("free() during a pending prepare(): the promise rejects with ENGINE_FREED", async () => {
  const engine = new Engine(SMALL);
  engine.load(turns(17));
  let release;
  const gate = new Promise((resolve) => (release = resolve));
  const done = engine.prepare({ summarize: async () => (await gate, "<summary>s</summary>"), precompute: false });
  await new Promise((resolve) => setTimeout(resolve, 10));
  engine.free();
  release();
  await assert.rejects(done, (e) => e instanceof Error && e.code === "ENGINE_FREED");
});
