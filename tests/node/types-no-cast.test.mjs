// The TypeScript users in tests/types compile with no cast (issue 13): no
// `as` type assertion and no `<T>expr` one outside comments and strings, so
// `tsc -p tests/types` proves the package's types assignable as they are.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const dir = join(dirname(fileURLToPath(import.meta.url)), "..", "types");

/** The source with comments and string literals blanked out. */
function code(text) {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, " ")
    .replace(/\/\/[^\n]*/g, " ")
    .replace(/`(?:\\.|[^`\\])*`|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g, '""');
}

test("tests/types holds no type assertion", () => {
  const files = readdirSync(dir).filter((f) => /\.(m?ts|tsx)$/.test(f));
  assert.ok(files.length >= 4, `${files}`);
  for (const f of files) {
    const src = code(readFileSync(join(dir, f), "utf8"));
    const cast = src.match(/\)\s*as\s+[\w{[(]|[\w\]]\s+as\s+[\w{[(]|<[A-Z]\w*(?:\[\])?>\s*[\w(]/);
    assert.equal(cast, null, `${f}: a cast: ${cast && cast[0]}`);
  }
});

test("the check sees a cast", () => {
  assert.match(code("const m = engine.messages() as MessageParam[]; // fine as is"), /\)\s*as\s+[\w{[(]/);
  assert.doesNotMatch(code("// goes back as is\nconst s = \"as X\";"), /[\w\]]\s+as\s+[\w{[(]/);
});
