// An AI SDK agent whose history is compacted by context-compaction/ai-sdk:
// `generateText` with tools, `stopWhen` and `prepareStep`, against
// `MockLanguageModelV3` (ai/test). Each step reads a big file; once the
// history is over the compact line the engine summarises it with the
// step's own model (the default summariser, through generateText), and the
// next steps start from the summary. Run by scripts/test.sh; exits non-zero
// when a check fails.
import assert from "node:assert/strict";
import { generateText, jsonSchema, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { prepareStep } from "context-compaction/ai-sdk";

const usage = (input) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 20, text: 20, reasoning: 0 },
});
const finish = (unified) => ({ unified, raw: undefined });

const STEPS = 40;
let agentCalls = 0;
let summaryCalls = 0;
const promptSizes = [];
const model = new MockLanguageModelV3({
  doGenerate: async ({ prompt, tools }) => {
    const size = JSON.stringify(prompt).length;
    if (!tools || tools.length === 0) {
      // The engine's summary request: no tools, one user message.
      summaryCalls++;
      return { content: [{ type: "text", text: "<summary>Read files 1 to n; all fine.</summary>" }], finishReason: finish("stop"), usage: usage(size / 4), warnings: [] };
    }
    promptSizes.push(size);
    agentCalls++;
    const content = agentCalls < STEPS
      ? [{ type: "tool-call", toolCallId: `call_${agentCalls}`, toolName: "Read", input: JSON.stringify({ file_path: `src/f${agentCalls}.rs` }) }]
      : [{ type: "text", text: "All files read." }];
    return { content, finishReason: finish(agentCalls < STEPS ? "tool-calls" : "stop"), usage: usage(Math.round(size / 4)), warnings: [] };
  },
});

const records = [];
const decisions = [];
const step = prepareStep({
  settings: { window: 40_000, maxOutputTokens: 8_000, snip: false, collapse: false },
  onRecord: (r) => records.push(r),
  onDecision: (d) => { decisions.push(step.engine); if (process.env.DEBUG) console.log(d.count.tokens, d.lines.compact, d.steps.map((s) => s.rule).join(","), d.status.kind); },
});

const result = await generateText({
  model,
  tools: {
    Read: tool({
      description: "Read a file",
      inputSchema: jsonSchema({ type: "object", properties: { file_path: { type: "string" } }, required: ["file_path"] }),
      execute: async ({ file_path }) => `// ${file_path}\n` + "fn main() { println!(\"hello\"); }\n".repeat(250),
    }),
  },
  stopWhen: stepCountIs(STEPS + 1),
  prepareStep: step,
  messages: [{ role: "user", content: "Read every file in src/." }],
});

assert.equal(result.text, "All files read.");
assert.ok(summaryCalls >= 1, "the engine asked the step's model for a summary");
assert.equal(records.length, summaryCalls, "one record per compaction, for apps that persist their messages");
const biggest = Math.max(...promptSizes);
const last = promptSizes.at(-1);
assert.ok(last < biggest, `the last prompt (${last} chars) is smaller than the biggest (${biggest})`);
assert.equal(new Set(decisions).size, 1, "one engine across steps");
console.log(
  `ai-sdk agent: ${agentCalls} model steps, ${summaryCalls} summary call(s), ${records.length} record(s); ` +
    `prompt ${biggest} chars at most, ${last} at the end (cut ${records[0].cut} messages)`,
);
