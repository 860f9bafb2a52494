// Types of context-compaction/openai, written against the `openai` SDK's own.
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import type { Decision, EngineSettings, FormatEngine, PresetName } from "./formats.js";

/** Settings of an engine over OpenAI shapes (the format is fixed). */
export type OpenAISettings = Omit<EngineSettings, "format"> | PresetName;

/** A new engine whose history is Chat Completions messages. */
export declare function chatEngine(settings?: OpenAISettings): FormatEngine<ChatCompletionMessageParam>;

/** A new engine whose history is Responses input items. */
export declare function responsesEngine(settings?: OpenAISettings): FormatEngine<ResponseInputItem>;

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
