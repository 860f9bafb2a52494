/* tslint:disable */
/* eslint-disable */
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

export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

export interface InitOutput {
    readonly memory: WebAssembly.Memory;
    readonly thresholds: (a: any) => [number, number, number];
    readonly __wbindgen_malloc: (a: number, b: number) => number;
    readonly __wbindgen_realloc: (a: number, b: number, c: number, d: number) => number;
    readonly __wbindgen_free: (a: number, b: number, c: number) => void;
    readonly __wbindgen_exn_store: (a: number) => void;
    readonly __externref_table_alloc: () => number;
    readonly __wbindgen_externrefs: WebAssembly.Table;
    readonly __externref_table_dealloc: (a: number) => void;
    readonly __wbindgen_start: () => void;
}

export type SyncInitInput = BufferSource | WebAssembly.Module;

/**
 * Instantiates the given `module`, which can either be bytes or
 * a precompiled `WebAssembly.Module`.
 *
 * @param {{ module: SyncInitInput }} module - Passing `SyncInitInput` directly is deprecated.
 *
 * @returns {InitOutput}
 */
export function initSync(module: { module: SyncInitInput } | SyncInitInput): InitOutput;

/**
 * If `module_or_path` is {RequestInfo} or {URL}, makes a request and
 * for everything else, calls `WebAssembly.instantiate` directly.
 *
 * @param {{ module_or_path: InitInput | Promise<InitInput> }} module_or_path - Passing `InitInput` directly is deprecated.
 *
 * @returns {Promise<InitOutput>}
 */
export default function __wbg_init (module_or_path?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>): Promise<InitOutput>;
