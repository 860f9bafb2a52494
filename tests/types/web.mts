// `context-compaction/web` as a bundler or worker user types it: init's
// inputs, initSync's, and the same API as the main entry.
import init, { initSync, Engine, isPromptTooLong, type Decision } from "context-compaction/web";

declare const wasmUrl: string;
declare const compiled: WebAssembly.Module;
declare const bytes: Uint8Array;

async function start(): Promise<Decision> {
  await init();
  await init(wasmUrl);
  await init(new URL("./x.wasm", "https://example.com/"));
  await init(fetch(wasmUrl));
  await init({ module_or_path: compiled });
  initSync({ module: compiled });
  initSync(bytes);
  const engine = new Engine("seed");
  try {
    return await engine.prepare({ summarize: async () => "<summary>s</summary>" });
  } catch (e) {
    if (isPromptTooLong(e)) engine.promptTooLong();
    throw e;
  } finally {
    engine.free();
  }
}
console.log(start);

// `context-compaction/session/web`: the same two ways in, then the session API.
import initSession, * as sessionWeb from "context-compaction/session/web";
import type { Session } from "context-compaction/session/web";

async function readFile(text: string): Promise<Session> {
  await initSession(wasmUrl);
  sessionWeb.initSync({ module: compiled });
  const importer = new sessionWeb.SessionImporter();
  importer.feed(text);
  const fed: Session = importer.finish();
  return fed.report.records > 0 ? fed : sessionWeb.readSession(text);
}
console.log(readFile);
