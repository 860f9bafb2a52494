// The last line of defence around wasm-bindgen's classes (`Engine`,
// `SessionImporter`), installed by every entry on their prototypes:
// - a call that traps (the shared wasm memory ran out, a bug) half way
//   through changing the object throws an `Error` with `code`
//   "ENGINE_POISONED" instead of a bare `WebAssembly.RuntimeError`, and every
//   later call on that object does too; a trap before the call reached the
//   object (copying a huge argument in) is `code` "WASM_TRAP" and changes
//   nothing; other objects are never touched;
// - a call on a freed object throws `code` "ENGINE_FREED";
// - `free()` (and `[Symbol.dispose]`) always releases the object: after a
//   trap, wasm-bindgen's own borrow of it is never returned, and its free()
//   would throw "attempted to take ownership…" forever;
// - any other error that reaches here without a `code` (none should) gets
//   `code` "ENGINE_ERROR", the original as `cause`;
// - `prepare(host)` is this file's loop over the module's synchronous steps
//   (`__prepareStart`, `__prepareStep`), each host callback awaited between
//   two of them: a trap in any step rejects the promise with
//   "ENGINE_POISONED" (the preparation stopped half way) instead of
//   escaping from a microtask, and other engines' preparations go on;
//   a precompute it leaves pending is started after it resolves and never
//   awaited: its outcome goes to the engine (`__precomputeSettled`, taken
//   by the next prepare()) and to `host.onPrecompute`.
// Arguments are checked inside the module (each wrong type is an
// INVALID_ARGUMENT error naming its field), not here.

const apply = Reflect.apply;
const OWNERSHIP = "attempted to take ownership of Rust value while it was borrowed";
const NULL_POINTER = "null pointer passed to rust";

/** An `Error` with a `code` and `field`, as the module's own errors have
 * (the SDK entries' errors too). */
export function codedError(code, field, message, cause) {
  const error = new Error(message, cause === undefined ? undefined : { cause });
  error.code = code;
  error.field = field;
  return error;
}

const coded = (code, message, cause) => codedError(code, "", message, cause);

// A decision is a copy of the template the engine keeps (its last
// decision's fields, each made by JSON.parse once; src/js/crossing.rs): a
// host that changes a decision changes nothing else. Only a summary
// request's `messages` is given as it is, the same array on every call
// while the request is pending.
// Each object is copied by a spread (V8's fastest clone; it makes a
// `__proto__` key an own property, as JSON.parse does), then its values
// that are objects in turn; `for…in` meets a polluted prototype's keys too,
// hence `hasOwn`. The decision's own fields, its steps, edits and requests
// are copied by what they hold, as index.d.ts types them (no walk over the
// flat ones: a step's walk was 1.3 µs, its copy by its shape 0.13).
const { hasOwn, getPrototypeOf, keys } = Object;
const copy = (value) => {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(copy);
  const out = { ...value };
  for (const key in out) {
    const v = out[key];
    if (typeof v === "object" && v !== null && hasOwn(out, key)) out[key] = copy(v);
  }
  return out;
};
// A request by its kind, as index.d.ts types it: a summary's `purpose` and
// `toolChoice` hold strings and numbers, `fallbackModels` strings, and
// `messages` is given as it is; a files request's `paths` strings; a
// preCompact request holds no object.
// A summary request is written as a literal, its keys in the order the
// engine writes them (V8 allocates it in one go: ~20 % less than a spread
// then three stores; the crossing test checks the order).
// Its `purpose` and `toolChoice` are literals too, by the engine's shapes
// (a collapse segment's turns, else its kind alone; `{ type }`): with 12
// requests pending, decision() 0.69 -> 0.54 us.
const purpose = (p) =>
  p.kind === "collapseSegment" ? { kind: p.kind, firstTurn: p.firstTurn, lastTurn: p.lastTurn } : { kind: p.kind };
const request = (r) => {
  if (r.kind === "files") return { ...r, paths: r.paths.slice() };
  if (r.kind === "preCompact") return { ...r };
  return {
    kind: r.kind,
    id: r.id,
    purpose: purpose(r.purpose),
    model: r.model,
    fallbackModels: r.fallbackModels.length === 0 ? [] : r.fallbackModels.slice(),
    messages: r.messages,
    prompt: r.prompt,
    estimatedTokens: r.estimatedTokens,
    attempt: r.attempt,
    toolChoice: { type: r.toolChoice.type },
  };
};
// An edit of `contextManagement` the engine writes (clearing, compaction):
// its `trigger`, `keep` and `clear_at_least` hold strings and numbers,
// `exclude_tools` strings. The host's clear-thinking edit (any JSON) is
// walked.
const edit = (e) => {
  if (e.type !== "clear_tool_uses_20250919" && e.type !== "compact_20260112") return copy(e);
  const out = { ...e };
  if (hasOwn(e, "trigger")) out.trigger = { ...e.trigger };
  if (hasOwn(e, "keep")) out.keep = { ...e.keep };
  if (hasOwn(e, "clear_at_least")) out.clear_at_least = { ...e.clear_at_least };
  if (hasOwn(e, "exclude_tools")) out.exclude_tools = e.exclude_tools.slice();
  return out;
};
// A step: its objects (evidence, the counts, the cache effect, each block
// reference) hold strings and numbers, `messages` strings; a literal of
// its keys in the order the engine writes them, its counts `{ tokens,
// basis }` (~25 ns less a step than a spread then six stores).
const step = (s) => ({
  tier: s.tier,
  rule: s.rule,
  owner: s.owner,
  evidence: { ...s.evidence },
  countBefore: { tokens: s.countBefore.tokens, basis: s.countBefore.basis },
  countAfter: { tokens: s.countAfter.tokens, basis: s.countAfter.basis },
  messages: s.messages.slice(),
  blocks: s.blocks.length === 0 ? [] : s.blocks.map((b) => ({ ...b })),
  cache: { ...s.cache },
  modelCalls: s.modelCalls,
  reason: s.reason,
});
// `number`, `before`, `after`, `reason`: what alone changed since the
// template's decision, set in it first: the status's one number (over by,
// tokens left; undefined: unchanged), the one step's counts and reason
// (the lines step, on every call while over a line; `reason` undefined:
// none; crossing.rs).
function decision(template, tokens, number, before, after, reason) {
  if (number !== undefined) {
    const s = template.status;
    for (const key of Object.keys(s)) if (key !== "kind") s[key] = number;
  }
  if (reason !== undefined) {
    const [s] = template.steps;
    s.countBefore.tokens = before;
    s.countAfter.tokens = after;
    s.reason = reason;
  }
  // A literal of Decision's keys in crossing.rs's order, each field as
  // index.d.ts types it: `count` is `{ tokens, basis }`, `lines` and
  // `status` hold numbers and strings only, `betas` and `clearedByClient`
  // strings, `breaker` is one (a spread of the template then eleven stores
  // was ~25 ns more).
  const { steps, count, lines, status, contextManagement, betas, thinking, clearedByClient, compaction, breaker, requests } = template;
  return {
    steps: steps.length === 0 ? [] : steps.map(step),
    count: { tokens, basis: count.basis },
    lines: { ...lines },
    status: { ...status },
    contextManagement: contextManagement === null ? null : { ...contextManagement, edits: contextManagement.edits.map(edit) },
    betas: betas.slice(),
    thinking: copy(thinking),
    clearedByClient: clearedByClient.slice(),
    compaction: copy(compaction),
    breaker,
    requests: requests.length === 0 ? [] : requests.map(request),
  };
}

const objectPrototype = Object.prototype;
/** `[role, content]` of a message the module reads as JSON exactly as
 * these two values (role 0 user, 1 assistant, 2 system): a plain object
 * (`{…}` of this realm) whose own enumerable keys are `role` and `content`,
 * the content a string, nothing inherited JSON.stringify or the module
 * would read (`toJSON`, `context_management`); else `null`, and `append`
 * takes it as JSON as before. A throw here (a Proxy's trap) is `null` too:
 * the JSON path meets it again and reports it as it always did. */
function plainText(m) {
  try {
    if (typeof m !== "object" || m === null || getPrototypeOf(m) !== objectPrototype) return null;
    const k = keys(m);
    if (k.length !== 2 || !((k[0] === "role" && k[1] === "content") || (k[0] === "content" && k[1] === "role"))) {
      return null;
    }
    if (m.toJSON !== undefined || m.context_management !== undefined) return null;
    const { role, content } = m;
    if (typeof content !== "string") return null;
    const at = role === "user" ? 0 : role === "assistant" ? 1 : role === "system" ? 2 : -1;
    return at < 0 ? null : [at, content];
  } catch {
    return null;
  }
}

/** Installs the guard on `Class` (named `name` in messages); idempotent. */
export function guard(Class, name) {
  const proto = Class.prototype;
  if (Object.hasOwn(proto, "__guarded")) return;
  Object.defineProperty(proto, "__guarded", { value: true });
  // Given to the module at the first call (it may not be loaded yet now).
  let crossing = typeof Class.__crossing === "function" ? Class.__crossing : null;
  const ready = () => {
    if (crossing === null) return;
    crossing(decision);
    crossing = null;
  };
  const poisoned = new WeakSet();
  const poisonedError = (cause) =>
    coded(
      "ENGINE_POISONED",
      `this ${name} stopped in the middle of a call (the shared wasm memory ran out, or the module trapped), ` +
        `so its state can no longer be trusted: free() it and create a new ${name}`,
      cause,
    );
  // `always`: a trap poisons even before the state was reached (a
  // preparation stopped half way).
  const settle = (self, method, error, always = false) => {
    if (error instanceof WebAssembly.RuntimeError) {
      // Poisoned when the trap stopped a call that held the state; a trap
      // before (copying an argument in, out of memory) left it whole.
      let stuck = true;
      try {
        stuck = always || self.__poisoned();
      } catch {}
      if (stuck) {
        poisoned.add(self);
        return poisonedError(error);
      }
      return coded(
        "WASM_TRAP",
        `${name}.${method}: the wasm module trapped before the call reached this ${name} (${error.message}; ` +
          `out of memory?): nothing changed, and it still works`,
        error,
      );
    }
    if (error instanceof Error && typeof error.code === "string") return error;
    if (error instanceof Error && error.message === NULL_POINTER) {
      return coded("ENGINE_FREED", `${name}.${method}: this ${name} was freed; create a new one`, error);
    }
    const what = error instanceof Error ? error.message : String(error);
    return coded("ENGINE_ERROR", `${name}.${method}: ${what}`, error);
  };
  const { __prepareStart: start, __prepareStep: step, __precomputeSettled: settled } = proto;
  // The background precompute: `summarize(request)`, not awaited by
  // anyone; what it gave reaches the engine (unless freed or poisoned by
  // then) and the host's `onPrecompute`, whose own throw is not caught.
  const background = (self, summarize, request, id, report) => {
    const done = (ok, value) => {
      if (self.__wbg_ptr && !poisoned.has(self)) settled.call(self, id, ok, value);
      report?.(ok ? { id, ok } : { id, ok, error: value });
    };
    Promise.resolve()
      .then(() => apply(summarize, null, [request]))
      .then(
        (value) => done(true, value),
        (error) => done(false, error),
      );
  };
  if (typeof start === "function" && typeof step === "function") {
    // Started synchronously (busy, a wrong host and a poisoned engine throw
    // at once); the callbacks never run inside the prepare() call.
    const drive = async (self) => {
      await null;
      let ok = true;
      let value;
      for (;;) {
        if (poisoned.has(self)) throw poisonedError();
        let next;
        try {
          next = step.call(self, ok, value);
        } catch (e) {
          throw settle(self, "prepare", e, true);
        }
        if (next.length === 1) return next[0];
        if (next.length === 5) {
          background(self, next[1], next[2], next[3], next[4]);
          return next[0];
        }
        try {
          value = await apply(next[0], null, [next[1]]);
          ok = true;
        } catch (e) {
          value = e;
          ok = false;
        }
      }
    };
    const prepare = function prepare(host) {
      ready();
      start.call(this, host);
      return drive(this);
    };
    Object.defineProperty(proto, "prepare", { value: prepare, writable: true, configurable: true, enumerable: false });
  }
  // `append(message)` of a plain `{ role, content }` with a string content
  // (an agent's usual turn) goes to the module as its two values, not as
  // JSON: JSON.stringify, its UTF-8 copy and serde_json were half of a
  // steady append + beforeCall. The engine module alone has `__appendText`.
  const { append: appendJson, __appendText: appendText } = proto;
  if (typeof appendJson === "function" && typeof appendText === "function") {
    Object.defineProperty(proto, "append", {
      ...Object.getOwnPropertyDescriptor(proto, "append"),
      value: function append(message) {
        const read = plainText(message);
        return read === null ? appendJson.call(this, message) : appendText.call(this, read[0], read[1]);
      },
    });
  }
  for (const key of Object.getOwnPropertyNames(proto)) {
    const d = Object.getOwnPropertyDescriptor(proto, key);
    if (key === "constructor" || key === "free" || key.startsWith("__") || typeof d.value !== "function") continue;
    const method = d.value;
    const wrapped = {
      [key](...args) {
        if (poisoned.has(this)) throw poisonedError();
        let out;
        try {
          ready();
          out = method.apply(this, args);
        } catch (e) {
          throw settle(this, key, e);
        }
        if (out instanceof Promise) return out.catch((e) => Promise.reject(settle(this, key, e)));
        return out;
      },
    }[key];
    Object.defineProperty(proto, key, { ...d, value: wrapped });
  }
  const free = proto.free;
  function safeFree() {
    // Freed already: nothing to do (wasm-bindgen's would throw).
    if (!this.__wbg_ptr) return;
    poisoned.delete(this);
    try {
      free.call(this);
    } catch (e) {
      // Still borrowed: by a call a trap stopped (its memory stays used), or
      // by the live call this free() runs inside (released when it returns).
      if (!(e instanceof Error && e.message === OWNERSHIP)) throw settle(this, "free", e);
    }
  }
  Object.defineProperty(proto, "free", { value: safeFree, writable: true, configurable: true });
  if (Symbol.dispose) {
    Object.defineProperty(proto, Symbol.dispose, { value: safeFree, writable: true, configurable: true });
  }
}

/** The `init` and `initSync` of a `/web` entry (no top-level await) over
 * wasm-bindgen's: `init(input)` takes the .wasm's URL, a `Response`, its
 * bytes or a compiled module (or `{ module_or_path }`), by default
 * `defaultUrl()` (the entry keeps its own `new URL("./…_bg.wasm",
 * import.meta.url)`, which bundlers rewrite to the asset); `initSync` takes
 * bytes or a compiled module (or `{ module }`). */
export function loaders(wbgInit, wbgInitSync, defaultUrl) {
  async function init(input) {
    const given = input !== null && typeof input === "object" && "module_or_path" in input;
    return wbgInit({ module_or_path: given ? input.module_or_path : (input ?? defaultUrl()) });
  }
  function initSync(input) {
    const given = input !== null && typeof input === "object" && "module" in input;
    return wbgInitSync(given ? input : { module: input });
  }
  return { init, initSync };
}

// `isPromptTooLong(error)` and `promptTooLongTokens(error)` of an entry over
// its module's classifier (`__classify`, src/overflow.rs: the engine's
// prompt-too-long rules, SPEC R8.1, over one error's facts; -1 when not one,
// NaN when one stating no size, else the prompt's size). The facts are read
// here, each optional (anything of another type ignored): `status`, else
// `statusCode` (the AI SDK's `APICallError`); the type: `type`, else the
// body's `error.type` (the Anthropic SDK's `APIError.error` is the body
// `{ type: "error", error: { type, message } }`), else the AI SDK's parsed
// body `data.error.type`; the code: `code`, else `error.code` (the `openai`
// package's `APIError`), else `data.error.code`; the message: the body's
// `error.error.message`, else `apiMessage`, else `error.message`, else
// `data.error.message`, else `message`. A value with a string
// `stop_reason` is a reply: only its stop reason counts. A `name`
// `ContextOverflowError` (LangChain's wrapper) is one by its class.
// When the value itself states no size, what it wraps is read: the AI SDK's
// `responseBody` (the body's text, under the error's status: a body its
// provider's schema did not take, vLLM's older top-level one), then `cause`
// (LangChain's `ContextOverflowError`, any `Error` made with `{ cause }`)
// and `lastError` (the AI SDK's `RetryError`, whose `errors` end with it),
// sixteen values at most. The engine's own errors are not followed
// (`SUMMARIZER_FAILED` and the other host-callback codes): a summary
// request refused as too long is not the main call's prompt-too-long.
// A getter or Proxy trap that throws reads as `undefined`.
const OWN_CODES = ["SUMMARIZER_FAILED", "READ_FILES_FAILED", "PRE_COMPACT_FAILED", "COUNT_TOKENS_FAILED"];
const isObject = (value) => typeof value === "object" && value !== null;
const at = (value, path) => {
  for (const key of path) {
    if (!isObject(value)) return undefined;
    try {
      value = Reflect.get(value, key);
    } catch {
      return undefined;
    }
  }
  return value;
};
// The first string at one of `paths` (`"error"`, the Anthropic body's
// envelope type, is skipped: it names no error).
const stringAt = (value, paths) => {
  for (const path of paths) {
    const s = at(value, path);
    if (typeof s === "string" && s !== "error") return s;
  }
  return undefined;
};
const statusOf = (value) => {
  for (const key of ["status", "statusCode"]) {
    const s = at(value, [key]);
    if (typeof s === "number") return Number.isInteger(s) && s >= 100 && s <= 599 ? s : undefined;
  }
  return undefined;
};

export function overflow(classifier) {
  // `undefined`, or `{ tokens }` (a number, or null when none is stated).
  const classify = (status, kind, code, message) => {
    const tokens = classifier(status, kind, code, message);
    return tokens < 0 ? undefined : { tokens: Number.isNaN(tokens) ? null : tokens };
  };
  const facts = (value) => {
    const reason = stringAt(value, [["stop_reason"]]);
    if (reason !== undefined) return classify(undefined, reason, undefined, undefined);
    const status = statusOf(value);
    let kind = stringAt(value, [["type"], ["error", "type"], ["error", "error", "type"], ["data", "error", "type"]]);
    if (kind === undefined && stringAt(value, [["name"]]) === "ContextOverflowError") kind = "ContextOverflowError";
    const code = stringAt(value, [["code"], ["error", "code"], ["data", "error", "code"]]);
    const message = stringAt(value, [
      ["error", "error", "message"],
      ["apiMessage"],
      ["error", "message"],
      ["data", "error", "message"],
      ["message"],
    ]);
    return classify(status, kind, code, message);
  };
  // What the value states, if it is a prompt-too-long: itself, else what it
  // wraps (a size found inside wins over none found outside).
  const read = (value, budget) => {
    if (!isObject(value) || budget.left === 0) return undefined;
    budget.left--;
    const code = at(value, ["code"]);
    if (typeof code === "string" && OWN_CODES.includes(code)) return undefined;
    const own = facts(value);
    if (own !== undefined && own.tokens !== null) return own;
    const parsed = at(value, ["data"]) != null;
    const text = at(value, ["responseBody"]);
    const body = typeof text === "string" && !parsed ? classify(statusOf(value), undefined, undefined, text) : undefined;
    let inner;
    for (const wrapped of [at(value, ["cause"]), at(value, ["lastError"])]) {
      inner = read(wrapped, budget);
      if (inner !== undefined) break;
    }
    return [body, inner].find((p) => p !== undefined && p.tokens !== null) ?? own ?? body ?? inner;
  };
  return {
    isPromptTooLong: (error) => read(error, { left: 16 }) !== undefined,
    promptTooLongTokens: (error) => read(error, { left: 16 })?.tokens ?? null,
  };
}
