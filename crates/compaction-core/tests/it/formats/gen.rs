//! Tool-heavy histories in each provider format: `turns` turns of a user
//! prompt, a model step with reasoning and two tool calls (Read, Bash),
//! their results (`size` characters each) and a closing answer; every
//! tenth turn adds the format's extras (signed reasoning, approvals, a
//! refusal field, unknown fields).

use serde_json::{json, Value};

fn big(turn: usize, which: &str, size: usize) -> String {
    let line = format!("{which} output of turn {turn}: lorem ipsum dolor sit amet. ");
    line.repeat(size / line.len() + 1)[..size].to_owned()
}

/// AI SDK `ModelMessage`s.
pub fn ai_sdk(turns: usize, size: usize) -> Vec<Value> {
    let mut out = vec![json!({"role": "system", "content": "You are a coding agent."})];
    for t in 0..turns {
        out.push(json!({"role": "user", "content": format!("Task {t}: fix the bug."), "providerOptions": {"app": {"turn": t}}}));
        out.push(json!({"role": "assistant", "content": [
            {"type": "reasoning", "text": format!("I should read f{t}."), "providerOptions": {"openai": {"itemId": format!("rs_{t}"), "reasoningEncryptedContent": format!("gAAAAB{t}+/=enc")}}},
            {"type": "text", "text": "Reading."},
            {"type": "tool-call", "toolCallId": format!("call_{t}_a"), "toolName": "Read", "input": {"file_path": format!("src/f{t}.rs")}, "providerOptions": {"google": {"thoughtSignature": format!("sig{t}==")}}},
            {"type": "tool-call", "toolCallId": format!("call_{t}_b"), "toolName": "Bash", "input": {"command": "cargo test"}}
        ], "providerOptions": {"app": {"step": t}}}));
        out.push(json!({"role": "tool", "content": [
            {"type": "tool-result", "toolCallId": format!("call_{t}_a"), "toolName": "Read", "output": {"type": "text", "value": big(t, "read", size)}},
            {"type": "tool-result", "toolCallId": format!("call_{t}_b"), "toolName": "Bash", "output": {"type": "json", "value": {"stdout": big(t, "bash", size), "code": 0}}}
        ]}));
        if t % 10 == 9 {
            out.push(json!({"role": "assistant", "content": [
                {"type": "tool-call", "toolCallId": format!("call_{t}_w"), "toolName": "Write", "input": {"file_path": "x"}},
                {"type": "tool-approval-request", "approvalId": format!("ap_{t}"), "toolCallId": format!("call_{t}_w")}
            ]}));
            out.push(json!({"role": "tool", "content": [
                {"type": "tool-approval-response", "approvalId": format!("ap_{t}"), "approved": true},
                {"type": "tool-result", "toolCallId": format!("call_{t}_w"), "toolName": "Write", "output": {"type": "error-text", "value": "denied by policy"}}
            ]}));
            out.push(
                json!({"role": "assistant", "content": [{"type": "text", "text": format!("Done {t}.")}]}),
            );
        } else if t % 10 == 5 {
            out.push(json!({"role": "assistant", "content": [
                {"type": "reasoning", "text": "Signed.", "providerOptions": {"anthropic": {"signature": format!("EqQBCkYIARgC{t}")}}},
                {"type": "text", "text": format!("Done {t}.")}
            ]}));
        } else {
            out.push(
                json!({"role": "assistant", "content": [{"type": "text", "text": format!("Done {t}.")}]}),
            );
        }
    }
    out
}

/// OpenAI Chat Completions messages.
pub fn openai_chat(turns: usize, size: usize) -> Vec<Value> {
    let mut out = vec![json!({"role": "developer", "content": "You are a coding agent."})];
    for t in 0..turns {
        out.push(json!({"role": "user", "content": format!("Task {t}: fix the bug."), "name": "dev"}));
        out.push(json!({"role": "assistant", "content": null, "reasoning_content": format!("think {t}"), "reasoning_details": [{"type": "reasoning.text", "text": "think", "signature": format!("sig{t}==")}], "tool_calls": [
            {"id": format!("call_{t}_a"), "type": "function", "function": {"name": "Read", "arguments": format!("{{\"file_path\":\"src/f{t}.rs\"}}")}},
            {"id": format!("call_{t}_b"), "type": "function", "function": {"name": "Bash", "arguments": "{\"command\":\"cargo test\"}"}}
        ]}));
        out.push(
            json!({"role": "tool", "tool_call_id": format!("call_{t}_a"), "content": big(t, "read", size)}),
        );
        out.push(json!({"role": "tool", "tool_call_id": format!("call_{t}_b"), "content": [{"type": "text", "text": big(t, "bash", size)}]}));
        if t % 10 == 9 {
            out.push(json!({"role": "assistant", "content": "Partly done.", "refusal": null, "tool_calls": [
                {"id": format!("call_{t}_c"), "type": "function", "function": {"name": "Grep", "arguments": "not json"}}
            ]}));
            out.push(json!({"role": "tool", "tool_call_id": format!("call_{t}_c"), "content": "no match"}));
        }
        out.push(
            json!({"role": "assistant", "content": format!("Done {t}."), "refusal": null, "annotations": []}),
        );
    }
    out
}

/// OpenAI Responses input items.
pub fn openai_responses(turns: usize, size: usize) -> Vec<Value> {
    let mut out = vec![json!({"type": "message", "role": "developer", "content": "You are a coding agent."})];
    for t in 0..turns {
        out.push(json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": format!("Task {t}: fix the bug.")}]}));
        out.push(json!({"type": "reasoning", "id": format!("rs_{t}"), "summary": [{"type": "summary_text", "text": format!("Read f{t}.")}], "encrypted_content": format!("gAAAAB{t}+/=enc"), "status": null}));
        for (k, tool) in [("a", "Read"), ("b", "Bash")] {
            out.push(json!({"type": "function_call", "id": format!("fc_{t}_{k}"), "call_id": format!("call_{t}_{k}"), "name": tool, "arguments": format!("{{\"file_path\":\"src/f{t}.rs\"}}"), "status": "completed"}));
        }
        for (k, which) in [("a", "read"), ("b", "bash")] {
            out.push(json!({"type": "function_call_output", "call_id": format!("call_{t}_{k}"), "output": big(t, which, size)}));
        }
        if t % 10 == 9 {
            out.push(json!({"type": "web_search_call", "id": format!("ws_{t}"), "status": "completed", "action": {"type": "search", "query": "bug"}}));
            out.push(json!({"type": "custom_tool_call", "id": format!("ct_{t}"), "call_id": format!("call_{t}_c"), "name": "apply", "input": "*** patch"}));
            out.push(json!({"type": "custom_tool_call_output", "call_id": format!("call_{t}_c"), "output": "applied"}));
        }
        out.push(json!({"type": "message", "id": format!("msg_{t}"), "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": format!("Done {t}."), "annotations": [], "logprobs": []}]}));
    }
    out
}

/// LangChain stored messages, as `mapChatMessagesToStoredMessages` writes them.
pub fn langchain(turns: usize, size: usize) -> Vec<Value> {
    let mut out = vec![
        json!({"type": "system", "data": {"content": "You are a coding agent.", "additional_kwargs": {}, "response_metadata": {}}}),
    ];
    for t in 0..turns {
        out.push(json!({"type": "human", "data": {"content": format!("Task {t}: fix the bug."), "additional_kwargs": {}, "response_metadata": {}, "id": format!("h{t}")}}));
        let content = if t % 10 == 5 {
            json!([
                {"type": "thinking", "thinking": "hmm", "signature": format!("EqQB{t}")},
                {"type": "tool_use", "id": format!("call_{t}_a"), "name": "Read", "input": {"file_path": "a"}}
            ])
        } else {
            json!("")
        };
        out.push(json!({"type": "ai", "data": {"content": content,
            "tool_calls": [
                {"name": "Read", "args": {"file_path": format!("src/f{t}.rs")}, "id": format!("call_{t}_a"), "type": "tool_call"},
                {"name": "Bash", "args": {"command": "cargo test"}, "id": format!("call_{t}_b"), "type": "tool_call"}
            ],
            "invalid_tool_calls": [], "additional_kwargs": {}, "response_metadata": {"model_name": "m"},
            "usage_metadata": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}, "id": format!("ai{t}")}}));
        for (k, which) in [("a", "read"), ("b", "bash")] {
            out.push(json!({"type": "tool", "data": {"content": big(t, which, size), "tool_call_id": format!("call_{t}_{k}"), "name": which, "additional_kwargs": {}, "response_metadata": {}, "status": "success"}}));
        }
        out.push(json!({"type": "ai", "data": {"content": format!("Done {t}."), "tool_calls": [], "invalid_tool_calls": [], "additional_kwargs": {}, "response_metadata": {}}}));
    }
    out
}
