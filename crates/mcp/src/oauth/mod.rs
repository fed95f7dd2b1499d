//! The gateway as an OAuth 2.1 client of the remote servers behind it (the
//! MCP authorization spec): `toolsearch oauth login` discovers the server's
//! authorization server, registers, runs the authorization code flow with
//! PKCE and a loopback redirect (`login.rs`), and keeps the tokens in one
//! file per server and owner ([`record`]); the gateway calls the server with
//! them, refreshing as rmcp's `AuthorizationManager` does
//! (`upstream/login.rs`).
//! Every request to an authorization server goes through [`net::Net`]:
//! bounded, `https` only (loopback `http` for tests), no redirect to another
//! origin.
//!
//! rmcp's `auth` module does discovery (RFC 9728, RFC 8414, OpenID), client
//! registration (pre-registered, Client ID Metadata Documents, RFC 7591),
//! PKCE, the `resource` indicator (RFC 8707), issuer checks (RFC 8414 §3.3,
//! RFC 9207) and refresh; rmcp patch 0008 adds the `token_type` check and the
//! resource a stored login restores.

pub mod login;
pub mod net;
pub mod record;

pub use login::{asks_for_login, login, logout, Done, LoginOptions};
pub use record::{status, LoginStatus, Owner};
