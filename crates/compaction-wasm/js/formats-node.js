// Node entry of `context-compaction/formats`: the engine with the provider
// formats (`new Engine({ format: "ai-sdk" })`, `plan({ format })`). Loads its
// own module's .wasm synchronously from disk; `context-compaction` (Anthropic
// messages only) does not load it. `/ai-sdk`, `/openai` and `/langchain` are
// built on this entry.
import { readFileSync } from "node:fs";
import { initSync } from "./compaction_formats.js";
import { Engine as Guarded, __classify } from "./compaction_formats.js";
import { guard, overflow } from "./guard.js";

guard(Guarded, "Engine");

initSync({ module: readFileSync(new URL("./compaction_formats_bg.wasm", import.meta.url)) });

export * from "./compaction_formats.js";
export const { isPromptTooLong, promptTooLongTokens } = overflow(__classify);
