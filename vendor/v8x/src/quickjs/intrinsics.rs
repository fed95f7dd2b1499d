//! toolsearch patch 0012: the intrinsics the glue uses at run time, captured
//! per context before any script runs.
//!
//! The glue (the `v8__*` functions deno_core calls while a script runs) looked
//! its constructors and helpers up on the global object by name at each call:
//! a script that replaced `globalThis.TypeError`, `Promise`, `Object.freeze` or
//! `Symbol.for` had its own code run inside the engine's, and received what
//! the glue passed. Each name below is read once, when the context is made
//! (`capture`, from `install_default_globals_inner`, before any script), and
//! `get` hands out that value from then on. The helpers the glue used to
//! evaluate from source at each use (`@…`) are made from factories that read
//! no global, called with captured values: so they can be, and are, made at
//! their first use (a context's creation pays only for the reads), and read no
//! property a script can change.

use std::ffi::CStr;

use super::core::{current_iso, iso_state};
use super::quickjs_sys::*;
use crate::RealIsolate;
use std::os::raw::c_void;

/// A global, or a global's member (`"Object.freeze"`).
const NAMES: &[&CStr] = &[
  c"Object",
  c"Object.getOwnPropertyDescriptor",
  c"Object.freeze",
  c"Object.seal",
  c"Object.defineProperty",
  c"Array",
  c"Array.from",
  c"Map",
  c"Set",
  c"Date",
  c"RegExp",
  c"Proxy",
  c"Proxy.revocable",
  c"Symbol",
  c"Promise",
  c"Promise.resolve",
  c"Promise.prototype.then",
  c"Reflect.apply",
  c"Object.keys",
  c"String",
  c"Number.prototype.toString",
  c"Reflect",
  c"Reflect.get",
  c"DataView",
  c"Error",
  c"EvalError",
  c"TypeError",
  c"RangeError",
  c"ReferenceError",
  c"SyntaxError",
  c"URIError",
];

/// Helpers made from source, each `(name, source, arguments)`: the source is a
/// factory that reads no global, called with the captured values of
/// `arguments`. A helper is made the first time its context asks for it (most
/// jobs never make a stack, an `import()` or a microtask from the host), and
/// kept with the context's captured values from then on.
type Helper = (&'static CStr, &'static CStr, &'static [&'static CStr]);

const HELPERS: &[Helper] = &[
  (
    c"@dynimport-chain",
    c"(resolve,then,apply,P)=>(d,res,rej,mark,base)=>{apply(then,apply(resolve,P,[d]),[res,(e)=>mark(e,base,rej)]);}",
    &[c"Promise.resolve", c"Promise.prototype.then", c"Reflect.apply", c"Promise"],
  ),
  (
    c"@dynimport-attrs",
    c"(keys,S,def)=>(o)=>{const a=[];const ks=keys(o);for(let i=0;i<ks.length;i++){const k=ks[i];def(a,a.length,{__proto__:null,value:k,writable:true,enumerable:true,configurable:true});def(a,a.length,{__proto__:null,value:S(o[k]),writable:true,enumerable:true,configurable:true});}return a;}",
    &[c"Object.keys", c"String", c"Object.defineProperty"],
  ),
  (
    // One V8-shaped CallSite (exception.rs `build_callsites`); a wasm frame's
    // offset in hex through the captured `Number.prototype.toString`.
    c"@callsite",
    c"(apply,hex)=>function(file,line,col,fn,type,method,top,constructor,async,wasm){return {\
getFileName:function(){return file||undefined;},\
getScriptNameOrSourceURL:function(){return file||undefined;},\
getLineNumber:function(){return line||undefined;},\
getColumnNumber:function(){return col||undefined;},\
getFunctionName:function(){return fn;},\
getMethodName:function(){return method;},\
getTypeName:function(){return type;},\
getEvalOrigin:function(){return undefined;},\
getThis:function(){return undefined;},\
getFunction:function(){return undefined;},\
isToplevel:function(){return top;},\
isEval:function(){return false;},\
isNative:function(){return false;},\
isConstructor:function(){return constructor;},\
isAsync:function(){return async;},\
isPromiseAll:function(){return false;},\
getPromiseIndex:function(){return null;},\
toString:function(){var loc=wasm?(file+':wasm-function['+(line-1)+']:0x'+apply(hex,col-1,[16])):(file+':'+line+':'+col);return fn?(fn+' ('+loc+')'):(top?loc:('<anonymous> ('+loc+')'));}\
};}",
    &[c"Reflect.apply", c"Number.prototype.toString"],
  ),
  (
    c"@enqueue-microtask",
    c"(resolve,then,apply,P)=>(f)=>{apply(then,apply(resolve,P,[]),[f]);}",
    &[c"Promise.resolve", c"Promise.prototype.then", c"Reflect.apply", c"Promise"],
  ),
];

unsafe fn clear_exception(ctx: *mut JSContext) {
  unsafe {
    let exc = JS_GetException(ctx);
    JS_FreeValue(ctx, exc);
  }
}

/// `global.a.b…` read now, or undefined.
unsafe fn read_path(ctx: *mut JSContext, name: &CStr) -> JSValue {
  let Ok(text) = name.to_str() else {
    return jsv_undefined();
  };
  unsafe {
    let mut v = JS_GetGlobalObject(ctx);
    for part in text.split('.') {
      let Ok(key) = std::ffi::CString::new(part) else {
        JS_FreeValue(ctx, v);
        return jsv_undefined();
      };
      let next = JS_GetPropertyStr(ctx, v, key.as_ptr());
      JS_FreeValue(ctx, v);
      if next.tag == JS_TAG_EXCEPTION {
        clear_exception(ctx);
        return jsv_undefined();
      }
      v = next;
    }
    v
  }
}

/// Makes helper `name` of the captured context `ctx` (`None` when there is no
/// such helper, or the engine could not): the factory's source is evaluated,
/// then called with the captured values of its arguments.
unsafe fn make_helper(
  ctx: *mut JSContext,
  name: &CStr,
) -> Option<(&'static CStr, JSValue)> {
  let (name, source, names) = HELPERS.iter().find(|(n, _, _)| *n == name)?;
  unsafe {
    let factory = JS_Eval(
      ctx,
      source.as_ptr(),
      source.to_bytes().len(),
      c"<v8x-intrinsics>".as_ptr(),
      JS_EVAL_TYPE_GLOBAL,
    );
    if factory.tag == JS_TAG_EXCEPTION {
      clear_exception(ctx);
      return None;
    }
    let mut args: Vec<JSValue> = names.iter().map(|n| get(ctx, n)).collect();
    let helper = JS_Call(
      ctx,
      factory,
      jsv_undefined(),
      args.len() as std::os::raw::c_int,
      args.as_mut_ptr(),
    );
    for arg in args {
      JS_FreeValue(ctx, arg);
    }
    JS_FreeValue(ctx, factory);
    if helper.tag == JS_TAG_EXCEPTION {
      clear_exception(ctx);
      return None;
    }
    Some((*name, helper))
  }
}

/// Reads every name for `ctx`, replacing what an earlier capture of the same
/// context held (its helpers too, made again at their next use). Called
/// before any script runs.
pub(crate) unsafe fn capture(isolate: *mut RealIsolate, ctx: *mut JSContext) {
  let iso = if isolate.is_null() {
    current_iso()
  } else {
    isolate
  };
  // Only the isolate whose runtime owns the context holds its values (a
  // context of another runtime, as a snapshot test makes, is not captured).
  if iso.is_null()
    || ctx.is_null()
    || iso_state(iso).rt != unsafe { JS_GetRuntime(ctx) }
  {
    return;
  }
  let mut values = Vec::with_capacity(NAMES.len() + HELPERS.len());
  for name in NAMES {
    values.push((*name, unsafe { read_path(ctx, name) }));
  }
  // The context names its isolate from now on: `get` finds the capture
  // through the context itself, never through the thread's current isolate.
  unsafe { JS_SetContextOpaque(ctx, iso as *mut c_void) };
  if let Some(old) = iso_state(iso).intrinsics.insert(ctx as usize, values) {
    for (_, v) in old {
      unsafe { JS_FreeValue(ctx, v) };
    }
  }
}

/// The captured value of `name` (a new reference, as `JS_GetPropertyStr`
/// gives). Before its context's capture (the engine's own set-up), the value
/// on the global object now; after it, never: a name it did not capture, or a
/// context whose capture was released, gives undefined.
pub(crate) unsafe fn get(ctx: *mut JSContext, name: &CStr) -> JSValue {
  if ctx.is_null() {
    return jsv_undefined();
  }
  let iso = unsafe { JS_GetContextOpaque(ctx) } as *mut RealIsolate;
  if iso.is_null() {
    return unsafe { read_path(ctx, name) };
  }
  let Some(values) = iso_state(iso).intrinsics.get(&(ctx as usize)) else {
    return jsv_undefined();
  };
  if let Some((_, v)) = values.iter().find(|(n, _)| *n == name) {
    return unsafe { JS_DupValue(ctx, *v) };
  }
  // A helper not made yet: made now, from captured values only, and kept.
  let Some((name, helper)) = (unsafe { make_helper(ctx, name) }) else {
    return jsv_undefined();
  };
  match iso_state(iso).intrinsics.get_mut(&(ctx as usize)) {
    Some(values) => {
      values.push((name, unsafe { JS_DupValue(ctx, helper) }));
      helper
    }
    None => {
      unsafe { JS_FreeValue(ctx, helper) };
      jsv_undefined()
    }
  }
}

/// [`get`] for a name given as a C string pointer.
pub(crate) unsafe fn get_raw(
  ctx: *mut JSContext,
  name: *const std::os::raw::c_char,
) -> JSValue {
  if name.is_null() {
    return jsv_undefined();
  }
  unsafe { get(ctx, CStr::from_ptr(name)) }
}

/// Frees what `capture` held for every context of the isolate.
pub(crate) unsafe fn release(
  intrinsics: &mut std::collections::HashMap<
    usize,
    Vec<(&'static CStr, JSValue)>,
  >,
) {
  for (ctx, values) in intrinsics.drain() {
    for (_, v) in values {
      unsafe { JS_FreeValue(ctx as *mut JSContext, v) };
    }
  }
}
