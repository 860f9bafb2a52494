// A browser benchmark, not a timed test: how long the sandbox takes to
// re-render after a control change, on a 2,000-message session imported
// into the page and on built-in scenarios. It prints the numbers (median
// of several changes) and asserts only that each change took effect.
//   sandboxRenderMs: from the start of the page's render to its effects
//     (the engine run + Yew's diff and DOM patch);
//   input→frame: from the input event to the second animation frame after
//     it (adds style, layout and paint; at least one frame, ~16 ms).
// The page writes its URL 200 ms after the last change, outside the render
// (a history update inside it took 1 to 12 ms on a loaded machine).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { serve } from "./server.mjs";
import { launch, pageWithErrors } from "./browser.mjs";
import { session } from "./session-gen.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
let server, browser;

before(async () => {
  server = await serve({ "/": join(root, "dist") });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

async function measure(page, label, values) {
  const times = [];
  for (const v of values) {
    const t = await page.evaluate(async ([label, v]) => {
      const input = [...document.querySelectorAll("label")].find((l) => l.textContent === label).control;
      const t0 = performance.now();
      input.value = v;
      input.dispatchEvent(new InputEvent("input", { bubbles: true }));
      const work = await settled(t0);
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
      return { frame: performance.now() - t0, render: window.sandboxRenderMs, work };
    }, [label, v]);
    times.push(t);
  }
  return summary(times);
}

/**
 * Installed in the page: the main-thread work a change costs before the
 * next frame can paint it, in ms from `t0`: the page's render runs in the
 * microtasks the input event queued; then style and layout are forced.
 * All in the one task, so no frame can come between.
 */
const SETTLED = `window.settled = async (t0) => {
  for (let i = 0; i < 50; i++) await Promise.resolve();
  document.body.getBoundingClientRect();
  return performance.now() - t0;
};`;

/** Medians of the render, the work before the next frame, and the frame. */
function summary(times) {
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return {
    render: median(times.map((t) => t.render)),
    work: median(times.map((t) => t.work)),
    frame: median(times.map((t) => t.frame)),
  };
}

test("re-render time after a control change (reported, not asserted)", async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const { page, errors } = await pageWithErrors(context);
  await page.goto(`${server.url}/`);
  await page.locator(".events").waitFor();
  await page.evaluate(SETTLED);

  const report = [];
  const windows = ["210000", "220000", "230000", "240000", "250000", "260000", "270000"];
  report.push(["compact-analysis (the default), window", await measure(page, "Context window (tokens)", windows)]);
  const groups = async () => Number((await page.locator(".controls").textContent()).match(/sees (\d+) legal groups/)[1]);
  const base = await groups();
  await page.getByLabel("Extra message groups").fill("200");
  await page.waitForFunction((g) => document.querySelector(".controls").textContent.includes(`sees ${g} legal groups`), base + 200);
  report.push(["compact-analysis + 200 more groups, groups preserved",
    await measure(page, "Groups preserved", ["2", "3", "4", "5", "6", "7", "8"])]);
  await page.getByLabel("Scenario").selectOption("run-through");
  await page.waitForFunction(() => new URL(location.href).searchParams.get("scenario") === "run-through");
  report.push(["run-through (all tiers), window", await measure(page, "Context window (tokens)", windows)]);

  await page.getByLabel("Scenario").selectOption("compact-analysis");
  await page.waitForFunction(() => new URL(location.href).searchParams.get("scenario") === "compact-analysis");
  await page.getByLabel("Pick or drop a Claude Code session file (.jsonl)")
    .setInputFiles({ name: "bench-2000.jsonl", mimeType: "application/x-ndjson", buffer: session(2000) });
  await page.waitForFunction(() => document.querySelector(".imported")?.textContent.includes("2000 messages"), null, { timeout: 60_000 });
  report.push(["imported session, 2,000 messages: window (replay + chart)", await measure(page, "Context window (tokens)", windows)]);
  report.push(["imported session, 2,000 messages: hook switch (compact-analysis re-runs, the replay is kept)",
    await (async () => {
      const times = [];
      for (let i = 0; i < 7; i++) {
        times.push(await page.evaluate(async () => {
          const box = document.getElementById("hookBlocks");
          const t0 = performance.now();
          box.click();
          const work = await settled(t0);
          await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
          return { frame: performance.now() - t0, render: window.sandboxRenderMs, work };
        }));
      }
      return summary(times);
    })()]);
  for (const [what, t] of report) {
    console.log(`render-bench: ${what}: sandboxRenderMs ${t.render.toFixed(1)} ms, input→layout ${t.work.toFixed(1)} ms, input→frame ${t.frame.toFixed(1)} ms (median of 7)`);
  }
  assert.equal(await page.getByLabel("Context window (tokens)").inputValue(), "270000");
  assert.deepEqual(errors, []);
  await context.close();
});
