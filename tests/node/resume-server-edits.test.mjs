// Issue 28, point 3: a resumed engine counts as the live one did, also once
// the cache-aware microcompact has fired (R4.3): the server clears old tool
// results by context editing while the client keeps sending its copy, so the
// count rests on a prediction the messages cannot say again. The file's
// count_calibrated record carries it (`serverCleared`); readSession ->
// loadSession restores it; the resumed engine sends the same edit.
import { test } from "node:test";
import assert from "node:assert/strict";

import { Engine } from "context-compaction";
import { readSession } from "context-compaction/session";

const settings = { window: 200_000, maxOutputTokens: 8_000 };

test("after 60 Read calls the resumed engine predicts the same cleared results and counts the same", () => {
  const live = new Engine(settings);
  live.append({ role: "user", content: "read every file under src/ and summarise it" });
  let edit = null;
  for (let i = 0; i < 60; i++) {
    const id = `toolu_${String(i).padStart(3, "0")}`;
    live.append({ role: "assistant", content: [{ type: "tool_use", id, name: "Read", input: { file_path: `src/f${i}.rs` } }] });
    live.append({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: `fn f${i}() {}\n`.repeat(120) }] });
    edit = live.beforeCall().contextManagement ?? edit;
  }
  assert.ok(edit, "the cache-aware path fired (an edit is sent)");
  const session = readSession(live.records().join("\n"));
  assert.ok(session.counting?.serverCleared, JSON.stringify(session.counting));
  assert.equal(session.counting.serverCleared.firedAt, 50);
  assert.equal(session.counting.serverCleared.through, "toolu_029");

  const resumed = new Engine(settings);
  resumed.loadSession(session);
  assert.deepEqual(resumed.messages(), live.messages());
  assert.deepEqual(resumed.count(), live.count());
  assert.deepEqual(resumed.beforeCall().contextManagement, live.beforeCall().contextManagement);

  // Without the record's prediction the resumed engine counts every result in full.
  const bare = new Engine(settings);
  bare.loadSession({ ...session, counting: { ...session.counting, serverCleared: null } });
  assert.ok(bare.count().tokens > live.count().tokens, `${bare.count().tokens} vs ${live.count().tokens}`);
  // A malformed one is a coded error naming the field.
  const bad = new Engine(settings);
  assert.throws(
    () => bad.loadSession({ ...session, counting: { ...session.counting, serverCleared: { through: "toolu_029", firedAt: -1 } } }),
    (e) => e.code === "INVALID_ARGUMENT" && /serverCleared/.test(e.message),
  );
  for (const e of [live, resumed, bare, bad]) e.free();
});
