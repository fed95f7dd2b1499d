//! Code mode's availability: one snippet's failure stays that snippet's (its
//! process killed under it: the next snippet of another session runs, the
//! definitions do not change, nothing is announced), and a pool that cannot
//! run anything turns code mode off until a re-probe finds it working again,
//! announced once each way.

use std::time::{Duration, Instant};

use serde_json::json;
use toolsearch::{Mode, Provider, Session, ToolSearch};
use toolsearch_catalog::Catalog;
use toolsearch_sandbox::{Isolation, Limits, Pool, PoolConfig, WorkerCommand};

/// A hang guard for a loaded machine; passing waits end at once.
const HANG_GUARD: Duration = Duration::from_secs(30);

fn catalog() -> Catalog {
    Catalog::new(crate::facade::tools(30)).unwrap()
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

/// Counts WARN events of code mode's health (the "code mode unavailable" line).
struct Warnings(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl tracing::Subscriber for Warnings {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, e: &tracing::Event<'_>) {
        let m = e.metadata();
        if *m.level() == tracing::Level::WARN && m.target().starts_with("toolsearch::code") {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

const FALLBACK_CASE: &str = "TOOLSEARCH_TEST_FALLBACK_CASE";

/// In a child process (the environment and the executable's place are the
/// case): a facade left to find its own sandbox refuses to build when there is
/// no worker program, and offers the structured tools when the one it found
/// cannot start; it never runs a snippet on in-process threads, and logs why
/// once.
fn no_thread_fallback_child() {
    let warnings = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    tracing::subscriber::set_global_default(Warnings(warnings.clone())).unwrap();
    let built = ToolSearch::builder()
        .catalog(catalog())
        .mode(Mode::Code)
        .build();
    let case = std::env::var(FALLBACK_CASE).unwrap();
    if case != "a worker that fails to start" {
        // No worker program at all: the builder says so.
        let err = built
            .err()
            .expect("build refuses code mode without a worker");
        eprintln!("build: {err}");
        assert_eq!(err.setting, "sandbox", "{err}");
        // A wrong path in the variable is named; with nothing named, the fix is.
        let names = if case == "a wrong worker path" {
            "/nonexistent/toolsearch-sandbox-worker"
        } else {
            "toolsearch::serve_if_worker()"
        };
        assert!(err.message.contains(names), "{err}");
        return;
    }
    // A worker program that cannot start: the structured tools, once logged.
    let ts = built.unwrap();
    let s = Session::new("s");
    for _ in 0..3 {
        let names = served(&ts, &s);
        assert!(names.contains(&"tool_search".to_owned()), "{names:?}");
        assert!(!names.contains(&"tool_search_code".to_owned()), "{names:?}");
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for _ in 0..2 {
        let out = rt.block_on(ts.handle_call(&s, "tool_search_code", json!({"code": "return 1"})));
        assert!(out.is_error, "{}", out.content);
        eprintln!("answer: {}", out.content);
    }
    assert_eq!(
        toolsearch_sandbox::live_isolates(),
        0,
        "an isolate ran in this process"
    );
    assert_eq!(
        warnings.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "the reason is logged once"
    );
}

#[test]
fn untrusted_code_never_falls_back_to_in_process_threads() {
    if std::env::var_os(FALLBACK_CASE).is_some() {
        return no_thread_fallback_child();
    }
    let exe = std::env::current_exe().unwrap();
    // A copy of this test binary where no worker sits beside it.
    let alone = std::env::temp_dir().join(format!("toolsearch-alone-{}", std::process::id()));
    std::fs::create_dir_all(alone.join("deps")).unwrap();
    let copy = alone.join("deps").join("all");
    std::fs::copy(&exe, &copy).unwrap();
    for (case, program, worker) in [
        (
            "a wrong worker path",
            &exe,
            Some("/nonexistent/toolsearch-sandbox-worker"),
        ),
        ("no worker found", &copy, None),
        ("a worker that fails to start", &exe, Some("/bin/false")),
    ] {
        let mut cmd = std::process::Command::new(program);
        cmd.args([
            "code_health::untrusted_code_never_falls_back_to_in_process_threads",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(FALLBACK_CASE, case)
        .env_remove("TOOLSEARCH_SANDBOX_WORKER");
        if let Some(w) = worker {
            cmd.env("TOOLSEARCH_SANDBOX_WORKER", w);
        }
        let out = cmd.output().unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(
            out.status.success() && stdout.contains("1 passed"),
            "{case}:\n{stdout}\n{stderr}"
        );
        if let Some(w) = worker.filter(|w| w.starts_with("/nonexistent")) {
            assert!(
                stderr.contains(w),
                "{case}: the answer names the path:\n{stderr}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&alone);
}
