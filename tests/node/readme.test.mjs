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

test("the README's agent loop and session example run in an empty project with the packed package", () => {
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
    // The session example, on a real Claude Code session file.
    const sessionExample = [...readme.matchAll(/```js\n([\s\S]*?)```/g)][1][1];
    assert.match(sessionExample, /readSession\(/);
    writeFileSync(join(dir, "session.mjs"), sessionExample);
    writeFileSync(join(dir, "session.jsonl"), readFileSync(join(here, "../../crates/compaction-core/tests/fixtures/transcripts/wpfleger96__claude-code-status-line__session_with_compact.jsonl")));
    const session = execFileSync(process.execPath, ["session.mjs"], { cwd: dir, encoding: "utf8" }).trim().split("\n");
    assert.equal(session.length, 2, session.join("\n"));
    assert.match(session[0], /^\d+ messages, \d+ problems$/);
    assert.match(session[1], /^[1-9]\d* in the view, [1-9]\d* tokens$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
