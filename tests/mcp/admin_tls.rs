//! The admin surface over HTTPS (`[admin] tls_cert`/`tls_key`): the operator
//! page is served to another machine only then; the page's own `Origin` is
//! its `https://` one; a browser is told never to come in clear (HSTS); a
//! clear-text request gets no answer; renewed files serve the next
//! connection, and a half-written renewal leaves the identity in force.

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::Duration;

use toolsearch_mcp::{Config, Gateway};

use crate::common::temp_path;

/// This machine's address on its network (where a packet to a public
/// address would leave from; none is sent).
pub(crate) fn network_address() -> std::net::IpAddr {
    let s = std::net::UdpSocket::bind("0.0.0.0:0").unwrap();
    s.connect("192.0.2.1:9")
        .or_else(|_| s.connect("8.8.8.8:53"))
        .expect("the test needs a non-loopback IPv4 address to reach the surface from");
    let ip = s.local_addr().unwrap().ip();
    assert!(!ip.is_loopback() && !ip.is_unspecified(), "{ip}");
    ip
}

/// A gateway whose admin surface listens on every address, over TLS when
/// `tls` (the certificate and key files): its port.
async fn remote_admin(
    tls: Option<(&std::path::Path, &std::path::Path)>,
    host: &str,
) -> (Arc<Gateway>, u16, tokio_util::sync::CancellationToken) {
    let var = format!("TS_ADMIN_TLS_TEST_{}", std::process::id());
    std::env::set_var(&var, "admin-secret");
    let tls = tls.map_or(String::new(), |(cert, key)| {
        format!("tls_cert = {cert:?}\ntls_key = {key:?}\n")
    });
    let head = format!(
        "mode = \"tools\"\nactivation = \"always\"\nsemantic = false\n\
         [admin]\nlisten = \"0.0.0.0:0\"\nremote = true\ntoken_env = \"{var}\"\n\
         allowed_hosts = [\"{host}\", \"admin.test\"]\n{tls}"
    );
    crate::admin::serve_admin(&head).await.unwrap()
}

/// A client trusting only `ca`, one connection a request.
fn client(ca: &str) -> reqwest::Client {
    toolsearch_mcp::http_client::install_tls_provider();
    reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(ca.as_bytes()).unwrap())
        .pool_max_idle_per_host(0)
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

/// What a clear-text request to `addr` reads back (everything, until closed).
fn clear_text(addr: std::net::SocketAddr) -> Vec<u8> {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let _ = s.write_all(
        format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes(),
    );
    let mut all = Vec::new();
    let _ = s.read_to_end(&mut all);
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_tls_the_page_reaches_the_network_and_renews_in_place() {
    let ip = network_address();
    let host = ip.to_string();
    let (ca, cert, key) = crate::tls::private_ca_for(&["localhost", "127.0.0.1", &host]);
    let cert_file = temp_path("admin-cert.pem");
    let key_file = cert_file.with_file_name("admin-key.pem");
    std::fs::write(&cert_file, cert).unwrap();
    std::fs::write(&key_file, key).unwrap();
    let (_gw, port, stop) = remote_admin(Some((&cert_file, &key_file)), &host).await;
    let base = format!("https://{host}:{port}");
    let http = client(&ca);

    // The shell, to a peer on the network, over TLS.
    let shell = http.get(format!("{base}/")).send().await.unwrap();
    assert_eq!(shell.status(), 200);
    let headers = shell.headers().clone();
    // HSTS for a DNS name only (browsers ignore it for an IP address).
    assert!(
        !headers.contains_key("strict-transport-security"),
        "{headers:?}"
    );
    let named = http
        .get(format!("{base}/healthz"))
        .header("host", format!("admin.test:{port}"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        named.headers()["strict-transport-security"],
        "max-age=31536000"
    );
    assert!(
        headers["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("default-src 'self'"),
        "{headers:?}"
    );
    let body = shell.text().await.unwrap();
    assert!(body.contains("app.js"), "{body}");

    // The API: the token, and only the page's own https Origin.
    let api = |origin: Option<String>| {
        let mut r = http
            .get(format!("{base}/api/servers"))
            .bearer_auth("admin-secret");
        if let Some(o) = origin {
            r = r.header("origin", o);
        }
        r.send()
    };
    assert_eq!(api(None).await.unwrap().status(), 200);
    assert_eq!(api(Some(base.clone())).await.unwrap().status(), 200);
    let clear_origin = api(Some(format!("http://{host}:{port}"))).await.unwrap();
    assert_eq!(clear_origin.status(), 403);
    assert_eq!(
        http.get(format!("{base}/api/servers"))
            .send()
            .await
            .unwrap()
            .status(),
        401
    );

    // Clear text gets no HTTP answer (nor the surface's attention for long).
    let addr = std::net::SocketAddr::new(ip, port);
    let read = tokio::task::spawn_blocking(move || clear_text(addr))
        .await
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&read).contains("HTTP/1.1 200"),
        "{:?}",
        String::from_utf8_lossy(&read)
    );

    // A renewal written half (a certificate that is not PEM) leaves the
    // identity in force...
    std::fs::write(&cert_file, "-----BEGIN CERTIFICATE-----\nhalf").unwrap();
    let still = http.get(format!("{base}/healthz")).send().await;
    assert_eq!(still.map(|r| r.status().as_u16()).ok(), Some(200));
    // ...so does a new certificate beside the old key (rustls refuses the
    // pair)...
    let (ca2, cert2, key2) = crate::tls::private_ca_for(&[&host]);
    std::fs::write(&cert_file, cert2).unwrap();
    let still = http.get(format!("{base}/healthz")).send().await;
    assert_eq!(still.map(|r| r.status().as_u16()).ok(), Some(200));
    // ...and the whole pair, of a new CA, serves a connection once the
    // failed pair's retry is due (at most 5 s on).
    std::fs::write(&key_file, key2).unwrap();
    let started = std::time::Instant::now();
    let mut renewed = Err(String::new());
    while started.elapsed() < Duration::from_secs(30) {
        renewed = client(&ca2)
            .get(format!("{base}/healthz"))
            .send()
            .await
            .map(|r| r.status().as_u16())
            .map_err(|e| format!("{e:?}"));
        if renewed.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(renewed.as_ref().ok(), Some(&200), "{renewed:?}");
    let old = http.get(format!("{base}/healthz")).send().await;
    assert!(old.is_err(), "the old CA still verifies: {old:?}");
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_tls_the_page_stays_on_this_machine() {
    let ip = network_address();
    let host = ip.to_string();
    let (_gw, port, stop) = remote_admin(None, &host).await;
    toolsearch_mcp::http_client::install_tls_provider();
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    // From the network: no shell, and the answer says how to reach it.
    let far = http
        .get(format!("http://{host}:{port}/"))
        .send()
        .await
        .unwrap();
    assert_eq!(far.status(), 404);
    let why = far.text().await.unwrap();
    assert!(why.contains("tls_cert") && why.contains("SSH"), "{why}");
    // The API is the token's, from anywhere it is allowed.
    let api = http
        .get(format!("http://{host}:{port}/api/servers"))
        .bearer_auth("admin-secret")
        .send()
        .await
        .unwrap();
    assert_eq!(api.status(), 200);
    // From this machine, the shell.
    let near = http
        .get(format!("http://127.0.0.1:{port}/"))
        .send()
        .await
        .unwrap();
    assert_eq!(near.status(), 200);
    stop.cancel();
}

#[test]
fn a_half_given_tls_identity_is_a_configuration_error() {
    let e = Config::parse(
        "[admin]\nlisten = \"127.0.0.1:0\"\ntoken_env = \"T\"\ntls_cert = \"c.pem\"\n",
    )
    .unwrap_err();
    assert!(e.message.contains("tls_key"), "{}", e.message);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tls_identity_that_does_not_load_stops_the_start() {
    let var = format!("TS_ADMIN_TLS_BAD_{}", std::process::id());
    std::env::set_var(&var, "admin-secret");
    let cert = temp_path("bad-cert.pem");
    std::fs::write(&cert, "not a certificate").unwrap();
    let key = cert.with_file_name("bad-key.pem");
    std::fs::write(&key, "not a key").unwrap();
    let head = format!(
        "mode = \"tools\"\nactivation = \"always\"\nsemantic = false\n\
         [admin]\nlisten = \"127.0.0.1:0\"\ntoken_env = \"{var}\"\ntls_cert = {cert:?}\ntls_key = {key:?}\n"
    );
    let Err(e) = crate::admin::serve_admin(&head).await else {
        panic!("the surface started on a TLS pair that does not load");
    };
    let e = e.to_string();
    assert!(e.contains("[admin] tls_cert"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium, node with puppeteer-core, python3 (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn over_tls_the_page_works_in_a_real_browser_from_the_network() {
    use crate::page::{drive, nothing_ran, passed, scripted, Killed, TOKEN};
    let host = network_address().to_string();
    // The browser trusts this certificate's key alone (not a CA).
    let (ca, cert, key) = crate::tls::private_ca_for(&[&host]);
    let cfg = temp_path("page-tls.toml");
    let (cert_file, key_file) = (cfg.with_file_name("c.pem"), cfg.with_file_name("k.pem"));
    std::fs::write(&cert_file, cert).unwrap();
    std::fs::write(&key_file, key).unwrap();
    let tools = serde_json::json!([{"name": "get_forecast", "description": "Weather forecast for a city",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}]);
    let var = format!("TS_PAGE_TLS_{}", std::process::id());
    std::fs::write(
        &cfg,
        format!(
            "semantic = false\n{}[admin]\nlisten = \"0.0.0.0:0\"\nremote = true\ntoken_env = \"{var}\"\n\
             allowed_hosts = [\"{host}\"]\ntls_cert = \"c.pem\"\ntls_key = \"k.pem\"\n",
            scripted("weather", &tools)
        ),
    )
    .unwrap();
    let mut cmd = std::process::Command::new(crate::common::binary());
    cmd.args(["gateway", "--http", "127.0.0.1:0", "--config"])
        .arg(&cfg)
        .env(&var, TOKEN);
    let (child, _, admin, _lines) = crate::common::spawn_http_gateway_with_admin(cmd);
    let _gw = Killed(child);
    let admin = admin.expect("the gateway printed its admin address");
    assert!(admin.starts_with("https://"), "{admin}");
    let port = admin.rsplit(':').next().unwrap();
    let url = format!("https://{host}:{port}");
    // The trial needs the server's tool in the catalog.
    let http = client(&ca);
    let mut listed = false;
    for _ in 0..1200 {
        let page = http
            .get(format!("{url}/api/catalog?limit=1"))
            .bearer_auth(TOKEN)
            .send()
            .await;
        if let Ok(r) = page {
            let v: serde_json::Value = r.json().await.unwrap_or_default();
            if v["total"].as_u64() >= Some(1) {
                listed = true;
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(listed, "the gateway's catalog never held the server's tool");
    let trust = cert_file.to_string_lossy().to_string();
    let report = tokio::task::spawn_blocking(move || {
        drive(&url, &["--scenario", "tls", "--trust-cert", &trust])
    })
    .await
    .unwrap();
    eprintln!("{report}");
    for step in ["open_without_token", "login", "servers", "dry_run"] {
        passed(&report, step);
    }
    nothing_ran(&report);
    assert_eq!(report["secure_context"], true, "{report}");
    assert_eq!(
        report["login"],
        serde_json::json!({"token_stored": true, "cookie_empty": true})
    );
    // The trial's POST carried the page's https Origin and was let in.
    let calls = report["dry_run"]["calls_rows"].as_u64().unwrap_or(0);
    assert!(calls >= 1, "{}", report["dry_run"]);
    assert!(
        report["dry_run"]["calls_text"]
            .to_string()
            .contains("get_forecast"),
        "{}",
        report["dry_run"]
    );
}
