// The built sandbox (dist/, from `trunk build --release`) in headless
// Chromium: the threshold gauge driven by its controls, no console errors,
// the no-JavaScript fallback, and screenshots under target/screenshots/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { serve } from "./server.mjs";
import { launch, pageWithErrors } from "./browser.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const dist = join(root, "dist");
const shots = join(root, "target/screenshots");
let server, browser;

before(async () => {
  mkdirSync(shots, { recursive: true });
  server = await serve({ "/": dist });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const LINES = ["budget", "precompute", "warn", "compact", "blocked"];

async function readout(page) {
  const values = {};
  for (const line of LINES) {
    values[line] = (await page.locator(`table.readout tr[data-line="${line}"] td.tokens`).textContent()).trim();
  }
  return values;
}

test("the gauge follows the window and max output controls", async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const { page, errors } = await pageWithErrors(context);
  await page.goto(`${server.url}/`);
  await page.getByLabel("Context window (tokens)").waitFor();

  // The default is the R1.3 worked example.
  assert.deepEqual(await readout(page), {
    budget: "180,000", precompute: "144,000", warn: "147,000", compact: "167,000", blocked: "177,000",
  });

  await page.getByLabel("Context window (tokens)").fill("1000000");
  await page.getByLabel("Max output tokens").fill("32000");
  assert.deepEqual(await readout(page), {
    budget: "980,000", precompute: "784,000", warn: "947,000", compact: "967,000", blocked: "977,000",
  });
  // The same numbers label the gauge's lines.
  for (const [line, value] of Object.entries({
    budget: "980,000", precompute: "784,000", warn: "947,000", compact: "967,000", blocked: "977,000",
  })) {
    assert.equal((await page.locator(`.gauge-labels .mark-${line}`).textContent()).trim(), `${line} ${value}`);
  }
  const shot = join(shots, "sandbox-gauge-1m.png");
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`screenshot: ${shot}`);

  // An invalid window shows the engine's error, naming the setting.
  await page.getByLabel("Context window (tokens)").fill("10000");
  const alert = page.getByRole("alert");
  assert.match(await alert.textContent(), /`window` = 10000/);
  await page.getByLabel("Context window (tokens)").fill("200000");
  assert.equal((await readout(page)).compact, "167,000");

  assert.deepEqual(errors, []);
  await context.close();
});

test("the controls work from the keyboard", async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const { page, errors } = await pageWithErrors(context);
  await page.goto(`${server.url}/`);
  await page.getByLabel("Context window (tokens)").waitFor();
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.id), "window");
  await page.keyboard.press("ArrowUp"); // step 1000
  assert.equal((await readout(page)).budget, "181,000");
  assert.deepEqual(errors, []);
  await context.close();
});

test("without JavaScript the page shows the engine's R1.3 example", async () => {
  const html = readFileSync(join(dist, "index.html"), "utf8");
  assert.doesNotMatch(html, /noscript:generated/, "the build hook did not run");

  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${server.url}/`);
  const text = await page.locator("body").innerText();
  for (const value of ["180,000", "144,000", "147,000", "167,000", "177,000"]) {
    assert.ok(text.includes(value), `${value} missing from the no-JavaScript page`);
  }
  const shot = join(shots, "sandbox-noscript.png");
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`screenshot: ${shot}`);
  await context.close();
});

test("readable on a phone-width screen", async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const { page, errors } = await pageWithErrors(context);
  await page.goto(`${server.url}/`);
  await page.getByLabel("Context window (tokens)").waitFor();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page scrolls sideways by ${overflow}px`);
  const shot = join(shots, "sandbox-phone.png");
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`screenshot: ${shot}`);
  assert.deepEqual(errors, []);
  await context.close();
});
