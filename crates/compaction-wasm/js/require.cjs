// `require("context-compaction")` from CommonJS: the package is ES modules.
// Where Node can require an ES module (20.19+, 22.12+), this is that module;
// elsewhere a clear error says to use `import`.
"use strict";
try {
  module.exports = require("./node.js");
} catch (e) {
  if (e && e.code === "ERR_REQUIRE_ESM") {
    const error = new Error(
      'context-compaction is an ES module: use `import { Engine } from "context-compaction"` ' +
        '(from CommonJS: `const { Engine } = await import("context-compaction")`), or Node >= 20.19, which can require it.',
      { cause: e },
    );
    error.code = "ERR_REQUIRE_ESM";
    throw error;
  }
  throw e;
}
