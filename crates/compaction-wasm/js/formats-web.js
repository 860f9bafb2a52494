// Entry `context-compaction/formats/web`: the engine with the provider
// formats (`new Engine({ format: "openai-chat" })`, …) with no top-level
// `await`, for bundlers, workers and edge runtimes, as `/web` is for the
// engine. Call `await init(input)` or `initSync({ module })` once before
// anything else. `input`: the .wasm's URL (default: next to this file), a
// `Response`, its bytes, or a compiled `WebAssembly.Module` (workerd:
// `import wasm from "context-compaction/compaction_formats_bg.wasm"`).
import wbgInit, { initSync as wbgInitSync } from "./compaction_formats.js";
import { Engine as Guarded } from "./compaction_formats.js";
import { guard } from "./guard.js";

guard(Guarded, "Engine");

export * from "./compaction_formats.js";

export default async function init(input) {
  const given = input !== null && typeof input === "object" && "module_or_path" in input;
  const module_or_path = given ? input.module_or_path : (input ?? new URL("./compaction_formats_bg.wasm", import.meta.url));
  return wbgInit({ module_or_path });
}

export { init };

export function initSync(input) {
  const given = input !== null && typeof input === "object" && "module" in input;
  return wbgInitSync(given ? input : { module: input });
}
