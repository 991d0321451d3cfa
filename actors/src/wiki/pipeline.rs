//! The upload pipeline of the Wiki, as synchronous steps the actor runs on a blocking thread:
//! a chunk is checked against its upload (`domain::wiki::check_chunk`: identity, account,
//! device, states, integral in-range index, exact lengths) and its own SHA-256 BEFORE anything
//! is written; the last chunk triggers assembly, the whole-file checksum, the `%PDF-` signature
//! and bounded extraction (a worker process in production, [`PdfExtractor`]), after which the
//! upload is ready for the publisher's review. A server-local source file (the CLI or the
//! desktop's picker on the server PC) is fed through the same chunk check, re-checking the
//! file's identity (device, inode, size, modification time) before every read, so a file
//! changed mid-upload becomes "source changed" instead of mixed bytes. Failures are stored as
//! fixed safe texts and never touch other uploads.

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use serde_json::{json, Value};

use domain::wiki::limits::{MAX_PDF_BYTES, UPLOAD_CHUNK_BYTES};
use domain::wiki::{
    check_chunk, check_pdf_signature, next, ChunkClaim, OutlineEntry, UploadBinding, UploadEvent, UploadPlan,
    UploadState,
};
use infra::clock::SharedClock;
use infra::db::DbPool;
use infra::wiki::files::{sha256_hex, WikiFiles};
use infra::wiki::source::{SourceError, SourcePdf};
use infra::wiki::uploads::{self, StoredUpload};

use super::error::WikiError;

/// What extraction found in a PDF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    pub page_count: u32,
    /// Each page's text, in order (at most the extraction budgets).
    pub pages: Vec<String>,
    pub outline: Vec<OutlineEntry>,
    /// A PNG of page 1 within its bound, when one could be rendered.
    pub cover_png: Option<Vec<u8>>,
}

/// Reads page count, text, outline and cover of an assembled PDF within the extraction
/// budgets; the error is a fixed code (`encrypted-pdf`, `too-many-pages`,
/// `extraction-timeout`, `validation-failed`, ...).
pub trait PdfExtractor: Send + Sync {
    fn extract(&self, pdf: &Path) -> Result<Extracted, &'static str>;
}

/// Everything a pipeline step needs.
#[derive(Clone)]
pub struct Pipeline {
    pub pool: DbPool,
    pub files: WikiFiles,
    pub extractor: Arc<dyn PdfExtractor>,
    pub clock: SharedClock,
}

/// Who sends a chunk: the account and (from a laptop) the device the upload is bound to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sender {
    pub account_id: String,
    pub device_id: String,
}

/// A chunk as received.
#[derive(Debug, Clone)]
pub struct IncomingChunk {
    pub upload_id: String,
    pub batch_id: String,
    pub index: f64,
    pub byte_size: u64,
    pub checksum: String,
    pub bytes: Vec<u8>,
}

/// Where an upload stands after a step (its JSON is what the chunk route and `relay wiki
/// upload` answer).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UploadProgress {
    pub upload_id: String,
    pub state: String,
    pub stored_chunks: u32,
    pub chunk_count: u32,
    pub error: Option<String>,
}

/// The name of the extracted page texts in an upload's staging folder.
pub const PAGES_FILE: &str = "pages.json";

impl Pipeline {
    fn conn(&self) -> Result<infra::db::DbConn, WikiError> {
        self.pool.get().map_err(|_| WikiError::Unavailable)
    }

    fn load(&self, upload_id: &str) -> Result<StoredUpload, WikiError> {
        uploads::load_upload(&mut *self.conn()?, upload_id)?.ok_or(WikiError::NotFound)
    }

    fn progress(&self, upload: &StoredUpload, error: Option<&str>) -> Result<UploadProgress, WikiError> {
        let sizes = uploads::stored_chunk_sizes(&mut *self.conn()?, &upload.id, upload.chunk_count as u32)?;
        let stored = sizes.iter().filter(|s| s.is_some()).count() as u32;
        Ok(UploadProgress {
            upload_id: upload.id.clone(),
            state: upload.state.clone(),
            stored_chunks: stored,
            chunk_count: upload.chunk_count as u32,
            error: error.map(str::to_string),
        })
    }

    /// Checks and stores one chunk; the last one finishes the upload.
    pub fn store_chunk(&self, sender: &Sender, chunk: &IncomingChunk) -> Result<UploadProgress, WikiError> {
        let upload = self.load(&chunk.upload_id)?;
        let now = self.clock.now_ms();
        let state = UploadState::parse(&upload.state).ok_or(WikiError::Internal)?;
        // The first chunk starts the upload: it is checked as the uploading state it leads to.
        let checked_state = if state == UploadState::Queued { next(state, UploadEvent::ChunkAccepted)? } else { state };
        let plan =
            UploadPlan::from_record(upload.byte_size as u64, upload.chunk_size as u64, upload.chunk_count as u64)
                .map_err(WikiError::Chunk)?;
        let binding = UploadBinding {
            upload_id: &upload.id,
            batch_id: &upload.batch_id,
            account_id: &upload.account_id,
            device_id: &upload.device_id,
            plan,
            state: checked_state,
            batch_active: upload.batch_state == "active" && upload.expires_at > now,
        };
        let claim = ChunkClaim {
            batch_id: &chunk.batch_id,
            upload_id: &chunk.upload_id,
            account_id: &sender.account_id,
            device_id: &sender.device_id,
            index: chunk.index,
            byte_size: chunk.byte_size,
            actual_len: chunk.bytes.len() as u64,
            sha256: &chunk.checksum,
        };
        let index = check_chunk(&binding, &claim).map_err(WikiError::Chunk)?;
        if sha256_hex(&chunk.bytes) != chunk.checksum {
            return Err(WikiError::ChecksumMismatch);
        }
        self.files.write_chunk(&upload.id, u64::from(index), &chunk.bytes).map_err(WikiError::io)?;
        let mut conn = self.conn()?;
        uploads::record_chunk(&mut conn, &upload.id, index, chunk.bytes.len() as u64, &chunk.checksum, now)?;
        if state == UploadState::Queued {
            uploads::set_state(&mut conn, &upload.id, UploadState::Uploading.as_str(), "", now)?;
        }
        drop(conn);
        let upload = self.load(&upload.id)?;
        let progress = self.progress(&upload, None)?;
        if progress.stored_chunks == progress.chunk_count {
            return self.finish(&upload.id);
        }
        Ok(progress)
    }

    /// Marks an upload failed with a fixed safe text and removes its staging.
    fn fail(&self, upload_id: &str, safe_error: &'static str) -> Result<UploadProgress, WikiError> {
        let now = self.clock.now_ms();
        uploads::set_state(&mut *self.conn()?, upload_id, UploadState::Failed.as_str(), safe_error, now)?;
        if let Err(e) = self.files.remove_upload(upload_id) {
            tracing::warn!(error = %e, "failed upload staging not removed; the sweep retries");
        }
        let upload = self.load(upload_id)?;
        self.progress(&upload, Some(safe_error))
    }

    /// Assembles, verifies and extracts an upload whose every chunk is stored.
    pub fn finish(&self, upload_id: &str) -> Result<UploadProgress, WikiError> {
        let upload = self.load(upload_id)?;
        let now = self.clock.now_ms();
        let state = UploadState::parse(&upload.state).ok_or(WikiError::Internal)?;
        let assembling = next(state, UploadEvent::AllChunksReceived)?;
        uploads::set_state(&mut *self.conn()?, upload_id, assembling.as_str(), "", now)?;
        let sizes = uploads::stored_chunk_sizes(&mut *self.conn()?, upload_id, upload.chunk_count as u32)?;
        let sizes: Option<Vec<u64>> = sizes.into_iter().collect();
        let Some(sizes) = sizes else { return self.fail(upload_id, "upload-failed") };
        let (path, checksum) = match self.files.assemble(upload_id, &sizes, MAX_PDF_BYTES) {
            Ok(done) => done,
            Err(e) => {
                tracing::warn!(error = %e, "an upload could not be assembled");
                return self.fail(upload_id, "upload-failed");
            }
        };
        if checksum != upload.checksum {
            return self.fail(upload_id, "checksum-mismatch");
        }
        if check_pdf_head(&path).is_err() {
            return self.fail(upload_id, "invalid-file");
        }
        let extracting = next(assembling, UploadEvent::Assembled)?;
        uploads::set_state(&mut *self.conn()?, upload_id, extracting.as_str(), "", self.clock.now_ms())?;
        let extracted = match self.extractor.extract(&path) {
            Ok(extracted) => extracted,
            Err(code) => return self.fail(upload_id, code),
        };
        let pages_file = self.files.upload_dir(upload_id).map_err(WikiError::io)?.join(PAGES_FILE);
        let pages = serde_json::to_vec(&extracted.pages).map_err(|_| WikiError::Internal)?;
        infra::datadir::write_private_file(&pages_file, &pages).map_err(|e| WikiError::io(std::io::Error::other(e)))?;
        let cover = match &extracted.cover_png {
            Some(png) => self.files.put_cover(png).map_err(WikiError::io)?,
            None => String::new(),
        };
        let outline = outline_json(&extracted.outline).to_string();
        uploads::set_extracted(&mut *self.conn()?, upload_id, extracted.page_count, &outline, &cover, now)?;
        let upload = self.load(upload_id)?;
        self.progress(&upload, None)
    }

    /// Feeds a server-local PDF into its upload in 4 MiB chunks, re-checking the file's
    /// identity and reading with no link followed.
    pub fn feed_file(&self, sender: &Sender, upload_id: &str, path: &Path) -> Result<UploadProgress, WikiError> {
        let upload = self.load(upload_id)?;
        if self.files.is_inside_data_dir(path) {
            return Err(WikiError::SourceUnreadable);
        }
        let mut source = SourcePdf::open(path).map_err(source_error)?;
        if source.size() != upload.byte_size as u64 {
            return Err(WikiError::SourceChanged);
        }
        let mut progress = self.progress(&upload, None)?;
        for index in 0..upload.chunk_count as u64 {
            let bytes = source.read_chunk(index, UPLOAD_CHUNK_BYTES).map_err(source_error)?;
            let chunk = IncomingChunk {
                upload_id: upload.id.clone(),
                batch_id: upload.batch_id.clone(),
                index: index as f64,
                byte_size: bytes.len() as u64,
                checksum: sha256_hex(&bytes),
                bytes,
            };
            progress = self.store_chunk(sender, &chunk)?;
        }
        Ok(progress)
    }
}

impl Pipeline {
    /// An active document's record (a trashed or missing one is `NotFound`).
    fn active_document(&self, document_id: &str) -> Result<Value, WikiError> {
        let spec = &domain::collections::WIKI_DOCUMENTS;
        let document = infra::store::get_in(&mut *self.conn()?, spec, document_id).map_err(|_| WikiError::Internal)?;
        document.filter(|d| spec.reads.admits(d)).ok_or(WikiError::NotFound)
    }

    /// Opens an active document's PDF; its size must be the recorded one.
    pub fn open_document(&self, document_id: &str) -> Result<super::OpenedPdf, WikiError> {
        let document = self.active_document(document_id)?;
        let checksum = document["checksum"].as_str().unwrap_or_default().to_string();
        let (file, size) = self.files.open_pdf(&checksum).map_err(WikiError::io)?;
        if document["byteSize"].as_u64() != Some(size) {
            tracing::error!("a library PDF does not have its recorded size");
            return Err(WikiError::Unavailable);
        }
        let file_name = document["fileName"].as_str().unwrap_or("document.pdf").to_string();
        Ok(super::OpenedPdf { file, size, checksum, file_name })
    }

    /// An active document's cover PNG (`NotFound` when it has none).
    pub fn read_cover(&self, document_id: &str) -> Result<Vec<u8>, WikiError> {
        let document = self.active_document(document_id)?;
        let checksum = document["coverChecksum"].as_str().unwrap_or_default();
        if checksum.is_empty() {
            return Err(WikiError::NotFound);
        }
        self.files.read_cover(checksum, domain::wiki::limits::MAX_COVER_PNG_BYTES).map_err(WikiError::io)
    }

    /// Expires batches past their seven days and removes staging that no live upload owns;
    /// returns how many staging folders went.
    pub fn sweep(&self) -> Result<usize, WikiError> {
        let mut conn = self.conn()?;
        uploads::expire_batches(&mut conn, self.clock.now_ms())?;
        let live = uploads::live_upload_ids(&mut conn, self.clock.now_ms())?;
        drop(conn);
        let mut removed = 0;
        for staged in self.files.staged_uploads().map_err(WikiError::io)? {
            if !live.contains(&staged) {
                self.files.remove_upload(&staged).map_err(WikiError::io)?;
                removed += 1;
            }
        }
        Ok(removed)
    }
}

fn source_error(e: SourceError) -> WikiError {
    match e {
        SourceError::Changed => WikiError::SourceChanged,
        SourceError::Unreadable => WikiError::SourceUnreadable,
    }
}

fn check_pdf_head(path: &Path) -> Result<(), WikiError> {
    let mut head = [0u8; 5];
    File::open(path).and_then(|mut f| f.read_exact(&mut head)).map_err(WikiError::io)?;
    check_pdf_signature(&head).map_err(|_| WikiError::NotPdf)
}

/// The outline as stored on uploads and documents.
pub fn outline_json(outline: &[OutlineEntry]) -> Value {
    Value::Array(
        outline.iter().map(|o| json!({"title": o.title, "pageIndex": o.page_index, "depth": o.depth})).collect(),
    )
}

/// The outline back from its stored form (entries that do not parse are skipped).
pub fn outline_from_json(text: &str) -> Vec<OutlineEntry> {
    let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| {
            Some(OutlineEntry {
                title: o["title"].as_str()?.to_string(),
                page_index: u32::try_from(o["pageIndex"].as_u64()?).ok()?,
                depth: u32::try_from(o["depth"].as_u64()?).ok()?,
            })
        })
        .collect()
}
