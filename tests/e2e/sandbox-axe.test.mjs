// axe-core (the npm package, injected into the page) on the built sandbox:
// no serious or critical accessibility violation on the main view, in
// expert mode, on other scenarios, and on every embed panel (issue 26).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

import { sandbox } from "./browser.mjs";

const axe = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const { open } = await sandbox({ prefix: "axe", ready: "main .strip, main.embed" });

/** axe's serious and critical violations on the page as it stands. */
async function violations(page) {
  // Evaluated by the browser's debugger protocol: the page's CSP (no
  // inline script) stays as it is.
  await page.evaluate(axe);
  const result = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 5) }));
  });
  return result.filter((v) => v.impact === "serious" || v.impact === "critical");
}

const VIEWS = [
  ["main view", "", { width: 1280, height: 800 }],
  ["main view, phone", "", { width: 390, height: 844 }],
  ["expert mode", "?expert=1", { width: 1280, height: 800 }],
  ["run-through", "?scenario=run-through", { width: 1280, height: 800 }],
  ["breakers", "?scenario=breakers&expert=1", { width: 1280, height: 800 }],
];
const PANELS = ["rebuild", "controls", "timeline", "resume", "context", "chart", "import", "gauge"];

test("axe finds no serious or critical violation on the main views", async () => {
  for (const [name, query, viewport] of VIEWS) {
    const { context, page, errors } = await open(query, viewport);
    const found = await violations(page);
    assert.deepEqual(found, [], `${name}: ${JSON.stringify(found, null, 1)}`);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("axe finds no serious or critical violation on any embed panel", async () => {
  for (const panel of PANELS) {
    const { context, page, errors } = await open(`?embed=1&panel=${panel}`, { width: 900, height: 700 });
    const found = await violations(page);
    assert.deepEqual(found, [], `panel=${panel}: ${JSON.stringify(found, null, 1)}`);
    assert.deepEqual(errors, []);
    await context.close();
  }
});
