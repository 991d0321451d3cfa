//! State machine rules: each legal transition with its effects, each refusal, the three
//! invariants (a check never downloads, a download never prepares, a prepare never restarts),
//! a newer check cancelling and clearing while the same release keeps its progress, how the
//! device's facts fold into a check, the typed failure mapping, the UI snapshot's JSON, and a
//! property over random event sequences that start-work effects come only from their request.

use super::*;
use crate::updater::recovery::ReleaseFingerprint;
use crate::updater::release::ReleaseNotes;
use proptest::prelude::*;
use serde_json::json;

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";
const OTHER_COMMIT: &str = "fedcba9876543210fedcba9876543210fedcba98";
const SIZE: u64 = 1_000;

fn v(minor: u64) -> Version {
    Version::new(1, minor, 0)
}

fn offer(minor: u64, commit: &str, installable: bool) -> CheckOutcome {
    CheckOutcome {
        latest_version: v(minor),
        update_available: minor > 2,
        commit: CommitSha::parse_hex(commit),
        installable: installable && minor > 2,
        archive_size: Some(SIZE),
        advisory_reason: None,
    }
}

fn start() -> UpdateState {
    UpdateState::new(v(2))
}

fn step(state: &UpdateState, event: UpdateEvent) -> (UpdateState, Vec<UpdateEffect>) {
    let transition = state.apply(event).unwrap_or_else(|error| panic!("{event:?} refused: {error}"));
    (transition.state, transition.effects)
}

fn available(minor: u64) -> UpdateState {
    step(&start(), UpdateEvent::CheckCompleted(offer(minor, COMMIT, true))).0
}

fn downloading(minor: u64) -> UpdateState {
    step(&available(minor), UpdateEvent::DownloadRequested).0
}

fn downloaded(minor: u64) -> UpdateState {
    step(&downloading(minor), UpdateEvent::DownloadFinished { version: v(minor) }).0
}

fn prepared(minor: u64) -> UpdateState {
    let preparing = step(&downloaded(minor), UpdateEvent::PrepareRequested).0;
    step(&preparing, UpdateEvent::PrepareFinished { version: v(minor) }).0
}

#[test]
fn a_newer_release_becomes_available_and_nothing_starts() {
    let (state, effects) = step(&start(), UpdateEvent::CheckCompleted(offer(3, COMMIT, true)));
    assert_eq!(state.phase(), UpdatePhase::Available);
    assert_eq!(effects, vec![]);
    let snapshot = state.snapshot();
    assert_eq!((snapshot.latest_version, snapshot.installable, snapshot.total_bytes), (Some(v(3)), true, Some(SIZE)));

    let (same, effects) = step(&start(), UpdateEvent::CheckCompleted(offer(2, COMMIT, true)));
    assert_eq!((same.phase(), effects), (UpdatePhase::Idle, vec![]));
    assert_eq!(same.snapshot().latest_version, None);
}

#[test]
fn only_a_download_request_starts_a_download_and_only_for_an_installable_offer() {
    let (state, effects) = step(&available(3), UpdateEvent::DownloadRequested);
    assert_eq!(state.phase(), UpdatePhase::Downloading);
    assert_eq!(effects, vec![UpdateEffect::StartDownload { version: v(3) }]);

    assert_eq!(start().apply(UpdateEvent::DownloadRequested), Err(TransitionError::NothingToDownload));
    let advisory = step(&start(), UpdateEvent::CheckCompleted(offer(3, COMMIT, false))).0;
    assert_eq!(advisory.apply(UpdateEvent::DownloadRequested), Err(TransitionError::NothingToDownload));
    assert_eq!(downloading(3).apply(UpdateEvent::DownloadRequested), Err(TransitionError::NothingToDownload));
    assert_eq!(TransitionError::NothingToDownload.code(), "nothing_to_download");
}

#[test]
fn progress_is_bound_to_the_release_and_only_moves_forward_within_the_size() {
    let (state, effects) =
        step(&downloading(3), UpdateEvent::DownloadProgress { version: v(3), downloaded_bytes: 400 });
    assert_eq!((state.snapshot().downloaded_bytes, effects), (400, vec![]));
    assert_eq!(
        state.apply(UpdateEvent::DownloadProgress { version: v(3), downloaded_bytes: 399 }),
        Err(TransitionError::ProgressInvalid)
    );
    assert_eq!(
        state.apply(UpdateEvent::DownloadProgress { version: v(3), downloaded_bytes: SIZE + 1 }),
        Err(TransitionError::ProgressInvalid)
    );
    assert_eq!(
        state.apply(UpdateEvent::DownloadProgress { version: v(4), downloaded_bytes: 500 }),
        Err(TransitionError::StaleEvent)
    );
    assert_eq!(
        available(3).apply(UpdateEvent::DownloadProgress { version: v(3), downloaded_bytes: 1 }),
        Err(TransitionError::StaleEvent)
    );
}

#[test]
fn a_finished_download_is_staged_and_does_not_prepare() {
    let (state, effects) = step(&downloading(3), UpdateEvent::DownloadFinished { version: v(3) });
    assert_eq!((state.phase(), effects), (UpdatePhase::Downloaded, vec![]));
    assert_eq!(state.snapshot().downloaded_bytes, SIZE);
    assert_eq!(downloading(3).apply(UpdateEvent::DownloadFinished { version: v(4) }), Err(TransitionError::StaleEvent));
    assert_eq!(available(3).apply(UpdateEvent::DownloadFinished { version: v(3) }), Err(TransitionError::StaleEvent));
}

#[test]
fn a_failed_download_clears_staging_and_only_some_failures_allow_a_retry() {
    for (failure, retry) in [
        (UpdateFailure::DownloadFailed, true),
        (UpdateFailure::VerificationFailed, true),
        (UpdateFailure::SignatureInvalid, false),
        (UpdateFailure::ReleaseChanged, false),
    ] {
        let (state, effects) = step(&downloading(3), UpdateEvent::DownloadFailed { version: v(3), failure });
        assert_eq!((state.phase(), effects), (UpdatePhase::Error, vec![UpdateEffect::ClearStaging]));
        assert_eq!((state.snapshot().failure_code, state.snapshot().downloaded_bytes), (Some(failure), 0));
        assert_eq!(state.apply(UpdateEvent::DownloadRequested).is_ok(), retry, "{failure:?}");
    }
}

#[test]
fn cancelling_returns_to_available_with_no_partial_progress() {
    let progressed = step(&downloading(3), UpdateEvent::DownloadProgress { version: v(3), downloaded_bytes: 600 }).0;
    let (state, effects) = step(&progressed, UpdateEvent::CancelRequested);
    assert_eq!(state.phase(), UpdatePhase::Available);
    assert_eq!(effects, vec![UpdateEffect::CancelDownload, UpdateEffect::ClearStaging]);
    assert_eq!(state.snapshot().downloaded_bytes, 0);
    assert_eq!(available(3).apply(UpdateEvent::CancelRequested), Err(TransitionError::NotDownloading));
    assert_eq!(downloaded(3).apply(UpdateEvent::CancelRequested), Err(TransitionError::NotDownloading));
}

#[test]
fn prepare_starts_only_on_request_and_never_restarts() {
    assert_eq!(available(3).apply(UpdateEvent::PrepareRequested), Err(TransitionError::NotDownloaded));
    assert_eq!(downloading(3).apply(UpdateEvent::PrepareRequested), Err(TransitionError::NotDownloaded));
    let (preparing, effects) = step(&downloaded(3), UpdateEvent::PrepareRequested);
    assert_eq!(
        (preparing.phase(), effects),
        (UpdatePhase::Preparing, vec![UpdateEffect::StartPrepare { version: v(3) }])
    );
    let (done, effects) = step(&preparing, UpdateEvent::PrepareFinished { version: v(3) });
    assert_eq!((done.phase(), effects), (UpdatePhase::Prepared, vec![]));
    let (failed, effects) =
        step(&preparing, UpdateEvent::PrepareFailed { version: v(3), failure: UpdateFailure::PrepareFailed });
    assert_eq!((failed.phase(), effects), (UpdatePhase::Error, vec![UpdateEffect::ClearStaging]));
    assert_eq!(preparing.apply(UpdateEvent::PrepareFinished { version: v(4) }), Err(TransitionError::StaleEvent));
}

#[test]
fn restart_is_only_asked_for_from_a_prepared_update() {
    let state = prepared(3);
    let (after, effects) = step(&state, UpdateEvent::RestartRequested);
    assert_eq!(effects, vec![UpdateEffect::Restart { version: v(3) }]);
    assert_eq!(after, state);
    for other in [start(), available(3), downloading(3), downloaded(3)] {
        assert_eq!(other.apply(UpdateEvent::RestartRequested), Err(TransitionError::NotPrepared));
    }
}

#[test]
fn a_check_for_another_release_cancels_the_download_and_clears_staging() {
    let progressed = step(&downloading(3), UpdateEvent::DownloadProgress { version: v(3), downloaded_bytes: 600 }).0;
    let (state, effects) = step(&progressed, UpdateEvent::CheckCompleted(offer(4, COMMIT, true)));
    assert_eq!(effects, vec![UpdateEffect::CancelDownload, UpdateEffect::ClearStaging]);
    assert_eq!(
        (state.phase(), state.snapshot().latest_version, state.snapshot().downloaded_bytes),
        (UpdatePhase::Available, Some(v(4)), 0)
    );

    let (recommitted, effects) = step(&progressed, UpdateEvent::CheckCompleted(offer(3, OTHER_COMMIT, true)));
    assert_eq!(effects, vec![UpdateEffect::CancelDownload, UpdateEffect::ClearStaging], "same version, new commit");
    assert_eq!(recommitted.phase(), UpdatePhase::Available);

    for staged in [downloaded(3), prepared(3)] {
        let (state, effects) = step(&staged, UpdateEvent::CheckCompleted(offer(4, COMMIT, true)));
        assert_eq!((state.phase(), effects), (UpdatePhase::Available, vec![UpdateEffect::ClearStaging]));
    }
    let (withdrawn, effects) = step(&downloaded(3), UpdateEvent::CheckCompleted(offer(2, COMMIT, true)));
    assert_eq!((withdrawn.phase(), effects), (UpdatePhase::Idle, vec![UpdateEffect::ClearStaging]));
}

#[test]
fn a_check_for_the_same_release_keeps_progress() {
    let progressed = step(&downloading(3), UpdateEvent::DownloadProgress { version: v(3), downloaded_bytes: 600 }).0;
    let (state, effects) = step(&progressed, UpdateEvent::CheckCompleted(offer(3, COMMIT, true)));
    assert_eq!((state, effects), (progressed, vec![]));
    for staged in [downloaded(3), prepared(3)] {
        assert_eq!(step(&staged, UpdateEvent::CheckCompleted(offer(3, COMMIT, true))), (staged.clone(), vec![]));
    }
    let failed =
        step(&downloading(3), UpdateEvent::DownloadFailed { version: v(3), failure: UpdateFailure::DownloadFailed }).0;
    let (still_failed, _) = step(&failed, UpdateEvent::CheckCompleted(offer(3, COMMIT, true)));
    assert_eq!(still_failed.snapshot().failure_code, Some(UpdateFailure::DownloadFailed));
}

#[test]
fn checks_are_ignored_while_preparing() {
    let preparing = step(&downloaded(3), UpdateEvent::PrepareRequested).0;
    assert_eq!(step(&preparing, UpdateEvent::CheckCompleted(offer(4, COMMIT, true))), (preparing.clone(), vec![]));
}

fn release_check(reasons: Vec<NotInstallableReason>) -> ReleaseCheck {
    ReleaseCheck {
        current_version: v(2),
        latest_version: v(3),
        target_commitish: CommitSha::parse_hex(COMMIT),
        update_available: true,
        installable: reasons.is_empty(),
        archive_size: Some(SIZE),
        release_notes: ReleaseNotes {
            version: v(3),
            title: "v1.3.0".into(),
            body: String::new(),
            published_at: None,
            immutable: !reasons.contains(&NotInstallableReason::NotImmutable),
        },
        not_installable_reasons: reasons,
        assets: None,
    }
}

#[test]
fn the_device_and_quarantine_decide_whether_an_installable_release_is_offered() {
    let none = QuarantineHistory::new();
    let good = CheckOutcome::new(&release_check(vec![]), true, &none);
    assert_eq!((good.installable, good.advisory_reason), (true, None));

    let unsupported = CheckOutcome::new(&release_check(vec![]), false, &none);
    assert_eq!((unsupported.installable, unsupported.advisory_reason), (false, Some(UpdateFailure::Unsupported)));

    let mut quarantine = QuarantineHistory::new();
    quarantine.quarantine(ReleaseFingerprint::parse(&format!("v1.3.0@{COMMIT}")).unwrap());
    let quarantined = CheckOutcome::new(&release_check(vec![]), true, &quarantine);
    assert_eq!(
        (quarantined.installable, quarantined.advisory_reason),
        (false, Some(UpdateFailure::ReleaseQuarantined))
    );

    let mutable = CheckOutcome::new(&release_check(vec![NotInstallableReason::NotImmutable]), true, &none);
    assert_eq!(mutable.advisory_reason, Some(UpdateFailure::ReleaseNotImmutable));
    let malformed = CheckOutcome::new(&release_check(vec![NotInstallableReason::AssetCount]), true, &none);
    assert_eq!(malformed.advisory_reason, Some(UpdateFailure::ReleaseNotInstallable));

    let state = step(&start(), UpdateEvent::CheckCompleted(quarantined)).0;
    assert_eq!(state.snapshot().failure_code, Some(UpdateFailure::ReleaseQuarantined));
    assert_eq!(state.apply(UpdateEvent::DownloadRequested), Err(TransitionError::NothingToDownload));
}

#[test]
fn typed_errors_map_to_failure_codes() {
    assert_eq!(UpdateFailure::from(&ResolveError::ReleaseChanged), UpdateFailure::ReleaseChanged);
    assert_eq!(UpdateFailure::from(&ResolveError::NotNewer), UpdateFailure::ReleaseChanged);
    assert_eq!(UpdateFailure::from(&ResolveError::NotImmutable), UpdateFailure::ReleaseNotImmutable);
    assert_eq!(UpdateFailure::from(&ResolveError::NotInstallable), UpdateFailure::ReleaseNotInstallable);
    assert_eq!(UpdateFailure::from(&ResolveError::Quarantined), UpdateFailure::ReleaseQuarantined);
    assert_eq!(UpdateFailure::from(&DownloadError::TooLong), UpdateFailure::VerificationFailed);
    assert_eq!(UpdateFailure::from(&DownloadError::RedirectHostNotAllowed), UpdateFailure::DownloadFailed);
    assert_eq!(UpdateFailure::from(&ArchiveError::EntryName), UpdateFailure::VerificationFailed);
    assert_eq!(UpdateFailure::from(&SignatureError::SignatureMismatch), UpdateFailure::SignatureInvalid);
    assert_eq!(UpdateFailure::SignatureInvalid.code(), "signature-invalid");
    assert_eq!(serde_json::to_value(UpdateFailure::ReleaseNotImmutable).unwrap(), json!("release-not-immutable"));
}

#[test]
fn the_snapshot_is_camel_case_json() {
    let state = step(&downloading(3), UpdateEvent::DownloadProgress { version: v(3), downloaded_bytes: 5 }).0;
    assert_eq!(
        serde_json::to_value(state.snapshot()).unwrap(),
        json!({
            "phase": "downloading",
            "currentVersion": "1.2.0",
            "latestVersion": "1.3.0",
            "installable": true,
            "downloadedBytes": 5,
            "totalBytes": 1000,
            "failureCode": null,
        })
    );
}

#[test]
fn a_prepared_executable_that_fails_its_check_is_dropped_and_never_restarted() {
    let (state, effects) = step(&prepared(3), UpdateEvent::PreparedInvalid { version: v(3) });
    assert_eq!(effects, vec![UpdateEffect::ClearStaging]);
    assert_eq!(
        (state.phase(), state.snapshot().failure_code),
        (UpdatePhase::Error, Some(UpdateFailure::PrepareFailed))
    );
    assert_eq!(state.apply(UpdateEvent::RestartRequested), Err(TransitionError::NotPrepared));
    assert_eq!(step(&state, UpdateEvent::DownloadRequested).1, vec![UpdateEffect::StartDownload { version: v(3) }]);
    for stale in [downloaded(3), prepared(4)] {
        assert_eq!(stale.apply(UpdateEvent::PreparedInvalid { version: v(3) }), Err(TransitionError::StaleEvent));
    }
}

fn any_event() -> impl Strategy<Value = UpdateEvent> {
    let version = (2u64..5).prop_map(v);
    let failure = prop_oneof![Just(UpdateFailure::DownloadFailed), Just(UpdateFailure::SignatureInvalid)];
    let outcome = (2u64..5, any::<bool>(), any::<bool>())
        .prop_map(|(minor, other, installable)| offer(minor, if other { OTHER_COMMIT } else { COMMIT }, installable));
    prop_oneof![
        outcome.prop_map(UpdateEvent::CheckCompleted),
        Just(UpdateEvent::DownloadRequested),
        (version.clone(), 0u64..1_200)
            .prop_map(|(version, downloaded_bytes)| UpdateEvent::DownloadProgress { version, downloaded_bytes }),
        version.clone().prop_map(|version| UpdateEvent::DownloadFinished { version }),
        (version.clone(), failure.clone())
            .prop_map(|(version, failure)| UpdateEvent::DownloadFailed { version, failure }),
        Just(UpdateEvent::CancelRequested),
        Just(UpdateEvent::PrepareRequested),
        version.clone().prop_map(|version| UpdateEvent::PrepareFinished { version }),
        version.clone().prop_map(|version| UpdateEvent::PreparedInvalid { version }),
        (version, failure).prop_map(|(version, failure)| UpdateEvent::PrepareFailed { version, failure }),
        Just(UpdateEvent::RestartRequested),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn work_starts_only_from_its_own_request(events in proptest::collection::vec(any_event(), 0..40)) {
        let mut state = start();
        for event in events {
            let Ok(Transition { state: next, effects }) = state.apply(event) else { continue };
            for effect in &effects {
                match effect {
                    UpdateEffect::StartDownload { .. } => prop_assert_eq!(event, UpdateEvent::DownloadRequested),
                    UpdateEffect::StartPrepare { .. } => prop_assert_eq!(event, UpdateEvent::PrepareRequested),
                    UpdateEffect::Restart { .. } => prop_assert_eq!(event, UpdateEvent::RestartRequested),
                    UpdateEffect::CancelDownload => prop_assert_eq!(state.phase(), UpdatePhase::Downloading),
                    UpdateEffect::ClearStaging => {}
                }
            }
            if next.phase() != state.phase() {
                match next.phase() {
                    UpdatePhase::Downloading => prop_assert_eq!(event, UpdateEvent::DownloadRequested),
                    UpdatePhase::Downloaded => prop_assert!(matches!(event, UpdateEvent::DownloadFinished { .. }), "downloaded only by a finished download"),
                    UpdatePhase::Preparing => prop_assert_eq!(event, UpdateEvent::PrepareRequested),
                    UpdatePhase::Prepared => prop_assert!(matches!(event, UpdateEvent::PrepareFinished { .. }), "prepared only by a finished prepare"),
                    _ => {}
                }
            }
            let snapshot = next.snapshot();
            prop_assert!(snapshot.total_bytes.is_none_or(|total| snapshot.downloaded_bytes <= total));
            state = next;
        }
    }
}
