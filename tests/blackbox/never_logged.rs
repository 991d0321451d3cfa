//! Black-box proof that the real server never writes a secret it handles to its logs: it
//! drives every path that receives one (a failed data-API sign-in that carries the passphrase
//! in the identity field, wrong passphrases on the data API and on Relay Web, a wrong and the
//! right pairing code, a wrong and the right privileged reauthentication password) and the
//! paths that issue tokens, stops the server, and then searches everything it wrote (stdout,
//! stderr and every file in the data directory outside `secrets/` and the database) for the
//! passphrase, the pairing code, the account passwords and every token or proof it issued.
//! The asserts only mean something because the secrets really went through those handlers.

use std::path::Path;

use serde_json::{json, Value};
use support::{admin_cli, client, pair, pairing_code, reauth, web_session, Relay, PASSPHRASE};

const OWNER_PW: &str = "owner-secret-pw-7731";
const WRONG_PW: &str = "wrong-secret-pw-5519";

/// Every regular file under `dir` except the secrets directory and the database files, which
/// hold secrets (hashed or, for the passphrase file, by design) and are not logs.
fn data_dir_text(dir: &Path) -> String {
    let mut text = String::new();
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let (path, kind) = (entry.path(), entry.file_type().unwrap());
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == "secrets" || name.starts_with("relay.db") {
            continue;
        }
        if kind.is_dir() {
            text.push_str(&data_dir_text(&path));
        } else if kind.is_file() {
            text.push_str(&String::from_utf8_lossy(&std::fs::read(&path).unwrap()));
        }
    }
    text
}

/// Fails if `log` holds `secret` in any spelling a logger might use: as is, case-folded, or
/// without the separators (`-`, `.`) a pairing code or a token carries; for tokens also each
/// long enough dot-separated part (the payload and the signature).
fn assert_no_trace(log: &str, what: &str, secret: &str) {
    let folded = log.to_lowercase();
    let bare = |s: &str| s.replace(['-', '.'], "").to_lowercase();
    let mut spellings = vec![secret.to_lowercase(), bare(secret)];
    spellings.extend(secret.split('.').filter(|part| part.len() >= 16).map(str::to_lowercase));
    for spelling in spellings {
        assert!(!folded.contains(&spelling), "the {what} ({spelling}) is in the server's logs");
    }
    assert!(!bare(log).contains(&bare(secret)), "the {what} is in the server's logs without its separators");
}

async fn data_api_sign_in(relay: &Relay, identity: &str, password: &str) -> (u16, Value) {
    let res = client()
        .post(relay.url("/api/collections/users/auth-with-password"))
        .json(&json!({"identity": identity, "password": password}))
        .send()
        .await
        .unwrap();
    (res.status().as_u16(), res.json().await.unwrap_or(Value::Null))
}

async fn web_sign_in(web: &str, passphrase: &str) -> u16 {
    let res = client()
        .post(format!("{web}/web/api/session"))
        .header("Origin", web)
        .json(&json!({"passphrase": passphrase}))
        .send()
        .await
        .unwrap();
    res.status().as_u16()
}

#[tokio::test]
async fn secrets_that_pass_through_the_server_never_reach_its_logs() {
    let mut relay = Relay::start_web();
    let web = relay.web.clone().unwrap().replace("127.0.0.1", "localhost");
    let mut issued = Vec::new();

    // Sign-in: the passphrase typed into the identity field, then wrong passphrases on both
    // listeners, then the right one (whose tokens are searched for too).
    assert_eq!(data_api_sign_in(&relay, PASSPHRASE, WRONG_PW).await.0, 400);
    assert_eq!(data_api_sign_in(&relay, "relay", &format!("{PASSPHRASE}-typo")).await.0, 400);
    assert_eq!(web_sign_in(&web, &format!("{PASSPHRASE}-typo")).await, 400);
    let (status, body) = data_api_sign_in(&relay, "relay", PASSPHRASE).await;
    assert_eq!(status, 200, "{body}");
    let token = body["token"].as_str().unwrap().to_string();
    let session = web_session(&web).await;
    issued.extend([token.clone(), session.token.clone(), session.csrf.clone()]);
    issued.push(session.cookie.split_once('=').unwrap().1.to_string());

    // Pairing: a wrong code, then the real one.
    let (ok, out) = admin_cli(&relay.data_dir, &["set-password", "--username", "ryan"], &format!("{OWNER_PW}\n"));
    assert!(ok, "{out}");
    let (ok, out) = admin_cli(&relay.data_dir, &["activate", "--username", "ryan"], "");
    assert!(ok, "{out}");
    let code = pairing_code(&relay, "ryan", OWNER_PW, "ryan");
    let wrong_code = if code.starts_with('A') { "BBBB-CCCC" } else { "AAAA-BBBB" };
    let (status, _) = pair(&relay, &token, "ryan", wrong_code, 3).await.err().expect("a wrong code is refused");
    assert!((400..500).contains(&status), "wrong code: {status}");
    let device = pair(&relay, &token, "ryan", &code, 3).await.expect("the real code pairs");

    // Privileged reauthentication: a wrong password, then the right one (its proof is issued).
    assert_eq!(reauth(&relay, &token, &device, WRONG_PW).await.0, 401);
    let (status, body) = reauth(&relay, &token, &device, OWNER_PW).await;
    assert_eq!(status, 200, "{body}");
    issued.push(body["proof"].as_str().unwrap().to_string());

    relay.stop();
    let logs = format!("{}{}", relay.output(), data_dir_text(&relay.data_dir));
    assert!(logs.contains("Relay listening on"), "stdout was captured: {logs}");
    assert!(logs.contains("WARN") || logs.contains("INFO"), "stderr was captured: {logs}");
    assert_no_trace(&logs, "connection passphrase", PASSPHRASE);
    assert_no_trace(&logs, "pairing code", &code);
    assert_no_trace(&logs, "wrong pairing code", wrong_code);
    assert_no_trace(&logs, "account password", OWNER_PW);
    assert_no_trace(&logs, "wrong password", WRONG_PW);
    for secret in &issued {
        assert_no_trace(&logs, "issued token or proof", secret);
    }
}
