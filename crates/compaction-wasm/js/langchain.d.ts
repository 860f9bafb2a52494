// Types of context-compaction/langchain, written against `@langchain/core`'s own.
import type { StoredMessage, UsageMetadata } from "@langchain/core/messages";
import type { Decision, EngineSettings, FormatEngine, PresetName } from "./formats.js";

/** Settings of an engine over stored messages (the format is fixed). */
export type LangChainSettings = Omit<EngineSettings, "format"> | PresetName;

/** A new engine whose history is LangChain stored messages (an `ai`
 * message's own `usage_metadata` is its reported usage). */
export declare function langchainEngine(settings?: LangChainSettings): FormatEngine<StoredMessage, UsageMetadata>;

/** The stateless dry run over stored messages. */
export declare function planLangchain(
    settings: LangChainSettings | undefined,
    messages: StoredMessage[] | string,
    now?: string,
): Decision;
