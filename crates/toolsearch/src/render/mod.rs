//! Rendering: what the model is sent for a conversation and provider, in the
//! shape the plan chose: the bridge tool (`bridge_tools.rs`), the structured
//! tools, reveal mode's stubs (`reveal.rs`), native mode's deferred list
//! (`native.rs`), and the never-deferred tools under provider names; with the
//! byte counts the turn record reports.

pub(crate) mod bridge_tools;
pub(crate) mod native;
pub mod reveal;

use serde_json::Value;

use crate::host::record::{ActivationDecision, Record};
use crate::host::{Host, Scope};
use crate::plan::{self, Plan};
use crate::settings::Settings;
use crate::vocab::{BridgeTool, Fallback, Provider, Shape};
use crate::wire;

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

/// The full definitions of the plan's tools at `which` (indexes into
/// `visible`), under `names` (from [`Plan::all_names`]).
pub(crate) fn full(
    plan: &Plan,
    provider: Provider,
    names: &[String],
    which: &[usize],
) -> Vec<Value> {
    which
        .iter()
        .map(|&i| wire::tool_definition(provider, &names[i], &plan.visible[i]))
        .collect()
}

/// What [`definitions`] renders from.
pub(crate) struct Inputs<'a> {
    pub(crate) host: &'a Host,
    pub(crate) settings: &'a Settings,
    pub(crate) scope: &'a Scope,
    pub(crate) plan: &'a Plan,
    /// The shape of the list when deferral is on, and why it is not the mode's.
    pub(crate) shape: (Shape, Option<Fallback>),
    /// The conversation's reveals (reveal mode).
    pub(crate) revealed: &'a [String],
    /// The conversation's turn record.
    pub(crate) record: &'a Record,
}

/// The definitions to send for `provider`. The plan is re-evaluated for every
/// catalog generation, so tools added or removed mid-session cross the
/// threshold both ways.
pub(crate) fn definitions(inputs: Inputs<'_>, provider: Provider) -> Definitions {
    let Inputs {
        host,
        settings: s,
        scope,
        plan,
        revealed,
        record,
        ..
    } = inputs;
    let catalog = host.catalog();
    let (window, window_from) = s.window();
    let (shape, fallback) = if plan.active {
        inputs.shape
    } else {
        (Shape::Direct, None)
    };
    let mut notes: Vec<String> = fallback.iter().map(Fallback::to_string).collect();
    // What the model may use, and nothing that moves without that changing:
    // servers down or still starting are told in searches' notes and calls'
    // errors, where it costs once, not here, where every change is a
    // prompt-cache write for every conversation (see docs/prompt-cache.md).
    let listing = || {
        bridge_tools::listing_text(&catalog, s.listing_bytes, &|t| {
            host.visible(t, scope) && !plan::never_deferred(s, t)
        })
    };
    let mut tools: Vec<Value> = Vec::new();
    let full: usize;
    match shape {
        Shape::Code | Shape::Tools | Shape::Direct => {
            if shape == Shape::Code {
                let (description, schema) = bridge_tools::code_tool(&listing(), s.limits());
                tools.push(wire::definition(
                    provider,
                    BridgeTool::SearchCode.name(),
                    &description,
                    &schema,
                ));
            } else if shape == Shape::Tools {
                let l = listing();
                for (tool, description, schema) in bridge_tools::structured_tools(&l, s.limits()) {
                    tools.push(wire::definition(
                        provider,
                        tool.name(),
                        &description,
                        &schema,
                    ));
                }
            }
            for (&i, name) in plan.direct.iter().zip(&plan.names) {
                tools.push(wire::tool_definition(provider, name, &plan.visible[i]));
            }
            full = plan.direct.len();
        }
        Shape::Reveal => {
            let out = reveal::reveal_list(plan, revealed, provider, &s.reveal, s.limits());
            tools = out.tools;
            full = out.full;
            notes.extend(out.notes);
        }
        Shape::Native => {
            let out = native::native_list(plan, provider, &s.native, s.limits());
            tools = out.tools;
            full = out.full;
        }
    }
    if provider == Provider::Gemini {
        let revealed: std::collections::HashSet<&String> = if shape == Shape::Reveal {
            revealed.iter().collect()
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
        notes.extend(wire::gemini::dropped_notes(sent));
    }
    let sent: usize = tools.iter().map(|t| t.to_string().len()).sum();
    // In direct mode what was sent is the direct exposure: do not build it twice.
    let direct_bytes: usize = if !plan.active {
        sent
    } else {
        plan.direct_bytes(provider, || {
            plan.visible
                .iter()
                .zip(plan.all_names())
                .map(|(t, n)| wire::tool_definition(provider, n, t).to_string().len())
                .sum()
        })
    };
    let decision = ActivationDecision {
        shape,
        active: plan.active,
        activation: s.activation,
        deferrable_tools: plan.deferrable,
        count_threshold: s.count_threshold,
        deferrable_tokens: plan.tokens,
        context_share: plan.share,
        context_window: window,
        window_from,
        share_threshold: s.share_threshold,
        reason: plan.reason.clone(),
    };
    record.with(|t| {
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
    });
    Definitions {
        tools,
        decision,
        notes,
        fallback,
    }
}
