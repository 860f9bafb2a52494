// scripts/serve.sh (issue 26, point 12): the page it serves logs no console
// error (Trunk's inline auto-reload script would break the page's CSP), and
// serving never touches the release build in dist/ that the other browser
// tests use. Starts the real script (a debug build into a temporary
// directory) and stops its process group at the end.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { launch, pageWithErrors } from "./browser.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const script = join(root, "scripts/serve.sh");
let child, browser, serveDist;

after(async () => {
  await browser?.close();
  if (child && child.exitCode === null) {
    process.kill(-child.pid, "SIGTERM");
    await new Promise((r) => {
      child.once("exit", r);
      setTimeout(r, 10_000).unref();
    });
  }
  // The debug build serve.sh wrote (18 MB): every run left one.
  if (serveDist) rmSync(serveDist, { recursive: true, force: true, maxRetries: 3 });
});

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** A hash of every file in dist/, or null when there is none. */
function distHash() {
  const dist = join(root, "dist");
  if (!existsSync(join(dist, "index.html"))) return null;
  const out = spawnSync("find", [dist, "-type", "f"], { encoding: "utf8" }).stdout.split("\n").filter(Boolean).sort();
  const h = createHash("sha256");
  for (const f of out) h.update(f).update(readFileSync(f));
  return h.digest("hex");
}

test("serve.sh refuses to serve into dist/", () => {
  const r = spawnSync("bash", [script], { env: { ...process.env, SERVE_DIST: "dist" }, encoding: "utf8", timeout: 600_000 });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /would overwrite the release build in dist\//);
});

test("serve.sh serves the sandbox with no console error and leaves dist/ alone", { timeout: 1_200_000 }, async () => {
  const before = distHash();
  const port = await freePort();
  serveDist = mkdtempSync(join(tmpdir(), "serve-dist-"));
  child = spawn("bash", [script], {
    env: { ...process.env, PORT: String(port), SERVE_DIST: serveDist },
    detached: true, // its own process group: trunk and cargo stop with it
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  // Trunk listens once its first build is done.
  const deadline = Date.now() + 1_100_000;
  for (;;) {
    assert.equal(child.exitCode, null, `serve.sh exited:\n${log.slice(-3000)}`);
    if (/server listening at/.test(log)) break;
    assert.ok(Date.now() < deadline, `serve.sh never listened:\n${log.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  browser = await launch();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const { page, errors } = await pageWithErrors(context);
  const violations = [];
  page.on("console", (m) => /Content Security Policy/.test(m.text()) && violations.push(m.text()));
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.locator(".strip .lane-request").waitFor({ timeout: 60_000 });
  await page.waitForTimeout(1000);
  const html = await page.content();
  assert.match(html, /script-src 'self' 'wasm-unsafe-eval'/, "the served page keeps the strict policy");
  assert.deepEqual(await page.evaluate(() => [...document.scripts].filter((s) => !s.src).length), 0, "an inline script was served");
  assert.deepEqual([...errors, ...violations], []);
  assert.ok(existsSync(join(serveDist, "index.html")), "the build went to SERVE_DIST");
  assert.equal(distHash(), before, "serving changed dist/");
  await context.close();
});
