//! Dynatrace Problems against the real `relay serve` binary and a fake Dynatrace (the
//! fake-upstream harness speaking Grail's `query:execute` / `query:poll` JSON), configured by an
//! Administrator's signed `dynatrace.*` commands and driven by `relay dynatrace sync`: the
//! write rules of the four collections, validation and revision checks, a token that never
//! comes back (answers, logs, backup archive), a token that never follows a changed URL, a
//! reconciliation that fills the problems, a truncated one that changes nothing, a settings
//! change during a query that discards the late answer, profile names that stay inert inside
//! the DQL, and plain-words failures (401, 429) in the sync record.

use std::io::Read;
use std::time::Duration;

use fake_upstream::{FakeUpstream, Reply};
use serde_json::{json, Value};
use support::{
    admin_cli, client, pair, pairing_code, relay_cli, sample, signed_command, Device, Relay, PARTLY_WRITABLE,
};

const OWNER_PW: &str = "owner-password-0001";
const ADMIN_PW: &str = "admin-password-0002";
const ENV_URL: &str = "https://abc12345.apps.dynatrace.com";
const TOKEN: &str = "dt0s16.BLACKBOXTEST.SECRETPART0123456789";
const EXECUTE: &str = "/platform/storage/query/v1/query:execute";
const POLL: &str = "/platform/storage/query/v1/query:poll";

fn start(fake: &FakeUpstream) -> (Relay, tempfile::TempDir) {
    let tmp = tempfile::tempdir().unwrap();
    let origin = fake.url("");
    let origin = origin.trim_end_matches('/').to_string();
    let relay =
        Relay::start_env(&tmp.path().join("data"), "127.0.0.1", &[], &[("RELAY_TEST_UPSTREAM_DYNATRACE", &origin)]);
    (relay, tmp)
}

/// Administrator `charles`, active with a paired laptop.
async fn administrator(relay: &Relay, token: &str) -> Device {
    for (user, pw) in [("ryan", OWNER_PW), ("charles", ADMIN_PW)] {
        let (ok, out) = admin_cli(&relay.data_dir, &["set-password", "--username", user], &format!("{pw}\n"));
        assert!(ok, "{out}");
        let (ok, out) = admin_cli(&relay.data_dir, &["activate", "--username", user], "");
        assert!(ok, "{out}");
    }
    let code = pairing_code(relay, "charles", ADMIN_PW, "charles");
    pair(relay, token, "charles", &code, 9).await.expect("administrator pairs")
}

async fn status(relay: &Relay, token: &str, d: &Device) -> Value {
    let (code, body) = signed_command(relay, token, d, "dynatrace.status", json!({}), None).await;
    assert_eq!(code, 200, "{body}");
    body["result"].clone()
}

async fn configure(relay: &Relay, token: &str, d: &Device, payload: Value) -> Value {
    let revision = status(relay, token, d).await["revision"].as_i64();
    let (code, body) = signed_command(relay, token, d, "dynatrace.configure", payload, revision).await;
    assert_eq!(code, 200, "{body}");
    body["result"].clone()
}

async fn set_token(relay: &Relay, token: &str, d: &Device) -> Value {
    let revision = status(relay, token, d).await["revision"].as_i64();
    let (code, body) = signed_command(relay, token, d, "dynatrace.setToken", json!({"token": TOKEN}), revision).await;
    assert_eq!(code, 200, "{body}");
    body["result"].clone()
}

/// Runs `relay dynatrace sync` off the test's runtime (the fake Dynatrace answers on it).
async fn sync(relay: &Relay) -> Value {
    let data_dir = relay.data_dir.clone();
    let (ok, out) =
        tokio::task::spawn_blocking(move || relay_cli("dynatrace", &data_dir, &["sync"], "")).await.unwrap();
    assert!(ok, "relay dynatrace sync: {out}");
    serde_json::from_str(out.trim()).unwrap_or_else(|_| panic!("summary json: {out}"))
}

async fn records(relay: &Relay, token: &str, collection: &str) -> Vec<Value> {
    let sort = if collection == "dynatrace_problems" { "&sort=problemId" } else { "" };
    let page = relay.get_json(token, &format!("/api/collections/{collection}/records?perPage=500{sort}")).await;
    page["items"].as_array().cloned().unwrap_or_default()
}

fn problem(id: &str, status: &str, title: &str) -> Value {
    json!({
        "problemId": id,
        "displayId": format!("P-{}", &id[id.len() - 4..]),
        "title": title,
        "status": status,
        "severity": "AVAILABILITY",
        "impactLevel": "SERVICES",
        "startTime": "2026-12-04T10:00:00.000000000Z",
        "endTime": if status == "ACTIVE" { Value::Null } else { json!("2026-12-04T11:00:00.000000000Z") },
        "rootCause": "HOST-42",
        "rootCauseEntityName": "db-01",
        "affectedEntityIds": ["SERVICE-1"],
        "affectedEntityNames": ["checkout"],
        "affectedEntityTypes": ["SERVICE"],
        "alertingProfiles": ["NOC"],
    })
}

/// Grail's answers for one query: RUNNING from execute, then SUCCEEDED from poll.
fn grail(fake: &FakeUpstream, records: Vec<Value>, truncated: bool) {
    let notifications = if truncated {
        json!([{"severity": "WARNING", "notificationType": "RESULT_TRUNCATED", "message": "Result limit of 10000 records reached"}])
    } else {
        json!([])
    };
    let running = json!({"state": "RUNNING", "requestToken": "tok-1", "ttlSeconds": 120});
    let done = json!({"state": "SUCCEEDED", "progress": 100, "result": {"records": records, "metadata": {"grail": {"notifications": notifications}}}});
    fake.route(
        "POST",
        EXECUTE,
        Reply::status(202).header("Content-Type", "application/json").body(running.to_string()),
    );
    fake.route("GET", POLL, Reply::json(done.to_string()));
}

fn queries(fake: &FakeUpstream) -> Vec<Value> {
    fake.requests()
        .iter()
        .filter(|r| r.path() == EXECUTE)
        .map(|r| serde_json::from_slice::<Value>(&r.body).unwrap())
        .collect()
}

#[tokio::test]
async fn operators_write_only_what_each_dynatrace_collection_permits() {
    let relay = Relay::start();
    let token = relay.token().await;
    let http = client();
    for collection in ["dynatrace_problems", "dynatrace_problem_sync"] {
        let res = http
            .post(relay.url(&format!("/api/collections/{collection}/records")))
            .header("Authorization", &token)
            .json(&sample(collection))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 403, "{collection} is server-owned");
    }
    for collection in PARTLY_WRITABLE {
        let created = relay.create(&token, collection, &sample(collection)).await;
        let one = relay.url(&format!("/api/collections/{collection}/records/{}", created["id"].as_str().unwrap()));
        let patched =
            http.patch(&one).header("Authorization", &token).json(&json!({"addressed": false})).send().await.unwrap();
        let deleted = http.delete(&one).header("Authorization", &token).send().await.unwrap();
        match *collection {
            "dynatrace_problem_states" => {
                assert_eq!(patched.status(), 200, "the addressed flag toggles");
                assert_eq!(deleted.status(), 403, "an addressed state is never deleted");
            }
            _ => {
                assert_eq!(patched.status(), 403, "notes are append-only");
                assert_eq!(deleted.status(), 403, "notes are append-only");
            }
        }
        assert_eq!(records(&relay, &token, collection).await.len(), 1, "{collection}: the record is still there");
    }
}

#[tokio::test]
async fn settings_are_typed_revision_checked_and_the_token_never_comes_back() {
    let fake = FakeUpstream::start().await;
    let (relay, _tmp) = start(&fake);
    let token = relay.token().await;
    let admin = administrator(&relay, &token).await;

    let initial = status(&relay, &token, &admin).await;
    assert_eq!((initial["revision"].as_i64(), initial["token"].as_str()), (Some(0), Some("not_configured")));
    for bad in
        ["http://abc12345.apps.dynatrace.com", "https://abc12345.apps.dynatrace.com.evil.test", "https://127.0.0.1"]
    {
        let (code, body) =
            signed_command(&relay, &token, &admin, "dynatrace.configure", json!({"environmentUrl": bad}), Some(0))
                .await;
        assert_eq!(code, 400, "{bad}: {body}");
        assert!(!body.to_string().contains(bad), "the refusal never echoes the value: {body}");
    }
    let (code, body) =
        signed_command(&relay, &token, &admin, "dynatrace.configure", json!({"environmentUrl": ENV_URL}), None).await;
    assert_eq!(code, 409, "a settings change names the revision: {body}");
    let (code, body) =
        signed_command(&relay, &token, &admin, "dynatrace.setToken", json!({"token": TOKEN}), Some(0)).await;
    assert_eq!(code, 400, "no token before an environment: {body}");
    assert_eq!(status(&relay, &token, &admin).await["revision"], 0, "refusals changed nothing");

    let configured =
        configure(&relay, &token, &admin, json!({"environmentUrl": ENV_URL, "alertingProfiles": ["NOC"]})).await;
    assert_eq!(configured["environmentUrl"], ENV_URL);
    let (code, body) =
        signed_command(&relay, &token, &admin, "dynatrace.configure", json!({"environmentUrl": ENV_URL}), Some(0))
            .await;
    assert_eq!(code, 409, "a stale revision is refused: {body}");
    let with_token = set_token(&relay, &token, &admin).await;
    assert_eq!(with_token["token"], "configured");
    assert!(!with_token.to_string().contains(TOKEN));
    assert!(!status(&relay, &token, &admin).await.to_string().contains(TOKEN));

    // A token is bound to the environment it was entered for.
    let moved =
        configure(&relay, &token, &admin, json!({"environmentUrl": "https://xyz98765.apps.dynatrace.com"})).await;
    assert_eq!(moved["token"], "not_configured", "changing the environment removes the token");
    let summary = sync(&relay).await;
    assert_eq!(summary["outcome"], "disabled", "{summary}");
    assert!(fake.requests().is_empty(), "no request without a token for this environment");

    // The token is in no backup and no log.
    configure(&relay, &token, &admin, json!({"environmentUrl": ENV_URL})).await;
    set_token(&relay, &token, &admin).await;
    let (ok, out) = relay_cli("backup", &relay.data_dir, &["create"], "");
    assert!(ok, "{out}");
    let name = out.split_whitespace().find(|w| w.starts_with("backup_") && w.ends_with(".zip")).unwrap();
    let archive = std::fs::File::open(relay.data_dir.join("backups").join(name)).unwrap();
    let mut zip = zip::ZipArchive::new(archive).unwrap();
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).unwrap();
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).unwrap();
        let found = bytes.windows(TOKEN.len()).any(|w| w == TOKEN.as_bytes());
        assert!(!found, "the token is inside backup entry {}", entry.name());
    }
    assert!(!relay.output().contains(TOKEN), "the token reached the log");
}

#[tokio::test]
async fn a_reconciliation_fills_the_problems_and_a_truncated_one_changes_nothing() {
    let fake = FakeUpstream::start().await;
    grail(
        &fake,
        vec![problem("-1001_2001V2", "ACTIVE", "Checkout down"), problem("-1002_2002V2", "CLOSED", "Slow DB")],
        false,
    );
    let (relay, _tmp) = start(&fake);
    let token = relay.token().await;
    let admin = administrator(&relay, &token).await;
    configure(
        &relay,
        &token,
        &admin,
        json!({"environmentUrl": ENV_URL, "alertingProfiles": ["NOC \"core\" | fetch logs"]}),
    )
    .await;
    set_token(&relay, &token, &admin).await;

    let summary = sync(&relay).await;
    assert_eq!((summary["outcome"].as_str(), summary["reconciled"].as_bool()), (Some("ok"), Some(true)), "{summary}");
    let stored = records(&relay, &token, "dynatrace_problems").await;
    assert_eq!(stored.len(), 2, "{stored:?}");
    assert_eq!(stored[0]["status"], "OPEN");
    assert_eq!(stored[0]["endTime"], "");
    assert_eq!(stored[1]["status"], "CLOSED");
    assert_eq!(stored[0]["rootCauseName"], "db-01");
    assert_eq!(stored[0]["environmentUrl"], ENV_URL);
    let sync_state = records(&relay, &token, "dynatrace_problem_sync").await;
    assert_eq!((sync_state[0]["state"].as_str(), sync_state[0]["openCount"].as_f64()), (Some("ok"), Some(1.0)));

    // The request: the token only as a bearer header, the profile name inert inside one literal.
    let request = fake.requests().into_iter().find(|r| r.path() == EXECUTE).unwrap();
    assert_eq!(request.header("authorization"), Some(format!("Bearer {TOKEN}").as_str()));
    let query = queries(&fake)[0]["query"].as_str().unwrap().to_string();
    assert!(query.starts_with("fetch dt.davis.problems, from:-365d"), "{query}");
    assert!(query.contains(r#"array("NOC \"core\" | fetch logs")"#), "{query}");
    let commands: Vec<&str> = query.lines().filter_map(|l| l.strip_prefix("| ")).collect();
    assert!(commands.iter().all(|c| !c.starts_with("fetch")), "no second command: {query}");
    assert_eq!(query.matches("fetch logs").count(), 1, "the name appears once, inside its literal: {query}");

    // Nothing changed: the next incremental sync writes nothing.
    let before: Vec<Value> =
        records(&relay, &token, "dynatrace_problems").await.iter().map(|r| r["revision"].clone()).collect();
    let summary = sync(&relay).await;
    assert_eq!((summary["reconciled"].as_bool(), summary["written"].as_u64()), (Some(false), Some(0)), "{summary}");
    let after: Vec<Value> =
        records(&relay, &token, "dynatrace_problems").await.iter().map(|r| r["revision"].clone()).collect();
    assert_eq!(before, after);

    // A scope change asks for a reconciliation; a truncated answer touches nothing.
    grail(&fake, vec![problem("-1003_2003V2", "ACTIVE", "Only one of many")], true);
    configure(&relay, &token, &admin, json!({"environmentUrl": ENV_URL, "alertingProfiles": ["NOC", "DB"]})).await;
    let summary = wait_for_sync(&relay, |s| s["reconciled"] == true && s["outcome"] == "ok").await;
    assert_eq!(summary["truncated"], true, "{summary}");
    let stored = records(&relay, &token, "dynatrace_problems").await;
    assert_eq!(
        stored.iter().map(|r| r["problemId"].as_str().unwrap()).collect::<Vec<_>>(),
        ["-1001_2001V2", "-1002_2002V2"]
    );
    let sync_state = records(&relay, &token, "dynatrace_problem_sync").await;
    assert_eq!(sync_state[0]["resultTruncated"], true);

    // A complete reconciliation drops what is out of scope now.
    grail(&fake, vec![problem("-1001_2001V2", "CLOSED", "Checkout down")], false);
    configure(&relay, &token, &admin, json!({"environmentUrl": ENV_URL, "alertingProfiles": ["NOC"]})).await;
    let summary = wait_for_sync(&relay, |s| s["reconciled"] == true && s["outcome"] == "ok").await;
    assert_eq!(summary["removed"], 1, "{summary}");
    let stored = records(&relay, &token, "dynatrace_problems").await;
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0]["status"], "CLOSED");
}

/// Syncs until a run's summary satisfies `done` (a settings change may discard one run).
async fn wait_for_sync(relay: &Relay, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..10 {
        let summary = sync(relay).await;
        if done(&summary) {
            return summary;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("no sync matched");
}

#[tokio::test]
async fn a_settings_change_during_a_query_discards_its_late_answer() {
    let fake = FakeUpstream::start().await;
    let (relay, _tmp) = start(&fake);
    let token = relay.token().await;
    let admin = administrator(&relay, &token).await;
    configure(&relay, &token, &admin, json!({"environmentUrl": ENV_URL})).await;
    // The first query's answer arrives late, after a scope change; the second one is current.
    let running = json!({"state": "RUNNING", "requestToken": "tok-1"}).to_string();
    let done = |id: &str| {
        json!({"state": "SUCCEEDED", "result": {"records": [problem(id, "ACTIVE", "x")], "metadata": {"grail": {"notifications": []}}}})
            .to_string()
    };
    fake.route("POST", EXECUTE, Reply::status(202).header("Content-Type", "application/json").body(running));
    fake.route_sequence(
        "GET",
        POLL,
        vec![
            Reply::json(done("-7777_0001V2")).delay_before_headers(Duration::from_millis(2500)),
            Reply::json(done("-8888_0002V2")),
        ],
    );
    set_token(&relay, &token, &admin).await;
    let data_dir = relay.data_dir.clone();
    let first = tokio::task::spawn_blocking(move || relay_cli("dynatrace", &data_dir, &["sync"], ""));
    // Wait until the first query is being polled, then change the scope.
    for _ in 0..100 {
        if fake.requests().iter().any(|r| r.path() == POLL) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    configure(&relay, &token, &admin, json!({"environmentUrl": ENV_URL, "alertingProfiles": ["NOC"]})).await;
    let (ok, out) = first.await.unwrap();
    assert!(ok, "{out}");
    let summary = wait_for_sync(&relay, |s| s["outcome"] == "ok").await;
    assert_eq!(summary["fetched"], 1, "{summary}");
    let ids: Vec<String> = records(&relay, &token, "dynatrace_problems")
        .await
        .iter()
        .map(|r| r["problemId"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["-8888_0002V2"], "the answer that outlived its settings wrote nothing");
}

#[tokio::test]
async fn failures_are_told_in_plain_words_and_back_off() {
    let fake = FakeUpstream::start().await;
    fake.route("POST", EXECUTE, Reply::status(401).header("Content-Type", "application/json").body("{}"));
    let (relay, _tmp) = start(&fake);
    let token = relay.token().await;
    let admin = administrator(&relay, &token).await;
    configure(&relay, &token, &admin, json!({"environmentUrl": ENV_URL})).await;
    set_token(&relay, &token, &admin).await;
    let summary = wait_for_sync(&relay, |s| s["outcome"] == "error").await;
    assert_eq!(summary["error"], "Dynatrace rejected the platform token", "{summary}");
    let state = &records(&relay, &token, "dynatrace_problem_sync").await[0];
    assert_eq!(state["state"], "error");
    assert!(state["consecutiveFailures"].as_f64().unwrap() >= 1.0);
    assert!(!state["staleSince"].as_str().unwrap().is_empty());
    assert!(!state["nextRetryAt"].as_str().unwrap().is_empty());

    fake.route("POST", EXECUTE, Reply::status(429).header("Retry-After", "120").body(""));
    let summary = sync(&relay).await;
    assert!(summary["error"].as_str().unwrap().contains("120 s"), "{summary}");
    let (code, body) = signed_command(&relay, &token, &admin, "dynatrace.testConnection", json!({}), None).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["result"]["ok"], false, "{body}");
    assert!(!body.to_string().contains("127.0.0.1"), "no origin in operator texts: {body}");
}

#[tokio::test]
async fn notification_subjects_read_at_most_25_executions_and_keep_only_a_valid_subject() {
    let fake = FakeUpstream::start().await;
    let problems =
        vec![problem("-1001_2001V2", "ACTIVE", "Checkout down"), problem("-1002_2002V2", "CLOSED", "Slow DB")];
    // 26 notifications: the newest names problem 1001, the next one 1002, the rest problems
    // Relay does not hold; e00 is the oldest and must wait for a later run.
    let notifications: Vec<Value> = (0..26)
        .map(|i| {
            let problem_id = match i {
                25 => "-1001_2001V2".to_string(),
                24 => "-1002_2002V2".to_string(),
                _ => format!("-9{i:03}_1V2"),
            };
            json!({
                "problemId": problem_id,
                "executionId": format!("e{i:02}"),
                "notificationStatus": "ACTIVE",
                "notificationTime": format!("2026-12-04T10:{i:02}:00.000000000Z"),
            })
        })
        .collect();
    let running = json!({"state": "RUNNING", "requestToken": "tok-1"}).to_string();
    let done = |records: Vec<Value>| {
        json!({"state": "SUCCEEDED", "result": {"records": records, "metadata": {"grail": {"notifications": []}}}})
            .to_string()
    };
    fake.route("POST", EXECUTE, Reply::status(202).header("Content-Type", "application/json").body(running));
    fake.route_sequence("GET", POLL, vec![Reply::json(done(problems)), Reply::json(done(notifications))]);
    let email_tasks = json!({
        "email_noc": {"name": "email_noc", "action": "dynatrace.email:send-email", "state": "SUCCESS"},
        "run_query": {"name": "run_query", "action": "dynatrace.automations:execute-dql-query", "state": "SUCCESS"},
    })
    .to_string();
    for i in 0..26 {
        let tasks = format!("/platform/automation/v1/executions/e{i:02}/tasks");
        fake.route("GET", &tasks, Reply::json(email_tasks.clone()));
        let subject = match i {
            25 => "Checkout down — NOC",
            24 => "{{ event()['title'] }}",
            _ => "Other problem",
        };
        let input = json!({"subject": subject, "to": ["noc-secret-list@example.test"], "content": "body text"});
        fake.route("GET", &format!("{tasks}/email_noc/input"), Reply::json(input.to_string()));
    }
    let (relay, _tmp) = start(&fake);
    let token = relay.token().await;
    let admin = administrator(&relay, &token).await;
    configure(&relay, &token, &admin, json!({"environmentUrl": ENV_URL})).await;
    set_token(&relay, &token, &admin).await;

    let summary = sync(&relay).await;
    assert_eq!((summary["outcome"].as_str(), summary["subjectsRead"].as_u64()), (Some("ok"), Some(25)), "{summary}");
    let task_reads: Vec<String> =
        fake.requests().iter().filter(|r| r.path().ends_with("/tasks")).map(|r| r.path().to_string()).collect();
    assert_eq!(task_reads.len(), 25, "{task_reads:?}");
    assert!(!task_reads.iter().any(|p| p.contains("/e00/")), "the oldest execution waits: {task_reads:?}");
    let dql = queries(&fake)[1]["query"].as_str().unwrap().to_string();
    assert!(dql.starts_with("fetch bizevents"), "{dql}");

    let stored = records(&relay, &token, "dynatrace_problems").await;
    assert_eq!(stored.len(), 2, "a notification never creates a problem: {stored:?}");
    assert_eq!(
        (stored[0]["emailSubject"].as_str(), stored[0]["emailSubjectStatus"].as_str()),
        (Some("Checkout down — NOC"), Some("OPEN"))
    );
    assert_eq!(stored[1]["emailSubject"], "", "a template subject is never kept");
    assert!(!stored.iter().any(|r| r.to_string().contains("noc-secret-list")), "only the subject is kept");
    assert_eq!(summary["subjectsWritten"], 1, "{summary}");
}

#[tokio::test]
async fn a_followed_workflow_gives_the_scope_and_one_that_cannot_be_followed_changes_nothing() {
    const WORKFLOW: &str = "3f2b1c9e-7d4a-4e2b-9c1d-0a1b2c3d4e5f";
    let workflow_path = format!("/platform/automation/v1/workflows/{WORKFLOW}");
    let workflow = |query: &str| {
        json!({
            "id": WORKFLOW,
            "title": "NOC problems",
            "trigger": {"eventTrigger": {"isActive": true, "triggerConfiguration": {"type": "davis-problem"}}},
            "tasks": {"find_problems": {"action": "dynatrace.automations:execute-dql-query", "input": {"query": query}}},
        })
        .to_string()
    };
    let fake = FakeUpstream::start().await;
    grail(&fake, vec![problem("-1001_2001V2", "ACTIVE", "Checkout down")], false);
    fake.route(
        "GET",
        &workflow_path,
        Reply::json(workflow(
            "fetch events, from:-2h | filter event.kind == \"DAVIS_PROBLEM\" | filter matchesPhrase(event.name, \"checkout\") | fields event.id",
        )),
    );
    let (relay, _tmp) = start(&fake);
    let token = relay.token().await;
    let admin = administrator(&relay, &token).await;
    let (code, body) = signed_command(
        &relay,
        &token,
        &admin,
        "dynatrace.configure",
        json!({"environmentUrl": ENV_URL, "followWorkflow": true}),
        Some(0),
    )
    .await;
    assert_eq!(code, 400, "following needs a workflow id: {body}");
    let configured = configure(
        &relay,
        &token,
        &admin,
        json!({"environmentUrl": ENV_URL, "workflowId": WORKFLOW, "followWorkflow": true}),
    )
    .await;
    assert_eq!(configured["scope"]["kind"], "workflow", "{configured}");
    set_token(&relay, &token, &admin).await;

    let summary = wait_for_sync(&relay, |s| s["outcome"] == "ok").await;
    assert_eq!(summary["reconciled"], true, "{summary}");
    let query = queries(&fake)
        .iter()
        .filter_map(|q| q["query"].as_str())
        .rfind(|q| q.starts_with("fetch dt.davis.problems"))
        .unwrap()
        .to_string();
    assert!(
        query.contains("(event.kind == \"DAVIS_PROBLEM\") and (matchesPhrase(event.name, \"checkout\"))"),
        "{query}"
    );
    let workflow_reads = fake.requests().iter().filter(|r| r.path() == workflow_path).count();
    assert!(workflow_reads >= 1);
    assert!(
        fake.requests().iter().all(|r| r.method == "GET" || r.path() == EXECUTE),
        "the workflow is only read, never changed or run"
    );
    let before = records(&relay, &token, "dynatrace_problems").await;
    let synced = records(&relay, &token, "dynatrace_problem_sync").await[0]["lastSuccessAt"].clone();

    // The workflow now runs a second command: it cannot be followed, and nothing changes.
    fake.route("GET", &workflow_path, Reply::json(workflow("fetch events | filter a == 1 | fetch logs | fields x")));
    grail(&fake, vec![], false);
    configure(
        &relay,
        &token,
        &admin,
        json!({"environmentUrl": ENV_URL, "workflowId": WORKFLOW, "followWorkflow": true, "workflowTask": "find_problems"}),
    )
    .await;
    let summary = wait_for_sync(&relay, |s| s["outcome"] == "error").await;
    assert_eq!(
        summary["error"],
        "Only filter commands may come before fields, sort, limit or summarize in the workflow query.",
        "{summary}"
    );
    assert_eq!(records(&relay, &token, "dynatrace_problems").await, before, "nothing was written or removed");
    let state = &records(&relay, &token, "dynatrace_problem_sync").await[0];
    assert_eq!(state["lastSuccessAt"], synced, "the cursor did not move");
    assert_eq!(state["state"], "error");
}

#[tokio::test]
async fn a_reconciliation_larger_than_one_answer_pages_after_an_escaped_last_id_and_a_failed_page_moves_nothing() {
    // The last id of the first page is hostile: it comes back into the next page's DQL only as
    // one escaped string literal. A failed second page writes nothing and moves no cursor.
    const HOSTILE: &str = r#"-9999999_1V2" | fetch logs | filter "x"#;
    let fake = FakeUpstream::start().await;
    let record = |id: String| -> Value {
        json!({"problemId": id, "displayId": "P-1", "title": "t\" | summarize count()", "status": "CLOSED",
            "severity": "ERROR", "startTime": "2026-12-04T10:00:00Z", "endTime": "2026-12-04T11:00:00Z"})
    };
    let mut first: Vec<Value> = (0..9_999).map(|i| record(format!("-{i:07}_1V2"))).collect();
    first.push(record(HOSTILE.to_string()));
    let second: Vec<Value> = (0..3).map(|i| record(format!("-a{i:06}_1V2"))).collect();
    let done = |records: &Vec<Value>| {
        Reply::json(
            json!({"state": "SUCCEEDED", "result": {"records": records, "metadata": {"grail": {"notifications": []}}}})
                .to_string(),
        )
    };
    let running = json!({"state": "RUNNING", "requestToken": "tok-1"}).to_string();
    fake.route("POST", EXECUTE, Reply::status(202).header("Content-Type", "application/json").body(running));
    fake.route_sequence("GET", POLL, vec![done(&first), Reply::status(500).body("{}"), done(&first), done(&second)]);
    let (relay, _tmp) = start(&fake);
    let token = relay.token().await;
    let admin = administrator(&relay, &token).await;
    configure(&relay, &token, &admin, json!({"environmentUrl": ENV_URL})).await;
    set_token(&relay, &token, &admin).await;

    let failed = wait_for_sync(&relay, |s| s["outcome"] == "error").await;
    assert_eq!(failed["written"], 0, "{failed}");
    let none = relay.get_json(&token, "/api/collections/dynatrace_problems/records?perPage=1").await;
    assert_eq!(none["totalItems"], 0, "a failed page writes nothing");
    let state = &records(&relay, &token, "dynatrace_problem_sync").await[0];
    assert_eq!(
        (state["lastSuccessAt"].as_str(), state["lastReconciledAt"].as_str()),
        (Some(""), Some("")),
        "no cursor moved"
    );

    let summary = wait_for_sync(&relay, |s| s["outcome"] == "ok").await;
    assert_eq!((summary["fetched"].as_u64(), summary["truncated"].as_bool()), (Some(10_003), Some(false)), "{summary}");
    let pages: Vec<String> = queries(&fake).iter().filter_map(|q| q["query"].as_str().map(str::to_string)).collect();
    assert!(pages[0].contains("| sort problemId asc") && !pages[0].contains("event.id >"), "{}", pages[0]);
    let next = &pages[1];
    assert!(
        next.contains(r#"| filter event.id > "-9999999_1V2\" | fetch logs | filter \"x""#),
        "one escaped literal: {next}"
    );
    let commands: Vec<&str> = next.lines().filter_map(|l| l.strip_prefix("| ")).collect();
    assert!(commands.iter().all(|c| !c.starts_with("fetch")), "no second command: {next}");
    let page = relay.get_json(&token, "/api/collections/dynatrace_problems/records?perPage=1").await;
    assert_eq!(page["totalItems"], 10_003);
}
