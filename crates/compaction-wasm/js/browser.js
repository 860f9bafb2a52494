// Browser (and bundler) entry: fetches the engine module's .wasm next to this
// file before the module's exports are used (top-level await). Bundlers that
// do not copy that file (esbuild) want `context-compaction/web` instead.
import init from "./compaction_wasm.js";
import { Engine as Guarded, __classify } from "./compaction_wasm.js";
import { guard, overflow } from "./guard.js";

guard(Guarded, "Engine");

const url = new URL("./compaction_wasm_bg.wasm", import.meta.url);
try {
  await init({ module_or_path: url });
} catch (e) {
  throw new Error(
    `context-compaction: could not load ${url} (${e?.message ?? e}). With a bundler that does not copy the .wasm ` +
      `(esbuild), import from "context-compaction/web" and call init(wasmUrl) or initSync({ module }) first.`,
    { cause: e },
  );
}

export * from "./compaction_wasm.js";
export const { isPromptTooLong, promptTooLongTokens } = overflow(__classify);
