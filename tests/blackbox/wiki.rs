//! The Wiki library against the real `relay serve` binary: an ordinary app token reads the
//! categories (the built-in one from the first start) but no record API route writes a Wiki
//! collection; `relay wiki` over the control socket runs the typed `wiki.*` commands as the
//! Owner (a wrong password and a Publisher-less actor are refused), the change reaches the
//! record API, and the audit chain records each command.

use serde_json::{json, Value};
use support::wiki::{activate_administrator, administrator_laptop, post_chunk, sha256};
use support::{admin_cli, client, relay_cli, sample, signed_command, signed_envelope, Relay};

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

fn owner(relay: &Relay) {
    for step in ["set-password", "activate"] {
        let stdin = if step == "set-password" { format!("{OWNER_PW}\n") } else { String::new() };
        let (ok, out) = admin_cli(&relay.data_dir, &[step, "--username", "ryan"], &stdin);
        assert!(ok, "{out}");
    }
}

/// The upload id the CLI printed for `file_name`.
fn upload_id(out: &str, file_name: &str) -> String {
    let line = out.lines().find(|l| l.contains(file_name)).unwrap_or_else(|| panic!("{file_name} in {out}"));
    line.split_whitespace().next().unwrap().to_string()
}

async fn search(relay: &Relay, token: &str, q: &str) -> Vec<Value> {
    relay.get_json(token, &format!("/api/relay/wiki/search?q={q}")).await["items"].as_array().unwrap().clone()
}

#[tokio::test]
async fn a_pdf_uploaded_from_the_server_pc_is_published_read_searched_and_trashed() {
    let relay = Relay::start();
    let token = relay.token().await;
    owner(&relay);
    let tmp = tempfile::tempdir().unwrap();
    let good = infra::wiki::test_pdfs::multi_page_with_outline();
    let (good_path, locked_path) = (tmp.path().join("noc-runbook.pdf"), tmp.path().join("locked.pdf"));
    std::fs::write(&good_path, &good).unwrap();
    std::fs::write(&locked_path, infra::wiki::test_pdfs::encrypted()).unwrap();

    let (paths, data_dir) = (vec![good_path, locked_path], relay.data_dir.clone());
    let upload = tokio::task::spawn_blocking(move || {
        let mut args = vec!["upload", "--as", "ryan"];
        let names: Vec<String> = paths.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        args.extend(names.iter().map(String::as_str));
        relay_cli("wiki", &data_dir, &args, &format!("{OWNER_PW}\n"))
    });
    let (ok, out) = upload.await.unwrap();
    assert!(ok, "{out}");
    assert!(out.lines().any(|l| l.contains("noc-runbook.pdf") && l.ends_with("ready")), "{out}");
    assert!(out.lines().any(|l| l.contains("locked.pdf") && l.contains("failed: encrypted-pdf")), "{out}");

    let id = upload_id(&out, "noc-runbook.pdf");
    let (ok, out) = wiki_cli(&relay, &["publish", "--as", "ryan", &id, "--title", "NOC runbook"], OWNER_PW);
    assert!(ok, "{out}");
    let listed = relay.get_json(&token, "/api/collections/wiki_documents/records").await;
    let document = listed["items"][0].clone();
    assert_eq!((document["title"].as_str(), document["pageCount"].as_i64()), (Some("NOC runbook"), Some(3)));
    assert_eq!(document["outline"].as_array().map(Vec::len), Some(3), "{document}");
    let doc_id = document["id"].as_str().unwrap().to_string();

    let http = client();
    let pdf_url = relay.url(&format!("/api/relay/wiki/documents/{doc_id}/pdf"));
    assert_eq!(http.get(&pdf_url).send().await.unwrap().status(), 401, "readers sign in");
    let res = http.get(&pdf_url).header("Authorization", &token).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let checksum = res.headers()["x-relay-checksum"].to_str().unwrap().to_string();
    assert_eq!(checksum, document["checksum"].as_str().unwrap());
    assert!(res.headers()["repr-digest"].to_str().unwrap().starts_with("sha-256=:"));
    assert_eq!(res.bytes().await.unwrap().to_vec(), good, "the published bytes, unchanged");
    let desktop =
        http.get(&pdf_url).header("Authorization", &token).header("Origin", "tauri://localhost").send().await.unwrap();
    let exposed = desktop.headers().get("access-control-expose-headers").map(|v| v.to_str().unwrap().to_lowercase());
    assert!(exposed.is_some_and(|v| v.contains("x-relay-checksum")), "the desktop window reads the checksum");
    let ranged = http.get(&pdf_url).header("Authorization", &token).header("Range", "bytes=0-4").send().await.unwrap();
    assert_eq!(ranged.status(), 206);
    assert_eq!(ranged.bytes().await.unwrap().as_ref(), b"%PDF-");

    // Indexing follows the publish on the wiki actor; bounded wait for its state.
    let mut hits = Vec::new();
    for _ in 0..100 {
        hits = search(&relay, &token, "collector").await;
        if !hits.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!((hits[0]["documentId"].as_str(), hits[0]["pageNumber"].as_i64()), (Some(doc_id.as_str()), Some(3)));
    assert_eq!(hits[0]["heading"], "Procedures");
    let bad = http.get(relay.url("/api/relay/wiki/search?q=the")).header("Authorization", &token).send().await.unwrap();
    assert_eq!(bad.status(), 400, "function words only");

    let (ok, out) = wiki_cli(&relay, &["trash", "--as", "ryan", &doc_id], OWNER_PW);
    assert!(ok, "{out}");
    assert!(search(&relay, &token, "collector").await.is_empty(), "a trashed document is not searched");
    assert_eq!(http.get(&pdf_url).header("Authorization", &token).send().await.unwrap().status(), 404);
    let listed = relay.get_json(&token, "/api/collections/wiki_documents/records").await;
    assert_eq!(listed["totalItems"], 0);
}

#[tokio::test]
async fn an_administrators_laptop_runs_wiki_commands_with_signed_envelopes() {
    let relay = Relay::start();
    let token = relay.token().await;
    owner(&relay);
    activate_administrator(&relay);
    let laptop = administrator_laptop(&relay, &token, 11).await;

    let (status, body) =
        signed_command(&relay, &token, &laptop, "wiki.category.create", json!({"name": "Voice"}), None).await;
    assert_eq!(status, 200, "{body}");
    assert!(categories(&relay, &token).await.iter().any(|c| c["name"] == "Voice"));
    let (status, body) = signed_command(&relay, &token, &laptop, "wiki.upload.status", json!({}), None).await;
    assert_eq!((status, body["result"]["batchId"].clone()), (200, Value::Null), "{body}");
    let (status, body) =
        signed_command(&relay, &token, &laptop, "wiki.category.create", json!({"name": "Voice", "x": 1}), None).await;
    assert_eq!(status, 400, "strict payloads: {body}");
}

/// A valid PDF of about 5 MiB (two chunks): the outline fixture's pages plus an unused stream.
fn two_chunk_pdf() -> Vec<u8> {
    use infra::wiki::test_pdfs::{document, text_content};
    let contents = [text_content(&["Laptop upload: the voice gateway failover".into()])];
    let (mut pdf, _) = document(&contents, "");
    pdf.add_stream(&vec![b'0'; 5 * 1024 * 1024]);
    pdf.finish(1)
}

fn code(body: &Value) -> &str {
    body["data"]["code"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn a_laptop_uploads_in_signed_chunks_that_are_bound_to_it_and_resumes_after_a_restart() {
    let mut relay = Relay::start();
    let token = relay.token().await;
    owner(&relay);
    activate_administrator(&relay);
    let laptop = administrator_laptop(&relay, &token, 12).await;
    let other = administrator_laptop(&relay, &token, 13).await;

    let pdf = two_chunk_pdf();
    let files = json!([{"fileName": "voice.pdf", "byteSize": pdf.len(), "checksum": sha256(&pdf)}]);
    let (status, body) =
        signed_command(&relay, &token, &laptop, "wiki.upload.begin", json!({"files": files}), None).await;
    assert_eq!(status, 200, "{body}");
    let batch = body["result"]["batchId"].as_str().unwrap().to_string();
    let upload = body["result"]["uploads"][0]["uploadId"].as_str().unwrap().to_string();
    assert_eq!(body["result"]["uploads"][0]["chunkCount"], 2);
    let split = 4 * 1024 * 1024;
    let (first, second) = pdf.split_at(split);
    let honest = |index: usize, part: &[u8]| json!({"uploadId": upload, "batchId": batch, "index": index, "byteSize": part.len(), "checksum": sha256(part)});

    let refusals = [
        ("another laptop of the same account", &other, honest(0, first), "chunk_device_mismatch"),
        // A fractional index cannot even be signed: the envelope's canonical JSON has no
        // fractions (and `check_chunk` refuses one too, see `domain::wiki::upload`).
        ("an index past the plan", &laptop, honest(2, first), "chunk_index_out_of_range"),
        (
            "a declared length that is not the plan's",
            &laptop,
            {
                let mut c = honest(0, first);
                c["byteSize"] = json!(10);
                c
            },
            "chunk_byte_size_mismatch",
        ),
        (
            "a checksum of other bytes",
            &laptop,
            {
                let mut c = honest(0, first);
                c["checksum"] = json!(sha256(b"x"));
                c
            },
            "checksum_mismatch",
        ),
    ];
    for (what, device, claim, expected) in refusals {
        let (status, body) = post_chunk(&relay, &token, device, claim, first).await;
        assert_eq!((status, code(&body)), (400, expected), "{what}: {body}");
    }
    let (status, body) = signed_command(&relay, &token, &laptop, "wiki.upload.status", json!({}), None).await;
    assert_eq!(
        (status, body["result"]["uploads"][0]["storedChunks"].as_i64()),
        (200, Some(0)),
        "nothing stored: {body}"
    );

    // Another command cannot ride on the chunk route.
    let trash = signed_envelope(&laptop, "wiki.upload.cancel", json!({"batchId": batch}), None);
    let header = {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(serde_json::to_vec(&trash).unwrap())
    };
    let res = client()
        .post(relay.url("/api/relay/wiki/chunks"))
        .header("Authorization", &token)
        .header("X-Relay-Envelope", header)
        .body(first.to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    let (status, body) = post_chunk(&relay, &token, &laptop, honest(0, first), first).await;
    assert_eq!(
        (status, body["storedChunks"].as_i64(), body["state"].as_str()),
        (200, Some(1), Some("uploading")),
        "{body}"
    );

    // The server restarts between the chunks; the upload resumes where it was.
    relay.stop();
    let relay = Relay::start_in(&relay.data_dir.clone(), &[]);
    let token = relay.token().await;
    let (status, body) = post_chunk(&relay, &token, &laptop, honest(1, second), second).await;
    assert_eq!((status, body["state"].as_str()), (200, Some("ready")), "{body}");
    let payload = json!({"uploadId": upload, "title": "Voice gateway", "categoryId": "wikiuncategoriz", "documentType": "cheatsheet"});
    let (status, body) = signed_command(&relay, &token, &laptop, "wiki.publish", payload, None).await;
    assert_eq!(status, 200, "{body}");
    let document_id = body["result"]["id"].as_str().unwrap().to_string();
    let res = client()
        .get(relay.url(&format!("/api/relay/wiki/documents/{document_id}/pdf")))
        .header("Authorization", &token)
        .send()
        .await
        .unwrap();
    assert_eq!(res.bytes().await.unwrap().len(), pdf.len());
}

/// Runs `relay wiki upload --as ryan` on `paths` and returns (success, output).
async fn upload_files(relay: &Relay, paths: Vec<std::path::PathBuf>) -> (bool, String) {
    let data_dir = relay.data_dir.clone();
    tokio::task::spawn_blocking(move || {
        let names: Vec<String> = paths.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        let mut args = vec!["upload", "--as", "ryan"];
        args.extend(names.iter().map(String::as_str));
        relay_cli("wiki", &data_dir, &args, &format!("{OWNER_PW}\n"))
    })
    .await
    .unwrap()
}

/// #39.12: file names with Unicode format characters or a Windows device name are refused at
/// upload, and a name stored before that rule is neutralized in the download's
/// `Content-Disposition`.
#[tokio::test]
async fn misleading_file_names_are_refused_and_stored_ones_are_neutralized_for_download() {
    use diesel::connection::SimpleConnection;
    let relay = Relay::start();
    let token = relay.token().await;
    owner(&relay);
    let tmp = tempfile::tempdir().unwrap();
    let pdf = infra::wiki::test_pdfs::multi_page_with_outline();
    for (name, refusal) in
        [("CON.pdf", "reserved device name"), ("invoice\u{202E}fdp.exe.pdf", "invisible formatting characters")]
    {
        let path = tmp.path().join(name);
        std::fs::write(&path, &pdf).unwrap();
        let (ok, out) = upload_files(&relay, vec![path]).await;
        assert!(!ok && out.contains(refusal), "{name:?} must be refused: {out}");
    }

    let good = tmp.path().join("noc-runbook.pdf");
    std::fs::write(&good, &pdf).unwrap();
    let (ok, out) = upload_files(&relay, vec![good]).await;
    assert!(ok, "{out}");
    let id = upload_id(&out, "noc-runbook.pdf");
    let (ok, out) = wiki_cli(&relay, &["publish", "--as", "ryan", &id, "--title", "NOC runbook"], OWNER_PW);
    assert!(ok, "{out}");
    let listed = relay.get_json(&token, "/api/collections/wiki_documents/records").await;
    let doc_id = listed["items"][0]["id"].as_str().unwrap().to_string();
    let download = relay.url(&format!("/api/relay/wiki/documents/{doc_id}/pdf?download=1"));
    let disposition = || async {
        let res = client().get(&download).header("Authorization", &token).send().await.unwrap();
        assert_eq!(res.status(), 200);
        let value = res.headers()["content-disposition"].as_bytes().to_vec();
        String::from_utf8(value).unwrap()
    };
    assert_eq!(disposition().await, "attachment; filename=\"noc-runbook.pdf\"");

    // Names stored before the rule (written straight into the store, as an older build could).
    let (pool, _) = infra::db::open(&support::db_path(&relay.data_dir), 1).unwrap();
    for (stored, shown) in [
        ("CON.pdf", "_CON.pdf"),
        ("lpt1.tar.pdf", "_lpt1.tar.pdf"),
        ("report\u{202E}fdp.exe.pdf", "reportfdp.exe.pdf"),
        ("\u{2066}a\u{200F}b\u{2069}.pdf", "ab.pdf"),
    ] {
        let sql = format!("UPDATE wiki_documents SET fileName = '{stored}' WHERE id = '{doc_id}'");
        pool.get().unwrap().batch_execute(&sql).unwrap();
        assert_eq!(disposition().await, format!("attachment; filename=\"{shown}\""), "stored as {stored:?}");
    }
}
