// The built sandbox (dist/, from `trunk build --release`) in headless
// Chromium: every scenario, the controls reaching the engine (cut point,
// hook, attachments), importing a real session file, the URL, embed mode,
// the keyboard, the no-JavaScript page, phone width, no console errors.
// Screenshots go to target/screenshots/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { serve } from "./server.mjs";
import { caughtUp, launch, pageWithErrors } from "./browser.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const dist = join(root, "dist");
const shots = join(root, "target/screenshots");
const fixtures = join(root, "crates/compaction-core/tests/fixtures/transcripts");
const hostDir = mkdtempSync(join(tmpdir(), "sandbox-host-"));
let server, browser;

const SCENARIOS = ["compact-analysis", "run-through", "tool-heavy", "long-collapse", "chained", "overflow", "breakers", "thinking"];

before(async () => {
  mkdirSync(shots, { recursive: true });
  writeFileSync(
    join(hostDir, "index.html"),
    `<!doctype html><title>docs page</title><link rel="icon" href="data:,"><h1>A docs page</h1>
     <iframe id="demo" title="sandbox" src="/?embed=1&panel=timeline" width="900" height="700"></iframe>`,
  );
  server = await serve({ "/": dist, "/host/": hostDir });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
  rmSync(hostDir, { recursive: true, force: true });
});

async function open(query = "", viewport = { width: 1280, height: 800 }) {
  const context = await browser.newContext({ viewport });
  const { page, errors } = await pageWithErrors(context);
  await page.goto(`${server.url}/${query}`);
  await page.locator("main").first().waitFor();
  await page.locator(".events, .error, .embed").first().waitFor();
  return { context, page, errors };
}

async function shot(page, name, { tall = true } = {}) {
  const path = join(shots, `${name}.png`);
  // A panel off screen is not drawn (content-visibility: auto) until it
  // nears the viewport: the whole page is shown in one tall viewport for
  // the picture (each panel then takes its real height), then put back.
  // Not on a page without JavaScript: no animation frame ever comes there,
  // and waiting for one hung the run.
  const size = page.viewportSize();
  for (let i = 0, h = 0; tall && i < 4; i++) {
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    if (height === h) break;
    h = height;
    await page.setViewportSize({ width: size.width, height: Math.max(height, size.height) });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
  }
  await page.screenshot({ path, fullPage: true });
  await page.setViewportSize(size);
  console.log(`screenshot: ${path}`);
}

const LINES = ["budget", "precompute", "warn", "compact", "blocked"];
async function readout(page) {
  await caughtUp(page);
  const values = {};
  for (const line of LINES) {
    values[line] = (await page.locator(`table.readout tr[data-line="${line}"] td.tokens`).textContent()).trim();
  }
  return values;
}

const boundaryText = (page) => page.locator(".outcome.compacted .boundary").textContent();
const preserved = async (page) => Number((await boundaryText(page)).match(/(\d+) messages preserved/)[1]);

test("every built-in scenario plays, with its steps, chart and context", async () => {
  const { context, page, errors } = await open("?expert=1"); // the evidence drawer open: its steps drawn
  for (const name of SCENARIOS) {
    await page.getByLabel("Scenario").selectOption(name);
    await page.waitForFunction((n) => new URL(location.href).searchParams.get("scenario") === n, name);
    const events = await page.locator(".events li").count();
    assert.ok(events > 0, `${name}: no events`);
    assert.equal(await page.locator("#timeline .error").count(), 0, `${name}: an error is shown`);
    assert.ok((await page.locator(".chart path.series").getAttribute("d")).startsWith("M"), `${name}: no series`);
    // The axis labels are plain text: the gauge's dark tick stroke once
    // leaked onto them and drew every label twice, smeared.
    assert.equal(await page.locator(".chart .tick text").first().evaluate((t) => getComputedStyle(t).stroke), "none", `${name}: axis label stroked`);
    assert.ok((await page.locator(".stack").count()) === 2, `${name}: no before/after`);
    // Opened on the last event where a tier fired.
    await shot(page, `scenario-${name}`);
    // The engine's steps are on screen somewhere in the run: walk to the
    // first event that has any.
    const fired = page.locator(".event.fired").first();
    if (await fired.count()) {
      await fired.click();
      await caughtUp(page);
      assert.ok((await page.locator("table.steps tbody tr").count()) > 0, `${name}: a fired event shows no step`);
    }
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test("each scenario shows what its tier does", async () => {
  const { context, page, errors } = await open("?expert=1"); // the evidence drawer open: its steps drawn
  const tiersOf = async (name) => {
    await page.getByLabel("Scenario").selectOption(name);
    await page.waitForFunction((n) => new URL(location.href).searchParams.get("scenario") === n, name);
    return (await page.locator(".events .ev-tier").allTextContents()).join(" ");
  };
  assert.match(await tiersOf("tool-heavy"), /T1 microcompact/);
  assert.match(await tiersOf("run-through"), /T2 snip/);
  assert.match(await tiersOf("long-collapse"), /T3 collapse/);
  assert.match(await tiersOf("chained"), /T4 compact/);
  assert.match(await tiersOf("overflow"), /T5 reactive/);
  assert.match(await page.locator(".events").textContent(), /413 prompt too long/);
  await tiersOf("breakers");
  // The call before the last /compact: the breaker is open, and the
  // failure diagram lights that branch only.
  const events = page.locator(".events li button");
  await events.nth((await events.count()) - 2).click();
  const lit = page.locator('.flow[data-flow="failures"] li.lit');
  // The flows are in the engine's evidence drawer (open in expert mode).
  await lit.first().waitFor({ state: "attached", timeout: 5_000 });
  assert.equal(await lit.count(), 1);
  assert.match(await lit.textContent(), /Auto keeps failing/);
  assert.deepEqual(errors, []);
  await context.close();
});

test("moving the cut point changes the preserved messages", async () => {
  const { context, page, errors } = await open();
  const one = await preserved(page);
  const afterOne = await page.locator(".stack").nth(1).locator("h4").textContent();
  await page.getByLabel("Groups preserved").fill("3");
  await page.waitForFunction((n) => !document.querySelector(".outcome.compacted .boundary").textContent.includes(`${n} messages preserved`), one);
  const three = await preserved(page);
  assert.ok(three > one, `${three} > ${one}`);
  assert.notEqual(await page.locator(".stack").nth(1).locator("h4").textContent(), afterOne);
  // More message groups: the engine reports more legal groups.
  const groups = async () => Number((await page.locator(".controls").textContent()).match(/sees (\d+) legal groups/)[1]);
  const g = await groups();
  await page.getByLabel("Extra message groups").fill("4");
  await page.waitForFunction((g) => document.querySelector(".controls").textContent.includes(`sees ${g + 4} legal groups`), g);
  await shot(page, "cut-point-3-groups");
  assert.deepEqual(errors, []);
  await context.close();
});

test("a blocking PreCompact hook ends with no boundary", async () => {
  const { context, page, errors } = await open("?expert=1"); // the evidence drawer open: its steps drawn
  assert.equal(await page.locator(".outcome.compacted").count(), 1);
  await page.getByLabel("PreCompact hook blocks the compaction").check();
  await page.locator(".outcome.failed").waitFor();
  assert.equal(await page.locator(".outcome.compacted").count(), 0);
  assert.match(await page.locator(".outcome.failed").textContent(), /No boundary/);
  assert.match(await page.locator("table.steps").textContent(), /hook/);
  assert.match(await page.locator('.flow[data-flow="failures"] li.lit').textContent(), /Hook blocks/);
  // Before and after are the same request.
  const [before, afterH] = await page.locator(".stack h4").allTextContents();
  assert.equal(before.replace("Before", ""), afterH.replace("After", ""));
  await shot(page, "hook-blocks");
  assert.deepEqual(errors, []);
  await context.close();
});

test("a failing attachment shows as not restored; budgets decide the rest", async () => {
  const { context, page, errors } = await open();
  const file = "reverse/javascript/cli.readable.js";
  const row = page.locator(`table.attachments tr[data-path="${file}"]`);
  assert.equal(await row.getAttribute("data-status"), "restored");
  await page.getByLabel(file).check();
  await page.waitForFunction((f) => document.querySelector(`table.attachments tr[data-path="${f}"]`)?.dataset.status === "not restored", file);
  assert.match(await row.textContent(), /read failed/);
  await shot(page, "attachment-fails");
  await page.getByLabel(file).uncheck();
  await page.getByLabel("Files restored (max)").fill("1");
  await page.waitForFunction(() => document.querySelector('table.attachments tr[data-status="not chosen"]'));
  assert.deepEqual(errors, []);
  await context.close();
});

test("retry, fallback and precompute switches show the engine's reasons", async () => {
  const { context, page, errors } = await open("?expert=1"); // the evidence drawer open: its steps drawn
  await page.getByLabel("Summary request over the window (adaptive retry)").check();
  await page.waitForFunction(() => document.querySelector("table.steps").textContent.includes("over the window"));
  assert.match(await page.locator('.flow[data-flow="failures"] li.lit').textContent(), /Summary over the window/);
  await page.getByLabel("Summary request over the window (adaptive retry)").uncheck();
  await page.getByLabel("Primary model unavailable (fallback answers)").check();
  await page.waitForFunction(() => document.querySelector("table.steps").textContent.includes("falling back"));
  await page.getByLabel("Primary model unavailable (fallback answers)").uncheck();
  await page.getByLabel("Stored precompute").selectOption("stale");
  await page.waitForFunction(() => /days old/.test(document.querySelector("table.steps").textContent));
  await page.getByLabel("Stored precompute").selectOption("ready");
  await page.waitForFunction(() => document.querySelector("table.steps").textContent.includes("the user gave new instructions"));
  await page.getByLabel("/compact instructions").fill("");
  await page.waitForFunction(() => document.querySelector("table.steps").textContent.includes("precompute hit"));
  await shot(page, "precompute-hit");
  assert.deepEqual(errors, []);
  await context.close();
});

test("step forward, back and play walk the engine's steps", async () => {
  const { context, page, errors } = await open("?scenario=compact-analysis&event=0&expert=1");
  const position = () => page.locator(".stepper .position").textContent();
  // Five calls while the session analyses /compact, the /compact, and the
  // call with the user's next prompt.
  assert.match(await position(), /event 1 of 7/);
  await page.getByRole("button", { name: "Step forward" }).click();
  assert.match(await position(), /event 1 of 7|event 2 of 7/);
  await page.getByRole("button", { name: "Last event" }).click();
  assert.match(await position(), /event 7 of 7/);
  await page.locator(".events li button", { hasText: "/compact" }).click();
  assert.match(await position(), /event 6 of 7/);
  await page.getByRole("button", { name: "Step forward" }).click();
  assert.match(await position(), /step 1 of/);
  await caughtUp(page);
  assert.equal(await page.locator("table.steps tr.current").count(), 1);
  assert.equal(await page.locator('.flow[data-flow="manual"] li.lit').count(), 1);
  await page.getByRole("button", { name: "Step back" }).click();
  assert.match(await position(), /all \d+ steps/);
  await page.getByRole("button", { name: "First event" }).click();
  await page.getByRole("button", { name: "▶ play" }).click();
  await page.waitForFunction(() => !/event 1 of 7 \(/.test(document.querySelector(".stepper .position").textContent), null, { timeout: 5000 });
  await page.getByRole("button", { name: "❚❚ pause" }).click();
  // A summary's lineage opens on click (at the /compact, whose before
  // holds the messages it replaced).
  await page.locator(".events li button", { hasText: "/compact" }).click();
  await page.locator(".stack").nth(1).getByRole("button", { name: /Show lineage/ }).click();
  const lineage = page.locator(".stack").nth(1).locator(".lineage");
  assert.ok((await lineage.locator("li").count()) > 0);
  assert.match(await lineage.textContent(), /Find out what Claude Code 2\.1\.235 does/);
  assert.deepEqual(errors, []);
  await context.close();
});

test("importing a shared session file shows its real boundaries", async () => {
  const { context, page, errors } = await open();
  const name = "wpfleger96__claude-code-status-line__session_with_compact.jsonl";
  const path = join(fixtures, name);
  const real = readFileSync(path, "utf8").split("\n").filter((l) => {
    try { return JSON.parse(l).subtype === "compact_boundary"; } catch { return false; }
  }).length;
  assert.ok(real > 0);
  await page.getByLabel("Pick or drop a Claude Code session file (.jsonl)").setInputFiles(path);
  await page.locator(".imported").waitFor();
  assert.match(await page.locator(".imported").textContent(), new RegExp(name.replace(/[.]/g, "\\.")));
  assert.equal(await page.locator('table.boundaries tr[data-boundary="real"]').count(), real);
  assert.equal(await page.locator(".chart .m-real").count(), real);
  assert.match(await page.locator("#import").textContent(), /Nothing is uploaded/);
  await page.locator("#chart").scrollIntoViewIfNeeded();
  await shot(page, "import-session");
  // What-if: another shared file, replayed under a smaller window, gets a
  // compaction it did not get at 200,000.
  // The page must show what the engine predicts: the CLI's replay of the
  // same file under the same lines (a 20,000-token reply reserve, the
  // sandbox's default), from the binary the host tests built.
  const ivh = join(fixtures, "ivh__claudecode_to_html__89196983-226d-4cce-917d-f19967122f0b.jsonl");
  const cli = join(root, "target/debug/compaction");
  assert.ok(existsSync(cli), `${cli} is missing: run cargo test (scripts/test.sh does) before this test`);
  const cliPredicted = (window) => JSON.parse(execFileSync(cli,
    ["replay", ivh, "--window", String(window), "--max-output", "20000"], { maxBuffer: 1 << 28 })).predicted.length;
  await page.getByLabel("Pick or drop a Claude Code session file (.jsonl)").setInputFiles(ivh);
  await page.waitForFunction(() => document.querySelector(".imported")?.textContent.includes("ivh__"));
  const predicted = () => page.locator('table.boundaries tr[data-boundary="predicted"]').count();
  assert.equal(await predicted(), 0);
  assert.equal(cliPredicted(200000), 0);
  await page.getByLabel("Context window (tokens)").fill("80000");
  await page.waitForFunction(() => /compact 47k/.test(document.querySelector(".chart .l-compact")?.textContent));
  const expected = cliPredicted(80000);
  assert.ok(expected >= 1, "at 80,000 the replay predicts a compaction the real session did not have");
  assert.equal(await predicted(), expected);
  assert.equal(await page.locator(".chart .m-predicted").count(), expected);
  assert.deepEqual(errors, []);
  await context.close();
});

test("a garbage file gives a visible error, and the page keeps working", async () => {
  const { context, page, errors } = await open();
  // Dropped on the drop zone, as a visitor would.
  await page.locator(".dropzone").evaluate((zone) => {
    const data = new DataTransfer();
    data.items.add(new File(["not json\n\u0000\u00ff{\"type\":\"user\"\n[1,2\n"], "garbage.jsonl"));
    zone.dispatchEvent(new DragEvent("dragover", { dataTransfer: data, bubbles: true, cancelable: true }));
    zone.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
  });
  const alert = page.locator("#import [role=alert]");
  await alert.waitFor();
  assert.match(await alert.textContent(), /garbage\.jsonl has no Claude Code conversation messages/);
  await page.getByLabel("Context window (tokens)").fill("1000000");
  assert.equal((await readout(page)).compact, "967,000");
  assert.deepEqual(errors, []);
  await context.close();
});

test("the URL round-trips every control", async () => {
  const { context, page, errors } = await open("?expert=1"); // the evidence drawer open: its steps drawn
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
  await page.getByLabel("Scenario").selectOption("compact-analysis");
  await page.getByLabel("Context window (tokens)").fill("300000");
  await page.getByLabel("Groups preserved").fill("2");
  await page.getByLabel("reverse/javascript/cli.readable.js").check();
  await page.getByLabel("Instructions the hook adds").fill("keep the probes & paths");
  await page.getByLabel("Stored precompute").selectOption("moved");
  await page.getByLabel("Primary model unavailable (fallback answers)").check();
  // The page writes its URL a moment after the last change.
  await page.waitForFunction(() => new URL(location.href).searchParams.get("primaryDown") === "1");
  const url = page.url();
  // The copy-link button copies the same address.
  await page.getByRole("button", { name: "Copy link to these settings" }).click();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url);
  for (const [key, value] of [["window", "300000"], ["preserve", "2"], ["precompute", "moved"], ["hookAdds", "keep the probes & paths"]]) {
    assert.equal(new URL(url).searchParams.get(key), value, key);
  }
  const outcome = await page.locator(".outcome").textContent();
  const steps = await page.locator("table.steps").textContent();
  const { page: again, context: c2, errors: e2 } = await (async () => {
    const c = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const p = await pageWithErrors(c);
    await p.page.goto(url);
    await p.page.locator(".events").waitFor();
    return { ...p, context: c };
  })();
  assert.equal(await again.getByLabel("Context window (tokens)").inputValue(), "300000");
  assert.equal(await again.getByLabel("Groups preserved").inputValue(), "2");
  assert.ok(await again.getByLabel("reverse/javascript/cli.readable.js").isChecked());
  assert.equal(await again.getByLabel("Instructions the hook adds").inputValue(), "keep the probes & paths");
  assert.equal(await again.getByLabel("Stored precompute").inputValue(), "moved");
  assert.equal(await again.locator(".outcome").textContent(), outcome);
  assert.equal(await again.locator("table.steps").textContent(), steps);
  assert.equal(again.url(), url);
  assert.deepEqual([...errors, ...e2], []);
  await c2.close();
  await context.close();
});

test("embed mode shows one panel, and works in an iframe", async () => {
  const { context, page, errors } = await open("?embed=1&panel=chart&scenario=run-through", { width: 900, height: 500 });
  await page.locator(".embed .chart").waitFor();
  assert.equal(await page.locator("aside.controls").count(), 0);
  assert.equal(await page.locator("h1").count(), 0);
  await shot(page, "embed-chart");
  await page.goto(`${server.url}/host/`);
  const frame = page.frameLocator("#demo");
  await frame.locator(".embed .events").waitFor();
  assert.ok((await frame.locator(".events li").count()) > 0);
  await shot(page, "embed-iframe-timeline");
  assert.deepEqual(errors, []);
  await context.close();
});

test("the gauge follows the window and max output controls", async () => {
  const { context, page, errors } = await open("?expert=1"); // the evidence drawer open: its steps drawn
  assert.deepEqual(await readout(page), {
    budget: "180,000", precompute: "144,000", warn: "147,000", compact: "167,000", blocked: "177,000",
  });
  await page.getByLabel("Context window (tokens)").fill("1000000");
  await page.getByLabel("Max output tokens").fill("32000");
  assert.deepEqual(await readout(page), {
    budget: "980,000", precompute: "784,000", warn: "947,000", compact: "967,000", blocked: "977,000",
  });
  await caughtUp(page);
  assert.equal((await page.locator(".gauge-labels .mark-compact").textContent()).trim(), "compact 967,000");
  await page.getByLabel("Context window (tokens)").fill("10000");
  // Refused at the field; the last good lines and run stay on screen.
  assert.match(await page.locator("#window-error").textContent(), /`window` = 10000/);
  assert.equal((await readout(page)).compact, "967,000");
  await caughtUp(page);
  assert.ok((await page.locator("#timeline table.steps").count()) > 0);
  await page.getByLabel("Context window (tokens)").fill("200000");
  assert.equal((await readout(page)).compact, "167,000");
  assert.deepEqual(errors, []);
  await context.close();
});

test("the controls work from the keyboard", async () => {
  const { context, page, errors } = await open();
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.id), "scenario");
  await page.getByLabel("Context window (tokens)").focus();
  await page.keyboard.press("ArrowUp"); // step 1000
  // The engine runs again on the next render, not within the key press.
  await page.waitForFunction(() => document.querySelector('table.readout tr[data-line="budget"] td.tokens')?.textContent.trim() === "181,000", null, { timeout: 5000 }).catch(() => {});
  assert.equal((await readout(page)).budget, "181,000");
  await page.getByLabel("PreCompact hook blocks the compaction").focus();
  await page.keyboard.press("Space");
  await page.locator(".outcome.failed").waitFor();
  await page.getByRole("button", { name: "Step back" }).focus();
  await page.keyboard.press("Enter");
  assert.match(await page.locator(".stepper .position").textContent(), /event 5 of 7/);
  assert.deepEqual(errors, []);
  await context.close();
});

test("the page allows no network beyond its own files and no inline script", async () => {
  const html = readFileSync(join(dist, "index.html"), "utf8");
  const csp = html.match(/http-equiv="Content-Security-Policy" content="([^"]+)"/)[1];
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /connect-src 'self'/);
  assert.doesNotMatch(csp.match(/script-src[^;]*/)[0], /unsafe-inline/);
  assert.doesNotMatch(html, /<script type="module">/, "Trunk's inline loader was not moved out");
  const { context, page, errors } = await open();
  const violated = await page.evaluate(async () => {
    const seen = new Promise((resolve) =>
      document.addEventListener("securitypolicyviolation", (e) => resolve(e.effectiveDirective), { once: true }));
    fetch("https://example.com/").catch(() => {});
    return seen;
  });
  assert.equal(violated, "connect-src", "the policy did not refuse a request to another origin");
  // The CSP refusal is reported on the console; that one is expected.
  assert.ok(errors.every((e) => /Content Security Policy|Failed to fetch|example\.com/.test(e)), errors.join("\n"));
  await context.close();
});

test("without JavaScript the page shows the R12 content from the engine", async () => {
  const html = readFileSync(join(dist, "index.html"), "utf8");
  assert.doesNotMatch(html, /noscript:generated/, "the build hook did not run");
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${server.url}/`);
  const text = await page.locator("body").innerText();
  for (const value of ["180,000", "144,000", "147,000", "167,000", "177,000"]) {
    assert.ok(text.includes(value), `${value} missing from the no-JavaScript page`);
  }
  const order = ["1. Summary", "2. Preserved messages", "3. Attachments", "4. Boundary", "5. Recovery branches", "6. Flow diagrams"];
  const at = order.map((h) => text.indexOf(h));
  assert.ok(at.every((i, k) => i >= 0 && (k === 0 || i > at[k - 1])), `sections out of order: ${at}`);
  await shot(page, "sandbox-noscript", { tall: false });
  await context.close();
});

test("readable on a phone-width screen", async () => {
  const { context, page, errors } = await open("", { width: 390, height: 844 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page scrolls sideways by ${overflow}px`);
  await shot(page, "sandbox-phone");
  assert.deepEqual(errors, []);
  await context.close();
});
