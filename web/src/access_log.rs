//! The data API's access log. A line per request cost about a tenth of the view throughput and
//! ~136 bytes per request (issue #20), so at the default `info` level a successful or refused
//! request writes nothing; every request is logged at `debug` (`RELAY_LOG=info,relay::http=debug`
//! or `--log-level debug`), and server errors (5xx) are always logged, at `error`. Only the
//! method, the path (never the query string), the status and the duration are written, and the
//! redacting sink (`infra::logging`) still runs over every line.

/// Logs one answered request by the rule above.
pub(crate) fn record(method: &actix_web::http::Method, path: &str, status: u16, micros: u64) {
    if status >= 500 {
        tracing::error!(target: "relay::http", method = %method, path = %path, status, micros, "request failed");
    } else {
        tracing::debug!(target: "relay::http", method = %method, path = %path, status, micros, "request");
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    use actix_web::http::Method;
    use tracing_subscriber::fmt::MakeWriter;
    use tracing_subscriber::EnvFilter;

    #[derive(Clone, Default)]
    struct Capture(Arc<Mutex<Vec<u8>>>);
    impl Write for Capture {
        fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(data);
            Ok(data.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    impl<'a> MakeWriter<'a> for Capture {
        type Writer = Capture;
        fn make_writer(&'a self) -> Capture {
            self.clone()
        }
    }

    /// The lines `record` writes for a 200, a 429 and a 503 under the filter `filter`.
    fn lines_at(filter: &str) -> Vec<String> {
        let capture = Capture::default();
        let subscriber = tracing_subscriber::fmt()
            .with_env_filter(EnvFilter::new(filter))
            .with_ansi(false)
            .with_writer(capture.clone())
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            super::record(&Method::GET, "/api/collections/contacts/records/abc", 200, 120);
            super::record(&Method::POST, "/api/collections/users/auth-with-password", 429, 80);
            super::record(&Method::GET, "/api/relay/health", 503, 900);
        });
        let out = String::from_utf8(capture.0.lock().unwrap().clone()).unwrap();
        out.lines().map(str::to_string).collect()
    }

    #[test]
    fn the_default_level_logs_only_server_errors() {
        let lines = lines_at("info");
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].contains("ERROR") && lines[0].contains("status=503"), "{lines:?}");
    }

    #[test]
    fn debug_logs_every_request() {
        let lines = lines_at("info,relay::http=debug");
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(lines.iter().any(|l| l.contains("status=429")), "{lines:?}");
    }
}
