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
//! evaluate from source at each use (`@…`) are made at the same time, with the
//! intrinsics they call bound as parameters, and read no property a script can
//! change.

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

/// Helpers made from source once per context, each `(name, source)`.
const HELPERS: &[(&CStr, &CStr)] = &[
  (
    c"@dynimport-chain",
    c"((resolve,then,apply,P)=>(d,res,rej,mark,base)=>{apply(then,apply(resolve,P,[d]),[res,(e)=>mark(e,base,rej)]);})(Promise.resolve,Promise.prototype.then,Reflect.apply,Promise)",
  ),
  (
    c"@dynimport-attrs",
    c"((keys,S,def)=>(o)=>{const a=[];const ks=keys(o);for(let i=0;i<ks.length;i++){const k=ks[i];def(a,a.length,{__proto__:null,value:k,writable:true,enumerable:true,configurable:true});def(a,a.length,{__proto__:null,value:S(o[k]),writable:true,enumerable:true,configurable:true});}return a;})(Object.keys,String,Object.defineProperty)",
  ),
  (
    // One V8-shaped CallSite (exception.rs `build_callsites`); a wasm frame's
    // offset in hex through the captured `Number.prototype.toString`.
    c"@callsite",
    c"((apply,hex)=>function(file,line,col,fn,type,method,top,constructor,async,wasm){return {\
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
};})(Reflect.apply,Number.prototype.toString)",
  ),
  (
    c"@enqueue-microtask",
    c"((resolve,then,apply,P)=>(f)=>{apply(then,apply(resolve,P,[]),[f]);})(Promise.resolve,Promise.prototype.then,Reflect.apply,Promise)",
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

unsafe fn make_helper(ctx: *mut JSContext, source: &CStr) -> JSValue {
  unsafe {
    let v = JS_Eval(
      ctx,
      source.as_ptr(),
      source.to_bytes().len(),
      c"<v8x-intrinsics>".as_ptr(),
      JS_EVAL_TYPE_GLOBAL,
    );
    if v.tag == JS_TAG_EXCEPTION {
      clear_exception(ctx);
      return jsv_undefined();
    }
    v
  }
}

/// Reads every name and makes every helper for `ctx`, replacing what an
/// earlier capture of the same context held. Called before any script runs.
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
  unsafe {
    for name in NAMES {
      values.push((*name, read_path(ctx, name)));
    }
    for (name, source) in HELPERS {
      values.push((*name, make_helper(ctx, source)));
    }
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
  let found = iso_state(iso)
    .intrinsics
    .get(&(ctx as usize))
    .and_then(|values| values.iter().find(|(n, _)| *n == name));
  match found {
    Some((_, v)) => unsafe { JS_DupValue(ctx, *v) },
    None => jsv_undefined(),
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
