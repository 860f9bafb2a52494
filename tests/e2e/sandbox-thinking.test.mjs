// The built sandbox (dist/) in headless Chromium: the thinking scenario's
// signed thinking blocks on screen, and the `thinking` setting (R13.1)
// changing what became of them and the engine's R13.1 step. Screenshots go
// to target/screenshots/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";

import { caughtUp, sandbox } from "./browser.mjs";

const { open: openAt, root } = await sandbox({ prefix: "thinking", ready: ".events, .error" });
const open = (query, viewport = { width: 1280, height: 900 }) => openAt(query, viewport);

async function shot(locator, name) {
  const path = join(root, "target/screenshots", `${name}.png`);
  await locator.screenshot({ path });
  console.log(`screenshot: ${path}`);
}

/** The fate of every block in the thinking table, in order. */
/** The fates of the blocks drawn (the table sits in the context panel's
 * lower half, which catches up after the frame while off screen). */
const fates = async (page) => {
  await caughtUp(page);
  return page.locator("table.thinking-blocks tbody tr").evaluateAll((rows) => rows.map((r) => r.dataset.fate));
};
/** The text of the step row drawn for rule R13.1. */
// The steps table sits in the engine's evidence drawer, drawn once it is
// open: the tests open the page in expert mode.
const r13Row = (page) => page.locator("table.steps tbody tr", { hasText: "R13.1" });

test("the thinking scenario shows its signed blocks and what each setting did to them", async () => {
  const { context, page, errors } = await open("?expert=1");
  await page.getByLabel("Scenario").selectOption("thinking");
  await page.waitForFunction(() => new URL(location.href).searchParams.get("scenario") === "thinking");
  // Opened on the rewrite: time-based clearing (R4.4), then the R13.1 step.
  const rules = await page.locator("table.steps tbody tr code").allTextContents();
  assert.deepEqual(rules, ["R4.4", "R13.1"]);
  const row = r13Row(page);
  assert.match(await row.textContent(), /client/);
  assert.match(await row.textContent(), /public API docs/);
  assert.match(await row.textContent(), /26 signed thinking block\(s\) after it no longer match/);

  // strip (the default): the first block (before the rewrite) kept, the rest dropped whole.
  assert.equal(await page.getByLabel("Thinking blocks after a client rewrite").inputValue(), "strip");
  const strip = await fates(page);
  assert.equal(strip.length, 27);
  assert.equal(strip[0], "kept");
  assert.equal(strip.filter((f) => f === "dropped").length, 26);
  assert.match(await row.textContent(), /dropped them whole \(thinking: strip\)/);
  assert.match(await page.locator(".thinking-counts").textContent(), /Before: 27 kept whole.*After: 1 kept whole · 26 dropped whole/s);
  assert.match(await page.locator("table.thinking-blocks").textContent(), /redacted_thinking.*\(encrypted\)/s);
  assert.match(await page.locator(".thinking-legend").textContent(), /kept whole: its signed prefix is unchanged.*dropped whole: its prefix was rewritten/s);
  // Dropping frees tokens: the step's count falls.
  const [before, afterTokens] = (await row.locator("td.num").textContent()).split("→").map((t) => Number(t.replace(/\D/g, "")));
  assert.ok(afterTokens < before, `${afterTokens} < ${before}`);
  // The stack of the request after the call tags the runs.
  assert.ok((await page.locator(".stack").nth(1).locator(".tag.th-dropped").count()) > 0);
  await shot(page.locator("#timeline"), "thinking-strip-steps");
  await shot(page.locator("section.thinking"), "thinking-strip-blocks");

  // drop_block: every block kept whole, the 26 after the rewrite named stale.
  await page.getByLabel("Thinking blocks after a client rewrite").selectOption("drop_block");
  await row.filter({ hasText: "thinking: drop_block" }).waitFor({ state: "attached" });
  const dropBlock = await fates(page);
  assert.deepEqual(dropBlock, ["kept", ...Array(26).fill("stale")]);
  assert.match(await row.textContent(), /block_binding\.prefix_mismatch_behavior "drop_block" and its beta, so the server drops them/);
  assert.match(await page.locator(".thinking-legend").textContent(), /stale.*sent whole with drop_block: the server drops it/s);
  const [b2, a2] = (await row.locator("td.num").textContent()).split("→").map((t) => Number(t.replace(/\D/g, "")));
  assert.equal(a2, b2, "nothing dropped by the client");
  await shot(page.locator("section.thinking"), "thinking-drop-block-blocks");

  // keep: kept, the host's responsibility.
  await page.getByLabel("Thinking blocks after a client rewrite").selectOption("keep");
  await row.filter({ hasText: "thinking: keep" }).waitFor({ state: "attached" });
  assert.deepEqual(await fates(page), ["kept", ...Array(26).fill("stale")]);
  assert.match(await page.locator(".thinking-legend").textContent(), /the API refuses it unless the host acts/);

  // The replies after the rewrite are signed over the new history: kept.
  await page.getByLabel("Thinking blocks after a client rewrite").selectOption("strip");
  await row.filter({ hasText: "thinking: strip" }).waitFor({ state: "attached" });
  await page.getByRole("button", { name: "Last event" }).click();
  const last = await fates(page);
  assert.deepEqual(last.slice(-2), ["kept", "kept"]);
  assert.equal(last.filter((f) => f === "dropped").length, 26);
  await page.getByRole("button", { name: "First event" }).click();
  assert.ok((await fates(page)).every((f) => f === "kept"), "before any rewrite every block is kept");
  await page.getByLabel("Thinking blocks after a client rewrite").selectOption("drop_block");
  await page.waitForFunction(() => new URL(location.href).searchParams.get("thinking") === "drop_block");
  assert.deepEqual(errors, []);
  await context.close();
});

test("the thinking setting round-trips through the URL and reads on a phone", async () => {
  const { context, page, errors } = await open("?scenario=thinking&thinking=drop_block&expert=1", { width: 390, height: 844 });
  assert.equal(await page.getByLabel("Thinking blocks after a client rewrite").inputValue(), "drop_block");
  await r13Row(page).filter({ hasText: "thinking: drop_block" }).waitFor({ state: "attached" });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
  await page.locator("section.thinking").scrollIntoViewIfNeeded();
  await shot(page.locator("section.thinking"), "thinking-phone");
  assert.deepEqual(errors, []);
  await context.close();
});
