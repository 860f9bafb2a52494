// The package through bundlers and an edge runtime, as their users build
// it: `context-compaction/web` bundled by esbuild (an IIFE: no top-level
// await anywhere, the .wasm through esbuild's `file` loader) and by Vite
// (`init()` finds the emitted asset), each page loaded in headless Chromium
// with no console error and a working engine; the default entry bundled by
// esbuild fails with an error that names the fix; and a worker run by
// workerd (the `workerd` npm package's binary) with `initSync({ module })`.
// `context-compaction/formats/web` goes through the same two bundlers;
// `context-compaction/session/web` through esbuild, on a page in another
// folder than its bundle.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { serve } from "./server.mjs";
import { launch, pageWithErrors } from "./browser.mjs";

const tests = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(tests, "../target/bundlers");
const bin = (name) => join(tests, "node_modules/.bin", name);
const run = (cmd, args) => execFileSync(bin(cmd), args, { cwd: tests, encoding: "utf8", stdio: "pipe" });

let server, browser;

before(async () => {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  run("esbuild", ["bundlers/esbuild/main.js", "--bundle", "--format=iife", "--loader:.wasm=file", `--outdir=${out}/esbuild`]);
  run("esbuild", ["bundlers/esbuild/formats.js", "--bundle", "--format=iife", "--loader:.wasm=file", `--outdir=${out}/esbuild`]);
  // A docs site's layout: the bundle in assets/, the page in docs/, so the
  // .wasm URLs come from --public-path (the file loader's default is relative
  // to the page, which would fetch /esbuild-site/<hash>.wasm and fail).
  run("esbuild", ["bundlers/esbuild/session.js", "--bundle", "--format=iife", "--loader:.wasm=file", "--public-path=/esbuild-site/assets/", `--outdir=${out}/esbuild-site/assets`]);
  mkdirSync(join(out, "esbuild-site/docs"), { recursive: true });
  writeFileSync(join(out, "esbuild-site/docs/session.html"), `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script src="../assets/session.js"></script>`);
  run("esbuild", ["bundlers/esbuild/trap.js", "--bundle", "--format=esm", `--outfile=${out}/esbuild/trap.js`]);
  run("esbuild", ["bundlers/esbuild/session-trap.js", "--bundle", "--format=esm", `--outfile=${out}/esbuild/session-trap.js`]);
  const pages = [["index.html", "main.js"], ["formats.html", "formats.js"], ["trap.html", "trap.js"], ["session-trap.html", "session-trap.js"]];
  for (const [name, script] of pages) {
    const type = script.endsWith("trap.js") ? ' type="module"' : "";
    writeFileSync(join(out, "esbuild", name), `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script${type} src="./${script}"></script>`);
  }
  run("vite", ["build", "bundlers/vite", "--base", "./", "--outDir", `${out}/vite`, "--emptyOutDir", "--logLevel", "warn"]);
  run("vite", ["build", "bundlers/vite-formats", "--base", "./", "--outDir", `${out}/vite-formats`, "--emptyOutDir", "--logLevel", "warn"]);
  server = await serve({ "/esbuild-site/": join(out, "esbuild-site"), "/esbuild/": join(out, "esbuild"), "/vite/": join(out, "vite"), "/vite-formats/": join(out, "vite-formats") });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function load(path) {
  const context = await browser.newContext();
  const { page, errors } = await pageWithErrors(context);
  await page.goto(`${server.url}${path}`);
  await page.waitForFunction(() => window.results !== undefined, null, { timeout: 15_000 }).catch(() => {});
  const results = await page.evaluate(() => window.results);
  await context.close();
  return { results, errors };
}

function assertWorkingEngine(results) {
  assert.equal(results.failed, undefined, results.failed);
  assert.equal(results.compact, 167_000);
  assert.deepEqual(results.asked, ["compact"]);
  assert.notEqual(results.status, "compactionDue");
  assert.ok(results.viewLength < 34, `${results.viewLength}`);
  assert.deepEqual(results.error, { isError: true, code: "INVALID_MESSAGE" });
}

test("esbuild: context-compaction/web in an IIFE bundle, the .wasm by the file loader", async () => {
  const { results, errors } = await load("/esbuild/index.html");
  assertWorkingEngine(results);
  assert.deepEqual(errors, []);
});

test("esbuild: context-compaction/session/web beside /web in an IIFE, the page in another folder than the bundle", async () => {
  const { results, errors } = await load("/esbuild-site/docs/session.html");
  assert.equal(results?.failed, undefined, results?.failed);
  assert.deepEqual(results, { messages: 2, appended: 2, roles: ["user", "assistant"] });
  assert.deepEqual(errors, []);
});

test("Vite: context-compaction/web with init() and no argument", async () => {
  const { results, errors } = await load("/vite/index.html");
  assertWorkingEngine(results);
  assert.deepEqual(errors, []);
});

/** The formats page's engine: a Chat Completions history compacted, in its own shape. */
function assertWorkingFormatsEngine(results) {
  assert.equal(results.failed, undefined, results.failed);
  assert.equal(results.compact, 167_000);
  assert.deepEqual(results.asked, ["compact"]);
  assert.equal(results.status, "proceed");
  assert.ok(results.viewLength < 97, `${results.viewLength}`);
  assert.deepEqual(results.first, { role: "system", content: "You are terse." });
  assert.deepEqual(results.last, { role: "assistant", content: "answer 23" });
  assert.deepEqual(results.error, { isError: true, code: "INVALID_MESSAGE" });
}

test("esbuild: context-compaction/formats/web in an IIFE bundle, the .wasm by the file loader", async () => {
  const { results, errors } = await load("/esbuild/formats.html");
  assertWorkingFormatsEngine(results);
  assert.deepEqual(errors, []);
});

test("Vite: context-compaction/formats/web with init() and no argument", async () => {
  const { results, errors } = await load("/vite-formats/index.html");
  assertWorkingFormatsEngine(results);
  assert.deepEqual(errors, []);
});

test("esbuild with the default entry: the .wasm is not copied, and the error says to use /web", async () => {
  const { results, errors } = await load("/esbuild/trap.html");
  assert.equal(results, undefined);
  assert.ok(errors.some((e) => e.includes('import from "context-compaction/web"')), errors.join("\n"));
});

test("esbuild with context-compaction/session: the .wasm is not copied, and the error says to use /session/web", async () => {
  const { results, errors } = await load("/esbuild/session-trap.html");
  assert.equal(results, undefined);
  assert.ok(errors.some((e) => e.includes('import from "context-compaction/session/web"')), errors.join("\n"));
});

/** A free port on 127.0.0.1. */
const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

test("workerd: the engine in a worker, initSync({ module }) with the .wasm as a compiled module", async () => {
  const dir = join(out, "workerd");
  mkdirSync(dir, { recursive: true });
  run("esbuild", ["bundlers/workerd/worker.js", "--bundle", "--format=esm", "--external:*.wasm", `--outfile=${dir}/worker.js`]);
  copyFileSync(join(tests, "node_modules/context-compaction/compaction_wasm_bg.wasm"), join(dir, "compaction_wasm_bg.wasm"));
  const port = await freePort();
  writeFileSync(
    join(dir, "config.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "context-compaction/compaction_wasm_bg.wasm", wasm = embed "compaction_wasm_bg.wasm"),
  ],
  compatibilityDate = "2026-11-01",
);
`,
  );
  const workerd = spawn(bin("workerd"), ["serve", join(dir, "config.capnp")], { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  workerd.stdout.on("data", (d) => (log += d));
  workerd.stderr.on("data", (d) => (log += d));
  try {
    let body;
    for (let i = 0; i < 100 && body === undefined; i++) {
      try {
        body = await (await fetch(`http://127.0.0.1:${port}/`)).json();
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    assert.ok(body, `workerd did not answer: ${log}`);
    assert.deepEqual(body, { compact: 167_000, status: "proceed", messages: 1, overflow: true });
  } finally {
    workerd.kill();
  }
});
