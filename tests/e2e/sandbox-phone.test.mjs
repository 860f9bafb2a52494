// Issue 26, point 10: phone first. On a phone the strip and the stepper
// are on top and the settings wait in a bottom sheet; on a wide screen
// they are a sidebar. Chart text is at least 11 CSS px and no two texts of
// any SVG on the page overlap, at every width from 320 to 1920. Runs
// against the release build in dist/; screenshots go to
// target/screenshots/phone-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";

import { SIZES, sandbox, showChart, svgTexts } from "./browser.mjs";

const { open, shot } = await sandbox({ prefix: "phone" });

const number = (text) => Number(text.replace(/[^0-9]/g, ""));
const sent = async (page) => number(await page.locator(".strip-total strong").textContent());

test("point 10: on a phone the strip and the stepper are on top and the settings are a bottom sheet; on a wide screen a sidebar", async () => {
  const [wide, phone] = SIZES;
  {
    const { context, page, errors } = await open("", phone);
    const bar = page.locator(".sheet-bar");
    const window = page.getByLabel("Context window (tokens)");
    // Closed: one bar at the bottom of the screen, under the picture.
    assert.equal(await bar.getAttribute("aria-expanded"), "false");
    assert.equal(await window.isVisible(), false, "the settings wait in the sheet");
    const b = await bar.boundingBox();
    assert.ok(Math.abs(b.y + b.height - phone.height) <= 1, `bar at ${JSON.stringify(b)}`);
    assert.ok(b.height <= 64, `the closed sheet is one bar (${b.height}px)`);
    for (const part of [".strip .lane-request", ".strip .lane-disk", ".stepper"]) {
      const box = await page.locator(part).first().boundingBox();
      assert.ok(box.y >= 0 && box.y + box.height <= b.y, `${part} at ${JSON.stringify(box)} is on top, above the bar at ${b.y}`);
    }
    await shot(page, "first-screen");
    // It stays at the bottom while the page scrolls.
    await page.locator("#chart").scrollIntoViewIfNeeded();
    const scrolled = await bar.boundingBox();
    assert.ok(Math.abs(scrolled.y + scrolled.height - phone.height) <= 1);
    // Opened: the settings are on screen and drive the engine.
    await bar.click();
    assert.equal(await bar.getAttribute("aria-expanded"), "true");
    await window.waitFor();
    const w = await window.boundingBox();
    assert.ok(w.y >= 0 && w.y + w.height <= phone.height, `window field at ${JSON.stringify(w)}`);
    const sheet = await page.locator(".controls.sheet").boundingBox();
    assert.ok(sheet.height <= phone.height * 0.8, `the open sheet leaves the top of the page (${sheet.height}px)`);
    const before = await sent(page);
    await window.fill("60000");
    await page.waitForFunction((n) => Number(document.querySelector(".strip-total strong").textContent.replace(/[^0-9]/g, "")) !== n, before);
    await shot(page, "sheet-open");
    // Escape closes it and gives the focus back to its bar.
    await window.focus();
    await page.keyboard.press("Escape");
    assert.equal(await bar.getAttribute("aria-expanded"), "false");
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains("sheet-bar")), true);
    assert.equal(await window.isVisible(), false);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `page scrolls sideways by ${overflow}px`);
    assert.deepEqual(errors, []);
    await context.close();
  }
  {
    const { context, page, errors } = await open("", wide);
    assert.equal(await page.locator(".sheet-bar").isVisible(), false, "no sheet on a wide screen");
    const field = await page.getByLabel("Context window (tokens)").boundingBox();
    const panels = await page.locator(".panels").boundingBox();
    assert.ok(field.x + field.width <= panels.x, "the settings are a sidebar left of the panels");
    await shot(page, "first-screen");
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("point 10: chart text is at least 11 CSS px and no SVG text overlaps another, at every width from 320 to 1920", async () => {
  const widths = [320, 360, 390, 600, 768, 1024, 1280, 1920];
  const scenarios = ["compact-analysis", "run-through", "long-collapse", "tool-heavy", "breakers", "overflow", "chained"];
  for (const width of widths) {
    const { context, page, errors } = await open("", { width, height: 900 });
    for (const scenario of scenarios) {
      await showChart(page, scenario);
      const t = await svgTexts(page);
      assert.ok(t.texts >= 10, `${scenario} at ${width}: ${t.texts} texts`);
      assert.deepEqual(t.small, [], `${scenario} at ${width}: text under 11 px`);
      assert.deepEqual(t.overlaps, [], `${scenario} at ${width}: overlapping texts`);
    }
    if (width === 320) await shot(page, "chart", page.locator("#chart"));
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("point 10: the chart places its labels by the width the browser draws them, so a wider font overlaps nothing either", async () => {
  for (const viewport of SIZES) {
    const { context, page, errors } = await open("", viewport);
    // Letters 60 % wider than the chart's estimate of its own text.
    // (Through the CSSOM: the page's CSP refuses an inline style sheet.)
    await page.evaluate(() => document.styleSheets[0].insertRule(".chart .mark text { letter-spacing: 4px; }", document.styleSheets[0].cssRules.length));
    for (const scenario of ["run-through", "long-collapse", "tool-heavy", "breakers", "overflow"]) {
      await showChart(page, scenario);
      // The labels are measured after a render, then placed again.
      await page.waitForFunction(() => document.querySelectorAll("#chart .rulers text").length > 0);
      await page.waitForTimeout(100);
      const t = await svgTexts(page);
      assert.deepEqual(t.overlaps, [], `${scenario} at ${viewport.width}: overlapping texts`);
      assert.ok(t.texts >= 10, `${scenario} at ${viewport.width}: ${t.texts} texts`);
    }
    await shot(page, "wide-labels", page.locator("#chart"));
    assert.deepEqual(errors, []);
    await context.close();
  }
});
