use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use toolsearch::{
    dispatcher_fn, CallContext, CatalogBridge, DispatchError, DispatchErrorKind, EchoDispatcher,
    Policy,
};
use toolsearch_catalog::Catalog;
use toolsearch_sandbox::{ErrorKind, Limits, Pool, PoolConfig};

fn pool() -> &'static Pool {
    static POOL: std::sync::OnceLock<Pool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        // A deadline that only guards against a hang (CI's cores are busy);
        // the test that wants a timeout sets its own.
        let limits = Limits {
            deadline: Duration::from_secs(20),
            ..Limits::default()
        };
        Pool::new(PoolConfig {
            workers: 2,
            queue: 64,
            limits,
            ..PoolConfig::default()
        })
        .expect("pool")
    })
}

fn bridge(policy: Policy) -> Arc<CatalogBridge> {
    Arc::new(CatalogBridge::new(
        Catalog::demo(),
        Arc::new(policy),
        Arc::new(EchoDispatcher),
        CallContext::default(),
    ))
}

#[test]
fn search_describe_call_through_the_real_catalog() -> anyhow::Result<()> {
    let r = pool().execute_blocking(
        r##"
        const hits = await openclaw.tools.search("send a slack message", {limit: 2});
        const d = await openclaw.tools.describe(hits[0].id);
        const out = await openclaw.tools.call(d.id, {channel: "#ops", text: "hi"});
        return {first: hits[0].id, n: hits.length, ts: d.typescript.startsWith("/**"), out};
    "##,
        bridge(Policy::default()),
    );
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(r.value["first"], json!("mcp:slack:send_message"));
    assert_eq!(r.value["n"], json!(2));
    assert_eq!(r.value["ts"], json!(true));
    assert_eq!(
        r.value["out"],
        json!({"tool": "mcp:slack:send_message", "arguments": {"channel": "#ops", "text": "hi"}})
    );
    Ok(())
}

#[test]
fn unknown_and_denied_ids_are_indistinguishable_and_denied_tools_are_never_listed(
) -> anyhow::Result<()> {
    let policy = Policy::from_patterns::<&str, &str>(&[], &["mcp:stripe:*"]);
    let r = pool().execute_blocking(
        r#"
        const err = async (f) => { try { await f(); return "ok"; } catch (e) { return [e.code, e.message.replace(/`[^`]*`/, "ID")]; } };
        const hits = await openclaw.tools.search("refund a payment with stripe", {limit: 20});
        const listing = await openclaw.tools.search("server:stripe");
        return {
            // Same tool name, so the same closest names are suggested: only visible ones.
            callMissing: await err(() => openclaw.tools.call("mcp:nope:create_refund", {})),
            callDenied: await err(() => openclaw.tools.call("mcp:stripe:create_refund", {})),
            describeMissing: await err(() => openclaw.tools.describe("mcp:nope:create_refund")),
            describeDenied: await err(() => openclaw.tools.describe("mcp:stripe:create_refund")),
            listed: hits.map(h => h.id).filter(id => id.includes("stripe")),
            listing: JSON.stringify(listing.listing || {}).includes("create_refund"),
        };
    "#,
        bridge(policy),
    );
    assert!(r.ok, "{:?}", r.error);
    let v = &r.value;
    assert_eq!(v["callMissing"], v["callDenied"]);
    assert_eq!(v["describeMissing"], v["describeDenied"]);
    assert_eq!(v["callMissing"][0], json!("UNKNOWN_TOOL"));
    let message = v["callDenied"][1].as_str().unwrap();
    assert!(message.contains("closest: `mcp:"), "{message}");
    assert!(!message.contains("stripe"), "{message}");
    assert_eq!(v["listed"], json!([]));
    assert_eq!(v["listing"], json!(false));
    Ok(())
}

/// Nothing matched: what a snippet returns or logs of the result shows the hint and
/// the listing, while `length`, indexing and `map` still work on the array.
#[test]
fn an_empty_search_result_serialises_with_its_hint_and_listing() -> anyhow::Result<()> {
    let r = pool().execute_blocking(
        r#"const h = await openclaw.tools.search("");
           console.log(h);
           return {h, n: h.length, mapped: h.map(x => x.id), first: h[0] === undefined}"#,
        bridge(Policy::default()),
    );
    assert!(r.ok, "{:?}", r.error);
    let h = &r.value["h"];
    assert!(
        h["hits"].as_array().is_some_and(Vec::is_empty),
        "{}",
        r.value
    );
    assert!(
        h["listing"].is_object() || h["hint"].is_string(),
        "{}",
        r.value
    );
    assert_eq!(r.value["n"], json!(0));
    assert_eq!(r.value["mapped"], json!([]));
    assert_eq!(r.value["first"], json!(true));
    assert!(
        r.logs.iter().any(|l| l.text.contains("\"hits\":[]")),
        "{:?}",
        r.logs
    );
    Ok(())
}

#[test]
fn a_narrowed_sub_agent_cannot_find_or_call_other_servers() -> anyhow::Result<()> {
    let shared = Policy::default();
    let sub = Policy::from_patterns::<&str, &str>(&["github"], &[]);
    let narrowed = Policy {
        allow: sub.allow.clone(),
        deny: shared.deny.clone(),
    };
    let r = pool().execute_blocking(
        r#"
        const hits = await openclaw.tools.search("send a message", {limit: 20});
        let code; try { await openclaw.tools.call("mcp:slack:send_message", {}); } catch (e) { code = e.code; }
        return {servers: [...new Set(hits.map(h => h.server))], code};
    "#,
        bridge(narrowed),
    );
    assert!(r.ok, "{:?}", r.error);
    assert!(
        r.value["servers"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s == "github"),
        "{}",
        r.value
    );
    assert_eq!(r.value["code"], json!("UNKNOWN_TOOL"));
    Ok(())
}

#[test]
fn dispatcher_errors_keep_their_kind_and_timeouts_cancel() -> anyhow::Result<()> {
    // The tokens handed to the dispatcher, to check that they fire.
    let tokens = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = tokens.clone();
    let dispatcher = dispatcher_fn(move |tool, _args, cx| {
        seen.lock().unwrap().push(cx.cancel.clone());
        async move {
            match tool.name.as_str() {
                "get_forecast" => Err(DispatchError::new(
                    DispatchErrorKind::Unavailable,
                    "weather server is down",
                )),
                _ => {
                    cx.cancel.cancelled().await;
                    Err(DispatchError::new(DispatchErrorKind::Timeout, "cancelled"))
                }
            }
        }
    });
    let b = Arc::new(CatalogBridge::new(
        Catalog::demo(),
        Arc::new(Policy::default()),
        Arc::new(dispatcher),
        CallContext::default(),
    ));
    let r = pool().execute_blocking(
        r#"try { await openclaw.tools.call("mcp:weather:get_forecast", {latitude: 59.9, longitude: 10.7}); } catch (e) { return [e.code, e.message]; }"#,
        b.clone(),
    );
    assert_eq!(r.value, json!(["UNAVAILABLE", "weather server is down"]));
    let limits = Limits {
        deadline: Duration::from_millis(200),
        ..Limits::default()
    };
    let r = pool().execute_blocking_with(
        r#"await openclaw.tools.call("mcp:maps:geocode", {address: "Oslo"}); return 1"#,
        b,
        limits,
    );
    assert_eq!(r.error.map(|e| e.kind), Some(ErrorKind::Timeout));
    let tokens = tokens.lock().unwrap();
    assert_eq!(tokens.len(), 2);
    assert!(
        tokens[1].is_cancelled(),
        "the hanging call's token did not fire"
    );
    Ok(())
}
