// What every bundled formats page runs once the formats module is loaded: a
// Chat Completions history (tool calls, `content: null`, `role: "tool"`)
// driven through a compaction, and an error; results on window.
import { Engine, thresholds } from "context-compaction/formats/web";

export async function run() {
  const results = { compact: thresholds({ window: 200_000, maxOutputTokens: 20_000 }).compact };
  const engine = new Engine({ format: "openai-chat", preset: "client-2.1", window: 50_000, maxOutputTokens: 4_000 });
  const history = [{ role: "system", content: "You are terse." }];
  for (let i = 0; i < 24; i++) {
    history.push({ role: "user", content: `question ${i}: ${"q".repeat(4_000)}` });
    history.push({ role: "assistant", content: null, tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "read", arguments: "{}" } }] });
    history.push({ role: "tool", tool_call_id: `call_${i}`, content: `result ${i}: ${"r".repeat(2_000)}` });
    history.push({ role: "assistant", content: `answer ${i}` });
  }
  engine.load(history);
  const asked = [];
  const decision = await engine.prepare({
    summarize: async (request) => {
      asked.push(request.purpose.kind);
      return "<summary>the story so far</summary>";
    },
  });
  results.asked = asked;
  results.status = decision.status.kind;
  const messages = engine.messages();
  results.viewLength = messages.length;
  results.first = messages[0];
  results.last = messages[messages.length - 1];
  try {
    engine.append({ role: "robot", content: 1 });
  } catch (e) {
    results.error = { isError: e instanceof Error, code: e.code };
  }
  return results;
}
