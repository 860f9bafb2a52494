// A Claude Code session file for the browser benchmarks: `n` messages of
// prompts, tool calls and results, with usage (the shape of a real session,
// generated so that any size can be asked for). `resultLines` sets how big
// each tool result is (60 lines ≈ 1 KB; 600 ≈ 9 KB per result).
export function session(n, { resultLines = 60 } = {}) {
  const lines = [];
  let parent = null;
  let tokens = 3_000;
  const t0 = Date.parse("2026-01-01T00:00:00Z");
  for (let i = 0; i < n; i++) {
    const uuid = `m-${i}`;
    const timestamp = new Date(t0 + i * 20_000).toISOString();
    const base = { parentUuid: parent, uuid, sessionId: "bench", version: "2.1.0", timestamp, isSidechain: false };
    if (i % 2 === 0) {
      const content = i % 4 === 0
        ? `Step ${i}: keep refactoring module ${i % 37}. ` + "context ".repeat(40)
        : [{ type: "tool_result", tool_use_id: `toolu_${i - 1}`, content: `file ${i}\n` + "line of output\n".repeat(resultLines) }];
      lines.push({ ...base, type: "user", message: { role: "user", content } });
    } else {
      tokens += 450;
      const content = i % 4 === 1
        ? [{ type: "tool_use", id: `toolu_${i}`, name: "Read", input: { file_path: `src/module_${i % 37}.rs` } }]
        : [{ type: "text", text: "Done; next step. ".repeat(20) }];
      lines.push({ ...base, type: "assistant", message: {
        id: `msg_${i}`, role: "assistant", model: "claude-sonnet-4", content,
        usage: { input_tokens: 10, cache_read_input_tokens: tokens, cache_creation_input_tokens: 0, output_tokens: 80 },
      } });
    }
    parent = uuid;
  }
  return Buffer.from(lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
}

// A session file of `n` compactions: `per` messages (a prompt and a reply
// with usage, in turn), then an automatic `compact_boundary` and its
// summary, `n` times, written to `path` as it is made (a 1M-record file is
// 341 MB). With `n` = 1 and `per` = 1,000,000 it is one long era.
export async function boundaries(path, n, per = 4, { version = "2.1.2" } = {}) {
  const { createWriteStream } = await import("node:fs");
  const out = createWriteStream(path);
  const write = (line) => (out.write(line) ? null : new Promise((r) => out.once("drain", r)));
  const base = `"isSidechain":false,"sessionId":"s","version":"${version}","cwd":"/tmp","userType":"external","timestamp":"2026-01-01T00:00:00.000Z"`;
  let parent = null;
  let k = 0;
  let batch = [];
  const flush = async () => {
    const wait = write(batch.join(""));
    batch = [];
    if (wait) await wait;
  };
  for (let b = 0; b < n; b++) {
    for (let i = 0; i < per; i++) {
      k += 1;
      const p = parent === null ? "null" : `"${parent}"`;
      batch.push(i % 2 === 0
        ? `{${base},"parentUuid":${p},"uuid":"u${k}","type":"user","message":{"role":"user","content":"prompt ${k}"}}\n`
        : `{${base},"parentUuid":${p},"uuid":"u${k}","type":"assistant","message":{"id":"msg${k}","role":"assistant","model":"claude-sonnet-4","content":[{"type":"text","text":"reply ${k}"}],"usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":1000}}}\n`);
      parent = `u${k}`;
      if (batch.length >= 10_000) await flush();
    }
    k += 1;
    const boundary = `b${k}`;
    batch.push(`{${base},"parentUuid":null,"logicalParentUuid":"${parent}","uuid":"${boundary}","type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"level":"info","compactMetadata":{"trigger":"auto","preTokens":150000}}\n`);
    k += 1;
    batch.push(`{${base},"parentUuid":"${boundary}","uuid":"s${k}","type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\\nSummary: x"}}\n`);
    parent = `s${k}`;
    if (batch.length >= 10_000) await flush();
  }
  await flush();
  await new Promise((resolve, reject) => out.end((e) => (e ? reject(e) : resolve())));
}

/**
 * Hands the file served at `url` to the sandbox's file input, as a user's
 * pick would be, once `setup` (a function run in the page first, e.g. to
 * start a PerformanceObserver) has run; returns the page's clock at the
 * pick. The file is fetched from the page's own origin: Playwright's
 * setInputFiles would send it through the debugging protocol, a
 * multi-second stall that is the harness's, not the sandbox's.
 */
export async function pickFile(page, url, setup = () => {}) {
  await page.evaluate(async (url) => {
    const blob = await (await fetch(url)).blob();
    window.__file = new File([blob], url.split("/").pop(), { type: "application/x-ndjson" });
  }, url);
  await page.evaluate(setup);
  return page.evaluate(() => {
    const input = document.getElementById("session-file");
    const files = new DataTransfer();
    files.items.add(window.__file);
    input.files = files.files;
    const t0 = performance.now();
    console.timeStamp("sandbox-pick");
    input.dispatchEvent(new Event("change", { bubbles: true }));
    return t0;
  });
}

/**
 * Imports the file served at `url` into the sandbox open in `page` and
 * waits until it is drawn (and two frames more): the seconds it took,
 * when the reading ended (`t0` the pick, `phases` what the page published
 * as window.sandboxImportPhases), and the long tasks Chromium reported
 * after the reading (`afterRead`, wall ms each). With `browser`, the import
 * is traced and `afterReadCpu` lists every task of the page's main thread
 * after the reading by its CPU time (ms): what the page's own work costs,
 * however often a loaded machine preempts it (a long task's wall time
 * grows with that), and `afterReadAt` the same with when each started (ms
 * after the reading ended); `cpu` is the main thread's CPU time from the pick to
 * the page drawn, and `readCpu` that of the reading (s).
 */
export async function importSession(page, url, { timeout = 300_000, browser = null } = {}) {
  const run = async () => {
    const t0 = await pickFile(page, url, () => {
      window.__tasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__tasks.push([e.startTime, e.duration]);
      }).observe({ type: "longtask", buffered: false });
    });
    await page.waitForFunction(() => /\d messages/.test(document.querySelector(".imported")?.textContent ?? ""),
      null, { timeout, polling: 50 });
    const seconds = ((await page.evaluate(() => {
      console.timeStamp("sandbox-drawn");
      return performance.now();
    })) - t0) / 1000;
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 300)))));
    return { t0, seconds };
  };
  const { traced } = await import("./trace.mjs");
  const { result: { t0, seconds }, marks, tasks: all } = browser
    ? await traced(browser, page, run)
    : { result: await run(), marks: [], tasks: [] };
  const { tasks, phases } = await page.evaluate(() => ({ tasks: window.__tasks, phases: window.sandboxImportPhases }));
  const readEnd = phases?.readEnd ?? Infinity;
  const afterRead = tasks.filter(([s, d]) => s + d > readEnd).map(([, d]) => d);
  // The trace's clock (µs) at the page's readEnd, from the mark at the pick.
  const pick = marks.find((m) => m.name === "sandbox-pick");
  const readEndTs = pick ? pick.ts + (readEnd - t0) * 1000 : Infinity;
  const afterReadCpu = all.filter((t) => t.ts + t.dur > readEndTs).map((t) => t.tdur / 1000);
  // The same tasks with when each started, in ms after the reading ended.
  const afterReadAt = all.filter((t) => t.ts + t.dur > readEndTs).map((t) => ({ at: (t.ts - readEndTs) / 1000, cpu: t.tdur / 1000 }));
  // The main thread's CPU time of the tasks that started in a span (s).
  const drawn = marks.find((m) => m.name === "sandbox-drawn");
  const cpuIn = (from, to) => all.filter((t) => t.ts >= from && t.ts < to).reduce((sum, t) => sum + t.tdur, 0) / 1e6;
  const cpu = pick && drawn ? cpuIn(pick.ts, drawn.ts) : NaN;
  const readCpu = pick ? cpuIn(pick.ts, readEndTs) : NaN;
  return { t0, seconds, phases, afterRead, afterReadCpu, afterReadAt, cpu, readCpu };
}
