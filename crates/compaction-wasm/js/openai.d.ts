// Types of context-compaction/openai, written against the `openai` SDK's own.
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import type { ResponseInputItem, ResponseOutputItem, ResponseUsage } from "openai/resources/responses/responses";
import type { Decision, EngineSettings, FormatEngine, PresetName } from "./formats.js";

/** Settings of an engine over OpenAI shapes (the format is fixed). */
export type OpenAISettings = Omit<EngineSettings, "format"> | PresetName;

/** A new engine whose history is Chat Completions messages:
 * `append(completion.choices[0].message, completion.usage)`. */
export declare function chatEngine(settings?: OpenAISettings): FormatEngine<ChatCompletionMessageParam, CompletionUsage>;

/** An engine whose history is Responses input items, where a response's
 * `output` items go in as they are (`load(response.output, response.usage)`):
 * the API takes them back as input, and the SDK types them apart
 * (`ResponseOutputItem`). */
export interface ResponsesEngine extends Omit<FormatEngine<ResponseInputItem, ResponseUsage>, "append" | "load"> {
    /** Appends one item; returns the engine's uuid for it. `usage`: what
     * the API reported for the response this reply item came from. */
    append(item: ResponseInputItem | ResponseOutputItem, usage?: ResponseUsage | null): string;
    /** Appends items (all or nothing), a response's whole `output` at once;
     * returns how many view messages it made. `usage`: the response's
     * `usage` (it goes to their last assistant item). */
    load(items: readonly (ResponseInputItem | ResponseOutputItem)[], usage?: ResponseUsage | null): number;
}

/** A new engine whose history is Responses input items. */
export declare function responsesEngine(settings?: OpenAISettings): ResponsesEngine;

/** The stateless dry run over Chat Completions messages. */
export declare function planChat(
    settings: OpenAISettings | undefined,
    messages: ChatCompletionMessageParam[] | string,
    now?: string,
): Decision;

/** The stateless dry run over Responses input items. */
export declare function planResponses(
    settings: OpenAISettings | undefined,
    items: ResponseInputItem[] | string,
    now?: string,
): Decision;
