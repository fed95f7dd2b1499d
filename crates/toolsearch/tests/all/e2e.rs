//! End to end: a mock OpenAI-compatible provider on loopback with a scripted model,
//! the same task in direct mode and in code mode over 121 tools.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use toolsearch::{Activation, Mode, Provider, Session, Settings, ToolSearch};
use toolsearch_catalog::{Catalog, Source, Tool};

const TARGET: &str = "create_invoice";
/// A parameter only the target has: it must not be in a code-mode request up front.
const TARGET_PARAM: &str = "invoice_amount_cents";

fn catalog() -> Catalog {
    let mut tools: Vec<Tool> = (0..120)
        .map(|i| {
            let server = ["crm", "mail", "files", "calendar", "chat", "docs"][i % 6];
            Tool::new(
                Source::Mcp,
                Some(server),
                &format!("{server}_action_{i}"),
                &format!(
                    "Performs {server} operation number {i} on records, with paging and filters."
                ),
                json!({"type": "object", "properties": {
                    "record_id": {"type": "string", "description": "The record to act on"},
                    "page": {"type": "integer", "description": "Page of results"},
                    "filter": {"type": "string", "description": "A filter expression"}
                }, "required": ["record_id"]}),
            )
        })
        .collect();
    tools.push(Tool::new(
        Source::Mcp,
        Some("billing"),
        TARGET,
        "Create an invoice for a customer.",
        json!({"type": "object", "properties": {
            "customer": {"type": "string", "description": "Customer id"},
            TARGET_PARAM: {"type": "integer", "description": "Amount in cents"}
        }, "required": ["customer", TARGET_PARAM]}),
    ));
    Catalog::new(tools).unwrap()
}

/// The scripted model: calls the target (directly or through code), then answers.
fn model_reply(request: &Value) -> Value {
    let messages = request["messages"].as_array().unwrap();
    if messages.last().unwrap()["role"] == "tool" {
        return json!({"role": "assistant", "content": "Invoice created."});
    }
    let names: Vec<&str> = request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    let (name, args) = if names.contains(&"tool_search_code") {
        let code = format!(
            "const [hit] = await openclaw.tools.search('create an invoice for a customer', {{limit: 3}});\n\
             const tool = await openclaw.tools.describe(hit.id);\n\
             return await openclaw.tools.call(tool.id, {{customer: 'acme', {TARGET_PARAM}: 4200}});"
        );
        ("tool_search_code".to_string(), json!({"code": code}))
    } else {
        (
            TARGET.to_string(),
            json!({"customer": "acme", TARGET_PARAM: 4200}),
        )
    };
    json!({"role": "assistant", "content": null, "tool_calls": [{
        "id": "call_1", "type": "function",
        "function": {"name": name, "arguments": args.to_string()}
    }]})
}

/// Serves chat completions on loopback; records each request body.
fn start_provider(bodies: Arc<Mutex<Vec<String>>>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let body = read_http_body(&mut stream);
            let request: Value = serde_json::from_str(&body).unwrap();
            bodies.lock().unwrap().push(body);
            let reply = json!({"id": "chatcmpl-1", "object": "chat.completion", "choices": [
                {"index": 0, "message": model_reply(&request), "finish_reason": "stop"}
            ]})
            .to_string();
            let _ = write!(stream, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}", reply.len());
        }
    });
    addr
}

fn read_http_body(stream: &mut TcpStream) -> String {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 65536];
    loop {
        let n = stream.read(&mut chunk).unwrap();
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map(|v| v.trim().parse().unwrap())
                .unwrap_or(0);
            while buf.len() < end + 4 + len {
                let n = stream.read(&mut chunk).unwrap();
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            return String::from_utf8(buf[end + 4..end + 4 + len].to_vec()).unwrap();
        }
        if n == 0 {
            return String::new();
        }
    }
}

fn post(addr: &str, body: &Value) -> Value {
    let body = body.to_string();
    let mut s = TcpStream::connect(addr).unwrap();
    write!(s, "POST /v1/chat/completions HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    serde_json::from_str(out.split_once("\r\n\r\n").unwrap().1).unwrap()
}

/// A minimal agent loop; returns the final answer.
async fn run_task(ts: &ToolSearch, addr: &str) -> String {
    let session = Session::new("e2e");
    let mut messages = vec![json!({"role": "user", "content": "Bill acme 42 dollars."})];
    for _ in 0..4 {
        let tools = ts.definitions(&session, Provider::OpenAiChat).tools;
        let resp = post(
            addr,
            &json!({"model": "scripted", "messages": messages, "tools": tools}),
        );
        let msg = resp["choices"][0]["message"].clone();
        messages.push(msg.clone());
        let Some(calls) = msg["tool_calls"].as_array() else {
            return msg["content"].as_str().unwrap_or_default().to_string();
        };
        for call in calls {
            let args: Value =
                serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
            let out = ts
                .handle_call(&session, call["function"]["name"].as_str().unwrap(), args)
                .await;
            assert!(!out.is_error, "{}", out.content);
            messages.push(json!({"role": "tool", "tool_call_id": call["id"], "content": out.content.to_string()}));
        }
    }
    panic!("the task did not finish");
}

#[tokio::test]
async fn direct_and_code_mode_complete_the_same_task() {
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let addr = start_provider(bodies.clone());

    let direct = ToolSearch::builder()
        .catalog(catalog())
        .settings(Settings {
            activation: Activation::Never,
            ..Settings::default()
        })
        .build();
    assert_eq!(run_task(&direct, &addr).await, "Invoice created.");
    let direct_rec = direct.take_record();
    let direct_first = bodies.lock().unwrap()[0].clone();

    let code = ToolSearch::builder()
        .catalog(catalog())
        .settings(Settings {
            mode: Mode::Code,
            ..Settings::default()
        })
        .build();
    assert_eq!(run_task(&code, &addr).await, "Invoice created.");
    let code_rec = code.take_record();
    let code_first = bodies.lock().unwrap()[2].clone();

    // Both called the same target tool.
    let target_id = format!("mcp:billing:{TARGET}");
    assert_eq!(
        direct_rec
            .selected
            .iter()
            .map(|s| s.id.as_str())
            .collect::<Vec<_>>(),
        [target_id.as_str()]
    );
    assert!(
        code_rec.selected.iter().any(|s| s.id == target_id),
        "{:?}",
        code_rec.selected
    );
    // Code mode exposes no target schema up front and is smaller.
    assert!(direct_first.contains(TARGET_PARAM));
    assert!(!code_first.contains(TARGET_PARAM));
    let ratio = direct_first.len() as f64 / code_first.len() as f64;
    eprintln!(
        "e2e: first request {} B direct vs {} B code mode ({ratio:.1}x smaller); code mode: {} search, {} describe, {} call",
        direct_first.len(),
        code_first.len(),
        code_rec.searches,
        code_rec.describes,
        code_rec.calls
    );
    assert!(ratio > 5.0, "{ratio}");
    // Telemetry shows the expected counts.
    assert_eq!(
        (direct_rec.searches, direct_rec.describes, direct_rec.calls),
        (0, 0, 1)
    );
    assert_eq!(
        (code_rec.searches, code_rec.describes, code_rec.calls),
        (1, 1, 1)
    );
    assert_eq!(code_rec.activation.as_ref().unwrap().shape, "code");
    assert_eq!(code_rec.isolate_start_us.len(), 1);
}
