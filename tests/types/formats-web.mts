// `context-compaction/formats/web` as a bundler or worker user types it:
// init's inputs, initSync's, and the API of `/formats` (the `format`
// setting takes every format; `FormatEngine` is there).
import init, { initSync, Engine, plan, type FormatEngine, type WasmSource, type Decision } from "context-compaction/formats/web";

declare const wasmUrl: string;
declare const compiled: WebAssembly.Module;
declare const bytes: Uint8Array;

type Chat = { role: "user" | "assistant"; content: string | null };

async function start(): Promise<Decision> {
  const source: WasmSource = wasmUrl;
  await init();
  await init(source);
  await init(fetch(wasmUrl));
  await init({ module_or_path: compiled });
  initSync({ module: compiled });
  initSync(bytes);
  const engine = new Engine({ format: "openai-chat", window: 50_000 });
  const typed: FormatEngine<Chat> | undefined = undefined;
  console.log(typed, plan({ format: "langchain" }, "[]").status.kind);
  try {
    return await engine.prepare({ summarize: async () => "<summary>s</summary>" });
  } finally {
    engine.free();
  }
}
console.log(start);
