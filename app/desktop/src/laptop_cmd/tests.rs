//! The paired laptop's refusal mapping and the checks made before anything is sent. The server
//! origin of these states is the discard port on loopback: a check that let a request through
//! would answer `Unavailable` (nothing listens), never the refusal the test expects.

use std::sync::atomic::Ordering;

use serde_json::json;

use super::state::tests::MemoryKeys;
use super::state::tests::{binding, state, ORIGIN};
use super::state::KeyStore;
use super::*;
use infra::clock::ManualClock;

/// A state as the commands hold it (shared with their blocking work).
fn shared(dir: &std::path::Path) -> (Arc<LaptopState>, Arc<ManualClock>, Arc<MemoryKeys>) {
    let (state, clock, keys) = state(dir);
    (Arc::new(state), clock, keys)
}

const TOKEN: &str = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJyZWxheSJ9.c2lnbmF0dXJlLWJ5dGVz";

fn refused(status: u16, code: &str, message: &str) -> DeviceClientError {
    DeviceClientError::Refused { status, code: code.into(), message: message.into(), retry_after_secs: Some(42) }
}

fn proof() -> infra::device_client::Proof {
    infra::device_client::Proof { proof: "p".repeat(15), expires_ms: i64::MAX }
}

#[test]
fn server_refusals_map_to_the_contract() {
    let cases = [
        (
            refused(401, "invalid_credentials", "x"),
            BridgeError::Rejected("Wrong password, or the account is not active.".into()),
            After::Nothing,
        ),
        (refused(403, "device_unavailable", "x"), BridgeError::Locked(REVOKED.into()), After::Revoke),
        (refused(403, "reauth_required", "x"), BridgeError::PasswordRequired(CONFIRM.into()), After::Nothing),
        (refused(409, "role_changed", "x"), BridgeError::Locked(ROLE_CHANGED.into()), After::EndSession),
        (refused(403, "account_unavailable", "x"), BridgeError::Locked(ACCOUNT_UNAVAILABLE.into()), After::EndSession),
        (
            refused(409, "stale_revision", "x"),
            BridgeError::Rejected("The record changed meanwhile; reload and retry.".into()),
            After::Nothing,
        ),
        (
            refused(403, "forbidden", "not permitted: Publishers manage the Wiki only"),
            BridgeError::Rejected("not permitted: Publishers manage the Wiki only".into()),
            After::Nothing,
        ),
        (refused(429, "rate_limited", "x"), BridgeError::RateLimited(42), After::Nothing),
        (refused(429, "", "x"), BridgeError::RateLimited(42), After::Nothing),
        (
            refused(400, "invalid_input", "name is required"),
            BridgeError::Invalid("name is required".into()),
            After::Nothing,
        ),
        (refused(401, "", "x"), BridgeError::Locked(SIGN_IN_FIRST.into()), After::Nothing),
        (refused(503, "not_bootstrapped", "not set up"), BridgeError::Unavailable("not set up".into()), After::Nothing),
    ];
    for (error, expected, after) in cases {
        assert_eq!(refusal(&error), (expected, after), "{error:?}");
    }
    assert!(matches!(refusal(&DeviceClientError::Network).0, BridgeError::Unavailable(_)));
}

#[test]
fn a_revocation_is_persisted_and_ends_the_session() {
    let tmp = tempfile::tempdir().unwrap();
    let (state, _, _) = state(tmp.path());
    state.write_binding(&binding("fp")).unwrap();
    state.open_session(&binding("fp"), proof());
    assert_eq!(settle(&state, refused(403, "device_unavailable", "x")), BridgeError::Locked(REVOKED.into()));
    assert!(!state.session_alive(false));
    assert_eq!(status(&state).pairing, "revoked");
    let (again, _, _) = super::state::tests::state(tmp.path());
    assert_eq!(status(&again).pairing, "revoked", "kept in the binding file");
}

#[tokio::test]
async fn commands_need_a_live_session_and_refuse_server_pc_only_ones_locally() {
    let tmp = tempfile::tempdir().unwrap();
    let (state, clock, _) = shared(tmp.path());
    state.write_binding(&binding("fp")).unwrap();
    let create = json!({"name": "Laptop category"});
    let locked = command(&state, Some(TOKEN.into()), "wiki.category.create", create.clone(), None).await;
    assert_eq!(locked, Err(BridgeError::Locked(LOCKED.into())));
    state.open_session(&binding("fp"), proof());
    let local = json!({"accountId": "a".repeat(15), "password": "a new password"});
    let refused = command(&state, Some(TOKEN.into()), "accounts.setPassword", local, None).await;
    assert!(matches!(refused, Err(BridgeError::Forbidden(_))), "{refused:?}");
    let unknown = command(&state, Some(TOKEN.into()), "shell.exec", json!({}), None).await;
    assert!(matches!(unknown, Err(BridgeError::Invalid(_))), "{unknown:?}");
    clock.advance_ms(state::IDLE_LOCK_MS);
    let idle = command(&state, Some(TOKEN.into()), "wiki.category.create", create, None).await;
    assert_eq!(idle, Err(BridgeError::Locked(LOCKED.into())));
}

#[tokio::test]
async fn a_fresh_password_command_without_a_proof_asks_for_the_password_before_any_request() {
    let tmp = tempfile::tempdir().unwrap();
    let (state, _, _) = shared(tmp.path());
    state.write_binding(&binding("fp")).unwrap();
    state.open_session(&binding("fp"), proof());
    assert!(state.take_proof().is_some(), "spend the sign-in proof");
    let assign = json!({"accountId": "a".repeat(15)});
    let asked = command(&state, Some(TOKEN.into()), "publisher.assign", assign.clone(), Some(1)).await;
    assert_eq!(asked, Err(BridgeError::PasswordRequired(CONFIRM.into())));
    // With a proof held, the same command gets past the checks and only fails at the key.
    assert!(state.keep_proof(proof()));
    let payload = prepare(&state, "publisher.assign", assign).unwrap();
    assert_eq!(payload["reauthProof"], json!("p".repeat(15)));
    assert_eq!(state.take_proof(), None, "consumed");
}

#[tokio::test]
async fn pairing_needs_the_main_token_and_an_os_store_and_stores_nothing_otherwise() {
    let tmp = tempfile::tempdir().unwrap();
    let (state, _, keys) = shared(tmp.path());
    let no_token = pair(&state, None, "pat", "123456", "NOC laptop").await;
    assert_eq!(no_token, Err(BridgeError::Locked(SIGN_IN_FIRST.into())));
    let bad = pair(&state, Some(TOKEN.into()), " ", "123456", "NOC laptop").await;
    assert!(matches!(bad, Err(BridgeError::Invalid(_))));
    keys.down.store(true, Ordering::SeqCst);
    let no_store = pair(&state, Some(TOKEN.into()), "pat", "123456", "NOC laptop").await;
    assert_eq!(no_store, Err(BridgeError::Unavailable(NO_STORE.into())));
    assert!(keys.entries.lock().unwrap().is_empty());
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0, "nothing written");
    assert_eq!(status(&state).pairing, "storeUnavailable");
}

#[tokio::test]
async fn sign_in_refuses_unpaired_and_revoked_laptops_and_a_missing_key_means_pair_again() {
    let tmp = tempfile::tempdir().unwrap();
    let (state, _, keys) = shared(tmp.path());
    let unpaired = sign_in(&state, Some(TOKEN.into()), "pw").await;
    assert_eq!(unpaired, Err(BridgeError::Locked(NOT_PAIRED.into())));
    state.write_binding(&binding("fp")).unwrap();
    let gone = sign_in(&state, Some(TOKEN.into()), "pw").await;
    assert_eq!(gone, Err(BridgeError::Locked(KEY_GONE.into())));
    assert_eq!(status(&state).pairing, "unpaired", "the keyless binding is forgotten");
    state.write_binding(&binding("fp")).unwrap();
    keys.down.store(true, Ordering::SeqCst);
    let silent = sign_in(&state, Some(TOKEN.into()), "pw").await;
    assert_eq!(silent, Err(BridgeError::Unavailable(NO_STORE.into())));
    keys.down.store(false, Ordering::SeqCst);
    state.mark_revoked();
    let revoked = sign_in(&state, Some(TOKEN.into()), "pw").await;
    assert_eq!(revoked, Err(BridgeError::Locked(REVOKED.into())));
    assert!(matches!(sign_in(&state, Some(TOKEN.into()), "").await, Err(BridgeError::Invalid(_))));
}

#[test]
fn forgetting_removes_the_key_and_the_binding() {
    let tmp = tempfile::tempdir().unwrap();
    let (state, _, keys) = state(tmp.path());
    state.write_binding(&binding("fp")).unwrap();
    keys.set(&LaptopState::key_entry(ORIGIN), "secret").unwrap();
    state.open_session(&binding("fp"), proof());
    let after = forget(&state).unwrap();
    assert_eq!((after.pairing, after.session), ("unpaired", None));
    assert!(keys.entries.lock().unwrap().is_empty());
}

#[tokio::test]
async fn server_mode_has_no_laptop() {
    let tmp = tempfile::tempdir().unwrap();
    let keys = Arc::new(MemoryKeys::default());
    let state = Arc::new(LaptopState::new(tmp.path(), None, Box::new(keys), infra::clock::ManualClock::new(0)));
    assert_eq!(status(&state), LaptopStatus::unavailable());
    let refused = sign_in(&state, Some(TOKEN.into()), "pw").await;
    assert_eq!(refused, Err(BridgeError::Unavailable(SERVER_PC.into())));
    assert_eq!(forget(&state), Err(BridgeError::Unavailable(SERVER_PC.into())));
}
