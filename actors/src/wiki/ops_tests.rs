//! Tests of the `wiki.*` command handlers through the privileged service (server-local
//! execution, the same pipeline a signed envelope reaches): category rules, document lifecycle, the client
//! read rule, realtime events only after a commit, file removal, and upload batches.

use std::sync::{Arc, Mutex};

use actix::prelude::*;
use serde_json::{json, Value};

use domain::collections::{WIKI_CATEGORIES, WIKI_DOCUMENTS};
use domain::privileged_command::PrivilegedCommand;
use domain::record::{ListQuery, RawListParams};
use infra::clock::ManualClock;
use infra::store::{create_in, RecordStore};
use infra::wiki::files::{sha256_hex, WikiFiles};

use super::*;
use crate::privileged::service::{Principal, PrivilegedService};
use crate::privileged::PrivError;

const PW: &str = "local-owner-password";

/// Collects every realtime publication.
struct Collector(Arc<Mutex<Vec<(String, String, Value)>>>);

impl Actor for Collector {
    type Context = Context<Self>;
}

impl Handler<Publish> for Collector {
    type Result = ();
    fn handle(&mut self, msg: Publish, _: &mut Context<Self>) {
        let action = serde_json::to_value(msg.action).unwrap().as_str().unwrap().to_string();
        self.0.lock().unwrap().push((msg.collection.to_string(), action, (*msg.record).clone()));
    }
}

struct Fixture {
    tmp: tempfile::TempDir,
    clock: Arc<ManualClock>,
    service: PrivilegedService,
    owner: Principal,
    events: Arc<Mutex<Vec<(String, String, Value)>>>,
    store: RecordStore,
}

impl Fixture {
    fn new() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let clock = ManualClock::new(1_800_000_000_000);
        let (pool, _) = infra::db::open(&tmp.path().join("relay.db"), 2).unwrap();
        let events = Arc::new(Mutex::new(Vec::new()));
        let collector = Collector(events.clone()).start();
        let hooks = WikiHooks::new(WikiFiles::new(tmp.path()), Some(collector.recipient()));
        let service = PrivilegedService::new(pool.clone(), clock.clone()).with_wiki(hooks);
        service.ensure_ready().unwrap();
        service.set_password("ryan", PW).unwrap();
        service.set_active("ryan", true).unwrap();
        let owner = service.authenticate("ryan", PW).unwrap();
        Fixture { tmp, clock, service, owner, events, store: RecordStore::new(pool) }
    }

    fn run_fresh(&self, name: &str, payload: Value, fresh: bool) -> Result<Value, PrivError> {
        let command = PrivilegedCommand::parse(name, &payload)?;
        self.service.execute_local(&self.owner, &command, None, fresh)
    }

    fn run(&self, name: &str, payload: Value) -> Result<Value, PrivError> {
        self.run_fresh(name, payload, false)
    }

    fn library(&self) -> Value {
        self.run("wiki.library", json!({})).unwrap()
    }

    fn category(&self, name: &str) -> Value {
        let categories = self.library()["categories"].as_array().unwrap().clone();
        categories.into_iter().find(|c| c["name"] == name).unwrap_or_else(|| panic!("no category {name}"))
    }

    /// A published document written directly (publishing itself needs the upload pipeline).
    fn document(&self, file_name: &str, category_id: &str, pdf: &[u8]) -> Value {
        let checksum = sha256_hex(pdf);
        let files = WikiFiles::new(self.tmp.path());
        let upload = infra::ids::record_id();
        files.write_chunk(&upload, 0, pdf).unwrap();
        files.assemble(&upload, &[pdf.len() as u64], 1 << 20).unwrap();
        files.promote_pdf(&upload, &checksum).unwrap();
        let body = json!({"sourceKey": format!("upload:{file_name}"), "categoryId": category_id, "documentType": "sop",
            "title": file_name.trim_end_matches(".pdf"), "fileName": file_name, "checksum": checksum,
            "byteSize": pdf.len(), "pageCount": 3, "lifecycleState": "active", "searchIndexState": "pending"});
        let mut conn = self.store.pool().get().unwrap();
        create_in(&mut conn, &WIKI_DOCUMENTS, &body, 0).unwrap()
    }

    fn client_sees(&self, id: &str) -> bool {
        let listed = self
            .store
            .list(&WIKI_DOCUMENTS, &ListQuery::parse(&WIKI_DOCUMENTS, &RawListParams::default()).unwrap())
            .unwrap();
        let in_list = listed.items.iter().any(|d| d["id"] == id);
        assert_eq!(in_list, self.store.get(&WIKI_DOCUMENTS, id).is_ok(), "list and view agree");
        in_list
    }

    fn take_events(&self) -> Vec<(String, String, Value)> {
        std::mem::take(&mut *self.events.lock().unwrap())
    }
}

/// Lets the collector actor receive what was sent.
async fn settle() {
    for _ in 0..5 {
        tokio::task::yield_now().await;
    }
}

#[actix_rt::test]
async fn categories_are_unique_revision_checked_reordered_whole_and_deleted_with_reassignment() {
    let f = Fixture::new();
    let network = f.run("wiki.category.create", json!({"name": "  Network   Core "})).unwrap();
    assert_eq!(network["name"], "Network Core");
    let duplicate = f.run("wiki.category.create", json!({"name": "network core"}));
    assert!(matches!(duplicate, Err(PrivError::Invalid(_))), "{duplicate:?}");
    assert!(matches!(f.run("wiki.category.create", json!({"name": "a\nb"})), Err(PrivError::Invalid(_))));

    let id = network["id"].as_str().unwrap();
    let stale = f.run("wiki.category.rename", json!({"categoryId": id, "name": "Net", "revision": 999_999}));
    assert_eq!(stale, Err(PrivError::StaleRevision));
    let renamed =
        f.run("wiki.category.rename", json!({"categoryId": id, "name": "Network", "revision": network["revision"]}));
    let renamed = renamed.unwrap();
    assert_eq!(renamed["normalizedName"], "network");

    let uncategorized = f.category("Uncategorized");
    let system_id = uncategorized["id"].as_str().unwrap();
    let partial = f.run("wiki.category.reorder", json!({"categoryIds": [id]}));
    assert!(matches!(partial, Err(PrivError::Invalid(_))), "every category must be listed");
    let doubled = f.run("wiki.category.reorder", json!({"categoryIds": [id, id]}));
    assert!(matches!(doubled, Err(PrivError::Invalid(_))));
    f.run("wiki.category.reorder", json!({"categoryIds": [system_id, id]})).unwrap();
    let order: Vec<Value> = f.library()["categories"].as_array().unwrap().iter().map(|c| c["name"].clone()).collect();
    assert_eq!(order, vec![json!("Uncategorized"), json!("Network")]);

    let builtin = f.run(
        "wiki.category.delete",
        json!({"categoryId": system_id, "reassignTo": id, "revision": f.category("Uncategorized")["revision"]}),
    );
    assert!(matches!(builtin, Err(PrivError::Invalid(_))), "the built-in category stays");

    let document = f.document("router.pdf", id, b"%PDF-1.7 router");
    let revision = f.category("Network")["revision"].clone();
    let to_self = f.run("wiki.category.delete", json!({"categoryId": id, "reassignTo": id, "revision": revision}));
    assert!(matches!(to_self, Err(PrivError::Invalid(_))));
    let deleted = f
        .run("wiki.category.delete", json!({"categoryId": id, "reassignTo": system_id, "revision": revision}))
        .unwrap();
    assert_eq!(deleted["documentsMoved"], 1);
    let moved = f.store.get(&WIKI_DOCUMENTS, document["id"].as_str().unwrap()).unwrap();
    assert_eq!(moved["categoryId"], system_id);
    assert!(f.store.get(&WIKI_CATEGORIES, id).is_err());
}

#[actix_rt::test]
async fn trashed_documents_leave_clients_and_come_back_on_restore() {
    let f = Fixture::new();
    let system_id = f.category("Uncategorized")["id"].as_str().unwrap().to_string();
    let document = f.document("bgp.pdf", &system_id, b"%PDF-1.7 bgp");
    let id = document["id"].as_str().unwrap();
    assert!(f.client_sees(id));
    f.take_events();

    let trashed = f.run("wiki.trash", json!({"documentId": id, "revision": document["revision"]})).unwrap();
    assert_eq!(trashed["trashedByName"], f.owner.account.display_name);
    assert!(!f.client_sees(id), "a trashed document is neither listed nor viewable");
    assert_eq!(f.library()["documents"][0]["lifecycleState"], "trashed", "the publisher still sees it");
    settle().await;
    let events = f.take_events();
    assert_eq!(events.len(), 1);
    assert_eq!((events[0].0.as_str(), events[0].1.as_str()), ("wiki_documents", "update"));

    let again = f.run("wiki.trash", json!({"documentId": id, "revision": trashed["revision"]}));
    assert!(matches!(again, Err(PrivError::Invalid(_))));
    let restored = f.run("wiki.restore", json!({"documentId": id, "revision": trashed["revision"]})).unwrap();
    assert_eq!(restored["lifecycleState"], "active");
    assert!(f.client_sees(id));

    let retitled = f.run(
        "wiki.retitle",
        json!({"documentId": id, "title": " BGP  runbook ", "categoryId": system_id, "documentType": "cheatsheet",
            "revision": restored["revision"]}),
    );
    let retitled = retitled.unwrap();
    assert_eq!(
        (retitled["title"].as_str(), retitled["documentType"].as_str()),
        (Some("BGP runbook"), Some("cheatsheet"))
    );
    let bad_type = f.run(
        "wiki.retitle",
        json!({"documentId": id, "title": "x", "categoryId": system_id, "documentType": "novel", "revision": retitled["revision"]}),
    );
    assert!(matches!(bad_type, Err(PrivError::Invalid(_))));
}

#[actix_rt::test]
async fn restoring_over_an_active_document_with_the_same_file_name_is_refused_and_publishes_nothing() {
    let f = Fixture::new();
    let system_id = f.category("Uncategorized")["id"].as_str().unwrap().to_string();
    let first = f.document("ospf.pdf", &system_id, b"%PDF-1.7 one");
    let trashed = f.run("wiki.trash", json!({"documentId": first["id"], "revision": first["revision"]})).unwrap();
    f.document("OSPF.pdf", &system_id, b"%PDF-1.7 two");
    settle().await;
    f.take_events();
    let conflict = f.run("wiki.restore", json!({"documentId": first["id"], "revision": trashed["revision"]}));
    assert!(matches!(conflict, Err(PrivError::Invalid(_))), "{conflict:?}");
    settle().await;
    assert!(f.take_events().is_empty(), "a rolled-back command publishes nothing");
}

#[actix_rt::test]
async fn deleting_needs_the_trash_and_a_fresh_password_and_removes_unshared_files_after_commit() {
    let f = Fixture::new();
    let system_id = f.category("Uncategorized")["id"].as_str().unwrap().to_string();
    let pdf = b"%PDF-1.7 shared bytes";
    let one = f.document("a.pdf", &system_id, pdf);
    let two = f.document("b.pdf", &system_id, pdf);
    let path = WikiFiles::new(f.tmp.path()).pdf_path(&sha256_hex(pdf)).unwrap();

    let active = f.run_fresh("wiki.delete", json!({"documentId": one["id"], "revision": one["revision"]}), true);
    assert!(matches!(active, Err(PrivError::Invalid(_))), "trash first");
    let one = f.run("wiki.trash", json!({"documentId": one["id"], "revision": one["revision"]})).unwrap();
    let stale_password = f.run("wiki.delete", json!({"documentId": one["id"], "revision": one["revision"]}));
    assert_eq!(stale_password, Err(PrivError::ReauthRequired));
    f.run_fresh("wiki.delete", json!({"documentId": one["id"], "revision": one["revision"]}), true).unwrap();
    assert!(path.exists(), "the other document still uses these bytes");

    let two = f.run("wiki.trash", json!({"documentId": two["id"], "revision": two["revision"]})).unwrap();
    f.run_fresh("wiki.delete", json!({"documentId": two["id"], "revision": two["revision"]}), true).unwrap();
    assert!(!path.exists(), "the last reference is gone, so is the file");
    assert!(f.library()["documents"].as_array().unwrap().is_empty());
}

fn announced(name: &str, size: u64) -> Value {
    json!({"fileName": name, "byteSize": size, "checksum": "ab".repeat(32)})
}

#[actix_rt::test]
async fn one_active_upload_batch_per_account_with_plans_expiry_and_cancel() {
    let f = Fixture::new();
    let bad_name = f.run("wiki.upload.begin", json!({"files": [announced("../x.pdf", 10)]}));
    assert!(matches!(bad_name, Err(PrivError::Invalid(_))));
    let duplicate = f.run("wiki.upload.begin", json!({"files": [announced("a.pdf", 10), announced("A.PDF", 10)]}));
    assert!(matches!(duplicate, Err(PrivError::Invalid(_))));
    let too_big = f.run("wiki.upload.begin", json!({"files": [announced("a.pdf", 50 * 1024 * 1024 + 1)]}));
    assert!(matches!(too_big, Err(PrivError::Invalid(_))));
    let bad_sum =
        f.run("wiki.upload.begin", json!({"files": [{"fileName": "a.pdf", "byteSize": 10, "checksum": "AB"}]}));
    assert!(matches!(bad_sum, Err(PrivError::Invalid(_))));

    let batch = f
        .run("wiki.upload.begin", json!({"files": [announced("a.pdf", 9 * 1024 * 1024), announced("b.pdf", 100)]}))
        .unwrap();
    let uploads = batch["uploads"].as_array().unwrap();
    assert_eq!(uploads.len(), 2);
    assert_eq!((uploads[0]["chunkCount"].as_i64(), uploads[1]["chunkCount"].as_i64()), (Some(3), Some(1)));
    assert_eq!(uploads[0]["state"], "queued");
    assert_eq!(f.run("wiki.upload.status", json!({})).unwrap()["batchId"], batch["batchId"]);
    let second = f.run("wiki.upload.begin", json!({"files": [announced("c.pdf", 100)]}));
    assert!(matches!(second, Err(PrivError::Invalid(_))), "one active batch per account");

    f.clock.advance_ms(domain::wiki::limits::UPLOAD_RETENTION_MS + 1);
    assert!(f.run("wiki.upload.status", json!({})).unwrap()["batchId"].is_null(), "expired");
    let next = f.run("wiki.upload.begin", json!({"files": [announced("c.pdf", 100)]})).unwrap();
    let upload_id = next["uploads"][0]["uploadId"].as_str().unwrap().to_string();
    let files = WikiFiles::new(f.tmp.path());
    files.write_chunk(&upload_id, 0, b"%PDF-partial").unwrap();

    let not_mine = f.run("wiki.upload.cancel", json!({"batchId": batch["batchId"]}));
    assert!(matches!(not_mine, Err(PrivError::Invalid(_))), "an ended batch cannot be cancelled");
    let cancelled = f.run("wiki.upload.cancel", json!({"batchId": next["batchId"]})).unwrap();
    assert_eq!(cancelled["cancelled"], 1);
    assert!(!files.upload_dir(&upload_id).unwrap().exists(), "staging removed after the commit");
    assert!(f.run("wiki.upload.status", json!({})).unwrap()["batchId"].is_null());
}

#[actix_rt::test]
async fn a_server_without_a_data_directory_refuses_wiki_commands() {
    let tmp = tempfile::tempdir().unwrap();
    let (pool, _) = infra::db::open(&tmp.path().join("relay.db"), 2).unwrap();
    let service = PrivilegedService::new(pool, ManualClock::new(0));
    service.ensure_ready().unwrap();
    service.set_password("ryan", PW).unwrap();
    service.set_active("ryan", true).unwrap();
    let owner = service.authenticate("ryan", PW).unwrap();
    let command = PrivilegedCommand::parse("wiki.library", &json!({})).unwrap();
    assert!(matches!(service.execute_local(&owner, &command, None, false), Err(PrivError::Invalid(_))));
}

#[actix_rt::test]
async fn a_laptop_deleting_a_document_needs_a_password_proof() {
    let f = Fixture::new();
    let system_id = f.category("Uncategorized")["id"].as_str().unwrap().to_string();
    let document = f.document("isis.pdf", &system_id, b"%PDF-1.7 isis");
    let trashed = f.run("wiki.trash", json!({"documentId": document["id"], "revision": document["revision"]})).unwrap();
    let laptop = Principal {
        account: f.owner.account.clone(),
        role: f.owner.role,
        state: f.owner.state.clone(),
        device_id: Some("dev000000000001".into()),
    };
    let payload = json!({"documentId": trashed["id"], "revision": trashed["revision"], "reauthProof": "made-up"});
    let command = PrivilegedCommand::parse("wiki.delete", &payload).unwrap();
    let request = crate::privileged::commands::CommandRequest {
        command: &command,
        expected_revision: None,
        fresh_local_password: false,
    };
    let mut conn = f.store.pool().get().unwrap();
    let refused = crate::privileged::commands::run(&f.service, &mut conn, &laptop, &request);
    assert_eq!(refused, Err(PrivError::ReauthRequired), "an unknown proof deletes nothing");
    assert!(f.library()["documents"].as_array().unwrap().iter().any(|d| d["id"] == trashed["id"]));
}
