// The machine's speed at the moment a browser benchmark runs, for the
// bounds that are stated "on this machine": a fixed reference workload
// timed on the page's main-thread CPU clock. A VM's neighbours or a busy
// sibling core slow it and the work it stands beside alike (the same build
// measured 9.4-10.2 ms a frame in one CI run and 13.1-14.1 ms in another
// the same day), so a bound is scaled by the slowdown it measures (never
// below 1, at most 1.5 x unless the bench says otherwise), not loosened
// for every run.

import { cpuBetween, traced } from "./trace.mjs";

/**
 * The reference workload's least time (of all its runs in one bench) on
 * this machine's fastest runs (2 cores, Chromium 156). 15 ms was set from
 * runs of 2026-12-06 23:50 to 2026-12-07 00:10 (14.9-16.7 ms), when its
 * first runs were still being compiled; warmed up (c63cf28), its least
 * was 13.49-13.93 ms in the quiet runs of 2026-12-07 10:40-12:05 and
 * 13.5-14.0 ms in CI at c63cf28, and 14.7-15.2 ms in CI on the busier
 * machine of 12:00-12:30.
 */
export const REFERENCE_FAST_MS = 13.5;

/**
 * Installed in the page (`page.evaluate(REFERENCE)`) as `window.reference`:
 * a fixed workload of the kinds the sandbox's work costs (a DOM of 1,200
 * elements built off-screen, laid out, 200 of its texts changed and laid
 * out again, twice; a JSON round trip of a 400-message history).
 */
export const REFERENCE = `window.reference = () => {
  const host = document.createElement("div");
  host.style.cssText = "position:absolute;left:-20000px;top:0;width:1200px;font:13px sans-serif";
  let html = "";
  for (let i = 0; i < 400; i++) html += \`<div class="r"><span>#\${i}</span><b>user \${i * 7}</b><i>\${(i * 13) % 97} tokens</i></div>\`;
  document.body.append(host);
  host.innerHTML = html;
  host.getBoundingClientRect();
  for (let k = 0; k < 2; k++) {
    const cells = host.querySelectorAll("i");
    for (let i = k; i < cells.length; i += 2) cells[i].textContent = \`\${(i * 31 + k) % 1000} tokens\`;
    host.getBoundingClientRect();
  }
  const history = Array.from({ length: 400 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: [{ type: "text", text: "lorem ipsum ".repeat(20 + (i % 7)) }] }));
  window.referenceSink = JSON.parse(JSON.stringify(history)).length;
  host.remove();
};`;

/** The slowdown a least reference time `ms` stands for: 1 to `most`. */
export function slowdownOf(ms, most = 1.5) {
  return Math.min(Math.max(ms / REFERENCE_FAST_MS, 1), most);
}

/**
 * Runs the reference workload `warmup` times untimed, then `runs` times
 * (each after 100 ms idle), traced, and returns each timed run's
 * main-thread CPU time, their least, and the slowdown it stands for. The
 * warm-up matters: in a fresh page the first runs are still being compiled
 * (seven runs' least was 15-16.7 ms on a quiet machine where runs 15-21
 * took 13.5-13.7 ms), and render-bench's least is taken over dozens of
 * runs.
 */
export async function machineSpeed(browser, page, runs = 7, warmup = 14) {
  await page.evaluate(REFERENCE);
  await page.evaluate((n) => {
    for (let i = 0; i < n; i++) window.reference();
  }, warmup);
  const { marks } = await traced(browser, page, async () => {
    for (let i = 0; i < runs; i++) {
      await page.evaluate(async (i) => {
        await new Promise((r) => setTimeout(r, 100));
        console.timeStamp(`reference-${i}`);
        window.reference();
        console.timeStamp(`referenced-${i}`);
      }, i);
    }
  });
  const times = Array.from({ length: runs }, (_, i) => cpuBetween(marks, `reference-${i}`, `referenced-${i}`));
  const least = Math.min(...times);
  return { times, least, slowdown: slowdownOf(least) };
}
