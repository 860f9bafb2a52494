// The SDK's own history types into the engine, strict, with no `as`: a
// BetaMessageParam[] (its role "system" variant included, whose content is
// optional) and a MessageParam[] go into load and append as they are.
import type { BetaMessageParam } from "@anthropic-ai/sdk/resources/beta/messages/messages";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { Engine } from "context-compaction";

declare const betaHistory: BetaMessageParam[];
declare const history: MessageParam[];

const engine = new Engine("seed");
engine.load(betaHistory);
engine.load(history);
for (const m of betaHistory) engine.append(m);
for (const m of history) engine.append(m);
engine.append({ role: "system", content: "Tools changed.", clear_at: "next_user_message" });
// @ts-expect-error content is a string or blocks
engine.append({ role: "user", content: 5 });
