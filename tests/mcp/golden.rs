//! What a client's model sees through the gateway (issue 33): `tools/list` in every
//! mode at 10, 400 and 3,598 real MCP tools (`../shared/data/scale/
//! catalog_mcp_real.jsonl`, subsets drawn as `prompt-size --break-even` draws them),
//! frozen in `tests/mcp/golden/` (`UPDATE_GOLDEN=1` rewrites; a changed byte fails);
//! and reveal mode's session through the gateway: the names of hidden tools in
//! `tool_search`'s description, a list that only grows, `list_changed` only then.

use rmcp::model::CallToolRequestParams;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use toolsearch::{Provider, Session, Shape};

use crate::harness::{gateway_with, Client, Reach, Script};

const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/data/scale/catalog_mcp_real.jsonl"
);
const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/mcp/golden");
/// Lists up to this size are kept whole; larger ones as names, bridge tools and a digest.
const WHOLE: usize = 64 * 1024;

/// The catalog's tools (MCP `Tool` objects) by server, `n` of them drawn with seed 7
/// (the shuffle of `toolsearch prompt-size --break-even`). A name a server lists
/// twice (19 in the file) is kept once: a server cannot serve both.
fn servers(n: usize) -> Vec<(String, Vec<Value>)> {
    let text = std::fs::read_to_string(DATA).unwrap_or_else(|e| panic!("{DATA}: {e}"));
    let mut rows: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut state = 7u64
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    for i in (1..rows.len()).rev() {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let j = (state >> 33) as usize % (i + 1);
        rows.swap(i, j);
    }
    rows.truncate(n);
    let mut by: std::collections::BTreeMap<&str, Vec<Value>> = Default::default();
    for r in &rows {
        let tools = by.entry(r["server"].as_str().unwrap()).or_default();
        let name = r["tool_name"].as_str().or(r["name"].as_str()).unwrap();
        if tools.iter().all(|t| t["name"] != name) {
            tools.push(json!({
                "name": name,
                "description": r["description"],
                "inputSchema": r["input_schema"],
            }));
        }
    }
    // Server names as the gateway's file takes them (id-like, at most 48, unique
    // whatever the case).
    let mut taken = std::collections::HashSet::new();
    by.into_iter()
        .map(|(server, tools)| {
            let mut name: String = server
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .take(40)
                .collect();
            while !taken.insert(name.to_ascii_lowercase()) {
                name.push('_');
            }
            (name, tools)
        })
        .collect()
}

/// A gateway whose file starts with `head`, over one in-process server per entry
/// of `catalog`.
async fn start(
    catalog: &[(String, Vec<Value>)],
    head: &str,
) -> std::sync::Arc<toolsearch_mcp::Gateway> {
    let reach: Vec<(&str, Reach)> = catalog
        .iter()
        .map(|(name, tools)| {
            (
                name.as_str(),
                Reach::Stream(Script::with_tools(tools.clone())),
            )
        })
        .collect();
    gateway_with(head, reach).await
}

/// The file head of each mode measured.
const MODES: [(&str, &str); 5] = [
    ("direct", "mode = \"code\"\nactivation = \"never\""),
    ("code", "mode = \"code\"\nactivation = \"always\""),
    ("tools", "mode = \"tools\"\nactivation = \"always\""),
    ("reveal", "mode = \"reveal\"\nactivation = \"always\""),
    // The defaults: the thresholds decide (direct at 10 tools).
    ("auto", "mode = \"auto\""),
];

/// A list as the golden file keeps it: whole when small, else its size, digest,
/// names and the bridge tools in full (their descriptions carry the listings).
fn frozen(tools: &[Value]) -> Value {
    let text = serde_json::to_string(tools).unwrap();
    if text.len() <= WHOLE {
        return json!({"count": tools.len(), "tools": tools});
    }
    let digest: String = Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let bridge: Vec<&Value> = tools
        .iter()
        .filter(|t| toolsearch::BridgeTool::from_name(t["name"].as_str().unwrap_or("")).is_some())
        .collect();
    json!({
        "count": tools.len(),
        "bytes": text.len(),
        "sha256": digest,
        "bridge_tools": bridge,
        "names": tools.iter().map(|t| &t["name"]).collect::<Vec<_>>(),
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the shared data (../shared/data) and the sandbox worker; `cargo xtask test` runs it"]
async fn tools_list_in_every_mode_at_three_catalog_sizes_matches_the_golden_files() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    std::fs::create_dir_all(DIR).unwrap();
    let mut changed = Vec::new();
    for size in [10, 400, 3598] {
        let catalog = servers(size);
        for (mode, head) in MODES {
            let gw = start(&catalog, &format!("{head}\nsemantic = false")).await;
            let given: usize = catalog.iter().map(|(_, t)| t.len()).sum();
            let served = gw.toolsearch().host().catalog().len();
            assert_eq!(
                served, given,
                "{mode}/{size}: every tool reached the catalog"
            );
            let client = Client::connect(&gw, "golden").await;
            let listed = client.service.peer().list_all_tools().await.unwrap();
            let tools: Vec<Value> = listed
                .iter()
                .map(|t| serde_json::to_value(t).unwrap())
                .collect();
            let defs = gw
                .toolsearch()
                .definitions(&Session::new("golden"), Provider::Mcp);
            // Nothing the facade built was dropped on the way to the client.
            assert_eq!(tools.len(), defs.tools.len(), "{mode}/{size}");
            let expect = match (mode, size) {
                ("direct", _) | ("auto", 10) => Shape::Direct,
                ("tools", _) => Shape::Tools,
                ("reveal", _) => Shape::Reveal,
                _ => Shape::Code,
            };
            assert_eq!(
                defs.decision.shape, expect,
                "{mode}/{size}: {:?} (code mode needs the sandbox worker: `cargo build --workspace`)",
                defs.notes
            );
            if mode == "reveal" && size > 10 {
                // Hidden form: every server named in `tool_search`'s description.
                let search = tools.iter().find(|t| t["name"] == "tool_search").unwrap();
                let text = search["description"].as_str().unwrap();
                for (server, list) in &catalog {
                    assert!(
                        text.contains(&format!("{server}({})", list.len())),
                        "{mode}/{size}: {server} not named"
                    );
                }
            }
            let doc =
                json!({"shape": defs.decision.shape, "notes": defs.notes, "list": frozen(&tools)});
            let text = serde_json::to_string_pretty(&doc).unwrap() + "\n";
            let path = format!("{DIR}/gateway-{mode}-{size}.json");
            if update {
                std::fs::write(&path, &text).unwrap();
            } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                changed.push(path);
            }
            drop(client);
            gw.shutdown().await;
        }
    }
    assert!(
        changed.is_empty(),
        "changed: {changed:?}; review the diff of a run with UPDATE_GOLDEN=1"
    );
}

/// `n` tools with long names on `servers` servers (over the 32 KiB of stubs).
fn synthetic(servers: usize, per: usize) -> Vec<(String, Vec<Value>)> {
    (0..servers)
        .map(|s| {
            let tools = (0..per)
                .map(|j| {
                    json!({"name": format!("operation_number_{j}_of_{s}"),
                           "description": format!("Does operation {j} of service {s}. More words."),
                           "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}})
                })
                .collect();
            (format!("svc{s}"), tools)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reveal_through_the_gateway_names_hidden_tools_and_only_appends() {
    let catalog = synthetic(14, 29);
    let gw = start(
        &catalog,
        "mode = \"reveal\"\nactivation = \"always\"\nsemantic = false",
    )
    .await;
    let client = Client::connect(&gw, "reveal").await;
    let peer = client.service.peer().clone();
    let names = |tools: &[rmcp::model::Tool]| -> Vec<String> {
        tools.iter().map(|t| t.name.to_string()).collect()
    };
    let t1 = peer.list_all_tools().await.unwrap();
    assert_eq!(
        names(&t1),
        ["tool_search"],
        "hidden form: nothing but the search"
    );
    let description = t1[0].description.as_deref().unwrap_or("");
    for s in 0..14 {
        assert!(
            description.contains(&format!("svc{s}(29)")),
            "{description}"
        );
    }
    assert!(
        description.contains("operation_number_0_of_0"),
        "{description}"
    );
    let search = |query: &str| {
        let args = json!({"query": query}).as_object().unwrap().clone();
        let peer = peer.clone();
        async move {
            peer.call_tool(CallToolRequestParams::new("tool_search").with_arguments(args))
                .await
                .unwrap()
        }
    };
    // Five turns: an exact name, a task, a call by name, nothing, a repeat.
    let found = crate::harness::text(&search("operation_number_7_of_3").await);
    assert_eq!(found["hits"].as_array().map(Vec::len), Some(1), "{found}");
    let t2 = peer.list_all_tools().await.unwrap();
    let _ = search("operation number 9 of service 5").await;
    let t3 = peer.list_all_tools().await.unwrap();
    let args = json!({"x": "1"}).as_object().unwrap().clone();
    let called = peer
        .call_tool(CallToolRequestParams::new("operation_number_7_of_3").with_arguments(args))
        .await
        .unwrap();
    assert_ne!(called.is_error, Some(true), "{called:?}");
    let t4 = peer.list_all_tools().await.unwrap();
    let t5 = peer.list_all_tools().await.unwrap();
    let turns = [&t1, &t2, &t3, &t4, &t5];
    for pair in turns.windows(2) {
        let (a, b) = (
            serde_json::to_value(pair[0]).unwrap(),
            serde_json::to_value(pair[1]).unwrap(),
        );
        let (a, b) = (a.as_array().unwrap(), b.as_array().unwrap());
        assert!(
            b.len() >= a.len() && b[..a.len()] == a[..],
            "a turn's list moved"
        );
    }
    assert_eq!(names(&t2)[1..], ["operation_number_7_of_3"]);
    assert!(t3.len() > t2.len(), "the task search revealed more");
    assert_eq!(t4.len(), t3.len());
    // The list changed twice (two searches revealed tools); the client heard it.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert!(client.seen().list_changed >= 1, "list_changed not sent");
    drop(client);
    gw.shutdown().await;
}

/// The reveal session of a small catalog (stubs) through the gateway: a reveal
/// changes nothing in the list, so no `list_changed` is sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stubs_through_the_gateway_do_not_change_on_a_reveal() {
    let catalog = synthetic(2, 10);
    let gw = start(
        &catalog,
        "mode = \"reveal\"\nactivation = \"always\"\nsemantic = false",
    )
    .await;
    let client = Client::connect(&gw, "stubs").await;
    let peer = client.service.peer().clone();
    let before = peer.list_all_tools().await.unwrap();
    assert_eq!(before.len(), 21, "tool_search and 20 stubs");
    let args = json!({"query": "operation_number_3_of_1"})
        .as_object()
        .unwrap()
        .clone();
    peer.call_tool(CallToolRequestParams::new("tool_search").with_arguments(args))
        .await
        .unwrap();
    let after = peer.list_all_tools().await.unwrap();
    assert_eq!(
        serde_json::to_value(&before).unwrap(),
        serde_json::to_value(&after).unwrap()
    );
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(
        client.seen().list_changed,
        0,
        "nothing changed, nothing said"
    );
    drop(client);
    gw.shutdown().await;
}
