// context-compaction/langchain: the engine over LangChain's stored messages
// (`{ type, data }`, from `mapChatMessagesToStoredMessages`; back with
// `mapStoredMessagesToChatMessages`). The conversion is the engine's.
import { Engine, plan } from "context-compaction/formats";

const settingsObject = (settings) =>
    settings === undefined ? {} : typeof settings === "string" ? { preset: settings } : settings;

/** A new engine whose history is LangChain stored messages. */
export function langchainEngine(settings) {
    return new Engine({ ...settingsObject(settings), format: "langchain" });
}

/** The stateless dry run over stored messages. */
export function planLangchain(settings, messages, now) {
    return plan({ ...settingsObject(settings), format: "langchain" }, messages, now);
}
