//! The trace export: spans of the `tracing` subscriber sent over OTLP's
//! HTTP/protobuf form to the collector `[telemetry] otlp_endpoint` names,
//! batched off the request path, through the gateway's own HTTP client stack
//! (reqwest with rustls).

use std::time::Duration;

use bytes::Bytes;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_http::{HttpClient, HttpError};
use opentelemetry_otlp::{WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::trace::{Sampler, SdkTracerProvider};
use tracing_subscriber::registry::LookupSpan;

use crate::config::TelemetryConfig;

/// How long one export may take.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest answer read from a collector.
const MAX_ANSWER_BYTES: usize = 1 << 20;

/// The trace export, running. [`Traces::layer`] feeds it from a `tracing`
/// subscriber; [`Traces::shutdown`] sends what is still batched.
pub struct Traces {
    provider: SdkTracerProvider,
}

impl std::fmt::Debug for Traces {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Traces").finish_non_exhaustive()
    }
}

impl Traces {
    /// Starts the export `cfg` asks for (`None` without `otlp_endpoint`). The
    /// export's requests run on `rt`, which must outlive it (call
    /// [`Traces::shutdown`] before the runtime ends).
    ///
    /// # Errors
    /// An endpoint the exporter cannot use, or an HTTP client that cannot be
    /// built.
    pub fn start(
        cfg: &TelemetryConfig,
        rt: tokio::runtime::Handle,
    ) -> anyhow::Result<Option<Traces>> {
        let Some(endpoint) = &cfg.otlp_endpoint else {
            return Ok(None);
        };
        crate::http_client::install_tls_provider();
        let client = reqwest::Client::builder()
            .timeout(EXPORT_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| anyhow::anyhow!("cannot build the trace export's HTTP client: {e}"))?;
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(OnRuntime { client, rt })
            .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
            .with_endpoint(endpoint.as_str())
            .with_timeout(EXPORT_TIMEOUT)
            .build()
            .map_err(|e| anyhow::anyhow!("cannot set up the trace export: {e}"))?;
        let resource = opentelemetry_sdk::Resource::builder()
            .with_service_name(cfg.service_name().to_string())
            .with_attribute(opentelemetry::KeyValue::new(
                "service.version",
                env!("CARGO_PKG_VERSION"),
            ))
            .build();
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_sampler(Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(
                cfg.sample(),
            ))))
            .with_resource(resource)
            .build();
        super::EXPORTING.store(true, std::sync::atomic::Ordering::Relaxed);
        Ok(Some(Traces { provider }))
    }

    /// The layers that turn a subscriber's spans into exported ones: the
    /// request's span and, when its trace is sampled, toolsearch's spans under
    /// it (see [`Gate`]), with toolsearch's warnings as their events. Add it
    /// last (outermost): the gate decides for the whole subscriber.
    pub fn layer<S>(&self) -> impl tracing_subscriber::Layer<S> + Send + Sync + 'static
    where
        S: tracing::Subscriber + for<'a> LookupSpan<'a> + Send + Sync,
    {
        use tracing_subscriber::Layer;
        let ours = tracing_subscriber::filter::filter_fn(|m| {
            m.target().starts_with("toolsearch")
                && if m.is_span() {
                    *m.level() <= tracing::Level::INFO
                } else {
                    *m.level() <= tracing::Level::WARN
                }
        })
        .with_max_level_hint(tracing::level_filters::LevelFilter::INFO);
        tracing_opentelemetry::layer()
            .with_tracer(self.provider.tracer("toolsearch"))
            .with_tracked_inactivity(false)
            .with_threads(false)
            .with_filter(ours)
            .and_then(Gate)
    }

    /// Sends what is batched and stops, waiting at most `within`. Call it off
    /// the runtime (it blocks) while the runtime still runs.
    pub fn shutdown(self, within: Duration) {
        if let Err(e) = self.provider.shutdown_with_timeout(within) {
            eprintln!("toolsearch: the last traces were not all exported: {e}");
        }
    }
}

/// The export's HTTP client: the batch processor runs exports on a thread of
/// its own, outside any runtime, so each request runs as a task of the
/// gateway's runtime and the export waits for it.
#[derive(Debug)]
struct OnRuntime {
    client: reqwest::Client,
    rt: tokio::runtime::Handle,
}

#[async_trait::async_trait]
impl HttpClient for OnRuntime {
    async fn send_bytes(
        &self,
        request: http::Request<Bytes>,
    ) -> Result<http::Response<Bytes>, HttpError> {
        let client = self.client.clone();
        let request = reqwest::Request::try_from(request)?;
        let task = self.rt.spawn(async move {
            let mut answer = client.execute(request).await?;
            let mut out = http::Response::builder().status(answer.status());
            for (k, v) in answer.headers() {
                out = out.header(k, v);
            }
            let mut body = Vec::new();
            while let Some(chunk) = answer.chunk().await? {
                if body.len() + chunk.len() > MAX_ANSWER_BYTES {
                    break;
                }
                body.extend_from_slice(&chunk);
            }
            Ok::<_, HttpError>(out.body(Bytes::from(body))?)
        });
        task.await?
    }
}

/// The gate of toolsearch's spans while traces are exported: the gateway's
/// request span ([`super::REQUEST`]) always passes; a span of toolsearch's
/// crates under a request that [`super::settle`] marked unsampled is not made
/// at all, for any layer (a trace kept at 1% costs the other 99 requests one
/// span each, not the dozen under it), nor is one outside any request. Their
/// work then runs in the request's span, whose context (flagged unsampled) is
/// what a downstream call passes on. Everything else passes untouched.
#[derive(Debug, Clone, Copy)]
pub struct Gate;

/// A request span's mark, once its trace is known not to be sampled.
struct Unsampled;

fn gated(meta: &tracing::Metadata<'_>) -> bool {
    meta.is_span() && meta.target().starts_with("toolsearch") && meta.name() != super::REQUEST
}

impl<S> tracing_subscriber::Layer<S> for Gate
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    fn register_callsite(
        &self,
        meta: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        if gated(meta) {
            tracing::subscriber::Interest::sometimes()
        } else {
            tracing::subscriber::Interest::always()
        }
    }

    fn enabled(
        &self,
        meta: &tracing::Metadata<'_>,
        cx: tracing_subscriber::layer::Context<'_, S>,
    ) -> bool {
        !gated(meta)
            || cx
                .lookup_current()
                .is_some_and(|s| s.extensions().get::<Unsampled>().is_none())
    }

    /// It never enables anything itself: the global level stays what the
    /// other layers ask (without a hint every `debug!` of every crate would be
    /// evaluated on each request).
    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::OFF)
    }

    fn on_record(
        &self,
        id: &tracing::span::Id,
        values: &tracing::span::Record<'_>,
        cx: tracing_subscriber::layer::Context<'_, S>,
    ) {
        let mut marked = Marked(false);
        values.record(&mut marked);
        if marked.0 {
            if let Some(span) = cx.span(id) {
                span.extensions_mut().insert(Unsampled);
            }
        }
    }
}

/// Whether a record sets [`super::UNSAMPLED_FIELD`].
struct Marked(bool);

impl tracing::field::Visit for Marked {
    fn record_bool(&mut self, field: &tracing::field::Field, value: bool) {
        if field.name() == super::UNSAMPLED_FIELD && value {
            self.0 = true;
        }
    }

    fn record_debug(&mut self, _: &tracing::field::Field, _: &dyn std::fmt::Debug) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing_subscriber::prelude::*;

    /// Under a request marked unsampled no span of toolsearch's is made; under
    /// one that is not, they are; outside any request, none.
    #[test]
    fn the_gate_makes_no_span_under_an_unsampled_request() {
        let sub = tracing_subscriber::registry()
            .with(
                tracing_subscriber::layer::Identity::new()
                    .with_filter(tracing_subscriber::filter::LevelFilter::WARN),
            )
            // As the export's layer: toolsearch's spans, at INFO.
            .with(
                tracing_subscriber::layer::Identity::new().with_filter(
                    tracing_subscriber::filter::filter_fn(|m| m.target().starts_with("toolsearch"))
                        .with_max_level_hint(tracing::level_filters::LevelFilter::INFO),
                ),
            )
            .with(Gate);
        tracing::subscriber::with_default(sub, || {
            let outside = tracing::info_span!(target: "toolsearch_mcp::x", "child");
            assert!(outside.is_disabled(), "no span outside a request");
            let other = tracing::info_span!(target: "rmcp::x", "theirs");
            let _ = other;
            let traced = tracing::info_span!(
                target: "toolsearch_mcp::x",
                "tools/call",
                toolsearch.unsampled = tracing::field::Empty
            );
            assert!(!traced.is_disabled());
            traced.in_scope(|| {
                let child = tracing::info_span!(target: "toolsearch::y", "child");
                assert!(!child.is_disabled(), "a traced request's child is made");
            });
            let unsampled = tracing::info_span!(
                target: "toolsearch_mcp::x",
                "tools/call",
                toolsearch.unsampled = tracing::field::Empty
            );
            unsampled.record(crate::telemetry::UNSAMPLED_FIELD, true);
            unsampled.in_scope(|| {
                let child = tracing::info_span!(target: "toolsearch::y", "child");
                assert!(
                    child.is_disabled(),
                    "an unsampled request's child is not made"
                );
                assert_eq!(
                    tracing::Span::current().metadata().map(|m| m.name()),
                    Some("tools/call")
                );
            });
        });
    }
}
