// ---- scrub.js (the prelude's third part; see capture.js) ------------------
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
