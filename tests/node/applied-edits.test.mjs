// A response's context_management.applied_edits (R13.4), as append reads
// it from the object: what its JSON says is taken, anything else is an
// INVALID_MESSAGE naming the message's context_management and the place.
import { test } from "node:test";
import assert from "node:assert/strict";

import { Engine } from "context-compaction";

/** An engine whose view predicts the server clears old tool results. */
function predicting() {
  const engine = new Engine({ preset: "client-2.1", window: 50_000, maxOutputTokens: 4_000 });
  for (let n = 0; n < 60; n++) {
    engine.append({ role: "user", content: `step ${n}` });
    engine.append({ role: "assistant", content: [{ type: "tool_use", id: `t${n}`, name: "Read", input: {} }] });
    engine.append({ role: "user", content: [{ type: "tool_result", tool_use_id: `t${n}`, content: "x".repeat(400) }] });
  }
  assert.ok(engine.beforeCall().contextManagement);
  return engine;
}

const reply = (context_management) => ({ role: "assistant", content: "ok", context_management });

function refused(engine, cm, says) {
  const before = engine.view().length;
  assert.throws(() => engine.append(reply(cm)), (e) => {
    assert.equal(e.code, "INVALID_MESSAGE", e.message);
    assert.equal(e.field, "message.context_management", e.message);
    assert.ok(e.message.includes(says), `${JSON.stringify(e.message)} says ${JSON.stringify(says)}`);
    return true;
  });
  assert.equal(engine.view().length, before, "nothing appended");
}

test("applied_edits: null counters and unknown fields are taken; no applied_edits is none", () => {
  const engine = predicting();
  engine.append(reply({ other: 1 }));
  engine.append(reply(null));
  engine.append({ role: "user", content: "next" });
  engine.append(reply({
    applied_edits: [{
      type: "clear_tool_uses_20250919", cleared_tool_uses: 1, cleared_input_tokens: 100,
      cleared_thinking_turns: null, extra: "kept out",
    }],
  }));
  assert.ok(engine.beforeCall().steps.some((s) => s.rule === "R13.4"));
});

test("applied_edits: a wrong shape is refused, naming where", () => {
  const engine = predicting();
  refused(engine, "cleared", "must be an object");
  refused(engine, { applied_edits: {} }, ".applied_edits must be an array");
  refused(engine, { applied_edits: [3] }, ".applied_edits[0] must be an object");
  refused(engine, { applied_edits: [{ cleared_tool_uses: 1 }] }, ".applied_edits[0].type is missing");
  refused(engine, { applied_edits: [{ type: 7 }] }, ".applied_edits[0].type must be a string");
  for (const bad of [-1, 1.5, "3", true, 2 ** 64]) {
    refused(engine, { applied_edits: [{ type: "clear_tool_uses_20250919", cleared_tool_uses: bad }] },
      ".applied_edits[0].cleared_tool_uses must be a whole number");
  }
});
