// Types of context-compaction/ai-sdk, written against the AI SDK's own
// (`ai`): the history is `ModelMessage[]`, `prepareStep` is a
// `PrepareStepFunction`.
import type { LanguageModel, ModelMessage, PrepareStepFunction, ToolSet } from "ai";
import type { Answer, Decision, EngineSettings, FormatEngine, Host, MessageParam, PresetName, SummaryRequest } from "./formats.js";

/** Settings of an engine over `ModelMessage`s (the format is fixed). */
export type AiSdkSettings = Omit<EngineSettings, "format"> | PresetName;

/** A new engine whose history is `ModelMessage`s: `load`, `append` and
 * `messages()` speak them; untouched messages come back as your objects. */
export declare function createEngine(settings?: AiSdkSettings): FormatEngine<ModelMessage>;

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

/** Options of `prepareStep`. */
export interface PrepareStepOptions {
    /** The engine's settings (default: the seed preset, a 200,000-token window). */
    settings?: AiSdkSettings;
    /** Writes a summary. Default: the step's own model, through `generateText`,
     * given `transcript(request.messages)` and the request's prompt. */
    summarize?: (request: SummaryRequest, model: LanguageModel) => Promise<string | Answer> | string | Answer;
    /** The rest of the host (`readFiles`, `preCompact`, `postCompactHooks`, `precompute`). */
    host?: Omit<Host, "summarize" | "now">;
    /** The clock (default: `new Date().toISOString()`). */
    now?: () => string;
    /** A record an earlier request made (`onRecord`). */
    record?: CompactionRecord;
    /** Called with each new record: persist it beside your messages. */
    onRecord?: (record: CompactionRecord) => void;
    /** Called with every step's decision. */
    onDecision?: (decision: Decision) => void;
}

/** The step function, with the engine it keeps and the last record. It
 * only returns `{ messages }`, so it is a step function for any tool set:
 * `prepareStep()` needs no type argument to go beside `tools` (`TOOLS` is
 * the set it is checked against first; any other set is accepted too). */
export type CompactingPrepareStep<TOOLS extends ToolSet = ToolSet> = {
    <T extends ToolSet = TOOLS>(options: Parameters<PrepareStepFunction<T>>[0]): ReturnType<PrepareStepFunction<T>>;
    /** The one engine kept across steps (undefined before the first step). */
    readonly engine: FormatEngine<ModelMessage> | undefined;
    /** The last compaction's record, if any. */
    readonly record: CompactionRecord | undefined;
};

/** An AI SDK `prepareStep` that compacts: one engine across steps, fed only
 * what is new; returns `{ messages }`, smaller once the history is over the
 * line. */
export declare function prepareStep<TOOLS extends ToolSet = ToolSet>(options?: PrepareStepOptions): CompactingPrepareStep<TOOLS>;
