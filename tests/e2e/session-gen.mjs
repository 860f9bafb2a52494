// A Claude Code session file for the browser benchmarks: `n` messages of
// prompts, tool calls and results, with usage (the shape of a real session,
// generated so that any size can be asked for). `resultLines` sets how big
// each tool result is (60 lines ≈ 1 KB; 600 ≈ 9 KB per result).
export function session(n, { resultLines = 60 } = {}) {
  const lines = [];
  let parent = null;
  let tokens = 3_000;
  const t0 = Date.parse("2026-01-01T00:00:00Z");
  for (let i = 0; i < n; i++) {
    const uuid = `m-${i}`;
    const timestamp = new Date(t0 + i * 20_000).toISOString();
    const base = { parentUuid: parent, uuid, sessionId: "bench", version: "2.1.0", timestamp, isSidechain: false };
    if (i % 2 === 0) {
      const content = i % 4 === 0
        ? `Step ${i}: keep refactoring module ${i % 37}. ` + "context ".repeat(40)
        : [{ type: "tool_result", tool_use_id: `toolu_${i - 1}`, content: `file ${i}\n` + "line of output\n".repeat(resultLines) }];
      lines.push({ ...base, type: "user", message: { role: "user", content } });
    } else {
      tokens += 450;
      const content = i % 4 === 1
        ? [{ type: "tool_use", id: `toolu_${i}`, name: "Read", input: { file_path: `src/module_${i % 37}.rs` } }]
        : [{ type: "text", text: "Done; next step. ".repeat(20) }];
      lines.push({ ...base, type: "assistant", message: {
        id: `msg_${i}`, role: "assistant", model: "claude-sonnet-4", content,
        usage: { input_tokens: 10, cache_read_input_tokens: tokens, cache_creation_input_tokens: 0, output_tokens: 80 },
      } });
    }
    parent = uuid;
  }
  return Buffer.from(lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
}
