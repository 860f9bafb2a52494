// Node entry: loads the engine module's .wasm synchronously from disk (session
// files are the separate `context-compaction/session`).
import { readFileSync } from "node:fs";
import { initSync } from "./compaction_wasm.js";
import { Engine as Guarded, __classify } from "./compaction_wasm.js";
import { guard, overflow } from "./guard.js";

guard(Guarded, "Engine");

initSync({ module: readFileSync(new URL("./compaction_wasm_bg.wasm", import.meta.url)) });

export * from "./compaction_wasm.js";
export const { isPromptTooLong, promptTooLongTokens } = overflow(__classify);
