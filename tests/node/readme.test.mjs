// The package README's agent loop, run as a stranger would: the packed
// tarball `npm install`ed into an empty project in the system's temp
// directory, the README's first ```js block saved as a plain script, `node`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const npmDir = join(here, "../../target/npm");

test("the README's agent loop runs in an empty project with the packed package", () => {
  const tarball = readdirSync(npmDir).find((f) => f.endsWith(".tgz"));
  assert.ok(tarball, "scripts/test.sh packs pkg/ into target/npm first");
  const dir = mkdtempSync(join(tmpdir(), "cc-readme-"));
  try {
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "stranger", private: true, type: "module" }));
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--offline", join(npmDir, tarball)], { cwd: dir, stdio: "pipe" });
    const readme = readFileSync(join(dir, "node_modules/context-compaction/README.md"), "utf8");
    const example = readme.match(/```js\n([\s\S]*?)```/)[1];
    assert.match(example, /new Engine\(/);
    writeFileSync(join(dir, "example.mjs"), example);
    const out = execFileSync(process.execPath, ["example.mjs"], { cwd: dir, encoding: "utf8" });
    const lines = out.trim().split("\n");
    assert.equal(lines.length, 3, out);
    assert.match(lines[0], /^proceed \d+$/);
    assert.match(lines[2], /^\d+ records$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
