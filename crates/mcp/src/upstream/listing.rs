//! Listing a server's tools: every page, within bounds (pages, tools, bytes)
//! and never in a loop; past a bound the listing fails whole, with the reason.

use rmcp::service::{Peer, RoleClient};
use serde_json::Value;

/// Most pages of one `tools/list` the gateway reads.
pub const MAX_LIST_PAGES: usize = 100;
/// Most tools one `tools/list` may hold.
pub const MAX_LISTED_TOOLS: usize = 100_000;
/// Most bytes (as JSON) the tools of one `tools/list` may take.
pub const MAX_LISTED_BYTES: usize = 64 << 20;

/// Every tool the server lists, all pages, within [`MAX_LIST_PAGES`],
/// [`MAX_LISTED_TOOLS`] and [`MAX_LISTED_BYTES`]; a cursor seen before ends
/// the listing as an error too (a loop). Past a bound the listing fails whole:
/// a partial list would serve tools the server may no longer have.
pub(crate) async fn list_tools(peer: &Peer<RoleClient>) -> anyhow::Result<Vec<Value>> {
    let mut tools = Vec::new();
    let mut bytes = 0usize;
    let mut cursor: Option<String> = None;
    let mut cursors = std::collections::HashSet::new();
    for _ in 0..MAX_LIST_PAGES {
        let params = rmcp::model::PaginatedRequestParams::default().with_cursor(cursor.take());
        let page = peer.list_tools(Some(params)).await?;
        for t in page.tools {
            let v = serde_json::to_value(t)?;
            bytes += serde_json::to_vec(&v).map_or(0, |b| b.len());
            tools.push(v);
        }
        if tools.len() > MAX_LISTED_TOOLS {
            anyhow::bail!("it lists more than {MAX_LISTED_TOOLS} tools (the most the gateway takes from one server)");
        }
        if bytes > MAX_LISTED_BYTES {
            anyhow::bail!(
                "its tools take more than {} MiB as JSON (the most the gateway takes from one server)",
                MAX_LISTED_BYTES >> 20
            );
        }
        match page.next_cursor {
            None => return Ok(tools),
            Some(next) => {
                if !cursors.insert(next.clone()) {
                    anyhow::bail!(
                        "its tools/list pagination loops (cursor `{}` came twice)",
                        crate::text::clean_for_log(&next, 80)
                    );
                }
                cursor = Some(next);
            }
        }
    }
    anyhow::bail!("its tools/list goes on past {MAX_LIST_PAGES} pages (the most the gateway reads)")
}
