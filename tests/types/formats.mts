// Sample users of the provider formats, checked by `tsc --noEmit` (strict,
// no casts) against the real SDKs' own types: `ai`'s ModelMessage and
// PrepareStepFunction, `openai`'s Chat Completions and Responses params,
// `@langchain/core`'s StoredMessage.
import { convertToModelMessages, generateText, jsonSchema, stepCountIs, streamText, tool, ToolLoopAgent, type ModelMessage, type UIMessage } from "ai";
import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { AIMessage, HumanMessage, ToolMessage, mapChatMessagesToStoredMessages, mapStoredMessagesToChatMessages } from "@langchain/core/messages";
import type { Decision } from "context-compaction";
import * as anthropic from "context-compaction";
import type { FormatEngine } from "context-compaction/formats";
import * as formats from "context-compaction/formats";
import { createEngine, isPromptTooLong, plan, prepareStep, promptTooLongTokens, type CompactionRecord, type ConversationState, type PromptTooLongOutcome } from "context-compaction/ai-sdk";
import { chatEngine, planChat, planResponses, responsesEngine } from "context-compaction/openai";
import { langchainEngine, planLangchain } from "context-compaction/langchain";

// --- AI SDK ---------------------------------------------------------------
const history: ModelMessage[] = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "Read a.rs", providerOptions: { app: { turn: 1 } } },
    {
        role: "assistant",
        content: [
            { type: "reasoning", text: "…", providerOptions: { anthropic: { signature: "EqQB" } } },
            { type: "tool-call", toolCallId: "c1", toolName: "Read", input: { file_path: "a.rs" } },
        ],
    },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "Read", output: { type: "text", value: "fn main() {}" } }] },
];
const ai: FormatEngine<ModelMessage> = createEngine({ window: 200_000 });
ai.load(history);
ai.append({ role: "assistant", content: "Done." });
const toSend: ModelMessage[] = ai.messages();
const dry: Decision = plan("seed", history);

const tools = {
    Read: tool({
        description: "Read a file",
        inputSchema: jsonSchema<{ file_path: string }>({ type: "object", properties: { file_path: { type: "string" } }, required: ["file_path"] }),
        execute: async ({ file_path }) => `contents of ${file_path}`,
    }),
};
let saved: CompactionRecord | undefined;
const step = prepareStep<typeof tools>({
    settings: { window: 200_000, maxOutputTokens: 32_000 },
    onRecord: (record) => {
        saved = record;
    },
    record: saved,
});
// As the README writes it: no type argument, the tools given to generateText.
const plainStep = prepareStep({ settings: { window: 8_192, maxOutputTokens: 1_024 } });
export async function plainAgent(): Promise<string> {
    const result = await generateText({ model: "openai/gpt-5", tools, messages: toSend, prepareStep: plainStep, stopWhen: stepCountIs(20) });
    const loop = new ToolLoopAgent({ model: "openai/gpt-5", tools, prepareStep: prepareStep() });
    return result.text + (await loop.generate({ messages: history })).text + String(plainStep.engine?.count().tokens);
}
// The README's retry loop: the history kept from each finished step, a
// refusal recovered by the step function, the usage handed on.
export async function retrying(): Promise<string> {
    const kept: ModelMessage[] = [...history];
    for (;;) {
        try {
            const result = await generateText({
                model: "openai/gpt-5",
                tools,
                messages: kept,
                prepareStep: plainStep,
                stopWhen: stepCountIs(20),
                onStepFinish: (finished) => {
                    kept.push(...finished.response.messages);
                    plainStep.onStepFinish(finished);
                },
            });
            // By hand: a step's messages with the usage it reported.
            ai.load(result.response.messages, result.usage);
            return result.text;
        } catch (error) {
            if (!isPromptTooLong(error)) throw error;
            const tokens: number | null = promptTooLongTokens(error);
            const outcome: PromptTooLongOutcome = await plainStep.promptTooLong(error);
            if (outcome.compaction?.kind === "failed") throw new Error(`${outcome.compaction.reason} (${tokens})`);
        }
    }
}
export async function agent(): Promise<string> {
    const result = await generateText({ model: "anthropic/claude-sonnet-4.5", tools, messages: toSend, prepareStep: step, stopWhen: stepCountIs(20) });
    const loop = new ToolLoopAgent({ model: "openai/gpt-5", tools, prepareStep: prepareStep<typeof tools>() });
    const again = await loop.generate({ messages: history });
    return result.text + again.text + String(step.engine?.count().tokens) + String(dry.count.tokens);
}

// --- OpenAI Chat Completions and Responses ---------------------------------
const client = new OpenAI({ apiKey: "sk-test" });
const chat = chatEngine({ window: 128_000 });
const messages: ChatCompletionMessageParam[] = [
    { role: "developer", content: "You are a coding agent." },
    { role: "user", content: "List files" },
    { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "Bash", arguments: "{\"command\":\"ls\"}" } }] },
    { role: "tool", tool_call_id: "call_1", content: "a.rs\nb.rs" },
];
chat.load(messages);
const responses = responsesEngine("seed");
const input: ResponseInputItem[] = [
    { role: "user", content: "List files" },
    { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAAA" },
    { type: "function_call", call_id: "call_1", name: "Bash", arguments: "{}" },
    { type: "function_call_output", call_id: "call_1", output: "a.rs" },
    { type: "compaction", encrypted_content: "gAAAA" },
];
responses.load(input);
export async function openai(): Promise<number> {
    const a = await client.chat.completions.create({ model: "gpt-5", messages: chat.messages() });
    const b = await client.responses.create({ model: "gpt-5", input: responses.messages(), store: false, include: ["reasoning.encrypted_content"] });
    // A response's output goes back in as it is (the README's loop): its
    // reasoning items, function calls and messages are input items too.
    responses.load(b.output);
    for (const item of b.output) if (item.type === "function_call") responses.append(item);
    const dryChat: Decision = planChat(undefined, messages);
    const dryResponses: Decision = planResponses({ window: 400_000 }, input);
    // The summariser on the same server: the request's messages in Chat
    // Completions' shape, then its prompt.
    await chat.prepare({
        summarize: async (request) => {
            const reply = await client.chat.completions.create({
                model: "gpt-5",
                messages: [...chat.summaryMessages(request), { role: "user", content: request.prompt }],
            });
            return reply.choices[0]?.message.content ?? "";
        },
    });
    await responses.prepare({
        summarize: async (request) => {
            const items: ResponseInputItem[] = [...responses.summaryMessages(request), { role: "user", content: request.prompt }];
            return (await client.responses.create({ model: "gpt-5", input: items })).output_text;
        },
    });
    // Each reply with the usage its API reported beside it.
    const choice = a.choices[0];
    if (choice) chat.append(choice.message, a.usage);
    responses.load(input, b.usage);
    return a.choices.length + b.output.length + dryChat.count.tokens + dryResponses.count.tokens;
}

// --- LangChain ------------------------------------------------------------
const lc = langchainEngine({ window: 200_000 });
lc.load(
    mapChatMessagesToStoredMessages([
        new HumanMessage("List files"),
        new AIMessage({ content: "", tool_calls: [{ name: "Bash", args: { command: "ls" }, id: "call_1", type: "tool_call" }] }),
        new ToolMessage({ content: "a.rs", tool_call_id: "call_1" }),
    ]),
);
export const restored = mapStoredMessagesToChatMessages(lc.messages());
export const lcPlan: Decision = planLangchain(undefined, lc.messages());

// --- context-compaction/formats: the untyped-history engine of every format,
// and the base engine, which takes Anthropic's only -------------------------
const anyFormat = new formats.Engine({ format: "openai-chat", window: 200_000 });
anyFormat.load([{ role: "user", content: "hi" }]);
const planned: Decision = formats.plan({ format: "langchain" }, "[]");
void planned;
anyFormat.free();
new anthropic.Engine({ format: "anthropic" }).free();
// @ts-expect-error: `context-compaction` reads Anthropic messages only
new anthropic.Engine({ format: "ai-sdk" });
// One module-level step for many conversations (issue 28, point 6): the id
// in each call's runtimeContext, or through a ToolLoopAgent's prepareCall.
const shared = prepareStep({
    settings: { window: 200_000, maxOutputTokens: 32_000 },
    record: (id) => (id === undefined ? undefined : saved),
    onRecord: (record, id) => {
        if (id !== undefined) saved = record;
    },
});
export async function concurrent(conversationId: string): Promise<string> {
    const result = await generateText({
        model: "openai/gpt-5",
        tools,
        messages: history,
        prepareStep: shared,
        runtimeContext: { conversationId },
        onStepFinish: (finished) => shared.onStepFinish(finished),
    });
    const agent = new ToolLoopAgent<{ conversationId: string }, typeof tools>({
        model: "openai/gpt-5",
        tools,
        prepareStep: shared,
        prepareCall: ({ options, ...call }) => ({ ...call, runtimeContext: { conversationId: options.conversationId } }),
    });
    const tokens = shared.engineOf(conversationId)?.count().tokens ?? 0;
    shared.forget(conversationId);
    return result.text + (await agent.generate({ messages: history, options: { conversationId } })).text + String(tokens) + String(shared.recordOf(conversationId)?.cut);
}

// A stateless route: the state rides on the reply's metadata.
type ChatMessage = UIMessage<{ compaction?: ConversationState }>;
export async function route(messages: ChatMessage[]): Promise<Response> {
    const step = prepareStep({
        settings: { window: 200_000, maxOutputTokens: 16_000 },
        state: messages.filter((m) => m.role === "assistant").at(-1)?.metadata?.compaction,
        host: { onPrecompute: (settled) => (settled.ok ? undefined : console.error(settled.error)) },
    });
    const result = streamText({
        model: "anthropic/claude-sonnet-4.6",
        messages: await convertToModelMessages(messages),
        prepareStep: step,
        onStepEnd: step.onStepEnd,
        maxOutputTokens: 16_000,
    });
    return result.toUIMessageStreamResponse({
        messageMetadata: ({ part }) => (part.type === "finish" ? { compaction: step.stateOf() } : undefined),
    });
}
