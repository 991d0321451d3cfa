//! Health file rules: the exact wire shape, strict parsing with the 64 KiB cap and fail-closed
//! loading, interrupted attempts turned into failures, the bounded attempt list, the retry
//! ladder through the bookkeeping, and which verifications move the certificate.

use super::*;
use crate::backup::schedule::DAILY_MS;

const T: i64 = 1_796_216_231_000;
const MIN: i64 = 60_000;

fn name(suffix: &str) -> ArchiveName {
    ArchiveName::new(ArchiveKind::Regular, T, suffix).unwrap()
}

fn print(inode: u64) -> FileFingerprint {
    FileFingerprint { size: 4096, mtime_ns: 1_796_216_231_000_000_001, ctime_ns: 1_796_216_231_000_000_002, inode }
}

fn healthy() -> HealthState {
    let mut state = HealthState::default();
    state.begin_attempt(T);
    state.record_created(&name("aaaaaaaa"), print(1), T + 1000);
    state.record_verification(&name("aaaaaaaa"), print(1), VerificationOutcome::Success, T + 2000);
    state.record_success(T + 3000);
    state
}

#[test]
fn writes_the_documented_shape_and_reads_it_back() {
    let mut state = healthy();
    state.begin_attempt(T + 10 * MIN);
    state.record_failure(FailureText::NotEnoughSpace, T + 11 * MIN);
    let json: serde_json::Value = serde_json::from_slice(&state.to_json()).unwrap();
    assert_eq!(json["attempts"][0]["outcome"], "success");
    assert_eq!(json["attempts"][0]["startedAt"], "2026-12-02T12:57:11.000Z");
    assert_eq!(json["attempts"][1]["outcome"], "failed");
    assert_eq!(json["lastSuccess"]["name"], "backup_2026-12-02_12-57-11_aaaaaaaa.zip");
    assert_eq!(json["lastSuccess"]["fingerprint"], "4096:1796216231000000001:1796216231000000002:1");
    assert_eq!(json["lastVerified"]["name"], json["lastSuccess"]["name"]);
    assert_eq!(json["lastVerification"]["outcome"], "success");
    assert_eq!(json["lastFailure"], FailureText::NotEnoughSpace.text());
    assert_eq!(json["failures"], 1);
    assert_eq!(json["retryDue"], crate::backup::iso_ms(T + 26 * MIN));
    assert_eq!(HealthState::parse(&state.to_json()).unwrap(), state);
}

#[test]
fn every_failure_text_round_trips_and_free_text_is_refused() {
    for failure in [
        FailureText::BackupFailed,
        FailureText::NotEnoughSpace,
        FailureText::VerificationFailed,
        FailureText::Interrupted,
    ] {
        let json = serde_json::to_string(&failure).unwrap();
        assert_eq!(json, format!("\"{}\"", failure.text()));
        assert_eq!(serde_json::from_str::<FailureText>(&json).unwrap(), failure);
    }
    let file = br#"{"attempts":[],"failures":1,"lastFailure":"disk /dev/sda1 full: secret=hunter2"}"#;
    assert_eq!(HealthState::parse(file), Err(HealthError::Malformed));
}

#[test]
fn invalid_or_absent_files_load_as_the_empty_state() {
    let good = healthy().to_json();
    let mut value: serde_json::Value = serde_json::from_slice(&good).unwrap();
    let variant = |change: &dyn Fn(&mut serde_json::Value)| {
        let mut v = value.clone();
        change(&mut v);
        serde_json::to_vec(&v).unwrap()
    };
    let cases: Vec<(Vec<u8>, HealthError)> = vec![
        (variant(&|v| v["unknown"] = 1.into()), HealthError::Malformed),
        (variant(&|v| v["failures"] = 1_000_001.into()), HealthError::Invalid),
        (variant(&|v| v["failures"] = (-1).into()), HealthError::Malformed),
        (variant(&|v| v["lastSuccess"]["name"] = "../relay.db".into()), HealthError::Malformed),
        (variant(&|v| v["lastSuccess"]["fingerprint"] = "0:1:2:3".into()), HealthError::Malformed),
        (variant(&|v| v["lastSuccess"]["fingerprint"] = "1:2:3".into()), HealthError::Malformed),
        (variant(&|v| v["lastSuccess"]["completedAt"] = "yesterday".into()), HealthError::Malformed),
        (
            variant(&|v| v["lastVerified"]["name"] = "pre_restore_2026-12-02_12-57-11_aaaaaaaa.zip".into()),
            HealthError::Invalid,
        ),
        (variant(&|v| v["attempts"][0]["outcome"] = "maybe".into()), HealthError::Malformed),
        (variant(&|v| v["attempts"][0]["completedAt"] = serde_json::Value::Null), HealthError::Invalid),
        (
            variant(&|v| {
                let one = v["attempts"][0].clone();
                v["attempts"] = serde_json::Value::Array(vec![one; MAX_ATTEMPTS + 1]);
            }),
            HealthError::Invalid,
        ),
        (b"{".to_vec(), HealthError::Malformed),
        (vec![b' '; MAX_HEALTH_FILE_BYTES + 1], HealthError::TooLarge),
    ];
    for (bytes, error) in cases {
        assert_eq!(HealthState::parse(&bytes), Err(error), "{}", String::from_utf8_lossy(&bytes));
        let loaded = HealthState::load(Some(&bytes), T);
        assert_eq!(loaded.rejected, Some(error));
        assert_eq!(loaded.state, HealthState::default(), "a rejected file keeps nothing, so grants nothing");
    }
    let absent = HealthState::load(None, T);
    assert_eq!((absent.state, absent.rejected, absent.recovered_interrupted), (HealthState::default(), None, false));
    value["failures"] = 3.into();
    let loaded = HealthState::load(Some(&serde_json::to_vec(&value).unwrap()), T);
    assert_eq!((loaded.rejected, loaded.state.failures), (None, 3));
}

#[test]
fn interrupted_attempts_become_failures_at_load() {
    let mut state = healthy();
    state.begin_attempt(T + DAILY_MS);
    let bytes = state.to_json(); // saved with the attempt still `started`, then the process died
    let loaded = HealthState::load(Some(&bytes), T + DAILY_MS + 5 * MIN);
    assert!(loaded.recovered_interrupted);
    let last = loaded.state.attempts.last().unwrap();
    assert_eq!((last.outcome, last.completed_at), (AttemptOutcome::Failed, Some(T + DAILY_MS + 5 * MIN)));
    assert_eq!(loaded.state.last_failure, Some(FailureText::Interrupted));
    assert_eq!(loaded.state.failures, 1);
    assert_eq!(loaded.state.retry_due, Some(T + DAILY_MS + 20 * MIN));
    let again = HealthState::load(Some(&loaded.state.to_json()), T + DAILY_MS + 6 * MIN);
    assert!(!again.recovered_interrupted, "recovery happens once");
    assert_eq!(again.state.failures, 1);
}

#[test]
fn attempt_history_keeps_the_last_twenty() {
    let mut state = HealthState::default();
    for i in 0..25 {
        state.begin_attempt(T + i * MIN);
        state.record_failure(FailureText::BackupFailed, T + i * MIN + 1);
    }
    assert_eq!(state.attempts.len(), MAX_ATTEMPTS);
    assert_eq!(state.attempts[0].started_at, T + 5 * MIN);
    assert_eq!(state.failures, 25);
    assert!(HealthState::parse(&state.to_json()).is_ok());
    assert!(state.to_json().len() < MAX_HEALTH_FILE_BYTES);
}

#[test]
fn failures_walk_the_ladder_and_success_resets_it() {
    let mut state = healthy();
    assert_eq!((state.failures, state.retry_due), (0, Some(T + 3000 + DAILY_MS)));
    let mut delays = Vec::new();
    let mut now = T + DAILY_MS;
    for _ in 0..4 {
        state.begin_attempt(now);
        state.record_failure(FailureText::BackupFailed, now);
        delays.push((state.retry_due.unwrap() - now) / MIN);
        now = state.retry_due.unwrap();
    }
    assert_eq!(delays, vec![15, 60, 360, 360]);
    state.begin_attempt(now);
    state.record_success(now);
    assert_eq!((state.failures, state.last_failure, state.retry_due), (0, None, Some(now + DAILY_MS)));
    state.failures = MAX_FAILURES;
    state.record_failure(FailureText::BackupFailed, now);
    assert_eq!(state.failures, MAX_FAILURES, "the count is capped to what parses");
}

#[test]
fn only_the_latest_regular_archive_is_certified() {
    let mut state = healthy();
    let older = name("aaaaaaaa");
    let newer = name("bbbbbbbb");
    state.begin_attempt(T + DAILY_MS);
    state.record_created(&newer, print(2), T + DAILY_MS);
    state.record_verification(&newer, print(2), VerificationOutcome::Failed, T + DAILY_MS);
    state.record_failure(FailureText::VerificationFailed, T + DAILY_MS);
    assert_eq!(state.last_verified.as_ref().unwrap().name, older, "a failed verification keeps the earlier one");
    state.record_verification(&older, print(1), VerificationOutcome::Success, T + DAILY_MS + 1);
    assert_eq!(state.last_verified.as_ref().unwrap().completed_at, T + 2000, "an older archive moves nothing");
    assert_eq!(state.last_verification.as_ref().unwrap().name, older, "but the verification is recorded");
    let safety = ArchiveName::new(ArchiveKind::PreRestore, T, "cccccccc").unwrap();
    state.record_created(&safety, print(3), T + DAILY_MS + 2);
    assert_eq!(state.last_success.as_ref().unwrap().name, newer, "a safety archive is not a restore point");
    state.record_verification(&newer, print(2), VerificationOutcome::Success, T + DAILY_MS + 3);
    assert_eq!(state.last_verified.as_ref().unwrap().name, newer);

    let mut fresh = HealthState::default();
    fresh.record_verification(&safety, print(3), VerificationOutcome::Success, T);
    assert_eq!(fresh.last_verified, None, "a safety archive never becomes the certificate");
    fresh.record_verification(&older, print(1), VerificationOutcome::Success, T);
    assert_eq!(fresh.last_verified.as_ref().unwrap().name, older, "a pre-existing archive may be certified");
    assert_eq!(fresh.last_success, None, "…but it is still not a restore point Relay created");
}

#[test]
fn fingerprints_parse_strictly() {
    assert_eq!(
        FileFingerprint::parse("1:-2:3:4"),
        Some(FileFingerprint { size: 1, mtime_ns: -2, ctime_ns: 3, inode: 4 })
    );
    for bad in ["", "1:2:3", "1:2:3:4:5", "0:1:2:3", "01:2:3:4", "+1:2:3:4", "a:b:c:d", "1:2:3:4 "] {
        assert_eq!(FileFingerprint::parse(bad), None, "{bad:?}");
    }
}

#[test]
fn the_status_view_adds_derived_fields_to_the_saved_shape() {
    let state = healthy();
    let view = HealthView {
        restore_point_age_ms: state.restore_point_age_ms(T + 1000 + MIN), // created at T + 1 s
        state,
        retention_allowed: true,
        busy: false,
    };
    let json = serde_json::to_value(&view).unwrap();
    assert_eq!(json["restorePointAgeMs"], MIN);
    assert_eq!((json["retentionAllowed"].as_bool(), json["busy"].as_bool()), (Some(true), Some(false)));
    assert_eq!(json["lastSuccess"]["name"], "backup_2026-12-02_12-57-11_aaaaaaaa.zip");
    assert_eq!(HealthState::default().restore_point_age_ms(T), None);
}
