//! Reload without restart, through the binary as an operator runs it: a
//! client stays connected and calls while the file changes (saved the way
//! editors save: a new file renamed over the old one) or `SIGHUP` comes.
//! Servers are added and removed (a call in flight on a removed one ends
//! normally), a policy changes under a running snippet (its next call meets
//! it), a profile is removed (its session and its token are refused from
//! then on), a certificate is renewed, and a changed listening address and
//! a bad file are refused with their reason while the configuration in force
//! stays.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use serde_json::{json, Value};

use crate::common::*;
use crate::harness::{code_view, http_client, http_client_with};

/// A stdio fixture server's `[[servers]]` entry.
pub(crate) fn server(name: &str) -> String {
    match name {
        "time" => {
            python_module_ok("mcp_server_time");
            "[[servers]]\nname = \"time\"\ncommand = \"python3\"\nargs = [\"-m\", \"mcp_server_time\", \"--local-timezone\", \"UTC\"]\n".into()
        }
        "everything" => {
            let js = node_module("@modelcontextprotocol/server-everything/dist/index.js");
            format!("[[servers]]\nname = \"everything\"\ncommand = \"node\"\nargs = [{js:?}, \"stdio\"]\n")
        }
        "memory" => {
            let js = node_module("@modelcontextprotocol/server-memory/dist/index.js");
            let file = temp_path("memory.jsonl");
            format!("[[servers]]\nname = \"memory\"\ncommand = \"node\"\nargs = [{js:?}]\nenv = {{ MEMORY_FILE_PATH = {file:?} }}\n")
        }
        other => panic!("no fixture server {other}"),
    }
}

/// Saves `text` at `path` as editors do: a new file renamed over the old.
pub(crate) fn save(path: &Path, text: &str) {
    let tmp = path.with_extension("toml.swp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

pub(crate) fn sighup(pid: u32) {
    let ok = std::process::Command::new("kill")
        .args(["-HUP", &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -HUP {pid}");
}

/// A gateway serving HTTP with the config at `path`, its port, and its
/// stderr lines as they come.
pub(crate) struct Running {
    pub(crate) child: std::process::Child,
    pub(crate) port: u16,
    lines: mpsc::Receiver<String>,
}

impl Running {
    pub(crate) fn start(path: &Path, env: &[(&str, &str)]) -> Running {
        let mut cmd = std::process::Command::new(binary());
        cmd.args(["gateway", "--http", "127.0.0.1:0", "--config"])
            .arg(path)
            .envs(env.iter().copied());
        let (child, port, stderr) = spawn_http_gateway(cmd);
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stderr.map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Running { child, port, lines }
    }

    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// The next stderr line about a new configuration (applied or refused),
    /// waiting at most 60 s.
    pub(crate) async fn reload_line(&self) -> String {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            match self.lines.try_recv() {
                Ok(line)
                    if line.contains("toolsearch: configuration reloaded")
                        || line.contains("toolsearch: new configuration refused") =>
                {
                    return line
                }
                Ok(_) => continue,
                Err(mpsc::TryRecvError::Disconnected) => panic!("the gateway exited"),
                Err(mpsc::TryRecvError::Empty) => {}
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no reload line within 60 s"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

type Conn = rmcp::service::RunningService<rmcp::RoleClient, crate::harness::Recorder>;

async fn names(c: &Conn) -> Vec<String> {
    c.peer()
        .list_all_tools()
        .await
        .expect("tools/list")
        .into_iter()
        .map(|t| t.name.to_string())
        .collect()
}

async fn call(c: &Conn, name: &str, args: Value) -> Result<Value, String> {
    let Value::Object(args) = args else {
        panic!("args must be an object")
    };
    c.peer()
        .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(args))
        .await
        .map(|r| serde_json::to_value(r).unwrap())
        .map_err(|e| e.to_string())
}

/// The served name holding `part`.
fn named<'a>(all: &'a [String], part: &str) -> &'a str {
    all.iter()
        .find(|n| n.contains(part))
        .unwrap_or_else(|| panic!("no tool like {part} in {all:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn servers_come_and_go_while_a_client_calls_and_a_call_in_flight_ends_normally() {
    let path = temp_path("reload.toml");
    // A plain aggregator: every tool is in the list, which changes with them.
    let head = "semantic = false\nactivation = \"never\"\n";
    save(
        &path,
        &format!("{head}{}{}", server("time"), server("everything")),
    );
    let gw = Running::start(&path, &[]);
    let client = http_client(&gw.url(), "reload".into()).await;
    let before = names(&client).await;
    assert!(
        !before.iter().any(|n| n.contains("create_entities")),
        "{before:?}"
    );

    // Added, by saving the file (no signal): started, listed, told, callable.
    save(
        &path,
        &format!(
            "{head}{}{}{}",
            server("time"),
            server("everything"),
            server("memory")
        ),
    );
    let line = gw.reload_line().await;
    assert!(line.contains("\"added\":[\"memory\"]"), "{line}");
    assert!(
        crate::harness::until(|| client.service().seen.lock().unwrap().list_changed >= 1).await,
        "no list_changed after a server was added"
    );
    let with_memory = names(&client).await;
    let read = named(&with_memory, "read_graph").to_string();
    let r = call(&client, &read, json!({})).await.unwrap();
    assert_ne!(r["isError"], json!(true), "{r}");

    // Removed by SIGHUP while a call runs on it: the call ends normally.
    let long = named(&with_memory, "long-running").to_string();
    let in_flight = {
        let peer = client.peer().clone();
        let long = long.clone();
        tokio::spawn(async move {
            let args = json!({"duration": 8, "steps": 8});
            let Value::Object(args) = args else {
                unreachable!()
            };
            peer.call_tool(CallToolRequestParams::new(long).with_arguments(args))
                .await
                .map(|r| serde_json::to_value(r).unwrap())
                .map_err(|e| e.to_string())
        })
    };
    tokio::time::sleep(Duration::from_millis(700)).await;
    let told = client.service().seen.lock().unwrap().list_changed;
    save(
        &path,
        &format!("{head}{}{}", server("time"), server("memory")),
    );
    sighup(gw.child.id());
    // The watcher may see the save first; either applies it once.
    let line = gw.reload_line().await;
    assert!(line.contains("\"removed\":[\"everything\"]"), "{line}");
    // The reload came while the call ran: the drain is what it proves.
    assert!(!in_flight.is_finished(), "the call ended before the reload");
    let done = in_flight
        .await
        .unwrap()
        .expect("the call in flight was answered");
    assert_ne!(done["isError"], json!(true), "{done}");
    assert!(
        crate::harness::until(|| client.service().seen.lock().unwrap().list_changed > told).await,
        "no list_changed after a server was removed"
    );
    let after = names(&client).await;
    assert!(
        !after.iter().any(|n| n.contains("long-running")),
        "{after:?}"
    );
    assert!(
        after.iter().any(|n| n.contains("get_current_time")),
        "{after:?}"
    );
    // Its tools answer as gone; the others still answer.
    let gone = call(&client, &long, json!({"duration": 1, "steps": 1})).await;
    assert!(
        gone.as_ref().is_err() || gone.as_ref().unwrap()["isError"] == json!(true),
        "{gone:?}"
    );
    let time = named(&after, "get_current_time").to_string();
    let r = call(&client, &time, json!({"timezone": "UTC"}))
        .await
        .unwrap();
    assert_ne!(r["isError"], json!(true), "{r}");
    let _ = client.cancel().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn a_new_policy_meets_the_next_call_of_a_snippet_already_running() {
    let path = temp_path("reload.toml");
    let head = "semantic = false\nactivation = \"always\"\n[limits]\ntimeout_ms = 30000\n";
    let servers = format!("{}{}", server("time"), server("everything"));
    save(&path, &format!("{head}{servers}"));
    let gw = Running::start(&path, &[]);
    let client = http_client(&gw.url(), "policy".into()).await;
    // It calls the tool once a second until a call is refused (however long
    // the reload takes on a loaded machine, within the snippet's 30 s).
    let snippet = "
        const first = await openclaw.tools.call('mcp:time:get_current_time', {timezone: 'UTC'});
        for (let i = 0; i < 25; i++) {
          await openclaw.tools.call('mcp:everything:trigger-long-running-operation', {duration: 1, steps: 1});
          try { await openclaw.tools.call('mcp:time:get_current_time', {timezone: 'UTC'}); }
          catch (e) { return {first: typeof first, second: `${e.code}: ${e.message}`}; }
        }
        return {first: typeof first, second: 'answered every time'};";
    let running = {
        let peer = client.peer().clone();
        tokio::spawn(async move {
            let Value::Object(args) = json!({"code": snippet}) else {
                unreachable!()
            };
            peer.call_tool(CallToolRequestParams::new("tool_search_code").with_arguments(args))
                .await
                .unwrap()
        })
    };
    tokio::time::sleep(Duration::from_millis(1000)).await;
    save(
        &path,
        &format!("semantic = false\nactivation = \"always\"\n[limits]\ntimeout_ms = 30000\n[policy]\ndeny = [\"*get_current_time*\"]\n{servers}"),
    );
    sighup(gw.child.id());
    let line = gw.reload_line().await;
    assert!(line.contains("configuration reloaded"), "{line}");
    let out = code_view(&running.await.unwrap());
    assert_eq!(out["value"]["first"], json!("object"), "{out}");
    let second = out["value"]["second"]
        .as_str()
        .unwrap_or_else(|| panic!("{out}"));
    assert!(second.contains("no longer allows"), "{out}");
    // A snippet started now does not see the tool at all.
    let r = call(
        &client,
        "tool_search_code",
        json!({"code": "try { await openclaw.tools.call('mcp:time:get_current_time', {timezone: 'UTC'}); return 'answered'; } catch (e) { return e.code; }"}),
    )
    .await
    .unwrap();
    let text = r.to_string();
    assert!(!text.contains("answered"), "{text}");
    let _ = client.cancel().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn a_removed_profile_loses_its_sessions_and_its_token_while_another_keeps_calling() {
    let path = temp_path("reload.toml");
    let (va, vb) = (
        format!("TS_RELOAD_A_{}", std::process::id()),
        format!("TS_RELOAD_B_{}", std::process::id()),
    );
    let profiles = |both: bool| {
        let mut p = format!("[[profiles]]\nname = \"a\"\ntoken_env = [\"{va}\"]\n");
        if both {
            p.push_str(&format!(
                "[[profiles]]\nname = \"b\"\ntoken_env = [\"{vb}\"]\n"
            ));
        }
        p
    };
    let head = "semantic = false\nmode = \"tools\"\nactivation = \"always\"\n";
    save(
        &path,
        &format!("{head}{}{}", profiles(true), server("time")),
    );
    let gw = Running::start(&path, &[(&va, "token-a"), (&vb, "token-b")]);
    let a = http_client_with(&gw.url(), "a".into(), Some("token-a")).await;
    let b = http_client_with(&gw.url(), "b".into(), Some("token-b")).await;
    assert!(!names(&b).await.is_empty());
    save(
        &path,
        &format!("{head}{}{}", profiles(false), server("time")),
    );
    let line = gw.reload_line().await;
    assert!(line.contains("\"profiles_removed\":[\"b\"]"), "{line}");
    // The session of `b` is refused: its token opens nothing any more.
    let refused = b.peer().list_all_tools().await.unwrap_err().to_string();
    assert!(refused.contains("Auth required"), "{refused}");
    // Its token opens nothing any more; `a` goes on.
    let port = gw.port;
    let (status, _, _) = tokio::task::spawn_blocking(move || {
        raw(
            port,
            "POST",
            "/mcp",
            &[
                // (`raw` sends Content-Type and Accept itself: a field sent
                // twice is refused with 400.)
                ("Authorization", "Bearer token-b"),
            ],
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}"#,
        )
    })
    .await
    .unwrap();
    assert_eq!(status, 401);
    let r = call(&a, "tool_search", json!({"query": "current time"}))
        .await
        .unwrap();
    assert!(r.to_string().contains("get_current_time"), "{r}");
    let _ = a.cancel().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn a_changed_address_and_a_bad_file_are_refused_and_the_configuration_in_force_stays() {
    let path = temp_path("reload.toml");
    let head = "semantic = false\nmode = \"tools\"\nactivation = \"always\"\n";
    let good = format!(
        "{head}[http]\nrate_limit_per_minute = 600\n{}",
        server("time")
    );
    save(&path, &good);
    let gw = Running::start(&path, &[]);
    let client = http_client(&gw.url(), "stays".into()).await;
    let search = || call(&client, "tool_search", json!({"query": "current time"}));
    // A new listening address needs a restart: refused, naming the key.
    let other = free_port();
    save(
        &path,
        &format!(
            "{head}[http]\nlisten = \"127.0.0.1:{other}\"\n{}",
            server("time")
        ),
    );
    let line = gw.reload_line().await;
    assert!(
        line.contains("refused") && line.contains("http.listen"),
        "{line}"
    );
    assert!(search()
        .await
        .unwrap()
        .to_string()
        .contains("get_current_time"));
    // A file that does not parse: refused with the line; still serving.
    save(
        &path,
        &format!("{head}[[servers]]\nname = \"broken\"\ncommand = \n"),
    );
    let line = gw.reload_line().await;
    assert!(line.contains("refused") && line.contains("line"), "{line}");
    // One that parses but does not validate: refused too.
    save(
        &path,
        &format!(
            "{head}[http]\nrate_limit_per_minute = 0\n{}",
            server("time")
        ),
    );
    let line = gw.reload_line().await;
    assert!(
        line.contains("refused") && line.contains("rate_limit_per_minute"),
        "{line}"
    );
    assert!(search()
        .await
        .unwrap()
        .to_string()
        .contains("get_current_time"));
    // And a good one after them is applied.
    save(
        &path,
        &format!("{head}[policy]\ndeny = [\"*current*\"]\n{}", server("time")),
    );
    let line = gw.reload_line().await;
    assert!(line.contains("configuration reloaded"), "{line}");
    let after = search().await.unwrap().to_string();
    assert!(!after.contains("get_current_time"), "{after}");
    let _ = client.cancel().await;
}

/// The status of a GET over HTTPS trusting only `ca`, or why it failed.
async fn https_status(port: u16, ca: &str) -> Result<u16, String> {
    toolsearch_mcp::http_client::install_tls_provider();
    let client = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(ca.as_bytes()).unwrap())
        .build()
        .unwrap();
    client
        .get(format!("https://localhost:{port}/mcp"))
        .send()
        .await
        .map(|r| r.status().as_u16())
        .map_err(|e| format!("{e:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn a_renewed_certificate_is_served_without_a_restart() {
    let path = temp_path("reload.toml");
    let (cert, key) = (
        path.with_file_name("cert.pem"),
        path.with_file_name("key.pem"),
    );
    let (ca1, cert1, key1) = crate::tls::private_ca();
    std::fs::write(&cert, cert1).unwrap();
    std::fs::write(&key, key1).unwrap();
    save(
        &path,
        &format!(
            "semantic = false\nmode = \"tools\"\n[http]\ntls_cert = \"cert.pem\"\ntls_key = \"key.pem\"\n{}",
            server("time")
        ),
    );
    let gw = Running::start(&path, &[]);
    let first = https_status(gw.port, &ca1).await;
    assert!(first.is_ok(), "{first:?}");
    // Renewed in place (a certificate of a new CA, so the change shows):
    // the watched files changed; no signal, no change of the config file.
    let (ca2, cert2, key2) = crate::tls::private_ca();
    let tmp = path.with_file_name("new.pem");
    std::fs::write(&tmp, key2).unwrap();
    std::fs::rename(&tmp, &key).unwrap();
    std::fs::write(&tmp, cert2).unwrap();
    std::fs::rename(&tmp, &cert).unwrap();
    // The two renames may be seen apart: a key without its certificate is
    // refused (the one in force stays), then the pair is applied.
    let mut line = gw.reload_line().await;
    for _ in 0..2 {
        if line.contains("configuration reloaded") {
            break;
        }
        line = gw.reload_line().await;
    }
    assert!(line.contains("configuration reloaded"), "{line}");
    let renewed = https_status(gw.port, &ca2).await;
    assert!(renewed.is_ok(), "{renewed:?}");
    let old = https_status(gw.port, &ca1).await;
    assert!(old.is_err(), "the old certificate is still served: {old:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_moves_to_its_rebuilt_profile_and_a_removed_profiles_session_is_refused() {
    use crate::harness::{Client, Reach, Script};
    let head = |profiles: &str| {
        format!("mode = \"tools\"\nactivation = \"always\"\nsemantic = false\n{profiles}")
    };
    let both = "[[profiles]]\nname = \"a\"\n[[profiles]]\nname = \"b\"\n";
    let gw =
        crate::harness::gateway_with(&head(both), vec![("s", Reach::Stream(Script::new(0)))]).await;
    let cfg = |profiles: &str| {
        toolsearch_mcp::Config::parse(&format!(
            "{}\n[[servers]]\nname = \"s\"\ncommand = \"in-process\"\n",
            head(profiles)
        ))
        .unwrap()
    };
    let a = Client::connect_as(&gw, "a", "a").await;
    let b = Client::connect_as(&gw, "b", "b").await;
    let found = |c: &Client| {
        let peer = c.service.peer().clone();
        async move {
            let Value::Object(args) = json!({"query": "tool"}) else {
                unreachable!()
            };
            peer.call_tool(CallToolRequestParams::new("tool_search").with_arguments(args))
                .await
                .map(|r| serde_json::to_value(r).unwrap().to_string())
                .map_err(|e| e.to_string())
        }
    };
    assert!(found(&a).await.unwrap().contains("mcp:s:"));
    // `a` narrowed to nothing of `s`, `b` removed: one apply.
    let applied = gw
        .apply(&cfg("[[profiles]]\nname = \"a\"\ndeny = [\"mcp:s:*\"]\n"))
        .await
        .unwrap();
    assert_eq!(applied.profiles_rebuilt, ["a"]);
    assert_eq!(applied.profiles_removed, ["b"]);
    assert!(applied.servers.is_empty(), "{applied:?}");
    // Its open session still counts against it before it moves over.
    assert_eq!(gw.open_sessions_of("a"), 1);
    // The session of `a` meets its new view with its next request, and is
    // told its list changed.
    let now = found(&a).await.unwrap();
    assert!(!now.contains("mcp:s:"), "{now}");
    assert_eq!(gw.open_sessions_of("a"), 1);
    assert!(
        crate::harness::until(|| a.seen().list_changed >= 1).await,
        "no list_changed for the rebuilt profile"
    );
    // The session of `b` is refused, naming why.
    let refused = found(&b).await.unwrap_err();
    assert!(refused.contains("profile `b` was removed"), "{refused}");
    assert!(gw.session_as("b").is_none());
}
