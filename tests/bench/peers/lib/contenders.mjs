// Built-in contenders. Each: { budgeted, describe, setup(ctx) -> { run, normalize?, info? } }
//   ctx = { raw (JSON string), conv (parsed { system, messages }), budget (tokens or null), bytes }
//   run()        the timed operation (may return a Promise; it is awaited inside the timed region)
//   normalize(o) untimed; maps run()'s output to the checker's common shape (lib/convert.mjs)
import { pathToFileURL, fileURLToPath } from 'node:url';
import { resolve, dirname, join } from 'node:path';
import { toLangChain, normalizeLangChain, toModelMessages, normalizeModelMessages, modelMessageChars, normalizeAnthropic } from './convert.mjs';
import { resultText } from './anthropic.mjs';

export const BUILTINS = {
  'json.parse': {
    budgeted: false,
    describe: 'JSON.parse of the whole conversation string (cost of just reading the data)',
    async setup({ raw }) { return { run: () => JSON.parse(raw) }; },
  },

  'lc.convert': {
    budgeted: false,
    describe: 'Anthropic JSON objects -> LangChain SystemMessage/HumanMessage/AIMessage(tool_calls)/ToolMessage',
    async setup({ conv }) { return { run: () => toLangChain(conv), info: (o) => ({ lcMessages: o.length }) }; },
  },

  'lc.trim': {
    budgeted: true,
    describe: "@langchain/core trimMessages(strategy:'last', startOn:'human', includeSystem:true, allowPartial:false, tokenCounter: langchain countTokensApproximately) on pre-converted messages",
    async setup({ conv, budget }) {
      const { trimMessages } = await import('@langchain/core/messages');
      const { countTokensApproximately } = await import('langchain');
      const msgs = toLangChain(conv);
      const opts = { maxTokens: budget, strategy: 'last', tokenCounter: countTokensApproximately, startOn: 'human', includeSystem: true, allowPartial: false };
      return { run: () => trimMessages(msgs, opts), normalize: normalizeLangChain, info: () => ({ lcTotalTokens: countTokensApproximately(msgs) }) };
    },
  },

  // Same call, but with the cheapest sane counter: per-message chars/4 memoized in a WeakMap, so the
  // time left is trimMessages' own search loop (it re-counts the whole remaining prefix once per
  // dropped message, awaiting the counter each time).
  'lc.trim-memo': {
    budgeted: true,
    describe: 'same as lc.trim but tokenCounter = per-message chars/4 memoized in a WeakMap (isolates trimMessages\' own loop cost)',
    async setup({ conv, budget }) {
      const { trimMessages } = await import('@langchain/core/messages');
      const msgs = toLangChain(conv);
      const memo = new WeakMap();
      const charsOf = (m) => {
        let n = memo.get(m);
        if (n === undefined) {
          if (typeof m.content === 'string') n = m.content.length;
          else { n = 0; for (const b of m.content) n += b.type === 'text' ? b.text.length : b.type === 'thinking' ? b.thinking.length : 0; }
          if (m.tool_calls) for (const c of m.tool_calls) n += c.name.length + JSON.stringify(c.args).length;
          memo.set(m, n);
        }
        return n;
      };
      const counter = (ms) => { let n = 0; for (const m of ms) n += charsOf(m); return Math.ceil(n / 4); };
      const opts = { maxTokens: budget, strategy: 'last', tokenCounter: counter, startOn: 'human', includeSystem: true, allowPartial: false };
      return { run: () => trimMessages(msgs, opts), normalize: normalizeLangChain };
    },
  },

  'ai.convert': {
    budgeted: false,
    describe: 'Anthropic JSON objects -> AI SDK ModelMessage[] (system, user, assistant tool-call, tool tool-result)',
    async setup({ conv }) { return { run: () => toModelMessages(conv), info: (o) => ({ modelMessages: o.length }) }; },
  },

  'ai.prune': {
    budgeted: false,
    describe: "ai pruneMessages docs recipe {reasoning:'before-last-message', toolCalls:'before-last-2-messages', emptyMessages:'remove'} (no token budget parameter exists)",
    async setup({ conv }) {
      const { pruneMessages } = await import('ai');
      const model = toModelMessages(conv);
      return {
        run: () => pruneMessages({ messages: model, reasoning: 'before-last-message', toolCalls: 'before-last-2-messages', emptyMessages: 'remove' }),
        normalize: normalizeModelMessages,
      };
    },
  },

  'ai.prune-fit': {
    budgeted: true,
    describe: "harness wrapper: binary-search the largest N for pruneMessages({toolCalls:'before-last-N-messages'}) whose chars/4 fits the budget; if even N=2 does not fit, also drop oldest messages",
    async setup({ conv, budget }) {
      const { pruneMessages } = await import('ai');
      const model = toModelMessages(conv);
      const budgetChars = budget * 4;
      const charsOf = (ms) => { let n = 0; for (const m of ms) n += modelMessageChars(m); return n; };
      let calls = 0;
      const prune = (N) => {
        calls++;
        const toolCalls = N >= model.length ? 'none' : N <= 0 ? 'all' : `before-last-${N}-messages`;
        return pruneMessages({ messages: model, reasoning: 'before-last-message', toolCalls, emptyMessages: 'remove' });
      };
      const run = () => {
        calls = 0;
        const full = prune(model.length);
        if (charsOf(full) <= budgetChars) return full;
        let lo = 2; let best = prune(lo);
        if (charsOf(best) > budgetChars) {
          // drop oldest non-system messages (all tool parts before the window are already gone)
          const sys = best[0].role === 'system' ? 1 : 0;
          let total = charsOf(best); let s = sys;
          while (s < best.length - 1 && total > budgetChars) { total -= modelMessageChars(best[s]); s++; }
          return [...best.slice(0, sys), ...best.slice(s)];
        }
        let hi = model.length - 1; // invariant: prune(lo) fits
        while (lo < hi) {
          const mid = Math.ceil((lo + hi) / 2);
          const r = prune(mid);
          if (charsOf(r) <= budgetChars) { lo = mid; best = r; } else hi = mid - 1;
        }
        return best;
      };
      return { run, normalize: normalizeModelMessages, info: () => ({ pruneCallsLastRun: calls }) };
    },
  },

  'tiktoken': {
    budgeted: false,
    describe: 'js-tiktoken o200k_base: encode every text, tool input JSON and tool_result; sum lengths (encoder construction timed separately)',
    async setup({ conv }) {
      const { Tiktoken } = await import('js-tiktoken/lite');
      const ranks = (await import('js-tiktoken/ranks/o200k_base')).default;
      const t0 = process.hrtime.bigint();
      const enc = new Tiktoken(ranks);
      const setupMs = Number(process.hrtime.bigint() - t0) / 1e6;
      const run = () => {
        let n = enc.encode(conv.system).length;
        for (const m of conv.messages) {
          if (typeof m.content === 'string') { n += enc.encode(m.content).length; continue; }
          for (const b of m.content) {
            if (b.type === 'text') n += enc.encode(b.text).length;
            else if (b.type === 'tool_use') n += enc.encode(JSON.stringify(b.input)).length;
            else if (b.type === 'tool_result') n += enc.encode(resultText(b)).length;
            else if (b.type === 'thinking') n += enc.encode(b.thinking).length;
          }
        }
        return n;
      };
      return { run, info: (o) => ({ encoderSetupMs: +setupMs.toFixed(1), o200kTokens: o }) };
    },
  },
};

// An external contender: a module whose default export is (conversation, budgetTokens) => keptMessages.
// Optional exports: name, setup() (awaited, untimed), input = 'object' (default) | 'json' (receive the raw
// JSON string instead of the parsed object, e.g. for a WASM engine that parses on its side).
// Output: Anthropic messages array (system omitted = system kept), or { system, messages }, or a JSON
// string of either (parsed untimed, for the checker only).
// Short names for plugin-style contenders shipped with the harness.
export const ALIASES = {
  baseline: join(dirname(fileURLToPath(import.meta.url)), '..', 'contenders', 'baseline.mjs'),
};

export async function loadPlugin(path) {
  path = ALIASES[path] ?? path;
  const mod = await import(pathToFileURL(resolve(path)).href);
  const fn = mod.default ?? mod.compact;
  if (typeof fn !== 'function') throw new Error(`${path}: default export must be (conversation, budgetTokens) => keptMessages`);
  return {
    budgeted: true,
    describe: mod.name ? `${mod.name} (${path})` : path,
    async setup({ raw, conv, budget }) {
      if (typeof mod.setup === 'function') await mod.setup();
      const input = mod.input === 'json' ? raw : conv;
      const normalize = (out) => {
        if (typeof out === 'string') out = JSON.parse(out);
        if (Array.isArray(out)) return normalizeAnthropic(out, out[0]?.role === 'system' ? null : conv.system);
        if (out && Array.isArray(out.messages)) return normalizeAnthropic(out.messages, out.system ?? null);
        throw new Error('plugin output must be an array of messages, { system, messages }, or a JSON string of either');
      };
      // `output = 'plan'` (added in this copy): the contender returns a plan,
      // not kept messages; the kept-messages check is skipped and `info(out)`
      // reports what the plan says.
      if (mod.output === 'plan') {
        return { run: () => fn(input, budget), info: mod.info, inputKind: mod.input === 'json' ? 'json' : 'object' };
      }
      return { run: () => fn(input, budget), normalize, info: mod.info, inputKind: mod.input === 'json' ? 'json' : 'object' };
    },
  };
}
