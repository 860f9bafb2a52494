// Issue 30's table, its rows side by side with JSON.parse / JSON.stringify in
// one process: each row runs its contenders alternately, 1 warm-up then
// RUNS timed runs, and prints medians and the ratio. Not a test.
//   node --expose-gc tests/bench/table.mjs [--runs N]   (after the package
//   is installed into tests/node_modules; `bash tests/bench/run.sh` does it)
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import * as pkg from 'context-compaction';

const { Engine, plan } = pkg;
import { readSession } from 'context-compaction/session';
import { generate } from './peers/gen.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const at = process.argv.indexOf('--runs');
const RUNS = Math.max(7, at > 0 ? Number(process.argv[at + 1]) : 7);
const gc = globalThis.gc ?? (() => {});
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const ms = () => Number(process.hrtime.bigint()) / 1e6;

/** Runs each contender once as a warm-up, then RUNS times, alternating; medians in ms. */
function race(contenders) {
  const times = contenders.map(() => []);
  for (let r = 0; r <= RUNS; r++) {
    contenders.forEach((f, i) => {
      gc();
      const t = ms();
      f();
      if (r > 0) times[i].push(ms() - t);
    });
  }
  return times.map(median);
}

const row = (measure, a, b, target) =>
  console.log(`| ${measure} | ${a} | ${b} | ${target} |`);

console.log(`Node ${process.version}, ${RUNS} runs after a warm-up, contenders alternating`);
console.log('| measure | package | JSON | target |\n|---|---|---|---|');

const conv = generate(10_000, 42);
const json = JSON.stringify(conv.messages);
const settings = { preset: 'seed', window: 180_000 + 33_000 };
{
  const [p, j] = race([() => plan(settings, json), () => JSON.parse(json)]);
  row(`plan(json) @10k (${(json.length / 1e6).toFixed(1)} MB)`, `${p.toFixed(1)} ms`, `JSON.parse ${j.toFixed(1)} ms`, `${(p / j).toFixed(2)}× (≤ 0.75×)`);
}
{
  const [p, s] = race([() => plan(settings, conv.messages), () => JSON.stringify(conv.messages)]);
  row('plan(objects) @10k', `${p.toFixed(1)} ms`, `JSON.stringify ${s.toFixed(1)} ms`, `${(p / s).toFixed(2)}× (≤ 1×)`);
}

// Memory: the engine module's heap as its allocator counts it (bytes its
// live allocations hold; the module's hidden `__heap()` returns [held now,
// most held since the last call]), against the input's UTF-8 bytes: what
// an engine keeps once the history is loaded and decided on, and the most a
// plan(json) needs at once (the text copied in included; JS's own copies
// are not in wasm memory). Each measured once: the allocator's count is
// exact, not a timing.
if (typeof pkg.__heap === 'function') {
  const bytes = Buffer.byteLength(json);
  const mb = (b) => `${(b / 1e6).toFixed(1)} MB`;
  const held = (window) => {
    gc();
    const [base] = pkg.__heap();
    const e = new Engine({ preset: 'seed', window });
    e.loadJson(json);
    e.beforeCall();
    const [now] = pkg.__heap();
    e.free();
    return now - base;
  };
  for (const [what, window] of [['window 20M: budget reduction and Tier 1 only', 20_000_000], ['window 213k: its first decision reduced, cleared and snipped', settings.window]]) {
    const h = held(window);
    row(`memory: an engine holds @10k (${what})`, mb(h), `the JSON ${mb(bytes)}`, `${(h / bytes).toFixed(2)}× (≤ 1.2×)`);
  }
  gc();
  const [base] = pkg.__heap();
  plan(settings, json);
  const [, peak] = pkg.__heap();
  row('memory: peak during plan(json) @10k', mb(peak - base), `the JSON ${mb(bytes)}`, `${((peak - base) / bytes).toFixed(2)}× (≤ 2×)`);
} else {
  row('memory', 'not measured: this build has no __heap()', '', '');
}

// append + beforeCall: per call, steady, on an unchanged history, and with a request pending: a
// precompute, a compaction's summary (its PreCompact hooks answered), Tier
// 3's segment summaries (tests/bench/engine.mjs's incremental, here its
// medians only). Each pending state's window puts the history's count
// between that state's lines (found by scanning windows).
const [CALLS, SKIP] = [1_000, 100];
console.log(`append + beforeCall rows: per state, 1 warm-up run then ${RUNS} runs, each a fresh engine with ${CALLS} calls, calls ${SKIP + 1}–${CALLS} timed; the median of the runs' medians (their spread beside it)`);
const probe = new Engine({ preset: 'seed', window: 20_000_000 });
probe.loadJson(json);
const tokens = probe.beforeCall().count.tokens;
probe.free();
const states = {
  steady: { settings: {}, window: () => 20_000_000, kind: null },
  // The same engine called again with nothing appended: beforeCall alone.
  unchanged: { settings: {}, window: () => 20_000_000, kind: null, unchanged: true },
  precompute: { settings: {}, fits: (l) => l.precompute <= tokens && tokens + 150_000 < l.warn, kind: 'precompute' },
  summary: { settings: { snip: false, collapse: false }, fits: (l) => l.compact < tokens && tokens < l.blocked, kind: 'summary' },
  collapseSegment: { settings: { snip: false, collapse: true }, fits: (l) => l.compact < tokens && tokens < l.blocked, kind: 'collapseSegment' },
};
for (const [state, s] of Object.entries(states)) {
  let window = s.window?.() ?? null;
  for (let w = Math.floor(tokens * 0.9); w < tokens * 2 && window === null; w += Math.ceil(tokens / 2000)) {
    const e = new Engine({ preset: 'seed', ...s.settings, window: w });
    const l = e.lines();
    e.free();
    if (s.fits(l)) window = w;
  }
  if (window === null) {
    row(`append + beforeCall @10k, ${state} pending`, 'no window found', '', '≤ 10 µs');
    continue;
  }
  // One run: a fresh engine in the state, CALLS appends + beforeCalls,
  // the median per call of those after the first SKIP. The row is the
  // median of RUNS runs after one warm-up run (discarded), the same for
  // every row: a fresh process's first thousand calls of a path are its
  // warm-up, not the engine's (the 12-request state's first engine measured
  // 17 -> 7 us per 250 calls, a second one in the same process 8.4 -> 6.7;
  // not wasm tier-up: node --liftoff-only and --no-liftoff decline alike).
  const run = () => {
    const e = new Engine({ preset: 'seed', ...s.settings, window });
    e.loadJson(json);
    const first = e.beforeCall();
    const hook = first.requests.find((r) => r.kind === 'preCompact');
    if (hook) e.answer(hook.id, { kind: 'hook' });
    const pending = e.beforeCall().requests;
    if (s.kind !== null && !pending.some((r) => r.kind === s.kind)) {
      e.free();
      return { pending };
    }
    const per = [];
    for (let i = 0; i < CALLS; i++) {
      const m = i % 2 === 0 ? { role: 'assistant', content: `step ${i}: ${'x'.repeat(400)}` } : { role: 'user', content: `next ${i}` };
      const t = ms();
      if (!s.unchanged) e.append(m);
      e.beforeCall();
      if (i >= SKIP) per.push((ms() - t) * 1000);
    }
    e.free();
    return { pending, median: median(per) };
  };
  const warm = run();
  if (warm.median === undefined) {
    row(`append + beforeCall @10k, ${state} pending`, `not pending (${warm.pending.map((r) => r.kind).join(', ')})`, '', '≤ 10 µs');
    continue;
  }
  const runs = [];
  for (let r = 0; r < RUNS; r++) {
    gc();
    runs.push(run().median);
  }
  const { pending } = warm;
  const what = s.unchanged ? 'unchanged history (beforeCall alone)' : s.kind === null ? 'steady' : `${pending.length} request(s) pending (${[...new Set(pending.map((r) => r.kind))].join(', ')})`;
  row(`append + beforeCall @10k, ${what}`, `${median(runs).toFixed(1)} µs`, `runs ${Math.min(...runs).toFixed(1)}–${Math.max(...runs).toFixed(1)} µs`, '≤ 10 µs');
}

// readSession on the largest session fixture vs a line-by-line JSON.parse.
{
  const dir = join(here, '../../crates/compaction-core/tests/fixtures/transcripts');
  const name = readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort((a, b) => statSync(join(dir, b)).size - statSync(join(dir, a)).size)[0];
  // The file as a reader of it has it: its bytes (`readFileSync(path)`, a
  // `File`'s `arrayBuffer()`), which cross into wasm as they are, and the
  // same file as a string (encoded to UTF-8 on the way in).
  const bytes = readFileSync(join(dir, name));
  const text = bytes.toString('utf8');
  const mb = bytes.length / 1e6;
  const lines = () => { for (const l of text.split('\n')) if (l) JSON.parse(l); };
  const [b, r, l] = race([() => readSession(bytes), () => readSession(text), lines]);
  row(`readSession (${mb.toFixed(1)} MB), from its bytes`, `${(mb / (b / 1000)).toFixed(0)} MB/s`, `line-by-line JSON.parse ${(mb / (l / 1000)).toFixed(0)} MB/s`, `${(b / l).toFixed(2)}× the time; ≥ 200 MB/s`);
  row(`readSession (${mb.toFixed(1)} MB), from a string`, `${(mb / (r / 1000)).toFixed(0)} MB/s`, '', `${(r / l).toFixed(2)}× the time; ≥ 200 MB/s`);
}

// The modules as installed, gzip.
{
  const pkg = dirname(createRequire(import.meta.url).resolve('context-compaction/package.json'));
  for (const f of readdirSync(pkg).filter((x) => x.endsWith('.wasm')).sort()) {
    const bytes = readFileSync(join(pkg, f));
    row(`${f}, gzip`, `${gzipSync(bytes, { level: 9 }).length} B`, `${bytes.length} B raw`, '≤ 120 KB');
  }
}
