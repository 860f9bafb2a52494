// The context-compaction package as a contender (the package installed in
// tests/node_modules by scripts/test.sh). Several variants, one per export
// file below, share this code.
import { Engine, plan } from 'context-compaction';

/** Settings whose compact line is the harness's budget (window − 20,000 reserve − 13,000 margin). */
export const settingsFor = (budget) => ({ preset: 'seed', window: budget + 33_000 });

/** Stateless plan from the raw JSON string: the bulk path. */
export const planJson = (json, budget) => plan(settingsFor(budget), json);

/** Stateless plan from the parsed object (messages cross as JS objects). */
export const planObjects = (conv, budget) => {
  const engine = new Engine(settingsFor(budget));
  engine.setSystem(conv.system ?? '');
  engine.load(conv.messages);
  const decision = engine.beforeCall();
  engine.free();
  return decision;
};

/** What the plan says, short: status, count, and steps per tier. */
export const planInfo = (d) => {
  const tiers = {};
  for (const s of d.steps) tiers[s.tier] = (tiers[s.tier] ?? 0) + 1;
  return { status: d.status.kind, tokens: d.count.tokens, steps: Object.entries(tiers).map(([t, n]) => `${t}×${n}`).join(' ') || 'none' };
};
