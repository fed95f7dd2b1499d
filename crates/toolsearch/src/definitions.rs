//! Definitions: what the model is sent for a session and provider (the bridge
//! tool, the structured tools, the never-deferred tools under provider names),
//! with the byte counts telemetry reports.

use serde_json::Value;
use toolsearch_catalog::Tool;

use crate::activation::{self, Activation, Mode};
use crate::defs::{self, Provider};
use crate::facade::{Session, ToolSearch};
use crate::host::Scope;
use crate::telemetry::ActivationDecision;

/// Definitions to send to the model.
#[derive(Debug, Clone)]
pub struct Definitions {
    /// In the provider's shape.
    pub tools: Vec<Value>,
    /// Why deferral is on or off, and in which shape.
    pub decision: ActivationDecision,
}

/// What [`ToolSearch::plan`] decided for one scope.
pub(crate) struct Plan {
    /// Every tool the scope sees.
    pub(crate) visible: Vec<Tool>,
    /// How many of them are deferrable.
    pub(crate) deferrable: usize,
    /// Indexes into `visible` of the tools sent directly, in order.
    pub(crate) direct: Vec<usize>,
    /// Their provider names (same order as `direct`).
    pub(crate) names: Vec<String>,
    pub(crate) active: bool,
    pub(crate) reason: String,
    pub(crate) tokens: usize,
    pub(crate) share: Option<f64>,
}

impl ToolSearch {
    pub(crate) fn plan(&self, scope: &Scope, report: bool) -> Plan {
        let visible = self.host.visible_tools(scope);
        let deferrable: Vec<usize> = (0..visible.len())
            .filter(|&i| !self.never_deferred(&visible[i]))
            .collect();
        let needs_tokens = report
            || (self.settings.activation == Activation::Auto
                && self.settings.context_window.is_some()
                && deferrable.len() < self.settings.count_threshold);
        let schema_bytes: usize = if needs_tokens {
            deferrable
                .iter()
                .map(|&i| &visible[i])
                .map(|t| t.input_schema.to_string().len() + t.description.len() + t.name.len())
                .sum()
        } else {
            0
        };
        let tokens = schema_bytes / 4;
        let share = self
            .settings
            .context_window
            .filter(|&w| w > 0)
            .map(|w| tokens as f64 / w as f64);
        let (active, reason) = activation::decide(
            activation::Rule {
                activation: self.settings.activation,
                count_threshold: self.settings.count_threshold,
                share_threshold: self.settings.share_threshold,
            },
            deferrable.len(),
            share,
        );
        let direct: Vec<usize> = (0..visible.len())
            .filter(|&i| !active || self.never_deferred(&visible[i]))
            .collect();
        let names = {
            let refs: Vec<&Tool> = direct.iter().map(|&i| &visible[i]).collect();
            defs::provider_names(&refs)
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
        }
    }

    /// The definitions to send for this session and provider. Re-evaluates activation
    /// every time, so tools added or removed mid-session cross the threshold both ways.
    pub fn definitions(&self, session: &Session, provider: Provider) -> Definitions {
        let _span = tracing::info_span!("toolsearch.definitions", session = %session.id).entered();
        let catalog = self.host.catalog();
        let scope = Self::scope(session);
        let Plan {
            visible,
            deferrable,
            direct,
            names,
            active,
            reason,
            tokens,
            share,
        } = self.plan(&scope, true);
        let s = &self.settings;
        let mut shape = if !active {
            "direct"
        } else if s.mode == Mode::Code {
            "code"
        } else {
            "tools"
        };
        let mut fallback = None;
        if shape == "code" {
            if let Err(reason) = self.engine_ok() {
                shape = "tools";
                fallback = Some(format!(
                    "code mode unavailable ({reason}); sent the structured tools"
                ));
            }
        }
        let direct_set: Vec<&Tool> = direct.iter().map(|&i| &visible[i]).collect();
        let mut tools: Vec<Value> = Vec::new();
        let listing = || {
            defs::listing_text(&catalog, s.listing_bytes, &|t| {
                self.host.visible(t, &scope) && !self.never_deferred(t)
            })
        };
        match shape {
            "code" => {
                let (description, schema) = defs::code_tool(&listing(), s.limits());
                tools.push(defs::definition(
                    provider,
                    "tool_search_code",
                    &description,
                    &schema,
                ));
            }
            "tools" => {
                let l = listing();
                for (name, description, schema) in defs::structured_tools(&l, s.limits()) {
                    tools.push(defs::definition(provider, name, &description, &schema));
                }
            }
            _ => {}
        }
        for (tool, name) in direct_set.iter().zip(&names) {
            tools.push(defs::definition(
                provider,
                name,
                &tool.description,
                &tool.input_schema,
            ));
        }
        let sent: usize = tools.iter().map(|t| t.to_string().len()).sum();
        // In direct mode what was sent is the direct exposure: do not build it twice.
        let direct_bytes: usize = if !active {
            sent
        } else {
            let all: Vec<&Tool> = visible.iter().collect();
            let all_names = defs::provider_names(&all);
            all.iter()
                .zip(&all_names)
                .map(|(t, n)| {
                    defs::definition(provider, n, &t.description, &t.input_schema)
                        .to_string()
                        .len()
                })
                .sum()
        };
        let decision = ActivationDecision {
            shape,
            active,
            activation: s.activation.name(),
            deferrable_tools: deferrable,
            count_threshold: s.count_threshold,
            deferrable_tokens: tokens,
            context_share: share,
            share_threshold: s.share_threshold,
            reason,
        };
        let mut t = self.host.telemetry(&session.id);
        t.turn.activation = Some(decision.clone());
        t.turn.catalog_by_source.clear();
        for tool in &visible {
            *t.turn
                .catalog_by_source
                .entry(tool.source.as_str())
                .or_insert(0) += 1;
        }
        t.turn.tool_bytes_sent = sent;
        t.turn.schemas_sent = direct_set.len();
        t.turn.tool_bytes_direct = direct_bytes;
        tracing::info!(shape, active, deferrable, bytes = sent, "tool definitions");
        if let Some(f) = fallback {
            t.turn.fallbacks.push(f);
        }
        Definitions { tools, decision }
    }
}
