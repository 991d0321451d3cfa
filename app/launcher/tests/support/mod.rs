//! The launcher black-box cases' fixtures: a [`Case`] (temporary HOME, XDG_DATA_HOME, data
//! directory with sample server and client data, a recording releases-page opener, a staged
//! candidate executable), seeding of runtimes and catalogs through the real `infra::recovery`
//! API, running the real `relay-launcher` with a bounded wait, and the end-state checks.

pub mod fake_runtime;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use domain::updater::{BuildId, CommitSha, Version};
use infra::recovery::{Catalog, CatalogBuild, ManagedRoot, RecoveryLock, RuntimeMarker};
use sha2::{Digest, Sha256, Sha512};

pub const CURRENT: &str = "v1-0-0-aaaaaaaa";
pub const CANDIDATE: &str = "v1-1-0-1234abcd";
pub const OLDEST: &str = "v0-7-0-77777777";
pub const RELEASES_PAGE: &str = "https://github.com/CrimsonSoul/Relay/releases";
pub const TIME_SCALE: u64 = 50;
const CANDIDATE_VERSION: &str = "1.1.0";

fn candidate_commit() -> String {
    format!("1234abcd{}", "0".repeat(32))
}

pub fn candidate_fingerprint() -> String {
    format!("v{CANDIDATE_VERSION}@{}", candidate_commit())
}

/// The fault points a promotion passes, in order.
pub const PROMOTE_POINTS: [&str; 15] = [
    "recovery:snapshot:after-copy",
    "recovery:snapshot:complete:before-rename",
    "recovery:snapshot:complete:after-rename",
    "recovery:snapshot:after-activate",
    "recovery:catalog-snapshot:before-rename",
    "recovery:catalog-snapshot:after-rename",
    "recovery:catalog-attempt:before-rename",
    "recovery:catalog-attempt:after-rename",
    "recovery:settlement:before-rename",
    "recovery:settlement:after-rename",
    "recovery:promote:after-trash",
    "recovery:catalog-promote:before-rename",
    "recovery:catalog-promote:after-rename",
    "recovery:promote:after-catalog",
    "recovery:promote:after-cleanup",
];

/// The fault points a rollback passes (one snapshot point, then those after the launches), in order.
pub const ROLLBACK_POINTS: [&str; 19] = [
    "recovery:snapshot:after-activate",
    "recovery:catalog-attempt:after-rename",
    "recovery:settlement:before-rename",
    "recovery:settlement:after-rename",
    "recovery:restore:after-stage",
    "recovery:restore-journal:before-rename",
    "recovery:restore-journal:after-rename",
    "recovery:restore:after-displace-store",
    "recovery:restore:after-swap-store",
    "recovery:restore:after-displace-offline",
    "recovery:restore:after-swap-offline",
    "recovery:rollback:after-restore",
    "recovery:rollback:after-trash",
    "recovery:catalog-rollback:before-rename",
    "recovery:catalog-rollback:after-rename",
    "recovery:rollback:after-catalog",
    "recovery:restore:after-remove-displaced",
    "recovery:rollback:after-restore-cleanup",
    "recovery:rollback:after-cleanup",
];

/// The fault points a first install (`relay-launcher install`) passes, in order.
pub const FIRST_INSTALL_POINTS: [&str; 4] = [
    "recovery:first-install:after-mkdir",
    "recovery:first-install:after-copy",
    "recovery:first-install:before-rename",
    "recovery:first-install:after-rename",
];

/// The commit whose first install is [`CURRENT`] (`v1-0-0-aaaaaaaa`) at version 1.0.0.
pub fn current_commit() -> String {
    "a".repeat(40)
}

pub fn self_exe() -> PathBuf {
    std::env::current_exe().unwrap()
}

/// What each build does (see `fake_runtime`).
pub struct Scenario {
    plan: String,
    /// Started as `relay-launcher recovery` (the recovery entry).
    recovery: bool,
    /// Started without `--data-dir` (as the packaged menu entry does).
    default_data_dir: bool,
}

impl Scenario {
    /// The current build hands off to a healthy candidate.
    pub fn promote() -> Scenario {
        Scenario { plan: format!("{CURRENT}=handoff;{CANDIDATE}=healthy"), recovery: false, default_data_dir: false }
    }
    /// The current build hands off to a candidate with `behaviour`.
    pub fn rollback(behaviour: &str) -> Scenario {
        Scenario {
            plan: format!("{CURRENT}=handoff;{CANDIDATE}={behaviour}"),
            recovery: false,
            default_data_dir: false,
        }
    }
    /// Every build starts and exits 0.
    pub fn plain() -> Scenario {
        Scenario { plan: "none=exit0".into(), recovery: false, default_data_dir: false }
    }
    /// The current build requests a manual rollback (to `RELAY_FAKE_ROLLBACK_TO`) and exits 75;
    /// every other build exits 0.
    pub fn manual_rollback() -> Scenario {
        Scenario { plan: format!("{CURRENT}=rollback"), recovery: false, default_data_dir: false }
    }
    /// The same builds, started through the recovery entry (`relay-launcher recovery`).
    pub fn via_recovery_entry(self) -> Scenario {
        Scenario { recovery: true, ..self }
    }
    /// The same builds, started without `--data-dir` (the launcher's default data directory).
    pub fn with_default_data_dir(self) -> Scenario {
        Scenario { default_data_dir: true, ..self }
    }
    /// Every build requests a rollback (to `RELAY_FAKE_ROLLBACK_TO`) and exits 75.
    pub fn any_build_rolls_back() -> Scenario {
        Scenario { plan: format!("{CURRENT}=rollback;{OLDEST}=rollback"), recovery: false, default_data_dir: false }
    }
    /// The current build always exits 75 without installing anything.
    pub fn handoff_loop() -> Scenario {
        Scenario { plan: format!("{CURRENT}=exit75"), recovery: false, default_data_dir: false }
    }
}

pub struct Out {
    pub status: ExitStatus,
    stderr: Vec<u8>,
}

impl Out {
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

pub fn signal(out: &Out) -> Option<i32> {
    out.status.signal()
}

/// Whether the process exists and is not a zombie (an orphan may wait for a reaper).
pub fn process_alive(pid: &str) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

pub struct Case {
    _tmp: tempfile::TempDir,
    /// The `relay-launcher` this case runs (the built one, or its copy in a package layout).
    launcher_exe: PathBuf,
    pub home: PathBuf,
    pub xdg: PathBuf,
    pub root: PathBuf,
    pub data_dir: PathBuf,
    log: PathBuf,
    opened: PathBuf,
    opener: PathBuf,
    staged: PathBuf,
    staged_sha256: String,
}

impl Case {
    pub fn new() -> Case {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let xdg = tmp.path().join("xdg");
        let data_dir = tmp.path().join("data");
        for dir in [&home, &xdg, &data_dir] {
            fs::create_dir(dir).unwrap();
            fs::set_permissions(dir, fs::Permissions::from_mode(0o700)).unwrap();
        }
        fs::create_dir_all(data_dir.join("store/wiki")).unwrap();
        fs::create_dir_all(data_dir.join("offline")).unwrap();
        fs::write(data_dir.join("store/relay.db"), b"the server's database before the update").unwrap();
        fs::write(data_dir.join("store/wiki/doc.pdf"), vec![42u8; 20_000]).unwrap();
        fs::write(data_dir.join("offline/queue.db"), b"pending changes").unwrap();
        fs::write(data_dir.join("desktop.json"), b"{\"mode\":\"server\"}").unwrap();
        let opened = tmp.path().join("opened.txt");
        let opener = tmp.path().join("opener.sh");
        fs::write(&opener, format!("#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\n", opened.display())).unwrap();
        fs::set_permissions(&opener, fs::Permissions::from_mode(0o700)).unwrap();
        let staged = tmp.path().join("staged-relay-desktop");
        fs::copy(self_exe(), &staged).unwrap();
        let staged_sha256 = hex(&Sha256::digest(fs::read(&staged).unwrap()));
        let root = xdg.join("relay");
        Case {
            launcher_exe: PathBuf::from(env!("CARGO_BIN_EXE_relay-launcher")),
            home,
            xdg,
            root,
            data_dir,
            log: tmp.path().join("runtime.log"),
            opened,
            opener,
            staged,
            staged_sha256,
            _tmp: tmp,
        }
    }

    /// Runs `relay-launcher` to completion (at most 60 s).
    pub fn launcher(&self, scenario: &Scenario, extra: &[(&str, &str)]) -> Out {
        let mut child = self.spawn_launcher(scenario, extra);
        let stderr = child.stderr.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut { stderr }, &mut bytes).unwrap();
            bytes
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("the launcher did not finish within 60 s");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Out { status, stderr: reader.join().unwrap() }
    }

    /// `relay-launcher` with this case's HOME and XDG_DATA_HOME, info logs, and no inherited
    /// fault point or data directory.
    fn launcher_base(&self) -> Command {
        let mut command = Command::new(&self.launcher_exe);
        command
            .env_remove("RELAY_TEST_FAULT")
            .env_remove("RELAY_DATA_DIR")
            .env("HOME", &self.home)
            .env("XDG_DATA_HOME", &self.xdg)
            .env("RELAY_LOG", "info");
        command
    }

    /// Starts `relay-launcher` (stderr piped) and returns at once.
    pub fn spawn_launcher(&self, scenario: &Scenario, extra: &[(&str, &str)]) -> std::process::Child {
        let mut command = self.launcher_base();
        command
            .env("RELAY_TEST_LAUNCHER_TIME_SCALE", TIME_SCALE.to_string())
            .env("RELAY_TEST_LAUNCHER_OPENER", &self.opener)
            .env(fake_runtime::PLAN_ENV, &scenario.plan)
            .env("RELAY_FAKE_LOG", &self.log)
            .env("RELAY_FAKE_STAGED", &self.staged)
            .env("RELAY_FAKE_STAGED_SHA256", &self.staged_sha256)
            .env("RELAY_FAKE_STAGED_VERSION", CANDIDATE_VERSION)
            .env("RELAY_FAKE_STAGED_COMMIT", candidate_commit())
            .args(scenario.recovery.then_some("recovery"))
            .args(if scenario.default_data_dir {
                vec![]
            } else {
                vec!["--data-dir".as_ref(), self.data_dir.as_os_str()]
            })
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (name, value) in extra {
            command.env(name, value);
        }
        command.spawn().unwrap()
    }

    /// Runs `relay-launcher <args>` (an install or a refused command line) to completion with
    /// this case's HOME and XDG_DATA_HOME.
    pub fn launcher_command(&self, args: &[&std::ffi::OsStr], extra: &[(&str, &str)]) -> std::process::Output {
        let mut command = self.launcher_base();
        command.args(args).stdin(Stdio::null());
        for (name, value) in extra {
            command.env(name, value);
        }
        command.output().unwrap()
    }

    /// `relay-launcher install --runtime <runtime> --version 1.0.0 --commit <a × 40>`: installs
    /// [`CURRENT`].
    pub fn install_first(&self, runtime: &Path, extra: &[(&str, &str)]) -> std::process::Output {
        let commit = current_commit();
        let os = std::ffi::OsStr::new;
        let args = [os("install"), os("--runtime"), runtime.as_os_str(), os("--version"), os("1.0.0")];
        self.launcher_command(&[&args[..], &[os("--commit"), os(&commit)]].concat(), extra)
    }

    /// Lays out the `relay-desktop` package's files under this case's `pkg/usr` and runs that
    /// launcher from now on: `bin/relay-launcher` (a copy of the built one) and the seed,
    /// `lib/relay-desktop/relay-desktop` (this test binary, the fake runtime) with its manifest
    /// `seed.json` (version 1.0.0 and [`current_commit`], so the seed installs as [`CURRENT`];
    /// `sha256` is the seed's digest unless `sha256` names another). Returns the seed's path.
    pub fn install_package(&mut self, sha256: Option<&str>) -> PathBuf {
        let usr = self._tmp.path().join("pkg/usr");
        fs::create_dir_all(usr.join("bin")).unwrap();
        fs::create_dir_all(usr.join("lib/relay-desktop")).unwrap();
        let launcher = usr.join("bin/relay-launcher");
        fs::copy(env!("CARGO_BIN_EXE_relay-launcher"), &launcher).unwrap();
        let seed = usr.join("lib/relay-desktop/relay-desktop");
        fs::copy(self_exe(), &seed).unwrap();
        fs::set_permissions(&seed, fs::Permissions::from_mode(0o755)).unwrap();
        let digest = hex(&Sha256::digest(fs::read(&seed).unwrap()));
        let manifest = format!(
            "{{\"version\": \"1.0.0\", \"commit\": \"{}\", \"sha256\": \"{}\"}}\n",
            current_commit(),
            sha256.unwrap_or(&digest)
        );
        fs::write(usr.join("lib/relay-desktop/seed.json"), manifest).unwrap();
        self.launcher_exe = launcher;
        seed
    }

    /// The data directory each runtime start was given (`data <build> <dir>` lines).
    pub fn data_dirs(&self) -> Vec<String> {
        self.log().lines().filter_map(|line| line.strip_prefix("data ")).map(String::from).collect()
    }

    /// Waits (at most 20 s) until the fake runtime log holds a line starting with `prefix`.
    pub fn wait_for_log(&self, prefix: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(line) = self.log().lines().find(|line| line.starts_with(prefix)) {
                return line.to_owned();
            }
            assert!(Instant::now() < deadline, "no {prefix:?} in the runtime log");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Installs the staged executable as the candidate through the real API (as the desktop
    /// will), from this process.
    pub fn install_candidate(&self) -> infra::recovery::CandidateTicket {
        let root = ManagedRoot::open(&self.root).unwrap();
        infra::recovery::install_candidate(
            &root,
            &self.staged,
            &domain::updater::Sha256Digest::parse_hex(&self.staged_sha256).unwrap(),
            Version::parse(CANDIDATE_VERSION).unwrap(),
            CommitSha::parse_hex(&candidate_commit()).unwrap(),
        )
        .unwrap()
    }

    pub fn log(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// `<build> <txn|->` for every runtime start, the transaction shown as `txn`.
    pub fn starts(&self) -> Vec<String> {
        self.log()
            .lines()
            .filter_map(|line| line.strip_prefix("start "))
            .map(|rest| {
                let (build, txn) = rest.split_once(' ').unwrap();
                format!("{build} {}", if txn == "-" { "-" } else { "txn" })
            })
            .collect()
    }

    pub fn pid_of(&self, build: &str) -> String {
        let prefix = format!("pid {build} ");
        self.log().lines().filter_map(|line| line.strip_prefix(&prefix)).next_back().unwrap().to_owned()
    }

    pub fn opened(&self) -> Vec<String> {
        fs::read_to_string(&self.opened).unwrap_or_default().lines().map(String::from).collect()
    }

    pub fn runtime_dirs(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.root.join("runtimes"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// One valid catalog with a current build and no candidate; no intent, journal, snapshot,
    /// leftover or temp file; no restore directories in the data directory.
    pub fn assert_settled(&self) {
        let root = ManagedRoot::open_existing(&self.root).unwrap().unwrap();
        let catalog = infra::recovery::read_catalog(&root).unwrap().expect("a catalog");
        assert!(catalog.candidate.is_none());
        infra::recovery::check_disk(&root, &catalog, None).unwrap();
        for name in ["settlement.json", "restore.json"] {
            assert!(!self.root.join("recovery").join(name).exists(), "{name} left behind");
        }
        assert_eq!(fs::read_dir(self.root.join("recovery/snapshots")).unwrap().count(), 0, "snapshots left");
        let recovery: Vec<String> = fs::read_dir(self.root.join("recovery"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.contains(".tmp-"))
            .collect();
        assert!(recovery.is_empty(), "temp files left: {recovery:?}");
        assert!(self.runtime_dirs().iter().all(|name| !name.starts_with('.')), "{:?}", self.runtime_dirs());
        for name in [".relay-recovery-stage", ".relay-recovery-displaced"] {
            assert!(!self.data_dir.join(name).exists(), "{name} left in the data directory");
        }
    }
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes `runtimes/<build>/relay-desktop` (a copy of `exe`, 0700) and its marker; returns the
/// marker's SHA-512.
pub fn write_runtime(case: &Case, build: &str, exe: &Path) -> String {
    let dir = case.root.join("runtimes").join(build);
    fs::create_dir_all(&dir).unwrap();
    for path in [case.root.clone(), case.root.join("runtimes"), dir.clone()] {
        fs::set_permissions(path, fs::Permissions::from_mode(0o700)).unwrap();
    }
    fs::copy(exe, dir.join("relay-desktop")).unwrap();
    fs::set_permissions(dir.join("relay-desktop"), fs::Permissions::from_mode(0o700)).unwrap();
    let sha512: [u8; 64] = Sha512::digest(fs::read(dir.join("relay-desktop")).unwrap()).into();
    let marker = RuntimeMarker::new(
        &BuildId::parse(build).unwrap(),
        &Version::parse("1.0.0").unwrap(),
        &CommitSha::parse_hex(&"c".repeat(40)).unwrap(),
        &sha512,
    )
    .to_json();
    fs::write(dir.join("marker.json"), &marker).unwrap();
    fs::set_permissions(dir.join("marker.json"), fs::Permissions::from_mode(0o600)).unwrap();
    hex(&Sha512::digest(&marker))
}

/// Runtimes for `predecessors` (oldest first) and `current`, and a catalog naming them.
pub fn seed(case: &Case, predecessors: &[&str], current: &str) {
    let root = ManagedRoot::open(&case.root).unwrap();
    let entry = |build: &str, promoted_at_ms: u64| CatalogBuild {
        build: BuildId::parse(build).unwrap(),
        marker_sha512: write_runtime(case, build, &self_exe()),
        promoted_at_ms,
    };
    let mut catalog = Catalog::with_current(entry(current, 10_000));
    for (rank, build) in predecessors.iter().enumerate() {
        catalog.predecessors.insert(0, entry(build, 100 * (rank as u64 + 1)));
    }
    let lock = RecoveryLock::acquire(&root, Duration::ZERO).unwrap();
    infra::recovery::write_catalog(&root, &lock, &catalog).unwrap();
}

pub fn read_catalog_json(case: &Case) -> serde_json::Value {
    serde_json::from_slice(&fs::read(case.root.join("recovery/catalog.json")).unwrap()).unwrap()
}

pub fn edit_catalog(case: &Case, edit: impl Fn(String) -> String) {
    let path = case.root.join("recovery/catalog.json");
    let text = fs::read_to_string(&path).unwrap();
    let edited = edit(text.clone());
    assert_ne!(edited, text);
    fs::write(path, edited).unwrap();
}

/// Every entry under `dir`: relative path → SHA-256 of the file's bytes, or `<dir>`; sorted,
/// without the data directory's lock file (created by the launcher's snapshot, not data).
pub fn tree(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(dir).unwrap().to_path_buf();
            if relative == Path::new(".relay.lock") {
                continue;
            }
            if fs::symlink_metadata(&path).unwrap().is_dir() {
                files.push((relative, "<dir>".into()));
                pending.push(path);
            } else {
                files.push((relative, hex(&Sha256::digest(fs::read(&path).unwrap()))));
            }
        }
    }
    files.sort();
    files
}
