// Benchmarks of the package that the peer harness does not cover:
//   incremental: a 10k-message history held in an Engine; one append, then
//                beforeCall() (the per-call cost in an agent loop);
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

function incremental(n) {
  const conv = generate(n, 42);
  // A window large enough that the history stays under the lines: the
  // steady state of an agent loop (no tier fires; each call decides).
  const engine = new Engine({ preset: 'seed', window: 20_000_000 });
  engine.setSystem(conv.system);
  engine.loadJson(JSON.stringify(conv.messages.slice(0, -1)));
  engine.beforeCall();
  const times = [];
  // Alternating user/assistant turns, as a loop appends them.
  for (let i = 0; i < 2_000; i++) {
    const m = i % 2 === 0
      ? { role: 'assistant', content: [{ type: 'text', text: `step ${i}: ${'x'.repeat(400)}` }] }
      : { role: 'user', content: `next ${i}` };
    const t = now();
    engine.append(m);
    engine.beforeCall();
    times.push(Number(now() - t) / 1e3);
  }
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
  const r = incremental(n);
  console.log(`incremental @${n}: append + beforeCall median ${r.medianUs.toFixed(1)} µs, p95 ${r.p95Us.toFixed(1)} µs`);
}
console.log('importer (SessionImporter.feed in 64 KiB chunks + finish, the Session out; loadSession = readSession + engine.loadSession: import, resume, engine load):');
for (const r of importer()) console.log(`  ${r.file}: ${r.mb} MB, import ${r.importMs} ms = ${r.importMBps} MB/s; loadSession ${r.loadSessionMs} ms = ${r.loadSessionMBps} MB/s`);
