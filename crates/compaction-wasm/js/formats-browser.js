// Browser (and bundler) entry of `context-compaction/formats`: the engine
// with the provider formats. Fetches its own module's .wasm next to this file
// before its exports are used (top-level await). Import it (or `/ai-sdk`,
// `/openai`, `/langchain`, which are built on it) only where a history is in
// another SDK's shape: agents on Anthropic messages never download it.
import init from "./compaction_formats.js";
import { Engine as Guarded, __classify } from "./compaction_formats.js";
import { guard, overflow } from "./guard.js";

guard(Guarded, "Engine");

const url = new URL("./compaction_formats_bg.wasm", import.meta.url);
try {
  await init({ module_or_path: url });
} catch (e) {
  throw new Error(`context-compaction/formats: could not load ${url} (${e?.message ?? e}).`, { cause: e });
}

export * from "./compaction_formats.js";
export const { isPromptTooLong, promptTooLongTokens } = overflow(__classify);
