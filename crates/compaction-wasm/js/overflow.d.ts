// Types of the entries' `isPromptTooLong` and `promptTooLongTokens`
// (guard.js `overflow`, over each module's classifier), re-exported by
// index.d.ts, web.d.ts and formats.d.ts.

/**
 * `true` when `error` says the prompt did not fit the model's context
 * window (SPEC R8.1): the Anthropic API's HTTP 400 `invalid_request_error`
 * "prompt is too long: N tokens > M maximum" (as `@anthropic-ai/sdk`
 * throws it), Claude Code's 413 `prompt_too_long`, a reply whose
 * `stop_reason` is `model_context_window_exceeded`, OpenAI's
 * `context_length_exceeded`, and the 400s of OpenAI-compatible local
 * servers (vLLM's "maximum context length is N tokens", llama.cpp's
 * `exceed_context_size_error`, Ollama's), as the `openai` package or the AI
 * SDK's `APICallError` carries them, and through the errors that wrap them
 * (`cause`, LangChain's `ContextOverflowError`, the AI SDK's `RetryError`).
 * `false` for everything else, including other 400s and a 413
 * `request_too_large`. Then call
 * `engine.promptTooLong(promptTooLongTokens(error))`.
 */
export function isPromptTooLong(error: unknown): boolean;
/**
 * The prompt's real size in tokens when `error` is a prompt-too-long that
 * states it ("prompt is too long: 236175 tokens > 200000 maximum" →
 * 236175); otherwise `null`. Give it to `engine.promptTooLong(tokens)`,
 * which recalibrates the count to it (SPEC R8.1).
 */
export function promptTooLongTokens(error: unknown): number | null;
