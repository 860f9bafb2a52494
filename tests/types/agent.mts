// A sample agent written against the official @anthropic-ai/sdk types:
// `tsc --noEmit` must accept it with no casts (this folder holds no `as`;
// tests/node/types-no-cast.test.mjs checks). Its MessageParam[] history
// goes into the engine unchanged, the engine's messages are assignable to
// the beta API's BetaMessageParam[], a summary request to the plain API's
// MessageCreateParamsNonStreaming, and the edits to
// BetaContextManagementConfig.
import type Anthropic from "@anthropic-ai/sdk";
import type { MessageCreateParamsNonStreaming, MessageParam, TextBlockParam } from "@anthropic-ai/sdk/resources/messages";
import type { BetaContextManagementConfig, BetaMessageParam } from "@anthropic-ai/sdk/resources/beta/messages/messages";
import {
  Engine,
  plan,
  type Decision,
  type SummaryRequest,
  type Outcome,
  type Host,
  type Answer,
  type Request,
  type PreCompactRequest,
  type HookOutcome,
  type ImportReport,
  type SessionLoad,
} from "context-compaction";
import { readSession, SessionImporter, type Session } from "context-compaction/session";

declare const client: Anthropic;

const history: MessageParam[] = [
  { role: "user", content: "Hello" },
  { role: "user", content: "Refactor utils.py" },
  {
    role: "assistant",
    content: [
      { type: "text", text: "Reading it." },
      { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "utils.py" } },
    ],
  },
  {
    role: "user",
    content: [
      { type: "tool_result", tool_use_id: "toolu_1", content: "def f(): ..." },
      { type: "text", text: "go on", cache_control: { type: "ephemeral" } },
    ],
  },
];

const engine = new Engine({ preset: "seed", window: 200_000, maxOutputTokens: 32_000 });
engine.load(history); // MessageParam[] in, no cast
for (const m of history) engine.append(m); // one at a time too
engine.loadJson(JSON.stringify(history));

async function summarize(request: SummaryRequest): Promise<string> {
  const params: MessageCreateParamsNonStreaming = {
    model: request.model,
    max_tokens: 20_000,
    messages: [...request.messages, { role: "user", content: request.prompt }],
  };
  const plain: MessageParam[] = request.messages;
  const reply = await client.messages.create(params);
  console.log(plain.length);
  return reply.content.map((b) => (b.type === "text" ? b.text : "")).join("");
}

async function turn(): Promise<void> {
  const host: Host = {
    summarize,
    now: new Date().toISOString(),
    preCompact: (request: PreCompactRequest): HookOutcome => (request.trigger === "auto" ? {} : { addedInstructions: ["keep ids"] }),
  };
  const decision: Decision = await engine.prepare(host);
  if (decision.status.kind === "blocked") throw new Error(`over by ${decision.status.overBy}`);
  const edits: BetaContextManagementConfig | undefined = decision.contextManagement ?? undefined;
  // The engine hands the blocks back verbatim, typed as the SDK's.
  const messages: BetaMessageParam[] = engine.messages();
  const response = await client.beta.messages.create({
    model: "claude-sonnet-4-5",
    max_tokens: 32_000,
    messages: engine.messages(),
    context_management: edits,
    betas: decision.betas,
  });
  console.log(messages.length);
  engine.append({
    role: response.role,
    content: response.content.filter((b): b is Extract<typeof b, { type: "text" }> => b.type === "text").map((b): TextBlockParam => ({ type: "text", text: b.text })),
    usage: response.usage,
  });
}

// A streamed reply (the README: "Streaming changes nothing"): the stream's
// final message goes into `append` as it is, thinking merged with the
// decision's, and so does a message built from `create({ stream: true })`'s events.
async function streamedTurn(decision: Decision): Promise<void> {
  const stream = client.beta.messages.stream({
    model: "claude-sonnet-4-6",
    max_tokens: 16_000,
    thinking: { type: "enabled", budget_tokens: 4_000, ...decision.thinking },
    messages: engine.messages(),
    context_management: decision.contextManagement ?? undefined,
    betas: decision.betas,
  });
  engine.append(await stream.finalMessage());
  const events = await client.beta.messages.create({ model: "claude-sonnet-4-6", max_tokens: 1_024, messages: engine.messages(), stream: true });
  for await (const event of events) if (event.type === "message_start") engine.append(event.message);
}

function onPromptTooLong(): Outcome {
  const outcome = engine.promptTooLong();
  const first: Request | undefined = outcome.requests[0];
  if (first?.kind === "preCompact") {
    const answer: Answer = { kind: "hook", block: "not now" };
    return engine.answer(first.id, answer);
  }
  if (first?.kind === "summary") return engine.answer(first.id, { kind: "modelUnavailable" });
  return outcome;
}

// On-demand compaction (R13.2): its own request, with the SDK's types.
async function compactNow(): Promise<void> {
  const request = engine.compactionRequest("Keep ticket ids.");
  if (request === null) return;
  const reply = await client.beta.messages.create({
    model: "claude-sonnet-4-6",
    max_tokens: 8_192,
    messages: engine.messages(),
    compaction: request.compaction,
    betas: request.betas,
  });
  const block = reply.content.find((b) => b.type === "compaction");
  if (block) engine.swapInSummary(request.summarised, block);
}

const importer = new SessionImporter();
importer.feed("{}\n");
importer.feed(new Uint8Array([10]));
const session: Session = importer.finish();
const report: ImportReport = session.report;
const problems: number = report.problems.length;
// A session read by the session module goes into an engine of the engine module.
const loaded: SessionLoad = new Engine("seed").loadSession(readSession("{}\n"));
const resumedFrom: string | null = loaded.boundary;
const dry: Decision = plan("client-2.1", JSON.stringify(history));
const tokens: number = dry.count.tokens;
console.log(turn, onPromptTooLong, compactNow, problems, tokens, engine.records().length, resumedFrom);

// @ts-expect-error a role the API does not have
engine.append({ role: "tool", content: "x" });
// @ts-expect-error content is a string or blocks
engine.append({ role: "user", content: 5 });
// @ts-expect-error unknown preset names are compile errors
new Engine("turbo");
// @ts-expect-error the decision is typed: no such field
decision_typo(dry.stepz);
declare function decision_typo(x: unknown): void;
