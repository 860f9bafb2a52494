// The sandbox as a teaching instrument (issue 26): the next request drawn
// as the hero strip on the first screen, each step of a manual /compact
// changing it, the boundary in its own on-disk lane, attachment budgets
// that bind, and controls that never lose the picture. Runs against the
// release build in dist/; screenshots at 1280x800 and 390x844 go to
// target/screenshots/request-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";

import { SIZES, caughtUp, openEvidence, sandbox } from "./browser.mjs";

const { open, shot } = await sandbox({ prefix: "request", ready: ".strip" });

const number = (text) => Number(text.replace(/[^0-9]/g, ""));
/** The strip as drawn: its segments (part, tokens, ghost), cut, caption. */
async function strip(page) {
  return page.locator(".strip").evaluate((s) => ({
    stage: s.dataset.stage,
    total: Number(s.querySelector(".strip-total strong").textContent.replace(/[^0-9]/g, "")),
    caption: s.querySelector(".strip-caption").textContent,
    cut: s.querySelectorAll(".lane-request .cut").length,
    segments: [...s.querySelectorAll(".lane-request .seg:not(.freed)")].map((e) => ({
      part: e.dataset.part,
      tokens: Number(e.dataset.tokens),
      ghost: e.classList.contains("ghost"),
      summarised: e.classList.contains("goes-summarised"),
      asked: e.classList.contains("asked"),
      width: e.getBoundingClientRect().width,
    })),
    disk: s.querySelector(".lane-disk").textContent,
    request: s.querySelector(".lane-request").textContent,
  }));
}
const sent = (s) => s.segments.filter((g) => !g.ghost).reduce((a, g) => a + g.tokens, 0);
/** The engine's count after the event, as the stepper's headline says it. */
const engineCount = async (page) => number((await page.locator(".moment-head").textContent()).match(/→ ([\d,]+) tokens/)[1]);

test("the next request and the stepper fill the first screen, and the strip draws what the count counts", async () => {
  for (const viewport of SIZES) {
    const { context, page, errors } = await open("", viewport);
    for (const sel of [".strip .lane-request", ".strip .lane-disk", ".stepper"]) {
      const box = await page.locator(sel).boundingBox();
      assert.ok(box && box.y >= 0 && box.y + box.height <= viewport.height, `${sel} at ${viewport.width}: ${JSON.stringify(box)}`);
    }
    const s = await strip(page);
    // Opened on the /compact, assembled: the new request.
    assert.equal(s.stage, "Assembled");
    assert.equal(s.total, sent(s));
    assert.equal(s.total, await engineCount(page), "the strip's total is the engine's count");
    // The system prompt, CLAUDE.md and tools are drawn, each with its tokens.
    const system = s.segments.filter((g) => g.part === "p-system").map((g) => g.tokens);
    assert.deepEqual(system, [3000, 1800, 12000]);
    assert.ok(s.segments.every((g) => g.width > 0), "every segment has a width");
    for (const part of ["p-summary", "p-preserved", "p-attachment"]) {
      assert.ok(s.segments.some((g) => g.part === part), `${part} missing from the new request`);
    }
    // The boundary is on disk, not in the request.
    assert.match(s.disk, /compact_boundary/);
    assert.doesNotMatch(s.request, /boundary/);
    // The lists below: the cut between what the summary replaced and what it
    // kept, and the preserved messages tagged.
    const [beforeList, afterList] = [page.locator(".stack").nth(0), page.locator(".stack").nth(1)];
    assert.equal(await beforeList.locator(".cut-row").count(), 1);
    assert.ok((await beforeList.locator(".tag-summarised").count()) > 0);
    assert.ok((await afterList.locator(".tag-preserved", { hasText: "kept verbatim" }).count()) > 0);
    // The rule table is the engine's evidence, in a closed drawer: drawn
    // when it opens.
    assert.equal(await page.locator("details.evidence").evaluate((d) => d.open), false);
    assert.equal(await page.locator("details.evidence table.steps").count(), 0);
    await openEvidence(page);
    assert.ok((await page.locator("details.evidence table.steps tbody tr").count()) > 0);
    await page.locator("details.evidence").evaluate((d) => (d.open = false));
    await shot(page, "first-screen");
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("every step of the manual /compact changes the strip; the boundary is written last, on disk", async () => {
  for (const viewport of SIZES) {
    const { context, page, errors } = await open("", viewport);
    const compact = page.locator(".events li button", { hasText: "/compact" });
    await compact.click();
    const position = () => page.locator(".stepper .position").textContent();
    assert.match(await position(), /all 6 steps/);
    const seen = [];
    for (let step = 1; step <= 6; step++) {
      await page.getByRole("button", { name: "Step forward" }).click();
      await page.waitForFunction((n) => document.querySelector(".stepper .position").textContent.includes(`step ${n} of 6`), step);
      const s = await strip(page);
      const key = JSON.stringify([s.stage, s.caption, s.cut, s.segments.map((g) => [g.part, g.tokens, g.ghost, g.summarised, g.asked])]);
      assert.ok(!seen.includes(key), `step ${step} draws what an earlier step drew`);
      seen.push(key);
      if (step === 1) {
        // The cut: one marker, the older part hatched, nothing built yet.
        assert.equal(s.stage, "Cut");
        assert.equal(s.cut, 1);
        assert.ok(s.segments.some((g) => g.summarised));
        assert.ok(s.segments.every((g) => !g.ghost));
        await shot(page, "step-1-cut");
      }
      if (step === 5) {
        // Files restored: five file chips, dashed, not sent yet.
        assert.equal(s.segments.filter((g) => g.ghost && g.part === "p-attachment").length, 5);
        await shot(page, "step-5-files");
      }
      if (step < 6) {
        assert.doesNotMatch(s.disk, /compact_boundary/, `step ${step}: the boundary is written last`);
      } else {
        assert.equal(s.stage, "Assembled");
        assert.match(s.disk, /compact_boundary trigger manual/);
        assert.equal(s.cut, 0);
        assert.ok(s.segments.every((g) => !g.summarised && !g.ghost));
        await shot(page, "step-6-assembled");
      }
      assert.doesNotMatch(s.request, /boundary/);
    }
    // The next event: the user's new input at the end of the request.
    await page.getByRole("button", { name: "Step forward" }).click();
    const next = await strip(page);
    assert.equal(next.segments.at(-1).part, "p-since");
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("window, groups, cut and every attachment budget change the strip on the default scenario", async () => {
  const { context, page, errors } = await open();
  const base = (await strip(page)).total;
  const changes = [
    ["Context window (tokens)", "60000", "200000"],
    ["Extra message groups", "3", "0"],
    ["Groups preserved", "3", "1"],
    ["Files restored (max)", "2", "5"],
    ["Tokens per file", "3000", "5000"],
    ["Tokens for all files", "12000", "50000"],
  ];
  const measured = {};
  for (const [label, value, back] of changes) {
    await page.getByLabel(label).fill(value);
    await page.waitForFunction((b) => Number(document.querySelector(".strip-total strong").textContent.replace(/[^0-9]/g, "")) !== b, base, { timeout: 5000 })
      .catch(() => {});
    const s = await strip(page);
    measured[label] = s.total;
    assert.notEqual(s.total, base, `${label} = ${value} left the strip at ${base}`);
    if (label === "Tokens per file") await shot(page, "per-file-3000");
    await page.getByLabel(label).fill(back);
    await page.waitForFunction((b) => Number(document.querySelector(".strip-total strong").textContent.replace(/[^0-9]/g, "")) === b, base);
  }
  console.log(`strip total ${base}; after each change: ${JSON.stringify(measured)}`);
  // At the defaults the per-file budget binds: two files cut to it.
  assert.equal(await page.locator("table.attachments td", { hasText: "cut to the per-file budget" }).count(), 2);
  assert.equal(await page.locator('table.attachments tr[data-status="not chosen"]').count(), 1);
  assert.deepEqual(errors, []);
  await context.close();
});

test("down at the controls, the next request stays pinned above the panels and says what the last change did", async () => {
  const pinned = (page) => page.locator(".panels .pinned").evaluate((p) => ({
    hidden: p.hidden,
    text: p.textContent,
    total: Number(p.querySelector(".pinned-total strong")?.textContent.replace(/[^0-9]/g, "") ?? NaN),
    top: p.getBoundingClientRect().top,
    bottom: p.getBoundingClientRect().bottom,
    widths: [...p.querySelectorAll(".lane-pinned .seg")].map((e) => e.getBoundingClientRect().width),
  }));
  const heroTotal = async (page) => number(await page.locator(".strip-total strong").textContent());
  for (const viewport of SIZES) {
    const { context, page, errors } = await open("", viewport);
    // The strip in view: nothing pinned.
    assert.equal((await pinned(page)).hidden, true, "pinned while the strip is in view");
    // The strip scrolled away: pinned at the top of the viewport, the
    // strip's own total and parts.
    if (viewport.width > 600) {
      await page.getByLabel("Extra message groups").scrollIntoViewIfNeeded();
    } else {
      await page.locator("#context").scrollIntoViewIfNeeded();
    }
    await page.waitForFunction(() => !document.querySelector(".panels .pinned").hidden);
    const before = await pinned(page);
    assert.ok(Math.abs(before.top) < 1.5, `pinned at the top of the viewport, not at ${before.top}`);
    assert.equal(before.total, await heroTotal(page));
    assert.ok(before.widths.length >= 3 && before.widths.every((w) => w > 0), `parts drawn: ${before.widths}`);
    assert.doesNotMatch(before.text, /by the last change/);
    if (viewport.width > 600) {
      // A change: the pinned total follows the strip, with the difference.
      await page.getByLabel("Extra message groups").fill("3");
      await page.waitForFunction((t) => Number(document.querySelector(".strip-total strong").textContent.replace(/[^0-9]/g, "")) !== t, before.total);
      const after = await pinned(page);
      const now = await heroTotal(page);
      assert.equal(after.total, now);
      const moved = now - before.total;
      assert.match(after.text, new RegExp(`\\(${moved > 0 ? "\\+" : "−"}${Math.abs(moved).toLocaleString("en-US")} by the last change\\)`));
      // The controls beside it are not covered.
      const control = await page.getByLabel("Extra message groups").boundingBox();
      assert.ok(control.y >= after.bottom || control.x + control.width <= (await page.locator(".panels .pinned").boundingBox()).x, "the pinned request covers the control");
    }
    await caughtUp(page);
    await shot(page, "pinned");
    // Back up: unpinned again.
    await page.evaluate(() => scrollTo(0, 0));
    await page.waitForFunction(() => document.querySelector(".panels .pinned").hidden);
    if (viewport.width < 600) {
      // On a phone the open settings sheet covers the strip: the request is
      // pinned under the sheet's bar, and follows a change made in it.
      await page.locator(".sheet-bar").click();
      const peek = page.locator(".sheet-peek .pinned");
      await peek.waitFor();
      const was = await heroTotal(page);
      assert.equal(number(await peek.locator(".pinned-total strong").textContent()), was);
      await page.getByLabel("Extra message groups").fill("3");
      await page.waitForFunction((t) => Number(document.querySelector(".strip-total strong").textContent.replace(/[^0-9]/g, "")) !== t, was);
      const now = await heroTotal(page);
      assert.equal(number(await peek.locator(".pinned-total strong").textContent()), now);
      assert.match(await peek.textContent(), new RegExp(`\\(${now > was ? "\\+" : "−"}${Math.abs(now - was).toLocaleString("en-US")} by the last change\\)`));
      const box = await peek.boundingBox();
      assert.ok(box.y >= 0 && box.y + box.height <= viewport.height, `the sheet's pinned request on screen: ${JSON.stringify(box)}`);
      await shot(page, "pinned-sheet");
    }
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("an invalid value keeps the last good picture and says what is wrong at the field; focus never falls to the body", async () => {
  for (const viewport of SIZES) {
    const { context, page, errors } = await open("", viewport);
    const good = await strip(page);
    // On a phone the settings wait in the bottom sheet (point 10).
    if (await page.locator(".sheet-bar").isVisible()) await page.locator(".sheet-bar").click();
    const window = page.getByLabel("Context window (tokens)");
    // Typing 120000 digit by digit passes through 1, 12, 120, 1200, 12000:
    // all refused by the engine.
    await window.fill("");
    for (const key of "120000") {
      await window.press(key);
      const value = await window.inputValue();
      const s = await strip(page);
      if (Number(value) < 12000) {
        assert.deepEqual(s.segments.map((g) => g.tokens), good.segments.map((g) => g.tokens), `at ${value} the picture changed`);
        assert.match(await page.locator("#window-error").textContent(), /window/, `at ${value}`);
        assert.equal(await window.getAttribute("aria-invalid"), "true");
        assert.ok((await page.locator(".events li").count()) > 0, `at ${value} the events went`);
        if (value === "12") await shot(page, "invalid-window");
      }
    }
    await page.waitForFunction(() => !document.querySelector("#window-error"));
    assert.equal(await window.inputValue(), "120000");
    // Focus stays on a stepper button that has nowhere left to go.
    const last = page.getByRole("button", { name: "Last event" });
    await last.focus();
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelector('button[aria-label="Last event"]').getAttribute("aria-disabled") === "true");
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("aria-label")), "Last event");
    await page.keyboard.press("Enter"); // nowhere to go: nothing happens, nothing breaks
    await page.keyboard.press("Shift+Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("aria-label")), "Step forward");
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("the rebuild embed shows the strip and the stepper alone", async () => {
  const { context, page, errors } = await open("?embed=1&panel=rebuild", { width: 900, height: 420 });
  assert.equal(await page.locator("aside.controls").count(), 0);
  assert.ok((await page.locator(".embed .stepper").count()) === 1);
  await shot(page, "embed-rebuild");
  assert.deepEqual(errors, []);
  await context.close();
});
