// Hostile input to the built package (issue 15): wrong types, throwing and
// revoked Proxies, getters, huge lengths, detached buffers, bytes where text
// is expected, calls during a pending prepare(), duplicate uuids, usage past
// 2^53 − 1, split surrogate pairs, odd settings. Every attack must end in an
// `Error` with a `code` (never a `WebAssembly.RuntimeError`), leave the
// object usable (or freeable), and leave its inputs as they were. The counts
// are printed at the end (`# attacks …`).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";

import { Engine, plan, thresholds } from "context-compaction";
import { initSync } from "context-compaction/web";
import { readSession, SessionImporter } from "context-compaction/session";

const memory = initSync({ module: new Uint8Array() }).memory;
const tally = { attacks: 0, traps: 0, uncoded: 0, leaks: 0 };
after(() => console.log(`attacks ${tally.attacks}, traps ${tally.traps}, uncoded errors ${tally.uncoded}`));

const LEAKY = ["at line 1 column", "expected struct", "struct In", "recursive use of an object", "attempted to take ownership", "null pointer passed to rust"];

/** Runs one attack: it may succeed; if it throws, the error must be coded. */
function attack(fn, label) {
  tally.attacks++;
  try {
    return { ok: true, value: fn() };
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) tally.traps++;
    if (!(e instanceof Error) || typeof e.code !== "string") tally.uncoded++;
    assert.ok(!(e instanceof WebAssembly.RuntimeError), `${label}: trapped: ${e.message}`);
    assert.ok(e instanceof Error && typeof e.code === "string", `${label}: uncoded ${e}`);
    for (const leak of LEAKY) assert.ok(!e.message.includes(leak), `${label}: message leaks "${leak}": ${e.message}`);
    assert.ok(e.message.length < 1200, `${label}: message of ${e.message.length} characters`);
    return { ok: false, error: e };
  }
}

/** The attack must fail with `code` (and `field`, when given). */
function refused(fn, code, field, label = code) {
  const r = attack(fn, label);
  assert.ok(!r.ok, `${label}: accepted`);
  assert.equal(r.error.code, code, `${label}: ${r.error.message}`);
  if (field !== undefined) assert.equal(r.error.field, field, `${label}: ${r.error.message}`);
  return r.error;
}

/** The engine still takes an append and answers. */
function usable(engine, label) {
  const before = engine.messages().length;
  engine.append({ role: "user", content: `still usable after ${label}` });
  assert.equal(engine.messages().length, before + 1, label);
  engine.count();
}

const revoked = () => {
  const { proxy, revoke } = Proxy.revocable([], {});
  revoke();
  return proxy;
};
const revokedObject = () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
};
const throwing = (target) =>
  new Proxy(target, {
    get() {
      throw new Error("get trap");
    },
    ownKeys() {
      throw new Error("ownKeys trap");
    },
    getPrototypeOf() {
      throw new Error("getPrototypeOf trap");
    },
    has() {
      throw new Error("has trap");
    },
    getOwnPropertyDescriptor() {
      throw new Error("gOPD trap");
    },
  });
const getter = () => ({
  role: "user",
  get content() {
    throw new Error("content getter");
  },
});
const huge = () => {
  const a = [];
  a.length = 2 ** 32 - 1;
  return a;
};

const WRONG = () => [5, true, {}, new Date(), Symbol("s"), 10n, { length: 2 ** 31 }, [1], null, () => "f", revokedObject(), throwing({})];

test("wrong-typed string arguments are INVALID_ARGUMENT errors naming the field, never a trap", () => {
  const engine = new Engine();
  engine.append({ role: "user", content: "hi", uuid: "u1" });
  const calls = {
    beforeCall: ["now", (v) => engine.beforeCall(v)],
    plan: ["now", (v) => engine.plan(v)],
    compact: ["instructions", (v) => engine.compact(v)],
    expand: ["uuid", (v) => engine.expand(v)],
    pin: ["uuid", (v) => engine.pin(v)],
    unpin: ["uuid", (v) => engine.unpin(v)],
    setSystem: ["system", (v) => engine.setSystem(v)],
    loadJson: ["json", (v) => engine.loadJson(v)],
    answer: ["id", (v) => engine.answer(v, "x")],
    "plan()": ["now", (v) => plan("seed", "[]", v)],
  };
  for (const [name, [field, call]] of Object.entries(calls)) {
    for (const value of WRONG()) {
      // null is "no value" where the argument is optional.
      if (value === null && ["now", "instructions"].includes(field)) continue;
      if (typeof value === "number" && field === "id") continue;
      refused(() => call(value), "INVALID_ARGUMENT", field, `${name}(${typeof value})`);
    }
  }
  for (const value of WRONG()) {
    if (typeof value === "string") continue;
    attack(() => engine.swapInSummary(["u1"], value), `swapInSummary summary ${typeof value}`);
  }
  usable(engine, "wrong types");
  engine.free();
});

test("bytes are text where text is taken: loadJson(Buffer), readSession(Buffer); memory flat over 100 loadJson(Buffer) calls", () => {
  const buffer = Buffer.from(JSON.stringify([{ role: "user", content: "x".repeat(1 << 20) }]));
  const warm = new Engine();
  warm.loadJson(buffer);
  warm.free();
  const start = memory.buffer.byteLength;
  for (let i = 0; i < 100; i++) {
    const engine = new Engine();
    assert.equal(engine.loadJson(buffer), 1);
    engine.free();
  }
  assert.equal(memory.buffer.byteLength, start, "wasm memory grew over 100 loadJson(Buffer) calls");
  const engine = new Engine();
  refused(() => engine.loadJson(new Uint8Array([0xff, 0xfe])), "INVALID_ARGUMENT", "json", "invalid UTF-8");
  refused(() => engine.loadJson(new DataView(new ArrayBuffer(4))), "INVALID_ARGUMENT", "json", "a DataView");
  const session = readSession(Buffer.from('{"type":"user","uuid":"a","message":{"role":"user","content":"hi"}}\n'));
  assert.equal(session.messages.length, 1);
  engine.free();
});

test("a throwing argument (Proxy traps, getters, revoked Proxies, huge lengths) is a coded error; the engine works and frees", () => {
  const hostile = () => [revoked(), revokedObject(), throwing([]), throwing({}), getter(), huge(), [getter()], [throwing({})]];
  const methods = {
    load: (e, v) => e.load(v),
    append: (e, v) => e.append(v),
    setContext: (e, v) => e.setContext(v),
    swapInSummary: (e, v) => e.swapInSummary(v, "summary"),
    loadSession: (e, v) => e.loadSession(v),
    answer: (e, v) => e.answer(1, v),
    prepare: (e, v) => e.prepare(v),
    promptTooLong: (e, v) => e.promptTooLong(v),
    "new Engine": (_, v) => new Engine(v),
    "plan()": (_, v) => plan(v, "[]"),
    "plan() messages": (_, v) => plan("seed", v),
    thresholds: (_, v) => thresholds(v),
  };
  for (const [name, call] of Object.entries(methods)) {
    for (const value of hostile()) {
      const engine = new Engine();
      engine.append({ role: "user", content: "before" });
      const r = attack(() => call(engine, value), `${name}(hostile)`);
      if (r.ok && r.value instanceof Promise) r.value.catch(() => {});
      usable(engine, name);
      engine.free();
    }
  }
  const engine = new Engine();
  refused(() => engine.load(huge()), "INVALID_ARGUMENT", "messages", "load of length 2^32 - 1");
  const { proxy, revoke } = Proxy.revocable({ summarize: () => "s" }, {});
  revoke();
  refused(() => engine.prepare(proxy), "INVALID_ARGUMENT", undefined, "prepare(revoked)");
  engine.free();
});

test("SessionImporter: a detached buffer, wrong types and throwing values leave it usable; split surrogate pairs join", () => {
  const importer = new SessionImporter();
  const buffer = new ArrayBuffer(16);
  const view = new Uint8Array(buffer);
  structuredClone(buffer, { transfer: [buffer] });
  attack(() => importer.feed(view), "feed(detached)");
  for (const value of WRONG()) refused(() => importer.feed(value), "INVALID_ARGUMENT", "chunk", `feed(${typeof value})`);
  const line = '{"type":"user","uuid":"a","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"x😀y🎉z"}}\n';
  importer.feed(line);
  const whole = importer.finish();
  assert.equal(whole.messages[0].content, "x😀y🎉z");
  refused(() => importer.feed("more"), "INVALID_ARGUMENT", "importer", "feed after finish");
  importer.free();
  importer.free();
  // Every place to cut, one or two cuts.
  for (let cut = 0; cut <= line.length; cut++) {
    const split = new SessionImporter();
    split.feed(line.slice(0, cut));
    split.feed(line.slice(cut));
    assert.deepEqual(split.finish().messages, whole.messages, `cut at ${cut}`);
    split.free();
  }
  const at = line.indexOf("😀") + 1;
  const three = new SessionImporter();
  three.feed(line.slice(0, at));
  three.feed("");
  three.feed(line.slice(at));
  assert.deepEqual(three.finish().messages, whole.messages, "an empty chunk between the halves");
});

test("session options: unansweredToolUse drop (default) or errorResult; wrong options are INVALID_ARGUMENT naming the field", () => {
  const line = (r) => JSON.stringify({ parentUuid: null, sessionId: "s", ...r }) + "\n";
  const call = (uuid, id) => ({ type: "assistant", uuid, message: { id: `msg_${uuid}`, role: "assistant", content: [{ type: "tool_use", id, name: "Read", input: {} }] } });
  const file =
    line({ type: "user", uuid: "u", message: { role: "user", content: "go" } }) +
    line({ ...call("a", "t1"), parentUuid: "u" }) +
    line({ type: "user", uuid: "n", parentUuid: "a", message: { role: "user", content: "next" } }) +
    line({ ...call("c", "t2"), parentUuid: "n" });
  const uuids = (session) => session.messages.map((m) => m.uuid);
  const dropped = readSession(file);
  assert.deepEqual(uuids(dropped), ["u", "n"]);
  assert.deepEqual(uuids(readSession(file, { unansweredToolUse: "drop" })), ["u", "n"]);
  for (const session of [readSession(file, { unansweredToolUse: "errorResult" }), (() => {
    const importer = new SessionImporter({ unansweredToolUse: "errorResult" });
    importer.feed(file.slice(0, 100));
    importer.feed(file.slice(100));
    return importer.finish();
  })()]) {
    assert.deepEqual(uuids(session), ["u", "a", "n", "c", "c-unanswered"]);
    assert.equal(session.messages[2].content[0].type, "tool_result");
    assert.equal(session.messages[2].content[0].is_error, true);
    assert.deepEqual(session.messages[2].content[1], { type: "text", text: "next" });
    assert.equal(session.report.activeMessages, 5);
    assert.equal(session.report.problems.filter((p) => p.kind === "orphan_tool_use" && /synthetic error/.test(p.detail)).length, 2);
    const engine = new Engine();
    engine.loadSession(session);
    assertAnswered(engine.messages(), "errorResult");
    usable(engine, "errorResult session");
  }
  const bad = [5, "errorResult", [], new Map(), Object.create({ unansweredToolUse: "errorResult" }), revokedObject(), throwing({})];
  for (const options of bad) {
    refused(() => readSession(file, options), "INVALID_ARGUMENT", undefined, `readSession(file, ${typeof options})`);
    refused(() => new SessionImporter(options), "INVALID_ARGUMENT", undefined, `new SessionImporter(${typeof options})`);
  }
  refused(() => readSession(file, { unansweredToolUse: "keep" }), "INVALID_ARGUMENT", "options.unansweredToolUse");
  refused(() => readSession(file, { unansweredToolUse: 1 }), "INVALID_ARGUMENT", "options.unansweredToolUse");
  refused(() => readSession(file, { unanswered: "drop" }), "INVALID_ARGUMENT", "options.unanswered");
  assert.deepEqual(readSession(file, Object.assign(Object.create(null), { unansweredToolUse: "drop" })), dropped);
  assert.deepEqual(readSession(file, null), dropped);
});

/** Every tool_use of `messages` answered by a tool_result in the user
 * messages right after it (the API joins consecutive user messages). */
function assertAnswered(messages, label) {
  const blocks = (m) => (Array.isArray(m?.content) ? m.content : []);
  for (let i = 0; i < messages.length; i++) {
    const calls = blocks(messages[i]).filter((b) => b.type === "tool_use").map((b) => b.id);
    if (!calls.length) continue;
    const answers = new Set();
    for (let j = i + 1; messages[j]?.role === "user"; j++) {
      for (const b of blocks(messages[j])) if (b.type === "tool_result") answers.add(b.tool_use_id);
    }
    for (const id of calls) assert.ok(answers.has(id), `${label}: tool_use ${id} of message ${i} is not answered in the user messages after it`);
  }
}

// 300 flips and 200 cuts in both modes: core's transcript::problems test;
// here 40 rounds through the package.
test("the fixture files, single-byte flips and half-cut lines: every resumed view answers every tool_use, in both modes", () => {
  const dir = new URL("../../crates/compaction-core/tests/fixtures/transcripts/", import.meta.url);
  const names = readdirSync(dir).filter((n) => n.endsWith(".jsonl")).sort();
  assert.ok(names.length >= 5, `${names.length} fixture files`);
  let seed = 15;
  const next = (n) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  let resumes = 0;
  for (let round = 0; round < 40; round++) {
    let bytes = Buffer.from(readFileSync(new URL(names[round % names.length], dir)));
    if (round < 24) {
      bytes[next(bytes.length)] = next(256);
    } else {
      // One line loses its second half (its newline stays).
      const starts = [0];
      for (let i = 0; i < bytes.length - 1; i++) if (bytes[i] === 10) starts.push(i + 1);
      const at = starts[next(starts.length)];
      const end = bytes.indexOf(10, at) < 0 ? bytes.length : bytes.indexOf(10, at);
      bytes = Buffer.concat([bytes.subarray(0, at + Math.floor((end - at) / 2)), bytes.subarray(end)]);
    }
    for (const unansweredToolUse of ["drop", "errorResult"]) {
      const session = readSession(bytes, { unansweredToolUse });
      assertAnswered(session.messages, `round ${round} ${unansweredToolUse}`);
      // Into an engine now and then (the view it sends is the session's).
      if (round % 8 === 0) {
        const engine = new Engine();
        attack(() => engine.loadSession(session), `fixture round ${round} ${unansweredToolUse}`);
        assertAnswered(engine.messages(), `round ${round} ${unansweredToolUse} loaded`);
        engine.free();
      }
      resumes++;
    }
  }
  assert.equal(resumes, 80);
});

test("ENGINE_BUSY exactly during a pending prepare(): a second prepare, a change from a callback; reads are fine", async () => {
  const engine = new Engine({ preset: "client-2.1", window: 50_000, maxOutputTokens: 4_000 });
  for (let i = 0; i < 18; i++) {
    engine.append({ role: "user", content: `question ${i}: ${"q".repeat(4_000)}` });
    engine.append({ role: "assistant", content: `answer ${i}: ${"a".repeat(4_000)}` });
  }
  let release;
  const gate = new Promise((r) => (release = r));
  let inside;
  const first = engine.prepare({
    summarize: async () => {
      inside = { messages: engine.messages().length, count: engine.count().tokens };
      refused(() => engine.append({ role: "user", content: "x" }), "ENGINE_BUSY", "", "append inside summarize");
      await gate;
      return "<summary>the summary</summary>";
    },
  });
  await new Promise((r) => setTimeout(r, 0));
  refused(() => engine.prepare({ summarize: () => "x" }), "ENGINE_BUSY", "", "second prepare");
  refused(() => engine.append({ role: "user", content: "x" }), "ENGINE_BUSY", "", "append during prepare");
  refused(() => engine.beforeCall(), "ENGINE_BUSY", "", "beforeCall during prepare");
  assert.ok(engine.count().tokens > 0, "a read during prepare");
  release();
  const decision = await first;
  assert.ok(inside.messages > 0 && inside.count > 0);
  assert.ok(decision.compaction, "the compaction ran");
  usable(engine, "prepare");
  // Not busy before or after: plain calls never say ENGINE_BUSY.
  assert.ok(attack(() => engine.beforeCall(), "beforeCall after").ok);
  engine.free();
});

test("load/loadJson are all or nothing on DUPLICATE_UUID: the view and records() do not change", () => {
  const engine = new Engine();
  engine.loadJson('{"system":"first","messages":[{"role":"user","content":"a","uuid":"u1"}]}');
  const view = JSON.stringify(engine.view());
  const records = JSON.stringify(engine.records());
  const count = engine.count().tokens;
  const batches = [
    [{ role: "assistant", content: "b", uuid: "u2" }, { role: "user", content: "c", uuid: "u1" }],
    [{ role: "assistant", content: "b", uuid: "u3" }, { role: "user", content: "c", uuid: "u3" }],
  ];
  for (const batch of batches) {
    const snapshot = structuredClone(batch);
    refused(() => engine.load(batch), "DUPLICATE_UUID", "messages[1].uuid", "load duplicate");
    refused(() => engine.loadJson(JSON.stringify({ system: "changed", messages: batch })), "DUPLICATE_UUID", "messages[1].uuid", "loadJson duplicate");
    assert.deepEqual(batch, snapshot, "the input is not changed");
  }
  assert.equal(JSON.stringify(engine.view()), view);
  assert.equal(JSON.stringify(engine.records()), records);
  assert.equal(engine.count().tokens, count, "the system prompt of a refused body is not set");
  usable(engine, "duplicates");
});

test("usage past 2^53 - 1 is refused with a code, never wrapped; a session holding one still loads", () => {
  const engine = new Engine();
  engine.append({ role: "user", content: "hi" });
  const big = { role: "assistant", content: "ok", usage: { input_tokens: 18446744073709551615, output_tokens: 1 } };
  refused(() => engine.append(big), "INVALID_MESSAGE", "message.usage.input_tokens");
  refused(() => engine.loadJson('[{"role":"assistant","content":"ok","usage":{"input_tokens":18446744073709551615}}]'), "INVALID_MESSAGE", "messages[0].usage.input_tokens");
  refused(() => engine.append({ ...big, usage: { input_tokens: 2 ** 53 } }), "INVALID_MESSAGE", "message.usage.input_tokens");
  // Each a safe count, their sum not: the count adds them (issue 27).
  refused(() => engine.append({ ...big, usage: { input_tokens: 2 ** 53 - 1, cache_read_input_tokens: 2 ** 53 - 1 } }), "INVALID_MESSAGE", "message.usage");
  assert.equal(engine.messages().length, 1);
  const file =
    '{"type":"user","uuid":"a","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"hi"}}\n' +
    '{"type":"assistant","uuid":"b","parentUuid":"a","sessionId":"s","message":{"role":"assistant","content":"ok","usage":{"input_tokens":18446744073709551615,"output_tokens":1}}}\n';
  const resumed = new Engine();
  resumed.loadSession(readSession(file));
  assert.equal(resumed.messages().length, 2);
  assert.ok(resumed.count().tokens < 1000, "the count is an estimate, not a wrapped sum");
});

test("settings: own properties of plain objects only; arrays, Maps, inherited values refused", () => {
  for (const settings of [Object.create({ window: 300_000 }), [], new Map([["window", 300_000]]), new (class S {})()]) {
    refused(() => new Engine(settings), "INVALID_SETTING", "settings", `settings ${settings.constructor?.name}`);
    refused(() => thresholds(settings), "INVALID_SETTING", "settings", `thresholds ${settings.constructor?.name}`);
  }
  const bare = Object.assign(Object.create(null), { window: 100_000 });
  assert.equal(new Engine(bare).lines().budget, thresholds({ window: 100_000 }).budget);
});

test("a lone surrogate in append, load and loadJson reads as U+FFFD, as the importer reads it", () => {
  const engine = new Engine();
  engine.append({ role: "user", content: "cut \ud83d" });
  engine.load([{ role: "assistant", content: "\ude00 tail" }]);
  engine.loadJson('[{"role":"user","content":"json \\ud83d"}]');
  assert.deepEqual(
    engine.messages().map((m) => m.content),
    ["cut \ufffd", "\ufffd tail", "json \ufffd"],
  );
});

test("prepare(5), prepare(null), an SDK-like client: INVALID_ARGUMENT, nothing runs", () => {
  const engine = new Engine();
  engine.append({ role: "user", content: "hi" });
  for (const host of [5, null, undefined, "x", { messages: { create() {} } }, { summarize: 5 }]) {
    refused(() => engine.prepare(host), "INVALID_ARGUMENT", undefined, `prepare(${typeof host})`);
  }
  const getterHost = {
    get summarize() {
      throw new Error("summarize getter");
    },
  };
  const e = refused(() => engine.prepare(getterHost), "INVALID_ARGUMENT", "host.summarize", "prepare(getter)");
  assert.equal(e.cause?.message, "summarize getter", "the host's own error is the cause");
  usable(engine, "prepare");
});

test("a freed engine: free() twice is fine, calls say ENGINE_FREED", () => {
  const engine = new Engine();
  engine.free();
  engine.free();
  refused(() => engine.count(), "ENGINE_FREED");
  refused(() => engine.append({ role: "user", content: "x" }), "ENGINE_FREED");
});

test("wasm memory does not grow across 1,000 engine create/free cycles", () => {
  const cycle = () => {
    const engine = new Engine("seed");
    engine.append({ role: "user", content: "a question of some length ".repeat(20) });
    engine.append({ role: "assistant", content: "an answer" });
    engine.beforeCall();
    engine.free();
  };
  for (let i = 0; i < 50; i++) cycle();
  const start = memory.buffer.byteLength;
  for (let i = 0; i < 1000; i++) cycle();
  assert.equal(memory.buffer.byteLength, start);
});

test("a block its role cannot hold is refused (tool_use in a user message, tool_result in an assistant one); a ceiling above the window too", () => {
  const engine = new Engine();
  const use = { role: "user", content: [{ type: "text", text: "x" }, { type: "tool_use", id: "t1", name: "Read", input: {} }] };
  refused(() => engine.append(use), "INVALID_MESSAGE", "message.content[1]");
  refused(() => engine.load([{ role: "user", content: "ok" }, use]), "INVALID_MESSAGE", "messages[1].content[1]");
  refused(() => engine.loadJson(JSON.stringify([{ role: "assistant", content: [{ type: "tool_result", tool_use_id: "t1", content: "r" }] }])), "INVALID_MESSAGE", "messages[0].content[0]");
  assert.equal(engine.messages().length, 0);
  refused(() => new Engine({ window: 200_000, ceiling: 1e15 }), "INVALID_SETTING", "ceiling");
  refused(() => thresholds({ window: 200_000, ceiling: 200_001 }), "INVALID_SETTING", "ceiling");
  assert.equal(thresholds({ window: 200_000, ceiling: 200_000 }).blocked, 197_000);
});
