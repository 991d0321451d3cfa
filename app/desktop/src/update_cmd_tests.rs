use super::*;
use domain::updater::{TransitionError, UpdatePhase};

use crate::updater_host::{tests::offline_io, UpdaterHost};

const T: &str = "tauri://localhost";

fn block<F: std::future::Future>(f: F) -> F::Output {
    tauri::async_runtime::block_on(f)
}

#[test]
fn every_update_command_is_main_window_only() {
    let all = [
        UPDATE_STATUS,
        UPDATE_CHECK,
        UPDATE_DOWNLOAD,
        UPDATE_CANCEL,
        UPDATE_PREPARE,
        UPDATE_RESTART,
        UPDATE_RELEASE_NOTES,
    ];
    for command in all {
        assert_eq!(command.access, Access::MainOnly, "{}", command.name);
        assert!(command.authorize("main", "tauri://localhost/index.html", T).is_ok(), "{}", command.name);
        for label in ["aux-oncall", "dynatrace", "Main"] {
            let refused = command.authorize(label, "tauri://localhost/?popout=oncall", T);
            assert!(matches!(refused, Err(BridgeError::Forbidden(_))), "{} from {label}", command.name);
        }
        let foreign = command.authorize("main", "https://evil.example/", T);
        assert!(matches!(foreign, Err(BridgeError::Forbidden(_))), "{}", command.name);
    }
}

#[test]
fn refusals_keep_the_plain_message_and_a_stable_bridge_code() {
    let limited = refused(UpdaterError::RateLimited { retry_after_secs: 42 });
    assert_eq!(limited, BridgeError::RateLimited(42));
    assert_eq!(refused(UpdaterError::GitHubRateLimited { retry_after_secs: 0 }), BridgeError::RateLimited(1));
    assert_eq!(
        refused(UpdaterError::NotAllowed(TransitionError::NothingToDownload)),
        BridgeError::Invalid("No installable update is available to download.".into())
    );
    assert_eq!(
        refused(UpdaterError::CheckFailed),
        BridgeError::Unavailable("The update check did not complete.".into())
    );
    let changed = refused(UpdaterError::PreparedChanged);
    assert!(matches!(&changed, BridgeError::Unavailable(m) if m.contains("download it again")), "{changed:?}");
    let json = serde_json::to_value(refused(UpdaterError::NotAllowed(TransitionError::NotPrepared))).unwrap();
    assert_eq!(json, serde_json::json!({"code": "invalid", "message": "No prepared update is waiting for a restart."}));
}

#[test]
fn without_an_updater_every_command_is_unavailable() {
    let unavailable = |r: Result<serde_json::Value, BridgeError>| matches!(r, Err(BridgeError::Unavailable(_)));
    let json = |v: UpdateSnapshot| serde_json::to_value(v).unwrap();
    assert!(unavailable(block(status(None)).map(json)));
    assert!(unavailable(block(check(None)).map(json)));
    assert!(unavailable(block(download(None)).map(json)));
    assert!(unavailable(block(cancel(None)).map(json)));
    assert!(unavailable(block(prepare(None)).map(json)));
    assert!(unavailable(block(restart(None, None, None)).map(|(r, _)| serde_json::to_value(r).unwrap())));
    assert!(unavailable(block(release_notes(None)).map(|r| serde_json::to_value(r).unwrap())));
}

#[test]
fn release_notes_are_camel_case_and_mark_the_running_version() {
    let running = Version::parse("1.2.0").unwrap();
    let note = |version: &str, published_at: Option<&str>| domain::updater::ReleaseNote {
        version: Version::parse(version).unwrap(),
        title: format!("Relay {version}"),
        published_at: published_at.map(str::to_owned),
        body: "## Fixes\n- <b>x</b>".into(),
    };
    let state = ReleaseNotesState {
        releases: vec![note("1.3.0", Some("2026-03-01T10:00:02Z")), note("1.2.0", None)],
        fetched_at_ms: Some(1_800_000_000_000),
    };
    let wire = serde_json::to_value(ReleaseNotesInfo::new(state, running)).unwrap();
    assert_eq!(
        wire,
        serde_json::json!({
            "releases": [
                {"version": "1.3.0", "title": "Relay 1.3.0", "publishedAt": "2026-03-01T10:00:02Z", "body": "## Fixes\n- <b>x</b>", "current": false},
                {"version": "1.2.0", "title": "Relay 1.2.0", "publishedAt": null, "body": "## Fixes\n- <b>x</b>", "current": true},
            ],
            "fetchedAtMs": 1_800_000_000_000i64,
        })
    );
    let empty = serde_json::to_value(ReleaseNotesInfo::new(ReleaseNotesState::default(), running)).unwrap();
    assert_eq!(empty, serde_json::json!({"releases": [], "fetchedAtMs": null}));
}

#[test]
fn an_updater_without_notes_answers_an_empty_list() {
    let tmp = tempfile::tempdir().unwrap();
    let host = UpdaterHost::with_io(offline_io(tmp.path()));
    let wire = serde_json::to_value(block(release_notes(host.addr())).unwrap()).unwrap();
    assert_eq!(wire, serde_json::json!({"releases": [], "fetchedAtMs": null}));
    host.stop();
}

#[test]
fn each_step_is_refused_until_its_predecessor_happened() {
    let tmp = tempfile::tempdir().unwrap();
    let host = UpdaterHost::with_io(offline_io(tmp.path()));
    let snapshot = block(status(host.addr())).unwrap();
    assert_eq!((snapshot.phase, snapshot.latest_version, snapshot.downloaded_bytes), (UpdatePhase::Idle, None, 0));
    let wire = serde_json::to_value(&snapshot).unwrap();
    assert_eq!(wire["phase"], "idle");
    assert_eq!(wire["currentVersion"], env!("CARGO_PKG_VERSION"));
    assert!(wire.get("downloadedBytes").is_some() && wire.get("totalBytes").is_some(), "{wire}");

    let invalid = |r: Result<UpdateSnapshot, BridgeError>| match r {
        Err(BridgeError::Invalid(message)) => message,
        other => panic!("expected invalid, got {other:?}"),
    };
    assert_eq!(invalid(block(download(host.addr()))), "No installable update is available to download.");
    assert_eq!(invalid(block(cancel(host.addr()))), "No download is in progress.");
    assert_eq!(invalid(block(prepare(host.addr()))), "No downloaded update is waiting to be prepared.");
    let restart = block(restart(host.addr(), None, None));
    assert_eq!(restart, Err(BridgeError::Invalid("No prepared update is waiting for a restart.".into())));
    assert_eq!(block(status(host.addr())).unwrap().phase, UpdatePhase::Idle, "refusals change nothing");
    host.stop();
    assert!(matches!(block(status(host.addr())), Err(BridgeError::Unavailable(_))), "a stopped updater");
}

fn target(dir: &Path, bytes: &[u8], version: &str) -> RestartTarget {
    use sha2::Digest;
    let executable = dir.join(format!("staged-{version}"));
    std::fs::write(&executable, bytes).unwrap();
    let digest: [u8; 32] = sha2::Sha256::digest(bytes).into();
    RestartTarget {
        version: Version::parse(version).unwrap(),
        commit: domain::updater::CommitSha::parse_hex(&format!("0123abcd{}", "e".repeat(32))).unwrap(),
        executable,
        executable_sha256: domain::updater::Sha256Digest::from_bytes(digest),
    }
}

#[test]
fn restart_info_names_the_verified_executable_and_whether_it_was_handed_off() {
    let target = RestartTarget {
        version: Version::parse("1.4.0").unwrap(),
        commit: domain::updater::CommitSha::parse_hex(&"ab".repeat(20)).unwrap(),
        executable: "/home/u/.local/share/relay/updates/v1.4.0-x/relay-desktop".into(),
        executable_sha256: domain::updater::Sha256Digest::from_bytes([7; 32]),
    };
    let wire = serde_json::to_value(RestartInfo::new(&target, &HandOff::Unmanaged)).unwrap();
    assert_eq!(
        wire,
        serde_json::json!({
            "version": "1.4.0",
            "commit": "ab".repeat(20),
            "executableSha256": "07".repeat(32),
            "handedOff": false,
        })
    );
    assert!(!wire.to_string().contains("/home/"), "the path stays in the shell");
    let installed = HandOff::Installed(BuildId::parse("v1-4-0-abababab").unwrap());
    let wire = serde_json::to_value(RestartInfo::new(&target, &installed)).unwrap();
    assert_eq!(wire["handedOff"], true);
    assert!(!wire.to_string().contains("/home/") && !wire.to_string().contains("v1-4-0"), "{wire}");
    assert_eq!(installed.exit_code(), Some(75));
    assert_eq!(HandOff::Unmanaged.exit_code(), None);
}

#[test]
fn a_managed_runtime_installs_the_candidate_and_exits_75() {
    let layout = managed::Layout::new();
    let staged = target(layout.tmp.path(), b"the new runtime", "1.2.3");
    let decision = hand_off(Some(&layout.root_path), Some(&layout.current_exe), &staged).unwrap();
    let build = BuildId::parse("v1-2-3-0123abcd").unwrap();
    assert_eq!(decision, HandOff::Installed(build.clone()));
    assert_eq!(decision.exit_code(), Some(HAND_OFF_EXIT_CODE));
    let catalog = layout.catalog();
    let candidate = catalog.candidate.expect("the catalog names the candidate");
    assert_eq!(candidate.build, build);
    assert_eq!(candidate.source_build, catalog.current.build);
    let installed = layout.root.runtime_dir(&build).join(infra::recovery::EXECUTABLE_NAME);
    assert_eq!(std::fs::read(installed).unwrap(), b"the new runtime");
    let refusal = install_refused(&RecoveryIoError::Locked);
    assert!(matches!(&refusal, BridgeError::Unavailable(m) if m.ends_with("(recovery_locked)")), "{refusal:?}");
}

#[test]
fn an_unmanaged_installation_installs_nothing() {
    let layout = managed::Layout::new();
    let staged = target(layout.tmp.path(), b"the new runtime", "1.2.3");
    let elsewhere = layout.tmp.path().join("relay-desktop");
    std::fs::write(&elsewhere, b"current").unwrap();
    assert_eq!(hand_off(Some(&layout.root_path), Some(&elsewhere), &staged).unwrap(), HandOff::Unmanaged);
    assert_eq!(hand_off(None, Some(&layout.current_exe), &staged).unwrap(), HandOff::Unmanaged);
    assert_eq!(hand_off(Some(&layout.root_path), None, &staged).unwrap(), HandOff::Unmanaged);
    let no_root = layout.tmp.path().join("nowhere/relay");
    assert_eq!(hand_off(Some(&no_root), Some(&layout.current_exe), &staged).unwrap(), HandOff::Unmanaged);
    assert_eq!(layout.catalog().candidate, None);
    assert_eq!(std::fs::read_dir(layout.root.runtimes_dir()).unwrap().count(), 1, "nothing installed");
}

#[test]
fn a_quarantined_release_is_refused_and_nothing_exits() {
    let layout = managed::Layout::new();
    let staged = target(layout.tmp.path(), b"the new runtime", "1.2.3");
    layout.quarantine(staged.version, staged.commit);
    let refused = hand_off(Some(&layout.root_path), Some(&layout.current_exe), &staged).unwrap_err();
    assert!(matches!(refused, RecoveryIoError::Quarantined), "{refused:?}");
    let wire = install_refused(&refused);
    assert!(matches!(&wire, BridgeError::Invalid(m) if m.ends_with("(release_quarantined)")), "{wire:?}");
    assert_eq!(layout.catalog().candidate, None);
    assert_eq!(std::fs::read_dir(layout.root.runtimes_dir()).unwrap().count(), 1, "nothing installed");
}

#[test]
fn a_pending_candidate_refuses_a_second_hand_off() {
    let layout = managed::Layout::new();
    let first = target(layout.tmp.path(), b"the new runtime", "1.2.3");
    hand_off(Some(&layout.root_path), Some(&layout.current_exe), &first).unwrap();
    let second = target(layout.tmp.path(), b"a newer runtime", "1.2.4");
    let refused = hand_off(Some(&layout.root_path), Some(&layout.current_exe), &second).unwrap_err();
    assert!(matches!(refused, RecoveryIoError::CandidateExists), "{refused:?}");
    assert!(matches!(install_refused(&refused), BridgeError::Invalid(m) if m.ends_with("(candidate_exists)")));
    let candidate = layout.catalog().candidate.unwrap();
    assert_eq!(candidate.build.as_str(), "v1-2-3-0123abcd", "the first candidate stays");
    assert!(!layout.root.runtime_dir(&BuildId::parse("v1-2-4-0123abcd").unwrap()).exists());
}
