//! Black-box tests of the record API against the real `relay` binary: CRUD on every managed
//! collection, validation errors that leave the table unchanged, list parameters, filter
//! injection attempts, contains-search through the trigram index (with PocketBase's `~`
//! semantics and `skipTotal`), the collection allowlist and auth on every route.

use serde_json::{json, Value};
use support::{client, invalid, sample, sample_update, Relay, COLLECTIONS, SERVER_OWNED};

async fn list(relay: &Relay, token: &str, collection: &str, query: &[(&str, &str)]) -> reqwest::Response {
    client()
        .get(relay.url(&format!("/api/collections/{collection}/records")))
        .query(query)
        .header("Authorization", token)
        .send()
        .await
        .unwrap()
}

async fn list_json(relay: &Relay, token: &str, collection: &str, query: &[(&str, &str)]) -> Value {
    let res = list(relay, token, collection, query).await;
    assert_eq!(res.status(), 200, "list {collection} {query:?}");
    res.json().await.unwrap()
}

#[tokio::test]
async fn crud_on_every_collection() {
    let relay = Relay::start();
    let token = relay.token().await;
    let http = client();
    let mut last_revision = 0;
    for collection in COLLECTIONS {
        let base = relay.url(&format!("/api/collections/{collection}/records"));
        let res = http.post(&base).header("Authorization", &token).json(&sample(collection)).send().await.unwrap();
        assert_eq!(res.status(), 200, "create {collection}: {}", res.text().await.unwrap());
        let created: Value = res.json().await.unwrap();
        let id = created["id"].as_str().unwrap().to_string();
        assert_eq!(id.len(), 15);
        assert_eq!(created["collectionName"], *collection);
        assert!(created["created"].as_str().unwrap().ends_with('Z'));
        let revision = created["revision"].as_i64().unwrap();
        assert!(revision > last_revision, "revisions increase across the store");

        let got: Value = http
            .get(format!("{base}/{id}"))
            .header("Authorization", &token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(got, created);

        let (patch, field) = sample_update(collection);
        let res = http.patch(format!("{base}/{id}")).header("Authorization", &token).json(&patch).send().await.unwrap();
        assert_eq!(res.status(), 200, "update {collection}");
        let updated: Value = res.json().await.unwrap();
        assert_eq!(updated[field], patch[field], "{collection}.{field}");
        assert_eq!(updated["created"], created["created"]);
        last_revision = updated["revision"].as_i64().unwrap();
        assert!(last_revision > revision);

        let page = list_json(&relay, &token, collection, &[]).await;
        assert_eq!((page["totalItems"].as_i64(), page["items"].as_array().unwrap().len()), (Some(1), 1));

        let res = http.delete(format!("{base}/{id}")).header("Authorization", &token).send().await.unwrap();
        assert_eq!(res.status(), 204, "delete {collection}");
        let res = http.get(format!("{base}/{id}")).header("Authorization", &token).send().await.unwrap();
        assert_eq!(res.status(), 404);
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["status"], 404);
    }
}

#[tokio::test]
async fn validation_errors_are_typed_and_leave_data_unchanged() {
    let relay = Relay::start();
    let token = relay.token().await;
    let http = client();
    for collection in COLLECTIONS {
        let base = relay.url(&format!("/api/collections/{collection}/records"));
        let created: Value = http
            .post(&base)
            .header("Authorization", &token)
            .json(&sample(collection))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let res = http.post(&base).header("Authorization", &token).json(&invalid(collection)).send().await.unwrap();
        assert_eq!(res.status(), 400, "invalid create on {collection}");
        let body: Value = res.json().await.unwrap();
        let fields = body["data"].as_object().unwrap();
        assert!(!fields.is_empty(), "{collection}: {body}");
        assert!(fields.values().all(|f| f["code"].as_str().unwrap().starts_with("validation_")), "{body}");

        let id = created["id"].as_str().unwrap();
        let res = http
            .patch(format!("{base}/{id}"))
            .header("Authorization", &token)
            .json(&invalid(collection))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 400, "invalid update on {collection}");
        let page = list_json(&relay, &token, collection, &[]).await;
        assert_eq!(page["totalItems"], 1, "{collection}: rejected writes add nothing");
        assert_eq!(page["items"][0], created, "{collection}: rejected update changed nothing");
    }
    let base = relay.url("/api/collections/contacts/records");
    for (body, content_type) in
        [("{not json", "application/json"), ("[1,2]", "application/json"), ("name=x", "text/plain")]
    {
        let res = http
            .post(&base)
            .header("Authorization", &token)
            .header("Content-Type", content_type)
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 400, "{body}");
        let v: Value = res.json().await.unwrap();
        assert_eq!(v["status"], 400);
    }
    let huge = json!({"name": "x".repeat(1100 * 1024)});
    let res = http.post(&base).header("Authorization", &token).json(&huge).send().await.unwrap();
    assert_eq!(res.status(), 413);
    assert_eq!(list_json(&relay, &token, "contacts", &[]).await["totalItems"], 1);
}

#[tokio::test]
async fn list_parameters_and_filter_injection() {
    let relay = Relay::start();
    let token = relay.token().await;
    let http = client();
    let base = relay.url("/api/collections/contacts/records");
    for name in ["Cleo", "Ada", "Bob", "O'Brien", "Zed"] {
        http.post(&base).header("Authorization", &token).json(&json!({"name": name})).send().await.unwrap();
    }
    let names = |v: &Value| {
        v["items"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap().to_string()).collect::<Vec<_>>()
    };
    let page = list_json(&relay, &token, "contacts", &[("sort", "name"), ("perPage", "2"), ("page", "2")]).await;
    assert_eq!(
        (page["totalItems"].as_i64(), page["totalPages"].as_i64(), names(&page)),
        (Some(5), Some(3), vec!["Cleo".into(), "O'Brien".into()])
    );
    let page =
        list_json(&relay, &token, "contacts", &[("filter", "name ~ 'o' && name != 'Bob'"), ("sort", "-name")]).await;
    assert_eq!(names(&page), vec!["O'Brien", "Cleo"]);
    let page = list_json(&relay, &token, "contacts", &[("skipTotal", "1")]).await;
    assert_eq!(page["totalItems"], -1);

    for attack in
        ["name = \"x' OR '1'='1\"", "name = 'x\\' OR 1=1 --'", "name ~ \"%' OR 1=1; DROP TABLE contacts; --\""]
    {
        let page = list_json(&relay, &token, "contacts", &[("filter", attack)]).await;
        assert_eq!(page["totalItems"], 0, "bound harmlessly: {attack}");
    }
    for attack in [
        "name = 'x'; DROP TABLE contacts",
        "name = 'x' OR 1=1",
        "1=1",
        "(SELECT name FROM sqlite_master) = 'x'",
        "name = 'x' UNION SELECT * FROM contacts",
        "rowid > 0",
        "@request.auth.id != ''",
        "name = 'unterminated",
    ] {
        let res = list(&relay, &token, "contacts", &[("filter", attack)]).await;
        assert_eq!(res.status(), 400, "rejected: {attack}");
        let v: Value = res.json().await.unwrap();
        assert_eq!(v["status"], 400);
    }
    for sort in ["name;DROP TABLE contacts", "@random", "password"] {
        assert_eq!(list(&relay, &token, "contacts", &[("sort", sort)]).await.status(), 400, "{sort}");
    }
    for (key, value) in [("page", "0"), ("perPage", "-5"), ("page", "abc")] {
        assert_eq!(list(&relay, &token, "contacts", &[(key, value)]).await.status(), 400, "{key}={value}");
    }
    assert_eq!(list_json(&relay, &token, "contacts", &[]).await["totalItems"], 5, "table intact");
}

#[tokio::test]
async fn contains_search_keeps_pocketbase_semantics_and_skip_total() {
    let relay = Relay::start();
    let token = relay.token().await;
    let http = client();
    let base = relay.url("/api/collections/contacts/records");
    for name in ["Zoë Person 1", "ZOË Person 12", "Person 2", "a_b Person 1x", "axb 100%", "back\\slash"] {
        let res = http.post(&base).header("Authorization", &token).json(&json!({"name": name})).send().await.unwrap();
        assert_eq!(res.status(), 200, "{name}");
    }
    let names = |v: &Value| {
        let mut n: Vec<String> =
            v["items"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap().to_string()).collect();
        n.sort();
        n
    };
    for (filter, expected) in [
        ("name ~ 'person 1'", vec!["ZOË Person 12", "Zoë Person 1", "a_b Person 1x"]),
        ("name ~ 'zoë'", vec!["Zoë Person 1"]),
        ("name ~ 'a_b'", vec!["a_b Person 1x"]),
        ("name ~ 'a_b%'", vec!["a_b Person 1x", "axb 100%"]),
        ("name ~ '0%'", vec![]),
        ("name ~ 'k\\\\sl'", vec!["back\\slash"]),
        ("name ~ '1x'", vec!["a_b Person 1x"]),
        ("name !~ 'person'", vec!["axb 100%", "back\\slash"]),
    ] {
        let page = list_json(&relay, &token, "contacts", &[("filter", filter), ("sort", "-created")]).await;
        assert_eq!(names(&page), expected, "{filter}");
        assert_eq!(page["totalItems"], expected.len(), "{filter}");
        let skipped =
            list_json(&relay, &token, "contacts", &[("filter", filter), ("skipTotal", "true"), ("perPage", "1")]).await;
        assert_eq!((skipped["totalItems"].as_i64(), skipped["totalPages"].as_i64()), (Some(-1), Some(-1)), "{filter}");
        assert_eq!(skipped["items"].as_array().unwrap().len(), expected.len().min(1), "{filter}");
    }
    let res = list(&relay, &token, "contacts", &[("skipTotal", "yes")]).await;
    assert_eq!(res.status(), 400, "skipTotal is read as PocketBase reads it");
}

#[tokio::test]
async fn only_allowlisted_collections_are_reachable() {
    let relay = Relay::start();
    let token = relay.token().await;
    for collection in
        ["users", "_superusers", "sqlite_master", "__diesel_schema_migrations", "relay_sequence", "Contacts"]
    {
        let res = list(&relay, &token, collection, &[]).await;
        assert_eq!(res.status(), 404, "{collection}");
        let res = client()
            .post(relay.url(&format!("/api/collections/{collection}/records")))
            .header("Authorization", &token)
            .json(&json!({"name": "x"}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 404, "{collection}");
    }
}

#[tokio::test]
async fn every_record_route_requires_auth() {
    let relay = Relay::start();
    let token = relay.token().await;
    let created: Value = relay.create(&token, "contacts", &sample("contacts")).await;
    let id = created["id"].as_str().unwrap();
    let http = client();
    let bad_tokens = [
        None,
        Some("".to_string()),
        Some("garbage".to_string()),
        Some(format!("{token}x")),
        Some(token.replace('.', "")),
    ];
    for collection in COLLECTIONS.iter().chain(SERVER_OWNED) {
        let base = relay.url(&format!("/api/collections/{collection}/records"));
        let one = format!("{base}/{id}");
        for bad in &bad_tokens {
            let requests = [
                http.get(&base),
                http.post(&base).json(&sample(collection)),
                http.get(&one),
                http.patch(&one).json(&json!({})),
                http.delete(&one),
            ];
            for req in requests {
                let req = match bad {
                    Some(t) => req.header("Authorization", t),
                    None => req,
                };
                let res = req.send().await.unwrap();
                assert_eq!(res.status(), 401, "{collection} with {bad:?}");
                let body: Value = res.json().await.unwrap();
                assert_eq!(body["status"], 401);
            }
        }
    }
    for (method, path) in [
        ("GET", "/api/relay/health"),
        ("GET", "/api/relay/presence"),
        ("POST", "/api/relay/presence/heartbeat"),
        ("POST", "/api/realtime"),
        ("GET", "/api/relay/status"),
        ("POST", "/api/relay/status/refresh"),
        ("GET", "/api/relay/radar"),
        ("POST", "/api/relay/radar/refresh"),
    ] {
        let req = if method == "GET" { http.get(relay.url(path)) } else { http.post(relay.url(path)).json(&json!({})) };
        assert_eq!(req.send().await.unwrap().status(), 401, "{method} {path}");
    }
    let res = http
        .get(relay.url("/api/collections/contacts/records"))
        .header("Authorization", format!("Bearer {token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "Bearer form is accepted too");
    let page: Value = res.json().await.unwrap();
    assert_eq!(page["items"][0]["id"], id, "the unauthorized attempts changed nothing");
}

#[tokio::test]
async fn import_previews_then_applies_all_or_nothing() {
    let relay = Relay::start();
    let token = relay.token().await;
    let http = client();
    let url = relay.url("/api/relay/import/contacts");
    http.post(relay.url("/api/collections/contacts/records"))
        .header("Authorization", &token)
        .json(&json!({"name": "Ada", "email": "ada@example.com", "title": "old"}))
        .send()
        .await
        .unwrap();
    let bad = json!({"records": [{"name": "Bob", "email": "bob@example.com"}, {"email": "broken"}], "apply": true});
    let res = http.post(&url).header("Authorization", &token).json(&bad).send().await.unwrap();
    assert_eq!(res.status(), 400);
    let report: Value = res.json().await.unwrap();
    assert_eq!(report["applied"], false);
    let rows: Vec<(i64, &str)> = report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["row"].as_i64().unwrap(), e["code"].as_str().unwrap()))
        .collect();
    assert_eq!(rows, vec![(2, "validation_invalid_email"), (2, "validation_required")]);
    assert_eq!(list_json(&relay, &token, "contacts", &[]).await["totalItems"], 1, "nothing written");

    let good = json!({"records": [{"name": "Ada L", "email": "ADA@example.com", "id": "ignoredid000001"}, {"name": "Bob", "email": "bob@example.com"}]});
    let res = http.post(&url).header("Authorization", &token).json(&good).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let preview: Value = res.json().await.unwrap();
    assert_eq!(
        (preview["creates"].as_i64(), preview["updates"].as_i64(), preview["applied"].as_bool()),
        (Some(1), Some(1), Some(false))
    );
    assert_eq!(list_json(&relay, &token, "contacts", &[]).await["totalItems"], 1, "preview writes nothing");

    let mut apply = good.clone();
    apply["apply"] = json!(true);
    let res = http.post(&url).header("Authorization", &token).json(&apply).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap()["applied"], true);
    let page = list_json(&relay, &token, "contacts", &[("sort", "name")]).await;
    let names: Vec<&str> = page["items"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, vec!["Ada L", "Bob"]);
    assert_eq!(page["items"][0]["title"], "old");

    for collection in ["alert_reminders", "client_presence", "users"] {
        let res = http
            .post(relay.url(&format!("/api/relay/import/{collection}")))
            .header("Authorization", &token)
            .json(&good)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 400, "{collection}");
    }
    let res = http.post(&url).json(&good).send().await.unwrap();
    assert_eq!(res.status(), 401);
}

#[tokio::test]
async fn presence_is_server_owned_and_cannot_be_forged() {
    let relay = Relay::start();
    let token = relay.token().await;
    let http = client();
    let base = relay.url("/api/collections/client_presence/records");
    let seen = domain_time_in(40);
    let forged = json!({"sessionId": "forged-1", "hostname": "ghost-pc", "mode": "client", "lastSeen": seen});
    let res = http.post(&base).header("Authorization", &token).json(&forged).send().await.unwrap();
    assert_eq!(res.status(), 403, "record-API create refused");
    assert_eq!(res.json::<Value>().await.unwrap()["status"], 403);

    let res = http
        .post(relay.url("/api/relay/presence/heartbeat"))
        .header("Authorization", &token)
        .json(&json!({"sessionId": "real-1", "hostname": "noc-1"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "the heartbeat route writes presence");
    let row: Value = res.json().await.unwrap();
    let id = row["id"].as_str().unwrap();
    let one = format!("{base}/{id}");
    let res = http.patch(&one).header("Authorization", &token).json(&json!({"hostname": "ghost-pc"})).send().await;
    assert_eq!(res.unwrap().status(), 403, "record-API update refused");
    let res = http.delete(&one).header("Authorization", &token).send().await.unwrap();
    assert_eq!(res.status(), 403, "record-API delete refused");

    let page = list_json(&relay, &token, "client_presence", &[]).await;
    let items = page["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "readable, and only the real client: {page}");
    assert_eq!((&items[0]["sessionId"], items[0]["hostname"].as_str()), (&row["sessionId"], Some("noc-1")));
    assert_ne!(items[0]["sessionId"], "real-1", "keyed by the server's presence id, never the client's tab id");
}

/// A wire timestamp `secs` seconds from now (a forged "future" heartbeat).
fn domain_time_in(secs: u64) -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
    let at = now.as_millis() as i64 + secs as i64 * 1000;
    domain::time::format_ms(at)
}

#[tokio::test]
async fn an_alert_body_with_inline_images_fits_and_the_limit_holds() {
    let relay = Relay::start();
    let token = relay.token().await;
    let base = relay.url("/api/collections/alert_history/records");
    let image =
        format!("<img src=\"data:image/png;base64,{}\" alt=\"\" class=\"alert-body-image\">", "A".repeat(700_000));
    let res = client()
        .post(&base)
        .header("Authorization", &token)
        .json(&json!({"severity": "INFO", "subject": "Inline", "bodyHtml": image}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "a 700,000-character body (a JSON body over 512 KiB) is accepted");
    let stored: Value = res.json().await.unwrap();
    assert_eq!(stored["bodyHtml"].as_str().map(str::len), Some(image.len()));
    let over = json!({"severity": "INFO", "subject": "Too big", "bodyHtml": "x".repeat(750_001)});
    let res = client().post(&base).header("Authorization", &token).json(&over).send().await.unwrap();
    assert_eq!(res.status(), 400, "750,001 characters are refused");
    let body: Value = res.json().await.unwrap();
    assert!(body["data"]["bodyHtml"]["code"].as_str().unwrap().starts_with("validation_"), "{body}");
}

/// A page larger than one batch of the server (4 MiB, issue #39.5) is streamed without a
/// length, and it is the same page byte for byte as the small pages of the same records, which
/// are sent whole: same counts, same items in the same order, same text.
#[tokio::test]
async fn a_page_larger_than_a_batch_is_streamed_as_the_same_page() {
    let relay = Relay::start();
    let token = relay.token().await;
    let mut ids = Vec::new();
    for n in 0..12 {
        // Eight ~690 KB alerts (about 5.5 MB: two batches) between small ones.
        let body = if n % 3 == 2 {
            json!({"subject": format!("small {n}")})
        } else {
            support::hostile::large_alert(&format!("Large {n}"), 690_000)
        };
        ids.push(relay.create(&token, "alert_history", &body).await["id"].as_str().unwrap().to_string());
    }
    let res = list(&relay, &token, "alert_history", &[("perPage", "1000")]).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/json");
    assert!(res.headers().get("content-length").is_none(), "a page of several batches is streamed");
    let streamed = res.bytes().await.unwrap();
    let page: Value = serde_json::from_slice(&streamed).unwrap();
    let got: Vec<&str> = page["items"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(got, ids, "every record once, in the page's order");

    // The same records two at a time: each page fits in a batch and is sent whole.
    let mut items = Vec::new();
    for n in 1..=6 {
        let res = list(&relay, &token, "alert_history", &[("perPage", "2"), ("page", &n.to_string())]).await;
        assert!(res.headers().get("content-length").is_some(), "a page within one batch has its length");
        let text = res.text().await.unwrap();
        let head = format!(r#"{{"page":{n},"perPage":2,"totalItems":12,"totalPages":6,"items":["#);
        items.push(text.strip_prefix(&head).and_then(|t| t.strip_suffix("]}")).expect("the list shape").to_string());
    }
    let expected =
        format!(r#"{{"page":1,"perPage":1000,"totalItems":12,"totalPages":1,"items":[{}]}}"#, items.join(","));
    assert!(streamed == expected.as_bytes(), "the streamed page is the whole page, byte for byte");
}
