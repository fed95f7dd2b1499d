// ---- bridge.js (the prelude's second part; see capture.js) -----------------
// ---- openclaw.tools ------------------------------------------------------
async function search(query, options) {
  if (typeof query !== "string") {
    throw rejectArg("search(query, {limit}): query must be a string");
  }
  if (query.length > queryCap) {
    throw rejectArg("search: query is longer than " + queryCap + " characters");
  }
  let limit = -1;
  if (options !== undefined && options !== null) {
    if (typeof options !== "object") {
      throw rejectArg("search: options must be an object like {limit: 5}");
    }
    const l = options.limit;
    if (l !== undefined) {
      if (typeof l !== "number" || !NumberIsInteger(l) || l < 1 || l > 1000) {
        throw rejectArg("search: limit must be an integer from 1 to 1000");
      }
      limit = l;
    }
  }
  return defuseThen(asHits(decode(opSearch(query, limit))));
}

// A search result `{hits, hint, listing, ...}` becomes the hits array carrying the
// other fields as properties: `hits[0].id` works, and `hits.hint` / `hits.listing`
// still say what to do when nothing matched.
function asHits(v) {
  if (v === null || typeof v !== "object" || ArrayIsArray(v) || !ArrayIsArray(v.hits)) {
    return v;
  }
  const hits = v.hits;
  const keys = ObjectKeys(v);
  // A writable, configurable data property (enumerable or not): never a setter
  // a snippet put on a prototype.
  const put = (o, k, value, enumerable) =>
    ObjectDefineProperty(o, k, {
      __proto__: null,
      value,
      writable: true,
      enumerable,
      configurable: true,
    });
  for (let i = 0; i < keys.length; i++) {
    if (keys[i] !== "hits" && keys[i] !== "then") put(hits, keys[i], v[keys[i]], false);
  }
  // Nothing matched, or the search has something to say (a `limit_note`, names in
  // `not_found`, a typo `hint`): serialised (returned, logged) the result is the
  // whole answer, `{hits, hint, ...}`, not a bare array that hides it, as the
  // structured `tool_search` shows it.
  const notes =
    v.limit_note !== undefined || v.hint !== undefined ||
    (ArrayIsArray(v.not_found) && v.not_found.length > 0);
  if (hits.length === 0 || notes) {
    // Built when serialised, from the array as it is then (a copy: the array's
    // own `toJSON` must not be met again inside it).
    const whole = () => {
      const list = [];
      for (let i = 0; i < hits.length; i++) put(list, i, hits[i], true);
      const out = { hits: list };
      for (let i = 0; i < keys.length; i++) {
        if (keys[i] !== "hits" && keys[i] !== "then") put(out, keys[i], v[keys[i]], true);
      }
      return out;
    };
    ObjectDefineProperty(hits, "toJSON", {
      __proto__: null,
      value: whole,
      writable: false,
      enumerable: false,
      configurable: false,
    });
  }
  return hits;
}

async function describe(id) {
  checkId(id, "describe(id)");
  return decode(opDescribe(id));
}

async function callNow(id, args) {
  checkId(id, "call(id, args)");
  if (args === undefined) args = {};
  let json;
  try {
    if (args === null || typeof args !== "object" || ArrayIsArray(args)) {
      throw new TypeErrorCtor("args must be a plain object like {path: 'x'}");
    }
    argChars = 0;
    json = JSONStringify(args, argReplacer);
  } catch (e) {
    throw rejectArg("call: invalid arguments: " + bounded(errorText(e)));
  }
  if (json.length > argCap) {
    throw rejectArg("call: arguments are larger than " + argCap + " bytes of JSON");
  }
  return decode(await opCall(id, json));
}

// A call starts only when something awaits it (or calls `then`): a call nobody
// awaits never runs, so a forgotten `await` cannot cause a side effect the model
// never sees. `Promise.all([call(a), call(b)])` still runs both at once (it calls
// `then` on each), and awaiting the same call twice runs it once.
// Calls made and not started yet, by a number of their own (a null-prototype
// object: nothing a snippet does to prototypes reaches it): the runner names
// them when the snippet ends, since they never ran.
let unstarted = { __proto__: null };
let unstartedCount = 0;
let nextCall = 0;

function call(id, args) {
  let started = null;
  const key = nextCall++;
  // Recorded short: an id that is not a string (a model passing describe()'s
  // result) is named by its type, never serialised (it could be megabytes).
  unstarted[key] = typeof id === "string" ? StringPrototypeSlice(id, 0, MAX_ID_CHARS) : notAnId(id);
  unstartedCount++;
  const start = () => {
    if (started === null) {
      delete unstarted[key];
      unstartedCount--;
      started = callNow(id, args);
    }
    return started;
  };
  return ObjectFreeze({
    __proto__: null,
    then(onFulfilled, onRejected) {
      return PromisePrototypeThen(start(), onFulfilled, onRejected);
    },
    catch(onRejected) {
      return PromisePrototypeThen(start(), undefined, onRejected);
    },
    finally(onFinally) {
      const run = () => {
        if (typeof onFinally === "function") onFinally();
      };
      return PromisePrototypeThen(
        start(),
        (v) => {
          run();
          return v;
        },
        (e) => {
          run();
          throw e;
        },
      );
    },
  });
}

for (const f of [search, describe, call]) ObjectFreeze(f);
const tools = ObjectFreeze({ search, describe, call });
const openclaw = ObjectFreeze({ tools });

// ---- console ---------------------------------------------------------------
function logger(level) {
  return function (...args) {
    let line = "";
    for (let i = 0; i < args.length; i++) {
      if (i > 0) line += " ";
      line += fmt(args[i]);
      if (line.length > MAX_LOG_CHARS) break;
    }
    if (line.length > MAX_LOG_CHARS) line = StringPrototypeSlice(line, 0, MAX_LOG_CHARS);
    opLog(level, line);
  };
}
const log = logger(0);
const console = ObjectFreeze({
  log,
  info: log,
  debug: log,
  trace: log,
  warn: logger(1),
  error: logger(2),
});

// The calls of this job that never started, as the runner's answer begins:
// "U" + count + JSON of the first few ids + "\n", or "" when every call ran.
// Built from strings alone: no array (a setter on `Array.prototype`, or a
// `toJSON` on a prototype, when the array went through JSON.stringify). Each id
// is a string primitive, which JSON.stringify quotes without looking anything
// up. `crates/sandbox/src/isolate/runtime.rs` allows for its largest size.
const MAX_UNSTARTED_NAMED = 16;
function unstartedHeader() {
  if (unstartedCount === 0) return "";
  let ids = "[";
  let n = 0;
  for (const key in unstarted) {
    if (n === MAX_UNSTARTED_NAMED) break;
    if (n > 0) ids += ",";
    ids += JSONStringify(unstarted[key]);
    n++;
  }
  return "U" + unstartedCount + ids + "]\n";
}

// How an id that is not a string is recorded.
function notAnId(id) {
  const t = id === null ? "null" : typeof id;
  const article = t === "null" ? "" : t === "object" || t === "undefined" ? "an " : "a ";
  return "(" + article + t + ", not a tool id)";
}

// Un-awaited rejections are reported as a warning, not as a failure.
const warnUnhandled = logger(1);
core.setUnhandledPromiseRejectionHandler((_promise, reason) => {
  try {
    warnUnhandled("Unhandled promise rejection: " + bounded(describeThrown(reason)));
  } catch {
    // ignore
  }
  return true;
});
// No wasm may be compiled; a streaming compile must not reach the host.
core.setWasmStreamingCallback((_source, rid) => {
  core.abortWasmStreaming(rid, new TypeErrorCtor("WebAssembly is disabled"));
});
