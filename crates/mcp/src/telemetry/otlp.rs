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
        Ok(Some(Traces { provider }))
    }

    /// The layer that turns a subscriber's spans into exported ones.
    pub fn layer<S>(&self) -> impl tracing_subscriber::Layer<S> + Send + Sync + 'static
    where
        S: tracing::Subscriber + for<'a> LookupSpan<'a> + Send + Sync,
    {
        tracing_opentelemetry::layer()
            .with_tracer(self.provider.tracer("toolsearch"))
            .with_tracked_inactivity(false)
            .with_threads(false)
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
