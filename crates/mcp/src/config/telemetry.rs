//! `[telemetry]`: what the gateway counts and traces.

use serde::{Deserialize, Serialize};

use super::{error, ConfigError};

/// `[telemetry]`. Metrics are counted unless turned off; traces are exported
/// only when `otlp_endpoint` is set.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelemetryConfig {
    /// Count calls, latency and the rest for `/metrics`. Default true.
    pub metrics: Option<bool>,
    /// Where spans go: an OTLP/HTTP traces URL
    /// (`http://127.0.0.1:4318/v1/traces`), sent as protobuf. Unset: no traces.
    /// The standard `OTEL_EXPORTER_OTLP_HEADERS` and `OTEL_BSP_*` variables
    /// apply (a collector's API key, the batch delay).
    pub otlp_endpoint: Option<String>,
    /// The share of new traces kept, 0 to 1. Default 1. A client's trace
    /// context decides for its own requests (sampled or not).
    pub sample: Option<f64>,
    /// `service.name` of the spans. Default `toolsearch`.
    pub service_name: Option<String>,
}

impl TelemetryConfig {
    /// Metrics are counted.
    pub fn metrics(&self) -> bool {
        self.metrics.unwrap_or(true)
    }

    /// The share of new traces kept.
    pub fn sample(&self) -> f64 {
        self.sample.unwrap_or(1.0)
    }

    /// The spans' `service.name`.
    pub fn service_name(&self) -> &str {
        self.service_name.as_deref().unwrap_or("toolsearch")
    }

    pub(super) fn check(&self) -> Result<(), ConfigError> {
        if let Some(s) = self.sample {
            if !(0.0..=1.0).contains(&s) {
                return Err(error(format!(
                    "[telemetry] `sample` is {s}; it is a share of traces, from 0 to 1 (0.01 keeps one in a hundred)"
                )));
            }
        }
        if self.service_name.as_deref() == Some("") {
            return Err(error("[telemetry] `service_name` is empty"));
        }
        let Some(url) = &self.otlp_endpoint else {
            return Ok(());
        };
        if !cfg!(feature = "otel") {
            return Err(error(
                "[telemetry] `otlp_endpoint` is set, but this build of toolsearch has no \
                 OpenTelemetry (the `otel` feature of toolsearch-mcp): remove the key, or use a \
                 build with it (the `toolsearch` binary has it by default)",
            ));
        }
        let ok = reqwest::Url::parse(url)
            .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some());
        if !ok {
            return Err(error(format!(
                "[telemetry] `otlp_endpoint` `{}` is not an http(s) URL; give the collector's \
                 traces URL, such as http://127.0.0.1:4318/v1/traces",
                super::redact_url(url).escape_debug()
            )));
        }
        Ok(())
    }

    pub(super) fn effective(&self) -> serde_json::Value {
        serde_json::json!({
            "metrics": self.metrics(),
            "otlp_endpoint": self.otlp_endpoint.as_deref().map(super::redact_url),
            "sample": self.sample(),
            "service_name": self.service_name(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(sample: Option<f64>, endpoint: Option<&str>) -> TelemetryConfig {
        TelemetryConfig {
            sample,
            otlp_endpoint: endpoint.map(String::from),
            ..Default::default()
        }
    }

    #[test]
    fn bad_telemetry_settings_are_refused_with_the_key_named() {
        let e = with(Some(1.5), None).check().unwrap_err().to_string();
        assert!(e.contains("`sample` is 1.5"), "{e}");
        assert!(with(Some(-0.1), None).check().is_err());
        assert!(with(Some(0.01), None).check().is_ok());
        if cfg!(feature = "otel") {
            let e = with(None, Some("grpc://collector:4317"))
                .check()
                .unwrap_err()
                .to_string();
            assert!(e.contains("not an http(s) URL"), "{e}");
            assert!(with(None, Some("http://127.0.0.1:4318/v1/traces"))
                .check()
                .is_ok());
        } else {
            let e = with(None, Some("http://127.0.0.1:4318/v1/traces"))
                .check()
                .unwrap_err()
                .to_string();
            assert!(e.contains("`otel` feature"), "{e}");
        }
    }

    #[test]
    fn the_effective_view_hides_the_endpoint_s_secrets() {
        let v = with(
            None,
            Some("https://user:pw@collector.example/v1/traces?key=s3cret"),
        )
        .effective();
        let shown = v["otlp_endpoint"].as_str().unwrap();
        assert!(
            !shown.contains("pw") && !shown.contains("s3cret"),
            "{shown}"
        );
        assert_eq!(v["sample"], 1.0);
        assert_eq!(v["metrics"], true);
    }
}
