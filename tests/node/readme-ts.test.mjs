// The package README's TypeScript agent loop (its ```ts block that builds an
// `Anthropic` client), as a user runs it: compiled by `tsc` in strict mode
// against the real @anthropic-ai/sdk 1.17 types and the installed package's
// `.d.ts`, with no cast, then executed by node with the SDK's transport
// (`fetch`) replaced by the stand-in Messages API of ./fake-anthropic.mjs.
// The stand-in refuses one call with the API's real-shaped HTTP 400
// "prompt is too long", so the loop's reactive path runs too, and checks
// each signed thinking block sent back (summary calls included) against the
// system prompt, tools and messages it was signed over (SPEC R13.1).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { BETA_CONTEXT_MANAGEMENT, apiTokens, fakeApi } from "./fake-anthropic.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const modules = join(here, "..", "node_modules");
const tsc = join(modules, ".bin", "tsc");

/** The README's TypeScript loop, from the installed package. */
function readmeLoop() {
  const readme = readFileSync(join(modules, "context-compaction", "README.md"), "utf8");
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  const loop = blocks.find((b) => b.includes("new Anthropic("));
  assert.ok(loop, "the README has a ```ts block with the SDK loop");
  return loop;
}

/** The source with comments and string literals blanked out (as types-no-cast.test.mjs). */
function code(text) {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, " ")
    .replace(/\/\/[^\n]*/g, " ")
    .replace(/`(?:\\.|[^`\\])*`|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g, '""');
}

test("the README's TypeScript loop compiles strict against SDK 1.17 with no cast, and runs through the SDK", { timeout: 120_000 }, async () => {
  const loop = readmeLoop();
  const cast = code(loop).match(/\)\s*as\s+[\w{[(]|[\w\]]\s+as\s+[\w{[(]|<[A-Z]\w*(?:\[\])?>\s*[\w(]/);
  assert.equal(cast, null, `a cast in the README's loop: ${cast && cast[0]}`);
  const dir = mkdtempSync(join(tmpdir(), "cc-readme-ts-"));
  try {
    // tests/node_modules holds the packed package (scripts/test.sh installs
    // it) and the SDK, as a user's project would.
    symlinkSync(modules, join(dir, "node_modules"), "dir");
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "stranger", private: true, type: "module" }));
    writeFileSync(join(dir, "agent.mts"), loop);
    // Two projects: one with the browser's `lib` ("dom"), and a Node one
    // (`@types/node`, no "dom"), each checking the package's .d.ts too.
    for (const [project, lib, types] of [
      ["dom", ["es2022", "dom", "esnext.disposable"], []],
      ["node", ["es2022", "esnext.disposable"], ["node"]],
    ]) {
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            exactOptionalPropertyTypes: true,
            target: "es2022",
            module: "nodenext",
            moduleResolution: "nodenext",
            lib,
            types,
            skipLibCheck: false,
            outDir: ".",
          },
          files: ["agent.mts"],
        }),
      );
      try {
        execFileSync(tsc, ["-p", dir], { encoding: "utf8", stdio: "pipe" });
      } catch (e) {
        assert.fail(`tsc (${project} project) refused the README's loop:\n${e.stdout}${e.stderr}`);
      }
    }
    assert.ok(existsSync(join(dir, "agent.mjs")), "tsc wrote agent.mjs");

    // The stand-in API: each prompt gets a read_file call, then an answer;
    // the first request of the second prompt is refused as too long.
    let refusedOnce = false;
    const lastUserText = (body) => {
      const users = body.messages.filter((m) => m.role === "user" && typeof m.content === "string");
      return users.at(-1)?.content ?? "";
    };
    const { fetch, log } = fakeApi({
      reply: (body) => {
        const last = body.messages.at(-1);
        const answered = Array.isArray(last.content) && last.content.some((b) => b.type === "tool_result");
        return answered
          ? [{ type: "text", text: "Done.", citations: null }]
          : [{ type: "tool_use", id: `toolu_${log.calls}`, name: "read_file", input: { path: "utils.py" } }];
      },
      summary: () => "<analysis>ok</analysis>\n<summary>\n1. Primary Request and Intent: refactor utils.py, then tests.\n</summary>",
      isSummary: (body) => body.tool_choice?.type === "none",
      count: (body) => {
        if (!refusedOnce && lastUserText(body) === "Now add tests" && body.tool_choice?.type !== "none") {
          refusedOnce = true;
          return 201_234;
        }
        return apiTokens(body);
      },
    });
    const saved = { fetch: globalThis.fetch, key: process.env.ANTHROPIC_API_KEY, log: console.log };
    const printed = [];
    globalThis.fetch = fetch;
    process.env.ANTHROPIC_API_KEY = "sk-ant-test";
    console.log = (...args) => printed.push(args.join(" "));
    try {
      await import(pathToFileURL(join(dir, "agent.mjs")).href);
    } finally {
      globalThis.fetch = saved.fetch;
      if (saved.key === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved.key;
      console.log = saved.log;
    }
    assert.equal(printed.length, 3, printed.join("\n"));
    assert.match(printed[0], /^proceed \d+$/);
    assert.match(printed[1], /^proceed \d+$/);
    assert.match(printed[2], /^[1-9]\d* records$/);
    assert.deepEqual(log.refusals.map((r) => r.kind), ["tooLong"], "one 400, from the stand-in's count");
    assert.ok(log.summaries >= 1, "the reactive tier's summary went through the SDK");
    assert.equal(log.calls, 4, "two calls a prompt");
    assert.equal(log.pairsBroken, 0);
    // Extended thinking: the signed blocks went back, to the calls and to
    // the summary call, over the prefix they were signed over.
    assert.ok(log.thinkingChecked > 0, "the loop sent signed thinking back");
    assert.ok(log.thinkingInSummaries > 0, "the summary request held signed thinking, checked against its system and tools");
    assert.ok(!log.betas.has(BETA_CONTEXT_MANAGEMENT) || log.sawEdits > 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
