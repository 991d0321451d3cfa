//! Tests of the Wiki upload pipeline and search on a real migrated store and real files, with a
//! scripted extractor (the worker process is tested in `infra::wiki`): chunks refused before
//! storage, out-of-order and resumed uploads, whole-file checksum and signature failures,
//! extraction failures, a source changed mid-upload, expiry sweeps, and publish -> index ->
//! search through the privileged commands.

use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use domain::privileged_command::PrivilegedCommand;
use domain::wiki::limits::UPLOAD_CHUNK_BYTES;
use domain::wiki::OutlineEntry;
use infra::clock::ManualClock;
use infra::wiki::files::{sha256_hex, WikiFiles};

use super::pipeline::{Extracted, IncomingChunk, PdfExtractor, Pipeline, Sender};
use super::*;
use crate::privileged::{PrivilegedService, WikiHooks};

const PW: &str = "local-owner-password";

/// Answers what the test scripted, and remembers what it was asked.
#[derive(Default)]
struct ScriptedExtractor {
    failure: Mutex<Option<&'static str>>,
    calls: Mutex<usize>,
}

impl PdfExtractor for ScriptedExtractor {
    fn extract(&self, pdf: &Path) -> Result<Extracted, &'static str> {
        *self.calls.lock().unwrap() += 1;
        if let Some(code) = *self.failure.lock().unwrap() {
            return Err(code);
        }
        let bytes = std::fs::read(pdf).map_err(|_| "validation-failed")?;
        let text = String::from_utf8_lossy(&bytes[5..bytes.len().min(400)]).into_owned();
        Ok(Extracted {
            page_count: 2,
            pages: vec![text, "Escalate to the duty manager after thirty minutes.".into()],
            outline: vec![OutlineEntry { title: "Escalation".into(), page_index: 1, depth: 0 }],
            cover_png: Some(b"\x89PNG\r\n\x1a\ncover".to_vec()),
        })
    }
}

struct Fixture {
    tmp: tempfile::TempDir,
    clock: Arc<ManualClock>,
    service: PrivilegedService,
    owner: crate::privileged::service::Principal,
    pipeline: Pipeline,
    extractor: Arc<ScriptedExtractor>,
}

impl Fixture {
    fn new() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let clock = ManualClock::new(1_800_000_000_000);
        let (pool, _) = infra::db::open(&tmp.path().join("relay.db"), 3).unwrap();
        let files = WikiFiles::new(tmp.path());
        let service =
            PrivilegedService::new(pool.clone(), clock.clone()).with_wiki(WikiHooks::new(files.clone(), None));
        service.ensure_ready().unwrap();
        service.set_password("ryan", PW).unwrap();
        service.set_active("ryan", true).unwrap();
        let owner = service.authenticate("ryan", PW).unwrap();
        let extractor = Arc::new(ScriptedExtractor::default());
        let pipeline = Pipeline { pool, files, extractor: extractor.clone(), clock: clock.clone() };
        Fixture { tmp, clock, service, owner, pipeline, extractor }
    }

    fn run(&self, name: &str, payload: Value) -> Value {
        let command = PrivilegedCommand::parse(name, &payload).unwrap();
        self.service.execute_local(&self.owner, &command, None, false).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    /// Opens a batch for `pdf` (announcing `checksum`); returns (batch id, upload id).
    fn begin(&self, name: &str, pdf: &[u8], checksum: &str) -> (String, String) {
        let batch = self.run(
            "wiki.upload.begin",
            json!({"files": [{"fileName": name, "byteSize": pdf.len(), "checksum": checksum}]}),
        );
        (batch["batchId"].as_str().unwrap().into(), batch["uploads"][0]["uploadId"].as_str().unwrap().into())
    }

    fn sender(&self) -> Sender {
        Sender { account_id: self.owner.account.id.clone(), device_id: String::new() }
    }

    fn chunk(&self, batch: &str, upload: &str, pdf: &[u8], index: usize) -> IncomingChunk {
        let start = index * UPLOAD_CHUNK_BYTES as usize;
        let bytes = pdf[start..pdf.len().min(start + UPLOAD_CHUNK_BYTES as usize)].to_vec();
        IncomingChunk {
            upload_id: upload.into(),
            batch_id: batch.into(),
            index: index as f64,
            byte_size: bytes.len() as u64,
            checksum: sha256_hex(&bytes),
            bytes,
        }
    }

    fn staged(&self, upload: &str) -> bool {
        self.pipeline.files.upload_dir(upload).unwrap().exists()
    }
}

/// A PDF-looking file of `len` bytes with searchable words near the start.
fn pdf_of(len: usize) -> Vec<u8> {
    let mut bytes = b"%PDF-1.7 Core router failover: drain the standby link, then swap the line cards. ".to_vec();
    bytes.resize(len, b'x');
    bytes
}

#[test]
fn every_chunk_check_refuses_before_anything_is_stored() {
    let f = Fixture::new();
    let pdf = pdf_of(UPLOAD_CHUNK_BYTES as usize + 100);
    let (batch, upload) = f.begin("router.pdf", &pdf, &sha256_hex(&pdf));
    let good = f.chunk(&batch, &upload, &pdf, 1);
    let cases: Vec<(&str, Sender, IncomingChunk)> = vec![
        ("fractional index", f.sender(), IncomingChunk { index: 0.5, ..good.clone() }),
        ("negative index", f.sender(), IncomingChunk { index: -1.0, ..good.clone() }),
        ("index out of range", f.sender(), IncomingChunk { index: 2.0, ..good.clone() }),
        ("declared length", f.sender(), IncomingChunk { byte_size: 99, ..good.clone() }),
        ("actual length", f.sender(), IncomingChunk { bytes: good.bytes[..99].to_vec(), ..good.clone() }),
        ("other batch", f.sender(), IncomingChunk { batch_id: "otherbatch00000".into(), ..good.clone() }),
        ("other account", Sender { account_id: "someoneelse0000".into(), device_id: String::new() }, good.clone()),
        (
            "other device",
            Sender { account_id: f.owner.account.id.clone(), device_id: "dev000000000009".into() },
            good.clone(),
        ),
        ("bad checksum text", f.sender(), IncomingChunk { checksum: "ABC".into(), ..good.clone() }),
        ("checksum mismatch", f.sender(), IncomingChunk { checksum: sha256_hex(b"other"), ..good.clone() }),
    ];
    for (what, sender, chunk) in cases {
        let refused = f.pipeline.store_chunk(&sender, &chunk);
        assert!(refused.is_err(), "{what}");
        if let Err(WikiError::Chunk(_)) = &refused {
            assert_eq!(refused.unwrap_err().to_string(), "Invalid upload chunk.", "{what}: one fixed text");
        }
        assert!(!f.staged(&upload), "{what}: nothing stored");
    }
    let unknown = IncomingChunk { upload_id: "nosuchupload000".into(), ..good };
    assert_eq!(f.pipeline.store_chunk(&f.sender(), &unknown), Err(WikiError::NotFound));
}

#[test]
fn chunks_in_any_order_and_across_a_restart_finish_ready_with_extraction_results() {
    let f = Fixture::new();
    let pdf = pdf_of(2 * UPLOAD_CHUNK_BYTES as usize + 10);
    let (batch, upload) = f.begin("router.pdf", &pdf, &sha256_hex(&pdf));
    let first = f.pipeline.store_chunk(&f.sender(), &f.chunk(&batch, &upload, &pdf, 2)).unwrap();
    assert_eq!((first.state.as_str(), first.stored_chunks, first.chunk_count), ("uploading", 1, 3));
    let again = f.pipeline.store_chunk(&f.sender(), &f.chunk(&batch, &upload, &pdf, 2)).unwrap();
    assert_eq!(again.stored_chunks, 1, "a resent chunk is stored once");

    // A restarted server: a new pipeline over the same store and files.
    let restarted = Pipeline { ..f.pipeline.clone() };
    restarted.store_chunk(&f.sender(), &f.chunk(&batch, &upload, &pdf, 0)).unwrap();
    let done = restarted.store_chunk(&f.sender(), &f.chunk(&batch, &upload, &pdf, 1)).unwrap();
    assert_eq!((done.state.as_str(), done.stored_chunks), ("ready", 3));
    let status = f.run("wiki.upload.status", json!({}));
    assert_eq!(status["uploads"][0]["state"], "ready");
    let late = f.pipeline.store_chunk(&f.sender(), &f.chunk(&batch, &upload, &pdf, 0));
    assert_eq!(late.unwrap_err().to_string(), "Invalid upload chunk.", "a ready upload takes no chunks");
}

#[test]
fn a_whole_file_checksum_or_signature_mismatch_or_extraction_failure_fails_only_that_upload() {
    let f = Fixture::new();
    let pdf = pdf_of(1000);
    let (batch, upload) = f.begin("a.pdf", &pdf, &sha256_hex(b"announced something else"));
    let failed = f.pipeline.store_chunk(&f.sender(), &f.chunk(&batch, &upload, &pdf, 0)).unwrap();
    assert_eq!((failed.state.as_str(), failed.error.as_deref()), ("failed", Some("checksum-mismatch")));
    assert!(!f.staged(&upload), "a failed upload's staging goes");
    assert_eq!(*f.extractor.calls.lock().unwrap(), 0, "never extracted");
    f.run("wiki.upload.cancel", json!({"batchId": batch}));

    let mut not_pdf = pdf_of(1000);
    not_pdf[..5].copy_from_slice(b"%PNG-");
    let (batch, upload) = f.begin("b.pdf", &not_pdf, &sha256_hex(&not_pdf));
    let failed = f.pipeline.store_chunk(&f.sender(), &f.chunk(&batch, &upload, &not_pdf, 0)).unwrap();
    assert_eq!(failed.error.as_deref(), Some("invalid-file"));
    f.run("wiki.upload.cancel", json!({"batchId": batch}));

    *f.extractor.failure.lock().unwrap() = Some("encrypted-pdf");
    let (batch, upload) = f.begin("c.pdf", &pdf, &sha256_hex(&pdf));
    let failed = f.pipeline.store_chunk(&f.sender(), &f.chunk(&batch, &upload, &pdf, 0)).unwrap();
    assert_eq!(failed.error.as_deref(), Some("encrypted-pdf"));
}

#[test]
fn a_source_file_changed_during_the_upload_is_refused() {
    let f = Fixture::new();
    let pdf = pdf_of(UPLOAD_CHUNK_BYTES as usize + 10);
    let elsewhere = tempfile::tempdir().unwrap();
    let path = elsewhere.path().join("source.pdf");
    std::fs::write(&path, &pdf).unwrap();
    let (_, upload) = f.begin("source.pdf", &pdf, &sha256_hex(&pdf));
    let relative = f.pipeline.feed_file(&f.sender(), &upload, Path::new("source.pdf"));
    assert_eq!(relative, Err(WikiError::SourceUnreadable));
    let inside = f.tmp.path().join("wiki-staging-copy.pdf");
    std::fs::write(&inside, &pdf).unwrap();
    let in_data_dir = f.pipeline.feed_file(&f.sender(), &upload, &inside);
    assert_eq!(in_data_dir, Err(WikiError::SourceUnreadable), "nothing from the data directory is uploaded");
    let mut grown = pdf.clone();
    grown.push(b'!');
    std::fs::write(&path, &grown).unwrap();
    assert_eq!(f.pipeline.feed_file(&f.sender(), &upload, &path), Err(WikiError::SourceChanged), "size differs");
    std::fs::write(&path, &pdf).unwrap();
    let done = f.pipeline.feed_file(&f.sender(), &upload, &path).unwrap();
    assert_eq!(done.state, "ready");
}

#[test]
fn sweeps_expire_old_batches_and_remove_orphaned_staging() {
    let f = Fixture::new();
    let pdf = pdf_of(UPLOAD_CHUNK_BYTES as usize + 10);
    let (batch, upload) = f.begin("a.pdf", &pdf, &sha256_hex(&pdf));
    f.pipeline.store_chunk(&f.sender(), &f.chunk(&batch, &upload, &pdf, 0)).unwrap();
    f.pipeline.files.write_chunk("orphanupload000", 0, b"left over").unwrap();
    assert_eq!(f.pipeline.sweep().unwrap(), 1, "only the orphan goes");
    assert!(f.staged(&upload));
    f.clock.advance_ms(domain::wiki::limits::UPLOAD_RETENTION_MS + 1);
    assert_eq!(f.pipeline.sweep().unwrap(), 1);
    assert!(!f.staged(&upload), "an expired upload's staging goes");
    let late = f.pipeline.store_chunk(&f.sender(), &f.chunk(&batch, &upload, &pdf, 1));
    assert_eq!(late.unwrap_err().to_string(), "Invalid upload chunk.");
}

#[test]
fn a_published_upload_is_indexed_and_found_and_its_staging_removed() {
    let f = Fixture::new();
    let pdf = pdf_of(3000);
    let (batch, upload) = f.begin("core-router.pdf", &pdf, &sha256_hex(&pdf));
    f.pipeline.store_chunk(&f.sender(), &f.chunk(&batch, &upload, &pdf, 0)).unwrap();
    let document = f.run(
        "wiki.publish",
        json!({"uploadId": upload, "title": "Core router", "categoryId": "wikiuncategoriz", "documentType": "sop"}),
    );
    assert_eq!((document["pageCount"].as_i64(), document["searchIndexState"].as_str()), (Some(2), Some("pending")));
    assert_eq!(document["outline"][0]["title"], "Escalation");
    let (file, size) = f.pipeline.files.open_pdf(&sha256_hex(&pdf)).unwrap();
    drop(file);
    assert_eq!(size, pdf.len() as u64);
    let again = PrivilegedCommand::parse(
        "wiki.publish",
        &json!({"uploadId": upload, "title": "Twice", "categoryId": "wikiuncategoriz", "documentType": "sop"}),
    )
    .unwrap();
    assert!(f.service.execute_local(&f.owner, &again, None, false).is_err(), "an upload publishes once");

    let id = document["id"].as_str().unwrap().to_string();
    let indexed =
        search::index_document(&f.pipeline, &IndexDocument { document_id: id.clone(), upload_id: upload.clone() });
    assert_eq!(indexed.unwrap()["searchIndexState"], "ready");
    assert!(!f.staged(&upload));
    let hits = search::search(&f.pipeline, &SearchRequest { query: "standby link".into(), ..SearchRequest::default() })
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!((hits[0].document_id.as_str(), hits[0].page_number), (id.as_str(), 1));
    assert!(hits[0].excerpt.contains("standby link"), "{:?}", hits[0].excerpt);
    let escalation =
        search::search(&f.pipeline, &SearchRequest { query: "duty manag".into(), ..SearchRequest::default() }).unwrap();
    assert_eq!((escalation[0].page_number, escalation[0].heading.as_str()), (2, "Escalation"));
    let invalid = search::search(&f.pipeline, &SearchRequest { query: "the of".into(), ..SearchRequest::default() });
    assert!(matches!(invalid, Err(WikiError::InvalidQuery(_))));
}

#[test]
fn replacing_a_pdf_keeps_the_document_and_removes_the_unreferenced_old_file() {
    let f = Fixture::new();
    let old_pdf = pdf_of(2000);
    let (batch, upload) = f.begin("isis.pdf", &old_pdf, &sha256_hex(&old_pdf));
    f.pipeline.store_chunk(&f.sender(), &f.chunk(&batch, &upload, &old_pdf, 0)).unwrap();
    let document = f.run(
        "wiki.publish",
        json!({"uploadId": upload, "title": "IS-IS", "categoryId": "wikiuncategoriz", "documentType": "sop"}),
    );
    let id = document["id"].as_str().unwrap().to_string();
    let mut new_pdf = pdf_of(2500);
    new_pdf[10] = b'!';
    let batch = f.run(
        "wiki.upload.begin",
        json!({"files": [{"fileName": "isis.pdf", "byteSize": new_pdf.len(), "checksum": sha256_hex(&new_pdf)}],
            "replacementDocumentId": id}),
    );
    let (batch_id, upload_id) =
        (batch["batchId"].as_str().unwrap().to_string(), batch["uploads"][0]["uploadId"].as_str().unwrap().to_string());
    f.pipeline.store_chunk(&f.sender(), &f.chunk(&batch_id, &upload_id, &new_pdf, 0)).unwrap();
    let replaced =
        f.run("wiki.replace", json!({"documentId": id, "uploadId": upload_id, "revision": document["revision"]}));
    assert_eq!((replaced["id"].as_str(), replaced["title"].as_str()), (Some(id.as_str()), Some("IS-IS")));
    assert_eq!(replaced["checksum"], sha256_hex(&new_pdf));
    assert!(f.pipeline.files.open_pdf(&sha256_hex(&new_pdf)).is_ok());
    assert!(f.pipeline.files.open_pdf(&sha256_hex(&old_pdf)).is_err(), "no document uses the old bytes any more");
}

/// Publishes `pdf` as a document and returns (document id, upload id); nothing indexes it.
fn publish_unindexed(f: &Fixture, name: &str, pdf: &[u8]) -> (String, String) {
    let (batch, upload) = f.begin(name, pdf, &sha256_hex(pdf));
    f.pipeline.store_chunk(&f.sender(), &f.chunk(&batch, &upload, pdf, 0)).unwrap();
    let document = f.run(
        "wiki.publish",
        json!({"uploadId": upload, "title": name, "categoryId": "wikiuncategoriz", "documentType": "sop"}),
    );
    assert_eq!(document["searchIndexState"], "pending");
    (document["id"].as_str().unwrap().to_string(), upload)
}

fn index_state(f: &Fixture, id: &str) -> String {
    let mut conn = f.pipeline.pool.get().unwrap();
    let document = infra::store::get_in(&mut conn, &domain::collections::WIKI_DOCUMENTS, id).unwrap().unwrap();
    document["searchIndexState"].as_str().unwrap().to_string()
}

#[test]
fn a_document_left_pending_is_indexed_again_from_its_stored_pdf_after_the_grace_period() {
    // The server stopped between publishing and indexing: the message is lost and a sweep
    // removes the published upload's staging (its extracted pages with it).
    let f = Fixture::new();
    let (id, upload) = publish_unindexed(&f, "core-router.pdf", &pdf_of(3000));
    f.pipeline.files.remove_upload(&upload).unwrap();
    let extractions = *f.extractor.calls.lock().unwrap();

    assert!(search::reindex_stale_pending(&f.pipeline).unwrap().is_empty(), "a fresh publish is left to its message");
    assert_eq!(index_state(&f, &id), "pending");

    f.clock.advance_ms(search::PENDING_INDEX_GRACE_MS + 1);
    let reindexed = search::reindex_stale_pending(&f.pipeline).unwrap();
    assert_eq!(reindexed.len(), 1);
    assert_eq!(
        (reindexed[0]["id"].as_str(), reindexed[0]["searchIndexState"].as_str()),
        (Some(id.as_str()), Some("ready"))
    );
    assert_eq!(*f.extractor.calls.lock().unwrap(), extractions + 1, "the stored PDF was extracted again");
    let hits = search::search(&f.pipeline, &SearchRequest { query: "standby link".into(), ..SearchRequest::default() })
        .unwrap();
    assert_eq!(hits.iter().map(|h| h.document_id.as_str()).collect::<Vec<_>>(), [id.as_str()]);
    assert!(search::reindex_stale_pending(&f.pipeline).unwrap().is_empty(), "a ready document is not touched again");
}

#[test]
fn a_pending_document_whose_pdf_fails_extraction_again_is_marked_failed_not_left_pending() {
    let f = Fixture::new();
    let (id, upload) = publish_unindexed(&f, "broken.pdf", &pdf_of(2000));
    f.pipeline.files.remove_upload(&upload).unwrap();
    *f.extractor.failure.lock().unwrap() = Some("extraction-timeout");
    f.clock.advance_ms(search::PENDING_INDEX_GRACE_MS + 1);
    let reindexed = search::reindex_stale_pending(&f.pipeline).unwrap();
    assert_eq!(reindexed[0]["searchIndexState"], "failed");
    assert_eq!(reindexed[0]["searchIndexError"], "extraction-failed");
    assert_eq!(index_state(&f, &id), "failed");
}
