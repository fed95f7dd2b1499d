//! A configuration applied: the profiles' facades built from it (at start,
//! and again for each new configuration a reload brings), the rules every
//! downstream call is checked against at the moment it runs, and
//! [`Gateway::apply`], which puts a new configuration in force without a
//! restart.

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, RwLock};

use toolsearch::{BeforeCall, Policy, ToolSearch};
use toolsearch_catalog::{Catalog, Tool};

use super::profile::{self, Profile};
use super::{approve, Gateway};
use crate::config::{Config, Destructive, ProfileConfig};
use crate::upstream::{Fleet, FleetChanges};

/// What the configuration in force allows: the gateway's policy and each
/// profile's view. Every facade's before-call hook reads it when a call is
/// about to run, so a call made after a new configuration (a later call of a
/// snippet that started before it, too) meets the new rules.
#[derive(Default)]
pub(crate) struct Rules {
    policy: Policy,
    profiles: HashMap<String, (ProfileConfig, Policy)>,
}

impl Rules {
    pub(crate) fn of(cfg: &Config) -> Rules {
        Rules {
            policy: Policy::from_patterns(&cfg.policy.allow, &cfg.policy.deny),
            profiles: cfg
                .profiles()
                .into_iter()
                .map(|p| {
                    let narrow = Policy::from_patterns(&p.allow, &p.deny);
                    (p.name().to_string(), (p, narrow))
                })
                .collect(),
        }
    }

    /// Why `profile` may not call `tool` now; `None` when it may.
    fn refuses(&self, profile: &str, tool: &Tool) -> Option<String> {
        let Some((cfg, narrow)) = self.profiles.get(profile) else {
            return Some(format!(
                "profile `{profile}` was removed from the gateway's configuration"
            ));
        };
        (!self.policy.allows(tool) || !Profile::sees(cfg, narrow, tool)).then(|| {
            "the gateway's configuration no longer allows it (it changed while this ran)".into()
        })
    }
}

/// The rules in force, shared by every facade's hook and swapped whole.
pub(crate) type SharedRules = Arc<RwLock<Arc<Rules>>>;

/// The before-call hook of `profile`'s facade: the rules in force now decide.
fn hook(profile: &str, rules: &SharedRules) -> BeforeCall {
    let (profile, rules) = (profile.to_string(), rules.clone());
    Arc::new(move |tool, _args, _cx| {
        let now = rules.read().unwrap_or_else(|p| p.into_inner()).clone();
        now.refuses(&profile, tool).map_or(Ok(()), Err)
    })
}

/// What a profile's facade is made from, beside its part of the catalog:
/// equal recipes mean the facade in force can stay.
fn recipe(cfg: &Config, p: &ProfileConfig) -> String {
    let mut whole = cfg.effective();
    if let Some(m) = whole.as_object_mut() {
        for key in ["servers", "profiles", "http", "auth", "admin"] {
            m.remove(key);
        }
    }
    // What only the front door reads (credentials, budgets) is not the
    // facade's: changing it keeps the facade and its sessions' state.
    let mut own = p.effective(&cfg.http);
    if let Some(m) = own.as_object_mut() {
        for key in [
            "token_env",
            "token_file",
            "claim",
            "scope",
            "rate_limit_per_minute",
            "max_sessions",
            "max_concurrent_snippets",
        ] {
            m.remove(key);
        }
    }
    // Whose OAuth logins it may use decides what it sees.
    format!("{own}|{:?}|{whole}", p.no_login)
}

/// What every profile's facade shares.
pub(crate) struct Shared {
    pub(crate) fleet: Arc<Fleet>,
    pub(crate) pool: Option<toolsearch_sandbox::Pool>,
    pub(crate) embedder: Option<Arc<toolsearch::Embedder>>,
    pub(crate) rules: SharedRules,
    /// Tools are expected (see [`toolsearch::Pending`]): set at start while a
    /// server with no manifest is in its first start, kept for the gateway's
    /// life when the first list goes without some servers' tools, dropped
    /// when it has them all.
    pub(crate) pending: Arc<std::sync::atomic::AtomicBool>,
    /// The operator page's trials: their calls are recorded (and, in a dry
    /// run, not made) by the dispatcher every facade calls.
    pub(crate) trials: Arc<super::trial::Trials>,
    /// Calls sent to each server (`None`: metrics are off).
    pub(crate) sent: Option<super::metrics::Sent>,
}

impl Shared {
    /// The facade of profile `p` of `cfg`, over its part of `full`.
    pub(crate) fn profile(
        &self,
        cfg: &Config,
        p: ProfileConfig,
        full: &Catalog,
        open: Option<&Arc<AtomicU64>>,
    ) -> anyhow::Result<Arc<Profile>> {
        let settings = cfg.profile_settings(&p);
        let code = settings.mode != toolsearch::Mode::Tools;
        let part = Profile::narrowed(&p, full);
        let seen: profile::Seen = Arc::new(RwLock::new(profile::servers_of(&part)));
        let mut builder = ToolSearch::builder()
            .settings(settings)
            .catalog(part)
            .policy(Policy::from_patterns(&cfg.policy.allow, &cfg.policy.deny))
            .dispatcher(super::trial::Recorded::over(
                crate::forward::Forward::to_fleet(&self.fleet),
                self.trials.clone(),
                self.sent.clone(),
            ))
            .availability(self.fleet.availability())
            .outages(Profile::outages(&p, self.fleet.outages(), seen.clone()))
            .pending({
                let pending = self.pending.clone();
                Arc::new(move || pending.load(std::sync::atomic::Ordering::Relaxed))
            })
            .call_timeout(cfg.call_timeout())
            .approval_timeout(cfg.approval_timeout())
            .approve_destructive(cfg.destructive != Destructive::Allow)
            .before_call(hook(p.name(), &self.rules));
        if let Some(pool) = self.pool.as_ref().filter(|_| code) {
            builder = builder.sandbox(pool.clone());
        }
        if let Some(embedder) = &self.embedder {
            builder = builder.semantic(embedder.clone(), toolsearch_embed::default_cache_dir());
        }
        if cfg.destructive == Destructive::Elicit {
            builder = builder.approver(Arc::new(approve::Elicit));
        }
        let recipe = recipe(cfg, &p);
        let mut made = Profile::new(
            p,
            Arc::new(builder.build()?),
            seen,
            recipe,
            cfg.telemetry.metrics(),
        );
        if let Some(open) = open {
            made = made.counting_on(open.clone());
        }
        Ok(Arc::new(made))
    }
}

/// What [`Gateway::apply`] changed.
#[derive(Debug, Default, serde::Serialize)]
pub struct Applied {
    /// The servers started, retired and restarted.
    pub servers: FleetChanges,
    /// Profiles served now that were not.
    pub profiles_added: Vec<String>,
    /// Profiles no longer served: their sessions' next requests are refused.
    pub profiles_removed: Vec<String>,
    /// Profiles whose facade was made again (their settings, policy or view
    /// changed): their sessions move to it with their next request.
    pub profiles_rebuilt: Vec<String>,
}

/// The profiles of a new configuration (those whose recipe is the same
/// kept), the ones made for it, and what changed.
type Made = (Vec<Arc<Profile>>, Vec<Arc<Profile>>, Applied);

impl Gateway {
    /// The profiles `cfg` asks for, given the ones in force (`now`).
    fn made_for(&self, cfg: &Config, now: &[Arc<Profile>]) -> anyhow::Result<Made> {
        let full = self.fleet.snapshot(&self.extra);
        let mut next = Vec::new();
        let mut applied = Applied::default();
        let mut rebuilt = Vec::new();
        for p in cfg.profiles() {
            let kept = now
                .iter()
                .find(|q| q.name() == p.name())
                .filter(|q| q.recipe == recipe(cfg, &p));
            match kept {
                Some(q) => next.push(q.clone()),
                None => {
                    let name = p.name().to_string();
                    let before = now.iter().find(|q| q.name() == name);
                    if before.is_some() {
                        applied.profiles_rebuilt.push(name);
                    } else {
                        applied.profiles_added.push(name);
                    }
                    let built = self
                        .shared
                        .profile(cfg, p, &full, before.map(|q| &q.open))?;
                    rebuilt.push(built.clone());
                    next.push(built);
                }
            }
        }
        applied.profiles_removed = now
            .iter()
            .filter(|q| !next.iter().any(|n| n.name() == q.name()))
            .map(|q| q.name().to_string())
            .collect();
        Ok((next, rebuilt, applied))
    }

    /// Puts `cfg` in force: its servers (see [`Fleet::apply`]: added ones
    /// start, removed ones stop taking calls and are stopped once their calls
    /// in flight end, at most the call timeout later, changed ones restart),
    /// its profiles and policy (a facade is made again for each profile
    /// whose settings changed; every call from now on, a running snippet's
    /// too, is checked against the new rules) and its snippet caps. Settings
    /// that need a restart are the caller's to refuse first (see
    /// [`crate::config::needs_restart`]).
    ///
    /// # Errors
    /// A profile's facade that cannot be built (nothing is changed then).
    pub async fn apply(self: &Arc<Self>, cfg: &Config) -> anyhow::Result<Applied> {
        cfg.settings().validate()?;
        for p in &cfg.profiles() {
            cfg.profile_settings(p).validate()?;
        }
        let _one = self.applying.lock().await;
        let now = self.profiles();
        // Made off the runtime: a snapshot and a facade (its index, its
        // embeddings) take CPU seconds for a large catalog.
        let (gw, next_cfg, current) = (self.clone(), cfg.clone(), now.clone());
        let (next, rebuilt, mut applied) =
            tokio::task::spawn_blocking(move || gw.made_for(&next_cfg, &current))
                .await
                .map_err(|_| anyhow::anyhow!("building the new profiles panicked"))??;
        // Nothing failed: the new configuration goes in force.
        *self.shared.rules.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(Rules::of(cfg));
        *self
            .config_digest
            .write()
            .unwrap_or_else(|p| p.into_inner()) = cfg.digest();
        let max = cfg.http.max_concurrent_snippets();
        self.snippets.set_caps(
            next.iter()
                .map(|p| (p.name().to_string(), p.cfg.max_snippets(max)))
                .collect(),
            cfg.reachable_profiles(),
        );
        *self.profiles.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(next);
        self.metrics.configure(
            &cfg.servers
                .iter()
                .map(|s| s.name().to_string())
                .collect::<Vec<_>>(),
            &self.profile_names(),
        );
        for p in &rebuilt {
            let old = now.iter().find(|q| q.name() == p.name());
            let before = match old {
                Some(q) => q.last_announced().await,
                None => None,
            };
            self.follow_profile(p).await;
            if before.is_some() && p.last_announced().await != before {
                self.served_changed(p.name(), super::Cause::Reload, "the configuration")
                    .await;
            } else if let Some(q) = old.filter(|_| before.is_some()) {
                // The same bytes: the list keeps its age. (Not atomic with a
                // rebuild racing this reload: at worst one list that just
                // changed is said to have stood as long as the old one.)
                p.unchanged_since(q.changed_at());
            }
        }
        applied.servers = self.fleet.apply(cfg, cfg.call_timeout());
        // One snapshot after it all: servers that came up while the facades
        // were built, and a lazy server added with its manifest, are in it.
        self.fleet.resnapshot("(new configuration)");
        Ok(applied)
    }

    /// Starts following a profile's code mode, after its first list.
    pub(crate) async fn follow_profile(self: &Arc<Self>, p: &Arc<Profile>) {
        let ts = p.ts.clone();
        if let Ok(Err(reason)) = tokio::task::spawn_blocking(move || ts.probe_code_mode()).await {
            tracing::warn!(profile = p.name(), %reason, "code mode unavailable; serving the structured tools");
        }
        p.list_changed(&self.snapshots).await;
        let code_mode = p.ts.code_mode_changes();
        tokio::spawn(Self::follow_code_mode(
            Arc::downgrade(self),
            Arc::downgrade(p),
            code_mode,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_in_force_refuse_a_removed_profile_and_a_denied_tool() {
        let cfg = Config::parse(
            "[policy]\ndeny = [\"*delete*\"]\n[[profiles]]\nname = \"ro\"\ndeny = [\"*write*\"]\n",
        )
        .unwrap();
        let rules = Rules::of(&cfg);
        let tool = |name: &str| {
            Tool::new(
                toolsearch_catalog::Source::Mcp,
                Some("s"),
                name,
                "does a thing",
                serde_json::json!({"type": "object"}),
            )
        };
        assert_eq!(rules.refuses("ro", &tool("read")), None);
        assert!(rules.refuses("ro", &tool("write")).is_some());
        assert!(rules.refuses("default", &tool("delete")).is_some());
        assert_eq!(rules.refuses("default", &tool("write")), None);
        let gone = rules.refuses("gone", &tool("read")).unwrap();
        assert!(gone.contains("`gone` was removed"), "{gone}");
    }
}
