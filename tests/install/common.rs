//! What the install tests share: the checkout, temporary homes, a loopback
//! file server, and running a command with a clean environment.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

pub use toolsearch_tests::repo as root;

/// A fresh directory under the system's temporary one, removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(what: &str) -> Scratch {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "ts-{what}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
    pub fn join(&self, p: &str) -> PathBuf {
        self.0.join(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `program` with only the given environment (plus a plain PATH, `PATH`
/// overriding it) and `cwd`, run to its end.
pub fn run_in(program: &Path, args: &[&str], cwd: &Path, env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(program);
    c.args(args)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("LANG", "C.UTF-8");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output()
        .unwrap_or_else(|e| panic!("starting {}: {e}", program.display()))
}

/// Serves `files` (path → bytes) on a loopback port for the rest of the test
/// process; counts requests.
pub struct FileServer {
    pub base: String,
    pub requests: Arc<AtomicUsize>,
}

impl FileServer {
    pub fn start(files: HashMap<String, Vec<u8>>) -> FileServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(AtomicUsize::new(0));
        let (files, count) = (Arc::new(files), requests.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let (files, count) = (files.clone(), count.clone());
                std::thread::spawn(move || {
                    let mut line = String::new();
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    if reader.read_line(&mut line).is_err() {
                        return;
                    }
                    // The rest of the head.
                    let mut h = String::new();
                    while reader.read_line(&mut h).is_ok_and(|n| n > 2) {
                        h.clear();
                    }
                    count.fetch_add(1, Ordering::Relaxed);
                    let path = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
                    let (status, body) = match files.get(&path) {
                        Some(b) => ("200 OK", b.as_slice()),
                        None => ("404 Not Found", &b"not here"[..]),
                    };
                    let head = format!(
                        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = stream.write_all(head.as_bytes());
                    let _ = stream.write_all(body);
                });
            }
        });
        FileServer { base, requests }
    }
}

/// stdout as JSON, or a panic that shows both streams.
pub fn json_of(out: &Output, what: &str) -> serde_json::Value {
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{what}: not JSON ({e}):\n{stdout}"))
}
