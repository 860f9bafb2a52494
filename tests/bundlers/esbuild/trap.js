// The default entry bundled by esbuild: its .wasm is not copied, so loading
// fails, and the error must say what to do instead.
import { thresholds } from "context-compaction";

window.results = { compact: thresholds({ window: 200_000 }).compact };
