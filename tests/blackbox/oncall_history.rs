//! Black-box test of the on-call history (issue #38 item 7a) against the real `relay` binary:
//! creating, updating and deleting `oncall` rows through the record API records one
//! `oncall_history` row per change, readable by every signed-in client, and the history itself
//! refuses every client write.

use serde_json::{json, Value};
use support::{client, sample, Relay};

async fn history(relay: &Relay, token: &str) -> Vec<Value> {
    let page = relay.get_json(token, "/api/collections/oncall_history/records?sort=revision&perPage=200").await;
    page["items"].as_array().expect("a list of history rows").clone()
}

#[tokio::test]
async fn board_changes_through_the_record_api_are_kept_as_history() {
    let relay = Relay::start();
    let token = relay.token().await;
    let http = client();
    let base = relay.url("/api/collections/oncall/records");
    assert!(history(&relay, &token).await.is_empty());

    let ada = relay.create(&token, "oncall", &sample("oncall")).await;
    let id = ada["id"].as_str().unwrap();
    let res = http
        .patch(format!("{base}/{id}"))
        .header("Authorization", &token)
        .json(&json!({"name": "Bob"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let res = http
        .patch(format!("{base}/{id}"))
        .header("Authorization", &token)
        .json(&json!({"team": ""}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400, "a refused write");
    let res = http.delete(format!("{base}/{id}")).header("Authorization", &token).send().await.unwrap();
    assert_eq!(res.status(), 204);

    let rows = history(&relay, &token).await;
    let actions: Vec<&str> = rows.iter().map(|r| r["action"].as_str().unwrap()).collect();
    assert_eq!(actions, ["create", "update", "delete"], "one row per accepted change, none for the refused one");
    assert!(rows.iter().all(|r| r["recordId"] == ada["id"] && r["teamId"] == "network" && r["team"] == "Network"));
    assert_eq!(rows[0]["stateAfter"]["name"], "Ada");
    assert_eq!((&rows[1]["stateBefore"]["name"], &rows[1]["stateAfter"]["name"]), (&json!("Ada"), &json!("Bob")));
    assert_eq!((&rows[2]["stateBefore"]["name"], &rows[2]["stateAfter"]), (&json!("Bob"), &json!({})));
    assert!(rows[0]["created"].as_str().unwrap() <= rows[2]["created"].as_str().unwrap());

    // The history is the server's: clients can neither forge, rewrite nor erase it.
    let history_base = relay.url("/api/collections/oncall_history/records");
    let one = format!("{history_base}/{}", rows[0]["id"].as_str().unwrap());
    let forged = sample("oncall_history");
    let refused = [
        http.post(&history_base).json(&forged),
        http.patch(&one).json(&json!({"stateAfter": {"name": "Mallory"}})),
        http.delete(&one),
    ];
    for request in refused {
        let res = request.header("Authorization", &token).send().await.unwrap();
        assert_eq!(res.status(), 403);
    }
    assert_eq!(history(&relay, &token).await, rows, "nothing changed");
}
