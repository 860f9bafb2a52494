// `append` of a plain `{ role, content }` with a string content goes to the
// module as its two values (guard.js's `plainText`, the module's
// `__appendText`), not as JSON: the engine ends where the JSON path leaves
// it (messages, view, records, decisions, errors), and every other message
// still takes the JSON path.
import { test } from "node:test";
import assert from "node:assert/strict";

import { Engine } from "context-compaction";

const texts = [
  "plain ascii",
  "",
  "naïve café — 日本語 🎉",
  "a lone surrogate \ud83d here, and one at the end \udc00",
  'quotes " and \\ backslashes\n\ttabs',
  "x".repeat(5_000),
];

/** The same message, as an object the JSON path takes (a key JSON.stringify
 * drops makes it three keys). */
const viaJson = (m) => ({ ...m, uuid: undefined });

test("a plain text message appends as the JSON path appends it", () => {
  const settings = { preset: "client-2.1", window: 50_000, maxOutputTokens: 4_000 };
  const [fast, json] = [new Engine(settings), new Engine(settings)];
  let i = 0;
  for (const content of texts) {
    for (const role of ["user", "assistant"]) {
      const m = { role, content: `${content} ${i++}` };
      assert.equal(fast.append(m), json.append(viaJson(m)));
      assert.deepEqual(fast.beforeCall(), json.beforeCall());
    }
  }
  // Keys in the other order, and a system message.
  for (const m of [{ content: "reversed", role: "user" }, { role: "system", content: "be brief" }]) {
    assert.equal(fast.append(m), json.append(viaJson(m)));
  }
  assert.deepEqual(fast.messages(), json.messages());
  assert.deepEqual(fast.view(), json.view());
  assert.deepEqual(fast.records(), json.records());
  assert.deepEqual(fast.beforeCall(), json.beforeCall());
  // The object is not changed.
  const m = { role: "user", content: "kept" };
  fast.append(m);
  assert.deepEqual(m, { role: "user", content: "kept" });
});

test("anything else takes the JSON path, with its errors", () => {
  const e = new Engine({ preset: "client-2.1", window: 50_000, maxOutputTokens: 4_000 });
  const code = (f) => {
    try {
      f();
    } catch (error) {
      return error.code;
    }
    return "ok";
  };
  // Not a known role, content not a string, a prototype, an extra key.
  assert.equal(code(() => e.append({ role: "tool", content: "x" })), "INVALID_MESSAGE");
  assert.equal(code(() => e.append({ role: "user", content: 7 })), "INVALID_MESSAGE");
  assert.equal(code(() => e.append({ role: "user" })), "INVALID_MESSAGE");
  assert.equal(code(() => e.append({ role: "user", content: [{ type: "text", text: "blocks" }] })), "ok");
  assert.equal(code(() => e.append(Object.assign(Object.create({ extra: 1 }), { role: "user", content: "x" }))), "ok");
  assert.equal(code(() => e.append({ role: "user", content: "x", timestamp: "not a time" })), "INVALID_MESSAGE");
  // A getter is read once on the fast path.
  let reads = 0;
  const getter = { role: "user", get content() {
    reads += 1;
    return "read once";
  } };
  assert.equal(code(() => e.append(getter)), "ok");
  assert.equal(reads, 1);
  // A Proxy whose trap throws: the JSON path's error, as before.
  const trap = new Proxy({ role: "user", content: "x" }, {
    ownKeys() {
      throw new Error("no keys");
    },
  });
  assert.equal(code(() => e.append(trap)), "INVALID_MESSAGE");
  // toJSON (even inherited) is honoured: JSON path.
  const custom = { role: "user", content: "x", toJSON: () => ({ role: "user", content: "from toJSON" }) };
  e.append(custom);
  const last = e.messages().at(-1);
  assert.equal(last.content, "from toJSON");
  // A freed engine says so on the fast path too.
  const freed = new Engine({ preset: "client-2.1", window: 50_000, maxOutputTokens: 4_000 });
  freed.free();
  assert.equal(code(() => freed.append({ role: "user", content: "x" })), "ENGINE_FREED");
});
