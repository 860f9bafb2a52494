// Issue 26, point 8 ("Your session, walked"): once a session is imported,
// the strip and the timeline switch to it. The strip shows the request
// picked on the chart (or stepped to) as the engine counts it: at a
// boundary the real summary and the preserved tail, then what came since;
// before it, the conversation. Screenshots at 1280x800 and 390x844 go to
// target/screenshots/walk-*.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

import { serve } from "./server.mjs";
import { launch, pageWithErrors, SIZES, svgTexts } from "./browser.mjs";
import { pickFile } from "./session-gen.mjs";

const root = new URL("../..", import.meta.url).pathname;
const shots = join(root, "target/screenshots");
let server, browser, dir;

const SUMMARY = "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nSummary:\n1. Primary Request and Intent:\n   Move the billing service to PostgreSQL.\n2. Key Technical Concepts:\n   - SQLAlchemy, Alembic migrations\n\nRecent messages are preserved verbatim.";

/**
 * A 2.1.39 session: eight turns growing to 165k reported tokens, an
 * automatic compaction that keeps the last turn verbatim (its prompt and
 * reply), then three more turns after it.
 */
export function compacted() {
  const base = { isSidechain: false, userType: "external", sessionId: "w", version: "2.1.39", cwd: "/srv/billing" };
  const lines = [];
  let n = 0;
  const uuid = () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
  const time = (i) => new Date(Date.parse("2026-03-01T09:00:00Z") + i * 60_000).toISOString();
  let parent = null;
  const turn = (i, reported) => {
    const u = uuid();
    lines.push({ ...base, parentUuid: parent, type: "user", uuid: u, timestamp: time(i), message: { role: "user", content: `Step ${i}: migrate the ${["invoices", "customers", "payments", "refunds", "ledgers", "taxes", "reports", "exports", "webhooks", "audits", "plans"][i]} table.` } });
    const a = uuid();
    lines.push({ ...base, parentUuid: u, type: "assistant", uuid: a, requestId: `req_${i}`, timestamp: time(i), message: {
      id: `msg_${i}`, type: "message", role: "assistant", model: "claude-opus-4-6", content: [{ type: "text", text: `Migrated step ${i}. ` + "Details of the migration. ".repeat(200) }],
      usage: { input_tokens: 3, cache_creation_input_tokens: 1_000, cache_read_input_tokens: reported - 1_003, output_tokens: 400 },
    } });
    parent = a;
    return [u, a];
  };
  let last;
  for (let i = 0; i < 8; i++) last = turn(i, 20_000 + i * 20_700);
  const boundary = uuid();
  const summary = uuid();
  lines.push({ ...base, parentUuid: null, logicalParentUuid: last[1], type: "system", subtype: "compact_boundary", content: "Conversation compacted", isMeta: false, level: "info", uuid: boundary, timestamp: time(9),
    compactMetadata: { trigger: "auto", preTokens: 164_903, preservedSegment: { headUuid: last[0], anchorUuid: summary, tailUuid: last[1] } } });
  lines.push({ ...base, parentUuid: boundary, type: "user", uuid: summary, isCompactSummary: true, isVisibleInTranscriptOnly: true, timestamp: time(9), message: { role: "user", content: SUMMARY } });
  parent = last[1];
  for (let i = 8; i < 11; i++) turn(i, 30_000 + (i - 8) * 5_000);
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

before(async () => {
  mkdirSync(shots, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), "sandbox-walk-"));
  writeFileSync(join(dir, "compacted.jsonl"), compacted());
  server = await serve({ "/": join(root, "dist"), "/files/": dir });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const axe = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** axe's serious and critical violations on the page as it stands. */
async function violations(page) {
  await page.evaluate(axe);
  const found = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 5) }));
  });
  return found.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/** The strip's request: its index, whether it is at a boundary, its parts. */
function strip(page) {
  return page.locator(".strip").evaluate((s) => ({
    session: s.classList.contains("session-strip"),
    request: s.dataset.request === undefined ? null : Number(s.dataset.request),
    atBoundary: s.dataset.atBoundary === "true",
    title: s.querySelector("h2").textContent,
    parts: [...s.querySelectorAll(".lane-request .seg")].map((e) => [e.dataset.part, Number(e.dataset.tokens)]),
    total: s.querySelector(".strip-total")?.textContent ?? "",
  }));
}

async function waitRequest(page, at) {
  await page.waitForFunction((at) => document.querySelector(".session-strip")?.dataset.request === String(at) &&
    document.querySelector(".session-strip")?.getAttribute("aria-busy") === "false", at);
}

test("point 8: an imported session's requests walked: the strip, the stepper and the timeline switch to it; at a boundary the real summary and preserved tail", { timeout: 120_000 }, async () => {
  for (const viewport of SIZES) {
    const context = await browser.newContext({ viewport });
    const { page, errors } = await pageWithErrors(context);
    await page.goto(`${server.url}/`);
    await page.locator(".strip").first().waitFor();
    assert.equal((await strip(page)).session, false, "the built-in scenario first");
    await pickFile(page, "/files/compacted.jsonl");
    await page.waitForFunction(() => /\d messages/.test(document.querySelector(".imported")?.textContent ?? ""));
    // Opened at the first request after the session's last boundary.
    await waitRequest(page, 8);
    let s = await strip(page);
    assert.equal(s.title, "Request 9 of 11");
    assert.ok(s.atBoundary);
    const kinds = [...new Set(s.parts.map(([p]) => p))];
    assert.deepEqual(kinds, ["p-system", "p-summary", "p-preserved", "p-since"], JSON.stringify(s.parts));
    assert.match(s.total, /30,000 tokens reported/);
    // What the host sent outside the messages is the reported count less
    // the engine's count of them.
    const counted = Number(s.total.match(/counts ([\d,]+)/)[1].replace(/,/g, ""));
    assert.equal(s.parts.find(([p]) => p === "p-system")[1], 30_000 - counted);
    assert.match(await page.locator(".session-strip .lane-disk").textContent(), /compact_boundary line 17 · trigger auto · 164,903 tokens before · 2 preserved/);
    // The timeline is the request's: the real summary, open, and the
    // preserved tail, each kept verbatim.
    assert.equal(await page.locator("#timeline-h").textContent(), "What this request carried");
    assert.equal(await page.locator("#timeline details.real-summary").evaluate((d) => d.open), true);
    assert.equal((await page.locator("#timeline .summary-text").textContent()), SUMMARY);
    assert.deepEqual(await page.locator("#timeline .preserved-tail li .tag").allTextContents(), ["kept verbatim", "kept verbatim"]);
    assert.match(await page.locator("#timeline .preserved-tail").textContent(), /user · \d+ tokens · Step 7: migrate the exports table\..*assistant · [\d,]+ tokens · Migrated step 7\./s);
    // No scenario experiments on a session.
    assert.equal(await page.locator(".try").count(), 0);
    // axe: the session's strip, stepper and timeline as accessible as the
    // scenario's.
    assert.deepEqual(await violations(page), []);
    await page.screenshot({ path: join(shots, `walk-boundary-${viewport.width}.png`) });
    await page.locator("#timeline").screenshot({ path: join(shots, `walk-summary-${viewport.width}.png`) });

    // Any point of the chart: the first request, before the compaction.
    await page.locator("#chart").scrollIntoViewIfNeeded();
    const box = await page.locator("#chart svg").boundingBox();
    const plotLeft = viewport.width < 600 ? 40 : 60;
    await page.mouse.click(box.x + plotLeft + 1, box.y + box.height / 2);
    await waitRequest(page, 0);
    s = await strip(page);
    assert.equal(s.title, "Request 1 of 11");
    assert.ok(!s.atBoundary);
    assert.deepEqual([...new Set(s.parts.map(([p]) => p))], ["p-system", "p-conversation"]);
    assert.match(s.total, /20,000 tokens reported/);
    // Down at the chart, the request picked is pinned above the panels:
    // its parts add up to what the file reports.
    await page.waitForFunction(() => /^Request 1 of 11: 20,000 tokens sent/.test(document.querySelector(".panels .pinned")?.textContent ?? ""));
    assert.deepEqual(await page.locator(".panels .pinned .lane-pinned .seg").evaluateAll((e) => e.map((x) => x.classList[1])), ["p-system", "p-conversation"]);
    assert.match(await page.locator("#timeline").textContent(), /No compaction before this request/);
    // The chart marks the picked request.
    const cursor = await page.locator("#chart rect.cursor").boundingBox();
    assert.ok(Math.abs(cursor.x + cursor.width / 2 - (box.x + plotLeft)) < 2, `cursor at ${cursor.x}`);
    assert.deepEqual((await svgTexts(page)).overlaps, []);
    await page.screenshot({ path: join(shots, `walk-chart-${viewport.width}.png`) });

    // The stepper: the next boundary, then request by request; a button
    // with nowhere to go keeps the focus.
    await page.locator(".strip").scrollIntoViewIfNeeded();
    await page.getByRole("button", { name: "Next boundary" }).click();
    await waitRequest(page, 8);
    await page.getByRole("button", { name: "Next request" }).click();
    await waitRequest(page, 9);
    s = await strip(page);
    assert.ok(!s.atBoundary);
    assert.ok(s.parts.some(([p]) => p === "p-summary"), "a later request still carries the summary");
    assert.equal(await page.locator("#timeline details.real-summary").evaluate((d) => d.open), false);
    await page.getByRole("button", { name: "Last request" }).click();
    await waitRequest(page, 10);
    await page.getByRole("button", { name: "Last request" }).focus();
    await page.keyboard.press("Enter");
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("aria-label")), "Last request");
    // Back to the built-in scenarios: the strip is the scenario's again.
    await page.getByRole("button", { name: "Back to the built-in scenarios" }).click();
    await page.waitForFunction(() => !document.querySelector(".session-strip"));
    assert.deepEqual(errors, []);
    await context.close();
  }
});
