//! Search behaviour tests over small hand-made catalogs and the demo catalog.

use crate::*;
use proptest::prelude::*;
use serde_json::json;

fn tool(server: Option<&str>, name: &str, desc: &str) -> Tool {
    Tool::new(Source::Mcp, server, name, desc, json!({"type": "object"}))
}

fn ids(r: &SearchResult) -> Vec<&str> {
    r.hits.iter().map(|h| h.id.as_str()).collect()
}

fn opts() -> SearchOptions {
    SearchOptions::default()
}

#[test]
fn duplicate_ids_are_rejected() {
    let err = Catalog::new(vec![tool(None, "a", ""), tool(None, "a", "")]).unwrap_err();
    assert!(
        matches!(err, CatalogError::DuplicateId { ref id } if id == "mcp::a"),
        "{err}"
    );
}

#[test]
fn fingerprint_depends_on_content_not_order() {
    let a = Catalog::new(vec![tool(None, "a", "x"), tool(None, "b", "y")]).unwrap();
    let b = Catalog::new(vec![tool(None, "b", "y"), tool(None, "a", "x")]).unwrap();
    let c = Catalog::new(vec![tool(None, "a", "x"), tool(None, "b", "z")]).unwrap();
    assert_eq!(a.fingerprint(), b.fingerprint());
    assert_ne!(a.fingerprint(), c.fingerprint());
    assert_eq!(a.fingerprint().len(), 64);
}

#[test]
fn demo_catalog_loads_and_ranks_obvious_queries() {
    let c = Catalog::demo();
    assert!(c.len() >= 30);
    let cases = [
        ("open a github issue", "mcp:github:create_issue"),
        ("send a slack message", "mcp:slack:send_message"),
        ("weather forecast for tomorrow", "mcp:weather:get_forecast"),
        ("refund a payment", "mcp:stripe:create_refund"),
        (
            "schedule a meeting in my calendar",
            "mcp:google-calendar:create_event",
        ),
    ];
    for (q, want) in cases {
        let r = c.search(q, &opts());
        assert_eq!(
            r.hits.first().map(|h| h.id.as_str()),
            Some(want),
            "query {q:?}: {:?}",
            ids(&r)
        );
    }
}

#[test]
fn exact_name_quoted_or_backticked_ranks_first() {
    let c = Catalog::demo();
    for q in [
        "list_issues",
        "`list_issues`",
        "\"list_issues\"",
        "mcp:github:list_issues",
    ] {
        let r = c.search(q, &opts());
        assert_eq!(ids(&r)[0], "mcp:github:list_issues", "{q}");
    }
    // An identifier inside prose also ranks first.
    let r = c.search("I need get_file_contents for the readme", &opts());
    assert_eq!(ids(&r)[0], "mcp:github:get_file_contents");
}

#[test]
fn an_exact_name_answers_that_tool_alone() {
    let c = Catalog::demo();
    for q in [
        "create_issue",
        "`create_issue`",
        "\"create_issue\"",
        "mcp:github:create_issue",
    ] {
        let r = c.search(q, &opts());
        assert_eq!(ids(&r), ["mcp:github:create_issue"], "{q}");
        assert_eq!(r.total, 1, "{q}");
    }
    // Two names, prose around a name, a required word: ranked as before.
    let two = c.search("create_issue list_issues", &opts());
    assert!(ids(&two).len() >= 2, "{:?}", ids(&two));
    assert_eq!(
        ids(&two)[..2],
        ["mcp:github:create_issue", "mcp:github:list_issues"]
    );
    let prose = c.search("use create_issue for the bug", &opts());
    assert!(prose.hits.len() > 1, "{:?}", ids(&prose));
    assert_eq!(ids(&prose)[0], "mcp:github:create_issue");
    // One word that names no tool: a ranking, not an empty answer.
    let word = c.search("issue", &opts());
    assert!(word.hits.len() > 1, "{:?}", ids(&word));
    // The same name on several servers: every one of them.
    let c = Catalog::new(vec![
        tool(Some("a"), "fetch", "Fetch a URL"),
        tool(Some("b"), "fetch", "Fetch a page"),
        tool(Some("c"), "fetch_json", "Fetch JSON"),
    ])
    .unwrap();
    let r = c.search("fetch", &opts());
    assert_eq!(ids(&r), ["mcp:a:fetch", "mcp:b:fetch"]);
}

#[test]
fn select_picks_by_name_and_reports_missing() {
    let c = Catalog::demo();
    let r = c.search(
        "select:send_message,nope,read_file,send_message",
        &SearchOptions {
            limit: Some(1),
            ..opts()
        },
    );
    assert_eq!(r.matched_by, MatchedBy::Select);
    assert_eq!(ids(&r), ["mcp:slack:send_message", "builtin::read_file"]);
    assert_eq!(r.not_found, ["nope"]);
    let many: Vec<String> = c.tools().iter().map(|t| t.name.clone()).collect();
    let r = c.search(&format!("select:{}", many.join(",")), &opts());
    assert_eq!(r.hits.len(), MAX_LIMIT);
    assert!(r.limit_note.is_some());
}

#[test]
fn required_word_filters() {
    let c = Catalog::demo();
    let r = c.search("+slack message", &opts());
    assert!(!r.hits.is_empty());
    assert!(
        r.hits.iter().all(|h| h.server.as_deref() == Some("slack")),
        "{:?}",
        ids(&r)
    );
    let r = c.search(
        "+zzzzqx message",
        &SearchOptions {
            fuzzy: false,
            ..opts()
        },
    );
    assert!(r.hits.is_empty());
}

/// A tool that mentions the moon in prose, and one that matches nothing.
fn moon_tools() -> Vec<Tool> {
    vec![
        tool(
            Some("a"),
            "alpha_tool",
            "Does things with the moon and stars",
        ),
        tool(Some("b"), "beta_tool", "Unrelated helper"),
    ]
}

#[test]
fn coverage_rule_drops_one_incidental_word() {
    let c = Catalog::new(moon_tools()).unwrap();
    // Only "moon" matches, in prose, in a long query: no hits, a listing instead.
    let r = c.search(
        "please book flights hotels cars moon",
        &SearchOptions {
            fuzzy: false,
            ..opts()
        },
    );
    assert!(r.hits.is_empty(), "{:?}", ids(&r));
    assert_eq!(r.matched_by, MatchedBy::Listing);
    assert!(r.hint.is_some());
    // The same word alone matches.
    assert_eq!(ids(&c.search("moon", &opts())), ["mcp:a:alpha_tool"]);
    // A name match is intent even in a long query.
    let r = c.search("please book flights hotels cars beta", &opts());
    assert_eq!(ids(&r), ["mcp:b:beta_tool"]);
}

#[test]
fn keyword_ranking_flags_what_the_coverage_rule_drops() {
    let mut tools = moon_tools();
    tools.push(tool(Some("c"), "gamma_tool", "Books flights to the moon"));
    let c = Catalog::new(tools).unwrap();
    let crate::query::Query::Keywords(kw) = crate::query::parse("please book flights moon") else {
        panic!("keywords expected")
    };
    let ranking = c.keyword_ranking(&kw, 10, &|_| true);
    let by_name = |n: &str| ranking.iter().find(|h| c.tools()[h.doc].name == n).copied();
    // gamma matches three words: covered. alpha matches only "moon" in prose: kept,
    // flagged. beta matches nothing.
    assert!(by_name("gamma_tool").unwrap().covered);
    assert!(!by_name("alpha_tool").unwrap().covered);
    assert!(by_name("beta_tool").is_none());
    assert_eq!(ranking[0].doc, c.position("mcp:c:gamma_tool").unwrap());
    // Plain search still drops the flagged one.
    let r = c.search("please book flights moon", &opts());
    assert_eq!(ids(&r), ["mcp:c:gamma_tool"]);
}

#[test]
fn top_band_cuts_weak_tail_and_is_configurable() {
    let c = Catalog::new(vec![
        tool(None, "weather_forecast", "Weather forecast for a city"),
        tool(None, "notes", "Write notes, e.g. about the weather"),
    ])
    .unwrap();
    assert_eq!(
        ids(&c.search("weather forecast", &opts())),
        ["mcp::weather_forecast"]
    );
    let all = c.search(
        "weather",
        &SearchOptions {
            band: 0.0,
            ..opts()
        },
    );
    assert_eq!(all.hits.len(), 2);
}

#[test]
fn a_long_request_gets_a_looser_band_than_a_short_query() {
    assert_eq!(band_for(0.5, 1), 0.5);
    assert_eq!(band_for(0.5, BAND_FULL_TERMS), 0.5);
    assert!((band_for(0.5, 6) - 0.25).abs() < 1e-6);
    assert_eq!(band_for(0.0, 10), 0.0);
    // The second step's tool matches two of the request's eight words and scores
    // well under the first step's, which matches four: the full band drops it, the
    // request's band keeps it.
    let c = Catalog::new(vec![
        tool(
            None,
            "repo_stage_commit",
            "Stage and commit all changes in a git repository branch",
        ),
        tool(None, "history", "Recent history"),
        tool(None, "unrelated", "Translate text between languages"),
    ])
    .unwrap();
    let request = "stage commit all changes git repository branch then show history";
    let all = c.search(
        request,
        &SearchOptions {
            band: 0.0,
            ..opts()
        },
    );
    let (top, second) = (all.hits[0].score, all.hits[1].score);
    assert_eq!(ids(&all)[..2], ["mcp::repo_stage_commit", "mcp::history"]);
    assert!(
        second < top * 0.5 && second >= top * f64::from(band_for(0.5, 7)),
        "{top} {second}"
    );
    assert_eq!(ids(&c.search(request, &opts()))[..2], ids(&all)[..2]);
    // A short query keeps the full band.
    let short = c.search("stage commit", &opts());
    assert_eq!(ids(&short), ["mcp::repo_stage_commit"]);
}

#[test]
fn word_in_every_tool_still_ranks_by_other_words() {
    let c = Catalog::new(vec![
        tool(
            Some("github"),
            "github_create_issue",
            "GitHub: create an issue",
        ),
        tool(
            Some("github"),
            "github_list_repos",
            "GitHub: list repositories",
        ),
        tool(Some("github"), "github_get_user", "GitHub: get a user"),
    ])
    .unwrap();
    let r = c.search("github issue", &opts());
    assert_eq!(ids(&r)[0], "mcp:github:github_create_issue");
    assert!(r.hits.iter().all(|h| h.score >= 0.0));
    let only = c.search(
        "github",
        &SearchOptions {
            band: 0.0,
            ..opts()
        },
    );
    assert_eq!(only.hits.len(), 3, "a word in every tool still matches");
}

#[test]
fn infix_and_prefix_tiers() {
    let c = Catalog::new(vec![
        tool(None, "NotebookEdit", "Edit a Jupyter cell"),
        tool(None, "Read", "Read a file"),
        tool(None, "Facebook", "Social"),
    ])
    .unwrap();
    let r = c.search(
        "note",
        &SearchOptions {
            explain: true,
            ..opts()
        },
    );
    assert_eq!(ids(&r), ["mcp::NotebookEdit"]);
    let rules: Vec<_> = r.hits[0]
        .explain
        .as_ref()
        .unwrap()
        .iter()
        .map(|e| e.rule.as_str())
        .collect();
    assert_eq!(rules, ["name_prefix"]);
    let r = c.search(
        "book",
        &SearchOptions {
            explain: true,
            band: 0.0,
            ..opts()
        },
    );
    assert_eq!(
        ids(&r),
        ["mcp::Facebook", "mcp::NotebookEdit"],
        "ties by id"
    );
    assert_eq!(r.hits[0].explain.as_ref().unwrap()[0].rule, "name_infix");
}

#[test]
fn an_infix_must_leave_words_not_fragments() {
    let c = Catalog::new(vec![
        tool(None, "get_train_route", "Stations a train stops at"),
        tool(None, "generate_report", "Write a summary"),
        tool(None, "query_database", "Run SQL"),
    ])
    .unwrap();
    let o = SearchOptions {
        band: 0.0,
        ..opts()
    };
    // `t|rain` and `re|port` leave one- and two-letter fragments: no lexical match
    // (the typo-tolerant fallback may still offer `train`, as a guess).
    for word in ["rain", "port"] {
        let r = c.search(word, &o);
        assert_ne!(r.matched_by, MatchedBy::Lexical, "{word}: {:?}", ids(&r));
    }
    // `data|base` leaves a word: the infix tier still fires.
    assert_eq!(ids(&c.search("base", &o)), ["mcp::query_database"]);
}

#[test]
fn ties_are_broken_by_id_and_output_is_byte_stable() {
    let c = Catalog::new(vec![tool(None, "b_thing", "x"), tool(None, "a_thing", "x")]).unwrap();
    let r = c.search("thing", &opts());
    assert_eq!(ids(&r), ["mcp::a_thing", "mcp::b_thing"]);
    let one = serde_json::to_string(&c.search("thing x", &opts())).unwrap();
    let two = serde_json::to_string(&c.search("thing x", &opts())).unwrap();
    assert_eq!(one, two);
}

#[test]
fn limit_defaults_clamps_and_says_so() {
    let tools: Vec<Tool> = (0..30)
        .map(|i| tool(None, &format!("file_tool_{i:02}"), "file"))
        .collect();
    let c = Catalog::new(tools).unwrap();
    let r = c.search("file", &opts());
    assert_eq!((r.hits.len(), r.limit, r.total), (DEFAULT_LIMIT, 8, 30));
    assert!(r.limit_note.is_none());
    let r = c.search(
        "file",
        &SearchOptions {
            limit: Some(500),
            ..opts()
        },
    );
    assert_eq!(r.hits.len(), MAX_LIMIT);
    assert!(r.limit_note.as_deref().unwrap().contains("500"));
    let r = c.search(
        "file",
        &SearchOptions {
            limit: Some(0),
            ..opts()
        },
    );
    assert_eq!(r.hits.len(), 1);
    assert!(r.limit_note.is_some());
}

#[test]
fn many_queries_merge_without_duplicates() {
    let c = Catalog::demo();
    let r = c
        .search_many(
            &["create github issue", "github issue", "send slack message"],
            &opts(),
            &|_| true,
        )
        .unwrap();
    let got = ids(&r);
    assert!(got.contains(&"mcp:github:create_issue") && got.contains(&"mcp:slack:send_message"));
    let mut dedup = got.clone();
    dedup.sort();
    dedup.dedup();
    assert_eq!(dedup.len(), got.len());
    let err = c.search_many(&["a"; 8], &opts(), &|_| true).unwrap_err();
    assert!(matches!(
        err,
        CatalogError::TooManyQueries { given: 8, max: 7 }
    ));
}

#[test]
fn fuzzy_names_when_nothing_matches() {
    let c = Catalog::demo();
    let r = c.search("get_forcast", &opts());
    assert_eq!(r.matched_by, MatchedBy::Fuzzy);
    assert_eq!(ids(&r)[0], "mcp:weather:get_forecast");
}

#[test]
fn empty_query_lists_names_or_servers_within_budget() {
    let c = Catalog::demo();
    let r = c.search(
        "",
        &SearchOptions {
            listing_bytes: 100_000,
            ..opts()
        },
    );
    let l = r.listing.unwrap();
    assert_eq!((l.kind, l.tools.len()), (ListingKind::Tools, c.len()));
    let r = c.search(
        "  ",
        &SearchOptions {
            listing_bytes: 300,
            ..opts()
        },
    );
    let l = r.listing.unwrap();
    assert_eq!(l.kind, ListingKind::Servers);
    assert!(serde_json::to_string(&l.servers).unwrap().len() <= 300);
    assert!(l.omitted > 0, "budget too small for every server");
    assert!(r.hint.unwrap().contains("server:"));
}

#[test]
fn server_query_pages_one_server() {
    let tools: Vec<Tool> = (0..120)
        .map(|i| tool(Some("big"), &format!("t{i:03}"), "x"))
        .collect();
    let c = Catalog::new(tools).unwrap();
    let o = SearchOptions {
        limit: Some(50),
        max_limit: 50,
        ..opts()
    };
    let r = c.search("server:BIG page:3", &o);
    assert_eq!(
        (r.matched_by, r.total, r.hits.len()),
        (MatchedBy::Server, 120, 20)
    );
    assert_eq!(r.hits[0].name, "t100", "the page's tools are hits, by name");
    assert!(r.hits[0].id.contains("t100"), "with the id to call");
    let l = r.listing.unwrap();
    assert_eq!(
        (l.kind, l.page, l.pages, l.tools.len()),
        (ListingKind::ServerTools, Some(3), Some(3), 0)
    );
    assert!(r.hint.is_none(), "the last page");
    let r = c.search("server:big", &o);
    assert!(r.hint.unwrap().contains("`server:big page:2`"));
    let r = c.search("server:unknown", &opts());
    assert_eq!(r.listing.unwrap().kind, ListingKind::Servers);
}

#[test]
fn scoping_hides_denied_tools_everywhere() {
    let c = Catalog::demo();
    let allow = |t: &Tool| t.server.as_deref() != Some("slack");
    let r = c.search_scoped("send slack message", &opts(), &allow);
    assert!(r.hits.iter().all(|h| h.server.as_deref() != Some("slack")));
    let r = c.search_scoped("select:send_message", &opts(), &allow);
    assert_eq!(r.not_found, ["send_message"]);
    let r = c.search_scoped(
        "",
        &SearchOptions {
            listing_bytes: 100_000,
            ..opts()
        },
        &allow,
    );
    assert!(r
        .listing
        .unwrap()
        .tools
        .iter()
        .all(|t| t.name != "send_message"));
    assert_eq!(c.resolve("send_message", &allow), Resolved::None);
    assert!(matches!(
        c.resolve("send_message", &|_| true),
        Resolved::One(_)
    ));
}

#[test]
fn chinese_descriptions_are_searchable() {
    let c = Catalog::new(vec![
        tool(
            Some("bing-cn"),
            "bing_search",
            "使用必应搜索指定的关键词，并返回搜索结果列表",
        ),
        tool(Some("x"), "other", "获取网页内容"),
    ])
    .unwrap();
    assert_eq!(
        ids(&c.search("搜索关键词", &opts()))[0],
        "mcp:bing-cn:bing_search"
    );
}

#[test]
fn describe_includes_typescript_and_schemas() {
    let c = Catalog::demo();
    let d = c.describe("mcp:github:create_issue").unwrap();
    assert!(
        d.typescript
            .contains("declare function create_issue(args: {"),
        "{}",
        d.typescript
    );
    assert!(d.typescript.contains("  title: string;"));
    assert!(d.typescript.contains("  body?: string;"));
    let v = serde_json::to_value(&d).unwrap();
    assert_eq!(v["input_schema"]["required"][2], "title");
    assert!(c.describe("nope").is_none());
}

#[test]
fn hits_are_compact() {
    let long = "word ".repeat(200);
    let c = Catalog::new(vec![tool(None, "long_tool", &long)]).unwrap();
    let r = c.search("long", &opts());
    assert!(r.hits[0].description.len() <= search_summary_cap());
}

fn search_summary_cap() -> usize {
    SearchOptions::default().summary_bytes
}

fn arb_tool() -> impl Strategy<Value = Tool> {
    ("\\PC{0,40}", "\\PC{0,200}", proptest::option::of("[a-z]{1,8}"))
        .prop_map(|(name, desc, server)| Tool::new(Source::Client, server.as_deref(), &name, &desc, json!({"type": "object", "properties": {"p": {"type": "string", "description": desc}}})))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn search_never_panics(tools in proptest::collection::vec(arb_tool(), 0..30), q in "\\PC{0,60}", limit in proptest::option::of(0usize..50)) {
        let mut seen = std::collections::HashSet::new();
        let tools: Vec<Tool> = tools.into_iter().filter(|t| seen.insert(t.id.clone())).collect();
        let c = Catalog::new(tools).unwrap();
        let r = c.search(&q, &SearchOptions { limit, explain: true, ..Default::default() });
        prop_assert!(r.hits.len() <= MAX_LIMIT);
        prop_assert!(r.hits.windows(2).all(|w| w[0].score >= w[1].score));
        prop_assert!(!r.hits.is_empty() || r.listing.is_some());
        for special in ["select:", "server:", "+", "`", "\"\""] {
            let _ = c.search(&format!("{special}{q}"), &SearchOptions::default());
        }
    }

    #[test]
    fn words_never_panic_and_are_lowercase(s in "\\PC{0,80}") {
        for w in text::words(&s) {
            prop_assert!(!w.is_empty());
            prop_assert_eq!(w.to_lowercase(), w.clone());
        }
    }
}

#[test]
fn verb_synonyms_find_differently_named_actions() {
    let c = Catalog::new(vec![
        tool(Some("files"), "delete_file", "Delete a file"),
        tool(Some("files"), "read_file", "Read a file"),
        tool(Some("files"), "list_files", "List files"),
    ])
    .unwrap();
    let r = c.search("remove a file", &opts());
    assert_eq!(ids(&r)[0], "mcp:files:delete_file", "{:?}", ids(&r));
    let r = c.search("fetch the file", &opts());
    assert_eq!(ids(&r)[0], "mcp:files:read_file", "{:?}", ids(&r));
    let explained = c.search(
        "remove a file",
        &SearchOptions {
            explain: true,
            ..opts()
        },
    );
    let rules: Vec<&str> = explained.hits[0]
        .explain
        .as_ref()
        .unwrap()
        .iter()
        .map(|r| r.rule.as_str())
        .collect();
    assert!(
        rules.iter().any(|r| r.starts_with("verb_synonym:")),
        "{rules:?}"
    );
}

#[test]
fn the_head_word_of_a_name_counts_more() {
    let c = Catalog::new(vec![
        tool(Some("gh"), "add_issue_comment", "Comment on an issue"),
        tool(Some("gh"), "create_issue", "Open a new issue"),
    ])
    .unwrap();
    let r = c.search("issue", &opts());
    assert_eq!(ids(&r)[0], "mcp:gh:create_issue", "{:?}", ids(&r));
}

#[test]
fn argument_values_in_a_task_do_not_match_tools() {
    let c = Catalog::new(vec![
        tool(None, "get_weather", "Weather for a city"),
        tool(None, "holdings_13f", "13F holdings for 2024"),
    ])
    .unwrap();
    let r = c.search("weather in Paris on the 13th of May 2024", &opts());
    assert_eq!(ids(&r), ["mcp::get_weather"]);
    // Required with `+`, a number is searched for.
    let r = c.search("+13f holdings", &opts());
    assert_eq!(ids(&r), ["mcp::holdings_13f"]);
}
