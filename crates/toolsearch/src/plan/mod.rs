//! The plan of one turn for one scope: which tools the scope sees, which are
//! sent in full and under which provider names, whether deferral is on
//! (`activation.rs`) and in which shape ([`shape`]). Plans are kept per catalog
//! generation and policy ([`Cache`]), shared by the conversations that see the
//! same tools; every list and every call of the model reads that one plan.

pub(crate) mod activation;
pub mod names;

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock};

use toolsearch_catalog::{Deferrable, Tool};

use crate::host::{Host, PlanCounts, Scope};
use crate::policy::Policy;
use crate::settings::modes::{Activation, Mode};
use crate::settings::Settings;
use crate::vocab::{Fallback, Provider, Shape};

/// What [`build`] decided for one scope.
pub(crate) struct Plan {
    /// Every tool the scope sees.
    pub(crate) visible: Vec<Tool>,
    /// How many of them are deferrable.
    pub(crate) deferrable: usize,
    /// Indexes into `visible` of the tools sent in full up front, in order.
    pub(crate) direct: Vec<usize>,
    /// Their provider names (same order as `direct`).
    pub(crate) names: Vec<String>,
    pub(crate) active: bool,
    pub(crate) reason: String,
    pub(crate) tokens: usize,
    pub(crate) share: Option<f64>,
    /// Provider names of every visible tool, made on first use.
    all_names: OnceLock<Vec<String>>,
    /// The host's counts of plans and names made.
    counts: Arc<PlanCounts>,
    /// Bytes of every visible tool's full definition, per provider, made on
    /// first use (what direct exposure would send).
    direct_bytes: std::sync::Mutex<Vec<(Provider, usize)>>,
}

impl Plan {
    /// Indexes into `visible` of the deferred tools, in order.
    pub(crate) fn deferred(&self) -> Vec<usize> {
        let direct: std::collections::HashSet<usize> = self.direct.iter().copied().collect();
        (0..self.visible.len())
            .filter(|i| !direct.contains(i))
            .collect()
    }

    /// Provider names of every visible tool (index-aligned with `visible`): the names
    /// of reveal and native modes, where deferred tools are called by name too.
    /// Made once per plan.
    pub(crate) fn all_names(&self) -> &[String] {
        self.all_names.get_or_init(|| {
            self.counts.names.fetch_add(1, Ordering::Relaxed);
            let refs: Vec<&Tool> = self.visible.iter().collect();
            names::provider_names(&refs)
        })
    }

    /// Bytes of every visible tool's full definition for `provider`: what direct
    /// exposure of the same tools would send. Rendered once per plan and provider.
    /// `measure` renders them the first time.
    pub(crate) fn direct_bytes(
        &self,
        provider: Provider,
        measure: impl FnOnce() -> usize,
    ) -> usize {
        let mut known = self.direct_bytes.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(&(_, bytes)) = known.iter().find(|(p, _)| *p == provider) {
            return bytes;
        }
        let bytes = measure();
        known.push((provider, bytes));
        bytes
    }

    /// The index in `visible` of the tool with id `id`.
    pub(crate) fn position(&self, id: &str) -> Option<usize> {
        self.visible.iter().position(|t| t.id == id)
    }
}

/// Most plans kept at once (distinct policies of the current generation, and
/// the generation before while conversations move on).
pub(crate) const PLANS_KEPT: usize = 8;

/// The plans made for this catalog generation, one per policy (a caller's
/// scope): a plan holds every tool its scope sees, so conversations that see
/// the same tools share one instead of each keeping a copy. Bounded
/// ([`PLANS_KEPT`], oldest first out).
#[derive(Default)]
pub(crate) struct Cache {
    kept: Mutex<VecDeque<Kept>>,
}

/// A kept plan and what it was made for.
struct Kept {
    generation: u64,
    policy: Policy,
    plan: Arc<Plan>,
}

impl Cache {
    /// The plan for `scope`: the one kept for this catalog generation and
    /// policy, else a new one (kept in turn). A scope with client tools (an
    /// overlay for one run) gets a new plan each time.
    pub(crate) fn plan(&self, host: &Host, settings: &Settings, scope: &Scope) -> Arc<Plan> {
        if scope.client.is_some() {
            return Arc::new(build(host, settings, scope));
        }
        let generation = host.generation();
        let kept_plan = |kept: &VecDeque<Kept>| {
            kept.iter()
                .find(|k| k.generation == generation && k.policy == scope.policy)
                .map(|k| k.plan.clone())
        };
        if let Some(plan) = kept_plan(&self.lock()) {
            return plan;
        }
        // Built outside the lock (it serialises every schema once); two
        // conversations asking at once may both build it, and one is kept.
        let plan = Arc::new(build(host, settings, scope));
        let mut kept = self.lock();
        if let Some(plan) = kept_plan(&kept) {
            return plan;
        }
        kept.retain(|k| k.generation + 1 >= generation);
        if kept.len() >= PLANS_KEPT {
            kept.pop_front();
        }
        kept.push_back(Kept {
            generation,
            policy: scope.policy.clone(),
            plan: plan.clone(),
        });
        plan
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Kept>> {
        self.kept.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// True when `tool` is always sent in full: its own policy says never, a
/// `never_defer` entry names it, or it is built in and built-ins are not deferred
/// (unless the tool itself says `Deferrable::Always`).
pub(crate) fn never_deferred(settings: &Settings, tool: &Tool) -> bool {
    tool.deferrable == Deferrable::Never
        || settings
            .never_defer
            .iter()
            .any(|n| n == &tool.name || n == &tool.id || Some(n) == tool.native_name.as_ref())
        || (tool.source == toolsearch_catalog::Source::Builtin
            && !settings.defer_builtins
            && tool.deferrable != Deferrable::Always)
}

/// Which tools are deferred for this scope, and why: what the definitions send
/// and what a direct call is routed by come from this one plan. The token
/// estimate (every deferrable schema serialised) is always made: a plan is
/// built once per catalog generation and conversation, and the definitions
/// report it.
pub(crate) fn build(host: &Host, settings: &Settings, scope: &Scope) -> Plan {
    host.plan_counts.plans.fetch_add(1, Ordering::Relaxed);
    let visible = host.visible_tools(scope);
    let deferrable: Vec<usize> = (0..visible.len())
        .filter(|&i| !never_deferred(settings, &visible[i]))
        .collect();
    let (window, _) = settings.window();
    let schema_bytes: usize = deferrable
        .iter()
        .map(|&i| &visible[i])
        .map(|t| t.input_schema.to_string().len() + t.description.len() + t.name.len())
        .sum();
    let tokens = schema_bytes / 4;
    let share = Some(tokens as f64 / window.max(1) as f64);
    let (all, mut reason) = activation::decide(
        activation::Rule {
            activation: settings.activation,
            count_threshold: settings.count_threshold,
            share_threshold: settings.share_threshold,
        },
        deferrable.len(),
        share,
        host.pending(),
    );
    // `Deferrable::Always`: deferred even below the threshold (not when
    // activation is `never`, which turns deferral off altogether).
    let always = deferrable
        .iter()
        .filter(|&&i| visible[i].deferrable == Deferrable::Always)
        .count();
    let forced = !all && always > 0 && settings.activation != Activation::Never;
    if forced {
        reason = format!("{reason}; {always} tools are always deferred");
    }
    let active = all || forced;
    let direct: Vec<usize> = (0..visible.len())
        .filter(|&i| {
            let t = &visible[i];
            !active || never_deferred(settings, t) || (forced && t.deferrable != Deferrable::Always)
        })
        .collect();
    let names = {
        let refs: Vec<&Tool> = direct.iter().map(|&i| &visible[i]).collect();
        names::provider_names(&refs)
    };
    Plan {
        deferrable: deferrable.len(),
        visible,
        direct,
        names,
        active,
        reason,
        tokens,
        share,
        all_names: OnceLock::new(),
        counts: host.plan_counts.clone(),
        direct_bytes: std::sync::Mutex::default(),
    }
}

/// The shape deferral takes (when active) for definitions built for `provider`,
/// and why it is not the mode asked for, if it is not. Definitions and routing
/// read this one answer: routing passes the provider of the settings, so native
/// is chosen only for the provider the settings name (the one `tool_search`
/// answers for); a list built for another provider gets code mode and a note.
/// `engine_ok` says whether code mode can run (asked only when it matters).
pub(crate) fn shape(
    settings: &Settings,
    provider: Option<Provider>,
    engine_ok: &dyn Fn() -> Result<(), String>,
) -> (Shape, Option<Fallback>) {
    let code_or_tools = |first: Option<Fallback>| match engine_ok() {
        Ok(()) => (Shape::Code, first),
        Err(reason) => (
            Shape::Tools,
            Some(Fallback::CodeUnavailable {
                reason,
                then: first.map(Box::new),
            }),
        ),
    };
    let hosted = provider.filter(|&p| crate::settings::modes::hosts_search(p));
    let declared = settings.provider;
    match settings.mode {
        Mode::Tools => (Shape::Tools, None),
        Mode::Reveal => (Shape::Reveal, None),
        Mode::Code => code_or_tools(None),
        Mode::Native | Mode::Auto if hosted.is_some() && hosted == declared => {
            (Shape::Native, None)
        }
        Mode::Native | Mode::Auto => code_or_tools(match (provider, hosted, declared) {
            (Some(asked), Some(_), Some(declared)) => {
                Some(Fallback::OtherProvider { declared, asked })
            }
            (Some(provider), Some(_), None) => Some(Fallback::Undeclared { provider }),
            // Native for a provider without hosted search (or none given;
            // `Settings::validate` refuses native without one).
            (Some(provider), None, _) if settings.mode == Mode::Native => {
                Some(Fallback::NoHostedSearch { provider })
            }
            _ => None,
        }),
    }
}
