// Every kind of bad setting, with the exact `field` and message the binding
// gives (pinned so that sharing the error code between settings, for the
// module's size, cannot change a text).
import { test } from "node:test";
import assert from "node:assert/strict";

import { Engine } from "context-compaction";

const long = "y".repeat(60);

test("each bad setting names its field with the same message", () => {
  const cases = [
    [5, "settings", 'settings must be a preset name or an object like { preset: "seed", window: 200000 }, got number'],
    [{ preset: 7 }, "preset", "invalid setting `preset` = number: must be a string"],
    [{ preset: "zzz" }, "preset", 'unknown preset "zzz"; known presets: seed, client-2.0.76, client-2.1, newer-client'],
    [
      { bogus: 1 },
      "bogus",
      "unknown setting `bogus`; known settings: reduction, countTokens, preset, format, window, maxOutputTokens, reserveCap, ceiling, overridePct, model, fallbackModels, sessionId, snip, collapse, thinking, compaction, serverInstructions, clearThinking, uncalibratedMarginPct, contextEditing",
    ],
    [{ reduction: { bad: 1 } }, "bad", "unknown setting `bad`; known settings: maxChars, headChars, tailChars"],
    [{ window: "x" }, "window", 'invalid setting `window` = "x": must be a number'],
    [{ maxOutputTokens: null }, "maxOutputTokens", "invalid setting `maxOutputTokens` = null: must be a number"],
    [{ ceiling: "9" }, "ceiling", 'invalid setting `ceiling` = "9": must be a number'],
    [{ model: 3 }, "model", "invalid setting `model` = number: must be a string"],
    [{ sessionId: 9 }, "sessionId", "invalid setting `sessionId` = number: must be a string"],
    [{ fallbackModels: [1] }, "fallbackModels", "invalid setting `fallbackModels`: must be an array of model names"],
    [{ thinking: "x" }, "thinking", 'invalid setting `thinking` = "x": must be "strip", "drop_block" or "keep"'],
    // A wrong mode is shown whole; a value of the wrong kind is cut at 40 characters.
    [{ thinking: long }, "thinking", `invalid setting \`thinking\` = "${long}": must be "strip", "drop_block" or "keep"`],
    [{ thinking: 4 }, "thinking", "invalid setting `thinking` = number: must be a string"],
    [{ compaction: "both" }, "compaction", 'invalid setting `compaction` = "both": must be "client" or "server"'],
    [{ compaction: long }, "compaction", `invalid setting \`compaction\` = "${long}": must be "client" or "server"`],
    [{ compaction: true }, "compaction", "invalid setting `compaction` = boolean: must be a string"],
    [
      { clearThinking: { type: "x" } },
      "clearThinking",
      'invalid setting `clearThinking`: must be a clear_thinking_20251015 edit like { type: "clear_thinking_20251015", keep: "all" }',
    ],
    [{ snip: "yes" }, "snip", 'invalid setting `snip` = "yes": must be true or false'],
    [{ snip: long }, "snip", `invalid setting \`snip\` = "${"y".repeat(40)}…": must be true or false`],
    [{ collapse: 1 }, "collapse", "invalid setting `collapse` = number: must be true or false"],
    [{ serverInstructions: null }, "serverInstructions", "invalid setting `serverInstructions` = null: must be true or false"],
    [{ contextEditing: "no" }, "contextEditing", 'invalid setting `contextEditing` = "no": must be true or false'],
    [
      { contextEditing: false, compaction: "server" },
      "contextEditing",
      'invalid setting `contextEditing` = false with `compaction: "server"`: server compaction is a `context_management` edit, so the host must send it',
    ],
    [{ uncalibratedMarginPct: "15" }, "uncalibratedMarginPct", 'invalid setting `uncalibratedMarginPct` = "15": must be a number'],
    [{ uncalibratedMarginPct: 2.5 }, "uncalibratedMarginPct", "invalid setting `uncalibratedMarginPct` = number: must be a whole number from 0 to 100"],
    [{ uncalibratedMarginPct: -1 }, "uncalibratedMarginPct", "invalid setting `uncalibratedMarginPct` = number: must be a whole number from 0 to 100"],
    [{ countTokens: "f" }, "countTokens", 'invalid setting `countTokens` = "f": must be a function (text: string) => number'],
    [{ reduction: "on" }, "reduction", 'invalid setting `reduction` = "on": must be false or { maxChars?, headChars?, tailChars? }'],
    [{ reduction: [] }, "reduction", "invalid setting `reduction` = object: must be false or { maxChars?, headChars?, tailChars? }"],
    [
      { reduction: { maxChars: -1 } },
      "reduction.maxChars",
      "invalid setting `reduction.maxChars` = number: must be a whole number of characters below 4294967295",
    ],
    [
      { reduction: { headChars: "3" } },
      "reduction.headChars",
      'invalid setting `reduction.headChars` = "3": must be a whole number of characters below 4294967295',
    ],
  ];
  for (const [settings, field, message] of cases) {
    assert.throws(
      () => new Engine(settings),
      (e) => {
        assert.equal(e instanceof Error, true);
        assert.deepEqual([e.code, e.field, e.message], ["INVALID_SETTING", field, message]);
        return true;
      },
      JSON.stringify(settings),
    );
  }
});
