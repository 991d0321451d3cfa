//! The Wiki library against the real `relay serve` binary: an ordinary app token reads the
//! categories (the built-in one from the first start) but no record API route writes a Wiki
//! collection; `relay wiki` over the control socket runs the typed `wiki.*` commands as the
//! Owner (a wrong password and a Publisher-less actor are refused), the change reaches the
//! record API, and the audit chain records each command.

#[path = "../support/mod.rs"]
mod support;

use serde_json::{json, Value};
use support::{admin_cli, client, relay_cli, sample, Relay};

const OWNER_PW: &str = "owner-password-0001";

fn wiki_cli(relay: &Relay, args: &[&str], password: &str) -> (bool, String) {
    relay_cli("wiki", &relay.data_dir, args, &format!("{password}\n"))
}

async fn categories(relay: &Relay, token: &str) -> Vec<Value> {
    let body = relay.get_json(token, "/api/collections/wiki_categories/records?sort=sortOrder").await;
    body["items"].as_array().unwrap().clone()
}

#[tokio::test]
async fn clients_read_wiki_categories_and_only_wiki_commands_write_them() {
    let relay = Relay::start();
    let token = relay.token().await;
    let initial = categories(&relay, &token).await;
    assert_eq!(initial.len(), 1);
    assert_eq!(
        (initial[0]["name"].as_str(), initial[0]["systemKey"].as_str()),
        (Some("Uncategorized"), Some("uncategorized"))
    );

    let http = client();
    for collection in ["wiki_categories", "wiki_documents"] {
        let base = relay.url(&format!("/api/collections/{collection}/records"));
        let one = format!("{base}/wikiuncategoriz");
        let requests = [
            http.post(&base).json(&sample(collection)),
            http.patch(&one).json(&json!({"name": "Hijacked", "lifecycleState": "trashed"})),
            http.delete(&one),
        ];
        for request in requests {
            let res = request.header("Authorization", &token).send().await.unwrap();
            assert_eq!(res.status(), 403, "{collection}: ordinary clients never write the Wiki");
        }
    }
    assert_eq!(categories(&relay, &token).await, initial, "nothing changed");

    for (user, step) in [("ryan", "set-password"), ("ryan", "activate")] {
        let stdin = if step == "set-password" { format!("{OWNER_PW}\n") } else { String::new() };
        let (ok, out) = admin_cli(&relay.data_dir, &[step, "--username", user], &stdin);
        assert!(ok, "{out}");
    }
    let (ok, out) = wiki_cli(&relay, &["category-create", "--as", "ryan", "Core Network"], "wrong-password-123");
    assert!(!ok && out.contains("invalid username or password"), "{out}");
    let (ok, out) = wiki_cli(&relay, &["category-create", "--as", "ryan", "Core Network"], OWNER_PW);
    assert!(ok, "{out}");
    let (ok, out) = wiki_cli(&relay, &["category-create", "--as", "ryan", "core   network"], OWNER_PW);
    assert!(!ok && out.contains("already in use"), "{out}");

    let listed = categories(&relay, &token).await;
    let created = listed.iter().find(|c| c["name"] == "Core Network").expect("visible to clients");
    let id = created["id"].as_str().unwrap();
    let (ok, out) = wiki_cli(&relay, &["category-rename", "--as", "ryan", id, "Backbone"], OWNER_PW);
    assert!(ok, "{out}");
    let (ok, out) =
        wiki_cli(&relay, &["category-delete", "--as", "ryan", id, "--reassign-to", "wikiuncategoriz"], OWNER_PW);
    assert!(ok && out.contains("0 document(s) moved"), "{out}");
    let (ok, out) = wiki_cli(
        &relay,
        &["category-delete", "--as", "ryan", "wikiuncategoriz", "--reassign-to", "wikiuncategoriz"],
        OWNER_PW,
    );
    assert!(!ok, "the built-in category stays: {out}");
    assert_eq!(categories(&relay, &token).await.len(), 1);

    let (ok, out) = wiki_cli(&relay, &["library", "--as", "ryan"], OWNER_PW);
    assert!(ok && out.contains("Uncategorized"), "{out}");
    let (ok, out) = admin_cli(&relay.data_dir, &["verify-audit"], "");
    assert!(ok, "{out}");
}
