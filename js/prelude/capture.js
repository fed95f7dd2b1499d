// The bridge prelude: the body of a function the host compiles and calls once
// per isolate, right after creation and before any snippet (a compiled function
// is parsed once; v8x/QuickJS parses a script twice). Its four files are one
// function body, joined in this order (`crates/sandbox/src/isolate/runtime.rs`):
//   capture.js  the intrinsics, captured before any user code runs, and the
//               helpers that format and classify what a snippet threw;
//   bridge.js   `openclaw.tools` (search, describe, call) and `console`;
//   scrub.js    code generation off, the ArrayBuffer budget, native loops, the
//               one surface of every path, the global allowlist;
//   runner.js   the function the host calls with each snippet.
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
