//! Approvals for clients without a session (MCP 2026-07-28): an approval is
//! an input-required round. The call that reaches a destructive tool stops
//! there (nothing of that tool ran) and answers `input_required`, asking the
//! user by a form; the client answers and sends the same call again with the
//! round's `requestState`.
//!
//! The state is sealed (rmcp's [`RequestStateCodec`]: HMAC-SHA256 with a time
//! to live), bound to the caller, its profile, the configuration in force and
//! the call (its tool and a digest of its arguments), and holds a nonce that
//! is redeemed once across every replica ([`crate::store`]). A forged state,
//! one of another caller, call or policy, an expired or a replayed one is
//! refused, and nothing runs.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{InputRequiredResult, RequestStateCodec, SealOptions};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolsearch_catalog::Tool;

use crate::config::ReplicasConfig;
use crate::store::Store;

/// How long a round may be answered.
pub(crate) const ROUND_TTL: Duration = Duration::from_secs(300);

/// The key of the question in `inputRequests`.
const ASKED: &str = "approve";

/// The keys rounds are sealed with.
pub(crate) struct Seals {
    codec: RequestStateCodec,
    /// The keys came from the environment (the replicas share them).
    shared: bool,
}

impl Seals {
    /// The keys named by `cfg.sealing_keys_env` (`id:hex,id:hex`, the first
    /// sealing), or, when it is unset, a key of this process's own.
    ///
    /// # Errors
    /// A key list that cannot be read or a key shorter than 32 bytes.
    pub(crate) fn of(cfg: &ReplicasConfig) -> anyhow::Result<Seals> {
        let var = &cfg.sealing_keys_env;
        let mut shared = false;
        let codec = match std::env::var(var).ok().filter(|v| !v.trim().is_empty()) {
            Some(list) => {
                let mut keys = Vec::new();
                for item in list.split(',').map(str::trim) {
                    let (id, hex) = item.split_once(':').ok_or_else(|| {
                        anyhow::anyhow!("`{var}`: each key is `id:hex`; one is not")
                    })?;
                    let key = unhex(hex)
                        .ok_or_else(|| anyhow::anyhow!("`{var}`: key `{id}` is not hexadecimal"))?;
                    keys.push((id.to_string(), key));
                }
                let current = keys[0].0.clone();
                shared = true;
                RequestStateCodec::new_with_keyring(current, keys)
                    .map_err(|e| anyhow::anyhow!("`{var}`: {e}"))?
            }
            None => {
                let mut key = vec![0u8; 32];
                ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut key)
                    .map_err(|_| anyhow::anyhow!("no randomness for a sealing key"))?;
                RequestStateCodec::new_with_keyring("process", [("process".to_string(), key)])
                    .map_err(|e| anyhow::anyhow!("{e}"))?
            }
        };
        Ok(Seals { codec, shared })
    }

    /// Whether the keys are shared (from the environment), not this
    /// process's own.
    pub(crate) fn shared(&self) -> bool {
        self.shared
    }

    /// The round asking for `wanted`, sealed to `bound`.
    pub(crate) fn ask(&self, wanted: &Wanted, bound: &Binding) -> InputRequiredResult {
        let sealed = Sealed {
            nonce: nonce(),
            tool: wanted.tool.clone(),
            args: wanted.args.clone(),
        };
        let payload = serde_json::to_vec(&sealed).unwrap_or_default();
        let state = self.codec.seal_with(
            &payload,
            &SealOptions::new()
                .associated_data(bound.0.as_bytes())
                .ttl(ROUND_TTL),
        );
        let question = serde_json::json!({
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": wanted.message,
                "requestedSchema": {
                    "type": "object",
                    "properties": {"confirm": {"type": "boolean", "title": "Run it"}},
                    "required": ["confirm"]
                }
            }
        });
        let mut result = InputRequiredResult::from_request_state(state);
        if let Ok(q) = serde_json::from_value(question) {
            result.input_requests = Some([(ASKED.to_string(), q)].into_iter().collect());
        }
        result
    }

    /// Opens a round the client answered: the grant it carries when the user
    /// approved; `Err` (said to the model; nothing runs) when the state is
    /// not one this gateway sealed for this caller, call and policy, expired,
    /// was redeemed already, cannot be known fresh (Redis unreachable), or
    /// the user declined.
    pub(crate) async fn redeem(
        &self,
        state: &str,
        answers: Option<&rmcp::model::InputResponses>,
        bound: &Binding,
        store: &Store,
    ) -> Result<Grant, String> {
        let again = "nothing ran; call again without `requestState` to be asked anew";
        let opened = self
            .codec
            .open_with(state, bound.0.as_bytes())
            .map_err(|e| {
                use rmcp::model::RequestStateError as E;
                let why = match e {
                    E::Expired => "it expired",
                    _ => "it was not sealed by this gateway for this caller, this call and the policy in force",
                };
                format!("the approval round was refused: {why}; {again}")
            })?;
        let sealed: Sealed = serde_json::from_slice(&opened).map_err(|_| {
            format!("the approval round was refused: its state is unreadable; {again}")
        })?;
        // Kept twice a round's life: a round is opened by the clock of
        // another replica than the one that sealed it.
        match store.redeem(&sealed.nonce, 2 * ROUND_TTL).await {
            Ok(true) => {}
            Ok(false) => {
                return Err(format!(
                    "the approval round was refused: it was answered already (a round is redeemed once); {again}"
                ))
            }
            Err(e) => {
                return Err(format!(
                    "the approval round was refused: whether it was answered already cannot be known (the shared store is unreachable: {}); nothing ran; try again shortly",
                    e.0
                ))
            }
        }
        let answer = answers.and_then(|a| a.get(ASKED));
        let accepted =
            answer.is_some_and(|a| a["action"] == "accept" && a["content"]["confirm"] == true);
        if !accepted {
            return Err(format!(
                "the call to `{}` was not approved: the user did not approve it; nothing ran",
                sealed.tool
            ));
        }
        Ok(Grant {
            tool: sealed.tool,
            args: sealed.args,
        })
    }
}

/// What a round is bound to: the caller, its profile, the configuration in
/// force and the call as the client made it.
pub(crate) struct Binding(String);

impl Binding {
    pub(crate) fn new(
        principal: &str,
        profile: &str,
        config: &str,
        name: &str,
        args: &Value,
    ) -> Binding {
        Binding(format!(
            "{principal}\n{profile}\n{config}\n{name}\n{}",
            digest(args)
        ))
    }
}

/// What the state carries (signed, readable: no secret in it).
#[derive(Serialize, Deserialize)]
struct Sealed {
    #[serde(rename = "n")]
    nonce: String,
    #[serde(rename = "t")]
    tool: String,
    #[serde(rename = "a")]
    args: String,
}

/// An approval the user gave in a round: one tool with one set of arguments.
pub(crate) struct Grant {
    tool: String,
    args: String,
}

/// What a call needs approved.
pub(crate) struct Wanted {
    tool: String,
    args: String,
    message: String,
}

/// One stateless call's approvals: the grant it brought back, if any, and
/// the round it needs. The call stops (`stop`) where a round is needed.
pub(crate) struct Round {
    grant: Mutex<Option<(Grant, bool)>>,
    wanted: Mutex<Option<Wanted>>,
    stop: tokio_util::sync::CancellationToken,
}

impl Round {
    pub(crate) fn new(
        grant: Option<Grant>,
        stop: tokio_util::sync::CancellationToken,
    ) -> Arc<Round> {
        Arc::new(Round {
            grant: Mutex::new(grant.map(|g| (g, false))),
            wanted: Mutex::new(None),
            stop,
        })
    }

    /// The round this call needs, once it stopped for one.
    pub(crate) fn wanted(&self) -> Option<Wanted> {
        self.wanted.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    /// Approves `tool` with `args` when the grant brought back is for them
    /// and unused; else stops the call for a round (the first approval it
    /// needs), or refuses a second one (a call answers one round: a snippet
    /// runs again from its start once it is answered, and a destructive call
    /// it ran before must not run twice).
    pub(crate) fn approve(&self, tool: &Tool, args: &Value) -> Result<(), String> {
        let digest = digest(args);
        let mut grant = self.grant.lock().unwrap_or_else(|p| p.into_inner());
        match &mut *grant {
            Some((g, used @ false)) if g.tool == tool.id && g.args == digest => {
                *used = true;
                return Ok(());
            }
            Some((_, true)) => {
                return Err(format!(
                    "it is destructive and this call was approved for one destructive call already: a client without a session (MCP 2026-07-28) approves one per call; call `{}` in a call of its own",
                    tool.id
                ))
            }
            Some(_) => {
                return Err(format!(
                    "it is destructive and the approval this call carries is for another call (another tool or other arguments); call `{}` again without `requestState` to be asked for it",
                    tool.id
                ))
            }
            None => {}
        }
        drop(grant);
        let mut wanted = self.wanted.lock().unwrap_or_else(|p| p.into_inner());
        if wanted.is_some() {
            // The call is stopping for the first one it reached (a snippet
            // that went on before its stop): that one is asked, never this.
            return Err("the call is stopping for another approval".into());
        }
        let args_shown = crate::text::clean_for_log(&args.to_string(), 400);
        *wanted = Some(Wanted {
            tool: tool.id.clone(),
            args: digest,
            message: format!(
                "Allow the destructive tool `{}` to run with {args_shown}?",
                tool.id
            ),
        });
        drop(wanted);
        self.stop.cancel();
        Err("its approval is being asked of the user (an input-required round)".into())
    }
}

/// A digest of arguments, independent of their keys' order.
fn digest(args: &Value) -> String {
    use sha2::Digest;
    let bytes = serde_json::to_vec(&toolsearch::canonical(args)).unwrap_or_default();
    let d = sha2::Sha256::digest(&bytes);
    crate::text::hex(&d)
}

/// 16 random bytes, hex.
fn nonce() -> String {
    let mut n = [0u8; 16];
    // The system's randomness failing leaves zeros: every round then shares
    // one nonce, and only the first is ever redeemed (closed, not open).
    let _ = ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut n);
    crate::text::hex(&n)
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}
