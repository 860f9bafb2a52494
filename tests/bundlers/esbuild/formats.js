// esbuild: `context-compaction/formats/web` in an IIFE (no top-level await
// anywhere), its .wasm through the `file` loader.
import init from "context-compaction/formats/web";
import wasmUrl from "context-compaction/compaction_formats_bg.wasm";
import { run } from "../formats-app.js";

init(wasmUrl)
  .then(run)
  .then((results) => (window.results = results), (e) => (window.results = { failed: String(e) }));
