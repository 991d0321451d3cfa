//! Black-box tests of the server-side alert HTML allowlist (issue #19) against the real `relay`
//! binary: a client that bypasses the UI and writes `alert_history.bodyHtml` or
//! `alert_reminders.alertBodyHtml` with script, event handlers, `javascript:` links, styles or
//! frames through the record API (create and update) gets the value stored, answered and read
//! back without them, while a body exactly as the UI writes it round-trips byte for byte; the
//! offline replay route stores through the same choke point.

use serde_json::{json, Value};
use support::{client, Relay};

const PNG: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/// A hostile body: script, an image with a handler, javascript: and data:text/html links, a
/// style attribute and element, a frame, SVG script and an unknown highlight.
const ATTACK: &str = concat!(
    "<p onclick=\"steal()\">Hello</p>",
    "<script>alert(document.cookie)</script>",
    "<img src=x onerror=alert(1)>",
    "<a href=\"jav&#x61;script:alert(1)\">click</a>",
    "<a href=\"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==\">data</a>",
    "<b style=\"background:url(javascript:alert(1))\">bold</b>",
    "<style>body{display:none}</style>",
    "<iframe src=\"https://evil.example/\"></iframe>",
    "<svg><script>alert(2)</script></svg>",
    "<span data-hl=\"evil\">hl</span>",
);

/// What the server stores for [`ATTACK`]: the text and the allowed tags, nothing else.
const CLEANED: &str = "<p>Hello</p><img><a rel=\"noopener noreferrer\">click</a><a rel=\"noopener noreferrer\">data</a><b>bold</b><span>hl</span>";

/// A body as the renderer writes it (richBody.ts richToStored): <br> lines, a list, a link, a
/// highlight, escaped text and an inline image.
fn ui_body() -> String {
    format!(
        "Mail is <b>down</b> since 09:00 &amp; &lt;rising&gt;<br><ul><li>EU</li><li>US</li></ul>\
         Status: <a href=\"https://status.example.com/mail?a=1&amp;b=2\" rel=\"noopener noreferrer\">page</a><br>\
         Fix by <span data-hl=\"deadline\">Friday</span><br>\
         <img src=\"{PNG}\" alt=\"graph &quot;1&quot;\" class=\"alert-body-image\">"
    )
}

fn assert_inert(value: &str) {
    let lower = value.to_ascii_lowercase();
    for bad in
        ["<script", "onerror", "onclick", "javascript:", "data:text", "style", "<iframe", "<svg", "data-hl=\"evil\""]
    {
        assert!(!lower.contains(bad), "{bad:?} was stored: {value}");
    }
}

/// Creates a record in `collection` with `field` set to `html`, then patches it to `patched`;
/// answers the create answer, the patch answer and the record read back.
async fn write_and_read(
    relay: &Relay,
    token: &str,
    collection: &str,
    base_body: Value,
    field: &str,
    html: &str,
    patched: &str,
) -> (Value, Value, Value) {
    let http = client();
    let base = relay.url(&format!("/api/collections/{collection}/records"));
    let mut body = base_body;
    body[field] = json!(html);
    let res = http.post(&base).header("Authorization", token).json(&body).send().await.unwrap();
    assert_eq!(res.status(), 200, "create {collection}: {}", res.text().await.unwrap());
    let created: Value = res.json().await.unwrap();
    let id = created["id"].as_str().unwrap().to_string();
    let res = http
        .patch(format!("{base}/{id}"))
        .header("Authorization", token)
        .json(&json!({ field: patched }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "update {collection}: {}", res.text().await.unwrap());
    let updated: Value = res.json().await.unwrap();
    let res = http.get(format!("{base}/{id}")).header("Authorization", token).send().await.unwrap();
    assert_eq!(res.status(), 200);
    (created, updated, res.json().await.unwrap())
}

#[tokio::test]
async fn hostile_alert_html_is_stored_cleaned_and_the_uis_own_body_round_trips() {
    let relay = Relay::start();
    let token = relay.token().await;
    let ui = ui_body();
    let targets = [
        ("alert_history", "bodyHtml", json!({"severity": "ISSUE", "subject": "Mail down"})),
        (
            "alert_reminders",
            "alertBodyHtml",
            json!({"title": "Send update", "dueAt": "2026-12-02T15:00:00Z", "status": "pending"}),
        ),
    ];
    for (collection, field, base) in targets {
        // Create hostile, update to the UI's body.
        let (created, updated, read) =
            write_and_read(&relay, &token, collection, base.clone(), field, ATTACK, &ui).await;
        let stored = created[field].as_str().unwrap();
        assert_inert(stored);
        assert_eq!(stored, CLEANED, "{collection} create");
        assert_eq!(updated[field].as_str(), Some(ui.as_str()), "{collection}: the UI's body is stored byte for byte");
        assert_eq!(read[field].as_str(), Some(ui.as_str()), "{collection}: and read back so");

        // Create with the UI's body, update hostile.
        let (created, updated, read) = write_and_read(&relay, &token, collection, base, field, &ui, ATTACK).await;
        assert_eq!(created[field].as_str(), Some(ui.as_str()), "{collection} create with the UI's body");
        for value in [&updated[field], &read[field]] {
            let value = value.as_str().unwrap();
            assert_inert(value);
            assert_eq!(value, CLEANED, "{collection} update");
        }
    }

    // A list (what other operators' windows and exports receive) carries only cleaned bodies.
    let res = client()
        .get(relay.url("/api/collections/alert_history/records"))
        .header("Authorization", &token)
        .send()
        .await
        .unwrap();
    let page: Value = res.json().await.unwrap();
    let items = page["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    for item in items {
        assert_inert(item["bodyHtml"].as_str().unwrap());
    }
}

/// The offline queue's replay (what a laptop sends when it reconnects) stores through the same
/// choke point: a hostile queued update is stored cleaned, a UI body unchanged.
#[tokio::test]
async fn an_offline_replay_stores_alert_html_cleaned() {
    let relay = Relay::start();
    let token = relay.token().await;
    let ui = ui_body();
    for (collection, field, base) in [
        ("alert_history", "bodyHtml", json!({"severity": "ISSUE", "subject": "Mail down"})),
        (
            "alert_reminders",
            "alertBodyHtml",
            json!({"title": "Send update", "dueAt": "2026-12-02T15:00:00Z", "status": "pending"}),
        ),
    ] {
        let url = relay.url(&format!("/api/collections/{collection}/records"));
        for (html, stored) in [(ATTACK, CLEANED), (ui.as_str(), ui.as_str())] {
            let seen = relay.create(&token, collection, &base).await;
            let change = json!({
                "collection": collection, "action": "update", "recordId": seen["id"],
                "expectedUpdated": seen["updated"],
                "expectedFingerprint": domain::offline::record_fingerprint(&seen).unwrap(),
                "data": { field: html },
            });
            let res = client()
                .post(relay.url("/api/relay/offline/replay"))
                .header("Authorization", &token)
                .json(&change)
                .send()
                .await
                .unwrap();
            assert_eq!(res.status(), 200, "{collection}: {}", res.text().await.unwrap());
            let id = seen["id"].as_str().unwrap();
            let res = client().get(format!("{url}/{id}")).header("Authorization", &token).send().await.unwrap();
            let now: Value = res.json().await.unwrap();
            assert_eq!(now[field].as_str(), Some(stored), "{collection}");
        }
    }
}
