//! Definitions: what the model is sent for a session and provider (the bridge
//! tool, the structured tools, the never-deferred tools under provider names),
//! with the byte counts telemetry reports.

use serde_json::Value;
use toolsearch_catalog::{Deferrable, Tool};

use crate::activation::{self, Activation, Mode};
use crate::defs::{self, Provider};
use crate::facade::{Session, ToolSearch};
use crate::host::Scope;
use crate::plan::Plan;
use crate::telemetry::ActivationDecision;
use crate::vocab::{BridgeTool, Fallback, Shape};

/// Definitions to send to the model.
#[derive(Debug, Clone)]
pub struct Definitions {
    /// In the provider's shape.
    pub tools: Vec<Value>,
    /// Why deferral is on or off, and in which shape.
    pub decision: ActivationDecision,
    /// What the caller should know about this list: schema keywords a provider does
    /// not accept and that were dropped (Gemini), reveal mode switching to the hidden
    /// form, a fallback from the mode asked for.
    pub notes: Vec<String>,
    /// Why the list is not in the shape the mode asked for, if it is not (also
    /// the first of `notes`).
    pub fallback: Option<Fallback>,
}

impl ToolSearch {
    pub(crate) fn plan(&self, scope: &Scope, report: bool) -> Plan {
        let visible = self.host.visible_tools(scope);
        let deferrable: Vec<usize> = (0..visible.len())
            .filter(|&i| !self.never_deferred(&visible[i]))
            .collect();
        let (window, _) = self.settings.window();
        let needs_tokens = report
            || (self.settings.activation == Activation::Auto
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
        let share = needs_tokens.then(|| tokens as f64 / window.max(1) as f64);
        let (all, mut reason) = activation::decide(
            activation::Rule {
                activation: self.settings.activation,
                count_threshold: self.settings.count_threshold,
                share_threshold: self.settings.share_threshold,
            },
            deferrable.len(),
            share,
        );
        // `Deferrable::Always`: deferred even below the threshold (not when
        // activation is `never`, which turns deferral off altogether).
        let always = deferrable
            .iter()
            .filter(|&&i| visible[i].deferrable == Deferrable::Always)
            .count();
        let forced = !all && always > 0 && self.settings.activation != Activation::Never;
        if forced {
            reason = format!("{reason}; {always} tools are always deferred");
        }
        let active = all || forced;
        let direct: Vec<usize> = (0..visible.len())
            .filter(|&i| {
                let t = &visible[i];
                !active || self.never_deferred(t) || (forced && t.deferrable != Deferrable::Always)
            })
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

    /// The shape deferral takes (when active) for definitions built for `provider`,
    /// and why it is not the mode asked for, if it is not. Definitions and routing
    /// read this one answer: routing passes the provider of the settings, so native
    /// is chosen only for the provider the settings name (the one `tool_search`
    /// answers for); a list built for another provider gets code mode and a note.
    pub(crate) fn shape(&self, provider: Option<Provider>) -> (Shape, Option<Fallback>) {
        let code_or_tools = |first: Option<Fallback>| match self.engine_ok() {
            Ok(()) => (Shape::Code, first),
            Err(reason) => (
                Shape::Tools,
                Some(Fallback::CodeUnavailable {
                    reason,
                    then: first.map(Box::new),
                }),
            ),
        };
        let hosted = provider.filter(|&p| crate::native::supported(p));
        let declared = self.settings.provider;
        match self.settings.mode {
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
                (Some(provider), None, _) if self.settings.mode == Mode::Native => {
                    Some(Fallback::NoHostedSearch { provider })
                }
                _ => None,
            }),
        }
    }

    /// The shape [`ToolSearch::definitions`] gives this session's list for
    /// `provider` now (direct when deferral is off), without building the list.
    pub fn shape_now(&self, session: &Session, provider: Provider) -> Shape {
        if self.plan(&Self::scope(session), false).active {
            self.shape(Some(provider)).0
        } else {
            Shape::Direct
        }
    }

    /// The definitions to send for this session and provider. Re-evaluates activation
    /// every time, so tools added or removed mid-session cross the threshold both ways.
    pub fn definitions(&self, session: &Session, provider: Provider) -> Definitions {
        let _span = tracing::info_span!("toolsearch.definitions", session = %session.id).entered();
        let catalog = self.host.catalog();
        let scope = Self::scope(session);
        let plan = self.plan(&scope, true);
        let s = &self.settings;
        let (window, window_from) = s.window();
        let (shape, fallback) = if plan.active {
            self.shape(Some(provider))
        } else {
            (Shape::Direct, None)
        };
        let mut notes: Vec<String> = fallback.iter().map(Fallback::to_string).collect();
        let listing = || {
            let mut text = defs::listing_text(&catalog, s.listing_bytes, &|t| {
                self.host.visible(t, &scope) && !self.never_deferred(t)
            });
            let down: Vec<String> = self.host.outages().into_iter().map(|o| o.server).collect();
            if !down.is_empty() {
                text.push_str(&format!(
                    " Down now: {} (searches say why).",
                    down.join(", ")
                ));
            }
            text
        };
        let mut tools: Vec<Value> = Vec::new();
        let full: usize;
        match shape {
            Shape::Code | Shape::Tools | Shape::Direct => {
                if shape == Shape::Code {
                    let (description, schema) = defs::code_tool(&listing(), s.limits());
                    tools.push(defs::definition(
                        provider,
                        BridgeTool::SearchCode.name(),
                        &description,
                        &schema,
                    ));
                } else if shape == Shape::Tools {
                    let l = listing();
                    for (tool, description, schema) in defs::structured_tools(&l, s.limits()) {
                        tools.push(defs::definition(
                            provider,
                            tool.name(),
                            &description,
                            &schema,
                        ));
                    }
                }
                for (&i, name) in plan.direct.iter().zip(&plan.names) {
                    tools.push(defs::tool_definition(provider, name, &plan.visible[i]));
                }
                full = plan.direct.len();
            }
            Shape::Reveal => {
                let revealed = self.revealed(session);
                let out = crate::reveal::stubs::reveal_list(
                    &plan,
                    &revealed,
                    provider,
                    &s.reveal,
                    s.limits(),
                );
                tools = out.tools;
                full = out.full;
                notes.extend(out.notes);
            }
            Shape::Native => {
                let out = crate::native::native_list(&plan, provider, &s.native, s.limits());
                tools = out.tools;
                full = out.full;
            }
        }
        if provider == Provider::Gemini {
            let revealed: std::collections::HashSet<String> = if shape == Shape::Reveal {
                self.revealed(session).into_iter().collect()
            } else {
                Default::default()
            };
            let direct: std::collections::HashSet<usize> = plan.direct.iter().copied().collect();
            let sent = plan
                .visible
                .iter()
                .enumerate()
                .filter(|(i, t)| direct.contains(i) || revealed.contains(&t.id))
                .map(|(_, t)| (t.name.as_str(), &t.input_schema));
            notes.extend(crate::gemini::dropped_notes(sent));
        }
        let sent: usize = tools.iter().map(|t| t.to_string().len()).sum();
        // In direct mode what was sent is the direct exposure: do not build it twice.
        let direct_bytes: usize = if !plan.active {
            sent
        } else {
            let all: Vec<&Tool> = plan.visible.iter().collect();
            let all_names = defs::provider_names(&all);
            all.iter()
                .zip(&all_names)
                .map(|(t, n)| defs::tool_definition(provider, n, t).to_string().len())
                .sum()
        };
        let decision = ActivationDecision {
            shape,
            active: plan.active,
            activation: s.activation.name(),
            deferrable_tools: plan.deferrable,
            count_threshold: s.count_threshold,
            deferrable_tokens: plan.tokens,
            context_share: plan.share,
            context_window: window,
            window_from: window_from.to_string(),
            share_threshold: s.share_threshold,
            reason: plan.reason.clone(),
        };
        let mut t = self.host.telemetry(&session.id);
        t.turn.activation = Some(decision.clone());
        t.turn.catalog_by_source.clear();
        for tool in &plan.visible {
            *t.turn
                .catalog_by_source
                .entry(tool.source.as_str())
                .or_insert(0) += 1;
        }
        t.turn.tool_bytes_sent = sent;
        t.turn.schemas_sent = full;
        t.turn.tool_bytes_direct = direct_bytes;
        tracing::info!(
            shape = shape.as_str(),
            active = plan.active,
            deferrable = plan.deferrable,
            bytes = sent,
            "tool definitions"
        );
        t.turn
            .fallbacks
            .extend(fallback.as_ref().map(Fallback::to_string));
        Definitions {
            tools,
            decision,
            notes,
            fallback,
        }
    }
}
