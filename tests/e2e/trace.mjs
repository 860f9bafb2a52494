// The page's main-thread CPU time from a Chromium performance trace, for
// the browser benchmarks' assertions: on this 2-core machine, with builds
// running beside the tests, wall-clock durations (a long task's, a frame's)
// grow with every time the main thread is preempted; the thread time the
// trace records for each event (`tts`, `tdur`) does not.

/** The trace categories read here. */
const CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline"];

/**
 * Runs `run()` with Chromium tracing `page`, and returns what `run` returned
 * and the trace of the page's main thread: `marks` (each
 * `console.timeStamp(name)` the page made: `{ name, ts, tts }`, µs of the
 * trace's wall clock and of the thread's CPU clock) and `tasks` (each task
 * the main thread ran: `{ ts, dur, tts, tdur }`, µs)).
 */
export async function traced(browser, page, run) {
  await browser.startTracing(page, { categories: CATEGORIES });
  let result;
  let buffer;
  try {
    result = await run();
  } finally {
    buffer = await browser.stopTracing();
  }
  const { traceEvents } = JSON.parse(buffer);
  const started = traceEvents.find((e) => e.name === "TracingStartedInBrowser");
  const pid = started?.args?.data?.frames?.find((f) => f.isOutermostMainFrame)?.processId;
  const main = traceEvents.find((e) => e.ph === "M" && e.name === "thread_name" && e.pid === pid && e.args.name === "CrRendererMain");
  if (!main) throw new Error("no main thread of the page in the trace");
  const mine = traceEvents.filter((e) => e.pid === main.pid && e.tid === main.tid);
  const marks = mine.filter((e) => e.name === "TimeStamp").map((e) => ({ name: e.args.data.message, ts: e.ts, tts: e.tts }));
  const tasks = mine
    .filter((e) => e.name === "RunTask" && e.ph === "X" && typeof e.tdur === "number")
    .map((e) => ({ ts: e.ts, dur: e.dur, tts: e.tts, tdur: e.tdur }));
  return { result, marks, tasks };
}

/**
 * The main thread's CPU time between the marks `from` and `to`, in ms
 * (the difference of the thread clock the trace stamps each mark with).
 */
export function cpuBetween(marks, from, to) {
  const a = marks.find((m) => m.name === from);
  const b = marks.find((m) => m.name === to);
  if (!a || !b) throw new Error(`marks ${from} and ${to} not both in the trace`);
  return (b.tts - a.tts) / 1000;
}

/**
 * The main thread's CPU time, in ms, from the mark `from` to the end of
 * the frame the mark `frame` was made in (from an animation frame
 * callback): to the end of the task that ran that frame's animation
 * callbacks, style, layout, paint and commit. Work the page posts for
 * after that frame (the sandbox's off-screen panels) is not in it.
 */
export function cpuToFrame({ marks, tasks }, from, frame) {
  const a = marks.find((m) => m.name === from);
  const f = marks.find((m) => m.name === frame);
  if (!a || !f) throw new Error(`marks ${from} and ${frame} not both in the trace`);
  const task = tasks.find((t) => t.ts <= f.ts && f.ts <= t.ts + t.dur);
  if (!task) throw new Error(`no task holds the mark ${frame}`);
  return (task.tts + task.tdur - a.tts) / 1000;
}
