//! One bad server or tool stays its own problem, on the in-process harness,
//! over a byte stream (stdio's framing) and over streamable HTTP: a schema
//! nested past the parser's limit costs only its tool (named in the status and
//! the log), and a result over 16 MiB answers its call at once with a size
//! error (the call cancelled on the server) instead of waiting for the timeout.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use serde_json::json;
use toolsearch_mcp::Gateway;

use crate::harness::{gateway, text, until, Client, Reach, Script};

fn reach(how: &str, script: &Arc<Script>) -> Reach {
    match how {
        "stream" => Reach::Stream(script.clone()),
        _ => Reach::Http(script.clone()),
    }
}

fn problems(gw: &Arc<Gateway>, server: &str) -> Vec<String> {
    gw.fleet()
        .status()
        .into_iter()
        .find(|s| s.name == server)
        .map(|s| s.problems)
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schema_nested_62_deep_costs_only_its_tool_and_is_named() {
    for how in ["stream", "http"] {
        // 62 and 120 objects deep: 129 and 245 levels of JSON with the envelope,
        // past serde_json's 128 (deeper still is the frame tests' business).
        for depth in [62, 120] {
            let script = Script::new(2);
            script.deep.store(depth, Ordering::SeqCst);
            let gw = gateway(vec![("s", reach(how, &script))], "").await;
            let status = gw.fleet().status();
            assert!(status[0].up, "{how} {depth}: {status:?}");
            let ids: Vec<String> = gw
                .toolsearch()
                .host()
                .catalog()
                .tools()
                .iter()
                .map(|t| t.id.to_string())
                .collect();
            for t in ["work", "big", "pad_0_1"] {
                assert!(
                    ids.contains(&format!("mcp:s:{t}")),
                    "{how} {depth}: {ids:?}"
                );
            }
            let named = problems(&gw, "s");
            assert!(
                named
                    .iter()
                    .any(|p| p.contains("`deep`") && p.contains("nested deeper")),
                "{how} {depth}: {named:?}"
            );
            // Its other tools run.
            let client = Client::connect(&gw, "ann").await;
            let r = client.call("s", "work", json!({"tag": "ann"})).await;
            assert_eq!(text(&r)["tag"], "ann", "{how} {depth}");
            gw.shutdown().await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_over_16_mib_answers_at_once_with_a_size_error() {
    for how in ["stream", "http"] {
        let script = Script::new(0);
        // A call timeout far longer than the test may take: an answer proves no wait.
        let gw = gateway(
            vec![("s", reach(how, &script))],
            "[limits]\ncall_timeout_ms = 600000\ntimeout_ms = 600000",
        )
        .await;
        let client = Client::connect(&gw, "ann").await;
        let r = client.call("s", "big", json!({"bytes": 17 << 20})).await;
        let out = text(&r);
        assert_eq!(r.is_error, Some(true), "{how}: {out}");
        let message = out.to_string();
        assert!(message.contains("16777216-byte limit"), "{how}: {message}");
        assert!(message.contains("server `s`"), "{how}: {message}");
        assert!(
            until(|| !script.cancelled.lock().unwrap().is_empty()).await,
            "{how}: the call was not cancelled on the server"
        );
        // The server still serves.
        let r = client.call("s", "big", json!({"bytes": 1000})).await;
        assert_ne!(r.is_error, Some(true), "{how}: {}", text(&r));
        assert_eq!(text(&r).as_str().map(str::len), Some(1000), "{how}");
        gw.shutdown().await;
    }
}

/// A loopback HTTP server that answers every request with `answer` and records
/// the headers of each; its URL.
async fn recording(
    answer: impl Fn() -> http::Response<String> + Send + Sync + 'static,
) -> (String, Arc<std::sync::Mutex<Vec<http::HeaderMap>>>) {
    let seen: Arc<std::sync::Mutex<Vec<http::HeaderMap>>> = Arc::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (answer, log) = (Arc::new(answer), seen.clone());
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (answer, log) = (answer.clone(), log.clone());
            tokio::spawn(async move {
                let svc =
                    hyper::service::service_fn(move |req: http::Request<hyper::body::Incoming>| {
                        log.lock().unwrap().push(req.headers().clone());
                        let r = answer();
                        async move { Ok::<_, std::convert::Infallible>(r) }
                    });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    (format!("http://{addr}/mcp"), seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_another_origin_gets_none_of_the_configured_headers() {
    // The variable's name is this test's own.
    std::env::set_var("TOOLSEARCH_TEST_REDIRECT_TOKEN", "secret-token");
    for status in [301u16, 302, 303, 307, 308] {
        let (elsewhere, seen) = recording(|| {
            http::Response::builder()
                .status(404)
                .body(String::new())
                .unwrap()
        })
        .await;
        let target = elsewhere.clone();
        let (origin, asked) = recording(move || {
            http::Response::builder()
                .status(status)
                .header("location", target.as_str())
                .body(String::new())
                .unwrap()
        })
        .await;
        let toml = format!(
            "mode = \"tools\"\nactivation = \"always\"\nsemantic = false\n[limits]\nstartup_timeout_ms = 5000\n\
             [[servers]]\nname = \"r\"\nurl = \"{origin}\"\nbearer_token_env = \"TOOLSEARCH_TEST_REDIRECT_TOKEN\"\n\
             headers = {{ X-Api-Key = \"secret-key\", X-Other = \"secret-other\" }}\n"
        );
        let cfg = toolsearch_mcp::Config::parse(&toml).unwrap();
        toolsearch_tests::isolate_state();
        let gw = Gateway::start(&cfg, None).await.unwrap();
        gw.settle(cfg.startup_timeout() + std::time::Duration::from_secs(1))
            .await;
        let status_now = gw.fleet().status();
        let asked_with_key = asked
            .lock()
            .unwrap()
            .iter()
            .any(|h| h.get("x-api-key").is_some());
        assert!(
            asked_with_key,
            "{status}: the configured server got its headers"
        );
        for h in seen.lock().unwrap().iter() {
            for name in ["x-api-key", "x-other", "authorization"] {
                assert!(
                    h.get(name).is_none(),
                    "{status}: {name} reached another origin: {h:?}"
                );
            }
        }
        let error = status_now[0].error.clone().unwrap_or_default();
        assert!(!status_now[0].up, "{status}");
        assert!(error.contains("redirect"), "{status}: {error}");
        gw.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_nested_past_the_limit_answers_at_once_with_an_error() {
    for how in ["stream", "http"] {
        let script = Script::new(0);
        let gw = gateway(
            vec![("s", reach(how, &script))],
            "[limits]\ncall_timeout_ms = 600000\ntimeout_ms = 600000",
        )
        .await;
        let client = Client::connect(&gw, "ann").await;
        // Past the gateway's 100 levels, and past serde_json's 128 (which rmcp
        // alone dropped without a word, leaving the call to its timeout).
        for depth in [110, 200] {
            let r = client.call("s", "nest", json!({"depth": depth})).await;
            let message = text(&r).to_string();
            assert_eq!(r.is_error, Some(true), "{how} {depth}: {message}");
            assert!(
                message.contains("nested deeper than 100 levels"),
                "{how} {depth}: {message}"
            );
        }
        // Within the bound, the result comes whole.
        let r = client.call("s", "nest", json!({"depth": 50})).await;
        assert_ne!(r.is_error, Some(true), "{how}: {}", text(&r));
        gw.shutdown().await;
    }
}
