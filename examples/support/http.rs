//! Just enough HTTP/1.1 for the examples and the end-to-end test: one request per
//! connection, JSON bodies, no TLS (point it at a local OpenAI-compatible server).
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};

use serde_json::Value;

/// Reads one request's body (by Content-Length); also returns the request line.
pub fn read_request(stream: &mut TcpStream) -> (String, String) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 65536];
    loop {
        let n = stream.read(&mut chunk).unwrap_or(0);
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_string();
            let len: usize = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse().unwrap_or(0))
                })
                .unwrap_or(0);
            while buf.len() < end + 4 + len {
                let n = stream.read(&mut chunk).unwrap_or(0);
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            let body =
                String::from_utf8_lossy(&buf[end + 4..(end + 4 + len).min(buf.len())]).to_string();
            return (head.lines().next().unwrap_or_default().to_string(), body);
        }
        if n == 0 {
            return (String::new(), String::new());
        }
    }
}

/// Writes a JSON response.
pub fn respond(stream: &mut TcpStream, status: &str, body: &str) {
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// POSTs JSON to `http://{addr}{path}` and parses the JSON answer.
pub fn post(addr: &str, path: &str, body: &Value, bearer: Option<&str>) -> Result<Value, String> {
    let body = body.to_string();
    let mut s = TcpStream::connect(addr).map_err(|e| format!("connect {addr}: {e}"))?;
    let auth = bearer
        .map(|k| format!("Authorization: Bearer {k}\r\n"))
        .unwrap_or_default();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n{auth}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .map_err(|e| e.to_string())?;
    let mut out = String::new();
    s.read_to_string(&mut out).map_err(|e| e.to_string())?;
    let (_, json) = out.split_once("\r\n\r\n").ok_or("no HTTP body")?;
    serde_json::from_str(json).map_err(|e| format!("bad JSON from {addr}: {e}"))
}

/// Serves `handle(request_line, body) -> response body` on a loopback port in a
/// background thread; returns `host:port`.
pub fn serve(handle: impl Fn(&str, &str) -> String + Send + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let addr = listener.local_addr().expect("address").to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let (line, body) = read_request(&mut stream);
            let reply = handle(&line, &body);
            respond(&mut stream, "200 OK", &reply);
        }
    });
    addr
}
