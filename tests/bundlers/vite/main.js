// Vite: init() with no argument finds the .wasm next to the entry
// (`new URL(…, import.meta.url)`, which Vite rewrites to the emitted asset).
import init from "context-compaction/web";
import { run } from "../app.js";

init()
  .then(run)
  .then((results) => (window.results = results), (e) => (window.results = { failed: String(e) }));
