//! The privileged actor's server-local sessions (sign-in budget, idle lock, fresh passwords,
//! the session view) and its persisted reauthentication budget.
use super::*;
use crate::testkit::TestCtx;
use domain::problem::HttpProblem;
use infra::clock::{Clock, ManualClock};
use std::sync::Arc;

const PW: &str = "local-owner-password";

async fn start() -> (tempfile::TempDir, Arc<ManualClock>, Addr<PrivilegedActor>) {
    let tmp = tempfile::tempdir().unwrap();
    let t = TestCtx::new();
    let clock = t.clock.clone();
    let (pool, _) = infra::db::open(&tmp.path().join("relay.db"), 2).unwrap();
    let service = PrivilegedService::new(pool, clock.clone());
    service.ensure_ready().unwrap();
    service.set_password("ryan", PW).unwrap();
    service.set_active("ryan", true).unwrap();
    let actor = PrivilegedActor::new(t.ctx(), service, PrivilegedLimits::default()).start();
    (tmp, clock, actor)
}

#[actix_rt::test]
async fn reauth_failures_survive_a_restart_through_the_store() {
    let tmp = tempfile::tempdir().unwrap();
    let (pool, _) = infra::db::open(&tmp.path().join("relay.db"), 2).unwrap();
    let start = || {
        let t = TestCtx::new();
        let service = PrivilegedService::new(pool.clone(), t.clock.clone());
        service.ensure_ready().unwrap();
        let store = RateLimitStore::new(pool.clone());
        PrivilegedActor::new(t.ctx(), service, PrivilegedLimits::default()).persisting(store).start()
    };
    let reauth = || Reauth {
        account_id: "nobody".into(),
        device_id: "nothing".into(),
        password: "wrong-password".into(),
        source: IpAddr::from([10, 0, 0, 7]),
    };
    let actor = start();
    for _ in 0..5 {
        assert_eq!(actor.send(reauth()).await.unwrap(), Err(PrivError::InvalidCredentials));
    }
    assert!(matches!(actor.send(reauth()).await.unwrap(), Err(PrivError::RateLimited { .. })));
    tokio::time::sleep(FLUSH_INTERVAL + std::time::Duration::from_millis(500)).await;
    let restarted = start();
    assert!(
        matches!(restarted.send(reauth()).await.unwrap(), Err(PrivError::RateLimited { .. })),
        "a restart does not refill the budget"
    );
}

fn probe(session_id: &str) -> RunCommand<Session> {
    local(session_id, "privileged.probe", serde_json::json!({}))
}

#[actix_rt::test]
async fn local_sessions_run_commands_lock_when_idle_and_clear() {
    let (_tmp, clock, actor) = start().await;
    let bad =
        actor.send(OpenLocalSession { username: "ryan".into(), password: "wrong-password-1".into() }).await.unwrap();
    assert_eq!(bad, Err(PrivError::InvalidCredentials));
    let id = actor.send(OpenLocalSession { username: "ryan".into(), password: PW.into() }).await.unwrap().unwrap();
    let out = actor.send(probe(&id)).await.unwrap().unwrap();
    assert_eq!(out["role"], "owner");
    clock.advance_ms(session_policy::IDLE_LOCK_MS - 1);
    assert!(actor.send(probe(&id)).await.unwrap().is_ok(), "activity keeps it open");
    clock.advance_ms(session_policy::IDLE_LOCK_MS);
    assert_eq!(actor.send(probe(&id)).await.unwrap(), Err(PrivError::ReauthRequired), "locked after 15 min idle");

    let id = actor.send(OpenLocalSession { username: "ryan".into(), password: PW.into() }).await.unwrap().unwrap();
    actor.send(EndSession { family: SessionKind::Local, id: id.clone() }).await.unwrap();
    assert_eq!(actor.send(probe(&id)).await.unwrap(), Err(PrivError::ReauthRequired), "explicit lock");
    let id = actor.send(OpenLocalSession { username: "ryan".into(), password: PW.into() }).await.unwrap().unwrap();
    actor.send(ClearLocalSessions).await.unwrap();
    assert_eq!(actor.send(probe(&id)).await.unwrap(), Err(PrivError::ReauthRequired), "cleared on reconfigure");
}

#[actix_rt::test]
async fn a_relay_sign_out_ends_every_local_session_and_leaves_web_sessions_alone() {
    let (_tmp, _clock, actor) = start().await;
    let open = || OpenLocalSession { username: "ryan".into(), password: PW.into() };
    let first = actor.send(open()).await.unwrap().unwrap();
    let second = actor.send(open()).await.unwrap().unwrap();
    let web = OpenBrowserSession {
        binding: "web-1".into(),
        username: "ryan".into(),
        password: PW.into(),
        source: IpAddr::from([10, 0, 0, 7]),
    };
    actor.send(web).await.unwrap().unwrap();
    actor.send(EndLocalSessions).await.unwrap();
    for id in [first, second] {
        assert_eq!(actor.send(probe(&id)).await.unwrap(), Err(PrivError::ReauthRequired), "ended on sign-out");
        assert_eq!(actor.send(SessionStatus { family: SessionKind::Local, id }).await.unwrap(), None);
    }
    let status = SessionStatus { family: SessionKind::Browser, id: "web-1".into() };
    assert!(actor.send(status).await.unwrap().is_some(), "a Relay Web protected session is someone else's");
    assert!(actor.send(open()).await.unwrap().is_ok(), "signing in again opens a new session");
}

#[actix_rt::test]
async fn a_local_session_opened_before_relay_admin_set_password_is_refused_after_it() {
    let (_tmp, _clock, actor) = start().await;
    let id = actor.send(OpenLocalSession { username: "ryan".into(), password: PW.into() }).await.unwrap().unwrap();
    assert!(actor.send(probe(&id)).await.unwrap().is_ok());
    let new_password = domain::control::SecretText("a new owner password".into());
    let set = domain::control::AdminOp::SetPassword { username: "ryan".into(), password: new_password };
    actor.send(RunCommand { origin: CliAdmin { op: set } }).await.unwrap().unwrap();
    let revive = ReconfirmLocalPassword { session_id: id.clone(), password: "a new owner password".into() };
    assert_eq!(actor.send(revive).await.unwrap(), Err(PrivError::ReauthRequired), "the new password revives nothing");
    assert_eq!(actor.send(probe(&id)).await.unwrap(), Err(PrivError::ReauthRequired), "ended by the password change");
    assert_eq!(actor.send(SessionStatus { family: SessionKind::Local, id }).await.unwrap(), None);
    let open = OpenLocalSession { username: "ryan".into(), password: "a new owner password".into() };
    assert!(actor.send(open).await.unwrap().is_ok(), "signing in with the new password opens a session");
}

#[actix_rt::test]
async fn a_password_change_ends_that_accounts_local_and_web_sessions_only() {
    let (_tmp, _clock, actor) = start().await;
    let owner = actor.send(OpenLocalSession { username: "ryan".into(), password: PW.into() }).await.unwrap().unwrap();
    let snapshot = actor.send(local(&owner, "admin.snapshot", serde_json::json!({}))).await.unwrap().unwrap();
    let charles =
        snapshot["accounts"].as_array().unwrap().iter().find(|a| a["username"] == "charles").unwrap()["id"].clone();
    let set = |password: &str| {
        local(&owner, "accounts.setPassword", serde_json::json!({"accountId": charles, "password": password}))
    };
    actor.send(set("administrator password one")).await.unwrap().unwrap();
    let activate = serde_json::json!({"accountId": charles, "active": true});
    actor.send(local(&owner, "accounts.setActive", activate)).await.unwrap().unwrap();
    let open = OpenLocalSession { username: "charles".into(), password: "administrator password one".into() };
    let on_the_server_pc = actor.send(open).await.unwrap().unwrap();
    let web = OpenBrowserSession {
        binding: "web-charles".into(),
        username: "charles".into(),
        password: "administrator password one".into(),
        source: IpAddr::from([10, 0, 0, 7]),
    };
    actor.send(web).await.unwrap().unwrap();

    actor.send(set("administrator password two")).await.unwrap().unwrap();

    let status = SessionStatus { family: SessionKind::Local, id: on_the_server_pc.clone() };
    assert_eq!(actor.send(status).await.unwrap(), None, "the local session ended");
    assert_eq!(actor.send(probe(&on_the_server_pc)).await.unwrap(), Err(PrivError::ReauthRequired));
    let web_status = SessionStatus { family: SessionKind::Browser, id: "web-charles".into() };
    assert_eq!(actor.send(web_status).await.unwrap(), None, "the Relay Web protected session ended too");
    assert!(actor.send(probe(&owner)).await.unwrap().is_ok(), "the Owner's own session is untouched");
}

#[actix_rt::test]
async fn a_local_session_whose_role_is_gone_ends_at_its_next_command() {
    let (_tmp, _clock, actor) = start().await;
    let owner = actor.send(OpenLocalSession { username: "ryan".into(), password: PW.into() }).await.unwrap().unwrap();
    let snapshot = actor.send(local(&owner, "admin.snapshot", serde_json::json!({}))).await.unwrap().unwrap();
    let accounts = snapshot["accounts"].as_array().unwrap();
    let charles = accounts.iter().find(|a| a["username"] == "charles").unwrap()["id"].clone();
    let password = serde_json::json!({"accountId": charles, "password": "administrator password one"});
    actor.send(local(&owner, "accounts.setPassword", password)).await.unwrap().unwrap();
    let active =
        |active: bool| local(&owner, "accounts.setActive", serde_json::json!({"accountId": charles, "active": active}));
    actor.send(active(true)).await.unwrap().unwrap();
    let open = OpenLocalSession { username: "charles".into(), password: "administrator password one".into() };
    let id = actor.send(open).await.unwrap().unwrap();
    actor.send(active(false)).await.unwrap().unwrap();
    assert_eq!(actor.send(probe(&id)).await.unwrap(), Err(PrivError::AccountUnavailable), "the records give no role");
    assert_eq!(
        actor.send(SessionStatus { family: SessionKind::Local, id: id.clone() }).await.unwrap(),
        None,
        "and it ended"
    );
    actor.send(active(true)).await.unwrap().unwrap();
    assert_eq!(actor.send(probe(&id)).await.unwrap(), Err(PrivError::ReauthRequired), "reactivating revives nothing");
}

#[actix_rt::test]
async fn authority_commands_need_a_fresh_local_password() {
    let (_tmp, clock, actor) = start().await;
    let id = actor.send(OpenLocalSession { username: "ryan".into(), password: PW.into() }).await.unwrap().unwrap();
    let create = local(
        &id,
        "accounts.create",
        serde_json::json!({"username": "pat", "displayName": "Pat", "kind": "publisher"}),
    );
    let pat = actor.send(create).await.unwrap().unwrap()["accountId"].as_str().unwrap().to_string();
    let assign = |rev| revised(local(&id, "publisher.assign", serde_json::json!({"accountId": pat})), rev);
    let first = actor.send(assign(1)).await.unwrap();
    assert!(first.is_ok(), "fresh password: {first:?}");
    clock.advance_ms(session_policy::FRESH_PASSWORD_MS + 1);
    assert_eq!(actor.send(assign(2)).await.unwrap(), Err(PrivError::ReauthRequired), "password older than 5 minutes");
}

/// One command in the server PC's session `session_id`.
fn local(session_id: &str, command: &str, payload: Value) -> RunCommand<Session> {
    let command = NamedCommand::new(command, payload, None);
    RunCommand { origin: Session { family: SessionKind::Local, id: session_id.into(), command } }
}

/// `run` with the revision the caller saw.
fn revised(mut run: RunCommand<Session>, expected_revision: i64) -> RunCommand<Session> {
    run.origin.command.expected_revision = Some(expected_revision);
    run
}

/// The server PC's session `session_id` as an `Authorize` caller.
fn in_session(session_id: &str) -> Caller {
    Caller::Session { family: SessionKind::Local, id: session_id.into() }
}

#[actix_rt::test]
async fn local_sign_in_and_reconfirmation_share_a_bounded_budget() {
    let (_tmp, _clock, actor) = start().await;
    let open = |password: &str| OpenLocalSession { username: "ryan".into(), password: password.into() };
    for _ in 0..5 {
        assert_eq!(actor.send(open("wrong-password-1")).await.unwrap(), Err(PrivError::InvalidCredentials));
    }
    assert!(
        matches!(actor.send(open(PW)).await.unwrap(), Err(PrivError::RateLimited { .. })),
        "the right password waits too once the budget is spent"
    );
    let (_tmp, _clock, actor) = start().await;
    let id = actor.send(open(PW)).await.unwrap().unwrap();
    let again = |password: &str| ReconfirmLocalPassword { session_id: id.clone(), password: password.into() };
    for _ in 0..5 {
        assert_eq!(actor.send(again("wrong-password-1")).await.unwrap(), Err(PrivError::InvalidCredentials));
    }
    assert!(matches!(actor.send(again(PW)).await.unwrap(), Err(PrivError::RateLimited { .. })));
}

#[actix_rt::test]
async fn the_session_view_shows_who_and_when_it_locks_and_reading_it_keeps_nothing_alive() {
    let (_tmp, clock, actor) = start().await;
    let id = actor.send(OpenLocalSession { username: "ryan".into(), password: PW.into() }).await.unwrap().unwrap();
    let opened_at = clock.now_ms();
    let status = || SessionStatus { family: SessionKind::Local, id: id.clone() };
    let view = actor.send(status()).await.unwrap().unwrap();
    assert_eq!(
        view,
        LocalSessionView {
            username: "ryan".into(),
            role: "owner",
            lock_at_ms: opened_at + session_policy::IDLE_LOCK_MS
        }
    );
    clock.advance_ms(session_policy::IDLE_LOCK_MS - 1);
    assert!(actor.send(status()).await.unwrap().is_some());
    clock.advance_ms(1);
    assert_eq!(actor.send(status()).await.unwrap(), None, "status reads did not extend the session");
    assert_eq!(
        actor.send(SessionStatus { family: SessionKind::Local, id: "never-opened".into() }).await.unwrap(),
        None
    );
}

#[actix_rt::test]
async fn passwords_are_set_from_the_server_pc_with_a_fresh_password_and_revoke_devices() {
    let (_tmp, clock, actor) = start().await;
    let id = actor.send(OpenLocalSession { username: "ryan".into(), password: PW.into() }).await.unwrap().unwrap();
    let create = local(
        &id,
        "accounts.create",
        serde_json::json!({"username": "pat", "displayName": "Pat", "kind": "publisher"}),
    );
    let pat = actor.send(create).await.unwrap().unwrap()["accountId"].as_str().unwrap().to_string();
    let set = |password: &str| {
        local(&id, "accounts.setPassword", serde_json::json!({"accountId": pat, "password": password}))
    };
    let short = actor.send(set("short")).await.unwrap().map_err(|e| e.code());
    assert_eq!(short, Err("invalid_input"), "the password policy applies");
    let done = actor.send(set("publisher password one")).await.unwrap().unwrap();
    assert_eq!(done, serde_json::json!({"passwordSet": true, "devicesRevoked": 0}));
    let activate = local(&id, "accounts.setActive", serde_json::json!({"accountId": pat, "active": true}));
    assert!(actor.send(activate).await.unwrap().is_ok(), "a configured account can be activated");
    let unassigned = actor.send(local(&id, "pairing.start", serde_json::json!({"accountId": pat, "label": "early"})));
    assert_eq!(unassigned.await.unwrap().map_err(|e| e.code()), Err("forbidden"), "no role yet, no pairing");
    let assign = revised(local(&id, "publisher.assign", serde_json::json!({"accountId": pat})), 1);
    actor.send(assign).await.unwrap().unwrap();
    let code = actor.send(local(&id, "pairing.start", serde_json::json!({"accountId": pat, "label": "NOC laptop"})));
    let ticket = code.await.unwrap().unwrap();
    assert_eq!(ticket["code"].as_str().map(str::len), Some(9), "XXXX-XXXX: {ticket}");

    clock.advance_ms(session_policy::FRESH_PASSWORD_MS + 1);
    assert_eq!(
        actor.send(set("publisher password two")).await.unwrap(),
        Err(PrivError::ReauthRequired),
        "stale password"
    );
    let confirmed = ReconfirmLocalPassword { session_id: id.clone(), password: PW.into() };
    actor.send(confirmed).await.unwrap().unwrap();
    assert!(actor.send(set("publisher password two")).await.unwrap().is_ok(), "fresh again after reconfirming");
    let audit = actor.send(local(&id, "audit.verify", serde_json::json!({}))).await.unwrap().unwrap();
    assert_eq!(audit["ok"], true, "{audit}");
}

#[actix_rt::test]
async fn local_commands_are_parsed_once_and_malformed_ones_refused() {
    let (_tmp, _clock, actor) = start().await;
    let id = actor.send(OpenLocalSession { username: "ryan".into(), password: PW.into() }).await.unwrap().unwrap();
    let with = |command: &str, payload: Value| local(&id, command, payload);
    let refused = |r: Result<Value, PrivError>| r.map_err(|e| (e.status(), e.code())).unwrap_err();
    let extra = with("privileged.probe", serde_json::json!({"unexpected": true}));
    assert_eq!(refused(actor.send(extra).await.unwrap()), (400, "invalid_input"), "extra payload field");
    let wrong = with("accounts.setActive", serde_json::json!({"accountId": "acct00000000001", "active": "yes"}));
    assert_eq!(refused(actor.send(wrong).await.unwrap()), (400, "invalid_input"), "wrong payload type");
    let missing = with("accounts.rename", serde_json::json!({"displayName": "Ryan"}));
    assert_eq!(refused(actor.send(missing).await.unwrap()), (400, "invalid_input"), "missing field");
    let wiki = with("wiki.purge", serde_json::json!({}));
    assert_eq!(refused(actor.send(wiki).await.unwrap()), (403, "forbidden"), "no variant, unknown command");
    let wiki = with("wiki.publish", serde_json::json!({}));
    assert_eq!(refused(actor.send(wiki).await.unwrap()), (400, "invalid_input"), "a wiki command's payload is strict");
    assert!(actor.send(with("privileged.probe", serde_json::json!({}))).await.unwrap().is_ok());
}

#[actix_rt::test]
async fn actions_outside_the_command_enum_are_authorized_by_role_and_audited() {
    let (_tmp, _clock, actor) = start().await;
    let id = actor.send(OpenLocalSession { username: "ryan".into(), password: PW.into() }).await.unwrap().unwrap();
    let logo = |session_id: &str| Authorize {
        caller: in_session(session_id),
        capability: domain::roles::Capability::BrandingManage,
        action: "branding.setLogo",
        target: "company".into(),
        fresh_password: false,
    };
    assert_eq!(actor.send(logo(&id)).await.unwrap().map(drop), Ok(()), "the Owner may change logos");
    let create = serde_json::json!({"username": "pat", "displayName": "Pat", "kind": "publisher"});
    let pat = actor.send(local(&id, "accounts.create", create)).await.unwrap().unwrap()["accountId"].clone();
    let password = serde_json::json!({"accountId": pat, "password": "publisher password one"});
    actor.send(local(&id, "accounts.setPassword", password)).await.unwrap().unwrap();
    let activate = serde_json::json!({"accountId": pat, "active": true});
    actor.send(local(&id, "accounts.setActive", activate)).await.unwrap().unwrap();
    let assign = revised(local(&id, "publisher.assign", serde_json::json!({"accountId": pat})), 1);
    actor.send(assign).await.unwrap().unwrap();
    let open = OpenLocalSession { username: "pat".into(), password: "publisher password one".into() };
    let publisher = actor.send(open).await.unwrap().unwrap();
    let refused = actor.send(logo(&publisher)).await.unwrap().map(drop).map_err(|e| e.code());
    assert_eq!(refused, Err("forbidden"), "a Publisher may not change logos");
    assert_eq!(actor.send(logo("no-such-session")).await.unwrap().map(drop), Err(PrivError::ReauthRequired));
    let audit = actor.send(local(&id, "audit.verify", serde_json::json!({}))).await.unwrap().unwrap();
    assert_eq!(audit["ok"], true, "{audit}");
    assert!(audit["entries"].as_u64().unwrap() >= 2, "both decisions were audited: {audit}");
}

#[actix_rt::test]
async fn a_manual_rollback_needs_the_owner_with_a_fresh_password() {
    let (_tmp, clock, actor) = start().await;
    let id = actor.send(OpenLocalSession { username: "ryan".into(), password: PW.into() }).await.unwrap().unwrap();
    let rollback = |session_id: &str| Authorize {
        caller: in_session(session_id),
        capability: domain::roles::Capability::RecoveryManage,
        action: "recovery.rollback",
        target: "v1-2-3-0123abcd".into(),
        fresh_password: true,
    };
    assert_eq!(actor.send(rollback(&id)).await.unwrap().map(drop), Ok(()), "the Owner, just signed in");
    clock.advance_ms(session_policy::FRESH_PASSWORD_MS + 1);
    assert_eq!(
        actor.send(rollback(&id)).await.unwrap().map(drop),
        Err(PrivError::ReauthRequired),
        "the password is stale"
    );
    let logo = Authorize {
        capability: domain::roles::Capability::BrandingManage,
        action: "branding.setLogo",
        fresh_password: false,
        ..rollback(&id)
    };
    assert_eq!(actor.send(logo).await.unwrap().map(drop), Ok(()), "the session itself is alive");
    let confirm = ReconfirmLocalPassword { session_id: id.clone(), password: PW.into() };
    actor.send(confirm).await.unwrap().unwrap();
    assert_eq!(actor.send(rollback(&id)).await.unwrap().map(drop), Ok(()), "fresh again after confirming");

    let create = serde_json::json!({"username": "ada", "displayName": "Ada", "kind": "administrator"});
    let ada = actor.send(local(&id, "accounts.create", create)).await.unwrap().unwrap()["accountId"].clone();
    let password = serde_json::json!({"accountId": ada, "password": "administrator password one"});
    actor.send(local(&id, "accounts.setPassword", password)).await.unwrap().unwrap();
    let activate = serde_json::json!({"accountId": ada, "active": true});
    actor.send(local(&id, "accounts.setActive", activate)).await.unwrap().unwrap();
    let open = OpenLocalSession { username: "ada".into(), password: "administrator password one".into() };
    let admin = actor.send(open).await.unwrap().unwrap();
    match actor.send(rollback(&admin)).await.unwrap().map(drop) {
        Err(PrivError::Forbidden(message)) => assert_eq!(message, "recovery.rollback needs the Owner"),
        other => panic!("an Administrator may not roll back: {other:?}"),
    }
}

#[actix_rt::test]
async fn a_desktop_wiki_feed_is_authorized_by_the_session_and_answers_its_account() {
    let (_tmp, _clock, actor) = start().await;
    let id = actor.send(OpenLocalSession { username: "ryan".into(), password: PW.into() }).await.unwrap().unwrap();
    let feed = |session_id: &str| Authorize::wiki_feed(in_session(session_id), "upload1");
    let snapshot = actor.send(local(&id, "admin.snapshot", serde_json::json!({}))).await.unwrap().unwrap();
    let owner = snapshot["authority"]["ownerAccountId"].as_str().unwrap().to_string();
    assert_eq!(actor.send(feed(&id)).await.unwrap(), Ok(owner), "the Owner feeds as their own account");
    assert_eq!(actor.send(feed("no-such-session")).await.unwrap(), Err(PrivError::ReauthRequired));
    actor.send(EndSession { family: SessionKind::Local, id: id.clone() }).await.unwrap();
    assert_eq!(actor.send(feed(&id)).await.unwrap(), Err(PrivError::ReauthRequired), "a locked session feeds nothing");
}

#[test]
fn an_authorization_refusal_says_not_permitted_once() {
    let forbidden: PrivError = domain::roles::AuthzError::Forbidden("only the Owner can transfer ownership").into();
    assert_eq!(forbidden.to_string(), "not permitted: only the Owner can transfer ownership");
    let target: PrivError = domain::roles::AuthzError::InvalidTarget("a new Owner is required").into();
    assert_eq!(target.to_string(), "not permitted: invalid target: a new Owner is required");
}
