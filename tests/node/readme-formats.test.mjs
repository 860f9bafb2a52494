// The package README's format examples (```js blocks opening with
// `// example: NAME`), each run as a script inside tests/, where `ai`,
// `openai` and `@langchain/core` are installed: every documented example
// runs in CI.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const readme = readFileSync(join(here, "../node_modules/context-compaction/README.md"), "utf8");
const examples = [...readme.matchAll(/```js\n\/\/ example: ([\w-]+)\n([\s\S]*?)```/g)];

const expected = {
  "ai-sdk": /^Done\. true$/,
  openai: /^proceed 6 4$/,
  langchain: /^human ai tool$/,
};

test("the README has one example per format family", () => {
  assert.deepEqual(examples.map((m) => m[1]).sort(), Object.keys(expected).sort());
});

for (const [, name, code] of examples) {
  test(`README example ${name} runs`, () => {
    const file = join(here, `.readme-${name}.mjs`);
    writeFileSync(file, code);
    try {
      const out = execFileSync(process.execPath, [file], { encoding: "utf8" }).trim();
      assert.match(out, expected[name]);
    } finally {
      rmSync(file, { force: true });
    }
  });
}
