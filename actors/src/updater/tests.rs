//! Updater actor tests against the fake GitHub of `infra::updater::test_support` on 127.0.0.1
//! (the real release JSON, the asset API's `302` to storage, a throwaway publisher key) with a
//! manual clock: a check only offers; a download shows its progress while it runs and ends
//! verified and staged; cancelling mid-transfer leaves no file and restores `available`; a
//! re-check reporting another release cancels a download in flight or clears a finished one; a
//! failed transfer may be retried, a bad signature may not; prepare extracts the re-hashed
//! executable and a restart re-verifies it; on-demand checks are limited and GitHub's
//! `Retry-After` is honoured; a quarantined release stays advisory; abandoned staging is removed
//! at start and nothing else; the timer checks by itself; release notes come from the cache at
//! start and are refreshed after checks without touching the update state. Waits are bounded loops or `Settled`;
//! nothing asserts on elapsed time.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use domain::updater::release::{archive_asset_name, MAX_RELEASE_JSON_BYTES};
use domain::updater::{UpdateFailure, UpdatePhase, EXECUTABLE_NAME};
use infra::http::HttpPolicy;
use infra::updater::notes::{notes_policy, NOTES_CACHE_FILE, NOTES_DIR};
use infra::updater::test_support::fake_upstream::Reply;
use infra::updater::test_support::{
    bounded, current, fake_elf, history_json, release_json, sha256, test_archive, test_policy, version, FakeGitHub,
    Publisher, ReleaseFiles, ARCHIVE_ID, COMMIT, HISTORY_PATH, LATEST_PATH, OTHER_COMMIT,
};
use infra::updater::{ReleaseDiscovery, ReleaseDownloader, ReleaseNotesFetcher, UpdatesRoot};

use super::*;
use crate::health::ActorState;
use crate::testkit::{TestCtx, START_MS};

const HOUR_MS: i64 = 3_600_000;

struct Env {
    t: TestCtx,
    github: FakeGitHub,
    publisher: Publisher,
    files: ReleaseFiles,
    updates_dir: PathBuf,
    tmp: tempfile::TempDir,
}

impl Env {
    async fn new() -> Env {
        let publisher = Publisher::new();
        let files = ReleaseFiles::signed(&publisher, test_archive());
        let github = FakeGitHub::start().await;
        github.serve(&files);
        github.api.route("GET", HISTORY_PATH, Reply::json(history_json(&files).to_string()));
        let tmp = tempfile::tempdir().unwrap();
        let updates_dir = tmp.path().join("data/relay/updates");
        Env { t: TestCtx::new(), github, publisher, files, updates_dir, tmp }
    }

    fn io_with_key(&self, key: domain::updater::PublisherKey) -> UpdaterIo {
        let discovery_policy =
            HttpPolicy { max_body_bytes: MAX_RELEASE_JSON_BYTES, ..test_policy(Duration::from_secs(5)) };
        UpdaterIo {
            discovery: ReleaseDiscovery::with_policy(discovery_policy, self.github.hosts(), current()).unwrap(),
            notes: ReleaseNotesFetcher::with_policy(notes_policy(), self.github.hosts(), current()).unwrap(),
            // Longer than the tests' hang guard, so a missing cancellation shows as a hang.
            downloader: ReleaseDownloader::with_policy(test_policy(Duration::from_secs(60)), self.github.hosts(), key)
                .unwrap(),
            updates_dir: self.updates_dir.clone(),
        }
    }

    fn config(&self) -> UpdaterConfig {
        UpdaterConfig { current_version: current(), scheduled: false, ..UpdaterConfig::default() }
    }

    fn start_with(&self, config: UpdaterConfig, io: UpdaterIo) -> Addr<UpdaterActor> {
        start(self.t.ctx(), config, io)
    }

    async fn start(&self) -> Addr<UpdaterActor> {
        let actor = self.start_with(self.config(), self.io_with_key(self.publisher.key.clone()));
        settle(&actor).await;
        actor
    }

    /// Names in the updates root (none before it exists).
    fn staging(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(&self.updates_dir) else {
            return Vec::new();
        };
        let mut names: Vec<String> = entries
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name != NOTES_DIR)
            .collect();
        names.sort();
        names
    }

    /// Files of the one staging directory.
    fn staged_files(&self) -> Vec<String> {
        let [dir] = self.staging().try_into().unwrap_or_else(|names| panic!("not one staging directory: {names:?}"));
        let mut names: Vec<String> = std::fs::read_dir(self.updates_dir.join(dir))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn archive_requests(&self) -> usize {
        self.github.storage.requests().iter().filter(|r| r.path().ends_with(&format!("/{ARCHIVE_ID}"))).count()
    }

    fn latest_requests(&self) -> usize {
        self.github.api.requests().iter().filter(|r| r.path() == LATEST_PATH).count()
    }

    fn serve_archive(&self, reply: Reply) {
        self.github.serve_stored(ARCHIVE_ID, reply);
    }

    fn archive_reply(&self) -> Reply {
        Reply::content("application/octet-stream", self.files.archive.clone())
    }
}

async fn settle(actor: &Addr<UpdaterActor>) {
    bounded(actor.send(Settled)).await.unwrap();
}

async fn snapshot(actor: &Addr<UpdaterActor>) -> UpdateSnapshot {
    actor.send(Snapshot).await.unwrap()
}

/// Waits (bounded) until the running download has reported some bytes.
async fn progress_seen(actor: &Addr<UpdaterActor>) -> UpdateSnapshot {
    for _ in 0..4_000 {
        let now = snapshot(actor).await;
        if now.downloaded_bytes > 0 {
            return now;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("no download progress was ever visible");
}

fn total(env: &Env) -> u64 {
    env.files.archive.len() as u64
}

#[actix_rt::test]
async fn a_check_offers_the_newer_release_and_downloads_nothing() {
    let env = Env::new().await;
    let actor = env.start().await;
    let offered = actor.send(CheckNow).await.unwrap().unwrap();
    assert_eq!(offered.phase, UpdatePhase::Available);
    assert_eq!((offered.current_version, offered.latest_version), (current(), Some(version())));
    assert!(offered.installable);
    assert_eq!((offered.downloaded_bytes, offered.total_bytes, offered.failure_code), (0, Some(total(&env)), None));
    assert_eq!(snapshot(&actor).await, offered);
    assert_eq!(env.latest_requests(), 1);
    assert!(env.github.storage.requests().is_empty(), "a check never downloads");
    assert!(env.staging().is_empty());
    let health = env.t.health_of(NAME).await.expect("the updater reports to the health actor");
    assert_eq!(health.state, ActorState::Running);
}

#[actix_rt::test]
async fn a_download_ends_verified_and_staged_and_prepares_nothing() {
    let env = Env::new().await;
    let actor = env.start().await;
    actor.send(CheckNow).await.unwrap().unwrap();
    let started = actor.send(StartDownload).await.unwrap().unwrap();
    assert_eq!((started.phase, started.downloaded_bytes), (UpdatePhase::Downloading, 0));
    settle(&actor).await;

    let done = snapshot(&actor).await;
    assert_eq!(done.phase, UpdatePhase::Downloaded, "{done:?}");
    assert_eq!((done.downloaded_bytes, done.total_bytes), (total(&env), Some(total(&env))));
    let name = archive_asset_name(&version());
    assert_eq!(env.staged_files(), [name.clone(), format!("{name}.minisig"), format!("{name}.sha256")]);
    assert_eq!(env.latest_requests(), 2, "the download re-fetched the release first");
    assert!(!env.staged_files().contains(&EXECUTABLE_NAME.to_string()), "a download never prepares");
}

#[actix_rt::test]
async fn progress_is_visible_while_it_runs_and_cancelling_leaves_nothing() {
    let env = Env::new().await;
    env.serve_archive(env.archive_reply().stall_after_body_bytes(300 * 1024));
    let actor = env.start().await;
    actor.send(CheckNow).await.unwrap().unwrap();
    actor.send(StartDownload).await.unwrap().unwrap();

    let running = progress_seen(&actor).await;
    assert_eq!(running.phase, UpdatePhase::Downloading);
    assert_eq!(running.total_bytes, Some(total(&env)));
    assert!(running.downloaded_bytes < total(&env), "{running:?}");
    assert_eq!(env.staging().len(), 1, "the transfer is under way in its staging directory");

    let cancelled = bounded(actor.send(CancelDownload)).await.unwrap().unwrap();
    assert_eq!((cancelled.phase, cancelled.downloaded_bytes), (UpdatePhase::Available, 0));
    assert_eq!(env.staging(), Vec::<String>::new(), "no partial file is left");
    settle(&actor).await;
    assert_eq!(snapshot(&actor).await.phase, UpdatePhase::Available);

    // Available again: the user may download afresh.
    env.serve_archive(env.archive_reply());
    actor.send(StartDownload).await.unwrap().unwrap();
    settle(&actor).await;
    assert_eq!(snapshot(&actor).await.phase, UpdatePhase::Downloaded);
}

#[actix_rt::test]
async fn a_recheck_reporting_another_release_cancels_the_download_and_clears_staging() {
    let env = Env::new().await;
    env.serve_archive(env.archive_reply().stall_after_body_bytes(300 * 1024));
    let actor = env.start().await;
    actor.send(CheckNow).await.unwrap().unwrap();
    actor.send(StartDownload).await.unwrap().unwrap();
    progress_seen(&actor).await;

    env.t.clock.advance_ms(61_000);
    let same = actor.send(CheckNow).await.unwrap().unwrap();
    assert_eq!(same.phase, UpdatePhase::Downloading, "the same release keeps its download");
    assert!(same.downloaded_bytes > 0);

    let mut other = release_json(&env.files);
    other["target_commitish"] = serde_json::Value::String(OTHER_COMMIT.into());
    env.github.api.route("GET", LATEST_PATH, Reply::json(other.to_string()));
    env.t.clock.advance_ms(61_000);
    let changed = bounded(actor.send(CheckNow)).await.unwrap().unwrap();
    assert_eq!((changed.phase, changed.downloaded_bytes), (UpdatePhase::Available, 0));
    settle(&actor).await;
    assert_eq!(env.staging(), Vec::<String>::new(), "the cancelled release's staging is cleared");
    assert_eq!(snapshot(&actor).await.phase, UpdatePhase::Available);
}

#[actix_rt::test]
async fn a_recheck_reporting_another_release_clears_a_finished_download() {
    let env = Env::new().await;
    let actor = env.start().await;
    actor.send(CheckNow).await.unwrap().unwrap();
    actor.send(StartDownload).await.unwrap().unwrap();
    settle(&actor).await;
    assert_eq!(snapshot(&actor).await.phase, UpdatePhase::Downloaded);
    assert_eq!(env.staging().len(), 1);

    let mut other = release_json(&env.files);
    other["target_commitish"] = serde_json::Value::String(OTHER_COMMIT.into());
    env.github.api.route("GET", LATEST_PATH, Reply::json(other.to_string()));
    env.t.clock.advance_ms(61_000);
    let changed = actor.send(CheckNow).await.unwrap().unwrap();
    assert_eq!((changed.phase, changed.downloaded_bytes), (UpdatePhase::Available, 0));
    settle(&actor).await;
    assert_eq!(env.staging(), Vec::<String>::new(), "the replaced release's files are removed");
}

#[actix_rt::test]
async fn a_failed_transfer_may_be_retried_and_a_bad_signature_may_not() {
    let env = Env::new().await;
    env.serve_archive(Reply::status(500));
    let actor = env.start().await;
    actor.send(CheckNow).await.unwrap().unwrap();
    actor.send(StartDownload).await.unwrap().unwrap();
    settle(&actor).await;
    let failed = snapshot(&actor).await;
    assert_eq!((failed.phase, failed.failure_code), (UpdatePhase::Error, Some(UpdateFailure::DownloadFailed)));
    assert!(env.staging().is_empty());
    let health = env.t.health_of(NAME).await.unwrap();
    assert!(health.last_error.is_some_and(|e| e.contains("update download failed")), "reported to health");

    env.serve_archive(env.archive_reply());
    actor.send(StartDownload).await.unwrap().expect("download-failed allows a retry");
    settle(&actor).await;
    assert_eq!(snapshot(&actor).await.phase, UpdatePhase::Downloaded);

    // Verified with the publisher's key only: another key fails closed and is final.
    let env = Env::new().await;
    let actor = env.start_with(env.config(), env.io_with_key(Publisher::new().key));
    settle(&actor).await;
    actor.send(CheckNow).await.unwrap().unwrap();
    actor.send(StartDownload).await.unwrap().unwrap();
    settle(&actor).await;
    let refused = snapshot(&actor).await;
    assert_eq!((refused.phase, refused.failure_code), (UpdatePhase::Error, Some(UpdateFailure::SignatureInvalid)));
    assert!(env.staging().is_empty());
    assert_eq!(env.archive_requests(), 0, "the signature is checked before the archive is fetched");
    let again = actor.send(StartDownload).await.unwrap();
    assert_eq!(again, Err(UpdaterError::NotAllowed(TransitionError::NothingToDownload)));
}

#[actix_rt::test]
async fn prepare_extracts_the_rehashed_executable_and_a_restart_reverifies_it() {
    let env = Env::new().await;
    let actor = env.start().await;
    actor.send(CheckNow).await.unwrap().unwrap();
    assert_eq!(
        actor.send(StartPrepare).await.unwrap(),
        Err(UpdaterError::NotAllowed(TransitionError::NotDownloaded)),
        "nothing to prepare before a download"
    );
    actor.send(StartDownload).await.unwrap().unwrap();
    settle(&actor).await;
    assert_eq!(
        actor.send(RequestRestart).await.unwrap(),
        Err(UpdaterError::NotAllowed(TransitionError::NotPrepared)),
        "no restart before a prepare"
    );

    let preparing = actor.send(StartPrepare).await.unwrap().unwrap();
    assert_eq!(preparing.phase, UpdatePhase::Preparing);
    settle(&actor).await;
    assert_eq!(snapshot(&actor).await.phase, UpdatePhase::Prepared, "a prepare never restarts");

    let target = actor.send(RequestRestart).await.unwrap().unwrap();
    let executable = fake_elf(700 * 1024);
    assert_eq!((target.version, target.executable_sha256), (version(), sha256(&executable)));
    assert_eq!(target.commit.to_string(), COMMIT);
    assert!(target.executable.starts_with(&env.updates_dir));
    assert_eq!(std::fs::read(&target.executable).unwrap(), executable);
    let mode = std::fs::metadata(&target.executable).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
    assert_eq!(snapshot(&actor).await.phase, UpdatePhase::Prepared, "the launcher takes over from here");

    // Changed after it was prepared: re-hashed before the restart, refused and dropped.
    let mut changed = executable.clone();
    changed[100] ^= 1;
    std::fs::write(&target.executable, &changed).unwrap();
    assert_eq!(actor.send(RequestRestart).await.unwrap(), Err(UpdaterError::PreparedChanged));
    settle(&actor).await;
    let after = snapshot(&actor).await;
    assert_eq!((after.phase, after.failure_code), (UpdatePhase::Error, Some(UpdateFailure::PrepareFailed)));
    assert!(env.staging().is_empty());
    assert_eq!(actor.send(RequestRestart).await.unwrap(), Err(UpdaterError::NotAllowed(TransitionError::NotPrepared)));
}

#[actix_rt::test]
async fn on_demand_checks_are_limited_and_githubs_wait_is_honoured() {
    let env = Env::new().await;
    let actor = env.start().await;
    actor.send(CheckNow).await.unwrap().unwrap();
    env.t.clock.advance_ms(10_000);
    assert_eq!(actor.send(CheckNow).await.unwrap(), Err(UpdaterError::RateLimited { retry_after_secs: 50 }));
    assert_eq!(env.latest_requests(), 1, "a refused check asks nothing");

    env.t.clock.advance_ms(50_000);
    env.github.api.route("GET", LATEST_PATH, Reply::status(429).header("Retry-After", "120"));
    assert_eq!(actor.send(CheckNow).await.unwrap(), Err(UpdaterError::GitHubRateLimited { retry_after_secs: 120 }));
    assert_eq!(env.latest_requests(), 2);
    env.t.clock.advance_ms(61_000);
    assert_eq!(actor.send(CheckNow).await.unwrap(), Err(UpdaterError::GitHubRateLimited { retry_after_secs: 59 }));
    assert_eq!(env.latest_requests(), 2, "nothing is asked before GitHub's wait ends");

    env.github.serve(&env.files);
    env.t.clock.advance_ms(59_000);
    let offered = actor.send(CheckNow).await.unwrap().unwrap();
    assert_eq!(offered.phase, UpdatePhase::Available);
    assert_eq!(env.latest_requests(), 3);

    env.github.api.route("GET", LATEST_PATH, Reply::status(500));
    env.t.clock.advance_ms(60_000);
    assert_eq!(actor.send(CheckNow).await.unwrap(), Err(UpdaterError::CheckFailed));
    assert_eq!(snapshot(&actor).await, offered, "a failed check changes nothing");
}

#[actix_rt::test]
async fn a_quarantined_release_stays_advisory_and_is_never_downloaded() {
    let env = Env::new().await;
    let quarantine = QuarantineHistory::from_entries(&[format!("v1.3.0@{COMMIT}")]).unwrap();
    let config = UpdaterConfig { quarantine, ..env.config() };
    let actor = env.start_with(config, env.io_with_key(env.publisher.key.clone()));
    settle(&actor).await;
    let offered = actor.send(CheckNow).await.unwrap().unwrap();
    assert_eq!(offered.latest_version, Some(version()));
    assert!(!offered.installable);
    assert_eq!(offered.failure_code, Some(UpdateFailure::ReleaseQuarantined));
    assert_eq!(
        actor.send(StartDownload).await.unwrap(),
        Err(UpdaterError::NotAllowed(TransitionError::NothingToDownload))
    );
    settle(&actor).await;
    assert_eq!(env.latest_requests(), 1, "no re-fetch");
    assert!(env.github.storage.requests().is_empty());
    assert!(env.staging().is_empty());
}

fn set_modified(path: &Path, at_ms: i64) {
    let at = UNIX_EPOCH + Duration::from_millis(at_ms as u64);
    std::fs::File::open(path).unwrap().set_modified(at).unwrap();
    let seen = std::fs::metadata(path).unwrap().modified().unwrap();
    assert_eq!(seen.duration_since(SystemTime::UNIX_EPOCH).unwrap().as_millis() as i64, at_ms);
}

#[actix_rt::test]
async fn abandoned_staging_is_removed_at_start_and_nothing_else() {
    let env = Env::new().await;
    let root = UpdatesRoot::open(&env.updates_dir).unwrap();
    let dir = |version: Version| root.create_version_dir(version).unwrap().keep();
    let old = dir(Version::new(1, 3, 0));
    std::fs::write(old.join("relay-v1.3.0-linux-x86_64.zip.part"), b"partial").unwrap();
    set_modified(&old, START_MS - 25 * HOUR_MS);
    let fresh = dir(Version::new(1, 3, 0));
    set_modified(&fresh, START_MS - HOUR_MS);
    let unknown = env.updates_dir.join("notes");
    let near_miss = env.updates_dir.join("v1.3.0-not-a-uuid");
    for path in [&unknown, &near_miss] {
        std::fs::create_dir(path).unwrap();
        set_modified(path, START_MS - 48 * HOUR_MS);
    }
    let outside = env.tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("keep"), b"x").unwrap();
    let linked = env.updates_dir.join("v1.2.0-00000000-0000-4000-8000-000000000001");
    std::os::unix::fs::symlink(&outside, &linked).unwrap();
    let before = env.staging();

    let _actor = env.start().await;
    let name = |path: &Path| path.file_name().unwrap().to_string_lossy().into_owned();
    let expected: Vec<String> = before.into_iter().filter(|n| *n != name(&old)).collect();
    assert_eq!(env.staging(), expected, "only the old recognized directory goes");
    assert!(!old.exists());
    assert!(fresh.is_dir() && unknown.is_dir() && near_miss.is_dir());
    assert!(outside.join("keep").exists(), "a link is never followed");
}

#[actix_rt::test]
async fn the_timer_checks_by_itself() {
    let env = Env::new().await;
    let config = UpdaterConfig {
        scheduled: true,
        first_check_delay: Duration::from_millis(10),
        check_interval: Duration::from_secs(3_600),
        ..env.config()
    };
    let actor = env.start_with(config, env.io_with_key(env.publisher.key.clone()));
    let mut phase = UpdatePhase::Idle;
    for _ in 0..4_000 {
        phase = snapshot(&actor).await.phase;
        if phase == UpdatePhase::Available {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(phase, UpdatePhase::Available, "the scheduled check never ran");
    assert_eq!(env.latest_requests(), 1);
    assert!(env.github.storage.requests().is_empty(), "a scheduled check never downloads");
    assert!(actor.send(CheckNow).await.unwrap().is_ok(), "scheduled checks leave the on-demand one free");
}

async fn notes(actor: &Addr<UpdaterActor>) -> ReleaseNotesState {
    actor.send(ReleaseNotesSnapshot).await.unwrap()
}

fn note_versions(state: &ReleaseNotesState) -> Vec<String> {
    state.releases.iter().map(|note| note.version.to_string()).collect()
}

#[actix_rt::test]
async fn release_notes_come_from_the_cache_then_refresh_after_checks_and_a_failure_keeps_them() {
    let env = Env::new().await;
    let cached = domain::updater::notes::parse_release_history(&serde_json::json!([release_json(&env.files)])).unwrap();
    infra::updater::write_notes_cache(&env.updates_dir, &cached, START_MS - HOUR_MS).unwrap();
    let history_requests = || env.github.api.requests().iter().filter(|r| r.path() == HISTORY_PATH).count();

    let actor = env.start().await;
    let state = notes(&actor).await;
    assert_eq!((note_versions(&state), state.fetched_at_ms), (vec!["1.3.0".to_owned()], Some(START_MS - HOUR_MS)));
    assert_eq!(history_requests(), 0, "the cache is read, GitHub is not asked at start");

    actor.send(CheckNow).await.unwrap().unwrap();
    settle(&actor).await;
    let state = notes(&actor).await;
    assert_eq!(note_versions(&state), ["1.3.0", "1.2.0"], "drafts and prereleases are skipped");
    assert_eq!(state.fetched_at_ms, Some(START_MS));
    assert_eq!(history_requests(), 1);
    let file = env.updates_dir.join(NOTES_DIR).join(NOTES_CACHE_FILE);
    assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(infra::updater::read_notes_cache(&env.updates_dir), Some((state.releases.clone(), START_MS)));

    // Another on-demand check within 15 minutes leaves the notes alone.
    env.t.clock.advance_ms(60_000);
    actor.send(CheckNow).await.unwrap().unwrap();
    settle(&actor).await;
    assert_eq!(history_requests(), 1, "on demand, the notes refresh at most once per 15 minutes");

    // A failed refresh keeps the notes and the cache, and the update state is untouched.
    env.github.api.route("GET", HISTORY_PATH, Reply::status(500));
    env.t.clock.advance_ms(15 * 60_000);
    let offered = actor.send(CheckNow).await.unwrap().unwrap();
    settle(&actor).await;
    assert_eq!(history_requests(), 2);
    assert_eq!(notes(&actor).await, state);
    assert_eq!((offered.phase, snapshot(&actor).await.phase), (UpdatePhase::Available, UpdatePhase::Available));
    assert_eq!(infra::updater::read_notes_cache(&env.updates_dir), Some((state.releases.clone(), START_MS)));
}

#[actix_rt::test]
async fn a_corrupt_notes_cache_is_ignored_at_start() {
    let env = Env::new().await;
    infra::updater::write_notes_cache(&env.updates_dir, &[], 1).unwrap();
    let file = env.updates_dir.join(NOTES_DIR).join(NOTES_CACHE_FILE);
    std::fs::write(&file, b"{not json").unwrap();
    let actor = env.start().await;
    assert_eq!(notes(&actor).await, ReleaseNotesState::default());
    assert!(!file.exists(), "removed");
}

/// A repair stages exactly the retained build's release (by tag, its commit, verified and
/// prepared like an update) without touching the update state; one at a time, at most one per
/// minute; another commit or a release signed with another key is refused and leaves nothing.
#[actix_rt::test]
async fn a_repair_stages_exactly_the_retained_builds_release_and_is_limited() {
    let env = Env::new().await;
    let actor = env.start().await;
    let commit = domain::updater::CommitSha::parse_hex(COMMIT).unwrap();
    let staged = bounded(actor.send(StageRepair { version: version(), commit })).await.unwrap().unwrap();
    let executable = staged.executable();
    assert_eq!(std::fs::read(&executable).unwrap(), fake_elf(700 * 1024));
    assert_eq!(actor.send(Snapshot).await.unwrap().phase, UpdatePhase::Idle, "the update state is untouched");
    assert_eq!(actor.send(RepairStatus).await.unwrap(), None, "nothing in flight once it answered");
    let again = actor.send(StageRepair { version: version(), commit }).await.unwrap();
    assert!(matches!(again, Err(UpdaterError::RateLimited { .. })), "{again:?}");
    drop(staged);
    assert!(!executable.exists(), "dropping the staged repair removes it");

    env.t.clock.advance_ms(61_000);
    let other = domain::updater::CommitSha::parse_hex(OTHER_COMMIT).unwrap();
    let refused = bounded(actor.send(StageRepair { version: version(), commit: other })).await.unwrap();
    assert_eq!(refused.unwrap_err(), UpdaterError::RepairFailed { code: "repair_commit_mismatch" });

    let stranger = env.start_with(env.config(), env.io_with_key(Publisher::new().key));
    settle(&stranger).await;
    let unsigned = bounded(stranger.send(StageRepair { version: version(), commit })).await.unwrap();
    assert!(matches!(unsigned, Err(UpdaterError::RepairFailed { .. })), "{unsigned:?}");
    settle(&actor).await;
    assert_eq!(env.staging(), Vec::<String>::new(), "no refused repair leaves staging behind");
}
