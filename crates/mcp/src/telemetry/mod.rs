//! Traces: where a request's trace comes from and where it goes on.
//!
//! - **In**: a client's W3C trace context (`traceparent`, `tracestate`), read
//!   from the request's `_meta` (SEP-414, any transport) or, over streamable
//!   HTTP, from its headers, becomes the parent of the gateway's span for the
//!   request, and its sampling decision holds; a request without one is kept
//!   at `[telemetry] sample`. The decision is made before the request's span
//!   is ([`request`]): a request whose trace is not kept costs the export
//!   nothing.
//! - **On**: each downstream call carries the trace context of its own span to
//!   its server, or the request's when none is kept, in `_meta` (every
//!   transport) and, to an HTTP server, as the `traceparent` header too
//!   ([`pass_on`], [`header_of`]).
//! - **Out**: spans are exported over OTLP's HTTP/protobuf form ([`otlp`]).
//!
//! Reading, deciding and exporting need the crate's `otel` feature; without it
//! the spans are plain `tracing` spans (cheap when no subscriber wants them),
//! nothing a client sends is read, and a call passes on only the context its
//! caller gave it ([`toolsearch::CallOptions::trace`]).

#[cfg(feature = "otel")]
pub mod otlp;

use std::sync::Arc;

use rmcp::model::MetaObject;
use toolsearch::TraceContext;

/// Set once spans are exported ([`otlp::Traces::start`]): until then nothing
/// a client sends is read.
#[cfg(feature = "otel")]
static EXPORTING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `[telemetry] sample`, as `f64` bits: the share of requests without a
/// client's decision whose trace is kept.
#[cfg(feature = "otel")]
static SAMPLE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The longest `traceparent` read (version 00 is 55 bytes) and `tracestate`
/// kept (W3C lets a hop drop it); anything longer is ignored, so a client's
/// junk costs nothing and never reaches a server as a header it refuses.
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
const MAX_TRACEPARENT: usize = 128;
const MAX_TRACESTATE: usize = 512;

/// The name of the gateway's span for one request: the root of what the
/// gateway exports of it.
pub(crate) const REQUEST: &str = "tools/call";

/// The target of a request's span when its trace is not kept: the export
/// never sees it, and no span of toolsearch's is made under it (see
/// [`otlp::Gate`]); logs still do.
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
pub(crate) const UNSAMPLED: &str = "toolsearch_mcp::unsampled";

/// The gateway's span for one `tools/call`, and the trace context its calls
/// pass on when no span of it records one.
pub(crate) struct Request {
    pub(crate) span: tracing::Span,
    pub(crate) trace: Option<Arc<TraceContext>>,
}

/// Makes the span of a call of `tool` on `session` (of `profile`), its trace
/// decided first. With spans exported, a client's W3C context (`_meta`'s
/// first, else the HTTP request's headers) is its parent and its decision
/// holds; without one the request's trace is kept at `[telemetry] sample`. A
/// request whose trace is not kept gets a span the export never sees (logs
/// do), nothing under it is made a span, and its context, flagged `00`, goes
/// on to its servers (so they keep the decision). Names only: arguments stay
/// out of traces.
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn request(
    tool: &str,
    session: &str,
    profile: &str,
    meta: &MetaObject,
    headers: Option<&http::HeaderMap>,
) -> Request {
    let tool = crate::text::clean_for_log(tool, 80);
    #[cfg(feature = "otel")]
    if EXPORTING.load(std::sync::atomic::Ordering::Relaxed) {
        return decided(&tool, session, profile, meta, headers);
    }
    Request {
        span: kept(&tool, session, profile),
        trace: None,
    }
}

/// The span of a request whose trace is kept (or of any request, when no
/// trace is exported: then only logs see it).
fn kept(tool: &str, session: &str, profile: &str) -> tracing::Span {
    tracing::info_span!(
        REQUEST,
        otel.name = %format_args!("tools/call {tool}"),
        otel.kind = "server",
        mcp.method.name = "tools/call",
        gen_ai.tool.name = %tool,
        mcp.session.id = %session,
        toolsearch.profile = %profile,
    )
}

#[cfg(feature = "otel")]
fn decided(
    tool: &str,
    session: &str,
    profile: &str,
    meta: &MetaObject,
    headers: Option<&http::HeaderMap>,
) -> Request {
    use opentelemetry::trace::TraceContextExt;
    use opentelemetry_sdk::trace::IdGenerator;
    use tracing_opentelemetry::OpenTelemetrySpanExt;
    let not_kept = |trace| Request {
        span: tracing::info_span!(
            target: UNSAMPLED,
            REQUEST,
            gen_ai.tool.name = %tool,
            mcp.session.id = %session,
            toolsearch.profile = %profile,
        ),
        trace: Some(Arc::new(trace)),
    };
    if let Some(cx) = client_context(meta, headers) {
        let sc = cx.span().span_context().clone();
        if !sc.is_sampled() {
            let state = sc.trace_state().header();
            return not_kept(TraceContext {
                traceparent: format!("00-{}-{}-00", sc.trace_id(), sc.span_id()),
                tracestate: (!state.is_empty() && state.len() <= MAX_TRACESTATE).then_some(state),
            });
        }
        let span = kept(tool, session, profile);
        let _ = span.set_parent(cx);
        return Request { span, trace: None };
    }
    let ids = opentelemetry_sdk::trace::RandomIdGenerator::default();
    let id = ids.new_trace_id();
    let sample = f64::from_bits(SAMPLE.load(std::sync::atomic::Ordering::Relaxed));
    if keeps(sample, id) {
        // The provider keeps every root (`ParentBased(AlwaysOn)`): the
        // decision was this one.
        return Request {
            span: kept(tool, session, profile),
            trace: None,
        };
    }
    not_kept(TraceContext {
        traceparent: format!("00-{id}-{}-00", ids.new_span_id()),
        tracestate: None,
    })
}

/// Whether a trace `id` is kept at the share `sample`: the rule of
/// OpenTelemetry's `TraceIdRatioBased` (the id's low 63 bits against the
/// share of 2^63).
#[cfg(feature = "otel")]
fn keeps(sample: f64, id: opentelemetry::trace::TraceId) -> bool {
    let bytes = id.to_bytes();
    let mut low = [0u8; 8];
    low.copy_from_slice(&bytes[8..]);
    sample >= 1.0 || (u64::from_be_bytes(low) >> 1) < (sample.max(0.0) * (1u64 << 63) as f64) as u64
}

/// The valid W3C context a client sent: `_meta`'s first, else the HTTP
/// request's headers. A malformed or oversized value is ignored.
#[cfg(feature = "otel")]
fn client_context(
    meta: &MetaObject,
    headers: Option<&http::HeaderMap>,
) -> Option<opentelemetry::Context> {
    use opentelemetry::propagation::TextMapPropagator;
    let header = |key: &str| {
        headers
            .and_then(|h| h.get(key))
            .and_then(|v| v.to_str().ok())
    };
    let (parent, state) = match meta.get_traceparent() {
        Some(p) => (Some(p), meta.get_tracestate()),
        None => (header("traceparent"), header("tracestate")),
    };
    let parent = parent.filter(|p| p.len() <= MAX_TRACEPARENT)?;
    let mut carrier = std::collections::HashMap::new();
    carrier.insert("traceparent".to_string(), parent.to_string());
    if let Some(state) = state.filter(|s| s.len() <= MAX_TRACESTATE) {
        carrier.insert("tracestate".to_string(), state.to_string());
    }
    let cx = opentelemetry_sdk::propagation::TraceContextPropagator::new().extract(&carrier);
    opentelemetry::trace::TraceContextExt::span(&cx)
        .span_context()
        .is_valid()
        .then_some(cx)
}

/// Writes the trace context of a call into `meta` (`traceparent`, and
/// `tracestate` when there is one): the current span's, when a trace of it is
/// exported, else `passed` (the caller's: see [`Request`] and
/// [`toolsearch::CallOptions::trace`]). Nothing without either.
pub(crate) fn pass_on(meta: &mut MetaObject, passed: Option<&TraceContext>) {
    #[cfg(feature = "otel")]
    if EXPORTING.load(std::sync::atomic::Ordering::Relaxed) && current_into(meta) {
        return;
    }
    if let Some(t) = passed {
        meta.set_traceparent(t.traceparent.clone());
        if let Some(state) = t.tracestate.as_ref().filter(|s| s.len() <= MAX_TRACESTATE) {
            meta.set_tracestate(state.clone());
        }
    }
}

/// Writes the current span's trace context into `meta`; false when it has
/// none (no trace of it is exported).
#[cfg(feature = "otel")]
fn current_into(meta: &mut MetaObject) -> bool {
    use opentelemetry::propagation::TextMapPropagator;
    use opentelemetry::trace::TraceContextExt;
    use tracing_opentelemetry::OpenTelemetrySpanExt;
    let cx = tracing::Span::current().context();
    if !cx.span().span_context().is_valid() {
        return false;
    }
    let mut carrier = std::collections::HashMap::new();
    opentelemetry_sdk::propagation::TraceContextPropagator::new().inject_context(&cx, &mut carrier);
    if let Some(parent) = carrier.remove("traceparent") {
        meta.set_traceparent(parent);
    }
    if let Some(state) = carrier
        .remove("tracestate")
        .filter(|s| !s.is_empty() && s.len() <= MAX_TRACESTATE)
    {
        meta.set_tracestate(state);
    }
    true
}

/// The `traceparent` (and `tracestate`) a request to an HTTP server carries as
/// headers: those its `_meta` carries (see [`pass_on`]), when they are valid
/// header values.
pub(crate) fn header_of(meta: &MetaObject) -> Vec<(http::HeaderName, http::HeaderValue)> {
    let pairs = [
        (
            http::HeaderName::from_static("traceparent"),
            meta.get_traceparent(),
        ),
        (
            http::HeaderName::from_static("tracestate"),
            meta.get_tracestate(),
        ),
    ];
    pairs
        .into_iter()
        .filter(|(_, v)| v.is_some_and(|v| v.len() <= MAX_TRACESTATE))
        .filter_map(|(k, v)| Some((k, http::HeaderValue::from_str(v?).ok()?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_passes_on_the_context_its_caller_gave_it() {
        let mut meta = MetaObject::new();
        pass_on(&mut meta, None);
        assert!(meta.is_empty());
        let t = TraceContext {
            traceparent: "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-00".into(),
            tracestate: Some("vendor=1".into()),
        };
        pass_on(&mut meta, Some(&t));
        assert_eq!(meta.get_traceparent(), Some(t.traceparent.as_str()));
        assert_eq!(meta.get_tracestate(), Some("vendor=1"));
    }

    #[cfg(feature = "otel")]
    #[test]
    fn the_share_kept_is_the_share_asked() {
        use opentelemetry_sdk::trace::IdGenerator;
        let ids = opentelemetry_sdk::trace::RandomIdGenerator::default();
        let kept = |sample: f64| {
            (0..20_000)
                .filter(|_| keeps(sample, ids.new_trace_id()))
                .count()
        };
        assert_eq!(kept(0.0), 0);
        assert_eq!(kept(1.0), 20_000);
        let tenth = kept(0.1);
        assert!((1_600..2_400).contains(&tenth), "{tenth} of 20000 at 0.1");
    }

    #[test]
    fn a_calls_trace_context_becomes_its_http_headers_and_junk_does_not() {
        let mut meta = MetaObject::new();
        assert!(header_of(&meta).is_empty());
        meta.set_traceparent("00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01");
        meta.set_tracestate("vendor=1");
        let h = header_of(&meta);
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].0, "traceparent");
        assert_eq!(
            h[0].1,
            "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"
        );
        meta.set_traceparent("bad\nvalue");
        let h = header_of(&meta);
        assert_eq!(h.len(), 1, "a value that is no header value is dropped");
        assert_eq!(h[0].0, "tracestate");
        meta.set_tracestate("k=".to_string() + &"v".repeat(4000));
        assert!(header_of(&meta).is_empty(), "an oversized value is dropped");
    }
}
