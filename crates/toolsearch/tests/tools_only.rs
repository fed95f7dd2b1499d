//! The structured tools, in whatever build this is: with the default features and,
//! as CI runs it, with `--no-default-features` (no JS engine, no embedding model).
//! Also the builder's early validation.

use serde_json::json;
use toolsearch::{
    Catalog, ErrorCode, Mode, Provider, Scope, Session, Settings, ToolSearch, MAX_LISTING_BYTES,
};

fn tools_mode() -> ToolSearch {
    ToolSearch::builder()
        .catalog(Catalog::demo())
        .mode(Mode::Tools)
        .build()
        .expect("valid settings")
}

#[tokio::test]
async fn search_describe_and_call_work_through_the_structured_tools() {
    let ts = tools_mode();
    let session = Session::new("s1");
    let defs = ts.definitions(&session, Provider::OpenAiChat);
    assert!(defs.decision.active, "{:?}", defs.decision);
    let names: Vec<&str> = defs
        .tools
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    for bridge in ["tool_search", "tool_describe", "tool_call"] {
        assert!(names.contains(&bridge), "{names:?}");
    }
    assert!(!names.contains(&"tool_search_code"), "{names:?}");

    let found = ts
        .handle_call(
            &session,
            "tool_search",
            json!({"query": "merge a pull request"}),
        )
        .await;
    assert!(!found.is_error, "{}", found.content);
    let id = found.content["hits"][0]["id"]
        .as_str()
        .expect("a hit")
        .to_string();
    assert!(id.contains("merge"), "{id}");

    let described = ts
        .handle_call(&session, "tool_describe", json!({"ids": [id.clone()]}))
        .await;
    assert_eq!(described.content["tools"][0]["id"], json!(id));
    assert_eq!(ts.revealed(&session), vec![id.clone()]);

    let missing = ts
        .handle_call(
            &session,
            "tool_call",
            json!({"id": id.clone(), "arguments": {}}),
        )
        .await;
    assert!(missing.is_error, "{}", missing.content);
    assert_eq!(missing.content["error"]["code"], "INVALID_ARGS");
}

#[tokio::test]
async fn host_errors_are_values_with_the_codes_the_model_sees() {
    let ts = tools_mode();
    let err = ts
        .host()
        .describe("mcp:nowhere:nothing", &Scope::default())
        .expect_err("unknown");
    assert_eq!(err.code, ErrorCode::UnknownTool);
    assert_eq!(err.code.as_str(), "UNKNOWN_TOOL");
    assert!(err.to_string().starts_with("UNKNOWN_TOOL: "), "{err}");
    let names: std::collections::BTreeSet<&str> =
        ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(names.len(), ErrorCode::ALL.len(), "codes are distinct");
}

#[test]
fn code_mode_is_the_default_only_where_it_is_built_in() {
    let expected = if cfg!(feature = "code") {
        Mode::Code
    } else {
        Mode::Tools
    };
    assert_eq!(Settings::default().mode, expected);
    let asked = ToolSearch::builder().mode(Mode::Code).build();
    assert_eq!(asked.is_ok(), cfg!(feature = "code"));
    if let Err(e) = asked {
        assert_eq!(e.setting, "mode");
    }
}

#[test]
fn the_builder_refuses_each_setting_out_of_range() {
    let cases: Vec<(&str, Settings)> = vec![
        (
            "max_search_limit",
            Settings {
                max_search_limit: 0,
                ..Settings::default()
            },
        ),
        (
            "max_search_limit",
            Settings {
                max_search_limit: 51,
                ..Settings::default()
            },
        ),
        (
            "search_default_limit",
            Settings {
                search_default_limit: 30,
                max_search_limit: 20,
                ..Settings::default()
            },
        ),
        (
            "share_threshold",
            Settings {
                share_threshold: f64::NAN,
                ..Settings::default()
            },
        ),
        (
            "share_threshold",
            Settings {
                share_threshold: 1.5,
                ..Settings::default()
            },
        ),
        (
            "context_window",
            Settings {
                context_window: Some(0),
                ..Settings::default()
            },
        ),
        (
            "max_sessions",
            Settings {
                max_sessions: 0,
                ..Settings::default()
            },
        ),
        (
            "listing_bytes",
            Settings {
                listing_bytes: MAX_LISTING_BYTES + 1,
                ..Settings::default()
            },
        ),
        (
            "never_defer",
            Settings {
                never_defer: vec![" ".into()],
                ..Settings::default()
            },
        ),
    ];
    for (setting, settings) in cases {
        let err = ToolSearch::builder()
            .settings(Settings {
                mode: Mode::Tools,
                ..settings
            })
            .build()
            .err()
            .unwrap_or_else(|| panic!("{setting} out of range was accepted"));
        assert_eq!(err.setting, setting, "{err}");
        assert!(err.to_string().contains(setting), "{err}");
    }
    let zero = ToolSearch::builder()
        .mode(Mode::Tools)
        .call_timeout(std::time::Duration::ZERO)
        .build()
        .err()
        .expect("a zero timeout is refused");
    assert_eq!(zero.setting, "call_timeout");
    assert!(ToolSearch::builder()
        .settings(Settings {
            mode: Mode::Tools,
            ..Settings::default()
        })
        .build()
        .is_ok());
}
