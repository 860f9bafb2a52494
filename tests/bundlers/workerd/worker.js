// A Cloudflare-style worker (workerd): the .wasm is a module the runtime
// compiled, given to initSync at startup; no fetch, no top-level await.
import wasm from "context-compaction/compaction_wasm_bg.wasm";
import { initSync, Engine, thresholds, isPromptTooLong } from "context-compaction/web";

initSync({ module: wasm });

export default {
  async fetch() {
    const engine = new Engine({ preset: "seed", window: 200_000 });
    engine.append({ role: "user", content: "hello from workerd" });
    const decision = await engine.prepare({ summarize: async () => "<summary>none</summary>" });
    const body = {
      compact: thresholds({ window: 200_000, maxOutputTokens: 20_000 }).compact,
      status: decision.status.kind,
      messages: engine.messages().length,
      overflow: isPromptTooLong({ status: 400, type: "invalid_request_error", message: "prompt is too long: 5 tokens > 4 maximum" }),
    };
    return new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
  },
};
