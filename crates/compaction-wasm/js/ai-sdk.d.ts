// Types of context-compaction/ai-sdk, written against the AI SDK's own
// (`ai`): the history is `ModelMessage[]`, `prepareStep` is a
// `PrepareStepFunction`.
import type { LanguageModel, LanguageModelUsage, ModelMessage, PrepareStepFunction, StepResult, ToolSet } from "ai";
import type { Answer, Decision, EngineSettings, FormatEngine, Host, MessageParam, Outcome, PresetName, SummaryRequest } from "./formats.js";

export { isPromptTooLong, promptTooLongTokens } from "./formats.js";

/** An engine over `ModelMessage`s: `append(message, usage)` and
 * `load(messages, usage)` take a step's `LanguageModelUsage`. */
export type AiSdkEngine = FormatEngine<ModelMessage, LanguageModelUsage>;

/** Settings of an engine over `ModelMessage`s (the format is fixed). */
export type AiSdkSettings = Omit<EngineSettings, "format"> | PresetName;

/** A new engine whose history is `ModelMessage`s: `load`, `append` and
 * `messages()` speak them; untouched messages come back as your objects. */
export declare function createEngine(settings?: AiSdkSettings): AiSdkEngine;

/** The stateless dry run over a `ModelMessage[]` history. */
export declare function plan(settings: AiSdkSettings | undefined, messages: ModelMessage[] | string, now?: string): Decision;

/** The messages of a summary request as one text (what the default
 * summariser sends, then the request's prompt). */
export declare function transcript(messages: MessageParam[]): string;

/** What a compaction left, for apps that persist their history
 * (`UIMessage[]` converted with `convertToModelMessages`): pass it back as
 * `prepareStep({ record })` and a later request starts from the summary
 * instead of summarising again. Plain JSON. */
export interface CompactionRecord {
    /** The summary (and what the engine restored after it), as `ModelMessage`s. */
    messages: ModelMessage[];
    /** How many of your history's first messages they replace. */
    cut: number;
    /** The count after the compaction. */
    tokens: number;
    /** When (RFC 3339). */
    at: string;
}

/** What a stateless route persists between requests (`stateOf(id)`):
 * plain JSON, to put in the reply's metadata and pass back as
 * `prepareStep({ state })`. */
export interface ConversationState {
    /** The view the last step sent, as a record (what replaced your first
     * messages), or the last compaction's record; absent when nothing did. */
    record?: CompactionRecord;
    /** The usage of the call's last step, which counts that view (absent
     * when a tier rewrote a message of the view's tail). */
    usage?: LanguageModelUsage;
}

/** Options of `prepareStep` (each may be given as `undefined`, as under
 * `exactOptionalPropertyTypes` a value read from elsewhere often is). */
export interface PrepareStepOptions {
    /** The engine's settings (default: the seed preset, a 200,000-token window). */
    settings?: AiSdkSettings | undefined;
    /** Writes a summary. Default: the step's own model, through `generateText`,
     * given `transcript(request.messages)` and the request's prompt. */
    summarize?: ((request: SummaryRequest, model: LanguageModel) => Promise<string | Answer> | string | Answer) | undefined;
    /** The rest of the host (`readFiles`, `preCompact`, `postCompactHooks`,
     * `precompute`, `onPrecompute`). The background precompute is asked for
     * only by a conversation's engine that served an earlier call (a step
     * function made per request, in a stateless route, never asks for one)
     * unless `precompute` says otherwise. */
    host?: Omit<Host, "summarize" | "now"> | undefined;
    /** The clock (default: `new Date().toISOString()`). */
    now?: (() => string) | undefined;
    /** A record an earlier request made (`onRecord`); with conversations,
     * a function from the conversation's id to its record (called once, at
     * the conversation's first step). */
    record?: CompactionRecord | ((conversationId: string | undefined) => CompactionRecord | undefined) | undefined;
    /** A stateless route's state from the last request (`stateOf`), or,
     * with conversations, a function from the conversation's id to it
     * (called once, at the conversation's first step): the first step
     * starts from its record and counts from its usage. A bad one is
     * `INVALID_ARGUMENT` naming `state.<field>`. Its record wins over
     * `record`. */
    state?: ConversationState | ((conversationId: string | undefined) => ConversationState | undefined) | undefined;
    /** Called with each new record (and the conversation's id): persist it
     * beside your messages. */
    onRecord?: ((record: CompactionRecord, conversationId: string | undefined) => void) | undefined;
    /** Called with every step's decision (and the conversation's id). */
    onDecision?: ((decision: Decision, conversationId: string | undefined) => void) | undefined;
    /** Which conversation a step (the `prepareStep` options) or a finished
     * step (`onStepFinish`'s step) belongs to: each conversation has its own
     * engine, and its steps run one at a time while other conversations'
     * run at once. Default: `runtimeContext.conversationId` (pass
     * `runtimeContext: { conversationId }` to `generateText`/`streamText`,
     * or set it in a `ToolLoopAgent`'s `prepareCall`). `undefined`: the one
     * conversation of calls that give no id. Anything but a string or
     * `undefined` is `INVALID_ARGUMENT` (`field` `conversationId`). */
    conversationId?: ((from: { readonly runtimeContext?: unknown }) => string | undefined) | undefined;
}

/** The step function, with the engine it keeps and the last record. It
 * only returns `{ messages }`, so it is a step function for any tool set
 * and any `runtimeContext` type:
 * `prepareStep()` needs no type argument to go beside `tools` (`TOOLS` is
 * the set it is checked against first; any other set is accepted too). */
export type CompactingPrepareStep<TOOLS extends ToolSet = ToolSet> = {
    <T extends ToolSet = TOOLS, C extends Record<string, unknown> = Record<string, unknown>>(
        options: Parameters<PrepareStepFunction<T, C>>[0],
    ): ReturnType<PrepareStepFunction<T, C>>;
    /** The engine kept across steps of the calls that give no conversation
     * id (undefined before their first step). */
    readonly engine: AiSdkEngine | undefined;
    /** Their last compaction's record, if any. */
    readonly record: CompactionRecord | undefined;
    /** A conversation's engine (undefined before its first step, or after
     * `forget`). */
    engineOf(conversationId: string | undefined): AiSdkEngine | undefined;
    /** A conversation's last compaction's record, if any. */
    recordOf(conversationId: string | undefined): CompactionRecord | undefined;
    /** The conversation is over: its engine is freed (after its pending
     * step) and its state dropped. */
    forget(conversationId: string | undefined): void;
    /** The model call of a step was refused as too long: `generateText`
     * rejected with `error` (`isPromptTooLong(error)`). Runs the engine's
     * reactive tier (SPEC R8.1: collapse recovery first, on the next
     * refusal an emergency compaction, after that `compaction.kind ===
     * "failed"`), the count recalibrated to the size the error states, and
     * answers its requests through the step's host (the same summariser);
     * then call `generateText` again with the same history. An error that
     * is not a refusal is thrown back (`INVALID_ARGUMENT`), as is a call
     * before any step ran; a failing summariser rejects as in `prepare()`
     * (`SUMMARIZER_FAILED`). */
    promptTooLong(error?: unknown, conversationId?: string): Promise<PromptTooLongOutcome>;
    /** Pass as `generateText`'s or `streamText`'s `onStepEnd` (or call it
     * from yours): the usage of the last step of a call reaches the next
     * call's first step (the steps within one call need nothing) and
     * `stateOf`; the step's `runtimeContext` says whose. */
    onStepEnd(step: Pick<StepResult<ToolSet>, "usage"> & { readonly runtimeContext?: unknown }): void;
    /** `onStepEnd` under its deprecated ai@7 name. */
    onStepFinish(step: Pick<StepResult<ToolSet>, "usage"> & { readonly runtimeContext?: unknown }): void;
    /** What a stateless route persists for the next request (plain JSON):
     * the view the last step sent, as a record, and the usage that counts
     * it; pass it back as `prepareStep({ state })`. */
    stateOf(conversationId?: string): ConversationState;
};

/** What `promptTooLong(error)` did: the reactive tier's outcome, with the
 * decision of the preparation that answered its requests (absent when the
 * tier had nothing left: `compaction.kind === "failed"`, end the run). */
export interface PromptTooLongOutcome extends Outcome {
    decision?: Decision;
}

/** An AI SDK `prepareStep` that compacts: one engine per conversation
 * (`conversationId`) across steps (and
 * across `generateText` calls that pass the same history on: your own
 * messages, or copies of the ones the SDK gave you), fed only what is new
 * with the usage the step before reported; returns `{ messages,
 * maxOutputTokens }`: the messages, smaller once the history is over the
 * line, and the reply's room the count was made for (`settings.maxOutputTokens`,
 * else the engine's reserve), which takes the place of the call's own. */
export declare function prepareStep<TOOLS extends ToolSet = ToolSet>(options?: PrepareStepOptions): CompactingPrepareStep<TOOLS>;
