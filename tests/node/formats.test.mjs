// The `format` setting through the packed package: histories in the AI
// SDK's, OpenAI's and LangChain's own shapes load, a tier fires, and
// messages() gives them back paired in the format's terms, the untouched
// tail as the very objects given, signatures and encrypted_content intact.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Engine as AnthropicEngine, plan as planAnthropic } from "context-compaction";
import { Engine, plan } from "context-compaction/formats";
import { createEngine, plan as planAiSdk } from "context-compaction/ai-sdk";
import { chatEngine, responsesEngine, planChat } from "context-compaction/openai";
import { langchainEngine } from "context-compaction/langchain";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, mapChatMessagesToStoredMessages, mapStoredMessagesToChatMessages } from "@langchain/core/messages";
import { aiSdk, openaiChat, openaiResponses, pairing } from "./formats-gen.mjs";

const T0 = "2026-12-01T10:00:00Z";
const LATER = "2026-12-01T12:00:00Z"; // two hours idle: the client path clears

const cases = [
  ["ai-sdk", (s) => createEngine(s), aiSdk],
  ["openai-chat", (s) => chatEngine(s), openaiChat],
  ["openai-responses", (s) => responsesEngine(s), openaiResponses],
];

const signed = (v) => /gAAAAB|thoughtSignature/.test(JSON.stringify(v));

for (const [format, make, gen] of cases) {
  test(`${format}: a 160-turn tool-heavy history loads, Tier 1 fires, every call keeps its result, the tail is the objects given`, () => {
    const input = gen(160, 2000);
    const engine = make();
    engine.beforeCall(T0); // the host's clock: the messages' time
    assert.equal(engine.load(input) > 0, true);
    const d = engine.beforeCall(LATER);
    const tier1 = d.steps.find((s) => s.rule === "R4.4");
    assert.ok(tier1, JSON.stringify(d.steps.map((s) => s.rule)));
    assert.match(tier1.reason, /no server-side context editing/);
    assert.ok(tier1.countAfter.tokens < tier1.countBefore.tokens);
    const out = engine.messages();
    assert.equal(out.length, input.length);
    pairing(format, out);
    assert.ok(JSON.stringify(out).includes("[content no longer available]"));
    // The last five turns: the caller's own objects, unchanged.
    const tail = 30;
    for (let i = out.length - tail; i < out.length; i++) assert.equal(out[i], input[i], `item ${i}`);
    assert.deepEqual(out.slice(-tail), gen(160, 2000).slice(-tail));
    // Every signed item or part is one of the input's, byte for byte.
    const known = new Set(input.filter(signed).map((v) => JSON.stringify(v)));
    for (const v of out.filter((v) => v.role !== "tool" && signed(v))) {
      if (format === "ai-sdk" && v.role === "assistant") {
        assert.ok(input.includes(v), "an assistant message with signed parts is the original");
      } else {
        assert.ok(known.has(JSON.stringify(v)));
      }
    }
    engine.free();
  });

  test(`${format}: a compaction starts the history with a fresh summary, the system prompt first`, async () => {
    const input = gen(160, 3000);
    // Snip and collapse off: only Tier 4 brings this history under the line.
    const engine = make({ snip: false, collapse: false });
    engine.load(input);
    await engine.prepare({ summarize: () => ({ kind: "offline" }) });
    const out = engine.messages();
    assert.ok(!input.includes(out[1]), "a fresh summary follows the system prompt");
    assert.ok(out.length < input.length / 2, `${out.length} of ${input.length}`);
    assert.equal(out[0], input[0], "the system prompt stays first, as given");
    pairing(format, out);
    assert.equal(out.at(-1), input.at(-1));
    engine.free();
  });
}

for (const [format, make, gen] of cases) {
  test(`${format}: summaryMessages(request) gives a summary request's messages in the format, paired`, async () => {
    const input = gen(160, 3000);
    const engine = make({ snip: false, collapse: false });
    engine.load(input);
    const asked = [];
    await engine.prepare({
      summarize: (request) => {
        // Called from the host callback, while prepare() is pending.
        asked.push({ request, items: engine.summaryMessages(request) });
        return "Summary: the user asked for a refactor.";
      },
    });
    assert.ok(asked.length > 0, "a summary was asked for");
    for (const { request, items } of asked) {
      assert.ok(items.length >= request.messages.length, `${items.length} items for ${request.messages.length} messages`);
      const text = JSON.stringify(items);
      assert.doesNotMatch(text, /"type":"(tool_use|tool_result)"/, "no Anthropic block is left");
      pairing(format, items);
      // The first message's text comes through.
      const first = request.messages[0].content;
      const firstText = typeof first === "string" ? first : first.find((b) => b.type === "text")?.text;
      if (firstText) assert.ok(text.includes(JSON.stringify(firstText).slice(1, 40)), firstText.slice(0, 40));
    }
    // Not a request: a typed error naming the field; the engine still works.
    assert.throws(() => engine.summaryMessages({}), (e) => e.code === "INVALID_ARGUMENT" && e.field === "request.messages");
    assert.throws(
      () => engine.summaryMessages({ messages: [{ role: "user", content: 5 }] }),
      (e) => e.code === "INVALID_MESSAGE" && e.field.startsWith("request.messages[0]"),
    );
    assert.ok(engine.messages().length > 0);
    engine.free();
  });
}

test("summaryMessages: LangChain stored messages; Anthropic messages unchanged in the default format", async () => {
  const lc = langchainEngine({ window: 200_000 });
  lc.load(mapChatMessagesToStoredMessages([
    new HumanMessage("List the files"),
    new AIMessage({ content: "", tool_calls: [{ name: "Bash", args: { command: "ls" }, id: "call_1", type: "tool_call" }] }),
    new ToolMessage({ content: "a.rs", tool_call_id: "call_1" }),
  ]));
  const request = { messages: [
    { role: "user", content: "List the files" },
    { role: "assistant", content: [{ type: "tool_use", id: "call_1", name: "Bash", input: { command: "ls" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "a.rs" }] },
  ] };
  const items = lc.summaryMessages(request);
  pairing("langchain", items);
  assert.deepEqual(items.map((m) => m.type), ["human", "ai", "tool"]);
  const chat = mapStoredMessagesToChatMessages(items);
  assert.equal(chat[2].tool_call_id, "call_1");
  lc.free();
  const plain = new Engine({ window: 200_000 });
  assert.deepEqual(plain.summaryMessages(request), request.messages);
  plain.free();
});

test("plan speaks the format, statelessly", () => {
  const history = openaiChat(160, 3000);
  // No uncalibrated margin: the count is the history's own estimate.
  const d = planChat({ window: 200_000, uncalibratedMarginPct: 0 }, history);
  assert.ok(d.count.tokens > 150_000, String(d.count.tokens));
  assert.ok(d.steps.length > 0 || d.requests.length > 0);
  const same = plan({ format: "openai-chat", uncalibratedMarginPct: 0 }, JSON.stringify(history));
  assert.equal(same.count.tokens, d.count.tokens);
  const small = planAiSdk(undefined, aiSdk(2, 50));
  assert.equal(small.steps.length, 0);
});

test("context-compaction reads Anthropic messages only: another format is an error naming context-compaction/formats", () => {
  for (const format of ["ai-sdk", "openai-chat", "openai-responses", "langchain", "gemini", 7]) {
    const named = (err) =>
      err instanceof Error &&
      err.code === "INVALID_SETTING" &&
      err.field === "format" &&
      err.message.includes('"context-compaction/formats"');
    assert.throws(() => new AnthropicEngine({ format }), named, String(format));
    assert.throws(() => planAnthropic({ format }, "[]"), named, String(format));
  }
  const e = new AnthropicEngine({ format: "anthropic" });
  e.append({ role: "user", content: "hi" });
  assert.deepEqual(e.messages(), [{ role: "user", content: "hi" }]);
  e.free();
  // The formats entry's engine is a class of its own module.
  assert.notEqual(Engine, AnthropicEngine);
  const f = new Engine({ format: "langchain" });
  f.append({ type: "human", data: { content: "hi" } });
  assert.deepEqual(f.messages(), [{ type: "human", data: { content: "hi" } }]);
  f.free();
});

test("errors name the field; the engine keeps working", () => {
  const e = createEngine();
  assert.throws(() => e.append({ role: "tool", content: [{ type: "tool-result", toolName: "x", output: { type: "text", value: "" } }] }),
    (err) => err instanceof Error && err.code === "INVALID_MESSAGE" && err.field === "message.content[0].toolCallId");
  assert.throws(() => e.load([{ role: "user", content: "a" }, { role: "robot", content: "b" }]),
    (err) => err.code === "INVALID_MESSAGE" && err.field === "messages[1].role");
  assert.equal(e.view().length, 0, "all or nothing");
  e.append({ role: "user", content: "hi" });
  assert.deepEqual(e.messages(), [{ role: "user", content: "hi" }]);
  assert.throws(() => new Engine({ format: "gemini" }), (err) => err.code === "INVALID_SETTING" && err.field === "format");
  const c = chatEngine();
  assert.throws(() => c.append({ role: "tool", content: "x" }), (err) => err.field === "message.tool_call_id");
  e.free();
  c.free();
});

test("a Responses compaction item starts the view; encrypted items stay whole", () => {
  const input = openaiResponses(3, 100);
  const compaction = { type: "compaction", id: "cmp_1", encrypted_content: "gAAAAcompacted==" };
  input.splice(5, 0, compaction);
  const engine = responsesEngine();
  engine.load(input);
  const out = engine.messages();
  assert.equal(out[0], input[0]);
  assert.equal(out[1], compaction);
  assert.deepEqual(out.slice(2), input.slice(6));
  engine.free();
});

test("langchain: LangChain's stored messages of a tool-using conversation round-trip", async () => {
  const history = [new SystemMessage("You are a coding agent.")];
  for (let t = 0; t < 120; t++) {
    history.push(new HumanMessage({ content: `Task ${t}`, id: `h${t}` }));
    history.push(new AIMessage({ content: "", tool_calls: [
      { name: "Read", args: { file_path: `f${t}.rs` }, id: `call_${t}_a`, type: "tool_call" },
      { name: "Bash", args: { command: "ls" }, id: `call_${t}_b`, type: "tool_call" },
    ], response_metadata: { model_name: "m" } }));
    history.push(new ToolMessage({ content: "x".repeat(3000), tool_call_id: `call_${t}_a`, name: "Read" }));
    history.push(new ToolMessage({ content: "y".repeat(3000), tool_call_id: `call_${t}_b`, name: "Bash", status: "success" }));
    history.push(new AIMessage(`Done ${t}.`));
  }
  const stored = mapChatMessagesToStoredMessages(history);
  const engine = langchainEngine();
  engine.load(stored);
  const untouched = engine.messages();
  assert.equal(untouched.length, stored.length);
  untouched.forEach((m, i) => assert.equal(m, stored[i]));
  const back = mapStoredMessagesToChatMessages(untouched);
  assert.equal(back.length, history.length);
  assert.deepEqual(back.map((m) => m.getType()), history.map((m) => m.getType()));
  assert.deepEqual(back[2].tool_calls, history[2].tool_calls);
  // Compacted: still LangChain's, every tool message after its call.
  await engine.prepare({ summarize: () => ({ kind: "offline" }) });
  const out = engine.messages();
  assert.ok(out.length < stored.length);
  pairing("langchain", out);
  const chat = mapStoredMessagesToChatMessages(out);
  assert.equal(chat[0].getType(), "system");
  assert.equal(chat[1].getType(), "human");
  assert.equal(out.at(-1), stored.at(-1));
  engine.free();
});

test("a history JSON cannot hold is an error naming it, in a format too", () => {
  const e = createEngine();
  assert.throws(() => e.load([{ role: "user", content: "a", n: 1n }]), (err) => err.code === "INVALID_MESSAGE" && err.field === "messages");
  assert.throws(() => e.append({ role: "user", content: "a", n: 1n }), (err) => err.code === "INVALID_MESSAGE" && err.field === "message");
  e.append({ role: "user", content: "still works" });
  assert.equal(e.messages().length, 1);
  e.free();
});
