// The package README's agent loop, run as a stranger would: the packed
// tarball `npm install`ed into an empty project in the system's temp
// directory, the README's first ```js block saved as a plain script, `node`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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
    const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
    const example = blocks[0];
    assert.match(example, /new Engine\(/);
    writeFileSync(join(dir, "example.mjs"), example);
    const out = execFileSync(process.execPath, ["example.mjs"], { cwd: dir, encoding: "utf8" });
    const lines = out.trim().split("\n");
    assert.equal(lines.length, 3, out);
    assert.match(lines[0], /^proceed \d+$/);
    assert.match(lines[2], /^\d+ records$/);
    // The session example, on a real Claude Code session file.
    const sessionExample = blocks.find((b) => b.includes('readSession(readFileSync("session.jsonl"))')) ?? "";
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

test("the README's readFiles reads regular files under the project and refuses the rest, at once", () => {
  const tarball = readdirSync(npmDir).find((f) => f.endsWith(".tgz"));
  assert.ok(tarball, "scripts/test.sh packs pkg/ into target/npm first");
  const dir = mkdtempSync(join(tmpdir(), "cc-readme-files-"));
  try {
    execFileSync("tar", ["-xzf", join(npmDir, tarball), "-C", dir, "package/README.md"]);
    const readme = readFileSync(join(dir, "package/README.md"), "utf8");
    const block = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.includes("export const readFiles"));
    assert.ok(block, "the README has the readFiles block");
    const project = join(dir, "project");
    mkdirSync(join(project, "src"), { recursive: true });
    writeFileSync(join(project, "src/main.rs"), "fn main() {}\n");
    writeFileSync(join(project, "big.log"), "x".repeat(200_000));
    writeFileSync(join(dir, "secret.txt"), "not yours");
    symlinkSync("/etc/passwd", join(project, "passwd-link"));
    symlinkSync(join(dir, "secret.txt"), join(project, "secret-link"));
    writeFileSync(join(dir, "files.mjs"), block);
    const paths = ["src/main.rs", "big.log", "/etc/passwd", "../secret.txt", "passwd-link", "secret-link", "/proc/self/environ", "/dev/zero", "src", "missing.rs"];
    const t0 = Date.now();
    const out = JSON.parse(
      execFileSync(process.execPath, ["--input-type=module", "-e", `import { readFiles } from ${JSON.stringify(join(dir, "files.mjs"))}; console.log(JSON.stringify(readFiles(${JSON.stringify(paths)})))`], {
        cwd: project,
        encoding: "utf8",
        timeout: 10_000,
      }),
    );
    assert.ok(Date.now() - t0 < 10_000);
    assert.deepEqual(out.map((a) => a.path), paths);
    assert.equal(out[0].content, "fn main() {}\n");
    assert.equal(out[1].content.length, 64 * 1024, "cut at 64 KB");
    for (const a of out.slice(2)) {
      assert.equal(a.content, undefined, `${a.path} was read`);
      assert.equal(typeof a.error, "string", a.path);
    }
    assert.ok(!JSON.stringify(out).includes("root:"), "nothing of /etc/passwd");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
