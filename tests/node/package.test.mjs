// The built npm package, imported by name exactly as a user would after
// `npm install context-compaction` (scripts/test.sh installs the packed
// tarball into tests/node_modules).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { thresholds } from "context-compaction";

const here = dirname(fileURLToPath(import.meta.url));
const snapshotDir = join(here, "../../crates/compaction-wasm/snapshots");
const packageDir = dirname(createRequire(import.meta.url).resolve("context-compaction/package.json"));

const five = (t) => [t.budget, t.precompute, t.warn, t.compact, t.blocked];

test("R1.3 worked example", () => {
  const t = thresholds({ window: 200_000, maxOutputTokens: 20_000 });
  assert.deepEqual(five(t), [180_000, 144_000, 147_000, 167_000, 177_000]);
  assert.equal(t.overrideRequestedPct, null);
  assert.equal(t.overrideAppliedPct, null);
});

test("1,000,000 window with 32,000 max output", () => {
  const t = thresholds({ window: 1_000_000, maxOutputTokens: 32_000 });
  assert.deepEqual(five(t), [980_000, 784_000, 947_000, 967_000, 977_000]);
});

test("R1.5a small windows: ordered lines inside the budget", () => {
  const t = thresholds({ window: 8192, maxOutputTokens: 1024 });
  assert.deepEqual(five(t), [7_168, 5_734, 1_076, 4_768, 6_615]);
  for (const [window, maxOutputTokens] of [[16_384, 4_096], [32_768, 4_096], [32_768, 4_000], [65_536, 8_192]]) {
    const l = thresholds({ window, maxOutputTokens });
    assert.ok(0 < l.warn && l.warn <= l.compact && l.compact < l.blocked && l.blocked <= l.budget, JSON.stringify(l));
  }
});

test("the override can only lower the compact line; requested vs applied", () => {
  const lowered = thresholds({ window: 200_000, overridePct: 50 });
  assert.equal(lowered.compact, 90_000);
  assert.equal(lowered.warn, 70_000);
  assert.equal(lowered.overrideAppliedPct, 50);
  const clamped = thresholds({ window: 200_000, overridePct: 95 });
  assert.equal(clamped.compact, 167_000);
  assert.equal(clamped.overrideRequestedPct, 95);
  assert.equal(clamped.overrideAppliedPct, null);
});

test("results are plain objects with number fields", () => {
  const t = thresholds({ window: 200_000 });
  assert.equal(Object.getPrototypeOf(t), Object.prototype);
  for (const [key, value] of Object.entries(t)) {
    assert.ok(value === null || typeof value === "number", `${key} is ${typeof value}`);
  }
  assert.deepEqual(JSON.parse(JSON.stringify(t)), t);
});

test("inputs are not mutated", () => {
  const settings = Object.freeze({ window: 200_000, maxOutputTokens: 20_000 });
  thresholds(settings);
  assert.deepEqual(settings, { window: 200_000, maxOutputTokens: 20_000 });
});

const bad = [
  [{ window: NaN }, "window"],
  [{ window: -1 }, "window"],
  [{ window: 2 ** 53 }, "window"],
  [{ window: "200000" }, "window"],
  [{ window: 1.5 }, "window"],
  [{ window: 10_000 }, "window"],
  [{}, "window"],
  [{ window: 200_000, maxOutputTokens: NaN }, "maxOutputTokens"],
  [{ window: 200_000, maxOutputTokens: "lots" }, "maxOutputTokens"],
  [{ window: 200_000, reserveCap: 0 }, "reserveCap"],
  [{ window: 200_000, ceiling: null }, "ceiling"],
  [{ window: 200_000, overridePct: 0 }, "overridePct"],
  [{ window: 200_000, overridePct: 101 }, "overridePct"],
  [{ window: 200_000, maxOutput: 1 }, "maxOutput"],
  [null, "settings"],
  ["200000", "settings"],
  [undefined, "settings"],
];

for (const [settings, field] of bad) {
  test(`bad input ${JSON.stringify(settings) ?? String(settings)} → Error naming ${field}; module survives`, () => {
    assert.throws(
      () => thresholds(settings),
      (e) => {
        assert.ok(e instanceof Error, `thrown value is ${typeof e}, not an Error`);
        assert.equal(e.code, "INVALID_SETTING");
        assert.equal(e.field, field);
        assert.match(e.message, new RegExp(field));
        return true;
      },
    );
    assert.equal(thresholds({ window: 200_000 }).compact, 167_000);
  });
}

// The public part of the .d.ts. scripts/build-pkg.sh moves wasm-bindgen's
// loader types into NAME_init.d.ts: their `InitOutput` lists the module's
// raw exports under mangled names that change with the toolchain and any
// code change, and they name browser-only types.
const publicTypes = (dts) => dts;

for (const name of ["compaction_wasm", "compaction_formats", "compaction_session"]) {
  test(`${name}.d.ts names no browser-only type (a Node project without lib "dom" compiles it)`, () => {
    const dts = readFileSync(join(packageDir, `${name}.d.ts`), "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
    for (const dom of ["RequestInfo", "BufferSource", "WebAssembly.", "InitInput", "InitOutput"]) {
      assert.ok(!dts.includes(dom), `${name}.d.ts names ${dom}`);
    }
    const init = readFileSync(join(packageDir, `${name}_init.d.ts`), "utf8");
    assert.match(init, /^export type InitInput = /);
    assert.match(init, /export interface InitOutput \{/);
  });
}

for (const name of ["compaction_wasm", "compaction_formats", "compaction_session"]) {
  test(`the generated ${name}.d.ts matches the committed snapshot`, () => {
    const built = publicTypes(readFileSync(join(packageDir, `${name}.d.ts`), "utf8"));
    const path = join(snapshotDir, `${name}.d.ts`);
    if (process.env.UPDATE_SNAPSHOTS === "1") {
      writeFileSync(path, built);
    }
    const committed = readFileSync(path, "utf8");
    assert.equal(
      built,
      committed,
      "pkg's .d.ts changed: review it, then run `UPDATE_SNAPSHOTS=1 scripts/test.sh` to accept",
    );
  });
}

/** The declarations of a generated .d.ts, without comments (they may say "any"). */
const declarations = (name) =>
  readFileSync(join(packageDir, `${name}.d.ts`), "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/\/\/.*$/gm, "");

test("the exported functions, classes and data shapes have no `any`", () => {
  const engine = declarations("compaction_wasm");
  assert.match(engine, /export function thresholds\(settings: ThresholdSettings\): Thresholds;/);
  assert.match(engine, /export function plan\(/);
  assert.match(engine, /export class Engine \{/);
  assert.match(engine, /loadSession\(session: Session\): SessionLoad;/);
  assert.match(engine, /prepare\(host: Host\): Promise<Decision>;/);
  assert.match(engine, /answer\(id: number, answer: string \| Answer\): Outcome;/);
  // One answer method; the requests a discriminated union on `kind`.
  assert.doesNotMatch(engine, /answer[A-Z]\w*\(/);
  assert.match(engine, /export type Request = \(\{ kind: "preCompact" \} & PreCompactRequest\) \| \(\{ kind: "summary" \} & SummaryRequest\)/);
  const session = declarations("compaction_session");
  assert.match(session, /export class SessionImporter \{/);
  assert.match(session, /finish\(\): Session;/);
  assert.match(session, /export function readSession\(source: string \| Uint8Array, options\?: SessionOptions \| null\): Session;/);
  assert.match(session, /constructor\(options\?: SessionOptions \| null\);/);
  // The error classifiers take whatever a `catch` caught: `unknown`, as
  // TypeScript types a caught value; nothing else may be `unknown`.
  // Read in JS (guard.js), they are typed in overflow.d.ts, which the
  // entries' types re-export.
  const overflow = declarations("overflow");
  assert.match(overflow, /export function isPromptTooLong\(error: unknown\): boolean;/);
  assert.match(overflow, /export function promptTooLongTokens\(error: unknown\): number \| null;/);
  for (const entry of ["index", "web", "formats"]) {
    assert.match(declarations(entry), /export \{ isPromptTooLong, promptTooLongTokens \} from "\.\/overflow\.js";/, entry);
  }
  // The engine module reads Anthropic messages only; the formats module is
  // the same API with every format.
  assert.match(engine, /format\?: "anthropic";/);
  const formats = declarations("compaction_formats");
  assert.match(formats, /format\?: "anthropic" \| "ai-sdk" \| "openai-chat" \| "openai-responses" \| "langchain";/);
  assert.match(formats, /export class Engine \{/);
  assert.match(formats, /export function plan\(/);
  // So is what a background precompute's summariser threw (PrecomputeSettled).
  assert.match(engine, /export type PrecomputeSettled = \{ id: number; ok: true \} \| \{ id: number; ok: false; error: unknown \};/);
  const caught = (text) => text.replace(/\(error: unknown\)/g, "(error)").replace(/ok: false; error: unknown \}/g, "ok: false; error }");
  const rest = caught(engine);
  for (const part of [rest, caught(formats), session, caught(overflow)]) {
    assert.doesNotMatch(part, /\bany\b/);
    assert.doesNotMatch(part, /\bunknown\b/);
  }
});

test("package.json: the engine, the provider formats and session files as modules only their importers load", () => {
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  assert.equal(manifest.type, "module");
  assert.deepEqual(Object.keys(manifest.exports["."]), ["types", "node", "default"]);
  assert.deepEqual(manifest.exports["."].node, { import: "./node.js", require: "./require.cjs" });
  assert.deepEqual(manifest.exports["./web"], { types: "./web.d.ts", default: "./web.js" });
  assert.equal(manifest.exports["./compaction_wasm_bg.wasm"], "./compaction_wasm_bg.wasm");
  assert.match(manifest.repository.url, /github\.com/);
  assert.deepEqual(manifest.exports["./formats/web"], { types: "./formats-web.d.ts", default: "./formats-web.js" });
  for (const file of ["LICENSE-MIT", "LICENSE-APACHE", "SPEC.md", "web.js", "web.d.ts", "require.cjs", "formats.d.ts", "formats-web.js", "formats-web.d.ts", "session-web.js", "session-web.d.ts"]) {
    assert.ok(manifest.files.includes(file), file);
    assert.ok(readFileSync(join(packageDir, file), "utf8").length > 0, file);
  }
  assert.deepEqual(Object.keys(manifest.exports["./session"]), ["types", "node", "default"]);
  assert.deepEqual(manifest.exports["./session/web"], { types: "./session-web.d.ts", default: "./session-web.js" });
  assert.deepEqual(manifest.exports["./formats"], {
    types: "./formats.d.ts",
    node: "./formats-node.js",
    default: "./formats-browser.js",
  });
  const wasmFiles = manifest.files.filter((f) => f.endsWith(".wasm"));
  assert.deepEqual(wasmFiles, ["compaction_wasm_bg.wasm", "compaction_formats_bg.wasm", "compaction_session_bg.wasm"]);
  const engine = ["compaction_wasm_bg", ["compaction_session", "compaction_formats"]];
  const formats = ["compaction_formats_bg", ["compaction_wasm", "compaction_session"]];
  for (const [entry, wasm, others] of [
    ["node.js", ...engine],
    ["browser.js", ...engine],
    ["web.js", ...engine],
    ["formats-node.js", ...formats],
    ["formats-browser.js", ...formats],
    ["formats-web.js", ...formats],
    ["session-node.js", "compaction_session_bg", ["compaction_wasm", "compaction_formats"]],
    ["session-browser.js", "compaction_session_bg", ["compaction_wasm", "compaction_formats"]],
    ["session-web.js", "compaction_session_bg", ["compaction_wasm", "compaction_formats"]],
  ]) {
    const source = readFileSync(join(packageDir, entry), "utf8");
    assert.match(source, new RegExp(`${wasm}\\.wasm`), entry);
    for (const other of others) {
      assert.doesNotMatch(source, new RegExp(`${other}[._]`), `${entry} must not load the other module`);
    }
  }
  // The SDK entries are built on the formats entry, never the engine's.
  for (const entry of ["ai-sdk.js", "openai.js", "langchain.js"]) {
    const source = readFileSync(join(packageDir, entry), "utf8");
    assert.match(source, /from "context-compaction\/formats";/, entry);
    assert.doesNotMatch(source, /from "context-compaction";/, entry);
  }
});

test("web.js, formats-web.js and session-web.js have no top-level await; require() of the package works or says to use import", () => {
  for (const entry of ["web.js", "formats-web.js", "session-web.js"]) {
    const web = readFileSync(join(packageDir, entry), "utf8");
    const code = web.replace(/\/\/.*$/gm, "").replace(/async function[\s\S]*?\n\}/g, "");
    assert.doesNotMatch(code, /\bawait\b/, entry);
  }
  const required = createRequire(import.meta.url)("context-compaction");
  assert.equal(required.thresholds({ window: 200_000, maxOutputTokens: 20_000 }).compact, 167_000);
  assert.match(readFileSync(join(packageDir, "require.cjs"), "utf8"), /use `import/);
});
