// Entry `context-compaction/web`: the engine with no top-level `await`, for
// bundlers (esbuild, Vite, webpack), workers and edge runtimes. Call
// `await init(input)` or `initSync({ module })` once before anything else.
// `input`: the .wasm's URL (default: next to this file), a `Response`, its
// bytes, or an already compiled `WebAssembly.Module` (workerd, Cloudflare
// Workers: `import wasm from "context-compaction/compaction_wasm_bg.wasm"`).
import wbgInit, { initSync as wbgInitSync } from "./compaction_wasm.js";
import { Engine as Guarded } from "./compaction_wasm.js";
import { guard } from "./guard.js";

guard(Guarded, "Engine");

export * from "./compaction_wasm.js";

export default async function init(input) {
  const given = input !== null && typeof input === "object" && "module_or_path" in input;
  const module_or_path = given ? input.module_or_path : (input ?? new URL("./compaction_wasm_bg.wasm", import.meta.url));
  return wbgInit({ module_or_path });
}

export { init };

export function initSync(input) {
  const given = input !== null && typeof input === "object" && "module" in input;
  return wbgInitSync(given ? input : { module: input });
}
