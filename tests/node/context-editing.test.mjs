// Issue 28, point 8: no edit is counted unless it is sent. By default the
// engine asks the server to clear old tool results (a `clear_tool_uses` edit
// in `decision.contextManagement`) and counts them as cleared; a host whose
// requests do not carry that field (a proxy, an SDK that drops it) says
// `contextEditing: false`, and then nothing is counted as cleared that the
// request it sends still holds.
import { test } from "node:test";
import assert from "node:assert/strict";

import { Engine } from "context-compaction";

function readsSixtyFiles(settings) {
  const engine = new Engine(settings);
  engine.append({ role: "user", content: "read everything" });
  for (let i = 0; i < 60; i++) {
    engine.append({ role: "assistant", content: [{ type: "tool_use", id: `toolu_${i}`, name: "Read", input: { file_path: `f${i}.rs` } }] });
    engine.append({ role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: "x".repeat(4_000) }] });
  }
  return engine;
}

test("contextEditing: false: no clear_tool_uses edit, and the count is the request as sent", () => {
  const forwarded = readsSixtyFiles({ uncalibratedMarginPct: 0 });
  const d = forwarded.beforeCall();
  assert.equal(d.contextManagement?.edits[0].type, "clear_tool_uses_20250919");
  const sent = readsSixtyFiles({ uncalibratedMarginPct: 0, contextEditing: false });
  const e = sent.beforeCall();
  assert.ok(!e.contextManagement, JSON.stringify(e.contextManagement));
  assert.ok(!e.steps.some((s) => s.tier === "microcompact"), e.steps.map((s) => s.rule).join());
  // Every result the request holds is counted: the server clears nothing.
  const held = JSON.stringify(sent.messages()).split("x".repeat(4_000)).length - 1;
  assert.equal(held, 60);
  assert.ok(e.count.tokens > d.count.tokens, `${e.count.tokens} > ${d.count.tokens}`);
  assert.ok(e.count.tokens >= 60 * 1_000, String(e.count.tokens));
  forwarded.free();
  sent.free();
});
