// What every bundled page runs once the engine is loaded: the lines, an
// Engine driven through a compaction, and an error; results on window.
import { Engine, thresholds } from "context-compaction/web";

export async function run() {
  const results = { compact: thresholds({ window: 200_000, maxOutputTokens: 20_000 }).compact };
  const engine = new Engine({ preset: "client-2.1", window: 50_000, maxOutputTokens: 4_000 });
  for (let i = 0; i < 17; i++) {
    engine.append({ role: "user", content: `question ${i}: ${"q".repeat(4_000)}` });
    engine.append({ role: "assistant", content: `answer ${i}: ${"a".repeat(4_000)}` });
  }
  const asked = [];
  const decision = await engine.prepare({
    summarize: async (request) => {
      asked.push(request.purpose.kind);
      return "<summary>the story so far</summary>";
    },
  });
  results.asked = asked;
  results.status = decision.status.kind;
  results.viewLength = engine.messages().length;
  try {
    engine.append({ role: "robot", content: 1 });
  } catch (e) {
    results.error = { isError: e instanceof Error, code: e.code };
  }
  return results;
}
