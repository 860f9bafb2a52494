// Vite: `context-compaction/formats/web` with init() and no argument (the
// formats .wasm next to the entry, rewritten by Vite to its emitted asset).
import init from "context-compaction/formats/web";
import { run } from "../formats-app.js";

init()
  .then(run)
  .then((results) => (window.results = results), (e) => (window.results = { failed: String(e) }));
