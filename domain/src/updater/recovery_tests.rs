//! Recovery rules: build ids, retention (current + three most recent, ties, referenced builds,
//! duplicates), every probation outcome at its boundary (promotion at exactly 60 s, the 195 s
//! deadline, early rollback, one relaunch, invalid observations), the bounded quarantine
//! history, staging names and the 24-hour rule, plus properties: parsers never panic and
//! staging names round-trip.

use super::*;
use proptest::prelude::*;

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";
const OTHER_COMMIT: &str = "fedcba9876543210fedcba9876543210fedcba98";

fn id(text: &str) -> BuildId {
    BuildId::parse(text).unwrap()
}

fn build(text: &str, promoted_at_ms: u64) -> RetainedBuild {
    RetainedBuild { id: id(text), promoted_at_ms }
}

#[test]
fn build_ids_are_short_lowercase_names() {
    for valid in ["a", "0", "1.2.3-4", "v1.3.0_abc", &"a".repeat(64)] {
        assert_eq!(BuildId::parse(valid).map(|b| b.as_str().to_owned()), Ok(valid.to_owned()));
    }
    for invalid in ["", ".hidden", "-x", "_x", "A", "a/b", "..", "a b", "é", &"a".repeat(65)] {
        assert_eq!(BuildId::parse(invalid), Err(RecoveryError::InvalidBuildId), "{invalid:?}");
    }
    assert_eq!(RecoveryError::InvalidBuildId.code(), "invalid_build_id");
}

#[test]
fn retention_keeps_the_current_build_and_the_three_most_recently_promoted() {
    let retained = [build("b1", 100), build("b2", 200), build("b3", 300), build("b4", 400), build("cur", 500)];
    let plan = plan_retention(&id("cur"), &retained, &[]).unwrap();
    assert_eq!(plan.keep, vec![id("cur"), id("b4"), id("b3"), id("b2")]);
    assert_eq!(plan.delete, vec![id("b1")]);

    let few = plan_retention(&id("cur"), &[build("b1", 1)], &[]).unwrap();
    assert_eq!((few.keep, few.delete), (vec![id("cur"), id("b1")], vec![]));
}

#[test]
fn retention_breaks_ties_by_id_and_never_deletes_a_referenced_build() {
    let retained = [build("d", 5), build("c", 5), build("b", 5), build("a", 5), build("old", 1)];
    let plan = plan_retention(&id("cur"), &retained, &[id("old")]).unwrap();
    assert_eq!(plan.keep, vec![id("cur"), id("a"), id("b"), id("c"), id("old")]);
    assert_eq!(plan.delete, vec![id("d")]);
    assert_eq!(plan_retention(&id("cur"), &[build("a", 1), build("a", 2)], &[]), Err(RecoveryError::DuplicateBuild));
}

fn observe(now_s: u64, healthy_since_s: Option<u64>, running: bool, attempts: u32) -> ProbationDecision {
    let base = 1_000_000;
    decide_probation(&ProbationObservation {
        started_at_ms: base,
        now_ms: base + now_s * 1_000,
        healthy_since_ms: healthy_since_s.map(|s| base + s * 1_000),
        candidate_running: running,
        attempts_started: attempts,
    })
}

#[test]
fn a_candidate_is_promoted_after_sixty_seconds_of_health_within_the_deadline() {
    assert_eq!(observe(70, Some(10), true, 1), ProbationDecision::Promote);
    assert_eq!(observe(69, Some(10), true, 1), ProbationDecision::KeepWaiting { check_again_at_ms: 1_070_000 });
    assert_eq!(observe(135, Some(135), true, 1), ProbationDecision::KeepWaiting { check_again_at_ms: 1_195_000 });
    assert_eq!(observe(195, Some(135), true, 1), ProbationDecision::Promote, "exactly at the deadline");
    assert_eq!(observe(200, Some(135), true, 2), ProbationDecision::Promote, "window completed in time");
    assert_eq!(observe(70, Some(10), false, 1), ProbationDecision::Relaunch, "an exited candidate is never promoted");
}

#[test]
fn a_candidate_that_cannot_finish_its_window_in_time_is_rolled_back() {
    assert_eq!(observe(5, None, true, 1), ProbationDecision::KeepWaiting { check_again_at_ms: 1_065_000 });
    assert_eq!(observe(135, None, true, 1), ProbationDecision::KeepWaiting { check_again_at_ms: 1_195_000 });
    assert_eq!(observe(136, None, true, 1), ProbationDecision::RollBack(RollbackReason::CannotBecomeHealthyInTime));
    assert_eq!(
        observe(140, Some(136), true, 1),
        ProbationDecision::RollBack(RollbackReason::CannotBecomeHealthyInTime)
    );
    assert_eq!(observe(195, None, true, 1), ProbationDecision::RollBack(RollbackReason::DeadlineExpired));
    assert_eq!(observe(400, Some(136), true, 1), ProbationDecision::RollBack(RollbackReason::DeadlineExpired));
}

#[test]
fn an_exited_candidate_is_relaunched_once_while_a_window_still_fits() {
    assert_eq!(observe(30, None, false, 1), ProbationDecision::Relaunch);
    assert_eq!(observe(135, None, false, 1), ProbationDecision::Relaunch);
    assert_eq!(observe(136, None, false, 1), ProbationDecision::RollBack(RollbackReason::CannotBecomeHealthyInTime));
    assert_eq!(observe(30, None, false, 2), ProbationDecision::RollBack(RollbackReason::AttemptsExhausted));
}

#[test]
fn inconsistent_observations_roll_back() {
    let invalid = ProbationDecision::RollBack(RollbackReason::InvalidObservation);
    assert_eq!(observe(10, None, true, 0), invalid);
    assert_eq!(observe(10, None, true, 3), invalid);
    assert_eq!(observe(10, Some(11), true, 1), invalid, "health reported from the future");
    let before_start = ProbationObservation {
        started_at_ms: 5_000,
        now_ms: 4_000,
        healthy_since_ms: None,
        candidate_running: true,
        attempts_started: 1,
    };
    assert_eq!(decide_probation(&before_start), invalid);
    assert_eq!(
        decide_probation(&ProbationObservation { healthy_since_ms: Some(4_999), now_ms: 70_000, ..before_start }),
        invalid
    );
    let overflow = ProbationObservation { started_at_ms: u64::MAX, now_ms: u64::MAX, ..before_start };
    assert_eq!(decide_probation(&overflow), invalid);
}

fn fingerprint(minor: u64, commit: &str) -> ReleaseFingerprint {
    ReleaseFingerprint { version: Version::new(1, minor, 0), commit: CommitSha::parse_hex(commit).unwrap() }
}

#[test]
fn fingerprints_are_tag_at_full_commit() {
    let text = format!("v1.3.0@{COMMIT}");
    assert_eq!(ReleaseFingerprint::parse(&text), Ok(fingerprint(3, COMMIT)));
    assert_eq!(fingerprint(3, COMMIT).to_string(), text);
    for invalid in
        [format!("1.3.0@{COMMIT}"), format!("v1.3.0@{}", &COMMIT[..7]), "v1.3.0".into(), format!("v1.3.0@@{COMMIT}")]
    {
        assert_eq!(ReleaseFingerprint::parse(&invalid), Err(RecoveryError::InvalidFingerprint), "{invalid}");
    }
}

#[test]
fn quarantine_matches_the_exact_release_and_keeps_the_newest_twenty() {
    let mut history = QuarantineHistory::new();
    history.quarantine(fingerprint(3, COMMIT));
    assert!(history.contains(&Version::new(1, 3, 0), &CommitSha::parse_hex(COMMIT).unwrap()));
    assert!(!history.contains(&Version::new(1, 3, 0), &CommitSha::parse_hex(OTHER_COMMIT).unwrap()));
    assert!(!history.contains(&Version::new(1, 4, 0), &CommitSha::parse_hex(COMMIT).unwrap()));

    for minor in 10..31 {
        history.quarantine(fingerprint(minor, COMMIT));
    }
    assert_eq!(history.entries().len(), 20);
    assert_eq!(history.entries()[0], fingerprint(11, COMMIT), "the oldest entries dropped first");
    assert!(!history.contains(&Version::new(1, 3, 0), &CommitSha::parse_hex(COMMIT).unwrap()));

    history.quarantine(fingerprint(11, COMMIT));
    assert_eq!(history.entries().len(), 20, "re-quarantining moves the entry, not duplicates it");
    assert_eq!(history.entries()[19], fingerprint(11, COMMIT));
    assert_eq!(serde_json::to_value(&history).unwrap()[19], serde_json::json!(format!("v1.11.0@{COMMIT}")));
}

#[test]
fn a_stored_history_is_refused_whole_when_anything_is_wrong() {
    let good = [format!("v1.3.0@{COMMIT}"), format!("v1.3.0@{OTHER_COMMIT}")];
    assert_eq!(QuarantineHistory::from_entries(&good).unwrap().entries().len(), 2);
    let duplicate = [format!("v1.3.0@{COMMIT}"), format!("v1.3.0@{COMMIT}")];
    assert_eq!(QuarantineHistory::from_entries(&duplicate), Err(RecoveryError::DuplicateFingerprint));
    assert_eq!(QuarantineHistory::from_entries(&["junk"]), Err(RecoveryError::InvalidFingerprint));
    let too_many: Vec<String> = (0..21).map(|minor| format!("v1.{minor}.0@{COMMIT}")).collect();
    assert_eq!(QuarantineHistory::from_entries(&too_many), Err(RecoveryError::QuarantineTooLong));
}

const UUID: &str = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f0";

#[test]
fn staging_names_are_the_tag_and_a_lowercase_uuid_v4() {
    let name = StagingDirName::from_random(Version::new(1, 3, 0), [0xff; 16]);
    assert_eq!(name.to_string(), "v1.3.0-ffffffff-ffff-4fff-bfff-ffffffffffff");
    let zero = StagingDirName::from_random(Version::new(1, 3, 0), [0; 16]);
    assert_eq!(zero.to_string(), "v1.3.0-00000000-0000-4000-8000-000000000000");
    let parsed = StagingDirName::parse(&format!("v1.3.0-{UUID}")).unwrap();
    assert_eq!(parsed.version, Version::new(1, 3, 0));
    assert_eq!(parsed.to_string(), format!("v1.3.0-{UUID}"));
    for invalid in [
        format!("1.3.0-{UUID}"),
        format!("v1.3-{UUID}"),
        format!("v1.3.0-{}", UUID.to_uppercase()),
        format!("v1.3.0-{}", UUID.replace("-4978-", "-1978-")),
        format!("v1.3.0-{}", UUID.replace("-8695-", "-c695-")),
        format!("v1.3.0-{}", UUID.replace('-', "")),
        format!("v1.3.0-{UUID}.part"),
        format!("v1.3.0_{UUID}"),
    ] {
        assert_eq!(StagingDirName::parse(&invalid), Err(RecoveryError::InvalidStagingName), "{invalid}");
    }
}

#[test]
fn only_recognized_idle_staging_older_than_a_day_is_removed() {
    let day = STAGING_ABANDONED_AFTER_MS;
    let name = format!("v1.3.0-{UUID}");
    let active = StagingDirName::parse(&name).unwrap();
    assert_eq!(staging_cleanup(&name, 0, day, None), StagingCleanup::Remove);
    assert_eq!(staging_cleanup(&name, 1, day, None), StagingCleanup::Keep);
    assert_eq!(staging_cleanup(&name, 0, day * 10, Some(&active)), StagingCleanup::Keep);
    assert_eq!(staging_cleanup(&name, day * 2, day, None), StagingCleanup::Keep, "stamped in the future");
    assert_eq!(staging_cleanup("lost+found", 0, day * 10, None), StagingCleanup::NotOurs);
    assert_eq!(staging_cleanup(&format!("{name}.part"), 0, day * 10, None), StagingCleanup::NotOurs);
}

proptest! {
    #[test]
    fn parsers_never_panic(text in "\\PC{0,120}") {
        let _ = BuildId::parse(&text);
        let _ = ReleaseFingerprint::parse(&text);
        if let Ok(name) = StagingDirName::parse(&text) {
            prop_assert_eq!(name.to_string(), text.clone());
        }
        let _ = staging_cleanup(&text, 0, u64::MAX, None);
    }

    #[test]
    fn fresh_staging_names_always_parse_back(random in proptest::array::uniform16(any::<u8>()), v in any::<(u64, u64, u64)>()) {
        let name = StagingDirName::from_random(Version::new(v.0, v.1, v.2), random);
        prop_assert_eq!(StagingDirName::parse(&name.to_string()), Ok(name));
    }

    #[test]
    fn probation_never_promotes_without_a_full_window_inside_the_deadline(
        now in 0u64..400_000, since in proptest::option::of(0u64..400_000), running in any::<bool>(), attempts in 0u32..4,
    ) {
        let observation = ProbationObservation { started_at_ms: 0, now_ms: now, healthy_since_ms: since, candidate_running: running, attempts_started: attempts };
        if decide_probation(&observation) == ProbationDecision::Promote {
            let since = since.unwrap();
            prop_assert!(running && since + PROBATION_HEALTHY_MS <= now && since + PROBATION_HEALTHY_MS <= PROBATION_DEADLINE_MS);
        }
    }
}
