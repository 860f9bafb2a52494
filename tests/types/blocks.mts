// Content blocks given to the engine are typed field by field for the kinds
// it reads (issue 13): a wrong field is a type error, every SDK block and
// every other kind the API takes goes in.
import { Engine, type ContentBlockInput } from "context-compaction";
import type { BetaContentBlockParam, BetaMessageParam } from "@anthropic-ai/sdk/resources/beta/messages";

const engine = new Engine("seed");
engine.append({ role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Read", input: { path: "a.rs" } }] });
engine.append({ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "fn main() {}", is_error: false }] });
engine.append({ role: "user", content: [{ type: "text", text: "go on", cache_control: { type: "ephemeral" } }] });
engine.append({ role: "assistant", content: [{ type: "thinking", thinking: "hm", signature: "sig" }] });

// @ts-expect-error: a tool_result's tool_use_id is a string
engine.append({ role: "user", content: [{ type: "tool_result", tool_use_id: 5 }] });
// @ts-expect-error: a tool_use needs its name
engine.append({ role: "assistant", content: [{ type: "tool_use", id: "toolu_2", input: {} }] });
// @ts-expect-error: a text block's text is a string
engine.append({ role: "user", content: [{ type: "text", text: ["not", "a", "string"] }] });
// @ts-expect-error: thinking is signed
engine.append({ role: "assistant", content: [{ type: "thinking", thinking: "unsigned" }] });
// @ts-expect-error: no such block kind
engine.load([{ role: "user", content: [{ type: "txet", text: "typo" }] }]);
// @ts-expect-error: is_error is a boolean
const wrong: ContentBlockInput = { type: "tool_result", tool_use_id: "toolu_1", is_error: "yes" };

// Every block of the SDK goes in as it is, no cast.
declare const blocks: BetaContentBlockParam[];
declare const history: BetaMessageParam[];
engine.append({ role: "user", content: blocks });
engine.load(history);
console.log(wrong);

// Inline image and document blocks, as a user writes them (issue 28, point 10).
engine.append({
    role: "user",
    content: [
        { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" }, cache_control: { type: "ephemeral" } },
        { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQ=" }, title: "spec.pdf", citations: { enabled: true } },
        { type: "document", source: { type: "url", url: "https://example.com/spec.pdf" } },
        { type: "text", text: "What do these say?" },
    ],
});
engine.append({ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "image", source: { type: "url", url: "https://example.com/a.png" } }] }] });
