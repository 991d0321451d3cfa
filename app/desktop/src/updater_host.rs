//! Where the desktop's updater actor lives: [`UpdaterHost`] owns one dedicated OS thread
//! (`relay-updater`) running its own actix `System`, with its own health actor, on which
//! `actors::system::start_desktop_updater` starts the updater in client and server mode (the
//! setup screen has none).
//!
//! Why its own thread and not the backend's: in server mode the backend thread runs one actix
//! `System` per generation, and a backup restore stops that System and starts the next one.
//! Every actor of a generation is dropped with it, and the updater's staged files belong to its
//! values, so an updater there would lose a download in flight or a prepared candidate at every
//! restore, and its address in the bridge would go stale. The updater is not part of the server
//! (never on `relay serve`'s LAN surface), so it gets a System that lives exactly as long as the
//! shell: started before the window, stopped on app exit (dropping the actor removes its
//! staging directories). Its failures go to its own health actor; the server's `/api/health`
//! does not list it. A panic on this thread is a recoverable failure for `guards`, not a fatal
//! one: the app keeps running and the update commands answer `unavailable`.
//!
//! Test runs never reach GitHub by themselves: in a debug build the scheduled checks (5 s after
//! start, then every 15 minutes) run only when `RELAY_TEST_UPSTREAM_GITHUB_API` points the
//! discovery endpoint at a loopback fake ([`updater_config`]); without it only an explicit
//! "Check for updates" goes out. Release builds keep the fixed endpoint and the schedule.
//! For the WebDriver flow against a fake GitHub, a debug build with that override also takes
//! the publisher key from `RELAY_TEST_UPDATER_PUBLISHER_KEY` (the base64 line of a throwaway
//! `minisign.pub`), since the compiled-in key is a placeholder that refuses every release.
//! Release builds contain neither lookup.
//!
//! Whether this installation can install an update (`UpdaterConfig::supported`) and which
//! releases are quarantined come from the launcher's managed layout ([`layout_settings`]): the
//! managed root `managed_root_from($XDG_DATA_HOME, $HOME)`, `supported` when this executable is
//! the catalog's current or candidate runtime there (`managed_build_of`), the quarantine from
//! its catalog. A layout that cannot be proved (an invalid catalog, a link, another user's
//! entry) fails closed: not supported, with a warning naming only the reason's code. A debug
//! build against the GitHub test endpoint stays supported when unmanaged, so the WebDriver flow
//! can download and prepare ([`updates_supported`]); its Restart then hands nothing off.

use std::path::{Path, PathBuf};
use std::sync::{mpsc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use actix::{Actor, Addr};
use actors::health::HealthActor;
use actors::updater::{UpdaterActor, UpdaterConfig, UpdaterIo};
use domain::updater::{BuildId, PublisherKey, QuarantineHistory};
use infra::recovery::{managed_build_of, quarantined, ManagedRoot, RecoveryIoError};
use infra::updater::{GitHubHosts, ReleaseDownloader};

/// The name of the updater's thread (a panic on it is recoverable, see `domain::stability`).
pub const UPDATER_THREAD: &str = "relay-updater";
/// How long app exit waits for the updater's thread (its staging removal) before moving on.
const STOP_WAIT: Duration = Duration::from_secs(5);

/// The updater's configuration for this build: the production default, with scheduled checks
/// off in a debug build unless `github_api_override` (the value of
/// `RELAY_TEST_UPSTREAM_GITHUB_API`) names a test endpoint. `infra::http::endpoints` refuses an
/// override that is not loopback, so a debug build with scheduling on talks only to a fake.
pub fn updater_config(debug_build: bool, github_api_override: Option<&str>) -> UpdaterConfig {
    let faked = github_api_override.is_some_and(|v| !v.trim().is_empty());
    UpdaterConfig { scheduled: !debug_build || faked, ..UpdaterConfig::default() }
}

/// Whether this installation may install updates, from `managed` (`managed_build_of`'s answer
/// for this executable): a managed runtime may; an unprovable layout may not (fail closed); an
/// unmanaged one may not, except a debug build against the GitHub test endpoint (the WebDriver
/// update flow, whose Restart then hands nothing off).
pub fn updates_supported(
    debug_build: bool,
    github_api_override: Option<&str>,
    managed: &Result<Option<BuildId>, RecoveryIoError>,
) -> bool {
    match managed {
        Ok(Some(_)) => true,
        Ok(None) => debug_build && github_api_override.is_some_and(|v| !v.trim().is_empty()),
        Err(_) => false,
    }
}

/// The managed root of this user (`$XDG_DATA_HOME/relay`, else `~/.local/share/relay`).
pub fn managed_root() -> Option<PathBuf> {
    infra::recovery::managed_root_from(
        std::env::var_os("XDG_DATA_HOME").as_deref(),
        std::env::var_os("HOME").as_deref(),
    )
}

/// `supported` and the quarantine from the managed layout at `root` for the executable
/// `current_exe` (see the module doc). No root or no catalog yet: an empty quarantine. An
/// unprovable layout: not supported, an empty quarantine, one warning with the reason's code.
pub fn layout_settings(
    debug_build: bool,
    github_api_override: Option<&str>,
    root: Option<&Path>,
    current_exe: Option<&Path>,
) -> (bool, QuarantineHistory) {
    let managed = match (root, current_exe) {
        (Some(root), Some(exe)) => managed_build_of(root, exe),
        _ => Ok(None),
    };
    let quarantine = match root {
        Some(root) => ManagedRoot::open_existing(root)
            .and_then(|root| root.map(|root| quarantined(&root)).transpose())
            .map(Option::unwrap_or_default),
        None => Ok(QuarantineHistory::new()),
    };
    let (managed, quarantine) = match (managed, quarantine) {
        (Ok(managed), Ok(quarantine)) => (Ok(managed), quarantine),
        (Err(error), _) | (_, Err(error)) => {
            tracing::warn!(
                target: "relay::security",
                reason = error.code(),
                "the launcher's managed layout cannot be proved; this desktop does not install updates"
            );
            (Err(error), QuarantineHistory::new())
        }
    };
    (updates_supported(debug_build, github_api_override, &managed), quarantine)
}

/// The debug-only variable with a test publisher key (see the module doc).
pub const TEST_PUBLISHER_KEY_ENV: &str = "RELAY_TEST_UPDATER_PUBLISHER_KEY";

/// The publisher key that replaces the compiled-in one: only in a debug build, only with a
/// GitHub test endpoint, only a valid minisign key; `Err` names a refused variable (the updater
/// then keeps the compiled-in key and the shell logs why).
pub fn test_publisher_key(
    debug_build: bool,
    github_api_override: Option<&str>,
    key: Option<&str>,
) -> Result<Option<PublisherKey>, &'static str> {
    let Some(key) = key.map(str::trim).filter(|k| !k.is_empty()) else {
        return Ok(None);
    };
    if !debug_build {
        return Err("a test publisher key exists only in debug builds");
    }
    if github_api_override.is_none_or(|v| v.trim().is_empty()) {
        return Err("a test publisher key needs the GitHub test endpoint");
    }
    PublisherKey::from_base64(key).map(Some).map_err(|_| "the test publisher key is not a minisign public key")
}

/// The updater's configuration and test key for this process (the variables are read in debug
/// builds only).
fn settings_for_this_build() -> (UpdaterConfig, Option<PublisherKey>) {
    #[cfg(debug_assertions)]
    let (api, key) = (
        std::env::var(infra::http::endpoints::GITHUB_API.override_var()).ok(),
        std::env::var(TEST_PUBLISHER_KEY_ENV).ok(),
    );
    #[cfg(not(debug_assertions))]
    let (api, key): (Option<String>, Option<String>) = (None, None);
    let debug = cfg!(debug_assertions);
    let test_key = test_publisher_key(debug, api.as_deref(), key.as_deref()).unwrap_or_else(|refused| {
        tracing::warn!("{TEST_PUBLISHER_KEY_ENV} ignored: {refused}");
        None
    });
    let exe = std::env::current_exe().ok();
    let (supported, quarantine) = layout_settings(debug, api.as_deref(), managed_root().as_deref(), exe.as_deref());
    if !supported {
        tracing::info!("this desktop is not a launcher-managed runtime: updates are advisory");
    }
    (UpdaterConfig { supported, quarantine, ..updater_config(debug, api.as_deref()) }, test_key)
}

/// Starts the updater: `start_desktop_updater`, or with a test key the same production IO with
/// that key's downloader.
fn start_updater(
    health: Addr<HealthActor>,
    config: UpdaterConfig,
    test_key: Option<PublisherKey>,
) -> Option<Addr<UpdaterActor>> {
    let clock = infra::clock::system();
    let Some(key) = test_key else {
        return actors::system::start_desktop_updater(health, clock, config);
    };
    let io = UpdaterIo::production(config.current_version).map_err(|e| e.to_string()).and_then(|mut io| {
        let hosts = GitHubHosts::for_this_build().map_err(|e| e.to_string())?;
        io.downloader = ReleaseDownloader::new(hosts, key).map_err(|e| e.to_string())?;
        Ok(io)
    });
    match io {
        Ok(io) => {
            tracing::warn!("debug build: the updater verifies releases with the test publisher key");
            Some(actors::updater::start(actors::kit::SubsystemCtx::new(clock, health), config, io))
        }
        Err(error) => {
            tracing::warn!(%error, "the updater cannot be set up; this desktop runs without updates");
            None
        }
    }
}

/// The updater actor's address and the thread that runs it (managed by Tauri), and the managed
/// root Restart hands a prepared update to.
pub struct UpdaterHost {
    addr: Option<Addr<UpdaterActor>>,
    runtime: Mutex<Option<(actix::System, JoinHandle<()>)>>,
    managed_root: Option<PathBuf>,
}

impl UpdaterHost {
    /// Starts the updater's thread and actor. When either cannot start (logged), the host is
    /// empty and the update commands answer `unavailable`.
    pub fn start() -> UpdaterHost {
        let (config, test_key) = settings_for_this_build();
        if !config.scheduled {
            tracing::info!("debug build without a GitHub test endpoint: update checks run only on request");
        }
        let mut host = UpdaterHost::spawn(move |health| start_updater(health, config, test_key));
        host.managed_root = managed_root();
        host
    }

    /// Runs `start` on a new `relay-updater` thread with its own actix System and health actor.
    fn spawn(start: impl FnOnce(Addr<HealthActor>) -> Option<Addr<UpdaterActor>> + Send + 'static) -> UpdaterHost {
        let (tx, rx) = mpsc::channel();
        let spawned = std::thread::Builder::new().name(UPDATER_THREAD.into()).spawn(move || {
            let system = actix::System::new();
            system.block_on(async move {
                let health = HealthActor::new(infra::clock::system()).start();
                let _ = tx.send((start(health), actix::System::current()));
            });
            let _ = system.run();
        });
        let thread = match spawned {
            Ok(thread) => thread,
            Err(e) => {
                tracing::warn!(error = %e, "the updater thread cannot start; this desktop runs without updates");
                return UpdaterHost::absent();
            }
        };
        match rx.recv() {
            Ok((addr, system)) => UpdaterHost { addr, runtime: Mutex::new(Some((system, thread))), managed_root: None },
            Err(_) => {
                tracing::warn!("the updater thread exited before starting; this desktop runs without updates");
                UpdaterHost::absent()
            }
        }
    }

    /// Tests: an updater on its own thread with `io` (unscheduled: it checks only on request).
    #[cfg(test)]
    pub fn with_io(io: actors::updater::UpdaterIo) -> UpdaterHost {
        let config = UpdaterConfig { scheduled: false, ..UpdaterConfig::default() };
        UpdaterHost::spawn(move |health| {
            let ctx = actors::kit::SubsystemCtx::new(infra::clock::system(), health);
            Some(actors::updater::start(ctx, config, io))
        })
    }

    /// No updater (the setup screen, a failed start, the tests' mock app).
    pub fn absent() -> UpdaterHost {
        UpdaterHost { addr: None, runtime: Mutex::new(None), managed_root: None }
    }

    /// The managed root Restart installs into (`None` in tests and without a home).
    pub fn managed_root(&self) -> Option<&Path> {
        self.managed_root.as_deref()
    }

    /// The updater actor, if this desktop runs one.
    pub fn addr(&self) -> Option<Addr<UpdaterActor>> {
        self.addr.clone()
    }

    /// App exit: stops the updater's System (the actor is dropped and removes its staging) and
    /// waits up to `STOP_WAIT` for the thread. Idempotent.
    pub fn stop(&self) {
        let Some((system, thread)) = self.runtime.lock().unwrap_or_else(|p| p.into_inner()).take() else {
            return;
        };
        system.stop();
        let (done_tx, done_rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = thread.join();
            let _ = done_tx.send(());
        });
        if done_rx.recv_timeout(STOP_WAIT).is_err() {
            tracing::warn!("the updater thread did not stop in time");
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn release_builds_always_schedule_checks_on_the_fixed_endpoint() {
        assert!(updater_config(false, None).scheduled);
        assert!(updater_config(false, Some("http://127.0.0.1:9")).scheduled);
        let config = updater_config(false, None);
        assert_eq!(config, UpdaterConfig { scheduled: true, ..UpdaterConfig::default() });
    }

    #[test]
    fn debug_builds_schedule_checks_only_against_a_test_endpoint() {
        assert!(!updater_config(true, None).scheduled, "no override: no scheduled check reaches GitHub");
        assert!(!updater_config(true, Some("")).scheduled, "an empty override is none");
        assert!(!updater_config(true, Some("  ")).scheduled);
        assert!(updater_config(true, Some("http://127.0.0.1:4100")).scheduled);
    }

    /// An updater whose hosts are the production ones but which is never asked to check, with
    /// its updates root in `dir`.
    pub fn offline_io(dir: &std::path::Path) -> actors::updater::UpdaterIo {
        let current = actors::updater::running_version();
        let hosts = infra::updater::GitHubHosts::production();
        actors::updater::UpdaterIo {
            discovery: infra::updater::ReleaseDiscovery::new(hosts.clone(), current).unwrap(),
            notes: infra::updater::ReleaseNotesFetcher::new(hosts.clone(), current).unwrap(),
            downloader: infra::updater::ReleaseDownloader::new(hosts, domain::updater::PublisherKey::production())
                .unwrap(),
            updates_dir: dir.join("relay/updates"),
        }
    }

    #[test]
    fn the_host_runs_the_updater_on_its_own_system_and_stops_it() {
        let tmp = tempfile::tempdir().unwrap();
        let host = UpdaterHost::with_io(offline_io(tmp.path()));
        let addr = host.addr().expect("the updater starts");
        let snapshot = tauri::async_runtime::block_on(addr.send(actors::updater::Snapshot)).unwrap();
        assert_eq!(snapshot.phase, domain::updater::UpdatePhase::Idle);
        assert_eq!(snapshot.current_version, actors::updater::running_version());
        host.stop();
        host.stop();
        // `stop` waits at most STOP_WAIT for the thread; under a loaded CI machine the System
        // can take longer to wind down, so wait (bounded) for the mailbox to close.
        let closed = (0..300).any(|_| {
            let answered = tauri::async_runtime::block_on(addr.send(actors::updater::Snapshot)).is_ok();
            if answered {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            !answered
        });
        assert!(closed, "the updater's System stopped within 30 s");
    }

    #[test]
    fn a_test_publisher_key_needs_a_debug_build_and_the_github_test_endpoint() {
        let pair = minisign_test_key();
        let api = Some("http://127.0.0.1:4100");
        assert_eq!(test_publisher_key(true, api, None), Ok(None));
        assert_eq!(test_publisher_key(true, api, Some("  ")), Ok(None));
        let key = test_publisher_key(true, api, Some(&pair)).unwrap().expect("a key");
        assert!(key.is_configured());
        assert!(test_publisher_key(false, api, Some(&pair)).is_err(), "never in a release build");
        assert!(test_publisher_key(true, None, Some(&pair)).is_err(), "never against the real GitHub");
        assert!(test_publisher_key(true, Some(""), Some(&pair)).is_err());
        assert!(test_publisher_key(true, api, Some("not a key")).is_err());
    }

    /// The base64 line of a minisign public key (`Ed`, 8-byte key id, 32-byte key) for the rule
    /// test; nothing is signed with it.
    fn minisign_test_key() -> String {
        use base64::Engine;
        let mut raw = b"Ed".to_vec();
        raw.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
        raw.extend_from_slice(&[9; 32]);
        base64::engine::general_purpose::STANDARD.encode(raw)
    }

    #[test]
    fn only_a_managed_runtime_or_a_debug_build_against_the_test_endpoint_is_supported() {
        let managed: Result<Option<BuildId>, RecoveryIoError> = Ok(Some(BuildId::parse("v1-0-0-aaaaaaaa").unwrap()));
        let api = Some("http://127.0.0.1:4100");
        for (debug, api) in [(false, None), (true, None), (true, api), (false, api)] {
            assert!(updates_supported(debug, api, &managed), "a managed runtime ({debug}, {api:?})");
            let unprovable = Err(RecoveryIoError::InvalidCatalog("json"));
            assert!(!updates_supported(debug, api, &unprovable), "fail closed ({debug}, {api:?})");
        }
        assert!(!updates_supported(false, None, &Ok(None)), "an unmanaged release build");
        assert!(!updates_supported(false, api, &Ok(None)), "a release build never takes the test endpoint");
        assert!(!updates_supported(true, None, &Ok(None)), "an unmanaged debug build");
        assert!(!updates_supported(true, Some(" "), &Ok(None)), "an empty override is none");
        assert!(updates_supported(true, api, &Ok(None)), "the WebDriver update flow");
    }

    #[test]
    fn the_managed_layout_decides_supported_and_the_quarantine() {
        let layout = crate::update_cmd::managed::Layout::new();
        let (root, exe) = (Some(layout.root_path.as_path()), Some(layout.current_exe.as_path()));
        assert_eq!(layout_settings(false, None, root, exe), (true, QuarantineHistory::new()));
        let (version, commit) = (
            domain::updater::Version::parse("1.2.2").unwrap(),
            domain::updater::CommitSha::parse_hex(&"b".repeat(40)).unwrap(),
        );
        layout.quarantine(version, commit);
        let (supported, quarantine) = layout_settings(false, None, root, exe);
        assert!(supported);
        assert!(quarantine.contains(&version, &commit), "the catalog's quarantine reaches the updater");

        let elsewhere = layout.tmp.path().join("relay-desktop");
        std::fs::write(&elsewhere, b"current").unwrap();
        let (supported, quarantine) = layout_settings(false, None, root, Some(&elsewhere));
        assert!(!supported, "an executable outside the managed root");
        assert!(quarantine.contains(&version, &commit), "the quarantine still applies");
        assert!(layout_settings(true, Some("http://127.0.0.1:4100"), root, Some(&elsewhere)).0);
        assert_eq!(layout_settings(false, None, None, exe), (false, QuarantineHistory::new()), "no home");

        std::fs::write(layout.root.catalog_path(), b"{\"protocol\": 1}").unwrap();
        for (debug, api) in [(false, None), (true, Some("http://127.0.0.1:4100"))] {
            let (supported, quarantine) = layout_settings(debug, api, root, exe);
            assert!(!supported, "an invalid catalog fails closed ({debug})");
            assert_eq!(quarantine, QuarantineHistory::new());
        }
    }

    #[test]
    fn without_a_catalog_the_quarantine_is_empty_and_nothing_is_managed() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("relay");
        let exe = root.join("runtimes/v1-0-0-aaaaaaaa/relay-desktop");
        assert_eq!(layout_settings(false, None, Some(&root), Some(&exe)), (false, QuarantineHistory::new()));
        infra::recovery::ManagedRoot::open(&root).unwrap();
        assert_eq!(layout_settings(false, None, Some(&root), Some(&exe)), (false, QuarantineHistory::new()));
        assert!(layout_settings(true, Some("http://127.0.0.1:4100"), Some(&root), Some(&exe)).0);
    }

    #[test]
    fn an_absent_host_has_no_updater() {
        let host = UpdaterHost::absent();
        assert!(host.addr().is_none());
        host.stop();
    }
}
