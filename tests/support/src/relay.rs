//! The server harness: starts the real `relay` binary (`relay serve`) on a random port with a
//! temporary (or given) data directory, waits for its "listening" line, keeps everything the
//! server writes (stdout and stderr) for log checks, and kills the process when dropped.
//! [`RelayBuilder`] holds every start option (bind address, extra arguments, environment, log
//! level, log file, binary); the `Relay::start*` shorthands are the black-box tests' common
//! cases. It refuses to reach outside services: every status page and Dynatrace points at a
//! closed loopback port unless the test serves it. Every wait is bounded.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::process::relay_bin;
use crate::web::client;

/// The connection passphrase every harness server is bootstrapped with.
pub const PASSPHRASE: &str = "blackbox-passphrase-42";

/// A loopback origin nothing listens on (the discard port): where outside services point in
/// black-box tests that do not serve them.
pub const CLOSED_UPSTREAM: &str = "http://127.0.0.1:9";

/// How long a server may take to print its "listening" line.
const START_DEADLINE: Duration = Duration::from_secs(20);

/// A running `relay serve`; killed on drop.
pub struct Relay {
    child: Option<Child>,
    /// The data API's base URL (`http://127.0.0.1:port`).
    pub base: String,
    /// The Relay Web gateway's base URL, when it was started.
    pub web: Option<String>,
    pub data_dir: PathBuf,
    stderr_log: PathBuf,
    stdout_log: PathBuf,
    stdout_reader: Option<std::thread::JoinHandle<()>>,
    _tmp: Option<tempfile::TempDir>,
}

/// The options of one `relay serve` start (see [`Relay::builder`]).
pub struct RelayBuilder {
    bin: PathBuf,
    data_dir: Option<PathBuf>,
    bind: String,
    args: Vec<String>,
    envs: Vec<(String, String)>,
    log_level: String,
    stderr_log: Option<PathBuf>,
}

impl RelayBuilder {
    /// Runs another `relay` build than this one's (a bench measuring an older commit).
    pub fn bin(mut self, bin: impl Into<PathBuf>) -> Self {
        self.bin = bin.into();
        self
    }

    /// Serves an existing (or new) data directory the caller owns, instead of a temporary one.
    pub fn data_dir(mut self, data_dir: &Path) -> Self {
        self.data_dir = Some(data_dir.to_path_buf());
        self
    }

    /// Binds to `bind` (default 127.0.0.1; the tests connect to 127.0.0.1 only).
    pub fn bind(mut self, bind: &str) -> Self {
        self.bind = bind.to_string();
        self
    }

    /// Extra `relay serve` arguments.
    pub fn args(mut self, args: &[&str]) -> Self {
        self.args.extend(args.iter().map(|a| a.to_string()));
        self
    }

    /// Extra environment variables (debug-only test switches, upstream overrides).
    pub fn envs<K: AsRef<str>, V: AsRef<str>>(mut self, envs: impl IntoIterator<Item = (K, V)>) -> Self {
        self.envs.extend(envs.into_iter().map(|(k, v)| (k.as_ref().to_string(), v.as_ref().to_string())));
        self
    }

    /// `--log-level` (default `info`).
    pub fn log_level(mut self, level: &str) -> Self {
        self.log_level = level.to_string();
        self
    }

    /// Writes the server's stderr (its log) to `path` instead of a file beside the data directory.
    pub fn stderr_log(mut self, path: &Path) -> Self {
        self.stderr_log = Some(path.to_path_buf());
        self
    }

    /// Starts the server and waits (20 s at most) for its "listening" line.
    pub fn start(self) -> Relay {
        let tmp = match self.data_dir {
            Some(_) => None,
            None => Some(tempfile::tempdir().expect("tempdir")),
        };
        let data_dir = match (&self.data_dir, &tmp) {
            (Some(dir), _) => dir.clone(),
            (None, Some(tmp)) => tmp.path().join("data"),
            (None, None) => unreachable!("a temporary directory is made when none is given"),
        };
        let stderr_log =
            self.stderr_log.unwrap_or_else(|| data_dir.with_extension(format!("stderr-{}.log", rand_suffix())));
        let stderr = std::fs::File::create(&stderr_log).expect("stderr log");
        let mut child = Command::new(&self.bin)
            .args(["serve", "--data-dir"])
            .arg(&data_dir)
            .args(["--port", "0", "--bind", &self.bind, "--log-level", &self.log_level])
            .args(&self.args)
            .env("RELAY_BOOTSTRAP_PASSPHRASE", PASSPHRASE)
            // Every outside service points at a closed loopback port unless the test serves it
            // (a black-box test never reaches the real status pages).
            .envs(infra::status_feeds::testdata::override_env(CLOSED_UPSTREAM))
            .env("RELAY_TEST_UPSTREAM_DYNATRACE", CLOSED_UPSTREAM)
            .env_remove("RELAY_LOG")
            .envs(self.envs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("spawn relay");
        let stdout = child.stdout.take().expect("stdout");
        let stdout_log = data_dir.with_extension(format!("stdout-{}.log", rand_suffix()));
        let mut stdout_copy = std::fs::File::create(&stdout_log).expect("stdout log");
        let (tx, rx) = mpsc::channel();
        let (web_tx, web_rx) = mpsc::channel();
        let stdout_reader = std::thread::spawn(move || {
            use std::io::Write;
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = writeln!(stdout_copy, "{line}");
                if let Some(url) = line.strip_prefix("Relay listening on ") {
                    let _ = tx.send(url.trim().to_string());
                } else if let Some(url) = line.strip_prefix("Relay Web listening on ") {
                    let _ = web_tx.send(url.trim().to_string());
                }
            }
        });
        let base = match rx.recv_timeout(START_DEADLINE) {
            Ok(base) => base,
            Err(_) => {
                let _ = child.kill();
                panic!("relay did not start: {}", std::fs::read_to_string(&stderr_log).unwrap_or_default());
            }
        };
        // The server announces Relay Web before the data API, so it is known by now if it started.
        let web = web_rx.try_recv().ok();
        Relay {
            child: Some(child),
            base,
            web,
            data_dir,
            stderr_log,
            stdout_log,
            stdout_reader: Some(stdout_reader),
            _tmp: tmp,
        }
    }
}

impl Relay {
    /// The start options, defaulting to this build's `relay` on a fresh temporary data directory,
    /// bound to 127.0.0.1 at log level `info`.
    pub fn builder() -> RelayBuilder {
        RelayBuilder {
            bin: relay_bin().into(),
            data_dir: None,
            bind: "127.0.0.1".into(),
            args: Vec::new(),
            envs: Vec::new(),
            log_level: "info".into(),
            stderr_log: None,
        }
    }

    /// Starts a server on a fresh data directory.
    pub fn start() -> Relay {
        Relay::builder().start()
    }

    /// Starts a server on a fresh data directory with extra `relay serve` arguments.
    pub fn start_with(extra: &[&str]) -> Relay {
        Relay::builder().args(extra).start()
    }

    /// Starts a server with direct LAN access and the Relay Web gateway on a free port. Tests
    /// still only talk to 127.0.0.1.
    pub fn start_web() -> Relay {
        let relay = Relay::builder().bind("0.0.0.0").args(&["--web", "--web-port", "0"]).start();
        assert!(relay.web.is_some(), "gateway started: {}", relay.stderr());
        relay
    }

    /// Starts a server on an existing (or new) data directory with extra arguments.
    pub fn start_in(data_dir: &Path, extra: &[&str]) -> Relay {
        Relay::builder().data_dir(data_dir).args(extra).start()
    }

    /// Starts a server bound to `bind` (the tests connect to 127.0.0.1 only).
    pub fn start_bound(data_dir: &Path, bind: &str, extra: &[&str]) -> Relay {
        Relay::builder().data_dir(data_dir).bind(bind).args(extra).start()
    }

    /// Starts a server with extra environment variables (debug-only test switches).
    pub fn start_env(data_dir: &Path, bind: &str, extra: &[&str], envs: &[(&str, &str)]) -> Relay {
        Relay::builder().data_dir(data_dir).bind(bind).args(extra).envs(envs.iter().copied()).start()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr_log).unwrap_or_default()
    }

    /// Waits (10 s at most) until the server's stderr (its log) holds `needle`; returns the log.
    pub fn wait_for_stderr(&self, needle: &str) -> String {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            let log = self.stderr();
            if log.contains(needle) {
                return log;
            }
            assert!(std::time::Instant::now() < deadline, "no {needle:?} in the server's log:\n{log}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Everything the server wrote to stdout and stderr so far (all of it once `stop()` returned).
    pub fn output(&self) -> String {
        let stdout = std::fs::read_to_string(&self.stdout_log).unwrap_or_default();
        format!("{stdout}{}", self.stderr())
    }

    /// The server's process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// The server's peak resident memory so far (`VmHWM` in `/proc/<pid>/status`), in KiB.
    pub fn peak_rss_kib(&self) -> u64 {
        let pid = self.pid().expect("the server runs");
        crate::bench::status_kib(pid, "VmHWM").expect("VmHWM in KiB in the server's /proc status")
    }

    /// Stops the server with SIGTERM and waits for it to exit (and for its stdout to be copied);
    /// SIGKILL after 5 s.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            send_sigterm(&child);
            let exited = (0..100).any(|_| {
                let done = child.try_wait().ok().flatten().is_some();
                if !done {
                    std::thread::sleep(Duration::from_millis(50));
                }
                done
            });
            if !exited {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
        if let Some(reader) = self.stdout_reader.take() {
            let _ = reader.join();
        }
    }

    /// Waits (bounded) for the server to exit on its own; returns how it ended.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let child = self.child.as_mut()?;
        let deadline = std::time::Instant::now() + timeout;
        while std::time::Instant::now() < deadline {
            if let Some(status) = child.try_wait().ok().flatten() {
                self.child = None;
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }

    /// Kills the server with SIGKILL (no shutdown path runs) and waits for it to exit.
    pub fn kill_hard(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Signs in on the data API as `relay` with the passphrase; returns the app token.
    pub async fn token(&self) -> String {
        let res = client()
            .post(self.url("/api/collections/users/auth-with-password"))
            .json(&json!({"identity": "relay", "password": PASSPHRASE}))
            .send()
            .await
            .expect("login request");
        assert_eq!(res.status(), 200);
        let body: Value = res.json().await.unwrap();
        body["token"].as_str().unwrap().to_string()
    }

    /// Creates a record through the data API and returns it (panics on failure).
    pub async fn create(&self, token: &str, collection: &str, body: &Value) -> Value {
        let res = client()
            .post(self.url(&format!("/api/collections/{collection}/records")))
            .header("Authorization", token)
            .json(body)
            .send()
            .await
            .expect("create request");
        assert_eq!(res.status(), 200, "create {collection}");
        res.json().await.expect("record json")
    }

    /// GETs a data-API path with the token and returns its JSON body.
    pub async fn get_json(&self, token: &str, path: &str) -> Value {
        let res = client().get(self.url(path)).header("Authorization", token).send().await.expect("get request");
        res.json().await.expect("json body")
    }
}

fn send_sigterm(child: &Child) {
    let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::{SystemTime, UNIX_EPOCH};
    // A per-process counter keeps two starts in one test process apart even within a nanosecond.
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
    nanos ^ u64::from(std::process::id()) ^ (NEXT.fetch_add(1, Ordering::Relaxed) << 48)
}

impl Drop for Relay {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The store file of a data directory (wherever its layout keeps it).
pub fn db_path(data_dir: &Path) -> PathBuf {
    infra::datadir::DataDir::open(data_dir).expect("data directory").db_path()
}
