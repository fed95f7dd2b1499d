//! No CPU work on the async runtime: on a one-thread runtime (what the stdio
//! gateway runs), the facade's spans for search, describe and the served
//! list are entered on other threads, while a forwarded call's span stays on
//! the runtime's (the control: the recorder does see the runtime's thread).
//! In a process of its own (the recorder is the process's subscriber).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;

use serde_json::json;
use tracing::span::{Attributes, Id};
use tracing::Subscriber;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

use crate::harness::{alone, gateway, Client, Reach, Script};

/// (span name, its `tool` field) -> the threads it was entered on.
type Entered = Arc<Mutex<HashMap<(String, String), Vec<ThreadId>>>>;

struct Threads(Entered);

/// The `tool` field of a span, kept in its extensions.
struct ToolField(String);

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Threads {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        struct Visit(String);
        impl tracing::field::Visit for Visit {
            fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
                if field.name() == "tool" {
                    self.0 = value.to_string();
                }
            }
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                if field.name() == "tool" {
                    self.0 = format!("{value:?}").trim_matches('"').to_string();
                }
            }
        }
        let mut v = Visit(String::new());
        attrs.record(&mut v);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(ToolField(v.0));
        }
    }

    fn on_enter(&self, id: &Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let tool = span
            .extensions()
            .get::<ToolField>()
            .map(|t| t.0.clone())
            .unwrap_or_default();
        self.0
            .lock()
            .unwrap()
            .entry((span.name().to_string(), tool))
            .or_default()
            .push(std::thread::current().id());
    }
}

#[test]
fn search_describe_and_the_served_list_run_off_the_runtime_thread() {
    alone(
        "runtime::search_describe_and_the_served_list_run_off_the_runtime_thread",
        || {
            let entered: Entered = Arc::default();
            tracing::subscriber::set_global_default(
                tracing_subscriber::registry().with(Threads(entered.clone())),
            )
            .unwrap();
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            let runtime_thread = std::thread::current().id();
            rt.block_on(async {
                let script = Script::new(30);
                let gw = gateway(vec![("s", Reach::Stream(script))], "").await;
                let c = Client::connect(&gw, "ann").await;
                let listed = c.service.peer().list_all_tools().await.unwrap();
                assert!(!listed.is_empty());
                let peer = c.service.peer();
                let call = |name: &str, args: serde_json::Value| {
                    rmcp::model::CallToolRequestParams::new(name.to_string())
                        .with_arguments(args.as_object().unwrap().clone())
                };
                peer.call_tool(call("tool_search", json!({"query": "work"})))
                    .await
                    .unwrap();
                peer.call_tool(call("tool_describe", json!({"ids": ["mcp:s:work"]})))
                    .await
                    .unwrap();
                c.call("s", "work", json!({"tag": "ann"})).await;
                gw.shutdown().await;
            });
            let entered = entered.lock().unwrap();
            let threads = |name: &str, tool: &str| {
                entered
                    .get(&(name.to_string(), tool.to_string()))
                    .cloned()
                    .unwrap_or_default()
            };
            for (name, tool) in [
                ("toolsearch.call", "tool_search"),
                ("toolsearch.call", "tool_describe"),
                ("toolsearch.definitions", ""),
            ] {
                let on = threads(name, tool);
                assert!(!on.is_empty(), "{name} {tool} never entered: {entered:?}");
                assert!(
                    on.iter().all(|t| *t != runtime_thread),
                    "{name} {tool} ran on the runtime's thread"
                );
            }
            // The control: a forwarded call awaits on the runtime, and is seen there.
            let forwarded = threads("toolsearch.call", "tool_call");
            assert!(
                forwarded.contains(&runtime_thread),
                "the recorder missed the runtime's thread: {entered:?}"
            );
        },
    );
}
