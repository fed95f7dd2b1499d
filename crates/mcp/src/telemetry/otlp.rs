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
            // The request's span is the only root, made only when its trace
            // is kept (see `super::request`, which applies `sample`): the
            // sampler follows that decision, and a client's.
            .with_sampler(Sampler::ParentBased(Box::new(Sampler::AlwaysOn)))
            .with_resource(resource)
            .build();
        super::SAMPLE.store(cfg.sample().to_bits(), std::sync::atomic::Ordering::Relaxed);
        super::EXPORTING.store(true, std::sync::atomic::Ordering::Relaxed);
        Ok(Some(Traces { provider }))
    }

    /// The layer that turns a subscriber's spans into exported ones: the span
    /// of a request whose trace is kept and toolsearch's spans under it, with
    /// toolsearch's warnings as their events ([`Ours`]); no source locations,
    /// no targets, no threads, no busy/idle times. Put [`Gate`] over it.
    pub fn layer<S>(&self) -> impl tracing_subscriber::Layer<S> + Send + Sync + 'static
    where
        S: tracing::Subscriber + for<'a> LookupSpan<'a> + Send + Sync,
    {
        use tracing_subscriber::Layer;
        tracing_opentelemetry::layer()
            .with_tracer(self.provider.tracer("toolsearch"))
            .with_tracked_inactivity(false)
            .with_threads(false)
            .with_location(false)
            .with_target(false)
            // Nothing reads OpenTelemetry's own current context: the spans
            // carry it (`OpenTelemetrySpanExt::context`).
            .with_context_activation(false)
            .with_filter(Ours)
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

/// What the export takes: toolsearch's spans (INFO and up) and warnings,
/// decided by the callsite alone, so that every other callsite stays off for
/// good (`Interest::never`) and costs nothing at run time; never the span of a
/// request whose trace is not kept ([`super::UNSAMPLED`]).
#[derive(Debug, Clone, Copy)]
pub struct Ours;

fn ours(meta: &tracing::Metadata<'_>) -> bool {
    meta.target().starts_with("toolsearch")
        && meta.target() != super::UNSAMPLED
        && if meta.is_span() {
            *meta.level() <= tracing::Level::INFO
        } else {
            *meta.level() <= tracing::Level::WARN
        }
}

impl<S> tracing_subscriber::layer::Filter<S> for Ours {
    fn enabled(
        &self,
        meta: &tracing::Metadata<'_>,
        _: &tracing_subscriber::layer::Context<'_, S>,
    ) -> bool {
        ours(meta)
    }

    fn callsite_enabled(
        &self,
        meta: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        if ours(meta) {
            tracing::subscriber::Interest::always()
        } else {
            tracing::subscriber::Interest::never()
        }
    }

    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::INFO)
    }
}

/// The gate of toolsearch's spans while traces are exported: the gateway's
/// request spans ([`super::REQUEST`]) always pass; any other span of
/// toolsearch's crates is made only under a request whose trace is kept, for
/// any layer. Under one whose trace is not kept ([`super::UNSAMPLED`]), or
/// outside any request, none is: their work runs in the request's span (a
/// trace kept at 1% costs the other 99 requests no span of the export's).
///
/// It also says `never` for every callsite neither the export ([`Ours`]) nor
/// the logs want (`logs`: what the log layer's filter says of a callsite), so
/// that those cost nothing. That is why it needs to be told: a layer without
/// a filter that does not say `never` turns the filtered layers' `never`
/// into `sometimes`, and a callsite all of them then refuse is made all the
/// same (`tracing-subscriber` 0.3: `any_enabled` is `bits != u64::MAX`); every
/// other crate's INFO spans and events would be made, at a cost to each
/// request. Add it last (outermost).
pub struct Gate {
    logs: Box<
        dyn Fn(&'static tracing::Metadata<'static>) -> tracing::subscriber::Interest + Send + Sync,
    >,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate").finish_non_exhaustive()
    }
}

impl Gate {
    /// The gate, with what the logs want of each callsite.
    pub fn new(
        logs: impl Fn(&'static tracing::Metadata<'static>) -> tracing::subscriber::Interest
            + Send
            + Sync
            + 'static,
    ) -> Gate {
        Gate {
            logs: Box::new(logs),
        }
    }
}

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
        use tracing::subscriber::Interest;
        if gated(meta) {
            Interest::sometimes()
        } else if ours(meta) || !(self.logs)(meta).is_never() {
            // No objection: the layers' filters decide.
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(
        &self,
        meta: &tracing::Metadata<'_>,
        cx: tracing_subscriber::layer::Context<'_, S>,
    ) -> bool {
        if !gated(meta) {
            return true;
        }
        // The nearest request around the current span decides.
        let request = cx.lookup_current().and_then(|current| {
            current.scope().find(|s| {
                s.name() == super::REQUEST && s.metadata().target().starts_with("toolsearch")
            })
        });
        request.is_some_and(|r| r.metadata().target() != super::UNSAMPLED)
    }

    /// It never enables anything itself: the global level stays what the
    /// other layers ask (without a hint every `debug!` of every crate would be
    /// evaluated on each request).
    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::OFF)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing::level_filters::LevelFilter;
    use tracing_subscriber::filter::Targets;
    use tracing_subscriber::layer::Identity;
    use tracing_subscriber::prelude::*;

    /// As the gateway's subscriber: the logs (`logs`), the export, and the
    /// gate over them.
    fn subscriber(logs: Targets) -> impl tracing::Subscriber + Send + Sync {
        let wanted = logs.clone();
        tracing_subscriber::registry()
            .with(Identity::new().with_filter(logs))
            .with(Identity::new().with_filter(Ours))
            .with(Gate::new(move |m| {
                tracing_subscriber::layer::Filter::<tracing_subscriber::Registry>::callsite_enabled(
                    &wanted, m,
                )
            }))
    }

    /// Under a request whose trace is not kept no span of toolsearch's is
    /// made; under one that is, they are; outside any request, none; and no
    /// other crate's span or event the logs do not want is made at all.
    #[test]
    fn the_gate_makes_no_span_under_an_unsampled_request() {
        let warn = Targets::new().with_default(LevelFilter::WARN);
        tracing::subscriber::with_default(subscriber(warn), || {
            let other = tracing::info_span!(target: "rmcp::x", "theirs");
            assert!(
                other.is_disabled(),
                "another crate's INFO span costs nothing"
            );
            let mut evaluated = false;
            tracing::info!(target: "rmcp::x", seen = { evaluated = true; 1 }, "event");
            assert!(!evaluated, "nor does its INFO event");
            let outside = tracing::info_span!(target: "toolsearch_mcp::x", "child");
            assert!(outside.is_disabled(), "no span outside a request");
            let traced = tracing::info_span!(target: "toolsearch_mcp::x", "tools/call");
            assert!(!traced.is_disabled());
            traced.in_scope(|| {
                let child = tracing::info_span!(target: "toolsearch::y", "child");
                assert!(!child.is_disabled(), "a traced request's child is made");
                child.in_scope(|| {
                    let grandchild = tracing::info_span!(target: "toolsearch::z", "grandchild");
                    assert!(!grandchild.is_disabled(), "and its children");
                });
            });
            let unsampled = tracing::info_span!(target: "toolsearch_mcp::unsampled", "tools/call");
            assert_eq!(super::super::UNSAMPLED, "toolsearch_mcp::unsampled");
            assert!(
                unsampled.is_disabled(),
                "not even the request's, for WARN logs"
            );
            unsampled.in_scope(|| {
                let child = tracing::info_span!(target: "toolsearch::y", "child");
                assert!(
                    child.is_disabled(),
                    "an unsampled request's child is not made"
                );
            });
        });
        // Logs at INFO see the request whose trace is not kept; still nothing
        // of toolsearch's is made under it.
        let info = Targets::new().with_target("toolsearch", LevelFilter::INFO);
        tracing::subscriber::with_default(subscriber(info), || {
            let unsampled = tracing::info_span!(target: "toolsearch_mcp::unsampled", "tools/call");
            assert!(!unsampled.is_disabled());
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
