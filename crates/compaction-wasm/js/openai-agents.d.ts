// Types of context-compaction/openai-agents, written against the OpenAI
// Agents SDK's own (`@openai/agents`): the history is `AgentInputItem[]`,
// the filter is a `CallModelInputFilter`.
import type { AgentInputItem, CallModelInputFilter, RunContext } from "@openai/agents";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import type { Answer, Decision, EngineSettings, Host, Outcome, PresetName, SummaryRequest } from "./formats.js";
import type { ResponsesEngine } from "./openai.js";

export { isPromptTooLong, promptTooLongTokens } from "./formats.js";

/** Settings of the engine (the format is fixed: Responses items). */
export type AgentsSettings = Omit<EngineSettings, "format"> | PresetName;

/** Options of `agentsCompaction`. */
export interface AgentsCompactionOptions<TContext = unknown> {
    /** The engine's settings (default: the seed preset, a 200,000-token window). */
    settings?: AgentsSettings;
    /** Writes a summary of `messages` (the request's, as `AgentInputItem`s;
     * send them, then `request.prompt` as a user message). Default: the
     * filtered agent's own model, through `run` of a tool-less agent, its
     * reply held to the engine's reserve (`lines().reserve`). */
    summarize?: (request: SummaryRequest, messages: AgentInputItem[]) => Promise<string | Answer> | string | Answer;
    /** The rest of the host (`readFiles`, `preCompact`, `postCompactHooks`, `precompute`, `onPrecompute`, `now`). */
    host?: Omit<Host, "summarize">;
    /** Called with every model call's decision. */
    onDecision?: (decision: Decision) => void;
    /** The run's context value (or a `RunContext` of your own): it is
     * wrapped in the `RunContext` this returns. */
    context?: TContext | RunContext<TContext>;
}

/** What a refused call's recovery did (see `promptTooLong`). */
export interface AgentsPromptTooLongOutcome extends Outcome {
    decision?: Decision;
}

/** One conversation's compaction: pass `callModelInputFilter` and
 * `context` to every `run` of the conversation. */
export interface AgentsCompaction<TContext = unknown> {
    /** Before each model call: feeds the engine the items that are new
     * since the last call (with the usage the SDK recorded for the call
     * before), prepares the call (compacting when the count is over a
     * line) and returns the items to send; every item no tier touched is
     * the SDK's own object. */
    readonly callModelInputFilter: CallModelInputFilter<TContext>;
    /** The run's `RunContext`: its usage entries are the engine's usage. */
    readonly context: RunContext<TContext>;
    /** The engine (undefined before the first model call). */
    readonly engine: ResponsesEngine | undefined;
    /** A model call was refused as too long (`run` rejected with `error`,
     * `isPromptTooLong(error)`): runs the engine's reactive tier (SPEC
     * R8.1) over `input`, the input you run again with (a run refused
     * after its tools ran is tried from its input again: the SDK keeps no
     * state of a failed run), and answers its requests; then `run` again
     * with that input. Default: the history the engine holds.
     * `compaction.kind === "failed"`: nothing left to try. An error that
     * is no refusal is `INVALID_ARGUMENT`. */
    promptTooLong(error?: unknown, input?: AgentInputItem[]): Promise<AgentsPromptTooLongOutcome>;
    /** The conversation is over: the engine is freed. */
    free(): Promise<void>;
}

/** The compaction of one conversation of an `Agent`, for
 * `run(agent, input, { callModelInputFilter, context })`. */
export declare function agentsCompaction<TContext = unknown>(options?: AgentsCompactionOptions<TContext>): AgentsCompaction<TContext>;

/** An `AgentInputItem` as the Responses API spells it (what the engine reads). */
export declare function toResponsesItem(item: AgentInputItem): ResponseInputItem;
