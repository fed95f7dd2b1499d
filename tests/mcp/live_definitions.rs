//! Every decision on a call (policy, destructive gating, approval, arguments)
//! is made on the definition the server serves when the call runs, through
//! the binary (issue 59, item 1): a lazy server's manifest older than the
//! server, and a `tools/list_changed` between a snippet's describe and its
//! call, each make the call refused (`STALE`, "search again"), and nothing
//! runs on the server.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::common::*;

/// What the fixture server ran (one tool name a line).
fn ran(callfile: &Path) -> Vec<String> {
    std::fs::read_to_string(callfile)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// A config over `tests/fixtures/changing_server.py` as server `name`, with
/// `head` on top; its state and call files.
fn changing(head: &str, name: &str) -> (PathBuf, PathBuf, PathBuf) {
    let state = temp_path("state");
    std::fs::write(&state, "v1").unwrap();
    let calls = temp_path("calls");
    let script = repo().join("tests/fixtures/changing_server.py");
    let cfg = temp_path("changing.toml");
    let activation = if head.contains("activation") {
        ""
    } else {
        "activation = \"always\"\n"
    };
    std::fs::write(
        &cfg,
        format!(
            "{head}\ndestructive = \"deny\"\nsemantic = false\n{activation}\n[[servers]]\nname = \"{name}\"\ncommand = \"python3\"\nargs = [{script:?}]\nenv = {{ STATE_FILE = {state:?}, CALLFILE = {calls:?} }}\n"
        ),
    )
    .unwrap();
    (cfg, state, calls)
}

#[tokio::test]
#[ignore = "needs the toolsearch binary; `cargo xtask test` runs it"]
async fn a_lazy_servers_stale_manifest_never_decides_a_call() {
    let dir = temp_path("manifests");
    let head = format!("mode = \"tools\"\nlazy = true\nmanifest_dir = {dir:?}");
    let (cfg, state, calls) = changing(&head, "l");
    // The first run writes the manifest: `wipe` is read-only.
    let gw = Gw::start(&cfg).await;
    let written = eventually(30, || {
        std::fs::read_dir(&dir).is_ok_and(|d| {
            d.filter_map(Result::ok)
                .any(|e| e.file_name().to_string_lossy().starts_with("l."))
        })
    })
    .await;
    assert!(written, "no manifest written in {}", dir.display());
    let _ = gw.client.cancel().await;
    // The server is upgraded in place: same command line, `wipe` destructive.
    std::fs::write(&state, "v2").unwrap();
    let gw = Gw::start(&cfg).await;
    let call = || {
        gw.call(
            "tool_call",
            json!({"id": "mcp:l:wipe", "arguments": {"what": "all"}}),
        )
    };
    let first = call().await;
    let v = text_json(&first);
    assert_eq!(first.is_error, Some(true), "{v}");
    assert_eq!(v["error"]["code"], "STALE", "{v}");
    let message = v["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("search again") && message.contains("nothing ran"),
        "{v}"
    );
    // The next call is decided on what the server serves: destructive, denied.
    let second = call().await;
    assert_eq!(second.is_error, Some(true), "{}", text_json(&second));
    assert!(
        !ran(&calls).contains(&"wipe".to_string()),
        "wipe ran on the server: {:?}",
        ran(&calls)
    );
    let _ = gw.client.cancel().await;
}

#[tokio::test]
#[ignore = "needs the toolsearch binary; `cargo xtask test` runs it"]
async fn a_definition_changed_between_describe_and_call_is_decided_again() {
    let (cfg, _state, calls) = changing("mode = \"code\"", "c");
    let gw = Gw::start(&cfg).await;
    let v = gw
        .code(
            r#"
const d = await openclaw.tools.describe("mcp:c:wipe");
await openclaw.tools.call("mcp:c:flip", {});
try {
  await openclaw.tools.call("mcp:c:wipe", {what: "all"});
  return {ran: true, hints: d.annotations};
} catch (e) {
  return {code: e.code, message: e.message};
}
"#,
        )
        .await;
    assert_eq!(v["ok"], true, "{v}");
    let code = v["value"]["code"].as_str().unwrap_or_default();
    assert!(
        ["STALE", "APPROVAL_DENIED"].contains(&code),
        "the call was not refused: {v}"
    );
    assert_eq!(ran(&calls), ["flip"], "{v}");
    // From now on the gateway's own catalog has the new hints: the policy
    // refuses the call before it leaves the gateway.
    let again = gw
        .code(r#"try { await openclaw.tools.call("mcp:c:wipe", {}); return "ran"; } catch (e) { return e.code; }"#)
        .await;
    assert_eq!(again["value"], "APPROVAL_DENIED", "{again}");
    assert_eq!(ran(&calls), ["flip"]);
    let _ = gw.client.cancel().await;
}

#[tokio::test]
#[ignore = "needs the toolsearch binary; `cargo xtask test` runs it"]
async fn both_titles_are_served_as_the_server_wrote_them() {
    // Issue 59, item 8: the top-level title was served as the annotations' one.
    let (cfg, _state, _calls) = changing("activation = \"never\"", "t");
    let gw = Gw::start(&cfg).await;
    let tools = gw.client.peer().list_all_tools().await.expect("tools/list");
    let wipe = tools
        .iter()
        .map(|t| serde_json::to_value(t).unwrap())
        .find(|t| t["name"].as_str().is_some_and(|n| n.ends_with("wipe")))
        .expect("wipe is listed");
    assert_eq!(wipe["title"], "Wipe", "{wipe}");
    assert_eq!(wipe["annotations"]["title"], "Wipe records", "{wipe}");
    let _ = gw.client.cancel().await;
}
