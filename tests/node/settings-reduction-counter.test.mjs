// Two engine settings of issue 13: budget reduction's numbers (or off),
// and the host's own token counter, whose failures are the host's.
import { test } from "node:test";
import assert from "node:assert/strict";

import { Engine, plan } from "context-compaction";

const call = (n) => ({
  role: "assistant",
  content: [{ type: "tool_use", id: `toolu_${n}`, name: "Read", input: { file_path: `f${n}` } }],
});
const result = (n, text) => ({ role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${n}`, content: text }] });
const sentResult = (engine) => engine.messages().at(-1).content[0].content;

test("reduction: the defaults cut a result over 4,000 characters to 2,400 + 1,600", () => {
  const engine = new Engine("seed");
  engine.append({ role: "user", content: "go" });
  engine.append(call(1));
  engine.append(result(1, "a".repeat(3000) + "b".repeat(3000)));
  const text = sentResult(engine);
  assert.match(text, /^a{2400}\n\.\.\.\[2000 chars removed\]\.\.\.\nb{1600}$/);
});

test("reduction: threshold, head and tail are settings; false turns it off", () => {
  const engine = new Engine({ preset: "seed", reduction: { maxChars: 1000, headChars: 100, tailChars: 50 } });
  engine.append({ role: "user", content: "go" });
  engine.append(call(1));
  engine.append(result(1, "x".repeat(2000)));
  assert.equal(sentResult(engine), `${"x".repeat(100)}\n...[1850 chars removed]...\n${"x".repeat(50)}`);
  const d = engine.beforeCall();
  const step = d.steps.find((s) => s.rule === "R2.2");
  assert.match(step.reason, /over 1000 characters kept their first 100 and last 50/);

  const off = new Engine({ preset: "seed", reduction: false });
  off.append({ role: "user", content: "go" });
  off.append(call(1));
  off.append(result(1, "x".repeat(50_000)));
  assert.equal(sentResult(off), "x".repeat(50_000));
  // The client presets send results whole; a number turns it back on.
  const client = new Engine({ preset: "client-2.1", reduction: { maxChars: 10_000 } });
  client.append({ role: "user", content: "go" });
  client.append(call(1));
  client.append(result(1, "x".repeat(20_000)));
  assert.match(sentResult(client), /\[16000 chars removed\]/);
});

test("reduction: bad numbers are INVALID_SETTING naming the field", () => {
  const bad = [
    [{ maxChars: 100, headChars: 60, tailChars: 41 }, "reduction", /head \+ tail must be at most the threshold/],
    [{ maxChars: -1 }, "reduction.maxChars", /whole number/],
    [{ headChars: 1.5 }, "reduction.headChars", /whole number/],
    [{ tail: 3 }, undefined, /tail/],
    ["on", "reduction", /must be false or/],
    [true, "reduction", /must be false or/],
  ];
  for (const [reduction, field, message] of bad) {
    assert.throws(
      () => new Engine({ reduction }),
      (e) => e instanceof Error && e.code === "INVALID_SETTING" && (field === undefined || e.field === field) && message.test(e.message),
      JSON.stringify(reduction),
    );
  }
});

test("countTokens: the host's counter counts the text", () => {
  const seen = [];
  const countTokens = (text) => {
    seen.push(text);
    return text.length; // one token a character
  };
  const engine = new Engine({ preset: "seed", countTokens });
  engine.append({ role: "user", content: "x".repeat(8000) });
  const builtIn = new Engine("seed");
  builtIn.append({ role: "user", content: "x".repeat(8000) });
  assert.ok(seen.includes("x".repeat(8000)));
  assert.ok(engine.count().tokens >= 8000, `${engine.count().tokens}`);
  assert.ok(builtIn.count().tokens < 2500, `${builtIn.count().tokens}`);
  const d = plan({ preset: "seed", countTokens }, [{ role: "user", content: "y".repeat(4000) }]);
  assert.ok(d.count.tokens >= 4000, `${d.count.tokens}`);
});

test("countTokens: a throw is the host's error, with its cause, and the engine stays usable", () => {
  const boom = new Error("tokenizer not loaded");
  let fail = false;
  const engine = new Engine({ preset: "seed", countTokens: (t) => (fail ? (() => { throw boom; })() : t.length) });
  engine.append({ role: "user", content: "hello" });
  fail = true;
  assert.throws(
    () => engine.append({ role: "user", content: "again" }),
    (e) => e instanceof Error && e.code === "COUNT_TOKENS_FAILED" && e.field === "countTokens" && e.cause === boom && /tokenizer not loaded/.test(e.message),
  );
  fail = false;
  engine.append({ role: "user", content: "and on" });
  assert.equal(engine.messages().length, 3);
});

test("countTokens: a result that is not a token count fails too; a non-function is INVALID_SETTING", () => {
  const engine = new Engine({ preset: "seed", countTokens: () => -3 });
  assert.throws(
    () => engine.append({ role: "user", content: "x" }),
    (e) => e.code === "COUNT_TOKENS_FAILED" && /whole number/.test(e.cause.message),
  );
  assert.throws(
    () => new Engine({ countTokens: 4 }),
    (e) => e.code === "INVALID_SETTING" && e.field === "countTokens",
  );
});

test("countTokens: a throw inside prepare() rejects it with the host's error", async () => {
  const boom = new Error("no tokenizer");
  let fail = false;
  const countTokens = (t) => {
    if (fail) throw boom;
    return Math.ceil(t.length / 4);
  };
  const engine = new Engine({ preset: "seed", window: 8192, maxOutputTokens: 1024, snip: false, collapse: false, countTokens });
  for (let n = 0; n < 6; n++) {
    engine.append({ role: "user", content: `step ${n} `.repeat(600) });
    engine.append({ role: "assistant", content: `done ${n} `.repeat(600) });
  }
  fail = true; // the summary request is counted inside prepare()
  let asked = 0;
  await assert.rejects(
    engine.prepare({ summarize: async () => { asked++; return "<summary>s</summary>"; } }),
    (e) => e.code === "COUNT_TOKENS_FAILED" && e.cause === boom,
  );
  assert.ok(asked <= 1, `${asked}`);
});
