// context-compaction/ai-sdk: the engine over the Vercel AI SDK's
// `ModelMessage`s, and `prepareStep` for `generateText` / `streamText` /
// `ToolLoopAgent`. The conversion is the engine's (settings.format "ai-sdk");
// this file only keeps one engine across steps and feeds it what is new.
import { Engine, isPromptTooLong, plan as planAny, promptTooLongTokens } from "context-compaction/formats";
import { codedError as coded } from "./guard.js";

export { isPromptTooLong, promptTooLongTokens };

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

/** The step's own model writes the summary, through `generateText`, in at
 * most `maxOutputTokens` (the reply's reserve the engine keeps: its lines'
 * `reserve`), so a provider's own default (`@ai-sdk/anthropic` asks for the
 * model's maximum) does not push the summary request over the window. */
async function summarizeWith(model, request, maxOutputTokens) {
    const { generateText } = await import("ai");
    try {
        const { text } = await generateText({
            model,
            maxOutputTokens,
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

/** Whether `a` and `b` are the same message: the same object, or equal as
 * JSON (the AI SDK hands the host copies of its response messages). */
const same = (a, b) => a === b || (a?.role === b?.role && JSON.stringify(a) === JSON.stringify(b));


/** A persisted `CompactionRecord` (plain JSON from the app's store),
 * checked before the engine trusts it: a bad one is `INVALID_ARGUMENT`
 * naming the field, never a `TypeError` deep in a step. `undefined` and
 * `null` are no record. */
function checkRecord(record) {
    if (record === undefined || record === null) return undefined;
    const bad = (field, what) => {
        throw coded("INVALID_ARGUMENT", `record${field}`, `record${field}: ${what} (a CompactionRecord from onRecord)`);
    };
    if (typeof record !== "object" || Array.isArray(record)) bad("", `must be an object, not ${Array.isArray(record) ? "an array" : typeof record}`);
    if (!Array.isArray(record.messages)) bad(".messages", "must be a list of ModelMessages");
    record.messages.forEach((m, i) => {
        if (typeof m !== "object" || m === null || typeof m.role !== "string") bad(`.messages[${i}]`, "must be a ModelMessage (an object with a role)");
    });
    if (!Number.isSafeInteger(record.cut) || record.cut < 0) bad(".cut", `must be a whole number of messages, not ${JSON.stringify(record.cut) ?? typeof record.cut}`);
    if (record.tokens !== undefined && (!Number.isSafeInteger(record.tokens) || record.tokens < 0)) bad(".tokens", "must be a token count");
    if (record.at !== undefined && typeof record.at !== "string") bad(".at", "must be an RFC 3339 timestamp");
    return record;
}

const COUNTERS = ["inputTokens", "outputTokens", "totalTokens", "reasoningTokens", "cachedInputTokens"];

/** A persisted `ConversationState` (`stateOf(id)`, round-tripped through
 * the app: a message's metadata, a cookie, a row), checked like a record:
 * a bad one is `INVALID_ARGUMENT` naming `state.<field>`. */
function checkState(state) {
    if (state === undefined || state === null) return undefined;
    const bad = (field, what) => {
        throw coded("INVALID_ARGUMENT", `state${field}`, `state${field}: ${what} (a ConversationState from stateOf)`);
    };
    if (typeof state !== "object" || Array.isArray(state)) bad("", `must be an object, not ${Array.isArray(state) ? "an array" : typeof state}`);
    const { usage } = state;
    if (usage !== undefined && usage !== null) {
        if (typeof usage !== "object" || Array.isArray(usage)) bad(".usage", "must be a step's LanguageModelUsage");
        for (const key of COUNTERS) {
            const n = usage[key];
            if (n !== undefined && n !== null && !(Number.isSafeInteger(n) && n >= 0)) bad(`.usage.${key}`, `must be a token count, not ${JSON.stringify(n) ?? typeof n}`);
        }
        if (!Number.isSafeInteger(usage.inputTokens)) bad(".usage.inputTokens", "must be a token count (the usage of the call's last step)");
    }
    try {
        checkRecord(state.record);
    } catch (e) {
        e.field = `state.${e.field}`;
        e.message = `state.${e.message}`;
        throw e;
    }
    return { record: state.record ?? undefined, usage: usage ?? undefined };
}

/** The conversation a step or a step's result belongs to: the id the
 * caller put in the call's `runtimeContext`. */
const byRuntimeContext = (options) => options?.runtimeContext?.conversationId;

/**
 * An AI SDK `PrepareStepFunction` that compacts the step's messages: one
 * engine per conversation across steps (and across calls that pass the same
 * history on), fed only the messages that are new since the last step, with
 * the usage the previous step reported. Conversations are told apart by the
 * id `conversationId(options)` gives (default: the call's
 * `runtimeContext.conversationId`); calls with no id share one conversation.
 * The steps of one conversation run one at a time; different conversations
 * run at once, each on its own engine.
 */
export function prepareStep(options = {}) {
    const { settings, summarize, host = {}, now = () => new Date().toISOString(), onDecision, onRecord } = options;
    const conversationId = options.conversationId ?? byRuntimeContext;
    const conversations = new Map(); // id → its state
    const givenFor = (id, given) => (typeof given === "function" ? given(id) : id === undefined ? given : undefined);
    const recordFor = (id) => checkRecord(givenFor(id, options.record));
    const stateFor = (id) => checkState(givenFor(id, options.state));
    const fresh = (id) => {
        const state = stateFor(id);
        return {
            id,
            record: state?.record ?? recordFor(id),
            usage: state?.usage, // the last step's usage: of the last assistant message
            kept: false, // whether the engine served an earlier call: only then is a precompute worth its call
            engine: undefined,
        sent: [], // what the last step sent: the next step's messages start with it
        caller: [], // the caller's history so far: its own objects (and the AI SDK's response messages)
        index: new Map(), // each caller object the engine holds → its place in the caller's history
        next: 0, // the caller's history length so far
        model: undefined, // the last step's model: the default summariser's
        pending: undefined, // usage of a step that finished after the last prepareStep (onStepFinish)
        queue: Promise.resolve(), // this conversation's steps, one at a time
        };
    };
    const lone = fresh(undefined); // the conversation of calls that give no id
    const idOf = (from) => {
        const id = conversationId(from);
        if (id !== undefined && typeof id !== "string") {
            throw coded("INVALID_ARGUMENT", "conversationId", `conversationId: must be a string or undefined, not ${typeof id}`);
        }
        return id;
    };
    const stateOf = (id, create = true) => {
        if (id === undefined) return lone;
        let c = conversations.get(id);
        if (c === undefined && create) conversations.set(id, (c = fresh(id)));
        return c;
    };
    // One conversation's work runs after its earlier work (a rejection does
    // not stop the ones after it).
    const serial = (c, work) => {
        const run = c.queue.then(work);
        c.queue = run.then(
            () => undefined,
            () => undefined,
        );
        return run;
    };

    const start = (c, messages) => {
        c.engine?.free();
        c.engine = createEngine(settings);
        c.index = new Map();
        c.caller = [...messages];
        // The caller's leading system messages stay first, as given.
        let lead = 0;
        while (lead < messages.length && messages[lead].role === "system") lead++;
        let from = 0;
        let held = messages;
        const record = c.record;
        if (record && record.cut >= lead && record.cut <= messages.length) {
            // A compaction an earlier request made: its summary stands for
            // the messages it replaced, which are not summarised again.
            held = [...messages.slice(0, lead), ...record.messages, ...messages.slice(record.cut)];
            from = record.cut - lead - record.messages.length;
        } else {
            c.record = undefined;
        }
        held.forEach((m, i) => {
            if (i < lead || i >= lead + (c.record ? c.record.messages.length : 0)) c.index.set(m, i + (i < lead ? 0 : from));
        });
        c.next = messages.length;
        // The usage a persisted state carries is the last step's: it counts
        // everything up to the last assistant message (SPEC R1.6).
        const reply = c.usage === undefined ? -1 : held.findLastIndex((m) => m.role === "assistant");
        if (reply >= 0) {
            c.engine.load(held.slice(0, reply + 1), c.usage);
            if (reply + 1 < held.length) c.engine.load(held.slice(reply + 1));
        } else if (held.length > 0) c.engine.load(held);
    };

    // How many of `messages` continue what the engine holds: `sent` (the
    // steps of one call), or the caller's own history (a later call, a
    // retry after a refusal); -1 when they do not.
    const held = (c, messages) => {
        if (c.engine === undefined) return -1;
        if (messages.length >= c.sent.length && c.sent.every((m, i) => messages[i] === m)) return c.sent.length;
        if (messages.length < c.caller.length) return -1;
        for (let i = 0; i < c.caller.length; i++) {
            if (!same(messages[i], c.caller[i])) return -1;
            c.caller[i] = messages[i]; // the host's own object, found by identity next time
        }
        return c.caller.length;
    };

    const host_ = (c, stepModel) => ({
        ...host,
        // A precompute (SPEC R9.1) runs in the background for an engine that
        // outlives its call; a fresh engine per request (a stateless route)
        // would never take its answer, so it asks for none.
        precompute: host.precompute ?? c.kept,
        now: now(),
        summarize: summarize
            ? (request) => summarize(request, stepModel)
            : (request) => summarizeWith(stepModel, request, c.engine.lines().reserve),
    });

    // A compaction (its boundary, R7.9, was written): what replaced the
    // caller's messages, after their leading system messages, is the
    // durable record; the first of the caller's messages after it is
    // where their history resumes (none: everything so far).
    const noteRecord = (c, steps, out, tokens) => {
        if (!steps.some((s) => s.rule === "R7.9")) return;
        let lead = 0;
        while (lead < out.length && out[lead].role === "system" && c.index.has(out[lead])) lead++;
        const kept = out.findIndex((m, i) => i > lead && c.index.has(m));
        c.record = {
            messages: out.slice(lead, kept === -1 ? out.length : kept),
            cut: kept === -1 ? c.next : c.index.get(out[kept]),
            tokens,
            at: now(),
        };
        onRecord?.(c.record, c.id);
    };

    // The view the last step sent as a record, when it is one: after its
    // leading system messages, what stands for the caller's first
    // messages, then the caller's own messages from `cut` on, in order.
    const sentAsRecord = (c) => {
        const out = c.sent;
        let lead = 0;
        while (lead < out.length && out[lead].role === "system" && c.index.has(out[lead])) lead++;
        const kept = out.findIndex((m, i) => i >= lead && c.index.has(m));
        if (kept === -1) return undefined;
        const cut = c.index.get(out[kept]);
        for (let i = kept; i < out.length; i++) if (c.index.get(out[i]) !== cut + i - kept) return undefined;
        const messages = out.slice(lead, kept);
        return { messages, cut: messages.length === 0 && cut === lead ? 0 : cut, at: now() };
    };

    const fn = (stepOptions) => {
        const c = stateOf(idOf(stepOptions));
        return serial(c, async () => {
            const { messages, model: stepModel, steps } = stepOptions;
            c.model = stepModel;
            const from = held(c, messages);
            if (from >= 0 && !(steps?.length > 0)) c.kept = true;
            if (from >= 0) {
                const fresh = messages.slice(from);
                for (const m of fresh) {
                    c.index.set(m, c.next++);
                    c.caller.push(m);
                }
                // The usage the step before reported belongs to its reply, the
                // last assistant message among the new ones (SPEC R1.6).
                const usage = steps?.length > 0 ? steps.at(-1).usage : c.pending;
                if (Number.isSafeInteger(usage?.inputTokens)) c.usage = usage;
                const reply = fresh.some((m) => m.role === "assistant");
                if (fresh.length > 0) c.engine.load(fresh, reply ? usage : undefined);
            } else {
                start(c, messages);
            }
            c.pending = undefined;
            const decision = await c.engine.prepare(host_(c, stepModel));
            onDecision?.(decision, c.id);
            const out = c.engine.messages();
            noteRecord(c, decision.steps, out, decision.count.tokens);
            c.sent = out;
            // The reply's room the count was made for: the engine's
            // `maxOutputTokens` (its reserve when none was given), so a
            // provider's default (`@ai-sdk/anthropic` asks for the model's
            // maximum) cannot push the call over the window.
            return { messages: out, maxOutputTokens: settings?.maxOutputTokens ?? c.engine.lines().reserve };
        });
    };

    // The model call of a step was refused as too long (`generateText`
    // rejected with it): the engine's reactive tier (SPEC R8.1), its
    // requests answered through the same host. Retry the call with the
    // same history: the next step continues this engine.
    const promptTooLong = async (error, id) => {
        if (error !== undefined && !isPromptTooLong(error)) {
            throw coded("INVALID_ARGUMENT", "error", "promptTooLong(error): this error is not a prompt-too-long refusal (isPromptTooLong(error) is false): handle or rethrow it", error);
        }
        if (id !== undefined && typeof id !== "string") {
            throw coded("INVALID_ARGUMENT", "conversationId", `promptTooLong(error, conversationId): must be a string or undefined, not ${typeof id}`);
        }
        const c = stateOf(id, false);
        if (c?.engine === undefined) {
            throw coded("INVALID_ARGUMENT", "", "promptTooLong: no step has run yet in this conversation, so there is no engine to recover");
        }
        return serial(c, async () => {
            const tokens = error === undefined ? null : promptTooLongTokens(error);
            const outcome = c.engine.promptTooLong(tokens);
            if (outcome.compaction?.kind === "failed") return outcome;
            const decision = await c.engine.prepare(host_(c, c.model));
            onDecision?.(decision, c.id);
            const steps = [...outcome.steps, ...decision.steps];
            noteRecord(c, steps, c.engine.messages(), decision.count.tokens);
            return { steps, requests: decision.requests, compaction: decision.compaction ?? outcome.compaction, decision };
        });
    };

    Object.defineProperties(fn, {
        engine: { get: () => lone.engine },
        record: { get: () => lone.record },
        engineOf: { value: (id) => stateOf(id, false)?.engine },
        recordOf: { value: (id) => stateOf(id, false)?.record },
        // A conversation is over: its engine is freed and its state dropped.
        forget: {
            value: (id) => {
                const c = stateOf(id, false);
                if (c === undefined) return;
                serial(c, () => {
                    c.engine?.free();
                    c.engine = undefined;
                    c.sent = [];
                    c.caller = [];
                    c.index = new Map();
                    c.next = 0;
                    c.record = undefined;
                    c.usage = undefined;
                    c.kept = false;
                });
                if (id !== undefined) conversations.delete(id);
            },
        },
        promptTooLong: { value: promptTooLong },
        // What a stateless route persists between requests, as plain JSON:
        // the view the last step sent, as a record (what replaced the
        // caller's first messages: a summary, or nothing when Tier 2 only
        // dropped the oldest turns), and the last step's usage, which
        // counts that view. When a tier changed a message of the tail (a
        // cleared tool output), the view is no record, and the usage, which
        // counted it, would not count the history the next request
        // rebuilds: the state then holds the last compaction's record only.
        stateOf: {
            value: (id) => {
                const c = stateOf(id, false);
                const view = c === undefined ? undefined : sentAsRecord(c);
                const record = view === undefined ? c?.record : view.messages.length === 0 && view.cut === 0 ? undefined : view;
                const state = {};
                if (record !== undefined) state.record = record;
                if (view !== undefined && c.usage !== undefined) state.usage = c.usage;
                return JSON.parse(JSON.stringify(state));
            },
        },
    });
    // generateText's `onStepEnd` (or call it from yours): the last step's
    // usage reaches the next call's first step too, and `stateOf`.
    const onStepEnd = (step) => {
        const c = stateOf(idOf(step), false);
        if (c === undefined) return;
        c.pending = step?.usage;
        if (Number.isSafeInteger(step?.usage?.inputTokens)) c.usage = step.usage;
    };
    Object.defineProperties(fn, { onStepEnd: { value: onStepEnd }, onStepFinish: { value: onStepEnd } });
    return fn;
}
