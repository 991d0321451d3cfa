//! The password-check budgets through the actor's messages, with an explicit clock: other
//! addresses' failures never lock out a clean one (Relay Web protected sign-in and paired
//! laptops' reauthentication), the server PC's budget and the LAN budgets never spend each
//! other, `relay admin ... --as` spends the server PC's budget (through the running server, and in
//! the store without one), guessing spread over many addresses stays bounded, and the budgets
//! (the earlier single limiter's snapshot included) survive a restart.

use super::*;
use crate::testkit::{TestCtx, START_MS};
use domain::ratelimit::{BucketState, LimiterSnapshot};
use infra::clock::Clock;
use infra::db::DbPool;

const PW: &str = "local-owner-password";

/// A store with the Owner `ryan` (password `PW`, active).
fn store() -> (tempfile::TempDir, DbPool) {
    let tmp = tempfile::tempdir().unwrap();
    let (pool, _) = infra::db::open(&tmp.path().join("relay.db"), 2).unwrap();
    let service = PrivilegedService::new(pool.clone(), TestCtx::new().clock.clone());
    service.ensure_ready().unwrap();
    service.set_password("ryan", PW).unwrap();
    service.set_active("ryan", true).unwrap();
    (tmp, pool)
}

/// The actor over `pool` with the default budgets kept in the store, on `t`'s clock.
fn actor_on(pool: &DbPool, t: &TestCtx) -> Addr<PrivilegedActor> {
    let service = PrivilegedService::new(pool.clone(), t.clock.clone());
    let store = RateLimitStore::new(pool.clone());
    PrivilegedActor::new(t.ctx(), service, PrivilegedLimits::default()).persisting(store).start()
}

fn ip(octets: [u8; 4]) -> IpAddr {
    IpAddr::from(octets)
}

/// A Relay Web protected sign-in as the Owner from `source`.
async fn web_sign_in(actor: &Addr<PrivilegedActor>, source: IpAddr, password: &str) -> Result<(), PrivError> {
    let msg = OpenBrowserSession {
        binding: format!("web-{source}"),
        username: "ryan".into(),
        password: password.into(),
        source,
    };
    actor.send(msg).await.unwrap().map(|_| ())
}

/// A wrong protected sign-in from `source`: true when the password was checked, false when the
/// budgets refused it first.
async fn wrong_from(actor: &Addr<PrivilegedActor>, source: IpAddr) -> bool {
    match web_sign_in(actor, source, "wrong-password-1").await {
        Err(PrivError::InvalidCredentials) => true,
        Err(PrivError::RateLimited { .. }) => false,
        other => panic!("unexpected answer {other:?}"),
    }
}

async fn local_sign_in(actor: &Addr<PrivilegedActor>, password: &str) -> Result<String, PrivError> {
    actor.send(OpenLocalSession { username: "ryan".into(), password: password.into() }).await.unwrap()
}

fn is_limited<T>(result: &Result<T, PrivError>) -> bool {
    matches!(result, Err(PrivError::RateLimited { .. }))
}

#[actix_rt::test]
async fn other_addresses_failures_never_lock_out_a_clean_one() {
    let (_tmp, pool) = store();
    let t = TestCtx::new();
    let actor = actor_on(&pool, &t);
    // The review's reproduction: 4 addresses x 5 wrong protected sign-ins.
    for host in 2..6 {
        for _ in 0..5 {
            wrong_from(&actor, ip([10, 0, 0, host])).await;
        }
    }
    let failing = web_sign_in(&actor, ip([10, 0, 0, 2]), PW).await;
    assert!(is_limited(&failing), "a failing address waits, even with the right password: {failing:?}");
    assert_eq!(web_sign_in(&actor, ip([10, 0, 0, 50]), PW).await, Ok(()), "a clean neighbour signs in");
    assert_eq!(web_sign_in(&actor, ip([192, 168, 1, 9]), PW).await, Ok(()), "a clean address elsewhere too");
    let laptop = Reauth {
        account_id: "nobody".into(),
        device_id: "nothing".into(),
        password: "wrong-password-1".into(),
        source: ip([10, 0, 0, 51]),
    };
    assert_eq!(
        actor.send(laptop).await.unwrap(),
        Err(PrivError::InvalidCredentials),
        "a paired laptop's reauthentication from a clean address is checked, not refused"
    );
}

#[actix_rt::test]
async fn lan_failures_never_touch_the_server_pcs_budget() {
    let (_tmp, pool) = store();
    let t = TestCtx::new();
    let actor = actor_on(&pool, &t);
    // Many addresses, a browser on the server PC's own loopback among them.
    let mut sources: Vec<IpAddr> = (2..14).map(|host| ip([10, 0, 0, host])).collect();
    sources.push(IpAddr::V6(std::net::Ipv6Addr::LOCALHOST));
    for source in sources {
        for _ in 0..5 {
            wrong_from(&actor, source).await;
        }
    }
    let id = local_sign_in(&actor, PW).await.expect("the server PC signs in after LAN failures");
    let reconfirm = ReconfirmLocalPassword { session_id: id, password: PW.into() };
    assert!(actor.send(reconfirm).await.unwrap().is_ok(), "and reconfirms its password");
}

#[actix_rt::test]
async fn server_pc_failures_spend_no_lan_budget() {
    let (_tmp, pool) = store();
    let t = TestCtx::new();
    let actor = actor_on(&pool, &t);
    for _ in 0..5 {
        assert_eq!(local_sign_in(&actor, "wrong-password-1").await, Err(PrivError::InvalidCredentials));
    }
    assert!(is_limited(&local_sign_in(&actor, PW).await), "the server PC's budget is spent");
    // 4 addresses in 4 networks x 5: the whole LAN global budget (20) is still there.
    let mut checked = 0;
    for network in 0..4 {
        for _ in 0..5 {
            checked += usize::from(wrong_from(&actor, ip([10, 0, network, 1])).await);
        }
    }
    assert_eq!(checked, 20, "every LAN guess was checked");
}

#[actix_rt::test]
async fn guessing_from_twelve_neighbours_is_bounded_and_the_owner_still_signs_in() {
    let (_tmp, pool) = store();
    let t = TestCtx::new();
    let actor = actor_on(&pool, &t);
    // The review's second reproduction: 12 addresses of one /24 round-robin for 40 s, the Owner
    // signing in from the same /24 every second.
    let mut checked = 0;
    for second in 0..40 {
        for host in 2..14 {
            checked += usize::from(wrong_from(&actor, ip([10, 0, 0, host])).await);
        }
        assert_eq!(web_sign_in(&actor, ip([10, 0, 0, 200]), PW).await, Ok(()), "the Owner at {second} s");
        if second == 5 {
            let failing = web_sign_in(&actor, ip([10, 0, 0, 2]), PW).await;
            assert!(is_limited(&failing), "a failing address waits, even with the right password: {failing:?}");
        }
        t.clock.advance_ms(1_000);
    }
    // One guess per address whenever its own budget is full again (at 0 s and 30 s: 24), plus
    // the /24 budget's refill (one per 10 s; its 10 went to the first guesses): 26.
    assert!((24..=30).contains(&checked), "guesses checked: {checked}");
}

#[actix_rt::test]
async fn guessing_spread_over_networks_is_bounded_by_the_global_budget() {
    let (_tmp, pool) = store();
    let t = TestCtx::new();
    let actor = actor_on(&pool, &t);
    let mut checked = 0;
    for network in 0..40 {
        for _ in 0..5 {
            checked += usize::from(wrong_from(&actor, ip([10, 1, network, 1])).await);
        }
    }
    assert_eq!(web_sign_in(&actor, ip([10, 2, 0, 1]), PW).await, Ok(()), "a clean address signs in");
    // One first guess per address (40) plus the global budget (20, of which the first 4 addresses'
    // first guesses took 4).
    assert_eq!(checked, 56, "guesses checked");
}

#[actix_rt::test]
async fn both_budgets_survive_a_restart_apart() {
    let (_tmp, pool) = store();
    let t = TestCtx::new();
    let actor = actor_on(&pool, &t);
    for _ in 0..5 {
        assert_eq!(local_sign_in(&actor, "wrong-password-1").await, Err(PrivError::InvalidCredentials));
    }
    for host in 2..6 {
        for _ in 0..5 {
            wrong_from(&actor, ip([10, 0, 0, host])).await;
        }
    }
    assert!(wrong_from(&actor, ip([10, 0, 0, 9])).await, "a fresh address's first guess");
    tokio::time::sleep(FLUSH_INTERVAL + std::time::Duration::from_millis(500)).await;

    let restarted = actor_on(&pool, &TestCtx::at(t.clock.now_ms()));
    assert!(is_limited(&local_sign_in(&restarted, PW).await), "the server PC's budget is not refilled");
    assert!(is_limited(&web_sign_in(&restarted, ip([10, 0, 0, 2]), PW).await), "nor a failing address's");
    assert!(!wrong_from(&restarted, ip([10, 0, 0, 9])).await, "nor the network's, which holds a failing address");
    assert_eq!(web_sign_in(&restarted, ip([10, 0, 0, 50]), PW).await, Ok(()), "a clean address signs in");
}

#[actix_rt::test]
async fn the_earlier_single_limiters_snapshot_is_adopted_at_start() {
    let (_tmp, pool) = store();
    // What the earlier limiter left: a spent address, a spent server-PC budget under `::1` and a
    // spent global bucket, all in one scope.
    let spent = BucketState { tokens: 0.0, last_ms: START_MS as u64 };
    let legacy = LimiterSnapshot {
        global: Some(spent),
        keys: vec![(ip([10, 0, 0, 7]), spent), (IpAddr::V6(std::net::Ipv6Addr::LOCALHOST), spent)],
    };
    RateLimitStore::new(pool.clone()).save(&[ScopeSnapshot::new("privileged.reauth", &legacy)]).unwrap();
    let actor = actor_on(&pool, &TestCtx::new());
    assert!(is_limited(&web_sign_in(&actor, ip([10, 0, 0, 7]), PW).await), "the spent address still waits");
    assert!(is_limited(&local_sign_in(&actor, PW).await), "the server PC's spent budget moved to its own");
    assert_eq!(web_sign_in(&actor, ip([10, 0, 0, 8]), PW).await, Ok(()), "a clean address signs in");
}

/// `relay admin pair-device --as ryan` with `password`.
fn pair_as_owner(password: &str) -> domain::control::AdminOp {
    domain::control::AdminOp::PairDevice {
        actor: "ryan".into(),
        password: domain::control::SecretText(password.into()),
        target: "ryan".into(),
        label: "NOC laptop".into(),
    }
}

fn is_limited_admin<T>(result: &Result<T, AdminOpError>) -> bool {
    matches!(result, Err(AdminOpError::Privileged(PrivError::RateLimited { .. })))
}

#[actix_rt::test]
async fn relay_admin_as_an_actor_spends_the_server_pcs_budget_through_the_running_server() {
    let (_tmp, pool) = store();
    let actor = actor_on(&pool, &TestCtx::new());
    for _ in 0..5 {
        let wrong =
            actor.send(RunCommand { origin: CliAdmin { op: pair_as_owner("wrong-password-1") } }).await.unwrap();
        assert_eq!(wrong, Err(AdminOpError::Privileged(PrivError::InvalidCredentials)));
    }
    let right = actor.send(RunCommand { origin: CliAdmin { op: pair_as_owner(PW) } }).await.unwrap();
    assert!(is_limited_admin(&right), "the right password waits too once the budget is spent: {right:?}");
    assert!(is_limited(&local_sign_in(&actor, PW).await), "the Administration screen shares the budget");
    assert_eq!(web_sign_in(&actor, ip([10, 0, 0, 2]), PW).await, Ok(()), "no LAN budget was spent");
}

#[actix_rt::test]
async fn relay_admin_as_an_actor_without_a_server_spends_the_same_budget_in_the_store() {
    let (_tmp, pool) = store();
    let t = TestCtx::new();
    let service = PrivilegedService::new(pool.clone(), t.clock.clone());
    let limits = RateLimitStore::new(pool.clone());
    for _ in 0..5 {
        let wrong = admin_ops::run_without_server(&service, &limits, pair_as_owner("wrong-password-1"));
        assert_eq!(wrong, Err(AdminOpError::Privileged(PrivError::InvalidCredentials)));
    }
    let right = admin_ops::run_without_server(&service, &limits, pair_as_owner(PW));
    assert!(is_limited_admin(&right), "a later CLI run waits, even with the right password: {right:?}");
    let started = actor_on(&pool, &TestCtx::at(t.clock.now_ms()));
    assert!(is_limited(&local_sign_in(&started, PW).await), "a server started afterwards keeps the spent budget");
    t.clock.advance_ms(30_000);
    let later = admin_ops::run_without_server(&service, &limits, pair_as_owner(PW));
    assert!(matches!(later, Ok(domain::control::AdminReply::PairingCode { .. })), "one more after 30 s: {later:?}");
}
