// The sandbox as a teaching instrument (issue 26), the later points: seed
// 000 as chapters with believable events and what each tier costs (6), the
// resume lane (4), "try this" chips (7), newcomer and expert modes (1),
// chart text and the rebuild embed (10, 11). Runs against the release
// build in dist/; screenshots at 1280x800 and 390x844 go to
// target/screenshots/teach-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";

import { SIZES, caughtUp, openEvidence, sandbox, showChart, svgTexts } from "./browser.mjs";

const { open, shot } = await sandbox({ prefix: "teach" });

const number = (text) => Number(text.replace(/[^0-9]/g, ""));
/** The stepper's headline: the event's tokens before and after. */
async function head(page) {
  const text = await page.locator(".moment-head").textContent();
  const [, before, after] = text.match(/([\d,]+) → ([\d,]+) tokens/);
  return { text, before: number(before), after: number(after) };
}

test("point 6: seed 000's run-through as five chapters (and the 413), phases 3 and 4 each microcompact + snip, a 413 from a real overflow, a cost per tier", async () => {
  for (const viewport of SIZES) {
    const { context, page, errors } = await open("?scenario=run-through", viewport);
    const chips = page.locator(".chapters .chapter");
    assert.equal(await chips.count(), 6);
    assert.equal(await page.locator(".chart rect.band").count(), 6);
    // Each chapter chip walks to its first event; the chapter's tiers show
    // with their cost at its first event where a tier fired.
    const expect = [
      ["2 · microcompact", /T1 microcompact: no model call · cache broken/],
      // Seed 000: Tier 1 runs and the count stays over, Tier 2 snip gets it
      // under; phase 4 repeats the pair.
      ["3 · microcompact + snip", /T1 microcompact: no model call · cache broken.*T2 snip: no model call · cache broken/],
      ["4 · again: microcompact + snip", /T1 microcompact: no model call · cache broken.*T2 snip: no model call · cache broken/],
      ["5 · collapse, compact", /T3 collapse: model call/],
    ];
    for (const [name, cost] of expect) {
      await page.locator(".chapters .chapter", { hasText: name }).click();
      await page.waitForFunction((n) => document.querySelector(".chapter.current")?.textContent === n, name);
      // Its first event where a tier fired, at or after the chapter's first.
      await page.evaluate(() => {
        const events = [...document.querySelectorAll(".events li button")];
        const at = events.findIndex((b) => b.getAttribute("aria-current") === "step");
        events.slice(at).find((b) => b.classList.contains("fired")).click();
      });
      await page.waitForFunction((n) => document.querySelector(".chapter.current")?.textContent === n, name);
      assert.match(await page.locator(".moment-head").textContent(), cost, name);
      if (name.startsWith("4")) await shot(page, "run-through-phase-4");
    }
    // The compactions in chapter 5 call a model and shrink the request.
    const fired = page.locator(".events li button.fired", { hasText: "T4 compact" });
    assert.ok((await fired.count()) >= 2);
    for (let i = 0; i < (await fired.count()); i++) {
      await fired.nth(i).click();
      const h = await head(page);
      assert.ok(h.after < h.before, `compaction ${i}: ${h.before} → ${h.after}`);
      assert.match(h.text, /T4 compact: model call/);
    }
    // The 413: the engine's estimate let the call go, the API counted the
    // pasted log over the window; the strip says so.
    await page.locator(".events li button", { hasText: "413" }).click();
    const h = await head(page);
    assert.ok(h.before > 200000, `the 413 at ${h.before} tokens is over the 200,000 window`);
    assert.ok(h.after < h.before);
    const note = await page.locator(".strip-note").textContent();
    assert.match(note, /inside the 200,000 window/);
    assert.match(note, /413/);
    assert.equal(await page.locator(".chapter.current").textContent(), "413 · a pasted log");
    await shot(page, "run-through-413");
    await shot(page, "run-through-chart", page.locator("#chart"));
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("point 6: chained compactions each shrink the request; a failed /compact lights no rebuild stage", async () => {
  const { context, page, errors } = await open("?scenario=chained");
  const compacts = page.locator(".events li button", { hasText: "/compact" });
  assert.equal(await compacts.count(), 3);
  for (let i = 0; i < 3; i++) {
    await compacts.nth(i).click();
    const h = await head(page);
    assert.ok(h.after < h.before, `chained /compact ${i + 1}: ${h.before} → ${h.after}`);
    assert.equal(await page.locator(".strip-note").count(), 0, "nothing to explain");
  }
  // overflow: every 413 is a request the API counted over the window.
  await page.getByLabel("Scenario").selectOption("overflow");
  const refusals = page.locator(".events li button", { hasText: "413" });
  assert.equal(await refusals.count(), 3);
  for (let i = 0; i < 3; i++) {
    await refusals.nth(i).click();
    assert.ok((await head(page)).before > 200000, `overflow 413 ${i + 1}`);
    assert.match(await page.locator(".strip-note").textContent(), /over the window, so it answered 413/);
  }
  await page.getByLabel("Scenario").selectOption("breakers");
  await page.locator(".events li button", { hasText: "/compact" }).click();
  await openEvidence(page);
  // The cut was chosen and the model asked: the manual path shows it ...
  assert.ok((await page.locator('figure[data-flow="manual"] li.lit').count()) >= 2);
  // ... but no new request was built: nothing lit in the rebuild.
  assert.equal(await page.locator('figure[data-flow="rebuild"] li.lit').count(), 0);
  for (let step = 1; step <= 3; step++) {
    await page.getByRole("button", { name: "Step forward" }).click();
    assert.equal(await page.locator('figure[data-flow="rebuild"] li.lit').count(), 0, `step ${step}`);
  }
  assert.match(await page.locator(".strip .lane-disk").textContent(), /no boundary written/);
  await shot(page, "breakers-failed-compact", page.locator("details.evidence"));
  assert.deepEqual(errors, []);
  await context.close();
});

test("point 4: the resume lane shows the file growing around the /compact and what the model continues from", async () => {
  for (const viewport of SIZES) {
    const { context, page, errors } = await open("", viewport);
    // Opened on the /compact: its records, in file order.
    const lane = page.locator("#resume .resume");
    await lane.waitFor();
    const records = await lane.locator(".jsonl li").allTextContents();
    assert.match(records[0], /^\d+ records before$/);
    const boundary = lane.locator('.jsonl li[data-subtype="compact_boundary"]');
    const text = await boundary.textContent();
    assert.match(text, /trigger manual · preTokens 50,\d{3} · postTokens [\d,]+ · \d+ preserved uuids?/);
    assert.match(text, /parentUuid null/);
    // The boundary's figures are the strip's (the on-disk lane).
    const disk = await page.locator(".strip .lane-disk").textContent();
    const [, pre, post] = text.match(/preTokens ([\d,]+) · postTokens ([\d,]+)/);
    assert.ok(disk.includes(`${pre} → ${post}`), `${disk} vs ${pre} → ${post}`);
    assert.equal(await lane.locator(".jsonl li.rec-summary").count(), 1);
    assert.equal(await lane.locator(".jsonl li.rec-restored").count(), 5);
    assert.equal(await lane.locator(".jsonl li.rec-after").count(), 1);
    // Resume relinks the preserved messages after the summary.
    assert.match(await lane.locator(".relink").textContent(), /relinks the \d+ preserved messages?/);
    // The closing card: summary, preserved, restored files, new input, and
    // the resume reads back the live view.
    const places = await lane.locator(".closing .continues li").evaluateAll((li) => li.map((e) => e.dataset.place));
    assert.deepEqual(places, ["summary", "preserved, relinked", "restored file", "new input"]);
    assert.match(await lane.locator(".closing").textContent(), /reads back exactly the view the live session sends/);
    assert.match(await lane.locator(".closing").textContent(), /\.jsonl/);
    await shot(page, "resume-lane", page.locator("#resume"));
    // An event with no boundary says how to get one.
    await page.getByRole("button", { name: "First event" }).click();
    await caughtUp(page);
    assert.match(await page.locator("#resume").textContent(), /wrote no boundary/);
    // An automatic compaction (run-through's 413) writes trigger auto.
    await page.getByLabel("Scenario").selectOption("run-through");
    await page.locator(".events li button", { hasText: "413" }).click();
    await caughtUp(page);
    assert.match(await page.locator('#resume .jsonl li[data-subtype="compact_boundary"]').textContent(), /trigger auto/);
    assert.deepEqual(errors, []);
    await context.close();
  }
  // Embedded alone.
  const { context, page, errors } = await open("?embed=1&panel=resume", { width: 900, height: 700 });
  // Written a moment after the frame that shows the event.
  await page.locator(".embed .resume .closing").waitFor();
  assert.equal(await page.locator(".embed .resume .closing").count(), 1);
  assert.deepEqual(errors, []);
  await context.close();
});

/** The strip's total, and its ghost line, if any. */
async function totals(page) {
  return page.locator(".strip").evaluate((s) => ({
    total: Number(s.querySelector(".strip-total strong").textContent.replace(/[^0-9]/g, "")),
    ghost: s.querySelector(".ghost-total")?.textContent ?? null,
    marks: s.querySelectorAll(".lane-request .ghost-mark").length,
  }));
}

test("point 7: each 'try this' chip applies its change, its prediction holds, and the strip shows the total before", async () => {
  for (const viewport of SIZES) {
    const { context, page, errors } = await open("", viewport);
    const chips = page.locator(".try .try-chip");
    const labels = await chips.allTextContents();
    assert.deepEqual(labels.map((l) => l.replace(/Make .* fail/, "Make a file fail")), [
      "Block the PreCompact hook",
      "Use a stored precompute",
      "Keep 4 groups",
      "Make a file fail",
      "Halve the window",
    ]);
    assert.equal(await page.locator(".try .prediction").count(), 5);
    const base = (await totals(page)).total;
    const apply = async (label) => {
      await page.locator(".try .try-chip", { hasText: label }).click();
      await page.waitForFunction(() => document.querySelector(".ghost-total"));
      return totals(page);
    };
    const reset = async () => {
      await page.goto(page.url().split("?")[0]);
      await page.locator(".strip").waitFor();
    };
    // Block the hook: no boundary, the request that stood.
    let t = await apply("Block the PreCompact hook");
    assert.match(await page.locator(".strip .lane-disk").textContent(), /no boundary written/);
    assert.ok(t.total > base, `blocked: ${t.total} vs ${base}`);
    assert.match(t.ghost, new RegExp(`Before “Block the PreCompact hook”: ${base.toLocaleString("en-US")} tokens; now ${t.total.toLocaleString("en-US")} \\(\\+`));
    assert.equal(t.marks, 1);
    await shot(page, "try-hook-blocked", page.locator(".hero"));
    await reset();
    // A stored precompute: the /compact reuses it, no model call.
    assert.match(await page.locator(".moment-head").textContent(), /T4 compact: model call/);
    t = await apply("Use a stored precompute");
    await page.waitForFunction(() => !/T4 compact: model call/.test(document.querySelector(".moment-head").textContent));
    assert.match(await page.locator(".moment-head").textContent(), /T4 compact: no model call/);
    await openEvidence(page);
    assert.match(await page.locator("details.evidence").textContent(), /precompute hit/);
    assert.equal(await page.getByLabel("Stored precompute").inputValue(), "ready");
    assert.match(t.ghost, /Before “Use a stored precompute”/);
    await shot(page, "try-precompute", page.locator(".hero"));
    await reset();
    // Keep 4 groups: more preserved, the new request grows.
    const preservedBefore = number(await page.locator('.strip .parts li.p-preserved .num').first().textContent());
    t = await apply("Keep 4 groups");
    assert.ok(t.total > base, `4 groups: ${t.total} vs ${base}`);
    const preservedAfter = number(await page.locator('.strip .parts li.p-preserved .num').first().textContent());
    assert.ok(preservedAfter > preservedBefore);
    await reset();
    // A file fails: its slot names the error, the request shrinks.
    const failing = (await page.locator(".try .try-chip", { hasText: "fail" }).textContent()).match(/Make (.*) fail/)[1];
    const restored = () => page.locator('.strip .lane-request .seg[data-part="p-attachment"]').evaluateAll((s) => s.map((e) => e.title));
    assert.ok((await restored()).some((title) => title.includes(failing)), `${failing} restored before`);
    t = await apply("fail");
    assert.ok(t.total < base, `failed file: ${t.total} vs ${base}`);
    assert.ok(!(await restored()).some((title) => title.includes(failing)), `${failing} still restored`);
    assert.ok((await page.locator("table.attachments td", { hasText: "ENOENT" }).count()) >= 1);
    await shot(page, "try-file-fails", page.locator(".hero"));
    await reset();
    // Halve the window: every line drops.
    const compactLine = number(await page.locator('table.readout tr[data-line="compact"] td.tokens').textContent());
    t = await apply("Halve the window");
    await page.waitForFunction((c) => Number(document.querySelector('table.readout tr[data-line="compact"] td.tokens').textContent.replace(/[^0-9]/g, "")) < c, compactLine);
    assert.equal(await page.getByLabel("Context window (tokens)").inputValue(), "100000");
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("point 1: newcomer mode keeps the evidence closed and offers the glossary; expert mode opens it, and the URL keeps it", async () => {
  for (const viewport of SIZES) {
    const { context, page, errors } = await open("", viewport);
    const evidence = page.locator("details.evidence");
    const newcomer = page.getByRole("button", { name: "Newcomer" });
    const expert = page.getByRole("button", { name: "Expert" });
    assert.equal(await newcomer.getAttribute("aria-pressed"), "true");
    assert.equal(await evidence.evaluate((d) => d.open), false);
    // The glossary names the words the page uses.
    const glossary = page.locator("details.glossary");
    await glossary.locator("summary").click();
    const terms = await glossary.locator("dt").allTextContents();
    for (const term of ["Legal group", "Precompute", "Boundary", "T1 microcompact", "T2 snip", "T3 collapse", "T4 compact", "T5 reactive", "Evidence kinds"]) {
      assert.ok(terms.includes(term), `${term} missing from the glossary`);
    }
    await shot(page, "glossary", glossary);
    await expert.click();
    await page.waitForFunction(() => document.querySelector("details.evidence")?.open === true);
    assert.equal(await expert.getAttribute("aria-pressed"), "true");
    assert.equal(await page.locator("details.glossary").count(), 0);
    // It stays open from event to event, and in the link.
    await page.getByRole("button", { name: "First event" }).click();
    assert.equal(await evidence.evaluate((d) => d.open), true);
    await page.waitForFunction(() => new URL(location.href).searchParams.get("expert") === "1");
    await shot(page, "expert", page.locator("#timeline"));
    // Back to newcomer: the drawer closed again, its table not drawn.
    await newcomer.click();
    await page.waitForFunction(() => document.querySelector("details.evidence")?.open === false);
    await caughtUp(page);
    assert.equal(await page.locator("details.evidence table.steps").count(), 0);
    await expert.click();
    await page.waitForFunction(() => document.querySelector("details.evidence")?.open === true);
    // The strip and the stepper still fill the first screen.
    await page.evaluate(() => window.scrollTo(0, 0));
    const box = await page.locator(".stepper").boundingBox();
    assert.ok(box.y + box.height <= viewport.height, `stepper at ${JSON.stringify(box)}`);
    assert.deepEqual(errors, []);
    await context.close();
  }
  const { context, page } = await open("?expert=1");
  assert.equal(await page.locator("details.evidence").evaluate((d) => d.open), true);
  await context.close();
});

test("points 10 and 11: chart text is at least 11 px and never overlaps, at every size; the rebuild embed fits 900x420", async () => {
  for (const viewport of SIZES) {
    const { context, page, errors } = await open("", viewport);
    for (const scenario of ["compact-analysis", "run-through", "long-collapse", "tool-heavy", "breakers", "overflow"]) {
      await showChart(page, scenario);
      const c = await svgTexts(page);
      assert.deepEqual(c.small, [], `${scenario} at ${viewport.width}: text under 11 px`);
      assert.deepEqual(c.overlaps, [], `${scenario} at ${viewport.width}: overlapping labels`);
      assert.ok(c.texts >= 10, `${scenario}: ${c.texts} texts`);
      if (scenario === "run-through" || scenario === "long-collapse") await shot(page, `chart-${scenario}`, page.locator("#chart"));
    }
    assert.deepEqual(errors, []);
    await context.close();
  }
  // The rebuild embed: strip, stepper and legend, nothing to scroll, at
  // every step of the /compact.
  const { context, page, errors } = await open("?embed=1&panel=rebuild", { width: 900, height: 420 });
  const fits = () => page.evaluate(() => {
    const s = document.scrollingElement;
    return { height: s.scrollHeight, width: s.scrollWidth };
  });
  for (let step = 0; step <= 6; step++) {
    const f = await fits();
    assert.ok(f.height <= 420 && f.width <= 900, `step ${step}: ${JSON.stringify(f)}`);
    if (step === 0) await shot(page, "embed-rebuild");
    await page.getByRole("button", { name: step === 0 ? "First event" : "Step forward" }).click();
    if (step === 0) await page.locator(".events li button", { hasText: "/compact" }).click();
  }
  assert.equal(await page.locator(".embed .parts li").count() > 0, true);
  assert.deepEqual(errors, []);
  await context.close();
});
