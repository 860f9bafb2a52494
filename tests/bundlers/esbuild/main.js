// esbuild: the .wasm comes in through the `file` loader (esbuild copies it
// and gives its URL); the page is an IIFE, so nothing may use top-level await.
import init from "context-compaction/web";
import wasmUrl from "context-compaction/compaction_wasm_bg.wasm";
import { run } from "../app.js";

init(wasmUrl)
  .then(run)
  .then((results) => (window.results = results), (e) => (window.results = { failed: String(e) }));
