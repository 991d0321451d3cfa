//! The log sink every tracing event passes through. The fmt layer formats one event into one
//! buffer; `RedactingWriter` runs that buffer through `domain::redact` (secrets, tokens,
//! emails, phone numbers, full URLs reduced to origins) and escapes CR, LF, U+2028 and U+2029
//! inside it, so one event is always exactly one physical, redacted line.

use std::io::{self, Write};

use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::EnvFilter;

/// Redacts and escapes one formatted event, returning it with a single trailing newline.
pub fn sanitize_event(raw: &str) -> String {
    let body = raw.strip_suffix('\n').unwrap_or(raw);
    let mut line = domain::redact::escape_line_breaks(&domain::redact::redact_text(body));
    line.push('\n');
    line
}

/// Wraps a `MakeWriter` so every event it writes is sanitized first.
#[derive(Debug, Clone)]
pub struct RedactingMakeWriter<M> {
    inner: M,
}

impl<M> RedactingMakeWriter<M> {
    pub fn new(inner: M) -> Self {
        RedactingMakeWriter { inner }
    }
}

impl<'a, M: MakeWriter<'a>> MakeWriter<'a> for RedactingMakeWriter<M> {
    type Writer = RedactingWriter<M::Writer>;
    fn make_writer(&'a self) -> Self::Writer {
        RedactingWriter { inner: self.inner.make_writer(), buf: Vec::new() }
    }
}

/// Buffers one event and emits it, sanitized, when dropped.
pub struct RedactingWriter<W: Write> {
    inner: W,
    buf: Vec<u8>,
}

impl<W: Write> Write for RedactingWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<W: Write> Drop for RedactingWriter<W> {
    fn drop(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        let line = sanitize_event(&String::from_utf8_lossy(&self.buf));
        let _ = self.inner.write_all(line.as_bytes());
        let _ = self.inner.flush();
    }
}

/// Installs the global subscriber: `RUST_LOG`-style filter (default `level`), redacted stderr.
pub fn init(level: &str) {
    let filter = EnvFilter::try_from_env("RELAY_LOG").unwrap_or_else(|_| EnvFilter::new(level));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(true)
        .with_ansi(false)
        .with_writer(RedactingMakeWriter::new(io::stderr))
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Capture(Arc<Mutex<Vec<u8>>>);
    impl Write for Capture {
        fn write(&mut self, data: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(data);
            Ok(data.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    impl<'a> MakeWriter<'a> for Capture {
        type Writer = Capture;
        fn make_writer(&'a self) -> Capture {
            self.clone()
        }
    }

    #[test]
    fn events_are_redacted_and_stay_on_one_line() {
        let capture = Capture::default();
        let subscriber =
            tracing_subscriber::fmt().with_ansi(false).with_writer(RedactingMakeWriter::new(capture.clone())).finish();
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!(
                password = "hunter2-secret",
                user = "ops",
                "login by ada@example.com\nfrom https://relay.local:8090/api?token=abc"
            );
            tracing::warn!("call +1 (555) 123-4567\u{2028}now");
        });
        let out = String::from_utf8(capture.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        for secret in ["hunter2-secret", "ada@example.com", "token=abc", "/api", "555) 123-4567", "\u{2028}"] {
            assert!(!out.contains(secret), "{secret} leaked: {out}");
        }
        assert!(lines[0].contains("https://relay.local:8090"), "{out}");
        assert!(lines[0].contains("user=\"ops\"") || lines[0].contains("user=ops"), "{out}");
        assert!(lines[0].contains("\\n"), "{out}");
    }
}
