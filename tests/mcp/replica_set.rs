//! Issue 62's deployment, started for one test: a Redis, three gateway
//! replicas of one configuration sharing it, and HAProxy running
//! `deploy/haproxy.cfg` as shipped in front of them, all on loopback ports
//! chosen now. Dropping it stops everything it started, a failing test too.

use std::io::{BufRead, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::*;

pub(crate) const ADMIN_TOKEN: &str = "replica-set-admin-secret";

/// The sealing keys every replica shares (`id:hex`).
const SEALING_KEYS: &str = "k1:6b6579206f6e65206b6579206f6e65206b6579206f6e65206b6579206f6e6521";

/// Tokens of the profiles `team` and `meter`, when a test's configuration
/// names them (`token_env = ["TS_TEAM_TOKEN"]`).
pub(crate) const TEAM_TOKEN: &str = "team-token-of-the-replica-tests";
pub(crate) const METER_TOKEN: &str = "meter-token-of-the-replica-tests";

/// A `redis-server` of its own: no persistence, loopback only.
pub(crate) struct Redis {
    child: Option<Child>,
    pub(crate) port: u16,
}

impl Redis {
    pub(crate) fn start() -> Redis {
        let mut redis = Redis {
            child: None,
            port: free_port(),
        };
        redis.restart();
        redis
    }

    /// Starts it again on its port (after [`Redis::stop`]), answering PING.
    pub(crate) fn restart(&mut self) {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args([
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "yes",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server runs (apt install redis-server)");
        self.child = Some(child);
        let t0 = Instant::now();
        while !self.pings() {
            assert!(
                t0.elapsed() < Duration::from_secs(20),
                "redis never answered"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn pings(&self) -> bool {
        let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
        let mut buf = [0u8; 16];
        s.write_all(b"PING\r\n").is_ok()
            && s.read(&mut buf)
                .is_ok_and(|n| buf[..n].starts_with(b"+PONG"))
    }

    /// Kills it (SIGKILL: what a crash or a lost machine looks like).
    pub(crate) fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    pub(crate) fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One gateway replica: its MCP port, admin port and log.
pub(crate) struct Replica {
    child: Child,
    pub(crate) port: u16,
    pub(crate) admin: u16,
    log: KeptLines,
}

impl Replica {
    pub(crate) fn start(config: &Path, redis: &str, port: u16) -> Replica {
        let mut cmd = Command::new(binary());
        cmd.args([
            "gateway",
            "--http",
            &format!("127.0.0.1:{port}"),
            "--config",
        ])
        .arg(config)
        .env("TOOLSEARCH_LOG", "info")
        .env("TOOLSEARCH_ADMIN_TOKEN", ADMIN_TOKEN)
        .env("TOOLSEARCH_REDIS_URL", redis)
        .env("TOOLSEARCH_SEALING_KEYS", SEALING_KEYS)
        .env("TS_TEAM_TOKEN", TEAM_TOKEN)
        .env("TS_METER_TOKEN", METER_TOKEN);
        let (child, port, admin, lines) = spawn_http_gateway_with_admin(cmd);
        let admin = admin
            .and_then(|a| a.rsplit(':').next()?.parse().ok())
            .expect("[admin] in the config");
        let log = kept_lines(lines);
        Replica {
            child,
            port,
            admin,
            log,
        }
    }

    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// Its `/readyz` JSON.
    pub(crate) fn readyz(&self) -> Value {
        let auth = format!("Bearer {ADMIN_TOKEN}");
        let (_, _, body) = raw(
            self.admin,
            "GET",
            "/readyz",
            &[("Authorization", &auth)],
            "",
        );
        serde_json::from_str(&body).unwrap_or_else(|_| panic!("{body}"))
    }

    /// The lines of its `/metrics` starting with `prefix`.
    pub(crate) fn metrics(&self, prefix: &str) -> Vec<String> {
        let auth = format!("Bearer {ADMIN_TOKEN}");
        let (_, _, body) = raw(
            self.admin,
            "GET",
            "/metrics",
            &[("Authorization", &auth)],
            "",
        );
        body.lines()
            .filter(|l| l.starts_with(prefix))
            .map(str::to_string)
            .collect()
    }

    /// Waits (bounded) until its `/readyz` says the shared store is `state`:
    /// that `/readyz`.
    pub(crate) fn store_becomes(&self, state: &str) -> Value {
        let t0 = Instant::now();
        loop {
            let ready = self.readyz();
            if ready["store"]["state"] == state {
                return ready;
            }
            assert!(
                t0.elapsed() < HANG_GUARD,
                "the store never became {state}: {ready}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Log lines holding `needle`.
    pub(crate) fn logged(&self, needle: &str) -> usize {
        self.log.holding(needle)
    }

    /// SIGKILL: a lost machine.
    pub(crate) fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.kill();
    }
}

/// HAProxy, Redis and three replicas; the ledger server behind each replica
/// writes every call it receives to one file.
pub(crate) struct ReplicaSet {
    haproxy: Child,
    pub(crate) port: u16,
    pub(crate) replicas: Vec<Replica>,
    pub(crate) redis: Redis,
    pub(crate) ledger: PathBuf,
    pub(crate) config: PathBuf,
}

impl ReplicaSet {
    /// `head`: top-level keys and sections of the one configuration file
    /// (its `[admin]` and the ledger server are added).
    pub(crate) fn start(head: &str) -> ReplicaSet {
        let ledger = temp_path("ledger.jsonl");
        std::fs::write(&ledger, "").unwrap();
        let config = ledger.with_file_name("gateway.toml");
        let server = repo().join("tests/fixtures/ledger_server.py");
        std::fs::write(
            &config,
            format!(
                "semantic = false\n{head}\n[admin]\nlisten = \"127.0.0.1:0\"\n\n\
                 [[servers]]\nname = \"ledger\"\ncommand = \"python3\"\nargs = [{:?}]\n\
                 env = {{ LEDGER_FILE = {:?} }}\n",
                server.display().to_string(),
                ledger.display().to_string()
            ),
        )
        .unwrap();
        let redis = Redis::start();
        let replicas: Vec<Replica> = (0..3)
            .map(|_| Replica::start(&config, &redis.url(), 0))
            .collect();
        let port = free_port();
        let mut cmd = Command::new("haproxy");
        cmd.arg("-db")
            .arg("-f")
            .arg(repo().join("deploy/haproxy.cfg"))
            .env("TS_BIND", format!("127.0.0.1:{port}"));
        for (i, r) in replicas.iter().enumerate() {
            cmd.env(
                format!("TS_REPLICA_{}", i + 1),
                format!("127.0.0.1:{}", r.port),
            );
        }
        let haproxy = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("haproxy runs (apt install haproxy)");
        let set = ReplicaSet {
            haproxy,
            port,
            replicas,
            redis,
            ledger,
            config,
        };
        let t0 = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                t0.elapsed() < Duration::from_secs(20),
                "haproxy never listened"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        set
    }

    /// The balancer's MCP URL.
    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// Every call the ledger servers received: `{pid, tool, arguments}`.
    pub(crate) fn ledger(&self) -> Vec<Value> {
        let f = std::fs::File::open(&self.ledger).unwrap();
        std::io::BufReader::new(f)
            .lines()
            .map_while(Result::ok)
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(&l).unwrap())
            .collect()
    }

    /// The calls to `tool` with `field` = `value` in the ledger.
    pub(crate) fn ran(&self, tool: &str, field: &str, value: &Value) -> Vec<Value> {
        self.ledger()
            .into_iter()
            .filter(|c| c["tool"] == tool && &c["arguments"][field] == value)
            .collect()
    }
}

impl Drop for ReplicaSet {
    fn drop(&mut self) {
        let _ = self.haproxy.kill();
        let _ = self.haproxy.wait();
    }
}

/// Runs `tests/fixtures/py_replicas.py` with `args`: its JSON.
pub(crate) fn py(args: &[&str]) -> Value {
    let out = Command::new("python3")
        .arg(repo().join("tests/fixtures/py_replicas.py"))
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "py_replicas.py {args:?} failed: {text}"
    );
    serde_json::from_str(text.trim()).unwrap_or_else(|_| panic!("not JSON: {text}"))
}
