// Tool-heavy histories in each provider format for the format tests (the
// same shapes as the engine's own tests, crates/compaction-core/tests/it/formats/gen.rs).

const big = (turn, which, size) => {
  const line = `${which} output of turn ${turn}: lorem ipsum dolor sit amet. `;
  return line.repeat(Math.ceil(size / line.length) + 1).slice(0, size);
};

export function aiSdk(turns, size) {
  const out = [{ role: "system", content: "You are a coding agent." }];
  for (let t = 0; t < turns; t++) {
    out.push({ role: "user", content: `Task ${t}: fix the bug.`, providerOptions: { app: { turn: t } } });
    out.push({
      role: "assistant",
      content: [
        { type: "reasoning", text: `I should read f${t}.`, providerOptions: { openai: { itemId: `rs_${t}`, reasoningEncryptedContent: `gAAAAB${t}+/=enc` } } },
        { type: "text", text: "Reading." },
        { type: "tool-call", toolCallId: `call_${t}_a`, toolName: "Read", input: { file_path: `src/f${t}.rs` }, providerOptions: { google: { thoughtSignature: `sig${t}==` } } },
        { type: "tool-call", toolCallId: `call_${t}_b`, toolName: "Bash", input: { command: "cargo test" } },
      ],
      providerOptions: { app: { step: t } },
    });
    out.push({
      role: "tool",
      content: [
        { type: "tool-result", toolCallId: `call_${t}_a`, toolName: "Read", output: { type: "text", value: big(t, "read", size) } },
        { type: "tool-result", toolCallId: `call_${t}_b`, toolName: "Bash", output: { type: "json", value: { stdout: big(t, "bash", size), code: 0 } } },
      ],
    });
    if (t % 10 === 9) {
      out.push({ role: "assistant", content: [
        { type: "tool-call", toolCallId: `call_${t}_w`, toolName: "Write", input: { file_path: "x" } },
        { type: "tool-approval-request", approvalId: `ap_${t}`, toolCallId: `call_${t}_w` },
      ] });
      out.push({ role: "tool", content: [
        { type: "tool-approval-response", approvalId: `ap_${t}`, approved: true },
        { type: "tool-result", toolCallId: `call_${t}_w`, toolName: "Write", output: { type: "error-text", value: "denied by policy" } },
      ] });
    }
    out.push({ role: "assistant", content: [{ type: "text", text: `Done ${t}.` }] });
  }
  return out;
}

export function openaiChat(turns, size) {
  const out = [{ role: "developer", content: "You are a coding agent." }];
  for (let t = 0; t < turns; t++) {
    out.push({ role: "user", content: `Task ${t}: fix the bug.`, name: "dev" });
    out.push({ role: "assistant", content: null, tool_calls: [
      { id: `call_${t}_a`, type: "function", function: { name: "Read", arguments: `{"file_path":"src/f${t}.rs"}` } },
      { id: `call_${t}_b`, type: "function", function: { name: "Bash", arguments: `{"command":"cargo test"}` } },
    ] });
    out.push({ role: "tool", tool_call_id: `call_${t}_a`, content: big(t, "read", size) });
    out.push({ role: "tool", tool_call_id: `call_${t}_b`, content: [{ type: "text", text: big(t, "bash", size) }] });
    out.push({ role: "assistant", content: `Done ${t}.`, refusal: null });
  }
  return out;
}

export function openaiResponses(turns, size) {
  const out = [{ type: "message", role: "developer", content: "You are a coding agent." }];
  for (let t = 0; t < turns; t++) {
    out.push({ type: "message", role: "user", content: [{ type: "input_text", text: `Task ${t}: fix the bug.` }] });
    out.push({ type: "reasoning", id: `rs_${t}`, summary: [{ type: "summary_text", text: `Read f${t}.` }], encrypted_content: `gAAAAB${t}+/=enc` });
    for (const [k, tool] of [["a", "Read"], ["b", "Bash"]]) {
      out.push({ type: "function_call", id: `fc_${t}_${k}`, call_id: `call_${t}_${k}`, name: tool, arguments: `{"file_path":"src/f${t}.rs"}`, status: "completed" });
    }
    for (const [k, which] of [["a", "read"], ["b", "bash"]]) {
      out.push({ type: "function_call_output", call_id: `call_${t}_${k}`, output: big(t, which, size) });
    }
    out.push({ type: "message", id: `msg_${t}`, role: "assistant", status: "completed", content: [{ type: "output_text", text: `Done ${t}.`, annotations: [] }] });
  }
  return out;
}

/** Every call keeps its result, in the format's own terms; the history
 * starts with a system message, then a user message (or a compaction item). */
export function pairing(format, items) {
  let open = [];
  let first = true;
  for (const [i, v] of items.entries()) {
    let kind = "user", calls = [], results = [];
    if (format === "ai-sdk") {
      const parts = Array.isArray(v.content) ? v.content : [];
      if (v.role === "assistant") { kind = "model"; calls = parts.filter((p) => p.type === "tool-call").map((p) => p.toolCallId); }
      else if (v.role === "tool") { kind = "results"; results = parts.filter((p) => p.type === "tool-result").map((p) => p.toolCallId); }
      else if (v.role === "system") kind = "system";
    } else if (format === "openai-chat") {
      if (v.role === "assistant") { kind = "model"; calls = (v.tool_calls ?? []).map((c) => c.id); }
      else if (v.role === "tool") { kind = "results"; results = [v.tool_call_id]; }
      else if (v.role === "system" || v.role === "developer") kind = "system";
    } else if (format === "openai-responses") {
      const type = v.type ?? "message";
      if (v.role === "system" || v.role === "developer") kind = "system";
      else if ((type === "message" && v.role === "user") || type === "compaction") kind = "user";
      else if (v.call_id && type.endsWith("_output")) { kind = "results"; results = [v.call_id]; }
      else { kind = "model-cont"; if (v.call_id) calls = [v.call_id]; }
    } else if (format === "langchain") {
      if (v.type === "ai") { kind = "model"; calls = (v.data.tool_calls ?? []).map((c) => c.id); }
      else if (v.type === "tool") { kind = "results"; results = [v.data.tool_call_id]; }
      else if (v.type === "system") kind = "system";
    }
    if (kind === "system") { if (!first) throw new Error(`item ${i}: system after the start`); continue; }
    if (first && kind !== "user") throw new Error(`item ${i}: the history starts with ${kind}`);
    first = false;
    for (const id of results) {
      const at = open.indexOf(id);
      if (at < 0) throw new Error(`item ${i}: result ${id} answers no open call`);
      open.splice(at, 1);
    }
    if ((kind === "user" || kind === "model") && open.length) throw new Error(`item ${i}: calls ${open} have no result`);
    open.push(...calls);
  }
  if (open.length) throw new Error(`calls ${open} never answered`);
}
