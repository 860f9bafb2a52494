// Benchmarks of the package that the peer harness does not cover:
//   incremental: a 10k-message history held in an Engine; one append, then
//                beforeCall() (the per-call cost in an agent loop);
//               (steady, and with a precompute request pending);
//   importer:    Claude Code session files through SessionImporter (64 KiB
//                chunks), and loadSession on the whole text, in MB/s.
// Run: node --expose-gc tests/bench/engine.mjs   (after the package is installed
// into tests/node_modules; `bash tests/bench/run.sh` does everything).
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Engine } from 'context-compaction';
import { readSession, SessionImporter } from 'context-compaction/session';
import { generate } from './peers/gen.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const gc = globalThis.gc ?? (() => {});
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const p95 = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)]; };
const now = () => process.hrtime.bigint();

// A window whose precompute line the count `tokens` has passed while it
// stays `room` tokens under the warn line (none: null).
function pendingWindow(tokens, room) {
  for (let w = tokens; w < tokens * 2; w += Math.ceil(tokens / 400)) {
    const probe = new Engine({ preset: 'seed', window: w });
    const l = probe.lines();
    probe.free();
    if (l.precompute <= tokens && tokens + room < l.warn) return w;
  }
  return null;
}

// `state`: 'steady' (a window far above the history: no tier fires, nothing
// pending) or 'precompute' (the first decision asks for a precompute, left
// unanswered: every later decision lists it).
function incremental(n, state) {
  const conv = generate(n, 42);
  const json = JSON.stringify(conv.messages.slice(0, -1));
  let window = 20_000_000;
  if (state === 'precompute') {
    const probe = new Engine({ preset: 'seed', window });
    probe.setSystem(conv.system);
    probe.loadJson(json);
    // The count after the first decision (Tier 1 clears old results).
    window = pendingWindow(probe.beforeCall().count.tokens, 150_000);
    probe.free();
    if (window === null) return null;
  }
  const engine = new Engine({ preset: 'seed', window });
  engine.setSystem(conv.system);
  engine.loadJson(json);
  const first = engine.beforeCall();
  const pending = first.requests.filter((r) => r.kind === 'precompute').length;
  if (pending !== (state === 'precompute' ? 1 : 0)) throw new Error(`${state}: ${pending} precompute requests`);
  const times = [];
  // Alternating user/assistant turns, as a loop appends them.
  for (let i = 0; i < 2_000; i++) {
    const m = i % 2 === 0
      ? { role: 'assistant', content: [{ type: 'text', text: `step ${i}: ${'x'.repeat(400)}` }] }
      : { role: 'user', content: `next ${i}` };
    const t = now();
    engine.append(m);
    const d = engine.beforeCall();
    times.push(Number(now() - t) / 1e3);
    if (d.requests.length !== pending) throw new Error(`${state}: ${d.requests.length} requests at step ${i}`);
  }
  engine.free();
  const steady = times.slice(200);
  return { messages: n, medianUs: median(steady), p95Us: p95(steady) };
}

function importer() {
  const dir = join(here, '../../crates/compaction-core/tests/fixtures/transcripts');
  const rows = [];
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort()) {
    const bytes = readFileSync(join(dir, name));
    const text = bytes.toString('utf8');
    const chunked = [], whole = [];
    for (let r = 0; r < 12; r++) {
      gc();
      let t = now();
      const imp = new SessionImporter();
      for (let i = 0; i < bytes.length; i += 65_536) imp.feed(bytes.subarray(i, i + 65_536));
      imp.finish();
      chunked.push(Number(now() - t) / 1e6);
      imp.free();
      gc();
      t = now();
      const e = new Engine();
      e.loadSession(readSession(text));
      whole.push(Number(now() - t) / 1e6);
      e.free();
    }
    const mb = bytes.length / 1e6;
    rows.push({ file: name, mb: +mb.toFixed(2), importMs: +median(chunked).toFixed(2), importMBps: +(mb / (median(chunked) / 1000)).toFixed(1),
      loadSessionMs: +median(whole).toFixed(2), loadSessionMBps: +(mb / (median(whole) / 1000)).toFixed(1) });
  }
  return rows;
}

console.log(`Node ${process.version}`);
for (const n of [1_000, 10_000]) {
  for (const state of ['steady', 'precompute']) {
    const r = incremental(n, state);
    if (r === null) console.log(`incremental @${n}, ${state}: no window puts this history between the precompute and warn lines`);
    else console.log(`incremental @${n}, ${state === 'steady' ? 'steady' : 'a precompute pending'}: append + beforeCall median ${r.medianUs.toFixed(1)} µs, p95 ${r.p95Us.toFixed(1)} µs`);
  }
}
// `--incremental`: the per-call rows only.
if (!process.argv.includes('--incremental')) {
  console.log('importer (SessionImporter.feed in 64 KiB chunks + finish, the Session out; loadSession = readSession + engine.loadSession: import, resume, engine load):');
  for (const r of importer()) console.log(`  ${r.file}: ${r.mb} MB, import ${r.importMs} ms = ${r.importMBps} MB/s; loadSession ${r.loadSessionMs} ms = ${r.loadSessionMBps} MB/s`);
}
