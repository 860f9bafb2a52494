// context-compaction/ai-sdk: the engine over the Vercel AI SDK's
// `ModelMessage`s, and `prepareStep` for `generateText` / `streamText` /
// `ToolLoopAgent`. The conversion is the engine's (settings.format "ai-sdk");
// this file only keeps one engine across steps and feeds it what is new.
import { Engine, isPromptTooLong, plan as planAny } from "context-compaction/formats";

const settingsObject = (settings) =>
    settings === undefined ? {} : typeof settings === "string" ? { preset: settings } : settings;

/** A new engine whose history is `ModelMessage`s. */
export function createEngine(settings) {
    return new Engine({ ...settingsObject(settings), format: "ai-sdk" });
}

/** The stateless dry run over a `ModelMessage[]` history. */
export function plan(settings, messages, now) {
    return planAny({ ...settingsObject(settings), format: "ai-sdk" }, messages, now);
}

/** A summary request as one text: the messages to summarise, rendered. */
export function transcript(messages) {
    const block = (b) => {
        switch (b.type) {
            case "text":
                return b.text;
            case "tool_use":
                return `[tool call ${b.name} ${JSON.stringify(b.input)}]`;
            case "tool_result":
                return `[tool result ${typeof b.content === "string" ? b.content : (b.content ?? []).map(block).join("\n")}]`;
            case "thinking":
                return "";
            default:
                return `[${b.type}]`;
        }
    };
    return messages
        .map((m) => `${m.role}: ${typeof m.content === "string" ? m.content : m.content.map(block).filter(Boolean).join("\n")}`)
        .join("\n\n");
}

/** The step's own model writes the summary, through `generateText`. */
async function summarizeWith(model, request) {
    const { generateText } = await import("ai");
    try {
        const { text } = await generateText({
            model,
            messages: [{ role: "user", content: `${transcript(request.messages)}\n\n${request.prompt}` }],
        });
        return text;
    } catch (e) {
        // The summary itself did not fit the model's window: the engine asks
        // again with the oldest messages left out (R7.5). Any other error is
        // the host's to see.
        if (isPromptTooLong(e)) return { kind: "promptTooLong" };
        throw e;
    }
}

/**
 * An AI SDK `PrepareStepFunction` that compacts the step's messages: one
 * engine across steps (and across calls that pass the same history on),
 * fed only the messages that are new since the last step.
 */
export function prepareStep(options = {}) {
    const { settings, summarize, host = {}, now = () => new Date().toISOString(), onDecision, onRecord } = options;
    let record = options.record;
    let engine;
    let sent = []; // what the last step sent: the next step's messages start with it
    let index = new Map(); // each caller object the engine holds → its place in the caller's history
    let next = 0; // the caller's history length so far

    const start = (messages) => {
        engine?.free();
        engine = createEngine(settings);
        index = new Map();
        // The caller's leading system messages stay first, as given.
        let lead = 0;
        while (lead < messages.length && messages[lead].role === "system") lead++;
        let from = 0;
        let held = messages;
        if (record && record.cut >= lead && record.cut <= messages.length) {
            // A compaction an earlier request made: its summary stands for
            // the messages it replaced, which are not summarised again.
            held = [...messages.slice(0, lead), ...record.messages, ...messages.slice(record.cut)];
            from = record.cut - lead - record.messages.length;
        } else {
            record = undefined;
        }
        held.forEach((m, i) => {
            if (i < lead || i >= lead + (record ? record.messages.length : 0)) index.set(m, i + (i < lead ? 0 : from));
        });
        next = messages.length;
        if (held.length > 0) engine.load(held);
    };

    const fn = async ({ messages, model }) => {
        const held = engine !== undefined && messages.length >= sent.length && sent.every((m, i) => messages[i] === m);
        if (held) {
            const fresh = messages.slice(sent.length);
            for (const m of fresh) index.set(m, next++);
            if (fresh.length > 0) engine.load(fresh);
        } else {
            start(messages);
        }
        const decision = await engine.prepare({
            ...host,
            now: now(),
            summarize: summarize ? (request) => summarize(request, model) : (request) => summarizeWith(model, request),
        });
        onDecision?.(decision);
        const out = engine.messages();
        // A compaction (its boundary, R7.9, was written): what replaced the
        // caller's messages, after their leading system messages, is the
        // durable record; the first of the caller's messages after it is
        // where their history resumes (none: everything so far).
        if (decision.steps.some((s) => s.rule === "R7.9")) {
            let lead = 0;
            while (lead < out.length && out[lead].role === "system" && index.has(out[lead])) lead++;
            const kept = out.findIndex((m, i) => i > lead && index.has(m));
            record = {
                messages: out.slice(lead, kept === -1 ? out.length : kept),
                cut: kept === -1 ? next : index.get(out[kept]),
                tokens: decision.count.tokens,
                at: now(),
            };
            onRecord?.(record);
        }
        sent = out;
        return { messages: out };
    };
    Object.defineProperties(fn, {
        engine: { get: () => engine },
        record: { get: () => record },
    });
    return fn;
}
