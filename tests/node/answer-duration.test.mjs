// A summary answer may say how long it took (`{ kind: "text", text,
// durationMs }`, issue 29): the boundary record a `newer-client` engine
// writes carries it as `compactMetadata.durationMs`, as Claude Code 2.1.122
// and later write it. Without it the record has none (no figure made up);
// a value that is no whole number of
// milliseconds is a coded error naming the field, and the engine still
// answers.
import { test } from "node:test";
import assert from "node:assert/strict";

import { Engine } from "context-compaction";
import { readSession } from "context-compaction/session";

function conversation(engine) {
  for (let i = 0; i < 6; i++) {
    engine.append({ role: "user", content: `question ${i}: ${"why ".repeat(400)}` });
    engine.append({ role: "assistant", content: `answer ${i}: ${"because ".repeat(400)}` });
  }
}

/** A manual /compact whose summary is answered with `summary` (a string or an answer object). */
function compact(engine, summary) {
  engine.beforeCall("2026-12-06T04:00:00.000Z");
  let out = engine.compact();
  for (;;) {
    if (out.compaction?.kind === "compacted" || out.compaction?.kind === "failed") return out;
    const r = out.requests[0];
    const answer = r.kind === "preCompact" ? { kind: "hook" } : r.kind === "files" ? { kind: "files", files: [] } : summary;
    out = engine.answer(r.id, answer);
  }
}

const boundaries = (engine) =>
  engine.records().map((line) => JSON.parse(line)).filter((r) => r.subtype === "compact_boundary");

test("a text answer's durationMs reaches the newer-client boundary record", () => {
  const engine = new Engine("newer-client");
  conversation(engine);
  const out = compact(engine, { kind: "text", text: "<summary>the story so far</summary>", durationMs: 41_873 });
  assert.equal(out.compaction.kind, "compacted");
  const [boundary] = boundaries(engine);
  assert.equal(boundary.compactMetadata.durationMs, 41_873);
  assert.equal(readSession(engine.records().join("\n")).compactions, 1);
  engine.free();
});

test("without durationMs the record has none; a bad one is INVALID_ARGUMENT naming it, and the engine goes on", () => {
  const engine = new Engine("newer-client");
  conversation(engine);
  engine.beforeCall("2026-12-06T04:00:00.000Z");
  let out = engine.compact();
  while (out.requests[0].kind !== "summary") out = engine.answer(out.requests[0].id, { kind: "hook" });
  const id = out.requests[0].id;
  for (const bad of [-1, 1.5, "12", Infinity]) {
    assert.throws(
      () => engine.answer(id, { kind: "text", text: "<summary>s</summary>", durationMs: bad }),
      (e) => e.code === "INVALID_ARGUMENT" && /durationMs/.test(e.message),
      String(bad),
    );
  }
  // Still answerable, and the answer still pending.
  out = engine.answer(id, { kind: "text", text: "<summary>s</summary>", durationMs: 0 });
  assert.ok(out.compaction || out.requests.length > 0);
  engine.free();
  const plain = new Engine("newer-client");
  conversation(plain);
  assert.equal(compact(plain, "<summary>the story so far</summary>").compaction.kind, "compacted");
  const [boundary] = boundaries(plain);
  assert.equal("durationMs" in boundary.compactMetadata, false);
  plain.free();
});
