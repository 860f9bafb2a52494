// A small user of the package's generated types: `tsc --noEmit` must accept
// it, and every `@ts-expect-error` below must really be an error.
import { thresholds, type ThresholdSettings, type Thresholds } from "context-compaction";

const settings: ThresholdSettings = { window: 200_000, maxOutputTokens: 20_000 };
const lines: Thresholds = thresholds(settings);

const headroom: number = lines.blocked - lines.compact;
const applied: number | null = lines.overrideAppliedPct;
console.log(headroom, applied, thresholds({ window: 1_000_000, overridePct: 80 }).compact);

// @ts-expect-error the window is a number, not a string
thresholds({ window: "200000" });
// @ts-expect-error the window is required
thresholds({ maxOutputTokens: 20_000 });
// @ts-expect-error unknown settings are rejected at compile time too
thresholds({ window: 200_000, maxOutput: 1 });
// @ts-expect-error the result is not `any`: there is no such field
lines.budgett.toFixed();
// @ts-expect-error the override may be null
const pct: number = lines.overrideRequestedPct;
console.log(pct);
