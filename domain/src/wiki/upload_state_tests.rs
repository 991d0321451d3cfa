//! The upload state machine: the happy path, failure and cancellation from every active
//! state, expiry of unpublished uploads, the full refusal table, and the stored values.

use super::*;
use crate::problem::HttpProblem;
use UploadEvent as E;
use UploadState as S;

const EVENTS: [UploadEvent; 8] =
    [E::ChunkAccepted, E::AllChunksReceived, E::Assembled, E::Extracted, E::Publish, E::Fail, E::Cancel, E::Expire];

#[test]
fn the_pipeline_runs_from_queued_to_published() {
    let mut state = S::Queued;
    for (event, expected) in [
        (E::ChunkAccepted, S::Uploading),
        (E::ChunkAccepted, S::Uploading),
        (E::AllChunksReceived, S::Assembling),
        (E::Assembled, S::Extracting),
        (E::Extracted, S::Ready),
        (E::Publish, S::Published),
    ] {
        state = next(state, event).unwrap();
        assert_eq!(state, expected);
    }
}

#[test]
fn every_active_state_may_fail_be_cancelled_or_expire() {
    for from in [S::Queued, S::Uploading, S::Assembling, S::Extracting, S::Ready] {
        assert!(from.is_active() && !from.is_terminal(), "{from:?}");
        assert_eq!(next(from, E::Fail), Ok(S::Failed));
        assert_eq!(next(from, E::Cancel), Ok(S::Cancelled));
        assert_eq!(next(from, E::Expire), Ok(S::Expired));
    }
}

#[test]
fn a_failed_upload_only_expires() {
    assert!(!S::Failed.is_terminal() && !S::Failed.is_active());
    for event in EVENTS {
        let expected =
            if event == E::Expire { Ok(S::Expired) } else { Err(TransitionError { from: S::Failed, event }) };
        assert_eq!(next(S::Failed, event), expected, "{event:?}");
    }
}

#[test]
fn terminal_states_refuse_every_event() {
    for from in [S::Published, S::Cancelled, S::Expired] {
        assert!(from.is_terminal());
        for event in EVENTS {
            assert_eq!(next(from, event), Err(TransitionError { from, event }), "{from:?} {event:?}");
        }
    }
}

#[test]
fn the_transition_table_is_exactly_the_allowed_set() {
    let mut allowed = 0;
    for from in S::ALL {
        for event in EVENTS {
            if next(from, event).is_ok() {
                allowed += 1;
            }
        }
    }
    // 6 pipeline steps + 5 active states x {fail, cancel, expire} + failed -> expired.
    assert_eq!(allowed, 6 + 15 + 1);
    assert!(next(S::Queued, E::Publish).is_err(), "no skipping ahead");
    assert!(next(S::Uploading, E::Assembled).is_err());
    assert!(next(S::Ready, E::ChunkAccepted).is_err(), "no going back");
    assert!(next(S::Extracting, E::AllChunksReceived).is_err());
}

#[test]
fn states_round_trip_through_their_stored_values() {
    let values: Vec<&str> = S::ALL.iter().map(|s| s.as_str()).collect();
    assert_eq!(
        values,
        ["queued", "uploading", "assembling", "extracting", "ready", "published", "failed", "cancelled", "expired"]
    );
    for state in S::ALL {
        assert_eq!(UploadState::parse(state.as_str()), Some(state));
    }
    assert_eq!(UploadState::parse("validating"), None);
    assert_eq!(UploadState::parse("Ready"), None);
}

#[test]
fn a_refused_transition_has_a_stable_code() {
    let refused = next(S::Published, E::Cancel).unwrap_err();
    assert_eq!(refused.code(), "invalid_upload_transition");
    assert_eq!(HttpProblem::code(&refused), "invalid_upload_transition");
    assert_eq!(HttpProblem::status(&refused), 409);
}
