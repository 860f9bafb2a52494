// context-compaction/openai: the engine over OpenAI Chat Completions
// messages and Responses input items (settings.format "openai-chat" and
// "openai-responses"); the conversion is the engine's.
import { Engine, plan } from "context-compaction/formats";

const settingsObject = (settings) =>
    settings === undefined ? {} : typeof settings === "string" ? { preset: settings } : settings;

/** A new engine whose history is Chat Completions messages. */
export function chatEngine(settings) {
    return new Engine({ ...settingsObject(settings), format: "openai-chat" });
}

/** A new engine whose history is Responses input items (load a response's
 * whole `output` at once: its reasoning stays with the call it precedes). */
export function responsesEngine(settings) {
    return new Engine({ ...settingsObject(settings), format: "openai-responses" });
}

/** The stateless dry run over Chat Completions messages. */
export function planChat(settings, messages, now) {
    return plan({ ...settingsObject(settings), format: "openai-chat" }, messages, now);
}

/** The stateless dry run over Responses input items. */
export function planResponses(settings, items, now) {
    return plan({ ...settingsObject(settings), format: "openai-responses" }, items, now);
}
