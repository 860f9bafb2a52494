// The package README's blocks tagged `// run: NAME` (```js blocks that are
// not a format family's example), each run as a script inside tests/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const readme = readFileSync(join(here, "../node_modules/context-compaction/README.md"), "utf8");
const blocks = new Map([...readme.matchAll(/```js\n\/\/ run: ([\w-]+)\n([\s\S]*?)```/g)].map((m) => [m[1], m[2]]));

const expected = {
  "ai-sdk-concurrency": /^1 messages seen\. \| 1 messages seen\. \| 1 messages seen\.$/,
  // The route's state on the reply: the usage of its last step.
  "ai-sdk-stateless-route": /^1200$/,
  // The second turn's model call got 3 items, and the engine counted from
  // the usage the first reported.
  "openai-agents": /^3 items seen\. reportedPlusEstimate$/,
  // LangChain's createAgent with the engine as its middleware: the same.
  "langchain-middleware": /^3 messages seen\. reportedPlusEstimate$/,
};

for (const [name, output] of Object.entries(expected)) {
  test(`README block ${name} runs`, () => {
    const code = blocks.get(name);
    assert.ok(code, `the README has a block tagged // run: ${name}`);
    const file = join(here, `.readme-run-${name}.mjs`);
    writeFileSync(file, code);
    try {
      const out = execFileSync(process.execPath, [file], { encoding: "utf8" }).trim();
      assert.match(out, output);
    } finally {
      rmSync(file, { force: true });
    }
  });
}
