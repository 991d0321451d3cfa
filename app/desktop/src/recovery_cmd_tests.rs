use super::*;
use crate::update_cmd::managed::Layout;

const OLDER: &str = "v0-9-0-bbbbbbbb";

#[test]
fn an_unmanaged_installation_has_no_recovery_state_and_cannot_roll_back() {
    let layout = Layout::new();
    let elsewhere = layout.tmp.path().join("relay-desktop");
    let outside = status(Some(&layout.root_path), Some(&elsewhere)).unwrap();
    assert_eq!(outside, RecoveryStatus { managed: false, overview: None, repair: None });
    assert!(!status(None, Some(&layout.current_exe)).unwrap().managed);
    let refused = request(Some(&layout.root_path), Some(&elsewhere), &BuildId::parse(OLDER).unwrap(), 1).unwrap_err();
    assert!(matches!(refused, BridgeError::Unavailable(m) if m.contains("not managed by the Relay launcher")));
}

#[test]
fn the_status_lists_the_retained_builds_by_their_markers() {
    let layout = Layout::new();
    layout.add_predecessor(OLDER, "0.9.0");
    let managed = status(Some(&layout.root_path), Some(&layout.current_exe)).unwrap();
    assert!(managed.managed);
    let overview = managed.overview.expect("a catalog");
    assert_eq!((overview.current.build.as_str(), overview.current.version.as_str()), ("v1-0-0-aaaaaaaa", "1.0.0"));
    let retained: Vec<(&str, &str, &str)> =
        overview.predecessors.iter().map(|p| (p.build.as_str(), p.version.as_str(), p.rollback)).collect();
    assert_eq!(retained, [(OLDER, "0.9.0", "available")]);
    let wire = serde_json::to_value(&overview).unwrap();
    assert!(wire["predecessors"][0]["promotedAtMs"].is_u64(), "{wire}");
    assert!(!wire.to_string().contains(layout.root_path.to_str().unwrap()), "no path reaches the renderer");
}

#[test]
fn a_rollback_request_names_a_retained_build_and_nothing_else() {
    let layout = Layout::new();
    layout.add_predecessor(OLDER, "0.9.0");
    let exe = Some(layout.current_exe.as_path());
    let unknown = request(Some(&layout.root_path), exe, &BuildId::parse("v0-1-0-cccccccc").unwrap(), 1).unwrap_err();
    assert_eq!(unknown, BridgeError::Invalid("That build is not one of the retained builds.".into()));
    let current = request(Some(&layout.root_path), exe, &BuildId::parse("v1-0-0-aaaaaaaa").unwrap(), 1).unwrap_err();
    assert!(matches!(current, BridgeError::Invalid(_)), "the current build is no rollback target");
    assert!(!layout.root.rollback_request_path().exists(), "refusals write nothing");
    assert!(matches!(parse_build("../../usr/bin"), Err(BridgeError::Invalid(_))));

    let (written, version) = request(Some(&layout.root_path), exe, &BuildId::parse(OLDER).unwrap(), 7).unwrap();
    assert_eq!(
        (written.source.as_str(), written.target.as_str(), version.as_str()),
        ("v1-0-0-aaaaaaaa", OLDER, "0.9.0")
    );
    assert!(layout.root.rollback_request_path().exists());
    assert!(status(Some(&layout.root_path), exe).unwrap().overview.unwrap().rollback_requested);
    assert_eq!(layout.catalog().current.build.as_str(), "v1-0-0-aaaaaaaa", "the launcher switches, not the desktop");
}

#[test]
fn refusals_read_as_plain_sentences() {
    let epochs = rollback_refused(&RecoveryIoError::RollbackRefused("data_epoch_mismatch"));
    assert_eq!(
        epochs,
        BridgeError::Invalid("That build cannot read today's data format, so rolling back to it is blocked.".into())
    );
    assert!(matches!(rollback_refused(&RecoveryIoError::Locked), BridgeError::Unavailable(_)));
    let io = RecoveryIoError::Io { step: "rename_temp", source: std::io::Error::other("disk") };
    assert_eq!(
        rollback_refused(&io),
        BridgeError::Unavailable("The rollback could not be requested (recovery_io).".into())
    );
}

#[test]
fn a_repair_puts_back_only_the_bytes_the_marker_names() {
    let layout = Layout::new();
    let (root, exe) = (Some(layout.root_path.as_path()), Some(layout.current_exe.as_path()));
    let current = BuildId::parse("v1-0-0-aaaaaaaa").unwrap();
    assert!(repair_target_of(root, exe, &current).unwrap().intact);
    std::fs::write(&layout.current_exe, b"tampered").unwrap();
    let subject = repair_target_of(root, exe, &current).unwrap();
    assert!(!subject.intact);
    assert_eq!((subject.version.as_str(), subject.commit.as_str()), ("1.0.0", "a".repeat(40).as_str()));

    let wrong = layout.tmp.path().join("wrong");
    std::fs::write(&wrong, b"another program").unwrap();
    let refused = put_back(root, exe, &current, &wrong).unwrap_err();
    assert_eq!(
        refused,
        BridgeError::Invalid("The downloaded release does not match this build's record; nothing was changed.".into())
    );
    assert_eq!(std::fs::read(&layout.current_exe).unwrap(), b"tampered");

    let right = layout.tmp.path().join("right");
    std::fs::write(&right, b"current").unwrap();
    assert_eq!(put_back(root, exe, &current, &right).unwrap(), RepairOutcome::Repaired);
    assert!(repair_target_of(root, exe, &current).unwrap().intact);
    let unknown = repair_target_of(root, exe, &BuildId::parse("v0-1-0-cccccccc").unwrap()).unwrap_err();
    assert_eq!(unknown, BridgeError::Invalid("That build is not one of the retained builds.".into()));
}

#[test]
fn a_retained_build_started_by_the_recovery_entry_may_roll_back_but_offers_no_update() {
    let layout = Layout::new();
    layout.add_predecessor(OLDER, "0.9.0");
    let older_exe = layout.root.runtime_dir(&BuildId::parse(OLDER).unwrap()).join(infra::recovery::EXECUTABLE_NAME);
    let (root, exe) = (Some(layout.root_path.as_path()), Some(older_exe.as_path()));
    assert!(status(root, exe).unwrap().managed, "the recovery screen works from a retained build");
    assert_eq!(infra::recovery::managed_build_of(&layout.root_path, &older_exe).unwrap(), None, "no update from it");
    let (written, _) = request(root, exe, &BuildId::parse(OLDER).unwrap(), 3).unwrap();
    assert_eq!((written.source.as_str(), written.target.as_str()), ("v1-0-0-aaaaaaaa", OLDER));
}
