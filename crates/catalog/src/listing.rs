//! Browse listings for an empty query, a query with no match, and `server:NAME`.
//!
//! A listing never dumps the whole catalog: it names tools while they fit a byte budget,
//! then falls back to server names with tool counts, and pages one server's tools.
//! Entries are sorted so the same catalog always gives the same bytes.

use crate::tool::Tool;
use crate::Catalog;
use serde::Serialize;
use std::collections::BTreeMap;

/// Default byte budget of an overview listing.
pub const DEFAULT_LISTING_BYTES: usize = 2048;
/// Label for tools that belong to no server.
pub const NO_SERVER: &str = "(none)";

/// What a listing holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ListingKind {
    /// Tool names (the whole visible catalog fits the budget).
    Tools,
    /// Server names with tool counts.
    Servers,
    /// One page of one server's tools: the search's hits are the tools.
    ServerTools,
}

/// A tool in a listing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListedTool {
    /// Tool name.
    pub name: String,
    /// One-line description (server pages only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A server and how many visible tools it has.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerCount {
    /// Server name, or `(none)`.
    pub server: String,
    /// Visible tools on it.
    pub tools: usize,
}

/// A compact view of the catalog to browse.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Listing {
    /// What the listing holds.
    pub kind: ListingKind,
    /// Visible tools in the catalog (or on the server, for a server page).
    pub total_tools: usize,
    /// Tool entries.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ListedTool>,
    /// Server entries.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub servers: Vec<ServerCount>,
    /// The server of a server page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// 1-based page of a server listing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<usize>,
    /// Pages in a server listing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<usize>,
    /// Entries left out to stay within the budget.
    #[serde(skip_serializing_if = "is_zero")]
    pub omitted: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn server_counts(catalog: &Catalog, allow: &dyn Fn(&Tool) -> bool) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for t in catalog.tools().iter().filter(|t| allow(t)) {
        *counts
            .entry(t.server.clone().unwrap_or_else(|| NO_SERVER.into()))
            .or_insert(0) += 1;
    }
    counts
}

/// Tool names while they fit `budget` bytes, else servers with counts.
pub fn overview(catalog: &Catalog, budget: usize, allow: &dyn Fn(&Tool) -> bool) -> Listing {
    let mut names: Vec<&str> = catalog
        .tools()
        .iter()
        .filter(|t| allow(t))
        .map(|t| t.name.as_str())
        .collect();
    names.sort_unstable();
    let total = names.len();
    // JSON overhead per entry: quotes, braces, key and comma.
    let tool_bytes: usize = names.iter().map(|n| n.len() + 12).sum();
    let mut listing = Listing {
        kind: ListingKind::Tools,
        total_tools: total,
        tools: Vec::new(),
        servers: Vec::new(),
        server: None,
        page: None,
        pages: None,
        omitted: 0,
    };
    if tool_bytes <= budget {
        listing.tools = names
            .into_iter()
            .map(|n| ListedTool {
                name: n.to_string(),
                description: None,
            })
            .collect();
        return listing;
    }
    listing.kind = ListingKind::Servers;
    let mut used = 0;
    for (server, tools) in server_counts(catalog, allow) {
        let cost = server.len() + 26;
        if used + cost > budget {
            listing.omitted += 1;
            continue;
        }
        used += cost;
        listing.servers.push(ServerCount { server, tools });
    }
    listing
}

/// One page of `page_size` tools of `server` (matched case-insensitively; `(none)`
/// for tools without a server), sorted by name: the page's listing (its server,
/// page and pages; the tools themselves are the search's hits) and the tools'
/// positions in [`Catalog::tools`]. An unknown server gives an overview of
/// servers instead, and no positions.
pub fn server_page(
    catalog: &Catalog,
    server: &str,
    page: usize,
    page_size: usize,
    allow: &dyn Fn(&Tool) -> bool,
) -> (Listing, Vec<usize>) {
    let wanted = server.to_lowercase();
    let mut tools: Vec<(usize, &Tool)> = catalog
        .tools()
        .iter()
        .enumerate()
        .filter(|(_, t)| allow(t))
        .filter(|(_, t)| t.server.as_deref().unwrap_or(NO_SERVER).to_lowercase() == wanted)
        .collect();
    if tools.is_empty() {
        let mut listing = overview(catalog, DEFAULT_LISTING_BYTES, allow);
        if listing.kind == ListingKind::Tools {
            // Small catalogs list tools; a server query still deserves the server view.
            listing.kind = ListingKind::Servers;
            listing.tools.clear();
            listing.servers = server_counts(catalog, allow)
                .into_iter()
                .map(|(server, tools)| ServerCount { server, tools })
                .collect();
        }
        return (listing, Vec::new());
    }
    tools.sort_by(|a, b| a.1.name.cmp(&b.1.name));
    let page_size = page_size.max(1);
    let pages = tools.len().div_ceil(page_size);
    let page = page.clamp(1, pages);
    let positions = tools
        .iter()
        .skip((page - 1) * page_size)
        .take(page_size)
        .map(|(i, _)| *i)
        .collect();
    let listing = Listing {
        kind: ListingKind::ServerTools,
        total_tools: tools.len(),
        tools: Vec::new(),
        servers: Vec::new(),
        server: tools[0].1.server.clone().or_else(|| Some(NO_SERVER.into())),
        page: Some(page),
        pages: Some(pages),
        omitted: 0,
    };
    (listing, positions)
}
