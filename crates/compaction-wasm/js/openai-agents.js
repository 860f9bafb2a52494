// context-compaction/openai-agents: the engine over the OpenAI Agents SDK's
// `AgentInputItem`s, as a `callModelInputFilter`. The SDK's items are the
// Responses API's in its own spelling (`callId`, `function_call_result`,
// `input_image.image`); this file spells each item as the API does for the
// engine (settings.format "openai-responses", whose conversion is the
// engine's), gives back the SDK's own object for every item no tier
// touched, and spells the few the engine wrote (a summary, a cleared tool
// output) the SDK's way. Usage comes from the run's `RunContext`: each model
// request's `requestUsageEntries`.
import { Agent, RunContext, run } from "@openai/agents";
import { Engine, isPromptTooLong, promptTooLongTokens } from "context-compaction/formats";
import { codedError as coded } from "./guard.js";

export { isPromptTooLong, promptTooLongTokens };

const settingsObject = (settings) =>
    settings === undefined ? {} : typeof settings === "string" ? { preset: settings } : settings;


/** A content part of the SDK's, as the Responses API spells it. */
function partToApi(p) {
    switch (p?.type) {
        case "input_image": {
            const image = p.image ?? p.imageUrl;
            const at = typeof image === "string" ? { image_url: image } : image?.id ? { file_id: image.id } : {};
            return { type: "input_image", detail: p.detail ?? "auto", ...at };
        }
        case "input_file": {
            const f = p.file;
            const at =
                typeof f === "string"
                    ? f.startsWith("data:") ? { file_data: f } : { file_url: f }
                    : f?.id ? { file_id: f.id } : f?.url ? { file_url: f.url } : {};
            return { type: "input_file", ...(p.filename ? { filename: p.filename } : {}), ...at };
        }
        case "output_text":
            return { type: "output_text", text: p.text, annotations: [] };
        default:
            return p;
    }
}

/** A tool output of the SDK's (a string, a text, an image or file, or a
 * list of them), as the Responses API's `function_call_output.output`. */
function outputToApi(output) {
    if (typeof output === "string") return output;
    if (output?.type === "text") return output.text;
    const part = (o) => (o?.type === "text" ? { type: "input_text", text: o.text } : o?.type === "image" ? partToApi({ ...o, type: "input_image" }) : partToApi(o));
    return Array.isArray(output) ? output.map(part) : [part(output)];
}

/** An `AgentInputItem` as the Responses API spells it. */
export function toResponsesItem(item) {
    switch (item?.type) {
        case undefined:
        case "message": {
            const content = typeof item.content === "string" ? item.content : item.content.map(partToApi);
            return { ...(item.id ? { id: item.id } : {}), type: "message", role: item.role, content, ...(item.role === "assistant" ? { status: item.status ?? "completed" } : {}) };
        }
        case "function_call":
            return { type: "function_call", call_id: item.callId, name: item.name, arguments: item.arguments, ...(item.id ? { id: item.id } : {}) };
        case "function_call_result":
            return { type: "function_call_output", call_id: item.callId, output: outputToApi(item.output) };
        case "reasoning":
            return {
                type: "reasoning",
                id: item.id ?? "",
                summary: (item.content ?? []).map((c) => ({ type: "summary_text", text: c.text })),
                ...(item.providerData?.encryptedContent ? { encrypted_content: item.providerData.encryptedContent } : {}),
            };
        default:
            // Hosted and computer calls, compaction items…: the engine keeps
            // them whole (opaque), so their spelling does not matter to it.
            return item;
    }
}

/** An item the engine wrote (Responses spelling) as an `AgentInputItem`;
 * `names` gives a call's tool name by its id. */
function fromResponsesItem(item, names) {
    switch (item.type) {
        case "message": {
            if (item.role === "assistant") {
                const content = typeof item.content === "string" ? [{ type: "output_text", text: item.content }] : item.content.map((p) => (p.type === "output_text" ? { type: "output_text", text: p.text } : p));
                return { type: "message", role: "assistant", status: "completed", content };
            }
            return { type: "message", role: item.role === "developer" ? "system" : item.role, content: item.content };
        }
        case "function_call":
            return { type: "function_call", callId: item.call_id, name: item.name, arguments: item.arguments, status: "completed" };
        case "function_call_output":
            return { type: "function_call_result", callId: item.call_id, name: names.get(item.call_id) ?? "", status: "completed", output: typeof item.output === "string" ? item.output : { type: "text", text: JSON.stringify(item.output) } };
        default:
            return item;
    }
}

/** Whether `a` and `b` are the same item: the same object, or equal as JSON
 * (the SDK hands a filter copies unless it keeps their identity). */
const same = (a, b) => a === b || JSON.stringify(a) === JSON.stringify(b);

/** The usage the SDK recorded for one model request, as a Responses `usage`. */
const usageOf = (entry) => ({
    input_tokens: entry.inputTokens,
    output_tokens: entry.outputTokens,
    total_tokens: entry.totalTokens,
    input_tokens_details: { cached_tokens: entry.inputTokensDetails?.cached_tokens ?? 0 },
    output_tokens_details: { reasoning_tokens: entry.outputTokensDetails?.reasoning_tokens ?? 0 },
});

/** The model's side of a history: items a response carries. */
const fromModel = (item) => item.role === "assistant" || (item.type !== undefined && item.type !== "message" && !item.type.endsWith("_result") && !item.type.endsWith("_output"));

/** Writes a summary with the agent's own model: a tool-less agent, its
 * reply held to the engine's reserve. */
async function summarizeWith(agent, messages, prompt, maxTokens) {
    const writer = new Agent({ name: "compaction-summary", instructions: "You write summaries of conversations.", model: agent.model, modelSettings: { maxTokens } });
    try {
        const result = await run(writer, [...messages, { role: "user", content: prompt }]);
        return String(result.finalOutput ?? "");
    } catch (e) {
        // The summary itself did not fit: the engine asks again with the
        // oldest messages left out (R7.5). Any other error is the host's.
        if (isPromptTooLong(e)) return { kind: "promptTooLong" };
        throw e;
    }
}

/**
 * One conversation's compaction for `run(agent, input, options)`: its
 * `callModelInputFilter` and the `RunContext` whose usage it reads. See
 * openai-agents.d.ts.
 */
export function agentsCompaction(options = {}) {
    const { settings, summarize, host = {}, onDecision } = options;
    let engine;
    let caller = []; // the SDK's items the engine holds, in order
    const api = new WeakMap(); // each Responses spelling the engine holds → the SDK's item
    let seen = 0; // request usage entries already fed
    let instructions; // the agent's instructions: the engine's system prompt
    let agent; // the last filter call's agent: the default summariser's model
    let queue = Promise.resolve();
    const context = options.context instanceof RunContext ? options.context : new RunContext(options.context);

    const usage = () => {
        const entries = context.usage.requestUsageEntries ?? [];
        const entry = entries.length > seen ? entries.at(-1) : undefined;
        seen = entries.length;
        return entry === undefined ? undefined : usageOf(entry);
    };
    const feed = (items, reported) => {
        const spelled = items.map((item) => {
            const s = toResponsesItem(item);
            api.set(s, item);
            return s;
        });
        caller.push(...items);
        if (spelled.length > 0) engine.load(spelled, items.some(fromModel) ? reported : undefined);
    };
    const start = () => {
        engine?.free();
        engine = new Engine({ ...settingsObject(settings), format: "openai-responses" });
        caller = [];
        if (instructions !== undefined) engine.setSystem(instructions);
    };
    // Feeds the engine `input`: what is new after the items it holds, or
    // all of it on a fresh engine when `input` does not continue them (a
    // new conversation; a run retried after a refusal, whose items the
    // engine already took: the retry runs again from its input).
    const take = (input, reported) => {
        const from = held(input);
        if (from < 0) start();
        feed(input.slice(Math.max(from, 0)), reported);
    };
    const held = (input) => {
        if (engine === undefined || input.length < caller.length) return -1;
        for (let i = 0; i < caller.length; i++) if (!same(input[i], caller[i])) return -1;
        return caller.length;
    };
    const hostFor = () => ({
        ...host,
        now: host.now ?? new Date().toISOString(),
        summarize: summarize
            ? (request) => summarize(request, engine.summaryMessages(request).map((i) => api.get(i) ?? fromResponsesItem(i, names())))
            : (request) => summarizeWith(agent, engine.summaryMessages(request).map((i) => api.get(i) ?? fromResponsesItem(i, names())), request.prompt, engine.lines().reserve),
    });
    const names = () => new Map(caller.filter((i) => i.type === "function_call").map((i) => [i.callId, i.name]));
    const out = () => {
        const n = names();
        return engine.messages().map((i) => api.get(i) ?? fromResponsesItem(i, n));
    };
    const serial = (work) => {
        const done = queue.then(work);
        queue = done.then(
            () => undefined,
            () => undefined,
        );
        return done;
    };

    const filter = ({ modelData, agent: current }) =>
        serial(async () => {
            agent = current;
            const reported = usage();
            take(modelData.input, reported);
            if (modelData.instructions !== instructions && typeof modelData.instructions === "string") {
                engine.setSystem(modelData.instructions);
                instructions = modelData.instructions;
            }
            const decision = await engine.prepare(hostFor());
            onDecision?.(decision);
            return { ...modelData, input: out() };
        });
    // The filter treats every item as immutable: the SDK may hand it its own.
    filter.preserveInputIdentity = true;

    // A model call was refused as too long (`run` rejected with `error`):
    // the engine's reactive tier over `input`, the input the run is tried
    // again with (default: the history the engine holds), its requests
    // answered through the host; then run again with that input.
    const promptTooLong = (error, input) => {
        if (input !== undefined && !Array.isArray(input)) {
            return Promise.reject(coded("INVALID_ARGUMENT", "input", "promptTooLong(error, input): input must be the AgentInputItem[] the run is tried again with"));
        }
        if (error !== undefined && !isPromptTooLong(error)) {
            return Promise.reject(coded("INVALID_ARGUMENT", "error", "promptTooLong(error): this error is not a prompt-too-long refusal (isPromptTooLong(error) is false): handle or rethrow it", error));
        }
        if (engine === undefined) {
            return Promise.reject(coded("INVALID_ARGUMENT", "", "promptTooLong: no model call has been filtered yet, so there is no engine to recover"));
        }
        return serial(async () => {
            if (input !== undefined) take(input, undefined);
            const outcome = engine.promptTooLong(error === undefined ? null : promptTooLongTokens(error));
            if (outcome.compaction?.kind === "failed") return outcome;
            const decision = await engine.prepare(hostFor());
            onDecision?.(decision);
            return { steps: [...outcome.steps, ...decision.steps], requests: decision.requests, compaction: decision.compaction ?? outcome.compaction, decision };
        });
    };

    return {
        callModelInputFilter: filter,
        context,
        get engine() {
            return engine;
        },
        promptTooLong,
        free: () => serial(() => {
            engine?.free();
            engine = undefined;
            caller = [];
        }),
    };
}
