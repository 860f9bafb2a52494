/* tslint:disable */
/* eslint-disable */

/** The usage the API reported for the request behind a model reply, in the
 * shape of the engine's `format` (what its SDK hands you):
 * - `"ai-sdk"`: the step's `LanguageModelUsage` (`inputTokens`,
 *   `inputTokenDetails.cacheReadTokens` / `cacheWriteTokens`, `outputTokens`);
 * - `"openai-chat"`: the completion's `usage` (`prompt_tokens`,
 *   `prompt_tokens_details.cached_tokens`, `completion_tokens`);
 * - `"openai-responses"`: the response's `usage` (`input_tokens`,
 *   `input_tokens_details.cached_tokens`, `output_tokens`);
 * - `"langchain"`: an `AIMessage`'s `usage_metadata` (`input_tokens`,
 *   `input_token_details.cache_read` / `cache_creation`, `output_tokens`);
 *   a stored `ai` message's own `usage_metadata` is read without it;
 * - `"anthropic"`: the Messages API's `usage`.
 * The prompt's total (cached tokens included) is the count's anchor
 * (SPEC R1.6): the count becomes it plus the reply's output plus the
 * estimate of what came after. A counter absent or `null` is 0. */
export type ReplyUsage = object;



/** What `prepare(host)` asks of you: the I/O the engine never does itself. */
export interface Host {
    /** A summary (a compaction's, a Tier 3 segment's, the precompute's:
     * `request.purpose`): send `request.messages`, then `request.prompt` as
     * a user message, to `request.model`, and return the reply's text (or
     * an `Answer` such as `{ kind: "offline" }`). A throw or rejection moves
     * to the next model of the chain, each model at most once; when none is
     * left `prepare()` rejects with `code` `SUMMARIZER_FAILED` and your
     * error as `cause`. */
    summarize: (request: SummaryRequest) => Promise<string | Answer> | string | Answer;
    /** Reads the files the engine wants to re-attach after a compaction:
     * one `{ path, content }` or `{ path, error }` per path. Without it no
     * file is re-attached. A throw rejects `prepare()` (`READ_FILES_FAILED`). */
    readFiles?: (paths: string[]) => Promise<FileAnswer[]> | FileAnswer[];
    /** Your PreCompact hooks, before every compaction (manual, automatic
     * and reactive alike): return `{ block }` to block it, `{ addedInstructions }`
     * to add to the summary prompt, nothing to allow. A throw rejects
     * `prepare()` (`PRE_COMPACT_FAILED`). */
    preCompact?: (request: PreCompactRequest) => Promise<HookOutcome | undefined | void> | HookOutcome | undefined | void;
    /** What your post-compact hooks printed, when the settings ask for it. */
    postCompactHooks?: () => Promise<HookOutput[]> | HookOutput[];
    /** The host's clock (RFC 3339); lets the time-based microcompact see idle gaps. */
    now?: string;
    /** Ask for the background precompute summary (SPEC R9.1; default
     * true): when a preparation leaves one pending, `summarize` is called
     * for it after `prepare()` resolved, never awaited by it; the next
     * `prepare()` takes its answer, and a later compaction reuses it. Its
     * failure fails no call: that precompute is dropped (a step of the
     * next decision says so), `onPrecompute` gets the error, and none is
     * asked for again until a compaction ran. Pass
     * `false` when the engine does not outlive the request (a stateless
     * route): nothing would be left to take the answer. */
    precompute?: boolean;
    /** Told when a background precompute's `summarize` settled: `ok`, or
     * the error it threw (reported here, never thrown by `prepare()`). */
    onPrecompute?: (settled: PrecomputeSettled) => void;
}

/** A background precompute's `summarize` settled (`Host.onPrecompute`). */
export type PrecomputeSettled = { id: number; ok: true } | { id: number; ok: false; error: unknown };

export interface Engine {
    /** Runs the cascade before a model call and answers every request it
     * makes through `host` (a compaction with its PreCompact hooks,
     * summary, fallbacks and files; Tier 3 segments) until nothing is
     * pending but the precompute, which runs in the background
     * (`Host.precompute`): the async twin of the engine's `drive`, and the
     * binding's only request loop. Resolves to the last decision with every
     * step taken. Then send `messages()`. Throws at once (`ENGINE_BUSY`,
     * `INVALID_ARGUMENT`, `ENGINE_POISONED`) when it cannot start; a wasm
     * trap in any of its steps rejects with `ENGINE_POISONED`. */
    prepare(host: Host): Promise<Decision>;
}



/** `cache_control` as the API takes it. */
export interface CacheControl { type: "ephemeral"; ttl?: "5m" | "1h" }
/** Any value but `undefined`: a field the engine keeps verbatim. */
export type Verbatim = {} | null;
/** Fields of input blocks the engine keeps verbatim, as the SDK names them. */
export interface BlockExtras { cache_control?: Verbatim; citations?: Verbatim; caller?: Verbatim; toolset_name?: string | null }
/** A `text` block given to the engine. */
export interface TextBlockInput extends BlockExtras { type: "text"; text: string }
/** A `tool_use` block given to the engine (`input`: any value, kept verbatim). */
export interface ToolUseBlockInput extends BlockExtras { type: "tool_use"; id: string; name: string; input: Verbatim | undefined }
/** A `tool_result` block given to the engine. */
export interface ToolResultBlockInput extends BlockExtras {
    type: "tool_result";
    tool_use_id: string;
    content?: string | Array<TextBlockInput | OtherBlockInput>;
    is_error?: boolean;
}
/** A `thinking` block given to the engine: signed, kept whole or dropped whole. */
export interface ThinkingBlockInput { type: "thinking"; thinking: string; signature: string }
/** A `redacted_thinking` block given to the engine. */
export interface RedactedThinkingBlockInput { type: "redacted_thinking"; data: string }
/** The other kinds of block the API takes: kept verbatim, their fields
 * unread (an inline image's or document's `source`, `title` and `context`
 * go in as written; documents count per page, R1.6b). */
export interface OtherBlockInput extends BlockExtras {
    source?: Verbatim;
    title?: string | null;
    context?: string | null;
    type: "image" | "document" | "search_result" | "tool_reference" | "browser_state" | "server_tool_use"
    | "web_search_tool_result" | "web_fetch_tool_result" | "advisor_tool_result" | "code_execution_tool_result"
    | "bash_code_execution_tool_result" | "text_editor_code_execution_tool_result" | "tool_search_tool_result"
    | "mcp_tool_use" | "mcp_tool_result" | "container_upload" | "compaction" | "tool_addition" | "tool_removal"
    | "mcp_tool_listing" | "fallback";
}
/** A content block as the engine takes it: the kinds it reads (`text`,
 * `tool_use`, `tool_result`, `thinking`, `redacted_thinking`) typed field by
 * field, every other kind the API takes by its `type`. Every
 * `BetaContentBlockParam` of `@anthropic-ai/sdk` is one; `tool_use_id: 5` is
 * not. */
export type ContentBlockInput =
| TextBlockInput
| ToolUseBlockInput
| ToolResultBlockInput
| ThinkingBlockInput
| RedactedThinkingBlockInput
| OtherBlockInput;
/** A `text` block. */
export interface TextBlockParam { type: "text"; text: string; cache_control?: CacheControl | null }
/** An image's source. */
export type ImageSource =
| { type: "base64"; media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp"; data: string }
| { type: "url"; url: string };
/** An `image` block. */
export interface ImageBlockParam { type: "image"; source: ImageSource; cache_control?: CacheControl | null }
/** A signed `thinking` block, passed back verbatim (R13.1). */
export interface ThinkingBlockParam { type: "thinking"; thinking: string; signature: string }
/** A `redacted_thinking` block, passed back verbatim (R13.1). */
export interface RedactedThinkingBlockParam { type: "redacted_thinking"; data: string }
/** A JSON value (a tool's input, verbatim). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** A `tool_use` block. */
export interface ToolUseBlockParam { type: "tool_use"; id: string; name: string; input: JsonValue; cache_control?: CacheControl | null }
/** A `tool_result` block (its content possibly reduced, R2, or cleared, R4). */
export interface ToolResultBlockParam {
    type: "tool_result";
    tool_use_id: string;
    content?: string | Array<TextBlockParam | ImageBlockParam>;
    is_error?: boolean;
    cache_control?: CacheControl | null;
}
/** A signed server `compaction` block, kept byte for byte (R13.2). */
export interface CompactionBlockParam { type: "compaction"; content?: string | null; encrypted_content?: string | null; signature?: string | null }
/** The blocks of a plain Messages request (no beta): what a summary
 * request carries. Assignable to `@anthropic-ai/sdk`'s `ContentBlockParam`. */
export type PlainBlockParam =
| TextBlockParam
| ImageBlockParam
| ThinkingBlockParam
| RedactedThinkingBlockParam
| ToolUseBlockParam
| ToolResultBlockParam;
/** The blocks the engine sends back (the ones it was given, verbatim, and
 * its own text): assignable to `@anthropic-ai/sdk`'s `BetaContentBlockParam`. */
export type ApiBlockParam = PlainBlockParam | CompactionBlockParam;
/** A user message ready for the Messages API. */
export interface UserMessageParam { role: "user"; content: string | ApiBlockParam[] }
/** An assistant message ready for the Messages API. */
export interface AssistantMessageParam { role: "assistant"; content: string | ApiBlockParam[] }
/** A mid-conversation `role: "system"` message (R13.3), kept where it was. */
export interface SystemMessageParam {
    role: "system";
    content: string | TextBlockParam[];
    clear_at?: "next_user_message" | "never" | null;
    output_config?: { effort?: "low" | "medium" | "high" | "xhigh" | "max" | null } | null;
}
/** A message ready for the Messages API, as `engine.messages()` gives it:
 * exactly `role` and `content` (and a system message's own fields).
 * Assignable to `@anthropic-ai/sdk`'s `BetaMessageParam`, no cast. */
export type MessageParam = UserMessageParam | AssistantMessageParam | SystemMessageParam;
/** A message of a summary request: a plain Messages API `MessageParam`
 * (no `system` role, no beta block: R13.3), so `{ model, max_tokens,
 * messages: [...request.messages, { role: "user", content: request.prompt }] }`
 * is a `MessageCreateParamsNonStreaming`. */
export interface PlainMessageParam { role: "user" | "assistant"; content: string | PlainBlockParam[] }


/**
 * A Claude Code session file read by `readSession` or a
 * `SessionImporter` (the `context-compaction/session` module): its report,
 * and the view a resumed session sees, for `engine.loadSession`.
 */
export interface Session {
    /**
     * What the file holds, problems included.
     */
    report: ImportReport;
    /**
     * The resumed view (SPEC R11.2): the last boundary's summary, the
     * messages it preserved, then what followed.
     */
    messages: SessionMessage[];
    /**
     * The boundary the view starts after, or `null`.
     */
    boundary: string | null;
    /**
     * The chain's last record: records an engine writes next continue
     * from it. `null` for an empty file.
     */
    leaf: string | null;
    /**
     * The file's session id (the last one seen), or `null`.
     */
    sessionId: string | null;
    /**
     * The highest `m<n>` uuid of any record in the file (the uuids an
     * engine gives messages that come without one), or `null`: a resumed
     * engine makes uuids after it, so its records never repeat one the
     * file holds, even when the view no longer shows it.
     */
    lastMadeUuid: string | null;
    /**
     * The compactions the file holds (its `compact_boundary` records): a
     * resumed engine numbers its own after them, so the uuids it derives
     * for their records are new to the file too.
     */
    compactions: number;
    /**
     * The messages of the view the file leaves pinned (its
     * `message_pinned` records), sorted: `loadSession` pins them again.
     */
    pinned: string[];
    /**
     * What the count rested on when the file was last written (its last
     * `count_calibrated` record), or `null`: `loadSession` takes it after
     * loading the message `after` names, so a resumed engine counts as
     * the live one did.
     */
    counting: SessionCounting | null;
}

/**
 * A `clear_thinking_20251015` edit (the `clearThinking` setting).
 */
export interface ClearThinkingEdit {
    /**
     * `"clear_thinking_20251015"`.
     */
    type: "clear_thinking_20251015";
    /**
     * Assistant turns whose thinking is kept.
     */
    keep?: { type: "thinking_turns"; value: number } | { type: "all" } | "all";
}

/**
 * A `clear_tool_uses_20250919` edit.
 */
export interface ClearToolUsesEdit {
    /**
     * `"clear_tool_uses_20250919"`.
     */
    type: "clear_tool_uses_20250919";
    /**
     * When the server clears.
     */
    trigger: InputTokensAmount;
    /**
     * Tool uses kept.
     */
    keep: ToolUsesAmount;
    /**
     * At least this much is cleared.
     */
    clear_at_least?: InputTokensAmount;
    /**
     * Tools never cleared.
     */
    exclude_tools: string[];
    /**
     * Whether tool inputs are cleared too.
     */
    clear_tool_inputs: boolean;
}

/**
 * A `compact_20260112` edit (R13.2).
 */
export interface CompactEdit {
    /**
     * `"compact_20260112"`.
     */
    type: "compact_20260112";
    /**
     * Compacts when the prompt exceeds this: the compact line.
     */
    trigger: InputTokensAmount;
    /**
     * The engine's summary prompt (setting `serverInstructions`).
     */
    instructions?: string;
}

/**
 * A boundary found in a session file.
 */
export interface BoundarySummary {
    /**
     * The boundary record's uuid.
     */
    uuid: string;
    /**
     * `"manual"`, `"auto"`, or `null` when the record has none.
     */
    trigger: string | null;
    /**
     * The count before, or `null`.
     */
    preTokens: number | null;
    /**
     * The count after, when recorded.
     */
    postTokens?: number;
    /**
     * Its 1-based line.
     */
    line: number;
    /**
     * Whether its `logicalParentUuid` is in the file.
     */
    logicalParentFound: boolean;
    /**
     * The summary record after it, or `null`.
     */
    summaryUuid: string | null;
}

/**
 * A content block in the Anthropic Messages API shape (`text`, `tool_use`,
 * `tool_result`, `thinking`, `image`, or any other `type`: unknown blocks
 * and fields are kept verbatim). Every `ContentBlockParam` of
 * `@anthropic-ai/sdk` is one.
 */
export interface ContentBlock {
    /**
     * The block's kind, as the API names it.
     */
    type: string;
}

/**
 * A content block of a message.
 */
export interface BlockRef {
    /**
     * The message.
     */
    uuid: string;
    /**
     * The block's index in its content.
     */
    block: number;
}

/**
 * A finished compaction.
 */
export interface Compacted {
    /**
     * The `compact_boundary` record (SPEC R7.9).
     */
    boundary: BoundaryRecord;
    /**
     * The summary record after it.
     */
    summary: SummaryRecord;
    /**
     * How each file re-attachment candidate ended (R7.7).
     */
    attachments: Candidate[];
    /**
     * What the summary left out (extension).
     */
    retention: RetentionReport;
}

/**
 * A message as the engine gives it back: role, content, and the engine's
 * uuid, timestamp and usage when known. Pass [`MessageParam`]s (from
 * `engine.messages()`) to the API, not these.
 */
export interface Message {
    /**
     * Stable identity.
     */
    uuid: string;
    /**
     * Who wrote it.
     */
    role: "user" | "assistant" | "system";
    /**
     * A string or API content blocks.
     */
    content: string | ContentBlock[];
    /**
     * A `role: "system"` message's `clear_at`, kept verbatim (R13.3).
     */
    clear_at?: "next_user_message" | "never" | null;
    /**
     * A `role: "system"` message's `output_config`, kept verbatim (R13.3).
     */
    output_config?: { effort?: "low" | "medium" | "high" | "xhigh" | "max" | null } | null;
    /**
     * When it was written (RFC 3339), if known.
     */
    timestamp?: string;
    /**
     * The API usage of the request that produced it, if known.
     */
    usage?: ReportedUsage;
}

/**
 * A message as the engine takes it: an Anthropic `MessageParam` (`role`
 * and `content`, exactly as `@anthropic-ai/sdk` types them), plus optional
 * `uuid` (the engine makes one when absent), `timestamp` (RFC 3339; lets
 * the time-based microcompact see idle gaps) and `usage` (assistant
 * messages: the API's reported usage, for an exact count).
 */
export interface MessageInput {
    /**
     * Who wrote it. `"system"` is a mid-conversation system message
     * (R13.3): kept where it is, counted, never moved into `setSystem`.
     */
    role: "user" | "assistant" | "system";
    /**
     * What it says: a string, or API content blocks. Optional in the type
     * because the SDK's `BetaSystemMessageParam` has it optional (so a
     * `BetaMessageParam[]` goes in without a cast); a message without it
     * is `INVALID_MESSAGE`.
     */
    content?: string | ContentBlockInput[];
    /**
     * A `role: "system"` message's `clear_at`, kept verbatim (R13.3).
     */
    clear_at?: "next_user_message" | "never" | null;
    /**
     * A `role: "system"` message's `output_config`, kept verbatim (R13.3).
     */
    output_config?: { effort?: "low" | "medium" | "high" | "xhigh" | "max" | null } | null;
    /**
     * Stable identity in the engine (default: `m1`, `m2`, … in append order).
     */
    uuid?: string;
    /**
     * When it was written (RFC 3339).
     */
    timestamp?: string;
    /**
     * The API usage of the request that produced it.
     */
    usage?: Usage | null;
}

/**
 * A message of a resumed session: as `engine.view()` gives messages, and
 * whether it is the compaction summary the view starts with.
 */
export interface SessionMessage {
    /**
     * Its uuid in the file.
     */
    uuid: string;
    /**
     * Who wrote it.
     */
    role: "user" | "assistant";
    /**
     * A string or API content blocks.
     */
    content: string | ContentBlock[];
    /**
     * When it was written (RFC 3339), if known.
     */
    timestamp?: string;
    /**
     * The API usage of the request that produced it, if known.
     */
    usage?: ReportedUsage;
    /**
     * The summary a compaction left (the view's first message).
     */
    isCompactSummary: boolean;
}

/**
 * A signed `compaction` block from the API (R13.2), as `swapInSummary`
 * takes it: kept byte for byte.
 */
export interface CompactionBlock {
    /**
     * `"compaction"`.
     */
    type: "compaction";
    /**
     * The summary, or `null` when the compaction failed.
     */
    content?: string | null;
    /**
     * Opaque metadata, sent back verbatim.
     */
    encrypted_content?: string | null;
    /**
     * The signature, sent back verbatim.
     */
    signature?: string | null;
    /**
     * The compacted range's tool changes, sent back verbatim.
     */
    tool_changes?: ContentBlock[] | null;
}

/**
 * A token count and where it comes from.
 */
export interface TokenFigure {
    /**
     * Tokens.
     */
    tokens: number;
    /**
     * `"estimated"`, `"reported"` (API usage) or `"reportedPlusEstimate"`.
     */
    basis: Basis;
}

/**
 * A user prompt a summary left out.
 */
export interface MissingPrompt {
    /**
     * The prompt's message.
     */
    uuid: string;
    /**
     * Its first characters.
     */
    text: string;
}

/**
 * An on-demand compaction request's `compaction` parameter.
 */
export interface CompactionConfig {
    /**
     * `"summarize"`.
     */
    type: "summarize";
    /**
     * Replaces the server's summary prompt for this request.
     */
    instructions?: string;
}

/**
 * Before every compaction, manual, automatic or reactive, the engine asks
 * your PreCompact hooks (SPEC R7.2): answer with `{ kind: "hook", block?,
 * addedInstructions? }`.
 */
export interface PreCompactRequest {
    /**
     * Answer with this id.
     */
    id: number;
    /**
     * `manual` (`compact()`) or `auto` (the cascade, or a 413).
     */
    trigger: "manual" | "auto";
    /**
     * The user's `/compact` instructions, or `null`.
     */
    instructions: string | null;
}

/**
 * Context the host holds outside the messages, restored after each
 * compaction (SPEC R7.7; `Engine.setContext`).
 */
export interface ContextItem {
    /**
     * `"plan"`, `"taskState"`, `"skill"` or `"mcp"`.
     */
    kind: AttachmentKind;
    /**
     * The skill's or MCP server's name (free for a plan or task list).
     */
    name: string;
    /**
     * The text restored.
     */
    content: string;
}

/**
 * How a summary call may use tools: `{ type: "none" }`, not at all.
 */
export type ToolChoice = { type: "none" };

/**
 * How one re-attachment candidate ended: a file (`path`) or another kind
 * (`path` is then its name).
 */
export type Candidate = { status: "restored"; kind: AttachmentKind; path: string; tokens: number; cut: boolean } | { status: "pathOnly"; kind: AttachmentKind; path: string } | { status: "notChosen"; kind: AttachmentKind; path: string } | { status: "overBudget"; kind: AttachmentKind; path: string; tokens: number } | { status: "failed"; kind: AttachmentKind; path: string; reason: string };

/**
 * One decision of the engine (SPEC R3.3).
 */
export interface Step {
    /**
     * The tier that acted.
     */
    tier: Tier;
    /**
     * The SPEC rule id.
     */
    rule: string;
    /**
     * Who does it in Claude Code.
     */
    owner: Owner;
    /**
     * Where the behaviour comes from.
     */
    evidence: Evidence;
    /**
     * The count before.
     */
    countBefore: TokenFigure;
    /**
     * The count after.
     */
    countAfter: TokenFigure;
    /**
     * The messages affected (uuids).
     */
    messages: string[];
    /**
     * The blocks affected.
     */
    blocks: BlockRef[];
    /**
     * What it did to the prompt cache.
     */
    cache: CacheEffect;
    /**
     * Model calls it needed.
     */
    modelCalls: number;
    /**
     * Why, in one sentence.
     */
    reason: string;
}

/**
 * One edit of `context_management.edits`.
 */
export type Edit = ClearToolUsesEdit | CompactEdit | ClearThinkingEdit;

/**
 * One problem found in a session file (never silently dropped).
 */
export interface Problem {
    /**
     * The 1-based line.
     */
    line: number;
    /**
     * What kind (`malformed_json`, `truncated_line`, `orphan_tool_result`, …).
     */
    kind: string;
    /**
     * Details.
     */
    detail: string;
}

/**
 * Settings for [`thresholds`]. Token counts are whole numbers from 1 to
 * 2^53 − 1; anything else (NaN, −1, 1.5, a string) is an `INVALID_SETTING`
 * error naming the field.
 */
export interface ThresholdSettings {
    /**
     * The model's context window, in tokens.
     */
    window: number;
    /**
     * The model's maximum output tokens; the reserve is `min(this, reserveCap)`.
     */
    maxOutputTokens?: number;
    /**
     * The cap on the reserve kept for the reply (default 20,000).
     */
    reserveCap?: number;
    /**
     * The model input ceiling the blocked line hangs from (default: the budget).
     */
    ceiling?: number;
    /**
     * Moves the compact line to this percent of the budget (1–100); it can
     * only lower the line.
     */
    overridePct?: number;
}

/**
 * Settings of an [`Engine`](crate::engine::Engine): a preset and the
 * model's numbers. Token counts are whole numbers from 1 to 2^53 − 1.
 */
export interface EngineSettings {
    /**
     * The preset (default `"seed"`).
     */
    preset?: PresetName;
    /**
     * The history's shape (default `"anthropic"`): `load`, `append`,
     * `messages()` and `plan` speak it; off Anthropic, Tier 1 takes the
     * client's time-based path. `context-compaction` reads Anthropic's
     * only; the other formats are the `Engine` and `plan` of
     * `context-compaction/formats`, typed per SDK in
     * `context-compaction/ai-sdk`, `/openai` and `/langchain`.
     */
    format?: "anthropic" | "ai-sdk" | "openai-chat" | "openai-responses" | "langchain";
    /**
     * The model's context window (default 200,000).
     */
    window?: number;
    /**
     * The model's maximum output tokens; the reserve is `min(this, reserveCap)`.
     */
    maxOutputTokens?: number;
    /**
     * The cap on the reserve kept for the reply (default 20,000).
     */
    reserveCap?: number;
    /**
     * The model input ceiling the blocked line hangs from.
     */
    ceiling?: number;
    /**
     * Moves the compact line to this percent of the budget (1–100).
     */
    overridePct?: number;
    /**
     * The model summary requests name (default `"session-model"`).
     */
    model?: string;
    /**
     * Models to try after it, in order.
     */
    fallbackModels?: string[];
    /**
     * `sessionId` written into transcript records (default `"context-compaction"`).
     */
    sessionId?: string;
    /**
     * Tier 2, snip, on or off (default: the preset's).
     */
    snip?: boolean;
    /**
     * Tier 3, collapse, on or off (default: the preset's).
     */
    collapse?: boolean;
    /**
     * Signed thinking after a client-side rewrite (R13.1): `"strip"` (the
     * default) drops the blocks after it, `"drop_block"` keeps them and
     * `decision.thinking` asks the server to drop them, `"keep"` leaves
     * them to the host.
     */
    thinking?: "strip" | "drop_block" | "keep";
    /**
     * Who writes Tier 4's summary (R13.2): `"client"` (the default) or
     * `"server"` (`decision.contextManagement` carries the
     * `compact_20260112` edit; append the response, its compaction block
     * starts the view).
     */
    compaction?: "client" | "server";
    /**
     * Server compaction: send the engine's summary prompt as the edit's
     * `instructions` (default false).
     */
    serverInstructions?: boolean;
    /**
     * Your own `clear_thinking_20251015` edit: it goes first in
     * `decision.contextManagement.edits` (R13.4).
     */
    clearThinking?: { type: "clear_thinking_20251015"; keep?: { type: "thinking_turns"; value: number } | { type: "all" } | "all" };
    /**
     * Percent added to the count while no reported usage has calibrated
     * it (default 15; 0 with `countTokens`; 0 turns it off): providers
     * count code and JSON up to ~15 % above the estimate, so a count just
     * under a line before the first usage is not a request the API
     * refuses. It shrinks as usage arrives and is gone once 2,000
     * estimated tokens have been compared.
     */
    uncalibratedMarginPct?: number;
    /**
     * Whether your requests carry `decision.contextManagement` (default
     * true; formats other than Anthropic's have no such edit). Set false
     * when something between you and the API drops it (a proxy, an SDK or
     * provider without context editing): no server-side clearing is
     * counted or asked for, and Tier 1 takes the client's time-based path.
     */
    contextEditing?: boolean;
    /**
     * Budget reduction (R2.2): a tool result over `maxChars` characters
     * (default 4,000) keeps its first `headChars` (2,400) and last
     * `tailChars` (1,600) with a marker between; `false` turns it off
     * (the `client-*` presets' default). Only results the model has not
     * read yet are reduced. `headChars + tailChars` must be at most
     * `maxChars`.
     */
    reduction?: false | { maxChars?: number; headChars?: number; tailChars?: number };
    /**
     * Your tokenizer (R1.6a): the engine counts every text with it instead
     * of its by-script estimate (reported usage still wins where there is
     * some). It must return a whole number; a throw or anything else makes
     * the engine method that counted throw `COUNT_TOKENS_FAILED` with your
     * error as `cause`.
     */
    countTokens?: (text: string) => number;
}

/**
 * Something the engine asks of you, by `kind`; answer it with
 * `engine.answer(request.id, answer)`, or let `prepare(host)` do it.
 */
export type Request = ({ kind: "preCompact" } & PreCompactRequest) | ({ kind: "summary" } & SummaryRequest) | ({ kind: "collapseSegment" } & SummaryRequest) | ({ kind: "precompute" } & SummaryRequest) | ({ kind: "files" } & FileRequest);

/**
 * The API `usage` of the request that produced an assistant message (how
 * the engine counts real tokens, SPEC R1.6). Missing counters are 0.
 */
export interface Usage {
    /**
     * Uncached input tokens.
     */
    input_tokens?: number;
    /**
     * Output tokens.
     */
    output_tokens?: number;
    /**
     * Input tokens written to the prompt cache.
     */
    cache_creation_input_tokens?: number | null;
    /**
     * Input tokens read from the prompt cache.
     */
    cache_read_input_tokens?: number | null;
}

/**
 * The `compact_boundary` record.
 */
export interface BoundaryRecord {
    /**
     * `"system"`.
     */
    type: string;
    /**
     * `"compact_boundary"`.
     */
    subtype: string;
    /**
     * Its uuid.
     */
    uuid: string;
    /**
     * Always `null`: a boundary starts a new chain.
     */
    parentUuid: string | null;
    /**
     * The last message before it.
     */
    logicalParentUuid: string | null;
    /**
     * `"Conversation compacted"`.
     */
    content: string;
    /**
     * `"info"`.
     */
    level: string;
    /**
     * The compaction's figures.
     */
    compactMetadata: CompactMetadata;
}

/**
 * The `context_management` parameter of the Messages API (beta
 * `context-management-2025-06-27`).
 */
export interface ContextManagement {
    /**
     * The edits: your clear-thinking edit first.
     */
    edits: Edit[];
}

/**
 * The answer to a request (`engine.answer(id, answer)`); a plain string is
 * a summary request's `{ kind: "text", text }`. Which kinds each request
 * takes: `summary`, `collapseSegment`, `precompute` take `text`,
 * `offline`, `modelUnavailable`, `promptTooLong`, `failed`; `files`
 * takes `files`; `preCompact` takes `hook`.
 */
export type Answer = { kind: "text"; text: string; durationMs?: number } | { kind: "offline" } | { kind: "modelUnavailable" } | { kind: "promptTooLong" } | { kind: "failed"; reason: string } | { kind: "files"; files: FileAnswer[]; hooks?: HookOutput[] } | { kind: "hook"; block?: string | null; addedInstructions?: string[] };

/**
 * The contents of one requested file, or why it could not be read.
 */
export interface FileAnswer {
    /**
     * The path asked for.
     */
    path: string;
    /**
     * Its content.
     */
    content?: string;
    /**
     * Why it could not be read (when `content` is absent).
     */
    error?: string;
}

/**
 * The count's basis a session file states (`count_calibrated`): the last
 * reported usage the count starts from and the estimate's calibration.
 */
export interface SessionCounting {
    /**
     * The view's last message when it was written (`null`: none).
     */
    after: string | null;
    /**
     * Reported tokens between consecutive reports, and their estimate.
     */
    calibration: CountCalibration;
    /**
     * The last reported usage, or `null` when the count was an estimate.
     */
    anchor: CountAnchor | null;
    /**
     * What the view predicted the server clears by context editing, or
     * `null` before the cache-aware microcompact first fired.
     */
    serverCleared: CountServerCleared | null;
}

/**
 * The engine needs a summary: send `messages`, then `prompt` as a user
 * message, to `model` with tools denied; answer with the request's `id`.
 */
export interface SummaryRequest {
    /**
     * Answer with this id.
     */
    id: number;
    /**
     * What the summary is for.
     */
    purpose: Purpose;
    /**
     * The model to ask.
     */
    model: string;
    /**
     * The models left after it, in order.
     */
    fallbackModels: string[];
    /**
     * The messages to summarise, ready for the plain Messages API (no
     * `system` role, no beta block).
     */
    messages: PlainMessageParam[];
    /**
     * The summary prompt, to append as the last user message.
     */
    prompt: string;
    /**
     * The request's estimated size in tokens.
     */
    estimatedTokens: number;
    /**
     * 1 for the first attempt.
     */
    attempt: number;
    /**
     * "Tools denied" as data (R7.3a): send it as the call's `tool_choice`
     * (with your tool definitions when `messages` hold tool blocks: the
     * API wants them defined; with `none` none can be called).
     */
    toolChoice: ToolChoice;
}

/**
 * The engine needs file contents to re-attach recently read files
 * (SPEC R7.7): answer with `{ kind: "files", files, hooks? }`.
 */
export interface FileRequest {
    /**
     * Answer with this id.
     */
    id: number;
    /**
     * The files, most recent first.
     */
    paths: string[];
    /**
     * Run your post-compact hooks too and pass their output as the
     * answer's `hooks` (SPEC R7.1; the `postCompactHooks` setting).
     */
    postCompactHooks: boolean;
}

/**
 * The engine's answer before one model call.
 */
export interface Decision {
    /**
     * What the engine did, in order.
     */
    steps: Step[];
    /**
     * The count after those steps.
     */
    count: TokenFigure;
    /**
     * The lines it was held against.
     */
    lines: Thresholds;
    /**
     * What to do with the call.
     */
    status: CallStatus;
    /**
     * The `context_management` parameter to send with the call, or `null`:
     * your `clearThinking` edit first, cache-aware microcompact's clearing,
     * server compaction (R13.4).
     */
    contextManagement: ContextManagement | null;
    /**
     * The beta headers the call needs (`betas` of
     * `client.beta.messages.create`), sorted (R13.4).
     */
    betas: string[];
    /**
     * What to merge into the call's `thinking` parameter (setting
     * `thinking: "drop_block"`), or `null` (R13.1).
     */
    thinking: { block_binding: { prefix_mismatch_behavior: "drop_block" } } | null;
    /**
     * Tool results the client cleared in this call.
     */
    clearedByClient: string[];
    /**
     * The automatic compaction this call started or waits on, or `null`.
     */
    compaction: Progress | null;
    /**
     * Why automatic compaction is off (`"failures"`, `"rapidRefill"`), or `null`.
     */
    breaker: "failures" | "rapidRefill" | null;
    /**
     * Every request pending, in one place: answer each with `answer(id, …)`.
     */
    requests: Request[];
}

/**
 * The last reported usage, placed by uuid.
 */
export interface CountAnchor {
    /**
     * The message at the usage's position (`null`: after the view's last).
     */
    uuid: string | null;
    /**
     * The tokens reported.
     */
    reported: number;
    /**
     * The reply's counted output minus its content's estimate.
     */
    replyDelta: number;
    /**
     * What the view freed (negative) or added before it since.
     */
    prefixDelta: number;
}

/**
 * The lines, in whole tokens (SPEC R1.1–R1.4).
 */
export interface Thresholds {
    /**
     * The context window the lines were derived from.
     */
    window: number;
    /**
     * Room kept for the model's reply: `min(maxOutputTokens, reserveCap)`.
     */
    reserve: number;
    /**
     * `window − reserve`.
     */
    budget: number;
    /**
     * The model input ceiling the blocked line hangs from.
     */
    ceiling: number;
    /**
     * A background summary starts here.
     */
    precompute: number;
    /**
     * The host shows "N tokens left" from here.
     */
    warn: number;
    /**
     * Auto-compaction (tiers 2–4) runs from here.
     */
    compact: number;
    /**
     * Calls are refused from here until the host compacts.
     */
    blocked: number;
    /**
     * The compact line without the override.
     */
    compactDefault: number;
    /**
     * The override percentage asked for, or `null`.
     */
    overrideRequestedPct: number | null;
    /**
     * The override percentage in force, or `null` when none was asked for
     * or it would have raised the line (it can only lower it).
     */
    overrideAppliedPct: number | null;
}

/**
 * The preset names (settings where the sources disagree).
 */
export type PresetName = "seed" | "client-2.1" | "newer-client";

/**
 * The result of `answer()`, `compact()`, `promptTooLong()` and
 * `swapInSummary()`: the steps taken, every request pending now, and where
 * the compaction stands (`null` for a segment or precompute answer).
 */
export interface Outcome {
    /**
     * What the engine did.
     */
    steps: Step[];
    /**
     * Every request pending now.
     */
    requests: Request[];
    /**
     * Where the compaction stands, or `null`.
     */
    compaction: Progress | null;
}

/**
 * The results the server is predicted to clear (context editing): the
 * oldest eligible ones up to `through`.
 */
export interface CountServerCleared {
    /**
     * The `tool_use_id` of the newest eligible call whose result is cleared.
     */
    through: string;
    /**
     * Eligible tool calls in the view when the microcompact last fired.
     */
    firedAt: number;
}

/**
 * The summary message.
 */
export interface SummaryPayload {
    /**
     * `"user"`.
     */
    role: string;
    /**
     * The summary text.
     */
    content: string;
}

/**
 * The summary record after a boundary.
 */
export interface SummaryRecord {
    /**
     * `"user"`.
     */
    type: string;
    /**
     * Its uuid.
     */
    uuid: string;
    /**
     * The boundary.
     */
    parentUuid: string;
    /**
     * Always `true`.
     */
    isCompactSummary: boolean;
    /**
     * The summary message.
     */
    message: SummaryPayload;
}

/**
 * The tiers of the cascade.
 */
export type Tier = "budgetReduction" | "lines" | "microcompact" | "snip" | "collapse" | "compact" | "reactive";

/**
 * What `engine.loadSession` loaded: the file's report, and the messages
 * now in the engine's view.
 */
export interface SessionLoad {
    /**
     * The file's report (passed through as it came).
     */
    report: ImportReport;
    /**
     * The boundary the resumed view starts after, or `null`.
     */
    boundary: string | null;
    /**
     * Messages appended to the engine.
     */
    appended: number;
}

/**
 * What `host.preCompact` returns: block, or add instructions (nothing or
 * `undefined`: allow).
 */
export interface HookOutcome {
    /**
     * Block the compaction, with this reason.
     */
    block?: string | null;
    /**
     * Instructions to add to the summary prompt.
     */
    addedInstructions?: string[];
}

/**
 * What a step did to the prompt cache.
 */
export type CacheEffect = { kind: "intact" } | { kind: "prefixBroken"; from: string } | { kind: "serverInvalidatesFrom"; from: string };

/**
 * What a summary is for.
 */
export type Purpose = { kind: "compact" } | { kind: "precompute" } | { kind: "collapseSegment"; firstTurn: number; lastTurn: number };

/**
 * What a summary left out.
 */
export interface RetentionReport {
    /**
     * User prompts the summary does not mention.
     */
    missingPrompts: MissingPrompt[];
    /**
     * File paths it does not mention.
     */
    missingPaths: string[];
}

/**
 * What an attachment restores (SPEC R7.7).
 */
export type AttachmentKind = "file" | "plan" | "taskState" | "skill" | "mcp" | "hookOutput";

/**
 * What importing a Claude Code session file found (SPEC R11).
 */
export interface ImportReport {
    /**
     * Lines read.
     */
    lines: number;
    /**
     * Records parsed.
     */
    records: number;
    /**
     * Records per `type`.
     */
    recordTypes: Record<string, number>;
    /**
     * Sidechain records (subagents), not in the main chain.
     */
    sidechainRecords: number;
    /**
     * Messages (split assistant lines merged).
     */
    messages: number;
    /**
     * `tool_use` blocks.
     */
    toolUses: number;
    /**
     * `tool_result` blocks.
     */
    toolResults: number;
    /**
     * Unpaired tool uses and results.
     */
    orphans: number;
    /**
     * Boundaries in file order.
     */
    boundaries: BoundarySummary[];
    /**
     * Client versions seen.
     */
    versions: string[];
    /**
     * Session ids seen.
     */
    sessions: string[];
    /**
     * The chain's leaf, or `null`.
     */
    leaf: string | null;
    /**
     * Messages in the resumed view.
     */
    activeMessages: number;
    /**
     * Every problem found, including repairs made to keep tool pairs legal.
     */
    problems: Problem[];
}

/**
 * What one post-compact hook printed (SPEC R7.1).
 */
export interface HookOutput {
    /**
     * The hook's name or command.
     */
    hook: string;
    /**
     * What it printed.
     */
    output: string;
}

/**
 * What reported usage has said of the estimator.
 */
export interface CountCalibration {
    /**
     * Reported tokens between consecutive reports.
     */
    real: number;
    /**
     * Estimated tokens of the same messages.
     */
    estimated: number;
}

/**
 * What the host must do with the call (SPEC R1.7).
 */
export type CallStatus = { kind: "proceed" } | { kind: "warn"; tokensLeft: number } | { kind: "compactionDue"; overBy: number } | { kind: "waitForCollapse"; pending: number } | { kind: "blocked"; overBy: number };

/**
 * Where a behaviour comes from.
 */
export type Evidence = { kind: "sourceLocation"; location: string } | { kind: "runtimeProbe"; probe: string } | { kind: "thirdParty" } | { kind: "publicApi" } | { kind: "illustrative" } | { kind: "extension" };

/**
 * Where a compaction stands.
 */
export type Progress = { kind: "waiting" } | { kind: "compacted"; result: Compacted; records: string[] } | { kind: "failed"; reason: string };

/**
 * Where a token figure comes from.
 */
export type Basis = "estimated" | "reported" | "reportedPlusEstimate";

/**
 * Who does a step in Claude Code.
 */
export type Owner = "client" | "model" | "hook" | "server";

/**
 * `compactMetadata` of a boundary.
 */
export interface CompactMetadata {
    /**
     * `"manual"` or `"auto"`.
     */
    trigger: "manual" | "auto";
    /**
     * The count before.
     */
    preTokens: number;
    /**
     * The count of the new view.
     */
    postTokens: number;
    /**
     * Messages kept verbatim after the summary.
     */
    preservedMessages: string[];
    /**
     * Tokens dropped by every compaction so far.
     */
    cumulativeDroppedTokens: number;
}

/**
 * `compactionRequest()`: an on-demand compaction of the whole view (SPEC
 * R13.2). Send `{ model, max_tokens, messages: engine.messages(),
 * compaction, betas }` through `client.beta.messages.create`, with no
 * `context_management` (the API refuses the two together, R13.4), then
 * `swapInSummary(summarised, block)` with the `compaction` block it
 * returns. (A mirror: the engine's value crosses as it is.)
 */
export interface OnDemandCompaction {
    /**
     * The uuids of the messages it summarises: the whole view, in order.
     */
    summarised: string[];
    /**
     * The request's `compaction` parameter (the SDK's `BetaCompactionConfig`).
     */
    compaction: CompactionConfig;
    /**
     * The beta headers it needs: `compact-2026-09-04` and what the
     * messages hold, never `context-management-2025-06-27`.
     */
    betas: string[];
}

/**
 * `usage` as the engine reports it (all four counters).
 */
export interface ReportedUsage {
    /**
     * Uncached input tokens.
     */
    input_tokens: number;
    /**
     * Output tokens.
     */
    output_tokens: number;
    /**
     * Input tokens written to the prompt cache.
     */
    cache_creation_input_tokens: number;
    /**
     * Input tokens read from the prompt cache.
     */
    cache_read_input_tokens: number;
}

/**
 * `{ type: "input_tokens", value }`.
 */
export interface InputTokensAmount {
    /**
     * `"input_tokens"`.
     */
    type: "input_tokens";
    /**
     * Tokens.
     */
    value: number;
}

/**
 * `{ type: "tool_uses", value }`.
 */
export interface ToolUsesAmount {
    /**
     * `"tool_uses"`.
     */
    type: "tool_uses";
    /**
     * Tool uses.
     */
    value: number;
}


/**
 * The compaction engine for one agent session (sans-IO: it never calls a
 * model; it says what to send and what to ask).
 */
export class Engine {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * Answers the pending request `id` (any kind: see `Request`): the
     * model's text as a string, or an `Answer`. A wrong id is an `Error`
     * with `code` `UNKNOWN_REQUEST`, an answer of the wrong kind
     * `WRONG_ANSWER`; either way nothing changes.
     */
    answer(id: number, answer: string | Answer): Outcome;
    /**
     * Appends one message (in the engine's `format`; Anthropic's: a
     * `MessageParam` with optional `uuid`, `timestamp`, `usage`); returns
     * its uuid. The object is not changed. `usage`: what the API reported
     * for the request this reply answered (`ReplyUsage`, in the
     * format's shape); the message must be an assistant message. A usage
     * that is not one is `INVALID_ARGUMENT` naming its field
     * (`usage.prompt_tokens`), and nothing is appended.
     */
    append(message: MessageInput, usage?: ReplyUsage | null): string;
    /**
     * Runs the cascade before a model call (tiers 1–4, statuses) and
     * returns the decision: steps, count, status, `contextManagement` to
     * send, and any summary requests to answer. Then send `messages()`.
     */
    beforeCall(now?: string | null): Decision;
    /**
     * A manual compaction (`/compact [instructions]`). Its first request
     * is your PreCompact hooks' (`preCompact`); answer the outcome's
     * `requests` (or `prepare(host)` does).
     */
    compact(instructions?: string | null): Outcome;
    /**
     * An on-demand compaction of the whole view (SPEC R13.2): the
     * request's `compaction` parameter and `betas`, and the uuids it
     * summarises. Send it with `messages()` and no `context_management`,
     * then `swapInSummary(summarised, block)` with the returned
     * `compaction` block. `instructions` replace the server's prompt.
     * `null` when the view is empty or ends with an unanswered tool call.
     */
    compactionRequest(instructions?: string | null): OnDemandCompaction | null;
    /**
     * The count now (SPEC R1.6).
     */
    count(): TokenFigure;
    /**
     * Undoes a compaction in the view: the entries its summary (`uuid`)
     * replaced come back. Returns the step.
     */
    expand(uuid: string): Step;
    /**
     * The lines the count is held against.
     */
    lines(): Thresholds;
    /**
     * Appends a history given as a JSON string: an array of messages, or
     * an API request body `{ system?, messages }` (its system prompt is
     * set too). Parsed inside wasm, in one pass: the fast path for bulk
     * loads. Returns how many messages were appended.
     */
    loadJson(json: string | Uint8Array): number;
    /**
     * Loads a session (from `readSession` or a `SessionImporter`, in the
     * `context-compaction/session` module) into this new engine: its
     * resumed view (the last boundary's summary, the preserved messages,
     * what followed). Records the engine writes next continue the file's
     * chain and session id. Returns the file's report (its problems
     * included: bad lines are reported, never fatal).
     */
    loadSession(session: Session): SessionLoad;
    /**
     * Appends a whole history of message objects; returns how many. All
     * or nothing, like `loadJson`, which it uses: the array is written as
     * JSON once and parsed in one pass (faster than one crossing per
     * message). `loadJson` on text you already have is faster still.
     * `usage`: what the API reported for the model reply among them (a
     * response's `output`, a step's messages): it goes to their last
     * assistant message (none: `INVALID_ARGUMENT` on `usage`, nothing
     * appended).
     */
    load(messages: MessageInput[], usage?: ReplyUsage | null): number;
    /**
     * The messages to send now, as the API takes them (`role`, `content`),
     * or in the engine's `format`: there, every item no tier touched is
     * the very object you gave.
     */
    messages(): MessageParam[];
    /**
     * A new engine. `settings` is a preset name (`"seed"`,
     * `"client-2.1"`, `"newer-client"`) or an `EngineSettings` object;
     * default: the seed preset with a 200,000-token window.
     */
    constructor(settings?: EngineSettings | PresetName);
    /**
     * Pins a message: never snipped or cleared; kept verbatim after a
     * compaction.
     */
    pin(uuid: string): void;
    /**
     * The pinned uuids, sorted.
     */
    pinned(): string[];
    /**
     * What `beforeCall` would decide now, changing nothing (a dry run).
     */
    plan(now?: string | null): Decision;
    /**
     * The API refused the call as too long (`isPromptTooLong(error)`):
     * the reactive tier (SPEC R8.1). First collapse overflow recovery, on
     * the next refusal of the same call an emergency compaction, after that
     * `failed`. `tokens`: the prompt's real size when the error states it
     * (`promptTooLongTokens(error)`); the count is recalibrated to it.
     */
    promptTooLong(tokens?: number | null): Outcome;
    /**
     * Every transcript record so far, as JSONL lines in Claude Code's
     * shape: one per appended message, and a compaction's
     * `compact_boundary`, summary and attachments. Written to a file, they
     * resume with `readSession` and `loadSession`.
     */
    records(): string[];
    /**
     * Registers the context you hold outside the messages, restored after
     * each compaction (SPEC R7.7): your plan and task list (otherwise the
     * last `ExitPlanMode` plan and `TodoWrite` list in the history are
     * used), each skill's content by name (restored when the history
     * invoked it), MCP servers' instructions. Replaces what was registered.
     */
    setContext(items: ContextItem[]): void;
    /**
     * Sets the system prompt (and tool definitions, as text) sent with
     * every call; it counts while no usage is reported.
     */
    setSystem(system: string): void;
    /**
     * A summary request's `messages` (Anthropic's shape, as every request
     * carries them) in this engine's `format`: Chat Completions messages
     * (a tool result becomes its `tool` message), Responses items, AI SDK
     * `ModelMessage`s, LangChain stored messages. Send them, then
     * `request.prompt` as a user message, to your model:
     * `[...engine.summaryMessages(request), { role: "user", content: request.prompt }]`.
     * Typed as `messages()` is: the typed constructors of
     * `context-compaction/ai-sdk`, `/openai` and `/langchain` type both in
     * their SDK's shape.
     */
    summaryMessages(request: SummaryRequest): MessageParam[];
    /**
     * Swaps in a summary written elsewhere (SPEC R9.4: the Anthropic API's
     * background compaction, or your own summariser) for exactly the
     * messages `uuids` it was made from. They must still open the view in
     * order and end on a legal cut; otherwise the outcome is `failed` and
     * the view stays.
     *
     * `summary` is the summary's text, or a signed `compaction` block
     * (`{ type: "compaction", content, encrypted_content, signature?,
     * tool_changes? }`, R13.2): the block is kept byte for byte and nothing
     * is inserted between it and the messages after the summarised ones.
     */
    swapInSummary(uuids: string[], summary: string | CompactionBlock): Outcome;
    /**
     * The records written since the last `takeRecords()` (append them to
     * the session file).
     */
    takeRecords(): string[];
    /**
     * Unpins a message (unknown uuids change nothing).
     */
    unpin(uuid: string): void;
    /**
     * The view with the engine's fields (`uuid`, `timestamp`, `usage`).
     */
    view(): Message[];
}

/**
 * What the engine would decide before the next call on this history,
 * with these settings (a preset name or an `EngineSettings` object).
 * `messages` is a JSON string (an array of `MessageParam`s or a request
 * body `{ system?, messages }`: the fast path) or an array of message
 * objects. Nothing is kept between calls.
 */
export function plan(settings: EngineSettings | PresetName | undefined, messages: string | MessageInput[], now?: string | null): Decision;

/**
 * The lines a context count is held against (SPEC R1): budget, precompute,
 * warn, compact and blocked, in whole tokens.
 *
 * ```ts
 * import { thresholds } from "context-compaction";
 * const t = thresholds({ window: 200_000, maxOutputTokens: 20_000 });
 * // t.budget 180000, t.precompute 144000, t.warn 147000, t.compact 167000, t.blocked 177000
 * ```
 *
 * Throws an `Error` with `code: "INVALID_SETTING"` and `field` naming the
 * setting for invalid input; the module stays usable.
 */
export function thresholds(settings: ThresholdSettings): Thresholds;

