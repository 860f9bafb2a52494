// A sample user of context-compaction/openai-agents, checked by `tsc
// --noEmit` (strict, no casts) against
// `@openai/agents`' own types: the filter and context go straight into
// `run`'s options, a refused run is recovered with its input.
import { Agent, run, tool, type AgentInputItem } from "@openai/agents";
import { agentsCompaction, isPromptTooLong, toResponsesItem, type AgentsCompaction } from "context-compaction/openai-agents";
import type { Decision } from "context-compaction/formats";
import type { ResponseInputItem } from "openai/resources/responses/responses";

const readFile = tool({
    name: "read_file",
    description: "Reads a file.",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false },
    strict: true,
    execute: async () => "content",
});
const agent = new Agent({ name: "reviewer", instructions: "Review files.", tools: [readFile] });
const decisions: Decision[] = [];
const compaction: AgentsCompaction = agentsCompaction({ settings: { window: 200_000, maxOutputTokens: 16_000 }, onDecision: (d) => decisions.push(d) });

export async function turn(history: AgentInputItem[], text: string): Promise<AgentInputItem[]> {
    const input: AgentInputItem[] = [...history, { role: "user", content: text }];
    for (;;) {
        try {
            const result = await run(agent, input, { callModelInputFilter: compaction.callModelInputFilter, context: compaction.context });
            return result.history;
        } catch (error) {
            if (!isPromptTooLong(error)) throw error;
            const outcome = await compaction.promptTooLong(error, input);
            if (outcome.compaction?.kind === "failed") throw error;
        }
    }
}

// A custom summariser gets the request's messages as the SDK's items.
export const custom = agentsCompaction<{ user: string }>({
    context: { user: "ada" },
    summarize: async (request, messages: AgentInputItem[]) => `${request.prompt.length} ${messages.length}`,
    host: { precompute: false },
});
export const user: string = custom.context.context.user;
export const spelled: ResponseInputItem = toResponsesItem({ type: "function_call", callId: "c1", name: "read_file", arguments: "{}" });
