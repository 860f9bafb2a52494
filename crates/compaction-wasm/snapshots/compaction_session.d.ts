/* tslint:disable */
/* eslint-disable */

/** How a session file is resumed (`readSession(source, options)`,
 * `new SessionImporter(options)`). */
export interface SessionOptions {
    /** A message of the resumed view holding a `tool_use` that nothing in
     * the view answers (its result line cut, damaged or never written: a
     * session stopped while a tool ran). `"drop"` (the default) leaves the
     * message out whole, with the results of its other calls, like an
     * orphan `tool_result`; `"errorResult"` keeps it and answers each such
     * call with a synthetic `tool_result` (`is_error: true`) at the start of
     * the next user message, or in a user message of its own. Either way
     * the view is legal for the API and each change is a problem
     * (`orphan_tool_use`) in the report. */
    unansweredToolUse?: "drop" | "errorResult";
}


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
 * Reads a Claude Code session file in chunks (`feed`), so a large file
 * never needs to be in memory whole; `finish()` gives the `Session`
 * (`engine.loadSession(session)` resumes it).
 */
export class SessionImporter {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * Feeds the next chunk of the file: a string or bytes (a chunk may end
     * anywhere, even inside a line, a UTF-8 character or a surrogate pair).
     */
    feed(chunk: string | Uint8Array): void;
    /**
     * Ends the file: its report (records, messages, boundaries,
     * problems…) and the view a resumed session sees. The importer cannot
     * be used afterwards.
     */
    finish(): Session;
    /**
     * An importer with nothing fed yet; `options` say how the view is
     * resumed (`SessionOptions`).
     */
    constructor(options?: SessionOptions | null);
    /**
     * Bytes fed so far.
     */
    readonly bytesFed: number;
}

/**
 * Reads a whole Claude Code session file (its text, or its bytes), or the
 * records an engine wrote (`engine.records()` joined with newlines): the
 * report and the view a resumed session sees, for `engine.loadSession`.
 * Bad lines are problems in the report, never an exception.
 */
export function readSession(source: string | Uint8Array, options?: SessionOptions | null): Session;

