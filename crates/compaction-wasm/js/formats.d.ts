// Types of `context-compaction/formats`: exactly those wasm-bindgen generates
// from the Rust bindings built with the provider formats
// (compaction_formats.d.ts: the engine's API, whose `EngineSettings.format`
// takes every format), and the one generic view of an `Engine` whose
// `format` is another SDK's.
export * from "./compaction_formats.js";
export { isPromptTooLong, promptTooLongTokens } from "./overflow.js";
import type { Engine, ReplyUsage, SummaryRequest } from "./compaction_formats.js";

/** An `Engine` whose history is in another SDK's shape `M` (the setting
 * `format`): `load`, `append` and `messages()` speak `M`, and every message
 * no tier touched comes back as the very object you gave. The typed
 * constructors are in `context-compaction/ai-sdk`, `context-compaction/openai`
 * and `context-compaction/langchain`. */
export interface FormatEngine<M, U extends object = ReplyUsage> extends Omit<Engine, "append" | "load" | "messages" | "summaryMessages"> {
    /** Appends one message or item; returns the engine's uuid for it (a
     * leading system message becomes the system prompt). `usage`: what the
     * API reported for the request this reply answered, in the SDK's shape
     * (`U`); the message must be an assistant message. */
    append(message: M, usage?: U | null): string;
    /** Appends a history (all or nothing); returns how many view messages
     * it made. `usage`: what the API reported for the model reply among
     * them (it goes to their last assistant message). */
    load(messages: readonly M[], usage?: U | null): number;
    /** The messages to send now, in the format. */
    messages(): M[];
    /** A summary request's messages in the format, for your own model:
     * send `[...engine.summaryMessages(request), { role: "user", content:
     * request.prompt }]` (LangChain: a `human` stored message). */
    summaryMessages(request: SummaryRequest): M[];
}
