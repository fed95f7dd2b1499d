//! Finding and downloading one file of a project on a PEP 503 ("simple") package
//! index: PyPI's by default, or the one a user's pip is set to use.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use reqwest::Url;

/// Downloads `file` of `project` from the index at `index` into `into` (at most
/// `max` bytes), printing progress on stderr.
pub fn download(index: &str, project: &str, file: &str, into: &Path, max: u64) -> Result<()> {
    toolsearch_mcp::http_client::install_tls_provider();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(30))
            .read_timeout(Duration::from_secs(60))
            .user_agent(concat!("toolsearch/", env!("CARGO_PKG_VERSION")))
            .build()?;
        let mut base = index.trim().to_owned();
        if !base.ends_with('/') {
            base.push('/');
        }
        let page_url = Url::parse(&base)
            .and_then(|u| u.join(&format!("{project}/")))
            .with_context(|| format!("--index-url `{}` is not a URL", shown(index)))?;
        let page = get(&client, &page_url).await?;
        let page = page
            .text()
            .await
            .with_context(|| format!("reading {}", shown(page_url.as_str())))?;
        let href = find_link(&page, file).with_context(|| {
            format!(
                "the index page {} lists no {file}: is it a PEP 503 index that mirrors PyPI?",
                shown(page_url.as_str())
            )
        })?;
        let url = page_url
            .join(&href)
            .with_context(|| format!("the index's link to {file} is not a URL"))?;
        eprintln!(
            "toolsearch: downloading {file} from {}",
            shown(url.as_str())
        );
        let mut resp = get(&client, &url).await?;
        let mut out =
            std::fs::File::create(into).with_context(|| format!("creating {}", into.display()))?;
        let total = resp.content_length();
        let (mut got, mut shown_mb) = (0u64, 0u64);
        while let Some(chunk) = resp
            .chunk()
            .await
            .with_context(|| format!("downloading {}", shown(url.as_str())))?
        {
            got += chunk.len() as u64;
            if got > max {
                bail!(
                    "{file} is larger than {} MB: not the pinned wheel",
                    max / 1_000_000
                );
            }
            out.write_all(&chunk)
                .with_context(|| format!("writing {}", into.display()))?;
            if got >> 24 > shown_mb {
                shown_mb = got >> 24;
                match total {
                    Some(t) => eprintln!("toolsearch: {} of {} MB", got / 1_000_000, t / 1_000_000),
                    None => eprintln!("toolsearch: {} MB", got / 1_000_000),
                }
            }
        }
        out.sync_all()?;
        Ok(())
    })
}

/// A GET that fails on any status but 200.
async fn get(client: &reqwest::Client, url: &Url) -> Result<reqwest::Response> {
    let resp = client
        .get(url.clone())
        .header("Accept", "text/html")
        .send()
        .await
        .with_context(|| format!("GET {}", shown(url.as_str())))?;
    if resp.status() != reqwest::StatusCode::OK {
        bail!("GET {}: {}", shown(url.as_str()), resp.status());
    }
    Ok(resp)
}

/// A URL as it may be shown: credentials and query redacted.
fn shown(url: &str) -> String {
    toolsearch_mcp::text::redact_urls(url).into_owned()
}

/// The `href` of the anchor whose text (or whose link's last path segment) is
/// `file`, with `&amp;` unescaped.
fn find_link(page: &str, file: &str) -> Option<String> {
    page.split("<a ").skip(1).find_map(|tag| {
        let (attrs, rest) = tag.split_once('>')?;
        let text = rest.split("</a>").next()?.trim();
        let start = attrs.find("href=")? + 5;
        let quote = attrs[start..].chars().next()?;
        if quote != '"' && quote != '\'' {
            return None;
        }
        let value = &attrs[start + 1..];
        let href = value[..value.find(quote)?].replace("&amp;", "&");
        let last = href.split(['#', '?']).next()?.rsplit('/').next()?;
        (text == file || last == file).then_some(href)
    })
}

#[cfg(test)]
mod tests {
    use super::find_link;

    #[test]
    fn links_are_found_by_text_or_file_name() {
        let page = r#"<html><body><h1>Links</h1>
            <a href="../../packages/aa/x-0.0.9-py3-none-any.whl#sha256=00">x-0.0.9-py3-none-any.whl</a><br/>
            <a data-requires-python="&gt;=3.8" href='https://files.example/x-0.1.0-py3-none-any.whl#sha256=ab&amp;q'>x-0.1.0-py3-none-any.whl</a>
            <a href="x-0.2.0.tar.gz">other</a></body></html>"#;
        assert_eq!(
            find_link(page, "x-0.1.0-py3-none-any.whl").as_deref(),
            Some("https://files.example/x-0.1.0-py3-none-any.whl#sha256=ab&q")
        );
        assert_eq!(
            find_link(page, "x-0.2.0.tar.gz").as_deref(),
            Some("x-0.2.0.tar.gz")
        );
        assert_eq!(find_link(page, "x-9.whl"), None);
        assert_eq!(find_link("<a href=x-1.whl>x-1.whl</a>", "x-1.whl"), None);
    }
}
