// The body of a function the host compiles and calls once per isolate, right
// after creation and before any snippet (a compiled function is parsed once;
// v8x/QuickJS parses a script twice).
// Captures what the bridge needs, builds the frozen `openclaw.tools` global
// and a bounded `console`, then deletes every global that is not on the
// allowlist (Deno, __bootstrap, __infra, WebAssembly, SharedArrayBuffer, ...).
// It returns the runner the host calls with the snippet's function; the
// runner always resolves to a string (never throws):
//   "1" + JSON            on success
//   "0" + KIND + "\n" + message   on failure
// where KIND is SCRIPT, MEMORY, RESULT or a bridge error code.
"use strict";

const core = globalThis.Deno.core;
const ops = core.ops;
const opSearch = ops.op_ts_search;
const opDescribe = ops.op_ts_describe;
const opCall = ops.op_ts_call;
const opLog = ops.op_ts_log;
const opReject = ops.op_ts_reject;

// ---- intrinsics, captured before any user code runs -------------------
// Not `Function.prototype`: on v8x/QuickJS the codegen flag replaces the
// global `Function` with a bare thrower.
const FunctionPrototype = Reflect.getPrototypeOf(function () {});
const uncurry = FunctionPrototype.bind.bind(FunctionPrototype.call);
const ReflectApply = Reflect.apply;
const ReflectOwnKeys = Reflect.ownKeys;
const ReflectDeleteProperty = Reflect.deleteProperty;
const ReflectConstruct = Reflect.construct;
const ReflectGetPrototypeOf = Reflect.getPrototypeOf;
const ObjectDefineProperty = Object.defineProperty;
const ObjectHasOwn = Object.hasOwn;
const ObjectFreeze = Object.freeze;
const ObjectSetPrototypeOf = Object.setPrototypeOf;
const ObjectPrototypeIsPrototypeOf = uncurry(Object.prototype.isPrototypeOf);
const ArrayIsArray = Array.isArray;
const ObjectKeys = Object.keys;
const NumberIsInteger = Number.isInteger;
const JSONStringify = JSON.stringify;
const JSONParse = JSON.parse;
const StringPrototypeSlice = uncurry(String.prototype.slice);
const StringPrototypeIndexOf = uncurry(String.prototype.indexOf);
const StringPrototypeCharCodeAt = uncurry(String.prototype.charCodeAt);
const SymbolPrototypeToString = uncurry(Symbol.prototype.toString);
const StringFromCharCode = String.fromCharCode;
const WeakMapCtor = WeakMap;
const WeakMapPrototypeGet = uncurry(WeakMap.prototype.get);
const WeakMapPrototypeSet = uncurry(WeakMap.prototype.set);
const ErrorCtor = Error;
const ErrorPrototype = Error.prototype;
const TypeErrorCtor = TypeError;
const RangeErrorCtor = RangeError;
const EvalErrorCtor = EvalError;
const InternalErrorPrototype =
  typeof InternalError === "function" ? InternalError.prototype : null;
const PromiseCtor = Promise;
const PromisePrototypeThen = uncurry(Promise.prototype.then);
const globalObject = globalThis;

const MAX_MESSAGE = 2000;
const MAX_LOG_CHARS = 65536;
const MAX_ID_CHARS = 256;
// Per-job caps, set by the runner before the snippet starts.
let argCap = 0;
let queryCap = 0;
let resultCap = 0;

const desc = (value, writable) => ({
  __proto__: null,
  value,
  writable,
  enumerable: false,
  configurable: false,
});

// Errors created by the sandbox, mapped to their kind token.
const marks = new WeakMapCtor();

function bridgeError(code, message) {
  const e = new ErrorCtor(message);
  ObjectDefineProperty(e, "code", {
    __proto__: null,
    value: code,
    writable: false,
    enumerable: true,
    configurable: false,
  });
  WeakMapPrototypeSet(marks, e, code);
  return e;
}

function rejectArg(message) {
  opReject();
  return bridgeError("INVALID_ARGS", message);
}

function bounded(s) {
  return s.length > MAX_MESSAGE
    ? StringPrototypeSlice(s, 0, MAX_MESSAGE) + "…"
    : s;
}

// Text of a thrown or logged error object; user getters may run (they are
// under the watchdog) but their results are only used if they are strings.
function errorText(e) {
  let name;
  let message;
  try {
    name = e.name;
    message = e.message;
  } catch {
    return "Error";
  }
  const n = typeof name === "string" ? name : "Error";
  const m = typeof message === "string" ? message : "";
  return m === "" ? n : n + ": " + m;
}

function fmt(v) {
  switch (typeof v) {
    case "string":
      return v;
    case "number":
    case "boolean":
    case "undefined":
      return "" + v;
    case "bigint":
      return "" + v + "n";
    case "symbol":
      return SymbolPrototypeToString(v);
    case "function":
      return "[Function]";
    default:
      break;
  }
  if (v === null) return "null";
  try {
    if (ObjectPrototypeIsPrototypeOf(ErrorPrototype, v)) return errorText(v);
    const s = JSONStringify(v);
    return s === undefined ? "[object]" : s;
  } catch {
    return "[unserializable object]";
  }
}

function describeThrown(e) {
  if (e !== null && (typeof e === "object" || typeof e === "function")) {
    let code;
    try {
      code = WeakMapPrototypeGet(marks, e);
    } catch {
      code = undefined;
    }
    // The sandbox's own errors: their code, then the message (their name is Error).
    if (code !== undefined && code !== "MEMORY") return code + ": " + e.message;
    return errorText(e);
  }
  return "Uncaught " + fmt(e);
}

// "@LINE:COLUMN" of where a thrown error was made in the snippet (the host's
// stack-trace hook gives every error's `stack` as `snippet.js:LINE:COLUMN`), or "".
function positionOf(e) {
  if (e === null || typeof e !== "object") return "";
  let stack;
  try {
    stack = e.stack;
  } catch {
    return "";
  }
  if (typeof stack !== "string" || StringPrototypeSlice(stack, 0, 11) !== "snippet.js:") return "";
  return "@" + StringPrototypeSlice(stack, 11, 40);
}

function kindOf(e) {
  if (e === null || (typeof e !== "object" && typeof e !== "function")) {
    return "SCRIPT";
  }
  try {
    const code = WeakMapPrototypeGet(marks, e);
    if (code !== undefined) return code;
    if (
      InternalErrorPrototype !== null &&
      ObjectPrototypeIsPrototypeOf(InternalErrorPrototype, e) &&
      e.message === "out of memory"
    ) {
      return "MEMORY";
    }
  } catch {
    // fall through
  }
  return "SCRIPT";
}

// Bridge results are JSON; an own `then: undefined` keeps a poisoned
// `Object.prototype.then` from hijacking promise resolution.
function defuseThen(v) {
  if (v !== null && typeof v === "object") {
    ObjectDefineProperty(v, "then", {
      __proto__: null,
      value: undefined,
      writable: true,
      enumerable: false,
      configurable: true,
    });
  }
  return v;
}

// Keys of an error's detail that become properties of the thrown error.
const DETAIL_KEYS = ["content", "structuredContent"];

function decode(s) {
  const kind = StringPrototypeCharCodeAt(s, 0);
  if (kind === 49 /* "1" */) {
    return defuseThen(JSONParse(StringPrototypeSlice(s, 1)));
  }
  const nl = StringPrototypeIndexOf(s, "\n");
  const code = StringPrototypeSlice(s, 1, nl);
  if (kind !== 50 /* "2": {message, detail} */) {
    throw bridgeError(code, StringPrototypeSlice(s, nl + 1));
  }
  const body = JSONParse(StringPrototypeSlice(s, nl + 1));
  const e = bridgeError(code, body.message);
  // An indexed loop: a snippet may have replaced the array iterator.
  for (let i = 0; i < DETAIL_KEYS.length; i++) {
    const key = DETAIL_KEYS[i];
    if (ObjectHasOwn(body.detail, key)) {
      ObjectDefineProperty(e, key, {
        __proto__: null,
        value: defuseThen(body.detail[key]),
        writable: false,
        enumerable: true,
        configurable: false,
      });
    }
  }
  throw e;
}

function checkId(id, fn) {
  if (typeof id !== "string") {
    throw rejectArg(fn + ": id must be a string (a tool id from search())");
  }
  if (id.length === 0 || id.length > MAX_ID_CHARS) {
    throw rejectArg(fn + ": id must be 1 to " + MAX_ID_CHARS + " characters long");
  }
}

// Counts the characters of keys and strings while JSON.stringify walks the
// arguments, so a 10 MB argument fails at the cap instead of after a full copy.
let argChars = 0;
function argReplacer(key, value) {
  const t = typeof value;
  if (t === "symbol" || t === "function") {
    throw new TypeErrorCtor("arguments must be JSON (found a " + t + ")");
  }
  argChars += key.length + (t === "string" ? value.length : 8);
  if (argChars > argCap) {
    throw new RangeErrorCtor("arguments are larger than " + argCap + " bytes of JSON");
  }
  return value;
}

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
// Built from strings alone: no JSON.stringify (a snippet's `toJSON` on a
// prototype), no array (a setter on `Array.prototype`), no method looked up.
// `crates/sandbox/src/isolate/runtime.rs` allows for its largest size.
const MAX_UNSTARTED_NAMED = 16;
function unstartedHeader() {
  if (unstartedCount === 0) return "";
  let ids = "[";
  let n = 0;
  for (const key in unstarted) {
    if (n === MAX_UNSTARTED_NAMED) break;
    if (n > 0) ids += ",";
    ids += quote(unstarted[key]);
    n++;
  }
  return "U" + unstartedCount + ids + "]\n";
}

// A JSON string literal of `s`: quotes, backslashes and control characters
// escaped (a lone surrogate is left to the host's lossy read, which makes it
// U+FFFD).
const HEX = "0123456789abcdef";
function quote(s) {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = StringPrototypeCharCodeAt(s, i);
    if (c === 34) out += '\\"';
    else if (c === 92) out += "\\\\";
    else if (c < 32) out += "\\u00" + HEX[c >> 4] + HEX[c & 15];
    else out += StringFromCharCode(c);
  }
  return out + '"';
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

// ---- code generation from strings ----------------------------------------
function noCodegen() {
  throw new EvalErrorCtor("code generation from strings is disabled in the sandbox");
}
const evalStub = (_code) => noCodegen();
const FunctionStub = function Function(..._args) {
  noCodegen();
};
ObjectDefineProperty(FunctionStub, "prototype", desc(FunctionPrototype, false));
ObjectDefineProperty(FunctionPrototype, "constructor", desc(FunctionStub, false));
for (const sample of [
  async function () {},
  function* () {},
  async function* () {},
]) {
  const proto = ReflectGetPrototypeOf(sample);
  const stub = function (..._args) {
    noCodegen();
  };
  ObjectSetPrototypeOf(stub, FunctionStub);
  ObjectDefineProperty(stub, "prototype", desc(proto, false));
  ObjectDefineProperty(proto, "constructor", desc(stub, false));
}

// ---- intrinsics the engine glue reads at call time --------------------------
// deno_core's async-op stub calls `originalOp.call(this, promiseId, ...)`, which
// looks `call` up on Function.prototype when the snippet calls a tool: a snippet
// that replaced it would receive the raw op. Lock every method of
// Function.prototype that glue code may look up at run time.
for (const key of ["call", "apply", "bind", "toString"]) {
  ObjectDefineProperty(FunctionPrototype, key, desc(FunctionPrototype[key], false));
}

// ---- ArrayBuffer budget ---------------------------------------------------
// The engine allocates ArrayBuffer memory through the host's budgeted
// allocator; turn an allocation failure into a RangeError that names the
// budget. Resizable buffers are not offered (maxByteLength is ignored).
const ArrayBufferOrig = globalThis.ArrayBuffer;
const ArrayBufferPrototype = ArrayBufferOrig.prototype;
function budgetError(bytes) {
  const e = new RangeErrorCtor(
    "ArrayBuffer allocation of " + bytes + " bytes exceeds the sandbox's ArrayBuffer budget",
  );
  WeakMapPrototypeSet(marks, e, "MEMORY");
  return e;
}
const ArrayBufferWrapped = function ArrayBuffer(length) {
  if (new.target === undefined) {
    throw new TypeErrorCtor("Constructor ArrayBuffer requires 'new'");
  }
  try {
    return ReflectConstruct(ArrayBufferOrig, [length], new.target);
  } catch (e) {
    // Only a length the engine would have allocated can have met the budget
    // (`new ArrayBuffer(-1)` is the engine's own RangeError). The host reports
    // `memory` only when its allocator did refuse.
    if (typeof length !== "number" || !(length >= 0)) throw e;
    if (
      InternalErrorPrototype !== null &&
      ObjectPrototypeIsPrototypeOf(InternalErrorPrototype, e)
    ) {
      throw budgetError(length);
    }
    if (ObjectPrototypeIsPrototypeOf(RangeErrorCtor.prototype, e)) {
      throw budgetError(length);
    }
    throw e;
  }
};
ObjectDefineProperty(ArrayBufferWrapped, "prototype", desc(ArrayBufferPrototype, false));
ObjectDefineProperty(ArrayBufferWrapped, "isView", {
  __proto__: null,
  value: ArrayBufferOrig.isView,
  writable: true,
  enumerable: false,
  configurable: true,
});
ObjectDefineProperty(ArrayBufferPrototype, "constructor", {
  __proto__: null,
  value: ArrayBufferWrapped,
  writable: true,
  enumerable: false,
  configurable: true,
});

const MathFloor = Math.floor;
const MathMax = Math.max;
const MathMin = Math.min;
const ObjectCtor = Object;
const ToIntegerOrInfinity = (v) => {
  const n = +v;
  if (n !== n) return 0;
  return n < 0 ? -MathFloor(-n) : MathFloor(n);
};

// `new Uint8Array(n)` allocates its buffer inside the engine, past the
// budgeted allocator; route a numeric length through the budgeted
// ArrayBuffer so typed arrays share the same budget.
const typedArrayNames = [
  "Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array",
  "Int32Array", "Uint32Array", "Float16Array", "Float32Array", "Float64Array",
  "BigInt64Array", "BigUint64Array",
];
const wrappedTypedArrays = { __proto__: null };
for (let i = 0; i < typedArrayNames.length; i++) {
  const name = typedArrayNames[i];
  const Orig = globalObject[name];
  if (typeof Orig !== "function") continue;
  const bytesPer = Orig.BYTES_PER_ELEMENT;
  const Wrapped = {
    [name]: function (...args) {
      if (new.target === undefined) {
        throw new TypeErrorCtor("Constructor " + name + " requires 'new'");
      }
      if (typeof args[0] === "number") {
        const length = ToIntegerOrInfinity(args[0]);
        if (length < 0 || length > 9007199254740991) {
          throw new RangeErrorCtor("Invalid typed array length: " + args[0]);
        }
        args = [new ArrayBufferWrapped(length * bytesPer)];
      }
      return ReflectConstruct(Orig, args, new.target === Wrapped ? Orig : new.target);
    },
  }[name];
  ObjectSetPrototypeOf(Wrapped, ReflectGetPrototypeOf(Orig));
  ObjectDefineProperty(Wrapped, "prototype", desc(Orig.prototype, false));
  ObjectDefineProperty(Wrapped, "BYTES_PER_ELEMENT", desc(bytesPer, false));
  ObjectDefineProperty(Orig.prototype, "constructor", {
    __proto__: null,
    value: Wrapped,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  wrappedTypedArrays[name] = Wrapped;
}

// ---- native loops ------------------------------------------------------------
// QuickJS polls for termination only in bytecode (loop back-edges and calls),
// never inside a built-in: `Array.prototype.indexOf.call({length: 2**53-1}, 1)`
// or `new Array(2**32-1).join()` would spin in C past any deadline. Every
// Array.prototype method that walks `length` is wrapped: a receiver longer than
// `lengthCap` (set per job from the heap limit: longer than any dense array that
// fits the heap, so only sparse arrays and array-likes) is refused with a
// RangeError. The process backend kills whatever else still spins; the thread
// backend is for trusted code (see `Isolation`).
let lengthCap = 1 << 22;
function tooLong(name, len) {
  return new RangeErrorCtor(
    "Array.prototype." + name + ": a length of " + len +
      " is longer than the sandbox walks (at most " + lengthCap + " elements)",
  );
}
const ArrayPrototype = Array.prototype;
for (const name of [
  "at", "concat", "copyWithin", "entries", "every", "filter", "find", "findIndex",
  "findLast", "findLastIndex", "flat", "flatMap", "forEach", "includes",
  "indexOf", "join", "keys", "lastIndexOf", "map", "pop", "push", "reduce",
  "reduceRight", "reverse", "shift", "slice", "some", "sort", "splice",
  "toLocaleString", "toReversed", "toSorted", "toSpliced", "toString",
  "unshift", "values", "with",
]) {
  const orig = ArrayPrototype[name];
  if (typeof orig !== "function") continue;
  const wrapped = {
    [name](...args) {
      if (this !== undefined && this !== null) {
        const len = ToIntegerOrInfinity(ObjectCtor(this).length);
        if (len > lengthCap) throw tooLong(name, len);
      }
      return ReflectApply(orig, this, args);
    },
  }[name];
  ObjectDefineProperty(ArrayPrototype, name, {
    __proto__: null,
    value: wrapped,
    writable: true,
    enumerable: false,
    configurable: true,
  });
}
// `Array.prototype[Symbol.iterator]` is `values`: keep them the same function.
ObjectDefineProperty(ArrayPrototype, Symbol.iterator, {
  __proto__: null,
  value: ArrayPrototype.values,
  writable: true,
  enumerable: false,
  configurable: true,
});

// The engine's native fill loop cannot be interrupted by the watchdog; a
// plain loop can (and hits the heap limit as it grows).
ObjectDefineProperty(Array.prototype, "fill", {
  __proto__: null,
  value: {
    fill(value, start, end) {
      const O = ObjectCtor(this);
      const len = ToIntegerOrInfinity(O.length);
      const rel = ToIntegerOrInfinity(start);
      let k = rel < 0 ? MathMax(len + rel, 0) : MathMin(rel, len);
      const relEnd = end === undefined ? len : ToIntegerOrInfinity(end);
      const last = relEnd < 0 ? MathMax(len + relEnd, 0) : MathMin(relEnd, len);
      for (; k < last; k++) O[k] = value;
      return O;
    },
  }.fill,
  writable: true,
  enumerable: false,
  configurable: true,
});

// ---- one surface on every path ------------------------------------------------
// v8x builds a context cold (the fork path's template) or restores it from a
// snapshot (threads; a worker with `TOOLSEARCH_SANDBOX_FORK=0`), and after a
// restore it runs its polyfill installers again, after this prelude ran at
// snapshot time. The three differ: the Temporal polyfill comes back as
// `Date.prototype.toTemporalInstant`, a restore in a worker process leaves
// `TypeError` and `InternalError` inheriting from `Function.prototype` instead
// of `Error`, and a cold context has v8x's `Date.prototype.toLocaleString`
// patch (it answers one German date for one set of options, whatever the
// date). `settle` puts back the one surface, here and before every snippet;
// `tests/all/surface.rs` walks it on all three paths against one list.
const DatePrototype = Date.prototype;
const errorCtors = [
  TypeError, RangeError, ReferenceError, SyntaxError, URIError, EvalError,
  typeof InternalError === "function" ? InternalError : null,
  typeof AggregateError === "function" ? AggregateError : null,
  typeof SuppressedError === "function" ? SuppressedError : null,
];
function settle() {
  if (
    ObjectHasOwn(DatePrototype, "toTemporalInstant") &&
    !ReflectDeleteProperty(DatePrototype, "toTemporalInstant")
  ) {
    throw new TypeErrorCtor("sandbox scrub: cannot delete Date.prototype.toTemporalInstant");
  }
  for (let i = 0; i < errorCtors.length; i++) {
    const C = errorCtors[i];
    if (C === null) continue;
    if (ReflectGetPrototypeOf(C) !== ErrorCtor) ObjectSetPrototypeOf(C, ErrorCtor);
    if (ReflectGetPrototypeOf(C.prototype) !== ErrorPrototype) {
      ObjectSetPrototypeOf(C.prototype, ErrorPrototype);
    }
  }
}
// Locale arguments are not passed on: the engine has no locale data, and v8x's
// patch would answer them with its one fixed string.
const dateToLocaleString = DatePrototype.toLocaleString;
ObjectDefineProperty(DatePrototype, "toLocaleString", {
  __proto__: null,
  value: {
    toLocaleString() {
      return ReflectApply(dateToLocaleString, this, []);
    },
  }.toLocaleString,
  writable: true,
  enumerable: false,
  configurable: true,
});

// ---- globals ---------------------------------------------------------------
const allowed = {
  __proto__: null,
  globalThis: 1, Infinity: 1, NaN: 1, undefined: 1, eval: 1, isFinite: 1,
  isNaN: 1, parseFloat: 1, parseInt: 1, decodeURI: 1,
  decodeURIComponent: 1, encodeURI: 1, encodeURIComponent: 1, escape: 1,
  unescape: 1, Object: 1, Function: 1, Array: 1, Number: 1, Boolean: 1,
  String: 1, Symbol: 1, BigInt: 1, Date: 1, Promise: 1, RegExp: 1,
  Error: 1, AggregateError: 1, EvalError: 1, RangeError: 1,
  ReferenceError: 1, SyntaxError: 1, TypeError: 1, URIError: 1,
  InternalError: 1, SuppressedError: 1, JSON: 1, Math: 1,
  Reflect: 1, Proxy: 1, Map: 1, Set: 1, WeakMap: 1, WeakSet: 1,
  Iterator: 1, ArrayBuffer: 1, DataView: 1, Int8Array: 1, Uint8Array: 1,
  Uint8ClampedArray: 1, Int16Array: 1, Uint16Array: 1, Int32Array: 1,
  Uint32Array: 1, Float16Array: 1, Float32Array: 1, Float64Array: 1,
  BigInt64Array: 1, BigUint64Array: 1, DisposableStack: 1,
  AsyncDisposableStack: 1, console: 1, openclaw: 1,
};
for (const key of ReflectOwnKeys(globalObject)) {
  if (typeof key === "string" && allowed[key] === 1) continue;
  if (!ReflectDeleteProperty(globalObject, key)) {
    throw new TypeErrorCtor("sandbox scrub: cannot delete global " + String(key));
  }
}
ObjectDefineProperty(globalObject, "openclaw", desc(openclaw, false));
ObjectDefineProperty(globalObject, "console", desc(console, false));
ObjectDefineProperty(globalObject, "eval", desc(evalStub, false));
ObjectDefineProperty(globalObject, "Function", desc(FunctionStub, false));
ObjectDefineProperty(globalObject, "ArrayBuffer", desc(ArrayBufferWrapped, false));
for (const name in wrappedTypedArrays) {
  ObjectDefineProperty(globalObject, name, {
    __proto__: null,
    value: wrappedTypedArrays[name],
    writable: true,
    enumerable: false,
    configurable: true,
  });
}
ObjectDefineProperty(globalObject, "Error", desc(ErrorCtor, false));
// deno_core calls a user-defined Error.prepareStackTrace; forbid one.
ObjectDefineProperty(ErrorCtor, "prepareStackTrace", desc(undefined, false));
settle();
// `await` and the bridge rely on the real Promise machinery.
ObjectFreeze(PromiseCtor.prototype);
ObjectFreeze(PromiseCtor);

// ---- runner ----------------------------------------------------------------
// Deletes every global not on the allowlist again: compiling a snippet can make
// the engine install helpers on the global object (v8x adds
// `__v8x_import_defer` when it sees `import.defer`), after the scrub ran.
function rescrub() {
  const keys = ReflectOwnKeys(globalObject);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (typeof key === "string" && allowed[key] === 1) continue;
    if (!ReflectDeleteProperty(globalObject, key)) {
      throw new TypeErrorCtor("the engine left a global the sandbox cannot delete");
    }
  }
}

// The runner's answer, after the header of the calls that never started.
// The runner stays one async function, each return through this: with its body
// moved into an inner async function it awaits, jobs terminated mid-way left
// their thread running past the watchdog (13 of the 120 jobs of
// crash::termination_at_random_points_never_aborts were declared wedged).
function done(answer) {
  try {
    return unstartedHeader() + answer;
  } catch {
    return answer;
  }
}

return async function run(fn, argChars, queryChars, resultChars, maxLength) {
  argCap = argChars;
  queryCap = queryChars;
  resultCap = resultChars;
  lengthCap = maxLength;
  unstarted = { __proto__: null };
  unstartedCount = 0;
  let v;
  try {
    rescrub();
    settle();
    if (typeof fn !== "function") {
      throw new TypeErrorCtor("the snippet must be the body of an async function");
    }
    v = await ReflectApply(fn, undefined, []);
  } catch (e) {
    return done("0" + kindOf(e) + positionOf(e) + "\n" + bounded(describeThrown(e)));
  }
  try {
    switch (typeof v) {
      case "undefined":
        return done("1null");
      case "symbol":
      case "bigint":
      case "function":
        return done("0RESULT\nthe return value is a " + typeof v + ", which is not JSON; return plain data");
      default:
        break;
    }
    let s;
    try {
      s = JSONStringify(v);
    } catch (e) {
      return done("0RESULT\nthe return value could not be serialized to JSON (" +
        bounded(describeThrown(e)) + "); return plain data without cycles or BigInt");
    }
    if (s === undefined) return done("1null");
    if (s.length > resultCap) {
      return done("0RESULT\nthe return value is too large (" + s.length +
        " characters of JSON, limit " + resultCap +
        " bytes); return a smaller summary");
    }
    return done("1" + s);
  } catch (e) {
    return done("0" + kindOf(e) + "\n" + bounded(describeThrown(e)));
  }
};
