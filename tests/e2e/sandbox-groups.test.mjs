// Issue 26, point 2: groups and the cut. The request before a manual
// /compact is drawn with a bracket around each legal group; the cut is a
// handle that *is* "groups preserved" (arrow keys, or dragged with the
// pointer); the messages after it are tagged "kept verbatim"; a cut
// dropped between a tool_use and its tool_result snaps back with seed
// 002's reason. Runs against the release build in dist/; screenshots at
// 1280x800 and 390x844 go to target/screenshots/groups-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";

import { SIZES, sandbox } from "./browser.mjs";

const { open, shot } = await sandbox({ prefix: "groups" });

const number = (text) => Number(text.replace(/[^0-9]/g, ""));

/** Scrolls `locator` to the middle of the viewport (for a screenshot). */
const centre = (locator) => locator.evaluate((el) => el.scrollIntoView({ block: "center" }));

/** Opens the default scenario at its /compact, the Before list shown whole. */
async function atTheCompact(viewport) {
  const opened = await open("", viewport);
  const { page } = opened;
  await page.locator(".events li button", { hasText: "/compact" }).click();
  const before = page.locator("#context .stack").first();
  await before.locator("button.more").click();
  await page.locator("#context .stack").first().locator("button.more", { hasText: "Show fewer" }).waitFor();
  return { ...opened, before };
}

/** The rows of the Before list: item, group, kind, bracket, tags, and box. */
function rows(before) {
  return before.locator("li.run").evaluateAll((lis) =>
    lis.map((li) => {
      const b = li.querySelector(".bracket");
      const r = li.getBoundingClientRect();
      const br = b?.getBoundingClientRect();
      return {
        item: Number(li.dataset.item),
        group: li.dataset.group === undefined ? null : Number(li.dataset.group),
        kind: li.dataset.kind,
        label: li.querySelector(".label").textContent,
        bracket: b ? [...b.classList].find((c) => c.startsWith("b-")) : null,
        kept: !!li.querySelector(".tag-preserved"),
        summarised: !!li.querySelector(".tag-summarised"),
        afterCut: !!(li.compareDocumentPosition(li.parentElement.querySelector(".cut-row")) & Node.DOCUMENT_POSITION_PRECEDING),
        top: r.top,
        bottom: r.bottom,
        bracketTop: br?.top,
        bracketBottom: br?.bottom,
        bracketLeft: br?.left,
        left: r.left,
      };
    }),
  );
}

test("point 2: every legal group bracketed, the preserved tail tagged, the cut a handle set by keys", async () => {
  for (const viewport of SIZES) {
    const { context, page, errors, before } = await atTheCompact(viewport);
    const groups = number(await page.locator("p.muted", { hasText: "legal groups at the first /compact" }).textContent());
    assert.ok(groups > 10, `${groups} groups`);
    const list = await rows(before);
    const messages = list.filter((r) => r.kind !== "system prompt");
    // One bracket per legal group, opened once and closed once, around
    // rows of one group only; the system prompt is in none.
    assert.equal(list[0].kind, "system prompt");
    assert.equal(list[0].group, null);
    const seen = new Set(messages.map((r) => r.group));
    assert.equal(seen.size, groups, "distinct groups drawn = the engine's legal groups");
    assert.equal(messages.filter((r) => r.bracket === "b-first" || r.bracket === "b-solo").length, groups);
    assert.equal(messages.filter((r) => r.bracket === "b-last" || r.bracket === "b-solo").length, groups);
    for (let i = 0; i < messages.length; i++) {
      const r = messages[i];
      // A tool result shares its call's group (the row before it).
      if (r.kind === "tool result") assert.equal(r.group, messages[i - 1].group, `tool result at item ${r.item}`);
      // Each bracket is drawn beside its row, over its height.
      assert.ok(r.bracketLeft < r.left && r.bracketTop >= r.top - 1 && r.bracketBottom <= r.bottom + 1, `bracket of item ${r.item}`);
      const opens = r.bracket === "b-first" || r.bracket === "b-solo";
      assert.equal(opens, i === 0 || messages[i - 1].group !== r.group, `item ${r.item} opens its group`);
    }
    // The cut: above it summarised, below it kept verbatim.
    assert.ok(messages.some((r) => r.afterCut), "rows after the cut");
    for (const r of messages) {
      assert.equal(r.kept, r.afterCut, `item ${r.item} kept verbatim iff after the cut`);
      assert.equal(r.summarised, !r.afterCut, `item ${r.item} summarised iff before the cut`);
    }

    // The handle is "groups preserved": ArrowUp keeps one more group, the
    // field and the strip follow, and the focus stays on the handle.
    const handle = before.locator(".cut-handle");
    assert.equal(await handle.getAttribute("role"), "slider");
    assert.equal(await handle.getAttribute("aria-valuenow"), "1");
    assert.equal(await page.locator("#preserve").inputValue(), "1");
    const sent = async () => number(await page.locator(".strip-total strong").textContent());
    const sent1 = await sent();
    const kept1 = (await rows(before)).filter((r) => r.kept).length;
    await handle.focus();
    await page.keyboard.press("ArrowUp");
    await page.waitForFunction(() => document.querySelector(".cut-handle")?.getAttribute("aria-valuenow") === "2");
    assert.equal(await page.locator("#preserve").inputValue(), "2");
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains("cut-handle")), true, "focus stays on the handle");
    const kept2 = (await rows(before)).filter((r) => r.kept).length;
    assert.ok(kept2 > kept1, `kept verbatim ${kept1} → ${kept2} rows`);
    assert.ok((await sent()) > sent1, `the next request grows with a group kept: ${sent1} → ${await sent()}`);
    await page.keyboard.press("ArrowDown");
    await page.waitForFunction(() => document.querySelector(".cut-handle")?.getAttribute("aria-valuenow") === "1");
    assert.equal(await sent(), sent1);
    await centre(before.locator(".cut-row"));
    await shot(page, "brackets");
    assert.deepEqual(errors, []);
    await context.close();
  }
});

/** Drags the handle to just inside the top of the row showing `item`. */
async function dragTo(page, before, item) {
  const handle = before.locator(".cut-handle");
  await handle.scrollIntoViewIfNeeded();
  const h = await handle.boundingBox();
  const row = await before.locator(`li.run[data-item="${item}"]`).boundingBox();
  await page.mouse.move(h.x + h.width / 2, h.y + h.height / 2);
  await page.mouse.down();
  // In steps, as a hand would: the handle follows the pointer.
  const y = row.y + 3;
  for (let i = 1; i <= 5; i++) await page.mouse.move(h.x + h.width / 2, h.y + h.height / 2 + ((y - h.y - h.height / 2) * i) / 5);
  const during = await handle.evaluate((el) => ({ transform: el.style.transform, text: el.textContent }));
  await page.mouse.up();
  return during;
}

test("point 2: the cut dragged to a group's start keeps the groups after it; between a tool_use and its tool_result it snaps back with seed 002's reason", async () => {
  for (const viewport of SIZES) {
    const { context, page, errors, before } = await atTheCompact(viewport);
    const list = (await rows(before)).filter((r) => r.kind !== "system prompt");
    const lastGroup = Math.max(...list.map((r) => r.group));
    // Four groups from the end: the first row of group (last - 3).
    const target = list.find((r) => r.group === lastGroup - 3);
    const during = await dragTo(page, before, target.item);
    assert.match(during.transform, /translateY\(-\d+px\)/, "the handle moved up with the pointer");
    assert.match(during.text, /drop: 4 groups preserved/);
    await page.waitForFunction(() => document.querySelector(".cut-handle")?.getAttribute("aria-valuenow") === "4");
    assert.equal(await page.locator("#preserve").inputValue(), "4");
    const after4 = await rows(before);
    assert.equal(after4.find((r) => r.afterCut && r.kind !== "system prompt").item, target.item, "the engine cut where the handle was dropped");

    // Now between a Read and its result: refused, with the reason.
    const result = after4.find((r) => !r.afterCut && r.kind === "tool result" && r.group > 0);
    const illegal = await dragTo(page, before, result.item);
    assert.match(illegal.text, /not here/);
    const refused = before.locator(".cut-refused");
    await refused.waitFor();
    const why = await refused.textContent();
    assert.match(why, /Snapped back/);
    // It names the call the result answers: the row above it.
    const call = after4[after4.findIndex((r) => r.item === result.item) - 1];
    assert.equal(call.kind, "assistant message");
    assert.ok(why.includes(`summarise its tool_use (“${call.label}”)`), `${why} names ${call.label}`);
    assert.match(why, /tool_result of `toolu_[^`]+`/);
    assert.match(why, /cannot keep the tool_result and drop the tool_use with the same id/);
    assert.match(why, /seed 002/);
    assert.equal(await before.locator(".cut-handle").getAttribute("aria-valuenow"), "4", "the setting did not move");
    assert.equal(await page.locator("#preserve").inputValue(), "4");
    assert.equal(await before.locator(".cut-handle").evaluate((el) => el.style.transform), "translateY(0px)", "the handle is back on the cut");
    // It glides back into the cut's row.
    await page.waitForFunction(() => {
      const h = document.querySelector(".cut-handle").getBoundingClientRect();
      const row = document.querySelector(".cut-row").getBoundingClientRect();
      return h.top >= row.top && h.bottom <= row.bottom;
    });
    await centre(before.locator(".cut-row"));
    await shot(page, "snap-back");
    assert.deepEqual(errors, []);
    await context.close();
  }
});
