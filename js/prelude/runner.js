// ---- runner.js (the prelude's last part; see capture.js) ------------------
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
