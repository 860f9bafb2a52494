// The provider formats' cost beside Anthropic's: `plan` over a 160-turn
// tool-heavy history (the stateless dry run: conversion in, decision out),
// and the incremental step of an agent loop (append one message,
// beforeCall, messages()) on a held 160-turn history, per format.
// Run: node tests/bench/formats.mjs (after the package is installed into
// tests/node_modules; `bash tests/bench/run.sh` does everything).
import { Engine, plan } from 'context-compaction';
import { aiSdk, openaiChat, openaiResponses } from '../node/formats-gen.mjs';

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const now = () => process.hrtime.bigint();

/** The same turns as Anthropic MessageParams. */
function anthropic(turns, size) {
  const out = [];
  for (const m of aiSdk(turns, size).slice(1)) {
    if (m.role === 'tool') {
      out.push({ role: 'user', content: m.content.filter((p) => p.type === 'tool-result').map((p) => ({ type: 'tool_result', tool_use_id: p.toolCallId, content: typeof p.output.value === 'string' ? p.output.value : JSON.stringify(p.output.value) })) });
    } else if (typeof m.content === 'string') {
      out.push({ role: m.role, content: m.content });
    } else {
      out.push({ role: m.role, content: m.content.flatMap((p) => p.type === 'text' ? [{ type: 'text', text: p.text }] : p.type === 'tool-call' ? [{ type: 'tool_use', id: p.toolCallId, name: p.toolName, input: p.input }] : []) });
    }
  }
  return out;
}

const formats = [
  ['anthropic', anthropic, { role: 'user', content: 'next' }],
  ['ai-sdk', aiSdk, { role: 'user', content: 'next' }],
  ['openai-chat', openaiChat, { role: 'user', content: 'next' }],
  ['openai-responses', openaiResponses, { type: 'message', role: 'user', content: 'next' }],
];

const rows = [];
for (const [format, gen, next] of formats) {
  const history = gen(160, 2_000);
  const bytes = JSON.stringify(history).length;
  const settings = { preset: 'seed', window: 20_000_000, format };
  const plans = [];
  for (let r = 0; r < 15; r++) {
    const t = now();
    plan(settings, history);
    plans.push(Number(now() - t) / 1e6);
  }
  const engine = new Engine(settings);
  engine.load(history);
  engine.beforeCall();
  const steps = [];
  for (let i = 0; i < 400; i++) {
    const t = now();
    engine.append(next);
    engine.beforeCall();
    engine.messages();
    steps.push(Number(now() - t) / 1e3);
  }
  engine.free();
  rows.push({ format, items: history.length, kb: Math.round(bytes / 1024), planMs: median(plans.slice(3)).toFixed(2), stepUs: Math.round(median(steps.slice(50))) });
}
console.log('| format | items | JSON KB | plan (ms, median) | append + beforeCall + messages() (µs, median) |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.format} | ${r.items} | ${r.kb} | ${r.planMs} | ${r.stepUs} |`);
