// How long the sandbox takes to repaint after a control change, on
// built-in scenarios and on a 2,000-message session imported into the page
// (issue 26: "a control change still repaints within one frame (< 16 ms)").
// Each case scrolls its control into view (as a visitor changing it sees
// it, with the panels beside it), makes a warm-up change, then 7 changes,
// each after the page has
// been idle 300 ms (so the URL write a change schedules 200 ms later runs
// between changes, not inside one), and prints the medians of:
//   cpu: the page's main-thread CPU time from the input event to the end of
//     the first frame after it (the render, then that frame's animation
//     callbacks, style, layout, paint and commit), read from a Chromium
//     performance trace (the thread clock of a console.timeStamp mark and
//     of the task that ran the frame, found by a mark made in its
//     animation callback): what a frame costs, not the wall time a loaded 2-core
//     machine stretches it to. The panels below the first screen are not
//     in it: while off screen they catch up in the task after that frame
//     (web/src/offscreen.rs);
//   caught up: the same CPU time to the second animation frame after the
//     input, with those panels drawn (printed, not asserted);
//   sandboxRenderMs: from the start of the page's render to its effects
//     (the engine run + Yew's diff and DOM patch);
//   input→layout: the render, then style and layout forced, in one task;
//   input→frame: the wall time to the second animation frame.
// Before each change it times a fixed reference workload (DOM built, laid
// out and changed off-screen, and a JSON round trip) on the same thread
// clock, so the machine's speed at that moment is measured beside the
// changes: a VM's neighbours or a busy sibling core slow both alike (the
// same build measured 9.4-10.2 ms in one CI run and 13.1-14.1 ms in
// another the same day).
// It asserts that each change took effect, and the frame budget for each
// case marked: `median` asserts the median cpu of its 7 changes under the
// frame (issue 26's point: a control change repaints within one frame,
// typically, not only at best); `least` asserts only the least of the 7,
// for a case whose median is still near or over the frame on CI's
// machine: on a loaded machine other processes only add to a change's
// cost, so the least of 7 is the statistic load does not make flaky, and
// a change that costs over the frame fails it every time. The frame is
// 16 ms at the speed of this machine's fastest runs, scaled by the
// slowdown the reference workload measures beside that case's own 7
// changes (at least 1, at most 2 x; printed): the machine's speed drifts
// within a run (the reference's least per case ranged 22.1-34.9 ms in one
// CI run of 2026-12-07), so one figure for the whole run misjudged the
// cases measured in its slower minutes. A case over its frame is measured
// again, up to 3 rounds in all, and passes if one round is within: a burst
// of load from the VM's neighbours passes, a change that costs over the
// frame fails all 3. Every case is marked; those on their least are to
// move to their median as they come further under the frame.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { serve } from "./server.mjs";
import { launch, pageWithErrors } from "./browser.mjs";
import { session } from "./session-gen.mjs";
import { cpuBetween, cpuToFrame, traced } from "./trace.mjs";
import { REFERENCE, REFERENCE_FAST_MS, slowdownOf } from "./machine.mjs";

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

/** Rounds a case over its frame is measured in, at most (see the header). */
const ROUNDS = 3;
/** The most the frame is scaled by the machine's measured slowdown. */
const MOST_SLOWDOWN = 2;
/** The statistic of a case's 7 changes each mark asserts. */
const ASSERTED = { median: (t) => t.cpu, least: (t) => t.best };

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
  const reference = (i) => page.evaluate(async (i) => {
    await new Promise((r) => setTimeout(r, 100));
    console.timeStamp(`reference-${i}`);
    window.reference();
    console.timeStamp(`referenced-${i}`);
  }, i);
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
    await new Promise((r) => requestAnimationFrame(() => {
      console.timeStamp(`frame-${i}`);
      requestAnimationFrame(() => r());
    }));
    console.timeStamp(`painted-${i}`);
    return { frame: performance.now() - t0, render: window.sandboxRenderMs, work };
  }, [label, v, i]);
  // The control in view, as a visitor changing it sees it: the panels
  // beside it are on screen, so they are drawn inside the frame.
  await (label === null ? page.locator("#hookBlocks") : page.getByLabel(label)).scrollIntoViewIfNeeded();
  const scrollY = await page.evaluate(() => Math.round(scrollY));
  await once(values[values.length - 1], "warm-up");
  const { result: times, ...trace } = await traced(browser, page, async () => {
    const out = [];
    for (const [i, v] of values.entries()) {
      await reference(i);
      out.push(await once(v, i));
    }
    return out;
  });
  for (const [i, t] of times.entries()) {
    t.cpu = cpuToFrame(trace, `change-${i}`, `frame-${i}`);
    t.caughtUp = cpuBetween(trace.marks, `change-${i}`, `painted-${i}`);
    t.reference = cpuBetween(trace.marks, `reference-${i}`, `referenced-${i}`);
  }
  return { ...summary(times), scrollY };
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
    reference: Math.min(...times.map((t) => t.reference)),
    references: times.map((t) => t.reference),
    caughtUp: median(times.map((t) => t.caughtUp)),
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
  await page.evaluate(REFERENCE);
  // Warmed up: a fresh page's first runs of it are still being compiled.
  await page.evaluate(() => {
    for (let i = 0; i < 14; i++) window.reference();
  });

  const report = [];
  // Each case: what, its rounds (see the header), and what of it the 16 ms
  // frame is asserted on ("median", "least" or nothing).
  const add = async (what, run, asserted = null) => {
    const rounds = [];
    for (;;) {
      const t = await run();
      t.bound = 16 * slowdownOf(t.reference, MOST_SLOWDOWN);
      rounds.push(t);
      if (!asserted || ASSERTED[asserted](t) < t.bound || rounds.length === ROUNDS) break;
    }
    report.push([what, rounds, asserted]);
  };
  const windows = ["210000", "220000", "230000", "240000", "250000", "260000", "270000"];
  await add("compact-analysis (the default), window", () => measure(page, "Context window (tokens)", windows), "median");
  await add("compact-analysis, tokens per file", () => measure(page, "Tokens per file", ["2000", "2500", "3000", "3500", "4000", "4500", "5000"]), "median");
  await add("compact-analysis, tokens for all files", () => measure(page, "Tokens for all files", ["8000", "10000", "12000", "14000", "16000", "18000", "50000"]), "median");
  await add("compact-analysis, files restored", () => measure(page, "Files restored (max)", ["1", "2", "3", "4", "5", "4", "3"]), "median");
  // The median asserted since session 31 (least before): 15.8 ms median
  // paired in one browser at render-bench's scroll (18.6 unkeyed), with
  // the machine at ~1.9 x (bound ~30 ms).
  await add("compact-analysis, extra message groups", () => measure(page, "Extra message groups", ["1", "2", "3", "4", "5", "6", "0"]), "median");
  const groups = async () => Number((await page.locator(".controls").textContent()).match(/sees (\d+) legal groups/)[1]);
  const base = await groups();
  await page.getByLabel("Extra message groups").fill("200");
  await page.waitForFunction((g) => document.querySelector(".controls").textContent.includes(`sees ${g} legal groups`), base + 200);
  // The median asserted since session 31: 16.5 ms paired in one browser
  // with the strip caught up after the frame (session 29), 13.4 with the
  // bar drawn once (session 30), 16.6 in a CI run on a machine at its
  // calibrated speed before either (stop 42).
  await add("compact-analysis + 200 more groups, groups preserved",
    () => measure(page, "Groups preserved", ["2", "3", "4", "5", "6", "7", "8"]), "median");
  await page.getByLabel("Scenario").selectOption("run-through");
  await page.waitForFunction(() => new URL(location.href).searchParams.get("scenario") === "run-through");
  // With the 200 extra groups set above (a field kept across scenarios).
  // Its first change moves the event shown (from a snip to a compaction)
  // and draws the context panel anew, 25-28 ms; the others took 12-17 ms
  // (2026-12-07, session 26). The median asserted since session 31 (least
  // before): 13.8 ms paired in one browser, 15.5 in CI at 8740213.
  await add("run-through (all tiers) + 200 groups, window", () => measure(page, "Context window (tokens)", windows), "median");

  await page.getByLabel("Scenario").selectOption("compact-analysis");
  await page.waitForFunction(() => new URL(location.href).searchParams.get("scenario") === "compact-analysis");
  await page.getByLabel("Pick or drop a Claude Code session file (.jsonl)")
    .setInputFiles({ name: "bench-2000.jsonl", mimeType: "application/x-ndjson", buffer: session(2000) });
  await page.waitForFunction(() => document.querySelector(".imported")?.textContent.includes("2000 messages"), null, { timeout: 60_000 });
  // The median asserted: 5.9-6.4 ms since the chart (off screen) catches
  // up after the frame (session 26; 13.0-13.4 ms before, its least
  // asserted).
  await add("imported session, 2,000 messages: window (replay + chart)", () => measure(page, "Context window (tokens)", windows), "median");
  await add("imported session, 2,000 messages: hook switch (the replay is kept; the built-in scenario, shown only in the controls, is played after the frame)",
    () => changes(page, [1, 2, 3, 4, 5, 6, 7]), "median");
  for (const [what, rounds, asserted] of report) {
    for (const [r, t] of rounds.entries()) {
      const round = rounds.length > 1 ? ` (round ${r + 1} of ${rounds.length})` : "";
      const budget = t.cpu < 16 ? "within" : "over";
      console.log(`render-bench: ${what}${round}: reference workload least ${t.reference.toFixed(2)} ms (${t.references.map((x) => x.toFixed(2)).join(", ")}): the machine at ${(t.reference / REFERENCE_FAST_MS).toFixed(2)} x of ${REFERENCE_FAST_MS} ms, so the 16 ms frame is ${t.bound.toFixed(1)} ms here`);
      console.log(`render-bench: ${what}${round}: scrolled to ${t.scrollY} px, main-thread CPU ${t.cpu.toFixed(1)} ms (median), least ${t.best.toFixed(1)} ms${asserted ? ` (the ${asserted} asserted under ${t.bound.toFixed(1)})` : ""}, ${budget} the 16 ms frame (${t.all.map((x) => x.toFixed(1)).join(", ")}), with the off-screen panels caught up ${t.caughtUp.toFixed(1)} ms, sandboxRenderMs ${t.render.toFixed(1)} ms, input→layout ${t.work.toFixed(1)} ms, input→frame ${t.frame.toFixed(1)} ms (median of 7)`);
    }
  }
  const over = report.filter(([, rounds, on]) => on && rounds.every((t) => !(ASSERTED[on](t) < t.bound)));
  assert.deepEqual(over.map(([what, rounds, on]) => `${what}: ${on} ${rounds.map((t) => `${ASSERTED[on](t).toFixed(1)} ms over ${t.bound.toFixed(1)} (${t.all.map((x) => x.toFixed(1)).join(", ")})`).join("; ")}`), [],
    "a control change over the 16 ms frame at the machine's measured speed, in every round");
  assert.equal(await page.getByLabel("Context window (tokens)").inputValue(), "270000");
  assert.deepEqual(errors, []);
  await context.close();
});
