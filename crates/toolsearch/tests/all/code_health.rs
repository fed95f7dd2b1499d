//! Code mode's availability: one snippet's failure stays that snippet's (its
//! process killed under it: the next snippet of another session runs, the
//! definitions do not change, nothing is announced), and a pool that cannot
//! run anything turns code mode off until a re-probe finds it working again,
//! announced once each way.

use std::time::{Duration, Instant};

use serde_json::json;
use toolsearch::{Mode, Provider, Session, ToolSearch};
use toolsearch_catalog::{Catalog, Source, Tool};
use toolsearch_sandbox::{Isolation, Limits, Pool, PoolConfig, WorkerCommand};

/// A hang guard for a loaded machine; passing waits end at once.
const HANG_GUARD: Duration = Duration::from_secs(30);

fn catalog() -> Catalog {
    Catalog::new(
        (0..30)
            .map(|i| {
                Tool::new(
                    Source::Mcp,
                    Some("srv"),
                    &format!("tool_{i}"),
                    &format!("Does thing number {i}"),
                    json!({"type": "object"}),
                )
            })
            .collect(),
    )
    .unwrap()
}

fn worker() -> WorkerCommand {
    WorkerCommand::locate().expect(
        "toolsearch-sandbox-worker is built next to the test binaries (`cargo build --workspace --all-targets`)",
    )
}

fn code_mode(command: WorkerCommand) -> ToolSearch {
    let pool = Pool::new(PoolConfig {
        workers: 1,
        isolation: Isolation::Process(command),
        // Runaway snippets end soon, and the killer finds one well within it
        // on a loaded machine.
        limits: Limits {
            deadline: Duration::from_secs(5),
            ..Limits::default()
        },
        ..PoolConfig::default()
    })
    .unwrap();
    ToolSearch::builder()
        .catalog(catalog())
        .mode(Mode::Code)
        .sandbox(pool)
        .build()
        .unwrap()
}

fn served(ts: &ToolSearch, s: &Session) -> Vec<String> {
    ts.definitions(s, Provider::Mcp)
        .tools
        .iter()
        .map(|d| d["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Fields 14 and 15 of /proc/PID/stat (user and system CPU ticks).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let Some((_, after)) = stat.rsplit_once(')') else {
        return 0;
    };
    let f: Vec<&str> = after.split_whitespace().collect();
    let field = |n: usize| {
        f.get(n - 3)
            .and_then(|x| x.parse::<u64>().ok())
            .unwrap_or(0)
    };
    field(14) + field(15)
}

/// Pids whose parent is `parent`, with their command lines.
fn children_of(parent: u32) -> Vec<(u32, String)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| {
        let pid: u32 = e.ok()?.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let ppid: u32 = stat
            .rsplit_once(')')?
            .1
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()?;
        let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        (ppid == parent).then(|| (pid, String::from_utf8_lossy(&cmd).into_owned()))
    })
    .collect()
}

/// Kills (SIGKILL) the snippet process burning CPU under one of this test
/// process's sandbox workers; false when none showed up in time.
pub fn kill_the_running_snippet() -> bool {
    let t0 = Instant::now();
    while t0.elapsed() < HANG_GUARD {
        for (worker, cmd) in children_of(std::process::id()) {
            if !cmd.contains("sandbox-worker") {
                continue;
            }
            let running = children_of(worker)
                .into_iter()
                .find(|(p, _)| cpu_ticks(*p) >= 10);
            if let Some((snippet, _)) = running {
                return std::process::Command::new("kill")
                    .args(["-9", &snippet.to_string()])
                    .status()
                    .is_ok_and(|s| s.success());
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snippet_whose_process_dies_fails_alone_and_code_mode_stays() {
    let ts = code_mode(worker());
    let (a, b) = (Session::new("a"), Session::new("b"));
    let before = served(&ts, &a);
    assert!(
        before.contains(&"tool_search_code".to_owned()),
        "{before:?}"
    );
    let mut changes = ts.code_mode_changes();
    changes.borrow_and_update();
    // Members of the class "one job's own failure": its process killed under
    // it, its deadline, its heap, a return value too deep for the pipe.
    let killer = std::thread::spawn(kill_the_running_snippet);
    let out = ts
        .handle_call(&a, "tool_search_code", json!({"code": "for (;;) {}"}))
        .await;
    assert!(
        killer.join().unwrap(),
        "no snippet process was found to kill"
    );
    assert!(out.is_error, "{}", out.content);
    assert_eq!(
        out.content["error"]["kind"],
        json!("crashed"),
        "{}",
        out.content
    );
    // (A loaded machine may reach the deadline before the heap limit.)
    for (code, kinds) in [
        ("for (;;) {}", &["timeout"][..]),
        (
            "const a = []; for (;;) a.push({x: 1})",
            &["memory", "timeout"],
        ),
        (
            "let v = 1; for (let i = 0; i < 150; i++) v = [v]; return v",
            &["result"],
        ),
    ] {
        let out = ts
            .handle_call(&a, "tool_search_code", json!({"code": code}))
            .await;
        assert!(out.is_error, "{code}: {}", out.content);
        let kind = out.content["error"]["kind"].as_str().unwrap_or_default();
        assert!(kinds.contains(&kind), "{code}: {}", out.content);
    }
    // Another session's snippet runs on the same pool.
    let out = ts
        .handle_call(&b, "tool_search_code", json!({"code": "return 6 * 7"}))
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(out.content["value"], json!(42));
    // Definitions unchanged for both, and nothing announced (given the time
    // a background probe would take to say otherwise).
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(served(&ts, &a), before);
    assert_eq!(served(&ts, &b), before);
    assert!(!changes.has_changed().unwrap(), "a change was announced");
    assert!(*changes.borrow());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pool_that_cannot_run_is_reprobed_and_code_mode_comes_back() {
    // A worker that starts only once a flag file exists.
    let flag = std::env::temp_dir().join(format!("toolsearch-reprobe-{}", std::process::id()));
    let _ = std::fs::remove_file(&flag);
    let real = worker();
    let script = format!(
        "[ -f '{}' ] && exec '{}'; exit 1",
        flag.display(),
        real.program.display()
    );
    let ts = code_mode(WorkerCommand {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), script],
    });
    let s = Session::new("s");
    let mut changes = ts.code_mode_changes();
    // Down: the structured tools are served, the change is published.
    let names = tokio::task::block_in_place(|| served(&ts, &s));
    assert!(names.contains(&"tool_search".to_owned()), "{names:?}");
    assert!(!*changes.borrow_and_update());
    // The worker can start now: the re-probe (5 s after going down) brings
    // code mode back and publishes it once.
    std::fs::write(&flag, "").unwrap();
    let back = tokio::time::timeout(
        toolsearch::REPROBE_FIRST + HANG_GUARD,
        changes.wait_for(|up| *up),
    )
    .await;
    let _ = std::fs::remove_file(&flag);
    assert!(matches!(back, Ok(Ok(_))), "code mode did not come back");
    let names = served(&ts, &s);
    assert!(names.contains(&"tool_search_code".to_owned()), "{names:?}");
    let out = ts
        .handle_call(&s, "tool_search_code", json!({"code": "return 1"}))
        .await;
    assert!(!out.is_error, "{}", out.content);
}
