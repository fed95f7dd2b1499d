//! Which of a client's servers can move behind the gateway, and as what
//! `[[servers]]` table; the others stay in the client, each with the reason.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::clients::Client;

/// A server as the gateway's `[[servers]]` table holds it.
#[derive(Debug, Clone, PartialEq, Default, serde::Deserialize)]
#[serde(default)]
pub struct Table {
    pub command: Option<String>,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub cwd: Option<String>,
    pub url: Option<String>,
    pub headers: BTreeMap<String, String>,
    pub allow: Vec<String>,
    pub deny: Vec<String>,
    /// A remote server the client logged in to with OAuth: moved with an
    /// `oauth` table, needing `toolsearch oauth login` once (the client's
    /// token store is never read).
    pub oauth: Option<OAuthHint>,
}

/// What a client's entry says of its OAuth login.
#[derive(Debug, Clone, PartialEq, Default, serde::Deserialize)]
#[serde(default)]
pub struct OAuthHint {
    pub client_id: Option<String>,
    pub scopes: Vec<String>,
}

/// The OAuth hints of an entry: gemini's `oauth` {clientId, scopes},
/// VS Code's and Cursor's `oauth` {clientId}.
fn hint(e: &Map<String, Value>) -> OAuthHint {
    let o = e.get("oauth").and_then(Value::as_object);
    OAuthHint {
        client_id: o
            .and_then(|o| o.get("clientId").or_else(|| o.get("client_id")))
            .and_then(Value::as_str)
            .map(str::to_owned),
        scopes: o
            .and_then(|o| o.get("scopes"))
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default(),
    }
}

impl Table {
    /// What makes two servers the same server: how it is started or reached
    /// (the same command, arguments, environment and folder; or URL and
    /// headers). Policy globs are not part of it.
    pub fn key(&self) -> serde_json::Value {
        serde_json::json!({"command": self.command, "args": self.args, "env": self.env,
            "cwd": self.cwd, "url": self.url, "headers": self.headers})
    }

    pub fn transport(&self) -> &'static str {
        if self.command.is_some() {
            "stdio"
        } else {
            "streamable-http"
        }
    }
}

/// What to do with one of the client's servers.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // one per server of one client, held briefly
pub enum Decision {
    Move(Table),
    Keep(String),
}

/// Decides for the entry `entry` of `client`.
pub fn decide(client: Client, entry: &Value) -> Decision {
    let Some(e) = entry.as_object() else {
        return Decision::Keep("its entry is not an object".into());
    };
    if e.get("disabled") == Some(&Value::Bool(true))
        || e.get("enabled") == Some(&Value::Bool(false))
    {
        return Decision::Keep("it is disabled in the client".into());
    }
    if let Some(reason) = reads_environment(client, e) {
        return Decision::Keep(reason);
    }
    let strings = |v: Option<&Value>| -> Option<Vec<String>> {
        match v {
            None | Some(Value::Null) => Some(Vec::new()),
            Some(Value::Array(a)) => a.iter().map(|x| x.as_str().map(str::to_owned)).collect(),
            _ => None,
        }
    };
    let map = |v: Option<&Value>| -> Option<BTreeMap<String, String>> {
        match v {
            None | Some(Value::Null) => Some(BTreeMap::new()),
            Some(Value::Object(m)) => m
                .iter()
                .map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_owned())))
                .collect(),
            _ => None,
        }
    };
    let kind = e.get("type").and_then(Value::as_str).unwrap_or("");
    if let Some(command) = e.get("command").and_then(Value::as_str) {
        // A stdio wrapper that signs in to a remote server through a browser
        // and keeps the tokens where the client runs it.
        let wraps = |s: &str| s.contains("mcp-remote");
        let args = strings(e.get("args")).unwrap_or_default();
        if wraps(command) || args.iter().any(|a| wraps(a)) {
            // `mcp-remote URL`: the gateway reaches the URL itself, with a
            // login of its own.
            if args.iter().any(|a| a == "--header") {
                return Decision::Keep(
                    "it passes headers through mcp-remote (`--header`): the gateway's entry would lose them; give the server a `[[servers]]` entry with `headers` by hand".into(),
                );
            }
            return match args
                .iter()
                .find(|a| a.starts_with("https://") || a.starts_with("http://"))
            {
                Some(url) if url.trim_end_matches('/').ends_with("/sse") => Decision::Keep(
                    "it speaks the old HTTP+SSE transport (an `/sse` URL); the gateway speaks streamable HTTP".into(),
                ),
                Some(url) => Decision::Move(Table {
                    url: Some(url.clone()),
                    oauth: Some(OAuthHint::default()),
                    ..Table::default()
                }),
                None => Decision::Keep(oauth(client)),
            };
        }
        if !matches!(kind, "" | "stdio") {
            return Decision::Keep(format!("its type `{kind}` is not one the gateway speaks"));
        }
        let (Some(args), Some(env)) = (strings(e.get("args")), map(e.get("env"))) else {
            return Decision::Keep("its args or env are not strings".into());
        };
        return Decision::Move(Table {
            command: Some(command.to_owned()),
            args,
            env,
            cwd: e.get("cwd").and_then(Value::as_str).map(str::to_owned),
            allow: strings(e.get("includeTools")).unwrap_or_default(),
            deny: strings(e.get("excludeTools")).unwrap_or_default(),
            ..Table::default()
        });
    }
    let url = ["url", "httpUrl", "serverUrl"]
        .iter()
        .find_map(|k| e.get(*k).and_then(Value::as_str));
    let Some(url) = url else {
        return Decision::Keep("it has neither a command nor a URL".into());
    };
    if kind == "sse" {
        return Decision::Keep(
            "it speaks the old HTTP+SSE transport; the gateway speaks streamable HTTP".into(),
        );
    }
    if ["auth", "authProviderType"]
        .iter()
        .any(|k| e.contains_key(*k))
    {
        return Decision::Keep(oauth(client));
    }
    if !(url.starts_with("https://") || url.starts_with("http://")) {
        return Decision::Keep("its URL is not http(s)".into());
    }
    if e.contains_key("oauth") {
        return Decision::Move(Table {
            url: Some(url.to_owned()),
            oauth: Some(hint(e)),
            ..Table::default()
        });
    }
    let Some(headers) = map(e.get("headers").or_else(|| e.get("http_headers"))) else {
        return Decision::Keep("its headers are not strings".into());
    };
    let credential = headers.iter().any(|(k, v)| {
        let k = k.to_ascii_lowercase();
        !v.trim().is_empty()
            && (k == "authorization"
                || k.contains("api-key")
                || k.contains("apikey")
                || k.contains("token"))
    });
    if !credential {
        // Signed in with the client's OAuth login, or open: the move probes it.
        return Decision::Move(Table {
            url: Some(url.to_owned()),
            headers,
            oauth: Some(OAuthHint::default()),
            ..Table::default()
        });
    }
    Decision::Move(Table {
        url: Some(url.to_owned()),
        headers,
        ..Table::default()
    })
}

fn oauth(client: Client) -> String {
    format!(
        "it signs in with {}'s own kind of login (not an OAuth 2.1 authorization server the gateway can log in to)",
        client.name()
    )
}

/// Why an entry that takes values from the environment, a prompt or a file
/// stays: the gateway's config holds values, never references, and moving the
/// value would put a secret on disk that was not there.
fn reads_environment(client: Client, e: &Map<String, Value>) -> Option<String> {
    for key in [
        "env_vars",
        "bearer_token_env_var",
        "env_http_headers",
        "envFile",
    ] {
        if e.get(key)
            .is_some_and(|v| !v.is_null() && v != &Value::Array(vec![]))
        {
            return Some(format!(
                "it reads `{key}` from the environment or a file, which the client provides"
            ));
        }
    }
    let mut found = None;
    walk_strings(&Value::Object(e.clone()), &mut |s| {
        if found.is_none() && has_reference(client, s) {
            found = Some(s.chars().take(40).collect::<String>());
        }
    });
    found.map(|_| {
        "it reads a value from the client's environment or prompts (`${…}`); the gateway would \
         have to store the secret itself"
            .to_owned()
    })
}

fn walk_strings(v: &Value, f: &mut impl FnMut(&str)) {
    match v {
        Value::String(s) => f(s),
        Value::Array(a) => a.iter().for_each(|x| walk_strings(x, f)),
        Value::Object(m) => m.values().for_each(|x| walk_strings(x, f)),
        _ => {}
    }
}

/// `${...}` anywhere (Claude Code, Cursor, VS Code, Gemini); for Gemini also
/// `$NAME`. Codex and Claude Desktop expand nothing.
fn has_reference(client: Client, s: &str) -> bool {
    match client {
        Client::Codex | Client::ClaudeDesktop => false,
        Client::Gemini => s.match_indices('$').any(|(i, _)| {
            s[i + 1..].starts_with(|c: char| c == '{' || c == '_' || c.is_ascii_alphabetic())
        }),
        _ => s.contains("${"),
    }
}

/// True when the entry runs a toolsearch gateway (`toolsearch gateway`,
/// directly or through a runner such as `uvx toolsearch gateway`): moving it
/// behind the gateway would nest one gateway in another.
pub fn is_gateway(entry: &Value) -> bool {
    let words: Vec<&str> = std::iter::once(&entry["command"])
        .chain(entry["args"].as_array().into_iter().flatten())
        .filter_map(Value::as_str)
        .collect();
    let named = |w: &&str| {
        std::path::Path::new(w)
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n == "toolsearch" || n.starts_with("toolsearch=="))
    };
    words.iter().any(named) && words.contains(&"gateway")
}

/// A gateway server name for a client's server name: 1 to 48 letters, digits,
/// `_` or `-`.
pub fn gateway_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(48)
        .collect();
    if out.is_empty() {
        out.push_str("server");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stdio_moves_references_and_oauth_stay() {
        let stdio = json!({"command": "npx", "args": ["-y", "srv"], "env": {"TOKEN": "ghp_x"}});
        assert!(
            matches!(decide(Client::Cursor, &stdio), Decision::Move(t) if t.env["TOKEN"] == "ghp_x")
        );
        let referenced = json!({"command": "npx", "env": {"TOKEN": "${env:GH}"}});
        assert!(matches!(
            decide(Client::Cursor, &referenced),
            Decision::Keep(_)
        ));
        let gemini = json!({"command": "srv", "args": ["$HOME/x"]});
        assert!(matches!(decide(Client::Gemini, &gemini), Decision::Keep(_)));
        // Codex expands nothing: a literal `$` is a literal.
        assert!(matches!(decide(Client::Codex, &gemini), Decision::Move(_)));
        let oauth = json!({"type": "http", "url": "https://mcp.example.com/mcp"});
        assert!(
            matches!(decide(Client::ClaudeCode, &oauth), Decision::Move(t) if t.oauth.is_some())
        );
        let remote =
            json!({"command": "npx", "args": ["-y", "mcp-remote", "https://mcp.example.com/mcp"]});
        assert!(
            matches!(decide(Client::Cursor, &remote), Decision::Move(t) if t.url.as_deref() == Some("https://mcp.example.com/mcp") && t.oauth.is_some())
        );
        let sse = json!({"command": "npx", "args": ["mcp-remote", "https://mcp.example.com/sse"]});
        assert!(matches!(decide(Client::Cursor, &sse), Decision::Keep(r) if r.contains("SSE")));
        let headed = json!({"command": "npx", "args": ["mcp-remote", "https://x/mcp", "--header", "Authorization:${T}"]});
        assert!(
            matches!(decide(Client::ClaudeDesktop, &headed), Decision::Keep(r) if r.contains("--header"))
        );
        let google = json!({"httpUrl": "https://x/mcp", "authProviderType": "google_credentials"});
        assert!(matches!(decide(Client::Gemini, &google), Decision::Keep(_)));
        let keyed = json!({"type": "http", "url": "https://x/mcp", "headers": {"Authorization": "Bearer abc"}});
        assert!(matches!(decide(Client::Vscode, &keyed), Decision::Move(t) if t.url.is_some()));
        let sse = json!({"type": "sse", "url": "https://x/sse", "headers": {"Authorization": "Bearer abc"}});
        assert!(matches!(decide(Client::ClaudeCode, &sse), Decision::Keep(r) if r.contains("SSE")));
        let gem = json!({"httpUrl": "https://x/mcp", "oauth": {"enabled": true, "clientId": "c1", "scopes": ["read"]}});
        assert!(
            matches!(decide(Client::Gemini, &gem), Decision::Move(t) if t.oauth == Some(OAuthHint { client_id: Some("c1".into()), scopes: vec!["read".into()] }))
        );
        assert!(matches!(
            decide(Client::Codex, &json!({"command": "x", "enabled": false})),
            Decision::Keep(_)
        ));
        assert_eq!(gateway_name("my server.v2"), "my_server_v2");
    }
}
