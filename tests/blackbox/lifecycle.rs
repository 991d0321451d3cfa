//! Black-box lifecycle tests: data survives restart, migrations are idempotent, unmanaged
//! tables are left in place and logged, secrets are owner-only and outside the database,
//! `connection-info` prints the URL and passphrase, health and presence are served, and logs
//! never contain the passphrase or tokens.

#[path = "../support/mod.rs"]
mod support;

use diesel::connection::SimpleConnection;
use serde_json::{json, Value};
use support::{client, relay_bin, sample, Relay, PASSPHRASE};

#[tokio::test]
async fn restart_keeps_data_and_leaves_unmanaged_tables() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let mut relay = Relay::start_in(&data, &[]);
    let token = relay.token().await;
    let created: Value = relay.create(&token, "contacts", &sample("contacts")).await;
    relay.stop();

    let db = data.join("relay.db");
    let (pool, applied) = infra::db::open(&db, 1).unwrap();
    assert!(applied.is_empty(), "migrations already applied by the server");
    pool.get()
        .unwrap()
        .batch_execute("CREATE TABLE operator_notes (x TEXT); INSERT INTO operator_notes VALUES ('keep me');")
        .unwrap();
    drop(pool);

    let relay = Relay::start_in(&data, &[]);
    let token = relay.token().await;
    let got: Value =
        relay.get_json(&token, &format!("/api/collections/contacts/records/{}", created["id"].as_str().unwrap())).await;
    assert_eq!(got, created);
    let stderr = relay.stderr();
    assert!(stderr.contains("unmanaged table") && stderr.contains("operator_notes"), "{stderr}");
    assert!(!stderr.contains("applied database migrations"), "no migration re-applied on restart");
    drop(relay);
    let (pool, _) = infra::db::open(&db, 1).unwrap();
    let mut conn = pool.get().unwrap();
    assert_eq!(infra::db::unmanaged_tables(&mut conn).unwrap(), vec!["operator_notes".to_string()]);
    assert_eq!(infra::db::table_columns(&mut conn, "operator_notes").unwrap(), vec!["x".to_string()]);
}

#[cfg(unix)]
#[tokio::test]
async fn secrets_are_owner_only_outside_the_database_and_never_logged() {
    use std::os::unix::fs::PermissionsExt;
    let relay = Relay::start();
    let token = relay.token().await;
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&relay.data_dir), 0o700);
    assert_eq!(mode(&relay.data_dir.join("secrets")), 0o700);
    assert_eq!(mode(&relay.data_dir.join("secrets/passphrase")), 0o600);
    assert_eq!(mode(&relay.data_dir.join("secrets/token.key")), 0o600);
    let db = std::fs::read(relay.data_dir.join("relay.db")).unwrap();
    assert!(!db.windows(PASSPHRASE.len()).any(|w| w == PASSPHRASE.as_bytes()), "passphrase is not in the database");

    let out = std::process::Command::new(relay_bin())
        .args(["connection-info", "--data-dir"])
        .arg(&relay.data_dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(&format!("Passphrase: {PASSPHRASE}")), "{text}");
    assert!(text.contains("Server URL: http://127.0.0.1:"), "{text}");

    let res = client().get(relay.url("/api/relay/health")).header("Authorization", &token).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let health: Value = res.json().await.unwrap();
    for actor in ["auth", "presence", "realtime", "store"] {
        assert!(health["actors"][actor]["state"].is_string(), "{actor} in {health}");
    }
    let health_text = health.to_string();
    assert!(!health_text.contains(PASSPHRASE) && !health_text.contains(&token));
    let logs = relay.stderr();
    assert!(!logs.contains(PASSPHRASE) && !logs.contains(&token), "{logs}");
    assert!(logs.lines().all(|l| l.len() < 2000));
}

#[tokio::test]
async fn public_liveness_presence_and_unknown_routes() {
    let relay = Relay::start();
    let token = relay.token().await;
    let http = client();
    let res = http.get(relay.url("/api/health")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["x-content-type-options"], "nosniff");
    assert_eq!(res.headers()["x-frame-options"], "DENY");
    assert!(res.headers()["content-security-policy"].to_str().unwrap().contains("object-src 'none'"));
    assert!(res.headers().get("access-control-allow-origin").is_none());
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["code"], 200);

    let res = http
        .post(relay.url("/api/relay/presence/heartbeat"))
        .header("Authorization", &token)
        .json(&json!({"sessionId": "sess-9", "hostname": "noc-9"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let row: Value = res.json().await.unwrap();
    assert_eq!((row["hostname"].as_str(), row["mode"].as_str()), (Some("noc-9"), Some("client")));
    let res = http.get(relay.url("/api/relay/presence")).header("Authorization", &token).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let snapshot: Value = res.json().await.unwrap();
    assert_eq!(snapshot["heartbeatIntervalMs"], 15000);

    for path in ["/api/nope", "/api/collections", "/api/_superusers", "/api/backups", "/_/"] {
        let res = http.get(relay.url(path)).header("Authorization", &token).send().await.unwrap();
        if path.starts_with("/api") {
            assert_eq!(res.status(), 404, "{path}");
            let v: Value = res.json().await.unwrap();
            assert_eq!(v["status"], 404);
        } else {
            assert_eq!(res.status(), 200, "SPA fallback for {path}");
        }
    }
}

#[test]
fn help_documents_every_command() {
    let out = std::process::Command::new(relay_bin()).arg("--help").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("serve") && text.contains("connection-info"), "{text}");
    let out = std::process::Command::new(relay_bin()).args(["serve", "--help"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    for flag in ["--data-dir", "--port", "--bind", "--ui-dir", "--token-ttl-secs"] {
        assert!(text.contains(flag), "{flag} in {text}");
    }
    let out = std::process::Command::new(relay_bin())
        .args(["serve", "--data-dir", "/tmp/x", "--bind", "not-an-ip"])
        .output()
        .unwrap();
    assert!(!out.status.success());
}

#[tokio::test]
async fn cross_origin_access_is_granted_to_the_desktop_webview_only() {
    let relay = Relay::start();
    let http = client();
    let url = relay.url("/api/collections/contacts/records");
    for origin in ["tauri://localhost", "http://tauri.localhost"] {
        let res = http
            .request(reqwest::Method::OPTIONS, &url)
            .header("Origin", origin)
            .header("Access-Control-Request-Method", "POST")
            .header("Access-Control-Request-Headers", "authorization,content-type")
            .send()
            .await
            .unwrap();
        assert_eq!(res.headers().get("access-control-allow-origin").and_then(|v| v.to_str().ok()), Some(origin));
        assert!(res.headers().get("access-control-allow-credentials").is_none());
        let res = http.get(&url).header("Origin", origin).send().await.unwrap();
        assert_eq!(res.status(), 401, "CORS never replaces authentication");
        assert_eq!(res.headers().get("access-control-allow-origin").and_then(|v| v.to_str().ok()), Some(origin));
    }
    for origin in ["http://evil.example", "tauri://localhost.evil", "null", "http://127.0.0.1:1"] {
        let res = http
            .request(reqwest::Method::OPTIONS, &url)
            .header("Origin", origin)
            .header("Access-Control-Request-Method", "POST")
            .send()
            .await
            .unwrap();
        assert!(res.headers().get("access-control-allow-origin").is_none(), "{origin}");
        let res = http.get(relay.url("/api/health")).header("Origin", origin).send().await.unwrap();
        assert_eq!(res.status(), 200, "other origins are not blocked, just not granted CORS");
        assert!(res.headers().get("access-control-allow-origin").is_none(), "{origin}");
    }
}
