// Issue 26, point 5: what was lost. At a compaction, the messages its
// summary replaced are listed beside the summary's nine sections; selecting
// a line of the summary lights the messages it was taken from. Runs
// against the release build in dist/; screenshots at 1280x800 and 390x844
// go to target/screenshots/lost-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";

import { SIZES, caughtUp, sandbox } from "./browser.mjs";

const { open, shot } = await sandbox({ prefix: "lost" });


/** The summarised messages listed: label, kind, lit. */
const listed = (lost) =>
  lost.locator(".lost-msg").evaluateAll((lis) =>
    lis.map((li) => ({ label: li.querySelector(".label").textContent, kind: li.dataset.kind, lit: li.classList.contains("lit") })),
  );

test("point 5: the summarised messages beside the nine sections; a summary line lights the messages it came from", async () => {
  for (const viewport of SIZES) {
    const { context, page, errors } = await open("", viewport);
    await page.locator(".events li button", { hasText: "/compact" }).click();
    const lost = page.locator("#context .lost");
    await lost.waitFor();
    // Beside: every message the summary replaced, as many as the
    // "messages summarised" count says.
    const summarised = Number((await page.locator("#context .changes li").first().textContent()).replace(/[^0-9]/g, ""));
    const messages = await listed(lost);
    assert.equal(messages.length, summarised);
    assert.ok(messages.every((m) => !m.lit), "nothing lit before a line is chosen");
    // The nine sections, numbered in order, as R7.3 asks for them.
    const titles = await lost.locator(".lost-section h5").allTextContents();
    assert.equal(titles.length, 9);
    titles.forEach((t, i) => assert.match(t, new RegExp(`^${i + 1}\\. [A-Z]`)));
    for (const t of ["1. Primary Request and Intent", "3. Files and Code Sections", "6. All User Messages", "9. Optional Next Step"]) {
      assert.ok(titles.includes(t), `${t} in ${titles}`);
    }

    // A file line lights exactly the calls that named the file.
    const path = "reverse/javascript/cli.readable.js";
    const fileLine = lost.locator(".lost-section", { hasText: "Files and Code Sections" }).locator("button.line", { hasText: path });
    await fileLine.click();
    assert.equal(await fileLine.getAttribute("aria-pressed"), "true");
    let now = await listed(lost);
    const naming = now.filter((m) => m.label.includes(path));
    assert.ok(naming.length > 3, `${naming.length} calls read ${path}`);
    assert.deepEqual(now.filter((m) => m.lit).map((m) => m.label), naming.map((m) => m.label));
    assert.match(await lost.locator(".lost-status").textContent(), new RegExp(`taken from ${naming.length} of the ${summarised}`));
    // The first lit message is scrolled into its list's view.
    const inView = await lost.locator(".lost-messages").evaluate((list) => {
      const row = list.querySelector(".lit").getBoundingClientRect();
      const box = list.getBoundingClientRect();
      return row.top >= box.top - 1 && row.bottom <= box.bottom + 1;
    });
    assert.ok(inView, "the first source is visible in the list");
    await lost.scrollIntoViewIfNeeded();
    await fileLine.evaluate((el) => el.scrollIntoView({ block: "center" }));
    await shot(page, "file-line");

    // A quoted prompt (section 6) lights the user's message it quotes.
    const prompt = lost.locator(".lost-section", { hasText: "All User Messages" }).locator("button.line").first();
    const quoted = (await prompt.textContent()).replace(/ ← \d+$/, "").replace(/^- /, "");
    await prompt.click();
    now = await listed(lost);
    const lit = now.filter((m) => m.lit);
    assert.ok(lit.length >= 1);
    assert.ok(lit.every((m) => m.kind === "user message"), JSON.stringify(lit));
    assert.ok(lit.some((m) => quoted.startsWith(m.label.replace(/…$/, "").slice(0, 30))), `${quoted} ~ ${lit.map((m) => m.label)}`);
    // Selected again: nothing lit.
    await prompt.click();
    assert.ok((await listed(lost)).every((m) => !m.lit));
    // A line that only counts (section 5) is not a button: it quotes nothing.
    assert.equal(await lost.locator(".lost-section", { hasText: "Problem Solving" }).locator("button.line").count(), 0);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("point 5: a long compaction lists its first 80 summarised messages and every lit one; the rest on request", async () => {
  const { context, page, errors } = await open("?groups=200");
  await page.locator(".events li button", { hasText: "/compact" }).click();
  const lost = page.locator("#context .lost");
  await lost.waitFor();
  const summarised = Number((await page.locator("#context .changes li").first().textContent()).replace(/[^0-9]/g, ""));
  assert.ok(summarised > 400, `${summarised} summarised`);
  // The Before bar draws every message of the hundreds, the newest too:
  // a least width each no longer fits, so none is cut off at its end.
  await caughtUp(page);
  const bar = await page.locator("#context .stack .bar").first().evaluate((b) => {
    const right = b.getBoundingClientRect().right;
    return { segments: b.children.length, inside: [...b.children].filter((s) => s.getBoundingClientRect().right <= right + 0.5).length };
  });
  assert.ok(bar.segments > 400, `${bar.segments} segments`);
  assert.equal(bar.inside, bar.segments);
  assert.equal(await lost.locator(".lost-msg").count(), 80);
  assert.match(await lost.locator(".lost-gap").last().textContent(), new RegExp(`… ${summarised - 80} more`));
  // A line whose sources lie past the first 80 shows them, lit.
  // "Tools used": every call of the 200 groups added.
  const line = lost.locator(".lost-section", { hasText: "Key Technical Concepts" }).locator("button.line").first();
  const sources = Number((await line.textContent()).match(/← (\d+)$/)[1]);
  await line.click();
  const lit = await lost.locator(".lost-msg.lit").count();
  assert.equal(lit, sources);
  assert.ok(sources > 80, `${sources} sources`);
  assert.ok((await lost.locator(".lost-msg").count()) < summarised, "the unlit rest is not listed");
  // Listed whole on request.
  await lost.getByRole("button", { name: `List all ${summarised}` }).click();
  assert.equal(await lost.locator(".lost-msg").count(), summarised);
  assert.equal(await lost.locator(".lost-msg.lit").count(), sources);
  assert.deepEqual(errors, []);
  await context.close();
});
