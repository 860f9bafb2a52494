// The built package in a plain HTML page (<script type="module"> and an
// import map, no bundler), in headless Chromium: the same .wasm Node uses.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { serve } from "./server.mjs";
import { launch, pageWithErrors } from "./browser.mjs";

const tests = join(dirname(fileURLToPath(import.meta.url)), "..");
let server, browser;

before(async () => {
  server = await serve({
    "/": join(tests, "browser"),
    "/node_modules/context-compaction/": realpathSync(join(tests, "node_modules/context-compaction")),
  });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test("thresholds(), an Engine and a resumed session work in a browser page, errors included", async () => {
  const context = await browser.newContext();
  const { page, errors } = await pageWithErrors(context);
  await page.goto(`${server.url}/pkg.html`);
  await page.waitForFunction(() => window.results !== undefined, null, { timeout: 15_000 });
  const results = await page.evaluate(() => window.results);
  const five = (t) => [t.budget, t.precompute, t.warn, t.compact, t.blocked];
  assert.deepEqual(five(results.r13), [180_000, 144_000, 147_000, 167_000, 177_000]);
  assert.deepEqual(five(results.oneMillion), [980_000, 784_000, 947_000, 967_000, 977_000]);
  assert.equal(results.errors.length, 4);
  for (const e of results.errors) {
    assert.deepEqual(e, { window: e.window, isError: true, code: "INVALID_SETTING", field: "window" });
  }
  assert.equal(results.afterErrors, 167_000);
  assert.deepEqual(results.engineError, { isError: true, code: "INVALID_MESSAGE", field: "message.role" });
  assert.deepEqual(results.engine.asked, ["compact"]);
  assert.notEqual(results.engine.status, "compactionDue");
  assert.ok(results.engine.viewLength < 34, `view of ${results.engine.viewLength} messages after compacting`);
  assert.equal(results.engine.boundary, true);
  // The session module: not fetched until imported, then the records resume
  // to the same view.
  assert.deepEqual(results.wasmBeforeSession, ["compaction_wasm_bg.wasm"]);
  assert.deepEqual(results.wasmAfterSession, ["compaction_wasm_bg.wasm", "compaction_session_bg.wasm"]);
  assert.deepEqual(results.resume, { problems: 0, boundary: true, sameView: true });
  // The formats module: fetched only by `context-compaction/formats`.
  assert.deepEqual(results.wasmAfterFormats, ["compaction_wasm_bg.wasm", "compaction_session_bg.wasm", "compaction_formats_bg.wasm"]);
  assert.deepEqual(results.formats.messages, [{ role: "system", content: "be brief" }, { role: "user", content: "hi" }]);
  assert.deepEqual(results.formats.baseError, { isError: true, code: "INVALID_SETTING", field: "format" });
  assert.deepEqual(errors, []);
  await context.close();
});
