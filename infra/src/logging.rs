//! The log sink every tracing event passes through. The fmt layer formats one event into one
//! buffer; `RedactingWriter` runs that buffer through `domain::redact` (secrets, tokens,
//! emails, phone numbers, full URLs reduced to origins) and escapes CR, LF, U+2028 and U+2029
//! inside it, so one event is always exactly one physical, redacted line. A server also keeps
//! the same redacted lines in `DATA/logs/relay.log` ([`init_with_files`]): an owner-only
//! folder (0700) and files (0600), rotated after 10 MB with 5 older files kept (`relay.log.1`
//! newest), as the original did; a link where the folder should be turns file logging off.

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
    init_with_files(level, None);
}

/// The log folder inside a data directory.
pub const LOG_DIR: &str = "logs";
/// The current log file's name; rotated files get `.1` (newest) to `.5`.
pub const LOG_FILE: &str = "relay.log";
/// A log file is rotated once it passes this size.
pub const LOG_ROTATE_BYTES: usize = 10 * 1024 * 1024;
/// Rotated log files kept beside the current one.
pub const LOG_FILES_KEPT: usize = 5;

/// Like [`init`], and with `data_root` the same redacted lines also go to the rotated files in
/// `DATA/logs/`. A folder that cannot be used is reported on stderr and file logging is off.
pub fn init_with_files(level: &str, data_root: Option<&std::path::Path>) {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let filter = EnvFilter::try_from_env("RELAY_LOG").unwrap_or_else(|_| EnvFilter::new(level));
    let stderr = tracing_subscriber::fmt::layer()
        .with_target(true)
        .with_ansi(false)
        .with_writer(RedactingMakeWriter::new(io::stderr));
    let files =
        data_root.and_then(|root| match RotatingLog::open(&root.join(LOG_DIR), LOG_ROTATE_BYTES, LOG_FILES_KEPT) {
            Ok(log) => Some(log),
            Err(e) => {
                eprintln!("relay: file logging is off: {e}");
                None
            }
        });
    let file_layer = files.map(|log| {
        tracing_subscriber::fmt::layer().with_target(true).with_ansi(false).with_writer(RedactingMakeWriter::new(log))
    });
    let _ = tracing_subscriber::registry().with(filter).with(stderr).with(file_layer).try_init();
}

/// The rotated log files of one folder, shared by every event (one writer at a time).
#[derive(Clone)]
pub struct RotatingLog {
    file: std::sync::Arc<std::sync::Mutex<file_rotate::FileRotate<file_rotate::suffix::AppendCount>>>,
}

impl RotatingLog {
    /// Opens `dir/relay.log` (creating `dir` 0700; refusing a link), rotated after `limit` bytes
    /// with `kept` older files, each created 0600.
    pub fn open(dir: &std::path::Path, limit: usize, kept: usize) -> io::Result<RotatingLog> {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        match std::fs::symlink_metadata(dir) {
            Ok(meta) if !meta.is_dir() => {
                return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} is not a folder", dir.display())))
            }
            Ok(_) => std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?
            }
            Err(e) => return Err(e),
        }
        let path = dir.join(LOG_FILE);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a regular file", path.display()),
            ));
        }
        use std::os::unix::fs::OpenOptionsExt;
        let mut options = std::fs::OpenOptions::new();
        options.read(true).create(true).append(true).mode(0o600).custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
        let file = file_rotate::FileRotate::new(
            path,
            file_rotate::suffix::AppendCount::new(kept),
            file_rotate::ContentLimit::BytesSurpassed(limit),
            file_rotate::compression::Compression::None,
            Some(options),
        );
        Ok(RotatingLog { file: std::sync::Arc::new(std::sync::Mutex::new(file)) })
    }
}

impl Write for RotatingLog {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.file.lock().unwrap_or_else(|p| p.into_inner()).write(data)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.lock().unwrap_or_else(|p| p.into_inner()).flush()
    }
}

impl<'a> MakeWriter<'a> for RotatingLog {
    type Writer = RotatingLog;
    fn make_writer(&'a self) -> RotatingLog {
        self.clone()
    }
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

    #[test]
    fn file_logs_rotate_at_the_limit_keep_five_and_stay_owner_only_and_redacted() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("logs");
        let log = RotatingLog::open(&dir, 1024, LOG_FILES_KEPT).unwrap();
        let subscriber = tracing_subscriber::fmt().with_ansi(false).with_writer(RedactingMakeWriter::new(log)).finish();
        tracing::subscriber::with_default(subscriber, || {
            for i in 0..400 {
                tracing::info!(password = "hunter2-secret", "event {i} for ada@example.com");
            }
        });
        let mut names: Vec<String> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        assert_eq!(names, ["relay.log", "relay.log.1", "relay.log.2", "relay.log.3", "relay.log.4", "relay.log.5"]);
        assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
        for name in &names {
            let path = dir.join(name);
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600, "{name}");
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(text.len() < 1024 + 512, "{name} rotated near the limit: {}", text.len());
            assert!(!text.contains("hunter2-secret") && !text.contains("ada@example.com"), "{name} is redacted");
        }
        assert!(std::fs::read_to_string(dir.join("relay.log")).unwrap().contains("event 399"), "newest in relay.log");
    }

    #[test]
    fn a_linked_log_folder_or_file_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let elsewhere = tmp.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, tmp.path().join("logs")).unwrap();
        assert!(RotatingLog::open(&tmp.path().join("logs"), 1024, 5).is_err());
        let real = tmp.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::os::unix::fs::symlink(elsewhere.join("target"), real.join(LOG_FILE)).unwrap();
        assert!(RotatingLog::open(&real, 1024, 5).is_err());
        assert!(!elsewhere.join("target").exists());
    }
}
