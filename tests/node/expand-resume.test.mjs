// `expand` is recorded (SPEC R11.5, issue 15): after a compaction is undone,
// records() -> readSession -> loadSession resumes to the live view, deep
// equal, at the expansion, after more turns, with compactions on either side
// and nested expansions; the record is a `system` record Claude Code walks
// through and never sends. A resumed engine writes on: the file with its
// records appended resumes to its view (its uuids, made and derived, are new
// to the file: Session.lastMadeUuid, Session.compactions).
import { test } from "node:test";
import assert from "node:assert/strict";

import { Engine } from "context-compaction";
import { readSession } from "context-compaction/session";
import { prng } from "./prng.mjs";

// client-2.1: no snip and no collapse, so only what this test does changes the view.
const SMALL = { preset: "client-2.1", window: 50_000, maxOutputTokens: 4_000 };

let n = 0;
/** A prompt, a Read call, its result, a reply. */
function turn() {
  n++;
  const id = `toolu_${n}`;
  return [
    { role: "user", content: `turn ${n}: read f${n}.rs ${"q".repeat(1_500)}` },
    { role: "assistant", content: [{ type: "tool_use", id, name: "Read", input: { file_path: `f${n}.rs` } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: `line ${n}\n`.repeat(300) }] },
    { role: "assistant", content: `f${n}.rs read` },
  ];
}

/** A manual /compact, its requests answered by hand (one file re-attached),
 * at `now` (the time its records get). */
function compact(engine, now) {
  engine.beforeCall(now);
  let out = engine.compact();
  for (;;) {
    if (out.compaction?.kind === "compacted") return out.compaction.result;
    assert.notEqual(out.compaction?.kind, "failed", JSON.stringify(out.compaction));
    const r = out.requests[0];
    const answer =
      r.kind === "preCompact" ? { kind: "hook" }
      : r.kind === "files" ? { kind: "files", files: r.paths.slice(0, 1).map((path) => ({ path, content: `contents of ${path}` })) }
      : `<summary>${r.purpose}: the story so far</summary>`;
    out = engine.answer(r.id, answer);
  }
}

/** Resumes a session file in a new engine, asserting the live engine's
 * view: the file is `earlier` (the records the live engine was resumed
 * from, if it was) then the live engine's own records. Gives the file, the
 * session read and the resumed engine (the caller frees it). */
function resume(live, what, earlier = []) {
  const file = [...earlier, ...live.records()];
  const session = readSession(file.join("\n") + "\n");
  assert.deepEqual(session.report.problems, [], what);
  const resumed = new Engine(SMALL);
  resumed.loadSession(session);
  assert.deepEqual(resumed.messages(), live.messages(), `${what}: messages()`);
  assert.deepEqual(resumed.view().map((m) => m.uuid), live.view().map((m) => m.uuid), `${what}: uuids`);
  return { file, session, resumed };
}

/** Resumes the live engine's records in a new engine: the same view. */
function resumesToTheLiveView(live, what) {
  const { session, resumed } = resume(live, what);
  resumed.free();
  return session;
}

test("an expanded compaction resumes to the live view", () => {
  const live = new Engine(SMALL);
  live.load([...turn(), ...turn(), ...turn()]);
  const result = compact(live, "2026-12-01T10:00:00Z");
  live.load(turn());
  live.takeRecords();
  const before = live.messages();
  live.expand(result.summary.uuid);
  assert.notDeepEqual(live.messages(), before, "the expansion changed the view");

  const [record, ...none] = live.takeRecords().map((r) => JSON.parse(r));
  assert.deepEqual(none, [], "one record");
  assert.equal(record.type, "system");
  assert.equal(record.subtype, "compact_expanded");
  assert.equal(record.parentUuid, live.view().at(-1).uuid, "chained after the last record");
  assert.equal(record.timestamp, "2026-12-01T10:00:00Z");
  assert.equal(record.expandMetadata.boundaryUuid, result.boundary.uuid);
  assert.equal(record.expandMetadata.removedUuids[0], result.summary.uuid);

  // The expansion is the file's last record.
  const session = resumesToTheLiveView(live, "at the expansion");
  assert.equal(session.boundary, null, "no boundary in force");
  assert.equal(session.report.recordTypes["system/compact_expanded"], 1);
  live.load(turn());
  resumesToTheLiveView(live, "after another turn");
  live.free();
});

test("compactions on either side of an expanded one, and nested expansions, resume to the live view", () => {
  const live = new Engine(SMALL);
  live.load([...turn(), ...turn()]);
  const first = compact(live, "2026-12-01T10:00:00Z");
  live.load([...turn(), ...turn()]);
  const second = compact(live, "2026-12-01T11:00:00Z");
  live.load(turn());
  live.expand(second.summary.uuid);
  const session = resumesToTheLiveView(live, "the later one expanded");
  assert.equal(session.boundary, first.boundary.uuid, "the earlier compaction is in force again");
  live.load(turn());
  live.expand(first.summary.uuid);
  resumesToTheLiveView(live, "both expanded");
  // Compacted right after the expansions, then that one expanded too.
  const third = compact(live, "2026-12-01T12:00:00Z");
  resumesToTheLiveView(live, "compacted again");
  live.load(turn());
  live.expand(third.summary.uuid);
  resumesToTheLiveView(live, "the third expanded");
  live.free();
});

test("a Session reports the file's highest made uuid and its compactions; loadSession checks them", () => {
  const live = new Engine(SMALL);
  live.load([...turn(), ...turn()]);
  compact(live, "2026-12-01T10:00:00Z");
  const session = readSession(live.records().join("\n") + "\n");
  live.free();
  assert.equal(session.lastMadeUuid, "m8");
  assert.equal(session.compactions, 1);
  assert.deepEqual(readSession("").lastMadeUuid, null);
  for (const [field, value] of [["compactions", -1], ["compactions", 1.5], ["compactions", "1"], ["lastMadeUuid", 8]]) {
    const engine = new Engine(SMALL);
    assert.throws(() => engine.loadSession({ ...session, [field]: value }), { code: "INVALID_ARGUMENT" }, `${field}: ${value}`);
    // Refused before anything was loaded.
    assert.equal(engine.view().length, 0);
    engine.free();
  }
  // A Session without them (made before they were reported) still loads.
  const { lastMadeUuid, compactions, ...older } = session;
  const engine = new Engine(SMALL);
  engine.loadSession(older);
  assert.equal(engine.view().length, session.messages.length);
  engine.free();
});

for (const seed of [1, 2, 3, 4, 5]) {
  test(`random turns, compactions, expansions and resumes (seed ${seed}): every resume is the live view, and the resumed engine keeps writing`, () => {
    const random = prng(seed);
    let live = new Engine(SMALL);
    // The session file before `live`'s own records (it resumed it).
    let file = [];
    let summaries = [];
    let resumes = 0;
    let expansions = 0;
    for (let op = 0; op < 120; op++) {
      const r = random();
      if (r < 0.45 || live.view().length === 0) {
        live.load(turn());
      } else if (r < 0.6) {
        summaries.push(compact(live, "2026-12-01T10:00:00Z").summary.uuid);
      } else if (r < 0.8) {
        // Only a summary still in the view can be expanded.
        const inView = new Set(live.view().map((m) => m.uuid));
        const open = summaries.filter((s) => inView.has(s));
        if (open.length === 0) continue;
        const s = open[Math.floor(random() * open.length)];
        live.expand(s);
        summaries = summaries.filter((x) => x !== s);
        expansions++;
      } else {
        // The session goes on in the resumed engine: the file with its
        // records appended must resume to its view in turn, so the uuids
        // it makes must be new to the file even when its view holds none
        // of the earlier engines' `m<n>` (issue 15).
        const next = resume(live, `seed ${seed} op ${op}`, file);
        live.free();
        ({ file, resumed: live } = next);
        // The file's compactions are not the resumed engine's to expand.
        summaries = [];
        resumes++;
      }
    }
    resume(live, `seed ${seed} at the end`, file).resumed.free();
    assert.ok(expansions > 0 && resumes > 0, `seed ${seed}: ${expansions} expansions, ${resumes} resumes`);
    live.free();
  });
}
