//! Presence against the real `relay serve` binary (issue #39.6), with clients on several loopback
//! source addresses (clients bound to 127.0.0.x): a presence row belongs to the logical session that created
//! it, so client B cannot rename or refresh client A's row with the id it reads from the
//! presence list (or even with A's own tab id); what anyone reads is an opaque id; one session
//! holds at most 8 rows however many random tab ids it sends, one address at most 32; and rows
//! expire (the clock moved ahead through the debug-only clock offset file).

use std::time::Duration;

use serde_json::{json, Value};
use support::{Relay, PASSPHRASE};

const HEARTBEAT: &str = "/api/relay/presence/heartbeat";
const ROWS: &str = "/api/collections/client_presence/records?perPage=500";

/// One client: its own HTTP source address and a token from its own password sign-in.
struct Client {
    http: reqwest::Client,
    token: String,
}

impl Client {
    async fn sign_in(relay: &Relay, host: u8) -> Client {
        // No idle connection is kept: the test waits longer than the server's keep-alive, and a
        // pooled connection the server is closing just then fails the next request.
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .local_address(std::net::IpAddr::from([127, 0, 0, host]))
            .pool_max_idle_per_host(0)
            .build()
            .unwrap();
        let res = http
            .post(relay.url("/api/collections/users/auth-with-password"))
            .json(&json!({"identity": "relay", "password": PASSPHRASE}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "sign-in from 127.0.0.{host}");
        let token = res.json::<Value>().await.unwrap()["token"].as_str().unwrap().to_string();
        Client { http, token }
    }

    async fn heartbeat(&self, relay: &Relay, tab_id: &str, hostname: &str) -> reqwest::Response {
        let body = json!({"tabId": tab_id, "hostname": hostname});
        self.http.post(relay.url(HEARTBEAT)).header("Authorization", &self.token).json(&body).send().await.unwrap()
    }

    async fn get(&self, relay: &Relay, path: &str) -> Value {
        let res = self.http.get(relay.url(path)).header("Authorization", &self.token).send().await.unwrap();
        assert_eq!(res.status(), 200, "{path}");
        res.json().await.unwrap()
    }

    /// Every `client_presence` row, as anyone signed in reads them.
    async fn rows(&self, relay: &Relay) -> Vec<Value> {
        self.get(relay, ROWS).await["items"].as_array().unwrap().clone()
    }
}

fn rows_named<'a>(rows: &'a [Value], hostname: &str) -> Vec<&'a Value> {
    rows.iter().filter(|r| r["hostname"] == hostname).collect()
}

#[tokio::test]
async fn another_client_cannot_rename_or_refresh_a_presence_row_read_from_the_list() {
    let relay = Relay::start();
    let a = Client::sign_in(&relay, 21).await;
    let b = Client::sign_in(&relay, 22).await;
    let res = a.heartbeat(&relay, "tab-of-a", "browser").await;
    assert_eq!(res.status(), 200);
    let own: Value = res.json().await.unwrap();
    let a_id = own["sessionId"].as_str().unwrap().to_string();
    assert_ne!(a_id, "tab-of-a", "the row is keyed by an id the server derives");

    // B reads A's id where anyone can: the presence list (after a sweep) and the collection.
    let mut listed = None;
    for _ in 0..100 {
        let snapshot = b.get(&relay, "/api/relay/presence").await;
        listed = snapshot["active"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["hostname"] == "Web · Browser · 127.0.0.21")
            .cloned();
        if listed.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let listed = listed.expect("A is listed within the 5 s sweep");
    assert_eq!(listed["sessionId"], a_id.as_str());
    let before = b.rows(&relay).await;
    assert!(!before.iter().any(|r| r.to_string().contains("tab-of-a")), "no tab id is readable: {before:?}");
    let a_before = rows_named(&before, "Web · Browser · 127.0.0.21")[0].clone();

    tokio::time::sleep(Duration::from_millis(20)).await;
    for forged in [a_id.as_str(), "tab-of-a"] {
        let res = b.heartbeat(&relay, forged, "ghost-pc").await;
        assert_eq!(res.status(), 200, "B may heartbeat, but only as B");
        let row: Value = res.json().await.unwrap();
        assert_ne!(row["sessionId"], a_id.as_str());
    }
    let after = b.rows(&relay).await;
    let a_after = after.iter().find(|r| r["sessionId"] == a_id.as_str()).expect("A's row is still there");
    assert_eq!(a_after, &a_before, "A's row is neither renamed nor refreshed (same hostname, lastSeen, updated)");
    assert_eq!(rows_named(&after, "ghost-pc").len(), 2, "B's heartbeats made rows of B's own");

    // 2,000 heartbeats with random ids: at most 8 rows for B's session, the rest refused.
    let mut refused = 0;
    for n in 0..2_000 {
        let res = b.heartbeat(&relay, &format!("random-{n}-{}", n * 7919), "ghost-pc").await;
        match res.status().as_u16() {
            200 => {}
            429 => {
                assert!(res.headers().contains_key("retry-after"));
                assert_eq!(res.json::<Value>().await.unwrap()["data"]["code"], "presence_limit");
                refused += 1;
            }
            other => panic!("heartbeat {n}: {other}"),
        }
    }
    let rows = b.rows(&relay).await;
    assert_eq!(rows_named(&rows, "ghost-pc").len(), 8, "B's session holds at most 8 rows");
    assert_eq!(refused, 2_000 - 6);
    assert_eq!(rows.len(), 9, "B's 8 and A's");
    assert_eq!(a.heartbeat(&relay, "tab-of-a", "browser").await.status(), 200, "A's own tab still beats");
}

#[tokio::test]
async fn one_address_holds_at_most_32_rows_and_rows_expire() {
    let tmp = tempfile::tempdir().unwrap();
    let offset = tmp.path().join("clock-offset");
    std::fs::write(&offset, "0").unwrap();
    let offset_env = offset.to_str().unwrap();
    let relay =
        Relay::start_env(&tmp.path().join("data"), "127.0.0.1", &[], &[(infra::clock::OFFSET_FILE_ENV, offset_env)]);

    // Five sign-ins from one address, 8 tabs each: 32 rows, then that address is full.
    let mut sessions = Vec::new();
    for _ in 0..5 {
        sessions.push(Client::sign_in(&relay, 31).await);
    }
    let mut admitted = 0;
    for session in &sessions {
        for tab in 0..8 {
            let res = session.heartbeat(&relay, &format!("tab-{tab}"), "browser").await;
            admitted += usize::from(res.status() == 200);
        }
    }
    assert_eq!(admitted, 32);
    let elsewhere = Client::sign_in(&relay, 32).await;
    assert_eq!(elsewhere.heartbeat(&relay, "tab-0", "browser").await.status(), 200, "another address has room");
    let rows = elsewhere.rows(&relay).await;
    assert_eq!(rows_named(&rows, "Web · Browser · 127.0.0.31").len(), 32);

    // Ten minutes and a bit later every row is pruned by the sweep, and the address has room again.
    std::fs::write(&offset, "601000").unwrap();
    let mut left = usize::MAX;
    for _ in 0..150 {
        left = elsewhere.rows(&relay).await.len();
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(left, 0, "rows not seen for 10 minutes expire");
    assert_eq!(sessions[4].heartbeat(&relay, "tab-9", "browser").await.status(), 200, "expired rows free their place");
}
