// Debian's Chromium driven by playwright-core (no browser download), with
// the flags this machine's closed network needs, and console-error capture.
import os from "node:os";

import { chromium } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export async function launch() {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  // The browser process exiting while a test still uses it shows only as
  // "Target page, context or browser has been closed" (CI at c3a463c, one
  // second into a test): say when, and what the machine had then.
  let closing = false;
  const close = browser.close.bind(browser);
  browser.close = (...args) => {
    closing = true;
    return close(...args);
  };
  browser.on("disconnected", () => {
    if (closing) return;
    const gib = (n) => (n / 2 ** 30).toFixed(1);
    console.error(`browser.mjs: the browser process exited while in use, at ${new Date().toISOString()}: ${gib(os.freemem())} of ${gib(os.totalmem())} GiB free, load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  });
  return browser;
}

/**
 * Opens a page that records console errors and warnings (issue 26: "no
 * console error or warning in any view") and uncaught exceptions.
 */
export async function pageWithErrors(context) {
  const page = await context.newPage();
  const errors = [];
  page.on("console", (msg) => {
    if (msg.type() === "error" || msg.type() === "warning") errors.push(`console ${msg.type()}: ${msg.text()}`);
  });
  page.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
  readsCaughtUp(page);
  return { page, errors };
}

/** A locator's and a page's methods that read what the page shows. */
const READS = {
  locator: ["textContent", "innerText", "innerHTML", "getAttribute", "inputValue", "isVisible", "isHidden",
    "isChecked", "isDisabled", "isEnabled", "count", "allTextContents", "allInnerTexts", "evaluate",
    "evaluateAll", "boundingBox", "screenshot", "ariaSnapshot"],
  page: ["evaluate", "screenshot", "$eval", "$$eval", "content"],
};

/**
 * Makes every read of `page` (and of its locators) wait until the sandbox
 * has caught up with the last change first (see `caughtUp`): what a test
 * reads is what a visitor sees once the page has drawn the change, not a
 * part that catches up in the task after the frame (web/src/offscreen.rs:
 * the panels, and the strip while scrolled out of view). A page that is
 * not the sandbox (no `sandboxStale`) reads at once. Actions (click, fill)
 * do not wait.
 */
function readsCaughtUp(page) {
  const wrap = (target, name, pageOf) => {
    const read = target[name];
    if (typeof read !== "function" || read.caughtUp) return;
    const wrapped = async function (...args) {
      await caughtUp(pageOf(this));
      return read.apply(this, args);
    };
    wrapped.caughtUp = true;
    target[name] = wrapped;
  };
  const locator = Object.getPrototypeOf(page.locator("body"));
  for (const name of READS.locator) wrap(locator, name, (l) => l.page());
  for (const name of READS.page) wrap(page, name, (p) => p);
}

/**
 * Waits until every panel of the sandbox is drawn for the last change: a
 * panel off screen catches up in the task after the frame, and the page
 * counts those due in `window.sandboxStale` (web/src/offscreen.rs). Every
 * read through a page of `pageWithErrors` waits for it first; call it
 * before a check that does not read (a screenshot's file, a scroll).
 */
export function caughtUp(page) {
  return page.waitForFunction(() => !window.sandboxStale);
}

/**
 * Opens the engine's evidence drawer and waits for its steps table: closed,
 * the drawer holds only its summary line (web/src/walk.rs `Evidence`).
 */
export async function openEvidence(page) {
  await page.locator("details.evidence").evaluate((d) => (d.open = true));
  await page.locator("details.evidence table.steps").waitFor({ state: "attached" });
  await caughtUp(page);
}

/** The two sizes every sandbox point is shown at (issue 26). */
export const SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

/**
 * The built sandbox (dist/) served and a browser launched for this test
 * file (registered as its before/after hooks). `open(query, viewport)`
 * loads a page and waits for `ready`; `shot(page, name, locator?)` saves
 * `target/screenshots/<prefix>-<name>-<width>.png`, of the viewport or of
 * `locator` alone.
 */
export async function sandbox({ prefix, ready = ".strip, .embed" }) {
  const { before, after } = await import("node:test");
  const { mkdirSync } = await import("node:fs");
  const { dirname, join } = await import("node:path");
  const { fileURLToPath } = await import("node:url");
  const { serve } = await import("./server.mjs");
  const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
  const shots = join(root, "target/screenshots");
  let server, browser;
  before(async () => {
    mkdirSync(shots, { recursive: true });
    server = await serve({ "/": join(root, "dist") });
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });
  return {
    root,
    url: () => server.url,
    async open(query = "", viewport = SIZES[0]) {
      const context = await browser.newContext({ viewport });
      const { page, errors } = await pageWithErrors(context);
      await page.goto(`${server.url}/${query}`);
      await page.locator(ready).first().waitFor();
      return { context, page, errors };
    },
    async shot(page, name, locator) {
      const path = join(shots, `${prefix}-${name}-${page.viewportSize().width}.png`);
      if (locator) {
        await locator.scrollIntoViewIfNeeded();
        await locator.screenshot({ path });
      } else {
        await page.screenshot({ path });
      }
      console.log(`screenshot: ${path}`);
    },
  };
}

/**
 * Picks `scenario` and waits until the session chart is drawn at its own
 * width (one SVG unit, one CSS pixel: it measures itself after a render).
 */
export async function showChart(page, scenario) {
  await page.getByLabel("Scenario").selectOption(scenario);
  await page.waitForFunction((n) => new URL(location.href).searchParams.get("scenario") === n, scenario);
  await page.locator("#chart").scrollIntoViewIfNeeded();
  await page.waitForFunction(() => {
    const svg = document.querySelector("#chart .chart svg");
    return svg && Math.abs(svg.getBoundingClientRect().width - svg.viewBox.baseVal.width) < 1.5;
  });
}

/**
 * Every text of every SVG on the page (issue 26, point 10): how many, those
 * under 11 CSS px (font size times the SVG's scale), and every pair whose
 * boxes overlap.
 */
export function svgTexts(page) {
  return page.evaluate(() => {
    const out = { texts: 0, small: [], overlaps: [] };
    for (const svg of document.querySelectorAll("svg")) {
      const vb = svg.viewBox?.baseVal;
      const scale = vb && vb.width ? svg.getBoundingClientRect().width / vb.width : 1;
      // Hidden texts (the chart's rulers, which measure its labels) are not drawn.
      const texts = [...svg.querySelectorAll("text")].filter((t) => getComputedStyle(t).visibility !== "hidden").map((t) => {
        const b = t.getBoundingClientRect();
        return { text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * scale, box: [b.left, b.top, b.right, b.bottom] };
      });
      out.texts += texts.length;
      for (const t of texts) if (t.px < 10.95) out.small.push(`${t.text} (${t.px.toFixed(1)} px)`);
      for (let i = 0; i < texts.length; i++) {
        for (let j = i + 1; j < texts.length; j++) {
          const [a, b] = [texts[i].box, texts[j].box];
          const ix = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
          const iy = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
          if (ix > 0.5 && iy > 0.5) out.overlaps.push(`${texts[i].text} × ${texts[j].text}`);
        }
      }
    }
    return out;
  });
}
