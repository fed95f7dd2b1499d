//! Traces: where a request's trace comes from and where it goes on.
//!
//! - **In**: a client's W3C trace context (`traceparent`, `tracestate`), read
//!   from the request's `_meta` (SEP-414, any transport) or, over streamable
//!   HTTP, from its headers, becomes the parent of the gateway's span for the
//!   request ([`adopt`]).
//! - **On**: each downstream call carries the trace context of its own span to
//!   its server, in `_meta` (every transport) and, to an HTTP server, as the
//!   `traceparent` header too ([`pass_on`], [`header_of`]).
//! - **Out**: spans are exported over OTLP's HTTP/protobuf form ([`otlp`]).
//!
//! All of it needs the crate's `otel` feature; without it the spans are plain
//! `tracing` spans (cheap when no subscriber wants them) and nothing is read or
//! passed on.

#[cfg(feature = "otel")]
pub mod otlp;

use rmcp::model::MetaObject;

/// Set once spans are exported ([`otlp::Traces::start`]): until then nothing
/// a client sends is read.
#[cfg(feature = "otel")]
static EXPORTING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The longest `traceparent` read (version 00 is 55 bytes) and `tracestate`
/// kept (W3C lets a hop drop it); anything longer is ignored, so a client's
/// junk costs nothing and never reaches a server as a header it refuses.
const MAX_TRACEPARENT: usize = 128;
const MAX_TRACESTATE: usize = 512;

/// The name of the gateway's span for one request: the root of what the
/// gateway exports of it.
pub(crate) const REQUEST: &str = "tools/call";

/// The field a request's span gets once its trace is known not to be sampled
/// (see [`settle`]).
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
pub(crate) const UNSAMPLED_FIELD: &str = "toolsearch.unsampled";

/// Settles whether the request of `span` (made with an empty
/// [`UNSAMPLED_FIELD`], its parent adopted) is traced: unsampled, it is
/// marked, and nothing under it is made a span for the export.
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn settle(span: &tracing::Span) {
    #[cfg(feature = "otel")]
    {
        use opentelemetry::trace::TraceContextExt;
        use tracing_opentelemetry::OpenTelemetrySpanExt;
        if span.is_disabled() || !EXPORTING.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let cx = span.context();
        let sc = cx.span().span_context().clone();
        if sc.is_valid() && !sc.is_sampled() {
            span.record(UNSAMPLED_FIELD, true);
        }
    }
}

/// Makes the trace context a client sent the parent of `span`: `_meta`'s
/// first, else the HTTP request's headers. A malformed value is ignored (the
/// span starts a trace of its own).
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn adopt(span: &tracing::Span, meta: &MetaObject, headers: Option<&http::HeaderMap>) {
    #[cfg(feature = "otel")]
    {
        use opentelemetry::propagation::TextMapPropagator;
        use tracing_opentelemetry::OpenTelemetrySpanExt;
        if !EXPORTING.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let header = |key: &str| {
            headers
                .and_then(|h| h.get(key))
                .and_then(|v| v.to_str().ok())
        };
        let (parent, state) = match meta.get_traceparent() {
            Some(p) => (Some(p), meta.get_tracestate()),
            None => (header("traceparent"), header("tracestate")),
        };
        let Some(parent) = parent.filter(|p| p.len() <= MAX_TRACEPARENT) else {
            return;
        };
        let mut carrier = std::collections::HashMap::new();
        carrier.insert("traceparent".to_string(), parent.to_string());
        if let Some(state) = state.filter(|s| s.len() <= MAX_TRACESTATE) {
            carrier.insert("tracestate".to_string(), state.to_string());
        }
        let cx = opentelemetry_sdk::propagation::TraceContextPropagator::new().extract(&carrier);
        if opentelemetry::trace::TraceContextExt::span(&cx)
            .span_context()
            .is_valid()
        {
            let _ = span.set_parent(cx);
        }
    }
}

/// Writes the current span's trace context into `meta` (`traceparent`, and
/// `tracestate` when there is one), for the call it goes with. Nothing when no
/// trace is recorded (no `otel`, or no exporter). A request whose trace is not
/// sampled passes its own context on, flagged so: its servers keep the
/// decision.
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn pass_on(meta: &mut MetaObject) {
    #[cfg(feature = "otel")]
    {
        use opentelemetry::propagation::TextMapPropagator;
        use opentelemetry::trace::TraceContextExt;
        use tracing_opentelemetry::OpenTelemetrySpanExt;
        if !EXPORTING.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let cx = tracing::Span::current().context();
        if !cx.span().span_context().is_valid() {
            return;
        }
        let mut carrier = std::collections::HashMap::new();
        opentelemetry_sdk::propagation::TraceContextPropagator::new()
            .inject_context(&cx, &mut carrier);
        if let Some(parent) = carrier.remove("traceparent") {
            meta.set_traceparent(parent);
        }
        if let Some(state) = carrier
            .remove("tracestate")
            .filter(|s| !s.is_empty() && s.len() <= MAX_TRACESTATE)
        {
            meta.set_tracestate(state);
        }
    }
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
