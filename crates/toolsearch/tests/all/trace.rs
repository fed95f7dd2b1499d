//! The caller's trace context, carried to each tool call it makes.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use toolsearch::{CallContext, Mode, Session, ToolSearch};
use toolsearch_catalog::{Catalog, Tool};

use crate::facade::tools;

/// The trace a caller gives a call reaches the dispatcher with each tool call
/// it makes: `tool_call`'s and a snippet's alike.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_callers_trace_reaches_the_dispatcher_of_each_call() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let got = seen.clone();
    let dispatcher = toolsearch::dispatcher_fn(move |_: Tool, _: Value, cx: CallContext| {
        got.lock().unwrap().push(cx.trace.clone());
        async move { Ok(json!({"ok": true})) }
    });
    let ts = ToolSearch::builder()
        .catalog(Catalog::new(tools(3)).unwrap())
        .mode(Mode::Code)
        .dispatcher(Arc::new(dispatcher))
        .build()
        .unwrap();
    let s = Session::new("traced");
    let trace = Arc::new(toolsearch::TraceContext {
        traceparent: "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-00".into(),
        tracestate: None,
    });
    let opts = toolsearch::CallOptions {
        trace: Some(trace.clone()),
        ..Default::default()
    };
    let code = "return await openclaw.tools.call('mcp:srv:tool_1', {count: 1});";
    let out = ts
        .handle_call_with(&s, "tool_search_code", json!({ "code": code }), &opts)
        .await;
    assert!(!out.is_error, "{}", out.content);
    let args = json!({"id": "mcp:srv:tool_2", "arguments": {"count": 2}});
    let out = ts.handle_call_with(&s, "tool_call", args, &opts).await;
    assert!(!out.is_error, "{}", out.content);
    let out = ts
        .handle_call(&s, "tool_search_code", json!({ "code": code }))
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        *seen.lock().unwrap(),
        [Some(trace.clone()), Some(trace), None],
        "each call carried its caller's trace, and none without one"
    );
}
