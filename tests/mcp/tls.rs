//! TLS both ways, through rustls with the `ring` provider: the gateway serves
//! HTTPS (`[http] tls_cert`/`tls_key`) and reads an `https://` source whose
//! certificate a private CA signed (`ca_file`); a source the gateway has no root
//! for fails closed. Certificates are made fresh by each run; ports are bound to 0.

use serde_json::json;

use crate::common::*;

/// A CA, and a certificate it signed for `localhost` and 127.0.0.1: (ca, cert, key) PEM.
pub fn private_ca() -> (String, String, String) {
    private_ca_for(&["localhost", "127.0.0.1"])
}

/// A CA, and a certificate it signed for `names` (DNS names or IP
/// addresses): (ca, cert, key) PEM.
pub fn private_ca_for(names: &[&str]) -> (String, String, String) {
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "toolsearch test CA");
    let ca = rcgen::CertifiedIssuer::self_signed(ca_params, rcgen::KeyPair::generate().unwrap())
        .unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let cert = rcgen::CertificateParams::new(names)
        .unwrap()
        .signed_by(&key, &ca)
        .unwrap();
    (ca.as_ref().pem(), cert.pem(), key.serialize_pem())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs node, the fixtures (`cargo xtask setup`) and the toolsearch binary; `cargo xtask test` runs it"]
async fn https_both_ways_with_a_private_ca_and_an_untrusted_source_failing_closed() {
    let (ca, cert, key) = private_ca();
    let ca_file = temp_path("ca.pem");
    std::fs::write(&ca_file, ca).unwrap();
    let dir = temp_path("inner.toml");
    std::fs::write(dir.with_file_name("cert.pem"), cert).unwrap();
    std::fs::write(dir.with_file_name("key.pem"), key).unwrap();
    // The inner gateway serves HTTPS in front of server-everything as a plain
    // aggregator (the outer one sees its tools); relative
    // paths are read from the config's folder.
    let everything = node_module("@modelcontextprotocol/server-everything/dist/index.js");
    std::fs::write(
        &dir,
        format!(
            "activation = \"never\"\n[http]\ntls_cert = \"cert.pem\"\ntls_key = \"key.pem\"\n\n[[servers]]\nname = \"everything\"\ncommand = \"node\"\nargs = [{everything:?}, \"stdio\"]\n"
        ),
    )
    .unwrap();
    let (mut inner, port) = http_gateway(&dir, &[]);
    let outer = temp_path("outer.toml");
    std::fs::write(
        &outer,
        format!(
            "activation = \"always\"\n\n[[servers]]\nname = \"trusted\"\nurl = \"https://localhost:{port}/mcp\"\nca_file = {ca_file:?}\n\n[[servers]]\nname = \"untrusted\"\nurl = \"https://127.0.0.1:{port}/mcp\"\n"
        ),
    )
    .unwrap();
    let gw = Gw::start(&outer).await;
    let out = gw
        .code(
            "const hits = await openclaw.tools.search('echo', {limit: 20});
             const r = await openclaw.tools.call('mcp:trusted:echo', {message: 'over tls'});
             let untrusted;
             try { await openclaw.tools.call('mcp:untrusted:echo', {message: 'x'}); untrusted = 'answered'; }
             catch (e) { untrusted = e.code; }
             return {ids: hits.map(h => h.id), r, untrusted};",
        )
        .await;
    let value = &out["value"];
    let ids: Vec<&str> = value["ids"]
        .as_array()
        .unwrap_or_else(|| panic!("{out}"))
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert!(ids.contains(&"mcp:trusted:echo"), "{out}");
    assert!(
        !ids.iter().any(|id| id.starts_with("mcp:untrusted:")),
        "{out}"
    );
    assert!(value["r"].to_string().contains("over tls"), "{out}");
    assert_ne!(value["untrusted"], json!("answered"), "{out}");
    let _ = gw.client.cancel().await;
    let _ = inner.kill();
    let _ = inner.wait();
}
